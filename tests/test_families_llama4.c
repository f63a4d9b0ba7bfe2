/* Llama 4 and Llama 3.2 Vision: the llama4 family (text_config llama4_text, vision_config llama4_vision_model) read
 * from its published config.json and counted against Meta's safetensors totals, its presets, and
 * the KV cache of its chunked-attention layers in the Hugging Face and vLLM layouts; the mllama
 * family (text layers with cross-attention to the image) likewise. Every
 * expected number is worked out by hand in its comment from the config's shapes and the source
 * named there. */
#include <stdio.h>
#include <string.h>

#include "family.h"

static uint64_t group(const llmmem_model *m, llmmem_param_group g)
{
    uint64_t n = 0;
    ck_assert_ok(llmmem_model_parameters(&n, m, g));
    return n;
}

/* The shapes both Llama 4 models share (text_config and vision_config of the configs):
 *   text, per layer: q 5120 x 5120 = 26,214,400, k and v 1024 x 5120 = 5,242,880 each, o 26,214,400:
 *     62,914,560 of attention; input and post-attention RMSNorm 2 x 5120 = 10,240 (Llama4TextL2Norm,
 *     the qk norm, has no weight);
 *   a MoE layer (Llama4TextMoe): E experts of gate_up 5120 x 2 x 8192 and down 8192 x 5120, that is
 *     3 x 41,943,040 = 125,829,120 each; the router 5120 x E; the shared expert (a Llama4TextMLP of
 *     intermediate_size 8192) 125,829,120;
 *   a dense layer (Llama4TextMLP of intermediate_size_mlp 16384): 3 x 5120 x 16384 = 251,658,240;
 *   embed_tokens and the untied lm_head 202048 x 5120 = 1,034,485,760 each; the final norm 5,120;
 *   vision (Llama4VisionModel): patch linear 1408 x 3 x 14 x 14 = 827,904; class_embedding 1,408;
 *     positional_embedding_vlm ((336 / 14)^2 + 1) x 1408 = 577 x 1408 = 812,416; layernorm_pre and
 *     _post with biases 4 x 1408 = 5,632; 34 layers of q, k, v, o with biases 4 x (1408^2 + 1408) =
 *     7,935,488, fc1 1408 x 5632 + 5632 = 7,935,488, fc2 5632 x 1408 + 1408 = 7,931,264, two
 *     LayerNorms 5,632: 23,807,872 x 34 = 809,467,648; the vision adapter fc1 5632 x 4096 =
 *     23,068,672 and fc2 4096 x 4096 = 16,777,216: 850,960,896 in all;
 *   multi_modal_projector.linear_1 4096 x 5120 = 20,971,520. */
#define LLAMA4_EMBED 1034485760ULL
#define LLAMA4_VISION (850960896ULL + 20971520ULL)

/* meta-llama/Llama-4-Scout-17B-16E-Instruct: the Hub's safetensors metadata gives 108,641,793,536
 * parameters, all BF16 (model.safetensors.index.json total_size 217,283,587,072 bytes = 2 x that).
 * 16 experts on every layer (moe_layers 0..47):
 *   MoE layer 16 x 125,829,120 + 16 x 5120 + 125,829,120 = 2,139,176,960; a layer 62,914,560 +
 *   10,240 + 2,139,176,960 = 2,202,101,760, x 48 = 105,700,884,480;
 *   + 2 x 1,034,485,760 + 5,120 = 107,769,861,120 of text; + 871,932,416 of vision and projector
 *   = 108,641,793,536. */
