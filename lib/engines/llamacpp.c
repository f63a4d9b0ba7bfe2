/*
 * What llama.cpp allocates on each device of one machine: the model buffers of the layers placed
 * there, the KV buffers of their attention layers, the recurrent-state buffers of their Mamba and
 * Gated DeltaNet layers, the compute buffers and the host's output buffer. The rules follow
 * ggml-org/llama.cpp: src/llama-context.cpp (n_ctx, n_ctx_seq, padding, output_reserve),
 * src/llama-kv-cache.cpp and llama-kv-cache-iswa.cpp (cells and rows), src/llama-memory-recurrent.cpp
 * (state), src/llama-model.cpp load_tensors (layer placement) and common/arg.cpp (--n-cpu-moe).
 * Sizes are integers from whole ggml blocks; the layer placement reproduces llama.cpp's float
 * split points, since that is what decides where a layer goes. No allocation, no I/O.
 */
#include <string.h>

#include "readers/checkpoint.h"
#include "views/kv.h"
#include "inventory/mixers.h"
#include "engines/local.h"

/* ---- cache types -------------------------------------------------------------------------------- */

/* ggml/src/ggml.c type_traits: blck_size and type_size (sizeof the block_* struct of ggml-common.h) */
static const struct {
    uint8_t block, bytes;
} cache_types[] = {
    [LLMMEM_GGML_F16] = {1, 2},    [LLMMEM_GGML_F32] = {1, 4},     [LLMMEM_GGML_BF16] = {1, 2},
    [LLMMEM_GGML_Q8_0] = {32, 34}, [LLMMEM_GGML_Q4_0] = {32, 18},  [LLMMEM_GGML_Q4_1] = {32, 20},
    [LLMMEM_GGML_IQ4_NL] = {32, 18}, [LLMMEM_GGML_Q5_0] = {32, 22}, [LLMMEM_GGML_Q5_1] = {32, 24},
};

uint64_t llmmem__ggml_row_bytes(llmmem_ggml_cache_type type, uint64_t n)
{
    if ((unsigned)type >= sizeof cache_types / sizeof cache_types[0] || n % cache_types[type].block)
        return 0;
    return n / cache_types[type].block * cache_types[type].bytes; /* ggml_row_size */
}

static int quantized(llmmem_ggml_cache_type t)
{
    return cache_types[t].block > 1;
}

/* ---- an accumulator that remembers an overflow -------------------------------------------------- */

typedef struct acc {
    int overflow;
} acc;

static uint64_t mul(acc *A, uint64_t x, uint64_t y)
{
    return llmmem__mul_flag(&A->overflow, x, y);
}
static uint64_t add(acc *A, uint64_t x, uint64_t y)
{
    return llmmem__add_flag(&A->overflow, x, y);
}
static uint64_t max2(uint64_t x, uint64_t y)
{
    return x > y ? x : y;
}
static uint64_t pad(acc *A, uint64_t x, uint64_t n) /* GGML_PAD */
{
    return mul(A, llmmem__ceil_div(x, n), n);
}

/* ---- the context (llama-context.cpp llama_context::llama_context) ------------------------------- */

#define CTX_PAD 256 /* llama-context.cpp: n_ctx and n_ctx_seq are padded to 256 (PR 17046) */

typedef struct context {
    uint64_t n_ctx, n_ctx_seq, n_seq_max, n_stream, n_ubatch, n_batch;
    uint64_t kv_size, kv_size_swa; /* cells per stream */
    uint64_t mem_size;             /* recurrent cells: one per sequence */
} context;

