/* Internal: KV cache arithmetic (kv.c): bytes per token and layer, the contiguous cache, vLLM's
 * paged blocks. Not installed. */
#ifndef LLMMEM_KV_H
#define LLMMEM_KV_H

#include "base/internal.h"

/* ---- bytes per token and layer ---------------------------------------------------------------- */

/* The model's geometry, when it has the shapes a cache needs; fails for an incomplete model or one
 * given by num_parameters alone. */
llmmem_status llmmem__kv_shape(const llmmem__geometry **a, const llmmem_model *m);
/* The same for a view that caches every layer's keys and values per token (vLLM's paged cache,
 * transformers' generate loop): fails for a model with cross-attention layers, whose cache holds the
 * image's keys and values instead (modelled in the contiguous cache alone). */
llmmem_status llmmem__kv_token_shape(const llmmem__geometry **a, const llmmem_model *m, const char *view);
/* Fails for a model with cross-attention layers, naming the view that cannot cost them. */
llmmem_status llmmem__kv_refuse_cross(const llmmem__geometry *a, const char *view);
/* What a view models beyond uniform attention layers (llmmem__kv_refuse_typed's `modelled`). */
enum {
    LLMMEM__KV_BLOCKS = 1, /* short-convolution layers and per-layer blocks (nemotron-nas) */
    LLMMEM__KV_TYPED = 2,  /* full and sliding layers of different widths and KV-shared layers (gemma4) */
    LLMMEM__KV_INDEXED = 4, /* minimax_m3_vl's index-key caches beside K and V on its lightning-indexer layers */
    LLMMEM__KV_COMPRESSED = 8 /* deepseek_v4's compressed attention layers and hyper-connections */
};
/* Fails for a model whose attention layers cache different widths, with KV-shared layers or per-layer input
 * embeddings (gemma4), or with short-convolution layers or per-layer blocks (nemotron-nas), unless `modelled`
 * (LLMMEM__KV_* bits) says the view models them, naming the view. */
llmmem_status llmmem__kv_refuse_typed(const llmmem__geometry *a, const char *view, int modelled);
/* The same for a user that costs the state of Mamba-2 and Gated DeltaNet layers too (serving). */
llmmem_status llmmem__kv_shape_with_state(const llmmem__geometry **a, const llmmem_model *m);
/* The same for a user that models what `modelled` (LLMMEM__KV_COMPRESSED) says. */
llmmem_status llmmem__kv_shape_modelled(const llmmem__geometry **a, const llmmem_model *m, int modelled);
/* Elements of one state layer's conv state and SSM (recurrent) state of one sequence on one of tp
 * ranks, as vLLM allocates them (mamba_utils.py MambaStateShapeCalculator); fails naming what tp
 * does not divide. */
llmmem_status llmmem__state_elements(uint64_t *conv, uint64_t *temporal, const llmmem__geometry *a, uint64_t tp);

/* Bytes of one element of a cache in d (fp8 and int8 modes: one; their scales are counted per
 * token by llmmem__kv_token_layer_bytes). */
uint64_t llmmem__kv_element_bytes(llmmem_kv_cache_dtype d);

/* Heads of a cache one tensor-parallel rank stores: vllm/config/model.py get_num_kv_heads,
 * max(1, g // tp) (heads replicated when there are fewer than ranks); MLA's latent is one head
 * on every rank (geometry kv_heads 1). */
static inline uint64_t llmmem__kv_rank_heads(uint64_t heads, uint64_t tp)
{
    return heads / tp > 0 ? heads / tp : 1;
}

/* The model's KV heads on one of tp ranks. */
static inline uint64_t llmmem__kv_heads_per_rank(const llmmem__geometry *a, uint64_t tp)
{
    return llmmem__kv_rank_heads(a->kv_heads, tp);
}

/* Bytes one token takes in one layer of vLLM's paged cache on one of tp ranks, or with
 * `contiguous` in the Hugging Face layout (they differ for MLA alone). Fails on a dtype the
 * attention cannot be cached in, or overflow. */
llmmem_status llmmem__kv_token_layer_bytes(uint64_t *out, const llmmem__geometry *a, llmmem_kv_cache_dtype d,
                                           uint64_t tp, int contiguous);
/* The same for the model's full-attention layers: their own heads and width where they differ from the
 * sliding layers' (gemma4's num_global_key_value_heads, global_head_dim), else llmmem__kv_token_layer_bytes. */
llmmem_status llmmem__kv_full_token_layer_bytes(uint64_t *out, const llmmem__geometry *a, llmmem_kv_cache_dtype d,
                                                uint64_t tp, int contiguous);

/* ---- paged blocks (vLLM) ---------------------------------------------------------------------- */

/* vLLM's KV cache groups of a model: every group has the same page size (kv.c llmmem__kv_groups_of). */
typedef struct llmmem__kv_groups {
    uint64_t full_groups, sliding_groups;
    uint64_t full, sliding; /* layers of each type the groups hold (sliding 0 when unified) */
} llmmem__kv_groups;

/* The groups of the model's layers; hybrid_disabled: --disable-hybrid-kv-cache-manager. */
llmmem__kv_groups llmmem__kv_groups_of(const llmmem__geometry *a, int hybrid_disabled);

