/* Capacity solvers and the planner against brute force: every answer is recomputed here by trying
 * every value (or every layout) with llmmem_estimate, and the estimate's monotonicity, which the
 * solvers' searches rely on, is checked over the ranges they search. */
#include "readers/json.h"
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/job.h"
#include "unit.h"

typedef struct job {
    llmmem_model *m;
    llmmem_hardware *hw;
    llmmem_strategy *s;
    llmmem_report *r;
} job;

static job make(const char *model, const char *gpu)
{
    job j;
    ck_assert_ok(llmmem_model_from_preset(&j.m, model));
    ck_assert_ok(llmmem_hardware_from_preset(&j.hw, gpu));
    ck_assert_ok(llmmem_strategy_new(&j.s));
    ck_assert_ok(llmmem_report_new(&j.r));
    return j;
}

static void set(job *j, const char *key, const char *value)
{
    ck_assert_ok(llmmem_strategy_set_text(j->s, key, value));
}

static void done(job *j)
{
    llmmem_report_free(j->r);
    llmmem_strategy_free(j->s);
    llmmem_hardware_free(j->hw);
    llmmem_model_free(j->m);
}

static int fits_with(job *j, llmmem_key key, uint64_t value)
{
    ck_assert_ok(llmmem_strategy_set_int(j->s, key, (int64_t)value));
    return llmmem_estimate(j->r, j->m, j->hw, j->s) == LLMMEM_OK && llmmem_report_fits(j->r);
}

static uint64_t total_with(job *j, llmmem_key key, uint64_t value)
{
    ck_assert_ok(llmmem_strategy_set_int(j->s, key, (int64_t)value));
    ck_assert_ok(llmmem_estimate(j->r, j->m, j->hw, j->s));
    return llmmem_report_total_bytes(j->r);
}

/* Largest micro-batch: the solver against a scan from 1 up, for each recomputation mode. */
START_TEST(max_micro_batch_is_brute_force)
{
    static const char *const modes[] = {"none", "selective", "full"};
    job j = make("llama-3.2-1b", "a100-sxm-40gb");
    set(&j, "mode", "training");
    set(&j, "sequence_length", "2048");
    for (int i = 0; i < 3; i++) {
        set(&j, "recompute", modes[i]);
        set(&j, "micro_batch_size", "1");
        uint64_t solved;
        ck_assert_ok(llmmem_solve_max_micro_batch(&solved, j.m, j.hw, j.s));
        uint64_t scan = 0, previous = 0;
        for (uint64_t b = 1; b <= 512; b++) {
            uint64_t total = total_with(&j, LLMMEM_KEY_MICRO_BATCH_SIZE, b);
            ck_assert_uint_ge(total, previous); /* monotone in the micro-batch */
            previous = total;
            if (llmmem_report_fits(j.r))
                scan = b;
        }
        ck_assert_uint_lt(scan, 512); /* the scan reached past the answer */
        ck_assert_uint_gt(scan, 0);
        ck_assert_uint_eq(solved, scan);
    }
    done(&j);
}
END_TEST

/* Longest sequence: a small model on a device made small enough to scan every length, and with
 * context parallelism (multiples of c only). */
