/* The key space: every setting's name, owner, type, bounds, default and doc,
 * and the validated setters shared by the three input handles. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/families.h"
#include "base/internal.h"
#include "base/number.h"

#define I64_MAX INT64_MAX
#define SIZE_MAX_KEY (1LL << 24)   /* upper bound of a dimension: 16,777,216 */
#define COUNT_MAX_KEY (1LL << 20)  /* upper bound of a layer or expert count */
#define PARALLEL_MAX_KEY (1LL << 16) /* upper bound of one parallel dimension */
/* llama.cpp's own bounds on its options: each is read as an int (common/arg.cpp: std::stoi, which
 * refuses more), and a context serves at most LLAMA_MAX_SEQ sequences (src/llama-cparams.h;
 * llama-context.cpp refuses more: "n_seq_max must be <= 256") */
#define LLAMA_INT_MAX 2147483647LL
#define LLAMA_MAX_SEQ 256


static const char *const norm_type_names[] = {"layernorm", "rmsnorm", NULL};

static const char *const format_names[] = {
    "auto",     "fp32",     "fp16",     "bf16",      "fp8_e4m3", "fp8_e5m2", "int8",
    "int4",     "bnb_int8", "bnb_nf4",  "bnb_fp4",   "gptq_int4", "awq_int4", "mxfp4",
    "nvfp4",    "q4_0",     "q4_1",     "q5_0",      "q5_1",     "q8_0",     "q2_k",
    "q3_k",     "q4_k",     "q5_k",     "q6_k",      "fp8_block", "fp8_channel", "int8_channel",
    "ct_int4",  NULL,
};
#define FORMAT_LAST LLMMEM_FORMAT_CT_INT4

static const char *const mode_names[] = {"inference", "training", "lora", "qlora", NULL};
static const char *const recipe_names[] = {"megatron", "zero", "deepspeed", "pure_bf16", "fp32", "custom", NULL};
static const char *const optimizer_names[] = {"adamw", "adam",         "adamw_8bit", "adafactor",
                                              "sgd",   "sgd_momentum", "lion",       "muon", NULL};
/* Choices of the 16/32-bit format keys: auto (the recipe's), then a subset of llmmem_format by name. */
static const char *const float_auto_names[] = {"auto", "fp32", "fp16", "bf16", NULL};
static const char *const master_names[] = {"auto", "none", "fp32", "fp16", "bf16", NULL};
static const char *const state_names[] = {"auto", "fp32", "bf16", NULL};
/* Bits of LLMMEM_KEY_LORA_TARGETS, in bit order. */
static const char *const lora_target_names[] = {"q", "k", "v", "o", "gate", "up", "down", "experts", NULL};
static const char *const tristate_names[] = {"auto", "off", "on", NULL};
static const char *const quantized_modules_names[] = {"linear", "experts", NULL};
static const char *const speculative_names[] = {"none", "mtp", NULL};
/* Choices of LLMMEM_KEY_QK_NORM_TYPE: MiniMax-M2's qk_norm_type names, in llmmem_qk_norm_type order. */
static const char *const qk_norm_type_names[] = {"per_head", "per_layer", NULL};
/* value 6 is left for another vision tower and projector (NULL: not a choice) */
static const char *const vision_names[] = {"none", "clip_vision_model", "siglip_vision_model", "qwen2_5_vl", "qwen3_vl",
                                           "pixtral", NULL, "llama4_vision_model", "mllama_vision_model", "gemma4_vision",
                                           "moonvit", "exaone4_5_vision", "kimi_k3_vision", "minimax_m3_vision", NULL};
static const char *const projector_names[] = {"none", "llava_mlp", "gemma3", "qwen2_5_vl_merger", "qwen3_vl_merger",
                                              "mistral3", NULL, "llama4", "mllama", "gemma4", "kimi_k25", "kimi_k3",
                                              "minimax_m3", NULL};
/* the internal enums name these values (internal.h): a row added to one is added to the other */
_Static_assert(sizeof vision_names / sizeof *vision_names == LLMMEM__VISION_MINIMAX_M3 + 2, "vision_names and llmmem__vision_kind");
_Static_assert(sizeof projector_names / sizeof *projector_names == LLMMEM__PROJECTOR_MINIMAX_M3 + 2,
               "projector_names and llmmem__projector_kind");
