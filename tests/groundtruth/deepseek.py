"""An eager DeepSeek-V3 decoder following transformers' models/deepseek_v3/modeling_deepseek_v3.py
(a late-2025/early-2026 main: DeepseekV3Attention, apply_rotary_pos_emb_interleave,
DeepseekV3MLP, DeepseekV3TopkRouter, DeepseekV3NaiveMoe, DeepseekV3MoE, DeepseekV3DecoderLayer),
op for op. RMSNorm, rotary cos/sin, rotate_half and the causal mask are llama.py's (the same
ops).

Multi-head latent attention, op by op: q = q_b_proj(q_a_layernorm(q_a_proj(x))) (or a plain
q_proj when q_lora_rank is None), viewed [b, heads, s, nope + rope] and split into q_pass and
q_rot; kv_a_proj_with_mqa(x) split into the latent (kv_lora_rank) and one shared k_rot (rope);
the latent through kv_a_layernorm and kv_b_proj, viewed [b, heads, s, nope + v] and split into
k_pass and the values; k_rot viewed [b, 1, s, rope]; rotary on q_rot and k_rot, interleaved by
default (rope_interleave=True: each rope part is viewed [.., rope/2, 2], transposed and
reshaped, a copy, before the usual rotate_half formula); k_rot expanded over the heads;
query = cat(q_pass, q_rot), key = cat(k_pass, k_rot); the eager attention (no repeat: kv heads =
heads) with scale (nope + rope) ** -0.5 (the yarn mscale correction applies only with a yarn
rope config; this module uses the default rope); o_proj.

The MLP is dense (DeepseekV3MLP, SwiGLU) in the first `first_k_dense_replace` layers and
DeepseekV3MoE after: a router in fp32 (linear of the fp32-cast states with the fp32-cast
weight), sigmoid scores, the bias-corrected scores grouped (top-2 sum per group, top
`topk_group` groups kept, the rest masked to -inf), top-k experts, their sigmoid scores gathered,
normalized (norm_topk_prob) and scaled by routed_scaling_factor; the experts run the eager
forward MixtralExperts has (DeepseekV3NaiveMoe's is the same); plus the shared experts (a
SwiGLU MLP of width moe_intermediate * n_shared) on the block input. e_score_correction_bias
is a zeros buffer (transformers keeps it fp32; here it follows the module's dtype: it needs no
grad and saves nothing either way)."""
import torch
from torch import nn

from llama import MLP, RMSNorm, RotaryCausalLM, rotate_half
from mixtral import Experts


