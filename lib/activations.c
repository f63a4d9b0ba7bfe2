/* Activation memory of training from the tensors each op saves for its backward pass.
 * Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models",
 * §4.1 lists them for a GPT layer (Table 2 sums them: sbh(34 + 5as/h) with 16-bit activations
 * and 1-byte dropout masks); this file keeps each one separate so GQA (smaller K and V), gated
 * MLPs, fused attention, MLA, MoE, fp32 norms and each recomputation mode change only the tensors
 * they change. The model-level part adds the input ids, the head and the loss, and composes the
 * layers under recomputation into what is held when the last forward ends and what backward
 * rebuilds. */
#include <string.h>

#include "activations.h"
#include "job.h"

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

/* The attention core over `heads` heads of tokens x heads x qk (Q, K) and v (V, output) widths:
 * what attention itself saves. kv_heads < heads is GQA. */
static void attention_core(acc *a, const llmmem__act_layer *l, uint64_t heads, uint64_t kv_heads, uint64_t qk,
                           uint64_t v)
{
    const unsigned e = l->bytes;
    /* Q and K for QK^T, V for the product with the scores; GQA keeps g heads of K and V */
    keep(a, l, elems(a, l->s, l->b, heads, qk), e, 1);
    keep(a, l, elems(a, l->s, l->b, kv_heads, qk), e, 1);
    keep(a, l, elems(a, l->s, l->b, kv_heads, v), e, 1);
    if (l->flash) {
        /* FlashAttention (Dao et al. 2022) keeps no s x s tensor, only the fp32 log-sum-exp per row */
        keep(a, l, elems(a, heads, l->s, l->b, 1), 4, 1);
    } else if (l->recompute != LLMMEM_RECOMPUTE_SELECTIVE) {
        /* softmax output 2as^2b; with dropout its 1-byte mask and its output 2as^2b more */
        const uint64_t scores = elems(a, heads, l->s, l->s, l->b);
        keep(a, l, scores, e, 1);
        if (l->dropout) {
            keep(a, l, scores, 1, 1);
            keep(a, l, scores, e, 1);
        }
    }
    /* the output projection's input (heads x v wide) */
    keep(a, l, elems(a, l->s, l->b, heads, v), e, 1);
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
        keep(a, l, tf, l->bytes, 1);
        if (!l->fused_swiglu)
            keep(a, l, tf, l->bytes, 1);
    } else {
        /* GeLU's input and output (the second linear's input): 8sbh each when f = 4h */
        keep(a, l, tf, l->bytes, 1);
        keep(a, l, tf, l->bytes, 1);
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
    const uint64_t routed = elems(a, sb, l->top_k, 1, 1);
    keep(a, l, elems(a, routed, l->h, 1, 1), l->bytes, 0); /* dispatched tokens */
    llmmem__act_layer expert = *l; /* expert intermediates split over expert_tensor_parallel */
    expert.t = l->et ? l->et : l->t;
    mlp_core(a, &expert, routed, l->fe);
    keep(a, l, elems(a, routed, l->h, 1, 1), l->bytes, 0); /* expert outputs before the combine */
    if (l->fs)
        mlp_core(a, l, sb, l->fs);
}

