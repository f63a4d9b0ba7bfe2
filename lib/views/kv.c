/*
 * KV cache arithmetic: the bytes one token adds to one layer of each kind, the contiguous cache
 * Hugging Face generate allocates, and vLLM's paged blocks. vLLM's memory budget, which sizes the
 * pool these blocks come from, is serving.c's.
 *
 * Two layouts of the same keys and values:
 *   - paged, as vLLM v1 allocates it: a page is one layer's cache of block_size tokens
 *     (vllm/v1/kv_cache_interface.py AttentionSpec / MLAAttentionSpec page_size_bytes), layers are
 *     grouped so that every group has the same page size (vllm/v1/core/kv_cache_utils.py
 *     get_kv_cache_groups);
 *   - contiguous, as Hugging Face generate allocates it: batch x context for every layer
 *     (transformers cache_utils.py DynamicCache / StaticCache).
 * Everything is integer and checked. No allocation, no I/O.
 */
#include "job/job.h"
#include "views/kv.h"
#include "inventory/mixers.h"

static llmmem_status overflow(const char *what)
{
    return llmmem__fail(LLMMEM_ERR_OVERFLOW, "%s exceeds 64 bits", what);
}

/* ---- bytes per token and layer ---------------------------------------------------- */

/* The shapes the cache depends on (the model's geometry, arch.c); fails for an incomplete model or
 * one given by count alone. */
llmmem_status llmmem__kv_shape(const llmmem__geometry **a, const llmmem_model *m)
{
    llmmem_status st = llmmem__kv_shape_with_state(a, m);
    return st ? st : llmmem__state_check(m, "the cache", 0);
}

llmmem_status llmmem__kv_shape_with_state(const llmmem__geometry **a, const llmmem_model *m)
{
    return llmmem__kv_shape_modelled(a, m, 0);
}

llmmem_status llmmem__kv_shape_modelled(const llmmem__geometry **a, const llmmem_model *m, int modelled)
{
    llmmem_status st = llmmem__model_check(m);
    if (st)
        return st;
    if ((m->geo.compressed_layers || m->geo.hc_mult) && !(modelled & LLMMEM__KV_COMPRESSED))
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "the cache of a model with %llu compressed sparse or heavily compressed attention layers "
                            "(deepseek_v4: their compressed entries, indexer keys and compressor state beside the "
                            "window) is not modelled here: SGLang serving (engine sglang) models its pools, "
                            "llmmem_kv_cache_bytes transformers' contiguous cache",
                            (unsigned long long)m->geo.compressed_layers);
    if ((uint64_t)llmmem__model_value(m, LLMMEM_KEY_NUM_PARAMETERS))
        return llmmem__fail(LLMMEM_ERR_INCOMPLETE,
                            "the KV cache needs the model's shapes; a model given by num_parameters (%llu) "
                            "alone has none",
                            (unsigned long long)(uint64_t)llmmem__model_value(m, LLMMEM_KEY_NUM_PARAMETERS));
    *a = &m->geo;
    return LLMMEM_OK;
}

llmmem_status llmmem__kv_refuse_cross(const llmmem__geometry *a, const char *view)
{
    if (a->cross_layers)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "%s of a model with cross-attention layers (%llu, mllama's) is not modelled: their cache "
                            "holds the image's keys and values; the contiguous cache (llmmem_kv_cache_bytes) models it",
                            view, (unsigned long long)a->cross_layers);
    return LLMMEM_OK;
}

llmmem_status llmmem__kv_refuse_typed(const llmmem__geometry *a, const char *view, int modelled)
{
    if ((a->kv_token_global.heads || a->kv_shared_layers || a->per_layer_inputs) && !(modelled & LLMMEM__KV_TYPED))
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "%s of a model whose attention layers cache different widths (gemma4's full and sliding "
                            "layers), whose %llu layers share an earlier layer's keys and values, or with "
                            "per-layer input embeddings is not modelled: %sthe contiguous cache "
                            "(llmmem_kv_cache_bytes) and the weights are", view, (unsigned long long)a->kv_shared_layers,
                            llmmem__state_layers(a) ? "" : "vLLM serving, ");
    if (a->global_heads && !(modelled & LLMMEM__KV_TYPED)) /* the engines' buffers see one query-head count */
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "%s of a model whose full and sliding layers have different query heads (%llu and %llu: "
                            "step3p5's, laguna's) is not modelled: the contiguous cache (llmmem_kv_cache_bytes), the "
                            "weights and vLLM serving are", view, (unsigned long long)a->global_heads,
                            (unsigned long long)a->heads);
    /* the engines and the generate loop run the indexer's selection and page its keys beside K and V: vLLM's pool
     * (llmmem__kv_indexed_pool) and SGLang's (sglang.c) are modelled, the other engines' and the generate loop's are
     * not; Megatron-Bridge
     * runs full attention on every layer with the indexer frozen (docs/models/minimax/minimax-m3.md "Full attention
     * only"): the contiguous cache, K and V, is that */
    if (a->index_layers && !(modelled & LLMMEM__KV_INDEXED))
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "%s of a model with a lightning indexer on %llu standard-attention layers (minimax_m3_vl's "
                            "index_q_proj and index_k_proj) is not modelled: the weights and the contiguous cache "
                            "(llmmem_kv_cache_bytes: K and V, full attention as Megatron-Bridge runs it) are",
                            view, (unsigned long long)a->index_layers);
    if (a->conv_layers && !(modelled & LLMMEM__KV_BLOCKS))
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "%s of a model with %llu short-convolution layers (lfm2) is not "
                            "modelled: vLLM serving and the contiguous cache are", view, (unsigned long long)a->conv_layers);
    if (a->blocks && !(modelled & LLMMEM__KV_BLOCKS))
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "%s of a model of per-layer blocks of different widths (nemotron-nas block_configs) is "
                            "not modelled: the weights, vLLM serving and the contiguous cache are", view);
    return LLMMEM_OK;
}

