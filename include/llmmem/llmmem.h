/**
 * @file llmmem.h
 * libllmmem — exact memory estimates for large language models.
 *
 * This is the only header a user includes. In the order it declares them:
 *   - version queries; status codes (pinned values) and the thread-local last-error text;
 *   - the key space: every setting of a model, a hardware description and a strategy is one
 *     `llmmem_key`, numbered by object (model 1000+, hardware 2000+, strategy 3000+, serving
 *     3100+), with a name, bounds, a default and, for choice keys, named values;
 *   - the inputs, four opaque handles: llmmem_model (a preset, a config.json, or keys),
 *     llmmem_hardware (a GPU preset or keys), llmmem_strategy (how the job runs) and
 *     llmmem_checkpoint (a safetensors or GGUF file's header: the stored bytes);
 *   - one entry point per engine, each filling an output handle:
 *       PyTorch (training, LoRA, transformers' generate): llmmem_estimate -> llmmem_report,
 *         llmmem_estimate_timeline -> llmmem_timeline, llmmem_explain -> text;
 *         llmmem_estimate_runs and llmmem_estimate_timeline_runs add the replay through
 *         PyTorch's CUDA caching allocator (does the job run?);
 *       vLLM, SGLang, TensorRT-LLM (engine key): llmmem_serving_estimate -> llmmem_serving;
 *       llama.cpp, ollama: llmmem_local_estimate -> llmmem_local;
 *       every engine side by side: llmmem_engines_estimate -> llmmem_engines;
 *   - the solvers: llmmem_solve_* (largest batch and sequence, least compressed format, fewest
 *     devices), llmmem_local_solve, and the layout planner llmmem_plan_run -> llmmem_plan.
 *   llmmem_estimate, the solvers and the planner allocate nothing on their way.
 *
 * Conventions
 *   - Every size is a uint64_t count of bytes or parameters, computed with
 *     integer arithmetic; overflow is reported as LLMMEM_ERR_OVERFLOW.
 *   - Outputs come first in argument lists, inputs after.
 *   - Functions returning llmmem_status set the thread-local message read by
 *     llmmem_last_message() when they fail. The library never prints,
 *     aborts or exits.
 *   - *_free functions accept NULL.
 *   - Handles are not shared between threads for writing. Functions taking a
 *     const handle never modify it: many threads may estimate from the same
 *     model, hardware and strategy, each with its own report.
 *   - Enum values are pinned and only ever appended to.
 */
#ifndef LLMMEM_LLMMEM_H
#define LLMMEM_LLMMEM_H

#include <stddef.h>
#include <stdint.h>

#include <llmmem/version.h>

/**
 * @def LLMMEM_API
 * Marks every exported declaration: default visibility with GCC and Clang, dllexport or
 * dllimport on Windows; empty when LLMMEM_STATIC is defined (linking the static library).
 */
#if defined(LLMMEM_STATIC)
#  define LLMMEM_API
#elif defined(_WIN32)
#  if defined(LLMMEM_BUILDING)
#    define LLMMEM_API __declspec(dllexport)
#  else
#    define LLMMEM_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__) && __GNUC__ >= 4
#  define LLMMEM_API __attribute__((visibility("default")))
#else
#  define LLMMEM_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Version                                                                   */
/* ------------------------------------------------------------------------ */

/** The loaded library's version as MAJOR*10000 + MINOR*100 + PATCH. */
LLMMEM_API unsigned llmmem_version_number(void);
/** The loaded library's version as "MAJOR.MINOR.PATCH". */
LLMMEM_API const char *llmmem_version_string(void);

/* ------------------------------------------------------------------------ */
/* Status codes and errors                                                   */
/* ------------------------------------------------------------------------ */

/** Result of every fallible call. Values are pinned; new codes are appended. */
typedef enum llmmem_status {
    LLMMEM_OK = 0,                   /**< success */
    LLMMEM_ERR_INVALID_ARGUMENT = 1, /**< NULL pointer or malformed value */
    LLMMEM_ERR_OUT_OF_RANGE = 2,     /**< value outside the key's bounds */
    LLMMEM_ERR_UNKNOWN_KEY = 3,      /**< no such key, or a key of another object or type */
    LLMMEM_ERR_NOT_FOUND = 4,        /**< no preset or choice of that name */
    LLMMEM_ERR_INCOMPATIBLE = 5,     /**< settings that cannot run together */
    LLMMEM_ERR_OVERFLOW = 6,         /**< a byte or parameter count exceeds 64 bits */
    LLMMEM_ERR_NO_MEMORY = 7,        /**< allocation failed */
    LLMMEM_ERR_IO = 8,               /**< a file could not be read */
    LLMMEM_ERR_PARSE = 9,            /**< a file is malformed */
    LLMMEM_ERR_UNSUPPORTED = 10,     /**< valid, but not modelled by this version */
    LLMMEM_ERR_INCOMPLETE = 11       /**< a required setting is missing */
} llmmem_status;

/** Static, non-empty name of a status ("invalid argument"); never NULL. */
LLMMEM_API const char *llmmem_status_str(llmmem_status status);

/**
 * Text of the last failure on the calling thread, naming the key and value at
 * fault ("num_attention_heads (40) is not divisible by tensor_parallel (16)").
 * Never NULL; "" when no call on this thread has failed. A successful call
 * does not clear it: test the returned status, not this text.
 */
LLMMEM_API const char *llmmem_last_message(void);
/** Status of the last failure on the calling thread (LLMMEM_OK if none). */
LLMMEM_API llmmem_status llmmem_last_status(void);

/** Free a string the library allocated (llmmem_report_to_json). NULL is fine. */
LLMMEM_API void llmmem_string_free(char *s);

/* ------------------------------------------------------------------------ */
/* Keys                                                                      */
/* ------------------------------------------------------------------------ */

/**
 * Every setting. Model keys take Hugging Face config.json field names where
 * one exists. Values are pinned: keys are appended, never renumbered.
 */