static const char *const recompute_names[] = {"none", "selective", "full", "offload", NULL};
static const char *const recompute_method_names[] = {"uniform", "block", NULL};
static const char *const cross_entropy_names[] = {"standard", "fused", "chunked", NULL};
static const char *const framework_names[] = {"megatron", "hf_trainer", "deepspeed", "fsdp2", "vllm", NULL};
static const char *const attn_names[] = {"auto", "eager", "sdpa", "flash_attention_2", "fused", "core", NULL};
static const char *const norm_impl_names[] = {"auto", "input", "eager", "fused", NULL};
static const char *const optimizer_impl_names[] = {"auto", "foreach", "fused", "for_loop", NULL};
static const char *const gradient_allocation_names[] = {"auto", "lazy", "persistent", NULL};
static const char *const pytorch_names[] = {"2.x", "1.13", NULL};
static const char *const transformers_names[] = {"5.x", "4.x", NULL};
static const char *const experts_impl_names[] = {"auto", "eager", "grouped", NULL};
static const char *const cache_impl_names[] = {"auto", "dynamic", "static", "offloaded", NULL};
static const char *const device_kernels_names[] = {"cuda", "cpu", NULL};
/* Choices of LLMMEM_KEY_BACKEND, in llmmem_backend order. */
static const char *const backend_names[] = {"cuda", "rocm", "metal", "vulkan", "cpu", NULL};
static const char *const act_impl_names[] = {"auto", "eager", "fused", NULL};
static const char *const autocast_names[] = {"off", "bf16", "fp16", NULL};
static const char *const schedule_names[] = {"1f1b", "interleaved", "gpipe", NULL};
static const char *const fsdp_names[] = {"none", "full_shard", "shard_grad_op", "hybrid_shard", "no_shard", NULL};
static const char *const offload_names[] = {"none", "cpu", "nvme", NULL};
static const char *const plan_sharding_names[] = {"none", "zero1", "zero2", "zero3", "fsdp", "distributed_optimizer", NULL};
static const char *const plan_recompute_names[] = {"none", "selective", "full", NULL};
static const char *const host_init_names[] = {"none", "zero_init", "full", NULL};
/* vLLM's MambaDType names (vllm/config/cache.py) */
static const char *const engine_names[] = {"auto", "vllm", "llama.cpp", "ollama", "sglang", "trtllm", NULL};
/* Choices of LLMMEM_KEY_ENGINE_VERSION, in llmmem_engine_version order. */
static const char *const engine_version_names[] = {"latest", "vllm-0.20", "vllm-0.21", "sglang-0.4", NULL};
static const char *const trtllm_backend_names[] = {"pytorch", "engine", NULL};
static const char *const mamba_strategy_names[] = {"auto", "no_buffer", "extra_buffer", "extra_buffer_lazy", NULL};
/* llama.cpp common/arg.cpp kv_cache_types, in llmmem_ggml_cache_type order */
static const char *const ggml_cache_names[] = {"f16", "f32", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1", NULL};
static const char *const split_mode_names[] = {"none", "layer", "row", "tensor", NULL};
static const char *const mamba_dtype_names[] = {"auto", "float32", "bfloat16", "float16", NULL};
/* Choices of LLMMEM_KEY_KV_CACHE_DTYPE: vLLM's kv_cache_dtype names, in llmmem_kv_cache_dtype order. */
static const char *const kv_cache_dtype_names[] = {"auto",     "fp32",     "fp16",     "bf16",
                                                   "fp8",      "fp8_e4m3", "fp8_e5m2", "int8_per_token_head",
                                                   "fp8_per_token_head", "nvfp4", "fp8_ds_mla",
                                                   "int4_per_token_head", "fp8_inc", "nvfp4_4over6", NULL};

/* Helpers to keep the table readable. */
#define INT_KEY(k, obj, nm, lo, hi, d, doc_) \
    {k, obj, LLMMEM_TYPE_INT, nm, lo, hi, d, 0, 0, 0, NULL, doc_}
#define BOOL_KEY(k, obj, nm, d, doc_) \
    {k, obj, LLMMEM_TYPE_BOOL, nm, 0, 1, d, 0, 0, 0, NULL, doc_}
#define CHOICE_KEY(k, obj, nm, names, lo, hi, d, doc_) \
    {k, obj, LLMMEM_TYPE_CHOICE, nm, lo, hi, d, 0, 0, 0, names, doc_}
#define FLAGS_KEY(k, obj, nm, names, bits, d, doc_) \
    {k, obj, LLMMEM_TYPE_FLAGS, nm, 0, (1LL << (bits)) - 1, d, 0, 0, 0, names, doc_}
#define LIST_KEY(k, obj, nm, doc_) \
    {k, obj, LLMMEM_TYPE_LIST, nm, 0, LLMMEM__LIST_MAX, 0, 0, 0, 0, NULL, doc_}
#define REAL_KEY(k, obj, nm, lo, hi, d, doc_) \
    {k, obj, LLMMEM_TYPE_REAL, nm, 0, 0, 0, lo, hi, d, NULL, doc_}

#define M LLMMEM_OBJECT_MODEL
#define H LLMMEM_OBJECT_HARDWARE
#define S LLMMEM_OBJECT_STRATEGY

static const llmmem__key_info key_table[] = {
    /* model */
    CHOICE_KEY(LLMMEM_KEY_MODEL_TYPE, M, "model_type", llmmem__model_type_names, 0, LLMMEM__MODEL_TYPE_LAST, 0,
               "architecture family (Hugging Face model_type); sets the structural defaults below"),
    INT_KEY(LLMMEM_KEY_NUM_PARAMETERS, M, "num_parameters", 1, I64_MAX, 0,
            "parameter count of a model given by count alone (model_type custom, no shapes)"),
    INT_KEY(LLMMEM_KEY_HIDDEN_SIZE, M, "hidden_size", 1, SIZE_MAX_KEY, 0, "model width (0: not set)"),
    INT_KEY(LLMMEM_KEY_NUM_HIDDEN_LAYERS, M, "num_hidden_layers", 1, COUNT_MAX_KEY, 0,
            "decoder layers (0: not set)"),
    INT_KEY(LLMMEM_KEY_NUM_ATTENTION_HEADS, M, "num_attention_heads", 1, COUNT_MAX_KEY, 0,
            "query heads (0: not set)"),
    INT_KEY(LLMMEM_KEY_NUM_KEY_VALUE_HEADS, M, "num_key_value_heads", 0, COUNT_MAX_KEY, 0,
            "key/value heads for grouped- or multi-query attention (0: num_attention_heads)"),
    INT_KEY(LLMMEM_KEY_HEAD_DIM, M, "head_dim", 0, SIZE_MAX_KEY, 0,
            "width of one attention head (0: hidden_size / num_attention_heads)"),
    INT_KEY(LLMMEM_KEY_INTERMEDIATE_SIZE, M, "intermediate_size", 0, SIZE_MAX_KEY, 0,
            "dense MLP width (0: 4 * hidden_size)"),
    INT_KEY(LLMMEM_KEY_VOCAB_SIZE, M, "vocab_size", 1, SIZE_MAX_KEY, 0,
            "rows of the embedding and LM head (0: not set)"),
    INT_KEY(LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, M, "max_position_embeddings", 0, SIZE_MAX_KEY, 0,
            "rows of a learned position table; longest context"),
    BOOL_KEY(LLMMEM_KEY_TIE_WORD_EMBEDDINGS, M, "tie_word_embeddings", 0,
             "the LM head shares the embedding's weights"),
    BOOL_KEY(LLMMEM_KEY_MLP_GATED, M, "mlp_gated", 1,
             "MLP has three matrices (gate, up, down: SwiGLU/GeGLU) instead of two (GELU)"),
    CHOICE_KEY(LLMMEM_KEY_NORM_TYPE, M, "norm_type", norm_type_names, 0, LLMMEM_NORM_RMSNORM,
               LLMMEM_NORM_RMSNORM, "layernorm (weight and bias) or rmsnorm (weight only)"),
    INT_KEY(LLMMEM_KEY_NORMS_PER_LAYER, M, "norms_per_layer", 0, 8, 2,
            "norms in each decoder layer (1 Falcon-7B, 2 most, 4 Gemma 2/3)"),
    BOOL_KEY(LLMMEM_KEY_QKV_BIAS, M, "qkv_bias", 0, "q, k and v projections have biases"),
    BOOL_KEY(LLMMEM_KEY_O_PROJ_BIAS, M, "o_proj_bias", 0, "attention output projection has a bias"),
    BOOL_KEY(LLMMEM_KEY_MLP_BIAS, M, "mlp_bias", 0, "MLP matrices have biases"),
    BOOL_KEY(LLMMEM_KEY_QK_NORM, M, "qk_norm", 0,
             "RMSNorm on q and k (their weights' scope: qk_norm_type, head_dim each by default)"),
    BOOL_KEY(LLMMEM_KEY_EMBEDDING_NORM, M, "embedding_norm", 0, "a norm right after the embedding (BLOOM)"),
    BOOL_KEY(LLMMEM_KEY_LEARNED_POSITIONS, M, "learned_positions", 0,
             "a learned table of max_position_embeddings + position_offset rows"),
    INT_KEY(LLMMEM_KEY_POSITION_OFFSET, M, "position_offset", 0, 1024, 0,
            "extra rows of the learned position table (OPT: 2)"),
    INT_KEY(LLMMEM_KEY_NUM_EXPERTS, M, "num_experts", 0, COUNT_MAX_KEY, 0,
            "routed experts per MoE layer (0: dense model)"),
    INT_KEY(LLMMEM_KEY_NUM_EXPERTS_PER_TOK, M, "num_experts_per_tok", 0, COUNT_MAX_KEY, 0,
            "routed experts each token uses"),
    INT_KEY(LLMMEM_KEY_MOE_INTERMEDIATE_SIZE, M, "moe_intermediate_size", 0, SIZE_MAX_KEY, 0,
            "width of one routed expert's MLP (0: intermediate_size)"),
    INT_KEY(LLMMEM_KEY_N_SHARED_EXPERTS, M, "n_shared_experts", 0, COUNT_MAX_KEY, 0,
            "always-active shared experts per MoE layer"),
    INT_KEY(LLMMEM_KEY_SHARED_EXPERT_INTERMEDIATE_SIZE, M, "shared_expert_intermediate_size", 0,
            SIZE_MAX_KEY, 0, "width of the shared experts' MLP (0: n_shared_experts * moe_intermediate_size)"),
    BOOL_KEY(LLMMEM_KEY_SHARED_EXPERT_GATE, M, "shared_expert_gate", 0,
             "a 1 x hidden_size sigmoid gate on the shared expert (Qwen2-MoE)"),
    INT_KEY(LLMMEM_KEY_FIRST_K_DENSE_REPLACE, M, "first_k_dense_replace", 0, COUNT_MAX_KEY, 0,
            "leading layers that keep a dense MLP in a MoE model"),
    INT_KEY(LLMMEM_KEY_MOE_LAYER_FREQ, M, "moe_layer_freq", 1, COUNT_MAX_KEY, 1,
            "after the dense layers, every n-th layer is MoE (1: all)"),
    BOOL_KEY(LLMMEM_KEY_ROUTER_BIAS, M, "router_bias", 0, "the router's linear layer has a bias"),
    BOOL_KEY(LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS, M, "router_score_correction_bias", 0,
             "a per-expert bias on routing scores (DeepSeek-V3 e_score_correction_bias)"),
    INT_KEY(LLMMEM_KEY_Q_LORA_RANK, M, "q_lora_rank", 0, SIZE_MAX_KEY, 0,
            "MLA: rank of the low-rank q projection (0: full-rank q_proj)"),
    INT_KEY(LLMMEM_KEY_KV_LORA_RANK, M, "kv_lora_rank", 0, SIZE_MAX_KEY, 0,
            "MLA: width of the compressed KV latent (0: not MLA)"),
    INT_KEY(LLMMEM_KEY_QK_ROPE_HEAD_DIM, M, "qk_rope_head_dim", 0, SIZE_MAX_KEY, 0,
            "MLA: rotary part of each q/k head"),
    INT_KEY(LLMMEM_KEY_QK_NOPE_HEAD_DIM, M, "qk_nope_head_dim", 0, SIZE_MAX_KEY, 0,
            "MLA: non-rotary part of each q/k head"),
    INT_KEY(LLMMEM_KEY_V_HEAD_DIM, M, "v_head_dim", 0, SIZE_MAX_KEY, 0, "MLA: width of each value head"),
    CHOICE_KEY(LLMMEM_KEY_TORCH_DTYPE, M, "torch_dtype", format_names, 1, FORMAT_LAST, LLMMEM_FORMAT_BF16,
               "format the checkpoint's weights are stored in"),
    CHOICE_KEY(LLMMEM_KEY_QUANTIZATION_FORMAT, M, "quantization_format", format_names, 0, FORMAT_LAST,
               LLMMEM_FORMAT_AUTO, "format of a quantized checkpoint's weight matrices (auto: not quantized)"),
    INT_KEY(LLMMEM_KEY_QUANTIZATION_GROUP_SIZE, M, "quantization_group_size", 0, SIZE_MAX_KEY, 0,
            "group or block size of the checkpoint's quantization (0: the format's default)"),
    BOOL_KEY(LLMMEM_KEY_QUANTIZATION_DOUBLE_QUANT, M, "quantization_double_quant", 0,
             "the checkpoint's bitsandbytes 4-bit statistics are double-quantized"),
    INT_KEY(LLMMEM_KEY_SLIDING_WINDOW, M, "sliding_window", 0, SIZE_MAX_KEY, 0,
            "tokens a sliding-window attention layer attends to (0: no sliding window)"),
    INT_KEY(LLMMEM_KEY_SLIDING_WINDOW_PATTERN, M, "sliding_window_pattern", 0, COUNT_MAX_KEY, 0,
            "n: layer i uses global attention when (i + 1) % n == 0, the others slide (Gemma 2: 2, "
            "Gemma 3: 6); 0: every layer slides"),
    CHOICE_KEY(LLMMEM_KEY_VISION_MODEL_TYPE, M, "vision_model_type", vision_names, 0, 13, 0,
               "vision tower: none, clip_vision_model (LLaVA), siglip_vision_model (Gemma 3, PaliGemma), "
               "qwen2_5_vl (Qwen2.5-VL ViT), qwen3_vl (Qwen3-VL ViT), pixtral (Mistral 3), "
               "llama4_vision_model (Llama 4), mllama_vision_model (Llama 3.2 Vision), gemma4_vision (Gemma 4), "
               "moonvit (Kimi-K2.5's MoonViT), exaone4_5_vision (EXAONE 4.5's grouped-query Qwen2.5-VL ViT), "
               "kimi_k3_vision (Kimi K3's MoonViT: RMSNorms, no biases, qkv_hidden_size), minimax_m3_vision "
               "(MiniMax-M3's CLIP-style tower: Conv3d patches, 3D RoPE, no position table)"),
    INT_KEY(LLMMEM_KEY_VISION_HIDDEN_SIZE, M, "vision_hidden_size", 0, SIZE_MAX_KEY, 0, "vision tower width"),
    INT_KEY(LLMMEM_KEY_VISION_INTERMEDIATE_SIZE, M, "vision_intermediate_size", 0, SIZE_MAX_KEY, 0,
            "vision tower MLP width"),
    INT_KEY(LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS, M, "vision_num_hidden_layers", 0, COUNT_MAX_KEY, 0,
            "vision tower layers"),
    INT_KEY(LLMMEM_KEY_VISION_PATCH_SIZE, M, "vision_patch_size", 0, 4096, 0, "vision patch side in pixels"),
    INT_KEY(LLMMEM_KEY_VISION_IMAGE_SIZE, M, "vision_image_size", 0, 1LL << 20, 0, "vision input side in pixels"),
    INT_KEY(LLMMEM_KEY_VISION_NUM_CHANNELS, M, "vision_num_channels", 1, 64, 3, "image channels"),
    BOOL_KEY(LLMMEM_KEY_VISION_USE_HEAD, M, "vision_use_head", 0,
             "SigLIP attention-pooling head (probe, attention, norm, MLP)"),
    BOOL_KEY(LLMMEM_KEY_ATTENTION_SINKS, M, "attention_sinks", 0,
             "one learned sink logit per query head in every attention layer (gpt-oss GptOssAttention.sinks)"),
    CHOICE_KEY(LLMMEM_KEY_QUANTIZED_MODULES, M, "quantized_modules", quantized_modules_names, 0, 1, 0,
               "what quantization_format reaches: linear (every linear layer but embedding, LM head and "
               "routers) or experts (routed experts alone, as gpt-oss MXFP4)"),
    INT_KEY(LLMMEM_KEY_NUM_NEXTN_PREDICT_LAYERS, M, "num_nextn_predict_layers", 0, 64, 0,
            "multi-token-prediction modules stored in the checkpoint beyond the model (DeepSeek-V3: 1; "
            "not in the model's parameters)"),
    BOOL_KEY(LLMMEM_KEY_MTP_EMBEDDING, M, "mtp_embedding", 0,
             "each multi-token-prediction module stores its own copy of the embedding"),
    BOOL_KEY(LLMMEM_KEY_MTP_LM_HEAD, M, "mtp_lm_head", 0,
             "each multi-token-prediction module stores its own copy of the LM head"),
    INT_KEY(LLMMEM_KEY_INDEX_N_HEADS, M, "index_n_heads", 0, 1LL << 16, 0,
            "DeepSeek sparse attention: query heads of the indexer in every MLA layer; in minimax_m3_vl, of its "
            "lightning indexer (index_q_proj, index_k_proj and their norms) on the layers from index_first_layer "
            "(0: no indexer)"),
    INT_KEY(LLMMEM_KEY_INDEX_HEAD_DIM, M, "index_head_dim", 0, 1LL << 16, 0,
            "DeepSeek sparse attention: width of the indexer's heads and of the key it caches per token"),
    CHOICE_KEY(LLMMEM_KEY_QK_NORM_TYPE, M, "qk_norm_type", qk_norm_type_names, 0, LLMMEM_QK_NORM_PER_LAYER,
               LLMMEM_QK_NORM_PER_HEAD,
               "what qk_norm's weights span: per_head (head_dim, shared by the heads: Qwen3) or per_layer "
               "(heads x head_dim for q, kv_heads x head_dim for k: OLMo 2, OLMoE, Command R+, MiniMax-M2)"),
    INT_KEY(LLMMEM_KEY_VISION_OUT_HIDDEN_SIZE, M, "vision_out_hidden_size", 0, SIZE_MAX_KEY, 0,
            "width a Qwen vision merger projects to (out_hidden_size; 0: the text model's hidden_size)"),
    INT_KEY(LLMMEM_KEY_VISION_SPATIAL_MERGE_SIZE, M, "vision_spatial_merge_size", 0, 64, 0,
            "side of the square of patches a merger joins into one token (spatial_merge_size; 0: 2 where a "
            "merger needs it)"),
    INT_KEY(LLMMEM_KEY_VISION_TEMPORAL_PATCH_SIZE, M, "vision_temporal_patch_size", 0, 64, 0,
            "frames one Qwen vision patch spans (temporal_patch_size; 0: 2 for a Qwen tower)"),
    INT_KEY(LLMMEM_KEY_VISION_NUM_POSITION_EMBEDDINGS, M, "vision_num_position_embeddings", 0, SIZE_MAX_KEY, 0,
            "rows of a learned vision position table (Qwen3-VL num_position_embeddings)"),
    INT_KEY(LLMMEM_KEY_VISION_DEEPSTACK_LAYERS, M, "vision_deepstack_layers", 0, COUNT_MAX_KEY, 0,
            "Qwen3-VL deepstack mergers: entries of deepstack_visual_indexes"),
    INT_KEY(LLMMEM_KEY_VISION_NUM_ATTENTION_HEADS, M, "vision_num_attention_heads", 0, COUNT_MAX_KEY, 0,
            "vision tower attention heads (0: not known)"),
    INT_KEY(LLMMEM_KEY_VISION_FULLATT_BLOCKS, M, "vision_fullatt_blocks", 0, COUNT_MAX_KEY, 0,
            "Qwen2.5-VL vision blocks attending over the whole image (entries of fullatt_block_indexes); the "
            "others attend within windows"),
    INT_KEY(LLMMEM_KEY_VISION_WINDOW_SIZE, M, "vision_window_size", 0, 1LL << 20, 0,
            "Qwen2.5-VL attention window side in pixels (window_size; 0: every block attends over the whole "
            "image)"),
    CHOICE_KEY(LLMMEM_KEY_MULTIMODAL_PROJECTOR, M, "multimodal_projector", projector_names, 0, 12, 0,
               "vision-to-text projector: none, llava_mlp (two biased linears), gemma3 (RMSNorm + linear), "
               "qwen2_5_vl_merger (RMSNorm + two-layer MLP over merged patches), qwen3_vl_merger (LayerNorm + "
               "MLP, and one per deepstack layer), mistral3 (RMSNorm, patch merger, two linears), llama4 (one "
               "linear without bias), mllama (one biased linear), gemma4 (one linear without bias), kimi_k25 "
               "(LayerNorm + two-layer MLP over 2 x 2 merged patches), kimi_k3 (PatchMergerV2: two linears without "
               "bias over merged patches, an RMSNorm after), minimax_m3 (two biased two-layer MLPs: one from the "
               "tower's width, one over merged patches of the text width)"),
    INT_KEY(LLMMEM_KEY_ATTENTION_CHUNK_SIZE, M, "attention_chunk_size", 0, SIZE_MAX_KEY, 0,
            "tokens of the chunks a chunked-attention layer attends within (Llama 4: 8192; 0: no chunked layers)"),
    INT_KEY(LLMMEM_KEY_NO_ROPE_LAYER_INTERVAL, M, "no_rope_layer_interval", 0, COUNT_MAX_KEY, 4,
            "n: with attention_chunk_size, layer i attends globally (a NoPE layer) when (i + 1) % n == 0 and "
            "within its chunk otherwise (Llama 4: 4); 0: every layer is chunked"),
    INT_KEY(LLMMEM_KEY_INTERLEAVE_MOE_LAYER_STEP, M, "interleave_moe_layer_step", 0, COUNT_MAX_KEY, 0,
            "n: layer i is a MoE layer when (i + 1) % n == 0, the others dense (Llama 4 Scout 1, Maverick 2); "
            "0: first_k_dense_replace and moe_layer_freq decide"),
    INT_KEY(LLMMEM_KEY_VISION_OUTPUT_DIM, M, "vision_output_dim", 0, SIZE_MAX_KEY, 0,
            "width of the vision features the llama4 projector maps to the text width"),
    INT_KEY(LLMMEM_KEY_PROJECTOR_INPUT_DIM, M, "projector_input_dim", 0, SIZE_MAX_KEY, 0,
            "Llama 4 vision adapter: output width of its first linear (fc1)"),
    INT_KEY(LLMMEM_KEY_PROJECTOR_OUTPUT_DIM, M, "projector_output_dim", 0, SIZE_MAX_KEY, 0,
            "Llama 4 vision adapter: width of its second linear (fc2, square)"),
    INT_KEY(LLMMEM_KEY_CROSS_ATTENTION_INTERVAL, M, "cross_attention_interval", 0, COUNT_MAX_KEY, 0,
            "n: decoder layer i is a cross-attention layer (its keys and values from the image) when i >= "
            "cross_attention_first and (i - cross_attention_first) % n == 0 (mllama: 5); 0: no cross-attention layers"),
    INT_KEY(LLMMEM_KEY_CROSS_ATTENTION_FIRST, M, "cross_attention_first", 0, COUNT_MAX_KEY, 0,
            "the first cross-attention layer (mllama: 3)"),
    INT_KEY(LLMMEM_KEY_VISION_NUM_GLOBAL_LAYERS, M, "vision_num_global_layers", 0, COUNT_MAX_KEY, 0,
            "mllama vision tower: layers of its gated global transformer"),
    INT_KEY(LLMMEM_KEY_VISION_MAX_NUM_TILES, M, "vision_max_num_tiles", 0, 1024, 0,
            "mllama vision tower: tiles an image is split into at most"),
    INT_KEY(LLMMEM_KEY_VISION_MAX_ASPECT_RATIO_ID, M, "vision_max_aspect_ratio_id", 0, 1 << 20, 0,
            "mllama vision tower: supported aspect ratios; its tile embeddings have one row more"),
    INT_KEY(LLMMEM_KEY_EMBEDDING_EXTRA_ROWS, M, "embedding_extra_rows", 0, SIZE_MAX_KEY, 0,
            "rows the input embedding holds past vocab_size, which the LM head lacks (mllama: 8)"),
    BOOL_KEY(LLMMEM_KEY_TORCH_DTYPE_IN_CONFIG, M, "torch_dtype_in_config", 1,
             "the config.json named torch_dtype (or dtype); 0: it named none and torch_dtype is fp32, what "
             "transformers makes of that"),
    INT_KEY(LLMMEM_KEY_MAMBA_NUM_HEADS, M, "mamba_num_heads", 0, SIZE_MAX_KEY, 0,
            "Mamba-2 mixer heads (NemotronHConfig mamba_num_heads, Mamba2Config num_heads); 0: no Mamba-2 layers"),
    INT_KEY(LLMMEM_KEY_MAMBA_HEAD_DIM, M, "mamba_head_dim", 0, SIZE_MAX_KEY, 0,
            "width of a Mamba-2 head; heads x width is the mixer's inner width"),
    INT_KEY(LLMMEM_KEY_SSM_STATE_SIZE, M, "ssm_state_size", 0, SIZE_MAX_KEY, 0,
            "Mamba-2 state size N of each head (Mamba2Config state_size)"),
    INT_KEY(LLMMEM_KEY_MAMBA_N_GROUPS, M, "mamba_n_groups", 1, SIZE_MAX_KEY, 1,
            "Mamba-2 groups that share the B and C projections (Mamba2Config n_groups)"),
    INT_KEY(LLMMEM_KEY_MAMBA_D_CONV, M, "mamba_d_conv", 1, 4096, 4,
            "Mamba-2 causal convolution kernel width (Mamba2Config conv_kernel)"),
    BOOL_KEY(LLMMEM_KEY_MAMBA_CONV_BIAS, M, "mamba_conv_bias", 1,
             "the Mamba-2 convolution has a bias (Mamba2Config use_conv_bias)"),
    BOOL_KEY(LLMMEM_KEY_MAMBA_PROJ_BIAS, M, "mamba_proj_bias", 0,
             "the Mamba-2 in_proj and out_proj have biases (Mamba2Config use_bias)"),
    INT_KEY(LLMMEM_KEY_LINEAR_NUM_KEY_HEADS, M, "linear_num_key_heads", 0, SIZE_MAX_KEY, 0,
            "Gated DeltaNet query and key heads (Qwen3NextConfig); 0: no Gated DeltaNet layers"),
    INT_KEY(LLMMEM_KEY_LINEAR_NUM_VALUE_HEADS, M, "linear_num_value_heads", 0, SIZE_MAX_KEY, 0,
            "Gated DeltaNet value heads"),
    INT_KEY(LLMMEM_KEY_LINEAR_KEY_HEAD_DIM, M, "linear_key_head_dim", 0, SIZE_MAX_KEY, 0,
            "width of a Gated DeltaNet key head"),
    INT_KEY(LLMMEM_KEY_LINEAR_VALUE_HEAD_DIM, M, "linear_value_head_dim", 0, SIZE_MAX_KEY, 0,
            "width of a Gated DeltaNet value head"),
    INT_KEY(LLMMEM_KEY_LINEAR_CONV_KERNEL_DIM, M, "linear_conv_kernel_dim", 1, 4096, 4,
            "Gated DeltaNet causal convolution kernel width"),
    INT_KEY(LLMMEM_KEY_FULL_ATTENTION_INTERVAL, M, "full_attention_interval", 0, COUNT_MAX_KEY, 0,
            "n: layer i is full attention when (i + 1) % n == 0 and Gated DeltaNet otherwise (Qwen3-Next: "
            "4); 0: no such pattern"),
    INT_KEY(LLMMEM_KEY_ATTN_LAYER_PERIOD, M, "attn_layer_period", 0, COUNT_MAX_KEY, 0,
            "n: layer i is attention when i % n == attn_layer_offset and Mamba-1 otherwise (JambaConfig: 8); "
            "0: no such pattern"),
    INT_KEY(LLMMEM_KEY_ATTN_LAYER_OFFSET, M, "attn_layer_offset", 0, COUNT_MAX_KEY, 0,
            "the attention layers' offset within attn_layer_period (JambaConfig: 4)"),
    INT_KEY(LLMMEM_KEY_EXPERT_LAYER_PERIOD, M, "expert_layer_period", 0, COUNT_MAX_KEY, 0,
            "n: layer i is MoE when i % n == expert_layer_offset, dense otherwise (JambaConfig: 2); 0: the "
            "other MoE layer keys decide"),
    INT_KEY(LLMMEM_KEY_EXPERT_LAYER_OFFSET, M, "expert_layer_offset", 0, COUNT_MAX_KEY, 0,
            "the MoE layers' offset within expert_layer_period (JambaConfig: 1)"),
    INT_KEY(LLMMEM_KEY_MAMBA_EXPAND, M, "mamba_expand", 1, 64, 2,
            "Mamba-1 inner width over hidden_size (JambaConfig mamba_expand)"),
    INT_KEY(LLMMEM_KEY_MAMBA_DT_RANK, M, "mamba_dt_rank", 0, SIZE_MAX_KEY, 0,
            "rank of the Mamba-1 time-step projection (JambaConfig mamba_dt_rank); 0: ceil(hidden_size / 16)"),
    BOOL_KEY(LLMMEM_KEY_ATTN_OUTPUT_GATE, M, "attn_output_gate", 0,
             "a per-channel sigmoid gate on the attention output: q_proj gives it, doubling its rows "
             "(Qwen3NextAttention); an MLA layer's own g_proj (hidden -> heads x v_head_dim) does (Kimi K3 "
             "mla_use_output_gate)"),
    BOOL_KEY(LLMMEM_KEY_PARALLEL_SSM, M, "parallel_ssm", 0,
             "every attention layer also runs a Mamba-2 mixer on the same input, its state kept beside the "
             "layer's keys and values (FalconH1DecoderLayer)"),
    BOOL_KEY(LLMMEM_KEY_MAMBA_RMS_NORM, M, "mamba_rms_norm", 1,
             "the Mamba-2 mixer has its gated RMSNorm over the inner width (FalconH1Config mamba_rms_norm)"),
    BOOL_KEY(LLMMEM_KEY_ROUTER_FP32, M, "router_fp32", 0,
             "the MoE router's weight is stored and run in fp32 whatever the other weights' dtype (vLLM "
             "minimax_m2.py MiniMaxM2MoE gate params_dtype float32)"),
    INT_KEY(LLMMEM_KEY_GLOBAL_HEAD_DIM, M, "global_head_dim", 0, SIZE_MAX_KEY, 0,
            "width of the query, key and value heads of the full-attention layers when it differs from the "
            "sliding ones' head_dim (Gemma4TextConfig global_head_dim: 512); 0: head_dim"),
    INT_KEY(LLMMEM_KEY_NUM_GLOBAL_KEY_VALUE_HEADS, M, "num_global_key_value_heads", 0, SIZE_MAX_KEY, 0,
            "KV heads of the full-attention layers when attention_k_eq_v (Gemma 4 31B: 4); 0: num_key_value_heads"),
    BOOL_KEY(LLMMEM_KEY_ATTENTION_K_EQ_V, M, "attention_k_eq_v", 0,
             "the full-attention layers have no v_proj: their values come from the key projection (they still "
             "cache keys and values; Gemma4TextAttention)"),
    INT_KEY(LLMMEM_KEY_NUM_KV_SHARED_LAYERS, M, "num_kv_shared_layers", 0, COUNT_MAX_KEY, 0,
            "the last n decoder layers read the keys and values of the last earlier layer of their type: no "
            "k_proj or v_proj in the model (the checkpoint still stores them) and nothing cached (Gemma 4 E2B: 20)"),
    BOOL_KEY(LLMMEM_KEY_DOUBLE_WIDE_MLP, M, "use_double_wide_mlp", 0,
             "the KV-shared layers' MLP is 2 x intermediate_size wide (Gemma4TextConfig use_double_wide_mlp)"),
    INT_KEY(LLMMEM_KEY_HIDDEN_SIZE_PER_LAYER_INPUT, M, "hidden_size_per_layer_input", 0, SIZE_MAX_KEY, 0,
            "width of each layer's slice of the per-layer input embeddings: embed_tokens_per_layer, "
            "per_layer_model_projection, and per layer a gate, a projection and a norm (Gemma 4 PLE); 0: none"),
    INT_KEY(LLMMEM_KEY_VOCAB_SIZE_PER_LAYER_INPUT, M, "vocab_size_per_layer_input", 0, SIZE_MAX_KEY, 0,
            "rows of the per-layer input embedding table (Gemma4TextConfig: 262144)"),
    BOOL_KEY(LLMMEM_KEY_LAYER_SCALAR, M, "layer_scalar", 0,
             "each decoder layer stores one scalar its output is scaled by (Gemma4TextDecoderLayer.layer_scalar)"),
    BOOL_KEY(LLMMEM_KEY_ROUTER_SCALES, M, "router_scales", 0,
             "the MoE router has a per-channel input scale and a per-expert scale (Gemma4TextRouter scale, "
             "per_expert_scale)"),
    BOOL_KEY(LLMMEM_KEY_VISION_STANDARDIZE, M, "vision_standardize", 0,
             "the vision tower ends in a learned bias and scale of its width (Gemma4VisionConfig standardize)"),
    INT_KEY(LLMMEM_KEY_AUDIO_HIDDEN_SIZE, M, "audio_hidden_size", 0, SIZE_MAX_KEY, 0,
            "width of the audio tower (Gemma4AudioConfig hidden_size); 0: no audio tower"),
    INT_KEY(LLMMEM_KEY_AUDIO_NUM_HIDDEN_LAYERS, M, "audio_num_hidden_layers", 0, COUNT_MAX_KEY, 0,
            "conformer layers of the audio tower"),
    INT_KEY(LLMMEM_KEY_AUDIO_NUM_ATTENTION_HEADS, M, "audio_num_attention_heads", 0, SIZE_MAX_KEY, 0,
            "attention heads of the audio tower"),
    INT_KEY(LLMMEM_KEY_AUDIO_CONV_KERNEL_SIZE, M, "audio_conv_kernel_size", 0, 4096, 0,
            "kernel of the audio tower's depthwise convolution"),
    INT_KEY(LLMMEM_KEY_AUDIO_SUBSAMPLING_CHANNELS_0, M, "audio_subsampling_channels_0", 0, SIZE_MAX_KEY, 0,
            "channels of the audio subsampling's first convolution (Gemma4AudioConfig subsampling_conv_channels[0])"),
    INT_KEY(LLMMEM_KEY_AUDIO_SUBSAMPLING_CHANNELS_1, M, "audio_subsampling_channels_1", 0, SIZE_MAX_KEY, 0,
            "channels of the audio subsampling's second convolution"),
    INT_KEY(LLMMEM_KEY_AUDIO_OUTPUT_PROJ_DIMS, M, "audio_output_proj_dims", 0, SIZE_MAX_KEY, 0,
            "width the audio tower's output_proj gives, which embed_audio projects to hidden_size"),
    INT_KEY(LLMMEM_KEY_HC_MULT, M, "hc_mult", 0, 64, 0,
            "manifold-constrained hyper-connections: the residual streams each layer mixes, with a mixing function, "
            "scale and base before its attention and its feed-forward (DeepseekV4Config hc_mult: 4); 0: none"),
    INT_KEY(LLMMEM_KEY_O_GROUPS, M, "o_groups", 0, SIZE_MAX_KEY, 0,
            "the attention output projection in head groups, each through a rank of o_lora_rank (DeepSeek-V4: 8); "
            "0: one o_proj"),
    INT_KEY(LLMMEM_KEY_O_LORA_RANK, M, "o_lora_rank", 0, SIZE_MAX_KEY, 0,
            "the rank of each head group's output projection (DeepSeek-V4: 1024)"),
    INT_KEY(LLMMEM_KEY_COMPRESS_RATE_CSA, M, "compress_rate_csa", 0, SIZE_MAX_KEY, 4,
            "tokens a compressed sparse attention layer's compressor joins into one entry (DeepseekV4Config: 4)"),
    INT_KEY(LLMMEM_KEY_COMPRESS_RATE_HCA, M, "compress_rate_hca", 0, SIZE_MAX_KEY, 128,
            "tokens a heavily compressed attention layer's compressor joins into one entry (DeepseekV4Config: 128)"),
    BOOL_KEY(LLMMEM_KEY_EXPERTS_FP4, M, "experts_fp4", 0,
             "the checkpoint stores its routed experts in FP4 beside FP8 weights (DeepSeek-V4 expert_dtype fp4): "
             "weights priced in the checkpoint's own format are refused, an explicit weight_format is not"),
    BOOL_KEY(LLMMEM_KEY_LINEAR_ATTN_KDA, M, "linear_attn_kda", 0,
             "the linear_attention layers are Kimi Delta Attention (Kimi-Linear's KimiDeltaAttention: q, k, v projections "
             "and convolutions, low-rank decay and output gates, per-channel dt_bias) with the linear_* widths, key and "
             "value heads alike; 0: Gated DeltaNet"),
    BOOL_KEY(LLMMEM_KEY_ROUTER_BIAS_FP32, M, "router_bias_fp32", 1,
             "the router's e_score_correction_bias is stored in fp32 (DeepSeek-V3's Gate.bias); 0: in the weights' dtype "
             "(Kimi-Linear's checkpoint)"),
    INT_KEY(LLMMEM_KEY_MLP_ACT_PARAMS, M, "mlp_act_params", 0, 1024, 0,
            "learned scalars of each dense MLP's activation (Apertus's XIELUActivation: alpha_p and alpha_n, 2)"),
    INT_KEY(LLMMEM_KEY_CONV_L_CACHE, M, "conv_L_cache", 1, 4096, 3,
            "kernel of the short-convolution layers (Lfm2Config conv_L_cache); the last kernel - 1 inputs are their "
            "state per sequence in vLLM"),
    BOOL_KEY(LLMMEM_KEY_CONV_BIAS, M, "conv_bias", 0,
             "the short-convolution layers' in_proj, conv and out_proj have biases (Lfm2Config conv_bias)"),
    BOOL_KEY(LLMMEM_KEY_FULL_ATTENTION_SINKS, M, "full_attention_sinks", 0,
             "in a model with global_head_dim or num_global_key_value_heads, the full-attention layers have a "
             "learned sink per head (MiMo-V2-Flash add_full_attention_sink_bias; attention_sinks gives the sliding "
             "layers theirs)"),
    INT_KEY(LLMMEM_KEY_NUM_GLOBAL_ATTENTION_HEADS, M, "num_global_attention_heads", 0, SIZE_MAX_KEY, 0,
            "query heads of the full-attention layers when they differ from the sliding layers' "
            "num_attention_heads (Step-3.5-Flash: 64 beside attention_other_setting's 96); 0: num_attention_heads"),
    BOOL_KEY(LLMMEM_KEY_HEAD_WISE_ATTN_GATE, M, "head_wise_attn_gate", 0,
             "g_proj (hidden_size -> one value a query head) gates each head's attention output through a sigmoid "
             "(vLLM step3p5.py Step3p5Attention use_head_wise_attn_gate)"),
    INT_KEY(LLMMEM_KEY_VISION_NUM_KEY_VALUE_HEADS, M, "vision_num_key_value_heads", 0, COUNT_MAX_KEY, 0,
            "vision tower key/value heads where its attention groups the query heads (EXAONE 4.5's "
            "num_key_value_heads: the qkv projection gives hidden + 2 x these x head width); 0: as many as query heads"),
    INT_KEY(LLMMEM_KEY_MOE_LATENT_SIZE, M, "moe_latent_size", 0, SIZE_MAX_KEY, 0,
            "the routed experts' input and output width: fc1_latent_proj takes hidden_size to it before them and "
            "fc2_latent_proj back after them (NemotronHMoE); 0: the experts work at hidden_size"),
    INT_KEY(LLMMEM_KEY_INDEX_FIRST_LAYER, M, "index_first_layer", 0, COUNT_MAX_KEY, 0,
            "minimax_m3_vl: the first layer with a lightning indexer (index_n_heads), as sparse_attention_freq "
            "gives it (0 for MiniMax-M3's first 3 layers, 1 after); 0: every layer has one"),
    INT_KEY(LLMMEM_KEY_ATTN_RES_BLOCK_SIZE, M, "attn_res_block_size", 0, COUNT_MAX_KEY, 0,
            "layers a block of the attention-residual bank spans: every layer mixes the bank through a norm and a "
            "1 x hidden projection before attention (self_attention_res_norm, _proj) and before the MLP (mlp_res_norm, "
            "_proj), the model's output through output_attn_res_norm and _proj (Kimi K3: 12); 0: plain residuals"),
    BOOL_KEY(LLMMEM_KEY_LINEAR_FULL_RANK_GATE, M, "linear_full_rank_gate", 0,
             "the Kimi Delta Attention output gate is one g_proj (hidden -> heads x head_dim) in place of g_a_proj and "
             "g_b_proj (Kimi K3's linear_attn_config use_full_rank_gate)"),
    BOOL_KEY(LLMMEM_KEY_MOE_LATENT_NORM, M, "moe_latent_norm", 0,
             "an RMSNorm over moe_latent_size normalizes the routed experts' combined output before it is projected "
             "back to hidden_size (Kimi K3 latent_moe_use_norm: routed_expert_norm)"),
    INT_KEY(LLMMEM_KEY_VISION_QKV_SIZE, M, "vision_qkv_size", 0, SIZE_MAX_KEY, 0,
            "width of a vision block's query, key and value each where it differs from the tower's (Kimi K3's MoonViT "
            "qkv_hidden_size: wqkv gives 3 x it, wo takes it back); 0: the tower's width"),
    INT_KEY(LLMMEM_KEY_INDEX_TOPK_BLOCKS, M, "index_topk_blocks", 0, COUNT_MAX_KEY, 0,
            "minimax_m3_vl: key blocks the lightning indexer selects for each query (sparse_attention_config's "
            "sparse_topk_blocks: 16); vLLM keeps their int32 indices for every batched token at load; 0: not given"),

    /* hardware */
    INT_KEY(LLMMEM_KEY_MEMORY_BYTES, H, "memory_bytes", 1, 1LL << 50, 0,
            "memory of one device in bytes (0: not set)"),
    INT_KEY(LLMMEM_KEY_DEVICES_PER_NODE, H, "devices_per_node", 1, 1024, 8, "devices in one node"),
    INT_KEY(LLMMEM_KEY_NUM_NODES, H, "num_nodes", 1, 1LL << 20, 1, "nodes"),
    /* -1: the stack's own (hardware.c llmmem__runtime_overhead) */
    INT_KEY(LLMMEM_KEY_RUNTIME_OVERHEAD_BYTES, H, "runtime_overhead_bytes", -1, 1LL << 50, -1,
            "bytes outside the framework's allocator: the CUDA context, loaded kernel modules, library handles "
            "(-1: 768 MiB for a PyTorch training step or generate call, 512 MiB for serve, llama.cpp and ollama)"),
    REAL_KEY(LLMMEM_KEY_ALLOCATOR_RESERVE_FRACTION, H, "allocator_reserve_fraction", 0.0, 0.9, 0.0,
             "share of device memory kept back for allocator fragmentation"),
    INT_KEY(LLMMEM_KEY_HOST_MEMORY_BYTES, H, "host_memory_bytes", 0, 1LL << 56, 0,
            "host RAM per node in bytes (0: unknown)"),
    INT_KEY(LLMMEM_KEY_NVME_BYTES, H, "nvme_bytes", 0, 1LL << 60, 0, "NVMe capacity per node (0: unknown)"),
    INT_KEY(LLMMEM_KEY_MEMORY_BANDWIDTH, H, "memory_bandwidth", 0, 1LL << 60, 0,
            "device memory bandwidth in bytes/s (0: unknown)"),
    INT_KEY(LLMMEM_KEY_INTRA_NODE_BANDWIDTH, H, "intra_node_bandwidth", 0, 1LL << 60, 0,
            "device-to-device bandwidth in a node, one direction, bytes/s (0: unknown)"),
    INT_KEY(LLMMEM_KEY_INTER_NODE_BANDWIDTH, H, "inter_node_bandwidth", 0, 1LL << 60, 0,
            "bandwidth per device between nodes, one direction, bytes/s (0: unknown)"),
    INT_KEY(LLMMEM_KEY_PEAK_BF16_FLOPS, H, "peak_bf16_flops", 0, I64_MAX, 0,
            "dense bf16 FLOP/s of one device (0: unknown)"),
    BOOL_KEY(LLMMEM_KEY_UNIFIED_MEMORY, H, "unified_memory", 0,
             "device memory is the host's RAM (Apple Silicon): CPU and GPU buffers come out of the same memory"),
    CHOICE_KEY(LLMMEM_KEY_BACKEND, H, "backend", backend_names, 0, LLMMEM_BACKEND_CPU, LLMMEM_BACKEND_CUDA,
               "runtime driving the device: cuda, rocm, metal, vulkan, cpu"),
    INT_KEY(LLMMEM_KEY_DRIVER_TOTAL_BYTES, H, "driver_total_bytes", 0, 1LL << 50, 0,
            "the device's memory as its driver reports the total (nvidia-smi memory.total: 81559 MiB on an H100 "
            "80GB), which SGLang's default mem_fraction_static reads (0: memory_bytes)"),
    INT_KEY(LLMMEM_KEY_CUDA_TOTAL_BYTES, H, "cuda_total_bytes", 0, 1LL << 50, 0,
            "the device's total memory as CUDA reports it (torch.cuda.mem_get_info; the driver keeps the rest "
            "of memory_bytes); 0: not known"),
    /* aten/src/ATen/cuda/CublasHandlePool.cpp parseChosenWorkspaceSize: CUBLAS_WORKSPACE_CONFIG's
     * default, :4096:2:16:8 (8 MiB + 128 KiB), or :4096:8 (32 MiB) on compute capability 9.0 */
    INT_KEY(LLMMEM_KEY_CUBLAS_WORKSPACE_BYTES, H, "cublas_workspace_bytes", 0, 1LL << 40, 4096LL * 1024 * 2 + 16 * 1024 * 8,
            "the cuBLAS workspace PyTorch allocates for each thread that runs matmuls (CUBLAS_WORKSPACE_CONFIG; "
            "32 MiB on Hopper, 8.125 MiB on other GPUs)"),

    /* strategy */
    CHOICE_KEY(LLMMEM_KEY_MODE, S, "mode", mode_names, 0, LLMMEM_MODE_QLORA, LLMMEM_MODE_INFERENCE,
               "what runs: inference, training (full), lora (frozen base + adapters), qlora (NF4 base + adapters)"),
    CHOICE_KEY(LLMMEM_KEY_WEIGHT_FORMAT, S, "weight_format", format_names, 0, FORMAT_LAST,
               LLMMEM_FORMAT_AUTO, "format of the weight matrices (auto: the model's torch_dtype)"),
    CHOICE_KEY(LLMMEM_KEY_HIGH_PRECISION_FORMAT, S, "high_precision_format", format_names, 0,
               LLMMEM_FORMAT_BF16, LLMMEM_FORMAT_AUTO,
               "format of tensors a quantized checkpoint keeps unquantized: norms, biases, and "
               "embedding, LM head and router unless quantized (auto: torch_dtype, or bf16 if that is quantized)"),
    BOOL_KEY(LLMMEM_KEY_QUANTIZE_EMBEDDING, S, "quantize_embedding", 0,
             "weight_format applies to the embedding too (GPTQ, AWQ and bitsandbytes keep it unquantized)"),
    BOOL_KEY(LLMMEM_KEY_QUANTIZE_LM_HEAD, S, "quantize_lm_head", 0,
             "weight_format applies to the LM head too (GPTQ, AWQ and bitsandbytes keep it unquantized)"),
    BOOL_KEY(LLMMEM_KEY_QUANTIZE_ROUTER, S, "quantize_router", 0,
             "weight_format applies to MoE routers too"),
    INT_KEY(LLMMEM_KEY_QUANT_GROUP_SIZE, S, "quant_group_size", 0, SIZE_MAX_KEY, 0,
            "group or block size of weight_format (0: the checkpoint's, else the format's default: "
            "128 for GPTQ/AWQ, 64 for bitsandbytes 4-bit)"),
    CHOICE_KEY(LLMMEM_KEY_DOUBLE_QUANT, S, "double_quant", tristate_names, 0, 2, 0,
               "bitsandbytes 4-bit double quantization: auto (the checkpoint's; off by default, as in "
               "BitsAndBytesConfig), off, on"),
    INT_KEY(LLMMEM_KEY_MICRO_BATCH_SIZE, S, "micro_batch_size", 1, COUNT_MAX_KEY, 1, "sequences per micro-batch"),
    INT_KEY(LLMMEM_KEY_SEQUENCE_LENGTH, S, "sequence_length", 1, SIZE_MAX_KEY, 4096, "tokens per sequence"),
    CHOICE_KEY(LLMMEM_KEY_PRECISION_RECIPE, S, "precision_recipe", recipe_names, 0, LLMMEM_RECIPE_CUSTOM,
               LLMMEM_RECIPE_MEGATRON,
               "training precision convention: megatron (bf16 params, fp32 main grads, fp32 master and Adam: "
               "18 bytes/param), zero (16), deepspeed (20), pure_bf16 (8), fp32 (16), custom (each key)"),
    CHOICE_KEY(LLMMEM_KEY_GRADIENT_FORMAT, S, "gradient_format", float_auto_names, 0, 3, 0,
               "format of the gradients (auto: the precision recipe's)"),
    CHOICE_KEY(LLMMEM_KEY_MASTER_WEIGHTS_FORMAT, S, "master_weights_format", master_names, 0, 4, 0,
               "format of the optimizer's master copy of the weights (auto: the recipe's; none: no copy)"),
    CHOICE_KEY(LLMMEM_KEY_OPTIMIZER, S, "optimizer", optimizer_names, 0, LLMMEM_OPTIMIZER_MUON,
               LLMMEM_OPTIMIZER_ADAMW, "optimizer whose states are kept per trained parameter"),
    CHOICE_KEY(LLMMEM_KEY_OPTIMIZER_STATE_FORMAT, S, "optimizer_state_format", state_names, 0, 2, 0,
               "format of 32-bit optimizer states (auto: the recipe's)"),
    CHOICE_KEY(LLMMEM_KEY_FP32_GRADIENT_COPY, S, "fp32_gradient_copy", tristate_names, 0, 2, 0,
               "an fp32 copy of 16-bit gradients for the optimizer step (auto: the recipe's)"),
    BOOL_KEY(LLMMEM_KEY_ADAFACTOR_FIRST_MOMENT, S, "adafactor_first_moment", 0,
             "Adafactor keeps a first moment (beta1 set; transformers' Adafactor default: none)"),
    INT_KEY(LLMMEM_KEY_LORA_RANK, S, "lora_rank", 1, 1LL << 16, 8, "LoRA rank r (PEFT LoraConfig default: 8)"),
    FLAGS_KEY(LLMMEM_KEY_LORA_TARGETS, S, "lora_targets", lora_target_names, 8,
              LLMMEM_LORA_TARGET_Q | LLMMEM_LORA_TARGET_V,
              "modules that get LoRA adapters: q,k,v,o,gate,up,down,experts (PEFT's Llama default: q,v)"),
    CHOICE_KEY(LLMMEM_KEY_LORA_FORMAT, S, "lora_format", float_auto_names, 0, 3, 0,
               "format of adapter weights (auto: fp32 for lora, as PEFT's autocast_adapter_dtype; bf16 for qlora)"),
    INT_KEY(LLMMEM_KEY_FROZEN_LAYERS, S, "frozen_layers", 0, COUNT_MAX_KEY, 0,
            "full fine-tuning: the first n decoder layers get no gradients or optimizer states"),
    CHOICE_KEY(LLMMEM_KEY_RECOMPUTE, S, "recompute", recompute_names, 0, LLMMEM_RECOMPUTE_OFFLOAD,
               LLMMEM_RECOMPUTE_NONE, "activation recomputation: none, selective (attention core), full, offload"),
    CHOICE_KEY(LLMMEM_KEY_RECOMPUTE_METHOD, S, "recompute_method", recompute_method_names, 0, LLMMEM_RECOMPUTE_BLOCK,
               LLMMEM_RECOMPUTE_UNIFORM,
               "full recomputation: uniform (chunks keep their input) or block (the first layers recompute)"),
    INT_KEY(LLMMEM_KEY_RECOMPUTE_NUM_LAYERS, S, "recompute_num_layers", 0, COUNT_MAX_KEY, 0,
            "layers per chunk (uniform) or layers recomputed (block); 0: 1 for uniform, every layer for block"),
    BOOL_KEY(LLMMEM_KEY_FLASH_ATTENTION, S, "flash_attention", 1,
             "fused attention (FlashAttention, SDPA): no sequence x sequence tensor, an fp32 log-sum-exp per row"),
    BOOL_KEY(LLMMEM_KEY_DROPOUT, S, "dropout", 0, "attention and hidden dropout: 1-byte masks and outputs saved"),
    BOOL_KEY(LLMMEM_KEY_NORM_FP32, S, "norm_fp32", 0,
             "norms save their input in fp32; an eager RMSNorm (norm_implementation eager: transformers', "
             "torchtune's) always does"),
    CHOICE_KEY(LLMMEM_KEY_ACTIVATION_FORMAT, S, "activation_format", float_auto_names, 0, 3, 0,
               "format of saved activations (auto: the 16-bit format training computes in, fp32 for recipe fp32)"),
    CHOICE_KEY(LLMMEM_KEY_CROSS_ENTROPY, S, "cross_entropy", cross_entropy_names, 0, LLMMEM_CROSS_ENTROPY_CHUNKED,
               LLMMEM_CROSS_ENTROPY_STANDARD, "loss: standard, fused (gradient in place), chunked (Liger fused linear)"),
    INT_KEY(LLMMEM_KEY_LOSS_CHUNK_TOKENS, S, "loss_chunk_tokens", 0, I64_MAX, 0,
            "chunked cross-entropy: tokens per chunk (0: Liger's next_power_of_2(ceil(tokens / ceil(vocab / hidden))))"),
    BOOL_KEY(LLMMEM_KEY_LOGITS_FP32, S, "logits_fp32", 1,
             "logits are upcast to fp32 before the loss (Hugging Face ForCausalLMLoss: logits.float())"),
    BOOL_KEY(LLMMEM_KEY_FUSED_SWIGLU, S, "fused_swiglu", 0,
             "gated MLPs run a fused activation (Megatron-LM bias_swiglu) that keeps no output of its own"),
    CHOICE_KEY(LLMMEM_KEY_FRAMEWORK, S, "framework", framework_names, 0, LLMMEM_FRAMEWORK_VLLM, LLMMEM_FRAMEWORK_MEGATRON,
               "whose semantics the auto keys take: megatron (Megatron-LM and Korthikanti's accounting), "
               "hf_trainer (transformers Trainer, PyTorch 2.x), deepspeed, fsdp2 (torchtune), vllm (inference)"),
    CHOICE_KEY(LLMMEM_KEY_ATTN_IMPLEMENTATION, S, "attn_implementation", attn_names, 0, LLMMEM_ATTN_CORE, 0,
               "attention: auto (the framework's), eager, sdpa, flash_attention_2 (transformers' names), fused "
               "(Megatron/TE), core (Megatron unfused)"),
    CHOICE_KEY(LLMMEM_KEY_NORM_IMPLEMENTATION, S, "norm_implementation", norm_impl_names, 0, LLMMEM_NORM_IMPL_FUSED,
               0, "what a norm saves: auto (the framework's), input (its input alone), eager (transformers' "
                  "RMSNorm op by op), fused (input and fp32 row statistics)"),
    CHOICE_KEY(LLMMEM_KEY_OPTIMIZER_IMPLEMENTATION, S, "optimizer_implementation", optimizer_impl_names, 0,
               LLMMEM_OPTIMIZER_IMPL_FOR_LOOP, 0,
               "optimizer step: auto (the framework's), foreach, fused, for_loop (PyTorch's implementations)"),
    CHOICE_KEY(LLMMEM_KEY_GRADIENT_ALLOCATION, S, "gradient_allocation", gradient_allocation_names, 0,
               LLMMEM_GRADIENTS_PERSISTENT, 0,
               "gradients: auto (the framework's), lazy (set to None after each step), persistent (held)"),
    CHOICE_KEY(LLMMEM_KEY_KEEP_LOGITS, S, "keep_logits", tristate_names, 0, 2, 0,
               "the model's output logits stay referenced through backward (auto: the framework's)"),
    CHOICE_KEY(LLMMEM_KEY_PYTORCH_VERSION, S, "pytorch_version", pytorch_names, 0, LLMMEM_PYTORCH_1_13, 0,
               "PyTorch semantics: 2.x, or 1.13 (mean saves its input, foreach AdamW keeps two temporaries)"),
    CHOICE_KEY(LLMMEM_KEY_TRANSFORMERS_VERSION, S, "transformers_version", transformers_names, 0,
               LLMMEM_TRANSFORMERS_4, LLMMEM_TRANSFORMERS_5,
               "transformers semantics under its frameworks: 5.x (MoE experts resolve to grouped_mm), or 4.x "
               "(4.46 to 4.57: experts run their own forward)"),
    /* inference under transformers' generate (generation/utils.py GenerationMixin.generate) */
    CHOICE_KEY(LLMMEM_KEY_CACHE_IMPLEMENTATION, S, "cache_implementation", cache_impl_names, 0, LLMMEM_CACHE_OFFLOADED,
               LLMMEM_CACHE_AUTO,
               "generate's KV cache (transformers' names): dynamic (grown by torch.cat), static (preallocated), "
               "offloaded (two layers on the device, the rest on the host); auto: dynamic under hf_trainer, "
               "deepspeed and fsdp2; under megatron the contiguous cache alone unless max_new_tokens > 0 or this "
               "key is set; vllm serves (serving.c)"),
    INT_KEY(LLMMEM_KEY_LOGITS_TO_KEEP, S, "logits_to_keep", 0, 1LL << 30, 1,
            "positions whose logits the model computes (generate passes 1 for the prefill; 0: every position)"),
    INT_KEY(LLMMEM_KEY_MAX_NEW_TOKENS, S, "max_new_tokens", 0, 1LL << 30, 0,
            "generate: tokens appended to a prompt of sequence_length (0: the prompt's prefill alone, a cache "
            "of sequence_length tokens per sequence)"),
    INT_KEY(LLMMEM_KEY_NUM_BEAMS, S, "num_beams", 1, 1LL << 16, 1,
            "generate: beams per prompt (transformers GenerationMixin._beam_search; 1: greedy): the model and "
            "the cache see micro_batch_size x num_beams sequences, beside the beams' fp32 log-probabilities, "
            "running and finished sequences, beam indices and the cache reorder's copy of one layer; mode "
            "inference in the generate loop only"),
    BOOL_KEY(LLMMEM_KEY_EXPANDABLE_SEGMENTS, S, "expandable_segments", 0,
             "PyTorch's CUDA caching allocator with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: one segment "
             "per stream and pool, grown by mapping 2 MiB pages (20 MiB in the large pool) instead of a "
             "cudaMalloc per segment (llmmem_estimate_runs)"),
    INT_KEY(LLMMEM_KEY_MAX_SPLIT_SIZE_MB, S, "max_split_size_mb", 0, 1LL << 30, 0,
            "PYTORCH_CUDA_ALLOC_CONF max_split_size_mb: cached blocks of this many MiB and more are not split "
            "for smaller requests (0: no limit, PyTorch's default)"),
    INT_KEY(LLMMEM_KEY_ROUNDUP_POWER2_DIVISIONS, S, "roundup_power2_divisions", 0, 64, 0,
            "PYTORCH_CUDA_ALLOC_CONF roundup_power2_divisions: a request is rounded up to one of this many "
            "divisions of its power-of-2 interval (a power of 2; 0: to a multiple of 512 bytes)"),
    REAL_KEY(LLMMEM_KEY_GARBAGE_COLLECTION_THRESHOLD, S, "garbage_collection_threshold", 0.0, 1.0, 0.0,
             "PYTORCH_CUDA_ALLOC_CONF garbage_collection_threshold: past this share of the capacity the "
             "allocator frees cached blocks not used lately before a new segment (0: off)"),
    CHOICE_KEY(LLMMEM_KEY_EXPERTS_IMPLEMENTATION, S, "experts_implementation", experts_impl_names, 0,
               LLMMEM_EXPERTS_GROUPED, 0,
               "routed experts: auto (the framework's), eager (transformers' loop over experts: token gathers, "
               "index_add_), grouped (permuted tokens into grouped GEMMs, Megatron-LM)"),
    CHOICE_KEY(LLMMEM_KEY_INPUT_REQUIRES_GRAD, S, "input_requires_grad", tristate_names, 0, 2, 0,
               "lora/qlora: the frozen embedding's output requires grad (transformers' enable_input_require_grads; "
               "auto: with full recomputation, as PEFT and transformers enable it for gradient checkpointing)"),
    CHOICE_KEY(LLMMEM_KEY_DEVICE_KERNELS, S, "device_kernels", device_kernels_names, 0, LLMMEM_KERNELS_CPU,
               LLMMEM_KERNELS_CUDA,
               "whose ATen kernels run the step: cuda (dropout keeps a 1-byte mask, layer_norm fp32 mean and rstd), "
               "cpu (both in the input's dtype)"),
    CHOICE_KEY(LLMMEM_KEY_ACTIVATION_IMPLEMENTATION, S, "activation_implementation", act_impl_names, 0,
               LLMMEM_ACT_IMPL_FUSED, 0,
               "the MLP activation: auto (the framework's), eager (the model's code op by op: GPT-2's gelu_new "
               "saves each op's inputs), fused (one kernel: its input)"),
    CHOICE_KEY(LLMMEM_KEY_AUTOCAST, S, "autocast", autocast_names, 0, LLMMEM_AUTOCAST_FP16, LLMMEM_AUTOCAST_OFF,
               "mode training: torch.autocast over fp32 weights (transformers Trainer bf16=True / fp16=True on an "
               "fp32 model): linears and matmuls compute in bf16 or fp16 and save 16-bit copies of their inputs "
               "and of the weights (off: ops compute in the weights' format)"),
    /* serving: vLLM's engine arguments (vllm/engine/arg_utils.py EngineArgs) and measured terms */
    CHOICE_KEY(LLMMEM_KEY_KV_CACHE_DTYPE, S, "kv_cache_dtype", kv_cache_dtype_names, 0, LLMMEM_KV_CACHE_NVFP4_4OVER6,
               LLMMEM_KV_CACHE_AUTO,
               "KV cache storage (vLLM kv_cache_dtype): auto (the model's dtype), fp32, fp16, bf16, fp8 (e4m3), "
               "fp8_e4m3, fp8_e5m2, int8_per_token_head, fp8_per_token_head, nvfp4, fp8_ds_mla (MLA), "
               "int4_per_token_head, fp8_inc, nvfp4_4over6; SGLang and TensorRT-LLM take auto, the 16-bit ones and "
               "fp8_e4m3 (fp8)"),
    INT_KEY(LLMMEM_KEY_BLOCK_SIZE, S, "block_size", 0, 1LL << 20, 0,
            "tokens per KV cache block: vLLM --block-size, SGLang --page-size, TensorRT-LLM tokens_per_block (0: "
            "the engine's default: 16, 1, 32)"),
    REAL_KEY(LLMMEM_KEY_GPU_MEMORY_UTILIZATION, S, "gpu_memory_utilization", 0.0, 1.0, 0.0,
             "share of each device vLLM may use: weights, activations and KV cache (0: the release's default, 0.92; "
             "0.9 for engine_version vllm-0.20)"),
    INT_KEY(LLMMEM_KEY_MAX_NUM_BATCHED_TOKENS, S, "max_num_batched_tokens", 0, 1LL << 30, 0,
            "tokens per scheduler step, the size of the engine's profile run: vLLM --max-num-batched-tokens, SGLang "
            "--chunked-prefill-size, TensorRT-LLM max_num_tokens (0: the engine's default: vllm serve's 8192 on "
            "devices of 70 GiB or more other than A100s, else 2048; SGLang's by GPU memory; TensorRT-LLM's 8192)"),
    INT_KEY(LLMMEM_KEY_MAX_NUM_SEQS, S, "max_num_seqs", 0, 1LL << 24, 0,
            "sequences at once: vLLM --max-num-seqs (the logits rows of its profile run), SGLang "
            "--max-running-requests, TensorRT-LLM max_batch_size (0: the engine's default: vllm serve's 1024 on "
            "devices of 70 GiB or more other than A100s, else 256; SGLang's from its pool; TensorRT-LLM's 2048)"),
    INT_KEY(LLMMEM_KEY_MAX_MODEL_LEN, S, "max_model_len", -1, 1LL << 30, 0,
            "longest request in tokens, prompt and output: vLLM --max-model-len, SGLang --context-length, "
            "TensorRT-LLM max_seq_len (0: the model's max_position_embeddings; -1: vLLM's auto, the longest the KV "
            "cache holds)"),
    INT_KEY(LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, S, "kv_cache_memory_bytes", 0, 1LL << 50, 0,
            "KV cache bytes per rank, used instead of the budget (vLLM --kv-cache-memory; 0: the budget)"),
    INT_KEY(LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, S, "profile_weights_bytes", -1, 1LL << 50, -1,
            "measured weights per rank (vLLM log: \"Model loading took\"; -1: the inventory's)"),
    INT_KEY(LLMMEM_KEY_PROFILE_ACTIVATION_BYTES, S, "profile_activation_bytes", -1, 1LL << 50, -1,
            "measured activation peak of vLLM's profile run (log: \"peak activation\"; -1: modelled)"),
    INT_KEY(LLMMEM_KEY_PROFILE_NON_TORCH_BYTES, S, "profile_non_torch_bytes", -1, 1LL << 50, -1,
            "measured non-torch memory (log: \"non-torch memory\"; -1: the hardware's runtime_overhead_bytes)"),
    INT_KEY(LLMMEM_KEY_CUDA_GRAPH_BYTES, S, "cuda_graph_bytes", -1, 1LL << 50, -1,
            "CUDA-graph memory taken from vLLM's KV budget (log: \"Estimated CUDA graph memory\"; -1: the "
            "release's: a floor estimate from 0.21, none before; 0: none, as "
            "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0); TensorRT-LLM's PyTorch path measures graphs as non-torch "
            "memory and takes it too"),
    BOOL_KEY(LLMMEM_KEY_ENABLE_PREFIX_CACHING, S, "enable_prefix_caching", 1,
             "full KV blocks of a shared prefix are stored once (vLLM v1 default: on)"),
    INT_KEY(LLMMEM_KEY_SHARED_PREFIX_TOKENS, S, "shared_prefix_tokens", 0, 1LL << 30, 0,
            "tokens at the start of every request that are the same (a system prompt)"),
    INT_KEY(LLMMEM_KEY_PROMPT_TOKENS, S, "prompt_tokens", 0, 1LL << 30, 0,
            "prompt tokens of a request, shared by its n sequences"),
    INT_KEY(LLMMEM_KEY_N, S, "n", 1, 1LL << 16, 1,
            "sequences per request: parallel sampling (vLLM SamplingParams.n) or beam width"),
    INT_KEY(LLMMEM_KEY_REQUEST_TOKENS, S, "request_tokens", 0, 1LL << 30, 0,
            "tokens per request (prompt and output) for the concurrency question (0: max_model_len)"),
    BOOL_KEY(LLMMEM_KEY_DISABLE_HYBRID_KV_CACHE_MANAGER, S, "disable_hybrid_kv_cache_manager", 0,
             "vLLM --disable-hybrid-kv-cache-manager: sliding-window layers keep every token like full ones"),
    CHOICE_KEY(LLMMEM_KEY_SPECULATIVE_METHOD, S, "speculative_method", speculative_names, 0, 1, 0,
               "vLLM speculative_config method: none, or mtp (the checkpoint's MTP modules are loaded as the "
               "draft)"),
    INT_KEY(LLMMEM_KEY_NUM_SPECULATIVE_TOKENS, S, "num_speculative_tokens", 0, 64, 0,
            "vLLM speculative_config num_speculative_tokens: draft tokens per step (0: no speculative decoding)"),
    INT_KEY(LLMMEM_KEY_LIMIT_MM_PER_PROMPT, S, "limit_mm_per_prompt", 0, 1LL << 20, 999,
            "images a prompt may carry (vLLM --limit-mm-per-prompt image, default 999); 0: text only, no "
            "encoder cache"),
    INT_KEY(LLMMEM_KEY_MM_MAX_TOKENS_PER_ITEM, S, "mm_max_tokens_per_item", 0, SIZE_MAX_KEY, 0,
            "encoder embeddings of the largest image or video item (0: the model's largest image, as its "
            "processor sizes it)"),
    INT_KEY(LLMMEM_KEY_MAX_PIXELS, S, "max_pixels", 0, 1LL << 40, 0,
            "Qwen-VL image processor max_pixels (0: the preprocessor default, 12845056 for Qwen2.5-VL, "
            "16777216 for Qwen3-VL)"),
    INT_KEY(LLMMEM_KEY_ENCODER_CACHE_SIZE, S, "encoder_cache_size", 0, 1LL << 40, 0,
            "vLLM encoder_cache_size in embeddings (0: max_num_batched_tokens; never below one item)"),
    INT_KEY(LLMMEM_KEY_IMAGES_PER_SEQUENCE, S, "images_per_sequence", 0, 1LL << 20, 0,
            "training a vision model: images each sequence carries through the vision tower (0: text only)"),
    INT_KEY(LLMMEM_KEY_IMAGE_PIXELS, S, "image_pixels", 0, 1LL << 40, 0,
            "training a vision model: pixels of each image (0: the largest its processor makes: max_pixels "
            "for Qwen-VL, image_size squared for Pixtral)"),
    CHOICE_KEY(LLMMEM_KEY_DTYPE, S, "dtype", float_auto_names, 0, 3, 0,
               "vLLM --dtype, the format serving holds weights, activations and an auto KV cache in: auto (the "
               "model's torch_dtype, fp32 served in bf16 as on GPUs of compute capability 8.0 and later), fp32, "
               "fp16 (refused for gemma2 and gemma3_text, as vLLM does), bf16"),
    CHOICE_KEY(LLMMEM_KEY_MAMBA_CACHE_DTYPE, S, "mamba_cache_dtype", mamba_dtype_names, 0, 3, 0,
               "vLLM --mamba-cache-dtype: the conv state of Mamba-2 and Gated DeltaNet layers (auto: the "
               "model's dtype)"),
    CHOICE_KEY(LLMMEM_KEY_MAMBA_SSM_CACHE_DTYPE, S, "mamba_ssm_cache_dtype", mamba_dtype_names, 0, 3, 0,
               "vLLM --mamba-ssm-cache-dtype: their SSM or recurrent state (auto: mamba_cache_dtype's)"),
    /* local inference: llama.cpp's options (common/common.h common_params defaults, common/arg.cpp names) */
    CHOICE_KEY(LLMMEM_KEY_ENGINE, S, "engine", engine_names, 0, LLMMEM_ENGINE_TRTLLM, LLMMEM_ENGINE_AUTO,
               "whose rules serving and local inference follow: auto (vLLM for serve, llama.cpp for local), vllm, "
               "llama.cpp, ollama, sglang, trtllm"),
    INT_KEY(LLMMEM_KEY_N_CTX, S, "n_ctx", 0, LLAMA_INT_MAX, 0,
            "llama.cpp -c: KV cells over all sequences, padded to 256 (0, its default: the model's training "
            "context)"),
    INT_KEY(LLMMEM_KEY_N_BATCH, S, "n_batch", 1, LLAMA_INT_MAX, 2048, "llama.cpp -b: logical batch in tokens"),
    INT_KEY(LLMMEM_KEY_N_UBATCH, S, "n_ubatch", 1, LLAMA_INT_MAX, 512,
            "llama.cpp -ub: physical batch in tokens, the graph the compute buffer is sized for (at most n_batch)"),
    INT_KEY(LLMMEM_KEY_N_PARALLEL, S, "n_parallel", -1, LLAMA_MAX_SEQ, 1,
            "llama.cpp -np: sequences decoded at once (n_seq_max, at most 256), sharing n_ctx (-1: "
            "llama-server's auto, 4 slots with kv_unified; 0: one, as llama_context takes it)"),
    INT_KEY(LLMMEM_KEY_N_GPU_LAYERS, S, "n_gpu_layers", -1, LLAMA_INT_MAX, -1,
            "llama.cpp -ngl: layers on the GPUs, the last ones first; n_layer + 1 puts the output layer there too "
            "(-1: all)"),
    CHOICE_KEY(LLMMEM_KEY_CACHE_TYPE_K, S, "cache_type_k", ggml_cache_names, 0, LLMMEM_GGML_Q5_1, LLMMEM_GGML_F16,
               "llama.cpp -ctk: K cache type: f16, f32, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1"),
    CHOICE_KEY(LLMMEM_KEY_CACHE_TYPE_V, S, "cache_type_v", ggml_cache_names, 0, LLMMEM_GGML_Q5_1, LLMMEM_GGML_F16,
               "llama.cpp -ctv: V cache type (a quantized one needs flash attention)"),
    CHOICE_KEY(LLMMEM_KEY_FLASH_ATTN, S, "flash_attn", tristate_names, 0, 2, 0,
               "llama.cpp -fa: auto (on where the GPU backends run it), off, on"),
    BOOL_KEY(LLMMEM_KEY_SWA_FULL, S, "swa_full", 0,
             "llama.cpp --swa-full: sliding-window layers keep every cell of the context"),
    BOOL_KEY(LLMMEM_KEY_KV_UNIFIED, S, "kv_unified", 0,
             "llama.cpp --kv-unified: one KV buffer of n_ctx cells shared by every sequence (off: n_ctx / "
             "n_parallel cells per sequence)"),
    INT_KEY(LLMMEM_KEY_N_CPU_MOE, S, "n_cpu_moe", 0, LLAMA_INT_MAX, 0,
            "llama.cpp --n-cpu-moe: the expert tensors of the first n layers stay in host memory"),
    CHOICE_KEY(LLMMEM_KEY_SPLIT_MODE, S, "split_mode", split_mode_names, 0, LLMMEM_SPLIT_MODE_TENSOR,
               LLMMEM_SPLIT_MODE_LAYER,
               "llama.cpp -sm: none (one GPU, main_gpu), layer (whole layers per GPU), row (deprecated by llama.cpp: "
               "refused), tensor (weights and KV cache split across the GPUs; needs flash attention)"),
    INT_KEY(LLMMEM_KEY_MAIN_GPU, S, "main_gpu", 0, 1023, 0, "llama.cpp -mg: the GPU split_mode none uses"),
    BOOL_KEY(LLMMEM_KEY_OFFLOAD_KQV, S, "offload_kqv", 1,
             "a GPU layer's KV cache is on its GPU (llama.cpp -nkvo: every KV buffer in host memory)"),
    INT_KEY(LLMMEM_KEY_FIT_MARGIN_BYTES, S, "fit_margin_bytes", 0, 1LL << 50, 1024LL << 20,
            "bytes each GPU keeps free for a layout to fit (llama.cpp --fit-target: 1024 MiB)"),
    LIST_KEY(LLMMEM_KEY_TENSOR_SPLIT, S, "tensor_split",
             "llama.cpp -ts: share of the offloaded layers per GPU, as \"3,1\", each 0 or a float from "
             "1.17549435e-38 (llama.cpp's std::stof refuses less) to 1e15 (empty: by each GPU's free memory)"),
    /* ollama v0.30+ (llama-server underneath): server/routes.go, server/sched.go, llm/llama_server.go */
    BOOL_KEY(LLMMEM_KEY_FIT, S, "fit", 1,
             "llama.cpp --fit (default on): when the layout leaves a GPU less than fit_margin_bytes, an unset "
             "n_ctx (0) is lowered to the longest that fits (a multiple of 256, at least 4096), then an unset "
             "n_gpu_layers (-1) to the most that fit; tensor_split or n_cpu_moe keep the layers as given"),
    INT_KEY(LLMMEM_KEY_NUM_CTX, S, "num_ctx", 0, LLAMA_INT_MAX, 0,
            "ollama num_ctx or OLLAMA_CONTEXT_LENGTH: context per sequence, at most the model's (0: by the GPUs' "
            "total memory less gpu_overhead_bytes each: 262144 from 47 GiB, 32768 from 23 GiB, else 4096)"),
    INT_KEY(LLMMEM_KEY_NUM_PARALLEL, S, "num_parallel", 1, LLAMA_MAX_SEQ, 1,
            "ollama OLLAMA_NUM_PARALLEL: sequences at once, each with num_ctx cells (llama-server -c num_ctx x "
            "num_parallel -np num_parallel: at most 256, and num_ctx x num_parallel at most 2147483647); 1 for "
            "mllama, qwen3_vl, qwen3_next and nemotron_h"),
    INT_KEY(LLMMEM_KEY_NUM_GPU, S, "num_gpu", -1, LLAMA_INT_MAX, -1,
            "ollama num_gpu: llama-server -ngl (-1: no -ngl, llama-server --fit offloads the most layers that "
            "leave fit_margin_bytes free)"),
    INT_KEY(LLMMEM_KEY_GPU_OVERHEAD_BYTES, S, "gpu_overhead_bytes", 0, 1LL << 50, 0,
            "ollama OLLAMA_GPU_OVERHEAD: bytes per GPU taken off the memory that picks the default num_ctx (the "
            "only use llama-server-era ollama makes of it)"),
    INT_KEY(LLMMEM_KEY_NUM_BATCH, S, "num_batch", 0, LLAMA_INT_MAX, 0,
            "ollama num_batch: llama-server -b and -ub alike (0: ollama's choice: 512, 1024 over 4096 tokens, "
            "2048 over 32768 while its VRAM prediction leaves room; 512 with flash attention off)"),
    BOOL_KEY(LLMMEM_KEY_SCHED_SPREAD, S, "sched_spread", 0,
             "ollama OLLAMA_SCHED_SPREAD: llama-server gets every GPU (off: one GPU alone when ollama predicts "
             "the model within 80% of its free memory)"),
    /* serving engines beside vLLM: SGLang server_args.py ServerArgs, TensorRT-LLM llmapi KvCacheConfig */
    CHOICE_KEY(LLMMEM_KEY_ENGINE_VERSION, S, "engine_version", engine_version_names, 0,
               LLMMEM_ENGINE_VERSION_SGLANG_0_4, LLMMEM_ENGINE_VERSION_LATEST,
               "the engine release whose start-up rules apply: latest (each engine's newest modelled), vllm-0.20 "
               "(utilization 0.9, CUDA graphs outside the budget), vllm-0.21 (0.92, graph estimate subtracted, "
               "\"GPU KV cache size\" as blocks x block_size), sglang-0.4 (max_running_requests logged with its "
               "padding slot); a release of another engine than the one estimated is refused"),
    REAL_KEY(LLMMEM_KEY_MEM_FRACTION_STATIC, S, "mem_fraction_static", 0.0, 1.0, 0.0,
             "SGLang --mem-fraction-static: share of the memory free before the weights load kept for weights "
             "and KV pool (0: SGLang's default from the GPU's memory, chunked prefill, CUDA-graph batch and "
             "parallel sizes)"),
    INT_KEY(LLMMEM_KEY_MAX_TOTAL_TOKENS, S, "max_total_tokens", 0, 1LL << 40, 0,
            "cap on the KV pool's tokens: SGLang --max-total-tokens, TensorRT-LLM KvCacheConfig.max_tokens (0: "
            "none)"),
    INT_KEY(LLMMEM_KEY_PRE_MODEL_LOAD_BYTES, S, "pre_model_load_bytes", -1, 1LL << 50, -1,
            "measured free memory before the weights load (SGLang log: \"Load weight begin. avail mem\"; -1: "
            "memory_bytes less runtime_overhead_bytes)"),
    REAL_KEY(LLMMEM_KEY_SWA_FULL_TOKENS_RATIO, S, "swa_full_tokens_ratio", 0.0, 1.0, 0.8,
             "SGLang --swa-full-tokens-ratio: cells of a sliding-window layer per cell of a full one (0.8)"),
    REAL_KEY(LLMMEM_KEY_MAMBA_FULL_MEMORY_RATIO, S, "mamba_full_memory_ratio", 0.0, 16.0, 0.9,
             "SGLang --mamba-full-memory-ratio: bytes of the Mamba state pool per byte of the KV pool (0.9)"),
    INT_KEY(LLMMEM_KEY_MAX_MAMBA_CACHE_SIZE, S, "max_mamba_cache_size", 0, 1LL << 30, 0,
            "SGLang --max-mamba-cache-size: sequences the Mamba state pool holds (0: from "
            "mamba_full_memory_ratio)"),
    CHOICE_KEY(LLMMEM_KEY_MAMBA_RADIX_CACHE_STRATEGY, S, "mamba_radix_cache_strategy", mamba_strategy_names, 0, 3, 0,
               "SGLang --mamba-radix-cache-strategy: state slots a request holds beside the radix cache: auto (the "
               "release's choice: extra_buffer for the models that support it, else no_buffer), no_buffer (3; needs "
               "block_size 1 and --disable-overlap-schedule), extra_buffer (5 with overlap scheduling), "
               "extra_buffer_lazy (4); 1 with enable_prefix_caching off"),
    INT_KEY(LLMMEM_KEY_CUDA_GRAPH_MAX_BS, S, "cuda_graph_max_bs", 0, 1LL << 20, 0,
            "SGLang --cuda-graph-max-bs (0: SGLang's default by GPU memory and tensor_parallel)"),
    REAL_KEY(LLMMEM_KEY_FREE_GPU_MEMORY_FRACTION, S, "free_gpu_memory_fraction", 0.0, 1.0, 0.9,
             "TensorRT-LLM KvCacheConfig.free_gpu_memory_fraction: share of the free memory its KV cache takes "
             "(0.9; applied as a C++ float)"),
    CHOICE_KEY(LLMMEM_KEY_TRTLLM_BACKEND, S, "trtllm_backend", trtllm_backend_names, 0, LLMMEM_TRTLLM_ENGINE,
               LLMMEM_TRTLLM_PYTORCH,
               "TensorRT-LLM's executor: pytorch (trtllm-serve and the LLM API since 1.0: the fraction of what its "
               "profile of max_num_batched_tokens tokens leaves) or engine (a trtllm-build engine: the fraction "
               "of what is free once it is loaded)"),
    INT_KEY(LLMMEM_KEY_KV_FREE_BYTES, S, "kv_free_bytes", -1, 1LL << 50, -1,
            "measured free memory when TensorRT-LLM sizes its KV cache (log: \"Memory usage when calculating max "
            "tokens in paged kv cache: ... available\"; -1: modelled)"),
    BOOL_KEY(LLMMEM_KEY_ENFORCE_EAGER, S, "enforce_eager", 0,
             "vLLM --enforce-eager: no CUDA graphs are captured, none estimated"),
    INT_KEY(LLMMEM_KEY_TENSOR_PARALLEL, S, "tensor_parallel", 1, PARALLEL_MAX_KEY, 1, "tensor-parallel size"),
    INT_KEY(LLMMEM_KEY_PIPELINE_PARALLEL, S, "pipeline_parallel", 1, LLMMEM_MAX_STAGES, 1,
            "pipeline stages (a report holds at most 256)"),
    INT_KEY(LLMMEM_KEY_DATA_PARALLEL, S, "data_parallel", 1, COUNT_MAX_KEY, 1,
            "data-parallel size (world = tensor x pipeline x data x context)"),
    INT_KEY(LLMMEM_KEY_CONTEXT_PARALLEL, S, "context_parallel", 1, PARALLEL_MAX_KEY, 1,
            "context-parallel size: each rank holds sequence_length / c tokens"),
    INT_KEY(LLMMEM_KEY_EXPERT_PARALLEL, S, "expert_parallel", 1, PARALLEL_MAX_KEY, 1,
            "expert-parallel size: routed experts split over e ranks of the data x context group"),
    INT_KEY(LLMMEM_KEY_EXPERT_TENSOR_PARALLEL, S, "expert_tensor_parallel", 0, PARALLEL_MAX_KEY, 0,
            "tensor-parallel size inside each expert (0: tensor_parallel)"),
    INT_KEY(LLMMEM_KEY_VIRTUAL_PIPELINE, S, "virtual_pipeline", 1, PARALLEL_MAX_KEY, 1,
            "model chunks per pipeline stage (interleaved schedule)"),
    BOOL_KEY(LLMMEM_KEY_SEQUENCE_PARALLEL, S, "sequence_parallel", 0,
             "Megatron sequence parallelism: norms and dropouts split along the sequence over the t ranks"),
    INT_KEY(LLMMEM_KEY_NUM_MICRO_BATCHES, S, "num_micro_batches", 0, I64_MAX, 0,
            "micro-batches per step and pipeline (0: as many as the schedule keeps in flight)"),
    CHOICE_KEY(LLMMEM_KEY_PIPELINE_SCHEDULE, S, "pipeline_schedule", schedule_names, 0, LLMMEM_SCHEDULE_GPIPE,
               LLMMEM_SCHEDULE_1F1B, "pipeline schedule: 1f1b, interleaved (virtual_pipeline chunks), gpipe"),
    INT_KEY(LLMMEM_KEY_PIPELINE_FIRST_STAGE_LAYERS, S, "pipeline_first_stage_layers", 0, COUNT_MAX_KEY, 0,
            "decoder layers on the first stage (0: an even split)"),
    INT_KEY(LLMMEM_KEY_PIPELINE_LAST_STAGE_LAYERS, S, "pipeline_last_stage_layers", 0, COUNT_MAX_KEY, 0,
            "decoder layers on the last stage (0: an even split)"),
    INT_KEY(LLMMEM_KEY_ZERO_STAGE, S, "zero_stage", 0, 3, 0,
            "DeepSpeed ZeRO: 1 shards optimizer states, 2 also gradients, 3 also parameters"),
    CHOICE_KEY(LLMMEM_KEY_FSDP, S, "fsdp", fsdp_names, 0, LLMMEM_FSDP_NO_SHARD, LLMMEM_FSDP_NONE,
               "PyTorch FSDP sharding strategy: none, full_shard, shard_grad_op, hybrid_shard, no_shard"),
    BOOL_KEY(LLMMEM_KEY_DISTRIBUTED_OPTIMIZER, S, "distributed_optimizer", 0,
             "Megatron's distributed optimizer: master weights and optimizer states sharded over data parallel"),
    INT_KEY(LLMMEM_KEY_REDUCE_BUCKET_SIZE, S, "reduce_bucket_size", 0, I64_MAX, 500000000,
            "DeepSpeed reduce_bucket_size in elements (default 5e8)"),
    INT_KEY(LLMMEM_KEY_ALLGATHER_BUCKET_SIZE, S, "allgather_bucket_size", 0, I64_MAX, 500000000,
            "DeepSpeed allgather_bucket_size in elements (default 5e8)"),
    BOOL_KEY(LLMMEM_KEY_OVERLAP_COMM, S, "overlap_comm", 0, "DeepSpeed overlap_comm: two reduce buckets in flight"),
    INT_KEY(LLMMEM_KEY_STAGE3_PREFETCH_BUCKET_SIZE, S, "stage3_prefetch_bucket_size", 0, I64_MAX, 50000000,
            "DeepSpeed ZeRO-3 parameters prefetched ahead, elements (default 5e7)"),
    INT_KEY(LLMMEM_KEY_STAGE3_MAX_LIVE_PARAMETERS, S, "stage3_max_live_parameters", 1, I64_MAX, 1000000000,
            "DeepSpeed ZeRO-3 limit of gathered parameters on a rank (default 1e9)"),
    BOOL_KEY(LLMMEM_KEY_FSDP_LIMIT_ALL_GATHERS, S, "fsdp_limit_all_gathers", 1,
             "FSDP limit_all_gathers: at most two units gathered at once (else every prefetch may be)"),
    CHOICE_KEY(LLMMEM_KEY_OFFLOAD_OPTIMIZER, S, "offload_optimizer", offload_names, 0, LLMMEM_OFFLOAD_NVME,
               LLMMEM_OFFLOAD_NONE, "optimizer states, master weights and fp32 gradients to cpu or nvme (ZeRO-Offload)"),
    CHOICE_KEY(LLMMEM_KEY_OFFLOAD_PARAM, S, "offload_param", offload_names, 0, LLMMEM_OFFLOAD_NVME,
               LLMMEM_OFFLOAD_NONE, "ZeRO-3 parameters to cpu or nvme (ZeRO-Infinity)"),
    BOOL_KEY(LLMMEM_KEY_DDP_GRADIENT_COPY, S, "ddp_gradient_copy", 0,
             "plain data parallelism keeps a second copy of the gradients in its buckets (PyTorch DDP without "
             "gradient_as_bucket_view; Megatron's contiguous buffer: none)"),
    INT_KEY(LLMMEM_KEY_GLOBAL_BATCH_SIZE, S, "global_batch_size", 0, I64_MAX, 0,
            "sequences per step, for the planner (0: micro_batch_size per device)"),
    INT_KEY(LLMMEM_KEY_PLAN_MAX_TENSOR_PARALLEL, S, "plan_max_tensor_parallel", 0, PARALLEL_MAX_KEY, 0,
            "planner: largest tensor_parallel tried (0: devices_per_node)"),
    INT_KEY(LLMMEM_KEY_PLAN_MAX_PIPELINE_PARALLEL, S, "plan_max_pipeline_parallel", 0, PARALLEL_MAX_KEY, 0,
            "planner: largest pipeline_parallel tried (0: num_hidden_layers)"),
    INT_KEY(LLMMEM_KEY_PLAN_MAX_CONTEXT_PARALLEL, S, "plan_max_context_parallel", 1, PARALLEL_MAX_KEY, 1,
            "planner: largest context_parallel tried"),
    INT_KEY(LLMMEM_KEY_PLAN_MAX_VIRTUAL_PIPELINE, S, "plan_max_virtual_pipeline", 1, 64, 2,
            "planner: largest virtual_pipeline tried (interleaved schedule)"),
    INT_KEY(LLMMEM_KEY_PLAN_MAX_MICRO_BATCH_SIZE, S, "plan_max_micro_batch_size", 1, COUNT_MAX_KEY, 8,
            "planner: largest micro_batch_size tried (powers of two)"),
    FLAGS_KEY(LLMMEM_KEY_PLAN_SHARDINGS, S, "plan_shardings", plan_sharding_names, 6, 63,
              "planner: data-parallel shardings tried (none, zero1, zero2, zero3, fsdp, distributed_optimizer)"),
    FLAGS_KEY(LLMMEM_KEY_PLAN_RECOMPUTE, S, "plan_recompute", plan_recompute_names, 3, 7,
              "planner: recomputation modes tried (none, selective, full)"),
    CHOICE_KEY(LLMMEM_KEY_HOST_INIT, S, "host_init", host_init_names, 0, LLMMEM_HOST_INIT_FULL, LLMMEM_HOST_INIT_NONE,
               "host memory at start-up: none, zero_init (the largest module in fp32 per process), full (the model)"),
    REAL_KEY(LLMMEM_KEY_HOST_BUFFER_FACTOR, S, "host_buffer_factor", 1.0, 16.0, 1.0,
             "host bytes per node are multiplied by it (DeepSpeed's estimators use 1.5)"),
};

#undef M
#undef H
#undef S

#define KEY_TOTAL (sizeof key_table / sizeof key_table[0])

const llmmem__key_info *llmmem__key_info_get(llmmem_key key)
{
    for (size_t i = 0; i < KEY_TOTAL; i++)
        if (key_table[i].key == key)
            return &key_table[i];
    return NULL;
}

size_t llmmem_key_count(void)
{
    return KEY_TOTAL;
}

llmmem_key llmmem_key_at(size_t index)
{
    return index < KEY_TOTAL ? key_table[index].key : LLMMEM_KEY_NONE;
}

const char *llmmem_key_name(llmmem_key key)
{
    const llmmem__key_info *k = llmmem__key_info_get(key);
    return k ? k->name : NULL;
}

const char *llmmem_key_doc(llmmem_key key)
{
    const llmmem__key_info *k = llmmem__key_info_get(key);
    return k ? k->doc : NULL;
}

static llmmem_status unknown_key(llmmem_key key)
{
    return llmmem__fail(LLMMEM_ERR_UNKNOWN_KEY, "unknown key %d", (int)key);
}

static const char *object_name(llmmem_object object)
{
    switch (object) {
    case LLMMEM_OBJECT_MODEL: return "model";
    case LLMMEM_OBJECT_HARDWARE: return "hardware";
    case LLMMEM_OBJECT_STRATEGY: return "strategy";
    }
    return "unknown object";
}

llmmem_status llmmem_key_from_name(llmmem_key *key_out, const char *name)
{
    LLMMEM_REQUIRE(key_out);
    LLMMEM_REQUIRE(name);
    for (size_t i = 0; i < KEY_TOTAL; i++) {
        if (strcmp(key_table[i].name, name) == 0) {
            *key_out = key_table[i].key;
            return LLMMEM_OK;
        }
    }
    return llmmem__fail(LLMMEM_ERR_UNKNOWN_KEY, "unknown key '%.64s' (llmmem keys lists them)", name);
}

llmmem_status llmmem_key_object(llmmem_object *object_out, llmmem_key key)
{
    LLMMEM_REQUIRE(object_out);
    const llmmem__key_info *k = llmmem__key_info_get(key);
    if (!k)
        return unknown_key(key);
    *object_out = k->object;
    return LLMMEM_OK;
}

llmmem_status llmmem_key_type(llmmem_value_type *type_out, llmmem_key key)
{
    LLMMEM_REQUIRE(type_out);
    const llmmem__key_info *k = llmmem__key_info_get(key);
    if (!k)
        return unknown_key(key);
    *type_out = k->type;
    return LLMMEM_OK;
}

static llmmem_status find_typed(const llmmem__key_info **out, llmmem_key key, int want_real)
{
    *out = NULL; /* set on every path: gcc -O3 cannot see that a failure is never LLMMEM_OK */
    const llmmem__key_info *k = llmmem__key_info_get(key);
    if (!k)
        return unknown_key(key);
    if ((k->type == LLMMEM_TYPE_REAL) != want_real)
        return llmmem__fail(LLMMEM_ERR_UNKNOWN_KEY, "key %s is %s, not %s", k->name,
                            k->type == LLMMEM_TYPE_REAL ? "a real (fraction)" : "an integer",
                            want_real ? "a real (fraction)" : "an integer");
    *out = k;
    return LLMMEM_OK;
}

llmmem_status llmmem_key_bounds(int64_t *min_out, int64_t *max_out, llmmem_key key)
{
    LLMMEM_REQUIRE(min_out);
    LLMMEM_REQUIRE(max_out);
    const llmmem__key_info *k;
    llmmem_status st = find_typed(&k, key, 0);
    if (st)
        return st;
    *min_out = k->min;
    *max_out = k->max;
    return LLMMEM_OK;
}

llmmem_status llmmem_key_bounds_real(double *min_out, double *max_out, llmmem_key key)
{
    LLMMEM_REQUIRE(min_out);
    LLMMEM_REQUIRE(max_out);
    const llmmem__key_info *k;
    llmmem_status st = find_typed(&k, key, 1);
    if (st)
        return st;
    *min_out = k->rmin;
    *max_out = k->rmax;
    return LLMMEM_OK;
}

llmmem_status llmmem_key_default(int64_t *value_out, llmmem_key key)
{
    LLMMEM_REQUIRE(value_out);
    const llmmem__key_info *k;
    llmmem_status st = find_typed(&k, key, 0);
    if (st)
        return st;
    *value_out = k->def;
    return LLMMEM_OK;
}

llmmem_status llmmem_key_default_real(double *value_out, llmmem_key key)
{
    LLMMEM_REQUIRE(value_out);
    const llmmem__key_info *k;
    llmmem_status st = find_typed(&k, key, 1);
    if (st)
        return st;
    *value_out = k->rdef;
    return LLMMEM_OK;
}

/* Other spellings users meet in config files: Hugging Face's torch_dtype strings. */
static const struct {
    const char *alias;
    llmmem_format format;
} format_aliases[] = {
    {"float32", LLMMEM_FORMAT_FP32},  {"float", LLMMEM_FORMAT_FP32},
    {"float16", LLMMEM_FORMAT_FP16},  {"half", LLMMEM_FORMAT_FP16},
    {"bfloat16", LLMMEM_FORMAT_BF16}, {"nf4", LLMMEM_FORMAT_BNB_NF4},
};

const char *llmmem_choice_name(llmmem_key key, int64_t value)
{
    const llmmem__key_info *k = llmmem__key_info_get(key);
    if (!k || value < k->min || value > k->max)
        return NULL;
    if (k->type == LLMMEM_TYPE_BOOL)
        return value ? "true" : "false";
    if (k->type == LLMMEM_TYPE_FLAGS) {
        for (unsigned bit = 0; k->choices[bit]; bit++)
            if (value == (int64_t)1 << bit)
                return k->choices[bit];
        return NULL;
    }
    if (k->type != LLMMEM_TYPE_CHOICE)
        return NULL;
    return k->choices[value];
}

/* llmmem__NAME_name for each choice key whose values messages print (internal.h). */
#define CHOICE_NAMES(X)                                                                                              \
    X(engine, ENGINE)                                                                                                \
    X(engine_version, ENGINE_VERSION)                                                                                \
    X(format, WEIGHT_FORMAT)                                                                                         \
    X(mode, MODE)                                                                                                    \
    X(ggml_cache_type, CACHE_TYPE_K)                                                                                 \
    X(kv_dtype, KV_CACHE_DTYPE)                                                                                      \
    X(framework, FRAMEWORK)                                                                                          \
    X(attn_implementation, ATTN_IMPLEMENTATION)                                                                      \
    X(norm_implementation, NORM_IMPLEMENTATION)                                                                      \
    X(experts_implementation, EXPERTS_IMPLEMENTATION)                                                                \
    X(cache_implementation, CACHE_IMPLEMENTATION)                                                                    \
    X(recompute, RECOMPUTE)                                                                                          \
    X(optimizer, OPTIMIZER)
#define NAME_OF(name, KEY)                                                                                           \
    const char *llmmem__##name##_name(int64_t value)                                                                 \
    {                                                                                                                \
        const char *n = llmmem_choice_name(LLMMEM_KEY_##KEY, value);                                                 \
        return n ? n : "?";                                                                                          \
    }
CHOICE_NAMES(NAME_OF)
#undef NAME_OF
#undef CHOICE_NAMES

/* ASCII case-insensitive equality, the same in every locale (strcasecmp follows LC_CTYPE). */
static int equal_ignoring_case(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b - 'A' + 'a') : *b;
        if (x != y)
            return 0;
    }
    return *a == *b;
}

