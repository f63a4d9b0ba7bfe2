/* falcon_h1 (tiiuae Falcon-H1): attention and a Mamba-2 mixer side by side in every decoder layer
 * (parallel_ssm). Counts are hand derivations from transformers models/falcon_h1/modeling_falcon_h1.py
 * and the configs named; no safetensors total_size was read here (a Falcon-H1-0.5B-Base derivative's
 * card says 521 million, which the first count matches). */
#include <stdio.h>
#include <string.h>

#include "family.h"

static uint64_t group(const llmmem_model *m, llmmem_param_group g)
{
    uint64_t n = 0;
    ck_assert_ok(llmmem_model_parameters(&n, m, g));
    return n;
}

static llmmem_model *text(const char *json)
{
    llmmem_model *m = NULL;
    ck_assert_ok(llmmem_model_from_hf_config_text(&m, json, strlen(json)));
    return m;
}

/* tiiuae/Falcon-H1-0.5B config.json (hidden 1024, 36 layers, 8 heads of 64, 2 KV heads, MLP 2048,
 * vocab 32784, untied; Mamba-2 mamba_d_ssm 1536 = 24 heads x 64, state 128, 1 group, conv 4 biased) */
#define FALCON_05B(heads, rms, extra)                                                                                   \
    "{\"model_type\": \"falcon_h1\", \"hidden_size\": 1024, \"num_hidden_layers\": 36, "                     \
    "\"num_attention_heads\": 8, \"num_key_value_heads\": 2, \"head_dim\": 64, \"intermediate_size\": 2048, " \
    "\"vocab_size\": 32784, \"max_position_embeddings\": 16384, \"tie_word_embeddings\": false, "              \
    "\"attention_bias\": false, \"mlp_bias\": false, \"mamba_d_ssm\": 1536, \"mamba_n_heads\": " heads ", "          \
    "\"mamba_d_head\": 64, \"mamba_d_state\": 128, \"mamba_n_groups\": 1, \"mamba_d_conv\": 4, "              \
    "\"mamba_expand\": 2, \"mamba_conv_bias\": true, \"mamba_rms_norm\": " rms ", \"mamba_use_mlp\": true, "    \
    "\"key_multiplier\": 0.39, \"ssm_multipliers\": [0.35, 0.25, 0.35, 0.5, 0.35], " extra "}"

/* Falcon-H1-0.5B, hand derivation (modeling_falcon_h1.py):
 *   embed_tokens and lm_head 2 x 32,784 x 1,024 = 67,141,632
 *   FalconH1Attention: q, o 2 x 512 x 1,024; k, v 2 x 128 x 1,024: 1,310,720
 *   FalconH1Mixer: conv_dim 1,536 + 2 x 128 = 1,792; in_proj (1,536 + 1,792 + 24) x 1,024 = 3,432,448;
 *     conv1d 1,792 x 4 + bias 1,792 = 8,960; dt_bias, A_log, D 72; no norm; out_proj 1,024 x 1,536 =
 *     1,572,864: 5,014,344
 *   FalconH1MLP 3 x 2,048 x 1,024 = 6,291,456; input_layernorm, pre_ff_layernorm 2,048
 *   a layer 12,618,568, x 36 = 454,268,448; final_layernorm 1,024: total 521,411,104 */
START_TEST(falcon_h1_config)
{
    llmmem_model *m = text(FALCON_05B("24", "false", "\"projectors_bias\": false"));
    ck_assert_uint_eq(total(m), 521411104ULL);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_SSM), 36ULL * 5014344);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_ATTENTION), 36ULL * 1310720);
    ck_assert_int_eq(get(m, LLMMEM_KEY_PARALLEL_SSM), 1);
    llmmem_model_free(m);
    /* mamba_rms_norm true: FalconH1RMSNormGated over 1,536 a layer */
    m = text(FALCON_05B("24", "true", "\"projectors_bias\": false"));
    ck_assert_uint_eq(total(m), 521411104ULL + 36 * 1536);
    llmmem_model_free(m);
    m = preset("falcon-h1-0.5b-instruct");
    ck_assert_uint_eq(total(m), 521411104ULL);
    llmmem_model_free(m);
}
END_TEST

