/* The model catalog: architectures of published checkpoints, key by key, as
 * their Hugging Face config.json gives them. A preset holds the architecture
 * only, never a parameter count: counts are derived from these shapes by the
 * inventory (arch.c), and tests/test_param_counts.c checks them against the counts
 * the publishers give.
 *
 * Every structural key is set explicitly, even where the family default
 * (model.c) would give the same value, so that a preset reads as its config. */
#include "base/internal.h"

#define K(key, value) {LLMMEM_KEY_##key, (value)}
#define END {LLMMEM_KEY_NONE, 0}

#define LN LLMMEM_NORM_LAYERNORM
#define RMS LLMMEM_NORM_RMSNORM
#define FP32 LLMMEM_FORMAT_FP32
#define FP16 LLMMEM_FORMAT_FP16
#define BF16 LLMMEM_FORMAT_BF16

/* ---- GPT-2 --------------------------------------------------------------
 * Conv1D layers with biases, ln_1/ln_2, learned wpe of n_positions rows, lm_head
 * tied to wte, n_inner null (4 * n_embd). The configs name no torch_dtype; the
 * checkpoints are stored in fp32. */

/* openai-community/gpt2 config.json */
static const llmmem__preset_value gpt2[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_GPT2), K(HIDDEN_SIZE, 768), K(NUM_HIDDEN_LAYERS, 12),
    K(NUM_ATTENTION_HEADS, 12), K(NUM_KEY_VALUE_HEADS, 12), K(INTERMEDIATE_SIZE, 3072),
    K(VOCAB_SIZE, 50257), K(MAX_POSITION_EMBEDDINGS, 1024), K(TIE_WORD_EMBEDDINGS, 1),
    K(MLP_GATED, 0), K(NORM_TYPE, LN), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 1), K(O_PROJ_BIAS, 1),
    K(MLP_BIAS, 1), K(LEARNED_POSITIONS, 1), K(POSITION_OFFSET, 0), K(TORCH_DTYPE, FP32), END};

/* openai-community/gpt2-medium config.json */
static const llmmem__preset_value gpt2_medium[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_GPT2), K(HIDDEN_SIZE, 1024), K(NUM_HIDDEN_LAYERS, 24),
    K(NUM_ATTENTION_HEADS, 16), K(NUM_KEY_VALUE_HEADS, 16), K(INTERMEDIATE_SIZE, 4096),
    K(VOCAB_SIZE, 50257), K(MAX_POSITION_EMBEDDINGS, 1024), K(TIE_WORD_EMBEDDINGS, 1),
    K(MLP_GATED, 0), K(NORM_TYPE, LN), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 1), K(O_PROJ_BIAS, 1),
    K(MLP_BIAS, 1), K(LEARNED_POSITIONS, 1), K(POSITION_OFFSET, 0), K(TORCH_DTYPE, FP32), END};

/* openai-community/gpt2-large config.json */
static const llmmem__preset_value gpt2_large[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_GPT2), K(HIDDEN_SIZE, 1280), K(NUM_HIDDEN_LAYERS, 36),
    K(NUM_ATTENTION_HEADS, 20), K(NUM_KEY_VALUE_HEADS, 20), K(INTERMEDIATE_SIZE, 5120),
    K(VOCAB_SIZE, 50257), K(MAX_POSITION_EMBEDDINGS, 1024), K(TIE_WORD_EMBEDDINGS, 1),
    K(MLP_GATED, 0), K(NORM_TYPE, LN), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 1), K(O_PROJ_BIAS, 1),
    K(MLP_BIAS, 1), K(LEARNED_POSITIONS, 1), K(POSITION_OFFSET, 0), K(TORCH_DTYPE, FP32), END};

/* openai-community/gpt2-xl config.json */
static const llmmem__preset_value gpt2_xl[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_GPT2), K(HIDDEN_SIZE, 1600), K(NUM_HIDDEN_LAYERS, 48),
    K(NUM_ATTENTION_HEADS, 25), K(NUM_KEY_VALUE_HEADS, 25), K(INTERMEDIATE_SIZE, 6400),
    K(VOCAB_SIZE, 50257), K(MAX_POSITION_EMBEDDINGS, 1024), K(TIE_WORD_EMBEDDINGS, 1),
    K(MLP_GATED, 0), K(NORM_TYPE, LN), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 1), K(O_PROJ_BIAS, 1),
    K(MLP_BIAS, 1), K(LEARNED_POSITIONS, 1), K(POSITION_OFFSET, 0), K(TORCH_DTYPE, FP32), END};

/* ---- OPT ---------------------------------------------------------------- */

/* facebook/opt-1.3b config.json (ffn_dim 8192, word_embed_proj_dim = hidden_size: no project_in/out;
 * OPTLearnedPositionalEmbedding has max_position_embeddings + 2 rows) */
static const llmmem__preset_value opt_1_3b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_OPT), K(HIDDEN_SIZE, 2048), K(NUM_HIDDEN_LAYERS, 24),
    K(NUM_ATTENTION_HEADS, 32), K(NUM_KEY_VALUE_HEADS, 32), K(INTERMEDIATE_SIZE, 8192),
    K(VOCAB_SIZE, 50272), K(MAX_POSITION_EMBEDDINGS, 2048), K(TIE_WORD_EMBEDDINGS, 1),
    K(MLP_GATED, 0), K(NORM_TYPE, LN), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 1), K(O_PROJ_BIAS, 1),
    K(MLP_BIAS, 1), K(LEARNED_POSITIONS, 1), K(POSITION_OFFSET, 2), K(TORCH_DTYPE, FP16), END};

/* ---- BLOOM -------------------------------------------------------------- */

/* bigscience/bloom-560m config.json (n_embed 1024, n_layer 24, n_head 16; ALiBi, so no position
 * table: max_position_embeddings is the 2048-token training length; weights stored in fp16) */
static const llmmem__preset_value bloom_560m[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_BLOOM), K(HIDDEN_SIZE, 1024), K(NUM_HIDDEN_LAYERS, 24),
    K(NUM_ATTENTION_HEADS, 16), K(NUM_KEY_VALUE_HEADS, 16), K(INTERMEDIATE_SIZE, 4096),
    K(VOCAB_SIZE, 250880), K(MAX_POSITION_EMBEDDINGS, 2048), K(TIE_WORD_EMBEDDINGS, 1),
    K(MLP_GATED, 0), K(NORM_TYPE, LN), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 1), K(O_PROJ_BIAS, 1),
    K(MLP_BIAS, 1), K(EMBEDDING_NORM, 1), K(LEARNED_POSITIONS, 0), K(TORCH_DTYPE, FP16), END};

/* ---- GPT-NeoX (Pythia) ---------------------------------------------------
 * Biased query_key_value, dense, dense_h_to_4h, dense_4h_to_h; rotary (rotary_pct 0.25); untied
 * embed_out without bias. */

/* EleutherAI/pythia-410m config.json */
static const llmmem__preset_value pythia_410m[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_GPT_NEOX), K(HIDDEN_SIZE, 1024), K(NUM_HIDDEN_LAYERS, 24),
    K(NUM_ATTENTION_HEADS, 16), K(NUM_KEY_VALUE_HEADS, 16), K(INTERMEDIATE_SIZE, 4096),
    K(VOCAB_SIZE, 50304), K(MAX_POSITION_EMBEDDINGS, 2048), K(TIE_WORD_EMBEDDINGS, 0),
    K(MLP_GATED, 0), K(NORM_TYPE, LN), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 1), K(O_PROJ_BIAS, 1),
    K(MLP_BIAS, 1), K(TORCH_DTYPE, FP16), END};

/* EleutherAI/pythia-1b config.json */
static const llmmem__preset_value pythia_1b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_GPT_NEOX), K(HIDDEN_SIZE, 2048), K(NUM_HIDDEN_LAYERS, 16),
    K(NUM_ATTENTION_HEADS, 8), K(NUM_KEY_VALUE_HEADS, 8), K(INTERMEDIATE_SIZE, 8192),
    K(VOCAB_SIZE, 50304), K(MAX_POSITION_EMBEDDINGS, 2048), K(TIE_WORD_EMBEDDINGS, 0),
    K(MLP_GATED, 0), K(NORM_TYPE, LN), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 1), K(O_PROJ_BIAS, 1),
    K(MLP_BIAS, 1), K(TORCH_DTYPE, FP16), END};

/* ---- Falcon ------------------------------------------------------------- */

/* tiiuae/falcon-7b config.json (multi_query: one k/v head of 64; parallel_attn with a single
 * input_layernorm; bias false; lm_head tied to word_embeddings; 2048-token context) */
static const llmmem__preset_value falcon_7b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_FALCON), K(HIDDEN_SIZE, 4544), K(NUM_HIDDEN_LAYERS, 32),
    K(NUM_ATTENTION_HEADS, 71), K(NUM_KEY_VALUE_HEADS, 1), K(INTERMEDIATE_SIZE, 18176),
    K(VOCAB_SIZE, 65024), K(MAX_POSITION_EMBEDDINGS, 2048), K(TIE_WORD_EMBEDDINGS, 1),
    K(MLP_GATED, 0), K(NORM_TYPE, LN), K(NORMS_PER_LAYER, 1), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0),
    K(MLP_BIAS, 0), K(TORCH_DTYPE, BF16), END};

/* ---- Llama family ---------------------------------------------------------
 * RMSNorm (weight only), SwiGLU MLP, no biases, 2 norms per layer. */
#define LLAMA_COMMON                                                                               \
    K(MODEL_TYPE, LLMMEM_MODEL_LLAMA), K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2),   \
        K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0), K(MLP_BIAS, 0)

/* meta-llama/Llama-2-7b-hf config.json */
static const llmmem__preset_value llama_2_7b[] = {
    LLAMA_COMMON, K(HIDDEN_SIZE, 4096), K(NUM_HIDDEN_LAYERS, 32), K(NUM_ATTENTION_HEADS, 32),
    K(NUM_KEY_VALUE_HEADS, 32), K(INTERMEDIATE_SIZE, 11008), K(VOCAB_SIZE, 32000),
    K(MAX_POSITION_EMBEDDINGS, 4096), K(TIE_WORD_EMBEDDINGS, 0), K(TORCH_DTYPE, FP16), END};

/* meta-llama/Llama-2-13b-hf config.json */
static const llmmem__preset_value llama_2_13b[] = {
    LLAMA_COMMON, K(HIDDEN_SIZE, 5120), K(NUM_HIDDEN_LAYERS, 40), K(NUM_ATTENTION_HEADS, 40),
    K(NUM_KEY_VALUE_HEADS, 40), K(INTERMEDIATE_SIZE, 13824), K(VOCAB_SIZE, 32000),
    K(MAX_POSITION_EMBEDDINGS, 4096), K(TIE_WORD_EMBEDDINGS, 0), K(TORCH_DTYPE, FP16), END};

/* meta-llama/Llama-2-70b-hf config.json */
static const llmmem__preset_value llama_2_70b[] = {
    LLAMA_COMMON, K(HIDDEN_SIZE, 8192), K(NUM_HIDDEN_LAYERS, 80), K(NUM_ATTENTION_HEADS, 64),
    K(NUM_KEY_VALUE_HEADS, 8), K(INTERMEDIATE_SIZE, 28672), K(VOCAB_SIZE, 32000),
    K(MAX_POSITION_EMBEDDINGS, 4096), K(TIE_WORD_EMBEDDINGS, 0), K(TORCH_DTYPE, FP16), END};

/* meta-llama/Meta-Llama-3-8B config.json */
static const llmmem__preset_value llama_3_8b[] = {
    LLAMA_COMMON, K(HIDDEN_SIZE, 4096), K(NUM_HIDDEN_LAYERS, 32), K(NUM_ATTENTION_HEADS, 32),
    K(NUM_KEY_VALUE_HEADS, 8), K(INTERMEDIATE_SIZE, 14336), K(VOCAB_SIZE, 128256),
    K(MAX_POSITION_EMBEDDINGS, 8192), K(TIE_WORD_EMBEDDINGS, 0), K(TORCH_DTYPE, BF16), END};

/* meta-llama/Llama-3.1-8B config.json */
static const llmmem__preset_value llama_3_1_8b[] = {
    LLAMA_COMMON, K(HIDDEN_SIZE, 4096), K(NUM_HIDDEN_LAYERS, 32), K(NUM_ATTENTION_HEADS, 32),
    K(NUM_KEY_VALUE_HEADS, 8), K(INTERMEDIATE_SIZE, 14336), K(VOCAB_SIZE, 128256),
    K(MAX_POSITION_EMBEDDINGS, 131072), K(TIE_WORD_EMBEDDINGS, 0), K(TORCH_DTYPE, BF16), END};

