/* A job replayed through PyTorch's CUDA caching allocator (replay.h). */
#include "alloc/replay.h"

#include <stdlib.h>
#include <string.h>

#include "alloc/cuda_alloc.h"
#include "job/framework.h"

/* The families the tape runs, with what their modeling file does besides a Llama's
 * (modeling_<family>.py of transformers 5.x). */
static const struct tape_family {
    llmmem_model_type type;
    llmmem__tape_family code;
    uint8_t gemma;          /* Gemma2RMSNorm, gelu_pytorch_tanh, the scaled embedding */
    uint8_t softcap;        /* Gemma2: attn_logit_softcapping and final_logit_softcapping */
    uint8_t local_rope;     /* Gemma3: rotary_emb_local on the sliding layers */
    uint8_t sliding_period; /* layer_types: every n-th layer global (Gemma2: alternating) */
} tape_families[] = {
    {LLMMEM_MODEL_LLAMA, LLMMEM__TAPE_LLAMA, 0, 0, 0, 0},
    {LLMMEM_MODEL_MISTRAL, LLMMEM__TAPE_LLAMA, 0, 0, 0, 0},
    {LLMMEM_MODEL_QWEN2, LLMMEM__TAPE_LLAMA, 0, 0, 0, 0},
    {LLMMEM_MODEL_QWEN3, LLMMEM__TAPE_LLAMA, 0, 0, 0, 0},
    {LLMMEM_MODEL_GEMMA2, LLMMEM__TAPE_LLAMA, 1, 1, 0, 2},
    {LLMMEM_MODEL_GEMMA3_TEXT, LLMMEM__TAPE_LLAMA, 1, 0, 1, 0},
    {LLMMEM_MODEL_GPT2, LLMMEM__TAPE_GPT2, 0, 0, 0, 0},
    {LLMMEM_MODEL_OLMOE, LLMMEM__TAPE_LLAMA, 0, 0, 0, 0}, /* OlmoeSparseMoeBlock on every layer */
};

static llmmem_status unsupported(const char *what, const char *value)
{
    return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "the allocation tape does not run %s%s%s", what, value ? " " : "",
                        value ? value : "");
}

static const char *choice(llmmem_key key, int64_t v)
{
    const char *n = llmmem_choice_name(key, v);
    return n ? n : "?";
}

/* The framework, layout and settings the tape follows: transformers on PyTorch 2.x, one CUDA
 * device, the formats of a bf16/fp16 model. */
static llmmem_status check_job(const llmmem__job *j, const llmmem__semantics *sem)
{
    int64_t framework = j->act.framework;
    if (framework != LLMMEM_FRAMEWORK_HF_TRAINER)
        return unsupported("framework", llmmem__framework_name(framework));
    if (sem->torch1 || sem->cpu_kernels)
        return unsupported(sem->torch1 ? "PyTorch 1.13" : "CPU kernels (device_kernels cpu)", NULL);
    const llmmem__layout *L = &j->layout;
    if (!llmmem__layout_single(L) || L->d != 1)
        return unsupported("a layout over several devices (one device: no tensor, pipeline, data, context or "
                           "expert parallelism, no sharding)", NULL);
    if (L->offload_opt != LLMMEM_OFFLOAD_NONE || L->offload_param != LLMMEM_OFFLOAD_NONE)
        return unsupported("offloaded optimizer states or parameters", NULL);
    if (j->compute != LLMMEM_FORMAT_BF16 && j->compute != LLMMEM_FORMAT_FP16)
        return unsupported("a model computing in", llmmem__format_name(j->compute));
    /* torch.autocast (job.c holds it to full training): fp32 weights, ops of its lower-precision
     * list computing in its dtype */
    int autocast = j->act.autocast != LLMMEM_AUTOCAST_OFF;
    llmmem_format stored = autocast ? LLMMEM_FORMAT_FP32 : j->compute;
    if (j->price.weights.weight != stored || j->price.weights.high != stored)
        return unsupported(autocast ? "torch.autocast over weights in another format than fp32"
                                    : "weights stored in another format than the compute's",
                           NULL);
    if (sem->attn != LLMMEM_ATTN_SDPA && sem->attn != LLMMEM_ATTN_EAGER)
        return unsupported("attn_implementation", llmmem__attn_implementation_name(sem->attn));
    int64_t recompute = j->act.recompute;
    if (autocast && sem->attn != LLMMEM_ATTN_SDPA)
        return unsupported("torch.autocast with attn_implementation",
                           llmmem__attn_implementation_name(sem->attn));
    if (autocast && recompute != LLMMEM_RECOMPUTE_NONE)
        return unsupported("torch.autocast with recompute", llmmem__recompute_name(recompute));
    if (sem->norm != LLMMEM_NORM_IMPL_EAGER)
        return unsupported("norm_implementation", llmmem__norm_implementation_name(sem->norm));
    /* transformers' DynamicCache and StaticCache hold keys and values in the model's dtype: the tape's */
    if (j->price.mode == LLMMEM_MODE_INFERENCE && j->kv != llmmem__kv_dtype_of(j->compute))
        return unsupported("a KV cache in kv_cache_dtype", llmmem__kv_dtype_name(j->kv));
    /* the tape's head runs over the last position (generate's logits_to_keep=1, tape.c) */
    if (j->price.mode == LLMMEM_MODE_INFERENCE && j->loop.logits_to_keep != 1)
        return unsupported("logits_to_keep other than 1", NULL);
    return LLMMEM_OK;
}

