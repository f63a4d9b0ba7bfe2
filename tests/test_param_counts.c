/* Parameter counts of the catalog's models against the counts their publishers give.
 *
 * Every expected value below comes from a public source named next to it, or from a
 * derivation written out here by hand from config.json; none is copied from this
 * library's output. Where a checkpoint's stored element count includes things that are not
 * parameters of the model (rotary inv_freq buffers, causal-mask buffers, a tied head stored
 * twice, fp8 scales, a multi-token-prediction module), the adjustment is written out. */
#include <ctype.h>
#include <inttypes.h>
#include <string.h>

#include "unit.h"

static llmmem_model *load(const char *name)
{
    llmmem_model *m = NULL;
    ck_assert_ok(llmmem_model_from_preset(&m, name));
    ck_assert_ptr_nonnull(m);
    return m;
}

static void expect_total(const char *name, uint64_t expected)
{
    llmmem_model *m = load(name);
    uint64_t n = 0;
    ck_assert_ok(llmmem_model_total_parameters(&n, m));
    ck_assert_msg(n == expected, "%s: total parameters %" PRIu64 ", expected %" PRIu64 " (off by %" PRId64 ")",
                  name, n, expected, (int64_t)(n - expected));
    llmmem_model_free(m);
}

static void expect_active(const char *name, uint64_t expected)
{
    llmmem_model *m = load(name);
    uint64_t n = 0;
    ck_assert_ok(llmmem_model_active_parameters(&n, m));
    ck_assert_msg(n == expected, "%s: active parameters %" PRIu64 ", expected %" PRIu64 " (off by %" PRId64 ")",
                  name, n, expected, (int64_t)(n - expected));
    llmmem_model_free(m);
}

static void expect_group(const char *name, llmmem_param_group group, uint64_t expected)
{
    llmmem_model *m = load(name);
    uint64_t n = 0;
    ck_assert_ok(llmmem_model_parameters(&n, m, group));
    ck_assert_msg(n == expected, "%s: %s parameters %" PRIu64 ", expected %" PRIu64, name,
                  llmmem_param_group_name(group), n, expected);
    llmmem_model_free(m);
}

/* ---- the catalog itself --------------------------------------------------- */

/* Presets hold architectures only: no parameter count, a family and a dtype each, unique
 * lower-case names. */
START_TEST(catalog_is_architecture_only)
{
    ck_assert_uint_gt(llmmem__model_preset_total, 0);
    for (size_t i = 0; i < llmmem__model_preset_total; i++) {
        const llmmem__preset *p = &llmmem__model_presets[i];
        int has_type = 0, has_dtype = 0;
        for (const llmmem__preset_value *v = p->values; v->key != LLMMEM_KEY_NONE; v++) {
            ck_assert_msg(v->key != LLMMEM_KEY_NUM_PARAMETERS, "preset %s stores a parameter count", p->name);
            has_type |= v->key == LLMMEM_KEY_MODEL_TYPE;
            has_dtype |= v->key == LLMMEM_KEY_TORCH_DTYPE;
        }
        ck_assert_msg(has_type, "preset %s has no model_type", p->name);
        ck_assert_msg(has_dtype, "preset %s has no torch_dtype", p->name);
        for (const char *c = p->name; *c; c++)
            ck_assert_msg(!isupper((unsigned char)*c), "preset name %s is not lower-case", p->name);
        for (size_t j = 0; j < i; j++)
            ck_assert_msg(strcmp(p->name, llmmem__model_presets[j].name) != 0, "preset %s listed twice", p->name);
    }
}
END_TEST

/* ---- GPT-2 ---------------------------------------------------------------- */

START_TEST(gpt2)
{
    /* KerasHub gpt2_presets.py: gpt2_base_en "params": 124439808. By hand (n_embd 768, 12 layers,
     * vocab 50257, n_positions 1024, tied head): */
    const uint64_t h = 768, f = 3072, L = 12;
    expect_group("gpt2", LLMMEM_PARAMS_EMBEDDING, 50257 * h);          /* 38,597,376 */
    expect_group("gpt2", LLMMEM_PARAMS_POSITIONS, 1024 * h);           /* 786,432 */
    expect_group("gpt2", LLMMEM_PARAMS_ATTENTION, L * (4 * h * h + 4 * h)); /* c_attn + c_proj, biased */
    expect_group("gpt2", LLMMEM_PARAMS_MLP, L * (2 * f * h + f + h));  /* c_fc + c_proj, biased */
    expect_group("gpt2", LLMMEM_PARAMS_NORMS, (2 * L + 1) * 2 * h);    /* ln_1, ln_2, ln_f */
    expect_group("gpt2", LLMMEM_PARAMS_LM_HEAD, 0);                    /* tied to wte */
    expect_total("gpt2", 124439808);
}
END_TEST

