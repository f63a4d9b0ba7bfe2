/* Capacity solvers (largest micro-batch, longest sequence, least compressed weight format, fewest
 * devices) and the layout planner. Each evaluates llmmem_estimate on a copy of the strategy; the
 * planner allocates its kept layouts (at most its limit) and its search space, the fewest-devices
 * search the divisors of a fixed global batch. Every run counts its work and stops at a limit
 * (llmmem.h LLMMEM_PLAN_DEFAULT_WORK_LIMIT), so no input makes one take long. */
#include <locale.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/estimate.h"
#include "job/framework.h"
#include "views/parallel.h"
#include "base/text.h"

/* 1 when the estimate with this strategy fits; an estimate that fails (an invalid combination)
 * does not fit. */
static int fits(llmmem_report *r, const llmmem_model *m, const llmmem_hardware *hw, const llmmem_strategy *s)
{
    /* whether the job runs as the caching allocator serves it, where the allocation tape models the
     * job (llmmem_estimate_runs); else the estimate's total against the capacity */
    llmmem_status st = llmmem_estimate_runs(r, m, hw, s);
    return (st == LLMMEM_OK || (st == LLMMEM_ERR_UNSUPPORTED && llmmem_report_valid(r))) && llmmem_report_fits(r);
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

/* A public solver's inputs, in the caller: a NULL names the function the user called and the
 * parameter as the header names it (LLMMEM_REQUIRE), and the model must make an inventory. */
#define CHECK_INPUTS(model, hw, strategy)                                                       \
    do {                                                                                       \
        LLMMEM_REQUIRE(model);                                                                 \
        LLMMEM_REQUIRE(hw);                                                                    \
        LLMMEM_REQUIRE(strategy);                                                              \
        llmmem_status check_ = llmmem__model_check(model);                                     \
        if (check_)                                                                            \
            return check_;                                                                     \
    } while (0)

/* The largest multiple of `step` up to `hi` for `key` that fits, every other setting as given
 * (the inputs checked). */
static llmmem_status solve_largest(uint64_t *out, const llmmem_model *m, const llmmem_hardware *hw,
                                   const llmmem_strategy *s, llmmem_key key, uint64_t step, uint64_t hi)
{
    llmmem_strategy copy = *s;
    return largest(out, m, hw, &copy, key, step, hi / step);
}

llmmem_status llmmem_solve_max_micro_batch(uint64_t *out, const llmmem_model *model, const llmmem_hardware *hw,
                                           const llmmem_strategy *strategy)
{
    LLMMEM_REQUIRE(out);
    *out = 0;
    CHECK_INPUTS(model, hw, strategy);
    int64_t lo, hi;
    llmmem_key_bounds(&lo, &hi, LLMMEM_KEY_MICRO_BATCH_SIZE);
    return solve_largest(out, model, hw, strategy, LLMMEM_KEY_MICRO_BATCH_SIZE, 1, (uint64_t)hi);
}

/* 1 when the estimate is transformers' generate loop (parallel.c generate_job): mode inference, a
 * model with shapes, and semantics that give the loop a cache. */
static int generates(const llmmem_model *m, const llmmem_strategy *s)
{
    llmmem__semantics sem;
    return llmmem__get_int(&s->s, LLMMEM_KEY_MODE) == LLMMEM_MODE_INFERENCE &&
           llmmem__model_value(m, LLMMEM_KEY_NUM_PARAMETERS) == 0 && llmmem__semantics_make(&sem, s) == LLMMEM_OK &&
           sem.cache != LLMMEM_CACHE_AUTO;
}

llmmem_status llmmem_solve_max_sequence_length(uint64_t *out, const llmmem_model *model, const llmmem_hardware *hw,
                                               const llmmem_strategy *strategy)
{
    LLMMEM_REQUIRE(out);
    *out = 0;
    CHECK_INPUTS(model, hw, strategy);
    int64_t lo, hi;
    llmmem_key_bounds(&lo, &hi, LLMMEM_KEY_SEQUENCE_LENGTH);
    /* context parallelism needs a multiple of c; no longer than the model's positions go
     * (max_position_embeddings, when the model states it). The generate loop feeds the prompt and
     * every new token but the last (generation/utils.py: the last one sampled is never forwarded),
     * positions 0 .. s + max_new_tokens - 2, so the prompt leaves max_new_tokens - 1 of them. */
    uint64_t c = (uint64_t)llmmem__get_int(&strategy->s, LLMMEM_KEY_CONTEXT_PARALLEL);
    uint64_t positions = (uint64_t)llmmem__model_value(model, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS);
    if (positions) {
        uint64_t n = (uint64_t)llmmem__get_int(&strategy->s, LLMMEM_KEY_MAX_NEW_TOKENS);
        uint64_t fed = generates(model, strategy) && n > 1 ? n - 1 : 0;
        uint64_t room = positions > fed ? positions - fed : 0;
        if (room < (uint64_t)hi)
            hi = (int64_t)room;
    }
    return solve_largest(out, model, hw, strategy, LLMMEM_KEY_SEQUENCE_LENGTH, c, (uint64_t)hi);
}

llmmem_status llmmem_solve_weight_format(llmmem_format *out, const llmmem_model *model, const llmmem_hardware *hw,
                                         const llmmem_strategy *strategy)
{
    /* most bytes a parameter first: 16, 8 + a scale, 8 + row scales, 8.5, 4 + group data, 4.13, 4.5, 3.44, 2.63 */
    static const llmmem_format ladder[] = {
        LLMMEM_FORMAT_BF16,      LLMMEM_FORMAT_FP8_E4M3, LLMMEM_FORMAT_BNB_INT8, LLMMEM_FORMAT_Q8_0,
        LLMMEM_FORMAT_GPTQ_INT4, LLMMEM_FORMAT_AWQ_INT4, LLMMEM_FORMAT_BNB_NF4,  LLMMEM_FORMAT_Q4_K,
        LLMMEM_FORMAT_Q3_K,      LLMMEM_FORMAT_Q2_K,
    };
    LLMMEM_REQUIRE(out);
    *out = LLMMEM_FORMAT_AUTO;
    CHECK_INPUTS(model, hw, strategy);
    llmmem_strategy copy = *strategy;
    llmmem_report *r;
    llmmem_status st = llmmem_report_new(&r);
    if (st)
        return st;
    for (size_t i = 0; i < sizeof ladder / sizeof ladder[0]; i++) {
        if (set(&copy, LLMMEM_KEY_WEIGHT_FORMAT, ladder[i]) == LLMMEM_OK && fits(r, model, hw, &copy)) {
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

/* A device count up to LLMMEM_PLAN_MAX_DEVICES has at most 504 divisors (14,414,400), a layer,
 * head or expert count up to 2^20 at most 240, a sequence length up to 2^24 at most 504. */
#define MAX_DIVISORS 1024
/* The work of one estimate: a unit per pipeline stage and this many besides (llmmem.h). */
#define ESTIMATE_WORK 4

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
    layout *items;        /* the kept layouts: in arrival order until the limit is reached, then a heap
                           * (worst first) while the run goes on; sorted at its end */
    size_t count, cap;
    int heap;             /* items is a heap */
    size_t limit;         /* most layouts kept; 0: every one */
    uint64_t work_limit;  /* most work a run does (llmmem.h) */
    uint64_t candidates;  /* layouts estimated */
    uint64_t fitting;     /* layouts that fit, kept or not */
    uint64_t work;        /* work the last run did */
    int ran;              /* a run (or a fewest-devices search) succeeded: the fields below hold */
    uint64_t devices;     /* the devices laid out (0: a search found none) */
    char model_name[LLMMEM_NAME_MAX], hardware_name[LLMMEM_NAME_MAX];
};

llmmem_status llmmem_plan_new(llmmem_plan **out)
{
    LLMMEM_REQUIRE(out);
    *out = calloc(1, sizeof **out);
    if (!*out)
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "plan_new: out of memory");
    llmmem__settings_init(&(*out)->base.s, LLMMEM_OBJECT_STRATEGY);
    (*out)->limit = LLMMEM_PLAN_DEFAULT_LIMIT;
    (*out)->work_limit = LLMMEM_PLAN_DEFAULT_WORK_LIMIT;
    return LLMMEM_OK;
}

void llmmem_plan_free(llmmem_plan *plan)
{
    if (plan)
        free(plan->items);
    free(plan);
}

llmmem_status llmmem_plan_set_limit(llmmem_plan *plan, size_t max_layouts)
{
    LLMMEM_REQUIRE(plan);
    plan->limit = max_layouts;
    return LLMMEM_OK;
}

llmmem_status llmmem_plan_set_work_limit(llmmem_plan *plan, uint64_t work)
{
    LLMMEM_REQUIRE(plan);
    if (work == 0)
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "plan_set_work_limit: work (0) must be at least 1");
    plan->work_limit = work;
    return LLMMEM_OK;
}

size_t llmmem_plan_count(const llmmem_plan *plan)
{
    return plan ? plan->count : 0;
}

uint64_t llmmem_plan_fitting(const llmmem_plan *plan)
{
    return plan ? plan->fitting : 0;
}

uint64_t llmmem_plan_candidates(const llmmem_plan *plan)
{
    return plan ? plan->candidates : 0;
}

uint64_t llmmem_plan_work(const llmmem_plan *plan)
{
    return plan ? plan->work : 0;
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

/* One kept layout as a JSON object on one line: its keys, as llmmem_plan_get sets them, and its cost. */
static void layout_to_json(llmmem__text *b, const layout *l)
{
    llmmem__text_printf(b,
                        "{\"tensor_parallel\": %u, \"pipeline_parallel\": %u, \"data_parallel\": %u, "
                        "\"context_parallel\": %u, \"expert_parallel\": %u, \"virtual_pipeline\": %u, "
                        "\"sharding\": \"%s\", \"recompute\": \"%s\", \"micro_batch_size\": %u, ",
                        (unsigned)l->t, (unsigned)l->p, (unsigned)l->d, (unsigned)l->c, (unsigned)l->e,
                        (unsigned)l->v, llmmem_choice_name(LLMMEM_KEY_PLAN_SHARDINGS, (int64_t)1 << l->sharding),
                        llmmem_choice_name(LLMMEM_KEY_RECOMPUTE, l->recompute), (unsigned)l->mbs);
    if (isfinite(l->cost)) /* none is made that is not: JSON has no inf or nan */
        llmmem__text_printf(b, "\"cost_seconds\": %.6g, ", l->cost);
    else
        llmmem__text_str(b, "\"cost_seconds\": null, ");
    llmmem__text_printf(b, "\"bytes\": %llu}", (unsigned long long)l->bytes);
}

llmmem_status llmmem_plan_to_json(char **json_out, const llmmem_plan *plan)
{
    LLMMEM_REQUIRE(json_out);
    *json_out = NULL;
    LLMMEM_REQUIRE(plan);
    if (!plan->ran)
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "plan_to_json: the plan holds no run");
    /* costs are written in the "C" locale of this thread only ('.' whatever the host's locale), the
     * host's own locale untouched (as number.c reads reals) */
    locale_t c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (c_locale == (locale_t)0)
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "plan_to_json: out of memory");
    locale_t previous = uselocale(c_locale);
    llmmem__text b = {0};
    llmmem__text_str(&b, "{\n  \"model\": ");
    llmmem__text_quoted(&b, plan->model_name);
    llmmem__text_str(&b, ",\n  \"hardware\": ");
    llmmem__text_quoted(&b, plan->hardware_name);
    llmmem__text_printf(&b, ",\n  \"devices\": %llu,\n  \"candidates\": %llu,\n  \"fitting\": %llu,\n  \"layouts\": [",
                        (unsigned long long)plan->devices, (unsigned long long)plan->candidates,
                        (unsigned long long)plan->fitting);
    for (size_t i = 0; i < plan->count; i++) {
        llmmem__text_str(&b, i ? ",\n    " : "\n    ");
        layout_to_json(&b, &plan->items[i]);
    }
    llmmem__text_str(&b, plan->count ? "\n  ]\n}\n" : "]\n}\n");
    uselocale(previous);
    freelocale(c_locale);
    return llmmem__text_finish(json_out, &b, "plan_to_json");
}

