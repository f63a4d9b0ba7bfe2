/* Capacity solvers (largest micro-batch, longest sequence, least compressed weight format, fewest
 * devices) and the layout planner. Each evaluates llmmem_estimate on a copy of the strategy kept on
 * the stack: no allocation but the planner's result array. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parallel.h"

/* 1 when the estimate with this strategy fits; an estimate that fails (an invalid combination)
 * does not fit. */
static int fits(llmmem_report *r, const llmmem_model *m, const llmmem_hardware *hw, const llmmem_strategy *s)
{
    return llmmem_estimate(r, m, hw, s) == LLMMEM_OK && llmmem_report_fits(r);
}

static llmmem_status set(llmmem_strategy *s, llmmem_key key, int64_t value)
{
    return llmmem__settings_set_int(&s->s, LLMMEM_OBJECT_STRATEGY, key, value);
}

/* The largest k in [1, hi] with fits(step x k), for a predicate that holds up to some k and not
 * beyond (monotone): exponential search for the first failure, then binary search. */
static llmmem_status largest(uint64_t *out, const llmmem_model *m, const llmmem_hardware *hw, llmmem_strategy *s,
                             llmmem_key key, uint64_t step, uint64_t hi)
{
    llmmem_report *r;
    llmmem_status st = llmmem_report_new(&r);
    if (st)
        return st;
    uint64_t good = 0, bad = hi + 1, k = 1;
    while (k <= hi) {
        if ((st = set(s, key, (int64_t)(k * step))) != LLMMEM_OK)
            break;
        /* a job that cannot be estimated at all is an error, not "nothing fits" */
        if (k == 1 && (st = llmmem_estimate(r, m, hw, s)) != LLMMEM_OK)
            break;
        if (!fits(r, m, hw, s)) {
            bad = k;
            break;
        }
        good = k;
        if (k == hi)
            break;
        k = k > hi / 2 ? hi : k * 2;
    }
    while (st == LLMMEM_OK && bad - good > 1) {
        uint64_t mid = good + (bad - good) / 2;
        if ((st = set(s, key, (int64_t)(mid * step))) != LLMMEM_OK)
            break;
        if (fits(r, m, hw, s))
            good = mid;
        else
            bad = mid;
    }
    llmmem_report_free(r);
    if (st)
        return st;
    *out = good * step;
    return LLMMEM_OK;
}

static llmmem_status check_inputs(const llmmem_model *m, const llmmem_hardware *hw, const llmmem_strategy *s)
{
    LLMMEM_REQUIRE(m);
    LLMMEM_REQUIRE(hw);
    LLMMEM_REQUIRE(s);
    return llmmem__model_check(m);
}

/* The largest multiple of `step` up to `hi` for `key` that fits, every other setting as given. */
static llmmem_status solve_largest(uint64_t *out, const llmmem_model *m, const llmmem_hardware *hw,
                                   const llmmem_strategy *s, llmmem_key key, uint64_t step, uint64_t hi)
{
    LLMMEM_REQUIRE(out);
    *out = 0;
    llmmem_status st = check_inputs(m, hw, s);
    if (st)
        return st;
    llmmem_strategy copy = *s;
    return largest(out, m, hw, &copy, key, step, hi / step);
}

llmmem_status llmmem_solve_max_micro_batch(uint64_t *out, const llmmem_model *m, const llmmem_hardware *hw,
                                           const llmmem_strategy *s)
{
    int64_t lo, hi;
    llmmem_key_bounds(&lo, &hi, LLMMEM_KEY_MICRO_BATCH_SIZE);
    return solve_largest(out, m, hw, s, LLMMEM_KEY_MICRO_BATCH_SIZE, 1, (uint64_t)hi);
}

llmmem_status llmmem_solve_max_sequence_length(uint64_t *out, const llmmem_model *m, const llmmem_hardware *hw,
                                               const llmmem_strategy *s)
{
    int64_t lo, hi;
    llmmem_key_bounds(&lo, &hi, LLMMEM_KEY_SEQUENCE_LENGTH);
    if (!m || !s) /* solve_largest names the missing argument */
        return solve_largest(out, m, hw, s, LLMMEM_KEY_SEQUENCE_LENGTH, 1, (uint64_t)hi);
    /* context parallelism needs a multiple of c; no longer than the model's positions go
     * (max_position_embeddings, when the model states it) */
    uint64_t c = (uint64_t)llmmem__get_int(&s->s, LLMMEM_KEY_CONTEXT_PARALLEL);
    uint64_t positions = (uint64_t)llmmem__model_value(m, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS);
    if (positions && positions < (uint64_t)hi)
        hi = (int64_t)positions;
    return solve_largest(out, m, hw, s, LLMMEM_KEY_SEQUENCE_LENGTH, c, (uint64_t)hi);
}

