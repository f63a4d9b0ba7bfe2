/* Weight bytes and the first estimate, against hand derivations. */
#include <string.h>

#include "unit.h"

/* A model given by its parameter count alone, in a storage format. */
static llmmem_model *count_only(int64_t params, llmmem_format dtype)
{
    llmmem_model *m;
    ck_assert_ok(llmmem_model_new(&m));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_PARAMETERS, params));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_TORCH_DTYPE, dtype));
    return m;
}

static uint64_t weights_of(const llmmem_model *m, const llmmem_strategy *s)
{
    llmmem_hardware *hw;
    llmmem_report *r;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_report_new(&r));
    ck_assert_ok(llmmem_estimate(r, m, hw, s));
    uint64_t w = llmmem_report_bytes(r, LLMMEM_COMPONENT_WEIGHTS);
    llmmem_report_free(r);
    llmmem_hardware_free(hw);
    return w;
}

/* The rule of thumb everyone quotes: 2 bytes per parameter in bf16, decimal GB. */
START_TEST(test_worked_examples_bf16)
{
    llmmem_strategy *s;
    ck_assert_ok(llmmem_strategy_new(&s));
    static const struct {
        int64_t params;
        uint64_t gb;
    } cases[] = {{7000000000LL, 14}, {70000000000LL, 140}, {405000000000LL, 810}};
    for (size_t i = 0; i < 3; i++) {
        llmmem_model *m = count_only(cases[i].params, LLMMEM_FORMAT_BF16);
        ck_assert_uint_eq(weights_of(m, s), cases[i].gb * GB);
        llmmem_model_free(m);
    }
    llmmem_strategy_free(s);
}
END_TEST

/* 70B at 4 bits without scales: 70e9 * 4 / 8 = 35e9 bytes. */
START_TEST(test_worked_example_int4)
{
    llmmem_strategy *s;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_WEIGHT_FORMAT, LLMMEM_FORMAT_INT4));
    llmmem_model *m = count_only(70000000000LL, LLMMEM_FORMAT_BF16);
    ck_assert_uint_eq(weights_of(m, s), 35 * GB);
    llmmem_model_free(m);
    llmmem_strategy_free(s);
}
END_TEST

/* GPTQ 4-bit, group 128, of a Llama-2-70B (config: hidden 8192, 80 layers, 64 heads, 8 KV heads,
 * intermediate 28672, vocab 32000, untied, fp16). AutoGPTQ QuantLinear stores per linear layer of
 * out x in: qweight int32 [in/8, out], qzeros int32 [in/128, out/8], scales fp16 [in/128, out],
 * g_idx int32 [in]. Embedding, LM head and norms stay fp16. */
static uint64_t gptq_linear(uint64_t out, uint64_t in)
{
    uint64_t groups = (in + 127) / 128;
    return (in / 8) * out * 4 + groups * (out / 8) * 4 + groups * out * 2 + in * 4;
}

START_TEST(test_gptq_llama2_70b)
{
    const uint64_t h = 8192, kv = 1024, f = 28672, layers = 80, vocab = 32000;
    uint64_t per_layer = gptq_linear(h, h) * 2     /* q_proj, o_proj */
                         + gptq_linear(kv, h) * 2  /* k_proj, v_proj */
                         + gptq_linear(f, h) * 2   /* gate_proj, up_proj */
                         + gptq_linear(h, f);      /* down_proj */
    uint64_t fp16 = (2 * vocab * h               /* embed_tokens, lm_head */
                     + (2 * layers + 1) * h) * 2; /* two RMSNorms per layer and the final one */
    uint64_t expected = per_layer * layers + fp16;

    llmmem_model *m;
    llmmem_strategy *s;
    ck_assert_ok(llmmem_model_from_preset(&m, "llama-2-70b"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_WEIGHT_FORMAT, LLMMEM_FORMAT_GPTQ_INT4));
    ck_assert_uint_eq(weights_of(m, s), expected);
    /* More than the flat 0.5 byte/parameter figure (34.5 GB for 68.98e9 parameters). */
    ck_assert_uint_gt(expected, 68976648192ULL / 2);
    llmmem_model_free(m);
    llmmem_strategy_free(s);
}
END_TEST

