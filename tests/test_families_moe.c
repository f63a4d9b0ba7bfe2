/* Mixture-of-experts families of issue 33 (attention layers, routed experts): MiniMax-M2.7's fp8 checkpoint,
 * GLM-4.7-Flash and GLM-5, DeepSeek-V4, MiMo-V2-Flash, Hunyuan (dense and MoE) and Step-3.5-Flash. Each model is
 * read from its published config.json where a verbatim copy was found (tests/data/configs), else from a config
 * rebuilt here from a record of the published fields (each test says which), and counted to the parameter against
 * a published figure, else against a count derived by hand in the comment; every figure is a publisher's or a
 * third party's record of one, never this library's output. The ids are the stored-corpus records of
 * /work/research/r33/SOURCES.md. */
#include <stdio.h>
#include <string.h>

#include "family.h"
#include "gguf_writer.h"

/* ---- MiniMax-M2.7: the fp8 config -------------------------------------------------------------- */

/* MiniMaxAI/MiniMax-M2.7 (tests/data/configs/minimax-m2.7.json: its config.json as a model-info report
 * quotes it, r33 SOURCES id 62693775865): MiniMax-M2's shapes, so the Hub's safetensors.total
 * 228,689,764,864 (id 71142266638; tests/test_families_attention.c derives it). Its quantization_config names
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

/* ---- GLM-4.7-Flash (glm4_moe_lite) and GLM-5 (glm_moe_dsa) ----------------------------------------- */

/* zai-org/GLM-4.7-Flash: llama.cpp's n_params of its GGUF, 29,943,393,920 (r33 SOURCES id 60005726306; the GGUF
 * leaves out the MTP layer). No verbatim config.json was found: Glm4MoeLiteConfig's defaults are the model's
 * sizes (r33 families.md §5), written out here, with mlp_layer_types as transformers now writes it. By hand
 * (DeepSeek-V3's MLA and MoE, transformers modeling_glm4_moe_lite.py), h 2048, 47 layers, 20 heads:
 *   MLA: q_a_proj 768 x 2048, q_a_layernorm 768, q_b_proj 20 x 256 x 768, kv_a_proj_with_mqa 576 x 2048,
 *     kv_a_layernorm 512, kv_b_proj 20 x 448 x 512, o_proj 2048 x 5120: 1,572,864 + 768 + 3,932,160 +
 *     1,179,648 + 512 + 4,587,520 + 10,485,760 = 21,759,232; two norms 4,096
 *   layer 0 dense MLP 3 x 2048 x 10240 = 62,914,560; 46 MoE layers: router 64 x 2048 + 64, experts
 *     64 x 3 x 2048 x 1536, shared 3 x 2048 x 1536: 613,548,096
 *   47 x 21,763,328 + 62,914,560 + 46 x 613,548,096 + embedding and head 2 x 154880 x 2048 + 2,048 =
 *   29,943,393,920. */
START_TEST(glm4_7_flash)
{
    llmmem_model *m = from_text(
        "{\"architectures\": [\"Glm4MoeLiteForCausalLM\"], \"model_type\": \"glm4_moe_lite\", \"vocab_size\": 154880, "
        "\"hidden_size\": 2048, \"intermediate_size\": 10240, \"moe_intermediate_size\": 1536, \"num_hidden_layers\": 47, "
        "\"num_attention_heads\": 20, \"num_key_value_heads\": 20, \"n_shared_experts\": 1, \"n_routed_experts\": 64, "
        "\"routed_scaling_factor\": 1.8, \"kv_lora_rank\": 512, \"q_lora_rank\": 768, \"qk_rope_head_dim\": 64, "
        "\"v_head_dim\": 256, \"qk_nope_head_dim\": 192, \"n_group\": 1, \"topk_group\": 1, \"num_experts_per_tok\": 4, "
        "\"norm_topk_prob\": true, \"max_position_embeddings\": 202752, \"rms_norm_eps\": 1e-05, "
        "\"tie_word_embeddings\": false, \"rope_interleave\": true, \"num_nextn_predict_layers\": 1, "
        "\"mlp_layer_types\": [\"dense\"" ", \"sparse\", \"sparse\", \"sparse\", \"sparse\", \"sparse\", \"sparse\", "
        "\"sparse\", \"sparse\", \"sparse\", \"sparse\", \"sparse\", \"sparse\", \"sparse\", \"sparse\", \"sparse\", "
        "\"sparse\", \"sparse\", \"sparse\", \"sparse\", \"sparse\", \"sparse\", \"sparse\", \"sparse\", \"sparse\", "
        "\"sparse\", \"sparse\", \"sparse\", \"sparse\", \"sparse\", \"sparse\", \"sparse\", \"sparse\", \"sparse\", "
        "\"sparse\", \"sparse\", \"sparse\", \"sparse\", \"sparse\", \"sparse\", \"sparse\", \"sparse\", \"sparse\", "
        "\"sparse\", \"sparse\", \"sparse\", \"sparse\"], \"dtype\": \"bfloat16\"}");
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_GLM4_MOE_LITE);
    ck_assert_int_eq(get(m, LLMMEM_KEY_FIRST_K_DENSE_REPLACE), 1);
    ck_assert_uint_eq(total(m), 29943393920ULL);
    llmmem_model_free(m);
}
END_TEST

/* zai-org/GLM-5: a transformers reload counts 743,911,199,232 parameters and its tensor audit 1,487,822,475,264
 * payload bytes, both without the MTP layer (NVIDIA-NeMo/Megatron-Bridge examples/model_verification_cards/
 * glm5/card.yaml, r33 SOURCES [MB]). GlmMoeDsaConfig's defaults are GLM-5's sizes (no verbatim config.json was
 * found). By hand: the MLA layers of GLM-4.7-Flash's form at h 6144, 64 heads, q_lora 2048 (165,022,208 a
 * layer), the GlmMoeDsaIndexer's wq_b 32 x 128 x 2048, wk 128 x 6144, k_norm weight and bias 256, weights_proj
 * 32 x 6144 (9,371,904), two norms: 174,406,400 x 78; 3 dense MLPs 3 x 6144 x 12288; 75 MoE layers of
 * 256 experts and one shared of 3 x 6144 x 2048, router 256 x 6144, and the 256 e_score_correction_bias, a
 * float32 buffer transformers' parameters() leaves out; embedding and head 2 x 154880 x 6144; final norm:
 * 743,911,199,232 + 75 x 256 = 743,911,218,432 tensors elements, and in bytes 2 x 743,911,199,232 +
 * 4 x 19,200 = 1,487,822,475,264. */
START_TEST(glm5)
{
    llmmem_model *m = from_text(
        "{\"architectures\": [\"GlmMoeDsaForCausalLM\"], \"model_type\": \"glm_moe_dsa\", \"vocab_size\": 154880, "
        "\"hidden_size\": 6144, \"intermediate_size\": 12288, \"moe_intermediate_size\": 2048, \"num_hidden_layers\": 78, "
        "\"num_attention_heads\": 64, \"num_key_value_heads\": 64, \"n_shared_experts\": 1, \"n_routed_experts\": 256, "
        "\"routed_scaling_factor\": 2.5, \"kv_lora_rank\": 512, \"q_lora_rank\": 2048, \"qk_rope_head_dim\": 64, "
        "\"v_head_dim\": 256, \"qk_nope_head_dim\": 192, \"n_group\": 1, \"topk_group\": 1, \"num_experts_per_tok\": 8, "
        "\"norm_topk_prob\": true, \"max_position_embeddings\": 202752, \"rms_norm_eps\": 1e-05, "
        "\"tie_word_embeddings\": false, \"first_k_dense_replace\": 3, \"index_topk\": 2048, \"index_head_dim\": 128, "
        "\"index_n_heads\": 32, \"num_nextn_predict_layers\": 1, \"dtype\": \"bfloat16\"}");
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_GLM_MOE_DSA);
    ck_assert_uint_eq(total(m), 743911199232ULL + 75ULL * 256);
    ck_assert_uint_eq(inference_weights(m), 1487822475264ULL);
    llmmem_model_free(m);
}
END_TEST

/* ---- DeepSeek-V4 (deepseek_v4) ------------------------------------------------------------------------ */

