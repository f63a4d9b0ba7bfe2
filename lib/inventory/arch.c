/* Expansion of a model's settings into its tensor inventory: every weight
 * tensor class with its shape, multiplicity, tensor-parallel split and group.
 * Parameter counts, weight bytes and (later) training state and sharding are
 * all computed from this one inventory. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/internal.h"
#include "inventory/mixers.h"

typedef struct builder {
    llmmem__inventory *inv;
    llmmem__geometry *geo;  /* resolved as the classes are built, from the same values */
    const llmmem_model *m;
    char *message;
    size_t message_size;
    llmmem_status status;
    llmmem__kind_set kinds; /* the layers each class added repeats over (0: outside the layers) */
} builder;

static llmmem_status fail(builder *b, llmmem_status status, const char *fmt, ...) LLMMEM_PRINTF(3, 4);

static llmmem_status fail(builder *b, llmmem_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->message, b->message_size, fmt, ap);
    va_end(ap);
    b->status = status;
    return status;
}

static uint64_t value(const builder *b, llmmem_key key)
{
    return (uint64_t)llmmem__model_value(b->m, key);
}

static const char *name_of(llmmem_key key)
{
    return llmmem_key_name(key);
}

/* Adds a tensor class of `count` tensors of rows x cols, `active` of them used per token. */
/* The role of a class by its name (looked up once, when the inventory is built). */
static enum llmmem__role role_of(const char *name)
{
    static const struct {
        const char *name;
        enum llmmem__role role;
    } roles[] = {
        {"q_proj", LLMMEM_ROLE_Q},           {"k_proj", LLMMEM_ROLE_K},
        {"v_proj", LLMMEM_ROLE_KV},          {"k_proj.bias", LLMMEM_ROLE_KV},
        {"v_proj.bias", LLMMEM_ROLE_KV},     {"mlp.up_proj", LLMMEM_ROLE_MLP_UP},
        {"experts.up_proj", LLMMEM_ROLE_EXPERT_UP}, {"shared_experts.up_proj", LLMMEM_ROLE_SHARED_UP},
        {"final_norm", LLMMEM_ROLE_FINAL_NORM},
    };
    for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++)
        if (strcmp(name, roles[i].name) == 0)
            return roles[i].role;
    return LLMMEM_ROLE_OTHER;
}

static void add(builder *b, const char *name, llmmem_param_group group, enum llmmem__split split,
                int matrix, unsigned lora, uint64_t rows, uint64_t cols, uint64_t count, uint64_t active)
{
    if (b->status != LLMMEM_OK || count == 0 || rows == 0 || cols == 0)
        return;
    llmmem__inventory *inv = b->inv;
    if (inv->n == LLMMEM_MAX_TENSOR_CLASSES) {
        fail(b, LLMMEM_ERR_UNSUPPORTED, "model has more than %d tensor classes", LLMMEM_MAX_TENSOR_CLASSES);
        return;
    }
    uint64_t elements, params = 0, active_params = 0;
    if (!llmmem__mul(&elements, rows, cols) || !llmmem__muladd(&params, elements, count) ||
        !llmmem__muladd(&active_params, elements, active) ||
        !llmmem__add(&inv->params[group], inv->params[group], params) ||
        !llmmem__add(&inv->total, inv->total, params) || !llmmem__add(&inv->active, inv->active, active_params)) {
        fail(b, LLMMEM_ERR_OVERFLOW, "parameter count of %s (%llu x %llu, %llu times) exceeds 64 bits", name,
             (unsigned long long)rows, (unsigned long long)cols, (unsigned long long)count);
        return;
    }
    enum llmmem__role role = role_of(name);
    if (role != LLMMEM_ROLE_OTHER && role != LLMMEM_ROLE_KV && inv->by_role[role] < 0)
        inv->by_role[role] = (int8_t)inv->n;
    inv->t[inv->n++] = (llmmem__tensor_class){
        .name = name, .group = (uint8_t)group, .split = (uint8_t)split, .matrix = (uint8_t)matrix,
        .lora = (uint8_t)lora, .kinds = b->kinds, .role = (uint8_t)role, .rows = rows, .cols = cols,
        .count = count, .active_count = active};
}

/* A vector (norm weight, bias) of n elements, `count` times, always used. */
static void add_vector(builder *b, const char *name, llmmem_param_group group, uint64_t n, uint64_t count)
{
    add(b, name, group, LLMMEM_SPLIT_REPLICATED, 0, 0, 1, n, count, count);
}

/* A norm of width n: weight, plus bias for LayerNorm. */
static void add_norm(builder *b, const char *name, uint64_t n, uint64_t count)
{
    uint64_t per_norm = value(b, LLMMEM_KEY_NORM_TYPE) == LLMMEM_NORM_LAYERNORM ? 2 : 1;
    uint64_t total;
    if (!llmmem__mul(&total, count, per_norm)) {
        fail(b, LLMMEM_ERR_OVERFLOW, "norm count of %s exceeds 64 bits", name);
        return;
    }
    add_vector(b, name, LLMMEM_PARAMS_NORMS, n, total);
}

static llmmem_status require(builder *b, llmmem_key key)
{
    if (value(b, key) == 0)
        return fail(b, LLMMEM_ERR_INCOMPLETE, "model %s: %s is not set",
                    llmmem_choice_name(LLMMEM_KEY_MODEL_TYPE, llmmem__model_value(b->m, LLMMEM_KEY_MODEL_TYPE)),
                    name_of(key));
    return LLMMEM_OK;
}

/* A head's width: head_dim, or hidden_size / num_attention_heads (transformers PretrainedConfig's default,
 * e.g. models/llama/modeling_llama.py LlamaAttention), refused unless it divides; heads > 0. */
static int head_width(builder *b, uint64_t h, uint64_t heads, uint64_t *d)
{
    *d = value(b, LLMMEM_KEY_HEAD_DIM);
    if (*d)
        return 1;
    if (h % heads) {
        fail(b, LLMMEM_ERR_INCOMPATIBLE, "hidden_size (%llu) is not divisible by num_attention_heads (%llu); set head_dim",
             (unsigned long long)h, (unsigned long long)heads);
        return 0;
    }
    *d = h / heads;
    return 1;
}

/* Standard multi-head / grouped-query attention. */
static void add_attention(builder *b, uint64_t h, uint64_t layers)
{
    uint64_t heads = value(b, LLMMEM_KEY_NUM_ATTENTION_HEADS);
    uint64_t kv_heads = value(b, LLMMEM_KEY_NUM_KEY_VALUE_HEADS);
    uint64_t head_dim;
    if (kv_heads == 0)
        kv_heads = heads;
    if (heads % kv_heads != 0) {
        fail(b, LLMMEM_ERR_INCOMPATIBLE,
             "num_attention_heads (%llu) is not divisible by num_key_value_heads (%llu)",
             (unsigned long long)heads, (unsigned long long)kv_heads);
        return;
    }
    if (!head_width(b, h, heads, &head_dim))
        return;
    /* the defaults above are resolved here once: every view reads them from the geometry */
    b->geo->kv_heads = kv_heads;
    b->geo->head_dim = b->geo->v_head_dim = head_dim;
    b->geo->kv_token = (llmmem__kv_token){kv_heads, 2, head_dim}; /* K and V of each KV head */
    uint64_t q_out = heads * head_dim, kv_out = kv_heads * head_dim; /* both <= 2^44 by key bounds */
    /* transformers Qwen3NextAttention: q_proj gives heads x head_dim x 2, the query and its output gate */
    uint64_t q_rows = value(b, LLMMEM_KEY_ATTN_OUTPUT_GATE) ? 2 * q_out : q_out;
    /* Megatron-LM ColumnParallelLinear for q/k/v, RowParallelLinear for the output projection */
    add(b, "q_proj", LLMMEM_PARAMS_ATTENTION, LLMMEM_SPLIT_COLUMN, 1, LLMMEM_LORA_TARGET_Q, q_rows, h, layers, layers);
    add(b, "k_proj", LLMMEM_PARAMS_ATTENTION, LLMMEM_SPLIT_COLUMN, 1, LLMMEM_LORA_TARGET_K, kv_out, h, layers, layers);
    add(b, "v_proj", LLMMEM_PARAMS_ATTENTION, LLMMEM_SPLIT_COLUMN, 1, LLMMEM_LORA_TARGET_V, kv_out, h, layers, layers);
    add(b, "o_proj", LLMMEM_PARAMS_ATTENTION, LLMMEM_SPLIT_ROW, 1, LLMMEM_LORA_TARGET_O, h, q_out, layers, layers);
    if (value(b, LLMMEM_KEY_QKV_BIAS)) {
        add(b, "q_proj.bias", LLMMEM_PARAMS_ATTENTION, LLMMEM_SPLIT_COLUMN, 0, 0, 1, q_rows, layers, layers);
        add(b, "k_proj.bias", LLMMEM_PARAMS_ATTENTION, LLMMEM_SPLIT_COLUMN, 0, 0, 1, kv_out, layers, layers);
        add(b, "v_proj.bias", LLMMEM_PARAMS_ATTENTION, LLMMEM_SPLIT_COLUMN, 0, 0, 1, kv_out, layers, layers);
    }
    if (value(b, LLMMEM_KEY_O_PROJ_BIAS))
        add_vector(b, "o_proj.bias", LLMMEM_PARAMS_ATTENTION, h, layers);
    if (value(b, LLMMEM_KEY_QK_NORM) && value(b, LLMMEM_KEY_QK_NORM_TYPE) == LLMMEM_QK_NORM_PER_LAYER) {
        /* transformers models/olmo2/modeling_olmo2.py Olmo2Attention: q_norm over num_heads*head_dim, k_norm over num_kv_heads*head_dim */
        add_norm(b, "q_norm", q_out, layers);
        add_norm(b, "k_norm", kv_out, layers);
    } else if (value(b, LLMMEM_KEY_QK_NORM)) { /* transformers Qwen3Attention: q_norm, k_norm = RMSNorm(head_dim) */
        add_norm(b, "qk_norm", head_dim, 2 * layers);
    }
    if (value(b, LLMMEM_KEY_ATTENTION_SINKS)) /* transformers models/gpt_oss/modeling_gpt_oss.py GptOssAttention: sinks, one per head */
        add(b, "sinks", LLMMEM_PARAMS_ATTENTION, LLMMEM_SPLIT_COLUMN, 0, 0, 1, heads, layers, layers);
}

/* Attention whose full layers have their own head width and KV heads, and whose last layers read an earlier
 * layer's keys and values (transformers models/gemma4/modular_gemma4.py Gemma4TextAttention): q_proj, o_proj
 * and q_norm of every attention layer at its type's width (head_dim on sliding layers, global_head_dim on full
 * ones); k_proj, k_norm and v_proj only on layers that compute their own keys, k and v of
 * num_global_key_value_heads on full layers with attention_k_eq_v, which have no v_proj (v_norm has no weight).
 * The KV-shared layers' k_proj, v_proj and k_norm are in the checkpoint all the same and dropped on load
 * (Gemma4TextModel._keys_to_ignore_on_load_unexpected): counted as the checkpoint's, not the model's. */
static void add_typed_attention(builder *b, uint64_t h, llmmem__kind_set sliding, llmmem__kind_set full,
                                llmmem__kind_set shared)
{
    llmmem__geometry *g = b->geo;
    uint64_t heads = value(b, LLMMEM_KEY_NUM_ATTENTION_HEADS), kv = value(b, LLMMEM_KEY_NUM_KEY_VALUE_HEADS);
    uint64_t d, gd = value(b, LLMMEM_KEY_GLOBAL_HEAD_DIM);
    /* Step-3.5-Flash's full layers have fewer query heads than its sliding ones (attention_other_setting) */
    uint64_t gh = value(b, LLMMEM_KEY_NUM_GLOBAL_ATTENTION_HEADS) ? value(b, LLMMEM_KEY_NUM_GLOBAL_ATTENTION_HEADS) : heads;
    const int k_eq_v = value(b, LLMMEM_KEY_ATTENTION_K_EQ_V) != 0;
    if (heads == 0) { /* typed widths or KV-shared layers over a model without attention layers */
        fail(b, LLMMEM_ERR_INCOMPLETE, "global_head_dim or num_kv_shared_layers needs num_attention_heads");
        return;
    }
    if (kv == 0)
        kv = heads;
    if (!head_width(b, h, heads, &d))
        return;
    if (gd == 0)
        gd = d;
    uint64_t gkv = value(b, LLMMEM_KEY_NUM_GLOBAL_KEY_VALUE_HEADS) ? value(b, LLMMEM_KEY_NUM_GLOBAL_KEY_VALUE_HEADS) : kv;
    /* MiMo-V2-Flash's value heads are narrower than its query and key heads (v_head_dim) */
    uint64_t dv = value(b, LLMMEM_KEY_V_HEAD_DIM) ? value(b, LLMMEM_KEY_V_HEAD_DIM) : d;
    if (dv != d && gd != d) {
        fail(b, LLMMEM_ERR_UNSUPPORTED, "v_head_dim (%llu) beside global_head_dim (%llu) is not modelled",
             (unsigned long long)dv, (unsigned long long)gd);
        return;
    }
    if (heads % kv || gh % gkv) {
        fail(b, LLMMEM_ERR_INCOMPATIBLE, "the query heads (%llu, %llu) are not divisible by the KV heads (%llu, %llu)",
             (unsigned long long)heads, (unsigned long long)gh, (unsigned long long)kv, (unsigned long long)gkv);
        return;
    }
    if (gh != heads)
        g->global_heads = gh;
    g->kv_heads = kv;
    g->head_dim = d;
    g->v_head_dim = dv;
    /* a token's key and value of each KV head (one vector of both widths when they differ, as MLA's) */
    g->kv_token = dv == d ? (llmmem__kv_token){kv, 2, d} : (llmmem__kv_token){kv, 1, d + dv};
    /* k_eq_v layers cache keys and values all the same (Gemma4TextAttention: V is v_norm of the key projection) */
    if (gkv != kv || gd != d)
        g->kv_token_global = dv == d ? (llmmem__kv_token){gkv, 2, gd} : (llmmem__kv_token){gkv, 1, gd + dv};
    /* MiMo-V2-Flash's attention_sink_bias, one per head, on the layers of each type that add_*_attention_sink_bias
     * names (vllm model_executor/models/mimo_v2_flash.py MiMoV2Attention) */
    const int sinks = value(b, LLMMEM_KEY_ATTENTION_SINKS) != 0, global_sinks = value(b, LLMMEM_KEY_FULL_ATTENTION_SINKS) != 0;
    const int qk_norm = value(b, LLMMEM_KEY_QK_NORM) != 0;
    /* vllm model_executor/models/step3p5.py Step3p5Attention.g_proj: hidden -> one gate a query head, no bias */
    const int head_gate = value(b, LLMMEM_KEY_HEAD_WISE_ATTN_GATE) != 0;
    const struct {
        llmmem__kind_set set;
        uint64_t heads, kv, d;
        int v, sinks;
        const char *q, *o, *k, *vname, *qn, *kn, *gate;
    } types[2] = {
        {sliding, heads, kv, d, 1, sinks, "q_proj", "o_proj", "k_proj", "v_proj", "q_norm", "k_norm", "g_proj"},
        {full, gh, gkv, gd, !k_eq_v, global_sinks, "q_proj.global", "o_proj.global", "k_proj.global", "v_proj.global",
         "q_norm.global", "k_norm.global", "g_proj.global"},
    };
    const llmmem_param_group A = LLMMEM_PARAMS_ATTENTION;
    for (unsigned i = 0; i < 2 && b->status == LLMMEM_OK; i++) {
        uint64_t all = llmmem__layers_in(&g->plan, types[i].set, 0, g->layers);
        llmmem__kind_set own_set = (llmmem__kind_set)(types[i].set & ~shared);
        uint64_t own = llmmem__layers_in(&g->plan, own_set, 0, g->layers), q_out = types[i].heads * types[i].d;
        uint64_t kv_out = types[i].kv * types[i].d, v_out = types[i].kv * (dv == d ? types[i].d : dv);
        b->kinds = types[i].set;
        add(b, types[i].q, A, LLMMEM_SPLIT_COLUMN, 1, LLMMEM_LORA_TARGET_Q, q_out, h, all, all);
        add(b, types[i].o, A, LLMMEM_SPLIT_ROW, 1, LLMMEM_LORA_TARGET_O, h,
            types[i].heads * (dv == d ? types[i].d : dv), all, all);
        if (qk_norm)
            add_norm(b, types[i].qn, types[i].d, all);
        if (types[i].sinks)
            add(b, "sinks", A, LLMMEM_SPLIT_COLUMN, 0, 0, 1, types[i].heads, all, all);
        if (head_gate)
            add(b, types[i].gate, A, LLMMEM_SPLIT_COLUMN, 1, 0, types[i].heads, h, all, all);
        b->kinds = own_set;
        add(b, types[i].k, A, LLMMEM_SPLIT_COLUMN, 1, LLMMEM_LORA_TARGET_K, kv_out, h, own, own);
        if (types[i].v)
            add(b, types[i].vname, A, LLMMEM_SPLIT_COLUMN, 1, LLMMEM_LORA_TARGET_V, v_out, h, own, own);
        if (qk_norm)
            add_norm(b, types[i].kn, types[i].d, own);
        /* the shared layers' dropped k_proj, v_proj and k_norm: below 2^62 by the key bounds */
        g->dropped += (all - own) * (kv_out * h + (types[i].v ? v_out * h : 0) + (qk_norm ? types[i].d : 0));
    }
}

/* DeepSeek-V4's attention, every layer a window of sliding_window tokens and, in compressed layers, compressed
 * entries (the tensors of antirez/ds4 ds4.c weights_validate_layout, the GGUF names): attn_q_a (hidden ->
 * q_lora_rank), its norm, attn_q_b (-> heads x head_dim), one shared key-value head attn_kv (hidden -> head_dim)
 * and its norm, attn_sinks per head, the grouped output attn_output_a (o_groups x o_lora_rank from heads x
 * head_dim / o_groups each) and attn_output_b (-> hidden). A compressed layer's compressor: ape (rate x width),
 * kv and gate (hidden -> width), a norm over head_dim, its width 2 x head_dim in a compressed sparse layer
 * (overlapping windows) and head_dim in a heavily compressed one; a compressed sparse layer's indexer: q_b
 * (q_lora_rank -> index_n_heads x index_head_dim), proj (hidden -> index_n_heads) and its own compressor of
 * width 2 x index_head_dim. */