typedef enum llmmem_key {
    LLMMEM_KEY_NONE = 0,                       /**< no key (llmmem_key_at past the end) */

    /* model: architecture (1000+) */
    LLMMEM_KEY_MODEL_TYPE = 1000,              /**< choice: family ("llama", "gpt2", "qwen3_moe", ...) */
    LLMMEM_KEY_NUM_PARAMETERS = 1001,          /**< parameter count for a model given by count alone */
    LLMMEM_KEY_HIDDEN_SIZE = 1002,             /**< model width */
    LLMMEM_KEY_NUM_HIDDEN_LAYERS = 1003,       /**< decoder layers */
    LLMMEM_KEY_NUM_ATTENTION_HEADS = 1004,     /**< query heads */
    LLMMEM_KEY_NUM_KEY_VALUE_HEADS = 1005,     /**< 0: same as num_attention_heads */
    LLMMEM_KEY_HEAD_DIM = 1006,                /**< 0: hidden_size / num_attention_heads */
    LLMMEM_KEY_INTERMEDIATE_SIZE = 1007,       /**< 0: 4 * hidden_size */
    LLMMEM_KEY_VOCAB_SIZE = 1008,              /**< rows of the embedding and LM head */
    LLMMEM_KEY_MAX_POSITION_EMBEDDINGS = 1009, /**< longest context; rows of a learned position table */
    LLMMEM_KEY_TIE_WORD_EMBEDDINGS = 1010,     /**< bool */
    LLMMEM_KEY_MLP_GATED = 1011,               /**< bool: three matrices (SwiGLU/GeGLU) or two (GELU) */
    LLMMEM_KEY_NORM_TYPE = 1012,               /**< choice: layernorm (weight+bias), rmsnorm (weight) */
    LLMMEM_KEY_NORMS_PER_LAYER = 1013,         /**< 1 (Falcon-7B), 2 (most), 4 (Gemma 2/3) */
    LLMMEM_KEY_QKV_BIAS = 1014,                /**< bool */
    LLMMEM_KEY_O_PROJ_BIAS = 1015,             /**< bool */
    LLMMEM_KEY_MLP_BIAS = 1016,                /**< bool */
    LLMMEM_KEY_QK_NORM = 1017,                 /**< bool: q/k norms (Qwen3, Gemma 3; their scope: LLMMEM_KEY_QK_NORM_TYPE) */
    LLMMEM_KEY_EMBEDDING_NORM = 1018,          /**< bool: norm after the embedding (BLOOM) */
    LLMMEM_KEY_LEARNED_POSITIONS = 1019,       /**< bool: a learned position table (GPT-2, OPT) */
    LLMMEM_KEY_POSITION_OFFSET = 1020,         /**< extra position rows (OPT keeps 2) */
    LLMMEM_KEY_NUM_EXPERTS = 1021,             /**< routed experts; 0 for a dense model */
    LLMMEM_KEY_NUM_EXPERTS_PER_TOK = 1022,     /**< routed experts each token uses */
    LLMMEM_KEY_MOE_INTERMEDIATE_SIZE = 1023,   /**< 0: intermediate_size */
    LLMMEM_KEY_N_SHARED_EXPERTS = 1024,        /**< always-active shared experts per MoE layer */
    LLMMEM_KEY_SHARED_EXPERT_INTERMEDIATE_SIZE = 1025, /**< 0: n_shared_experts * moe_intermediate_size */
    LLMMEM_KEY_SHARED_EXPERT_GATE = 1026,      /**< bool: a 1 x hidden gate on the shared expert (Qwen2-MoE) */
    LLMMEM_KEY_FIRST_K_DENSE_REPLACE = 1027,   /**< leading layers with a dense MLP */
    LLMMEM_KEY_MOE_LAYER_FREQ = 1028,          /**< every n-th layer after those is MoE (1: all) */
    LLMMEM_KEY_ROUTER_BIAS = 1029,             /**< bool: router linear has a bias */
    LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS = 1030, /**< bool: per-expert score bias (DeepSeek-V3) */
    LLMMEM_KEY_Q_LORA_RANK = 1031,             /**< MLA: 0 = full-rank q projection */
    LLMMEM_KEY_KV_LORA_RANK = 1032,            /**< MLA: latent size; 0 = not MLA */
    LLMMEM_KEY_QK_ROPE_HEAD_DIM = 1033,        /**< MLA: rotary part of each q/k head */
    LLMMEM_KEY_QK_NOPE_HEAD_DIM = 1034,        /**< MLA: non-rotary part of each q/k head */
    LLMMEM_KEY_V_HEAD_DIM = 1035,              /**< MLA: width of each value head */
    LLMMEM_KEY_TORCH_DTYPE = 1036,             /**< choice (format): dtype the checkpoint is stored in */
    LLMMEM_KEY_QUANTIZATION_FORMAT = 1037,     /**< choice (format): a quantized checkpoint's format; auto: not quantized */
    LLMMEM_KEY_QUANTIZATION_GROUP_SIZE = 1038, /**< its group or block size (0: the format's default) */
    LLMMEM_KEY_QUANTIZATION_DOUBLE_QUANT = 1039, /**< bool: its bitsandbytes statistics are double-quantized */
    LLMMEM_KEY_SLIDING_WINDOW = 1040,          /**< tokens a sliding-window layer attends to (0: none) */
    LLMMEM_KEY_SLIDING_WINDOW_PATTERN = 1041,  /**< n: layer i is global when (i + 1) % n == 0; 0: all layers slide */
    LLMMEM_KEY_VISION_MODEL_TYPE = 1042,       /**< choice: none, clip_vision_model, siglip_vision_model, qwen2_5_vl, qwen3_vl, pixtral, llama4_vision_model, mllama_vision_model */
    LLMMEM_KEY_VISION_HIDDEN_SIZE = 1043,      /**< vision tower width */
    LLMMEM_KEY_VISION_INTERMEDIATE_SIZE = 1044, /**< vision tower MLP width */
    LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS = 1045, /**< vision tower layers */
    LLMMEM_KEY_VISION_PATCH_SIZE = 1046,       /**< vision patch side in pixels */
    LLMMEM_KEY_VISION_IMAGE_SIZE = 1047,       /**< vision input side in pixels */
    LLMMEM_KEY_VISION_NUM_CHANNELS = 1048,     /**< image channels (3) */
    LLMMEM_KEY_VISION_USE_HEAD = 1049,         /**< bool: SigLIP attention-pooling head */
    LLMMEM_KEY_MULTIMODAL_PROJECTOR = 1050,    /**< choice: none, llava_mlp, gemma3, qwen2_5_vl_merger, qwen3_vl_merger, mistral3, llama4, mllama */
    LLMMEM_KEY_QK_NORM_TYPE = 1051,            /**< choice (llmmem_qk_norm_type): q/k norm weights per head or over all heads */
    LLMMEM_KEY_ATTENTION_SINKS = 1065,         /**< bool: one learned sink logit per query head per attention layer (gpt-oss) */
    LLMMEM_KEY_QUANTIZED_MODULES = 1066,       /**< choice (llmmem_quantized_modules): what the checkpoint's quantization reaches */
    LLMMEM_KEY_NUM_NEXTN_PREDICT_LAYERS = 1067, /**< multi-token-prediction modules the checkpoint stores beyond the model (DeepSeek-V3: 1) */
    LLMMEM_KEY_MTP_EMBEDDING = 1068,           /**< bool: each MTP module stores its own embedding copy */
    LLMMEM_KEY_MTP_LM_HEAD = 1069,             /**< bool: each MTP module stores its own LM head copy */
    LLMMEM_KEY_INDEX_N_HEADS = 1070,           /**< DeepSeek sparse attention: the indexer's query heads in every MLA layer; in minimax_m3_vl its lightning indexer's (0: no indexer) */
    LLMMEM_KEY_INDEX_HEAD_DIM = 1071,          /**< DeepSeek sparse attention: width of the indexer's heads and cached key */
    LLMMEM_KEY_VISION_OUT_HIDDEN_SIZE = 1080,  /**< width a Qwen vision merger projects to (out_hidden_size; 0: hidden_size) */
    LLMMEM_KEY_VISION_SPATIAL_MERGE_SIZE = 1081, /**< side of the square of patches a merger joins into one token */
    LLMMEM_KEY_VISION_TEMPORAL_PATCH_SIZE = 1082, /**< frames one Qwen patch spans (Conv3d depth) */
    LLMMEM_KEY_VISION_NUM_POSITION_EMBEDDINGS = 1083, /**< rows of a learned vision position table (Qwen3-VL) */
    LLMMEM_KEY_VISION_DEEPSTACK_LAYERS = 1084, /**< Qwen3-VL deepstack mergers (entries of deepstack_visual_indexes) */
    LLMMEM_KEY_VISION_NUM_ATTENTION_HEADS = 1085, /**< vision tower attention heads (0: not known) */
    LLMMEM_KEY_VISION_FULLATT_BLOCKS = 1086,   /**< Qwen2.5-VL blocks attending over the whole image (entries of fullatt_block_indexes) */
    LLMMEM_KEY_VISION_WINDOW_SIZE = 1087,      /**< Qwen2.5-VL attention window side in pixels (window_size; 0: no windows) */
    LLMMEM_KEY_ATTENTION_CHUNK_SIZE = 1110,    /**< tokens of the chunks a chunked-attention layer attends within (0: none) */
    LLMMEM_KEY_NO_ROPE_LAYER_INTERVAL = 1111,  /**< n: with attention_chunk_size, layer i is global when (i + 1) % n == 0, else chunked; 0: all chunked */
    LLMMEM_KEY_INTERLEAVE_MOE_LAYER_STEP = 1112, /**< n: layer i is MoE when (i + 1) % n == 0 (Llama 4); 0: first_k_dense_replace and moe_layer_freq */
    LLMMEM_KEY_VISION_OUTPUT_DIM = 1113,       /**< width of the vision features the projector takes (Llama 4 vision_output_dim) */
    LLMMEM_KEY_PROJECTOR_INPUT_DIM = 1114,     /**< Llama 4 vision adapter: output width of its first linear */
    LLMMEM_KEY_PROJECTOR_OUTPUT_DIM = 1115,    /**< Llama 4 vision adapter: width of its second linear */
    LLMMEM_KEY_CROSS_ATTENTION_INTERVAL = 1116, /**< n: layer i is a cross-attention layer when i >= cross_attention_first and (i - first) % n == 0 (mllama: 5); 0: none */
    LLMMEM_KEY_CROSS_ATTENTION_FIRST = 1117,   /**< the first cross-attention layer (mllama: 3) */
    LLMMEM_KEY_VISION_NUM_GLOBAL_LAYERS = 1118, /**< mllama vision: layers of its gated global transformer */
    LLMMEM_KEY_VISION_MAX_NUM_TILES = 1119,    /**< mllama vision: tiles an image is split into at most */
    LLMMEM_KEY_VISION_MAX_ASPECT_RATIO_ID = 1120, /**< mllama vision: supported aspect ratios (rows of its tile embeddings less one) */
    LLMMEM_KEY_EMBEDDING_EXTRA_ROWS = 1121,    /**< embedding rows past vocab_size that the LM head lacks (mllama: 8) */
    LLMMEM_KEY_MAMBA_NUM_HEADS = 1130,         /**< Mamba-2 mixer: heads (0: no Mamba-2 layers) */
    LLMMEM_KEY_MAMBA_HEAD_DIM = 1131,          /**< Mamba-2 mixer: width of a head; heads x width is its inner width */
    LLMMEM_KEY_SSM_STATE_SIZE = 1132,          /**< Mamba-2 mixer: state size N of each head */
    LLMMEM_KEY_MAMBA_N_GROUPS = 1133,          /**< Mamba-2 mixer: groups sharing B and C */
    LLMMEM_KEY_MAMBA_D_CONV = 1134,            /**< Mamba-2 mixer: causal convolution kernel width */
    LLMMEM_KEY_MAMBA_CONV_BIAS = 1135,         /**< bool: the Mamba-2 convolution has a bias */
    LLMMEM_KEY_MAMBA_PROJ_BIAS = 1136,         /**< bool: the Mamba-2 in/out projections have biases */
    LLMMEM_KEY_LINEAR_NUM_KEY_HEADS = 1137,    /**< Gated DeltaNet mixer: query/key heads (0: no such layers) */
    LLMMEM_KEY_LINEAR_NUM_VALUE_HEADS = 1138,  /**< Gated DeltaNet mixer: value heads */
    LLMMEM_KEY_LINEAR_KEY_HEAD_DIM = 1139,     /**< Gated DeltaNet mixer: width of a key head */
    LLMMEM_KEY_LINEAR_VALUE_HEAD_DIM = 1140,   /**< Gated DeltaNet mixer: width of a value head */
    LLMMEM_KEY_LINEAR_CONV_KERNEL_DIM = 1141,  /**< Gated DeltaNet mixer: causal convolution kernel width */
    LLMMEM_KEY_FULL_ATTENTION_INTERVAL = 1142, /**< n > 0: layer i is full attention when (i + 1) % n == 0, else Gated DeltaNet */
    LLMMEM_KEY_ATTN_OUTPUT_GATE = 1143,        /**< bool: a sigmoid gate on the attention output: q_proj gives it (Qwen3-Next), an MLA layer's own g_proj (Kimi K3 mla_use_output_gate) */
    LLMMEM_KEY_PARALLEL_SSM = 1144,            /**< bool: every attention layer also runs a Mamba-2 mixer beside it (Falcon-H1) */
    LLMMEM_KEY_MAMBA_RMS_NORM = 1145,          /**< bool: the Mamba-2 mixer has its gated RMSNorm over the inner width */
    LLMMEM_KEY_ATTN_LAYER_PERIOD = 1156,       /**< n > 0: layer i is attention when i % n == attn_layer_offset, else Mamba-1 (Jamba: 8); 0: no such pattern */
    LLMMEM_KEY_ATTN_LAYER_OFFSET = 1157,       /**< the attention layers' offset within attn_layer_period (Jamba: 4) */
    LLMMEM_KEY_EXPERT_LAYER_PERIOD = 1158,     /**< n > 0: layer i is MoE when i % n == expert_layer_offset (Jamba: 2); 0: the other MoE keys */
    LLMMEM_KEY_EXPERT_LAYER_OFFSET = 1159,     /**< the MoE layers' offset within expert_layer_period (Jamba: 1) */
    LLMMEM_KEY_MAMBA_EXPAND = 1160,            /**< Mamba-1 mixer: inner width = mamba_expand x hidden_size */
    LLMMEM_KEY_MAMBA_DT_RANK = 1161,           /**< Mamba-1 mixer: rank of the time-step projection (0: ceil(hidden_size / 16)) */
    LLMMEM_KEY_TORCH_DTYPE_IN_CONFIG = 1170,   /**< bool: the config named torch_dtype (0: fp32 was assumed) */
    LLMMEM_KEY_ROUTER_FP32 = 1200,             /**< bool: the MoE router's weight is kept in fp32 whatever the weights' dtype (MiniMax-M2) */
    LLMMEM_KEY_GLOBAL_HEAD_DIM = 1202,         /**< head width of the full-attention layers when it differs from head_dim (Gemma 4: 512); 0: head_dim */
    LLMMEM_KEY_NUM_GLOBAL_KEY_VALUE_HEADS = 1203, /**< KV heads of the full-attention layers with attention_k_eq_v (Gemma 4); 0: num_key_value_heads */
    LLMMEM_KEY_ATTENTION_K_EQ_V = 1204,        /**< bool: full-attention layers take their values from the key projection (no v_proj) */
    LLMMEM_KEY_NUM_KV_SHARED_LAYERS = 1205,    /**< the last n layers reuse an earlier layer's keys and values: no k/v weights, no cache (Gemma 4 E-series) */
    LLMMEM_KEY_DOUBLE_WIDE_MLP = 1206,         /**< bool: the KV-shared layers' MLP is twice intermediate_size wide */
    LLMMEM_KEY_HIDDEN_SIZE_PER_LAYER_INPUT = 1207, /**< width of the per-layer input embeddings (Gemma 4 PLE); 0: none */
    LLMMEM_KEY_VOCAB_SIZE_PER_LAYER_INPUT = 1208, /**< rows of the per-layer input embedding table */
    LLMMEM_KEY_LAYER_SCALAR = 1209,            /**< bool: each decoder layer stores one scalar it scales its output by (Gemma 4) */
    LLMMEM_KEY_ROUTER_SCALES = 1210,           /**< bool: the router scales its input per channel and its logits per expert (Gemma 4) */
    LLMMEM_KEY_VISION_STANDARDIZE = 1211,      /**< bool: the vision tower's output has a learned bias and scale (Gemma 4 std_bias, std_scale) */
    LLMMEM_KEY_AUDIO_HIDDEN_SIZE = 1212,       /**< Gemma 4 audio tower (conformer) width; 0: no audio tower */
    LLMMEM_KEY_AUDIO_NUM_HIDDEN_LAYERS = 1213, /**< Gemma 4 audio tower layers */
    LLMMEM_KEY_AUDIO_NUM_ATTENTION_HEADS = 1214, /**< Gemma 4 audio tower attention heads */
    LLMMEM_KEY_AUDIO_CONV_KERNEL_SIZE = 1215,  /**< Gemma 4 audio tower depthwise convolution kernel */
    LLMMEM_KEY_AUDIO_SUBSAMPLING_CHANNELS_0 = 1216, /**< Gemma 4 audio subsampling: the first convolution's channels */
    LLMMEM_KEY_AUDIO_SUBSAMPLING_CHANNELS_1 = 1217, /**< Gemma 4 audio subsampling: the second convolution's channels */
    LLMMEM_KEY_AUDIO_OUTPUT_PROJ_DIMS = 1218,  /**< Gemma 4 audio tower output width (its embedder projects it to hidden_size) */
    LLMMEM_KEY_HC_MULT = 1219,                 /**< manifold-constrained hyper-connections: residual streams per layer (DeepSeek-V4: 4); 0: none */
    LLMMEM_KEY_O_GROUPS = 1220,                /**< grouped low-rank output projection: head groups (DeepSeek-V4: 8); 0: one o_proj */
    LLMMEM_KEY_O_LORA_RANK = 1221,             /**< grouped low-rank output projection: each group's rank */
    LLMMEM_KEY_COMPRESS_RATE_CSA = 1222,       /**< tokens a compressed sparse attention layer compresses into one entry (DeepSeek-V4: 4) */
    LLMMEM_KEY_COMPRESS_RATE_HCA = 1223,       /**< the same for a heavily compressed attention layer (128) */
    LLMMEM_KEY_EXPERTS_FP4 = 1224,             /**< bool: the checkpoint stores its routed experts in FP4 beside FP8 weights (DeepSeek-V4 expert_dtype fp4), which its own format does not price */
    LLMMEM_KEY_LINEAR_ATTN_KDA = 1225,         /**< bool: the linear_attention layers are Kimi Delta Attention (q/k/v projections and convolutions, low-rank gates) */
    LLMMEM_KEY_ROUTER_BIAS_FP32 = 1226,        /**< bool: the router's e_score_correction_bias is stored in fp32 (DeepSeek-V3, GLM); 0: in the weights' dtype */
    LLMMEM_KEY_MLP_ACT_PARAMS = 1227,          /**< learned scalars of each MLP's activation (Apertus's xIELU: alpha_p, alpha_n) */
    LLMMEM_KEY_CONV_L_CACHE = 1228,            /**< short-convolution layers' kernel (LFM2 conv_L_cache: 3); its window is their state */
    LLMMEM_KEY_CONV_BIAS = 1229,               /**< bool: the short-convolution layers' projections and convolution have biases */
    LLMMEM_KEY_FULL_ATTENTION_SINKS = 1230,    /**< bool: full-attention layers have a sink per head where attention_sinks gives the sliding ones theirs (MiMo-V2-Flash) */
    LLMMEM_KEY_NUM_GLOBAL_ATTENTION_HEADS = 1231, /**< query heads of the full-attention layers when they differ from the sliding ones' num_attention_heads (Step-3.5-Flash: 64 beside 96); 0: num_attention_heads */
    LLMMEM_KEY_HEAD_WISE_ATTN_GATE = 1232,     /**< bool: g_proj gives one sigmoid gate per query head on the attention output (Step-3.5-Flash) */
    LLMMEM_KEY_VISION_NUM_KEY_VALUE_HEADS = 1233, /**< vision tower key/value heads where fewer than its query heads (EXAONE 4.5's grouped-query ViT); 0: as many */
    LLMMEM_KEY_INDEX_FIRST_LAYER = 1234,       /**< minimax_m3_vl: first layer with a lightning indexer (MiniMax-M3's sparse_attention_freq: 3); 0: every layer */
    LLMMEM_KEY_MOE_LATENT_SIZE = 1201,         /**< routed experts work at this width between two projections from and to hidden_size (Nemotron 3 latent MoE); 0: none */
    LLMMEM_KEY_ATTN_RES_BLOCK_SIZE = 1236,     /**< layers a block of the attention-residual (AttnRes) bank spans: each layer mixes the bank through its own norm and 1 x hidden projection before attention and before the MLP (Kimi K3: 12); 0: plain residuals */
    LLMMEM_KEY_LINEAR_FULL_RANK_GATE = 1237,   /**< bool: the KDA output gate is one g_proj (hidden -> heads x head_dim) in place of g_a_proj and g_b_proj (Kimi K3 use_full_rank_gate) */
    LLMMEM_KEY_MOE_LATENT_NORM = 1238,         /**< bool: an RMSNorm over moe_latent_size on the routed experts' combined output before it is projected back (Kimi K3 latent_moe_use_norm) */
    LLMMEM_KEY_VISION_QKV_SIZE = 1239,         /**< width of a vision block's query, key and value each where it differs from the tower's (Kimi K3's MoonViT qkv_hidden_size); 0: the tower's width */
    LLMMEM_KEY_INDEX_TOPK_BLOCKS = 1240,       /**< minimax_m3_vl: key blocks the lightning indexer selects for a query (MiniMax-M3's sparse_topk_blocks: 16); 0: not given */

    /* hardware (2000+) */
    LLMMEM_KEY_MEMORY_BYTES = 2000,            /**< memory of one device in bytes */
    LLMMEM_KEY_DEVICES_PER_NODE = 2001,        /**< devices in one node (8) */
    LLMMEM_KEY_NUM_NODES = 2002,               /**< nodes (1) */
    LLMMEM_KEY_RUNTIME_OVERHEAD_BYTES = 2003,  /**< taken before the job: CUDA context, library workspaces */
    LLMMEM_KEY_ALLOCATOR_RESERVE_FRACTION = 2004, /**< real: share of memory kept back for fragmentation */
    LLMMEM_KEY_HOST_MEMORY_BYTES = 2005,       /**< host RAM per node */
    LLMMEM_KEY_NVME_BYTES = 2006,              /**< NVMe capacity per node */
    LLMMEM_KEY_MEMORY_BANDWIDTH = 2007,        /**< device memory bandwidth, bytes/s */
    LLMMEM_KEY_INTRA_NODE_BANDWIDTH = 2008,    /**< per device, one direction, bytes/s */
    LLMMEM_KEY_INTER_NODE_BANDWIDTH = 2009,    /**< per device, one direction, bytes/s */
    LLMMEM_KEY_PEAK_BF16_FLOPS = 2010,         /**< dense bf16 FLOP/s */
    LLMMEM_KEY_UNIFIED_MEMORY = 2011,          /**< bool: device memory is the host's RAM (Apple Silicon): CPU and GPU buffers share it */
    LLMMEM_KEY_BACKEND = 2012,                 /**< choice (llmmem_backend): cuda, rocm, metal, vulkan, cpu */
    LLMMEM_KEY_DRIVER_TOTAL_BYTES = 2013,      /**< the device's total as its driver reports it (nvidia-smi memory.total; 0: memory_bytes) */
    LLMMEM_KEY_CUDA_TOTAL_BYTES = 2014,        /**< the device's total as CUDA reports it (cudaMemGetInfo; 0: not known) */
    LLMMEM_KEY_CUBLAS_WORKSPACE_BYTES = 2015,  /**< one cuBLAS workspace PyTorch allocates per thread (by architecture) */

    /* strategy (3000+) */
    LLMMEM_KEY_MODE = 3000,                    /**< choice: inference, training, lora, qlora (llmmem_mode) */
    LLMMEM_KEY_WEIGHT_FORMAT = 3001,           /**< choice (format) of weight matrices; auto: the checkpoint's */
    LLMMEM_KEY_HIGH_PRECISION_FORMAT = 3002,   /**< choice (format) of tensors kept unquantized; auto = torch_dtype */
    LLMMEM_KEY_QUANTIZE_EMBEDDING = 3003,      /**< bool: weight_format also applies to the embedding */
    LLMMEM_KEY_QUANTIZE_LM_HEAD = 3004,        /**< bool: weight_format also applies to the LM head */
    LLMMEM_KEY_QUANTIZE_ROUTER = 3005,         /**< bool: weight_format also applies to MoE routers */
    LLMMEM_KEY_QUANT_GROUP_SIZE = 3006,        /**< group/block size of weight_format (0: the checkpoint's, else the format's) */
    LLMMEM_KEY_DOUBLE_QUANT = 3007,            /**< choice: auto (the checkpoint's), off, on: bitsandbytes double quantization */
    LLMMEM_KEY_MICRO_BATCH_SIZE = 3008,        /**< sequences per micro-batch */
    LLMMEM_KEY_SEQUENCE_LENGTH = 3009,         /**< tokens per sequence */
    LLMMEM_KEY_PRECISION_RECIPE = 3010,        /**< choice: megatron, zero, deepspeed, pure_bf16, fp32, custom */
    LLMMEM_KEY_GRADIENT_FORMAT = 3011,         /**< choice: auto (recipe), fp32, fp16, bf16 */
    LLMMEM_KEY_MASTER_WEIGHTS_FORMAT = 3012,   /**< choice: auto (recipe), none, fp32, fp16, bf16 */
    LLMMEM_KEY_OPTIMIZER = 3013,               /**< choice: adamw, adam, adamw_8bit, adafactor, sgd, sgd_momentum, lion, muon */
    LLMMEM_KEY_OPTIMIZER_STATE_FORMAT = 3014,  /**< choice: auto (recipe), fp32, bf16 */
    LLMMEM_KEY_FP32_GRADIENT_COPY = 3015,      /**< choice: auto (recipe), off, on: an fp32 gradient beside 16-bit ones */
    LLMMEM_KEY_ADAFACTOR_FIRST_MOMENT = 3016,  /**< bool: Adafactor keeps a first moment (beta1) */
    LLMMEM_KEY_LORA_RANK = 3017,               /**< LoRA rank r (PEFT LoraConfig default: 8) */
    LLMMEM_KEY_LORA_TARGETS = 3018,            /**< flags: q, k, v, o, gate, up, down, experts */
    LLMMEM_KEY_LORA_FORMAT = 3019,             /**< choice: auto, fp32, fp16, bf16: adapter weights */
    LLMMEM_KEY_FROZEN_LAYERS = 3020,           /**< full fine-tuning: the first n decoder layers are frozen */
    LLMMEM_KEY_RECOMPUTE = 3021,               /**< choice: none, selective, full, offload (llmmem_recompute) */
    LLMMEM_KEY_RECOMPUTE_METHOD = 3022,        /**< choice: uniform, block (Megatron --recompute-method) */
    LLMMEM_KEY_RECOMPUTE_NUM_LAYERS = 3023,    /**< layers per recomputed chunk (uniform) or recomputed layers (block); 0: 1 / all */
    LLMMEM_KEY_FLASH_ATTENTION = 3024,         /**< bool: fused attention keeps no sequence x sequence tensor */
    LLMMEM_KEY_DROPOUT = 3025,                 /**< bool: attention and hidden dropout (masks and outputs saved) */
    LLMMEM_KEY_NORM_FP32 = 3026,               /**< bool: norms save their input in fp32 */
    LLMMEM_KEY_ACTIVATION_FORMAT = 3027,       /**< choice: auto (the training compute format), fp32, fp16, bf16 */
    LLMMEM_KEY_CROSS_ENTROPY = 3028,           /**< choice: standard, fused, chunked (llmmem_cross_entropy) */
    LLMMEM_KEY_LOSS_CHUNK_TOKENS = 3029,       /**< chunked cross-entropy: tokens per chunk (0: Liger's rule) */
    LLMMEM_KEY_LOGITS_FP32 = 3030,             /**< bool: logits are upcast to fp32 for the loss */
    LLMMEM_KEY_FUSED_SWIGLU = 3031,            /**< bool: a fused SwiGLU keeps no activation output */
    LLMMEM_KEY_FRAMEWORK = 3032,               /**< choice (llmmem_framework): whose semantics the `auto` keys below take */
    LLMMEM_KEY_ATTN_IMPLEMENTATION = 3033,     /**< choice (llmmem_attn_implementation): transformers' attn_implementation, Megatron's */
    LLMMEM_KEY_NORM_IMPLEMENTATION = 3034,     /**< choice (llmmem_norm_implementation): what a norm saves */
    LLMMEM_KEY_OPTIMIZER_IMPLEMENTATION = 3035, /**< choice (llmmem_optimizer_implementation): PyTorch foreach, fused, for-loop */
    LLMMEM_KEY_GRADIENT_ALLOCATION = 3036,     /**< choice (llmmem_gradient_allocation): lazy (set_to_none) or persistent */
    LLMMEM_KEY_KEEP_LOGITS = 3037,             /**< choice: auto, off, on: the model's logits stay referenced through backward */
    LLMMEM_KEY_PYTORCH_VERSION = 3038,         /**< choice (llmmem_pytorch_version): 2.x (default) or 1.13 */
    LLMMEM_KEY_CACHE_IMPLEMENTATION = 3039,    /**< choice (llmmem_cache_implementation): generate's KV cache: auto, dynamic, static, offloaded */
    LLMMEM_KEY_LOGITS_TO_KEEP = 3040,          /**< positions whose logits the model computes (generate passes 1; 0: all) */
    LLMMEM_KEY_MAX_NEW_TOKENS = 3041,          /**< tokens generate appends to a prompt of sequence_length (0: a cache of sequence_length) */
    LLMMEM_KEY_DEVICE_KERNELS = 3043,          /**< choice (llmmem_device_kernels): whose ATen kernels run the step: cuda, cpu */
    LLMMEM_KEY_ACTIVATION_IMPLEMENTATION = 3044, /**< choice (llmmem_activation_implementation): the MLP activation, eager or one kernel */
    LLMMEM_KEY_EXPERTS_IMPLEMENTATION = 3047,  /**< choice (llmmem_experts_implementation): how routed experts run */
    LLMMEM_KEY_INPUT_REQUIRES_GRAD = 3048,     /**< choice: auto, off, on: a frozen embedding's output requires grad */
    LLMMEM_KEY_AUTOCAST = 3051,                /**< choice (llmmem_autocast): off, bf16, fp16: torch.autocast over fp32 weights */
    /** generate's num_beams (1..65536, default 1: greedy): beam search (transformers
     * GenerationMixin._beam_search) runs micro_batch_size x num_beams sequences through the model and
     * the cache, and holds its beams' fp32 log-probabilities, running and finished sequences and
     * beam indices, and one layer's keys copied by each cache reorder; mode inference in the
     * generate loop only (an error elsewhere; vLLM's beam width is `n`) */
    LLMMEM_KEY_NUM_BEAMS = 3052,
    LLMMEM_KEY_TRANSFORMERS_VERSION = 3053,    /**< choice (llmmem_transformers_version): 5.x (default) or 4.x */
    /* PyTorch's CUDA caching allocator, its PYTORCH_CUDA_ALLOC_CONF settings (llmmem_estimate_runs) */
    LLMMEM_KEY_EXPANDABLE_SEGMENTS = 3054,     /**< bool: expandable_segments:True, one growing segment per stream and pool */
    LLMMEM_KEY_MAX_SPLIT_SIZE_MB = 3055,       /**< max_split_size_mb: cached blocks larger are not split (0: no limit) */
    LLMMEM_KEY_ROUNDUP_POWER2_DIVISIONS = 3056, /**< roundup_power2_divisions: sizes rounded to a division of their power-of-2 interval (0: off) */
    LLMMEM_KEY_GARBAGE_COLLECTION_THRESHOLD = 3057, /**< real, garbage_collection_threshold (0: off; with a capacity) */

    /* strategy: serving (3100+), vLLM's names; tensor_parallel and pipeline_parallel apply too */
    LLMMEM_KEY_KV_CACHE_DTYPE = 3100,          /**< choice (llmmem_kv_cache_dtype): auto, bf16, fp8, nvfp4, ... */
    LLMMEM_KEY_BLOCK_SIZE = 3101,              /**< tokens per KV cache block (0: the engine's: vLLM 16, SGLang 1, TensorRT-LLM 32) */
    LLMMEM_KEY_GPU_MEMORY_UTILIZATION = 3102,  /**< real: share of a device vLLM may use (0: the release's, 0.92; 0.9 before 0.21) */
    LLMMEM_KEY_MAX_NUM_BATCHED_TOKENS = 3103,  /**< tokens per scheduler step and profile run (0: vLLM's default) */
    LLMMEM_KEY_MAX_NUM_SEQS = 3104,            /**< sequences per scheduler step (0: vLLM's default) */
    LLMMEM_KEY_MAX_MODEL_LEN = 3105,           /**< longest request in tokens (0: max_position_embeddings; -1: vLLM's auto) */
    LLMMEM_KEY_KV_CACHE_MEMORY_BYTES = 3106,   /**< KV cache bytes per rank, instead of the budget (0: the budget) */
    LLMMEM_KEY_PROFILE_WEIGHTS_BYTES = 3107,   /**< measured weights per rank (-1: the inventory's) */
    LLMMEM_KEY_PROFILE_ACTIVATION_BYTES = 3108, /**< measured activation peak of the profile run (-1: modelled) */
    LLMMEM_KEY_PROFILE_NON_TORCH_BYTES = 3109, /**< measured non-torch memory (-1: runtime_overhead_bytes) */
    LLMMEM_KEY_CUDA_GRAPH_BYTES = 3110,        /**< CUDA-graph estimate taken from the budget (-1: the release's; 0: none) */
    LLMMEM_KEY_ENABLE_PREFIX_CACHING = 3111,   /**< bool: full blocks of a shared prefix are stored once */
    LLMMEM_KEY_SHARED_PREFIX_TOKENS = 3112,    /**< tokens every request shares (a system prompt) */
    LLMMEM_KEY_PROMPT_TOKENS = 3113,           /**< prompt tokens the n sequences of one request share */
    LLMMEM_KEY_N = 3114,                       /**< sequences per request: parallel sampling n, or beam width */
    LLMMEM_KEY_REQUEST_TOKENS = 3115,          /**< tokens per request for the concurrency question (0: max_model_len) */
    LLMMEM_KEY_DISABLE_HYBRID_KV_CACHE_MANAGER = 3116, /**< bool: sliding-window layers cached like full ones */
    LLMMEM_KEY_MAMBA_CACHE_DTYPE = 3117,       /**< choice: auto, float32, bfloat16, float16: vLLM's conv state (auto: the model's dtype) */
    LLMMEM_KEY_MAMBA_SSM_CACHE_DTYPE = 3118,   /**< choice: auto, float32, bfloat16, float16: vLLM's SSM / recurrent state (auto: mamba_cache_dtype's) */
    LLMMEM_KEY_SPECULATIVE_METHOD = 3120,      /**< choice (llmmem_speculative_method): vLLM speculative_config method: none, mtp */
    LLMMEM_KEY_NUM_SPECULATIVE_TOKENS = 3121,  /**< vLLM speculative_config num_speculative_tokens (0: no speculative decoding) */
    LLMMEM_KEY_LIMIT_MM_PER_PROMPT = 3125,     /**< images a prompt may carry (vLLM --limit-mm-per-prompt image; 999; 0: text only) */
    LLMMEM_KEY_MM_MAX_TOKENS_PER_ITEM = 3126,  /**< encoder tokens of the largest image (0: the model's, from its processor) */
    LLMMEM_KEY_MAX_PIXELS = 3127,              /**< Qwen image processor max_pixels (0: its preprocessor default) */
    LLMMEM_KEY_ENCODER_CACHE_SIZE = 3128,      /**< vLLM encoder_cache_size in embeddings (0: max_num_batched_tokens) */
    LLMMEM_KEY_IMAGES_PER_SEQUENCE = 3129,     /**< training: images each sequence carries through the vision tower (0: none) */
    LLMMEM_KEY_IMAGE_PIXELS = 3130,            /**< training: pixels of each image (0: the largest the model's processor makes) */
    LLMMEM_KEY_DTYPE = 3140,                   /**< choice: vLLM --dtype: auto (fp32 served as bf16), fp32, ... */

    /* strategy: local inference engines (3150+), llama.cpp's option names (common/arg.cpp), then ollama's */
    LLMMEM_KEY_ENGINE = 3150,                  /**< choice (llmmem_engine): auto, vllm, llama.cpp, ollama */
    LLMMEM_KEY_N_CTX = 3151,                   /**< llama.cpp -c: context cells over all sequences (0, the default: the model's training context) */
    LLMMEM_KEY_N_BATCH = 3152,                 /**< llama.cpp -b: logical batch (2048) */
    LLMMEM_KEY_N_UBATCH = 3153,                /**< llama.cpp -ub: physical batch the compute buffer is sized for (512) */
    LLMMEM_KEY_N_PARALLEL = 3154,              /**< llama.cpp -np: sequences decoded at once (n_seq_max; -1: llama-server's auto, 4 unified) */
    LLMMEM_KEY_N_GPU_LAYERS = 3155,            /**< llama.cpp -ngl: the last layers on the GPUs, the output layer first (-1: all) */
    LLMMEM_KEY_CACHE_TYPE_K = 3156,            /**< choice (llmmem_ggml_cache_type): llama.cpp -ctk */
    LLMMEM_KEY_CACHE_TYPE_V = 3157,            /**< choice (llmmem_ggml_cache_type): llama.cpp -ctv */
    LLMMEM_KEY_FLASH_ATTN = 3158,              /**< choice: auto, off, on: llama.cpp -fa */
    LLMMEM_KEY_SWA_FULL = 3159,                /**< bool: llama.cpp --swa-full, sliding-window layers keep the whole context */
    LLMMEM_KEY_KV_UNIFIED = 3160,              /**< bool: llama.cpp --kv-unified, one KV buffer shared by all sequences */
    LLMMEM_KEY_N_CPU_MOE = 3161,               /**< llama.cpp --n-cpu-moe: expert tensors of the first n layers stay on the CPU */
    LLMMEM_KEY_SPLIT_MODE = 3162,              /**< choice (llmmem_split_mode): none, layer, row: llama.cpp -sm */
    LLMMEM_KEY_MAIN_GPU = 3163,                /**< llama.cpp -mg: the GPU of split_mode none */
    LLMMEM_KEY_OFFLOAD_KQV = 3164,             /**< bool: a GPU layer's KV cache is on its GPU (llama.cpp -nkvo clears it) */
    LLMMEM_KEY_FIT_MARGIN_BYTES = 3165,        /**< bytes kept free on each GPU (llama.cpp --fit-target, 1024 MiB) */
    LLMMEM_KEY_TENSOR_SPLIT = 3166,            /**< list: llama.cpp -ts, proportions of the layers per GPU ("3,1"; empty: by free memory) */
    LLMMEM_KEY_FIT = 3167,                     /**< bool: llama.cpp --fit (on): an unset n_ctx, then an unset n_gpu_layers, lowered until the GPUs keep their margin */
    LLMMEM_KEY_NUM_CTX = 3180,                 /**< ollama num_ctx: context per sequence (0: 4096, 32768 or 262144 by GPU memory), at most the model's */
    LLMMEM_KEY_NUM_PARALLEL = 3181,            /**< ollama OLLAMA_NUM_PARALLEL: sequences at once (1) */
    LLMMEM_KEY_NUM_GPU = 3182,                 /**< ollama num_gpu: layers on the GPUs (-1: llama-server --fit, the most that fit) */
    LLMMEM_KEY_GPU_OVERHEAD_BYTES = 3183,      /**< ollama OLLAMA_GPU_OVERHEAD: bytes per GPU left out of the memory that picks the default num_ctx (0) */
    LLMMEM_KEY_NUM_BATCH = 3184,               /**< ollama num_batch: llama-server -b and -ub (0: ollama's choice, 512 / 1024 / 2048 by context) */
    LLMMEM_KEY_SCHED_SPREAD = 3185,            /**< bool: ollama OLLAMA_SCHED_SPREAD, every GPU even when one would hold the model */
    /* strategy: serving engines beside vLLM (3186+): SGLang's and TensorRT-LLM's option names */
    LLMMEM_KEY_ENGINE_VERSION = 3186,          /**< choice (llmmem_engine_version): the engine release whose rules apply (latest) */
    LLMMEM_KEY_MEM_FRACTION_STATIC = 3187,     /**< real: SGLang --mem-fraction-static (0: SGLang's default by GPU memory) */
    LLMMEM_KEY_MAX_TOTAL_TOKENS = 3188,        /**< SGLang --max-total-tokens, TensorRT-LLM KvCacheConfig.max_tokens (0: none) */
    LLMMEM_KEY_PRE_MODEL_LOAD_BYTES = 3189,    /**< measured free memory before the weights load (SGLang "Load weight begin. avail mem"; -1: modelled) */
    LLMMEM_KEY_SWA_FULL_TOKENS_RATIO = 3190,   /**< real: SGLang --swa-full-tokens-ratio (0.8) */
    LLMMEM_KEY_MAMBA_FULL_MEMORY_RATIO = 3191, /**< real: SGLang --mamba-full-memory-ratio (0.9) */
    LLMMEM_KEY_MAX_MAMBA_CACHE_SIZE = 3192,    /**< SGLang --max-mamba-cache-size (0: from the ratio) */
    LLMMEM_KEY_CUDA_GRAPH_MAX_BS = 3193,       /**< SGLang --cuda-graph-max-bs (0: SGLang's default by GPU memory) */
    LLMMEM_KEY_FREE_GPU_MEMORY_FRACTION = 3194, /**< real: TensorRT-LLM KvCacheConfig.free_gpu_memory_fraction (0.9) */
    LLMMEM_KEY_TRTLLM_BACKEND = 3195,          /**< choice (llmmem_trtllm_backend): pytorch (trtllm-serve's default) or engine */
    LLMMEM_KEY_KV_FREE_BYTES = 3196,           /**< measured free memory when TensorRT-LLM sizes its KV cache ("available: X GiB"; -1: modelled) */
    LLMMEM_KEY_ENFORCE_EAGER = 3197,           /**< bool: no CUDA graphs (vLLM --enforce-eager, SGLang --disable-cuda-graph) */
    LLMMEM_KEY_MAMBA_RADIX_CACHE_STRATEGY = 3198, /**< choice: auto, no_buffer, extra_buffer, extra_buffer_lazy: SGLang --mamba-radix-cache-strategy (state slots a request) */

    /* strategy: parallel layout and sharding (3200+) */
    LLMMEM_KEY_TENSOR_PARALLEL = 3200,         /**< tensor-parallel size t */
    LLMMEM_KEY_PIPELINE_PARALLEL = 3201,       /**< pipeline stages p */
    LLMMEM_KEY_DATA_PARALLEL = 3202,           /**< data-parallel size d; world = t x p x d x c */
    LLMMEM_KEY_CONTEXT_PARALLEL = 3203,        /**< context-parallel size c: the sequence split over c ranks */
    LLMMEM_KEY_EXPERT_PARALLEL = 3204,         /**< expert-parallel size e: routed experts split over e ranks */
    LLMMEM_KEY_EXPERT_TENSOR_PARALLEL = 3205,  /**< tensor-parallel size inside an expert (0: tensor_parallel) */
    LLMMEM_KEY_VIRTUAL_PIPELINE = 3206,        /**< model chunks per pipeline stage (interleaved schedule) */
    LLMMEM_KEY_SEQUENCE_PARALLEL = 3207,       /**< bool: Megatron sequence parallelism over the t ranks */
    LLMMEM_KEY_NUM_MICRO_BATCHES = 3208,       /**< micro-batches per step and pipeline (0: as many as the schedule holds) */
    LLMMEM_KEY_PIPELINE_SCHEDULE = 3209,       /**< choice: 1f1b, interleaved, gpipe (llmmem_pipeline_schedule) */
    LLMMEM_KEY_PIPELINE_FIRST_STAGE_LAYERS = 3210, /**< decoder layers of the first stage (0: an even split) */
    LLMMEM_KEY_PIPELINE_LAST_STAGE_LAYERS = 3211,  /**< decoder layers of the last stage (0: an even split) */
    LLMMEM_KEY_ZERO_STAGE = 3212,              /**< DeepSpeed ZeRO stage 0-3 */
    LLMMEM_KEY_FSDP = 3213,                    /**< choice: none, full_shard, shard_grad_op, hybrid_shard, no_shard */
    LLMMEM_KEY_DISTRIBUTED_OPTIMIZER = 3214,   /**< bool: Megatron's distributed optimizer */
    LLMMEM_KEY_REDUCE_BUCKET_SIZE = 3215,      /**< DeepSpeed reduce_bucket_size, elements */
    LLMMEM_KEY_ALLGATHER_BUCKET_SIZE = 3216,   /**< DeepSpeed allgather_bucket_size, elements */
    LLMMEM_KEY_OVERLAP_COMM = 3217,            /**< bool: DeepSpeed overlap_comm (two reduce buckets) */
    LLMMEM_KEY_STAGE3_PREFETCH_BUCKET_SIZE = 3218, /**< DeepSpeed ZeRO-3 prefetch bucket, elements */
    LLMMEM_KEY_STAGE3_MAX_LIVE_PARAMETERS = 3219,  /**< DeepSpeed ZeRO-3 limit of gathered parameters */
    LLMMEM_KEY_FSDP_LIMIT_ALL_GATHERS = 3220,  /**< bool: FSDP keeps at most two units gathered */
    LLMMEM_KEY_OFFLOAD_OPTIMIZER = 3221,       /**< choice: none, cpu, nvme: optimizer states and master weights */
    LLMMEM_KEY_OFFLOAD_PARAM = 3222,           /**< choice: none, cpu, nvme: parameters (ZeRO-3, ZeRO-Infinity) */
    LLMMEM_KEY_DDP_GRADIENT_COPY = 3223,       /**< bool: gradient buckets hold a second copy of the gradients (PyTorch DDP) */
    LLMMEM_KEY_GLOBAL_BATCH_SIZE = 3224,       /**< sequences per step, for the planner (0: micro_batch_size per device) */

    /* strategy: limits of the layout planner's space (3225+) */
    LLMMEM_KEY_PLAN_MAX_TENSOR_PARALLEL = 3225,   /**< largest t tried (0: devices_per_node) */
    LLMMEM_KEY_PLAN_MAX_PIPELINE_PARALLEL = 3226, /**< largest p tried (0: num_hidden_layers) */
    LLMMEM_KEY_PLAN_MAX_CONTEXT_PARALLEL = 3227,  /**< largest c tried */
    LLMMEM_KEY_PLAN_MAX_VIRTUAL_PIPELINE = 3228,  /**< largest virtual_pipeline tried */
    LLMMEM_KEY_PLAN_MAX_MICRO_BATCH_SIZE = 3229,  /**< largest micro_batch_size tried (powers of two) */
    LLMMEM_KEY_PLAN_SHARDINGS = 3230,          /**< flags: none, zero1, zero2, zero3, fsdp, distributed_optimizer */
    LLMMEM_KEY_PLAN_RECOMPUTE = 3231,          /**< flags: none, selective, full */
    LLMMEM_KEY_HOST_INIT = 3232,               /**< choice: none, zero_init, full: the fp32 model each process builds on the host */
    LLMMEM_KEY_HOST_BUFFER_FACTOR = 3233       /**< real: host bytes are multiplied by it (DeepSpeed's estimators: 1.5) */
} llmmem_key;