/* deepseek-ai/DeepSeek-V4-Flash: llama.cpp's n_params of its GGUF, 284,334,567,511 (r33 SOURCES ids 63190062407,
 * 58601258553, 61985915578; without the MTP block). No verbatim config.json was found: this one has
 * DeepseekV4Config's defaults (V4-Flash's) in the legacy keys a published config uses (r33 configs/FIELDS.md,
 * excerpt id 67089802400): compress_ratios 0, 0 then 4 and 128 by turns (antirez/ds4 ds4.c
 * ds4_layer_compress_ratio), num_hash_layers 3. By hand from the tensors ds4.c weights_validate_layout checks
 * (h 4096, 64 heads of 512, q_lora 1024, 8 output groups of rank 1024, hc 4: a mixing width 2 x 4 + 16 = 24):
 *   every layer: hyper-connections 2 x (4096 x 4 x 24 + 3 + 24) = 786,486; attn_norm, ffn_norm 8,192;
 *     q_a 4,194,304 + 1,024 + q_b 33,554,432; kv 2,097,152 + 512; sinks 64; o_a 8 x 1024 x 4096 =
 *     33,554,432, o_b 4096 x 8192 = 33,554,432; router 256 x 4096; experts 256 x 3 x 4096 x 2048 =
 *     6,442,450,944 and the shared one 25,165,824
 *   compressed sparse layers (21): compressor ape 4 x 1024, kv and gate 2 x 1024 x 4096, norm 512:
 *     8,393,216; indexer q_b 64 x 128 x 1024, proj 64 x 4096, its compressor 4 x 256 + 2 x 256 x 4096 + 128:
 *     10,749,056; heavily compressed layers (20): compressor 128 x 512 + 2 x 512 x 4096 + 512 = 4,260,352
 *   exp_probs_b 256 on the 40 routed layers; tid2eid 129280 x 6 int32 entries on the 3 hash layers
 *   embedding and head 2 x 129280 x 4096; output hyper-connection 4096 x 4 x 4 + 4 + 1; final norm:
 *   284,334,567,511 (the r33 scripts/dsv4.py sum, which the count under test reproduces). */
START_TEST(deepseek_v4_flash_count)
{
    llmmem_model *m = deepseek_v4_flash("");
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_DEEPSEEK_V4);
    ck_assert_uint_eq(total(m), 284334567511ULL);
    /* its MTP block and its training are not modelled: refused by name, never a wrong number (its contiguous cache
     * is: deepseek_v4_flash_cache; SGLang's pools: test_sglang.c test_deepseek_v4_pools) */
    uint64_t n = 0;
    ck_assert_status(llmmem_model_checkpoint_parameters(&n, m), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "deepseek_v4"));
    llmmem_strategy *s = NULL;
    llmmem_model_free(m);
    /* the instruct checkpoints' FP4 experts beside FP8 weights: counted, their bytes in that format refused */
    m = deepseek_v4_flash(", \"expert_dtype\": \"fp4\", \"quantization_config\": {\"quant_method\": \"fp8\", "
                          "\"fmt\": \"e4m3\", \"scale_fmt\": \"ue8m0\", \"weight_block_size\": [128, 128]}");
    ck_assert_uint_eq(total(m), 284334567511ULL);
    llmmem_hardware *hw = NULL;
    llmmem_report *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_report_new(&r));
    ck_assert_status(llmmem_estimate(r, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "FP4 experts"));
    llmmem_report_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
}
END_TEST

/* DeepSeek-V4-Flash's contiguous cache as transformers builds it (modeling_deepseek_v4.py @ 01976081,
 * DeepseekV4Model.forward: DynamicCache(config=), a cache layer per layer_types entry), by hand from the classes'
 * tensors for one sequence after T tokens (one KV head; d = head_dim 512, i = index_head_dim 128, W =
 * sliding_window 128, bf16: 2 bytes an element):
 *   2 sliding layers, transformers cache_utils.py DynamicSlidingWindowLayer: keys and values apart, each the last
 *     W - 1 tokens: 2 x min(T, 127) x d
 *   20 heavily compressed layers (ratio 128), DeepseekV4HCACache: the window once (values = keys) min(T, 127) x d;
 *     compressed_kv["compressor"] floor(T / 128) x d; buffer_kv and buffer_gate (T mod 128) x d each
 *     (DeepseekV4HCACompressor kv_proj, gate_proj: hidden -> d)
 *   21 compressed sparse layers (ratio 4), DeepseekV4CSACache: the window min(T, 127) x d; compressed_kv of the
 *     compressor and of the indexer floor(T / 4) x (d + i); buffers (T mod 4) x (2d + 2i) each (DeepseekV4CSACompressor
 *     and DeepseekV4Indexer project to 2 x their width); overlap_kv and overlap_gate 4 x (d + i) each once a window
 *     closed (update_overlap_state: chunk[:, -1, :, :width])
 * T = 4096: sliding 2 x 127 x 512 = 130,048; HCA 65,024 + 32 x 512 = 81,408; CSA 65,024 + 1,024 x 640 + 2 x 4 x 640
 *   = 725,504: 2 x 130,048 + 20 x 81,408 + 21 x 725,504 = 17,123,840 elements, 34,247,680 bytes
 * T = 4100 (4 past a multiple of 128): HCA 65,024 + 16,384 + 2 x 4 x 512 = 85,504; CSA 65,024 + 1,025 x 640 + 5,120
 *   = 726,144: 260,096 + 1,710,080 + 15,249,024 = 17,219,200 elements, 34,438,400 bytes a sequence
 * T = 4102: HCA 65,024 + 16,384 + 2 x 6 x 512 = 87,552; CSA 65,024 + 656,000 + 2 x 2 x 1,280 + 5,120 = 731,264:
 *   260,096 + 1,751,040 + 15,356,544 = 17,367,680 elements, 34,735,360 bytes
 * T = 100 (inside the window, no HCA entry yet): sliding 2 x 100 x 512 = 102,400; HCA 51,200 + 2 x 100 x 512 =
 *   153,600; CSA 51,200 + 25 x 640 + 5,120 = 72,320: 204,800 + 3,072,000 + 1,518,720 = 4,795,520 elements,
 *   9,591,040 bytes */
START_TEST(deepseek_v4_flash_cache)
{
    llmmem_model *m = deepseek_v4_flash("");
    llmmem_strategy *s = NULL;
    uint64_t n = 0;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_kv_cache_bytes(&n, m, s, 1, 4096));
    ck_assert_uint_eq(n, 34247680ULL);
    ck_assert_ok(llmmem_kv_cache_bytes(&n, m, s, 2, 4100));
    ck_assert_uint_eq(n, 2 * 34438400ULL);
    ck_assert_ok(llmmem_kv_cache_bytes(&n, m, s, 1, 4102));
    ck_assert_uint_eq(n, 34735360ULL);
    ck_assert_ok(llmmem_kv_cache_bytes(&n, m, s, 1, 100));
    ck_assert_uint_eq(n, 9591040ULL);
    /* the inference estimate (framework megatron: the contiguous cache of sequence_length tokens) carries it */
    llmmem_hardware *hw = NULL;
    llmmem_report *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h200"));
    ck_assert_ok(llmmem_report_new(&r));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_SEQUENCE_LENGTH, 4100));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MICRO_BATCH_SIZE, 2));
    ck_assert_ok(llmmem_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_report_bytes(r, LLMMEM_COMPONENT_KV_CACHE), 2 * 34438400ULL);
    /* a quantized cache, a pipeline rank's share and the generate loop are not modelled: refused by name */
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_PIPELINE_PARALLEL, 2));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_PIPELINE_FIRST_STAGE_LAYERS, 21));
    ck_assert_status(llmmem_estimate(r, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "deepseek_v4"));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_PIPELINE_FIRST_STAGE_LAYERS, 0));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_PIPELINE_PARALLEL, 1));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MAX_NEW_TOKENS, 16));
    ck_assert_status(llmmem_estimate(r, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "generate loop of deepseek_v4"));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_KV_CACHE_DTYPE, LLMMEM_KV_CACHE_FP8));
    ck_assert_status(llmmem_kv_cache_bytes(&n, m, s, 1, 4096), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "deepseek_v4"));
    /* vLLM serving keeps refusing it by name */
    llmmem_serving *v = NULL;
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_KV_CACHE_DTYPE, LLMMEM_KV_CACHE_AUTO));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MAX_NEW_TOKENS, 0));
    ck_assert_ok(llmmem_serving_new(&v));
    ck_assert_status(llmmem_serving_estimate(v, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "deepseek_v4"));
    llmmem_serving_free(v);
    llmmem_report_free(r);
    llmmem_hardware_free(hw);
    llmmem_strategy_free(s);
    llmmem_model_free(m);
}
END_TEST