llmmem_status llmmem_solve_weight_format(llmmem_format *out, const llmmem_model *m, const llmmem_hardware *hw,
                                         const llmmem_strategy *s)
{
    /* most bytes a parameter first: 16, 8 + a scale, 8 + row scales, 8.5, 4 + group data, 4.13, 4.5, 3.44, 2.63 */
    static const llmmem_format ladder[] = {
        LLMMEM_FORMAT_BF16,      LLMMEM_FORMAT_FP8_E4M3, LLMMEM_FORMAT_BNB_INT8, LLMMEM_FORMAT_Q8_0,
        LLMMEM_FORMAT_GPTQ_INT4, LLMMEM_FORMAT_AWQ_INT4, LLMMEM_FORMAT_BNB_NF4,  LLMMEM_FORMAT_Q4_K,
        LLMMEM_FORMAT_Q3_K,      LLMMEM_FORMAT_Q2_K,
    };
    LLMMEM_REQUIRE(out);
    *out = LLMMEM_FORMAT_AUTO;
    llmmem_status st = check_inputs(m, hw, s);
    if (st)
        return st;
    llmmem_strategy copy = *s;
    llmmem_report *r;
    if ((st = llmmem_report_new(&r)) != LLMMEM_OK)
        return st;
    for (size_t i = 0; i < sizeof ladder / sizeof ladder[0]; i++) {
        if (set(&copy, LLMMEM_KEY_WEIGHT_FORMAT, ladder[i]) == LLMMEM_OK && fits(r, m, hw, &copy)) {
            *out = ladder[i];
            llmmem_report_free(r);
            return LLMMEM_OK;
        }
    }
    llmmem_report_free(r);
    return llmmem__fail(LLMMEM_ERR_NOT_FOUND, "no weight format from bf16 down to q2_k fits %s",
                        hw->name[0] ? hw->name : "the device");
}

/* ---- the planner ------------------------------------------------------------------------------ */

typedef struct layout {
    uint32_t t, p, d, c, e, v, mbs;
    uint32_t first, last; /* layers of the first and last stage when p does not divide them (0: even) */
    uint64_t micro;       /* micro-batches per step: global_batch_size / (mbs x d) */
    uint8_t sharding, recompute; /* bit index in plan_shardings / plan_recompute */
    double cost;
    uint64_t bytes;
} layout;

struct llmmem_plan {
    llmmem_strategy base;
    layout *items;
    size_t count, cap;
    uint64_t candidates;
};

llmmem_status llmmem_plan_new(llmmem_plan **out)
{
    LLMMEM_REQUIRE(out);
    *out = calloc(1, sizeof **out);
    if (!*out)
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "plan_new: out of memory");
    llmmem__settings_init(&(*out)->base.s, LLMMEM_OBJECT_STRATEGY);
    return LLMMEM_OK;
}

void llmmem_plan_free(llmmem_plan *plan)
{
    if (plan)
        free(plan->items);
    free(plan);
}

size_t llmmem_plan_count(const llmmem_plan *plan)
{
    return plan ? plan->count : 0;
}

uint64_t llmmem_plan_candidates(const llmmem_plan *plan)
{
    return plan ? plan->candidates : 0;
}

/* The keys a layout sets on the base strategy: values the enumeration built within every key's
 * bounds, stored without the checks a user's value goes through. */
static void apply(llmmem_strategy *s, const layout *l)
{
    static const int64_t zero[] = {0, 1, 2, 3, 0, 0};
    llmmem__settings *k = &s->s;
    llmmem__settings_put(k, LLMMEM_KEY_TENSOR_PARALLEL, l->t);
    llmmem__settings_put(k, LLMMEM_KEY_PIPELINE_PARALLEL, l->p);
    llmmem__settings_put(k, LLMMEM_KEY_DATA_PARALLEL, l->d);
    llmmem__settings_put(k, LLMMEM_KEY_CONTEXT_PARALLEL, l->c);
    llmmem__settings_put(k, LLMMEM_KEY_EXPERT_PARALLEL, l->e);
    llmmem__settings_put(k, LLMMEM_KEY_VIRTUAL_PIPELINE, l->v);
    llmmem__settings_put(k, LLMMEM_KEY_PIPELINE_SCHEDULE, l->v > 1 ? LLMMEM_SCHEDULE_INTERLEAVED : LLMMEM_SCHEDULE_1F1B);
    llmmem__settings_put(k, LLMMEM_KEY_PIPELINE_FIRST_STAGE_LAYERS, l->first);
    llmmem__settings_put(k, LLMMEM_KEY_PIPELINE_LAST_STAGE_LAYERS, l->last);
    llmmem__settings_put(k, LLMMEM_KEY_SEQUENCE_PARALLEL, l->t > 1);
    llmmem__settings_put(k, LLMMEM_KEY_ZERO_STAGE, zero[l->sharding]);
    llmmem__settings_put(k, LLMMEM_KEY_FSDP, l->sharding == 4 ? LLMMEM_FSDP_FULL_SHARD : LLMMEM_FSDP_NONE);
    llmmem__settings_put(k, LLMMEM_KEY_DISTRIBUTED_OPTIMIZER, l->sharding == 5);
    llmmem__settings_put(k, LLMMEM_KEY_RECOMPUTE, l->recompute);
    llmmem__settings_put(k, LLMMEM_KEY_MICRO_BATCH_SIZE, l->mbs);
    llmmem__settings_put(k, LLMMEM_KEY_NUM_MICRO_BATCHES, (int64_t)l->micro);
}