START_TEST(llama4_scout)
{
    llmmem_model *m = load("llama-4-scout-17b-16e-instruct.json");
    ck_assert_uint_eq(total(m), 108641793536ULL);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_VISION), LLAMA4_VISION);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_EMBEDDING), LLAMA4_EMBED);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_LLAMA4);
    ck_assert_str_eq(llmmem_choice_name(LLMMEM_KEY_MODEL_TYPE, get(m, LLMMEM_KEY_MODEL_TYPE)), "llama4");
    ck_assert_int_eq(get(m, LLMMEM_KEY_INTERMEDIATE_SIZE), 16384);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MOE_INTERMEDIATE_SIZE), 8192);
    ck_assert_int_eq(get(m, LLMMEM_KEY_INTERLEAVE_MOE_LAYER_STEP), 1);
    ck_assert_int_eq(get(m, LLMMEM_KEY_ATTENTION_CHUNK_SIZE), 8192);
    ck_assert_int_eq(get(m, LLMMEM_KEY_NO_ROPE_LAYER_INTERVAL), 4); /* no_rope_layers [1, 1, 1, 0] x 12 */
    ck_assert_int_eq(get(m, LLMMEM_KEY_VISION_MODEL_TYPE), 7);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MULTIMODAL_PROJECTOR), 7);
    /* one token: the shared expert and one routed expert of each layer: 108,641,793,536 less
     * 48 x 15 x 125,829,120 = 90,596,966,400 unused experts = 18,044,827,136 */
    uint64_t active = 0;
    ck_assert_ok(llmmem_model_active_parameters(&active, m));
    ck_assert_uint_eq(active, 18044827136ULL);
    llmmem_model_free(m);
    llmmem_model *p = preset("llama-4-scout-17b-16e");
    ck_assert_uint_eq(total(p), 108641793536ULL);
    llmmem_model_free(p);
}
END_TEST

/* meta-llama/Llama-4-Maverick-17B-128E-Instruct: the Hub's safetensors metadata gives
 * 401,583,781,376 parameters, all BF16. interleave_moe_layer_step 2 (moe_layers 1, 3, ..., 47):
 *   24 MoE layers of 128 x 125,829,120 + 128 x 5120 + 125,829,120 = 16,232,611,840:
 *   389,582,684,160; 24 dense layers of 251,658,240: 6,039,797,760; 48 x (62,914,560 + 10,240) =
 *   3,020,390,400 of attention and norms; 2 x 1,034,485,760 + 5,120: 400,711,848,960 of text;
 *   + 871,932,416 = 401,583,781,376. */
START_TEST(llama4_maverick)
{
    llmmem_model *m = load("llama-4-maverick-17b-128e-instruct.json");
    ck_assert_uint_eq(total(m), 401583781376ULL);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_MLP), 6039797760ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_INTERLEAVE_MOE_LAYER_STEP), 2);
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_EXPERTS), 128);
    llmmem_model_free(m);
    llmmem_model *p = preset("llama-4-maverick-17b-128e");
    ck_assert_uint_eq(total(p), 401583781376ULL);
    ck_assert_uint_eq(group(p, LLMMEM_PARAMS_MLP), 6039797760ULL);
    llmmem_model_free(p);
}
END_TEST

/* A Llama 4 text model alone (model_type llama4_text, Llama4ForCausalLM): the text_config of
 * Scout as a text-only fine-tune ships it (the config quoted in vllm-project/vllm#20581). Meta
 * publishes no text-only checkpoint, so no publisher figure: the hand derivation above gives
 * 107,769,861,120 (Scout's text part: 48 x 2,202,101,760 + 2 x 1,034,485,760 + 5,120). */
START_TEST(llama4_text)
{
    llmmem_model *m = load("llama-4-scout-17b-16e-text.json");
    ck_assert_uint_eq(total(m), 107769861120ULL);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_VISION), 0);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_LLAMA4_TEXT);
    ck_assert_int_eq(get(m, LLMMEM_KEY_NO_ROPE_LAYER_INTERVAL), 4);
    llmmem_model_free(m);
}
END_TEST

/* A small llama4 config (the shapes of the transformers test suite's Llama4 tester) to check the
 * reading of moe_layers, no_rope_layers and layer_types, and the fields refused. */