static llmmem_status resolve_context(context *c, const llmmem__geometry *a, const llmmem_model *m,
                                     const llmmem__llama_settings *ls)
{
    acc A = {0};
    memset(c, 0, sizeof *c);
    /* n_ctx 0: the model's training context (hparams.n_ctx_train, GGUF <arch>.context_length) */
    uint64_t n_ctx = ls->n_ctx ? ls->n_ctx : (uint64_t)llmmem__model_value(m, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS);
    if (n_ctx == 0)
        return llmmem__fail(LLMMEM_ERR_INCOMPLETE, "n_ctx is 0 and the model has no context length "
                            "(max_position_embeddings): set n_ctx");
    c->n_seq_max = ls->n_seq_max;
    /* causal attention: n_batch = min(n_ctx, n_batch), n_ctx as given (before padding); then
     * n_ubatch = min(n_batch, n_ubatch) */
    c->n_batch = ls->n_batch < n_ctx ? ls->n_batch : n_ctx;
    c->n_ubatch = ls->n_ubatch < c->n_batch ? ls->n_ubatch : c->n_batch;
    c->n_ctx = pad(&A, n_ctx, CTX_PAD);
    if (ls->kv_unified) {
        c->n_ctx_seq = c->n_ctx;
        c->n_stream = 1;
    } else {
        /* one stream per sequence, each of n_ctx / n_seq_max cells padded again; n_ctx follows */
        c->n_ctx_seq = pad(&A, c->n_ctx / c->n_seq_max, CTX_PAD);
        c->n_ctx = mul(&A, c->n_ctx_seq, c->n_seq_max);
        c->n_stream = c->n_seq_max;
    }
    c->kv_size = c->n_ctx_seq;
    /* llama-kv-cache-iswa.cpp: the window of every sequence the stream serves, plus one ubatch */
    if (a->window) {
        uint64_t swa = add(&A, mul(&A, a->window, ls->kv_unified ? c->n_seq_max : 1), c->n_ubatch);
        swa = pad(&A, swa, CTX_PAD);
        c->kv_size_swa = ls->swa_full || swa > c->kv_size ? c->kv_size : swa;
    }
    c->mem_size = c->n_seq_max; /* llama-model.cpp create_memory: max(1, n_seq_max) */
    if (A.overflow)
        return llmmem__fail(LLMMEM_ERR_OVERFLOW, "n_ctx (%llu) x n_parallel (%llu) exceeds 64 bits",
                            (unsigned long long)n_ctx, (unsigned long long)c->n_seq_max);
    return LLMMEM_OK;
}

/* ---- per-layer cache rows ----------------------------------------------------------------------- */

/* Widths of one token's K and V rows (hparams n_embd_k_gqa, n_embd_v_gqa); MLA caches the latent and
 * the rotary key as K, and its V is a view of K (no V tensor). */
typedef struct rows {
    uint64_t k, v;          /* bytes of one cell's K and V rows in one layer */
    uint64_t r, s;          /* bytes of one sequence's conv and SSM state in one recurrent layer (f32) */
} rows;

static llmmem_status cache_rows(rows *out, const llmmem__geometry *a, const llmmem__llama_settings *ls)
{
    memset(out, 0, sizeof *out);
    uint64_t nk, nv, head_k, head_v;
    if (a->kv_lora_rank) { /* llama-kv-cache.cpp: is_mla, K holds kv_lora_rank + n_rot, no V */
        head_k = nk = a->kv_lora_rank + a->qk_rope_head_dim;
        head_v = nv = 0;
    } else {
        head_k = a->head_dim;
        head_v = a->v_head_dim ? a->v_head_dim : a->head_dim;
        nk = a->kv_heads * head_k;
        nv = a->kv_heads * head_v;
    }
    /* llama.cpp llama_init_from_model: a quantized type must divide each head (n_embd_head_k, _v) */
    for (int v = 0; v < 2; v++) {
        llmmem_ggml_cache_type t = v ? ls->type_v : ls->type_k;
        uint64_t head = v ? head_v : head_k;
        if (head && head % cache_types[t].block)
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                                "cache_type_%s %s stores whole %u-element blocks; this model's %s heads are %llu wide "
                                "(llama.cpp refuses it)",
                                v ? "v" : "k", llmmem__ggml_cache_type_name(t),
                                (unsigned)cache_types[t].block, v ? "value" : "key", (unsigned long long)head);
    }
    out->k = llmmem__ggml_row_bytes(ls->type_k, nk);
    out->v = nv ? llmmem__ggml_row_bytes(ls->type_v, nv) : 0;
    /* llama-hparams.cpp n_embd_r and n_embd_s, in f32 (create_memory: GGML_TYPE_F32 for both) */
    acc A = {0};
    const llmmem__mixer_row *row = llmmem__state_row(a);
    if (row && row->llama_state) {
        uint64_t r[2], sv[3];
        row->llama_state(r, sv, a);
        out->r = mul(&A, mul(&A, r[0], r[1]), 4);
        out->s = mul(&A, mul(&A, mul(&A, sv[0], sv[1]), sv[2]), 4);
    }
    (void)add(&A, out->r, out->s); /* the buffers multiply the sum */
    return A.overflow ? llmmem__fail(LLMMEM_ERR_OVERFLOW, "the recurrent state of one layer exceeds 64 bits")
                      : LLMMEM_OK;
}