START_TEST(gpt2_medium)
{
    /* KerasHub gpt2_presets.py: gpt2_medium_en "params": 354823168 */
    expect_total("gpt2-medium", 354823168);
}
END_TEST

START_TEST(gpt2_large)
{
    /* KerasHub gpt2_presets.py: gpt2_large_en "params": 774030080 */
    expect_total("gpt2-large", 774030080);
}
END_TEST

START_TEST(gpt2_xl)
{
    /* KerasHub gpt2_presets.py: gpt2_extra_large_en "params": 1557611200 */
    expect_total("gpt2-xl", 1557611200);
}
END_TEST

/* ---- OPT, BLOOM, Pythia, Falcon ---------------------------------------------- */

START_TEST(opt_1_3b)
{
    /* facebook/opt-1.3b: sum of numel() over model.parameters() printed as "[pre-lora] num params:
     * 1315758080" in DeepSpeed-Chat's (microsoft/DeepSpeedExamples) feature-selection script, whose
     * default model is facebook/opt-1.3b. Cross-check: KerasHub opt_presets.py opt_1.3b_en
     * "params": 1315753984, whose position table has 2048 rows instead of Hugging Face's 2050. */
    expect_group("opt-1.3b", LLMMEM_PARAMS_POSITIONS, (2048 + 2) * 2048ULL);
    expect_total("opt-1.3b", 1315758080);
    expect_total("opt-1.3b", 1315753984ULL + 2 * 2048);
}
END_TEST

START_TEST(bloom_560m)
{
    /* KerasHub bloom_presets.py: bloom_560m_multi "params": 559214592; also huggingface_hub's
     * test_get_safetensors_metadata_single_file: bigscience/bloomz-560m (same architecture)
     * parameter_count == {"F16": 559214592} over 293 tensors, so no tensor is stored twice. */
    /* word_embeddings_layernorm + 24 x (input, post_attention) + ln_f, each weight and bias */
    expect_group("bloom-560m", LLMMEM_PARAMS_NORMS, (1 + 2 * 24 + 1) * 2 * 1024ULL);
    expect_group("bloom-560m", LLMMEM_PARAMS_POSITIONS, 0); /* ALiBi */
    expect_total("bloom-560m", 559214592);
}
END_TEST

START_TEST(pythia_410m)
{
    /* Pythia paper (arXiv 2304.01373) Table 1 / model card: 302,311,424 non-embedding parameters,
     * plus embed_in and embed_out, 50304 x 1024 each. GPTNeoXForCausalLM.num_parameters() gives
     * 405334016 (EleutherAI pythia-410m, as recorded by a script that loads every Pythia size). */
    expect_total("pythia-410m", 302311424ULL + 2 * 50304 * 1024);
    expect_total("pythia-410m", 405334016);
}
END_TEST

START_TEST(pythia_1b)
{
    /* Pythia paper Table 1 / model card: 805,736,448 non-embedding parameters, plus embed_in and
     * embed_out (50304 x 2048 each) = 1,011,781,632, which GPTNeoXForCausalLM.num_parameters()
     * also gives. The Hub's safetensors metadata says F16 1,011,782,144 (+ U8 67,108,864): the
     * +512 are the rotary inv_freq buffers (16 layers x 32: rotary_pct 0.25 of head_dim 256 = 64
     * dims, 32 frequencies) and the U8 the causal-mask buffers (16 x 2048 x 2048); neither is a
     * parameter. */
    expect_group("pythia-1b", LLMMEM_PARAMS_LM_HEAD, 50304 * 2048ULL);
    expect_total("pythia-1b", 805736448ULL + 2 * 50304 * 2048);
    expect_total("pythia-1b", 1011782144ULL - 16 * 32);
}
END_TEST