static void add_compressed_attention(builder *b, uint64_t h)
{
    llmmem__geometry *g = b->geo;
    const unsigned any_ffn = (1u << LLMMEM_FFNS) - 1;
    llmmem__kind_set csa = llmmem__kinds_of(&g->plan, LLMMEM_MIXER_BIT(LLMMEM_MIXER_CSA), any_ffn);
    llmmem__kind_set hca = llmmem__kinds_of(&g->plan, LLMMEM_MIXER_BIT(LLMMEM_MIXER_HCA), any_ffn);
    llmmem__kind_set all = (llmmem__kind_set)(csa | hca | llmmem__kinds_of(&g->plan, LLMMEM_MIXER_BIT(LLMMEM_MIXER_SLIDING), any_ffn));
    if (require(b, LLMMEM_KEY_Q_LORA_RANK) || require(b, LLMMEM_KEY_HEAD_DIM) || require(b, LLMMEM_KEY_O_GROUPS) ||
        require(b, LLMMEM_KEY_O_LORA_RANK))
        return;
    uint64_t heads = value(b, LLMMEM_KEY_NUM_ATTENTION_HEADS), d = value(b, LLMMEM_KEY_HEAD_DIM);
    uint64_t q_rank = value(b, LLMMEM_KEY_Q_LORA_RANK), groups = value(b, LLMMEM_KEY_O_GROUPS);
    uint64_t o_rank = value(b, LLMMEM_KEY_O_LORA_RANK);
    uint64_t n = llmmem__layers_in(&g->plan, all, 0, g->layers), nc = llmmem__layers_in(&g->plan, csa, 0, g->layers);
    uint64_t nh = llmmem__layers_in(&g->plan, hca, 0, g->layers);
    if (n != g->layers || heads % groups) {
        fail(b, LLMMEM_ERR_UNSUPPORTED, "o_groups (%llu) must divide num_attention_heads (%llu), and every layer be "
             "sliding, compressed sparse or heavily compressed attention", (unsigned long long)groups,
             (unsigned long long)heads);
        return;
    }
    g->kv_heads = 1;
    g->head_dim = g->v_head_dim = d;
    g->q_lora_rank = q_rank;
    const llmmem_param_group A = LLMMEM_PARAMS_ATTENTION;
    b->kinds = all;
    add(b, "attn_q_a", A, LLMMEM_SPLIT_REPLICATED, 1, LLMMEM_LORA_TARGET_Q, q_rank, h, n, n);
    add_norm(b, "attn_q_a_norm", q_rank, n);
    add(b, "attn_q_b", A, LLMMEM_SPLIT_COLUMN, 1, LLMMEM_LORA_TARGET_Q, heads * d, q_rank, n, n);
    add(b, "attn_kv", A, LLMMEM_SPLIT_REPLICATED, 1, LLMMEM_LORA_TARGET_K | LLMMEM_LORA_TARGET_V, d, h, n, n);
    add_norm(b, "attn_kv_a_norm", d, n);
    add(b, "sinks", A, LLMMEM_SPLIT_COLUMN, 0, 0, 1, heads, n, n);
    add(b, "attn_output_a", A, LLMMEM_SPLIT_COLUMN, 1, LLMMEM_LORA_TARGET_O, groups * o_rank, heads / groups * d, n, n);
    add(b, "attn_output_b", A, LLMMEM_SPLIT_ROW, 1, LLMMEM_LORA_TARGET_O, h, groups * o_rank, n, n);
    const struct {
        llmmem__kind_set set;
        uint64_t layers, rate, width;
    } compressors[2] = {{csa, nc, value(b, LLMMEM_KEY_COMPRESS_RATE_CSA), 2 * d},
                        {hca, nh, value(b, LLMMEM_KEY_COMPRESS_RATE_HCA), d}};
    for (unsigned i = 0; i < 2; i++) {
        b->kinds = compressors[i].set;
        add(b, "compressor.ape", A, LLMMEM_SPLIT_REPLICATED, 0, 0, compressors[i].rate, compressors[i].width,
            compressors[i].layers, compressors[i].layers);
        add(b, "compressor.kv_gate", A, LLMMEM_SPLIT_REPLICATED, 1, 0, compressors[i].width, h, 2 * compressors[i].layers,
            2 * compressors[i].layers);
        add_norm(b, "compressor.norm", d, compressors[i].layers);
    }
    uint64_t ih = value(b, LLMMEM_KEY_INDEX_N_HEADS), id = value(b, LLMMEM_KEY_INDEX_HEAD_DIM);
    b->kinds = csa;
    if (nc && (require(b, LLMMEM_KEY_INDEX_N_HEADS) || require(b, LLMMEM_KEY_INDEX_HEAD_DIM)))
        return;
    add(b, "indexer.q_b", A, LLMMEM_SPLIT_REPLICATED, 1, 0, ih * id, q_rank, nc, nc);
    add(b, "indexer.proj", A, LLMMEM_SPLIT_REPLICATED, 0, 0, ih, h, nc, nc);
    add(b, "indexer.compressor.ape", A, LLMMEM_SPLIT_REPLICATED, 0, 0, compressors[0].rate, 2 * id, nc, nc);
    add(b, "indexer.compressor.kv_gate", A, LLMMEM_SPLIT_REPLICATED, 1, 0, 2 * id, h, 2 * nc, 2 * nc);
    add_norm(b, "indexer.compressor.norm", id, nc);
}

/* Manifold-constrained hyper-connections (DeepSeek-V4, ds4.c weights_validate_layout): before a layer's attention
 * and before its feed-forward, a mixing function from the hc_mult streams (hidden x hc_mult -> 2 hc + hc^2), its
 * base and a scale of three; at the output, output_hc_fn (hidden x hc -> hc), its base and one scale. */
static void add_hyper_connections(builder *b, uint64_t h, uint64_t layers)
{
    uint64_t hc = value(b, LLMMEM_KEY_HC_MULT), mix = 2 * hc + hc * hc;
    b->geo->hc_mult = hc;
    if (hc == 0)
        return;
    llmmem__kind_set kinds = b->kinds;
    add(b, "hc.fn", LLMMEM_PARAMS_OTHER, LLMMEM_SPLIT_REPLICATED, 0, 0, mix, h * hc, 2 * layers, 2 * layers);
    add_vector(b, "hc.base_scale", LLMMEM_PARAMS_OTHER, mix + 3, 2 * layers);
    b->kinds = 0;
    add(b, "output_hc.fn", LLMMEM_PARAMS_OTHER, LLMMEM_SPLIT_REPLICATED, 0, 0, hc, h * hc, 1, 1);
    add_vector(b, "output_hc.base_scale", LLMMEM_PARAMS_OTHER, hc + 1, 1);
    b->kinds = kinds;
}

/* Attention residuals (Kimi K3's AttnRes; Megatron-Bridge kimi_k3_layers.py KimiK3TransformerLayer and
 * kimi_k3_bridge.py mapping_registry): every layer mixes its block bank through self_attention_res_norm and
 * self_attention_res_proj (hidden -> 1) before attention and mlp_res_norm and mlp_res_proj before the MLP; the model's
 * output through output_attn_res_norm and output_attn_res_proj. The norms are RMSNorms (KimiRMSNorm); the 1-row
 * projections stay in the weights' dtype (matrix 0). */
static void add_attn_res(builder *b, uint64_t h, uint64_t layers)
{
    if (value(b, LLMMEM_KEY_ATTN_RES_BLOCK_SIZE) == 0)
        return;
    llmmem__kind_set kinds = b->kinds;
    add_norm(b, "attn_res.norms", h, 2 * layers);
    add(b, "attn_res.proj", LLMMEM_PARAMS_OTHER, LLMMEM_SPLIT_REPLICATED, 0, 0, 1, h, 2 * layers, 2 * layers);
    b->kinds = 0;
    add_norm(b, "output_attn_res_norm", h, 1);
    add(b, "output_attn_res_proj", LLMMEM_PARAMS_OTHER, LLMMEM_SPLIT_REPLICATED, 0, 0, 1, h, 1, 1);
    b->kinds = kinds;
}

/* DeepSeek sparse attention's lightning indexer in an MLA layer (deepseek-ai/DeepSeek-V3.2-Exp
 * inference/model.py Indexer; vllm model_executor/models/deepseek_v2.py Indexer). */
static void add_indexer(builder *b, uint64_t h, uint64_t layers)
{
    uint64_t n = value(b, LLMMEM_KEY_INDEX_N_HEADS), d = value(b, LLMMEM_KEY_INDEX_HEAD_DIM);
    uint64_t q_rank = value(b, LLMMEM_KEY_Q_LORA_RANK);
    if (n == 0)
        return;
    if (require(b, LLMMEM_KEY_INDEX_HEAD_DIM))
        return;
    if (q_rank == 0) {
        fail(b, LLMMEM_ERR_INCOMPATIBLE, "index_n_heads (%llu): the indexer's wq_b reads the q_lora_rank latent, "
             "but q_lora_rank is 0", (unsigned long long)n);
        return;
    }
    /* vLLM ReplicatedLinear wq_b (q_lora_rank -> n x d) and wk (hidden -> d), quantized with the layer */
    add(b, "indexer.wq_b", LLMMEM_PARAMS_ATTENTION, LLMMEM_SPLIT_REPLICATED, 1, 0, n * d, q_rank, layers, layers);
    add(b, "indexer.wk", LLMMEM_PARAMS_ATTENTION, LLMMEM_SPLIT_REPLICATED, 1, 0, d, h, layers, layers);
    /* k_norm is a LayerNorm (weight and bias) whatever the model's norm_type */
    add_vector(b, "indexer.k_norm", LLMMEM_PARAMS_NORMS, d, 2 * layers);
    /* weights_proj: quant_config=None in vLLM, bf16 in the reference: never quantized (matrix 0) */
    add(b, "indexer.weights_proj", LLMMEM_PARAMS_ATTENTION, LLMMEM_SPLIT_REPLICATED, 0, 0, n, h, layers, layers);
    /* vllm deepseek_v2.py Indexer.k_cache: fp8 key of d bytes and an fp32 scale per 128 of it, uint8 */
    b->geo->index_cache = d + d / 128 * 4;
}

/* minimax_m3_vl's lightning indexer in its standard-attention layers, on the layers from index_first_layer on
 * (Megatron-Bridge models/minimax_m3/modeling_minimax_m3_vl.py MiniMaxM3LightningIndexerState, replicated: the
 * checkpoint's self_attn.index_q_proj [heads x dim, hidden], index_k_proj [dim, hidden], index_q_norm and
 * index_k_norm [dim]). Its layers must be whole layer kinds: those whose every layer lies from the first on. */
static void add_lightning_indexer(builder *b, uint64_t h, uint64_t layers)
{
    uint64_t n = value(b, LLMMEM_KEY_INDEX_N_HEADS), d = value(b, LLMMEM_KEY_INDEX_HEAD_DIM);
    uint64_t first = value(b, LLMMEM_KEY_INDEX_FIRST_LAYER);
    llmmem__geometry *g = b->geo;
    /* another family's index_n_heads names DeepSeek's indexer, which reads an MLA latent (add_indexer) */
    if (n == 0 || value(b, LLMMEM_KEY_MODEL_TYPE) != LLMMEM_MODEL_MINIMAX_M3_VL ||
        require(b, LLMMEM_KEY_INDEX_HEAD_DIM))
        return;
    llmmem__kind_set set = 0;
    for (unsigned k = 0; k < g->plan.n; k++)
        if ((((unsigned)g->attention >> k) & 1u) &&
            llmmem__layers_in(&g->plan, (llmmem__kind_set)(1u << k), 0, first) == 0)
            set |= (llmmem__kind_set)(1u << k);
    const uint64_t on = llmmem__layers_in(&g->plan, set, 0, layers);
    if (first >= layers || on != layers - first) {
        fail(b, LLMMEM_ERR_UNSUPPORTED, "index_first_layer (%llu): a lightning indexer on the layers from it on is "
             "modelled where they are whole layer kinds (attention and feed-forward) of the %llu layers: here they "
             "are not", (unsigned long long)first, (unsigned long long)layers);
        return;
    }
    llmmem__kind_set kinds = b->kinds;
    b->kinds = set;
    unsigned at = b->inv->n;
    add(b, "index_q_proj", LLMMEM_PARAMS_ATTENTION, LLMMEM_SPLIT_REPLICATED, 1, 0, n * d, h, on, on);
    /* vllm models/minimax_m3/nvidia/model.py MiniMaxM3SparseAttention (index_q in MinimaxM3QKVParallelLinearWithIndexer
     * with the KV heads' sharding) and sglang models/minimax_m3.py MiniMaxM3Attention (index_qkv_proj over
     * min(tp, heads) ranks): whole heads, one replicated on every rank where the ranks outnumber them (the key
     * index_k_proj's one head replicated by both) */
    if (b->inv->n > at)
        b->inv->t[at].served_head = (uint32_t)d;
    add(b, "index_k_proj", LLMMEM_PARAMS_ATTENTION, LLMMEM_SPLIT_REPLICATED, 1, 0, d, h, on, on);
    add_vector(b, "index_qk_norm", LLMMEM_PARAMS_NORMS, d, 2 * on);
    b->kinds = kinds;
    g->index_layers = on;
    /* vllm models/minimax_m3/common/indexer.py MiniMaxM3IndexerCache.get_kv_cache_spec: one key of d a token, one
     * head on every rank, in indexer_kv_dtype's bf16 (the default; fp8 keys need SM100's MSA indexer) */
    g->index_cache = d * 2;
}

/* Multi-head latent attention: DeepSeek-V2 paper §2.1 and modeling_deepseek.py DeepseekV2Attention. */
static void add_mla(builder *b, uint64_t h, uint64_t layers)
{
    uint64_t heads = value(b, LLMMEM_KEY_NUM_ATTENTION_HEADS);
    uint64_t q_rank = value(b, LLMMEM_KEY_Q_LORA_RANK), kv_rank = value(b, LLMMEM_KEY_KV_LORA_RANK);
    uint64_t rope = value(b, LLMMEM_KEY_QK_ROPE_HEAD_DIM), nope = value(b, LLMMEM_KEY_QK_NOPE_HEAD_DIM);
    uint64_t v_dim = value(b, LLMMEM_KEY_V_HEAD_DIM);
    if (require(b, LLMMEM_KEY_QK_ROPE_HEAD_DIM) || require(b, LLMMEM_KEY_QK_NOPE_HEAD_DIM) ||
        require(b, LLMMEM_KEY_V_HEAD_DIM))
        return;
    llmmem__geometry *g = b->geo;
    g->q_lora_rank = q_rank;
    g->qk_rope_head_dim = rope;
    g->qk_nope_head_dim = nope;
    g->kv_heads = 1;
    g->head_dim = nope + rope;
    g->v_head_dim = v_dim;
    /* transformers DeepseekV3Attention caches every head's key (nope + rope) and value (v_head_dim);
     * vLLM MLAAttentionSpec caches one latent head of kv_lora_rank + qk_rope_head_dim */
    g->kv_token = (llmmem__kv_token){heads, 1, nope + rope + v_dim};
    g->kv_latent = (llmmem__kv_token){1, 1, kv_rank + rope};
    uint64_t q_out = heads * (nope + rope);
    if (q_rank) {
        add(b, "q_a_proj", LLMMEM_PARAMS_ATTENTION, LLMMEM_SPLIT_REPLICATED, 1, LLMMEM_LORA_TARGET_Q, q_rank, h, layers, layers);
        add_norm(b, "q_a_layernorm", q_rank, layers);
        add(b, "q_b_proj", LLMMEM_PARAMS_ATTENTION, LLMMEM_SPLIT_COLUMN, 1, LLMMEM_LORA_TARGET_Q, q_out, q_rank, layers, layers);
    } else {
        add(b, "q_proj", LLMMEM_PARAMS_ATTENTION, LLMMEM_SPLIT_COLUMN, 1, LLMMEM_LORA_TARGET_Q, q_out, h, layers, layers);
    }
    add(b, "kv_a_proj_with_mqa", LLMMEM_PARAMS_ATTENTION, LLMMEM_SPLIT_REPLICATED, 1, LLMMEM_LORA_TARGET_K | LLMMEM_LORA_TARGET_V,
        kv_rank + rope, h, layers, layers);
    add_norm(b, "kv_a_layernorm", kv_rank, layers);
    add(b, "kv_b_proj", LLMMEM_PARAMS_ATTENTION, LLMMEM_SPLIT_COLUMN, 1, LLMMEM_LORA_TARGET_K | LLMMEM_LORA_TARGET_V,
        heads * (nope + v_dim), kv_rank, layers, layers);
    add(b, "o_proj", LLMMEM_PARAMS_ATTENTION, LLMMEM_SPLIT_ROW, 1, LLMMEM_LORA_TARGET_O, h, heads * v_dim, layers, layers);
    /* Kimi K3's mla_use_output_gate (Megatron-Bridge kimi_k3_layers.py _init_mla): g_proj hidden -> heads x
     * v_head_dim, column-parallel, a sigmoid gate on the attention output */
    if (value(b, LLMMEM_KEY_ATTN_OUTPUT_GATE))
        add(b, "g_proj", LLMMEM_PARAMS_ATTENTION, LLMMEM_SPLIT_COLUMN, 1, 0, heads * v_dim, h, layers, layers);
    add_indexer(b, h, layers);
}

/* ---- token mixers that keep a state ------------------------------------------------------ */

/* The Mamba-2 mixer of every Mamba-2 layer. transformers models/mamba2/modeling_mamba2.py
 * Mamba2Mixer (NemotronHMamba2Mixer is its copy): in_proj to 2 x inner + 2 x groups x state +
 * heads (gate z, x, B, C, dt), a depthwise conv1d over conv_dim = inner + 2 x groups x state,
 * dt_bias, A_log and D per head, MambaRMSNormGated over inner, out_proj back to hidden. */
static void add_mamba2(builder *b, uint64_t h)
{
    llmmem__geometry *g = b->geo;
    uint64_t layers = g->ssm_layers;
    if (layers == 0)
        return;
    if (require(b, LLMMEM_KEY_MAMBA_NUM_HEADS) || require(b, LLMMEM_KEY_MAMBA_HEAD_DIM) ||
        require(b, LLMMEM_KEY_SSM_STATE_SIZE))
        return;
    uint64_t heads = value(b, LLMMEM_KEY_MAMBA_NUM_HEADS), head_dim = value(b, LLMMEM_KEY_MAMBA_HEAD_DIM);
    uint64_t state = value(b, LLMMEM_KEY_SSM_STATE_SIZE), groups = value(b, LLMMEM_KEY_MAMBA_N_GROUPS);
    uint64_t kernel = value(b, LLMMEM_KEY_MAMBA_D_CONV);
    if (heads % groups != 0) {
        fail(b, LLMMEM_ERR_INCOMPATIBLE, "mamba_num_heads (%llu) is not divisible by mamba_n_groups (%llu)",
             (unsigned long long)heads, (unsigned long long)groups);
        return;
    }
    /* every factor is below 2^24 by the key bounds: no product below overflows */
    uint64_t inner = heads * head_dim, conv_dim = inner + 2 * groups * state;
    uint64_t proj = inner + conv_dim + heads;
    g->mamba_heads = heads;
    g->mamba_head_dim = head_dim;
    g->mamba_state = state;
    g->mamba_groups = groups;
    g->mamba_conv_kernel = kernel;
    g->mamba_conv_dim = conv_dim;
    const llmmem_param_group S = LLMMEM_PARAMS_SSM;
    /* vLLM mamba_mixer2.py MambaMixer2: in_proj and conv1d column-parallel, out_proj row-parallel */
    add(b, "mamba.in_proj", S, LLMMEM_SPLIT_COLUMN, 1, 0, proj, h, layers, layers);
    add(b, "mamba.conv1d", S, LLMMEM_SPLIT_COLUMN, 0, 0, conv_dim, kernel, layers, layers);
    if (value(b, LLMMEM_KEY_MAMBA_CONV_BIAS))
        add(b, "mamba.conv1d.bias", S, LLMMEM_SPLIT_COLUMN, 0, 0, 1, conv_dim, layers, layers);
    add(b, "mamba.dt_bias_A_log_D", S, LLMMEM_SPLIT_COLUMN, 0, 0, 1, heads, 3 * layers, 3 * layers);
    if (value(b, LLMMEM_KEY_MAMBA_RMS_NORM)) /* modeling_falcon_h1.py FalconH1Mixer: self.norm only when mamba_rms_norm */
        add(b, "mamba.norm", S, LLMMEM_SPLIT_COLUMN, 0, 0, 1, inner, layers, layers);
    add(b, "mamba.out_proj", S, LLMMEM_SPLIT_ROW, 1, 0, h, inner, layers, layers);
    if (value(b, LLMMEM_KEY_MAMBA_PROJ_BIAS)) {
        add(b, "mamba.in_proj.bias", S, LLMMEM_SPLIT_COLUMN, 0, 0, 1, proj, layers, layers);
        add_vector(b, "mamba.out_proj.bias", S, h, layers);
    }
}

