/* Per-layer activation memory against Korthikanti et al. 2022, Table 2, derived by hand for a
 * GPT-3 175B layer (h 12288, a 96 heads, s 2048, b 1, t 8: §6, Table 3's 175B row), and a
 * Llama-style layer with every saved tensor listed. */
#include <stdio.h>
#include <string.h>

#include "views/activations.h"
#include "unit.h"

static llmmem__act_layer gpt3_layer(uint64_t t, int sp, llmmem_recompute rc)
{
    llmmem__act_layer l = {.s = 2048, .b = 1, .h = 12288, .a = 96, .g = 96, .d = 128, .f = 4 * 12288,
                           .t = t, .bytes = 2, .sequence_parallel = sp, .dropout = 1, .attn = LLMMEM_ATTN_CORE, .gated = 0,
                           .recompute = rc};
    return l;
}

static uint64_t bytes_of(llmmem__act_layer l)
{
    uint64_t b;
    ck_assert_ok(llmmem__layer_activation_bytes(&b, &l));
    return b;
}

/* Table 2, with sbh = 2048 x 1 x 12288 and 5as^2b = 5 x 96 x 2048^2 x 1. */
START_TEST(korthikanti_table_2)
{
    const uint64_t sbh = 2048ULL * 12288, as2b = 96ULL * 2048 * 2048, t = 8;
    /* no parallelism: sbh(34 + 5as/h) = 34sbh + 5as^2b */
    ck_assert_uint_eq(bytes_of(gpt3_layer(1, 0, LLMMEM_RECOMPUTE_NONE)), 34 * sbh + 5 * as2b);
    /* tensor parallel: sbh(10 + 24/t + 5as/(ht)) */
    ck_assert_uint_eq(bytes_of(gpt3_layer(t, 0, LLMMEM_RECOMPUTE_NONE)), 10 * sbh + 24 * sbh / t + 5 * as2b / t);
    /* tensor + sequence parallel: sbh/t (34 + 5as/h) */
    ck_assert_uint_eq(bytes_of(gpt3_layer(t, 1, LLMMEM_RECOMPUTE_NONE)), (34 * sbh + 5 * as2b) / t);
    /* tensor parallel + selective recomputation: sbh(10 + 24/t) */
    ck_assert_uint_eq(bytes_of(gpt3_layer(t, 0, LLMMEM_RECOMPUTE_SELECTIVE)), 10 * sbh + 24 * sbh / t);
    /* tensor + sequence parallel + selective recomputation: 34 sbh / t */
    ck_assert_uint_eq(bytes_of(gpt3_layer(t, 1, LLMMEM_RECOMPUTE_SELECTIVE)), 34 * sbh / t);
    /* full recomputation: 2sbh, the layer's input */
    ck_assert_uint_eq(bytes_of(gpt3_layer(1, 0, LLMMEM_RECOMPUTE_FULL)), 2 * sbh);
    /* Megatron-LM theoretical_memory_usage.py (SP + selective): sbh(18 + 4f/h) / t, = 34sbh/t at f = 4h */
    ck_assert_uint_eq(bytes_of(gpt3_layer(t, 1, LLMMEM_RECOMPUTE_SELECTIVE)), sbh * (18 + 4 * 4) / t);
}
END_TEST

/* A Llama-3-8B layer (h 4096, 32 heads of 128, 8 KV heads, SwiGLU 14336), s 4096, b 1, bf16,
 * flash attention, no dropout, no parallelism. Saved: norm input, QKV input (sbh each); Q (s b 32
 * 128), K and V (s b 8 128 each); the fp32 log-sum-exp (32 x s x b x 4 bytes); the output
 * projection's input (s b 32 128); norm input and MLP input (sbh each); gate, up and down-input
 * (s b 14336 each). */
START_TEST(llama_style_layer)
{
    const uint64_t s = 4096, h = 4096, f = 14336;
    llmmem__act_layer l = {.s = s, .b = 1, .h = h, .a = 32, .g = 8, .d = 128, .f = f, .t = 1, .bytes = 2,
                           .sequence_parallel = 0, .dropout = 0, .attn = LLMMEM_ATTN_FUSED, .gated = 1, .fused_swiglu = 1,
                           .recompute = LLMMEM_RECOMPUTE_NONE};
    uint64_t expected = 2 * (s * h) * 2          /* norm input, QKV input */
                        + s * 32 * 128 * 2       /* Q */
                        + 2 * (s * 8 * 128 * 2)  /* K, V */
                        + 32 * s * 4             /* log-sum-exp */
                        + s * 32 * 128 * 2       /* output projection input */
                        + 2 * (s * h) * 2        /* norm input, MLP input */
                        + 3 * (s * f) * 2;       /* gate out, up out, down input */
    ck_assert_uint_eq(bytes_of(l), expected);
    /* each recomputation mode's saving follows from the list: selective drops nothing more under
     * flash (no scores are kept); full keeps the input alone */
    l.recompute = LLMMEM_RECOMPUTE_SELECTIVE;
    ck_assert_uint_eq(bytes_of(l), expected);
    l.recompute = LLMMEM_RECOMPUTE_FULL;
    ck_assert_uint_eq(bytes_of(l), s * h * 2);
}
END_TEST

START_TEST(overflow)
{
    llmmem__act_layer l = gpt3_layer(1, 0, LLMMEM_RECOMPUTE_NONE);
    l.s = 1ULL << 40;
    uint64_t b;
    ck_assert_status(llmmem__layer_activation_bytes(&b, &l), LLMMEM_ERR_OVERFLOW);
}
END_TEST

/* ---- the model: layers, head and loss under each recomputation mode ---------------------------- */

typedef struct run {
    llmmem_model *m;
    llmmem_hardware *hw;
    llmmem_strategy *s;
    llmmem_report *r;
} run;

