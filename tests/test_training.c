/* Training state (weights, gradients, master weights, optimizer states) and LoRA/QLoRA adapters,
 * against values derived by hand from the papers and framework code each test names. */
#include <string.h>

#include "job_fixture.h"
#include "unit.h"

/* Llama-2-7B (meta-llama/Llama-2-7b-hf config.json): hidden 4096, intermediate 11008, 32 layers,
 * 32 heads (no GQA), vocab 32000, untied, RMSNorm, fp16. KerasHub llama2_7b_en "params": 6738415616. */
#define LLAMA2_7B 6738415616ULL
#define H 4096ULL
#define FF 11008ULL
#define LAYERS 32ULL
#define VOCAB 32000ULL
/* Per layer: q, k, v, o (h x h), gate, up (f x h), down (h x f), two RMSNorms of h. */
#define LLAMA_LINEAR_PER_LAYER (4 * H * H + 3 * FF * H)
#define LLAMA_PER_LAYER (LLAMA_LINEAR_PER_LAYER + 2 * H)
/* Outside the layers: embed_tokens, lm_head (vocab x h) and the final norm. */
#define LLAMA_OUTSIDE (2 * VOCAB * H + H)

typedef struct bytes {
    uint64_t weights, gradients, master, optimizer;
} bytes;

static llmmem_model *count_only(int64_t params)
{
    llmmem_model *m;
    ck_assert_ok(llmmem_model_new(&m));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_PARAMETERS, params));
    return m;
}

static llmmem_model *preset(const char *name)
{
    llmmem_model *m;
    ck_assert_ok(llmmem_model_from_preset(&m, name));
    return m;
}

static llmmem_strategy *strategy(llmmem_mode mode)
{
    llmmem_strategy *s;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MODE, mode));
    return s;
}

static void set(llmmem_strategy *s, llmmem_key key, int64_t value)
{
    ck_assert_ok(llmmem_strategy_set_int(s, key, value));
}

/* The training state alone (training.c): activations and the peak are test_activations' part,
 * and a model given by its count alone has state but no layers to save activations of. */
static bytes estimate(const llmmem_model *m, const llmmem_strategy *s)
{
    llmmem__training t;
    ck_assert_ok(llmmem__training_estimate(&t, m, s));
    bytes b = {t.weights, t.gradients, t.master_weights, t.optimizer_states};
    return b;
}

/* Asserts the four components equal w, g, m, o bytes per parameter times n. */
static void expect_per_param(const llmmem_model *m, const llmmem_strategy *s, uint64_t n, uint64_t w, uint64_t g,
                             uint64_t ms, uint64_t o)
{
    bytes b = estimate(m, s);
    ck_assert_uint_eq(b.weights, w * n);
    ck_assert_uint_eq(b.gradients, g * n);
    ck_assert_uint_eq(b.master, ms * n);
    ck_assert_uint_eq(b.optimizer, o * n);
}

static void expect_failure(const llmmem_model *m, const llmmem_strategy *s, llmmem_status status, const char *text)
{
    llmmem_hardware *hw;
    llmmem_report *r;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_report_new(&r));
    ck_assert_status(llmmem_estimate(r, m, hw, s), status);
    ck_assert_msg(strstr(llmmem_last_message(), text) != NULL, "message '%s' lacks '%s'", llmmem_last_message(),
                  text);
    ck_assert_int_eq(llmmem_report_valid(r), 0);
    llmmem_report_free(r);
    llmmem_hardware_free(hw);
}

static uint64_t trainable(const llmmem_model *m, const llmmem_strategy *s)
{
    uint64_t n;
    ck_assert_ok(llmmem__trainable_parameters(&n, m, s));
    return n;
}

/* ---- precision recipes ------------------------------------------------------------------------ */

/* Rajbhandari et al. 2019 (ZeRO) §3.1: mixed-precision Adam holds 2Ψ (fp16 params) + 2Ψ (fp16
 * grads) + KΨ with K = 12 (fp32 params, momentum, variance); "a 7.5B parameter model ... 120GB". */
START_TEST(test_zero_16_psi)
{
    const uint64_t psi = 7500000000ULL;
    llmmem_model *m = count_only((int64_t)psi);
    llmmem_strategy *s = strategy(LLMMEM_MODE_TRAINING);
    set(s, LLMMEM_KEY_PRECISION_RECIPE, LLMMEM_RECIPE_ZERO);
    expect_per_param(m, s, psi, 2, 2, 4, 8);
    bytes b = estimate(m, s);
    ck_assert_uint_eq(b.weights + b.gradients + b.master + b.optimizer, 120 * GB);
    ck_assert_uint_eq(trainable(m, s), psi);

    llmmem_model *llama = preset("llama-2-7b");
    expect_per_param(llama, s, LLAMA2_7B, 2, 2, 4, 8);
    llmmem_model_free(llama);
    llmmem_model_free(m);
    llmmem_strategy_free(s);
}
END_TEST

/* Megatron-LM megatron/training/theoretical_memory_usage.py: num_bytes_per_parameter = 18 without
 * the distributed optimizer (docs/source/api-guide/dist_optimizer.md: "float16 param, fp32 grads":
 * 18): bf16 params 2, fp32 main grads 4, fp32 main params 4, Adam exp_avg and exp_avg_sq 8. It is
 * the default recipe. */