/* ---- where the layers go (llama-model.cpp load_tensors) ----------------------------------------- */

typedef struct placement {
    size_t gpus;                          /* GPUs in use */
    unsigned gpu_id[LLMMEM__LOCAL_GPUS];  /* llama.cpp's device index of each */
    uint64_t first[LLMMEM__LOCAL_GPUS], end[LLMMEM__LOCAL_GPUS]; /* decoder layers [first, end) of each GPU */
    uint64_t i_gpu_start;                 /* layers below it stay on the CPU */
    uint64_t n_gpu_layers;                /* act_gpu_layers: layers offloaded, the output counted */
    int output_gpu;                       /* GPU of the output layer, -1: the CPU */
} placement;

/* The GPU of layer il (il == n_layer: the output layer), or -1 for the CPU: layers at or past
 * i_gpu_start go to the first GPU whose split point exceeds (il - i_gpu_start) / act_gpu_layers,
 * computed in float as llama.cpp does (std::upper_bound over the normalised cumulative splits). */
static int layer_gpu(const placement *p, const float *splits, uint64_t il)
{
    if (p->gpus == 0 || il < p->i_gpu_start || il - p->i_gpu_start >= p->n_gpu_layers)
        return -1;
    float x = (float)(il - p->i_gpu_start) / (float)p->n_gpu_layers;
    size_t g = 0;
    while (g < p->gpus && !(x < splits[g]))
        g++;
    return g < p->gpus ? (int)g : (int)p->gpus - 1;
}

static llmmem_status place(placement *p, const llmmem__geometry *a, const llmmem__llama_job *j,
                           const llmmem__llama_settings *ls)
{
    memset(p, 0, sizeof *p);
    uint64_t devices = j->in->dev.gpus; /* backend cpu: none, every layer on the CPU */
    if (j->in->dev.num_nodes > 1)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "local inference runs on one machine: num_nodes (%llu) must be 1",
                            (unsigned long long)j->in->dev.num_nodes);
    if (devices > LLMMEM__LOCAL_GPUS)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "llama.cpp uses at most %d GPUs (LLAMA_MAX_DEVICES); the hardware "
                            "has devices_per_node %llu", LLMMEM__LOCAL_GPUS, (unsigned long long)devices);
    if (ls->split_mode == LLMMEM_SPLIT_MODE_ROW) /* docs/multi-gpu.md: "row | Deprecated ... Superseded by tensor" */
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "split_mode row is deprecated by llama.cpp, superseded by tensor "
                            "(current CUDA and HIP builds fail to load it: \"does not support split buffers\"); use "
                            "tensor, layer or none");
    if (ls->n_split > devices)
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "tensor_split has %zu values for %llu GPUs (devices_per_node)",
                            ls->n_split, (unsigned long long)devices);
    if (devices == 0) {
        p->gpus = 0;
    } else if (ls->split_mode == LLMMEM_SPLIT_MODE_NONE) { /* llama.cpp keeps main_gpu alone in the device list */
        if (ls->main_gpu >= devices)
            return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "main_gpu (%llu) is not below devices_per_node (%llu)",
                                (unsigned long long)ls->main_gpu, (unsigned long long)devices);
        p->gpus = 1;
        p->gpu_id[0] = (unsigned)ls->main_gpu;
    } else {
        p->gpus = (size_t)devices;
        for (size_t g = 0; g < p->gpus; g++)
            p->gpu_id[g] = (unsigned)g;
    }
    /* layers 0 .. n_layer, the output layer last: i_gpu_start = max(n_layer + 1 - n_gpu_layers, 0),
     * act_gpu_layers = min(n_gpu_layers, n_layer + 1), so the GPUs take the last ones, the output first */
    uint64_t n_layer = a->layers;
    uint64_t ngl = ls->n_gpu_layers < 0 ? n_layer + 1 : (uint64_t)ls->n_gpu_layers;
    if (p->gpus == 0) /* load_tensors: act_gpu_layers = devices.empty() ? 0 : ...: no GPU, every layer on the CPU */
        ngl = 0;
    p->i_gpu_start = ngl >= n_layer + 1 ? 0 : n_layer + 1 - ngl;
    if (p->i_gpu_start > n_layer) /* the CPU's decoder layers end at n_layer; the output layer follows act_gpu_layers */
        p->i_gpu_start = n_layer;
    p->n_gpu_layers = ngl < n_layer + 1 ? ngl : n_layer + 1;
    return LLMMEM_OK;
}