llmmem_status llmmem__kv_token_shape(const llmmem__geometry **a, const llmmem_model *m, const char *view)
{
    llmmem_status st = llmmem__kv_shape(a, m);
    if (!st)
        st = llmmem__kv_refuse_cross(*a, view);
    return st ? st : llmmem__kv_refuse_typed(*a, view, 0);
}

llmmem_status llmmem__state_elements(uint64_t *conv, uint64_t *temporal, const llmmem__geometry *a, uint64_t tp)
{
    const llmmem__mixer_row *row = llmmem__state_row(a);
    *conv = *temporal = 0;
    return row ? row->vllm_state(conv, temporal, a, tp) : LLMMEM_OK;
}

/* The storage format of a cache element (formats.c owns its bytes); the fp8 and int8 modes store
 * one byte an element, their scales are the cache's own (llmmem__kv_token_layer_bytes). */
static llmmem_format kv_format(llmmem_kv_cache_dtype d)
{
    switch (d) {
    case LLMMEM_KV_CACHE_FP32: return LLMMEM_FORMAT_FP32;
    case LLMMEM_KV_CACHE_FP16: return LLMMEM_FORMAT_FP16;
    case LLMMEM_KV_CACHE_BF16: return LLMMEM_FORMAT_BF16;
    case LLMMEM_KV_CACHE_NVFP4: return LLMMEM_FORMAT_NVFP4;
    case LLMMEM_KV_CACHE_NVFP4_4OVER6: return LLMMEM_FORMAT_NVFP4;
    case LLMMEM_KV_CACHE_INT8_PER_TOKEN_HEAD: return LLMMEM_FORMAT_INT8;
    case LLMMEM_KV_CACHE_INT4_PER_TOKEN_HEAD: return LLMMEM_FORMAT_INT4;
    case LLMMEM_KV_CACHE_FP8_E5M2: return LLMMEM_FORMAT_FP8_E5M2;
    default: return LLMMEM_FORMAT_FP8_E4M3; /* fp8, fp8_e4m3, fp8_inc, fp8_per_token_head, fp8_ds_mla's latent */
    }
}

uint64_t llmmem__kv_element_bytes(llmmem_kv_cache_dtype d)
{
    return llmmem__format_element_bits(kv_format(d)) / 8u;
}

/* vLLM's KVQuantMode per-token-head modes (int8, fp8, int4): an fp32 scale per token and head for K and V. */
static int per_token_head(llmmem_kv_cache_dtype d)
{
    return d == LLMMEM_KV_CACHE_INT8_PER_TOKEN_HEAD || d == LLMMEM_KV_CACHE_FP8_PER_TOKEN_HEAD ||
           d == LLMMEM_KV_CACHE_INT4_PER_TOKEN_HEAD;
}