START_TEST(test_megatron_18)
{
    const uint64_t psi = 7500000000ULL;
    llmmem_model *m = count_only((int64_t)psi);
    llmmem_strategy *s = strategy(LLMMEM_MODE_TRAINING);
    expect_per_param(m, s, psi, 2, 4, 4, 8);
    bytes b = estimate(m, s);
    ck_assert_uint_eq(b.weights + b.gradients + b.master + b.optimizer, 18 * psi);

    llmmem_model *llama = preset("llama-2-7b"); /* fp16 checkpoint, trained in bf16: still 2 bytes */
    expect_per_param(llama, s, LLAMA2_7B, 2, 4, 4, 8);
    set(s, LLMMEM_KEY_PRECISION_RECIPE, LLMMEM_RECIPE_MEGATRON);
    expect_per_param(llama, s, LLAMA2_7B, 2, 4, 4, 8);
    llmmem_model_free(llama);
    llmmem_model_free(m);
    llmmem_strategy_free(s);
}
END_TEST

/* The other recipes, per parameter:
 * - deepspeed: deepspeed/runtime/zero/stage_1_and_2.py estimate_zero2_model_states_mem_needs without
 *   offload on one GPU, 2 + 18/1: "2 = params_16bit, 18 = 2_grads_16bit + 4_grads_32bit +
 *   4_params_32bit + 8_optimizer_states_32bit": weights 2, grads 2 + 4, master 4, Adam 8 = 20;
 * - pure_bf16: bf16 params, grads and AdamW states (torch.optim.AdamW zeros_like(p)), no master: 8;
 * - fp32: dist_optimizer.md "fp32 param, fp32 grads: 16": 4 + 4 + 8, no separate master. */
START_TEST(test_other_recipes)
{
    static const struct {
        llmmem_precision_recipe recipe;
        uint64_t w, g, m, o, total;
    } cases[] = {{LLMMEM_RECIPE_DEEPSPEED, 2, 6, 4, 8, 20},
                 {LLMMEM_RECIPE_PURE_BF16, 2, 2, 0, 4, 8},
                 {LLMMEM_RECIPE_FP32, 4, 4, 0, 8, 16}};
    const uint64_t psi = 7500000000ULL;
    llmmem_model *m = count_only((int64_t)psi);
    llmmem_model *llama = preset("llama-2-7b");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        llmmem_strategy *s = strategy(LLMMEM_MODE_TRAINING);
        set(s, LLMMEM_KEY_PRECISION_RECIPE, cases[i].recipe);
        ck_assert_uint_eq(cases[i].w + cases[i].g + cases[i].m + cases[i].o, cases[i].total);
        expect_per_param(m, s, psi, cases[i].w, cases[i].g, cases[i].m, cases[i].o);
        expect_per_param(llama, s, LLAMA2_7B, cases[i].w, cases[i].g, cases[i].m, cases[i].o);
        llmmem_strategy_free(s);
    }
    llmmem_model_free(llama);
    llmmem_model_free(m);
}
END_TEST