/* Normalised cumulative split points: tensor_split, or every GPU alike (llama.cpp weighs them by
 * free memory; one hardware handle describes identical GPUs). tensor_split's values are the floats
 * llama.cpp holds, each 0 or normal (checked so in strategy.c), so the sum is positive and finite. */
static void split_points(float *splits, const placement *p, const llmmem__llama_settings *ls)
{
    float sum = 0.0f;
    for (size_t g = 0; g < p->gpus; g++) {
        float w = ls->n_split && p->gpus > 1 ? (g < ls->n_split ? (float)ls->split[p->gpu_id[g]] : 0.0f) : 1.0f;
        sum += w;
        splits[g] = sum;
    }
    for (size_t g = 0; g < p->gpus; g++)
        splits[g] /= sum;
}

/* Each GPU's decoder layers. From i_gpu_start on, layer_gpu is a GPU and never decreases with il (a
 * float quotient of a growing numerator, then upper_bound), so each GPU holds one run of layers:
 * its end is found by bisection instead of asking every layer. */
static void assign_layers(placement *p, const float *splits, uint64_t n_layer)
{
    for (size_t g = 0; g < p->gpus; g++)
        p->first[g] = p->end[g] = 0;
    uint64_t il = p->n_gpu_layers ? p->i_gpu_start : n_layer;
    for (size_t g = 0; g < p->gpus && il < n_layer; g++) {
        uint64_t lo = il, hi = n_layer; /* the first layer past GPU g */
        while (lo < hi) {
            uint64_t mid = lo + (hi - lo) / 2;
            if (layer_gpu(p, splits, mid) > (int)g)
                hi = mid;
            else
                lo = mid + 1;
        }
        if (lo > il) {
            p->first[g] = il;
            p->end[g] = lo;
        }
        il = lo;
    }
    p->output_gpu = layer_gpu(p, splits, n_layer);
}

/* Device index in the result of layer il: a GPU, or the host (index gpus). */
static size_t device_of(const placement *p, uint64_t il)
{
    for (size_t g = 0; g < p->gpus; g++)
        if (il >= p->first[g] && il < p->end[g])
            return g;
    return p->gpus;
}

/* ---- model buffers ------------------------------------------------------------------------------ */

/* "blk.<il>." names a repeating layer's tensor; *il_out gets il. */
static int block_index(const char *name, uint64_t *il_out)
{
    if (strncmp(name, "blk.", 4) != 0)
        return 0;
    const char *p = name + 4;
    uint64_t il = 0;
    if (*p < '0' || *p > '9')
        return 0;
    while (*p >= '0' && *p <= '9') {
        il = il * 10 + (uint64_t)(*p - '0');
        if (il > (1ULL << 40))
            return 0;
        p++;
    }
    if (*p != '.')
        return 0;
    *il_out = il;
    return 1;
}

/* common/arg.cpp --n-cpu-moe: the tensors blk.<il>.ffn_(up|down|gate)_exps of the first layers are
 * overridden to the CPU buffer type */
static int expert_tensor(const char *name)
{
    const char *dot = strchr(name + 4, '.');
    return dot && strncmp(dot + 1, "ffn_", 4) == 0 && strstr(dot + 1, "_exps") != NULL;
}

