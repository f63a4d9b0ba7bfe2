/* The vision-language families: qwen2_5_vl, qwen3_vl, qwen3_vl_moe, mistral3 and ministral3, and issue
 * 33's Ministral-3 multimodal config, Gemma 4 (vision and audio towers), Kimi-K2.5, EXAONE 4.5 and MiniMax-M3.
 * Each is read from its
 * published config.json (tests/data/configs), or for issue 33's from one rebuilt from the published
 * fields (each test says which, the ids those of /work/research/r33/SOURCES.md), and counted to the
 * parameter, vision tower included, against its publisher's figure; its preset gives the same count.
 * The sums are worked out by hand from the configs' shapes and the transformers modeling files named. */
#include <stdio.h>
#include <string.h>

#include "family.h"
#include "inventory/towers.h"

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

/* ---- Gemma 4 (gemma4) ----------------------------------------------------------------------------- */

/* A Gemma4Config of a variant of transformers models/gemma4/convert_gemma4_weights.py `_VARIANTS` (r33
 * families.md §2, configs/FIELDS.md; no verbatim config.json was found): layer_types of `pattern` (S sliding,
 * F full) repeated, vocabulary 262144, head_dim 256 and global_head_dim 512, tied embeddings; the on-device
 * vision tower (768 wide, 16 layers, 12 heads of 64, MLP 3072, clipped linears) and the default audio tower
 * for the E-series, the large one (1152 wide, 27 layers, 16 heads of 72, MLP 4304, standardize) else. */
static llmmem_model *gemma4(int64_t h, int64_t layers, int64_t inter, int64_t heads, int64_t kv, int64_t gkv,
                            const char *pattern, int64_t window, int64_t kv_shared, int wide, int64_t hpl, int64_t experts,
                            int64_t moe_inter, int on_device)
{
    char json[8192], types[4096] = "", extra[512] = "";
    size_t used = 0, n = strlen(pattern);
    for (int64_t i = 0; i < layers; i++)
        used += (size_t)snprintf(types + used, sizeof types - used, "%s\"%s\"", i ? ", " : "",
                                 pattern[i % (int64_t)n] == 'F' ? "full_attention" : "sliding_attention");
    if (gkv)
        snprintf(extra, sizeof extra, "\"attention_k_eq_v\": true, \"num_global_key_value_heads\": %lld, ", (long long)gkv);
    if (experts)
        snprintf(extra + strlen(extra), sizeof extra - strlen(extra),
                 "\"enable_moe_block\": true, \"num_experts\": %lld, \"top_k_experts\": 8, \"moe_intermediate_size\": %lld, ",
                 (long long)experts, (long long)moe_inter);
    snprintf(json, sizeof json,
             "{\"architectures\": [\"Gemma4ForConditionalGeneration\"], \"model_type\": \"gemma4\", \"dtype\": \"bfloat16\", "
             "\"tie_word_embeddings\": true, \"text_config\": {\"model_type\": \"gemma4_text\", \"hidden_size\": %lld, "
             "\"num_hidden_layers\": %lld, \"intermediate_size\": %lld, \"num_attention_heads\": %lld, "
             "\"num_key_value_heads\": %lld, \"head_dim\": 256, \"global_head_dim\": 512, \"vocab_size\": 262144, "
             "\"sliding_window\": %lld, \"layer_types\": [%s], \"num_kv_shared_layers\": %lld, "
             "\"use_double_wide_mlp\": %s, \"hidden_size_per_layer_input\": %lld, \"vocab_size_per_layer_input\": 262144, "
             "%s\"final_logit_softcapping\": 30.0, \"max_position_embeddings\": 131072}, \"vision_config\": %s%s}",
             (long long)h, (long long)layers, (long long)inter, (long long)heads, (long long)kv, (long long)window, types,
             (long long)kv_shared, wide ? "true" : "false", (long long)hpl, extra,
             on_device ? "{\"model_type\": \"gemma4_vision\", \"use_clipped_linears\": true}"
                       : "{\"model_type\": \"gemma4_vision\", \"hidden_size\": 1152, \"intermediate_size\": 4304, "
                         "\"num_hidden_layers\": 27, \"num_attention_heads\": 16, \"num_key_value_heads\": 16, "
                         "\"head_dim\": 72, \"standardize\": true}",
             on_device ? ", \"audio_config\": {\"model_type\": \"gemma4_audio\"}" : "");
    return from_text(json);
}

/* google/gemma-4-31B-it: the Hub's safetensors.total 31,273,088,876 (r33 SOURCES ids 61762937035, 71402678005;
 * the card's "30.7B" is the text model). By hand (transformers models/gemma4/modular_gemma4.py), h 5376, 60 layers,
 * 50 sliding (32 heads, 16 KV heads of 256) and 10 full (32 heads of 512, 4 KV heads, k_eq_v: no v_proj):
 *   sliding attention q, o 2 x 5376 x 8192 + k, v 2 x 5376 x 4096 + q_norm, k_norm 512 = 132,121,088
 *   full attention q, o 2 x 5376 x 16384 + k 5376 x 2048 + q_norm, k_norm 1,024 = 187,171,840
 *   MLP 3 x 5376 x 21504 = 346,816,512; four norms 21,504 and layer_scalar 1: 346,838,017 a layer
 *   50 x 132,121,088 + 10 x 187,171,840 + 60 x 346,838,017 + tied embedding 262144 x 5376 =
 *   1,409,286,144 + final norm 5,376: text 30,697,345,340
 *   vision: input_proj 1152 x 768 = 884,736; position table 2 x 10240 x 1152 = 23,592,960; 27 layers of
 *     4 x 1152^2 + 2 x 72 + 4 x 1152 + 3 x 1152 x 4304 = 20,187,792: 545,070,384; std_bias, std_scale
 *     2,304: 569,550,384; embed_vision 1152 x 5376 = 6,193,152
 *   30,697,345,340 + 569,550,384 + 6,193,152 = 31,273,088,876. No layer shares keys: the checkpoint holds
 *   the model. */
START_TEST(gemma4_31b)
{
    llmmem_model *m = gemma4(5376, 60, 21504, 32, 16, 4, "SSSSSF", 1024, 0, 0, 0, 0, 0, 0);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_GEMMA4);
    ck_assert_uint_eq(checkpoint_total(m), 31273088876ULL);
    ck_assert_uint_eq(total(m), 31273088876ULL);
    llmmem_model_free(m);
    /* the vision tower's head_dim x num_attention_heads = hidden_size: a head_dim of 2^60 + 72 x 16 heads wrapped to
     * 1152 (a signed overflow) and loaded as if 72; refused by division now, as 73 is */
    static const char *const dims[] = {"73", "1152921504606847048"};
    for (size_t i = 0; i < 2; i++) {
        char json[2048];
        snprintf(json, sizeof json,
                 "{\"model_type\": \"gemma4\", \"tie_word_embeddings\": true, \"text_config\": {\"model_type\": "
                 "\"gemma4_text\", \"hidden_size\": 512, \"num_hidden_layers\": 6, \"intermediate_size\": 1024, "
                 "\"num_attention_heads\": 8, \"num_key_value_heads\": 2, \"head_dim\": 64, \"global_head_dim\": 128, "
                 "\"vocab_size\": 1000, \"sliding_window\": 512, \"layer_types\": [\"sliding_attention\", "
                 "\"sliding_attention\", \"sliding_attention\", \"sliding_attention\", \"sliding_attention\", "
                 "\"full_attention\"], \"max_position_embeddings\": 4096}, \"vision_config\": {\"model_type\": "
                 "\"gemma4_vision\", \"hidden_size\": 1152, \"intermediate_size\": 4304, \"num_hidden_layers\": 27, "
                 "\"num_attention_heads\": 16, \"num_key_value_heads\": 16, \"head_dim\": %s}}",
                 dims[i]);
        llmmem_model *bad = NULL;
        ck_assert_status(llmmem_model_from_hf_config_text(&bad, json, strlen(json)), LLMMEM_ERR_UNSUPPORTED);
        char why[160];
        snprintf(why, sizeof why, "vision_config.num_key_value_heads: 16 KV heads of head_dim %s beside 16 heads of "
                 "a 1152-wide tower", dims[i]);
        ck_assert_msg(strstr(llmmem_last_message(), why) != NULL, "%s", llmmem_last_message());
        ck_assert_ptr_null(bad);
    }
}
END_TEST

/* google/gemma-4-26B-A4B-it: the Hub's safetensors.total 25,805,936,206 (r33 SOURCES ids 61762937035,
 * 71269743439). h 2816, 30 layers (25 sliding: 16 heads, 8 KV heads of 256; 5 full: 16 heads of 512, 2 KV
 * heads, k_eq_v), every layer its dense MLP of 2112 beside 128 experts of 704 (Gemma4TextDecoderLayer with
 * enable_moe_block): router.proj 128 x 2816, router.scale 2,816, per_expert_scale 128, experts 128 x 3 x
 * 2816 x 704, three more norms; by r33 scripts/gemma4.py the text model 25,233,141,790, vision 569,550,384,
 * embed_vision 1152 x 2816 = 3,244,032: 25,805,936,206. */
START_TEST(gemma4_26b_a4b)
{
    llmmem_model *m = gemma4(2816, 30, 2112, 16, 8, 2, "SSSSSF", 1024, 0, 0, 0, 128, 704, 0);
    ck_assert_uint_eq(checkpoint_total(m), 25805936206ULL);
    ck_assert_uint_eq(total(m) - vision_params(m), 25233141790ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_EXPERTS_PER_TOK), 8);
    llmmem_model_free(m);
}
END_TEST

/* google/gemma-4-E2B-it and -E4B-it: the Hub's safetensors.total 5,123,178,051 and 7,996,156,490 (r33 SOURCES
 * ids 61762937035, 71142266638). Derived by hand from transformers models/gemma4/modular_gemma4.py:
 *   text (r33 scripts/gemma4.py): E2B 4,628,569,379 in the model, and the 15 sliding and 5 full KV-shared
 *     layers' k_proj, v_proj and k_norm the checkpoint keeps beside it, 18,880,512 (E4B 7,463,013,418 and
 *     55,055,616); with per-layer inputs (embed_tokens_per_layer 262144 x L x 256 ...) and E2B's double-wide
 *     MLPs on its 20 KV-shared layers
 *   on-device vision: input_proj 768 x 768 = 589,824; position table 2 x 10240 x 768 = 15,728,640; 16 layers
 *     of 4 x 768^2 + 2 x 64 + 4 x 768 + 3 x 768 x 3072 = 9,440,384: 151,046,144; 167,364,608 (the clippable
 *     linears' 16 x 28 scalar bounds are not in the Hub's counts)
 *   audio (Gemma4AudioConfig defaults): subsampling conv 128 x 9 + 32 x 128 x 9, norms 160, input_proj
 *     1024 x 1024: 1,086,752; a conformer layer 2 x (2 x 1024 x 4096 + 2,048) + 5 x 1024^2 + 128 +
 *     (1024 x 2048 + 1024^2 + 1024 x 5 + 2,048) + 3,072 = 25,180,288, x 12 = 302,163,456; output_proj
 *     1024 x 1536 + 1,536: 304,824,608
 *   embed_vision and embed_audio (768 + 1536) x h: E2B 3,538,944, E4B 5,898,240
 *   E2B 4,628,569,379 + 18,880,512 + 167,364,608 + 304,824,608 + 3,538,944 = 5,123,178,051;
 *   E4B 7,463,013,418 + 55,055,616 + 167,364,608 + 304,824,608 + 5,898,240 = 7,996,156,490. */
