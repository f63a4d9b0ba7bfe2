/*
 * Local inference results: llama.cpp's (or ollama's) settings resolved from the strategy, the
 * buffers of every device (llamacpp.c), whether each device holds its part with the margin left,
 * the JSON view, and the solvers that search one setting for the largest value that fits.
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

static int64_t sv(const llmmem_strategy *s, llmmem_key key)
{
    return llmmem__get_int(&s->s, key);
}

/* ---- settings ---------------------------------------------------------------------------------- */

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

/* The strategy's llama.cpp keys as llama.cpp resolves them, or ollama's resolved into them. */
static llmmem_status settings_of(llmmem__llama_job *j, const llmmem_strategy *s)
{
    llmmem__llama_settings *out = &j->ls;
    memset(out, 0, sizeof *out);
    int64_t engine = sv(s, LLMMEM_KEY_ENGINE);
    if (engine == LLMMEM_ENGINE_VLLM)
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "engine vllm pages its KV cache: use llmmem_serving_estimate "
                            "(llmmem serve); local inference takes engine llama.cpp or ollama");
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
        return llmmem__ollama_settings(j);
    /* common/fit.cpp common_params_fit_impl: the context only when the user left -c 0, the layers
     * only when -ngl, -ts and -ot (n_cpu_moe's overrides) were left alone */
    int fit = sv(s, LLMMEM_KEY_FIT) != 0;
    /* src/llama.cpp: "llama_params_fit is not implemented for SPLIT_MODE_TENSOR, abort": loaded unfitted */
    if (out->split_mode == LLMMEM_SPLIT_MODE_TENSOR)
        fit = 0;
    out->fit_ctx = fit && out->n_ctx == 0;
    out->fit = fit && out->n_gpu_layers < 0 && out->n_split == 0 && out->n_cpu_moe == 0;
    return LLMMEM_OK;
}