static run start(llmmem_model *m, uint64_t seq, uint64_t batch)
{
    run x = {.m = m};
    ck_assert_ok(llmmem_hardware_from_preset(&x.hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&x.s));
    ck_assert_ok(llmmem_report_new(&x.r));
    ck_assert_ok(llmmem_strategy_set_int(x.s, LLMMEM_KEY_MODE, LLMMEM_MODE_TRAINING));
    ck_assert_ok(llmmem_strategy_set_int(x.s, LLMMEM_KEY_SEQUENCE_LENGTH, (int64_t)seq));
    ck_assert_ok(llmmem_strategy_set_int(x.s, LLMMEM_KEY_MICRO_BATCH_SIZE, (int64_t)batch));
    return x;
}

static void set(run *x, llmmem_key key, int64_t value)
{
    ck_assert_ok(llmmem_strategy_set_int(x->s, key, value));
}

static uint64_t part(run *x, llmmem_peak_part p)
{
    ck_assert_ok(llmmem_estimate(x->r, x->m, x->hw, x->s));
    return llmmem_report_peak_part(x->r, p);
}

static void finish(run *x)
{
    llmmem_report_free(x->r);
    llmmem_strategy_free(x->s);
    llmmem_hardware_free(x->hw);
    llmmem_model_free(x->m);
}

/* GPT-3 175B as Korthikanti et al. 2022 size it (§6, Table 3: h 12288, a 96, L 96, s 2048, v 51200),
 * a GPT-2-style model (LayerNorm, GeLU, learned positions, tied head). */
static llmmem_model *gpt3_175b(void)
{
    llmmem_model *m;
    ck_assert_ok(llmmem_model_new(&m));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_MODEL_TYPE, LLMMEM_MODEL_GPT2));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_HIDDEN_SIZE, 12288));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_HIDDEN_LAYERS, 96));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_ATTENTION_HEADS, 96));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_VOCAB_SIZE, 51200));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, 2048));
    return m;
}

/* Korthikanti §4.1-4.3 for the whole model, no parallelism, dropout on, unfused attention, fp32
 * vocabulary cross-entropy (Megatron's): L x (34sbh + 5as^2b) for the layers; outside them the
 * embedding dropout mask (sbh), the final LayerNorm's input (2sbh), the output projection's
 * input (2sbh) and the fp32 logits (4sbv). Korthikanti drop the int64 token ids (8sb), which are
 * kept here. */
START_TEST(korthikanti_whole_model)
{
    const uint64_t s = 2048, h = 12288, a = 96, L = 96, v = 51200;
    const uint64_t sbh = s * h, layer = 34 * sbh + 5 * a * s * s, extras = 8 * s + sbh + 2 * sbh + 2 * sbh;
    run x = start(gpt3_175b(), s, 1);
    set(&x, LLMMEM_KEY_FLASH_ATTENTION, 0);
    set(&x, LLMMEM_KEY_DROPOUT, 1);
    set(&x, LLMMEM_KEY_CROSS_ENTROPY, LLMMEM_CROSS_ENTROPY_FUSED);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_ACTIVATIONS_HELD), L * layer + extras);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_LOGITS_HELD), 4 * s * v);
    /* the fused loss writes its gradient over the fp32 softmax, then casts it to bf16 */
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_LOGITS_TRANSIENT), 2 * s * v);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_LARGEST_LAYER), layer);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_RECOMPUTE), 0);
    ck_assert_int_eq(llmmem_report_peak_phase(x.r), LLMMEM_PEAK_PHASE_LOSS);
    ck_assert_uint_eq(llmmem_report_bytes(x.r, LLMMEM_COMPONENT_ACTIVATIONS), L * layer + extras);
    ck_assert_uint_eq(llmmem_report_bytes(x.r, LLMMEM_COMPONENT_LOGITS), 6 * s * v);

    /* selective (§5): the layers keep 34sbh; backward rebuilds one layer's 5as^2b */
    set(&x, LLMMEM_KEY_RECOMPUTE, LLMMEM_RECOMPUTE_SELECTIVE);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_ACTIVATIONS_HELD), L * 34 * sbh + extras);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_RECOMPUTE), 5 * a * s * s);
    /* with flash attention there is no s x s tensor to drop: selective saves nothing more */
    set(&x, LLMMEM_KEY_FLASH_ATTENTION, 1);
    uint64_t flash_sel = part(&x, LLMMEM_PEAK_ACTIVATIONS_HELD);
    set(&x, LLMMEM_KEY_RECOMPUTE, LLMMEM_RECOMPUTE_NONE);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_ACTIVATIONS_HELD), flash_sel);
    /* flash keeps 34sbh - (2 softmax + 1 mask + 2 dropout)... none of the 5as^2b, plus the fp32
     * log-sum-exp per head and token: 4as bytes */
    ck_assert_uint_eq(flash_sel, L * (34 * sbh + 4 * a * s) + extras);
    finish(&x);
}
END_TEST

/* Full recomputation (Korthikanti §5: each checkpointed layer keeps its 2sbh input) and
 * Megatron-LM's --recompute-method uniform / block with --recompute-num-layers. */