/** Which handle a key belongs to. */
typedef enum llmmem_object {
    LLMMEM_OBJECT_MODEL = 1,    /**< llmmem_model: keys 1000+ */
    LLMMEM_OBJECT_HARDWARE = 2, /**< llmmem_hardware: keys 2000+ */
    LLMMEM_OBJECT_STRATEGY = 3  /**< llmmem_strategy: keys 3000+ */
} llmmem_object;

/** How a key's value is set: integers, 0/1, a named choice, or a fraction. */
typedef enum llmmem_value_type {
    LLMMEM_TYPE_INT = 1,    /**< an integer within the key's bounds */
    LLMMEM_TYPE_BOOL = 2,   /**< 0 or 1, as text false or true */
    LLMMEM_TYPE_CHOICE = 3, /**< one named value (llmmem_choice_name) */
    LLMMEM_TYPE_REAL = 4,   /**< a fraction, set with *_set_real */
    LLMMEM_TYPE_FLAGS = 5,  /**< a set of named bits, as text "q,v" */
    LLMMEM_TYPE_LIST = 6    /**< a list of at most 16 non-negative numbers, as text "3,1" (llmmem_strategy_get_list) */
} llmmem_value_type;

/** Model families: choices of LLMMEM_KEY_MODEL_TYPE (Hugging Face names). */
typedef enum llmmem_model_type {
    LLMMEM_MODEL_CUSTOM = 0,       /**< "custom": structure given key by key, or num_parameters alone */
    LLMMEM_MODEL_GPT2 = 1,         /**< "gpt2" */
    LLMMEM_MODEL_OPT = 2,          /**< "opt" */
    LLMMEM_MODEL_BLOOM = 3,        /**< "bloom" */
    LLMMEM_MODEL_GPT_NEOX = 4,     /**< "gpt_neox" (Pythia) */
    LLMMEM_MODEL_FALCON = 5,       /**< "falcon" */
    LLMMEM_MODEL_LLAMA = 6,        /**< "llama" */
    LLMMEM_MODEL_MISTRAL = 7,      /**< "mistral" */
    LLMMEM_MODEL_MIXTRAL = 8,      /**< "mixtral" */
    LLMMEM_MODEL_QWEN2 = 9,        /**< "qwen2" */
    LLMMEM_MODEL_QWEN2_MOE = 10,   /**< "qwen2_moe" */
    LLMMEM_MODEL_QWEN3 = 11,       /**< "qwen3" */
    LLMMEM_MODEL_QWEN3_MOE = 12,   /**< "qwen3_moe" */
    LLMMEM_MODEL_PHI3 = 13,        /**< "phi3" */
    LLMMEM_MODEL_GEMMA = 14,       /**< "gemma" */
    LLMMEM_MODEL_GEMMA2 = 15,      /**< "gemma2" */
    LLMMEM_MODEL_GEMMA3_TEXT = 16, /**< "gemma3_text" */
    LLMMEM_MODEL_DEEPSEEK_V2 = 17, /**< "deepseek_v2" */
    LLMMEM_MODEL_DEEPSEEK_V3 = 18, /**< "deepseek_v3" */
    LLMMEM_MODEL_GRANITE = 19,     /**< "granite" (IBM Granite 3.x dense) */
    LLMMEM_MODEL_SMOLLM3 = 20,     /**< "smollm3" */
    LLMMEM_MODEL_KIMI_K2 = 21,     /**< "kimi_k2" (DeepSeek-V3 modeling, Moonshot's sizes) */
    LLMMEM_MODEL_GPT_OSS = 22,     /**< "gpt_oss" (OpenAI gpt-oss: sinks, biased experts, MXFP4 experts) */
    LLMMEM_MODEL_DEEPSEEK_V32 = 23, /**< "deepseek_v32" (DeepSeek-V3 with the sparse-attention indexer) */
    LLMMEM_MODEL_OLMO2 = 24,       /**< "olmo2" (AI2 OLMo 2: post-norm blocks, q/k norms over all heads) */
    LLMMEM_MODEL_OLMOE = 25,       /**< "olmoe" (AI2 OLMoE: q/k norms over all heads, routed experts) */
    LLMMEM_MODEL_COHERE = 26,      /**< "cohere" (Command R, Aya: one norm, parallel attention and MLP) */
    LLMMEM_MODEL_COHERE2 = 27,     /**< "cohere2" (Command R7B, Command A: cohere with sliding layers) */
    LLMMEM_MODEL_GLM4_MOE = 28,    /**< "glm4_moe" (GLM-4.5, GLM-4.5-Air: sigmoid router, shared expert, dense first layers) */
    LLMMEM_MODEL_MINIMAX_M2 = 29,  /**< "minimax_m2" (MiniMax-M2: q/k norms over all heads, 256 experts) */
    LLMMEM_MODEL_EXAONE4 = 30,     /**< "exaone4" (EXAONE 4.0: post-norm blocks, per-head q/k norms, sliding layers) */
    LLMMEM_MODEL_ERNIE4_5 = 31,    /**< "ernie4_5" (ERNIE 4.5 dense: use_bias on every linear) */
    LLMMEM_MODEL_ERNIE4_5_MOE = 32, /**< "ernie4_5_moe" (ERNIE 4.5 MoE: shared experts, moe_statics correction bias) */
    LLMMEM_MODEL_GLM4 = 33,        /**< "glm4" (GLM-4-0414 dense: four norms per layer, q/k/v biases) */
    LLMMEM_MODEL_QWEN2_5_VL = 34,  /**< "qwen2_5_vl" (Qwen2.5-VL: Qwen2 text model and its ViT) */
    LLMMEM_MODEL_QWEN3_VL = 35,    /**< "qwen3_vl" (Qwen3-VL dense: Qwen3 text model and its ViT) */
    LLMMEM_MODEL_QWEN3_VL_MOE = 36, /**< "qwen3_vl_moe" (Qwen3-VL MoE: Qwen3-MoE text model and its ViT) */
    LLMMEM_MODEL_MISTRAL3 = 37,    /**< "mistral3" (Mistral Small 3.1: a Mistral text model, Pixtral tower, patch merger) */
    LLMMEM_MODEL_MINISTRAL3 = 38,  /**< "ministral3" (Ministral 3 text model; inside mistral3 for Ministral 3, Devstral 2) */
    LLMMEM_MODEL_LLAMA4 = 39,      /**< "llama4" (Llama 4: text_config llama4_text, vision_config llama4_vision_model) */
    LLMMEM_MODEL_MLLAMA = 40,      /**< "mllama" (Llama 3.2 Vision: text layers with cross-attention, mllama_vision_model) */
    LLMMEM_MODEL_LLAMA4_TEXT = 41, /**< "llama4_text" (a Llama 4 text model alone, Llama4ForCausalLM) */
    LLMMEM_MODEL_MAMBA2 = 42,      /**< "mamba2" (Mamba-2 mixers only) */
    LLMMEM_MODEL_NEMOTRON_H = 43,  /**< "nemotron_h" (Mamba-2, attention and MLP layers) */
    LLMMEM_MODEL_QWEN3_NEXT = 44,  /**< "qwen3_next" (Gated DeltaNet and gated attention, MoE) */
    LLMMEM_MODEL_GRANITEMOEHYBRID = 45, /**< "granitemoehybrid" (Granite 4.0-H: Mamba-2 and attention layers, MoE and shared MLP) */
    LLMMEM_MODEL_JAMBA = 46,       /**< "jamba" (Mamba-1 and attention layers, MoE every other layer) */
    LLMMEM_MODEL_FALCON_H1 = 47,   /**< "falcon_h1" (attention and a Mamba-2 mixer side by side in every layer) */
    LLMMEM_MODEL_QWEN3_5 = 48,     /**< "qwen3_5" (Qwen3.5 and 3.6: Gated DeltaNet and gated attention, the Qwen3-VL tower) */
    LLMMEM_MODEL_QWEN3_5_MOE = 49, /**< "qwen3_5_moe" (the same with MoE blocks and a gated shared expert) */
    LLMMEM_MODEL_GEMMA4 = 50,      /**< "gemma4" (Gemma 4: full and sliding layers of their own widths, KV sharing, per-layer embeddings, vision and audio towers) */
    LLMMEM_MODEL_GLM4_MOE_LITE = 51, /**< "glm4_moe_lite" (GLM-4.7-Flash: MLA and DeepSeek-V3's MoE) */
    LLMMEM_MODEL_GLM_MOE_DSA = 52, /**< "glm_moe_dsa" (GLM-5: MLA with DeepSeek sparse attention's indexer, MoE) */
    LLMMEM_MODEL_DEEPSEEK_V4 = 53, /**< "deepseek_v4" (compressed sparse and heavily compressed attention, mHC, hash MoE) */
    LLMMEM_MODEL_KIMI_LINEAR = 54, /**< "kimi_linear" (Kimi Delta Attention and MLA layers, MoE) */
    LLMMEM_MODEL_NEMOTRON_NAS = 55, /**< "nemotron-nas" (Llama-Nemotron Super and Ultra: per-layer blocks of their own widths) */
    LLMMEM_MODEL_OLMO3 = 56,       /**< "olmo3" (OLMo 2's layers, 3 sliding-window layers to 1 full) */
    LLMMEM_MODEL_APERTUS = 57,     /**< "apertus" (a two-matrix MLP with the learned xIELU activation, q/k norms) */
    LLMMEM_MODEL_LFM2 = 58,        /**< "lfm2" (LFM2: gated short-convolution and attention layers) */
    LLMMEM_MODEL_MIMO_V2_FLASH = 59, /**< "mimo_v2_flash" (MiMo-V2-Flash: sliding and full layers of their own KV heads, sinks, narrower values) */
    LLMMEM_MODEL_HUNYUAN_V1_DENSE = 60, /**< "hunyuan_v1_dense" (Hunyuan dense: Llama with q/k norms over a head) */
    LLMMEM_MODEL_HUNYUAN_V1_MOE = 61, /**< "hunyuan_v1_moe" (Hunyuan-A13B: experts beside a shared MLP, an fp32 router) */
    LLMMEM_MODEL_PHI4FLASH = 62, /**< "phi4flash" (Phi-4-mini-flash: SambaY, Mamba-1 and sliding layers, one full layer whose keys and values the last layers read, gated memory units) */
    LLMMEM_MODEL_STEP3P5 = 63,     /**< "step3p5" (Step-3.5-Flash: sliding layers of more query heads than the full ones, a head-wise attention gate, experts beside a shared expert) */
    LLMMEM_MODEL_KIMI_K25 = 64,    /**< "kimi_k25" (Kimi-K2.5: a Kimi K2 text model, the MoonViT vision tower and its patch-merger projector) */
    LLMMEM_MODEL_EXAONE4_5 = 65,   /**< "exaone4_5" (EXAONE 4.5: an EXAONE 4 text model, a Qwen2.5-VL-style vision tower with grouped key/value heads and its merger) */
    LLMMEM_MODEL_LAGUNA = 66,      /**< "laguna" (poolside Laguna: full and sliding layers of their own query heads, a softplus head-wise output gate, sigmoid-routed experts beside a shared expert) */
    LLMMEM_MODEL_MINIMAX_M3_VL = 67, /**< "minimax_m3_vl" (MiniMax-M3: GQA with a lightning indexer on its sparse layers, sigmoid-routed experts beside a shared expert, a CLIP-style Conv3d vision tower and two projector MLPs) */
    LLMMEM_MODEL_KIMI_K3 = 68      /**< "kimi_k3" (Kimi K3: a Kimi-Linear-style text model of KDA and NoPE MLA layers with AttnRes residual banks and a latent MoE, the MoonViT tower of qkv_hidden_size and its PatchMergerV2 projector) */
} llmmem_model_type;

/** Speculative decoding of a served model: choices of LLMMEM_KEY_SPECULATIVE_METHOD. */
typedef enum llmmem_speculative_method {
    LLMMEM_SPECULATIVE_NONE = 0, /**< "none" */
    LLMMEM_SPECULATIVE_MTP = 1   /**< "mtp": the checkpoint's multi-token-prediction modules draft */
} llmmem_speculative_method;

/** What a quantized checkpoint's format reaches: choices of LLMMEM_KEY_QUANTIZED_MODULES. */
typedef enum llmmem_quantized_modules {
    LLMMEM_QUANTIZED_LINEAR = 0,  /**< "linear": every linear layer but the embedding, LM head and routers */
    LLMMEM_QUANTIZED_EXPERTS = 1  /**< "experts": routed experts alone (gpt-oss MXFP4: attention stays 16-bit) */
} llmmem_quantized_modules;

/** Scope of the q/k norms' weights: choices of LLMMEM_KEY_QK_NORM_TYPE (MiniMax-M2's qk_norm_type names). */
typedef enum llmmem_qk_norm_type {
    LLMMEM_QK_NORM_PER_HEAD = 0, /**< one head_dim weight shared by every head (Qwen3, Gemma 3) */
    LLMMEM_QK_NORM_PER_LAYER = 1 /**< weights over all heads: heads x head_dim for q, kv_heads x head_dim for k (OLMo 2) */
} llmmem_qk_norm_type;

/** Norm kinds: choices of LLMMEM_KEY_NORM_TYPE. */
typedef enum llmmem_norm_type {
    LLMMEM_NORM_LAYERNORM = 0, /**< weight and bias */
    LLMMEM_NORM_RMSNORM = 1    /**< weight only */
} llmmem_norm_type;

