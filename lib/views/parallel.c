/* Parallelism: what one rank of each pipeline stage holds under tensor, sequence, pipeline,
 * data (ZeRO, FSDP, Megatron's distributed optimizer), expert and context parallelism, with
 * offload, and the bytes it sends per step.
 *
 * Each stage gets its decoder layers, and the classes outside them that its position holds, every
 * class split the way one rank holds it (rank.c). What one tensor of each class costs on a rank is
 * computed once per estimate (training.c llmmem__class_costs) and multiplied by the stage's
 * counts; the result is sharded over data parallelism, communication buffers (comm.c) and the
 * rank's part of the KV cache (kv.c) are added, and the stage's activations come from
 * activations.c with the micro-batches its schedule keeps in flight. */
#include <string.h>

#include "views/comm.h"
#include "views/generate.h"
#include "views/kv.h"
#include "views/parallel.h"
#include "views/trace.h"
#include "views/weights.h"

void llmmem__stage_layers(const llmmem__layout *L, uint64_t layers, uint64_t stage, uint64_t *first,
                          uint64_t *count)
{
    if (L->schedule == LLMMEM_SCHEDULE_INTERLEAVED) {
        /* Megatron-LM: stage i holds model chunks i, i + p, ... of layers / (p v) layers each */
        uint64_t chunk = layers / (L->p * L->v);
        *first = stage * chunk;
        *count = chunk * L->v;
        return;
    }
    if (stage == 0) {
        *first = 0;
        *count = L->first_layers;
    } else if (stage + 1 == L->p) {
        *first = layers - L->last_layers;
        *count = L->last_layers;
    } else {
        *first = L->first_layers + (stage - 1) * L->per_stage;
        *count = L->per_stage;
    }
}

/* Layers of each kind on a stage, every chunk of it counted. */
static void stage_kind_counts(uint64_t on[LLMMEM_LAYER_KINDS_MAX], const llmmem_model *m, const llmmem__layout *L,
                              uint64_t stage)
{
    const llmmem__layer_plan *plan = &m->geo.plan;
    uint64_t layers = m->geo.layers, first, count;
    if (L->schedule != LLMMEM_SCHEDULE_INTERLEAVED) {
        llmmem__stage_layers(L, layers, stage, &first, &count);
        llmmem__kind_counts(on, plan, first, first + count);
        return;
    }
    uint64_t chunk = layers / (L->p * L->v), part[LLMMEM_LAYER_KINDS_MAX];
    memset(on, 0, LLMMEM_LAYER_KINDS_MAX * sizeof on[0]);
    for (uint64_t c = 0; c < L->v; c++) {
        uint64_t start = (c * L->p + stage) * chunk;
        llmmem__kind_counts(part, plan, start, start + chunk);
        for (unsigned k = 0; k < plan->n; k++)
            on[k] += part[k];
    }
}

/* Whether two stages hold as many layers of every kind. */
static int same_counts(const uint64_t a[LLMMEM_LAYER_KINDS_MAX], const uint64_t b[LLMMEM_LAYER_KINDS_MAX], unsigned kinds)
{
    for (unsigned k = 0; k < kinds; k++)
        if (a[k] != b[k])
            return 0;
    return 1;
}

/* Whether a stage's layers are all of one kind (on: its counts of each kind; NULL: a model of one). */
static int one_kind(const uint64_t *on, unsigned kinds)
{
    unsigned held = 0;
    for (unsigned k = 0; on && k < kinds; k++)
        held += on[k] != 0;
    return held <= 1;
}

/* Layers of a class's kinds among the counts of each kind. */
static uint64_t of_kinds(const uint64_t on[LLMMEM_LAYER_KINDS_MAX], unsigned kinds, llmmem__kind_set set)
{
    uint64_t n = 0;
    for (unsigned k = 0; k < kinds; k++)
        if (((unsigned)set >> k) & 1u)
            n += on[k];
    return n;
}

static int once_on_stage(const llmmem__tensor_class *t, const llmmem_model *m, const llmmem__layout *L,
                         uint64_t stage)
{
    return llmmem__rank_holds(t, m, stage == 0, stage + 1 == L->p);
}

static uint64_t div_up(uint64_t x, uint64_t d)
{
    return llmmem__ceil_div(x, d);
}

/* Micro-batches a stage holds activations of (numerator / denominator) and loss tensors of. */
void llmmem__in_flight(const llmmem__layout *L, uint64_t stage, llmmem__act_stage *a)
{
    uint64_t m = L->m ? L->m : UINT64_MAX / 4;
    a->in_flight_den = 1;
    a->loss_in_flight = 1;
    switch (L->schedule) {
    case LLMMEM_SCHEDULE_GPIPE: {
        /* Huang et al. 2019: every micro-batch's forward runs before any backward */
        uint64_t all = L->m ? L->m : L->p;
        a->in_flight_num = all;
        a->loss_in_flight = all;
        return;
    }
    case LLMMEM_SCHEDULE_INTERLEAVED: {
        /* Megatron-LM schedules.py forward_backward_pipelining_with_interleaving: rank i warms up
         * (p - i - 1) x 2 + (v - 1) x p chunk forwards and holds one more, of L / (p v) layers each:
         * on the first stage L (1 + (p - 1) / (p v)) layers' worth (Korthikanti §4.2.3) */
        uint64_t chunks = (L->p - stage - 1) * 2 + (L->v - 1) * L->p + 1, all;
        if (!llmmem__mul(&all, m, L->v)) /* m x v past 64 bits is more than any warm-up: the min stands */
            all = UINT64_MAX;
        if (all < chunks)
            chunks = all;
        a->in_flight_num = chunks;
        a->in_flight_den = L->v;
        return;
    }
    default:
        /* Narayanan et al. 2021 (PipeDream-Flush / 1F1B): stage i holds p - i micro-batches */
        a->in_flight_num = L->p - stage < m ? L->p - stage : m;
        return;
    }
}