START_TEST(gemma4_e_series)
{
    llmmem_model *m = gemma4(1536, 35, 6144, 8, 1, 0, "SSSSF", 512, 20, 1, 256, 0, 0, 1);
    ck_assert_uint_eq(checkpoint_total(m), 5123178051ULL);
    ck_assert_uint_eq(total(m), 5123178051ULL - 18880512ULL);
    ck_assert_uint_eq(vision_params(m), 167364608ULL + 304824608ULL + 3538944ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_KV_SHARED_LAYERS), 20);
    llmmem_model_free(m);
    m = gemma4(2560, 42, 10240, 8, 2, 0, "SSSSSF", 512, 18, 0, 256, 0, 0, 1);
    ck_assert_uint_eq(checkpoint_total(m), 7996156490ULL);
    ck_assert_uint_eq(total(m), 7996156490ULL - 55055616ULL);
    llmmem_model_free(m);
}
END_TEST

/* num_kv_shared_layers on a model whose layers are all full attention (a second layer kind from
 * another key than the window pattern; a fuzz input on qwen2.5-72b divided by a zero period): the
 * layers are counted one by one. Llama-3.1-8B with its last 4 layers reading an earlier layer's keys
 * and values loses their k_proj and v_proj, 2 x 4096 x (8 x 128) each: 8,030,261,248 - 4 x 8,388,608 =
 * 7,996,706,816. The typed layers have no projection biases: Qwen2.5's (qkv_bias) are refused by name. */
START_TEST(kv_shared_on_full_layers)
{
    llmmem_model *m = NULL;
    uint64_t n = 0;
    ck_assert_ok(llmmem_model_from_preset(&m, "llama-3.1-8b"));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_KV_SHARED_LAYERS, 4));
    ck_assert_ok(llmmem_model_total_parameters(&n, m));
    ck_assert_uint_eq(n, 7996706816ULL);
    llmmem_model_free(m);
    ck_assert_ok(llmmem_model_from_preset(&m, "qwen2.5-72b"));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_KV_SHARED_LAYERS, 5));
    ck_assert_status(llmmem_model_total_parameters(&n, m), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "projection biases (qkv_bias, o_proj_bias) is not modelled"));
    llmmem_model_free(m);
}
END_TEST

/* The contiguous cache of transformers generate (Gemma4TextAttention: a sliding layer keeps its last
 * sliding_window tokens, a full layer every token, a KV-shared layer nothing), bf16, one sequence:
 *   Gemma-4-E2B, 4096 tokens: 15 caching layers, 12 sliding (1 KV head of 256: 1,024 B a token) and 3 full
 *     (1 KV head of 512: 2,048 B a token): 12 x 512 x 1,024 + 3 x 4096 x 2,048 = 6,291,456 + 25,165,824 =
 *     31,457,280
 *   Gemma-4-31B, 4096 tokens: 50 sliding layers of 16 KV heads of 256 (16,384 B a token) over 1024 tokens and
 *     10 full ones of 4 KV heads of 512, keys and values though k_eq_v (8,192 B a token):
 *     50 x 1024 x 16,384 + 10 x 4096 x 8,192 = 838,860,800 + 335,544,320 = 1,174,405,120.
 * vLLM serving on one H100 (max_num_batched_tokens 8192, max_model_len 131072, block_size 16), the KV budget given
 * as kv_cache_memory_bytes, by hand from vLLM's source:
 *   vllm/v1/worker/gpu_model_runner.py get_kv_cache_spec: a KV-shared layer (kv_sharing_target_layer_name, set by
 *   gemma4.py Gemma4Attention on the last num_kv_shared_layers) gets no spec; gemma4.py Gemma4DecoderLayer: a full
 *   layer has global_head_dim and, with attention_k_eq_v, num_global_key_value_heads, K and V both cached
 *   (AttentionSpec.real_page_size_bytes 2 x block x heads x head_size x 2 B);
 *   kv_cache_utils.py unify_kv_cache_spec_page_size: the larger page stays, the other layers' block_size grows by
 *   the ratio; _get_kv_cache_groups_uniform_page_size: groups of min(full, sliding) layers (max under 1.5 x min);
 *   get_num_blocks available // page // group_size; get_max_concurrency_for_kv_cache_config: num_blocks over the
 *   groups' blocks of a request, full cdiv(max_model_len, block), sliding cdiv(min(window - 1 + 8192,
 *   max_model_len), block) + 1 (SlidingWindowSpec.max_memory_usage_bytes); get_kv_cache_capacity
 *   int(concurrency x max_model_len).
 *   Gemma-4-31B, 20 GiB: sliding 2 x 16 x 256 x 2 = 16,384 B a token (page 262,144), full 2 x 4 x 512 x 2 = 8,192 (page
 *     131,072, block 16 x 2 = 32); 50 sliding and 10 full: group_size 10, 5 + 1 = 6 groups; 21,474,836,480 //
 *     262,144 // 10 = 8,192 blocks; a request cdiv(131072, 32) = 4,096 + 5 x (cdiv(9,215, 16) + 1 = 577) = 6,981
 *     blocks: 8,192 / 6,981 = 1.17x, int(1.1734708... x 131072) = 153,809 tokens; bytes per token 50 x 16,384 +
 *     10 x 8,192 = 901,120
 *   Gemma-4-E2B, 4 GiB: 15 caching layers (20 KV-shared), 12 sliding of 2 x 1 x 256 x 2 = 1,024 B (page 16,384,
 *     block 32) and 3 full of 2 x 1 x 512 x 2 = 2,048 (page 32,768); group_size 3, 4 + 1 = 5 groups;
 *     4,294,967,296 // 32,768 // 3 = 43,690 blocks; a request 8,192 + 4 x (cdiv(8,703, 32) + 1 = 273) = 9,284:
 *     43,690 / 9,284 = 4.71x, int(4.70594... x 131072) = 616,817 tokens.
 * The generate loop and training are refused by name (not modelled). */
START_TEST(gemma4_cache)
{
    llmmem_model *m = gemma4(1536, 35, 6144, 8, 1, 0, "SSSSF", 512, 20, 1, 256, 0, 0, 1);
    llmmem_strategy *s = NULL;
    uint64_t bytes = 0;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_kv_cache_bytes(&bytes, m, s, 1, 4096));
    ck_assert_uint_eq(bytes, 31457280ULL);
    llmmem_hardware *hw = NULL;
    llmmem_serving *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_serving_new(&r));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 4LL << 30));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_PAGE_BYTES), 32768);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_GROUPS), 5);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_LAYERS_PER_GROUP), 3);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_NUM_BLOCKS), 43690);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_VLLM_CONCURRENCY_X100), 471);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_TOKENS), 616817);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BYTES_PER_TOKEN), 12 * 1024 + 3 * 2048);
    llmmem_model_free(m);
    m = gemma4(5376, 60, 21504, 32, 16, 4, "SSSSSF", 1024, 0, 0, 0, 0, 0, 0);
    ck_assert_ok(llmmem_kv_cache_bytes(&bytes, m, s, 1, 4096));
    ck_assert_uint_eq(bytes, 1174405120ULL);
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 20LL << 30));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_PAGE_BYTES), 262144);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_GROUPS), 6);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_LAYERS_PER_GROUP), 10);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_NUM_BLOCKS), 8192);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BLOCKS_PER_REQUEST), 6981);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_VLLM_CONCURRENCY_X100), 117);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_TOKENS), 153809);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BYTES_PER_TOKEN), 901120);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_MAX_MODEL_LEN), 131072);
    ck_assert_ok(llmmem_kv_bytes_per_token(&bytes, m, s));
    ck_assert_uint_eq(bytes, 901120);
    uint64_t sequences;
    ck_assert_status(llmmem_serving_max_batch(&sequences, r, 4096), LLMMEM_ERR_UNSUPPORTED);
    llmmem_report *rep = NULL;
    ck_assert_ok(llmmem_report_new(&rep));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MODE, LLMMEM_MODE_TRAINING));
    ck_assert_status(llmmem_estimate(rep, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "(gemma4) are not modelled"));
    llmmem_report_free(rep);
    llmmem_serving_free(r);
    llmmem_hardware_free(hw);
    llmmem_strategy_free(s);
    llmmem_model_free(m);
}
END_TEST

/* ---- Kimi-K2.5 (kimi_k25) --------------------------------------------------------------------------- */

/* moonshotai/Kimi-K2.5. tests/data/configs/kimi-k2.5.json is the config.json as transformers 5.7.0 prints it
 * (KimiK25Config, defaults written out) in a model-info report of the downloaded checkpoint, with its tensor
 * table (stored GitHub index, find_string/read_file id 62530201892: 64 safetensors, 208,550 tensors, 170,738,182,128
 * stored elements, int4 packed eight to an int32). An independent audit of the same checkpoint (id 68577105039)
 * gives 1,026,879,376,368 logical parameters and 595,148,192,736 payload bytes; K2-Instruct's text model there is
 * 1,026,408,232,448. By hand from the tensor table:
 *   text (Kimi K2 = DeepSeek-V3's modeling): embedding and lm_head 2 x 163840 x 7168 = 2,348,810,240, final norm
 *     7,168; per layer q_a 1536 x 7168, q_b 12288 x 1536, kv_a 576 x 7168, kv_b 16384 x 512, o 7168 x 8192 and
 *     norms 2 x 7168 + 1536 + 512 = 187,123,200 x 61 = 11,414,515,200; layer 0's MLP 3 x 18432 x 7168 =
 *     396,361,728; layers 1-60: 384 experts of 3 x 2048 x 7168, gate 384 x 7168, e_score_correction_bias 384,
 *     shared expert 3 x 2048 x 7168: 16,955,253,120 x 60 = 1,017,315,187,200. Text 1,026,408,232,448.
 *   MoonViT: patch_embed.proj 1152 x 3 x 14 x 14 + 1152 = 678,528; pos_emb 64 x 64 x 1152 = 4,718,592; per block
 *     wqkv 3456 x 1152 + 3456, wo 1152^2 + 1152, fc0 4304 x 1152 + 4304, fc1 1152 x 4304 + 1152, norm0/norm1
 *     4 x 1152 = 15,264,432 x 27 = 412,139,664; final_layernorm 2,304: 416,866,032.
 *   mm_projector: pre_norm 2 x 1152, proj.0 4608^2 + 4608, proj.2 7168 x 4608 + 7168: 54,277,888.
 *   Total 1,026,879,376,368 = the audit's.
 * Bytes as stored (routed experts int4 in groups of 32, the rest bf16, the correction bias fp32): per expert
 * matrix of 2048 x 7168 (or 7168 x 2048) weight_packed 4 x 2048 x 7168 / 8 = 7,340,032 and weight_scale
 * 2 x 2048 x 7168 / 32 = 917,504; the checkpoint's weight_shape is int32 [2] (8 B), which the audit's
 * 595,148,192,736 holds; vLLM's compressed_tensors_wNa16.py weight_shape is int64 [2] (16 B), the library's
 * format rule: + 8 x 3 x 384 x 60 = 552,960 -> 595,148,745,696. */
