/* Thread safety: estimates from 8 threads over shared const inputs, one report each, equal the
 * single-threaded result; a failure's message on one thread never shows on another. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "unit.h"

#define THREADS 8
#define ROUNDS 2000

typedef struct shared_inputs {
    const llmmem_model *model;
    const llmmem_hardware *hw;
    const llmmem_strategy *strategy;
    llmmem_report *expected;
} shared_inputs;

typedef struct worker {
    pthread_t thread;
    const shared_inputs *in;
    int mismatches;
    int failures;
} worker;

/* Equal through the public getters (a byte compare would also see struct padding). */
static int same_report(const llmmem_report *a, const llmmem_report *b)
{
    for (size_t c = 0; c < llmmem_component_count(); c++)
        if (llmmem_report_bytes(a, (llmmem_component)c) != llmmem_report_bytes(b, (llmmem_component)c))
            return 0;
    for (size_t g = 0; g < llmmem_param_group_count(); g++)
        if (llmmem_report_parameters(a, (llmmem_param_group)g) != llmmem_report_parameters(b, (llmmem_param_group)g))
            return 0;
    return llmmem_report_total_bytes(a) == llmmem_report_total_bytes(b) &&
           llmmem_report_capacity_bytes(a) == llmmem_report_capacity_bytes(b) &&
           llmmem_report_fits(a) == llmmem_report_fits(b) &&
           llmmem_report_active_parameters(a) == llmmem_report_active_parameters(b);
}

static void *estimate_many(void *arg)
{
    worker *w = arg;
    llmmem_report *r;
    if (llmmem_report_new(&r) != LLMMEM_OK) {
        w->failures++;
        return NULL;
    }
    for (int i = 0; i < ROUNDS; i++) {
        if (llmmem_estimate(r, w->in->model, w->in->hw, w->in->strategy) != LLMMEM_OK) {
            w->failures++;
            continue;
        }
        w->mismatches += !same_report(r, w->in->expected);
    }
    llmmem_report_free(r);
    return NULL;
}

START_TEST(test_concurrent_estimates_equal_serial)
{
    llmmem_model *m;
    llmmem_hardware *hw;
    llmmem_strategy *s;
    llmmem_report *expected;
    ck_assert_ok(llmmem_model_from_preset(&m, "mixtral-8x7b"));
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_WEIGHT_FORMAT, LLMMEM_FORMAT_BNB_NF4));
    ck_assert_ok(llmmem_report_new(&expected));
    ck_assert_ok(llmmem_estimate(expected, m, hw, s));

    /* Snapshots of the inputs: estimating must not change a const handle. */
    llmmem_model *m_before;
    ck_assert_ok(llmmem_model_clone(&m_before, m));

    shared_inputs in = {m, hw, s, expected};
    worker w[THREADS];
    memset(w, 0, sizeof w);
    for (int t = 0; t < THREADS; t++) {
        w[t].in = &in;
        ck_assert_int_eq(pthread_create(&w[t].thread, NULL, estimate_many, &w[t]), 0);
    }
    for (int t = 0; t < THREADS; t++) {
        ck_assert_int_eq(pthread_join(w[t].thread, NULL), 0);
        ck_assert_int_eq(w[t].failures, 0);
        ck_assert_int_eq(w[t].mismatches, 0);
    }
    ck_assert_int_eq(memcmp(m, m_before, sizeof *m), 0);
    llmmem_model_free(m_before);
    llmmem_model_free(m);
    llmmem_hardware_free(hw);
    llmmem_strategy_free(s);
    llmmem_report_free(expected);
}
END_TEST

/* Each thread fails with a message naming its own value, then checks it reads back its own. */
typedef struct message_worker {
    pthread_t thread;
    int id;
    int wrong;
} message_worker;

static void *own_message(void *arg)
{
    message_worker *w = arg;
    llmmem_strategy *s;
    if (llmmem_strategy_new(&s) != LLMMEM_OK) {
        w->wrong++;
        return NULL;
    }
    char bad[32], expected[64];
    snprintf(bad, sizeof bad, "bad-format-%d", w->id);
    snprintf(expected, sizeof expected, "'%s'", bad);
    for (int i = 0; i < ROUNDS; i++) {
        if (llmmem_strategy_set_text(s, "weight_format", bad) != LLMMEM_ERR_NOT_FOUND)
            w->wrong++;
        if (!strstr(llmmem_last_message(), expected) || llmmem_last_status() != LLMMEM_ERR_NOT_FOUND)
            w->wrong++;
    }
    llmmem_strategy_free(s);
    return NULL;
}

START_TEST(test_last_message_is_per_thread)
{
    message_worker w[THREADS];
    memset(w, 0, sizeof w);
    /* This thread's own failure must survive the others'. */
    llmmem_key k;
    ck_assert_status(llmmem_key_from_name(&k, "main_thread_key"), LLMMEM_ERR_UNKNOWN_KEY);
    for (int t = 0; t < THREADS; t++) {
        w[t].id = t;
        ck_assert_int_eq(pthread_create(&w[t].thread, NULL, own_message, &w[t]), 0);
    }
    for (int t = 0; t < THREADS; t++) {
        ck_assert_int_eq(pthread_join(w[t].thread, NULL), 0);
        ck_assert_int_eq(w[t].wrong, 0);
    }
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "main_thread_key"));
    ck_assert_int_eq(llmmem_last_status(), LLMMEM_ERR_UNKNOWN_KEY);
}
END_TEST

static Suite *threads_suite(void)
{
    Suite *s = suite_create("threads");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_concurrent_estimates_equal_serial);
    tcase_add_test(tc, test_last_message_is_per_thread);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(threads_suite());
}