START_TEST(recompute_modes)
{
    const uint64_t s = 2048, h = 12288, a = 96, L = 96;
    const uint64_t sbh = s * h, layer = 34 * sbh + 5 * a * s * s, input = 2 * sbh;
    const uint64_t extras = 8 * s + sbh + 2 * sbh + 2 * sbh;
    run x = start(gpt3_175b(), s, 1);
    set(&x, LLMMEM_KEY_FLASH_ATTENTION, 0);
    set(&x, LLMMEM_KEY_DROPOUT, 1);
    set(&x, LLMMEM_KEY_RECOMPUTE, LLMMEM_RECOMPUTE_FULL);
    /* uniform, 1 layer per chunk: 96 inputs; backward rebuilds one layer beside its kept input */
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_ACTIVATIONS_HELD), L * input + extras);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_RECOMPUTE), layer - input);
    ck_assert_int_eq(llmmem_report_peak_phase(x.r), LLMMEM_PEAK_PHASE_RECOMPUTE);
    /* by then the head's backward has freed the final norm's and the LM head's inputs (4sbh) */
    ck_assert_uint_eq(llmmem_report_bytes(x.r, LLMMEM_COMPONENT_ACTIVATIONS), L * input + extras - 4 * sbh + layer - input);
    ck_assert_uint_eq(llmmem_report_bytes(x.r, LLMMEM_COMPONENT_LOGITS), 0);
    /* uniform, 4 layers per chunk: 24 inputs, 4 layers rebuilt at once */
    set(&x, LLMMEM_KEY_RECOMPUTE_NUM_LAYERS, 4);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_ACTIVATIONS_HELD), 24 * input + extras);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_RECOMPUTE), 4 * layer - input);
    /* uniform, 5 per chunk: ceil(96 / 5) = 20 chunks, the last of one layer */
    set(&x, LLMMEM_KEY_RECOMPUTE_NUM_LAYERS, 5);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_ACTIVATIONS_HELD), 20 * input + extras);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_RECOMPUTE), 5 * layer - input);
    /* block, 10 layers: those keep their input, the other 86 keep everything */
    set(&x, LLMMEM_KEY_RECOMPUTE_METHOD, LLMMEM_RECOMPUTE_BLOCK);
    set(&x, LLMMEM_KEY_RECOMPUTE_NUM_LAYERS, 10);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_ACTIVATIONS_HELD), 10 * input + 86 * layer + extras);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_RECOMPUTE), layer - input);
    /* block with 0: every layer */
    set(&x, LLMMEM_KEY_RECOMPUTE_NUM_LAYERS, 0);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_ACTIVATIONS_HELD), L * input + extras);
    /* offload (DeepSpeed cpu_checkpointing): the 96 inputs go to the host; backward brings one back */
    set(&x, LLMMEM_KEY_RECOMPUTE_METHOD, LLMMEM_RECOMPUTE_UNIFORM);
    set(&x, LLMMEM_KEY_RECOMPUTE, LLMMEM_RECOMPUTE_OFFLOAD);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_ACTIVATIONS_HELD), extras);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_HOST_ACTIVATIONS), L * input);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_RECOMPUTE), layer);
    /* in host memory on each of the node's 8 devices (llmmem_report_host_bytes) */
    ck_assert_uint_eq(llmmem_report_host_bytes(x.r), 8 * L * input);
    /* fp32 norms: the two norm inputs of a layer and the final norm's are 4 bytes an element */
    set(&x, LLMMEM_KEY_RECOMPUTE, LLMMEM_RECOMPUTE_NONE);
    set(&x, LLMMEM_KEY_NORM_FP32, 1);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_ACTIVATIONS_HELD), L * (layer + 2 * 2 * sbh) + extras + 2 * sbh);
    /* more layers per chunk than the model has */
    set(&x, LLMMEM_KEY_RECOMPUTE, LLMMEM_RECOMPUTE_FULL);
    set(&x, LLMMEM_KEY_RECOMPUTE_NUM_LAYERS, 97);
    ck_assert_status(llmmem_estimate(x.r, x.m, x.hw, x.s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "recompute_num_layers (97) exceeds the 96 layers of the model"));
    finish(&x);
}
END_TEST

/* Llama-3-8B (meta-llama/Meta-Llama-3-8B config.json: h 4096, 32 layers, 32 heads, 8 KV heads,
 * head_dim 128, SwiGLU 14336, vocab 128256, untied), bf16, s 8192, b 1, flash, transformers'
 * unfused SwiGLU (act_fn(gate) * up: gate, act output, up, product kept). */
START_TEST(llama3_8b_model)
{
    const uint64_t T = 8192, h = 4096, f = 14336, V = 128256;
    const uint64_t layer = 2 * (T * h) * 2 + T * 32 * 128 * 2 + 2 * (T * 8 * 128 * 2) + 32 * T * 4 +
                           T * 32 * 128 * 2 + 2 * (T * h) * 2 + 4 * (T * f) * 2;
    const uint64_t extras = 8 * T + 2 * (T * h * 2);
    llmmem_model *m;
    ck_assert_ok(llmmem_model_from_preset(&m, "llama-3.1-8b"));
    run x = start(m, T, 1);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_ACTIVATIONS_HELD), 32 * layer + extras);
    /* transformers ForCausalLMLoss: bf16 logits (model output) + fp32 log-probabilities saved;
     * backward adds their fp32 gradient and the logits' fp32 gradient */
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_LOGITS_HELD), T * V * (2 + 4));
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_LOGITS_TRANSIENT), T * V * 8);
    /* logits kept in bf16: 2 + 2 held, 2 + 2 transient */
    set(&x, LLMMEM_KEY_LOGITS_FP32, 0);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_LOGITS_HELD), T * V * 4);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_LOGITS_TRANSIENT), T * V * 4);
    /* Liger fused linear cross-entropy: inc_factor ceil(128256 / 4096) = 32, chunk
     * next_power_of_2(ceil(8192 / 32)) = 256 tokens; the hidden states' gradient (T x h bf16) is
     * kept from the forward */
    set(&x, LLMMEM_KEY_LOGITS_FP32, 1);
    set(&x, LLMMEM_KEY_CROSS_ENTROPY, LLMMEM_CROSS_ENTROPY_CHUNKED);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_LOGITS_HELD), T * h * 2);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_LOGITS_TRANSIENT), 256 * V * 4);
    set(&x, LLMMEM_KEY_LOSS_CHUNK_TOKENS, 1024);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_LOGITS_TRANSIENT), 1024 * V * 4);
    /* Megatron's fused SwiGLU keeps one f-wide tensor less per layer */
    set(&x, LLMMEM_KEY_FUSED_SWIGLU, 1);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_ACTIVATIONS_HELD), 32 * (layer - T * f * 2) + extras);
    /* micro-batch 2 doubles every activation */
    set(&x, LLMMEM_KEY_MICRO_BATCH_SIZE, 2);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_ACTIVATIONS_HELD), 2 * (32 * (layer - T * f * 2) + extras));
    /* LoRA r 8 on q and v (PEFT tuners/lora/layer.py Linear.forward, frozen base, fp32 adapters):
     * torch saves a linear's input only for its weight's gradient (derivatives.yaml), so the frozen
     * q/k/v, gate/up and down_proj keep none (T h + T h + T f, bf16; o_proj's input is the fused
     * attention's output, which its own backward keeps); each adapter keeps its fp32 copy of the norm
     * output (tuners_utils.py _cast_input_dtype, 2 x T h x 4) and lora_A's fp32 T x 8 output */
    set(&x, LLMMEM_KEY_MICRO_BATCH_SIZE, 1);
    set(&x, LLMMEM_KEY_MODE, LLMMEM_MODE_LORA);
    set(&x, LLMMEM_KEY_LORA_RANK, 8);
    ck_assert_ok(llmmem_strategy_set_text(x.s, "lora_targets", "q,v"));
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_LARGEST_LAYER), layer - T * f * 2 - (T * h + T * h + T * f) * 2 +
                                                               2 * (T * h) * 4 + 2 * (T * 8) * 4);
    /* the frozen embedding's output needs no grad unless a hook asks (transformers
     * enable_input_require_grads, called for gradient checkpointing): the first layer's input norm
     * then runs unrecorded, and its saved input (T h, bf16; Megatron's norm keeps the input alone)
     * goes; flash attention saves Q, K and V for the adapted Q's and V's gradients either way */
    set(&x, LLMMEM_KEY_INPUT_REQUIRES_GRAD, 2);
    const uint64_t with_grad = part(&x, LLMMEM_PEAK_ACTIVATIONS_HELD);
    set(&x, LLMMEM_KEY_INPUT_REQUIRES_GRAD, 1);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_ACTIVATIONS_HELD), with_grad - T * h * 2);
    set(&x, LLMMEM_KEY_INPUT_REQUIRES_GRAD, 0); /* auto: off without full recomputation */
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_ACTIVATIONS_HELD), with_grad - T * h * 2);
    finish(&x);
}
END_TEST