/* The spellings of a boolean in configs and on command lines: C's 1/0, JSON's and YAML's
 * true/false, Python's True/False (str(True)), yes/no and on/off, in any case. */
#define BOOL_SPELLINGS "true/false, 1/0, yes/no or on/off, in any case"

static int parse_bool(int64_t *out, const char *s)
{
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"0", "false", "no", "off"};
    for (size_t i = 0; i < 4; i++) {
        if (equal_ignoring_case(s, yes[i])) {
            *out = 1;
            return 1;
        }
        if (equal_ignoring_case(s, no[i])) {
            *out = 0;
            return 1;
        }
    }
    return 0;
}

/* Writes "a, b, c" of the key's choices into buf. */
static void list_choices(char *buf, size_t size, const llmmem__key_info *k)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int64_t v = k->min; v <= k->max; v++) {
        const char *name = k->choices[v];
        if (!name) /* a value no choice holds yet */
            continue;
        size_t n = strlen(name);
        if (used + n + 3 >= size)
            break;
        if (used) {
            memcpy(buf + used, ", ", 2);
            used += 2;
        }
        memcpy(buf + used, name, n + 1);
        used += n;
    }
}

/* "q,k,v" (or "" / "none" for no bit) into a bit set. */
static llmmem_status parse_flags(int64_t *value_out, const llmmem__key_info *k, const char *text)
{
    int64_t bits = 0;
    const char *p = text;
    int none_is_a_name = 0; /* plan_shardings has a sharding called "none": then it is that bit */
    for (unsigned i = 0; k->choices[i]; i++)
        none_is_a_name |= strcmp(k->choices[i], "none") == 0;
    if ((!none_is_a_name && strcmp(text, "none") == 0) || *text == '\0') {
        *value_out = 0;
        return LLMMEM_OK;
    }
    for (;;) {
        size_t len = strcspn(p, ",");
        unsigned bit;
        for (bit = 0; k->choices[bit]; bit++)
            if (strlen(k->choices[bit]) == len && strncmp(k->choices[bit], p, len) == 0)
                break;
        if (!k->choices[bit]) {
            char names[200];
            size_t used = 0;
            names[0] = '\0';
            for (unsigned i = 0; k->choices[i] && used + strlen(k->choices[i]) + 3 < sizeof names; i++)
                used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", k->choices[i]);
            return llmmem__fail(LLMMEM_ERR_NOT_FOUND, "%s: unknown name '%.*s' in '%.64s' (names: %s)", k->name,
                                (int)(len > 64 ? 64 : len), p, text, names);
        }
        bits |= (int64_t)1 << bit;
        if (!p[len])
            break;
        p += len + 1;
    }
    *value_out = bits;
    return LLMMEM_OK;
}