llmmem_status llmmem__layer_activation_bytes(uint64_t *bytes_out, const llmmem__act_layer *l)
{
    acc a = {0, 0};
    const unsigned e = l->bytes, nb = l->norm_bytes ? l->norm_bytes : l->bytes;
    const unsigned norms = l->norms ? l->norms : 2;
    const uint64_t sb = elems(&a, l->s, l->b, 1, 1), sbh = elems(&a, sb, l->h, 1, 1);
    if (l->recompute == LLMMEM_RECOMPUTE_FULL || l->recompute == LLMMEM_RECOMPUTE_OFFLOAD) {
        /* Korthikanti §5 (full recomputation): only the layer's input, 2sbh */
        keep(&a, l, sbh, e, 0);
    } else {
        /* Attention block (§4.1): the norm's input and the projections' input, unsplit by TP */
        keep(&a, l, sbh, nb, 0);
        keep(&a, l, sbh, e, 0);
        if (l->kv_rank) {
            /* MLA, DeepSeek-V2 modeling_deepseek.py DeepseekV2Attention (training form: K and V
             * expanded per head): the query latent's norm and up-projection inputs, the key-value
             * down-projection's output (kv latent + shared rope key, which its norm reads as a view)
             * and the up-projection's input */
            if (l->q_rank) {
                keep(&a, l, elems(&a, sb, l->q_rank, 1, 1), nb, 0);
                keep(&a, l, elems(&a, sb, l->q_rank, 1, 1), e, 0);
            }
            keep(&a, l, elems(&a, sb, l->kv_rank + l->rope, 1, 1), nb, 0);
            keep(&a, l, elems(&a, sb, l->kv_rank, 1, 1), e, 0);
            attention_core(&a, l, l->a, l->a, l->nope + l->rope, l->v_dim);
        } else {
            if (l->qk_norm) { /* Qwen3Attention q_norm / k_norm inputs */
                keep(&a, l, elems(&a, sb, l->a, l->d, 1), nb, 1);
                keep(&a, l, elems(&a, sb, l->g, l->d, 1), nb, 1);
            }
            attention_core(&a, l, l->a, l->g, l->d, l->d);
        }
        if (l->dropout) /* the hidden dropout's mask after attention */
            keep(&a, l, sbh, 1, 0);
        if (norms == 4) /* Gemma 2/3 post-attention norm's input */
            keep(&a, l, sbh, nb, 0);
        /* MLP block: the norm's input and the MLP's input, unsplit by TP; a single shared norm
         * (Falcon-7B's parallel attention and MLP) feeds both blocks from the tensors above */
        if (norms != 1) {
            keep(&a, l, sbh, nb, 0);
            keep(&a, l, sbh, e, 0);
        }
        if (l->experts)
            moe_block(&a, l, sb);
        else
            mlp_core(&a, l, sb, l->f);
        if (l->dropout)
            keep(&a, l, sbh, 1, 0);
        /* PEFT tuners/lora/layer.py Linear.forward, lora_B(lora_A(x)): each lora_B keeps lora_A's
         * r-wide output; lora_A's input is the base linear's, kept above */
        keep(&a, l, elems(&a, sb, l->adapter, 1, 1), e, 0);
        if (norms == 4) /* Gemma 2/3 post-feed-forward norm's input */
            keep(&a, l, sbh, nb, 0);
    }
    if (a.overflow)
        return llmmem__fail(LLMMEM_ERR_OVERFLOW, "activation bytes of a layer (s %llu, b %llu, h %llu) exceed 64 bits",
                            (unsigned long long)l->s, (unsigned long long)l->b, (unsigned long long)l->h);
    *bytes_out = a.total;
    return LLMMEM_OK;
}

/* ---- the model ------------------------------------------------------------------------------ */

static unsigned bytes_of_format(llmmem_format f)
{
    return (unsigned)(llmmem__format_element_bits(f) / 8u);
}

/* A layer description from the model's geometry (so head_dim, KV heads and widths are those the
 * parameter count used) and the strategy's settings. */