/* Llama-3.2-1B (h 2048, 32 heads of 64, 8 KV heads, SwiGLU 8192), b 2, s 2048, bf16, as transformers 5
 * trains it under the Trainer on CUDA; measured on an H100 (tests/data/gpu t_llama1b_sdpa: every decoder
 * layer's forward adds the same bytes). Each RMSNorm saves the fp32 copy of its input that
 * LlamaRMSNorm.forward makes before pow (norm_fp32 unset), its fp32 rstd and its bf16 normalized value,
 * and hands its output to the projections; SDPA keeps q, k, v, its output and the fp32 log-sum-exp; the
 * MLP its gate and up outputs, act(gate) and their product. */
START_TEST(hf_trainer_llama_layer)
{
    const uint64_t T = 2 * 2048, h = 2048, f = 8192;
    const uint64_t norm = T * h * 4 + T * 4 + T * h * 2 + T * h * 2;
    /* q, k, v; the fp32 log-sum-exp; the philox seed and offset, an int64 each; the output */
    const uint64_t attention = T * 32 * 64 * 2 + 2 * (T * 8 * 64 * 2) + 32 * T * 4 + 2 * 8 + T * 32 * 64 * 2;
    llmmem_model *m;
    ck_assert_ok(llmmem_model_from_preset(&m, "llama-3.2-1b"));
    run x = start(m, 2048, 2);
    ck_assert_ok(llmmem_strategy_set_text(x.s, "framework", "hf_trainer"));
    ck_assert_ok(llmmem_strategy_set_text(x.s, "precision_recipe", "pure_bf16"));
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_LARGEST_LAYER), 2 * norm + attention + 4 * (T * f * 2));
    /* as measured: 445,154,304 bytes a layer, 1,008 of them the allocator's rounding of SDPA's two
     * 8-byte philox tensors to 512 bytes each */
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_LARGEST_LAYER), 445154304ULL - 1008);
    finish(&x);
}
END_TEST

/* The same layer under PEFT LoRA r 16 on every linear (fp32 adapters, tuners/lora/layer.py Linear.forward):
 * the frozen linears keep no input; each adapter casts its input to fp32 for lora_A
 * (tuners_utils.py _cast_input_dtype) and lora_B keeps lora_A's fp32 r-wide output; the norms keep
 * their fp32 input and rstd, their frozen weight's mul nothing more; SDPA keeps q, k, v, the log-sum-exp,
 * the philox pair and its output (o_proj's input: its adapter's copy is fp32); the MLP keeps gate,
 * up and act(gate), and down's adapter its fp32 copy of their product. Measured on an H100
 * (tests/data/gpu t_llama1b_lora_all): 648,315,904 bytes a layer, 1,008 of them the philox pair's
 * rounding. */
START_TEST(hf_trainer_lora_every_linear)
{
    const uint64_t T = 2 * 2048, h = 2048, f = 8192, r = 16;
    const uint64_t norms = 2 * (T * h * 4 + T * 4);
    const uint64_t adapters = 5 * (T * h * 4) + T * 2048 * 4 + T * f * 4 + 7 * (T * r * 4);
    const uint64_t attention = T * 32 * 64 * 2 + 2 * (T * 8 * 64 * 2) + 32 * T * 4 + 2 * 8 + T * 32 * 64 * 2;
    llmmem_model *m;
    ck_assert_ok(llmmem_model_from_preset(&m, "llama-3.2-1b"));
    run x = start(m, 2048, 2);
    ck_assert_ok(llmmem_strategy_set_text(x.s, "framework", "hf_trainer"));
    ck_assert_ok(llmmem_strategy_set_text(x.s, "mode", "lora"));
    ck_assert_ok(llmmem_strategy_set_text(x.s, "lora_rank", "16"));
    ck_assert_ok(llmmem_strategy_set_text(x.s, "lora_targets", "q,k,v,o,gate,up,down"));
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_LARGEST_LAYER), norms + adapters + attention + 3 * (T * f * 2));
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_LARGEST_LAYER), 648315904ULL - 1008);
    finish(&x);
}
END_TEST