/* The data-parallel divisor a part of the state is sharded by, or 1. */
uint64_t llmmem__sharded(const llmmem__layout *L, uint64_t ranks, int what)
{
    /* what: 0 weights, 1 gradients, 2 master weights and optimizer states */
    int fsdp_full = L->fsdp == LLMMEM_FSDP_FULL_SHARD || L->fsdp == LLMMEM_FSDP_HYBRID_SHARD;
    int fsdp_any = fsdp_full || L->fsdp == LLMMEM_FSDP_SHARD_GRAD_OP;
    switch (what) {
    case 0: return L->zero == 3 || fsdp_any ? ranks : 1;
    case 1: return L->zero >= 2 || fsdp_any ? ranks : 1;
    default: return L->zero >= 1 || fsdp_any || L->dist_opt ? ranks : 1;
    }
}

static llmmem_status overflow(void)
{
    return llmmem__fail(LLMMEM_ERR_OVERFLOW, "per-rank bytes exceed 64 bits");
}

/* Adds n tensors of a class (trained of them trained) to a part's sums; 0 on overflow. */
static int add_class(llmmem__training *a, uint64_t *params, const llmmem__class_cost *c, uint64_t size, uint64_t n,
                     uint64_t trained)
{
    return llmmem__muladd(&a->weights, n, c->weights) && llmmem__muladd(&a->weights, trained, c->adapter_weights) &&
           llmmem__muladd(&a->adapter_weights, trained, c->adapter_weights) &&
           llmmem__muladd(&a->gradients, trained, c->gradients) &&
           llmmem__muladd(&a->gradient_copy, trained, c->gradient_copy) &&
           llmmem__muladd(&a->master_weights, trained, c->master_weights) &&
           llmmem__muladd(&a->optimizer_states, trained, c->optimizer_states) &&
           llmmem__muladd(&a->trainable, trained, c->trainable) && llmmem__muladd(params, n, size);
}

/* n copies of a layer's sums added to a part's; 0 on overflow. */
static int add_layers(llmmem__training *a, uint64_t *params, const llmmem__training *u, uint64_t unit_params,
                      uint64_t n)
{
    return llmmem__muladd(&a->weights, n, u->weights) && llmmem__muladd(&a->adapter_weights, n, u->adapter_weights) &&
           llmmem__muladd(&a->gradients, n, u->gradients) && llmmem__muladd(&a->gradient_copy, n, u->gradient_copy) &&
           llmmem__muladd(&a->master_weights, n, u->master_weights) &&
           llmmem__muladd(&a->optimizer_states, n, u->optimizer_states) && llmmem__muladd(&a->trainable, n, u->trainable) &&
           llmmem__muladd(params, n, unit_params);
}

llmmem_status llmmem__rank_costs_of(llmmem__rank_costs *rc, const llmmem_model *m, const llmmem__pricing *p)
{
    const llmmem__geometry *g = &m->geo;
    llmmem__rank_shapes(&rc->shapes, m, p->t, p->et);
    llmmem_status st = llmmem__class_costs(rc->cost, &rc->any_8bit, &rc->shapes, p);
    if (st)
        return st;
    /* one decoder layer of each kind, by part, when no layer is frozen: a stage is then its
     * layers' counts times these, plus the classes outside the layers */
    memset(rc->unit, 0, sizeof rc->unit);
    memset(rc->unit_params, 0, sizeof rc->unit_params);
    memset(rc->unit_largest, 0, sizeof rc->unit_largest);
    memset(rc->unit_layer, 0, sizeof rc->unit_layer);
    rc->outside_n = 0;
    for (unsigned i = 0; i < m->inv.n; i++) {
        const llmmem__tensor_class *t = &m->inv.t[i], *r = &rc->shapes.t[i];
        if (t->kinds == 0)
            rc->outside[rc->outside_n++] = (uint8_t)i;
        const uint64_t all = of_kinds(g->plan.total, g->plan.n, t->kinds);
        if (all == 0)
            continue;
        const int expert = t->group == LLMMEM_PARAMS_EXPERTS;
        const uint64_t n = t->count / all / (expert ? p->e : 1), size = r->rows * r->cols;
        for (unsigned k = 0; k < g->plan.n; k++) {
            if (!(((unsigned)t->kinds >> k) & 1u))
                continue;
            if (!add_class(&rc->unit[k][expert], &rc->unit_params[k][expert], &rc->cost[i], size, n, n))
                return overflow();
            if (n && size > rc->unit_largest[k])
                rc->unit_largest[k] = size;
            rc->unit_layer[k] += n * size;
        }
    }
    return LLMMEM_OK;
}

