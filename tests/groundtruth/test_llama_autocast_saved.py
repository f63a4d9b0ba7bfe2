"""What one eager Llama decoder layer saves under torch.autocast(bf16) with fp32 weights (the
transformers Trainer's bf16=True on an fp32 model), derived by hand and checked against the census
of saved storages (saved.py), as test_llama_saved.py does for pure precision.

The rules, from PyTorch's autocast (aten/src/ATen/autocast_mode.cpp and .h in 1.13 and 2.x):
- linear and matmul are lower-precision ops (KERNEL_CPU(..., lower_precision_fp)): cached_cast
  casts each fp32 argument to bf16 and the op saves the bf16 copy;
- an argument is cached (cached_casts) only when it is an fp32 leaf that requires grad: the
  weights, cast once per autocast region; any other input is cast afresh by every op that reads
  it, so q_proj, k_proj and v_proj each save a bf16 copy of the same norm output;
- a bf16 argument is not cast (cached_cast: arg.scalar_type() != to_type);
- ops outside the lists (embedding, pow, mean, rsqrt, mul, add, softmax with dtype) run in their
  inputs' promoted dtype: the embedding's fp32 output is the residual stream, LlamaRMSNorm's
  to(torch.float32) returns it, its to(input_dtype) stays fp32, and rotary's cos/sin take x.dtype
  (fp32), so the rotated q and k are fp32 again until the matmul casts them.
"""
import pytest

torch = pytest.importorskip("torch")

from llama import DecoderLayer, causal_mask, rotary  # noqa: E402
from saved import MEAN_SAVES_INPUT, Saved  # noqa: E402


def derived(b, s, h, a, g, d, f):
    """Bytes one layer saves under autocast bf16 over fp32 weights (cos and sin are the model's)."""
    norm = (
        4 * b * s * h                       # pow's input: the fp32 stream itself (to(float32) is a no-op)
        + 4 * b * s * h * MEAN_SAVES_INPUT  # its square, saved by mean (torch 1.13)
        + 4 * b * s                         # rsqrt's output
        + 4 * b * s * h                     # the normalized value, to(input_dtype) = fp32, saved by weight's mul
    )
    attn = (
        3 * 2 * b * s * h                   # q_proj, k_proj, v_proj: each its own bf16 copy of the norm output
        + 2 * (h * a * d + 2 * h * g * d + a * d * h)  # the cached bf16 weights of q, k, v, o (mm saves them)
        + 2 * b * a * s * d                 # rotated q (fp32: bf16 x fp32 cos) cast to bf16 by matmul
        + 2 * b * a * s * d                 # repeat_kv's k, cast to bf16 by matmul
        + 4 * b * a * s * s                 # softmax's fp32 output (w + fp32 mask is fp32)
        + 2 * b * a * s * s                 # its bf16 cast by the second matmul (.to(q.dtype) is fp32: no copy)
        + 2 * b * a * s * d                 # repeat_kv's v, cast to bf16
        + 2 * b * s * a * d                 # o_proj's input: the matmul's bf16 output made contiguous, not cast
    )
    mlp = (
        2 * 2 * b * s * h                   # gate_proj, up_proj: a bf16 input copy each
        + 2 * 3 * h * f                     # the cached bf16 gate, up and down weights
        + 4 * 2 * b * s * f                 # gate output (silu), silu output and up output (mul), their product (down_proj)
    )
    return 2 * norm + attn + mlp


@pytest.mark.parametrize("b,s,h,a,g,f", [(2, 64, 256, 8, 2, 704), (1, 128, 128, 4, 4, 352)])
def test_one_layer_saves_what_autocast_saves(b, s, h, a, g, f):
    torch.manual_seed(0)
    d = h // a
    layer = DecoderLayer(h, a, g, d, f)  # fp32 weights
    x = torch.randn(b, s, h, requires_grad=True)  # the fp32 residual stream (the embedding's output)
    cos, sin = rotary(d, torch.arange(s)[None].expand(b, s), x.dtype)
    mask = causal_mask(s, x.dtype)
    with Saved(layer.parameters()) as saved, torch.autocast("cpu", dtype=torch.bfloat16):
        out = layer(x, cos, sin, mask)
    assert out.dtype == torch.float32  # the residual adds promote: the stream stays fp32
    # cos and sin, fp32, saved by the rotary muls (the model's, counted once per forward), and the
    # scaling 1/sqrt(d), a Python float, saved as a 0-dim float64 tensor
    assert saved.bytes == derived(b, s, h, a, g, d, f) + 2 * 4 * b * s * d + 8


def test_weight_casts_are_cached_once_per_region():
    """Two calls of one linear in one autocast region save one bf16 weight copy, two in two regions
    (autocast_mode.cpp cached_casts, cleared when the outermost region exits); an input that is not
    a leaf is cast afresh by each call, a leaf that requires grad is cached like a weight."""
    lin = torch.nn.Linear(64, 32, bias=False)
    leaf = torch.randn(4, 64, requires_grad=True)
    x = leaf * 1.0  # an activation: not a leaf
    weight, copy = 2 * 64 * 32, 2 * 4 * 64
    outs = []  # the outputs keep their graphs, so no saved storage is freed and its address reused
    with Saved(lin.parameters()) as one, torch.autocast("cpu", dtype=torch.bfloat16):
        outs += [lin(x), lin(x)]
    with Saved(lin.parameters()) as two:
        for _ in range(2):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                outs.append(lin(x))
    with Saved(lin.parameters()) as cached, torch.autocast("cpu", dtype=torch.bfloat16):
        outs += [lin(leaf), lin(leaf)]
    assert one.bytes == 2 * copy + weight
    assert two.bytes == 2 * copy + 2 * weight
    assert cached.bytes == copy + weight
