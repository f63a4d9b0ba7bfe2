/* The step as a timeline (llmmem.h llmmem_estimate_timeline): every moment of one step on the most
 * loaded stage, layer by layer, from the arithmetic the estimate's peak takes (activations.c
 * llmmem__peak_components); the two agree at every moment the peak compares, and the timeline's
 * highest point is the report's total. */
#include <stdlib.h>
#include <string.h>

#include "engines/estimate.h"
#include "alloc/replay.h"
#include "base/text.h"


typedef struct point {
    int phase;    /* llmmem_peak_phase */
    int64_t layer; /* -1: not a decoder layer's moment */
    uint64_t step; /* a replay's training step, or the generate loop's token (0: the prefill) */
    uint64_t bytes[LLMMEM_COMPONENTS];
    uint64_t total;
    uint64_t reserved; /* a replay's: the allocator's segments and the memory outside it */
} point;

struct llmmem_timeline {
    point *p;
    size_t n, cap;
    size_t peak, stage;
    int replayed; /* llmmem_estimate_timeline_runs: the caching allocator's moments */
};

llmmem_status llmmem_timeline_new(llmmem_timeline **out)
{
    LLMMEM_REQUIRE(out);
    *out = calloc(1, sizeof **out);
    return *out ? LLMMEM_OK : llmmem__fail(LLMMEM_ERR_NO_MEMORY, "timeline_new: out of memory");
}

void llmmem_timeline_free(llmmem_timeline *t)
{
    if (t)
        free(t->p);
    free(t);
}

/* The state with the moment's gradients, activations, logits and optimizer temporaries. */
typedef struct moment {
    uint64_t grads, acts, logits, temps;
} moment;

/* A point; `between`: a moment between two the estimate's peak compares and never above them (the
 * loss computed, backward's end, the optimizer step's end), which a tie does not make the peak. */
static llmmem_status push_point(llmmem_timeline *t, int phase, int64_t layer, const uint64_t state[LLMMEM_COMPONENTS],
                                moment m, int between)
{
    if (t->n == t->cap)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "timeline: more points than reserved (a library defect)");
    point *p = &t->p[t->n];
    p->phase = phase;
    p->layer = layer;
    p->step = p->reserved = 0;
    memcpy(p->bytes, state, sizeof p->bytes);
    p->bytes[LLMMEM_COMPONENT_GRADIENTS] = m.grads;
    p->bytes[LLMMEM_COMPONENT_ACTIVATIONS] = m.acts;
    p->bytes[LLMMEM_COMPONENT_LOGITS] = m.logits;
    p->bytes[LLMMEM_COMPONENT_OPTIMIZER_TEMPORARIES] = m.temps;
    p->total = 0;
    for (unsigned c = 0; c < LLMMEM_COMPONENTS; c++)
        if (!llmmem__add(&p->total, p->total, p->bytes[c]))
            return llmmem__fail(LLMMEM_ERR_OVERFLOW, "timeline: bytes exceed 64 bits");
    if (!between && p->total > t->p[t->peak].total)
        t->peak = t->n;
    t->n++;
    return LLMMEM_OK;
}

static llmmem_status push(llmmem_timeline *t, int phase, int64_t layer, const uint64_t state[LLMMEM_COMPONENTS],
                          moment m)
{
    return push_point(t, phase, layer, state, m, 0);
}

static llmmem_status reserve(llmmem_timeline *t, size_t points)
{
    t->n = t->peak = 0;
    if (points <= t->cap)
        return LLMMEM_OK;
    point *p = realloc(t->p, points * sizeof *p);
    if (!p)
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "timeline: out of memory for %zu points", points);
    t->p = p;
    t->cap = points;
    return LLMMEM_OK;
}

static llmmem_status overflow(void)
{
    return llmmem__fail(LLMMEM_ERR_OVERFLOW, "timeline: bytes exceed 64 bits");
}

/* A layer's backward moment as a point. */
typedef struct backward_ctx {
    llmmem_timeline *t;
    const uint64_t *state;
    int phase;
} backward_ctx;

static llmmem_status push_backward(void *ctx, const llmmem__backward_point *p)
{
    const backward_ctx *c = ctx;
    moment mo = {p->grads, p->acts, 0, 0};
    return push(c->t, c->phase, (int64_t)p->layer, c->state, mo);
}

/* Training: after each layer's forward, the loss's forward, the loss computed (its saved tensors
 * alone, the model's outputs dropped as the Trainer's compute_loss drops them) and its backward,
 * each layer's backward from the last, backward's end (every gradient), the optimizer step and its
 * end (its temporaries freed): the moments a training step's forward hooks and marks read. */
