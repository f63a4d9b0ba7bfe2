/* Activation memory of training from the tensors each op saves for its backward pass.
 * Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models",
 * §4.1 lists them for a GPT layer (Table 2 sums them: sbh(34 + 5as/h) with 16-bit activations
 * and 1-byte dropout masks); this file keeps each one separate so GQA (smaller K and V), gated
 * MLPs, fused attention, MLA, MoE, fp32 norms and each recomputation mode change only the tensors
 * they change. The model-level part adds the input ids, the head and the loss, and composes the
 * layers under recomputation into what is held when the last forward ends and what backward
 * rebuilds. */
#include <string.h>

#include "views/activations.h"
#include "job/job.h"
#include "inventory/towers.h"

typedef struct acc {
    uint64_t total;
    int overflow;
} acc;

/* Adds n elements of `bytes` each, split over the t tensor-parallel ranks when `split`. */
static void keep(acc *a, const llmmem__act_layer *l, uint64_t elements, unsigned bytes, int split)
{
    uint64_t b;
    if (!llmmem__mul(&b, elements, bytes)) {
        a->overflow = 1;
        return;
    }
    if (split || l->sequence_parallel)
        b = llmmem__ceil_div(b, l->t);
    if (!llmmem__add(&a->total, a->total, b))
        a->overflow = 1;
}

/* n1 x n2 x n3 x n4 elements, checked. */
static uint64_t elems(acc *a, uint64_t n1, uint64_t n2, uint64_t n3, uint64_t n4)
{
    uint64_t x;
    if (!llmmem__mul(&x, n1, n2) || !llmmem__mul(&x, x, n3) || !llmmem__mul(&x, x, n4)) {
        a->overflow = 1;
        return 0;
    }
    return x;
}

/* The input of the linears that read one tensor of n elements (`readers`: their lora_targets bits),
 * kept for their weight gradients. Under a frozen base (PEFT tuners/lora/layer.py Linear.forward)
 * only the adapters' lora_A keeps it: each adapter its own copy when its dtype differs from the
 * activations' (tuners_utils.py _cast_input_dtype), else the tensor once. */
static void linear_input(acc *a, const llmmem__act_layer *l, uint64_t n, unsigned readers, int split)
{
    if (!l->frozen) {
        keep(a, l, n, l->bytes, split);
        return;
    }
    unsigned adapted = 0;
    for (unsigned bits = l->lora & readers; bits; bits &= bits - 1)
        adapted++;
    if (adapted && l->adapter_bytes == l->bytes)
        keep(a, l, n, l->bytes, split);
    else
        for (unsigned i = 0; i < adapted; i++)
            keep(a, l, n, l->adapter_bytes, split);
}

/* The attention core over `heads` heads of tokens x heads x qk (Q, K) and v (V, output) widths:
 * what attention itself saves. kv_heads < heads is GQA. `after_softmax` gathers what the ops after
 * the softmax save (freed before the softmax's backward runs). */
static void attention_core(acc *a, acc *after_softmax, const llmmem__act_layer *l, uint64_t heads, uint64_t kv_heads,
                           uint64_t qk, uint64_t v)
{
    const unsigned e = l->bytes;
    const int eager = l->attn == LLMMEM_ATTN_EAGER;
    const int fused = l->attn == LLMMEM_ATTN_SDPA || l->attn == LLMMEM_ATTN_FLASH_ATTENTION_2 ||
                      l->attn == LLMMEM_ATTN_FUSED;
    /* transformers eager_attention_forward multiplies by repeat_kv's copies of K and V, with every
     * query head (the model's K and V when there is no grouping) */
    const uint64_t kv_saved = eager ? heads : kv_heads;
    /* Q and K for QK^T, V for the product with the scores; GQA keeps g heads of K and V */
    keep(a, l, elems(a, l->s, l->b, heads, qk), e, 1);
    keep(a, l, elems(a, l->s, l->b, kv_saved, qk), e, 1);
    keep(after_softmax, l, elems(a, l->s, l->b, kv_saved, v), e, 1);
    if (fused) {
        /* FlashAttention (Dao et al. 2022), SDPA's flash backend, Transformer Engine: no s x s
         * tensor, only the fp32 log-sum-exp per row */
        uint64_t rows = l->s;
        if (l->cuda_sdpa && l->masked) {
            /* a mask rules flash out: the memory-efficient backend, whose logsumexp rows are padded
             * to 32 (aten/src/ATen/native/transformers/cuda/attention.cu _efficient_attention_forward,
             * kAlignLSE) and which saves the mask as attention.cpp hands it over: the bool mask made
             * a float one in q's dtype (convert_boolean_attn_mask), its last dimension padded to 16
             * (preprocess_mask), one per layer */
            rows = llmmem__ceil_div(l->s, 32) * 32;
            keep(a, l, elems(a, l->b, l->s, llmmem__ceil_div(l->s, 16) * 16, 1), e, 0);
        }
        keep(a, l, elems(a, heads, rows, l->b, 1), 4, 1);
        /* _scaled_dot_product_flash_attention / _efficient_attention: the philox seed and offset,
         * an int64 each, kept for backward */
        if (l->cuda_sdpa)
            keep(a, l, 2, 8, 0);
    } else if (l->recompute != LLMMEM_RECOMPUTE_SELECTIVE) {
        const uint64_t scores = elems(a, heads, l->s, l->s, l->b);
        const unsigned mask = l->mask_bytes ? l->mask_bytes : 1u;
        if (l->softcap) {
            /* models/gemma2/modeling_gemma2.py eager_attention_forward: scores / softcap, tanh,
             * * softcap: tanh saves its output, each Python float factor a 0-dim float64 */
            keep(a, l, scores, e, 1);
            keep(a, l, 2, 8, 0);
        }
        if (eager) {
            /* softmax(dtype=torch.float32) saves its fp32 output; .to(q.dtype) makes the copy the
             * product saves (none in fp32); with dropout that copy goes to dropout, which saves its
             * mask, and the product saves dropout's output instead. GPT-2's eager_attention_forward
             * (models/gpt2/modeling_gpt2.py) softmaxes in the scores' dtype: no copy */
            const unsigned sm = l->softmax_in_dtype ? e : 4u;
            keep(a, l, scores, sm, 1);
            if (l->dropout) {
                keep(after_softmax, l, scores, mask, 1);
                keep(after_softmax, l, scores, e, 1);
            } else if (e != sm) {
                keep(after_softmax, l, scores, e, 1);
            }
        } else {
            /* Megatron's core attention (Korthikanti §4.1): softmax output 2as^2b; with dropout its
             * mask (1 byte an element) and its output 2as^2b more */
            keep(a, l, scores, e, 1);
            if (l->dropout) {
                keep(after_softmax, l, scores, mask, 1);
                keep(after_softmax, l, scores, e, 1);
            }
        }
    }
    /* the output projection's input (heads x v wide); a fused kernel saves it as its own output
     * for its backward (flash_attn's and SDPA's backward read out), whatever o_proj keeps: under a
     * frozen base the adapters' copies in their dtype beside it */
    const uint64_t out = elems(a, l->s, l->b, heads, v);
    if (fused && l->frozen) {
        keep(after_softmax, l, out, e, 1);
        if (l->adapter_bytes != e)
            linear_input(after_softmax, l, out, LLMMEM_LORA_TARGET_O, 1);
    } else {
        linear_input(after_softmax, l, out, LLMMEM_LORA_TARGET_O, 1);
    }
}

/* A norm over `rows` rows of `width`: what it saves for its backward, by implementation. */
static void norm_saves(acc *a, const llmmem__act_layer *l, uint64_t rows, uint64_t width, int split)
{
    const unsigned nb = l->norm_bytes ? l->norm_bytes : l->bytes;
    const uint64_t n = elems(a, rows, width, 1, 1);
    keep(a, l, n, nb, split); /* its input, in fp32 when it upcasts */
    switch (l->norm_impl) {
    case LLMMEM_NORM_IMPL_EAGER:
        if (l->layernorm) {
            /* nn.LayerNorm is one native op even in eager transformers (native_layer_norm saves
             * its input and the mean and rstd of each row: fp32 on CUDA, the input's dtype on a
             * CPU, framework.c) */
            keep(a, l, rows, l->cpu_norm_stats ? 2u * nb : 8u, split);
            break;
        }
        /* transformers LlamaRMSNorm op by op: pow saves the upcast input (above); torch 1.13's mean
         * saves its input too (derivatives.yaml, 2.x keeps sizes); rsqrt saves its output, one
         * value a row; the weight's mul saves the normalized value cast back to the activation
         * format */
        if (l->torch1)
            keep(a, l, n, nb, split);
        keep(a, l, rows, nb, split);
        if (l->norm_scale_fp32) {
            /* models/gemma2/modeling_gemma2.py Gemma2RMSNorm: output * (1.0 + weight.float()) before
             * type_as: the mul saves the upcast normalized value (for a trained weight) and the fresh
             * (1 + weight) vector */
            if (!l->frozen)
                keep(a, l, n, nb, split);
            keep(a, l, width, nb, split);
        } else if (!l->frozen) { /* a frozen weight's mul saves the weight alone; under autocast
                                   * x.to(input_dtype) stays fp32, the residual stream's
                                   * (modeling_llama.py LlamaRMSNorm) */
            keep(a, l, n, l->stream ? l->stream : l->bytes, split);
        }
        break;
    case LLMMEM_NORM_IMPL_FUSED:
        /* a fused kernel (apex, Transformer Engine, Liger): rstd per row, and LayerNorm's mean */
        keep(a, l, rows, l->layernorm ? 8u : 4u, split);
        break;
    default: /* Korthikanti et al.: the input alone */
        break;
    }
}

/* An MLP of width f over `tokens` token copies: its input is counted by the caller. */
static void mlp_core(acc *a, const llmmem__act_layer *l, uint64_t tokens, uint64_t f)
{
    const uint64_t tf = elems(a, tokens, f, 1, 1);
    if (l->gated) {
        /* gate and up outputs (the activation's and the product's inputs) and the down projection's
         * input; unfused (transformers act_fn(gate) * up) also the activation's output, which the
         * product saves (Megatron-LM fused bias_swiglu recomputes it) */
        keep(a, l, tf, l->bytes, 1);
        keep(a, l, tf, l->bytes, 1);
        linear_input(a, l, tf, LLMMEM_LORA_TARGET_DOWN, 1);
        if (!l->fused_swiglu)
            keep(a, l, tf, l->bytes, 1);
    } else {
        /* GeLU's input and output (the second linear's input): 8sbh each when f = 4h */
        keep(a, l, tf, l->bytes, 1);
        linear_input(a, l, tf, LLMMEM_LORA_TARGET_DOWN, 1);
        if (l->gelu_tanh_ops) {
            /* transformers activations.py NewGELUActivation, 0.5 * x * (1.0 + tanh(sqrt(2 / pi) *
             * (x + 0.044715 * pow(x, 3)))): pow saves x (above), tanh its output, the last mul
             * both 0.5 * x and 1 + tanh, three Python float factors a 0-dim float64 each */
            keep(a, l, tf, l->bytes, 1);
            keep(a, l, tf, l->bytes, 1);
            keep(a, l, tf, l->bytes, 1);
            keep(a, l, 3, 8, 0);
        }
    }
}

/* A MoE block after its input: router probabilities, tokens dispatched to top_k experts, the
 * experts' intermediates, their outputs for the weighted combine, and shared experts.
 * transformers MixtralSparseMoeBlock / Qwen2MoeSparseMoeBlock (softmax in fp32; each expert's
 * first linear saves its gathered tokens; the combine saves expert outputs and routing weights),
 * Megatron-LM core/transformer/moe (router in fp32, permuted tokens into GroupedMLP), dropless. */