static const char small_head[] =
    "{\"model_type\": \"llama4\", \"torch_dtype\": \"bfloat16\", \"vision_config\": {\"model_type\": "
    "\"llama4_vision_model\", \"hidden_size\": 32, \"intermediate_size\": 64, \"num_hidden_layers\": 1, "
    "\"image_size\": 28, \"patch_size\": 14, \"vision_output_dim\": 32, \"projector_input_dim\": 32, "
    "\"projector_output_dim\": 32}, \"text_config\": {\"model_type\": \"llama4_text\", \"hidden_size\": 64, "
    "\"intermediate_size\": 32, \"intermediate_size_mlp\": 128, \"num_hidden_layers\": 4, "
    "\"num_attention_heads\": 4, \"num_key_value_heads\": 2, \"head_dim\": 16, \"vocab_size\": 256, "
    "\"num_local_experts\": 4, \"num_experts_per_tok\": 1";

static llmmem_status small(llmmem_model **m, const char *tail)
{
    char json[2048];
    const char *chunk = strstr(tail, "attention_chunk_size") ? "" : ", \"attention_chunk_size\": 8";
    snprintf(json, sizeof json, "%s%s%s}}", small_head, chunk, tail);
    return llmmem_model_from_hf_config_text(m, json, strlen(json));
}

/* KV bytes of one sequence in the contiguous layout, bf16. */
static uint64_t contiguous(const llmmem_model *m, uint64_t tokens)
{
    llmmem_strategy *s = NULL;
    uint64_t b = 0;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_KV_CACHE_DTYPE, LLMMEM_KV_CACHE_BF16));
    ck_assert_ok(llmmem_kv_cache_bytes(&b, m, s, 1, tokens));
    llmmem_strategy_free(s);
    return b;
}

/* The small model: 4 layers of 2 KV heads of 16, bf16: 2 x 2 x 16 x 2 = 128 bytes a token and
 * layer; its chunked layers keep at most 8 tokens (transformers cache_utils.py: a chunked_attention
 * layer is a sliding-window layer of attention_chunk_size). 100 tokens:
 *   default no_rope_layer_interval 4: layers 0-2 chunked, 3 global: (3 x 8 + 100) x 128 = 15,872;
 *   no_rope_layers [1, 0, 0, 1] (not periodic: a per-layer map): (2 x 8 + 2 x 100) x 128 = 27,648;
 *   layer_types all chunked_attention: 4 x 8 x 128 = 4,096;
 *   attention_chunk_size null: no chunked layers, 4 x 100 x 128 = 51,200. */
START_TEST(llama4_layers)
{
    llmmem_model *m = NULL;
    ck_assert_ok(small(&m, ""));
    ck_assert_int_eq(get(m, LLMMEM_KEY_NO_ROPE_LAYER_INTERVAL), 4);
    ck_assert_uint_eq(contiguous(m, 100), 15872);
    ck_assert_uint_eq(contiguous(m, 6), 4 * 6 * 128); /* under the chunk every layer keeps every token */
    llmmem_model_free(m);
    ck_assert_ok(small(&m, ", \"no_rope_layers\": [1, 0, 0, 1]"));
    ck_assert_uint_eq(contiguous(m, 100), 27648);
    llmmem_model_free(m);
    ck_assert_ok(small(&m, ", \"no_rope_layers\": []")); /* empty: the interval's default list */
    ck_assert_uint_eq(contiguous(m, 100), 15872);
    llmmem_model_free(m);
    ck_assert_ok(small(&m, ", \"layer_types\": [\"chunked_attention\", \"chunked_attention\", "
                           "\"chunked_attention\", \"chunked_attention\"]"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_NO_ROPE_LAYER_INTERVAL), 0);
    ck_assert_uint_eq(contiguous(m, 100), 4096);
    llmmem_model_free(m);
    ck_assert_ok(small(&m, ", \"attention_chunk_size\": null"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_ATTENTION_CHUNK_SIZE), 0);
    ck_assert_uint_eq(contiguous(m, 100), 51200);
    llmmem_model_free(m);

    /* moe_layers [1, 3]: every second layer, the step 2; its parameters: 2 MoE layers of experts
     * 4 x 3 x 64 x 32 = 24,576, router 4 x 64 = 256 and shared expert 3 x 64 x 32 = 6,144, that is
     * 30,976, and 2 dense layers of 3 x 64 x 128 = 24,576 */
    ck_assert_ok(small(&m, ", \"moe_layers\": [1, 3]"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_INTERLEAVE_MOE_LAYER_STEP), 2);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_MLP), 2 * 24576);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_EXPERTS) + group(m, LLMMEM_PARAMS_ROUTER) +
                          group(m, LLMMEM_PARAMS_SHARED_EXPERTS),
                      2 * 30976);
    llmmem_model_free(m);
    ck_assert_ok(small(&m, ", \"moe_layers\": []")); /* every layer dense */
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_EXPERTS), 0);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_MLP), 4 * 24576);
    llmmem_model_free(m);
    /* what the inventory does not model is refused, naming the field */
    ck_assert_status(small(&m, ", \"moe_layers\": [0, 3]"), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "text_config.moe_layers"));
    /* entry 0 + 1 is the step: 9223372036854775807 + 1, and 2 x (2^62 - 1 + 1) for entry 1, were signed overflows */
    ck_assert_status(small(&m, ", \"moe_layers\": [9223372036854775807]"), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "text_config.moe_layers: MoE layers other than every n-th "
                                                        "(n - 1, 2n - 1, ...) are not modelled (entry 0 is "
                                                        "9223372036854775807)"));
    ck_assert_status(small(&m, ", \"moe_layers\": [4611686018427387903, 9223372036854775807]"),
                     LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "(entry 1 is 9223372036854775807)"));
    ck_assert_status(small(&m, ", \"layer_types\": [\"sliding_attention\", \"full_attention\", "
                               "\"full_attention\", \"full_attention\"]"),
                     LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "text_config.layer_types[0]"));
}
END_TEST