static void describe_layer(llmmem__act_layer *l, const llmmem_model *m, const llmmem_strategy *s, unsigned bytes,
                           const llmmem__act_stage *st)
{
    const llmmem__settings *k = &s->s;
    const llmmem__geometry *g = &m->geo;
    memset(l, 0, sizeof *l);
    /* context parallelism: each rank holds s / c tokens of every sequence (ring attention passes
     * K and V chunks around without keeping them: Megatron-LM/Transformer Engine cp_comm_type p2p) */
    l->s = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_SEQUENCE_LENGTH) / st->c;
    l->b = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_MICRO_BATCH_SIZE);
    l->h = g->hidden;
    l->t = st->t;
    l->et = st->et;
    l->sequence_parallel = st->sequence_parallel;
    l->bytes = bytes;
    l->norm_bytes = llmmem__get_int(k, LLMMEM_KEY_NORM_FP32) ? 4u : bytes;
    l->norms = (unsigned)llmmem__model_value(m, LLMMEM_KEY_NORMS_PER_LAYER);
    l->dropout = llmmem__get_int(k, LLMMEM_KEY_DROPOUT) != 0;
    l->flash = llmmem__get_int(k, LLMMEM_KEY_FLASH_ATTENTION) != 0;
    l->gated = llmmem__model_value(m, LLMMEM_KEY_MLP_GATED) != 0;
    l->fused_swiglu = llmmem__get_int(k, LLMMEM_KEY_FUSED_SWIGLU) != 0;
    l->qk_norm = llmmem__model_value(m, LLMMEM_KEY_QK_NORM) != 0;
    l->recompute = llmmem__get_int(k, LLMMEM_KEY_RECOMPUTE) == LLMMEM_RECOMPUTE_SELECTIVE ? LLMMEM_RECOMPUTE_SELECTIVE
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
    int64_t mode = llmmem__get_int(k, LLMMEM_KEY_MODE);
    if (mode == LLMMEM_MODE_LORA || mode == LLMMEM_MODE_QLORA) {
        /* adapted linears a token passes through, averaged over the decoder layers (experts: the
         * top_k a token is routed to) */
        uint64_t layers = g->layers, passes = 0;
        unsigned targets = (unsigned)llmmem__get_int(k, LLMMEM_KEY_LORA_TARGETS);
        for (unsigned i = 0; i < m->inv.n; i++)
            if (llmmem__lora_target(&m->inv.t[i], targets) && m->inv.t[i].kinds != 0)
                passes += m->inv.t[i].active_count;
        l->adapter = layers ? (uint64_t)llmmem__get_int(k, LLMMEM_KEY_LORA_RANK) * passes / layers : 0;
    }
    if (g->moe_layers) {
        l->fe = g->ffn_expert;
        l->fs = g->ffn_shared;
        l->experts = g->experts;
        l->top_k = g->experts_per_tok;
    }
}

/* Saved bytes of layers [first, end): dense and MoE layers by the inventory's layer pattern. */
static int sum_layers(uint64_t *out, const llmmem_model *m, uint64_t first, uint64_t end, uint64_t dense_bytes,
                      uint64_t moe_bytes)
{
    uint64_t moe = llmmem__layers_in(&m->geo.plan, m->geo.moe, first, end);
    uint64_t dense = llmmem__layers_in(&m->geo.plan, m->geo.all, first, end) - moe;
    *out = 0;
    return llmmem__muladd(out, dense, dense_bytes) && llmmem__muladd(out, moe, moe_bytes);
}

static llmmem_status overflow(void)
{
    return llmmem__fail(LLMMEM_ERR_OVERFLOW, "activation bytes exceed 64 bits");
}

/* The decoder layers under the recomputation mode: held at the end of the forward, rebuilt during
 * backward, offloaded. */
