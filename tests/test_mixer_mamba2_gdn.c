/* Token mixers that keep a state instead of a cache (issue 17): the Mamba-2 mixer and the Gated
 * DeltaNet mixer, counted in the "ssm" parameter group, and the families built of them (mamba2,
 * nemotron_h, qwen3_next), each read from its config.json (tests/data/configs) and from its
 * preset. The sums are worked out below from the configs' shapes, layer by layer.
 *
 * Publisher figures: none of the three publishers gives an exact count this suite could read (the
 * Hugging Face pages round to 7.29B, 8.89B and 81.3B, the last with the mtp.* tensors), so each
 * total is the hand derivation from the config, with the modeling file it follows named. The
 * config copies were written from the published files without their time_step_limit field (a
 * bare Infinity in two of them, which the JSON reader does not take yet; it holds no parameter). */
#include <stdio.h>
#include <string.h>

#include "family.h"
#include "job_fixture.h"

static uint64_t group(const llmmem_model *m, llmmem_param_group g)
{
    uint64_t n = 0;
    ck_assert_ok(llmmem_model_parameters(&n, m, g));
    return n;
}

/* mistralai/Mamba-Codestral-7B-v0.1 (transformers models/mamba2/modeling_mamba2.py): 64
 * Mamba2Blocks (a norm and a Mamba2Mixer, no MLP), hidden 4096, 128 heads of 64 (inner 8192),
 * state 128, 8 groups, kernel 4, use_conv_bias, no use_bias:
 *   conv_dim = 8192 + 2 x 8 x 128 = 10,240
 *   in_proj (8192 + 10240 + 128) x 4096 = 76,021,760; conv1d 10,240 x 4 + bias 10,240 = 51,200;
 *   dt_bias, A_log, D 3 x 128 = 384; gated norm 8,192; out_proj 4096 x 8192 = 33,554,432:
 *   mixer 109,635,968; block norm 4,096: 109,640,064 x 64 = 7,016,964,096
 *   embeddings and untied lm_head 2 x 32768 x 4096 = 268,435,456; norm_f 4,096
 *   total 7,285,403,648 (the Hub page: 7.29B). */
START_TEST(mamba2_codestral)
{
    llmmem_model *m = load("mamba-codestral-7b-v0.1.json");
    ck_assert_uint_eq(total(m), 7285403648ULL);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_SSM), 64ULL * 109635968ULL);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_ATTENTION), 0);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_MLP), 0);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_NORMS), 65ULL * 4096);
    llmmem_model_free(m);
    m = preset("mamba-codestral-7b");
    ck_assert_uint_eq(total(m), 7285403648ULL);
    llmmem_model_free(m);
}
END_TEST

/* state-spaces/mamba2-* (mamba_ssm Mamba2 blocks, the same tensors): d_model d, inner 2d, 2d / 64
 * heads, one group of state 128 (conv_dim 2d + 256), kernel 4, tied 50288-row vocabulary:
 *   a layer: in_proj (2d + 2d + 256 + 2d/64) x d; conv1d (2d + 256) x 5 (kernel and bias); dt_bias,
 *   A_log, D 3 x 2d/64; gated norm 2d; out_proj d x 2d; block norm d
 *   2.7b (d 2560, 64 layers): 40,216,560 x 64 + 50288 x 2560 + 2560 = 2,702,599,680
 *   1.3b (2048, 48): 25,849,280 x 48 + 50288 x 2048 + 2048 = 1,343,757,312
 *   780m (1536, 48): 14,644,112 x 48 + 50288 x 1536 + 1536 = 780,161,280
 *   370m (1024, 48): 6,601,056 x 48 + 50288 x 1024 + 1024 = 368,346,624
 *   130m (768, 24): 3,765,320 x 24 + 50288 x 768 + 768 = 128,989,632
 * (the sizes their names give). */
START_TEST(mamba2_state_spaces)
{
    static const struct {
        const char *name;
        uint64_t total;
    } cases[] = {
        {"mamba2-2.7b", 2702599680ULL}, {"mamba2-1.3b", 1343757312ULL}, {"mamba2-780m", 780161280ULL},
        {"mamba2-370m", 368346624ULL},  {"mamba2-130m", 128989632ULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        llmmem_model *m = preset(cases[i].name);
        ck_assert_msg(total(m) == cases[i].total, "%s: %llu", cases[i].name, (unsigned long long)total(m));
        llmmem_model_free(m);
    }
}
END_TEST

/* What a config reader refuses by name: a Nemotron-H MoE block without its experts' fields, a pattern of the wrong length, a
 * Mamba-2 inner width its heads do not fill. */
START_TEST(config_refusals)
{
    llmmem_model *m = NULL;
    static const char nemotron[] =
        "{\"model_type\": \"nemotron_h\", \"hidden_size\": 64, \"num_hidden_layers\": 3, "
        "\"num_attention_heads\": 4, \"num_key_value_heads\": 2, \"head_dim\": 16, \"vocab_size\": 100, "
        "\"intermediate_size\": 128, \"mamba_num_heads\": 4, \"mamba_head_dim\": 16, \"ssm_state_size\": 8, "
        "\"n_groups\": 2, \"conv_kernel\": 4, \"hybrid_override_pattern\": \"%s\"}";
    char json[1024];
    snprintf(json, sizeof json, nemotron, "M-*");
    ck_assert_ok(llmmem_model_from_hf_config_text(&m, json, strlen(json)));
    /* embeddings 2 x 100 x 64; M: in_proj (64 + 96 + 4) x 64 = 10,496, conv 96 x 5 = 480, 3 x 4 = 12,
     * norm 64, out_proj 4,096: 15,148; -: 2 x 128 x 64 = 16,384; *: q, o 2 x 64 x 64, k, v 2 x 32 x 64:
     * 12,288; norms 4 x 64 */
    uint64_t n = 0;
    ck_assert_ok(llmmem_model_total_parameters(&n, m));
    ck_assert_uint_eq(n, 2 * 100 * 64 + 15148 + 16384 + 12288 + 4 * 64);
    llmmem_model_free(m);
    m = NULL;
    snprintf(json, sizeof json, nemotron, "ME*");
    ck_assert_status(llmmem_model_from_hf_config_text(&m, json, strlen(json)), LLMMEM_ERR_INCOMPLETE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "n_routed_experts: is missing"));
    snprintf(json, sizeof json, nemotron, "M-");
    ck_assert_status(llmmem_model_from_hf_config_text(&m, json, strlen(json)), LLMMEM_ERR_INCOMPATIBLE);
    static const char mamba2[] =
        "{\"model_type\": \"mamba2\", \"hidden_size\": 64, \"num_hidden_layers\": 2, \"vocab_size\": 100, "
        "\"num_heads\": 4, \"head_dim\": 16, \"state_size\": 8, \"n_groups\": 1, \"expand\": 2}";
    ck_assert_status(llmmem_model_from_hf_config_text(&m, mamba2, strlen(mamba2)), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "expand"));
    ck_assert_ptr_null(m);
    /* int(expand x hidden_size) of an expand of 1e300 converted a double out of int64's range (undefined); a width
     * the heads cannot fill is refused before the conversion */
    static const char *const huge[] = {
        "{\"model_type\": \"mamba2\", \"hidden_size\": 64, \"num_hidden_layers\": 2, \"vocab_size\": 100, "
        "\"num_heads\": 8, \"head_dim\": 16, \"state_size\": 8, \"n_groups\": 1, \"expand\": 1e300}",
        "{\"model_type\": \"mamba2\", \"hidden_size\": 64, \"num_hidden_layers\": 2, \"vocab_size\": 100, "
        "\"num_heads\": 8, \"head_dim\": 16, \"state_size\": 8, \"n_groups\": 1, \"expand\": -1e300}"};
    for (size_t i = 0; i < 2; i++) {
        ck_assert_status(llmmem_model_from_hf_config_text(&m, huge[i], strlen(huge[i])), LLMMEM_ERR_UNSUPPORTED);
        ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "expand: int(expand x hidden_size) differs from num_heads x "
                                                            "head_dim (128)"));
        ck_assert_ptr_null(m);
    }
}
END_TEST