/** Storage formats: data types and quantization formats (choices of format keys). */
typedef enum llmmem_format {
    LLMMEM_FORMAT_AUTO = 0,      /**< the model's torch_dtype */
    LLMMEM_FORMAT_FP32 = 1,      /**< 4 bytes */
    LLMMEM_FORMAT_FP16 = 2,      /**< 2 bytes */
    LLMMEM_FORMAT_BF16 = 3,      /**< 2 bytes */
    LLMMEM_FORMAT_FP8_E4M3 = 4,  /**< 1 byte + one fp32 scale per tensor */
    LLMMEM_FORMAT_FP8_E5M2 = 5,  /**< 1 byte + one fp32 scale per tensor */
    LLMMEM_FORMAT_INT8 = 6,      /**< 1 byte, no scales */
    LLMMEM_FORMAT_INT4 = 7,      /**< 4 bits, no scales */
    LLMMEM_FORMAT_BNB_INT8 = 8,  /**< bitsandbytes LLM.int8: int8 + fp32 scale per row */
    LLMMEM_FORMAT_BNB_NF4 = 9,   /**< bitsandbytes NF4 (blocksize, double quant: strategy keys) */
    LLMMEM_FORMAT_BNB_FP4 = 10,  /**< bitsandbytes FP4 */
    LLMMEM_FORMAT_GPTQ_INT4 = 11,/**< GPTQ 4-bit: packed int32, fp16 scales, packed zeros, g_idx */
    LLMMEM_FORMAT_AWQ_INT4 = 12, /**< AWQ 4-bit GEMM: packed int32, fp16 scales, packed zeros */
    LLMMEM_FORMAT_MXFP4 = 13,    /**< OCP MX: 32 x E2M1 + E8M0 scale */
    LLMMEM_FORMAT_NVFP4 = 14,    /**< 16 x E2M1 + E4M3 scale, fp32 tensor scale */
    LLMMEM_FORMAT_Q4_0 = 15,     /**< GGUF block formats (ggml-common.h) */
    LLMMEM_FORMAT_Q4_1 = 16,     /**< 20 bytes per 32 weights */
    LLMMEM_FORMAT_Q5_0 = 17,     /**< 22 bytes per 32 weights */
    LLMMEM_FORMAT_Q5_1 = 18,     /**< 24 bytes per 32 weights */
    LLMMEM_FORMAT_Q8_0 = 19,     /**< 34 bytes per 32 weights */
    LLMMEM_FORMAT_Q2_K = 20,     /**< 84 bytes per 256 weights */
    LLMMEM_FORMAT_Q3_K = 21,     /**< 110 bytes per 256 weights */
    LLMMEM_FORMAT_Q4_K = 22,     /**< 144 bytes per 256 weights */
    LLMMEM_FORMAT_Q5_K = 23,     /**< 176 bytes per 256 weights */
    LLMMEM_FORMAT_Q6_K = 24,     /**< 210 bytes per 256 weights */
    LLMMEM_FORMAT_FP8_BLOCK = 25, /**< fp8 e4m3 + fp32 scale per 128 x 128 block (DeepSeek-V3) */
    LLMMEM_FORMAT_FP8_CHANNEL = 26, /**< fp8 e4m3 + fp32 scale per output row (compressed-tensors channel) */
    LLMMEM_FORMAT_INT8_CHANNEL = 27, /**< int8 + fp32 scale per output row (compressed-tensors w8a8) */
    LLMMEM_FORMAT_CT_INT4 = 28   /**< compressed-tensors pack-quantized 4-bit: 8 per int32, 16-bit scale per group, shape */
} llmmem_format;

/** What runs: choices of LLMMEM_KEY_MODE. */
typedef enum llmmem_mode {
    LLMMEM_MODE_INFERENCE = 0,   /**< weights, KV cache and runtime overhead */
    LLMMEM_MODE_TRAINING = 1,    /**< full training or fine-tuning */
    LLMMEM_MODE_LORA = 2,        /**< frozen base, trained LoRA adapters */
    LLMMEM_MODE_QLORA = 3        /**< frozen 4-bit base (NF4), trained LoRA adapters */
} llmmem_mode;

/** Precision conventions: choices of LLMMEM_KEY_PRECISION_RECIPE (bytes per trained parameter). */
typedef enum llmmem_precision_recipe {
    LLMMEM_RECIPE_MEGATRON = 0,  /**< bf16 params, fp32 main grads, fp32 master and Adam: 18 */
    LLMMEM_RECIPE_ZERO = 1,      /**< fp16 params and grads, fp32 master and Adam (K = 12): 16 */
    LLMMEM_RECIPE_DEEPSPEED = 2, /**< fp16 params and grads, fp32 grad copy, master and Adam: 20 */
    LLMMEM_RECIPE_PURE_BF16 = 3, /**< bf16 params, grads and Adam states, no master: 8 */
    LLMMEM_RECIPE_FP32 = 4,      /**< fp32 params, grads and Adam, no master: 16 */
    LLMMEM_RECIPE_CUSTOM = 5     /**< every term from its own key */
} llmmem_precision_recipe;

/** Optimizers: choices of LLMMEM_KEY_OPTIMIZER. */
typedef enum llmmem_optimizer {
    LLMMEM_OPTIMIZER_ADAMW = 0,        /**< exp_avg and exp_avg_sq per parameter */
    LLMMEM_OPTIMIZER_ADAM = 1,         /**< exp_avg and exp_avg_sq per parameter */
    LLMMEM_OPTIMIZER_ADAMW_8BIT = 2,   /**< bitsandbytes block-wise 8-bit states */
    LLMMEM_OPTIMIZER_ADAFACTOR = 3,    /**< factored second moment (rows + cols) for matrices; beta1 adds a first */
    LLMMEM_OPTIMIZER_SGD = 4,          /**< no state */
    LLMMEM_OPTIMIZER_SGD_MOMENTUM = 5, /**< one momentum buffer per parameter */
    LLMMEM_OPTIMIZER_LION = 6,         /**< one momentum (exp_avg) per parameter */
    LLMMEM_OPTIMIZER_MUON = 7          /**< momentum for hidden matrices, AdamW for the rest */
} llmmem_optimizer;

/** LoRA target modules: bits of LLMMEM_KEY_LORA_TARGETS. */
typedef enum llmmem_lora_target {
    LLMMEM_LORA_TARGET_Q = 1 << 0,      /**< q_proj */
    LLMMEM_LORA_TARGET_K = 1 << 1,      /**< k_proj */
    LLMMEM_LORA_TARGET_V = 1 << 2,      /**< v_proj */
    LLMMEM_LORA_TARGET_O = 1 << 3,      /**< o_proj */
    LLMMEM_LORA_TARGET_GATE = 1 << 4,   /**< gate_proj */
    LLMMEM_LORA_TARGET_UP = 1 << 5,     /**< up_proj */
    LLMMEM_LORA_TARGET_DOWN = 1 << 6,   /**< down_proj */
    LLMMEM_LORA_TARGET_EXPERTS = 1 << 7 /**< gate/up/down also on routed experts */
} llmmem_lora_target;

/** Activation recomputation: choices of LLMMEM_KEY_RECOMPUTE. */
typedef enum llmmem_recompute {
    LLMMEM_RECOMPUTE_NONE = 0,       /**< every layer keeps every tensor its backward needs */
    LLMMEM_RECOMPUTE_SELECTIVE = 1,  /**< the attention core is recomputed (Korthikanti et al. 2022 §5) */
    LLMMEM_RECOMPUTE_FULL = 2,       /**< checkpointed layers keep their input; see recompute_method */
    LLMMEM_RECOMPUTE_OFFLOAD = 3     /**< full recomputation with the kept inputs in host memory */
} llmmem_recompute;

/** How full recomputation picks layers: choices of LLMMEM_KEY_RECOMPUTE_METHOD (Megatron-LM). */
typedef enum llmmem_recompute_method {
    LLMMEM_RECOMPUTE_UNIFORM = 0,    /**< chunks of recompute_num_layers layers, each keeps its input */
    LLMMEM_RECOMPUTE_BLOCK = 1       /**< the first recompute_num_layers layers recompute, the rest keep all */
} llmmem_recompute_method;

/** The loss: choices of LLMMEM_KEY_CROSS_ENTROPY. */
typedef enum llmmem_cross_entropy {
    LLMMEM_CROSS_ENTROPY_STANDARD = 0, /**< logits materialized, softmax saved for backward */
    LLMMEM_CROSS_ENTROPY_FUSED = 1,    /**< fused kernel: the logits' gradient written over the logits */
    LLMMEM_CROSS_ENTROPY_CHUNKED = 2   /**< fused LM head and loss over chunks of tokens (Liger) */
} llmmem_cross_entropy;

/** Whose semantics the `auto` framework keys take: choices of LLMMEM_KEY_FRAMEWORK. */
typedef enum llmmem_framework {
    LLMMEM_FRAMEWORK_MEGATRON = 0,   /**< Megatron-LM (and Korthikanti et al.'s accounting): fused attention
                                          per flash_attention, norms keep their input, fused Adam, a
                                          persistent gradient buffer */
    LLMMEM_FRAMEWORK_HF_TRAINER = 1, /**< transformers' Trainer on PyTorch 2.x: SDPA, eager norms, foreach
                                          AdamW, gradients set to None between steps */
    LLMMEM_FRAMEWORK_DEEPSPEED = 2,  /**< a transformers model under DeepSpeed: SDPA, eager norms,
                                          DeepSpeed FusedAdam, gradients held by the engine */
    LLMMEM_FRAMEWORK_FSDP2 = 3,      /**< torchtune on FSDP2: SDPA, eager norms, fused AdamW, set_to_none */
    LLMMEM_FRAMEWORK_VLLM = 4        /**< vLLM: inference only (FlashAttention) */
} llmmem_framework;

/** Attention implementations: choices of LLMMEM_KEY_ATTN_IMPLEMENTATION. */
typedef enum llmmem_attn_implementation {
    LLMMEM_ATTN_AUTO = 0,              /**< the framework's (megatron: fused when flash_attention, else core) */
    LLMMEM_ATTN_EAGER = 1,             /**< transformers eager: fp32 softmax and its cast, repeat_kv copies */
    LLMMEM_ATTN_SDPA = 2,              /**< torch SDPA (flash backend): q, k, v, output, fp32 log-sum-exp */
    LLMMEM_ATTN_FLASH_ATTENTION_2 = 3, /**< flash-attn 2: q, k, v, output, fp32 log-sum-exp */
    LLMMEM_ATTN_FUSED = 4,             /**< Megatron/Transformer Engine fused core attention */
    LLMMEM_ATTN_CORE = 5               /**< Megatron's unfused core attention (Korthikanti et al. 2022 §4.1) */
} llmmem_attn_implementation;

/** What a norm saves: choices of LLMMEM_KEY_NORM_IMPLEMENTATION. */
typedef enum llmmem_norm_implementation {
    LLMMEM_NORM_IMPL_AUTO = 0,   /**< the framework's */
    LLMMEM_NORM_IMPL_INPUT = 1,  /**< its input alone (Korthikanti et al. 2022) */
    LLMMEM_NORM_IMPL_EAGER = 2,  /**< transformers' RMSNorm op by op: fp32 input, row rsqrt, the normalized value */
    LLMMEM_NORM_IMPL_FUSED = 3   /**< a kernel: its input and fp32 row statistics */
} llmmem_norm_implementation;

/** Optimizer step implementations: choices of LLMMEM_KEY_OPTIMIZER_IMPLEMENTATION. */
typedef enum llmmem_optimizer_implementation {
    LLMMEM_OPTIMIZER_IMPL_AUTO = 0,     /**< the framework's */
    LLMMEM_OPTIMIZER_IMPL_FOREACH = 1,  /**< torch._foreach_* over every parameter: whole-model temporaries */
    LLMMEM_OPTIMIZER_IMPL_FUSED = 2,    /**< one kernel per step: no temporaries */
    LLMMEM_OPTIMIZER_IMPL_FOR_LOOP = 3  /**< parameter by parameter: temporaries of the largest tensor */
} llmmem_optimizer_implementation;

/** When gradients exist: choices of LLMMEM_KEY_GRADIENT_ALLOCATION. */
typedef enum llmmem_gradient_allocation {
    LLMMEM_GRADIENTS_AUTO = 0,       /**< the framework's */
    LLMMEM_GRADIENTS_LAZY = 1,       /**< set to None after the step, born in backward (zero_grad(set_to_none=True)) */
    LLMMEM_GRADIENTS_PERSISTENT = 2  /**< held through the step (Megatron's buffer, DDP buckets, set_to_none=False) */
} llmmem_gradient_allocation;

/** PyTorch semantics that changed: choices of LLMMEM_KEY_PYTORCH_VERSION. */
typedef enum llmmem_pytorch_version {
    LLMMEM_PYTORCH_2 = 0,    /**< 2.x: mean saves sizes alone, foreach AdamW keeps one temporary */
    LLMMEM_PYTORCH_1_13 = 1  /**< 1.13: mean saves its input, foreach AdamW keeps two, no SDPA */
} llmmem_pytorch_version;

/** transformers semantics that changed: choices of LLMMEM_KEY_TRANSFORMERS_VERSION. */
typedef enum llmmem_transformers_version {
    LLMMEM_TRANSFORMERS_5 = 0, /**< 5.x: MoE experts resolve to grouped_mm (experts_implementation auto) */
    LLMMEM_TRANSFORMERS_4 = 1  /**< 4.46 to 4.57: experts run their class's own forward */
} llmmem_transformers_version;

/** Hugging Face generate's KV cache: choices of LLMMEM_KEY_CACHE_IMPLEMENTATION. */
typedef enum llmmem_cache_implementation {
    LLMMEM_CACHE_AUTO = 0,      /**< the framework's (transformers: dynamic; megatron: the contiguous cache alone) */
    LLMMEM_CACHE_DYNAMIC = 1,   /**< DynamicCache: grown by torch.cat every step, old and new coexist */
    LLMMEM_CACHE_STATIC = 2,    /**< StaticCache: prompt + max_new_tokens - 1 slots at the first update */
    LLMMEM_CACHE_OFFLOADED = 3  /**< a dynamic cache offloaded to the host: two layers on the device */
} llmmem_cache_implementation;
/** Whose rules an estimate of serving or local inference follows: choices of LLMMEM_KEY_ENGINE. */
typedef enum llmmem_engine {
    LLMMEM_ENGINE_AUTO = 0,      /**< vLLM for llmmem_serving_estimate, llama.cpp for llmmem_local_estimate */
    LLMMEM_ENGINE_VLLM = 1,      /**< "vllm": paged KV blocks (llmmem_serving_estimate) */
    LLMMEM_ENGINE_LLAMA_CPP = 2, /**< "llama.cpp": llama-server / llama-cli buffers (llmmem_local_estimate) */
    LLMMEM_ENGINE_OLLAMA = 3,    /**< "ollama": llama.cpp's buffers under ollama's defaults and scheduler */
    LLMMEM_ENGINE_SGLANG = 4,    /**< "sglang": SGLang's KV pool from mem_fraction_static (llmmem_serving_estimate) */
    LLMMEM_ENGINE_TRTLLM = 5     /**< "trtllm": TensorRT-LLM's KV cache manager (llmmem_serving_estimate) */
} llmmem_engine;
/** Engine releases whose start-up rules differ: choices of LLMMEM_KEY_ENGINE_VERSION. */
typedef enum llmmem_engine_version {
    LLMMEM_ENGINE_VERSION_LATEST = 0,     /**< "latest": each engine's newest rules libllmmem models */
    LLMMEM_ENGINE_VERSION_VLLM_0_20 = 1,  /**< "vllm-0.20": vLLM through 0.20: utilization 0.9, CUDA graphs outside the budget */
    LLMMEM_ENGINE_VERSION_VLLM_0_21 = 2,  /**< "vllm-0.21": 0.21 on: utilization 0.92, graph estimate subtracted, two-line capacity log */
    LLMMEM_ENGINE_VERSION_SGLANG_0_4 = 3  /**< "sglang-0.4": SGLang 0.4.x: max_running_requests logged with the padding slot */
} llmmem_engine_version;
/** TensorRT-LLM's executors: choices of LLMMEM_KEY_TRTLLM_BACKEND. */
typedef enum llmmem_trtllm_backend {
    LLMMEM_TRTLLM_PYTORCH = 0, /**< "pytorch": the LLM API / trtllm-serve default since 1.0 (KvCacheCreator profiles a dummy batch) */
    LLMMEM_TRTLLM_ENGINE = 1   /**< "engine": a trtllm-build engine: the fraction of what is free once it is loaded */
} llmmem_trtllm_backend;
/** llama.cpp KV cache types (-ctk, -ctv): choices of LLMMEM_KEY_CACHE_TYPE_K and _V. */
typedef enum llmmem_ggml_cache_type {
    LLMMEM_GGML_F16 = 0,    /**< "f16": 2 bytes (llama.cpp's default) */
    LLMMEM_GGML_F32 = 1,    /**< "f32": 4 bytes */
    LLMMEM_GGML_BF16 = 2,   /**< "bf16": 2 bytes */
    LLMMEM_GGML_Q8_0 = 3,   /**< "q8_0": 34 bytes per 32 */
    LLMMEM_GGML_Q4_0 = 4,   /**< "q4_0": 18 bytes per 32 */
    LLMMEM_GGML_Q4_1 = 5,   /**< "q4_1": 20 bytes per 32 */
    LLMMEM_GGML_IQ4_NL = 6, /**< "iq4_nl": 18 bytes per 32 */
    LLMMEM_GGML_Q5_0 = 7,   /**< "q5_0": 22 bytes per 32 */
    LLMMEM_GGML_Q5_1 = 8    /**< "q5_1": 24 bytes per 32 */
} llmmem_ggml_cache_type;
/** How llama.cpp spreads a model over several GPUs (-sm): choices of LLMMEM_KEY_SPLIT_MODE. */
typedef enum llmmem_split_mode {
    LLMMEM_SPLIT_MODE_NONE = 0,  /**< "none": every offloaded layer on main_gpu */
    LLMMEM_SPLIT_MODE_LAYER = 1, /**< "layer": whole layers per GPU, by tensor_split (llama.cpp's default) */
    LLMMEM_SPLIT_MODE_ROW = 2,   /**< "row": deprecated by llama.cpp (docs/multi-gpu.md), refused: use tensor */
    LLMMEM_SPLIT_MODE_TENSOR = 3 /**< "tensor": weights and KV cache split across the GPUs (llama.cpp's meta device) */
} llmmem_split_mode;
/** ATen kernels that differ by device: choices of LLMMEM_KEY_DEVICE_KERNELS. */
typedef enum llmmem_device_kernels {
    LLMMEM_KERNELS_CUDA = 0, /**< native_dropout's 1-byte mask, layer_norm's fp32 mean and rstd */
    LLMMEM_KERNELS_CPU = 1   /**< dropout's mask and layer_norm's mean and rstd in the input's dtype */
} llmmem_device_kernels;

/** How the MLP's activation runs: choices of LLMMEM_KEY_ACTIVATION_IMPLEMENTATION. */
typedef enum llmmem_activation_implementation {
    LLMMEM_ACT_IMPL_AUTO = 0,  /**< the framework's */
    LLMMEM_ACT_IMPL_EAGER = 1, /**< as the model's code writes it (GPT-2's gelu_new: tanh formula op by op) */
    LLMMEM_ACT_IMPL_FUSED = 2  /**< one kernel that saves its input (F.gelu, Megatron-LM bias_gelu) */
} llmmem_activation_implementation;
/** How routed experts run: choices of LLMMEM_KEY_EXPERTS_IMPLEMENTATION. */
typedef enum llmmem_experts_implementation {
    LLMMEM_EXPERTS_AUTO = 0,    /**< the framework's */
    LLMMEM_EXPERTS_EAGER = 1,   /**< transformers' eager loop: per-expert token gathers and index_add_ */
    LLMMEM_EXPERTS_GROUPED = 2  /**< permuted tokens into grouped GEMMs (Megatron-LM's dispatcher and GroupedMLP) */
} llmmem_experts_implementation;

/** Mixed precision by torch.autocast: choices of LLMMEM_KEY_AUTOCAST. */
typedef enum llmmem_autocast {
    LLMMEM_AUTOCAST_OFF = 0,  /**< ops compute in the weights' format */
    LLMMEM_AUTOCAST_BF16 = 1, /**< torch.autocast(dtype=torch.bfloat16): transformers Trainer bf16=True */
    LLMMEM_AUTOCAST_FP16 = 2  /**< torch.autocast(dtype=torch.float16): Trainer fp16=True */
} llmmem_autocast;

/** Pipeline schedules: choices of LLMMEM_KEY_PIPELINE_SCHEDULE. */
typedef enum llmmem_pipeline_schedule {
    LLMMEM_SCHEDULE_1F1B = 0,         /**< PipeDream-Flush: stage i holds p - i micro-batches */
    LLMMEM_SCHEDULE_INTERLEAVED = 1,  /**< Megatron-LM interleaved 1F1B over virtual_pipeline chunks */
    LLMMEM_SCHEDULE_GPIPE = 2         /**< all micro-batches forward, then all backward */
} llmmem_pipeline_schedule;

/** FSDP sharding strategies: choices of LLMMEM_KEY_FSDP (torch.distributed.fsdp.ShardingStrategy). */
typedef enum llmmem_fsdp {
    LLMMEM_FSDP_NONE = 0,          /**< no FSDP */
    LLMMEM_FSDP_FULL_SHARD = 1,    /**< parameters, gradients and optimizer states sharded */
    LLMMEM_FSDP_SHARD_GRAD_OP = 2, /**< gradients and optimizer states sharded, parameters kept whole */
    LLMMEM_FSDP_HYBRID_SHARD = 3,  /**< full shard inside a node, replicas across nodes */
    LLMMEM_FSDP_NO_SHARD = 4       /**< every rank keeps everything (as DDP) */
} llmmem_fsdp;

/** Where offloaded state lives: choices of LLMMEM_KEY_OFFLOAD_OPTIMIZER and _PARAM. */
typedef enum llmmem_offload {
    LLMMEM_OFFLOAD_NONE = 0, /**< on the device */
    LLMMEM_OFFLOAD_CPU = 1,  /**< host memory */
    LLMMEM_OFFLOAD_NVME = 2  /**< NVMe (ZeRO-Infinity) */
} llmmem_offload;

/** What each process builds on the host at start-up: choices of LLMMEM_KEY_HOST_INIT. */
typedef enum llmmem_host_init {
    LLMMEM_HOST_INIT_NONE = 0,      /**< nothing counted */
    LLMMEM_HOST_INIT_ZERO_INIT = 1, /**< deepspeed.zero.Init: the largest module in fp32 */
    LLMMEM_HOST_INIT_FULL = 2       /**< the whole model in fp32 */
} llmmem_host_init;

