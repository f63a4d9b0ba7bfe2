/*
 * Inference as transformers' generate loop runs it (generation/utils.py GenerationMixin.generate
 * and _sample, greedy; _beam_search with num_beams > 1): the prefill (step 0, the prompt's
 * forward) and the decode steps (one token per sequence), moment by moment, and the peak over
 * them. The derivation, term by term, with the measurement it matches, is
 * tests/groundtruth/GENERATE.md (derived_peak in test_generate.py); this file follows it and adds
 * what torch 2.x on CUDA and the other attention implementations and caches change. Notation as there: b sequences, s prompt tokens, n new tokens, T the
 * attention's length, e bytes of an activation element; with beams, b is the model's sequences
 * (B = prompts x num_beams in GENERATE.md) and batch the caller's prompts.
 *
 * Everything is integer and checked; no allocation, no I/O.
 */
#include <string.h>

#include "views/generate.h"
#include "views/kv.h"

static llmmem_status overflow(void)
{
    return llmmem__fail(LLMMEM_ERR_OVERFLOW, "the generate loop's bytes exceed 64 bits");
}

/* ---- the shape ---------------------------------------------------------------------------- */

llmmem_status llmmem__generate_shape(llmmem__gen_shape *out, const llmmem__job *j, const llmmem__semantics *sem)
{
    const llmmem__geometry *a = NULL;
    /* the loop's forward holds every token's AttnRes bank beside the residual (Megatron-Bridge kimi_k3_layers.py
     * KimiK3TransformerLayer), tensors this loop does not have */
    const int64_t banks = llmmem__model_value(j->m, LLMMEM_KEY_ATTN_RES_BLOCK_SIZE);
    if (banks)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "the generate loop of %s (AttnRes residual banks, attn_res_block_size %lld, beside KDA's "
                            "state and a latent MoE) is not modelled: the weights and the contiguous cache are",
                            llmmem_choice_name(LLMMEM_KEY_MODEL_TYPE, llmmem__model_value(j->m, LLMMEM_KEY_MODEL_TYPE)),
                            (long long)banks);
    /* DeepseekV4Attention's working set (its compressors' and indexer's projections and fp32 softmaxes, the indexer's
     * scores over every compressed entry, hc_mult residual streams) has no rule here; its cache has (kv.c) */
    if (j->m->geo.compressed_layers || j->m->geo.hc_mult)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "the generate loop of deepseek_v4 (the working set of its compressors, lightning indexer "
                            "and %llu hyper-connection streams) is not modelled: its contiguous cache is "
                            "(llmmem_kv_cache_bytes; mode inference without max_new_tokens under framework megatron)",
                            (unsigned long long)j->m->geo.hc_mult);
    llmmem_status st = llmmem__kv_token_shape(&a, j->m, "the generate loop's cache");
    if (st)
        return st;
    /* the loop's tensors are those of one query-head count without a gate (step3p5's are not) */
    if (a->global_heads || llmmem__model_value(j->m, LLMMEM_KEY_HEAD_WISE_ATTN_GATE))
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "the generate loop of a model with full and sliding layers of different query heads or a "
                            "head-wise attention gate (%s) is not modelled: the weights, the contiguous cache and "
                            "vLLM serving are",
                            llmmem_choice_name(LLMMEM_KEY_MODEL_TYPE, llmmem__model_value(j->m, LLMMEM_KEY_MODEL_TYPE)));
    const llmmem__layout *L = &j->layout;
    if (L->t > 1 || L->p > 1 || L->c > 1 || L->e > 1)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "the generate loop (cache_implementation %s) is modelled on one device: tensor_parallel "
                            "(%llu), pipeline_parallel (%llu), context_parallel (%llu) and expert_parallel (%llu) "
                            "must be 1; framework megatron without max_new_tokens keeps the contiguous cache",
                            llmmem__cache_implementation_name(sem->cache),
                            (unsigned long long)L->t, (unsigned long long)L->p, (unsigned long long)L->c,
                            (unsigned long long)L->e);
    memset(out, 0, sizeof *out);
    /* generation/utils.py _expand_inputs_for_generation: beam search repeats each prompt (and its
     * mask) num_beams times; the model and the cache see batch x num_beams sequences */
    out->batch = j->sequences;
    out->beams = j->loop.beams;
    if (!llmmem__mul(&out->b, out->batch, out->beams))
        return overflow();
    out->s = j->tokens;
    /* max_new_tokens 0: the prompt's forward alone (generate with one new token runs no decode
     * step), a cache of sequence_length tokens per sequence */
    out->n = j->loop.max_new_tokens;
    if (out->n == 0)
        out->n = 1;
    out->h = a->hidden;
    out->layers = a->layers;
    out->a = a->heads;
    /* the heads the cache and repeat_kv see: MLA's decompressed keys and values have every head
     * (DeepseekV3Attention: num_key_value_groups 1), the geometry's kv_heads 1 is vLLM's latent */
    out->g = a->kv_token.heads;
    out->d = a->head_dim;
    out->dv = a->v_head_dim ? a->v_head_dim : a->head_dim;
    /* the MLP of the last layer: a dense one's width, else one routed expert's (below) */
    out->f = a->ffn;
    out->vocab = a->vocab;
    out->gated = llmmem__model_value(j->m, LLMMEM_KEY_MLP_GATED) != 0;
    const llmmem_kv_cache_dtype dt = llmmem__model_dtype(j->m);
    out->e = llmmem__kv_element_bytes(dt);
    if ((st = llmmem__kv_token_layer_bytes(&out->token_layer, a, j->kv, 1, 1)) != LLMMEM_OK)
        return st;
    out->sliding = llmmem__sliding_layers(a, 0, a->layers);
    out->full = a->layers - out->sliding;
    out->window = a->window;
    /* each family's modeling file: Gemma3TextModel computes rotary_emb's and rotary_emb_local's cos
     * and sin; GPT2Model looks its positions up in wpe (no rotary); GPT2Block keeps attn_output named
     * through the MLP; GPT2Config's gelu_new is activations.py NewGELUActivation, tensor arithmetic */
    const int64_t type = llmmem__model_value(j->m, LLMMEM_KEY_MODEL_TYPE);
    out->rotary = llmmem__model_value(j->m, LLMMEM_KEY_LEARNED_POSITIONS) ? 0 : type == LLMMEM_MODEL_GEMMA3_TEXT ? 2 : 1;
    out->keeps_attn_output = type == LLMMEM_MODEL_GPT2;
    out->gelu_ops = type == LLMMEM_MODEL_GPT2 && sem->act == LLMMEM_ACT_IMPL_EAGER && !out->gated;
    if (a->moe_layers && llmmem__layers_in(&a->plan, a->moe, a->layers - 1, a->layers)) {
        out->f = a->ffn_expert;
        out->experts = a->experts;
        out->top_k = a->experts_per_tok;
        out->grouped = sem->experts == LLMMEM_EXPERTS_GROUPED;
    }
    switch (sem->attn) {
    case LLMMEM_ATTN_SDPA: out->attn = LLMMEM__GEN_SDPA; break;
    case LLMMEM_ATTN_FLASH_ATTENTION_2:
    case LLMMEM_ATTN_FUSED: out->attn = LLMMEM__GEN_FLASH; break;
    default: out->attn = LLMMEM__GEN_EAGER; break; /* eager, and Megatron's core attention alike */
    }
    out->cache = sem->cache;
    out->keep = j->loop.logits_to_keep;
    out->torch1 = sem->torch1;
    /* aten/src/ATen/native/TopKImpl.h topk_impl_loop: the CPU kernel fills a std::vector of
     * (value, index) pairs over the whole row before its partial sort (one row at a time as
     * measured, b = 1 to 4 on two threads); CUDA's radix select holds a few counters */
    out->cpu_topk = sem->cpu_kernels || sem->torch1;
    /* aten/src/ATen/native/SoftMax.cpp softmax(input, dim, dtype): a CUDA half input with dtype
     * float runs _softmax(input, dim, half_to_float=true); anything else input.toType(dtype) first
     * (bf16 too, and every dtype on CPU, PyTorch 1.13 included) */
    out->softmax_copy = out->e != 4 && !(dt == LLMMEM_KV_CACHE_FP16 && !sem->torch1);
    return LLMMEM_OK;
}

