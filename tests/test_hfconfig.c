/* config.json reader: real configs load to their presets' counts; malformed ones fail by name. */
#include <stdio.h>
#include <string.h>

#include "unit.h"

#ifndef LLMMEM_TEST_DATA
#define LLMMEM_TEST_DATA "tests/data"
#endif

static void expect_same_as_preset(const char *file, const char *preset)
{
    char path[512];
    snprintf(path, sizeof path, "%s/configs/%s", LLMMEM_TEST_DATA, file);
    llmmem_model *from_file, *from_preset;
    ck_assert_ok(llmmem_model_from_hf_config(&from_file, path));
    ck_assert_ok(llmmem_model_from_preset(&from_preset, preset));
    for (size_t g = 0; g < llmmem_param_group_count(); g++) {
        uint64_t a, b;
        ck_assert_ok(llmmem_model_parameters(&a, from_file, (llmmem_param_group)g));
        ck_assert_ok(llmmem_model_parameters(&b, from_preset, (llmmem_param_group)g));
        ck_assert_msg(a == b, "%s: %s %llu vs preset %s %llu", file, llmmem_param_group_name((llmmem_param_group)g),
                      (unsigned long long)a, preset, (unsigned long long)b);
    }
    int64_t d1, d2;
    ck_assert_ok(llmmem_model_get_int(&d1, from_file, LLMMEM_KEY_TORCH_DTYPE));
    ck_assert_ok(llmmem_model_get_int(&d2, from_preset, LLMMEM_KEY_TORCH_DTYPE));
    ck_assert_int_eq(d1, d2);
    llmmem_model_free(from_file);
    llmmem_model_free(from_preset);
}

/* The published config.json of each model (openai-community/gpt2, meta-llama/Llama-2-7b-hf,
 * mistralai/Mixtral-8x7B-v0.1, Qwen/Qwen2.5-7B, Qwen/Qwen3-30B-A3B, google/gemma-3-4b-pt)
 * gives the same inventory as the preset whose counts test_params.c checks against the
 * publishers' figures. GPT-2's config has no torch_dtype: fp32, as its checkpoint. */
START_TEST(real_configs_match_presets)
{
    expect_same_as_preset("gpt2.json", "gpt2");
    expect_same_as_preset("llama-2-7b-hf.json", "llama-2-7b");
    expect_same_as_preset("mixtral-8x7b.json", "mixtral-8x7b");
    expect_same_as_preset("qwen2.5-7b.json", "qwen2.5-7b");
    expect_same_as_preset("qwen3-30b-a3b.json", "qwen3-30b-a3b");
    expect_same_as_preset("gemma-3-4b-pt.json", "gemma-3-4b");
}
END_TEST

/* A folder path means its config.json. Qwen2.5's sliding_window is off (use_sliding_window false). */
START_TEST(folder_and_fields)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/configs", LLMMEM_TEST_DATA);
    llmmem_model *m;
    ck_assert_status(llmmem_model_from_hf_config(&m, dir), LLMMEM_ERR_IO);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "configs/config.json"));
    char path[512];
    snprintf(path, sizeof path, "%s/configs/qwen2.5-7b.json", LLMMEM_TEST_DATA);
    ck_assert_ok(llmmem_model_from_hf_config(&m, path));
    int64_t v;
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_SLIDING_WINDOW));
    ck_assert_int_eq(v, 0);
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_QKV_BIAS));
    ck_assert_int_eq(v, 1);
    llmmem_model_free(m);
}
END_TEST

static llmmem_status load_text(llmmem_model **m, const char *json)
{
    return llmmem_model_from_hf_config_text(m, json, strlen(json));
}

#define LLAMA_BODY "\"hidden_size\": 64, \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 100"

