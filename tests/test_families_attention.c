/* Attention-only families, dense and MoE. Issue 17's: each is read from its published config.json
 * (tests/data/configs) with the class defaults the file omits, counted to the parameter against the
 * publisher's figure, its presets give the same counts, and its cache is sized for one sequence by hand.
 * Issue 33's dense ones (Nemotron-NAS, Olmo 3, Apertus): read from a published config.json or one rebuilt
 * from the published fields (each test says which), their figures records named by the ids of
 * /work/research/r33/SOURCES.md. The sums in the comments are worked out from the configs' shapes. */
#include <stdio.h>
#include <string.h>

#include "family.h"

static void expect_preset_total(const char *name, uint64_t expected)
{
    llmmem_model *m = preset(name);
    ck_assert_msg(total(m) == expected, "preset %s: %llu parameters, expected %llu", name,
                  (unsigned long long)total(m), (unsigned long long)expected);
    llmmem_model_free(m);
}

/* Bytes of a contiguous cache in the model's dtype (the strategy's defaults) for one sequence of `tokens`. */
static uint64_t cache_bytes(const llmmem_model *m, uint64_t tokens)
{
    llmmem_strategy *s = NULL;
    uint64_t bytes = 0;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_kv_cache_bytes(&bytes, m, s, 1, tokens));
    llmmem_strategy_free(s);
    return bytes;
}

/* ---- OLMo 2 ------------------------------------------------------------------------------------ */

/* allenai/OLMo-2-1124-7B: the Hub's safetensors metadata gives 7,298,617,344 parameters, all F32.
 * Olmo2Attention's q_norm spans all 32 heads (32 x 128 = 4096) and k_norm all 32 KV heads (4096);
 * the layer norms are the two post-norms (post_attention_layernorm, post_feedforward_layernorm):
 *   per layer: q, k, v, o 4 x 4096^2 = 67,108,864; q_norm + k_norm 8,192; MLP 3 x 4096 x 11008 =
 *   135,266,304; two norms 8,192: 202,391,552 x 32 = 6,476,529,664;
 *   embedding and untied head 2 x 100352 x 4096 = 822,083,584; final norm 4,096: 7,298,617,344.
 * Per-head norms (head_dim 128 each) would give 32 x (8,192 - 256) fewer: 7,298,363,392. */
START_TEST(olmo2_7b)
{
    llmmem_model *m = load("olmo-2-1124-7b.json");
    ck_assert_uint_eq(total(m), 7298617344ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_OLMO2);
    ck_assert_int_eq(get(m, LLMMEM_KEY_QK_NORM_TYPE), LLMMEM_QK_NORM_PER_LAYER);
    ck_assert_int_eq(get(m, LLMMEM_KEY_TORCH_DTYPE), LLMMEM_FORMAT_FP32);
    /* the same model with per-head norms: the scope is what the key says */
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_QK_NORM_TYPE, LLMMEM_QK_NORM_PER_HEAD));
    ck_assert_uint_eq(total(m), 7298363392ULL);
    llmmem_model_free(m);
    expect_preset_total("olmo-2-1124-7b", 7298617344ULL);
}
END_TEST

/* allenai/OLMo-2-1124-13B: Hub safetensors metadata 13,716,198,400 parameters.
 *   per layer: 4 x 5120^2 = 104,857,600; q/k norms 2 x 5120; MLP 3 x 5120 x 13824 = 212,336,640;
 *   norms 2 x 5120: 317,214,720 x 40 = 12,688,588,800; embedding and head 2 x 100352 x 5120 =
 *   1,027,604,480; final norm 5,120: 13,716,198,400.
 * allenai/OLMo-2-0425-1B: Hub safetensors metadata 1,484,916,736 (the instruct model's card data too).
 *   per layer: 4 x 2048^2 = 16,777,216; q/k norms 4,096; MLP 3 x 2048 x 8192 = 50,331,648; norms
 *   4,096: 67,117,056 x 16 = 1,073,872,896; embedding and head 2 x 100352 x 2048 = 411,041,792;
 *   final norm 2,048: 1,484,916,736.
 * allenai/OLMo-2-0325-32B (8 KV heads of 128): no publisher figure was found; by hand:
 *   per layer: q, o 2 x 5120^2 = 52,428,800; k, v 2 x 1024 x 5120 = 10,485,760; q_norm 5,120 +
 *   k_norm 1,024; MLP 3 x 5120 x 27648 = 424,673,280; norms 10,240: 487,604,224 x 64 =
 *   31,206,670,336; embedding and head 1,027,604,480; final norm 5,120: 32,234,279,936. */
START_TEST(olmo2_presets)
{
    expect_preset_total("olmo-2-1124-13b", 13716198400ULL);
    expect_preset_total("olmo-2-0425-1b", 1484916736ULL);
    expect_preset_total("olmo-2-0325-32b", 32234279936ULL);
}
END_TEST

/* OLMo-2-1124-7B's cache, in its torch_dtype float32 (the strategy's kv_cache_dtype auto): 32 layers x
 * 32 KV heads x 128 x K and V x 4 bytes = 1,048,576 bytes per token; a sequence of 4096 tokens:
 * 4,294,967,296 bytes. */