/* ---- checked products and moments ----------------------------------------------------------- */

typedef struct builder {
    llmmem__gen_moment *m;
    int bad;
} builder;

static uint64_t mul(builder *B, uint64_t x, uint64_t y)
{
    return llmmem__mul_flag(&B->bad, x, y);
}

static uint64_t mul3(builder *B, uint64_t x, uint64_t y, uint64_t z)
{
    return mul(B, mul(B, x, y), z);
}

static uint64_t mul4(builder *B, uint64_t w, uint64_t x, uint64_t y, uint64_t z)
{
    return mul(B, mul3(B, w, x, y), z);
}

static uint64_t add(builder *B, uint64_t x, uint64_t y)
{
    return llmmem__add_flag(&B->bad, x, y);
}

static void start(builder *B, llmmem__gen_moment *m, int phase, int64_t layer, uint64_t step, const char *what)
{
    memset(m, 0, offsetof(llmmem__gen_moment, term));
    m->kv_cache = m->activations = m->logits = m->total = 0;
    m->phase = phase;
    m->layer = layer;
    m->step = step;
    m->what = what;
    B->m = m;
}

/* A tensor alive at the moment (0 bytes: not listed). */
static void term(builder *B, int component, const char *what, uint64_t bytes)
{
    llmmem__gen_moment *m = B->m;
    if (bytes == 0)
        return;
    if (m->terms == LLMMEM__GEN_TERMS) { /* never: every moment lists fewer */
        B->bad = 1;
        return;
    }
    m->term[m->terms++] = (llmmem__gen_term){what, bytes, component};
    uint64_t *c = component == LLMMEM_COMPONENT_KV_CACHE ? &m->kv_cache
                  : component == LLMMEM_COMPONENT_LOGITS ? &m->logits
                                                         : &m->activations;
    if (!llmmem__add(c, *c, bytes) || !llmmem__add(&m->total, m->total, bytes))
        B->bad = 1;
}

#define ACT LLMMEM_COMPONENT_ACTIVATIONS
#define KV LLMMEM_COMPONENT_KV_CACHE
#define LOGITS LLMMEM_COMPONENT_LOGITS

/* Keys and values of every layer at `tokens` tokens each, as many full layers as `full` of them on
 * the device (transformers cache_utils.py: DynamicLayer and StaticLayer keep every token, a sliding
 * layer min(window, tokens)). `prefill`: until its first decode update a dynamic cache's sliding layer
 * keeps the whole prompt (DynamicSlidingWindowLayer.update: its keys are a slice of the cat of the
 * prompt's, which backs them); a static one its window's slots. */
