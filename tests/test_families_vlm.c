/* The vision-language families: qwen2_5_vl, qwen3_vl, qwen3_vl_moe, mistral3 and ministral3. Each is
 * read from its published config.json (tests/data/configs) and counted to the parameter, vision
 * tower included, against its publisher's figure; its preset gives the same count. The sums are
 * worked out by hand from the configs' shapes and the transformers modeling files named. */
#include <stdio.h>
#include <string.h>

#include "family.h"

static uint64_t vision(const llmmem_model *m)
{
    uint64_t n = 0;
    ck_assert_ok(llmmem_model_parameters(&n, m, LLMMEM_PARAMS_VISION));
    return n;
}

static void expect_preset(const char *name, uint64_t expected, uint64_t expected_vision)
{
    llmmem_model *m = preset(name);
    ck_assert_uint_eq(total(m), expected);
    ck_assert_uint_eq(vision(m), expected_vision);
    llmmem_model_free(m);
}

/* Qwen/Qwen2.5-VL-7B-Instruct: 8,292,166,656 BF16 parameters (ModelScope model_size and the
 * Hugging Face safetensors metadata; index total_size 16,584,333,312 bytes).
 * Text (Qwen2-shaped, q/k/v biased, untied): per layer q, o 2 x 3584^2 = 25,690,112, k, v
 *   2 x 512 x 3584 = 3,670,016, biases 3584 + 2 x 512 = 4,608, MLP 3 x 3584 x 18944 = 203,685,888,
 *   norms 7,168: 233,057,792 x 28 = 6,525,618,176; embedding and lm_head 2 x 152064 x 3584 =
 *   1,089,994,752; final norm 3,584: 7,615,616,512.
 * Vision (modeling_qwen2_5_vl.py): patch_embed Conv3d 1280 x (3 x 2 x 14 x 14) = 1,505,280, no bias;
 *   per block norm1, norm2 2,560, qkv 3840 x 1280 + 3840, proj 1280^2 + 1280, gate/up 2 x (3420 x
 *   1280 + 3420), down 1280 x 3420 + 1280: 19,702,200 x 32 = 630,470,400; merger ln_q 1,280,
 *   mlp.0 5120^2 + 5120 = 26,219,520, mlp.2 3584 x 5120 + 3584 = 18,353,664: 676,550,144.
 * Total 8,292,166,656. */
START_TEST(qwen2_5_vl_7b)
{
    llmmem_model *m = load("qwen2.5-vl-7b-instruct.json");
    ck_assert_uint_eq(total(m), 8292166656ULL);
    ck_assert_uint_eq(vision(m), 676550144ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_QWEN2_5_VL);
    ck_assert_str_eq(llmmem_choice_name(LLMMEM_KEY_MODEL_TYPE, get(m, LLMMEM_KEY_MODEL_TYPE)), "qwen2_5_vl");
    ck_assert_str_eq(llmmem_choice_name(LLMMEM_KEY_VISION_MODEL_TYPE, get(m, LLMMEM_KEY_VISION_MODEL_TYPE)),
                     "qwen2_5_vl");
    ck_assert_int_eq(get(m, LLMMEM_KEY_VISION_OUT_HIDDEN_SIZE), 3584);
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW), 0); /* use_sliding_window false */
    llmmem_model_free(m);
    expect_preset("qwen2.5-vl-7b-instruct", 8292166656ULL, 676550144ULL);
}
END_TEST

/* Qwen/Qwen2.5-VL-3B-Instruct: 3,754,622,976 BF16 parameters (ModelScope model_size).
 * Text (tied): per layer q, o 2 x 2048^2 = 8,388,608, k, v 2 x 256 x 2048 = 1,048,576, biases 2,560,
 *   MLP 3 x 2048 x 11008 = 67,633,152, norms 4,096: 77,076,992 x 36 = 2,774,771,712; embedding
 *   151936 x 2048 = 311,164,928; final norm 2,048: 3,085,938,688.
 * Vision: as the 7B's but mlp.2 2048 x 5120 + 2048 = 10,487,808: 1,505,280 + 630,470,400 + 1,280 +
 *   26,219,520 + 10,487,808 = 668,684,288. Total 3,754,622,976. */
