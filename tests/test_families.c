/* The family table (lib/base/families.c): one row per Hugging Face model_type. Each family added as a
 * row is read from its published config.json with the class defaults the file omits, and counted
 * to the parameter against its publisher's figure; its preset gives the same count. The sums
 * below are worked out from the configs' shapes (tests/data/configs). */
#include <stdio.h>
#include <string.h>

#include "family.h"

static void expect_preset_total(const char *preset, uint64_t expected)
{
    llmmem_model *m = NULL;
    ck_assert_ok(llmmem_model_from_preset(&m, preset));
    ck_assert_uint_eq(total(m), expected);
    llmmem_model_free(m);
}

/* HuggingFaceTB/SmolLM3-3B: model.safetensors.index.json metadata total_parameters 3,075,098,624
 * (total_size 6,150,197,248 bytes, all bf16). Llama-shaped layers (SmolLM3DecoderLayer), and the
 * config names no tie_word_embeddings, so SmolLM3Config's default True ties the head:
 *   per layer: q 2048^2 + k, v 2 x 512 x 2048 + o 2048^2 = 10,485,760; MLP 3 x 2048 x 11008 =
 *   67,633,152; two norms 4,096: 78,123,008 x 36 layers = 2,812,428,288;
 *   embedding 128256 x 2048 = 262,668,288; final norm 2,048: 3,075,098,624. NoPE layers
 *   (no_rope_layers) hold no parameters. */
START_TEST(smollm3_3b)
{
    llmmem_model *m = load("smollm3-3b.json");
    ck_assert_uint_eq(total(m), 3075098624ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS), 1);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_SMOLLM3);
    ck_assert_str_eq(llmmem_choice_name(LLMMEM_KEY_MODEL_TYPE, get(m, LLMMEM_KEY_MODEL_TYPE)), "smollm3");
    llmmem_model_free(m);
    expect_preset_total("smollm3-3b", 3075098624ULL);
}
END_TEST

/* ibm-granite/granite-3.3-8b-instruct: 8,170,864,640 parameters. GraniteConfig's layers are
 * Llama's (attention_bias and mlp_bias False); its four multipliers are floats, not tensors; the
 * config ties the head (GraniteConfig's default is untied):
 *   per layer: q, o 2 x 4096^2 + k, v 2 x 1024 x 4096 = 41,943,040; MLP 3 x 4096 x 12800 =
 *   157,286,400; norms 8,192: 199,237,632 x 40 = 7,969,505,280;
 *   embedding 49159 x 4096 = 201,355,264; final norm 4,096: 8,170,864,640. */
START_TEST(granite_3_3_8b)
{
    llmmem_model *m = load("granite-3.3-8b-instruct.json");
    ck_assert_uint_eq(total(m), 8170864640ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_GRANITE);
    llmmem_model_free(m);
    expect_preset_total("granite-3.3-8b", 8170864640ULL);
    /* GraniteConfig's own default is an untied head: a config that says nothing unties it */
    const char *json = "{\"model_type\": \"granite\", \"hidden_size\": 64, \"intermediate_size\": 128, "
                       "\"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 100}";
    ck_assert_ok(llmmem_model_from_hf_config_text(&m, json, strlen(json)));
    ck_assert_int_eq(get(m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS), 0);
    llmmem_model_free(m);
}
END_TEST

/* moonshotai/Kimi-K2-Instruct (model_type kimi_k2, DeepseekV3ForCausalLM): 1,026,408,232,448
 * model parameters. 61 layers, the first dense (first_k_dense_replace 1), 384 routed experts of
 * 2048 and one shared, MLA with q_lora 1536, kv_lora 512, nope 128, rope 64, v 128 over 64 heads,
 * vocabulary 163,840, untied, an fp32 e_score_correction_bias per MoE layer (topk_method noaux_tc):
 *   attention 61 x 101,122,048 (q_a 1536 x 7168, q_b 12288 x 1536, kv_a 576 x 7168, kv_b 16384 x 512,
 *   o 7168 x 8192) + norms; dense MLP 3 x 7168 x 18432; experts 60 x 385 x 3 x 2048 x 7168;
 *   routers 60 x 384 x 7168 and 60 x 384 biases; embedding and head 2 x 163840 x 7168.
 * The checkpoint's model.safetensors.index.json total_size, 1,029,173,256,720 bytes, is this count
 * with its fp8 linears at 1 byte, the rest at 2, the biases at 4, plus the fp32 128 x 128 block
 * scales (62,495,192) and 61 stored bf16 rotary inv_freq buffers of 56. */