/* The rank's share of a stage's classes, by part (0: all but routed experts, 1: routed experts):
 * the sums llmmem__training_state would make over the stage's view, from the per-tensor costs. */
static llmmem_status stage_sums(llmmem__training acc[2], llmmem__stage_parts *ss, const llmmem__job *j,
                                const llmmem__rank_costs *rc, uint64_t stage, uint64_t first, uint64_t count,
                                const uint64_t *counted)
{
    const llmmem_model *m = j->m;
    const llmmem__layout *L = &j->layout;
    const llmmem__geometry *g = &m->geo;
    const unsigned kinds = g->plan.n;
    uint64_t on[LLMMEM_LAYER_KINDS_MAX] = {0}, layer[LLMMEM_LAYER_KINDS_MAX] = {0};
    if (counted) /* the caller counted the stage's kinds already */
        memcpy(on, counted, sizeof on);
    else
        stage_kind_counts(on, m, L, stage);
    const uint64_t frozen = j->price.train.frozen_layers, end = frozen < first + count ? frozen : first + count;
    const int whole_layers = frozen <= first; /* no frozen layer on this stage */
    memset(acc, 0, 2 * sizeof *acc);
    if (whole_layers) {
        for (unsigned k = 0; k < kinds; k++) {
            if (on[k] == 0)
                continue;
            if (!add_layers(&acc[0], &ss->dense_params, &rc->unit[k][0], rc->unit_params[k][0], on[k]) ||
                !add_layers(&acc[1], &ss->expert_params, &rc->unit[k][1], rc->unit_params[k][1], on[k]))
                return overflow();
            if (rc->unit_largest[k] > ss->largest_tensor)
                ss->largest_tensor = rc->unit_largest[k];
            layer[k] = rc->unit_layer[k];
        }
    }
    /* without frozen layers the layer sums above count every per-layer class: the classes outside
     * the layers are left */
    const unsigned classes = whole_layers ? rc->outside_n : m->inv.n;
    for (unsigned c = 0; c < classes; c++) {
        const unsigned i = whole_layers ? rc->outside[c] : c;
        const llmmem__tensor_class *t = &m->inv.t[i], *r = &rc->shapes.t[i];
        const int expert = t->group == LLMMEM_PARAMS_EXPERTS, per_layer = t->kinds != 0;
        uint64_t n, fz = 0, all = 0, here = 0;
        if (!per_layer) {
            n = once_on_stage(t, m, L, stage) ? t->count : 0;
        } else {
            all = of_kinds(g->plan.total, kinds, t->kinds);
            here = of_kinds(on, kinds, t->kinds);
            n = all ? t->count / all * here : 0;
        }
        if (per_layer && frozen > first && all)
            fz = t->count / all * llmmem__class_layers(g, t, first, end);
        if (expert) { /* num_experts / e per rank */
            n /= L->e;
            fz /= L->e;
        }
        if (n == 0)
            continue;
        const uint64_t size = r->rows * r->cols;
        if (!add_class(&acc[expert], expert ? &ss->expert_params : &ss->dense_params, &rc->cost[i], size, n, n - fz))
            return overflow();
        if (!per_layer && !expert)
            ss->once_params += n * size;
        if (size > ss->largest_tensor)
            ss->largest_tensor = size;
        if (here) { /* one layer's share, by layer kind (FSDP's unit) */
            uint64_t one = size * (n / here);
            for (unsigned k = 0; k < kinds; k++)
                if (((unsigned)t->kinds >> k) & 1u)
                    layer[k] += one;
        }
    }
    for (unsigned k = 0; k < kinds; k++) /* the largest layer on the stage */
        if (on[k] && layer[k] > ss->layer_params)
            ss->layer_params = layer[k];
    ss->params = ss->dense_params + ss->expert_params;
    if (rc->any_8bit && acc[0].trainable + acc[1].trainable &&
        !llmmem__add(&acc[0].optimizer_states, acc[0].optimizer_states, LLMMEM__BNB_QMAPS_BYTES))
        return overflow();
    return LLMMEM_OK;
}

/* What the rank's communication is sized by (comm.c). */
static llmmem__comm_rank comm_rank(const llmmem__stage_parts *ss, uint64_t layers, uint64_t moe_layers,
                                   uint64_t gradients)
{
    llmmem__comm_rank r = {ss->params, ss->once_params, ss->layer_params, ss->largest_tensor, layers, moe_layers,
                           gradients, ss->dense.trainable + ss->experts.trainable};
    return r;
}

/* The state of the whole model on one rank: training.c's, or the weights alone in inference. */
static llmmem_status whole_state(llmmem__training *out, const llmmem__job *j)
{
    llmmem__view whole = llmmem__whole_model(j->m);
    *out = (llmmem__training){0};
    if (j->price.mode == LLMMEM_MODE_INFERENCE)
        return llmmem__job_weight_bytes(&out->weights, j);
    return llmmem__training_state(out, j, &whole);
}

llmmem_status llmmem__whole_costs(llmmem__rank_costs *rc, const llmmem__job *j)
{
    llmmem_status st = whole_state(&rc->whole, j);
    rc->whole_made = st == LLMMEM_OK;
    return st;
}