START_TEST(olmo2_cache)
{
    llmmem_model *m = load("olmo-2-1124-7b.json");
    ck_assert_uint_eq(cache_bytes(m, 4096), 4096ULL * 32 * 32 * 128 * 2 * 4);
    ck_assert_uint_eq(cache_bytes(m, 4096), 4294967296ULL);
    llmmem_model_free(m);
}
END_TEST

/* ---- OLMoE ------------------------------------------------------------------------------------- */

/* allenai/OLMoE-1B-7B-0924: 6,919,161,856 parameters (the Hub's safetensors metadata, and the
 * general.parameter_count of its GGUF conversions). Every layer routes over 64 experts of 1024:
 *   per layer: attention 4 x 2048^2 = 16,777,216; q_norm 2048 + k_norm 2048 (16 heads x 128 each);
 *   experts 64 x 3 x 2048 x 1024 = 402,653,184; router 64 x 2048 = 131,072; norms 4,096:
 *   419,569,664 x 16 = 6,713,114,624; embedding and untied head 2 x 50304 x 2048 = 206,045,184;
 *   final norm 2,048: 6,919,161,856.
 * Active per token: the same with 8 experts instead of 64: 6,919,161,856 - 16 x 56 x 3 x 2048 x 1024
 * = 1,282,017,280. Cache: 16 layers x 16 KV heads x 128 x 2 x 2 bytes = 131,072 per token. */
START_TEST(olmoe_1b_7b)
{
    llmmem_model *m = load("olmoe-1b-7b-0924.json");
    ck_assert_uint_eq(total(m), 6919161856ULL);
    uint64_t active = 0;
    ck_assert_ok(llmmem_model_active_parameters(&active, m));
    ck_assert_uint_eq(active, 1282017280ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_OLMOE);
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_EXPERTS), 64);
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_EXPERTS_PER_TOK), 8);
    ck_assert_int_eq(get(m, LLMMEM_KEY_N_SHARED_EXPERTS), 0);
    ck_assert_uint_eq(cache_bytes(m, 1000), 1000ULL * 131072);
    llmmem_model_free(m);
    expect_preset_total("olmoe-1b-7b-0924", 6919161856ULL);
    /* OlmoeSparseMoeBlock needs experts: 0 is refused, naming the field */
    llmmem_model *bad = NULL;
    const char *json = "{\"model_type\": \"olmoe\", \"hidden_size\": 64, \"intermediate_size\": 32, "
                       "\"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 100, "
                       "\"num_experts\": 0, \"num_experts_per_tok\": 1}";
    ck_assert_status(llmmem_model_from_hf_config_text(&bad, json, strlen(json)), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "num_experts"));
}
END_TEST

/* ---- Cohere ------------------------------------------------------------------------------------ */

/* CohereForAI/aya-expanse-8b: 8,028,033,024 parameters (the Hub's safetensors total). One
 * CohereLayerNorm per layer (a weight, no bias), attention and MLP in parallel, head tied:
 *   per layer: q, o 2 x 4096^2 = 33,554,432; k, v 2 x 1024 x 4096 = 8,388,608; MLP 3 x 4096 x 14336 =
 *   176,160,768; one norm 4,096: 218,107,904 x 32 = 6,979,452,928; embedding 256000 x 4096 =
 *   1,048,576,000; final norm 4,096: 8,028,033,024.
 * Cache: 32 layers x 8 KV heads x 128 x 2 x 2 bytes = 131,072 bytes per token. */
START_TEST(cohere_aya_expanse_8b)
{
    llmmem_model *m = load("aya-expanse-8b.json");
    ck_assert_uint_eq(total(m), 8028033024ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_COHERE);
    ck_assert_int_eq(get(m, LLMMEM_KEY_NORMS_PER_LAYER), 1);
    ck_assert_int_eq(get(m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS), 1);
    ck_assert_int_eq(get(m, LLMMEM_KEY_QK_NORM), 0);
    ck_assert_uint_eq(cache_bytes(m, 8192), 8192ULL * 131072);
    llmmem_model_free(m);
    expect_preset_total("aya-expanse-8b", 8028033024ULL);
    /* CohereForAI/c4ai-command-r-v01: no publisher figure was found; by hand: per layer 4 x 8192^2 =
     * 268,435,456, MLP 3 x 8192 x 22528 = 553,648,128, norm 8,192: 822,091,776 x 40 =
     * 32,883,671,040; embedding 256000 x 8192 = 2,097,152,000; final norm 8,192: 34,980,831,232 */
    expect_preset_total("command-r-v01", 34980831232ULL);
}
END_TEST

/* use_qk_norm (Command R+): CohereLayerNorm((heads, head_dim)) on q and (kv_heads, head_dim) on k,
 * a weight for every head. A 2-layer model of hidden 64, 4 heads of 16, 2 KV heads, MLP 128,
 * vocabulary 100, tied: per layer 2 x 64^2 + 2 x 32 x 64 + 3 x 64 x 128 + 64 = 36,928, and with the
 * norms 64 + 32 more; 2 layers + embedding 6,400 + final norm 64. */