/* Each key overrides its term of the recipe; the rest of the recipe stays. */
START_TEST(test_overrides)
{
    const uint64_t psi = 7500000000ULL;
    llmmem_model *m = count_only((int64_t)psi); /* torch_dtype default bf16 */
    llmmem_strategy *s;

    /* megatron with bf16 gradients: 2 + 2 + 4 + 8 = 16 */
    s = strategy(LLMMEM_MODE_TRAINING);
    set(s, LLMMEM_KEY_GRADIENT_FORMAT, LLMMEM_FORMAT_BF16);
    expect_per_param(m, s, psi, 2, 2, 4, 8);
    /* ... and an fp32 copy beside them (DeepSpeed's 4_grads_32bit): 2 + (2 + 4) + 4 + 8 = 20 */
    set(s, LLMMEM_KEY_FP32_GRADIENT_COPY, 2);
    expect_per_param(m, s, psi, 2, 6, 4, 8);
    llmmem_strategy_free(s);

    /* megatron without a master copy: 2 + 4 + 0 + 8 = 14; a bf16 master equals the bf16 weights: none */
    s = strategy(LLMMEM_MODE_TRAINING);
    ck_assert_ok(llmmem_strategy_set_text(s, "master_weights_format", "none"));
    expect_per_param(m, s, psi, 2, 4, 0, 8);
    ck_assert_ok(llmmem_strategy_set_text(s, "master_weights_format", "bf16"));
    expect_per_param(m, s, psi, 2, 4, 0, 8);
    /* an fp16 master beside bf16 weights is a copy: 2 bytes */
    ck_assert_ok(llmmem_strategy_set_text(s, "master_weights_format", "fp16"));
    expect_per_param(m, s, psi, 2, 4, 2, 8);
    llmmem_strategy_free(s);

    /* megatron with plain SGD: no optimizer state; weights 2, fp32 grads 4, fp32 master 4 = 10 */
    s = strategy(LLMMEM_MODE_TRAINING);
    set(s, LLMMEM_KEY_OPTIMIZER, LLMMEM_OPTIMIZER_SGD);
    expect_per_param(m, s, psi, 2, 4, 4, 0);
    llmmem_strategy_free(s);

    /* megatron with bf16 Adam states: 2 + 4 + 4 + 2 x 2 = 14 */
    s = strategy(LLMMEM_MODE_TRAINING);
    ck_assert_ok(llmmem_strategy_set_text(s, "optimizer_state_format", "bf16"));
    expect_per_param(m, s, psi, 2, 4, 4, 4);
    llmmem_strategy_free(s);

    /* megatron's gradients are fp32 already: an fp32 copy adds nothing (18) */
    s = strategy(LLMMEM_MODE_TRAINING);
    set(s, LLMMEM_KEY_FP32_GRADIENT_COPY, 2);
    expect_per_param(m, s, psi, 2, 4, 4, 8);
    llmmem_strategy_free(s);

    /* megatron with fp32 weights: the fp32 master is the weights themselves: 4 + 4 + 0 + 8 = 16 */
    s = strategy(LLMMEM_MODE_TRAINING);
    set(s, LLMMEM_KEY_WEIGHT_FORMAT, LLMMEM_FORMAT_FP32);
    expect_per_param(m, s, psi, 4, 4, 0, 8);
    llmmem_strategy_free(s);

    /* zero + the fp32 gradient copy is the deepspeed recipe (20); deepspeed without it is zero (16) */
    s = strategy(LLMMEM_MODE_TRAINING);
    set(s, LLMMEM_KEY_PRECISION_RECIPE, LLMMEM_RECIPE_ZERO);
    set(s, LLMMEM_KEY_FP32_GRADIENT_COPY, 2);
    expect_per_param(m, s, psi, 2, 6, 4, 8);
    set(s, LLMMEM_KEY_PRECISION_RECIPE, LLMMEM_RECIPE_DEEPSPEED);
    set(s, LLMMEM_KEY_FP32_GRADIENT_COPY, 1);
    expect_per_param(m, s, psi, 2, 2, 4, 8);
    llmmem_strategy_free(s);

    /* custom: plain PyTorch on the checkpoint's dtype (grad and torch.optim states take p's dtype,
     * nothing copied): bf16 2 + 2 + 0 + 4 = 8; an fp32 checkpoint 4 + 4 + 0 + 8 = 16 */
    s = strategy(LLMMEM_MODE_TRAINING);
    set(s, LLMMEM_KEY_PRECISION_RECIPE, LLMMEM_RECIPE_CUSTOM);
    expect_per_param(m, s, psi, 2, 2, 0, 4);
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_TORCH_DTYPE, LLMMEM_FORMAT_FP32));
    expect_per_param(m, s, psi, 4, 4, 0, 8);
    /* ... with keys: fp16 weights, fp32 grads and master, fp32 states: 2 + 4 + 4 + 8 */
    set(s, LLMMEM_KEY_WEIGHT_FORMAT, LLMMEM_FORMAT_FP16);
    set(s, LLMMEM_KEY_GRADIENT_FORMAT, LLMMEM_FORMAT_FP32);
    ck_assert_ok(llmmem_strategy_set_text(s, "master_weights_format", "fp32"));
    ck_assert_ok(llmmem_strategy_set_text(s, "optimizer_state_format", "fp32"));
    expect_per_param(m, s, psi, 2, 4, 4, 8);
    llmmem_strategy_free(s);
    llmmem_model_free(m);
}
END_TEST

/* A checkpoint stored quantized is trained in the recipe's format: DeepSeek-V3 ships fp8 blocks,
 * Megatron trains it in bf16 (2 bytes for each of its 671,026,419,200 main-model parameters:
 * tests/test_param_counts.c derives that count from the Hub's safetensors metadata). */
START_TEST(test_quantized_checkpoint_is_trained_in_recipe_format)
{
    const uint64_t main_model = 671026419200ULL;
    llmmem_model *m = preset("deepseek-v3");
    llmmem_strategy *s = strategy(LLMMEM_MODE_TRAINING);
    expect_per_param(m, s, main_model, 2, 4, 4, 8);
    /* fp8 weights can be trained (fp8 e4m3 + one fp32 scale per 128 x 128 block) ... */
    set(s, LLMMEM_KEY_WEIGHT_FORMAT, LLMMEM_FORMAT_FP8_BLOCK);
    ck_assert_uint_lt(estimate(m, s).weights, 2 * main_model);
    /* ... integer and block-quantized ones cannot */
    set(s, LLMMEM_KEY_WEIGHT_FORMAT, LLMMEM_FORMAT_GPTQ_INT4);
    expect_failure(m, s, LLMMEM_ERR_INCOMPATIBLE, "weight_format (gptq_int4) cannot be trained");
    llmmem_model_free(m);
    llmmem_strategy_free(s);
}
END_TEST

/* ---- optimizers --------------------------------------------------------------------------------- */

/* bitsandbytes/optim/optimizer.py Optimizer2State.init_state (AdamW8bit): a tensor with
 * p.numel() < min_8bit_size (4096) keeps two fp32 states; a larger one two uint8 states and fp32
 * absmax1/absmax2 with blocks = ceil(n / 256) (v0.44+, PR #1365); qmap1/qmap2 are the optimizer's
 * shared name2qmap["dynamic"], ["udynamic"] (create_dynamic_map: 256 fp32 values each) on the
 * device once. */
