"""What one eager Gemma-2 decoder layer (gemma2.py, following transformers' modeling_gemma2.py)
saves for backward, derived by hand from its op sequence and torch 1.13's autograd formulas,
against the census of saved storages (saved.py); and a check that the CausalLM trains.

Gemma2RMSNorm saves more than Llama's: its normalized value stays fp32 until after the weight
multiply, so the multiply by (1 + weight) saves the fp32 normalized value (4 bytes an element,
where Llama's weight multiply saves the value cast to the activation dtype) and the fp32
(1 + weight) vector, which is a fresh tensor, not a parameter. Four such norms per layer. The
attention softcap adds a tanh (its output saved, in the activation dtype) and two Python float
factors (the division and the multiplication by the cap, 8 bytes each, like the scale)."""
import pytest

torch = pytest.importorskip("torch")

from gemma2 import CausalLM, DecoderLayer, sliding_causal_mask  # noqa: E402
from llama import causal_mask, rotary  # noqa: E402
from saved import MEAN_SAVES_INPUT, Saved  # noqa: E402



def derived(b, s, h, a, g, d, f, e):
    """Bytes one layer saves with activations of e bytes."""
    norm = (
        4 * b * s * h                     # pow's input: the fp32 upcast (the input itself in fp32)
        + 4 * b * s * h * MEAN_SAVES_INPUT  # its square, saved by mean (torch 1.13)
        + 4 * b * s                       # rsqrt's output
        + 4 * b * s * h                   # the fp32 normalized value (mul by 1 + weight)
        + 4 * h                           # 1 + weight in fp32 (mul by the normalized value)
    )
    norm_out = e * b * s * h  # input_layernorm's and pre_feedforward_layernorm's outputs (the linears)
    attn = (
        2 * b * s * d * e                 # cos and sin (the rotary muls)
        + e * b * a * s * d               # rotated q (matmul)
        + e * b * a * s * d               # repeat_kv's copy of k (matmul), or the rotated k
        + 8                               # the scale query_pre_attn_scalar ** -0.5 (mul)
        + 8                               # the softcap, divided by (div)
        + e * b * a * s * s               # tanh's output
        + 8                               # the softcap, multiplied back (mul)
        + 4 * b * a * s * s               # softmax's fp32 output
        + (e * b * a * s * s if e != 4 else 0)  # its copy in the dtype (the second matmul)
        + e * b * a * s * d               # v: repeat_kv's copy, or v's copy or view for bmm
        + e * b * s * a * d               # the contiguous attention output (o_proj)
    )
    mlp = 4 * e * b * s * f  # gate output (gelu), gelu output and up output (mul), their product (down_proj)
    return 4 * norm + 2 * norm_out + attn + mlp


@pytest.mark.parametrize("sliding", [False, True])
@pytest.mark.parametrize("dtype,e", [(torch.bfloat16, 2), (torch.float32, 4)])
@pytest.mark.parametrize("b,s,h,a,g,d,f", [(2, 32, 128, 4, 2, 48, 256), (1, 64, 64, 2, 2, 32, 160)])
def test_one_layer_saves_what_transformers_ops_save(dtype, e, b, s, h, a, g, d, f, sliding):
    torch.manual_seed(0)
    layer = DecoderLayer(h, a, g, d, f, query_pre_attn_scalar=d, softcap=50.0).to(dtype)
    x = torch.randn(b, s, h, dtype=dtype, requires_grad=True)
    cos, sin = rotary(d, torch.arange(s)[None].expand(b, s), dtype)
    mask = sliding_causal_mask(s, s // 4, dtype) if sliding else causal_mask(s, dtype)
    with Saved(layer.parameters()) as saved:
        layer(x, cos, sin, mask)
    assert saved.bytes == derived(b, s, h, a, g, d, f, e)


def test_sliding_mask_sees_the_window_only():
    m = sliding_causal_mask(6, 3, torch.float32)[0, 0] == 0
    assert m[5].tolist() == [False, False, False, True, True, True]
    assert m[1].tolist() == [True, True, False, False, False, False]


@pytest.mark.parametrize("checkpoint", [False, True])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_causal_lm_trains(dtype, checkpoint):
    torch.manual_seed(0)
    model = CausalLM(vocab=96, hidden=64, layers=2, heads=4, kv_heads=2, intermediate=128, head_dim=32,
                     sliding_window=8).to(dtype)
    model.checkpoint = checkpoint
    ids = torch.randint(96, (2, 16))
    logits = model(ids)
    assert logits.shape == (2, 16, 96) and logits.abs().max() <= 30.0
    assert model.lm_head.weight is model.embed_tokens.weight
    loss = torch.nn.functional.cross_entropy(logits.float()[:, :-1].reshape(-1, 96), ids[:, 1:].reshape(-1))
    loss.backward()
    assert all(p.grad is not None and torch.isfinite(p.grad).all() for p in model.parameters())
