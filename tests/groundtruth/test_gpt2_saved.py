"""What one eager GPT-2 block (gpt2.py, following transformers' modeling_gpt2.py) saves for
backward, derived by hand from its op sequence and torch 1.13's autograd formulas, against the
census of saved storages (saved.py); and a check that the CausalLM trains.

Facts of torch 1.13 on CPU the derivation rests on (each checked by the census):
- Dropout on CPU is not native_dropout (which CUDA runs, saving a bool mask): at::dropout takes
  the fused kernel only for CUDA/XPU/lazy tensors; on CPU it draws a noise tensor in the input's
  dtype (bernoulli_, div_ by 1-p) and multiplies, so the multiply saves the float mask: e bytes
  per element, not 1. With p = 0 (or eval) it returns its input: nothing saved. (torch's
  native_dropout called directly saves a bool mask on CPU too: it is the routing, not the CPU
  kernel, that differs.) A CUDA run of the same block saves 1 byte per masked element instead.
- layer_norm saves its input, and mean and rstd per row, in the input dtype on CPU (bf16 in bf16).
- addmm (Conv1D) saves the flattened input; the weight is a parameter.
- matmul of 4-d tensors reshapes each operand to 3-d for bmm: a view when the batch and head
  dims merge, a copy otherwise. q, k and v are transposed views of c_attn's output, so for
  batch > 1 each is copied (three storages of e*b*s*h); for batch = 1 the reshapes are views and
  the one storage saved is c_attn's whole output, 3*e*b*s*h: the same bytes either way.
- a Python float factor is saved as a 0-dim float64 tensor (8 bytes): the attention scale and
  gelu_new's three factors (0.5, 0.044715, sqrt(2/pi)); division or addition of a float saves
  nothing here (1.0 + tanh).
- pow saves its input, tanh its output, mul both operands, softmax its output."""
import pytest

torch = pytest.importorskip("torch")

from gpt2 import Block, CausalLM  # noqa: E402
from llama import causal_mask  # noqa: E402
from saved import Saved  # noqa: E402


def derived(b, s, h, a, e, p):
    """Bytes one block saves, activations of e bytes, dropout probability p (training)."""
    f = 4 * h
    drop = p > 0
    ln = e * b * s * h + 2 * e * b * s    # layer_norm: its input, and mean and rstd per row
    attn = (
        e * b * s * h                     # c_attn's input, the ln_1 output (addmm)
        + 3 * e * b * s * h               # q, k, v for the matmuls (copies, or c_attn's output)
        + 8                               # the scale, a Python float (mul)
        + e * b * a * s * s               # softmax's output (no fp32 upcast in GPT-2)
        + drop * e * b * a * s * s        # attn_dropout's float mask (mul)
        + drop * e * b * a * s * s        # the dropped weights (second matmul); else softmax's output
        + e * b * s * h                   # the merged heads, a copy (c_proj's addmm)
        + drop * e * b * s * h            # resid_dropout's float mask
    )
    mlp = (
        e * b * s * h                     # c_fc's input, the ln_2 output (addmm)
        + e * b * s * f                   # c_fc's output: pow's input
        + 3 * 8                           # gelu_new's float factors 0.5, 0.044715, sqrt(2/pi)
        + e * b * s * f                   # tanh's output
        + e * b * s * f                   # 0.5 * x (mul by the bracket)
        + e * b * s * f                   # 1 + tanh (mul by 0.5 * x)
        + e * b * s * f                   # gelu's output (c_proj's addmm)
        + drop * e * b * s * h            # mlp dropout's float mask
    )
    return 2 * ln + attn + mlp


@pytest.mark.parametrize("p", [0.1, 0.0])
@pytest.mark.parametrize("dtype,e", [(torch.bfloat16, 2), (torch.float32, 4)])
@pytest.mark.parametrize("b,s,h,a", [(2, 64, 128, 4), (1, 96, 64, 2)])
def test_one_block_saves_what_transformers_ops_save(dtype, e, b, s, h, a, p):
    torch.manual_seed(0)
    block = Block(h, a, dropout=p).to(dtype)
    x = torch.randn(b, s, h, dtype=dtype, requires_grad=True)
    with Saved(block.parameters()) as saved:
        block(x, causal_mask(s, dtype))
    assert saved.bytes == derived(b, s, h, a, e, p)


@pytest.mark.parametrize("checkpoint", [False, True])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_causal_lm_trains(dtype, checkpoint):
    torch.manual_seed(0)
    model = CausalLM(vocab=96, hidden=64, layers=2, heads=4, positions=64).to(dtype)
    model.checkpoint = checkpoint
    ids = torch.randint(96, (2, 16))
    logits = model(ids)
    assert logits.shape == (2, 16, 96) and model.lm_head.weight is model.wte.weight
    loss = torch.nn.functional.cross_entropy(logits.float()[:, :-1].reshape(-1, 96), ids[:, 1:].reshape(-1))
    loss.backward()
    assert all(p.grad is not None and torch.isfinite(p.grad).all() for p in model.parameters())