static uint64_t bnb8(uint64_t n)
{
    return n < 4096 ? 8 * n : 2 * n + 2 * 4 * ((n + 255) / 256);
}
#define QMAPS (2 * 256 * 4)

START_TEST(test_adamw_8bit)
{
    llmmem_strategy *s = strategy(LLMMEM_MODE_TRAINING);
    set(s, LLMMEM_KEY_OPTIMIZER, LLMMEM_OPTIMIZER_ADAMW_8BIT);
    /* one small tensor: 4095 x 2 x 4 bytes, no 8-bit state, no code tables */
    llmmem_model *m = count_only(4095);
    ck_assert_uint_eq(estimate(m, s).optimizer, 8 * 4095);
    llmmem_model_free(m);
    /* exactly min_8bit_size: 8-bit, 16 blocks of 256: 2 x 4096 + 2 x 16 x 4 + 2 KiB */
    m = count_only(4096);
    ck_assert_uint_eq(estimate(m, s).optimizer, 8192 + 128 + 2048);
    llmmem_model_free(m);
    /* one large tensor: 10^6 elements, ceil(10^6 / 256) = 3907 blocks */
    m = count_only(1000000);
    ck_assert_uint_eq(estimate(m, s).optimizer, 2000000 + 2 * 3907 * 4 + 2048);
    ck_assert_uint_eq(bnb8(1000000) + QMAPS, 2000000 + 2 * 3907 * 4 + 2048);
    llmmem_model_free(m);

    /* Llama-2-7B, tensor by tensor; its 4096-wide norms reach min_8bit_size exactly */
    m = preset("llama-2-7b");
    uint64_t layer = 4 * bnb8(H * H) + 3 * bnb8(FF * H) + 2 * bnb8(H);
    uint64_t expected = LAYERS * layer + 2 * bnb8(VOCAB * H) + bnb8(H) + QMAPS;
    ck_assert_uint_eq(estimate(m, s).optimizer, expected);
    /* every Llama-2-7B tensor has at least 4096 elements, a multiple of 256: exactly 2 + 8/256
     * bytes per parameter, a quarter of 32-bit Adam's 8 plus the block statistics */
    ck_assert_uint_eq(expected, 2 * LLAMA2_7B + LLAMA2_7B / 32 + QMAPS);
    /* the 8-bit states have no bf16 form */
    ck_assert_ok(llmmem_strategy_set_text(s, "optimizer_state_format", "bf16"));
    expect_failure(m, s, LLMMEM_ERR_INCOMPATIBLE, "optimizer_state_format (bf16)");
    llmmem_model_free(m);
    llmmem_strategy_free(s);
}
END_TEST

/* transformers optimization.py Adafactor: a tensor with ndim >= 2 keeps exp_avg_sq_row (rows) and
 * exp_avg_sq_col (cols), a vector exp_avg_sq (n); exp_avg (n) only with beta1 (default None); grads
 * are upcast, so states are fp32; state["RMS"] is a 0-dim fp32 device tensor per parameter. */
static uint64_t adafactor_matrix(uint64_t rows, uint64_t cols)
{
    return (rows + cols) * 4 + 4;
}
static uint64_t adafactor_vector(uint64_t n)
{
    return n * 4 + 4;
}

START_TEST(test_adafactor)
{
    llmmem_model *m = preset("llama-2-7b");
    llmmem_strategy *s = strategy(LLMMEM_MODE_TRAINING);
    set(s, LLMMEM_KEY_OPTIMIZER, LLMMEM_OPTIMIZER_ADAFACTOR);
    uint64_t layer = 4 * adafactor_matrix(H, H) + 2 * adafactor_matrix(FF, H) + adafactor_matrix(H, FF) +
                     2 * adafactor_vector(H);
    uint64_t factored = LAYERS * layer + 2 * adafactor_matrix(VOCAB, H) + adafactor_vector(H);
    bytes b = estimate(m, s);
    ck_assert_uint_eq(b.optimizer, factored);
    ck_assert_uint_eq(b.gradients, 4 * LLAMA2_7B); /* the recipe's terms are unchanged */
    ck_assert_uint_eq(b.master, 4 * LLAMA2_7B);
    /* with beta1: a full fp32 first moment on top */
    set(s, LLMMEM_KEY_ADAFACTOR_FIRST_MOMENT, 1);
    ck_assert_uint_eq(estimate(m, s).optimizer, factored + 4 * LLAMA2_7B);
    llmmem_model_free(m);

    /* a model given by its count has no shapes: one vector */
    m = count_only(1000);
    set(s, LLMMEM_KEY_ADAFACTOR_FIRST_MOMENT, 0);
    ck_assert_uint_eq(estimate(m, s).optimizer, adafactor_vector(1000));
    llmmem_model_free(m);
    llmmem_strategy_free(s);
}
END_TEST

