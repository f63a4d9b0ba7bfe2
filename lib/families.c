/* The family table: one row per Hugging Face model_type (see families.h). */
#include <string.h>

#include "families.h"

#define NONE LLMMEM_CLASS_NONE
#define NO_SHAPES NONE, NONE, NONE, NONE, NONE
#define LN LLMMEM_NORM_LAYERNORM
#define END {LLMMEM_KEY_NONE, 0}

/* Structural defaults, from each family's transformers modeling file. */

/* models/gpt2/modeling_gpt2.py: Conv1D with bias, ln_1/ln_2, wpe, tied lm_head */
static const llmmem__key_default gpt2_structure[] = {
    {LLMMEM_KEY_NORM_TYPE, LN}, {LLMMEM_KEY_MLP_GATED, 0},         {LLMMEM_KEY_QKV_BIAS, 1},
    {LLMMEM_KEY_O_PROJ_BIAS, 1}, {LLMMEM_KEY_MLP_BIAS, 1},         {LLMMEM_KEY_LEARNED_POSITIONS, 1},
    {LLMMEM_KEY_TIE_WORD_EMBEDDINGS, 1}, END,
};
/* models/opt/modeling_opt.py: OPTLearnedPositionalEmbedding keeps offset 2 extra rows */
static const llmmem__key_default opt_structure[] = {
    {LLMMEM_KEY_NORM_TYPE, LN}, {LLMMEM_KEY_MLP_GATED, 0},         {LLMMEM_KEY_QKV_BIAS, 1},
    {LLMMEM_KEY_O_PROJ_BIAS, 1}, {LLMMEM_KEY_MLP_BIAS, 1},         {LLMMEM_KEY_LEARNED_POSITIONS, 1},
    {LLMMEM_KEY_POSITION_OFFSET, 2}, {LLMMEM_KEY_TIE_WORD_EMBEDDINGS, 1}, END,
};
/* models/bloom/modeling_bloom.py: word_embeddings_layernorm, ALiBi (no position table) */
static const llmmem__key_default bloom_structure[] = {
    {LLMMEM_KEY_NORM_TYPE, LN}, {LLMMEM_KEY_MLP_GATED, 0},         {LLMMEM_KEY_QKV_BIAS, 1},
    {LLMMEM_KEY_O_PROJ_BIAS, 1}, {LLMMEM_KEY_MLP_BIAS, 1},         {LLMMEM_KEY_EMBEDDING_NORM, 1},
    {LLMMEM_KEY_TIE_WORD_EMBEDDINGS, 1}, END,
};
/* models/gpt_neox/modeling_gpt_neox.py: biased query_key_value, dense and MLP; untied embed_out */
static const llmmem__key_default gpt_neox_structure[] = {
    {LLMMEM_KEY_NORM_TYPE, LN}, {LLMMEM_KEY_MLP_GATED, 0}, {LLMMEM_KEY_QKV_BIAS, 1},
    {LLMMEM_KEY_O_PROJ_BIAS, 1}, {LLMMEM_KEY_MLP_BIAS, 1}, END,
};
/* models/falcon/modeling_falcon.py: bias=False, one input_layernorm (parallel attention), tied */
static const llmmem__key_default falcon_structure[] = {
    {LLMMEM_KEY_NORM_TYPE, LN}, {LLMMEM_KEY_MLP_GATED, 0}, {LLMMEM_KEY_NORMS_PER_LAYER, 1},
    {LLMMEM_KEY_TIE_WORD_EMBEDDINGS, 1}, END,
};
/* models/qwen2/modeling_qwen2.py: q/k/v biases */
static const llmmem__key_default qwen2_structure[] = {{LLMMEM_KEY_QKV_BIAS, 1}, END};
/* models/qwen2_moe/modeling_qwen2_moe.py: q/k/v biases, shared_expert_gate */
static const llmmem__key_default qwen2_moe_structure[] = {
    {LLMMEM_KEY_QKV_BIAS, 1}, {LLMMEM_KEY_SHARED_EXPERT_GATE, 1}, END,
};
/* models/qwen3/modeling_qwen3.py and qwen3_moe: q_norm, k_norm over head_dim */
static const llmmem__key_default qk_norm_structure[] = {{LLMMEM_KEY_QK_NORM, 1}, END};
/* models/gemma, gemma2, gemma3 modeling files: tied; Gemma 2/3 norm before and after both blocks */
static const llmmem__key_default tied_structure[] = {{LLMMEM_KEY_TIE_WORD_EMBEDDINGS, 1}, END};
static const llmmem__key_default gemma2_structure[] = {
    {LLMMEM_KEY_TIE_WORD_EMBEDDINGS, 1}, {LLMMEM_KEY_NORMS_PER_LAYER, 4},
    {LLMMEM_KEY_SLIDING_WINDOW_PATTERN, 2}, /* Gemma2DecoderLayer: even layers slide */
    END,
};
static const llmmem__key_default gemma3_text_structure[] = {
    {LLMMEM_KEY_TIE_WORD_EMBEDDINGS, 1}, {LLMMEM_KEY_NORMS_PER_LAYER, 4}, {LLMMEM_KEY_QK_NORM, 1},
    {LLMMEM_KEY_SLIDING_WINDOW_PATTERN, 6}, /* Gemma3TextConfig default */
    END,
};
/* DeepSeek-V3 modeling_deepseek.py (and Kimi K2, which runs it): MoEGate.e_score_correction_bias */
static const llmmem__key_default deepseek_v3_structure[] = {{LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS, 1}, END};