/* meta-llama/Llama-3.1-70B config.json */
static const llmmem__preset_value llama_3_1_70b[] = {
    LLAMA_COMMON, K(HIDDEN_SIZE, 8192), K(NUM_HIDDEN_LAYERS, 80), K(NUM_ATTENTION_HEADS, 64),
    K(NUM_KEY_VALUE_HEADS, 8), K(INTERMEDIATE_SIZE, 28672), K(VOCAB_SIZE, 128256),
    K(MAX_POSITION_EMBEDDINGS, 131072), K(TIE_WORD_EMBEDDINGS, 0), K(TORCH_DTYPE, BF16), END};

/* meta-llama/Llama-3.1-405B config.json */
static const llmmem__preset_value llama_3_1_405b[] = {
    LLAMA_COMMON, K(HIDDEN_SIZE, 16384), K(NUM_HIDDEN_LAYERS, 126), K(NUM_ATTENTION_HEADS, 128),
    K(NUM_KEY_VALUE_HEADS, 8), K(INTERMEDIATE_SIZE, 53248), K(VOCAB_SIZE, 128256),
    K(MAX_POSITION_EMBEDDINGS, 131072), K(TIE_WORD_EMBEDDINGS, 0), K(TORCH_DTYPE, BF16), END};

/* meta-llama/Llama-3.2-1B config.json (head_dim 64, tie_word_embeddings true) */
static const llmmem__preset_value llama_3_2_1b[] = {
    LLAMA_COMMON, K(HIDDEN_SIZE, 2048), K(NUM_HIDDEN_LAYERS, 16), K(NUM_ATTENTION_HEADS, 32),
    K(NUM_KEY_VALUE_HEADS, 8), K(HEAD_DIM, 64), K(INTERMEDIATE_SIZE, 8192), K(VOCAB_SIZE, 128256),
    K(MAX_POSITION_EMBEDDINGS, 131072), K(TIE_WORD_EMBEDDINGS, 1), K(TORCH_DTYPE, BF16), END};

/* meta-llama/Llama-3.2-3B config.json (head_dim 128, tie_word_embeddings true) */
static const llmmem__preset_value llama_3_2_3b[] = {
    LLAMA_COMMON, K(HIDDEN_SIZE, 3072), K(NUM_HIDDEN_LAYERS, 28), K(NUM_ATTENTION_HEADS, 24),
    K(NUM_KEY_VALUE_HEADS, 8), K(HEAD_DIM, 128), K(INTERMEDIATE_SIZE, 8192), K(VOCAB_SIZE, 128256),
    K(MAX_POSITION_EMBEDDINGS, 131072), K(TIE_WORD_EMBEDDINGS, 1), K(TORCH_DTYPE, BF16), END};

#undef LLAMA_COMMON

/* ---- Mistral / Mixtral ---------------------------------------------------- */

/* mistralai/Mistral-7B-v0.1 config.json (sliding_window 4096: every layer's cache keeps the last 4,096 tokens) */
static const llmmem__preset_value mistral_7b_v0_1[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_MISTRAL), K(HIDDEN_SIZE, 4096), K(NUM_HIDDEN_LAYERS, 32),
    K(NUM_ATTENTION_HEADS, 32), K(NUM_KEY_VALUE_HEADS, 8), K(INTERMEDIATE_SIZE, 14336),
    K(VOCAB_SIZE, 32000), K(MAX_POSITION_EMBEDDINGS, 32768), K(TIE_WORD_EMBEDDINGS, 0),
    K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0),
    K(MLP_BIAS, 0), K(SLIDING_WINDOW, 4096), K(TORCH_DTYPE, BF16), END};

/* mistralai/Mixtral-8x7B-v0.1 config.json (num_local_experts 8, num_experts_per_tok 2; every
 * layer is MoE; each expert is w1/w3/w2 of intermediate_size 14336; router `gate` has no bias) */
static const llmmem__preset_value mixtral_8x7b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_MIXTRAL), K(HIDDEN_SIZE, 4096), K(NUM_HIDDEN_LAYERS, 32),
    K(NUM_ATTENTION_HEADS, 32), K(NUM_KEY_VALUE_HEADS, 8), K(INTERMEDIATE_SIZE, 14336),
    K(VOCAB_SIZE, 32000), K(MAX_POSITION_EMBEDDINGS, 32768), K(TIE_WORD_EMBEDDINGS, 0),
    K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0),
    K(MLP_BIAS, 0), K(NUM_EXPERTS, 8), K(NUM_EXPERTS_PER_TOK, 2), K(MOE_INTERMEDIATE_SIZE, 14336),
    K(N_SHARED_EXPERTS, 0), K(FIRST_K_DENSE_REPLACE, 0), K(MOE_LAYER_FREQ, 1), K(ROUTER_BIAS, 0),
    K(ROUTER_SCORE_CORRECTION_BIAS, 0), K(TORCH_DTYPE, BF16), END};

/* ---- Qwen ------------------------------------------------------------------
 * Qwen2: RMSNorm, SwiGLU, biases on q/k/v only. Qwen3: no biases, q_norm/k_norm of head_dim. */
#define QWEN2_COMMON                                                                               \
    K(MODEL_TYPE, LLMMEM_MODEL_QWEN2), K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2),   \
        K(QKV_BIAS, 1), K(O_PROJ_BIAS, 0), K(MLP_BIAS, 0)

/* Qwen/Qwen2.5-0.5B config.json (tie_word_embeddings true) */
static const llmmem__preset_value qwen2_5_0_5b[] = {
    QWEN2_COMMON, K(HIDDEN_SIZE, 896), K(NUM_HIDDEN_LAYERS, 24), K(NUM_ATTENTION_HEADS, 14),
    K(NUM_KEY_VALUE_HEADS, 2), K(INTERMEDIATE_SIZE, 4864), K(VOCAB_SIZE, 151936),
    K(MAX_POSITION_EMBEDDINGS, 32768), K(TIE_WORD_EMBEDDINGS, 1), K(TORCH_DTYPE, BF16), END};

/* Qwen/Qwen2.5-7B config.json */
static const llmmem__preset_value qwen2_5_7b[] = {
    QWEN2_COMMON, K(HIDDEN_SIZE, 3584), K(NUM_HIDDEN_LAYERS, 28), K(NUM_ATTENTION_HEADS, 28),
    K(NUM_KEY_VALUE_HEADS, 4), K(INTERMEDIATE_SIZE, 18944), K(VOCAB_SIZE, 152064),
    K(MAX_POSITION_EMBEDDINGS, 131072), K(TIE_WORD_EMBEDDINGS, 0), K(TORCH_DTYPE, BF16), END};

/* Qwen/Qwen2.5-72B config.json */
static const llmmem__preset_value qwen2_5_72b[] = {
    QWEN2_COMMON, K(HIDDEN_SIZE, 8192), K(NUM_HIDDEN_LAYERS, 80), K(NUM_ATTENTION_HEADS, 64),
    K(NUM_KEY_VALUE_HEADS, 8), K(INTERMEDIATE_SIZE, 29568), K(VOCAB_SIZE, 152064),
    K(MAX_POSITION_EMBEDDINGS, 131072), K(TIE_WORD_EMBEDDINGS, 0), K(TORCH_DTYPE, BF16), END};

#undef QWEN2_COMMON

/* Qwen/Qwen3-8B config.json (head_dim 128, q_norm/k_norm) */
static const llmmem__preset_value qwen3_8b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_QWEN3), K(HIDDEN_SIZE, 4096), K(NUM_HIDDEN_LAYERS, 36),
    K(NUM_ATTENTION_HEADS, 32), K(NUM_KEY_VALUE_HEADS, 8), K(HEAD_DIM, 128),
    K(INTERMEDIATE_SIZE, 12288), K(VOCAB_SIZE, 151936), K(MAX_POSITION_EMBEDDINGS, 40960),
    K(TIE_WORD_EMBEDDINGS, 0), K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2),
    K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0), K(MLP_BIAS, 0), K(QK_NORM, 1), K(TORCH_DTYPE, BF16), END};

/* Qwen/Qwen3-30B-A3B config.json (128 experts of moe_intermediate_size 768, 8 per token,
 * decoder_sparse_step 1 and no mlp_only_layers: every layer MoE; no shared expert; the dense
 * intermediate_size 6144 is unused) */
static const llmmem__preset_value qwen3_30b_a3b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_QWEN3_MOE), K(HIDDEN_SIZE, 2048), K(NUM_HIDDEN_LAYERS, 48),
    K(NUM_ATTENTION_HEADS, 32), K(NUM_KEY_VALUE_HEADS, 4), K(HEAD_DIM, 128),
    K(INTERMEDIATE_SIZE, 6144), K(VOCAB_SIZE, 151936), K(MAX_POSITION_EMBEDDINGS, 40960),
    K(TIE_WORD_EMBEDDINGS, 0), K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2),
    K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0), K(MLP_BIAS, 0), K(QK_NORM, 1), K(NUM_EXPERTS, 128),
    K(NUM_EXPERTS_PER_TOK, 8), K(MOE_INTERMEDIATE_SIZE, 768), K(N_SHARED_EXPERTS, 0),
    K(FIRST_K_DENSE_REPLACE, 0), K(MOE_LAYER_FREQ, 1), K(ROUTER_BIAS, 0),
    K(ROUTER_SCORE_CORRECTION_BIAS, 0), K(TORCH_DTYPE, BF16), END};

/* ---- Gemma / Phi ------------------------------------------------------------ */

/* google/gemma-2-9b config.json (head_dim 256; input, post_attention, pre_feedforward and
 * post_feedforward norms; tied; the base checkpoint is stored in float32) */
static const llmmem__preset_value gemma_2_9b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_GEMMA2), K(HIDDEN_SIZE, 3584), K(NUM_HIDDEN_LAYERS, 42),
    K(NUM_ATTENTION_HEADS, 16), K(NUM_KEY_VALUE_HEADS, 8), K(HEAD_DIM, 256),
    K(INTERMEDIATE_SIZE, 14336), K(VOCAB_SIZE, 256000), K(MAX_POSITION_EMBEDDINGS, 8192),
    K(TIE_WORD_EMBEDDINGS, 1), K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 4),
    K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0), K(MLP_BIAS, 0), K(QK_NORM, 0), K(SLIDING_WINDOW, 4096), K(TORCH_DTYPE, FP32),
    END};

/* microsoft/Phi-3-mini-4k-instruct config.json (fused qkv_proj and gate_up_proj hold the same
 * weights as separate q/k/v and gate/up) */
static const llmmem__preset_value phi_3_mini_4k[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_PHI3), K(HIDDEN_SIZE, 3072), K(NUM_HIDDEN_LAYERS, 32),
    K(NUM_ATTENTION_HEADS, 32), K(NUM_KEY_VALUE_HEADS, 32), K(INTERMEDIATE_SIZE, 8192),
    K(VOCAB_SIZE, 32064), K(MAX_POSITION_EMBEDDINGS, 4096), K(TIE_WORD_EMBEDDINGS, 0),
    K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0),
    K(MLP_BIAS, 0), K(SLIDING_WINDOW, 2047), K(TORCH_DTYPE, BF16), END};

/* ---- DeepSeek ----------------------------------------------------------------
 * Multi-head latent attention; MoE from layer first_k_dense_replace on, moe_layer_freq 1. */

/* deepseek-ai/DeepSeek-V2-Lite config.json (q_lora_rank null: full-rank q_proj; 64 routed experts
 * of 1408, 6 per token, 2 shared; layer 0 dense with intermediate_size 10944; topk_method greedy,
 * no score-correction bias) */