/* KellerJordan/Muon README and muon.py (MuonWithAuxAdam): momentum_buffer for the hidden 2-D
 * weights, AdamW's exp_avg and exp_avg_sq for embed_tokens, lm_head, gains and biases. Llama-2-7B:
 * the attention and MLP matrices are hidden; embedding, LM head and the 65 RMSNorms are not. */
START_TEST(test_muon_lion_sgd_momentum)
{
    llmmem_model *m = preset("llama-2-7b");
    llmmem_strategy *s = strategy(LLMMEM_MODE_TRAINING);
    const uint64_t hidden = LAYERS * LLAMA_LINEAR_PER_LAYER;
    const uint64_t rest = 2 * VOCAB * H + (2 * LAYERS + 1) * H;
    ck_assert_uint_eq(hidden + rest, LLAMA2_7B);
    set(s, LLMMEM_KEY_OPTIMIZER, LLMMEM_OPTIMIZER_MUON);
    ck_assert_uint_eq(estimate(m, s).optimizer, 4 * hidden + 8 * rest);
    /* Lion (Chen et al. 2023, Alg. 2; lucidrains/lion-pytorch: exp_avg only) and SGD with momentum
     * (torch.optim.SGD momentum_buffer): one fp32 state per parameter */
    set(s, LLMMEM_KEY_OPTIMIZER, LLMMEM_OPTIMIZER_LION);
    ck_assert_uint_eq(estimate(m, s).optimizer, 4 * LLAMA2_7B);
    set(s, LLMMEM_KEY_OPTIMIZER, LLMMEM_OPTIMIZER_SGD_MOMENTUM);
    ck_assert_uint_eq(estimate(m, s).optimizer, 4 * LLAMA2_7B);
    ck_assert_ok(llmmem_strategy_set_text(s, "optimizer_state_format", "bf16"));
    ck_assert_uint_eq(estimate(m, s).optimizer, 2 * LLAMA2_7B);
    set(s, LLMMEM_KEY_OPTIMIZER, LLMMEM_OPTIMIZER_ADAM);
    ck_assert_uint_eq(estimate(m, s).optimizer, 4 * LLAMA2_7B);
    llmmem_model_free(m);
    llmmem_strategy_free(s);
}
END_TEST

/* ---- frozen layers -------------------------------------------------------------------------- */

START_TEST(test_frozen_layers_llama)
{
    llmmem_model *m = preset("llama-2-7b");
    llmmem_strategy *s = strategy(LLMMEM_MODE_TRAINING);
    ck_assert_uint_eq(LAYERS * LLAMA_PER_LAYER + LLAMA_OUTSIDE, LLAMA2_7B);
    set(s, LLMMEM_KEY_FROZEN_LAYERS, 8);
    const uint64_t trained = LLAMA2_7B - 8 * LLAMA_PER_LAYER;
    ck_assert_uint_eq(trainable(m, s), trained);
    bytes b = estimate(m, s);
    ck_assert_uint_eq(b.weights, 2 * LLAMA2_7B); /* frozen parameters keep their weights */
    ck_assert_uint_eq(b.gradients, 4 * trained);
    ck_assert_uint_eq(b.master, 4 * trained);
    ck_assert_uint_eq(b.optimizer, 8 * trained);
    /* every layer frozen: embedding, LM head and final norm remain */
    set(s, LLMMEM_KEY_FROZEN_LAYERS, 32);
    ck_assert_uint_eq(trainable(m, s), LLAMA_OUTSIDE);
    set(s, LLMMEM_KEY_FROZEN_LAYERS, 33);
    expect_failure(m, s, LLMMEM_ERR_INCOMPATIBLE, "frozen_layers (33) exceeds num_hidden_layers (32)");
    llmmem_model_free(m);
    /* a model given by its count has no layers */
    m = count_only(1000000);
    set(s, LLMMEM_KEY_FROZEN_LAYERS, 1);
    expect_failure(m, s, LLMMEM_ERR_INCOMPATIBLE, "frozen_layers (1) exceeds num_hidden_layers (0)");
    llmmem_model_free(m);
    llmmem_strategy_free(s);
}
END_TEST

/* DeepSeek-V3 config.json: 61 layers, first_k_dense_replace 3: freezing 5 layers freezes the 3
 * dense layers and the first 2 MoE layers. Per layer (modeling_deepseek.py): MLA q_a_proj 1536 x h,
 * q_a_layernorm, q_b_proj 24576 x 1536, kv_a_proj_with_mqa 576 x h, kv_a_layernorm 512,
 * kv_b_proj 32768 x 512, o_proj h x 16384, two RMSNorms; dense MLP 3 x 18432 x h; MoE: 256 routed +
 * 1 shared expert of 3 x 2048 x h, gate 256 x h and e_score_correction_bias 256. */