llmmem_status llmmem_choice_from_name(int64_t *value_out, llmmem_key key, const char *name)
{
    LLMMEM_REQUIRE(value_out);
    LLMMEM_REQUIRE(name);
    const llmmem__key_info *k = llmmem__key_info_get(key);
    if (!k)
        return unknown_key(key);
    if (k->type == LLMMEM_TYPE_BOOL) {
        if (parse_bool(value_out, name))
            return LLMMEM_OK;
        return llmmem__fail(LLMMEM_ERR_NOT_FOUND, "%s: '%.64s' is not a boolean (" BOOL_SPELLINGS ")",
                            k->name, name);
    }
    if (k->type == LLMMEM_TYPE_FLAGS)
        return parse_flags(value_out, k, name);
    if (k->type != LLMMEM_TYPE_CHOICE)
        return llmmem__fail(LLMMEM_ERR_UNKNOWN_KEY, "key %s has no named choices", k->name);
    for (int64_t v = k->min; v <= k->max; v++) {
        if (k->choices[v] && strcmp(k->choices[v], name) == 0) {
            *value_out = v;
            return LLMMEM_OK;
        }
    }
    if (k->choices == format_names) {
        for (size_t i = 0; i < sizeof format_aliases / sizeof format_aliases[0]; i++) {
            if (strcmp(format_aliases[i].alias, name) == 0 && format_aliases[i].format >= k->min &&
                format_aliases[i].format <= k->max) {
                *value_out = format_aliases[i].format;
                return LLMMEM_OK;
            }
        }
    }
    char choices[400];
    list_choices(choices, sizeof choices, k);
    return llmmem__fail(LLMMEM_ERR_NOT_FOUND, "%s: unknown choice '%.64s' (choices: %s)", k->name,
                        name, choices);
}

