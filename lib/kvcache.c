/*
 * KV cache bytes, vLLM-style paged blocks and serving capacity.
 *
 * Two layouts of the same keys and values:
 *   - paged, as vLLM v1 allocates it: a page is one layer's cache of block_size tokens
 *     (vllm/v1/kv_cache_interface.py AttentionSpec / MLAAttentionSpec page_size_bytes), layers are
 *     grouped so that every group has the same page size (vllm/v1/core/kv_cache_utils.py
 *     get_kv_cache_groups), and the memory left after weights, the profiled activation peak and
 *     non-torch allocations is cut into num_blocks = available // page // layers_per_group blocks
 *     (kv_cache_utils.py get_num_blocks);
 *   - contiguous, as Hugging Face generate allocates it: batch x context for every layer
 *     (transformers cache_utils.py DynamicCache / StaticCache).
 * Everything is integer and checked; gpu_memory_utilization is the one real, applied once the way
 * vLLM applies it (math.ceil(total * utilization) in double precision). No allocation, no I/O.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvcache.h"
#include "parallel.h"
#include "text.h"
#include "training.h"

/* The settings arrays hold a slot per key number modulo 1000 (internal.h). */
_Static_assert(LLMMEM_KEY_DISABLE_HYBRID_KV_CACHE_MANAGER % 1000 < LLMMEM_SLOTS, "serving keys need a settings slot");

#define MAX_STAGES 256 /* pipeline stages a serving result holds */
#define SERVING_VALUES (LLMMEM_SERVING_FITS + 1)

struct llmmem_serving {
    int valid;
    char model_name[LLMMEM_NAME_MAX];
    char hardware_name[LLMMEM_NAME_MAX];
    uint64_t v[SERVING_VALUES];
    llmmem_kv_cache_dtype dtype; /* resolved (never auto) */
    uint64_t tp, pp;
    /* what the questions need, captured by llmmem_serving_estimate */
    uint64_t block, window, batched, max_model_len;
    uint64_t full_groups, sliding_groups;
    uint64_t page;                /* one layer, one block, one rank */
    uint64_t token_layer;         /* paged bytes of one token in one layer on one rank */
    uint64_t contig_token_layer;  /* Hugging Face layout: bytes of one token in one layer on one rank */
    uint64_t num_blocks;
    uint64_t binding;             /* the stage whose block count is the smallest */
    uint64_t prefix, prompt, n;
    int prefix_caching;
    uint64_t stage_budget[MAX_STAGES];
    uint64_t stage_full[MAX_STAGES], stage_sliding[MAX_STAGES]; /* as the paged groups hold them */
    uint64_t stage_group[MAX_STAGES];  /* layers per group */
    uint64_t stage_hf_sliding[MAX_STAGES]; /* sliding layers a contiguous cache caps at the window */
};

static const char *const value_names[SERVING_VALUES] = {
    "memory_bytes",      "requested_bytes",  "weights",           "activation_peak",
    "non_torch",         "cuda_graph",       "kv_cache_bytes",    "shortfall",
    "bytes_per_token",   "page_bytes",       "block_bytes",       "num_blocks",
    "tokens",            "groups",           "layers_per_group",  "kv_heads_per_rank",
    "layers_per_stage",  "block_size",       "max_num_batched_tokens", "max_num_seqs",
    "max_model_len_setting", "max_model_len", "request_tokens",   "blocks_per_request",
    "waste_bytes",       "max_concurrency",  "vllm_concurrency_x100", "fits",
};

/* ---- model shapes --------------------------------------------------------- */

static uint64_t mv(const llmmem_model *m, llmmem_key key)
{
    return (uint64_t)llmmem__model_value(m, key);
}

static int64_t sv(const llmmem_strategy *s, llmmem_key key)
{
    return llmmem__get_int(&s->s, key);
}

static llmmem_status overflow(const char *what)
{
    return llmmem__fail(LLMMEM_ERR_OVERFLOW, "%s exceeds 64 bits", what);
}

/* The shapes the cache depends on (the model's geometry, arch.c); fails for an incomplete model or
 * one given by count alone. */
static llmmem_status shape_of(const llmmem__geometry **a, const llmmem_model *m)
{
    llmmem_status st = llmmem__model_check(m);
    if (st)
        return st;
    if (mv(m, LLMMEM_KEY_NUM_PARAMETERS))
        return llmmem__fail(LLMMEM_ERR_INCOMPLETE,
                            "the KV cache needs the model's shapes; a model given by num_parameters (%llu) "
                            "alone has none",
                            (unsigned long long)mv(m, LLMMEM_KEY_NUM_PARAMETERS));
    *a = &m->geo;
    return LLMMEM_OK;
}

/* The storage format of a cache element (formats.c owns its bytes); the fp8 and int8 modes store
 * one byte an element, their scales are the cache's own (token_layer_bytes). */
static llmmem_format kv_format(llmmem_kv_cache_dtype d)
{
    switch (d) {
    case LLMMEM_KV_CACHE_FP32: return LLMMEM_FORMAT_FP32;
    case LLMMEM_KV_CACHE_FP16: return LLMMEM_FORMAT_FP16;
    case LLMMEM_KV_CACHE_BF16: return LLMMEM_FORMAT_BF16;
    case LLMMEM_KV_CACHE_NVFP4: return LLMMEM_FORMAT_NVFP4;
    case LLMMEM_KV_CACHE_INT8_PER_TOKEN_HEAD: return LLMMEM_FORMAT_INT8;
    case LLMMEM_KV_CACHE_FP8_E5M2: return LLMMEM_FORMAT_FP8_E5M2;
    default: return LLMMEM_FORMAT_FP8_E4M3; /* fp8, fp8_e4m3, fp8_per_token_head, fp8_ds_mla's latent */
    }
}

static uint64_t element_bytes(llmmem_kv_cache_dtype d)
{
    return llmmem__format_element_bits(kv_format(d)) / 8u;
}

static const char *dtype_name(llmmem_kv_cache_dtype d)
{
    const char *name = llmmem_choice_name(LLMMEM_KEY_KV_CACHE_DTYPE, d);
    return name ? name : "?";
}

/* Heads of a cache one tensor-parallel rank stores: vllm/config/model.py get_num_kv_heads,
 * max(1, g // tp) (heads replicated when there are fewer than ranks); MLA's latent is one head
 * on every rank (geometry kv_heads 1). */