static void moe_block(acc *a, const llmmem__act_layer *l, uint64_t sb)
{
    keep(a, l, elems(a, sb, l->experts, 1, 1), 4, 0);  /* router softmax, fp32 */
    keep(a, l, elems(a, sb, l->top_k, 1, 1), 4, 0);    /* chosen routing weights, fp32 */
    const uint64_t routed = elems(a, sb, l->top_k, 1, 1), routed_h = elems(a, routed, l->h, 1, 1);
    llmmem__act_layer dispatched = *l; /* routed experts take adapters only with the experts bit */
    if (!(l->lora & LLMMEM_LORA_TARGET_EXPERTS))
        dispatched.lora = 0;
    linear_input(a, &dispatched, routed_h, LLMMEM_LORA_TARGET_GATE | LLMMEM_LORA_TARGET_UP, 0); /* dispatched tokens */
    llmmem__act_layer expert = dispatched; /* expert intermediates split over expert_tensor_parallel */
    expert.t = l->et ? l->et : l->t;
    mlp_core(a, &expert, routed, l->fe);
    keep(a, l, routed_h, l->bytes, 0); /* expert outputs before the combine */
    if (l->eager_experts) {
        /* transformers modeling_mixtral.py MixtralExperts.forward (DeepseekV3NaiveMoe's alike) and
         * torch derivatives.yaml, per assignment: torch.where's (slot, token) int64 pair, the
         * gathered fp32 routing weight the product saves, index_add_'s source (its formula names
         * it); per token: topk's int64 indices and the normalization's divisor (top_value /= sum;
         * its clone is the routing weights above) */
        keep(a, l, routed, 16 + 4, 0);
        keep(a, l, routed_h, l->bytes, 0);
        keep(a, l, routed, 8, 0);
        keep(a, l, sb, 4, 0);
        if (l->router_fp32 && l->bytes != 4) {
            /* modeling_deepseek_v3.py DeepseekV3TopkRouter: linear(hidden.type(float32),
             * weight.type(float32)) saves both fp32 copies */
            keep(a, l, elems(a, sb, l->h, 1, 1), 4, 0);
            keep(a, l, elems(a, l->experts, l->h, 1, 1), 4, 0);
        }
    }
    if (l->fs)
        mlp_core(a, l, sb, l->fs);
    if (l->fs && l->shared_gate) {
        /* F.sigmoid(shared_expert_gate(x)) * shared_expert_output: sigmoid keeps its 1-wide output,
         * the mul it and the shared expert's output */
        keep(a, l, sb, l->bytes, 0);
        keep(a, l, elems(a, sb, l->h, 1, 1), l->bytes, 0);
    }
}

/* torch.autocast over fp32 weights (torch/csrc/autograd/autocast_mode.cpp, 1.13 and 2.x): cached_cast
 * casts each fp32 input of a linear afresh, so every one of the `readers` linears that read the fp32
 * norm output saves its own 16-bit copy (the caller counted the first); a weight, a leaf that requires
 * grad, is cast once per autocast region and cached, and mm saves the copy until backward. */
static void autocast_casts(acc *a, const llmmem__act_layer *l, uint64_t input, unsigned readers, uint64_t weights)
{
    if (!l->autocast)
        return;
    keep(a, l, elems(a, input, readers - 1, 1, 1), l->bytes, 0);
    keep(a, l, weights, l->bytes, 1);
}

/* What one layer saves, in three parts: the attention block up to its softmax, what the attention
 * ops after the softmax save, and the feed-forward block (from the second norm on). */
typedef struct layer_parts {
    acc attention, after_softmax, ffn;
} layer_parts;

/* A Mamba-2 block training on the fused path: transformers modeling_mamba2.py Mamba2Block (its norm)
 * and Mamba2Mixer.cuda_kernels_forward under training, which runs in_proj, then
 * mamba_split_conv1d_scan_combined (mamba_ssm ops/triton/ssd_combined.py MambaSplitConv1dScanCombinedFn:
 * conv1d, the chunked scan, the gated RMSNorm and out_proj in one autograd function). */
static void mamba2_saves(acc *a, const llmmem__act_layer *l, uint64_t sb, uint64_t sbh)
{
    const unsigned e = l->bytes;
    norm_saves(a, l, sb, l->h, 0);              /* Mamba2RMSNorm, as the strategy's norms run */
    linear_input(a, l, sbh, 0, 0);              /* in_proj's input */
    keep(a, l, l->ssm_heads, 4, 0);             /* A = -exp(A_log.float()): exp saves its fp32 output */
    /* MambaSplitConv1dScanCombinedFn.forward ctx.save_for_backward: zxbcdt (in_proj's output), out_x
     * (the scan's output before the norm, batch x seqlen x heads x headdim in the input's dtype)
     * and the gated norm's fp32 rstd, one per row and group (layernorm_gated.py _layer_norm_fwd);
     * conv1d, A, D, dt_bias and the weights are parameters, the rest is recomputed in backward */
    keep(a, l, elems(a, sb, l->ssm_proj, 1, 1), e, 1);
    keep(a, l, elems(a, sb, l->ssm_inner, 1, 1), e, 1);
    keep(a, l, elems(a, sb, l->ssm_groups, 1, 1), 4, 1);
}

/* A Gated DeltaNet mixer after its input's norm and in_proj_qkvz / in_proj_ba's input, training on
 * the fast path: transformers modeling_qwen3_next.py Qwen3NextGatedDeltaNet.forward with
 * causal_conv1d_fn and fla's chunk_gated_delta_rule and FusedRMSNormGated, over sb tokens. */
static void gdn_core(acc *a, const llmmem__act_layer *l, uint64_t sb)
{
    const unsigned e = l->bytes;
    const uint64_t key_dim = l->gdn_k * l->gdn_dk, value_dim = l->gdn_v * l->gdn_dv;
    const uint64_t heads = elems(a, sb, l->gdn_v, 1, 1);
    /* causal_conv1d_interface.py CausalConv1dFn: the conv's input, the cat of q, k, v (the q, k, v
     * reshapes of in_proj_qkvz's views are copies nobody keeps) */
    keep(a, l, elems(a, sb, 2 * key_dim + value_dim, 1, 1), e, 1);
    keep(a, l, heads, e, 1);            /* beta = b.sigmoid(): its output (fla keeps the same tensor) */
    keep(a, l, 2 * l->gdn_v, 4, 1);     /* A_log.float().exp(): exp's output, and its negation the mul keeps */
    keep(a, l, heads, 4, 1);            /* softplus(a.float() + dt_bias): its fp32 input */
    keep(a, l, heads, 4, 1);            /* and its output, which the mul by -exp(A_log) keeps */
    /* fla ops/gated_delta_rule/chunk.py ChunkGatedDeltaRuleFunction.forward ctx.save_for_backward
     * (use_qk_l2norm_in_kernel): q and k l2-normalized over the value heads (transformers
     * repeat_interleaves them) with their fp32 rstd, v (input_guard's contiguous copy), g after
     * chunk_local_cumsum (fp32) and A of the WY form (chunk_fwd.py: B x T x HV x 64, k's dtype) */
    keep(a, l, elems(a, sb, l->gdn_v, l->gdn_dk, 1), e, 1);
    keep(a, l, elems(a, sb, l->gdn_v, l->gdn_dk, 1), e, 1);
    keep(a, l, heads, 4, 1);
    keep(a, l, heads, 4, 1);
    keep(a, l, elems(a, sb, value_dim, 1, 1), e, 1);
    keep(a, l, heads, 4, 1);
    keep(a, l, elems(a, sb, l->gdn_v, 64, 1), e, 1);
    /* fla modules/fused_norm_gate.py LayerNormGatedFunction: its input, the gate z (a copy: its
     * reshape cannot view in_proj_qkvz's output) and the fp32 rstd of each head's row */
    keep(a, l, elems(a, sb, value_dim, 1, 1), e, 1);
    keep(a, l, elems(a, sb, value_dim, 1, 1), e, 1);
    keep(a, l, heads, 4, 1);
    linear_input(a, l, elems(a, sb, value_dim, 1, 1), LLMMEM_LORA_TARGET_O, 1); /* out_proj's input */
}

static void layer_saves(layer_parts *p, const llmmem__act_layer *l)
{
    acc *a = &p->attention;
    const unsigned e = l->bytes;
    const unsigned norms = l->norms ? l->norms : 2;
    const uint64_t sb = elems(a, l->s, l->b, 1, 1), sbh = elems(a, sb, l->h, 1, 1);
    if (l->recompute == LLMMEM_RECOMPUTE_FULL || l->recompute == LLMMEM_RECOMPUTE_OFFLOAD) {
        /* Korthikanti §5 (full recomputation): only the layer's input, 2sbh (autocast: the fp32 stream) */
        keep(a, l, sbh, l->stream ? l->stream : e, 0);
        return;
    }
    if (l->ssm_proj) {
        mamba2_saves(a, l, sb, sbh);
        return;
    }
    if (l->no_attention) { /* NemotronHBlock with an MLP mixer: its norm, the MLP's input and the MLP */
        acc *f = &p->ffn;
        norm_saves(f, l, sb, l->h, 0);
        linear_input(f, l, sbh, LLMMEM_LORA_TARGET_GATE | LLMMEM_LORA_TARGET_UP, 0);
        if (l->experts)
            moe_block(f, l, sb);
        else
            mlp_core(f, l, sb, l->f);
        return;
    }
    /* Attention block (§4.1): the norm's saved tensors and the projections' input, unsplit by TP */
    norm_saves(a, l, sb, l->h, 0);
    linear_input(a, l, sbh, LLMMEM_LORA_TARGET_Q | LLMMEM_LORA_TARGET_K | LLMMEM_LORA_TARGET_V, 0);
    autocast_casts(a, l, sbh, 3, l->attn_weights);
    if (l->gdn_v) {
        gdn_core(a, l, sb);
    } else if (l->kv_rank) {
        /* MLA, DeepSeek-V2 modeling_deepseek.py DeepseekV2Attention (training form: K and V
         * expanded per head): the query latent's norm and up-projection inputs, the key-value
         * down-projection's output and the up-projection's input. The kv norm reads the latent as
         * a view of the output beside the shared rope key: an upcast copies the latent alone
         * (modeling_deepseek_v3.py), else the view keeps the whole output */
        const unsigned nb = l->norm_bytes ? l->norm_bytes : l->bytes;
        if (l->q_rank) {
            norm_saves(a, l, sb, l->q_rank, 0);
            linear_input(a, l, elems(a, sb, l->q_rank, 1, 1), LLMMEM_LORA_TARGET_Q, 0);
        }
        norm_saves(a, l, sb, l->kv_rank, 0);
        if (nb == e || l->norm_impl != LLMMEM_NORM_IMPL_EAGER)
            keep(a, l, elems(a, sb, l->rope, 1, 1), nb, 0);
        linear_input(a, l, elems(a, sb, l->kv_rank, 1, 1), LLMMEM_LORA_TARGET_K | LLMMEM_LORA_TARGET_V, 0);
        attention_core(a, &p->after_softmax, l, l->a, l->a, l->nope + l->rope, l->v_dim);
    } else {
        if (l->qk_norm) { /* Qwen3Attention q_norm / k_norm over each head (their input: a 16-bit output) */
            llmmem__act_layer head = *l;
            head.stream = 0;
            norm_saves(a, &head, elems(a, sb, l->a, 1, 1), l->d, 1);
            norm_saves(a, &head, elems(a, sb, l->g, 1, 1), l->d, 1);
        }
        attention_core(a, &p->after_softmax, l, l->a, l->g, l->d, l->d);
        if (l->attn_gate) {
            /* Qwen3NextAttention: attn_output * torch.sigmoid(gate): sigmoid keeps its output, the
             * mul it and the attention output (o_proj keeps the product, counted above) */
            keep(&p->after_softmax, l, elems(a, l->s, l->b, l->a, l->d), e, 1);
            keep(&p->after_softmax, l, elems(a, l->s, l->b, l->a, l->d), e, 1);
        }
    }
    if (l->no_ffn) /* NemotronHBlock with an attention mixer: no MLP */
        return;
    acc *f = &p->ffn;
    const unsigned mask = l->mask_bytes ? l->mask_bytes : 1u;
    if (l->dropout) /* the hidden dropout's mask after attention */
        keep(f, l, sbh, mask, 0);
    if (norms == 4) /* Gemma 2/3 post-attention norm */
        norm_saves(f, l, sb, l->h, 0);
    /* MLP block: the norm's saved tensors and the MLP's input, unsplit by TP; a single shared
     * norm (Falcon-7B's parallel attention and MLP) feeds both blocks from the tensors above */
    if (norms != 1) {
        norm_saves(f, l, sb, l->h, 0);
        linear_input(f, l, sbh, LLMMEM_LORA_TARGET_GATE | LLMMEM_LORA_TARGET_UP, 0);
    }
    autocast_casts(f, l, sbh, (l->gated ? 2u : 1u) + (norms == 1), l->mlp_weights);
    if (l->experts)
        moe_block(f, l, sb);
    else
        mlp_core(f, l, sb, l->f);
    if (l->dropout)
        keep(f, l, sbh, mask, 0);
    /* PEFT tuners/lora/layer.py Linear.forward, lora_B(lora_A(x)): each lora_B keeps lora_A's
     * r-wide output, in the adapters' dtype; lora_A's input is kept above (linear_input) */
    keep(f, l, elems(f, sb, l->adapter, 1, 1), l->adapter_bytes ? l->adapter_bytes : e, 0);
    if (norms == 4) /* Gemma 2/3 post-feed-forward norm */
        norm_saves(f, l, sb, l->h, 0);
}