/* The model's shapes and family traits. */
static llmmem_status model_of(llmmem__tape_model *t, const llmmem_model *m, const llmmem__semantics *sem,
                              unsigned bytes)
{
    const llmmem__geometry *g = &m->geo;
    int64_t type = llmmem__model_value(m, LLMMEM_KEY_MODEL_TYPE);
    const struct tape_family *f = NULL;
    for (size_t i = 0; i < sizeof tape_families / sizeof *tape_families; i++)
        if (tape_families[i].type == type)
            f = &tape_families[i];
    if (!f && g->moe_layers)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "the allocation tape does not run the model family %s: of the mixture-of-experts families "
                            "it runs OLMoE alone (experts_implementation grouped)",
                            choice(LLMMEM_KEY_MODEL_TYPE, type));
    if (!f)
        return unsupported("the model family", choice(LLMMEM_KEY_MODEL_TYPE, type));
    if (llmmem__model_value(m, LLMMEM_KEY_NUM_PARAMETERS) != 0)
        return unsupported("a model given by its parameter count alone", NULL);
    if (g->kv_lora_rank || llmmem__state_layers(g) || g->cross_layers || g->chunk)
        return unsupported("latent-attention, state-space, chunked or cross-attention layers", NULL);
    if (g->moe_layers && sem->experts != LLMMEM_EXPERTS_GROUPED)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "the allocation tape does not run experts_implementation %s: it runs OLMoE's experts as "
                            "transformers' grouped_mm (experts_implementation grouped)",
                            llmmem__experts_implementation_name(sem->experts));
    if (g->window && !f->sliding_period && !f->local_rope)
        return unsupported("a sliding window on", choice(LLMMEM_KEY_MODEL_TYPE, type));
    t->family = f->code;
    t->hidden = g->hidden;
    t->layers = g->layers;
    t->heads = g->heads;
    t->kv_heads = g->kv_heads;
    t->head_dim = g->head_dim;
    t->ffn = g->ffn;
    t->vocab = g->vocab;
    t->positions = f->code == LLMMEM__TAPE_GPT2 ? (uint64_t)llmmem__model_value(m, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS) : 0;
    t->tied = llmmem__model_value(m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS) != 0;
    t->qkv_bias = llmmem__model_value(m, LLMMEM_KEY_QKV_BIAS) != 0;
    t->bytes = bytes;
    t->norm = f->gemma ? LLMMEM__TAPE_NORM_GEMMA : LLMMEM__TAPE_NORM_LLAMA;
    t->norms = (unsigned)llmmem__model_value(m, LLMMEM_KEY_NORMS_PER_LAYER);
    t->gelu_tanh = f->gemma;
    t->embed_scale = f->gemma;
    t->attn_softcap = t->final_softcap = f->softcap;
    t->local_rope = f->local_rope;
    t->sliding_period = f->sliding_period ? f->sliding_period
                        : f->local_rope      ? (uint64_t)llmmem__model_value(m, LLMMEM_KEY_SLIDING_WINDOW_PATTERN)
                                             : 0;
    t->qk_norm = !llmmem__model_value(m, LLMMEM_KEY_QK_NORM)                                         ? 0
                 : llmmem__model_value(m, LLMMEM_KEY_QK_NORM_TYPE) == LLMMEM_QK_NORM_PER_LAYER ? 2
                                                                                                 : 1;
    if (g->moe_layers) {
        t->experts = g->experts;
        t->experts_per_tok = g->experts_per_tok;
        t->expert_ffn = g->ffn_expert;
    }
    t->window = g->window;
    return LLMMEM_OK;
}