START_TEST(qwen2_5_vl_3b)
{
    llmmem_model *m = load("qwen2.5-vl-3b-instruct.json");
    ck_assert_uint_eq(total(m), 3754622976ULL);
    ck_assert_uint_eq(vision(m), 668684288ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS), 1);
    llmmem_model_free(m);
    expect_preset("qwen2.5-vl-3b-instruct", 3754622976ULL, 668684288ULL);
}
END_TEST

/* Qwen2.5-VL configs saved by transformers 4.53 and later put the text fields in text_config
 * (model_type qwen2_5_vl_text); the same shapes give the same count. */
START_TEST(qwen2_5_vl_text_config)
{
    const char *json =
        "{\"model_type\": \"qwen2_5_vl\", \"tie_word_embeddings\": true, \"torch_dtype\": \"bfloat16\","
        " \"text_config\": {\"model_type\": \"qwen2_5_vl_text\", \"hidden_size\": 2048, \"intermediate_size\": 11008,"
        " \"num_hidden_layers\": 36, \"num_attention_heads\": 16, \"num_key_value_heads\": 2, \"vocab_size\": 151936,"
        " \"max_position_embeddings\": 128000, \"use_sliding_window\": false},"
        " \"vision_config\": {\"depth\": 32, \"hidden_size\": 1280, \"intermediate_size\": 3420, \"num_heads\": 16,"
        " \"out_hidden_size\": 2048, \"patch_size\": 14, \"spatial_merge_size\": 2, \"temporal_patch_size\": 2}}";
    llmmem_model *m = NULL;
    ck_assert_ok(llmmem_model_from_hf_config_text(&m, json, strlen(json)));
    ck_assert_uint_eq(total(m), 3754622976ULL);
    llmmem_model_free(m);
}
END_TEST

/* Qwen/Qwen3-VL-8B-Instruct: Hugging Face safetensors metadata 8,767,123,696 BF16 parameters.
 * Text (Qwen3 layers, untied): per layer q, o 2 x 4096^2 = 33,554,432, k, v 2 x 1024 x 4096 =
 *   8,388,608, q_norm and k_norm 256, MLP 3 x 4096 x 12288 = 150,994,944, norms 8,192: 192,946,432
 *   x 36 = 6,946,071,552; embedding and lm_head 2 x 151936 x 4096 = 1,244,659,712; final norm 4,096:
 *   8,190,735,360.
 * Vision (modeling_qwen3_vl.py Qwen3VLVisionModel): patch_embed 1152 x (3 x 2 x 16 x 16) + 1152 bias
 *   = 1,770,624; pos_embed 2304 x 1152 = 2,654,208; per block two LayerNorms 4 x 1152, qkv 3456 x 1152
 *   + 3456, proj 1152^2 + 1152, linear_fc1 4304 x 1152 + 4304, linear_fc2 1152 x 4304 + 1152:
 *   15,239,504 x 27 = 411,466,608; merger LayerNorm 2 x 1152, linear_fc1 4608^2 + 4608, linear_fc2
 *   4096 x 4608 + 4096: 40,119,040; three deepstack mergers with LayerNorm 2 x 4608 instead:
 *   3 x 40,125,952 = 120,377,856. Vision 576,388,336; total 8,767,123,696. */
START_TEST(qwen3_vl_8b)
{
    llmmem_model *m = load("qwen3-vl-8b-instruct.json");
    ck_assert_uint_eq(total(m), 8767123696ULL);
    ck_assert_uint_eq(vision(m), 576388336ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_QWEN3_VL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_VISION_DEEPSTACK_LAYERS), 3);
    ck_assert_int_eq(get(m, LLMMEM_KEY_QK_NORM), 1);
    llmmem_model_free(m);
    expect_preset("qwen3-vl-8b-instruct", 8767123696ULL, 576388336ULL);
}
END_TEST