static uint64_t rank_heads(uint64_t heads, uint64_t tp)
{
    return heads / tp > 0 ? heads / tp : 1;
}

static uint64_t heads_per_rank(const llmmem__geometry *a, uint64_t tp)
{
    return rank_heads(a->kv_heads, tp);
}

/* Bytes one token adds to one layer's cache on one rank, its vectors stored in d (formats.c). */
static llmmem_status token_vectors_bytes(uint64_t *out, const llmmem__kv_token *k, llmmem_kv_cache_dtype d,
                                         uint64_t tp)
{
    uint64_t vectors;
    if (!llmmem__mul(&vectors, rank_heads(k->heads, tp), k->vectors))
        return overflow("KV bytes per token");
    if (d == LLMMEM_KV_CACHE_NVFP4) {
        /* vLLM sizes the page by torch_utils.py nvfp4_kv_cache_full_dim, head_size // 2 bytes of E2M1
         * + head_size // 16 fp8 scales (floors), not by whole blocks: its allocation is the rule */
        if (!llmmem__mul(out, vectors, k->width / 2 + k->width / 16))
            return overflow("KV bytes per token");
        return LLMMEM_OK;
    }
    if (!llmmem__format_vector_bytes(out, kv_format(d), vectors, k->width))
        return overflow("KV bytes per token");
    return LLMMEM_OK;
}

/* An MLA model's bytes per token and layer on one rank: vLLM's latent, or (contiguous) the
 * decompressed keys and values of transformers' DeepseekV3Attention. */
static llmmem_status mla_token_layer_bytes(uint64_t *out, const llmmem__geometry *a, llmmem_kv_cache_dtype d,
                                           uint64_t tp, int contiguous)
{
    if (d == LLMMEM_KV_CACHE_INT8_PER_TOKEN_HEAD || d == LLMMEM_KV_CACHE_FP8_PER_TOKEN_HEAD ||
        d == LLMMEM_KV_CACHE_NVFP4)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "kv_cache_dtype (%s) is not modelled for an MLA model (kv_lora_rank %llu); "
                            "use auto, fp32, fp16, bf16, fp8 or fp8_ds_mla",
                            dtype_name(d), (unsigned long long)a->kv_lora_rank);
    if (contiguous) {
        if (d == LLMMEM_KV_CACHE_FP8_DS_MLA)
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                                "kv_cache_dtype (fp8_ds_mla) is vLLM's paged MLA layout; a contiguous "
                                "(Hugging Face) cache stores decompressed keys and values");
        /* transformers DeepseekV3Attention.forward: past_key_values.update gets key_states of
         * heads x (qk_nope + qk_rope) and value_states of heads x v_head_dim */
        return token_vectors_bytes(out, &a->kv_token, d, tp);
    }
    if (d == LLMMEM_KV_CACHE_FP8_DS_MLA) {
        /* vllm/v1/kv_cache_interface.py MLAAttentionSpec.real_page_size_bytes: 656 B per token
         * (v1/attention/backends/mla/flashmla_sparse.py: fp8 latent, an fp32 scale per 128 of it,
         * bf16 rope: 512 + 16 + 128 for DeepSeek) */
        *out = a->kv_lora_rank + llmmem__ceil_div(a->kv_lora_rank, 128) * 4 + a->qk_rope_head_dim * 2;
        return LLMMEM_OK;
    }
    /* vllm/v1/kv_cache_interface.py MLAAttentionSpec: block x 1 head x (kv_lora_rank +
     * qk_rope_head_dim) x dtype: the latent alone, no factor 2 for K and V */
    return token_vectors_bytes(out, &a->kv_latent, d, tp);
}

/* Bytes one token takes in one layer of vLLM's paged cache on one rank. `contiguous` asks for the
 * Hugging Face layout instead, which differs only for MLA. */
static llmmem_status token_layer_bytes(uint64_t *out, const llmmem__geometry *a, llmmem_kv_cache_dtype d,
                                       uint64_t tp, int contiguous)
{
    if (a->kv_lora_rank)
        return mla_token_layer_bytes(out, a, d, tp, contiguous);
    if (d == LLMMEM_KV_CACHE_FP8_DS_MLA)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "kv_cache_dtype (fp8_ds_mla) needs an MLA model; kv_lora_rank is 0");
    /* kv_cache_interface.py AttentionSpec.real_page_size_bytes: 2 (K, V) x kv_heads x head_size x dtype
     * per token, i.e. 2 * block * kv_heads * head_size * dtype per page (Kwon et al. 2023 §4.1); nvfp4
     * (FullAttentionSpec with torch_utils.py nvfp4_kv_cache_full_dim): E2M1 and an fp8 scale per 16 */
    llmmem_status st = token_vectors_bytes(out, &a->kv_token, d, tp);
    if (st == LLMMEM_OK && (d == LLMMEM_KV_CACHE_INT8_PER_TOKEN_HEAD || d == LLMMEM_KV_CACHE_FP8_PER_TOKEN_HEAD)) {
        /* AttentionSpec.page_size_bytes: per-token-head modes add 2 * block * kv_heads * 4 B of fp32 scales */
        if (!llmmem__muladd(out, heads_per_rank(a, tp), 2 * 4))
            return overflow("KV bytes per token");
    }
    return st;
}

/* ---- parallel layout ------------------------------------------------------- */

/* Decoder layers of pipeline stage `stage`: vllm/distributed/utils.py get_pp_indices gives every
 * stage layers // pp and the remainder one each to the stages before the last, counted back from it. */
static void stage_range(uint64_t *first, uint64_t *end, uint64_t layers, uint64_t pp, uint64_t stage)
{
    uint64_t base = layers / pp, rem = layers % pp, start = 0;
    *first = *end = 0;
    for (uint64_t s = 0; s <= stage; s++) {
        uint64_t n = base + (rem && s + 1 < pp && s + 1 + rem >= pp);
        if (s == stage) {
            *first = start;
            *end = start + n;
            return;
        }
        start += n;
    }
}