HOT_INLINE uint64_t caches(builder *B, const llmmem__gen_shape *g, uint64_t tokens, uint64_t full, int prefill)
{
    uint64_t all = mul(B, full, tokens);
    if (g->sliding) {
        const int whole = prefill && g->cache != LLMMEM_CACHE_STATIC;
        const uint64_t capped = whole || !g->window || g->window >= tokens ? tokens : g->window;
        if (!llmmem__muladd(&all, g->sliding, capped))
            B->bad = 1;
        /* DynamicSlidingWindowLayer.lazy_initialization: each keeps its window as an int64 on the device */
        if (g->cache != LLMMEM_CACHE_STATIC)
            return add(B, mul3(B, all, g->token_layer, g->b), 8 * g->sliding);
    }
    return mul3(B, all, g->token_layer, g->b);
}

/* Full layers whose caches are on the device: every one, or an offloaded cache's (cache_utils.py
 * Cache with offloading, OffloadedCache: update() prefetches the next full layer, layer_idx + 1,
 * circling back to the first, before it writes the current one, and offloads the current one
 * after; sliding layers stay): two inside the layers, the prefetched first one outside. */
static uint64_t device_full(const llmmem__gen_shape *g, int inside)
{
    if (g->cache != LLMMEM_CACHE_OFFLOADED)
        return g->full;
    uint64_t on = inside ? 2 : 1;
    return g->full < on ? g->full : on;
}

/* The additive or boolean mask [b, 1, q, T] the attention reads, 0 when none is built:
 * masking_utils.py eager_mask (additive, the dtype) for eager; sdpa_mask returns None for a
 * dynamic cache without padding (allow_is_causal_skip: is_causal for the prefill, nothing for
 * q = 1) and a bool mask for a static one (compileable: no skip); flash_attention_mask: none. */
static uint64_t mask_bytes(builder *B, const llmmem__gen_shape *g, uint64_t q, uint64_t T)
{
    if (g->attn == LLMMEM__GEN_EAGER)
        return mul4(B, g->e, g->b, q, T);
    if (g->attn == LLMMEM__GEN_SDPA && g->cache == LLMMEM_CACHE_STATIC)
        return mul3(B, g->b, q, T);
    return 0;
}

/* repeat_kv's copies of one layer's keys and values at T (modeling_llama.py repeat_kv: reshape of
 * an expand, a copy unless n_rep is 1 or there is one KV head, whose size-1 dim merges into a
 * stride-0 view): eager always, SDPA only with a mask (integrations/sdpa_attention.py
 * use_gqa_in_sdpa: torch >= 2.5 and no mask pass enable_gqa instead); flash never. */
static uint64_t copies(builder *B, const llmmem__gen_shape *g, uint64_t T)
{
    uint64_t r = g->a / g->g;
    int with = g->attn == LLMMEM__GEN_EAGER || (g->attn == LLMMEM__GEN_SDPA && g->cache == LLMMEM_CACHE_STATIC);
    if (!with || r <= 1 || g->g <= 1)
        return 0;
    return mul4(B, r, g->token_layer, g->b, T);
}

/* The scores at the softmax (eager_attention_forward): the masked scores in the dtype, softmax's
 * fp32 conversion of its input (softmax_copy) and its fp32 output. */
static uint64_t scores(builder *B, const llmmem__gen_shape *g, uint64_t q, uint64_t T)
{
    uint64_t per = g->e + 4 + (g->softmax_copy ? 4 : 0);
    return mul(B, per, mul4(B, g->b, g->a, q, T));
}

/* The sliding layers' own mask beside the full layers' (masking_utils.py
 * create_sliding_window_causal_mask): eager's additive one whenever both kinds exist; SDPA's bool
 * one over a prompt longer than the window (sdpa_mask skips it only when the window covers every
 * key: allow_is_causal_skip); a decode step's [b, 1, 1, window] is not counted. */
HOT_INLINE uint64_t sliding_mask_bytes(builder *B, const llmmem__gen_shape *g, uint64_t q, uint64_t T)
{
    if (g->cache == LLMMEM_CACHE_STATIC)
        return 0;
    if (g->attn == LLMMEM__GEN_EAGER)
        return g->full ? mul4(B, g->e, g->b, q, T) : 0;
    if (g->attn == LLMMEM__GEN_SDPA && q > 1 && g->window < T)
        return mul3(B, g->b, q, T);
    return 0;
}

/* The tensors of the model's forward every layer reads, q positions: the masks, inputs_embeds
 * (LlamaModel.forward keeps them referenced) and the rotary cos and sin [b, q, d], or a learned
 * table's positions [b, q, h] (GPT2Model.forward keeps position_embeds referenced; generate passes
 * a [b, q] position_ids). */
HOT_INLINE void forward_terms(builder *B, const llmmem__gen_shape *g, uint64_t q, uint64_t T, int mask_held)
{
    if (!mask_held)
        term(B, ACT, "causal mask [b,1,q,T]", mask_bytes(B, g, q, T));
    if (g->sliding)
        term(B, ACT, "the sliding layers' mask [b,1,q,T]", sliding_mask_bytes(B, g, q, T));
    term(B, ACT, "inputs_embeds e*b*q*h", mul4(B, g->e, g->b, q, g->h));
    if (g->rotary)
        term(B, ACT, g->rotary > 1 ? "rotary cos, sin of the global and local tables 4*e*b*q*d" : "rotary cos, sin 2*e*b*q*d",
             mul(B, 2 * g->rotary, mul4(B, g->e, g->b, q, g->d)));
    else
        term(B, ACT, "position_embeds e*b*q*h", mul4(B, g->e, g->b, q, g->h));
}

