/* Jamba (issue 17): the Mamba-1 mixer (transformers models/jamba/modeling_jamba.py JambaMambaMixer),
 * Jamba's attention and MoE layer pattern, its per-sequence state in the contiguous cache and in vLLM's
 * state pool.
 *
 * ai21labs/AI21-Jamba-1.5-Mini (and Jamba-v0.1, the same config), hand derivation from config.json:
 *   attention layers i % 8 == 4: 4, 12, 20, 28; Mamba-1 layers: the other 28; MoE i % 2 == 1: 16
 *   embeddings and untied lm_head 2 x 65,536 x 4,096 = 536,870,912
 *   attention (q 4096^2, k and v 1024 x 4096, o 4096^2) 41,943,040 x 4 = 167,772,160
 *   Mamba-1 (inner 8,192, dt_rank 256, state 16, kernel 4): in_proj 16,384 x 4,096 = 67,108,864;
 *     conv1d 8,192 x 4 + bias 8,192 = 40,960; x_proj 288 x 8,192 = 2,359,296; dt_proj 8,192 x 256 +
 *     bias 8,192 = 2,105,344; A_log 8,192 x 16 = 131,072; D 8,192; out_proj 33,554,432; dt/b/c norms
 *     256 + 16 + 16 = 288: 105,308,448 x 28 = 2,948,636,544
 *   gated MLP 3 x 4,096 x 14,336 = 176,160,768: 16 dense layers 2,818,572,288; 16 x 16 experts
 *     45,097,156,608; routers 16 x 16 x 4,096 = 1,048,576
 *   norms 2 x 32 x 4,096 + final 4,096 = 266,240
 *   total 51,570,323,328: the publisher's model.safetensors.index.json total_size 103,140,646,656 B
 *   of bf16 (2 B a parameter) is exactly this count; active: less 16 x 14 idle experts
 *   (39,460,012,032) = 12,110,311,296 ("12B active / 52B total" on the model card). */
#include <stdio.h>
#include <string.h>

#include "family.h"

static void check_counts(const llmmem_model *m)
{
    uint64_t n = 0;
    ck_assert_ok(llmmem_model_total_parameters(&n, m));
    ck_assert_uint_eq(n, 51570323328ULL);
    ck_assert_uint_eq(n * 2, 103140646656ULL);
    ck_assert_ok(llmmem_model_active_parameters(&n, m));
    ck_assert_uint_eq(n, 12110311296ULL);
    ck_assert_ok(llmmem_model_parameters(&n, m, LLMMEM_PARAMS_SSM));
    ck_assert_uint_eq(n, 2948636544ULL);
    ck_assert_ok(llmmem_model_parameters(&n, m, LLMMEM_PARAMS_ATTENTION));
    ck_assert_uint_eq(n, 167772160ULL);
}

START_TEST(jamba_counts)
{
    const char *names[] = {"jamba-1.5-mini", "jamba-v0.1"};
    for (unsigned i = 0; i < 2; i++) {
        llmmem_model *m = preset(names[i]);
        check_counts(m);
        llmmem_model_free(m);
    }
    char path[1024];
    llmmem_model *m = NULL;
    snprintf(path, sizeof path, "%s/configs/jamba-1.5-mini.json", LLMMEM_TEST_DATA);
    ck_assert_ok(llmmem_model_from_hf_config(&m, path));
    check_counts(m);
    llmmem_model_free(m);
}
END_TEST

/* Training a Jamba is refused, naming the Mamba-1 layers. */
START_TEST(jamba_training_refused)
{
    llmmem_model *m = preset("jamba-1.5-mini");
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_report *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MODE, LLMMEM_MODE_TRAINING));
    ck_assert_ok(llmmem_report_new(&r));
    ck_assert_int_eq(llmmem_estimate(r, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "28 Mamba-1 layers"));
    llmmem_report_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
}
END_TEST