static llmmem_status check_parallel(const llmmem__geometry *a, uint64_t tp, uint64_t pp)
{
    /* vLLM splits query heads evenly (ModelConfig.verify_with_parallel_config) and KV heads by
     * QKVParallelLinear: divisible by tp, or replicated when tp is a multiple of them */
    if (a->heads % tp)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "num_attention_heads (%llu) is not divisible by tensor_parallel (%llu)",
                            (unsigned long long)a->heads, (unsigned long long)tp);
    if (!a->kv_lora_rank && ((a->kv_heads >= tp && a->kv_heads % tp) || (a->kv_heads < tp && tp % a->kv_heads)))
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "num_key_value_heads (%llu) and tensor_parallel (%llu): one must divide the other",
                            (unsigned long long)a->kv_heads, (unsigned long long)tp);
    if (pp > a->layers)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "pipeline_parallel (%llu) exceeds num_hidden_layers (%llu)",
                            (unsigned long long)pp, (unsigned long long)a->layers);
    if (pp > MAX_STAGES)
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "pipeline_parallel (%llu) exceeds %d",
                            (unsigned long long)pp, MAX_STAGES);
    return LLMMEM_OK;
}

/* ---- KV cache groups ------------------------------------------------------------ */

/* How vLLM groups the layers (kv_cache_utils.py get_kv_cache_groups):
 *   - one spec for every layer (all full attention, all sliding window, or a hybrid model with
 *     --disable-hybrid-kv-cache-manager, whose sliding layers then become full attention,
 *     unify_hybrid_kv_cache_specs): one group of all layers;
 *   - full and sliding layers (_get_kv_cache_groups_uniform_page_size): groups of group_size layers,
 *     group_size the smaller type's count, or the larger one's when it is under 1.5 times the
 *     smaller; each type split into ceil(count / group_size) groups. */
typedef struct kv_groups {
    uint64_t full_groups, sliding_groups;
    uint64_t full, sliding; /* layers of each type the groups hold (sliding 0 when unified) */
} kv_groups;

static kv_groups groups_of(const llmmem__geometry *a, int hybrid_disabled)
{
    kv_groups g = {0, 0, 0, 0};
    uint64_t sliding = llmmem__sliding_layers(a, 0, a->layers), full = a->layers - sliding;
    if (sliding == 0 || (full > 0 && hybrid_disabled)) {
        g.full_groups = 1;
        g.full = a->layers;
    } else if (full == 0) {
        g.sliding_groups = 1;
        g.sliding = a->layers;
    } else {
        uint64_t lo = full < sliding ? full : sliding, hi = full < sliding ? sliding : full;
        uint64_t size = 2 * hi < 3 * lo ? hi : lo;
        g.full_groups = llmmem__ceil_div(full, size);
        g.sliding_groups = llmmem__ceil_div(sliding, size);
        g.full = full;
        g.sliding = sliding;
    }
    return g;
}

/* Layers per group on the stage [first, end) (vLLM projects the global groups onto each worker,
 * _project_kv_cache_groups_to_worker; a group's i-th layers are layers[i::num_groups] of its type,
 * so a contiguous run of n layers of a type fills its groups with at most ceil(n / groups)). */
static uint64_t group_layers_in(const llmmem__geometry *a, const kv_groups *g, uint64_t first, uint64_t end)
{
    if (g->sliding == 0 || g->full == 0)
        return end - first;
    uint64_t sl = llmmem__sliding_layers(a, first, end), fl = (end - first) - sl;
    uint64_t x = llmmem__ceil_div(fl, g->full_groups), y = llmmem__ceil_div(sl, g->sliding_groups);
    return x > y ? x : y;
}

/* Blocks one sequence of `tokens` tokens needs from the pool, summed over the groups
 * (kv_cache_utils.py get_max_concurrency_for_kv_cache_config / max_memory_usage_bytes):
 * full attention cdiv(tokens, block) (FullAttentionSpec.max_memory_usage_bytes); sliding window
 * cdiv(min(window - 1 + max_num_batched_tokens, tokens), block) + 1 (SlidingWindowSpec: the window
 * need not start at a block boundary). */
static int blocks_for(uint64_t *out, const llmmem_serving *r, uint64_t tokens)
{
    uint64_t need = 0, sw = r->window - 1 + r->batched;
    if (sw > tokens)
        sw = tokens;
    if (!llmmem__muladd(&need, r->full_groups, llmmem__ceil_div(tokens, r->block)) ||
        !llmmem__muladd(&need, r->sliding_groups, llmmem__ceil_div(sw, r->block) + 1))
        return 0;
    *out = need;
    return 1;
}

/* Internal waste of one sequence of `tokens`: the bytes its blocks hold but its tokens do not fill,
 * the last partial block of each group (a sliding group counts the min(window - 1 +
 * max_num_batched_tokens, tokens) tokens vLLM sizes it for, so its spare block is waste too). */
static int waste_for(uint64_t *out, const llmmem_serving *r, uint64_t tokens)
{
    uint64_t sw = r->window - 1 + r->batched, slots = 0, x;
    if (sw > tokens)
        sw = tokens;
    uint64_t full_gap = llmmem__ceil_div(tokens, r->block) * r->block - tokens;
    uint64_t sliding_gap = (llmmem__ceil_div(sw, r->block) + 1) * r->block - sw;
    if (!llmmem__muladd(&slots, r->full_groups, full_gap) || !llmmem__muladd(&slots, r->sliding_groups, sliding_gap) ||
        !llmmem__mul(&x, slots, r->token_layer) || !llmmem__mul(&x, x, r->stage_group[r->binding]))
        return 0;
    *out = x;
    return 1;
}

/* ---- weights and activations of one rank ------------------------------------------ */


/* Weights of one rank of a serving stage: the classes split over tensor parallelism as
 * parallel.c splits them (vLLM's QKVParallelLinear replicates K and V heads below one per rank; a
 * tied embedding also sits on the last stage, LlamaModel builds it there to serve as the LM head). */
static llmmem_status stage_weights(uint64_t *out, const llmmem_model *m, const llmmem_strategy *s, uint64_t tp,
                                   uint64_t pp, uint64_t first, uint64_t end, int first_stage, int last_stage)
{
    if (tp == 1 && pp == 1)
        return llmmem__weight_bytes(out, m, s); /* the estimate's own weights, a checkpoint's included */
    return llmmem__rank_weight_bytes(out, m, s, tp, first, end, first_stage, last_stage);
}

