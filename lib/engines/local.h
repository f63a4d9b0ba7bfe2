/* Internal: local inference as llama.cpp allocates it (llamacpp.c), ollama's defaults resolved into
 * llama.cpp's settings (ollama.c), and the result handle (local.c). Not installed. */
#ifndef LLMMEM_LOCAL_H
#define LLMMEM_LOCAL_H

#include "base/internal.h"

#define LLMMEM__LOCAL_GPUS LLMMEM__LIST_MAX          /* llama.cpp's LLAMA_MAX_DEVICES */
#define LLMMEM__LOCAL_DEVICES (LLMMEM__LOCAL_GPUS + 1) /* the GPUs, then the host */
#define LLMMEM__LOCAL_BUFFERS (LLMMEM_LOCAL_OUTPUT + 1)
#define LLMMEM__LOCAL_VALUES (LLMMEM_LOCAL_HOST_UNKNOWN + 1)

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
    double split[LLMMEM__LOCAL_GPUS];
} llmmem__llama_settings;

/* A local result's contents (the public handle is this struct). */
struct llmmem_local {
    int valid;
    char model_name[LLMMEM_NAME_MAX];
    char hardware_name[LLMMEM_NAME_MAX];
    uint64_t v[LLMMEM__LOCAL_VALUES];
    size_t devices;              /* GPUs + the host */
    char device_name[LLMMEM__LOCAL_DEVICES][12];
    uint64_t bytes[LLMMEM__LOCAL_DEVICES][LLMMEM__LOCAL_BUFFERS];
    uint64_t capacity[LLMMEM__LOCAL_DEVICES]; /* the host's: host_memory_bytes (0: unknown, not checked) */
    uint64_t layers[LLMMEM__LOCAL_DEVICES];
    int host_holds_layers;       /* the host holds part of the layers: their weights or cache, the output, experts */
    llmmem_ggml_cache_type type_k, type_v;
};

/* The strategy's llama.cpp keys as llama.cpp resolves them (engine llama.cpp), or ollama's keys
 * resolved into them (engine ollama, ollama.c). The hardware (and the GGUF, whose size ollama's
 * scheduler predicts with; NULL: the inventory's) gives ollama its defaults. */
llmmem_status llmmem__llama_settings_of(llmmem__llama_settings *out, const llmmem_model *m,
                                        const struct llmmem_checkpoint *ck, const llmmem_hardware *hw,
                                        const llmmem_strategy *s);
/* ollama's defaults and names resolved into llama.cpp's settings (ollama.c); `out` holds the
 * llama.cpp keys' values first. */
llmmem_status llmmem__ollama_settings(llmmem__llama_settings *out, const llmmem_model *m,
                                      const struct llmmem_checkpoint *ck, const llmmem_hardware *hw,
                                      const llmmem_strategy *s);

/* What llama.cpp refuses of a model and settings before it allocates (llamacpp.c): cross-attention,
 * typed caches, state layers of two kinds, a quantized V cache without flash attention; the model's
 * cache shape in *shape. */
llmmem_status llmmem__llama_check(const llmmem__geometry **shape, const llmmem_model *m, const llmmem__llama_settings *ls);

/* Every buffer of every device for resolved settings, split_mode none, layer or row (llamacpp.c);
 * fills `out` (valid set by the caller). */
llmmem_status llmmem__llama_buffers(struct llmmem_local *out, const llmmem_model *m, const struct llmmem_checkpoint *ck,
                                    const llmmem_hardware *hw, const llmmem_strategy *s,
                                    const llmmem__llama_settings *ls);

/* The same under split_mode tensor (llamacpp_tensor.c): the layout of one meta device, then each tensor
 * split across the GPUs or mirrored on each. */
llmmem_status llmmem__llama_tensor_buffers(struct llmmem_local *out, const llmmem_model *m,
                                           const struct llmmem_checkpoint *ck, const llmmem_hardware *hw,
                                           const llmmem_strategy *s, const llmmem__llama_settings *ls);

/* GPUs the hardware gives llama.cpp: devices_per_node of its one node, none with backend cpu. */
static inline uint64_t llmmem__local_gpus(const llmmem_hardware *hw)
{
    return llmmem__get_int(&hw->s, LLMMEM_KEY_BACKEND) == LLMMEM_BACKEND_CPU
               ? 0
               : (uint64_t)llmmem__get_int(&hw->s, LLMMEM_KEY_DEVICES_PER_NODE);
}

/* Bytes of one row of `n` elements of a cache type: ggml_row_size, whole blocks; 0 when n is not
 * made of whole blocks (llama.cpp refuses such a cache). */
uint64_t llmmem__ggml_row_bytes(llmmem_ggml_cache_type type, uint64_t n);

#endif
