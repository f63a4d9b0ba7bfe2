/* The hybrid families of issue 17 left after mamba2, nemotron_h and qwen3_next: granitemoehybrid
 * (IBM Granite 4.0-H). Counts are hand derivations from the shapes, the modeling file named;
 * no publisher figure was read here (the Hub pages round: 32.2B, 6.94B). */
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

#define GRANITE_SMALL(experts, types, pos, d_head)                                                                          \
    "{\"model_type\": \"granitemoehybrid\", \"hidden_size\": 64, \"num_hidden_layers\": 4, "                  \
    "\"num_attention_heads\": 4, \"num_key_value_heads\": 2, \"vocab_size\": 100, \"tie_word_embeddings\": true, " \
    "\"layer_types\": [\"mamba\", " types ", \"mamba\", \"mamba\"], \"num_local_experts\": " experts ", "   \
    "\"num_experts_per_tok\": 2, \"intermediate_size\": 32, \"shared_intermediate_size\": 48, "                 \
    "\"mamba_n_heads\": 8, \"mamba_d_head\": " d_head ", \"mamba_d_state\": 8, \"mamba_n_groups\": 1, "           \
    "\"mamba_d_conv\": 4, \"mamba_expand\": 2, \"position_embedding_type\": " pos ", "                        \
    "\"embedding_multiplier\": 12.0, \"residual_multiplier\": 0.22, \"attention_multiplier\": 0.0078125, "    \
    "\"logits_scaling\": 8.0}"
#define ATTN "\"attention\""

/* transformers models/granitemoehybrid/modeling_granitemoehybrid.py, a config of 4 layers of 64
 * (mamba, attention, mamba, mamba), hand derivation:
 *   embeddings (tied) 100 x 64 = 6,400
 *   GraniteMoeHybridMambaLayer: inner 2 x 64 = 128, 8 heads of 16 ("auto"), state 8, 1 group:
 *     conv_dim 128 + 2 x 8 = 144; in_proj (128 + 144 + 8) x 64 = 17,920; conv1d 144 x 4 + bias 144 =
 *     720; dt_bias, A_log, D 3 x 8 = 24; norm 128; out_proj 64 x 128 = 8,192: 26,984, x 3 = 80,952
 *   GraniteMoeHybridAttention: q, o 2 x 64 x 64; k, v 2 x 32 x 64: 12,288
 *   GraniteMoeHybridMoE: 4 experts x (input_linear 2 x 32 x 64 + output_linear 64 x 32) = 24,576,
 *     router 4 x 64 = 256; shared_mlp 2 x 48 x 64 + 64 x 48 = 9,216: 34,048, x 4 = 136,192
 *   norms 4 x 2 x 64 + 64 = 576
 *   total 236,408; active (2 of 4 experts) 236,408 - 4 x 2 x 6,144 = 187,256.
 * With num_local_experts 0 the shared_mlp alone: 4 x 9,216 = 36,864 for the MoE's 136,192: 137,080. */
START_TEST(granite_hybrid_config)
{
    llmmem_model *m = text(GRANITE_SMALL("4", ATTN, "\"nope\"", "\"auto\""));
    ck_assert_uint_eq(total(m), 236408);
    uint64_t active = 0;
    ck_assert_ok(llmmem_model_active_parameters(&active, m));
    ck_assert_uint_eq(active, 187256);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_SSM), 80952);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_ATTENTION), 12288);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_SHARED_EXPERTS), 4 * 9216);
    llmmem_model_free(m);
    m = text(GRANITE_SMALL("0", ATTN, "\"nope\"", "\"auto\""));
    ck_assert_uint_eq(total(m), 137080);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_MLP), 36864);
    llmmem_model_free(m);
}
END_TEST