llmmem_status llmmem_plan_get(llmmem_strategy **out, const llmmem_plan *plan, size_t index)
{
    LLMMEM_REQUIRE(out);
    *out = NULL;
    LLMMEM_REQUIRE(plan);
    if (index >= plan->count)
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "plan_get: index %zu of a plan with %zu layouts", index,
                            plan->count);
    llmmem_strategy *s = llmmem__duplicate(&plan->base, sizeof plan->base);
    if (!s)
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "plan_get: out of memory");
    apply(s, &plan->items[index]);
    *out = s;
    return LLMMEM_OK;
}

llmmem_status llmmem_plan_cost(double *seconds_out, uint64_t *bytes_out, const llmmem_plan *plan, size_t index)
{
    LLMMEM_REQUIRE(seconds_out);
    LLMMEM_REQUIRE(bytes_out);
    LLMMEM_REQUIRE(plan);
    if (index >= plan->count)
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "plan_cost: index %zu of a plan with %zu layouts", index,
                            plan->count);
    *seconds_out = plan->items[index].cost;
    *bytes_out = plan->items[index].bytes;
    return LLMMEM_OK;
}

/* Ascending cost, then the tie-breaks llmmem.h lists. */
static int compare(const void *pa, const void *pb)
{
    const layout *a = pa, *b = pb;
    if (a->cost != b->cost)
        return a->cost < b->cost ? -1 : 1;
    if (a->bytes != b->bytes)
        return a->bytes < b->bytes ? -1 : 1;
    const uint32_t ka[] = {a->t, a->p, a->c, a->e, a->v, a->sharding, a->recompute, a->mbs};
    const uint32_t kb[] = {b->t, b->p, b->c, b->e, b->v, b->sharding, b->recompute, b->mbs};
    for (int i = 0; i < 8; i++)
        if (ka[i] != kb[i])
            return ka[i] < kb[i] ? -1 : 1;
    return 0;
}

typedef struct space {
    const llmmem_model *m;
    const llmmem_hardware *hw;
    uint64_t devices, heads, layers, experts, seq, global_batch;
    uint64_t per_node, max_t, max_p, max_c, max_v, max_mbs;
    unsigned shardings, recomputes;
    double flops, intra, inter, active, attention_per_token;
    llmmem__cost_cache *cache; /* rank costs shared by the candidates of one t, et, e */
} space;

/* Estimated seconds per step of a layout that fits (llmmem.h: a ranking proxy). */
static double cost_of(const space *sp, const layout *l, const llmmem_report *r, uint64_t micro)
{
    double tokens = (double)sp->global_batch * (double)sp->seq;
    double per_token = 6.0 * sp->active;
    if (l->recompute == 2)
        per_token += 2.0 * sp->active;
    else if (l->recompute == 1)
        per_token += sp->attention_per_token;
    double compute = per_token * tokens / ((double)sp->devices * sp->flops);
    double bubble = (double)(l->p - 1) / ((double)l->v * (double)micro + (double)(l->p - 1));
    compute /= 1.0 - bubble;
    /* groups inside a node use intra-node links; tensor parallelism always does (t <= devices_per_node) */
    int dp_spans = (uint64_t)l->t * l->c * l->d > sp->per_node, pp_spans = sp->devices > sp->per_node;
    double dp_bw = dp_spans ? sp->inter : sp->intra, pp_bw = pp_spans ? sp->inter : sp->intra;
    double comm = (double)llmmem_report_comm_bytes(r, LLMMEM_COMM_TENSOR) / sp->intra +
                  (double)(llmmem_report_comm_bytes(r, LLMMEM_COMM_DATA) + llmmem_report_comm_bytes(r, LLMMEM_COMM_EXPERT) +
                           llmmem_report_comm_bytes(r, LLMMEM_COMM_CONTEXT)) / dp_bw +
                  (double)llmmem_report_comm_bytes(r, LLMMEM_COMM_PIPELINE) / pp_bw;
    return compute + comm;
}