/* ---- settings ----------------------------------------------------------- */

static _Atomic uint64_t next_settings_id = 1;

uint64_t llmmem__settings_next_id(void)
{
    return atomic_fetch_add(&next_settings_id, 1);
}

void llmmem__settings_init(llmmem__settings *s, llmmem_object object)
{
    memset(s, 0, sizeof *s);
    s->id = llmmem__settings_next_id();
    for (size_t i = 0; i < KEY_TOTAL; i++) {
        if (key_table[i].object != object)
            continue;
        unsigned slot = llmmem__slot(key_table[i].key);
        s->ival[slot] = key_table[i].def;
        s->rval[slot] = key_table[i].rdef;
    }
}

int64_t llmmem__get_int(const llmmem__settings *s, llmmem_key key)
{
    return s->ival[llmmem__slot(key)];
}

double llmmem__get_real(const llmmem__settings *s, llmmem_key key)
{
    return s->rval[llmmem__slot(key)];
}

static llmmem_status check_key(const llmmem__key_info **info_out, llmmem_object object, llmmem_key key,
                               int want_real)
{
    const llmmem__key_info *k = llmmem__key_info_get(key);
    if (!k)
        return unknown_key(key);
    if (k->object != object)
        return llmmem__fail(LLMMEM_ERR_UNKNOWN_KEY, "key %s belongs to the %s, not the %s", k->name,
                            object_name(k->object), object_name(object));
    llmmem_status st = find_typed(&k, key, want_real);
    if (st)
        return st;
    *info_out = k;
    return LLMMEM_OK;
}