/* Elements per token that one decoder layer keeps alive at its peak in a no-grad forward on one
 * rank, residual stream included. vLLM's profile run (v1/worker/gpu_model_runner.py profile_run,
 * _dummy_run over max_num_batched_tokens) frees each intermediate once consumed, so the peak is the
 * residual and normed input (2h) plus the larger of the attention block (fused qkv, attention
 * output) and the MLP block (gate_up and the activation's output; vllm fused_moe's intermediate
 * caches of top_k copies of each token). */
static llmmem_status layer_peak(uint64_t *out, const llmmem_model *m, const llmmem__geometry *a, uint64_t tp, int moe)
{
    uint64_t q = a->heads / tp, attn, mlp;
    int gated = mv(m, LLMMEM_KEY_MLP_GATED) != 0;
    if (a->kv_lora_rank) { /* MLA prefill: q, the latent, decompressed k_nope|v, k assembled with rope, output */
        uint64_t nope = a->qk_nope_head_dim, rope = a->qk_rope_head_dim, v_dim = a->v_head_dim;
        attn = q * (nope + rope) + (a->kv_lora_rank + rope) + q * (nope + v_dim) + q * (nope + rope) + q * v_dim;
    } else
        attn = (q + 2 * heads_per_rank(a, tp)) * a->head_dim + q * a->head_dim;
    if (!moe) {
        mlp = llmmem__ceil_div(a->ffn, tp) * (gated ? 3 : 2);
    } else {
        uint64_t k = a->experts_per_tok, fe = a->ffn_expert, fs = a->ffn_shared;
        uint64_t routed;
        /* fused_moe: intermediate_cache1 (top_k x 2 fe), cache2 (top_k x fe), cache3 (top_k x h);
         * the shared expert's output (h) stays alive beside them */
        if (!llmmem__mul(&routed, k, llmmem__ceil_div(fe, tp) * (gated ? 3 : 2) + a->hidden))
            return overflow("MoE activation elements");
        routed += fs ? a->hidden : 0;
        uint64_t shared = llmmem__ceil_div(fs, tp) * (gated ? 3 : 2);
        mlp = routed > shared ? routed : shared;
    }
    *out = 2 * a->hidden + (attn > mlp ? attn : mlp);
    return LLMMEM_OK;
}

/* The activation peak of vLLM's profile run on one rank of the stage [first, end): the forward over
 * max_num_batched_tokens tokens, or on the last stage the dummy sampler run if larger: the final
 * hidden states, the logits of the min(max_num_seqs, tokens) sampled rows in the model's dtype and
 * their fp32 copy (gpu_model_runner.py _dummy_sampler_run; v1/sample/sampler.py upcasts). */
static llmmem_status activation_peak(uint64_t *out, const llmmem_model *m, const llmmem__geometry *a, uint64_t tp,
                                     uint64_t first, uint64_t end, int last_stage, uint64_t tokens,
                                     uint64_t seqs)
{
    uint64_t e = element_bytes(llmmem__model_dtype(m)), per = 0, x = 0, peak;
    llmmem_status st;
    if (llmmem__span_layers(m, LLMMEM_SPAN_DENSE, first, end)) {
        if ((st = layer_peak(&x, m, a, tp, 0)) != LLMMEM_OK)
            return st;
        per = x;
    }
    if (llmmem__span_layers(m, LLMMEM_SPAN_MOE, first, end)) {
        if ((st = layer_peak(&x, m, a, tp, 1)) != LLMMEM_OK)
            return st;
        per = x > per ? x : per;
    }
    if (!llmmem__mul(&peak, per, tokens) || !llmmem__mul(&peak, peak, e))
        return overflow("activation bytes of the profile run");
    if (last_stage) {
        uint64_t rows = seqs < tokens ? seqs : tokens, sampler = 0;
        if (!llmmem__muladd(&sampler, tokens, a->hidden * e) || !llmmem__mul(&x, rows, a->vocab) ||
            !llmmem__muladd(&sampler, x, e + 4))
            return overflow("logits bytes of the profile run");
        if (sampler > peak)
            peak = sampler;
    }
    *out = peak;
    return LLMMEM_OK;
}

/* ---- the estimate --------------------------------------------------------------- */


/* vLLM's startup default for `vllm serve` (engine/arg_utils.py EngineArgs.get_batch_defaults,
 * OPENAI_API_SERVER): devices of at least 70 GiB that are not A100s get 8192 batched tokens and
 * 1024 sequences, others 2048 and 256. */
static int large_device(const llmmem_hardware *hw, uint64_t memory)
{
    return memory >= (70ULL << 30) && strstr(hw->name, "a100") == NULL;
}

/* ceil(total * fraction) as Python computes math.ceil(total * fraction): the product in double
 * precision, rounded up to a whole byte (vllm/v1/worker/utils.py request_memory). */
static uint64_t requested_memory(uint64_t total, double fraction)
{
    double p = (double)total * fraction;
    uint64_t r = (uint64_t)p;
    return (double)r < p ? r + 1 : r;
}

llmmem_status llmmem_serving_new(llmmem_serving **out)
{
    LLMMEM_REQUIRE(out);
    *out = calloc(1, sizeof **out);
    if (!*out)
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "serving_new: out of memory");
    return LLMMEM_OK;
}

llmmem_status llmmem_serving_clone(llmmem_serving **out, const llmmem_serving *sv_)
{
    LLMMEM_REQUIRE(out);
    *out = NULL;
    LLMMEM_REQUIRE(sv_);
    *out = llmmem__duplicate(sv_, sizeof *sv_);
    return *out ? LLMMEM_OK : LLMMEM_ERR_NO_MEMORY;
}

void llmmem_serving_free(llmmem_serving *sv_)
{
    free(sv_);
}

int llmmem_serving_valid(const llmmem_serving *sv_)
{
    return sv_ && sv_->valid;
}

size_t llmmem_serving_value_count(void)
{
    return SERVING_VALUES;
}

const char *llmmem_serving_value_name(llmmem_serving_value value)
{
    return (unsigned)value < SERVING_VALUES ? value_names[value] : NULL;
}

uint64_t llmmem_serving_get(const llmmem_serving *sv_, llmmem_serving_value value)
{
    if (!sv_ || !sv_->valid || (unsigned)value >= SERVING_VALUES)
        return 0;
    return sv_->v[value];
}

