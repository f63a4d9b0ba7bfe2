/* Phi-4-mini-flash-reasoning (model_type phi4flash, remote code): the SambaY decoder-hybrid-decoder of its modeling
 * file (modeling_phi4flash.py; vllm model_executor/models/phi4flash.py reads the same config), counted to the
 * Hub's figure; its contiguous cache (SambaYCache) derived by hand; what is not modelled refused by name. */
#include <stdio.h>
#include <string.h>

#include "family.h"

/* microsoft/Phi-4-mini-flash-reasoning: no verbatim config.json was found; this one has Phi4FlashConfig's field
 * names (configuration_phi4flash.py) and the checkpoint's shapes (r33 families.md §8, microsoft/ArchScale
 * phi4miniflash_d32): hidden 2560, 32 layers, 40 heads and 20 KV heads of 64, intermediate 10240, vocab 200064
 * tied, sliding_window 512, the Mamba defaults (d_state 16, d_conv 4, expand 2, dt_rank ceil(2560 / 16) = 160). */
static const char phi4flash_config[] =
    "{\"architectures\": [\"Phi4FlashForCausalLM\"], \"model_type\": \"phi4flash\", \"vocab_size\": 200064, "
    "\"hidden_size\": 2560, \"intermediate_size\": 10240, \"num_hidden_layers\": 32, \"num_attention_heads\": 40, "
    "\"num_key_value_heads\": 20, \"max_position_embeddings\": 262144, \"sliding_window\": 512, \"mb_per_layer\": 2, "
    "\"mamba_d_state\": 16, \"mamba_d_conv\": 4, \"mamba_expand\": 2, \"mamba_dt_rank\": \"auto\", "
    "\"mamba_conv_bias\": true, \"mamba_proj_bias\": false, \"tie_word_embeddings\": true, \"layer_norm_eps\": 1e-05, "
    "\"hidden_act\": \"silu\", \"rope_theta\": 10000.0, \"torch_dtype\": \"bfloat16\"}";

/* The Hub's safetensors.total 3,852,562,944 (r33 SOURCES id 71142266638). SambaYDecoderLayer i: Mamba when i % 2 ==
 * 0, a gated memory unit (yoco_cross) from layer 18 on; attention when odd, sliding below 16, layer 17 full, the
 * later ones reading layer 17's keys and values (yoco_cross: Wqkv of the query alone). Inner width 5120:
 *   Mamba-1 (layers 0, 2, ..., 16: 9): in_proj 2 x 5120 x 2560 = 26,214,400, conv1d 5120 x 4 + bias 5120,
 *     x_proj (160 + 32) x 5120 = 983,040, dt_proj 5120 x 160 + bias 5120, A_log 5120 x 16, D 5120,
 *     out_proj 2560 x 5120 = 13,107,200: 41,241,600
 *   gated memory units (18, ..., 30: 7): in_proj 5120 x 2560 + out_proj 2560 x 5120 = 26,214,400
 *   attention computing keys and values (1, 3, ..., 17: 9): Wqkv (40 + 2 x 20) x 64 x 2560 = 13,107,200 + bias
 *     5120, out_proj 2560 x 2560 + bias 2560, lambda_q1, k1, q2, k2 4 x 64, subln 128: 19,668,864
 *   attention reading layer 17's (19, ..., 31: 7): Wqkv 2560 x 2560 + bias 2560, out_proj + bias, lambdas,
 *     subln: 13,112,704
 *   every layer: fc1 20480 x 2560 + fc2 2560 x 10240 = 78,643,200, two LayerNorms 4 x 2560 = 10,240
 *   9 x 41,241,600 + 7 x 26,214,400 + 9 x 19,668,864 + 7 x 13,112,704 + 32 x 78,653,440 = 3,340,393,984;
 *   tied embedding 200064 x 2560 = 512,163,840; final LayerNorm 5,120: 3,852,562,944. */
START_TEST(phi4flash_count)
{
    llmmem_model *m = from_text(phi4flash_config);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_PHI4FLASH);
    ck_assert_uint_eq(total(m), 3852562944ULL);
    uint64_t n = 0;
    ck_assert_ok(llmmem_model_parameters(&n, m, LLMMEM_PARAMS_SSM)); /* Mamba-1 and gated memory units */
    ck_assert_uint_eq(n, 9ULL * 41241600 + 7ULL * 26214400);
    ck_assert_uint_eq(inference_weights(m), 2 * 3852562944ULL); /* bf16 */
    llmmem_model_free(m);
}
END_TEST

/* SambaYCache (modeling_phi4flash.py), bf16, 1 sequence of 1,024 tokens: layer 17's keys and values 2 x 20 x 1,024
 * x 64 x 2 B = 5,242,880; 8 sliding layers of min(512, 1,024) positions, 2 x 20 x 512 x 64 x 2 B = 2,621,440 each;
 * 9 Mamba layers' conv (5120 x d_conv 4) and ssm (5120 x 16) states, 204,800 B each; the gated memory units and the
 * layers after 17 keep nothing: 5,242,880 + 20,971,520 + 1,843,200 = 28,057,600. Of 300 tokens (within the window):
 * 1,536,000 + 8 x 1,536,000 + 1,843,200 = 15,667,200. */