/* models/mamba2/modeling_mamba2.py Mamba2Block: one norm before the mixer, no feed-forward */
static const llmmem__key_default mamba2_structure[] = {{LLMMEM_KEY_NORMS_PER_LAYER, 1}, END};
/* models/nemotron_h/modeling_nemotron_h.py NemotronHBlock: one norm per block; NemotronHMLP:
 * up_proj, relu2, down_proj (two matrices) */
static const llmmem__key_default nemotron_h_structure[] = {
    {LLMMEM_KEY_NORMS_PER_LAYER, 1}, {LLMMEM_KEY_MLP_GATED, 0}, END,
};
/* models/qwen3_next/modeling_qwen3_next.py: Qwen3NextAttention q_norm, k_norm and the output gate
 * in q_proj; Qwen3NextSparseMoeBlock.shared_expert_gate */
static const llmmem__key_default qwen3_next_structure[] = {
    {LLMMEM_KEY_QK_NORM, 1}, {LLMMEM_KEY_ATTN_OUTPUT_GATE, 1}, {LLMMEM_KEY_SHARED_EXPERT_GATE, 1}, END,
};

/* Class defaults: values from transformers' configuration_<family>.py __init__ signatures
 * (max_position_embeddings: GPTNeoX, Falcon, Llama and Granite 2048, Mistral and Mixtral 4096 * 32,
 * Qwen and SmolLM3 32768, Phi-3 4096, Gemma and Gemma 2 8192, Gemma 3 131072). Fields in order:
 * kv_heads, head_dim, reads_kv_heads, reads_head_dim, tie, attention_bias, reads_mlp_bias, moe,
 * sliding, sliding_window, sliding_pattern, max_position, hidden, intermediate, layers, heads, vocab. */