/* Requests of `tokens` tokens each that fit at once, with the strategy's sharing: n sequences per
 * request (parallel sampling, beam width) sharing the full blocks of a prompt of prompt_tokens, and
 * every request sharing the full blocks of a prefix of shared_prefix_tokens. vLLM's prefix cache
 * shares only full blocks (v1/core/kv_cache_utils.py hash_block_tokens hashes full blocks), in the
 * full-attention groups; a sliding-window group keeps each sequence's window. */
static int requests_for(uint64_t *out, const llmmem_serving *r, uint64_t tokens)
{
    uint64_t c = llmmem__ceil_div(tokens, r->block), prefix = 0, prompt = 0;
    if (r->prefix_caching) {
        prefix = r->prefix / r->block;
        prompt = (r->prompt > r->prefix ? r->prompt : r->prefix) / r->block;
    }
    uint64_t sw = r->window - 1 + r->batched, per = 0, own, shared;
    if (sw > tokens)
        sw = tokens;
    /* own blocks of a request in one full group: its prompt's blocks past the shared prefix, and
     * n copies of the rest (the partial prompt block included) */
    if (!llmmem__mul(&own, r->n, c - prompt) || !llmmem__add(&own, own, prompt - prefix) ||
        !llmmem__muladd(&per, r->full_groups, own) ||
        !llmmem__muladd(&per, r->sliding_groups, r->n * (llmmem__ceil_div(sw, r->block) + 1)) ||
        !llmmem__mul(&shared, r->full_groups, prefix))
        return 0;
    *out = r->num_blocks > shared && per ? (r->num_blocks - shared) / per : 0;
    return 1;
}

/* Hugging Face layout bytes of `sequences` sequences of `tokens` on one rank of the given layers. */
static int contiguous_for(uint64_t *out, uint64_t token_layer, uint64_t full, uint64_t sliding, uint64_t window,
                          uint64_t sequences, uint64_t tokens)
{
    uint64_t kept = 0, capped = window && window < tokens ? window : tokens, x;
    if (!llmmem__muladd(&kept, full, tokens) || !llmmem__muladd(&kept, sliding, capped) ||
        !llmmem__mul(&x, kept, token_layer) || !llmmem__mul(&x, x, sequences))
        return 0;
    *out = x;
    return 1;
}

/* The resolved value of a "0: derived" serving setting. */
static uint64_t setting(const llmmem_strategy *s, llmmem_key key, uint64_t derived)
{
    int64_t v = sv(s, key);
    return v > 0 ? (uint64_t)v : derived;
}