llmmem_status llmmem__tape_job_make(llmmem__tape_job *t, const llmmem__job *j)
{
    memset(t, 0, sizeof *t);
    const llmmem__semantics sem = j->sem;
    llmmem_status st = llmmem__semantics_check(&sem);
    int autocast = j->act.autocast != LLMMEM_AUTOCAST_OFF;
    if (st != LLMMEM_OK || (st = check_job(j, &sem)) != LLMMEM_OK ||
        (st = model_of(&t->model, j->m, &sem, autocast ? 4 : 2)) != LLMMEM_OK)
        return st;
    /* autocast as the tape runs it: Llama's modeling (an fp32 residual stream, LlamaRMSNorm) */
    const llmmem__tape_model *tm = &t->model;
    if (autocast && (tm->family != LLMMEM__TAPE_LLAMA || tm->norm != LLMMEM__TAPE_NORM_LLAMA || tm->qk_norm ||
                     tm->experts || tm->sliding_period))
        return unsupported("torch.autocast on",
                           choice(LLMMEM_KEY_MODEL_TYPE, llmmem__model_value(j->m, LLMMEM_KEY_MODEL_TYPE)));
    t->autocast = autocast ? 2 : 0; /* bf16 or fp16 */
    t->batch = j->sequences;
    t->seq = j->tokens;
    t->eager = sem.attn == LLMMEM_ATTN_EAGER;
    t->steps = 2;
    /* CublasHandlePool.cpp: one workspace per thread that runs matmuls (cublas_workspace_bytes) */
    t->ws_forward = t->ws_backward = j->dev.workspace;
    t->ws_forward_lt = 1ULL << 20;                 /* cuBLASLt's (CUBLASLT_WORKSPACE_SIZE, 1 MiB) */
    int64_t mode = j->price.mode;
    if (mode == LLMMEM_MODE_INFERENCE) {
        if (sem.cache == LLMMEM_CACHE_AUTO)
            return unsupported("inference outside transformers' generate loop (max_new_tokens 0)", NULL);
        if (sem.cache == LLMMEM_CACHE_OFFLOADED)
            return unsupported("cache_implementation", "offloaded");
        t->new_tokens = j->loop.max_new_tokens;
        if (!t->new_tokens)
            t->new_tokens = 1; /* the prefill alone */
        /* a decode step costs a forward of every layer: at most LLMMEM__REPLAY_DECODE_STEPS of them are
         * replayed, each standing for the stride of tokens before it (the last step always) */
        uint64_t decode = t->new_tokens - 1;
        t->decode_stride = decode > LLMMEM__REPLAY_DECODE_STEPS
                               ? (decode + LLMMEM__REPLAY_DECODE_STEPS - 1) / LLMMEM__REPLAY_DECODE_STEPS
                               : 1;
        t->static_cache = sem.cache == LLMMEM_CACHE_STATIC;
        t->beams = j->loop.beams;
        return LLMMEM_OK;
    }
    if (mode != LLMMEM_MODE_TRAINING && mode != LLMMEM_MODE_LORA)
        return unsupported("mode", llmmem__mode_name(mode));
    int64_t recompute = j->act.recompute;
    if (recompute != LLMMEM_RECOMPUTE_NONE && recompute != LLMMEM_RECOMPUTE_FULL)
        return unsupported("recompute", llmmem__recompute_name(recompute));
    t->checkpoint = recompute == LLMMEM_RECOMPUTE_FULL;
    t->model.dropout = j->act.dropout != 0;
    if (t->model.dropout && t->model.family != LLMMEM__TAPE_GPT2)
        return unsupported("dropout on", choice(LLMMEM_KEY_MODEL_TYPE, llmmem__model_value(j->m, LLMMEM_KEY_MODEL_TYPE)));
    const llmmem__train_plan *tp = &j->price.train;
    if (tp->frozen_layers)
        return unsupported("frozen layers", NULL);
    switch (tp->optimizer) {
    case LLMMEM_OPTIMIZER_ADAMW:
    case LLMMEM_OPTIMIZER_ADAM:
        t->optimizer = sem.optimizer == LLMMEM_OPTIMIZER_IMPL_FUSED      ? LLMMEM__TAPE_ADAMW_FUSED
                       : sem.optimizer == LLMMEM_OPTIMIZER_IMPL_FOR_LOOP ? LLMMEM__TAPE_ADAMW_FOR_LOOP
                                                                          : LLMMEM__TAPE_ADAMW_FOREACH;
        break;
    case LLMMEM_OPTIMIZER_SGD_MOMENTUM:
        t->optimizer = LLMMEM__TAPE_SGD_MOMENTUM;
        break;
    default:
        return unsupported("optimizer", llmmem__optimizer_name(tp->optimizer));
    }
    /* PyTorch keeps a parameter's grad and optimizer states in its dtype, with no master copy */
    llmmem_format trained = mode == LLMMEM_MODE_LORA ? tp->adapter : autocast ? LLMMEM_FORMAT_FP32 : j->compute;
    /* an fp32 master of fp32 weights is the weights themselves (job.c recipe fp32) */
    int master = tp->master != LLMMEM_FORMAT_AUTO && (tp->master != LLMMEM_FORMAT_FP32 || trained != LLMMEM_FORMAT_FP32);
    if (master || tp->grad != trained || tp->state != trained || tp->grad_copy)
        return unsupported("a precision recipe with master weights or grads and states in another dtype than the "
                           "parameters' (precision_recipe pure_bf16, fp32 under autocast, or custom formats equal to "
                           "the weights')",
                           NULL);
    if (mode == LLMMEM_MODE_LORA) {
        if (tm->experts)
            return unsupported("LoRA on a mixture-of-experts model", NULL);
        if (tp->targets & ~0x7fu)
            return unsupported("LoRA adapters on routed experts", NULL);
        t->lora_rank = tp->rank;
        t->lora_targets = (unsigned)tp->targets;
        t->lora_bytes = tp->adapter == LLMMEM_FORMAT_FP32 ? 4u : 2u;
        t->input_grads = sem.input_grads;
    }
    return LLMMEM_OK;
}