static llmmem_status training_points(llmmem_timeline *t, const llmmem__trace *tr, const llmmem_model *m)
{
    const llmmem__activations *a = &tr->acts;
    const llmmem__step *step = &tr->step;
    const llmmem__act_stage *st = &tr->stage;
    const uint64_t first = st->first, count = st->end - st->first;
    const uint64_t samples = count < LLMMEM_STAGE_SAMPLES ? count : LLMMEM_STAGE_SAMPLES;
    const uint64_t grads = tr->state[LLMMEM_COMPONENT_GRADIENTS], early = step->lazy_grads ? 0 : grads;
    llmmem_status rc = reserve(t, (size_t)(2 * samples + 6));
    if (rc)
        return rc;
    /* held through layer l: first_held (the other micro-batches', the ends' (token ids, rotary
     * tables, the mask) and the first layer's, less what its unrecorded ops do not keep) and what
     * the layers after the first keep, held_l - h1 (held_l >= h1: it counts the first layer too) */
    uint64_t h1 = 0, held_l;
    llmmem__forward_extra x;
    if ((count && (rc = llmmem__layers_held_of(&h1, m, &tr->kinds, st, first + 1)) != LLMMEM_OK) ||
        (rc = llmmem__forward_extras(&x, m, &tr->kinds, st)) != LLMMEM_OK)
        return rc;
    for (uint64_t i = 0; i < samples; i++) {
        const uint64_t l = llmmem__stage_layer_at(first, count, i, samples);
        if ((rc = llmmem__layers_held_of(&held_l, m, &tr->kinds, st, l + 1)) != LLMMEM_OK)
            return rc;
        moment mo = {early, 0, 0, 0};
        if (!llmmem__forward_acts(&mo.acts, a, h1, held_l, &x, l == first && st->has_embedding))
            return overflow();
        /* a peak candidate: the highest moment of a pipeline stage before the last (llmmem__forward_point) */
        if ((rc = push(t, LLMMEM_PEAK_PHASE_FORWARD, (int64_t)l, tr->state, mo)) != LLMMEM_OK)
            return rc;
    }
    moment loss_fwd = {early, a->held, 0, 0}, loss = {early, a->held, a->logits_held, 0};
    moment loss_bwd = {early, a->held, 0, 0};
    if (!llmmem__add(&loss_fwd.logits, a->logits_held, a->loss_forward) ||
        !llmmem__add(&loss_bwd.logits, a->logits_held, a->logits_transient))
        return overflow();
    if ((rc = push(t, LLMMEM_PEAK_PHASE_FORWARD, -1, tr->state, loss_fwd)) != LLMMEM_OK ||
        (rc = push_point(t, LLMMEM_PEAK_PHASE_LOSS_DONE, -1, tr->state, loss, 1)) != LLMMEM_OK ||
        (rc = push(t, LLMMEM_PEAK_PHASE_LOSS, -1, tr->state, loss_bwd)) != LLMMEM_OK)
        return rc;
    /* each layer's backward, from the last (llmmem__backward_points: the estimate's highest is one of them) */
    backward_ctx ctx = {t, tr->state, a->recompute ? LLMMEM_PEAK_PHASE_RECOMPUTE : LLMMEM_PEAK_PHASE_BACKWARD};
    llmmem__backward_point highest;
    if ((rc = llmmem__backward_points(&highest, push_backward, &ctx, m, &tr->kinds, st, a, step, grads)) != LLMMEM_OK)
        return rc;
    moment done = {grads, x.leaf_input, 0, 0}, opt = {grads, 0, 0, step->temporaries}, stepped = {grads, 0, 0, 0};
    if ((rc = push_point(t, LLMMEM_PEAK_PHASE_BACKWARD_DONE, -1, tr->state, done, 1)) != LLMMEM_OK ||
        (rc = push(t, LLMMEM_PEAK_PHASE_OPTIMIZER, -1, tr->state, opt)) != LLMMEM_OK)
        return rc;
    return push_point(t, LLMMEM_PEAK_PHASE_OPTIMIZER_DONE, -1, tr->state, stepped, 1);
}

/* Inference as the generate loop: the prefill's moments layer by layer, then those of the first
 * decode step (a static cache still holds the prefill's mask) and of the last (the longest cache). */
