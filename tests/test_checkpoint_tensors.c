/* What checkpoints store beyond the model class (issue 17): gpt-oss's sinks, biased experts and
 * MXFP4 experts; DeepSeek-V3's multi-token-prediction module and fp32 router bias; DeepSeek-V3.2's
 * indexer; compressed-tensors checkpoints. Every figure below is a publisher's (or worked out by hand from a published
 * config, where said), never this library's output. */
#include <stdio.h>
#include <string.h>

#include "family.h"

static uint64_t group(const llmmem_model *m, llmmem_param_group g)
{
    uint64_t n = 0;
    ck_assert_ok(llmmem_model_parameters(&n, m, g));
    return n;
}

/* ---- gpt-oss ------------------------------------------------------------------------------- */

/* openai/gpt-oss-20b (tests/data/configs/gpt-oss-20b.json, the repo's config.json): 24 layers of
 * 2880, 64 query heads and 8 KV heads of 64, attention_bias true, 32 experts of 2880 (4 per token),
 * vocabulary 201,088, untied. transformers modeling_gpt_oss.py:
 *   attention per layer: q 4096 x 2880 + k, v 2 x 512 x 2880 + o 2880 x 4096 = 26,542,080;
 *     biases 4096 + 512 + 512 + 2880 = 8,000; sinks 64 (GptOssAttention.sinks): 26,550,144
 *   norms per layer 2 x 2880 = 5,760
 *   router 32 x 2880 + bias 32 = 92,192 (GptOssTopKRouter)
 *   experts 32 x (gate_up 2880 x 5760 + down 2880 x 2880) = 796,262,400; biases 32 x (5760 + 2880)
 *     = 276,480 (GptOssExperts gate_up_proj_bias, down_proj_bias)
 *   per layer 823,186,976 x 24 = 19,756,487,424; embedding + head 2 x 201088 x 2880 =
 *   1,158,266,880; final norm 2,880: 20,914,757,184 (the model card's 20.91B total).
 * Its model.safetensors.index.json total_size, 13,761,264,768 bytes, is what the inventory stores:
 * every tensor but the expert matrices in bf16, (20,914,757,184 - 24 x 796,262,400) x 2 =
 * 3,608,919,168, and the expert matrices in MXFP4 (*_blocks: 16 bytes per 32 weights, *_scales:
 * one E8M0 byte per 32; transformers integrations/mxfp4.py), along the 2880 inputs 90 blocks of
 * 17 bytes per row: 24 x 32 x (5760 + 2880) x 90 x 17 = 10,152,345,600. */
START_TEST(gpt_oss_20b)
{
    llmmem_model *m = load("gpt-oss-20b.json");
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_GPT_OSS);
    ck_assert_uint_eq(total(m), 20914757184ULL);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_EXPERTS), 24ULL * (796262400ULL + 276480ULL));
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_ATTENTION), 24ULL * 26550144ULL);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_ROUTER), 24ULL * 92192ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_QUANTIZATION_FORMAT), LLMMEM_FORMAT_MXFP4);
    ck_assert_int_eq(get(m, LLMMEM_KEY_QUANTIZED_MODULES), LLMMEM_QUANTIZED_EXPERTS);
    /* the config names no dtype: Mxfp4HfQuantizer.update_dtype loads the rest in bfloat16 */
    ck_assert_int_eq(get(m, LLMMEM_KEY_TORCH_DTYPE), LLMMEM_FORMAT_BF16);
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW), 128);
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW_PATTERN), 2);
    ck_assert_uint_eq(inference_weights(m), 13761264768ULL);
    llmmem_model_free(m);

    m = preset("gpt-oss-20b");
    ck_assert_uint_eq(total(m), 20914757184ULL);
    ck_assert_uint_eq(inference_weights(m), 13761264768ULL);
    llmmem_model_free(m);
}
END_TEST

/* openai/gpt-oss-120b: the same layers with 128 experts, 36 of them. By the derivation above:
 *   per layer 26,550,144 + 5,760 + router 128 x 2880 + 128 = 368,768 + experts 128 x 24,883,200 =
 *   3,185,049,600 + expert biases 128 x 8,640 = 1,105,920: 3,213,080,192 x 36 = 115,670,886,912;
 *   + 1,158,266,880 + 2,880 = 116,829,156,672 (the model card's 116.83B total).
 *   Bytes: (116,829,156,672 - 36 x 3,185,049,600) x 2 = 4,334,742,144 bf16, and
 *   36 x 128 x 8640 x 90 x 17 = 60,914,073,600 MXFP4: 65,248,815,744 (the bytes of the published
 *   repo's tensors as a third-party inventory of its safetensors files records them). */
