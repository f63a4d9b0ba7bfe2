"""What one eager Llama decoder layer (llama.py) with PEFT-style LoRA on q_proj and v_proj
(lora.py) saves for backward, derived by hand from the op sequence and torch 1.13's autograd
formulas, against the census of saved storages (saved.py); and checks that LoRA-adapted
CausalLMs train, with and without reentrant checkpointing.

The layer is a middle one: its input requires grad (it depends on the LoRA weights of the
layers before). What freezing the base changes: torch 1.13's generated autograd code saves an
operand only when the gradient of another input that requires grad needs it. A frozen linear
(weight without grad) keeps only its weight, a parameter, not its input: o_proj, k_proj, the
gate/up/down projections and the base q/v projections save no activation. A norm's
weight * normalized multiply keeps the weight only, so the normalized value in the dtype is no
longer saved. What LoRA adds, per adapted projection: lora_A's input (with fp32 adapters on a
bf16 model, a fresh fp32 copy of the norm output per adapter: PEFT casts the input inside each
wrapper; with fp32 adapters on an fp32 model, the norm output itself, one storage for both
adapters); lora_B's input, lora_A's [b, s, r] output in fp32; and the scaling alpha/r, a Python
float, saved by the multiply as an 8-byte float64 0-dim tensor. With lora_dropout > 0 each
adapter's dropout runs on CPU as a multiply by a float noise mask in fp32 (saved) and lora_A
saves the dropped input instead of the cast one."""
import pytest

torch = pytest.importorskip("torch")

import gemma2  # noqa: E402
import llama  # noqa: E402
import mixtral  # noqa: E402
from llama import DecoderLayer, causal_mask, rotary  # noqa: E402
from lora import LoraLinear, apply_lora, enable_input_require_grads  # noqa: E402
from saved import MEAN_SAVES_INPUT, Saved  # noqa: E402



def derived(b, s, h, a, g, d, f, r, e, p, adapters=2):
    """Bytes one layer with `adapters` LoRA projections reading the input norm's output saves:
    base frozen, activations of e bytes, adapters in fp32, lora_dropout p."""
    norm = (
        4 * b * s * h                     # pow's input: the fp32 upcast (the input itself in fp32)
        + 4 * b * s * h * MEAN_SAVES_INPUT  # its square, saved by mean (torch 1.13)
        + 4 * b * s                       # rsqrt's output (the frozen weight's mul saves the weight only)
    )
    if p > 0:
        lora_in = adapters * (
            4 * b * s * h                 # the dropout's fp32 noise mask (mul)
            + 4 * b * s * h               # the dropped input (lora_A)
        )
    elif e != 4:
        lora_in = adapters * 4 * b * s * h  # each wrapper's fp32 copy of the norm output (lora_A)
    else:
        lora_in = e * b * s * h           # the norm output itself, one storage (both lora_A)
    lora = lora_in + adapters * (
        4 * b * s * r                     # lora_A's fp32 output (lora_B)
        + 8                               # the scaling alpha / r, a Python float (mul)
    )
    attn = (
        2 * b * s * d * e                 # cos and sin (the rotary muls)
        + e * b * a * s * d               # rotated q (matmul)
        + e * b * a * s * d               # repeat_kv's copy of k (matmul), or the rotated k
        + 8                               # the scale 1/sqrt(d) (mul)
        + 4 * b * a * s * s               # softmax's fp32 output
        + (e * b * a * s * s if e != 4 else 0)  # its copy in the dtype (the second matmul)
        + e * b * a * s * d               # v: repeat_kv's copy, or v's copy or view for bmm
        # the attention output is not saved: o_proj is frozen
    )
    mlp = 3 * e * b * s * f  # gate output (silu), silu output and up output (mul); down_proj frozen
    return 2 * norm + lora + attn + mlp