START_TEST(cohere_qk_norm)
{
    const char *base = "{\"model_type\": \"cohere\", \"hidden_size\": 64, \"intermediate_size\": 128, "
                       "\"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"num_key_value_heads\": 2, "
                       "\"vocab_size\": 100";
    char json[512];
    snprintf(json, sizeof json, "%s}", base);
    llmmem_model *m = from_text(json);
    ck_assert_uint_eq(total(m), 2 * 36928 + 6400 + 64);
    llmmem_model_free(m);
    snprintf(json, sizeof json, "%s, \"use_qk_norm\": true}", base);
    m = from_text(json);
    ck_assert_uint_eq(total(m), 2 * (36928 + 64 + 32) + 6400 + 64);
    ck_assert_int_eq(get(m, LLMMEM_KEY_QK_NORM_TYPE), LLMMEM_QK_NORM_PER_LAYER);
    llmmem_model_free(m);
}
END_TEST

/* CohereForAI/c4ai-command-r7b-12-2024: no exact publisher figure was found (the Hub rounds to 8.03B);
 * its shapes are aya-expanse-8b's (hidden 4096, 32 layers, 32 heads, 8 KV heads, MLP 14336,
 * vocabulary 256000, tied), so by hand the same 8,028,033,024. Three layers of four slide over
 * 4096 tokens (sliding_window_pattern 4: layers 3, 7, ..., 31 are global): for one sequence of
 * 10,000 tokens the cache holds 8 global layers x 10,000 + 24 sliding layers x 4096 tokens of
 * 8 KV heads x 128 x 2 x 2 bytes = 4,096 bytes per layer and token:
 * (80,000 + 98,304) x 4,096 = 730,333,184 bytes. */
START_TEST(cohere2_command_r7b)
{
    llmmem_model *m = load("c4ai-command-r7b-12-2024.json");
    ck_assert_uint_eq(total(m), 8028033024ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_COHERE2);
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW), 4096);
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW_PATTERN), 4);
    ck_assert_uint_eq(cache_bytes(m, 10000), 730333184ULL);
    llmmem_model_free(m);
    expect_preset_total("command-r7b-12-2024", 8028033024ULL);
    /* the same layers given as layer_types (transformers 4.53 writes them) */
    char json[4096] = "{\"model_type\": \"cohere2\", \"hidden_size\": 4096, \"intermediate_size\": 14336, "
                      "\"num_hidden_layers\": 32, \"num_attention_heads\": 32, \"num_key_value_heads\": 8, "
                      "\"vocab_size\": 256000, \"torch_dtype\": \"bfloat16\", \"sliding_window\": 4096, "
                      "\"layer_types\": [";
    for (int i = 0; i < 32; i++)
        strcat(json, (i + 1) % 4 ? "\"sliding_attention\"," : "\"full_attention\",");
    json[strlen(json) - 1] = ']';
    strcat(json, "}");
    m = from_text(json);
    ck_assert_uint_eq(cache_bytes(m, 10000), 730333184ULL);
    llmmem_model_free(m);
}
END_TEST

/* ---- GLM-4.5 ----------------------------------------------------------------------------------- */

/* zai-org/GLM-4.5-Air: the Hub's safetensors total is 110,468,824,832 parameters, which counts the
 * checkpoint's multi-token-prediction layer 46 (num_nextn_predict_layers 1) that Glm4MoeForCausalLM
 * never builds. The model (h 4096, 96 heads and 8 KV heads of 128, vocabulary 151552, untied):
 *   attention per layer: q 12288 x 4096 + k, v 2 x 1024 x 4096 + o 4096 x 12288 = 109,051,904, q/k/v
 *   biases 12288 + 2 x 1024 = 14,336, two norms 8,192: 109,074,432 x 46 = 5,017,423,872;
 *   layer 0's dense MLP 3 x 4096 x 10944 = 134,479,872;
 *   45 MoE layers: 128 experts x 3 x 4096 x 1408 = 2,214,592,512, one shared 17,301,504, router
 *   128 x 4096 = 524,288, e_score_correction_bias 128: 2,232,418,432 x 45 = 100,458,829,440;
 *   embedding and head 2 x 151552 x 4096 = 1,241,513,984; final norm 4,096: 106,852,251,264.
 * The MTP layer: one MoE decoder layer 109,074,432 + 2,232,418,432, enorm and hnorm 8,192, eh_proj
 * 4096 x 8192 = 33,554,432, shared_head.norm 4,096, its own embed_tokens and shared_head.head
 * 1,241,513,984: 3,616,573,568; 110,468,824,832 - 3,616,573,568 = 106,852,251,264. The checkpoint's
 * count (llmmem_model_checkpoint_parameters) is the Hub's total itself.
 * Cache: 46 layers x 8 KV heads x 128 x 2 x 2 bytes (bf16) = 188,416 bytes per token. */
START_TEST(glm4_moe_air)
{
    llmmem_model *m = load("glm-4.5-air.json");
    ck_assert_uint_eq(total(m), 110468824832ULL - 3616573568ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_GLM4_MOE);
    ck_assert_int_eq(get(m, LLMMEM_KEY_QKV_BIAS), 1);
    ck_assert_int_eq(get(m, LLMMEM_KEY_O_PROJ_BIAS), 0);
    ck_assert_int_eq(get(m, LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS), 1);
    ck_assert_int_eq(get(m, LLMMEM_KEY_FIRST_K_DENSE_REPLACE), 1);
    ck_assert_uint_eq(cache_bytes(m, 1000), 1000ULL * 188416);
    /* the checkpoint's count, MTP layer included, is the Hub's total */
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_NEXTN_PREDICT_LAYERS), 1);
    ck_assert_uint_eq(checkpoint_total(m), 110468824832ULL);
    llmmem_model_free(m);
    expect_preset_total("glm-4.5-air", 106852251264ULL);
    m = NULL;
    ck_assert_ok(llmmem_model_from_preset(&m, "glm-4.5-air"));
    ck_assert_uint_eq(checkpoint_total(m), 110468824832ULL);
    llmmem_model_free(m);
}
END_TEST