static llmmem_status generate_points(llmmem_timeline *t, const llmmem__trace *tr, const llmmem_report *r)
{
    const uint64_t n = tr->gen_shape.n, steps[3] = {0, 1, n > 1 ? n - 1 : 0};
    llmmem_status rc = reserve(t, 3 * LLMMEM__GEN_STEP_MOMENTS);
    if (rc)
        return rc;
    for (unsigned i = 0; i < 3; i++) {
        if (steps[i] >= n || (i && steps[i] <= steps[i - 1]))
            continue;
        llmmem__gen_moment mo[LLMMEM__GEN_STEP_MOMENTS];
        unsigned count;
        if ((rc = llmmem__generate_step_moments(mo, &count, &tr->gen_shape, steps[i])) != LLMMEM_OK)
            return rc;
        for (unsigned k = 0; k < count; k++) {
            uint64_t state[LLMMEM_COMPONENTS];
            memcpy(state, r->bytes, sizeof state);
            state[LLMMEM_COMPONENT_KV_CACHE] = mo[k].kv_cache;
            moment m = {r->bytes[LLMMEM_COMPONENT_GRADIENTS], mo[k].activations, mo[k].logits,
                        r->bytes[LLMMEM_COMPONENT_OPTIMIZER_TEMPORARIES]};
            if ((rc = push(t, mo[k].phase, mo[k].layer, state, m)) != LLMMEM_OK)
                return rc;
        }
    }
    return LLMMEM_OK;
}

void llmmem__timeline_clear(llmmem_timeline *t)
{
    t->n = t->peak = t->stage = 0;
    t->replayed = 0;
}

llmmem_status llmmem_estimate_timeline(llmmem_timeline *out, const llmmem_model *model, const llmmem_hardware *hw,
                                       const llmmem_strategy *strategy)
{
    LLMMEM_REQUIRE(out);
    LLMMEM_REQUIRE(model);
    LLMMEM_REQUIRE(hw);
    LLMMEM_REQUIRE(strategy);
    llmmem__timeline_clear(out);
    llmmem_report *r;
    llmmem__trace tr;
    llmmem__job own;
    const llmmem__job *j;
    llmmem_status st = llmmem_report_new(&r);
    if (st)
        return st;
    if ((st = llmmem__job_resolve(&j, &own, &r->cache->jobs, model, hw, strategy, NULL)) == LLMMEM_OK &&
        (st = llmmem__estimate_job(r, j, hw->name, r->cache, &tr, 0)) == LLMMEM_OK) {
        out->stage = r->most_loaded;
        if (tr.have_step)
            st = training_points(out, &tr, model);
        else if (tr.has_gen)
            st = generate_points(out, &tr, r);
        else if ((st = reserve(out, 1)) == LLMMEM_OK) { /* inference: the estimate's moment */
            moment mo = {r->bytes[LLMMEM_COMPONENT_GRADIENTS], r->bytes[LLMMEM_COMPONENT_ACTIVATIONS],
                         r->bytes[LLMMEM_COMPONENT_LOGITS], r->bytes[LLMMEM_COMPONENT_OPTIMIZER_TEMPORARIES]};
            st = push(out, r->peak_phase, llmmem_report_peak_layer(r), r->bytes, mo);
        }
        if (st == LLMMEM_OK && out->n && out->p[out->peak].total != r->total)
            st = llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "timeline: its highest point (%llu bytes) is not the estimate's "
                              "total (%llu bytes): a library defect", (unsigned long long)out->p[out->peak].total,
                              (unsigned long long)r->total);
    }
    if (st)
        out->n = out->peak = 0;
    llmmem_report_free(r);
    return st;
}

/* A replay's moment as a timeline phase: after the model is built (static), a layer's forward, its
 * recomputation, the loss's forward, the backward's end, the optimizer step, and the generate loop's
 * layers and logits (prefill at token 0, decode after). */
static int replay_phase(const llmmem__replay_point *p, int64_t *layer)
{
    *layer = -1;
    switch ((llmmem__tape_moment)p->moment) {
    case LLMMEM__TAPE_LAYER:
    case LLMMEM__TAPE_RECOMPUTE:
        *layer = p->layer;
        return p->moment == LLMMEM__TAPE_LAYER ? LLMMEM_PEAK_PHASE_FORWARD : LLMMEM_PEAK_PHASE_RECOMPUTE;
    case LLMMEM__TAPE_LOSS:
        return LLMMEM_PEAK_PHASE_FORWARD;
    case LLMMEM__TAPE_BACKWARD:
        return LLMMEM_PEAK_PHASE_BACKWARD;
    case LLMMEM__TAPE_OPTIMIZER:
    case LLMMEM__TAPE_ZERO_GRAD:
        return LLMMEM_PEAK_PHASE_OPTIMIZER;
    case LLMMEM__TAPE_GEN_LAYER:
        *layer = p->layer;
        return p->step ? LLMMEM_PEAK_PHASE_DECODE : LLMMEM_PEAK_PHASE_PREFILL;
    case LLMMEM__TAPE_STEP:
        return p->step ? LLMMEM_PEAK_PHASE_DECODE : LLMMEM_PEAK_PHASE_PREFILL;
    case LLMMEM__TAPE_BUILT:
    default:
        return LLMMEM_PEAK_PHASE_STATIC;
    }
}