/* Ascending cost, then the tie-breaks llmmem.h lists: a total order, since (t, p, c, e, v,
 * sharding, recomputation, micro-batch) name a layout of a device count (d follows from t, p, c).
 * A cost that is not a number (none is made today) goes last. */
static int compare(const void *pa, const void *pb)
{
    const layout *a = pa, *b = pb;
    if (!isnan(a->cost) != !isnan(b->cost))
        return isnan(a->cost) ? 1 : -1;
    if (a->cost != b->cost && !isnan(a->cost))
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

/* The search space and what a search has spent, for the planner and for the fewest-devices
 * search; every field but the work is the same for every device count but global_batch. */
typedef struct space {
    const llmmem_model *m;
    const llmmem_hardware *hw;
    const char *who;        /* the public function, for messages */
    uint64_t devices;       /* the planner's device count; the search's max_devices */
    uint64_t heads, layers, experts, seq, global_batch, batch_key, mbs0, et;
    uint64_t per_node, max_t, max_p, max_c, max_v, max_mbs;
    unsigned shardings, recomputes;
    double flops, intra, inter, active, attention_per_token;
    uint64_t expert_divisors[MAX_DIVISORS]; /* divisors of num_experts, ascending ({1} without experts) */
    size_t expert_count;
    uint64_t device_divisors[MAX_DIVISORS]; /* the planner's: divisors of devices, ascending */
    size_t device_count;
    uint64_t work, work_limit;
    llmmem__cost_cache *cache; /* rank costs shared by the candidates of one t, et, e */
    /* formats and training plan, the same for every candidate (apply sets layout keys alone) */
    llmmem__job_fixed fixed;
    uint64_t estimated;        /* candidates the estimate answered (fitting or not) */
    llmmem_status refused;     /* the first candidate the estimate refused as not modelled, and why */
    char refusal[LLMMEM_MESSAGE_MAX];
} space;

/* One candidate's estimate: its job resolved with the space's fixed parts (candidates differ in layout
 * keys alone), its most loaded stage alone. */
static llmmem_status estimate(llmmem_report *r, space *sp, const llmmem_strategy *s)
{
    llmmem__job own;
    const llmmem__job *j;
    llmmem_status st = llmmem__job_resolve(&j, &own, NULL, sp->m, sp->hw, s, &sp->fixed);
    if (!st)
        st = llmmem__estimate_job(r, j, sp->hw->name, sp->cache, NULL, 1);
    if (!st)
        sp->estimated++;
    else if (st == LLMMEM_ERR_UNSUPPORTED && !sp->refused) {
        sp->refused = st;
        snprintf(sp->refusal, sizeof sp->refusal, "%s", llmmem_last_message());
    }
    return st;
}

/* A search that estimated no candidate at all, one or more refused as not modelled (a model whose training
 * the estimate does not model, say), says why instead of finding no layout; a layout that cannot run
 * (LLMMEM_ERR_INCOMPATIBLE: offloading without a ZeRO stage on one device) is a layout that does not fit. */
static llmmem_status no_candidate(const space *sp)
{
    if (sp->estimated || !sp->refused)
        return LLMMEM_OK;
    return llmmem__fail(sp->refused, "%s: no layout could be estimated: %s", sp->who, sp->refusal);
}

/* Divisors of n (1 <= n <= 2^40), ascending; SIZE_MAX when there are more than `cap`. */
static size_t divisors(uint64_t *out, size_t cap, uint64_t n)
{
    size_t lo = 0, hi = 0;
    uint64_t high[MAX_DIVISORS];
    for (uint64_t i = 1; i * i <= n; i++) {
        if (n % i)
            continue;
        if (lo + hi + 2 > cap || hi + 1 > MAX_DIVISORS)
            return SIZE_MAX;
        out[lo++] = i;
        if (i != n / i)
            high[hi++] = n / i;
    }
    while (hi)
        out[lo++] = high[--hi];
    return lo;
}

/* Adds work; 0 once the space has spent more than its limit. */
static int charge(space *sp, uint64_t units)
{
    sp->work = sp->work > UINT64_MAX - units ? UINT64_MAX : sp->work + units;
    return sp->work <= sp->work_limit;
}

static llmmem_status over_limit(const space *sp, int search)
{
    if (search)
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE,
                            "%s: searching up to max_devices (%llu) takes more than the work limit (%llu units): "
                            "lower max_devices, or narrow the layouts with plan_max_tensor_parallel, "
                            "plan_max_pipeline_parallel, plan_max_context_parallel, plan_max_virtual_pipeline, "
                            "plan_shardings or plan_recompute",
                            sp->who, (unsigned long long)sp->devices, (unsigned long long)sp->work_limit);
    return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE,
                        "%s: laying out devices (%llu) takes more than the work limit (%llu units): narrow the "
                        "layouts with plan_max_tensor_parallel, plan_max_pipeline_parallel, plan_max_context_parallel, "
                        "plan_max_virtual_pipeline, plan_max_micro_batch_size, plan_shardings or plan_recompute, or "
                        "raise the limit (llmmem_plan_set_work_limit)",
                        sp->who, (unsigned long long)sp->devices, (unsigned long long)sp->work_limit);
}