/* What a frozen base's first layer does not save when its input needs no grad (the embedding's
 * output without enable_input_require_grads): torch records no op on tensors that need no grad,
 * and an op saves an operand only for another operand's gradient (derivatives.yaml). The input
 * norm runs unrecorded; K and V need grad only when adapted, Q saves for K's and K for Q's, the
 * scores need none unless Q or K does, and the product saves them only for V's. Eager attention of
 * a GQA or MHA layer; MLA and fused attention lose the norm alone. */
static void first_unrecorded(acc *a, const llmmem__act_layer *l)
{
    const unsigned e = l->bytes;
    const uint64_t sb = elems(a, l->s, l->b, 1, 1);
    norm_saves(a, l, sb, l->h, 0);
    if (l->kv_rank || l->attn != LLMMEM_ATTN_EAGER || l->dropout || l->recompute == LLMMEM_RECOMPUTE_SELECTIVE)
        return;
    const int qg = (l->lora & LLMMEM_LORA_TARGET_Q) != 0, kg = (l->lora & LLMMEM_LORA_TARGET_K) != 0;
    const int vg = (l->lora & LLMMEM_LORA_TARGET_V) != 0;
    const uint64_t scores = elems(a, l->a, l->s, l->s, l->b);
    if (!kg)
        keep(a, l, elems(a, l->s, l->b, l->a, l->d), e, 1);
    if (!qg)
        keep(a, l, elems(a, l->s, l->b, l->a, l->d), e, 1); /* repeat_kv's copy of K */
    if (!qg && !kg) {
        keep(a, l, scores, 4, 1);
        keep(a, l, elems(a, l->s, l->b, l->a, l->d), e, 1); /* repeat_kv's copy of V */
    }
    if (!vg && e != 4)
        keep(a, l, scores, e, 1);
}

static llmmem_status layer_overflow(const llmmem__act_layer *l)
{
    return llmmem__fail(LLMMEM_ERR_OVERFLOW, "activation bytes of a layer (s %llu, b %llu, h %llu) exceed 64 bits",
                        (unsigned long long)l->s, (unsigned long long)l->b, (unsigned long long)l->h);
}

llmmem_status llmmem__layer_activation_bytes(uint64_t *bytes_out, const llmmem__act_layer *l)
{
    layer_parts p = {{0, 0}, {0, 0}, {0, 0}};
    layer_saves(&p, l);
    uint64_t total;
    if (p.attention.overflow || p.after_softmax.overflow || p.ffn.overflow ||
        !llmmem__add(&total, p.attention.total, p.after_softmax.total) || !llmmem__add(&total, total, p.ffn.total))
        return layer_overflow(l);
    *bytes_out = total;
    return LLMMEM_OK;
}

llmmem_status llmmem__layer_backward_bytes(uint64_t *bytes_out, const llmmem__act_layer *l)
{
    *bytes_out = 0;
    if (l->attn != LLMMEM_ATTN_EAGER || l->recompute == LLMMEM_RECOMPUTE_SELECTIVE)
        return LLMMEM_OK;
    llmmem__act_layer full = *l;
    full.recompute = LLMMEM_RECOMPUTE_NONE;
    layer_parts p = {{0, 0}, {0, 0}, {0, 0}};
    layer_saves(&p, &full);
    /* The softmax's backward (measured, tests/groundtruth): its fp32 output gradient (cast up from
     * the product's gradient) and its fp32 input gradient, and the residual stream's gradient,
     * while the feed-forward block and the ops after the softmax have freed what they saved */
    acc grads = {0, 0};
    const uint64_t scores = elems(&grads, l->a, l->s, l->s, l->b);
    keep(&grads, l, scores, 4, 1);
    keep(&grads, l, scores, 4, 1);
    keep(&grads, l, elems(&grads, l->s, l->b, l->h, 1), l->stream ? l->stream : l->bytes, 0);
    if (grads.overflow || p.ffn.overflow || p.after_softmax.overflow)
        return layer_overflow(l);
    uint64_t freed;
    if (!llmmem__add(&freed, p.ffn.total, p.after_softmax.total))
        return layer_overflow(l);
    *bytes_out = grads.total > freed ? grads.total - freed : 0;
    return LLMMEM_OK;
}

/* ---- the model ------------------------------------------------------------------------------ */

static unsigned bytes_of_format(llmmem_format f)
{
    return (unsigned)(llmmem__format_element_bits(f) / 8u);
}

/* A layer description from the model's geometry (so head_dim, KV heads and widths are those the
 * parameter count used) and the strategy's settings. */
static void describe_layer(llmmem__act_layer *l, const llmmem__job *j, unsigned bytes, const llmmem__act_stage *st)
{
    const llmmem_model *m = j->m;
    const llmmem__semantics *sem = &j->sem;
    const llmmem__act_settings *a = &j->act;
    const llmmem__geometry *g = &m->geo;
    memset(l, 0, sizeof *l);
    /* context parallelism: each rank holds s / c tokens of every sequence (ring attention passes
     * K and V chunks around without keeping them: Megatron-LM/Transformer Engine cp_comm_type p2p) */
    l->s = j->tokens / st->c;
    l->b = j->sequences;
    l->h = g->hidden;
    l->t = st->t;
    l->et = st->et;
    l->sequence_parallel = st->sequence_parallel;
    l->bytes = bytes;
    l->norms = (unsigned)llmmem__model_value(m, LLMMEM_KEY_NORMS_PER_LAYER);
    l->dropout = a->dropout != 0;
    l->attn = (int)sem->attn;
    l->cuda_sdpa = sem->attn == LLMMEM_ATTN_SDPA && !sem->cpu_kernels && !sem->torch1;
    l->norm_impl = (int)sem->norm;
    l->torch1 = sem->torch1;
    l->layernorm = llmmem__model_value(m, LLMMEM_KEY_NORM_TYPE) == LLMMEM_NORM_LAYERNORM;
    /* an eager RMSNorm upcasts whatever norm_fp32 says: transformers' (modeling_llama.py
     * LlamaRMSNorm.forward, hidden_states.to(torch.float32) before pow, and every family's copy)
     * and torchtune's (modules/rms_norm.py RMSNorm.forward, x.float()); nn.LayerNorm is one op */
    l->norm_bytes = a->norm_fp32 || (sem->norm == LLMMEM_NORM_IMPL_EAGER && !l->layernorm)
                        ? 4u
                        : bytes;
    l->gated = llmmem__model_value(m, LLMMEM_KEY_MLP_GATED) != 0;
    /* on CPU kernels dropout's mask is the input's dtype and layer_norm's statistics too (framework.c) */
    l->mask_bytes = sem->cpu_kernels ? bytes : 1u;
    l->cpu_norm_stats = sem->cpu_kernels;
    /* each family's modeling file: GPT2Config activation_function="gelu_new" and GPT-2's own
     * eager_attention_forward (softmax with no dtype); Gemma, Gemma 2 and Gemma 3 RMSNorm scale by
     * (1 + weight) in fp32; Gemma2Config attn_logit_softcapping=50.0 */
    const int64_t type = llmmem__model_value(m, LLMMEM_KEY_MODEL_TYPE);
    l->gelu_tanh_ops = type == LLMMEM_MODEL_GPT2 && sem->act == LLMMEM_ACT_IMPL_EAGER && !l->gated;
    l->softmax_in_dtype = type == LLMMEM_MODEL_GPT2;
    l->norm_scale_fp32 = type == LLMMEM_MODEL_GEMMA || type == LLMMEM_MODEL_GEMMA2 || type == LLMMEM_MODEL_GEMMA3_TEXT;
    l->softcap = type == LLMMEM_MODEL_GEMMA2;
    l->fused_swiglu = a->fused_swiglu != 0;
    l->qk_norm = llmmem__model_value(m, LLMMEM_KEY_QK_NORM) != 0;
    l->recompute = a->recompute == LLMMEM_RECOMPUTE_SELECTIVE ? LLMMEM_RECOMPUTE_SELECTIVE
                                                                                         : LLMMEM_RECOMPUTE_NONE;
    l->a = g->heads;
    l->kv_rank = g->kv_lora_rank;
    if (l->kv_rank) {
        l->q_rank = g->q_lora_rank;
        l->rope = g->qk_rope_head_dim;
        l->nope = g->qk_nope_head_dim;
        l->v_dim = g->v_head_dim;
    } else {
        l->d = g->head_dim;
        l->g = g->kv_heads;
    }
    l->f = g->dense_layers ? g->ffn : 0; /* a model of MoE layers alone has no dense MLP */
    l->eager_experts = sem->experts == LLMMEM_EXPERTS_EAGER;
    l->router_fp32 = llmmem__model_value(m, LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS) != 0;
    if (a->autocast != LLMMEM_AUTOCAST_OFF) {
        /* autocast (job.c: fp32 weights): the embedding's fp32 output is the stream, norms see fp32 */
        l->autocast = 1;
        l->stream = 4;
        l->norm_bytes = 4;
        /* q_proj, k_proj, v_proj, o_proj; gate, up, down (or fc1, fc2) */
        l->attn_weights = 2 * l->h * l->a * l->d + 2 * l->h * l->g * l->d;
        l->mlp_weights = (l->gated ? 3 : 2) * l->h * l->f;
    }
    int64_t mode = j->price.mode;
    if (mode == LLMMEM_MODE_LORA || mode == LLMMEM_MODE_QLORA) {
        /* PEFT tuners/tuners_utils.py: every parameter outside the adapters stops requiring grad */
        l->frozen = 1;
        l->lora = (unsigned)a->lora_targets;
        l->adapter_bytes = bytes_of_format((llmmem_format)a->adapter);
        /* adapted linears a token passes through, averaged over the decoder layers (experts: the
         * top_k a token is routed to) */
        uint64_t layers = g->layers, passes = 0;
        unsigned targets = (unsigned)a->lora_targets;
        for (unsigned i = 0; i < m->inv.n; i++)
            if (llmmem__lora_target(&m->inv.t[i], targets) && m->inv.t[i].kinds != 0)
                passes += m->inv.t[i].active_count;
        l->adapter = layers ? a->lora_rank * passes / layers : 0;
    }
    if (g->moe_layers) {
        l->fe = g->ffn_expert;
        l->fs = g->ffn_shared;
        l->experts = g->experts;
        l->top_k = g->experts_per_tok;
    }
    if (type == LLMMEM_MODEL_QWEN3_NEXT) {
        /* Qwen3NextRMSNorm: output * (1.0 + weight.float()) in fp32, then type_as */
        l->norm_scale_fp32 = 1;
        l->shared_gate = 1;
    }
    l->attn_gate = llmmem__model_value(m, LLMMEM_KEY_ATTN_OUTPUT_GATE) != 0;
    if (g->linear_layers) {
        l->gdn_k = g->gdn_k_heads;
        l->gdn_v = g->gdn_v_heads;
        l->gdn_dk = g->gdn_k_dim;
        l->gdn_dv = g->gdn_v_dim;
    }
    if (g->ssm_layers) { /* Mamba2Mixer: in_proj to 2 x inner + 2 x groups x state + heads */
        l->ssm_inner = g->mamba_heads * g->mamba_head_dim;
        l->ssm_proj = l->ssm_inner + g->mamba_conv_dim + g->mamba_heads;
        l->ssm_heads = g->mamba_heads;
        l->ssm_groups = g->mamba_groups;
    }
}