llmmem_status llmmem__settings_get_int(int64_t *value_out, const llmmem__settings *s, llmmem_object object,
                                       llmmem_key key)
{
    const llmmem__key_info *k;
    llmmem_status st = check_key(&k, object, key, 0);
    if (st)
        return st;
    *value_out = llmmem__get_int(s, key);
    return LLMMEM_OK;
}

llmmem_status llmmem__settings_get_real(double *value_out, const llmmem__settings *s, llmmem_object object,
                                        llmmem_key key)
{
    const llmmem__key_info *k;
    llmmem_status st = check_key(&k, object, key, 1);
    if (st)
        return st;
    *value_out = llmmem__get_real(s, key);
    return LLMMEM_OK;
}

llmmem_status llmmem__settings_set_int(llmmem__settings *s, llmmem_object object, llmmem_key key,
                                       int64_t value)
{
    const llmmem__key_info *k;
    llmmem_status st = check_key(&k, object, key, 0);
    if (st)
        return st;
    if (value < k->min || value > k->max || (k->type == LLMMEM_TYPE_CHOICE && !k->choices[value])) {
        if (k->type == LLMMEM_TYPE_CHOICE)
            return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "%s (%lld) is not a valid choice [%lld, %lld]",
                                k->name, (long long)value, (long long)k->min, (long long)k->max);
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "%s (%lld) is out of range [%lld, %lld]", k->name,
                            (long long)value, (long long)k->min, (long long)k->max);
    }
    if (k->type == LLMMEM_TYPE_LIST) /* its integer is the count of its values, set with them */
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "%s is a list: set it from text such as \"3,1\" "
                            "(llmmem_strategy_set_text) or with llmmem_strategy_set_list", k->name);
    unsigned slot = llmmem__slot(key);
    s->ival[slot] = value;
    s->is_set[slot / 64] |= 1ULL << (slot % 64);
    s->id = llmmem__settings_next_id();
    return LLMMEM_OK;
}