/* Falcon-H1-7B, hand derivation (hidden 3072, 44 layers, 12 heads of 128, 2 KV heads, MLP 12,288,
 * vocab 130,048, untied; Mamba-2 24 heads of 128, state 256, 1 group):
 *   embeddings 2 x 130,048 x 3,072 = 799,014,912
 *   attention q, o 2 x 1,536 x 3,072; k, v 2 x 256 x 3,072: 11,010,048
 *   Mamba-2 conv_dim 3,584; in_proj 6,680 x 3,072 = 20,520,960; conv1d 14,336 + 3,584; 72; out_proj
 *     9,437,184: 29,976,136
 *   MLP 3 x 12,288 x 3,072 = 113,246,208; norms 6,144
 *   a layer 154,238,536, x 44 = 6,786,495,584; final norm 3,072: 7,585,513,568 */
START_TEST(falcon_h1_presets)
{
    llmmem_model *m = preset("falcon-h1-7b-instruct");
    ck_assert_uint_eq(total(m), 7585513568ULL);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_SSM), 44ULL * 29976136);
    llmmem_model_free(m);
}
END_TEST

/* What the reader refuses by name. */
START_TEST(falcon_h1_refusals)
{
    llmmem_model *m = NULL;
    static const char proj[] = FALCON_05B("24", "false", "\"projectors_bias\": true");
    ck_assert_status(llmmem_model_from_hf_config_text(&m, proj, strlen(proj)), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "projectors_bias"));
    static const char heads[] = FALCON_05B("16", "false", "\"projectors_bias\": false");
    ck_assert_status(llmmem_model_from_hf_config_text(&m, heads, strlen(heads)), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "mamba_d_head"));
    ck_assert_ptr_null(m);
}
END_TEST

/* modeling_falcon_h1.py FalconHybridMambaAttentionDynamicCache: keys and values of every layer and,
 * per layer, conv_states (mamba_d_ssm + 2 x groups x state) x d_conv and ssm_states heads x d_head x
 * state, in the model's dtype. Falcon-H1-0.5B, bf16, 1 sequence of 1,000 tokens: KV 36 x 1,000 x 2 x
 * 2 x 64 x 2 B = 18,432,000; state (1,792 x 4 + 24 x 64 x 128) x 2 B = 407,552 x 36 = 14,671,872:
 * 33,103,872. */
START_TEST(falcon_h1_contiguous)
{
    llmmem_model *m = preset("falcon-h1-0.5b-instruct");
    llmmem_strategy *s = NULL;
    uint64_t bytes = 0;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_kv_cache_bytes(&bytes, m, s, 1, 1000));
    ck_assert_uint_eq(bytes, 33103872ULL);
    llmmem_strategy_free(s);
    llmmem_model_free(m);
}
END_TEST