START_TEST(max_sequence_is_brute_force)
{
    job j = make("pythia-70m", "h100-sxm-80gb");
    set(&j, "mode", "training");
    /* memory, not the 2048 positions Pythia was trained with, is what stops it here */
    ck_assert_ok(llmmem_model_set_int(j.m, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, 1 << 20));
    ck_assert_ok(llmmem_hardware_set_int(j.hw, LLMMEM_KEY_MEMORY_BYTES, 2LL << 30));
    ck_assert_ok(llmmem_hardware_set_int(j.hw, LLMMEM_KEY_RUNTIME_OVERHEAD_BYTES, 0));
    uint64_t solved;
    ck_assert_ok(llmmem_solve_max_sequence_length(&solved, j.m, j.hw, j.s));
    uint64_t scan = 0, previous = 0;
    for (uint64_t s = 1; s <= 40000; s++) {
        uint64_t total = total_with(&j, LLMMEM_KEY_SEQUENCE_LENGTH, s);
        ck_assert_uint_ge(total, previous);
        previous = total;
        if (llmmem_report_fits(j.r))
            scan = s;
    }
    ck_assert_uint_lt(scan, 40000);
    ck_assert_uint_eq(solved, scan);
    /* the model's positions cap the answer: 2048 for a device with room for more */
    ck_assert_ok(llmmem_model_set_int(j.m, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, 2048));
    ck_assert_ok(llmmem_hardware_set_int(j.hw, LLMMEM_KEY_MEMORY_BYTES, 80LL << 30));
    ck_assert_ok(llmmem_solve_max_sequence_length(&solved, j.m, j.hw, j.s));
    ck_assert_uint_eq(solved, 2048);
    /* nothing fits: 0 */
    ck_assert_ok(llmmem_hardware_set_int(j.hw, LLMMEM_KEY_MEMORY_BYTES, 1 << 20));
    ck_assert_ok(llmmem_solve_max_sequence_length(&solved, j.m, j.hw, j.s));
    ck_assert_uint_eq(solved, 0);
    ck_assert_ok(llmmem_solve_max_micro_batch(&solved, j.m, j.hw, j.s));
    ck_assert_uint_eq(solved, 0);
    /* a job that cannot be estimated is its error, not an answer of 0 */
    set(&j, "tensor_parallel", "3");
    ck_assert_status(llmmem_solve_max_micro_batch(&solved, j.m, j.hw, j.s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_status(llmmem_solve_max_sequence_length(&solved, j.m, j.hw, j.s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_uint_eq(solved, 0);
    done(&j);
}
END_TEST

/* The least compressed weight format: the first of the documented ladder that fits, found by
 * trying each. Llama-3.1-70B inference on one 80 GB device: bf16 (141 GB) does not fit. */
START_TEST(weight_format_is_first_that_fits)
{
    static const llmmem_format ladder[] = {
        LLMMEM_FORMAT_BF16,      LLMMEM_FORMAT_FP8_E4M3, LLMMEM_FORMAT_BNB_INT8, LLMMEM_FORMAT_Q8_0,
        LLMMEM_FORMAT_GPTQ_INT4, LLMMEM_FORMAT_AWQ_INT4, LLMMEM_FORMAT_BNB_NF4,  LLMMEM_FORMAT_Q4_K,
        LLMMEM_FORMAT_Q3_K,      LLMMEM_FORMAT_Q2_K,
    };
    static const char *const gpus[] = {"h100-sxm-80gb", "a100-sxm-40gb", "rtx-4090", "l4"};
    for (int g = 0; g < 4; g++) {
        job j = make("llama-3.1-70b", gpus[g]);
        llmmem_format solved = LLMMEM_FORMAT_AUTO, first = LLMMEM_FORMAT_AUTO;
        llmmem_status st = llmmem_solve_weight_format(&solved, j.m, j.hw, j.s);
        for (size_t i = 0; i < sizeof ladder / sizeof ladder[0] && first == LLMMEM_FORMAT_AUTO; i++)
            if (fits_with(&j, LLMMEM_KEY_WEIGHT_FORMAT, (uint64_t)ladder[i]))
                first = ladder[i];
        if (first == LLMMEM_FORMAT_AUTO) {
            ck_assert_int_eq(st, LLMMEM_ERR_NOT_FOUND);
        } else {
            ck_assert_ok(st);
            ck_assert_int_eq(solved, first);
        }
        if (g == 0)
            ck_assert_int_ne(first, LLMMEM_FORMAT_BF16);
        done(&j);
    }
}
END_TEST

/* ---- the planner ------------------------------------------------------------------------------ */

typedef struct tuple {
    int64_t t, p, d, c, e, v, zero, fsdp, dist, rc, mbs;
} tuple;

static tuple read_tuple(const llmmem_strategy *s)
{
    tuple x;
    ck_assert_ok(llmmem_strategy_get_int(&x.t, s, LLMMEM_KEY_TENSOR_PARALLEL));
    ck_assert_ok(llmmem_strategy_get_int(&x.p, s, LLMMEM_KEY_PIPELINE_PARALLEL));
    ck_assert_ok(llmmem_strategy_get_int(&x.d, s, LLMMEM_KEY_DATA_PARALLEL));
    ck_assert_ok(llmmem_strategy_get_int(&x.c, s, LLMMEM_KEY_CONTEXT_PARALLEL));
    ck_assert_ok(llmmem_strategy_get_int(&x.e, s, LLMMEM_KEY_EXPERT_PARALLEL));
    ck_assert_ok(llmmem_strategy_get_int(&x.v, s, LLMMEM_KEY_VIRTUAL_PIPELINE));
    ck_assert_ok(llmmem_strategy_get_int(&x.zero, s, LLMMEM_KEY_ZERO_STAGE));
    ck_assert_ok(llmmem_strategy_get_int(&x.fsdp, s, LLMMEM_KEY_FSDP));
    ck_assert_ok(llmmem_strategy_get_int(&x.dist, s, LLMMEM_KEY_DISTRIBUTED_OPTIMIZER));
    ck_assert_ok(llmmem_strategy_get_int(&x.rc, s, LLMMEM_KEY_RECOMPUTE));
    ck_assert_ok(llmmem_strategy_get_int(&x.mbs, s, LLMMEM_KEY_MICRO_BATCH_SIZE));
    return x;
}

static int same(const tuple *a, const tuple *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

/* The index-th layout of a plan: its keys (as llmmem_plan_get sets them), cost and bytes. */
static tuple layout_at(const llmmem_plan *plan, size_t i, double *cost, uint64_t *bytes)
{
    llmmem_strategy *s;
    ck_assert_ok(llmmem_plan_get(&s, plan, i));
    ck_assert_ok(llmmem_plan_cost(cost, bytes, plan, i));
    tuple x = read_tuple(s);
    llmmem_strategy_free(s);
    return x;
}

/* Brute force over the same space as written in llmmem.h: every t, p, d, c, e, v whose product is
 * the device count, every sharding (sharded ones only with more than one data rank), every
 * recomputation, every power-of-two micro-batch dividing the global batch over d; a layout is in
 * the feasible set when its estimate succeeds and fits. */
START_TEST(planner_feasible_set_is_brute_force)
{
    static const int64_t zero[] = {0, 1, 2, 3, 0, 0}, fsdp[] = {0, 0, 0, 0, 1, 0}, dist[] = {0, 0, 0, 0, 0, 1};
    job j = make("mixtral-8x7b", "a100-sxm-80gb");
    set(&j, "mode", "training");
    set(&j, "sequence_length", "4096");
    set(&j, "global_batch_size", "16");
    set(&j, "plan_max_context_parallel", "2");
    set(&j, "plan_max_micro_batch_size", "4");
    const uint64_t devices = 16;
    llmmem_plan *plan;
    ck_assert_ok(llmmem_plan_new(&plan));
    ck_assert_ok(llmmem_plan_set_limit(plan, 0)); /* every layout that fits */
    ck_assert_ok(llmmem_plan_run(plan, j.m, j.hw, j.s, devices));
    size_t n = llmmem_plan_count(plan);
    ck_assert_uint_eq(llmmem_plan_fitting(plan), n);
    ck_assert_uint_gt(n, 0);

    tuple *planned = calloc(n, sizeof *planned);
    ck_assert_ptr_nonnull(planned);
    for (size_t i = 0; i < n; i++) {
        llmmem_strategy *got;
        ck_assert_ok(llmmem_plan_get(&got, plan, i));
        planned[i] = read_tuple(got);
        llmmem_strategy_free(got);
    }
    size_t found = 0;
    uint64_t tried = 0;
    llmmem_strategy *s;
    ck_assert_ok(llmmem_strategy_clone(&s, j.s));
    for (int64_t t = 1; t <= 8; t++)
        for (int64_t c = 1; c <= 2; c++)
            for (int64_t p = 1; p <= 32; p++)
                for (int64_t d = 1; d <= 16; d++) {
                    if ((uint64_t)(t * c * p * d) != devices)
                        continue;
                    for (int64_t e = 1; e <= 8; e++)
                        for (int64_t v = 1; v <= 2; v++)
                            for (int sh = 0; sh < 6; sh++)
                                for (int64_t rc = 0; rc < 3; rc++)
                                    for (int64_t mbs = 1; mbs <= 4; mbs *= 2) {
                                        if (sh > 0 && d * c == 1)
                                            continue;
                                        if (16 % (mbs * d))
                                            continue;
                                        tuple want = {t, p, d, c, e, v, zero[sh], fsdp[sh], dist[sh], rc, mbs};
                                        ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_TENSOR_PARALLEL, t));
                                        ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_PIPELINE_PARALLEL, p));
                                        ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_DATA_PARALLEL, d));
                                        ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_CONTEXT_PARALLEL, c));
                                        ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_EXPERT_PARALLEL, e));
                                        ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_VIRTUAL_PIPELINE, v));
                                        ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_PIPELINE_SCHEDULE,
                                                                             v > 1 ? LLMMEM_SCHEDULE_INTERLEAVED
                                                                                   : LLMMEM_SCHEDULE_1F1B));
                                        ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_SEQUENCE_PARALLEL, t > 1));
                                        ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_ZERO_STAGE, want.zero));
                                        ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_FSDP, want.fsdp));
                                        ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_DISTRIBUTED_OPTIMIZER, want.dist));
                                        ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_RECOMPUTE, rc));
                                        ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MICRO_BATCH_SIZE, mbs));
                                        ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_NUM_MICRO_BATCHES, 16 / (mbs * d)));
                                        if (llmmem_estimate(j.r, j.m, j.hw, s) != LLMMEM_OK)
                                            continue;
                                        tried++;
                                        if (!llmmem_report_fits(j.r))
                                            continue;
                                        /* in the plan, exactly once */
                                        int hits = 0;
                                        for (size_t i = 0; i < n; i++)
                                            hits += same(&planned[i], &want);
                                        ck_assert_msg(hits == 1, "t%lld p%lld d%lld c%lld e%lld v%lld sh%d rc%lld mbs%lld "
                                                      "fits but the plan has it %d times",
                                                      (long long)t, (long long)p, (long long)d, (long long)c,
                                                      (long long)e, (long long)v, sh, (long long)rc, (long long)mbs,
                                                      hits);
                                        found++;
                                    }
                }
    ck_assert_uint_eq(found, n);
    ck_assert_uint_ge(tried, llmmem_plan_candidates(plan));

    /* each returned strategy estimates to the bytes the plan ranked it by (num_micro_batches
     * included: global_batch_size / (micro_batch_size x data_parallel)) */
    for (size_t i = 0; i < n; i++) {
        llmmem_strategy *got;
        double cost;
        uint64_t bytes;
        int64_t micro;
        ck_assert_ok(llmmem_plan_get(&got, plan, i));
        ck_assert_ok(llmmem_plan_cost(&cost, &bytes, plan, i));
        ck_assert_ok(llmmem_estimate(j.r, j.m, j.hw, got));
        ck_assert_uint_eq(llmmem_report_total_bytes(j.r), bytes);
        ck_assert_ok(llmmem_strategy_get_int(&micro, got, LLMMEM_KEY_NUM_MICRO_BATCHES));
        ck_assert_int_eq(micro, 16 / (planned[i].mbs * planned[i].d));
        llmmem_strategy_free(got);
    }

    /* ordered by cost, ties by the most loaded device's bytes */
    for (size_t i = 1; i < n; i++) {
        double c0, c1;
        uint64_t b0, b1;
        ck_assert_ok(llmmem_plan_cost(&c0, &b0, plan, i - 1));
        ck_assert_ok(llmmem_plan_cost(&c1, &b1, plan, i));
        ck_assert(c0 < c1 || (c0 == c1 && b0 <= b1));
    }
    llmmem_strategy *bad = (llmmem_strategy *)&bad;
    ck_assert_status(llmmem_plan_get(&bad, plan, n), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_ptr_null(bad);
    free(planned);
    llmmem_strategy_free(s);
    llmmem_plan_free(plan);
    done(&j);
}
END_TEST

/* Every layout the planner keeps estimates, through llmmem_estimate's full walk of every pipeline stage,
 * to the bytes the plan ranked it by, for models whose stages differ: DeepSeek-V3's first three dense
 * layers (first_k_dense_replace) and Llama 4 Maverick's dense and MoE layers in turn
 * (interleave_moe_layer_step 2) put a lighter or different stage before the others, so the most loaded
 * stage is not always the first; the planner evaluates only stages that can be the most loaded.
 * Qwen3-Next's three Gated DeltaNet layers before each attention layer give middle stages of different
 * kind counts wherever a stage's layers are not a multiple of four: more distinct stages than the
 * three whose state the planner keeps from one candidate to the next (parallel.h llmmem__state_cache). */
