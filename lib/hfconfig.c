/* Hugging Face config.json reader: a model from the config a checkpoint ships with.
 *
 * Every value goes through llmmem_model_set_int, so the key bounds apply and the message names
 * key and value; this file adds the file name and the JSON field in front. The reading follows
 * the transformers config classes (models/<family>/configuration_<family>.py) and the modeling
 * files that consume them:
 *
 *   - A field left out takes the default of its config class. PretrainedConfig.to_diff_dict
 *     writes every field of a top-level config that is not a PretrainedConfig attribute, so the
 *     shape fields are always there in a saved config and are required here (a config without
 *     them was not written by transformers, and reading it would be a guess). Sub-configs
 *     (text_config, vision_config) are written by recursive_diff_dict as differences from their
 *     class defaults: llava-hf/llava-1.5-7b-hf's text_config names no hidden_size, and
 *     google/gemma-3-4b-it's none of num_attention_heads, head_dim or vocab_size. There the
 *     class defaults fill the shape fields, for the classes whose defaults are encoded below.
 *   - A null field means what the class makes of None (num_key_value_heads: the attention
 *     heads; head_dim: hidden_size / num_attention_heads; sliding_window: none).
 *   - Fields that change no parameter count are not read (rope_*, dropouts, token ids).
 *   - Fields that would change the count in a way the inventory (arch.c) does not model are
 *     refused with LLMMEM_ERR_UNSUPPORTED naming them, never ignored. */

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "families.h"
#include "internal.h"
#include "readfile.h"

/* Largest config read, and the most JSON values in it: LLMMEM_CONFIG_MAX_BYTES (4 MiB) and
 * LLMMEM_CONFIG_MAX_VALUES (100,000), checked before jansson builds anything (readfile.h). */
/* Deepest nesting accepted: real configs go 4 levels deep (quantization_config.meta.quantizer). */
#define HF_MAX_DEPTH 32
/* Characters of a path or a JSON string shown in a message. */
#define HF_SHOWN 120

#define CLASS_NONE LLMMEM_CLASS_NONE /* no class default encoded */

/* The families read, their class defaults and reader hooks: lib/families.c. */
typedef llmmem__family family;

/* ---- reading state and messages ----------------------------------------------------------- */

typedef struct hf {
    llmmem_model *m;
    const char *where;   /* the file, or "<memory>" */
    const char *prefix;  /* "", "text_config.", "vision_config." or "quantization_config." */
    int nested;          /* inside a sub-config: class defaults fill the shape fields */
    const family *fam;
    const char *type;    /* model_type named in messages about required fields */
    const json_t *top;   /* the whole document */
} hf;

static llmmem_status hf_fail(const hf *c, llmmem_status status, const char *field, const char *fmt, ...)
    LLMMEM_PRINTF(4, 5);

/* "<where>: <prefix><field>: <text>". */
static llmmem_status hf_fail(const hf *c, llmmem_status status, const char *field, const char *fmt, ...)
{
    char text[LLMMEM_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (field)
        return llmmem__fail(status, "%s: %s%s: %s", c->where, c->prefix, field, text);
    return llmmem__fail(status, "%s: %s", c->where, text);
}

static const char *kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE: return "true";
    case JSON_FALSE: return "false";
    default: return "null";
    }
}

/* A JSON string for a message: at most HF_SHOWN characters, non-printing ones as '?'. */
static void shown_text(char *buf, size_t size, const char *s)
{
    size_t n = 0;
    for (; s[n] && n + 1 < size && n < HF_SHOWN; n++)
        buf[n] = isprint((unsigned char)s[n]) ? s[n] : '?';
    buf[n] = '\0';
}

static const char *shown_path(const char *path)
{
    size_t n = strlen(path);
    return n > HF_SHOWN ? path + (n - HF_SHOWN) : path;
}

static llmmem_status unsupported_string(const hf *c, const char *field, const char *value, const char *supported)
{
    char shown[HF_SHOWN + 1];
    shown_text(shown, sizeof shown, value);
    return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, field, "'%s' is not supported (%s)", shown, supported);
}

/* ---- typed field access ----------------------------------------------------------------- */

enum presence { ABSENT = 0, IS_NULL = 1, PRESENT = 2 };

static enum presence lookup(const json_t *obj, const char *field, const json_t **v)
{
    *v = json_object_get(obj, field);
    if (!*v)
        return ABSENT;
    return json_is_null(*v) ? IS_NULL : PRESENT;
}

static llmmem_status get_int(const hf *c, const json_t *obj, const char *field, int64_t *out, enum presence *p)
{
    const json_t *v;
    *p = lookup(obj, field, &v);
    if (*p != PRESENT)
        return LLMMEM_OK;
    if (!json_is_integer(v))
        return hf_fail(c, LLMMEM_ERR_PARSE, field, "expected an integer, got %s", kind(v));
    *out = (int64_t)json_integer_value(v);
    return LLMMEM_OK;
}

static llmmem_status get_bool(const hf *c, const json_t *obj, const char *field, int *out, enum presence *p)
{
    const json_t *v;
    *p = lookup(obj, field, &v);
    if (*p != PRESENT)
        return LLMMEM_OK;
    if (!json_is_boolean(v))
        return hf_fail(c, LLMMEM_ERR_PARSE, field, "expected true or false, got %s", kind(v));
    *out = json_is_true(v);
    return LLMMEM_OK;
}

static llmmem_status get_string(const hf *c, const json_t *obj, const char *field, const char **out,
                                enum presence *p)
{
    const json_t *v;
    *p = lookup(obj, field, &v);
    if (*p != PRESENT)
        return LLMMEM_OK;
    if (!json_is_string(v))
        return hf_fail(c, LLMMEM_ERR_PARSE, field, "expected a string, got %s", kind(v));
    *out = json_string_value(v);
    return LLMMEM_OK;
}

/* A bool that takes `dflt` when absent or null. */
static llmmem_status get_flag(const hf *c, const json_t *obj, const char *field, int dflt, int *out)
{
    enum presence p;
    *out = dflt;
    llmmem_status st = get_bool(c, obj, field, out, &p);
    if (!st && p != PRESENT)
        *out = dflt;
    return st;
}

/* An integer under any of its names (n_embd and its attribute_map alias hidden_size): names
 * given together must agree. *name_out is the name found (the first when none is). */
static llmmem_status get_int_alias(const hf *c, const json_t *obj, const char *const *names, int64_t *out,
                                   enum presence *p, const char **name_out)
{
    *p = ABSENT;
    *name_out = names[0];
    for (size_t i = 0; names[i]; i++) {
        int64_t v = 0;
        enum presence q;
        llmmem_status st = get_int(c, obj, names[i], &v, &q);
        if (st)
            return st;
        if (q == ABSENT)
            continue;
        if (*p == PRESENT && q == PRESENT && v != *out)
            return hf_fail(c, LLMMEM_ERR_PARSE, names[i], "%lld disagrees with %s%s (%lld)", (long long)v,
                           c->prefix, *name_out, (long long)*out);
        if (*p != PRESENT) {
            *p = q;
            *out = v;
            *name_out = names[i];
        }
    }
    return LLMMEM_OK;
}

/* Sets a key from a field, the key's own message (bounds) after the file and the field. */
static llmmem_status set(const hf *c, const char *field, llmmem_key key, int64_t value)
{
    llmmem_status st = llmmem_model_set_int(c->m, key, value);
    if (st) {
        char prefix[LLMMEM_MESSAGE_MAX];
        snprintf(prefix, sizeof prefix, "%s: %s%s", c->where, c->prefix, field);
        return llmmem__fail_prefixed(st, prefix);
    }
    return LLMMEM_OK;
}

/* A required shape field under any of its names; in a sub-config its class default fills it. */
static llmmem_status required(const hf *c, const json_t *obj, const char *const *names, llmmem_key key,
                              int64_t class_default, int64_t *value_out)
{
    int64_t v = 0;
    enum presence p;
    const char *name;
    llmmem_status st = get_int_alias(c, obj, names, &v, &p, &name);
    if (st)
        return st;
    if (p == IS_NULL)
        return hf_fail(c, LLMMEM_ERR_INCOMPLETE, name, "is null, but model_type %s needs it", c->type);
    if (p == ABSENT) {
        if (!c->nested || class_default == CLASS_NONE)
            return hf_fail(c, LLMMEM_ERR_INCOMPLETE, name, "is missing (required for model_type %s)", c->type);
        v = class_default;
    }
    if (value_out)
        *value_out = v;
    return set(c, name, key, v);
}

#define NAMES(...) ((const char *const[]){__VA_ARGS__, NULL})

/* An optional integer: absent takes `absent_value`, null `null_value`; LEAVE sets nothing. */
#define LEAVE INT64_MIN
static llmmem_status optional(const hf *c, const json_t *obj, const char *field, llmmem_key key,
                              int64_t absent_value, int64_t null_value)
{
    int64_t v = 0;
    enum presence p;
    llmmem_status st = get_int(c, obj, field, &v, &p);
    if (st)
        return st;
    if (p == ABSENT)
        v = absent_value;
    else if (p == IS_NULL)
        v = null_value;
    if (v == LEAVE)
        return LLMMEM_OK;
    return set(c, field, key, v);
}