/* The Mamba-1 mixer of every Mamba-1 layer. transformers models/jamba/modeling_jamba.py JambaMambaMixer:
 * in_proj hidden -> 2 x inner (inner = mamba_expand x hidden), a depthwise conv1d over inner channels
 * (kernel mamba_d_conv, bias mamba_conv_bias), x_proj inner -> dt_rank + 2 x d_state, dt_proj
 * dt_rank -> inner with bias, A_log inner x d_state, D inner, out_proj inner -> hidden (in_proj and
 * out_proj biased by mamba_proj_bias), dt/b/c_layernorm JambaRMSNorm of dt_rank, d_state, d_state. */
static void add_mamba1(builder *b, uint64_t h)
{
    llmmem__geometry *g = b->geo;
    uint64_t layers = g->mamba1_layers;
    if (layers == 0)
        return;
    if (require(b, LLMMEM_KEY_SSM_STATE_SIZE))
        return;
    uint64_t inner, state = value(b, LLMMEM_KEY_SSM_STATE_SIZE), kernel = value(b, LLMMEM_KEY_MAMBA_D_CONV);
    uint64_t rank = value(b, LLMMEM_KEY_MAMBA_DT_RANK);
    if (rank == 0) /* configuration_jamba.py: mamba_dt_rank "auto" is math.ceil(hidden_size / 16) */
        rank = llmmem__ceil_div(h, 16);
    if (!llmmem__mul(&inner, value(b, LLMMEM_KEY_MAMBA_EXPAND), h)) {
        fail(b, LLMMEM_ERR_OVERFLOW, "mamba_expand x hidden_size exceeds 64 bits");
        return;
    }
    g->m1_inner = inner;
    g->m1_dt_rank = rank;
    g->m1_state = state;
    g->m1_conv_kernel = kernel;
    const llmmem_param_group S = LLMMEM_PARAMS_SSM;
    /* vLLM mamba_mixer.py MambaMixer: in_proj, conv1d, x_proj's input, dt_proj, A and D split by inner channel
     * (column), out_proj row-parallel; the per-layer counts below every factor < 2^40: add() checks the products */
    add(b, "mamba1.in_proj", S, LLMMEM_SPLIT_COLUMN, 1, 0, 2 * inner, h, layers, layers);
    add(b, "mamba1.conv1d", S, LLMMEM_SPLIT_COLUMN, 0, 0, inner, kernel, layers, layers);
    if (value(b, LLMMEM_KEY_MAMBA_CONV_BIAS))
        add(b, "mamba1.conv1d.bias", S, LLMMEM_SPLIT_COLUMN, 0, 0, 1, inner, layers, layers);
    add(b, "mamba1.x_proj", S, LLMMEM_SPLIT_ROW, 1, 0, rank + 2 * state, inner, layers, layers);
    add(b, "mamba1.dt_proj", S, LLMMEM_SPLIT_COLUMN, 1, 0, inner, rank, layers, layers);
    add(b, "mamba1.dt_proj.bias_D", S, LLMMEM_SPLIT_COLUMN, 0, 0, 1, inner, 2 * layers, 2 * layers);
    add(b, "mamba1.A_log", S, LLMMEM_SPLIT_COLUMN, 0, 0, inner, state, layers, layers);
    /* JambaMambaMixer's dt_layernorm, b_layernorm, c_layernorm; Phi-4-flash's _Phi3Mamba has none */
    if (value(b, LLMMEM_KEY_MODEL_TYPE) != LLMMEM_MODEL_PHI4FLASH)
        add_vector(b, "mamba1.dt_b_c_layernorm", S, rank + 2 * state, layers);
    add(b, "mamba1.out_proj", S, LLMMEM_SPLIT_ROW, 1, 0, h, inner, layers, layers);
    if (value(b, LLMMEM_KEY_MAMBA_PROJ_BIAS)) {
        add(b, "mamba1.in_proj.bias", S, LLMMEM_SPLIT_COLUMN, 0, 0, 1, 2 * inner, layers, layers);
        add_vector(b, "mamba1.out_proj.bias", S, h, layers);
    }
}

/* Phi-4-flash's gated memory units (modeling_phi4flash.py _Phi3Mamba with yoco_cross; vllm phi4flash.py Phi4Mamba):
 * in_proj hidden -> mamba_expand x hidden, gating the memory the last Mamba-1 layer left, out_proj back; on the
 * layers the reader makes mixer-free (they keep nothing across tokens). */
static void add_gated_memory_units(builder *b, uint64_t h)
{
    llmmem__geometry *g = b->geo;
    const llmmem__kind_set gmu = llmmem__kinds_of(&g->plan, LLMMEM_MIXER_BIT(LLMMEM_MIXER_NONE), (1u << LLMMEM_FFNS) - 1);
    uint64_t layers = llmmem__layers_in(&g->plan, gmu, 0, g->layers), inner;
    if (layers == 0)
        return;
    if (!llmmem__mul(&inner, value(b, LLMMEM_KEY_MAMBA_EXPAND), h)) {
        fail(b, LLMMEM_ERR_OVERFLOW, "mamba_expand x hidden_size exceeds 64 bits");
        return;
    }
    b->kinds = gmu;
    add(b, "gmu.in_proj", LLMMEM_PARAMS_SSM, LLMMEM_SPLIT_COLUMN, 1, 0, inner, h, layers, layers);
    add(b, "gmu.out_proj", LLMMEM_PARAMS_SSM, LLMMEM_SPLIT_ROW, 1, 0, h, inner, layers, layers);
    if (value(b, LLMMEM_KEY_MAMBA_PROJ_BIAS)) {
        add(b, "gmu.in_proj.bias", LLMMEM_PARAMS_SSM, LLMMEM_SPLIT_COLUMN, 0, 0, 1, inner, layers, layers);
        add_vector(b, "gmu.out_proj.bias", LLMMEM_PARAMS_SSM, h, layers);
    }
}

/* Phi-4-flash's differential attention (modeling_phi4flash.py SambaYAttention; vllm phi4flash.py): Wqkv of
 * heads + 2 x KV heads of hidden / heads, biased, on the layers that compute keys and values, of the query alone on
 * the layers that read layer num_hidden_layers / 2 + 1's (yoco_cross); out_proj biased; lambda_q1, k1, q2, k2 of
 * a head's width and subln, an RMSNorm over two heads' width, on every attention layer. */
static void add_differential_attention(builder *b, uint64_t h)
{
    llmmem__geometry *g = b->geo;
    uint64_t heads = value(b, LLMMEM_KEY_NUM_ATTENTION_HEADS), kv = value(b, LLMMEM_KEY_NUM_KEY_VALUE_HEADS);
    if (heads == 0) {
        fail(b, LLMMEM_ERR_INCOMPLETE, "phi4flash's attention needs num_attention_heads");
        return;
    }
    if (kv == 0)
        kv = heads;
    if (h % heads || heads % kv) {
        fail(b, LLMMEM_ERR_INCOMPATIBLE, "hidden_size (%llu), num_attention_heads (%llu) and num_key_value_heads "
             "(%llu) do not divide", (unsigned long long)h, (unsigned long long)heads, (unsigned long long)kv);
        return;
    }
    const uint64_t d = h / heads;
    const unsigned any_ffn = (1u << LLMMEM_FFNS) - 1;
    g->kv_heads = kv;
    g->head_dim = g->v_head_dim = d;
    g->kv_token = (llmmem__kv_token){kv, 2, d};
    const llmmem__kind_set own =
        llmmem__kinds_of(&g->plan, LLMMEM_MIXER_BIT(LLMMEM_MIXER_SLIDING) | LLMMEM_MIXER_BIT(LLMMEM_MIXER_FULL), any_ffn);
    const llmmem__kind_set all =
        (llmmem__kind_set)(own | llmmem__kinds_of(&g->plan, LLMMEM_MIXER_BIT(LLMMEM_MIXER_FULL_SHARED), any_ffn));
    uint64_t n_own = llmmem__layers_in(&g->plan, own, 0, g->layers), n_all = llmmem__layers_in(&g->plan, all, 0, g->layers);
    const llmmem_param_group A = LLMMEM_PARAMS_ATTENTION;
    b->kinds = all;
    add(b, "q_proj", A, LLMMEM_SPLIT_COLUMN, 1, LLMMEM_LORA_TARGET_Q, h, h, n_all, n_all);
    add(b, "q_proj.bias", A, LLMMEM_SPLIT_COLUMN, 0, 0, 1, h, n_all, n_all);
    add(b, "o_proj", A, LLMMEM_SPLIT_ROW, 1, LLMMEM_LORA_TARGET_O, h, h, n_all, n_all);
    add_vector(b, "o_proj.bias", A, h, n_all);
    add(b, "lambdas", A, LLMMEM_SPLIT_REPLICATED, 0, 0, 4, d, n_all, n_all);
    add_vector(b, "subln", LLMMEM_PARAMS_NORMS, 2 * d, n_all);
    b->kinds = own;
    add(b, "k_proj", A, LLMMEM_SPLIT_COLUMN, 1, LLMMEM_LORA_TARGET_K, kv * d, h, n_own, n_own);
    add(b, "v_proj", A, LLMMEM_SPLIT_COLUMN, 1, LLMMEM_LORA_TARGET_V, kv * d, h, n_own, n_own);
    add(b, "k_proj.bias", A, LLMMEM_SPLIT_COLUMN, 0, 0, 1, kv * d, n_own, n_own);
    add(b, "v_proj.bias", A, LLMMEM_SPLIT_COLUMN, 0, 0, 1, kv * d, n_own, n_own);
}

/* The short-convolution mixer of LFM2's conv layers (transformers models/lfm2/modeling_lfm2.py Lfm2ShortConv):
 * in_proj hidden -> 3 x hidden (B, C, x), a depthwise conv of conv_L_cache over hidden channels, out_proj back,
 * biased by conv_bias. */
static void add_short_conv(builder *b, uint64_t h)
{
    llmmem__geometry *g = b->geo;
    uint64_t layers = g->conv_layers, kernel = value(b, LLMMEM_KEY_CONV_L_CACHE);
    if (layers == 0)
        return;
    g->conv_kernel = kernel;
    const llmmem_param_group S = LLMMEM_PARAMS_SSM;
    /* vLLM model_executor/layers/mamba/short_conv.py ShortConv: in_proj and conv column-parallel, out_proj row */
    add(b, "conv.in_proj", S, LLMMEM_SPLIT_COLUMN, 1, 0, 3 * h, h, layers, layers);
    add(b, "conv.conv", S, LLMMEM_SPLIT_COLUMN, 0, 0, h, kernel, layers, layers);
    add(b, "conv.out_proj", S, LLMMEM_SPLIT_ROW, 1, 0, h, h, layers, layers);
    if (value(b, LLMMEM_KEY_CONV_BIAS))
        add_vector(b, "conv.bias", S, 3 * h + h + h, layers);
}

/* Kimi Delta Attention (moonshotai/Kimi-Linear modeling_kimi.py KimiDeltaAttention, its tensors as the
 * checkpoint's tensor table lists them): q_proj, k_proj, v_proj (hidden -> heads x head_dim), a depthwise
 * convolution of each without bias, the low-rank decay gate f_a_proj (hidden -> head_dim) and f_b_proj, dt_bias
 * per channel and A_log per head (both stored float32), b_proj (hidden -> heads), the low-rank output gate
 * g_a_proj and g_b_proj (Kimi K3's use_full_rank_gate: one g_proj, hidden -> heads x head_dim; Megatron-Bridge
 * kimi_k3_layers.py _init_kda), o_norm over a head and o_proj. Its state is Gated DeltaNet's arrangement with key and
 * value heads alike: the three convolutions' windows and a heads x head_dim^2 recurrent state (vLLM
 * mamba_utils.py kda_state_shape). */
static void add_kimi_delta_attention(builder *b, uint64_t h, uint64_t layers, uint64_t heads, uint64_t d,
                                     uint64_t kernel)
{
    const llmmem_param_group S = LLMMEM_PARAMS_SSM;
    uint64_t inner = heads * d; /* below 2^48 by the key bounds */
    /* Kimi K3's checkpoint stores A_log as 128 entries, its 96 heads and 32 zeros (Megatron-Bridge kimi_k3_bridge.py
     * maybe_modify_loaded_hf_weight; card kimi-k3 megatron_to_hf_gpu: "96 active heads plus 32 zero-valued inactive
     * entries"), and the convolutions and o_norm in float32 (the Hub's F32 count of its checkpoint, 11,122,432, is
     * 69 x (128 + 12,288 + 3 x 12,288 x 4 + 128) + 92 x 896 correction biases) */
    const int k3 = value(b, LLMMEM_KEY_MODEL_TYPE) == LLMMEM_MODEL_KIMI_K3;
    /* vLLM kimi_linear.py KimiDeltaAttention: q, k, v, f_b, g_b projections column-parallel, o_proj row-parallel */
    add(b, "kda.qkv_proj", S, LLMMEM_SPLIT_COLUMN, 1, 0, inner, h, 3 * layers, 3 * layers);
    unsigned at = b->inv->n;
    add(b, "kda.qkv_conv1d", S, LLMMEM_SPLIT_COLUMN, 0, 0, inner, kernel, 3 * layers, 3 * layers);
    if (b->inv->n > at && k3)
        b->inv->t[at].fp32 = 1;
    if (value(b, LLMMEM_KEY_LINEAR_FULL_RANK_GATE)) {
        add(b, "kda.f_a_proj", S, LLMMEM_SPLIT_REPLICATED, 1, 0, d, h, layers, layers);
        add(b, "kda.f_b_proj", S, LLMMEM_SPLIT_COLUMN, 1, 0, inner, d, layers, layers);
        add(b, "kda.g_proj", S, LLMMEM_SPLIT_COLUMN, 1, 0, inner, h, layers, layers);
    } else {
        add(b, "kda.f_g_a_proj", S, LLMMEM_SPLIT_REPLICATED, 1, 0, d, h, 2 * layers, 2 * layers);
        add(b, "kda.f_g_b_proj", S, LLMMEM_SPLIT_COLUMN, 1, 0, inner, d, 2 * layers, 2 * layers);
    }
    at = b->inv->n;
    add(b, "kda.dt_bias", S, LLMMEM_SPLIT_COLUMN, 0, 0, 1, inner, layers, layers);
    add(b, "kda.A_log", S, LLMMEM_SPLIT_COLUMN, 0, 0, 1, k3 && heads < 128 ? 128 : heads, layers, layers);
    for (unsigned i = at; i < b->inv->n; i++)
        b->inv->t[i].fp32 = 1;
    add(b, "kda.b_proj", S, LLMMEM_SPLIT_COLUMN, 1, 0, heads, h, layers, layers);
    at = b->inv->n;
    add_vector(b, "kda.o_norm", S, d, layers);
    if (b->inv->n > at && k3)
        b->inv->t[at].fp32 = 1;
    add(b, "kda.o_proj", S, LLMMEM_SPLIT_ROW, 1, 0, h, inner, layers, layers);
}

/* The Gated DeltaNet mixer of every linear_attention layer. transformers
 * models/qwen3_next/modeling_qwen3_next.py Qwen3NextGatedDeltaNet: in_proj_qkvz to 2 x key_dim +
 * 2 x value_dim, in_proj_ba to 2 x value heads, a bias-free depthwise conv1d over 2 x key_dim +
 * value_dim, dt_bias and A_log per value head, a gated RMSNorm over one value head, out_proj. */
static void add_gated_deltanet(builder *b, uint64_t h)
{
    llmmem__geometry *g = b->geo;
    uint64_t layers = g->linear_layers;
    if (layers == 0)
        return;
    if (require(b, LLMMEM_KEY_LINEAR_NUM_KEY_HEADS) || require(b, LLMMEM_KEY_LINEAR_NUM_VALUE_HEADS) ||
        require(b, LLMMEM_KEY_LINEAR_KEY_HEAD_DIM) || require(b, LLMMEM_KEY_LINEAR_VALUE_HEAD_DIM))
        return;
    uint64_t k_heads = value(b, LLMMEM_KEY_LINEAR_NUM_KEY_HEADS), v_heads = value(b, LLMMEM_KEY_LINEAR_NUM_VALUE_HEADS);
    uint64_t k_dim = value(b, LLMMEM_KEY_LINEAR_KEY_HEAD_DIM), v_dim = value(b, LLMMEM_KEY_LINEAR_VALUE_HEAD_DIM);
    uint64_t kernel = value(b, LLMMEM_KEY_LINEAR_CONV_KERNEL_DIM);
    if (v_heads % k_heads != 0) { /* the keys are repeated over the value heads */
        fail(b, LLMMEM_ERR_INCOMPATIBLE, "linear_num_value_heads (%llu) is not divisible by linear_num_key_heads (%llu)",
             (unsigned long long)v_heads, (unsigned long long)k_heads);
        return;
    }
    uint64_t key_dim = k_heads * k_dim, value_dim = v_heads * v_dim, conv_dim = 2 * key_dim + value_dim;
    g->gdn_k_heads = k_heads;
    g->gdn_v_heads = v_heads;
    g->gdn_k_dim = k_dim;
    g->gdn_v_dim = v_dim;
    g->gdn_conv_kernel = kernel;
    g->gdn_conv_dim = conv_dim;
    const llmmem_param_group S = LLMMEM_PARAMS_SSM;
    if (value(b, LLMMEM_KEY_LINEAR_ATTN_KDA)) {
        add_kimi_delta_attention(b, h, layers, k_heads, k_dim, kernel);
        return;
    }
    /* vLLM qwen3_next.py Qwen3NextGatedDeltaNet: in projections and conv1d column-parallel, out_proj row-parallel */
    add(b, "linear_attn.in_proj_qkvz", S, LLMMEM_SPLIT_COLUMN, 1, 0, 2 * key_dim + 2 * value_dim, h, layers, layers);
    add(b, "linear_attn.in_proj_ba", S, LLMMEM_SPLIT_COLUMN, 1, 0, 2 * v_heads, h, layers, layers);
    add(b, "linear_attn.conv1d", S, LLMMEM_SPLIT_COLUMN, 0, 0, conv_dim, kernel, layers, layers);
    add(b, "linear_attn.dt_bias_A_log", S, LLMMEM_SPLIT_COLUMN, 0, 0, 1, v_heads, 2 * layers, 2 * layers);
    add_vector(b, "linear_attn.norm", S, v_dim, layers);
    add(b, "linear_attn.out_proj", S, LLMMEM_SPLIT_ROW, 1, 0, h, value_dim, layers, layers);
}

/* One MLP of width f: gate/up (column-parallel) and down (row-parallel), `count` copies of which
 * `active` serve one token. Megatron-LM ParallelMLP; gated per Shazeer 2020 (GLU variants). */