START_TEST(kimi_k25)
{
    llmmem_model *m = load("kimi-k2.5.json");
    ck_assert_uint_eq(total(m), 1026879376368ULL);
    ck_assert_uint_eq(vision(m), 416866032ULL + 54277888ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_KIMI_K25);
    ck_assert_str_eq(llmmem_choice_name(LLMMEM_KEY_VISION_MODEL_TYPE, get(m, LLMMEM_KEY_VISION_MODEL_TYPE)), "moonvit");
    ck_assert_str_eq(llmmem_choice_name(LLMMEM_KEY_MULTIMODAL_PROJECTOR, get(m, LLMMEM_KEY_MULTIMODAL_PROJECTOR)),
                     "kimi_k25");
    ck_assert_int_eq(get(m, LLMMEM_KEY_QUANTIZED_MODULES), LLMMEM_QUANTIZED_EXPERTS);
    ck_assert_uint_eq(inference_weights(m), 595148192736ULL + 552960ULL);
    llmmem_model_free(m);
}
END_TEST

/* A config's vLLM serving on `gpu`: the encoder budget's figures, the KV cache's and its blocks and tokens. */
typedef struct served_pool {
    served x;
    uint64_t blocks, tokens;
} served_pool;

static served_pool serve_config(const char *file, const char *gpu, int64_t tp, int64_t limit)
{
    llmmem_model *m = load(file);
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_serving *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, gpu));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_serving_new(&r));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_TENSOR_PARALLEL, tp));
    if (limit >= 0)
        ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_LIMIT_MM_PER_PROMPT, limit));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    served_pool p = {{llmmem_serving_get(r, LLMMEM_SERVING_MM_MAX_TOKENS_PER_ITEM),
                      llmmem_serving_get(r, LLMMEM_SERVING_ENCODER_COMPUTE_BUDGET),
                      llmmem_serving_get(r, LLMMEM_SERVING_ENCODER_CACHE_SIZE),
                      llmmem_serving_get(r, LLMMEM_SERVING_MM_ITEMS_PER_BATCH),
                      llmmem_serving_get(r, LLMMEM_SERVING_ENCODER_CACHE_BYTES),
                      llmmem_serving_get(r, LLMMEM_SERVING_ENCODER_PROFILE_BYTES),
                      llmmem_serving_get(r, LLMMEM_SERVING_KV_CACHE_BYTES),
                      llmmem_serving_get(r, LLMMEM_SERVING_ACTIVATION_PEAK)},
                     llmmem_serving_get(r, LLMMEM_SERVING_NUM_BLOCKS),
                     llmmem_serving_get(r, LLMMEM_SERVING_TOKENS)};
    llmmem_serving_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
    return p;
}

/* Kimi-K2.5 served by vLLM with images (limit_mm_per_prompt unset, 999), TP8 on H200 (151,397,597,184 B,
 * gpu_memory_utilization 0.92, max_num_batched_tokens 8192, max_num_seqs 1024, max_model_len 262,144).
 * The largest item (/work/research/vlmenc/notes.md): vllm kimi_k25.py KimiK25DummyInputsBuilder.get_dummy_mm_items
 * keeps the larger of a 3000 x 3000 image and a chunk of 4 such frames, counted by the checkpoint's
 * media_tokens_calculator (media_utils.py navit_resize_image; preprocessor_config.json: in_patch_limit 16384,
 * in_patch_limit_each_frame 4096, patch_limit_on_one_side 512, patch_size 14, merge_kernel_size 2). Image:
 * 3000 // 14 = 214 patches a side, scale min(1, sqrt(16384 / 214^2) = 128/214, 512 x 14 / 3000) = 0.598131,
 * int(3000 x 0.598131) = 1794 pixels, padded to a multiple of 28: 65 a side, 65^2 = 4,225 tokens (the chunk:
 * int(3000 x 64/214) = 897, 33^2 = 1,089). Each is KimiK25MultiModalProjector's output, text hidden_size 7,168.
 * Budgets (encoder_budget.py, encoder_cache_manager.py): compute max(8192, 4225) = 8,192, cache 8,192; the
 * profile run encodes min(8192 // 4225 = 1, 1024 x min(999, 262144 // 4225 = 62)) = 1 item. Cache
 * 8,192 x 7,168 x 2 = 117,440,512 B; profile 1 x 4,225 x 7,168 x 2 = 60,569,600 B, held through the dummy
 * forward: the activation peak that much above text alone and the KV cache that much below it. Text alone
 * (limit_mm_per_prompt 0): ceil(151,397,597,184 x 0.92) = 139,285,789,410 requested, less the rank's weights
 * 76,406,613,984, activation peak 1,392,508,928, non-torch 536,870,912 and CUDA graphs 191,889,408 (the
 * library's figures, the same in both runs) = 60,757,906,178 B; with images 60,697,336,578 B. MLA pages
 * (kv_lora_rank 512 + qk_rope_head_dim 64) x 2 B x 61 layers = 70,272 B a token, blocks of 16: 1,124,352 B;
 * 60,697,336,578 // 1,124,352 = 53,984 blocks (text alone 54,038), "GPU KV cache size" 53,984 x 16 = 863,744
 * tokens (864,608). On main vLLM serving with images was refused ("kimi_k25's moonvit tower"). */

/* EXAONE 4.5 served by vLLM with images (limit_mm_per_prompt unset, 999) on one H200 (as Kimi-K2.5 above).
 * The largest item (/work/research/vlmenc/notes.md): vllm exaone4_5.py Exaone4_5_ProcessingInfo.get_image_processor
 * builds Exaone4_5_ImageProcessor, a Qwen2VLImageProcessor with its default longest_edge 28 x 28 x 1280 =
 * 1,003,520 pixels (not the checkpoint's preprocessor_config.json); Qwen2VLProcessingInfo
 * .get_image_size_with_most_features factors 1,003,520 // 28^2 = 1,280 tokens into the closest pair, 32 x 40
 * (ratio 1.25 <= 200): a 1120 x 896 image, 80 x 64 patches merged 2 x 2: 1,280 tokens of the merger's
 * out_hidden_size 5,120. Budgets: compute and cache max(8192, 1280) = 8,192; items min(8192 // 1280 = 6,
 * 1024 x min(999, 262144 // 1280 = 204)) = 6. Cache 8,192 x 5,120 x 2 = 83,886,080 B; profile
 * 6 x 1,280 x 5,120 x 2 = 78,643,200 B. Text alone: 139,285,789,410 requested less weights 67,627,974,656,
 * activation peak 1,514,143,744, non-torch 536,870,912, CUDA graphs 199,491,584 (the library's) = 69,407,308,514 B;
 * with images 69,328,665,314 B. Pages: 8 KV heads x 128 x 2 (K, V) x 2 B = 4,096 B a token a layer; 64 layers
 * LLLG (sliding_window 4096) in 4 groups of 16, blocks of 16: 16 x 16 x 4,096 = 1,048,576 B a block;
 * 69,328,665,314 // 1,048,576 = 66,116 blocks (text alone 66,191). A 262,144-token request holds 16,384 full
 * blocks and 3 sliding groups x (cdiv(4095 + 8192, 16) + 1 = 769) = 18,691 blocks; "GPU KV cache size"
 * int(66,116 / 18,691 x 262,144) = 927,286 tokens (928,338). On main refused ("exaone4_5's exaone4_5_vision"). */
static const struct encoder_case {
    const char *config;
    int64_t tp;
    uint64_t item, items, cache_bytes, profile_bytes, kv_text, kv_images, blocks_text, blocks_images, tokens_text,
        tokens_images;
} encoder_cases[] = {
    /* Kimi-K2.5: the first derivation above */
    {"kimi-k2.5.json", 8, 4225, 1, 117440512ULL, 60569600ULL, 60757906178ULL, 60697336578ULL, 54038, 53984, 864608,
     863744},
    /* EXAONE 4.5: the second */
    {"exaone-4.5-33b.json", 1, 1280, 6, 83886080ULL, 78643200ULL, 69407308514ULL, 69328665314ULL, 66191, 66116,
     928338, 927286},
};

/* vLLM with images (limit_mm_per_prompt unset, 999) against text alone (0), a row a checkpoint */
START_TEST(vllm_encoder_cache)
{
    const struct encoder_case *c = &encoder_cases[_i];
    served_pool img = serve_config(c->config, "h200", c->tp, -1);
    served_pool text = serve_config(c->config, "h200", c->tp, 0);
    ck_assert_uint_eq(img.x.item, c->item);
    ck_assert_uint_eq(img.x.compute, 8192);
    ck_assert_uint_eq(img.x.cache, 8192);
    ck_assert_uint_eq(img.x.items, c->items);
    ck_assert_uint_eq(img.x.cache_bytes, c->cache_bytes);
    ck_assert_uint_eq(img.x.profile_bytes, c->profile_bytes);
    ck_assert_uint_eq(img.x.act - text.x.act, c->profile_bytes);
    ck_assert_uint_eq(text.x.kv, c->kv_text);
    ck_assert_uint_eq(img.x.kv, c->kv_images);
    ck_assert_uint_eq(img.blocks, c->blocks_images);
    ck_assert_uint_eq(text.blocks, c->blocks_text);
    ck_assert_uint_eq(img.tokens, c->tokens_images);
    ck_assert_uint_eq(text.tokens, c->tokens_text);
    ck_assert_uint_eq(text.x.item, 0);
    ck_assert_uint_eq(text.x.profile_bytes, 0);
}
END_TEST

/* The factoring of a pixel budget (Qwen2VLProcessingInfo.get_image_size_with_most_features): 12,845,056 // 28^2
 * = 16,384 = 128 x 128; a prime budget, 1,009 x 28^2 pixels, is 1 x 1009 (over 200-fold): 1,008 = 28 x 36; 0 for
 * a budget under one square or a zero factor. EXAONE 4.5 with max_pixels 802,816 = 28^2 x 1024: 1,024 tokens. */
START_TEST(tower_budget_tokens)
{
    ck_assert_uint_eq(llmmem__tower_budget_tokens(12845056ULL, 28), 16384);
    ck_assert_uint_eq(llmmem__tower_budget_tokens(1009ULL * 784, 28), 1008);
    ck_assert_uint_eq(llmmem__tower_budget_tokens(1003520ULL, 28), 1280);
    ck_assert_uint_eq(llmmem__tower_budget_tokens(802816ULL, 28), 1024);
    ck_assert_uint_eq(llmmem__tower_budget_tokens(783, 28), 0);
    ck_assert_uint_eq(llmmem__tower_budget_tokens(1003520ULL, 0), 0);
}
END_TEST