/* A rank holding the whole model unsplit (one device, or a replica of plain data parallelism): its
 * state as llmmem__whole_costs makes it, all in the dense part (nothing shards the routed experts
 * apart); its buffers and traffic need its gradients alone. */
static llmmem_status whole_sums(llmmem__training acc[2], llmmem__stage_parts *ss, const llmmem__job *j,
                                const llmmem__rank_costs *rc)
{
    acc[1] = (llmmem__training){0};
    ss->params = ss->dense_params = j->m->inv.total;
    if (rc && rc->whole_made) {
        acc[0] = rc->whole;
        return LLMMEM_OK;
    }
    return whole_state(&acc[0], j);
}

/* llmmem__stage_state_of with the stage's layers of each kind when the caller has them (else NULL). */
static llmmem_status stage_state(llmmem__stage_report *out, uint64_t *host, uint64_t *nvme, const llmmem__job *j,
                                 const llmmem__rank_costs *rc, uint64_t stage, llmmem__stage_parts *ss,
                                 const uint64_t *counted)
{
    llmmem_status st;
    const llmmem_model *m = j->m;
    const llmmem__layout *L = &j->layout;
    const int64_t mode = j->price.mode;
    uint64_t layers = m->geo.layers, first, count;
    llmmem__stage_layers(L, layers, stage, &first, &count);
    out->first_layer = first;
    out->layers = count;
    memset(out->bytes, 0, sizeof out->bytes);
    memset(ss, 0, sizeof *ss);
    *host = *nvme = 0;

    llmmem__training acc[2];
    if ((st = llmmem__layout_single(L) ? whole_sums(acc, ss, j, rc) : stage_sums(acc, ss, j, rc, stage, first, count, counted)) !=
        LLMMEM_OK)
        return st;
    ss->dense = acc[0];
    ss->experts = acc[1];
    /* the state of the rank's dense part and of its routed experts, each sharded over its own
     * data-parallel group (Megatron-LM: experts over the expert data-parallel size) */
    for (int part = 1; part <= 2; part++) {
        const llmmem__training *t = &acc[part - 1];
        uint64_t ranks = part == 1 ? L->shard : L->edp;
        uint64_t grads = llmmem__reduced_gradients(L, t);
        uint64_t w = div_up(t->weights, llmmem__sharded(L, ranks, 0)), g = div_up(grads, llmmem__sharded(L, ranks, 1));
        uint64_t mw = div_up(t->master_weights, llmmem__sharded(L, ranks, 2)), o = div_up(t->optimizer_states, llmmem__sharded(L, ranks, 2));
        /* ZeRO-Offload / ZeRO-Infinity: the optimizer step runs on the host with its fp32 state;
         * ZeRO-3 parameter offload keeps only the gathered layers on the device */
        if (L->offload_opt) {
            /* ZeRO-Offload (Ren et al. 2021 §4.1): the 16-bit gradients stream to the host as they
             * are reduced; the host keeps them in fp32 beside the fp32 master weights and Adam states
             * (16 bytes a parameter: DeepSpeed's offload estimators); ZeRO-Infinity swaps the
             * optimizer states to NVMe and keeps the gradients in host buffers */
            uint64_t *to = L->offload_opt == LLMMEM_OFFLOAD_CPU ? host : nvme;
            *to += mw + o;
            *host += div_up(t->trainable * 4, llmmem__sharded(L, ranks, 1));
            mw = o = g = 0;
        }
        if (L->offload_param) {
            uint64_t *to = L->offload_param == LLMMEM_OFFLOAD_CPU ? host : nvme;
            *to += w;
            w = 0;
        }
        out->bytes[LLMMEM_COMPONENT_WEIGHTS] += w;
        out->bytes[LLMMEM_COMPONENT_GRADIENTS] += g;
        out->bytes[LLMMEM_COMPONENT_MASTER_WEIGHTS] += mw;
        out->bytes[LLMMEM_COMPONENT_OPTIMIZER_STATES] += o;
    }

    llmmem__comm_rank cr = comm_rank(ss, count, 0, out->bytes[LLMMEM_COMPONENT_GRADIENTS]);
    if ((st = llmmem__comm_buffers(&out->bytes[LLMMEM_COMPONENT_COMM_BUFFERS], j, &cr)) != LLMMEM_OK)
        return st;
    if (mode == LLMMEM_MODE_INFERENCE && j->gen) {
        /* the generate loop's peak moment (generate.c): cache, working set and logits alive then */
        out->bytes[LLMMEM_COMPONENT_KV_CACHE] = j->gen->kv_cache;
        out->bytes[LLMMEM_COMPONENT_ACTIVATIONS] = j->gen->activations;
        out->bytes[LLMMEM_COMPONENT_LOGITS] = j->gen->logits;
        *host += j->gen_host;
    } else if (mode == LLMMEM_MODE_INFERENCE && llmmem__model_value(m, LLMMEM_KEY_NUM_PARAMETERS) == 0 &&
        (st = llmmem__kv_rank_bytes(&out->bytes[LLMMEM_COMPONENT_KV_CACHE], m, j->kv, j->sequences, j->tokens / L->c,
                                    count, L->t)) != LLMMEM_OK)
        return st;
    out->bytes[LLMMEM_COMPONENT_RUNTIME_OVERHEAD] = j->dev.runtime;
    out->bytes[LLMMEM_COMPONENT_WORKSPACES] = j->dev.workspaces;
    return LLMMEM_OK;
}