/* Saved bytes of layers [first, end): dense and MoE layers by the inventory's layer pattern; a
 * hybrid's kinds each with its own bytes (`full`: without recomputation). */
static int sum_kinds(uint64_t *out, const llmmem_model *m, uint64_t first, uint64_t end, const llmmem__act_kinds *k,
                     int full)
{
    uint64_t on[LLMMEM_LAYER_KINDS_MAX];
    llmmem__kind_counts(on, &m->geo.plan, first, end);
    *out = 0;
    for (unsigned i = 0; i < m->geo.plan.n; i++)
        if (!llmmem__muladd(out, on[i], full ? k->kind_full[i] : k->kind[i]))
            return 0;
    return 1;
}

/* The largest of a hybrid's kinds among layers [first, end): its bytes without recomputation, or
 * with `less` what recomputation rebuilds of it (full less as run). */
static uint64_t largest_kind(const llmmem_model *m, uint64_t first, uint64_t end, const llmmem__act_kinds *k, int less)
{
    uint64_t on[LLMMEM_LAYER_KINDS_MAX], best = 0;
    llmmem__kind_counts(on, &m->geo.plan, first, end);
    for (unsigned i = 0; i < m->geo.plan.n; i++) {
        uint64_t x = less ? k->kind_full[i] - k->kind[i] : k->kind_full[i];
        if (on[i] && x > best)
            best = x;
    }
    return best;
}

/* Whether the layers [first, end) are all of one kind. */
static int one_kind(const llmmem__layer_plan *plan, uint64_t first, uint64_t end)
{
    if (plan->n == 1 || end <= first)
        return 1;
    uint64_t on[LLMMEM_LAYER_KINDS_MAX];
    llmmem__kind_counts(on, plan, first, end);
    for (unsigned k = 0; k < plan->n; k++)
        if (on[k] && on[k] != end - first)
            return 0;
    return 1;
}

static int sum_layers(uint64_t *out, const llmmem_model *m, uint64_t first, uint64_t end, const llmmem__act_kinds *k,
                      int full)
{
    if (k->hybrid)
        return sum_kinds(out, m, first, end, k, full);
    const uint64_t dense_bytes = full ? k->dense_full : k->dense, moe_bytes = full ? k->moe_full : k->moe;
    /* the layers of [first, end) the model has, the MoE ones counted by kind */
    const uint64_t last = end < m->geo.plan.layers ? end : m->geo.plan.layers, span = last > first ? last - first : 0;
    const uint64_t moe = m->geo.moe_layers ? llmmem__layers_in(&m->geo.plan, m->geo.moe, first, end) : 0;
    const uint64_t dense = span - moe;
    *out = 0;
    return llmmem__muladd(out, dense, dense_bytes) && llmmem__muladd(out, moe, moe_bytes);
}

static llmmem_status overflow(void)
{
    return llmmem__fail(LLMMEM_ERR_OVERFLOW, "activation bytes exceed 64 bits");
}

/* The decoder layers under the recomputation mode: held at the end of the forward, rebuilt during
 * backward, offloaded. */
static llmmem_status compose_layers(llmmem__activations *out, const llmmem_model *m, const llmmem__act_kinds *k, int norm_fp32, const llmmem__act_stage *st)
{
    /* layer indices below are relative to the stage's first layer */
    const uint64_t base = st->first, layers = st->end - st->first;
    const int64_t mode = k->act.recompute;
    out->layer_full = k->hybrid ? largest_kind(m, base, base + layers, k, 0)
                      : k->moe_full > k->dense_full && llmmem__layers_in(&m->geo.plan, m->geo.moe, base, base + layers)
                          ? k->moe_full
                          : k->dense_full;
    if (mode == LLMMEM_RECOMPUTE_NONE || mode == LLMMEM_RECOMPUTE_SELECTIVE) {
        if (!sum_layers(&out->held, m, base, base + layers, k, 0))
            return overflow();
        out->first_held = m->geo.moe_layers && llmmem__layers_in(&m->geo.plan, m->geo.moe, base, base + 1) ? k->moe
                                                                                                       : k->dense;
        if (k->hybrid && !sum_kinds(&out->first_held, m, base, base + 1, k, 0))
            return overflow();
        /* selective: backward recomputes one layer's attention core at a time */
        if (mode == LLMMEM_RECOMPUTE_SELECTIVE) {
            out->recompute = k->dense_full - k->dense;
            if (llmmem__layers_in(&m->geo.plan, m->geo.moe, base, base + layers) && k->moe_full - k->moe > out->recompute)
                out->recompute = k->moe_full - k->moe;
            if (k->hybrid)
                out->recompute = largest_kind(m, base, base + layers, k, 1);
        }
        return LLMMEM_OK;
    }
    uint64_t n = k->act.recompute_num_layers;
    const int block = k->act.recompute_method == LLMMEM_RECOMPUTE_BLOCK;
    if (n == 0)
        n = block ? layers : 1;
    if (n > layers)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "recompute_num_layers (%llu) exceeds the %llu layers of %s",
                            (unsigned long long)n, (unsigned long long)layers,
                            layers == m->geo.layers
                                ? "the model (num_hidden_layers)"
                                : "a pipeline stage");
    /* The kept input is the first norm's input unless that norm saved an fp32 copy: recomputing a
     * chunk rebuilds everything else. */
    const uint64_t shared_input = norm_fp32 ? 0 : k->input;
    out->first_held = mode == LLMMEM_RECOMPUTE_OFFLOAD ? 0 : k->input; /* the first chunk's kept input */
    if (block) {
        /* Megatron-LM transformer_block.py _checkpointed_forward, recompute_method "block": the
         * first n layers (of a pipeline stage) are checkpointed one by one, the rest keep all */
        uint64_t rest;
        if (!sum_layers(&rest, m, base + n, base + layers, k, 0) ||
            !llmmem__mul(&out->held, n, k->input) || !llmmem__add(&out->held, out->held, rest))
            return overflow();
        uint64_t moe_in = llmmem__layers_in(&m->geo.plan, m->geo.moe, base, base + n);
        out->recompute = (k->hybrid ? largest_kind(m, base, base + n, k, 0)
                          : moe_in && k->moe_full > k->dense_full ? k->moe_full : k->dense_full) - shared_input;
        if (mode == LLMMEM_RECOMPUTE_OFFLOAD)
            goto offload;
        return LLMMEM_OK;
    }
    /* "uniform": chunks of n layers, each keeps its input; backward rebuilds one chunk at a time.
     * Past the plan's listed layers kinds repeat with its period, so chunk starts repeat modulo it
     * every `cycle` chunks: the chunks that can differ are those starting among the listed layers,
     * one cycle past them, and the last (it may be shorter); the others are skipped, so a model of
     * 2^40 layers costs what one of 4096 does. */
    const llmmem__layer_plan *plan = &m->geo.plan;
    const uint64_t step = n % plan->period, cycle = step ? plan->period / llmmem__gcd(step, plan->period) : 1;
    const uint64_t distinct = llmmem__ceil_div(plan->listed, n) + cycle + 1;
    uint64_t chunks = llmmem__ceil_div(layers, n), largest = 0;
    /* every chunk but a shorter last one is alike when the layers are of one kind or their kinds
     * save as much */
    const int alike = (!k->hybrid && k->moe_full == k->dense_full) || one_kind(plan, base, base + layers);
    for (uint64_t c = 0; c < chunks; c++) {
        if (c == distinct && c + 1 < chunks)
            c = chunks - 1;
        uint64_t bytes;
        if (!sum_layers(&bytes, m, base + c * n, base + c * n + n, k, 1))
            return overflow();
        if (bytes > largest)
            largest = bytes;
        if (alike)
            break;
    }
    if (!llmmem__mul(&out->held, chunks, k->input))
        return overflow();
    out->recompute = largest - shared_input;
    if (mode != LLMMEM_RECOMPUTE_OFFLOAD)
        return LLMMEM_OK;
offload:
    /* DeepSpeed activation checkpointing with cpu_checkpointing (runtime/activation_checkpointing/
     * checkpointing.py): the kept inputs live in host memory; backward copies a chunk's input back
     * before rebuilding it. Layers that keep everything (block method) stay on the device. */
    {
        uint64_t kept_inputs = block ? n : llmmem__ceil_div(layers, n), inputs;
        if (!llmmem__mul(&inputs, kept_inputs, k->input))
            return overflow();
        out->host = inputs;
        out->held -= inputs;
        out->recompute += shared_input;
    }
    return LLMMEM_OK;
}

llmmem_status llmmem__layers_held_of(uint64_t *out, const llmmem_model *m, const llmmem__act_kinds *k,
                                     const llmmem__act_stage *st, uint64_t upto)
{
    /* compose_layers' held bytes, for the stage's layers [first, upto) alone */
    const uint64_t base = st->first, done = (upto < st->end ? upto : st->end) - base;
    const int64_t mode = k->act.recompute;
    *out = 0;
    if (mode == LLMMEM_RECOMPUTE_NONE || mode == LLMMEM_RECOMPUTE_SELECTIVE)
        return sum_layers(out, m, base, base + done, k, 0) ? LLMMEM_OK : overflow();
    uint64_t n = k->act.recompute_num_layers;
    const int block = k->act.recompute_method == LLMMEM_RECOMPUTE_BLOCK;
    const int offload = mode == LLMMEM_RECOMPUTE_OFFLOAD; /* the kept inputs are on the host */
    if (n == 0)
        n = block ? st->end - base : 1;
    if (!block)
        return offload || llmmem__mul(out, llmmem__ceil_div(done, n), k->input) ? LLMMEM_OK : overflow();
    uint64_t inputs = offload ? 0 : done < n ? done : n, rest = 0;
    if (done > n && !sum_layers(&rest, m, base + n, base + done, k, 0))
        return overflow();
    if (!llmmem__muladd(&rest, inputs, k->input))
        return overflow();
    *out = rest;
    return LLMMEM_OK;
}

/* Liger-Kernel ops/fused_linear_cross_entropy.py: chunk_size = next_power_of_2(ceil(BT / inc_factor))
 * with inc_factor = ceil(V / H), so a chunk's logits are about the size of the hidden states. */
static uint64_t liger_chunk(uint64_t tokens, uint64_t vocab, uint64_t h)
{
    uint64_t want = llmmem__ceil_div(tokens, llmmem__ceil_div(vocab, h)), p = 1;
    while (p < want)
        p <<= 1;
    return p;
}