/* A bool field onto a bool key; its class default when absent or null. */
static llmmem_status bool_key(const hf *c, const json_t *obj, const char *field, llmmem_key key, int dflt)
{
    int v;
    llmmem_status st = get_flag(c, obj, field, dflt, &v);
    return st ? st : set(c, field, key, v);
}

/* A bool field whose value `refused` would change the count in a way the inventory does not
 * model. */
static llmmem_status refuse_if(const hf *c, const json_t *obj, const char *field, int refused, int dflt,
                               const char *why)
{
    int v;
    llmmem_status st = get_flag(c, obj, field, dflt, &v);
    if (st)
        return st;
    if (v == refused)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, field, "%s is not supported: %s", v ? "true" : "false", why);
    return LLMMEM_OK;
}

/* ---- shared parts of text models ------------------------------------------------------------ */

/* tie_word_embeddings: the config's; in a sub-config, else the top level's; else the class's. */
static llmmem_status read_tie(const hf *c, const json_t *obj)
{
    int v = c->fam->config.tie;
    enum presence p;
    llmmem_status st = get_bool(c, obj, "tie_word_embeddings", &v, &p);
    if (st)
        return st;
    if (p != PRESENT && c->nested) {
        hf top = *c;
        top.prefix = "";
        st = get_bool(&top, c->top, "tie_word_embeddings", &v, &p);
        if (st)
            return st;
    }
    if (p != PRESENT)
        v = c->fam->config.tie;
    return set(c, "tie_word_embeddings", LLMMEM_KEY_TIE_WORD_EMBEDDINGS, v);
}

/* num_key_value_heads: absent, the class default; null, the attention heads. */
static llmmem_status read_kv_heads(const hf *c, const json_t *obj)
{
    int64_t absent = c->fam->config.kv_heads == CLASS_NONE ? 0 : c->fam->config.kv_heads;
    return optional(c, obj, "num_key_value_heads", LLMMEM_KEY_NUM_KEY_VALUE_HEADS, absent, 0);
}

/* The mixer of layer_types[i] (read and checked before). */
static enum llmmem__mixer mixer_at(const json_t *types, size_t i)
{
    const json_t *t = json_array_get(types, i);
    enum llmmem__mixer mixer = LLMMEM_MIXER_FULL;
    (void)llmmem__layer_type_mixer(&mixer, json_string_value(t), json_string_length(t));
    return mixer;
}

static int is_full_attention(const json_t *types, size_t i)
{
    return mixer_at(types, i) == LLMMEM_MIXER_FULL;
}

/* layer_types, a list of full_attention / sliding_attention, onto sliding_window_pattern n
 * (layer i global exactly when (i + 1) % n == 0) when it has a period, else onto the model's
 * per-layer map (llmmem_model_set_layer_types). */
static llmmem_status read_layer_types(const hf *c, const json_t *types, int64_t layers, int64_t window)
{
    if (!json_is_array(types))
        return hf_fail(c, LLMMEM_ERR_PARSE, "layer_types", "expected an array, got %s", kind(types));
    size_t n = json_array_size(types);
    if ((int64_t)n != layers)
        return hf_fail(c, LLMMEM_ERR_INCOMPATIBLE, "layer_types", "has %zu entries, but num_hidden_layers is %lld", n,
                       (long long)layers);
    size_t full = 0, state = 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *t = json_array_get(types, i);
        char field[48];
        snprintf(field, sizeof field, "layer_types[%zu]", i);
        if (!json_is_string(t))
            return hf_fail(c, LLMMEM_ERR_PARSE, field, "expected a string, got %s", kind(t));
        enum llmmem__mixer mixer;
        if (!llmmem__layer_type_mixer(&mixer, json_string_value(t), json_string_length(t)) ||
            !llmmem__mixer_modelled(mixer))
            return unsupported_string(c, field, json_string_value(t), LLMMEM_MODELLED_LAYER_TYPES " are");
        full += mixer == LLMMEM_MIXER_FULL;
        state += mixer == LLMMEM_MIXER_LINEAR || mixer == LLMMEM_MIXER_SSM;
    }
    if (state) /* linear_attention or mamba layers: the map, layer by layer */
        goto map;
    if (full == n || window == 0) /* no layer slides */
        return set(c, "layer_types", LLMMEM_KEY_SLIDING_WINDOW, 0);
    if (full == 0) /* every layer slides */
        return set(c, "layer_types", LLMMEM_KEY_SLIDING_WINDOW_PATTERN, 0);
    for (size_t period = 2; period <= n; period++) {
        size_t i = 0;
        while (i < n && is_full_attention(types, i) == ((i + 1) % period == 0))
            i++;
        if (i == n)
            return set(c, "layer_types", LLMMEM_KEY_SLIDING_WINDOW_PATTERN, (int64_t)period);
    }
map:
    if (n > LLMMEM_LAYER_MAP_MAX)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "layer_types", "not periodic, and more than %d layers are not "
                       "modelled layer by layer", LLMMEM_LAYER_MAP_MAX);
    llmmem__layer_map map;
    memset(&map, 0, sizeof map);
    for (size_t i = 0; i < n; i++)
        llmmem__layer_map_push(&map, mixer_at(types, i));
    llmmem__model_set_layer_map(c->m, &map);
    return LLMMEM_OK;
}

/* The sliding window and which layers use it. */
static llmmem_status read_sliding(const hf *c, const json_t *obj, int64_t layers)
{
    const family *f = c->fam;
    if (f->config.sliding == LLMMEM_SLIDE_NONE)
        return LLMMEM_OK;
    int64_t window = 0;
    enum presence p;
    llmmem_status st = get_int(c, obj, "sliding_window", &window, &p);
    if (st)
        return st;
    if (p == ABSENT)
        window = f->config.sliding_window;
    else if (p == IS_NULL)
        window = 0;
    if (f->config.sliding == LLMMEM_SLIDE_QWEN) {
        /* Qwen2Config: sliding_window = sliding_window if use_sliding_window else None */
        int use;
        st = get_flag(c, obj, "use_sliding_window", 0, &use);
        if (st)
            return st;
        if (!use)
            window = 0;
    }
    st = set(c, "sliding_window", LLMMEM_KEY_SLIDING_WINDOW, window);
    if (st)
        return st;
    const json_t *types = json_object_get(obj, "layer_types");
    if (types && !json_is_null(types))
        return read_layer_types(c, types, layers, window);
    if (window == 0)
        return LLMMEM_OK;
    if (f->config.sliding == LLMMEM_SLIDE_QWEN) {
        /* Qwen2/3: layer i slides when i >= max_window_layers (default 28) */
        int64_t first = 28;
        st = get_int(c, obj, "max_window_layers", &first, &p);
        if (st)
            return st;
        if (p == IS_NULL)
            return hf_fail(c, LLMMEM_ERR_INCOMPLETE, "max_window_layers", "is null, but use_sliding_window is true");
        if (p == ABSENT)
            first = 28;
        if (first >= layers)
            return set(c, "max_window_layers", LLMMEM_KEY_SLIDING_WINDOW, 0); /* no layer slides */
        if (first == 0)
            return set(c, "max_window_layers", LLMMEM_KEY_SLIDING_WINDOW_PATTERN, 0);
        /* Qwen2Config layer_types: "sliding_attention" if i >= max_window_layers: a per-layer map */
        if (layers > LLMMEM_LAYER_MAP_MAX)
            return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "max_window_layers", "%lld: more than %d layers are not "
                           "modelled layer by layer", (long long)first, LLMMEM_LAYER_MAP_MAX);
        llmmem__layer_map map;
        memset(&map, 0, sizeof map);
        for (int64_t i = 0; i < layers; i++)
            llmmem__layer_map_push(&map, i >= first ? LLMMEM_MIXER_SLIDING : LLMMEM_MIXER_FULL);
        llmmem__model_set_layer_map(c->m, &map);
        return LLMMEM_OK;
    }
    if (f->config.sliding == LLMMEM_SLIDE_GEMMA) {
        /* sliding_window_pattern (transformers 4.50), _sliding_window_pattern (later) */
        int64_t pattern = f->config.sliding_pattern;
        const char *name;
        st = get_int_alias(c, obj, NAMES("sliding_window_pattern", "_sliding_window_pattern"), &pattern, &p, &name);
        if (st)
            return st;
        if (p != PRESENT)
            pattern = f->config.sliding_pattern;
        return set(c, name, LLMMEM_KEY_SLIDING_WINDOW_PATTERN, pattern);
    }
    return set(c, "sliding_window", LLMMEM_KEY_SLIDING_WINDOW_PATTERN, 0); /* every layer slides */
}

/* Fields no decoder-only family here may have. */
static llmmem_status read_common_checks(const hf *c, const json_t *obj)
{
    llmmem_status st = refuse_if(c, obj, "is_encoder_decoder", 1, 0, "encoder-decoder models are not modelled");
    if (!st)
        st = refuse_if(c, obj, "add_cross_attention", 1, 0, "cross-attention layers are not modelled");
    return st;
}

/* ---- mixture of experts -------------------------------------------------------------------- */

