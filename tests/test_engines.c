/* One job under every engine (llmmem_engines_*): each row is the engine's own estimate read the same
 * way, a refusal is its row's status and message, and an engine_version reaches its engine alone. */
#include <string.h>

#include "unit.h"

typedef struct fixture {
    llmmem_model *m;
    llmmem_hardware *hw;
    llmmem_strategy *s;
    llmmem_engines *e;
} fixture;

static fixture make(const char *model, const char *gpu)
{
    fixture f;
    ck_assert_ok(llmmem_model_from_preset(&f.m, model));
    ck_assert_ok(llmmem_hardware_from_preset(&f.hw, gpu));
    ck_assert_ok(llmmem_hardware_set_int(f.hw, LLMMEM_KEY_DEVICES_PER_NODE, 1));
    ck_assert_ok(llmmem_strategy_new(&f.s));
    ck_assert_ok(llmmem_engines_new(&f.e));
    return f;
}

static void release(fixture *f)
{
    llmmem_engines_free(f->e);
    llmmem_strategy_free(f->s);
    llmmem_hardware_free(f->hw);
    llmmem_model_free(f->m);
}

/* The row of `engine`, or the count when it has none. */
static size_t row_of(const llmmem_engines *e, llmmem_engine engine)
{
    size_t i = 0;
    while (i < llmmem_engines_count(e) && llmmem_engines_engine(e, i) != engine)
        i++;
    return i;
}

/* Every engine's row reads the engine's own result: the serving ones a rank's weights, KV budget,
 * tokens and concurrency at the request, llama.cpp its GPU's buffers and n_ctx. */
START_TEST(rows_are_the_engines_estimates)
{
    fixture f = make("llama-3.1-8b", "h100-sxm-80gb");
    ck_assert_ok(llmmem_strategy_set_int(f.s, LLMMEM_KEY_REQUEST_TOKENS, 8192));
    ck_assert_ok(llmmem_engines_estimate(f.e, f.m, NULL, f.hw, f.s));
    ck_assert_uint_eq(llmmem_engines_count(f.e), 5);
    static const llmmem_engine serving[] = {LLMMEM_ENGINE_VLLM, LLMMEM_ENGINE_SGLANG, LLMMEM_ENGINE_TRTLLM};
    llmmem_serving *r;
    ck_assert_ok(llmmem_serving_new(&r));
    for (size_t i = 0; i < 3; i++) {
        size_t row = row_of(f.e, serving[i]);
        ck_assert_uint_lt(row, 5);
        ck_assert_int_eq(llmmem_engines_status(f.e, row), LLMMEM_OK);
        ck_assert_str_eq(llmmem_engines_message(f.e, row), "");
        llmmem_strategy *s;
        ck_assert_ok(llmmem_strategy_clone(&s, f.s));
        ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_ENGINE, serving[i]));
        ck_assert_ok(llmmem_serving_estimate(r, f.m, f.hw, s));
        ck_assert_uint_eq(llmmem_engines_get(f.e, row, LLMMEM_ENGINES_WEIGHTS), llmmem_serving_get(r, LLMMEM_SERVING_WEIGHTS));
        ck_assert_uint_eq(llmmem_engines_get(f.e, row, LLMMEM_ENGINES_KV_TOKENS), llmmem_serving_get(r, LLMMEM_SERVING_TOKENS));
        ck_assert_uint_eq(llmmem_engines_get(f.e, row, LLMMEM_ENGINES_REQUEST_TOKENS), 8192);
        ck_assert_uint_eq(llmmem_engines_get(f.e, row, LLMMEM_ENGINES_CONCURRENCY),
                          llmmem_serving_get(r, LLMMEM_SERVING_MAX_CONCURRENCY));
        ck_assert_uint_eq(llmmem_engines_get(f.e, row, LLMMEM_ENGINES_CUDA_GRAPHS),
                          llmmem_serving_get(r, LLMMEM_SERVING_CUDA_GRAPH));
        llmmem_strategy_free(s);
    }
    /* SGLang's activations: the memory left outside its static pool */
    size_t sg = row_of(f.e, LLMMEM_ENGINE_SGLANG);
    ck_assert_ok(llmmem_strategy_set_int(f.s, LLMMEM_KEY_ENGINE, LLMMEM_ENGINE_SGLANG));
    ck_assert_ok(llmmem_serving_estimate(r, f.m, f.hw, f.s));
    ck_assert_uint_eq(llmmem_engines_get(f.e, sg, LLMMEM_ENGINES_ACTIVATIONS),
                      llmmem_serving_get(r, LLMMEM_SERVING_FREE_BYTES) - llmmem_serving_get(r, LLMMEM_SERVING_REQUESTED_BYTES));
    llmmem_serving_free(r);
    /* llama.cpp: one GPU here, its model and KV buffers; its one slot holds 8,192 tokens */
    size_t lc = row_of(f.e, LLMMEM_ENGINE_LLAMA_CPP);
    llmmem_local *l;
    ck_assert_ok(llmmem_local_new(&l));
    ck_assert_ok(llmmem_strategy_set_int(f.s, LLMMEM_KEY_ENGINE, LLMMEM_ENGINE_LLAMA_CPP));
    ck_assert_ok(llmmem_local_estimate(l, f.m, NULL, f.hw, f.s));
    ck_assert_uint_eq(llmmem_engines_get(f.e, lc, LLMMEM_ENGINES_WEIGHTS), llmmem_local_bytes(l, 0, LLMMEM_LOCAL_MODEL));
    ck_assert_uint_eq(llmmem_engines_get(f.e, lc, LLMMEM_ENGINES_KV_BYTES), llmmem_local_bytes(l, 0, LLMMEM_LOCAL_KV));
    ck_assert_uint_eq(llmmem_engines_get(f.e, lc, LLMMEM_ENGINES_KV_TOKENS), llmmem_local_get(l, LLMMEM_LOCAL_N_CTX));
    ck_assert_uint_eq(llmmem_engines_get(f.e, lc, LLMMEM_ENGINES_CONCURRENCY), 1);
    llmmem_local_free(l);
    release(&f);
}
END_TEST