static llmmem_status keep(llmmem_plan *plan, const layout *l)
{
    if (plan->count == plan->cap) {
        size_t cap = plan->cap ? plan->cap * 2 : 64;
        layout *items = realloc(plan->items, cap * sizeof *items);
        if (!items)
            return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "plan_run: out of memory for %zu layouts", cap);
        plan->items = items;
        plan->cap = cap;
    }
    plan->items[plan->count++] = *l;
    return LLMMEM_OK;
}

/* Every micro-batch, sharding and recomputation of one (t, p, d, c, e, v). */
static llmmem_status try_layout(llmmem_plan *plan, const space *sp, layout l, llmmem_strategy *s, llmmem_report *r)
{
    for (uint8_t sh = 0; sh < 6; sh++) {
        if (!(sp->shardings & (1u << sh)) || (sh > 0 && (uint64_t)l.d * l.c == 1))
            continue;
        for (uint8_t rc = 0; rc < 3; rc++) {
            if (!(sp->recomputes & (1u << rc)))
                continue;
            l.sharding = sh;
            l.recompute = rc;
            /* powers of two dividing the global batch over d; fitting stops at the first that does
             * not (the estimate grows with the micro-batch) */
            for (uint64_t mbs = 1; mbs <= sp->max_mbs; mbs *= 2) {
                if (sp->global_batch % (mbs * l.d) != 0)
                    break;
                l.mbs = (uint32_t)mbs;
                l.micro = sp->global_batch / (mbs * l.d);
                apply(s, &l);
                llmmem_status st;
                if (llmmem__estimate_cached(r, sp->m, sp->hw, s, sp->cache) != LLMMEM_OK)
                    break;
                plan->candidates++;
                if (!llmmem_report_fits(r))
                    break;
                l.bytes = llmmem_report_total_bytes(r);
                l.cost = cost_of(sp, &l, r, l.micro);
                if ((st = keep(plan, &l)) != LLMMEM_OK)
                    return st;
            }
        }
    }
    return LLMMEM_OK;
}