/* Bytes one token adds to one layer's cache on one rank, its vectors stored in d (formats.c). */
static llmmem_status token_vectors_bytes(uint64_t *out, const llmmem__kv_token *k, llmmem_kv_cache_dtype d,
                                         uint64_t tp)
{
    uint64_t vectors;
    if (!llmmem__mul(&vectors, llmmem__kv_rank_heads(k->heads, tp), k->vectors))
        return overflow("KV bytes per token");
    if (d == LLMMEM_KV_CACHE_NVFP4 || d == LLMMEM_KV_CACHE_NVFP4_4OVER6) {
        /* vLLM sizes the page by torch_utils.py nvfp4_kv_cache_full_dim, head_size // 2 bytes of E2M1
         * + head_size // 16 fp8 scales (floors), not by whole blocks: its allocation is the rule
         * (kv_cache_interface.py AttentionSpec.real_page_size_bytes: kv_quant_mode.is_nvfp4, both layouts) */
        if (!llmmem__mul(out, vectors, k->width / 2 + k->width / 16))
            return overflow("KV bytes per token");
        return LLMMEM_OK;
    }
    if (d == LLMMEM_KV_CACHE_INT4_PER_TOKEN_HEAD) {
        /* kv_cache_interface.py AttentionSpec.real_page_size_bytes: INT4_PER_TOKEN_HEAD packs two a byte,
         * head_size // 2 bytes (its scales are added by llmmem__kv_token_layer_bytes) */
        if (!llmmem__mul(out, vectors, k->width / 2))
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
    if (per_token_head(d) || d == LLMMEM_KV_CACHE_NVFP4 || d == LLMMEM_KV_CACHE_NVFP4_4OVER6)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "kv_cache_dtype (%s) is not modelled for an MLA model (kv_lora_rank %llu); "
                            "use auto, fp32, fp16, bf16, fp8 or fp8_ds_mla",
                            llmmem__kv_dtype_name(d), (unsigned long long)a->kv_lora_rank);
    if (contiguous) {
        if (d == LLMMEM_KV_CACHE_FP8_DS_MLA)
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                                "kv_cache_dtype (fp8_ds_mla) is vLLM's paged MLA layout; a contiguous "
                                "(Hugging Face) cache stores decompressed keys and values");
        /* transformers DeepseekV3Attention.forward: past_key_values.update gets key_states of
         * heads x (qk_nope + qk_rope) and value_states of heads x v_head_dim */
        return token_vectors_bytes(out, &a->kv_token, d, tp);
    }
    llmmem_status st = LLMMEM_OK;
    if (d == LLMMEM_KV_CACHE_FP8_DS_MLA) {
        /* vllm/v1/kv_cache_interface.py MLAAttentionSpec.real_page_size_bytes: 656 B per token
         * (v1/attention/backends/mla/flashmla_sparse.py: fp8 latent, an fp32 scale per 128 of it,
         * bf16 rope: 512 + 16 + 128 for DeepSeek) */
        *out = a->kv_lora_rank + llmmem__ceil_div(a->kv_lora_rank, 128) * 4 + a->qk_rope_head_dim * 2;
    } else {
        /* vllm/v1/kv_cache_interface.py MLAAttentionSpec: block x 1 head x (kv_lora_rank +
         * qk_rope_head_dim) x dtype: the latent alone, no factor 2 for K and V */
        st = token_vectors_bytes(out, &a->kv_latent, d, tp);
    }
    /* vllm deepseek_v2.py DeepseekV32IndexerCache: each layer also pages the indexer's key, in its own
     * uint8 layout whatever kv_cache_dtype is, with the same blocks */
    if (st == LLMMEM_OK && !llmmem__add(out, *out, a->index_cache))
        return overflow("KV bytes per token");
    return st;
}

/* Bytes one token takes in one layer of vLLM's paged cache on one rank. `contiguous` asks for the
 * Hugging Face layout instead, which differs only for MLA. */
llmmem_status llmmem__kv_token_layer_bytes(uint64_t *out, const llmmem__geometry *a, llmmem_kv_cache_dtype d,
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
    if (st == LLMMEM_OK && per_token_head(d)) {
        /* AttentionSpec.page_size_bytes: per-token-head modes add 2 * block * kv_heads * 4 B of fp32 scales
         * (v1/attention/backends/triton_attn.py TritonAttentionBackend.customize_spec: one fp32 scale per
         * head for K and one for V, int4 included) */
        if (!llmmem__muladd(out, llmmem__kv_heads_per_rank(a, tp), 2 * 4))
            return overflow("KV bytes per token");
    }
    return st;
}

llmmem_status llmmem__kv_full_token_layer_bytes(uint64_t *out, const llmmem__geometry *a, llmmem_kv_cache_dtype d,
                                                uint64_t tp, int contiguous)
{
    if (!a->kv_token_global.heads)
        return llmmem__kv_token_layer_bytes(out, a, d, tp, contiguous);
    /* vllm gemma4.py Gemma4DecoderLayer / transformers Gemma4TextAttention: a full layer's global_head_dim and, with
     * attention_k_eq_v, num_global_key_value_heads; vLLM caches its keys and values both (k_eq_v loads K into V) */
    llmmem__geometry global = *a;
    global.kv_token = a->kv_token_global;
    global.kv_heads = a->kv_token_global.heads;
    return llmmem__kv_token_layer_bytes(out, &global, d, tp, contiguous);
}

