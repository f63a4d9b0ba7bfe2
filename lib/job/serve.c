/* A serving estimate's inputs resolved once: the serving keys as given, the device's facts, the served
 * format with its weight plan and KV elements (serve.h). */
#include <string.h>

#include "job/serve.h"

/* The settings arrays hold a slot per key number modulo 1000 (internal.h). */
_Static_assert(LLMMEM_KEY_NUM_SPECULATIVE_TOKENS % 1000 < LLMMEM_SLOTS, "serving keys need a settings slot");
_Static_assert(LLMMEM_KEY_KV_FREE_BYTES % 1000 < LLMMEM_SLOTS, "engine keys need a settings slot");

static int64_t sv(const llmmem_strategy *s, llmmem_key key)
{
    return llmmem__get_int(&s->s, key);
}

static double sr(const llmmem_strategy *s, llmmem_key key)
{
    return llmmem__get_real(&s->s, key);
}

static void settings_of(llmmem__serve_settings *o, const llmmem_strategy *s)
{
    o->engine = sv(s, LLMMEM_KEY_ENGINE);
    o->version = sv(s, LLMMEM_KEY_ENGINE_VERSION);
    o->mode = sv(s, LLMMEM_KEY_MODE);
    o->tp = (uint64_t)sv(s, LLMMEM_KEY_TENSOR_PARALLEL);
    o->pp = (uint64_t)sv(s, LLMMEM_KEY_PIPELINE_PARALLEL);
    o->speculative_method = sv(s, LLMMEM_KEY_SPECULATIVE_METHOD);
    o->num_speculative_tokens = (uint64_t)sv(s, LLMMEM_KEY_NUM_SPECULATIVE_TOKENS);
    o->block_size = sv(s, LLMMEM_KEY_BLOCK_SIZE);
    o->max_num_batched_tokens = sv(s, LLMMEM_KEY_MAX_NUM_BATCHED_TOKENS);
    o->max_num_seqs = sv(s, LLMMEM_KEY_MAX_NUM_SEQS);
    o->max_model_len = sv(s, LLMMEM_KEY_MAX_MODEL_LEN);
    o->request_tokens = sv(s, LLMMEM_KEY_REQUEST_TOKENS);
    o->encoder_cache_size = sv(s, LLMMEM_KEY_ENCODER_CACHE_SIZE);
    o->cuda_graph_max_bs = sv(s, LLMMEM_KEY_CUDA_GRAPH_MAX_BS);
    o->shared_prefix_tokens = (uint64_t)sv(s, LLMMEM_KEY_SHARED_PREFIX_TOKENS);
    o->prompt_tokens = (uint64_t)sv(s, LLMMEM_KEY_PROMPT_TOKENS);
    o->n = (uint64_t)sv(s, LLMMEM_KEY_N);
    o->enable_prefix_caching = sv(s, LLMMEM_KEY_ENABLE_PREFIX_CACHING) != 0;
    o->disable_hybrid_kv_cache_manager = sv(s, LLMMEM_KEY_DISABLE_HYBRID_KV_CACHE_MANAGER) != 0;
    o->enforce_eager = sv(s, LLMMEM_KEY_ENFORCE_EAGER) != 0;
    o->max_pixels = (uint64_t)sv(s, LLMMEM_KEY_MAX_PIXELS);
    o->limit_mm_per_prompt = (uint64_t)sv(s, LLMMEM_KEY_LIMIT_MM_PER_PROMPT);
    o->mm_max_tokens_per_item = (uint64_t)sv(s, LLMMEM_KEY_MM_MAX_TOKENS_PER_ITEM);
    o->mamba_cache_dtype = sv(s, LLMMEM_KEY_MAMBA_CACHE_DTYPE);
    o->mamba_ssm_cache_dtype = sv(s, LLMMEM_KEY_MAMBA_SSM_CACHE_DTYPE);
    o->mamba_radix_cache_strategy = sv(s, LLMMEM_KEY_MAMBA_RADIX_CACHE_STRATEGY);
    o->kv_cache_dtype = sv(s, LLMMEM_KEY_KV_CACHE_DTYPE);
    o->profile_weights_bytes = sv(s, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES);
    o->profile_activation_bytes = sv(s, LLMMEM_KEY_PROFILE_ACTIVATION_BYTES);
    o->profile_non_torch_bytes = sv(s, LLMMEM_KEY_PROFILE_NON_TORCH_BYTES);
    o->cuda_graph_bytes = sv(s, LLMMEM_KEY_CUDA_GRAPH_BYTES);
    o->pre_model_load_bytes = sv(s, LLMMEM_KEY_PRE_MODEL_LOAD_BYTES);
    o->kv_free_bytes = sv(s, LLMMEM_KEY_KV_FREE_BYTES);
    o->kv_cache_memory_bytes = (uint64_t)sv(s, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES);
    o->max_mamba_cache_size = (uint64_t)sv(s, LLMMEM_KEY_MAX_MAMBA_CACHE_SIZE);
    o->max_total_tokens = (uint64_t)sv(s, LLMMEM_KEY_MAX_TOTAL_TOKENS);
    o->trtllm_backend = sv(s, LLMMEM_KEY_TRTLLM_BACKEND);
    o->gpu_memory_utilization = sr(s, LLMMEM_KEY_GPU_MEMORY_UTILIZATION);
    o->mem_fraction_static = sr(s, LLMMEM_KEY_MEM_FRACTION_STATIC);
    o->free_gpu_memory_fraction = sr(s, LLMMEM_KEY_FREE_GPU_MEMORY_FRACTION);
    o->mamba_full_memory_ratio = sr(s, LLMMEM_KEY_MAMBA_FULL_MEMORY_RATIO);
    o->swa_full_tokens_ratio = sr(s, LLMMEM_KEY_SWA_FULL_TOKENS_RATIO);
}