/* zai-org/GLM-4.5: the Hub's safetensors total is 358,337,791,296, with MTP layer 92. The model
 * (h 5120, 92 layers, the first 3 dense, 160 experts of 1536, per-head q/k norms of 128):
 *   attention per layer: q 12288 x 5120 + k, v 2 x 1024 x 5120 + o 5120 x 12288 = 136,314,880, biases
 *   14,336, q_norm + k_norm 256, norms 10,240: 136,339,712 x 92 = 12,543,253,504;
 *   3 dense MLPs 3 x 3 x 5120 x 12288 = 566,231,040;
 *   89 MoE layers: 160 x 3 x 5120 x 1536 = 3,774,873,600, shared 23,592,960, router 819,200, bias
 *   160: 3,799,285,920 x 89 = 338,136,446,880;
 *   embedding and head 2 x 151552 x 5120 = 1,551,892,480; final norm 5,120: 352,797,829,024.
 * The MTP layer: 136,339,712 + 3,799,285,920 + enorm, hnorm 10,240 + eh_proj 5120 x 10240 =
 *   52,428,800 + shared_head.norm 5,120 + embed_tokens and head 1,551,892,480 = 5,539,962,272;
 *   358,337,791,296 - 5,539,962,272 = 352,797,829,024. */
START_TEST(glm4_moe_glm45)
{
    llmmem_model *m = load("glm-4.5.json");
    ck_assert_uint_eq(total(m), 358337791296ULL - 5539962272ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_QK_NORM), 1);
    ck_assert_int_eq(get(m, LLMMEM_KEY_QK_NORM_TYPE), LLMMEM_QK_NORM_PER_HEAD);
    ck_assert_uint_eq(checkpoint_total(m), 358337791296ULL);
    llmmem_model_free(m);
    expect_preset_total("glm-4.5", 352797829024ULL);
}
END_TEST

/* ---- MiniMax-M2 -------------------------------------------------------------------------------- */

/* MiniMaxAI/MiniMax-M2: 228,689,764,864 parameters (the Hub's safetensors total; llama.cpp's
 * model_n_params of its GGUF conversions gives the same). h 3072, 48 heads and 8 KV heads of 128:
 *   attention per layer: q 6144 x 3072 + k, v 2 x 1024 x 3072 + o 3072 x 6144 = 44,040,192; q_norm
 *   over 48 x 128 = 6,144 and k_norm over 8 x 128 = 1,024 (qk_norm_type per_layer); norms 6,144;
 *   experts 256 x 3 x 3072 x 1536 = 3,623,878,656, router 256 x 3072 = 786,432,
 *   e_score_correction_bias 256: 3,668,718,848 x 62 = 227,460,568,576;
 *   embedding and head 2 x 200064 x 3072 = 1,229,193,216; final norm 3,072: 228,689,764,864.
 * Cache: 62 layers x 8 KV heads x 128 x 2 x 2 bytes (bf16) = 253,952 bytes per token. */
START_TEST(minimax_m2)
{
    llmmem_model *m = load("minimax-m2.json");
    ck_assert_uint_eq(total(m), 228689764864ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_MINIMAX_M2);
    ck_assert_int_eq(get(m, LLMMEM_KEY_QK_NORM_TYPE), LLMMEM_QK_NORM_PER_LAYER);
    ck_assert_int_eq(get(m, LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS), 1);
    ck_assert_uint_eq(cache_bytes(m, 1000), 1000ULL * 253952);
    llmmem_model_free(m);
    expect_preset_total("minimax-m2", 228689764864ULL);
    /* lightning attention layers (MiniMax-Text-01's attn_type_list 0) are refused, naming the field */
    const char *json = "{\"model_type\": \"minimax_m2\", \"hidden_size\": 64, \"intermediate_size\": 32, "
                       "\"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 100, "
                       "\"num_local_experts\": 4, \"num_experts_per_tok\": 2, \"attn_type_list\": [0, 1]}";
    llmmem_model *bad = NULL;
    ck_assert_status(llmmem_model_from_hf_config_text(&bad, json, strlen(json)), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "attn_type_list"));
    /* the modeling file builds the q/k norms whatever use_qk_norm says: false is refused, not ignored */
    json = "{\"model_type\": \"minimax_m2\", \"hidden_size\": 64, \"intermediate_size\": 32, "
           "\"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 100, "
           "\"num_local_experts\": 4, \"num_experts_per_tok\": 2, \"use_qk_norm\": false}";
    ck_assert_status(llmmem_model_from_hf_config_text(&bad, json, strlen(json)), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "use_qk_norm"));
}
END_TEST

/* ---- EXAONE 4.0 ------------------------------------------------------------------------------- */