/* The parts of the space every device count shares. */
static llmmem_status space_init(space *sp, const llmmem_model *m, const llmmem_hardware *hw,
                                const llmmem_strategy *base, const char *who, uint64_t devices, uint64_t work_limit)
{
    const llmmem__settings *k = &base->s;
    memset(sp, 0, sizeof *sp);
    sp->m = m;
    sp->hw = hw;
    sp->who = who;
    sp->devices = devices;
    sp->heads = (uint64_t)llmmem__model_value(m, LLMMEM_KEY_NUM_ATTENTION_HEADS);
    if (sp->heads == 0) /* Mamba-2 blocks alone: tensor parallelism splits the mixer's heads (vLLM MambaMixer2) */
        sp->heads = m->geo.mamba_heads;
    sp->layers = (uint64_t)llmmem__model_value(m, LLMMEM_KEY_NUM_HIDDEN_LAYERS);
    sp->experts = (uint64_t)llmmem__model_value(m, LLMMEM_KEY_NUM_EXPERTS);
    sp->seq = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_SEQUENCE_LENGTH);
    sp->per_node = (uint64_t)llmmem__get_int(&hw->s, LLMMEM_KEY_DEVICES_PER_NODE);
    sp->batch_key = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_GLOBAL_BATCH_SIZE);
    sp->mbs0 = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_MICRO_BATCH_SIZE);
    sp->et = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_EXPERT_TENSOR_PARALLEL);
    sp->max_t = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_PLAN_MAX_TENSOR_PARALLEL);
    if (sp->max_t == 0)
        sp->max_t = sp->per_node;
    sp->max_p = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_PLAN_MAX_PIPELINE_PARALLEL);
    if (sp->max_p == 0)
        sp->max_p = sp->layers;
    sp->max_c = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_PLAN_MAX_CONTEXT_PARALLEL);
    sp->max_v = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_PLAN_MAX_VIRTUAL_PIPELINE);
    sp->max_mbs = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_PLAN_MAX_MICRO_BATCH_SIZE);
    sp->shardings = (unsigned)llmmem__get_int(k, LLMMEM_KEY_PLAN_SHARDINGS);
    sp->recomputes = (unsigned)llmmem__get_int(k, LLMMEM_KEY_PLAN_RECOMPUTE);
    /* unknown throughput or bandwidth (0): rank by bytes alone, 1 FLOP/s and 1 byte/s */
    sp->flops = (double)llmmem__get_int(&hw->s, LLMMEM_KEY_PEAK_BF16_FLOPS);
    sp->intra = (double)llmmem__get_int(&hw->s, LLMMEM_KEY_INTRA_NODE_BANDWIDTH);
    sp->inter = (double)llmmem__get_int(&hw->s, LLMMEM_KEY_INTER_NODE_BANDWIDTH);
    if (sp->flops <= 0)
        sp->flops = 1;
    if (sp->intra <= 0)
        sp->intra = 1;
    if (sp->inter <= 0)
        sp->inter = sp->intra;
    sp->active = (double)m->inv.active;
    /* selective recomputation reruns QK^T and the product with V: 4 s h FLOPs a token a layer */
    sp->attention_per_token = 4.0 * (double)sp->seq * (double)llmmem__model_value(m, LLMMEM_KEY_HIDDEN_SIZE) *
                              (double)sp->layers;
    sp->work = 0;
    sp->work_limit = work_limit;
    if (sp->layers == 0)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "%s: a model given by num_parameters alone has no layers "
                                                     "to lay out", who);
    if ((sp->shardings & 63u) == 0 || (sp->recomputes & 7u) == 0)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "%s: plan_shardings (%u) and plan_recompute (%u) must each "
                                                     "name at least one choice to try", who, sp->shardings,
                            sp->recomputes);
    sp->expert_count = sp->experts ? divisors(sp->expert_divisors, MAX_DIVISORS, sp->experts) : 1;
    if (!sp->experts)
        sp->expert_divisors[0] = 1;
    if (sp->expert_count == SIZE_MAX) /* not with num_experts bounded by 2^20 */
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "%s: num_experts (%llu) has more than %d divisors", who,
                            (unsigned long long)sp->experts, MAX_DIVISORS);
    return LLMMEM_OK;
}