llmmem_status llmmem__stage_state_of(llmmem__stage_report *out, uint64_t *host, uint64_t *nvme, const llmmem__job *j,
                                     const llmmem__rank_costs *rc, uint64_t stage, llmmem__stage_parts *ss)
{
    return stage_state(out, host, nvme, j, rc, stage, ss, NULL);
}

/* stage_state, or the state `kept` holds for the stage of this layout (parallel.h), kept when made. */
static llmmem_status kept_stage_state(llmmem__stage_report *out, uint64_t *host, uint64_t *nvme, const llmmem__job *j,
                                      const llmmem__rank_costs *rc, uint64_t stage, llmmem__stage_parts *ss,
                                      const uint64_t *counted, llmmem__state_cache *kept)
{
    llmmem__layout key;
    memcpy(&key, &j->layout, sizeof key); /* layout_shape cleared its padding */
    key.m = 0;
    if (!kept->valid || memcmp(&kept->layout, &key, sizeof key) != 0) {
        memcpy(&kept->layout, &key, sizeof key);
        kept->valid = 1;
        kept->n = 0;
    }
    for (unsigned i = 0; i < kept->n; i++) {
        if (kept->stage[i] == stage) {
            *out = kept->report[i];
            *host = kept->host[i];
            *nvme = kept->nvme[i];
            *ss = kept->parts[i];
            return LLMMEM_OK;
        }
    }
    llmmem_status st = stage_state(out, host, nvme, j, rc, stage, ss, counted);
    if (st == LLMMEM_OK && kept->n < 3) {
        const unsigned i = kept->n++;
        kept->stage[i] = stage;
        kept->report[i] = *out;
        kept->host[i] = *host;
        kept->nvme[i] = *nvme;
        kept->parts[i] = *ss;
    }
    return st;
}

/* One stage: the state above, and the activations of one micro-batch (the caller scales them by
 * the micro-batches its schedule holds). */
static llmmem_status estimate_stage(llmmem__stage_report *out, uint64_t *host, uint64_t *nvme,
                                    llmmem__activations *acts, const llmmem__job *j, const llmmem__rank_costs *rc,
                                    const llmmem__act_kinds *kinds, uint64_t stage, llmmem__stage_parts *ss,
                                    const uint64_t *counted, llmmem__state_cache *kept)
{
    const llmmem__layout *L = &j->layout;
    memset(acts, 0, sizeof *acts);
    llmmem_status st = kept ? kept_stage_state(out, host, nvme, j, rc, stage, ss, counted, kept)
                            : stage_state(out, host, nvme, j, rc, stage, ss, counted);
    if (st || !kinds)
        return st;
    llmmem__act_stage a = {out->first_layer, out->first_layer + out->layers, stage == 0, stage + 1 == L->p, 1, 1, 1,
                           L->t, L->et, L->c, L->sp};
    return llmmem__stage_activations(acts, j->m, kinds, &a);
}


/* The gradients by when backward makes them (training.c prices each tensor): the LM head's, the
 * final norm's and a tied embedding's in the head's backward, right after the loss; one decoder
 * layer's of each kind in its own backward; an untied embedding's and the positions' last (the
 * embedding's backward runs after every layer's). */
static llmmem_status gradient_times(llmmem__step *out, uint64_t *embedding, const llmmem__job *j)
{
    llmmem__class_cost cost[LLMMEM_MAX_TENSOR_CLASSES];
    int any_8bit;
    const llmmem__inventory *inv = &j->m->inv;
    const llmmem__layer_plan *plan = &j->m->geo.plan;
    llmmem_status st = llmmem__class_costs(cost, &any_8bit, inv, &j->price);
    if (st)
        return st;
    const int tied = inv->params[LLMMEM_PARAMS_LM_HEAD] == 0;
    *embedding = 0;
    for (unsigned i = 0; i < inv->n; i++) {
        const llmmem__tensor_class *t = &inv->t[i];
        if (t->kinds != 0) { /* count = per-layer multiplicity x the layers of its kinds */
            uint64_t layers = llmmem__layers_in(plan, t->kinds, 0, plan->layers);
            for (unsigned k = 0; layers && k < plan->n; k++)
                if (((unsigned)t->kinds >> k) & 1u && !llmmem__muladd(&out->grads_kind[k], t->count / layers,
                                                                      cost[i].gradients))
                    return overflow();
            continue;
        }
        const int late = t->group == LLMMEM_PARAMS_POSITIONS || (t->group == LLMMEM_PARAMS_EMBEDDING && !tied);
        const int early = t->group == LLMMEM_PARAMS_LM_HEAD || t->role == LLMMEM_ROLE_FINAL_NORM ||
                          (t->group == LLMMEM_PARAMS_EMBEDDING && tied);
        if ((late && !llmmem__muladd(embedding, t->count, cost[i].gradients)) ||
            (early && !llmmem__muladd(&out->grads_head, t->count, cost[i].gradients)))
            return overflow();
    }
    return LLMMEM_OK;
}