/* The loss: what the LM head's output and the cross-entropy save, and their backward peak, on one
 * tensor-parallel rank (Megatron-LM's vocabulary-parallel head: V / t logits per token). */
static llmmem_status loss_bytes(llmmem__activations *out, const llmmem_model *m, const llmmem__act_settings *act,
                                uint64_t tokens, unsigned e, int keep_logits, const llmmem__act_stage *st)
{
    const uint64_t vocab = m->geo.vocab, h = m->geo.hidden;
    const uint64_t shard = llmmem__ceil_div(vocab, st->t);
    const unsigned l = act->logits_fp32 ? 4u : e; /* the loss's format */
    uint64_t tv;
    if (!llmmem__mul(&tv, tokens, shard))
        return overflow();
    switch (act->cross_entropy) {
    case LLMMEM_CROSS_ENTROPY_FUSED:
        /* Megatron-LM tensor_parallel/cross_entropy.py VocabParallelCrossEntropy: the logits (upcast
         * when logits_fp32) become the softmax in place and are saved; backward writes the gradient
         * over them, then casts it to the activation format */
        if (!llmmem__mul(&out->logits_held, tv, l) || !llmmem__mul(&out->logits_transient, tv, l == e ? 0 : e))
            return overflow();
        return LLMMEM_OK;
    case LLMMEM_CROSS_ENTROPY_CHUNKED: {
        /* Liger fused linear cross-entropy: the forward computes the loss and the hidden states'
         * gradient chunk by chunk (kept until backward); one chunk's logits exist at a time */
        uint64_t chunk = act->loss_chunk_tokens;
        if (chunk == 0)
            chunk = liger_chunk(tokens, vocab, h);
        if (chunk > tokens)
            chunk = tokens;
        if (!llmmem__mul(&out->logits_held, tokens, h) || !llmmem__mul(&out->logits_held, out->logits_held, e) ||
            !llmmem__mul(&out->logits_transient, chunk, shard) ||
            !llmmem__mul(&out->logits_transient, out->logits_transient, l))
            return overflow();
        return LLMMEM_OK;
    }
    default: {
        /* transformers LlamaForCausalLM + loss_utils.ForCausalLMLoss: the logits, logits.float()
         * when logits_fp32 (a copy the loss drops once log_softmax has run), F.cross_entropy's
         * log_softmax saves its output and nll_loss its int64 targets. The logits themselves stay
         * only while the model's output is referenced (keep_logits: Megatron's accounting; the
         * Trainer's compute_loss returns the loss alone). Backward: the log-probabilities' gradient
         * and the logits' gradient, both in the loss's format, beside the saved ones */
        const unsigned copy = l == e ? 0u : l;
        uint64_t targets;
        if (!llmmem__mul(&targets, tokens, keep_logits ? 0u : 8u) ||
            !llmmem__mul(&out->logits_held, tv, keep_logits ? e + l : l) ||
            !llmmem__add(&out->logits_held, out->logits_held, targets) ||
            !llmmem__mul(&out->logits_transient, tv, 2u * l))
            return overflow();
        /* the forward's highest point, log_softmax writing its output beside the logits and their
         * copy: what it holds besides the saved tensors above */
        if (!llmmem__mul(&out->loss_forward, tv, keep_logits ? copy : e + copy))
            return overflow();
        return LLMMEM_OK;
    }
    }
}

/* x * num / den, rounded up; 0 on overflow. */
static int scale(uint64_t *x, uint64_t num, uint64_t den)
{
    uint64_t v;
    if (!llmmem__mul(&v, *x, num))
        return 0;
    *x = llmmem__ceil_div(v, den);
    return 1;
}

/* A hybrid's layer kinds (k->layer described, with the Mamba-2 fields): Mamba-2 blocks, attention
 * blocks and MLP blocks each save their own tensors (transformers modeling_nemotron_h.py
 * NemotronHBlock: a norm and one mixer). A kind that joins a Mamba-2 mixer with a feed-forward, or
 * another token mixer, is refused. */
static llmmem_status hybrid_kinds(llmmem__act_kinds *k, const llmmem_model *m)
{
    const llmmem__layer_plan *plan = &m->geo.plan;
    llmmem_status st;
    if (k->layer.dropout)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "dropout in a hybrid of Mamba-2, attention and MLP blocks is not "
                            "modelled");
    k->backward = 0;
    for (unsigned i = 0; i < plan->n; i++) {
        llmmem__act_layer x = k->layer;
        const unsigned mixer = plan->kind[i].mixer, ffn = plan->kind[i].ffn;
        if (mixer == LLMMEM_MIXER_SSM ? ffn != LLMMEM_FFN_NONE
                                      : mixer != LLMMEM_MIXER_FULL && mixer != LLMMEM_MIXER_NONE &&
                                            mixer != LLMMEM_MIXER_LINEAR && mixer != LLMMEM_MIXER_SLIDING &&
                                            mixer != LLMMEM_MIXER_CHUNKED)
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "training activations of a hybrid layer that is not a "
                                "Mamba-2, an attention, a Gated DeltaNet or an MLP block are not modelled");
        if (mixer != LLMMEM_MIXER_LINEAR)
            x.gdn_v = 0;
        /* masking_utils.py sdpa_mask: a sliding (or chunked) layer's mask can be skipped only when
         * its window covers every key */
        const int windowed = mixer == LLMMEM_MIXER_SLIDING || mixer == LLMMEM_MIXER_CHUNKED;
        x.masked = windowed && x.cuda_sdpa && m->geo.window < x.s;
        if (mixer != LLMMEM_MIXER_SSM) {
            x.ssm_proj = 0;
            x.no_attention = mixer == LLMMEM_MIXER_NONE;
            x.no_ffn = ffn == LLMMEM_FFN_NONE;
            if (ffn != LLMMEM_FFN_MOE)
                x.experts = 0;
        }
        if ((st = llmmem__layer_activation_bytes(&k->kind[i], &x)) != LLMMEM_OK)
            return st;
        x.recompute = LLMMEM_RECOMPUTE_NONE;
        if ((st = llmmem__layer_activation_bytes(&k->kind_full[i], &x)) != LLMMEM_OK)
            return st;
        uint64_t back = 0;
        if ((mixer == LLMMEM_MIXER_FULL || windowed) && (st = llmmem__layer_backward_bytes(&back, &x)) != LLMMEM_OK)
            return st;
        if (back > k->backward)
            k->backward = back;
    }
    return LLMMEM_OK;
}

llmmem_status llmmem__act_kinds_make(llmmem__act_kinds *k, const llmmem__job *j, const llmmem__act_stage *stage)
{
    const llmmem_model *m = j->m;
    if (llmmem__model_value(m, LLMMEM_KEY_NUM_PARAMETERS) != 0)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "training activations need the model's shapes: a model given by num_parameters "
                            "alone has no layers to save tensors of");
    if (m->geo.kv_token_global.heads || m->geo.global_heads || m->geo.kv_shared_layers || m->geo.per_layer_inputs ||
        m->geo.compressed_layers || m->geo.hc_mult || m->geo.blocks)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "training activations of a model with full and sliding layers of different widths, "
                            "KV-shared layers, per-layer input embeddings, compressed attention, hyper-connections or "
                            "per-layer blocks (%s) are not modelled",
                            llmmem_choice_name(LLMMEM_KEY_MODEL_TYPE, llmmem__model_value(m, LLMMEM_KEY_MODEL_TYPE)));
    if (llmmem__model_value(m, LLMMEM_KEY_HEAD_WISE_ATTN_GATE)) /* attention saves no gate (vLLM step3p5.py g_proj) */
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "training activations of a head-wise attention gate (%s's g_proj, "
                            "head_wise_attn_gate) are not modelled",
                            llmmem_choice_name(LLMMEM_KEY_MODEL_TYPE, llmmem__model_value(m, LLMMEM_KEY_MODEL_TYPE)));
    if (llmmem__model_value(m, LLMMEM_KEY_MLP_ACT_PARAMS)) /* mlp_core saves a GELU's or SiLU's tensors */
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "training activations of an MLP with a learned activation (%s's "
                            "xIELU, mlp_act_params) are not modelled",
                            llmmem_choice_name(LLMMEM_KEY_MODEL_TYPE, llmmem__model_value(m, LLMMEM_KEY_MODEL_TYPE)));
    if (llmmem__model_value(m, LLMMEM_KEY_ATTN_RES_BLOCK_SIZE)) /* no rule saves a layer's bank mixing */
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "training activations of AttnRes residual banks (%s, attn_res_block_size %lld: every layer "
                            "mixes its block bank through self_attention_res_proj and mlp_res_proj) are not modelled",
                            llmmem_choice_name(LLMMEM_KEY_MODEL_TYPE, llmmem__model_value(m, LLMMEM_KEY_MODEL_TYPE)),
                            (long long)llmmem__model_value(m, LLMMEM_KEY_ATTN_RES_BLOCK_SIZE));
    if (m->geo.moe_latent) /* moe_block saves the experts' inputs at hidden_size */
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "training activations of a latent MoE (%s, moe_latent_size %llu: experts between "
                            "fc1_latent_proj and fc2_latent_proj) are not modelled",
                            llmmem_choice_name(LLMMEM_KEY_MODEL_TYPE, llmmem__model_value(m, LLMMEM_KEY_MODEL_TYPE)),
                            (unsigned long long)m->geo.moe_latent);
    if (m->geo.index_layers) /* Megatron-Bridge keeps the indexer frozen and runs full attention in its place */
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "training activations of a lightning indexer on %llu standard-attention layers "
                            "(minimax_m3_vl's index_q_proj and index_k_proj) are not modelled",
                            (unsigned long long)m->geo.index_layers);
    if (m->geo.cross_layers) /* their keys and values come from the image, their scores are text x image */
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "activations of cross-attention layers (%llu, mllama's) are not modelled",
                            (unsigned long long)m->geo.cross_layers);
    /* training a Jamba: JambaMambaMixer's saved tensors (selective_scan_fn's) are not modelled */
    llmmem_status st = llmmem__state_check(m, "training activations", 1);
    if (st != LLMMEM_OK)
        return st;
    if ((st = llmmem__semantics_check(&j->sem)) != LLMMEM_OK)
        return st;
    k->sem = j->sem;
    k->act = j->act;
    k->mode = j->price.mode;
    k->e = bytes_of_format(j->compute);
    llmmem__act_layer l;
    describe_layer(&l, j, k->e, stage);
    /* the first norm saves a copy of the layer's input when it upcasts a 16-bit one (norm_fp32 as
     * set keeps its meaning in fp32); autocast's stream is fp32 already: x.to(torch.float32)
     * returns it, no copy (LlamaRMSNorm) */
    k->norm_fp32 = !l.autocast && l.norm_bytes == 4 && (k->e != 4 || j->act.norm_fp32);
    if (l.autocast && (l.kv_rank || m->geo.moe_layers || l.norms == 4))
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "autocast is modelled (and measured) for dense decoder layers with a pre-norm each "
                            "block: not MLA, MoE, Gemma's four norms");
    if ((l.ssm_proj || l.gdn_v) && (l.frozen || l.autocast))
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "training activations of Mamba-2 and Gated DeltaNet layers are "
                            "modelled for full training without autocast; %s is not",
                            l.frozen ? "a frozen base (lora, qlora)" : "autocast");
    k->layer = l;
    if (l.ssm_proj) /* no softmax: only the saved tensors are counted, as for fused attention */
        k->backward = 0;
    else if ((st = llmmem__layer_backward_bytes(&k->backward, &l)) != LLMMEM_OK)
        return st;
    k->first_less = 0;
    if (!k->sem.input_grads && !l.ssm_proj) {
        acc less = {0, 0};
        first_unrecorded(&less, &l);
        if (less.overflow)
            return layer_overflow(&l);
        k->first_less = less.total;
    }
    uint64_t experts = l.experts;
    /* dense layers, then MoE layers, as the strategy runs them and without recomputation */
    l.experts = 0;
    if ((st = llmmem__layer_activation_bytes(&k->dense, &l)) != LLMMEM_OK)
        return st;
    l.experts = experts;
    if (experts && (st = llmmem__layer_activation_bytes(&k->moe, &l)) != LLMMEM_OK)
        return st;
    l.recompute = LLMMEM_RECOMPUTE_NONE;
    l.experts = 0;
    if ((st = llmmem__layer_activation_bytes(&k->dense_full, &l)) != LLMMEM_OK)
        return st;
    l.experts = experts;
    if (experts && (st = llmmem__layer_activation_bytes(&k->moe_full, &l)) != LLMMEM_OK)
        return st;
    if (!experts) { /* a dense model: its MoE kinds are its dense layers */
        k->moe = k->dense;
        k->moe_full = k->dense_full;
    }
    l.recompute = LLMMEM_RECOMPUTE_FULL;
    if ((st = llmmem__layer_activation_bytes(&k->input, &l)) != LLMMEM_OK)
        return st;
    /* a kind's own bytes: state mixers beside attention, or sliding layers whose SDPA reads a mask */
    k->hybrid = (m->geo.ssm_layers && m->geo.ssm_layers != m->geo.layers) || m->geo.linear_layers ||
                (l.cuda_sdpa && m->geo.window < l.s && llmmem__sliding_layers(&m->geo, 0, m->geo.layers));
    return k->hybrid ? hybrid_kinds(k, m) : LLMMEM_OK;
}