/* The global batch of n devices: global_batch_size, or one micro-batch per device. */
static uint64_t global_batch(const space *sp, uint64_t n)
{
    return sp->batch_key ? sp->batch_key : n * sp->mbs0;
}

/* The layout of (t, p, d, c, e, v) with its stages' layers, or 0 when the planner does not try
 * it: interleaving needs p > 1 and num_hidden_layers divisible by p x v; when p does not divide
 * the layers, the middle stages take ceil(L / p) and the first and last share the rest
 * (Megatron-LM --decoder-first/last-pipeline-num-layers), which needs p > 2 and a layer each. */
static int skeleton(layout *l, const space *sp, uint64_t t, uint64_t p, uint64_t d, uint64_t c, uint64_t e,
                    uint64_t v)
{
    if (v > 1 && (p == 1 || sp->layers % (p * v)))
        return 0;
    *l = (layout){(uint32_t)t, (uint32_t)p, (uint32_t)d, (uint32_t)c, (uint32_t)e, (uint32_t)v,
                  1, 0, 0, 0, 0, 0, 0.0, 0};
    if (v == 1 && p > 2 && sp->layers % p) {
        uint64_t mid = llmmem__ceil_div(sp->layers, p), rest;
        if (sp->layers < (p - 2) * mid + 2)
            return 0;
        rest = sp->layers - (p - 2) * mid;
        l->first = (uint32_t)(rest / 2);
        l->last = (uint32_t)(rest - rest / 2);
    } else if (v == 1 && p > 1 && sp->layers % p) {
        return 0;
    }
    return 1;
}

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

/* Heap of the kept layouts, the worst (in compare's order) at the root. */
static void sift_down(layout *h, size_t n, size_t i)
{
    for (;;) {
        size_t worst = i, a = 2 * i + 1, b = a + 1;
        if (a < n && compare(&h[a], &h[worst]) > 0)
            worst = a;
        if (b < n && compare(&h[b], &h[worst]) > 0)
            worst = b;
        if (worst == i)
            return;
        layout x = h[worst];
        h[worst] = h[i];
        h[i] = x;
        i = worst;
    }
}