/* Qwen/Qwen3-VL-2B-Instruct: 2,127,532,032 and Qwen/Qwen3-VL-4B-Instruct: 4,437,815,808 BF16
 * parameters (ModelScope model_size).
 * 2B text (tied): per layer q, o 2 x 2048^2, k, v 2 x 1024 x 2048, q/k norms 256, MLP 3 x 2048 x 6144,
 *   norms 4,096: 50,336,000 x 28 = 1,409,408,000; embedding 311,164,928; final norm 2,048:
 *   1,720,574,976. Vision (24 blocks of 1024, MLP 4096): patch_embed 1024 x 1536 + 1024 = 1,573,888,
 *   pos_embed 2,359,296, blocks 12,596,224 x 24 = 302,309,376, merger 2,048 + 16,781,312 + 8,390,656
 *   = 25,174,016, deepstack 3 x (8,192 + 25,171,968) = 75,540,480: 406,957,056.
 * 4B text (tied): per layer q, o 2 x 4096 x 2560, k, v 2 x 1024 x 2560, 256, MLP 3 x 2560 x 9728,
 *   5,120: 100,930,816 x 36 = 3,633,509,376; embedding 388,956,160; final norm 2,560:
 *   4,022,468,096. Vision: the 2B's with each merger's linear_fc2 2560 x 4096 + 2560 (4 x 2,097,664
 *   more): 415,347,712. */
START_TEST(qwen3_vl_presets)
{
    expect_preset("qwen3-vl-2b-instruct", 2127532032ULL, 406957056ULL);
    expect_preset("qwen3-vl-4b-instruct", 4437815808ULL, 415347712ULL);
}
END_TEST

/* Qwen/Qwen3-VL-30B-A3B-Instruct: 31,070,754,032 parameters (the checkpoint's BF16 parameter
 * count as listed by serving providers; no safetensors index total_size was found in reach).
 * Text (Qwen3-MoE layers, untied): per layer q, o 2 x 4096 x 2048 = 16,777,216, k, v 2 x 512 x 2048
 *   = 2,097,152, q/k norms 256, norms 4,096, 128 experts 3 x 2048 x 768 each = 603,979,776, router
 *   128 x 2048 = 262,144: 623,120,640 x 48 = 29,909,790,720; embedding and lm_head 622,329,856; final
 *   norm 2,048: 30,532,122,624.
 * Vision: the 8B's with each merger's linear_fc2 2048 x 4608 + 2048: 576,388,336 - 4 x 9,439,232 =
 *   538,631,408. Total 31,070,754,032. */
START_TEST(qwen3_vl_30b_a3b)
{
    llmmem_model *m = load("qwen3-vl-30b-a3b-instruct.json");
    ck_assert_uint_eq(total(m), 31070754032ULL);
    ck_assert_uint_eq(vision(m), 538631408ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_QWEN3_VL_MOE);
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_EXPERTS), 128);
    llmmem_model_free(m);
    expect_preset("qwen3-vl-30b-a3b-instruct", 31070754032ULL, 538631408ULL);
}
END_TEST

/* mistralai/Mistral-Small-3.1-24B-Instruct-2503: 24,011,361,280 parameters (published total of
 * the checkpoint; Keras Hub lists the same for its port).
 * Text (mistral, untied): per layer q, o 2 x 4096 x 5120 = 41,943,040, k, v 2 x 1024 x 5120 =
 *   10,485,760, MLP 3 x 5120 x 32768 = 503,316,480, norms 10,240: 555,755,520 x 40 =
 *   22,230,220,800; embedding and lm_head 2 x 131072 x 5120 = 1,342,177,280; final norm 5,120:
 *   23,572,403,200.
 * Vision (PixtralVisionModel): patch_conv 1024 x 3 x 14 x 14 = 602,112, ln_pre 1,024, per layer
 *   4 x 1024^2 + 3 x 1024 x 4096 + 2 x 1024 = 16,779,264 x 24 = 402,702,336; projector norm 1,024,
 *   merging_layer 1024 x 4096 = 4,194,304, linear_1 5120 x 1024 = 5,242,880, linear_2 5120^2 =
 *   26,214,400: 35,652,608. Vision tower and projector 438,958,080; total 24,011,361,280. */
START_TEST(mistral_small_3_1)
{
    llmmem_model *m = load("mistral-small-3.1-24b-instruct-2503.json");
    ck_assert_uint_eq(total(m), 24011361280ULL);
    ck_assert_uint_eq(vision(m), 438958080ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_MISTRAL3);
    ck_assert_int_eq(get(m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS), 0);
    ck_assert_str_eq(llmmem_choice_name(LLMMEM_KEY_MULTIMODAL_PROJECTOR, get(m, LLMMEM_KEY_MULTIMODAL_PROJECTOR)),
                     "mistral3");
    llmmem_model_free(m);
    expect_preset("mistral-small-3.1-24b-instruct-2503", 24011361280ULL, 438958080ULL);
}
END_TEST