START_TEST(kimi_k2)
{
    llmmem_model *m = load("kimi-k2-instruct.json");
    ck_assert_uint_eq(total(m), 1026408232448ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_KIMI_K2);
    ck_assert_int_eq(get(m, LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS), 1);
    llmmem_model_free(m);
    expect_preset_total("kimi-k2", 1026408232448ULL);
}
END_TEST

/* The "supported" list of an unknown model_type comes from the table: every row is named. */
START_TEST(unknown_type_lists_the_table)
{
    const char *json = "{\"model_type\": \"no_such_family\", \"hidden_size\": 64}";
    llmmem_model *m = NULL;
    ck_assert_status(llmmem_model_from_hf_config_text(&m, json, strlen(json)), LLMMEM_ERR_UNSUPPORTED);
    const char *msg = llmmem_last_message();
    static const char *const rows[] = {"gpt2", "llama", "gemma3_text", "deepseek_v3", "granite", "smollm3", "kimi_k2"};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        ck_assert_msg(strstr(msg, rows[i]) != NULL, "'%s' lacks %s", msg, rows[i]);
    /* and every model_type choice of the key is a row the reader knows */
    int64_t lo, hi;
    ck_assert_ok(llmmem_key_bounds(&lo, &hi, LLMMEM_KEY_MODEL_TYPE));
    for (int64_t v = lo + 1; v <= hi; v++) {
        const char *name = llmmem_choice_name(LLMMEM_KEY_MODEL_TYPE, v);
        ck_assert_ptr_nonnull(name);
        ck_assert_msg(strstr(msg, name) != NULL, "'%s' lacks %s", msg, name);
    }
}
END_TEST

/* Layer kinds that follow no period (issue 15): a Qwen2-shaped model of 6 layers whose layer_types
 * are full, sliding, sliding, full, full, sliding. One token adds K and V of 2 KV heads of 16
 * (hidden 64 / 4 heads) in bf16 to a layer: 2 x 2 x 16 x 2 = 128 bytes. A contiguous cache of one
 * sequence of 100 tokens (transformers' DynamicSlidingWindowLayer keeps sliding_window 32 of
 * them) holds 3 full layers x 100 x 128 + 3 sliding layers x 32 x 128 = 38,400 + 12,288 = 50,688
 * bytes; of 10 tokens, every layer holds all 10: 6 x 10 x 128 = 7,680. Other maps of the same
 * model give other bytes (all sliding: 6 x 32 x 128; only layer 2: 5 x 100 x 128 + 32 x 128), so
 * each layer's own kind is what is counted. Before issue 15 such a config was refused. */
static const char *const qwen_layers =
    "{\"model_type\": \"qwen2\", \"hidden_size\": 64, \"num_hidden_layers\": 6, \"num_attention_heads\": 4, "
    "\"num_key_value_heads\": 2, \"vocab_size\": 100, \"intermediate_size\": 128, \"torch_dtype\": \"bfloat16\", "
    "\"use_sliding_window\": true, \"sliding_window\": 32";

static uint64_t contiguous(const llmmem_model *m, uint64_t tokens)
{
    llmmem_strategy *s = NULL;
    uint64_t bytes = 0;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_kv_cache_bytes(&bytes, m, s, 1, tokens));
    llmmem_strategy_free(s);
    return bytes;
}