static void device_of(llmmem__serve_device *d, const llmmem_hardware *hw)
{
    memset(d, 0, sizeof *d);
    d->name = "";
    if (hw == NULL)
        return;
    const llmmem__settings *k = &hw->s;
    d->memory = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_MEMORY_BYTES);
    d->driver_total = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_DRIVER_TOTAL_BYTES);
    d->runtime = llmmem__runtime_overhead(hw, 0);
    d->backend = llmmem__get_int(k, LLMMEM_KEY_BACKEND);
    /* vLLM's startup default for `vllm serve` (engine/arg_utils.py EngineArgs.get_batch_defaults,
     * OPENAI_API_SERVER): devices of at least 70 GiB that are not A100s get 8192 batched tokens and
     * 1024 sequences, others 2048 and 256 */
    d->large = d->memory >= (70ULL << 30) && strstr(hw->name, "a100") == NULL;
    d->name = hw->name;
}

void llmmem__serve_inputs_make(llmmem__serve_inputs *out, const llmmem_model *m, const llmmem_hardware *hw,
                               const llmmem_strategy *s)
{
    settings_of(&out->set, s);
    device_of(&out->dev, hw);
    out->plan_status = LLMMEM_OK;
    memset(&out->plan, 0, sizeof out->plan);
    out->from_checkpoint = 0;
    out->kv = LLMMEM_KV_CACHE_AUTO;
    /* the strategy the engine runs: the model in the format it serves it in */
    llmmem_strategy served;
    out->served = LLMMEM_FORMAT_AUTO;
    if ((out->served_status = llmmem__serving_strategy(&served, &out->served, m, s)) != LLMMEM_OK) {
        memcpy(out->message, llmmem_last_message(), sizeof out->message);
        return;
    }
    out->kv = llmmem__kv_dtype(m, &served);
    out->from_checkpoint = llmmem__weights_from_checkpoint(m, &served);
    if ((out->plan_status = llmmem__weight_plan_make(&out->plan, m, &served)) != LLMMEM_OK)
        memcpy(out->message, llmmem_last_message(), sizeof out->message);
}

llmmem_status llmmem__serve_kept(const llmmem__serve_inputs *in, llmmem_status status)
{
    return status ? llmmem__fail(status, "%s", in->message) : LLMMEM_OK;
}

const char *llmmem__mamba_radix_cache_strategy_name(int64_t strategy)
{
    return llmmem_choice_name(LLMMEM_KEY_MAMBA_RADIX_CACHE_STRATEGY, strategy);
}
