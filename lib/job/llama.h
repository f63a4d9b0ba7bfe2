/* Internal: a local (llama.cpp or ollama) estimate's inputs resolved once (llama.c): llama.cpp's
 * settings as llama.cpp resolves its keys, ollama's keys as given (engines/ollama.c turns them into
 * llama.cpp's settings with the model's shape), the hardware's facts and the weight plan. The local
 * engines read this and never the strategy or hardware handle. Not installed. */
#ifndef LLMMEM_JOB_LLAMA_H
#define LLMMEM_JOB_LLAMA_H

#include "job/job.h"

/* llama.cpp's settings after every default and engine rule is applied: what llama_context and
 * llama_model_load see. */
typedef struct llmmem__llama_settings {
    llmmem_engine engine;        /* LLAMA_CPP or OLLAMA (whose defaults made these) */
    uint64_t n_ctx;              /* cells requested over all sequences (0 resolved to the model's) */
    uint64_t n_batch, n_ubatch;
    uint64_t n_seq_max;
    int64_t n_gpu_layers;        /* -1: all */
    llmmem_ggml_cache_type type_k, type_v;
    int flash_attn;              /* resolved: 0 or 1 */
    int swa_full, kv_unified, offload_kqv;
    uint64_t n_cpu_moe;
    llmmem_split_mode split_mode;
    uint64_t main_gpu;
    uint64_t margin;             /* bytes each GPU keeps free */
    int fit;                     /* n_gpu_layers left to llama-server --fit, the most that fit (ollama's num_gpu -1) */
    int fit_ctx;                 /* n_ctx left to --fit: the model's context, lowered until it fits */
    size_t n_split;              /* tensor_split values given (0: by free memory) */
    double split[LLMMEM__LIST_MAX];
} llmmem__llama_settings;

/* ollama's options and environment as the strategy gives them (engine ollama). */
typedef struct llmmem__ollama_keys {
    uint64_t num_ctx, gpu_overhead, num_parallel, num_batch; /* 0: ollama's default */
    uint64_t n_ctx_max;          /* llama-server's -c: the n_ctx key's bound (an int) */
    int64_t num_gpu;             /* -1: llama-server --fit picks the layers */
    int64_t flash_attn;          /* OLLAMA_FLASH_ATTENTION, the flash_attn key's value */
    int kv_unified, sched_spread;
    int split_mode_set;          /* split_mode given: ollama's main_gpu option, kept */
} llmmem__ollama_keys;

/* The hardware a local engine reads. */
typedef struct llmmem__llama_device {
    int64_t backend;             /* llmmem_backend */
    uint64_t gpus;               /* devices_per_node of its one node, none with backend cpu */
    uint64_t num_nodes, memory, overhead, host_memory;
    int unified;
    const char *prefix;          /* ggml's device names */
    const char *name;            /* the hardware's name, for the result */
} llmmem__llama_device;

typedef struct llmmem__llama_inputs {
    int paged;                   /* engine vllm: refused by llmmem__llama_engine_check */
    llmmem__llama_settings ls;   /* llama.cpp's (engine ollama: its keys' values before ollama.c applies ollama's) */
    llmmem__ollama_keys ollama;
    llmmem__llama_device dev;
    llmmem__weight_plan plan;    /* the inventory's weights' formats (unused with a GGUF) */
    llmmem_status plan_status;   /* the plan's failure, reported where the estimate first prices weights */
    char plan_message[LLMMEM_MESSAGE_MAX];
} llmmem__llama_inputs;

/* Resolves the strategy's llama.cpp and ollama keys for its engine, the hardware's facts and the weight
 * plan; cannot fail (engine vllm is refused by llmmem__llama_engine_check, the plan's failure where the
 * weights are first priced). */
void llmmem__llama_inputs_make(llmmem__llama_inputs *out, const llmmem_model *m, const llmmem_hardware *hw,
                               const llmmem_strategy *s);
/* The same for `engine` (llama.cpp or ollama) whatever the strategy's engine key says (the engines'
 * comparison runs both on one strategy). */
void llmmem__llama_inputs_for(llmmem__llama_inputs *out, const llmmem_model *m, const llmmem_hardware *hw,
                              const llmmem_strategy *s, llmmem_engine engine);
/* Refuses engine vllm, which pages its cache (llmmem_serving_estimate). */
llmmem_status llmmem__llama_engine_check(const llmmem__llama_inputs *in);

#endif