/* ---- paged blocks: groups, blocks of a request, waste, concurrency ------------------ */

/* How vLLM groups the layers (kv_cache_utils.py get_kv_cache_groups):
 *   - one spec for every layer (all full attention, all sliding window, or a hybrid model with
 *     --disable-hybrid-kv-cache-manager, whose sliding layers then become full attention,
 *     unify_hybrid_kv_cache_specs): one group of all layers;
 *   - full and sliding layers (_get_kv_cache_groups_uniform_page_size): groups of group_size layers,
 *     group_size the smaller type's count, or the larger one's when it is under 1.5 times the
 *     smaller; each type split into ceil(count / group_size) groups. */
llmmem__kv_groups llmmem__kv_groups_of(const llmmem__geometry *a, int hybrid_disabled)
{
    llmmem__kv_groups g = {0, 0, 0, 0};
    /* the layers with a cache spec: a KV-shared layer has none (vllm/v1/worker/gpu_model_runner.py
     * get_kv_cache_spec skips a layer with kv_sharing_target_layer_name) */
    uint64_t sliding = llmmem__sliding_layers(a, 0, a->layers);
    uint64_t full = llmmem__layers_in(&a->plan, a->attention, 0, a->layers) - sliding;
    if (sliding == 0 || (full > 0 && hybrid_disabled)) {
        g.full_groups = 1;
        g.full = full + sliding;
    } else if (full == 0) {
        g.sliding_groups = 1;
        g.sliding = sliding;
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
uint64_t llmmem__kv_group_layers(const llmmem__geometry *a, const llmmem__kv_groups *g, uint64_t first, uint64_t end)
{
    /* the layers with attention (vLLM gives a no_op block, nemotron_nas.py DeciLMDecoderLayer, no cache spec) */
    uint64_t attention = llmmem__layers_in(&a->plan, a->attention, first, end);
    if (g->sliding == 0 || g->full == 0)
        return attention;
    uint64_t sl = llmmem__sliding_layers(a, first, end), fl = attention - sl;
    uint64_t x = llmmem__ceil_div(fl, g->full_groups), y = llmmem__ceil_div(sl, g->sliding_groups);
    return x > y ? x : y;
}

/* Tokens a block of the full groups and of the windowed groups holds (llmmem__kv_unify_pages). */
static uint64_t full_block(const llmmem__kv_pool *r)
{
    return r->full_block ? r->full_block : r->block;
}

static uint64_t window_block(const llmmem__kv_pool *r)
{
    return r->window_block ? r->window_block : r->block;
}

llmmem_status llmmem__kv_unify_pages(llmmem__kv_pool *r, uint64_t full_token)
{
    /* vllm/v1/core/kv_cache_utils.py unify_kv_cache_spec_page_size: the largest page stays, a smaller one's
     * block_size grows by max_page // its page (AttentionSpec.copy_with_new_block_size), NotImplementedError
     * unless it divides; pages are block x bytes a token, so the ratio is the bytes' */
    uint64_t sliding_token = r->token_layer, big = full_token > sliding_token ? full_token : sliding_token;
    uint64_t small = full_token > sliding_token ? sliding_token : full_token;
    if (small == 0 || big % small)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "vLLM cannot unify the pages of full layers of %llu bytes a token "
                            "and sliding layers of %llu (the larger is not a multiple of the smaller: "
                            "unify_kv_cache_spec_page_size raises NotImplementedError)",
                            (unsigned long long)full_token, (unsigned long long)sliding_token);
    if (!llmmem__mul(full_token < big ? &r->full_block : &r->window_block, r->block, big / small))
        return overflow("block size");
    r->token_layer = big;
    return LLMMEM_OK;
}

/* Blocks one sequence of `tokens` tokens needs in one windowed group, and the tokens they are sized
 * for (*sized): sliding window cdiv(min(window - 1 + max_num_batched_tokens, tokens), block) + 1
 * (SlidingWindowSpec: the window need not start at a block boundary); chunked attention
 * cdiv(min(attention_chunk_size + max_num_batched_tokens, tokens), block) (vllm/v1/kv_cache_interface.py
 * ChunkedLocalAttentionSpec.max_admission_blocks_per_request: one chunk and the tokens in flight). */
static uint64_t windowed_blocks(const llmmem__kv_pool *r, uint64_t tokens, uint64_t *sized)
{
    uint64_t held = r->chunked ? r->window + r->batched : r->window - 1 + r->batched;
    if (held > tokens)
        held = tokens;
    *sized = held;
    return llmmem__ceil_div(held, window_block(r)) + (r->chunked ? 0 : 1);
}

/* vllm/models/minimax_m3: every layer's K/V page (nvidia/model.py MiniMaxM3SparseAttention.get_kv_cache_spec and
 * the first layers' Attention: FullAttentionSpec) and each sparse layer's index-key page (common/indexer.py
 * MiniMaxM3IndexerCache: MLAAttentionSpec, one head of index_head_dim, not split over ranks) are all full attention
 * of the cache's block size, so v1/core/kv_cache_utils.py get_kv_cache_groups makes them one group
 * (UniformTypeKVCacheSpecs.from_specs) whose page is the sum of theirs: num_blocks = available // that page. */
llmmem_status llmmem__kv_indexed_pool(llmmem__kv_pool *r, const llmmem__geometry *a, llmmem_kv_cache_dtype d,
                                      uint64_t tp)
{
    /* common/sparse_attention.py MiniMaxM3SparseBackend.supported_kv_cache_dtypes: bfloat16 and the fp8 ones (the
     * model's fp16 through auto) */
    if (d != LLMMEM_KV_CACHE_BF16 && d != LLMMEM_KV_CACHE_FP16 && d != LLMMEM_KV_CACHE_FP8 &&
        d != LLMMEM_KV_CACHE_FP8_E4M3 && d != LLMMEM_KV_CACHE_FP8_E5M2)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "kv_cache_dtype (%s): vLLM's MiniMax-M3 sparse attention caches "
                            "bf16 or fp8 (MiniMaxM3SparseBackend.supported_kv_cache_dtypes)", llmmem__kv_dtype_name(d));
    /* MiniMaxM3SparseBackend and MiniMaxM3IndexerBackend.get_supported_kernel_block_sizes: [128] (a page is a
     * sparse block); the default block size is layer 0's full-attention backend's (platforms/interface.py
     * update_block_size_for_backend, 16), and v1/worker/utils.py select_common_block_size then raises */
    if (r->block % 128)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "block_size (%llu): vLLM's MiniMax-M3 sparse attention pages "
                            "kernel blocks of 128 tokens (\"No common block size\" otherwise): set block_size to a "
                            "multiple of 128", (unsigned long long)r->block);
    uint64_t kv, x;
    llmmem_status st = llmmem__kv_token_layer_bytes(&kv, a, d, tp, 0);
    if (st)
        return st;
    if (!llmmem__mul(&x, llmmem__layers_in(&a->plan, a->attention, 0, a->layers), kv) ||
        !llmmem__muladd(&x, a->index_layers, a->index_cache))
        return overflow("KV bytes per token");
    r->token_layer = x;
    r->group_layers = 1;
    return LLMMEM_OK;
}