static void add_mlp(builder *b, const char *const names[3], llmmem_param_group group, enum llmmem__split col,
                    enum llmmem__split row, uint64_t h, uint64_t f, uint64_t count, uint64_t active)
{
    int gated = value(b, LLMMEM_KEY_MLP_GATED) != 0;
    if (gated)
        add(b, names[0], group, col, 1, LLMMEM_LORA_TARGET_GATE, f, h, count, active);
    add(b, names[1], group, col, 1, LLMMEM_LORA_TARGET_UP, f, h, count, active);
    add(b, names[2], group, row, 1, LLMMEM_LORA_TARGET_DOWN, h, f, count, active);
    /* transformers activations.py XIELUActivation: alpha_p and alpha_n, learned scalars of each MLP */
    if (group == LLMMEM_PARAMS_MLP && value(b, LLMMEM_KEY_MLP_ACT_PARAMS))
        add_vector(b, "mlp.act_params", group, value(b, LLMMEM_KEY_MLP_ACT_PARAMS), count);
    if (value(b, LLMMEM_KEY_MLP_BIAS)) {
        uint64_t biases = gated ? 2 : 1; /* one of width f per gate/up, one of width h for down */
        add(b, "mlp.bias.in", group, col, 0, 0, 1, f, count * biases, active * biases);
        add(b, "mlp.bias.out", group, LLMMEM_SPLIT_REPLICATED, 0, 0, 1, h, count, active);
    }
}

/* ---- layer kinds ------------------------------------------------------------------------- */

/* counted for every stage of every candidate layout: inlined (HOT_INLINE) */

/* Set bits of x, inline (the build targets x86-64 without POPCNT, where the builtin is a call). */
HOT_INLINE unsigned popcount64(uint64_t x)
{
    x -= (x >> 1) & 0x5555555555555555ULL;
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (unsigned)((x * 0x0101010101010101ULL) >> 56);
}

/* Layers of kind k among the first x listed ones. */
HOT_INLINE uint64_t listed_before(const llmmem__layer_plan *p, unsigned k, uint64_t x)
{
    uint64_t n = p->before[k][x / 64];
    if (x % 64)
        n += popcount64(p->bits[k][x / 64] & ((1ULL << (x % 64)) - 1));
    return n;
}

/* Layers of kind rule_kind among [first, end), first < end, by the rule's arithmetic. */
HOT_INLINE uint64_t rule_count(const llmmem__layer_plan *p, uint64_t first, uint64_t end)
{
    const uint64_t period = p->rule_period;
    if (p->rule == LLMMEM_RULE_WINDOW)
        return (end - first) - (end / period - first / period);
    if (first < p->rule_first)
        first = p->rule_first;
    if (end <= first)
        return 0;
    if (period == 1) /* every layer past the dense ones (DeepSeek-V3, Kimi K2): no division */
        return end - first;
    return llmmem__ceil_div(end, period) - llmmem__ceil_div(first, period); /* multiples of period */
}

/* Layers of kind k among layers [0, x) for x past the listed layers: whole periods and a remainder. */
static uint64_t past_before(const llmmem__layer_plan *p, unsigned k, uint64_t x)
{
    const uint64_t base = p->listed - p->period, at_base = listed_before(p, k, base);
    const uint64_t listed = listed_before(p, k, p->listed), past = x - p->listed;
    return listed + past / p->period * (listed - at_base) + listed_before(p, k, base + past % p->period) - at_base;
}

/* Layers of kind k among layers [0, x). */
HOT_INLINE uint64_t kind_before(const llmmem__layer_plan *p, unsigned k, uint64_t x)
{
    return x <= p->listed ? listed_before(p, k, x) : past_before(p, k, x);
}

uint64_t llmmem__layers_in(const llmmem__layer_plan *p, llmmem__kind_set set, uint64_t first, uint64_t end)
{
    if (end > p->layers)
        end = p->layers;
    if (end <= first || set == 0)
        return 0;
    if (set == (1u << p->n) - 1) /* every kind: dense models, norms */
        return end - first;
    if (p->rule) { /* two kinds: the rule's, or the other */
        uint64_t marked = rule_count(p, first, end);
        return ((unsigned)set >> p->rule_kind) & 1u ? marked : end - first - marked;
    }
    /* from the bitmaps, out of line: the paths above, taken per layer range of every stage, stay
     * short of saved registers */
    uint64_t on[LLMMEM_LAYER_KINDS_MAX], n = 0;
    llmmem__kind_counts(on, p, first, end);
    for (unsigned k = 0; k < p->n; k++)
        if (((unsigned)set >> k) & 1u)
            n += on[k];
    return n;
}

void llmmem__kind_counts(uint64_t on[LLMMEM_LAYER_KINDS_MAX], const llmmem__layer_plan *p, uint64_t first,
                         uint64_t end)
{
    if (end > p->layers)
        end = p->layers;
    uint64_t rest = end > first ? end - first : 0;
    if (p->rule) {
        on[p->rule_kind] = rest ? rule_count(p, first, end) : 0;
        on[1 - p->rule_kind] = rest - on[p->rule_kind];
        return;
    }
    for (unsigned k = 0; k + 1 < p->n; k++) { /* the last kind is what the others leave */
        on[k] = rest ? kind_before(p, k, end) - kind_before(p, k, first) : 0;
        rest -= on[k];
    }
    on[p->n ? p->n - 1 : 0] = rest;
}

llmmem__kind_set llmmem__kinds_of(const llmmem__layer_plan *p, unsigned mixers, unsigned ffns)
{
    llmmem__kind_set set = 0;
    for (unsigned k = 0; k < p->n; k++)
        if (((mixers >> p->kind[k].mixer) & 1u) && ((ffns >> p->kind[k].ffn) & 1u))
            set |= (llmmem__kind_set)(1u << k);
    return set;
}

/* The mixer of decoder layer i: the per-layer map's when the model has one (transformers'
 * layer_types, read as each layer's self_attn.sliding_window); else sliding when the window
 * applies to it: every layer when sliding_window_pattern is 0, else those with (i + 1) % pattern
 * != 0 (transformers Gemma2DecoderLayer: even layers slide, pattern 2; Gemma3TextConfig
 * sliding_window_pattern 6: five sliding layers, then a full one). Attention over every token is
 * MLA's when the model has kv_lora_rank. */
static enum llmmem__mixer mixer_of(const builder *b, uint64_t i, uint64_t pattern, uint64_t interval,
                                   uint64_t full_interval)
{
    const llmmem__layer_map *map = &b->m->layer_map;
    enum llmmem__mixer global = b->geo->kv_lora_rank ? LLMMEM_MIXER_MLA : LLMMEM_MIXER_FULL;
    uint64_t cross = value(b, LLMMEM_KEY_CROSS_ATTENTION_INTERVAL), first = value(b, LLMMEM_KEY_CROSS_ATTENTION_FIRST);
    /* transformers MllamaTextModel: MllamaCrossAttentionDecoderLayer where i is in cross_attention_layers */
    if (cross && i >= first && (i - first) % cross == 0)
        return LLMMEM_MIXER_CROSS;
    if (map->layers)
        return map->mixer[i] == LLMMEM_MIXER_FULL ? global : (enum llmmem__mixer)map->mixer[i];
    /* configuration_jamba.py layers_block_type: "attention" where i % attn_layer_period == attn_layer_offset, else "mamba" */
    uint64_t attn_period = value(b, LLMMEM_KEY_ATTN_LAYER_PERIOD);
    if (attn_period)
        return i % attn_period == value(b, LLMMEM_KEY_ATTN_LAYER_OFFSET) ? global : LLMMEM_MIXER_MAMBA1;
    /* Qwen3NextConfig layer_types: linear_attention where (i + 1) % full_attention_interval != 0 */
    if (full_interval)
        return (i + 1) % full_interval == 0 ? global : LLMMEM_MIXER_LINEAR;
    /* transformers Llama4TextConfig: no_rope_layers[i] = (i + 1) % no_rope_layer_interval != 0, and
     * layer_types[i] "chunked_attention" where no_rope_layers[i], "full_attention" (NoPE) elsewhere */
    if (b->geo->chunk)
        return interval == 0 || (i + 1) % interval != 0 ? LLMMEM_MIXER_CHUNKED : global;
    if (b->geo->window && (pattern == 0 || (i + 1) % pattern != 0))
        return LLMMEM_MIXER_SLIDING;
    return global;
}

/* The feed-forward of decoder layer i. DeepSeek modeling_deepseek.py: layer i is MoE if
 * i >= first_k_dense_replace and i % moe_layer_freq == 0; with interleave_moe_layer_step n,
 * transformers Llama4TextConfig moe_layers = range(n - 1, num_hidden_layers, n). */
static enum llmmem__ffn ffn_of(const builder *b, uint64_t i, uint64_t first_dense, uint64_t freq, uint64_t step)
{
    const llmmem__layer_map *map = &b->m->layer_map;
    if (map->layers && map->ffn[i]) /* NemotronHBlock: a mamba or attention block has no MLP, '-' and 'E' their own */
        return (enum llmmem__ffn)(map->ffn[i] - 1);
    if (value(b, LLMMEM_KEY_NUM_EXPERTS) == 0)
        return LLMMEM_FFN_DENSE;
    /* configuration_jamba.py layers_num_experts: num_experts where i % expert_layer_period == expert_layer_offset,
     * else 1; modeling_jamba.py: JambaSparseMoeBlock when the layer's num_experts > 1, else JambaMLP */
    uint64_t expert_period = value(b, LLMMEM_KEY_EXPERT_LAYER_PERIOD);
    if (expert_period)
        return value(b, LLMMEM_KEY_NUM_EXPERTS) > 1 && i % expert_period == value(b, LLMMEM_KEY_EXPERT_LAYER_OFFSET)
                   ? LLMMEM_FFN_MOE : LLMMEM_FFN_DENSE;
    if (step)
        return (i + 1) % step == 0 ? LLMMEM_FFN_MOE : LLMMEM_FFN_DENSE;
    return i >= first_dense && i % freq == 0 ? LLMMEM_FFN_MOE : LLMMEM_FFN_DENSE;
}

int llmmem__layer_map_from_pattern(llmmem__layer_map *map, const char *pattern, size_t len, int feed_forward,
                                   char *message, size_t message_size)
{
    memset(map, 0, sizeof *map);
    if (len > LLMMEM_LAYER_MAP_MAX) {
        snprintf(message, message_size, "more than %d layers are not modelled layer by layer", LLMMEM_LAYER_MAP_MAX);
        return 0;
    }
    for (size_t i = 0; i < len; i++) {
        /* transformers NemotronHConfig _pattern_to_list: M mamba, * attention, - mlp, E moe */
        const uint8_t none = feed_forward ? 0 : 1 + LLMMEM_FFN_NONE;
        switch (pattern[i]) {
        case 'M': llmmem__layer_map_push(map, LLMMEM_MIXER_SSM); map->ffn[i] = none; break;
        case '*': llmmem__layer_map_push(map, LLMMEM_MIXER_FULL); map->ffn[i] = none; break;
        case '-': llmmem__layer_map_push(map, LLMMEM_MIXER_NONE); map->ffn[i] = 1 + LLMMEM_FFN_DENSE; break;
        case 'E': llmmem__layer_map_push(map, LLMMEM_MIXER_NONE); map->ffn[i] = 1 + LLMMEM_FFN_MOE; break;
        default:
            snprintf(message, message_size, "character %zu ('%c') is not a modelled block (M mamba, * attention, "
                     "- mlp and E moe are)", i, pattern[i] >= 32 && pattern[i] < 127 ? pattern[i] : '?');
            return 0;
        }
    }
    return 1;
}

/* Which layers have which kind, and the sets and counts views ask for. Up to LLMMEM_LAYER_MAP_MAX
 * layers are listed one by one; a longer model repeats the period of its keys' patterns past them. */
static llmmem_status resolve_layers(builder *b, uint64_t layers)
{
    llmmem__geometry *g = b->geo;
    llmmem__layer_plan *p = &g->plan;
    const llmmem__layer_map *map = &b->m->layer_map;
    g->window = value(b, LLMMEM_KEY_SLIDING_WINDOW);
    g->chunk = value(b, LLMMEM_KEY_ATTENTION_CHUNK_SIZE);
    g->kv_lora_rank = value(b, LLMMEM_KEY_KV_LORA_RANK);
    uint64_t pattern = value(b, LLMMEM_KEY_SLIDING_WINDOW_PATTERN), interval = value(b, LLMMEM_KEY_NO_ROPE_LAYER_INTERVAL);
    uint64_t first_dense = value(b, LLMMEM_KEY_FIRST_K_DENSE_REPLACE), freq = value(b, LLMMEM_KEY_MOE_LAYER_FREQ);
    uint64_t step = value(b, LLMMEM_KEY_INTERLEAVE_MOE_LAYER_STEP);
    uint64_t full_interval = map->layers ? 0 : value(b, LLMMEM_KEY_FULL_ATTENTION_INTERVAL);
    const int moe = value(b, LLMMEM_KEY_NUM_EXPERTS) != 0;
    const uint64_t attn_period = map->layers ? 0 : value(b, LLMMEM_KEY_ATTN_LAYER_PERIOD);
    const uint64_t expert_period = map->layers ? 0 : value(b, LLMMEM_KEY_EXPERT_LAYER_PERIOD);
    if (attn_period && (full_interval || g->window || g->chunk || g->kv_lora_rank))
        return fail(b, LLMMEM_ERR_UNSUPPORTED, "attn_layer_period (%llu) with full_attention_interval, sliding_window, "
                    "attention_chunk_size or kv_lora_rank is not modelled", (unsigned long long)attn_period);
    if (expert_period && (step || first_dense || freq > 1))
        return fail(b, LLMMEM_ERR_UNSUPPORTED, "expert_layer_period (%llu) with interleave_moe_layer_step, "
                    "first_k_dense_replace or moe_layer_freq is not modelled", (unsigned long long)expert_period);
    if (g->window && g->chunk) /* one window per model: a cache layer keeps sliding_window or the chunk */
        return fail(b, LLMMEM_ERR_UNSUPPORTED, "sliding_window (%llu) and attention_chunk_size (%llu) in one model "
                    "are not modelled", (unsigned long long)g->window, (unsigned long long)g->chunk);
    if (full_interval && (g->window || g->chunk))
        return fail(b, LLMMEM_ERR_UNSUPPORTED, "full_attention_interval (%llu) with sliding_window (%llu) or "
                    "attention_chunk_size (%llu) is not modelled", (unsigned long long)full_interval,
                    (unsigned long long)g->window, (unsigned long long)g->chunk);
    if (map->layers) {
        if (map->layers != layers)
            return fail(b, LLMMEM_ERR_INCOMPATIBLE, "layer_types has %llu entries, but num_hidden_layers is %llu",
                        (unsigned long long)map->layers, (unsigned long long)layers);
        if (g->window == 0 && memchr(map->mixer, LLMMEM_MIXER_SLIDING, (size_t)map->layers))
            return fail(b, LLMMEM_ERR_INCOMPLETE, "layer_types has sliding_attention layers but sliding_window is not set");
        if (g->chunk == 0 && memchr(map->mixer, LLMMEM_MIXER_CHUNKED, (size_t)map->layers))
            return fail(b, LLMMEM_ERR_INCOMPLETE,
                        "layer_types has chunked_attention layers but attention_chunk_size is not set");
    }
    p->layers = layers;
    p->listed = layers < LLMMEM_LAYER_MAP_MAX ? layers : LLMMEM_LAYER_MAP_MAX;
    p->period = 1;
    if (layers > p->listed) { /* no map: periodic keys alone (a map has at most LLMMEM_LAYER_MAP_MAX layers) */
        uint64_t pm = full_interval ? full_interval : g->window && pattern ? pattern : g->chunk && interval ? interval : 1;
        uint64_t pf = moe ? (step ? step : freq) : 1, lead = moe && !step ? first_dense : 0;
        if (attn_period) /* Jamba: both patterns repeat from layer 0 */
            pm = attn_period;
        if (expert_period) {
            pf = expert_period;
            lead = 0;
        }
        uint64_t pc = value(b, LLMMEM_KEY_CROSS_ATTENTION_INTERVAL);
        if (pc) { /* cross-attention layers repeat every pc layers from the first */
            pm = pm / llmmem__gcd(pm, pc) * pc;
            if (value(b, LLMMEM_KEY_CROSS_ATTENTION_FIRST) > lead)
                lead = value(b, LLMMEM_KEY_CROSS_ATTENTION_FIRST);
        }
        uint64_t q = pm / llmmem__gcd(pm, pf);
        if (q > LLMMEM_LAYER_MAP_MAX / pf || lead > LLMMEM_LAYER_MAP_MAX - q * pf)
            return fail(b, LLMMEM_ERR_UNSUPPORTED,
                        "num_hidden_layers (%llu) exceeds %d and the layer pattern (sliding_window_pattern %llu, "
                        "first_k_dense_replace %llu, moe_layer_freq %llu) does not repeat within them",
                        (unsigned long long)layers, LLMMEM_LAYER_MAP_MAX, (unsigned long long)pattern,
                        (unsigned long long)first_dense, (unsigned long long)freq);
        p->period = q * pf;
    }
    const uint64_t kv_shared = value(b, LLMMEM_KEY_NUM_KV_SHARED_LAYERS);
    if (kv_shared && (kv_shared >= layers || g->kv_lora_rank || layers > p->listed))
        return fail(b, LLMMEM_ERR_INCOMPATIBLE, "num_kv_shared_layers (%llu) needs an earlier layer of each type to read "
                    "from (num_hidden_layers %llu) and standard attention (kv_lora_rank %llu)",
                    (unsigned long long)kv_shared, (unsigned long long)layers, (unsigned long long)g->kv_lora_rank);
    for (uint64_t i = 0; i < p->listed; i++) {
        llmmem__layer_kind kind = {(uint8_t)mixer_of(b, i, pattern, interval, full_interval),
                                   (uint8_t)ffn_of(b, i, first_dense, freq, step), map->layers ? map->block[i] : 0};
        /* Gemma4TextAttention: layers i >= num_hidden_layers - num_kv_shared_layers reuse the keys and values of
         * the last earlier layer of their type */
        if (i + kv_shared >= layers && kind.mixer == LLMMEM_MIXER_SLIDING)
            kind.mixer = LLMMEM_MIXER_SLIDING_SHARED;
        else if (i + kv_shared >= layers && kind.mixer == LLMMEM_MIXER_FULL)
            kind.mixer = LLMMEM_MIXER_FULL_SHARED;
        else if (i + kv_shared >= layers)
            return fail(b, LLMMEM_ERR_UNSUPPORTED, "num_kv_shared_layers (%llu) over layers other than full and sliding "
                        "attention is not modelled", (unsigned long long)kv_shared);
        unsigned k = 0;
        while (k < p->n && (p->kind[k].mixer != kind.mixer || p->kind[k].ffn != kind.ffn || p->kind[k].block != kind.block))
            k++;
        if (k == LLMMEM_LAYER_KINDS_MAX)
            return fail(b, LLMMEM_ERR_UNSUPPORTED, "the model's decoder layers are of more than %d kinds",
                        LLMMEM_LAYER_KINDS_MAX);
        if (k == p->n)
            p->kind[p->n++] = kind;
        p->bits[k][i / 64] |= 1ULL << (i % 64);
    }
    for (unsigned k = 0; k < p->n; k++)
        for (unsigned w = 0; w < LLMMEM_LAYER_MAP_MAX / 64; w++)
            p->before[k][w + 1] = (uint16_t)(p->before[k][w] + popcount64(p->bits[k][w]));
    /* two kinds from one key's pattern: count by its arithmetic, as fast as a uniform model */
    const int crossing = p->kind[0].mixer == LLMMEM_MIXER_CROSS || p->kind[1].mixer == LLMMEM_MIXER_CROSS;
    if (attn_period || expert_period) {
        /* Jamba's offsets: counted from the bitmaps (no rule) */
    } else if (!map->layers && p->n == 2 && p->kind[0].ffn == p->kind[1].ffn && !crossing && !kv_shared &&
               (full_interval ? full_interval : g->chunk ? interval : pattern) != 0) {
        /* the layers with (i + 1) % period != 0: sliding or chunked ones, or Gated DeltaNet ones (KV-shared
         * layers, a second kind from another key, are counted from the bitmaps) */
        enum llmmem__mixer periodic = full_interval ? LLMMEM_MIXER_LINEAR
                                      : g->chunk    ? LLMMEM_MIXER_CHUNKED
                                                    : LLMMEM_MIXER_SLIDING;
        p->rule = LLMMEM_RULE_WINDOW;
        p->rule_kind = p->kind[1].mixer == periodic;
        p->rule_period = full_interval ? full_interval : g->chunk ? interval : pattern;
    } else if (!map->layers && p->n == 2 && p->kind[0].mixer == p->kind[1].mixer && !step) {
        p->rule = LLMMEM_RULE_MOE;
        p->rule_kind = p->kind[1].ffn == LLMMEM_FFN_MOE;
        p->rule_first = first_dense;
        p->rule_period = freq;
    }
    llmmem__kind_counts(p->total, p, 0, layers);
    const unsigned any_ffn = (1u << LLMMEM_FFNS) - 1, any_mixer = (1u << LLMMEM_MIXERS) - 1;
    g->all = (llmmem__kind_set)((1u << p->n) - 1);
    g->attention = llmmem__kinds_of(p, llmmem__mixers_with(LLMMEM_MIXER_ATTENTION), any_ffn);
    g->dense = llmmem__kinds_of(p, any_mixer, LLMMEM_FFN_BIT(LLMMEM_FFN_DENSE));
    g->moe = llmmem__kinds_of(p, any_mixer, LLMMEM_FFN_BIT(LLMMEM_FFN_MOE) | LLMMEM_FFN_BIT(LLMMEM_FFN_HASH_MOE));
    g->compressed_layers = llmmem__layers_in(
        p, llmmem__kinds_of(p, LLMMEM_MIXER_BIT(LLMMEM_MIXER_CSA) | LLMMEM_MIXER_BIT(LLMMEM_MIXER_HCA), any_ffn), 0, layers);
    /* transformers cache_utils.py DynamicCache/StaticCache: a chunked_attention layer is cached as a
     * sliding one whose window is attention_chunk_size (only the mask tells them apart) */
    g->sliding = llmmem__kinds_of(p, llmmem__mixers_with(LLMMEM_MIXER_WINDOWED),
                                  any_ffn);
    g->chunked = llmmem__kinds_of(p, LLMMEM_MIXER_BIT(LLMMEM_MIXER_CHUNKED), any_ffn);
    g->cross = llmmem__kinds_of(p, llmmem__mixers_with(LLMMEM_MIXER_CROSSING), any_ffn);
    g->cross_layers = llmmem__layers_in(p, g->cross, 0, layers);
    if (g->chunked)
        g->window = g->chunk;
    else
        g->chunk = 0;
    g->ssm = llmmem__kinds_of(p, LLMMEM_MIXER_BIT(LLMMEM_MIXER_SSM), any_ffn);
    g->linear = llmmem__kinds_of(p, LLMMEM_MIXER_BIT(LLMMEM_MIXER_LINEAR), any_ffn);
    g->ssm_layers = llmmem__layers_in(p, g->ssm, 0, layers);
    g->mamba1 = llmmem__kinds_of(p, LLMMEM_MIXER_BIT(LLMMEM_MIXER_MAMBA1), any_ffn);
    g->mamba1_layers = llmmem__layers_in(p, g->mamba1, 0, layers);
    g->linear_layers = llmmem__layers_in(p, g->linear, 0, layers);
    g->conv = llmmem__kinds_of(p, LLMMEM_MIXER_BIT(LLMMEM_MIXER_SHORT_CONV), any_ffn);
    g->conv_layers = llmmem__layers_in(p, g->conv, 0, layers);
    g->parallel_ssm = value(b, LLMMEM_KEY_PARALLEL_SSM) != 0;
    if (g->parallel_ssm) {
        /* modeling_falcon_h1.py FalconH1DecoderLayer: self.mamba (FalconH1Mixer) beside self.self_attn in every layer */
        if (g->ssm_layers || g->linear_layers || g->mamba1_layers || g->cross_layers ||
            llmmem__layers_in(p, g->attention, 0, layers) != layers)
            return fail(b, LLMMEM_ERR_UNSUPPORTED, "parallel_ssm with layers other than attention ones (Mamba-2, "
                        "Gated DeltaNet, Mamba-1 or cross-attention layers) is not modelled");
        g->ssm_layers = layers;
    }
    g->dense_layers = llmmem__layers_in(p, g->dense, 0, layers);
    g->moe_layers = llmmem__layers_in(p, g->moe, 0, layers);
    /* Gemma 4's last num_kv_shared_layers, or a map's KV-shared layers (Phi-4-flash's yoco_cross attention) */
    g->kv_shared_layers = llmmem__layers_in(
        p, llmmem__kinds_of(p, LLMMEM_MIXER_BIT(LLMMEM_MIXER_SLIDING_SHARED) | LLMMEM_MIXER_BIT(LLMMEM_MIXER_FULL_SHARED),
                            any_ffn), 0, layers);
    return LLMMEM_OK;
}