/* ---- the replay ------------------------------------------------------------------------------ */

typedef struct replay_ctx {
    llmmem__ca *ca;
    llmmem__replay *out;
    llmmem__replay_point last;  /* the last moment passed */
    llmmem__replay_point cur;   /* the interval since it: its highest point so far */
    uint64_t live[LLMMEM_COMPONENTS]; /* the allocator's blocks now, by what they hold */
    uint8_t *component;         /* of each block id (the model's ids are dense, below max_blocks) */
    uint32_t n_component;
    uint64_t stride;            /* points kept: every stride-th interval (merged) */
    uint64_t seen;
} replay_ctx;

static llmmem_status ctx_alloc(void *c, uint32_t *id, uint64_t bytes)
{
    replay_ctx *x = c;
    if (!bytes) {
        *id = LLMMEM__CA_NULL;
        return LLMMEM_OK;
    }
    llmmem_status st = llmmem__ca_malloc(id, x->ca, bytes, 0);
    if (st != LLMMEM_OK)
        return st;
    if (*id == LLMMEM__CA_OOM) {
        x->out->runs = 0;
        x->out->oom_request = bytes;
        x->out->oom_after = x->last;
        return LLMMEM__AG_OOM;
    }
    const llmmem__ca_stats *s = llmmem__ca_stats_get(x->ca);
    if (s->reserved == s->reserved_peak && s->reserved > x->out->reserved_peak) {
        x->out->reserved_peak = s->reserved;
        x->out->free_at_reserved_peak = s->reserved - s->allocated;
    }
    if (s->reserved > x->cur.reserved)
        x->cur.reserved = s->reserved;
    if (!x->out->points)
        return LLMMEM_OK;
    if (*id >= x->n_component) { /* ids are below max_blocks: at most a MiB of these */
        uint32_t n = x->n_component ? x->n_component : 4096;
        while (n <= *id)
            n *= 2;
        uint8_t *more = realloc(x->component, n);
        if (!more)
            return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "out of memory");
        x->component = more;
        x->n_component = n;
    }
    /* an activation until the engine says otherwise (ctx_tag follows at once) */
    x->component[*id] = LLMMEM_COMPONENT_ACTIVATIONS;
    x->live[LLMMEM_COMPONENT_ACTIVATIONS] += llmmem__ca_block_size(x->ca, *id);
    return LLMMEM_OK;
}