llmmem_status llmmem__settings_set_real(llmmem__settings *s, llmmem_object object, llmmem_key key,
                                        double value)
{
    const llmmem__key_info *k;
    llmmem_status st = check_key(&k, object, key, 1);
    if (st)
        return st;
    if (isnan(value) || isinf(value))
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "%s (%g) is not a finite number", k->name, value);
    if (value < k->rmin || value > k->rmax)
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "%s (%g) is out of range [%g, %g]", k->name, value,
                            k->rmin, k->rmax);
    unsigned slot = llmmem__slot(key);
    s->rval[slot] = value;
    s->is_set[slot / 64] |= 1ULL << (slot % 64);
    s->id = llmmem__settings_next_id();
    return LLMMEM_OK;
}

/* "nan", "inf" or "infinity" in any case and sign: numbers, but not finite ones (as set_real says). */
static int names_non_finite(const char *text)
{
    if (*text == '+' || *text == '-')
        text++;
    return equal_ignoring_case(text, "nan") || equal_ignoring_case(text, "inf") ||
           equal_ignoring_case(text, "infinity");
}

/* The message for a text that is not a number of the key's kind. */
static llmmem_status number_failure(const llmmem__key_info *k, const char *text, llmmem__number_result r,
                                    const char *expected)
{
    if (r == LLMMEM__NUMBER_TOO_LONG)
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "%s: '%.32s...' is too long for a number (at most %d "
                            "characters)", k->name, text, LLMMEM_NUMBER_MAX_LEN);
    if (r == LLMMEM__NUMBER_NOT_WHOLE)
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "%s: '%.64s' is not a whole number", k->name, text);
    return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "%s: '%.64s' is not %s", k->name, text, expected);
}