/* Qwen/Qwen3-VL-235B-A22B-Instruct: 235,670,022,896 parameters (the checkpoint's BF16 count as
 * listed by serving providers). Text: per layer q, o 2 x 8192 x 4096 = 67,108,864, k, v 2 x 512 x
 *   4096 = 4,194,304, q/k norms 256, norms 8,192, 128 experts 3 x 4096 x 1536 = 2,415,919,104,
 *   router 128 x 4096 = 524,288: 2,487,755,008 x 94 = 233,848,970,752; embedding and lm_head
 *   1,244,659,712; final norm 4,096: 235,093,634,560. Vision: the 8B's, 576,388,336. */
START_TEST(qwen3_vl_235b_a22b)
{
    expect_preset("qwen3-vl-235b-a22b-instruct", 235670022896ULL, 576388336ULL);
}
END_TEST

/* mistralai/Mistral-Small-3.2-24B-Instruct-2506 keeps the 3.1 architecture: its published total
 * is the same 24,011,361,280. */
START_TEST(mistral_small_3_2)
{
    expect_preset("mistral-small-3.2-24b-instruct-2506", 24011361280ULL, 438958080ULL);
}
END_TEST

/* ministral3 alone (Ministral3ForCausalLM). No publisher total was found in reach for a Ministral 3
 * checkpoint (the instruct ones are stored in FP8), so this checks the family row's class defaults
 * against a hand derivation from transformers models/ministral3/configuration_ministral3.py
 * (vocab_size=131072, hidden_size=4096, intermediate_size=14336, num_hidden_layers=34,
 * num_attention_heads=32, num_key_value_heads=8, head_dim=128, tie_word_embeddings=False): a config
 * naming the 3B's text shapes (Ministral-3-3B: 26 layers of 3072, MLP 9216) and leaving the rest:
 *   per layer q, o 2 x 4096 x 3072 = 25,165,824, k, v 2 x 1024 x 3072 = 6,291,456, MLP 3 x 3072 x
 *   9216 = 84,934,656, norms 6,144: 116,398,080 x 26 = 3,026,350,080; embedding and lm_head
 *   2 x 131072 x 3072 = 805,306,368; final norm 3,072: 3,831,659,520. */
START_TEST(ministral3_text)
{
    const char *json = "{\"model_type\": \"ministral3\", \"hidden_size\": 3072, \"num_hidden_layers\": 26,"
                       " \"intermediate_size\": 9216, \"num_attention_heads\": 32, \"vocab_size\": 131072,"
                       " \"sliding_window\": null}";
    llmmem_model *m = NULL;
    ck_assert_ok(llmmem_model_from_hf_config_text(&m, json, strlen(json)));
    ck_assert_uint_eq(total(m), 3831659520ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_MINISTRAL3);
    ck_assert_int_eq(get(m, LLMMEM_KEY_HEAD_DIM), 128);
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_KEY_VALUE_HEADS), 8);
    llmmem_model_free(m);
}
END_TEST

/* A Ministral 3 checkpoint: mistral3 whose text_config is a ministral3 (its class defaults fill
 * it) and whose vision_config names only what differs from PixtralVisionConfig (patch_size 14).
 * Text as ministral3_text: 3,831,659,520. Vision: patch_conv 1024 x 3 x 14 x 14 = 602,112, ln_pre
 * 1,024, 24 layers of 16,779,264 = 402,702,336: 403,305,472; projector norm 1,024, merging_layer
 * 1024 x 4096 = 4,194,304, linear_1 3072 x 1024 = 3,145,728, linear_2 3072^2 = 9,437,184:
 * 16,778,240. Vision and projector 420,083,712; total 4,251,743,232. */