/* ---- the KV cache of chunked attention --------------------------------------------------------- */

/* Llama 4 Scout (preset): 48 layers, 36 chunked ((i + 1) % 4 != 0) and 12 global; 8 KV heads of
 * 128, bf16: 2 x 8 x 128 x 2 = 4,096 bytes a token and layer.
 * Contiguous (transformers cache_utils.py StaticCache: a chunked_attention layer is a
 * StaticSlidingWindowLayer of min(attention_chunk_size, max_cache_len) tokens), one sequence of
 * 32,768 tokens: (12 x 32,768 + 36 x 8,192) x 4,096 = 688,128 x 4,096 = 2,818,572,288 bytes
 * (6,442,450,944 if every layer kept every token); of 4,096 tokens, under the chunk:
 * 48 x 4,096 x 4,096 = 805,306,368. */
START_TEST(llama4_kv_contiguous)
{
    llmmem_model *m = preset("llama-4-scout-17b-16e");
    ck_assert_uint_eq(contiguous(m, 32768), 2818572288ULL);
    ck_assert_uint_eq(contiguous(m, 4096), 805306368ULL);
    llmmem_model_free(m);
}
END_TEST

/* The same in vLLM (kv_cache_dtype auto: the model's bf16), 8 GiB of KV cache, block_size 16,
 * max_num_batched_tokens 2048, max_model_len 32,768. vllm/v1/core/kv_cache_utils.py
 * _get_kv_cache_groups_uniform_page_size: 12 full and 36 chunked layers, 36 >= 1.5 x 12, so
 * group_size 12: one full group and 3 chunked groups, 4 groups of 12 layers. Page 16 x 4,096 =
 * 65,536; a block of a group 12 x 65,536 = 786,432; 8,589,934,592 // 786,432 = 10,922 blocks,
 * 10,922 // 4 x 16 = 43,680 tokens logged. One sequence of 32,768 tokens: the full group
 * 32,768 / 16 = 2,048 blocks (FullAttentionSpec), each chunked group
 * cdiv(min(8,192 + 2,048, 32,768), 16) = 640 (ChunkedLocalAttentionSpec.max_admission_blocks_per_request),
 * 2,048 + 3 x 640 = 3,968 blocks = 3,968 x 786,432 = 3,120,562,176 bytes; concurrency
 * 10,922 / 3,968 = 2.75x. 4,096 tokens: 256 + 3 x 256 = 1,024 blocks.
 * --disable-hybrid-kv-cache-manager (what vllm/config/vllm.py also does for chunked local attention
 * when VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE is 0, vllm/envs.py's default before it
 * became 1; the key's default, the hybrid manager on, is today's): one group of 48 full-attention layers,
 * 131,072 // 48 = 2,730 blocks, 2,048 per request. */