START_TEST(falcon_7b)
{
    /* tiiuae/falcon-7b: the Hub's safetensors count, 7,217,189,760 (recorded as 'model_size' for
     * tiiuae/falcon-7b in a fine-tuning time-estimate table), stores lm_head.weight separately
     * although it is tied to word_embeddings (65024 x 4544); the model has one copy. */
    const uint64_t h = 4544;
    /* query_key_value: 71 query heads + 1 k + 1 v head of 64; dense h x h; no biases */
    expect_group("falcon-7b", LLMMEM_PARAMS_ATTENTION, 32 * ((71 + 2) * 64 * h + h * h));
    expect_group("falcon-7b", LLMMEM_PARAMS_NORMS, (32 + 1) * 2 * h); /* input_layernorm, ln_f */
    expect_group("falcon-7b", LLMMEM_PARAMS_LM_HEAD, 0);
    expect_total("falcon-7b", 7217189760ULL - 65024 * h);
}
END_TEST

/* ---- Llama ------------------------------------------------------------------- */

START_TEST(llama_2_7b)
{
    /* KerasHub llama_presets.py: llama2_7b_en "params": 6738415616. The Hub's safetensors.total
     * for meta-llama/Llama-2-7b-hf is 6,738,417,664: it includes the rotary inv_freq buffers,
     * 32 layers x 64 (head_dim 128 / 2); likewise model.safetensors.index.json total_size
     * 13,476,839,424 = 6,738,415,616 x 2 bytes (fp16) + 2048 x 4 bytes (fp32 inv_freq). */
    const uint64_t h = 4096, L = 32;
    expect_group("llama-2-7b", LLMMEM_PARAMS_EMBEDDING, 32000 * h);
    expect_group("llama-2-7b", LLMMEM_PARAMS_ATTENTION, L * 4 * h * h);
    expect_group("llama-2-7b", LLMMEM_PARAMS_MLP, L * 3 * 11008 * h);
    expect_group("llama-2-7b", LLMMEM_PARAMS_NORMS, (2 * L + 1) * h);
    expect_group("llama-2-7b", LLMMEM_PARAMS_LM_HEAD, 32000 * h);
    expect_total("llama-2-7b", 6738415616);
    expect_total("llama-2-7b", 6738417664ULL - 32 * 64);
    expect_total("llama-2-7b", (13476839424ULL - 32 * 64 * 4) / 2);
}
END_TEST

START_TEST(llama_2_13b)
{
    /* Hub safetensors.total for meta-llama/Llama-2-13b-hf: 13,015,866,880, less the rotary
     * inv_freq buffers, 40 layers x 64. LoRAM (ICLR 2025) Table 4 gives LLaMA-2-13B
     * "#Orig. Params 13015864320". */
    expect_total("llama-2-13b", 13015866880ULL - 40 * 64);
    expect_total("llama-2-13b", 13015864320);
}
END_TEST

START_TEST(llama_2_70b)
{
    /* Hub safetensors.total for meta-llama/Llama-2-70b-hf: 68,976,653,312, less the rotary
     * inv_freq buffers, 80 layers x 64. LoRAM (ICLR 2025) gives LLaMA-2-70B "#Orig. Params
     * 68976648192". */
    expect_total("llama-2-70b", 68976653312ULL - 80 * 64);
    expect_total("llama-2-70b", 68976648192);
}
END_TEST

START_TEST(llama_3_8b)
{
    /* KerasHub llama3_presets.py: llama3_8b_en "params": 8030261248 */
    expect_total("llama-3-8b", 8030261248);
}
END_TEST

START_TEST(llama_3_1_8b)
{
    /* Hub safetensors.total for meta-llama/Llama-3.1-8B: 8030261248 (the 3.1 checkpoints store no
     * inv_freq) */
    expect_total("llama-3.1-8b", 8030261248);
}
END_TEST

START_TEST(llama_3_1_70b)
{
    /* Hub safetensors.total for meta-llama/Llama-3.1-70B: 70553706496 */
    expect_total("llama-3.1-70b", 70553706496);
}
END_TEST

START_TEST(llama_3_1_405b)
{
    /* Hub safetensors.total for meta-llama/Llama-3.1-405B: 405853388800. By hand: embedding and
     * head 2 x 128256 x 16384; per layer q, o 16384^2 each, k, v 1024 x 16384 each, MLP
     * 3 x 53248 x 16384, two norms; 126 layers; final norm. */
    const uint64_t h = 16384;
    expect_total("llama-3.1-405b", 405853388800);
    expect_total("llama-3.1-405b",
                 2 * 128256 * h + 126 * (2 * h * h + 2 * 1024 * h + 3 * 53248 * h + 2 * h) + h);
}
END_TEST