static const llmmem__preset_value deepseek_v2_lite[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_DEEPSEEK_V2), K(HIDDEN_SIZE, 2048), K(NUM_HIDDEN_LAYERS, 27),
    K(NUM_ATTENTION_HEADS, 16), K(NUM_KEY_VALUE_HEADS, 16), K(INTERMEDIATE_SIZE, 10944),
    K(VOCAB_SIZE, 102400), K(MAX_POSITION_EMBEDDINGS, 163840), K(TIE_WORD_EMBEDDINGS, 0),
    K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0),
    K(MLP_BIAS, 0), K(NUM_EXPERTS, 64), K(NUM_EXPERTS_PER_TOK, 6), K(MOE_INTERMEDIATE_SIZE, 1408),
    K(N_SHARED_EXPERTS, 2), K(FIRST_K_DENSE_REPLACE, 1), K(MOE_LAYER_FREQ, 1), K(ROUTER_BIAS, 0),
    K(ROUTER_SCORE_CORRECTION_BIAS, 0), K(Q_LORA_RANK, 0), K(KV_LORA_RANK, 512),
    K(QK_ROPE_HEAD_DIM, 64), K(QK_NOPE_HEAD_DIM, 128), K(V_HEAD_DIM, 128), K(TORCH_DTYPE, BF16), END};

/* deepseek-ai/DeepSeek-V3 config.json: the 61-layer main model (num_nextn_predict_layers 1:
 * the multi-token-prediction module, stored as layer 61 of the checkpoint, is outside the model's
 * count and in llmmem_model_checkpoint_parameters);
 * 256 routed experts of 2048, 8 per token, 1 shared; first 3 layers dense (18432);
 * topk_method noaux_tc: e_score_correction_bias. torch_dtype says bfloat16; the published
 * checkpoint is fp8 e4m3 with 128 x 128 block scales (quantization_config). */
static const llmmem__preset_value deepseek_v3[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_DEEPSEEK_V3), K(HIDDEN_SIZE, 7168), K(NUM_HIDDEN_LAYERS, 61),
    K(NUM_ATTENTION_HEADS, 128), K(NUM_KEY_VALUE_HEADS, 128), K(INTERMEDIATE_SIZE, 18432),
    K(VOCAB_SIZE, 129280), K(MAX_POSITION_EMBEDDINGS, 163840), K(TIE_WORD_EMBEDDINGS, 0),
    K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0),
    K(MLP_BIAS, 0), K(NUM_EXPERTS, 256), K(NUM_EXPERTS_PER_TOK, 8), K(MOE_INTERMEDIATE_SIZE, 2048),
    K(N_SHARED_EXPERTS, 1), K(FIRST_K_DENSE_REPLACE, 3), K(MOE_LAYER_FREQ, 1), K(ROUTER_BIAS, 0),
    K(ROUTER_SCORE_CORRECTION_BIAS, 1), K(Q_LORA_RANK, 1536), K(KV_LORA_RANK, 512),
    K(QK_ROPE_HEAD_DIM, 64), K(QK_NOPE_HEAD_DIM, 128), K(V_HEAD_DIM, 128), K(TORCH_DTYPE, BF16),
    K(NUM_NEXTN_PREDICT_LAYERS, 1), K(MTP_EMBEDDING, 1), K(MTP_LM_HEAD, 1),
    K(QUANTIZATION_FORMAT, LLMMEM_FORMAT_FP8_BLOCK), END}; /* quantization_config: fp8, weight_block_size [128, 128] */

/* ---- Families that are one row of the family table (families.c) ----------- */

/* ibm-granite/granite-3.3-8b-instruct config.json (Llama's layers; the config ties the head) */
static const llmmem__preset_value granite_3_3_8b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_GRANITE), K(HIDDEN_SIZE, 4096), K(NUM_HIDDEN_LAYERS, 40),
    K(NUM_ATTENTION_HEADS, 32), K(NUM_KEY_VALUE_HEADS, 8), K(INTERMEDIATE_SIZE, 12800), K(VOCAB_SIZE, 49159),
    K(MAX_POSITION_EMBEDDINGS, 131072), K(TIE_WORD_EMBEDDINGS, 1), K(TORCH_DTYPE, BF16), END};

/* HuggingFaceTB/SmolLM3-3B config.json (tied by SmolLM3Config's default; NoPE layers hold no tensors) */
static const llmmem__preset_value smollm3_3b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_SMOLLM3), K(HIDDEN_SIZE, 2048), K(NUM_HIDDEN_LAYERS, 36),
    K(NUM_ATTENTION_HEADS, 16), K(NUM_KEY_VALUE_HEADS, 4), K(INTERMEDIATE_SIZE, 11008), K(VOCAB_SIZE, 128256),
    K(MAX_POSITION_EMBEDDINGS, 65536), K(TORCH_DTYPE, BF16), END};

/* moonshotai/Kimi-K2-Instruct config.json: DeepSeek-V3's layers at 64 heads, 384 experts, one dense
 * layer, vocabulary 163840; fp8 128 x 128 blocks */
static const llmmem__preset_value kimi_k2[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_KIMI_K2), K(HIDDEN_SIZE, 7168), K(NUM_HIDDEN_LAYERS, 61),
    K(NUM_ATTENTION_HEADS, 64), K(NUM_KEY_VALUE_HEADS, 64), K(INTERMEDIATE_SIZE, 18432),
    K(VOCAB_SIZE, 163840), K(MAX_POSITION_EMBEDDINGS, 131072), K(TIE_WORD_EMBEDDINGS, 0),
    K(NUM_EXPERTS, 384), K(NUM_EXPERTS_PER_TOK, 8), K(MOE_INTERMEDIATE_SIZE, 2048), K(N_SHARED_EXPERTS, 1),
    K(FIRST_K_DENSE_REPLACE, 1), K(MOE_LAYER_FREQ, 1), K(Q_LORA_RANK, 1536), K(KV_LORA_RANK, 512),
    K(QK_ROPE_HEAD_DIM, 64), K(QK_NOPE_HEAD_DIM, 128), K(V_HEAD_DIM, 128), K(TORCH_DTYPE, BF16),
    K(QUANTIZATION_FORMAT, LLMMEM_FORMAT_FP8_BLOCK), K(NUM_NEXTN_PREDICT_LAYERS, 0), K(MTP_EMBEDDING, 1),
    K(MTP_LM_HEAD, 1), END};

/* ---- gpt-oss ----------------------------------------------------------------
 * GptOssForCausalLM: biased q/k/v/o, one sink per head, a biased router and 32 or 128 biased
 * experts of 2880 on every layer, layers alternating a 128-token sliding window (first) and full
 * attention, untied head; MXFP4 experts, everything else bf16 (quantization_config). */

/* openai/gpt-oss-20b config.json */
static const llmmem__preset_value gpt_oss_20b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_GPT_OSS), K(HIDDEN_SIZE, 2880), K(NUM_HIDDEN_LAYERS, 24),
    K(NUM_ATTENTION_HEADS, 64), K(NUM_KEY_VALUE_HEADS, 8), K(HEAD_DIM, 64), K(INTERMEDIATE_SIZE, 2880),
    K(VOCAB_SIZE, 201088), K(MAX_POSITION_EMBEDDINGS, 131072), K(TIE_WORD_EMBEDDINGS, 0),
    K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 1), K(O_PROJ_BIAS, 1),
    K(MLP_BIAS, 1), K(ATTENTION_SINKS, 1), K(NUM_EXPERTS, 32), K(NUM_EXPERTS_PER_TOK, 4),
    K(MOE_INTERMEDIATE_SIZE, 2880), K(N_SHARED_EXPERTS, 0), K(FIRST_K_DENSE_REPLACE, 0), K(MOE_LAYER_FREQ, 1),
    K(ROUTER_BIAS, 1), K(ROUTER_SCORE_CORRECTION_BIAS, 0), K(SLIDING_WINDOW, 128), K(SLIDING_WINDOW_PATTERN, 2),
    K(TORCH_DTYPE, BF16), K(QUANTIZATION_FORMAT, LLMMEM_FORMAT_MXFP4),
    K(QUANTIZED_MODULES, LLMMEM_QUANTIZED_EXPERTS), END};

/* openai/gpt-oss-120b config.json: 36 layers, 128 experts */
static const llmmem__preset_value gpt_oss_120b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_GPT_OSS), K(HIDDEN_SIZE, 2880), K(NUM_HIDDEN_LAYERS, 36),
    K(NUM_ATTENTION_HEADS, 64), K(NUM_KEY_VALUE_HEADS, 8), K(HEAD_DIM, 64), K(INTERMEDIATE_SIZE, 2880),
    K(VOCAB_SIZE, 201088), K(MAX_POSITION_EMBEDDINGS, 131072), K(TIE_WORD_EMBEDDINGS, 0),
    K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 1), K(O_PROJ_BIAS, 1),
    K(MLP_BIAS, 1), K(ATTENTION_SINKS, 1), K(NUM_EXPERTS, 128), K(NUM_EXPERTS_PER_TOK, 4),
    K(MOE_INTERMEDIATE_SIZE, 2880), K(N_SHARED_EXPERTS, 0), K(FIRST_K_DENSE_REPLACE, 0), K(MOE_LAYER_FREQ, 1),
    K(ROUTER_BIAS, 1), K(ROUTER_SCORE_CORRECTION_BIAS, 0), K(SLIDING_WINDOW, 128), K(SLIDING_WINDOW_PATTERN, 2),
    K(TORCH_DTYPE, BF16), K(QUANTIZATION_FORMAT, LLMMEM_FORMAT_MXFP4),
    K(QUANTIZED_MODULES, LLMMEM_QUANTIZED_EXPERTS), END};

/* deepseek-ai/DeepSeek-V3.2 config.json (DeepSeek-V3.2-Exp's has the same shapes): DeepSeek-V3's
 * layers, each with a sparse-attention indexer of 64 heads of 128; fp8 128 x 128 blocks; one MTP
 * module stored as layer 61 */
static const llmmem__preset_value deepseek_v3_2[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_DEEPSEEK_V32), K(HIDDEN_SIZE, 7168), K(NUM_HIDDEN_LAYERS, 61),
    K(NUM_ATTENTION_HEADS, 128), K(NUM_KEY_VALUE_HEADS, 128), K(INTERMEDIATE_SIZE, 18432),
    K(VOCAB_SIZE, 129280), K(MAX_POSITION_EMBEDDINGS, 163840), K(TIE_WORD_EMBEDDINGS, 0),
    K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0),
    K(MLP_BIAS, 0), K(NUM_EXPERTS, 256), K(NUM_EXPERTS_PER_TOK, 8), K(MOE_INTERMEDIATE_SIZE, 2048),
    K(N_SHARED_EXPERTS, 1), K(FIRST_K_DENSE_REPLACE, 3), K(MOE_LAYER_FREQ, 1), K(ROUTER_BIAS, 0),
    K(ROUTER_SCORE_CORRECTION_BIAS, 1), K(Q_LORA_RANK, 1536), K(KV_LORA_RANK, 512),
    K(QK_ROPE_HEAD_DIM, 64), K(QK_NOPE_HEAD_DIM, 128), K(V_HEAD_DIM, 128), K(INDEX_N_HEADS, 64),
    K(INDEX_HEAD_DIM, 128), K(TORCH_DTYPE, BF16), K(NUM_NEXTN_PREDICT_LAYERS, 1), K(MTP_EMBEDDING, 1),
    K(MTP_LM_HEAD, 1), K(QUANTIZATION_FORMAT, LLMMEM_FORMAT_FP8_BLOCK), END};

/* ---- OLMo 2 (olmo2) -----------------------------------------------------------
 * Olmo2DecoderLayer: post_attention_layernorm and post_feedforward_layernorm, no input norm;
 * Olmo2Attention q_norm over heads x head_dim and k_norm over kv_heads x head_dim; untied head. */
#define OLMO2(h, layers, heads, kv, ffn, dtype)                                                           \
    K(MODEL_TYPE, LLMMEM_MODEL_OLMO2), K(HIDDEN_SIZE, h), K(NUM_HIDDEN_LAYERS, layers),                  \
        K(NUM_ATTENTION_HEADS, heads), K(NUM_KEY_VALUE_HEADS, kv), K(HEAD_DIM, 0), K(INTERMEDIATE_SIZE, ffn), \
        K(VOCAB_SIZE, 100352), K(MAX_POSITION_EMBEDDINGS, 4096), K(TIE_WORD_EMBEDDINGS, 0), K(MLP_GATED, 1), \
        K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0), K(MLP_BIAS, 0),       \
        K(QK_NORM, 1), K(QK_NORM_TYPE, LLMMEM_QK_NORM_PER_LAYER), K(TORCH_DTYPE, dtype), END

