/*
 * Local inference results: the job resolved once (job/llama.c's inputs, ollama's defaults from
 * ollama.c, what llama.cpp refuses), the buffers of every device (llamacpp.c), whether each device
 * holds its part with the margin left, llama-server's --fit, and the JSON view. The solvers that
 * search one setting for the largest value that fits are solvers/local_solve.c.
 */
#include <stdlib.h>
#include <string.h>

#include "readers/checkpoint.h"
#include "engines/local.h"
#include "base/text.h"

static const char *const value_names[LLMMEM__LOCAL_VALUES] = {
    "engine",     "n_ctx",        "n_ctx_seq",  "n_seq_max",  "n_streams",    "kv_size",
    "kv_size_swa", "n_batch",     "n_ubatch",   "n_layer",    "n_gpu_layers", "flash_attn",
    "gpus",       "gpu_bytes",    "host_bytes", "kv_bytes",   "recurrent_bytes", "fits",
    "shortfall",  "host_unknown",
};
static const char *const buffer_names[LLMMEM__LOCAL_BUFFERS] = {"model", "kv", "recurrent", "compute", "output"};

/* A local estimate from its inputs: llama.cpp's settings (engine llama.cpp), or ollama's keys resolved into
 * them (engine ollama, ollama.c), then what llama.cpp refuses of the model and settings (llmmem__llama_check).
 * The hardware (and the GGUF, whose size ollama's scheduler predicts with; NULL: the inventory's) gives
 * ollama its defaults. The weights by class go to `weights` (the result handle's). */
static llmmem_status llama_resolve(llmmem__llama_job *j, llmmem__rank_weights *weights, const llmmem_model *m,
                                   const struct llmmem_checkpoint *ck, llmmem__llama_inputs *in)
{
    j->weights = weights;
    j->m = m;
    j->ck = ck;
    j->shape = NULL;
    j->priced = 0;
    j->in = in;
    llmmem_status st = llmmem__llama_engine_check(in);
    if (!st && j->in->ls.engine == LLMMEM_ENGINE_OLLAMA)
        st = llmmem__ollama_settings(j);
    return st ? st : llmmem__llama_check(&j->shape, m, &j->in->ls);
}

/* ---- the result ------------------------------------------------------------------------------- */

llmmem_status llmmem_local_new(llmmem_local **out)
{
    LLMMEM_REQUIRE(out);
    *out = calloc(1, sizeof **out);
    if (!*out)
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "local_new: out of memory");
    return LLMMEM_OK;
}

llmmem_status llmmem_local_clone(llmmem_local **out, const llmmem_local *local)
{
    LLMMEM_REQUIRE(out);
    *out = NULL;
    LLMMEM_REQUIRE(local);
    *out = llmmem__duplicate(local, sizeof *local);
    return *out ? LLMMEM_OK : LLMMEM_ERR_NO_MEMORY;
}

void llmmem_local_free(llmmem_local *local)
{
    free(local);
}

int llmmem_local_valid(const llmmem_local *local)
{
    return local && local->valid;
}

/* Capacities and the verdict: a GPU holds its buffers when they leave runtime_overhead_bytes and
 * the margin free; the host, when host_memory_bytes is known, holds its own (with unified memory,
 * everything: the GPUs' buffers are host RAM too). A host of unknown RAM (0: a discrete GPU's preset
 * says nothing of the machine it is in) is taken to hold what llama.cpp keeps on the CPU whatever
 * the offload (token_embd, the graph's inputs, the output buffer), and nothing more: when part of
 * the layers stays there, whether it fits is unknown, and the verdict is not "fits" (HOST_UNKNOWN). */
static void judge(llmmem_local *r, const llmmem__llama_job *j)
{
    const size_t host = r->devices - 1;
    const uint64_t memory = j->in->dev.memory, overhead = j->in->dev.overhead, host_memory = j->in->dev.host_memory;
    uint64_t gpu_total = 0, shortfall = 0;
    int fits = 1;
    for (size_t d = 0; d < r->devices; d++) {
        uint64_t total = llmmem_local_device_total(r, d);
        if (d < host) {
            uint64_t reserved = overhead + j->in->ls.margin; /* both below 2^51 */
            r->capacity[d] = memory > reserved ? memory - reserved : 0;
            gpu_total += total; /* each below 2^64 / 17: checked by the estimate */
        } else {
            r->capacity[d] = host_memory;
        }
        if (r->capacity[d] || d < host) {
            if (total > r->capacity[d]) {
                fits = 0;
                if (total - r->capacity[d] > shortfall)
                    shortfall = total - r->capacity[d];
            }
        }
    }
    if (j->in->dev.unified && host_memory) {
        uint64_t all = gpu_total + llmmem_local_device_total(r, host);
        if (all > host_memory) {
            fits = 0;
            if (all - host_memory > shortfall)
                shortfall = all - host_memory;
        }
    }
    int unknown = !host_memory && r->host_holds_layers;
    r->v[LLMMEM_LOCAL_GPU_BYTES] = gpu_total;
    r->v[LLMMEM_LOCAL_HOST_BYTES] = llmmem_local_device_total(r, host);
    r->v[LLMMEM_LOCAL_FITS] = (uint64_t)(fits && !unknown);
    r->v[LLMMEM_LOCAL_HOST_UNKNOWN] = (uint64_t)unknown;
    r->v[LLMMEM_LOCAL_SHORTFALL] = shortfall;
}