/* vLLM serving of DeepSeek-V4 (research/dsv4v/notes.md): each layer's spec is read (the sliding window on all 43
 * layers; compressed entries on the ratio-4 layers, 2, 4, ..., 42: 21, and on the ratio-128 ones, 3, ..., 41: 20), but
 * the block count is a layer-tuple planner's that differs between vLLM's versions (nvidia/kv_cache_planner.py pads
 * the compressor-state pages, a later kv_cache_utils.py does not) and the profile run's prefill workspace is not
 * modelled: refused with the missing piece named, whatever the settings of a real run (fp8 cache, blocks of 256,
 * one H200 or TP8); main's message named neither vLLM nor the planner. */
START_TEST(deepseek_v4_vllm_refused)
{
    llmmem_model *m = deepseek_v4_flash("");
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_serving *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h200"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_serving_new(&r));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_KV_CACHE_DTYPE, LLMMEM_KV_CACHE_FP8));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_BLOCK_SIZE, 256));
    for (int tp = 1; tp <= 8; tp *= 8) {
        ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_TENSOR_PARALLEL, tp));
        ck_assert_status(llmmem_serving_estimate(r, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
        const char *msg = llmmem_last_message();
        ck_assert_ptr_nonnull(strstr(msg, "vLLM serving of deepseek_v4 is not modelled"));
        ck_assert_ptr_nonnull(strstr(msg, "its 43 layers (SlidingWindowMLASpec, blocks of 64)"));
        ck_assert_ptr_nonnull(strstr(msg, "its 21 ratio-4 and 20 ratio-128 layers"));
        ck_assert_ptr_nonnull(strstr(msg, "block count differs between vLLM versions"));
        ck_assert_ptr_nonnull(strstr(msg, "engine sglang"));
    }
    ck_assert_int_eq(llmmem_serving_valid(r), 0);
    llmmem_serving_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
}
END_TEST

/* ---- MiMo-V2-Flash (mimo_v2_flash) ---------------------------------------------------------------------- */

/* XiaomiMiMo/MiMo-V2-Flash: its card gives "309B total / 15B active" (rounded, r33 SOURCES [MiMo]); no exact figure
 * was found, so this test checks the count derived by hand from the published config fields (a test's record of the
 * Hub config, id 70922684183; no verbatim config.json was found) and vLLM mimo_v2_flash.py's tensors, and that it
 * rounds to the card's 309B. h 4096, 48 layers, full attention at layer 0 and every sixth ((i + 1) % 6 == 0: 9), 39
 * sliding, 64 query heads of 192, values of 128, 4 KV heads on full layers and 8 on sliding ones, a sink per head
 * on the sliding layers, no q/k norms (use_qk_norm false):
 *   full attention q 12288 x 4096 + k 768 x 4096 + v 512 x 4096 + o 4096 x 8192 = 89,128,960
 *   sliding attention q + k 1536 x 4096 + v 1024 x 4096 + o + sinks 64 = 94,371,904
 *   layer 0's dense MLP 3 x 4096 x 16384 = 201,326,592; 47 MoE layers of 256 experts of 2048 (3 x 4096 x 2048
 *   each), router 256 x 4096 and 256 e_score_correction_bias: 6,443,499,776; two norms 8,192 a layer
 *   9 x 89,128,960 + 39 x 94,371,904 + 201,326,592 + 47 x 6,443,499,776 + 48 x 8,192 + embedding and head
 *   2 x 152576 x 4096 + 4,096 = 308,778,780,864 (r33 scripts/misc.py mimo_v2_flash). */
START_TEST(mimo_v2_flash)
{
    char json[4096], pattern[256] = "", freq[256] = "";
    size_t a = 0, f = 0;
    for (int i = 0; i < 48; i++) {
        a += (size_t)snprintf(pattern + a, sizeof pattern - a, "%s%d", i ? ", " : "", i == 0 || (i + 1) % 6 == 0 ? 0 : 1);
        f += (size_t)snprintf(freq + f, sizeof freq - f, "%s%d", i ? ", " : "", i == 0 ? 0 : 1);
    }
    snprintf(json, sizeof json,
             "{\"architectures\": [\"MiMoV2FlashForCausalLM\"], \"model_type\": \"mimo_v2_flash\", \"vocab_size\": 152576, "
             "\"hidden_size\": 4096, \"intermediate_size\": 16384, \"moe_intermediate_size\": 2048, "
             "\"num_hidden_layers\": 48, \"num_attention_heads\": 64, \"num_key_value_heads\": 4, \"head_dim\": 192, "
             "\"v_head_dim\": 128, \"swa_num_attention_heads\": 64, \"swa_num_key_value_heads\": 8, \"swa_head_dim\": 192, "
             "\"swa_v_head_dim\": 128, \"hybrid_layer_pattern\": [%s], \"moe_layer_freq\": [%s], \"sliding_window\": 128, "
             "\"add_swa_attention_sink_bias\": true, \"add_full_attention_sink_bias\": false, \"use_qk_norm\": false, "
             "\"partial_rotary_factor\": 0.334, \"attention_value_scale\": 0.707, \"n_routed_experts\": 256, "
             "\"num_experts_per_tok\": 8, \"n_shared_experts\": null, \"topk_method\": \"noaux_tc\", "
             "\"scoring_func\": \"sigmoid\", \"max_position_embeddings\": 262144, \"num_nextn_predict_layers\": 3, "
             "\"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\"}",
             pattern, freq);
    llmmem_model *m = from_text(json);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_MIMO_V2_FLASH);
    ck_assert_uint_eq(total(m), 308778780864ULL);
    ck_assert_uint_eq((total(m) + 500000000ULL) / 1000000000ULL, 309); /* the card's 309B */
    /* its 3 MTP layers (sliding attention and a dense MLP each) are not modelled: refused, not left out */
    uint64_t n = 0;
    ck_assert_status(llmmem_model_checkpoint_parameters(&n, m), LLMMEM_ERR_UNSUPPORTED);
    /* the contiguous cache, bf16, 1024 tokens: 9 full layers x 4 KV heads x (192 + 128) x 2 B = 2,560 a token,
     * 39 sliding layers x 8 x 320 x 2 = 5,120 a token over their 128: 9 x 1024 x 2,560 + 39 x 128 x 5,120 */
    llmmem_strategy *s = NULL;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_kv_cache_bytes(&n, m, s, 1, 1024));
    ck_assert_uint_eq(n, 9ULL * 1024 * 2560 + 39ULL * 128 * 5120);
    /* vLLM's paged cache, by hand from vLLM's source: layers/attention/attention.py Attention.get_kv_cache_spec gives
     * a sliding layer a SlidingWindowSpec and a full one a FullAttentionSpec, both with head_size_v, and both count
     * block x KV heads x (head_size + head_size_v) x 2 B a page (v1/kv_cache_interface.py real_page_size_bytes); a
     * budget of 20 GiB (kv_cache_memory_bytes), max_model_len 262144, max_num_batched_tokens 8192 (H200), block 16:
     *   tensor_parallel 8: one KV head a rank on either type (8 / 8, max(1, 4 / 8)): 320 x 2 = 640 B a token, page
     *     10,240 for both; 9 full and 39 sliding layers: groups of 9 (39 is not under 1.5 x 9), 1 + 5 = 6 groups;
     *     21,474,836,480 // 10,240 // 9 = 233,016 blocks; a request cdiv(262144, 16) = 16,384 + 5 x (cdiv(min(127 +
     *     8192, 262144), 16) + 1 = 521) = 18,989 blocks: 12.27x, int(12.27110... x 262144) = 3,216,796 tokens;
     *     bytes a token 48 x 640 = 30,720
     *   tensor_parallel 1: sliding 8 x 320 x 2 = 5,120 B a token (page 81,920), full 4 x 320 x 2 = 2,560 (block 16 x 2
     *     = 32, unify_kv_cache_spec_page_size); 21,474,836,480 // 81,920 // 9 = 29,127 blocks; a request 262144 / 32 =
     *     8,192 + 5 x 521 = 10,797: 2.70x, int(2.69769... x 262144) = 707,184 tokens.
     * The profile run (tensor_parallel 8, max_num_seqs 64, 8192 tokens, bf16): a MoE layer's residual and normed input
     * (2 x 4096) and fused_moe's caches, 8 x (3 x 2048 / 8 + 4096): 47,104 elements, x 2 x 8192 = 771,751,936 B, over
     * the sampler's 8192 x 4096 x 2 + 64 x 152576 x 6 = 125,698,048. */
    ck_assert_ok(llmmem_kv_bytes_per_token(&n, m, s));
    ck_assert_uint_eq(n, 39 * 5120 + 9 * 2560);
    llmmem_hardware *hw = NULL;
    llmmem_serving *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h200"));
    ck_assert_ok(llmmem_serving_new(&r));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 20LL << 30));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_TENSOR_PARALLEL, 8));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_PAGE_BYTES), 10240);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_GROUPS), 6);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_NUM_BLOCKS), 233016);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BLOCKS_PER_REQUEST), 18989);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_VLLM_CONCURRENCY_X100), 1227);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_TOKENS), 3216796);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BYTES_PER_TOKEN), 30720);
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_TENSOR_PARALLEL, 1));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_PAGE_BYTES), 81920);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_NUM_BLOCKS), 29127);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BLOCKS_PER_REQUEST), 10797);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_VLLM_CONCURRENCY_X100), 270);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_TOKENS), 707184);
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_TENSOR_PARALLEL, 8));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MAX_NUM_SEQS, 64));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_ACTIVATION_PEAK), 771751936ULL);
    llmmem_serving_free(r);
    llmmem_hardware_free(hw);
    llmmem_strategy_free(s);
    llmmem_model_free(m);
}
END_TEST