static const char *const dense_names[3] = {"mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"};
static const char *const expert_names[3] = {"experts.gate_proj", "experts.up_proj", "experts.down_proj"};
static const char *const shared_names[3] = {"shared_experts.gate_proj", "shared_experts.up_proj",
                                            "shared_experts.down_proj"};

/* The dense MLPs of width f; with use_double_wide_mlp the KV-shared layers' are 2f wide (transformers
 * models/gemma4/modular_gemma4.py Gemma4TextMLP: intermediate_size * 2 on a KV-shared layer). */
static void add_dense_mlps(builder *b, uint64_t h, uint64_t f)
{
    llmmem__geometry *g = b->geo;
    const llmmem__kind_set wide =
        value(b, LLMMEM_KEY_DOUBLE_WIDE_MLP)
            ? (llmmem__kind_set)(g->dense & llmmem__kinds_of(&g->plan, llmmem__mixers_with(LLMMEM_MIXER_SHARED_KV),
                                                             (1u << LLMMEM_FFNS) - 1))
            : 0;
    uint64_t n = llmmem__layers_in(&g->plan, (llmmem__kind_set)(g->dense & ~wide), 0, g->layers);
    b->kinds = (llmmem__kind_set)(g->dense & ~wide);
    add_mlp(b, dense_names, LLMMEM_PARAMS_MLP, LLMMEM_SPLIT_COLUMN, LLMMEM_SPLIT_ROW, h, f, n, n);
    if (wide) {
        n = llmmem__layers_in(&g->plan, wide, 0, g->layers);
        b->kinds = wide;
        add_mlp(b, dense_names, LLMMEM_PARAMS_MLP, LLMMEM_SPLIT_COLUMN, LLMMEM_SPLIT_ROW, h, 2 * f, n, n);
    }
    b->kinds = g->dense;
}

static void add_ffn(builder *b, uint64_t h, uint64_t layers)
{
    uint64_t f = value(b, LLMMEM_KEY_INTERMEDIATE_SIZE);
    if (f == 0)
        f = 4 * h;
    uint64_t experts = value(b, LLMMEM_KEY_NUM_EXPERTS);
    llmmem__geometry *g = b->geo;
    g->ffn = f;
    b->kinds = g->dense;
    if (experts == 0) {
        add_dense_mlps(b, h, f);
        return;
    }
    uint64_t top_k = value(b, LLMMEM_KEY_NUM_EXPERTS_PER_TOK);
    if (top_k == 0) {
        fail(b, LLMMEM_ERR_INCOMPLETE, "num_experts is %llu but num_experts_per_tok is not set",
             (unsigned long long)experts);
        return;
    }
    if (top_k > experts) {
        fail(b, LLMMEM_ERR_INCOMPATIBLE, "num_experts_per_tok (%llu) exceeds num_experts (%llu)",
             (unsigned long long)top_k, (unsigned long long)experts);
        return;
    }
    uint64_t first_dense = value(b, LLMMEM_KEY_FIRST_K_DENSE_REPLACE);
    if (first_dense > layers) {
        fail(b, LLMMEM_ERR_INCOMPATIBLE, "first_k_dense_replace (%llu) exceeds num_hidden_layers (%llu)",
             (unsigned long long)first_dense, (unsigned long long)layers);
        return;
    }
    uint64_t moe_layers = g->moe_layers;
    g->experts = experts;
    g->experts_per_tok = top_k;
    add_dense_mlps(b, h, f);

    b->kinds = g->moe;
    uint64_t fe = value(b, LLMMEM_KEY_MOE_INTERMEDIATE_SIZE);
    if (fe == 0)
        fe = f;
    g->ffn_expert = fe;
    uint64_t routed, active;
    if (!llmmem__mul(&routed, moe_layers, experts) || !llmmem__mul(&active, moe_layers, top_k)) {
        fail(b, LLMMEM_ERR_OVERFLOW, "expert count exceeds 64 bits");
        return;
    }
    /* transformers modular_nemotron_h.py NemotronHMoE: with moe_latent_size the experts read and write that
     * width, fc1_latent_proj (hidden -> latent) before them and fc2_latent_proj after, biased by mlp_bias */
    uint64_t latent = value(b, LLMMEM_KEY_MOE_LATENT_SIZE), expert_width = latent ? latent : h;
    g->moe_latent = latent;
    add_mlp(b, expert_names, LLMMEM_PARAMS_EXPERTS, LLMMEM_SPLIT_EXPERT, LLMMEM_SPLIT_EXPERT, expert_width, fe, routed,
            active);
    if (latent) {
        add(b, "moe.fc1_latent_proj", LLMMEM_PARAMS_EXPERTS, LLMMEM_SPLIT_REPLICATED, 1, 0, latent, h, moe_layers,
            moe_layers);
        add(b, "moe.fc2_latent_proj", LLMMEM_PARAMS_EXPERTS, LLMMEM_SPLIT_REPLICATED, 1, 0, h, latent, moe_layers,
            moe_layers);
        if (value(b, LLMMEM_KEY_MLP_BIAS)) {
            add_vector(b, "moe.fc1_latent_proj.bias", LLMMEM_PARAMS_EXPERTS, latent, moe_layers);
            add_vector(b, "moe.fc2_latent_proj.bias", LLMMEM_PARAMS_EXPERTS, h, moe_layers);
        }
        /* Kimi K3's latent_moe_use_norm (Megatron-Bridge kimi_k3_layers.py KimiK3MoELayer.routed_expert_norm): an
         * RMSNorm over the latent width on the experts' combined output, before fc2_latent_proj */
        if (value(b, LLMMEM_KEY_MOE_LATENT_NORM))
            add_vector(b, "moe.routed_expert_norm", LLMMEM_PARAMS_EXPERTS, latent, moe_layers);
    }
    /* The router: a linear from hidden to one logit per expert (Mixtral's gate, DeepSeek's MoEGate). */
    unsigned router_at = b->inv->n;
    add(b, "router", LLMMEM_PARAMS_ROUTER, LLMMEM_SPLIT_REPLICATED, 1, 0, experts, h, moe_layers, moe_layers);
    if (b->inv->n > router_at && value(b, LLMMEM_KEY_ROUTER_FP32))
        b->inv->t[router_at].fp32 = 1;
    if (value(b, LLMMEM_KEY_ROUTER_BIAS))
        add_vector(b, "router.bias", LLMMEM_PARAMS_ROUTER, experts, moe_layers);
    if (value(b, LLMMEM_KEY_ROUTER_SCALES)) { /* Gemma4TextRouter: scale [hidden], per_expert_scale [experts] */
        add_vector(b, "router.scale", LLMMEM_PARAMS_ROUTER, h, moe_layers);
        add_vector(b, "router.per_expert_scale", LLMMEM_PARAMS_ROUTER, experts, moe_layers);
    }
    /* the hash-routed layers (DeepSeek-V4's first ones) take their experts from a token-id table, int32 (4 bytes
     * an entry, as the fp32 flag stores it) of top_k entries a vocabulary row (ds4.c ffn_gate_tid2eid), and have
     * no correction bias (exp_probs_b) */
    const llmmem__kind_set hash = llmmem__kinds_of(&g->plan, (1u << LLMMEM_MIXERS) - 1, LLMMEM_FFN_BIT(LLMMEM_FFN_HASH_MOE));
    const uint64_t hash_layers = llmmem__layers_in(&g->plan, hash, 0, g->layers);
    if (value(b, LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS)) {
        unsigned at = b->inv->n;
        b->kinds = (llmmem__kind_set)(g->moe & ~hash);
        add_vector(b, "router.e_score_correction_bias", LLMMEM_PARAMS_ROUTER, experts, moe_layers - hash_layers);
        /* deepseek-ai/DeepSeek-V3 inference/model.py Gate.bias: dtype torch.float32 (router_bias_fp32) */
        if (b->inv->n > at && value(b, LLMMEM_KEY_ROUTER_BIAS_FP32))
            b->inv->t[at].fp32 = 1;
        b->kinds = g->moe;
    }
    if (hash_layers) {
        unsigned at = b->inv->n;
        b->kinds = hash;
        add(b, "router.tid2eid", LLMMEM_PARAMS_ROUTER, LLMMEM_SPLIT_REPLICATED, 0, 0, g->vocab, top_k, hash_layers,
            hash_layers);
        if (b->inv->n > at)
            b->inv->t[at].fp32 = 1;
        b->kinds = g->moe;
    }

    uint64_t fs = value(b, LLMMEM_KEY_SHARED_EXPERT_INTERMEDIATE_SIZE);
    if (fs == 0 && !llmmem__mul(&fs, value(b, LLMMEM_KEY_N_SHARED_EXPERTS), fe)) {
        fail(b, LLMMEM_ERR_OVERFLOW, "shared expert width exceeds 64 bits");
        return;
    }
    g->ffn_shared = fs;
    if (fs) {
        add_mlp(b, shared_names, LLMMEM_PARAMS_SHARED_EXPERTS, LLMMEM_SPLIT_COLUMN, LLMMEM_SPLIT_ROW, h, fs,
                moe_layers, moe_layers);
        if (value(b, LLMMEM_KEY_SHARED_EXPERT_GATE)) /* Qwen2MoeSparseMoeBlock.shared_expert_gate */
            add(b, "shared_expert_gate", LLMMEM_PARAMS_SHARED_EXPERTS, LLMMEM_SPLIT_REPLICATED, 0, 0, 1, h,
                moe_layers, moe_layers);
    }
}

/* The Qwen2.5-VL and Qwen3-VL vision towers (visual.*), merger included: qwen3 when kind is 4.
 * Qwen2.5-VL: transformers models/qwen2_5_vl/modeling_qwen2_5_vl.py Qwen2_5_VisionTransformerPretrainedModel;
 * Qwen3-VL: models/qwen3_vl/modeling_qwen3_vl.py Qwen3VLVisionModel. */
static void add_qwen_vision(builder *b, uint64_t text_hidden, int qwen3)
{
    if (require(b, LLMMEM_KEY_VISION_HIDDEN_SIZE) || require(b, LLMMEM_KEY_VISION_INTERMEDIATE_SIZE) ||
        require(b, LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS) || require(b, LLMMEM_KEY_VISION_PATCH_SIZE))
        return;
    if (qwen3 && require(b, LLMMEM_KEY_VISION_NUM_POSITION_EMBEDDINGS))
        return;
    const llmmem_param_group V = LLMMEM_PARAMS_VISION;
    b->kinds = 0;
    uint64_t vh = value(b, LLMMEM_KEY_VISION_HIDDEN_SIZE), vi = value(b, LLMMEM_KEY_VISION_INTERMEDIATE_SIZE);
    uint64_t layers = value(b, LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS), patch = value(b, LLMMEM_KEY_VISION_PATCH_SIZE);
    uint64_t channels = value(b, LLMMEM_KEY_VISION_NUM_CHANNELS), frames = value(b, LLMMEM_KEY_VISION_TEMPORAL_PATCH_SIZE);
    uint64_t merge = value(b, LLMMEM_KEY_VISION_SPATIAL_MERGE_SIZE), out = value(b, LLMMEM_KEY_VISION_OUT_HIDDEN_SIZE);
    if (frames == 0)
        frames = 2; /* Qwen2_5_VLVisionConfig and Qwen3VLVisionConfig temporal_patch_size=2 */
    if (merge == 0)
        merge = 2;  /* their spatial_merge_size=2 */
    if (out == 0)
        out = text_hidden;
    /* the key bounds keep these below 2^24 (sides below 2^6, channels below 2^7): no overflow */
    uint64_t kernel = channels * frames * patch * patch, merged = vh * merge * merge;
    /* Qwen2_5_VisionPatchEmbed: Conv3d over temporal_patch_size x patch x patch, bias=False;
     * Qwen3VLVisionPatchEmbed: the same Conv3d with bias=True */
    add(b, "vision.patch_embed", V, LLMMEM_SPLIT_REPLICATED, 1, 0, vh, kernel, 1, 1);
    if (qwen3) {
        add_vector(b, "vision.patch_embed.bias", V, vh, 1);
        /* Qwen3VLVisionModel.pos_embed: nn.Embedding(num_position_embeddings, hidden_size) */
        add(b, "vision.pos_embed", V, LLMMEM_SPLIT_REPLICATED, 0, 0, value(b, LLMMEM_KEY_VISION_NUM_POSITION_EMBEDDINGS),
            vh, 1, 1);
    }
    /* Qwen2_5_VLVisionBlock: norm1, norm2 RMSNorm; Qwen3VLVisionBlock: LayerNorm (weight and bias) */
    add_vector(b, "vision.block_norms", V, vh, (qwen3 ? 4 : 2) * layers);
    /* VisionAttention: qkv Linear(dim, 3 dim, bias=True), proj Linear(dim, dim) with bias; EXAONE 4.5's
     * (modular_exaone4_5.py Exaone4_5_VisionAttention) qkv Linear(dim, dim + 2 x kv heads x head width) */
    uint64_t heads = value(b, LLMMEM_KEY_VISION_NUM_ATTENTION_HEADS), kv = value(b, LLMMEM_KEY_VISION_NUM_KEY_VALUE_HEADS);
    uint64_t qkv = kv && heads ? vh + 2 * kv * (vh / heads) : 3 * vh; /* kv <= 2^20, vh < 2^24: no overflow */
    add(b, "vision.attn.qkv", V, LLMMEM_SPLIT_COLUMN, 1, 0, qkv, vh, layers, layers);
    add(b, "vision.attn.proj", V, LLMMEM_SPLIT_ROW, 1, 0, vh, vh, layers, layers);
    add_vector(b, "vision.attn.bias", V, qkv + vh, layers);
    if (qwen3) { /* Qwen3VLVisionMLP: linear_fc1, linear_fc2, both biased */
        add(b, "vision.mlp.linear_fc1", V, LLMMEM_SPLIT_COLUMN, 1, 0, vi, vh, layers, layers);
        add(b, "vision.mlp.linear_fc2", V, LLMMEM_SPLIT_ROW, 1, 0, vh, vi, layers, layers);
        add_vector(b, "vision.mlp.bias", V, vi + vh, layers);
    } else { /* Qwen2_5_VLMLP(bias=True): gate_proj, up_proj, down_proj, each biased */
        add(b, "vision.mlp.gate_up_proj", V, LLMMEM_SPLIT_COLUMN, 1, 0, vi, vh, 2 * layers, 2 * layers);
        add(b, "vision.mlp.down_proj", V, LLMMEM_SPLIT_ROW, 1, 0, vh, vi, layers, layers);
        add_vector(b, "vision.mlp.bias", V, 2 * vi + vh, layers);
    }
    /* Qwen2_5_VLPatchMerger: ln_q RMSNorm(context_dim), mlp Linear(4h, 4h) + GELU + Linear(4h, out), biased;
     * Qwen3VLVisionPatchMerger: norm LayerNorm(h), linear_fc1, linear_fc2, biased; each deepstack merger
     * the same with its LayerNorm over the merged 4h (use_postshuffle_norm=True) */
    uint64_t mergers = 1 + (qwen3 ? value(b, LLMMEM_KEY_VISION_DEEPSTACK_LAYERS) : 0);
    add_vector(b, "vision.merger.norm", V, vh, qwen3 ? 2 : 1);
    if (qwen3)
        add_vector(b, "vision.deepstack_merger.norm", V, merged, 2 * (mergers - 1));
    add(b, "vision.merger.fc1", V, LLMMEM_SPLIT_REPLICATED, 1, 0, merged, merged, mergers, mergers);
    add(b, "vision.merger.fc2", V, LLMMEM_SPLIT_REPLICATED, 1, 0, out, merged, mergers, mergers);
    add_vector(b, "vision.merger.bias", V, merged + out, mergers);
}