START_TEST(planner_bytes_are_the_full_estimate)
{
    static const struct {
        const char *model;
        uint64_t devices;
    } cases[] = {{"deepseek-v3", 256}, {"llama-4-maverick-17b-128e", 128}, {"qwen3-next-80b-a3b", 96}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        job j = make(cases[k].model, "h100-sxm-80gb");
        set(&j, "mode", "training");
        set(&j, "sequence_length", "4096");
        set(&j, "global_batch_size", "64");
        llmmem_plan *plan;
        ck_assert_ok(llmmem_plan_new(&plan));
        ck_assert_ok(llmmem_plan_set_limit(plan, 0));
        ck_assert_ok(llmmem_plan_run(plan, j.m, j.hw, j.s, cases[k].devices));
        size_t n = llmmem_plan_count(plan);
        ck_assert_uint_gt(n, 0);
        size_t staged = 0;
        for (size_t i = 0; i < n; i++) {
            llmmem_strategy *got;
            double cost;
            uint64_t bytes;
            int64_t p;
            ck_assert_ok(llmmem_plan_get(&got, plan, i));
            ck_assert_ok(llmmem_plan_cost(&cost, &bytes, plan, i));
            ck_assert_ok(llmmem_estimate(j.r, j.m, j.hw, got));
            ck_assert_msg(llmmem_report_total_bytes(j.r) == bytes, "%s layout %zu: estimate %llu, plan %llu",
                          cases[k].model, i, (unsigned long long)llmmem_report_total_bytes(j.r),
                          (unsigned long long)bytes);
            ck_assert_ok(llmmem_strategy_get_int(&p, got, LLMMEM_KEY_PIPELINE_PARALLEL));
            staged += p > 2;
            llmmem_strategy_free(got);
        }
        ck_assert_uint_gt(staged, 0); /* layouts with middle stages were compared */
        llmmem_plan_free(plan);
        done(&j);
    }
}
END_TEST

/* Fewest devices: the first n from 1 whose plan holds a layout, by running the planner on each. */
START_TEST(min_devices_is_first_feasible)
{
    job j = make("llama-3.1-70b", "h100-sxm-80gb");
    set(&j, "mode", "training");
    set(&j, "sequence_length", "4096");
    set(&j, "global_batch_size", "64");
    uint64_t solved;
    ck_assert_ok(llmmem_solve_min_devices(&solved, j.m, j.hw, j.s, 64));
    ck_assert_uint_gt(solved, 1);
    llmmem_plan *plan;
    ck_assert_ok(llmmem_plan_new(&plan));
    for (uint64_t n = 1; n < solved; n++) {
        ck_assert_ok(llmmem_plan_run(plan, j.m, j.hw, j.s, n));
        ck_assert_uint_eq(llmmem_plan_count(plan), 0);
    }
    ck_assert_ok(llmmem_plan_run(plan, j.m, j.hw, j.s, solved));
    ck_assert_uint_gt(llmmem_plan_count(plan), 0);
    ck_assert_status(llmmem_plan_run(plan, j.m, j.hw, j.s, 0), LLMMEM_ERR_OUT_OF_RANGE);
    llmmem_plan_free(plan);
    done(&j);
}
END_TEST

/* A model whose training the estimate refuses (jamba's Mamba-1 layers: activations.c refuses their saved
 * tensors) has no layout the planner can estimate: the planner and the fewest-devices search say why,
 * instead of answering that no layout fits (they returned 0 layouts of 0 candidates, and 0 devices, with
 * LLMMEM_OK before). */
START_TEST(planner_says_why_no_candidate_was_estimated)
{
    job j = make("jamba-1.5-mini", "h100-sxm-80gb");
    set(&j, "mode", "training");
    llmmem_report *r;
    ck_assert_ok(llmmem_report_new(&r));
    ck_assert_status(llmmem_estimate(r, j.m, j.hw, j.s), LLMMEM_ERR_UNSUPPORTED);
    char why[512];
    snprintf(why, sizeof why, "%s", llmmem_last_message());
    llmmem_report_free(r);
    llmmem_plan *plan;
    ck_assert_ok(llmmem_plan_new(&plan));
    ck_assert_status(llmmem_plan_run(plan, j.m, j.hw, j.s, 8), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "plan_run: no layout could be estimated: "));
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), why));
    uint64_t solved = 1;
    ck_assert_status(llmmem_solve_min_devices(&solved, j.m, j.hw, j.s, 64), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_uint_eq(solved, 0);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "solve_min_devices: no layout could be estimated: "));
    /* inference runs: its layouts are estimated */
    set(&j, "mode", "inference");
    ck_assert_ok(llmmem_plan_run(plan, j.m, j.hw, j.s, 8));
    ck_assert_uint_gt(llmmem_plan_candidates(plan), 0);
    llmmem_plan_free(plan);
    done(&j);
}
END_TEST

/* What llmmem_solve_min_devices did before it searched, kept as the oracle: the planner on every
 * device count from 1 up, the first whose plan holds a layout; 0 if none up to `most`. */
static uint64_t scan_min_devices(job *j, uint64_t most)
{
    llmmem_plan *plan;
    uint64_t found = 0;
    ck_assert_ok(llmmem_plan_new(&plan));
    for (uint64_t n = 1; n <= most && !found; n++) {
        ck_assert_ok(llmmem_plan_run(plan, j->m, j->hw, j->s, n));
        if (llmmem_plan_count(plan))
            found = n;
    }
    llmmem_plan_free(plan);
    return found;
}

typedef struct fewest_case {
    const char *model, *gpu;
    const char *sets[8];    /* strategy KEY=VALUE */
    const char *hw_sets[2]; /* hardware KEY=VALUE */
    uint64_t most;
    uint64_t expect;        /* the scan's answer, to know the case tests what it means to (0: none) */
} fewest_case;

/* Jobs whose fewest devices come from different parts of the space: dense and MoE models, global
 * batches of every d (0) or of some (48, 7: few divisors), context and expert parallelism with
 * expert_tensor_parallel 1, interleaving, offloading with a host capacity (the d-by-d path),
 * inference and QLoRA, and jobs that never fit. */
static const fewest_case fewest_cases[] = {
    {"llama-3.1-70b", "h100-sxm-80gb", {"mode=training", "sequence_length=4096"}, {NULL}, 96, 16},
    /* data parallelism alone: one kind decides, at a d that is neither the smallest nor the largest */
    {"llama-3.1-70b", "h100-sxm-80gb",
     {"mode=training", "sequence_length=4096", "plan_max_tensor_parallel=1", "plan_max_pipeline_parallel=1"}, {NULL},
     64, 19},
    {"llama-3.1-70b", "h100-sxm-80gb",
     {"mode=training", "sequence_length=4096", "plan_max_tensor_parallel=1", "plan_max_pipeline_parallel=1",
      "global_batch_size=48"},
     {NULL}, 64, 24},
    {"mixtral-8x7b", "a100-sxm-40gb",
     {"mode=training", "sequence_length=4096", "plan_max_tensor_parallel=2", "plan_max_pipeline_parallel=1",
      "global_batch_size=40"},
     {NULL}, 64, 40},
    {"llama-3.1-70b", "h100-sxm-80gb", {"mode=training", "sequence_length=8192", "global_batch_size=48"}, {NULL}, 64, 16},
    {"llama-3.1-70b", "a100-sxm-40gb",
     {"mode=training", "sequence_length=4096", "global_batch_size=96", "plan_max_context_parallel=4"}, {NULL}, 64, 32},
    {"llama-3.1-70b", "rtx-4090", {"mode=training", "sequence_length=2048", "global_batch_size=7"}, {"devices_per_node=8"}, 96, 56},
    {"mixtral-8x7b", "rtx-4090", {"mode=training", "sequence_length=4096", "expert_tensor_parallel=1"}, {"devices_per_node=8"}, 64, 40},
    {"mixtral-8x7b", "a100-sxm-80gb",
     {"mode=training", "sequence_length=4096", "global_batch_size=16", "plan_max_context_parallel=2"}, {NULL}, 32, 11},
    {"llama-3.1-8b", "l4", {"mode=training", "sequence_length=8192", "plan_max_virtual_pipeline=4"}, {NULL}, 32, 8},
    {"llama-3.1-70b", "h100-sxm-80gb", {"mode=training", "offload_optimizer=cpu", "global_batch_size=64"},
     {"host_memory_bytes=200000000000"}, 48, 26},
    /* host bytes per node are the most loaded stage's, and which stage that is changes with d:
     * t 2, p 3 fits at d 32 (192 devices) and not at d 64, so the largest d does not decide */
    {"llama-3.1-70b", "h100-sxm-80gb",
     {"mode=training", "offload_optimizer=cpu", "global_batch_size=64", "plan_max_tensor_parallel=2",
      "plan_max_pipeline_parallel=3", "plan_shardings=zero1", "plan_recompute=selective", "plan_max_virtual_pipeline=1"},
     {"host_memory_bytes=404400000000"}, 400, 192},
    {"llama-3.1-405b", "rtx-4090", {NULL}, {"devices_per_node=8"}, 48, 34},
    {"llama-3.1-70b", "l4", {"mode=qlora", "sequence_length=8192"}, {NULL}, 16, 4},
    {"llama-3.1-405b", "rtx-4090", {"mode=training", "sequence_length=131072"}, {"devices_per_node=8"}, 24, 0},
    {"llama-3.1-8b", "rtx-4090", {"mode=training", "ddp_gradient_copy=true", "plan_shardings=zero1,fsdp"}, {"devices_per_node=8"}, 24, 8},
};