/** Data-parallel shardings the planner tries: bits of LLMMEM_KEY_PLAN_SHARDINGS. */
typedef enum llmmem_plan_sharding {
    LLMMEM_PLAN_SHARD_NONE = 1 << 0,                 /**< no sharding */
    LLMMEM_PLAN_SHARD_ZERO1 = 1 << 1,                /**< ZeRO stage 1 */
    LLMMEM_PLAN_SHARD_ZERO2 = 1 << 2,                /**< ZeRO stage 2 */
    LLMMEM_PLAN_SHARD_ZERO3 = 1 << 3,                /**< ZeRO stage 3 */
    LLMMEM_PLAN_SHARD_FSDP = 1 << 4,                 /**< fsdp full_shard */
    LLMMEM_PLAN_SHARD_DISTRIBUTED_OPTIMIZER = 1 << 5 /**< Megatron's distributed optimizer */
} llmmem_plan_sharding;

/** Recomputation modes the planner tries: bits of LLMMEM_KEY_PLAN_RECOMPUTE. */
typedef enum llmmem_plan_recompute {
    LLMMEM_PLAN_RECOMPUTE_NONE = 1 << 0,      /**< recompute none */
    LLMMEM_PLAN_RECOMPUTE_SELECTIVE = 1 << 1, /**< recompute selective */
    LLMMEM_PLAN_RECOMPUTE_FULL = 1 << 2       /**< recompute full */
} llmmem_plan_recompute;

/** The runtime a device is driven by: choices of LLMMEM_KEY_BACKEND. */
typedef enum llmmem_backend {
    LLMMEM_BACKEND_CUDA = 0,   /**< "cuda": NVIDIA's CUDA (its context is the default runtime_overhead_bytes) */
    LLMMEM_BACKEND_ROCM = 1,   /**< "rocm": AMD's ROCm/HIP */
    LLMMEM_BACKEND_METAL = 2,  /**< "metal": Apple's Metal */
    LLMMEM_BACKEND_VULKAN = 3, /**< "vulkan": Vulkan compute (llama.cpp's ggml-vulkan) */
    LLMMEM_BACKEND_CPU = 4     /**< "cpu": no accelerator; the device is the host */
} llmmem_backend;

/** Number of keys; with llmmem_key_at, lists every key. */
LLMMEM_API size_t llmmem_key_count(void);
/** The index-th key (0 <= index < llmmem_key_count()), or LLMMEM_KEY_NONE. */
LLMMEM_API llmmem_key llmmem_key_at(size_t index);
/** Name of a key ("tensor_parallel"), or NULL for an unknown key. */
LLMMEM_API const char *llmmem_key_name(llmmem_key key);
/** One line saying what the key means, or NULL for an unknown key. */
LLMMEM_API const char *llmmem_key_doc(llmmem_key key);
/** The key named `name` ("tensor_parallel"); LLMMEM_ERR_UNKNOWN_KEY for no such name. */
LLMMEM_API llmmem_status llmmem_key_from_name(llmmem_key *key_out, const char *name);
/** The handle a key belongs to (model, hardware or strategy); LLMMEM_ERR_UNKNOWN_KEY for an unknown key. */
LLMMEM_API llmmem_status llmmem_key_object(llmmem_object *object_out, llmmem_key key);
/** How a key's value is set (int, bool, choice, real, flags); LLMMEM_ERR_UNKNOWN_KEY for an unknown key. */
LLMMEM_API llmmem_status llmmem_key_type(llmmem_value_type *type_out, llmmem_key key);
/** Inclusive bounds of an integer, bool or choice key. */
LLMMEM_API llmmem_status llmmem_key_bounds(int64_t *min_out, int64_t *max_out, llmmem_key key);
/** Inclusive bounds of a real key. */
LLMMEM_API llmmem_status llmmem_key_bounds_real(double *min_out, double *max_out, llmmem_key key);
/** Default of an integer, bool or choice key (0 may mean "derived", see the key's doc). */
LLMMEM_API llmmem_status llmmem_key_default(int64_t *value_out, llmmem_key key);
/** Default of a real key (LLMMEM_TYPE_REAL). */
LLMMEM_API llmmem_status llmmem_key_default_real(double *value_out, llmmem_key key);
/** Value of a named choice of a choice key ("bf16", "training"); also "true"/"false" for bools,
 * and a comma-separated list of bit names for flags keys ("q,k,v,o"). */
LLMMEM_API llmmem_status llmmem_choice_from_name(int64_t *value_out, llmmem_key key, const char *name);
/**
 * Reads an integer as every key reads one: `[+-]digits[.digits][e[+-]digits][unit]`, where the
 * unit is K, M, G, T, P, KB ... EB (powers of 1000) or KiB ... EiB (powers of 1024); "7e9",
 * "1.5e9" and "80GiB" are whole numbers, "1.5" is not. ASCII only, no spaces, the same in every
 * locale, at most 256 characters. LLMMEM_ERR_OUT_OF_RANGE for a whole number beyond int64,
 * LLMMEM_ERR_INVALID_ARGUMENT for anything else that is not a whole number; the message quotes
 * the text.
 */
LLMMEM_API llmmem_status llmmem_parse_int(int64_t *value_out, const char *text);
/** Name of a choice value, or NULL if the key has no such choice; for a flags key, the name of
 * a single bit (value 1, 2, 4, ...). */
LLMMEM_API const char *llmmem_choice_name(llmmem_key key, int64_t value);

/* ------------------------------------------------------------------------ */
/* Model                                                                     */
/* ------------------------------------------------------------------------ */

/** A model's architecture (opaque): a preset, a config.json, a GGUF header, or keys set one by one. */
typedef struct llmmem_model llmmem_model;

/** Parameter groups of a model's inventory (counts and JSON keys). */
typedef enum llmmem_param_group {
    LLMMEM_PARAMS_EMBEDDING = 0,      /**< token embedding */
    LLMMEM_PARAMS_POSITIONS = 1,      /**< learned position table */
    LLMMEM_PARAMS_ATTENTION = 2,      /**< q, k, v and o projections and their biases (MLA: its low-rank projections) */
    LLMMEM_PARAMS_MLP = 3,            /**< dense MLPs */
    LLMMEM_PARAMS_EXPERTS = 4,        /**< routed experts */
    LLMMEM_PARAMS_SHARED_EXPERTS = 5, /**< always-active shared experts */
    LLMMEM_PARAMS_ROUTER = 6,         /**< MoE routers */
    LLMMEM_PARAMS_NORMS = 7,          /**< every norm: per layer, final, q/k, embedding */
    LLMMEM_PARAMS_LM_HEAD = 8,        /**< 0 when tied to the embedding */
    LLMMEM_PARAMS_OTHER = 9,          /**< a model given by num_parameters alone, without shapes */
    LLMMEM_PARAMS_VISION = 10,        /**< vision (and audio) towers and their multimodal projectors */
    LLMMEM_PARAMS_SSM = 11            /**< token mixers that keep a state: Mamba-2, Gated DeltaNet */
} llmmem_param_group;

/** Number of parameter groups; groups are numbered 0 to count - 1. */
LLMMEM_API size_t llmmem_param_group_count(void);
/** "embedding", "positions", "attention", "mlp", "experts", ... or NULL. */
LLMMEM_API const char *llmmem_param_group_name(llmmem_param_group group);

/** A model with no settings (model_type "custom"). */
LLMMEM_API llmmem_status llmmem_model_new(llmmem_model **out);
/** A model from the catalog ("llama-3.1-70b"); see llmmem_model_preset_name. */
LLMMEM_API llmmem_status llmmem_model_from_preset(llmmem_model **out, const char *name);
/** An independent copy of a model, with its settings and any checkpoint bytes it uses. */
LLMMEM_API llmmem_status llmmem_model_clone(llmmem_model **out, const llmmem_model *model);
/** Frees a model (NULL is fine). */
LLMMEM_API void llmmem_model_free(llmmem_model *model);
/** Set a model key (1000+) to an integer, 0/1 or choice value; out of bounds is LLMMEM_ERR_OUT_OF_RANGE. */
LLMMEM_API llmmem_status llmmem_model_set_int(llmmem_model *model, llmmem_key key, int64_t value);
/** Effective value: the one set, else the family's, else the key's default. */
LLMMEM_API llmmem_status llmmem_model_get_int(int64_t *value_out, const llmmem_model *model, llmmem_key key);
/** Set any key by name from text: a number, a choice name, true/false. */
LLMMEM_API llmmem_status llmmem_model_set_text(llmmem_model *model, const char *key_name, const char *value);
/**
 * Each decoder layer's token mixer, as Hugging Face's `layer_types`: a comma-separated list of
 * `full_attention` (or `attention`), `sliding_attention`, `linear_attention` (a Gated DeltaNet
 * mixer, the linear_* keys) and `mamba` (a Mamba-2 mixer, the mamba_* keys), one per layer (at
 * most 4096), for models whose layers follow no period (sliding_window_pattern and
 * full_attention_interval describe the periodic ones); every layer keeps the feed-forward the keys
 * give. Sliding layers keep sliding_window tokens of cache; the list must have num_hidden_layers
 * entries by the time the model is estimated (LLMMEM_ERR_INCOMPATIBLE otherwise). An empty text
 * removes the list. LLMMEM_ERR_NOT_FOUND names an unknown entry and its index.
 */
LLMMEM_API llmmem_status llmmem_model_set_layer_types(llmmem_model *model, const char *layer_types);
/**
 * The model's name: the preset it came from; the path a config.json, safetensors checkpoint or GGUF
 * file was read from, as given (llmmem_model_from_hf_config, llmmem_checkpoint_model); the config's
 * _name_or_path for a config read from memory (llmmem_model_from_hf_config_text); "" for a model
 * built key by key. Valid UTF-8 of at most 127 bytes: any other byte is '?', and a longer path keeps
 * its end after "...".
 */
LLMMEM_API const char *llmmem_model_name(const llmmem_model *model);
/** Exact parameters in one group. Fails if the model's settings are incomplete. */
LLMMEM_API llmmem_status llmmem_model_parameters(uint64_t *count_out, const llmmem_model *model,
                                                 llmmem_param_group group);
/** Exact parameters of the whole model: the sum over the groups. Fails if the settings are incomplete. */
LLMMEM_API llmmem_status llmmem_model_total_parameters(uint64_t *count_out, const llmmem_model *model);
/** Parameters used for one token: all but the routed experts not chosen. */
LLMMEM_API llmmem_status llmmem_model_active_parameters(uint64_t *count_out, const llmmem_model *model);
/**
 * Parameters the model's checkpoint stores: the model's (llmmem_model_total_parameters, what
 * transformers instantiates) and its num_nextn_predict_layers multi-token-prediction modules, each
 * a decoder layer of the kind of the last one (step3p5's: a sliding layer with a dense MLP), two
 * input norms, a 2 x hidden_size -> hidden_size projection, an output norm, and an embedding and
 * LM head where mtp_embedding and mtp_lm_head say
 * the checkpoint keeps its own copies. Equal to the total for a model without MTP modules.
 */
LLMMEM_API llmmem_status llmmem_model_checkpoint_parameters(uint64_t *count_out, const llmmem_model *model);
/**
 * A model from a Hugging Face config.json (a file, or a folder holding one). Fields take the
 * keys of the same name (GPT-2's n_embd, Falcon's num_kv_heads and the like are mapped). The
 * shape fields of a top-level config are required (transformers always writes them); inside
 * text_config and vision_config (Gemma 3, LLaVA) a missing field takes its transformers config
 * class default. quantization_config (GPTQ, AWQ, bitsandbytes, fp8, MXFP4) sets the checkpoint's
 * format; a config without torch_dtype is fp32. An unknown model_type, a missing field, a field
 * of the wrong type, or one that would change the count in a way not modelled is an error
 * naming it (LLMMEM_ERR_INCOMPLETE, LLMMEM_ERR_PARSE, LLMMEM_ERR_UNSUPPORTED). A path that is
 * not a regular file (a named pipe, a device) is LLMMEM_ERR_IO at once, never a blocking open; a
 * config of more than 4 MiB or 100,000 JSON values and keys is LLMMEM_ERR_PARSE.
 */
LLMMEM_API llmmem_status llmmem_model_from_hf_config(llmmem_model **out, const char *path);
/** The same from the text of a config.json (len bytes, not necessarily NUL-terminated). */
LLMMEM_API llmmem_status llmmem_model_from_hf_config_text(llmmem_model **out, const char *json, size_t len);
/** Number of model presets; with llmmem_model_preset_name, lists the catalog. */
LLMMEM_API size_t llmmem_model_preset_count(void);
/** Name of the index-th model preset, or NULL past the end. */
LLMMEM_API const char *llmmem_model_preset_name(size_t index);

/* ------------------------------------------------------------------------ */
/* Hardware                                                                  */
/* ------------------------------------------------------------------------ */

/** A device and its node (opaque): memory, devices per node, nodes, runtime overhead, bandwidths. */
typedef struct llmmem_hardware llmmem_hardware;

/** A device with no memory set; set LLMMEM_KEY_MEMORY_BYTES before estimating. */
LLMMEM_API llmmem_status llmmem_hardware_new(llmmem_hardware **out);
/** A device from the catalog ("h100-sxm-80gb"); see llmmem_hardware_preset_name. */
LLMMEM_API llmmem_status llmmem_hardware_from_preset(llmmem_hardware **out, const char *name);
/** An independent copy of a hardware description. */
LLMMEM_API llmmem_status llmmem_hardware_clone(llmmem_hardware **out, const llmmem_hardware *hw);
/** Frees a hardware description (NULL is fine). */
LLMMEM_API void llmmem_hardware_free(llmmem_hardware *hw);
/** Set a hardware key (2000+) to an integer value; out of bounds is LLMMEM_ERR_OUT_OF_RANGE. */
LLMMEM_API llmmem_status llmmem_hardware_set_int(llmmem_hardware *hw, llmmem_key key, int64_t value);
/** Value of an integer hardware key: the one set, else the preset's, else the key's default. */
LLMMEM_API llmmem_status llmmem_hardware_get_int(int64_t *value_out, const llmmem_hardware *hw, llmmem_key key);
/** Set a real hardware key (a fraction: allocator_reserve_fraction); NaN or out of bounds fails. */
LLMMEM_API llmmem_status llmmem_hardware_set_real(llmmem_hardware *hw, llmmem_key key, double value);
/** Value of a real hardware key. */
LLMMEM_API llmmem_status llmmem_hardware_get_real(double *value_out, const llmmem_hardware *hw, llmmem_key key);
/** Set any hardware key by name from text: a number with an optional unit ("80GiB"), or a fraction. */
LLMMEM_API llmmem_status llmmem_hardware_set_text(llmmem_hardware *hw, const char *key_name, const char *value);
/** Preset name the hardware came from, or "" for one built key by key. */
LLMMEM_API const char *llmmem_hardware_name(const llmmem_hardware *hw);
/** Number of GPU presets; with llmmem_hardware_preset_name, lists the catalog. */
LLMMEM_API size_t llmmem_hardware_preset_count(void);
/** Name of the index-th GPU preset ("h100-sxm-80gb"), or NULL past the end. */
LLMMEM_API const char *llmmem_hardware_preset_name(size_t index);

/* ------------------------------------------------------------------------ */
/* Strategy                                                                  */
/* ------------------------------------------------------------------------ */

/** What runs and how (opaque): mode, batch and sequence, formats, optimizer, parallel layout, serving. */
typedef struct llmmem_strategy llmmem_strategy;

/** Single-device inference in the model's own dtype. */
LLMMEM_API llmmem_status llmmem_strategy_new(llmmem_strategy **out);
/** An independent copy of a strategy. */
LLMMEM_API llmmem_status llmmem_strategy_clone(llmmem_strategy **out, const llmmem_strategy *s);
/** Frees a strategy (NULL is fine). */
LLMMEM_API void llmmem_strategy_free(llmmem_strategy *s);
/** Set a strategy key (3000+) to an integer, 0/1, choice or flags value; out of bounds is LLMMEM_ERR_OUT_OF_RANGE. */
LLMMEM_API llmmem_status llmmem_strategy_set_int(llmmem_strategy *s, llmmem_key key, int64_t value);
/** Value of an integer, bool, choice or flags strategy key: the one set, else the key's default. */
LLMMEM_API llmmem_status llmmem_strategy_get_int(int64_t *value_out, const llmmem_strategy *s, llmmem_key key);
/** Set a real strategy key (a fraction: gpu_memory_utilization); NaN or out of bounds fails. */
LLMMEM_API llmmem_status llmmem_strategy_set_real(llmmem_strategy *s, llmmem_key key, double value);
/** Value of a real strategy key. */
LLMMEM_API llmmem_status llmmem_strategy_get_real(double *value_out, const llmmem_strategy *s, llmmem_key key);
/** Set any strategy key by name from text: a number, a choice name, true/false, or flags ("q,v"). */
LLMMEM_API llmmem_status llmmem_strategy_set_text(llmmem_strategy *s, const char *key_name, const char *value);
/**
 * Values of a list key (LLMMEM_TYPE_LIST, such as tensor_split): writes at most `capacity` of them to
 * `values_out` (which may be NULL when capacity is 0) and their number to `count_out` (0: not set).
 */
LLMMEM_API llmmem_status llmmem_strategy_get_list(double *values_out, size_t capacity, size_t *count_out,
                                                  const llmmem_strategy *s, llmmem_key key);
/** Sets a list key from `count` finite non-negative values, at least one of them positive (count 0 clears it). */
LLMMEM_API llmmem_status llmmem_strategy_set_list(llmmem_strategy *s, llmmem_key key, const double *values,
                                                  size_t count);

/* ------------------------------------------------------------------------ */
/* Formats                                                                   */
/* ------------------------------------------------------------------------ */

/**
 * Bytes of one rows x cols weight matrix stored in a format, by whole blocks,
 * scales and zero points included. Blocks and groups run along cols (the
 * input dimension); a partial last block costs a whole block. group_size is
 * used by GPTQ/AWQ (and bitsandbytes 4-bit as its block size); pass 0 for the
 * format's default. double_quant applies to bitsandbytes NF4/FP4.
 * LLMMEM_FORMAT_AUTO is not a storage format and is rejected.
 */
LLMMEM_API llmmem_status llmmem_format_tensor_bytes(uint64_t *bytes_out, llmmem_format format,
                                                    uint64_t rows, uint64_t cols,
                                                    uint64_t group_size, int double_quant);

/* ------------------------------------------------------------------------ */
/* Checkpoints                                                               */
/* ------------------------------------------------------------------------ */

/** A checkpoint's headers (opaque): every stored tensor's name, dtype, elements and bytes, never its data. */
typedef struct llmmem_checkpoint llmmem_checkpoint;

/** What a stored tensor is. Values are pinned. */
typedef enum llmmem_tensor_role {
    LLMMEM_TENSOR_PARAMETER = 0, /**< a model parameter, counted in a parameter group */
    LLMMEM_TENSOR_BUFFER = 1,    /**< not a parameter: rotary inv_freq, causal masks, position_ids */
    LLMMEM_TENSOR_DUPLICATE = 2, /**< a second copy of a parameter (a tied LM head stored again) */
    LLMMEM_TENSOR_QUANT_AUX = 3  /**< quantization data beside a weight: scales, zeros, g_idx, absmax */
} llmmem_tensor_role;

/**
 * Reads a safetensors checkpoint: a .safetensors file, a *.index.json (a sharded checkpoint's
 * index, with its shards in the same folder), or a folder holding model.safetensors.index.json,
 * else model.safetensors, else exactly one *.safetensors file. The config.json of the folder
 * (the folder given, or the one holding the file or index given), if present, is read too: its
 * tie_word_embeddings (top level, else text_config), when true and both the embedding and the LM
 * head are stored, marks the head DUPLICATE; and the model it describes is the checkpoint's
 * (llmmem_checkpoint_model), named by `path`. A config.json that describes no model does not fail
 * the read (llmmem_checkpoint_model reports why); one that is not JSON, or whose
 * tie_word_embeddings is not a boolean, does.
 * Only the 8-byte header length and the JSON header of each file are read, never tensor data;
 * the file's size must still equal 8 + header + the data the header describes.
 * Fails with LLMMEM_ERR_IO (cannot open or read), LLMMEM_ERR_PARSE (malformed header or index),
 * LLMMEM_ERR_NOT_FOUND (a folder without a checkpoint), LLMMEM_ERR_OVERFLOW; the message names
 * the file and the tensor or field at fault. On failure *out is NULL. Limits: a header of at most
 * 100,000,000 bytes (the safetensors crate's MAX_HEADER_SIZE), 1024 JSON values in one tensor's
 * entry, 65,536 shard files in an index (LLMMEM_ERR_UNSUPPORTED past that); a path that is not a
 * regular file is LLMMEM_ERR_IO.
 */
LLMMEM_API llmmem_status llmmem_checkpoint_from_safetensors(llmmem_checkpoint **out, const char *path);
/**
 * One safetensors header from memory: the 8-byte little-endian length N, then N bytes of JSON.
 * Tensor data may follow or be absent (it is not checked). Messages name the file "<memory>".
 */
LLMMEM_API llmmem_status llmmem_checkpoint_from_safetensors_bytes(llmmem_checkpoint **out, const void *data,
                                                                  size_t size);
/** Frees a checkpoint (NULL is fine). */
LLMMEM_API void llmmem_checkpoint_free(llmmem_checkpoint *ck);

/** Number of stored tensors (0 for NULL). */
LLMMEM_API size_t llmmem_checkpoint_tensor_count(const llmmem_checkpoint *ck);
/**
 * The index-th tensor, in file order (shards in index order): its name (valid while ck lives),
 * dtype name ("BF16", "I32", ...), stored elements (the product of its shape), stored bytes,
 * role and parameter group. Any output may be NULL. LLMMEM_ERR_OUT_OF_RANGE past the end.
 * A packed quantized weight (GPTQ/AWQ .qweight or compressed-tensors .weight_packed in I32/U32,
 * MXFP4 *_blocks in U8) reports its stored elements here; the parameter counts below count
 * what it unpacks to (8 per 32-bit word, 2 per byte).
 */
LLMMEM_API llmmem_status llmmem_checkpoint_tensor(const char **name_out, const char **dtype_out,
                                                  uint64_t *elements_out, uint64_t *bytes_out,
                                                  llmmem_tensor_role *role_out, llmmem_param_group *group_out,
                                                  const llmmem_checkpoint *ck, size_t index);