/* What the granitemoehybrid reader refuses by name. */
START_TEST(granite_hybrid_refusals)
{
    llmmem_model *m = NULL;
    static const char sliding[] = GRANITE_SMALL("4", "\"sliding_attention\"", "null", "16");
    ck_assert_status(llmmem_model_from_hf_config_text(&m, sliding, strlen(sliding)), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "layer_types[1]"));
    static const char alibi[] = GRANITE_SMALL("4", ATTN, "\"alibi\"", "16");
    ck_assert_status(llmmem_model_from_hf_config_text(&m, alibi, strlen(alibi)), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "position_embedding_type"));
    static const char heads[] = GRANITE_SMALL("4", ATTN, "\"rope\"", "32");
    ck_assert_status(llmmem_model_from_hf_config_text(&m, heads, strlen(heads)), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "mamba_d_head"));
    ck_assert_ptr_null(m);
    /* mamba_d_head 2^61 + 16 x mamba_n_heads 8 wrapped to the inner width 128 (a signed overflow) */
    static const char wraps[] = GRANITE_SMALL("4", ATTN, "\"rope\"", "2305843009213693968");
    ck_assert_status(llmmem_model_from_hf_config_text(&m, wraps, strlen(wraps)), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "mamba_d_head: 2305843009213693968 x mamba_n_heads 8 differs "
                                                        "from mamba_expand x hidden_size (128)"));
    ck_assert_ptr_null(m);
}
END_TEST

/* The presets, hand derivations (transformers modeling_granitemoehybrid.py), 36 Mamba-2 and 4
 * attention layers, every layer its MoE and shared MLP, tied embeddings:
 *   granite-4.0-h-small (4096): Mamba-2 inner 8192, 128 heads of 64, state 128, 1 group: conv_dim
 *     8,448; in_proj 16,768 x 4096 = 68,681,728; conv1d 8,448 x 5 = 42,240; 384; norm 8,192;
 *     out_proj 33,554,432: 102,286,976 x 36 = 3,682,331,136; attention q, o 2 x 4096 x 4096, k, v
 *     2 x 1024 x 4096: 41,943,040 x 4 = 167,772,160; MoE 72 x 3 x 768 x 4096 = 679,477,248, router
 *     294,912, shared 3 x 1536 x 4096 = 18,874,368: 698,646,528 x 40 = 27,945,861,120; norms 81 x
 *     4096 = 331,776; embeddings 100352 x 4096 = 411,041,792: 32,207,337,984 (the Hub: 32.2B)
 *   granite-4.0-h-tiny (1536): Mamba-2 inner 3072, 48 heads of 64: conv_dim 3,328; in_proj 6,448 x
 *     1536 = 9,904,128; conv1d 16,640; 144; norm 3,072; out_proj 4,718,592: 14,642,576 x 36 =
 *     527,132,736; attention 6,291,456 x 4 = 25,165,824; MoE 64 x 3 x 512 x 1536 = 150,994,944,
 *     router 98,304, shared 4,718,592: 155,811,840 x 40 = 6,232,473,600; norms 81 x 1536 = 124,416;
 *     embeddings 154,140,672: 6,939,037,248 (the Hub: 6.94B, "7B") */
START_TEST(granite_hybrid_presets)
{
    llmmem_model *m = preset("granite-4.0-h-small");
    ck_assert_uint_eq(total(m), 32207337984ULL);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_SSM), 3682331136ULL);
    llmmem_model_free(m);
    m = preset("granite-4.0-h-tiny");
    ck_assert_uint_eq(total(m), 6939037248ULL);
    llmmem_model_free(m);
}
END_TEST

/* transformers HybridMambaAttentionDynamicCache (modeling_granitemoehybrid.py): keys and values of
 * the attention layers, and per mamba layer a conv state of (mamba_expand x hidden + 2 x groups x
 * state) x mamba_d_conv and an SSM state of mamba_n_heads x mamba_d_head x state, in the model's
 * dtype. granite-4.0-h-small, bf16, 1 sequence of 1,000 tokens: attention 4 x 1,000 x 2 x 8 x 128 x
 * 2 B = 16,384,000; state (8,448 x 4 + 128 x 64 x 128) x 2 B = 2,164,736 x 36 = 77,930,496:
 * 94,314,496. */
START_TEST(granite_hybrid_contiguous)
{
    llmmem_model *m = preset("granite-4.0-h-small");
    llmmem_strategy *s = NULL;
    uint64_t bytes = 0;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_kv_cache_bytes(&bytes, m, s, 1, 1000));
    ck_assert_uint_eq(bytes, 94314496ULL);
    llmmem_strategy_free(s);
    llmmem_model_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("family_granitemoehybrid");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, granite_hybrid_config);
    tcase_add_test(tc, granite_hybrid_refusals);
    tcase_add_test(tc, granite_hybrid_presets);
    tcase_add_test(tc, granite_hybrid_contiguous);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