/* allenai/OLMo-2-0425-1B config.json */
static const llmmem__preset_value olmo_2_0425_1b[] = {OLMO2(2048, 16, 16, 16, 8192, FP32)};
/* allenai/OLMo-2-1124-7B config.json (stored in float32) */
static const llmmem__preset_value olmo_2_1124_7b[] = {OLMO2(4096, 32, 32, 32, 11008, FP32)};
/* allenai/OLMo-2-1124-13B config.json */
static const llmmem__preset_value olmo_2_1124_13b[] = {OLMO2(5120, 40, 40, 40, 13824, FP32)};
/* allenai/OLMo-2-0325-32B config.json (grouped-query: 8 KV heads) */
static const llmmem__preset_value olmo_2_0325_32b[] = {OLMO2(5120, 64, 40, 8, 27648, BF16)};

/* allenai/OLMoE-1B-7B-0924 config.json: OLMo's q/k norms over all heads, 64 experts of 1024 on every
 * layer, top-8, no shared expert, a router without bias */
static const llmmem__preset_value olmoe_1b_7b_0924[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_OLMOE), K(HIDDEN_SIZE, 2048), K(NUM_HIDDEN_LAYERS, 16),
    K(NUM_ATTENTION_HEADS, 16), K(NUM_KEY_VALUE_HEADS, 16), K(HEAD_DIM, 0), K(INTERMEDIATE_SIZE, 1024),
    K(VOCAB_SIZE, 50304), K(MAX_POSITION_EMBEDDINGS, 4096), K(TIE_WORD_EMBEDDINGS, 0), K(MLP_GATED, 1),
    K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0), K(MLP_BIAS, 0), K(QK_NORM, 1),
    K(QK_NORM_TYPE, LLMMEM_QK_NORM_PER_LAYER), K(NUM_EXPERTS, 64), K(NUM_EXPERTS_PER_TOK, 8),
    K(MOE_INTERMEDIATE_SIZE, 1024), K(N_SHARED_EXPERTS, 0), K(FIRST_K_DENSE_REPLACE, 0), K(MOE_LAYER_FREQ, 1),
    K(ROUTER_BIAS, 0), K(ROUTER_SCORE_CORRECTION_BIAS, 0), K(TORCH_DTYPE, BF16), END};

/* ---- Cohere (cohere, cohere2) ----------------------------------------------------
 * One input_layernorm (CohereLayerNorm: a weight, no bias) before attention and MLP in parallel; tied
 * head; Cohere2 slides on three layers of four. */
#define COHERE(type, h, layers, heads, kv, ffn, positions, dtype)                                          \
    K(MODEL_TYPE, type), K(HIDDEN_SIZE, h), K(NUM_HIDDEN_LAYERS, layers), K(NUM_ATTENTION_HEADS, heads),  \
        K(NUM_KEY_VALUE_HEADS, kv), K(HEAD_DIM, 0), K(INTERMEDIATE_SIZE, ffn), K(VOCAB_SIZE, 256000),     \
        K(MAX_POSITION_EMBEDDINGS, positions), K(TIE_WORD_EMBEDDINGS, 1), K(MLP_GATED, 1), K(NORM_TYPE, RMS), \
        K(NORMS_PER_LAYER, 1), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0), K(MLP_BIAS, 0), K(QK_NORM, 0),            \
        K(QK_NORM_TYPE, LLMMEM_QK_NORM_PER_LAYER), K(TORCH_DTYPE, dtype)

/* CohereForAI/c4ai-command-r-v01 config.json */
static const llmmem__preset_value command_r_v01[] = {
    COHERE(LLMMEM_MODEL_COHERE, 8192, 40, 64, 64, 22528, 8192, FP16), END};
/* CohereForAI/aya-expanse-8b config.json */
static const llmmem__preset_value aya_expanse_8b[] = {
    COHERE(LLMMEM_MODEL_COHERE, 4096, 32, 32, 8, 14336, 8192, FP16), END};
/* CohereForAI/c4ai-command-r7b-12-2024 config.json (head_dim 128 = 4096 / 32) */
static const llmmem__preset_value command_r7b_12_2024[] = {
    COHERE(LLMMEM_MODEL_COHERE2, 4096, 32, 32, 8, 14336, 8192, BF16), K(SLIDING_WINDOW, 4096),
    K(SLIDING_WINDOW_PATTERN, 4), END};

/* ---- GLM-4.5 (glm4_moe) -----------------------------------------------------------
 * Glm4MoeAttention: q, k, v biased (attention_bias), o not; MoE past first_k_dense_replace with one
 * shared expert and a router with e_score_correction_bias; the checkpoints' MTP layer is not the
 * model's (Glm4MoeForCausalLM builds none). */
#define GLM4_MOE(h, layers, ffn, experts, fe, dense, qk_norm)                                              \
    K(MODEL_TYPE, LLMMEM_MODEL_GLM4_MOE), K(HIDDEN_SIZE, h), K(NUM_HIDDEN_LAYERS, layers),                  \
        K(NUM_ATTENTION_HEADS, 96), K(NUM_KEY_VALUE_HEADS, 8), K(HEAD_DIM, 128), K(INTERMEDIATE_SIZE, ffn),  \
        K(VOCAB_SIZE, 151552), K(MAX_POSITION_EMBEDDINGS, 131072), K(TIE_WORD_EMBEDDINGS, 0), K(MLP_GATED, 1), \
        K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 1), K(O_PROJ_BIAS, 0), K(MLP_BIAS, 0),        \
        K(QK_NORM, qk_norm), K(QK_NORM_TYPE, LLMMEM_QK_NORM_PER_HEAD), K(NUM_EXPERTS, experts),            \
        K(NUM_EXPERTS_PER_TOK, 8), K(MOE_INTERMEDIATE_SIZE, fe), K(N_SHARED_EXPERTS, 1),                     \
        K(FIRST_K_DENSE_REPLACE, dense), K(MOE_LAYER_FREQ, 1), K(ROUTER_BIAS, 0),                            \
        K(ROUTER_SCORE_CORRECTION_BIAS, 1), K(TORCH_DTYPE, BF16), K(NUM_NEXTN_PREDICT_LAYERS, 1),           \
        K(MTP_EMBEDDING, 1), K(MTP_LM_HEAD, 1), END

/* zai-org/GLM-4.5-Air config.json */
static const llmmem__preset_value glm_4_5_air[] = {GLM4_MOE(4096, 46, 10944, 128, 1408, 1, 0)};
/* zai-org/GLM-4.5 config.json (use_qk_norm: per-head q/k norms) */
static const llmmem__preset_value glm_4_5[] = {GLM4_MOE(5120, 92, 12288, 160, 1536, 3, 1)};

/* MiniMaxAI/MiniMax-M2 config.json: 256 experts of 1536 on every layer, top-8, no shared expert, a
 * router with e_score_correction_bias; q/k norms over all heads; fp8 128 x 128 blocks in the checkpoint
 * (quantization_config), bf16 here */
static const llmmem__preset_value minimax_m2[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_MINIMAX_M2), K(HIDDEN_SIZE, 3072), K(NUM_HIDDEN_LAYERS, 62),
    K(NUM_ATTENTION_HEADS, 48), K(NUM_KEY_VALUE_HEADS, 8), K(HEAD_DIM, 128), K(INTERMEDIATE_SIZE, 1536),
    K(VOCAB_SIZE, 200064), K(MAX_POSITION_EMBEDDINGS, 196608), K(TIE_WORD_EMBEDDINGS, 0), K(MLP_GATED, 1),
    K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0), K(MLP_BIAS, 0), K(QK_NORM, 1),
    K(QK_NORM_TYPE, LLMMEM_QK_NORM_PER_LAYER), K(NUM_EXPERTS, 256), K(NUM_EXPERTS_PER_TOK, 8),
    K(MOE_INTERMEDIATE_SIZE, 1536), K(N_SHARED_EXPERTS, 0), K(FIRST_K_DENSE_REPLACE, 0), K(MOE_LAYER_FREQ, 1),
    K(ROUTER_BIAS, 0), K(ROUTER_SCORE_CORRECTION_BIAS, 1), K(TORCH_DTYPE, BF16), END};

/* ---- EXAONE 4.0 (exaone4) ---------------------------------------------------------
 * Post-norm blocks as OLMo 2's, q/k norms per head (RMSNorm(head_dim)); the 32B slides on three
 * layers of four (layer_types LLLG), the 1.2B on none. */
#define EXAONE4(h, layers, heads, kv, head_dim, ffn, positions, tie)                                        \
    K(MODEL_TYPE, LLMMEM_MODEL_EXAONE4), K(HIDDEN_SIZE, h), K(NUM_HIDDEN_LAYERS, layers),                   \
        K(NUM_ATTENTION_HEADS, heads), K(NUM_KEY_VALUE_HEADS, kv), K(HEAD_DIM, head_dim),                   \
        K(INTERMEDIATE_SIZE, ffn), K(VOCAB_SIZE, 102400), K(MAX_POSITION_EMBEDDINGS, positions),            \
        K(TIE_WORD_EMBEDDINGS, tie), K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), \
        K(O_PROJ_BIAS, 0), K(MLP_BIAS, 0), K(QK_NORM, 1), K(QK_NORM_TYPE, LLMMEM_QK_NORM_PER_HEAD),          \
        K(TORCH_DTYPE, BF16)

/* LGAI-EXAONE/EXAONE-4.0-32B config.json */
static const llmmem__preset_value exaone_4_0_32b[] = {
    EXAONE4(5120, 64, 40, 8, 128, 27392, 131072, 0), K(SLIDING_WINDOW, 4096), K(SLIDING_WINDOW_PATTERN, 4), END};
/* LGAI-EXAONE/EXAONE-4.0-1.2B config.json (no sliding layers, tied head) */
static const llmmem__preset_value exaone_4_0_1_2b[] = {
    EXAONE4(2048, 30, 32, 8, 64, 4096, 65536, 1), K(SLIDING_WINDOW, 0), K(SLIDING_WINDOW_PATTERN, 0), END};

/* ---- ERNIE 4.5 (ernie4_5, ernie4_5_moe) ----------------------------------------------
 * use_bias false; tied heads; the MoE model's first layer dense, then 64 experts of 1536, top-6, two
 * shared (one MLP of 3072), a gate without bias and Ernie4_5_MoeStatics' correction bias. */

/* baidu/ERNIE-4.5-0.3B-PT config.json */
static const llmmem__preset_value ernie_4_5_0_3b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_ERNIE4_5), K(HIDDEN_SIZE, 1024), K(NUM_HIDDEN_LAYERS, 18),
    K(NUM_ATTENTION_HEADS, 16), K(NUM_KEY_VALUE_HEADS, 2), K(HEAD_DIM, 128), K(INTERMEDIATE_SIZE, 3072),
    K(VOCAB_SIZE, 103424), K(MAX_POSITION_EMBEDDINGS, 131072), K(TIE_WORD_EMBEDDINGS, 1), K(MLP_GATED, 1),
    K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0), K(MLP_BIAS, 0), K(QK_NORM, 0),
    K(TORCH_DTYPE, BF16), END};
/* baidu/ERNIE-4.5-21B-A3B-PT config.json */
static const llmmem__preset_value ernie_4_5_21b_a3b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_ERNIE4_5_MOE), K(HIDDEN_SIZE, 2560), K(NUM_HIDDEN_LAYERS, 28),
    K(NUM_ATTENTION_HEADS, 20), K(NUM_KEY_VALUE_HEADS, 4), K(HEAD_DIM, 0), K(INTERMEDIATE_SIZE, 12288),
    K(VOCAB_SIZE, 103424), K(MAX_POSITION_EMBEDDINGS, 131072), K(TIE_WORD_EMBEDDINGS, 1), K(MLP_GATED, 1),
    K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0), K(MLP_BIAS, 0), K(QK_NORM, 0),
    K(NUM_EXPERTS, 64), K(NUM_EXPERTS_PER_TOK, 6), K(MOE_INTERMEDIATE_SIZE, 1536), K(N_SHARED_EXPERTS, 2),
    K(FIRST_K_DENSE_REPLACE, 1), K(MOE_LAYER_FREQ, 1), K(ROUTER_BIAS, 0), K(ROUTER_SCORE_CORRECTION_BIAS, 1),
    K(TORCH_DTYPE, BF16), END};