/* What kimi_k25 does not model is refused by name: the tower's training activations, another projector or
 * position embedding (vLLM's encoder cache is vllm_encoder_cache's). */
START_TEST(kimi_k25_refusals)
{
    llmmem_model *m = load("kimi-k2.5.json");
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_serving *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_serving_new(&r));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_LIMIT_MM_PER_PROMPT, 0));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    llmmem_report *rep = NULL;
    ck_assert_ok(llmmem_report_new(&rep));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MODE, LLMMEM_MODE_TRAINING));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_IMAGES_PER_SEQUENCE, 1));
    ck_assert_status(llmmem_estimate(rep, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "not moonvit"));
    llmmem_report_free(rep);
    llmmem_serving_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
    static const char *const bad[][2] = {
        {"\"mm_projector_type\": \"patchmergerv2\"", "kimi_k25 takes patchmerger"},
        {"\"pos_emb_type\": \"learned\"", "divided_fixed"},
        {"\"mm_hidden_size\": 1024", "vt_hidden_size"},
        {"\"merge_kernel_size\": [2, 3]", "square"},
        {"\"model_type\": \"moonvit3d\"", "kimi_k25 takes MoonViT"},
    };
    /* an ignore list that leaves out one of the four (here the dense MLPs) is refused as before */
    const char *partial = "{\"model_type\": \"kimi_k2\", \"hidden_size\": 256, \"num_hidden_layers\": 2, "
                          "\"num_attention_heads\": 4, \"vocab_size\": 1000, \"intermediate_size\": 512, "
                          "\"kv_lora_rank\": 32, \"q_lora_rank\": 64, \"qk_rope_head_dim\": 16, \"qk_nope_head_dim\": 32, "
                          "\"v_head_dim\": 32, \"n_routed_experts\": null, \"quantization_config\": {\"quant_method\": "
                          "\"compressed-tensors\", \"config_groups\": {\"group_0\": {\"targets\": [\"Linear\"], "
                          "\"weights\": {\"num_bits\": 4, \"type\": \"int\", \"strategy\": \"group\", \"group_size\": 32}}}, "
                          "\"ignore\": [\"lm_head\", \"re:.*self_attn.*\", \"re:.*shared_experts.*\", \"lm_head\"]}}";
    llmmem_model *q = NULL;
    ck_assert_int_eq(llmmem_model_from_hf_config_text(&q, partial, strlen(partial)), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "ignore[1]"));
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"model_type\": \"kimi_k25\", \"dtype\": \"bfloat16\", \"text_config\": {\"model_type\": \"kimi_k2\", "
                 "\"hidden_size\": 256, \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 1000, "
                 "\"intermediate_size\": 512, \"kv_lora_rank\": 32, \"q_lora_rank\": 64, \"qk_rope_head_dim\": 16, "
                 "\"qk_nope_head_dim\": 32, \"v_head_dim\": 32, \"n_routed_experts\": null}, \"vision_config\": "
                 "{\"vt_hidden_size\": 1152, \"init_pos_emb_height\": 64, \"init_pos_emb_width\": 64, %s}}",
                 bad[i][0]);
        llmmem_model *b = NULL;
        ck_assert_int_ne(llmmem_model_from_hf_config_text(&b, json, strlen(json)), LLMMEM_OK);
        ck_assert_msg(strstr(llmmem_last_message(), bad[i][1]) != NULL, "%s", llmmem_last_message());
    }
}
END_TEST

/* ---- Kimi K3 (kimi_k3) ------------------------------------------------------------------------------ */

/* moonshotai/Kimi-K3. No verbatim config.json was in reach: tests/data/configs/kimi-k3.json is rebuilt from published
 * fields. text_config and the top level: a loader test's copy of "the published config.json, trimmed to the fields the
 * loader reads" (stored index, find_string/read_file id 65943802881: kda_layers and full_attn_layers 1-indexed, every
 * 4th layer and the last one MLA; use_full_rank_gate, mla_use_nope, mla_use_output_gate, latent_moe_use_norm,
 * attn_res_block_size 12, routed_expert_hidden_size 3584, quantization_config compressed-tensors
 * mxfp4-pack-quantized); the quantization group (targets Linear, 4 bits in groups of 32, ignore shared_experts) from an
 * operator test pinned to the release's config.json (id 71496263519). vision_config: the defaults the engines' K3
 * configs say mirror the checkpoint's (tokenspeed configs/kimi_k3.py, id 67572953584; TensorRT-LLM, id 57712736131:
 * vt_hidden_size 1024, 4096, 27 layers, 12 heads, qkv_hidden_size 1536, RMSNorms, no biases, patchmergerv2; model_type
 * kimi_k3_vision). The loader test's vision_config says vt_hidden_size 1152: the checkpoint's 168 vision tensors and
 * its bf16 count (below) are the 1024-wide tower's.
 * Published: the Hub's safetensors.total 2,779,931,837,184 (ids 59924751875, 60130886753), by dtype F32 11,122,432,
 * BF16 57,179,884,544, U8 2,722,740,830,208 (id 71572674107); a header audit of the 96 shards (id 68577105039): 497,220
 * tensors, 2,779,931,837,184 logical parameters (MXFP4's packed U8 counted twice, scales not), 1,560,860,324,864
 * payload bytes. The Hub total is the logical count, not the packed storage's: its U8 figure is the routed experts'
 * elements. By hand, tensors and shapes from Megatron-Bridge models/kimi/kimi_k3_bridge.py mapping_registry and
 * kimi_k3_layers.py (KimiK3Attention _init_kda, _init_mla, KimiK3MoELayer, KimiK3TransformerLayer), h 7168:
 *   embed_tokens and lm_head 2 x 163840 x 7168 = 2,348,810,240; norm 7,168; output_attn_res_norm and
 *     output_attn_res_proj (1 x 7168) 14,336
 *   every layer (93): input_layernorm, post_attention_layernorm, self_attention_res_norm, mlp_res_norm 4 x 7168 and
 *     self_attention_res_proj, mlp_res_proj 2 x 1 x 7168: 43,008 x 93 = 3,999,744
 *   KDA (69 layers, 96 heads of 128: 12288 wide): q, k, v 3 x 12288 x 7168 = 264,241,152; q, k, v_conv1d
 *     3 x 12288 x 4 = 147,456; f_a_proj 128 x 7168 = 917,504; f_b_proj 12288 x 128 = 1,572,864; g_proj (full rank)
 *     12288 x 7168 = 88,080,384; b_proj 96 x 7168 = 688,128; A_log 128 (96 heads and 32 zeros, kimi_k3_bridge.py
 *     maybe_modify_loaded_hf_weight); dt_bias 12,288; o_norm 128; o_proj 7168 x 12288 = 88,080,384:
 *     443,740,416 x 69 = 30,618,088,704
 *   MLA (24 layers, 96 heads): q_a_proj 1536 x 7168 = 11,010,048; q_a_layernorm 1,536; q_b_proj 96 x 192 x 1536 =
 *     28,311,552; kv_a_proj_with_mqa 576 x 7168 = 4,128,768; kv_a_layernorm 512; kv_b_proj 96 x 256 x 512 =
 *     12,582,912; g_proj 12288 x 7168 = 88,080,384; o_proj 7168 x 12288 = 88,080,384: 232,196,096 x 24 =
 *     5,572,706,304
 *   layer 0's MLP 3 x 33792 x 7168 = 726,663,168
 *   92 MoE layers: gate 896 x 7168 = 6,422,528 and e_score_correction_bias 896; routed_expert_down_proj 3584 x 7168
 *     and routed_expert_up_proj 7168 x 3584, 2 x 25,690,112; routed_expert_norm 3,584; shared experts (2 x 3072)
 *     3 x 6144 x 7168 = 132,120,576: 189,927,808 x 92 = 17,473,358,336; routed experts 896 x 3 x 3072 x 3584 =
 *     29,595,009,024 x 92 = 2,722,740,830,208
 *   text 2,779,484,478,208
 *   vision_tower (vllm-ascend's KimiK3VisionTower, id 62082929369): patch_embed.proj 1024 x 3 x 14 x 14 = 602,112;
 *     pos_emb 64 x 64 x 1024 = 4,194,304; per block norm0, norm1 2 x 1024, wqkv 3 x 1536 x 1024 = 4,718,592, wo
 *     1024 x 1536 = 1,572,864, fc0 and fc1 2 x 4096 x 1024 = 8,388,608: 14,682,112 x 27 = 396,417,024;
 *     final_layernorm 1,024: 401,214,464
 *   mm_projector (KimiK3MultiModalProjector): linear_1 4096 x 4096 = 16,777,216, linear_2 7168 x 4096 = 29,360,128,
 *     post_norm 7,168: 46,144,512
 *   total 2,779,931,837,184 = the Hub's. Tensors: 5 outside the layers (embedding, head, norm, the two output
 *   AttnRes ones) + 93 x 6 (norms and AttnRes) + 69 x 14 (KDA) + 24 x 8 (MLA) + 3 (layer 0's MLP) + 92 x (5 + 3 +
 *   896 x 3 x 2) (gate, bias, latent down, norm, up; shared; each routed matrix's weight_packed and weight_scale) +
 *   27 x 6 + 3 (tower) + 3 (projector) = 497,220 = the audit's.
 * Bytes as stored: float32 A_log, dt_bias, the convolutions and o_norm, 69 x (128 + 12,288 + 147,456 + 128), and the
 * correction biases, 92 x 896: 11,122,432 = the Hub's F32; the routed experts MXFP4, 16 bytes of E2M1 and a UE8M0
 * byte a 32: 2,722,740,830,208 x 17 / 32 = 1,446,456,066,048; the rest bf16, 2 x 57,179,884,544 (the Hub's BF16):
 * 114,359,769,088 + 44,489,728 + 1,446,456,066,048 = 1,560,860,324,864 = the audit's payload bytes. */
START_TEST(kimi_k3)
{
    llmmem_model *m = load("kimi-k3.json");
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_KIMI_K3);
    ck_assert_uint_eq(total(m), 2779931837184ULL);
    ck_assert_uint_eq(vision(m), 401214464ULL + 46144512ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MOE_LATENT_SIZE), 3584);
    ck_assert_int_eq(get(m, LLMMEM_KEY_ATTN_RES_BLOCK_SIZE), 12);
    ck_assert_str_eq(llmmem_choice_name(LLMMEM_KEY_VISION_MODEL_TYPE, get(m, LLMMEM_KEY_VISION_MODEL_TYPE)),
                     "kimi_k3_vision");
    ck_assert_str_eq(llmmem_choice_name(LLMMEM_KEY_MULTIMODAL_PROJECTOR, get(m, LLMMEM_KEY_MULTIMODAL_PROJECTOR)),
                     "kimi_k3");
    ck_assert_int_eq(get(m, LLMMEM_KEY_QUANTIZATION_FORMAT), LLMMEM_FORMAT_MXFP4);
    ck_assert_int_eq(get(m, LLMMEM_KEY_QUANTIZED_MODULES), LLMMEM_QUANTIZED_EXPERTS);
    uint64_t n = 0;
    ck_assert_ok(llmmem_model_parameters(&n, m, LLMMEM_PARAMS_SSM));
    ck_assert_uint_eq(n, 30618088704ULL);
    ck_assert_uint_eq(inference_weights(m), 2ULL * 57179884544ULL + 4ULL * 11122432ULL + 1446456066048ULL);
    llmmem_model_free(m);
}
END_TEST

