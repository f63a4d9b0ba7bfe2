/* A local estimate's inputs resolved once: llama.cpp's keys as llama.cpp resolves them, ollama's as
 * given, the hardware's facts, the weight plan (llama.h). */
#include <string.h>

#include "job/llama.h"

static int64_t sv(const llmmem_strategy *s, llmmem_key key)
{
    return llmmem__get_int(&s->s, key);
}

/* ggml's device names: ggml-cuda "CUDA%d" (the ROCm build is ggml-cuda under HIP: "ROCm%d"),
 * ggml-metal "MTL%d", ggml-vulkan "Vulkan%d" */
static const char *backend_prefix(int64_t backend)
{
    switch (backend) {
    case LLMMEM_BACKEND_ROCM: return "ROCm";
    case LLMMEM_BACKEND_METAL: return "MTL";
    case LLMMEM_BACKEND_VULKAN: return "Vulkan";
    default: return "CUDA";
    }
}

static void device_of(llmmem__llama_device *d, const llmmem_hardware *hw)
{
    const llmmem__settings *k = &hw->s;
    d->backend = llmmem__get_int(k, LLMMEM_KEY_BACKEND);
    d->gpus = d->backend == LLMMEM_BACKEND_CPU ? 0 : (uint64_t)llmmem__get_int(k, LLMMEM_KEY_DEVICES_PER_NODE);
    d->num_nodes = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_NUM_NODES);
    d->memory = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_MEMORY_BYTES);
    d->overhead = llmmem__runtime_overhead(hw, 0);
    d->host_memory = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_HOST_MEMORY_BYTES);
    d->unified = llmmem__get_int(k, LLMMEM_KEY_UNIFIED_MEMORY) != 0;
    d->prefix = backend_prefix(d->backend);
    d->name = hw->name;
}

static void ollama_keys_of(llmmem__ollama_keys *o, const llmmem_strategy *s)
{
    o->num_ctx = (uint64_t)sv(s, LLMMEM_KEY_NUM_CTX);
    o->gpu_overhead = (uint64_t)sv(s, LLMMEM_KEY_GPU_OVERHEAD_BYTES);
    o->num_parallel = (uint64_t)sv(s, LLMMEM_KEY_NUM_PARALLEL);
    o->num_batch = (uint64_t)sv(s, LLMMEM_KEY_NUM_BATCH);
    o->n_ctx_max = (uint64_t)llmmem__key_info_get(LLMMEM_KEY_N_CTX)->max;
    o->num_gpu = sv(s, LLMMEM_KEY_NUM_GPU);
    o->flash_attn = sv(s, LLMMEM_KEY_FLASH_ATTN);
    o->kv_unified = sv(s, LLMMEM_KEY_KV_UNIFIED) != 0;
    o->sched_spread = sv(s, LLMMEM_KEY_SCHED_SPREAD) != 0;
    o->split_mode_set = llmmem__is_set(&s->s, LLMMEM_KEY_SPLIT_MODE);
}

