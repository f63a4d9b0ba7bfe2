/* The family table: one row per Hugging Face model_type. A family that reuses shapes the inventory
 * already builds is one row here (and its constant in llmmem.h): its names, the defaults its
 * transformers config class gives fields a config.json may omit, the structural defaults its
 * modeling file implies, its llama.cpp architecture names and the reader that reads its config. */
#ifndef LLMMEM_FAMILIES_H
#define LLMMEM_FAMILIES_H

#include <stddef.h>
#include <stdint.h>

#include "base/internal.h"

#define LLMMEM_CLASS_NONE (-1) /* no class default: the field is required (or derived, see each use) */

/* How config.json is read (hfconfig.c): the family's fields and their names. */
enum llmmem__config_reader {
    LLMMEM_READ_LLAMA_LIKE = 0, /* hidden_size, num_key_value_heads, intermediate_size, ... */
    LLMMEM_READ_GPT2,           /* n_embd, n_layer, n_head, n_inner */
    LLMMEM_READ_OPT,            /* ffn_dim, word_embed_proj_dim, do_layer_norm_before */
    LLMMEM_READ_BLOOM,          /* n_embed / hidden_size, n_head, n_layer */
    LLMMEM_READ_FALCON,         /* new_decoder_architecture, multi_query, parallel_attn */
    LLMMEM_READ_DEEPSEEK,       /* multi-head latent attention and DeepSeek MoE */
    LLMMEM_READ_GLM4,           /* llama-like, attention_bias on q/k/v only; glm4_moe: DeepSeek-V3's MoE fields */
    LLMMEM_READ_MINIMAX_M2,     /* llama-like with Mixtral's experts, qk_norm_type, attn_type_list */
    LLMMEM_READ_ERNIE,          /* llama-like with use_bias; ERNIE's moe_* fields (families with LLMMEM_MOE_ERNIE) */
    LLMMEM_READ_LLAMA4,         /* Llama4Config: text_config (llama4_text) and vision_config */
    LLMMEM_READ_MLLAMA,         /* MllamaConfig: text_config (mllama_text_model) and vision_config */
    LLMMEM_READ_LLAMA4_TEXT,    /* Llama4TextConfig alone */
    LLMMEM_READ_MAMBA2,         /* num_heads, head_dim, state_size, n_groups, conv_kernel (Mamba2Config) */
    LLMMEM_READ_NEMOTRON_H,     /* hybrid_override_pattern, mamba_num_heads, ssm_state_size (NemotronHConfig) */
    LLMMEM_READ_GRANITEMOEHYBRID, /* layer_types, mamba_n_heads, num_local_experts, shared_intermediate_size */
    LLMMEM_READ_JAMBA,          /* llama-like, attn/expert_layer_period and offset, mamba_* (JambaConfig) */
    LLMMEM_READ_FALCON_H1,      /* llama-like, mamba_* and projectors_bias (FalconH1Config) */
    LLMMEM_READ_GEMMA4,         /* llama-like, global_head_dim, KV sharing, per-layer inputs, MoE block (Gemma4TextConfig) */
    LLMMEM_READ_DEEPSEEK_V4,    /* layer_types / compress_ratios, mlp_layer_types / num_hash_layers, hc_mult (DeepseekV4Config) */
    LLMMEM_READ_KIMI_LINEAR,    /* MLA fields, linear_attn_config, num_experts_per_token (KimiLinearConfig) */
    LLMMEM_READ_NEMOTRON_NAS,   /* llama-like, block_configs of per-layer attention and FFN (DeciLMConfig) */
    LLMMEM_READ_LFM2,           /* llama-like, block_* MLP width, conv_*, full_attn_idxs or layer_types (Lfm2Config) */
    LLMMEM_READ_MIMO_V2,        /* swa_* attention fields, hybrid_layer_pattern, moe_layer_freq lists (MiMoV2FlashConfig) */
    LLMMEM_READ_HUNYUAN,        /* llama-like; num_experts, moe_topk (int or per-layer list), use_mixed_mlp_moe (HunYuan*V1Config) */
    LLMMEM_READ_PHI4FLASH,      /* llama-like, mb_per_layer, mamba_* and sliding_window of the SambaY layers (Phi4FlashConfig) */
    LLMMEM_READ_STEP3P5,        /* num_attention_groups, attention_other_setting, layer_types, moe_layers_enum (Step3p5Config) */
    LLMMEM_READ_LAGUNA,         /* num_attention_heads_per_layer, gating, layer_types, mlp_layer_types (LagunaConfig) */
    LLMMEM_READ_MINIMAX_M3      /* dense_intermediate_size, moe_layer_freq, sparse_attention_config (MiniMax-M3) */
};