/* ---- Hunyuan (hunyuan_v1_moe, hunyuan_v1_dense) -------------------------------------------------------- */

/* "[v, v, ..., v]": n entries of v. */
static const char *repeat(char *buf, size_t size, int n, int v)
{
    size_t at = (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < n && at < size; i++)
        at += (size_t)snprintf(buf + at, size - at, "%s%d", i ? ", " : "", v);
    if (at < size)
        snprintf(buf + at, size - at, "]");
    return buf;
}

/* tencent/Hunyuan-A13B-Instruct's config.json as a Swift test fixture records it (id 55421597645, architectures
 * HunYuanMoEV1ForCausalLM; model_type here is transformers' hunyuan_v1_moe); with `field` given, its value is
 * `value` instead (a top-level field whose value holds no ', "'). */
static void a13b_config(char *json, size_t size, const char *field, const char *value)
{
    char intermediate[256], topk[256], shared[256], base[2048];
    snprintf(base, sizeof base,
             "{\"architectures\": [\"HunYuanMoEV1ForCausalLM\"], \"attention_bias\": false, \"attention_head_dim\": 128, "
             "\"head_dim\": 128, \"hidden_size\": 4096, \"intermediate_size\": 3072, \"model_type\": \"hunyuan_v1_moe\", "
             "\"moe_intermediate_size\": %s, \"moe_topk\": %s, \"num_attention_heads\": 32, \"num_experts\": 64, "
             "\"num_hidden_layers\": 32, \"num_key_value_heads\": 8, \"num_shared_expert\": %s, \"rms_norm_eps\": 1e-05, "
             "\"rope_scaling\": {\"alpha\": 1000.0, \"factor\": 1.0, \"type\": \"dynamic\"}, \"rope_theta\": 10000.0, "
             "\"tie_word_embeddings\": true, \"use_cla\": false, \"cla_share_factor\": 2, \"use_mixed_mlp_moe\": true, "
             "\"use_qk_norm\": true, \"moe_layer_num_skipped\": 0, \"vocab_size\": 128167, "
             "\"torch_dtype\": \"bfloat16\"}",
             repeat(intermediate, sizeof intermediate, 32, 3072), repeat(topk, sizeof topk, 32, 8),
             repeat(shared, sizeof shared, 32, 1));
    char key[64];
    snprintf(key, sizeof key, "\"%s\": ", field ? field : "");
    const char *at = field ? strstr(base, key) : NULL;
    if (!at) {
        snprintf(json, size, "%s", base);
        return;
    }
    at += strlen(key);
    const char *end = strstr(at, ", \"");
    snprintf(json, size, "%.*s%s%s", (int)(at - base), base, value, end);
}

static llmmem_status a13b_status(const char *field, const char *value)
{
    char json[2048];
    llmmem_model *m = NULL;
    a13b_config(json, sizeof json, field, value);
    llmmem_status st = llmmem_model_from_hf_config_text(&m, json, strlen(json));
    llmmem_model_free(m);
    return st;
}

/* Hunyuan-A13B: 80,393,183,232 parameters, "the safetensors headers exactly" by a third party's parameter
 * ledger of the shipped config (id 69713764538). Derived here from transformers modeling_hunyuan_v1_moe.py
 * (HunYuanMoEV1Attention with query_layernorm and key_layernorm over a head, HunYuanMoE with a shared_mlp
 * under use_mixed_mlp_moe, 64 HunYuanMoEV1MLP experts of intermediate_size, HunYuanTopKGate.wg [64, 4096]):
 *   attention q 4096 x 4096 + k, v 1024 x 4096 each + o 4096 x 4096 = 41,943,040, q/k norms 2 x 128;
 *   two norms 2 x 4096; experts 64 x 3 x 4096 x 3072 = 2,415,919,104, shared MLP 37,748,736, gate 262,144:
 *   2,495,881,472 a layer x 32 = 79,868,207,104; tied embedding 128167 x 4096 = 524,972,032; final norm 4096:
 *   80,393,183,232.
 * Weights in bf16 but the gate, a Linear of dtype torch.float32: 2 x 80,393,183,232 + 2 x 32 x 262,144
 * = 160,803,143,680 bytes. The contiguous cache, bf16: 32 layers x 8 KV heads x 128 x 2 (K, V) x 2 B = 131,072
 * bytes a token. */
START_TEST(hunyuan_a13b)
{
    char json[2048];
    a13b_config(json, sizeof json, NULL, NULL);
    llmmem_model *m = from_text(json);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_HUNYUAN_V1_MOE);
    ck_assert_uint_eq(total(m), 80393183232ULL);
    uint64_t n = 0;
    ck_assert_ok(llmmem_model_parameters(&n, m, LLMMEM_PARAMS_SHARED_EXPERTS));
    ck_assert_uint_eq(n, 32ULL * 3 * 4096 * 3072);
    ck_assert_ok(llmmem_model_parameters(&n, m, LLMMEM_PARAMS_ROUTER));
    ck_assert_uint_eq(n, 32ULL * 64 * 4096);
    ck_assert_uint_eq(inference_weights(m), 160803143680ULL);
    llmmem_strategy *s = NULL;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_kv_cache_bytes(&n, m, s, 1, 1024));
    ck_assert_uint_eq(n, 1024ULL * 131072);
    /* vLLM's paged cache (hunyuan_v1.py: plain attention layers), bf16: the same 131,072 bytes a token */
    ck_assert_ok(llmmem_kv_bytes_per_token(&n, m, s));
    ck_assert_uint_eq(n, 131072);
    llmmem_strategy_free(s);
    llmmem_model_free(m);
}
END_TEST

/* Without use_mixed_mlp_moe there is no shared_mlp (HunYuanMoE builds it only then): 32 x 37,748,736 fewer. */
START_TEST(hunyuan_moe_without_shared)
{
    char json[2048];
    a13b_config(json, sizeof json, "use_mixed_mlp_moe", "false");
    llmmem_model *m = from_text(json);
    ck_assert_uint_eq(total(m), 80393183232ULL - 32ULL * 37748736);
    llmmem_model_free(m);
}
END_TEST

/* What transformers' HunYuan classes do not build is refused by the key's name, never counted wrong. */
START_TEST(hunyuan_refusals)
{
    ck_assert_int_eq(a13b_status("use_cla", "true"), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "use_cla"));
    ck_assert_int_eq(a13b_status("num_experts", "[64, 32]"), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "num_experts"));
    ck_assert_int_eq(a13b_status("moe_intermediate_size", "1536"), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "moe_intermediate_size"));
    ck_assert_int_eq(a13b_status("num_shared_expert", "2"), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "num_shared_expert"));
    ck_assert_int_eq(a13b_status("moe_topk", "\"8\""), LLMMEM_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "moe_topk"));
}
END_TEST

/* HunYuanMoEV1Config's class defaults: num_experts 1, moe_topk 1, use_mixed_mlp_moe false, num_key_value_heads
 * the attention heads, head_dim hidden / heads, untied. A config of hidden 64, 2 layers, 4 heads, intermediate 96,
 * vocab 100 and nothing else: attention 4 x 64 x 64 = 16,384 + q/k norms 2 x 16, norms 128, one expert 3 x 64 x 96
 * = 18,432 and its gate 64: 35,040 a layer x 2 = 70,080; embedding and head 2 x 100 x 64 = 12,800; final norm 64:
 * 82,944. */