llmmem_status llmmem__timeline_from_replay(llmmem_timeline *out, const llmmem__replay_point *points, unsigned n,
                                           uint64_t outside)
{
    llmmem_status st = reserve(out, n ? n : 1);
    if (st)
        return st;
    out->stage = 0;
    out->replayed = 1;
    for (unsigned i = 0; i < n; i++) {
        uint64_t state[LLMMEM_COMPONENTS];
        memcpy(state, points[i].bytes, sizeof state);
        int64_t layer;
        int phase = replay_phase(&points[i], &layer);
        if (!llmmem__add(&state[LLMMEM_COMPONENT_RUNTIME_OVERHEAD], state[LLMMEM_COMPONENT_RUNTIME_OVERHEAD], outside))
            return overflow();
        moment m = {state[LLMMEM_COMPONENT_GRADIENTS], state[LLMMEM_COMPONENT_ACTIVATIONS], state[LLMMEM_COMPONENT_LOGITS],
                    state[LLMMEM_COMPONENT_OPTIMIZER_TEMPORARIES]};
        if ((st = push(out, phase, layer, state, m)) != LLMMEM_OK)
            return st;
        point *p = &out->p[out->n - 1];
        p->step = points[i].step;
        if (!llmmem__add(&p->reserved, points[i].reserved, outside))
            return overflow();
    }
    return LLMMEM_OK;
}

size_t llmmem_timeline_count(const llmmem_timeline *t)
{
    return t ? t->n : 0;
}

static const point *at(const llmmem_timeline *t, size_t i)
{
    return t && i < t->n ? &t->p[i] : NULL;
}

llmmem_peak_phase llmmem_timeline_phase(const llmmem_timeline *t, size_t index)
{
    const point *p = at(t, index);
    return p ? (llmmem_peak_phase)p->phase : LLMMEM_PEAK_PHASE_STATIC;
}

int64_t llmmem_timeline_layer(const llmmem_timeline *t, size_t index)
{
    const point *p = at(t, index);
    return p ? p->layer : -1;
}

uint64_t llmmem_timeline_bytes(const llmmem_timeline *t, size_t index, llmmem_component component)
{
    const point *p = at(t, index);
    return p && (unsigned)component < LLMMEM_COMPONENTS ? p->bytes[component] : 0;
}

uint64_t llmmem_timeline_total_bytes(const llmmem_timeline *t, size_t index)
{
    const point *p = at(t, index);
    return p ? p->total : 0;
}

uint64_t llmmem_timeline_reserved_bytes(const llmmem_timeline *t, size_t index)
{
    const point *p = at(t, index);
    return p ? p->reserved : 0;
}

uint64_t llmmem_timeline_step(const llmmem_timeline *t, size_t index)
{
    const point *p = at(t, index);
    return p ? p->step : 0;
}

size_t llmmem_timeline_peak_index(const llmmem_timeline *t)
{
    return t ? t->peak : 0;
}

size_t llmmem_timeline_stage(const llmmem_timeline *t)
{
    return t ? t->stage : 0;
}

llmmem_status llmmem_timeline_to_json(char **json_out, const llmmem_timeline *timeline)
{
    LLMMEM_REQUIRE(json_out);
    *json_out = NULL;
    LLMMEM_REQUIRE(timeline);
    llmmem__text b = {0};
    llmmem__text_printf(&b, "{\n  \"stage\": %zu,\n  \"peak_index\": %zu,\n  \"points\": [", timeline->stage,
                        timeline->peak);
    for (size_t i = 0; i < timeline->n; i++) {
        const point *p = &timeline->p[i];
        llmmem__text_str(&b, i ? ",\n    {\"phase\": " : "\n    {\"phase\": ");
        llmmem__text_quoted(&b, llmmem_peak_phase_name((llmmem_peak_phase)p->phase));
        llmmem__text_printf(&b, ", \"layer\": %lld, \"total\": %llu, ", (long long)p->layer, (unsigned long long)p->total);
        if (timeline->replayed) /* the caching allocator's: the step and the reserved segments */
            llmmem__text_printf(&b, "\"step\": %llu, \"reserved\": %llu, ", (unsigned long long)p->step,
                                (unsigned long long)p->reserved);
        llmmem__text_str(&b, "\"bytes\": {");
        for (unsigned c = 0; c < LLMMEM_COMPONENTS; c++) {
            llmmem__text_str(&b, c ? ", " : "");
            llmmem__text_quoted(&b, llmmem_component_name((llmmem_component)c));
            llmmem__text_printf(&b, ": %llu", (unsigned long long)p->bytes[c]);
        }
        llmmem__text_str(&b, "}}");
    }
    llmmem__text_str(&b, timeline->n ? "\n  ]\n}\n" : "]\n}\n");
    return llmmem__text_finish(json_out, &b, "timeline_to_json");
}