/* transformers generate, bf16 (HybridMambaAttentionDynamicCache), 1 sequence of 1,000 tokens:
 *   keys and values 4 layers x 1,000 x 2 x 8 heads x 128 x 2 B = 16,384,000
 *   conv_states 8,192 x 4 (the whole d_conv) and ssm_states 8,192 x 16, x 2 B = 327,680 a layer, x 28 =
 *   9,175,040: 25,559,040; 2 sequences twice that. */
START_TEST(jamba_contiguous)
{
    llmmem_model *m = preset("jamba-1.5-mini");
    llmmem_strategy *s = NULL;
    uint64_t bytes = 0;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_kv_cache_bytes(&bytes, m, s, 1, 1000));
    ck_assert_uint_eq(bytes, 25559040ULL);
    ck_assert_ok(llmmem_kv_cache_bytes(&bytes, m, s, 2, 1000));
    ck_assert_uint_eq(bytes, 2 * 25559040ULL);
    llmmem_strategy_free(s);
    llmmem_model_free(m);
}
END_TEST

/* vLLM, tensor_parallel 1, both mamba dtypes auto (bf16), --no-enable-prefix-caching, 20 GiB
 * (21,474,836,480 B) of KV cache, max_model_len 262,144:
 *   mamba_utils.py mamba1_state_shape: conv (4 - 1) x 8,192 = 24,576 elements, temporal 8,192 x 16 =
 *     131,072 (models/jamba.py: intermediate_size = mamba_expand x hidden_size)
 *   kv_cache_interface.py MambaSpec.page_size_bytes: (24,576 + 131,072) x 2 B = 311,296
 *   FullAttentionSpec(block_size=1): 2 x 8 x 128 x 2 B = 4,096
 *   models/config.py HybridAttentionMambaModelConfig: 16 x cdiv(311,296, 16 x 4,096) = 16 x 5 = 80;
 *     page 80 x 4,096 = 327,680
 *   kv_cache_utils.py _get_kv_cache_groups_uniform_page_size: 4 attention, 28 Mamba-1 layers: 28 is not
 *     under 1.5 x 4, group_size 4: 1 + 7 = 8 groups
 *   get_num_blocks: 21,474,836,480 // 327,680 // 4 = 16,384; tokens 16,384 // 8 x 80 = 163,840
 *   get_max_concurrency_for_kv_cache_config: cdiv(262,144, 80) = 3,277 + 7 = 3,284 blocks a request;
 *     16,384 / 3,284 = 4.98x: 4 requests
 *   state of a sequence 28 x 311,296 = 8,716,288; KV per token 4 x 4,096 = 16,384
 *   waste: (3,277 x 80 - 262,144) = 16 tokens x 4,096 x 4 = 262,144, and 7 x 4 x 327,680 - 8,716,288 =
 *     458,752: 720,896. */
START_TEST(jamba_serving)
{
    llmmem_model *m = preset("jamba-1.5-mini");
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_serving *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 21474836480LL));
    /* the figures below follow vLLM's two-line report (kv_cache_utils.py _report_kv_cache_config:
     * "GPU KV cache size" = num_blocks // groups x block_size), the releases before the one-line one */
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_ENGINE_VERSION, LLMMEM_ENGINE_VERSION_VLLM_0_21));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_ENABLE_PREFIX_CACHING, 0));
    ck_assert_ok(llmmem_serving_new(&r));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_STATE_PAGE_BYTES), 311296);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_STATE_BYTES_PER_SEQUENCE), 8716288);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BYTES_PER_TOKEN), 16384);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BLOCK_SIZE), 80);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_PAGE_BYTES), 327680);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_LAYERS_PER_GROUP), 4);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_GROUPS), 8);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_STATE_GROUPS), 7);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_NUM_BLOCKS), 16384);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_TOKENS), 163840);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BLOCKS_PER_REQUEST), 3284);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_MAX_CONCURRENCY), 4);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_WASTE_BYTES), 720896);
    llmmem_serving_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mixer_mamba1");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, jamba_counts);
    tcase_add_test(tc, jamba_training_refused);
    tcase_add_test(tc, jamba_contiguous);
    tcase_add_test(tc, jamba_serving);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
