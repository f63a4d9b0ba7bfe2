"""An eager Mixtral decoder following transformers' models/mixtral/modeling_mixtral.py as of a
late-2025/early-2026 main (the version with MixtralTopKRouter and MixtralExperts holding the
experts as two 3-d parameters, gate_up_proj [E, 2I, H] and down_proj [E, H, I], under
@use_experts_implementation). The experts run the class's own forward, the "eager" experts
implementation; the decorator can swap in the others registered in integrations/moe.py
(batched_mm, grouped_mm and kernels), which this module does not follow. Attention, RMSNorm, rotary and the causal mask are
llama.py's: MixtralAttention's eager path is Llama's op for op (the sliding_window argument only
matters to kernels that take it; Mixtral's configs leave it None).

The routing of this version, op for op: reshape to [T, H]; router logits = linear(x, weight) in
the hidden dtype; softmax of logits.float() (fp32); topk; the top values divided in place by
their sum; the weights stay fp32 (the older MixtralSparseMoeBlock cast them back to the hidden
dtype; this one does not). Per expert hit: torch.where over its one-hot row gives (top-k slot,
token) indices; gather the tokens' states by indexing; linear with gate_up_proj[e] (an integer
select: a view of the parameter), chunk into gate and up, silu(gate) * up, linear with
down_proj[e], times the routing weight of those (token, slot) pairs (fp32, so the product is
fp32 when the states are bf16), cast to the hidden dtype and index_add_ into a zeros tensor.

The router logits feed the load-balancing loss only with output_router_logits (config default
False), so training by default computes no auxiliary loss: none here."""
import torch
from torch import nn

from llama import Attention, RMSNorm, RotaryCausalLM


class Router(nn.Module):
    """MixtralTopKRouter: returns (router logits, top-k weights in fp32, top-k expert indices)."""

    def __init__(self, hidden, experts, top_k):
        super().__init__()
        self.top_k = top_k
        self.weight = nn.Parameter(torch.empty(experts, hidden).normal_(std=0.02))

    def forward(self, x):
        x = x.reshape(-1, x.shape[-1])
        logits = nn.functional.linear(x, self.weight)
        probs = nn.functional.softmax(logits.float(), dim=-1)
        top_value, top_index = torch.topk(probs, self.top_k, dim=-1)
        top_value /= top_value.sum(dim=-1, keepdim=True)
        return logits, top_value, top_index


class Experts(nn.Module):
    """MixtralExperts, its eager forward."""

    def __init__(self, hidden, intermediate, experts):
        super().__init__()
        self.experts = experts
        self.gate_up_proj = nn.Parameter(torch.empty(experts, 2 * intermediate, hidden).normal_(std=0.02))
        self.down_proj = nn.Parameter(torch.empty(experts, hidden, intermediate).normal_(std=0.02))

    def forward(self, x, top_index, top_weights):
        final = torch.zeros_like(x)
        with torch.no_grad():
            mask = nn.functional.one_hot(top_index, num_classes=self.experts).permute(2, 1, 0)
            hit = torch.greater(mask.sum(dim=(-1, -2)), 0).nonzero()
        for e in hit:
            e = e[0]
            slot, token = torch.where(mask[e])
            state = x[token]
            gate, up = nn.functional.linear(state, self.gate_up_proj[e]).chunk(2, dim=-1)
            y = nn.functional.linear(nn.functional.silu(gate) * up, self.down_proj[e])
            y = y * top_weights[token, slot, None]
            final.index_add_(0, token, y.to(final.dtype))
        return final


class SparseMoeBlock(nn.Module):
    """MixtralSparseMoeBlock (router_jitter_noise 0: no jitter)."""

    def __init__(self, hidden, intermediate, experts, top_k):
        super().__init__()
        self.gate = Router(hidden, experts, top_k)
        self.experts = Experts(hidden, intermediate, experts)

    def forward(self, x):
        b, s, h = x.shape
        x = x.view(-1, h)
        _, weights, index = self.gate(x)
        return self.experts(x, index, weights).reshape(b, s, h)


class DecoderLayer(nn.Module):
    def __init__(self, hidden, heads, kv_heads, head_dim, intermediate, experts, top_k):
        super().__init__()
        self.input_layernorm = RMSNorm(hidden)
        self.self_attn = Attention(hidden, heads, kv_heads, head_dim)
        self.post_attention_layernorm = RMSNorm(hidden)
        self.mlp = SparseMoeBlock(hidden, intermediate, experts, top_k)

    def forward(self, x, cos, sin, mask):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, mask)
        return x + self.mlp(self.post_attention_layernorm(x))


class CausalLM(RotaryCausalLM):
    """MixtralForCausalLM (untied lm_head, as Mixtral's configs): RotaryCausalLM over Mixtral's
    decoder layers."""

    def __init__(self, vocab, hidden, layers, heads, kv_heads, intermediate, experts, top_k):
        d = hidden // heads
        super().__init__(vocab, hidden,
                         [DecoderLayer(hidden, heads, kv_heads, d, intermediate, experts, top_k) for _ in range(layers)], d)