/* The rtx-4090 cases are servers of eight cards (the preset describes one card in a desktop). */
static job make_case(const fewest_case *c)
{
    job j = make(c->model, c->gpu);
    for (int i = 0; i < 8 && c->sets[i]; i++) {
        char key[64];
        const char *eq = strchr(c->sets[i], '=');
        snprintf(key, sizeof key, "%.*s", (int)(eq - c->sets[i]), c->sets[i]);
        set(&j, key, eq + 1);
    }
    for (int i = 0; i < 2 && c->hw_sets[i]; i++) {
        char key[64];
        const char *eq = strchr(c->hw_sets[i], '=');
        snprintf(key, sizeof key, "%.*s", (int)(eq - c->hw_sets[i]), c->hw_sets[i]);
        ck_assert_ok(llmmem_hardware_set_text(j.hw, key, eq + 1));
    }
    return j;
}

/* The search gives, for every max_devices, exactly what the scan gives. */
START_TEST(min_devices_is_the_scan)
{
    const fewest_case *c = &fewest_cases[_i];
    job j = make_case(c);
    uint64_t first = scan_min_devices(&j, c->most);
    ck_assert_msg(first == c->expect, "%s on %s: the scan gives %llu, the case expects %llu", c->model, c->gpu,
                  (unsigned long long)first, (unsigned long long)c->expect);
    for (uint64_t most = 1; most <= c->most; most++) {
        /* every ceiling up to 24, around the answer, and a sample beyond */
        if (most > 24 && most + 1 != first && most != first && most != first + 1 && most != c->most && most % 11)
            continue;
        uint64_t solved = 99;
        ck_assert_ok(llmmem_solve_min_devices(&solved, j.m, j.hw, j.s, most));
        ck_assert_msg(solved == (first && first <= most ? first : 0), "%s on %s, max_devices %llu: %llu, the scan %llu",
                      c->model, c->gpu, (unsigned long long)most, (unsigned long long)solved,
                      (unsigned long long)first);
    }
    done(&j);
}
END_TEST

/* The planner's layouts of the fewest devices come with the answer. */
START_TEST(plan_min_devices_holds_their_layouts)
{
    const fewest_case *c = &fewest_cases[_i];
    job j = make_case(c);
    llmmem_plan *plan, *direct;
    ck_assert_ok(llmmem_plan_new(&plan));
    ck_assert_ok(llmmem_plan_new(&direct));
    uint64_t fewest = 99, solved;
    ck_assert_ok(llmmem_plan_min_devices(&fewest, plan, j.m, j.hw, j.s, c->most));
    ck_assert_ok(llmmem_solve_min_devices(&solved, j.m, j.hw, j.s, c->most));
    ck_assert_uint_eq(fewest, solved);
    ck_assert_uint_eq(fewest, c->expect);
    if (fewest == 0) {
        ck_assert_uint_eq(llmmem_plan_count(plan), 0);
        ck_assert_uint_eq(llmmem_plan_fitting(plan), 0);
    } else {
        ck_assert_ok(llmmem_plan_run(direct, j.m, j.hw, j.s, fewest));
        ck_assert_uint_gt(llmmem_plan_count(plan), 0);
        ck_assert_uint_eq(llmmem_plan_count(plan), llmmem_plan_count(direct));
        ck_assert_uint_eq(llmmem_plan_fitting(plan), llmmem_plan_fitting(direct));
        ck_assert_uint_eq(llmmem_plan_candidates(plan), llmmem_plan_candidates(direct));
        for (size_t i = 0; i < llmmem_plan_count(plan); i++) {
            double c0, c1;
            uint64_t b0, b1;
            ck_assert_ok(llmmem_plan_cost(&c0, &b0, plan, i));
            ck_assert_ok(llmmem_plan_cost(&c1, &b1, direct, i));
            ck_assert(c0 == c1 && b0 == b1);
        }
    }
    llmmem_plan_free(direct);
    llmmem_plan_free(plan);
    done(&j);
}
END_TEST

/* The search's premise, held over the data-parallel sizes it searches: with every other setting
 * fixed, the most loaded device's bytes never grow with d once d x c >= 2 (sharded state shrinks,
 * the buffers stay, fewer micro-batches are in flight), so what fits at d fits at any larger d. */
START_TEST(estimate_does_not_grow_with_data_parallel)
{
    static const struct {
        const char *model;
        int64_t t, p, c, e, v, zero, fsdp, dist, recompute, batch;
    } kinds[] = {
        {"llama-3.1-70b", 1, 1, 1, 1, 1, 0, 0, 0, 0, 0},   {"llama-3.1-70b", 8, 4, 1, 1, 1, 1, 0, 0, 1, 0},
        {"llama-3.1-70b", 2, 8, 1, 1, 2, 3, 0, 0, 2, 720}, {"llama-3.1-70b", 4, 2, 2, 1, 1, 0, 1, 0, 1, 720},
        {"llama-3.1-70b", 8, 5, 1, 1, 1, 0, 0, 1, 0, 720}, {"mixtral-8x7b", 2, 4, 1, 2, 1, 2, 0, 0, 1, 0},
        {"mixtral-8x7b", 4, 2, 2, 4, 2, 0, 0, 1, 2, 720},  {"mixtral-8x7b", 1, 1, 1, 8, 1, 3, 0, 0, 0, 720},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        job j = make(kinds[k].model, "h100-sxm-80gb");
        set(&j, "mode", "training");
        set(&j, "ddp_gradient_copy", "true");
        ck_assert_ok(llmmem_strategy_set_int(j.s, LLMMEM_KEY_TENSOR_PARALLEL, kinds[k].t));
        ck_assert_ok(llmmem_strategy_set_int(j.s, LLMMEM_KEY_PIPELINE_PARALLEL, kinds[k].p));
        ck_assert_ok(llmmem_strategy_set_int(j.s, LLMMEM_KEY_CONTEXT_PARALLEL, kinds[k].c));
        ck_assert_ok(llmmem_strategy_set_int(j.s, LLMMEM_KEY_EXPERT_PARALLEL, kinds[k].e));
        ck_assert_ok(llmmem_strategy_set_int(j.s, LLMMEM_KEY_SEQUENCE_PARALLEL, kinds[k].t > 1));
        if (kinds[k].v > 1) {
            ck_assert_ok(llmmem_strategy_set_int(j.s, LLMMEM_KEY_PIPELINE_SCHEDULE, LLMMEM_SCHEDULE_INTERLEAVED));
            ck_assert_ok(llmmem_strategy_set_int(j.s, LLMMEM_KEY_VIRTUAL_PIPELINE, kinds[k].v));
        }
        if (kinds[k].p == 5) { /* 80 layers over 5 stages: even */
        }
        ck_assert_ok(llmmem_strategy_set_int(j.s, LLMMEM_KEY_ZERO_STAGE, kinds[k].zero));
        ck_assert_ok(llmmem_strategy_set_int(j.s, LLMMEM_KEY_FSDP, kinds[k].fsdp ? LLMMEM_FSDP_FULL_SHARD : 0));
        ck_assert_ok(llmmem_strategy_set_int(j.s, LLMMEM_KEY_DISTRIBUTED_OPTIMIZER, kinds[k].dist));
        ck_assert_ok(llmmem_strategy_set_int(j.s, LLMMEM_KEY_RECOMPUTE, kinds[k].recompute));
        uint64_t previous = UINT64_MAX;
        int tried = 0;
        for (int64_t d = 1; d <= 360; d++) {
            if (d * kinds[k].c < 2 || (d * kinds[k].c) % kinds[k].e || (kinds[k].batch && kinds[k].batch % d))
                continue;
            ck_assert_ok(llmmem_strategy_set_int(j.s, LLMMEM_KEY_DATA_PARALLEL, d));
            /* the planner's micro-batches: the global batch over d, or one per device */
            int64_t micro = kinds[k].batch ? kinds[k].batch / d : kinds[k].t * kinds[k].p * kinds[k].c;
            ck_assert_ok(llmmem_strategy_set_int(j.s, LLMMEM_KEY_NUM_MICRO_BATCHES, micro));
            ck_assert_ok(llmmem_estimate(j.r, j.m, j.hw, j.s));
            uint64_t total = llmmem_report_total_bytes(j.r);
            ck_assert_msg(total <= previous, "%s kind %zu: %llu bytes at d %lld, more than %llu at a smaller d",
                          kinds[k].model, k, (unsigned long long)total, (long long)d, (unsigned long long)previous);
            previous = total;
            tried++;
        }
        ck_assert_int_gt(tried, 8);
        done(&j);
    }
}
END_TEST