/* The buffers and the verdict for the resolved job, into `out` (valid left to the caller). */
static llmmem_status layout(llmmem_local *out, llmmem__llama_job *j)
{
    memset(out->v, 0, sizeof out->v);
    memset(out->bytes, 0, sizeof out->bytes);
    memset(out->capacity, 0, sizeof out->capacity);
    memset(out->layers, 0, sizeof out->layers);
    /* split_mode tensor: one meta device split across the GPUs (llamacpp_tensor.c) */
    llmmem_status st = j->in->ls.split_mode == LLMMEM_SPLIT_MODE_TENSOR ? llmmem__llama_tensor_buffers(out, j)
                                                                    : llmmem__llama_buffers(out, j, &j->in->ls);
    if (st)
        return st;
    uint64_t kv = 0, rs = 0;
    for (size_t d = 0; d < out->devices; d++) {
        uint64_t total = 0;
        for (unsigned b = 0; b < LLMMEM__LOCAL_BUFFERS; b++)
            if (!llmmem__add(&total, total, out->bytes[d][b]))
                return llmmem__fail(LLMMEM_ERR_OVERFLOW, "the buffers of device %s exceed 64 bits", out->device_name[d]);
        if (total > UINT64_MAX / (LLMMEM__LOCAL_DEVICES + 1))
            return llmmem__fail(LLMMEM_ERR_OVERFLOW, "the buffers of device %s exceed 2^59 bytes", out->device_name[d]);
        kv += out->bytes[d][LLMMEM_LOCAL_KV];
        rs += out->bytes[d][LLMMEM_LOCAL_RECURRENT];
    }
    out->v[LLMMEM_LOCAL_KV_BYTES] = kv;
    out->v[LLMMEM_LOCAL_RECURRENT_BYTES] = rs;
    judge(out, j);
    return LLMMEM_OK;
}

int llmmem__local_gpus_fit(const llmmem_local *r)
{
    for (size_t d = 0; d + 1 < r->devices; d++)
        if (llmmem_local_device_total(r, d) > r->capacity[d])
            return 0;
    return 1;
}

#define FIT_MIN_CTX 4096 /* common/common.h fit_params_min_ctx (-fitc) */
#define FIT_CTX_STEP 256 /* fit rounds the context down to a multiple of 256 */

/* What --fit lowers: the layers offloaded, or the context in steps of 256. */
typedef enum { FIT_LAYERS, FIT_CONTEXT } fit_knob;

static void fit_apply(llmmem__llama_settings *ls, fit_knob knob, uint64_t v)
{
    if (knob == FIT_LAYERS)
        ls->n_gpu_layers = (int64_t)v;
    else
        ls->n_ctx = v * FIT_CTX_STEP;
}

/* The largest v in [lo, hi] whose layout leaves every GPU its margin, lo when none above it does;
 * `out` ends with that layout. Fitting is monotone in both knobs: fewer layers or cells never take
 * more of a GPU. The search reuses `out` and allocates nothing. */
static llmmem_status fit_search(llmmem_local *out, llmmem__llama_job *j, fit_knob knob, uint64_t lo, uint64_t hi)
{
    llmmem__llama_settings *ls = &j->in->ls;
    llmmem_status st;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        fit_apply(ls, knob, mid);
        if ((st = layout(out, j)) != LLMMEM_OK)
            return st;
        if (llmmem__local_gpus_fit(out))
            lo = mid;
        else
            hi = mid - 1;
    }
    fit_apply(ls, knob, lo);
    return layout(out, j);
}

