/* Families of late 2026 added for issue 33's second round: Hunyuan dense and MoE, Step-3.5-Flash. Each model is read from a
 * config rebuilt here from a record of its published config.json (each test names it) and counted against a
 * published figure where one exists, else against a count derived by hand in the comment, never against this
 * library's output. The ids are stored-corpus records (find_string / read_file). */
#include <stdio.h>
#include <string.h>

#include "family.h"
#include "gguf_writer.h"

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
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "step3p5's 64 and 96"));
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

int main(void)
{
    Suite *suite = suite_create("families_moe_2026");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, hunyuan_a13b);
    tcase_add_test(tc, hunyuan_moe_without_shared);
    tcase_add_test(tc, hunyuan_refusals);
    tcase_add_test(tc, hunyuan_moe_defaults);
    tcase_add_test(tc, hunyuan_dense_7b);
    tcase_add_test(tc, hunyuan_moe_gguf);
    tcase_add_test(tc, hunyuan_dense_gguf);
    tcase_add_test(tc, step35_flash);
    tcase_add_test(tc, step35_refusals);
    suite_add_tcase(suite, tc);
    return run_suite(suite);
}