START_TEST(llama4_kv_vllm)
{
    llmmem_model *m = preset("llama-4-scout-17b-16e");
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_serving *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_serving_new(&r));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 8LL << 30));
    /* the figures below follow vLLM's two-line report (kv_cache_utils.py _report_kv_cache_config:
     * "GPU KV cache size" = num_blocks // groups x block_size), the releases before the one-line one */
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_ENGINE_VERSION, LLMMEM_ENGINE_VERSION_VLLM_0_21));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MAX_NUM_BATCHED_TOKENS, 2048));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MAX_NUM_SEQS, 256));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MAX_MODEL_LEN, 32768));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_GROUPS), 4);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_LAYERS_PER_GROUP), 12);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_PAGE_BYTES), 65536);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BLOCK_BYTES), 786432);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_NUM_BLOCKS), 10922);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_TOKENS), 43680);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BLOCKS_PER_REQUEST), 3968);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BLOCKS_PER_REQUEST) *
                          llmmem_serving_get(r, LLMMEM_SERVING_BLOCK_BYTES),
                      3120562176ULL);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_WASTE_BYTES), 0);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_VLLM_CONCURRENCY_X100), 275);
    uint64_t blocks = 0;
    ck_assert_ok(llmmem_serving_request_blocks(&blocks, NULL, r, 4096));
    ck_assert_uint_eq(blocks, 1024);
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_DISABLE_HYBRID_KV_CACHE_MANAGER, 1));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_GROUPS), 1);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_LAYERS_PER_GROUP), 48);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_NUM_BLOCKS), 2730);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BLOCKS_PER_REQUEST), 2048);
    llmmem_serving_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
}
END_TEST

/* The per-layer map through the API: chunked_attention needs attention_chunk_size. */
START_TEST(llama4_layer_types_api)
{
    llmmem_model *m = NULL;
    ck_assert_ok(small(&m, ""));
    ck_assert_ok(llmmem_model_set_layer_types(m, "chunked_attention,full_attention,full_attention,full_attention"));
    ck_assert_uint_eq(contiguous(m, 100), (8 + 3 * 100) * 128);
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_ATTENTION_CHUNK_SIZE, 0));
    uint64_t n = 0;
    ck_assert_status(llmmem_model_total_parameters(&n, m), LLMMEM_ERR_INCOMPLETE);
    ck_assert_str_eq(llmmem_last_message(),
                     "layer_types has chunked_attention layers but attention_chunk_size is not set");
    llmmem_model_free(m);
    /* one window a model: a sliding window beside chunked attention is refused, not guessed */
    m = preset("llama-4-scout-17b-16e");
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_SLIDING_WINDOW, 4096));
    ck_assert_status(llmmem_model_total_parameters(&n, m), LLMMEM_ERR_UNSUPPORTED);
    llmmem_model_free(m);
    /* vision_model_type and multimodal_projector value 6 names no tower: refused */
    ck_assert_ok(llmmem_model_new(&m));
    ck_assert_status(llmmem_model_set_int(m, LLMMEM_KEY_VISION_MODEL_TYPE, 6), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_VISION_MODEL_TYPE, 7));
    ck_assert_str_eq(llmmem_choice_name(LLMMEM_KEY_MULTIMODAL_PROJECTOR, 8), "mllama");
    llmmem_model_free(m);
}
END_TEST

/* ---- Llama 3.2 Vision (mllama) ------------------------------------------------------------------ */