/* The last layer's MLP at its highest point over q positions of b sequences. A dense one (modeling_llama.py
 * LlamaMLP: act(gate) and up, their product; a two-matrix one: fc1's output and its activation;
 * NewGELUActivation's 0.5 * x * (1 + tanh(...)): x, 0.5 * x and two intermediates); routed experts under
 * integrations/moe.py grouped_mm_experts_forward, at `weighted_out[inv_perm]`: the router's logits
 * (OlmoeSparseMoeBlock returns them) and top-k indices and weights, the sort's expert ids and permutation
 * (int64), the sorted tokens, their weights and histc's int32 copy of the ids, the sentinel mask, the
 * down projection's output, its weighted copy and that copy in token order with the inverse permutation;
 * other experts as one routed expert's MLP over the tokens (their routing is not modelled). */
HOT_INLINE void mlp_terms(builder *B, const llmmem__gen_shape *g, uint64_t q)
{
    const uint64_t e = g->e, tokens = mul(B, g->b, q);
    if (g->experts && g->grouped) {
        const uint64_t S = mul(B, tokens, g->top_k), Sh = mul3(B, e, S, g->h);
        term(B, ACT, "router logits e*t*E, top-k indices 8*t*k and weights e*t*k",
             add(B, mul3(B, e, tokens, g->experts), mul3(B, 8 + e, tokens, g->top_k)));
        term(B, ACT, "sorted expert ids, permutation, inverse 24*S; weights e*S; int32 ids 4*S; mask S; counts 8*E",
             add(B, mul(B, 24 + e + 4 + 1, S), mul(B, 8, g->experts)));
        term(B, ACT, "sorted tokens, down projection, weighted, in token order 4*e*S*h", mul(B, 4, Sh));
        return;
    }
    const uint64_t tf = mul3(B, e, tokens, g->f);
    if (g->gated)
        term(B, ACT, "act(gate), up, their product 3*e*b*q*f", mul(B, 3, tf));
    else if (g->gelu_ops)
        term(B, ACT, "fc1 output, 0.5 * x and two of gelu_new's intermediates 4*e*b*q*f", mul(B, 4, tf));
    else
        term(B, ACT, "fc1 output, its activation 2*e*b*q*f", mul(B, 2, tf));
}

/* _beam_search's bookkeeping (generation/utils.py): `seqs` tensors of [batch, beams, s + n] int64
 * and `idx` of [batch, beams, n] int32 alive at the moment, counting a tensor of the step's
 * 2 x num_beams candidates (_get_top_k_continuations' topk_running_sequences and
 * topk_running_beam_indices, from _gather_beams) twice and _update_finished_beams' merge of the
 * finished ones with them (torch.cat) three times. During a forward: running_sequences and
 * sequences, running_beam_indices and beam_indices, and from step 1 on the previous step's topk
 * ones (the locals are rebound only when the step makes new ones). */
#define PREFILL_BOOKS "running and finished sequences 16*B*(s+n), their beam indices 8*B*n"
#define DECODE_BOOKS "running, finished and the last topk sequences 32*B*(s+n), beam indices 16*B*n"
static void beam_books(builder *B, const llmmem__gen_shape *g, const char *what, uint64_t seqs, uint64_t idx)
{
    term(B, ACT, what, add(B, mul3(B, 8 * seqs, g->b, g->s + g->n), mul3(B, 4 * idx, g->b, g->n)));
}

/* generate's own tensors during the prefill: the prompt, the 2D mask of ones, model_inputs'
 * cloned input_ids and position_ids (int64) and cache_position; a static cache's model_inputs
 * hold its 4D mask too (prepare_inputs_for_generation builds it for a compileable cache). */
static void prefill_held(builder *B, const llmmem__gen_shape *g, uint64_t T)
{
    if (g->beams > 1) {
        /* _expand_inputs_for_generation: the prompt repeat_interleave'd over the beams beside the
         * caller's, the 2D mask likewise; _beam_search's sequences and beam indices */
        term(B, ACT, "prompt 8*batch*s; expanded ids, 2D mask, input_ids and position_ids clones 32*B*s; "
                     "cache_position 8*s",
             add(B, add(B, mul3(B, 8, g->batch, g->s), mul3(B, 32, g->b, g->s)), mul(B, 8, g->s)));
        beam_books(B, g, PREFILL_BOOKS, 2, 2);
    } else
        term(B, ACT, "prompt, 2D mask, input_ids and position_ids clones 32*b*s + cache_position 8*s",
             add(B, mul(B, 32, mul(B, g->b, g->s)), mul(B, 8, g->s)));
    if (g->cache == LLMMEM_CACHE_STATIC)
        term(B, ACT, "model_inputs' 4D mask [b,1,s,T]", mask_bytes(B, g, g->s, T));
}