/* Checkpoint tensor names of these families land in the inventory's groups (checkpoint.c). */
START_TEST(checkpoint_groups)
{
    static const struct {
        const char *name;
        llmmem_param_group group;
    } cases[] = {
        {"backbone.embeddings.weight", LLMMEM_PARAMS_EMBEDDING},
        {"backbone.layers.0.norm.weight", LLMMEM_PARAMS_NORMS},
        {"backbone.layers.0.mixer.in_proj.weight", LLMMEM_PARAMS_SSM},
        {"backbone.layers.0.mixer.conv1d.weight", LLMMEM_PARAMS_SSM},
        {"backbone.layers.0.mixer.conv1d.bias", LLMMEM_PARAMS_SSM},
        {"backbone.layers.0.mixer.A_log", LLMMEM_PARAMS_SSM},
        {"backbone.layers.0.mixer.D", LLMMEM_PARAMS_SSM},
        {"backbone.layers.0.mixer.dt_bias", LLMMEM_PARAMS_SSM},
        {"backbone.layers.0.mixer.norm.weight", LLMMEM_PARAMS_SSM},
        {"backbone.layers.0.mixer.out_proj.weight", LLMMEM_PARAMS_SSM},
        {"backbone.layers.1.mixer.up_proj.weight", LLMMEM_PARAMS_MLP},
        {"backbone.layers.14.mixer.q_proj.weight", LLMMEM_PARAMS_ATTENTION},
        {"backbone.norm_f.weight", LLMMEM_PARAMS_NORMS},
        {"model.layers.0.linear_attn.in_proj_qkvz.weight", LLMMEM_PARAMS_SSM},
        {"model.layers.0.linear_attn.norm.weight", LLMMEM_PARAMS_SSM},
        {"model.layers.3.self_attn.q_norm.weight", LLMMEM_PARAMS_NORMS},
    };
    const size_t n = sizeof cases / sizeof cases[0];
    char header[4096];
    size_t used = (size_t)snprintf(header, sizeof header, "{");
    for (size_t i = 0; i < n; i++)
        used += (size_t)snprintf(header + used, sizeof header - used,
                                 "%s\"%s\":{\"dtype\":\"BF16\",\"shape\":[1],\"data_offsets\":[%zu,%zu]}",
                                 i ? "," : "", cases[i].name, 2 * i, 2 * i + 2);
    used += (size_t)snprintf(header + used, sizeof header - used, "}");
    unsigned char bytes[8 + sizeof header + 64] = {0};
    for (int i = 0; i < 8; i++)
        bytes[i] = (unsigned char)((uint64_t)used >> (8 * i));
    memcpy(bytes + 8, header, used);
    llmmem_checkpoint *ck = NULL;
    ck_assert_ok(llmmem_checkpoint_from_safetensors_bytes(&ck, bytes, 8 + used + 2 * n));
    for (size_t i = 0; i < llmmem_checkpoint_tensor_count(ck); i++) {
        const char *name = NULL;
        llmmem_param_group g;
        ck_assert_ok(llmmem_checkpoint_tensor(&name, NULL, NULL, NULL, NULL, &g, ck, i));
        for (size_t c = 0; c < n; c++)
            if (strcmp(name, cases[c].name) == 0)
                ck_assert_msg(g == cases[c].group, "%s: %s, expected %s", name, llmmem_param_group_name(g),
                              llmmem_param_group_name(cases[c].group));
    }
    llmmem_checkpoint_free(ck);
}
END_TEST

/* Every block pattern of the catalog names a preset, holds its num_hidden_layers blocks and reads. */
START_TEST(catalog_patterns)
{
    for (size_t i = 0; i < llmmem__model_pattern_total; i++) {
        llmmem_model *m = preset(llmmem__model_patterns[i].name);
        int64_t layers = 0;
        ck_assert_ok(llmmem_model_get_int(&layers, m, LLMMEM_KEY_NUM_HIDDEN_LAYERS));
        ck_assert_uint_eq(strlen(llmmem__model_patterns[i].pattern), (uint64_t)layers);
        ck_assert_uint_eq(m->layer_map.layers, (uint64_t)layers);
        llmmem_model_free(m);
    }
}
END_TEST