START_TEST(gpt_oss_120b)
{
    llmmem_model *m = preset("gpt-oss-120b");
    ck_assert_uint_eq(total(m), 116829156672ULL);
    ck_assert_uint_eq(inference_weights(m), 65248815744ULL);
    llmmem_model_free(m);
}
END_TEST

/* One sequence's cache, transformers' contiguous cache in bf16: a token adds K and V of 8 KV heads
 * of 64 to a layer, 2 x 8 x 64 x 2 = 2,048 bytes. gpt-oss-20b's 12 full layers keep every token,
 * its 12 sliding layers the last 128 (DynamicSlidingWindowLayer): 4096 tokens hold
 * 12 x 4096 x 2048 + 12 x 128 x 2048 = 100,663,296 + 3,145,728 = 103,809,024 bytes; 100 tokens
 * are under the window everywhere: 24 x 100 x 2048 = 4,915,200. */
START_TEST(gpt_oss_kv)
{
    llmmem_model *m = load("gpt-oss-20b.json");
    llmmem_strategy *s = NULL;
    uint64_t bytes = 0;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_kv_cache_bytes(&bytes, m, s, 1, 4096));
    ck_assert_uint_eq(bytes, 103809024ULL);
    ck_assert_ok(llmmem_kv_cache_bytes(&bytes, m, s, 1, 100));
    ck_assert_uint_eq(bytes, 4915200ULL);
    llmmem_strategy_free(s);
    llmmem_model_free(m);
}
END_TEST

/* modules_to_not_convert naming the experts would leave them 16-bit beside MXFP4 ones: refused. */
START_TEST(gpt_oss_refusals)
{
    static const char *const json =
        "{\"model_type\": \"gpt_oss\", \"hidden_size\": 64, \"num_hidden_layers\": 2, \"num_attention_heads\": 4, "
        "\"num_key_value_heads\": 2, \"head_dim\": 16, \"vocab_size\": 100, \"intermediate_size\": 64, "
        "\"num_local_experts\": 4, \"num_experts_per_tok\": 2, \"quantization_config\": {\"quant_method\": "
        "\"mxfp4\", \"modules_to_not_convert\": [\"model.layers.*.mlp.experts\"]}}";
    llmmem_model *m = NULL;
    ck_assert_status(llmmem_model_from_hf_config_text(&m, json, strlen(json)), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "modules_to_not_convert[0]"));
}
END_TEST

/* ---- multi-token prediction -------------------------------------------------------------- */

/* Serving weights of the whole model on one H100 (vLLM, tensor_parallel 1), with or without the
 * MTP modules drafting (speculative_method mtp). */
static uint64_t serving_weights(const llmmem_model *m, int mtp)
{
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_serving *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MAX_MODEL_LEN, 4096));
    if (mtp) {
        ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_SPECULATIVE_METHOD, LLMMEM_SPECULATIVE_MTP));
        ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_NUM_SPECULATIVE_TOKENS, 1));
    }
    ck_assert_ok(llmmem_serving_new(&r));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    uint64_t w = llmmem_serving_get(r, LLMMEM_SERVING_WEIGHTS);
    llmmem_serving_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    return w;
}

/* deepseek-ai/DeepSeek-V3: the Hub's safetensors metadata of the published repo counts BF16
 * 3,918,786,560 + F8_E4M3 680,571,043,840 + F32 41,555,600 = 684,531,386,000 stored elements, of
 * which 41,540,496 F32 are the fp8 128 x 128 block scales (weight_scale_inv; tests/test_param_counts.c
 * derives them) and the rest parameters: 684,489,845,504, the checkpoint's parameters. The model
 * (DeepseekV3ForCausalLM, tests/test_param_counts.c) has 671,026,419,200; the difference, 13,463,426,304,
 * is the one MTP module (num_nextn_predict_layers 1, model.layers.61, README_WEIGHTS.md): an MoE
 * decoder layer (MLA 187,105,280 + its norms 2,048; 2 x 7168 layer norms; 257 experts of
 * 3 x 2048 x 7168; gate 256 x 7168 + 256), enorm, hnorm, shared_head.norm (3 x 7168), eh_proj
 * 7168 x 14336, and its own embed_tokens and shared_head.head (2 x 129280 x 7168).
 * Stored bytes: 3,918,786,560 x 2 + 680,571,043,840 + 41,555,600 x 4 = 688,574,839,360. Of them
 * the MTP module's: fp8 MLA and experts 187,105,280 + 11,318,329,344 = 11,505,434,624; their block
 * scales (11,448 + 257 x 2,688) x 4 = 2,809,056; bf16 gate 3,670,016; fp32 e_score_correction_bias
 * 1,024; bf16 norms (16,384 + 21,504) x 2 = 75,776; bf16 eh_proj 205,520,896; bf16 embedding and
 * head 3,706,716,160: 15,424,227,552. */