static const llmmem__family families[] = {
    /* the most common family first: messages list the rows in this order */
    /* LlamaConfig: vocab_size=32000, hidden_size=4096, intermediate_size=11008,
     * num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=None, head_dim=None,
     * tie_word_embeddings=False, attention_bias=False, mlp_bias=False; llama.cpp's "llama" also
     * holds Mistral and, with expert_count, Mixtral */
    {LLMMEM_MODEL_LLAMA, "llama", LLMMEM_READ_LLAMA_LIKE,
     {NONE, 0, 1, 1, 0, 0, 1, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 2048, 4096, 11008, 32, 32, 32000}, NULL,
     "llama"},
    /* GPT2Config, OPTConfig, BloomConfig, FalconConfig: no tie_word_embeddings argument, so
     * PretrainedConfig's True */
    {LLMMEM_MODEL_GPT2, "gpt2", LLMMEM_READ_GPT2,
     {NONE, 0, 0, 0, 1, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, NONE, NO_SHAPES}, gpt2_structure, "gpt2"},
    {LLMMEM_MODEL_OPT, "opt", LLMMEM_READ_OPT,
     {NONE, 0, 0, 0, 1, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, NONE, NO_SHAPES}, opt_structure, NULL},
    {LLMMEM_MODEL_BLOOM, "bloom", LLMMEM_READ_BLOOM,
     {NONE, 0, 0, 0, 1, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, NONE, NO_SHAPES}, bloom_structure, "bloom"},
    /* GPTNeoXConfig: tie_word_embeddings=False, attention_bias=True; GPTNeoXAttention has no
     * grouped-query heads */
    {LLMMEM_MODEL_GPT_NEOX, "gpt_neox", LLMMEM_READ_LLAMA_LIKE,
     {NONE, 0, 0, 0, 0, 1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 2048, NO_SHAPES}, gpt_neox_structure,
     "gptneox"},
    {LLMMEM_MODEL_FALCON, "falcon", LLMMEM_READ_FALCON,
     {NONE, 0, 0, 0, 1, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 2048, NO_SHAPES}, falcon_structure,
     "falcon"},
    /* MistralConfig: intermediate_size=14336, num_key_value_heads=8, sliding_window=4096 */
    {LLMMEM_MODEL_MISTRAL, "mistral", LLMMEM_READ_LLAMA_LIKE,
     {8, 0, 1, 1, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_ALL, 4096, 0, 131072, 4096, 14336, 32, 32, 32000}, NULL,
     NULL},
    /* MixtralConfig: num_key_value_heads=8, sliding_window=None */
    {LLMMEM_MODEL_MIXTRAL, "mixtral", LLMMEM_READ_LLAMA_LIKE,
     {8, 0, 1, 1, 0, -1, 0, LLMMEM_MOE_MIXTRAL, LLMMEM_SLIDE_ALL, 0, 0, 131072, NO_SHAPES}, NULL, NULL},
    /* Qwen2Config: vocab_size=151936, hidden_size=4096, intermediate_size=22016,
     * num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=32, sliding_window=4096;
     * Qwen2Attention: q, k, v biased, o not */
    {LLMMEM_MODEL_QWEN2, "qwen2", LLMMEM_READ_LLAMA_LIKE,
     {32, 0, 1, 1, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_QWEN, 4096, 0, 32768, 4096, 22016, 32, 32, 151936},
     qwen2_structure, "qwen2"},
    /* Qwen2MoeConfig: num_key_value_heads=16 */
    {LLMMEM_MODEL_QWEN2_MOE, "qwen2_moe", LLMMEM_READ_LLAMA_LIKE,
     {16, 0, 1, 1, 0, -1, 0, LLMMEM_MOE_QWEN_SHARED, LLMMEM_SLIDE_QWEN, 4096, 0, 32768, NO_SHAPES},
     qwen2_moe_structure, "qwen2moe"},
    /* Qwen3Config: num_key_value_heads=32, head_dim=128, attention_bias=False */
    {LLMMEM_MODEL_QWEN3, "qwen3", LLMMEM_READ_LLAMA_LIKE,
     {32, 128, 1, 1, 0, 0, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_QWEN, 4096, 0, 32768, NO_SHAPES}, qk_norm_structure,
     "qwen3"},
    /* Qwen3MoeConfig: num_key_value_heads=4, attention_bias=False */
    {LLMMEM_MODEL_QWEN3_MOE, "qwen3_moe", LLMMEM_READ_LLAMA_LIKE,
     {4, 0, 1, 1, 0, 0, 0, LLMMEM_MOE_QWEN, LLMMEM_SLIDE_QWEN, 4096, 0, 32768, NO_SHAPES}, qk_norm_structure,
     "qwen3moe"},
    /* Phi3Config: num_key_value_heads=None, sliding_window=None */
    {LLMMEM_MODEL_PHI3, "phi3", LLMMEM_READ_LLAMA_LIKE,
     {NONE, 0, 1, 1, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_ALL, 0, 0, 4096, NO_SHAPES}, NULL, "phi3"},
    /* GemmaConfig: num_key_value_heads=16, head_dim=256, tie_word_embeddings=True */
    {LLMMEM_MODEL_GEMMA, "gemma", LLMMEM_READ_LLAMA_LIKE,
     {16, 256, 1, 1, 1, 0, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 8192, NO_SHAPES}, tied_structure, "gemma"},
    /* Gemma2Config: vocab_size=256000, hidden_size=2304, intermediate_size=9216,
     * num_hidden_layers=26, num_attention_heads=8, num_key_value_heads=4, head_dim=256,
     * sliding_window=4096; Gemma2DecoderLayer: is_sliding = not bool(layer_idx % 2) */
    {LLMMEM_MODEL_GEMMA2, "gemma2", LLMMEM_READ_LLAMA_LIKE,
     {4, 256, 1, 1, 1, 0, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_GEMMA, 4096, 2, 8192, 2304, 9216, 26, 8, 256000},
     gemma2_structure, "gemma2"},
    /* Gemma3TextConfig: vocab_size=262_208, hidden_size=2304, intermediate_size=9216,
     * num_hidden_layers=26, num_attention_heads=8, num_key_value_heads=4, head_dim=256,
     * sliding_window=4096, sliding_window_pattern=6 */
    {LLMMEM_MODEL_GEMMA3_TEXT, "gemma3_text", LLMMEM_READ_LLAMA_LIKE,
     {4, 256, 1, 1, 1, 0, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_GEMMA, 4096, 6, 131072, 2304, 9216, 26, 8, 262208},
     gemma3_text_structure, "gemma3"},
    /* llama.cpp's deepseek2 holds both; V3 when it stores exp_probs_b (gguf.c) */
    {LLMMEM_MODEL_DEEPSEEK_V2, "deepseek_v2", LLMMEM_READ_DEEPSEEK,
     {NONE, 0, 0, 0, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, NONE, NO_SHAPES}, NULL, "deepseek2"},
    {LLMMEM_MODEL_DEEPSEEK_V3, "deepseek_v3", LLMMEM_READ_DEEPSEEK,
     {NONE, 0, 0, 0, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, NONE, NO_SHAPES}, deepseek_v3_structure,
     NULL},
    /* GraniteConfig: vocab_size=32000, hidden_size=4096, intermediate_size=11008,
     * num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=None, tie_word_embeddings=False,
     * attention_bias=False, mlp_bias=False; GraniteAttention is Llama's (its four multipliers are
     * floats, not tensors); llama.cpp's "granite" */
    {LLMMEM_MODEL_GRANITE, "granite", LLMMEM_READ_LLAMA_LIKE,
     {NONE, 0, 1, 0, 0, 0, 1, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 2048, 4096, 11008, 32, 32, 32000}, NULL,
     "granite"},
    /* SmolLM3Config: vocab_size=128256, hidden_size=2048, intermediate_size=11008,
     * num_hidden_layers=36, num_attention_heads=16, num_key_value_heads=4, tie_word_embeddings=True,
     * attention_bias=False, mlp_bias=False, use_sliding_window=False, sliding_window=None,
     * max_window_layers=28; SmolLM3DecoderLayer is Llama's (no_rope_layers hold no tensors) */
    {LLMMEM_MODEL_SMOLLM3, "smollm3", LLMMEM_READ_LLAMA_LIKE,
     {4, 0, 1, 1, 1, 0, 1, LLMMEM_MOE_NONE, LLMMEM_SLIDE_QWEN, 0, 0, 32768, 2048, 11008, 36, 16, 128256},
     tied_structure, "smollm3"},
    /* moonshotai Kimi K2 (configuration_deepseek.py, DeepseekV3ForCausalLM): DeepSeek-V3's modeling
     * with its own sizes; llama.cpp reads its GGUF as deepseek2 */
    {LLMMEM_MODEL_KIMI_K2, "kimi_k2", LLMMEM_READ_DEEPSEEK,
     {NONE, 0, 0, 0, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, NONE, NO_SHAPES}, deepseek_v3_structure,
     NULL},
    /* Mamba2Config: tie_word_embeddings=False, no attention, no max_position_embeddings; its mixer
     * fields are read by their own names (hfconfig.c read_mamba2) */
    {LLMMEM_MODEL_MAMBA2, "mamba2", LLMMEM_READ_MAMBA2,
     {NONE, 0, 0, 0, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, NONE, NO_SHAPES}, mamba2_structure,
     NULL}, /* llama.cpp mamba2 GGUF: its ssm_* tensors are not read (gguf.c) */
    /* NemotronHConfig: tie_word_embeddings=False, attention_bias=False, mlp_bias=False,
     * max_position_embeddings=4096 */
    {LLMMEM_MODEL_NEMOTRON_H, "nemotron_h", LLMMEM_READ_NEMOTRON_H,
     {NONE, 0, 1, 1, 0, 0, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 4096, NO_SHAPES}, nemotron_h_structure,
     NULL}, /* llama.cpp nemotron_h: not read */
    /* Qwen3NextConfig: num_key_value_heads=2, head_dim=256, tie_word_embeddings=False,
     * attention_bias=False, max_position_embeddings=32768; Qwen2-MoE's routing fields and a
     * shared expert; full_attention_interval and the linear_* fields read by read_llama_like */
    {LLMMEM_MODEL_QWEN3_NEXT, "qwen3_next", LLMMEM_READ_LLAMA_LIKE,
     {2, 256, 1, 1, 0, 0, 0, LLMMEM_MOE_QWEN_SHARED, LLMMEM_SLIDE_NONE, 0, 0, 32768, NO_SHAPES},
     qwen3_next_structure, NULL}, /* llama.cpp qwen3next: not read */
};
#define N_FAMILIES (sizeof families / sizeof families[0])