/* Layers per group on the pipeline stage holding decoder layers [first, end). */
uint64_t llmmem__kv_group_layers(const llmmem__geometry *a, const llmmem__kv_groups *g, uint64_t first, uint64_t end);

/* The paged pool one request draws from: the groups of one rank of the binding stage, their
 * blocks, and the sharing settings of the requests. */
typedef struct llmmem__kv_pool {
    uint64_t block;                       /* block_size tokens */
    /* tokens a block of the full and of the windowed groups holds when vLLM unified pages of different sizes
     * (gemma4's full and sliding layers: llmmem__kv_unify_pages); 0: block */
    uint64_t full_block, window_block;
    uint64_t window, batched;             /* sliding_window (or attention_chunk_size), max_num_batched_tokens */
    int chunked;                          /* the windowed groups are chunked-attention layers, not sliding */
    uint64_t full_groups, sliding_groups;
    uint64_t state_groups;                /* groups of Mamba-2 / Gated DeltaNet layers: a block per sequence */
    uint64_t state_waste;                 /* bytes a sequence's state blocks hold past its state (padded
                                           * pages, padding layers of the groups) */
    uint64_t token_layer;                 /* paged bytes of one token in one layer on one rank (unified
                                           * pages: the page over block) */
    uint64_t group_layers;                /* layers per group on the binding stage */
    uint64_t num_blocks;                  /* blocks of the pool */
    uint64_t prefix, prompt, n;           /* shared_prefix_tokens, prompt_tokens, n */
    int prefix_caching;
} llmmem__kv_pool;

/* vLLM's pages when the full layers cache full_token bytes a token and layer and the sliding ones the pool's
 * token_layer: the smaller page's layers take proportionally more tokens a block, token_layer becomes the
 * larger page over block (full_block, window_block set); fails when the larger is not a multiple. */
llmmem_status llmmem__kv_unify_pages(llmmem__kv_pool *r, uint64_t full_token);

/* vLLM's pool of a model with a lightning indexer (minimax_m3_vl): one group of every layer's K/V page and the
 * indexer layers' key pages (UniformTypeKVCacheSpecs), one block table; sets token_layer to the bytes a token adds
 * to the group on one of tp ranks (the summed page over block) and group_layers to 1 (the summed page is the
 * group's). Fails for a kv_cache_dtype or block size vLLM's sparse backend refuses. */
llmmem_status llmmem__kv_indexed_pool(llmmem__kv_pool *r, const llmmem__geometry *a, llmmem_kv_cache_dtype d,
                                      uint64_t tp);

/* Blocks one sequence of `tokens` tokens needs; 0 on overflow. */
int llmmem__kv_pool_blocks(uint64_t *out, const llmmem__kv_pool *r, uint64_t tokens);
/* Bytes its blocks hold but its tokens do not fill; 0 on overflow. */
int llmmem__kv_pool_waste(uint64_t *out, const llmmem__kv_pool *r, uint64_t tokens);
/* Requests of `tokens` tokens that fit in the pool at once, with the prefix and prompt sharing;
 * 0 on overflow. */
int llmmem__kv_pool_requests(uint64_t *out, const llmmem__kv_pool *r, uint64_t tokens);

/* ---- contiguous (Hugging Face) ---------------------------------------------------------------- */

/* Bytes of `sequences` sequences of `tokens` on one rank of `full` full and `sliding` sliding
 * layers, token_layer bytes a token and layer, a sliding layer keeping at most `window`; 0 on
 * overflow. */
int llmmem__kv_contiguous_layers(uint64_t *out, uint64_t token_layer, uint64_t full, uint64_t sliding, uint64_t window,
                                 uint64_t sequences, uint64_t tokens);

/*
 * Bytes of a contiguous KV cache, as Hugging Face generate allocates it: `sequences` sequences of
 * `tokens_each` tokens each, every decoder layer of the whole model on one device (tensor_parallel
 * and pipeline_parallel apply to serving only for now). Sliding-window layers hold at most the
 * window (transformers cache_utils.py StaticSlidingWindowLayer). Keys and values are stored in the
 * strategy's kv_cache_dtype (auto: the model's 16- or 32-bit dtype). An MLA model is cached the
 * way transformers' DeepseekV3Attention does it: decompressed keys and values of every head, not
 * vLLM's latent. 0 sequences or 0 tokens give 0 bytes. No allocation; the message is set on
 * failure (incomplete model, a kv_cache_dtype the layout cannot hold, overflow).
 */
llmmem_status llmmem__kv_contiguous_bytes(uint64_t *bytes_out, const llmmem_model *m, llmmem_kv_cache_dtype dtype,
                                          uint64_t sequences, uint64_t tokens_each);

/* One rank's share of it: `layers` of the model's decoder layers, in proportion, and the KV heads of
 * one of t tensor-parallel ranks, in proportion (rounded up; saturating, for the caller's total to
 * report). */
llmmem_status llmmem__kv_rank_bytes(uint64_t *bytes_out, const llmmem_model *m, llmmem_kv_cache_dtype dtype,
                                    uint64_t sequences, uint64_t tokens_each, uint64_t layers, uint64_t t);

#endif