/* Counts a layout that fits and keeps it if it is among the `limit` best so far. */
static llmmem_status keep(llmmem_plan *plan, const layout *l)
{
    plan->fitting++;
    if (plan->limit && plan->count == plan->limit) {
        if (!plan->heap) { /* the limit is reached: from now on the worst kept is at the root */
            for (size_t i = plan->count / 2; i-- > 0;)
                sift_down(plan->items, plan->count, i);
            plan->heap = 1;
        }
        if (compare(l, &plan->items[0]) < 0) {
            plan->items[0] = *l;
            sift_down(plan->items, plan->count, 0);
        }
        return LLMMEM_OK;
    }
    if (plan->count == plan->cap) {
        size_t cap = plan->cap ? plan->cap : 64;
        if (plan->cap)
            cap = cap > SIZE_MAX / 2 ? SIZE_MAX : cap * 2;
        if (plan->limit && cap > plan->limit)
            cap = plan->limit;
        layout *items = cap > SIZE_MAX / sizeof *items ? NULL : realloc(plan->items, cap * sizeof *items);
        if (!items)
            return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "plan_run: out of memory for %zu layouts", cap);
        plan->items = items;
        plan->cap = cap;
    }
    plan->items[plan->count++] = *l;
    return LLMMEM_OK;
}

/* Every micro-batch, sharding and recomputation of one (t, p, d, c, e, v). */
static llmmem_status try_layout(llmmem_plan *plan, space *sp, layout l, llmmem_strategy *s, llmmem_report *r)
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
                if (!charge(sp, l.p + ESTIMATE_WORK))
                    return over_limit(sp, 0);
                l.mbs = (uint32_t)mbs;
                l.micro = sp->global_batch / (mbs * l.d);
                apply(s, &l);
                llmmem_status st;
                if (estimate(r, sp, s) != LLMMEM_OK)
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

/* Work the layouts of one (t, p, d, c, e, v) take at least: an estimate of the smallest
 * micro-batch for each sharding and recomputation. */
static uint64_t least_work(const space *sp, const layout *l)
{
    if (sp->global_batch % l->d)
        return 0;
    unsigned sh = sp->shardings & ((uint64_t)l->d * l->c == 1 ? 1u : 63u);
    return (uint64_t)__builtin_popcount(sh) * (uint64_t)__builtin_popcount(sp->recomputes & 7u) *
           (l->p + ESTIMATE_WORK);
}

/* Every (t, p, d, c, e, v) of the device count, in ascending t, c, p, e, v: estimated (counting 0)
 * or only priced at the least work it takes (counting 1, to refuse a space beyond the limit
 * before any estimate). Each layout skeleton and each (t, c, p) cost a unit of work. */
static llmmem_status walk(llmmem_plan *plan, space *sp, llmmem_strategy *s, llmmem_report *r, int counting)
{
    const uint64_t *divs = sp->device_divisors, n = sp->devices;
    const size_t nd = sp->device_count;
    for (size_t ti = 0; ti < nd && divs[ti] <= sp->max_t; ti++) {
        const uint64_t t = divs[ti];
        if (sp->heads % t)
            continue;
        for (size_t ci = 0; ci < nd && divs[ci] <= sp->max_c && t * divs[ci] <= n; ci++) {
            const uint64_t c = divs[ci];
            if ((n / t) % c || sp->seq % c)
                continue;
            if (!charge(sp, 1))
                return over_limit(sp, 0);
            /* more stages than a report holds fail every estimate: not tried */
            for (size_t pi = 0; pi < nd && divs[pi] <= sp->max_p && divs[pi] <= sp->layers &&
                                divs[pi] <= LLMMEM_MAX_STAGES && t * c * divs[pi] <= n;
                 pi++) {
                const uint64_t p = divs[pi], d = n / (t * c * p);
                if ((n / (t * c)) % p)
                    continue;
                if (!charge(sp, 1))
                    return over_limit(sp, 0);
                for (size_t ei = 0; ei < sp->expert_count && sp->expert_divisors[ei] <= d * c; ei++) {
                    const uint64_t e = sp->expert_divisors[ei];
                    if ((d * c) % e)
                        continue;
                    for (uint64_t v = 1; v <= sp->max_v; v++) {
                        layout l;
                        if (!skeleton(&l, sp, t, p, d, c, e, v))
                            continue;
                        if (!charge(sp, 1 + (counting ? least_work(sp, &l) : 0)))
                            return over_limit(sp, 0);
                        llmmem_status st;
                        if (!counting && (st = try_layout(plan, sp, l, s, r)) != LLMMEM_OK)
                            return st;
                    }
                }
            }
        }
    }
    return LLMMEM_OK;
}

/* A bound on the work of a run from how many values each dimension may take: when it is within
 * the limit, the run cannot go past it and is not priced first. */
static uint64_t most_work(const space *sp)
{
    uint64_t nt = 0, nc = 0, np = 0, pmax = 1, nmbs = 0, w;
    for (size_t i = 0; i < sp->device_count; i++) {
        const uint64_t x = sp->device_divisors[i];
        nt += x <= sp->max_t && sp->heads % x == 0;
        nc += x <= sp->max_c && sp->seq % x == 0;
        if (x <= sp->max_p && x <= sp->layers && x <= LLMMEM_MAX_STAGES) {
            np++;
            pmax = x;
        }
    }
    for (uint64_t mbs = 1; mbs <= sp->max_mbs; mbs *= 2)
        nmbs++;
    /* per skeleton: a unit and at most 18 (sharding, recomputation) x nmbs estimates */
    if (!llmmem__mul(&w, 18 * nmbs, pmax + ESTIMATE_WORK) || !llmmem__add(&w, w, 1) ||
        !llmmem__mul(&w, w, sp->expert_count * sp->max_v) || !llmmem__add(&w, w, 1) || !llmmem__mul(&w, w, np) ||
        !llmmem__add(&w, w, 1) || !llmmem__mul(&w, w, nt * nc))
        return UINT64_MAX;
    return w;
}

static void plan_clear(llmmem_plan *plan)
{
    plan->count = 0;
    plan->heap = 0;
    plan->work = 0;
    plan->candidates = 0;
    plan->fitting = 0;
    plan->ran = 0;
    plan->devices = 0;
}

/* What llmmem_plan_to_json names: the inputs of a run that succeeded. */
static void plan_done(llmmem_plan *plan, const llmmem_model *m, const llmmem_hardware *hw, uint64_t devices)
{
    plan->ran = 1;
    plan->devices = devices;
    llmmem__copy_name(plan->model_name, m->name);
    llmmem__copy_name(plan->hardware_name, hw->name);
}