/* A refusal is the row's: TensorRT-LLM does not model Gated DeltaNet layers; SGLang and vLLM do. A release
 * of vLLM reaches vLLM's row alone. */
START_TEST(refusals_and_versions)
{
    fixture f = make("qwen3-next-80b-a3b", "h200");
    ck_assert_ok(llmmem_strategy_set_int(f.s, LLMMEM_KEY_TENSOR_PARALLEL, 4));
    ck_assert_ok(llmmem_engines_estimate(f.e, f.m, NULL, f.hw, f.s));
    size_t trt = row_of(f.e, LLMMEM_ENGINE_TRTLLM), sg = row_of(f.e, LLMMEM_ENGINE_SGLANG);
    ck_assert_int_eq(llmmem_engines_status(f.e, trt), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_engines_message(f.e, trt), "TensorRT-LLM"));
    ck_assert_uint_eq(llmmem_engines_get(f.e, trt, LLMMEM_ENGINES_KV_TOKENS), 0);
    ck_assert_int_eq(llmmem_engines_status(f.e, sg), LLMMEM_OK);
    ck_assert_uint_gt(llmmem_engines_get(f.e, sg, LLMMEM_ENGINES_KV_TOKENS), 0);
    release(&f);
    f = make("llama-3.1-8b", "h100-sxm-80gb");
    ck_assert_ok(llmmem_strategy_set_text(f.s, "engine_version", "vllm-0.20"));
    ck_assert_ok(llmmem_engines_estimate(f.e, f.m, NULL, f.hw, f.s));
    for (size_t i = 0; i < llmmem_engines_count(f.e); i++)
        ck_assert_int_eq(llmmem_engines_status(f.e, i), LLMMEM_OK);
    /* vllm-0.20 takes no graph estimate */
    ck_assert_uint_eq(llmmem_engines_get(f.e, row_of(f.e, LLMMEM_ENGINE_VLLM), LLMMEM_ENGINES_CUDA_GRAPHS), 0);
    char *json;
    ck_assert_ok(llmmem_engines_to_json(&json, f.e));
    ck_assert_ptr_nonnull(strstr(json, "\"engine\": \"trtllm\""));
    ck_assert_ptr_nonnull(strstr(json, "\"message\": null"));
    llmmem_string_free(json);
    release(&f);
}
END_TEST

START_TEST(arguments)
{
    fixture f = make("llama-3.1-8b", "h100-sxm-80gb");
    char *json = NULL;
    ck_assert_status(llmmem_engines_to_json(&json, f.e), LLMMEM_ERR_INVALID_ARGUMENT); /* no estimate yet */
    ck_assert_uint_eq(llmmem_engines_count(f.e), 0);
    ck_assert_status(llmmem_engines_estimate(NULL, f.m, NULL, f.hw, f.s), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_engines_estimate(f.e, NULL, NULL, f.hw, f.s), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "llmmem_engines_estimate"));
    ck_assert_status(llmmem_engines_estimate(f.e, f.m, NULL, NULL, f.s), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_engines_estimate(f.e, f.m, NULL, f.hw, NULL), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_ok(llmmem_engines_estimate(f.e, f.m, NULL, f.hw, f.s));
    ck_assert_status(llmmem_engines_status(f.e, 99), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(llmmem_engines_message(f.e, 99));
    ck_assert_int_eq(llmmem_engines_engine(f.e, 99), LLMMEM_ENGINE_AUTO);
    ck_assert_uint_eq(llmmem_engines_get(f.e, 0, (llmmem_engines_value)99), 0);
    ck_assert_uint_eq(llmmem_engines_value_count(), LLMMEM_ENGINES_FITS + 1);
    ck_assert_str_eq(llmmem_engines_value_name(LLMMEM_ENGINES_KV_TOKENS), "kv_tokens");
    ck_assert_ptr_null(llmmem_engines_value_name((llmmem_engines_value)99));
    ck_assert_status(llmmem_engines_to_json(NULL, f.e), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_engines_to_json(&json, NULL), LLMMEM_ERR_INVALID_ARGUMENT);
    llmmem_engines_free(NULL);
    release(&f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("engines");
    TCase *tc = tcase_create("engines");
    tcase_add_test(tc, rows_are_the_engines_estimates);
    tcase_add_test(tc, refusals_and_versions);
    tcase_add_test(tc, arguments);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
