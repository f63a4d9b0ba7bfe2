/* Internal: KV cache bytes shared with the estimate (kvcache.c). Not installed. */
#ifndef LLMMEM_KVCACHE_H
#define LLMMEM_KVCACHE_H

#include "job.h"

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
llmmem_status llmmem__kv_cache_contiguous_bytes(uint64_t *bytes_out, const llmmem_model *m,
                                                const llmmem_strategy *s, uint64_t sequences,
                                                uint64_t tokens_each);
/* The same with the cache's element type resolved (job.c llmmem__kv_dtype). */
llmmem_status llmmem__kv_contiguous_bytes(uint64_t *bytes_out, const llmmem_model *m, llmmem_kv_cache_dtype dtype,
                                          uint64_t sequences, uint64_t tokens_each);

#endif