/* meta-llama/Llama-3.2-11B-Vision-Instruct: the Hub's safetensors metadata gives 10,670,220,835
 * parameters, all BF16. From the config (text_config 40 layers of 4096, 32 heads of 128, 8 KV heads,
 * MLP 14336, vocab 128256, cross_attention_layers 3, 8, ..., 38; vision_config 32 + 8 layers of
 * 1280, MLP 5120, 560-pixel tiles of 14-pixel patches, 4 tiles, 8 aspect ratios, output 7680) and
 * transformers models/mllama/modeling_mllama.py:
 *   embed_tokens (128256 + 8) x 4096 = 525,369,344; lm_head 128256 x 4096 = 525,336,576;
 *   a self-attention layer: q, o 4096^2 and k, v 1024 x 4096: 41,943,040; MLP 3 x 4096 x 14336 =
 *     176,160,768; two RMSNorms 8,192: 218,112,000, x 32 = 6,979,584,000;
 *   a cross-attention layer: the same and q_norm, k_norm 2 x 128 and two gates: 218,112,258, x 8 =
 *     1,744,898,064; the final norm 4,096: 9,775,192,080 of text;
 *   vision: patch conv 1280 x 3 x 14 x 14 = 752,640; class_embedding 1,280; positions
 *     ((560 / 14)^2 + 1 = 1601) x 1280 = 2,049,280 and a gate; tile positions 9 x (4 x 1601 x 1280) =
 *     73,774,080; pre- and post-tile embeddings 2 x (9 x 4 x 1280 + 1 gate) = 92,162; layernorm_pre
 *     and _post 5,120; a layer: q, k, v, o 4 x 1280^2 = 6,553,600, fc1 1280 x 5120 + 5120, fc2
 *     5120 x 1280 + 1280, two LayerNorms 5,120: 19,672,320, x 32 = 629,514,240; 8 global layers
 *     with two gates each 157,378,576: 863,567,379 in all;
 *   multi_modal_projector 7680 x 4096 + 4096 = 31,461,376;
 *   9,775,192,080 + 863,567,379 + 31,461,376 = 10,670,220,835. */
START_TEST(mllama_11b)
{
    llmmem_model *m = load("llama-3.2-11b-vision-instruct.json");
    ck_assert_uint_eq(total(m), 10670220835ULL);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_EMBEDDING), 525369344ULL);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_VISION), 863567379ULL + 31461376ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_MLLAMA);
    ck_assert_int_eq(get(m, LLMMEM_KEY_CROSS_ATTENTION_FIRST), 3);
    ck_assert_int_eq(get(m, LLMMEM_KEY_CROSS_ATTENTION_INTERVAL), 5);
    ck_assert_int_eq(get(m, LLMMEM_KEY_VISION_MAX_ASPECT_RATIO_ID), 8);
    llmmem_model_free(m);
    llmmem_model *p = preset("llama-3.2-11b-vision");
    ck_assert_uint_eq(total(p), 10670220835ULL);
    llmmem_model_free(p);
}
END_TEST

/* The cross-attention layers' cache holds the image's keys and values, not the text's
 * (MllamaTextCrossAttention caches the k/v projections of the image's 4 x 1601 = 6,404 tokens,
 * repeat_kv'd to the 32 query heads). Llama 3.2 11B Vision, bf16, one sequence of 4,096 text tokens:
 *   32 self-attention layers x 4,096 tokens x (2 x 8 x 128 x 2 = 4,096 bytes) = 536,870,912;
 *   8 cross-attention layers x 6,404 tokens x (2 x 32 x 128 x 2 = 16,384 bytes) = 839,385,088;
 *   1,376,256,000 in all; two sequences twice that. vLLM's paged cache, the generate loop and the
 *   activations of cross-attention layers are refused, not guessed. */