/*
 * llama-server --fit choosing n_gpu_layers: the largest value whose layout leaves every GPU its
 * margin (fit_margin_bytes, llama.cpp's --fit-target); 0 when not even one layer fits. All layers
 * are tried first, as fit's first step does; when they fit nothing changes.
 * Source: llama.cpp common/fit.cpp common_params_fit_impl, at the b10488 that ollama pins
 * (LLAMA_CPP_VERSION@fb3076099687). llama.cpp fills the GPUs from the back with whole layers, one
 * contiguous slice per GPU, and writes the counts into tensor_split. For a MoE model it first keeps
 * every expert tensor in host memory and then moves experts back while they fit. This search
 * instead splits the offloaded layers evenly over the GPUs and moves whole layers, experts
 * included. With several GPUs it can offload a layer fewer than fit, and for a MoE model it keeps
 * fewer weights on the GPUs than fit does (doc/ollama.md).
 */
static llmmem_status llama_fit_gpu_layers(llmmem_local *out, llmmem__llama_job *j)
{
    llmmem__llama_settings *ls = &j->in->ls;
    ls->n_gpu_layers = -1;
    llmmem_status st = layout(out, j);
    if (st || llmmem__local_gpus_fit(out))
        return st;
    /* n_layer + 1 (all) does not fit */
    return fit_search(out, j, FIT_LAYERS, 0, out->v[LLMMEM_LOCAL_N_LAYER]);
}

/*
 * llama-server --fit lowering a context the user left at 0: the model's training context when it
 * fits, else the longest multiple of 256, at least 4096, that leaves every GPU its margin with the
 * layers as they stand (all of them when n_gpu_layers is -1); 4096 when none does, and the layers
 * are fit next. fit interpolates between two measured contexts; a search over the same layouts
 * lands on the same multiple of 256 since the buffers grow with the context.
 * Source: llama.cpp common/fit.cpp common_params_fit_impl (step 2), src/llama.cpp at a5bb8ba.
 */
static llmmem_status llama_fit_context(llmmem_local *out, llmmem__llama_job *j)
{
    llmmem__llama_settings *ls = &j->in->ls;
    llmmem_status st = layout(out, j);
    uint64_t train = out->v[LLMMEM_LOCAL_N_CTX];
    if (st || llmmem__local_gpus_fit(out) || train <= FIT_MIN_CTX)
        return st;
    ls->n_ctx = FIT_MIN_CTX;
    if ((st = layout(out, j)) != LLMMEM_OK || !llmmem__local_gpus_fit(out))
        return st;
    return fit_search(out, j, FIT_CONTEXT, FIT_MIN_CTX / FIT_CTX_STEP,
                      train / FIT_CTX_STEP);
}

llmmem_status llmmem__local_run(llmmem_local *out, const llmmem_model *model, const llmmem_checkpoint *gguf,
                                llmmem__llama_inputs *in)
{
    out->valid = 0;
    if (gguf && gguf->format != 2)
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "llmmem_local_estimate takes a checkpoint read from a GGUF "
                            "header (llmmem_checkpoint_from_gguf); this one is a safetensors header");
    if (in->dev.memory == 0)
        return llmmem__fail(LLMMEM_ERR_INCOMPLETE, "the hardware's memory_bytes is not set");
    llmmem__llama_job j;
    llmmem_status st = llama_resolve(&j, &out->weights, model, gguf, in);
    if (st)
        return st;
    if (j.in->ls.fit_ctx && (st = llama_fit_context(out, &j)) != LLMMEM_OK)
        return st;
    st = j.in->ls.fit ? llama_fit_gpu_layers(out, &j) : layout(out, &j);
    if (st)
        return st;
    llmmem__copy_name(out->model_name, llmmem_model_name(model));
    llmmem__copy_name(out->hardware_name, in->dev.name);
    out->valid = 1;
    return LLMMEM_OK;
}

llmmem_status llmmem_local_estimate(llmmem_local *out, const llmmem_model *model, const llmmem_checkpoint *gguf,
                                    const llmmem_hardware *hw, const llmmem_strategy *strategy)
{
    LLMMEM_REQUIRE(out);
    out->valid = 0;
    LLMMEM_REQUIRE(model);
    LLMMEM_REQUIRE(hw);
    LLMMEM_REQUIRE(strategy);
    llmmem__llama_inputs in;
    llmmem__llama_inputs_make(&in, model, hw, strategy);
    return llmmem__local_run(out, model, gguf, &in);
}

uint64_t llmmem_local_get(const llmmem_local *local, llmmem_local_value value)
{
    if (!llmmem_local_valid(local) || (unsigned)value >= LLMMEM__LOCAL_VALUES)
        return 0;
    return local->v[value];
}