/* Gemma-3-1B (tests/data/gpu/configs/gemma-3-1b.json: h 1152, 4 heads of 256, 1 KV head, 6912 wide,
 * sliding layers of 512 tokens), b 2, s 1024, under the Trainer on CUDA. Each Gemma3RMSNorm keeps its
 * fp32 input and rstd, its fp32 normalized value and (1 + weight) (output * (1.0 + weight.float())),
 * q_norm and k_norm the same per head; SDPA keeps q, k, v, the log-sum-exp, the philox pair and its
 * output; the MLP gate, up, gelu(gate) and their product. A sliding layer's SDPA gets a mask
 * (masking_utils.py sdpa_mask: the window is shorter than the sequence), which rules flash out: the
 * memory-efficient backend keeps the float [b, 1, s, s] mask attention.cpp made of the bool one.
 * Measured on an H100 (tests/data/gpu t_gemma3_1b_sdpa, expandable segments): 233,960,448 bytes a
 * sliding layer, 229,766,144 a full one, 1,008 of each the philox pair's rounding. */
START_TEST(hf_trainer_gemma3_sliding_layers)
{
    const uint64_t T = 2 * 1024, h = 1152, a = 4, d = 256, f = 6912;
    const uint64_t norm = T * h * 4 + T * 4 + T * h * 4 + h * 4;
    const uint64_t qk_norms = 2 * (T * a * d * 4) + T * a * 4 + d * 4 + 2 * (T * d * 4) + T * 4 + d * 4;
    const uint64_t attention = T * a * d * 2 + 2 * (T * d * 2) + a * T * 4 + 2 * 8 + T * a * d * 2;
    const uint64_t full = 4 * norm + 2 * (T * h * 2) + qk_norms + attention + 4 * (T * f * 2), mask = 2 * 1024 * 1024 * 2;
    char path[512];
    llmmem_model *m;
    snprintf(path, sizeof path, "%s/gpu/configs/gemma-3-1b.json", LLMMEM_TEST_DATA);
    ck_assert_ok(llmmem_model_from_hf_config(&m, path));
    run x = start(m, 1024, 2);
    ck_assert_ok(llmmem_strategy_set_text(x.s, "framework", "hf_trainer"));
    ck_assert_ok(llmmem_strategy_set_text(x.s, "precision_recipe", "pure_bf16"));
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_LARGEST_LAYER), full + mask);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_LARGEST_LAYER), 233960448ULL - 1008);
    /* a window over the whole sequence: no mask, flash for every layer */
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_SLIDING_WINDOW, 1024));
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_LARGEST_LAYER), full);
    ck_assert_uint_eq(full, 229766144ULL - 1008);
    finish(&x);
}
END_TEST

/* Llama 4 Scout (48 layers, every fourth global, the others attending within chunks of 8192 tokens)
 * under the Trainer at 16,384 tokens: its chunked layers' SDPA reads a mask (masking_utils.py
 * chunked_causal_mask cannot be skipped past one chunk), so each keeps the memory-efficient backend's
 * float [b, 1, s, s] mask; every layer keeps SDPA's philox pair. FlashAttention-2 (flash_attn's own
 * kernel, no mask: chunks by its arguments) keeps neither. */
START_TEST(hf_trainer_chunked_layers_keep_their_mask)
{
    const uint64_t s = 16384;
    llmmem_model *m;
    ck_assert_ok(llmmem_model_from_preset(&m, "llama-4-scout-17b-16e"));
    run x = start(m, s, 1);
    ck_assert_ok(llmmem_strategy_set_text(x.s, "framework", "hf_trainer"));
    ck_assert_ok(llmmem_strategy_set_text(x.s, "attn_implementation", "flash_attention_2"));
    const uint64_t flash = part(&x, LLMMEM_PEAK_ACTIVATIONS_HELD);
    ck_assert_ok(llmmem_strategy_set_text(x.s, "attn_implementation", "sdpa"));
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_ACTIVATIONS_HELD), flash + 36 * (s * s * 2) + 48 * 16);
    finish(&x);
}
END_TEST

/* Mixtral-8x7B (mistralai/Mixtral-8x7B-v0.1 config.json: h 4096, 32 layers, 32 heads, 8 KV heads,
 * 8 experts, 2 per token, expert width 14336, vocab 32000), s 4096: each MoE layer keeps the fp32
 * router softmax (T x 8) and chosen weights (T x 2), the 2T dispatched tokens, each expert's four
 * f-wide tensors for its 2T token copies, and the expert outputs (2T x h) for the combine. */
START_TEST(mixtral_moe_layer)
{
    const uint64_t T = 4096, h = 4096, fe = 14336;
    const uint64_t attention = 2 * (T * h) * 2 + T * 32 * 128 * 2 + 2 * (T * 8 * 128 * 2) + 32 * T * 4 + T * 32 * 128 * 2;
    const uint64_t moe = 2 * (T * h) * 2 + T * 8 * 4 + T * 2 * 4 + 2 * T * h * 2 + 4 * (2 * T * fe) * 2 + 2 * T * h * 2;
    llmmem_model *m;
    ck_assert_ok(llmmem_model_from_preset(&m, "mixtral-8x7b"));
    run x = start(m, T, 1);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_ACTIVATIONS_HELD), 32 * (attention + moe) + 8 * T + 2 * (T * h * 2));
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_LARGEST_LAYER), attention + moe);
    /* transformers' eager experts loop (modeling_mixtral.py MixtralExperts.forward; torch
     * derivatives.yaml; tests/groundtruth/test_mixtral_saved.py derives it op by op): per
     * assignment (2T) where's int64 (slot, token) pair, the gathered fp32 routing weight and
     * index_add_'s bf16 source; per token topk's two int64 indices and the fp32 divisor of the
     * normalization */
    set(&x, LLMMEM_KEY_EXPERTS_IMPLEMENTATION, LLMMEM_EXPERTS_EAGER);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_LARGEST_LAYER), attention + moe + 2 * T * (16 + 4 + h * 2) + T * (2 * 8 + 4));
    finish(&x);
}
END_TEST