/* LGAI-EXAONE/EXAONE-4.0-32B: no exact publisher figure was found (the model card gives 30.95B
 * parameters without embeddings, which the count below rounds to). By hand, post-norm blocks and
 * per-head q/k norms (head_dim 128 each):
 *   per layer: q, o 2 x 5120 x 5120 = 52,428,800; k, v 2 x 1024 x 5120 = 10,485,760; q/k norms 256;
 *   MLP 3 x 5120 x 27392 = 420,741,120; norms 10,240: 483,666,176 x 64 = 30,954,635,264;
 *   embedding and untied head 2 x 102400 x 5120 = 1,048,576,000; final norm 5,120: 32,003,216,384
 *   (30,954,640,384 without the embedding and head).
 * Cache: layer_types LLLG x 16: 16 global layers keep every token, 48 keep the last 4096, each
 * 8 KV heads x 128 x 2 x 2 bytes = 4,096 bytes per token; 10,000 tokens:
 * (160,000 + 196,608) x 4,096 = 1,460,666,368 bytes.
 * LGAI-EXAONE/EXAONE-4.0-1.2B (model card: 1.07B without embeddings), by hand: per layer q, o
 * 2 x 2048 x 2048 = 8,388,608, k, v 2 x 512 x 2048 = 2,097,152, q/k norms 128, MLP 3 x 2048 x 4096 =
 * 25,165,824, norms 4,096: 35,655,808 x 30 = 1,069,674,240; tied embedding 102400 x 2048 =
 * 209,715,200; final norm 2,048: 1,279,391,488. */
START_TEST(exaone4)
{
    llmmem_model *m = load("exaone-4.0-32b.json");
    ck_assert_uint_eq(total(m), 32003216384ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_EXAONE4);
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW_PATTERN), 4);
    ck_assert_uint_eq(cache_bytes(m, 10000), 1460666368ULL);
    llmmem_model_free(m);
    expect_preset_total("exaone-4.0-32b", 32003216384ULL);
    m = load("exaone-4.0-1.2b.json");
    ck_assert_uint_eq(total(m), 1279391488ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW), 0);
    ck_assert_uint_eq(cache_bytes(m, 10000), 10000ULL * 30 * 8 * 64 * 2 * 2);
    llmmem_model_free(m);
    expect_preset_total("exaone-4.0-1.2b", 1279391488ULL);
}
END_TEST

/* ---- ERNIE 4.5 --------------------------------------------------------------------------------- */

/* baidu/ERNIE-4.5-0.3B-PT: no publisher figure was found (the model card says 0.36B); by hand, 16 heads
 * and 2 KV heads of head_dim 128 over hidden 1024, tied head:
 *   per layer: q, o 2 x 2048 x 1024 = 4,194,304; k, v 2 x 256 x 1024 = 524,288; MLP 3 x 1024 x 3072 =
 *   9,437,184; norms 2,048: 14,157,824 x 18 = 254,840,832; embedding 103424 x 1024 = 105,906,176;
 *   final norm 1,024: 360,748,032.
 * With use_bias every linear gains its bias: per layer q 2048 + k, v 2 x 256 + o 1024 + gate, up
 * 2 x 3072 + down 1024 = 10,752, 18 x 10,752 = 193,536 more.
 * Cache: 18 layers x 2 KV heads x 128 x 2 x 2 bytes = 18,432 bytes per token. */
START_TEST(ernie4_5_0_3b)
{
    llmmem_model *m = load("ernie-4.5-0.3b-pt.json");
    ck_assert_uint_eq(total(m), 360748032ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_ERNIE4_5);
    ck_assert_uint_eq(cache_bytes(m, 1000), 1000ULL * 18432);
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_QKV_BIAS, 1));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_O_PROJ_BIAS, 1));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_MLP_BIAS, 1));
    ck_assert_uint_eq(total(m), 360748032ULL + 193536);
    llmmem_model_free(m);
    expect_preset_total("ernie-4.5-0.3b", 360748032ULL);
    /* the config's use_bias sets the same three keys */
    m = from_text("{\"model_type\": \"ernie4_5\", \"hidden_size\": 1024, \"intermediate_size\": 3072, "
                  "\"num_hidden_layers\": 18, \"num_attention_heads\": 16, \"num_key_value_heads\": 2, "
                  "\"head_dim\": 128, \"vocab_size\": 103424, \"use_bias\": true}");
    ck_assert_uint_eq(total(m), 360748032ULL + 193536);
    llmmem_model_free(m);
}
END_TEST

/* baidu/ERNIE-4.5-21B-A3B-PT: no exact publisher figure was found (the model card gives 21B total, 3B
 * active); by hand, head_dim 2560 / 20 = 128, tied head, layer 0 dense, layers 1-27 sparse:
 *   attention per layer: q, o 2 x 2560^2 = 13,107,200; k, v 2 x 512 x 2560 = 2,621,440; norms 5,120:
 *   15,733,760 x 28 = 440,545,280;
 *   layer 0's MLP 3 x 2560 x 12288 = 94,371,840;
 *   27 sparse blocks: 64 experts x 3 x 2560 x 1536 = 754,974,720, shared MLP of 2 x 1536 = 3072:
 *   3 x 2560 x 3072 = 23,592,960, gate 64 x 2560 = 163,840, moe_statics 64: 778,731,584 x 27 =
 *   21,025,752,768;
 *   embedding 103424 x 2560 = 264,765,440; final norm 2,560: 21,825,437,888.
 * Active per token: 6 experts of 64: 21,825,437,888 - 27 x 58 x 3 x 2560 x 1536 = 3,352,150,208.
 * Cache: 28 layers x 4 KV heads x 128 x 2 x 2 bytes = 57,344 bytes per token. */