START_TEST(llama_3_2_1b)
{
    /* ModelCloud/GPTQModel tests/test_parameter_count.py: LLAMA_3_2_1B_PARAMETER_COUNT = 1235814400
     * (meta-llama/Llama-3.2-1B-Instruct); a checkpoint that also saved the tied lm_head counts
     * 1498482688 = 1235814400 + 128256 x 2048. */
    expect_group("llama-3.2-1b", LLMMEM_PARAMS_LM_HEAD, 0);
    /* head_dim 64: q and o 2048 x 2048, k and v 512 x 2048 */
    expect_group("llama-3.2-1b", LLMMEM_PARAMS_ATTENTION, 16 * (2 * 2048 * 2048ULL + 2 * 512 * 2048ULL));
    expect_total("llama-3.2-1b", 1235814400);
    expect_total("llama-3.2-1b", 1498482688ULL - 128256 * 2048);
}
END_TEST

START_TEST(llama_3_2_3b)
{
    /* Hub safetensors.parameters for meta-llama/Llama-3.2-3B-Instruct: BF16 = 3212749824 */
    expect_total("llama-3.2-3b", 3212749824);
}
END_TEST

/* ---- Mistral, Mixtral ----------------------------------------------------------- */

START_TEST(mistral_7b_v0_1)
{
    /* KerasHub mistral_presets.py: mistral_7b_en "params": 7241732096; huggingface_hub's
     * test_get_safetensors_metadata_sharded_model: HuggingFaceH4/zephyr-7b-beta (a Mistral-7B-v0.1
     * fine-tune) parameter_count == {"BF16": 7241732096}. */
    expect_total("mistral-7b-v0.1", 7241732096);
}
END_TEST

START_TEST(mixtral_8x7b)
{
    /* KerasHub mixtral_presets.py: mixtral_8_7b_en "params": 46702792704 (Mistral AI: "46.7B total
     * parameters ... 12.9B parameters per token"). */
    const uint64_t expert = 3 * 14336 * 4096ULL; /* w1, w3, w2 */
    expect_group("mixtral-8x7b", LLMMEM_PARAMS_EXPERTS, 32 * 8 * expert);
    expect_group("mixtral-8x7b", LLMMEM_PARAMS_ROUTER, 32 * 8 * 4096ULL);
    expect_group("mixtral-8x7b", LLMMEM_PARAMS_MLP, 0);
    expect_total("mixtral-8x7b", 46702792704);
    /* Active: all but the 6 of 8 experts a token does not use, in each of 32 layers:
     * 46,702,792,704 - 32 x 6 x 176,160,768 = 12,879,925,248 (the published "12.9B"). */
    expect_active("mixtral-8x7b", 46702792704ULL - 32 * 6 * expert);
}
END_TEST

/* ---- Qwen -------------------------------------------------------------------------- */

START_TEST(qwen2_5_0_5b)
{
    /* KerasHub qwen_presets.py: qwen2.5_0.5b_en "params": 494032768 (tied embeddings) */
    expect_group("qwen2.5-0.5b", LLMMEM_PARAMS_LM_HEAD, 0);
    expect_total("qwen2.5-0.5b", 494032768);
}
END_TEST

START_TEST(qwen2_5_7b)
{
    /* GGUF general.parameter_count 7615616512 for qwen2.5 7B (Ollama /api/show), the Hub's
     * safetensors total for Qwen/Qwen2.5-7B-Instruct (7615616512), and KerasHub qwen_presets.py
     * qwen2.5_math_7b_en (same shapes) "params": 7615616512. The model card's 6.53B
     * non-embedding = 7,615,616,512 - 2 x 152064 x 3584. */
    const uint64_t h = 3584;
    /* q, o h x h; k, v 512 x h; biases on q (h), k and v (512 each) */
    expect_group("qwen2.5-7b", LLMMEM_PARAMS_ATTENTION, 28 * (2 * h * h + 2 * 512 * h + h + 2 * 512));
    expect_total("qwen2.5-7b", 7615616512);
}
END_TEST

START_TEST(qwen2_5_72b)
{
    /* KerasHub qwen_presets.py: qwen2.5_instruct_72b_en "params": 72706203648 */
    expect_total("qwen2.5-72b", 72706203648);
}
END_TEST