/* What the prefill holds at its moments (generation/utils.py _sample step 0; modeling_llama.py). */
static unsigned prefill_moment(builder *B, llmmem__gen_moment *m, const llmmem__gen_shape *g, unsigned i)
{
    const uint64_t b = g->b, s = g->s, e = g->e, h = g->h, a = g->a;
    /* a static cache is sized max_length - 1 and attention spans all of it (StaticLayer
     * get_mask_sizes); the dynamic one holds the prompt */
    const uint64_t T = g->cache == LLMMEM_CACHE_STATIC ? s + g->n - 1 : s;
    const int64_t last = (int64_t)g->layers - 1;
    const uint64_t kept = g->keep == 0 || g->keep > s ? s : g->keep;
    const int eager = g->attn == LLMMEM__GEN_EAGER;
    const int folds = eager && g->g == 1 && a > 1 && b > 1;
    /* the layers' common part: forward tensors, every layer's cache, the last layer's input */
    switch (i) {
    case 0: /* the last layer's attention */
        start(B, m, LLMMEM_PEAK_PHASE_PREFILL, last, 0,
              eager ? "the last layer's attention scores (softmax)" : "the last layer's attention output");
        break;
    case 1:
        start(B, m, LLMMEM_PEAK_PHASE_PREFILL, last, 0, "the last layer's MLP");
        break;
    case 2:
        start(B, m, LLMMEM_PEAK_PHASE_PREFILL, -1, 0, "the final norm");
        break;
    case 3:
        start(B, m, LLMMEM_PEAK_PHASE_PREFILL, -1, 0, "lm_head");
        break;
    case 4:
        if (g->beams > 1) /* beam search's own moments (beam_moment) */
            return 0;
        start(B, m, LLMMEM_PEAK_PHASE_PREFILL, -1, 0, "after the forward, before del outputs");
        break;
    case 5:
        if (!folds)
            return 0;
        start(B, m, LLMMEM_PEAK_PHASE_PREFILL, last, 0, "the last layer's probs @ v (the batch fold's copy of v)");
        break;
    default:
        return 0;
    }
    prefill_held(B, g, T);
    if (i <= 2 || i == 5)
        forward_terms(B, g, s, T, g->cache == LLMMEM_CACHE_STATIC);
    term(B, KV, i <= 2 || i == 5 ? "every layer's keys and values" : "the keys and values",
         caches(B, g, T, device_full(g, i <= 1 || i == 5), 1));
    const uint64_t bsh = mul4(B, e, b, s, h);
    if (i == 0 || i == 1 || i == 5)
        term(B, ACT, "the last layer's input e*b*s*h", g->layers > 1 ? bsh : 0);
    switch (i) {
    case 0:
        term(B, ACT, "input_layernorm's output e*b*s*h", bsh);
        term(B, ACT, "rotated q e*b*a*s*d", mul(B, mul4(B, e, b, a, s), g->d));
        if (eager) {
            term(B, ACT, "repeat_kv copies of k and v", copies(B, g, T));
            term(B, ACT, "scores (e + 4 + fp32 copy)*b*a*s*T", scores(B, g, s, T));
        } else {
            term(B, ACT, "repeat_kv copies of k and v", copies(B, g, T));
            /* the kernel's output and transpose(1, 2).contiguous()'s copy (sdpa_attention.py,
             * flash_attention.py); the fp32 log-sum-exp b*a*s is freed before the copy */
            term(B, ACT, "attention output and its contiguous copy 2*e*b*a*s*dv", mul(B, 2, mul(B, mul4(B, e, b, a, s), g->dv)));
        }
        break;
    case 1:
        /* eager_attention_forward returns the probabilities; the decoder layer binds them to `_`
         * until it returns (sdpa and flash return None) */
        term(B, ACT, "the attention probabilities e*b*a*s*T", eager ? mul(B, mul4(B, e, b, a, s), T) : 0);
        term(B, ACT, "residual sum, post-attention norm 2*e*b*s*h", mul(B, 2, bsh));
        if (g->keeps_attn_output)
            term(B, ACT, "the attention's output e*b*s*h", bsh);
        mlp_terms(B, g, s);
        break;
    case 2:
        term(B, ACT, "the last layer's output e*b*s*h", bsh);
        term(B, ACT, "RMSNorm's two fp32 working tensors 8*b*s*h", mul4(B, 8, b, s, h));
        break;
    case 3:
        term(B, ACT, "the final norm's output e*b*s*h", bsh);
        term(B, LOGITS, "logits of the kept positions e*b*k*V", mul4(B, e, b, kept, g->vocab));
        break;
    case 4:
        term(B, LOGITS, "logits of the kept positions e*b*k*V", mul4(B, e, b, kept, g->vocab));
        term(B, LOGITS, "next_token_logits in fp32 4*b*V", mul3(B, 4, b, g->vocab));
        term(B, ACT, "attention mask and input_ids grown by torch.cat 16*b*(s+1)", mul3(B, 16, b, s + 1));
        break;
    case 5:
        term(B, ACT, "input_layernorm's output e*b*s*h", bsh);
        term(B, ACT, "rotated q e*b*a*s*d", mul(B, mul4(B, e, b, a, s), g->d));
        term(B, ACT, "the fold's copy of v e*b*a*T*dv", mul(B, mul4(B, e, b, a, T), g->dv));
        term(B, ACT, "the probabilities e*b*a*s*T", mul(B, mul4(B, e, b, a, s), T));
        term(B, ACT, "the output e*b*a*s*dv", mul(B, mul4(B, e, b, a, s), g->dv));
        break;
    }
    return 1;
}

/* What the last decode step holds (T = s + n - 1, the longest cache; every step of a static cache
 * attends over the same T): generate's ids and masks grown by torch.cat, the previous step's fp32
 * next_token_logits, model_inputs' one-token ids and positions. */