START_TEST(ernie4_5_moe_21b)
{
    llmmem_model *m = load("ernie-4.5-21b-a3b-pt.json");
    ck_assert_uint_eq(total(m), 21825437888ULL);
    uint64_t active = 0;
    ck_assert_ok(llmmem_model_active_parameters(&active, m));
    ck_assert_uint_eq(active, 3352150208ULL); /* 21,825,437,888 - 27 x 58 x 3 x 2560 x 1536 */
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_ERNIE4_5_MOE);
    ck_assert_int_eq(get(m, LLMMEM_KEY_FIRST_K_DENSE_REPLACE), 1);
    ck_assert_int_eq(get(m, LLMMEM_KEY_N_SHARED_EXPERTS), 2);
    ck_assert_int_eq(get(m, LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS), 1);
    ck_assert_uint_eq(cache_bytes(m, 1000), 1000ULL * 57344);
    llmmem_model_free(m);
    expect_preset_total("ernie-4.5-21b-a3b", 21825437888ULL);
    /* sparse layers every other layer, or ending before the last, are refused by name */
    const char *base = "{\"model_type\": \"ernie4_5_moe\", \"hidden_size\": 64, \"intermediate_size\": 128, "
                       "\"num_hidden_layers\": 4, \"num_attention_heads\": 4, \"vocab_size\": 100";
    char json[512];
    llmmem_model *bad = NULL;
    snprintf(json, sizeof json, "%s, \"moe_layer_interval\": 2}", base);
    ck_assert_status(llmmem_model_from_hf_config_text(&bad, json, strlen(json)), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "moe_layer_interval"));
    snprintf(json, sizeof json, "%s, \"moe_layer_end_index\": 2}", base);
    ck_assert_status(llmmem_model_from_hf_config_text(&bad, json, strlen(json)), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "moe_layer_end_index"));
    /* absent moe_* fields take Ernie4_5_MoeConfig's defaults: 64 experts of 1536, top 6, 2 shared,
     * layers 1 to the last */
    snprintf(json, sizeof json, "%s}", base);
    m = from_text(json);
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_EXPERTS), 64);
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_EXPERTS_PER_TOK), 6);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MOE_INTERMEDIATE_SIZE), 1536);
    ck_assert_int_eq(get(m, LLMMEM_KEY_N_SHARED_EXPERTS), 2);
    ck_assert_int_eq(get(m, LLMMEM_KEY_FIRST_K_DENSE_REPLACE), 1);
    llmmem_model_free(m);
}
END_TEST

/* ---- GLM-4 (dense) ------------------------------------------------------------------------------ */

/* THUDM/GLM-4-9B-0414: no publisher figure was found; by hand (a llama.cpp n_params of 9,400,279,040
 * reported for a GGUF of these shapes agrees), 32 heads and 2 KV heads of 128, four norms per layer
 * (input, post_self_attn, post_attention, post_mlp), q/k/v biased and o not, untied head:
 *   per layer: q, o 2 x 4096^2 = 33,554,432; k, v 2 x 256 x 4096 = 2,097,152; biases 4096 + 2 x 256 =
 *   4,608; MLP (gate_up_proj 2 x 13696 rows, down) 3 x 4096 x 13696 = 168,296,448; norms 16,384:
 *   203,969,024 x 40 = 8,158,760,960; embedding and head 2 x 151552 x 4096 = 1,241,513,984;
 *   final norm 4,096: 9,400,279,040.
 * Cache: 40 layers x 2 KV heads x 128 x 2 x 2 bytes = 40,960 bytes per token. Glm4Config's own
 * attention_bias default is True: a config that names none still biases q, k and v. */
START_TEST(glm4_9b)
{
    llmmem_model *m = load("glm-4-9b-0414.json");
    ck_assert_uint_eq(total(m), 9400279040ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_GLM4);
    ck_assert_int_eq(get(m, LLMMEM_KEY_NORMS_PER_LAYER), 4);
    ck_assert_int_eq(get(m, LLMMEM_KEY_QKV_BIAS), 1);
    ck_assert_int_eq(get(m, LLMMEM_KEY_O_PROJ_BIAS), 0);
    ck_assert_uint_eq(cache_bytes(m, 1000), 1000ULL * 40960);
    llmmem_model_free(m);
    expect_preset_total("glm-4-9b-0414", 9400279040ULL);
    m = from_text("{\"model_type\": \"glm4\", \"hidden_size\": 64, \"intermediate_size\": 128, "
                  "\"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"num_key_value_heads\": 2, "
                  "\"head_dim\": 16, \"vocab_size\": 100}");
    ck_assert_int_eq(get(m, LLMMEM_KEY_QKV_BIAS), 1);
    llmmem_model_free(m);
}
END_TEST

/* ---- Llama-3.3-Nemotron-Super-49B (nemotron-nas) ------------------------------------------------------- */