START_TEST(qwen3_8b)
{
    /* KerasHub qwen3_presets.py: qwen3_8b_en "params": 8190735360; the Hub's safetensors for
     * Qwen/Qwen3-8B: {"BF16": 8190735360}. */
    expect_total("qwen3-8b", 8190735360);
}
END_TEST

START_TEST(qwen3_30b_a3b)
{
    /* KerasHub qwen3_moe_presets.py: qwen3_moe_30b_a3b_en "params": 30532122624 (model card:
     * "30.5B in total and 3.3B activated"). */
    const uint64_t expert = 3 * 768 * 2048ULL;
    expect_group("qwen3-30b-a3b", LLMMEM_PARAMS_EXPERTS, 48 * 128 * expert);
    expect_group("qwen3-30b-a3b", LLMMEM_PARAMS_ROUTER, 48 * 128 * 2048ULL);
    expect_group("qwen3-30b-a3b", LLMMEM_PARAMS_SHARED_EXPERTS, 0);
    expect_total("qwen3-30b-a3b", 30532122624);
    /* Active: 120 of 128 experts unused in each of 48 layers: 3,353,032,704 ("3.3B") */
    expect_active("qwen3-30b-a3b", 30532122624ULL - 48 * 120 * expert);
}
END_TEST

/* ---- Gemma, Phi --------------------------------------------------------------------- */

START_TEST(gemma_2_9b)
{
    /* KerasHub gemma_presets.py: gemma2_9b_en "params": 9241705984; the Hub's safetensors.total
     * for google/gemma-2-9b: 9241705984. */
    expect_group("gemma-2-9b", LLMMEM_PARAMS_NORMS, (42 * 4 + 1) * 3584ULL);
    expect_group("gemma-2-9b", LLMMEM_PARAMS_LM_HEAD, 0);
    expect_total("gemma-2-9b", 9241705984);
}
END_TEST

START_TEST(phi_3_mini_4k)
{
    /* KerasHub phi3_presets.py: phi3_mini_4k_instruct_en "params": 3821079552 */
    expect_total("phi-3-mini-4k", 3821079552);
}
END_TEST

/* ---- DeepSeek ------------------------------------------------------------------------ */

START_TEST(deepseek_v2_lite)
{
    /* deepseek-ai/DeepSeek-V2-Lite model.safetensors.index.json total_size 31,412,968,448 bytes
     * / 2 (bf16) = 15,706,484,224; chatllm.cpp prints "with 15706484224 (2.7B effect.)
     * parameters" for it. The paper's "2.4B activated" leaves out the embedding. */
    const uint64_t h = 2048, expert = 3 * 1408 * 2048ULL;
    expect_group("deepseek-v2-lite", LLMMEM_PARAMS_MLP, 3 * 10944 * h);              /* layer 0 */
    expect_group("deepseek-v2-lite", LLMMEM_PARAMS_SHARED_EXPERTS, 26 * 2 * expert); /* 2 x 1408 */
    expect_group("deepseek-v2-lite", LLMMEM_PARAMS_ROUTER, 26 * 64 * h);
    expect_total("deepseek-v2-lite", 31412968448ULL / 2);
    /* Active: 58 of 64 routed experts unused in each of 26 MoE layers = 2,661,150,208; less the
     * embedding (102400 x 2048) that is 2,451,435,008, the paper's "2.4B". */
    expect_active("deepseek-v2-lite", 31412968448ULL / 2 - 26 * 58 * expert);
}
END_TEST