/* bf16 Llama-2-70B does not fit one 80 GB GPU; the total is weights + runtime overhead. */
START_TEST(test_estimate_composition)
{
    llmmem_model *m;
    llmmem_hardware *hw;
    llmmem_strategy *s;
    llmmem_report *r;
    ck_assert_ok(llmmem_model_from_preset(&m, "llama-2-7b"));
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_report_new(&r));
    ck_assert_int_eq(llmmem_report_valid(r), 0);
    ck_assert_ok(llmmem_estimate(r, m, hw, s));
    ck_assert_int_eq(llmmem_report_valid(r), 1);
    /* Llama-2-7B: 6,738,415,616 parameters (PEFT prints "all params: 6,738,415,616" with no adapter) in fp16. */
    ck_assert_uint_eq(llmmem_report_bytes(r, LLMMEM_COMPONENT_WEIGHTS), 6738415616ULL * 2);
    int64_t overhead, memory;
    ck_assert_ok(llmmem_hardware_get_int(&overhead, hw, LLMMEM_KEY_RUNTIME_OVERHEAD_BYTES));
    ck_assert_ok(llmmem_hardware_get_int(&memory, hw, LLMMEM_KEY_MEMORY_BYTES));
    ck_assert_int_eq(overhead, -1); /* documented default: the stack's own, 768 MiB for a PyTorch job */
    ck_assert_uint_eq(llmmem_report_bytes(r, LLMMEM_COMPONENT_RUNTIME_OVERHEAD), 768ULL << 20);
    /* one cuBLAS workspace, the forward thread's: :4096:8 on Hopper (CublasHandlePool.cpp) */
    ck_assert_uint_eq(llmmem_report_bytes(r, LLMMEM_COMPONENT_WORKSPACES), 32ULL << 20);
    /* the KV cache of one 4096-token sequence (the default micro_batch_size and sequence_length):
     * K and V of 32 heads x 128 in fp16 over 32 layers, 2 x 32 x 128 x 2 x 32 = 524,288 bytes a token */
    const uint64_t kv = 2ULL * 32 * 128 * 2 * 32 * 4096;
    ck_assert_uint_eq(llmmem_report_bytes(r, LLMMEM_COMPONENT_KV_CACHE), kv);
    ck_assert_uint_eq(llmmem_report_total_bytes(r), 6738415616ULL * 2 + kv + (768ULL << 20) + (32ULL << 20));
    for (int c = LLMMEM_COMPONENT_GRADIENTS; c <= LLMMEM_COMPONENT_COMM_BUFFERS; c++)
        if (c != LLMMEM_COMPONENT_KV_CACHE)
            ck_assert_uint_eq(llmmem_report_bytes(r, (llmmem_component)c), 0);
    ck_assert_uint_eq(llmmem_report_capacity_bytes(r), (uint64_t)memory);
    ck_assert_int_eq(llmmem_report_fits(r), 1);
    ck_assert_uint_eq(llmmem_report_total_parameters(r), 6738415616ULL);

    /* A 5% allocator reserve: capacity = memory - floor(memory * 0.05). */
    ck_assert_ok(llmmem_hardware_set_real(hw, LLMMEM_KEY_ALLOCATOR_RESERVE_FRACTION, 0.05));
    ck_assert_ok(llmmem_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_report_capacity_bytes(r), (uint64_t)memory - (uint64_t)memory / 20);

    /* The same report, reused for a model that does not fit. */
    llmmem_model *big;
    ck_assert_ok(llmmem_model_from_preset(&big, "llama-2-70b"));
    ck_assert_ok(llmmem_estimate(r, big, hw, s));
    ck_assert_uint_eq(llmmem_report_bytes(r, LLMMEM_COMPONENT_WEIGHTS), 68976648192ULL * 2);
    ck_assert_int_eq(llmmem_report_fits(r), 0);

    char *json;
    ck_assert_ok(llmmem_report_to_json(&json, r));
    ck_assert_ptr_nonnull(strstr(json, "\"model\": \"llama-2-70b\""));
    ck_assert_ptr_nonnull(strstr(json, "\"weights\": 137953296384"));
    ck_assert_ptr_nonnull(strstr(json, "\"fits\": false"));
    llmmem_string_free(json);

    llmmem_model_free(big);
    llmmem_model_free(m);
    llmmem_hardware_free(hw);
    llmmem_strategy_free(s);
    llmmem_report_free(r);
}
END_TEST