START_TEST(mllama_kv)
{
    llmmem_model *m = preset("llama-3.2-11b-vision");
    ck_assert_uint_eq(contiguous(m, 4096), 1376256000ULL);
    llmmem_strategy *s = NULL;
    uint64_t b = 0;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_KV_CACHE_DTYPE, LLMMEM_KV_CACHE_BF16));
    ck_assert_ok(llmmem_kv_cache_bytes(&b, m, s, 2, 4096));
    ck_assert_uint_eq(b, 2 * 1376256000ULL);
    llmmem_hardware *hw = NULL;
    llmmem_serving *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_serving_new(&r));
    ck_assert_status(llmmem_serving_estimate(r, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "cross-attention layers (8, mllama's)"));
    llmmem_report *rep = NULL;
    ck_assert_ok(llmmem_report_new(&rep));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MODE, LLMMEM_MODE_TRAINING));
    ck_assert_status(llmmem_estimate(rep, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    llmmem_report_free(rep);
    llmmem_serving_free(r);
    llmmem_hardware_free(hw);
    llmmem_strategy_free(s);
    llmmem_model_free(m);
}
END_TEST

/* cross_attention_layers that are not every n-th layer from the first: a per-layer map (a small
 * mllama of the transformers test suite's shapes: 4 layers of 32, 4 heads of 8, 2 KV heads, MLP 37,
 * vocab 99, a 1-layer vision tower of 16 on 28-pixel images of 14-pixel patches, 2 tiles, 1 ratio). */
START_TEST(mllama_cross_layers)
{
    static const char head[] =
        "{\"model_type\": \"mllama\", \"vision_config\": {\"model_type\": \"mllama_vision_model\", "
        "\"hidden_size\": 16, \"intermediate_size\": 32, \"num_hidden_layers\": 1, \"num_global_layers\": 1, "
        "\"image_size\": 28, \"patch_size\": 14, \"max_num_tiles\": 2, \"supported_aspect_ratios\": [[1, 1]], "
        "\"vision_output_dim\": 32}, \"text_config\": {\"model_type\": \"mllama_text_model\", \"hidden_size\": 32, "
        "\"intermediate_size\": 37, \"num_hidden_layers\": 4, \"num_attention_heads\": 4, "
        "\"num_key_value_heads\": 2, \"vocab_size\": 99, \"cross_attention_layers\": ";
    char json[1024];
    llmmem_model *m = NULL;
    /* layers 0 and 3: every third from 0 up to the last layer; 2 self layers of 2 x 2 x 8 x 2 = 64 bytes
     * a token and 2 cross layers of 2 x 4 x 8 x 2 = 128 bytes for each of 2 x (2^2 + 1) = 10 image
     * tokens; 10 text tokens: 2 x 10 x 64 + 2 x 10 x 128 = 3,840 */
    snprintf(json, sizeof json, "%s[0, 3]}}", head);
    ck_assert_ok(llmmem_model_from_hf_config_text(&m, json, strlen(json)));
    ck_assert_int_eq(get(m, LLMMEM_KEY_CROSS_ATTENTION_FIRST), 0);
    ck_assert_int_eq(get(m, LLMMEM_KEY_CROSS_ATTENTION_INTERVAL), 3);
    ck_assert_uint_eq(contiguous(m, 10), 3840);
    llmmem_model_free(m);
    /* layers 0, 1 and 3: no step, a per-layer map; 10 x 64 + 3 x 10 x 128 = 4,480 */
    snprintf(json, sizeof json, "%s[0, 1, 3]}}", head);
    ck_assert_ok(llmmem_model_from_hf_config_text(&m, json, strlen(json)));
    ck_assert_int_eq(get(m, LLMMEM_KEY_CROSS_ATTENTION_INTERVAL), 0);
    ck_assert_uint_eq(contiguous(m, 10), 4480);
    llmmem_model_free(m);
    snprintf(json, sizeof json, "%s[1, 4]}}", head);
    ck_assert_status(llmmem_model_from_hf_config_text(&m, json, strlen(json)), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "text_config.cross_attention_layers"));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("families_llama4");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, llama4_scout);
    tcase_add_test(tc, llama4_maverick);
    tcase_add_test(tc, llama4_text);
    tcase_add_test(tc, llama4_layers);
    tcase_add_test(tc, llama4_kv_contiguous);
    tcase_add_test(tc, llama4_kv_vllm);
    tcase_add_test(tc, llama4_layer_types_api);
    tcase_add_test(tc, mllama_11b);
    tcase_add_test(tc, mllama_kv);
    tcase_add_test(tc, mllama_cross_layers);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(suite());
}