/* The GGUF's tensors by device: blk.<il>.* with their layer (the expert tensors of the first
 * n_cpu_moe layers on the CPU), token_embd and any other tensor outside the layers on the CPU (the
 * input layer always is), output and output_norm with the output layer; a model without an output
 * tensor uses token_embd there, duplicated onto a GPU (llama-model.cpp: TENSOR_DUPLICATED). */
static llmmem_status gguf_weights(uint64_t *model, int *experts_moved, const struct llmmem_checkpoint *ck,
                                  const placement *p, const llmmem__llama_settings *ls, uint64_t n_layer)
{
    acc A = {0};
    const size_t host = p->gpus;
    size_t out_dev = p->output_gpu < 0 ? host : (size_t)p->output_gpu;
    uint64_t embd = 0;
    int has_output = 0;
    for (size_t i = 0; i < ck->n_tensors; i++) {
        const llmmem__ck_tensor *t = &ck->tensors[i];
        uint64_t il;
        size_t dev = host;
        if (block_index(t->name, &il)) {
            if (il >= n_layer) /* a multi-token-prediction layer past block_count's decoder: not loaded */
                continue;
            dev = device_of(p, il);
            if (dev != host && il < ls->n_cpu_moe && expert_tensor(t->name)) {
                dev = host;
                *experts_moved = 1;
            }
        } else if (strncmp(t->name, "output.", 7) == 0 || strncmp(t->name, "output_norm.", 12) == 0) {
            dev = out_dev;
            has_output |= strcmp(t->name, "output.weight") == 0;
        } else if (strcmp(t->name, "token_embd.weight") == 0) {
            embd = t->bytes;
        }
        model[dev] = add(&A, model[dev], t->bytes);
    }
    if (!has_output && out_dev != host)
        model[out_dev] = add(&A, model[out_dev], embd);
    return A.overflow ? llmmem__fail(LLMMEM_ERR_OVERFLOW, "the GGUF's tensor bytes exceed 64 bits") : LLMMEM_OK;
}

/* The same from the model's inventory in the strategy's weight format: each GPU's layers, the
 * embedding on the CPU, the final norm and head with the output layer (a tied head is a copy of
 * the embedding there, as llama.cpp duplicates it). */
static llmmem_status inventory_weights(uint64_t *model, int *experts_moved, llmmem__llama_job *j, const placement *p,
                                       const llmmem__llama_settings *ls, uint64_t n_layer)
{
    acc A = {0};
    const size_t host = p->gpus;
    uint64_t b;
    const llmmem__rank_weights *w;
    llmmem_status st = llmmem__llama_weights(&w, j);
    if (st)
        return st;
    for (size_t g = 0; g < p->gpus; g++) {
        if (p->first[g] == p->end[g])
            continue;
        if ((st = llmmem__rank_weights_sum(&b, w, p->first[g], p->end[g], 0, 0, -1)) != LLMMEM_OK)
            return st;
        model[g] = add(&A, model[g], b);
        /* --n-cpu-moe: the experts of this GPU's layers below n_cpu_moe move to the CPU */
        uint64_t cpu_end = ls->n_cpu_moe < p->end[g] ? ls->n_cpu_moe : p->end[g];
        if (cpu_end > p->first[g]) {
            if ((st = llmmem__rank_weights_sum(&b, w, p->first[g], cpu_end, 0, 0, LLMMEM_PARAMS_EXPERTS)) != LLMMEM_OK)
                return st;
            model[g] -= b;
            model[host] = add(&A, model[host], b);
            *experts_moved |= b != 0;
        }
    }
    /* the CPU's layers: those below i_gpu_start */
    if (p->i_gpu_start) {
        if ((st = llmmem__rank_weights_sum(&b, w, 0, p->i_gpu_start, 0, 0, -1)) != LLMMEM_OK)
            return st;
        model[host] = add(&A, model[host], b);
    }
    if ((st = llmmem__rank_weights_sum(&b, w, 0, 0, 1, 0, -1)) != LLMMEM_OK) /* the input layer */
        return st;
    model[host] = add(&A, model[host], b);
    if ((st = llmmem__rank_weights_sum(&b, w, n_layer, n_layer, 0, 1, -1)) != LLMMEM_OK) /* the output layer */
        return st;
    size_t out_dev = p->output_gpu < 0 ? host : (size_t)p->output_gpu;
    if (out_dev == host && llmmem__model_value(j->m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS)) {
        /* on the CPU the tied head is the mapped embedding itself: the final norm alone is new */
        uint64_t head;
        if ((st = llmmem__rank_weights_sum(&head, w, n_layer, n_layer, 0, 1, LLMMEM_PARAMS_EMBEDDING)) != LLMMEM_OK)
            return st;
        b -= head;
    }
    model[out_dev] = add(&A, model[out_dev], b);
    return A.overflow ? llmmem__fail(LLMMEM_ERR_OVERFLOW, "the model's weight bytes exceed 64 bits") : LLMMEM_OK;
}