START_TEST(mistral3_with_ministral3_text)
{
    const char *json = "{\"model_type\": \"mistral3\", \"text_config\": {\"model_type\": \"ministral3\","
                       " \"hidden_size\": 3072, \"num_hidden_layers\": 26, \"intermediate_size\": 9216},"
                       " \"vision_config\": {\"model_type\": \"pixtral\", \"patch_size\": 14}}";
    llmmem_model *m = NULL;
    ck_assert_ok(llmmem_model_from_hf_config_text(&m, json, strlen(json)));
    ck_assert_uint_eq(vision(m), 420083712ULL);
    ck_assert_uint_eq(total(m), 4251743232ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_MISTRAL3);
    llmmem_model_free(m);
}
END_TEST

/* What the inventory does not model is refused by name. */
START_TEST(refusals)
{
    static const char *const refused[][2] = {
        {"{\"model_type\": \"mistral3\", \"multimodal_projector_bias\": true, \"text_config\": {},"
         " \"vision_config\": {}}", "multimodal_projector_bias"},
        {"{\"model_type\": \"mistral3\", \"vision_feature_layer\": [-1, -2], \"text_config\": {},"
         " \"vision_config\": {}}", "vision_feature_layer"},
        {"{\"model_type\": \"mistral3\", \"text_config\": {\"model_type\": \"qwen2\"}, \"vision_config\": {}}",
         "text_config.model_type"},
        {"{\"model_type\": \"qwen3_vl\", \"text_config\": {\"model_type\": \"llama\"}, \"vision_config\": {}}",
         "text_config.model_type"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        llmmem_model *m = NULL;
        ck_assert_status(llmmem_model_from_hf_config_text(&m, refused[i][0], strlen(refused[i][0])),
                         LLMMEM_ERR_UNSUPPORTED);
        ck_assert_msg(strstr(llmmem_last_message(), refused[i][1]) != NULL, "%s", llmmem_last_message());
        ck_assert_ptr_null(m);
    }
}
END_TEST

/* ---- caches ------------------------------------------------------------------------------ */

/* The text model's KV cache, one sequence of 1000 tokens in bf16, K and V of every KV head of
 * every layer (transformers DynamicCache):
 *   Qwen2.5-VL-7B 28 layers x 2 x 4 heads x 128 x 2 bytes = 57,344 per token;
 *   Qwen3-VL-8B 36 x 2 x 8 x 128 x 2 = 147,456; Qwen3-VL-30B-A3B 48 x 2 x 4 x 128 x 2 = 98,304;
 *   Mistral-Small-3.1 40 x 2 x 8 x 128 x 2 = 163,840 (sliding_window null: every layer full). */
START_TEST(kv_cache_one_sequence)
{
    static const struct {
        const char *preset;
        uint64_t per_token;
    } cases[] = {{"qwen2.5-vl-7b-instruct", 57344}, {"qwen3-vl-8b-instruct", 147456},
                 {"qwen3-vl-30b-a3b-instruct", 98304}, {"mistral-small-3.1-24b-instruct-2503", 163840}};
    llmmem_strategy *s = NULL;
    ck_assert_ok(llmmem_strategy_new(&s));
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        llmmem_model *m = preset(cases[i].preset);
        uint64_t bytes = 0;
        ck_assert_ok(llmmem_kv_cache_bytes(&bytes, m, s, 1, 1000));
        ck_assert_uint_eq(bytes, cases[i].per_token * 1000);
        ck_assert_ok(llmmem_kv_bytes_per_token(&bytes, m, s));
        ck_assert_uint_eq(bytes, cases[i].per_token);
        llmmem_model_free(m);
    }
    llmmem_strategy_free(s);
}
END_TEST

typedef struct served {
    uint64_t item, compute, cache, items, cache_bytes, profile_bytes, kv, act;
} served;

static served serve(const char *model, int64_t limit)
{
    llmmem_model *m = preset(model);
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_serving *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_serving_new(&r));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_LIMIT_MM_PER_PROMPT, limit));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    served x = {llmmem_serving_get(r, LLMMEM_SERVING_MM_MAX_TOKENS_PER_ITEM),
                llmmem_serving_get(r, LLMMEM_SERVING_ENCODER_COMPUTE_BUDGET),
                llmmem_serving_get(r, LLMMEM_SERVING_ENCODER_CACHE_SIZE),
                llmmem_serving_get(r, LLMMEM_SERVING_MM_ITEMS_PER_BATCH),
                llmmem_serving_get(r, LLMMEM_SERVING_ENCODER_CACHE_BYTES),
                llmmem_serving_get(r, LLMMEM_SERVING_ENCODER_PROFILE_BYTES),
                llmmem_serving_get(r, LLMMEM_SERVING_KV_CACHE_BYTES),
                llmmem_serving_get(r, LLMMEM_SERVING_ACTIVATION_PEAK)};
    llmmem_serving_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
    return x;
}