START_TEST(deepseek_v3)
{
    /* The Hub's safetensors metadata for deepseek-ai/DeepSeek-V3 counts 684,531,386,000 stored
     * elements ("685B"): BF16 3,918,786,560 + F8_E4M3 680,571,043,840 + F32 41,555,600. That
     * total holds two things that are not the 671B main model:
     *
     * 1. weight_scale_inv: one fp32 per 128 x 128 block of every fp8 matrix. */
    const uint64_t attn_blocks = 12 * 56      /* q_a_proj 1536 x 7168 */
                                 + 192 * 12   /* q_b_proj 24576 x 1536 */
                                 + 5 * 56     /* kv_a_proj_with_mqa 576 x 7168 */
                                 + 256 * 4    /* kv_b_proj 32768 x 512 */
                                 + 56 * 128;  /* o_proj 7168 x 16384 */
    const uint64_t dense_blocks = 3 * 144 * 56; /* gate, up 18432 x 7168; down 7168 x 18432 */
    const uint64_t expert_blocks = 3 * 16 * 56; /* gate, up 2048 x 7168; down 7168 x 2048 */
    /* layers 0-2 dense; layers 3-60 and the MTP layer 61 with 256 routed + 1 shared experts */
    const uint64_t scales = 3 * (attn_blocks + dense_blocks) + 59 * (attn_blocks + 257 * expert_blocks);
    ck_assert_uint_eq(scales, 41540496); /* so F32 also holds 59 x 256 e_score_correction_bias */
    ck_assert_uint_eq(41555600 - scales, 59 * 256);

    /* 2. the multi-token-prediction module (num_nextn_predict_layers 1), stored as layer 61: one
     *    MoE decoder layer, enorm, hnorm, eh_proj (7168 x 14336), shared_head.norm, and its own
     *    copies of embed_tokens and shared_head.head (129280 x 7168 each). */
    const uint64_t h = 7168, expert = 3 * 2048 * 7168ULL;
    const uint64_t mla = 1536 * h + 1536 + 24576 * 1536 + 576 * h + 512 + 32768 * 512 + h * 16384;
    const uint64_t mtp = mla + 2 * h + 257 * expert + (256 * h + 256) + 3 * h + h * 2 * h + 2 * 129280 * h;
    ck_assert_uint_eq(3918786560ULL + 680571043840ULL + 41555600ULL, 684531386000ULL);

    const uint64_t main_model = 684531386000ULL - scales - mtp; /* 671,026,419,200 */
    expect_group("deepseek-v3", LLMMEM_PARAMS_MLP, 3 * 3 * 18432 * h);
    expect_group("deepseek-v3", LLMMEM_PARAMS_SHARED_EXPERTS, 58 * expert);
    expect_group("deepseek-v3", LLMMEM_PARAMS_ROUTER, 58 * (256 * h + 256)); /* gate + e_score bias */
    expect_total("deepseek-v3", main_model);
    /* Active: 248 of 256 routed experts unused in each of 58 MoE layers = 37,552,297,472
     * (the paper's "37B activated") */
    expect_active("deepseek-v3", main_model - 58 * 248 * expert);
}
END_TEST

/* ---- more sizes ------------------------------------------------------------ */

/* EleutherAI/pythia README, "Models" table: 70,426,624 and 162,322,944 parameters (total, with
 * embeddings; the non-embedding column is 18,915,328 and 85,056,000). */
START_TEST(pythia_small)
{
    expect_total("pythia-70m", 70426624ULL);
    expect_total("pythia-160m", 162322944ULL);
    /* by hand: 70m untied 50304 x 512 embedding and embed_out, so non-embedding = total - both */
    expect_group("pythia-70m", LLMMEM_PARAMS_EMBEDDING, 50304ULL * 512);
}
END_TEST

/* BLOOM paper (BigScience 2022), Table 3 of model sizes: bloom-7b1 has 7,069,016,064 parameters. */
START_TEST(bloom_7b1)
{
    expect_total("bloom-7b1", 7069016064ULL);
}
END_TEST

/* The Hugging Face Hub's safetensors metadata "total" parameters of each checkpoint (the exact
 * count the Hub shows as "Model size"): facebook/opt-6.7b 6,658,473,984; meta-llama/Llama-3.3-70B-
 * Instruct 70,553,706,496 (= Llama-3.1-70B); mistralai/Mistral-7B-v0.3 7,248,023,552 (v0.1 plus
 * 768 new vocabulary rows in the embedding and the head: 7,241,732,096 + 2 x 768 x 4096);
 * Qwen/Qwen2.5-1.5B 1,543,714,304; -3B 3,085,938,688; -14B 14,770,033,664; -32B 32,763,876,352;
 * Qwen/Qwen3-235B-A22B 235,093,634,560; microsoft/phi-4 14,659,507,200. */
START_TEST(hub_totals)
{
    expect_total("opt-6.7b", 6658473984ULL);
    expect_total("llama-3.3-70b", 70553706496ULL);
    expect_total("mistral-7b-v0.3", 7248023552ULL);
    ck_assert_uint_eq(7241732096ULL + 2ULL * 768 * 4096, 7248023552ULL);
    expect_total("qwen2.5-1.5b", 1543714304ULL);
    expect_total("qwen2.5-3b", 3085938688ULL);
    expect_total("qwen2.5-14b", 14770033664ULL);
    expect_total("qwen2.5-32b", 32763876352ULL);
    expect_total("qwen3-235b-a22b", 235093634560ULL);
    expect_total("phi-4", 14659507200ULL);
}
END_TEST