START_TEST(hunyuan_moe_defaults)
{
    llmmem_model *m = from_text("{\"model_type\": \"hunyuan_v1_moe\", \"hidden_size\": 64, \"num_hidden_layers\": 2, "
                                "\"num_attention_heads\": 4, \"intermediate_size\": 96, \"vocab_size\": 100}");
    ck_assert_uint_eq(total(m), 82944);
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_EXPERTS), 1);
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_EXPERTS_PER_TOK), 1);
    llmmem_model_free(m);
}
END_TEST

/* Hunyuan dense (hunyuan_v1_dense, HunYuanDenseV1ForCausalLM): the 7B shapes a Swift fixture records from
 * tencent's config (id 55421597645: hidden 4096, intermediate 14336, 32 layers, 32 heads, 8 KV heads of 128,
 * vocab 129024, tied); no exact published total was found, so the count is derived by hand from
 * modeling_hunyuan_v1_dense.py (LlamaMLP, HunYuanDenseV1Attention with query_layernorm and key_layernorm):
 *   attention 41,943,040 + q/k norms 256 + two norms 8,192 + MLP 3 x 4096 x 14336 = 176,160,768: 218,112,256 a
 *   layer x 32 = 6,979,592,192; tied embedding 129024 x 4096 = 528,482,304; final norm 4096: 7,508,078,592. */
START_TEST(hunyuan_dense_7b)
{
    llmmem_model *m = from_text(
        "{\"architectures\": [\"HunYuanDenseV1ForCausalLM\"], \"model_type\": \"hunyuan_v1_dense\", "
        "\"attention_bias\": false, \"attention_head_dim\": 128, \"head_dim\": 128, \"hidden_act\": \"silu\", "
        "\"hidden_size\": 4096, \"intermediate_size\": 14336, \"max_position_embeddings\": 32768, \"mlp_bias\": false, "
        "\"num_attention_heads\": 32, \"num_experts\": 1, \"num_hidden_layers\": 32, \"num_key_value_heads\": 8, "
        "\"num_shared_expert\": 1, \"rms_norm_eps\": 1e-05, \"rope_scaling\": {\"alpha\": 1000.0, \"factor\": 1.0, "
        "\"type\": \"dynamic\"}, \"rope_theta\": 10000.0, \"tie_word_embeddings\": true, \"use_cla\": false, "
        "\"use_mixed_mlp_moe\": false, \"use_qk_norm\": true, \"vocab_size\": 129024, \"torch_dtype\": \"bfloat16\"}");
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_HUNYUAN_V1_DENSE);
    ck_assert_uint_eq(total(m), 7508078592ULL);
    llmmem_model_free(m);
}
END_TEST

/* llama.cpp's hunyuan-moe GGUF (convert_hf_to_gguf.py HunYuanMoEModel: expert_shared_feed_forward_length from
 * intermediate_size, expert_shared_count from num_shared_expert, the experts stacked in ffn_*_exps; the tied head
 * left out): one block of hidden 64, 4 heads and 2 KV heads of 16, 4 experts (2 used) and the shared MLP of 96,
 * F32, vocabulary 16. Its tensors, by hand: token_embd 16 x 64 = 1,024; attn_norm 64; attn_q 4,096, attn_k and
 * attn_v 2,048 each, attn_output 4,096; attn_q_norm and attn_k_norm 16 each; ffn_norm 64; ffn_gate_inp 4 x 64 = 256;
 * ffn_{gate,up,down}_exps 3 x 4 x 64 x 96 = 73,728; ffn_{gate,up,down}_shexp 3 x 64 x 96 = 18,432; output_norm 64:
 * 105,952. */
START_TEST(hunyuan_moe_gguf)
{
    buf b;
    start(&b, 3);
    kv_str(&b, "general.architecture", "hunyuan-moe");
    kv_u32(&b, "hunyuan-moe.block_count", 1);
    kv_u32(&b, "hunyuan-moe.embedding_length", 64);
    kv_u32(&b, "hunyuan-moe.feed_forward_length", 96);
    kv_u32(&b, "hunyuan-moe.attention.head_count", 4);
    kv_u32(&b, "hunyuan-moe.attention.head_count_kv", 2);
    kv_u32(&b, "hunyuan-moe.expert_count", 4);
    kv_u32(&b, "hunyuan-moe.expert_used_count", 2);
    kv_u32(&b, "hunyuan-moe.expert_feed_forward_length", 96);
    kv_u32(&b, "hunyuan-moe.expert_shared_feed_forward_length", 96);
    kv_u32(&b, "hunyuan-moe.expert_shared_count", 1);
    kv_tokens(&b, 16);
    tensor(&b, "token_embd.weight", F32, 16 * 64 * 4, DIMS(64, 16));
    tensor(&b, "blk.0.attn_norm.weight", F32, 64 * 4, DIMS(64));
    tensor(&b, "blk.0.attn_q.weight", F32, 64 * 64 * 4, DIMS(64, 64));
    tensor(&b, "blk.0.attn_k.weight", F32, 64 * 32 * 4, DIMS(64, 32));
    tensor(&b, "blk.0.attn_v.weight", F32, 64 * 32 * 4, DIMS(64, 32));
    tensor(&b, "blk.0.attn_output.weight", F32, 64 * 64 * 4, DIMS(64, 64));
    tensor(&b, "blk.0.attn_q_norm.weight", F32, 16 * 4, DIMS(16));
    tensor(&b, "blk.0.attn_k_norm.weight", F32, 16 * 4, DIMS(16));
    tensor(&b, "blk.0.ffn_norm.weight", F32, 64 * 4, DIMS(64));
    tensor(&b, "blk.0.ffn_gate_inp.weight", F32, 4 * 64 * 4, DIMS(64, 4));
    tensor(&b, "blk.0.ffn_gate_exps.weight", F32, 4 * 64 * 96 * 4, DIMS(64, 96, 4));
    tensor(&b, "blk.0.ffn_up_exps.weight", F32, 4 * 64 * 96 * 4, DIMS(64, 96, 4));
    tensor(&b, "blk.0.ffn_down_exps.weight", F32, 4 * 64 * 96 * 4, DIMS(96, 64, 4));
    tensor(&b, "blk.0.ffn_gate_shexp.weight", F32, 64 * 96 * 4, DIMS(64, 96));
    tensor(&b, "blk.0.ffn_up_shexp.weight", F32, 64 * 96 * 4, DIMS(64, 96));
    tensor(&b, "blk.0.ffn_down_shexp.weight", F32, 64 * 96 * 4, DIMS(96, 64));
    tensor(&b, "output_norm.weight", F32, 64 * 4, DIMS(64));
    done(&b);
    llmmem_checkpoint *ck = NULL;
    llmmem_model *m = NULL;
    ck_assert_ok(llmmem_checkpoint_from_gguf_bytes(&ck, b.p, b.len));
    ck_assert_ok(llmmem_checkpoint_model(&m, ck));
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_HUNYUAN_V1_MOE);
    ck_assert_uint_eq(total(m), 105952);
    ck_assert_uint_eq(llmmem_checkpoint_role_elements(ck, LLMMEM_TENSOR_PARAMETER), 105952);
    ck_assert_ok(llmmem_checkpoint_verify(ck, m));
    llmmem_model_free(m);
    llmmem_checkpoint_free(ck);
    free(b.p);
}
END_TEST

/* llama.cpp's hunyuan-dense GGUF (convert_hf_to_gguf.py HunYuanModel: Llama's keys and tensors, attn_q_norm and
 * attn_k_norm, the tied head left out): one block of hidden 64, 4 heads and 2 KV heads of 16, feed-forward 96, F32,
 * vocabulary 16: token_embd 1,024; attn_norm 64; attn_q 4,096, attn_k and attn_v 2,048 each, attn_output 4,096;
 * attn_q_norm and attn_k_norm 16 each; ffn_norm 64; ffn_gate, ffn_up, ffn_down 3 x 64 x 96 = 18,432; output_norm 64:
 * 31,968. */