/* DeepSeek-V2-Lite (deepseek-ai/DeepSeek-V2-Lite config.json: h 2048, 27 layers, 16 heads, MLA with
 * q_lora_rank null, kv_lora_rank 512, qk_rope 64, qk_nope 128, v_head_dim 128; first layer dense
 * (intermediate 10944), then 64 experts, 6 per token, width 1408, 2 shared experts = 2816 wide).
 * MLA keeps the norm and projection inputs, the kv down-projection's output (512 + 64), the kv
 * up-projection's input (512), Q and K (16 x 192), V (16 x 128), the log-sum-exp and the output
 * projection's input (16 x 128). */
START_TEST(deepseek_mla_moe)
{
    const uint64_t T = 4096, h = 2048;
    const uint64_t attention = 2 * (T * h) * 2 + T * 576 * 2 + T * 512 * 2 + T * 16 * 192 * 2 * 2 + T * 16 * 128 * 2 +
                               16 * T * 4 + T * 16 * 128 * 2;
    const uint64_t mlp_in = 2 * (T * h) * 2;
    const uint64_t dense = attention + mlp_in + 4 * (T * 10944) * 2;
    const uint64_t moe = attention + mlp_in + T * 64 * 4 + T * 6 * 4 + 6 * T * h * 2 + 4 * (6 * T * 1408) * 2 +
                         6 * T * h * 2 + 4 * (T * 2816) * 2;
    llmmem_model *m;
    ck_assert_ok(llmmem_model_from_preset(&m, "deepseek-v2-lite"));
    run x = start(m, T, 1);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_ACTIVATIONS_HELD), dense + 26 * moe + 8 * T + 2 * (T * h * 2));
    /* uniform chunks of 2 layers: the largest chunk is two MoE layers */
    set(&x, LLMMEM_KEY_RECOMPUTE, LLMMEM_RECOMPUTE_FULL);
    set(&x, LLMMEM_KEY_RECOMPUTE_NUM_LAYERS, 2);
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_ACTIVATIONS_HELD), 14 * (T * h * 2) + 8 * T + 2 * (T * h * 2));
    ck_assert_uint_eq(part(&x, LLMMEM_PEAK_RECOMPUTE), 2 * moe - T * h * 2);
    finish(&x);
}
END_TEST

/* The peak composes the static state of training.c with the activation side: Llama-2-7B, Megatron's
 * 18 bytes per parameter (KerasHub llama2_7b_en: 6,738,415,616 parameters), s 4096, b 1. */
START_TEST(training_peak_total)
{
    const uint64_t n = 6738415616ULL;
    llmmem_model *m;
    ck_assert_ok(llmmem_model_from_preset(&m, "llama-2-7b"));
    run x = start(m, 4096, 1);
    ck_assert_ok(llmmem_estimate(x.r, x.m, x.hw, x.s));
    uint64_t state = 0;
    for (int c = LLMMEM_COMPONENT_WEIGHTS; c <= LLMMEM_COMPONENT_OPTIMIZER_STATES; c++)
        state += llmmem_report_bytes(x.r, (llmmem_component)c);
    ck_assert_uint_eq(state, 18 * n);
    ck_assert_uint_eq(llmmem_report_trainable_parameters(x.r), n);
    uint64_t held = llmmem_report_peak_part(x.r, LLMMEM_PEAK_ACTIVATIONS_HELD);
    uint64_t loss = llmmem_report_peak_part(x.r, LLMMEM_PEAK_LOGITS_HELD) +
                    llmmem_report_peak_part(x.r, LLMMEM_PEAK_LOGITS_TRANSIENT);
    ck_assert_uint_eq(llmmem_report_total_bytes(x.r),
                      18 * n + held + loss + llmmem_report_bytes(x.r, LLMMEM_COMPONENT_RUNTIME_OVERHEAD) +
                          llmmem_report_bytes(x.r, LLMMEM_COMPONENT_WORKSPACES));
    /* a model given by its count alone has no layers: the estimate says so */
    llmmem_model *count;
    ck_assert_ok(llmmem_model_new(&count));
    ck_assert_ok(llmmem_model_set_int(count, LLMMEM_KEY_NUM_PARAMETERS, 7000000000));
    ck_assert_status(llmmem_estimate(x.r, count, x.hw, x.s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "num_parameters alone"));
    llmmem_model_free(count);
    finish(&x);
}
END_TEST

/* Dettmers et al. 2023 (QLoRA) §1: finetuning a 65B model fits "<48GB". LLaMA-65B shapes (Touvron et
 * al. 2023 Table 2: h 8192, 80 layers, 64 heads; transformers LlamaConfig of the converted
 * checkpoint: intermediate 22016, vocab 32000), NF4 with double quantization, LoRA r 64 on every
 * linear (the paper's Guanaco setup), paged AdamW states, batch 1 of 512 tokens with gradient
 * checkpointing: the estimate stays under 48 GB of an A6000-class card. */