llmmem_status llmmem_plan_run(llmmem_plan *plan, const llmmem_model *model, const llmmem_hardware *hw,
                              const llmmem_strategy *base, uint64_t devices)
{
    LLMMEM_REQUIRE(plan);
    plan_clear(plan);
    CHECK_INPUTS(model, hw, base);
    llmmem_status st;
    if (devices == 0 || devices > LLMMEM_PLAN_MAX_DEVICES)
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "plan_run: devices (%llu) must be 1 to %d",
                            (unsigned long long)devices, LLMMEM_PLAN_MAX_DEVICES);
    space *sp = calloc(1, sizeof *sp);
    llmmem__cost_cache *cache = calloc(1, sizeof *cache);
    llmmem_report *r = NULL;
    if (!sp || !cache) {
        st = llmmem__fail(LLMMEM_ERR_NO_MEMORY, "plan_run: out of memory");
        goto done;
    }
    if ((st = space_init(sp, model, hw, base, "plan_run", devices, plan->work_limit)) != LLMMEM_OK)
        goto done;
    sp->global_batch = global_batch(sp, devices);
    sp->cache = cache;
    sp->device_count = divisors(sp->device_divisors, MAX_DIVISORS, devices);
    if (sp->device_count == SIZE_MAX) { /* not with devices bounded by 2^24: at most 504 */
        st = llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "plan_run: devices (%llu) has more than %d divisors",
                          (unsigned long long)devices, MAX_DIVISORS);
        goto done;
    }
    /* a space whose least work is beyond the limit is refused before any estimate */
    if (most_work(sp) > sp->work_limit && (st = walk(plan, sp, NULL, NULL, 1)) != LLMMEM_OK)
        goto done;
    sp->work = 0;
    if ((st = llmmem_report_new(&r)) != LLMMEM_OK)
        goto done;
    plan->base = *base;
    llmmem_strategy s = *base;
    st = walk(plan, sp, &s, r, 0);
    if (st == LLMMEM_OK)
        st = no_candidate(sp);
    if (st == LLMMEM_OK && plan->count > 1) /* qsort may not be given NULL, even for no items */
        qsort(plan->items, plan->count, sizeof *plan->items, compare);
    if (st == LLMMEM_OK)
        plan_done(plan, model, hw, devices);
done:
    if (st)
        plan_clear(plan);
    if (sp)
        plan->work = sp->work;
    llmmem_report_free(r);
    free(cache);
    free(sp);
    return st;
}

/* ---- the fewest devices ----------------------------------------------------------------------- */

/*
 * The fewest devices n <= max_devices for which llmmem_plan_run(n) keeps a layout, found without
 * running the planner on every n. A layout the planner tries on n devices is a kind (t, p, c, e,
 * v, sharding, recomputation) with d = n / (t p c), at its smallest micro-batch (a larger one
 * fits only if that one does). For a fixed kind, the estimate does not grow with d once d x c >= 2:
 * the state sharded over d x c (ZeRO, FSDP, the distributed optimizer) and the experts' over
 * t d c / (e et) shrink, the data-parallel buffers are the same for every d x c >= 2, and the
 * micro-batches in flight (num_micro_batches = global_batch_size / d) do not grow. So for each
 * (t, p, c, e, v) the smallest d that fits is found by trying the largest valid d and then a
 * binary search over the valid ones, and n = t p c d; d x c = 1 (no data-parallel buffers: it can
 * fit where d = 2 does not) is tried on its own. The valid d are the multiples of what e (and a
 * set expert_tensor_parallel) need, dividing global_batch_size when it is set, and at most
 * (best n so far - 1) / (t p c), so a kind that cannot beat the best is not tried.
 *
 * Where the argument does not hold, every valid d is tried in order instead: with offloading and
 * a host or NVMe capacity on a pipeline, the host bytes checked are those of the stage with the
 * most device bytes, which can change with d; with a global batch so large that num_micro_batches
 * x virtual_pipeline can wrap; with a model so large that the data-parallel traffic, which grows
 * with d, can exceed 64 bits and fail the estimate.
 */
typedef struct search {
    space sp;
    llmmem_strategy s;
    llmmem_report *r;
    uint64_t *batch_divisors; /* divisors of global_batch_size up to max_devices, ascending (when set) */
    size_t batch_count;
    uint64_t *valid;          /* the valid d of one kind */
    int offload_checked;      /* offloading with a host or NVMe capacity */
    int huge_model;           /* data-parallel traffic can exceed 64 bits */
} search;

/* Whether layouts of kind *l with d data-parallel ranks, sharding sh and recomputation rc fit
 * (at micro-batch 1, as the planner tries them first). */
static llmmem_status fits_at(int *fit, search *q, layout l, uint64_t d, unsigned sh, unsigned rc)
{
    space *sp = &q->sp;
    if (!charge(sp, l.p + ESTIMATE_WORK))
        return over_limit(sp, 1);
    l.d = (uint32_t)d;
    l.sharding = (uint8_t)sh;
    l.recompute = (uint8_t)rc;
    l.mbs = 1;
    l.micro = global_batch(sp, (uint64_t)l.t * l.p * l.c * d) / d;
    apply(&q->s, &l);
    *fit = estimate(q->r, sp, &q->s) == LLMMEM_OK && llmmem_report_fits(q->r);
    return LLMMEM_OK;
}

/* Whether any of the n (sharding, recomputation) pairs fits at d. */
static llmmem_status any_fits(int *fit, search *q, const layout *l, uint64_t d, const uint8_t (*pairs)[2],
                              size_t n)
{
    *fit = 0;
    for (size_t i = 0; i < n && !*fit; i++) {
        llmmem_status st = fits_at(fit, q, *l, d, pairs[i][0], pairs[i][1]);
        if (st)
            return st;
    }
    return LLMMEM_OK;
}