/* Qwen3-235B-A22B: "235B total, 22B activated" (model card). By hand: 94 layers of 128 experts of
 * 3 x 1536 x 4096, 8 used per token, so active = total - 94 x 120 x 3 x 1536 x 4096. */
START_TEST(qwen3_235b_active)
{
    expect_active("qwen3-235b-a22b", 235093634560ULL - 94ULL * 120 * 3 * 1536 * 4096);
}
END_TEST

/* mistralai/Mixtral-8x22B-v0.1: 140,630,071,296 parameters (Hub safetensors total); "39B active"
 * (Mistral's announcement). By hand: 56 layers of 8 experts of 3 x 16384 x 6144, 2 used. */
START_TEST(mixtral_8x22b)
{
    expect_total("mixtral-8x22b", 140630071296ULL);
    expect_active("mixtral-8x22b", 140630071296ULL - 56ULL * 6 * 3 * 16384 * 6144);
}
END_TEST

/* google/gemma-3-4b-pt: 4,300,079,472 parameters (Hub safetensors total), text and vision.
 * The vision group by hand from transformers' SiglipVisionModel and Gemma3MultiModalProjector:
 * patch conv 1152 x 3 x 14 x 14 + bias, 64 x 64 = 4096 positions, per layer 4 biased 1152 x 1152
 * projections, 2 LayerNorms, fc1 4304 x 1152 + bias, fc2 1152 x 4304 + bias; post_layernorm;
 * projector norm (1152) and 1152 x 2560 projection. */
START_TEST(gemma_3_4b_vision)
{
    expect_total("gemma-3-4b", 4300079472ULL);
    const uint64_t vh = 1152, vi = 4304, layers = 27;
    uint64_t vision = vh * 3 * 14 * 14 + vh + 4096 * vh
                      + layers * (4 * (vh * vh + vh) + 2 * 2 * vh + vi * vh + vi + vh * vi + vh)
                      + 2 * vh + vh + vh * 2560;
    expect_group("gemma-3-4b", LLMMEM_PARAMS_VISION, vision);
}
END_TEST

static Suite *params_suite(void)
{
    Suite *s = suite_create("param_counts");
    TCase *tc = tcase_create("published");
    tcase_add_test(tc, catalog_is_architecture_only);
    tcase_add_test(tc, gpt2);
    tcase_add_test(tc, gpt2_medium);
    tcase_add_test(tc, gpt2_large);
    tcase_add_test(tc, gpt2_xl);
    tcase_add_test(tc, opt_1_3b);
    tcase_add_test(tc, bloom_560m);
    tcase_add_test(tc, pythia_410m);
    tcase_add_test(tc, pythia_1b);
    tcase_add_test(tc, falcon_7b);
    tcase_add_test(tc, llama_2_7b);
    tcase_add_test(tc, llama_2_13b);
    tcase_add_test(tc, llama_2_70b);
    tcase_add_test(tc, llama_3_8b);
    tcase_add_test(tc, llama_3_1_8b);
    tcase_add_test(tc, llama_3_1_70b);
    tcase_add_test(tc, llama_3_1_405b);
    tcase_add_test(tc, llama_3_2_1b);
    tcase_add_test(tc, llama_3_2_3b);
    tcase_add_test(tc, mistral_7b_v0_1);
    tcase_add_test(tc, mixtral_8x7b);
    tcase_add_test(tc, qwen2_5_0_5b);
    tcase_add_test(tc, qwen2_5_7b);
    tcase_add_test(tc, qwen2_5_72b);
    tcase_add_test(tc, qwen3_8b);
    tcase_add_test(tc, qwen3_30b_a3b);
    tcase_add_test(tc, gemma_2_9b);
    tcase_add_test(tc, phi_3_mini_4k);
    tcase_add_test(tc, deepseek_v2_lite);
    tcase_add_test(tc, deepseek_v3);
    tcase_add_test(tc, pythia_small);
    tcase_add_test(tc, bloom_7b1);
    tcase_add_test(tc, hub_totals);
    tcase_add_test(tc, qwen3_235b_active);
    tcase_add_test(tc, mixtral_8x22b);
    tcase_add_test(tc, gemma_3_4b_vision);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(params_suite());
}