START_TEST(qlora_65b_under_48gb)
{
    llmmem_model *m;
    ck_assert_ok(llmmem_model_new(&m));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_MODEL_TYPE, LLMMEM_MODEL_LLAMA));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_HIDDEN_SIZE, 8192));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_HIDDEN_LAYERS, 80));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_ATTENTION_HEADS, 64));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_INTERMEDIATE_SIZE, 22016));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_VOCAB_SIZE, 32000));
    run x = start(m, 512, 1);
    set(&x, LLMMEM_KEY_MODE, LLMMEM_MODE_QLORA);
    set(&x, LLMMEM_KEY_LORA_RANK, 64);
    ck_assert_ok(llmmem_strategy_set_text(x.s, "lora_targets", "q,k,v,o,gate,up,down"));
    set(&x, LLMMEM_KEY_RECOMPUTE, LLMMEM_RECOMPUTE_FULL);
    ck_assert_ok(llmmem_estimate(x.r, x.m, x.hw, x.s));
    uint64_t without_overhead = llmmem_report_total_bytes(x.r) - llmmem_report_bytes(x.r, LLMMEM_COMPONENT_RUNTIME_OVERHEAD);
    ck_assert_msg(without_overhead < 48 * GB, "%llu", (unsigned long long)without_overhead);
    /* and more than the NF4 base alone: 4.127 bits a parameter for 65.2e9 parameters is 33.6 GB */
    ck_assert_uint_gt(without_overhead, 33 * GB);
    finish(&x);
}
END_TEST

/* A GPT-2 block as transformers' modeling_gpt2.py runs it eagerly (Conv1D addmm, LayerNorm,
 * softmax without an fp32 upcast, gelu_new as tensor arithmetic, dropout in three places), b 2,
 * s 64, h 128, 4 heads, f 4h, bf16; each saved tensor from the op sequence and torch's
 * derivatives.yaml, on CPU kernels (dropout's noise and layer_norm's mean and rstd in bf16:
 * aten/src/ATen/native/Dropout.cpp, layer_norm.cpp) and on CUDA ones (native_dropout's bool mask,
 * fp32 statistics). The attention scale, a Python float the mul saves as 8 bytes, is not counted. */
START_TEST(gpt2_block_cpu_and_cuda)
{
    const uint64_t b = 2, s = 64, h = 128, a = 4, f = 4 * h, e = 2;
    const uint64_t sbh = s * b * h, sbf = s * b * f, scores = b * a * s * s;
    llmmem__act_layer l = {.s = s, .b = b, .h = h, .a = a, .g = a, .d = h / a, .f = f, .t = 1, .bytes = 2,
                           .dropout = 1, .attn = LLMMEM_ATTN_EAGER, .norm_impl = LLMMEM_NORM_IMPL_EAGER,
                           .layernorm = 1, .recompute = LLMMEM_RECOMPUTE_NONE, .mask_bytes = 2, .cpu_norm_stats = 1,
                           .gelu_tanh_ops = 1, .softmax_in_dtype = 1};
    const uint64_t common = 2 * (e * sbh)   /* ln_1 and ln_2: their inputs */
                            + 2 * (e * sbh)  /* c_attn's and c_fc's inputs (addmm) */
                            + 3 * (e * sbh)  /* q, k, v for the two matmuls */
                            + e * scores     /* softmax's output, in bf16 */
                            + e * scores     /* the dropped weights (second matmul) */
                            + e * sbh        /* the merged heads (c_proj's addmm) */
                            + 5 * (e * sbf)  /* gelu_new: x, tanh, 0.5 * x, 1 + tanh, its output */
                            + 3 * 8;         /* gelu_new's three Python float factors */
    const uint64_t cpu = 2 * (2 * e * s * b) /* mean and rstd per row, bf16 */
                         + e * scores        /* attn_dropout's noise, bf16 */
                         + 2 * (e * sbh);    /* resid_dropout's and the MLP dropout's noise */
    ck_assert_uint_eq(bytes_of(l), common + cpu);
    l.mask_bytes = 1, l.cpu_norm_stats = 0;
    const uint64_t cuda = 2 * (2 * 4 * s * b) + scores + 2 * sbh;
    ck_assert_uint_eq(bytes_of(l), common + cuda);
    /* a fused GeLU (Megatron-LM bias_gelu, F.gelu) keeps its input and its output alone */
    l.gelu_tanh_ops = 0;
    ck_assert_uint_eq(bytes_of(l), common + cuda - 3 * (e * sbf) - 3 * 8);
}
END_TEST

/* A Gemma-2 decoder layer as modeling_gemma2.py runs it eagerly under torch 1.13, b 2, s 32,
 * h 128, 4 heads of 48, 2 KV heads, GeGLU 256, bf16: four Gemma2RMSNorms that scale by
 * (1 + weight) in fp32, attention softcapping (tanh), softmax in fp32. The shared rotary cos and
 * sin and the attention scale are counted outside the layer. */
START_TEST(gemma2_layer)
{
    const uint64_t b = 2, s = 32, h = 128, a = 4, d = 48, f = 256, e = 2;
    const uint64_t sbh = s * b * h, scores = b * a * s * s, q = b * a * s * d;
    llmmem__act_layer l = {.s = s, .b = b, .h = h, .a = a, .g = 2, .d = d, .f = f, .t = 1, .bytes = 2, .norm_bytes = 4,
                           .norms = 4, .attn = LLMMEM_ATTN_EAGER, .norm_impl = LLMMEM_NORM_IMPL_EAGER, .torch1 = 1,
                           .gated = 1, .recompute = LLMMEM_RECOMPUTE_NONE, .norm_scale_fp32 = 1, .softcap = 1};
    const uint64_t norm = 4 * sbh   /* pow's input, the fp32 upcast */
                          + 4 * sbh /* mean's input, the square (torch 1.13) */
                          + 4 * s * b /* rsqrt's output */
                          + 4 * sbh /* the fp32 normalized value (mul by 1 + weight) */
                          + 4 * h;  /* 1 + weight in fp32 */
    const uint64_t expected = 4 * norm
                              + 2 * (e * sbh)  /* the q/k/v and gate/up projections' inputs */
                              + 3 * (e * q)    /* rotated q, repeat_kv's copies of k and v */
                              + e * scores     /* softcapping's tanh output */
                              + 2 * 8          /* the cap, divided by and multiplied back */
                              + 4 * scores     /* softmax's fp32 output */
                              + e * scores     /* its bf16 copy (the second matmul) */
                              + e * q          /* the attention output (o_proj) */
                              + 4 * (e * s * b * f); /* gate, gelu, up, their product */
    ck_assert_uint_eq(bytes_of(l), expected);
}
END_TEST

