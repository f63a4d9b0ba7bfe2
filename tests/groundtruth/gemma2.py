"""An eager Gemma-2 following transformers' models/gemma2/modeling_gemma2.py (a late-2025/early-2026
main: Gemma2RMSNorm, Gemma2MLP, the module's own eager_attention_forward with softcap,
Gemma2Attention, Gemma2DecoderLayer, Gemma2TextScaledWordEmbedding, Gemma2Model,
Gemma2ForCausalLM), op for op. Rotary cos/sin, repeat_kv and the causal mask are llama.py's (the
same ops in Gemma-2).

Where it differs from Llama, op by op:
- Gemma2RMSNorm computes in fp32 and casts at the end, scaling by (1 + weight) in fp32:
  x.float(), x * rsqrt(mean(x^2) + eps), times (1.0 + weight.float()), then type_as(input).
  Llama casts the normalized value to the dtype first and multiplies by the weight there. The
  weight starts at zeros (the scale is 1 + weight).
- Four norms per layer ("sandwich"): input_layernorm before attention, post_attention_layernorm
  on the attention output before the residual add, pre_feedforward_layernorm before the MLP,
  post_feedforward_layernorm on the MLP output before the residual add.
- The scale is query_pre_attn_scalar ** -0.5 (not head_dim ** -0.5); the logits are soft-capped
  before the mask: divided by attn_logit_softcapping, tanh, multiplied back.
- Layers alternate sliding-window (even index, config.layer_types) and full attention; the
  sliding mask lets a query see the last `sliding_window` keys up to itself.
- The MLP is GeGLU with gelu_pytorch_tanh (activations.GELUTanh: nn.functional.gelu with
  approximate="tanh").
- The embedding output is multiplied by sqrt(hidden) held as a 0-dim buffer cast to the weight's
  dtype (so in bf16 the normalizer is rounded to bf16, as transformers notes).
- The final logits are soft-capped (final_logit_softcapping); lm_head is tied to the embedding."""
import torch
from torch import nn

from llama import call_layer, causal_mask, repeat_kv, rotary, rotate_half


class RMSNorm(nn.Module):
    def __init__(self, width, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(width))
        self.eps = eps

    def forward(self, x):
        y = x.float()
        y = y * torch.rsqrt(y.pow(2).mean(-1, keepdim=True) + self.eps)
        y = y * (1.0 + self.weight.float())
        return y.type_as(x)


class Attention(nn.Module):
    def __init__(self, hidden, heads, kv_heads, head_dim, query_pre_attn_scalar, softcap):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, head_dim
        self.scaling = query_pre_attn_scalar ** -0.5
        self.softcap = softcap
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
        # eager_attention_forward (Gemma-2's, with softcap)
        k = repeat_kv(k, self.heads // self.kv_heads)
        v = repeat_kv(v, self.heads // self.kv_heads)
        w = torch.matmul(q, k.transpose(2, 3)) * self.scaling
        if self.softcap is not None:
            w = w / self.softcap
            w = torch.tanh(w)
            w = w * self.softcap
        w = w + mask
        w = nn.functional.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
        w = nn.functional.dropout(w, p=0.0, training=self.training)  # attention_dropout 0.0
        out = torch.matmul(w, v).transpose(1, 2).contiguous()
        return self.o_proj(out.reshape(b, s, -1).contiguous())


class MLP(nn.Module):
    def __init__(self, hidden, intermediate):
        super().__init__()
        self.gate_proj = nn.Linear(hidden, intermediate, bias=False)
        self.up_proj = nn.Linear(hidden, intermediate, bias=False)
        self.down_proj = nn.Linear(intermediate, hidden, bias=False)

    def forward(self, x):
        return self.down_proj(nn.functional.gelu(self.gate_proj(x), approximate="tanh") * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self, hidden, heads, kv_heads, head_dim, intermediate, query_pre_attn_scalar, softcap):
        super().__init__()
        self.self_attn = Attention(hidden, heads, kv_heads, head_dim, query_pre_attn_scalar, softcap)
        self.mlp = MLP(hidden, intermediate)
        self.input_layernorm = RMSNorm(hidden)
        self.post_attention_layernorm = RMSNorm(hidden)
        self.pre_feedforward_layernorm = RMSNorm(hidden)
        self.post_feedforward_layernorm = RMSNorm(hidden)

    def forward(self, x, cos, sin, mask):
        x = x + self.post_attention_layernorm(self.self_attn(self.input_layernorm(x), cos, sin, mask))
        return x + self.post_feedforward_layernorm(self.mlp(self.pre_feedforward_layernorm(x)))


def sliding_causal_mask(seq, window, dtype, batch=1):
    """masking_utils' sliding-window causal mask made additive for eager attention: a query at i
    sees keys j with i - window < j <= i; the dtype's min elsewhere. [batch, 1, seq, seq]."""
    i = torch.arange(seq)[:, None]
    j = torch.arange(seq)[None, :]
    allowed = (j <= i) & (j > i - window)
    zero = torch.zeros((), dtype=dtype)
    mask = torch.where(allowed, zero, torch.tensor(torch.finfo(dtype).min, dtype=dtype))[None, None]
    return mask.expand(batch, 1, seq, seq).contiguous()


class CausalLM(nn.Module):
    """Gemma2ForCausalLM with config defaults for the Gemma-2 specifics: query_pre_attn_scalar
    (default: head_dim; Gemma-2's configs set 256 or hidden/heads), sliding_window 4096,
    attn_logit_softcapping 50.0, final_logit_softcapping 30.0, layer i sliding when i is even.
    lm_head is tied to the embedding (tie_word_embeddings=True). `checkpoint` runs each layer
    under torch.utils.checkpoint with use_reentrant=True. Returns the logits of every position."""

    def __init__(
        self, vocab, hidden, layers, heads, kv_heads, intermediate, head_dim=None,
        query_pre_attn_scalar=None, sliding_window=4096, attn_softcap=50.0, final_softcap=30.0,
    ):
        super().__init__()
        self.head_dim = head_dim or hidden // heads
        self.sliding_window, self.final_softcap = sliding_window, final_softcap
        self.embed_tokens = nn.Embedding(vocab, hidden)
        self.register_buffer("embed_scale", torch.tensor(hidden ** 0.5), persistent=False)
        scalar = query_pre_attn_scalar or self.head_dim
        self.layers = nn.ModuleList(
            DecoderLayer(hidden, heads, kv_heads, self.head_dim, intermediate, scalar, attn_softcap)
            for _ in range(layers)
        )
        self.layer_types = ["sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(layers)]
        self.norm = RMSNorm(hidden)
        self.lm_head = nn.Linear(hidden, vocab, bias=False)
        self.lm_head.weight = self.embed_tokens.weight
        self.checkpoint = False

    def forward(self, ids):
        weight = self.embed_tokens.weight
        x = self.embed_tokens(ids) * self.embed_scale.to(weight.dtype)
        b, s = ids.shape
        cos, sin = rotary(self.head_dim, torch.arange(s)[None].expand(b, s), x.dtype)
        masks = {
            "full_attention": causal_mask(s, x.dtype, b),
            "sliding_attention": sliding_causal_mask(s, self.sliding_window, x.dtype, b),
        }
        for layer, kind in zip(self.layers, self.layer_types):
            x = call_layer(layer, self.checkpoint, x, cos, sin, masks[kind])
        logits = self.lm_head(self.norm(x))
        if self.final_softcap is not None:
            logits = logits / self.final_softcap
            logits = torch.tanh(logits)
            logits = logits * self.final_softcap
        return logits