static void ctx_tag(void *c, uint32_t id, int component)
{
    replay_ctx *x = c;
    if (!x->out->points || id >= x->n_component || (unsigned)component >= LLMMEM_COMPONENTS)
        return;
    uint64_t b = llmmem__ca_block_size(x->ca, id);
    x->live[x->component[id]] -= b;
    x->live[component] += b;
    x->component[id] = (uint8_t)component;
    uint64_t allocated = llmmem__ca_stats_get(x->ca)->allocated;
    if (allocated >= x->cur.allocated) {
        x->cur.allocated = allocated;
        memcpy(x->cur.bytes, x->live, sizeof x->live);
    }
}

static llmmem_status ctx_free(void *c, uint32_t id)
{
    replay_ctx *x = c;
    if (x->out->points && id < x->n_component)
        x->live[x->component[id]] -= llmmem__ca_block_size(x->ca, id);
    return llmmem__ca_free(x->ca, id);
}

/* The highest of two intervals, at the later one's moment. */
static llmmem__replay_point merged(const llmmem__replay_point *a, const llmmem__replay_point *b)
{
    llmmem__replay_point m = a->allocated > b->allocated ? *a : *b;
    m.moment = b->moment;
    m.step = b->step;
    m.layer = b->layer;
    m.reserved = a->reserved > b->reserved ? a->reserved : b->reserved;
    return m;
}

static void ctx_mark(void *c, int moment, uint64_t step, uint64_t layer)
{
    replay_ctx *x = c;
    const llmmem__ca_stats *s = llmmem__ca_stats_get(x->ca);
    llmmem__replay_point p = x->cur;
    p.moment = (uint8_t)moment;
    p.step = (uint32_t)step;
    p.layer = (uint32_t)layer;
    x->last = p;
    /* the next interval starts from the state now */
    x->cur.allocated = s->allocated;
    x->cur.reserved = s->reserved;
    memcpy(x->cur.bytes, x->live, sizeof x->live);
    llmmem__replay *o = x->out;
    /* zero_grad only frees: its interval is the optimizer's, already a point */
    if (!o->points || moment == LLMMEM__TAPE_ZERO_GRAD)
        return;
    if (x->seen++ % x->stride) {
        o->points[o->n_points - 1] = merged(&o->points[o->n_points - 1], &p);
        return;
    }
    if (o->n_points == LLMMEM__REPLAY_POINTS) { /* merge pairs: every 2 x stride-th interval a point */
        for (unsigned i = 0; i < LLMMEM__REPLAY_POINTS / 2; i++)
            o->points[i] = merged(&o->points[2 * i], &o->points[2 * i + 1]);
        o->n_points = LLMMEM__REPLAY_POINTS / 2;
        x->stride *= 2;
        x->seen = 1;
        o->points[o->n_points - 1] = merged(&o->points[o->n_points - 1], &p);
        return;
    }
    o->points[o->n_points++] = p;
}

/* PYTORCH_CUDA_ALLOC_CONF from the strategy's keys (c10/cuda/CUDAAllocatorConfig.cpp parseArgs);
 * expandable >= 0 overrides expandable_segments. */
static llmmem_status allocator_config(llmmem__ca_config *c, const llmmem__job *j, int expandable)
{
    const llmmem__alloc_settings *k = &j->alloc;
    llmmem__ca_config_init(c);
    c->device_total = j->dev.cuda_total;
    c->expandable_segments = expandable >= 0 ? expandable : k->expandable_segments != 0;
    int64_t split = k->max_split_size_mb;
    if (split)
        c->max_split_size = (uint64_t)split << 20;
    int64_t div = k->roundup_power2_divisions;
    if (div & (div - 1))
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT,
                            "roundup_power2_divisions (%lld) is not a power of 2 (PyTorch refuses it)", (long long)div);
    for (unsigned i = 0; i < LLMMEM__CA_INTERVALS; i++)
        c->roundup_power2_divisions[i] = (uint32_t)div;
    c->garbage_collection_threshold = k->garbage_collection_threshold;
    return LLMMEM_OK;
}

/* The device's capacity for the allocator: CUDA's total less the memory outside the allocator. */

static uint64_t capacity_of(const llmmem__device *dev)
{
    return dev->cuda_total > dev->runtime ? dev->cuda_total - dev->runtime : 1;
}