/* Indexed by value: the model_type key's choices (keys.c); the test suite checks each row's name
 * is here at its value. */
const char *const llmmem__model_type_names[] = {
    [LLMMEM_MODEL_CUSTOM] = "custom",           [LLMMEM_MODEL_GPT2] = "gpt2",
    [LLMMEM_MODEL_OPT] = "opt",                 [LLMMEM_MODEL_BLOOM] = "bloom",
    [LLMMEM_MODEL_GPT_NEOX] = "gpt_neox",       [LLMMEM_MODEL_FALCON] = "falcon",
    [LLMMEM_MODEL_LLAMA] = "llama",             [LLMMEM_MODEL_MISTRAL] = "mistral",
    [LLMMEM_MODEL_MIXTRAL] = "mixtral",         [LLMMEM_MODEL_QWEN2] = "qwen2",
    [LLMMEM_MODEL_QWEN2_MOE] = "qwen2_moe",     [LLMMEM_MODEL_QWEN3] = "qwen3",
    [LLMMEM_MODEL_QWEN3_MOE] = "qwen3_moe",     [LLMMEM_MODEL_PHI3] = "phi3",
    [LLMMEM_MODEL_GEMMA] = "gemma",             [LLMMEM_MODEL_GEMMA2] = "gemma2",
    [LLMMEM_MODEL_GEMMA3_TEXT] = "gemma3_text", [LLMMEM_MODEL_DEEPSEEK_V2] = "deepseek_v2",
    [LLMMEM_MODEL_DEEPSEEK_V3] = "deepseek_v3", [LLMMEM_MODEL_GRANITE] = "granite",
    [LLMMEM_MODEL_SMOLLM3] = "smollm3",         [LLMMEM_MODEL_KIMI_K2] = "kimi_k2",
    [LLMMEM_MODEL_MAMBA2] = "mamba2",           [LLMMEM_MODEL_NEMOTRON_H] = "nemotron_h",
    [LLMMEM_MODEL_QWEN3_NEXT] = "qwen3_next",
    [LLMMEM__MODEL_TYPE_LAST + 1] = NULL,
};
_Static_assert(N_FAMILIES == LLMMEM__FAMILY_COUNT, "one row per model_type value but custom");