/* nvidia/Llama-3_3-Nemotron-Super-49B-v1 (tests/data/configs/llama-3.3-nemotron-super-49b-v1.json, its config.json
 * as NVIDIA/NeMo llama_nemotron_config.py copies it, r33 SOURCES): 49,867,145,216 parameters (id 63224824488,
 * "Confirmed size ... bf16 params"). Its 80 block_configs are 8 distinct blocks (vLLM nemotron_nas.py
 * DeciLMDecoderLayer): 49 with attention (64 heads of 128, n_heads_in_group 8: 8 KV heads; q, o 2 x 8192^2, k, v
 * 2 x 8192 x 1024 = 150,994,944 and input_layernorm) and 31 without (no_op: no tensors, no norm); MLP widths
 * find_multiple(int(2 x ffn_mult x 8192 / 3), 256) for ffn_mult 0.5, 1, 1.3125, 2.625, 3.28125, 5.25: 2816,
 * 5632, 7168, 14336, 17920, 28672 (6, 8, 10, 6, 1 and 49 layers), 3 x 8192 x width each with its norm:
 *   attention 49 x 151,003,136 = 7,399,153,664; MLPs 3 x 8192 x (6 x 2816 + 8 x 5632 + 10 x 7168 + 6 x 14336 +
 *   17920 + 49 x 28672 = 1,642,496) = 40,365,981,696 and their 80 norms 655,360; embedding and head
 *   2 x 128256 x 8192 = 2,101,346,304; final norm 8,192: 49,867,145,216 (r33 scripts/decilm.py).
 * Cache: 49 layers x 2 x 8 x 128 x 2 bytes = 200,704 a token; vLLM gives the no_op blocks no cache spec. */
START_TEST(nemotron_nas_49b)
{
    llmmem_model *m = load("llama-3.3-nemotron-super-49b-v1.json");
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_NEMOTRON_NAS);
    ck_assert_uint_eq(total(m), 49867145216ULL);
    llmmem_strategy *s = NULL;
    uint64_t bytes = 0;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_kv_cache_bytes(&bytes, m, s, 1, 1000));
    ck_assert_uint_eq(bytes, 1000ULL * 200704);
    llmmem_hardware *hw = NULL;
    llmmem_serving *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_TENSOR_PARALLEL, 2));
    ck_assert_ok(llmmem_serving_new(&r));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BYTES_PER_TOKEN), 200704 / 2);
    /* vLLM's get_pp_indices gives pipeline_parallel 8 ten layers a stage; block_configs 60 to 69 are all no_op, so
     * that worker caches no layer and kv_cache_utils.py get_kv_cache_config_from_groups's `assert group_size > 0`
     * stops the engine; at 4 stages of 20 every stage has attention (layers 40-41, 52 and 71-79 among them) */
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_TENSOR_PARALLEL, 1));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_PIPELINE_PARALLEL, 8));
    ck_assert_status(llmmem_serving_estimate(r, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "stage 6 (layers 60 to 69) caches no layer"));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_PIPELINE_PARALLEL, 4));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_PIPELINE_PARALLEL, 1));
    /* training: the blocks' saved tensors are not modelled, refused by name */
    llmmem_report *rep = NULL;
    ck_assert_ok(llmmem_report_new(&rep));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MODE, LLMMEM_MODE_TRAINING));
    ck_assert_status(llmmem_estimate(rep, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "per-layer blocks (nemotron-nas)"));
    llmmem_report_free(rep);
    llmmem_serving_free(r);
    llmmem_hardware_free(hw);
    llmmem_strategy_free(s);
    llmmem_model_free(m);
}
END_TEST

/* ---- Olmo 3 (olmo3) and Apertus (apertus) ------------------------------------------------------------- */

/* allenai/Olmo-3-7B and Olmo-3-32B: 7,298,011,136 and 32,233,522,176 parameters (third parties' records of the
 * models' sizes, r33 SOURCES ids 53524487476, 53361820686 "MFUCallback log: num_params=7298011136"). Configs
 * rebuilt from the published shapes (r33 families.md §17; no verbatim config.json was found), OLMo 2's layers
 * (post-norms, q_norm and k_norm over all heads) and Olmo3Config's 3 sliding layers to 1 full:
 *   7B: h 4096, 32 layers of 32 heads of 128, MLP 11008, vocabulary 100278: per layer q, k, v, o 4 x 4096^2 +
 *     q_norm, k_norm 8,192 + MLP 3 x 4096 x 11008 + two norms 8,192 = 202,391,552; x 32 + embedding and head
 *     2 x 100278 x 4096 + 4,096 = 7,298,011,136
 *   32B: h 5120, 64 layers of 40 heads (8 KV heads) of 128, MLP 27648: per layer q, o 2 x 5120^2 + k, v
 *     2 x 5120 x 1024 + q_norm 5,120 + k_norm 1,024 + MLP 3 x 5120 x 27648 + norms 10,240 = 487,604,224; x 64 +
 *     2 x 100278 x 5120 + 5,120 = 32,233,522,176.
 * Cache (7B, bf16, 8192 tokens): 8 full layers keep all of them, 24 sliding ones 4096: (8 x 8192 + 24 x 4096)
 * x 32 KV heads x 128 x 2 x 2 bytes = 2,684,354,560. */