llmmem_status llmmem__settings_set_text(llmmem__settings *s, llmmem_object object,
                                        const char *key_name, const char *text, llmmem_key *key_out)
{
    if (!key_name || !text)
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "argument 'key_name' or 'value' is NULL");
    llmmem_key key;
    llmmem_status st = llmmem_key_from_name(&key, key_name);
    if (st)
        return st;
    const llmmem__key_info *k = llmmem__key_info_get(key);
    if (k->object != object)
        return llmmem__fail(LLMMEM_ERR_UNKNOWN_KEY, "key %s belongs to the %s, not the %s", k->name,
                            object_name(k->object), object_name(object));
    if (key_out)
        *key_out = key;
    if (k->type == LLMMEM_TYPE_REAL) {
        double v;
        llmmem__number_result r = llmmem__parse_real(&v, text);
        if (r == LLMMEM__NUMBER_OUT_OF_RANGE)
            return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "%s (%.64s) is out of range [%g, %g]", k->name, text,
                                k->rmin, k->rmax);
        if (r == LLMMEM__NUMBER_MALFORMED && names_non_finite(text))
            return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "%s (%.64s) is not a finite number", k->name, text);
        if (r != LLMMEM__NUMBER_OK)
            return number_failure(k, text, r, "a number (digits with '.' as the decimal point and an "
                                              "optional exponent, such as 0.9 or 5e-1)");
        return llmmem__settings_set_real(s, object, key, v);
    }
    int64_t v;
    if (k->type == LLMMEM_TYPE_CHOICE || k->type == LLMMEM_TYPE_BOOL || k->type == LLMMEM_TYPE_FLAGS) {
        if (llmmem_choice_from_name(&v, key, text) == LLMMEM_OK)
            return llmmem__settings_set_int(s, object, key, v);
        if (llmmem__parse_int(&v, text) != LLMMEM__NUMBER_OK)
            return llmmem_choice_from_name(&v, key, text); /* sets the message listing the choices */
        return llmmem__settings_set_int(s, object, key, v);
    }
    llmmem__number_result r = llmmem__parse_int(&v, text);
    if (r == LLMMEM__NUMBER_OUT_OF_RANGE)
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "%s (%.64s) is out of range [%lld, %lld]", k->name, text,
                            (long long)k->min, (long long)k->max);
    if (r != LLMMEM__NUMBER_OK)
        return number_failure(k, text, r, "a whole number (" LLMMEM_NUMBER_GRAMMAR ")");
    return llmmem__settings_set_int(s, object, key, v);
}
