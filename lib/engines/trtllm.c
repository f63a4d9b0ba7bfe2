/*
 * TensorRT-LLM's KV cache manager at start-up: the budget free_gpu_memory_fraction takes of the free
 * memory, the tokens it holds and the whole blocks they round up to (NVIDIA/TensorRT-LLM
 * cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp BaseKVCacheManager::calculateFreeMemBytes and
 * calculateMaxNumBlocks; tensorrt_llm/_torch/pyexecutor/_util.py KvCacheCreator for the PyTorch
 * backend; tensorrt_llm/llmapi KvCacheConfig for the defaults). Two executors:
 *   - engine (a trtllm-build engine): the fraction of the memory free once the engine, its runtime
 *     buffers and the decoder are loaded;
 *   - pytorch (trtllm-serve and the LLM API since 1.0): a profile of dummy prefill requests of
 *     max_num_tokens tokens with a temporary KV cache, then the fraction of what its peak left (the
 *     temporary cache added back); CUDA graphs and NCCL are in the peak, measured as non-torch memory.
 * Python's arithmetic is in doubles, the C++ fraction a float. No allocation, no I/O.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "inventory/mixers.h"
#include "job/job.h"
#include "views/kv.h"
#include "engines/serving.h"

static llmmem_status overflow(const char *what)
{
    return llmmem__fail(LLMMEM_ERR_OVERFLOW, "%s exceeds 64 bits", what);
}

/* KvCacheConfig.dtype: auto (the checkpoint's: the model's 16-bit dtype), or fp8 when the checkpoint
 * is quantized so; fp16 and bf16 as given. */
static llmmem_status trtllm_kv_dtype(llmmem_kv_cache_dtype *out, llmmem_kv_cache_dtype d)
{
    switch (d) {
    case LLMMEM_KV_CACHE_FP16:
    case LLMMEM_KV_CACHE_BF16:
    case LLMMEM_KV_CACHE_FP32:
        *out = d;
        return LLMMEM_OK;
    case LLMMEM_KV_CACHE_FP8:
    case LLMMEM_KV_CACHE_FP8_E4M3:
        *out = LLMMEM_KV_CACHE_FP8_E4M3;
        return LLMMEM_OK;
    default:
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "kv_cache_dtype (%s) is not modelled for TensorRT-LLM: use auto, "
                            "fp16, bf16 or fp8", llmmem__kv_dtype_name(d));
    }
}

/* minimax_m3_vl: the sparse attention config (algorithm minimax_m3) selects MiniMaxM3KVCacheManagerV2
 * (attention/backends/sparse/minimax_m3/cache_manager.py), a KVCacheManagerV2 that adds an index-key buffer
 * (sparse_index_dim x indexer_kv_dtype, one head on every rank) to each indexer layer's block; V2 takes a byte
 * quota (_util.py KvCacheCreator: max_gpu_total_bytes, not max_tokens) and the runtime cuts it into pool groups
 * of whole physical chunks (runtime/kv_cache_manager_v2 StorageManager), a rule not modelled here */
static llmmem_status trtllm_refuse_indexed(const llmmem__geometry *a)
{
    if (!a->index_layers)
        return LLMMEM_OK;
    return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                        "TensorRT-LLM's KV cache of minimax_m3_vl (a lightning indexer on %llu standard-attention "
                        "layers) is not modelled: TensorRT-LLM serves it with MiniMaxM3KVCacheManagerV2, a "
                        "KVCacheManagerV2 that pages each indexer layer's index keys (sparse_index_dim, "
                        "indexer_kv_dtype) beside K and V and sizes its pools from a byte quota (max_gpu_total_bytes) "
                        "in whole physical chunks, not from max_tokens and tokens_per_block as the modelled "
                        "KVCacheManager; vLLM serving of it is modelled",
                        (unsigned long long)a->index_layers);
}