/* nvidia/NVIDIA-Nemotron-Nano-9B-v2 (transformers models/nemotron_h/modeling_nemotron_h.py): 56
 * NemotronHBlocks of 4480 after hybrid_override_pattern
 * M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-: 27 M, 4 *, 25 -; each block a norm and
 * one mixer:
 *   M, NemotronHMamba2Mixer: 128 heads of 80 (inner 10,240), state 128, 8 groups, kernel 4:
 *     conv_dim 10240 + 2 x 8 x 128 = 12,288; in_proj (10240 + 12288 + 128) x 4480 = 101,498,880;
 *     conv1d 12,288 x 4 + bias 12,288 = 61,440; 3 x 128 = 384; norm 10,240; out_proj 4480 x 10240 =
 *     45,875,200: 147,446,144
 *   *, NemotronHAttention: q, o 2 x 5120 x 4480 = 45,875,200; k, v 2 x 1024 x 4480 = 9,175,040:
 *     55,050,240
 *   -, NemotronHMLP (relu2): up, down 2 x 15680 x 4480 = 140,492,800
 *   27 x 147,446,144 = 3,981,045,888; 4 x 55,050,240 = 220,200,960; 25 x 140,492,800 =
 *   3,512,320,000; 56 + 1 norms x 4480 = 255,360; embeddings and untied lm_head 2 x 131072 x 4480 =
 *   1,174,405,120
 *   total 8,888,227,328 (the Hub page: 8.89B). */
START_TEST(nemotron_nano_9b_v2)
{
    llmmem_model *m = load("nemotron-nano-9b-v2.json");
    ck_assert_uint_eq(total(m), 8888227328ULL);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_SSM), 3981045888ULL);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_ATTENTION), 220200960ULL);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_MLP), 3512320000ULL);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_NORMS), 255360ULL);
    llmmem_model_free(m);
    m = preset("nemotron-nano-9b-v2");
    ck_assert_uint_eq(total(m), 8888227328ULL);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_SSM), 3981045888ULL);
    llmmem_model_free(m);
}
END_TEST

/* Qwen/Qwen3-Next-80B-A3B-Instruct (transformers models/qwen3_next/modeling_qwen3_next.py): 48
 * layers of 2048, full_attention_interval 4: layers 3, 7, ..., 47 (12) Qwen3NextAttention, the
 * other 36 Qwen3NextGatedDeltaNet; every layer a Qwen3NextSparseMoeBlock (decoder_sparse_step 1,
 * no mlp_only_layers) and two norms:
 *   attention: q_proj 16 x 256 x 2 (query and gate) x 2048 = 16,777,216; k, v 2 x 512 x 2048 =
 *     2,097,152; o_proj 2048 x 4096 = 8,388,608; q_norm, k_norm 512: 27,263,488
 *   Gated DeltaNet: key_dim 16 x 128 = 2,048, value_dim 32 x 128 = 4,096; in_proj_qkvz
 *     (2 x 2048 + 2 x 4096) x 2048 = 25,165,824; in_proj_ba 64 x 2048 = 131,072; conv1d
 *     (2 x 2048 + 4096) x 4 = 32,768 (no bias); dt_bias, A_log 64; norm 128; out_proj 2048 x 4096 =
 *     8,388,608: 33,718,464
 *   MoE: 512 experts x 3 x 512 x 2048 = 1,610,612,736; router 512 x 2048 = 1,048,576; shared
 *     expert 3 x 512 x 2048 = 3,145,728; shared_expert_gate 2,048: 1,614,809,088
 *   12 x 27,263,488 = 327,161,856; 36 x 33,718,464 = 1,213,864,704; 48 x 1,614,809,088 =
 *   77,510,836,224; norms 48 x 2 x 2048 + 2048 = 198,656; embeddings and untied lm_head
 *   2 x 151936 x 2048 = 622,329,856
 *   total 79,674,391,296 (the Hub page's 81.3B also holds the mtp.* tensors, not the model's).
 *   Active: 10 of the 512 experts, 48 x 10 x 3,145,728 = 1,509,949,440 in place of
 *   77,309,411,328: 3,874,929,408.
 * The checkpoint's one MTP layer (mtp_num_hidden_layers 1; vllm qwen3_next_mtp.py): a decoder layer
 * of the last layer's kind (full attention 27,263,488, MoE 1,614,809,088, two norms 4,096), fc
 * 2048 x 4096 = 8,388,608 and pre_fc_norm_embedding, pre_fc_norm_hidden, norm 3 x 2048 = 6,144, the
 * embedding and head shared (mtp_use_dedicated_embeddings false): 1,650,471,424; the checkpoint
 * 81,324,862,720, the Hub page's "81.3B" (no exact published figure found).
 */
START_TEST(qwen3_next_80b_a3b)
{
    llmmem_model *m = load("qwen3-next-80b-a3b-instruct.json");
    ck_assert_uint_eq(total(m), 79674391296ULL);
    uint64_t active = 0;
    ck_assert_ok(llmmem_model_active_parameters(&active, m));
    ck_assert_uint_eq(active, 3874929408ULL);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_SSM), 1213864704ULL);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_ATTENTION), 327161856ULL - 12ULL * 512);
    ck_assert_uint_eq(group(m, LLMMEM_PARAMS_MLP), 0);
    uint64_t stored = 0;
    ck_assert_ok(llmmem_model_checkpoint_parameters(&stored, m));
    ck_assert_uint_eq(stored, 79674391296ULL + 1650471424ULL);
    llmmem_model_free(m);
    m = preset("qwen3-next-80b-a3b");
    ck_assert_uint_eq(total(m), 79674391296ULL);
    ck_assert_ok(llmmem_model_checkpoint_parameters(&stored, m));
    ck_assert_uint_eq(stored, 79674391296ULL + 1650471424ULL);
    llmmem_model_free(m);
}
END_TEST

/* Until their state is costed in the generate loop, its estimate of a model with such layers is
 * refused; the paged KV size per token counts the attention layers alone; Megatron's contiguous cache holds the state
 * (llmmem_kv_cache_bytes) on one rank: 2 sequences of 1,000 tokens of Nemotron-Nano-9B-v2 take the
 * 179,634,176 bytes of contiguous_state below, and a tensor-parallel share of it is refused. */