/* Blocks one sequence of `tokens` tokens needs from the pool, summed over the groups
 * (kv_cache_utils.py get_max_concurrency_for_kv_cache_config / max_memory_usage_bytes):
 * full attention cdiv(tokens, block) (FullAttentionSpec.max_memory_usage_bytes); a windowed group
 * windowed_blocks. */
int llmmem__kv_pool_blocks(uint64_t *out, const llmmem__kv_pool *r, uint64_t tokens)
{
    /* MambaSpec.max_memory_usage_bytes (mamba_cache_mode none): one page per sequence and group */
    uint64_t need = r->state_groups, sw;
    uint64_t windowed = windowed_blocks(r, tokens, &sw);
    if (!llmmem__muladd(&need, r->full_groups, llmmem__ceil_div(tokens, full_block(r))) ||
        !llmmem__muladd(&need, r->sliding_groups, windowed))
        return 0;
    *out = need;
    return 1;
}

/* Internal waste of one sequence of `tokens`: the bytes its blocks hold but its tokens do not fill,
 * the last partial block of each group (a windowed group counts the tokens vLLM sizes it for,
 * windowed_blocks, so a sliding group's spare block is waste too). */
int llmmem__kv_pool_waste(uint64_t *out, const llmmem__kv_pool *r, uint64_t tokens)
{
    uint64_t sw, page, x = 0;
    uint64_t fb = full_block(r), wb = window_block(r), windowed = windowed_blocks(r, tokens, &sw);
    uint64_t full_gap = llmmem__ceil_div(tokens, fb) * fb - tokens;
    uint64_t sliding_gap = windowed * wb - sw;
    /* a slot of a group holds its page over its block size (unified pages: fewer bytes in the larger blocks) */
    if (!llmmem__mul(&page, r->token_layer, r->block) || !llmmem__mul(&full_gap, full_gap, r->full_groups) ||
        !llmmem__mul(&sliding_gap, sliding_gap, r->sliding_groups) || !llmmem__muladd(&x, full_gap, page / fb) ||
        !llmmem__muladd(&x, sliding_gap, page / wb) || !llmmem__mul(&x, x, r->group_layers) ||
        !llmmem__add(&x, x, r->state_waste))
        return 0;
    *out = x;
    return 1;
}