llmmem_status llmmem_serving_estimate(llmmem_serving *out, const llmmem_model *model, const llmmem_hardware *hw,
                                      const llmmem_strategy *s)
{
    LLMMEM_REQUIRE(out);
    out->valid = 0;
    LLMMEM_REQUIRE(model);
    LLMMEM_REQUIRE(hw);
    LLMMEM_REQUIRE(s);
    const llmmem__geometry *a = NULL;
    llmmem_status st = shape_of(&a, model);
    if (st)
        return st;
    int64_t mode = sv(s, LLMMEM_KEY_MODE);
    if (mode != LLMMEM_MODE_INFERENCE)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "serving estimates inference; mode is %s",
                            llmmem_choice_name(LLMMEM_KEY_MODE, mode));
    uint64_t memory = (uint64_t)llmmem__get_int(&hw->s, LLMMEM_KEY_MEMORY_BYTES);
    if (memory == 0)
        return llmmem__fail(LLMMEM_ERR_INCOMPLETE, "hardware: memory_bytes is not set");
    double util = llmmem__get_real(&s->s, LLMMEM_KEY_GPU_MEMORY_UTILIZATION);
    if (!(util > 0.0))
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "gpu_memory_utilization (%g) must be above 0", util);

    llmmem_serving *r = out;
    memset(r, 0, sizeof *r);
    r->tp = (uint64_t)sv(s, LLMMEM_KEY_TENSOR_PARALLEL);
    r->pp = (uint64_t)sv(s, LLMMEM_KEY_PIPELINE_PARALLEL);
    if ((st = check_parallel(a, r->tp, r->pp)) != LLMMEM_OK)
        return st;
    r->dtype = llmmem__kv_dtype(model, s);
    if ((st = token_layer_bytes(&r->token_layer, a, r->dtype, r->tp, 0)) != LLMMEM_OK)
        return st;
    if (r->dtype != LLMMEM_KV_CACHE_FP8_DS_MLA &&
        (st = token_layer_bytes(&r->contig_token_layer, a, r->dtype, r->tp, 1)) != LLMMEM_OK)
        return st;

    int large = large_device(hw, memory);
    r->block = (uint64_t)sv(s, LLMMEM_KEY_BLOCK_SIZE);
    r->batched = setting(s, LLMMEM_KEY_MAX_NUM_BATCHED_TOKENS, large ? 8192 : 2048);
    uint64_t seqs = setting(s, LLMMEM_KEY_MAX_NUM_SEQS, large ? 1024 : 256);
    if (seqs > r->batched) /* vllm/config/scheduler.py SchedulerConfig._verify_args */
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "max_num_seqs (%llu) exceeds max_num_batched_tokens (%llu)",
                            (unsigned long long)seqs, (unsigned long long)r->batched);
    uint64_t positions = mv(model, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS);
    r->max_model_len = setting(s, LLMMEM_KEY_MAX_MODEL_LEN, positions);
    if (r->max_model_len == 0)
        return llmmem__fail(LLMMEM_ERR_INCOMPLETE,
                            "max_model_len is not set and the model has no max_position_embeddings");
    if (positions && r->max_model_len > positions) /* vllm/config/model.py _get_and_verify_max_len */
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "max_model_len (%llu) exceeds the model's max_position_embeddings (%llu)",
                            (unsigned long long)r->max_model_len, (unsigned long long)positions);
    r->window = a->window;
    r->prefix_caching = sv(s, LLMMEM_KEY_ENABLE_PREFIX_CACHING) != 0;
    r->prefix = (uint64_t)sv(s, LLMMEM_KEY_SHARED_PREFIX_TOKENS);
    r->prompt = (uint64_t)sv(s, LLMMEM_KEY_PROMPT_TOKENS);
    r->n = (uint64_t)sv(s, LLMMEM_KEY_N);
    uint64_t request = setting(s, LLMMEM_KEY_REQUEST_TOKENS, r->max_model_len);
    /* vllm/v1/engine/input_processor.py refuses a prompt beyond max_model_len, and the OpenAI server
     * a prompt plus max_tokens beyond it ("This model's maximum context length is ...") */
    if (request > r->max_model_len)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "request_tokens (%llu) exceeds max_model_len (%llu): vLLM refuses such a request",
                            (unsigned long long)request, (unsigned long long)r->max_model_len);
    if (r->prefix > request || r->prompt > request)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "%s (%llu) exceeds the request's tokens (%llu: request_tokens, else max_model_len)",
                            r->prefix > request ? "shared_prefix_tokens" : "prompt_tokens",
                            (unsigned long long)(r->prefix > request ? r->prefix : r->prompt),
                            (unsigned long long)request);

    kv_groups g = groups_of(a, sv(s, LLMMEM_KEY_DISABLE_HYBRID_KV_CACHE_MANAGER) != 0);
    r->full_groups = g.full_groups;
    r->sliding_groups = g.sliding_groups;
    if (!llmmem__mul(&r->page, r->token_layer, r->block))
        return overflow("page bytes");

    /* vllm/v1/worker/gpu_worker.py determine_available_memory: requested_memory minus the
     * non-KV memory of the profile run (weights + torch peak + non-torch increase), minus the
     * CUDA-graph estimate when applied; or kv_cache_memory_bytes, which skips profiling */
    uint64_t requested = requested_memory(memory, util);
    int64_t w_set = sv(s, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES), act_set = sv(s, LLMMEM_KEY_PROFILE_ACTIVATION_BYTES);
    int64_t nt_set = sv(s, LLMMEM_KEY_PROFILE_NON_TORCH_BYTES);
    uint64_t non_torch = nt_set >= 0 ? (uint64_t)nt_set
                                     : (uint64_t)llmmem__get_int(&hw->s, LLMMEM_KEY_RUNTIME_OVERHEAD_BYTES);
    uint64_t graphs = (uint64_t)sv(s, LLMMEM_KEY_CUDA_GRAPH_BYTES);
    uint64_t fixed_budget = (uint64_t)sv(s, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES);
    uint64_t best_w = 0, best_act = 0, shortfall = 0, most_layers = 0;
    int have = 0;
    for (uint64_t stage = 0; stage < r->pp; stage++) {
        uint64_t first, end, w = 0, act = 0, non_kv = 0, avail;
        stage_range(&first, &end, a->layers, r->pp, stage);
        int is_first = stage == 0, is_last = stage + 1 == r->pp;
        if (w_set >= 0)
            w = (uint64_t)w_set;
        else if ((st = stage_weights(&w, model, s, r->tp, r->pp, first, end, is_first, is_last)) != LLMMEM_OK)
            return st;
        if (act_set >= 0)
            act = (uint64_t)act_set;
        else if ((st = activation_peak(&act, model, a, r->tp, first, end, is_last, r->batched, seqs)) != LLMMEM_OK)
            return st;
        if (!llmmem__add(&non_kv, w, act) || !llmmem__add(&non_kv, non_kv, non_torch) ||
            !llmmem__add(&non_kv, non_kv, graphs))
            return overflow("non-KV memory");
        if (fixed_budget) {
            avail = fixed_budget;
        } else if (requested > non_kv) {
            avail = requested - non_kv;
        } else {
            avail = 0;
            if (non_kv - requested > shortfall)
                shortfall = non_kv - requested;
        }
        r->stage_budget[stage] = avail;
        r->stage_sliding[stage] = g.sliding ? llmmem__sliding_layers(a, first, end) : 0;
        r->stage_full[stage] = (end - first) - r->stage_sliding[stage];
        r->stage_hf_sliding[stage] = llmmem__sliding_layers(a, first, end);
        r->stage_group[stage] = group_layers_in(a, &g, first, end);
        if (end - first > most_layers)
            most_layers = end - first;
        /* kv_cache_utils.py get_num_blocks: available // page_size // num_layers (per group);
         * get_kv_cache_configs then gives every worker the smallest count */
        uint64_t blocks = avail / r->page / r->stage_group[stage];
        /* the smallest block count; of equal ones, the rank with the least memory left */
        if (!have || blocks < r->num_blocks ||
            (blocks == r->num_blocks && avail < r->stage_budget[r->binding])) {
            have = 1;
            r->num_blocks = blocks;
            r->binding = stage;
            best_w = w;
            best_act = act;
        }
    }

    uint64_t *v = r->v, need;
    v[LLMMEM_SERVING_MEMORY_BYTES] = memory;
    v[LLMMEM_SERVING_REQUESTED_BYTES] = requested;
    v[LLMMEM_SERVING_WEIGHTS] = best_w;
    v[LLMMEM_SERVING_ACTIVATION_PEAK] = best_act;
    v[LLMMEM_SERVING_NON_TORCH] = non_torch;
    v[LLMMEM_SERVING_CUDA_GRAPH] = graphs;
    v[LLMMEM_SERVING_KV_CACHE_BYTES] = r->stage_budget[r->binding];
    v[LLMMEM_SERVING_SHORTFALL] = shortfall;
    if (!llmmem__mul(&v[LLMMEM_SERVING_BYTES_PER_TOKEN], r->token_layer, most_layers) ||
        !llmmem__mul(&v[LLMMEM_SERVING_BLOCK_BYTES], r->page, r->stage_group[r->binding]))
        return overflow("KV bytes per token");
    v[LLMMEM_SERVING_PAGE_BYTES] = r->page;
    v[LLMMEM_SERVING_NUM_BLOCKS] = r->num_blocks;
    /* kv_cache_utils.py _report_kv_cache_config: "GPU KV cache size: num_blocks // groups * block tokens" */
    v[LLMMEM_SERVING_TOKENS] = r->num_blocks / (g.full_groups + g.sliding_groups) * r->block;
    v[LLMMEM_SERVING_GROUPS] = g.full_groups + g.sliding_groups;
    v[LLMMEM_SERVING_LAYERS_PER_GROUP] = r->stage_group[r->binding];
    v[LLMMEM_SERVING_KV_HEADS_PER_RANK] = heads_per_rank(a, r->tp);
    v[LLMMEM_SERVING_LAYERS_PER_STAGE] = most_layers;
    v[LLMMEM_SERVING_BLOCK_SIZE] = r->block;
    v[LLMMEM_SERVING_MAX_NUM_BATCHED_TOKENS] = r->batched;
    v[LLMMEM_SERVING_MAX_NUM_SEQS] = seqs;
    v[LLMMEM_SERVING_MAX_MODEL_LEN_SETTING] = r->max_model_len;
    v[LLMMEM_SERVING_REQUEST_TOKENS] = request;

    /* kv_cache_utils.py estimate_max_model_len: the largest length whose blocks fit (binary search) */
    uint64_t lo = 0, hi = r->max_model_len;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if (!blocks_for(&need, r, mid))
            return overflow("blocks per request");
        if (need <= r->num_blocks)
            lo = mid;
        else
            hi = mid - 1;
    }
    v[LLMMEM_SERVING_MAX_MODEL_LEN] = lo;

    /* kv_cache_utils.py get_max_concurrency_for_kv_cache_config, logged with "%.2fx" for max_model_len */
    if (!blocks_for(&need, r, r->max_model_len))
        return overflow("blocks per request");
    char text[48];
    snprintf(text, sizeof text, "%.2f", (double)r->num_blocks / (double)need);
    uint64_t x100 = 0;
    for (const char *p = text; *p; p++)
        if (*p >= '0' && *p <= '9')
            x100 = x100 * 10 + (uint64_t)(*p - '0');
    v[LLMMEM_SERVING_VLLM_CONCURRENCY_X100] = x100;
    v[LLMMEM_SERVING_FITS] = need <= r->num_blocks && r->num_blocks > 0;

    uint64_t requests = 0;
    if (!blocks_for(&need, r, request) || !requests_for(&requests, r, request))
        return overflow("blocks per request");
    v[LLMMEM_SERVING_BLOCKS_PER_REQUEST] = need;
    v[LLMMEM_SERVING_MAX_CONCURRENCY] = request <= r->max_model_len ? requests : 0;
    if (!waste_for(&v[LLMMEM_SERVING_WASTE_BYTES], r, request))
        return overflow("waste bytes");

    llmmem__copy_name(r->model_name, model->name);
    llmmem__copy_name(r->hardware_name, hw->name);
    r->valid = 1;
    return LLMMEM_OK;
}