/* The strategy's llama.cpp keys as llama.cpp resolves them. */
static void settings_of(llmmem__llama_settings *out, const llmmem_strategy *s, int64_t engine)
{
    memset(out, 0, sizeof *out);
    out->engine = engine == LLMMEM_ENGINE_OLLAMA ? LLMMEM_ENGINE_OLLAMA : LLMMEM_ENGINE_LLAMA_CPP;
    out->n_ctx = (uint64_t)sv(s, LLMMEM_KEY_N_CTX);
    out->n_batch = (uint64_t)sv(s, LLMMEM_KEY_N_BATCH);
    out->n_ubatch = (uint64_t)sv(s, LLMMEM_KEY_N_UBATCH);
    /* tools/server: -np -1 (auto) is 4 slots sharing one unified cache (PR 16736); llama-context.cpp
     * llama_context takes n_seq_max = max(1, n_parallel) */
    int64_t np = sv(s, LLMMEM_KEY_N_PARALLEL);
    out->n_seq_max = np < 0 ? 4 : np == 0 ? 1 : (uint64_t)np;
    out->n_gpu_layers = sv(s, LLMMEM_KEY_N_GPU_LAYERS);
    out->type_k = (llmmem_ggml_cache_type)sv(s, LLMMEM_KEY_CACHE_TYPE_K);
    out->type_v = (llmmem_ggml_cache_type)sv(s, LLMMEM_KEY_CACHE_TYPE_V);
    /* llama-context.cpp: flash_attn_type auto resolves to enabled when the device of every layer
     * supports the op; the CUDA, ROCm, Metal and Vulkan backends do */
    out->flash_attn = sv(s, LLMMEM_KEY_FLASH_ATTN) != 1;
    out->swa_full = sv(s, LLMMEM_KEY_SWA_FULL) != 0;
    out->kv_unified = sv(s, LLMMEM_KEY_KV_UNIFIED) != 0 || np < 0;
    out->offload_kqv = sv(s, LLMMEM_KEY_OFFLOAD_KQV) != 0;
    out->n_cpu_moe = (uint64_t)sv(s, LLMMEM_KEY_N_CPU_MOE);
    out->split_mode = (llmmem_split_mode)sv(s, LLMMEM_KEY_SPLIT_MODE);
    out->main_gpu = (uint64_t)sv(s, LLMMEM_KEY_MAIN_GPU);
    out->margin = (uint64_t)sv(s, LLMMEM_KEY_FIT_MARGIN_BYTES);
    out->n_split = (size_t)sv(s, LLMMEM_KEY_TENSOR_SPLIT);
    memcpy(out->split, s->tensor_split, sizeof out->split);
    if (out->engine == LLMMEM_ENGINE_OLLAMA)
        return; /* ollama.c resolves ollama's */
    /* common/fit.cpp common_params_fit_impl: the context only when the user left -c 0, the layers
     * only when -ngl, -ts and -ot (n_cpu_moe's overrides) were left alone */
    int fit = sv(s, LLMMEM_KEY_FIT) != 0;
    /* src/llama.cpp: "llama_params_fit is not implemented for SPLIT_MODE_TENSOR, abort": loaded unfitted */
    if (out->split_mode == LLMMEM_SPLIT_MODE_TENSOR)
        fit = 0;
    out->fit_ctx = fit && out->n_ctx == 0;
    out->fit = fit && out->n_gpu_layers < 0 && out->n_split == 0 && out->n_cpu_moe == 0;
}

void llmmem__llama_inputs_for(llmmem__llama_inputs *out, const llmmem_model *m, const llmmem_hardware *hw,
                              const llmmem_strategy *s, llmmem_engine engine)
{
    out->paged = engine == LLMMEM_ENGINE_VLLM;
    settings_of(&out->ls, s, engine);
    if (engine == LLMMEM_ENGINE_OLLAMA)
        ollama_keys_of(&out->ollama, s);
    device_of(&out->dev, hw);
    /* the plan's failure keeps its message for the point where the weights are first priced */
    if ((out->plan_status = llmmem__weight_plan_make(&out->plan, m, s)) != LLMMEM_OK)
        memcpy(out->plan_message, llmmem_last_message(), sizeof out->plan_message);
}

void llmmem__llama_inputs_make(llmmem__llama_inputs *out, const llmmem_model *m, const llmmem_hardware *hw,
                               const llmmem_strategy *s)
{
    llmmem__llama_inputs_for(out, m, hw, s, (llmmem_engine)sv(s, LLMMEM_KEY_ENGINE));
}

llmmem_status llmmem__llama_engine_check(const llmmem__llama_inputs *in)
{
    if (in->paged)
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "engine vllm pages its KV cache: use llmmem_serving_estimate "
                            "(llmmem serve); local inference takes engine llama.cpp or ollama");
    return LLMMEM_OK;
}