START_TEST(test_frozen_layers_deepseek_v3)
{
    const uint64_t h = 7168, expert = 3 * 2048 * h;
    const uint64_t mla = 1536 * h + 1536 + 24576 * 1536 + 576 * h + 512 + 32768 * 512 + h * 16384;
    const uint64_t dense_layer = mla + 2 * h + 3 * 18432 * h;
    const uint64_t moe_layer = mla + 2 * h + 257 * expert + 256 * h + 256;
    const uint64_t main_model = 671026419200ULL; /* tests/test_param_counts.c */
    ck_assert_uint_eq(3 * dense_layer + 58 * moe_layer + 2 * 129280 * h + h, main_model);
    llmmem_model *m = preset("deepseek-v3");
    llmmem_strategy *s = strategy(LLMMEM_MODE_TRAINING);
    set(s, LLMMEM_KEY_FROZEN_LAYERS, 5);
    const uint64_t trained = main_model - 3 * dense_layer - 2 * moe_layer;
    ck_assert_uint_eq(trainable(m, s), trained);
    bytes b = estimate(m, s);
    ck_assert_uint_eq(b.weights, 2 * main_model);
    ck_assert_uint_eq(b.gradients, 4 * trained);
    ck_assert_uint_eq(b.optimizer, 8 * trained);
    /* freezing 2 layers touches no MoE layer */
    set(s, LLMMEM_KEY_FROZEN_LAYERS, 2);
    ck_assert_uint_eq(trainable(m, s), main_model - 2 * dense_layer);
    llmmem_model_free(m);
    llmmem_strategy_free(s);
}
END_TEST

/* ---- LoRA and QLoRA ---------------------------------------------------------------------------- */

/* PEFT LoraLayer.update_layer: lora_A = nn.Linear(in, r), lora_B = nn.Linear(r, out), no bias:
 * r x (in + out) per adapted linear. r = 8 on q_proj and v_proj of Llama-2-7B:
 * 32 x 2 x 8 x (4096 + 4096) = 4,194,304, as PEFT's print_trainable_parameters reports
 * ("trainable params: 4,194,304 || all params: 6,742,609,920"). */
START_TEST(test_lora_llama2_qv)
{
    const uint64_t adapters = LAYERS * 2 * 8 * (H + H);
    ck_assert_uint_eq(adapters, 4194304);
    ck_assert_uint_eq(LLAMA2_7B + adapters, 6742609920ULL);
    llmmem_model *m = preset("llama-2-7b");
    llmmem_strategy *s = strategy(LLMMEM_MODE_LORA); /* defaults: r = 8, targets q,v */
    ck_assert_uint_eq(trainable(m, s), adapters);
    uint64_t adapter_bytes;
    ck_assert_ok(llmmem__adapter_weight_bytes(&adapter_bytes, m, s));
    /* fp32 adapters (PEFT autocast_adapter_dtype=True), fp16 frozen base (torch_dtype) */
    ck_assert_uint_eq(adapter_bytes, 4 * adapters);
    bytes b = estimate(m, s);
    ck_assert_uint_eq(b.weights, 2 * LLAMA2_7B + 4 * adapters);
    ck_assert_uint_eq(b.gradients, 4 * adapters);
    ck_assert_uint_eq(b.master, 0);
    ck_assert_uint_eq(b.optimizer, 8 * adapters); /* AdamW, two fp32 states */

    /* all linear layers: q, k, v, o (4096 x 4096), gate, up (11008 x 4096), down (4096 x 11008) */
    const uint64_t all_linear = LAYERS * (4 * 8 * (H + H) + 3 * 8 * (FF + H));
    ck_assert_uint_eq(all_linear, 19988480);
    ck_assert_ok(llmmem_strategy_set_text(s, "lora_targets", "q,k,v,o,gate,up,down"));
    ck_assert_uint_eq(trainable(m, s), all_linear);
    /* rank 64 (qlora.py's default) is 8 times more */
    set(s, LLMMEM_KEY_LORA_RANK, 64);
    ck_assert_uint_eq(trainable(m, s), 8 * all_linear);
    /* bf16 adapters with an fp32 master copy and fp32 gradients: 2 + 4 + 4 + 8 per adapter param */
    set(s, LLMMEM_KEY_LORA_RANK, 8);
    set(s, LLMMEM_KEY_LORA_FORMAT, LLMMEM_FORMAT_BF16);
    set(s, LLMMEM_KEY_GRADIENT_FORMAT, LLMMEM_FORMAT_FP32);
    ck_assert_ok(llmmem_strategy_set_text(s, "master_weights_format", "fp32"));
    b = estimate(m, s);
    ck_assert_uint_eq(b.weights, 2 * LLAMA2_7B + 2 * all_linear);
    ck_assert_uint_eq(b.gradients, 4 * all_linear);
    ck_assert_uint_eq(b.master, 4 * all_linear);
    ck_assert_uint_eq(b.optimizer, 8 * all_linear);
    llmmem_model_free(m);
    llmmem_strategy_free(s);
}
END_TEST

/* Adapters on the routed experts only with the experts bit. Mixtral-8x7B: 32 MoE layers of 8
 * experts, w1 (gate) 14336 x 4096; no dense MLP. */