llmmem_status llmmem_plan_run(llmmem_plan *plan, const llmmem_model *m, const llmmem_hardware *hw,
                              const llmmem_strategy *base, uint64_t devices)
{
    LLMMEM_REQUIRE(plan);
    plan->count = 0;
    plan->candidates = 0;
    llmmem_status st = check_inputs(m, hw, base);
    if (st)
        return st;
    if (devices == 0 || devices > (1u << 24))
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "plan_run: devices (%llu) must be 1 to 16777216",
                            (unsigned long long)devices);
    const llmmem__settings *k = &base->s;
    space sp = {.m = m, .hw = hw, .devices = devices};
    sp.heads = (uint64_t)llmmem__model_value(m, LLMMEM_KEY_NUM_ATTENTION_HEADS);
    sp.layers = (uint64_t)llmmem__model_value(m, LLMMEM_KEY_NUM_HIDDEN_LAYERS);
    sp.experts = (uint64_t)llmmem__model_value(m, LLMMEM_KEY_NUM_EXPERTS);
    sp.seq = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_SEQUENCE_LENGTH);
    sp.per_node = (uint64_t)llmmem__get_int(&hw->s, LLMMEM_KEY_DEVICES_PER_NODE);
    sp.global_batch = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_GLOBAL_BATCH_SIZE);
    if (sp.global_batch == 0) /* one micro-batch per device: every data-parallel size divides it */
        sp.global_batch = devices * (uint64_t)llmmem__get_int(k, LLMMEM_KEY_MICRO_BATCH_SIZE);
    sp.max_t = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_PLAN_MAX_TENSOR_PARALLEL);
    if (sp.max_t == 0)
        sp.max_t = sp.per_node;
    sp.max_p = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_PLAN_MAX_PIPELINE_PARALLEL);
    if (sp.max_p == 0)
        sp.max_p = sp.layers;
    sp.max_c = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_PLAN_MAX_CONTEXT_PARALLEL);
    sp.max_v = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_PLAN_MAX_VIRTUAL_PIPELINE);
    sp.max_mbs = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_PLAN_MAX_MICRO_BATCH_SIZE);
    sp.shardings = (unsigned)llmmem__get_int(k, LLMMEM_KEY_PLAN_SHARDINGS);
    sp.recomputes = (unsigned)llmmem__get_int(k, LLMMEM_KEY_PLAN_RECOMPUTE);
    /* unknown throughput or bandwidth (0): rank by bytes alone, 1 FLOP/s and 1 byte/s */
    sp.flops = (double)llmmem__get_int(&hw->s, LLMMEM_KEY_PEAK_BF16_FLOPS);
    sp.intra = (double)llmmem__get_int(&hw->s, LLMMEM_KEY_INTRA_NODE_BANDWIDTH);
    sp.inter = (double)llmmem__get_int(&hw->s, LLMMEM_KEY_INTER_NODE_BANDWIDTH);
    if (sp.flops <= 0)
        sp.flops = 1;
    if (sp.intra <= 0)
        sp.intra = 1;
    if (sp.inter <= 0)
        sp.inter = sp.intra;
    sp.active = (double)m->inv.active;
    /* selective recomputation reruns QK^T and the product with V: 4 s h FLOPs a token a layer */
    sp.attention_per_token = 4.0 * (double)sp.seq * (double)llmmem__model_value(m, LLMMEM_KEY_HIDDEN_SIZE) *
                             (double)sp.layers;
    if (sp.layers == 0)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "plan_run: a model given by num_parameters alone has no layers "
                                                     "to lay out");

    plan->base = *base;
    llmmem_strategy s = *base;
    llmmem_report *r;
    if ((st = llmmem_report_new(&r)) != LLMMEM_OK)
        return st;
    llmmem__cost_cache *cache = calloc(1, sizeof *cache);
    if (!cache) {
        llmmem_report_free(r);
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "plan_run: out of memory");
    }
    sp.cache = cache;
    for (uint64_t t = 1; t <= sp.max_t && t <= devices; t++) {
        if (devices % t || sp.heads % t)
            continue;
        for (uint64_t c = 1; c <= sp.max_c && t * c <= devices; c++) {
            if ((devices / t) % c || sp.seq % c)
                continue;
            for (uint64_t p = 1; p <= sp.max_p && p <= sp.layers && t * c * p <= devices; p++) {
                if ((devices / (t * c)) % p)
                    continue;
                uint64_t d = devices / (t * c * p);
                for (uint64_t e = 1; e <= (sp.experts ? d * c : 1); e++) {
                    if (sp.experts && (sp.experts % e || (d * c) % e))
                        continue;
                    for (uint64_t v = 1; v <= sp.max_v; v++) {
                        if (v > 1 && (p == 1 || sp.layers % (p * v)))
                            continue;
                        layout l = {(uint32_t)t, (uint32_t)p, (uint32_t)d, (uint32_t)c, (uint32_t)e, (uint32_t)v,
                                    1, 0, 0, 0, 0, 0, 0.0, 0};
                        if (v == 1 && p > 2 && sp.layers % p) {
                            /* the middle stages take ceil(L / p), the first and last share the rest
                             * (Megatron-LM --decoder-first/last-pipeline-num-layers) */
                            uint64_t mid = llmmem__ceil_div(sp.layers, p), rest = sp.layers - (p - 2) * mid;
                            if (sp.layers < (p - 2) * mid + 2)
                                continue;
                            l.first = (uint32_t)(rest / 2);
                            l.last = (uint32_t)(rest - rest / 2);
                        } else if (v == 1 && p > 1 && sp.layers % p) {
                            continue;
                        }
                        if ((st = try_layout(plan, &sp, l, &s, r)) != LLMMEM_OK) {
                            free(cache);
                            llmmem_report_free(r);
                            return st;
                        }
                    }
                }
            }
        }
    }
    free(cache);
    llmmem_report_free(r);
    if (plan->count > 1) /* qsort may not be given NULL, even for no items */
        qsort(plan->items, plan->count, sizeof *plan->items, compare);
    return LLMMEM_OK;
}

llmmem_status llmmem_solve_min_devices(uint64_t *out, const llmmem_model *m, const llmmem_hardware *hw,
                                       const llmmem_strategy *base, uint64_t max_devices)
{
    LLMMEM_REQUIRE(out);
    *out = 0;
    llmmem_plan *plan;
    llmmem_status st = llmmem_plan_new(&plan);
    if (st)
        return st;
    for (uint64_t n = 1; n <= max_devices; n++) {
        if ((st = llmmem_plan_run(plan, m, hw, base, n)) != LLMMEM_OK)
            break;
        if (plan->count) {
            *out = n;
            break;
        }
    }
    llmmem_plan_free(plan);
    return st;
}