const llmmem__family *llmmem__family_at(size_t index)
{
    return index < N_FAMILIES ? &families[index] : NULL;
}

const llmmem__family *llmmem__family_of_type(int64_t type)
{
    for (size_t i = 0; i < N_FAMILIES; i++)
        if (families[i].type == type)
            return &families[i];
    return NULL;
}

const llmmem__family *llmmem__family_named(const char *model_type)
{
    for (size_t i = 0; i < N_FAMILIES; i++)
        if (strcmp(families[i].name, model_type) == 0)
            return &families[i];
    return NULL;
}

int llmmem__family_structure(int64_t *value, const llmmem__family *f, llmmem_key key)
{
    if (!f || !f->structure)
        return 0;
    for (const llmmem__key_default *d = f->structure; d->key != LLMMEM_KEY_NONE; d++) {
        if (d->key == key) {
            *value = d->value;
            return 1;
        }
    }
    return 0;
}

/* Appends text to buf (always terminated, cut at size). */
static void append(char *buf, size_t size, size_t *used, const char *text)
{
    size_t n = strlen(text);
    if (*used + 1 >= size)
        return;
    if (n > size - 1 - *used)
        n = size - 1 - *used;
    memcpy(buf + *used, text, n);
    *used += n;
    buf[*used] = '\0';
}

void llmmem__family_list(char *buf, size_t size, const char *extra)
{
    size_t used = 0;
    if (size)
        buf[0] = '\0';
    for (size_t i = 0; i < N_FAMILIES; i++) {
        append(buf, size, &used, i ? ", " : "");
        append(buf, size, &used, families[i].name);
    }
    if (extra) {
        append(buf, size, &used, ", ");
        append(buf, size, &used, extra);
    }
}