/* LLMMEM__PLACE_UPWARD: segments handed out upwards from 4 GiB, each 2 MiB aligned */
static uint64_t place_upward(void *ctx, uint64_t size, uint64_t stream, int small, int expandable)
{
    (void)stream;
    (void)small;
    (void)expandable;
    uint64_t *next = ctx, a = *next, span = LLMMEM__CA_ROUND_LARGE * llmmem__ceil_div(size, LLMMEM__CA_ROUND_LARGE);
    if (span > UINT64_MAX - a)
        return 0; /* the model's own addresses, downwards, from here on */
    *next += span;
    return a;
}

llmmem_status llmmem__replay_job(llmmem__replay *out, const llmmem__job *j, int expandable, llmmem__placement place)
{
    llmmem__tape_job t;
    llmmem_status st = llmmem__tape_job_make(&t, j);
    if (st != LLMMEM_OK)
        return st;
    llmmem__replay_point *points = out->points;
    memset(out, 0, sizeof *out);
    out->points = points;
    out->runs = 1;
    out->capacity = capacity_of(&j->dev);
    llmmem__ca_config c;
    if ((st = allocator_config(&c, j, expandable)) != LLMMEM_OK)
        return st;
    c.capacity = out->capacity;
    uint64_t next_address = 1ULL << 32; /* far below the addresses any tape reaches (2^64 bytes, checked) */
    if (place == LLMMEM__PLACE_UPWARD) {
        c.segment_address = place_upward;
        c.segment_address_ctx = &next_address;
    }
    llmmem__ca *ca;
    if ((st = llmmem__ca_new(&ca, &c)) != LLMMEM_OK)
        return st;
    replay_ctx x = {.ca = ca, .out = out, .stride = 1};
    llmmem__sink sink = {&x, ctx_alloc, ctx_free, ctx_mark, ctx_tag};
    uint64_t peak = 0;
    st = llmmem__tape_run(&peak, &t, &sink);
    free(x.component);
    const llmmem__ca_stats *s = llmmem__ca_stats_get(ca);
    out->allocated_peak = s->allocated_peak;
    if (s->reserved_peak > out->reserved_peak)
        out->reserved_peak = s->reserved_peak;
    out->requested_peak = peak;
    out->decode_stride = !t.new_tokens ? 0 : t.decode_stride ? t.decode_stride : 1; /* 0: no generate */
    llmmem__ca_destroy(ca);
    if (st == LLMMEM__AG_OOM)
        return LLMMEM_OK; /* the answer: it does not run */
    return st;
}

/* ---- the public face ------------------------------------------------------------------------- */

/* Of the replays under both placements (up NULL: one replay) the one the report gives: one that ran
 * out of memory (the downward one first), else the higher reserved peak (what the device must be
 * ready to hold). */
static const llmmem__replay *higher(const llmmem__replay *down, const llmmem__replay *up)
{
    return up && down->runs && (!up->runs || up->reserved_peak > down->reserved_peak) ? up : down;
}

/* The report's allocator fields from the replays: the job runs when it runs under both placements. */
static void report_replay(llmmem_report *r, const llmmem__replay *down, const llmmem__replay *up)
{
    const llmmem__replay *hi = higher(down, up);
    r->replayed = 1;
    r->runs = down->runs && (!up || up->runs);
    r->runs_expandable = -1;
    r->reserved_peak = hi->reserved_peak;
    r->reserved_low = up && up->reserved_peak < down->reserved_peak ? up->reserved_peak : down->reserved_peak;
    r->allocated_peak = hi->allocated_peak;
    r->free_at_reserved_peak = hi->free_at_reserved_peak;
    r->decode_stride = hi->decode_stride;
    r->oom_request = hi->oom_request;
    if (!hi->runs)
        llmmem__tape_moment_text(r->oom_after, sizeof r->oom_after, hi->oom_after.moment, hi->oom_after.step,
                                 hi->oom_after.layer);
}

/* The job replayed under both placements, or once with expandable segments (one range per stream
 * and pool: no placement to choose); rp[1] unused then. *both says which. */
static llmmem_status replay_placements(llmmem__replay rp[2], int *both, const llmmem__job *j)
{
    *both = j->alloc.expandable_segments == 0;
    llmmem_status st = llmmem__replay_job(&rp[0], j, -1, LLMMEM__PLACE_DOWNWARD);
    if (st == LLMMEM_OK && *both)
        st = llmmem__replay_job(&rp[1], j, -1, LLMMEM__PLACE_UPWARD);
    return st;
}