/** Bytes of every stored tensor (the data section of all files). */
LLMMEM_API uint64_t llmmem_checkpoint_total_bytes(const llmmem_checkpoint *ck);
/** Bytes of the tensors of one role. The four roles sum to the total. */
LLMMEM_API uint64_t llmmem_checkpoint_role_bytes(const llmmem_checkpoint *ck, llmmem_tensor_role role);
/** Elements of the tensors of one role; for PARAMETER and DUPLICATE, packed weights count unpacked. */
LLMMEM_API uint64_t llmmem_checkpoint_role_elements(const llmmem_checkpoint *ck, llmmem_tensor_role role);
/** Parameters (PARAMETER elements, packed weights unpacked) in one group; they sum to role_elements(PARAMETER). */
LLMMEM_API uint64_t llmmem_checkpoint_group_parameters(const llmmem_checkpoint *ck, llmmem_param_group group);
/** Bytes of one group: its PARAMETER and QUANT_AUX tensors. */
LLMMEM_API uint64_t llmmem_checkpoint_group_bytes(const llmmem_checkpoint *ck, llmmem_param_group group);
/** Number of distinct dtypes stored. */
LLMMEM_API size_t llmmem_checkpoint_dtype_count(const llmmem_checkpoint *ck);
/** The index-th dtype (in order of first appearance) with its stored elements and bytes. Outputs may be NULL. */
LLMMEM_API llmmem_status llmmem_checkpoint_dtype(const char **dtype_out, uint64_t *elements_out, uint64_t *bytes_out,
                                                 const llmmem_checkpoint *ck, size_t index);
/**
 * Cross-checks a checkpoint against a model's inventory: in every parameter group the
 * checkpoint's parameters must equal llmmem_model_parameters. A model given by num_parameters
 * alone is compared on the total. On a mismatch returns LLMMEM_ERR_INCOMPATIBLE with a message
 * naming each group that differs and both counts (truncated to the message size); fails with the
 * model's own status if its settings are incomplete.
 */
LLMMEM_API llmmem_status llmmem_checkpoint_verify(const llmmem_checkpoint *ck, const llmmem_model *model);

/** A GGUF file's header: metadata and tensor infos with their ggml types (exact bytes for
 * mixed files such as Q4_K_M), never the tensor data; but the file must be long enough to hold
 * it (LLMMEM_ERR_PARSE naming the first tensor whose data lies past the end, as llama.cpp's
 * loader checks). A path that is not a regular file is LLMMEM_ERR_IO. */
LLMMEM_API llmmem_status llmmem_checkpoint_from_gguf(llmmem_checkpoint **out, const char *path);
/** The same from memory (the start of a GGUF file). */
LLMMEM_API llmmem_status llmmem_checkpoint_from_gguf_bytes(llmmem_checkpoint **out, const void *data, size_t size);
/** A new model from the checkpoint's own description: a GGUF file's metadata (llama, qwen2, qwen3,
 * qwen3moe, phi3, gemma2 architectures), a safetensors checkpoint's config.json (read with it),
 * named by the path the checkpoint was read from; an error naming what is missing otherwise
 * (LLMMEM_ERR_INCOMPLETE for a safetensors checkpoint with no config.json beside it, the config's
 * own error for one that describes no model). Free with llmmem_model_free. */
LLMMEM_API llmmem_status llmmem_checkpoint_model(llmmem_model **out, const llmmem_checkpoint *ck);

/**
 * Make the model's weight bytes those a checkpoint stores (its parameters and quantization data,
 * per group): exact for mixed-format files. Used while the strategy's weight_format is auto; any
 * later setting of the model detaches it. Call llmmem_checkpoint_verify to cross-check shapes.
 */
LLMMEM_API llmmem_status llmmem_model_use_checkpoint(llmmem_model *model, const llmmem_checkpoint *ck);

/* ------------------------------------------------------------------------ */
/* Report and estimate                                                       */
/* ------------------------------------------------------------------------ */

/** The result of llmmem_estimate (opaque): bytes per component and stage, capacity, fits. Made once, reused. */
typedef struct llmmem_report llmmem_report;

/** Memory components of a device. Names are the JSON keys. */
typedef enum llmmem_component {
    LLMMEM_COMPONENT_WEIGHTS = 0,          /**< the model's weights on the device */
    LLMMEM_COMPONENT_GRADIENTS = 1,        /**< gradients of the trained parameters */
    LLMMEM_COMPONENT_MASTER_WEIGHTS = 2,   /**< higher-precision copy of the trained parameters */
    LLMMEM_COMPONENT_OPTIMIZER_STATES = 3, /**< optimizer states (Adam's two moments, ...) */
    LLMMEM_COMPONENT_ACTIVATIONS = 4,      /**< tensors saved for backward, and recomputation's working set */
    LLMMEM_COMPONENT_LOGITS = 5,           /**< the loss: logits and what its backward adds */
    LLMMEM_COMPONENT_KV_CACHE = 6,         /**< keys and values of the cached tokens (inference) */
    LLMMEM_COMPONENT_COMM_BUFFERS = 7,     /**< data-parallel buffers: gradient buckets, gathered units */
    LLMMEM_COMPONENT_RUNTIME_OVERHEAD = 8, /**< CUDA context and workspaces (runtime_overhead_bytes) */
    LLMMEM_COMPONENT_OPTIMIZER_TEMPORARIES = 9, /**< what the optimizer step allocates while it runs */
    LLMMEM_COMPONENT_WORKSPACES = 10       /**< library workspaces PyTorch's allocator holds: cuBLAS's, one per
                                                thread that runs matmuls (cublas_workspace_bytes each) */
} llmmem_component;

/** Number of components; components are numbered 0 to count - 1. */
LLMMEM_API size_t llmmem_component_count(void);
/** "weights", "gradients", ... or NULL. */
LLMMEM_API const char *llmmem_component_name(llmmem_component component);

/** An empty report (valid() == 0), to be filled by llmmem_estimate as often as needed. */
LLMMEM_API llmmem_status llmmem_report_new(llmmem_report **out);
/** An independent copy of a report, with its estimate. */
LLMMEM_API llmmem_status llmmem_report_clone(llmmem_report **out, const llmmem_report *report);
/** Frees a report (NULL is fine). */
LLMMEM_API void llmmem_report_free(llmmem_report *report);

/**
 * Estimate the memory of the most loaded device. Fills `out`, which the
 * caller made once and may reuse: no allocation, no I/O. On failure the
 * report is left empty (valid() == 0) and the message names the fault.
 */
LLMMEM_API llmmem_status llmmem_estimate(llmmem_report *out, const llmmem_model *model,
                                         const llmmem_hardware *hw, const llmmem_strategy *strategy);

/** 1 if the report holds a successful estimate. */
LLMMEM_API int llmmem_report_valid(const llmmem_report *report);
/** Bytes of one component on the most loaded device (0 for an unknown component). */
LLMMEM_API uint64_t llmmem_report_bytes(const llmmem_report *report, llmmem_component component);
/** Sum of all components. */
LLMMEM_API uint64_t llmmem_report_total_bytes(const llmmem_report *report);
/** Memory of one device usable by the job: memory_bytes less the allocator reserve. */
LLMMEM_API uint64_t llmmem_report_capacity_bytes(const llmmem_report *report);
/** 1 if total <= capacity, and offloaded bytes fit the node's host memory and NVMe where the
 * hardware states them (host_memory_bytes, nvme_bytes; 0 = not checked). */
LLMMEM_API int llmmem_report_fits(const llmmem_report *report);
/**
 * Whether the job runs, as PyTorch's CUDA caching allocator serves it: the estimate, then the job's
 * allocation tape (every tensor its framework allocates and frees, in order: the model built, two
 * training steps or the whole generate call) replayed through a model of the allocator
 * (c10/cuda/CUDACachingAllocator.cpp: pools, rounding, best fit, splitting, segments, freeing the
 * cache and retrying before an out-of-memory error, expandable segments and the other
 * PYTORCH_CUDA_ALLOC_CONF keys) under the device's capacity: what CUDA reports as its total
 * (cuda_total_bytes, else memory_bytes) less the memory outside the allocator (the
 * runtime_overhead component). The report then holds the allocator's allocated and reserved peaks
 * and llmmem_report_fits() says whether the job runs. Modelled for transformers on PyTorch 2.x on
 * one CUDA device (framework hf_trainer: training, LoRA and generate of the Llama, Mistral, Qwen2,
 * Qwen3, Gemma 2, Gemma 3 and GPT-2 families); any other job fails with LLMMEM_ERR_UNSUPPORTED
 * naming what is not modelled, and the report keeps the estimate. Allocates and takes
 * milliseconds: not for a planner's inner loop.
 */
LLMMEM_API llmmem_status llmmem_estimate_runs(llmmem_report *out, const llmmem_model *model,
                                              const llmmem_hardware *hw, const llmmem_strategy *strategy);
/** After llmmem_estimate_runs: 1 when the job runs, 0 when it runs out of memory; -1 when the report
 * comes from llmmem_estimate (not replayed). */
LLMMEM_API int llmmem_report_runs(const llmmem_report *report);
/** After llmmem_estimate_runs: the allocator's reserved peak (the segments it holds from the device)
 * and its allocated peak (the blocks handed out, at their rounded sizes); 0 otherwise. Without
 * expandable segments the job is replayed twice, with the CUDA driver placing each new segment below
 * the last (as it mostly does) and above it: of two equal free blocks the allocator takes the lower,
 * so the placement can decide whether a later request fits in a free one. These are the higher
 * reserved peak and its allocated peak; the job runs (llmmem_report_runs) when it runs under both. */
LLMMEM_API uint64_t llmmem_report_reserved_bytes(const llmmem_report *report);
/** After llmmem_estimate_runs: the allocated peak of the placement llmmem_report_reserved_bytes
 * gives (blocks at their rounded sizes); 0 otherwise. */
LLMMEM_API uint64_t llmmem_report_allocated_bytes(const llmmem_report *report);
/** After llmmem_estimate_runs: the lower of the two placements' reserved peaks (equal to
 * llmmem_report_reserved_bytes when the placement does not matter, or with expandable segments). */
LLMMEM_API uint64_t llmmem_report_reserved_low_bytes(const llmmem_report *report);
/** After llmmem_estimate_runs: why reserved exceeds allocated: the bytes of the segments' free blocks
 * when the reserved peak was reached (cached blocks the request that grew it could not use); 0
 * otherwise. */
LLMMEM_API uint64_t llmmem_report_reserved_free_bytes(const llmmem_report *report);
/** After llmmem_estimate_runs of a generate job: the tokens each replayed decode step stood for (1:
 * every step replayed; a longer generation replays at most 64 decode steps, the last always); 0 for a
 * job without a generate loop, or not replayed. */
LLMMEM_API uint64_t llmmem_report_decode_stride(const llmmem_report *report);
/** After llmmem_estimate_runs of a job that runs out of memory: the request that failed, in bytes
 * (its moment: llmmem_report_oom_after, "step 2, layer 15's forward", a text that lives as long as
 * the report's estimate); 0 otherwise. */
LLMMEM_API uint64_t llmmem_report_oom_request_bytes(const llmmem_report *report);
/** The moment llmmem_report_oom_request_bytes's request followed, in words; NULL otherwise. */
LLMMEM_API const char *llmmem_report_oom_after(const llmmem_report *report);
/** The device's total as CUDA reports it, which the reserved peak and the memory outside the
 * allocator share: cuda_total_bytes, else driver_total_bytes, else memory_bytes (a memory_bytes
 * below the others wins: another card, a cap). */
LLMMEM_API uint64_t llmmem_report_device_total_bytes(const llmmem_report *report);
/** After llmmem_estimate_runs of a job that runs out of memory with expandable_segments off: 1 when
 * it runs with expandable_segments:True, 0 when it does not either; -1 otherwise. */
LLMMEM_API int llmmem_report_runs_expandable(const llmmem_report *report);

/** Exact parameters of a group, as counted for this estimate. */
LLMMEM_API uint64_t llmmem_report_parameters(const llmmem_report *report, llmmem_param_group group);
/** Exact parameters of the whole model, as counted for this estimate. */
LLMMEM_API uint64_t llmmem_report_total_parameters(const llmmem_report *report);
/** Parameters used for one token (all but the routed experts not chosen), as counted for this estimate. */
LLMMEM_API uint64_t llmmem_report_active_parameters(const llmmem_report *report);
/** Parameters that get gradients: unfrozen ones in mode training, the adapters' in lora and qlora
 * (0 for inference). */
LLMMEM_API uint64_t llmmem_report_trainable_parameters(const llmmem_report *report);

/**
 * The training peak. A training step's memory is highest at one of its moments, and the report's
 * components are the bytes alive at the highest (llmmem_report_peak_phase names it; the timeline
 * below gives every moment):
 *   - the loss's forward: the static state, the activations every layer saved, the loss's saved
 *     tensors and what its forward holds beside them (the logits' fp32 copy, log-softmax).
 *   - the loss's backward: the same with what its backward (or a chunked loss's current chunk)
 *     adds instead. Components: activations = held, logits = logits_held + logits_transient.
 *   - a decoder layer's backward (the stage's highest, any of its layers: with lazily allocated
 *     gradients it may be inside the stage, where the layer kinds change): the saved tensors of the
 *     layers below it, what recomputation rebuilds and the layer's backward working set; with
 *     lazily allocated gradients (framework hf_trainer, fsdp2) only those born so far.
 *   - the optimizer step: every gradient and the step's temporaries (optimizer_temporaries).
 * Under framework=megatron (persistent gradient buffers, fused kernels) these reduce to
 * Korthikanti's two: the loss and the recomputation of the largest chunk. Activation gradients of
 * a single op and allocator rounding are not counted.
 */
typedef enum llmmem_peak_part {
    LLMMEM_PEAK_ACTIVATIONS_HELD = 0,   /**< saved activations on the device when the forward ends */
    LLMMEM_PEAK_RECOMPUTE = 1,          /**< largest working set recomputation rebuilds in backward */
    LLMMEM_PEAK_LOGITS_HELD = 2,        /**< the loss's saved tensors when the forward ends */
    LLMMEM_PEAK_LOGITS_TRANSIENT = 3,   /**< what the loss's backward (or current chunk) adds */
    LLMMEM_PEAK_HOST_ACTIVATIONS = 4,   /**< activations offloaded to host memory (recompute=offload) */
    LLMMEM_PEAK_LARGEST_LAYER = 5       /**< one decoder layer's saved bytes without recomputation */
} llmmem_peak_part;

/** Which moment the components describe: choices of llmmem_report_peak_phase. */
typedef enum llmmem_peak_phase {
    LLMMEM_PEAK_PHASE_STATIC = 0,       /**< inference: no training transient */
    LLMMEM_PEAK_PHASE_LOSS = 1,         /**< the loss and its backward */
    LLMMEM_PEAK_PHASE_RECOMPUTE = 2,    /**< recomputing the largest chunk in backward */
    LLMMEM_PEAK_PHASE_FORWARD = 3,      /**< the loss's forward: the logits and their fp32 copies */
    LLMMEM_PEAK_PHASE_BACKWARD = 4,     /**< a decoder layer's backward (its working set, gradients so far) */
    LLMMEM_PEAK_PHASE_OPTIMIZER = 5,    /**< the optimizer step: every gradient and the step's temporaries */
    LLMMEM_PEAK_PHASE_PREFILL = 6,      /**< inference, generate: the prompt's forward (step 0) */
    LLMMEM_PEAK_PHASE_DECODE = 7,       /**< inference, generate: a decode step (one token per sequence) */
    LLMMEM_PEAK_PHASE_LOSS_DONE = 8,    /**< timeline only: the loss computed, its saved tensors alone */
    LLMMEM_PEAK_PHASE_BACKWARD_DONE = 9, /**< timeline only: backward's end, every gradient, no activation */
    LLMMEM_PEAK_PHASE_OPTIMIZER_DONE = 10 /**< timeline only: the optimizer step's end, its temporaries freed */
} llmmem_peak_phase;

/** Bytes of one part of the training peak (0 for an unknown part or an inference report). */
LLMMEM_API uint64_t llmmem_report_peak_part(const llmmem_report *report, llmmem_peak_part part);
/** The moment the components describe (LLMMEM_PEAK_PHASE_STATIC for an invalid report). */
LLMMEM_API llmmem_peak_phase llmmem_report_peak_phase(const llmmem_report *report);
/** The decoder layer of the peak's moment (a layer's backward, the generate loop's prefill or decode),
 * or -1 (another moment, outside the layers, or an invalid report). */
LLMMEM_API int64_t llmmem_report_peak_layer(const llmmem_report *report);
/** A phase's name ("loss", "forward", "backward", ...), NULL for an unknown value. */
LLMMEM_API const char *llmmem_peak_phase_name(llmmem_peak_phase phase);

/**
 * The step as a timeline: the memory of the most loaded device at every moment of one step, at
 * decoder-layer granularity, from the same arithmetic as the estimate (its highest point is the
 * report's total). Training: after each layer's forward, the loss's forward, the loss computed
 * (loss_done), the loss's backward, each layer's backward from the last to the first, backward's end
 * (backward_done), the optimizer step and its end (optimizer_done). Inference as transformers'
 * generate loop: the prefill's moments, then the first and the last decode step's; other
 * inference: the estimate's moment. A stage of more than 4096 layers is sampled (its first and last layers always). Made
 * once, refilled by llmmem_estimate_timeline as often as needed; points are read by index.
 */
typedef struct llmmem_timeline llmmem_timeline;

/** An empty timeline (count 0). */
LLMMEM_API llmmem_status llmmem_timeline_new(llmmem_timeline **out);
/** Free a timeline. NULL is fine. */
LLMMEM_API void llmmem_timeline_free(llmmem_timeline *timeline);
/** Fills the timeline of the job (the same validation and messages as llmmem_estimate). */
LLMMEM_API llmmem_status llmmem_estimate_timeline(llmmem_timeline *out, const llmmem_model *model,
                                                  const llmmem_hardware *hw, const llmmem_strategy *strategy);
/** Points in the timeline (0 when empty or NULL). */
LLMMEM_API size_t llmmem_timeline_count(const llmmem_timeline *timeline);
/** The point's phase (LLMMEM_PEAK_PHASE_STATIC past the end). */
LLMMEM_API llmmem_peak_phase llmmem_timeline_phase(const llmmem_timeline *timeline, size_t index);
/** The decoder layer the point follows or runs, or -1 (the loss, the optimizer; past the end). */
LLMMEM_API int64_t llmmem_timeline_layer(const llmmem_timeline *timeline, size_t index);
/** Bytes of a component alive at the point (0 past the end or for an unknown component). */
LLMMEM_API uint64_t llmmem_timeline_bytes(const llmmem_timeline *timeline, size_t index, llmmem_component component);
/** Bytes alive at the point, every component (0 past the end). */
LLMMEM_API uint64_t llmmem_timeline_total_bytes(const llmmem_timeline *timeline, size_t index);
/** The index of the highest point (its first, on a tie); 0 when empty. */
LLMMEM_API size_t llmmem_timeline_peak_index(const llmmem_timeline *timeline);
/** The pipeline stage the timeline follows (the most loaded). */
LLMMEM_API size_t llmmem_timeline_stage(const llmmem_timeline *timeline);
/** The timeline as JSON: {"stage", "peak_index", "points": [{"phase", "layer", "total", "bytes": {...}}]}. */
LLMMEM_API llmmem_status llmmem_timeline_to_json(char **json_out, const llmmem_timeline *timeline);
/**
 * The job's timeline as PyTorch's CUDA caching allocator serves it (llmmem_estimate_runs's replay,
 * the placement whose reserved peak the report gives): a point after each moment of the allocation
 * tape (the model built: phase static; each layer's forward and recomputation; the loss's forward:
 * phase forward, layer -1; the backward's end: backward, -1; the optimizer step; the generate loop's
 * layers and logits: prefill, decode), for every step it replays (two training steps; up to 64 decode
 * steps, llmmem_timeline_step says which). Each point gives the highest allocated bytes since the
 * previous one by component (the allocator's blocks at their rounded sizes; workspaces and the memory
 * outside the allocator as runtime_overhead) and llmmem_timeline_reserved_bytes the segments reserved
 * then plus the memory outside: what the device holds. At most 4096 points (more moments are merged
 * pairwise, each the higher). Fails like llmmem_estimate_runs (LLMMEM_ERR_UNSUPPORTED for a job the
 * tape does not run); allocates and takes milliseconds.
 */
LLMMEM_API llmmem_status llmmem_estimate_timeline_runs(llmmem_timeline *out, const llmmem_model *model,
                                                       const llmmem_hardware *hw, const llmmem_strategy *strategy);
/** The reserved bytes at a replayed timeline's point (the allocator's segments plus the memory outside
 * it); 0 for llmmem_estimate_timeline's points or past the end. */
LLMMEM_API uint64_t llmmem_timeline_reserved_bytes(const llmmem_timeline *timeline, size_t index);
/** A replayed timeline's step at the point (training: 0 or 1; generate: the token, 0 for the
 * prefill); 0 for llmmem_estimate_timeline's points or past the end. */
LLMMEM_API uint64_t llmmem_timeline_step(const llmmem_timeline *timeline, size_t index);
/** The generate loop's step of a prefill or decode peak (0: the prefill, 1 on: decode steps); 0 for
 * any other phase. Its layer is llmmem_report_peak_layer's. */
LLMMEM_API uint64_t llmmem_report_peak_step(const llmmem_report *report);

/**
 * Pipeline stages. Every device of a stage holds the same bytes (tensor, context, expert and data
 * parallel ranks are balanced); the report's components are those of the most loaded stage's
 * device. Without pipeline parallelism there is one stage.
 */
LLMMEM_API size_t llmmem_report_stage_count(const llmmem_report *report);
/** Bytes of one component on a device of a stage (0 for an unknown stage or component). */
LLMMEM_API uint64_t llmmem_report_stage_bytes(const llmmem_report *report, size_t stage, llmmem_component component);
/** Sum of a stage's components. */
LLMMEM_API uint64_t llmmem_report_stage_total_bytes(const llmmem_report *report, size_t stage);
/** A stage's decoder layers: the first of its first model chunk, and how many it holds. */
LLMMEM_API llmmem_status llmmem_report_stage_layers(uint64_t *first_out, uint64_t *count_out,
                                                    const llmmem_report *report, size_t stage);
/** The stage whose device holds the most (the lowest such index). */
LLMMEM_API size_t llmmem_report_most_loaded_stage(const llmmem_report *report);
/** Host memory per node: offloaded state and activations (offload keys), or the fp32 model the
 * processes build at start-up (host_init) when that is more, times host_buffer_factor. */