/* Requests of `tokens` tokens each that fit at once, with the strategy's sharing: n sequences per
 * request (parallel sampling, beam width) sharing the full blocks of a prompt of prompt_tokens, and
 * every request sharing the full blocks of a prefix of shared_prefix_tokens. vLLM's prefix cache
 * shares only full blocks (v1/core/kv_cache_utils.py hash_block_tokens hashes full blocks), in the
 * full-attention groups; a sliding-window group keeps each sequence's window. */
int llmmem__kv_pool_requests(uint64_t *out, const llmmem__kv_pool *r, uint64_t tokens)
{
    uint64_t fb = full_block(r), c = llmmem__ceil_div(tokens, fb), prefix = 0, prompt = 0;
    if (r->prefix_caching) {
        prefix = r->prefix / fb;
        prompt = (r->prompt > r->prefix ? r->prompt : r->prefix) / fb;
    }
    uint64_t sw, per = 0, own, shared;
    uint64_t windowed = windowed_blocks(r, tokens, &sw);
    /* own blocks of a request in one full group: its prompt's blocks past the shared prefix, and
     * n copies of the rest (the partial prompt block included) */
    if (!llmmem__mul(&own, r->n, c - prompt) || !llmmem__add(&own, own, prompt - prefix) ||
        !llmmem__muladd(&per, r->full_groups, own) ||
        !llmmem__muladd(&per, r->sliding_groups, r->n * windowed) ||
        !llmmem__muladd(&per, r->state_groups, r->n) || /* every sequence its own state */
        !llmmem__mul(&shared, r->full_groups, prefix))
        return 0;
    *out = r->num_blocks > shared && per ? (r->num_blocks - shared) / per : 0;
    return 1;
}

/* ---- contiguous (Hugging Face) ----------------------------------------------------- */

/* Hugging Face layout bytes of `sequences` sequences of `tokens` on one rank of the given layers. */
int llmmem__kv_contiguous_layers(uint64_t *out, uint64_t token_layer, uint64_t full, uint64_t sliding, uint64_t window,
                          uint64_t sequences, uint64_t tokens)
{
    uint64_t kept = 0, capped = window && window < tokens ? window : tokens, x;
    if (!llmmem__muladd(&kept, full, tokens) || !llmmem__muladd(&kept, sliding, capped) ||
        !llmmem__mul(&x, kept, token_layer) || !llmmem__mul(&x, x, sequences))
        return 0;
    *out = x;
    return 1;
}

/* The state one sequence keeps in one state layer of a contiguous cache, in bytes: elements in the
 * model's dtype of `e` bytes (the state row's transformers cache). */
static uint64_t contiguous_state_layer(const llmmem__geometry *a, uint64_t e)
{
    const llmmem__mixer_row *row = llmmem__state_row(a);
    return row ? row->contiguous_state(a, e) : 0;
}

/* DeepSeek-V4 as transformers caches it (models/deepseek_v4/modeling_deepseek_v4.py: DeepseekV4Model.forward builds
 * DynamicCache(config=), one cache layer a layer_types entry): what one sequence holds after T tokens in each layer
 * kind, in elements of head_dim (d) and index_head_dim (i), widths as {d, i} multiples. A row a layer type. */
typedef struct dsv4_cache_row {
    uint8_t mixer;     /* enum llmmem__mixer */
    uint8_t windows;   /* tensors of the last sliding_window - 1 tokens x d (one KV head) */
    llmmem_key rate;   /* the layer's compress rate (0: no compressor) */
    uint8_t entry[2];  /* a compressed entry, one per rate tokens (update_compressor_states): the compressor's, the indexer's */
    uint8_t buffer[2]; /* a buffered token, kv and gate each (store_compression_weights keeps T mod rate tokens) */
    uint8_t overlap;   /* overlap_kv and overlap_gate, rate x an entry each, once a window closed (DeepseekV4CSACache) */
} dsv4_cache_row;

static const dsv4_cache_row dsv4_rows[] = {
    /* cache_utils.py DynamicSlidingWindowLayer.update: keys and values concatenated apart */
    {LLMMEM_MIXER_SLIDING, 2, 0, {0, 0}, {0, 0}, 0},
    /* DeepseekV4HCACache.update: values = keys; DeepseekV4HCACompressor kv_proj, gate_proj: hidden -> d */
    {LLMMEM_MIXER_HCA, 1, LLMMEM_KEY_COMPRESS_RATE_HCA, {1, 0}, {1, 0}, 0},
    /* DeepseekV4CSACache: DeepseekV4CSACompressor (2 x d, its Ca and Cb series) and DeepseekV4Indexer (2 x i) */
    {LLMMEM_MIXER_CSA, 1, LLMMEM_KEY_COMPRESS_RATE_CSA, {1, 1}, {2, 2}, 1},
};

