"""An eager GPT-2 written to follow transformers' models/gpt2/modeling_gpt2.py (read at a late-2025
main: GPT2Attention with the module-level eager_attention_forward, GPT2MLP, GPT2Block, GPT2Model,
GPT2LMHeadModel) and activations.py's NewGELUActivation ("gelu_new"), op for op, so that what
autograd saves is what transformers would save on the same device. Its own code, not a copy.

What the op sequence has that Llama's does not: learned position embeddings added to the token
embeddings; LayerNorm with a bias (nn.functional.layer_norm); Conv1D projections (an addmm of
the flattened input with a [in, out] weight, then a view) with c_attn fused for q, k and v and
split into views; the scale a Python float multiplied after the first matmul; the causal mask
additive (masking_utils' eager mask: 0 or the dtype's min); a softmax without an fp32 upcast;
dropout in four places (attention weights, after attn.c_proj, after mlp.c_proj, after the
embeddings), all with the same probability here (config attn_pdrop = resid_pdrop = embd_pdrop =
0.1 by default); gelu_new written out as Python arithmetic (tanh formula); lm_head tied to wte."""
import math

import torch
from torch import nn

from llama import call_layer, causal_mask


class Conv1D(nn.Module):
    """pytorch_utils.Conv1D: weight [in, out]; forward flattens the leading dims, addmm with the
    bias, and views the result back."""

    def __init__(self, out_features, in_features):
        super().__init__()
        self.nf = out_features
        self.weight = nn.Parameter(torch.empty(in_features, out_features).normal_(std=0.02))
        self.bias = nn.Parameter(torch.zeros(out_features))

    def forward(self, x):
        shape = x.size()[:-1] + (self.nf,)
        return torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight).view(shape)


def new_gelu(x):
    """NewGELUActivation.forward, the tanh approximation as plain tensor arithmetic (each Python
    float factor a separate multiply)."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class Attention(nn.Module):
    def __init__(self, hidden, heads, dropout=0.1):
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.split = hidden
        self.scaling = self.head_dim ** -0.5  # scale_attn_weights=True, no per-layer scaling
        self.c_attn = Conv1D(3 * hidden, hidden)
        self.c_proj = Conv1D(hidden, hidden)
        self.attn_dropout = nn.Dropout(dropout)
        self.resid_dropout = nn.Dropout(dropout)

    def forward(self, x, mask):
        q, k, v = self.c_attn(x).split(self.split, dim=2)
        shape = (*q.shape[:-1], -1, self.head_dim)
        k = k.view(shape).transpose(1, 2)
        v = v.view(shape).transpose(1, 2)
        q = q.view(shape).transpose(1, 2)
        # eager_attention_forward
        w = torch.matmul(q, k.transpose(-1, -2)) * self.scaling
        w = w + mask
        w = nn.functional.softmax(w, dim=-1)
        w = w.type(v.dtype)
        w = nn.functional.dropout(w, p=self.attn_dropout.p if self.training else 0.0, training=self.training)
        out = torch.matmul(w, v).transpose(1, 2)
        # back in GPT2Attention.forward
        out = out.reshape(*out.shape[:-2], -1).contiguous()
        return self.resid_dropout(self.c_proj(out))


class MLP(nn.Module):
    def __init__(self, hidden, inner, dropout=0.1):
        super().__init__()
        self.c_fc = Conv1D(inner, hidden)
        self.c_proj = Conv1D(hidden, inner)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(new_gelu(self.c_fc(x))))


class Block(nn.Module):
    """GPT2Block without cross-attention: pre-norm residual blocks, n_inner = 4 * hidden."""

    def __init__(self, hidden, heads, dropout=0.1, eps=1e-5):
        super().__init__()
        self.ln_1 = nn.LayerNorm(hidden, eps=eps)
        self.attn = Attention(hidden, heads, dropout)
        self.ln_2 = nn.LayerNorm(hidden, eps=eps)
        self.mlp = MLP(hidden, 4 * hidden, dropout)

    def forward(self, x, mask):
        x = self.attn(self.ln_1(x), mask) + x
        return x + self.mlp(self.ln_2(x))


class CausalLM(nn.Module):
    """GPT2LMHeadModel: wte + wpe, embedding dropout, the blocks, ln_f, lm_head tied to wte
    (always, as GPT-2 ties). `checkpoint` runs each block under torch.utils.checkpoint with
    use_reentrant=True (transformers' gradient_checkpointing_enable() default). Returns the logits
    of every position."""

    def __init__(self, vocab, hidden, layers, heads, positions=1024, dropout=0.1):
        super().__init__()
        self.wte = nn.Embedding(vocab, hidden)
        self.wpe = nn.Embedding(positions, hidden)
        self.drop = nn.Dropout(dropout)
        self.h = nn.ModuleList(Block(hidden, heads, dropout) for _ in range(layers))
        self.ln_f = nn.LayerNorm(hidden, eps=1e-5)
        self.lm_head = nn.Linear(hidden, vocab, bias=False)
        self.lm_head.weight = self.wte.weight
        self.checkpoint = False

    def forward(self, ids):
        x = self.wte(ids)
        positions = torch.arange(ids.shape[1]).unsqueeze(0)
        x = self.drop(x + self.wpe(positions))
        mask = causal_mask(ids.shape[1], x.dtype, ids.shape[0])
        for block in self.h:
            x = call_layer(block, self.checkpoint, x, mask)
        return self.lm_head(self.ln_f(x))