/* Mamba-2 and Gated DeltaNet: _torch/pyexecutor/mamba_cache_manager.py MambaHybridCacheManager (newer:
 * MixedMambaHybridCacheManager) pages the attention layers and keeps each request's conv state
 * (conv_dim / tp x (conv_kernel - 1), the model's dtype) and SSM state (heads / tp x head_dim x state,
 * mamba_ssm_cache_dtype) in max_batch_size + 1 slots (PythonMambaCacheManager: a CUDA-graph padding slot);
 * how a release's KvCacheCreator takes them out of the KV budget (newer: the (slope, intercept) of
 * _estimate_mamba_hybrid_cache_cost, with auxiliary state) and what the profile's dummy requests hold
 * changed from release to release and are not modelled here (research/trtmamba/notes.md) */
static llmmem_status trtllm_refuse_state(const llmmem__geometry *a)
{
    const llmmem__mixer_row *row = llmmem__state_row(a);
    if (!row)
        return LLMMEM_OK;
    const unsigned long long n = (unsigned long long)row->layers(a);
    if (llmmem__state_kinds(a) == 1 && (row->id == LLMMEM_MIXER_SSM || row->id == LLMMEM_MIXER_LINEAR))
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "TensorRT-LLM's cache of a model with %llu %s layers is not modelled: its PyTorch "
                            "backend keeps Mamba-2 and Gated DeltaNet state (Nemotron-H, Qwen3-Next) in a "
                            "MambaHybridCacheManager (MixedMambaHybridCacheManager in newer releases) that pages "
                            "only the attention layers and gives each of max_batch_size + 1 slots (one for CUDA-graph "
                            "padding) a conv state (conv_dim / tp x (conv_kernel - 1), the model's dtype) and an SSM "
                            "state (heads / tp x head_dim x state, mamba_ssm_cache_dtype) per layer; how its "
                            "KvCacheCreator takes those slots out of the KV budget (newer releases: (budget - "
                            "slots x state) // attention bytes per token, with auxiliary state) and what the "
                            "profile's dummy requests hold differ between releases and are not modelled; "
                            "engine vllm models the state",
                            n, row->label);
    return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                        "%llu %s layers under TensorRT-LLM are not modelled: its PyTorch backend's hybrid cache "
                        "managers (MambaHybridCacheManager) hold the state of Mamba-2 and Gated DeltaNet layers "
                        "(Nemotron-H, Qwen3-Next), one kind in a model",
                        n, row->label);
}