/* ---- compute buffers ---------------------------------------------------------------------------- */

/*
 * The compute buffer is what ggml-alloc's graph allocator reserves for the worst ubatch
 * (llama-context.cpp graph_reserve: n_ubatch tokens, every one an output, the full cache as n_kv).
 * The allocator frees each intermediate after its last use, so a layer's buffer is its largest live
 * set: the residual and normed input, then the larger of the attention step (the query; the f32
 * scores of n_kv x tokens x heads and their softmax in place when flash attention is off; the
 * output) and the feed-forward step (gate and up, the MoE router's logits and the selected experts'
 * intermediates). The output layer holds the f32 logits of every token (graph_reserve reserves
 * n_outputs = n_ubatch). Elements are f32 (ggml computes activations in f32). This is modelled, not
 * read from the allocator; the tests compare it with buffers llama.cpp printed.
 */
static uint64_t layer_work(acc *A, const llmmem__geometry *a, uint64_t T, uint64_t n_kv, int fa, int state)
{
    const uint64_t f = 4;
    uint64_t resid = mul(A, mul(A, 2 * a->hidden, T), f);
    uint64_t dv = a->v_head_dim ? a->v_head_dim : a->head_dim;
    uint64_t q = mul(A, mul(A, a->heads * a->head_dim, T), f);
    uint64_t o = mul(A, mul(A, a->heads * dv, T), f);
    uint64_t attn = add(A, q, o);
    if (!fa)
        attn = add(A, attn, mul(A, mul(A, mul(A, n_kv, T), a->heads), f));
    uint64_t ffn = 0;
    if (a->dense_layers)
        ffn = mul(A, mul(A, 2 * a->ffn, T), f);
    if (a->moe_layers) {
        uint64_t moe = mul(A, mul(A, add(A, a->experts, mul(A, 2 * a->experts_per_tok, a->ffn_expert)), T), f);
        if (a->ffn_shared)
            moe = add(A, moe, mul(A, mul(A, 2 * a->ffn_shared, T), f));
        ffn = max2(ffn, moe);
    }
    uint64_t mixer = attn;
    if (state) { /* the scan's input projection and its output over the inner width */
        const llmmem__mixer_row *row = llmmem__state_row(a);
        uint64_t inner = 0, conv = 0;
        if (row && row->llama_widths)
            row->llama_widths(&inner, &conv, a);
        mixer = max2(mixer, mul(A, mul(A, add(A, 2 * inner, conv), T), f));
    }
    return add(A, resid, max2(mixer, ffn));
}

static uint64_t output_work(acc *A, const llmmem__geometry *a, uint64_t T)
{
    return mul(A, mul(A, add(A, a->hidden, a->vocab), T), 4);
}

/* The host's compute buffer for the graph's inputs (llama-graph.cpp build_inp_*): the token
 * embeddings looked up on the CPU, where the input layer is (f32, n_embd x tokens); the f32 attention
 * mask of n_kv x tokens, and a second one over the sliding-window cache (flash attention casts it to
 * f16 on the device, the host keeps f32); the int32 tokens, positions and output ids. */
static uint64_t input_work(acc *A, const llmmem__geometry *a, uint64_t T, uint64_t n_kv, uint64_t n_kv_swa)
{
    uint64_t embd = mul(A, mul(A, a->hidden, T), 4);
    uint64_t mask = add(A, mul(A, mul(A, n_kv, T), 4), mul(A, mul(A, n_kv_swa, T), 4));
    return add(A, add(A, embd, mask), mul(A, T, 12));
}