static void act_key_of(llmmem__act_key *key, const llmmem__job *j)
{
    const llmmem__semantics *sem = &j->sem;
    memset(key, 0, sizeof *key);
    key->model_id = j->m->id;
    key->sequences = j->sequences;
    key->tokens = j->tokens;
    key->t = j->layout.t;
    key->et = j->layout.et;
    key->c = j->layout.c;
    key->sp = (uint64_t)j->layout.sp;
    key->compute = (uint64_t)j->compute;
    key->mode = (uint64_t)j->price.mode;
    key->act = j->act;
    const int64_t fields[12] = {sem->attn,      sem->norm,        sem->optimizer, sem->lazy_grads,
                                sem->keep_logits, sem->torch1,   sem->experts,   sem->input_grads,
                                sem->cache,     sem->act,         sem->cpu_kernels, sem->refused};
    memcpy(key->sem, fields, sizeof fields);
}

llmmem_status llmmem__act_kinds_of(const llmmem__act_kinds **out, llmmem__act_kinds *own, llmmem__act_cache *cache,
                                   const llmmem__job *j)
{
    const llmmem__layout *L = &j->layout;
    const llmmem__act_stage any = {0, 0, 0, 0, 1, 1, 1, L->t, L->et, L->c, L->sp};
    if (!cache) {
        *out = own;
        return llmmem__act_kinds_make(own, j, &any);
    }
    llmmem__act_key key;
    act_key_of(&key, j);
    /* the slot: from the members the planner varies (any function would do: the key is compared) */
    uint64_t h = (key.sequences * 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)key.act.recompute * 0xC2B2AE3D27D4EB4FULL) ^
                 (key.t * 0x165667B19E3779F9ULL) ^ (key.c * 0x27D4EB2F165667C5ULL) ^ (key.et * 0x85EBCA77C2B2AE63ULL);
    llmmem__act_slot *slot = &cache->slot[(h >> 60) % LLMMEM_ACT_CACHE_SLOTS];
    *out = &slot->kinds;
    if (slot->valid && memcmp(&key, &slot->key, sizeof key) == 0)
        return LLMMEM_OK;
    llmmem_status st = llmmem__act_kinds_make(&slot->kinds, j, &any);
    slot->valid = st == LLMMEM_OK;
    slot->key = key;
    return st;
}

/* ---- the vision tower ------------------------------------------------------------------------ */

/* Sum over the windows along one side of `side` merged tokens, in windows of `w` merged tokens (the
 * last one shorter), of the window's length squared. */
static uint64_t window_squares(uint64_t side, uint64_t w)
{
    uint64_t full = side / w, rest = side % w;
    return full * w * w + rest * rest;
}

/* What a trained vision tower saves for backward, for the micro-batch's images (every image of
 * `pixels`, a square as the processor resizes it). Qwen2.5-VL: transformers
 * models/qwen2_5_vl/modeling_qwen2_5_vl.py Qwen2_5_VisionTransformerPretrainedModel; Qwen3-VL:
 * models/qwen3_vl/modeling_qwen3_vl.py Qwen3VLVisionModel; both attend image by image (window by
 * window in Qwen2.5-VL's windowed blocks), models/qwen2_vl/modeling_qwen2_vl.py VisionAttention
 * splitting q, k, v at cu_seqlens. Pixtral: models/pixtral/modeling_pixtral.py PixtralVisionModel
 * attends over every image of the batch at once under a block-diagonal mask, and
 * models/mistral3/modeling_mistral3.py Mistral3MultiModalProjector follows. */
static llmmem_status vision_saves(acc *a, const llmmem_model *m, const llmmem__act_settings *act, const llmmem__act_layer *lp)
{
    const uint64_t per_seq = act->images_per_sequence;
    const int64_t kind = llmmem__model_value(m, LLMMEM_KEY_VISION_MODEL_TYPE);
    const llmmem__tower *t = llmmem__tower_of(kind);
    if (per_seq == 0)
        return LLMMEM_OK;
    if (t == NULL)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "images_per_sequence (%llu): the vision tower's activations are modelled for the "
                            "qwen2_5_vl, qwen3_vl and pixtral towers, not %s",
                            (unsigned long long)per_seq,
                            kind ? llmmem_choice_name(LLMMEM_KEY_VISION_MODEL_TYPE, kind) : "a model without one");
    if (lp->frozen) /* PEFT freezes the tower: pixel values and weights need no grad, nothing is recorded */
        return LLMMEM_OK;
    const uint64_t vh = (uint64_t)llmmem__model_value(m, LLMMEM_KEY_VISION_HIDDEN_SIZE);
    const uint64_t vi = (uint64_t)llmmem__model_value(m, LLMMEM_KEY_VISION_INTERMEDIATE_SIZE);
    const uint64_t depth = (uint64_t)llmmem__model_value(m, LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS);
    const uint64_t heads = (uint64_t)llmmem__model_value(m, LLMMEM_KEY_VISION_NUM_ATTENTION_HEADS);
    const uint64_t patch = (uint64_t)llmmem__model_value(m, LLMMEM_KEY_VISION_PATCH_SIZE);
    const uint64_t channels = (uint64_t)llmmem__model_value(m, LLMMEM_KEY_VISION_NUM_CHANNELS);
    uint64_t merge = (uint64_t)llmmem__model_value(m, LLMMEM_KEY_VISION_SPATIAL_MERGE_SIZE);
    uint64_t frames = (uint64_t)llmmem__model_value(m, LLMMEM_KEY_VISION_TEMPORAL_PATCH_SIZE);
    if (heads == 0 || vh % heads)
        return llmmem__fail(LLMMEM_ERR_INCOMPLETE,
                            "images_per_sequence needs vision_num_attention_heads (%llu) dividing vision_hidden_size "
                            "(%llu)", (unsigned long long)heads, (unsigned long long)vh);
    merge = merge ? merge : 2;
    frames = t->frames == 1 ? 1 : frames ? frames : t->frames;
    const uint64_t factor = patch * merge;
    uint64_t pixels = act->image_pixels, side;
    if (pixels == 0) /* the processor's largest image (the tower's row, as vLLM's encoder budget takes it) */
        pixels = t->max_pixels ? t->max_pixels
                               : (uint64_t)llmmem__model_value(m, LLMMEM_KEY_VISION_IMAGE_SIZE) *
                                     (uint64_t)llmmem__model_value(m, LLMMEM_KEY_VISION_IMAGE_SIZE);
    /* the processor's resize: a side in factors (inventory/towers.c), at least one */
    side = llmmem__tower_side(t, pixels, factor);
    if (side == 0)
        side = 1;
    const uint64_t per_image = side * merge * side * merge; /* patches of one image */
    uint64_t images, n;
    if (!llmmem__mul(&images, lp->b, per_seq) || !llmmem__mul(&n, images, per_image) || n > (1ULL << 40))
        return llmmem__fail(LLMMEM_ERR_OVERFLOW, "vision patches of a micro-batch exceed 2^40");
    const unsigned e = lp->bytes;
    /* one block as the decoder layers' rules save it: the tower is replicated (no tensor or
     * sequence split), has no dropout, adapters or autocast */
    llmmem__act_layer v = *lp;
    v.s = n;
    v.b = 1;
    v.h = vh;
    v.a = v.g = heads;
    v.d = vh / heads;
    v.f = vi;
    v.t = 1;
    v.sequence_parallel = 0;
    v.dropout = 0;
    v.qk_norm = 0;
    v.kv_rank = 0;
    v.experts = 0;
    v.adapter = 0;
    v.autocast = 0;
    v.stream = 0;
    v.norms = 2;
    v.layernorm = kind == LLMMEM__VISION_QWEN3_VL; /* Qwen3VLVisionBlock: nn.LayerNorm; Qwen2RMSNorm, PixtralRMSNorm elsewhere */
    v.gated = kind != LLMMEM__VISION_QWEN3_VL;      /* Qwen2_5_VLMLP and PixtralMLP gated; Qwen3VLVisionMLP fc1, GELU, fc2 */
    v.gelu_tanh_ops = v.softmax_in_dtype = v.norm_scale_fp32 = v.softcap = 0;
    const uint64_t nvh = elems(a, n, vh, 1, 1), nd = elems(a, n, v.d, 1, 1);
    const int64_t rmode = act->recompute;
    const int checkpointed = rmode == LLMMEM_RECOMPUTE_FULL || rmode == LLMMEM_RECOMPUTE_OFFLOAD;
    if (checkpointed) {
        /* gradient checkpointing reaches the vision blocks too (the towers' forward checkpoints each
         * block when gradient_checkpointing is on): each keeps its input, on the device */
        keep(a, &v, elems(a, depth, nvh, 1, 1), e, 0);
    } else {
        /* a block's norms, linears and MLP; its attention below, chunk by chunk */
        llmmem__act_layer blk = v;
        blk.attn = LLMMEM_ATTN_FUSED; /* attention_core: q, k, v, output and a row statistic */
        blk.cuda_sdpa = 0;            /* called image by image: 16 bytes of philox a call not counted */
        layer_parts p = {{0, 0}, {0, 0}, {0, 0}};
        layer_saves(&p, &blk);
        uint64_t block;
        if (p.attention.overflow || p.after_softmax.overflow || p.ffn.overflow ||
            !llmmem__add(&block, p.attention.total, p.after_softmax.total) || !llmmem__add(&block, block, p.ffn.total))
            return layer_overflow(&v);
        if (v.attn == LLMMEM_ATTN_EAGER) {
            /* eager_attention_forward: the fp32 softmax output and its cast copy per chunk, not the
             * log-sum-exp the fused core keeps */
            uint64_t lse = elems(a, heads, n, 4, 1);
            block -= lse;
            uint64_t sq_full, sq_window = 0, windowed = 0;
            const unsigned per = 4u + (e != 4 ? e : 0u);
            if (kind == LLMMEM__VISION_PIXTRAL) { /* the whole batch's patches at once */
                sq_full = elems(a, n, n, 1, 1);
            } else {
                sq_full = elems(a, images, per_image, per_image, 1);
                uint64_t w = (uint64_t)llmmem__model_value(m, LLMMEM_KEY_VISION_WINDOW_SIZE) / factor;
                if (kind == LLMMEM__VISION_QWEN2_5_VL && w) {
                    /* get_window_index: windows of window_size // merge // patch merged tokens a side,
                     * each of (rows x merge) x (cols x merge) patches */
                    uint64_t full = (uint64_t)llmmem__model_value(m, LLMMEM_KEY_VISION_FULLATT_BLOCKS);
                    uint64_t ws = window_squares(side, w), m4 = merge * merge * merge * merge;
                    windowed = depth > full ? depth - full : 0;
                    sq_window = elems(a, images, ws, ws, m4);
                }
            }
            uint64_t full_blocks = depth - windowed;
            keep(a, &v, elems(a, heads, sq_full, full_blocks, 1), per, 0);
            keep(a, &v, elems(a, heads, sq_window, windowed, 1), per, 0);
        }
        keep(a, &v, elems(a, block, depth, 1, 1), 1, 0);
        /* the rotary cos and sin, fp32 [n, head_dim] computed once, saved by every block's rotation
         * (Pixtral's in the activation format) */
        keep(a, &v, elems(a, nd, 2, 1, 1), kind == LLMMEM__VISION_PIXTRAL ? e : 4u, 0);
    }
    /* the patch embedding's input: Conv3d over temporal_patch_size x patch x patch (Conv2d for Pixtral) */
    keep(a, &v, elems(a, n, channels * frames, patch, patch), e, 0);
    if (kind == LLMMEM__VISION_QWEN3_VL) {
        /* fast_pos_embed_interpolate: four int64 index lists the embedding's backward reads, the
         * bilinear weights the product saves */
        keep(a, &v, elems(a, n, 4, 1, 1), 8, 0);
        keep(a, &v, elems(a, n, 4, 1, 1), e, 0);
    }
    if (kind == LLMMEM__VISION_PIXTRAL) /* ln_pre */
        norm_saves(a, &v, n, vh, 0);
    const uint64_t tokens = n / (merge * merge), merged = vh * merge * merge;
    if (kind == LLMMEM__VISION_QWEN2_5_VL || kind == LLMMEM__VISION_QWEN3_VL) {
        /* the merger (and each deepstack merger): its norm, fc1's input, GELU's input, fc2's input */
        uint64_t mergers = 1 + (kind == LLMMEM__VISION_QWEN3_VL ? (uint64_t)llmmem__model_value(m, LLMMEM_KEY_VISION_DEEPSTACK_LAYERS) : 0);
        norm_saves(a, &v, n, vh, 0);
        for (uint64_t i = 1; i < mergers; i++)
            norm_saves(a, &v, tokens, merged, 0); /* use_postshuffle_norm: LayerNorm over the merged width */
        keep(a, &v, elems(a, mergers, tokens, merged, 3), e, 0);
    } else {
        /* Mistral3MultiModalProjector: its norm, merging_layer's input, linear_1's, the GELU's and
         * linear_2's inputs of the text width */
        const uint64_t th = m->geo.hidden;
        norm_saves(a, &v, n, vh, 0);
        keep(a, &v, elems(a, tokens, merged, 1, 1), e, 0);
        keep(a, &v, elems(a, tokens, vh, 1, 1), e, 0);
        keep(a, &v, elems(a, tokens, th, 2, 1), e, 0);
    }
    return a->overflow ? layer_overflow(&v) : LLMMEM_OK;
}