/* The smallest valid d (a multiple of `step`, at most dmax) for which kind *l fits; 0 if none. */
static llmmem_status smallest_d(uint64_t *out, search *q, const layout *l, uint64_t step, uint64_t dmax)
{
    space *sp = &q->sp;
    *out = 0;
    /* the valid d: every multiple of step, or those dividing the global batch */
    size_t k;
    if (!sp->batch_key) {
        k = (size_t)(dmax / step);
    } else {
        if (!charge(sp, 1 + q->batch_count / 64))
            return over_limit(sp, 1);
        k = 0;
        for (size_t i = 0; i < q->batch_count && q->batch_divisors[i] <= dmax; i++)
            if (q->batch_divisors[i] % step == 0)
                q->valid[k++] = q->batch_divisors[i];
    }
#define VALID(i) (sp->batch_key ? q->valid[i] : step * ((uint64_t)(i) + 1))
    if (k == 0)
        return LLMMEM_OK;
    llmmem_status st;
    int fit;
    size_t lo = 0;
    if (l->c == 1 && VALID(0) == 1) {
        /* one data rank: no sharding and no data-parallel buffers */
        lo = 1;
        for (unsigned rc = 0; rc < 3 && (sp->shardings & 1u); rc++) {
            if (!(sp->recomputes & (1u << rc)))
                continue;
            if ((st = fits_at(&fit, q, *l, 1, 0, rc)) != LLMMEM_OK)
                return st;
            if (fit) {
                *out = 1;
                return LLMMEM_OK;
            }
        }
        if (k == 1)
            return LLMMEM_OK;
    }
    uint8_t pairs[18][2];
    size_t n = 0;
    for (unsigned sh = 0; sh < 6; sh++)
        for (unsigned rc = 0; rc < 3; rc++)
            if ((sp->shardings & (1u << sh)) && (sp->recomputes & (1u << rc))) {
                pairs[n][0] = (uint8_t)sh;
                pairs[n][1] = (uint8_t)rc;
                n++;
            }
    const int ordered = !(q->offload_checked && l->p > 1) && !(q->huge_model) &&
                        !(l->v > 1 && sp->batch_key > UINT64_MAX / sp->max_v);
    if (!ordered) {
        for (size_t i = lo; i < k; i++) {
            if ((st = any_fits(&fit, q, l, VALID(i), (const uint8_t(*)[2])pairs, n)) != LLMMEM_OK)
                return st;
            if (fit) {
                *out = VALID(i);
                return LLMMEM_OK;
            }
        }
        return LLMMEM_OK;
    }
    /* the pairs that fit at the largest d: no other fits at a smaller one */
    size_t alive = 0;
    for (size_t i = 0; i < n; i++) {
        if ((st = fits_at(&fit, q, *l, VALID(k - 1), pairs[i][0], pairs[i][1])) != LLMMEM_OK)
            return st;
        if (fit) {
            pairs[alive][0] = pairs[i][0];
            pairs[alive][1] = pairs[i][1];
            alive++;
        }
    }
    if (!alive)
        return LLMMEM_OK;
    size_t hi = k - 1; /* fits at VALID(hi); not below VALID(lo) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((st = any_fits(&fit, q, l, VALID(mid), (const uint8_t(*)[2])pairs, alive)) != LLMMEM_OK)
            return st;
        if (fit)
            hi = mid;
        else
            lo = mid + 1;
    }
    *out = VALID(hi);
#undef VALID
    return LLMMEM_OK;
}

static int ascending(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

/* The divisors of x up to `most`, ascending, in a new array. */
static llmmem_status batch_divisors(search *q, uint64_t x, uint64_t most)
{
    space *sp = &q->sp;
    uint64_t primes[64], powers[64];
    size_t np = 0;
    uint64_t rest = x;
    /* trial division by every candidate up to min(most, sqrt(rest)): a prime factor above `most`
     * divides no d that is at most `most` */
    uint64_t tried = 0;
    for (uint64_t f = 2; f <= most && f <= rest / f; f += f == 2 ? 1 : 2) {
        if ((++tried & 63) == 0 && !charge(sp, 1))
            return over_limit(sp, 1);
        if (rest % f)
            continue;
        uint64_t e = 0;
        while (rest % f == 0) {
            rest /= f;
            e++;
        }
        primes[np] = f;
        powers[np++] = e;
    }
    if (rest > 1 && rest <= most) {
        primes[np] = rest;
        powers[np++] = 1;
    }
    size_t cap = 1;
    for (size_t i = 0; i < np; i++) { /* at most (e + 1) per prime, and no more than `most` values */
        uint64_t e = powers[i] + 1;
        cap = cap > (size_t)most / e ? (size_t)most : cap * (size_t)e;
    }
    q->batch_divisors = malloc(cap * sizeof *q->batch_divisors);
    q->valid = malloc(cap * sizeof *q->valid);
    if (!q->batch_divisors || !q->valid)
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "%s: out of memory for %zu divisors of global_batch_size",
                            sp->who, cap);
    size_t n = 1;
    q->batch_divisors[0] = 1;
    for (size_t i = 0; i < np; i++) {
        size_t before = n;
        for (size_t j = 0; j < before; j++) {
            uint64_t d = q->batch_divisors[j];
            for (uint64_t e = 0; e < powers[i] && d <= most / primes[i]; e++) {
                d *= primes[i];
                q->batch_divisors[n++] = d;
            }
        }
    }
    q->batch_count = n;
    if (!charge(sp, 1 + n / 8))
        return over_limit(sp, 1);
    qsort(q->batch_divisors, n, sizeof *q->batch_divisors, ascending);
    return LLMMEM_OK;
}

