/* Capacity solvers and the planner against brute force: every answer is recomputed here by trying
 * every value (or every layout) with llmmem_estimate, and the estimate's monotonicity, which the
 * solvers' searches rely on, is checked over the ranges they search. */
#include <string.h>

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
    ck_assert_ok(llmmem_plan_run(plan, j.m, j.hw, j.s, devices));
    size_t n = llmmem_plan_count(plan);
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

static Suite *solve_suite(void)
{
    Suite *s = suite_create("solve");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, max_micro_batch_is_brute_force);
    tcase_add_test(tc, max_sequence_is_brute_force);
    tcase_add_test(tc, weight_format_is_first_that_fits);
    tcase_add_test(tc, planner_feasible_set_is_brute_force);
    tcase_add_test(tc, min_devices_is_first_feasible);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(solve_suite());
}
