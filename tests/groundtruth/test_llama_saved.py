"""What one eager Llama decoder layer saves for backward, derived by hand from the op sequence of
transformers' modeling_llama.py (llama.py follows it) and PyTorch's autograd formulas
(tools/autograd/derivatives.yaml: a linear and silu save their input, pow its input, rsqrt and
softmax their output, mul each operand the other's gradient needs, matmul both), against the
census of saved storages (saved.py). The first form of the derivation missed two facts the census
showed, now written in: torch 1.13's mean saves its input, and a Python float factor is saved as a
0-dim float64 tensor."""
import pytest

torch = pytest.importorskip("torch")

from llama import DecoderLayer, causal_mask, rotary  # noqa: E402
from saved import MEAN_SAVES_INPUT, Saved  # noqa: E402




def derived(b, s, h, a, g, d, f, e):
    """Bytes one layer saves with activations of e bytes and the norm's fp32 upcast."""
    norm = (
        4 * b * s * h                     # pow's input: the fp32 upcast (the input itself in fp32)
        + 4 * b * s * h * MEAN_SAVES_INPUT  # its square, saved by mean (torch 1.13)
        + 4 * b * s                       # rsqrt's output
        + e * b * s * h                   # the normalized value in the activation dtype (times weight)
    )
    norm_out = e * b * s * h                           # the norm's output, saved by the next linears
    attn = (
        2 * b * s * d * e                 # cos and sin (the rotary muls save the operand without grad)
        + e * b * a * s * d               # rotated q (matmul)
        + e * b * a * s * d               # repeat_kv's copy of k (matmul)
        + 4 * b * a * s * s               # softmax's fp32 output
        + (e * b * a * s * s if e != 4 else 0)  # its copy in the dtype (the second matmul; none in fp32)
        + e * b * a * s * d               # repeat_kv's copy of v (the second matmul)
        + e * b * s * a * d               # the contiguous attention output (o_proj)
    )
    mlp = 4 * e * b * s * f  # gate output (silu), silu output and up output (mul), their product (down_proj)
    return 2 * (norm + norm_out) + attn + mlp


@pytest.mark.parametrize("dtype,e", [(torch.bfloat16, 2), (torch.float32, 4)])
@pytest.mark.parametrize("b,s,h,a,g,f", [(2, 64, 256, 8, 2, 704), (1, 128, 128, 4, 4, 352)])
def test_one_layer_saves_what_transformers_ops_save(dtype, e, b, s, h, a, g, f):
    torch.manual_seed(0)
    d = h // a
    layer = DecoderLayer(h, a, g, d, f).to(dtype)
    x = torch.randn(b, s, h, dtype=dtype, requires_grad=True)
    cos, sin = rotary(d, torch.arange(s)[None].expand(b, s), dtype)
    mask = causal_mask(s, dtype)
    with Saved(layer.parameters()) as saved:
        layer(x, cos, sin, mask)
    # the scaling 1/sqrt(d), a Python float, is saved as a 0-dim float64 tensor: 8 bytes
    assert saved.bytes == derived(b, s, h, a, g, d, f, e) + 8