/* mlp_only_layers, the layers that keep a dense MLP (Qwen2MoeDecoderLayer): only a leading run
 * 0 .. k-1 maps, onto first_k_dense_replace. */
static llmmem_status read_mlp_only_layers(const hf *c, const json_t *obj, int64_t layers, int64_t *dense_out)
{
    const json_t *list = json_object_get(obj, "mlp_only_layers");
    *dense_out = 0;
    if (!list || json_is_null(list))
        return LLMMEM_OK;
    if (!json_is_array(list))
        return hf_fail(c, LLMMEM_ERR_PARSE, "mlp_only_layers", "expected an array, got %s", kind(list));
    size_t n = json_array_size(list);
    for (size_t i = 0; i < n; i++) {
        const json_t *v = json_array_get(list, i);
        char field[48];
        snprintf(field, sizeof field, "mlp_only_layers[%zu]", i);
        if (!json_is_integer(v))
            return hf_fail(c, LLMMEM_ERR_PARSE, field, "expected an integer, got %s", kind(v));
        if (json_integer_value(v) != (json_int_t)i)
            return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "mlp_only_layers",
                           "dense layers other than a leading run 0, 1, ..., k-1 are not modelled (entry %zu is "
                           "%lld)",
                           i, (long long)json_integer_value(v));
    }
    if ((int64_t)n > layers)
        return hf_fail(c, LLMMEM_ERR_INCOMPATIBLE, "mlp_only_layers", "names %zu layers, but num_hidden_layers is %lld",
                       n, (long long)layers);
    *dense_out = (int64_t)n;
    return LLMMEM_OK;
}

/* Qwen2-MoE, Qwen3-MoE: num_experts of moe_intermediate_size on layer i when num_experts > 0,
 * i is not in mlp_only_layers and (i + 1) % decoder_sparse_step == 0. */
static llmmem_status read_qwen_moe(const hf *c, const json_t *obj, int64_t layers)
{
    int64_t experts = 0;
    llmmem_status st = required(c, obj, NAMES("num_experts"), LLMMEM_KEY_NUM_EXPERTS, CLASS_NONE, &experts);
    if (st || experts == 0)
        return st;
    st = required(c, obj, NAMES("num_experts_per_tok"), LLMMEM_KEY_NUM_EXPERTS_PER_TOK, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES("moe_intermediate_size"), LLMMEM_KEY_MOE_INTERMEDIATE_SIZE, CLASS_NONE, NULL);
    if (!st && c->fam->config.moe == LLMMEM_MOE_QWEN_SHARED) /* Qwen2MoeSparseMoeBlock.shared_expert */
        st = required(c, obj, NAMES("shared_expert_intermediate_size"), LLMMEM_KEY_SHARED_EXPERT_INTERMEDIATE_SIZE,
                      CLASS_NONE, NULL);
    if (st)
        return st;
    int64_t step = 1;
    enum presence p;
    st = get_int(c, obj, "decoder_sparse_step", &step, &p);
    if (st)
        return st;
    if (p == IS_NULL)
        return hf_fail(c, LLMMEM_ERR_INCOMPLETE, "decoder_sparse_step", "is null");
    if (p == ABSENT)
        step = 1;
    if (step < 1)
        return hf_fail(c, LLMMEM_ERR_OUT_OF_RANGE, "decoder_sparse_step", "%lld is below 1", (long long)step);
    int64_t dense = 0;
    if (step > layers) { /* no layer is sparse */
        dense = layers;
    } else if (step != 1) {
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "decoder_sparse_step",
                       "%lld: MoE on the layers i with (i + 1) %% %lld == 0 is not modelled (first_k_dense_replace "
                       "and moe_layer_freq give the layers i >= k with i %% n == 0)",
                       (long long)step, (long long)step);
    } else {
        st = read_mlp_only_layers(c, obj, layers, &dense);
        if (st)
            return st;
    }
    st = set(c, "mlp_only_layers", LLMMEM_KEY_FIRST_K_DENSE_REPLACE, dense);
    if (!st)
        st = set(c, "decoder_sparse_step", LLMMEM_KEY_MOE_LAYER_FREQ, 1);
    return st;
}

/* ---- the families ------------------------------------------------------------------------------ */

/* Llama and the families shaped like it: GPT-NeoX, Mistral, Mixtral, Qwen, Phi-3, Gemma. */
/* Qwen3NextConfig: Gated DeltaNet's linear_* fields; layer_types when given, else
 * full_attention_interval (default 4) makes every n-th layer full attention. */
static llmmem_status read_qwen3_next(const hf *c, const json_t *obj, int64_t layers)
{
    llmmem_status st = required(c, obj, NAMES("linear_num_key_heads"), LLMMEM_KEY_LINEAR_NUM_KEY_HEADS, 16, NULL);
    if (!st)
        st = required(c, obj, NAMES("linear_num_value_heads"), LLMMEM_KEY_LINEAR_NUM_VALUE_HEADS, 32, NULL);
    if (!st)
        st = required(c, obj, NAMES("linear_key_head_dim"), LLMMEM_KEY_LINEAR_KEY_HEAD_DIM, 128, NULL);
    if (!st)
        st = required(c, obj, NAMES("linear_value_head_dim"), LLMMEM_KEY_LINEAR_VALUE_HEAD_DIM, 128, NULL);
    if (!st)
        st = optional(c, obj, "linear_conv_kernel_dim", LLMMEM_KEY_LINEAR_CONV_KERNEL_DIM, 4, 4);
    /* mtp_num_hidden_layers: the multi-token-prediction layers (mtp.* tensors, which
     * Qwen3NextForCausalLM does not load) are counted by the MTP work, not here */
    if (st)
        return st;
    const json_t *types = json_object_get(obj, "layer_types");
    if (types && !json_is_null(types)) {
        st = set(c, "layer_types", LLMMEM_KEY_FULL_ATTENTION_INTERVAL, 0);
        return st ? st : read_layer_types(c, types, layers, 0);
    }
    int64_t interval = 4;
    enum presence p;
    st = get_int(c, obj, "full_attention_interval", &interval, &p);
    if (st)
        return st;
    if (p != PRESENT)
        interval = 4;
    if (interval < 1)
        return hf_fail(c, LLMMEM_ERR_OUT_OF_RANGE, "full_attention_interval", "%lld is below 1", (long long)interval);
    return set(c, "full_attention_interval", LLMMEM_KEY_FULL_ATTENTION_INTERVAL, interval);
}

static llmmem_status read_llama_like(const hf *c, const json_t *obj)
{
    const family *f = c->fam;
    int64_t layers = 0, intermediate = 0;
    llmmem_status st = required(c, obj, NAMES("hidden_size"), LLMMEM_KEY_HIDDEN_SIZE, f->config.hidden, NULL);
    if (!st)
        st = required(c, obj, NAMES("num_hidden_layers"), LLMMEM_KEY_NUM_HIDDEN_LAYERS, f->config.layers, &layers);
    if (!st)
        st = required(c, obj, NAMES("num_attention_heads"), LLMMEM_KEY_NUM_ATTENTION_HEADS, f->config.heads, NULL);
    if (!st)
        st = required(c, obj, NAMES("vocab_size"), LLMMEM_KEY_VOCAB_SIZE, f->config.vocab, NULL);
    if (!st)
        st = required(c, obj, NAMES("intermediate_size"), LLMMEM_KEY_INTERMEDIATE_SIZE, f->config.intermediate, &intermediate);
    if (!st && f->config.reads_kv_heads) /* GPTNeoXAttention: no grouped-query heads */
        st = read_kv_heads(c, obj);
    if (!st && f->config.reads_head_dim)
        st = optional(c, obj, "head_dim", LLMMEM_KEY_HEAD_DIM, f->config.head_dim, 0);
    if (!st)
        st = optional(c, obj, "max_position_embeddings", LLMMEM_KEY_MAX_POSITION_EMBEDDINGS,
                      f->config.max_position == CLASS_NONE ? LEAVE : f->config.max_position, LEAVE);
    if (!st)
        st = read_tie(c, obj);
    if (st)
        return st;

    if (f->config.attention_bias >= 0) {
        /* GPTNeoXConfig attention_bias=True biases query_key_value and dense; Llama, Qwen3 and
         * Gemma default to False */
        int bias;
        st = get_flag(c, obj, "attention_bias", f->config.attention_bias, &bias);
        if (!st)
            st = set(c, "attention_bias", LLMMEM_KEY_QKV_BIAS, bias);
        if (!st)
            st = set(c, "attention_bias", LLMMEM_KEY_O_PROJ_BIAS, bias);
    }
    if (!st && f->config.reads_mlp_bias) /* LlamaMLP: bias=config.mlp_bias */
        st = bool_key(c, obj, "mlp_bias", LLMMEM_KEY_MLP_BIAS, 0);
    if (st)
        return st;

    if (f->config.moe == LLMMEM_MOE_MIXTRAL) {
        /* MixtralSparseMoeBlock on every layer: num_local_experts experts of intermediate_size (its
         * router is Linear(hidden_size, num_local_experts): 0 experts is no model, never a dense one) */
        int64_t experts = 0;
        st = required(c, obj, NAMES("num_local_experts"), LLMMEM_KEY_NUM_EXPERTS, CLASS_NONE, &experts);
        if (!st && experts == 0)
            st = hf_fail(c, LLMMEM_ERR_OUT_OF_RANGE, "num_local_experts",
                         "0 experts: a mixtral model routes every layer to at least 1 expert");
        if (!st)
            st = required(c, obj, NAMES("num_experts_per_tok"), LLMMEM_KEY_NUM_EXPERTS_PER_TOK, CLASS_NONE, NULL);
        if (!st)
            st = set(c, "intermediate_size", LLMMEM_KEY_MOE_INTERMEDIATE_SIZE, intermediate);
        if (!st)
            st = set(c, "num_local_experts", LLMMEM_KEY_FIRST_K_DENSE_REPLACE, 0);
        if (!st)
            st = set(c, "num_local_experts", LLMMEM_KEY_MOE_LAYER_FREQ, 1);
    } else if (f->config.moe == LLMMEM_MOE_QWEN || f->config.moe == LLMMEM_MOE_QWEN_SHARED) {
        st = read_qwen_moe(c, obj, layers);
    }
    if (st)
        return st;
    if (f->type == LLMMEM_MODEL_QWEN3_NEXT)
        return read_qwen3_next(c, obj, layers);
    return read_sliding(c, obj, layers);
}