/* What kimi_k3 does not model is refused by name: the AttnRes banks in training activations, vLLM's profile run and
 * TensorRT-LLM's hybrid cache manager, the generate loop and llama.cpp's graph; and configs the rules above do not
 * cover. */
START_TEST(kimi_k3_refusals)
{
    llmmem_model *m = load("kimi-k3.json");
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_serving *r = NULL;
    llmmem_local *lo = NULL;
    llmmem_report *rep = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h200"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_serving_new(&r));
    ck_assert_ok(llmmem_local_new(&lo));
    ck_assert_ok(llmmem_report_new(&rep));
    /* vLLM (auto) and TensorRT-LLM both run K3 (research/k3v): the refusal names the engine's model file, the
     * part of its budget not modelled and SGLang. The bank: 93 layers / attn_res_block_size 12 = 7.75 -> 8 rows. */
    ck_assert_status(llmmem_serving_estimate(r, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "vLLM's paged cache of kimi_k3: vLLM runs it "
                                                        "(vllm/models/kimi_k3/nvidia/model.py); not modelled: its "
                                                        "profile run"));
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "8 hidden-wide rows a token (93 layers / "
                                                        "attn_res_block_size 12, rounded up)"));
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "SGLang serving (engine sglang) models its pools"));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_ENGINE, LLMMEM_ENGINE_TRTLLM));
    ck_assert_status(llmmem_serving_estimate(r, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "TensorRT-LLM's KV cache manager of kimi_k3: TensorRT-LLM "
                                                        "runs it (_torch/models/modeling_kimi_linear.py "
                                                        "KimiLinearForCausalLM); not modelled: its "
                                                        "MixedMambaHybridCacheManager"));
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "SGLang serving (engine sglang) models its pools"));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_ENGINE, LLMMEM_ENGINE_AUTO));
    ck_assert_status(llmmem_local_estimate(lo, m, NULL, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "llama.cpp's graph of kimi_k3"));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MAX_NEW_TOKENS, 16));
    ck_assert_status(llmmem_estimate(rep, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "the generate loop of kimi_k3 (AttnRes"));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MAX_NEW_TOKENS, 0));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MODE, LLMMEM_MODE_TRAINING));
    ck_assert_status(llmmem_estimate(rep, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "AttnRes residual banks (kimi_k3"));
    llmmem_report_free(rep);
    llmmem_local_free(lo);
    llmmem_serving_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
    /* a small K3 (2 layers of 256: a KDA layer of 2 heads of 64, an MLA layer of 2 heads) with each replacement in
     * turn; "%s" is the text_config's last field */
    static const char *const bad[][2] = {
        {", \"norm_type\": \"layernorm\"", "kimi_k3's MoonViT takes rmsnorm"},
        {", \"mm_projector_type\": \"patchmerger\"", "kimi_k3 takes patchmergerv2"},
        {", \"attn_bias\": true", "attention biases"},
        {", \"model_type\": \"moonvit\"", "kimi_k3 takes kimi_k3_vision"},
    };
    static const char *const bad_quant[][2] = {
        {"\"group_size\": 16", "text_config.quantization_config.config_groups.weights.group_size: 16"},
        {"\"type\": \"int\"", "mxfp4-pack-quantized takes float group"},
    };
    const char *k3 = "{\"model_type\": \"kimi_k3\", \"text_config\": {\"model_type\": \"kimi_linear\", \"hidden_size\": 256, "
                     "\"num_hidden_layers\": 2, \"num_attention_heads\": 2, \"vocab_size\": 1000, \"intermediate_size\": "
                     "512, \"kv_lora_rank\": 32, \"q_lora_rank\": 64, \"qk_rope_head_dim\": 16, \"qk_nope_head_dim\": 32, "
                     "\"v_head_dim\": 32, \"num_experts\": 4, \"num_experts_per_token\": 2, \"moe_intermediate_size\": "
                     "64, \"routed_expert_hidden_size\": 128, \"attn_res_block_size\": 12, \"linear_attn_config\": "
                     "{\"num_heads\": 2, \"head_dim\": 64, \"kda_layers\": [1], \"full_attn_layers\": [2]}, "
                     "\"quantization_config\": {\"quant_method\": \"compressed-tensors\", \"format\": "
                     "\"mxfp4-pack-quantized\", \"config_groups\": {\"group_0\": {\"targets\": [\"Linear\"], "
                     "\"weights\": {\"num_bits\": 4, %s}}}, \"ignore\": [%s]}}, \"vision_config\": "
                     "{\"init_pos_emb_height\": 64, \"init_pos_emb_width\": 64%s}}";
    char json[2048];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(json, sizeof json, k3, "\"group_size\": 32", "", bad[i][0]);
        llmmem_model *b = NULL;
        ck_assert_int_eq(llmmem_model_from_hf_config_text(&b, json, strlen(json)), LLMMEM_ERR_UNSUPPORTED);
        ck_assert_msg(strstr(llmmem_last_message(), bad[i][1]) != NULL, "%s", llmmem_last_message());
    }
    for (size_t i = 0; i < sizeof bad_quant / sizeof bad_quant[0]; i++) {
        snprintf(json, sizeof json, k3, bad_quant[i][0], "", "");
        llmmem_model *b = NULL;
        ck_assert_int_eq(llmmem_model_from_hf_config_text(&b, json, strlen(json)), LLMMEM_ERR_UNSUPPORTED);
        ck_assert_msg(strstr(llmmem_last_message(), bad_quant[i][1]) != NULL, "%s", llmmem_last_message());
    }
    /* routed experts left out of MXFP4 are refused; shared experts may be */
    snprintf(json, sizeof json, k3, "\"group_size\": 32", "\"re:.*block_sparse_moe.experts.*\"", "");
    llmmem_model *b = NULL;
    ck_assert_int_eq(llmmem_model_from_hf_config_text(&b, json, strlen(json)), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "text_config.quantization_config.ignore[0]"));
    snprintf(json, sizeof json, k3, "\"group_size\": 32", "\"re:.*shared_experts.*\"", "");
    b = from_text(json);
    ck_assert_int_eq(get(b, LLMMEM_KEY_QUANTIZED_MODULES), LLMMEM_QUANTIZED_EXPERTS);
    llmmem_model_free(b);
    /* K3's text model alone, as kimi_linear: its checkpoint's storage is kimi_k3's, refused by name */
    const char *flat = "{\"model_type\": \"kimi_linear\", \"hidden_size\": 256, \"num_hidden_layers\": 2, "
                       "\"num_attention_heads\": 2, \"vocab_size\": 1000, \"intermediate_size\": 512, \"kv_lora_rank\": "
                       "32, \"qk_rope_head_dim\": 16, \"qk_nope_head_dim\": 32, \"v_head_dim\": 32, \"num_experts\": 4, "
                       "\"num_experts_per_token\": 2, \"moe_intermediate_size\": 64, \"attn_res_block_size\": 12, "
                       "\"linear_attn_config\": {\"num_heads\": 2, \"head_dim\": 64, \"kda_layers\": [1], "
                       "\"full_attn_layers\": [2]}}";
    ck_assert_int_eq(llmmem_model_from_hf_config_text(&b, flat, strlen(flat)), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "kimi_k3 config.json"));
}
END_TEST

/* The small K3 of kimi_k3_refusals, counted by its rules (vision_config the position table alone: the
 * KimiK3VisionConfig defaults of kimi_k3 above, a 1024-wide tower projecting to 256): h 256, KDA 2 heads of 64 (128 wide), MLA 2 heads:
 *   embedding and head 2 x 1000 x 256 = 512,000; norm 256; output_attn_res norm and proj 512
 *   2 layers x (4 norms + 2 res projections) x 256 = 3,072
 *   KDA: q, k, v 3 x 128 x 256 = 98,304; convs 3 x 128 x 4 = 1,536; f_a 64 x 256 = 16,384; f_b 128 x 64 = 8,192;
 *     g_a 64 x 256 = 16,384 and g_b 128 x 64 = 8,192 (no use_full_rank_gate); b_proj 2 x 256 = 512; A_log 128
 *     (K3's padding); dt_bias 128; o_norm 64; o_proj 256 x 128 = 32,768: 182,592
 *   MLA: q_a 64 x 256 = 16,384 + 64; q_b 2 x 48 x 64 = 6,144; kv_a 48 x 256 = 12,288 + 32; kv_b 2 x 64 x 32 = 4,096;
 *     o_proj 256 x 64 = 16,384 (no output gate): 55,392
 *   layer 0's MLP 3 x 512 x 256 = 393,216; layer 1: gate 4 x 256 + 4 bias = 1,028; latent projections
 *     2 x 128 x 256 = 65,536 (no norm); experts 4 x 3 x 64 x 128 = 98,304: 164,868
 *   vision: 602,112 + 4,194,304 + 396,417,024 + 1,024 = 401,214,464; projector 4096 x 4096 + 256 x 4096 + 256 =
 *     17,826,048
 *   total 1,311,908 + 419,040,512 = 420,352,420. */
START_TEST(kimi_k3_rules)
{
    const char *k3 = "{\"model_type\": \"kimi_k3\", \"text_config\": {\"model_type\": \"kimi_linear\", \"hidden_size\": 256, "
                     "\"num_hidden_layers\": 2, \"num_attention_heads\": 2, \"vocab_size\": 1000, \"intermediate_size\": "
                     "512, \"kv_lora_rank\": 32, \"q_lora_rank\": 64, \"qk_rope_head_dim\": 16, \"qk_nope_head_dim\": 32, "
                     "\"v_head_dim\": 32, \"num_experts\": 4, \"num_experts_per_token\": 2, \"moe_intermediate_size\": "
                     "64, \"routed_expert_hidden_size\": 128, \"attn_res_block_size\": 12, \"first_k_dense_replace\": 1, "
                     "\"linear_attn_config\": {\"num_heads\": 2, \"head_dim\": 64, \"kda_layers\": [1], "
                     "\"full_attn_layers\": [2]}}, \"vision_config\": {\"init_pos_emb_height\": 64, "
                     "\"init_pos_emb_width\": 64}}";
    llmmem_model *m = from_text(k3);
    ck_assert_uint_eq(total(m), 420352420ULL);
    ck_assert_uint_eq(vision(m), 401214464ULL + 17826048ULL);
    llmmem_model_free(m);
}
END_TEST

/* ---- EXAONE 4.5 (exaone4_5) ------------------------------------------------------------------------- */