/* Where a family's sliding window applies. */
enum llmmem__sliding_kind {
    LLMMEM_SLIDE_NONE = 0,  /* no sliding window: the field is not read */
    LLMMEM_SLIDE_ALL = 1,   /* sliding_window applies to every layer (Mistral, Mixtral, Phi-3) */
    LLMMEM_SLIDE_QWEN = 2,  /* use_sliding_window; the layers from max_window_layers on slide (Qwen2/3) */
    LLMMEM_SLIDE_GEMMA = 3  /* interleaved local and global layers (Gemma 2, Gemma 3) */
};

/* Which mixture-of-experts fields a llama-like family reads. */
enum llmmem__moe_kind {
    LLMMEM_MOE_NONE = 0,
    LLMMEM_MOE_MIXTRAL = 1,     /* num_local_experts of intermediate_size on every layer */
    LLMMEM_MOE_QWEN = 2,        /* num_experts, moe_intermediate_size, decoder_sparse_step, mlp_only_layers */
    LLMMEM_MOE_QWEN_SHARED = 3, /* the same and a shared expert (shared_expert_intermediate_size) */
    LLMMEM_MOE_OLMOE = 4,       /* num_experts of intermediate_size on every layer (OLMoE) */
    LLMMEM_MOE_ERNIE = 5        /* moe_num_experts, moe_k, moe_layer_start_index ... (ERNIE 4.5) */
};

/* Defaults of the transformers config class (configuration_<family>.py __init__), for the fields a
 * config.json may omit. */
typedef struct llmmem__class_defaults {
    int64_t kv_heads;        /* num_key_value_heads absent: LLMMEM_CLASS_NONE = num_attention_heads */
    int64_t head_dim;        /* head_dim absent: 0 = hidden_size / num_attention_heads */
    uint8_t reads_kv_heads;  /* the modeling file reads num_key_value_heads (GPT-NeoX does not) */
    uint8_t reads_head_dim;  /* the modeling file reads config.head_dim */
    uint8_t tie;             /* tie_word_embeddings absent */
    int8_t attention_bias;   /* -1: not read; 0 or 1: attention_bias's default (it biases q, k, v and o) */
    uint8_t reads_mlp_bias;  /* the MLP reads config.mlp_bias (default false) */
    uint8_t moe;             /* enum llmmem__moe_kind */
    uint8_t sliding;         /* enum llmmem__sliding_kind */
    int64_t sliding_window;  /* sliding_window absent (0: None) */
    int64_t sliding_pattern; /* LLMMEM_SLIDE_GEMMA: every n-th layer global */
    int64_t max_position;    /* max_position_embeddings absent (LLMMEM_CLASS_NONE: not set) */
    /* Shape defaults, used only inside a sub-config (LLMMEM_CLASS_NONE: not encoded, so required). */
    int64_t hidden, intermediate, layers, heads, vocab;
    uint8_t reads_use_qk_norm; /* the modeling file reads config.use_qk_norm (default false) into its q/k norms */
} llmmem__class_defaults;

typedef struct llmmem__key_default {
    llmmem_key key;
    int64_t value;
} llmmem__key_default;

typedef struct llmmem__family {
    llmmem_model_type type;            /* value of the model_type key */
    const char *name;                  /* Hugging Face model_type */
    enum llmmem__config_reader reader; /* the hook that reads its config.json */
    llmmem__class_defaults config;
    const llmmem__key_default *structure; /* structural defaults, ended by LLMMEM_KEY_NONE; NULL: none */
    const char *gguf;                  /* llama.cpp general.architecture name; NULL: none */
} llmmem__family;

/* The names of model_type values 0 .. LLMMEM__MODEL_TYPE_LAST, NULL-terminated: the choices of the
 * model_type key (keys.c). */
#define LLMMEM__MODEL_TYPE_LAST LLMMEM_MODEL_KIMI_K3
extern const char *const llmmem__model_type_names[];

/* The rows, 0 .. LLMMEM__FAMILY_COUNT - 1 (one per model_type value but custom). */
#define LLMMEM__FAMILY_COUNT ((size_t)LLMMEM__MODEL_TYPE_LAST)
const llmmem__family *llmmem__family_at(size_t index);
/* The row of a model_type value or name; NULL for custom and unknown ones. */
const llmmem__family *llmmem__family_of_type(int64_t type);
const llmmem__family *llmmem__family_named(const char *model_type);
/* A structural default of the family (NULL: none): 1 and *value set when the row lists the key. */
int llmmem__family_structure(int64_t *value, const llmmem__family *family, llmmem_key key);
/* Writes "gpt2, opt, ..." (every row's model_type, then `extra` if not NULL) into buf. */
void llmmem__family_list(char *buf, size_t size, const char *extra);

#endif