/* GPT2Config (attribute_map: hidden_size n_embd, num_hidden_layers n_layer, num_attention_heads
 * n_head, max_position_embeddings n_positions); n_inner None: 4 * n_embd. */
static llmmem_status read_gpt2(const hf *c, const json_t *obj)
{
    llmmem_status st = required(c, obj, NAMES("n_embd", "hidden_size"), LLMMEM_KEY_HIDDEN_SIZE, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES("n_layer", "num_hidden_layers"), LLMMEM_KEY_NUM_HIDDEN_LAYERS, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES("n_head", "num_attention_heads"), LLMMEM_KEY_NUM_ATTENTION_HEADS, CLASS_NONE,
                      NULL);
    if (!st)
        st = required(c, obj, NAMES("vocab_size"), LLMMEM_KEY_VOCAB_SIZE, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES("n_positions", "max_position_embeddings"), LLMMEM_KEY_MAX_POSITION_EMBEDDINGS,
                      CLASS_NONE, NULL);
    if (!st)
        st = optional(c, obj, "n_inner", LLMMEM_KEY_INTERMEDIATE_SIZE, 0, 0);
    if (!st)
        st = read_tie(c, obj);
    return st;
}

/* OPTConfig; OPTDecoder adds project_in/project_out when word_embed_proj_dim != hidden_size and
 * has no final norm when do_layer_norm_before is false or _remove_final_layer_norm is true. */
static llmmem_status read_opt(const hf *c, const json_t *obj)
{
    int64_t hidden = 0;
    llmmem_status st = required(c, obj, NAMES("hidden_size"), LLMMEM_KEY_HIDDEN_SIZE, CLASS_NONE, &hidden);
    if (!st)
        st = required(c, obj, NAMES("num_hidden_layers"), LLMMEM_KEY_NUM_HIDDEN_LAYERS, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES("num_attention_heads"), LLMMEM_KEY_NUM_ATTENTION_HEADS, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES("vocab_size"), LLMMEM_KEY_VOCAB_SIZE, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES("ffn_dim"), LLMMEM_KEY_INTERMEDIATE_SIZE, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES("max_position_embeddings"), LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, CLASS_NONE, NULL);
    if (st)
        return st;
    int64_t proj = hidden;
    enum presence p;
    st = get_int(c, obj, "word_embed_proj_dim", &proj, &p);
    if (st)
        return st;
    if (p == PRESENT && proj != hidden)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "word_embed_proj_dim",
                       "%lld differs from hidden_size (%lld): the project_in and project_out layers this adds are "
                       "not modelled",
                       (long long)proj, (long long)hidden);
    st = refuse_if(c, obj, "do_layer_norm_before", 0, 1,
                   "post-norm OPT (opt-350m) has no final layer norm, which is not modelled");
    if (!st)
        st = refuse_if(c, obj, "_remove_final_layer_norm", 1, 0,
                       "a model without its final layer norm is not modelled");
    if (!st)
        st = refuse_if(c, obj, "layer_norm_elementwise_affine", 0, 1, "layer norms without weights are not modelled");
    if (st)
        return st;
    int bias;
    st = get_flag(c, obj, "enable_bias", 1, &bias);
    if (!st)
        st = set(c, "enable_bias", LLMMEM_KEY_QKV_BIAS, bias);
    if (!st)
        st = set(c, "enable_bias", LLMMEM_KEY_O_PROJ_BIAS, bias);
    if (!st)
        st = set(c, "enable_bias", LLMMEM_KEY_MLP_BIAS, bias);
    if (!st)
        st = read_tie(c, obj);
    return st;
}

/* BloomConfig: n_embed overrides hidden_size; attribute_map num_hidden_layers n_layer,
 * num_attention_heads n_head; MLP 4 * hidden_size; ALiBi, no position table. */
static llmmem_status read_bloom(const hf *c, const json_t *obj)
{
    llmmem_status st = required(c, obj, NAMES("n_embed", "hidden_size"), LLMMEM_KEY_HIDDEN_SIZE, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES("n_layer", "num_hidden_layers"), LLMMEM_KEY_NUM_HIDDEN_LAYERS, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES("n_head", "num_attention_heads"), LLMMEM_KEY_NUM_ATTENTION_HEADS, CLASS_NONE,
                      NULL);
    if (!st)
        st = required(c, obj, NAMES("vocab_size"), LLMMEM_KEY_VOCAB_SIZE, CLASS_NONE, NULL);
    if (!st)
        st = read_tie(c, obj);
    return st;
}

/* FalconConfig with FalconAttention and FalconDecoderLayer:
 *   k/v heads: new_decoder_architecture: num_kv_heads (None: num_attention_heads); else
 *   multi_query: 1; else num_attention_heads.
 *   norms: parallel_attn false: input_layernorm and post_attention_layernorm; parallel_attn with
 *   num_ln_in_parallel_attn 2 (None: 2 under new_decoder_architecture): ln_attn and ln_mlp;
 *   else input_layernorm alone.
 *   bias: query_key_value, dense and the MLP; ffn_hidden_size None: 4 * hidden_size. */
static llmmem_status read_falcon(const hf *c, const json_t *obj)
{
    int64_t heads = 0;
    llmmem_status st = required(c, obj, NAMES("hidden_size"), LLMMEM_KEY_HIDDEN_SIZE, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES("num_hidden_layers", "n_layer"), LLMMEM_KEY_NUM_HIDDEN_LAYERS, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES("num_attention_heads", "n_head"), LLMMEM_KEY_NUM_ATTENTION_HEADS, CLASS_NONE,
                      &heads);
    if (!st)
        st = required(c, obj, NAMES("vocab_size"), LLMMEM_KEY_VOCAB_SIZE, CLASS_NONE, NULL);
    if (!st)
        st = optional(c, obj, "ffn_hidden_size", LLMMEM_KEY_INTERMEDIATE_SIZE, 0, 0);
    if (!st)
        st = optional(c, obj, "max_position_embeddings", LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, c->fam->config.max_position,
                      LEAVE);
    if (st)
        return st;
    int new_arch, multi_query, parallel, bias;
    st = get_flag(c, obj, "new_decoder_architecture", 0, &new_arch);
    if (!st)
        st = get_flag(c, obj, "multi_query", 1, &multi_query);
    if (!st)
        st = get_flag(c, obj, "parallel_attn", 1, &parallel);
    if (!st)
        st = get_flag(c, obj, "bias", 0, &bias);
    if (st)
        return st;
    if (new_arch) {
        int64_t kv = heads;
        enum presence p;
        const char *name;
        st = get_int_alias(c, obj, NAMES("num_kv_heads", "n_head_kv"), &kv, &p, &name);
        if (st)
            return st;
        if (p != PRESENT)
            kv = heads;
        st = set(c, name, LLMMEM_KEY_NUM_KEY_VALUE_HEADS, kv);
    } else {
        st = set(c, "multi_query", LLMMEM_KEY_NUM_KEY_VALUE_HEADS, multi_query ? 1 : heads);
    }
    if (st)
        return st;
    int64_t norms = 2;
    if (parallel) {
        int64_t ln = 0;
        enum presence p;
        st = get_int(c, obj, "num_ln_in_parallel_attn", &ln, &p);
        if (st)
            return st;
        if (p != PRESENT)
            ln = new_arch ? 2 : 1;
        norms = ln == 2 ? 2 : 1;
    }
    st = set(c, "parallel_attn", LLMMEM_KEY_NORMS_PER_LAYER, norms);
    if (!st)
        st = set(c, "bias", LLMMEM_KEY_QKV_BIAS, bias);
    if (!st)
        st = set(c, "bias", LLMMEM_KEY_O_PROJ_BIAS, bias);
    if (!st)
        st = set(c, "bias", LLMMEM_KEY_MLP_BIAS, bias);
    if (!st)
        st = read_tie(c, obj);
    return st;
}