START_TEST(quantization_and_patterns)
{
    llmmem_model *m;
    int64_t v;
    /* TheBloke-style GPTQ config: quant_method gptq, bits 4, group_size 128 */
    ck_assert_ok(load_text(&m, "{\"model_type\": \"llama\", " LLAMA_BODY ", \"torch_dtype\": \"float16\", "
                               "\"quantization_config\": {\"quant_method\": \"gptq\", \"bits\": 4, \"group_size\": 128}}"));
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_QUANTIZATION_FORMAT));
    ck_assert_int_eq(v, LLMMEM_FORMAT_GPTQ_INT4);
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_QUANTIZATION_GROUP_SIZE));
    ck_assert_int_eq(v, 128);
    llmmem_model_free(m);
    ck_assert_ok(load_text(&m, "{\"model_type\": \"llama\", " LLAMA_BODY ", \"quantization_config\": {\"quant_method\": "
                               "\"bitsandbytes\", \"load_in_4bit\": true, \"bnb_4bit_quant_type\": \"nf4\", "
                               "\"bnb_4bit_use_double_quant\": true}}"));
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_QUANTIZATION_FORMAT));
    ck_assert_int_eq(v, LLMMEM_FORMAT_BNB_NF4);
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_QUANTIZATION_DOUBLE_QUANT));
    ck_assert_int_eq(v, 1);
    llmmem_model_free(m);
    /* layer_types: a global layer every third */
    ck_assert_ok(load_text(&m, "{\"model_type\": \"qwen3\", " LLAMA_BODY ", \"sliding_window\": 128, \"layer_types\": "
                               "[\"sliding_attention\", \"sliding_attention\", \"full_attention\"]}"));
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_SLIDING_WINDOW_PATTERN));
    ck_assert_int_eq(v, 3);
    llmmem_model_free(m);
    ck_assert_status(load_text(&m, "{\"model_type\": \"qwen3\", " LLAMA_BODY ", \"layer_types\": [\"full_attention\", "
                                   "\"sliding_attention\", \"full_attention\"]}"),
                     LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "layer_types is not periodic"));
    ck_assert_status(load_text(&m, "{\"model_type\": \"llama\", " LLAMA_BODY ", \"quantization_config\": "
                                   "{\"quant_method\": \"gptq\", \"bits\": 3}}"),
                     LLMMEM_ERR_UNSUPPORTED);
}
END_TEST

START_TEST(errors_name_the_field)
{
    llmmem_model *m = (llmmem_model *)&m;
    ck_assert_status(load_text(&m, "{\"model_type\": \"rwkv\"}"), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_null(m);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "'rwkv'"));
    ck_assert_status(load_text(&m, "{\"hidden_size\": 64}"), LLMMEM_ERR_INCOMPLETE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "model_type"));
    ck_assert_status(load_text(&m, "{\"model_type\": \"mistral\", \"num_hidden_layers\": 2, \"num_attention_heads\": 4, "
                                   "\"vocab_size\": 10}"),
                     LLMMEM_ERR_INCOMPLETE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "hidden_size is not set"));
    ck_assert_status(load_text(&m, "{\"model_type\": \"llama\", \"hidden_size\": \"64\"}"), LLMMEM_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "hidden_size: expected a number"));
    ck_assert_status(load_text(&m, "{\"model_type\": \"llama\", \"hidden_size\": -64}"), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "hidden_size (-64)"));
    ck_assert_status(load_text(&m, "{\"model_type\": \"llama\", \"model_type\": \"gpt2\"}"), LLMMEM_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "duplicate"));
    ck_assert_status(load_text(&m, "{\"model_type\": \"llama\", \"hidden_size\": 1000000000000000000000000000000}"),
                     LLMMEM_ERR_PARSE);
    ck_assert_status(load_text(&m, "{\"model_type\": \"llama\", "), LLMMEM_ERR_PARSE);
    ck_assert_status(load_text(&m, "[1, 2]"), LLMMEM_ERR_PARSE);
    char deep[512] = "{\"model_type\": \"llama\", \"x\": ";
    for (int i = 0; i < 100; i++)
        strcat(deep, "[");
    for (int i = 0; i < 100; i++)
        strcat(deep, "]");
    strcat(deep, "}");
    /* 100 levels parse (jansson's limit is 2048); the rest is LlamaConfig's defaults */
    ck_assert_ok(load_text(&m, deep));
    uint64_t n;
    ck_assert_ok(llmmem_model_total_parameters(&n, m));
    ck_assert_uint_eq(n, 6738415616ULL); /* LlamaConfig() defaults are the Llama-2-7B shapes */
    llmmem_model_free(m);
    ck_assert_status(llmmem_model_from_hf_config_text(&m, NULL, 0), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_model_from_hf_config(&m, "/no/such/config.json"), LLMMEM_ERR_IO);
}
END_TEST

static Suite *hfconfig_suite(void)
{
    Suite *s = suite_create("hfconfig");
    TCase *tc = tcase_create("reader");
    tcase_add_test(tc, real_configs_match_presets);
    tcase_add_test(tc, folder_and_fields);
    tcase_add_test(tc, quantization_and_patterns);
    tcase_add_test(tc, errors_name_the_field);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(hfconfig_suite());
}