/* The rows' sum, for `sequences` of `tokens` each. The logical tensors: a slice that keeps its call's whole
 * concatenation alive (the window's and the buffers' views) and each call's torch.cat transients are not modelled. */
static llmmem_status dsv4_contiguous(uint64_t *out, const llmmem_model *m, const llmmem__geometry *a,
                                     llmmem_kv_cache_dtype dtype, uint64_t sequences, uint64_t tokens)
{
    /* the modeling file stores its tensors as computed; QuantizedCache does not take these layers. Counted in the
     * model's dtype: kv_norm's fp32 weight (_keep_in_fp32_modules_strict) may promote the window and the entries to
     * fp32 in a bf16 model (DeepseekV4RMSNorm returns weight x the input's dtype); not measured */
    if (dtype != LLMMEM_KV_CACHE_FP32 && dtype != LLMMEM_KV_CACHE_FP16 && dtype != LLMMEM_KV_CACHE_BF16)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "kv_cache_dtype (%s) for deepseek_v4's contiguous cache is not "
                            "modelled: transformers keeps its window, compressed entries and compressor buffers in "
                            "the model's dtype (auto, fp32, fp16, bf16)", llmmem__kv_dtype_name(dtype));
    if (a->window == 0)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "deepseek_v4's contiguous cache needs sliding_window (0)");
    const uint64_t d = a->head_dim, i = (uint64_t)llmmem__model_value(m, LLMMEM_KEY_INDEX_HEAD_DIM);
    const uint64_t kept = tokens < a->window - 1 ? tokens : a->window - 1;
    uint64_t elements = 0;
    for (size_t k = 0; k < sizeof dsv4_rows / sizeof dsv4_rows[0]; k++) {
        const dsv4_cache_row *row = &dsv4_rows[k];
        uint64_t n = llmmem__mixer_layers(a, row->mixer);
        uint64_t rate = row->rate ? (uint64_t)llmmem__model_value(m, row->rate) : 0, layer = 0, entry, buffer;
        if (n == 0)
            continue;
        if (row->rate && rate == 0)
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "deepseek_v4's contiguous cache needs %s (0)",
                                llmmem_key_name(row->rate));
        if (!llmmem__mul(&layer, (uint64_t)row->windows * kept, d) || !llmmem__mul(&entry, row->entry[0], d) ||
            !llmmem__muladd(&entry, row->entry[1], i) || !llmmem__mul(&buffer, row->buffer[0], d) ||
            !llmmem__muladd(&buffer, row->buffer[1], i) ||
            (rate && (!llmmem__muladd(&layer, tokens / rate, entry) ||
                      !llmmem__muladd(&layer, 2 * (tokens % rate), buffer) ||
                      (row->overlap && tokens >= rate && !llmmem__muladd(&layer, 2 * rate, entry)))) ||
            !llmmem__muladd(&elements, n, layer))
            return overflow("contiguous KV cache bytes");
    }
    if (!llmmem__mul(&elements, elements, llmmem__kv_element_bytes(dtype)) || !llmmem__mul(out, elements, sequences))
        return overflow("contiguous KV cache bytes");
    return LLMMEM_OK;
}