/* vLLM's encoder budget on one H100 (80 GiB: max_num_batched_tokens 8192, max_num_seqs 1024),
 * limit_mm_per_prompt unset (999 images), max_model_len the model's.
 * Qwen2.5-VL-7B (vllm qwen2_vl.py get_image_size_with_most_features): max_pixels 12,845,056 =
 *   3584^2, 3584 / 28 = 128 merged patches a side: 16,384 embeddings per image. Compute budget
 *   max(8192, 16384) = 16,384, cache size 16,384 (encoder_budget.py, encoder_cache_manager.py);
 *   items min(16384 // 16384 = 1, 1024 x min(999, 128000 // 16384 = 7)) = 1. Embeddings of
 *   out_hidden_size 3584 in bf16: cache 16,384 x 3584 x 2 = 117,440,512 bytes, the profile run's one
 *   image the same; the KV budget is that much smaller than with limit_mm_per_prompt 0 (text only).
 * Qwen3-VL-8B: max_pixels 16,777,216 = 4096^2, 4096 / 32 = 128: 16,384 embeddings of 4096 x (1 + 3
 *   deepstack) = 16,384 elements: 16,384 x 16,384 x 2 = 536,870,912 bytes.
 * Mistral-Small-3.1: a 1540-pixel image in 14 x 2 = 28-pixel squares: 55^2 = 3,025 embeddings of
 *   5120; compute budget and cache max(8192, 3025) = 8,192; items min(8192 // 3025 = 2, 1024 x 43) =
 *   2: cache 8,192 x 5120 x 2 = 83,886,080 bytes, profile 2 x 3,025 x 10,240 = 61,952,000. */
START_TEST(encoder_cache_budget)
{
    static const struct {
        const char *preset;
        served want;
    } cases[] = {
        {"qwen2.5-vl-7b-instruct", {16384, 16384, 16384, 1, 117440512ULL, 117440512ULL, 0, 0}},
        {"qwen3-vl-8b-instruct", {16384, 16384, 16384, 1, 536870912ULL, 536870912ULL, 0, 0}},
        {"mistral-small-3.1-24b-instruct-2503", {3025, 8192, 8192, 2, 83886080ULL, 61952000ULL, 0, 0}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        served x = serve(cases[i].preset, 999), text = serve(cases[i].preset, 0);
        ck_assert_uint_eq(x.item, cases[i].want.item);
        ck_assert_uint_eq(x.compute, cases[i].want.compute);
        ck_assert_uint_eq(x.cache, cases[i].want.cache);
        ck_assert_uint_eq(x.items, cases[i].want.items);
        ck_assert_uint_eq(x.cache_bytes, cases[i].want.cache_bytes);
        ck_assert_uint_eq(x.profile_bytes, cases[i].want.profile_bytes);
        ck_assert_uint_eq(text.item, 0);
        ck_assert_uint_eq(text.profile_bytes, 0);
        ck_assert_uint_eq(x.act - text.act, x.profile_bytes);
        ck_assert_uint_eq(text.kv - x.kv, x.profile_bytes);
    }
}
END_TEST

/* ---- training with images ------------------------------------------------------------------- */

/* Activations held at the end of the forward of one micro-batch (one sequence of 256 tokens, bf16),
 * with images_per_sequence images of image_pixels each and without. */
static uint64_t held(const char *model, int64_t images, int64_t pixels, int64_t attn, int64_t recompute)
{
    llmmem_model *m = preset(model);
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_report *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_report_new(&r));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MODE, LLMMEM_MODE_TRAINING));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_SEQUENCE_LENGTH, 256));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MICRO_BATCH_SIZE, 1));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_ATTN_IMPLEMENTATION, attn));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_NORM_IMPLEMENTATION, LLMMEM_NORM_IMPL_INPUT));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_RECOMPUTE, recompute));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_IMAGES_PER_SEQUENCE, images));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_IMAGE_PIXELS, pixels));
    ck_assert_ok(llmmem_estimate(r, m, hw, s));
    uint64_t x = llmmem_report_peak_part(r, LLMMEM_PEAK_ACTIVATIONS_HELD);
    llmmem_report_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
    return x;
}