START_TEST(phi4flash_cache)
{
    llmmem_model *m = from_text(phi4flash_config);
    llmmem_strategy *s = NULL;
    uint64_t n = 0;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_kv_cache_bytes(&n, m, s, 1, 1024));
    ck_assert_uint_eq(n, 28057600ULL);
    ck_assert_ok(llmmem_kv_cache_bytes(&n, m, s, 2, 1024));
    ck_assert_uint_eq(n, 2 * 28057600ULL);
    ck_assert_ok(llmmem_kv_cache_bytes(&n, m, s, 1, 300));
    ck_assert_uint_eq(n, 15667200ULL);
    llmmem_strategy_free(s);
    llmmem_model_free(m);
}
END_TEST

/* What is not modelled is refused, naming the family or the layers: training activations (KV-shared layers),
 * vLLM's paged cache (sliding layers beside state layers; vLLM runs phi4flash on its V0 engine only), the generate
 * loop (Mamba-1 states), and an mb_per_layer SambaYCache does not place. */
START_TEST(phi4flash_refusals)
{
    llmmem_model *m = from_text(phi4flash_config);
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_report *r = NULL;
    llmmem_serving *v = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_report_new(&r));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MODE, LLMMEM_MODE_TRAINING));
    ck_assert_status(llmmem_estimate(r, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "(phi4flash)"));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MODE, LLMMEM_MODE_INFERENCE));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MAX_NEW_TOKENS, 16));
    ck_assert_status(llmmem_estimate(r, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "Mamba-1"));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MAX_NEW_TOKENS, 0));
    ck_assert_ok(llmmem_serving_new(&v));
    ck_assert_status(llmmem_serving_estimate(v, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_null(strstr(llmmem_last_message(), "Mamba-2")); /* its state layers are Mamba-1 */
    /* SGLang refuses the 7 KV-shared layers (18-30, spread, not the last 7) and names no vLLM serving
     * (which refuses phi4flash too) among what is modelled */
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_ENGINE, LLMMEM_ENGINE_SGLANG));
    ck_assert_status(llmmem_serving_estimate(v, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "whose 7 layers share"));
    ck_assert_ptr_null(strstr(llmmem_last_message(), "vLLM serving"));
    llmmem_serving_free(v);
    llmmem_report_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);

    /* MLA's latent with differential attention: refused, not a paged cache of 0-byte pages */
    llmmem_model *mla = from_text(phi4flash_config);
    ck_assert_ok(llmmem_model_set_int(mla, LLMMEM_KEY_KV_LORA_RANK, 6));
    ck_assert_ok(llmmem_model_set_int(mla, LLMMEM_KEY_QK_ROPE_HEAD_DIM, 64));
    uint64_t n = 0;
    ck_assert_status(llmmem_model_total_parameters(&n, mla), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "kv_lora_rank"));
    llmmem_model_free(mla);

    llmmem_model *bad = NULL;
    const char *three = "{\"model_type\": \"phi4flash\", \"hidden_size\": 64, \"num_hidden_layers\": 8, "
                        "\"num_attention_heads\": 4, \"intermediate_size\": 96, \"vocab_size\": 100, \"mb_per_layer\": 3}";
    ck_assert_status(llmmem_model_from_hf_config_text(&bad, three, strlen(three)), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "mb_per_layer"));
    llmmem_model_free(bad);
}
END_TEST

/* Phi4FlashConfig's class defaults (num_key_value_heads 4, sliding_window 2047, mamba_d_state 16, mamba_d_conv 4,
 * mamba_expand 2, mamba_dt_rank "auto", mamba_conv_bias, tied) for hidden 64, 8 layers, 4 heads of 16, intermediate
 * 96, vocab 100. Layers 0, 2, 4 Mamba, 6 a gated memory unit, 1 and 3 sliding, 5 full, 7 reading 5's; inner 128,
 * dt_rank ceil(64 / 16) = 4:
 *   Mamba-1: in_proj 16,384, conv1d 512 + 128, x_proj 36 x 128 = 4,608, dt_proj 512 + 128, A_log 2,048, D 128,
 *     out_proj 8,192: 32,640 x 3 = 97,920; gated memory unit 2 x 8,192 = 16,384
 *   own attention: q, k, v, o 4 x 4,096 + biases 4 x 64, lambdas 64, subln 32: 16,736 x 3 = 50,208; layer 7:
 *     q, o 2 x 4,096 + biases 128 + 64 + 32 = 8,416
 *   MLP 3 x 64 x 96 = 18,432 and LayerNorms 256 a layer: 18,688 x 8 = 149,504
 *   tied embedding 6,400, final LayerNorm 128: 328,960. */
START_TEST(phi4flash_defaults)
{
    llmmem_model *m = from_text("{\"model_type\": \"phi4flash\", \"hidden_size\": 64, \"num_hidden_layers\": 8, "
                                "\"num_attention_heads\": 4, \"intermediate_size\": 96, \"vocab_size\": 100}");
    ck_assert_uint_eq(total(m), 328960);
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW), 2047);
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_KEY_VALUE_HEADS), 4);
    llmmem_model_free(m);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("family_phi4flash");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, phi4flash_count);
    tcase_add_test(tc, phi4flash_cache);
    tcase_add_test(tc, phi4flash_refusals);
    tcase_add_test(tc, phi4flash_defaults);
    suite_add_tcase(suite, tc);
    return run_suite(suite);
}
