"""What one eager Mixtral decoder layer (mixtral.py, following transformers' modeling_mixtral.py
with the eager experts) saves for backward, derived by hand from its op sequence and torch
1.13's autograd formulas, against the census of saved storages (saved.py); and a check that the
CausalLM trains.

The attention half is Llama's (test_llama_saved.py derives it). The MoE half, per token-expert
assignment, is independent of how the router spreads tokens: each of the T = b*s tokens goes to
top_k distinct experts, so the per-expert terms add up over T*top_k assignments whatever the
routing. Facts the derivation rests on:
- torch.where(mask) is nonzero(mask).unbind(1): the (slot, token) index pair is two views of one
  [n, 2] int64 storage, saved by the token gather, the weight gather and index_add_ alike.
- gate_up_proj[e] with e a 0-dim integer tensor is a select (Python indexing treats a 0-dim
  integer tensor as an int): a view of the parameter, so linear saves no weight copy.
- in-place division of the top-k values by their sum saves a clone of the values before the
  division (the formula for the divisor's gradient needs the original dividend) and the divisor.
- the routing weights stay fp32, so in bf16 the weighted product is fp32 and mul saves the bf16
  expert output and the fp32 weights.
- index_add_ saves its source, a whole [n, H] tensor per expert, though its backward needs only
  the source's shape: derivatives.yaml's formula for source is
  grad.index_select(dim, index).expand_as(source), and naming the tensor in the formula makes the
  generated code save it. The first form of this derivation missed it; the census showed e*H
  bytes more per assignment (the bf16 cast of the fp32 product, or the fp32 product itself)."""
import pytest

torch = pytest.importorskip("torch")

from llama import causal_mask, rotary  # noqa: E402
from mixtral import CausalLM, DecoderLayer  # noqa: E402
from saved import MEAN_SAVES_INPUT, Saved  # noqa: E402



def derived(b, s, h, a, g, d, f, n, k, e):
    """Bytes one layer saves: activations of e bytes, n experts of width f, top-k routing."""
    t = b * s  # tokens
    norm = (
        4 * b * s * h                     # pow's input: the fp32 upcast (the input itself in fp32)
        + 4 * b * s * h * MEAN_SAVES_INPUT  # its square, saved by mean (torch 1.13)
        + 4 * b * s                       # rsqrt's output
        + e * b * s * h                   # the normalized value in the activation dtype (times weight)
    )
    norm_out = e * b * s * h              # the norm's output: q/k/v's input, and the router's input
    attn = (
        2 * b * s * d * e                 # cos and sin (the rotary muls save the operand without grad)
        + e * b * a * s * d               # rotated q (matmul)
        + e * b * a * s * d               # repeat_kv's copy of k (matmul), or the rotated k
        + 8                               # the scale 1/sqrt(d), a Python float (mul)
        + 4 * b * a * s * s               # softmax's fp32 output
        + (e * b * a * s * s if e != 4 else 0)  # its copy in the dtype (the second matmul; none in fp32)
        + e * b * a * s * d               # repeat_kv's copy of v, or v's copy for bmm
        + e * b * s * a * d               # the contiguous attention output (o_proj)
    )
    router = (
        4 * t * n                         # softmax's fp32 output
        + 8 * t * k                       # topk's indices (int64)
        + 4 * t * k                       # the in-place division's clone of the top-k values
        + 4 * t                           # their sum, the divisor
    )
    experts = t * k * (                   # per token-expert assignment
        16                                # where's (slot, token) pair, one int64 [n, 2] storage
        + e * h                           # the gathered token state (gate_up linear)
        + e * 2 * f                       # gate_up's output: gate for silu, up for mul
        + e * f                           # silu's output (mul)
        + e * f                           # silu(gate) * up (down linear)
        + e * h                           # the expert output (mul by the routing weight)
        + 4                               # the gathered fp32 routing weight (mul)
        + e * h                           # the weighted output cast to the dtype (index_add_'s source)
    )
    return 2 * (norm + norm_out) + attn + router + experts


@pytest.mark.parametrize("dtype,e", [(torch.bfloat16, 2), (torch.float32, 4)])
@pytest.mark.parametrize("b,s,h,a,g,f,n,k", [(2, 32, 128, 8, 2, 96, 4, 2), (1, 48, 64, 4, 4, 80, 8, 2)])
def test_one_layer_saves_what_transformers_ops_save(dtype, e, b, s, h, a, g, f, n, k):
    torch.manual_seed(0)
    d = h // a
    layer = DecoderLayer(h, a, g, d, f, n, k).to(dtype)
    x = torch.randn(b, s, h, dtype=dtype, requires_grad=True)
    cos, sin = rotary(d, torch.arange(s)[None].expand(b, s), dtype)
    with Saved(layer.parameters()) as saved:
        layer(x, cos, sin, causal_mask(s, dtype))
    assert saved.bytes == derived(b, s, h, a, g, d, f, n, k, e)


@pytest.mark.parametrize("checkpoint", [False, True])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_causal_lm_trains(dtype, checkpoint):
    torch.manual_seed(0)
    model = CausalLM(vocab=96, hidden=64, layers=2, heads=4, kv_heads=2, intermediate=48, experts=4, top_k=2).to(dtype)
    model.checkpoint = checkpoint
    ids = torch.randint(96, (2, 16))
    logits = model(ids)
    assert logits.shape == (2, 16, 96)
    loss = torch.nn.functional.cross_entropy(logits.float()[:, :-1].reshape(-1, 96), ids[:, 1:].reshape(-1))
    loss.backward()
    grads = [p.grad for p in model.parameters()]
    assert all(gr is not None and torch.isfinite(gr).all() for gr in grads)