/* THUDM/GLM-4-9B-0414 config.json (glm4: four norms per layer, q/k/v biased, o not) */
static const llmmem__preset_value glm_4_9b_0414[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_GLM4), K(HIDDEN_SIZE, 4096), K(NUM_HIDDEN_LAYERS, 40), K(NUM_ATTENTION_HEADS, 32),
    K(NUM_KEY_VALUE_HEADS, 2), K(HEAD_DIM, 128), K(INTERMEDIATE_SIZE, 13696), K(VOCAB_SIZE, 151552),
    K(MAX_POSITION_EMBEDDINGS, 32768), K(TIE_WORD_EMBEDDINGS, 0), K(MLP_GATED, 1), K(NORM_TYPE, RMS),
    K(NORMS_PER_LAYER, 4), K(QKV_BIAS, 1), K(O_PROJ_BIAS, 0), K(MLP_BIAS, 0), K(QK_NORM, 0), K(TORCH_DTYPE, BF16),
    END};

/* ---- More sizes of the families above -------------------------------------- */

/* EleutherAI/pythia-70m config.json (the smallest Pythia; vocabulary 50304 as up to 6.9B) */
static const llmmem__preset_value pythia_70m[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_GPT_NEOX), K(HIDDEN_SIZE, 512), K(NUM_HIDDEN_LAYERS, 6),
    K(NUM_ATTENTION_HEADS, 8), K(NUM_KEY_VALUE_HEADS, 8), K(INTERMEDIATE_SIZE, 2048),
    K(VOCAB_SIZE, 50304), K(MAX_POSITION_EMBEDDINGS, 2048), K(TIE_WORD_EMBEDDINGS, 0),
    K(MLP_GATED, 0), K(NORM_TYPE, LN), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 1), K(O_PROJ_BIAS, 1),
    K(MLP_BIAS, 1), K(TORCH_DTYPE, FP16), END};

/* EleutherAI/pythia-160m config.json */
static const llmmem__preset_value pythia_160m[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_GPT_NEOX), K(HIDDEN_SIZE, 768), K(NUM_HIDDEN_LAYERS, 12),
    K(NUM_ATTENTION_HEADS, 12), K(NUM_KEY_VALUE_HEADS, 12), K(INTERMEDIATE_SIZE, 3072),
    K(VOCAB_SIZE, 50304), K(MAX_POSITION_EMBEDDINGS, 2048), K(TIE_WORD_EMBEDDINGS, 0),
    K(MLP_GATED, 0), K(NORM_TYPE, LN), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 1), K(O_PROJ_BIAS, 1),
    K(MLP_BIAS, 1), K(TORCH_DTYPE, FP16), END};

/* facebook/opt-6.7b config.json (ffn_dim 16384, 32 layers of 4096) */
static const llmmem__preset_value opt_6_7b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_OPT), K(HIDDEN_SIZE, 4096), K(NUM_HIDDEN_LAYERS, 32),
    K(NUM_ATTENTION_HEADS, 32), K(NUM_KEY_VALUE_HEADS, 32), K(INTERMEDIATE_SIZE, 16384),
    K(VOCAB_SIZE, 50272), K(MAX_POSITION_EMBEDDINGS, 2048), K(TIE_WORD_EMBEDDINGS, 1),
    K(MLP_GATED, 0), K(NORM_TYPE, LN), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 1), K(O_PROJ_BIAS, 1),
    K(MLP_BIAS, 1), K(LEARNED_POSITIONS, 1), K(POSITION_OFFSET, 2), K(TORCH_DTYPE, FP16), END};

/* bigscience/bloom-7b1 config.json (n_embed 4096, n_layer 30, n_head 32) */
static const llmmem__preset_value bloom_7b1[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_BLOOM), K(HIDDEN_SIZE, 4096), K(NUM_HIDDEN_LAYERS, 30),
    K(NUM_ATTENTION_HEADS, 32), K(NUM_KEY_VALUE_HEADS, 32), K(INTERMEDIATE_SIZE, 16384),
    K(VOCAB_SIZE, 250880), K(MAX_POSITION_EMBEDDINGS, 2048), K(TIE_WORD_EMBEDDINGS, 1),
    K(MLP_GATED, 0), K(NORM_TYPE, LN), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 1), K(O_PROJ_BIAS, 1),
    K(MLP_BIAS, 1), K(EMBEDDING_NORM, 1), K(LEARNED_POSITIONS, 0), K(TORCH_DTYPE, FP16), END};

/* meta-llama/Llama-3.3-70B-Instruct config.json (the Llama-3.1-70B architecture) */
static const llmmem__preset_value llama_3_3_70b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_LLAMA), K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2),
    K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0), K(MLP_BIAS, 0), K(HIDDEN_SIZE, 8192), K(NUM_HIDDEN_LAYERS, 80),
    K(NUM_ATTENTION_HEADS, 64), K(NUM_KEY_VALUE_HEADS, 8), K(INTERMEDIATE_SIZE, 28672),
    K(VOCAB_SIZE, 128256), K(MAX_POSITION_EMBEDDINGS, 131072), K(TIE_WORD_EMBEDDINGS, 0),
    K(TORCH_DTYPE, BF16), END};

/* mistralai/Mistral-7B-v0.3 config.json (v0.1's shapes with vocab_size 32768, no sliding window) */
static const llmmem__preset_value mistral_7b_v0_3[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_MISTRAL), K(HIDDEN_SIZE, 4096), K(NUM_HIDDEN_LAYERS, 32),
    K(NUM_ATTENTION_HEADS, 32), K(NUM_KEY_VALUE_HEADS, 8), K(INTERMEDIATE_SIZE, 14336),
    K(VOCAB_SIZE, 32768), K(MAX_POSITION_EMBEDDINGS, 32768), K(TIE_WORD_EMBEDDINGS, 0),
    K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0),
    K(MLP_BIAS, 0), K(TORCH_DTYPE, BF16), END};

#define QWEN25(h, layers, heads, kv, ffn, vocab, tie)                                              \
    K(MODEL_TYPE, LLMMEM_MODEL_QWEN2), K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2),   \
        K(QKV_BIAS, 1), K(O_PROJ_BIAS, 0), K(MLP_BIAS, 0), K(HIDDEN_SIZE, h),                        \
        K(NUM_HIDDEN_LAYERS, layers), K(NUM_ATTENTION_HEADS, heads), K(NUM_KEY_VALUE_HEADS, kv),     \
        K(INTERMEDIATE_SIZE, ffn), K(VOCAB_SIZE, vocab), K(MAX_POSITION_EMBEDDINGS, 32768),          \
        K(TIE_WORD_EMBEDDINGS, tie), K(TORCH_DTYPE, BF16), END

/* Qwen/Qwen2.5-1.5B config.json */
static const llmmem__preset_value qwen2_5_1_5b[] = {QWEN25(1536, 28, 12, 2, 8960, 151936, 1)};
/* Qwen/Qwen2.5-3B config.json */
static const llmmem__preset_value qwen2_5_3b[] = {QWEN25(2048, 36, 16, 2, 11008, 151936, 1)};
/* Qwen/Qwen2.5-14B config.json */
static const llmmem__preset_value qwen2_5_14b[] = {QWEN25(5120, 48, 40, 8, 13824, 152064, 0)};
/* Qwen/Qwen2.5-32B config.json */
static const llmmem__preset_value qwen2_5_32b[] = {QWEN25(5120, 64, 40, 8, 27648, 152064, 0)};
#undef QWEN25

/* Qwen/Qwen3-235B-A22B config.json (94 layers, 128 experts of 1536, 8 per token, head_dim 128) */
static const llmmem__preset_value qwen3_235b_a22b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_QWEN3_MOE), K(HIDDEN_SIZE, 4096), K(NUM_HIDDEN_LAYERS, 94),
    K(NUM_ATTENTION_HEADS, 64), K(NUM_KEY_VALUE_HEADS, 4), K(HEAD_DIM, 128),
    K(INTERMEDIATE_SIZE, 12288), K(VOCAB_SIZE, 151936), K(MAX_POSITION_EMBEDDINGS, 40960),
    K(TIE_WORD_EMBEDDINGS, 0), K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2),
    K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0), K(MLP_BIAS, 0), K(QK_NORM, 1), K(NUM_EXPERTS, 128),
    K(NUM_EXPERTS_PER_TOK, 8), K(MOE_INTERMEDIATE_SIZE, 1536), K(N_SHARED_EXPERTS, 0),
    K(FIRST_K_DENSE_REPLACE, 0), K(MOE_LAYER_FREQ, 1), K(TORCH_DTYPE, BF16), END};

/* microsoft/phi-4 config.json (Phi3ForCausalLM: 40 layers of 5120, 40 heads, 10 KV heads) */
static const llmmem__preset_value phi_4[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_PHI3), K(HIDDEN_SIZE, 5120), K(NUM_HIDDEN_LAYERS, 40),
    K(NUM_ATTENTION_HEADS, 40), K(NUM_KEY_VALUE_HEADS, 10), K(INTERMEDIATE_SIZE, 17920),
    K(VOCAB_SIZE, 100352), K(MAX_POSITION_EMBEDDINGS, 16384), K(TIE_WORD_EMBEDDINGS, 0),
    K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0),
    K(MLP_BIAS, 0), K(TORCH_DTYPE, BF16), END};

/* mistralai/Mixtral-8x22B-v0.1 config.json (56 layers of 6144, 48 heads, 8 KV heads, 8 experts
 * of 16384, 2 per token, vocab_size 32768) */
static const llmmem__preset_value mixtral_8x22b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_MIXTRAL), K(HIDDEN_SIZE, 6144), K(NUM_HIDDEN_LAYERS, 56),
    K(NUM_ATTENTION_HEADS, 48), K(NUM_KEY_VALUE_HEADS, 8), K(INTERMEDIATE_SIZE, 16384),
    K(VOCAB_SIZE, 32768), K(MAX_POSITION_EMBEDDINGS, 65536), K(TIE_WORD_EMBEDDINGS, 0),
    K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0),
    K(MLP_BIAS, 0), K(NUM_EXPERTS, 8), K(NUM_EXPERTS_PER_TOK, 2), K(MOE_INTERMEDIATE_SIZE, 16384),
    K(TORCH_DTYPE, BF16), END};

/* google/gemma-3-4b-pt config.json: text_config (gemma3_text: 34 layers of 2560, 8 heads of 256,
 * 4 KV heads, 10240 MLP, vocab 262208, sliding window 1024 on 5 of every 6 layers) and
 * vision_config (siglip_vision_model: 27 layers of 1152, MLP 4304, 14-pixel patches of 896-pixel
 * images, no pooling head), joined by Gemma3MultiModalProjector */
static const llmmem__preset_value gemma_3_4b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_GEMMA3_TEXT), K(HIDDEN_SIZE, 2560), K(NUM_HIDDEN_LAYERS, 34),
    K(NUM_ATTENTION_HEADS, 8), K(NUM_KEY_VALUE_HEADS, 4), K(HEAD_DIM, 256),
    K(INTERMEDIATE_SIZE, 10240), K(VOCAB_SIZE, 262208), K(MAX_POSITION_EMBEDDINGS, 131072),
    K(TIE_WORD_EMBEDDINGS, 1), K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 4),
    K(QK_NORM, 1), K(SLIDING_WINDOW, 1024), K(SLIDING_WINDOW_PATTERN, 6),
    K(VISION_MODEL_TYPE, LLMMEM__VISION_SIGLIP), K(VISION_HIDDEN_SIZE, 1152), K(VISION_NUM_HIDDEN_LAYERS, 27),
    K(VISION_INTERMEDIATE_SIZE, 4304), K(VISION_PATCH_SIZE, 14), K(VISION_IMAGE_SIZE, 896),
    K(VISION_NUM_CHANNELS, 3), K(VISION_USE_HEAD, 0), K(MULTIMODAL_PROJECTOR, LLMMEM__PROJECTOR_GEMMA3),
    K(TORCH_DTYPE, BF16), END};

/* ---- Qwen-VL and Mistral 3 ----------------------------------------------
 * Text model and vision tower (merger included) as the config.json gives them; the sizes the
 * configs omit take their config classes' defaults (Qwen2.5-VL: temporal_patch_size 2, spatial
 * merge 2; Qwen3-VL: in_channels 3). */

#define QWEN2_5_VL_VISION(out)                                                                    \
    K(VISION_MODEL_TYPE, LLMMEM__VISION_QWEN2_5_VL), K(VISION_HIDDEN_SIZE, 1280), K(VISION_NUM_HIDDEN_LAYERS, 32),          \
        K(VISION_INTERMEDIATE_SIZE, 3420), K(VISION_NUM_ATTENTION_HEADS, 16), K(VISION_PATCH_SIZE, 14), \
        K(VISION_NUM_CHANNELS, 3), K(VISION_TEMPORAL_PATCH_SIZE, 2), K(VISION_SPATIAL_MERGE_SIZE, 2), \
        K(VISION_OUT_HIDDEN_SIZE, (out)), K(VISION_WINDOW_SIZE, 112), K(VISION_FULLATT_BLOCKS, 4),             \
        K(MULTIMODAL_PROJECTOR, LLMMEM__PROJECTOR_QWEN2_5_VL_MERGER)