/* The Pixtral tower and the Mistral 3 projector. transformers models/pixtral/modeling_pixtral.py
 * PixtralVisionModel: patch_conv (Conv2d, bias=False), ln_pre RMSNorm, layers of attention_norm,
 * q/k/v/o (bias=False), ffn_norm and a gated MLP (bias=False); models/mistral3/modeling_mistral3.py
 * Mistral3MultiModalProjector: norm RMSNorm(vision), patch_merger.merging_layer Linear(h * m^2, h,
 * bias=False), linear_1 (vision -> text), linear_2 (text -> text), biased by multimodal_projector_bias
 * (False, the only value read). */
static void add_pixtral(builder *b, uint64_t text_hidden)
{
    if (require(b, LLMMEM_KEY_VISION_HIDDEN_SIZE) || require(b, LLMMEM_KEY_VISION_INTERMEDIATE_SIZE) ||
        require(b, LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS) || require(b, LLMMEM_KEY_VISION_PATCH_SIZE))
        return;
    const llmmem_param_group V = LLMMEM_PARAMS_VISION;
    b->kinds = 0;
    uint64_t vh = value(b, LLMMEM_KEY_VISION_HIDDEN_SIZE), vi = value(b, LLMMEM_KEY_VISION_INTERMEDIATE_SIZE);
    uint64_t layers = value(b, LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS), patch = value(b, LLMMEM_KEY_VISION_PATCH_SIZE);
    uint64_t channels = value(b, LLMMEM_KEY_VISION_NUM_CHANNELS), merge = value(b, LLMMEM_KEY_VISION_SPATIAL_MERGE_SIZE);
    if (merge == 0)
        merge = 2; /* Mistral3Config spatial_merge_size=2 */
    add(b, "vision.patch_conv", V, LLMMEM_SPLIT_REPLICATED, 1, 0, vh, channels * patch * patch, 1, 1);
    add_vector(b, "vision.norms", V, vh, 1 + 2 * layers); /* ln_pre, attention_norm and ffn_norm per layer */
    add(b, "vision.attention", V, LLMMEM_SPLIT_COLUMN, 1, 0, vh, vh, 4 * layers, 4 * layers);
    add(b, "vision.feed_forward.gate_up", V, LLMMEM_SPLIT_COLUMN, 1, 0, vi, vh, 2 * layers, 2 * layers);
    add(b, "vision.feed_forward.down", V, LLMMEM_SPLIT_ROW, 1, 0, vh, vi, layers, layers);
    if (llmmem__model_value(b->m, LLMMEM_KEY_MULTIMODAL_PROJECTOR) != LLMMEM__PROJECTOR_MISTRAL3)
        return;
    add_vector(b, "projector.norm", V, vh, 1);
    add(b, "projector.patch_merger", V, LLMMEM_SPLIT_REPLICATED, 1, 0, vh, vh * merge * merge, 1, 1);
    add(b, "projector.linear_1", V, LLMMEM_SPLIT_REPLICATED, 1, 0, text_hidden, vh, 1, 1);
    add(b, "projector.linear_2", V, LLMMEM_SPLIT_REPLICATED, 1, 0, text_hidden, text_hidden, 1, 1);
}
static void add_llama4_vision(builder *b, uint64_t text_hidden);
static void add_mllama_vision(builder *b, uint64_t text_hidden);

/* The Gemma 4 vision tower and its embedder (transformers models/gemma4/modular_gemma4.py):
 * Gemma4VisionPatchEmbedder input_proj (3 x patch^2 -> hidden, no bias) and position_embedding_table
 * (2 x position_embedding_size x hidden); Gemma4VisionEncoderLayer: q, k, v, o (heads x hidden / heads, no
 * bias; with use_clipped_linears four scalar bound buffers each, which the Hub's counts leave out and this
 * inventory too), q_norm and k_norm over a head, four norms, a gated MLP; std_bias and std_scale when
 * standardize; Gemma4MultimodalEmbedder embed_vision: a weightless RMSNorm and a linear to the text width. */
static void add_gemma4_vision(builder *b, uint64_t text_hidden)
{
    if (require(b, LLMMEM_KEY_VISION_HIDDEN_SIZE) || require(b, LLMMEM_KEY_VISION_INTERMEDIATE_SIZE) ||
        require(b, LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS) || require(b, LLMMEM_KEY_VISION_PATCH_SIZE) ||
        require(b, LLMMEM_KEY_VISION_NUM_ATTENTION_HEADS) || require(b, LLMMEM_KEY_VISION_NUM_POSITION_EMBEDDINGS))
        return;
    const llmmem_param_group V = LLMMEM_PARAMS_VISION;
    b->kinds = 0;
    uint64_t vh = value(b, LLMMEM_KEY_VISION_HIDDEN_SIZE), vi = value(b, LLMMEM_KEY_VISION_INTERMEDIATE_SIZE);
    uint64_t layers = value(b, LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS), patch = value(b, LLMMEM_KEY_VISION_PATCH_SIZE);
    uint64_t heads = value(b, LLMMEM_KEY_VISION_NUM_ATTENTION_HEADS);
    uint64_t positions = value(b, LLMMEM_KEY_VISION_NUM_POSITION_EMBEDDINGS);
    add(b, "vision.patch_embedder.input_proj", V, LLMMEM_SPLIT_REPLICATED, 1, 0, vh, 3 * patch * patch, 1, 1);
    add(b, "vision.position_embedding_table", V, LLMMEM_SPLIT_REPLICATED, 0, 0, 2 * positions, vh, 1, 1);
    add(b, "vision.attention", V, LLMMEM_SPLIT_COLUMN, 1, 0, vh, vh, 4 * layers, 4 * layers);
    add_vector(b, "vision.qk_norm", V, vh / heads, 2 * layers);
    add_vector(b, "vision.layer_norms", V, vh, 4 * layers);
    add(b, "vision.mlp.gate_up", V, LLMMEM_SPLIT_COLUMN, 1, 0, vi, vh, 2 * layers, 2 * layers);
    add(b, "vision.mlp.down", V, LLMMEM_SPLIT_ROW, 1, 0, vh, vi, layers, layers);
    if (value(b, LLMMEM_KEY_VISION_STANDARDIZE))
        add_vector(b, "vision.std_bias_scale", V, vh, 2);
    if (llmmem__model_value(b->m, LLMMEM_KEY_MULTIMODAL_PROJECTOR) == LLMMEM__PROJECTOR_GEMMA4)
        add(b, "embed_vision", V, LLMMEM_SPLIT_REPLICATED, 1, 0, text_hidden, vh, 1, 1);
}

/* The Gemma 4 audio tower and its embedder (transformers models/gemma4/modular_gemma4.py):
 * Gemma4AudioSubSampleConvProjection (two 3 x 3 convolutions without bias, each with a bias-free LayerNorm,
 * and input_proj_linear from channels[0] / 4 x channels[1] to hidden); per Gemma4AudioLayer two
 * Gemma4AudioFeedForward (hidden -> 4 hidden -> hidden, two norms), Gemma4AudioAttention (q, k, v, post and
 * relative_k_proj, hidden x hidden, and per_dim_scale over a head), Gemma4AudioLightConv1d (linear_start
 * hidden -> 2 hidden, a depthwise kernel, linear_end, two norms) and three norms; output_proj (biased) to
 * output_proj_dims; embed_audio a linear from it to the text width. The clippable linears' scalar bounds
 * are left out, as the Hub's counts leave them out. */
static void add_gemma4_audio(builder *b, uint64_t text_hidden)
{
    uint64_t a = value(b, LLMMEM_KEY_AUDIO_HIDDEN_SIZE);
    if (a == 0)
        return;
    if (require(b, LLMMEM_KEY_AUDIO_NUM_HIDDEN_LAYERS) || require(b, LLMMEM_KEY_AUDIO_NUM_ATTENTION_HEADS) ||
        require(b, LLMMEM_KEY_AUDIO_CONV_KERNEL_SIZE) || require(b, LLMMEM_KEY_AUDIO_SUBSAMPLING_CHANNELS_0) ||
        require(b, LLMMEM_KEY_AUDIO_SUBSAMPLING_CHANNELS_1) || require(b, LLMMEM_KEY_AUDIO_OUTPUT_PROJ_DIMS))
        return;
    const llmmem_param_group V = LLMMEM_PARAMS_VISION;
    b->kinds = 0;
    uint64_t layers = value(b, LLMMEM_KEY_AUDIO_NUM_HIDDEN_LAYERS), heads = value(b, LLMMEM_KEY_AUDIO_NUM_ATTENTION_HEADS);
    uint64_t c0 = value(b, LLMMEM_KEY_AUDIO_SUBSAMPLING_CHANNELS_0), c1 = value(b, LLMMEM_KEY_AUDIO_SUBSAMPLING_CHANNELS_1);
    uint64_t out = value(b, LLMMEM_KEY_AUDIO_OUTPUT_PROJ_DIMS), kernel = value(b, LLMMEM_KEY_AUDIO_CONV_KERNEL_SIZE);
    add(b, "audio.subsample.conv0", V, LLMMEM_SPLIT_REPLICATED, 0, 0, c0, 9, 1, 1);
    add(b, "audio.subsample.conv1", V, LLMMEM_SPLIT_REPLICATED, 0, 0, c1, 9 * c0, 1, 1);
    add_vector(b, "audio.subsample.norms", V, c0 + c1, 1);
    add(b, "audio.subsample.input_proj", V, LLMMEM_SPLIT_REPLICATED, 1, 0, a, c0 / 4 * c1, 1, 1);
    add(b, "audio.feed_forward", V, LLMMEM_SPLIT_COLUMN, 1, 0, 4 * a, a, 4 * layers, 4 * layers); /* 2 x (in, out) */
    add(b, "audio.attention", V, LLMMEM_SPLIT_COLUMN, 1, 0, a, a, 5 * layers, 5 * layers);
    add_vector(b, "audio.attention.per_dim_scale", V, a / heads, layers);
    add(b, "audio.lconv.linear_start", V, LLMMEM_SPLIT_COLUMN, 1, 0, 2 * a, a, layers, layers);
    add(b, "audio.lconv.linear_end", V, LLMMEM_SPLIT_ROW, 1, 0, a, a, layers, layers);
    add(b, "audio.lconv.depthwise_conv1d", V, LLMMEM_SPLIT_COLUMN, 0, 0, a, kernel, layers, layers);
    add_vector(b, "audio.layer_norms", V, a, 9 * layers); /* 2 per feed-forward, 2 in the conv, 3 of the layer */
    add(b, "audio.output_proj", V, LLMMEM_SPLIT_REPLICATED, 1, 0, out, a, 1, 1);
    add_vector(b, "audio.output_proj.bias", V, out, 1);
    add(b, "embed_audio", V, LLMMEM_SPLIT_REPLICATED, 1, 0, text_hidden, out, 1, 1);
}

/* Kimi-K2.5's MoonViT and its projector, as moonshotai/Kimi-K2.5's checkpoint stores them (its tensor table,
 * r33 SOURCES id 62530201892; vision_tower.* and mm_projector.*): patch_embed.proj a biased Conv2d (3 x patch^2 -> hidden), pos_emb a learned
 * table of init_pos_emb_height x init_pos_emb_width rows (divided_fixed: the time embedding is a sin-cos buffer);
 * per block norm0, norm1 (LayerNorms with bias), wqkv and wo (biased), mlp fc0 and fc1 (biased, not gated);
 * final_layernorm; mm_projector (patchmerger): pre_norm LayerNorm over the tower's width, proj.0 a biased linear
 * over merge^2 patches, proj.2 a biased linear to the text width (text_hidden_size).
 * Kimi K3's (kimi_k3_vision; vllm-ascend's KimiK3VisionTower and KimiK3MultiModalProjector, stored index id
 * 62082929369): the same tables without a bias anywhere, RMSNorms (a weight each), wqkv to 3 x qkv_hidden_size and wo
 * back from it; its PatchMergerV2 projector linear_1 over merge^2 patches, linear_2 to the text width (both bias-free)
 * and post_norm, an RMSNorm over the text width. */
static void add_moonvit(builder *b, uint64_t text_hidden)
{
    if (require(b, LLMMEM_KEY_VISION_HIDDEN_SIZE) || require(b, LLMMEM_KEY_VISION_INTERMEDIATE_SIZE) ||
        require(b, LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS) || require(b, LLMMEM_KEY_VISION_PATCH_SIZE) ||
        require(b, LLMMEM_KEY_VISION_NUM_POSITION_EMBEDDINGS))
        return;
    const llmmem_param_group V = LLMMEM_PARAMS_VISION;
    b->kinds = 0;
    const int k3 = value(b, LLMMEM_KEY_VISION_MODEL_TYPE) == LLMMEM__VISION_MOONVIT_K3;
    uint64_t vh = value(b, LLMMEM_KEY_VISION_HIDDEN_SIZE), vi = value(b, LLMMEM_KEY_VISION_INTERMEDIATE_SIZE);
    uint64_t layers = value(b, LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS), patch = value(b, LLMMEM_KEY_VISION_PATCH_SIZE);
    uint64_t channels = value(b, LLMMEM_KEY_VISION_NUM_CHANNELS), merge = value(b, LLMMEM_KEY_VISION_SPATIAL_MERGE_SIZE);
    uint64_t out = value(b, LLMMEM_KEY_VISION_OUT_HIDDEN_SIZE), qkv = value(b, LLMMEM_KEY_VISION_QKV_SIZE);
    if (merge == 0)
        merge = 2; /* merge_kernel_size [2, 2] */
    if (out == 0)
        out = text_hidden;
    if (qkv == 0)
        qkv = vh;
    uint64_t merged = vh * merge * merge; /* the key bounds keep this below 2^36 */
    const uint64_t biased = k3 ? 0 : 1; /* add() skips a class of count 0 */
    add(b, "vision.patch_embed.proj", V, LLMMEM_SPLIT_REPLICATED, 1, 0, vh, channels * patch * patch, 1, 1);
    add_vector(b, "vision.patch_embed.proj.bias", V, vh, biased);
    add(b, "vision.pos_emb", V, LLMMEM_SPLIT_REPLICATED, 0, 0, value(b, LLMMEM_KEY_VISION_NUM_POSITION_EMBEDDINGS), vh,
        1, 1);
    /* norm0, norm1 and final_layernorm: LayerNorm weight and bias (K2.5), RMSNorm weight (K3) */
    add_vector(b, "vision.norms", V, vh, k3 ? 2 * layers + 1 : 4 * layers + 2);
    add(b, "vision.wqkv", V, LLMMEM_SPLIT_COLUMN, 1, 0, 3 * qkv, vh, layers, layers);
    add(b, "vision.wo", V, LLMMEM_SPLIT_ROW, 1, 0, vh, qkv, layers, layers);
    add_vector(b, "vision.attention.bias", V, 3 * qkv + vh, biased * layers);
    add(b, "vision.mlp.fc0", V, LLMMEM_SPLIT_COLUMN, 1, 0, vi, vh, layers, layers);
    add(b, "vision.mlp.fc1", V, LLMMEM_SPLIT_ROW, 1, 0, vh, vi, layers, layers);
    add_vector(b, "vision.mlp.bias", V, vi + vh, biased * layers);
    int64_t projector = llmmem__model_value(b->m, LLMMEM_KEY_MULTIMODAL_PROJECTOR);
    if (projector == LLMMEM__PROJECTOR_KIMI_K25) {
        add_vector(b, "projector.pre_norm", V, vh, 2);
        add(b, "projector.proj.0", V, LLMMEM_SPLIT_REPLICATED, 1, 0, merged, merged, 1, 1);
        add(b, "projector.proj.2", V, LLMMEM_SPLIT_REPLICATED, 1, 0, out, merged, 1, 1);
        add_vector(b, "projector.bias", V, merged + out, 1);
    } else if (projector == LLMMEM__PROJECTOR_KIMI_K3) {
        add(b, "projector.linear_1", V, LLMMEM_SPLIT_REPLICATED, 1, 0, merged, merged, 1, 1);
        add(b, "projector.linear_2", V, LLMMEM_SPLIT_REPLICATED, 1, 0, out, merged, 1, 1);
        add_vector(b, "projector.post_norm", V, out, 1);
    }
}

/* The vision class added at `at` as SGLang's ranks hold it (sglang models/minimax_vl_common.py, the tower built with
 * quant_config None): `whole` of its elements on every rank, the rest split over the attention ranks. */
static void served_split(builder *b, unsigned at, uint64_t whole)
{
    if (b->inv->n > at) {
        b->inv->t[at].served_tower = 1;
        b->inv->t[at].served_whole = whole;
    }
}

/* MiniMax-M3's tower and projectors as its checkpoint stores them (vision_tower.vision_model.*,
 * multi_modal_projector.*, patch_merge_mlp.*; Megatron-Bridge models/minimax_m3/modeling_minimax_m3_vl.py
 * MiniMaxM3VisionModel and MiniMaxM3ProjectorMLP): embeddings.patch_embedding an unbiased Conv3d (channels x
 * temporal_patch_size x patch^2 -> hidden) stored in float32 ("_keep_in_float32_parameter_names"), pre_layrnorm,
 * per layer layer_norm1 and layer_norm2 (LayerNorms with bias), biased q, k, v, out_proj, fc1 and fc2; no position
 * table (3D RoPE) and no post-layernorm. multi_modal_projector: linear_1 (hidden -> text width), linear_2 (text
 * width square); patch_merge_mlp: linear_1 (merge^2 x text width -> text width), linear_2; all biased. Every one
 * replicated over tensor-parallel ranks (MiniMaxM3VLModelProvider: "The vision stack is intentionally replicated").
 * SGLang splits them (minimax_vl_common.py CLIPEncoderLayer, VisionAttention, MiniMaxVLMultiModalProjector,
 * MiniMaxVLPatchMerger): q, k, v (QKVParallelLinear over the heads), fc1 and both linear_1 column-parallel with their
 * biases, out_proj, fc2 and both linear_2 row-parallel with their biases whole; the Conv3d and the LayerNorms
 * whole. */