/* What the step's moments take besides the activations (activations.h llmmem__step): which
 * gradients exist when, and the optimizer step's temporaries. Lazy gradients are followed on a rank
 * that holds its whole model; sharded and split layouts keep theirs through the step. */
static llmmem_status step_of(llmmem__step *out, const llmmem__job *j, const llmmem__semantics *sem,
                             const llmmem__stage_report *sr, const llmmem__stage_parts *ss)
{
    const llmmem__layout *L = &j->layout;
    const llmmem__train_plan *tp = &j->price.train;
    memset(out, 0, sizeof *out);
    const uint64_t grads = sr->bytes[LLMMEM_COMPONENT_GRADIENTS];
    const uint64_t states = sr->bytes[LLMMEM_COMPONENT_OPTIMIZER_STATES];
    const unsigned state_bytes = (unsigned)(llmmem__format_element_bits(tp->state) / 8u);
    /* torch/optim/adamw.py: _multi_tensor_adamw keeps torch._foreach_sqrt(exp_avg_sqs) for the
     * update (torch 1.13 also torch._foreach_add(.., eps), a second), each the size of every
     * parameter's state; _single_tensor_adamw builds one tensor's denom from exp_avg_sq.sqrt()
     * and its quotient (two of the largest); fused=True keeps none */
    if (tp->optimizer == LLMMEM_OPTIMIZER_ADAMW || tp->optimizer == LLMMEM_OPTIMIZER_ADAM) {
        if (sem->optimizer == LLMMEM_OPTIMIZER_IMPL_FOREACH)
            out->temporaries = states / 2u * (sem->torch1 ? 2u : 1u);
        else if (sem->optimizer == LLMMEM_OPTIMIZER_IMPL_FOR_LOOP && j->price.mode == LLMMEM_MODE_TRAINING &&
                 !llmmem__mul(&out->temporaries, ss->largest_tensor, 2u * state_bytes))
            return overflow();
    }
    out->lazy_grads = sem->lazy_grads && llmmem__layout_single(L) && L->d == 1;
    if (!out->lazy_grads)
        return LLMMEM_OK;
    uint64_t embedding, below_last;
    llmmem_status st = gradient_times(out, &embedding, j);
    if (st)
        return st;
    out->frozen_layers = tp->frozen_layers;
    out->grads_head = out->grads_head < grads ? out->grads_head : grads;
    out->grads_first = embedding < grads ? grads - embedding : 0;
    /* the rank holds the whole model: its layers are [0, layers) */
    const uint64_t layers = j->m->geo.plan.layers;
    if (!llmmem__step_layer_grads(&below_last, out, &j->m->geo.plan, 0, layers ? layers - 1 : 0))
        return overflow();
    out->grads_last = below_last < out->grads_first ? out->grads_first - below_last : 0;
    return LLMMEM_OK;
}

/* One part of a stage's state as the trace keeps it. */
static void trace_part(llmmem__trace_part *p, const llmmem__layout *L, const llmmem__training *t, uint64_t params,
                       uint64_t ranks)
{
    p->params = params;
    p->trained = t->trainable;
    p->bytes[LLMMEM_COMPONENT_WEIGHTS] = t->weights;
    p->bytes[LLMMEM_COMPONENT_GRADIENTS] = llmmem__reduced_gradients(L, t);
    p->bytes[LLMMEM_COMPONENT_MASTER_WEIGHTS] = t->master_weights;
    p->bytes[LLMMEM_COMPONENT_OPTIMIZER_STATES] = t->optimizer_states;
    p->divisor[LLMMEM_COMPONENT_WEIGHTS] = llmmem__sharded(L, ranks, 0);
    p->divisor[LLMMEM_COMPONENT_GRADIENTS] = llmmem__sharded(L, ranks, 1);
    p->divisor[LLMMEM_COMPONENT_MASTER_WEIGHTS] = p->divisor[LLMMEM_COMPONENT_OPTIMIZER_STATES] =
        llmmem__sharded(L, ranks, 2);
    p->adapter_weights = t->adapter_weights;
}

void llmmem__trace_stage(llmmem__trace *t, const llmmem__layout *L, const llmmem__stage_parts *ss,
                         const llmmem__stage_report *sr)
{
    trace_part(&t->part[0], L, &ss->dense, ss->dense_params, L->shard);
    trace_part(&t->part[1], L, &ss->experts, ss->expert_params, L->edp);
    t->first_layer = sr->first_layer;
    t->layers = sr->layers;
}

/* Inference: the generate loop's shape and peak when the framework runs one (framework.c), into the
 * job's copy `gj` (else it stays the caller's, *job unchanged). */