/* Qwen/Qwen2.5-VL-3B-Instruct config.json: 36 layers of 2048, 16 heads, 2 KV heads, MLP 11008,
 * vocab 151936, tied; ViT of 32 blocks of 1280 (MLP 3420), merged into 2048 */
static const llmmem__preset_value qwen2_5_vl_3b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_QWEN2_5_VL), K(HIDDEN_SIZE, 2048), K(NUM_HIDDEN_LAYERS, 36),
    K(NUM_ATTENTION_HEADS, 16), K(NUM_KEY_VALUE_HEADS, 2), K(INTERMEDIATE_SIZE, 11008),
    K(VOCAB_SIZE, 151936), K(MAX_POSITION_EMBEDDINGS, 128000), K(TIE_WORD_EMBEDDINGS, 1),
    K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 1), K(O_PROJ_BIAS, 0),
    K(MLP_BIAS, 0), QWEN2_5_VL_VISION(2048), K(TORCH_DTYPE, BF16), END};

/* Qwen/Qwen2.5-VL-7B-Instruct config.json: 28 layers of 3584, 28 heads, 4 KV heads, MLP 18944,
 * vocab 152064, untied; the same ViT merged into 3584 */
static const llmmem__preset_value qwen2_5_vl_7b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_QWEN2_5_VL), K(HIDDEN_SIZE, 3584), K(NUM_HIDDEN_LAYERS, 28),
    K(NUM_ATTENTION_HEADS, 28), K(NUM_KEY_VALUE_HEADS, 4), K(INTERMEDIATE_SIZE, 18944),
    K(VOCAB_SIZE, 152064), K(MAX_POSITION_EMBEDDINGS, 128000), K(TIE_WORD_EMBEDDINGS, 0),
    K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 1), K(O_PROJ_BIAS, 0),
    K(MLP_BIAS, 0), QWEN2_5_VL_VISION(3584), K(TORCH_DTYPE, BF16), END};

#define QWEN3_VL_VISION(depth, width, mlp, out)                                                   \
    K(VISION_MODEL_TYPE, LLMMEM__VISION_QWEN3_VL), K(VISION_HIDDEN_SIZE, (width)), K(VISION_NUM_HIDDEN_LAYERS, (depth)),  \
        K(VISION_INTERMEDIATE_SIZE, (mlp)), K(VISION_NUM_ATTENTION_HEADS, 16), K(VISION_PATCH_SIZE, 16), \
        K(VISION_NUM_CHANNELS, 3), K(VISION_TEMPORAL_PATCH_SIZE, 2), K(VISION_SPATIAL_MERGE_SIZE, 2), \
        K(VISION_NUM_POSITION_EMBEDDINGS, 2304), K(VISION_DEEPSTACK_LAYERS, 3),                    \
        K(VISION_OUT_HIDDEN_SIZE, (out)), K(MULTIMODAL_PROJECTOR, LLMMEM__PROJECTOR_QWEN3_VL_MERGER)

/* Qwen/Qwen3-VL-2B-Instruct config.json: text_config 28 layers of 2048, 16 heads of 128, 8 KV
 * heads, MLP 6144, vocab 151936, tied; vision_config 24 blocks of 1024 (MLP 4096), deepstack
 * [5, 11, 17], merged into 2048 */
static const llmmem__preset_value qwen3_vl_2b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_QWEN3_VL), K(HIDDEN_SIZE, 2048), K(NUM_HIDDEN_LAYERS, 28),
    K(NUM_ATTENTION_HEADS, 16), K(NUM_KEY_VALUE_HEADS, 8), K(HEAD_DIM, 128), K(INTERMEDIATE_SIZE, 6144),
    K(VOCAB_SIZE, 151936), K(MAX_POSITION_EMBEDDINGS, 262144), K(TIE_WORD_EMBEDDINGS, 1),
    K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0),
    K(MLP_BIAS, 0), K(QK_NORM, 1), QWEN3_VL_VISION(24, 1024, 4096, 2048), K(TORCH_DTYPE, BF16), END};

/* Qwen/Qwen3-VL-4B-Instruct config.json: text_config 36 layers of 2560, 32 heads of 128, 8 KV
 * heads, MLP 9728, tied; vision_config as the 2B's, merged into 2560 */
static const llmmem__preset_value qwen3_vl_4b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_QWEN3_VL), K(HIDDEN_SIZE, 2560), K(NUM_HIDDEN_LAYERS, 36),
    K(NUM_ATTENTION_HEADS, 32), K(NUM_KEY_VALUE_HEADS, 8), K(HEAD_DIM, 128), K(INTERMEDIATE_SIZE, 9728),
    K(VOCAB_SIZE, 151936), K(MAX_POSITION_EMBEDDINGS, 262144), K(TIE_WORD_EMBEDDINGS, 1),
    K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0),
    K(MLP_BIAS, 0), K(QK_NORM, 1), QWEN3_VL_VISION(24, 1024, 4096, 2560), K(TORCH_DTYPE, BF16), END};

/* Qwen/Qwen3-VL-8B-Instruct config.json: text_config 36 layers of 4096, 32 heads of 128, 8 KV
 * heads, MLP 12288, untied; vision_config 27 blocks of 1152 (MLP 4304), deepstack [8, 16, 24] */
static const llmmem__preset_value qwen3_vl_8b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_QWEN3_VL), K(HIDDEN_SIZE, 4096), K(NUM_HIDDEN_LAYERS, 36),
    K(NUM_ATTENTION_HEADS, 32), K(NUM_KEY_VALUE_HEADS, 8), K(HEAD_DIM, 128), K(INTERMEDIATE_SIZE, 12288),
    K(VOCAB_SIZE, 151936), K(MAX_POSITION_EMBEDDINGS, 262144), K(TIE_WORD_EMBEDDINGS, 0),
    K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0),
    K(MLP_BIAS, 0), K(QK_NORM, 1), QWEN3_VL_VISION(27, 1152, 4304, 4096), K(TORCH_DTYPE, BF16), END};

/* Qwen/Qwen3-VL-30B-A3B-Instruct config.json: text_config 48 layers of 2048, 32 heads of 128, 4
 * KV heads, 128 experts of 768 (8 per token) on every layer, untied; vision_config as the 8B's,
 * merged into 2048 */
static const llmmem__preset_value qwen3_vl_30b_a3b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_QWEN3_VL_MOE), K(HIDDEN_SIZE, 2048), K(NUM_HIDDEN_LAYERS, 48),
    K(NUM_ATTENTION_HEADS, 32), K(NUM_KEY_VALUE_HEADS, 4), K(HEAD_DIM, 128), K(INTERMEDIATE_SIZE, 6144),
    K(VOCAB_SIZE, 151936), K(MAX_POSITION_EMBEDDINGS, 262144), K(TIE_WORD_EMBEDDINGS, 0),
    K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0),
    K(MLP_BIAS, 0), K(QK_NORM, 1), K(NUM_EXPERTS, 128), K(NUM_EXPERTS_PER_TOK, 8),
    K(MOE_INTERMEDIATE_SIZE, 768), K(FIRST_K_DENSE_REPLACE, 0), K(MOE_LAYER_FREQ, 1),
    QWEN3_VL_VISION(27, 1152, 4304, 2048), K(TORCH_DTYPE, BF16), END};

/* Qwen/Qwen3-VL-235B-A22B-Instruct config.json: text_config 94 layers of 4096, 64 heads of 128, 4
 * KV heads, 128 experts of 1536 (8 per token) on every layer, untied; vision_config as the 8B's */
static const llmmem__preset_value qwen3_vl_235b_a22b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_QWEN3_VL_MOE), K(HIDDEN_SIZE, 4096), K(NUM_HIDDEN_LAYERS, 94),
    K(NUM_ATTENTION_HEADS, 64), K(NUM_KEY_VALUE_HEADS, 4), K(HEAD_DIM, 128), K(INTERMEDIATE_SIZE, 12288),
    K(VOCAB_SIZE, 151936), K(MAX_POSITION_EMBEDDINGS, 262144), K(TIE_WORD_EMBEDDINGS, 0),
    K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0),
    K(MLP_BIAS, 0), K(QK_NORM, 1), K(NUM_EXPERTS, 128), K(NUM_EXPERTS_PER_TOK, 8),
    K(MOE_INTERMEDIATE_SIZE, 1536), K(FIRST_K_DENSE_REPLACE, 0), K(MOE_LAYER_FREQ, 1),
    QWEN3_VL_VISION(27, 1152, 4304, 4096), K(TORCH_DTYPE, BF16), END};

/* mistralai/Mistral-Small-3.1-24B-Instruct-2503 config.json: text_config (mistral) 40 layers of
 * 5120, 32 heads of 128, 8 KV heads, MLP 32768, vocab 131072, untied, no sliding window;
 * vision_config (pixtral) 24 layers of 1024, MLP 4096, 14-pixel patches of 1540-pixel images;
 * Mistral3MultiModalProjector with spatial_merge_size 2, no biases */
static const llmmem__preset_value mistral_small_3_1_24b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_MISTRAL3), K(HIDDEN_SIZE, 5120), K(NUM_HIDDEN_LAYERS, 40),
    K(NUM_ATTENTION_HEADS, 32), K(NUM_KEY_VALUE_HEADS, 8), K(HEAD_DIM, 128), K(INTERMEDIATE_SIZE, 32768),
    K(VOCAB_SIZE, 131072), K(MAX_POSITION_EMBEDDINGS, 131072), K(TIE_WORD_EMBEDDINGS, 0),
    K(MLP_GATED, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0),
    K(MLP_BIAS, 0), K(SLIDING_WINDOW, 0), K(VISION_MODEL_TYPE, LLMMEM__VISION_PIXTRAL), K(VISION_HIDDEN_SIZE, 1024),
    K(VISION_NUM_HIDDEN_LAYERS, 24), K(VISION_INTERMEDIATE_SIZE, 4096), K(VISION_NUM_ATTENTION_HEADS, 16),
    K(VISION_PATCH_SIZE, 14), K(VISION_IMAGE_SIZE, 1540), K(VISION_NUM_CHANNELS, 3),
    K(VISION_SPATIAL_MERGE_SIZE, 2), K(MULTIMODAL_PROJECTOR, LLMMEM__PROJECTOR_MISTRAL3), K(TORCH_DTYPE, BF16), END};

/* mistralai/Mistral-Small-3.2-24B-Instruct-2506 config.json: the 3.1 architecture, retrained */
#define mistral_small_3_2_24b mistral_small_3_1_24b
/* ---- Llama 4 ----------------------------------------------------------------
 * meta-llama/Llama-4-*-Instruct config.json text_config (llama4_text: 48 layers of 5120, 40 heads of
 * 128, 8 KV heads, experts and the shared expert of 8192, dense layers of 16384 (intermediate_size_mlp),
 * one routed expert per token, vocab 202048, chunked attention of 8192 tokens on the three RoPE
 * layers of every four) and vision_config (llama4_vision_model: 34 layers of 1408, MLP 5632,
 * 14-pixel patches of 336-pixel images, adapter 4096, output 4096), joined by
 * Llama4MultiModalProjector; the Llama 4 keys in llama4 (Scout: MoE on every layer). */