/* The attention masks the model's forward builds once for its layers: transformers' eager attention
 * adds a [b, 1, s, s] one in the activation format (masking_utils.py eager_mask; autocast: the fp32
 * embeddings' dtype, create_causal_mask), and a second for sliding layers beside full ones
 * (models/gemma2/modeling_gemma2.py causal_mask_mapping); SDPA's sliding layers read a bool one over
 * a sequence longer than their window (sdpa_mask). */
static void attention_masks(acc *a, const llmmem_model *m, const llmmem__act_layer *lp, const llmmem__act_stage *stage)
{
    if (stage->end <= stage->first)
        return;
    const uint64_t sliding = llmmem__sliding_layers(&m->geo, stage->first, stage->end);
    const uint64_t bss = elems(a, lp->b, lp->s, lp->s, 1);
    if (lp->attn == LLMMEM_ATTN_EAGER) {
        keep(a, lp, bss, lp->stream ? lp->stream : lp->bytes, 1);
        if (sliding && sliding < stage->end - stage->first)
            keep(a, lp, bss, lp->bytes, 1);
    } else if (lp->cuda_sdpa && sliding && m->geo.window < lp->s) {
        keep(a, lp, bss, 1, 0);
    }
}

llmmem_status llmmem__stage_activations(llmmem__activations *out, const llmmem_model *m,
                                        const llmmem__act_kinds *k, const llmmem__act_stage *stage)
{
    memset(out, 0, sizeof *out);
    if (k->mode == LLMMEM_MODE_INFERENCE)
        return LLMMEM_OK;
    llmmem_status st;
    const llmmem__act_layer *lp = &k->layer;
    const unsigned e = k->e;
    if (stage->end > stage->first && (st = compose_layers(out, m, k, k->norm_fp32, stage)) != LLMMEM_OK)
        return st;
    const int64_t rmode = k->act.recompute;
    if (stage->has_embedding && stage->end > stage->first &&
        (rmode == LLMMEM_RECOMPUTE_NONE || rmode == LLMMEM_RECOMPUTE_SELECTIVE)) {
        const uint64_t less = k->first_less < out->first_held ? k->first_less : out->first_held;
        out->held -= less;
        out->first_held -= less;
    }

    /* Outside the layers (Korthikanti §4.3): on the first stage the input ids the embedding's
     * backward indexes with (int64), the embedding dropout's mask and an embedding norm's input
     * (BLOOM); on the last the final norm's and the LM head's inputs. Sequence parallelism splits
     * the hidden-sized ones over the t ranks, as in the layers. */
    uint64_t tokens, sbh, extra = 0;
    if (!llmmem__mul(&tokens, lp->s, lp->b) || !llmmem__mul(&sbh, tokens, lp->h))
        return overflow();
    acc ends = {0, 0}, head = {0, 0};
    if (stage->has_embedding) {
        /* the int64 ids, whole on every rank; a frozen embedding's lookup saves nothing */
        if (!llmmem__mul(&ends.total, tokens, lp->frozen ? 0u : 8u))
            return overflow();
        /* models/gpt2/modeling_gpt2.py: wpe's backward indexes with the int64 position ids, one row
         * ([1, s]) the batch shares (transformers' modeling code: its attention implementations) */
        if (llmmem__model_value(m, LLMMEM_KEY_LEARNED_POSITIONS) && (lp->attn == LLMMEM_ATTN_EAGER ||
                                                                     lp->attn == LLMMEM_ATTN_SDPA ||
                                                                     lp->attn == LLMMEM_ATTN_FLASH_ATTENTION_2))
            keep(&ends, lp, lp->s, 8, 0);
        if (lp->dropout)
            keep(&ends, lp, sbh, lp->mask_bytes ? lp->mask_bytes : 1u, 0);
        if (llmmem__model_value(m, LLMMEM_KEY_EMBEDDING_NORM))
            norm_saves(&ends, lp, tokens, lp->h, 0);
        if ((st = vision_saves(&ends, m, &k->act, lp)) != LLMMEM_OK)
            return st;
    }
    /* transformers' rotary models compute cos and sin once per forward ([b, s, head_dim] each, in
     * the activation format) and every layer's rotation saves them (modeling_llama.py
     * LlamaRotaryEmbedding); Megatron's fused rope keeps its frequencies alone */
    /* autocast: cos.to(x.dtype), x the embedding's fp32 output (LlamaRotaryEmbedding.forward) */
    if (stage->end > stage->first && !llmmem__model_value(m, LLMMEM_KEY_LEARNED_POSITIONS) &&
        (lp->attn == LLMMEM_ATTN_EAGER || lp->attn == LLMMEM_ATTN_SDPA || lp->attn == LLMMEM_ATTN_FLASH_ATTENTION_2))
        keep(&ends, lp, elems(&ends, tokens, lp->kv_rank ? lp->rope : lp->d, 2, 1), lp->stream ? lp->stream : e, 0);
    /* torch.utils.checkpoint saves the attention masks with each layer's inputs */
    if (rmode == LLMMEM_RECOMPUTE_FULL || rmode == LLMMEM_RECOMPUTE_OFFLOAD)
        attention_masks(&ends, m, lp, stage);
    /* Gemma2TextScaledWordEmbedding (models/gemma*): the embedding times a 0-dim normalizer in the
     * weight's dtype, which the mul saves */
    if (stage->has_embedding && lp->norm_scale_fp32)
        keep(&ends, lp, 1, e, 0);
    if (stage->has_head) { /* the final norm and the LM head's input (none for a frozen head) */
        norm_saves(&head, lp, tokens, lp->h, 0);
        if (!lp->frozen)
            keep(&head, lp, sbh, e, 0);
        autocast_casts(&head, lp, sbh, 1, elems(&head, m->geo.vocab, lp->h, 1, 1)); /* lm_head's weight */
        /* Gemma2ForCausalLM final_logit_softcapping (30.0): logits / cap, tanh, * cap: tanh saves
         * its output (vocabulary-split), the div and mul their 0-dim float64 factors */
        if (lp->softcap) {
            keep(&head, lp, elems(&head, tokens, m->geo.vocab, 1, 1), e, 1);
            keep(&head, lp, 2, 8, 0);
        }
    }
    if (ends.overflow || head.overflow || !llmmem__add(&extra, ends.total, head.total))
        return overflow();
    if (!llmmem__add(&out->first_held, out->first_held, ends.total))
        return overflow();
    out->head = head.total;
    /* micro-batches in flight: the pipeline schedule's count (parallel.c) */
    if (!llmmem__add(&out->held, out->held, extra) || !scale(&out->held, stage->in_flight_num, stage->in_flight_den) ||
        !scale(&out->host, stage->in_flight_num, stage->in_flight_den))
        return overflow();
    if (!stage->has_head)
        return LLMMEM_OK;
    if ((st = loss_bytes(out, m, &k->act, tokens, e, k->sem.keep_logits, stage)) != LLMMEM_OK)
        return st;
    if (lp->autocast && (rmode == LLMMEM_RECOMPUTE_FULL || rmode == LLMMEM_RECOMPUTE_OFFLOAD)) {
        /* autocast caches weight casts even under checkpoint's no_grad forward (cached_cast tests
         * requires_grad, not grad mode) until the region ends after the loss (autocast_mode.py
         * __exit__ clear_autocast_cache): the checkpointed layers' 16-bit weights, saved by no op */
        uint64_t n = k->act.recompute_num_layers, layers = stage->end - stage->first;
        if (k->act.recompute_method != LLMMEM_RECOMPUTE_BLOCK || n == 0 || n > layers)
            n = layers;
        acc cache = {0, 0};
        keep(&cache, lp, elems(&cache, n, lp->attn_weights + lp->mlp_weights, 1, 1), e, 1);
        if (cache.overflow || !llmmem__add(&out->loss_forward, out->loss_forward, cache.total))
            return overflow();
    }
    return scale(&out->logits_held, stage->loss_in_flight, 1) ? LLMMEM_OK : overflow();
}