def rope(q, k, cos, sin, interleave):
    """apply_rotary_pos_emb, or apply_rotary_pos_emb_interleave when `interleave`."""
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    if interleave:
        b, h, s, d = q.shape
        q = q.view(b, h, s, d // 2, 2).transpose(4, 3).reshape(b, h, s, d)
        b, h, s, d = k.shape
        k = k.view(b, h, s, d // 2, 2).transpose(4, 3).reshape(b, h, s, d)
    return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)


class Attention(nn.Module):
    def __init__(self, hidden, heads, q_lora_rank, kv_lora_rank, nope, rope_dim, v_dim, interleave=True):
        super().__init__()
        self.heads, self.nope, self.rope_dim, self.v_dim = heads, nope, rope_dim, v_dim
        self.q_lora_rank, self.kv_lora_rank, self.interleave = q_lora_rank, kv_lora_rank, interleave
        self.qk = nope + rope_dim
        if q_lora_rank is None:
            self.q_proj = nn.Linear(hidden, heads * self.qk, bias=False)
        else:
            self.q_a_proj = nn.Linear(hidden, q_lora_rank, bias=False)
            self.q_a_layernorm = RMSNorm(q_lora_rank)
            self.q_b_proj = nn.Linear(q_lora_rank, heads * self.qk, bias=False)
        self.kv_a_proj_with_mqa = nn.Linear(hidden, kv_lora_rank + rope_dim, bias=False)
        self.kv_a_layernorm = RMSNorm(kv_lora_rank)
        self.kv_b_proj = nn.Linear(kv_lora_rank, heads * (nope + v_dim), bias=False)
        self.o_proj = nn.Linear(heads * v_dim, hidden, bias=False)
        self.scaling = self.qk ** -0.5

    def forward(self, x, cos, sin, mask):
        b, s, _ = x.shape
        if self.q_lora_rank is None:
            q = self.q_proj(x)
        else:
            q = self.q_b_proj(self.q_a_layernorm(self.q_a_proj(x)))
        q = q.view(b, s, -1, self.qk).transpose(1, 2)
        q_pass, q_rot = torch.split(q, [self.nope, self.rope_dim], dim=-1)
        compressed = self.kv_a_proj_with_mqa(x)
        k_pass, k_rot = torch.split(compressed, [self.kv_lora_rank, self.rope_dim], dim=-1)
        k_pass = self.kv_b_proj(self.kv_a_layernorm(k_pass)).view(b, s, -1, self.nope + self.v_dim).transpose(1, 2)
        k_pass, v = torch.split(k_pass, [self.nope, self.v_dim], dim=-1)
        k_rot = k_rot.view(b, 1, s, self.rope_dim)
        q_rot, k_rot = rope(q_rot, k_rot, cos, sin, self.interleave)
        k_rot = k_rot.expand(*k_pass.shape[:-1], -1)
        q = torch.cat((q_pass, q_rot), dim=-1)
        k = torch.cat((k_pass, k_rot), dim=-1)
        # eager_attention_forward (repeat_kv with one repeat is the identity)
        w = torch.matmul(q, k.transpose(2, 3)) * self.scaling
        w = w + mask
        w = nn.functional.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
        w = nn.functional.dropout(w, p=0.0, training=self.training)
        out = torch.matmul(w, v).transpose(1, 2).contiguous()
        return self.o_proj(out.reshape(b, s, -1).contiguous())


class Router(nn.Module):
    """DeepseekV3TopkRouter: router logits in fp32."""

    def __init__(self, hidden, experts):
        super().__init__()
        self.hidden = hidden
        self.weight = nn.Parameter(torch.empty(experts, hidden).normal_(std=0.02))
        self.register_buffer("e_score_correction_bias", torch.zeros(experts))

    def forward(self, x):
        x = x.view(-1, self.hidden)
        return nn.functional.linear(x.type(torch.float32), self.weight.type(torch.float32))


class MoE(nn.Module):
    """DeepseekV3MoE."""

    def __init__(self, hidden, moe_intermediate, experts, top_k, groups, topk_group, shared=1,
                 routed_scaling_factor=2.5, norm_topk_prob=True):
        super().__init__()
        self.experts = Experts(hidden, moe_intermediate, experts)
        self.gate = Router(hidden, experts)
        self.shared_experts = MLP(hidden, moe_intermediate * shared)
        self.n, self.top_k, self.groups, self.topk_group = experts, top_k, groups, topk_group
        self.routed_scaling_factor, self.norm_topk_prob = routed_scaling_factor, norm_topk_prob

    def route(self, logits):
        """route_tokens_to_experts."""
        logits = logits.sigmoid()
        choice = logits + self.gate.e_score_correction_bias
        group_scores = choice.view(-1, self.groups, self.n // self.groups).topk(2, dim=-1)[0].sum(dim=-1)
        group_idx = torch.topk(group_scores, k=self.topk_group, dim=-1, sorted=False)[1]
        group_mask = torch.zeros_like(group_scores)
        group_mask.scatter_(1, group_idx, 1)
        score_mask = (
            group_mask.unsqueeze(-1).expand(-1, self.groups, self.n // self.groups).reshape(-1, self.n)
        )
        choice = choice.masked_fill(~score_mask.bool(), float("-inf"))
        index = torch.topk(choice, k=self.top_k, dim=-1, sorted=False)[1]
        weights = logits.gather(1, index)
        if self.norm_topk_prob:
            weights /= weights.sum(dim=-1, keepdim=True) + 1e-20
        return index, weights * self.routed_scaling_factor

    def forward(self, x):
        residuals, shape = x, x.shape
        index, weights = self.route(self.gate(x))
        x = self.experts(x.view(-1, x.shape[-1]), index, weights).view(*shape)
        return x + self.shared_experts(residuals)


class DecoderLayer(nn.Module):
    def __init__(self, hidden, heads, q_lora_rank, kv_lora_rank, nope, rope_dim, v_dim, intermediate,
                 interleave=True, moe=None):
        """`moe`: None for the dense MLP, else a dict of MoE's keyword arguments."""
        super().__init__()
        self.input_layernorm = RMSNorm(hidden)
        self.self_attn = Attention(hidden, heads, q_lora_rank, kv_lora_rank, nope, rope_dim, v_dim, interleave)
        self.post_attention_layernorm = RMSNorm(hidden)
        self.mlp = MLP(hidden, intermediate) if moe is None else MoE(hidden, **moe)

    def forward(self, x, cos, sin, mask):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, mask)
        return x + self.mlp(self.post_attention_layernorm(x))


class CausalLM(RotaryCausalLM):
    """DeepseekV3ForCausalLM (untied lm_head): RotaryCausalLM over DeepSeek's decoder layers (dense
    MLP in the first `first_k_dense_replace`, MoE after when `moe` is given; dense everywhere when
    it is None), cos/sin over the rope dims."""

    def __init__(self, vocab, hidden, layers, heads, intermediate, q_lora_rank=None, kv_lora_rank=64,
                 qk_nope_head_dim=32, qk_rope_head_dim=16, v_head_dim=32, rope_interleave=True,
                 first_k_dense_replace=1, moe=None):
        super().__init__(vocab, hidden, [
            DecoderLayer(hidden, heads, q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim,
                         intermediate, rope_interleave, None if i < first_k_dense_replace else moe)
            for i in range(layers)
        ], qk_rope_head_dim)