static void decode_held(builder *B, const llmmem__gen_shape *g, uint64_t step, uint64_t T)
{
    if (g->beams > 1) {
        /* _beam_search: the expanded ids stay as they are (running_sequences carries the tokens),
         * the 2D mask grows by one a step; `logits` and the accumulated `log_probs` of the previous
         * step stay bound through this step's forward */
        const uint64_t mask = g->s + step;
        term(B, ACT, "prompt 8*batch*s and its expansion 8*B*s, 2D mask 8*B*(s+k), model_inputs 16*B + 8",
             add(B, add(B, add(B, mul3(B, 8, g->batch, g->s), mul3(B, 8, g->b, g->s)), mul3(B, 8, g->b, mask)),
                 mul(B, 16, g->b) + 8));
        term(B, LOGITS, "the previous step's fp32 logits and accumulated log-probs 8*B*V", mul3(B, 8, g->b, g->vocab));
        beam_books(B, g, DECODE_BOOKS, 4, 4);
        return;
    }
    term(B, ACT, "prompt 8*b*s, input_ids and 2D mask grown to T 16*b*T, model_inputs 16*b + 8",
         add(B, add(B, mul(B, 8, mul(B, g->b, g->s)), mul3(B, 16, g->b, T)), mul(B, 16, g->b) + 8));
    term(B, LOGITS, "the previous step's next_token_logits 4*b*V", mul3(B, 4, g->b, g->vocab));
}

static unsigned decode_moment(builder *B, llmmem__gen_moment *m, const llmmem__gen_shape *g, unsigned i, uint64_t step)
{
    const uint64_t b = g->b, s = g->s, e = g->e, h = g->h, a = g->a, n = step + 1;
    /* step k's cache holds s + k tokens after its update (a static one always s + n - 1) */
    const uint64_t T = g->cache == LLMMEM_CACHE_STATIC ? s + g->n - 1 : s + step;
    const int64_t last = (int64_t)g->layers - 1;
    const int eager = g->attn == LLMMEM__GEN_EAGER;
    const int dynamic = g->cache != LLMMEM_CACHE_STATIC;
    if (step < 1 || step >= g->n)
        return 0; /* no such decode step */
    switch (i) {
    case 0:
        start(B, m, LLMMEM_PEAK_PHASE_DECODE, last, n - 1,
              eager ? "the step's attention scores (softmax)" : "the step's attention output");
        break;
    case 1:
        start(B, m, LLMMEM_PEAK_PHASE_DECODE, last, n - 1, "the step's MLP");
        break;
    case 2:
        if (!(eager && g->g == 1 && a > 1 && b > 1))
            return 0;
        start(B, m, LLMMEM_PEAK_PHASE_DECODE, last, n - 1, "the step's probs @ v (the batch fold's copy of v)");
        break;
    case 3:
        if (!dynamic)
            return 0;
        start(B, m, LLMMEM_PEAK_PHASE_DECODE, last, n - 1, "the step's cache update (torch.cat of the values)");
        break;
    case 4:
        if (g->beams > 1) /* beam search's own moments (beam_moment) */
            return 0;
        start(B, m, LLMMEM_PEAK_PHASE_DECODE, -1, n - 1, "the step after the forward, before del outputs");
        break;
    case 5: {
        /* a static cache: step 1's prepare_inputs_for_generation while the prefill's model_inputs,
         * with its 4D [b, 1, s, T] mask, are still bound */
        uint64_t mask = mask_bytes(B, g, s, T);
        if (dynamic || mask == 0 || step != 1)
            return 0;
        start(B, m, LLMMEM_PEAK_PHASE_DECODE, -1, 1, "step 1's prepare_inputs, the prefill's 4D mask still held");
        if (g->beams > 1) {
            term(B, ACT, "prompt 8*batch*s and its expansion 8*B*s, 2D mask grown by one 8*B*(s+1)",
                 add(B, add(B, mul3(B, 8, g->batch, s), mul3(B, 8, b, s)), mul3(B, 8, b, s + 1)));
            term(B, LOGITS, "the prefill's fp32 logits and accumulated log-probs 8*B*V", mul3(B, 8, b, g->vocab));
            beam_books(B, g, DECODE_BOOKS, 4, 4);
        } else {
            term(B, ACT, "prompt 8*b*s, input_ids and 2D mask grown by one 16*b*(s+1)",
                 add(B, mul(B, 8, mul(B, b, s)), mul3(B, 16, b, s + 1)));
            term(B, LOGITS, "the prefill's next_token_logits 4*b*V", mul3(B, 4, b, g->vocab));
        }
        term(B, ACT, "the prefill's model_inputs: 4D mask, ids, positions 16*b*s, cache_position 8*s",
             add(B, add(B, mask, mul3(B, 16, b, s)), mul(B, 8, s)));
        term(B, KV, "every layer's keys and values", caches(B, g, T, g->full, 0));
        /* attention_mask.long().cumsum(-1) - 1 (16*b*(s+1)); in torch 1.13, StaticLayer's
         * get_seq_length any() casts the first [T, d] keys to bool first */
        uint64_t work = mul3(B, 16, b, s + 1), any = g->torch1 ? mul(B, T, g->d) : 0;
        term(B, ACT, any > work ? "get_seq_length's bool copy of [T, d] keys" : "position ids: cumsum and minus 1 16*b*(s+1)",
             any > work ? any : work);
        return 1;
    }
    default:
        return 0;
    }
    decode_held(B, g, step, T);
    if (i == 4) {
        term(B, KV, "the keys and values", caches(B, g, T, device_full(g, 0), 0));
        term(B, LOGITS, "logits e*b*V", mul3(B, e, b, g->vocab));
        term(B, LOGITS, "this step's next_token_logits in fp32 4*b*V", mul3(B, 4, b, g->vocab));
        return 1;
    }
    forward_terms(B, g, 1, T, 0);
    term(B, KV, "every layer's keys and values at T", caches(B, g, T, device_full(g, 1), 0));
    term(B, ACT, g->layers > 1 ? "the layer's input and its norm 2*e*b*h" : "the layer's normed input e*b*h",
         mul4(B, e, b, h, g->layers > 1 ? 2 : 1));
    switch (i) {
    case 0:
        term(B, ACT, "rotated q e*b*a*d", mul4(B, e, b, a, g->d));
        term(B, ACT, "repeat_kv copies of the layer's keys and values", copies(B, g, T));
        if (eager)
            term(B, ACT, "scores (e + 4 + fp32 copy)*b*a*T", scores(B, g, 1, T));
        else
            term(B, ACT, "attention output and its contiguous copy 2*e*b*a*dv", mul(B, 2, mul4(B, e, b, a, g->dv)));
        break;
    case 1:
        term(B, ACT, "the attention probabilities e*b*a*T", eager ? mul4(B, e, b, a, T) : 0);
        term(B, ACT, "residual sum, post-attention norm 2*e*b*h", mul4(B, 2, e, b, h));
        if (g->keeps_attn_output)
            term(B, ACT, "the attention's output e*b*h", mul3(B, e, b, h));
        mlp_terms(B, g, 1);
        break;
    case 2:
        term(B, ACT, "rotated q e*b*a*d", mul4(B, e, b, a, g->d));
        term(B, ACT, "the fold's copy of v e*b*a*T*dv", mul(B, mul4(B, e, b, a, T), g->dv));
        term(B, ACT, "the probabilities e*b*a*T", mul4(B, e, b, a, T));
        term(B, ACT, "the output e*b*a*dv", mul4(B, e, b, a, g->dv));
        break;
    case 3:
        /* cache_utils.py DynamicLayer.update: torch.cat([self.values, value_states], dim=-2)
         * makes the grown values while the old ones are alive */
        term(B, ACT, "rotated q e*b*a*d", mul4(B, e, b, a, g->d));
        term(B, KV, "the old values beside the new", mul3(B, g->token_layer / 2, b, T - 1));
        term(B, ACT, "this step's rotated k and v", mul(B, g->token_layer, b));
        break;
    }
    return 1;
}