static void add_minimax_m3_vision(builder *b, uint64_t text_hidden)
{
    if (require(b, LLMMEM_KEY_VISION_HIDDEN_SIZE) || require(b, LLMMEM_KEY_VISION_INTERMEDIATE_SIZE) ||
        require(b, LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS) || require(b, LLMMEM_KEY_VISION_PATCH_SIZE))
        return;
    const llmmem_param_group V = LLMMEM_PARAMS_VISION;
    b->kinds = 0;
    uint64_t vh = value(b, LLMMEM_KEY_VISION_HIDDEN_SIZE), vi = value(b, LLMMEM_KEY_VISION_INTERMEDIATE_SIZE);
    uint64_t layers = value(b, LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS), patch = value(b, LLMMEM_KEY_VISION_PATCH_SIZE);
    uint64_t channels = value(b, LLMMEM_KEY_VISION_NUM_CHANNELS), merge = value(b, LLMMEM_KEY_VISION_SPATIAL_MERGE_SIZE);
    uint64_t frames = value(b, LLMMEM_KEY_VISION_TEMPORAL_PATCH_SIZE);
    if (merge == 0)
        merge = 2; /* MiniMaxM3VLModelProvider spatial_merge_size */
    if (frames == 0)
        frames = 2; /* MiniMaxM3VLModelProvider temporal_patch_size */
    const uint64_t kernel = channels * frames * patch * patch;
    unsigned at = b->inv->n;
    add(b, "vision.patch_embedding", V, LLMMEM_SPLIT_REPLICATED, 0, 0, vh, kernel, 1, 1);
    served_split(b, at, vh * kernel);
    if (b->inv->n > at)
        b->inv->t[at].fp32 = 1;
    at = b->inv->n;
    add_vector(b, "vision.layer_norms", V, vh, 2 * (2 * layers + 1)); /* weight and bias: two a layer, pre_layrnorm */
    served_split(b, at, vh * 2 * (2 * layers + 1));
    at = b->inv->n;
    add(b, "vision.attention", V, LLMMEM_SPLIT_REPLICATED, 1, 0, vh, vh, 4 * layers, 4 * layers);
    served_split(b, at, 0);
    at = b->inv->n;
    add_vector(b, "vision.attention.bias", V, vh, 4 * layers);
    served_split(b, at, vh * layers); /* out_proj's */
    at = b->inv->n;
    add(b, "vision.mlp.fc1", V, LLMMEM_SPLIT_REPLICATED, 1, 0, vi, vh, layers, layers);
    served_split(b, at, 0);
    at = b->inv->n;
    add(b, "vision.mlp.fc2", V, LLMMEM_SPLIT_REPLICATED, 1, 0, vh, vi, layers, layers);
    served_split(b, at, 0);
    at = b->inv->n;
    add_vector(b, "vision.mlp.bias", V, vi + vh, layers);
    served_split(b, at, vh * layers); /* fc2's */
    if (llmmem__model_value(b->m, LLMMEM_KEY_MULTIMODAL_PROJECTOR) != LLMMEM__PROJECTOR_MINIMAX_M3)
        return;
    at = b->inv->n;
    add(b, "projector.linear_1", V, LLMMEM_SPLIT_REPLICATED, 1, 0, text_hidden, vh, 1, 1);
    served_split(b, at, 0);
    at = b->inv->n;
    add(b, "patch_merge_mlp.linear_1", V, LLMMEM_SPLIT_REPLICATED, 1, 0, text_hidden, merge * merge * text_hidden, 1,
        1);
    served_split(b, at, 0);
    /* multi_modal_projector's linear_2 and patch_merge_mlp's */
    at = b->inv->n;
    add(b, "projector.linear_2", V, LLMMEM_SPLIT_REPLICATED, 1, 0, text_hidden, text_hidden, 2, 2);
    served_split(b, at, 0);
    at = b->inv->n;
    add_vector(b, "projector.bias", V, text_hidden, 4);
    served_split(b, at, 2 * text_hidden); /* the two linear_2's */
}

/* A ViT vision tower and its projector into the text model.
 * transformers CLIPVisionTransformer / SiglipVisionTransformer: patch embedding (a conv, SigLIP
 * with bias), position embedding (CLIP adds a class token and its row), pre-norm layers with biased
 * q, k, v, out projections and a biased two-layer GELU MLP, LayerNorms with bias. */
static void add_vision(builder *b, uint64_t text_hidden)
{
    int64_t kind = llmmem__model_value(b->m, LLMMEM_KEY_VISION_MODEL_TYPE);
    if (kind == LLMMEM__VISION_NONE)
        return;
    if (kind == LLMMEM__VISION_QWEN2_5_VL || kind == LLMMEM__VISION_QWEN3_VL || kind == LLMMEM__VISION_EXAONE4_5) {
        add_qwen_vision(b, text_hidden, kind == LLMMEM__VISION_QWEN3_VL);
        return;
    }
    if (kind == LLMMEM__VISION_PIXTRAL) {
        add_pixtral(b, text_hidden);
        return;
    }
    if (kind == LLMMEM__VISION_LLAMA4) {
        add_llama4_vision(b, text_hidden);
        return;
    }
    if (kind == LLMMEM__VISION_MLLAMA) {
        add_mllama_vision(b, text_hidden);
        return;
    }
    if (kind == LLMMEM__VISION_GEMMA4) {
        add_gemma4_vision(b, text_hidden);
        return;
    }
    if (kind == LLMMEM__VISION_MOONVIT || kind == LLMMEM__VISION_MOONVIT_K3) {
        add_moonvit(b, text_hidden);
        return;
    }
    if (kind == LLMMEM__VISION_MINIMAX_M3) {
        add_minimax_m3_vision(b, text_hidden);
        return;
    }
    if (require(b, LLMMEM_KEY_VISION_HIDDEN_SIZE) || require(b, LLMMEM_KEY_VISION_INTERMEDIATE_SIZE) ||
        require(b, LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS) || require(b, LLMMEM_KEY_VISION_PATCH_SIZE) ||
        require(b, LLMMEM_KEY_VISION_IMAGE_SIZE))
        return;
    const llmmem_param_group V = LLMMEM_PARAMS_VISION;
    b->kinds = 0;
    const int clip = kind == LLMMEM__VISION_CLIP;
    uint64_t vh = value(b, LLMMEM_KEY_VISION_HIDDEN_SIZE), vi = value(b, LLMMEM_KEY_VISION_INTERMEDIATE_SIZE);
    uint64_t layers = value(b, LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS), patch = value(b, LLMMEM_KEY_VISION_PATCH_SIZE);
    uint64_t image = value(b, LLMMEM_KEY_VISION_IMAGE_SIZE), channels = value(b, LLMMEM_KEY_VISION_NUM_CHANNELS);
    uint64_t side = image / patch, positions = side * side + (clip ? 1 : 0);
    add(b, "vision.patch_embedding", V, LLMMEM_SPLIT_REPLICATED, 0, 0, vh, channels * patch * patch, 1, 1);
    if (!clip)
        add_vector(b, "vision.patch_embedding.bias", V, vh, 1);
    else
        add_vector(b, "vision.class_embedding", V, vh, 1);
    add(b, "vision.position_embedding", V, LLMMEM_SPLIT_REPLICATED, 0, 0, positions, vh, 1, 1);
    uint64_t norms = 2 * layers + 1 + (clip ? 1 : 0); /* two per layer, post_layernorm, CLIP's pre_layrnorm */
    add_vector(b, "vision.layer_norms", V, vh, 2 * norms);
    add(b, "vision.attention", V, LLMMEM_SPLIT_COLUMN, 1, 0, vh, vh, 4 * layers, 4 * layers);
    add_vector(b, "vision.attention.bias", V, vh, 4 * layers);
    add(b, "vision.mlp.fc1", V, LLMMEM_SPLIT_COLUMN, 1, 0, vi, vh, layers, layers);
    add(b, "vision.mlp.fc2", V, LLMMEM_SPLIT_ROW, 1, 0, vh, vi, layers, layers);
    add_vector(b, "vision.mlp.bias", V, vi + vh, layers);
    if (!clip && value(b, LLMMEM_KEY_VISION_USE_HEAD)) {
        /* SiglipMultiheadAttentionPoolingHead: probe, nn.MultiheadAttention (in_proj 3vh x vh + bias,
         * out_proj), LayerNorm, MLP */
        add_vector(b, "vision.head.probe", V, vh, 1);
        add(b, "vision.head.attention", V, LLMMEM_SPLIT_REPLICATED, 1, 0, vh, vh, 4, 4);
        add_vector(b, "vision.head.bias_and_norm", V, vh, 4 + 2);
        add(b, "vision.head.mlp.fc1", V, LLMMEM_SPLIT_REPLICATED, 1, 0, vi, vh, 1, 1);
        add(b, "vision.head.mlp.fc2", V, LLMMEM_SPLIT_REPLICATED, 1, 0, vh, vi, 1, 1);
        add_vector(b, "vision.head.mlp.bias", V, vi + vh, 1);
    }
    switch (llmmem__model_value(b->m, LLMMEM_KEY_MULTIMODAL_PROJECTOR)) {
    case LLMMEM__PROJECTOR_LLAVA_MLP: /* LlavaMultiModalProjector: linear_1 (vision -> text, bias), GELU,
                                       * linear_2 (text -> text, bias) */
        add(b, "projector.linear_1", V, LLMMEM_SPLIT_REPLICATED, 1, 0, text_hidden, vh, 1, 1);
        add(b, "projector.linear_2", V, LLMMEM_SPLIT_REPLICATED, 1, 0, text_hidden, text_hidden, 1, 1);
        add_vector(b, "projector.bias", V, text_hidden, 2);
        break;
    case LLMMEM__PROJECTOR_GEMMA3: /* Gemma3MultiModalProjector: mm_soft_emb_norm (RMSNorm, vision width),
                                    * mm_input_projection_weight */
        add_vector(b, "projector.mm_soft_emb_norm", V, vh, 1);
        add(b, "projector.mm_input_projection", V, LLMMEM_SPLIT_REPLICATED, 1, 0, text_hidden, vh, 1, 1);
        break;
    default: break;
    }
}

/* The Llama 4 vision tower and its projector. transformers models/llama4/modeling_llama4.py
 * Llama4VisionModel: Llama4UnfoldConvolution (an unbiased linear over each channels x patch x patch
 * patch), class_embedding, positional_embedding_vlm ((image / patch)^2 + 1 rows), layernorm_pre and
 * layernorm_post (LayerNorm with bias), Llama4VisionEncoderLayer (q, k, v, o biased, biased fc1/fc2
 * MLP, two LayerNorms), vision_adapter Llama4VisionMLP2 (fc1 intermediate_size -> projector_input_dim,
 * fc2 projector_output_dim square, no biases); Llama4MultiModalProjector: one unbiased linear_1
 * vision_output_dim -> text hidden_size. */
static void add_llama4_vision(builder *b, uint64_t text_hidden)
{
    if (require(b, LLMMEM_KEY_VISION_HIDDEN_SIZE) || require(b, LLMMEM_KEY_VISION_INTERMEDIATE_SIZE) ||
        require(b, LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS) || require(b, LLMMEM_KEY_VISION_PATCH_SIZE) ||
        require(b, LLMMEM_KEY_VISION_IMAGE_SIZE) || require(b, LLMMEM_KEY_PROJECTOR_INPUT_DIM) ||
        require(b, LLMMEM_KEY_PROJECTOR_OUTPUT_DIM))
        return;
    const llmmem_param_group V = LLMMEM_PARAMS_VISION;
    b->kinds = 0;
    uint64_t vh = value(b, LLMMEM_KEY_VISION_HIDDEN_SIZE), vi = value(b, LLMMEM_KEY_VISION_INTERMEDIATE_SIZE);
    uint64_t layers = value(b, LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS), patch = value(b, LLMMEM_KEY_VISION_PATCH_SIZE);
    uint64_t image = value(b, LLMMEM_KEY_VISION_IMAGE_SIZE), channels = value(b, LLMMEM_KEY_VISION_NUM_CHANNELS);
    uint64_t pin = value(b, LLMMEM_KEY_PROJECTOR_INPUT_DIM), pout = value(b, LLMMEM_KEY_PROJECTOR_OUTPUT_DIM);
    uint64_t side = image / patch; /* image <= 2^20 by its key's bounds: no overflow below */
    add(b, "vision.patch_embedding", V, LLMMEM_SPLIT_COLUMN, 1, 0, vh, channels * patch * patch, 1, 1);
    add_vector(b, "vision.class_embedding", V, vh, 1);
    add(b, "vision.position_embedding", V, LLMMEM_SPLIT_REPLICATED, 0, 0, side * side + 1, vh, 1, 1);
    add_vector(b, "vision.layer_norms", V, vh, 2 * (2 * layers + 2)); /* weight and bias of each */
    add(b, "vision.attention", V, LLMMEM_SPLIT_COLUMN, 1, 0, vh, vh, 4 * layers, 4 * layers);
    add_vector(b, "vision.attention.bias", V, vh, 4 * layers);
    add(b, "vision.mlp.fc1", V, LLMMEM_SPLIT_COLUMN, 1, 0, vi, vh, layers, layers);
    add(b, "vision.mlp.fc2", V, LLMMEM_SPLIT_ROW, 1, 0, vh, vi, layers, layers);
    add_vector(b, "vision.mlp.bias", V, vi + vh, layers);
    add(b, "vision.adapter.fc1", V, LLMMEM_SPLIT_COLUMN, 1, 0, pin, vi, 1, 1);
    add(b, "vision.adapter.fc2", V, LLMMEM_SPLIT_ROW, 1, 0, pout, pout, 1, 1);
    if (llmmem__model_value(b->m, LLMMEM_KEY_MULTIMODAL_PROJECTOR) == LLMMEM__PROJECTOR_LLAMA4) {
        if (require(b, LLMMEM_KEY_VISION_OUTPUT_DIM))
            return;
        add(b, "projector.linear_1", V, LLMMEM_SPLIT_REPLICATED, 1, 0, text_hidden,
            value(b, LLMMEM_KEY_VISION_OUTPUT_DIM), 1, 1);
    }
}

/* The Llama 3.2 Vision tower and its projector. transformers models/mllama/modeling_mllama.py
 * MllamaVisionModel: patch_embedding (Conv2d without bias), class_embedding,
 * gated_positional_embedding (a gate, P = (image / patch)^2 + 1 rows, and tile_embedding of
 * (max_aspect_ratio_id + 1) x (max_num_tiles x P x width)), pre_ and post_tile_positional_embedding
 * ((max_aspect_ratio_id + 1) x (max_num_tiles x width) and a gate each), layernorm_pre and
 * layernorm_post, `transformer` of MllamaVisionEncoderLayer (q, k, v, o without biases, biased fc1
 * and fc2, two LayerNorms) and `global_transformer` of the same with gate_attn and gate_ffn;
 * MllamaForConditionalGeneration.multi_modal_projector: a biased vision_output_dim -> hidden linear. */
static void add_mllama_vision(builder *b, uint64_t text_hidden)
{
    if (require(b, LLMMEM_KEY_VISION_HIDDEN_SIZE) || require(b, LLMMEM_KEY_VISION_INTERMEDIATE_SIZE) ||
        require(b, LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS) || require(b, LLMMEM_KEY_VISION_PATCH_SIZE) ||
        require(b, LLMMEM_KEY_VISION_IMAGE_SIZE) || require(b, LLMMEM_KEY_VISION_MAX_NUM_TILES) ||
        require(b, LLMMEM_KEY_VISION_MAX_ASPECT_RATIO_ID))
        return;
    const llmmem_param_group V = LLMMEM_PARAMS_VISION;
    b->kinds = 0;
    uint64_t vh = value(b, LLMMEM_KEY_VISION_HIDDEN_SIZE), vi = value(b, LLMMEM_KEY_VISION_INTERMEDIATE_SIZE);
    uint64_t layers = value(b, LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS);
    uint64_t global = value(b, LLMMEM_KEY_VISION_NUM_GLOBAL_LAYERS), patch = value(b, LLMMEM_KEY_VISION_PATCH_SIZE);
    uint64_t image = value(b, LLMMEM_KEY_VISION_IMAGE_SIZE), channels = value(b, LLMMEM_KEY_VISION_NUM_CHANNELS);
    uint64_t tiles = value(b, LLMMEM_KEY_VISION_MAX_NUM_TILES), ratios = value(b, LLMMEM_KEY_VISION_MAX_ASPECT_RATIO_ID) + 1;
    uint64_t side = image / patch, positions = side * side + 1; /* image <= 2^20: no overflow */
    uint64_t tile_cols;
    if (!llmmem__mul(&tile_cols, tiles * positions, vh)) {
        fail(b, LLMMEM_ERR_OVERFLOW, "mllama tile position embedding exceeds 64 bits");
        return;
    }
    add(b, "vision.patch_embedding", V, LLMMEM_SPLIT_REPLICATED, 0, 0, vh, channels * patch * patch, 1, 1);
    add_vector(b, "vision.class_embedding", V, vh, 1);
    add(b, "vision.position_embedding", V, LLMMEM_SPLIT_REPLICATED, 0, 0, positions, vh, 1, 1);
    add(b, "vision.tile_position_embedding", V, LLMMEM_SPLIT_REPLICATED, 0, 0, ratios, tile_cols, 1, 1);
    add(b, "vision.tile_embeddings", V, LLMMEM_SPLIT_REPLICATED, 0, 0, ratios, tiles * vh, 2, 2); /* pre and post */
    add_vector(b, "vision.gates", V, 1, 3 + 2 * global); /* positional, pre- and post-tile; two per global layer */
    uint64_t all = layers + global;
    add_vector(b, "vision.layer_norms", V, vh, 2 * (2 * all + 2)); /* weight and bias of each */
    add(b, "vision.attention", V, LLMMEM_SPLIT_COLUMN, 1, 0, vh, vh, 4 * all, 4 * all);
    add(b, "vision.mlp.fc1", V, LLMMEM_SPLIT_COLUMN, 1, 0, vi, vh, all, all);
    add(b, "vision.mlp.fc2", V, LLMMEM_SPLIT_ROW, 1, 0, vh, vi, all, all);
    add_vector(b, "vision.mlp.bias", V, vi + vh, all);
    /* the cross-attention layers attend to every tile's patches of an image (MllamaForConditionalGeneration:
     * cross_attention_states of num_tiles x num_patches tokens an image, tiles padded to max_num_tiles) */
    b->geo->image_tokens = tiles * positions;
    if (llmmem__model_value(b->m, LLMMEM_KEY_MULTIMODAL_PROJECTOR) == LLMMEM__PROJECTOR_MLLAMA) {
        if (require(b, LLMMEM_KEY_VISION_OUTPUT_DIM))
            return;
        add(b, "projector.linear_1", V, LLMMEM_SPLIT_REPLICATED, 1, 0, text_hidden,
            value(b, LLMMEM_KEY_VISION_OUTPUT_DIM), 1, 1);
        add_vector(b, "projector.bias", V, text_hidden, 1);
    }
}

/* A model given by its parameter count alone: one flat tensor, no shapes. */
static void add_count_only(builder *b)
{
    uint64_t n = value(b, LLMMEM_KEY_NUM_PARAMETERS);
    add(b, "parameters", LLMMEM_PARAMS_OTHER, LLMMEM_SPLIT_REPLICATED, 1, 0, 1, n, 1, 1);
}

/* Layers of per-layer shapes, one layer kind per distinct block (vLLM model_executor/models/nemotron_nas.py
 * DeciLMDecoderLayer, from block_configs): attention of its own KV heads (input_layernorm, q, k, v, o without
 * biases), or one hidden x hidden linear in its place (with its norm), or none (no_op: no norm either); a gated
 * MLP of its own width (post_attention_layernorm, gate, up, down), or a linear, or none. Views that take one
 * MLP width (the serving and generate peaks) see the widest; the caches need one KV width. */