/* DeepSeek-V2/V3 (modeling_deepseek.py): multi-head latent attention; layer i has a MoE block
 * when n_routed_experts is not None and i >= first_k_dense_replace and i % moe_layer_freq == 0;
 * topk_method noaux_tc adds MoEGate.e_score_correction_bias. */
static llmmem_status read_deepseek(const hf *c, const json_t *obj)
{
    /* DeepseekV3Config (and Kimi K2's) default topk_method noaux_tc: the families whose gate has
     * the correction bias by structure (families.c) */
    int64_t by_structure = 0;
    int v3 = llmmem__family_structure(&by_structure, c->fam, LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS) && by_structure;
    llmmem_status st = required(c, obj, NAMES("hidden_size"), LLMMEM_KEY_HIDDEN_SIZE, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES("num_hidden_layers"), LLMMEM_KEY_NUM_HIDDEN_LAYERS, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES("num_attention_heads"), LLMMEM_KEY_NUM_ATTENTION_HEADS, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES("vocab_size"), LLMMEM_KEY_VOCAB_SIZE, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES("intermediate_size"), LLMMEM_KEY_INTERMEDIATE_SIZE, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES("kv_lora_rank"), LLMMEM_KEY_KV_LORA_RANK, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES("qk_rope_head_dim"), LLMMEM_KEY_QK_ROPE_HEAD_DIM, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES("qk_nope_head_dim"), LLMMEM_KEY_QK_NOPE_HEAD_DIM, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES("v_head_dim"), LLMMEM_KEY_V_HEAD_DIM, CLASS_NONE, NULL);
    if (!st)
        st = optional(c, obj, "num_key_value_heads", LLMMEM_KEY_NUM_KEY_VALUE_HEADS, LEAVE, 0);
    if (!st)
        st = optional(c, obj, "max_position_embeddings", LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, LEAVE, LEAVE);
    if (!st)
        st = read_tie(c, obj);
    if (!st)
        st = refuse_if(c, obj, "attention_bias", 1, 0,
                       "biases on q_a_proj, kv_a_proj_with_mqa and o_proj are not modelled");
    if (st)
        return st;
    /* q_lora_rank: null is a full-rank q_proj; absent would be the class default 1536, which no
     * published config relies on, so it is required */
    int64_t q_rank = 0;
    enum presence p;
    st = get_int(c, obj, "q_lora_rank", &q_rank, &p);
    if (st)
        return st;
    if (p == ABSENT)
        return hf_fail(c, LLMMEM_ERR_INCOMPLETE, "q_lora_rank", "is missing (null for a full-rank q_proj)");
    st = set(c, "q_lora_rank", LLMMEM_KEY_Q_LORA_RANK, p == IS_NULL ? 0 : q_rank);
    if (st)
        return st;

    int64_t experts = 0;
    st = get_int(c, obj, "n_routed_experts", &experts, &p);
    if (st)
        return st;
    if (p == ABSENT)
        return hf_fail(c, LLMMEM_ERR_INCOMPLETE, "n_routed_experts", "is missing (null for a dense model)");
    if (p == IS_NULL)
        experts = 0;
    st = set(c, "n_routed_experts", LLMMEM_KEY_NUM_EXPERTS, experts);
    if (st || experts == 0)
        return st;
    st = required(c, obj, NAMES("num_experts_per_tok"), LLMMEM_KEY_NUM_EXPERTS_PER_TOK, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES("moe_intermediate_size"), LLMMEM_KEY_MOE_INTERMEDIATE_SIZE, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES("first_k_dense_replace"), LLMMEM_KEY_FIRST_K_DENSE_REPLACE, CLASS_NONE, NULL);
    if (!st)
        st = optional(c, obj, "n_shared_experts", LLMMEM_KEY_N_SHARED_EXPERTS, 0, 0);
    if (!st)
        st = optional(c, obj, "moe_layer_freq", LLMMEM_KEY_MOE_LAYER_FREQ, 1, 1);
    if (st)
        return st;
    const char *method = NULL; /* DeepseekV3Config noaux_tc, DeepseekV2Config greedy */
    st = get_string(c, obj, "topk_method", &method, &p);
    if (st)
        return st;
    if (p != PRESENT)
        method = v3 ? "noaux_tc" : "greedy";
    int correction;
    if (strcmp(method, "noaux_tc") == 0)
        correction = 1;
    else if (strcmp(method, "greedy") == 0 || strcmp(method, "group_limited_greedy") == 0)
        correction = 0;
    else
        return unsupported_string(c, "topk_method", method, "greedy, group_limited_greedy and noaux_tc are");
    return set(c, "topk_method", LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS, correction);
}

/* The Mamba-2 mixer fields under their names in one family's config (names[0..6]: heads, head
 * width, state, groups, conv kernel, conv bias, projection bias). */
static llmmem_status read_mamba2_mixer(const hf *c, const json_t *obj, const char *const names[7])
{
    /* Mamba2Config and NemotronHConfig defaults: n_groups=8, conv_kernel=4, use_conv_bias=True, use_bias=False */
    llmmem_status st = required(c, obj, NAMES(names[0]), LLMMEM_KEY_MAMBA_NUM_HEADS, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES(names[1]), LLMMEM_KEY_MAMBA_HEAD_DIM, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES(names[2]), LLMMEM_KEY_SSM_STATE_SIZE, CLASS_NONE, NULL);
    if (!st)
        st = optional(c, obj, names[3], LLMMEM_KEY_MAMBA_N_GROUPS, 8, 8);
    if (!st)
        st = optional(c, obj, names[4], LLMMEM_KEY_MAMBA_D_CONV, 4, 4);
    if (!st)
        st = bool_key(c, obj, names[5], LLMMEM_KEY_MAMBA_CONV_BIAS, 1);
    if (!st)
        st = bool_key(c, obj, names[6], LLMMEM_KEY_MAMBA_PROJ_BIAS, 0);
    return st;
}

/* Mamba2Config: every layer a Mamba2Block (norm, Mamba2Mixer); Mamba2Mixer's inner width is
 * int(expand * hidden_size), which its heads must fill (num_heads x head_dim). */
static llmmem_status read_mamba2(const hf *c, const json_t *obj)
{
    static const char *const names[7] = {"num_heads", "head_dim", "state_size", "n_groups", "conv_kernel",
                                         "use_conv_bias", "use_bias"};
    int64_t hidden = 0, layers = 0, heads = 0, head_dim = 0;
    llmmem_status st = required(c, obj, NAMES("hidden_size"), LLMMEM_KEY_HIDDEN_SIZE, CLASS_NONE, &hidden);
    if (!st)
        st = required(c, obj, NAMES("num_hidden_layers"), LLMMEM_KEY_NUM_HIDDEN_LAYERS, CLASS_NONE, &layers);
    if (!st)
        st = required(c, obj, NAMES("vocab_size"), LLMMEM_KEY_VOCAB_SIZE, CLASS_NONE, NULL);
    if (!st)
        st = read_mamba2_mixer(c, obj, names);
    if (!st)
        st = read_tie(c, obj);
    if (st)
        return st;
    (void)llmmem_model_get_int(&heads, c->m, LLMMEM_KEY_MAMBA_NUM_HEADS);
    (void)llmmem_model_get_int(&head_dim, c->m, LLMMEM_KEY_MAMBA_HEAD_DIM);
    const json_t *expand = json_object_get(obj, "expand");
    double e = expand && json_is_number(expand) ? json_number_value(expand) : 2.0; /* Mamba2Config expand=2 */
    if ((double)(int64_t)(e * (double)hidden) != (double)(heads * head_dim))
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "expand",
                       "int(expand x hidden_size) differs from num_heads x head_dim (%lld): an inner width the "
                       "heads do not fill is not modelled", (long long)(heads * head_dim));
    if (layers > LLMMEM_LAYER_MAP_MAX)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "num_hidden_layers", "more than %d layers are not modelled",
                       LLMMEM_LAYER_MAP_MAX);
    llmmem__layer_map map;
    memset(&map, 0, sizeof map);
    for (int64_t i = 0; i < layers; i++) {
        map.no_ffn[i] = 1;
        map.mixer[map.layers++] = LLMMEM_MIXER_SSM;
    }
    llmmem__model_set_layer_map(c->m, &map);
    return LLMMEM_OK;
}

/* NemotronHConfig: hybrid_override_pattern gives each block (M Mamba-2, * attention, - MLP);
 * NemotronHMLP is up_proj, relu2, down_proj with mlp_bias; attention biased by attention_bias. */