/* ---- every buffer -------------------------------------------------------------------------------- */

void llmmem__ggml_device_name(char *dst, size_t size, const char *prefix, unsigned index)
{
    size_t n = strlen(prefix); /* "CUDA", "ROCm", "MTL", "Vulkan": with two digits, below 12 */
    if (n + 3 > size)
        n = size - 3;
    memcpy(dst, prefix, n);
    if (index >= 10)
        dst[n++] = (char)('0' + index / 10 % 10);
    dst[n++] = (char)('0' + index % 10);
    dst[n] = '\0';
}

llmmem_status llmmem__llama_check(const llmmem__geometry **shape, const llmmem_model *m, const llmmem__llama_settings *ls)
{
    const llmmem__geometry *a = NULL;
    llmmem_status st = llmmem__kv_shape_with_state(&a, m);
    if (st)
        return st;
    if ((st = llmmem__kv_refuse_cross(a, "llama.cpp's KV cache")) != LLMMEM_OK ||
        (st = llmmem__kv_refuse_typed(a, "llama.cpp's KV cache", 0)) != LLMMEM_OK)
        return st;
    if (llmmem__state_kinds(a) > 1)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "a model with state layers of more than one kind is not modelled");
    /* llama.cpp's src/llama-arch.cpp LLM_ARCH_NAMES (the reference's) has no graph with AttnRes banks */
    if (llmmem__model_value(m, LLMMEM_KEY_ATTN_RES_BLOCK_SIZE))
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "llama.cpp's graph of %s (AttnRes residual banks, attn_res_block_size "
                            "%lld) is not modelled: the weights and the contiguous cache (llmmem_kv_cache_bytes) are",
                            llmmem_choice_name(LLMMEM_KEY_MODEL_TYPE, llmmem__model_value(m, LLMMEM_KEY_MODEL_TYPE)),
                            (long long)llmmem__model_value(m, LLMMEM_KEY_ATTN_RES_BLOCK_SIZE));
    if (quantized(ls->type_v) && !ls->flash_attn) /* llama-context.cpp: "V cache quantization requires flash_attn" */
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "cache_type_v %s needs flash attention: llama.cpp refuses "
                            "a quantized V cache with flash_attn off",
                            llmmem__ggml_cache_type_name(ls->type_v));
    *shape = a;
    return LLMMEM_OK;
}