/* Quantized checkpoints keep the embedding and LM head in 16 bits unless told otherwise. */
START_TEST(test_high_precision_tensors)
{
    llmmem_model *m;
    llmmem_strategy *s;
    ck_assert_ok(llmmem_model_from_preset(&m, "llama-2-7b"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_WEIGHT_FORMAT, LLMMEM_FORMAT_INT8));
    /* Llama-2-7B: vocab 32000 x hidden 4096, untied; 2 x 32 + 1 RMSNorms of 4096. */
    const uint64_t embed = 32000ULL * 4096, norms = 65ULL * 4096;
    const uint64_t linear = 6738415616ULL - 2 * embed - norms;
    ck_assert_uint_eq(weights_of(m, s), linear * 1 + (2 * embed + norms) * 2);
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_QUANTIZE_EMBEDDING, 1));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_QUANTIZE_LM_HEAD, 1));
    ck_assert_uint_eq(weights_of(m, s), (linear + 2 * embed) * 1 + norms * 2);
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_HIGH_PRECISION_FORMAT, LLMMEM_FORMAT_FP32));
    ck_assert_uint_eq(weights_of(m, s), (linear + 2 * embed) * 1 + norms * 4);
    llmmem_model_free(m);
    llmmem_strategy_free(s);
}
END_TEST

START_TEST(test_overflow_is_an_error)
{
    llmmem_strategy *s;
    ck_assert_ok(llmmem_strategy_new(&s));
    /* INT64_MAX parameters in fp32: 4 bytes each cannot be counted in 64 bits. */
    llmmem_model *m = count_only(INT64_MAX, LLMMEM_FORMAT_FP32);
    llmmem_hardware *hw;
    llmmem_report *r;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_report_new(&r));
    ck_assert_status(llmmem_estimate(r, m, hw, s), LLMMEM_ERR_OVERFLOW);
    ck_assert_int_eq(llmmem_report_valid(r), 0);
    llmmem_model_free(m);

    /* 2^20 layers of 2^20 experts of 2^24 x 2^24 matrices: the parameter count itself overflows. */
    ck_assert_ok(llmmem_model_from_preset(&m, "mixtral-8x7b"));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_HIDDEN_LAYERS, 1LL << 20));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_EXPERTS, 1LL << 20));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_HIDDEN_SIZE, 1LL << 24));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_INTERMEDIATE_SIZE, 1LL << 24));
    uint64_t n;
    ck_assert_status(llmmem_model_total_parameters(&n, m), LLMMEM_ERR_OVERFLOW);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "exceeds 64 bits"));
    ck_assert_status(llmmem_estimate(r, m, hw, s), LLMMEM_ERR_OVERFLOW);
    llmmem_model_free(m);
    llmmem_hardware_free(hw);
    llmmem_report_free(r);
    llmmem_strategy_free(s);
}
END_TEST