START_TEST(state_not_modelled_is_refused)
{
    llmmem_model *m = preset("qwen3-next-80b-a3b");
    llmmem_strategy *s = NULL;
    llmmem_hardware *hw = NULL;
    llmmem_report *r = NULL;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_report_new(&r));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_FRAMEWORK, LLMMEM_FRAMEWORK_HF_TRAINER));
    ck_assert_status(llmmem_estimate(r, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_str_eq(llmmem_last_message(),
                     "the cache of a model with 0 Mamba-2 and 36 Gated DeltaNet layers is not modelled yet: the "
                     "conv and recurrent state each sequence keeps is not costed there (training, vLLM serving "
                     "and llmmem_kv_cache_bytes are)");
    uint64_t bytes = 0;
    ck_assert_ok(llmmem_kv_bytes_per_token(&bytes, m, s)); /* 12 attention layers x 2 x 2 x 256 x 2 B */
    ck_assert_uint_eq(bytes, 12ULL * 2048);
    llmmem_model_free(m);
    m = preset("nemotron-nano-9b-v2");
    llmmem_strategy_free(s);
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MICRO_BATCH_SIZE, 2));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_SEQUENCE_LENGTH, 1000));
    ck_assert_ok(llmmem_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_report_bytes(r, LLMMEM_COMPONENT_KV_CACHE), 179634176ULL);
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_TENSOR_PARALLEL, 2));
    ck_assert_ok(llmmem_hardware_set_int(hw, LLMMEM_KEY_DEVICES_PER_NODE, 8));
    ck_assert_status(llmmem_estimate(r, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    llmmem_report_free(r);
    llmmem_hardware_free(hw);
    llmmem_strategy_free(s);
    llmmem_model_free(m);
}
END_TEST

/* layer_types names the new mixers; a Mamba-2 layer without its keys, or an MoE block in a
 * hybrid_override_pattern, is refused by name. */
START_TEST(layer_types_and_patterns)
{
    llmmem_model *m = preset("llama-3.2-1b");
    ck_assert_ok(llmmem_model_set_layer_types(m, "mamba,full_attention,full_attention,full_attention,"
                                                 "full_attention,full_attention,full_attention,full_attention,"
                                                 "full_attention,full_attention,full_attention,full_attention,"
                                                 "full_attention,full_attention,full_attention,full_attention"));
    uint64_t n = 0;
    ck_assert_status(llmmem_model_total_parameters(&n, m), LLMMEM_ERR_INCOMPLETE);
    ck_assert_str_eq(llmmem_last_message(), "model llama: mamba_num_heads is not set");
    llmmem_model_free(m);

    char why[512];
    llmmem__layer_map map;
    ck_assert_int_eq(llmmem__layer_map_from_pattern(&map, "M-*", 3, 0, why, sizeof why), 1);
    ck_assert_uint_eq(map.layers, 3);
    ck_assert_int_eq(map.mixer[0], LLMMEM_MIXER_SSM);
    ck_assert_int_eq(map.ffn[0], 1 + LLMMEM_FFN_NONE);
    ck_assert_int_eq(map.mixer[1], LLMMEM_MIXER_NONE);
    ck_assert_int_eq(map.ffn[1], 1 + LLMMEM_FFN_DENSE);
    ck_assert_int_eq(map.mixer[2], LLMMEM_MIXER_FULL);
    ck_assert_int_eq(map.ffn[2], 1 + LLMMEM_FFN_NONE);
    /* Nemotron 3's MoE block (issue 33): no mixer, the experts */
    ck_assert_int_eq(llmmem__layer_map_from_pattern(&map, "ME", 2, 0, why, sizeof why), 1);
    ck_assert_int_eq(map.mixer[1], LLMMEM_MIXER_NONE);
    ck_assert_int_eq(map.ffn[1], 1 + LLMMEM_FFN_MOE);
    ck_assert_int_eq(llmmem__layer_map_from_pattern(&map, "MX", 2, 0, why, sizeof why), 0);
    ck_assert_str_eq(why, "character 1 ('X') is not a modelled block (M mamba, * attention, - mlp and E moe are)");
}
END_TEST

static uint64_t contiguous(const char *name, uint64_t sequences, uint64_t tokens)
{
    llmmem_model *m = preset(name);
    llmmem_strategy *s = NULL;
    uint64_t bytes = 0;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_kv_cache_bytes(&bytes, m, s, sequences, tokens));
    llmmem_strategy_free(s);
    llmmem_model_free(m);
    return bytes;
}

/* The contiguous caches of transformers generate, bf16 models:
 *   Nemotron-Nano-9B-v2 (the Nemotron-H hybrid cache: keys and values of the attention layers,
 *   conv and SSM state of the mamba ones, none for MLP blocks), 2 sequences of 1,000 tokens:
 *     attention 4 layers x 1,000 x 2 (K, V) x 8 heads x 128 x 2 B x 2 = 32,768,000; state
 *     (conv_dim 12,288 x conv_kernel 4 + 128 x 80 x 128) x 2 B = 2,719,744 a layer, x 27 x 2 =
 *     146,866,176: 179,634,176
 *   Qwen3-Next-80B-A3B (Qwen3NextDynamicCache), 1 sequence of 4,096 tokens: attention 12 x 4,096 x
 *     2 x 2 x 256 x 2 B = 100,663,296; Gated DeltaNet conv (2 x 2,048 + 4,096) x 4 x 2 B = 65,536 and
 *     recurrent state 32 x 128 x 128 x 4 B (float32) = 2,097,152, x 36 = 77,856,768: 178,520,064
 *   Mamba-Codestral-7B (Mamba2Cache), 1 sequence: (10,240 x 4 + 128 x 64 x 128) x 2 B = 2,179,072
 *     x 64 layers = 139,460,608, whatever the tokens. */
START_TEST(contiguous_state)
{
    ck_assert_uint_eq(contiguous("nemotron-nano-9b-v2", 2, 1000), 179634176ULL);
    ck_assert_uint_eq(contiguous("qwen3-next-80b-a3b", 1, 4096), 178520064ULL);
    ck_assert_uint_eq(contiguous("mamba-codestral-7b", 1, 10), 139460608ULL);
    ck_assert_uint_eq(contiguous("mamba-codestral-7b", 1, 100000), 139460608ULL);
    ck_assert_uint_eq(contiguous("mamba-codestral-7b", 0, 10), 0);
}
END_TEST

/* Training a Mamba-2 model: one layer's saved tensors (activations.c mamba2_saves), state-spaces
 * mamba2-130m (h 768, inner 1536, 24 heads, 1 group, state 128: conv_dim 1536 + 256 = 1,792,
 * in_proj width 1536 + 1792 + 24 = 3,352), 1 sequence of 2,048 tokens in bf16, Megatron's norm
 * accounting (the norm's input alone):
 *   Mamba2RMSNorm input 2,048 x 768 x 2 = 3,145,728; in_proj input 3,145,728; exp(A_log) 24 x 4 = 96
 *   MambaSplitConv1dScanCombinedFn: zxbcdt 2,048 x 3,352 x 2 = 13,729,792; out_x 2,048 x 1,536 x 2 =
 *   6,291,456; rstd 2,048 x 1 group x 4 = 8,192
 *   26,320,992 a layer; under full recomputation the layer's input 3,145,728. */