/* One data rank has no data-parallel buffers, so a kind can fit at d = 1 and not at d = 2
 * (gradient buckets that copy the gradients): the search tries d = 1 on its own. Here only
 * tensor parallelism 2 on one data rank fits: 2 devices, where d >= 2 would first fit with t = 4. */
START_TEST(min_devices_tries_one_data_rank)
{
    job j = make("llama-3.2-1b", "h100-sxm-80gb");
    set(&j, "mode", "training");
    set(&j, "sequence_length", "4096");
    set(&j, "ddp_gradient_copy", "true");
    /* "none" names the empty set for a flags key: the bit is set by value */
    ck_assert_ok(llmmem_strategy_set_int(j.s, LLMMEM_KEY_PLAN_SHARDINGS, LLMMEM_PLAN_SHARD_NONE));
    ck_assert_ok(llmmem_strategy_set_int(j.s, LLMMEM_KEY_PLAN_RECOMPUTE, LLMMEM_PLAN_RECOMPUTE_FULL));
    set(&j, "plan_max_pipeline_parallel", "1");
    ck_assert_ok(llmmem_hardware_set_real(j.hw, LLMMEM_KEY_ALLOCATOR_RESERVE_FRACTION, 0.0));
    /* the device holds exactly the t = 2, d = 1 layout */
    llmmem_plan *plan;
    ck_assert_ok(llmmem_plan_new(&plan));
    ck_assert_ok(llmmem_plan_set_limit(plan, 0));
    ck_assert_ok(llmmem_plan_run(plan, j.m, j.hw, j.s, 2));
    uint64_t t2d1 = 0, t1d2 = 0;
    for (size_t i = 0; i < llmmem_plan_count(plan); i++) {
        double cost;
        uint64_t bytes;
        tuple x = layout_at(plan, i, &cost, &bytes);
        if (x.mbs == 1 && x.t == 2)
            t2d1 = bytes;
        else if (x.mbs == 1)
            t1d2 = bytes;
    }
    ck_assert_uint_gt(t2d1, 0);
    ck_assert_uint_gt(t1d2, t2d1);
    ck_assert_ok(llmmem_hardware_set_int(j.hw, LLMMEM_KEY_MEMORY_BYTES, (int64_t)t2d1));
    /* no other layout of 4 devices or fewer but t = 4, d = 1 fits: t = 2, d = 2 copies the gradients */
    ck_assert_ok(llmmem_plan_run(plan, j.m, j.hw, j.s, 4));
    for (size_t i = 0; i < llmmem_plan_count(plan); i++) {
        llmmem_strategy *got;
        ck_assert_ok(llmmem_plan_get(&got, plan, i));
        ck_assert_int_eq(read_tuple(got).d, 1);
        llmmem_strategy_free(got);
    }
    uint64_t solved;
    ck_assert_uint_eq(scan_min_devices(&j, 16), 2);
    ck_assert_ok(llmmem_solve_min_devices(&solved, j.m, j.hw, j.s, 16));
    ck_assert_uint_eq(solved, 2);
    llmmem_plan_free(plan);
    done(&j);
}
END_TEST

/* Any max_devices up to the planner's largest is answered within the work limit (scanning every
 * count took 0.4 s for 4096 devices, 3.4 s for 32768 and hours for 2^24); 0 and past the largest
 * are refused, naming the value. */
START_TEST(min_devices_on_the_largest_counts)
{
    job j = make("llama-3.1-405b", "rtx-4090");
    set(&j, "mode", "training");
    set(&j, "sequence_length", "131072");
    uint64_t solved = 99;
    ck_assert_ok(llmmem_solve_min_devices(&solved, j.m, j.hw, j.s, LLMMEM_PLAN_MAX_DEVICES));
    ck_assert_uint_eq(solved, 0); /* never fits */
    ck_assert_status(llmmem_solve_min_devices(&solved, j.m, j.hw, j.s, 0), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "max_devices (0)"));
    ck_assert_status(llmmem_solve_min_devices(&solved, j.m, j.hw, j.s, LLMMEM_PLAN_MAX_DEVICES + 1ULL),
                     LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "max_devices (16777217)"));
    ck_assert_uint_eq(solved, 0);
    done(&j);

    /* a job that fits: the same answer whatever the ceiling above it */
    j = make("deepseek-v3", "h100-sxm-80gb");
    set(&j, "mode", "training");
    set(&j, "global_batch_size", "512");
    ck_assert_ok(llmmem_solve_min_devices(&solved, j.m, j.hw, j.s, LLMMEM_PLAN_MAX_DEVICES));
    uint64_t at = solved;
    ck_assert_uint_gt(at, 8);
    ck_assert_ok(llmmem_solve_min_devices(&solved, j.m, j.hw, j.s, at));
    ck_assert_uint_eq(solved, at);
    ck_assert_ok(llmmem_solve_min_devices(&solved, j.m, j.hw, j.s, at - 1));
    ck_assert_uint_eq(solved, 0);
    done(&j);
}
END_TEST

/* A model given by its parameter count has no layers to lay out; the message names the function. */
START_TEST(min_devices_of_a_count_only_model)
{
    llmmem_model *m;
    llmmem_hardware *hw;
    llmmem_strategy *s;
    ck_assert_ok(llmmem_model_new(&m));
    ck_assert_ok(llmmem_model_set_text(m, "model_type", "custom"));
    ck_assert_ok(llmmem_model_set_text(m, "num_parameters", "70000000000"));
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    uint64_t solved = 99;
    ck_assert_status(llmmem_solve_min_devices(&solved, m, hw, s, 8), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_uint_eq(solved, 0);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "solve_min_devices"));
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "num_parameters"));
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
}
END_TEST

/* The search stops at the plan's work limit, naming max_devices and the limit; the plan is empty. */
START_TEST(min_devices_stops_at_the_work_limit)
{
    job j = make("deepseek-v3", "h100-sxm-80gb");
    set(&j, "mode", "training");
    set(&j, "global_batch_size", "512");
    llmmem_plan *plan;
    uint64_t fewest = 99;
    ck_assert_ok(llmmem_plan_new(&plan));
    ck_assert_status(llmmem_plan_set_work_limit(plan, 0), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_ok(llmmem_plan_set_work_limit(plan, 1000));
    ck_assert_status(llmmem_plan_min_devices(&fewest, plan, j.m, j.hw, j.s, 4096), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_uint_eq(fewest, 0);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "max_devices (4096)"));
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "work limit (1000 units)"));
    ck_assert_uint_eq(llmmem_plan_count(plan), 0);
    ck_assert_uint_gt(llmmem_plan_work(plan), 1000);
    ck_assert_ok(llmmem_plan_set_work_limit(plan, LLMMEM_PLAN_DEFAULT_WORK_LIMIT));
    ck_assert_ok(llmmem_plan_min_devices(&fewest, plan, j.m, j.hw, j.s, 4096));
    ck_assert_uint_gt(fewest, 0);
    ck_assert_uint_gt(llmmem_plan_count(plan), 0);
    ck_assert_uint_le(llmmem_plan_work(plan), 2 * (uint64_t)LLMMEM_PLAN_DEFAULT_WORK_LIMIT); /* search and run */
    llmmem_plan_free(plan);
    done(&j);
}
END_TEST