START_TEST(test_incomplete_inputs)
{
    llmmem_model *m;
    llmmem_hardware *hw;
    llmmem_strategy *s;
    llmmem_report *r;
    ck_assert_ok(llmmem_model_new(&m));
    ck_assert_ok(llmmem_hardware_new(&hw));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_report_new(&r));
    ck_assert_status(llmmem_estimate(r, m, hw, s), LLMMEM_ERR_INCOMPLETE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "num_parameters"));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_MODEL_TYPE, LLMMEM_MODEL_LLAMA));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_HIDDEN_SIZE, 4096));
    ck_assert_status(llmmem_estimate(r, m, hw, s), LLMMEM_ERR_INCOMPLETE);
    ck_assert_str_eq(llmmem_last_message(), "model llama: num_hidden_layers is not set");
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_HIDDEN_LAYERS, 32));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_ATTENTION_HEADS, 40));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_VOCAB_SIZE, 32000));
    ck_assert_status(llmmem_estimate(r, m, hw, s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_str_eq(llmmem_last_message(),
                     "hidden_size (4096) is not divisible by num_attention_heads (40); set head_dim");
    /* typed attention (Gemma 4's KV-shared layers) takes the same default width, refused the same way: a width
     * of 4096 / 40 rounded down to 102 would cost a wrong cache (a found fuzz input: 0 from 6 / 40) */
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_KV_SHARED_LAYERS, 4));
    ck_assert_status(llmmem_estimate(r, m, hw, s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_str_eq(llmmem_last_message(),
                     "hidden_size (4096) is not divisible by num_attention_heads (40); set head_dim");
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_KV_SHARED_LAYERS, 0));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_ATTENTION_HEADS, 32));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_KEY_VALUE_HEADS, 5));
    ck_assert_status(llmmem_estimate(r, m, hw, s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_str_eq(llmmem_last_message(), "num_attention_heads (32) is not divisible by num_key_value_heads (5)");
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_KEY_VALUE_HEADS, 8));
    ck_assert_status(llmmem_estimate(r, m, hw, s), LLMMEM_ERR_INCOMPLETE);
    ck_assert_str_eq(llmmem_last_message(), "hardware: memory_bytes is not set");
    ck_assert_ok(llmmem_hardware_set_int(hw, LLMMEM_KEY_MEMORY_BYTES, 24LL << 30));
    ck_assert_ok(llmmem_estimate(r, m, hw, s));
    /* Both shapes and a count: ambiguous, refused. */
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_PARAMETERS, 7000000000LL));
    ck_assert_status(llmmem_estimate(r, m, hw, s), LLMMEM_ERR_INCOMPATIBLE);
    llmmem_model_free(m);
    llmmem_hardware_free(hw);
    llmmem_strategy_free(s);
    llmmem_report_free(r);
}
END_TEST

/* Tied embeddings: untying adds exactly one vocab x hidden LM head (Llama-3.2-1B: 128256 x 2048). */
START_TEST(test_tied_embeddings)
{
    llmmem_model *m;
    ck_assert_ok(llmmem_model_from_preset(&m, "llama-3.2-1b"));
    uint64_t tied, untied, head;
    ck_assert_ok(llmmem_model_total_parameters(&tied, m));
    ck_assert_ok(llmmem_model_parameters(&head, m, LLMMEM_PARAMS_LM_HEAD));
    ck_assert_uint_eq(head, 0);
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS, 0));
    ck_assert_ok(llmmem_model_total_parameters(&untied, m));
    ck_assert_uint_eq(untied - tied, 128256ULL * 2048);
    llmmem_model_free(m);
}
END_TEST

/* Grouped-query attention and an explicit head_dim shape the attention group.
 * Llama-3-8B: hidden 4096, 32 heads of 128, 8 KV heads, 32 layers:
 * q and o 4096 x 4096, k and v 1024 x 4096 each. */
START_TEST(test_attention_shapes)
{
    llmmem_model *m;
    ck_assert_ok(llmmem_model_from_preset(&m, "llama-3.1-8b"));
    uint64_t attn;
    ck_assert_ok(llmmem_model_parameters(&attn, m, LLMMEM_PARAMS_ATTENTION));
    ck_assert_uint_eq(attn, 32ULL * (2 * 4096 * 4096 + 2 * 1024 * 4096));
    /* An explicit head_dim of 256 with 32 heads: q and o become 8192 wide, k and v 2048. */
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_HEAD_DIM, 256));
    ck_assert_ok(llmmem_model_parameters(&attn, m, LLMMEM_PARAMS_ATTENTION));
    ck_assert_uint_eq(attn, 32ULL * (2 * 8192 * 4096 + 2 * 2048 * 4096));
    llmmem_model_free(m);
}
END_TEST