llmmem_status llmmem__llama_resolve(llmmem__llama_job *j, llmmem__rank_weights *weights, const llmmem_model *m,
                                    const struct llmmem_checkpoint *ck, const llmmem_hardware *hw,
                                    const llmmem_strategy *s)
{
    j->weights = weights;
    j->m = m;
    j->ck = ck;
    j->s = s;
    j->shape = NULL;
    j->priced = 0;
    const int64_t backend = j->backend = llmmem__get_int(&hw->s, LLMMEM_KEY_BACKEND);
    j->gpus = backend == LLMMEM_BACKEND_CPU ? 0 : (uint64_t)llmmem__get_int(&hw->s, LLMMEM_KEY_DEVICES_PER_NODE);
    j->num_nodes = (uint64_t)llmmem__get_int(&hw->s, LLMMEM_KEY_NUM_NODES);
    j->memory = (uint64_t)llmmem__get_int(&hw->s, LLMMEM_KEY_MEMORY_BYTES);
    j->overhead = llmmem__runtime_overhead(hw, 0);
    j->host_memory = (uint64_t)llmmem__get_int(&hw->s, LLMMEM_KEY_HOST_MEMORY_BYTES);
    j->unified = llmmem__get_int(&hw->s, LLMMEM_KEY_UNIFIED_MEMORY) != 0;
    j->prefix = backend_prefix(backend);
    llmmem_status st = settings_of(j, s);
    return st ? st : llmmem__llama_check(&j->shape, m, &j->ls);
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
    const uint64_t memory = j->memory, overhead = j->overhead, host_memory = j->host_memory;
    uint64_t gpu_total = 0, shortfall = 0;
    int fits = 1;
    for (size_t d = 0; d < r->devices; d++) {
        uint64_t total = llmmem_local_device_total(r, d);
        if (d < host) {
            uint64_t reserved = overhead + j->ls.margin; /* both below 2^51 */
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
    if (j->unified && host_memory) {
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
    llmmem_status st = j->ls.split_mode == LLMMEM_SPLIT_MODE_TENSOR ? llmmem__llama_tensor_buffers(out, j)
                                                                    : llmmem__llama_buffers(out, j, &j->ls);
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

/* 1 when every GPU of a layout holds its buffers with the margin left (the host is not --fit's concern). */
static int gpus_fit(const llmmem_local *r)
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
    llmmem__llama_settings *ls = &j->ls;
    llmmem_status st;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        fit_apply(ls, knob, mid);
        if ((st = layout(out, j)) != LLMMEM_OK)
            return st;
        if (gpus_fit(out))
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
    llmmem__llama_settings *ls = &j->ls;
    ls->n_gpu_layers = -1;
    llmmem_status st = layout(out, j);
    if (st || gpus_fit(out))
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
    llmmem__llama_settings *ls = &j->ls;
    llmmem_status st = layout(out, j);
    uint64_t train = out->v[LLMMEM_LOCAL_N_CTX];
    if (st || gpus_fit(out) || train <= FIT_MIN_CTX)
        return st;
    ls->n_ctx = FIT_MIN_CTX;
    if ((st = layout(out, j)) != LLMMEM_OK || !gpus_fit(out))
        return st;
    return fit_search(out, j, FIT_CONTEXT, FIT_MIN_CTX / FIT_CTX_STEP,
                      train / FIT_CTX_STEP);
}

llmmem_status llmmem_local_estimate(llmmem_local *out, const llmmem_model *model, const llmmem_checkpoint *gguf,
                                    const llmmem_hardware *hw, const llmmem_strategy *strategy)
{
    LLMMEM_REQUIRE(out);
    out->valid = 0;
    LLMMEM_REQUIRE(model);
    LLMMEM_REQUIRE(hw);
    LLMMEM_REQUIRE(strategy);
    if (gguf && gguf->format != 2)
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "llmmem_local_estimate takes a checkpoint read from a GGUF "
                            "header (llmmem_checkpoint_from_gguf); this one is a safetensors header");
    if (llmmem__get_int(&hw->s, LLMMEM_KEY_MEMORY_BYTES) == 0)
        return llmmem__fail(LLMMEM_ERR_INCOMPLETE, "the hardware's memory_bytes is not set");
    llmmem__llama_job j;
    llmmem_status st = llmmem__llama_resolve(&j, &out->weights, model, gguf, hw, strategy);
    if (st)
        return st;
    if (j.ls.fit_ctx && (st = llama_fit_context(out, &j)) != LLMMEM_OK)
        return st;
    st = j.ls.fit ? llama_fit_gpu_layers(out, &j) : layout(out, &j);
    if (st)
        return st;
    llmmem__copy_name(out->model_name, llmmem_model_name(model));
    llmmem__copy_name(out->hardware_name, llmmem_hardware_name(hw));
    out->valid = 1;
    return LLMMEM_OK;
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
                        llmmem_choice_name(LLMMEM_KEY_ENGINE, (int64_t)local->v[LLMMEM_LOCAL_ENGINE]),
                        llmmem_choice_name(LLMMEM_KEY_CACHE_TYPE_K, local->type_k),
                        llmmem_choice_name(LLMMEM_KEY_CACHE_TYPE_V, local->type_v));
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

/* ---- solvers ------------------------------------------------------------------------------------ */

/* How a searched value acts on the context. */
typedef enum {
    FIXED_CONTEXT,  /* n_gpu_layers, num_gpu: the context stays */
    GROWS_CONTEXT,  /* n_ctx, num_ctx, num_parallel: a context llama.cpp refuses (past its int, or 64
                     * bits: num_ctx x num_parallel) does not fit */
    CONTEXT_PER_SEQ /* n_parallel: n_ctx is set to per_seq x value as well (it covers every sequence) */
} context_rule;

/* Fits with `key` set to `value` (in a copy of the strategy)? Any failure but a context beyond
 * llama.cpp's bounds stops the search. A host of unknown
 * RAM is not held against a value: every device whose memory is known keeps its part (the answer is the
 * GPUs'). */
static llmmem_status try_value(int *fits, llmmem_local *r, llmmem_strategy *copy, llmmem_key key, int64_t value,
                               context_rule rule, uint64_t per_seq, const llmmem_model *m, const llmmem_checkpoint *ck,
                               const llmmem_hardware *hw)
{
    llmmem_status st = llmmem__settings_set_int(&copy->s, LLMMEM_OBJECT_STRATEGY, key, value);
    if (!st && rule == CONTEXT_PER_SEQ)
        st = llmmem__settings_set_int(&copy->s, LLMMEM_OBJECT_STRATEGY, LLMMEM_KEY_N_CTX, (int64_t)per_seq * value);
    if (!st)
        st = llmmem_local_estimate(r, m, ck, hw, copy);
    if (rule != FIXED_CONTEXT && (st == LLMMEM_ERR_OUT_OF_RANGE || st == LLMMEM_ERR_OVERFLOW)) {
        *fits = 0;
        return LLMMEM_OK;
    }
    *fits = !st && (r->v[LLMMEM_LOCAL_FITS] || (r->v[LLMMEM_LOCAL_HOST_UNKNOWN] && gpus_fit(r)));
    return st;
}

/* The largest value in [lo, hi] that fits when fitting is monotone (more layers, cells or sequences
 * never take less memory); 0 in *answer when lo does not fit. The search stays inside the key's
 * bounds: it never answers, nor tries, a value the key (llama.cpp's own bound) refuses. */
static llmmem_status search(int64_t *answer, llmmem_local *r, llmmem_strategy *copy, llmmem_key key, int64_t lo,
                            int64_t hi, context_rule rule, uint64_t per_seq, const llmmem_model *m,
                            const llmmem_checkpoint *ck, const llmmem_hardware *hw)
{
    const llmmem__key_info *k = llmmem__key_info_get(key);
    if (hi > k->max)
        hi = k->max;
    int fits;
    llmmem_status st = try_value(&fits, r, copy, key, lo, rule, per_seq, m, ck, hw);
    if (st)
        return st;
    if (!fits) {
        *answer = 0;
        return LLMMEM_OK;
    }
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if ((st = try_value(&fits, r, copy, key, mid, rule, per_seq, m, ck, hw)) != LLMMEM_OK)
            return st;
        if (fits)
            lo = mid;
        else
            hi = mid - 1;
    }
    *answer = lo;
    return LLMMEM_OK;
}

llmmem_status llmmem_local_solve(int64_t *answer_out, llmmem_local_question question, const llmmem_model *model,
                                 const llmmem_checkpoint *gguf, const llmmem_hardware *hw,
                                 const llmmem_strategy *strategy)
{
    LLMMEM_REQUIRE(answer_out);
    LLMMEM_REQUIRE(model);
    LLMMEM_REQUIRE(hw);
    LLMMEM_REQUIRE(strategy);
    if ((unsigned)question > LLMMEM_LOCAL_MAX_PARALLEL)
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "unknown local question %d", (int)question);
    llmmem_local *r = NULL;
    llmmem_strategy *copy = NULL;
    llmmem_status st = llmmem_local_new(&r);
    if (!st)
        st = llmmem_strategy_clone(&copy, strategy);
    if (st) {
        llmmem_local_free(r);
        return st ? st : LLMMEM_ERR_NO_MEMORY;
    }
    /* a first estimate validates every other setting and gives the model's sizes */
    if ((st = llmmem_local_estimate(r, model, gguf, hw, strategy)) == LLMMEM_OK) {
        int ollama = r->v[LLMMEM_LOCAL_ENGINE] == LLMMEM_ENGINE_OLLAMA;
        uint64_t n_layer = r->v[LLMMEM_LOCAL_N_LAYER];
        /* llama.cpp's --fit would answer every question itself: the solver searches the setting instead */
        if (!ollama)
            st = llmmem__settings_set_int(&copy->s, LLMMEM_OBJECT_STRATEGY, LLMMEM_KEY_FIT, 0);
        /* ollama's num_gpu -1 lets --fit leave layers on the CPU until any context fits: the context
         * and parallel questions ask instead what fits with every layer on the GPUs */
        if (ollama && question != LLMMEM_LOCAL_MAX_GPU_LAYERS && llmmem__get_int(&copy->s, LLMMEM_KEY_NUM_GPU) < 0)
            st = llmmem__settings_set_int(&copy->s, LLMMEM_OBJECT_STRATEGY, LLMMEM_KEY_NUM_GPU, (int64_t)n_layer + 1);
        if (!st) {
            switch (question) {
            case LLMMEM_LOCAL_MAX_GPU_LAYERS:
                st = search(answer_out, r, copy, ollama ? LLMMEM_KEY_NUM_GPU : LLMMEM_KEY_N_GPU_LAYERS, 0,
                            (int64_t)n_layer + 1, FIXED_CONTEXT, 0, model, gguf, hw);
                break;
            case LLMMEM_LOCAL_MAX_CONTEXT: {
                /* up to the model's context length (n_ctx_train), or further when it has none */
                int64_t top = llmmem__model_value(model, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS);
                if (!ollama) /* n_ctx covers every sequence */
                    top *= (int64_t)r->v[LLMMEM_LOCAL_N_SEQ_MAX];
                st = search(answer_out, r, copy, ollama ? LLMMEM_KEY_NUM_CTX : LLMMEM_KEY_N_CTX, 1,
                            top > 0 ? top : (int64_t)1 << 24, GROWS_CONTEXT, 0, model, gguf, hw);
                break;
            }
            case LLMMEM_LOCAL_MAX_PARALLEL:
                /* each sequence keeps its context: n_ctx grows with n_parallel (ollama: num_ctx is per sequence) */
                st = search(answer_out, r, copy, ollama ? LLMMEM_KEY_NUM_PARALLEL : LLMMEM_KEY_N_PARALLEL, 1,
                            INT64_MAX, ollama ? GROWS_CONTEXT : CONTEXT_PER_SEQ, r->v[LLMMEM_LOCAL_N_CTX_SEQ], model,
                            gguf, hw);
                break;
            }
        }
    }
    llmmem_local_free(r);
    llmmem_strategy_free(copy);
    return st;
}