@pytest.mark.parametrize("p", [0.0, 0.1])
@pytest.mark.parametrize("dtype,e", [(torch.bfloat16, 2), (torch.float32, 4)])
@pytest.mark.parametrize("b,s,h,a,g,f,r", [(2, 64, 256, 8, 2, 704, 8), (1, 128, 128, 4, 4, 352, 16)])
def test_one_lora_layer_saves_what_peft_ops_save(dtype, e, b, s, h, a, g, f, r, p):
    torch.manual_seed(0)
    d = h // a
    layer = apply_lora(DecoderLayer(h, a, g, d, f).to(dtype), r, dropout=p)
    assert isinstance(layer.self_attn.q_proj, LoraLinear) and isinstance(layer.self_attn.v_proj, LoraLinear)
    assert [n for n, q in layer.named_parameters() if q.requires_grad] == [
        "self_attn.q_proj.lora_A.weight", "self_attn.q_proj.lora_B.weight",
        "self_attn.v_proj.lora_A.weight", "self_attn.v_proj.lora_B.weight",
    ]
    assert layer.self_attn.q_proj.lora_A.weight.dtype == torch.float32
    x = torch.randn(b, s, h, dtype=dtype, requires_grad=True)
    cos, sin = rotary(d, torch.arange(s)[None].expand(b, s), dtype)
    with Saved(layer.parameters()) as saved:
        layer(x, cos, sin, causal_mask(s, dtype))
    assert saved.bytes == derived(b, s, h, a, g, d, f, r, e, p)


def test_lora_b_starts_at_zero_so_the_output_is_the_base_output():
    torch.manual_seed(0)
    base = torch.nn.Linear(32, 48, bias=False)
    x = torch.randn(3, 32)
    wrapped = LoraLinear(base, 4)
    assert torch.equal(wrapped(x), base(x)) and wrapped.scaling == 16 / 4


def builders():
    yield "mixtral", lambda: mixtral.CausalLM(96, 64, 2, 4, 2, 48, 4, 2), "embed_tokens"
    yield "gemma2", lambda: gemma2.CausalLM(96, 64, 2, 4, 2, 128, head_dim=16, sliding_window=8), "embed_tokens"
    if hasattr(llama, "CausalLM"):
        yield "llama", lambda: llama.CausalLM(96, 64, 2, 4, 2, 128), "embed_tokens"


@pytest.mark.parametrize("checkpoint", [False, True])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
@pytest.mark.parametrize("name,build,embedding", list(builders()), ids=[n for n, _, _ in builders()])
def test_lora_causal_lm_trains(name, build, embedding, dtype, checkpoint):
    torch.manual_seed(0)
    model = apply_lora(build().to(dtype), r=4, dropout=0.05)
    model.checkpoint = checkpoint
    if checkpoint:
        enable_input_require_grads(getattr(model, embedding))
    ids = torch.randint(96, (2, 16))
    logits = model(ids)
    loss = torch.nn.functional.cross_entropy(logits.float()[:, :-1].reshape(-1, 96), ids[:, 1:].reshape(-1))
    loss.backward()
    for n, q in model.named_parameters():
        if "lora_" in n:
            assert q.grad is not None and torch.isfinite(q.grad).all(), n
        else:
            assert q.grad is None, n
    # lora_B starts at zero: lora_A's gradient is zero on the first step, lora_B's is not
    assert any(q.grad.abs().sum() > 0 for n, q in model.named_parameters() if "lora_B" in n)


def test_reentrant_checkpoint_without_input_grads_leaves_lora_without_gradients():
    torch.manual_seed(0)
    model = apply_lora(mixtral.CausalLM(96, 64, 2, 4, 2, 48, 4, 2), r=4)
    model.checkpoint = True
    ids = torch.randint(96, (2, 16))
    with pytest.warns(UserWarning, match="requires_grad"):
        logits = model(ids)
    assert not logits.requires_grad  # nothing to backpropagate into the LoRA weights