START_TEST(training_mamba2_layer)
{
    llmmem_model *m = preset("mamba2-130m");
    llmmem_strategy *s = NULL;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MODE, LLMMEM_MODE_TRAINING));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_SEQUENCE_LENGTH, 2048));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MICRO_BATCH_SIZE, 1));
    llmmem__act_stage stage = {.first = 0, .end = 24, .has_embedding = 1, .has_head = 1, .in_flight_num = 1,
                               .in_flight_den = 1, .loss_in_flight = 1, .t = 1, .et = 1, .c = 1};
    llmmem__act_kinds k;
    ck_assert_ok(llmmem__activation_kinds(&k, m, s, LLMMEM_FORMAT_BF16, &stage));
    ck_assert_uint_eq(k.dense, 26320992ULL);
    ck_assert_uint_eq(k.dense_full, 26320992ULL);
    ck_assert_uint_eq(k.input, 3145728ULL);
    ck_assert_uint_eq(k.backward, 0);
    /* the whole estimate runs for a model of Mamba-2 blocks alone; LoRA on them is refused */
    llmmem_hardware *hw = NULL;
    llmmem_report *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_report_new(&r));
    ck_assert_ok(llmmem_estimate(r, m, hw, s));
    ck_assert_uint_ge(llmmem_report_bytes(r, LLMMEM_COMPONENT_ACTIVATIONS), 24ULL * 26320992ULL);
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MODE, LLMMEM_MODE_LORA));
    ck_assert_status(llmmem_estimate(r, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MODE, LLMMEM_MODE_INFERENCE));
    ck_assert_ok(llmmem_estimate(r, m, hw, s)); /* Megatron's contiguous cache: the state, no tokens */
    ck_assert_uint_eq(llmmem_report_bytes(r, LLMMEM_COMPONENT_KV_CACHE), 24ULL * (1792 * 4 + 24 * 64 * 128) * 2);
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_FRAMEWORK, LLMMEM_FRAMEWORK_HF_TRAINER));
    ck_assert_status(llmmem_estimate(r, m, hw, s), LLMMEM_ERR_UNSUPPORTED); /* the generate loop */
    llmmem_report_free(r);
    llmmem_hardware_free(hw);
    llmmem_strategy_free(s);
    llmmem_model_free(m);
}
END_TEST

/* Training Nemotron-Nano-9B-v2 (hybrid blocks, each a norm and one mixer), 1 sequence of 1,024
 * tokens in bf16, Megatron's norm accounting:
 *   Mamba-2 block: norm input 1,024 x 4,480 x 2 = 9,175,040; in_proj input 9,175,040; exp(A_log)
 *     128 x 4 = 512; zxbcdt 1,024 x 22,656 x 2 = 46,399,488; out_x 1,024 x 10,240 x 2 = 20,971,520;
 *     rstd 1,024 x 8 groups x 4 = 32,768: 85,754,368
 *   MLP block (NemotronHMLP, relu2 between up_proj and down_proj): norm input 9,175,040; up_proj
 *     input 9,175,040; relu's output (which square reads) and down_proj's input 2 x 1,024 x 15,680 x
 *     2 = 64,225,280: 82,575,360
 *   the attention blocks save what an attention layer without MLP does; the layers together
 *   27 x 85,754,368 + 25 x 82,575,360 + 4 x the attention block. */
START_TEST(training_nemotron_h)
{
    llmmem_model *m = preset("nemotron-nano-9b-v2");
    llmmem_strategy *s = NULL;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MODE, LLMMEM_MODE_TRAINING));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_SEQUENCE_LENGTH, 1024));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MICRO_BATCH_SIZE, 1));
    llmmem__act_stage stage = {.first = 0, .end = 56, .has_embedding = 1, .has_head = 1, .in_flight_num = 1,
                               .in_flight_den = 1, .loss_in_flight = 1, .t = 1, .et = 1, .c = 1};
    llmmem__act_kinds k;
    ck_assert_ok(llmmem__activation_kinds(&k, m, s, LLMMEM_FORMAT_BF16, &stage));
    ck_assert_int_eq(k.hybrid, 1);
    uint64_t mamba = 0, mlp = 0, attention = 0;
    for (unsigned i = 0; i < m->geo.plan.n; i++) {
        if (m->geo.plan.kind[i].mixer == LLMMEM_MIXER_SSM)
            mamba = k.kind[i];
        else if (m->geo.plan.kind[i].mixer == LLMMEM_MIXER_NONE)
            mlp = k.kind[i];
        else
            attention = k.kind[i];
    }
    ck_assert_uint_eq(mamba, 85754368ULL);
    ck_assert_uint_eq(mlp, 82575360ULL);
    ck_assert_uint_gt(attention, 0);
    uint64_t held = 0;
    ck_assert_ok(llmmem__layers_held(&held, m, s, &k, &stage, 56));
    ck_assert_uint_eq(held, 27ULL * 85754368ULL + 25ULL * 82575360ULL + 4ULL * attention);
    llmmem_hardware *hw = NULL;
    llmmem_report *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_report_new(&r));
    ck_assert_ok(llmmem_estimate(r, m, hw, s));
    ck_assert_uint_ge(llmmem_report_bytes(r, LLMMEM_COMPONENT_ACTIVATIONS), held);
    llmmem_report_free(r);
    llmmem_hardware_free(hw);
    llmmem_strategy_free(s);
    llmmem_model_free(m);
}
END_TEST

/* Training a Gated DeltaNet layer: Qwen3-Next-80B-A3B with its MoE replaced by the dense MLP of
 * intermediate_size 5,120 (num_experts 0), 1 sequence of 1,024 tokens in bf16, Megatron's norm
 * accounting; a linear_attention layer (Qwen3NextGatedDeltaNet, key_dim 16 x 128 = 2,048,
 * value_dim 32 x 128 = 4,096, 32 value heads):
 *   input norm 1,024 x 2,048 x 2 = 4,194,304; in_proj_qkvz / in_proj_ba input 4,194,304
 *   causal_conv1d input 1,024 x (2 x 2,048 + 4,096) x 2 = 16,777,216; beta 1,024 x 32 x 2 = 65,536;
 *   exp(A_log) and its negation 2 x 32 x 4 = 256; softplus input and output 2 x 1,024 x 32 x 4 =
 *   262,144
 *   chunk_gated_delta_rule: q, k 2 x 1,024 x 32 x 128 x 2 = 16,777,216; q_rstd, k_rstd 2 x 1,024 x 32
 *   x 4 = 262,144; v 1,024 x 4,096 x 2 = 8,388,608; g 1,024 x 32 x 4 = 131,072; A 1,024 x 32 x 64 x 2 =
 *   4,194,304
 *   gated norm: input and z 2 x 8,388,608; rstd 131,072; out_proj input 8,388,608
 *   mixer 80,544,000; the MLP block: its norm 4,194,304, gate/up input 4,194,304, gate and up
 *   outputs, the SiLU output and down_proj's input 4 x 1,024 x 5,120 x 2 = 41,943,040: 50,331,648
 *   130,875,648 a layer. */
