/* Families and configs of the models most downloaded at the end of 2026 (issue 33). Each model is read
 * from its published config.json where a verbatim copy was found (tests/data/configs), else from a config
 * rebuilt here from the published fields (each test says which), and counted to the parameter against a
 * published figure; every figure is a publisher's or a third party's record of one, named in a comment
 * (the ids are the stored-corpus records of /work/research/r33/SOURCES.md), never this library's output.
 * Where only a rounded figure exists, the test checks what is derived by hand and says so. */
#include <stdio.h>
#include <string.h>

#include "family.h"

static llmmem_model *from_text(const char *json)
{
    llmmem_model *m = NULL;
    ck_assert_msg(llmmem_model_from_hf_config_text(&m, json, strlen(json)) == LLMMEM_OK, "%s", llmmem_last_message());
    return m;
}

/* Weight bytes of the whole model on one device in inference, in the checkpoint's formats. */
static uint64_t inference_weights(const llmmem_model *m)
{
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_report *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_SEQUENCE_LENGTH, 128));
    ck_assert_ok(llmmem_report_new(&r));
    ck_assert_ok(llmmem_estimate(r, m, hw, s));
    uint64_t w = llmmem_report_bytes(r, LLMMEM_COMPONENT_WEIGHTS);
    llmmem_report_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    return w;
}

/* ---- MiniMax-M2.7: the fp8 config -------------------------------------------------------------- */

/* MiniMaxAI/MiniMax-M2.7 (tests/data/configs/minimax-m2.7.json: its config.json as a model-info report
 * quotes it, r33 SOURCES id 62693775865): MiniMax-M2's shapes, so the Hub's safetensors.total
 * 228,689,764,864 (id 71142266638; tests/test_families_2025.c derives it). Its quantization_config names
 * fmt "float8_e4m3fn" (torch's name of e4m3) and leaves gate, e_score_correction_bias and lm_head
 * unconverted. The report's tensor table stores 228,703,644,928 elements: the parameters and the
 * 13,880,064 fp32 weight_scale_inv of 128 x 128 blocks, per layer q 48 x 24, k, v 8 x 24 each, o 24 x 48,
 * and 256 experts x (w1, w3 12 x 24 + w2 24 x 12): 62 x 223,872 = 13,880,064. Its bytes, by hand from
 * that table's dtypes (the report's 214.33 GiB, rounded): fp8 q, k, v, o and experts one byte a weight
 * and 4 a scale; F32 gate [256, 3072] and e_score_correction_bias; BF16 norms, embedding and head:
 *   per layer: attention 44,040,192 + 4 x 4,608 scales = 44,058,624; experts 3,623,878,656 +
 *   4 x 221,184 = 3,624,763,392; gate and bias 4 x 786,688 = 3,146,752; norms 2 x 13,312 = 26,624:
 *   3,671,995,392 x 62 = 227,663,714,304; embedding and head 2 x 2 x 200064 x 3072 = 2,458,386,432;
 *   final norm 6,144: 230,121,630,720. */
START_TEST(minimax_m2_7_fp8)
{
    llmmem_model *m = load("minimax-m2.7.json");
    ck_assert_uint_eq(total(m), 228689764864ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_QUANTIZATION_FORMAT), LLMMEM_FORMAT_FP8_BLOCK);
    ck_assert_int_eq(get(m, LLMMEM_KEY_ROUTER_FP32), 1);
    ck_assert_uint_eq(inference_weights(m), 230121630720ULL);
    llmmem_model_free(m);
    /* another fmt is still refused by name */
    const char *json = "{\"model_type\": \"minimax_m2\", \"hidden_size\": 64, \"intermediate_size\": 32, "
                       "\"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 100, "
                       "\"num_local_experts\": 4, \"num_experts_per_tok\": 2, \"quantization_config\": "
                       "{\"quant_method\": \"fp8\", \"fmt\": \"float8_e5m2\"}}";
    ck_assert_status(llmmem_model_from_hf_config_text(&m, json, strlen(json)), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "float8_e5m2"));
}
END_TEST