static llmmem_status fewest_devices(uint64_t *out, search *q, const llmmem_strategy *base)
{
    space *sp = &q->sp;
    const uint64_t most = sp->devices;
    uint64_t best = most + 1;
    uint64_t ts[MAX_DIVISORS], cs[MAX_DIVISORS];
    size_t nt = 0, nc = 0;
    for (uint64_t t = 1; t <= sp->max_t && t <= most && t <= sp->heads; t++)
        if (sp->heads % t == 0 && nt < MAX_DIVISORS)
            ts[nt++] = t;
        else if (sp->heads % t == 0) /* not with num_attention_heads bounded by 2^20 */
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "%s: num_attention_heads (%llu) has more than %d divisors",
                                sp->who, (unsigned long long)sp->heads, MAX_DIVISORS);
    for (uint64_t c = 1; c <= sp->max_c && c <= most && c <= sp->seq; c++)
        if (sp->seq % c == 0 && nc < MAX_DIVISORS)
            cs[nc++] = c;
        else if (sp->seq % c == 0) /* not with sequence_length bounded by 2^24 */
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "%s: sequence_length (%llu) has more than %d divisors",
                                sp->who, (unsigned long long)sp->seq, MAX_DIVISORS);
    const uint64_t pmax = sp->max_p < sp->layers ? sp->max_p : sp->layers;
    const uint64_t et_key = sp->et;
    llmmem_status st;
    q->s = *base;
    for (size_t ti = 0; ti < nt; ti++) {
        const uint64_t t = ts[ti], et = et_key ? et_key : t;
        for (size_t ci = 0; ci < nc && t * cs[ci] < best; ci++) {
            const uint64_t c = cs[ci];
            if (!charge(sp, 1))
                return over_limit(sp, 1);
            for (uint64_t p = 1; p <= pmax && p <= LLMMEM_MAX_STAGES && t * c * p < best; p++) {
                const uint64_t tcp = t * c * p;
                if (!charge(sp, 1))
                    return over_limit(sp, 1);
                for (size_t ei = 0; ei < sp->expert_count && tcp < best; ei++) {
                    const uint64_t e = sp->expert_divisors[ei];
                    if (!charge(sp, 1))
                        return over_limit(sp, 1);
                    /* d x c divisible by e (the planner's expert groups) and t d c by e x et (the
                     * estimate's): d a multiple of both quotients */
                    uint64_t a1 = e / llmmem__gcd(e, c), a2 = e * et / llmmem__gcd(e * et, t * c);
                    uint64_t step = a1 / llmmem__gcd(a1, a2) * a2;
                    for (uint64_t v = 1; v <= sp->max_v && tcp < best; v++) {
                        layout l;
                        if (step > (best - 1) / tcp)
                            break;
                        if (!skeleton(&l, sp, t, p, 1, c, e, v))
                            continue;
                        if (!charge(sp, 1))
                            return over_limit(sp, 1);
                        uint64_t d;
                        if ((st = smallest_d(&d, q, &l, step, (best - 1) / tcp)) != LLMMEM_OK)
                            return st;
                        if (d)
                            best = tcp * d;
                    }
                }
            }
        }
    }
    *out = best <= most ? best : 0;
    return *out ? LLMMEM_OK : no_candidate(sp);
}

/* The fewest devices, searched within `work_limit` (the inputs checked); the plan, when given, then
 * holds their layouts. */
static llmmem_status min_devices(uint64_t *out, llmmem_plan *plan, const llmmem_model *m, const llmmem_hardware *hw,
                                 const llmmem_strategy *base, uint64_t max_devices, uint64_t work_limit,
                                 const char *who)
{
    llmmem_status st;
    if (max_devices == 0 || max_devices > LLMMEM_PLAN_MAX_DEVICES)
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "%s: max_devices (%llu) must be 1 to %d", who,
                            (unsigned long long)max_devices, LLMMEM_PLAN_MAX_DEVICES);
    search *q = calloc(1, sizeof *q);
    llmmem__cost_cache *cache = calloc(1, sizeof *cache);
    if (!q || !cache) {
        free(q);
        free(cache);
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "%s: out of memory", who);
    }
    if ((st = space_init(&q->sp, m, hw, base, who, max_devices, work_limit)) != LLMMEM_OK)
        goto done;
    q->sp.cache = cache;
    const int offload = llmmem__get_int(&base->s, LLMMEM_KEY_OFFLOAD_OPTIMIZER) != LLMMEM_OFFLOAD_NONE ||
                            llmmem__get_int(&base->s, LLMMEM_KEY_OFFLOAD_PARAM) != LLMMEM_OFFLOAD_NONE;
    q->offload_checked = offload && (llmmem__get_int(&hw->s, LLMMEM_KEY_HOST_MEMORY_BYTES) != 0 ||
                                     llmmem__get_int(&hw->s, LLMMEM_KEY_NVME_BYTES) != 0);
    /* a rank's gradients in 4-byte elements, sent 3 times, within 64 bits (a tied embedding twice) */
    q->huge_model = m->inv.total > UINT64_MAX / 24;
    if (q->sp.batch_key && (st = batch_divisors(q, q->sp.batch_key, max_devices)) != LLMMEM_OK)
        goto done;
    if ((st = llmmem_report_new(&q->r)) != LLMMEM_OK)
        goto done;
    if ((st = fewest_devices(out, q, base)) != LLMMEM_OK)
        goto done;
    if (plan) {
        if (*out)
            st = llmmem_plan_run(plan, m, hw, base, *out);
        else {
            plan_clear(plan);
            plan->base = *base;
            plan_done(plan, m, hw, 0);
        }
    }
done:
    if (st)
        *out = 0;
    if (plan) {
        uint64_t run = plan->work;
        plan->work = q->sp.work > UINT64_MAX - run ? UINT64_MAX : q->sp.work + run;
    }
    llmmem_report_free(q->r);
    free(q->batch_divisors);
    free(q->valid);
    free(cache);
    free(q);
    return st;
}

llmmem_status llmmem_solve_min_devices(uint64_t *out, const llmmem_model *model, const llmmem_hardware *hw,
                                       const llmmem_strategy *base, uint64_t max_devices)
{
    LLMMEM_REQUIRE(out);
    *out = 0;
    CHECK_INPUTS(model, hw, base);
    return min_devices(out, NULL, model, hw, base, max_devices, LLMMEM_PLAN_DEFAULT_WORK_LIMIT, "solve_min_devices");
}

llmmem_status llmmem_plan_min_devices(uint64_t *out, llmmem_plan *plan, const llmmem_model *model,
                                      const llmmem_hardware *hw, const llmmem_strategy *base, uint64_t max_devices)
{
    LLMMEM_REQUIRE(out);
    *out = 0;
    LLMMEM_REQUIRE(plan);
    plan_clear(plan);
    CHECK_INPUTS(model, hw, base);
    return min_devices(out, plan, model, hw, base, max_devices, plan->work_limit, "plan_min_devices");
}