static llmmem_status trtllm_serve(llmmem_serving *out, const llmmem_model *model, const llmmem__serve_inputs *in)
{
    llmmem__served p;
    llmmem_serving *r = out;
    const llmmem__serve_settings *set = &in->set;
    llmmem_status st = llmmem__serving_prepare(&p, r, model, in, "TensorRT-LLM's KV cache manager",
                                               LLMMEM__KV_INDEXED);
    if (st || (st = trtllm_refuse_indexed(p.a)) != LLMMEM_OK)
        return st;
    const llmmem__geometry *a = p.a;
    int64_t version;
    if ((st = llmmem__serving_version(&version, in, LLMMEM_ENGINE_TRTLLM)) != LLMMEM_OK)
        return st;
    const uint64_t tp = p.tp;
    if (r->pp > 1)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "pipeline_parallel (%llu) under TensorRT-LLM is not modelled",
                            (unsigned long long)r->pp);
    if ((st = trtllm_refuse_state(a)) != LLMMEM_OK)
        return st;
    if (a->index_cache)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "DeepSeek's sparse attention indexer under TensorRT-LLM is not "
                            "modelled");
    if (!a->kv_lora_rank && a->kv_heads < tp)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "tensor_parallel (%llu) above num_key_value_heads (%llu) under "
                            "TensorRT-LLM is not modelled", (unsigned long long)tp, (unsigned long long)a->kv_heads);
    if ((st = trtllm_kv_dtype(&r->dtype, in->kv)) != LLMMEM_OK)
        return st;
    const int pytorch = set->trtllm_backend == LLMMEM_TRTLLM_PYTORCH;

    /* bytes per token: resource_manager.py KVCacheManager.get_cache_size_per_token, kv_factor (2, MLA 1) x
     * kv heads / tp x head_dim (MLA kv_lora_rank + qk_rope_head_dim) x layers x dtype, every layer with
     * one attention window (max_attention_window unset: sliding layers keep the whole sequence) */
    uint64_t token_layer, per_token;
    if ((st = llmmem__kv_token_layer_bytes(&token_layer, a, r->dtype, tp, 0)) != LLMMEM_OK)
        return st;
    if (!llmmem__mul(&per_token, token_layer, a->layers))
        return overflow("KV bytes per token");
    const uint64_t tpb = llmmem__serve_or(set->block_size, 32); /* KvCacheConfig.tokens_per_block */
    const uint64_t max_num_tokens = llmmem__serve_or(set->max_num_batched_tokens, 8192);
    const uint64_t max_batch = llmmem__serve_or(set->max_num_seqs, 2048); /* BuildConfig.max_batch_size */
    uint64_t positions = (uint64_t)llmmem__model_value(model, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS);
    if (set->max_model_len < 0)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "max_model_len auto (-1) is vLLM's; TensorRT-LLM takes a "
                            "max_seq_len");
    const uint64_t max_seq_len = llmmem__serve_or(set->max_model_len, positions ? positions : 2048);
    /* KvCacheConfig.free_gpu_memory_fraction is a C++ float (the PyTorch path logs 0.8999999761581421) */
    const double fraction = (double)(float)set->free_gpu_memory_fraction;

    int64_t w_set = set->profile_weights_bytes, act_set = set->profile_activation_bytes;
    int64_t nt_set = set->profile_non_torch_bytes, graphs_set = set->cuda_graph_bytes;
    uint64_t weights, act = 0, graphs = graphs_set > 0 && !set->enforce_eager ? (uint64_t)graphs_set : 0;
    if (w_set >= 0)
        weights = (uint64_t)w_set;
    else if ((st = llmmem__serving_rank_weights(&weights, model, in, tp)) != LLMMEM_OK)
        return st;

    /* _util.py KvCacheCreator._create_dummy_context_requests / _get_token_num_for_estimation: prompts of
     * min(max_num_tokens, max_seq_len - 1) tokens totalling max_num_tokens, each with one generated token,
     * each rounded up to whole blocks: the temporary KV cache of the profile */
    uint64_t prompt = max_num_tokens < max_seq_len - 1 ? max_num_tokens : max_seq_len - 1, estimation = 0, dummies = 0;
    if (prompt == 0)
        prompt = 1;
    for (uint64_t left = max_num_tokens; left > 0; dummies++) {
        uint64_t len = left < prompt ? left : prompt;
        estimation += llmmem__ceil_div(len + 1, tpb) * tpb;
        left -= len;
    }
    uint64_t tmp_kv;
    if (!llmmem__mul(&tmp_kv, estimation, per_token))
        return overflow("the temporary KV cache");
    if (act_set >= 0) {
        act = (uint64_t)act_set;
    } else {
        /* the dummy prefill's forward over max_num_tokens tokens, and the logits of each request's last
         * token (the engine's activation buffers are sized for the same max_num_tokens) */
        if ((st = llmmem__serving_activation_peak(&act, model, p.activations, a, tp, 0, a->layers, max_num_tokens,
                                                  pytorch ? dummies : 0)) != LLMMEM_OK)
            return st;
    }
    uint64_t overhead = in->dev.runtime;
    /* the PyTorch path measures outside torch ("Memory used outside torch (e.g., NCCL and CUDA graphs)")
     * the runtime's share, the graphs and the temporary KV cache it allocated itself */
    uint64_t non_torch = nt_set >= 0 ? (uint64_t)nt_set : overhead + graphs + (pytorch ? tmp_kv : 0);

    uint64_t used = 0, free_bytes = 0, shortfall = 0;
    if (!llmmem__add(&used, weights, act) || !llmmem__add(&used, used, non_torch))
        return overflow("memory in use");
    if (pytorch) {
        /* _util.py KvCacheCreator.configure_kv_cache_capacity / _cal_max_memory: peak = torch peak +
         * non-torch; available = (total - peak + the temporary cache) x fraction */
        int64_t measured = set->kv_free_bytes;
        if (measured >= 0)
            free_bytes = (uint64_t)measured;
        else if (p.memory + tmp_kv > used)
            free_bytes = p.memory + tmp_kv - used;
        else
            shortfall = used - p.memory - tmp_kv;
    } else {
        /* kvCacheManager.cpp calculateFreeMemBytes: cudaMemGetInfo's free once the engine is loaded (its
         * weights, activation buffers, the runtime's share and any graphs) */
        int64_t measured = set->kv_free_bytes;
        if (measured >= 0)
            free_bytes = (uint64_t)measured;
        else if (p.memory > used)
            free_bytes = p.memory - used;
        else
            shortfall = used - p.memory;
    }
    double budget = (double)free_bytes * fraction;
    uint64_t kv_bytes = (uint64_t)budget;
    /* PyTorch: max_tokens = int(available // kv_size), then the C++ manager's blocks; engine:
     * calculateMaxNumBlocks maxTokens = uint64(allotted / bytes per token) */
    uint64_t max_tokens = pytorch ? (uint64_t)floor(budget / (double)per_token) : kv_bytes / per_token;
    uint64_t cap = set->max_total_tokens;
    if (cap && cap < max_tokens) /* KvCacheConfig.max_tokens: "The smaller value will be used" */
        max_tokens = cap;
    /* calculateMaxNumBlocks: blocks = ceilDiv(maxTokens, tokens_per_block) (rounds up) */
    uint64_t blocks = llmmem__ceil_div(max_tokens, tpb), tokens = blocks * tpb;

    r->max_model_len = max_seq_len;
    r->pool.block = tpb;
    r->pool.full_groups = 1;
    r->pool.token_layer = token_layer;
    r->pool.group_layers = a->layers;
    r->pool.num_blocks = blocks;
    r->pool.batched = max_num_tokens;
    r->pool.n = set->n;
    r->pool.prefix = set->shared_prefix_tokens;
    r->pool.prompt = set->prompt_tokens;
    r->pool.prefix_caching = set->enable_prefix_caching; /* KvCacheConfig.enable_block_reuse */
    r->page = token_layer * tpb;
    r->seq_cap = max_batch;
    uint64_t request = llmmem__serve_or(set->request_tokens, max_seq_len);
    if ((st = llmmem__serving_check_request(r, request, "TensorRT-LLM")) != LLMMEM_OK)
        return st;

    uint64_t *v = r->v, need = 0, longest;
    if ((st = llmmem__serving_requests(&v[LLMMEM_SERVING_MAX_CONCURRENCY], r, request)) != LLMMEM_OK ||
        (st = llmmem__serving_longest(&longest, r)) != LLMMEM_OK)
        return st;
    if (!llmmem__kv_pool_blocks(&need, &r->pool, request) ||
        !llmmem__kv_pool_waste(&v[LLMMEM_SERVING_WASTE_BYTES], &r->pool, request))
        return overflow("blocks of a request");
    v[LLMMEM_SERVING_MEMORY_BYTES] = p.memory;
    v[LLMMEM_SERVING_WEIGHTS] = weights;
    v[LLMMEM_SERVING_ACTIVATION_PEAK] = act;
    v[LLMMEM_SERVING_NON_TORCH] = non_torch;
    v[LLMMEM_SERVING_CUDA_GRAPH] = graphs;
    v[LLMMEM_SERVING_KV_CACHE_BYTES] = kv_bytes;
    v[LLMMEM_SERVING_SHORTFALL] = shortfall;
    v[LLMMEM_SERVING_BYTES_PER_TOKEN] = per_token;
    v[LLMMEM_SERVING_PAGE_BYTES] = r->page;
    if (!llmmem__mul(&v[LLMMEM_SERVING_BLOCK_BYTES], per_token, tpb) ||
        !llmmem__mul(&v[LLMMEM_SERVING_POOL_BYTES], tokens, per_token))
        return overflow("KV pool bytes");
    v[LLMMEM_SERVING_NUM_BLOCKS] = blocks;
    v[LLMMEM_SERVING_TOKENS] = tokens;
    v[LLMMEM_SERVING_GROUPS] = 1;
    v[LLMMEM_SERVING_LAYERS_PER_GROUP] = a->layers;
    v[LLMMEM_SERVING_KV_HEADS_PER_RANK] = llmmem__kv_heads_per_rank(a, tp);
    v[LLMMEM_SERVING_LAYERS_PER_STAGE] = a->layers;
    v[LLMMEM_SERVING_BLOCK_SIZE] = tpb;
    v[LLMMEM_SERVING_MAX_NUM_BATCHED_TOKENS] = max_num_tokens;
    v[LLMMEM_SERVING_MAX_NUM_SEQS] = max_batch;
    v[LLMMEM_SERVING_MAX_MODEL_LEN_SETTING] = max_seq_len;
    /* PyTorch-path logs: "Attention window size ... exceeds upper bound ... Adjusted max_seq_len" */
    v[LLMMEM_SERVING_MAX_MODEL_LEN] = longest;
    v[LLMMEM_SERVING_REQUEST_TOKENS] = request;
    v[LLMMEM_SERVING_BLOCKS_PER_REQUEST] = need;
    /* it starts with blocks for at least one token; a max_seq_len the blocks do not hold is lowered */
    v[LLMMEM_SERVING_FITS] = blocks > 0 && shortfall == 0;
    v[LLMMEM_SERVING_ENGINE] = LLMMEM_ENGINE_TRTLLM;
    v[LLMMEM_SERVING_ENGINE_VERSION] = (uint64_t)version;
    v[LLMMEM_SERVING_MEMORY_FRACTION_X10000] = llmmem__serving_x10000(fraction);
    v[LLMMEM_SERVING_FREE_BYTES] = free_bytes;
    v[LLMMEM_SERVING_MAX_TOKENS] = max_tokens;
    v[LLMMEM_SERVING_ESTIMATION_TOKENS] = pytorch ? estimation : 0;
    llmmem__serving_finish(r, model, in);
    return LLMMEM_OK;
}