size_t llmmem_local_value_count(void)
{
    return LLMMEM__LOCAL_VALUES;
}

const char *llmmem_local_value_name(llmmem_local_value value)
{
    return (unsigned)value < LLMMEM__LOCAL_VALUES ? value_names[value] : NULL;
}

size_t llmmem_local_buffer_count(void)
{
    return LLMMEM__LOCAL_BUFFERS;
}

const char *llmmem_local_buffer_name(llmmem_local_buffer buffer)
{
    return (unsigned)buffer < LLMMEM__LOCAL_BUFFERS ? buffer_names[buffer] : NULL;
}

size_t llmmem_local_device_count(const llmmem_local *local)
{
    return llmmem_local_valid(local) ? local->devices : 0;
}

const char *llmmem_local_device_name(const llmmem_local *local, size_t device)
{
    return device < llmmem_local_device_count(local) ? local->device_name[device] : NULL;
}

uint64_t llmmem_local_bytes(const llmmem_local *local, size_t device, llmmem_local_buffer buffer)
{
    if (device >= llmmem_local_device_count(local) || (unsigned)buffer >= LLMMEM__LOCAL_BUFFERS)
        return 0;
    return local->bytes[device][buffer];
}

uint64_t llmmem_local_device_total(const llmmem_local *local, size_t device)
{
    if (!local || device >= local->devices)
        return 0;
    uint64_t total = 0; /* checked against overflow by the estimate */
    for (unsigned b = 0; b < LLMMEM__LOCAL_BUFFERS; b++)
        total += local->bytes[device][b];
    return total;
}

uint64_t llmmem_local_device_capacity(const llmmem_local *local, size_t device)
{
    return device < llmmem_local_device_count(local) ? local->capacity[device] : 0;
}

uint64_t llmmem_local_device_layers(const llmmem_local *local, size_t device)
{
    return device < llmmem_local_device_count(local) ? local->layers[device] : 0;
}

/* ---- JSON ---------------------------------------------------------------------------------------- */

llmmem_status llmmem_local_to_json(char **json_out, const llmmem_local *local)
{
    LLMMEM_REQUIRE(json_out);
    *json_out = NULL;
    LLMMEM_REQUIRE(local);
    if (!local->valid)
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "local_to_json: the result holds no estimate");
    llmmem__text b = {0};
    llmmem__text_str(&b, "{\n  \"model\": ");
    llmmem__text_quoted(&b, local->model_name);
    llmmem__text_str(&b, ",\n  \"hardware\": ");
    llmmem__text_quoted(&b, local->hardware_name);
    llmmem__text_printf(&b, ",\n  \"engine\": \"%s\",\n  \"cache_type_k\": \"%s\",\n  \"cache_type_v\": \"%s\",\n",
                        llmmem__engine_name((int64_t)local->v[LLMMEM_LOCAL_ENGINE]),
                        llmmem__ggml_cache_type_name(local->type_k),
                        llmmem__ggml_cache_type_name(local->type_v));
    for (unsigned i = LLMMEM_LOCAL_N_CTX; i < LLMMEM__LOCAL_VALUES; i++) {
        if (i == LLMMEM_LOCAL_FITS || i == LLMMEM_LOCAL_FLASH_ATTN || i == LLMMEM_LOCAL_HOST_UNKNOWN)
            llmmem__text_printf(&b, "  \"%s\": %s,\n", value_names[i], local->v[i] ? "true" : "false");
        else
            llmmem__text_printf(&b, "  \"%s\": %llu,\n", value_names[i], (unsigned long long)local->v[i]);
    }
    llmmem__text_str(&b, "  \"devices\": [\n");
    for (size_t d = 0; d < local->devices; d++) {
        llmmem__text_str(&b, "    {\"name\": ");
        llmmem__text_quoted(&b, local->device_name[d]);
        llmmem__text_printf(&b, ", \"host\": %s, \"layers\": %llu", d + 1 == local->devices ? "true" : "false",
                            (unsigned long long)local->layers[d]);
        for (unsigned k = 0; k < LLMMEM__LOCAL_BUFFERS; k++)
            llmmem__text_printf(&b, ", \"%s\": %llu", buffer_names[k], (unsigned long long)local->bytes[d][k]);
        llmmem__text_printf(&b, ", \"total\": %llu, \"capacity\": %llu}%s\n",
                            (unsigned long long)llmmem_local_device_total(local, d),
                            (unsigned long long)local->capacity[d], d + 1 < local->devices ? "," : "");
    }
    llmmem__text_str(&b, "  ]\n}\n");
    return llmmem__text_finish(json_out, &b, "local_to_json");
}