/* Which decoder layers each tensor class repeats over. DeepSeek-V3 config.json: 61 layers,
 * first_k_dense_replace 3, moe_layer_freq 1: layers 0-2 dense, 3-60 MoE. */
START_TEST(test_layer_spans)
{
    llmmem_model *m;
    ck_assert_ok(llmmem_model_from_preset(&m, "deepseek-v3"));
    ck_assert_uint_eq(llmmem__layers_in(&m->geo.plan, m->geo.all, 0, 61), 61);
    ck_assert_uint_eq(llmmem__layers_in(&m->geo.plan, m->geo.dense, 0, 61), 3);
    ck_assert_uint_eq(llmmem__layers_in(&m->geo.plan, m->geo.moe, 0, 61), 58);
    ck_assert_uint_eq(llmmem__layers_in(&m->geo.plan, m->geo.moe, 0, 10), 7);
    ck_assert_uint_eq(llmmem__layers_in(&m->geo.plan, m->geo.dense, 2, 10), 1);
    ck_assert_uint_eq(llmmem__layers_in(&m->geo.plan, 0, 0, 61), 0); /* no kind: the classes outside the layers */
    /* Every class's count is its per-layer multiplicity times the layers of its kinds. */
    for (unsigned i = 0; i < m->inv.n; i++) {
        const llmmem__tensor_class *t = &m->inv.t[i];
        uint64_t layers = llmmem__class_layers(&m->geo, t, 0, 61);
        if (layers)
            ck_assert_uint_eq(t->count % layers, 0);
    }
    /* first_k_dense_replace 1, moe_layer_freq 2 over 10 layers: MoE where i >= 1 and i % 2 == 0. */
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_HIDDEN_LAYERS, 10));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_FIRST_K_DENSE_REPLACE, 1));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_MOE_LAYER_FREQ, 2));
    ck_assert_uint_eq(llmmem__layers_in(&m->geo.plan, m->geo.moe, 0, 10), 4); /* i in {2, 4, 6, 8} */
    ck_assert_uint_eq(llmmem__layers_in(&m->geo.plan, m->geo.dense, 0, 10), 6);
    llmmem_model_free(m);
}
END_TEST

/* Layer kinds counted three ways agree with the rules evaluated layer by layer: a periodic key's
 * arithmetic (two kinds), the bitmaps (a per-layer map, or two keys varying at once) and the
 * period repeated past the LLMMEM_LAYER_MAP_MAX listed layers. The rules: Gemma3TextConfig, layer
 * i slides unless (i + 1) % sliding_window_pattern == 0; modeling_deepseek.py, layer i is MoE when
 * i >= first_k_dense_replace and i % moe_layer_freq == 0. */
static int slides(uint64_t i, uint64_t pattern)
{
    return (i + 1) % pattern != 0;
}
static int is_moe(uint64_t i, uint64_t first_dense, uint64_t freq)
{
    return i >= first_dense && i % freq == 0;
}
static void check_kinds(const llmmem_model *m, uint64_t pattern, uint64_t first_dense, uint64_t freq,
                        const uint64_t *edges, size_t n_edges)
{
    const llmmem__geometry *g = &m->geo;
    for (size_t a = 0; a < n_edges; a++)
        for (size_t b = a; b < n_edges; b++) {
            uint64_t first = edges[a], end = edges[b] < g->layers ? edges[b] : g->layers, sliding = 0, moe = 0;
            if (first > end)
                continue;
            for (uint64_t i = first; i < end; i++) {
                sliding += pattern && slides(i, pattern);
                moe += freq && is_moe(i, first_dense, freq);
            }
            ck_assert_uint_eq(llmmem__layers_in(&g->plan, g->sliding, first, end), sliding);
            ck_assert_uint_eq(llmmem__layers_in(&g->plan, g->moe, first, end), moe);
            ck_assert_uint_eq(llmmem__layers_in(&g->plan, g->dense, first, end), end - first - moe);
            uint64_t on[LLMMEM_LAYER_KINDS_MAX], sum = 0;
            llmmem__kind_counts(on, &g->plan, first, end);
            for (unsigned k = 0; k < g->plan.n; k++)
                sum += on[k];
            ck_assert_uint_eq(sum, end - first);
        }
}