START_TEST(hunyuan_dense_gguf)
{
    buf b;
    start(&b, 3);
    kv_str(&b, "general.architecture", "hunyuan-dense");
    kv_u32(&b, "hunyuan-dense.block_count", 1);
    kv_u32(&b, "hunyuan-dense.embedding_length", 64);
    kv_u32(&b, "hunyuan-dense.feed_forward_length", 96);
    kv_u32(&b, "hunyuan-dense.attention.head_count", 4);
    kv_u32(&b, "hunyuan-dense.attention.head_count_kv", 2);
    kv_tokens(&b, 16);
    tensor(&b, "token_embd.weight", F32, 16 * 64 * 4, DIMS(64, 16));
    tensor(&b, "blk.0.attn_norm.weight", F32, 64 * 4, DIMS(64));
    tensor(&b, "blk.0.attn_q.weight", F32, 64 * 64 * 4, DIMS(64, 64));
    tensor(&b, "blk.0.attn_k.weight", F32, 64 * 32 * 4, DIMS(64, 32));
    tensor(&b, "blk.0.attn_v.weight", F32, 64 * 32 * 4, DIMS(64, 32));
    tensor(&b, "blk.0.attn_output.weight", F32, 64 * 64 * 4, DIMS(64, 64));
    tensor(&b, "blk.0.attn_q_norm.weight", F32, 16 * 4, DIMS(16));
    tensor(&b, "blk.0.attn_k_norm.weight", F32, 16 * 4, DIMS(16));
    tensor(&b, "blk.0.ffn_norm.weight", F32, 64 * 4, DIMS(64));
    tensor(&b, "blk.0.ffn_gate.weight", F32, 64 * 96 * 4, DIMS(64, 96));
    tensor(&b, "blk.0.ffn_up.weight", F32, 64 * 96 * 4, DIMS(64, 96));
    tensor(&b, "blk.0.ffn_down.weight", F32, 64 * 96 * 4, DIMS(96, 64));
    tensor(&b, "output_norm.weight", F32, 64 * 4, DIMS(64));
    done(&b);
    llmmem_checkpoint *ck = NULL;
    llmmem_model *m = NULL;
    ck_assert_ok(llmmem_checkpoint_from_gguf_bytes(&ck, b.p, b.len));
    ck_assert_ok(llmmem_checkpoint_model(&m, ck));
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_HUNYUAN_V1_DENSE);
    ck_assert_uint_eq(total(m), 31968);
    ck_assert_uint_eq(llmmem_checkpoint_role_elements(ck, LLMMEM_TENSOR_PARAMETER), 31968);
    ck_assert_ok(llmmem_checkpoint_verify(ck, m));
    llmmem_model_free(m);
    llmmem_checkpoint_free(ck);
    free(b.p);
}
END_TEST

/* ---- Step-3.5-Flash (step3p5) -------------------------------------------------------------------------- */

/* stepfun-ai/Step-3.5-Flash's config.json rebuilt from Step3p5Config's fields (Megatron-Bridge
 * src/megatron/bridge/models/stepfun/configuration_step35.py, which mirrors it: H 4096, intermediate 11264, 64 heads,
 * 8 num_attention_groups, 45 layers, 288 experts of 1280, top 8, share_expert_dim 1280, head_dim 128, 3 MTP layers,
 * moe_layers_enum 3..44), attention_other_setting's 96 heads and 8 groups (step35_bridge.py provider_bridge), the
 * vocabulary of 128,896 the checkpoint's three MTP heads hold (3,167,748,096 bytes = 3 x 128,896 x 4096 x 2: the
 * Megatron-Bridge card examples/model_verification_cards/step35-flash/card.yaml), sliding_window 512 (the bridge's
 * default) and layer_types full on every fourth layer, the rest and the MTP layers sliding (the tiny step3p5
 * fixtures of the corpus, id 56601044620). With `field` given, its value is `value` instead. */
static void step35_config(char *json, size_t size, const char *field, const char *value)
{
    char types[2048], moe[512], base[4096];
    size_t at = 0;
    for (int i = 0; i < 48; i++)
        at += (size_t)snprintf(types + at, sizeof types - at, "%s\"%s\"", i ? ", " : "[",
                               i < 45 && i % 4 == 0 ? "full_attention" : "sliding_attention");
    snprintf(types + at, sizeof types - at, "]");
    at = 0;
    for (int i = 3; i < 45; i++)
        at += (size_t)snprintf(moe + at, sizeof moe - at, "%s%d", i > 3 ? "," : "", i);
    snprintf(base, sizeof base,
             "{\"architectures\": [\"Step3p5ForCausalLM\"], \"model_type\": \"step3p5\", \"hidden_size\": 4096, "
             "\"intermediate_size\": 11264, \"num_attention_heads\": 64, \"num_attention_groups\": 8, "
             "\"num_hidden_layers\": 45, \"vocab_size\": 128896, \"moe_intermediate_size\": 1280, "
             "\"moe_num_experts\": 288, \"moe_top_k\": 8, \"max_position_embeddings\": 262144, \"share_expert_dim\": 1280, "
             "\"head_dim\": 128, \"layer_types\": %s, \"attention_other_setting\": {\"attention_type\": "
             "\"sliding_attention\", \"num_attention_heads\": 96, \"num_attention_groups\": 8, \"head_dim\": 128}, "
             "\"use_head_wise_attn_gate\": true, \"sliding_window\": 512, \"num_nextn_predict_layers\": 3, "
             "\"use_moe_router_bias\": true, \"need_fp32_gate\": true, \"moe_layers_enum\": \"%s\", "
             "\"att_impl_type\": \"GQA\", \"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\"}",
             types, moe);
    char key[64];
    snprintf(key, sizeof key, "\"%s\": ", field ? field : "");
    const char *f = field ? strstr(base, key) : NULL;
    if (!f) {
        snprintf(json, size, "%s", base);
        return;
    }
    f += strlen(key);
    const char *end = f[0] == '{' ? strchr(f, '}') + 1 : f[0] == '[' ? strchr(f, ']') + 1 : strstr(f, ", \"");
    snprintf(json, size, "%.*s%s%s", (int)(f - base), base, value, end);
}

static llmmem_status step35_status(const char *field, const char *value)
{
    char json[4096];
    llmmem_model *m = NULL;
    step35_config(json, sizeof json, field, value);
    llmmem_status st = llmmem_model_from_hf_config_text(&m, json, strlen(json));
    llmmem_model_free(m);
    return st;
}

/* Step-3.5-Flash's weights, by hand from vLLM model_executor/models/step3p5.py (H 4096, d 128, 8 KV heads):
 * attention of h heads: q and o 2 x 4096 x 128h, k and v 2 x 4096 x 1024, g_proj 4096 x h, q_norm and k_norm 2 x 128:
 *   full (64 heads) 75,759,872; sliding (96) 109,445,376; 12 full + 33 sliding layers: 4,520,804,352;
 * layers 0-2 a dense MLP 3 x 4096 x 11264 = 138,412,032 each: 415,236,096;
 * layers 3-44: 288 experts x 3 x 4096 x 1280 = 4,529,848,320, share_expert 3 x 4096 x 1280 = 15,728,640, the fp32 gate
 *   288 x 4096 and router_bias 288: 42 x 4,546,756,896 = 190,963,789,632;
 * norms 2 x 4096 a layer and the final one: 372,736 + 11,520 q/k norms = 384,256; embed_tokens and lm_head 2 x 128,896
 * x 4096 = 1,055,916,032. Total 196,956,130,368.
 * The checkpoint adds 3 MTP layers, each a sliding layer with a dense MLP (109,445,376 + 138,412,032 + 8,192 norms),
 * enorm, hnorm, shared_head.norm (12,288), eh_proj 8192 x 4096 (33,554,432) and shared_head.output 128,896 x 4096
 * (527,958,016): 3 x 809,390,336 = 2,428,171,008, so 199,384,301,376. The card's export wrote 398,768,626,944 bytes
 * for the 804 source tensors: 2 x 199,384,301,376 + 2 x 12,096 for the 42 x 288 router_bias stored in fp32 (every
 * other tensor bf16; the tensor count 804 = 3 x 12 dense + 42 x 17 MoE + 3 x 17 MTP + 3 checks the layout).
 * Megatron's 199,997,706,240 (the card's CPU import) is the same count with the MTP heads shared with lm_head
 * (- 3 x 527,958,016), g_proj expanded to a gate per channel (attention_output_gate: + 12 x 4096 x (8192 - 64) +
 * 36 x 4096 x (12288 - 96)) and router_bias a buffer (- 12,096). */