llmmem_status llmmem__backward_points(llmmem__backward_point *best, llmmem__backward_fn each, void *ctx,
                                      const llmmem_model *m, const llmmem__act_kinds *k,
                                      const llmmem__act_stage *st, const llmmem__activations *a,
                                      const llmmem__step *step, uint64_t grads)
{
    const uint64_t first = st->first, count = st->end > st->first ? st->end - st->first : 0;
    const uint64_t samples = count < LLMMEM_STAGE_SAMPLES ? count : LLMMEM_STAGE_SAMPLES;
    uint64_t rebuilt, h1 = 0, held_l, below;
    llmmem_status rc;
    if (!llmmem__add(&rebuilt, a->recompute, a->backward))
        return overflow();
    /* the last layer (the head's inputs freed) and the first, as the ends of a stage of any length */
    llmmem__backward_point last = {count ? st->end - 1 : first, step->lazy_grads ? step->grads_last : grads,
                                   a->held > a->head ? a->held - a->head : 0};
    llmmem__backward_point low = {first, step->lazy_grads ? step->grads_first : grads, a->first_held};
    if (!llmmem__add(&last.acts, last.acts, rebuilt) || !llmmem__add(&low.acts, low.acts, rebuilt))
        return overflow();
    uint64_t t_last, t_low, t;
    if (!llmmem__add(&t_last, last.acts, last.grads) || !llmmem__add(&t_low, low.acts, low.grads))
        return overflow();
    *best = t_low > t_last ? low : last;
    uint64_t t_best = t_low > t_last ? t_low : t_last;
    if (count > 1 && each && (rc = each(ctx, &last)) != LLMMEM_OK)
        return rc;
    /* one layer kind on the stage, no recomputation chunks and no frozen layers among them: the
     * moments change by the same bytes from layer to layer, so the highest is an end, and the layers
     * between are walked only to be listed */
    const int64_t recompute = k->act.recompute;
    const int linear = step->frozen_layers <= first &&
                       (recompute == LLMMEM_RECOMPUTE_NONE || recompute == LLMMEM_RECOMPUTE_SELECTIVE) &&
                       one_kind(&m->geo.plan, first, st->end);
    if (count > 2 && (each || !linear)) { /* the layers between: held before the stage's first, and each one's own */
        if ((rc = llmmem__layers_held_of(&h1, m, k, st, first + 1)) != LLMMEM_OK)
            return rc;
        for (uint64_t i = samples - 1; i-- > 1;) {
            llmmem__backward_point p = {llmmem__stage_layer_at(first, count, i, samples), grads, 0};
            if (step->lazy_grads) {
                if (!llmmem__step_layer_grads(&below, step, &m->geo.plan, first, p.layer))
                    return overflow();
                p.grads = step->grads_first > below ? step->grads_first - below : 0;
            }
            if ((rc = llmmem__layers_held_of(&held_l, m, k, st, p.layer + 1)) != LLMMEM_OK)
                return rc;
            /* first_held, and what the layers after the first keep (held_l counts the first too) */
            if (!llmmem__add(&p.acts, a->first_held, held_l - h1) || !llmmem__add(&p.acts, p.acts, rebuilt) ||
                !llmmem__add(&t, p.acts, p.grads))
                return overflow();
            if (t > t_best)
                *best = p, t_best = t;
            if (each && (rc = each(ctx, &p)) != LLMMEM_OK)
                return rc;
            /* gradients all alive from the start: a lower layer's moment holds no more (what the
             * layers keep grows with them), so only the highest sampled can win, and it came first */
            if (!each && !step->lazy_grads)
                break;
        }
    }
    /* one layer: the higher of the two ends; more: the first layer's own moment */
    if (count == 1)
        return each ? each(ctx, best) : LLMMEM_OK;
    return count && each ? each(ctx, &low) : LLMMEM_OK;
}

llmmem_status llmmem__forward_point(uint64_t *acts, const llmmem_model *m,
                                   const llmmem__act_kinds *k, const llmmem__act_stage *st, const llmmem__activations *a)
{
    /* as the timeline's forward points (timeline.c training_points): first_held, what the layers after
     * the first keep, and the forward's locals and input as the stage's last layer returns */
    const uint64_t count = st->end > st->first ? st->end - st->first : 0;
    uint64_t h1 = 0, held = 0;
    llmmem__forward_extra x;
    llmmem_status rc;
    *acts = 0;
    if (count == 0)
        return LLMMEM_OK;
    if ((rc = llmmem__layers_held_of(&h1, m, k, st, st->first + 1)) != LLMMEM_OK ||
        (rc = llmmem__layers_held_of(&held, m, k, st, st->end)) != LLMMEM_OK ||
        (rc = llmmem__forward_extras(&x, m, k, st)) != LLMMEM_OK)
        return rc;
    return llmmem__forward_acts(acts, a, h1, held, &x, count == 1 && st->has_embedding) ? LLMMEM_OK : overflow();
}

llmmem_status llmmem__peak_components(uint64_t bytes[LLMMEM_COMPONENTS], int *phase, const llmmem__activations *a,
                                      const llmmem__step *st, const llmmem__backward_point *bwd, uint64_t forward)
{
    /* bytes[] holds the static state with every gradient; each moment below replaces the
     * gradients, activations, logits and temporaries with what is alive then, and the highest
     * moment wins (an earlier one on a tie) */
    const uint64_t grads = bytes[LLMMEM_COMPONENT_GRADIENTS];
    uint64_t best = 0, loss, m[5], part[5][4]; /* per moment: gradients, activations, logits, temporaries */
    int which = -1;
    if (!llmmem__add(&loss, a->logits_held, a->logits_transient))
        return overflow();
    const uint64_t early = st->lazy_grads ? 0 : grads; /* gradients before backward */
    /* 0: the loss's forward; 1: the loss's backward */
    uint64_t fwd_loss;
    if (!llmmem__add(&fwd_loss, a->logits_held, a->loss_forward))
        return overflow();
    part[0][0] = early, part[0][1] = a->held, part[0][2] = fwd_loss, part[0][3] = 0;
    part[1][0] = early, part[1][1] = a->held, part[1][2] = loss, part[1][3] = 0;
    /* 2: the highest decoder layer's backward (llmmem__backward_points; lazy gradients: a layer's
     * feed-forward and output projection get theirs before its attention's backward, its highest
     * point, so a layer's own count as born) */
    part[2][0] = bwd->grads, part[2][1] = bwd->acts, part[2][2] = 0, part[2][3] = 0;
    /* 3: the optimizer step, after backward */
    part[3][0] = grads, part[3][1] = 0, part[3][2] = 0, part[3][3] = st->temporaries;
    /* 4: the stage's last layer's forward returning (llmmem__forward_point): the highest only where no
     * loss follows on the stage (a pipeline stage before the last), its output waiting for the next */
    part[4][0] = early, part[4][1] = forward, part[4][2] = 0, part[4][3] = 0;
    for (int k = 0; k < 5; k++) {
        m[k] = 0;
        for (int c = 0; c < 4; c++)
            if (!llmmem__add(&m[k], m[k], part[k][c]))
                return overflow();
        if (which < 0 || m[k] > best)
            best = m[k], which = k;
    }
    static const int phases[5] = {LLMMEM_PEAK_PHASE_FORWARD, LLMMEM_PEAK_PHASE_LOSS, LLMMEM_PEAK_PHASE_BACKWARD,
                                  LLMMEM_PEAK_PHASE_OPTIMIZER, LLMMEM_PEAK_PHASE_FORWARD};
    *phase = phases[which];
    if (which == 2 && a->recompute)
        *phase = LLMMEM_PEAK_PHASE_RECOMPUTE;
    bytes[LLMMEM_COMPONENT_GRADIENTS] = part[which][0];
    bytes[LLMMEM_COMPONENT_ACTIVATIONS] = part[which][1];
    bytes[LLMMEM_COMPONENT_LOGITS] = part[which][2];
    bytes[LLMMEM_COMPONENT_OPTIMIZER_TEMPORARIES] = part[which][3];
    return LLMMEM_OK;
}

int llmmem__step_layer_grads(uint64_t *out, const llmmem__step *st, const llmmem__layer_plan *plan, uint64_t first,
                             uint64_t end)
{
    uint64_t on[LLMMEM_LAYER_KINDS_MAX];
    if (first < st->frozen_layers)
        first = st->frozen_layers;
    *out = 0;
    if (end <= first)
        return 1;
    llmmem__kind_counts(on, plan, first, end);
    for (unsigned k = 0; k < plan->n; k++)
        if (!llmmem__muladd(out, on[k], st->grads_kind[k]))
            return 0;
    return 1;
}

void llmmem__peak_parts(uint64_t parts[LLMMEM_PEAK_PARTS], const llmmem__activations *a)
{
    parts[LLMMEM_PEAK_ACTIVATIONS_HELD] = a->held;
    parts[LLMMEM_PEAK_RECOMPUTE] = a->recompute;
    parts[LLMMEM_PEAK_LOGITS_HELD] = a->logits_held;
    parts[LLMMEM_PEAK_LOGITS_TRANSIENT] = a->logits_transient;
    parts[LLMMEM_PEAK_HOST_ACTIVATIONS] = a->host;
    parts[LLMMEM_PEAK_LARGEST_LAYER] = a->layer_full;
}

llmmem_status llmmem__forward_extras(llmmem__forward_extra *out, const llmmem_model *m,
                                     const llmmem__act_kinds *k, const llmmem__act_stage *stage)
{
    /* What the model's forward holds beside the saved tensors as a layer's forward returns (where a
     * forward hook reads; the loss runs after the model's forward returned): the layer's output, its
     * input (still the caller's argument) unless the layer keeps it as it is (a checkpoint, or a first
     * norm that saves no copy of it), on the first stage the inputs_embeds LlamaModel.forward keeps
     * named (GPT2Model.forward its position_embeds too, [1, s, h]) unless they are the first layer's
     * input and kept so, and the attention masks unless a checkpoint keeps them */
    const llmmem__act_layer *lp = &k->layer;
    const int64_t rmode = k->act.recompute;
    const int checkpointed = rmode == LLMMEM_RECOMPUTE_FULL || rmode == LLMMEM_RECOMPUTE_OFFLOAD;
    /* transformers' model forward (LlamaModel.forward: the Trainer's and DeepSpeed's model); Megatron's
     * TransformerBlock and torchtune's TransformerDecoder pass one hidden state from layer to layer, the
     * next layer's saved input: nothing beside the saved tensors */
    const int64_t framework = k->act.framework;
    if (framework != LLMMEM_FRAMEWORK_HF_TRAINER && framework != LLMMEM_FRAMEWORK_DEEPSPEED) {
        memset(out, 0, sizeof *out);
        return LLMMEM_OK;
    }
    const unsigned stream = lp->stream ? lp->stream : k->e;
    const int input_kept = rmode == LLMMEM_RECOMPUTE_FULL || !k->norm_fp32;
    acc locals = {0, 0}, input = {0, 0}, leaf = {0, 0};
    const uint64_t sbh = elems(&locals, lp->s, lp->b, lp->h, 1);
    memset(out, 0, sizeof *out);
    if (k->mode == LLMMEM_MODE_INFERENCE)
        return LLMMEM_OK;
    keep(&locals, lp, sbh, stream, 0);
    if (!input_kept)
        keep(&input, lp, sbh, stream, 0);
    if (stage->has_embedding) {
        const int learned = llmmem__model_value(m, LLMMEM_KEY_LEARNED_POSITIONS) != 0;
        const int is_input = !learned && !lp->dropout && !llmmem__model_value(m, LLMMEM_KEY_EMBEDDING_NORM);
        if (!is_input || !input_kept || (rmode != LLMMEM_RECOMPUTE_FULL && k->first_less))
            keep(&locals, lp, sbh, stream, 0);
        if (learned)
            keep(&locals, lp, elems(&locals, lp->s, lp->h, 1, 1), k->e, 0);
        /* a frozen embedding's output made to require grad (modeling_utils.py
         * enable_input_require_grads: requires_grad_ in a forward hook) is a leaf: backward leaves
         * its grad beside it, both held by the graph's AccumulateGrad until the loss is released */
        if (lp->frozen && k->sem.input_grads)
            keep(&leaf, lp, sbh, 2u * k->e, 0);
    }
    if (!checkpointed)
        attention_masks(&locals, m, lp, stage);
    if (locals.overflow || input.overflow || leaf.overflow)
        return overflow();
    out->locals = locals.total;
    out->input = input.total;
    out->leaf_input = leaf.total;
    return LLMMEM_OK;
}