#define LLAMA4_COMMON                                                                                          \
    K(MODEL_TYPE, LLMMEM_MODEL_LLAMA4), K(HIDDEN_SIZE, 5120), K(NUM_HIDDEN_LAYERS, 48),                           \
    K(NUM_ATTENTION_HEADS, 40), K(NUM_KEY_VALUE_HEADS, 8), K(HEAD_DIM, 128), K(INTERMEDIATE_SIZE, 16384),         \
    K(VOCAB_SIZE, 202048), K(TIE_WORD_EMBEDDINGS, 0), K(MLP_GATED, 1), K(NORM_TYPE, RMS),                         \
    K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0), K(MLP_BIAS, 0), K(QK_NORM, 0),                       \
    K(NUM_EXPERTS_PER_TOK, 1), K(MOE_INTERMEDIATE_SIZE, 8192), K(SHARED_EXPERT_INTERMEDIATE_SIZE, 8192),         \
    K(ATTENTION_CHUNK_SIZE, 8192), K(NO_ROPE_LAYER_INTERVAL, 4), K(VISION_MODEL_TYPE, LLMMEM__VISION_LLAMA4),                         \
    K(VISION_HIDDEN_SIZE, 1408), K(VISION_INTERMEDIATE_SIZE, 5632), K(VISION_NUM_HIDDEN_LAYERS, 34),              \
    K(VISION_PATCH_SIZE, 14), K(VISION_IMAGE_SIZE, 336), K(VISION_NUM_CHANNELS, 3), K(VISION_OUTPUT_DIM, 4096),   \
    K(PROJECTOR_INPUT_DIM, 4096), K(PROJECTOR_OUTPUT_DIM, 4096), K(MULTIMODAL_PROJECTOR, LLMMEM__PROJECTOR_LLAMA4), \
    K(TORCH_DTYPE, BF16)

/* meta-llama/Llama-4-Scout-17B-16E-Instruct: 16 experts on every layer, 10M positions */
static const llmmem__preset_value llama_4_scout_17b_16e[] = {
    LLAMA4_COMMON, K(NUM_EXPERTS, 16), K(INTERLEAVE_MOE_LAYER_STEP, 1), K(MAX_POSITION_EMBEDDINGS, 10485760), END};

/* meta-llama/Llama-4-Maverick-17B-128E-Instruct: 128 experts on the odd layers, dense even ones */
static const llmmem__preset_value llama_4_maverick_17b_128e[] = {
    LLAMA4_COMMON, K(NUM_EXPERTS, 128), K(INTERLEAVE_MOE_LAYER_STEP, 2), K(MAX_POSITION_EMBEDDINGS, 1048576), END};

/* meta-llama/Llama-3.2-11B-Vision-Instruct config.json: text_config (mllama_text_model: 40 layers of
 * 4096, 32 heads, 8 KV heads, MLP 14336, vocab 128256 (+ 8 embedding rows), cross-attention layers 3,
 * 8, ..., 38) and vision_config (mllama_vision_model: 32 layers and 8 gated global ones of 1280, MLP
 * 5120, 14-pixel patches of 560-pixel tiles, 4 tiles, 8 aspect ratios, output 7680), joined by the
 * biased multi_modal_projector */
static const llmmem__preset_value llama_3_2_11b_vision[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_MLLAMA), K(HIDDEN_SIZE, 4096), K(NUM_HIDDEN_LAYERS, 40), K(NUM_ATTENTION_HEADS, 32),
    K(NUM_KEY_VALUE_HEADS, 8), K(INTERMEDIATE_SIZE, 14336), K(VOCAB_SIZE, 128256), K(EMBEDDING_EXTRA_ROWS, 8),
    K(MAX_POSITION_EMBEDDINGS, 131072), K(TIE_WORD_EMBEDDINGS, 0), K(MLP_GATED, 1), K(NORM_TYPE, RMS),
    K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0), K(MLP_BIAS, 0), K(QK_NORM, 0),
    K(CROSS_ATTENTION_FIRST, 3), K(CROSS_ATTENTION_INTERVAL, 5), K(VISION_MODEL_TYPE, LLMMEM__VISION_MLLAMA),
    K(VISION_HIDDEN_SIZE, 1280), K(VISION_INTERMEDIATE_SIZE, 5120), K(VISION_NUM_HIDDEN_LAYERS, 32),
    K(VISION_NUM_GLOBAL_LAYERS, 8), K(VISION_PATCH_SIZE, 14), K(VISION_IMAGE_SIZE, 560), K(VISION_NUM_CHANNELS, 3),
    K(VISION_MAX_NUM_TILES, 4), K(VISION_MAX_ASPECT_RATIO_ID, 8), K(VISION_OUTPUT_DIM, 7680),
    K(MULTIMODAL_PROJECTOR, LLMMEM__PROJECTOR_MLLAMA), K(TORCH_DTYPE, BF16), END};
/* ---- Mamba-2 and hybrids ------------------------------------------------------------------ */

/* mistralai/Mamba-Codestral-7B-v0.1 config.json (mamba2): 64 Mamba-2 blocks of 4096, 128 heads of
 * 64, state 128, 8 groups, kernel 4, conv bias, no projection bias, untied 32768-row vocabulary */
static const llmmem__preset_value mamba_codestral_7b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_MAMBA2), K(HIDDEN_SIZE, 4096), K(NUM_HIDDEN_LAYERS, 64), K(VOCAB_SIZE, 32768),
    K(TIE_WORD_EMBEDDINGS, 0), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 1), K(MAMBA_NUM_HEADS, 128),
    K(MAMBA_HEAD_DIM, 64), K(SSM_STATE_SIZE, 128), K(MAMBA_N_GROUPS, 8), K(MAMBA_D_CONV, 4),
    K(MAMBA_CONV_BIAS, 1), K(MAMBA_PROJ_BIAS, 0), K(TORCH_DTYPE, BF16), END};
#define MAMBA_16 "MMMMMMMMMMMMMMMM"
#define MAMBA_8 "MMMMMMMM"

/* state-spaces/mamba2-{130m,370m,780m,1.3b,2.7b} config.json (mamba_ssm MambaConfig: ssm_cfg layer
 * Mamba2 with its defaults d_state 128, d_conv 4, expand 2, headdim 64, ngroups 1, conv bias, no
 * projection bias; d_intermediate 0: no MLP; tie_embeddings; vocab_size 50277 padded to a multiple
 * of pad_vocab_size_multiple 16: 50288). The same tensors as transformers' Mamba2Mixer. The configs
 * name no dtype: the checkpoints are 16-bit, fp16 as transformers' convert_mamba2_ssm_checkpoint
 * (PR #32580) takes them. */
#define MAMBA2_SS(d_model, n_layer)                                                                      \
    K(MODEL_TYPE, LLMMEM_MODEL_MAMBA2), K(HIDDEN_SIZE, d_model), K(NUM_HIDDEN_LAYERS, n_layer),          \
        K(VOCAB_SIZE, 50288), K(TIE_WORD_EMBEDDINGS, 1), K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 1),       \
        K(MAMBA_NUM_HEADS, 2 * (d_model) / 64), K(MAMBA_HEAD_DIM, 64), K(SSM_STATE_SIZE, 128),           \
        K(MAMBA_N_GROUPS, 1), K(MAMBA_D_CONV, 4), K(MAMBA_CONV_BIAS, 1), K(MAMBA_PROJ_BIAS, 0),          \
        K(TORCH_DTYPE, FP16), END
static const llmmem__preset_value mamba2_130m[] = {MAMBA2_SS(768, 24)};
static const llmmem__preset_value mamba2_370m[] = {MAMBA2_SS(1024, 48)};
static const llmmem__preset_value mamba2_780m[] = {MAMBA2_SS(1536, 48)};
static const llmmem__preset_value mamba2_1_3b[] = {MAMBA2_SS(2048, 48)};
static const llmmem__preset_value mamba2_2_7b[] = {MAMBA2_SS(2560, 64)};

/* nvidia/NVIDIA-Nemotron-Nano-9B-v2 config.json (nemotron_h): 56 blocks of 4480 (27 Mamba-2 of
 * 128 heads of 80, state 128, 8 groups; 4 attention of 40 heads of 128, 8 KV heads; 25 relu2
 * MLPs of 15680), untied 131072-row vocabulary */
static const llmmem__preset_value nemotron_nano_9b_v2[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_NEMOTRON_H), K(HIDDEN_SIZE, 4480), K(NUM_HIDDEN_LAYERS, 56),
    K(NUM_ATTENTION_HEADS, 40), K(NUM_KEY_VALUE_HEADS, 8), K(HEAD_DIM, 128), K(INTERMEDIATE_SIZE, 15680),
    K(VOCAB_SIZE, 131072), K(MAX_POSITION_EMBEDDINGS, 131072), K(TIE_WORD_EMBEDDINGS, 0), K(MLP_GATED, 0),
    K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 1), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0), K(MLP_BIAS, 0),
    K(MAMBA_NUM_HEADS, 128), K(MAMBA_HEAD_DIM, 80), K(SSM_STATE_SIZE, 128), K(MAMBA_N_GROUPS, 8),
    K(MAMBA_D_CONV, 4), K(MAMBA_CONV_BIAS, 1), K(MAMBA_PROJ_BIAS, 0), K(TORCH_DTYPE, BF16), END};
#define NEMOTRON_NANO_9B_V2_PATTERN "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-"

/* ai21labs/AI21-Jamba-1.5-Mini and ai21labs/Jamba-v0.1 config.json (jamba, the same shapes): 32 layers of
 * 4096, attention (32 heads, 8 KV heads, no biases, no positions) where i % 8 == 4, JambaMambaMixer
 * (Mamba-1: expand 2, d_state 16, d_conv 4, dt_rank 256, conv bias, no proj bias) elsewhere; 16
 * experts of 14336, top 2, where i % 2 == 1, a gated MLP of 14336 elsewhere; untied 65536-row
 * vocabulary; bf16 */
#define JAMBA_MINI                                                                                           \
    K(MODEL_TYPE, LLMMEM_MODEL_JAMBA), K(HIDDEN_SIZE, 4096), K(NUM_HIDDEN_LAYERS, 32), K(NUM_ATTENTION_HEADS, 32), \
        K(NUM_KEY_VALUE_HEADS, 8), K(INTERMEDIATE_SIZE, 14336), K(VOCAB_SIZE, 65536),                      \
        K(MAX_POSITION_EMBEDDINGS, 262144), K(TIE_WORD_EMBEDDINGS, 0), K(MLP_GATED, 1), K(NORM_TYPE, RMS),  \
        K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0), K(MLP_BIAS, 0), K(NUM_EXPERTS, 16),       \
        K(NUM_EXPERTS_PER_TOK, 2), K(MOE_INTERMEDIATE_SIZE, 14336), K(EXPERT_LAYER_PERIOD, 2),               \
        K(EXPERT_LAYER_OFFSET, 1), K(ATTN_LAYER_PERIOD, 8), K(ATTN_LAYER_OFFSET, 4), K(SSM_STATE_SIZE, 16),  \
        K(MAMBA_D_CONV, 4), K(MAMBA_EXPAND, 2), K(MAMBA_DT_RANK, 256), K(MAMBA_CONV_BIAS, 1),               \
        K(MAMBA_PROJ_BIAS, 0), K(TORCH_DTYPE, BF16), END
static const llmmem__preset_value jamba_1_5_mini[] = {JAMBA_MINI};
static const llmmem__preset_value jamba_v0_1[] = {JAMBA_MINI};
/* tiiuae/Falcon-H1-0.5B-Instruct and tiiuae/Falcon-H1-7B-Instruct config.json (falcon_h1, as vendored in
 * public repositories): every layer attention and a Mamba-2 mixer (mamba_d_ssm = heads x d_head), no
 * gated RMSNorm (mamba_rms_norm false), no projection biases, untied embeddings */
#define FALCON_H1(hid, layers, heads, hd, inter, vocab, mpos, mheads, mhd, state)                                  \
    K(MODEL_TYPE, LLMMEM_MODEL_FALCON_H1), K(HIDDEN_SIZE, hid), K(NUM_HIDDEN_LAYERS, layers),                   \
        K(NUM_ATTENTION_HEADS, heads), K(NUM_KEY_VALUE_HEADS, 2), K(HEAD_DIM, hd), K(INTERMEDIATE_SIZE, inter), \
        K(VOCAB_SIZE, vocab), K(MAX_POSITION_EMBEDDINGS, mpos), K(TIE_WORD_EMBEDDINGS, 0), K(MLP_GATED, 1),   \
        K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0), K(MLP_BIAS, 0),         \
        K(PARALLEL_SSM, 1), K(MAMBA_NUM_HEADS, mheads), K(MAMBA_HEAD_DIM, mhd), K(SSM_STATE_SIZE, state),     \
        K(MAMBA_N_GROUPS, 1), K(MAMBA_D_CONV, 4), K(MAMBA_CONV_BIAS, 1), K(MAMBA_PROJ_BIAS, 0),              \
        K(MAMBA_RMS_NORM, 0), K(TORCH_DTYPE, BF16), END
static const llmmem__preset_value falcon_h1_0_5b[] = {FALCON_H1(1024, 36, 8, 64, 2048, 32784, 16384, 24, 64, 128)};
static const llmmem__preset_value falcon_h1_7b[] = {FALCON_H1(3072, 44, 12, 128, 12288, 130048, 262144, 24, 128, 256)};