START_TEST(training_gated_deltanet_layer)
{
    llmmem_model *m = preset("qwen3-next-80b-a3b");
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_EXPERTS, 0));
    llmmem_strategy *s = NULL;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MODE, LLMMEM_MODE_TRAINING));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_SEQUENCE_LENGTH, 1024));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MICRO_BATCH_SIZE, 1));
    llmmem__act_stage stage = {.first = 0, .end = 48, .has_embedding = 1, .has_head = 1, .in_flight_num = 1,
                               .in_flight_den = 1, .loss_in_flight = 1, .t = 1, .et = 1, .c = 1};
    llmmem__act_kinds k;
    ck_assert_ok(llmmem__activation_kinds(&k, m, s, LLMMEM_FORMAT_BF16, &stage));
    ck_assert_int_eq(k.hybrid, 1);
    uint64_t gdn = 0, attention = 0;
    for (unsigned i = 0; i < m->geo.plan.n; i++)
        if (m->geo.plan.kind[i].mixer == LLMMEM_MIXER_LINEAR)
            gdn = k.kind[i];
        else
            attention = k.kind[i];
    ck_assert_uint_eq(gdn, 130875648ULL);
    uint64_t held = 0;
    ck_assert_ok(llmmem__layers_held(&held, m, s, &k, &stage, 48));
    ck_assert_uint_eq(held, 36ULL * 130875648ULL + 12ULL * attention);
    llmmem_strategy_free(s);
    llmmem_model_free(m);
}
END_TEST

/* One vLLM serving estimate of a preset on an H100 with a fixed KV budget (kv_cache_memory_bytes:
 * vLLM skips the profile, so the numbers below are the cache's alone) and --no-enable-prefix-caching
 * (vLLM turns it off for these models either way). */
static llmmem_serving *serve(const char *name, int64_t tp, int64_t budget, int64_t ssm_dtype, int64_t max_len)
{
    llmmem_model *m = preset(name);
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_serving *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_TENSOR_PARALLEL, tp));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, budget));
    /* the figures below follow vLLM's two-line report (kv_cache_utils.py _report_kv_cache_config:
     * "GPU KV cache size" = num_blocks // groups x block_size), the releases before the one-line one */
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_ENGINE_VERSION, LLMMEM_ENGINE_VERSION_VLLM_0_21));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MAMBA_SSM_CACHE_DTYPE, ssm_dtype));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_ENABLE_PREFIX_CACHING, 0));
    if (max_len)
        ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MAX_MODEL_LEN, max_len));
    ck_assert_ok(llmmem_serving_new(&r));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
    return r;
}

/* nvidia/NVIDIA-Nemotron-Nano-9B-v2 under `vllm serve --mamba-ssm-cache-dtype float32` (its model
 * card's setting), tensor_parallel 1, 20 GiB (21,474,836,480 B) of KV cache, bf16 model:
 *   mamba_utils.py mamba2_state_shape: n_groups 8 (tp divides it: no extra groups), conv_dim =
 *     128 x 80 + 2 x 8 x 128 = 12,288; conv state (4 - 1) x 12,288 = 36,864 elements; SSM state
 *     128 x 80 x 128 = 1,310,720 elements
 *   MambaStateDtypeCalculator._mamba_state_dtype: conv in mamba_cache_dtype auto = bf16 (2 B), SSM in
 *     float32 (4 B)
 *   kv_cache_interface.py MambaSpec.page_size_bytes: 36,864 x 2 + 1,310,720 x 4 = 5,316,608
 *   FullAttentionSpec(block_size=1).page_size_bytes: 2 x 8 KV heads x 128 x 2 B = 4,096
 *   models/config.py HybridAttentionMambaModelConfig: attn_block_size = 16 x cdiv(5,316,608,
 *     16 x 4,096) = 16 x 82 = 1,312 > block_size 16, so block_size = 1,312; attention page 1,312 x
 *     4,096 = 5,373,952; the mamba page padded to it (57,344 B of padding)
 *   kv_cache_utils.py _get_kv_cache_groups_uniform_page_size: 4 attention and 27 mamba layers; 27 is
 *     not under 1.5 x 4, so group_size 4: 1 attention group, cdiv(27, 4) = 7 mamba groups (one
 *     padding layer): 8 groups
 *   get_num_blocks: 21,474,836,480 // 5,373,952 // 4 = 999
 *   _report_kv_cache_config: "GPU KV cache size" 999 // 8 x 1,312 = 162,688 tokens
 *   get_max_concurrency_for_kv_cache_config at max_model_len 131,072: per request the attention
 *     group's cdiv(131,072, 1,312) = 100 blocks (FullAttentionSpec.max_memory_usage_bytes) and one
 *     page for each of the 7 mamba groups (MambaSpec.max_memory_usage_bytes, mamba_cache_mode
 *     none): 107; 999 / 107 = 9.34x; 9 whole requests
 *   state of one sequence: 27 x 5,316,608 = 143,548,416 B; KV per token 4 x 4,096 = 16,384 B
 *   waste of a request of 131,072 tokens: the attention group's last block (100 x 1,312 - 131,072 =
 *     128 tokens x 4,096 B x 4 layers = 2,097,152) and its 7 x 4 state pages (150,470,656) less the
 *     state (143,548,416): 9,019,392. */
START_TEST(serving_nemotron_h)
{
    llmmem_serving *r = serve("nemotron-nano-9b-v2", 1, 21474836480LL, 1 /* float32 */, 0);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_STATE_PAGE_BYTES), 5316608);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_STATE_BYTES_PER_SEQUENCE), 143548416);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BYTES_PER_TOKEN), 16384);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BLOCK_SIZE), 1312);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_PAGE_BYTES), 5373952);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_LAYERS_PER_GROUP), 4);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_GROUPS), 8);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_STATE_GROUPS), 7);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_NUM_BLOCKS), 999);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_TOKENS), 162688);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BLOCKS_PER_REQUEST), 107);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_VLLM_CONCURRENCY_X100), 934);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_MAX_CONCURRENCY), 9);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_WASTE_BYTES), 9019392);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_FITS), 1);
    llmmem_serving_free(r);
}
END_TEST