/* Qwen2.5-VL-3B's tower trained on one 448 x 448 image (modeling_qwen2_5_vl.py): smart_resize
 * keeps 448 = 16 x 28, so 32 x 32 = 1,024 patches (n), 256 merged tokens; vh 1280, vi 3420, 16
 * heads of 80, 32 blocks (4 full, 28 windowed in windows of 112 / 28 = 4 merged tokens a side).
 * Norms saving their input (norm_implementation input), bf16 (e = 2). One block with SDPA: norm1's
 * and qkv's input, q, k, v and the output's (proj's input) 6 x n x vh x 2 = 15,728,640, the fp32
 * log-sum-exp 16 x n x 4 = 65,536, norm2's and the MLP's input 2 x 2,621,440 = 5,242,880, gate,
 * up, SiLU's output and down's input 4 x n x vi x 2 = 28,016,640: 49,053,696 x 32 = 1,569,718,272.
 * Outside the blocks: the rotary cos and sin (fp32 n x 80 each) 655,360, the Conv3d's input
 * n x (3 x 2 x 14 x 14) x 2 = 2,408,448, the merger's ln_q input 2,621,440 and its fc1, GELU and
 * fc2 inputs 3 x 256 x 5120 x 2 = 7,864,320. Vision: 1,583,267,840.
 * Eager attention instead of SDPA: no log-sum-exp (32 x 65,536 fewer), but the fp32 softmax and
 * its bf16 copy (6 bytes a score) of 16 heads over each image (4 full blocks: 1024^2 scores a
 * head, 16 x 1,048,576 x 4 x 6 = 402,653,184) or window (16 windows of 8 x 8 = 64 patches:
 * 65,536 scores a head, 16 x 65,536 x 28 x 6 = 176,160,768): 2,159,984,640.
 * Full recomputation: each block keeps its input, 32 x n x vh x 2 = 83,886,080, and the rest as
 * above: 83,886,080 + 2,408,448 + 2,621,440 + 7,864,320 = 96,780,288. */
START_TEST(vision_training_activations)
{
    const char *q = "qwen2.5-vl-3b-instruct";
    const int64_t px = 448 * 448;
    uint64_t text = held(q, 0, 0, LLMMEM_ATTN_SDPA, LLMMEM_RECOMPUTE_NONE);
    ck_assert_uint_eq(held(q, 1, px, LLMMEM_ATTN_SDPA, LLMMEM_RECOMPUTE_NONE) - text, 1583267840ULL);
    text = held(q, 0, 0, LLMMEM_ATTN_EAGER, LLMMEM_RECOMPUTE_NONE);
    ck_assert_uint_eq(held(q, 1, px, LLMMEM_ATTN_EAGER, LLMMEM_RECOMPUTE_NONE) - text, 2159984640ULL);
    text = held(q, 0, 0, LLMMEM_ATTN_SDPA, LLMMEM_RECOMPUTE_FULL);
    ck_assert_uint_eq(held(q, 1, px, LLMMEM_ATTN_SDPA, LLMMEM_RECOMPUTE_FULL) - text, 96780288ULL);
}
END_TEST