START_TEST(deepseek_v3_mtp)
{
    llmmem_model *m = load("deepseek-v3.json");
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_NEXTN_PREDICT_LAYERS), 1);
    uint64_t n = 0;
    ck_assert_uint_eq(total(m), 671026419200ULL);
    ck_assert_ok(llmmem_model_checkpoint_parameters(&n, m));
    ck_assert_uint_eq(n, 684489845504ULL);
    ck_assert_uint_eq(serving_weights(m, 1), 688574839360ULL);
    ck_assert_uint_eq(serving_weights(m, 1) - serving_weights(m, 0), 15424227552ULL);
    llmmem_model_free(m);

    m = preset("deepseek-v3");
    ck_assert_ok(llmmem_model_checkpoint_parameters(&n, m));
    ck_assert_uint_eq(n, 684489845504ULL);
    ck_assert_uint_eq(serving_weights(m, 1), 688574839360ULL);
    llmmem_model_free(m);

    /* a model without MTP modules: the checkpoint holds the model, and mtp cannot draft */
    m = preset("kimi-k2");
    ck_assert_ok(llmmem_model_checkpoint_parameters(&n, m));
    ck_assert_uint_eq(n, total(m));
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_serving *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_SPECULATIVE_METHOD, LLMMEM_SPECULATIVE_MTP));
    ck_assert_ok(llmmem_serving_new(&r));
    ck_assert_status(llmmem_serving_estimate(r, m, hw, s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "num_nextn_predict_layers is 0"));
    llmmem_serving_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
}
END_TEST

/* ---- DeepSeek-V3.2 ------------------------------------------------------------------------ */

/* deepseek-ai/DeepSeek-V3.2 (tests/data/configs/deepseek-v3.2.json, its config.json): DeepSeek-V3's
 * shapes and, in each of the 61 layers and the MTP layer, the indexer of inference/model.py:
 * wq_b 8192 x 1536 (64 heads of 128 from the q_lora_rank latent) = 12,582,912, wk 128 x 7168 =
 * 917,504, k_norm LayerNorm 2 x 128 = 256, weights_proj 64 x 7168 = 458,752: 13,959,424 a layer.
 *   model: 671,026,419,200 (DeepSeek-V3's, tests/test_param_counts.c) + 61 x 13,959,424 = 671,877,944,064
 *   checkpoint: 684,489,845,504 (DeepSeek-V3's with its MTP module, above) + 62 x 13,959,424 =
 *   685,355,329,792.
 * No publisher total was found for this repo; a third-party inventory of its 163 safetensors files
 * counts 685,396,921,376 stored elements, which is this checkpoint count plus the fp8 block scales:
 * DeepSeek-V3's 41,540,496 and 62 x (wq_b 64 x 12 + wk 1 x 56) = 51,088. */
START_TEST(deepseek_v32)
{
    llmmem_model *m = load("deepseek-v3.2.json");
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_DEEPSEEK_V32);
    ck_assert_int_eq(get(m, LLMMEM_KEY_INDEX_N_HEADS), 64);
    ck_assert_uint_eq(total(m), 671877944064ULL);
    uint64_t n = 0;
    ck_assert_ok(llmmem_model_checkpoint_parameters(&n, m));
    ck_assert_uint_eq(n, 685355329792ULL);
    ck_assert_uint_eq(n + 41540496ULL + 51088ULL, 685396921376ULL);
    llmmem_model_free(m);

    m = preset("deepseek-v3.2");
    ck_assert_uint_eq(total(m), 671877944064ULL);
    ck_assert_ok(llmmem_model_checkpoint_parameters(&n, m));
    ck_assert_uint_eq(n, 685355329792ULL);
    llmmem_model_free(m);

    /* an indexer reads the q latent: without q_lora_rank there is none to read */
    m = preset("deepseek-v3.2");
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_Q_LORA_RANK, 0));
    ck_assert_status(llmmem_model_total_parameters(&n, m), LLMMEM_ERR_INCOMPATIBLE);
    llmmem_model_free(m);
}
END_TEST

