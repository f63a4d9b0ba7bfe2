/* Internal: local inference as llama.cpp allocates it (llamacpp.c), ollama's defaults resolved into
 * llama.cpp's settings (ollama.c), and the result handle (local.c). Not installed. */
#ifndef LLMMEM_LOCAL_H
#define LLMMEM_LOCAL_H

#include "job/llama.h"
#include "views/rank.h"

#define LLMMEM__LOCAL_GPUS LLMMEM__LIST_MAX          /* llama.cpp's LLAMA_MAX_DEVICES */
#define LLMMEM__LOCAL_DEVICES (LLMMEM__LOCAL_GPUS + 1) /* the GPUs, then the host */
#define LLMMEM__LOCAL_BUFFERS (LLMMEM_LOCAL_OUTPUT + 1)
#define LLMMEM__LOCAL_VALUES (LLMMEM_LOCAL_HOST_UNKNOWN + 1)

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
    llmmem__rank_weights weights; /* the last estimate's weights by class, kept for the next (llmmem__llama_weights) */
};

/* One local estimate resolved once (local.c llama_resolve): the resolver's inputs
 * (job/llama.h: llama.cpp's settings, ollama's keys, the hardware's facts, the weight plan), the
 * cache shape llama.cpp accepted, and the inventory's weights by class, priced when first needed
 * (where the estimate meets the weight plan's errors) into the result handle, which keeps them for
 * its next estimate of the same model and plan. Layout and every --fit probe read it; --fit changes
 * ls.n_gpu_layers and ls.n_ctx alone. */
typedef struct llmmem__llama_job {
    const llmmem_model *m;
    const struct llmmem_checkpoint *ck; /* the GGUF, or NULL: the inventory's weights */
    llmmem__llama_inputs *in;           /* the caller's: --fit and ollama's rules change in->ls */
    const llmmem__geometry *shape;      /* llmmem__llama_check's */
    int priced;                         /* `weights` made, or `price_status` failed */
    llmmem_status price_status;
    llmmem__rank_weights *weights;      /* one rank of one way, the whole tensors: the result handle's */
} llmmem__llama_job;

/* llmmem_local_estimate from resolved inputs (the handles checked); in->ls is the job's to change. */
llmmem_status llmmem__local_run(llmmem_local *out, const llmmem_model *model, const struct llmmem_checkpoint *gguf,
                                llmmem__llama_inputs *in);
/* ollama's defaults and names resolved into llama.cpp's settings (ollama.c); `j->ls` holds the
 * llama.cpp keys' values first. */
llmmem_status llmmem__ollama_settings(llmmem__llama_job *j);

/* The weights by class of a resolved job, priced at the first call (inline: the engines that read
 * them and local.c, which resolves the job, do not call each other). */
static inline llmmem_status llmmem__llama_weights(const llmmem__rank_weights **out, llmmem__llama_job *j)
{
    if (!j->priced) {
        j->price_status = j->in->plan_status;
        if (j->price_status == LLMMEM_OK)
            llmmem__rank_weights_keep(j->weights, j->m, &j->in->plan, 1);
        j->priced = 1;
    }
    *out = j->weights;
    return j->price_status ? llmmem__fail(j->price_status, "%s", j->in->plan_message) : LLMMEM_OK;
}

/* What llama.cpp refuses of a model and settings before it allocates (llamacpp.c): cross-attention,
 * typed caches, state layers of two kinds, a quantized V cache without flash attention; the model's
 * cache shape in *shape. */
llmmem_status llmmem__llama_check(const llmmem__geometry **shape, const llmmem_model *m, const llmmem__llama_settings *ls);

/* Every buffer of every device for settings `ls` (the job's, or split_mode tensor's meta device),
 * split_mode none, layer or row (llamacpp.c); fills `out` (valid set by the caller). */
llmmem_status llmmem__llama_buffers(struct llmmem_local *out, llmmem__llama_job *j, const llmmem__llama_settings *ls);

/* The same under split_mode tensor (llamacpp_tensor.c): the layout of one meta device, then each tensor
 * split across the GPUs or mirrored on each. */
llmmem_status llmmem__llama_tensor_buffers(struct llmmem_local *out, llmmem__llama_job *j);

/* 1 when every GPU of a result holds its buffers with the margin left (the host is not --fit's concern). */
int llmmem__local_gpus_fit(const llmmem_local *r);

/* A ggml device name: `prefix` and the device's index (0-99), without printf. */
void llmmem__ggml_device_name(char *dst, size_t size, const char *prefix, unsigned index);

/* Bytes of one row of `n` elements of a cache type: ggml_row_size, whole blocks; 0 when n is not
 * made of whole blocks (llama.cpp refuses such a cache). */
uint64_t llmmem__ggml_row_bytes(llmmem_ggml_cache_type type, uint64_t n);

#endif