START_TEST(test_lora_experts)
{
    llmmem_model *m = preset("mixtral-8x7b");
    llmmem_strategy *s = strategy(LLMMEM_MODE_LORA);
    ck_assert_ok(llmmem_strategy_set_text(s, "lora_targets", "gate"));
    ck_assert_uint_eq(trainable(m, s), 0);
    ck_assert_ok(llmmem_strategy_set_text(s, "lora_targets", "gate,experts"));
    ck_assert_uint_eq(trainable(m, s), 32ULL * 8 * 8 * (14336 + 4096));
    llmmem_model_free(m);
    /* experts on a dense model: nothing to adapt, still an estimate */
    m = preset("llama-2-7b");
    ck_assert_ok(llmmem_strategy_set_text(s, "lora_targets", "experts"));
    ck_assert_uint_eq(trainable(m, s), 0);
    ck_assert_uint_eq(estimate(m, s).gradients, 0);
    /* frozen_layers skips the first layers' adapters (PEFT layers_to_transform) */
    ck_assert_ok(llmmem_strategy_set_text(s, "lora_targets", "q,v"));
    set(s, LLMMEM_KEY_FROZEN_LAYERS, 16);
    ck_assert_uint_eq(trainable(m, s), 16 * 2 * 8 * (H + H));
    llmmem_model_free(m);
    llmmem_strategy_free(s);
}
END_TEST

/* bitsandbytes functional.py quantize_4bit with compress_statistics (QLoRA's double quantization):
 * packed 4-bit values ceil(n / 2), a 16-entry fp32 NF4 code (64 B), uint8 absmax per block of 64,
 * then per 256 of those an fp32 absmax, an fp32 offset and the 256-entry fp32 nested code. */
static uint64_t nf4_dq(uint64_t rows, uint64_t cols)
{
    uint64_t n = rows * cols, blocks = (n + 63) / 64;
    return (n + 1) / 2 + 64 + blocks + (blocks + 255) / 256 * 4 + 4 + 256 * 4;
}

/* QLoRA (Dettmers et al. 2023; artidoro/qlora qlora.py: quant_type nf4, double_quant True, LoRA
 * layers cast to bf16): the linear layers in NF4 with double quantization, the embedding, LM head
 * and norms in the checkpoint's 16 bits, bf16 adapters. */
START_TEST(test_qlora_llama2)
{
    llmmem_model *m = preset("llama-2-7b");
    llmmem_strategy *s = strategy(LLMMEM_MODE_QLORA);
    const uint64_t base = LAYERS * (4 * nf4_dq(H, H) + 2 * nf4_dq(FF, H) + nf4_dq(H, FF)) +
                          (2 * VOCAB * H + (2 * LAYERS + 1) * H) * 2;
    const uint64_t adapters = 4194304; /* q,v at r = 8 */
    bytes b = estimate(m, s);
    ck_assert_uint_eq(b.weights, base + 2 * adapters);
    ck_assert_uint_eq(b.gradients, 2 * adapters);
    ck_assert_uint_eq(b.master, 0);
    ck_assert_uint_eq(b.optimizer, 8 * adapters); /* qlora.py optim paged_adamw_32bit */
    /* the base is under 4.5 bits per linear weight plus the 16-bit rest */
    ck_assert_uint_lt(base, LLAMA2_7B * 45 / 80 + 2 * (2 * VOCAB * H));
    /* double quantization off: an fp32 absmax per block of 64, no nested statistics */
    ck_assert_ok(llmmem_strategy_set_text(s, "double_quant", "off"));
    uint64_t plain = 0;
    const uint64_t shapes[3][3] = {{H, H, 4}, {FF, H, 2}, {H, FF, 1}};
    for (int i = 0; i < 3; i++) {
        uint64_t n = shapes[i][0] * shapes[i][1];
        plain += shapes[i][2] * (n / 2 + 64 + (n + 63) / 64 * 4);
    }
    ck_assert_uint_eq(estimate(m, s).weights,
                      LAYERS * plain + (2 * VOCAB * H + (2 * LAYERS + 1) * H) * 2 + 2 * adapters);
    llmmem_model_free(m);
    llmmem_strategy_free(s);
}
END_TEST

/* ---- modes and errors ------------------------------------------------------------------------- */

START_TEST(test_inference_unchanged)
{
    llmmem_model *m = preset("llama-2-7b");
    llmmem_strategy *s = strategy(LLMMEM_MODE_INFERENCE);
    set(s, LLMMEM_KEY_OPTIMIZER, LLMMEM_OPTIMIZER_ADAMW_8BIT); /* training keys do not apply */
    set(s, LLMMEM_KEY_FROZEN_LAYERS, 99);
    llmmem_hardware *hw;
    llmmem_report *r;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_report_new(&r));
    ck_assert_ok(llmmem_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_report_bytes(r, LLMMEM_COMPONENT_WEIGHTS), 2 * LLAMA2_7B);
    for (int c = LLMMEM_COMPONENT_GRADIENTS; c <= LLMMEM_COMPONENT_LOGITS; c++)
        ck_assert_uint_eq(llmmem_report_bytes(r, (llmmem_component)c), 0);
    ck_assert_uint_eq(llmmem_report_trainable_parameters(r), 0);
    ck_assert_int_eq(llmmem_report_peak_phase(r), LLMMEM_PEAK_PHASE_STATIC);
    llmmem_report_free(r);
    llmmem_hardware_free(hw);
    ck_assert_uint_eq(trainable(m, s), 0);
    llmmem_model_free(m);
    llmmem_strategy_free(s);
}
END_TEST