/* ---- questions ------------------------------------------------------------------ */

static llmmem_status require_valid(const llmmem_serving *r, const char *func)
{
    if (!r->valid)
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "%s: the serving result holds no estimate", func);
    return LLMMEM_OK;
}

static llmmem_status require_tokens(uint64_t tokens, const char *func)
{
    if (tokens == 0)
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "%s: tokens (0) must be at least 1", func);
    return LLMMEM_OK;
}

llmmem_status llmmem_serving_request_blocks(uint64_t *blocks_out, uint64_t *waste_bytes_out,
                                            const llmmem_serving *sv_, uint64_t tokens)
{
    LLMMEM_REQUIRE(blocks_out);
    LLMMEM_REQUIRE(sv_);
    llmmem_status st = require_valid(sv_, __func__);
    if (st || (st = require_tokens(tokens, __func__)) != LLMMEM_OK)
        return st;
    uint64_t need, waste;
    if (!blocks_for(&need, sv_, tokens) || !waste_for(&waste, sv_, tokens))
        return overflow("blocks of a request");
    *blocks_out = need;
    if (waste_bytes_out)
        *waste_bytes_out = waste;
    return LLMMEM_OK;
}

llmmem_status llmmem_serving_fits_request(int *fits_out, const llmmem_serving *sv_, uint64_t tokens)
{
    LLMMEM_REQUIRE(fits_out);
    LLMMEM_REQUIRE(sv_);
    llmmem_status st = require_valid(sv_, __func__);
    if (st || (st = require_tokens(tokens, __func__)) != LLMMEM_OK)
        return st;
    uint64_t need;
    if (!blocks_for(&need, sv_, tokens))
        return overflow("blocks of a request");
    /* vLLM refuses a request longer than max_model_len (v1/engine/processor.py) */
    *fits_out = tokens <= sv_->max_model_len && need <= sv_->num_blocks;
    return LLMMEM_OK;
}

llmmem_status llmmem_serving_max_concurrency(uint64_t *requests_out, const llmmem_serving *sv_, uint64_t tokens)
{
    LLMMEM_REQUIRE(requests_out);
    LLMMEM_REQUIRE(sv_);
    llmmem_status st = require_valid(sv_, __func__);
    if (st || (st = require_tokens(tokens, __func__)) != LLMMEM_OK)
        return st;
    if (sv_->prefix > tokens || sv_->prompt > tokens)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "%s (%llu) exceeds the request's tokens (%llu)",
                            sv_->prefix > tokens ? "shared_prefix_tokens" : "prompt_tokens",
                            (unsigned long long)(sv_->prefix > tokens ? sv_->prefix : sv_->prompt),
                            (unsigned long long)tokens);
    uint64_t n;
    if (!requests_for(&n, sv_, tokens))
        return overflow("blocks of a request");
    *requests_out = tokens <= sv_->max_model_len ? n : 0;
    return LLMMEM_OK;
}

llmmem_status llmmem_serving_max_model_len(uint64_t *tokens_out, const llmmem_serving *sv_)
{
    LLMMEM_REQUIRE(tokens_out);
    LLMMEM_REQUIRE(sv_);
    llmmem_status st = require_valid(sv_, __func__);
    if (st)
        return st;
    *tokens_out = sv_->v[LLMMEM_SERVING_MAX_MODEL_LEN];
    return LLMMEM_OK;
}