llmmem_status llmmem__kv_contiguous_bytes(uint64_t *bytes_out, const llmmem_model *m, llmmem_kv_cache_dtype dtype,
                                          uint64_t sequences, uint64_t tokens_each)
{
    const llmmem__geometry *a = NULL;
    llmmem_status st = llmmem__kv_shape_modelled(&a, m, LLMMEM__KV_COMPRESSED);
    if (st)
        return st;
    if (a->compressed_layers || a->hc_mult)
        return dsv4_contiguous(bytes_out, m, a, dtype, sequences, tokens_each);
    if (llmmem__state_kinds(a) > 1)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "a model with state layers of more than one kind (Mamba-2, Gated "
                            "DeltaNet, Mamba-1) is not modelled");
    uint64_t token_layer = 0, sliding = llmmem__sliding_layers(a, 0, a->layers);
    uint64_t attention = llmmem__layers_in(&a->plan, a->attention, 0, a->layers), state = 0, full = attention - sliding;
    if (attention && (st = llmmem__kv_token_layer_bytes(&token_layer, a, dtype, 1, 1)) != LLMMEM_OK)
        return st;
    if (a->kv_token_global.heads && full) {
        /* Gemma4TextAttention: the full layers cache num_global_key_value_heads of global_head_dim; the KV-shared
         * layers (not attention kinds here) update no cache (past_key_values.update skipped) */
        uint64_t global_layer, x = 0;
        if ((st = llmmem__kv_full_token_layer_bytes(&global_layer, a, dtype, 1, 1)) != LLMMEM_OK)
            return st;
        if (!llmmem__kv_contiguous_layers(&x, global_layer, full, 0, 0, sequences, tokens_each))
            return overflow("contiguous KV cache bytes");
        full = 0;
        *bytes_out = x;
    } else {
        *bytes_out = 0;
    }
    /* transformers cache_utils.py: a full layer keeps every token (DynamicLayer, StaticLayer); a
     * sliding layer min(sliding_window, max_cache_len) of them (StaticSlidingWindowLayer) */
    uint64_t rest;
    if (!llmmem__kv_contiguous_layers(&rest, token_layer, full, sliding, a->window, sequences, tokens_each) ||
        !llmmem__add(bytes_out, *bytes_out, rest))
        return overflow("contiguous KV cache bytes");
    if (a->cross_layers && sequences && tokens_each) {
        /* transformers models/mllama/modeling_mllama.py MllamaTextCrossAttention: the image's keys and
         * values (one image of image_tokens a sequence), repeat_kv'd to every query head, then cached */
        llmmem__geometry cross = *a;
        uint64_t cross_layer, image = 0;
        cross.kv_token.heads = a->cross_heads;
        if ((st = llmmem__kv_token_layer_bytes(&cross_layer, &cross, dtype, 1, 1)) != LLMMEM_OK)
            return st;
        if (!llmmem__kv_contiguous_layers(&image, cross_layer, a->cross_layers, 0, 0, sequences, a->image_tokens) ||
            !llmmem__add(bytes_out, *bytes_out, image))
            return overflow("contiguous KV cache bytes");
    }
    uint64_t state_layers = llmmem__state_layers(a);
    if (state_layers && sequences && tokens_each &&
        (!llmmem__mul(&state, contiguous_state_layer(a, llmmem__kv_element_bytes(llmmem__model_dtype(m))),
                      state_layers) ||
         !llmmem__mul(&state, state, sequences) || !llmmem__add(bytes_out, *bytes_out, state)))
        return overflow("contiguous state bytes");
    return LLMMEM_OK;
}

/* The rank's share of the contiguous cache: its layers' part of the whole model's cache, and its KV
 * heads' part of that (llmmem__kv_heads_per_rank), rounded up. */
llmmem_status llmmem__kv_rank_bytes(uint64_t *bytes_out, const llmmem_model *m, llmmem_kv_cache_dtype dtype,
                                    uint64_t sequences, uint64_t tokens_each, uint64_t layers, uint64_t t)
{
    uint64_t kv;
    if ((m->geo.kv_token_global.heads || m->geo.kv_shared_layers) && (layers != m->geo.layers || t != 1))
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "the share of a tensor- or pipeline-parallel rank of the "
                            "contiguous cache of full and sliding layers of different widths or KV-shared layers "
                            "(gemma4) is not modelled");
    if ((m->geo.compressed_layers || m->geo.hc_mult) && layers != m->geo.layers)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "the share of a pipeline-parallel rank (%llu of %llu layers) of "
                            "deepseek_v4's contiguous cache is not modelled: its sliding, compressed sparse and "
                            "heavily compressed layers hold different bytes", (unsigned long long)layers,
                            (unsigned long long)m->geo.layers);
    if (llmmem__state_layers(&m->geo) && (layers != m->geo.layers || t != 1))
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "the share of a tensor- or pipeline-parallel rank of the "
                            "contiguous cache of Mamba-2, Gated DeltaNet and Mamba-1 layers is not modelled");
    llmmem_status st = llmmem__kv_contiguous_bytes(&kv, m, dtype, sequences, tokens_each);
    if (st)
        return st;
    if (llmmem__state_layers(&m->geo)) { /* one rank holds it all (checked above) */
        *bytes_out = kv;
        return LLMMEM_OK;
    }
    kv = llmmem__scaled(kv, layers, m->geo.layers);
    *bytes_out = llmmem__scaled(kv, llmmem__kv_heads_per_rank(&m->geo, t), m->geo.kv_heads);
    return LLMMEM_OK;
}

llmmem_status llmmem_kv_cache_bytes(uint64_t *bytes_out, const llmmem_model *model, const llmmem_strategy *strategy,
                                    uint64_t sequences, uint64_t tokens_each)
{
    LLMMEM_REQUIRE(bytes_out);
    LLMMEM_REQUIRE(model);
    LLMMEM_REQUIRE(strategy);
    return llmmem__kv_contiguous_bytes(bytes_out, model, llmmem__kv_dtype(model, strategy), sequences, tokens_each);
}
