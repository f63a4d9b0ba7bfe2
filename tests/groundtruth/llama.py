"""An eager Llama decoder written to follow transformers' modeling_llama.py (the eager attention
path) op for op, so that what autograd saves and what the allocator holds are what transformers
would hold on the same device: LlamaRMSNorm, LlamaRotaryEmbedding + apply_rotary_pos_emb,
repeat_kv, eager_attention_forward, LlamaMLP, LlamaDecoderLayer. No transformers package is
installable here (no registry), hence this copy of the op sequence, not of the code."""
import math

import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, width, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(width))
        self.eps = eps

    def forward(self, x):
        # LlamaRMSNorm.forward: upcast, variance, rsqrt, downcast, scale
        dtype = x.dtype
        x = x.to(torch.float32)
        variance = x.pow(2).mean(-1, keepdim=True)
        x = x * torch.rsqrt(variance + self.eps)
        return self.weight * x.to(dtype)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def rotary(head_dim, positions, dtype, theta=10000.0):
    """LlamaRotaryEmbedding.forward: cos and sin of [batch, seq, head_dim] in the hidden dtype."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim))
    freqs = (inv_freq[None, :, None].expand(positions.shape[0], -1, 1) @ positions[:, None, :].float()).transpose(1, 2)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def repeat_kv(x, n_rep):
    b, g, s, d = x.shape
    if n_rep == 1:
        return x
    return x[:, :, None, :, :].expand(b, g, n_rep, s, d).reshape(b, g * n_rep, s, d)


class Attention(nn.Module):
    def __init__(self, hidden, heads, kv_heads, head_dim):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, head_dim
        self.q_proj = nn.Linear(hidden, heads * head_dim, bias=False)
        self.k_proj = nn.Linear(hidden, kv_heads * head_dim, bias=False)
        self.v_proj = nn.Linear(hidden, kv_heads * head_dim, bias=False)
        self.o_proj = nn.Linear(heads * head_dim, hidden, bias=False)

    def forward(self, x, cos, sin, mask):
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, -1, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, s, -1, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, s, -1, self.head_dim).transpose(1, 2)
        c, n = cos.unsqueeze(1), sin.unsqueeze(1)  # apply_rotary_pos_emb
        q = (q * c) + (rotate_half(q) * n)
        k = (k * c) + (rotate_half(k) * n)
        # eager_attention_forward
        k = repeat_kv(k, self.heads // self.kv_heads)
        v = repeat_kv(v, self.heads // self.kv_heads)
        w = torch.matmul(q, k.transpose(2, 3)) * (1.0 / math.sqrt(self.head_dim))
        w = w + mask
        w = nn.functional.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
        w = nn.functional.dropout(w, p=0.0, training=self.training)
        out = torch.matmul(w, v).transpose(1, 2).contiguous()
        return self.o_proj(out.reshape(b, s, -1))


class MLP(nn.Module):
    def __init__(self, hidden, intermediate):
        super().__init__()
        self.gate_proj = nn.Linear(hidden, intermediate, bias=False)
        self.up_proj = nn.Linear(hidden, intermediate, bias=False)
        self.down_proj = nn.Linear(intermediate, hidden, bias=False)

    def forward(self, x):
        return self.down_proj(nn.functional.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self, hidden, heads, kv_heads, head_dim, intermediate):
        super().__init__()
        self.input_layernorm = RMSNorm(hidden)
        self.self_attn = Attention(hidden, heads, kv_heads, head_dim)
        self.post_attention_layernorm = RMSNorm(hidden)
        self.mlp = MLP(hidden, intermediate)

    def forward(self, x, cos, sin, mask):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, mask)
        return x + self.mlp(self.post_attention_layernorm(x))


def causal_mask(seq, dtype, batch=1):
    """The additive causal mask transformers builds for eager attention (masking_utils.py
    eager_mask): min of the dtype above the diagonal, 0 elsewhere, [batch, 1, seq, seq],
    materialized for every sequence."""
    m = torch.full((seq, seq), torch.finfo(dtype).min, dtype=dtype).triu(1)
    return m[None, None].expand(batch, 1, seq, seq).contiguous()


def call_layer(layer, checkpoint, *args):
    """layer(*args); under torch.utils.checkpoint with use_reentrant=True when `checkpoint`
    (transformers' gradient_checkpointing_enable() default)."""
    import torch.utils.checkpoint

    if checkpoint:
        return torch.utils.checkpoint.checkpoint(layer, *args, use_reentrant=True)
    return layer(*args)


class RotaryCausalLM(nn.Module):
    """The body transformers' rotary causal LMs share (LlamaForCausalLM, MixtralForCausalLM,
    DeepseekV3ForCausalLM): embed_tokens, the given decoder layers, the final norm and lm_head
    (tied to the embedding when `tie`); the model computes the rotary cos/sin over `rotary_dim`
    and the causal mask once per forward and every layer reads them. `checkpoint` runs each layer
    under torch.utils.checkpoint with use_reentrant=True, transformers'
    gradient_checkpointing_enable() default. Returns the logits of every position
    (logits_to_keep=0)."""

    def __init__(self, vocab, hidden, layers, rotary_dim, tie=False):
        super().__init__()
        self.rotary_dim = rotary_dim
        self.embed_tokens = nn.Embedding(vocab, hidden)
        self.layers = nn.ModuleList(layers)
        self.norm = RMSNorm(hidden)
        self.lm_head = nn.Linear(hidden, vocab, bias=False)
        if tie:
            self.lm_head.weight = self.embed_tokens.weight
        self.checkpoint = False

    def forward(self, ids):
        x = self.embed_tokens(ids)
        b, s = ids.shape
        cos, sin = rotary(self.rotary_dim, torch.arange(s)[None].expand(b, s), x.dtype)
        mask = causal_mask(s, x.dtype, b)
        for layer in self.layers:
            x = call_layer(layer, self.checkpoint, x, cos, sin, mask)
        return self.lm_head(self.norm(x))


class CausalLM(RotaryCausalLM):
    """LlamaForCausalLM (RotaryCausalLM over LlamaDecoderLayer)."""

    def __init__(self, vocab, hidden, layers, heads, kv_heads, intermediate, head_dim=None, tie=False):
        d = head_dim or hidden // heads
        super().__init__(vocab, hidden, [DecoderLayer(hidden, heads, kv_heads, d, intermediate) for _ in range(layers)],
                         d, tie)