/* Qwen/Qwen3-Next-80B-A3B-Instruct config.json (qwen3_next): 48 layers of 2048, every 4th gated
 * attention (16 heads of 256, 2 KV heads, q/k norms), the others Gated DeltaNet (16 key heads and
 * 32 value heads of 128, kernel 4); every layer 512 experts of 512, top 10, and a gated shared
 * expert of 512; untied 151936-row vocabulary (mtp_num_hidden_layers: not counted here) */
static const llmmem__preset_value qwen3_next_80b_a3b[] = {
    K(MODEL_TYPE, LLMMEM_MODEL_QWEN3_NEXT), K(HIDDEN_SIZE, 2048), K(NUM_HIDDEN_LAYERS, 48),
    K(NUM_ATTENTION_HEADS, 16), K(NUM_KEY_VALUE_HEADS, 2), K(HEAD_DIM, 256), K(INTERMEDIATE_SIZE, 5120),
    K(VOCAB_SIZE, 151936), K(MAX_POSITION_EMBEDDINGS, 262144), K(TIE_WORD_EMBEDDINGS, 0), K(MLP_GATED, 1),
    K(NORM_TYPE, RMS), K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0), K(MLP_BIAS, 0),
    K(QK_NORM, 1), K(ATTN_OUTPUT_GATE, 1), K(FULL_ATTENTION_INTERVAL, 4), K(LINEAR_NUM_KEY_HEADS, 16),
    K(LINEAR_NUM_VALUE_HEADS, 32), K(LINEAR_KEY_HEAD_DIM, 128), K(LINEAR_VALUE_HEAD_DIM, 128),
    K(LINEAR_CONV_KERNEL_DIM, 4), K(NUM_EXPERTS, 512), K(NUM_EXPERTS_PER_TOK, 10),
    K(MOE_INTERMEDIATE_SIZE, 512), K(SHARED_EXPERT_INTERMEDIATE_SIZE, 512), K(SHARED_EXPERT_GATE, 1),
    K(FIRST_K_DENSE_REPLACE, 0), K(MOE_LAYER_FREQ, 1), K(ROUTER_BIAS, 0), K(TORCH_DTYPE, BF16),
    K(NUM_NEXTN_PREDICT_LAYERS, 1), K(MTP_EMBEDDING, 0), K(MTP_LM_HEAD, 0), END};

/* ibm-granite/granite-4.0-h-small (granitemoehybrid): 40 layers of 4096, attention (32 heads of 128,
 * 8 KV heads, no position embedding) at layers 5, 15, 25 and 35, Mamba-2 elsewhere (128 heads of 64,
 * state 128, 1 group, kernel 4); every layer 72 experts of 768, top 10, and a shared MLP of 1536;
 * tied 100352-row vocabulary */
#define GRANITE_4_H(h, heads, kv, experts, top_k, expert_f, shared_f, m_heads)                               \
    K(MODEL_TYPE, LLMMEM_MODEL_GRANITEMOEHYBRID), K(HIDDEN_SIZE, h), K(NUM_HIDDEN_LAYERS, 40),                 \
        K(NUM_ATTENTION_HEADS, heads), K(NUM_KEY_VALUE_HEADS, kv), K(VOCAB_SIZE, 100352),                     \
        K(MAX_POSITION_EMBEDDINGS, 131072), K(TIE_WORD_EMBEDDINGS, 1), K(MLP_GATED, 1), K(NORM_TYPE, RMS),      \
        K(NORMS_PER_LAYER, 2), K(QKV_BIAS, 0), K(O_PROJ_BIAS, 0), K(MLP_BIAS, 0), K(NUM_EXPERTS, experts),     \
        K(NUM_EXPERTS_PER_TOK, top_k), K(INTERMEDIATE_SIZE, expert_f), K(MOE_INTERMEDIATE_SIZE, expert_f),     \
        K(SHARED_EXPERT_INTERMEDIATE_SIZE, shared_f), K(FIRST_K_DENSE_REPLACE, 0), K(MOE_LAYER_FREQ, 1),       \
        K(MAMBA_NUM_HEADS, m_heads), K(MAMBA_HEAD_DIM, 64), K(SSM_STATE_SIZE, 128), K(MAMBA_N_GROUPS, 1),      \
        K(MAMBA_D_CONV, 4), K(MAMBA_CONV_BIAS, 1), K(MAMBA_PROJ_BIAS, 0), K(TORCH_DTYPE, BF16), END
static const llmmem__preset_value granite_4_0_h_small[] = {GRANITE_4_H(4096, 32, 8, 72, 10, 768, 1536, 128)};
/* ibm-granite/granite-4.0-h-tiny: the same layout at 1536 (12 heads, 4 KV heads; 48 Mamba-2 heads
 * of 64), 64 experts of 512, top 6, a shared MLP of 1024 */
static const llmmem__preset_value granite_4_0_h_tiny[] = {GRANITE_4_H(1536, 12, 4, 64, 6, 512, 1024, 48)};
/* Granite 4.0-H: mamba layers, an attention layer at 5, 15, 25, 35 (model.c keeps each layer's MoE) */
#define GRANITE_4_H_PATTERN "MMMMM*MMMMMMMMM*MMMMMMMMM*MMMMMMMMM*MMMM"

const llmmem__preset llmmem__model_presets[] = {
    {"gpt2", gpt2},
    {"gpt2-medium", gpt2_medium},
    {"gpt2-large", gpt2_large},
    {"gpt2-xl", gpt2_xl},
    {"opt-1.3b", opt_1_3b},
    {"bloom-560m", bloom_560m},
    {"pythia-410m", pythia_410m},
    {"pythia-1b", pythia_1b},
    {"falcon-7b", falcon_7b},
    {"llama-2-7b", llama_2_7b},
    {"llama-2-13b", llama_2_13b},
    {"llama-2-70b", llama_2_70b},
    {"llama-3-8b", llama_3_8b},
    {"llama-3.1-8b", llama_3_1_8b},
    {"llama-3.1-70b", llama_3_1_70b},
    {"llama-3.1-405b", llama_3_1_405b},
    {"llama-3.2-1b", llama_3_2_1b},
    {"llama-3.2-3b", llama_3_2_3b},
    {"mistral-7b-v0.1", mistral_7b_v0_1},
    {"mixtral-8x7b", mixtral_8x7b},
    {"qwen2.5-0.5b", qwen2_5_0_5b},
    {"qwen2.5-7b", qwen2_5_7b},
    {"qwen2.5-72b", qwen2_5_72b},
    {"qwen3-8b", qwen3_8b},
    {"qwen3-30b-a3b", qwen3_30b_a3b},
    {"gemma-2-9b", gemma_2_9b},
    {"phi-3-mini-4k", phi_3_mini_4k},
    {"deepseek-v2-lite", deepseek_v2_lite},
    {"deepseek-v3", deepseek_v3},
    {"pythia-70m", pythia_70m},
    {"pythia-160m", pythia_160m},
    {"opt-6.7b", opt_6_7b},
    {"bloom-7b1", bloom_7b1},
    {"llama-3.3-70b", llama_3_3_70b},
    {"mistral-7b-v0.3", mistral_7b_v0_3},
    {"qwen2.5-1.5b", qwen2_5_1_5b},
    {"qwen2.5-3b", qwen2_5_3b},
    {"qwen2.5-14b", qwen2_5_14b},
    {"qwen2.5-32b", qwen2_5_32b},
    {"qwen3-235b-a22b", qwen3_235b_a22b},
    {"phi-4", phi_4},
    {"mixtral-8x22b", mixtral_8x22b},
    {"gemma-3-4b", gemma_3_4b},
    {"granite-3.3-8b", granite_3_3_8b},
    {"smollm3-3b", smollm3_3b},
    {"kimi-k2", kimi_k2},
    {"gpt-oss-20b", gpt_oss_20b},
    {"gpt-oss-120b", gpt_oss_120b},
    {"deepseek-v3.2", deepseek_v3_2},
    {"olmo-2-0425-1b", olmo_2_0425_1b},
    {"olmo-2-1124-7b", olmo_2_1124_7b},
    {"olmo-2-1124-13b", olmo_2_1124_13b},
    {"olmo-2-0325-32b", olmo_2_0325_32b},
    {"olmoe-1b-7b-0924", olmoe_1b_7b_0924},
    {"command-r-v01", command_r_v01},
    {"aya-expanse-8b", aya_expanse_8b},
    {"command-r7b-12-2024", command_r7b_12_2024},
    {"glm-4.5-air", glm_4_5_air},
    {"glm-4.5", glm_4_5},
    {"minimax-m2", minimax_m2},
    {"exaone-4.0-32b", exaone_4_0_32b},
    {"exaone-4.0-1.2b", exaone_4_0_1_2b},
    {"ernie-4.5-0.3b", ernie_4_5_0_3b},
    {"ernie-4.5-21b-a3b", ernie_4_5_21b_a3b},
    {"glm-4-9b-0414", glm_4_9b_0414},
    {"qwen2.5-vl-3b-instruct", qwen2_5_vl_3b},
    {"qwen2.5-vl-7b-instruct", qwen2_5_vl_7b},
    {"qwen3-vl-2b-instruct", qwen3_vl_2b},
    {"qwen3-vl-4b-instruct", qwen3_vl_4b},
    {"qwen3-vl-8b-instruct", qwen3_vl_8b},
    {"qwen3-vl-30b-a3b-instruct", qwen3_vl_30b_a3b},
    {"qwen3-vl-235b-a22b-instruct", qwen3_vl_235b_a22b},
    {"mistral-small-3.1-24b-instruct-2503", mistral_small_3_1_24b},
    {"mistral-small-3.2-24b-instruct-2506", mistral_small_3_2_24b},
    {"llama-4-scout-17b-16e", llama_4_scout_17b_16e},
    {"llama-4-maverick-17b-128e", llama_4_maverick_17b_128e},
    {"llama-3.2-11b-vision", llama_3_2_11b_vision},
    {"mamba-codestral-7b", mamba_codestral_7b},
    {"mamba2-130m", mamba2_130m},
    {"mamba2-370m", mamba2_370m},
    {"mamba2-780m", mamba2_780m},
    {"mamba2-1.3b", mamba2_1_3b},
    {"mamba2-2.7b", mamba2_2_7b},
    {"nemotron-nano-9b-v2", nemotron_nano_9b_v2},
    {"qwen3-next-80b-a3b", qwen3_next_80b_a3b},
    {"granite-4.0-h-small", granite_4_0_h_small},
    {"granite-4.0-h-tiny", granite_4_0_h_tiny},
    {"jamba-1.5-mini", jamba_1_5_mini},
    {"jamba-v0.1", jamba_v0_1},
    {"falcon-h1-0.5b-instruct", falcon_h1_0_5b},
    {"falcon-h1-7b-instruct", falcon_h1_7b},
};

const size_t llmmem__model_preset_total = sizeof llmmem__model_presets / sizeof llmmem__model_presets[0];

/* The blocks of the presets whose layers no key pattern gives, in hybrid_override_pattern letters
 * (M Mamba-2, * attention, - MLP): Mamba-2 models, Nemotron-H and Granite 4.0-H. */
const llmmem__preset_pattern llmmem__model_patterns[] = {
    {"mamba-codestral-7b", MAMBA_16 MAMBA_16 MAMBA_16 MAMBA_16, 0},
    {"mamba2-130m", MAMBA_16 MAMBA_8, 0},
    {"mamba2-370m", MAMBA_16 MAMBA_16 MAMBA_16, 0},
    {"mamba2-780m", MAMBA_16 MAMBA_16 MAMBA_16, 0},
    {"mamba2-1.3b", MAMBA_16 MAMBA_16 MAMBA_16, 0},
    {"mamba2-2.7b", MAMBA_16 MAMBA_16 MAMBA_16 MAMBA_16, 0},
    {"nemotron-nano-9b-v2", NEMOTRON_NANO_9B_V2_PATTERN, 0},
    /* GraniteMoeHybridDecoderLayer: a mamba or attention layer keeps its MoE and shared_mlp */
    {"granite-4.0-h-small", GRANITE_4_H_PATTERN, 1},
    {"granite-4.0-h-tiny", GRANITE_4_H_PATTERN, 1},
};

const size_t llmmem__model_pattern_total = sizeof llmmem__model_patterns / sizeof llmmem__model_patterns[0];