/* ---- beam search's moments after the forward (generation/utils.py _beam_search) ------------- */

/* What beam search holds after a step's forward besides its logits and bookkeeping, T the cache's
 * length then: the prompt and its expansion, the 2D mask grown by torch.cat
 * (_update_model_kwargs_for_generation) beside model_inputs' mask (the 2D one, or a static
 * cache's 4D one), model_inputs' ids, positions and cache_position, and the caches (an offloaded
 * cache: the first full layer, prefetched). */
static void beam_after(builder *B, const llmmem__gen_shape *g, uint64_t step, uint64_t T)
{
    const uint64_t b = g->b, s = g->s, q = step ? 1 : s, mask = s + step;
    term(B, ACT, "prompt 8*batch*s and its expansion over the beams 8*B*s",
         add(B, mul3(B, 8, g->batch, s), mul3(B, 8, b, s)));
    term(B, ACT, "the 2D mask grown by torch.cat 8*B*(s+k+1)", mul3(B, 8, b, mask + 1));
    if (g->cache == LLMMEM_CACHE_STATIC)
        term(B, ACT, "model_inputs' 4D mask [B,1,q,T]", mask_bytes(B, g, q, T));
    else
        term(B, ACT, "model_inputs' 2D mask 8*B*(s+k)", mul3(B, 8, b, mask));
    term(B, ACT, "model_inputs' input_ids and position_ids 16*B*q, cache_position 8*q",
         add(B, mul3(B, 16, b, q), mul(B, 8, q)));
    term(B, KV, "the keys and values", caches(B, g, T, device_full(g, 0), step == 0));
}

/* The widest of one layer's keys and values on the device at T (a sliding layer's min(window, T)
 * when no full layer is there): cache_utils.py CacheLayerMixin.reorder_cache replaces the keys by
 * keys.index_select(0, beam_idx), then the values likewise, so the copy of one of them is alive
 * beside the whole cache; Cache.reorder_cache goes layer by layer. */
static uint64_t layer_keys(builder *B, const llmmem__gen_shape *g, uint64_t T)
{
    const uint64_t tokens = device_full(g, 0) ? T : g->window && g->window < T ? g->window : T;
    const uint64_t wide = g->d > g->dv ? g->d : g->dv;
    return mul3(B, mul(B, g->token_layer, wide) / (g->d + g->dv), g->b, tokens);
}

/* Beam search after step `step`'s forward (_beam_search's loop body): the fp32 logits and their
 * log_softmax; ATen's CPU topk over num_beams x V candidates; _update_finished_beams' merge; the
 * cache reorder. Its last step is the peak of each (the cache is longest, the rest constant). */