static llmmem_status compose_layers(llmmem__activations *out, const llmmem_model *m, const llmmem_strategy *s,
                                    const llmmem__act_kinds *k, int norm_fp32, const llmmem__act_stage *st)
{
    /* layer indices below are relative to the stage's first layer */
    const uint64_t base = st->first, layers = st->end - st->first;
    const int64_t mode = llmmem__get_int(&s->s, LLMMEM_KEY_RECOMPUTE);
    out->layer_full = k->moe_full > k->dense_full && llmmem__layers_in(&m->geo.plan, m->geo.moe, base, base + layers)
                          ? k->moe_full
                          : k->dense_full;
    if (mode == LLMMEM_RECOMPUTE_NONE || mode == LLMMEM_RECOMPUTE_SELECTIVE) {
        if (!sum_layers(&out->held, m, base, base + layers, k->dense, k->moe))
            return overflow();
        /* selective: backward recomputes one layer's attention core at a time */
        if (mode == LLMMEM_RECOMPUTE_SELECTIVE) {
            out->recompute = k->dense_full - k->dense;
            if (llmmem__layers_in(&m->geo.plan, m->geo.moe, base, base + layers) && k->moe_full - k->moe > out->recompute)
                out->recompute = k->moe_full - k->moe;
        }
        return LLMMEM_OK;
    }
    uint64_t n = (uint64_t)llmmem__get_int(&s->s, LLMMEM_KEY_RECOMPUTE_NUM_LAYERS);
    const int block = llmmem__get_int(&s->s, LLMMEM_KEY_RECOMPUTE_METHOD) == LLMMEM_RECOMPUTE_BLOCK;
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
    if (block) {
        /* Megatron-LM transformer_block.py _checkpointed_forward, recompute_method "block": the
         * first n layers (of a pipeline stage) are checkpointed one by one, the rest keep all */
        uint64_t rest;
        if (!sum_layers(&rest, m, base + n, base + layers, k->dense, k->moe) ||
            !llmmem__mul(&out->held, n, k->input) || !llmmem__add(&out->held, out->held, rest))
            return overflow();
        uint64_t moe_in = llmmem__layers_in(&m->geo.plan, m->geo.moe, base, base + n);
        out->recompute = (moe_in && k->moe_full > k->dense_full ? k->moe_full : k->dense_full) - shared_input;
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
    for (uint64_t c = 0; c < chunks; c++) {
        if (c == distinct && c + 1 < chunks)
            c = chunks - 1;
        uint64_t bytes;
        if (!sum_layers(&bytes, m, base + c * n, base + c * n + n, k->dense_full, k->moe_full))
            return overflow();
        if (bytes > largest)
            largest = bytes;
        if (k->moe_full == k->dense_full) /* every chunk but a shorter last one is alike */
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
static llmmem_status loss_bytes(llmmem__activations *out, const llmmem_model *m, const llmmem_strategy *s,
                                uint64_t tokens, unsigned e, const llmmem__act_stage *st)
{
    const llmmem__settings *k = &s->s;
    const uint64_t vocab = m->geo.vocab, h = m->geo.hidden;
    const uint64_t shard = llmmem__ceil_div(vocab, st->t);
    const unsigned l = llmmem__get_int(k, LLMMEM_KEY_LOGITS_FP32) ? 4u : e; /* the loss's format */
    uint64_t tv;
    if (!llmmem__mul(&tv, tokens, shard))
        return overflow();
    switch (llmmem__get_int(k, LLMMEM_KEY_CROSS_ENTROPY)) {
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
        uint64_t chunk = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_LOSS_CHUNK_TOKENS);
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
    default:
        /* transformers LlamaForCausalLM + loss_utils.ForCausalLMLoss: the logits (kept in the model
         * output), logits.float() when logits_fp32, F.cross_entropy's log_softmax saves its output.
         * Backward: the log-probabilities' gradient and the logits' gradient, both in the loss's
         * format, beside the saved ones */
        if (!llmmem__mul(&out->logits_held, tv, e + l) || !llmmem__mul(&out->logits_transient, tv, 2u * l))
            return overflow();
        return LLMMEM_OK;
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

llmmem_status llmmem__activation_kinds(llmmem__act_kinds *k, const llmmem_model *m, const llmmem_strategy *s,
                                      llmmem_format compute, const llmmem__act_stage *stage)
{
    if (llmmem__model_value(m, LLMMEM_KEY_NUM_PARAMETERS) != 0)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "training activations need the model's shapes: a model given by num_parameters "
                            "alone has no layers to save tensors of");
    k->e = bytes_of_format(compute);
    k->norm_fp32 = llmmem__get_int(&s->s, LLMMEM_KEY_NORM_FP32) != 0;
    llmmem__act_layer l;
    describe_layer(&l, m, s, k->e, stage);
    k->layer = l;
    llmmem_status st;
    uint64_t experts = l.experts;
    /* dense layers, then MoE layers, as the strategy runs them and without recomputation */
    l.experts = 0;
    if ((st = llmmem__layer_activation_bytes(&k->dense, &l)) != LLMMEM_OK)
        return st;
    l.experts = experts;
    if ((st = llmmem__layer_activation_bytes(&k->moe, &l)) != LLMMEM_OK)
        return st;
    l.recompute = LLMMEM_RECOMPUTE_NONE;
    l.experts = 0;
    if ((st = llmmem__layer_activation_bytes(&k->dense_full, &l)) != LLMMEM_OK)
        return st;
    l.experts = experts;
    if ((st = llmmem__layer_activation_bytes(&k->moe_full, &l)) != LLMMEM_OK)
        return st;
    l.recompute = LLMMEM_RECOMPUTE_FULL;
    return llmmem__layer_activation_bytes(&k->input, &l);
}

llmmem_status llmmem__stage_activations(llmmem__activations *out, const llmmem_model *m, const llmmem_strategy *s,
                                        const llmmem__act_kinds *k, const llmmem__act_stage *stage)
{
    memset(out, 0, sizeof *out);
    if (llmmem__get_int(&s->s, LLMMEM_KEY_MODE) == LLMMEM_MODE_INFERENCE)
        return LLMMEM_OK;
    llmmem_status st;
    const llmmem__act_layer *lp = &k->layer;
    const unsigned e = k->e;
    if (stage->end > stage->first && (st = compose_layers(out, m, s, k, k->norm_fp32, stage)) != LLMMEM_OK)
        return st;

    /* Outside the layers (Korthikanti §4.3): on the first stage the input ids the embedding's
     * backward indexes with (int64), the embedding dropout's mask and an embedding norm's input
     * (BLOOM); on the last the final norm's and the LM head's inputs. Sequence parallelism splits
     * the hidden-sized ones over the t ranks, as in the layers. */
    uint64_t tokens, sbh, extra = 0;
    if (!llmmem__mul(&tokens, lp->s, lp->b) || !llmmem__mul(&sbh, tokens, lp->h))
        return overflow();
    const uint64_t sbh_rank = stage->sequence_parallel ? llmmem__ceil_div(sbh, stage->t) : sbh;
    if (stage->has_embedding &&
        (!llmmem__muladd(&extra, tokens, 8) || (lp->dropout && !llmmem__muladd(&extra, sbh_rank, 1)) ||
         (llmmem__model_value(m, LLMMEM_KEY_EMBEDDING_NORM) && !llmmem__muladd(&extra, sbh_rank, lp->norm_bytes))))
        return overflow();
    if (stage->has_head &&
        (!llmmem__muladd(&extra, sbh_rank, lp->norm_bytes) || !llmmem__muladd(&extra, sbh_rank, e)))
        return overflow();
    /* micro-batches in flight: the pipeline schedule's count (parallel.c) */
    if (!llmmem__add(&out->held, out->held, extra) || !scale(&out->held, stage->in_flight_num, stage->in_flight_den) ||
        !scale(&out->host, stage->in_flight_num, stage->in_flight_den))
        return overflow();
    if (!stage->has_head)
        return LLMMEM_OK;
    if ((st = loss_bytes(out, m, s, tokens, e, stage)) != LLMMEM_OK)
        return st;
    return scale(&out->logits_held, stage->loss_in_flight, 1) ? LLMMEM_OK : overflow();
}

llmmem_status llmmem__peak_components(uint64_t bytes[LLMMEM_COMPONENTS], int *phase, const llmmem__activations *a)
{
    uint64_t loss;
    if (!llmmem__add(&loss, a->logits_held, a->logits_transient))
        return overflow();
    bytes[LLMMEM_COMPONENT_ACTIVATIONS] = a->held;
    bytes[LLMMEM_COMPONENT_LOGITS] = 0;
    if (a->recompute > loss) {
        /* backward recomputes the largest chunk after the loss is freed */
        *phase = LLMMEM_PEAK_PHASE_RECOMPUTE;
        if (!llmmem__add(&bytes[LLMMEM_COMPONENT_ACTIVATIONS], a->held, a->recompute))
            return overflow();
    } else {
        *phase = LLMMEM_PEAK_PHASE_LOSS;
        bytes[LLMMEM_COMPONENT_LOGITS] = loss;
    }
    return LLMMEM_OK;
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
