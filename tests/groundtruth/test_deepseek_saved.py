"""What one eager DeepSeek-V3 decoder layer (deepseek.py, following transformers'
modeling_deepseek_v3.py) saves for backward, dense and MoE, derived by hand from its op sequence
and torch 1.13's autograd formulas, against the census of saved storages (saved.py); and a check
that the CausalLM trains.

Facts the derivation rests on, beyond those of the Llama and Mixtral derivations:
- The rope parts reach the rotary multiplies as views or interleaving copies, and the multiplies
  save only cos and sin; the cat of the pass and rope parts makes the query and key the matmul
  saves (fresh, contiguous: views for bmm).
- kv_a_layernorm gets k_pass, a split (a view) of kv_a_proj_with_mqa's output. In bf16 its fp32
  upcast is a fresh copy of the latent part alone; in fp32 .to(float32) returns the view itself,
  so pow saves a view and the census counts its whole storage: the latent and the rope part.
- The values are a split of kv_b_proj's output viewed per head: for bmm the second matmul
  reshapes them to [b*heads, s, v]. For batch > 1 that is a copy of the values alone; for
  batch = 1 it is a view and the storage saved is kv_b_proj's whole output, nope + v per head.
- The router casts the weight to fp32 for its linear: in bf16 that is a copy, not a parameter,
  so the census counts it (4 bytes per weight); in fp32 the cast returns the parameter.
- gather saves its input (the sigmoid output, already saved by sigmoid) and its index (the
  expert topk's indices).
- The router's group selection packs tensors that backward never sees: the per-group top-2 and
  the group topk save their indices, masked_fill its bool mask, yet only indices come out of that
  branch (the top-k values are dropped), so when route() returns nothing references its nodes
  and they are freed with what they saved. Saved's census counts every storage packed inside it,
  so it counts those too; worse, a freed storage's address can be reused by a later saved
  tensor, which the census then takes for the one already seen: its total varied from run to run
  by a few hundred bytes here. The MoE test therefore reads Held below: the same census, keeping
  only the storages still alive at the end of the forward, with its output alive (what backward
  holds). The dense layers pack nothing that dies, and there both counts agree."""
import weakref

import pytest

torch = pytest.importorskip("torch")

from deepseek import CausalLM, DecoderLayer  # noqa: E402
from llama import causal_mask, rotary  # noqa: E402
from saved import MEAN_SAVES_INPUT, Saved  # noqa: E402



class Held(Saved):
    """Saved's census, plus `held`: bytes of the distinct non-parameter storages among the
    packed tensors still alive when read (read it while the forward's output is alive)."""

    def __init__(self, parameters=()):
        super().__init__(parameters)
        self._refs = []

    def _pack(self, t):
        self._refs.append(weakref.ref(t))
        return super()._pack(t)

    @property
    def held(self):
        live = {}
        for ref in self._refs:
            t = ref()
            if t is not None and t.storage().data_ptr() not in self._params:
                live[t.storage().data_ptr()] = t.storage().nbytes()
        return sum(live.values())


def rms(b, s, w, e, upcast=None):
    """Llama's RMSNorm over width w: `upcast` is the bytes pow's fp32 input holds when it is not
    a fresh 4*b*s*w (a view of a wider storage)."""
    return (
        (4 * b * s * w if upcast is None else upcast)  # pow's input: the fp32 upcast, or the input in fp32
        + 4 * b * s * w * MEAN_SAVES_INPUT  # its square, saved by mean (torch 1.13)
        + 4 * b * s                       # rsqrt's output
        + e * b * s * w                   # the normalized value in the dtype (times weight)
    )


def attention(b, s, h, a, rq, kvr, nope, r, dv, e):
    qk = nope + r
    q_path = 0 if rq is None else (      # q_proj saves the norm output, counted below
        rms(b, s, rq, e)                  # q_a_layernorm
        + e * b * s * rq                  # its output (q_b_proj)
    )
    latent = 4 * b * s * (kvr + r) if e == 4 else None  # fp32: pow saves a view of the whole output
    return (
        e * b * s * h                     # input_layernorm's output (q_a_proj or q_proj, kv_a_proj)
        + q_path
        + rms(b, s, kvr, e, latent)       # kv_a_layernorm
        + e * b * s * kvr                 # its output (kv_b_proj)
        + 2 * e * b * s * r               # cos and sin over the rope dims (the rotary muls)
        + e * b * a * s * qk              # the query, cat of q_pass and rotated q_rot (matmul)
        + e * b * a * s * qk              # the key, cat of k_pass and the expanded k_rot (matmul)
        + 8                               # the scale (nope + rope) ** -0.5, a Python float (mul)
        + 4 * b * a * s * s               # softmax's fp32 output
        + (e * b * a * s * s if e != 4 else 0)  # its copy in the dtype (the second matmul)
        + (e * b * a * s * dv if b > 1 else e * b * s * a * (nope + dv))  # v: a copy, or kv_b's output
        + e * b * s * a * dv              # the contiguous attention output (o_proj)
    )


def derived(b, s, h, a, rq, kvr, nope, r, dv, f, e):
    """Bytes one dense layer saves: activations of e bytes, q_lora_rank rq (None: q_proj)."""
    return (
        rms(b, s, h, e)                   # input_layernorm
        + attention(b, s, h, a, rq, kvr, nope, r, dv, e)
        + rms(b, s, h, e)                 # post_attention_layernorm
        + e * b * s * h                   # its output (gate_proj, up_proj)
        + 4 * e * b * s * f               # gate out (silu), silu out and up out (mul), product (down_proj)
    )