/* Qwen3-VL-2B's tower (modeling_qwen3_vl.py) on one 512 x 512 image: 512 = 16 x 32, 32 x 32 = 1,024
 * patches, 256 merged tokens; vh 1024, vi 4096, 16 heads of 64, 24 blocks, 3 deepstack mergers;
 * LayerNorms saving their input, SDPA, bf16. One block: norm1's and qkv's input, q, k, v, proj's
 * input, norm2's and fc1's input 8 x 1024 x 1024 x 2 = 16,777,216, the log-sum-exp 65,536, GELU's
 * and fc2's input 2 x 1024 x 4096 x 2 = 16,777,216: 33,619,968 x 24 = 806,879,232. Outside: cos and
 * sin 1024 x 64 x 2 x 4 = 524,288, the Conv3d's input 1024 x 1536 x 2 = 3,145,728, the position
 * interpolation's int64 indices and bilinear weights 1024 x 4 x (8 + 2) = 40,960, the merger's norm
 * input 2,097,152, the deepstack mergers' LayerNorm inputs 3 x 256 x 4096 x 2 = 6,291,456, four
 * mergers' fc1, GELU and fc2 inputs 4 x 3 x 256 x 4096 x 2 = 25,165,824: 844,144,640.
 * Pixtral (Mistral-Small-3.1, modeling_pixtral.py) on one 448 x 448 image: 16 merged squares of 28
 * a side, 1,024 patches; vh 1024, vi 4096, 16 heads of 64, 24 layers, gated MLP. One layer with
 * SDPA: 16,777,216 + 65,536 + 4 x 1024 x 4096 x 2 = 50,397,184 x 24 = 1,209,532,416. Outside: cos
 * and sin in bf16 262,144, patch_conv's input 1024 x 588 x 2 = 1,204,224, ln_pre's input 2,097,152;
 * the projector's norm input 2,097,152, merging_layer's 256 x 4096 x 2 = 2,097,152, linear_1's
 * 256 x 1024 x 2 = 524,288, GELU's and linear_2's 2 x 256 x 5120 x 2 = 5,242,880: 1,223,057,408.
 * Eager: Pixtral attends over the batch's patches at once, 16 heads x 1024^2 scores x 24 layers x
 * 6 bytes = 2,415,919,104 more, 24 x 65,536 log-sum-exp fewer: 3,637,403,648. */
START_TEST(vision_training_qwen3_pixtral)
{
    const char *q = "qwen3-vl-2b-instruct", *p = "mistral-small-3.1-24b-instruct-2503";
    uint64_t text = held(q, 0, 0, LLMMEM_ATTN_SDPA, LLMMEM_RECOMPUTE_NONE);
    ck_assert_uint_eq(held(q, 1, 512 * 512, LLMMEM_ATTN_SDPA, LLMMEM_RECOMPUTE_NONE) - text, 844144640ULL);
    text = held(p, 0, 0, LLMMEM_ATTN_SDPA, LLMMEM_RECOMPUTE_NONE);
    ck_assert_uint_eq(held(p, 1, 448 * 448, LLMMEM_ATTN_SDPA, LLMMEM_RECOMPUTE_NONE) - text, 1223057408ULL);
    text = held(p, 0, 0, LLMMEM_ATTN_EAGER, LLMMEM_RECOMPUTE_NONE);
    ck_assert_uint_eq(held(p, 1, 448 * 448, LLMMEM_ATTN_EAGER, LLMMEM_RECOMPUTE_NONE) - text, 3637403648ULL);
}
END_TEST

/* A tower the library does not model the activations of is refused by name, not ignored. */
START_TEST(vision_training_refused)
{
    llmmem_model *m = preset("gemma-3-4b");
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_report *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_report_new(&r));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MODE, LLMMEM_MODE_TRAINING));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_SEQUENCE_LENGTH, 256));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_IMAGES_PER_SEQUENCE, 1));
    ck_assert_status(llmmem_estimate(r, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(llmmem_last_message(), "images_per_sequence") != NULL, "%s", llmmem_last_message());
    llmmem_report_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("families_vlm");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, qwen2_5_vl_7b);
    tcase_add_test(tc, qwen2_5_vl_3b);
    tcase_add_test(tc, qwen2_5_vl_text_config);
    tcase_add_test(tc, qwen3_vl_8b);
    tcase_add_test(tc, qwen3_vl_presets);
    tcase_add_test(tc, qwen3_vl_30b_a3b);
    tcase_add_test(tc, mistral_small_3_1);
    tcase_add_test(tc, qwen3_vl_235b_a22b);
    tcase_add_test(tc, mistral_small_3_2);
    tcase_add_test(tc, ministral3_text);
    tcase_add_test(tc, mistral3_with_ministral3_text);
    tcase_add_test(tc, refusals);
    tcase_add_test(tc, kv_cache_one_sequence);
    tcase_add_test(tc, encoder_cache_budget);
    tcase_add_test(tc, vision_training_activations);
    tcase_add_test(tc, vision_training_qwen3_pixtral);
    tcase_add_test(tc, vision_training_refused);
    suite_add_tcase(suite, tc);
    return run_suite(suite);
}