/* A Llama-3-8B layer (h 4096, 32 heads of 128, 8 KV heads, SwiGLU 14336), s 4096, b 1, under
 * torch.autocast(bf16) over fp32 weights, transformers' eager code, PyTorch 2.x (mean keeps sizes
 * alone), derived by hand from torch/csrc/autograd/autocast_mode.cpp (cached_cast: linears and
 * matmuls cast their fp32 inputs afresh and the weights once, cached) and modeling_llama.py. */
START_TEST(autocast_layer)
{
    const uint64_t s = 4096, h = 4096, a = 32, g = 8, d = 128, f = 14336;
    llmmem__act_layer l = {.s = s, .b = 1, .h = h, .a = a, .g = g, .d = d, .f = f, .t = 1, .bytes = 2,
                           .norm_bytes = 4, .attn = LLMMEM_ATTN_EAGER, .norm_impl = LLMMEM_NORM_IMPL_EAGER,
                           .gated = 1, .recompute = LLMMEM_RECOMPUTE_NONE, .autocast = 1, .stream = 4,
                           .attn_weights = 2 * h * a * d + 2 * h * g * d, .mlp_weights = 3 * h * f};
    /* LlamaRMSNorm on the fp32 residual stream: pow's input (the stream itself), rsqrt's output per
     * row, and the normalized value the weight's mul saves, still fp32 (to(input_dtype) is fp32) */
    const uint64_t norm = 4 * s * h + 4 * s + 4 * s * h;
    const uint64_t attention = 3 * (2 * s * h)              /* q_proj, k_proj, v_proj: a bf16 input copy each */
                               + 2 * (2 * h * a * d + 2 * h * g * d) /* their and o_proj's bf16 weights */
                               + 2 * s * a * d               /* q, rotated in fp32, cast again by matmul */
                               + 2 * s * a * d               /* repeat_kv's k, cast by matmul */
                               + 4 * a * s * s               /* softmax(dtype=float32)'s output */
                               + 2 * a * s * s               /* its bf16 cast for the second matmul */
                               + 2 * s * a * d               /* repeat_kv's v, cast */
                               + 2 * s * a * d;              /* o_proj's input, bf16 already */
    const uint64_t mlp = 2 * (2 * s * h)                     /* gate_proj, up_proj: an input copy each */
                         + 2 * (3 * h * f)                   /* gate, up, down weights in bf16 */
                         + 4 * (2 * s * f);                  /* gate out, silu out, up out, product */
    ck_assert_uint_eq(bytes_of(l), 2 * norm + attention + mlp);
    /* full recomputation keeps the layer's fp32 input */
    l.recompute = LLMMEM_RECOMPUTE_FULL;
    ck_assert_uint_eq(bytes_of(l), 4 * s * h);
}
END_TEST

/* autocast is modelled where it was measured: full training of fp32 weights, dense layers. */
START_TEST(autocast_needs_fp32_training)
{
    llmmem_model *m;
    ck_assert_ok(llmmem_model_from_preset(&m, "llama-3.1-8b"));
    run x = start(m, 1024, 1);
    set(&x, LLMMEM_KEY_AUTOCAST, LLMMEM_AUTOCAST_BF16);
    /* the default recipe (megatron) keeps bf16 weights */
    ck_assert_status(llmmem_estimate(x.r, x.m, x.hw, x.s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "autocast"));
    set(&x, LLMMEM_KEY_PRECISION_RECIPE, LLMMEM_RECIPE_FP32);
    ck_assert_ok(llmmem_estimate(x.r, x.m, x.hw, x.s));
    set(&x, LLMMEM_KEY_MODE, LLMMEM_MODE_LORA);
    ck_assert_status(llmmem_estimate(x.r, x.m, x.hw, x.s), LLMMEM_ERR_INCOMPATIBLE);
    finish(&x);
    ck_assert_ok(llmmem_model_from_preset(&m, "mixtral-8x7b"));
    x = start(m, 1024, 1);
    set(&x, LLMMEM_KEY_AUTOCAST, LLMMEM_AUTOCAST_BF16);
    set(&x, LLMMEM_KEY_PRECISION_RECIPE, LLMMEM_RECIPE_FP32);
    ck_assert_status(llmmem_estimate(x.r, x.m, x.hw, x.s), LLMMEM_ERR_INCOMPATIBLE);
    finish(&x);
}
END_TEST

static Suite *activations_suite(void)
{
    Suite *s = suite_create("activations");
    TCase *tc = tcase_create("layer");
    tcase_add_test(tc, korthikanti_table_2);
    tcase_add_test(tc, llama_style_layer);
    tcase_add_test(tc, overflow);
    tcase_add_test(tc, gpt2_block_cpu_and_cuda);
    tcase_add_test(tc, gemma2_layer);
    tcase_add_test(tc, autocast_layer);
    suite_add_tcase(s, tc);
    TCase *model = tcase_create("model");
    tcase_add_test(model, korthikanti_whole_model);
    tcase_add_test(model, recompute_modes);
    tcase_add_test(model, llama3_8b_model);
    tcase_add_test(model, hf_trainer_llama_layer);
    tcase_add_test(model, hf_trainer_lora_every_linear);
    tcase_add_test(model, hf_trainer_gemma3_sliding_layers);
    tcase_add_test(model, hf_trainer_chunked_layers_keep_their_mask);
    tcase_add_test(model, mixtral_moe_layer);
    tcase_add_test(model, deepseek_mla_moe);
    tcase_add_test(model, training_peak_total);
    tcase_add_test(model, qlora_65b_under_48gb);
    tcase_add_test(model, autocast_needs_fp32_training);
    suite_add_tcase(s, model);
    return s;
}

int main(void)
{
    return run_suite(activations_suite());
}