llmmem_status llmmem__llama_buffers(struct llmmem_local *out, llmmem__llama_job *j, const llmmem__llama_settings *ls)
{
    const llmmem__geometry *a = j->shape;
    const llmmem_model *m = j->m;
    llmmem_status st;
    context c;
    rows r;
    placement p;
    if ((st = resolve_context(&c, a, m, ls)) != LLMMEM_OK || (st = cache_rows(&r, a, ls)) != LLMMEM_OK ||
        (st = place(&p, a, j, ls)) != LLMMEM_OK)
        return st;
    float splits[LLMMEM__LOCAL_GPUS] = {0};
    split_points(splits, &p, ls);
    assign_layers(&p, splits, a->layers);

    acc A = {0};
    const size_t host = p.gpus;
    out->devices = p.gpus + 1;
    for (size_t g = 0; g < p.gpus; g++)
        llmmem__ggml_device_name(out->device_name[g], sizeof out->device_name[g], j->in->dev.prefix, p.gpu_id[g]);
    memcpy(out->device_name[host], "CPU", 4);

    uint64_t model[LLMMEM__LOCAL_DEVICES] = {0};
    int experts_moved = 0;
    st = j->ck ? gguf_weights(model, &experts_moved, j->ck, &p, ls, a->layers)
               : inventory_weights(model, &experts_moved, j, &p, ls, a->layers);
    if (st)
        return st;

    /* caches and compute per device: each layer's cache is on the layer's device when offload_kqv */
    uint64_t T = c.n_ubatch < c.n_ctx ? c.n_ubatch : c.n_ctx;
    int has_full = llmmem__layers_in(&a->plan, a->attention, 0, a->layers) > llmmem__sliding_layers(a, 0, a->layers);
    for (size_t d = 0; d < out->devices; d++) {
        uint64_t first = d < host ? p.first[d] : 0, end = d < host ? p.end[d] : p.i_gpu_start;
        uint64_t attn = llmmem__layers_in(&a->plan, a->attention, first, end);
        uint64_t swa = llmmem__sliding_layers(a, first, end);
        uint64_t state = llmmem__layers_in(&a->plan, a->ssm | a->linear | a->mamba1, first, end);
        uint64_t cell = add(&A, r.k, r.v);
        uint64_t kv = add(&A, mul(&A, mul(&A, mul(&A, attn - swa, cell), c.kv_size), c.n_stream),
                          mul(&A, mul(&A, mul(&A, swa, cell), c.kv_size_swa), c.n_stream));
        uint64_t rs = mul(&A, mul(&A, state, add(&A, r.r, r.s)), c.mem_size);
        size_t kv_dev = ls->offload_kqv ? d : host;
        out->bytes[kv_dev][LLMMEM_LOCAL_KV] = add(&A, out->bytes[kv_dev][LLMMEM_LOCAL_KV], kv);
        out->bytes[kv_dev][LLMMEM_LOCAL_RECURRENT] = add(&A, out->bytes[kv_dev][LLMMEM_LOCAL_RECURRENT], rs);
        out->layers[d] = end - first;
        uint64_t work = 0;
        if (end > first) {
            uint64_t n_kv = attn - swa ? c.kv_size : c.kv_size_swa;
            work = layer_work(&A, a, T, n_kv, ls->flash_attn, state != 0);
        }
        if ((d < host && p.output_gpu == (int)d) || (d == host && p.output_gpu < 0))
            work = max2(work, output_work(&A, a, T));
        if (d == host) /* a mask over the full-attention cache when the model has such layers */
            work = max2(work, input_work(&A, a, T, has_full ? c.kv_size : 0, c.kv_size_swa));
        out->bytes[d][LLMMEM_LOCAL_COMPUTE] = work;
        out->bytes[d][LLMMEM_LOCAL_MODEL] = model[d];
    }
    /* llama-context.cpp output_reserve(n_seq_max): f32 logits of one row per sequence, on the host */
    out->bytes[host][LLMMEM_LOCAL_OUTPUT] = mul(&A, mul(&A, a->vocab, c.n_seq_max), 4);
    if (A.overflow)
        return llmmem__fail(LLMMEM_ERR_OVERFLOW, "the buffers of n_ctx %llu exceed 64 bits",
                            (unsigned long long)c.n_ctx);

    out->v[LLMMEM_LOCAL_ENGINE] = ls->engine;
    out->v[LLMMEM_LOCAL_N_CTX] = c.n_ctx;
    out->v[LLMMEM_LOCAL_N_CTX_SEQ] = c.n_ctx_seq;
    out->v[LLMMEM_LOCAL_N_SEQ_MAX] = c.n_seq_max;
    out->v[LLMMEM_LOCAL_N_STREAMS] = c.n_stream;
    out->v[LLMMEM_LOCAL_KV_SIZE] = c.kv_size;
    out->v[LLMMEM_LOCAL_KV_SIZE_SWA] = c.kv_size_swa;
    out->v[LLMMEM_LOCAL_N_BATCH] = c.n_batch;
    out->v[LLMMEM_LOCAL_N_UBATCH] = c.n_ubatch;
    out->v[LLMMEM_LOCAL_N_LAYER] = a->layers;
    out->v[LLMMEM_LOCAL_N_GPU_LAYERS] = p.gpus ? p.n_gpu_layers : 0;
    out->v[LLMMEM_LOCAL_FLASH_ATTN] = (uint64_t)ls->flash_attn;
    out->v[LLMMEM_LOCAL_GPUS] = p.gpus;
    /* beyond what the CPU keeps whatever the offload (token_embd, the inputs, the output buffer) */
    out->host_holds_layers = out->layers[host] != 0 || p.output_gpu < 0 || experts_moved ||
                             out->bytes[host][LLMMEM_LOCAL_KV] != 0 || out->bytes[host][LLMMEM_LOCAL_RECURRENT] != 0;
    out->type_k = ls->type_k;
    out->type_v = ls->type_v;
    return LLMMEM_OK;
}