/* LGAI-EXAONE/EXAONE-4.5-33B. No verbatim config.json and no exact total were found in reach: the model card
 * (LG-AI-EXAONE/EXAONE-4.5 README.md @0eac9a5a) says "33 billion parameters in total, including 1.2 billion
 * parameters from the vision encoder" and the Hub lists 34B (stored index id 53153554751), both rounded.
 * tests/data/configs/exaone-4.5-33b.json is rebuilt from published fields: TensorRT-LLM's EXAONE 4.5 test config
 * for EXAONE-4.5-33B (transformers 5.8.0 key set, text model_type exaone4; stored index id 56183568482) with the
 * full depths of its earlier full-size test config (64 text layers in LLLG layer_types, a 28-block tower with
 * fullatt_block_indexes [6, 13, 20, 27]; id 56213569018) and ollama's exaone4_5 parser test's
 * max_position_embeddings 262144 (id 57006440881). By hand from transformers models/exaone4_5/modular_exaone4_5.py
 * (@e296d796) and models/exaone4/modeling_exaone4.py:
 *   text: per layer q, o 2 x 5120^2 = 52,428,800; k, v 2 x 1024 x 5120 = 10,485,760; q_norm, k_norm 256;
 *     post_attention_layernorm, post_feedforward_layernorm 10,240; MLP 3 x 5120 x 27392 = 420,741,120:
 *     483,666,176 x 64 = 30,954,635,264; embedding and lm_head 2 x 153600 x 5120 = 1,572,864,000; final norm
 *     5,120: 32,527,504,384.
 *   vision (Exaone4_5_VisionModel: Qwen2.5-VL's blocks, Exaone4_5_VisionAttention's qkv grouped): patch_embed
 *     Conv3d 2048 x 3 x 2 x 14 x 14 = 2,408,448; per block norm1, norm2 4,096, qkv (2048 + 2 x 8 x 64) x 2048 +
 *     3072 = 6,294,528, proj 2048^2 + 2048 = 4,196,352, gate/up 2 x (5120 x 2048 + 5120) = 20,981,760, down
 *     2048 x 5120 + 2048 = 10,487,808: 41,964,544 x 28 = 1,175,007,232 (the tower: 1,177,415,680, the card's
 *     "1.2 billion"); merger ln_q 2,048, mlp.0 8192^2 + 8192 = 67,117,056, mlp.2 5120 x 8192 + 5120 =
 *     41,948,160: 109,067,264. Vision 1,286,482,944.
 *   Total 33,813,987,328 (the mtp.* tensors the checkpoint also stores are dropped on load:
 *   Exaone4_5_PreTrainedModel._keys_to_ignore_on_load_unexpected). */
START_TEST(exaone4_5_33b)
{
    llmmem_model *m = load("exaone-4.5-33b.json");
    ck_assert_uint_eq(total(m), 33813987328ULL);
    ck_assert_uint_eq(vision(m), 1286482944ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_EXAONE4_5);
    ck_assert_str_eq(llmmem_choice_name(LLMMEM_KEY_VISION_MODEL_TYPE, get(m, LLMMEM_KEY_VISION_MODEL_TYPE)),
                     "exaone4_5_vision");
    ck_assert_int_eq(get(m, LLMMEM_KEY_VISION_NUM_KEY_VALUE_HEADS), 8);
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW), 4096);
    /* bf16: two bytes a parameter */
    ck_assert_uint_eq(inference_weights(m), 2 * 33813987328ULL);
    llmmem_model_free(m);
    /* the first configs' text model_type exaone4_5_text reads the same (configuration_exaone4_5.py's BC) */
    const char *json = "{\"model_type\": \"exaone4_5\", \"dtype\": \"bfloat16\", \"text_config\": {\"model_type\": "
                       "\"exaone4_5_text\", \"hidden_size\": 512, \"num_hidden_layers\": 4, \"num_attention_heads\": 4, "
                       "\"num_key_value_heads\": 2, \"intermediate_size\": 1024, \"vocab_size\": 1000, "
                       "\"sliding_window\": 128, \"layer_types\": [\"sliding_attention\", \"sliding_attention\", "
                       "\"sliding_attention\", \"full_attention\"]}, \"vision_config\": {\"model_type\": "
                       "\"exaone4_5_vision\", \"depth\": 2, \"hidden_size\": 256, \"intermediate_size\": 512, "
                       "\"num_heads\": 4, \"num_key_value_heads\": 1, \"out_hidden_size\": 512}}";
    m = from_text(json);
    /* text: 4 x (2 x 512^2 + 2 x 256 x 512 + 2 x 128 + 2 x 512 + 3 x 512 x 1024) = 4 x 2,360,576 = 9,442,304,
     * embedding and head 1,024,000, final norm 512: 10,466,816; vision: patch_embed 256 x 1176 = 301,056;
     * 2 x (512 norms + (256 + 2 x 64) x 256 + 384 + 256^2 + 256 + 2 x (512 x 256 + 512) + 256 x 512 + 256) =
     * 2 x 559,488 = 1,118,976; merger 256 + 1024^2 + 1024 + 512 x 1024 + 512 = 1,574,656: 2,994,688 */
    ck_assert_uint_eq(total(m), 10466816ULL + 2994688ULL);
    llmmem_model_free(m);
}
END_TEST

/* What exaone4_5 does not model is refused by name: the tower's training activations, another text or vision
 * model_type (vLLM's encoder cache is vllm_encoder_cache's). */
START_TEST(exaone4_5_refusals)
{
    llmmem_model *m = load("exaone-4.5-33b.json");
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_serving *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_serving_new(&r));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_LIMIT_MM_PER_PROMPT, 0));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    llmmem_report *rep = NULL;
    ck_assert_ok(llmmem_report_new(&rep));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MODE, LLMMEM_MODE_TRAINING));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_IMAGES_PER_SEQUENCE, 1));
    ck_assert_status(llmmem_estimate(rep, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "not exaone4_5_vision"));
    llmmem_report_free(rep);
    llmmem_serving_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
    static const char *const bad[][3] = {
        {"llama", "exaone4_5_vision", "exaone4_5 takes exaone4 and exaone4_5_text"},
        {"exaone4", "qwen2_5_vl", "exaone4_5 takes exaone4_5_vision"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char json[512];
        snprintf(json, sizeof json,
                 "{\"model_type\": \"exaone4_5\", \"text_config\": {\"model_type\": \"%s\", \"hidden_size\": 512, "
                 "\"num_hidden_layers\": 4, \"num_attention_heads\": 4, \"intermediate_size\": 1024, "
                 "\"vocab_size\": 1000}, \"vision_config\": {\"model_type\": \"%s\"}}",
                 bad[i][0], bad[i][1]);
        llmmem_model *b = NULL;
        ck_assert_int_eq(llmmem_model_from_hf_config_text(&b, json, strlen(json)), LLMMEM_ERR_UNSUPPORTED);
        ck_assert_msg(strstr(llmmem_last_message(), bad[i][2]) != NULL, "%s", llmmem_last_message());
    }
}
END_TEST

/* ---- MiniMax-M3 (minimax_m3_vl) --------------------------------------------------------------------- */

/* MiniMaxAI/MiniMax-M3. tests/data/configs/minimax-m3.json is its config.json as published: the raw file quoted
 * in a model-info report of the downloaded checkpoint with its tensor table (stored GitHub index, read_file id
 * 62774369633: 59 safetensors, 23,416 tensors, 427,040,140,160 parameters, the Hub's safetensors.total, r33 SOURCES
 * id 69615480373). Megatron-Bridge's verification card (examples/model_verification_cards/minimax-m3/card.yaml)
 * imports the same 23,416 tensors, 854,172,958,720 payload bytes. By hand from the config, with the shapes of
 * the tensor table and Megatron-Bridge models/minimax_m3/modeling_minimax_m3_vl.py:
 *   text: embed_tokens and lm_head 2 x 200064 x 6144 = 2,458,386,432, norm 6,144; per layer (60) q_proj 8192 x 6144,
 *     k_proj, v_proj 2 x 512 x 6144, o_proj 6144 x 8192, q_norm, k_norm 2 x 128, input and post-attention norms
 *     2 x 6144 = 106,967,296 x 60 = 6,418,037,760; layers 0-2 mlp gate, up, down 3 x 12288 x 6144 = 226,492,416
 *     x 3 = 679,477,248; layers 3-59 (57) experts 128 x 3 x 3072 x 6144 = 7,247,757,312, gate 128 x 6144 = 786,432,
 *     e_score_correction_bias 128, shared_experts 3 x 3072 x 6144 = 56,623,104: 7,305,166,976 x 57 =
 *     416,394,517,632; the lightning indexer on the 57 layers sparse_attention_freq marks 1: index_q_proj
 *     512 x 6144, index_k_proj 128 x 6144, index_q_norm, index_k_norm 2 x 128 = 3,932,416 x 57 = 224,147,712.
 *     Text 426,174,572,928.
 *   vision: patch_embedding Conv3d 1280 x 3 x 2 x 14 x 14 = 1,505,280, pre_layrnorm 2 x 1280; per layer (32) q, k,
 *     v, out_proj 4 x (1280^2 + 1280) = 6,558,720, fc1 5120 x 1280 + 5120, fc2 1280 x 5120 + 1280 = 13,113,600,
 *     layer_norm1 and 2 4 x 1280 = 5,120: 19,677,440 x 32 = 629,678,080. Tower 631,185,920.
 *   projectors: multi_modal_projector 6144 x 1280 + 6144 + 6144^2 + 6144 = 45,625,344; patch_merge_mlp
 *     6144 x 24576 + 6144 + 6144^2 + 6144 = 188,755,968.
 *   Total 426,174,572,928 + 631,185,920 + 45,625,344 + 188,755,968 = 427,040,140,160 = safetensors.total.
 * Bytes (the tensor table: bf16 but the gates, the correction biases and the patch embedding, float32):
 * 2 x 427,040,140,160 + 2 x (57 x 128 x 6144 + 57 x 128 + 1,505,280) = 854,172,958,720 = the card's payload. The
 * contiguous cache (K and V of every layer: Megatron-Bridge runs full attention) of one token: 60 x 2 x 4 x 128 x
 * 2 B = 122,880. */
START_TEST(minimax_m3)
{
    llmmem_model *m = load("minimax-m3.json");
    ck_assert_uint_eq(total(m), 427040140160ULL);
    ck_assert_uint_eq(vision(m), 631185920ULL + 45625344ULL + 188755968ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_MINIMAX_M3_VL);
    ck_assert_str_eq(llmmem_choice_name(LLMMEM_KEY_MODEL_TYPE, get(m, LLMMEM_KEY_MODEL_TYPE)), "minimax_m3_vl");
    ck_assert_str_eq(llmmem_choice_name(LLMMEM_KEY_VISION_MODEL_TYPE, get(m, LLMMEM_KEY_VISION_MODEL_TYPE)),
                     "minimax_m3_vision");
    ck_assert_str_eq(llmmem_choice_name(LLMMEM_KEY_MULTIMODAL_PROJECTOR, get(m, LLMMEM_KEY_MULTIMODAL_PROJECTOR)),
                     "minimax_m3");
    ck_assert_int_eq(get(m, LLMMEM_KEY_FIRST_K_DENSE_REPLACE), 3);
    ck_assert_int_eq(get(m, LLMMEM_KEY_INDEX_FIRST_LAYER), 3);
    ck_assert_int_eq(get(m, LLMMEM_KEY_INDEX_N_HEADS), 4);
    ck_assert_int_eq(get(m, LLMMEM_KEY_INDEX_TOPK_BLOCKS), 16);
    ck_assert_uint_eq(inference_weights(m), 854172958720ULL);
    llmmem_strategy *s = NULL;
    uint64_t bytes = 0;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_kv_cache_bytes(&bytes, m, s, 1, 1));
    ck_assert_uint_eq(bytes, 122880);
    llmmem_strategy_free(s);
    llmmem_model_free(m);
}
END_TEST