static void add_blocks(builder *b, uint64_t h)
{
    llmmem__geometry *g = b->geo;
    const llmmem__layer_map *map = &b->m->layer_map;
    const llmmem__layer_plan *p = &g->plan;
    uint64_t heads = value(b, LLMMEM_KEY_NUM_ATTENTION_HEADS), d;
    if (require(b, LLMMEM_KEY_NUM_ATTENTION_HEADS) || !head_width(b, h, heads, &d))
        return;
    g->blocks = 1;
    g->head_dim = g->v_head_dim = d;
    const llmmem_param_group A = LLMMEM_PARAMS_ATTENTION;
    for (unsigned k = 0; k < p->n && b->status == LLMMEM_OK; k++) {
        if (p->kind[k].block == 0) {
            fail(b, LLMMEM_ERR_INCOMPATIBLE, "a layer of a model with per-layer blocks has no block");
            return;
        }
        const struct llmmem__block *blk = &map->blocks[p->kind[k].block - 1];
        uint64_t n = p->total[k];
        b->kinds = (llmmem__kind_set)(1u << k);
        if (p->kind[k].mixer == LLMMEM_MIXER_FULL) {
            uint64_t kv = blk->kv_heads;
            if (kv == 0 || heads % kv) {
                fail(b, LLMMEM_ERR_INCOMPATIBLE, "num_attention_heads (%llu) is not divisible by a block's KV heads "
                     "(%llu)", (unsigned long long)heads, (unsigned long long)kv);
                return;
            }
            if (g->kv_heads && g->kv_heads != kv)
                g->kv_token_global.heads = kv; /* a second KV width: the caches refuse it (kv.c) */
            g->kv_heads = kv;
            g->kv_token = (llmmem__kv_token){kv, 2, d};
            add(b, "q_proj", A, LLMMEM_SPLIT_COLUMN, 1, LLMMEM_LORA_TARGET_Q, heads * d, h, n, n);
            add(b, "k_proj", A, LLMMEM_SPLIT_COLUMN, 1, LLMMEM_LORA_TARGET_K, kv * d, h, n, n);
            add(b, "v_proj", A, LLMMEM_SPLIT_COLUMN, 1, LLMMEM_LORA_TARGET_V, kv * d, h, n, n);
            add(b, "o_proj", A, LLMMEM_SPLIT_ROW, 1, LLMMEM_LORA_TARGET_O, h, heads * d, n, n);
        } else if (blk->attn_linear) {
            add(b, "attention.linear", A, LLMMEM_SPLIT_REPLICATED, 1, 0, h, h, n, n);
        }
        if (p->kind[k].mixer == LLMMEM_MIXER_FULL || blk->attn_linear)
            add_norm(b, "input_layernorm", h, n);
        if (p->kind[k].ffn == LLMMEM_FFN_DENSE) {
            if (blk->ffn > g->ffn)
                g->ffn = blk->ffn;
            add_mlp(b, dense_names, LLMMEM_PARAMS_MLP, LLMMEM_SPLIT_COLUMN, LLMMEM_SPLIT_ROW, h, blk->ffn, n, n);
        } else if (blk->ffn_linear) {
            add(b, "mlp.linear", LLMMEM_PARAMS_MLP, LLMMEM_SPLIT_REPLICATED, 1, 0, h, h, n, n);
        }
        if (p->kind[k].ffn == LLMMEM_FFN_DENSE || blk->ffn_linear)
            add_norm(b, "post_attention_layernorm", h, n);
    }
}

/* Per-layer input embeddings (transformers models/gemma4/modular_gemma4.py Gemma4TextModel): the table
 * embed_tokens_per_layer of vocab_size_per_layer_input rows of every layer's slice, per_layer_model_projection
 * from hidden_size to them and per_layer_projection_norm; in every decoder layer per_layer_input_gate,
 * per_layer_projection and post_per_layer_input_norm. */
static void add_per_layer_inputs(builder *b, uint64_t h, uint64_t layers)
{
    uint64_t w = value(b, LLMMEM_KEY_HIDDEN_SIZE_PER_LAYER_INPUT), all;
    if (w == 0)
        return;
    if (require(b, LLMMEM_KEY_VOCAB_SIZE_PER_LAYER_INPUT))
        return;
    if (!llmmem__mul(&all, w, layers)) {
        fail(b, LLMMEM_ERR_OVERFLOW, "hidden_size_per_layer_input x num_hidden_layers exceeds 64 bits");
        return;
    }
    b->geo->per_layer_inputs = 1;
    llmmem__kind_set kinds = b->kinds;
    b->kinds = 0;
    add(b, "embed_tokens_per_layer", LLMMEM_PARAMS_EMBEDDING, LLMMEM_SPLIT_VOCAB, 1, 0,
        value(b, LLMMEM_KEY_VOCAB_SIZE_PER_LAYER_INPUT), all, 1, 1);
    add(b, "per_layer_model_projection", LLMMEM_PARAMS_OTHER, LLMMEM_SPLIT_REPLICATED, 1, 0, all, h, 1, 1);
    add_norm(b, "per_layer_projection_norm", w, 1);
    b->kinds = kinds;
    add(b, "per_layer_input_gate", LLMMEM_PARAMS_OTHER, LLMMEM_SPLIT_REPLICATED, 1, 0, w, h, layers, layers);
    add(b, "per_layer_projection", LLMMEM_PARAMS_OTHER, LLMMEM_SPLIT_REPLICATED, 1, 0, h, w, layers, layers);
    add_norm(b, "post_per_layer_input_norm", h, layers);
}

/* The classes of a model with shapes (or of its count alone), in the order of the model's layers. */
static llmmem_status build(builder *b)
{
    uint64_t h = b->geo->hidden;
    if (value(b, LLMMEM_KEY_NUM_PARAMETERS)) {
        if (h)
            return fail(b, LLMMEM_ERR_INCOMPATIBLE,
                        "num_parameters (%llu) describes a model without shapes, but hidden_size (%llu) is "
                        "set too; give one or the other",
                        (unsigned long long)value(b, LLMMEM_KEY_NUM_PARAMETERS), (unsigned long long)h);
        add_count_only(b);
        return b->status;
    }
    if (h == 0 && value(b, LLMMEM_KEY_MODEL_TYPE) == LLMMEM_MODEL_CUSTOM)
        return fail(b, LLMMEM_ERR_INCOMPLETE,
                    "the model has neither shapes (hidden_size, num_hidden_layers, num_attention_heads, "
                    "vocab_size) nor num_parameters");
    if (require(b, LLMMEM_KEY_HIDDEN_SIZE) || require(b, LLMMEM_KEY_NUM_HIDDEN_LAYERS) ||
        require(b, LLMMEM_KEY_VOCAB_SIZE))
        return b->status;

    uint64_t layers = value(b, LLMMEM_KEY_NUM_HIDDEN_LAYERS), vocab = value(b, LLMMEM_KEY_VOCAB_SIZE);
    /* Megatron-LM VocabParallelEmbedding: the embedding's rows split over tensor-parallel ranks;
     * transformers MllamaTextModel: nn.Embedding(vocab_size + 8, hidden_size), the LM head vocab_size */
    add(b, "embed_tokens", LLMMEM_PARAMS_EMBEDDING, LLMMEM_SPLIT_VOCAB, 1, 0,
        vocab + value(b, LLMMEM_KEY_EMBEDDING_EXTRA_ROWS), h, 1, 1);
    if (value(b, LLMMEM_KEY_LEARNED_POSITIONS)) {
        uint64_t rows = value(b, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS) + value(b, LLMMEM_KEY_POSITION_OFFSET);
        if (require(b, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS))
            return b->status;
        add(b, "embed_positions", LLMMEM_PARAMS_POSITIONS, LLMMEM_SPLIT_REPLICATED, 0, 0, rows, h, 1, 1);
    }
    if (value(b, LLMMEM_KEY_EMBEDDING_NORM)) /* BloomModel.word_embeddings_layernorm */
        add_norm(b, "embedding_norm", h, 1);

    if (resolve_layers(b, layers) != LLMMEM_OK)
        return b->status;
    llmmem__geometry *g = b->geo;
    if (b->m->layer_map.nblocks) {
        add_blocks(b, h);
        b->kinds = 0;
        add_norm(b, "final_norm", h, 1);
        if (!value(b, LLMMEM_KEY_TIE_WORD_EMBEDDINGS))
            add(b, "lm_head", LLMMEM_PARAMS_LM_HEAD, LLMMEM_SPLIT_VOCAB, 1, 0, vocab, h, 1, 1);
        return b->status;
    }
    /* a cross-attention layer's q, k, v and o have the self-attention's shapes (transformers
     * MllamaTextCrossAttention: k and v project the image's states of the text width) */
    b->kinds = (llmmem__kind_set)(g->attention | g->cross);
    uint64_t attention_layers = llmmem__layers_in(&g->plan, b->kinds, 0, layers);
    const unsigned any_ffn = (1u << LLMMEM_FFNS) - 1;
    const llmmem__kind_set shared =
        llmmem__kinds_of(&g->plan, llmmem__mixers_with(LLMMEM_MIXER_SHARED_KV),
                         any_ffn);
    const int typed = value(b, LLMMEM_KEY_GLOBAL_HEAD_DIM) || value(b, LLMMEM_KEY_NUM_GLOBAL_KEY_VALUE_HEADS) ||
                      value(b, LLMMEM_KEY_NUM_GLOBAL_ATTENTION_HEADS) || value(b, LLMMEM_KEY_HEAD_WISE_ATTN_GATE) || shared;
    if (attention_layers && require(b, LLMMEM_KEY_NUM_ATTENTION_HEADS)) /* Mamba2Config has no attention heads */
        return b->status;
    /* Phi-4-flash's KV-shared layers are its own attention's (add_differential_attention) */
    const int differential = value(b, LLMMEM_KEY_MODEL_TYPE) == LLMMEM_MODEL_PHI4FLASH;
    if (differential && (g->kv_lora_rank || g->cross_layers || g->chunk))
        return fail(b, LLMMEM_ERR_UNSUPPORTED, "phi4flash's differential attention with MLA (kv_lora_rank), "
                    "cross-attention or chunked layers is not modelled");
    if (!differential && typed && (g->kv_lora_rank || g->cross_layers || g->chunk))
        return fail(b, LLMMEM_ERR_UNSUPPORTED, "global_head_dim or num_kv_shared_layers with MLA, cross-attention or "
                    "chunked layers is not modelled");
    /* the typed layers are Gemma 4's and MiMo-V2-Flash's, without projection biases (add_typed_attention) */
    if (!differential && typed && (value(b, LLMMEM_KEY_QKV_BIAS) || value(b, LLMMEM_KEY_O_PROJ_BIAS)))
        return fail(b, LLMMEM_ERR_UNSUPPORTED, "global_head_dim or num_kv_shared_layers with q, k, v or o projection "
                    "biases (qkv_bias, o_proj_bias) is not modelled");
    if (differential) {
        add_differential_attention(b, h);
    } else if (g->compressed_layers || value(b, LLMMEM_KEY_O_GROUPS)) {
        if (typed || g->kv_lora_rank || g->cross_layers)
            return fail(b, LLMMEM_ERR_UNSUPPORTED, "compressed attention layers or o_groups with MLA, cross-attention "
                        "or typed attention widths are not modelled");
        add_compressed_attention(b, h);
    } else if (typed)
        add_typed_attention(
            b, h, llmmem__kinds_of(&g->plan, LLMMEM_MIXER_BIT(LLMMEM_MIXER_SLIDING) | LLMMEM_MIXER_BIT(LLMMEM_MIXER_SLIDING_SHARED), any_ffn),
            llmmem__kinds_of(&g->plan, LLMMEM_MIXER_BIT(LLMMEM_MIXER_FULL) | LLMMEM_MIXER_BIT(LLMMEM_MIXER_FULL_SHARED), any_ffn),
            shared);
    else if (attention_layers && g->kv_lora_rank)
        add_mla(b, h, attention_layers);
    else if (attention_layers) {
        add_attention(b, h, attention_layers);
        add_lightning_indexer(b, h, layers);
    }
    if (g->cross_layers) {
        if (g->kv_lora_rank)
            return fail(b, LLMMEM_ERR_UNSUPPORTED, "cross-attention layers with kv_lora_rank are not modelled");
        /* MllamaTextCrossAttention q_norm and k_norm, RMSNorm(head_dim); MllamaCrossAttentionDecoderLayer
         * cross_attn_attn_gate and cross_attn_mlp_gate, one element each */
        b->kinds = g->cross;
        add_norm(b, "cross_attn.qk_norm", g->head_dim, 2 * g->cross_layers);
        add_vector(b, "cross_attn.gates", LLMMEM_PARAMS_ATTENTION, 1, 2 * g->cross_layers);
        g->cross_heads = g->heads; /* repeat_kv before the cache's update: every query head */
    }
    b->kinds = g->ssm;
    add_mamba2(b, h);
    b->kinds = g->linear;
    add_gated_deltanet(b, h);
    b->kinds = g->mamba1;
    add_mamba1(b, h);
    b->kinds = g->conv;
    add_short_conv(b, h);
    if (differential)
        add_gated_memory_units(b, h);
    uint64_t norms;
    b->kinds = g->all;
    if (!llmmem__mul(&norms, value(b, LLMMEM_KEY_NORMS_PER_LAYER), layers))
        return fail(b, LLMMEM_ERR_OVERFLOW, "norm count exceeds 64 bits");
    add_norm(b, "layer_norms", h, norms);
    add_attn_res(b, h, layers);
    add_hyper_connections(b, h, layers);
    if (value(b, LLMMEM_KEY_LAYER_SCALAR)) /* Gemma4TextDecoderLayer.layer_scalar, one element a layer */
        add_vector(b, "layer_scalar", LLMMEM_PARAMS_OTHER, 1, layers);
    add_per_layer_inputs(b, h, layers);
    add_ffn(b, h, layers);
    b->kinds = 0;
    add_norm(b, "final_norm", h, 1);
    if (!value(b, LLMMEM_KEY_TIE_WORD_EMBEDDINGS))
        add(b, "lm_head", LLMMEM_PARAMS_LM_HEAD, LLMMEM_SPLIT_VOCAB, 1, 0, vocab, h, 1, 1);
    add_vision(b, h);
    add_gemma4_audio(b, h);
    return b->status;
}

/* The kind of the model's last decoder layer. */
static unsigned last_kind(const llmmem__layer_plan *p)
{
    for (unsigned k = 0; k < p->n; k++)
        if (llmmem__layers_in(p, (llmmem__kind_set)(1u << k), p->layers - 1, p->layers))
            return k;
    return 0;
}

llmmem_status llmmem__mtp_inventory(llmmem__inventory *out, const llmmem_model *m)
{
    memset(out, 0, sizeof *out);
    memset(out->by_role, -1, sizeof out->by_role);
    uint64_t n = (uint64_t)llmmem__model_value(m, LLMMEM_KEY_NUM_NEXTN_PREDICT_LAYERS);
    if (n == 0)
        return LLMMEM_OK;
    const llmmem__geometry *g = &m->geo;
    if (g->layers == 0)
        return llmmem__fail(LLMMEM_ERR_INCOMPLETE, "num_nextn_predict_layers (%llu) needs the model's shapes",
                            (unsigned long long)n);
    const int64_t type = llmmem__model_value(m, LLMMEM_KEY_MODEL_TYPE);
    if (type == LLMMEM_MODEL_DEEPSEEK_V4 || type == LLMMEM_MODEL_NEMOTRON_H || type == LLMMEM_MODEL_MIMO_V2_FLASH)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "the %llu multi-token-prediction modules of %s (%s) are not modelled",
                            (unsigned long long)n, llmmem_choice_name(LLMMEM_KEY_MODEL_TYPE, type),
                            type == LLMMEM_MODEL_NEMOTRON_H   ? "blocks of mtp_hybrid_override_pattern"
                            : type == LLMMEM_MODEL_DEEPSEEK_V4 ? "a sliding-window block with its own hyper-connection head"
                                                               : "sliding-window layers with a dense MLP");
    char message[LLMMEM_MESSAGE_MAX];
    llmmem__geometry unused;
    builder b = {out, &unused, m, message, sizeof message, LLMMEM_OK, 0};
    /* deepseek-ai/DeepSeek-V3 README_WEIGHTS.md: the MTP module's hidden layer is structured as the main model's
     * last; Step-3.5-Flash's are sliding-window layers with a dense MLP (Megatron-Bridge stepfun/step35_bridge.py
     * mapping_registry: "MTP layers are always dense"; read_step3p5 checks layer_types), as its layers 1 and 2 */
    llmmem__kind_set last = (llmmem__kind_set)(1u << last_kind(&g->plan));
    if (type == LLMMEM_MODEL_STEP3P5) {
        last = llmmem__kinds_of(&g->plan, LLMMEM_MIXER_BIT(LLMMEM_MIXER_SLIDING), 1u << LLMMEM_FFN_DENSE);
        if (last == 0)
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "the multi-token-prediction modules of step3p5 (sliding-window "
                                "layers with a dense MLP) need such a layer in the model: none is");
        last = (llmmem__kind_set)(last & -last);
    }
    for (unsigned i = 0; i < m->inv.n && b.status == LLMMEM_OK; i++) {
        const llmmem__tensor_class *t = &m->inv.t[i];
        if (!(t->kinds & last))
            continue;
        uint64_t layers = llmmem__layers_in(&g->plan, t->kinds, 0, g->layers);
        unsigned at = out->n;
        add(&b, t->name, (llmmem_param_group)t->group, (enum llmmem__split)t->split, t->matrix, t->lora, t->rows,
            t->cols, t->count / layers * n, t->active_count / layers * n);
        if (out->n > at)
            out->t[at].fp32 = t->fp32;
    }
    uint64_t h = g->hidden;
    /* vllm model_executor/models/deepseek_mtp.py DeepSeekMultiTokenPredictorLayer: enorm, hnorm, shared_head.norm */
    add_norm(&b, "mtp.norms", h, 3 * n);
    /* the same file: eh_proj is an unquantized nn.Linear(2h, h) (the fp8 checkpoint stores it in bf16) */
    add(&b, "mtp.eh_proj", LLMMEM_PARAMS_OTHER, LLMMEM_SPLIT_REPLICATED, 0, 0, h, 2 * h, n, n);
    /* DeepSeek-V3's checkpoint stores model.layers.61.embed_tokens and shared_head.head (README_WEIGHTS.md) */
    if (llmmem__model_value(m, LLMMEM_KEY_MTP_EMBEDDING))
        add(&b, "mtp.embed_tokens", LLMMEM_PARAMS_EMBEDDING, LLMMEM_SPLIT_VOCAB, 1, 0, g->vocab, h, n, n);
    if (llmmem__model_value(m, LLMMEM_KEY_MTP_LM_HEAD))
        add(&b, "mtp.shared_head.head", LLMMEM_PARAMS_LM_HEAD, LLMMEM_SPLIT_VOCAB, 1, 0, g->vocab, h, n, n);
    if (b.status != LLMMEM_OK)
        return llmmem__fail_text(b.status, message);
    return LLMMEM_OK;
}

llmmem_status llmmem__inventory_build(llmmem__inventory *inv, llmmem__geometry *geo, const llmmem_model *m,
                                      char *message, size_t message_size)
{
    memset(inv, 0, sizeof *inv);
    memset(inv->by_role, -1, sizeof inv->by_role);
    memset(geo, 0, sizeof *geo);
    message[0] = '\0';
    builder b = {inv, geo, m, message, message_size, LLMMEM_OK, 0};
    geo->hidden = value(&b, LLMMEM_KEY_HIDDEN_SIZE);
    geo->layers = value(&b, LLMMEM_KEY_NUM_HIDDEN_LAYERS);
    geo->vocab = value(&b, LLMMEM_KEY_VOCAB_SIZE);
    geo->heads = value(&b, LLMMEM_KEY_NUM_ATTENTION_HEADS);
    if (build(&b) != LLMMEM_OK)
        memset(geo, 0, sizeof *geo);
    return b.status;
}