/* ---- Ministral-3: the multimodal config -------------------------------------------------------- */

/* mistralai/Ministral-3-3B-Instruct-2512: 3,849,090,048 parameters (the Hub's safetensors.total, r33 SOURCES
 * id 71142266638). No verbatim config.json was found: this one is rebuilt from the published fields (r33
 * configs/FIELDS.md, families.md §21; Megatron-Bridge docs/models/mistral/ministral3.md), ministral3 at the
 * top as the published one names it, with text_config and its rope_parameters. The text model
 * (Ministral3Config, Mistral's layers): 26 layers of 3072, 32 heads and 8 KV heads of 128, MLP 9216,
 * vocabulary 131072, tied:
 *   per layer q, o 2 x 3072 x 4096 = 25,165,824; k, v 2 x 3072 x 1024 = 6,291,456; MLP 3 x 3072 x 9216 =
 *   84,934,656; norms 6,144: 116,398,080 x 26 = 3,026,350,080; embedding 131072 x 3072 = 402,653,184;
 *   final norm 3,072: 3,429,006,336.
 * Pixtral (hidden 1024, 24 layers, MLP 4096, patch 14): patch_conv 3 x 14 x 14 x 1024 = 602,112; ln_pre
 * 1,024; per layer q, k, v, o 4 x 1024^2 + MLP 3 x 1024 x 4096 + 2 norms = 16,779,264 x 24 = 402,702,336:
 * 403,305,472. Mistral3MultiModalProjector: norm 1,024, patch_merger 1024 x 4096 = 4,194,304, linear_1
 * 1024 x 3072 = 3,145,728, linear_2 3072 x 3072 = 9,437,184: 16,778,240. Total 3,849,090,048. */
static const char ministral3_3b[] =
    "{\"architectures\": [\"Mistral3ForConditionalGeneration\"], \"model_type\": \"ministral3\", "
    "\"dtype\": \"bfloat16\", \"spatial_merge_size\": 2, \"image_token_index\": 10, "
    "\"multimodal_projector_bias\": false, \"projector_hidden_act\": \"gelu\", \"vision_feature_layer\": -1, "
    "\"text_config\": {\"model_type\": \"ministral3\", \"hidden_size\": 3072, \"num_hidden_layers\": 26, "
    "\"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"head_dim\": 128, \"intermediate_size\": 9216, "
    "\"vocab_size\": 131072, \"tie_word_embeddings\": true, \"max_position_embeddings\": 262144, "
    "\"sliding_window\": null, \"rope_parameters\": {\"rope_type\": \"yarn\", \"factor\": 16.0, "
    "\"original_max_position_embeddings\": 16384, \"rope_theta\": 1000000.0, \"beta_fast\": 32.0, "
    "\"beta_slow\": 1.0, \"mscale\": 1.0, \"mscale_all_dim\": 1.0, \"llama_4_scaling_beta\": 0.1}}, "
    "\"vision_config\": {\"model_type\": \"pixtral\", \"hidden_size\": 1024, \"intermediate_size\": 4096, "
    "\"num_hidden_layers\": 24, \"num_attention_heads\": 16, \"head_dim\": 64, \"patch_size\": 14, "
    "\"image_size\": 1540, \"num_channels\": 3, \"rope_parameters\": {\"rope_type\": \"default\", "
    "\"rope_theta\": 10000.0}}}";

START_TEST(ministral3_multimodal)
{
    llmmem_model *m = from_text(ministral3_3b);
    ck_assert_uint_eq(total(m), 3849090048ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_MISTRAL3);
    uint64_t vision = 0;
    ck_assert_ok(llmmem_model_parameters(&vision, m, LLMMEM_PARAMS_VISION));
    ck_assert_uint_eq(vision, 403305472ULL + 16778240ULL);
    llmmem_model_free(m);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("families_2026");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, minimax_m2_7_fp8);
    tcase_add_test(tc, ministral3_multimodal);
    suite_add_tcase(suite, tc);
    return run_suite(suite);
}