llmmem_status llmmem_estimate_runs(llmmem_report *out, const llmmem_model *model, const llmmem_hardware *hw,
                                   const llmmem_strategy *strategy)
{
    LLMMEM_REQUIRE(out);
    LLMMEM_REQUIRE(model);
    LLMMEM_REQUIRE(hw);
    LLMMEM_REQUIRE(strategy);
    llmmem_status st = llmmem_estimate(out, model, hw, strategy);
    if (st != LLMMEM_OK)
        return st;
    llmmem__job j;
    if ((st = llmmem__job_make(&j, model, hw, strategy)) != LLMMEM_OK)
        return st;
    llmmem__replay *rp = calloc(2, sizeof *rp);
    if (!rp)
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "out of memory");
    int both;
    if ((st = replay_placements(rp, &both, &j)) == LLMMEM_OK) {
        report_replay(out, &rp[0], both ? &rp[1] : NULL);
        /* would expandable_segments:True make it run? */
        if (!out->runs && both && (st = llmmem__replay_job(rp, &j, 1, LLMMEM__PLACE_DOWNWARD)) == LLMMEM_OK)
            out->runs_expandable = rp->runs;
    }
    free(rp);
    return st;
}

llmmem_status llmmem_estimate_timeline_runs(llmmem_timeline *out, const llmmem_model *model,
                                            const llmmem_hardware *hw, const llmmem_strategy *strategy)
{
    LLMMEM_REQUIRE(out);
    LLMMEM_REQUIRE(model);
    LLMMEM_REQUIRE(hw);
    LLMMEM_REQUIRE(strategy);
    llmmem__timeline_clear(out); /* a failure leaves it empty, as llmmem_estimate_timeline does */
    llmmem__job j;
    llmmem_status st = llmmem__job_make(&j, model, hw, strategy);
    if (st != LLMMEM_OK)
        return st;
    llmmem__replay *rp = calloc(2, sizeof *rp);
    llmmem__replay_point *points = calloc(2 * (size_t)LLMMEM__REPLAY_POINTS, sizeof *points);
    int both;
    if (!rp || !points)
        st = llmmem__fail(LLMMEM_ERR_NO_MEMORY, "out of memory");
    else {
        rp[0].points = points;
        rp[1].points = points + LLMMEM__REPLAY_POINTS;
        if ((st = replay_placements(rp, &both, &j)) == LLMMEM_OK) {
            const llmmem__replay *hi = higher(&rp[0], both ? &rp[1] : NULL); /* the report's */
            st = llmmem__timeline_from_replay(out, hi->points, hi->n_points,
                                              j.dev.runtime);
        }
    }
    free(points);
    free(rp);
    return st;
}

int llmmem_report_runs(const llmmem_report *report)
{
    return report && report->valid && report->replayed ? report->runs : -1;
}

uint64_t llmmem_report_reserved_bytes(const llmmem_report *report)
{
    return report && report->valid && report->replayed ? report->reserved_peak : 0;
}

uint64_t llmmem_report_reserved_low_bytes(const llmmem_report *report)
{
    return report && report->valid && report->replayed ? report->reserved_low : 0;
}

uint64_t llmmem_report_reserved_free_bytes(const llmmem_report *report)
{
    return report && report->valid && report->replayed ? report->free_at_reserved_peak : 0;
}

uint64_t llmmem_report_decode_stride(const llmmem_report *report)
{
    return report && report->valid && report->replayed ? report->decode_stride : 0;
}

uint64_t llmmem_report_oom_request_bytes(const llmmem_report *report)
{
    return report && report->valid && report->replayed && !report->runs ? report->oom_request : 0;
}

const char *llmmem_report_oom_after(const llmmem_report *report)
{
    return report && report->valid && report->replayed && !report->runs ? report->oom_after : NULL;
}

uint64_t llmmem_report_allocated_bytes(const llmmem_report *report)
{
    return report && report->valid && report->replayed ? report->allocated_peak : 0;
}

uint64_t llmmem_report_device_total_bytes(const llmmem_report *report)
{
    return report && report->valid ? report->device_total : 0;
}

int llmmem_report_runs_expandable(const llmmem_report *report)
{
    return report && report->valid && report->replayed && !report->runs ? report->runs_expandable : -1;
}