/* vLLM's paged cache of DeepSeek-V3.2: a token adds to each of the 61 layers the MLA latent
 * (kv_lora_rank 512 + rope 64; MLAAttentionSpec) and the indexer's key (DeepseekV32IndexerCache:
 * 128 fp8 bytes + one fp32 scale per 128 = 132 bytes, whatever kv_cache_dtype is).
 *   bf16 (auto from torch_dtype): 61 x (576 x 2 + 132) = 61 x 1,284 = 78,324 bytes a token;
 *   fp8_ds_mla: 61 x (656 + 132) = 48,068 bytes a token.
 * One sequence of 4096 tokens: 4096 x 78,324 = 320,815,104 bytes; 4096 x 48,068 = 196,886,528. */
START_TEST(deepseek_v32_kv)
{
    llmmem_model *m = load("deepseek-v3.2.json");
    llmmem_strategy *s = NULL;
    uint64_t per_token = 0;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_kv_bytes_per_token(&per_token, m, s));
    ck_assert_uint_eq(per_token, 78324ULL);
    ck_assert_uint_eq(4096ULL * per_token, 320815104ULL);
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_KV_CACHE_DTYPE, LLMMEM_KV_CACHE_FP8_DS_MLA));
    ck_assert_ok(llmmem_kv_bytes_per_token(&per_token, m, s));
    ck_assert_uint_eq(per_token, 48068ULL);
    ck_assert_uint_eq(4096ULL * per_token, 196886528ULL);
    llmmem_strategy_free(s);
    llmmem_model_free(m);
}
END_TEST

/* ---- compressed-tensors ------------------------------------------------------------------- */

/* meta-llama/Llama-3.1-8B's config (tests/data/configs) with a quantization_config in the form
 * llm-compressor writes (quant_method compressed-tensors, one config group over Linear, lm_head
 * ignored), as RedHatAI's Llama-3.1-8B *-quantized.w4a16 and *-FP8-dynamic checkpoints carry. */
static llmmem_model *llama_with(const char *quantization_config)
{
    char path[1024], text[8192];
    snprintf(path, sizeof path, "%s/configs/llama-3.1-8b.json", LLMMEM_TEST_DATA);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    char *end = strrchr(text, '}');
    ck_assert_ptr_nonnull(end);
    snprintf(end, sizeof text - (size_t)(end - text), ", \"quantization_config\": %s}", quantization_config);
    llmmem_model *m = NULL;
    ck_assert_ok(llmmem_model_from_hf_config_text(&m, text, strlen(text)));
    return m;
}

/* W4A16 (int, 4 bits, strategy group, group_size 128, symmetric): vLLM compressed_tensors_wNa16.py
 * keeps per linear weight_packed int32 [rows, cols / 8], weight_scale bf16 [rows, cols / 128] and
 * weight_shape int64 [2] (16 bytes). Llama-3.1-8B, 32 layers of 4096, 8 KV heads of 128, MLP 14336:
 *   q, o (4096 x 4096): 4096 x 512 x 4 + 4096 x 32 x 2 + 16 = 8,650,768 each
 *   k, v (1024 x 4096): 1024 x 512 x 4 + 1024 x 32 x 2 + 16 = 2,162,704 each
 *   gate, up (14336 x 4096): 14336 x 512 x 4 + 14336 x 32 x 2 + 16 = 30,277,648 each
 *   down (4096 x 14336): 4096 x 1792 x 4 + 4096 x 112 x 2 + 16 = 30,277,648
 *   two bf16 norms 16,384: 112,476,272 a layer x 32 = 3,599,240,704
 *   bf16 embedding and (ignored) lm_head 2 x 128256 x 4096 x 2 = 2,101,346,304; final norm 8,192
 *   total 5,700,595,200 bytes. */
START_TEST(compressed_tensors_w4a16)
{
    llmmem_model *m = llama_with(
        "{\"quant_method\": \"compressed-tensors\", \"format\": \"pack-quantized\", \"ignore\": [\"lm_head\"], "
        "\"kv_cache_scheme\": null, \"config_groups\": {\"group_0\": {\"targets\": [\"Linear\"], "
        "\"input_activations\": null, \"weights\": {\"num_bits\": 4, \"type\": \"int\", \"symmetric\": true, "
        "\"strategy\": \"group\", \"group_size\": 128, \"actorder\": null, \"dynamic\": false}}}}");
    ck_assert_int_eq(get(m, LLMMEM_KEY_QUANTIZATION_FORMAT), LLMMEM_FORMAT_CT_INT4);
    ck_assert_int_eq(get(m, LLMMEM_KEY_QUANTIZATION_GROUP_SIZE), 128);
    ck_assert_uint_eq(inference_weights(m), 5700595200ULL);
    llmmem_model_free(m);
}
END_TEST