LLMMEM_API uint64_t llmmem_report_host_bytes(const llmmem_report *report);
/** NVMe bytes per node taken by offloaded state. */
LLMMEM_API uint64_t llmmem_report_nvme_bytes(const llmmem_report *report);

/** Kinds of traffic: bytes a rank of the most loaded stage sends per training step. */
typedef enum llmmem_comm {
    LLMMEM_COMM_DATA = 0,      /**< gradient reduction and parameter gathering over data parallelism */
    LLMMEM_COMM_TENSOR = 1,    /**< all-reduces (or all-gather + reduce-scatter) inside each layer */
    LLMMEM_COMM_PIPELINE = 2,  /**< activations and their gradients between stages */
    LLMMEM_COMM_EXPERT = 3,    /**< all-to-all dispatch and combine of MoE tokens */
    LLMMEM_COMM_CONTEXT = 4    /**< K and V chunks passed around the context-parallel ring */
} llmmem_comm;

/** Bytes of one kind of traffic per step (0 for inference or an unknown kind). */
LLMMEM_API uint64_t llmmem_report_comm_bytes(const llmmem_report *report, llmmem_comm kind);
/** "data", "tensor", ... or NULL. */
LLMMEM_API const char *llmmem_comm_name(llmmem_comm kind);
/**
 * The report as JSON: {"model", "hardware", "weights_source", "parameters": {groups..., "total",
 * "active"}, "per_device": {components..., "total"}, "training_peak" (training modes), "stages":
 * [{"first_layer", "layers", components..., "total"}], "most_loaded_stage", "host_bytes_per_node",
 * "nvme_bytes_per_node", "comm_bytes_per_step": {"data", ...}, "memory_bytes", "capacity_bytes",
 * "fits"}.
 * Free with llmmem_string_free.
 */
LLMMEM_API llmmem_status llmmem_report_to_json(char **json_out, const llmmem_report *report);

/* ------------------------------------------------------------------------ */
/* Capacity solvers and the layout planner                                   */
/* ------------------------------------------------------------------------ */

/**
 * The largest micro_batch_size for which the estimate fits, every other setting as given. The
 * estimate never shrinks as the micro-batch grows (activations and logits scale with it, the state
 * does not), so an exponential then binary search is exact. *out is 0 when even 1 does not fit.
 */
LLMMEM_API llmmem_status llmmem_solve_max_micro_batch(uint64_t *out, const llmmem_model *model,
                                                      const llmmem_hardware *hw, const llmmem_strategy *strategy);
/**
 * The longest sequence_length that fits (a multiple of context_parallel, at most the model's
 * max_position_embeddings when it states one), 0 if none does, every other setting as given.
 *
 * When the estimate is transformers' generate loop (mode inference under hf_trainer, deepspeed or
 * fsdp2, or with max_new_tokens or cache_implementation set) it is the longest prompt: the loop's
 * peak over the prefill, the decode steps and, with num_beams, beam search's moments, with
 * max_new_tokens, micro_batch_size and num_beams fixed: a prompt of the answer generating
 * max_new_tokens tokens fits, and where memory is what stops it, one token more does not. The
 * prompt also leaves room in max_position_embeddings for the max_new_tokens - 1 new tokens the
 * loop feeds back (the cache ends at prompt + max_new_tokens - 1 tokens). The peak never shrinks as the prompt grows, so the
 * exponential then binary search is exact.
 */
LLMMEM_API llmmem_status llmmem_solve_max_sequence_length(uint64_t *out, const llmmem_model *model,
                                                          const llmmem_hardware *hw, const llmmem_strategy *strategy);
/**
 * The weight format needing the least compression that fits: the first of bf16, fp8_e4m3,
 * bnb_int8, q8_0, gptq_int4, awq_int4, bnb_nf4, q4_k, q3_k, q2_k (most bytes first) for which the
 * estimate fits. LLMMEM_ERR_NOT_FOUND when none does.
 */
LLMMEM_API llmmem_status llmmem_solve_weight_format(llmmem_format *out, const llmmem_model *model,
                                                    const llmmem_hardware *hw, const llmmem_strategy *strategy);

/** The result of a layout search. */
typedef struct llmmem_plan llmmem_plan;

/** The most devices llmmem_plan_run lays out and the fewest-devices searches look up to (2^24). */
#define LLMMEM_PLAN_MAX_DEVICES 16777216
/** The layouts a new plan keeps (llmmem_plan_set_limit). */
#define LLMMEM_PLAN_DEFAULT_LIMIT 1024
/**
 * The work a new plan's run may do (llmmem_plan_set_work_limit), and llmmem_solve_min_devices's
 * search: 2^22 units. Estimating a layout of p pipeline stages costs p + 4 units; each layout,
 * (t, p, c), (t, c) or expert count the enumeration passes costs 1. A unit takes at most about
 * 0.33 us on one core of a 2020s server (measured on estimates of 256 stages with frozen layers,
 * each stage priced on its own, of a model mixing dense and MoE layers: the dearest kind), so a
 * run stops within about 1.5 s. The largest realistic spaces take far less: a 405B or DeepSeek-V3
 * plan on 16,384 devices or a fewest-devices search up to 2^24 devices, at most 2^20.
 */
#define LLMMEM_PLAN_DEFAULT_WORK_LIMIT 4194304

/** An empty plan (no layouts), to be filled by llmmem_plan_run; it keeps LLMMEM_PLAN_DEFAULT_LIMIT
 * layouts and works within LLMMEM_PLAN_DEFAULT_WORK_LIMIT until told otherwise. */
LLMMEM_API llmmem_status llmmem_plan_new(llmmem_plan **out);
/** Frees a plan (NULL is fine). */
LLMMEM_API void llmmem_plan_free(llmmem_plan *plan);
/**
 * The most layouts the plan's next runs keep: the cheapest `max_layouts` (in the order
 * llmmem_plan_run describes, so exactly the first `max_layouts` of the full list); the others
 * are counted (llmmem_plan_fitting) but not kept. 0 keeps every layout that fits, as plans did
 * before they had a limit (memory then grows with their number, which the work limit bounds).
 */
LLMMEM_API llmmem_status llmmem_plan_set_limit(llmmem_plan *plan, size_t max_layouts);
/**
 * The most work a run of this plan may do (1 or more; see LLMMEM_PLAN_DEFAULT_WORK_LIMIT for the
 * unit): a run whose space is larger fails with LLMMEM_ERR_OUT_OF_RANGE, naming the device
 * count and the limit, and leaves the plan empty. A space whose smallest possible work is over the
 * limit is refused before any estimate.
 */
LLMMEM_API llmmem_status llmmem_plan_set_work_limit(llmmem_plan *plan, uint64_t work);
/**
 * Every valid layout of `devices` devices (tensor x pipeline x data x context = devices): tensor,
 * pipeline, virtual pipeline, context and expert parallel sizes, the shardings and recomputation
 * modes of the plan_* keys, and power-of-two micro-batches that divide global_batch_size; counts
 * those that fit and keeps the cheapest (llmmem_plan_set_limit), ordered by cost (lowest first).
 * The cost, in estimated seconds per step, is a ranking proxy, not a prediction: compute (6 FLOPs
 * a parameter a token, 8 with full recomputation, plus the recomputed attention core for
 * selective) over the devices' peak_bf16_flops, stretched by the pipeline bubble
 * (p - 1) / (v m + p - 1), plus the bytes each device sends (llmmem_report_comm_bytes) over
 * intra_node_bandwidth for tensor parallelism and for groups inside a node, over
 * inter_node_bandwidth for groups that span nodes. Ties go to the smaller memory, then to
 * smaller t, p, c, e, v, the sharding and recomputation listed first, and the smaller
 * micro-batch. `devices` is 1 to LLMMEM_PLAN_MAX_DEVICES; a space beyond the plan's work limit is
 * LLMMEM_ERR_OUT_OF_RANGE; plan_shardings and plan_recompute naming no choice, or a model given by
 * num_parameters alone, LLMMEM_ERR_INCOMPATIBLE. Replaces what the plan held; a failed run leaves
 * it empty.
 */
LLMMEM_API llmmem_status llmmem_plan_run(llmmem_plan *plan, const llmmem_model *model, const llmmem_hardware *hw,
                                         const llmmem_strategy *base, uint64_t devices);
/** Layouts the plan holds: the cheapest of those that fit, at most its limit. */
LLMMEM_API size_t llmmem_plan_count(const llmmem_plan *plan);
/** Layouts that fit, kept or not (llmmem_plan_count when the limit kept them all). */
LLMMEM_API uint64_t llmmem_plan_fitting(const llmmem_plan *plan);
/** Layouts estimated (valid ones, fitting or not). */
LLMMEM_API uint64_t llmmem_plan_candidates(const llmmem_plan *plan);
/** The work the plan's last run did, in the units of its work limit (llmmem_plan_min_devices: the
 * search's and the run's); a run refused before any estimate reports what it had priced. */
LLMMEM_API uint64_t llmmem_plan_work(const llmmem_plan *plan);
/** The index-th layout as a new strategy (the base with the layout's keys set); free it. */
LLMMEM_API llmmem_status llmmem_plan_get(llmmem_strategy **out, const llmmem_plan *plan, size_t index);
/** Its cost (estimated seconds per step) and the bytes of its most loaded device. */
LLMMEM_API llmmem_status llmmem_plan_cost(double *seconds_out, uint64_t *bytes_out, const llmmem_plan *plan,
                                          size_t index);
/**
 * The plan as JSON (RFC 8259), ending in a newline: {"model", "hardware" (their names, "" when
 * they have none), "devices" (as run; 0 after llmmem_plan_min_devices found none), "candidates",
 * "fitting", "layouts": [one object a kept layout, cheapest first, with "tensor_parallel",
 * "pipeline_parallel", "data_parallel", "context_parallel", "expert_parallel", "virtual_pipeline",
 * "sharding" (a plan_shardings name), "recompute" (a recompute name), "micro_batch_size" (the values
 * llmmem_plan_get sets), "cost_seconds" (6 significant digits, '.' in every locale) and "bytes"
 * (llmmem_plan_cost)]}. LLMMEM_ERR_INVALID_ARGUMENT for a plan no run has filled (new, or its last
 * run failed). Free with llmmem_string_free.
 */
LLMMEM_API llmmem_status llmmem_plan_to_json(char **json_out, const llmmem_plan *plan);
/**
 * The fewest devices n (1 <= n <= max_devices) on which llmmem_plan_run finds a layout that fits;
 * *out 0 when none up to max_devices does. The answer is the one trying every n in order would
 * give, found without doing so: for each (t, p, c, e, v) the smallest data-parallel size d that
 * fits is searched (the estimate of a layout does not grow with d once d x c >= 2: sharded state
 * and in-flight micro-batches only shrink), and a kind that cannot beat the best n so far is not
 * tried. max_devices is 1 to LLMMEM_PLAN_MAX_DEVICES (LLMMEM_ERR_OUT_OF_RANGE otherwise); a model
 * given by num_parameters alone has no layers to lay out (LLMMEM_ERR_INCOMPATIBLE). The search
 * works within LLMMEM_PLAN_DEFAULT_WORK_LIMIT (LLMMEM_ERR_OUT_OF_RANGE beyond it, naming
 * max_devices and the limit; llmmem_plan_min_devices takes a plan's limit).
 */
LLMMEM_API llmmem_status llmmem_solve_min_devices(uint64_t *out, const llmmem_model *model, const llmmem_hardware *hw,
                                                  const llmmem_strategy *base, uint64_t max_devices);
/**
 * llmmem_solve_min_devices with the search within the plan's work limit; the plan then holds the
 * layouts of the *out devices, as llmmem_plan_run(plan, model, hw, base, *out) leaves it (a run
 * within the same limit; empty when *out is 0 or on failure).
 */
LLMMEM_API llmmem_status llmmem_plan_min_devices(uint64_t *out, llmmem_plan *plan, const llmmem_model *model,
                                                 const llmmem_hardware *hw, const llmmem_strategy *base,
                                                 uint64_t max_devices);

/**
 * The estimate explained, one line per component of the most loaded device: the arithmetic with
 * the numbers substituted (parameters on the rank x bytes a parameter / the sharding divisor, the
 * activations held and rebuilt, the loss, the KV cache per token), each ending in "= N bytes",
 * and the rule it follows in brackets; a last line gives the total. Free with llmmem_string_free.
 */
LLMMEM_API llmmem_status llmmem_explain(char **text_out, const llmmem_model *model, const llmmem_hardware *hw,
                                        const llmmem_strategy *strategy);

/* ------------------------------------------------------------------------ */
/* Serving                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * KV cache and serving capacity, as a serving engine computes them at start-up, from the model
 * description alone. The engine key picks whose rules apply: vLLM (auto; below), SGLang or
 * TensorRT-LLM; engine_version the release (latest by default; vllm-0.20 keeps what libllmmem
 * modelled before 0.21). What follows is vLLM's.
 *
 * The KV cache is paged: a page holds block_size tokens of one layer (2 x kv_heads x head_dim
 * elements per token; an MLA model keeps its kv_lora_rank + qk_rope_head_dim latent, once). Layers
 * of the same kind share a group; full-attention and sliding-window layers form separate groups of
 * equal size (Gemma 2/3). On each rank the budget is
 *     kv_cache_bytes = ceil(memory_bytes x gpu_memory_utilization)
 *                      - weights - activation peak - non-torch memory - CUDA-graph estimate
 * (or kv_cache_memory_bytes when set), gpu_memory_utilization 0.92 unless given (0.9 before 0.21);
 * the graph estimate is cuda_graph_bytes when given, else from 0.21 on a floor (the first graph's
 * forward at the largest capture size, 1 MiB for each other graph; none before 0.21 or with
 * enforce_eager); and num_blocks = kv_cache_bytes / page / layers per group,
 * the smallest over the pipeline stages. The activation peak is modelled from the inventory (one
 * forward over max_num_batched_tokens tokens, and the fp32 logits of max_num_seqs rows); any
 * measured term read from a vLLM log can be given instead (profile_* keys), and then the block
 * count follows vLLM's arithmetic exactly. "GPU KV cache size" is int(concurrency x max_model_len)
 * in the latest release, num_blocks / groups x block_size before; max_model_len -1 is vLLM's
 * "auto", the longest length the blocks hold. Tensor parallelism keeps max(1, kv_heads / t) KV heads
 * per rank; pipeline parallelism splits the layers as vLLM's get_pp_indices does.
 *
 * A serving result is made once (llmmem_serving_new) and refilled by llmmem_serving_estimate
 * without allocation; the question functions read it.
 */

/** KV cache storage: choices of LLMMEM_KEY_KV_CACHE_DTYPE (vLLM's kv_cache_dtype names). */
typedef enum llmmem_kv_cache_dtype {
    LLMMEM_KV_CACHE_AUTO = 0,                /**< the model's dtype (bf16 for a quantized or fp8 checkpoint) */
    LLMMEM_KV_CACHE_FP32 = 1,                /**< 4 bytes */
    LLMMEM_KV_CACHE_FP16 = 2,                /**< 2 bytes */
    LLMMEM_KV_CACHE_BF16 = 3,                /**< 2 bytes */
    LLMMEM_KV_CACHE_FP8 = 4,                 /**< fp8 e4m3; one scale per layer, kept with the layer */
    LLMMEM_KV_CACHE_FP8_E4M3 = 5,            /**< 1 byte */
    LLMMEM_KV_CACHE_FP8_E5M2 = 6,            /**< 1 byte */
    LLMMEM_KV_CACHE_INT8_PER_TOKEN_HEAD = 7, /**< int8 and an fp32 scale per token and head, for K and V */
    LLMMEM_KV_CACHE_FP8_PER_TOKEN_HEAD = 8,  /**< fp8 and an fp32 scale per token and head, for K and V */
    LLMMEM_KV_CACHE_NVFP4 = 9,               /**< 4-bit E2M1 and an fp8 scale per 16 elements */
    LLMMEM_KV_CACHE_FP8_DS_MLA = 10,         /**< MLA only: fp8 latent, fp32 scale per 128, bf16 rope (656 B) */
    LLMMEM_KV_CACHE_INT4_PER_TOKEN_HEAD = 11, /**< int4 packed two a byte and an fp32 scale per token and head, for K and V */
    LLMMEM_KV_CACHE_FP8_INC = 12,            /**< fp8 (Intel Gaudi's INC): 1 byte */
    LLMMEM_KV_CACHE_NVFP4_4OVER6 = 13        /**< nvfp4's layout with max/6 scales: as nvfp4 */
} llmmem_kv_cache_dtype;

/** The numbers of a serving result. Names (llmmem_serving_value_name) are the JSON keys. */
typedef enum llmmem_serving_value {
    LLMMEM_SERVING_MEMORY_BYTES = 0,        /**< memory of one device (hardware memory_bytes) */
    LLMMEM_SERVING_REQUESTED_BYTES = 1,     /**< ceil(memory_bytes x gpu_memory_utilization) */
    LLMMEM_SERVING_WEIGHTS = 2,             /**< weights on the rank that limits the blocks */
    LLMMEM_SERVING_ACTIVATION_PEAK = 3,     /**< the profile run's activation peak on that rank */
    LLMMEM_SERVING_NON_TORCH = 4,           /**< non-torch memory (NCCL, cuBLAS workspaces) */
    LLMMEM_SERVING_CUDA_GRAPH = 5,          /**< CUDA-graph reserve */
    LLMMEM_SERVING_KV_CACHE_BYTES = 6,      /**< memory left for the KV cache on that rank */
    LLMMEM_SERVING_SHORTFALL = 7,           /**< bytes the other terms exceed the requested memory by (0 if they fit) */
    LLMMEM_SERVING_BYTES_PER_TOKEN = 8,     /**< KV bytes of one token, all layers of the most loaded rank */
    LLMMEM_SERVING_PAGE_BYTES = 9,          /**< one block of one layer (vLLM's page_size_bytes) */
    LLMMEM_SERVING_BLOCK_BYTES = 10,        /**< one block of a whole group: page x layers per group */
    LLMMEM_SERVING_NUM_BLOCKS = 11,         /**< blocks in the pool */
    LLMMEM_SERVING_TOKENS = 12,             /**< "GPU KV cache size" (vLLM: int(concurrency x max_model_len), before the
                                              latest release num_blocks / groups x block_size; SGLang
                                              max_total_num_tokens; TensorRT-LLM blocks x tokens_per_block) */
    LLMMEM_SERVING_GROUPS = 13,             /**< KV cache groups */
    LLMMEM_SERVING_LAYERS_PER_GROUP = 14,   /**< layers in each KV cache group on that rank */
    LLMMEM_SERVING_KV_HEADS_PER_RANK = 15,  /**< max(1, num_key_value_heads / tensor_parallel); 1 for MLA */
    LLMMEM_SERVING_LAYERS_PER_STAGE = 16,   /**< decoder layers of the largest pipeline stage */
    LLMMEM_SERVING_BLOCK_SIZE = 17,         /**< tokens per block */
    LLMMEM_SERVING_MAX_NUM_BATCHED_TOKENS = 18, /**< as resolved (vLLM's default when the key is 0) */
    LLMMEM_SERVING_MAX_NUM_SEQS = 19,       /**< as resolved (vLLM's default when the key is 0) */
    LLMMEM_SERVING_MAX_MODEL_LEN_SETTING = 20, /**< max_model_len as resolved */
    LLMMEM_SERVING_MAX_MODEL_LEN = 21,      /**< the longest request the blocks hold (at most the setting) */
    LLMMEM_SERVING_REQUEST_TOKENS = 22,     /**< the request length the next three answer for */
    LLMMEM_SERVING_BLOCKS_PER_REQUEST = 23, /**< blocks one sequence of request_tokens needs */
    LLMMEM_SERVING_WASTE_BYTES = 24,        /**< its bytes held but not filled (last partial blocks) */
    LLMMEM_SERVING_MAX_CONCURRENCY = 25,    /**< requests of request_tokens that fit at once, with n and sharing */
    LLMMEM_SERVING_VLLM_CONCURRENCY_X100 = 26, /**< 100 x "Maximum concurrency for max_model_len tokens" as vLLM logs it */
    LLMMEM_SERVING_FITS = 27,               /**< 1 if one request of max_model_len fits (vLLM starts) */
    LLMMEM_SERVING_MM_MAX_TOKENS_PER_ITEM = 28, /**< encoder embeddings of the largest image (0: no encoder) */
    LLMMEM_SERVING_ENCODER_COMPUTE_BUDGET = 29, /**< embeddings the encoder may produce per step */
    LLMMEM_SERVING_ENCODER_CACHE_SIZE = 30, /**< embeddings the encoder cache holds */
    LLMMEM_SERVING_MM_ITEMS_PER_BATCH = 31, /**< images of the largest size the profile run encodes */
    LLMMEM_SERVING_ENCODER_CACHE_BYTES = 32, /**< bytes of a full encoder cache (encoder_cache_size embeddings) */
    LLMMEM_SERVING_ENCODER_PROFILE_BYTES = 33, /**< the profile run's encoder outputs, held through its forward (in activation_peak) */
    LLMMEM_SERVING_STATE_PAGE_BYTES = 34,   /**< one Mamba-2 / Gated DeltaNet layer's state of one sequence on that rank, unpadded (vLLM MambaSpec) */
    LLMMEM_SERVING_STATE_BYTES_PER_SEQUENCE = 35, /**< the state of one sequence, all such layers of that rank (unpadded) */
    LLMMEM_SERVING_STATE_GROUPS = 36,       /**< KV cache groups of state layers (in LLMMEM_SERVING_GROUPS too) */
    LLMMEM_SERVING_CONCURRENCY_X100 = 37,   /**< 100 x "Maximum concurrency" for request_tokens: num_blocks / blocks_per_request as vLLM logs it for max_model_len (VLLM_CONCURRENCY_X100 when request_tokens is max_model_len) */
    LLMMEM_SERVING_ENGINE = 38,             /**< the engine whose rules the result follows (llmmem_engine) */
    LLMMEM_SERVING_ENGINE_VERSION = 39,     /**< its release (llmmem_engine_version; latest resolved to 0) */
    LLMMEM_SERVING_MEMORY_FRACTION_X10000 = 40, /**< 10000 x the fraction applied: vLLM gpu_memory_utilization, SGLang
                                              mem_fraction_static, TensorRT-LLM free_gpu_memory_fraction */
    LLMMEM_SERVING_FREE_BYTES = 41,         /**< the memory the fraction applies to: vLLM the device's, SGLang free before
                                              the weights, TensorRT-LLM free when its KV cache is sized */
    LLMMEM_SERVING_CUDA_GRAPH_SIZES = 42,   /**< vLLM PIECEWISE graphs captured ("Profiling CUDA graph memory: PIECEWISE=n") */
    LLMMEM_SERVING_CUDA_GRAPH_LARGEST = 43, /**< their largest batch (0: no graphs) */
    LLMMEM_SERVING_FULL_CUDA_GRAPHS = 44,   /**< vLLM FULL decode graphs ("FULL=n") */
    LLMMEM_SERVING_FULL_CUDA_GRAPH_LARGEST = 45, /**< their largest batch */
    LLMMEM_SERVING_EQUIVALENT_FRACTION_X10000 = 46, /**< vLLM: the utilization that gives the same KV without the graph
                                              estimate ("is equivalent to --gpu-memory-utilization=")*/
    LLMMEM_SERVING_CUDA_GRAPH_MAX_BS = 47,  /**< SGLang cuda_graph_max_bs as resolved */
    LLMMEM_SERVING_RESERVED_BYTES = 48,     /**< SGLang: the reserve its default mem_fraction_static leaves (MiB x 2^20) */
    LLMMEM_SERVING_MAMBA_CACHE_SIZE = 49,   /**< SGLang max_mamba_cache_size: sequences the Mamba state pool holds */
    LLMMEM_SERVING_SWA_TOKENS = 50,         /**< SGLang swa_layer_tokens: cells of a sliding-window layer's pool (0: none) */
    LLMMEM_SERVING_MAX_TOKENS = 51,         /**< KV tokens before rounding to pages or blocks (SGLang available // cell,
                                              TensorRT-LLM max_tokens) */
    LLMMEM_SERVING_ESTIMATION_TOKENS = 52,  /**< TensorRT-LLM PyTorch path: tokens of the temporary KV cache of its profile */
    LLMMEM_SERVING_POOL_BYTES = 53,         /**< SGLang and TensorRT-LLM: the KV pool as allocated (SGLang K + V size,
                                              TensorRT-LLM "Allocated X GiB for max tokens in paged KV cache") */
    LLMMEM_SERVING_STATE_POOL_BYTES = 54    /**< SGLang: the Mamba state pool (its padding slot included) */
} llmmem_serving_value;