START_TEST(step35_flash)
{
    char json[4096];
    step35_config(json, sizeof json, NULL, NULL);
    llmmem_model *m = from_text(json);
    ck_assert_uint_eq(total(m), 196956130368ULL);
    uint64_t n = 0;
    ck_assert_ok(llmmem_model_parameters(&n, m, LLMMEM_PARAMS_ATTENTION));
    ck_assert_uint_eq(n, 4520804352ULL);
    ck_assert_ok(llmmem_model_checkpoint_parameters(&n, m));
    ck_assert_uint_eq(n, 199384301376ULL);
    ck_assert_uint_eq(2 * n + 2 * 12096, 398768626944ULL);
    ck_assert_uint_eq(n - 3 * 527958016ULL + 12 * 4096ULL * (8192 - 64) + 36 * 4096ULL * (12288 - 96) - 12096,
                      199997706240ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_ATTENTION_HEADS), 96);
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_GLOBAL_ATTENTION_HEADS), 64);
    /* the contiguous cache of one 4096-token sequence: a token is 2 x 8 x 128 x 2 bytes on each layer, the 12 full
     * layers keep 4096 tokens, the 33 sliding ones the window's 512: 4096 x (12 x 4096 + 33 x 512) */
    llmmem_strategy *s = NULL;
    uint64_t bytes = 0;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_kv_cache_bytes(&bytes, m, s, 1, 4096));
    ck_assert_uint_eq(bytes, 4096ULL * (12 * 4096 + 33 * 512));
    /* vLLM with 20 GiB of cache: one page of 16 tokens is 16 x 4096 = 65,536 bytes on every layer; the 12 full and 33
     * sliding layers make groups of 12 (_get_kv_cache_groups_uniform_page_size: 1 full, ceil(33 / 12) = 3 sliding),
     * a block is 12 pages: 21,474,836,480 / 786,432 = 27,306 blocks */
    llmmem_hardware *hw = NULL;
    llmmem_serving *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h200"));
    ck_assert_ok(llmmem_serving_new(&r));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 20LL << 30));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_PAGE_BYTES), 65536);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_GROUPS), 4);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_LAYERS_PER_GROUP), 12);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_NUM_BLOCKS), 27306);
    /* SGLang's pool and llama.cpp's buffers are not modelled for two query-head counts: refused by name */
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_ENGINE, LLMMEM_ENGINE_SGLANG));
    ck_assert_status(llmmem_serving_estimate(r, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "(64 and 96: step3p5's"));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_ENGINE, LLMMEM_ENGINE_AUTO));
    /* the generate loop and training activations of layers of two head counts are not modelled: refused by name */
    llmmem_report *rep = NULL;
    ck_assert_ok(llmmem_report_new(&rep));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MAX_NEW_TOKENS, 16));
    ck_assert_status(llmmem_estimate(rep, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "generate loop"));
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "step3p5"));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MAX_NEW_TOKENS, 0));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MODE, LLMMEM_MODE_TRAINING));
    ck_assert_status(llmmem_estimate(rep, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "step3p5"));
    llmmem_report_free(rep);
    llmmem_serving_free(r);
    llmmem_hardware_free(hw);
    llmmem_strategy_free(s);
    llmmem_model_free(m);
}
END_TEST

/* What the reader does not model is refused by name; moe_layers_enum as a list reads as the string does. */
START_TEST(step35_refusals)
{
    ck_assert_status(step35_status("attention_other_setting", "{\"attention_type\": \"sliding_attention\", "
                                   "\"num_attention_heads\": 96, \"num_attention_groups\": 4, \"head_dim\": 128}"),
                     LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "num_attention_groups 4"));
    ck_assert_status(step35_status("layer_types", "[\"full_attention\"]"), LLMMEM_ERR_INCOMPLETE);
    ck_assert_status(step35_status("use_moe_router_bias", "false"), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_status(step35_status("att_impl_type", "\"MFA\""), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_status(step35_status("moe_layers_enum", "\"3,x\""), LLMMEM_ERR_PARSE);
    char types[2048];
    size_t at = 0;
    for (int i = 0; i < 48; i++)
        at += (size_t)snprintf(types + at, sizeof types - at, "%s\"%s\"", i ? ", " : "[",
                               i % 4 == 0 || i == 45 ? "full_attention" : "sliding_attention");
    snprintf(types + at, sizeof types - at, "]");
    ck_assert_status(step35_status("layer_types", types), LLMMEM_ERR_UNSUPPORTED); /* MTP layer 45 full */
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "layer_types[45]"));
    char moe[512], json[4096];
    at = 0;
    for (int i = 3; i < 45; i++)
        at += (size_t)snprintf(moe + at, sizeof moe - at, "%s%d", i > 3 ? ", " : "[", i);
    snprintf(moe + at, sizeof moe - at, "]");
    step35_config(json, sizeof json, "moe_layers_enum", moe);
    llmmem_model *m = from_text(json);
    ck_assert_uint_eq(total(m), 196956130368ULL);
    llmmem_model_free(m);
    /* sliding layers of the full layers' 64 heads: 33 x (109,445,376 - 75,759,872) fewer; the gate alone still
     * refuses training */
    step35_config(json, sizeof json, "attention_other_setting", "{\"num_attention_heads\": 64}");
    m = from_text(json);
    ck_assert_uint_eq(total(m), 196956130368ULL - 33 * 33685504ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_GLOBAL_ATTENTION_HEADS), 0);
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_report *rep = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h200"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_report_new(&rep));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MODE, LLMMEM_MODE_TRAINING));
    ck_assert_status(llmmem_estimate(rep, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "head-wise attention gate"));
    llmmem_report_free(rep);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
}
END_TEST

/* ---- Laguna (laguna) ------------------------------------------------------------------------------- */

/* poolside/Laguna-XS.2: the Hub's safetensors.total 33,442,617,088 (a stored Hub API response for
 * poolside/Laguna-XS.2, find_string/read_file id 55278443117; a survey gives the same for Laguna-XS-2.1, id
 * 69468411049). No verbatim config.json was found: tests/data/configs/laguna-xs.2.json is rebuilt from the
 * published fields a Laguna XS adapter test pins (id 69002119672: 40 layers of 2048, full at i % 4 == 0 with 48
 * query heads, sliding ones of 64, 8 KV heads of 128, window 512, 256 experts of 512 and a shared one of 512,
 * top 8, dense layer 0 of 8192, per-head gating, vocabulary 100352, untied). By hand from vllm
 * model_executor/models/laguna.py (@9c1e4029):
 *   full layer: q, o 2 x 48 x 128 x 2048 = 25,165,824; k, v 2 x 8 x 128 x 2048 = 4,194,304; q_norm, k_norm 256;
 *     g_proj (per-head) 48 x 2048 = 98,304; two norms 4,096: 29,462,784 x 10 = 294,627,840
 *   sliding layer: q, o 2 x 64 x 128 x 2048 = 33,554,432; k, v 4,194,304; 256; g_proj 131,072; 4,096:
 *     37,884,160 x 30 = 1,136,524,800
 *   layer 0's MLP 3 x 2048 x 8192 = 50,331,648; layers 1-39: experts 256 x 3 x 2048 x 512 = 805,306,368, gate
 *     256 x 2048 = 524,288, e_score_correction_bias 256, shared expert 3 x 2048 x 512 = 3,145,728: 808,976,640 x 39
 *     = 31,550,088,960
 *   embedding and lm_head 2 x 100352 x 2048 = 411,041,792; final norm 2,048. Total 33,442,617,088 = the Hub's.
 * Weights as vLLM holds them: bf16, the 39 x 256 correction biases float32 (LagunaMoE): 2 x 33,442,617,088 +
 * 2 x 9,984 = 66,885,254,144. The contiguous cache of one 4096-token sequence: 2 x 8 x 128 x 2 bytes a token a
 * layer, the 10 full layers 4096 tokens, the 30 sliding ones the window's 512: 40,960 x 4096 + 122,880 x 512 =
 * 230,686,720. */