/* ---- a bounded planner -------------------------------------------------------------------------- */

/* A plan with a limit keeps exactly the first layouts of the full list, in its order (every
 * tie-break included), and counts the rest. */
START_TEST(plan_keeps_the_cheapest)
{
    job j = make("mixtral-8x7b", "a100-sxm-80gb");
    set(&j, "mode", "training");
    set(&j, "sequence_length", "4096");
    set(&j, "global_batch_size", "64");
    set(&j, "plan_max_context_parallel", "2");
    llmmem_plan *all, *some;
    ck_assert_ok(llmmem_plan_new(&all));
    ck_assert_ok(llmmem_plan_new(&some));
    ck_assert_ok(llmmem_plan_set_limit(all, 0));
    ck_assert_ok(llmmem_plan_run(all, j.m, j.hw, j.s, 32));
    const size_t n = llmmem_plan_count(all);
    ck_assert_uint_gt(n, 100);
    ck_assert_uint_eq(llmmem_plan_fitting(all), n);
    const size_t limits[] = {1, 2, 7, 64, n - 1, n, n + 5};
    for (size_t k = 0; k < sizeof limits / sizeof limits[0]; k++) {
        ck_assert_ok(llmmem_plan_set_limit(some, limits[k]));
        ck_assert_ok(llmmem_plan_run(some, j.m, j.hw, j.s, 32));
        ck_assert_uint_eq(llmmem_plan_count(some), limits[k] < n ? limits[k] : n);
        ck_assert_uint_eq(llmmem_plan_fitting(some), n);
        ck_assert_uint_eq(llmmem_plan_candidates(some), llmmem_plan_candidates(all));
        for (size_t i = 0; i < llmmem_plan_count(some); i++) {
            if (i >= 64 && i + 8 < llmmem_plan_count(some))
                continue; /* the first 64 and the last 8 */
            llmmem_strategy *a, *b;
            double ca, cb;
            uint64_t ba, bb;
            ck_assert_ok(llmmem_plan_get(&a, all, i));
            ck_assert_ok(llmmem_plan_get(&b, some, i));
            ck_assert_ok(llmmem_plan_cost(&ca, &ba, all, i));
            ck_assert_ok(llmmem_plan_cost(&cb, &bb, some, i));
            tuple ta = read_tuple(a), tb = read_tuple(b);
            ck_assert_msg(same(&ta, &tb) && ca == cb && ba == bb, "limit %zu: layout %zu differs", limits[k], i);
            llmmem_strategy_free(a);
            llmmem_strategy_free(b);
        }
    }
    llmmem_plan_free(some);
    llmmem_plan_free(all);
    done(&j);
}
END_TEST

/* A new plan keeps LLMMEM_PLAN_DEFAULT_LIMIT layouts: Llama 3.1 8B inference on 1000 devices has
 * more that fit. */
START_TEST(plan_keeps_1024_by_default)
{
    job j = make("llama-3.1-8b", "h100-sxm-80gb");
    llmmem_plan *plan;
    ck_assert_ok(llmmem_plan_new(&plan));
    ck_assert_ok(llmmem_plan_run(plan, j.m, j.hw, j.s, 1000));
    ck_assert_uint_gt(llmmem_plan_fitting(plan), LLMMEM_PLAN_DEFAULT_LIMIT);
    ck_assert_uint_eq(llmmem_plan_count(plan), LLMMEM_PLAN_DEFAULT_LIMIT);
    ck_assert_uint_eq(llmmem_plan_count(NULL), 0);
    ck_assert_uint_eq(llmmem_plan_fitting(NULL), 0);
    ck_assert_status(llmmem_plan_set_limit(NULL, 3), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_plan_set_work_limit(NULL, 3), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(llmmem_plan_work(NULL), 0);
    llmmem_plan_free(plan);
    done(&j);
}
END_TEST

/* A model whose head, layer and sequence counts have many divisors, on 14,414,400 devices, with
 * every tensor and context size allowed: millions of layouts (7.3 million fit; listing them took
 * 10 s and 624 MB). Refused before any estimate, naming the devices and the limit. */
START_TEST(plan_refuses_a_space_beyond_its_work_limit)
{
    static const char *const model_keys[][2] = {
        {"model_type", "llama"},         {"hidden_size", "5040"},       {"num_attention_heads", "5040"},
        {"num_key_value_heads", "5040"}, {"num_hidden_layers", "720"},  {"intermediate_size", "5040"},
        {"vocab_size", "5040"},
    };
    job j = make("llama-3.1-8b", "h100-sxm-80gb");
    llmmem_model_free(j.m);
    ck_assert_ok(llmmem_model_new(&j.m));
    for (size_t i = 0; i < sizeof model_keys / sizeof model_keys[0]; i++)
        ck_assert_ok(llmmem_model_set_text(j.m, model_keys[i][0], model_keys[i][1]));
    set(&j, "mode", "training");
    set(&j, "sequence_length", "10080");
    set(&j, "plan_max_tensor_parallel", "1024");
    set(&j, "plan_max_context_parallel", "1024");
    set(&j, "plan_max_virtual_pipeline", "16");
    llmmem_plan *plan;
    ck_assert_ok(llmmem_plan_new(&plan));
    ck_assert_status(llmmem_plan_run(plan, j.m, j.hw, j.s, 14414400), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "devices (14414400)"));
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "work limit (4194304 units)"));
    ck_assert_uint_eq(llmmem_plan_count(plan), 0);
    ck_assert_uint_eq(llmmem_plan_fitting(plan), 0);
    ck_assert_uint_eq(llmmem_plan_candidates(plan), 0);
    ck_assert_uint_gt(llmmem_plan_work(plan), LLMMEM_PLAN_DEFAULT_WORK_LIMIT); /* priced, not estimated */
    /* the same model on fewer devices is laid out, within the limit */
    ck_assert_ok(llmmem_plan_run(plan, j.m, j.hw, j.s, 64));
    ck_assert_uint_gt(llmmem_plan_fitting(plan), 0);
    ck_assert_uint_gt(llmmem_plan_work(plan), llmmem_plan_candidates(plan));
    ck_assert_uint_le(llmmem_plan_work(plan), LLMMEM_PLAN_DEFAULT_WORK_LIMIT);
    /* and the work limit is the plan's */
    ck_assert_ok(llmmem_plan_set_work_limit(plan, 100));
    ck_assert_status(llmmem_plan_run(plan, j.m, j.hw, j.s, 64), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "work limit (100 units)"));
    ck_assert_uint_eq(llmmem_plan_count(plan), 0);
    llmmem_plan_free(plan);
    done(&j);
}
END_TEST

/* A planner told to try no sharding, or no recomputation mode, is refused rather than answering
 * "nothing fits" (an empty text is the empty set; for plan_shardings "none" is the sharding of
 * that name, the layouts without ZeRO or FSDP). */
START_TEST(plan_refuses_an_empty_choice)
{
    job j = make("llama-3.1-8b", "h100-sxm-80gb");
    llmmem_plan *plan;
    uint64_t fewest = 99;
    int64_t bits = -1;
    ck_assert_ok(llmmem_plan_new(&plan));
    set(&j, "plan_shardings", "none");
    ck_assert_ok(llmmem_strategy_get_int(&bits, j.s, LLMMEM_KEY_PLAN_SHARDINGS));
    ck_assert_int_eq(bits, 1); /* the first name, "none" */
    set(&j, "plan_shardings", "");
    ck_assert_status(llmmem_plan_run(plan, j.m, j.hw, j.s, 8), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "plan_shardings (0)"));
    ck_assert_status(llmmem_solve_min_devices(&fewest, j.m, j.hw, j.s, 8), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_uint_eq(fewest, 0);
    set(&j, "plan_shardings", "zero1");
    set(&j, "plan_recompute", "");
    ck_assert_status(llmmem_plan_run(plan, j.m, j.hw, j.s, 8), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "plan_recompute (0)"));
    llmmem_plan_free(plan);
    done(&j);
}
END_TEST