START_TEST(test_layer_kinds_counted_three_ways)
{
    llmmem_model *m;
    uint64_t edges[64], layers = 34; /* gemma-3-4b; deepseek-v3 has 61 */
    size_t n = 0;
    for (uint64_t e = 0; e < 61; e += 4)
        edges[n++] = e;
    edges[n++] = 61;
    /* one key varies: the arithmetic */
    ck_assert_ok(llmmem_model_from_preset(&m, "gemma-3-4b"));
    ck_assert_uint_eq(m->geo.layers, layers);
    ck_assert_uint_eq(m->geo.plan.rule, LLMMEM_RULE_WINDOW);
    check_kinds(m, 6, 0, 0, edges, n);
    /* the same layers as a per-layer map: the bitmaps */
    char types[34 * 18 + 1] = "";
    for (uint64_t i = 0; i < layers; i++)
        strcat(strcat(types, i ? "," : ""), slides(i, 6) ? "sliding_attention" : "full_attention");
    ck_assert_ok(llmmem_model_set_layer_types(m, types));
    ck_assert_uint_eq(m->geo.plan.rule, LLMMEM_RULE_NONE);
    check_kinds(m, 6, 0, 0, edges, n);
    llmmem_model_free(m);

    ck_assert_ok(llmmem_model_from_preset(&m, "deepseek-v3"));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_MOE_LAYER_FREQ, 2));
    ck_assert_uint_eq(m->geo.plan.rule, LLMMEM_RULE_MOE);
    check_kinds(m, 0, 3, 2, edges, n);
    /* both keys vary (four kinds): the bitmaps, and past 4096 layers the period of 3 and 2 */
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_SLIDING_WINDOW, 4096));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_SLIDING_WINDOW_PATTERN, 3));
    ck_assert_uint_eq(m->geo.plan.n, 4); /* full attention on layer 5 (dense) and 8 (MoE) */
    ck_assert_uint_eq(m->geo.plan.rule, LLMMEM_RULE_NONE);
    check_kinds(m, 3, 3, 2, edges, n);
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_HIDDEN_LAYERS, 10007));
    ck_assert_uint_eq(m->geo.plan.period, 6);
    const uint64_t far[] = {0, 1, 4089, 4090, 4095, 4096, 4097, 4100, 5000, 8191, 8192, 9999, 10006, 10007};
    check_kinds(m, 3, 3, 2, far, sizeof far / sizeof far[0]);
    ck_assert_uint_eq(m->geo.moe_layers, (10006 - 4) / 2 + 1); /* even i in [4, 10006] */
    /* a pattern that does not repeat within the listed layers is refused, naming the keys */
    ck_assert_status(llmmem_model_set_int(m, LLMMEM_KEY_FIRST_K_DENSE_REPLACE, 4093), LLMMEM_OK);
    ck_assert_status(llmmem__model_check(m), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "first_k_dense_replace 4093"));
    llmmem_model_free(m);
}
END_TEST

/* Uniform recomputation over a model of 2^20 layers rebuilds the same largest chunk as over one of
 * 10,007 (the kinds repeat with the MoE period past the listed layers): the estimate looks at the
 * chunks that can differ, not at all 2^30 of them (a fuzz input took minutes before). */