START_TEST(non_periodic_layer_types)
{
    char json[1024];
    llmmem_model *m = NULL;
    snprintf(json, sizeof json, "%s, \"layer_types\": [\"full_attention\", \"sliding_attention\", "
             "\"sliding_attention\", \"full_attention\", \"full_attention\", \"sliding_attention\"]}", qwen_layers);
    ck_assert_ok(llmmem_model_from_hf_config_text(&m, json, strlen(json)));
    ck_assert_uint_eq(contiguous(m, 100), 50688);
    ck_assert_uint_eq(contiguous(m, 10), 7680);
    llmmem_model_free(m);

    /* the same map through the API; all six sliding, or only layer 2, differ */
    snprintf(json, sizeof json, "%s}", qwen_layers);
    ck_assert_ok(llmmem_model_from_hf_config_text(&m, json, strlen(json)));
    /* (max_window_layers' default 28 >= 6 layers: the config alone slides nowhere) */
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_SLIDING_WINDOW, 32));
    ck_assert_ok(llmmem_model_set_layer_types(m, "full_attention,sliding_attention,sliding_attention,"
                                                 "full_attention,full_attention,sliding_attention"));
    ck_assert_uint_eq(contiguous(m, 100), 50688);
    ck_assert_ok(llmmem_model_set_layer_types(m, "sliding_attention,sliding_attention,sliding_attention,"
                                                 "sliding_attention,sliding_attention,sliding_attention"));
    ck_assert_uint_eq(contiguous(m, 100), 6 * 32 * 128);
    ck_assert_ok(llmmem_model_set_layer_types(m, "full_attention,full_attention,sliding_attention,"
                                                 "full_attention,full_attention,full_attention"));
    ck_assert_uint_eq(contiguous(m, 100), 5 * 100 * 128 + 32 * 128);
    /* errors name the entry, the count or the missing window */
    ck_assert_status(llmmem_model_set_layer_types(m, "full_attention,global"), LLMMEM_ERR_NOT_FOUND);
    ck_assert_str_eq(llmmem_last_message(), "layer_types[1]: 'global' is not a layer type "
                                            "(full_attention, sliding_attention, chunked_attention, attention, "
                                            "linear_attention and mamba are)");
    /* granitemoehybrid's "attention" is full attention: the same cache as full_attention */
    ck_assert_ok(llmmem_model_set_layer_types(m, "full_attention,full_attention,sliding_attention,"
                                                 "attention,attention,attention"));
    ck_assert_uint_eq(contiguous(m, 100), 5 * 100 * 128 + 32 * 128);
    ck_assert_status(llmmem_model_set_layer_types(m, "full_attention,"), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_ok(llmmem_model_set_layer_types(m, "full_attention,sliding_attention"));
    uint64_t b;
    llmmem_strategy *s = NULL;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_status(llmmem_kv_cache_bytes(&b, m, s, 1, 10), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "layer_types has 2 entries, but num_hidden_layers is 6"));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_SLIDING_WINDOW, 0));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_HIDDEN_LAYERS, 2));
    ck_assert_status(llmmem_kv_cache_bytes(&b, m, s, 1, 10), LLMMEM_ERR_INCOMPLETE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "sliding_window is not set"));
    ck_assert_ok(llmmem_model_set_layer_types(m, "")); /* no map: the periodic keys again */
    ck_assert_uint_eq(contiguous(m, 10), 2 * 10 * 128);
    llmmem_strategy_free(s);
    llmmem_model_free(m);

    /* Qwen2's max_window_layers 3: layers 3-5 slide, a map since issue 15 */
    snprintf(json, sizeof json, "%s, \"max_window_layers\": 3}", qwen_layers);
    ck_assert_ok(llmmem_model_from_hf_config_text(&m, json, strlen(json)));
    ck_assert_uint_eq(contiguous(m, 100), 3 * 100 * 128 + 3 * 32 * 128);
    llmmem_model_free(m);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("families");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, smollm3_3b);
    tcase_add_test(tc, granite_3_3_8b);
    tcase_add_test(tc, kimi_k2);
    tcase_add_test(tc, unknown_type_lists_the_table);
    tcase_add_test(tc, non_periodic_layer_types);
    suite_add_tcase(suite, tc);
    return run_suite(suite);
}