/* The largest device count the planner takes is laid out; one more is refused. */
START_TEST(plan_on_the_largest_count)
{
    job j = make("llama-3.1-405b", "h100-sxm-80gb");
    set(&j, "mode", "training");
    set(&j, "global_batch_size", "16777216");
    llmmem_plan *plan;
    ck_assert_ok(llmmem_plan_new(&plan));
    ck_assert_ok(llmmem_plan_run(plan, j.m, j.hw, j.s, LLMMEM_PLAN_MAX_DEVICES));
    ck_assert_uint_gt(llmmem_plan_fitting(plan), 0);
    ck_assert_status(llmmem_plan_run(plan, j.m, j.hw, j.s, LLMMEM_PLAN_MAX_DEVICES + 1ULL), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "devices (16777217)"));
    ck_assert_uint_eq(llmmem_plan_count(plan), 0);
    llmmem_plan_free(plan);
    done(&j);
}
END_TEST

/* ---- the plan as JSON ------------------------------------------------------------------------- */

/* The sharding a planned strategy uses, by the plan_shardings names, read from its keys. */
static const char *sharding_of(const tuple *x)
{
    static const char *const zero[] = {"none", "zero1", "zero2", "zero3"};
    if (x->fsdp != LLMMEM_FSDP_NONE)
        return "fsdp";
    if (x->dist)
        return "distributed_optimizer";
    return zero[x->zero & 3];
}

/* What `llmmem plan --json` printed before the library wrote it (cli/llmmem.c by hand, from
 * the getters): the library's text must be this, byte for byte. */
static char *json_by_hand(const llmmem_plan *plan, const char *model, const char *gpu, uint64_t devices)
{
    size_t cap = 4096 + 512 * llmmem_plan_count(plan), len = 0;
    char *out = malloc(cap);
    ck_assert_ptr_nonnull(out);
    len += (size_t)snprintf(out + len, cap - len,
                            "{\n  \"model\": \"%s\",\n  \"hardware\": \"%s\",\n  \"devices\": %llu,\n  "
                            "\"candidates\": %llu,\n  \"fitting\": %llu,\n  \"layouts\": [",
                            model, gpu, (unsigned long long)devices, (unsigned long long)llmmem_plan_candidates(plan),
                            (unsigned long long)llmmem_plan_fitting(plan));
    for (size_t i = 0; i < llmmem_plan_count(plan); i++) {
        double cost;
        uint64_t bytes;
        tuple x = layout_at(plan, i, &cost, &bytes);
        len += (size_t)snprintf(out + len, cap - len,
                                "%s\n    {\"tensor_parallel\": %lld, \"pipeline_parallel\": %lld, "
                                "\"data_parallel\": %lld, \"context_parallel\": %lld, \"expert_parallel\": %lld, "
                                "\"virtual_pipeline\": %lld, \"sharding\": \"%s\", \"recompute\": \"%s\", "
                                "\"micro_batch_size\": %lld, \"cost_seconds\": %.6g, \"bytes\": %llu}",
                                i ? "," : "", (long long)x.t, (long long)x.p, (long long)x.d, (long long)x.c,
                                (long long)x.e, (long long)x.v, sharding_of(&x),
                                llmmem_choice_name(LLMMEM_KEY_RECOMPUTE, x.rc), (long long)x.mbs, cost,
                                (unsigned long long)bytes);
    }
    snprintf(out + len, cap - len, "%s]\n}\n", llmmem_plan_count(plan) ? "\n  " : "");
    return out;
}

/* The parsed JSON against the getters: every layout's keys as llmmem_plan_get sets them, its cost
 * to the 6 digits written and its bytes exactly. */
static void check_parsed(const char *text, const llmmem_plan *plan, const char *model, const char *gpu,
                         uint64_t devices)
{
    llmmem__json_error err;
    llmmem__json *doc = llmmem__json_load(text, strlen(text), LLMMEM__JSON_REJECT_DUPLICATES, &err);
    ck_assert_msg(doc != NULL, "plan JSON does not parse: %s (line %d)", err.text, err.line);
    ck_assert_str_eq(llmmem__json_string_value(llmmem__json_object_get(doc, "model")), model);
    ck_assert_str_eq(llmmem__json_string_value(llmmem__json_object_get(doc, "hardware")), gpu);
    ck_assert_uint_eq((uint64_t)llmmem__json_integer_value(llmmem__json_object_get(doc, "devices")), devices);
    ck_assert_uint_eq((uint64_t)llmmem__json_integer_value(llmmem__json_object_get(doc, "candidates")),
                      llmmem_plan_candidates(plan));
    ck_assert_uint_eq((uint64_t)llmmem__json_integer_value(llmmem__json_object_get(doc, "fitting")),
                      llmmem_plan_fitting(plan));
    llmmem__json *layouts = llmmem__json_object_get(doc, "layouts");
    ck_assert(llmmem__json_is_array(layouts));
    ck_assert_uint_eq(llmmem__json_array_size(layouts), llmmem_plan_count(plan));
    for (size_t i = 0; i < llmmem_plan_count(plan); i++) {
        llmmem__json *l = llmmem__json_array_get(layouts, i);
        ck_assert_uint_eq(llmmem__json_object_size(l), 11);
        double cost;
        uint64_t bytes;
        tuple x = layout_at(plan, i, &cost, &bytes);
        const struct { const char *name; int64_t value; } keys[] = {
            {"tensor_parallel", x.t}, {"pipeline_parallel", x.p}, {"data_parallel", x.d},
            {"context_parallel", x.c}, {"expert_parallel", x.e}, {"virtual_pipeline", x.v},
            {"micro_batch_size", x.mbs},
        };
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            ck_assert_int_eq(llmmem__json_integer_value(llmmem__json_object_get(l, keys[k].name)), keys[k].value);
        ck_assert_str_eq(llmmem__json_string_value(llmmem__json_object_get(l, "sharding")), sharding_of(&x));
        ck_assert_str_eq(llmmem__json_string_value(llmmem__json_object_get(l, "recompute")),
                         llmmem_choice_name(LLMMEM_KEY_RECOMPUTE, x.rc));
        double written = llmmem__json_number_value(llmmem__json_object_get(l, "cost_seconds"));
        ck_assert_msg(fabs(written - cost) <= 5e-6 * fabs(cost), "layout %zu: cost %.17g written %.17g", i, cost,
                      written);
        ck_assert_uint_eq((uint64_t)llmmem__json_integer_value(llmmem__json_object_get(l, "bytes")), bytes);
    }
    llmmem__json_free(doc);
}

static const struct plan_json_case {
    const char *model, *gpu, *sets;
    uint64_t devices;
    size_t limit;
} plan_json_cases[] = {
    {"llama-3.1-70b", "h100-sxm-80gb", "mode=training global_batch_size=32 sequence_length=4096", 16, 0},
    {"mixtral-8x7b", "a100-sxm-80gb", "mode=training global_batch_size=64 plan_max_context_parallel=2", 32, 40},
    {"llama-3.1-405b", "h100-sxm-80gb", "mode=training", 1, 10}, /* nothing fits: "layouts": [] */
};