START_TEST(test_uniform_recompute_chunks_of_a_long_model)
{
    llmmem_model *m;
    llmmem_hardware *hw;
    llmmem_strategy *s;
    llmmem_report *r;
    ck_assert_ok(llmmem_model_from_preset(&m, "deepseek-v3"));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_MOE_LAYER_FREQ, 2));
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_text(s, "mode", "training"));
    ck_assert_ok(llmmem_strategy_set_text(s, "recompute", "full"));
    ck_assert_ok(llmmem_strategy_set_text(s, "recompute_method", "uniform"));
    ck_assert_ok(llmmem_report_new(&r));
    for (int64_t n = 1; n <= 3; n++) {
        ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_RECOMPUTE_NUM_LAYERS, n));
        ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_HIDDEN_LAYERS, 10007));
        ck_assert_ok(llmmem_estimate(r, m, hw, s));
        uint64_t rebuilt = llmmem_report_peak_part(r, LLMMEM_PEAK_RECOMPUTE);
        ck_assert_uint_gt(rebuilt, 0);
        ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_HIDDEN_LAYERS, (int64_t)1 << 20));
        llmmem_status st = llmmem_estimate(r, m, hw, s);
        ck_assert(st == LLMMEM_OK || st == LLMMEM_ERR_OVERFLOW);
        if (st == LLMMEM_OK)
            ck_assert_uint_eq(llmmem_report_peak_part(r, LLMMEM_PEAK_RECOMPUTE), rebuilt);
    }
    llmmem_report_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
}
END_TEST

/* The GPU catalog: unique lower-case names, memory set, and datasheet capacities in bytes
 * ("80 GB" of HBM on an H100 is 80 x 2^30 bytes of DRAM; NVIDIA H100 and AMD MI300X datasheets). */
START_TEST(test_gpu_catalog)
{
    size_t n = llmmem_hardware_preset_count();
    ck_assert_uint_ge(n, 25);
    for (size_t i = 0; i < n; i++) {
        const char *name = llmmem_hardware_preset_name(i);
        for (const char *c = name; *c; c++)
            ck_assert_msg(*c < 'A' || *c > 'Z', "%s is not lower-case", name);
        for (size_t j = 0; j < i; j++)
            ck_assert_str_ne(name, llmmem_hardware_preset_name(j));
        llmmem_hardware *hw;
        int64_t memory, bandwidth;
        ck_assert_ok(llmmem_hardware_from_preset(&hw, name));
        ck_assert_ok(llmmem_hardware_get_int(&memory, hw, LLMMEM_KEY_MEMORY_BYTES));
        ck_assert_ok(llmmem_hardware_get_int(&bandwidth, hw, LLMMEM_KEY_MEMORY_BANDWIDTH));
        ck_assert_int_gt(memory, 0);
        ck_assert_int_gt(bandwidth, 0);
        llmmem_hardware_free(hw);
    }
    static const struct {
        const char *name;
        int64_t gib;
    } datasheet[] = {{"h100-sxm-80gb", 80}, {"h200", 141}, {"a100-sxm-40gb", 40}, {"l4", 24},
                     {"rtx-4090", 24},      {"mi300x", 192}, {"t4", 16}};
    for (size_t i = 0; i < sizeof datasheet / sizeof datasheet[0]; i++) {
        llmmem_hardware *hw;
        int64_t memory;
        ck_assert_ok(llmmem_hardware_from_preset(&hw, datasheet[i].name));
        ck_assert_ok(llmmem_hardware_get_int(&memory, hw, LLMMEM_KEY_MEMORY_BYTES));
        ck_assert_int_eq(memory, datasheet[i].gib * 1024 * 1024 * 1024);
        llmmem_hardware_free(hw);
    }
}
END_TEST

/* PyTorch's cuBLAS workspaces, allocated by its caching allocator: one per thread that runs matmuls
 * (aten/src/ATen/cuda/CublasHandlePool.cpp getCurrentCUDABlasHandle, getNewWorkspace), the forward's and
 * in a training step autograd's backward thread's; :4096:8 (32 MiB) on compute capability 9.0,
 * :4096:2:16:8 (8 MiB + 128 KiB) elsewhere (parseChosenWorkspaceSize). Measured on an H100
 * (tests/data/gpu): 33,554,432 bytes after the first matmul, twice that once a step has run backward. */