/** A serving result (opaque): the KV budget, block arithmetic and capacity of one llmmem_serving_estimate. */
typedef struct llmmem_serving llmmem_serving;

/** An empty serving result (valid() == 0), to be filled by llmmem_serving_estimate as often as needed. */
LLMMEM_API llmmem_status llmmem_serving_new(llmmem_serving **out);
/** An independent copy of a serving result, with its estimate. */
LLMMEM_API llmmem_status llmmem_serving_clone(llmmem_serving **out, const llmmem_serving *serving);
/** Frees a serving result (NULL is fine). */
LLMMEM_API void llmmem_serving_free(llmmem_serving *serving);
/**
 * Serving capacity of the model on the hardware with the strategy's serving keys (mode inference).
 * Fills `out` without allocation; on failure `out` holds no estimate and the message names the
 * key and value at fault (heads not divisible by tensor_parallel, max_model_len above the model's
 * max_position_embeddings, a kv_cache_dtype the model cannot use, ...). A budget the weights and
 * activations exceed is not a failure: num_blocks is 0 and LLMMEM_SERVING_SHORTFALL says by how much.
 */
LLMMEM_API llmmem_status llmmem_serving_estimate(llmmem_serving *out, const llmmem_model *model,
                                                 const llmmem_hardware *hw, const llmmem_strategy *strategy);
/** 1 if the result holds a successful estimate. */
LLMMEM_API int llmmem_serving_valid(const llmmem_serving *serving);
/** One number of the result (0 for an invalid result or an unknown value). */
LLMMEM_API uint64_t llmmem_serving_get(const llmmem_serving *serving, llmmem_serving_value value);
/** Number of serving values; values are numbered 0 to count - 1. */
LLMMEM_API size_t llmmem_serving_value_count(void);
/** "num_blocks", "bytes_per_token", ... or NULL. */
LLMMEM_API const char *llmmem_serving_value_name(llmmem_serving_value value);
/**
 * Blocks one sequence of `tokens` tokens needs, summed over the groups (a sliding-window group
 * needs its window, not the whole sequence), and the bytes of them it does not fill. waste may be NULL.
 */
LLMMEM_API llmmem_status llmmem_serving_request_blocks(uint64_t *blocks_out, uint64_t *waste_bytes_out,
                                                       const llmmem_serving *serving, uint64_t tokens);
/** 1 in *fits_out if one request of `tokens` tokens fits: tokens <= max_model_len and its blocks <= num_blocks. */
LLMMEM_API llmmem_status llmmem_serving_fits_request(int *fits_out, const llmmem_serving *serving, uint64_t tokens);
/**
 * Requests of `tokens` tokens each (prompt and output) that fit at once: each request has n
 * sequences sharing the full blocks of its prompt_tokens, and all share the full blocks of
 * shared_prefix_tokens (with enable_prefix_caching). 0 for a request longer than max_model_len.
 */
LLMMEM_API llmmem_status llmmem_serving_max_concurrency(uint64_t *requests_out, const llmmem_serving *serving,
                                                        uint64_t tokens);
/** The longest single request the blocks hold, at most max_model_len (vLLM's estimate_max_model_len). */
LLMMEM_API llmmem_status llmmem_serving_max_model_len(uint64_t *tokens_out, const llmmem_serving *serving);
/**
 * Sequences of `tokens` tokens whose contiguous cache (batch x context, as Hugging Face generate
 * allocates it) fits in the same KV budget on every rank.
 */
LLMMEM_API llmmem_status llmmem_serving_max_batch(uint64_t *sequences_out, const llmmem_serving *serving,
                                                  uint64_t tokens);
/**
 * The result as JSON: {"model", "hardware", "engine", "engine_version", "dtype" (the format the model
 * is served in: the dtype key resolved), "kv_cache_dtype", "tensor_parallel", "pipeline_parallel",
 * then the engine's sections of values by name; vLLM: "budget": {memory_bytes ... shortfall,
 * memory_fraction_x10000}, "kv": {bytes_per_token ... max_concurrency, "vllm_concurrency" (as vLLM
 * logs it, two decimals), fits, "concurrency" (the same for request_tokens), concurrency_x100},
 * "cuda_graphs": {cuda_graph_sizes ... equivalent_fraction_x10000}, "encoder":
 * {mm_max_tokens_per_item ... state_groups}}. Free with llmmem_string_free.
 */
LLMMEM_API llmmem_status llmmem_serving_to_json(char **json_out, const llmmem_serving *serving);

/** Paged KV bytes of one token: every attention layer of the most loaded rank, in the strategy's
 * kv_cache_dtype (auto: the format serving holds the model in, as llmmem_serving_estimate resolves the
 * dtype key); Mamba-2 and Gated DeltaNet layers keep a state per sequence instead, see
 * LLMMEM_SERVING_STATE_BYTES_PER_SEQUENCE. */
LLMMEM_API llmmem_status llmmem_kv_bytes_per_token(uint64_t *bytes_out, const llmmem_model *model,
                                                   const llmmem_strategy *strategy);
/**
 * Bytes of a contiguous KV cache (Hugging Face generate): `sequences` x `tokens_each` tokens, every
 * layer of the model on one device, sliding-window layers capped at the window. An MLA model is
 * cached as transformers does it, with decompressed keys and values per head. Mamba-2 and Gated
 * DeltaNet layers keep a state per sequence instead (transformers' Mamba2Cache, the hybrid caches
 * of Nemotron-H and Qwen3-Next): its conv and SSM or recurrent state are added, and layers without
 * attention cache no tokens.
 */
LLMMEM_API llmmem_status llmmem_kv_cache_bytes(uint64_t *bytes_out, const llmmem_model *model,
                                               const llmmem_strategy *strategy, uint64_t sequences,
                                               uint64_t tokens_each);

/* ------------------------------------------------------------------------ */
/* One job, every engine                                                     */
/* ------------------------------------------------------------------------ */

/*
 * The same model, hardware and strategy under every engine side by side: vLLM, SGLang and
 * TensorRT-LLM (llmmem_serving_estimate with each engine) and llama.cpp and ollama
 * (llmmem_local_estimate). Each row holds the engine's figures for one GPU (a serving rank; for a
 * local engine its most loaded GPU), or the status and message of its refusal: an engine that
 * refuses the job does not make the comparison fail. The strategy's engine key is ignored, and an
 * engine_version applies to its own engine alone. Made once (llmmem_engines_new), refilled
 * without allocation.
 */

/** The figures of a row; names (llmmem_engines_value_name) are the JSON keys. */
typedef enum llmmem_engines_value {
    LLMMEM_ENGINES_WEIGHTS = 0,        /**< "weights": weights on the GPU */
    LLMMEM_ENGINES_ACTIVATIONS = 1,    /**< "activations": the profile's activation peak (vLLM, TensorRT-LLM), what
                                            SGLang leaves outside its static pool, llama.cpp's compute buffer */
    LLMMEM_ENGINES_CUDA_GRAPHS = 2,    /**< "cuda_graphs": CUDA-graph memory taken from the KV budget */
    LLMMEM_ENGINES_KV_BYTES = 3,       /**< "kv_bytes": the KV cache (and recurrent state) on the GPU */
    LLMMEM_ENGINES_KV_TOKENS = 4,      /**< "kv_tokens": tokens the KV cache holds (llama.cpp: n_ctx) */
    LLMMEM_ENGINES_REQUEST_TOKENS = 5, /**< "request_tokens": the request length the concurrency answers for */
    LLMMEM_ENGINES_CONCURRENCY = 6,    /**< "concurrency": requests of request_tokens at once (llama.cpp: its
                                            slots when each holds the request, else 0) */
    LLMMEM_ENGINES_FITS = 7            /**< "fits": 1 if the engine starts and one request fits */
} llmmem_engines_value;

/** A comparison of the engines (opaque). */
typedef struct llmmem_engines llmmem_engines;

/** An empty comparison (no rows). */
LLMMEM_API llmmem_status llmmem_engines_new(llmmem_engines **out);
/** Frees a comparison (NULL is fine). */
LLMMEM_API void llmmem_engines_free(llmmem_engines *engines);
/**
 * Every engine's row for the job; `gguf` may be NULL (a GGUF header the local engines place).
 * Fails only on a NULL argument or an allocation-free failure of the comparison itself; each
 * engine's own failure is its row's status and message.
 */
LLMMEM_API llmmem_status llmmem_engines_estimate(llmmem_engines *out, const llmmem_model *model,
                                                 const llmmem_checkpoint *gguf, const llmmem_hardware *hw,
                                                 const llmmem_strategy *strategy);
/** Rows of the last estimate (0 before one), in llmmem_engine order. */
LLMMEM_API size_t llmmem_engines_count(const llmmem_engines *engines);
/** The engine of a row (LLMMEM_ENGINE_AUTO for a row past the count). */
LLMMEM_API llmmem_engine llmmem_engines_engine(const llmmem_engines *engines, size_t row);
/** LLMMEM_OK, or the status the engine refused the job with (LLMMEM_ERR_INVALID_ARGUMENT past the count). */
LLMMEM_API llmmem_status llmmem_engines_status(const llmmem_engines *engines, size_t row);
/** The engine's message when it refused the job ("" otherwise, NULL past the count). */
LLMMEM_API const char *llmmem_engines_message(const llmmem_engines *engines, size_t row);
/** One figure of a row (0 for a row past the count or an unknown value; a refused row holds its
 * request_tokens alone). */
LLMMEM_API uint64_t llmmem_engines_get(const llmmem_engines *engines, size_t row, llmmem_engines_value value);
/** Number of values; numbered 0 to count - 1. */
LLMMEM_API size_t llmmem_engines_value_count(void);
/** "weights", "kv_tokens", ... or NULL. */
LLMMEM_API const char *llmmem_engines_value_name(llmmem_engines_value value);
/**
 * The comparison as JSON: {"model", "hardware", "engines": [{"engine", "status" (0, or the
 * llmmem_status the engine refused with), "message" (null when 0), the values by name ("fits" a
 * bool)}, ...]}. Free with llmmem_string_free.
 */
LLMMEM_API llmmem_status llmmem_engines_to_json(char **json_out, const llmmem_engines *engines);

/* ------------------------------------------------------------------------ */
/* Local inference: llama.cpp and ollama on one machine                      */
/* ------------------------------------------------------------------------ */

/*
 * What llama.cpp allocates on each device of one machine for a model and its context settings
 * (n_ctx, n_parallel, cache_type_k/v, flash_attn, n_ubatch, n_gpu_layers, tensor_split, n_cpu_moe,
 * ...): the model buffer (the weights of the layers placed there: the GGUF's exact tensor bytes when
 * a checkpoint is given, else the inventory in weight_format), the KV buffer of its attention layers,
 * the recurrent-state buffer of its Mamba / Gated DeltaNet layers, the compute buffer sized for the
 * worst ubatch, and the output buffer; then whether each device keeps fit_margin_bytes free. The
 * devices are the hardware's GPUs (devices_per_node of one node) and, last, the host, whose RAM is
 * host_memory_bytes: the Apple presets (unified memory) state it, a discrete GPU's preset does not
 * (0: unknown; set it). A host of unknown RAM is taken to hold what llama.cpp keeps on the CPU
 * whatever the offload (token_embd, the graph's inputs, the output buffer) and nothing more: a
 * layout that leaves part of the layers there (their weights or KV, the output layer, experts of
 * n_cpu_moe) is not called a fit, and LLMMEM_LOCAL_HOST_UNKNOWN says why. With fit
 * (llama.cpp's --fit, on by default) an n_ctx left at 0 and then an n_gpu_layers left at -1 are
 * lowered until every GPU keeps its margin, as llama-server does at start-up. Engine ollama
 * follows ollama v0.30 and later, which runs upstream llama-server. Its options and defaults become
 * llama.cpp's settings first: num_ctx (0: picked by the GPUs' total memory, capped at the model's
 * context), x num_parallel, num_batch as -b and -ub, one GPU alone when ollama's own prediction
 * allows it. num_gpu -1 offloads the most layers that fit, as llama-server --fit does
 * (doc/ollama.md).
 */

/** A local inference result (opaque), refilled by llmmem_local_estimate without allocation. */
typedef struct llmmem_local llmmem_local;

/** Buffers llama.cpp allocates per device; names (llmmem_local_buffer_name) are the JSON keys. */
typedef enum llmmem_local_buffer {
    LLMMEM_LOCAL_MODEL = 0,     /**< "model": weights (llama.cpp "model buffer size") */
    LLMMEM_LOCAL_KV = 1,        /**< "kv": K and V of the attention layers there ("KV buffer size") */
    LLMMEM_LOCAL_RECURRENT = 2, /**< "recurrent": conv and SSM state of recurrent layers ("RS buffer size") */
    LLMMEM_LOCAL_COMPUTE = 3,   /**< "compute": the graph's worst-case working set ("compute buffer size") */
    LLMMEM_LOCAL_OUTPUT = 4     /**< "output": logits and embeddings on the host ("output buffer size") */
} llmmem_local_buffer;

/** Numbers of a local result that are not per device; names (llmmem_local_value_name) are the JSON keys. */
typedef enum llmmem_local_value {
    LLMMEM_LOCAL_ENGINE = 0,            /**< the engine resolved (llmmem_engine: llama.cpp or ollama) */
    LLMMEM_LOCAL_N_CTX = 1,             /**< context cells over all sequences, as llama.cpp resolves n_ctx */
    LLMMEM_LOCAL_N_CTX_SEQ = 2,         /**< cells one sequence may use */
    LLMMEM_LOCAL_N_SEQ_MAX = 3,         /**< sequences (n_parallel, ollama's num_parallel) */
    LLMMEM_LOCAL_N_STREAMS = 4,         /**< KV streams: 1 unified, else one per sequence */
    LLMMEM_LOCAL_KV_SIZE = 5,           /**< cells per stream of a full-attention layer */
    LLMMEM_LOCAL_KV_SIZE_SWA = 6,       /**< cells per stream of a sliding-window layer (0: none) */
    LLMMEM_LOCAL_N_BATCH = 7,           /**< logical batch as resolved */
    LLMMEM_LOCAL_N_UBATCH = 8,          /**< physical batch as resolved */
    LLMMEM_LOCAL_N_LAYER = 9,           /**< repeating layers of the model */
    LLMMEM_LOCAL_N_GPU_LAYERS = 10,     /**< layers offloaded, the output layer counted (n_layer + 1: all) */
    LLMMEM_LOCAL_FLASH_ATTN = 11,       /**< 1 if flash attention runs (auto resolved) */
    LLMMEM_LOCAL_GPUS = 12,             /**< GPUs used */
    LLMMEM_LOCAL_GPU_BYTES = 13,        /**< every buffer on every GPU */
    LLMMEM_LOCAL_HOST_BYTES = 14,       /**< every buffer on the host (mapped weights included) */
    LLMMEM_LOCAL_KV_BYTES = 15,         /**< KV buffers of all devices */
    LLMMEM_LOCAL_RECURRENT_BYTES = 16,  /**< recurrent-state buffers of all devices */
    LLMMEM_LOCAL_FITS = 17,             /**< 1 if every GPU keeps fit_margin_bytes free and the host holds its part (0 when HOST_UNKNOWN) */
    LLMMEM_LOCAL_SHORTFALL = 18,        /**< bytes the most over-committed device of known memory lacks (0 if none does) */
    LLMMEM_LOCAL_HOST_UNKNOWN = 19      /**< 1 if the host holds part of the layers and host_memory_bytes is 0: whether it fits is unknown */
} llmmem_local_value;

/** Questions the local solver answers (llmmem_local_solve). */
typedef enum llmmem_local_question {
    LLMMEM_LOCAL_MAX_GPU_LAYERS = 0, /**< the most n_gpu_layers that fit with the strategy's context */
    LLMMEM_LOCAL_MAX_CONTEXT = 1,    /**< the longest n_ctx (ollama: num_ctx) that fits with the strategy's layers (ollama's num_gpu -1: all of them) */
    LLMMEM_LOCAL_MAX_PARALLEL = 2    /**< the most n_parallel (ollama: num_parallel) that fit, n_ctx per sequence kept (num_gpu -1: all layers) */
} llmmem_local_question;

/** An empty local result (valid() == 0). */
LLMMEM_API llmmem_status llmmem_local_new(llmmem_local **out);
/** An independent copy of a local result. */
LLMMEM_API llmmem_status llmmem_local_clone(llmmem_local **out, const llmmem_local *local);
/** Frees a local result (NULL is fine). */
LLMMEM_API void llmmem_local_free(llmmem_local *local);
/**
 * The buffers llama.cpp (or ollama) allocates for the model on the hardware with the strategy's
 * local keys. `gguf` may be NULL; when given (a checkpoint read from a GGUF header), the model buffers
 * are its tensors' exact bytes, placed by their names (blk.N.*, token_embd, output). Fills `out`
 * without allocation; a layout that does not fit is not a failure (FITS 0, SHORTFALL). Fails, naming
 * the key and value, on settings llama.cpp refuses (a quantized V cache without flash attention,
 * tensor_split with more entries than GPUs, split_mode row, ...).
 */
LLMMEM_API llmmem_status llmmem_local_estimate(llmmem_local *out, const llmmem_model *model,
                                               const llmmem_checkpoint *gguf, const llmmem_hardware *hw,
                                               const llmmem_strategy *strategy);
/** 1 if the result holds a successful estimate. */
LLMMEM_API int llmmem_local_valid(const llmmem_local *local);
/** One number of the result (0 for an invalid result or an unknown value). */
LLMMEM_API uint64_t llmmem_local_get(const llmmem_local *local, llmmem_local_value value);
/** Number of local values; values are numbered 0 to count - 1. */
LLMMEM_API size_t llmmem_local_value_count(void);
/** "n_ctx", "kv_size", ... or NULL. */
LLMMEM_API const char *llmmem_local_value_name(llmmem_local_value value);
/** Number of buffer kinds; buffers are numbered 0 to count - 1. */
LLMMEM_API size_t llmmem_local_buffer_count(void);
/** "model", "kv", "recurrent", "compute", "output", or NULL. */
LLMMEM_API const char *llmmem_local_buffer_name(llmmem_local_buffer buffer);
/** Devices of the result: the GPUs, then the host (0 for an invalid result). */
LLMMEM_API size_t llmmem_local_device_count(const llmmem_local *local);
/** The device's name as llama.cpp prints it ("CUDA0", "ROCm1", "Metal", "Vulkan0", "CPU"), or NULL. */
LLMMEM_API const char *llmmem_local_device_name(const llmmem_local *local, size_t device);
/** Bytes of one buffer on one device (0 past the end). */
LLMMEM_API uint64_t llmmem_local_bytes(const llmmem_local *local, size_t device, llmmem_local_buffer buffer);
/** Bytes of every buffer on one device. */
LLMMEM_API uint64_t llmmem_local_device_total(const llmmem_local *local, size_t device);
/** What the device may hold: a GPU's memory less runtime_overhead_bytes and fit_margin_bytes; the
 * host's host_memory_bytes (0: unknown, see LLMMEM_LOCAL_HOST_UNKNOWN). */
LLMMEM_API uint64_t llmmem_local_device_capacity(const llmmem_local *local, size_t device);
/** Repeating layers placed on the device (the host's: those left on the CPU). */
LLMMEM_API uint64_t llmmem_local_device_layers(const llmmem_local *local, size_t device);
/** The result as JSON: the values, then one object per device with its buffers. Free with llmmem_string_free. */
LLMMEM_API llmmem_status llmmem_local_to_json(char **json_out, const llmmem_local *local);
/**
 * Answers a local question by searching the setting it names, every other setting as the strategy
 * says: the largest value whose estimate fits (LLMMEM_LOCAL_FITS), or 0 when none does. A host of
 * unknown RAM is not held against a value (LLMMEM_LOCAL_HOST_UNKNOWN: the answer is what the GPUs
 * hold). Each candidate is a full llmmem_local_estimate; a search takes O(log range) of them.
 */
LLMMEM_API llmmem_status llmmem_local_solve(int64_t *answer_out, llmmem_local_question question,
                                            const llmmem_model *model, const llmmem_checkpoint *gguf,
                                            const llmmem_hardware *hw, const llmmem_strategy *strategy);

#ifdef __cplusplus
}
#endif

#endif /* LLMMEM_LLMMEM_H */