START_TEST(test_lora_errors)
{
    llmmem_model *m = preset("llama-2-7b");
    llmmem_strategy *s = strategy(LLMMEM_MODE_LORA);
    set(s, LLMMEM_KEY_LORA_TARGETS, 0);
    expect_failure(m, s, LLMMEM_ERR_INCOMPATIBLE, "lora_targets is empty");
    uint64_t n = 1;
    ck_assert_status(llmmem__trainable_parameters(&n, m, s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_uint_eq(n, 0);
    llmmem_model_free(m);
    m = count_only(7000000000LL);
    set(s, LLMMEM_KEY_LORA_TARGETS, LLMMEM_LORA_TARGET_Q);
    expect_failure(m, s, LLMMEM_ERR_INCOMPATIBLE, "mode lora needs the model's shapes");
    set(s, LLMMEM_KEY_MODE, LLMMEM_MODE_QLORA);
    expect_failure(m, s, LLMMEM_ERR_INCOMPATIBLE, "mode qlora needs the model's shapes");
    llmmem_model_free(m);
    llmmem_strategy_free(s);
}
END_TEST

/* Accepted silently before issue 14. A rank above a target's smaller side: Llama-2-7B's q_proj is
 * 4096 x 4096 (hidden_size 4096, 32 heads of 128), so rank 4096 is accepted and 4097 is not;
 * with only down_proj targeted (4096 x 11008) the same holds. A QLoRA base that is not bitsandbytes
 * 4-bit is a LoRA. */
START_TEST(test_lora_rank_and_qlora_base)
{
    llmmem_model *m = preset("llama-2-7b");
    llmmem_strategy *s = strategy(LLMMEM_MODE_LORA);
    set(s, LLMMEM_KEY_LORA_TARGETS, LLMMEM_LORA_TARGET_Q | LLMMEM_LORA_TARGET_V);
    set(s, LLMMEM_KEY_LORA_RANK, 4096);
    (void)estimate(m, s);
    set(s, LLMMEM_KEY_LORA_RANK, 4097);
    expect_failure(m, s, LLMMEM_ERR_INCOMPATIBLE, "lora_rank (4097) exceeds the smaller side of q_proj (4096 x 4096)");
    set(s, LLMMEM_KEY_LORA_TARGETS, LLMMEM_LORA_TARGET_DOWN);
    expect_failure(m, s, LLMMEM_ERR_INCOMPATIBLE, "lora_rank (4097) exceeds the smaller side of mlp.down_proj (4096 x 11008)");
    set(s, LLMMEM_KEY_LORA_RANK, 16);
    set(s, LLMMEM_KEY_MODE, LLMMEM_MODE_QLORA);
    set(s, LLMMEM_KEY_WEIGHT_FORMAT, LLMMEM_FORMAT_FP32);
    expect_failure(m, s, LLMMEM_ERR_INCOMPATIBLE, "mode qlora keeps the base in bitsandbytes 4-bit (bnb_nf4 or "
                                                  "bnb_fp4), not weight_format fp32");
    set(s, LLMMEM_KEY_WEIGHT_FORMAT, LLMMEM_FORMAT_BNB_FP4);
    (void)estimate(m, s);
    set(s, LLMMEM_KEY_MODE, LLMMEM_MODE_LORA);
    set(s, LLMMEM_KEY_WEIGHT_FORMAT, LLMMEM_FORMAT_FP32); /* a LoRA over an fp32 base is fine */
    (void)estimate(m, s);
    llmmem_model_free(m);
    llmmem_strategy_free(s);
}
END_TEST

START_TEST(test_overflow)
{
    /* INT64_MAX parameters: 4 bytes of fp32 gradient each exceed 64 bits */
    llmmem_model *m = count_only(INT64_MAX);
    llmmem_strategy *s = strategy(LLMMEM_MODE_TRAINING);
    set(s, LLMMEM_KEY_PRECISION_RECIPE, LLMMEM_RECIPE_PURE_BF16);
    expect_failure(m, s, LLMMEM_ERR_OVERFLOW, "exceed 64 bits");
    llmmem_model_free(m);
    llmmem_strategy_free(s);
}
END_TEST

static Suite *training_suite(void)
{
    Suite *s = suite_create("training");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_zero_16_psi);
    tcase_add_test(tc, test_megatron_18);
    tcase_add_test(tc, test_other_recipes);
    tcase_add_test(tc, test_overrides);
    tcase_add_test(tc, test_quantized_checkpoint_is_trained_in_recipe_format);
    tcase_add_test(tc, test_adamw_8bit);
    tcase_add_test(tc, test_adafactor);
    tcase_add_test(tc, test_muon_lion_sgd_momentum);
    tcase_add_test(tc, test_frozen_layers_llama);
    tcase_add_test(tc, test_frozen_layers_deepseek_v3);
    tcase_add_test(tc, test_lora_llama2_qv);
    tcase_add_test(tc, test_lora_experts);
    tcase_add_test(tc, test_qlora_llama2);
    tcase_add_test(tc, test_inference_unchanged);
    tcase_add_test(tc, test_lora_errors);
    tcase_add_test(tc, test_lora_rank_and_qlora_base);
    tcase_add_test(tc, test_overflow);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(training_suite());
}