START_TEST(test_workspaces_per_thread)
{
    llmmem_model *m;
    llmmem_hardware *hw, *a100, *mi300x;
    llmmem_strategy *s;
    llmmem_report *r;
    ck_assert_ok(llmmem_model_from_preset(&m, "llama-3.2-1b"));
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_hardware_from_preset(&a100, "a100-sxm-80gb"));
    ck_assert_ok(llmmem_hardware_from_preset(&mi300x, "mi300x"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_report_new(&r));
    ck_assert_ok(llmmem_strategy_set_text(s, "sequence_length", "1024"));
    ck_assert_ok(llmmem_estimate(r, m, hw, s)); /* inference: the forward thread */
    ck_assert_uint_eq(llmmem_report_bytes(r, LLMMEM_COMPONENT_WORKSPACES), 33554432);
    ck_assert_ok(llmmem_strategy_set_text(s, "mode", "training"));
    ck_assert_ok(llmmem_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_report_bytes(r, LLMMEM_COMPONENT_WORKSPACES), 2 * 33554432ULL);
    ck_assert_ok(llmmem_estimate(r, m, a100, s));
    ck_assert_uint_eq(llmmem_report_bytes(r, LLMMEM_COMPONENT_WORKSPACES), 2 * (4096ULL * 1024 * 2 + 16 * 1024 * 8));
    ck_assert_ok(llmmem_estimate(r, m, mi300x, s)); /* hipBLAS's workspaces are not modelled */
    ck_assert_uint_eq(llmmem_report_bytes(r, LLMMEM_COMPONENT_WORKSPACES), 0);
    ck_assert_ok(llmmem_hardware_set_text(hw, "cublas_workspace_bytes", "4MiB"));
    ck_assert_ok(llmmem_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_report_bytes(r, LLMMEM_COMPONENT_WORKSPACES), 2 * (4ULL << 20));
    ck_assert_ok(llmmem_strategy_set_text(s, "device_kernels", "cpu")); /* no cuBLAS on a CPU */
    ck_assert_ok(llmmem_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_report_bytes(r, LLMMEM_COMPONENT_WORKSPACES), 0);
    ck_assert_str_eq(llmmem_component_name(LLMMEM_COMPONENT_WORKSPACES), "workspaces");
    /* CUDA's total beside the datasheet's (an H100 80GB HBM3, driver 580.159.04: tests/data/gpu) */
    int64_t total;
    ck_assert_ok(llmmem_hardware_get_int(&total, hw, LLMMEM_KEY_CUDA_TOTAL_BYTES));
    ck_assert_int_eq(total, 85017493504LL);
    ck_assert_ok(llmmem_hardware_get_int(&total, a100, LLMMEM_KEY_CUDA_TOTAL_BYTES));
    ck_assert_int_eq(total, 0); /* not known */
    llmmem_report_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(mi300x);
    llmmem_hardware_free(a100);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
}
END_TEST

static Suite *estimate_suite(void)
{
    Suite *s = suite_create("estimate");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_worked_examples_bf16);
    tcase_add_test(tc, test_worked_example_int4);
    tcase_add_test(tc, test_gptq_llama2_70b);
    tcase_add_test(tc, test_estimate_composition);
    tcase_add_test(tc, test_high_precision_tensors);
    tcase_add_test(tc, test_overflow_is_an_error);
    tcase_add_test(tc, test_incomplete_inputs);
    tcase_add_test(tc, test_tied_embeddings);
    tcase_add_test(tc, test_attention_shapes);
    tcase_add_test(tc, test_layer_spans);
    tcase_add_test(tc, test_layer_kinds_counted_three_ways);
    tcase_add_test(tc, test_uniform_recompute_chunks_of_a_long_model);
    tcase_add_test(tc, test_gpu_catalog);
    tcase_add_test(tc, test_workspaces_per_thread);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(estimate_suite());
}