/* vLLM serving, by hand from vllm/models/minimax_m3 (nvidia/model.py, common/indexer.py, common/sparse_attention.py)
 * and vllm/v1: eight H200 ranks (memory_bytes 151,397,597,184 each), tensor_parallel 8, max_num_seqs 16 (8192
 * batched tokens, the large-device default), block_size 128, limit_mm_per_prompt 0, and first a rank's model memory
 * as a log would give it (profile_weights_bytes 110,000,000,000: a set figure).
 *   Cache of a token: 60 layers' K and V (MiniMaxM3SparseAttention and the first three layers' Attention,
 *     FullAttentionSpec: max(1, 4 / 8) = 1 head of 128, bf16) 60 x 2 x 128 x 2 = 30,720, and the index key of the
 *     57 sparse layers (MiniMaxM3IndexerCache, MLAAttentionSpec: one bf16 head of 128 on every rank) 57 x 256 =
 *     14,592: 45,312 bytes; get_kv_cache_groups puts them in one group (UniformTypeKVCacheSpecs), its page the sum:
 *     128 x 45,312 = 5,799,936 bytes a block.
 *   Profile run (sparse layers return zeros after qkv_proj; MiniMaxM3MoE's GateLinear float32 logits): the MoE
 *     layer's fused_moe caches 4 x (3 x 3072 / 8 + 6144) = 29,184, the shared expert's output 6,144 and 128 float32
 *     logits (256 elements) beside the residual and normed input 2 x 6,144: 47,872 elements, x 8192 x 2 =
 *     784,334,848 bytes (a dense layer's 3 x 12288 / 8 and any attention block are below; the sampler's 8192 x 6144
 *     x 2 + 16 x 200,064 x 6 = 119,869,440 too).
 *   CUDA-graph floor: 7 capture sizes up to 32, 5 full ones up to 16: 47,872 x 32 x 2 + 10 MiB = 13,549,568.
 *   Cache: ceil(151,397,597,184 x 0.92) = 139,285,789,410 less 110,000,000,000, 784,334,848, the 512 MiB outside
 *     torch and 13,549,568 = 27,951,034,082 bytes: 4,819 blocks of 5,799,936 (616,832 tokens).
 * vLLM's own model memory of a TP8 rank (nvidia/model.py; bf16, the MoE gate and e_score_correction_bias float32):
 *   embed_tokens and lm_head (VocabParallelEmbedding, ParallelLMHead: 200,064 / 8 = 25,008 rows, no padding past
 *     64) 2 x 25,008 x 6,144 x 2 = 614,596,608; the final norm 12,288; 60 x 2 layer norms 1,474,560;
 *   attention, 60 layers: qkv 8 query heads + 1 K + 1 V head (max(1, 4 / 8), replicated) = 1,280 rows x 6,144 x 2,
 *     o_proj 6,144 x 1,024 x 2, q_norm and k_norm 2 x 128 x 2: 28,312,064 a layer, 1,698,723,840;
 *   the indexer, 57 layers: index_q sharded as the KV heads (MinimaxM3QKVParallelLinearWithIndexer: 4 heads over 8
 *     ranks, one head of 128 on each) and index_k's one replicated head: 256 x 6,144 x 2 = 3,145,728, its two
 *     norms 512: 179,335,680 (Megatron-Bridge's replicated index_q would hold 3 x 128 x 6,144 x 2 x 57 =
 *     268,959,744 more);
 *   dense MLP, layers 0-2: 3 x 12,288 / 8 x 6,144 x 2 = 56,623,104 a layer, 169,869,312;
 *   MoE, 57 layers: 128 experts of 3 x 3,072 / 8 x 6,144 x 2 = 14,155,776 (1,811,939,328), the shared expert
 *     14,155,776, the gate 128 x 6,144 x 4 = 3,145,728, the bias 128 x 4 = 512: 1,829,241,344 a layer,
 *     104,266,756,608;
 *   no tower nor projectors (built under _mark_tower_model: skipped at limit_mm_per_prompt 0);
 *   weights 106,930,768,896 + MiniMaxM3Model's topk_indices_buffer int32 [max(1, 4 / 8), 8,192, 16] = 524,288:
 *   106,931,293,184. Cache: 139,285,789,410 - 106,931,293,184 - 784,334,848 - 536,870,912 - 13,549,568 =
 *   31,019,740,898 bytes: 5,348 blocks of 5,799,936 (684,544 tokens).
 * One rank (TP1): the MoE block 4 x (9216 + 6144) + 6144 + 256 = 67,840, (12,288 + 67,840) x 8192 x 2 =
 * 1,312,817,152. fp8 K and V at TP8: 60 x 2 x 128 + 14,592 = 29,952 bytes a token (the index key stays bf16). */
static llmmem_status minimax_m3_variant(llmmem_model **out, const char *from, const char *to);

START_TEST(minimax_m3_vllm)
{
    llmmem_model *m = load("minimax-m3.json");
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_serving *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h200"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_serving_new(&r));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_TENSOR_PARALLEL, 8));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MAX_NUM_SEQS, 16));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, 110000000000LL));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_LIMIT_MM_PER_PROMPT, 0));
    /* block_size unset: vLLM takes layer 0's backend's 16, which the sparse kernels' 128 does not divide */
    ck_assert_status(llmmem_serving_estimate(r, m, hw, s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "block_size (16)"));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_BLOCK_SIZE, 128));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BYTES_PER_TOKEN), 45312);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_PAGE_BYTES), 5799936);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_GROUPS), 1);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_ACTIVATION_PEAK), 784334848ULL);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_CUDA_GRAPH), 13549568ULL);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_KV_CACHE_BYTES), 27951034082ULL);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_NUM_BLOCKS), 4819);
    /* vLLM's own model memory (minimax_m3_vllm_rank) */
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, -1));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_WEIGHTS), 106931293184ULL);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_KV_CACHE_BYTES), 31019740898ULL);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_NUM_BLOCKS), 5348);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_TOKENS), 684544);
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, 110000000000LL));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_KV_CACHE_DTYPE, LLMMEM_KV_CACHE_FP8));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BYTES_PER_TOKEN), 29952);
    /* the sparse backend caches bf16 or fp8 alone */
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_KV_CACHE_DTYPE, LLMMEM_KV_CACHE_NVFP4));
    ck_assert_status(llmmem_serving_estimate(r, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "kv_cache_dtype (nvfp4)"));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_KV_CACHE_DTYPE, LLMMEM_KV_CACHE_AUTO));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_TENSOR_PARALLEL, 1));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_ACTIVATION_PEAK), 1312817152ULL);
    /* per-stage pages and the largest image of its processor (the checkpoint's preprocessor_config.json) are
     * not modelled */
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_PIPELINE_PARALLEL, 2));
    ck_assert_status(llmmem_serving_estimate(r, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "pipeline_parallel (2)"));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_PIPELINE_PARALLEL, 1));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_LIMIT_MM_PER_PROMPT, 1));
    ck_assert_status(llmmem_serving_estimate(r, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "minimax_m3_vl's minimax_m3_vision tower"));
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "set mm_max_tokens_per_item"));
    /* the item given (576: a 672 x 672 image, 48^2 patches merged 2 x 2): projector outputs of the text width
     * 6,144; compute and cache max(8192, 576) = 8,192: 8,192 x 6,144 x 2 = 100,663,296 B; the profile run's
     * min(8192 // 576 = 14, 16 x min(1, max_model_len // 576)) = 14 items: 14 x 576 x 6,144 x 2 = 99,090,432 B */
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MM_MAX_TOKENS_PER_ITEM, 576));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_MM_MAX_TOKENS_PER_ITEM), 576);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_MM_ITEMS_PER_BATCH), 14);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_ENCODER_CACHE_BYTES), 100663296ULL);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_ENCODER_PROFILE_BYTES), 99090432ULL);
    /* the top-k buffer's width is sparse_topk_blocks: without it, refused */
    llmmem_model_free(m);
    ck_assert_ok(minimax_m3_variant(&m, "\"sparse_topk_blocks\": 16,", ""));
    ck_assert_int_eq(get(m, LLMMEM_KEY_INDEX_TOPK_BLOCKS), 0);
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_LIMIT_MM_PER_PROMPT, 0));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, -1));
    ck_assert_status(llmmem_serving_estimate(r, m, hw, s), LLMMEM_ERR_INCOMPLETE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "index_topk_blocks is not set"));
    llmmem_serving_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
}
END_TEST

/* The published config with the first `from` replaced by `to`, read into *out. */
static llmmem_status minimax_m3_variant(llmmem_model **out, const char *from, const char *to)
{
    char path[1024], text[16384], json[20480];
    snprintf(path, sizeof path, "%s/configs/minimax-m3.json", LLMMEM_TEST_DATA);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *at = strstr(text, from);
    ck_assert_msg(at != NULL, "%s", from);
    ck_assert_int_lt(snprintf(json, sizeof json, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from)),
                     (int)sizeof json);
    return llmmem_model_from_hf_config_text(out, json, strlen(json));
}

/* That variant refused with `status`, its message naming `why`. */
static void minimax_m3_refused(const char *from, const char *to, llmmem_status status, const char *why)
{
    llmmem_model *b = NULL;
    ck_assert_msg(minimax_m3_variant(&b, from, to) == status, "%s: %s", to, llmmem_last_message());
    ck_assert_msg(strstr(llmmem_last_message(), why) != NULL, "%s", llmmem_last_message());
}

/* The forms Megatron-Bridge's provider_bridge also reads: n_shared_experts x shared_intermediate_size, one shared
 * MLP (2: + 57 x 3 x 3072 x 6144 = 3,227,516,928 -> 430,267,657,088); mlp_layer_types (dense, sparse) in place of
 * moe_layer_freq, the same count. */