llmmem_status llmmem_serving_max_batch(uint64_t *sequences_out, const llmmem_serving *sv_, uint64_t tokens)
{
    LLMMEM_REQUIRE(sequences_out);
    LLMMEM_REQUIRE(sv_);
    llmmem_status st = require_valid(sv_, __func__);
    if (st || (st = require_tokens(tokens, __func__)) != LLMMEM_OK)
        return st;
    if (sv_->dtype == LLMMEM_KV_CACHE_FP8_DS_MLA)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "kv_cache_dtype (fp8_ds_mla) is vLLM's paged MLA layout; a contiguous "
                            "(Hugging Face) cache stores decompressed keys and values");
    uint64_t best = UINT64_MAX;
    for (uint64_t stage = 0; stage < sv_->pp; stage++) {
        uint64_t one;
        uint64_t sliding = sv_->stage_hf_sliding[stage];
        uint64_t layers = sv_->stage_full[stage] + sv_->stage_sliding[stage];
        if (!contiguous_for(&one, sv_->contig_token_layer, layers - sliding, sliding, sv_->window, 1, tokens))
            return overflow("contiguous KV bytes of a sequence");
        uint64_t fit = one ? sv_->stage_budget[stage] / one : UINT64_MAX;
        if (fit < best)
            best = fit;
    }
    *sequences_out = best;
    return LLMMEM_OK;
}

/* ---- direct questions on a model -------------------------------------------------- */

llmmem_status llmmem_kv_bytes_per_token(uint64_t *bytes_out, const llmmem_model *model, const llmmem_strategy *s)
{
    LLMMEM_REQUIRE(bytes_out);
    LLMMEM_REQUIRE(model);
    LLMMEM_REQUIRE(s);
    const llmmem__geometry *a = NULL;
    llmmem_status st = shape_of(&a, model);
    if (st)
        return st;
    uint64_t tp = (uint64_t)sv(s, LLMMEM_KEY_TENSOR_PARALLEL), pp = (uint64_t)sv(s, LLMMEM_KEY_PIPELINE_PARALLEL);
    if ((st = check_parallel(a, tp, pp)) != LLMMEM_OK)
        return st;
    uint64_t token_layer;
    if ((st = token_layer_bytes(&token_layer, a, llmmem__kv_dtype(model, s), tp, 0)) != LLMMEM_OK)
        return st;
    /* the most loaded stage: get_pp_indices gives each stage layers // pp, some one more */
    uint64_t most = a->layers / pp + (a->layers % pp != 0);
    if (!llmmem__mul(bytes_out, token_layer, most))
        return overflow("KV bytes per token");
    return LLMMEM_OK;
}

llmmem_status llmmem__kv_cache_contiguous_bytes(uint64_t *bytes_out, const llmmem_model *m,
                                                const llmmem_strategy *s, uint64_t sequences,
                                                uint64_t tokens_each)
{
    return llmmem__kv_contiguous_bytes(bytes_out, m, llmmem__kv_dtype(m, s), sequences, tokens_each);
}

llmmem_status llmmem__kv_contiguous_bytes(uint64_t *bytes_out, const llmmem_model *m, llmmem_kv_cache_dtype dtype,
                                          uint64_t sequences, uint64_t tokens_each)
{
    const llmmem__geometry *a = NULL;
    llmmem_status st = shape_of(&a, m);
    if (st)
        return st;
    uint64_t token_layer, sliding = llmmem__sliding_layers(a, 0, a->layers);
    if ((st = token_layer_bytes(&token_layer, a, dtype, 1, 1)) != LLMMEM_OK)
        return st;
    /* transformers cache_utils.py: a full layer keeps every token (DynamicLayer, StaticLayer); a
     * sliding layer min(sliding_window, max_cache_len) of them (StaticSlidingWindowLayer) */
    if (!contiguous_for(bytes_out, token_layer, a->layers - sliding, sliding, a->window, sequences, tokens_each))
        return overflow("contiguous KV cache bytes");
    return LLMMEM_OK;
}

llmmem_status llmmem_kv_cache_bytes(uint64_t *bytes_out, const llmmem_model *model, const llmmem_strategy *s,
                                    uint64_t sequences, uint64_t tokens_each)
{
    LLMMEM_REQUIRE(bytes_out);
    LLMMEM_REQUIRE(model);
    LLMMEM_REQUIRE(s);
    return llmmem__kv_cache_contiguous_bytes(bytes_out, model, s, sequences, tokens_each);
}

/* ---- JSON ---------------------------------------------------------------------- */

static void put_values(llmmem__text *b, const llmmem_serving *r, unsigned from, unsigned to)
{
    char line[96];
    for (unsigned i = from; i < to; i++) {
        if (i == LLMMEM_SERVING_FITS)
            snprintf(line, sizeof line, "    \"fits\": %s", r->v[i] ? "true" : "false");
        else
            snprintf(line, sizeof line, "    \"%s\": %llu", value_names[i], (unsigned long long)r->v[i]);
        llmmem__text_str(b, line);
        llmmem__text_str(b, i + 1 < to ? ",\n" : "\n");
    }
}

llmmem_status llmmem_serving_to_json(char **json_out, const llmmem_serving *sv_)
{
    LLMMEM_REQUIRE(json_out);
    *json_out = NULL;
    LLMMEM_REQUIRE(sv_);
    llmmem_status st = require_valid(sv_, __func__);
    if (st)
        return st;
    llmmem__text b = {0};
    char line[160];
    llmmem__text_str(&b, "{\n  \"model\": ");
    llmmem__text_quoted(&b, sv_->model_name);
    llmmem__text_str(&b, ",\n  \"hardware\": ");
    llmmem__text_quoted(&b, sv_->hardware_name);
    snprintf(line, sizeof line,
             ",\n  \"kv_cache_dtype\": \"%s\",\n  \"tensor_parallel\": %llu,\n  \"pipeline_parallel\": %llu,\n",
             dtype_name(sv_->dtype), (unsigned long long)sv_->tp, (unsigned long long)sv_->pp);
    llmmem__text_str(&b, line);
    llmmem__text_str(&b, "  \"budget\": {\n");
    put_values(&b, sv_, LLMMEM_SERVING_MEMORY_BYTES, LLMMEM_SERVING_SHORTFALL + 1);
    llmmem__text_str(&b, "  },\n  \"kv\": {\n");
    uint64_t x100 = sv_->v[LLMMEM_SERVING_VLLM_CONCURRENCY_X100];
    snprintf(line, sizeof line, "    \"vllm_concurrency\": %llu.%02llu,\n", (unsigned long long)(x100 / 100),
             (unsigned long long)(x100 % 100));
    llmmem__text_str(&b, line);
    put_values(&b, sv_, LLMMEM_SERVING_BYTES_PER_TOKEN, SERVING_VALUES);
    llmmem__text_str(&b, "  }\n}\n");
    return llmmem__text_finish(json_out, &b, "serving_to_json");
}