/* The profile run of nvidia/NVIDIA-Nemotron-Nano-9B-v2 in vLLM's defaults (no kv_cache_memory_bytes,
 * no profile_activation_bytes), tensor_parallel 1, bf16 (2 B): a forward of max_num_batched_tokens
 * 8,192 tokens (the library's resolution of vLLM's default for this model and GPU). The run has no
 * attention metadata, so mamba_mixer2.py takes conv_ssm_forward's profile branch and the SSD kernels
 * (ops/ssd_*.py) allocate nothing. Per token, in a Mamba-2 layer (hidden 4480, 128 heads of 80:
 * inner I = 10,240; 8 groups x state 128: conv C = 10,240 + 2,048 = 12,288; dt 128):
 *   projected_states (in_proj) I + C + 128 = 22,656 and ssm_output I = 10,240: 32,896 held
 *   conv_ssm_forward's clone and its contiguous copy, 2 x C = 24,576: 57,472 elements = 114,944 B
 *   Mixer2RMSNormGated.forward_native (8 groups): two fp32 copies of I, 8 x 10,240 = 81,920 B beside
 *     the 32,896 held (65,792 B): 147,712 B   <- the peak
 *   norm output I and out_proj output 4,480 beside the held: 47,616 elements = 95,232 B
 *   plus the residual and normed input 2 x 4,480 x 2 = 17,920 B: 165,632 B per token
 * The other layers stay below it: the MLP (relu2, 15,680) 2 x 4,480 + 2 x 15,680 = 40,320 elements =
 * 80,640 B; attention (40 query, 8 KV heads of 128) 2 x 4,480 + (40 + 16) x 128 + 40 x 128 = 21,248
 * elements. Layers: 165,632 x 8,192 = 1,356,857,344 B. The sampler run (last stage): 8,192 x 4,480
 * x 2 + min(1,024, 8,192) x 131,072 vocab x (2 + 4) = 73,400,320 + 805,306,368 = 878,706,688 B,
 * less. Activation peak: 1,356,857,344 B. */
START_TEST(profile_run_nemotron_h)
{
    llmmem_model *m = preset("nemotron-nano-9b-v2");
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_serving *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_serving_new(&r));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_MAX_NUM_BATCHED_TOKENS), 8192);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_ACTIVATION_PEAK), 1356857344ULL);
    llmmem_serving_free(r);
    llmmem_strategy_free(s);
    llmmem_model_free(m);
    /* Gated DeltaNet's working set is modelled (issue 33; test_families_hybrid.c qwen3_5_profile_peak derives
     * its layer): Qwen3-Next at tensor_parallel 4, h 2048, the MoE layer's 2 x 2048 + 10 x (3 x 128 + 2048) +
     * 2048 = 30,464 elements a token x 8,192 x 2 = 499,122,176 B stays below the sampler's 8,192 x 2048 x 2 +
     * 1,024 x 151,936 x (2 + 4) = 967,049,216 B. Mamba-1's is not modelled: still refused, naming it. */
    m = preset("qwen3-next-80b-a3b");
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_TENSOR_PARALLEL, 4));
    ck_assert_ok(llmmem_serving_new(&r));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_ACTIVATION_PEAK), 967049216ULL);
    llmmem_model_free(m);
    m = preset("jamba-v0.1");
    ck_assert_int_eq(llmmem_serving_estimate(r, m, hw, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "Mamba-1 layers is not modelled"));
    llmmem_serving_free(r);
    llmmem_strategy_free(s);
    llmmem_model_free(m);
    llmmem_hardware_free(hw);
}
END_TEST

/* Qwen/Qwen3-Next-80B-A3B-Instruct under vLLM, tensor_parallel 4, bf16 states (both mamba dtypes
 * auto), 10 GiB (10,737,418,240 B) of KV cache per rank:
 *   mamba_utils.py gated_delta_net_state_shape: conv (4 - 1) x (2 x 16 x 128 + 32 x 128) / 4 =
 *     6,144 elements; recurrent state 32 / 4 x 128 x 128 = 131,072 elements
 *   gated_delta_net_state_dtype -> _mamba_state_dtype: both bf16 (2 B)
 *   MambaSpec.page_size_bytes: (6,144 + 131,072) x 2 = 274,432
 *   FullAttentionSpec(block_size=1): max(1, 2 KV heads // 4) = 1 head: 2 x 1 x 256 x 2 B = 1,024
 *   HybridAttentionMambaModelConfig: 16 x cdiv(274,432, 16 x 1,024) = 16 x 17 = 272 tokens a block;
 *     page 272 x 1,024 = 278,528
 *   _get_kv_cache_groups_uniform_page_size: 12 attention and 36 Gated DeltaNet layers: group_size 12,
 *     1 + 3 = 4 groups
 *   get_num_blocks: 10,737,418,240 // 278,528 // 12 = 3,212; GPU KV cache size 3,212 // 4 x 272 =
 *     218,416 tokens
 *   concurrency at max_model_len 262,144: cdiv(262,144, 272) = 964 + 3 = 967 blocks a request;
 *     3,212 / 967 = 3.32x; 3 whole requests
 *   state of one sequence: 36 x 274,432 = 9,879,552 B; KV per token 12 x 1,024 = 12,288 B
 *   waste at 262,144 tokens: (964 x 272 - 262,144) = 64 tokens x 1,024 B x 12 layers = 786,432 and
 *     3 x 12 x 278,528 - 9,879,552 = 147,456 of padded pages: 933,888. */
START_TEST(serving_qwen3_next)
{
    llmmem_serving *r = serve("qwen3-next-80b-a3b", 4, 10737418240LL, 0 /* auto */, 0);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_STATE_PAGE_BYTES), 274432);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_STATE_BYTES_PER_SEQUENCE), 9879552);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BYTES_PER_TOKEN), 12288);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BLOCK_SIZE), 272);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_PAGE_BYTES), 278528);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_GROUPS), 4);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_STATE_GROUPS), 3);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_NUM_BLOCKS), 3212);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_TOKENS), 218416);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BLOCKS_PER_REQUEST), 967);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_VLLM_CONCURRENCY_X100), 332);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_MAX_CONCURRENCY), 3);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_WASTE_BYTES), 933888);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_MAX_MODEL_LEN), 262144);
    llmmem_serving_free(r);
}
END_TEST