START_TEST(minimax_m3_bridge_forms)
{
    llmmem_model *m = NULL;
    ck_assert_ok(minimax_m3_variant(&m, "\"n_shared_experts\": 1", "\"n_shared_experts\": 2"));
    ck_assert_uint_eq(total(m), 430267657088ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_SHARED_EXPERT_INTERMEDIATE_SIZE), 6144);
    llmmem_model_free(m);
    char types[1024] = "\"mlp_layer_types\": [";
    for (int i = 0; i < 60; i++)
        strcat(types, i < 3 ? "\"dense\", " : i < 59 ? "\"sparse\", " : "\"sparse\"], \"unread\": [");
    ck_assert_ok(minimax_m3_variant(&m, "\"moe_layer_freq\": [", types));
    ck_assert_uint_eq(total(m), 427040140160ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_FIRST_K_DENSE_REPLACE), 3);
    llmmem_model_free(m);
}
END_TEST

/* What minimax_m3_vl does not model or vLLM does not run is refused by name: vLLM's default block of 16,
 * TensorRT-LLM's cache and the generate loop (they page the lightning indexer's keys), training (its saved
 * tensors), and configs of other shapes than the published one's. */
START_TEST(minimax_m3_refusals)
{
    llmmem_model *m = load("minimax-m3.json");
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_serving *r = NULL;
    llmmem_report *rep = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_serving_new(&r));
    ck_assert_ok(llmmem_report_new(&rep));
    /* vLLM's model memory is modelled (minimax_m3_vllm); its default block of 16 is not a multiple of 128 */
    ck_assert_status(llmmem_serving_estimate(r, m, hw, s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "block_size (16)"));
    static const llmmem_engine others[] = {LLMMEM_ENGINE_TRTLLM};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_ENGINE, others[i]));
        ck_assert_status(llmmem_serving_estimate(r, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
        ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "lightning indexer on 57"));
        ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "minimax_m3_vl"));
    }
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_ENGINE, LLMMEM_ENGINE_AUTO));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MAX_NEW_TOKENS, 16));
    ck_assert_status(llmmem_estimate(rep, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "the generate loop's cache"));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MAX_NEW_TOKENS, 0));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MODE, LLMMEM_MODE_TRAINING));
    ck_assert_status(llmmem_estimate(rep, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "training activations of a lightning indexer"));
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "minimax_m3_vl"));
    llmmem_report_free(rep);
    llmmem_serving_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
    static const struct {
        const char *from, *to;
        llmmem_status status;
        const char *why;
    } bad[] = {
        {"\"qk_norm_type\": \"per_head\"", "\"qk_norm_type\": \"per_layer\"", LLMMEM_ERR_UNSUPPORTED,
         "text_config.qk_norm_type: 'per_layer' is not supported"},
        {"\"attention_output_gate\": false", "\"attention_output_gate\": true", LLMMEM_ERR_UNSUPPORTED,
         "attention output gate"},
        {"\"shared_intermediate_size\": 3072,", "", LLMMEM_ERR_INCOMPLETE,
         "shared_intermediate_size: is missing, but n_shared_experts is 1"},
        {"\"moe_layer_freq\": [", "\"unread\": [", LLMMEM_ERR_PARSE, "text_config.mlp_layer_types: expected a list"},
        {"\"sparse_attention_config\": {", "\"layer_types\": [], \"sparse_attention_config\": {",
         LLMMEM_ERR_UNSUPPORTED, "layer_types: is not read"},
        {"\"moe_layer_freq\": [\n      0,", "\"moe_layer_freq\": [\n      1,", LLMMEM_ERR_UNSUPPORTED,
         "moe_layer_freq: entry 1 is 0 after a 1"},
        {"\"sparse_attention_freq\": [\n        0,\n        0,\n        0,\n        1,\n        1,",
         "\"sparse_attention_freq\": [\n        0,\n        0,\n        0,\n        0,\n        1,",
         LLMMEM_ERR_UNSUPPORTED, "index_first_layer (4)"},
        {"\"sparse_index_dim\": 128,", "", LLMMEM_ERR_INCOMPLETE,
         "text_config.sparse_attention_config.sparse_index_dim: is missing"},
        {"\"position_embedding_type\": \"rope\"", "\"position_embedding_type\": \"learned\"", LLMMEM_ERR_UNSUPPORTED,
         "learned position table"},
        {"\"projector_hidden_size\": 6144", "\"projector_hidden_size\": 4096", LLMMEM_ERR_UNSUPPORTED,
         "projector_hidden_size: 4096 differs"},
        {"\"multimodal_projector_bias\": true", "\"multimodal_projector_bias\": false", LLMMEM_ERR_UNSUPPORTED,
         "unbiased projectors"},
        {"\n    \"image_token_compression_method\": \"patch_merge\"", "\"image_token_compression_method\": \"pool\"",
         LLMMEM_ERR_UNSUPPORTED, "img_token_compression_config.image_token_compression_method: 'pool'"},
        {"\"architectures\": [\n      \"MiniMaxM3SparseForCausalLM\"",
         "\"model_type\": \"minimax_m3\", \"architectures\": [\n      \"MiniMaxM3SparseForCausalLM\"",
         LLMMEM_ERR_UNSUPPORTED, "without a model_type"},
        {"\"model_type\": \"clip_vision_model\"", "\"model_type\": \"siglip_vision_model\"", LLMMEM_ERR_UNSUPPORTED,
         "minimax_m3_vl takes clip_vision_model"},
        {"\"intermediate_size\": 5120,", "", LLMMEM_ERR_INCOMPLETE, "vision_config.intermediate_size: is missing"},
        /* n_shared_experts 2 x shared_intermediate_size 2^62 was a signed overflow (0): the width is checked first */
        {"\"shared_intermediate_size\": 3072,\n    \"num_local_experts\": 128,\n    \"num_experts_per_tok\": 4,\n"
         "    \"n_shared_experts\": 1,",
         "\"shared_intermediate_size\": 4611686018427387904, \"num_local_experts\": 128, \"num_experts_per_tok\": 4, "
         "\"n_shared_experts\": 2,",
         LLMMEM_ERR_OUT_OF_RANGE, "shared_intermediate_size: shared_expert_intermediate_size (4611686018427387904) is out"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        minimax_m3_refused(bad[i].from, bad[i].to, bad[i].status, bad[i].why);
}
END_TEST

/* vLLM's profile run of Gemma 4 on one H100 (v1/worker/gpu_model_runner.py profile_run: one forward over
 * max_num_batched_tokens 8192 tokens, then the sampler over max_num_seqs rows; bf16, 2 bytes an element),
 * max_num_seqs 256, by hand from vllm/model_executor/models/gemma4.py, each intermediate freed once consumed:
 * a layer holds the residual and its normed input (2h), the per-layer inputs of every layer when the model has
 * them (Gemma4Model.forward: 35 x 256 = 8,960 for E2B), and the larger of its attention (Gemma4Attention.forward:
 * qkv_proj's output, q + 2 kv heads, and the attention output, q heads, at the layer type's head width) and its
 * MLP (Gemma4MLP: gate_up 2I and GeluAndMul's output I), or with enable_moe_block the MoE block (the MLP's normed
 * output and the experts' normed input, 2h, fused_moe's caches top_k x (3 x 704 + h), the router's fp32 logits):
 *   E2B (h 1536, 8 heads, 1 KV head; sliding 256 wide, full 512; I 6144 doubled on its KV-shared layers):
 *     attention (8 + 2 + 8) x 512 = 9,216; MLP 3 x 12,288 = 36,864; (3,072 + 8,960 + 36,864) x 2 = 97,792 B a
 *     token, x 8192 = 801,112,064 (the start, h + 3 x 8,960 = 28,416 elements, is below); the sampler 8192 x 1536
 *     x 2 + 256 x 262144 x (2 + 4) = 427,819,008 is below
 *   31B (h 5376, 32 heads; sliding 16 KV heads of 256, full 4 of 512; I 21504): attention max((32 + 32 + 32) x
 *     256, (32 + 8 + 32) x 512) = 36,864; MLP 64,512; (10,752 + 64,512) x 2 = 150,528 B, x 8192 = 1,233,125,376
 *     (sampler 88,080,384 + 402,653,184 = 490,733,568)
 *   26B-A4B (h 2816, 16 heads; sliding 8 KV heads of 256, full 2 of 512; I 2112; 128 experts of 704, top 8):
 *     MoE 2 x 2816 + 8 x (2,112 + 2,816) = 45,056 over attention (16 + 4 + 16) x 512 = 18,432; (5,632 + 45,056) x
 *     2 + 128 x 4 = 101,888 B, x 8192 = 834,666,496 (sampler 46,137,344 + 402,653,184 = 448,790,528).
 * With vLLM's defaults (max_num_seqs 1024) the sampler's 8192 x h x 2 + 1024 x 262144 x 6 is the E2B's peak:
 * 25,165,824 + 1,610,612,736 = 1,635,778,560; serve then sizes the cache with no budget given. */
START_TEST(gemma4_profile_peak)
{
    llmmem_model *m = gemma4(1536, 35, 6144, 8, 1, 0, "SSSSF", 512, 20, 1, 256, 0, 0, 1);
    llmmem_strategy *s = NULL;
    llmmem_hardware *hw = NULL;
    llmmem_serving *r = NULL;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_serving_new(&r));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_ACTIVATION_PEAK), 1635778560ULL);
    ck_assert_uint_gt(llmmem_serving_get(r, LLMMEM_SERVING_NUM_BLOCKS), 0);
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MAX_NUM_SEQS, 256));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_ACTIVATION_PEAK), 801112064ULL);
    llmmem_model_free(m);
    m = gemma4(5376, 60, 21504, 32, 16, 4, "SSSSSF", 1024, 0, 0, 0, 0, 0, 0);
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_ACTIVATION_PEAK), 1233125376ULL);
    llmmem_model_free(m);
    m = gemma4(2816, 30, 2112, 16, 8, 2, "SSSSSF", 1024, 0, 0, 0, 128, 704, 0);
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_ACTIVATION_PEAK), 834666496ULL);
    llmmem_serving_free(r);
    llmmem_hardware_free(hw);
    llmmem_strategy_free(s);
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
    tcase_add_test(tc, ministral3_multimodal);
    tcase_add_test(tc, gemma4_31b);
    tcase_add_test(tc, gemma4_26b_a4b);
    tcase_add_test(tc, gemma4_e_series);
    tcase_add_test(tc, kv_shared_on_full_layers);
    tcase_add_test(tc, gemma4_cache);
    tcase_add_test(tc, kimi_k25);
    tcase_add_test(tc, kimi_k25_refusals);
    tcase_add_test(tc, kimi_k3);
    tcase_add_test(tc, kimi_k3_refusals);
    tcase_add_test(tc, kimi_k3_rules);
    tcase_add_test(tc, exaone4_5_33b);
    tcase_add_test(tc, exaone4_5_refusals);
    tcase_add_test(tc, gemma4_profile_peak);
    tcase_add_test(tc, minimax_m3);
    tcase_add_test(tc, minimax_m3_refusals);
    tcase_add_test(tc, minimax_m3_bridge_forms);
    tcase_add_test(tc, minimax_m3_vllm);
    tcase_add_loop_test(tc, vllm_encoder_cache, 0, (int)(sizeof encoder_cases / sizeof encoder_cases[0]));
    tcase_add_test(tc, tower_budget_tokens);
    suite_add_tcase(suite, tc);
    return run_suite(suite);
}