#define N_(a) (sizeof a / sizeof a[0])

static const llmmem_serving_value trtllm_budget[] = {
    LLMMEM_SERVING_MEMORY_BYTES,    LLMMEM_SERVING_WEIGHTS,      LLMMEM_SERVING_ACTIVATION_PEAK,
    LLMMEM_SERVING_NON_TORCH,       LLMMEM_SERVING_CUDA_GRAPH,   LLMMEM_SERVING_FREE_BYTES,
    LLMMEM_SERVING_MEMORY_FRACTION_X10000, LLMMEM_SERVING_KV_CACHE_BYTES, LLMMEM_SERVING_POOL_BYTES,
    LLMMEM_SERVING_SHORTFALL};
static const llmmem_serving_value trtllm_kv[] = {
    LLMMEM_SERVING_BYTES_PER_TOKEN,  LLMMEM_SERVING_BLOCK_BYTES,    LLMMEM_SERVING_NUM_BLOCKS,
    LLMMEM_SERVING_MAX_TOKENS,       LLMMEM_SERVING_TOKENS,         LLMMEM_SERVING_BLOCK_SIZE,
    LLMMEM_SERVING_ESTIMATION_TOKENS, LLMMEM_SERVING_KV_HEADS_PER_RANK, LLMMEM_SERVING_MAX_NUM_BATCHED_TOKENS,
    LLMMEM_SERVING_MAX_NUM_SEQS,     LLMMEM_SERVING_MAX_MODEL_LEN_SETTING, LLMMEM_SERVING_MAX_MODEL_LEN,
    LLMMEM_SERVING_REQUEST_TOKENS,   LLMMEM_SERVING_BLOCKS_PER_REQUEST, LLMMEM_SERVING_WASTE_BYTES,
    LLMMEM_SERVING_MAX_CONCURRENCY,  LLMMEM_SERVING_FITS};
static const llmmem__json_section trtllm_json[] = {{"budget", trtllm_budget, N_(trtllm_budget)},
                                                   {"kv", trtllm_kv, N_(trtllm_kv)}};

const llmmem__engine_desc llmmem__trtllm_engine = {LLMMEM_ENGINE_TRTLLM, "TensorRT-LLM", trtllm_serve, trtllm_json,
                                                   N_(trtllm_json), 0};