static llmmem_model *olmo3(int64_t h, int64_t layers, int64_t heads, int64_t kv, int64_t inter)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"architectures\": [\"Olmo3ForCausalLM\"], \"model_type\": \"olmo3\", \"hidden_size\": %lld, "
             "\"num_hidden_layers\": %lld, \"num_attention_heads\": %lld, \"num_key_value_heads\": %lld, "
             "\"intermediate_size\": %lld, \"vocab_size\": 100278, \"max_position_embeddings\": 65536, "
             "\"sliding_window\": 4096, \"tie_word_embeddings\": false, \"attention_bias\": false, "
             "\"rms_norm_eps\": 1e-06, \"dtype\": \"bfloat16\"}",
             (long long)h, (long long)layers, (long long)heads, (long long)kv, (long long)inter);
    return from_text(json);
}

START_TEST(olmo3_counts)
{
    llmmem_model *m = olmo3(4096, 32, 32, 32, 11008);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_OLMO3);
    ck_assert_uint_eq(total(m), 7298011136ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW_PATTERN), 4);
    llmmem_strategy *s = NULL;
    uint64_t bytes = 0;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_kv_cache_bytes(&bytes, m, s, 1, 8192));
    ck_assert_uint_eq(bytes, 2684354560ULL);
    llmmem_strategy_free(s);
    llmmem_model_free(m);
    m = olmo3(5120, 64, 40, 8, 27648);
    ck_assert_uint_eq(total(m), 32233522176ULL);
    llmmem_model_free(m);
}
END_TEST

/* swiss-ai/Apertus-8B-2509: 8,053,338,176 parameters ("Loaded Apertus model with 8053338176 parameters", r33
 * SOURCES id 27707268028). Config rebuilt from its shapes (r33 families.md §18): h 4096, 32 layers of 32 heads (8
 * KV heads) of 128, a two-matrix MLP of 21504 with XIELUActivation's alpha_p and alpha_n, q/k norms over a head,
 * vocabulary 131072, untied: per layer q, o 2 x 4096^2 + k, v 2 x 4096 x 1024 + q_norm, k_norm 256 + up, down
 * 2 x 4096 x 21504 + 2 + norms 8,192 = 218,112,258; x 32 + 2 x 131072 x 4096 + 4,096 = 8,053,338,176. */
START_TEST(apertus_8b)
{
    llmmem_model *m = from_text(
        "{\"architectures\": [\"ApertusForCausalLM\"], \"model_type\": \"apertus\", \"hidden_size\": 4096, "
        "\"num_hidden_layers\": 32, \"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"intermediate_size\": 21504, "
        "\"vocab_size\": 131072, \"max_position_embeddings\": 65536, \"hidden_act\": \"xielu\", "
        "\"tie_word_embeddings\": false, \"attention_bias\": false, \"dtype\": \"bfloat16\"}");
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_APERTUS);
    ck_assert_uint_eq(total(m), 8053338176ULL);
    llmmem_model_free(m);
}
END_TEST

/* Every family of issue 17 in this file is named in the model_type key's choices. */
START_TEST(type_names)
{
    static const struct {
        llmmem_model_type type;
        const char *name;
    } rows[] = {{LLMMEM_MODEL_OLMO2, "olmo2"}, {LLMMEM_MODEL_OLMOE, "olmoe"},
                {LLMMEM_MODEL_COHERE, "cohere"}, {LLMMEM_MODEL_COHERE2, "cohere2"},
                {LLMMEM_MODEL_GLM4_MOE, "glm4_moe"}, {LLMMEM_MODEL_MINIMAX_M2, "minimax_m2"},
                {LLMMEM_MODEL_EXAONE4, "exaone4"}, {LLMMEM_MODEL_ERNIE4_5, "ernie4_5"},
                {LLMMEM_MODEL_ERNIE4_5_MOE, "ernie4_5_moe"}, {LLMMEM_MODEL_GLM4, "glm4"}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ck_assert_str_eq(llmmem_choice_name(LLMMEM_KEY_MODEL_TYPE, rows[i].type), rows[i].name);
        int64_t v = -1;
        ck_assert_ok(llmmem_choice_from_name(&v, LLMMEM_KEY_MODEL_TYPE, rows[i].name));
        ck_assert_int_eq(v, rows[i].type);
    }
    int64_t v = -1;
    ck_assert_ok(llmmem_choice_from_name(&v, LLMMEM_KEY_QK_NORM_TYPE, "per_layer"));
    ck_assert_int_eq(v, LLMMEM_QK_NORM_PER_LAYER);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("families_attention");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, olmo2_7b);
    tcase_add_test(tc, olmo2_presets);
    tcase_add_test(tc, olmo2_cache);
    tcase_add_test(tc, olmoe_1b_7b);
    tcase_add_test(tc, cohere_aya_expanse_8b);
    tcase_add_test(tc, cohere_qk_norm);
    tcase_add_test(tc, cohere2_command_r7b);
    tcase_add_test(tc, glm4_moe_air);
    tcase_add_test(tc, glm4_moe_glm45);
    tcase_add_test(tc, minimax_m2);
    tcase_add_test(tc, exaone4);
    tcase_add_test(tc, ernie4_5_0_3b);
    tcase_add_test(tc, ernie4_5_moe_21b);
    tcase_add_test(tc, glm4_9b);
    tcase_add_test(tc, nemotron_nas_49b);
    tcase_add_test(tc, olmo3_counts);
    tcase_add_test(tc, apertus_8b);
    tcase_add_test(tc, type_names);
    suite_add_tcase(suite, tc);
    return run_suite(suite);
}