START_TEST(laguna_xs2)
{
    llmmem_model *m = load("laguna-xs.2.json");
    ck_assert_uint_eq(total(m), 33442617088ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_LAGUNA);
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_ATTENTION_HEADS), 64);
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_GLOBAL_ATTENTION_HEADS), 48);
    ck_assert_int_eq(get(m, LLMMEM_KEY_HEAD_WISE_ATTN_GATE), 1);
    ck_assert_uint_eq(inference_weights(m), 2 * 33442617088ULL + 2 * 9984ULL);
    llmmem_strategy *s = NULL;
    uint64_t bytes = 0;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_kv_cache_bytes(&bytes, m, s, 1, 4096));
    ck_assert_uint_eq(bytes, 230686720ULL);
    /* vLLM on one H200 (memory_bytes 151,397,597,184) with max_num_seqs 16 (8192 batched tokens, the large-device
     * default), by hand from vllm laguna.py: the profile run's working set a token, in bf16 elements, is the residual
     * and normed input (2 x 2048) beside the largest block of a layer:
     *   attention (64 query heads of the sliding layers, 8 KV heads of 128): qkv 80 x 128, the output 64 x 128, the
     *     softplus gate (64) and the gated product 64 x 128: 26,688 (the gate's two float32 temporaries, 512 bytes,
     *     are freed before the product);
     *   layer 0's LagunaMLP, gate_proj and up_proj apart: gate, up, silu(gate) and their product 4 x 8192 = 32,768;
     *   a MoE layer: fused_moe's caches 8 x (3 x 512 + 2048) = 28,672, the shared expert's output 2048 and the
     *     float32 router logits 256 x 4 bytes (512 elements): 31,232 (the shared LagunaMLP alone 4 x 512);
     * so 4096 + 32,768 = 36,864 elements, 36,864 x 8192 x 2 = 603,979,776 bytes (the sampler's 8192 x 2048 x 2 +
     * 16 x 100,352 x (2 + 4) = 43,188,224 is below). The CUDA-graph floor: 7 capture sizes up to min(16 x 2, 512) =
     * 32 and 5 full ones up to 16: the forward over 32 tokens, 36,864 x 32 x 2 = 2,359,296, and 10 MiB more =
     * 12,845,056. The cache: ceil(151,397,597,184 x 0.92) = 139,285,789,410 less the weights, the peak, the 512 MiB
     * outside torch and the graphs = 71,246,839,522 bytes; 10 full layers and 30 sliding ones make groups of 10
     * (1 full, 3 sliding), a block 10 pages of 16 x 4,096 bytes: 108,714 blocks. */
    llmmem_hardware *hw = NULL;
    llmmem_serving *r = NULL;
    llmmem_report *rep = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h200"));
    ck_assert_ok(llmmem_serving_new(&r));
    ck_assert_ok(llmmem_report_new(&rep));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MAX_NUM_SEQS, 16));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_WEIGHTS), 2 * 33442617088ULL + 2 * 9984ULL);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_ACTIVATION_PEAK), 603979776ULL);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_CUDA_GRAPH), 12845056ULL);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_KV_CACHE_BYTES), 71246839522ULL);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_GROUPS), 4);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_NUM_BLOCKS), 108714);
    /* two ranks: 32 query heads, 4 KV heads; attention 40 x 128 + 32 x 128 + 32 + 32 x 128 = 13,344, layer 0's MLP 4
     * x 4096 = 16,384, a MoE layer 8 x (3 x 256 + 2048) + 2048 + 512 = 25,088: (4096 + 25,088) x 8192 x 2 */
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_TENSOR_PARALLEL, 2));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_ACTIVATION_PEAK), 478150656ULL);
    /* with max_num_seqs 1024 the dummy sampler's 8192 x 2048 x 2 + 1024 x 100,352 x 6 = 650,117,120 is the peak */
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_TENSOR_PARALLEL, 1));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MAX_NUM_SEQS, 0));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_ACTIVATION_PEAK), 650117120ULL);
    /* laguna.py asserts total_num_heads % tp_size on every layer: the full layers' 48 heads over 32 ranks */
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_TENSOR_PARALLEL, 32));
    ck_assert_status(llmmem_serving_estimate(r, m, hw, s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "num_global_attention_heads (48)"));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_TENSOR_PARALLEL, 1));
    /* the generate loop and training activations of layers of two head counts are not modelled: refused by name */
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MAX_NEW_TOKENS, 16));
    ck_assert_status(llmmem_estimate(rep, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "laguna"));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MAX_NEW_TOKENS, 0));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MODE, LLMMEM_MODE_TRAINING));
    ck_assert_status(llmmem_estimate(rep, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "laguna"));
    llmmem_report_free(rep);
    llmmem_serving_free(r);
    llmmem_hardware_free(hw);
    llmmem_strategy_free(s);
    llmmem_model_free(m);
}
END_TEST

/* A small Laguna read by its rules: mlp_only_layers and decoder_sparse_step without mlp_layer_types, uniform heads
 * without num_attention_heads_per_layer, no gate: 2 layers of 256 (4 heads, 2 KV heads of 64), layer 0 dense of
 * 512, layer 1 4 experts of 128 beside a shared one of 64, vocabulary 1000, untied:
 *   attention 2 x (2 x 256 x 256 + 2 x 128 x 256 + 128) = 393,472; norms 2 x 512 + 256 = 1,280; MLP 3 x 256 x 512 =
 *   393,216; experts 4 x 3 x 256 x 128 = 393,216, gate 1,024 + 4, shared 3 x 256 x 64 = 49,152; embedding and head
 *   512,000: 1,743,364. And what it does not model is refused by name. */
START_TEST(laguna_rules)
{
    const char *base = "{\"model_type\": \"laguna\", \"hidden_size\": 256, \"num_hidden_layers\": 2, "
                       "\"num_attention_heads\": 4, \"num_key_value_heads\": 2, \"head_dim\": 64, \"vocab_size\": 1000, "
                       "\"intermediate_size\": 512, \"num_experts\": 4, \"num_experts_per_tok\": 2, "
                       "\"moe_intermediate_size\": 128, \"shared_expert_intermediate_size\": 64, \"mlp_only_layers\": [0]%s}";
    char json[1024];
    snprintf(json, sizeof json, base, "");
    llmmem_model *m = from_text(json);
    ck_assert_uint_eq(total(m), 1743364ULL);
    llmmem_model_free(m);
    /* a per-head gate over uniform heads: 2 x 4 x 256 more; its generate loop refused by name, vLLM serving named as
     * modelled (it is, for laguna as for step3p5) */
    snprintf(json, sizeof json, base, ", \"gating\": true");
    m = from_text(json);
    ck_assert_uint_eq(total(m), 1743364ULL + 2048ULL);
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_report *rep = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h200"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_report_new(&rep));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MAX_NEW_TOKENS, 16));
    ck_assert_status(llmmem_estimate(rep, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "(laguna) is not modelled"));
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "the contiguous cache and vLLM serving are"));
    llmmem_report_free(rep);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
    static const char *const bad[][2] = {
        {", \"gating\": \"per-element\"", "per-element"},
        {", \"swa_attention_sink_enabled\": true", "sinks"},
        {", \"attention_bias\": true", "o_proj"},
        {", \"mlp_layer_types\": [\"sparse\", \"sparse\"]", "mlp_layer_types[0]"},
        {", \"layer_types\": [\"full_attention\", \"sliding_attention\"]", "sliding_window"},
        {", \"layer_types\": [\"full_attention\", \"full_attention\"], \"num_attention_heads_per_layer\": [4, 8]",
         "num_attention_heads_per_layer[1]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(json, sizeof json, base, bad[i][0]);
        llmmem_model *b = NULL;
        ck_assert_int_ne(llmmem_model_from_hf_config_text(&b, json, strlen(json)), LLMMEM_OK);
        ck_assert_msg(strstr(llmmem_last_message(), bad[i][1]) != NULL, "%s", llmmem_last_message());
    }
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("families_moe");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, minimax_m2_7_fp8);
    tcase_add_test(tc, glm4_7_flash);
    tcase_add_test(tc, glm5);
    tcase_add_test(tc, deepseek_v4_flash_count);
    tcase_add_test(tc, deepseek_v4_flash_cache);
    tcase_add_test(tc, deepseek_v4_vllm_refused);
    tcase_add_test(tc, mimo_v2_flash);
    tcase_add_test(tc, hunyuan_a13b);
    tcase_add_test(tc, hunyuan_moe_without_shared);
    tcase_add_test(tc, hunyuan_refusals);
    tcase_add_test(tc, hunyuan_moe_defaults);
    tcase_add_test(tc, hunyuan_dense_7b);
    tcase_add_test(tc, hunyuan_moe_gguf);
    tcase_add_test(tc, hunyuan_dense_gguf);
    tcase_add_test(tc, step35_flash);
    tcase_add_test(tc, step35_refusals);
    tcase_add_test(tc, laguna_xs2);
    tcase_add_test(tc, laguna_rules);
    suite_add_tcase(suite, tc);
    return run_suite(suite);
}