static unsigned beam_moment(builder *B, llmmem__gen_moment *m, const llmmem__gen_shape *g, unsigned i, uint64_t step)
{
    const uint64_t b = g->b, V = g->vocab;
    const uint64_t T = g->cache == LLMMEM_CACHE_STATIC ? g->s + g->n - 1 : g->s + step;
    const int phase = step ? LLMMEM_PEAK_PHASE_DECODE : LLMMEM_PEAK_PHASE_PREFILL;
    const char *books = step ? DECODE_BOOKS : PREFILL_BOOKS;
    const uint64_t held = step ? 4 : 2;
    if (g->beams < 2 || step >= g->n)
        return 0;
    switch (i) {
    case 0: {
        /* `logits = model_outputs.logits[:, -1, :].to(copy=True, dtype=float32)` (the previous
         * step's freed as the name is rebound), log_softmax of it while the model's logits and
         * the previous step's accumulated log_probs are alive; the sum with running_beam_scores
         * that follows holds as much once the model's logits are deleted */
        const uint64_t kept = step ? 1 : g->keep == 0 || g->keep > g->s ? g->s : g->keep;
        start(B, m, phase, -1, step, "beam search's log_softmax of the fp32 logits, before del model_outputs");
        beam_after(B, g, step, T);
        beam_books(B, g, books, held, held);
        term(B, LOGITS, "logits of the kept positions e*B*k*V", mul4(B, g->e, b, kept, V));
        term(B, LOGITS,
             step ? "fp32 logits, their log_softmax, the previous step's accumulated log-probs 12*B*V"
                  : "fp32 logits and their log_softmax 8*B*V",
             mul3(B, step ? 12 : 8, b, V));
        return 1;
    }
    case 1:
        /* _get_top_k_continuations: torch.topk(log_probs [batch, beams x V], k = 2 x beams); on
         * CPU the kernel's queue of (fp32 value, int64 index) pairs, 16 bytes a candidate */
        if (!g->cpu_topk)
            return 0;
        start(B, m, phase, -1, step, "beam search's topk over num_beams x V (ATen's CPU queue)");
        beam_after(B, g, step, T);
        beam_books(B, g, books, held, held);
        term(B, LOGITS, "fp32 logits and accumulated log-probs 8*B*V", mul3(B, 8, b, V));
        term(B, LOGITS, "topk's (value, index) queue over a row 16*beams*V", mul3(B, 16, g->beams, V));
        return 1;
    case 2:
        /* _update_finished_beams' last gather: merged_sequences (finished and topk, 3 x beams)
         * and their gathered beams beside the old finished ones, this step's topk and the new
         * running_sequences (_get_running_beams_for_next_iteration) beside the old ones, which
         * flat_running_sequences (a view) keeps until the next step; from step 1 on the beam_idx
         * view of the reorder keeps the previous running_beam_indices too */
        start(B, m, phase, -1, step, "_update_finished_beams: the merged beams gathered");
        beam_after(B, g, step, T);
        term(B, LOGITS, "fp32 logits and accumulated log-probs 8*B*V", mul3(B, 8, b, V));
        beam_books(B, g,
                   step ? "sequences: running (old, new), finished (old, new), topk, merged 72*B*(s+n); "
                          "beam indices 36*B*n"
                        : "sequences: running (old, new), finished (old, new), topk, merged 72*B*(s+n); "
                          "beam indices 32*B*n",
                   9, step ? 9 : 8);
        return 1;
    case 3:
        /* the reorder (_beam_search step g: past_key_values.reorder_cache(beam_idx)) after the
         * merge's tensors are freed */
        start(B, m, phase, -1, step, "the cache reorder (index_select of one layer's keys)");
        beam_after(B, g, step, T);
        term(B, LOGITS, "fp32 logits and accumulated log-probs 8*B*V", mul3(B, 8, b, V));
        beam_books(B, g, "sequences: running (old, new), finished, topk 40*B*(s+n); beam indices 16*B*n", 5, 4);
        term(B, KV, "the reordered copy of one layer's keys", layer_keys(B, g, T));
        return 1;
    default:
        return 0;
    }
}

/* Moment i of step `step` (0: the prefill): the forward's and generate's first, beam search's last. */
static unsigned moment(builder *B, llmmem__gen_moment *m, const llmmem__gen_shape *g, unsigned i, uint64_t step)
{
    if (i >= 6)
        return beam_moment(B, m, g, i - 6, step);
    return step == 0 ? prefill_moment(B, m, g, i) : decode_moment(B, m, g, i, step);
}

llmmem_status llmmem__generate_step_moments(llmmem__gen_moment out[LLMMEM__GEN_STEP_MOMENTS], unsigned *count,
                                            const llmmem__gen_shape *g, uint64_t step)
{
    builder B = {NULL, 0};
    unsigned n = 0;
    for (unsigned i = 0; i < LLMMEM__GEN_STEP_MOMENTS; i++)
        n += moment(&B, &out[n], g, i, step);
    *count = n;
    return B.bad ? overflow() : LLMMEM_OK;
}

llmmem_status llmmem__generate_moments(llmmem__gen_moment out[LLMMEM__GEN_MOMENTS], unsigned *count,
                                       const llmmem__gen_shape *g)
{
    unsigned first = 0, last = 0;
    llmmem_status st = llmmem__generate_step_moments(out, &first, g, 0);
    if (st == LLMMEM_OK && g->n > 1)
        st = llmmem__generate_step_moments(out + first, &last, g, g->n - 1);
    *count = first + last;
    return st;
}

llmmem_status llmmem__generate_peak(llmmem__gen_moment *peak, const llmmem__gen_shape *g)
{
    builder B = {NULL, 0};
    llmmem__gen_moment cur;
    int have = 0;
    const unsigned S = LLMMEM__GEN_STEP_MOMENTS;
    /* the prefill's moments, the last decode step's, and a static cache's step 1 (decode moment 5) */
    for (unsigned i = 0; i <= 2 * S; i++) {
        if (i >= S && i < 2 * S && g->n < 2)
            continue;
        unsigned made = i < S ? moment(&B, &cur, g, i, 0) : i < 2 * S ? moment(&B, &cur, g, i - S, g->n - 1)
                                                                       : moment(&B, &cur, g, 5, 1);
        if (made && (!have || cur.total > peak->total)) {
            *peak = cur;
            have = 1;
        }
    }
    return B.bad ? overflow() : LLMMEM_OK;
}

llmmem_status llmmem__generate_host_cache(uint64_t *out, const llmmem__gen_shape *g)
{
    builder B = {NULL, 0};
    *out = caches(&B, g, g->s + g->n - 1, g->full, 0);
    return B.bad ? overflow() : LLMMEM_OK;
}