def derived_moe(b, s, h, a, rq, kvr, nope, r, dv, e, n, k, groups, topk_group, fm, shared):
    """Bytes one MoE layer saves: n routed experts of width fm in `groups` groups, top-k."""
    t = b * s
    router = (
        (4 * t * h if e != 4 else 0)      # the states cast to fp32 (router linear); in fp32 the norm output
        + (4 * n * h if e != 4 else 0)    # the weight cast to fp32, a copy in bf16 (router linear)
        + 4 * t * n                       # sigmoid's output (also gather's input)
        # the group selection's nodes save the per-group top-2's indices (8*t*groups*2), the group
        # topk's indices (8*t*topk_group) and masked_fill's bool mask (t*n), but no output keeps
        # them: only indices leave that branch, so its nodes die before backward (see Held)
        + 8 * t * k                       # the expert topk's indices, held as gather's index
        + 4 * t * k                       # the in-place normalization's clone of the weights
        + 4 * t                           # their sum + 1e-20, the divisor
        + 8                               # routed_scaling_factor, a Python float (mul)
    )
    experts = t * k * (                   # per token-expert assignment, as Mixtral's experts
        16                                # where's (slot, token) pair, one int64 [n, 2] storage
        + e * h                           # the gathered token state (gate_up linear)
        + e * 2 * fm                      # gate_up's output: gate for silu, up for mul
        + e * fm                          # silu's output
        + e * fm                          # silu(gate) * up (down linear)
        + e * h                           # the expert output (mul by the fp32 routing weight)
        + 4                               # the gathered routing weight
        + e * h                           # the weighted output cast to the dtype (index_add_'s source)
    )
    return (
        rms(b, s, h, e)
        + attention(b, s, h, a, rq, kvr, nope, r, dv, e)
        + rms(b, s, h, e)
        + e * b * s * h                   # post_attention_layernorm's output (shared experts' linears)
        + router
        + experts
        + 4 * e * t * fm * shared         # the shared experts' SwiGLU
    )


SHAPES = [(2, 32, 128, 4, 48, 64, 32, 16, 24, 160), (1, 48, 64, 2, None, 32, 16, 8, 32, 96)]


@pytest.mark.parametrize("interleave", [True, False])
@pytest.mark.parametrize("dtype,e", [(torch.bfloat16, 2), (torch.float32, 4)])
@pytest.mark.parametrize("b,s,h,a,rq,kvr,nope,r,dv,f", SHAPES)
def test_one_dense_layer_saves_what_transformers_ops_save(dtype, e, b, s, h, a, rq, kvr, nope, r, dv, f, interleave):
    torch.manual_seed(0)
    layer = DecoderLayer(h, a, rq, kvr, nope, r, dv, f, interleave).to(dtype)
    x = torch.randn(b, s, h, dtype=dtype, requires_grad=True)
    cos, sin = rotary(r, torch.arange(s)[None].expand(b, s), dtype)
    with Held(layer.parameters()) as saved:
        out = layer(x, cos, sin, causal_mask(s, dtype))
    assert saved.bytes == saved.held == derived(b, s, h, a, rq, kvr, nope, r, dv, f, e)
    del out


@pytest.mark.parametrize("dtype,e", [(torch.bfloat16, 2), (torch.float32, 4)])
@pytest.mark.parametrize("b,s,h,a,rq,kvr,nope,r,dv,f", SHAPES)
def test_one_moe_layer_saves_what_transformers_ops_save(dtype, e, b, s, h, a, rq, kvr, nope, r, dv, f):
    torch.manual_seed(0)
    moe = dict(moe_intermediate=f // 2, experts=8, top_k=2, groups=4, topk_group=2, shared=1)
    layer = DecoderLayer(h, a, rq, kvr, nope, r, dv, f, moe=moe).to(dtype)
    x = torch.randn(b, s, h, dtype=dtype, requires_grad=True)
    cos, sin = rotary(r, torch.arange(s)[None].expand(b, s), dtype)
    with Held(layer.parameters()) as saved:
        out = layer(x, cos, sin, causal_mask(s, dtype))
    assert saved.held == derived_moe(b, s, h, a, rq, kvr, nope, r, dv, e, 8, 2, 4, 2, f // 2, 1)
    # saved.bytes is not asserted: it counts the freed branch, less whatever a reused address hid
    del out


@pytest.mark.parametrize("checkpoint", [False, True])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_causal_lm_trains(dtype, checkpoint):
    torch.manual_seed(0)
    moe = dict(moe_intermediate=32, experts=8, top_k=2, groups=4, topk_group=2, shared=1)
    model = CausalLM(vocab=96, hidden=64, layers=2, heads=4, intermediate=128, q_lora_rank=32, kv_lora_rank=32,
                     qk_nope_head_dim=16, qk_rope_head_dim=8, v_head_dim=16, moe=moe).to(dtype)
    model.checkpoint = checkpoint
    ids = torch.randint(96, (2, 16))
    logits = model(ids)
    assert logits.shape == (2, 16, 96)
    loss = torch.nn.functional.cross_entropy(logits.float()[:, :-1].reshape(-1, 96), ids[:, 1:].reshape(-1))
    loss.backward()
    grads = {n: p.grad for n, p in model.named_parameters()}
    assert all(g is not None and torch.isfinite(g).all() for g in grads.values()), [n for n, g in grads.items() if g is None]