/* The library's JSON is what the CLI printed by hand, parses, and holds the getters' numbers. */
START_TEST(plan_to_json_is_the_getters)
{
    const struct plan_json_case *c = &plan_json_cases[_i];
    job j = make(c->model, c->gpu);
    char sets[256];
    snprintf(sets, sizeof sets, "%s", c->sets);
    for (char *kv = strtok(sets, " "); kv; kv = strtok(NULL, " ")) {
        char *eq = strchr(kv, '=');
        *eq = '\0';
        set(&j, kv, eq + 1);
    }
    llmmem_plan *plan;
    ck_assert_ok(llmmem_plan_new(&plan));
    ck_assert_ok(llmmem_plan_set_limit(plan, c->limit));
    ck_assert_ok(llmmem_plan_run(plan, j.m, j.hw, j.s, c->devices));
    char *json = NULL;
    ck_assert_ok(llmmem_plan_to_json(&json, plan));
    char *want = json_by_hand(plan, c->model, c->gpu, c->devices);
    ck_assert_str_eq(json, want);
    check_parsed(json, plan, c->model, c->gpu, c->devices);
    /* '.' whatever the host's locale, where one with a decimal comma is installed */
    static const char *const comma_locales[] = {"de_DE.UTF-8", "fr_FR.UTF-8", "de_DE", "fr_FR"};
    for (size_t k = 0; k < sizeof comma_locales / sizeof comma_locales[0]; k++) {
        if (!setlocale(LC_NUMERIC, comma_locales[k]))
            continue;
        char *again = NULL;
        ck_assert_ok(llmmem_plan_to_json(&again, plan));
        ck_assert_str_eq(again, json);
        llmmem_string_free(again);
        setlocale(LC_NUMERIC, "C");
        break;
    }
    free(want);
    llmmem_string_free(json);
    llmmem_plan_free(plan);
    done(&j);
}
END_TEST

/* A plan no run filled has no JSON; a nameless model is ""; a fewest-devices search that found
 * none is 0 devices and no layouts. */
START_TEST(plan_to_json_needs_a_run)
{
    llmmem_plan *plan;
    char *json = (char *)"unset";
    ck_assert_ok(llmmem_plan_new(&plan));
    ck_assert_status(llmmem_plan_to_json(&json, plan), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(json);
    ck_assert_status(llmmem_plan_to_json(NULL, plan), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_plan_to_json(&json, NULL), LLMMEM_ERR_INVALID_ARGUMENT);

    job j = make("llama-3.1-8b", "h100-sxm-80gb");
    ck_assert_ok(llmmem_plan_run(plan, j.m, j.hw, j.s, 2));
    ck_assert_ok(llmmem_plan_to_json(&json, plan));
    llmmem_string_free(json);
    /* a failed run empties the plan: no JSON of the run before */
    ck_assert_status(llmmem_plan_run(plan, j.m, j.hw, j.s, 0), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_status(llmmem_plan_to_json(&json, plan), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "plan_to_json"));

    /* a model built key by key has no name */
    llmmem_model *custom;
    ck_assert_ok(llmmem_model_new(&custom));
    ck_assert_ok(llmmem_model_set_text(custom, "model_type", "llama"));
    ck_assert_ok(llmmem_model_set_text(custom, "hidden_size", "2048"));
    ck_assert_ok(llmmem_model_set_text(custom, "num_hidden_layers", "16"));
    ck_assert_ok(llmmem_model_set_text(custom, "num_attention_heads", "16"));
    ck_assert_ok(llmmem_model_set_text(custom, "intermediate_size", "8192"));
    ck_assert_ok(llmmem_model_set_text(custom, "vocab_size", "32000"));
    ck_assert_ok(llmmem_plan_set_limit(plan, 3));
    ck_assert_ok(llmmem_plan_run(plan, custom, j.hw, j.s, 4));
    ck_assert_ok(llmmem_plan_to_json(&json, plan));
    ck_assert_uint_gt(llmmem_plan_count(plan), 0);
    check_parsed(json, plan, "", "h100-sxm-80gb", 4);
    llmmem_string_free(json);

    /* the fewest devices, none up to 1 */
    set(&j, "mode", "training");
    llmmem_model *big;
    ck_assert_ok(llmmem_model_from_preset(&big, "llama-3.1-405b"));
    uint64_t fewest = 99;
    ck_assert_ok(llmmem_plan_min_devices(&fewest, plan, big, j.hw, j.s, 1));
    ck_assert_uint_eq(fewest, 0);
    ck_assert_ok(llmmem_plan_to_json(&json, plan));
    check_parsed(json, plan, "llama-3.1-405b", "h100-sxm-80gb", 0);
    ck_assert_ptr_nonnull(strstr(json, "\"layouts\": []\n}\n"));
    llmmem_string_free(json);
    /* and found: the devices it laid out */
    ck_assert_ok(llmmem_plan_min_devices(&fewest, plan, j.m, j.hw, j.s, 64));
    ck_assert_uint_gt(fewest, 0);
    ck_assert_ok(llmmem_plan_to_json(&json, plan));
    check_parsed(json, plan, "llama-3.1-8b", "h100-sxm-80gb", fewest);
    llmmem_string_free(json);

    llmmem_model_free(big);
    llmmem_model_free(custom);
    llmmem_plan_free(plan);
    done(&j);
}
END_TEST

/* The planner resolves a job's formats and training plan once and hands them to its other
 * candidates (llmmem__job_make_fixed), which differ in layout keys alone: every candidate's job
 * is the one resolved from scratch, byte for byte, in every mode and with a checkpoint-free
 * single layout first. */
START_TEST(planner_jobs_equal_jobs_resolved_from_scratch)
{
    static const char *const modes[] = {"training", "lora", "qlora", "inference"};
    static const char *const layouts[][3] = {
        {"1", "1", "1"}, {"2", "4", "2"}, {"8", "2", "1"}, {"1", "1", "16"}, {"4", "1", "2"},
    };
    for (size_t mode = 0; mode < sizeof modes / sizeof modes[0]; mode++) {
        job j = make("mixtral-8x7b", "h100-sxm-80gb");
        set(&j, "mode", modes[mode]);
        if (mode == 0)
            set(&j, "precision_recipe", "deepspeed");
        llmmem__job_fixed fixed = {0};
        for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
            set(&j, "tensor_parallel", layouts[l][0]);
            set(&j, "pipeline_parallel", layouts[l][1]);
            set(&j, "data_parallel", layouts[l][2]);
            set(&j, "zero_stage", l % 2 ? "3" : "0");
            llmmem__job a, b;
            ck_assert_ok(llmmem__job_make(&a, j.m, j.hw, j.s));
            ck_assert_ok(llmmem__job_make_fixed(&b, j.m, j.hw, j.s, &fixed));
            ck_assert_int_eq(fixed.valid, 1);
            ck_assert_int_eq(memcmp(&a.price, &b.price, sizeof a.price), 0);
            ck_assert_int_eq(memcmp(&a.layout, &b.layout, sizeof a.layout), 0);
            ck_assert_int_eq(a.compute, b.compute);
            ck_assert_int_eq(a.kv, b.kv);
            ck_assert_uint_eq(a.sequences, b.sequences);
        }
        done(&j);
    }
}
END_TEST

static Suite *solve_suite(void)
{
    Suite *s = suite_create("solve");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, max_micro_batch_is_brute_force);
    tcase_add_test(tc, max_sequence_is_brute_force);
    tcase_add_test(tc, weight_format_is_first_that_fits);
    tcase_add_test(tc, planner_feasible_set_is_brute_force);
    tcase_add_test(tc, planner_bytes_are_the_full_estimate);
    tcase_add_test(tc, min_devices_is_first_feasible);
    tcase_add_loop_test(tc, min_devices_is_the_scan, 0, (int)(sizeof fewest_cases / sizeof fewest_cases[0]));
    tcase_add_loop_test(tc, plan_min_devices_holds_their_layouts, 0,
                        (int)(sizeof fewest_cases / sizeof fewest_cases[0]));
    tcase_add_test(tc, estimate_does_not_grow_with_data_parallel);
    tcase_add_test(tc, min_devices_tries_one_data_rank);
    tcase_add_test(tc, min_devices_on_the_largest_counts);
    tcase_add_test(tc, min_devices_of_a_count_only_model);
    tcase_add_test(tc, min_devices_stops_at_the_work_limit);
    tcase_add_test(tc, plan_keeps_the_cheapest);
    tcase_add_test(tc, plan_keeps_1024_by_default);
    tcase_add_test(tc, plan_refuses_a_space_beyond_its_work_limit);
    tcase_add_test(tc, plan_refuses_an_empty_choice);
    tcase_add_test(tc, plan_on_the_largest_count);
    tcase_add_loop_test(tc, plan_to_json_is_the_getters, 0, (int)(sizeof plan_json_cases / sizeof plan_json_cases[0]));
    tcase_add_test(tc, plan_to_json_needs_a_run);
    tcase_add_test(tc, planner_jobs_equal_jobs_resolved_from_scratch);
    tcase_add_test(tc, planner_says_why_no_candidate_was_estimated);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(solve_suite());
}
