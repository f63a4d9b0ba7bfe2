/* llmmem_estimate (and llmmem_serving_estimate) allocate nothing: the core's calls to malloc,
 * calloc and realloc are wrapped at link time (-Wl,--wrap) and counted around the estimates, for a
 * single device, every parallel dimension at once, MoE, training and inference, and a failure. */
#include <stdlib.h>

#include "unit.h"

static unsigned long allocations;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);

void *__wrap_malloc(size_t n)
{
    allocations++;
    return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
    allocations++;
    return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
    allocations++;
    return __real_realloc(p, n);
}

static void set(llmmem_strategy *s, const char *key, const char *value)
{
    ck_assert_ok(llmmem_strategy_set_text(s, key, value));
}

START_TEST(estimates_do_not_allocate)
{
    llmmem_model *dense, *moe;
    llmmem_hardware *hw;
    llmmem_strategy *s;
    llmmem_report *r;
    llmmem_serving *serving;
    ck_assert_ok(llmmem_model_from_preset(&dense, "llama-3.1-70b"));
    ck_assert_ok(llmmem_model_from_preset(&moe, "deepseek-v3"));
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_report_new(&r));
    ck_assert_ok(llmmem_serving_new(&serving));
    /* the wrapper sees the core's allocations: creating a handle counts */
    unsigned long before = allocations;
    llmmem_report *other;
    ck_assert_ok(llmmem_report_new(&other));
    ck_assert_uint_gt(allocations, before);
    llmmem_report_free(other);

    /* the counter is read before any assertion: Check itself allocates when it is linked statically */
    llmmem_status st[6];
    unsigned long counted[6];
    allocations = 0;
    st[0] = llmmem_estimate(r, dense, hw, s); /* inference, KV cache */
    st[1] = llmmem_serving_estimate(serving, dense, hw, s);
    counted[0] = allocations;

    set(s, "mode", "training");
    set(s, "recompute", "full");
    allocations = 0;
    st[2] = llmmem_estimate(r, dense, hw, s); /* one device */
    counted[1] = allocations;

    set(s, "tensor_parallel", "8");
    set(s, "pipeline_parallel", "4");
    set(s, "pipeline_first_stage_layers", "16"); /* 61 layers: 16, then 15 on each other stage */
    set(s, "data_parallel", "8");
    set(s, "context_parallel", "2");
    set(s, "sequence_parallel", "true");
    set(s, "expert_parallel", "16");
    set(s, "zero_stage", "1");
    allocations = 0;
    st[3] = llmmem_estimate(r, moe, hw, s); /* DeepSeek-V3, every dimension */
    counted[2] = allocations;

    set(s, "expert_parallel", "1");
    set(s, "pipeline_first_stage_layers", "0");
    set(s, "zero_stage", "3");
    allocations = 0;
    st[4] = llmmem_estimate(r, dense, hw, s);
    counted[3] = allocations;
    /* a failure writes its message without allocating either */
    set(s, "tensor_parallel", "3");
    allocations = 0;
    st[5] = llmmem_estimate(r, dense, hw, s);
    counted[4] = allocations;

    for (int i = 0; i < 5; i++) {
        ck_assert_ok(st[i]);
        ck_assert_uint_eq(counted[i], 0);
    }
    ck_assert_int_eq(st[5], LLMMEM_ERR_INCOMPATIBLE);

    llmmem_serving_free(serving);
    llmmem_report_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(moe);
    llmmem_model_free(dense);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("alloc");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, estimates_do_not_allocate);
    suite_add_tcase(suite, tc);
    return run_suite(suite);
}