static llmmem_status generate_job(const llmmem__job **job, llmmem__job *gj, llmmem__gen_moment *peak,
                                  llmmem__gen_shape *g)
{
    const llmmem__job *j = *job;
    llmmem_status st;
    const uint64_t beams = j->loop.beams;
    int loop = j->price.mode == LLMMEM_MODE_INFERENCE && llmmem__model_value(j->m, LLMMEM_KEY_NUM_PARAMETERS) == 0;
    if (loop) {
        if ((st = llmmem__semantics_check(&j->sem)) != LLMMEM_OK)
            return st;
        loop = j->sem.cache != LLMMEM_CACHE_AUTO;
    }
    /* num_beams is generate's beam search: nothing else runs beams, so it is not dropped silently */
    if (!loop)
        return beams > 1 ? llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                                        "num_beams (%lld) is beam search in transformers' generate loop: mode "
                                        "inference under a transformers framework (or with max_new_tokens or "
                                        "cache_implementation set) on a model with shapes; vLLM's beam width is n",
                                        (long long)beams)
                         : LLMMEM_OK;
    if ((st = llmmem__generate_shape(g, j, &j->sem)) != LLMMEM_OK || (st = llmmem__generate_peak(peak, g)) != LLMMEM_OK)
        return st;
    *gj = *j;
    gj->gen = peak;
    gj->gen_host = 0;
    if (g->cache == LLMMEM_CACHE_OFFLOADED && (st = llmmem__generate_host_cache(&gj->gen_host, g)) != LLMMEM_OK)
        return st;
    *job = gj;
    return LLMMEM_OK;
}