static llmmem_status read_nemotron_h(const hf *c, const json_t *obj)
{
    static const char *const names[7] = {"mamba_num_heads", "mamba_head_dim", "ssm_state_size", "n_groups",
                                         "conv_kernel", "use_conv_bias", "use_bias"};
    int64_t layers = 0;
    llmmem_status st = required(c, obj, NAMES("hidden_size"), LLMMEM_KEY_HIDDEN_SIZE, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES("num_hidden_layers"), LLMMEM_KEY_NUM_HIDDEN_LAYERS, CLASS_NONE, &layers);
    if (!st)
        st = required(c, obj, NAMES("num_attention_heads"), LLMMEM_KEY_NUM_ATTENTION_HEADS, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES("vocab_size"), LLMMEM_KEY_VOCAB_SIZE, CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES("intermediate_size"), LLMMEM_KEY_INTERMEDIATE_SIZE, CLASS_NONE, NULL);
    if (!st)
        st = read_kv_heads(c, obj);
    if (!st) /* NemotronHConfig head_dim=128 */
        st = optional(c, obj, "head_dim", LLMMEM_KEY_HEAD_DIM, 128, 0);
    if (!st)
        st = optional(c, obj, "max_position_embeddings", LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, 4096, LEAVE);
    if (!st)
        st = read_tie(c, obj);
    if (!st)
        st = bool_key(c, obj, "attention_bias", LLMMEM_KEY_QKV_BIAS, 0);
    if (!st)
        st = bool_key(c, obj, "attention_bias", LLMMEM_KEY_O_PROJ_BIAS, 0);
    if (!st)
        st = bool_key(c, obj, "mlp_bias", LLMMEM_KEY_MLP_BIAS, 0);
    if (!st)
        st = read_mamba2_mixer(c, obj, names);
    if (st)
        return st;
    const char *pattern = NULL;
    enum presence p;
    st = get_string(c, obj, "hybrid_override_pattern", &pattern, &p);
    if (st)
        return st;
    if (p != PRESENT)
        return hf_fail(c, LLMMEM_ERR_INCOMPLETE, "hybrid_override_pattern", "is %s (required for model_type %s)",
                       p == IS_NULL ? "null" : "missing", c->type);
    if ((int64_t)strlen(pattern) != layers)
        return hf_fail(c, LLMMEM_ERR_INCOMPATIBLE, "hybrid_override_pattern", "has %zu blocks, but num_hidden_layers "
                       "is %lld", strlen(pattern), (long long)layers);
    llmmem__layer_map map;
    char why[LLMMEM_MESSAGE_MAX];
    if (!llmmem__layer_map_from_pattern(&map, pattern, strlen(pattern), why, sizeof why))
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "hybrid_override_pattern", "%s", why);
    llmmem__model_set_layer_map(c->m, &map);
    return LLMMEM_OK;
}

/* A text model of family c->fam from obj. */
static llmmem_status read_text(const hf *c, const json_t *obj)
{
    llmmem_status st = set(c, "model_type", LLMMEM_KEY_MODEL_TYPE, c->fam->type);
    if (!st)
        st = read_common_checks(c, obj);
    if (st)
        return st;
    switch (c->fam->reader) {
    case LLMMEM_READ_GPT2: return read_gpt2(c, obj);
    case LLMMEM_READ_OPT: return read_opt(c, obj);
    case LLMMEM_READ_BLOOM: return read_bloom(c, obj);
    case LLMMEM_READ_FALCON: return read_falcon(c, obj);
    case LLMMEM_READ_DEEPSEEK: return read_deepseek(c, obj);
    case LLMMEM_READ_MAMBA2: return read_mamba2(c, obj);
    case LLMMEM_READ_NEMOTRON_H: return read_nemotron_h(c, obj);
    default: return read_llama_like(c, obj);
    }
}

/* ---- multimodal wrappers ----------------------------------------------------------------------- */

enum vision_kind { VISION_CLIP = 1, VISION_SIGLIP = 2 }; /* values of vision_model_type */

/* CLIPVisionConfig and SiglipVisionConfig: hidden_size=768, intermediate_size=3072,
 * num_hidden_layers=12, num_channels=3, image_size=224, patch_size 32 (CLIP) or 16 (SigLIP);
 * SiglipVisionTransformer: use_head = vision_use_head where the config has it, else True. */
static llmmem_status read_vision(const hf *c, const json_t *obj, enum vision_kind vk)
{
    llmmem_status st = set(c, "model_type", LLMMEM_KEY_VISION_MODEL_TYPE, vk);
    if (!st)
        st = required(c, obj, NAMES("hidden_size"), LLMMEM_KEY_VISION_HIDDEN_SIZE, 768, NULL);
    if (!st)
        st = required(c, obj, NAMES("intermediate_size"), LLMMEM_KEY_VISION_INTERMEDIATE_SIZE, 3072, NULL);
    if (!st)
        st = required(c, obj, NAMES("num_hidden_layers"), LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS, 12, NULL);
    if (!st)
        st = required(c, obj, NAMES("patch_size"), LLMMEM_KEY_VISION_PATCH_SIZE, vk == VISION_CLIP ? 32 : 16, NULL);
    if (!st)
        st = required(c, obj, NAMES("image_size"), LLMMEM_KEY_VISION_IMAGE_SIZE, 224, NULL);
    if (!st)
        st = optional(c, obj, "num_channels", LLMMEM_KEY_VISION_NUM_CHANNELS, 3, 3);
    if (!st && vk == VISION_SIGLIP)
        st = bool_key(c, obj, "vision_use_head", LLMMEM_KEY_VISION_USE_HEAD, 1);
    return st;
}

/* A required sub-config object. */
static llmmem_status sub_config(const hf *c, const json_t *root, const char *field, const char *type,
                                const json_t **out)
{
    const json_t *v = json_object_get(root, field);
    *out = NULL;
    if (!v || json_is_null(v))
        return hf_fail(c, LLMMEM_ERR_INCOMPLETE, field, "is %s (required for model_type %s)", v ? "null" : "missing",
                       type);
    if (!json_is_object(v))
        return hf_fail(c, LLMMEM_ERR_PARSE, field, "expected an object, got %s", kind(v));
    *out = v;
    return LLMMEM_OK;
}

/* The model_type of a sub-config, `dflt` when absent or null. */
static llmmem_status sub_type(const hf *c, const json_t *sub, const char *dflt, const char **out)
{
    enum presence p;
    llmmem_status st = get_string(c, sub, "model_type", out, &p);
    if (!st && p != PRESENT)
        *out = dflt;
    return st;
}

/* Gemma3Config: text_config is a Gemma3TextConfig, vision_config a SiglipVisionConfig, joined
 * by Gemma3MultiModalProjector. */
static llmmem_status read_gemma3(const hf *c, const json_t *root, const json_t **text_out)
{
    const json_t *text, *vision;
    llmmem_status st = sub_config(c, root, "text_config", "gemma3", &text);
    if (!st)
        st = sub_config(c, root, "vision_config", "gemma3", &vision);
    if (st)
        return st;
    const char *type;
    hf sub = *c;
    sub.nested = 1;
    sub.prefix = "text_config.";
    st = sub_type(&sub, text, "gemma3_text", &type);
    if (st)
        return st;
    if (strcmp(type, "gemma3_text") != 0)
        return unsupported_string(&sub, "model_type", type, "gemma3 takes gemma3_text");
    sub.fam = llmmem__family_named("gemma3_text");
    sub.type = sub.fam->name;
    st = read_text(&sub, text);
    if (st)
        return st;
    sub.prefix = "vision_config.";
    st = sub_type(&sub, vision, "siglip_vision_model", &type);
    if (st)
        return st;
    if (strcmp(type, "siglip_vision_model") != 0)
        return unsupported_string(&sub, "model_type", type, "gemma3 takes siglip_vision_model");
    sub.type = "siglip_vision_model";
    st = read_vision(&sub, vision, VISION_SIGLIP);
    if (!st)
        st = set(c, "model_type", LLMMEM_KEY_MULTIMODAL_PROJECTOR, 2);
    *text_out = text;
    return st;
}

/* LlavaConfig: text_config of a text model_type (llama when absent), vision_config
 * (clip_vision_model when absent); LlavaMultiModalProjector: linear_1 from the vision width
 * (times the number of feature layers) and linear_2, biased unless multimodal_projector_bias
 * is false. */
static llmmem_status read_llava(const hf *c, const json_t *root, const json_t **text_out)
{
    const json_t *text, *vision;
    llmmem_status st = sub_config(c, root, "text_config", "llava", &text);
    if (!st)
        st = sub_config(c, root, "vision_config", "llava", &vision);
    if (st)
        return st;
    const json_t *layer = json_object_get(root, "vision_feature_layer");
    if (layer && !json_is_integer(layer) && !json_is_null(layer)) {
        if (json_is_array(layer))
            return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "vision_feature_layer",
                           "a list of feature layers widens the projector, which is not modelled");
        return hf_fail(c, LLMMEM_ERR_PARSE, "vision_feature_layer", "expected an integer, got %s", kind(layer));
    }
    st = refuse_if(c, root, "multimodal_projector_bias", 0, 1, "a projector without biases is not modelled");
    if (st)
        return st;
    const char *type;
    hf sub = *c;
    sub.nested = 1;
    sub.prefix = "text_config.";
    st = sub_type(&sub, text, "llama", &type);
    if (st)
        return st;
    sub.fam = llmmem__family_named(type);
    if (!sub.fam)
        return unsupported_string(&sub, "model_type", type, "llava takes a text model_type such as llama or mistral");
    sub.type = sub.fam->name;
    st = read_text(&sub, text);
    if (st)
        return st;
    sub.prefix = "vision_config.";
    st = sub_type(&sub, vision, "clip_vision_model", &type);
    if (st)
        return st;
    enum vision_kind vk;
    if (strcmp(type, "clip_vision_model") == 0)
        vk = VISION_CLIP;
    else if (strcmp(type, "siglip_vision_model") == 0)
        vk = VISION_SIGLIP;
    else
        return unsupported_string(&sub, "model_type", type, "clip_vision_model and siglip_vision_model are");
    sub.type = vk == VISION_CLIP ? "clip_vision_model" : "siglip_vision_model";
    st = read_vision(&sub, vision, vk);
    if (!st)
        st = set(c, "model_type", LLMMEM_KEY_MULTIMODAL_PROJECTOR, 1);
    *text_out = text;
    return st;
}

