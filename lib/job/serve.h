/* Internal: a serving estimate's inputs resolved once (serve.c): the settings vLLM, SGLang and
 * TensorRT-LLM read, as the strategy gives them; the device's facts; the format the model is served in,
 * with the weight plan and the KV cache elements it implies. The serving engines (engines/serving.c,
 * sglang.c, trtllm.c) read this and never the strategy or hardware handle. Not installed. */
#ifndef LLMMEM_JOB_SERVE_H
#define LLMMEM_JOB_SERVE_H

#include "job/job.h"

/* The serving keys as given. Sizes whose 0 leaves the engine its default stay signed (max_model_len -1
 * is vLLM's auto); so do the measured bytes, -1 when not measured. */
typedef struct llmmem__serve_settings {
    int64_t engine;                    /* llmmem_engine (auto: vLLM) */
    int64_t version;                   /* llmmem_engine_version; each engine checks the release is its own */
    int64_t mode;                      /* llmmem_mode: serving runs inference alone */
    uint64_t tp, pp;                   /* tensor_parallel, pipeline_parallel */
    int64_t speculative_method;        /* llmmem_speculative_method */
    uint64_t num_speculative_tokens;
    int64_t block_size, max_num_batched_tokens, max_num_seqs, max_model_len, request_tokens;
    int64_t encoder_cache_size, cuda_graph_max_bs;
    uint64_t shared_prefix_tokens, prompt_tokens, n;
    int enable_prefix_caching, disable_hybrid_kv_cache_manager, enforce_eager;
    uint64_t max_pixels, limit_mm_per_prompt, mm_max_tokens_per_item;
    int64_t mamba_cache_dtype, mamba_ssm_cache_dtype;
    int64_t mamba_radix_cache_strategy; /* SGLang: auto, no_buffer, extra_buffer, extra_buffer_lazy */
    int64_t kv_cache_dtype;            /* llmmem_kv_cache_dtype as given (auto unresolved) */
    int64_t profile_weights_bytes, profile_activation_bytes, profile_non_torch_bytes, cuda_graph_bytes;
    int64_t pre_model_load_bytes, kv_free_bytes;
    uint64_t kv_cache_memory_bytes, max_mamba_cache_size, max_total_tokens;
    int64_t trtllm_backend;            /* llmmem_trtllm_backend */
    double gpu_memory_utilization;     /* 0: the vLLM release's default */
    double mem_fraction_static;        /* 0: SGLang's rule */
    double free_gpu_memory_fraction, mamba_full_memory_ratio, swa_full_tokens_ratio;
} llmmem__serve_settings;

/* The hardware a serving engine reads. */
typedef struct llmmem__serve_device {
    uint64_t memory;       /* memory_bytes of one device (0: not set) */
    uint64_t driver_total; /* driver_total_bytes (0: not set) */
    uint64_t runtime;      /* bytes outside the engine's allocator (llmmem__runtime_overhead, not a PyTorch job) */
    int64_t backend;       /* llmmem_backend */
    int large;             /* vLLM's larger batch defaults apply */
    const char *name;      /* the hardware's name, for the result */
} llmmem__serve_device;

typedef struct llmmem__serve_inputs {
    llmmem__serve_settings set;
    llmmem__serve_device dev;
    llmmem_format served;             /* the format the model is served in (the dtype key resolved) */
    llmmem_kv_cache_dtype kv;         /* kv_cache_dtype, auto resolved to the served format */
    llmmem__weight_plan plan;         /* the served model's weights */
    int from_checkpoint;              /* the weights are the attached checkpoint's bytes */
    /* a failure to resolve the served format (served_status) or the plan (plan_status), reported where the
     * engine first needs them so that errors keep their order */
    llmmem_status served_status, plan_status;
    char message[LLMMEM_MESSAGE_MAX];
} llmmem__serve_inputs;

/* Resolves the inputs; cannot fail (what can is kept for the engine to report). hw NULL: no device
 * (llmmem_kv_bytes_per_token asks of the model and the strategy alone). */
void llmmem__serve_inputs_make(llmmem__serve_inputs *out, const llmmem_model *m, const llmmem_hardware *hw,
                               const llmmem_strategy *s);

/* A "0: derived" size: the value given, else `derived`. */
static inline uint64_t llmmem__serve_or(int64_t given, uint64_t derived)
{
    return given > 0 ? (uint64_t)given : derived;
}

/* Reports a kept failure (LLMMEM_OK when `status` is). */
llmmem_status llmmem__serve_kept(const llmmem__serve_inputs *in, llmmem_status status);
/* The name of a mamba_radix_cache_strategy value, for an engine's message. */
const char *llmmem__mamba_radix_cache_strategy_name(int64_t strategy);

#endif