/* A public vLLM log of Qwen3-Next-80B-A3B-Instruct with an fp8 KV cache (a docker-compose log of
 * `vllm serve` quoted in a public repository) prints "Hybrid or mamba-based model detected without
 * support for prefix caching: disabling." and "Setting attention block size to 1072 tokens to ensure
 * that attention page size is >= mamba page size.". By hand, tensor_parallel 1 (and 2: both pages
 * halve):
 *   mamba page: conv 3 x (2 x 16 x 128 + 32 x 128) = 24,576 and recurrent 32 x 128 x 128 = 524,288
 *     elements in bf16 (mamba dtypes auto: the model's): 1,097,728 B
 *   attention page of one token in fp8: 2 x 2 KV heads x 256 x 1 B = 1,024
 *   16 x cdiv(1,097,728, 16 x 1,024) = 16 x 67 = 1,072 tokens.
 * Prefix caching is off whether asked for or not, as the log says. */
START_TEST(serving_qwen3_next_public_log)
{
    for (int64_t tp = 1; tp <= 2; tp++) {
        for (int ask = 0; ask < 2; ask++) {
            llmmem_model *m = preset("qwen3-next-80b-a3b");
            llmmem_hardware *hw = NULL;
            llmmem_strategy *s = NULL;
            llmmem_serving *r = NULL;
            ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
            ck_assert_ok(llmmem_strategy_new(&s));
            ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_TENSOR_PARALLEL, tp));
            ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MAX_MODEL_LEN, 32768));
            ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_KV_CACHE_DTYPE, LLMMEM_KV_CACHE_FP8));
            ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 10737418240LL));
            if (ask) /* --enable-prefix-caching: vLLM disables it all the same */
                ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_ENABLE_PREFIX_CACHING, 1));
            ck_assert_ok(llmmem_serving_new(&r));
            ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
            ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_STATE_PAGE_BYTES), 1097728 / (uint64_t)tp);
            ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BLOCK_SIZE), 1072);
            llmmem_serving_free(r);
            llmmem_strategy_free(s);
            llmmem_hardware_free(hw);
            llmmem_model_free(m);
        }
    }
}
END_TEST

/* mistralai/Mamba-Codestral-7B-v0.1 under vLLM, tensor_parallel 1, bf16, max_model_len 32,768, 10 GiB:
 * no attention layer, so one group of the 64 mamba layers (_get_kv_cache_groups_uniform_type)
 * whose block holds a sequence's state (MambaModelConfig: mamba_block_size = max_model_len):
 *   conv (4 - 1) x (8,192 + 2 x 8 x 128) = 30,720 elements, SSM 128 x 64 x 128 = 1,048,576: page
 *   (30,720 + 1,048,576) x 2 = 2,158,592 B; blocks 10,737,418,240 // 2,158,592 // 64 = 77 sequences;
 *   GPU KV cache size 77 x 32,768 = 2,523,136 tokens; concurrency 77 / 1 = 77.00x. */
START_TEST(serving_mamba2)
{
    llmmem_serving *r = serve("mamba-codestral-7b", 1, 10737418240LL, 0, 32768);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_STATE_PAGE_BYTES), 2158592);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_PAGE_BYTES), 2158592);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_NUM_BLOCKS), 77);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_GROUPS), 1);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_TOKENS), 2523136);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_VLLM_CONCURRENCY_X100), 7700);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_MAX_CONCURRENCY), 77);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BYTES_PER_TOKEN), 0);
    llmmem_serving_free(r);
}
END_TEST

/* vllm mamba_mixer2.py MambaMixer2.__init__ asserts n_groups % tp_size == 0 or n_groups == 1: Mamba-Codestral's 8
 * groups (config.json n_groups) over 16 ranks stop the engine though its 128 heads divide; 8 ranks serve. */
START_TEST(serving_mamba2_groups_over_ranks)
{
    llmmem_model *m = preset("mamba-codestral-7b");
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_serving *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_serving_new(&r));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_TENSOR_PARALLEL, 16));
    ck_assert_status(llmmem_serving_estimate(r, m, hw, s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_str_eq(llmmem_last_message(), "mamba_n_groups (8) is neither 1 nor divisible by tensor_parallel (16): "
                                            "MambaMixer2 asserts one or the other (vLLM's and SGLang's port)");
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_TENSOR_PARALLEL, 8));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    llmmem_serving_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
}
END_TEST

/* A state of 2^20 heads x 2^20 wide x state 2^24, each within its key's bounds, is 2^64 elements: it wrapped to a
 * page of the conv state alone (vLLM) and a wrong contiguous cache; both are refused now. */
START_TEST(state_overflow)
{
    llmmem_model *m = preset("mamba2-130m");
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_serving *r = NULL;
    uint64_t bytes = 0;
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_MAMBA_NUM_HEADS, 1048576));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_MAMBA_HEAD_DIM, 1048576));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_SSM_STATE_SIZE, 16777216));
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 1000000000));
    ck_assert_ok(llmmem_serving_new(&r));
    ck_assert_status(llmmem_serving_estimate(r, m, hw, s), LLMMEM_ERR_OVERFLOW);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "mamba_num_heads 1048576 x mamba_head_dim 1048576 x "
                                                        "ssm_state_size 16777216) exceed 64 bits"));
    ck_assert_status(llmmem_kv_cache_bytes(&bytes, m, s, 1, 10), LLMMEM_ERR_OVERFLOW);
    llmmem_serving_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mixer_mamba2_gdn");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, mamba2_codestral);
    tcase_add_test(tc, serving_mamba2_groups_over_ranks);
    tcase_add_test(tc, mamba2_state_spaces);
    tcase_add_test(tc, catalog_patterns);
    tcase_add_test(tc, config_refusals);
    tcase_add_test(tc, checkpoint_groups);
    tcase_add_test(tc, nemotron_nano_9b_v2);
    tcase_add_test(tc, qwen3_next_80b_a3b);
    tcase_add_test(tc, state_not_modelled_is_refused);
    tcase_add_test(tc, layer_types_and_patterns);
    tcase_add_test(tc, serving_nemotron_h);
    tcase_add_test(tc, profile_run_nemotron_h);
    tcase_add_test(tc, serving_qwen3_next);
    tcase_add_test(tc, serving_qwen3_next_public_log);
    tcase_add_test(tc, serving_mamba2);
    tcase_add_test(tc, state_overflow);
    tcase_add_test(tc, contiguous_state);
    tcase_add_test(tc, training_mamba2_layer);
    tcase_add_test(tc, training_nemotron_h);
    tcase_add_test(tc, training_gated_deltanet_layer);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