llmmem_status llmmem__parallel_estimate(llmmem_report *r, const llmmem__job *j, const llmmem__rank_costs *given,
                                        llmmem__act_cache *acts, llmmem__state_cache *states, llmmem__trace *trace,
                                        int most_loaded_only)
{
    llmmem__job gen_job;
    llmmem__gen_moment gen_peak;
    llmmem__gen_shape gen_shape;
    llmmem_status gst = generate_job(&j, &gen_job, &gen_peak, &gen_shape);
    if (gst)
        return gst;
    const llmmem_model *m = j->m;
    const llmmem__layout *L = &j->layout;
    uint64_t best = 0, host_best = 0, nvme_best = 0;
    llmmem__activations best_acts = {0};
    int best_phase = LLMMEM_PEAK_PHASE_STATIC;
    int64_t best_layer = -1;
    /* Middle stages with the same layer kinds hold the same state and the same activations per
     * micro-batch: computed once (not with frozen layers, which depend on the layers' positions) */
    /* what one tensor of each class costs on a rank and what a layer saves: the same on every
     * stage (the planner hands in the costs it computed for this t, et and e) */
    llmmem__rank_costs own;
    const llmmem__rank_costs *rc = given;
    llmmem_status cst;
    const int whole = llmmem__layout_single(L); /* a rank holding the whole model costs its state */
    if (!rc || (whole && !rc->whole_made)) {
        if ((cst = whole ? llmmem__whole_costs(&own, j) : llmmem__rank_costs_of(&own, m, &j->price)) != LLMMEM_OK)
            return cst;
        rc = &own;
    }
    llmmem__act_kinds kinds_store;
    const llmmem__act_kinds *kinds = NULL;
    if (j->price.mode != LLMMEM_MODE_INFERENCE && (cst = llmmem__act_kinds_of(&kinds, &kinds_store, acts, j)) != LLMMEM_OK)
        return cst;
    /* only a model mixing layer kinds can have middle stages of different kinds */
    const unsigned layer_kinds = m->geo.plan.n;
    const int mixed = layer_kinds > 1;
    const int reuse = j->price.train.frozen_layers == 0;
    llmmem__stage_report mid_sr;
    llmmem__activations mid_a;
    uint64_t mid_host = 0, mid_nvme = 0, mid_on[LLMMEM_LAYER_KINDS_MAX] = {0};
    int have_mid = 0;
    llmmem__stage_parts parts[3]; /* the first, a middle and the last stage's (middles repeat) */
    llmmem__stage_parts best_copy; /* the most loaded stage's, when a later middle stage reuses its slot */
    const llmmem__stage_parts *best_parts = &parts[0];
    for (uint64_t i = 0; i < L->p; i++) {
        llmmem__stage_report *sr = &r->stages[i];
        llmmem__stage_parts *ss = &parts[i == 0 ? 0 : i + 1 < L->p ? 1 : 2];
        llmmem__activations a;
        uint64_t host, nvme;
        const int middle = i > 0 && i + 1 < L->p;
        uint64_t on[LLMMEM_LAYER_KINDS_MAX];
        if (middle && mixed)
            stage_kind_counts(on, m, L, i);
        if (middle && reuse && have_mid && (!mixed || same_counts(on, mid_on, layer_kinds))) {
            /* its state and activations are the earlier middle stage's, and it keeps no more
             * micro-batches in flight (llmmem__in_flight falls with the stage): its peak is no
             * higher, and the earlier stage wins a tie. Layers of one kind: the peak does not
             * depend on where on the stage each kind lies. */
            if (most_loaded_only && one_kind(mixed ? on : NULL, layer_kinds))
                continue;
            uint64_t layers = m->geo.layers;
            memcpy(sr->bytes, mid_sr.bytes, sizeof sr->bytes);
            llmmem__stage_layers(L, layers, i, &sr->first_layer, &sr->layers);
            a = mid_a;
            host = mid_host;
            nvme = mid_nvme;
        } else {
            if (middle && ss == best_parts) { /* the slot holds the most loaded stage's parts: keep them */
                best_copy = *ss;
                best_parts = &best_copy;
            }
            llmmem_status st = estimate_stage(sr, &host, &nvme, &a, j, rc, kinds, i, ss, middle && mixed ? on : NULL,
                                              kinds ? states : NULL);
            if (st)
                return st;
            if (middle) {
                mid_sr = *sr;
                mid_a = a;
                mid_host = host;
                mid_nvme = nvme;
                if (mixed)
                    memcpy(mid_on, on, sizeof mid_on);
                have_mid = 1;
            }
        }
        const uint64_t unit = a.held; /* one micro-batch's */
        /* the micro-batches this stage's schedule keeps in flight */
        llmmem__act_stage flight;
        llmmem__in_flight(L, i, &flight);
        a.held = llmmem__scaled(a.held, flight.in_flight_num, flight.in_flight_den);
        a.host = llmmem__scaled(a.host, flight.in_flight_num, flight.in_flight_den);
        a.logits_held = llmmem__scaled(a.logits_held, flight.loss_in_flight, 1);
        host += a.host;
        /* the training peak on this stage (llmmem.h): the step's highest moment */
        int phase = LLMMEM_PEAK_PHASE_STATIC;
        llmmem__step step;
        llmmem__backward_point bwd = {0, 0, 0};
        uint64_t state[LLMMEM_COMPONENTS];
        if (kinds) {
            if (!llmmem__add(&a.first_held, a.first_held, a.held - unit)) /* the other micro-batches' */
                return overflow();
            if (trace)
                memcpy(state, sr->bytes, sizeof state);
            llmmem__act_stage layers = flight;
            layers.first = sr->first_layer;
            layers.end = sr->first_layer + sr->layers;
            llmmem_status pst = step_of(&step, j, &kinds->sem, sr, ss);
            if (!pst)
                pst = llmmem__backward_points(&bwd, NULL, NULL, j->m, kinds, &layers, &a, &step,
                                              sr->bytes[LLMMEM_COMPONENT_GRADIENTS]);
            uint64_t forward = 0;
            llmmem__act_stage ends = layers; /* the stage as the trace keeps it (the timeline's) */
            ends.has_embedding = i == 0;
            ends.has_head = i + 1 == L->p;
            if (!pst)
                pst = llmmem__forward_point(&forward, j->m, kinds, &ends, &a);
            if (pst || (pst = llmmem__peak_components(sr->bytes, &phase, &a, &step, &bwd, forward)) != LLMMEM_OK)
                return pst;
        }
        sr->total = 0;
        for (unsigned c = 0; c < LLMMEM_COMPONENTS; c++)
            if (!llmmem__add(&sr->total, sr->total, sr->bytes[c]))
                return llmmem__fail(LLMMEM_ERR_OVERFLOW, "total bytes exceed 64 bits");
        if (i == 0 || sr->total > r->stages[best].total) {
            best = i;
            best_phase = phase;
            best_layer = phase == LLMMEM_PEAK_PHASE_BACKWARD || phase == LLMMEM_PEAK_PHASE_RECOMPUTE
                             ? (int64_t)bwd.layer
                             : -1;
            best_parts = ss;
            best_acts = a;
            host_best = host;
            nvme_best = nvme;
            if (trace) { /* what explain multiplies */
                trace->unit_held = unit;
                trace->in_flight_num = flight.in_flight_num;
                trace->in_flight_den = flight.in_flight_den;
                trace->have_step = kinds != NULL;
                if (kinds) {
                    memcpy(trace->state, state, sizeof state);
                    trace->acts = a;
                    trace->step = step;
                    trace->kinds = *kinds;
                    trace->stage = flight;
                    trace->stage.first = sr->first_layer;
                    trace->stage.end = sr->first_layer + sr->layers;
                    trace->stage.has_embedding = i == 0;
                    trace->stage.has_head = i + 1 == L->p;
                }
            }
        }
    }
    r->stage_count = (unsigned)L->p;
    r->most_loaded = (unsigned)best;
    memcpy(r->bytes, r->stages[best].bytes, sizeof r->bytes);
    r->params_trainable = best_parts->dense.trainable + best_parts->experts.trainable;
    if (trace)
        llmmem__trace_stage(trace, L, best_parts, &r->stages[best]);
    if (j->price.mode != LLMMEM_MODE_INFERENCE) {
        r->peak_phase = best_phase;
        r->peak_layer = best_layer;
        llmmem__peak_parts(r->peak_parts, &best_acts);
    } else if (j->gen) {
        r->peak_phase = j->gen->phase;
        r->peak_layer = j->gen->layer;
        r->peak_step = j->gen->step;
        r->peak_moment = j->gen->what;
        if (trace) {
            trace->gen_shape = gen_shape;
            trace->has_gen = 1;
            trace->gen = *j->gen;
        }
    }
    /* host and NVMe per node: every device of a node holds as much as the most loaded rank */
    uint64_t per_node = j->dev.devices_per_node;
    if (!llmmem__mul(&r->host_bytes, host_best, per_node) || !llmmem__mul(&r->nvme_bytes, nvme_best, per_node))
        return overflow();
    uint64_t on[LLMMEM_LAYER_KINDS_MAX];
    stage_kind_counts(on, m, L, best);
    llmmem__comm_rank cr = comm_rank(best_parts, r->stages[best].layers, of_kinds(on, m->geo.plan.n, m->geo.moe),
                                     r->stages[best].bytes[LLMMEM_COMPONENT_GRADIENTS]);
    return llmmem__comm_volume(r->comm, j, &cr, best);
}