/* ---- dtype and quantization ------------------------------------------------------------------- */

/* torch_dtype (written as dtype since transformers 4.56): the top level's, else the text
 * config's, else fp32, the dtype transformers gives a model whose config names none. */
static llmmem_status read_dtype(const hf *c, const json_t *root, const json_t *text)
{
    const json_t *objs[2] = {root, text};
    for (size_t i = 0; i < 2; i++) {
        if (!objs[i])
            continue;
        hf at = *c;
        at.prefix = i == 0 ? "" : "text_config.";
        const char *found = NULL, *name = NULL;
        static const char *const names[2] = {"dtype", "torch_dtype"};
        for (size_t k = 0; k < 2; k++) {
            const char *s = NULL;
            enum presence p;
            llmmem_status st = get_string(&at, objs[i], names[k], &s, &p);
            if (st)
                return st;
            if (p != PRESENT)
                continue;
            if (found && strcmp(found, s) != 0) {
                char a[HF_SHOWN + 1], b[HF_SHOWN + 1];
                shown_text(a, sizeof a, s);
                shown_text(b, sizeof b, found);
                return hf_fail(&at, LLMMEM_ERR_PARSE, names[k], "'%s' disagrees with dtype ('%s')", a, b);
            }
            if (!found) {
                found = s;
                name = names[k];
            }
        }
        if (!found)
            continue;
        llmmem_format format;
        if (strcmp(found, "float32") == 0)
            format = LLMMEM_FORMAT_FP32;
        else if (strcmp(found, "float16") == 0)
            format = LLMMEM_FORMAT_FP16;
        else if (strcmp(found, "bfloat16") == 0)
            format = LLMMEM_FORMAT_BF16;
        else
            return unsupported_string(&at, name, found, "float32, float16 and bfloat16 are");
        return set(&at, name, LLMMEM_KEY_TORCH_DTYPE, format);
    }
    return set(c, "torch_dtype", LLMMEM_KEY_TORCH_DTYPE, LLMMEM_FORMAT_FP32);
}

/* Modules a quantizer leaves unquantized that this library keeps unquantized anyway (the LM head
 * and MoE routers under GPTQ, AWQ and bitsandbytes); any other is refused. */
static llmmem_status check_skipped_modules(const hf *c, const json_t *q, const char *field)
{
    const json_t *list = json_object_get(q, field);
    if (!list || json_is_null(list))
        return LLMMEM_OK;
    if (!json_is_array(list))
        return hf_fail(c, LLMMEM_ERR_PARSE, field, "expected an array, got %s", kind(list));
    static const char *const allowed[] = {"lm_head", "gate", "mlp.gate", "router", NULL};
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *v = json_array_get(list, i);
        char name[64];
        snprintf(name, sizeof name, "%s[%zu]", field, i);
        if (!json_is_string(v))
            return hf_fail(c, LLMMEM_ERR_PARSE, name, "expected a string, got %s", kind(v));
        size_t k = 0;
        while (allowed[k] && strcmp(allowed[k], json_string_value(v)) != 0)
            k++;
        if (!allowed[k])
            return unsupported_string(c, name, json_string_value(v),
                                      "left unquantized, only lm_head and MoE routers are modelled");
    }
    return LLMMEM_OK;
}

/* bits of a 4-bit method; group_size (absent or null: 128; -1: one group per channel). */
static llmmem_status read_int4_groups(const hf *c, const json_t *q)
{
    int64_t bits = 0, group = 128;
    enum presence p;
    llmmem_status st = get_int(c, q, "bits", &bits, &p);
    if (st)
        return st;
    if (p != PRESENT)
        return hf_fail(c, LLMMEM_ERR_INCOMPLETE, "bits", "is %s", p == IS_NULL ? "null" : "missing");
    if (bits != 4)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "bits", "%lld is not supported (4 is)", (long long)bits);
    st = get_int(c, q, "group_size", &group, &p);
    if (st)
        return st;
    if (p != PRESENT)
        group = 128;
    if (group == -1)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "group_size", "-1 (one group per output channel) is not supported");
    /* GPTQConfig / AwqConfig: a positive group size, or -1 (GPTQ); 0 groups nothing (and the key's
     * 0 would mean the format's default, 128, silently) */
    if (group == 0)
        return hf_fail(c, LLMMEM_ERR_OUT_OF_RANGE, "group_size",
                       "0 is not a group size (a positive number of weights per scale, or -1 for one group per "
                       "output channel)");
    return set(c, "group_size", LLMMEM_KEY_QUANTIZATION_GROUP_SIZE, group);
}

/* GPTQConfig: packed qweight, scales, qzeros and g_idx per quantized linear. */
static llmmem_status read_gptq(const hf *c, const json_t *q)
{
    const char *fmt = NULL;
    enum presence p;
    llmmem_status st = get_string(c, q, "checkpoint_format", &fmt, &p);
    if (st)
        return st;
    if (p == PRESENT && strcmp(fmt, "gptq") != 0 && strcmp(fmt, "gptq_v2") != 0)
        return unsupported_string(c, "checkpoint_format", fmt, "gptq and gptq_v2 are");
    st = read_int4_groups(c, q);
    if (!st)
        st = refuse_if(c, q, "lm_head", 1, 0, "a quantized LM head is not described by the model keys");
    if (st)
        return st;
    const json_t *dyn = json_object_get(q, "dynamic");
    if (dyn && !json_is_null(dyn) && !(json_is_object(dyn) && json_object_size(dyn) == 0))
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "dynamic", "per-module overrides are not modelled");
    const json_t *mods = json_object_get(q, "modules_in_block_to_quantize");
    if (mods && !json_is_null(mods))
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "modules_in_block_to_quantize",
                       "a partly quantized block is not modelled");
    return LLMMEM_OK;
}

/* AwqConfig: bits=4, group_size=128, zero_point=True, version "gemm". */
static llmmem_status read_awq(const hf *c, const json_t *q)
{
    const char *version = NULL;
    enum presence p;
    llmmem_status st = get_string(c, q, "version", &version, &p);
    if (st)
        return st;
    if (p == PRESENT && strcmp(version, "gemm") != 0 && strcmp(version, "GEMM") != 0)
        return unsupported_string(c, "version", version, "gemm is");
    st = read_int4_groups(c, q);
    if (!st)
        st = refuse_if(c, q, "zero_point", 0, 1, "AWQ without zero points is not modelled");
    if (!st)
        st = check_skipped_modules(c, q, "modules_to_not_convert");
    return st;
}

/* BitsAndBytesConfig: load_in_4bit / load_in_8bit (also written as _load_in_4bit),
 * bnb_4bit_quant_type "fp4", bnb_4bit_use_double_quant false. */
static llmmem_status read_bitsandbytes(const hf *c, const json_t *q, llmmem_format *format)
{
    int in4 = 0, in8 = 0;
    enum presence p4, p8, p;
    llmmem_status st = get_bool(c, q, "load_in_4bit", &in4, &p4);
    if (!st && p4 != PRESENT)
        st = get_bool(c, q, "_load_in_4bit", &in4, &p4);
    if (!st)
        st = get_bool(c, q, "load_in_8bit", &in8, &p8);
    if (!st && p8 != PRESENT)
        st = get_bool(c, q, "_load_in_8bit", &in8, &p8);
    if (st)
        return st;
    if (p4 != PRESENT)
        in4 = 0;
    if (p8 != PRESENT)
        in8 = 0;
    if (in4 && in8)
        return hf_fail(c, LLMMEM_ERR_PARSE, "load_in_4bit", "and load_in_8bit are both true");
    if (!in4 && !in8)
        return hf_fail(c, LLMMEM_ERR_INCOMPLETE, "load_in_4bit", "and load_in_8bit are both false or missing");
    st = check_skipped_modules(c, q, "llm_int8_skip_modules");
    if (st)
        return st;
    if (in8) {
        *format = LLMMEM_FORMAT_BNB_INT8;
        return LLMMEM_OK;
    }
    const char *type = NULL;
    st = get_string(c, q, "bnb_4bit_quant_type", &type, &p);
    if (st)
        return st;
    if (p != PRESENT)
        type = "fp4";
    if (strcmp(type, "nf4") == 0)
        *format = LLMMEM_FORMAT_BNB_NF4;
    else if (strcmp(type, "fp4") == 0)
        *format = LLMMEM_FORMAT_BNB_FP4;
    else
        return unsupported_string(c, "bnb_4bit_quant_type", type, "nf4 and fp4 are");
    return bool_key(c, q, "bnb_4bit_use_double_quant", LLMMEM_KEY_QUANTIZATION_DOUBLE_QUANT, 0);
}