/* tiiuae/Falcon-H1-0.5B-Instruct under vLLM, tensor_parallel 1, both mamba dtypes auto (bf16 model),
 * --kv-cache-memory-bytes 4 GiB (4,294,967,296 B: no profile run), --no-enable-prefix-caching, default
 * max_model_len (max_position_embeddings 16,384):
 *   models/falcon_h1.py FalconH1ParallelHybrid: decoder layer i registers an Attention
 *     ("model.layers.i.attn") and a MambaMixer2 ("model.{36 + i}.mixer"): 36 attention and 36 mamba
 *     cache layers; get_mamba_state_shape_from_config: intermediate_size = mamba_d_ssm 1,536
 *   mamba_utils.py mamba2_state_shape: n_groups 1 (tp divides it), conv_dim = 1,536 + 2 x 1 x 128 =
 *     1,792; conv state (4 - 1) x 1,792 = 5,376 elements; SSM state 24 x 64 x 128 = 196,608 elements
 *   MambaStateDtypeCalculator.mamba2_state_dtype: auto, both bf16 (2 B)
 *   kv_cache_interface.py MambaSpec.page_size_bytes: (5,376 + 196,608) x 2 = 403,968
 *   FullAttentionSpec(block_size=1).page_size_bytes: 2 x 2 KV heads x 64 x 2 B = 512
 *   models/config.py HybridAttentionMambaModelConfig: attn_block_size = 16 x cdiv(403,968, 16 x 512)
 *     = 16 x 50 = 800 > block_size 16, so block_size = 800; attention page 800 x 512 = 409,600; the
 *     mamba page padded to it (5,632 B of padding)
 *   kv_cache_utils.py _get_kv_cache_groups_uniform_page_size: 36 attention and 36 mamba layers; 36 is
 *     under 1.5 x 36, so group_size = 36: 1 attention group and 1 mamba group, no padding layer: 2
 *   get_num_blocks: 4,294,967,296 // 409,600 // 36 = 10,485 // 36 = 291
 *   _report_kv_cache_config: "GPU KV cache size" 291 // 2 x min(800, 16,384) = 116,000 tokens
 *   get_max_concurrency_for_kv_cache_config at 16,384: cdiv(16,384, 800) = 21 attention blocks and
 *     1 mamba page (MambaSpec.max_memory_usage_bytes): 22; 291 / 22 = 13.23x; 13 whole requests
 *   state of one sequence: 36 x 403,968 = 14,542,848 B; KV per token 36 x 512 = 18,432 B; a block of
 *     a group 36 x 409,600 = 14,745,600 B
 *   waste of a request of 16,384 tokens: the attention group's last block (21 x 800 - 16,384 = 416
 *     tokens x 512 B x 36 layers = 7,667,712) and the 36 padded state pages (14,745,600) less the state
 *     (14,542,848): 7,870,464. */
START_TEST(falcon_h1_serving)
{
    llmmem_model *m = preset("falcon-h1-0.5b-instruct");
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_serving *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 4294967296LL));
    /* the figures below follow vLLM's two-line report (kv_cache_utils.py _report_kv_cache_config:
     * "GPU KV cache size" = num_blocks // groups x block_size), the releases before the one-line one */
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_ENGINE_VERSION, LLMMEM_ENGINE_VERSION_VLLM_0_21));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_ENABLE_PREFIX_CACHING, 0));
    ck_assert_ok(llmmem_serving_new(&r));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_STATE_PAGE_BYTES), 403968);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_STATE_BYTES_PER_SEQUENCE), 14542848);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BYTES_PER_TOKEN), 18432);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BLOCK_SIZE), 800);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_PAGE_BYTES), 409600);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BLOCK_BYTES), 14745600);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_LAYERS_PER_GROUP), 36);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_GROUPS), 2);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_STATE_GROUPS), 1);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_NUM_BLOCKS), 291);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_TOKENS), 116000);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BLOCKS_PER_REQUEST), 22);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_VLLM_CONCURRENCY_X100), 1323);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_MAX_CONCURRENCY), 13);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_WASTE_BYTES), 7870464);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_FITS), 1);
    /* training stays refused (model.c): the saved tensors of a mixer beside attention are not modelled */
    llmmem_report *rep = NULL;
    llmmem_strategy *t = NULL;
    ck_assert_ok(llmmem_report_new(&rep));
    ck_assert_ok(llmmem_strategy_new(&t));
    ck_assert_ok(llmmem_strategy_set_int(t, LLMMEM_KEY_FRAMEWORK, LLMMEM_FRAMEWORK_HF_TRAINER));
    ck_assert_ok(llmmem_strategy_set_int(t, LLMMEM_KEY_MODE, LLMMEM_MODE_TRAINING));
    ck_assert_status(llmmem_estimate(rep, m, hw, t), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "of a model with parallel_ssm (falcon_h1's FalconH1Mixer"));
    llmmem_report_free(rep);
    llmmem_strategy_free(t);
    llmmem_serving_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mixer_parallel_ssm");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, falcon_h1_config);
    tcase_add_test(tc, falcon_h1_presets);
    tcase_add_test(tc, falcon_h1_refusals);
    tcase_add_test(tc, falcon_h1_contiguous);
    tcase_add_test(tc, falcon_h1_serving);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