/* FP8-dynamic (float, 8 bits, strategy channel; activations quantized per token at run time, so no
 * input_scale): vLLM compressed_tensors_w8a8_fp8.py keeps the fp8 weight and an fp32 weight_scale
 * per output row. Per layer: matrices 2 x 4096^2 + 2 x 1024 x 4096 + 3 x 14336 x 4096 =
 * 218,103,808 bytes; scales for the rows of q, k, v, o, gate, up, down (4096 + 1024 + 1024 + 4096 +
 * 14336 + 14336 + 4096 = 43,008) x 4 = 172,032; norms 16,384: 218,292,224 x 32 = 6,985,351,168; + 2,101,346,304 + 8,192 =
 * 9,086,705,664 bytes. */
START_TEST(compressed_tensors_fp8)
{
    llmmem_model *m = llama_with(
        "{\"quant_method\": \"compressed-tensors\", \"format\": \"float-quantized\", \"ignore\": [\"lm_head\"], "
        "\"config_groups\": {\"group_0\": {\"targets\": [\"Linear\"], \"input_activations\": {\"num_bits\": 8, "
        "\"type\": \"float\", \"strategy\": \"token\", \"dynamic\": true, \"symmetric\": true}, "
        "\"weights\": {\"num_bits\": 8, \"type\": \"float\", \"strategy\": \"channel\", \"symmetric\": true, "
        "\"dynamic\": false}}}}");
    ck_assert_int_eq(get(m, LLMMEM_KEY_QUANTIZATION_FORMAT), LLMMEM_FORMAT_FP8_CHANNEL);
    ck_assert_uint_eq(inference_weights(m), 9086705664ULL);
    llmmem_model_free(m);
}
END_TEST

/* What the inventory cannot describe is refused by name. */
START_TEST(compressed_tensors_refusals)
{
    static const struct {
        const char *config, *text;
    } bad[] = {
        {"{\"quant_method\": \"compressed-tensors\", \"config_groups\": {\"group_0\": {\"targets\": "
         "[\"Linear\"], \"weights\": {\"num_bits\": 4, \"type\": \"int\", \"strategy\": \"group\", "
         "\"group_size\": 128, \"symmetric\": false}}}}",
         "config_groups.weights.symmetric: false is not supported"},
        {"{\"quant_method\": \"compressed-tensors\", \"config_groups\": {\"group_0\": {\"targets\": "
         "[\"Linear\"], \"weights\": {\"num_bits\": 4, \"type\": \"int\", \"strategy\": \"group\", "
         "\"group_size\": 128, \"actorder\": \"group\"}}}}",
         "config_groups.weights.actorder"},
        {"{\"quant_method\": \"compressed-tensors\", \"config_groups\": {\"a\": {\"targets\": [\"Linear\"]}, "
         "\"b\": {\"targets\": [\"Linear\"]}}}",
         "config_groups: 2 groups"},
        {"{\"quant_method\": \"compressed-tensors\", \"ignore\": [\"model.layers.0.self_attn.q_proj\"], "
         "\"config_groups\": {\"group_0\": {\"targets\": [\"Linear\"], \"weights\": {\"num_bits\": 8, "
         "\"type\": \"float\", \"strategy\": \"channel\"}}}}",
         "ignore[0]"},
    };
    char path[1024], text[8192];
    snprintf(path, sizeof path, "%s/configs/llama-3.1-8b.json", LLMMEM_TEST_DATA);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        FILE *f = fopen(path, "rb");
        ck_assert_ptr_nonnull(f);
        size_t n = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[n] = '\0';
        char *end = strrchr(text, '}');
        snprintf(end, sizeof text - (size_t)(end - text), ", \"quantization_config\": %s}", bad[i].config);
        llmmem_model *m = NULL;
        ck_assert_status(llmmem_model_from_hf_config_text(&m, text, strlen(text)), LLMMEM_ERR_UNSUPPORTED);
        ck_assert_msg(strstr(llmmem_last_message(), bad[i].text) != NULL, "'%s' lacks '%s'", llmmem_last_message(),
                      bad[i].text);
    }
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("checkpoint_tensors");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, gpt_oss_20b);
    tcase_add_test(tc, gpt_oss_120b);
    tcase_add_test(tc, gpt_oss_kv);
    tcase_add_test(tc, gpt_oss_refusals);
    tcase_add_test(tc, deepseek_v3_mtp);
    tcase_add_test(tc, deepseek_v32);
    tcase_add_test(tc, deepseek_v32_kv);
    tcase_add_test(tc, compressed_tensors_w4a16);
    tcase_add_test(tc, compressed_tensors_fp8);
    tcase_add_test(tc, compressed_tensors_refusals);
    suite_add_tcase(suite, tc);
    return run_suite(suite);
}