/* FineGrainedFP8Config / DeepSeek-V3: weight_block_size [128, 128], one fp32 scale per block;
 * without it one scale per tensor. */
static llmmem_status read_fp8(const hf *c, const json_t *q, llmmem_format *format)
{
    const char *fmt = NULL;
    enum presence p;
    llmmem_status st = get_string(c, q, "fmt", &fmt, &p);
    if (st)
        return st;
    if (p == PRESENT && strcmp(fmt, "e4m3") != 0)
        return unsupported_string(c, "fmt", fmt, "e4m3 is");
    const json_t *block = json_object_get(q, "weight_block_size");
    if (!block || json_is_null(block)) {
        *format = LLMMEM_FORMAT_FP8_E4M3;
    } else {
        if (!json_is_array(block))
            return hf_fail(c, LLMMEM_ERR_PARSE, "weight_block_size", "expected an array, got %s", kind(block));
        const json_t *b0 = json_array_get(block, 0), *b1 = json_array_get(block, 1);
        if (json_array_size(block) != 2 || !json_is_integer(b0) || !json_is_integer(b1))
            return hf_fail(c, LLMMEM_ERR_PARSE, "weight_block_size", "expected two integers");
        if (json_integer_value(b0) != 128 || json_integer_value(b1) != 128)
            return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "weight_block_size",
                           "[%lld, %lld] is not supported ([128, 128] is)", (long long)json_integer_value(b0),
                           (long long)json_integer_value(b1));
        *format = LLMMEM_FORMAT_FP8_BLOCK;
    }
    return check_skipped_modules(c, q, "modules_to_not_convert");
}

static llmmem_status read_quantization(const hf *c, const json_t *root)
{
    const json_t *q = json_object_get(root, "quantization_config");
    if (!q || json_is_null(q))
        return LLMMEM_OK;
    if (!json_is_object(q))
        return hf_fail(c, LLMMEM_ERR_PARSE, "quantization_config", "expected an object, got %s", kind(q));
    hf qc = *c;
    qc.prefix = "quantization_config.";
    const char *method = NULL;
    enum presence p;
    llmmem_status st = get_string(&qc, q, "quant_method", &method, &p);
    if (st)
        return st;
    if (p != PRESENT) { /* BitsAndBytesConfig before quant_method was written */
        if (json_object_get(q, "load_in_4bit") || json_object_get(q, "load_in_8bit"))
            method = "bitsandbytes";
        else
            return hf_fail(&qc, LLMMEM_ERR_INCOMPLETE, "quant_method", "is %s", p == IS_NULL ? "null" : "missing");
    }
    llmmem_format format = LLMMEM_FORMAT_AUTO;
    if (strcmp(method, "gptq") == 0) {
        format = LLMMEM_FORMAT_GPTQ_INT4;
        st = read_gptq(&qc, q);
    } else if (strcmp(method, "awq") == 0) {
        format = LLMMEM_FORMAT_AWQ_INT4;
        st = read_awq(&qc, q);
    } else if (strcmp(method, "bitsandbytes") == 0) {
        st = read_bitsandbytes(&qc, q, &format);
    } else if (strcmp(method, "fp8") == 0) {
        st = read_fp8(&qc, q, &format);
    } else if (strcmp(method, "mxfp4") == 0) {
        format = LLMMEM_FORMAT_MXFP4;
        st = check_skipped_modules(&qc, q, "modules_to_not_convert");
    } else {
        return unsupported_string(&qc, "quant_method", method, "gptq, awq, bitsandbytes, fp8 and mxfp4 are");
    }
    if (st)
        return st;
    return set(&qc, "quant_method", LLMMEM_KEY_QUANTIZATION_FORMAT, format);
}

/* ---- the document ------------------------------------------------------------------------------- */

static int deeper_than_limit(const json_t *v, int depth)
{
    if (depth > HF_MAX_DEPTH)
        return 1;
    if (json_is_object(v)) {
        for (void *it = json_object_iter((json_t *)v); it; it = json_object_iter_next((json_t *)v, it))
            if (deeper_than_limit(json_object_iter_value(it), depth + 1))
                return 1;
    } else if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++)
            if (deeper_than_limit(json_array_get(v, i), depth + 1))
                return 1;
    }
    return 0;
}


static llmmem_status read_document(hf *c, const json_t *root)
{
    if (!json_is_object(root))
        return hf_fail(c, LLMMEM_ERR_PARSE, NULL, "not a JSON object (the document is %s)", kind(root));
    for (void *it = json_object_iter((json_t *)root); it; it = json_object_iter_next((json_t *)root, it)) {
        if (deeper_than_limit(json_object_iter_value(it), 2)) {
            char key[HF_SHOWN + 1];
            shown_text(key, sizeof key, json_object_iter_key(it));
            return hf_fail(c, LLMMEM_ERR_PARSE, key, "nested deeper than %d levels", HF_MAX_DEPTH);
        }
    }
    const char *type = NULL;
    enum presence p;
    llmmem_status st = get_string(c, root, "model_type", &type, &p);
    if (st)
        return st;
    if (p != PRESENT)
        return hf_fail(c, LLMMEM_ERR_INCOMPLETE, "model_type", "is %s", p == IS_NULL ? "null" : "missing");
    const json_t *text = root;
    if (strcmp(type, "gemma3") == 0) {
        st = read_gemma3(c, root, &text);
    } else if (strcmp(type, "llava") == 0) {
        st = read_llava(c, root, &text);
    } else {
        c->fam = llmmem__family_named(type);
        if (!c->fam) {
            char supported[400] = "supported: "; /* every row of the family table and the wrappers */
            llmmem__family_list(supported + 11, sizeof supported - 11, "gemma3, llava");
            return unsupported_string(c, "model_type", type, supported);
        }
        c->type = c->fam->name;
        st = read_text(c, root);
    }
    if (!st)
        st = read_dtype(c, root, text == root ? NULL : text);
    if (!st)
        st = read_quantization(c, root);
    if (st)
        return st;
    /* Settings each in bounds may still not make a model (heads that do not divide the width):
     * the inventory's own message, after the file name. */
    st = llmmem__model_check(c->m);
    return st ? llmmem__fail_prefixed(st, c->where) : LLMMEM_OK;
}

static llmmem_status from_text(llmmem_model **out, const char *json, size_t len, const char *where)
{
    hf c = {NULL, where, "", 0, NULL, "", NULL};
    if (len > LLMMEM_CONFIG_MAX_BYTES)
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: %zu bytes is more than the %u a config.json may have", where, len,
                            LLMMEM_CONFIG_MAX_BYTES);
    /* jansson builds about 136 bytes of tree for "[]," and 244 for "{},": the values are counted first */
    uint64_t values = llmmem__json_count_values(json, len);
    if (values > LLMMEM_CONFIG_MAX_VALUES)
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: more than the %d JSON values and keys a config.json may have",
                            where, LLMMEM_CONFIG_MAX_VALUES);
    json_error_t err;
    json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &err);
    if (!root) {
        /* jansson's words without the bytes it quotes; the path of keys where it stopped (a
         * duplicate key names itself, not the field before it) */
        char what[JSON_ERROR_TEXT_LENGTH], field[HF_SHOWN + 1];
        llmmem__json_error_text(what, sizeof what, &err);
        llmmem__json_path_at(field, sizeof field, json, len, err.position < 0 ? 0 : (size_t)err.position);
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: not valid JSON: %s (line %d, column %d%s%s%s)", where, what,
                            err.line, err.column, field[0] ? ", in field \"" : "", field, field[0] ? "\"" : "");
    }
    c.top = root;
    llmmem_status st = llmmem_model_new(&c.m);
    if (!st)
        st = read_document(&c, root);
    json_decref(root);
    if (st) {
        llmmem_model_free(c.m);
        return st;
    }
    *out = c.m;
    return LLMMEM_OK;
}

llmmem_status llmmem_model_from_hf_config_text(llmmem_model **out, const char *json, size_t len)
{
    LLMMEM_REQUIRE(out);
    *out = NULL;
    LLMMEM_REQUIRE(json);
    return from_text(out, json, len, "<memory>");
}

llmmem_status llmmem_model_from_hf_config(llmmem_model **out, const char *path)
{
    LLMMEM_REQUIRE(out);
    *out = NULL;
    LLMMEM_REQUIRE(path);
    char *joined = NULL;
    const char *file = path;
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) { /* a folder: its config.json */
        size_t n = strlen(path);
        size_t slash = n > 0 && path[n - 1] != '/';
        joined = malloc(n + slash + sizeof "config.json");
        if (!joined)
            return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "%s: out of memory for a path", shown_path(path));
        memcpy(joined, path, n);
        if (slash)
            joined[n] = '/';
        memcpy(joined + n + slash, "config.json", sizeof "config.json");
        file = joined;
    }
    const char *where = shown_path(file);
    char *text = NULL;
    size_t got = 0;
    llmmem_status st = llmmem__read_small_file(&text, &got, file, where, LLMMEM_CONFIG_MAX_BYTES, "a config.json");
    if (st == LLMMEM_OK)
        st = from_text(out, text, got, where);
    free(text);
    free(joined);
    return st;
}
