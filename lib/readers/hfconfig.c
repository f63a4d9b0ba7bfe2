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

#include "readers/json.h"

#include "base/families.h"
#include "base/internal.h"
#include "readers/readfile.h"

/* Largest config read, and the most JSON values in it: LLMMEM_CONFIG_MAX_BYTES (4 MiB) and
 * LLMMEM_CONFIG_MAX_VALUES (100,000), checked before the JSON reader builds anything (readfile.h). */
/* Deepest nesting accepted: real configs go 4 levels deep (quantization_config.meta.quantizer). */
#define HF_MAX_DEPTH 32
/* Characters of a path or a JSON string shown in a message. */
#define HF_SHOWN 120

#define CLASS_NONE LLMMEM_CLASS_NONE /* no class default encoded */

/* The families read, their class defaults and reader hooks: lib/base/families.c. */
typedef llmmem__family family;

/* ---- reading state and messages ----------------------------------------------------------- */

typedef struct hf {
    llmmem_model *m;
    const char *where;   /* the file, or "<memory>" */
    const char *prefix;  /* "", "text_config.", "vision_config." or "quantization_config." */
    int nested;          /* inside a sub-config: class defaults fill the shape fields */
    const family *fam;
    const char *type;    /* model_type named in messages about required fields */
    const llmmem__json *top; /* the whole document */
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

/* The kind of a value for a message; Python's non-finite numbers by name (readfile.h). */
static const char *kind(const llmmem__json *v)
{
    const char *nonfinite = llmmem__json_nonfinite(v);
    if (nonfinite)
        return nonfinite;
    switch (llmmem__json_typeof(v)) {
    case LLMMEM__JSON_OBJECT: return "an object";
    case LLMMEM__JSON_ARRAY: return "an array";
    case LLMMEM__JSON_STRING: return "a string";
    case LLMMEM__JSON_INTEGER: return "an integer";
    case LLMMEM__JSON_REAL: return "a real number";
    case LLMMEM__JSON_TRUE: return "true";
    case LLMMEM__JSON_FALSE: return "false";
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

/* A JSON string that is text (not one of Python's non-finite numbers, which are held as strings). */
static int is_text(const llmmem__json *v)
{
    return llmmem__json_is_string(v) && !llmmem__json_nonfinite(v);
}

/* ---- typed field access ----------------------------------------------------------------- */

enum presence { ABSENT = 0, IS_NULL = 1, PRESENT = 2 };

static enum presence lookup(const llmmem__json *obj, const char *field, const llmmem__json **v)
{
    *v = llmmem__json_object_get(obj, field);
    if (!*v)
        return ABSENT;
    return llmmem__json_is_null(*v) ? IS_NULL : PRESENT;
}

static llmmem_status get_int(const hf *c, const llmmem__json *obj, const char *field, int64_t *out, enum presence *p)
{
    const llmmem__json *v;
    *p = lookup(obj, field, &v);
    if (*p != PRESENT)
        return LLMMEM_OK;
    if (!llmmem__json_is_integer(v))
        return hf_fail(c, LLMMEM_ERR_PARSE, field, "expected an integer, got %s", kind(v));
    *out = (int64_t)llmmem__json_integer_value(v);
    return LLMMEM_OK;
}

static llmmem_status get_bool(const hf *c, const llmmem__json *obj, const char *field, int *out, enum presence *p)
{
    const llmmem__json *v;
    *p = lookup(obj, field, &v);
    if (*p != PRESENT)
        return LLMMEM_OK;
    if (!llmmem__json_is_boolean(v))
        return hf_fail(c, LLMMEM_ERR_PARSE, field, "expected true or false, got %s", kind(v));
    *out = llmmem__json_is_true(v);
    return LLMMEM_OK;
}

static llmmem_status get_string(const hf *c, const llmmem__json *obj, const char *field, const char **out,
                                enum presence *p)
{
    const llmmem__json *v;
    *p = lookup(obj, field, &v);
    if (*p != PRESENT)
        return LLMMEM_OK;
    if (!is_text(v))
        return hf_fail(c, LLMMEM_ERR_PARSE, field, "expected a string, got %s", kind(v));
    *out = llmmem__json_string_value(v);
    return LLMMEM_OK;
}

/* A bool that takes `dflt` when absent or null. */
static llmmem_status get_flag(const hf *c, const llmmem__json *obj, const char *field, int dflt, int *out)
{
    enum presence p;
    *out = dflt;
    llmmem_status st = get_bool(c, obj, field, out, &p);
    if (!st && p != PRESENT)
        *out = dflt;
    return st;
}

/* An integer that takes `dflt` when absent or null. */
static llmmem_status get_int_or(const hf *c, const llmmem__json *obj, const char *field, int64_t dflt, int64_t *out)
{
    enum presence p;
    llmmem_status st = get_int(c, obj, field, out, &p);
    if (!st && p != PRESENT)
        *out = dflt;
    return st;
}

/* An integer under any of its names (n_embd and its attribute_map alias hidden_size): names
 * given together must agree. *name_out is the name found (the first when none is). */
static llmmem_status get_int_alias(const hf *c, const llmmem__json *obj, const char *const *names, int64_t *out,
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

/* No dense-first rule (first_k_dense_replace 0, moe_layer_freq 1): the experts sit on every layer, or on the
 * layers the family's layer map marks; `field` names the config field that says so. */
static llmmem_status moe_on_marked_layers(const hf *c, const char *field)
{
    llmmem_status st = set(c, field, LLMMEM_KEY_FIRST_K_DENSE_REPLACE, 0);
    return st ? st : set(c, field, LLMMEM_KEY_MOE_LAYER_FREQ, 1);
}

/* A required shape field under any of its names; in a sub-config its class default fills it. */
static llmmem_status required(const hf *c, const llmmem__json *obj, const char *const *names, llmmem_key key,
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
static llmmem_status optional(const hf *c, const llmmem__json *obj, const char *field, llmmem_key key,
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
static llmmem_status bool_key(const hf *c, const llmmem__json *obj, const char *field, llmmem_key key, int dflt)
{
    int v;
    llmmem_status st = get_flag(c, obj, field, dflt, &v);
    return st ? st : set(c, field, key, v);
}

/* A bool field whose value `refused` would change the count in a way the inventory does not
 * model. */
static llmmem_status refuse_if(const hf *c, const llmmem__json *obj, const char *field, int refused, int dflt,
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

/* tie_word_embeddings: the config's; in a sub-config, else the top level's; else the class's. A
 * top-level text model that also holds a text_config takes that one's first, as transformers'
 * modeling_utils.py tie_weights reads config.get_text_config(decoder=True). */
static llmmem_status read_tie(const hf *c, const llmmem__json *obj)
{
    int v = c->fam->config.tie;
    enum presence p = ABSENT;
    llmmem_status st;
    const llmmem__json *text = llmmem__json_object_get(obj, "text_config");
    if (!c->nested && obj == c->top && llmmem__json_is_object(text)) {
        hf sub = *c;
        sub.prefix = "text_config.";
        if ((st = get_bool(&sub, text, "tie_word_embeddings", &v, &p)) != LLMMEM_OK)
            return st;
        if (p == PRESENT)
            return set(&sub, "tie_word_embeddings", LLMMEM_KEY_TIE_WORD_EMBEDDINGS, v);
    }
    st = get_bool(c, obj, "tie_word_embeddings", &v, &p);
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
static llmmem_status read_kv_heads(const hf *c, const llmmem__json *obj)
{
    int64_t absent = c->fam->config.kv_heads == CLASS_NONE ? 0 : c->fam->config.kv_heads;
    return optional(c, obj, "num_key_value_heads", LLMMEM_KEY_NUM_KEY_VALUE_HEADS, absent, 0);
}

/* The mixer of layer_types[i] (read and checked before). */
static enum llmmem__mixer mixer_at(const llmmem__json *types, size_t i)
{
    const llmmem__json *t = llmmem__json_array_get(types, i);
    enum llmmem__mixer mixer = LLMMEM_MIXER_FULL;
    (void)llmmem__layer_type_mixer(&mixer, llmmem__json_string_value(t), llmmem__json_string_length(t));
    return mixer;
}

/* layer_types, a list of full_attention / sliding_attention, onto sliding_window_pattern n
 * (layer i global exactly when (i + 1) % n == 0) when it has a period, else onto the model's
 * per-layer map (llmmem_model_set_layer_types). Each entry is read once, the period found as it
 * is read (llmmem__swa_pattern): the work is linear in the entries, up to the 100,000 values a
 * config may hold. */
static llmmem_status read_layer_types(const hf *c, const llmmem__json *types, int64_t layers, int64_t window)
{
    if (!llmmem__json_is_array(types))
        return hf_fail(c, LLMMEM_ERR_PARSE, "layer_types", "expected an array, got %s", kind(types));
    size_t n = llmmem__json_array_size(types);
    if ((int64_t)n != layers)
        return hf_fail(c, LLMMEM_ERR_INCOMPATIBLE, "layer_types", "has %zu entries, but num_hidden_layers is %lld", n,
                       (long long)layers);
    size_t full = 0, state = 0;
    llmmem__swa_pattern pattern = LLMMEM__SWA_PATTERN_INIT;
    for (size_t i = 0; i < n; i++) {
        const llmmem__json *t = llmmem__json_array_get(types, i);
        char field[48];
        snprintf(field, sizeof field, "layer_types[%zu]", i);
        if (!is_text(t))
            return hf_fail(c, LLMMEM_ERR_PARSE, field, "expected a string, got %s", kind(t));
        enum llmmem__mixer mixer;
        if (!llmmem__layer_type_mixer(&mixer, llmmem__json_string_value(t), llmmem__json_string_length(t)) ||
            !llmmem__mixer_modelled(mixer))
            return unsupported_string(c, field, llmmem__json_string_value(t), LLMMEM_MODELLED_LAYER_TYPES " are");
        if (mixer == LLMMEM_MIXER_CHUNKED) /* its chunk size is a llama4 field (read_llama4_layers) */
            return unsupported_string(c, field, llmmem__json_string_value(t),
                                      "chunked_attention is read for llama4 only");
        full += mixer == LLMMEM_MIXER_FULL;
        state += mixer == LLMMEM_MIXER_LINEAR || mixer == LLMMEM_MIXER_SSM;
        llmmem__swa_pattern_push(&pattern, mixer == LLMMEM_MIXER_FULL);
    }
    if (state) /* linear_attention or mamba layers: the map, layer by layer */
        goto map;
    if (full == n || window == 0) /* no layer slides */
        return set(c, "layer_types", LLMMEM_KEY_SLIDING_WINDOW, 0);
    if (full == 0) /* every layer slides */
        return set(c, "layer_types", LLMMEM_KEY_SLIDING_WINDOW_PATTERN, 0);
    if (pattern.ok)
        return set(c, "layer_types", LLMMEM_KEY_SLIDING_WINDOW_PATTERN, (int64_t)pattern.n);
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
static llmmem_status read_sliding(const hf *c, const llmmem__json *obj, int64_t layers)
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
    const llmmem__json *types = llmmem__json_object_get(obj, "layer_types");
    if (types && !llmmem__json_is_null(types))
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
static llmmem_status read_common_checks(const hf *c, const llmmem__json *obj)
{
    llmmem_status st = refuse_if(c, obj, "is_encoder_decoder", 1, 0, "encoder-decoder models are not modelled");
    if (!st)
        st = refuse_if(c, obj, "add_cross_attention", 1, 0, "cross-attention layers are not modelled");
    return st;
}

/* ---- mixture of experts -------------------------------------------------------------------- */

/* mlp_only_layers, the layers that keep a dense MLP (Qwen2MoeDecoderLayer): only a leading run
 * 0 .. k-1 maps, onto first_k_dense_replace. */
static llmmem_status read_mlp_only_layers(const hf *c, const llmmem__json *obj, int64_t layers, int64_t *dense_out)
{
    const llmmem__json *list = llmmem__json_object_get(obj, "mlp_only_layers");
    *dense_out = 0;
    if (!list || llmmem__json_is_null(list))
        return LLMMEM_OK;
    if (!llmmem__json_is_array(list))
        return hf_fail(c, LLMMEM_ERR_PARSE, "mlp_only_layers", "expected an array, got %s", kind(list));
    size_t n = llmmem__json_array_size(list);
    for (size_t i = 0; i < n; i++) {
        const llmmem__json *v = llmmem__json_array_get(list, i);
        char field[48];
        snprintf(field, sizeof field, "mlp_only_layers[%zu]", i);
        if (!llmmem__json_is_integer(v))
            return hf_fail(c, LLMMEM_ERR_PARSE, field, "expected an integer, got %s", kind(v));
        if (llmmem__json_integer_value(v) != (int64_t)i)
            return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "mlp_only_layers",
                           "dense layers other than a leading run 0, 1, ..., k-1 are not modelled (entry %zu is "
                           "%lld)",
                           i, (long long)llmmem__json_integer_value(v));
    }
    if ((int64_t)n > layers)
        return hf_fail(c, LLMMEM_ERR_INCOMPATIBLE, "mlp_only_layers", "names %zu layers, but num_hidden_layers is %lld",
                       n, (long long)layers);
    *dense_out = (int64_t)n;
    return LLMMEM_OK;
}

/* Qwen2-MoE, Qwen3-MoE: num_experts of moe_intermediate_size on layer i when num_experts > 0,
 * i is not in mlp_only_layers and (i + 1) % decoder_sparse_step == 0. */
static llmmem_status read_qwen_moe(const hf *c, const llmmem__json *obj, int64_t layers)
{
    /* Qwen3_5MoeTextConfig, a text_config: num_experts=256, num_experts_per_tok=8, moe_intermediate_size=512,
     * shared_expert_intermediate_size=512 (the other classes' are not encoded) */
    const int q35 = c->fam->type == LLMMEM_MODEL_QWEN3_5_MOE;
    int64_t experts = 0;
    llmmem_status st = required(c, obj, NAMES("num_experts"), LLMMEM_KEY_NUM_EXPERTS, q35 ? 256 : CLASS_NONE, &experts);
    if (st || experts == 0)
        return st;
    st = required(c, obj, NAMES("num_experts_per_tok"), LLMMEM_KEY_NUM_EXPERTS_PER_TOK, q35 ? 8 : CLASS_NONE, NULL);
    if (!st)
        st = required(c, obj, NAMES("moe_intermediate_size"), LLMMEM_KEY_MOE_INTERMEDIATE_SIZE, q35 ? 512 : CLASS_NONE,
                      NULL);
    if (!st && c->fam->config.moe == LLMMEM_MOE_QWEN_SHARED) /* Qwen2MoeSparseMoeBlock.shared_expert */
        st = required(c, obj, NAMES("shared_expert_intermediate_size"), LLMMEM_KEY_SHARED_EXPERT_INTERMEDIATE_SIZE,
                      q35 ? 512 : CLASS_NONE, NULL);
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
/* ---- field lists --------------------------------------------------------------------------- */

/* One field of a list, read in the list's order up to the first failure by the helper that words its
 * messages: required (its class default fills it in a sub-config), optional (absent takes dflt, null
 * null_value), bool_key (dflt when absent or null) or a hook of its own. HF_CLASS: dflt is the offset
 * of the family's int64_t class default in llmmem__class_defaults (an optional field leaves its key
 * where the family has none). */
enum hf_how { HF_REQUIRED, HF_OPTIONAL, HF_BOOL, HF_HOOK, HF_REFUSE };
#define HF_CLASS 0x10
#define CLASS(member) ((int64_t)offsetof(llmmem__class_defaults, member))
/* When a field is read: always, or where the family's modeling file reads it. */
enum hf_when { HF_ALWAYS, HF_IF_READS_KV_HEADS, HF_IF_READS_HEAD_DIM };
typedef struct hf_field {
    uint8_t how;
    const char *name;
    llmmem_key key;
    int64_t dflt;
    int64_t null_value;
    uint8_t when;
    llmmem_status (*hook)(const hf *c, const llmmem__json *obj);
    const char *why;     /* HF_REFUSE: why the value null_value of the flag (dflt when absent) is refused */
    const char *const *names; /* HF_REQUIRED: the names it may go by, first found read (NULL: name alone) */
} hf_field;
#define FIELDS(list) (list), sizeof(list) / sizeof((list)[0])
/* The rows of a field list with a default of its own (an optional one's null takes it too). */
#define REQ(field, k, d) {.how = HF_REQUIRED, .name = (field), .key = (k), .dflt = (d)}
#define OPT(field, k, d) {.how = HF_OPTIONAL, .name = (field), .key = (k), .dflt = (d), .null_value = (d)}
#define FLAG(field, k, d) {.how = HF_BOOL, .name = (field), .key = (k), .dflt = (d)}
#define HOOK(fn) {.how = HF_HOOK, .hook = (fn)}
/* The sizes every decoder config states, required (no class default), in the readers' order. */
#define REQUIRED_SIZES                                                                                         \
    REQ("hidden_size", LLMMEM_KEY_HIDDEN_SIZE, CLASS_NONE),                                                 \
        REQ("num_hidden_layers", LLMMEM_KEY_NUM_HIDDEN_LAYERS, CLASS_NONE),                                 \
        REQ("num_attention_heads", LLMMEM_KEY_NUM_ATTENTION_HEADS, CLASS_NONE),                             \
        REQ("vocab_size", LLMMEM_KEY_VOCAB_SIZE, CLASS_NONE)
/* An optional field whose null takes another value than its absence (LEAVE: sets nothing). */
#define OPT_NULL(field, k, absent, null) {.how = HF_OPTIONAL, .name = (field), .key = (k), .dflt = (absent), .null_value = (null)}
#define REQ_ALIASES(k, d, ...) {.how = HF_REQUIRED, .names = NAMES(__VA_ARGS__), .key = (k), .dflt = (d)}
/* A flag the family does not model when it is `refused` (absent: d), refused naming why (refuse_if). */
#define REFUSE(field, refused, d, reason) \
    {.how = HF_REFUSE, .name = (field), .dflt = (d), .null_value = (refused), .why = (reason)}

static int field_read(const family *f, uint8_t when)
{
    return when == HF_ALWAYS || (when == HF_IF_READS_KV_HEADS && f->config.reads_kv_heads) ||
           (when == HF_IF_READS_HEAD_DIM && f->config.reads_head_dim);
}

static llmmem_status read_fields(const hf *c, const llmmem__json *obj, const hf_field *f, size_t n)
{
    llmmem_status st = LLMMEM_OK;
    for (size_t i = 0; i < n && !st; i++) {
        if (!field_read(c->fam, f[i].when))
            continue;
        int64_t dflt = f[i].dflt;
        if (f[i].how & HF_CLASS) {
            memcpy(&dflt, (const char *)&c->fam->config + dflt, sizeof dflt);
            if ((f[i].how & ~HF_CLASS) == HF_OPTIONAL && dflt == CLASS_NONE)
                dflt = LEAVE;
        }
        switch (f[i].how & ~HF_CLASS) {
        case HF_REQUIRED: st = required(c, obj, f[i].names ? f[i].names : NAMES(f[i].name), f[i].key, dflt, NULL); break;
        case HF_OPTIONAL: st = optional(c, obj, f[i].name, f[i].key, dflt, f[i].null_value); break;
        case HF_BOOL: st = bool_key(c, obj, f[i].name, f[i].key, (int)dflt); break;
        case HF_REFUSE: st = refuse_if(c, obj, f[i].name, (int)f[i].null_value, (int)dflt, f[i].why); break;
        default: st = f[i].hook(c, obj); break;
        }
    }
    return st;
}

/* Gated DeltaNet's sizes (Qwen3NextConfig's defaults fill a sub-config) and the MTP block: mtp_num_hidden_layers, the
 * checkpoint's multi-token-prediction layers (mtp.* tensors, which Qwen3NextForCausalLM does not load: the
 * checkpoint's, not the model's); vllm model_executor/models/qwen3_next_mtp.py: fc, pre_fc_norm_embedding,
 * pre_fc_norm_hidden, norm and a decoder layer each, the embedding and head shared unless mtp_use_dedicated_embeddings */
static const hf_field qwen3_next_fields[] = {
    REQ("linear_num_key_heads", LLMMEM_KEY_LINEAR_NUM_KEY_HEADS, 16),
    REQ("linear_num_value_heads", LLMMEM_KEY_LINEAR_NUM_VALUE_HEADS, 32),
    REQ("linear_key_head_dim", LLMMEM_KEY_LINEAR_KEY_HEAD_DIM, 128),
    REQ("linear_value_head_dim", LLMMEM_KEY_LINEAR_VALUE_HEAD_DIM, 128),
    OPT("linear_conv_kernel_dim", LLMMEM_KEY_LINEAR_CONV_KERNEL_DIM, 4),
    OPT("mtp_num_hidden_layers", LLMMEM_KEY_NUM_NEXTN_PREDICT_LAYERS, 0),
    FLAG("mtp_use_dedicated_embeddings", LLMMEM_KEY_MTP_EMBEDDING, 0),
};
static llmmem_status read_qwen3_next(const hf *c, const llmmem__json *obj, int64_t layers)
{
    llmmem_status st = read_fields(c, obj, FIELDS(qwen3_next_fields));
    if (st)
        return st;
    const llmmem__json *types = llmmem__json_object_get(obj, "layer_types");
    if (types && !llmmem__json_is_null(types)) {
        st = set(c, "layer_types", LLMMEM_KEY_FULL_ATTENTION_INTERVAL, 0);
        return st ? st : read_layer_types(c, types, layers, 0);
    }
    int64_t interval = 4;
    st = get_int_or(c, obj, "full_attention_interval", 4, &interval);
    if (st)
        return st;
    if (interval < 1)
        return hf_fail(c, LLMMEM_ERR_OUT_OF_RANGE, "full_attention_interval", "%lld is below 1", (long long)interval);
    return set(c, "full_attention_interval", LLMMEM_KEY_FULL_ATTENTION_INTERVAL, interval);
}

/* intermediate_size; Qwen3_5MoeTextConfig has no dense MLP, no intermediate_size. */
static llmmem_status read_intermediate(const hf *c, const llmmem__json *obj)
{
    if (c->fam->type == LLMMEM_MODEL_QWEN3_5_MOE)
        return optional(c, obj, "intermediate_size", LLMMEM_KEY_INTERMEDIATE_SIZE, 0, 0);
    return required(c, obj, NAMES("intermediate_size"), LLMMEM_KEY_INTERMEDIATE_SIZE, c->fam->config.intermediate,
                    NULL);
}

/* The leading fields of a Llama-like text config, each with its family's class default. */
static const hf_field llama_like_fields[] = {
    {.how = HF_REQUIRED | HF_CLASS, .name = "hidden_size", .key = LLMMEM_KEY_HIDDEN_SIZE, .dflt = CLASS(hidden)},
    {.how = HF_REQUIRED | HF_CLASS, .name = "num_hidden_layers", .key = LLMMEM_KEY_NUM_HIDDEN_LAYERS,
     .dflt = CLASS(layers)},
    {.how = HF_REQUIRED | HF_CLASS, .name = "num_attention_heads", .key = LLMMEM_KEY_NUM_ATTENTION_HEADS,
     .dflt = CLASS(heads)},
    {.how = HF_REQUIRED | HF_CLASS, .name = "vocab_size", .key = LLMMEM_KEY_VOCAB_SIZE, .dflt = CLASS(vocab)},
    {.how = HF_HOOK, .hook = read_intermediate},
    /* GPTNeoXAttention: no grouped-query heads */
    {.how = HF_HOOK, .when = HF_IF_READS_KV_HEADS, .hook = read_kv_heads},
    {.how = HF_OPTIONAL | HF_CLASS, .name = "head_dim", .key = LLMMEM_KEY_HEAD_DIM, .dflt = CLASS(head_dim),
     .null_value = 0, .when = HF_IF_READS_HEAD_DIM},
    {.how = HF_OPTIONAL | HF_CLASS, .name = "max_position_embeddings", .key = LLMMEM_KEY_MAX_POSITION_EMBEDDINGS,
     .dflt = CLASS(max_position), .null_value = LEAVE},
    {.how = HF_HOOK, .hook = read_tie},
};

static llmmem_status read_llama_like(const hf *c, const llmmem__json *obj)
{
    const family *f = c->fam;
    llmmem_status st = read_fields(c, obj, FIELDS(llama_like_fields));
    if (st)
        return st;
    const int64_t layers = llmmem__get_int(&c->m->s, LLMMEM_KEY_NUM_HIDDEN_LAYERS);
    const int64_t intermediate = llmmem__get_int(&c->m->s, LLMMEM_KEY_INTERMEDIATE_SIZE);

    if (f->config.attention_bias >= 0 && f->reader != LLMMEM_READ_GLM4) {
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
    if (!st && f->config.reads_use_qk_norm) /* CohereAttention: q_norm, k_norm when config.use_qk_norm */
        st = bool_key(c, obj, "use_qk_norm", LLMMEM_KEY_QK_NORM, 0);
    if (st)
        return st;

    if (f->config.moe == LLMMEM_MOE_MIXTRAL || f->config.moe == LLMMEM_MOE_OLMOE) {
        /* MixtralSparseMoeBlock (num_local_experts) and OlmoeSparseMoeBlock (num_experts) on every
         * layer: experts of intermediate_size (the router is Linear(hidden_size, experts): 0 experts
         * is no model, never a dense one) */
        const char *field = f->config.moe == LLMMEM_MOE_MIXTRAL ? "num_local_experts" : "num_experts";
        int64_t experts = 0;
        st = required(c, obj, (const char *const[]){field, NULL}, LLMMEM_KEY_NUM_EXPERTS, CLASS_NONE, &experts);
        if (!st && experts == 0)
            st = hf_fail(c, LLMMEM_ERR_OUT_OF_RANGE, field,
                         "0 experts: a %s model routes every layer to at least 1 expert", f->name);
        if (!st)
            st = required(c, obj, NAMES("num_experts_per_tok"), LLMMEM_KEY_NUM_EXPERTS_PER_TOK, CLASS_NONE, NULL);
        if (!st)
            st = set(c, "intermediate_size", LLMMEM_KEY_MOE_INTERMEDIATE_SIZE, intermediate);
        if (!st)
            st = moe_on_marked_layers(c, field);
    } else if (f->config.moe == LLMMEM_MOE_QWEN || f->config.moe == LLMMEM_MOE_QWEN_SHARED) {
        st = read_qwen_moe(c, obj, layers);
    }
    if (st)
        return st;
    if (f->type == LLMMEM_MODEL_QWEN3_NEXT || f->type == LLMMEM_MODEL_QWEN3_5 || f->type == LLMMEM_MODEL_QWEN3_5_MOE)
        return read_qwen3_next(c, obj, layers);
    return read_sliding(c, obj, layers);
}

static const hf_field gpt2_fields[] = {
    REQ_ALIASES(LLMMEM_KEY_HIDDEN_SIZE, CLASS_NONE, "n_embd", "hidden_size"),
    REQ_ALIASES(LLMMEM_KEY_NUM_HIDDEN_LAYERS, CLASS_NONE, "n_layer", "num_hidden_layers"),
    REQ_ALIASES(LLMMEM_KEY_NUM_ATTENTION_HEADS, CLASS_NONE, "n_head", "num_attention_heads"),
    REQ("vocab_size", LLMMEM_KEY_VOCAB_SIZE, CLASS_NONE),
    REQ_ALIASES(LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, CLASS_NONE, "n_positions", "max_position_embeddings"),
    OPT("n_inner", LLMMEM_KEY_INTERMEDIATE_SIZE, 0),
    HOOK(read_tie),
};

/* GPT2Config (attribute_map: hidden_size n_embd, num_hidden_layers n_layer, num_attention_heads
 * n_head, max_position_embeddings n_positions); n_inner None: 4 * n_embd. */
static llmmem_status read_gpt2(const hf *c, const llmmem__json *obj)
{
    return read_fields(c, obj, FIELDS(gpt2_fields));
}

/* OPTDecoder adds project_in/project_out when word_embed_proj_dim != hidden_size */
static llmmem_status read_opt_embed_proj(const hf *c, const llmmem__json *obj)
{
    const int64_t hidden = llmmem__get_int(&c->m->s, LLMMEM_KEY_HIDDEN_SIZE);
    int64_t proj = hidden;
    enum presence p;
    llmmem_status st = get_int(c, obj, "word_embed_proj_dim", &proj, &p);
    if (st)
        return st;
    if (p == PRESENT && proj != hidden)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "word_embed_proj_dim",
                       "%lld differs from hidden_size (%lld): the project_in and project_out layers this adds are "
                       "not modelled",
                       (long long)proj, (long long)hidden);
    return LLMMEM_OK;
}

/* OPTConfig; OPTDecoder has no final norm when do_layer_norm_before is false or _remove_final_layer_norm is
 * true; OPTAttention's projections and fc1, fc2 take bias=enable_bias. */
static const hf_field opt_fields[] = {
    REQUIRED_SIZES,
    REQ("ffn_dim", LLMMEM_KEY_INTERMEDIATE_SIZE, CLASS_NONE),
    REQ("max_position_embeddings", LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, CLASS_NONE),
    HOOK(read_opt_embed_proj),
    REFUSE("do_layer_norm_before", 0, 1, "post-norm OPT (opt-350m) has no final layer norm, which is not modelled"),
    REFUSE("_remove_final_layer_norm", 1, 0, "a model without its final layer norm is not modelled"),
    REFUSE("layer_norm_elementwise_affine", 0, 1, "layer norms without weights are not modelled"),
    FLAG("enable_bias", LLMMEM_KEY_QKV_BIAS, 1),
    FLAG("enable_bias", LLMMEM_KEY_O_PROJ_BIAS, 1),
    FLAG("enable_bias", LLMMEM_KEY_MLP_BIAS, 1),
    HOOK(read_tie),
};

static const hf_field bloom_fields[] = {
    REQ_ALIASES(LLMMEM_KEY_HIDDEN_SIZE, CLASS_NONE, "n_embed", "hidden_size"),
    REQ_ALIASES(LLMMEM_KEY_NUM_HIDDEN_LAYERS, CLASS_NONE, "n_layer", "num_hidden_layers"),
    REQ_ALIASES(LLMMEM_KEY_NUM_ATTENTION_HEADS, CLASS_NONE, "n_head", "num_attention_heads"),
    REQ("vocab_size", LLMMEM_KEY_VOCAB_SIZE, CLASS_NONE),
    HOOK(read_tie),
};

/* BloomConfig: n_embed overrides hidden_size; attribute_map num_hidden_layers n_layer,
 * num_attention_heads n_head; MLP 4 * hidden_size; ALiBi, no position table. */
static llmmem_status read_bloom(const hf *c, const llmmem__json *obj)
{
    return read_fields(c, obj, FIELDS(bloom_fields));
}

static const hf_field falcon_fields[] = {
    REQ("hidden_size", LLMMEM_KEY_HIDDEN_SIZE, CLASS_NONE),
    REQ_ALIASES(LLMMEM_KEY_NUM_HIDDEN_LAYERS, CLASS_NONE, "num_hidden_layers", "n_layer"),
    REQ_ALIASES(LLMMEM_KEY_NUM_ATTENTION_HEADS, CLASS_NONE, "num_attention_heads", "n_head"),
    REQ("vocab_size", LLMMEM_KEY_VOCAB_SIZE, CLASS_NONE),
    OPT("ffn_hidden_size", LLMMEM_KEY_INTERMEDIATE_SIZE, 0),
    {.how = HF_OPTIONAL | HF_CLASS, .name = "max_position_embeddings", .key = LLMMEM_KEY_MAX_POSITION_EMBEDDINGS,
     .dflt = CLASS(max_position), .null_value = LEAVE},
};

/* FalconConfig with FalconAttention and FalconDecoderLayer:
 *   k/v heads: new_decoder_architecture: num_kv_heads (None: num_attention_heads); else
 *   multi_query: 1; else num_attention_heads.
 *   norms: parallel_attn false: input_layernorm and post_attention_layernorm; parallel_attn with
 *   num_ln_in_parallel_attn 2 (None: 2 under new_decoder_architecture): ln_attn and ln_mlp;
 *   else input_layernorm alone.
 *   bias: query_key_value, dense and the MLP; ffn_hidden_size None: 4 * hidden_size. */
static llmmem_status read_falcon(const hf *c, const llmmem__json *obj)
{
    llmmem_status st = read_fields(c, obj, FIELDS(falcon_fields));
    if (st)
        return st;
    const int64_t heads = llmmem__get_int(&c->m->s, LLMMEM_KEY_NUM_ATTENTION_HEADS);
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

/* The dense layers of Glm4MoeLiteConfig and GlmMoeDsaConfig: first_k_dense_replace (the published configs' name),
 * else mlp_layer_types ("dense" / "sparse" per layer: only a leading run of dense layers is modelled), else the
 * class default's `dflt` leading dense layers. */
static llmmem_status read_mlp_layer_types(const hf *c, const llmmem__json *obj, int64_t dflt)
{
    const llmmem__json *types = llmmem__json_object_get(obj, "mlp_layer_types");
    if (llmmem__json_object_get(obj, "first_k_dense_replace") || !types || llmmem__json_is_null(types))
        return optional(c, obj, "first_k_dense_replace", LLMMEM_KEY_FIRST_K_DENSE_REPLACE, dflt, dflt);
    if (!llmmem__json_is_array(types))
        return hf_fail(c, LLMMEM_ERR_PARSE, "mlp_layer_types", "expected an array, got %s", kind(types));
    size_t n = llmmem__json_array_size(types), dense = 0;
    for (size_t i = 0; i < n; i++) {
        const llmmem__json *t = llmmem__json_array_get(types, i);
        char field[48];
        snprintf(field, sizeof field, "mlp_layer_types[%zu]", i);
        if (!is_text(t))
            return hf_fail(c, LLMMEM_ERR_PARSE, field, "expected a string, got %s", kind(t));
        int is_dense = strcmp(llmmem__json_string_value(t), "dense") == 0;
        if (!is_dense && strcmp(llmmem__json_string_value(t), "sparse") != 0)
            return unsupported_string(c, field, llmmem__json_string_value(t), "dense and sparse are");
        if (is_dense && dense != i)
            return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, field, "a dense layer after a sparse one is not modelled");
        dense += is_dense ? 1u : 0u;
    }
    return set(c, "mlp_layer_types", LLMMEM_KEY_FIRST_K_DENSE_REPLACE, (int64_t)dense);
}

/* The indexer's shape: DeepSeek-V3.2's inference/model.py ModelArgs (required), GlmMoeDsaConfig's
 * index_n_heads=32, index_head_dim=128. */
static llmmem_status read_dsa_indexer(const hf *c, const llmmem__json *obj)
{
    llmmem_status st = LLMMEM_OK;
    if (c->fam->type == LLMMEM_MODEL_DEEPSEEK_V32) {
        st = required(c, obj, NAMES("index_n_heads"), LLMMEM_KEY_INDEX_N_HEADS, CLASS_NONE, NULL);
        if (!st)
            st = required(c, obj, NAMES("index_head_dim"), LLMMEM_KEY_INDEX_HEAD_DIM, CLASS_NONE, NULL);
    } else if (c->fam->type == LLMMEM_MODEL_GLM_MOE_DSA) {
        st = optional(c, obj, "index_n_heads", LLMMEM_KEY_INDEX_N_HEADS, 32, 32);
        if (!st)
            st = optional(c, obj, "index_head_dim", LLMMEM_KEY_INDEX_HEAD_DIM, 128, 128);
    }
    return st;
}

static const hf_field deepseek_fields[] = {
    REQUIRED_SIZES,
    REQ("intermediate_size", LLMMEM_KEY_INTERMEDIATE_SIZE, CLASS_NONE),
    REQ("kv_lora_rank", LLMMEM_KEY_KV_LORA_RANK, CLASS_NONE),
    REQ("qk_rope_head_dim", LLMMEM_KEY_QK_ROPE_HEAD_DIM, CLASS_NONE),
    REQ("qk_nope_head_dim", LLMMEM_KEY_QK_NOPE_HEAD_DIM, CLASS_NONE),
    REQ("v_head_dim", LLMMEM_KEY_V_HEAD_DIM, CLASS_NONE),
    OPT_NULL("num_key_value_heads", LLMMEM_KEY_NUM_KEY_VALUE_HEADS, LEAVE, 0),
    OPT("max_position_embeddings", LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, LEAVE),
    HOOK(read_tie),
    HOOK(read_dsa_indexer),
    /* README_WEIGHTS.md: MTP modules stored after the main layers, not in the model's class */
    OPT("num_nextn_predict_layers", LLMMEM_KEY_NUM_NEXTN_PREDICT_LAYERS, 0),
    REFUSE("attention_bias", 1, 0, "biases on q_a_proj, kv_a_proj_with_mqa and o_proj are not modelled"),
};

/* DeepSeek-V2/V3 (modeling_deepseek.py): multi-head latent attention; layer i has a MoE block
 * when n_routed_experts is not None and i >= first_k_dense_replace and i % moe_layer_freq == 0;
 * topk_method noaux_tc adds MoEGate.e_score_correction_bias. */
static llmmem_status read_deepseek(const hf *c, const llmmem__json *obj)
{
    /* DeepseekV3Config (and Kimi K2's) default topk_method noaux_tc: the families whose gate has
     * the correction bias by structure (families.c) */
    int64_t by_structure = 0;
    int v3 = llmmem__family_structure(&by_structure, c->fam, LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS) && by_structure;
    llmmem_status st = read_fields(c, obj, FIELDS(deepseek_fields));
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
    if (!st && (c->fam->type == LLMMEM_MODEL_GLM4_MOE_LITE || c->fam->type == LLMMEM_MODEL_GLM_MOE_DSA))
        st = read_mlp_layer_types(c, obj, c->fam->type == LLMMEM_MODEL_GLM_MOE_DSA ? 3 : 1);
    else if (!st)
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

/* Glm4MoeConfig's experts (DeepSeek-V3's fields). num_nextn_predict_layers: the multi-token-prediction
 * layers a checkpoint stores past num_hidden_layers; Glm4MoeForCausalLM builds none: the checkpoint's, not
 * the model's (arch.c MTP). */
static const hf_field glm4_moe_fields[] = {
    OPT("num_nextn_predict_layers", LLMMEM_KEY_NUM_NEXTN_PREDICT_LAYERS, 0),
    REQ("n_routed_experts", LLMMEM_KEY_NUM_EXPERTS, CLASS_NONE),
    REQ("num_experts_per_tok", LLMMEM_KEY_NUM_EXPERTS_PER_TOK, CLASS_NONE),
    REQ("moe_intermediate_size", LLMMEM_KEY_MOE_INTERMEDIATE_SIZE, CLASS_NONE),
    REQ("n_shared_experts", LLMMEM_KEY_N_SHARED_EXPERTS, CLASS_NONE),
    REQ("first_k_dense_replace", LLMMEM_KEY_FIRST_K_DENSE_REPLACE, CLASS_NONE),
};

/* GLM-4 (models/glm4/modeling_glm4.py Glm4Attention, models/glm4_moe/modeling_glm4_moe.py
 * Glm4MoeAttention): attention_bias biases q, k and v, never o_proj (Glm4Config's default True,
 * Glm4MoeConfig's False). GLM-4.5 (glm4_moe): q_norm, k_norm = RMSNorm(head_dim) when use_qk_norm;
 * layer i has a Glm4MoeMoE (n_routed_experts of moe_intermediate_size, a shared Glm4MoeMLP of
 * n_shared_experts x moe_intermediate_size, a router with e_score_correction_bias) when
 * i >= first_k_dense_replace. */
static llmmem_status read_glm4(const hf *c, const llmmem__json *obj)
{
    llmmem_status st = read_llama_like(c, obj);
    if (st)
        return st;
    int bias;
    st = get_flag(c, obj, "attention_bias", c->fam->config.attention_bias, &bias);
    if (!st)
        st = set(c, "attention_bias", LLMMEM_KEY_QKV_BIAS, bias);
    if (!st)
        st = set(c, "attention_bias", LLMMEM_KEY_O_PROJ_BIAS, 0);
    if (st || c->fam->type != LLMMEM_MODEL_GLM4_MOE)
        return st;
    st = read_fields(c, obj, FIELDS(glm4_moe_fields));
    if (!st)
        st = set(c, "first_k_dense_replace", LLMMEM_KEY_MOE_LAYER_FREQ, 1);
    return st;
}

/* MiniMax-M2 (transformers models/minimax_m2/modeling_minimax_m2.py): Mixtral's experts
 * (num_local_experts of intermediate_size) on every layer, q_norm/k_norm over all heads and the
 * router's e_score_correction_bias unconditionally (families.c). The published config also names
 * use_qk_norm, qk_norm_type and use_routing_bias, which the modeling file does not read: a value
 * other than what it builds is refused, and every attn_type_list entry must be 1 (softmax attention). */
static llmmem_status read_minimax_m2(const hf *c, const llmmem__json *obj)
{
    llmmem_status st = read_llama_like(c, obj);
    if (!st)
        st = refuse_if(c, obj, "use_qk_norm", 0, 1, "MiniMaxM2Attention always has q_norm and k_norm");
    if (!st)
        st = refuse_if(c, obj, "use_routing_bias", 0, 1, "MiniMaxM2SparseMoeBlock always has e_score_correction_bias");
    if (st)
        return st;
    const char *type = NULL;
    enum presence p;
    st = get_string(c, obj, "qk_norm_type", &type, &p);
    if (st)
        return st;
    if (p == PRESENT && strcmp(type, "per_layer") != 0)
        return unsupported_string(c, "qk_norm_type", type, "MiniMaxM2Attention's q/k norms span all heads: per_layer is");
    int64_t shared = 0;
    st = get_int(c, obj, "shared_intermediate_size", &shared, &p);
    if (st)
        return st;
    if (p == PRESENT && shared != 0)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "shared_intermediate_size",
                       "%lld: MiniMaxM2SparseMoeBlock has no shared expert", (long long)shared);
    const llmmem__json *types = llmmem__json_object_get(obj, "attn_type_list");
    if (types && !llmmem__json_is_null(types) && !llmmem__json_is_array(types))
        return hf_fail(c, LLMMEM_ERR_PARSE, "attn_type_list", "expected an array, got %s", kind(types));
    for (size_t i = 0; types && llmmem__json_is_array(types) && i < llmmem__json_array_size(types); i++) {
        const llmmem__json *v = llmmem__json_array_get(types, i);
        if (!llmmem__json_is_integer(v) || llmmem__json_integer_value(v) != 1)
            return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "attn_type_list",
                           "entry %zu is not 1: lightning (linear) attention layers are not modelled", i);
    }
    /* num_mtp_modules, mtp_transformer_layers, use_mtp: multi-token-prediction modules the published
     * checkpoint does not store and MiniMaxM2ForCausalLM does not build (accepted, not read) */
    return LLMMEM_OK;
}

/* Ernie4_5's use_bias biases q, k, v, o and the MLP. */
static const hf_field ernie_bias_fields[] = {
    FLAG("use_bias", LLMMEM_KEY_QKV_BIAS, 0),
    FLAG("use_bias", LLMMEM_KEY_O_PROJ_BIAS, 0),
    FLAG("use_bias", LLMMEM_KEY_MLP_BIAS, 0),
};

/* ERNIE 4.5 (models/ernie4_5_moe/modeling_ernie4_5_moe.py): use_bias biases q, k, v, o and every MLP's
 * gate, up and down; Ernie4_5_MoeDecoderLayer i has a sparse block when (i + 1) % moe_layer_interval == 0
 * and moe_layer_start_index <= i <= moe_layer_end_index (-1: the last layer), of moe_num_experts
 * experts of moe_intermediate_size, top moe_k, one shared MLP of moe_num_shared_experts x
 * moe_intermediate_size, a gate without bias and Ernie4_5_MoeStatics' correction bias. Absent moe_*
 * fields take Ernie4_5_MoeConfig's defaults: 64 experts, top 6, 1536, 2 shared, layers 1 to the last,
 * every layer. */
static llmmem_status read_ernie(const hf *c, const llmmem__json *obj, int64_t layers)
{
    llmmem_status st = read_fields(c, obj, FIELDS(ernie_bias_fields));
    if (st || c->fam->config.moe != LLMMEM_MOE_ERNIE)
        return st;
    int64_t experts = 64, start = 1, end = -1, interval = 1;
    st = get_int_or(c, obj, "moe_num_experts", 64, &experts);
    if (!st)
        st = set(c, "moe_num_experts", LLMMEM_KEY_NUM_EXPERTS, experts);
    if (st || experts == 0)
        return st;
    st = optional(c, obj, "moe_k", LLMMEM_KEY_NUM_EXPERTS_PER_TOK, 6, 6);
    if (!st)
        st = optional(c, obj, "moe_intermediate_size", LLMMEM_KEY_MOE_INTERMEDIATE_SIZE, 1536, 1536);
    if (!st)
        st = optional(c, obj, "moe_num_shared_experts", LLMMEM_KEY_N_SHARED_EXPERTS, 2, 0);
    if (!st)
        st = get_int_or(c, obj, "moe_layer_start_index", 1, &start);
    if (!st)
        st = get_int_or(c, obj, "moe_layer_end_index", -1, &end);
    if (!st)
        st = get_int_or(c, obj, "moe_layer_interval", 1, &interval);
    if (st)
        return st;
    if (end == -1)
        end = layers - 1;
    if (interval < 1)
        return hf_fail(c, LLMMEM_ERR_OUT_OF_RANGE, "moe_layer_interval", "%lld is below 1", (long long)interval);
    if (start < 0)
        return hf_fail(c, LLMMEM_ERR_OUT_OF_RANGE, "moe_layer_start_index", "%lld is below 0", (long long)start);
    if (interval != 1)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "moe_layer_interval",
                       "%lld: sparse blocks on the layers i with (i + 1) %% %lld == 0 are not modelled (first_k_dense_replace "
                       "and moe_layer_freq give the layers i >= k with i %% n == 0)",
                       (long long)interval, (long long)interval);
    if (end < layers - 1)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "moe_layer_end_index",
                       "%lld: dense layers after the sparse ones (num_hidden_layers %lld) are not modelled", (long long)end,
                       (long long)layers);
    st = set(c, "moe_layer_start_index", LLMMEM_KEY_FIRST_K_DENSE_REPLACE, start > layers ? layers : start);
    if (!st)
        st = set(c, "moe_layer_interval", LLMMEM_KEY_MOE_LAYER_FREQ, 1);
    return st;
}
static llmmem_status read_llama4(const hf *c, const llmmem__json *root);
static llmmem_status read_mllama(const hf *c, const llmmem__json *root);
static llmmem_status read_llama4_text(const hf *c, const llmmem__json *obj);
/* A Mamba-2 mixer's fields under a family's names; Mamba2Config and NemotronHConfig defaults: n_groups=8,
 * conv_kernel=4, use_conv_bias=True, use_bias=False. */
#define MAMBA2_MIXER_FIELDS(heads, head_dim, state)                                                           \
    REQ(heads, LLMMEM_KEY_MAMBA_NUM_HEADS, CLASS_NONE), REQ(head_dim, LLMMEM_KEY_MAMBA_HEAD_DIM, CLASS_NONE), \
        REQ(state, LLMMEM_KEY_SSM_STATE_SIZE, CLASS_NONE), OPT("n_groups", LLMMEM_KEY_MAMBA_N_GROUPS, 8),      \
        OPT("conv_kernel", LLMMEM_KEY_MAMBA_D_CONV, 4), FLAG("use_conv_bias", LLMMEM_KEY_MAMBA_CONV_BIAS, 1), \
        FLAG("use_bias", LLMMEM_KEY_MAMBA_PROJ_BIAS, 0)
static const hf_field mamba2_fields[] = {
    REQ("hidden_size", LLMMEM_KEY_HIDDEN_SIZE, CLASS_NONE),
    REQ("num_hidden_layers", LLMMEM_KEY_NUM_HIDDEN_LAYERS, CLASS_NONE),
    REQ("vocab_size", LLMMEM_KEY_VOCAB_SIZE, CLASS_NONE),
    MAMBA2_MIXER_FIELDS("num_heads", "head_dim", "state_size"),
    HOOK(read_tie),
};
static const hf_field nemotron_h_mixer_fields[] = {
    MAMBA2_MIXER_FIELDS("mamba_num_heads", "mamba_head_dim", "ssm_state_size"),
};
static llmmem_status read_mamba2(const hf *c, const llmmem__json *obj)
{
    int64_t hidden = 0, layers = 0, heads = 0, head_dim = 0;
    llmmem_status st = read_fields(c, obj, FIELDS(mamba2_fields));
    if (st)
        return st;
    (void)llmmem_model_get_int(&hidden, c->m, LLMMEM_KEY_HIDDEN_SIZE);
    (void)llmmem_model_get_int(&layers, c->m, LLMMEM_KEY_NUM_HIDDEN_LAYERS);
    (void)llmmem_model_get_int(&heads, c->m, LLMMEM_KEY_MAMBA_NUM_HEADS);
    (void)llmmem_model_get_int(&head_dim, c->m, LLMMEM_KEY_MAMBA_HEAD_DIM);
    const llmmem__json *expand = llmmem__json_object_get(obj, "expand");
    double e =
        expand && llmmem__json_is_number(expand) ? llmmem__json_number_value(expand) : 2.0; /* Mamba2Config expand=2 */
    /* heads x head_dim is within [0, 2^48] (the keys' bounds): a width outside (-1, 2^53) cannot equal it, and
     * converting it to int64 could be out of range (expand 1e300) */
    const double width = e * (double)hidden;
    if (!(width > -1.0 && width < 0x1p53) || (int64_t)width != heads * head_dim)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "expand",
                       "int(expand x hidden_size) differs from num_heads x head_dim (%lld): an inner width the "
                       "heads do not fill is not modelled", (long long)(heads * head_dim));
    if (layers > LLMMEM_LAYER_MAP_MAX)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "num_hidden_layers", "more than %d layers are not modelled",
                       LLMMEM_LAYER_MAP_MAX);
    llmmem__layer_map map;
    memset(&map, 0, sizeof map);
    for (int64_t i = 0; i < layers; i++) {
        map.ffn[i] = 1 + LLMMEM_FFN_NONE;
        map.mixer[map.layers++] = LLMMEM_MIXER_SSM;
    }
    llmmem__model_set_layer_map(c->m, &map);
    return LLMMEM_OK;
}

/* NemotronHMoE (transformers modular_nemotron_h.py), the 'E' blocks of Nemotron 3: a NemotronHTopkRouter
 * (weight and e_score_correction_bias) over n_routed_experts non-gated relu2 experts of moe_intermediate_size,
 * top num_experts_per_tok, one shared NemotronHMLP of moe_shared_expert_intermediate_size, and with
 * moe_latent_size the experts at that width between fc1_latent_proj and fc2_latent_proj. NemotronHConfig's
 * defaults (n_routed_experts=8, moe_intermediate_size=7688, ...) are written to every saved config, so the
 * fields are required. */
static llmmem_status read_nemotron_h_moe(const hf *c, const llmmem__json *obj)
{
    const char *name;
    int64_t experts = 0;
    enum presence p;
    /* attribute_map: num_local_experts is n_routed_experts */
    llmmem_status st = get_int_alias(c, obj, NAMES("n_routed_experts", "num_local_experts"), &experts, &p, &name);
    if (st)
        return st;
    if (p != PRESENT)
        return hf_fail(c, LLMMEM_ERR_INCOMPLETE, name, "is %s (required for the MoE blocks, 'E', of model_type %s)",
                       p == IS_NULL ? "null" : "missing", c->type);
    if (experts <= 0)
        return hf_fail(c, LLMMEM_ERR_OUT_OF_RANGE, name, "%lld experts: a MoE block ('E') routes to at least 1",
                       (long long)experts);
    /* NemotronHMoE.shared_experts: one NemotronHMLP of moe_shared_expert_intermediate_size (n_shared_experts does not
     * widen it); Nemotron 3's latent MoE */
    static const hf_field fields[] = {
        REQ("num_experts_per_tok", LLMMEM_KEY_NUM_EXPERTS_PER_TOK, CLASS_NONE),
        REQ("moe_intermediate_size", LLMMEM_KEY_MOE_INTERMEDIATE_SIZE, CLASS_NONE),
        REQ("moe_shared_expert_intermediate_size", LLMMEM_KEY_SHARED_EXPERT_INTERMEDIATE_SIZE, CLASS_NONE),
        OPT("moe_latent_size", LLMMEM_KEY_MOE_LATENT_SIZE, 0),
    };
    st = set(c, name, LLMMEM_KEY_NUM_EXPERTS, experts);
    if (!st)
        st = read_fields(c, obj, FIELDS(fields));
    if (!st) /* the blocks say which layers are MoE: no dense-first rule applies */
        st = moe_on_marked_layers(c, "hybrid_override_pattern");
    return st;
}

/* The blocks of a NemotronHConfig: hybrid_override_pattern, or layers_block_type (transformers' later
 * name: linear_attention the Mamba-2 block, moe, full_attention, mlp) written as that pattern into buf. */
static llmmem_status nemotron_h_blocks(const hf *c, const llmmem__json *obj, char *buf, size_t size, const char **out)
{
    enum presence p;
    llmmem_status st = get_string(c, obj, "hybrid_override_pattern", out, &p);
    if (st || p == PRESENT)
        return st;
    const llmmem__json *list = llmmem__json_object_get(obj, "layers_block_type");
    if (!list || llmmem__json_is_null(list))
        return hf_fail(c, LLMMEM_ERR_INCOMPLETE, "hybrid_override_pattern", "is %s (required for model_type %s)",
                       p == IS_NULL ? "null" : "missing", c->type);
    if (!llmmem__json_is_array(list))
        return hf_fail(c, LLMMEM_ERR_PARSE, "layers_block_type", "expected an array, got %s", kind(list));
    size_t n = llmmem__json_array_size(list);
    if (n >= size)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "layers_block_type", "more than %zu layers are not modelled", size - 1);
    /* configuration_nemotron_h.py _list_to_pattern */
    static const struct { const char *name; char letter; } types[] = {
        {"linear_attention", 'M'}, {"mamba", 'M'}, {"moe", 'E'}, {"full_attention", '*'}, {"attention", '*'},
        {"mlp", '-'},
    };
    for (size_t i = 0; i < n; i++) {
        const llmmem__json *t = llmmem__json_array_get(list, i);
        char field[48];
        snprintf(field, sizeof field, "layers_block_type[%zu]", i);
        if (!is_text(t))
            return hf_fail(c, LLMMEM_ERR_PARSE, field, "expected a string, got %s", kind(t));
        size_t k = 0;
        while (k < sizeof types / sizeof types[0] && strcmp(types[k].name, llmmem__json_string_value(t)) != 0)
            k++;
        if (k == sizeof types / sizeof types[0])
            return unsupported_string(c, field, llmmem__json_string_value(t),
                                      "linear_attention, moe, full_attention and mlp are");
        buf[i] = types[k].letter;
    }
    buf[n] = '\0';
    *out = buf;
    return LLMMEM_OK;
}

/* NemotronHConfig's sizes after the layer count (head_dim=128) and its biases. */
static const hf_field nemotron_h_fields[] = {
    REQ("num_attention_heads", LLMMEM_KEY_NUM_ATTENTION_HEADS, CLASS_NONE),
    REQ("vocab_size", LLMMEM_KEY_VOCAB_SIZE, CLASS_NONE),
    REQ("intermediate_size", LLMMEM_KEY_INTERMEDIATE_SIZE, CLASS_NONE),
    HOOK(read_kv_heads),
    OPT_NULL("head_dim", LLMMEM_KEY_HEAD_DIM, 128, 0),
    OPT_NULL("max_position_embeddings", LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, 4096, LEAVE),
    HOOK(read_tie),
    FLAG("attention_bias", LLMMEM_KEY_QKV_BIAS, 0),
    FLAG("attention_bias", LLMMEM_KEY_O_PROJ_BIAS, 0),
    FLAG("mlp_bias", LLMMEM_KEY_MLP_BIAS, 0),
};

/* NemotronHConfig: hybrid_override_pattern gives each block (M Mamba-2, * attention, - MLP, E MoE);
 * NemotronHMLP is up_proj, relu2, down_proj with mlp_bias; attention biased by attention_bias. */
static llmmem_status read_nemotron_h(const hf *c, const llmmem__json *obj)
{
    char blocks[LLMMEM_LAYER_MAP_MAX + 1];
    const char *pattern = NULL;
    llmmem_status st = nemotron_h_blocks(c, obj, blocks, sizeof blocks, &pattern);
    if (st)
        return st;
    /* num_hidden_layers: deprecated since layers_block_type gives the count, required beside the pattern */
    int64_t layers = (int64_t)strlen(pattern);
    if (!st)
        st = required(c, obj, NAMES("hidden_size"), LLMMEM_KEY_HIDDEN_SIZE, CLASS_NONE, NULL);
    if (!st && pattern != blocks)
        st = required(c, obj, NAMES("num_hidden_layers"), LLMMEM_KEY_NUM_HIDDEN_LAYERS, CLASS_NONE, &layers);
    else if (!st)
        st = set(c, "layers_block_type", LLMMEM_KEY_NUM_HIDDEN_LAYERS, layers);
    if (!st)
        st = read_fields(c, obj, FIELDS(nemotron_h_fields));
    if (!st)
        st = read_fields(c, obj, FIELDS(nemotron_h_mixer_fields));
    if (!st && strchr(pattern, 'E'))
        st = read_nemotron_h_moe(c, obj);
    if (!st) /* the checkpoint's MTP blocks (mtp_hybrid_override_pattern), which the counts refuse by name */
        st = optional(c, obj, "num_nextn_predict_layers", LLMMEM_KEY_NUM_NEXTN_PREDICT_LAYERS, 0, 0);
    if (st)
        return st;
    if ((int64_t)strlen(pattern) != layers)
        return hf_fail(c, LLMMEM_ERR_INCOMPATIBLE, "hybrid_override_pattern", "has %zu blocks, but num_hidden_layers "
                       "is %lld", strlen(pattern), (long long)layers);
    llmmem__layer_map map;
    char why[LLMMEM_MESSAGE_MAX];
    if (!llmmem__layer_map_from_pattern(&map, pattern, strlen(pattern), 0, why, sizeof why))
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "hybrid_override_pattern", "%s", why);
    llmmem__model_set_layer_map(c->m, &map);
    return LLMMEM_OK;
}

/* mamba_expand x hidden_size, the Mamba-2 inner width of GraniteMoeHybridConfig and FalconH1Config
 * (mamba_expand default 2 in both). */
static llmmem_status mamba_expand_width(const hf *c, const llmmem__json *obj, int64_t hidden, int64_t *inner)
{
    int64_t expand = 2;
    enum presence p;
    llmmem_status st = get_int(c, obj, "mamba_expand", &expand, &p);
    if (st)
        return st;
    if (p != PRESENT)
        expand = 2;
    if (expand <= 0 || hidden > INT64_MAX / expand)
        return hf_fail(c, LLMMEM_ERR_OUT_OF_RANGE, "mamba_expand", "%lld is out of range", (long long)expand);
    *inner = expand * hidden;
    return LLMMEM_OK;
}

/* The Mamba-2 mixer fields GraniteMoeHybridConfig and FalconH1Config share, names and defaults alike
 * (configuration_granitemoehybrid.py, configuration_falcon_h1.py): mamba_n_heads=128, mamba_d_head
 * "auto" (the inner width // mamba_n_heads), mamba_d_state=256, mamba_n_groups=1, mamba_d_conv=4,
 * mamba_conv_bias=True; `inner` is the mixer's width, named `width` in the message when the heads do
 * not fill it (both modeling files reshape it to heads x head width). */
static llmmem_status read_hybrid_mamba2(const hf *c, const llmmem__json *obj, int64_t inner, const char *width)
{
    int64_t heads = 128, d_head = 0;
    enum presence p;
    llmmem_status st = get_int_or(c, obj, "mamba_n_heads", 128, &heads);
    if (st)
        return st;
    if (heads <= 0)
        return hf_fail(c, LLMMEM_ERR_OUT_OF_RANGE, "mamba_n_heads", "%lld is out of range", (long long)heads);
    const llmmem__json *dh = llmmem__json_object_get(obj, "mamba_d_head");
    if (dh && !llmmem__json_is_null(dh) &&
        !(llmmem__json_is_string(dh) && strcmp(llmmem__json_string_value(dh), "auto") == 0)) {
        if ((st = get_int(c, obj, "mamba_d_head", &d_head, &p)) != LLMMEM_OK)
            return st;
    } else {
        d_head = inner / heads; /* mamba_d_head "auto": mamba_intermediate // mamba_n_heads */
    }
    /* d_head x heads = inner, by division: both are the file's, unbounded (4611686018427387936 x 4 wrapped to 128) */
    if (d_head <= 0 || inner <= 0 || inner % heads != 0 || inner / heads != d_head)
        return hf_fail(c, LLMMEM_ERR_INCOMPATIBLE, "mamba_d_head", "%lld x mamba_n_heads %lld differs from %s (%lld)",
                       (long long)d_head, (long long)heads, width, (long long)inner);
    static const hf_field fields[] = {
        OPT("mamba_d_state", LLMMEM_KEY_SSM_STATE_SIZE, 256),
        OPT("mamba_n_groups", LLMMEM_KEY_MAMBA_N_GROUPS, 1),
        OPT("mamba_d_conv", LLMMEM_KEY_MAMBA_D_CONV, 4),
        FLAG("mamba_conv_bias", LLMMEM_KEY_MAMBA_CONV_BIAS, 1),
    };
    st = set(c, "mamba_n_heads", LLMMEM_KEY_MAMBA_NUM_HEADS, heads);
    if (!st)
        st = set(c, "mamba_d_head", LLMMEM_KEY_MAMBA_HEAD_DIM, d_head);
    return st ? st : read_fields(c, obj, FIELDS(fields));
}

/* GraniteMoeHybridConfig (transformers models/granitemoehybrid/configuration_granitemoehybrid.py):
 * layer_types of "mamba" and "attention" (absent: every layer mamba); every decoder layer two
 * norms, its mixer, a GraniteMoeHybridMoE of num_local_experts experts of intermediate_size (top
 * num_experts_per_tok, a bias-free router) when num_local_experts > 0, and always a shared_mlp of
 * shared_intermediate_size; the Mamba-2 mixer's inner width is mamba_expand x hidden_size, its
 * heads mamba_n_heads of mamba_d_head ("auto": the inner width over the heads). The float
 * multipliers scale activations and hold no tensor. */
static const hf_field granitemoehybrid_fields[] = {
    REQUIRED_SIZES,
    HOOK(read_kv_heads),
    /* GraniteMoeHybridAttention: getattr(config, "head_dim", hidden_size // num_attention_heads) */
    OPT("head_dim", LLMMEM_KEY_HEAD_DIM, 0),
    OPT_NULL("max_position_embeddings", LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, 2048, LEAVE),
    HOOK(read_tie),
    /* GraniteMoeHybridAttention: q, k, v and o biased by attention_bias */
    FLAG("attention_bias", LLMMEM_KEY_QKV_BIAS, 0),
    FLAG("attention_bias", LLMMEM_KEY_O_PROJ_BIAS, 0),
};

static llmmem_status read_granitemoehybrid(const hf *c, const llmmem__json *obj)
{
    int64_t experts = 8, inter = 11008, shared = 1024;
    enum presence p;
    llmmem_status st = read_fields(c, obj, FIELDS(granitemoehybrid_fields));
    if (!st)
        st = set(c, "mlp_bias", LLMMEM_KEY_MLP_BIAS, 0); /* GraniteMoeHybridMLP: bias=False */
    if (st)
        return st;
    const int64_t hidden = llmmem__get_int(&c->m->s, LLMMEM_KEY_HIDDEN_SIZE);
    const int64_t layers = llmmem__get_int(&c->m->s, LLMMEM_KEY_NUM_HIDDEN_LAYERS);
    const char *pos = NULL;
    st = get_string(c, obj, "position_embedding_type", &pos, &p);
    if (st)
        return st;
    if (p == PRESENT && strcmp(pos, "rope") != 0 && strcmp(pos, "nope") != 0)
        return unsupported_string(c, "position_embedding_type", pos, "rope, nope and null are");
    /* GraniteMoeHybridConfig: mamba_expand=2, mamba_proj_bias=False; the rest hybrid_mamba2's */
    int64_t inner = 0;
    st = mamba_expand_width(c, obj, hidden, &inner);
    if (!st)
        st = read_hybrid_mamba2(c, obj, inner, "mamba_expand x hidden_size");
    if (!st)
        st = bool_key(c, obj, "mamba_proj_bias", LLMMEM_KEY_MAMBA_PROJ_BIAS, 0);
    /* GraniteMoeHybridMoE and GraniteMoeHybridMLP; num_local_experts=8, num_experts_per_tok=2,
     * intermediate_size=11008, shared_intermediate_size=1024 */
    if (!st)
        st = get_int_or(c, obj, "num_local_experts", 8, &experts);
    if (!st)
        st = get_int_or(c, obj, "intermediate_size", 11008, &inter);
    if (!st)
        st = get_int_or(c, obj, "shared_intermediate_size", 1024, &shared);
    if (st)
        return st;
    if (experts < 0)
        return hf_fail(c, LLMMEM_ERR_OUT_OF_RANGE, "num_local_experts", "%lld is below 0", (long long)experts);
    st = set(c, "num_local_experts", LLMMEM_KEY_NUM_EXPERTS, experts);
    if (!st && experts == 0) /* no block_sparse_moe: the shared_mlp is the layer's only MLP */
        st = set(c, "shared_intermediate_size", LLMMEM_KEY_INTERMEDIATE_SIZE, shared);
    if (!st && experts > 0) {
        st = optional(c, obj, "num_experts_per_tok", LLMMEM_KEY_NUM_EXPERTS_PER_TOK, 2, 2);
        if (!st)
            st = set(c, "intermediate_size", LLMMEM_KEY_INTERMEDIATE_SIZE, inter);
        if (!st)
            st = set(c, "intermediate_size", LLMMEM_KEY_MOE_INTERMEDIATE_SIZE, inter);
        if (!st)
            st = set(c, "shared_intermediate_size", LLMMEM_KEY_SHARED_EXPERT_INTERMEDIATE_SIZE, shared);
        if (!st)
            st = moe_on_marked_layers(c, "num_local_experts");
    }
    if (st)
        return st;
    const llmmem__json *types = llmmem__json_object_get(obj, "layer_types");
    if (!types || llmmem__json_is_null(types))
        types = llmmem__json_object_get(obj, "layers_block_type"); /* the attribute_map's other name */
    if (types && !llmmem__json_is_null(types)) {
        if (llmmem__json_is_array(types))
            for (size_t i = 0; i < llmmem__json_array_size(types); i++) {
                const llmmem__json *t = llmmem__json_array_get(types, i);
                char field[48];
                snprintf(field, sizeof field, "layer_types[%zu]", i);
                if (is_text(t) && strcmp(llmmem__json_string_value(t), "mamba") != 0 &&
                    strcmp(llmmem__json_string_value(t), "attention") != 0) /* GraniteMoeHybridConfig raises the same */
                    return unsupported_string(c, field, llmmem__json_string_value(t), "mamba and attention are");
            }
        return read_layer_types(c, types, layers, 0);
    }
    if (layers > LLMMEM_LAYER_MAP_MAX) /* layers_block_type: ["mamba"] * num_hidden_layers */
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "num_hidden_layers", "more than %d layers are not modelled",
                       LLMMEM_LAYER_MAP_MAX);
    llmmem__layer_map map;
    memset(&map, 0, sizeof map);
    for (int64_t i = 0; i < layers; i++)
        llmmem__layer_map_push(&map, LLMMEM_MIXER_SSM);
    llmmem__model_set_layer_map(c->m, &map);
    return LLMMEM_OK;
}

/* A Mamba-1 mixer's fields under JambaConfig's names (Phi4FlashConfig reuses them) and defaults:
 * d_state 16, d_conv 4, expand 2, a biased conv, unbiased projections, dt_rank "auto". */
static const hf_field mamba1_fields[] = {
    OPT("mamba_d_state", LLMMEM_KEY_SSM_STATE_SIZE, 16),
    OPT("mamba_d_conv", LLMMEM_KEY_MAMBA_D_CONV, 4),
    OPT("mamba_expand", LLMMEM_KEY_MAMBA_EXPAND, 2),
    FLAG("mamba_conv_bias", LLMMEM_KEY_MAMBA_CONV_BIAS, 1),
    FLAG("mamba_proj_bias", LLMMEM_KEY_MAMBA_PROJ_BIAS, 0),
};
static llmmem_status read_mamba1_fields(const hf *c, const llmmem__json *obj)
{
    llmmem_status st = read_fields(c, obj, FIELDS(mamba1_fields));
    if (st)
        return st;
    const llmmem__json *rank = llmmem__json_object_get(obj, "mamba_dt_rank");
    if (rank && llmmem__json_is_string(rank) && strcmp(llmmem__json_string_value(rank), "auto") == 0)
        return set(c, "mamba_dt_rank", LLMMEM_KEY_MAMBA_DT_RANK, 0); /* math.ceil(hidden_size / 16), arch.c */
    return optional(c, obj, "mamba_dt_rank", LLMMEM_KEY_MAMBA_DT_RANK, 0, 0);
}

/* JambaConfig's layer pattern (expert_layer_period=2, expert_layer_offset=1, attn_layer_period=8,
 * attn_layer_offset=4) and its Mamba-1 mixers. */
static const hf_field jamba_layout_fields[] = {
    OPT("expert_layer_period", LLMMEM_KEY_EXPERT_LAYER_PERIOD, 2),
    OPT("expert_layer_offset", LLMMEM_KEY_EXPERT_LAYER_OFFSET, 1),
    OPT("attn_layer_period", LLMMEM_KEY_ATTN_LAYER_PERIOD, 8),
    OPT("attn_layer_offset", LLMMEM_KEY_ATTN_LAYER_OFFSET, 4),
    HOOK(read_mamba1_fields),
};

/* JambaConfig (transformers models/jamba/configuration_jamba.py): Mistral-like attention without
 * biases on the layers i % attn_layer_period == attn_layer_offset, JambaMambaMixer (Mamba-1) on the
 * others; JambaSparseMoeBlock (num_experts of intermediate_size, top num_experts_per_tok, an unbiased
 * router) where i % expert_layer_period == expert_layer_offset, JambaMLP elsewhere. */
static llmmem_status read_jamba(const hf *c, const llmmem__json *obj)
{
    llmmem_status st = read_llama_like(c, obj);
    int64_t experts = 16, intermediate = 0, v;
    enum presence p;
    if (st)
        return st;
    const llmmem__json *window = llmmem__json_object_get(obj, "sliding_window");
    if (window && !llmmem__json_is_null(window)) /* JambaFlashAttention2 reads it; the published configs set null */
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "sliding_window", "is not modelled for model_type jamba");
    /* configuration_jamba.py defaults: num_experts=16, num_experts_per_tok=2, expert_layer_period=2,
     * expert_layer_offset=1, attn_layer_period=8, attn_layer_offset=4, mamba_d_state=16, mamba_d_conv=4,
     * mamba_expand=2, mamba_dt_rank="auto", mamba_conv_bias=True, mamba_proj_bias=False */
    if ((st = get_int(c, obj, "num_experts", &v, &p)) != LLMMEM_OK)
        return st;
    if (p == PRESENT)
        experts = v;
    if (experts < 1)
        return hf_fail(c, LLMMEM_ERR_OUT_OF_RANGE, "num_experts", "%lld is below 1", (long long)experts);
    (void)llmmem_model_get_int(&intermediate, c->m, LLMMEM_KEY_INTERMEDIATE_SIZE);
    if (experts > 1) { /* one expert a layer is JambaMLP everywhere (layers_num_experts 1) */
        st = set(c, "num_experts", LLMMEM_KEY_NUM_EXPERTS, experts);
        if (!st)
            st = optional(c, obj, "num_experts_per_tok", LLMMEM_KEY_NUM_EXPERTS_PER_TOK, 2, 2);
        if (!st)
            st = set(c, "intermediate_size", LLMMEM_KEY_MOE_INTERMEDIATE_SIZE, intermediate);
    }
    if (!st)
        st = read_fields(c, obj, FIELDS(jamba_layout_fields));
    if (st)
        return st;
    /* JambaConfig._check_supported_offset: each offset below its period */
    int64_t period = 0, offset = 0;
    (void)llmmem_model_get_int(&period, c->m, LLMMEM_KEY_ATTN_LAYER_PERIOD);
    (void)llmmem_model_get_int(&offset, c->m, LLMMEM_KEY_ATTN_LAYER_OFFSET);
    if (period < 1 || offset >= period)
        return hf_fail(c, LLMMEM_ERR_OUT_OF_RANGE, "attn_layer_offset", "%lld is not below attn_layer_period (%lld)",
                       (long long)offset, (long long)period);
    (void)llmmem_model_get_int(&period, c->m, LLMMEM_KEY_EXPERT_LAYER_PERIOD);
    (void)llmmem_model_get_int(&offset, c->m, LLMMEM_KEY_EXPERT_LAYER_OFFSET);
    if (period < 1 || offset >= period)
        return hf_fail(c, LLMMEM_ERR_OUT_OF_RANGE, "expert_layer_offset", "%lld is not below expert_layer_period "
                       "(%lld)", (long long)offset, (long long)period);
    return LLMMEM_OK;
}

/* FalconH1Config (transformers models/falcon_h1/configuration_falcon_h1.py): llama-like attention
 * (attention_bias, head_dim) and FalconH1MLP (mlp_bias), and in every layer FalconH1Mixer (Mamba-2)
 * of inner width mamba_d_ssm (None: mamba_expand x hidden_size); the *_multiplier fields hold no tensors. */
static llmmem_status read_falcon_h1(const hf *c, const llmmem__json *obj)
{
    llmmem_status st = read_llama_like(c, obj);
    int64_t hidden = 0, inner = 0;
    int proj_bias = 0, projectors = 0;
    enum presence p;
    if (st)
        return st;
    (void)llmmem_model_get_int(&hidden, c->m, LLMMEM_KEY_HIDDEN_SIZE);
    /* configuration_falcon_h1.py defaults: mamba_d_ssm=1024, mamba_n_heads=128, mamba_d_head="auto",
     * mamba_n_groups=1, mamba_d_state=256, mamba_d_conv=4, mamba_expand=2, mamba_conv_bias=True,
     * mamba_proj_bias=False, mamba_rms_norm=False, projectors_bias=False */
    const llmmem__json *ssm = llmmem__json_object_get(obj, "mamba_d_ssm");
    if (ssm && !llmmem__json_is_null(ssm))
        st = get_int(c, obj, "mamba_d_ssm", &inner, &p);
    else if (ssm) /* FalconH1Mixer: int(mamba_expand * hidden_size) when mamba_d_ssm is None */
        st = mamba_expand_width(c, obj, hidden, &inner);
    else
        inner = 1024;
    /* FalconH1Mixer reshapes the inner width to (mamba_n_heads, mamba_d_head) */
    if (!st)
        st = read_hybrid_mamba2(c, obj, inner, "the mixer's inner width");
    if (st)
        return st;
    if ((st = get_bool(c, obj, "mamba_proj_bias", &proj_bias, &p)) != LLMMEM_OK)
        return st;
    if ((st = get_bool(c, obj, "projectors_bias", &projectors, &p)) != LLMMEM_OK)
        return st;
    if (projectors != proj_bias) /* FalconH1Mixer: in_proj biased by mamba_proj_bias, out_proj by projectors_bias */
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "projectors_bias", "differing from mamba_proj_bias is not modelled "
                       "(one key, mamba_proj_bias, biases both Mamba-2 projections)");
    st = set(c, "mamba_proj_bias", LLMMEM_KEY_MAMBA_PROJ_BIAS, proj_bias);
    if (!st)
        st = bool_key(c, obj, "mamba_rms_norm", LLMMEM_KEY_MAMBA_RMS_NORM, 0);
    return st;
}

/* Gemma4TextConfig (transformers models/gemma4/configuration_gemma4.py): Gemma's layers with layer_types (absent:
 * 5 sliding, 1 full; the last layer made full whatever they say), global_head_dim=512 on the full layers,
 * num_global_key_value_heads there with attention_k_eq_v=False, num_kv_shared_layers=0,
 * use_double_wide_mlp=False, hidden_size_per_layer_input=256 of vocab_size_per_layer_input=262144 rows, and
 * with enable_moe_block=False num_experts, top_k_experts and moe_intermediate_size: modular_gemma4.py
 * Gemma4TextDecoderLayer keeps its dense MLP beside the experts (read as their shared expert), adds
 * Gemma4TextRouter's scales and three norms. use_bidirectional_attention "all" makes the window
 * sliding_window // 2 + 1. */
/* configuration_gemma4.py: the full layers take num_global_key_value_heads only with attention_k_eq_v */
static llmmem_status read_gemma4_global_kv_heads(const hf *c, const llmmem__json *obj)
{
    int k_eq_v = 0;
    llmmem_status st = get_flag(c, obj, "attention_k_eq_v", 0, &k_eq_v);
    if (!st && k_eq_v)
        st = optional(c, obj, "num_global_key_value_heads", LLMMEM_KEY_NUM_GLOBAL_KEY_VALUE_HEADS, 0, 0);
    return st;
}

static llmmem_status read_gemma4_text(const hf *c, const llmmem__json *obj)
{
    int64_t layers = 0, window = 0, inter = 0;
    enum presence p;
    int flag;
    llmmem_status st = refuse_if(c, obj, "attention_bias", 1, 0, "Gemma4TextAttention's projections have no biases");
    if (!st)
        st = read_llama_like(c, obj);
    if (st)
        return st;
    (void)llmmem_model_get_int(&layers, c->m, LLMMEM_KEY_NUM_HIDDEN_LAYERS);
    (void)llmmem_model_get_int(&window, c->m, LLMMEM_KEY_SLIDING_WINDOW);
    (void)llmmem_model_get_int(&inter, c->m, LLMMEM_KEY_INTERMEDIATE_SIZE);
    const char *bidirectional = NULL;
    if ((st = get_string(c, obj, "use_bidirectional_attention", &bidirectional, &p)) != LLMMEM_OK)
        return st;
    if (p == PRESENT && strcmp(bidirectional, "all") == 0 &&
        (st = set(c, "use_bidirectional_attention", LLMMEM_KEY_SLIDING_WINDOW, window / 2 + 1)) != LLMMEM_OK)
        return st;
    /* every layer's type, layer by layer: the last one full */
    if (layers > LLMMEM_LAYER_MAP_MAX)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "num_hidden_layers", "more than %d layers are not modelled",
                       LLMMEM_LAYER_MAP_MAX);
    const llmmem__json *types = llmmem__json_object_get(obj, "layer_types");
    llmmem__layer_map map;
    memset(&map, 0, sizeof map);
    for (int64_t i = 0; i < layers; i++) {
        enum llmmem__mixer m = (i + 1) % 6 ? LLMMEM_MIXER_SLIDING : LLMMEM_MIXER_FULL;
        if (types && !llmmem__json_is_null(types)) /* read and checked by read_layer_types */
            m = mixer_at(types, (size_t)i);
        llmmem__layer_map_push(&map, i == layers - 1 ? LLMMEM_MIXER_FULL : m);
    }
    llmmem__model_set_layer_map(c->m, &map);
    static const hf_field fields[] = {
        OPT_NULL("global_head_dim", LLMMEM_KEY_GLOBAL_HEAD_DIM, 512, 0),
        FLAG("attention_k_eq_v", LLMMEM_KEY_ATTENTION_K_EQ_V, 0),
        HOOK(read_gemma4_global_kv_heads),
        OPT_NULL("num_kv_shared_layers", LLMMEM_KEY_NUM_KV_SHARED_LAYERS, 0, 0),
        FLAG("use_double_wide_mlp", LLMMEM_KEY_DOUBLE_WIDE_MLP, 0),
        OPT_NULL("hidden_size_per_layer_input", LLMMEM_KEY_HIDDEN_SIZE_PER_LAYER_INPUT, 256, 0),
        OPT_NULL("vocab_size_per_layer_input", LLMMEM_KEY_VOCAB_SIZE_PER_LAYER_INPUT, 262144, 0),
    };
    /* enable_moe_block: Gemma4TextExperts beside the dense Gemma4TextMLP of every layer */
    static const hf_field moe_fields[] = {
        REQ("num_experts", LLMMEM_KEY_NUM_EXPERTS, CLASS_NONE),
        REQ("top_k_experts", LLMMEM_KEY_NUM_EXPERTS_PER_TOK, CLASS_NONE),
        REQ("moe_intermediate_size", LLMMEM_KEY_MOE_INTERMEDIATE_SIZE, CLASS_NONE),
    };
    st = read_fields(c, obj, FIELDS(fields));
    if (!st)
        st = get_flag(c, obj, "enable_moe_block", 0, &flag);
    if (st || !flag)
        return st;
    st = read_fields(c, obj, FIELDS(moe_fields));
    if (!st)
        st = set(c, "intermediate_size", LLMMEM_KEY_SHARED_EXPERT_INTERMEDIATE_SIZE, inter);
    if (!st)
        st = moe_on_marked_layers(c, "enable_moe_block");
    if (!st)
        st = set(c, "enable_moe_block", LLMMEM_KEY_ROUTER_SCALES, 1);
    if (!st) /* post_feedforward_layernorm_1 and _2, pre_feedforward_layernorm_2 */
        st = set(c, "enable_moe_block", LLMMEM_KEY_NORMS_PER_LAYER, 7);
    return st;
}

/* The per-layer schedules of a DeepseekV4Config (configuration_deepseek_v4.py __post_init__): layer_types, else the
 * legacy compress_ratios (0 sliding, 4 compressed sparse, 128 heavily compressed; entries past the layers are
 * dropped), else 2 heavily compressed layers then compressed sparse and heavily compressed by turns;
 * mlp_layer_types, else num_hash_layers (3) hash_moe layers then moe. */
static llmmem_status read_deepseek_v4_layers(const hf *c, const llmmem__json *obj, int64_t layers)
{
    if (layers > LLMMEM_LAYER_MAP_MAX)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "num_hidden_layers", "more than %d layers are not modelled",
                       LLMMEM_LAYER_MAP_MAX);
    llmmem__layer_map map;
    memset(&map, 0, sizeof map);
    const llmmem__json *types = llmmem__json_object_get(obj, "layer_types"), *ratios = NULL;
    const char *field = "layer_types";
    if (!types || llmmem__json_is_null(types)) {
        types = NULL;
        ratios = llmmem__json_object_get(obj, "compress_ratios");
        field = "compress_ratios";
        if (ratios && llmmem__json_is_null(ratios))
            ratios = NULL;
    }
    const llmmem__json *list = types ? types : ratios;
    if (list && (!llmmem__json_is_array(list) || (int64_t)llmmem__json_array_size(list) < layers))
        return hf_fail(c, LLMMEM_ERR_PARSE, field, "expected an array of at least num_hidden_layers (%lld) entries",
                       (long long)layers);
    for (int64_t i = 0; i < layers; i++) {
        enum llmmem__mixer m = i < 2 || i % 2 == 0 ? LLMMEM_MIXER_HCA : LLMMEM_MIXER_CSA;
        if (list) {
            const llmmem__json *v = llmmem__json_array_get(list, (size_t)i);
            char name[48];
            snprintf(name, sizeof name, "%s[%lld]", field, (long long)i);
            const char *s = types && is_text(v) ? llmmem__json_string_value(v) : "";
            int64_t r = ratios && llmmem__json_is_integer(v) ? llmmem__json_integer_value(v) : -1;
            if (strcmp(s, "sliding_attention") == 0 || r == 0)
                m = LLMMEM_MIXER_SLIDING;
            else if (strcmp(s, "compressed_sparse_attention") == 0 || r == 4)
                m = LLMMEM_MIXER_CSA;
            else if (strcmp(s, "heavily_compressed_attention") == 0 || r == 128)
                m = LLMMEM_MIXER_HCA;
            else
                return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, name, "%s is not a DeepSeek-V4 layer type (%s)", kind(v),
                               types ? "sliding_attention, compressed_sparse_attention and heavily_compressed_attention are"
                                     : "compress ratios 0, 4 and 128 are");
        }
        llmmem__layer_map_push(&map, m);
    }
    const llmmem__json *mlp = llmmem__json_object_get(obj, "mlp_layer_types");
    int64_t hash = 3;
    enum presence p;
    llmmem_status st = get_int(c, obj, "num_hash_layers", &hash, &p);
    if (st)
        return st;
    if (p != PRESENT)
        hash = 3;
    if (mlp && !llmmem__json_is_null(mlp) &&
        (!llmmem__json_is_array(mlp) || (int64_t)llmmem__json_array_size(mlp) < layers))
        return hf_fail(c, LLMMEM_ERR_PARSE, "mlp_layer_types", "expected an array of num_hidden_layers (%lld) entries",
                       (long long)layers);
    for (int64_t i = 0; i < layers; i++) {
        int is_hash = i < hash;
        if (mlp && !llmmem__json_is_null(mlp)) {
            const llmmem__json *v = llmmem__json_array_get(mlp, (size_t)i);
            const char *s = is_text(v) ? llmmem__json_string_value(v) : "";
            is_hash = strcmp(s, "hash_moe") == 0;
            if (!is_hash && strcmp(s, "moe") != 0) {
                char name[48];
                snprintf(name, sizeof name, "mlp_layer_types[%lld]", (long long)i);
                return unsupported_string(c, name, s, "hash_moe and moe are");
            }
        }
        map.ffn[i] = (uint8_t)(1 + (is_hash ? LLMMEM_FFN_HASH_MOE : LLMMEM_FFN_MOE));
    }
    llmmem__model_set_layer_map(c->m, &map);
    return LLMMEM_OK;
}

/* DeepseekV4Config (transformers models/deepseek_v4/configuration_deepseek_v4.py, whose defaults are V4-Flash's,
 * the legacy keys its __post_init__ folds in read too): the shapes, q_lora_rank=1024, head_dim=512, one KV head,
 * o_groups=8 of o_lora_rank=1024, hc_mult=4, compress_rates (or compress_rate_csa / _hca) 4 and 128,
 * index_n_heads=64 of index_head_dim=128, n_routed_experts=256 of moe_intermediate_size=2048, top 6, one shared
 * expert, sliding_window=128, num_nextn_predict_layers=1; expert_dtype "fp4" marks its FP4 experts. */
static const hf_field deepseek_v4_head_fields[] = {
    REQUIRED_SIZES,
    REFUSE("attention_bias", 1, 0, "biased DeepSeek-V4 attention is not modelled"),
    REFUSE("mlp_bias", 1, 0, "biased DeepSeek-V4 experts are not modelled"),
    HOOK(read_tie),
};
static llmmem_status read_deepseek_v4(const hf *c, const llmmem__json *obj)
{
    const char *name;
    enum presence p;
    llmmem_status st = read_fields(c, obj, FIELDS(deepseek_v4_head_fields));
    const int64_t layers = st ? 0 : llmmem__get_int(&c->m->s, LLMMEM_KEY_NUM_HIDDEN_LAYERS);
    int64_t v = 2048;
    if (!st && (st = get_int_alias(c, obj, NAMES("moe_intermediate_size", "intermediate_size"), &v, &p, &name)) == LLMMEM_OK)
        st = set(c, name, LLMMEM_KEY_MOE_INTERMEDIATE_SIZE, p == PRESENT ? v : 2048);
    v = 256;
    if (!st && (st = get_int_alias(c, obj, NAMES("n_routed_experts", "num_local_experts"), &v, &p, &name)) == LLMMEM_OK)
        st = set(c, name, LLMMEM_KEY_NUM_EXPERTS, p == PRESENT ? v : 256);
    static const hf_field fields[] = {
        OPT("num_key_value_heads", LLMMEM_KEY_NUM_KEY_VALUE_HEADS, 1), OPT("head_dim", LLMMEM_KEY_HEAD_DIM, 512),
        OPT("q_lora_rank", LLMMEM_KEY_Q_LORA_RANK, 1024), OPT("num_experts_per_tok", LLMMEM_KEY_NUM_EXPERTS_PER_TOK, 6),
        OPT("n_shared_experts", LLMMEM_KEY_N_SHARED_EXPERTS, 1), OPT("o_groups", LLMMEM_KEY_O_GROUPS, 8),
        OPT("o_lora_rank", LLMMEM_KEY_O_LORA_RANK, 1024), OPT("hc_mult", LLMMEM_KEY_HC_MULT, 4),
        OPT("index_n_heads", LLMMEM_KEY_INDEX_N_HEADS, 64), OPT("index_head_dim", LLMMEM_KEY_INDEX_HEAD_DIM, 128),
        OPT("sliding_window", LLMMEM_KEY_SLIDING_WINDOW, 128),
        OPT("compress_rate_csa", LLMMEM_KEY_COMPRESS_RATE_CSA, 4),
        OPT("compress_rate_hca", LLMMEM_KEY_COMPRESS_RATE_HCA, 128),
        OPT("num_nextn_predict_layers", LLMMEM_KEY_NUM_NEXTN_PREDICT_LAYERS, 1),
        OPT("max_position_embeddings", LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, 1048576),
    };
    if (!st)
        st = read_fields(c, obj, FIELDS(fields));
    const llmmem__json *rates = llmmem__json_object_get(obj, "compress_rates");
    if (!st && rates && llmmem__json_is_object(rates)) {
        hf sub = *c;
        sub.prefix = "compress_rates.";
        st = optional(&sub, rates, "compressed_sparse_attention", LLMMEM_KEY_COMPRESS_RATE_CSA, LEAVE, LEAVE);
        if (!st)
            st = optional(&sub, rates, "heavily_compressed_attention", LLMMEM_KEY_COMPRESS_RATE_HCA, LEAVE, LEAVE);
    }
    if (!st) /* the experts' e_score_correction_bias exists on the moe layers; first_k_dense_replace none */
        st = moe_on_marked_layers(c, "mlp_layer_types");
    if (!st)
        st = read_deepseek_v4_layers(c, obj, layers);
    const char *experts = NULL;
    if (!st)
        st = get_string(c, obj, "expert_dtype", &experts, &p);
    if (!st && p == PRESENT && strcmp(experts, "fp4") == 0)
        st = set(c, "expert_dtype", LLMMEM_KEY_EXPERTS_FP4, 1);
    return st;
}

/* KimiLinearConfig (moonshotai/Kimi-Linear configuration_kimi.py): DeepSeek-V3's MLA fields (q_lora_rank null: a
 * full-rank q_proj; mla_use_nope drops RoPE, not a tensor), its MoE as num_experts, num_experts_per_token,
 * num_shared_experts, moe_intermediate_size, first_k_dense_replace, moe_layer_freq; linear_attn_config: num_heads
 * of head_dim, short_conv_kernel_size, and the 1-indexed kda_layers and full_attn_layers. */
static const hf_field kimi_linear_fields[] = {
    REQUIRED_SIZES,
    REQ("intermediate_size", LLMMEM_KEY_INTERMEDIATE_SIZE, CLASS_NONE),
    REQ("kv_lora_rank", LLMMEM_KEY_KV_LORA_RANK, CLASS_NONE),
    REQ("qk_rope_head_dim", LLMMEM_KEY_QK_ROPE_HEAD_DIM, CLASS_NONE),
    REQ("qk_nope_head_dim", LLMMEM_KEY_QK_NOPE_HEAD_DIM, CLASS_NONE),
    REQ("v_head_dim", LLMMEM_KEY_V_HEAD_DIM, CLASS_NONE),
    OPT("q_lora_rank", LLMMEM_KEY_Q_LORA_RANK, 0),
    HOOK(read_tie),
    OPT("max_position_embeddings", LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, LEAVE),
    OPT("num_nextn_predict_layers", LLMMEM_KEY_NUM_NEXTN_PREDICT_LAYERS, 0),
    REQ("num_experts", LLMMEM_KEY_NUM_EXPERTS, CLASS_NONE),
    REQ_ALIASES(LLMMEM_KEY_NUM_EXPERTS_PER_TOK, CLASS_NONE, "num_experts_per_token", "num_experts_per_tok"),
    REQ("moe_intermediate_size", LLMMEM_KEY_MOE_INTERMEDIATE_SIZE, CLASS_NONE),
    OPT("num_shared_experts", LLMMEM_KEY_N_SHARED_EXPERTS, 0),
    OPT("first_k_dense_replace", LLMMEM_KEY_FIRST_K_DENSE_REPLACE, 0),
    OPT("moe_layer_freq", LLMMEM_KEY_MOE_LAYER_FREQ, 1),
    /* Kimi K3's text_config (Megatron-Bridge kimi_k3_bridge.py provider_bridge, kimi_k3_layers.py): the routed
     * experts at routed_expert_hidden_size between routed_expert_down_proj and routed_expert_up_proj, with
     * routed_expert_norm when latent_moe_use_norm; the MLA layers' g_proj gate (mla_use_output_gate); the AttnRes
     * banks of attn_res_block_size layers. Absent in Kimi-Linear's: none of them. */
    OPT("routed_expert_hidden_size", LLMMEM_KEY_MOE_LATENT_SIZE, 0),
    FLAG("latent_moe_use_norm", LLMMEM_KEY_MOE_LATENT_NORM, 0),
    FLAG("mla_use_output_gate", LLMMEM_KEY_ATTN_OUTPUT_GATE, 0),
    OPT("attn_res_block_size", LLMMEM_KEY_ATTN_RES_BLOCK_SIZE, 0),
};

/* linear_attn_config: num_heads of head_dim (key and value heads alike), short_conv_kernel_size, and K3's
 * use_full_rank_gate (Megatron-Bridge kimi_k3_layers.py _init_kda: g_proj hidden -> heads x head_dim). */
static const hf_field kda_fields[] = {
    REQ("num_heads", LLMMEM_KEY_LINEAR_NUM_KEY_HEADS, CLASS_NONE),
    REQ("head_dim", LLMMEM_KEY_LINEAR_KEY_HEAD_DIM, CLASS_NONE),
    OPT("short_conv_kernel_size", LLMMEM_KEY_LINEAR_CONV_KERNEL_DIM, 4),
    FLAG("use_full_rank_gate", LLMMEM_KEY_LINEAR_FULL_RANK_GATE, 0),
};

static llmmem_status read_kimi_linear(const hf *c, const llmmem__json *obj)
{
    llmmem_status st = read_fields(c, obj, FIELDS(kimi_linear_fields));
    if (st)
        return st;
    const int64_t layers = llmmem__get_int(&c->m->s, LLMMEM_KEY_NUM_HIDDEN_LAYERS);
    const llmmem__json *la = llmmem__json_object_get(obj, "linear_attn_config");
    if (!la || !llmmem__json_is_object(la))
        return hf_fail(c, la ? LLMMEM_ERR_PARSE : LLMMEM_ERR_INCOMPLETE, "linear_attn_config",
                       la ? "expected an object, got %s" : "is missing%s", la ? kind(la) : "");
    hf sub = *c;
    sub.prefix = "linear_attn_config.";
    st = read_fields(&sub, la, FIELDS(kda_fields));
    if (!st)
        st = set(&sub, "num_heads", LLMMEM_KEY_LINEAR_NUM_VALUE_HEADS,
                 llmmem__get_int(&c->m->s, LLMMEM_KEY_LINEAR_NUM_KEY_HEADS));
    if (!st)
        st = set(&sub, "head_dim", LLMMEM_KEY_LINEAR_VALUE_HEAD_DIM,
                 llmmem__get_int(&c->m->s, LLMMEM_KEY_LINEAR_KEY_HEAD_DIM));
    if (st)
        return st;
    /* K3's checkpoint pads A_log and keeps its convolutions and o_norm in float32, which Kimi-Linear's does not:
     * the text model alone would be counted by Kimi-Linear's storage */
    const int64_t banks = llmmem__get_int(&c->m->s, LLMMEM_KEY_ATTN_RES_BLOCK_SIZE);
    if (banks && c->fam->type != LLMMEM_MODEL_KIMI_K3)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "attn_res_block_size",
                       "%lld: Kimi K3's text model alone is not modelled as kimi_linear (its checkpoint pads A_log "
                       "and stores its convolutions and o_norm in float32); read its kimi_k3 config.json, this one "
                       "its text_config",
                       (long long)banks);
    if (layers > LLMMEM_LAYER_MAP_MAX)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "num_hidden_layers", "more than %d layers are not modelled",
                       LLMMEM_LAYER_MAP_MAX);
    llmmem__layer_map map;
    memset(&map, 0, sizeof map);
    map.layers = (uint64_t)layers;
    uint8_t seen[LLMMEM_LAYER_MAP_MAX] = {0};
    static const char *const lists[2] = {"kda_layers", "full_attn_layers"};
    for (unsigned k = 0; k < 2; k++) {
        const llmmem__json *list = llmmem__json_object_get(la, lists[k]);
        if (!list || !llmmem__json_is_array(list))
            return hf_fail(&sub, list ? LLMMEM_ERR_PARSE : LLMMEM_ERR_INCOMPLETE, lists[k],
                           list ? "expected an array, got %s" : "is missing%s", list ? kind(list) : "");
        for (size_t i = 0; i < llmmem__json_array_size(list); i++) {
            const llmmem__json *v = llmmem__json_array_get(list, i);
            int64_t at = llmmem__json_is_integer(v) ? llmmem__json_integer_value(v) : 0;
            char field[48];
            snprintf(field, sizeof field, "%s[%zu]", lists[k], i);
            if (at < 1 || at > layers || seen[at - 1])
                return hf_fail(&sub, LLMMEM_ERR_INCOMPATIBLE, field, "is not a layer number 1 to %lld named once",
                               (long long)layers);
            seen[at - 1] = 1;
            map.mixer[at - 1] = (uint8_t)(k == 0 ? LLMMEM_MIXER_LINEAR : LLMMEM_MIXER_FULL);
        }
    }
    for (int64_t i = 0; i < layers; i++)
        if (!seen[i])
            return hf_fail(&sub, LLMMEM_ERR_INCOMPATIBLE, "kda_layers",
                           "neither it nor full_attn_layers names layer %lld", (long long)i + 1);
    llmmem__model_set_layer_map(c->m, &map);
    return LLMMEM_OK;
}

/* DeciLMConfig (Nemotron-NAS): Llama's fields and block_configs, one per layer: attention {no_op,
 * replace_with_linear, n_heads_in_group: num_attention_heads / KV heads} and ffn {no_op, replace_with_linear,
 * ffn_mult: the gated MLP's width find_multiple(int(2 x ffn_mult x hidden_size / 3), 256), vLLM nemotron_nas.py
 * _ffn_mult_to_intermediate_size}; the attention's sink, window and sparsity options are refused. */
static const hf_field nemotron_nas_fields[] = {
    REQUIRED_SIZES,
    OPT("max_position_embeddings", LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, LEAVE),
    HOOK(read_tie),
    REFUSE("attention_bias", 1, 0, "biased Nemotron-NAS attention is not modelled"),
    REFUSE("mlp_bias", 1, 0, "biased Nemotron-NAS MLPs are not modelled"),
};

static llmmem_status read_nemotron_nas(const hf *c, const llmmem__json *obj)
{
    llmmem_status st = read_fields(c, obj, FIELDS(nemotron_nas_fields));
    if (st)
        return st;
    const int64_t hidden = llmmem__get_int(&c->m->s, LLMMEM_KEY_HIDDEN_SIZE);
    const int64_t layers = llmmem__get_int(&c->m->s, LLMMEM_KEY_NUM_HIDDEN_LAYERS);
    const int64_t heads = llmmem__get_int(&c->m->s, LLMMEM_KEY_NUM_ATTENTION_HEADS);
    const llmmem__json *blocks = llmmem__json_object_get(obj, "block_configs");
    if (!blocks || !llmmem__json_is_array(blocks) || (int64_t)llmmem__json_array_size(blocks) != layers)
        return hf_fail(c, blocks ? LLMMEM_ERR_INCOMPATIBLE : LLMMEM_ERR_INCOMPLETE, "block_configs",
                       "must list one block for each of the %lld layers", (long long)layers);
    if (layers > LLMMEM_LAYER_MAP_MAX || heads <= 0 || hidden % heads)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "block_configs", "%lld layers of %lld heads are not modelled",
                       (long long)layers, (long long)heads);
    llmmem__layer_map map;
    memset(&map, 0, sizeof map);
    for (int64_t i = 0; i < layers; i++) {
        const llmmem__json *blk = llmmem__json_array_get(blocks, (size_t)i);
        const llmmem__json *attn = llmmem__json_object_get(blk, "attention"), *ffn = llmmem__json_object_get(blk, "ffn");
        char prefix[64];
        snprintf(prefix, sizeof prefix, "block_configs[%lld].", (long long)i);
        hf sub = *c;
        sub.prefix = prefix;
        if (!llmmem__json_is_object(attn) || !llmmem__json_is_object(ffn))
            return hf_fail(&sub, LLMMEM_ERR_PARSE, "attention", "expected attention and ffn objects");
        struct llmmem__block shape = {0, 0, 0, 0};
        int attn_none, attn_linear, ffn_none, ffn_linear;
        static const char *const unmodelled[] = {"num_sink_tokens", "sparsify", "window_length", NULL};
        for (size_t k = 0; unmodelled[k]; k++) {
            const llmmem__json *v = llmmem__json_object_get(attn, unmodelled[k]);
            if (v && !llmmem__json_is_null(v))
                return hf_fail(&sub, LLMMEM_ERR_UNSUPPORTED, unmodelled[k], "is set: attention sinks, windows and "
                               "sparsity in a block are not modelled");
        }
        const llmmem__json *sparse = llmmem__json_object_get(ffn, "sparsify");
        if (sparse && !llmmem__json_is_null(sparse))
            return hf_fail(&sub, LLMMEM_ERR_UNSUPPORTED, "ffn.sparsify", "is set: a sparsified MLP is not modelled");
        if ((st = get_flag(&sub, attn, "no_op", 0, &attn_none)) || (st = get_flag(&sub, attn, "replace_with_linear", 0, &attn_linear)) ||
            (st = get_flag(&sub, ffn, "no_op", 0, &ffn_none)) || (st = get_flag(&sub, ffn, "replace_with_linear", 0, &ffn_linear)))
            return st;
        if (!attn_none && !attn_linear) {
            int64_t group = 0;
            enum presence p;
            if ((st = get_int(&sub, attn, "n_heads_in_group", &group, &p)) != LLMMEM_OK)
                return st;
            if (p != PRESENT || group <= 0 || heads % group)
                return hf_fail(&sub, LLMMEM_ERR_INCOMPATIBLE, "attention.n_heads_in_group",
                               "must divide num_attention_heads (%lld)", (long long)heads);
            shape.kv_heads = (uint64_t)(heads / group);
        }
        if (!ffn_none && !ffn_linear) {
            const llmmem__json *mult = llmmem__json_object_get(ffn, "ffn_mult");
            double m = mult && llmmem__json_is_number(mult) ? llmmem__json_number_value(mult) : -1.0;
            if (!(m > 0.0 && m < 1e6))
                return hf_fail(&sub, LLMMEM_ERR_PARSE, "ffn.ffn_mult", "expected a positive number");
            uint64_t width = (uint64_t)(2.0 * m * (double)hidden / 3.0);
            shape.ffn = llmmem__ceil_div(width, 256) * 256;
        }
        shape.attn_linear = (uint8_t)(attn_linear && !attn_none);
        shape.ffn_linear = (uint8_t)(ffn_linear && !ffn_none);
        unsigned k = 0;
        while (k < map.nblocks &&
               (map.blocks[k].kv_heads != shape.kv_heads || map.blocks[k].ffn != shape.ffn ||
                map.blocks[k].attn_linear != shape.attn_linear || map.blocks[k].ffn_linear != shape.ffn_linear))
            k++;
        if (k == LLMMEM_LAYER_KINDS_MAX)
            return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "block_configs", "more than %d distinct blocks are not modelled",
                           LLMMEM_LAYER_KINDS_MAX);
        if (k == map.nblocks)
            map.blocks[map.nblocks++] = shape;
        llmmem__layer_map_push(&map, shape.kv_heads ? LLMMEM_MIXER_FULL : LLMMEM_MIXER_NONE);
        map.ffn[i] = (uint8_t)(1 + (shape.ffn ? LLMMEM_FFN_DENSE : LLMMEM_FFN_NONE));
        map.block[i] = (uint8_t)(k + 1);
    }
    llmmem__model_set_layer_map(c->m, &map);
    return LLMMEM_OK;
}

static const hf_field lfm2_fields[] = {
    REQUIRED_SIZES,
    HOOK(read_kv_heads),
    OPT_NULL("max_position_embeddings", LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, 128000, LEAVE),
};

/* Lfm2Config (transformers models/lfm2/configuration_lfm2.py; its original keys block_ff_dim, tie_embedding accepted):
 * the gated MLP's width, with block_auto_adjust_ff_dim, is block_ffn_dim_multiplier x int(2 x intermediate_size /
 * 3) rounded up to block_multiple_of (Lfm2MLP); conv_bias=False, conv_L_cache=3; layer_types ("full_attention",
 * "conv") or full_attn_idxs give the attention layers, the rest short convolutions. */
static llmmem_status read_lfm2(const hf *c, const llmmem__json *obj)
{
    int64_t ff = 0, multiple = 256;
    enum presence p;
    const char *name;
    llmmem_status st = read_fields(c, obj, FIELDS(lfm2_fields));
    const int64_t layers = llmmem__get_int(&c->m->s, LLMMEM_KEY_NUM_HIDDEN_LAYERS);
    int tie = 1;
    if (!st && (st = get_flag(c, obj, llmmem__json_object_get(obj, "tie_embedding") ? "tie_embedding"
                                                                                      : "tie_word_embeddings", 1, &tie)) == LLMMEM_OK)
        st = set(c, "tie_word_embeddings", LLMMEM_KEY_TIE_WORD_EMBEDDINGS, tie);
    if (!st)
        st = get_int_alias(c, obj, NAMES("intermediate_size", "block_ff_dim"), &ff, &p, &name);
    if (!st && p != PRESENT)
        st = hf_fail(c, LLMMEM_ERR_INCOMPLETE, name, "is missing (required for model_type %s)", c->type);
    int adjust = 1;
    if (!st)
        st = get_flag(c, obj, "block_auto_adjust_ff_dim", 1, &adjust);
    if (!st)
        st = get_int_or(c, obj, "block_multiple_of", 256, &multiple);
    if (st)
        return st;
    if (adjust) {
        const llmmem__json *mult = llmmem__json_object_get(obj, "block_ffn_dim_multiplier");
        double m = mult && llmmem__json_is_number(mult) ? llmmem__json_number_value(mult) : 1.0;
        /* the width as given is within the key's bounds first: 2 x ff x m below 2^31, no overflow below */
        if ((st = set(c, name, LLMMEM_KEY_INTERMEDIATE_SIZE, ff)) != LLMMEM_OK)
            return st;
        if (multiple <= 0 || multiple > (1LL << 24))
            return hf_fail(c, LLMMEM_ERR_OUT_OF_RANGE, "block_multiple_of", "%lld is out of range [1, 16777216]",
                           (long long)multiple);
        if (!(m > 0.0 && m < 64.0))
            return hf_fail(c, LLMMEM_ERR_OUT_OF_RANGE, "block_ffn_dim_multiplier", "is out of range (0, 64)");
        ff = (int64_t)(m * (double)(2 * ff / 3));
        ff = (ff + multiple - 1) / multiple * multiple;
    }
    st = set(c, name, LLMMEM_KEY_INTERMEDIATE_SIZE, ff);
    if (!st)
        st = bool_key(c, obj, "conv_bias", LLMMEM_KEY_CONV_BIAS, 0);
    if (!st)
        st = optional(c, obj, "conv_L_cache", LLMMEM_KEY_CONV_L_CACHE, 3, 3);
    if (st)
        return st;
    if (layers > LLMMEM_LAYER_MAP_MAX)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "num_hidden_layers", "more than %d layers are not modelled",
                       LLMMEM_LAYER_MAP_MAX);
    llmmem__layer_map map;
    memset(&map, 0, sizeof map);
    for (int64_t i = 0; i < layers; i++)
        llmmem__layer_map_push(&map, LLMMEM_MIXER_SHORT_CONV);
    const llmmem__json *types = llmmem__json_object_get(obj, "layer_types");
    const llmmem__json *idxs = llmmem__json_object_get(obj, "full_attn_idxs");
    if (types && !llmmem__json_is_null(types)) {
        if (!llmmem__json_is_array(types) || (int64_t)llmmem__json_array_size(types) != layers)
            return hf_fail(c, LLMMEM_ERR_INCOMPATIBLE, "layer_types", "must have num_hidden_layers entries");
        for (int64_t i = 0; i < layers; i++) {
            const llmmem__json *t = llmmem__json_array_get(types, (size_t)i);
            const char *s = is_text(t) ? llmmem__json_string_value(t) : "";
            if (strcmp(s, "full_attention") == 0)
                map.mixer[i] = LLMMEM_MIXER_FULL;
            else if (strcmp(s, "conv") != 0)
                return unsupported_string(c, "layer_types", s, "full_attention and conv are");
        }
    } else if (idxs && llmmem__json_is_array(idxs)) {
        for (size_t i = 0; i < llmmem__json_array_size(idxs); i++) {
            const llmmem__json *v = llmmem__json_array_get(idxs, i);
            int64_t at = llmmem__json_is_integer(v) ? llmmem__json_integer_value(v) : -1;
            if (at < 0 || at >= layers)
                return hf_fail(c, LLMMEM_ERR_INCOMPATIBLE, "full_attn_idxs", "entry %zu is not a layer index", i);
            map.mixer[at] = LLMMEM_MIXER_FULL;
        }
    } else {
        return hf_fail(c, LLMMEM_ERR_INCOMPLETE, "layer_types", "and full_attn_idxs are missing (one is required)");
    }
    llmmem__model_set_layer_map(c->m, &map);
    return LLMMEM_OK;
}

/* MiMoV2FlashConfig: full-attention layers of num_attention_heads, num_key_value_heads of head_dim (values
 * v_head_dim wide), sliding ones of the swa_* fields (the same heads and widths modelled, their own KV heads), a
 * sink per head where add_swa_ / add_full_attention_sink_bias say, q/k norms with use_qk_norm; hybrid_layer_pattern
 * (1: sliding) and moe_layer_freq (1: MoE of n_routed_experts, else a dense MLP of intermediate_size) per layer. */
static const hf_field mimo_v2_fields[] = {
    REQUIRED_SIZES,
    REQ("intermediate_size", LLMMEM_KEY_INTERMEDIATE_SIZE, CLASS_NONE),
    REQ("head_dim", LLMMEM_KEY_HEAD_DIM, CLASS_NONE),
    REQ("v_head_dim", LLMMEM_KEY_V_HEAD_DIM, CLASS_NONE),
    REQ("num_key_value_heads", LLMMEM_KEY_NUM_GLOBAL_KEY_VALUE_HEADS, CLASS_NONE),
    OPT("swa_num_key_value_heads", LLMMEM_KEY_NUM_KEY_VALUE_HEADS, 8),
    OPT_NULL("max_position_embeddings", LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, 262144, LEAVE),
    HOOK(read_tie),
    REFUSE("attention_bias", 1, 0, "biased MiMo-V2 attention is not modelled"),
    FLAG("use_qk_norm", LLMMEM_KEY_QK_NORM, 0),
    FLAG("add_swa_attention_sink_bias", LLMMEM_KEY_ATTENTION_SINKS, 1),
    FLAG("add_full_attention_sink_bias", LLMMEM_KEY_FULL_ATTENTION_SINKS, 0),
    OPT("num_nextn_predict_layers", LLMMEM_KEY_NUM_NEXTN_PREDICT_LAYERS, 0),
};

static llmmem_status read_mimo_v2(const hf *c, const llmmem__json *obj)
{
    int64_t v;
    enum presence p;
    llmmem_status st = read_fields(c, obj, FIELDS(mimo_v2_fields));
    const int64_t layers = llmmem__get_int(&c->m->s, LLMMEM_KEY_NUM_HIDDEN_LAYERS);
    const int64_t heads = llmmem__get_int(&c->m->s, LLMMEM_KEY_NUM_ATTENTION_HEADS);
    const int64_t d = llmmem__get_int(&c->m->s, LLMMEM_KEY_HEAD_DIM);
    const int64_t dv = llmmem__get_int(&c->m->s, LLMMEM_KEY_V_HEAD_DIM);
    static const struct {
        const char *field;
        int64_t dflt;
        const char *as;
    } swa[3] = {{"swa_num_attention_heads", 64, "num_attention_heads"},
                {"swa_head_dim", 192, "head_dim"},
                {"swa_v_head_dim", 128, "v_head_dim"}};
    const int64_t want[3] = {heads, d, dv};
    for (unsigned i = 0; !st && i < 3; i++) {
        v = swa[i].dflt;
        if ((st = get_int(c, obj, swa[i].field, &v, &p)) == LLMMEM_OK && p == PRESENT && v != want[i])
            return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, swa[i].field, "%lld differs from %s (%lld): sliding layers of "
                           "other head counts or widths are not modelled", (long long)v, swa[i].as, (long long)want[i]);
    }
    v = 128;
    const char *name;
    if (!st && (st = get_int_alias(c, obj, NAMES("sliding_window", "sliding_window_size"), &v, &p, &name)) == LLMMEM_OK)
        st = set(c, name, LLMMEM_KEY_SLIDING_WINDOW, p == PRESENT ? v : 128);
    int64_t experts = 256;
    if (!st && (st = get_int(c, obj, "n_routed_experts", &experts, &p)) == LLMMEM_OK)
        st = set(c, "n_routed_experts", LLMMEM_KEY_NUM_EXPERTS, p == PRESENT ? experts : p == IS_NULL ? 0 : 256);
    if (!st)
        st = optional(c, obj, "num_experts_per_tok", LLMMEM_KEY_NUM_EXPERTS_PER_TOK, 8, 8);
    if (!st)
        st = required(c, obj, NAMES("moe_intermediate_size"), LLMMEM_KEY_MOE_INTERMEDIATE_SIZE, CLASS_NONE, NULL);
    if (!st)
        st = optional(c, obj, "n_shared_experts", LLMMEM_KEY_N_SHARED_EXPERTS, 0, 0);
    if (st)
        return st;
    if (layers > LLMMEM_LAYER_MAP_MAX)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "num_hidden_layers", "more than %d layers are not modelled",
                       LLMMEM_LAYER_MAP_MAX);
    const llmmem__json *pattern = llmmem__json_object_get(obj, "hybrid_layer_pattern");
    const llmmem__json *freq = llmmem__json_object_get(obj, "moe_layer_freq");
    if (!pattern || !llmmem__json_is_array(pattern) || (int64_t)llmmem__json_array_size(pattern) != layers ||
        !freq || !llmmem__json_is_array(freq) || (int64_t)llmmem__json_array_size(freq) != layers)
        return hf_fail(c, LLMMEM_ERR_INCOMPLETE, "hybrid_layer_pattern",
                       "and moe_layer_freq must each list num_hidden_layers (%lld) entries", (long long)layers);
    llmmem__layer_map map;
    memset(&map, 0, sizeof map);
    for (int64_t i = 0; i < layers; i++) {
        const llmmem__json *a = llmmem__json_array_get(pattern, (size_t)i), *f = llmmem__json_array_get(freq, (size_t)i);
        int64_t sliding = llmmem__json_is_integer(a) ? llmmem__json_integer_value(a) : -1;
        int64_t moe = llmmem__json_is_integer(f) ? llmmem__json_integer_value(f) : -1;
        if (sliding < 0 || sliding > 1 || moe < 0 || moe > 1 || (moe && experts == 0))
            return hf_fail(c, LLMMEM_ERR_PARSE, "hybrid_layer_pattern", "entry %lld (or moe_layer_freq's) is not 0 or 1",
                           (long long)i);
        llmmem__layer_map_push(&map, sliding ? LLMMEM_MIXER_SLIDING : LLMMEM_MIXER_FULL);
        map.ffn[i] = (uint8_t)(1 + (moe ? LLMMEM_FFN_MOE : LLMMEM_FFN_DENSE));
    }
    llmmem__model_set_layer_map(c->m, &map);
    return moe_on_marked_layers(c, "moe_layer_freq");
}

/* An integer that a config gives once or per layer (HunYuanMoEV1Config num_experts, moe_topk: "int or List"):
 * absent or null, dflt; a list of one value, that value; a list of differing values is refused. */
static llmmem_status uniform_int(const hf *c, const llmmem__json *obj, const char *field, int64_t dflt, int64_t *out)
{
    const llmmem__json *v = llmmem__json_object_get(obj, field);
    *out = dflt;
    if (!v || llmmem__json_is_null(v))
        return LLMMEM_OK;
    if (llmmem__json_is_integer(v)) {
        *out = llmmem__json_integer_value(v);
        return LLMMEM_OK;
    }
    if (!llmmem__json_is_array(v) || llmmem__json_array_size(v) == 0)
        return hf_fail(c, LLMMEM_ERR_PARSE, field, "expected an integer or a list of integers, got %s", kind(v));
    for (size_t i = 0; i < llmmem__json_array_size(v); i++) {
        const llmmem__json *e = llmmem__json_array_get(v, i);
        if (!llmmem__json_is_integer(e))
            return hf_fail(c, LLMMEM_ERR_PARSE, field, "entry %zu: expected an integer, got %s", i, kind(e));
        if (i == 0)
            *out = llmmem__json_integer_value(e);
        else if (llmmem__json_integer_value(e) != *out)
            return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, field, "entry %zu is %lld where entry 0 is %lld: per-layer "
                           "values are not modelled", i, (long long)llmmem__json_integer_value(e), (long long)*out);
    }
    return LLMMEM_OK;
}

static const hf_field hunyuan_fields[] = {
    HOOK(read_llama_like),
    REFUSE("use_cla", 1, 0, "cross-layer KV sharing (cla_share_factor) is not modelled"),
    REFUSE("use_mla", 1, 0, "Hunyuan's latent attention is not modelled"),
};

/* HunYuanDenseV1Config and HunYuanMoEV1Config: Llama's fields. The MoE (modeling_hunyuan_v1_moe.py HunYuanMoE) has
 * on every layer num_experts experts and, with use_mixed_mlp_moe, one shared_mlp, each a HunYuanMoEV1MLP of
 * intermediate_size, and a gate of moe_topk; the published configs' moe_intermediate_size and num_shared_expert
 * lists are accepted where they agree with that. Cross-layer attention (use_cla) and MLA are not in transformers'
 * classes: refused. */
static llmmem_status read_hunyuan(const hf *c, const llmmem__json *obj)
{
    llmmem_status st = read_fields(c, obj, FIELDS(hunyuan_fields));
    if (st || c->fam->type != LLMMEM_MODEL_HUNYUAN_V1_MOE)
        return st;
    int64_t intermediate = 0, experts = 1, top_k = 1, width = 0, shared = 1;
    int mixed = 0;
    st = llmmem_model_get_int(&intermediate, c->m, LLMMEM_KEY_INTERMEDIATE_SIZE);
    if (!st)
        st = uniform_int(c, obj, "num_experts", 1, &experts);
    if (!st)
        st = uniform_int(c, obj, "moe_topk", 1, &top_k);
    if (!st)
        st = uniform_int(c, obj, "moe_intermediate_size", intermediate, &width);
    if (!st)
        st = uniform_int(c, obj, "num_shared_expert", 1, &shared);
    if (!st)
        st = get_flag(c, obj, "use_mixed_mlp_moe", 0, &mixed);
    if (st)
        return st;
    if (width != intermediate)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "moe_intermediate_size", "%lld differs from intermediate_size "
                       "(%lld): transformers' HunYuanMoEV1MLP experts are intermediate_size wide", (long long)width,
                       (long long)intermediate);
    if (mixed && shared != 1)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "num_shared_expert", "%lld: transformers builds one shared_mlp of "
                       "intermediate_size, vLLM one of intermediate_size x num_shared_expert", (long long)shared);
    if (experts == 0)
        return hf_fail(c, LLMMEM_ERR_OUT_OF_RANGE, "num_experts", "0 experts: every hunyuan_v1_moe layer routes to at "
                       "least 1 expert");
    st = set(c, "num_experts", LLMMEM_KEY_NUM_EXPERTS, experts);
    if (!st)
        st = set(c, "moe_topk", LLMMEM_KEY_NUM_EXPERTS_PER_TOK, top_k);
    if (!st)
        st = set(c, "intermediate_size", LLMMEM_KEY_MOE_INTERMEDIATE_SIZE, intermediate);
    if (!st)
        st = set(c, "use_mixed_mlp_moe", LLMMEM_KEY_N_SHARED_EXPERTS, mixed);
    return st ? st : moe_on_marked_layers(c, "num_experts");
}

/* Phi4FlashConfig with modeling_phi4flash.py's SambaY layer plan (remote code; vllm model_executor/models/phi4flash.py
 * reads the same): layer i is a Mamba-1 mixer when i % mb_per_layer == 0, else attention. The first half's
 * attention layers slide over sliding_window tokens; layer num_hidden_layers / 2 + 1 attends over every token and
 * keeps the one full cache (SambaYCache global_attn_idx), which the attention layers after it read (yoco_cross: no
 * k and v); the Mamba layers after it are gated memory units (yoco_cross _Phi3Mamba: in_proj and out_proj alone),
 * kept as feed-forward-only layers here (they keep nothing across tokens; add_gated_memory_units). SambaYCache
 * places the states by layer parity: mb_per_layer other than 2 is refused. */
static llmmem_status read_phi4flash(const hf *c, const llmmem__json *obj)
{
    int64_t layers = 0, mb = 2, window = 2047;
    llmmem_status st = read_llama_like(c, obj);
    if (!st)
        st = llmmem_model_get_int(&layers, c->m, LLMMEM_KEY_NUM_HIDDEN_LAYERS);
    if (!st)
        st = get_int_or(c, obj, "mb_per_layer", 2, &mb);
    if (!st)
        st = get_int_or(c, obj, "sliding_window", 2047, &window);
    if (!st)
        st = set(c, "sliding_window", LLMMEM_KEY_SLIDING_WINDOW, window);
    if (!st)
        st = read_mamba1_fields(c, obj);
    if (st)
        return st;
    if (mb != 2)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "mb_per_layer", "%lld: SambaYCache keeps the Mamba states on even "
                       "layers and attention on odd ones (2)", (long long)mb);
    if (layers < 4 || layers % 4 != 0 || layers > LLMMEM_LAYER_MAP_MAX)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "num_hidden_layers", "%lld: the SambaY plan needs a multiple of 4 "
                       "(an odd full-attention layer at num_hidden_layers / 2 + 1), at most %d", (long long)layers,
                       LLMMEM_LAYER_MAP_MAX);
    if (window <= 0)
        return hf_fail(c, LLMMEM_ERR_OUT_OF_RANGE, "sliding_window", "%lld: the first half's attention layers slide",
                       (long long)window);
    llmmem__layer_map map;
    memset(&map, 0, sizeof map);
    const int64_t full = layers / 2 + 1;
    for (int64_t i = 0; i < layers; i++) {
        enum llmmem__mixer mixer = i % 2 == 0 ? (i > full ? LLMMEM_MIXER_NONE : LLMMEM_MIXER_MAMBA1)
                                   : i < full ? LLMMEM_MIXER_SLIDING
                                   : i == full ? LLMMEM_MIXER_FULL
                                               : LLMMEM_MIXER_FULL_SHARED;
        llmmem__layer_map_push(&map, mixer);
        map.ffn[i] = 1 + LLMMEM_FFN_DENSE;
    }
    llmmem__model_set_layer_map(c->m, &map);
    return LLMMEM_OK;
}

/* Step-3.5-Flash's moe_layers_enum: vLLM step3p5.py Step3p5DecoderLayer parses a string of comma-separated layer
 * indices, the config class (Megatron-Bridge configuration_step35.py) defaults to the tuple 3..44; either form is
 * read, and layers >= num_hidden_layers ignored as both do. moe[i] is set for each listed layer. */
static llmmem_status read_step3p5_moe_layers(const hf *c, const llmmem__json *obj, int64_t layers, uint8_t *moe)
{
    const llmmem__json *v = llmmem__json_object_get(obj, "moe_layers_enum");
    if (!v || llmmem__json_is_null(v)) {
        for (int64_t i = 3; i < 45 && i < layers; i++)
            moe[i] = 1;
        return LLMMEM_OK;
    }
    if (llmmem__json_is_array(v)) {
        for (size_t i = 0; i < llmmem__json_array_size(v); i++) {
            const llmmem__json *e = llmmem__json_array_get(v, i);
            if (!llmmem__json_is_integer(e) || llmmem__json_integer_value(e) < 0)
                return hf_fail(c, LLMMEM_ERR_PARSE, "moe_layers_enum", "entry %zu: expected a layer index, got %s", i,
                               kind(e));
            if (llmmem__json_integer_value(e) < layers)
                moe[llmmem__json_integer_value(e)] = 1;
        }
        return LLMMEM_OK;
    }
    if (!is_text(v))
        return hf_fail(c, LLMMEM_ERR_PARSE, "moe_layers_enum", "expected a string or a list of layer indices, got %s",
                       kind(v));
    const char *t = llmmem__json_string_value(v), *end = t + llmmem__json_string_length(v);
    while (t < end) {
        int64_t n = 0;
        int digits = 0;
        while (t < end && *t == ' ')
            t++;
        for (; t < end && *t >= '0' && *t <= '9' && n < LLMMEM_LAYER_MAP_MAX; t++, digits++)
            n = 10 * n + (*t - '0');
        while (t < end && *t == ' ')
            t++;
        if (!digits || (t < end && *t != ','))
            return hf_fail(c, LLMMEM_ERR_PARSE, "moe_layers_enum", "expected comma-separated layer indices");
        if (n < layers)
            moe[n] = 1;
        t += t < end;
    }
    return LLMMEM_OK;
}

/* vLLM's Step3p5DecoderLayer builds GQA only */
static llmmem_status read_step3p5_att_impl(const hf *c, const llmmem__json *obj)
{
    const char *text = NULL;
    enum presence p;
    llmmem_status st = get_string(c, obj, "att_impl_type", &text, &p);
    if (!st && p == PRESENT && strcmp(text, "GQA") != 0)
        return unsupported_string(c, "att_impl_type", text, "vLLM's Step3p5DecoderLayer builds GQA only");
    return st;
}

/* Step3p5Config (vLLM step3p5.py): Llama-like sizes with num_attention_groups KV heads; layer_types names each decoder
 * layer full or sliding, then the num_nextn_predict_layers MTP layers; attention_other_setting gives the sliding
 * layers' query heads (Step3p5DecoderLayer); a head-wise attention gate (use_head_wise_attn_gate); MoE layers of
 * moe_num_experts experts of moe_intermediate_size beside one share_expert of share_expert_dim, an fp32 gate and
 * router_bias (asserted by FusedMoEBlock); the others a dense MLP of intermediate_size. Sliding layers of other KV
 * heads or head width, and MTP layers that are not sliding, are refused. */
static const hf_field step3p5_fields[] = {
    REQUIRED_SIZES,
    REQ("intermediate_size", LLMMEM_KEY_INTERMEDIATE_SIZE, CLASS_NONE),
    OPT("num_attention_groups", LLMMEM_KEY_NUM_KEY_VALUE_HEADS, 8),
    OPT("head_dim", LLMMEM_KEY_HEAD_DIM, 128),
    OPT_NULL("max_position_embeddings", LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, 128000, LEAVE),
    HOOK(read_tie),
    REFUSE("attention_bias", 1, 0, "biased Step-3.5 attention is not modelled"),
    HOOK(read_step3p5_att_impl),
    REFUSE("use_moe_router_bias", 0, 1, "vLLM's FusedMoEBlock supports the router bias only"),
    REFUSE("need_fp32_gate", 0, 1, "vLLM's FusedMoEBlock supports the fp32 gate only"),
    FLAG("use_head_wise_attn_gate", LLMMEM_KEY_HEAD_WISE_ATTN_GATE, 1),
    OPT_NULL("moe_num_experts", LLMMEM_KEY_NUM_EXPERTS, 288, LEAVE),
    OPT_NULL("moe_top_k", LLMMEM_KEY_NUM_EXPERTS_PER_TOK, 8, LEAVE),
    OPT_NULL("moe_intermediate_size", LLMMEM_KEY_MOE_INTERMEDIATE_SIZE, 1280, LEAVE),
};

static llmmem_status read_step3p5(const hf *c, const llmmem__json *obj)
{
    int64_t sliding_heads = 0, v = 0, window = 0, mtp = 3;
    enum presence p;
    const char *text = NULL;
    llmmem_status st = read_fields(c, obj, FIELDS(step3p5_fields));
    const int64_t layers = llmmem__get_int(&c->m->s, LLMMEM_KEY_NUM_HIDDEN_LAYERS);
    const int64_t heads = llmmem__get_int(&c->m->s, LLMMEM_KEY_NUM_ATTENTION_HEADS);
    const int64_t kv = llmmem__get_int(&c->m->s, LLMMEM_KEY_NUM_KEY_VALUE_HEADS);
    const int64_t d = llmmem__get_int(&c->m->s, LLMMEM_KEY_HEAD_DIM);
    /* share_expert_dim, else share_expert_dims (configuration_step35.py: 1280) */
    v = 1280;
    if (!st)
        st = get_int_or(c, obj, "share_expert_dims", 1280, &v);
    if (!st && (st = get_int(c, obj, "share_expert_dim", &v, &p)) == LLMMEM_OK)
        st = set(c, "share_expert_dim", LLMMEM_KEY_SHARED_EXPERT_INTERMEDIATE_SIZE, v);
    if (!st)
        st = set(c, "share_expert_dim", LLMMEM_KEY_N_SHARED_EXPERTS, 1);
    if (!st && (st = get_int(c, obj, "num_nextn_predict_layers", &mtp, &p)) == LLMMEM_OK)
        st = set(c, "num_nextn_predict_layers", LLMMEM_KEY_NUM_NEXTN_PREDICT_LAYERS, p == PRESENT ? mtp : (mtp = 3));
    if (st)
        return st;
    /* attention_other_setting: the sliding layers' shape (Step3p5DecoderLayer reads it where layer_types names the
     * layer its attention_type) */
    const llmmem__json *other = llmmem__json_object_get(obj, "attention_other_setting");
    sliding_heads = heads;
    if (other && !llmmem__json_is_null(other)) {
        if (!llmmem__json_is_object(other))
            return hf_fail(c, LLMMEM_ERR_PARSE, "attention_other_setting", "expected an object, got %s", kind(other));
        if ((st = get_string(c, other, "attention_type", &text, &p)) != LLMMEM_OK)
            return st;
        if (p == PRESENT && strcmp(text, "sliding_attention") != 0)
            return unsupported_string(c, "attention_other_setting.attention_type", text,
                                      "the sliding layers' setting is read");
        if ((st = get_int(c, other, "num_attention_heads", &sliding_heads, &p)) != LLMMEM_OK)
            return st;
        const struct {
            const char *field;
            int64_t want;
        } same[2] = {{"num_attention_groups", kv}, {"head_dim", d}};
        for (unsigned i = 0; i < 2; i++) {
            v = same[i].want;
            if ((st = get_int(c, other, same[i].field, &v, &p)) != LLMMEM_OK)
                return st;
            if (v != same[i].want)
                return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "attention_other_setting", "%s %lld differs from the full "
                               "layers' (%lld): sliding layers of other KV heads or head width are not modelled",
                               same[i].field, (long long)v, (long long)same[i].want);
        }
    }
    if (layers > LLMMEM_LAYER_MAP_MAX || mtp > LLMMEM_LAYER_MAP_MAX)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "num_hidden_layers", "more than %d layers are not modelled",
                       LLMMEM_LAYER_MAP_MAX);
    const llmmem__json *types = llmmem__json_object_get(obj, "layer_types");
    if (!types || !llmmem__json_is_array(types) || (int64_t)llmmem__json_array_size(types) < layers)
        return hf_fail(c, LLMMEM_ERR_INCOMPLETE, "layer_types", "must list each of the num_hidden_layers (%lld) "
                       "layers full_attention or sliding_attention", (long long)layers);
    uint8_t moe[LLMMEM_LAYER_MAP_MAX] = {0};
    if ((st = read_step3p5_moe_layers(c, obj, layers, moe)) != LLMMEM_OK)
        return st;
    llmmem__layer_map map;
    memset(&map, 0, sizeof map);
    int any_sliding = 0;
    for (int64_t i = 0; i < layers + mtp; i++) {
        const llmmem__json *t = llmmem__json_array_get(types, (size_t)i);
        int sliding = t && is_text(t) && strcmp(llmmem__json_string_value(t), "sliding_attention") == 0;
        char field[48];
        snprintf(field, sizeof field, "layer_types[%lld]", (long long)i);
        if (i >= layers && !sliding) /* Megatron-Bridge step35_bridge.py builds them dense; vLLM skips them */
            return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, field, "the MTP layer is not sliding_attention: other MTP layers "
                           "are not modelled");
        if (i >= layers)
            continue;
        if (!t || !is_text(t) || (!sliding && strcmp(llmmem__json_string_value(t), "full_attention") != 0))
            return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, field, "expected full_attention or sliding_attention");
        any_sliding |= sliding;
        llmmem__layer_map_push(&map, sliding ? LLMMEM_MIXER_SLIDING : LLMMEM_MIXER_FULL);
        map.ffn[i] = (uint8_t)(1 + (moe[i] ? LLMMEM_FFN_MOE : LLMMEM_FFN_DENSE));
    }
    if (any_sliding) {
        if ((st = get_int(c, obj, "sliding_window", &window, &p)) != LLMMEM_OK)
            return st;
        if (p != PRESENT || window <= 0)
            return hf_fail(c, LLMMEM_ERR_INCOMPLETE, "sliding_window", "must be given for the sliding_attention layers");
        st = set(c, "sliding_window", LLMMEM_KEY_SLIDING_WINDOW, window);
    }
    /* num_attention_heads holds the sliding layers' heads, num_global_attention_heads the full ones' (as
     * global_head_dim beside head_dim) */
    if (!st && any_sliding && sliding_heads != heads) {
        st = set(c, "attention_other_setting", LLMMEM_KEY_NUM_ATTENTION_HEADS, sliding_heads);
        if (!st)
            st = set(c, "num_attention_heads", LLMMEM_KEY_NUM_GLOBAL_ATTENTION_HEADS, heads);
    }
    if (st)
        return st;
    llmmem__model_set_layer_map(c->m, &map);
    return moe_on_marked_layers(c, "moe_layers_enum");
}

/* The query heads of the layers of one type in num_attention_heads_per_layer (vllm laguna.py LagunaDecoderLayer:
 * the list overrides num_attention_heads layer by layer): *heads stays where the type has no layer; a type whose
 * layers differ is refused. */
static llmmem_status laguna_type_heads(const hf *c, const llmmem__json *per, const uint8_t *sliding, int64_t layers,
                                       int want, int64_t *heads)
{
    int seen = 0;
    for (int64_t i = 0; i < layers; i++) {
        if (sliding[i] != want)
            continue;
        const llmmem__json *v = llmmem__json_array_get(per, (size_t)i);
        char field[64];
        snprintf(field, sizeof field, "num_attention_heads_per_layer[%lld]", (long long)i);
        if (!llmmem__json_is_integer(v) || llmmem__json_integer_value(v) < 1)
            return hf_fail(c, LLMMEM_ERR_PARSE, field, "expected a positive number of heads, got %s", kind(v));
        if (seen && llmmem__json_integer_value(v) != *heads)
            return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, field, "%lld beside %lld on another %s layer: layers of one type "
                           "with different query heads are not modelled", (long long)llmmem__json_integer_value(v),
                           (long long)*heads, want ? "sliding" : "full");
        *heads = llmmem__json_integer_value(v);
        seen = 1;
    }
    return LLMMEM_OK;
}

/* LagunaConfig as vllm model_executor/models/laguna.py builds it: Llama-like sizes (head_dim given), layer_types full
 * or sliding (sliding_window), num_attention_heads_per_layer (one count per layer type), q/k norms over a head, the
 * gating g_proj (true or "per-head": one softplus gate a query head; "per-element" refused), MoE layers (mlp_layer_types
 * "sparse", else not in mlp_only_layers and (i + 1) % decoder_sparse_step == 0) of num_experts of
 * moe_intermediate_size beside one shared expert of shared_expert_intermediate_size, a bf16 router and the experts'
 * float32 e_score_correction_bias; dense layers of intermediate_size. Attention biases and the sliding layers'
 * sinks are refused. */
static const hf_field laguna_fields[] = {
    REQ("hidden_size", LLMMEM_KEY_HIDDEN_SIZE, CLASS_NONE),
    REQ("num_hidden_layers", LLMMEM_KEY_NUM_HIDDEN_LAYERS, CLASS_NONE),
    REQ("num_attention_heads", LLMMEM_KEY_NUM_ATTENTION_HEADS, CLASS_NONE),
    REQ("num_key_value_heads", LLMMEM_KEY_NUM_KEY_VALUE_HEADS, CLASS_NONE),
    REQ("vocab_size", LLMMEM_KEY_VOCAB_SIZE, CLASS_NONE),
    REQ("intermediate_size", LLMMEM_KEY_INTERMEDIATE_SIZE, CLASS_NONE),
    OPT("head_dim", LLMMEM_KEY_HEAD_DIM, LEAVE),
    OPT("max_position_embeddings", LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, LEAVE),
    HOOK(read_tie),
    REFUSE("attention_bias", 1, 0, "a biased o_proj is not modelled for laguna"),
    REFUSE("qkv_bias", 1, 0, "a biased qkv_proj is not modelled for laguna"),
    REFUSE("swa_attention_sink_enabled", 1, 0, "the sliding layers' sinks are not modelled for laguna"),
};

static llmmem_status read_laguna(const hf *c, const llmmem__json *obj)
{
    int64_t experts = 0, shared = 0, step = 1, window = 0;
    enum presence p;
    llmmem_status st = read_fields(c, obj, FIELDS(laguna_fields));
    if (st)
        return st;
    const int64_t layers = llmmem__get_int(&c->m->s, LLMMEM_KEY_NUM_HIDDEN_LAYERS);
    const int64_t heads = llmmem__get_int(&c->m->s, LLMMEM_KEY_NUM_ATTENTION_HEADS);
    /* gating: true or "per-head" one gate a head, "per-element" one a channel, false or absent none */
    const llmmem__json *g = llmmem__json_object_get(obj, "gating");
    int gate = g && (llmmem__json_is_true(g) || (is_text(g) && strcmp(llmmem__json_string_value(g), "per-head") == 0));
    if (g && is_text(g) && !gate)
        return unsupported_string(c, "gating", llmmem__json_string_value(g),
                                  "per-head is modelled (per-element, Laguna M.1's g_proj of num_heads x head_dim, is not)");
    if (g && !llmmem__json_is_null(g) && !is_text(g) && !llmmem__json_is_true(g) && !llmmem__json_is_false(g))
        return hf_fail(c, LLMMEM_ERR_PARSE, "gating", "expected true, false or a string, got %s", kind(g));
    st = set(c, "gating", LLMMEM_KEY_HEAD_WISE_ATTN_GATE, gate);
    if (!st)
        st = get_int_or(c, obj, "num_experts", 0, &experts);
    if (!st)
        st = set(c, "num_experts", LLMMEM_KEY_NUM_EXPERTS, experts);
    if (!st && experts > 0)
        st = required(c, obj, NAMES("num_experts_per_tok"), LLMMEM_KEY_NUM_EXPERTS_PER_TOK, CLASS_NONE, NULL);
    if (!st && experts > 0)
        st = required(c, obj, NAMES("moe_intermediate_size"), LLMMEM_KEY_MOE_INTERMEDIATE_SIZE, CLASS_NONE, NULL);
    if (!st && experts > 0 && (st = get_int(c, obj, "shared_expert_intermediate_size", &shared, &p)) == LLMMEM_OK) {
        st = set(c, "shared_expert_intermediate_size", LLMMEM_KEY_SHARED_EXPERT_INTERMEDIATE_SIZE, shared);
        if (!st)
            st = set(c, "shared_expert_intermediate_size", LLMMEM_KEY_N_SHARED_EXPERTS, shared > 0);
    }
    if (!st)
        st = get_int_or(c, obj, "decoder_sparse_step", 1, &step);
    if (st)
        return st;
    if (step < 1)
        return hf_fail(c, LLMMEM_ERR_OUT_OF_RANGE, "decoder_sparse_step", "%lld is below 1", (long long)step);
    if (layers > LLMMEM_LAYER_MAP_MAX)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "num_hidden_layers", "more than %d layers are not modelled",
                       LLMMEM_LAYER_MAP_MAX);
    const llmmem__json *types = llmmem__json_object_get(obj, "layer_types");
    const llmmem__json *mlp = llmmem__json_object_get(obj, "mlp_layer_types");
    const llmmem__json *only = llmmem__json_object_get(obj, "mlp_only_layers");
    const llmmem__json *per = llmmem__json_object_get(obj, "num_attention_heads_per_layer");
    const struct {
        const char *field;
        const llmmem__json *list;
    } lists[3] = {{"layer_types", types}, {"mlp_layer_types", mlp}, {"num_attention_heads_per_layer", per}};
    for (unsigned i = 0; i < 3; i++)
        if (lists[i].list && !llmmem__json_is_null(lists[i].list) &&
            (!llmmem__json_is_array(lists[i].list) || (int64_t)llmmem__json_array_size(lists[i].list) != layers))
            return hf_fail(c, LLMMEM_ERR_PARSE, lists[i].field, "expected a list of the num_hidden_layers (%lld) layers",
                           (long long)layers);
    if (only && !llmmem__json_is_null(only) && !llmmem__json_is_array(only))
        return hf_fail(c, LLMMEM_ERR_PARSE, "mlp_only_layers", "expected an array, got %s", kind(only));
    uint8_t sliding[LLMMEM_LAYER_MAP_MAX] = {0};
    llmmem__layer_map map;
    memset(&map, 0, sizeof map);
    int any_sliding = 0;
    for (int64_t i = 0; i < layers; i++) {
        char field[48];
        const llmmem__json *t = types && llmmem__json_is_array(types) ? llmmem__json_array_get(types, (size_t)i) : NULL;
        sliding[i] = t && is_text(t) && strcmp(llmmem__json_string_value(t), "sliding_attention") == 0;
        snprintf(field, sizeof field, "layer_types[%lld]", (long long)i);
        if (t && !sliding[i] && (!is_text(t) || strcmp(llmmem__json_string_value(t), "full_attention") != 0))
            return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, field, "expected full_attention or sliding_attention");
        any_sliding |= sliding[i];
        int moe = experts > 0 && (i + 1) % step == 0;
        for (size_t k = 0; moe && only && llmmem__json_is_array(only) && k < llmmem__json_array_size(only); k++)
            moe = llmmem__json_integer_value(llmmem__json_array_get(only, k)) != i;
        const llmmem__json *f = mlp && llmmem__json_is_array(mlp) ? llmmem__json_array_get(mlp, (size_t)i) : NULL;
        snprintf(field, sizeof field, "mlp_layer_types[%lld]", (long long)i);
        if (f && (!is_text(f) || (strcmp(llmmem__json_string_value(f), "dense") != 0 &&
                                  strcmp(llmmem__json_string_value(f), "sparse") != 0)))
            return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, field, "expected dense or sparse");
        if (f && (strcmp(llmmem__json_string_value(f), "sparse") == 0) != moe)
            return hf_fail(c, LLMMEM_ERR_INCOMPATIBLE, field, "%s, but mlp_only_layers, decoder_sparse_step and "
                           "num_experts (vLLM's LagunaDecoderLayer) make the layer %s", llmmem__json_string_value(f),
                           moe ? "sparse" : "dense");
        llmmem__layer_map_push(&map, sliding[i] ? LLMMEM_MIXER_SLIDING : LLMMEM_MIXER_FULL);
        map.ffn[i] = (uint8_t)(1 + (moe ? LLMMEM_FFN_MOE : LLMMEM_FFN_DENSE));
    }
    int64_t full_heads = heads, sliding_heads = heads;
    if (per && !llmmem__json_is_null(per)) {
        st = laguna_type_heads(c, per, sliding, layers, 0, &full_heads);
        if (!st)
            st = laguna_type_heads(c, per, sliding, layers, 1, &sliding_heads);
    }
    if (!st && any_sliding) {
        if ((st = get_int(c, obj, "sliding_window", &window, &p)) != LLMMEM_OK)
            return st;
        if (p != PRESENT || window <= 0)
            return hf_fail(c, LLMMEM_ERR_INCOMPLETE, "sliding_window", "must be given for the sliding_attention layers");
        st = set(c, "sliding_window", LLMMEM_KEY_SLIDING_WINDOW, window);
    }
    /* num_attention_heads holds the sliding layers' heads, num_global_attention_heads the full ones' (as step3p5) */
    if (!st)
        st = set(c, "num_attention_heads_per_layer", LLMMEM_KEY_NUM_ATTENTION_HEADS, any_sliding ? sliding_heads : full_heads);
    if (!st && any_sliding && sliding_heads != full_heads)
        st = set(c, "num_attention_heads_per_layer", LLMMEM_KEY_NUM_GLOBAL_ATTENTION_HEADS, full_heads);
    if (st)
        return st;
    llmmem__model_set_layer_map(c->m, &map);
    return moe_on_marked_layers(c, "mlp_layer_types");
}

/* ---- MiniMax-M3 ------------------------------------------------------------------------------- */

/* block_sparse_moe.shared_experts, one MLP of n_shared_experts x shared_intermediate_size (Megatron-Bridge
 * minimax_m3_bridge.py provider_bridge: moe_shared_expert_intermediate_size; n_shared_experts absent: 1 where
 * shared_intermediate_size is set). */
static llmmem_status read_minimax_m3_shared(const hf *c, const llmmem__json *obj)
{
    int64_t n = 1, width = 0;
    enum presence pn, pw;
    llmmem_status st = get_int(c, obj, "n_shared_experts", &n, &pn);
    if (!st)
        st = get_int(c, obj, "shared_intermediate_size", &width, &pw);
    if (st)
        return st;
    if (pw != PRESENT)
        width = 0;
    if (pn != PRESENT)
        n = width > 0;
    if (n < 0 || n > 64)
        return hf_fail(c, LLMMEM_ERR_OUT_OF_RANGE, "n_shared_experts", "%lld is not within 0 .. 64", (long long)n);
    if (n > 0 && pw != PRESENT)
        return hf_fail(c, LLMMEM_ERR_INCOMPLETE, "shared_intermediate_size", "is %s, but n_shared_experts is %lld",
                       pw == IS_NULL ? "null" : "missing", (long long)n);
    /* the width as given within the key's bounds first: n x width below 2^31 */
    if (n > 0 && (st = set(c, "shared_intermediate_size", LLMMEM_KEY_SHARED_EXPERT_INTERMEDIATE_SIZE, width)))
        return st;
    return set(c, "shared_intermediate_size", LLMMEM_KEY_SHARED_EXPERT_INTERMEDIATE_SIZE, n * width);
}

/* A text field that must hold `want` when present (absent or null: what the modeling builds). */
static llmmem_status string_must_be(const hf *c, const llmmem__json *obj, const char *field, const char *want,
                                    const char *why)
{
    const char *s = NULL;
    enum presence p;
    llmmem_status st = get_string(c, obj, field, &s, &p);
    return st || p != PRESENT || strcmp(s, want) == 0 ? st : unsupported_string(c, field, s, why);
}

/* qk_norm_type per_head: q_norm and k_norm of head_dim (the Bridge's "Per-head QK RMSNorm (weight shape =
 * head_dim)"; the tensor table's self_attn.q_norm [128]) */
static llmmem_status read_minimax_m3_qk_norm(const hf *c, const llmmem__json *obj)
{
    return string_must_be(c, obj, "qk_norm_type", "per_head", "minimax_m3_vl's q/k norms over a head are modelled");
}

/* The leading run of 0s of a list of num_hidden_layers entries 0 or 1 (dense or sparse: transformers' form)
 * followed by 1s only: *run its length. */
static llmmem_status leading_zeros(const hf *c, const llmmem__json *list, const char *field, int64_t layers,
                                   int64_t *run)
{
    if (!list || !llmmem__json_is_array(list) || (int64_t)llmmem__json_array_size(list) != layers)
        return hf_fail(c, LLMMEM_ERR_PARSE, field, "expected a list of the num_hidden_layers (%lld) layers' 0 or 1",
                       (long long)layers);
    *run = 0;
    for (int64_t i = 0; i < layers; i++) {
        const llmmem__json *v = llmmem__json_array_get(list, (size_t)i);
        int64_t x = llmmem__json_is_integer(v)                                        ? llmmem__json_integer_value(v)
                    : is_text(v) && strcmp(llmmem__json_string_value(v), "dense") == 0  ? 0
                    : is_text(v) && strcmp(llmmem__json_string_value(v), "sparse") == 0 ? 1
                                                                                        : -1;
        if (x != 0 && x != 1)
            return hf_fail(c, LLMMEM_ERR_PARSE, field, "entry %lld is not 0 or 1 (dense or sparse)", (long long)i);
        if (x == 0 && *run != i)
            return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, field, "entry %lld is 0 after a 1: only a leading run of 0s "
                           "(the first layers) is modelled", (long long)i);
        *run += x == 0;
    }
    return LLMMEM_OK;
}

/* moe_layer_freq (1: block_sparse_moe, else a dense MLP of dense_intermediate_size), or mlp_layer_types (sparse
 * or dense); sparse_attention_config: the Bridge's MiniMaxM3LightningIndexerState (index_q_proj, index_k_proj,
 * index_q_norm, index_k_norm) on each layer whose sparse_attention_freq entry is 1, of sparse_num_index_heads
 * heads of sparse_index_dim. */
static llmmem_status read_minimax_m3_layers(const hf *c, const llmmem__json *obj)
{
    const int64_t layers = llmmem__get_int(&c->m->s, LLMMEM_KEY_NUM_HIDDEN_LAYERS);
    int64_t dense = 0, first = 0;
    /* the Bridge reads moe_layer_freq, else mlp_layer_types (the native transformers config's) */
    const llmmem__json *freq = llmmem__json_object_get(obj, "moe_layer_freq");
    const char *freq_field = freq && !llmmem__json_is_null(freq) ? "moe_layer_freq" : "mlp_layer_types";
    llmmem_status st = leading_zeros(c, llmmem__json_object_get(obj, freq_field), freq_field, layers, &dense);
    if (!st)
        st = set(c, freq_field, LLMMEM_KEY_FIRST_K_DENSE_REPLACE, dense);
    if (!st)
        st = set(c, freq_field, LLMMEM_KEY_MOE_LAYER_FREQ, 1);
    if (st)
        return st;
    /* the Bridge's export form of the same schedule; read here it could only disagree */
    const llmmem__json *types = llmmem__json_object_get(obj, "layer_types");
    if (types && !llmmem__json_is_null(types))
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "layer_types", "is not read for minimax_m3_vl "
                       "(sparse_attention_config's sparse_attention_freq gives the indexer's layers)");
    const llmmem__json *sparse = llmmem__json_object_get(obj, "sparse_attention_config");
    if (!sparse || llmmem__json_is_null(sparse))
        return set(c, "sparse_attention_config", LLMMEM_KEY_INDEX_N_HEADS, 0);
    if (!llmmem__json_is_object(sparse))
        return hf_fail(c, LLMMEM_ERR_PARSE, "sparse_attention_config", "expected an object, got %s", kind(sparse));
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%ssparse_attention_config.", c->prefix);
    hf sub = *c;
    sub.prefix = prefix;
    st = leading_zeros(&sub, llmmem__json_object_get(sparse, "sparse_attention_freq"), "sparse_attention_freq", layers,
                       &first);
    if (st || first == layers)
        return st ? st : set(&sub, "sparse_attention_freq", LLMMEM_KEY_INDEX_N_HEADS, 0);
    st = required(&sub, sparse, NAMES("sparse_num_index_heads"), LLMMEM_KEY_INDEX_N_HEADS, CLASS_NONE, NULL);
    if (!st)
        st = required(&sub, sparse, NAMES("sparse_index_dim"), LLMMEM_KEY_INDEX_HEAD_DIM, CLASS_NONE, NULL);
    /* vllm models/minimax_m3/nvidia/model.py MiniMaxM3Model.__init__ reads it for its top-k buffer; Megatron-Bridge
     * does not: absent or null it is 0, and vLLM serving refuses that */
    if (!st)
        st = optional(&sub, sparse, "sparse_topk_blocks", LLMMEM_KEY_INDEX_TOPK_BLOCKS, 0, 0);
    return st ? st : set(&sub, "sparse_attention_freq", LLMMEM_KEY_INDEX_FIRST_LAYER, first);
}

/* MiniMax-M3's text_config (MiniMaxM3SparseForCausalLM, remote code; as Megatron-Bridge minimax_m3_bridge.py
 * provider_bridge reads it): GQA of head_dim with q/k norms over a head, dense MLPs of dense_intermediate_size on
 * the layers moe_layer_freq marks 0, else num_local_experts of intermediate_size (top num_experts_per_tok) beside
 * n_shared_experts of shared_intermediate_size, routed by a gate with e_score_correction_bias (use_routing_bias);
 * the lightning indexer of sparse_attention_config. None from class defaults. num_nextn_predict_layers and
 * num_mtp_modules are accepted, not read: the checkpoint ships no mtp.* weights (the Bridge's MiniMaxM3Bridge
 * docstring; its tensor table). */
static const hf_field minimax_m3_fields[] = {
    REQUIRED_SIZES,
    REQ("num_key_value_heads", LLMMEM_KEY_NUM_KEY_VALUE_HEADS, CLASS_NONE),
    REQ("head_dim", LLMMEM_KEY_HEAD_DIM, CLASS_NONE),
    REQ("dense_intermediate_size", LLMMEM_KEY_INTERMEDIATE_SIZE, CLASS_NONE),
    REQ("num_local_experts", LLMMEM_KEY_NUM_EXPERTS, CLASS_NONE),
    REQ("num_experts_per_tok", LLMMEM_KEY_NUM_EXPERTS_PER_TOK, CLASS_NONE),
    REQ("intermediate_size", LLMMEM_KEY_MOE_INTERMEDIATE_SIZE, CLASS_NONE),
    HOOK(read_minimax_m3_shared),
    OPT_NULL("max_position_embeddings", LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, LEAVE, LEAVE),
    HOOK(read_tie),
    FLAG("use_qk_norm", LLMMEM_KEY_QK_NORM, 1),
    HOOK(read_minimax_m3_qk_norm),
    FLAG("use_routing_bias", LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS, 1),
    REFUSE("attention_output_gate", 1, 0, "minimax_m3_vl's attention output gate is not modelled"),
    HOOK(read_minimax_m3_layers),
};

static llmmem_status read_minimax_m3(const hf *c, const llmmem__json *obj)
{
    return read_fields(c, obj, FIELDS(minimax_m3_fields));
}

/* A text model of family c->fam from obj. */
static llmmem_status read_text(const hf *c, const llmmem__json *obj)
{
    llmmem_status st = set(c, "model_type", LLMMEM_KEY_MODEL_TYPE, c->fam->type);
    if (!st)
        st = read_common_checks(c, obj);
    if (st)
        return st;
    switch (c->fam->reader) {
    case LLMMEM_READ_GPT2: return read_gpt2(c, obj);
    case LLMMEM_READ_OPT: return read_fields(c, obj, FIELDS(opt_fields));
    case LLMMEM_READ_BLOOM: return read_bloom(c, obj);
    case LLMMEM_READ_FALCON: return read_falcon(c, obj);
    case LLMMEM_READ_DEEPSEEK: return read_deepseek(c, obj);
    case LLMMEM_READ_GLM4: return read_glm4(c, obj);
    case LLMMEM_READ_MINIMAX_M2: return read_minimax_m2(c, obj);
    case LLMMEM_READ_ERNIE:
        st = read_llama_like(c, obj);
        return st ? st : read_ernie(c, obj, llmmem__model_value(c->m, LLMMEM_KEY_NUM_HIDDEN_LAYERS));
    case LLMMEM_READ_LLAMA4: return read_llama4(c, obj);
    case LLMMEM_READ_MLLAMA: return read_mllama(c, obj);
    case LLMMEM_READ_LLAMA4_TEXT: return read_llama4_text(c, obj);
    case LLMMEM_READ_MAMBA2: return read_mamba2(c, obj);
    case LLMMEM_READ_NEMOTRON_H: return read_nemotron_h(c, obj);
    case LLMMEM_READ_GRANITEMOEHYBRID: return read_granitemoehybrid(c, obj);
    case LLMMEM_READ_JAMBA: return read_jamba(c, obj);
    case LLMMEM_READ_FALCON_H1: return read_falcon_h1(c, obj);
    case LLMMEM_READ_GEMMA4: return read_gemma4_text(c, obj);
    case LLMMEM_READ_DEEPSEEK_V4: return read_deepseek_v4(c, obj);
    case LLMMEM_READ_KIMI_LINEAR: return read_kimi_linear(c, obj);
    case LLMMEM_READ_NEMOTRON_NAS: return read_nemotron_nas(c, obj);
    case LLMMEM_READ_LFM2: return read_lfm2(c, obj);
    case LLMMEM_READ_MIMO_V2: return read_mimo_v2(c, obj);
    case LLMMEM_READ_HUNYUAN: return read_hunyuan(c, obj);
    case LLMMEM_READ_PHI4FLASH: return read_phi4flash(c, obj);
    case LLMMEM_READ_STEP3P5: return read_step3p5(c, obj);
    case LLMMEM_READ_LAGUNA: return read_laguna(c, obj);
    case LLMMEM_READ_MINIMAX_M3: return read_minimax_m3(c, obj);
    default: return read_llama_like(c, obj);
    }
}

/* ---- multimodal wrappers ----------------------------------------------------------------------- */

/* A vision tower: the vision_config model_type a wrapper takes it by (NULL: Qwen-VL's, read by its
 * family), the kind it sets, its fields and the reader of what they do not say (NULL: none). */
typedef struct hf_tower {
    const char *type;
    llmmem__vision_kind vk;
    const hf_field *fields;
    size_t n_fields;
    llmmem_status (*rest)(const hf *c, const llmmem__json *obj);
} hf_tower;

static llmmem_status read_tower(const hf *c, const llmmem__json *obj, const hf_tower *t)
{
    llmmem_status st = set(c, "model_type", LLMMEM_KEY_VISION_MODEL_TYPE, t->vk);
    if (!st)
        st = read_fields(c, obj, t->fields, t->n_fields);
    if (!st && t->rest)
        st = t->rest(c, obj);
    return st;
}

/* CLIPVisionConfig and SiglipVisionConfig: hidden_size=768, intermediate_size=3072,
 * num_hidden_layers=12, num_channels=3, image_size=224, patch_size 32 (CLIP) or 16 (SigLIP);
 * SiglipVisionTransformer: use_head = vision_use_head where the config has it, else True. */
#define CLIP_FIELDS(patch)                                                                         \
    REQ("hidden_size", LLMMEM_KEY_VISION_HIDDEN_SIZE, 768),                                        \
    REQ("intermediate_size", LLMMEM_KEY_VISION_INTERMEDIATE_SIZE, 3072),                           \
    REQ("num_hidden_layers", LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS, 12),                             \
    REQ("patch_size", LLMMEM_KEY_VISION_PATCH_SIZE, (patch)),                                      \
    REQ("image_size", LLMMEM_KEY_VISION_IMAGE_SIZE, 224),                                          \
    OPT("num_channels", LLMMEM_KEY_VISION_NUM_CHANNELS, 3)
static const hf_field clip_fields[] = {CLIP_FIELDS(32)};
static const hf_field siglip_fields[] = {CLIP_FIELDS(16),
                                         FLAG("vision_use_head", LLMMEM_KEY_VISION_USE_HEAD, 1)};
#undef CLIP_FIELDS
static const hf_tower clip_tower = {"clip_vision_model", LLMMEM__VISION_CLIP, FIELDS(clip_fields), NULL};
static const hf_tower siglip_tower = {"siglip_vision_model", LLMMEM__VISION_SIGLIP, FIELDS(siglip_fields), NULL};

/* A required sub-config object. */
static llmmem_status sub_config(const hf *c, const llmmem__json *root, const char *field, const char *type,
                                const llmmem__json **out)
{
    const llmmem__json *v = llmmem__json_object_get(root, field);
    *out = NULL;
    if (!v || llmmem__json_is_null(v))
        return hf_fail(c, LLMMEM_ERR_INCOMPLETE, field, "is %s (required for model_type %s)", v ? "null" : "missing",
                       type);
    if (!llmmem__json_is_object(v))
        return hf_fail(c, LLMMEM_ERR_PARSE, field, "expected an object, got %s", kind(v));
    *out = v;
    return LLMMEM_OK;
}

/* The model_type of a sub-config, `dflt` when absent or null. */
static llmmem_status sub_type(const hf *c, const llmmem__json *sub, const char *dflt, const char **out)
{
    enum presence p;
    llmmem_status st = get_string(c, sub, "model_type", out, &p);
    if (!st && p != PRESENT)
        *out = dflt;
    return st;
}

/* ---- Llama 4 ---------------------------------------------------------------------------------- */

/* Which layers are chunked (1) or global (0) onto the keys: none chunked, attention_chunk_size 0;
 * all, no_rope_layer_interval 0; global exactly where (i + 1) % n == 0, interval n; else a
 * per-layer map. */
static llmmem_status set_chunked_layers(const hf *c, const char *field, const uint8_t *chunked, size_t n)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += chunked[i];
    if (count == 0)
        return set(c, field, LLMMEM_KEY_ATTENTION_CHUNK_SIZE, 0);
    if (count == n)
        return set(c, field, LLMMEM_KEY_NO_ROPE_LAYER_INTERVAL, 0);
    for (size_t period = 2; period <= n; period++) {
        size_t i = 0;
        while (i < n && chunked[i] == ((i + 1) % period != 0))
            i++;
        if (i == n)
            return set(c, field, LLMMEM_KEY_NO_ROPE_LAYER_INTERVAL, (int64_t)period);
    }
    llmmem__layer_map map;
    memset(&map, 0, sizeof map);
    for (size_t i = 0; i < n; i++)
        llmmem__layer_map_push(&map, chunked[i] ? LLMMEM_MIXER_CHUNKED : LLMMEM_MIXER_FULL);
    llmmem__model_set_layer_map(c->m, &map);
    return LLMMEM_OK;
}

/* transformers Llama4TextConfig: layer_types if given, else chunked_attention where no_rope_layers[i]
 * (a non-empty list), else where (i + 1) % no_rope_layer_interval != 0. */
static llmmem_status read_llama4_layers(const hf *c, const llmmem__json *obj, int64_t layers)
{
    uint8_t chunked[LLMMEM_LAYER_MAP_MAX];
    const llmmem__json *types = llmmem__json_object_get(obj, "layer_types"),
                       *rope = llmmem__json_object_get(obj, "no_rope_layers");
    const char *field = types && !llmmem__json_is_null(types) ? "layer_types" : "no_rope_layers";
    const llmmem__json *list = types && !llmmem__json_is_null(types) ? types : rope;
    if (!list || llmmem__json_is_null(list) ||
        (llmmem__json_is_array(list) && llmmem__json_array_size(list) == 0 && list == rope)) {
        int64_t interval = 4;
        enum presence p;
        llmmem_status st = get_int(c, obj, "no_rope_layer_interval", &interval, &p);
        if (st)
            return st;
        if (p != PRESENT)
            interval = 4;
        if (interval < 1)
            return hf_fail(c, LLMMEM_ERR_OUT_OF_RANGE, "no_rope_layer_interval", "%lld is below 1", (long long)interval);
        return set(c, "no_rope_layer_interval", LLMMEM_KEY_NO_ROPE_LAYER_INTERVAL, interval > layers ? 0 : interval);
    }
    if (!llmmem__json_is_array(list))
        return hf_fail(c, LLMMEM_ERR_PARSE, field, "expected an array, got %s", kind(list));
    size_t n = llmmem__json_array_size(list);
    if (list == types ? (int64_t)n != layers : (int64_t)n < layers) /* no_rope_layers: at least one per layer */
        return hf_fail(c, LLMMEM_ERR_INCOMPATIBLE, field, "has %zu entries, but num_hidden_layers is %lld", n,
                       (long long)layers);
    if (layers > LLMMEM_LAYER_MAP_MAX)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, field, "more than %d layers are not modelled layer by layer",
                       LLMMEM_LAYER_MAP_MAX);
    for (size_t i = 0; i < (size_t)layers; i++) {
        const llmmem__json *t = llmmem__json_array_get(list, i);
        char at[48];
        snprintf(at, sizeof at, "%s[%zu]", field, i);
        if (list == types) {
            enum llmmem__mixer mixer;
            if (!llmmem__json_is_string(t))
                return hf_fail(c, LLMMEM_ERR_PARSE, at, "expected a string, got %s", kind(t));
            if (!llmmem__layer_type_mixer(&mixer, llmmem__json_string_value(t), llmmem__json_string_length(t)) ||
                (mixer != LLMMEM_MIXER_FULL && mixer != LLMMEM_MIXER_CHUNKED))
                return unsupported_string(c, at, llmmem__json_string_value(t),
                                          "llama4 takes full_attention and chunked_attention");
            chunked[i] = mixer == LLMMEM_MIXER_CHUNKED;
        } else {
            if (!llmmem__json_is_integer(t) ||
                (llmmem__json_integer_value(t) != 0 && llmmem__json_integer_value(t) != 1))
                return hf_fail(c, LLMMEM_ERR_PARSE, at, "expected 0 (NoPE) or 1 (RoPE), got %s", kind(t));
            chunked[i] = llmmem__json_integer_value(t) == 1;
        }
    }
    return set_chunked_layers(c, field, chunked, (size_t)layers);
}

/* transformers Llama4TextConfig moe_layers (a list overrides interleave_moe_layer_step n, whose
 * default list is range(n - 1, num_hidden_layers, n)): only such a list maps onto the step. */
static llmmem_status read_llama4_moe(const hf *c, const llmmem__json *obj, int64_t layers)
{
    int64_t step = 1;
    enum presence p;
    llmmem_status st = get_int(c, obj, "interleave_moe_layer_step", &step, &p);
    if (st)
        return st;
    if (p != PRESENT)
        step = 1;
    const llmmem__json *list = llmmem__json_object_get(obj, "moe_layers");
    if (list && !llmmem__json_is_null(list)) {
        if (!llmmem__json_is_array(list))
            return hf_fail(c, LLMMEM_ERR_PARSE, "moe_layers", "expected an array, got %s", kind(list));
        size_t n = llmmem__json_array_size(list);
        if (n == 0) /* every layer dense */
            return set(c, "moe_layers", LLMMEM_KEY_NUM_EXPERTS, 0);
        const llmmem__json *first = llmmem__json_array_get(list, 0);
        /* entry 0 + 1, the step, in int64 (9223372036854775807 + 1 overflowed); a negative entry 0 is refused below */
        step = llmmem__json_is_integer(first) && llmmem__json_integer_value(first) >= 0 &&
                       llmmem__json_integer_value(first) < INT64_MAX
                   ? (int64_t)llmmem__json_integer_value(first) + 1
                   : 0;
        for (size_t i = 0; i < n; i++) {
            const llmmem__json *v = llmmem__json_array_get(list, i);
            if (!llmmem__json_is_integer(v))
                return hf_fail(c, LLMMEM_ERR_PARSE, "moe_layers", "entry %zu: expected an integer, got %s", i, kind(v));
            /* (i + 1) x step - 1 past int64 is no entry's value: refused without the product (moe_layers
             * [4611686018427387903, 9223372036854775807] overflowed) */
            if (step < 1 || (int64_t)i + 1 > INT64_MAX / step ||
                llmmem__json_integer_value(v) != (int64_t)((int64_t)(i + 1) * step - 1))
                return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "moe_layers",
                               "MoE layers other than every n-th (n - 1, 2n - 1, ...) are not modelled (entry %zu is "
                               "%lld)", i, (long long)llmmem__json_integer_value(v));
        }
        if ((int64_t)n != layers / step)
            return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "moe_layers",
                           "names %zu layers, not every %lld-th of the %lld layers", n, (long long)step, (long long)layers);
        return set(c, "moe_layers", LLMMEM_KEY_INTERLEAVE_MOE_LAYER_STEP, step);
    }
    if (step < 1)
        return hf_fail(c, LLMMEM_ERR_OUT_OF_RANGE, "interleave_moe_layer_step", "%lld is below 1", (long long)step);
    return set(c, "interleave_moe_layer_step", LLMMEM_KEY_INTERLEAVE_MOE_LAYER_STEP, step);
}

/* Llama4TextConfig: the llama fields; intermediate_size is each routed expert's width and the
 * shared expert's (Llama4TextMoe.shared_expert is a Llama4TextMLP of intermediate_size), and
 * intermediate_size_mlp (16384) the dense layers'; num_local_experts=16, num_experts_per_tok=1,
 * attention_chunk_size=8192 (null: no chunked layers). use_qk_norm adds no weight (Llama4TextL2Norm). */
static llmmem_status read_llama4_text(const hf *c, const llmmem__json *obj)
{
    llmmem_status st = read_llama_like(c, obj);
    if (st)
        return st;
    int64_t layers = llmmem__get_int(&c->m->s, LLMMEM_KEY_NUM_HIDDEN_LAYERS);
    int64_t expert = llmmem__get_int(&c->m->s, LLMMEM_KEY_INTERMEDIATE_SIZE); /* read as intermediate_size */
    st = set(c, "intermediate_size", LLMMEM_KEY_MOE_INTERMEDIATE_SIZE, expert);
    if (!st)
        st = set(c, "intermediate_size", LLMMEM_KEY_SHARED_EXPERT_INTERMEDIATE_SIZE, expert);
    if (!st)
        st = required(c, obj, NAMES("intermediate_size_mlp"), LLMMEM_KEY_INTERMEDIATE_SIZE, 16384, NULL);
    if (!st)
        st = required(c, obj, NAMES("num_local_experts"), LLMMEM_KEY_NUM_EXPERTS, 16, NULL);
    if (!st)
        st = required(c, obj, NAMES("num_experts_per_tok"), LLMMEM_KEY_NUM_EXPERTS_PER_TOK, 1, NULL);
    if (!st)
        st = optional(c, obj, "attention_chunk_size", LLMMEM_KEY_ATTENTION_CHUNK_SIZE, 8192, 0);
    if (!st)
        st = read_llama4_moe(c, obj, layers);
    if (!st && llmmem__get_int(&c->m->s, LLMMEM_KEY_ATTENTION_CHUNK_SIZE))
        st = read_llama4_layers(c, obj, layers);
    return st;
}

/* Llama4VisionConfig: hidden_size=768, intermediate_size=5632, num_hidden_layers=34, image_size=448,
 * patch_size=14, num_channels=3, vision_output_dim=7680, projector_input_dim=4096,
 * projector_output_dim=4096 (pixel_shuffle_ratio and the heads change no count). */
static const hf_field llama4_vision_fields[] = {
    REQ("hidden_size", LLMMEM_KEY_VISION_HIDDEN_SIZE, 768),
    REQ("intermediate_size", LLMMEM_KEY_VISION_INTERMEDIATE_SIZE, 5632),
    REQ("num_hidden_layers", LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS, 34),
    REQ("patch_size", LLMMEM_KEY_VISION_PATCH_SIZE, 14),
    REQ("image_size", LLMMEM_KEY_VISION_IMAGE_SIZE, 448),
    OPT("num_channels", LLMMEM_KEY_VISION_NUM_CHANNELS, 3),
    REQ("vision_output_dim", LLMMEM_KEY_VISION_OUTPUT_DIM, 7680),
    REQ("projector_input_dim", LLMMEM_KEY_PROJECTOR_INPUT_DIM, 4096),
    REQ("projector_output_dim", LLMMEM_KEY_PROJECTOR_OUTPUT_DIM, 4096),
};

/* ---- Llama 3.2 Vision (mllama) ------------------------------------------------------------------ */

/* MllamaTextConfig cross_attention_layers (None: [3, 8, 13, 18, 23, 28, 33, 38]): an arithmetic run
 * to the last layer maps onto cross_attention_first and _interval, any other list onto a per-layer map. */
static llmmem_status read_cross_layers(const hf *c, const llmmem__json *obj, int64_t layers)
{
    static const int64_t dflt[] = {3, 8, 13, 18, 23, 28, 33, 38};
    int64_t at[LLMMEM_LAYER_MAP_MAX];
    size_t n = 0;
    const llmmem__json *list = llmmem__json_object_get(obj, "cross_attention_layers");
    if (!list || llmmem__json_is_null(list)) {
        for (; n < sizeof dflt / sizeof dflt[0]; n++)
            at[n] = dflt[n];
    } else {
        if (!llmmem__json_is_array(list))
            return hf_fail(c, LLMMEM_ERR_PARSE, "cross_attention_layers", "expected an array, got %s", kind(list));
        if (llmmem__json_array_size(list) > LLMMEM_LAYER_MAP_MAX)
            return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "cross_attention_layers", "more than %d entries",
                           LLMMEM_LAYER_MAP_MAX);
        for (; n < llmmem__json_array_size(list); n++) {
            const llmmem__json *v = llmmem__json_array_get(list, n);
            if (!llmmem__json_is_integer(v))
                return hf_fail(c, LLMMEM_ERR_PARSE, "cross_attention_layers", "entry %zu: expected an integer, got %s",
                               n, kind(v));
            at[n] = (int64_t)llmmem__json_integer_value(v);
        }
    }
    for (size_t i = 0; i < n; i++)
        if (at[i] < 0 || at[i] >= layers || (i && at[i] <= at[i - 1]))
            return hf_fail(c, LLMMEM_ERR_INCOMPATIBLE, "cross_attention_layers",
                           "entry %zu (%lld) is not a layer after the one before it below num_hidden_layers (%lld)", i,
                           (long long)at[i], (long long)layers);
    if (n == 0)
        return set(c, "cross_attention_layers", LLMMEM_KEY_CROSS_ATTENTION_INTERVAL, 0);
    int64_t step = n == 1 ? layers : at[1] - at[0];
    size_t i = 1;
    while (i < n && at[i] - at[i - 1] == step)
        i++;
    if (i == n && at[n - 1] + step >= layers) {
        llmmem_status st = set(c, "cross_attention_layers", LLMMEM_KEY_CROSS_ATTENTION_FIRST, at[0]);
        return st ? st : set(c, "cross_attention_layers", LLMMEM_KEY_CROSS_ATTENTION_INTERVAL, step);
    }
    if (layers > LLMMEM_LAYER_MAP_MAX)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "cross_attention_layers",
                       "not periodic, and more than %d layers are not modelled layer by layer", LLMMEM_LAYER_MAP_MAX);
    llmmem__layer_map map;
    memset(&map, 0, sizeof map);
    for (int64_t l = 0, k = 0; l < layers; l++) {
        int is_cross = (size_t)k < n && at[k] == l;
        k += is_cross;
        llmmem__layer_map_push(&map, is_cross ? LLMMEM_MIXER_CROSS : LLMMEM_MIXER_FULL);
    }
    llmmem__model_set_layer_map(c->m, &map);
    return LLMMEM_OK;
}

/* MllamaVisionConfig: hidden_size=1280, intermediate_size=5120, num_hidden_layers=32,
 * num_global_layers=8, num_channels=3, image_size=448, patch_size=14, max_num_tiles=4,
 * vision_output_dim=7680, supported_aspect_ratios (None: the 8 of max_num_tiles 4); attention_heads
 * and intermediate_layers_indices change no count. */
static const hf_field mllama_vision_fields[] = {
    REQ("hidden_size", LLMMEM_KEY_VISION_HIDDEN_SIZE, 1280),
    REQ("intermediate_size", LLMMEM_KEY_VISION_INTERMEDIATE_SIZE, 5120),
    REQ("num_hidden_layers", LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS, 32),
    REQ("num_global_layers", LLMMEM_KEY_VISION_NUM_GLOBAL_LAYERS, 8),
    REQ("patch_size", LLMMEM_KEY_VISION_PATCH_SIZE, 14),
    REQ("image_size", LLMMEM_KEY_VISION_IMAGE_SIZE, 448),
    OPT("num_channels", LLMMEM_KEY_VISION_NUM_CHANNELS, 3),
    REQ("vision_output_dim", LLMMEM_KEY_VISION_OUTPUT_DIM, 7680),
};

static llmmem_status read_mllama_tiles(const hf *c, const llmmem__json *obj)
{
    int64_t tiles = 4;
    llmmem_status st = required(c, obj, NAMES("max_num_tiles"), LLMMEM_KEY_VISION_MAX_NUM_TILES, 4, &tiles);
    if (st)
        return st;
    const llmmem__json *ratios = llmmem__json_object_get(obj, "supported_aspect_ratios");
    if (!ratios || llmmem__json_is_null(ratios)) {
        if (tiles != 4) /* MllamaVisionConfig raises: the default list is max_num_tiles 4's */
            return hf_fail(c, LLMMEM_ERR_INCOMPLETE, "supported_aspect_ratios", "is missing, and max_num_tiles is %lld, "
                           "not 4", (long long)tiles);
        return set(c, "supported_aspect_ratios", LLMMEM_KEY_VISION_MAX_ASPECT_RATIO_ID, 8);
    }
    if (!llmmem__json_is_array(ratios))
        return hf_fail(c, LLMMEM_ERR_PARSE, "supported_aspect_ratios", "expected an array, got %s", kind(ratios));
    return set(c, "supported_aspect_ratios", LLMMEM_KEY_VISION_MAX_ASPECT_RATIO_ID,
               (int64_t)llmmem__json_array_size(ratios));
}

/* mllama_text_model: Llama's fields and cross_attention_layers. */
static llmmem_status read_mllama_text(const hf *c, const llmmem__json *obj)
{
    llmmem_status st = read_llama_like(c, obj);
    return st ? st : read_cross_layers(c, obj, llmmem__get_int(&c->m->s, LLMMEM_KEY_NUM_HIDDEN_LAYERS));
}

/* Gemma4Config: text_config (Gemma4TextConfig), and when given vision_config (Gemma4VisionConfig:
 * hidden_size=768, intermediate_size=3072, num_hidden_layers=16, num_attention_heads=12,
 * num_key_value_heads=12, head_dim=64, patch_size=16, position_embedding_size=10240, standardize=False) and
 * audio_config (Gemma4AudioConfig: hidden_size=1024, num_hidden_layers=12, num_attention_heads=8,
 * subsampling_conv_channels=[128, 32], conv_kernel_size=5, output_proj_dims=1536), each with its embedder. */
static const hf_field gemma4_vision_fields[] = {
    REQ("hidden_size", LLMMEM_KEY_VISION_HIDDEN_SIZE, 768),
    REQ("intermediate_size", LLMMEM_KEY_VISION_INTERMEDIATE_SIZE, 3072),
    REQ("num_hidden_layers", LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS, 16),
    REQ("num_attention_heads", LLMMEM_KEY_VISION_NUM_ATTENTION_HEADS, 12),
    REQ("patch_size", LLMMEM_KEY_VISION_PATCH_SIZE, 16),
    REQ("position_embedding_size", LLMMEM_KEY_VISION_NUM_POSITION_EMBEDDINGS, 10240),
    FLAG("standardize", LLMMEM_KEY_VISION_STANDARDIZE, 0),
};
static const hf_tower gemma4_tower = {NULL, LLMMEM__VISION_GEMMA4, FIELDS(gemma4_vision_fields), NULL};
static const hf_field gemma4_audio_fields[] = {
    REQ("hidden_size", LLMMEM_KEY_AUDIO_HIDDEN_SIZE, 1024),
    REQ("num_hidden_layers", LLMMEM_KEY_AUDIO_NUM_HIDDEN_LAYERS, 12),
    REQ("num_attention_heads", LLMMEM_KEY_AUDIO_NUM_ATTENTION_HEADS, 8),
    REQ("conv_kernel_size", LLMMEM_KEY_AUDIO_CONV_KERNEL_SIZE, 5),
    REQ("output_proj_dims", LLMMEM_KEY_AUDIO_OUTPUT_PROJ_DIMS, 1536),
};

static llmmem_status read_gemma4(const hf *c, const llmmem__json *root, const llmmem__json **text_out)
{
    const llmmem__json *text;
    llmmem_status st = sub_config(c, root, "text_config", "gemma4", &text);
    if (st)
        return st;
    const char *type;
    hf sub = *c;
    sub.nested = 1;
    sub.prefix = "text_config.";
    st = sub_type(&sub, text, "gemma4_text", &type);
    if (st)
        return st;
    if (strcmp(type, "gemma4_text") != 0)
        return unsupported_string(&sub, "model_type", type, "gemma4 takes gemma4_text");
    st = read_text(&sub, text);
    if (st)
        return st;
    *text_out = text;
    const llmmem__json *vision = llmmem__json_object_get(root, "vision_config");
    if (vision && !llmmem__json_is_null(vision)) {
        sub.prefix = "vision_config.";
        sub.type = "gemma4_vision";
        if (!llmmem__json_is_object(vision))
            return hf_fail(c, LLMMEM_ERR_PARSE, "vision_config", "expected an object, got %s", kind(vision));
        st = read_tower(&sub, vision, &gemma4_tower);
        const int64_t hidden = llmmem__get_int(&c->m->s, LLMMEM_KEY_VISION_HIDDEN_SIZE);
        const int64_t heads = llmmem__get_int(&c->m->s, LLMMEM_KEY_VISION_NUM_ATTENTION_HEADS);
        int64_t kv = heads, head_dim = heads ? hidden / heads : 0;
        if (!st && (st = get_int(&sub, vision, "num_key_value_heads", &kv, &(enum presence){ABSENT})) == LLMMEM_OK &&
            (st = get_int(&sub, vision, "head_dim", &head_dim, &(enum presence){ABSENT})) == LLMMEM_OK &&
            /* head_dim x heads = hidden, by division: the file's head_dim is unbounded */
            (kv != heads || (heads ? hidden % heads != 0 || hidden / heads != head_dim : hidden != 0)))
            return hf_fail(&sub, LLMMEM_ERR_UNSUPPORTED, "num_key_value_heads",
                           "%lld KV heads of head_dim %lld beside %lld heads of a %lld-wide tower: only heads x "
                           "head_dim = hidden_size without grouped KV heads is modelled",
                           (long long)kv, (long long)head_dim, (long long)heads, (long long)hidden);
        if (!st)
            st = set(c, "model_type", LLMMEM_KEY_MULTIMODAL_PROJECTOR, LLMMEM__PROJECTOR_GEMMA4);
        if (st)
            return st;
    }
    const llmmem__json *audio = llmmem__json_object_get(root, "audio_config");
    if (!audio || llmmem__json_is_null(audio))
        return LLMMEM_OK;
    if (!llmmem__json_is_object(audio))
        return hf_fail(c, LLMMEM_ERR_PARSE, "audio_config", "expected an object, got %s", kind(audio));
    sub.prefix = "audio_config.";
    sub.type = "gemma4_audio";
    int64_t channels[2] = {128, 32};
    const llmmem__json *list = llmmem__json_object_get(audio, "subsampling_conv_channels");
    if (list && !llmmem__json_is_null(list)) {
        if (!llmmem__json_is_array(list) || llmmem__json_array_size(list) != 2 ||
            !llmmem__json_is_integer(llmmem__json_array_get(list, 0)) ||
            !llmmem__json_is_integer(llmmem__json_array_get(list, 1)))
            return hf_fail(&sub, LLMMEM_ERR_PARSE, "subsampling_conv_channels", "expected two integers");
        channels[0] = llmmem__json_integer_value(llmmem__json_array_get(list, 0));
        channels[1] = llmmem__json_integer_value(llmmem__json_array_get(list, 1));
    }
    st = read_fields(&sub, audio, FIELDS(gemma4_audio_fields));
    if (!st)
        st = set(&sub, "subsampling_conv_channels", LLMMEM_KEY_AUDIO_SUBSAMPLING_CHANNELS_0, channels[0]);
    if (!st)
        st = set(&sub, "subsampling_conv_channels", LLMMEM_KEY_AUDIO_SUBSAMPLING_CHANNELS_1, channels[1]);
    return st;
}

/* vision_feature_layer of a LLaVA-style wrapper: one layer's features (an integer or null); a list
 * concatenates several layers' and widens the projector's input, which is not modelled. */
static llmmem_status read_feature_layer(const hf *c, const llmmem__json *root)
{
    const llmmem__json *layer = llmmem__json_object_get(root, "vision_feature_layer");
    if (!layer || llmmem__json_is_integer(layer) || llmmem__json_is_null(layer))
        return LLMMEM_OK;
    if (llmmem__json_is_array(layer))
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "vision_feature_layer",
                       "a list of feature layers widens the projector, which is not modelled");
    return hf_fail(c, LLMMEM_ERR_PARSE, "vision_feature_layer", "expected an integer, got %s", kind(layer));
}

/* ---- Qwen-VL ---------------------------------------------------------------------------------- */

/* The Qwen2.5-VL and Qwen3-VL vision_config: Qwen2_5_VLVisionConfig (depth=32, hidden_size=3584,
 * intermediate_size=3420, num_heads=16, in_channels=3, patch_size=14, spatial_merge_size=2,
 * temporal_patch_size=2, out_hidden_size=3584) and Qwen3VLVisionConfig (depth=27, hidden_size=1152,
 * intermediate_size=4304, num_heads=16, in_channels=3, patch_size=16, spatial_merge_size=2,
 * temporal_patch_size=2, out_hidden_size=3584, num_position_embeddings=2304,
 * deepstack_visual_indexes=[8, 16, 24]). Older Qwen2.5-VL configs also write in_chans, which the
 * class takes into kwargs: only in_channels reaches the Conv3d. */
#define QWEN_VISION_FIELDS(depth, hidden, intermediate, patch)                                     \
    REQ("depth", LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS, (depth)),                                    \
    REQ("hidden_size", LLMMEM_KEY_VISION_HIDDEN_SIZE, (hidden)),                                   \
    REQ("intermediate_size", LLMMEM_KEY_VISION_INTERMEDIATE_SIZE, (intermediate)),                 \
    REQ("num_heads", LLMMEM_KEY_VISION_NUM_ATTENTION_HEADS, 16),                                   \
    OPT("in_channels", LLMMEM_KEY_VISION_NUM_CHANNELS, 3),                                         \
    REQ("patch_size", LLMMEM_KEY_VISION_PATCH_SIZE, (patch)),                                      \
    REQ("spatial_merge_size", LLMMEM_KEY_VISION_SPATIAL_MERGE_SIZE, 2),                            \
    REQ("temporal_patch_size", LLMMEM_KEY_VISION_TEMPORAL_PATCH_SIZE, 2),                          \
    REQ("out_hidden_size", LLMMEM_KEY_VISION_OUT_HIDDEN_SIZE, 3584)
static const hf_field qwen2_5_vl_vision_fields[] = {
    QWEN_VISION_FIELDS(32, 3584, 3420, 14),
    /* Qwen2_5_VLVisionConfig window_size=112, fullatt_block_indexes=[7, 15, 23, 31] */
    REQ("window_size", LLMMEM_KEY_VISION_WINDOW_SIZE, 112),
};
static const hf_field qwen3_vl_vision_fields[] = {
    QWEN_VISION_FIELDS(27, 1152, 4304, 16),
    REQ("num_position_embeddings", LLMMEM_KEY_VISION_NUM_POSITION_EMBEDDINGS, 2304),
};
#undef QWEN_VISION_FIELDS

/* The length of a list field onto a key, `dflt` when absent or null (the class default's). */
static llmmem_status list_length(const hf *c, const llmmem__json *obj, const char *field, llmmem_key key,
                                 int64_t dflt)
{
    const llmmem__json *list = llmmem__json_object_get(obj, field);
    if (list && !llmmem__json_is_null(list)) {
        if (!llmmem__json_is_array(list))
            return hf_fail(c, LLMMEM_ERR_PARSE, field, "expected an array, got %s", kind(list));
        dflt = (int64_t)llmmem__json_array_size(list);
    }
    return set(c, field, key, dflt);
}

static llmmem_status read_fullatt_blocks(const hf *c, const llmmem__json *obj)
{
    return list_length(c, obj, "fullatt_block_indexes", LLMMEM_KEY_VISION_FULLATT_BLOCKS, 4);
}

static llmmem_status read_deepstack(const hf *c, const llmmem__json *obj)
{
    return list_length(c, obj, "deepstack_visual_indexes", LLMMEM_KEY_VISION_DEEPSTACK_LAYERS, 3);
}

static const hf_tower qwen2_5_vl_tower = {NULL, LLMMEM__VISION_QWEN2_5_VL, FIELDS(qwen2_5_vl_vision_fields),
                                          read_fullatt_blocks};
static const hf_tower qwen3_vl_tower = {NULL, LLMMEM__VISION_QWEN3_VL, FIELDS(qwen3_vl_vision_fields), read_deepstack};

/* Qwen2_5_VLConfig, Qwen3VLConfig, Qwen3VLMoeConfig, Qwen3_5Config, Qwen3_5MoeConfig: the text model's fields
 * in text_config (Qwen3-VL and Qwen3.5 always; Qwen2.5-VL since transformers 4.53, which keeps them at the top
 * level as well), else at the top level (Qwen2.5-VL as first published); the vision tower in vision_config
 * (Qwen3.5's is Qwen3-VL's without deepstack mergers: Qwen3_5VisionModel). */
static llmmem_status read_qwen_vl(hf *c, const llmmem__json *root, const llmmem__json **text_out)
{
    const int qwen3 = c->fam->type != LLMMEM_MODEL_QWEN2_5_VL;
    const int qwen3_5 = c->fam->type == LLMMEM_MODEL_QWEN3_5 || c->fam->type == LLMMEM_MODEL_QWEN3_5_MOE;
    const llmmem__json *text = llmmem__json_object_get(root, "text_config"), *vision;
    llmmem_status st = sub_config(c, root, "vision_config", c->fam->name, &vision);
    if (st)
        return st;
    hf sub = *c;
    if (qwen3 || (text && !llmmem__json_is_null(text))) {
        st = sub_config(c, root, "text_config", c->fam->name, &text);
        if (st)
            return st;
        static const char *const text_types[] = {"qwen2_5_vl_text", "qwen3_vl_text", "qwen3_vl_moe_text"};
        const char *want = c->fam->type == LLMMEM_MODEL_QWEN3_5       ? "qwen3_5_text"
                           : c->fam->type == LLMMEM_MODEL_QWEN3_5_MOE ? "qwen3_5_moe_text"
                                                                      : text_types[c->fam->type - LLMMEM_MODEL_QWEN2_5_VL];
        const char *type;
        sub.nested = 1;
        sub.prefix = "text_config.";
        st = sub_type(&sub, text, want, &type);
        if (st)
            return st;
        /* Qwen2.5-VL's text_config first carried the top-level model_type */
        if (strcmp(type, want) != 0 && strcmp(type, c->fam->name) != 0) {
            char supported[64];
            snprintf(supported, sizeof supported, "%s takes %s", c->fam->name, want);
            return unsupported_string(&sub, "model_type", type, supported);
        }
    } else {
        text = root;
    }
    st = read_text(&sub, text);
    if (st)
        return st;
    sub.nested = 1;
    sub.prefix = "vision_config.";
    sub.type = c->fam->name;
    st = read_tower(&sub, vision, qwen3 ? &qwen3_vl_tower : &qwen2_5_vl_tower);
    if (!st && qwen3_5) /* Qwen3_5VisionModel: blocks and merger, no deepstack_merger_list */
        st = set(&sub, "deepstack_visual_indexes", LLMMEM_KEY_VISION_DEEPSTACK_LAYERS, 0);
    if (!st)
        st = set(c, "model_type", LLMMEM_KEY_MULTIMODAL_PROJECTOR,
                 qwen3 ? LLMMEM__PROJECTOR_QWEN3_VL_MERGER : LLMMEM__PROJECTOR_QWEN2_5_VL_MERGER);
    *text_out = text;
    return st;
}

/* ---- LLaVA-style wrappers ---------------------------------------------------------------------- */

/* PixtralVisionConfig: hidden_size=1024, intermediate_size=4096, num_hidden_layers=24,
 * num_attention_heads=16, num_channels=3, image_size=1024, patch_size=16. */
static const hf_field pixtral_fields[] = {
    REQ("hidden_size", LLMMEM_KEY_VISION_HIDDEN_SIZE, 1024),
    REQ("intermediate_size", LLMMEM_KEY_VISION_INTERMEDIATE_SIZE, 4096),
    REQ("num_hidden_layers", LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS, 24),
    REQ("num_attention_heads", LLMMEM_KEY_VISION_NUM_ATTENTION_HEADS, 16),
    OPT("num_channels", LLMMEM_KEY_VISION_NUM_CHANNELS, 3),
    REQ("image_size", LLMMEM_KEY_VISION_IMAGE_SIZE, 1024),
    REQ("patch_size", LLMMEM_KEY_VISION_PATCH_SIZE, 16),
};
/* Mistral3MultiModalProjector: spatial_merge_size=2. */
static const hf_field mistral3_top_fields[] = {
    OPT("spatial_merge_size", LLMMEM_KEY_VISION_SPATIAL_MERGE_SIZE, 2),
};

/* A wrapper of a text_config and a vision_config (both required objects), read in this order: the
 * top level's vision_feature_layer and multimodal_projector_bias, the text config, the vision config,
 * the top level's fields, the projector. */
typedef struct hf_wrapper {
    const char *type;                  /* the wrapper's model_type, as its messages name it */
    const char *const *text_types;     /* text_config model_types taken, the first when absent or null */
    uint8_t any_text;                  /* every text family is taken */
    const char *text_refusal;          /* unsupported_string's text for another */
    /* NULL: the named text family's reader; else the common checks and this, under the wrapper's family */
    llmmem_status (*text)(const hf *c, const llmmem__json *obj);
    int64_t model_type;                /* the model_type once the text is read; 0: the text family's */
    const hf_tower *const *towers;     /* NULL-ended; the first when vision_config's model_type is absent or null */
    const char *vision_refusal;
    uint8_t feature_layer;             /* read_feature_layer */
    const char *bias_why;              /* multimodal_projector_bias: NULL not read, else refused when */
    int8_t bias_refused, bias_dflt;    /* `bias_refused`, `bias_dflt` when absent or null */
    const hf_field *top;               /* top-level fields after the tower */
    size_t n_top;
    int64_t projector;                 /* LLMMEM_KEY_MULTIMODAL_PROJECTOR */
} hf_wrapper;

static int named_in(const char *type, const char *const *names)
{
    for (; *names; names++)
        if (strcmp(type, *names) == 0)
            return 1;
    return 0;
}

static llmmem_status read_wrapper(const hf *c, const hf_wrapper *w, const llmmem__json *root,
                                  const llmmem__json **text_out)
{
    const llmmem__json *text, *vision;
    llmmem_status st = sub_config(c, root, "text_config", w->type, &text);
    if (!st)
        st = sub_config(c, root, "vision_config", w->type, &vision);
    if (!st && w->feature_layer)
        st = read_feature_layer(c, root);
    if (!st && w->bias_why)
        st = refuse_if(c, root, "multimodal_projector_bias", w->bias_refused, w->bias_dflt, w->bias_why);
    if (st)
        return st;
    const char *type;
    hf sub = *c;
    sub.nested = 1;
    sub.prefix = "text_config.";
    st = sub_type(&sub, text, w->text_types[0], &type);
    if (st)
        return st;
    if ((!w->any_text && !named_in(type, w->text_types)) || (!w->text && !llmmem__family_named(type)))
        return unsupported_string(&sub, "model_type", type, w->text_refusal);
    if (w->text) {
        sub.type = *type ? type : w->type; /* a text_config named by no model_type: the wrapper's */
        st = read_common_checks(&sub, text);
        if (!st)
            st = w->text(&sub, text);
    } else {
        sub.fam = llmmem__family_named(type);
        sub.type = sub.fam->name;
        st = read_text(&sub, text);
    }
    if (!st && w->model_type) /* the text family's class defaults read, the model is the wrapper's */
        st = set(c, "model_type", LLMMEM_KEY_MODEL_TYPE, w->model_type);
    if (st)
        return st;
    sub.prefix = "vision_config.";
    st = sub_type(&sub, vision, w->towers[0]->type, &type);
    if (st)
        return st;
    const hf_tower *const *t = w->towers;
    while (*t && strcmp(type, (*t)->type) != 0)
        t++;
    if (!*t)
        return unsupported_string(&sub, "model_type", type, w->vision_refusal);
    sub.type = *(*t)->type ? (*t)->type : w->type; /* a tower named by no model_type: the wrapper's */
    st = read_tower(&sub, vision, *t);
    if (!st)
        st = read_fields(c, root, w->top, w->n_top);
    if (!st)
        st = set(c, "model_type", LLMMEM_KEY_MULTIMODAL_PROJECTOR, w->projector);
    if (text_out)
        *text_out = text;
    return st;
}

static const hf_tower pixtral_tower = {"pixtral", LLMMEM__VISION_PIXTRAL, FIELDS(pixtral_fields), NULL};
static const hf_tower llama4_tower = {"llama4_vision_model", LLMMEM__VISION_LLAMA4, FIELDS(llama4_vision_fields),
                                      NULL};
static const hf_tower mllama_tower = {"mllama_vision_model", LLMMEM__VISION_MLLAMA, FIELDS(mllama_vision_fields),
                                      read_mllama_tiles};
#define TOWERS(...) ((const hf_tower *const[]){__VA_ARGS__, NULL})

/* LlavaConfig: text_config of a text model_type (llama when absent), vision_config
 * (clip_vision_model when absent); LlavaMultiModalProjector: linear_1 from the vision width
 * (times the number of feature layers) and linear_2, biased unless multimodal_projector_bias
 * is false. */
static const hf_wrapper llava_wrapper = {
    .type = "llava", .text_types = NAMES("llama"), .any_text = 1,
    .text_refusal = "llava takes a text model_type such as llama or mistral",
    .towers = TOWERS(&clip_tower, &siglip_tower), .vision_refusal = "clip_vision_model and siglip_vision_model are",
    .feature_layer = 1, .bias_why = "a projector without biases is not modelled", .bias_refused = 0, .bias_dflt = 1,
    .projector = LLMMEM__PROJECTOR_LLAVA_MLP};
/* Mistral3Config: text_config a MistralConfig (or the model_type it names: ministral3), vision_config
 * a PixtralVisionConfig, joined by Mistral3MultiModalProjector: spatial_merge_size=2,
 * multimodal_projector_bias=False, vision_feature_layer=-1 (a list widens linear_1, not modelled). */
static const hf_wrapper mistral3_wrapper = {
    .type = "mistral3", .text_types = NAMES("mistral", "ministral3"),
    .text_refusal = "mistral3 takes mistral and ministral3", .model_type = LLMMEM_MODEL_MISTRAL3,
    .towers = TOWERS(&pixtral_tower), .vision_refusal = "mistral3 takes pixtral",
    .feature_layer = 1, .bias_why = "a biased Mistral 3 projector is not modelled", .bias_refused = 1, .bias_dflt = 0,
    .top = FIELDS(mistral3_top_fields), .projector = LLMMEM__PROJECTOR_MISTRAL3};
/* Gemma3Config: text_config is a Gemma3TextConfig, vision_config a SiglipVisionConfig, joined
 * by Gemma3MultiModalProjector. */
static const hf_wrapper gemma3_wrapper = {
    .type = "gemma3", .text_types = NAMES("gemma3_text"), .text_refusal = "gemma3 takes gemma3_text",
    .towers = TOWERS(&siglip_tower), .vision_refusal = "gemma3 takes siglip_vision_model",
    .projector = LLMMEM__PROJECTOR_GEMMA3};
/* Llama4Config: text_config (llama4_text) and vision_config (llama4_vision_model), joined by
 * Llama4MultiModalProjector. */
static const hf_wrapper llama4_wrapper = {
    .type = "llama4", .text_types = NAMES("llama4_text"), .text_refusal = "llama4 takes llama4_text",
    .text = read_llama4_text, .towers = TOWERS(&llama4_tower), .vision_refusal = "llama4 takes llama4_vision_model",
    .projector = LLMMEM__PROJECTOR_LLAMA4};
/* MllamaConfig: text_config (mllama_text_model: Llama's fields and cross_attention_layers) and
 * vision_config (mllama_vision_model), joined by the multi_modal_projector. */
static const hf_wrapper mllama_wrapper = {
    .type = "mllama", .text_types = NAMES("mllama_text_model"), .text_refusal = "mllama takes mllama_text_model",
    .text = read_mllama_text, .towers = TOWERS(&mllama_tower), .vision_refusal = "mllama takes mllama_vision_model",
    .projector = LLMMEM__PROJECTOR_MLLAMA};

/* Kimi-K2.5's MoonViT (moonshotai/Kimi-K2.5's published vision_config, r33 SOURCES id 62530201892): vt_hidden_size,
 * vt_intermediate_size, vt_num_hidden_layers, vt_num_attention_heads, 14-pixel patches; text_hidden_size the
 * width the projector gives the text model. */
static const hf_field moonvit_fields[] = {
    REQ("vt_hidden_size", LLMMEM_KEY_VISION_HIDDEN_SIZE, 1152),
    REQ("vt_intermediate_size", LLMMEM_KEY_VISION_INTERMEDIATE_SIZE, 4304),
    REQ("vt_num_hidden_layers", LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS, 27),
    REQ("vt_num_attention_heads", LLMMEM_KEY_VISION_NUM_ATTENTION_HEADS, 16),
    REQ("patch_size", LLMMEM_KEY_VISION_PATCH_SIZE, 14),
    OPT("text_hidden_size", LLMMEM_KEY_VISION_OUT_HIDDEN_SIZE, 0),
};

/* How a MoonViT reader words its checks: its family's position rows and projector. */
typedef struct moonvit_words {
    const char *rows, *pos_emb, *projector, *projector_why;
} moonvit_words;

/* MoonViT's learned position table of init_pos_emb_height x init_pos_emb_width rows ('divided_fixed': the time
 * embedding is a fixed sin-cos buffer), merge_kernel_size a square the patch merger joins, and the mm_projector
 * (words->projector, over mm_hidden_size, the tower's width). */
static llmmem_status moonvit_rest(const hf *c, const llmmem__json *obj, const moonvit_words *words)
{
    int64_t h = 64, w = 64, mm = 0;
    enum presence ph, pw, pm;
    llmmem_status st = get_int(c, obj, "init_pos_emb_height", &h, &ph);
    if (!st)
        st = get_int(c, obj, "init_pos_emb_width", &w, &pw);
    if (!st && (ph != PRESENT || pw != PRESENT))
        return hf_fail(c, LLMMEM_ERR_INCOMPLETE, ph != PRESENT ? "init_pos_emb_height" : "init_pos_emb_width",
                       "is missing or null (the rows of %s's position table)", words->rows);
    if (!st)
        st = string_must_be(c, obj, "pos_emb_type", "divided_fixed", words->pos_emb);
    if (!st)
        st = string_must_be(c, obj, "mm_projector_type", words->projector, words->projector_why);
    if (st)
        return st;
    if (h < 1 || w < 1 || h > (1 << 20) || w > (1 << 20))
        return hf_fail(c, LLMMEM_ERR_OUT_OF_RANGE, h < 1 || h > (1 << 20) ? "init_pos_emb_height" : "init_pos_emb_width",
                       "%lld is not within 1 .. 1048576", (long long)(h < 1 || h > (1 << 20) ? h : w));
    st = set(c, "init_pos_emb_height", LLMMEM_KEY_VISION_NUM_POSITION_EMBEDDINGS, h * w);
    const llmmem__json *k = llmmem__json_object_get(obj, "merge_kernel_size");
    int64_t merge = 2;
    if (!st && k && !llmmem__json_is_null(k)) {
        if (!llmmem__json_is_array(k) || llmmem__json_array_size(k) != 2 ||
            !llmmem__json_is_integer(llmmem__json_array_get(k, 0)) ||
            llmmem__json_integer_value(llmmem__json_array_get(k, 0)) !=
                llmmem__json_integer_value(llmmem__json_array_get(k, 1)))
            return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "merge_kernel_size", "only a square [n, n] is modelled");
        merge = llmmem__json_integer_value(llmmem__json_array_get(k, 0));
    }
    if (!st)
        st = set(c, "merge_kernel_size", LLMMEM_KEY_VISION_SPATIAL_MERGE_SIZE, merge);
    if (!st)
        st = get_int(c, obj, "mm_hidden_size", &mm, &pm);
    if (!st && pm == PRESENT && mm != llmmem__get_int(&c->m->s, LLMMEM_KEY_VISION_HIDDEN_SIZE))
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "mm_hidden_size",
                       "%lld differs from vt_hidden_size: a projector over another width is not modelled", (long long)mm);
    return st;
}

static llmmem_status read_moonvit_rest(const hf *c, const llmmem__json *obj)
{
    static const moonvit_words k25 = {"kimi_k25", "kimi_k25's MoonViT takes divided_fixed", "patchmerger",
                                      "kimi_k25 takes patchmerger"};
    return moonvit_rest(c, obj, &k25);
}

static const hf_tower moonvit_tower = {"", LLMMEM__VISION_MOONVIT, FIELDS(moonvit_fields), read_moonvit_rest};
/* KimiK25Config: text_config a DeepseekV3Config (deepseek_v3, or kimi_k2), vision_config MoonViT's (its
 * model_type absent or empty), joined by the patchmerger mm_projector. */
static const hf_wrapper kimi_k25_wrapper = {
    .type = "kimi_k25", .text_types = NAMES("deepseek_v3", "kimi_k2"),
    .text_refusal = "kimi_k25 takes deepseek_v3 and kimi_k2", .model_type = LLMMEM_MODEL_KIMI_K25,
    .towers = TOWERS(&moonvit_tower), .vision_refusal = "kimi_k25 takes MoonViT (a vision_config without a model_type)",
    .projector = LLMMEM__PROJECTOR_KIMI_K25};

/* Kimi K3's MoonViT (KimiK3VisionConfig, remote code; its fields and defaults as the inference engines mirror
 * them: tokenspeed configs/kimi_k3.py "defaults mirror the checkpoint's vision_config", stored index id
 * 67572953584; vllm-ascend kimi_k3 vision, id 62082929369): vt_hidden_size=1024, vt_intermediate_size=4096,
 * vt_num_hidden_layers=27, vt_num_attention_heads=12, qkv_hidden_size=1536, patch_size=14, RMSNorms, no bias on the
 * patch embedding, attention or MLP (attn_bias, linear_bias, patch_embed_proj_bias false), mlp2 (fc0, fc1). */
static const hf_field kimi_k3_vision_fields[] = {
    REQ("vt_hidden_size", LLMMEM_KEY_VISION_HIDDEN_SIZE, 1024),
    REQ("vt_intermediate_size", LLMMEM_KEY_VISION_INTERMEDIATE_SIZE, 4096),
    REQ("vt_num_hidden_layers", LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS, 27),
    REQ("vt_num_attention_heads", LLMMEM_KEY_VISION_NUM_ATTENTION_HEADS, 12),
    REQ("qkv_hidden_size", LLMMEM_KEY_VISION_QKV_SIZE, 1536),
    REQ("patch_size", LLMMEM_KEY_VISION_PATCH_SIZE, 14),
    OPT("text_hidden_size", LLMMEM_KEY_VISION_OUT_HIDDEN_SIZE, 0),
    REFUSE("attn_bias", 1, 0, "kimi_k3's MoonViT with attention biases is not modelled"),
    REFUSE("linear_bias", 1, 0, "kimi_k3's MoonViT with MLP biases is not modelled"),
    REFUSE("patch_embed_proj_bias", 1, 0, "kimi_k3's MoonViT with a biased patch embedding is not modelled"),
};

/* K3's tower: RMSNorms and the fc0/fc1 MLP (norm_type rmsnorm, mlp_type mlp2), MoonViT's position table and
 * merge, the PatchMergerV2 projector (mm_projector_type patchmergerv2). */
static llmmem_status read_kimi_k3_vision_rest(const hf *c, const llmmem__json *obj)
{
    static const struct {
        const char *field, *want, *why;
    } kinds[] = {{"norm_type", "rmsnorm", "kimi_k3's MoonViT takes rmsnorm"},
                 {"mlp_type", "mlp2", "kimi_k3's MoonViT takes mlp2"}};
    static const moonvit_words k3 = {"kimi_k3", "kimi_k3's MoonViT takes divided_fixed", "patchmergerv2",
                                     "kimi_k3 takes patchmergerv2"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        llmmem_status st = string_must_be(c, obj, kinds[i].field, kinds[i].want, kinds[i].why);
        if (st)
            return st;
    }
    return moonvit_rest(c, obj, &k3);
}

static const hf_tower kimi_k3_tower = {"kimi_k3_vision", LLMMEM__VISION_MOONVIT_K3, FIELDS(kimi_k3_vision_fields),
                                       read_kimi_k3_vision_rest};
/* KimiK3Config: text_config a KimiLinearConfig (kimi_linear) read under this family, vision_config a
 * KimiK3VisionConfig (kimi_k3_vision, or no model_type), joined by the PatchMergerV2 mm_projector. */
static const hf_wrapper kimi_k3_wrapper = {
    .type = "kimi_k3", .text_types = NAMES("kimi_linear"), .text_refusal = "kimi_k3 takes kimi_linear",
    .text = read_kimi_linear, .model_type = LLMMEM_MODEL_KIMI_K3, .towers = TOWERS(&kimi_k3_tower),
    .vision_refusal = "kimi_k3 takes kimi_k3_vision", .projector = LLMMEM__PROJECTOR_KIMI_K3};

/* Exaone4_5_VisionConfig (transformers models/exaone4_5/configuration_exaone4_5.py): Qwen2_5_VLVisionConfig's
 * fields and defaults (depth=32, hidden_size=3584, intermediate_size=3420, num_heads=16, in_channels=3,
 * patch_size=14, spatial_merge_size=2, temporal_patch_size=2, out_hidden_size=3584, window_size=112,
 * fullatt_block_indexes 4 entries) and num_key_value_heads=8. */
static const hf_field exaone4_5_vision_fields[] = {
    REQ("depth", LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS, 32),
    REQ("hidden_size", LLMMEM_KEY_VISION_HIDDEN_SIZE, 3584),
    REQ("intermediate_size", LLMMEM_KEY_VISION_INTERMEDIATE_SIZE, 3420),
    REQ("num_heads", LLMMEM_KEY_VISION_NUM_ATTENTION_HEADS, 16),
    REQ("num_key_value_heads", LLMMEM_KEY_VISION_NUM_KEY_VALUE_HEADS, 8),
    OPT("in_channels", LLMMEM_KEY_VISION_NUM_CHANNELS, 3),
    REQ("patch_size", LLMMEM_KEY_VISION_PATCH_SIZE, 14),
    REQ("spatial_merge_size", LLMMEM_KEY_VISION_SPATIAL_MERGE_SIZE, 2),
    REQ("temporal_patch_size", LLMMEM_KEY_VISION_TEMPORAL_PATCH_SIZE, 2),
    REQ("out_hidden_size", LLMMEM_KEY_VISION_OUT_HIDDEN_SIZE, 3584),
    REQ("window_size", LLMMEM_KEY_VISION_WINDOW_SIZE, 112),
};
static const hf_tower exaone4_5_tower = {"exaone4_5_vision", LLMMEM__VISION_EXAONE4_5, FIELDS(exaone4_5_vision_fields),
                                         read_fullatt_blocks};
/* Exaone4_5_Config: text_config an Exaone4Config (exaone4, or exaone4_5_text as first released), read with
 * EXAONE 4's reader and class defaults under this family; vision_config an Exaone4_5_VisionConfig; joined by
 * Exaone4_5_PatchMerger (Qwen2_5_VLPatchMerger). */
static const hf_wrapper exaone4_5_wrapper = {
    .type = "exaone4_5", .text_types = NAMES("exaone4", "exaone4_5_text"),
    .text_refusal = "exaone4_5 takes exaone4 and exaone4_5_text", .text = read_llama_like,
    .model_type = LLMMEM_MODEL_EXAONE4_5, .towers = TOWERS(&exaone4_5_tower),
    .vision_refusal = "exaone4_5 takes exaone4_5_vision", .projector = LLMMEM__PROJECTOR_QWEN2_5_VL_MERGER};
/* MiniMax-M3's vision_config (model_type clip_vision_model; MiniMaxM3VisionModel in Megatron-Bridge
 * models/minimax_m3/modeling_minimax_m3_vl.py): its shapes required (CLIPVisionConfig's defaults are not its
 * tower's), position_embedding_type rope (3D RoPE: no position table). */
static llmmem_status read_minimax_m3_rope(const hf *c, const llmmem__json *obj)
{
    return string_must_be(c, obj, "position_embedding_type", "rope",
                          "minimax_m3_vl's tower takes rope: a learned position table is not modelled");
}

static const hf_field minimax_m3_vision_fields[] = {
    REQ("hidden_size", LLMMEM_KEY_VISION_HIDDEN_SIZE, CLASS_NONE),
    REQ("intermediate_size", LLMMEM_KEY_VISION_INTERMEDIATE_SIZE, CLASS_NONE),
    REQ("num_hidden_layers", LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS, CLASS_NONE),
    REQ("num_attention_heads", LLMMEM_KEY_VISION_NUM_ATTENTION_HEADS, CLASS_NONE),
    REQ("patch_size", LLMMEM_KEY_VISION_PATCH_SIZE, CLASS_NONE),
    OPT("num_channels", LLMMEM_KEY_VISION_NUM_CHANNELS, 3),
    HOOK(read_minimax_m3_rope),
};
static const hf_tower minimax_m3_tower = {"clip_vision_model", LLMMEM__VISION_MINIMAX_M3,
                                          FIELDS(minimax_m3_vision_fields), NULL};

/* img_token_compression_config (MiniMaxM3Bridge.provider_bridge: patch_merge of spatial_merge_size x
 * spatial_merge_size patches, a Conv3d over temporal_patch_size frames; 2 and 2 when absent, the provider's
 * defaults) and projector_hidden_size, the projectors' inner width, held to the text width (the published 6144). */
static llmmem_status read_minimax_m3_projectors(const hf *c, const llmmem__json *root)
{
    const llmmem__json *k = llmmem__json_object_get(root, "img_token_compression_config");
    hf sub = *c;
    sub.prefix = "img_token_compression_config.";
    llmmem_status st = LLMMEM_OK;
    if (k && !llmmem__json_is_null(k) && !llmmem__json_is_object(k))
        return hf_fail(c, LLMMEM_ERR_PARSE, "img_token_compression_config", "expected an object, got %s", kind(k));
    if (!k || llmmem__json_is_null(k))
        k = NULL;
    if (k)
        st = string_must_be(&sub, k, "image_token_compression_method", "patch_merge",
                            "minimax_m3_vl takes patch_merge");
    if (!st)
        st = k ? optional(&sub, k, "spatial_merge_size", LLMMEM_KEY_VISION_SPATIAL_MERGE_SIZE, 2, 2)
               : set(c, "img_token_compression_config", LLMMEM_KEY_VISION_SPATIAL_MERGE_SIZE, 2);
    if (!st)
        st = k ? optional(&sub, k, "temporal_patch_size", LLMMEM_KEY_VISION_TEMPORAL_PATCH_SIZE, 2, 2)
               : set(c, "img_token_compression_config", LLMMEM_KEY_VISION_TEMPORAL_PATCH_SIZE, 2);
    int64_t width = 0;
    enum presence p;
    if (!st)
        st = get_int(c, root, "projector_hidden_size", &width, &p);
    if (!st && p == PRESENT && width != llmmem__get_int(&c->m->s, LLMMEM_KEY_HIDDEN_SIZE))
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "projector_hidden_size", "%lld differs from text_config.hidden_size: "
                       "projectors of another inner width are not modelled", (long long)width);
    return st;
}
static const hf_field minimax_m3_top_fields[] = {HOOK(read_minimax_m3_projectors)};
/* MiniMaxM3VLConfig: text_config MiniMax-M3's (no model_type), vision_config its CLIP-style tower, joined by
 * multi_modal_projector and patch_merge_mlp (biased unless multimodal_projector_bias is false, not modelled). */
static const hf_wrapper minimax_m3_vl_wrapper = {
    .type = "minimax_m3_vl", .text_types = NAMES(""),
    .text_refusal = "minimax_m3_vl takes a text_config without a model_type", .text = read_minimax_m3,
    .model_type = LLMMEM_MODEL_MINIMAX_M3_VL, .towers = TOWERS(&minimax_m3_tower),
    .vision_refusal = "minimax_m3_vl takes clip_vision_model", .bias_why = "unbiased projectors are not modelled",
    .bias_refused = 0, .bias_dflt = 1, .top = FIELDS(minimax_m3_top_fields), .projector = LLMMEM__PROJECTOR_MINIMAX_M3};
#undef TOWERS

static llmmem_status read_llava(const hf *c, const llmmem__json *root, const llmmem__json **text_out)
{
    return read_wrapper(c, &llava_wrapper, root, text_out);
}

static llmmem_status read_mistral3(const hf *c, const llmmem__json *root, const llmmem__json **text_out)
{
    return read_wrapper(c, &mistral3_wrapper, root, text_out);
}

static llmmem_status read_gemma3(const hf *c, const llmmem__json *root, const llmmem__json **text_out)
{
    return read_wrapper(c, &gemma3_wrapper, root, text_out);
}

static llmmem_status read_llama4(const hf *c, const llmmem__json *root)
{
    return read_wrapper(c, &llama4_wrapper, root, NULL);
}

static llmmem_status read_mllama(const hf *c, const llmmem__json *root)
{
    return read_wrapper(c, &mllama_wrapper, root, NULL);
}

static llmmem_status read_kimi_k25(const hf *c, const llmmem__json *root, const llmmem__json **text_out)
{
    return read_wrapper(c, &kimi_k25_wrapper, root, text_out);
}

static llmmem_status read_kimi_k3(const hf *c, const llmmem__json *root, const llmmem__json **text_out)
{
    return read_wrapper(c, &kimi_k3_wrapper, root, text_out);
}

static llmmem_status read_exaone4_5(const hf *c, const llmmem__json *root, const llmmem__json **text_out)
{
    return read_wrapper(c, &exaone4_5_wrapper, root, text_out);
}

/* ---- dtype and quantization ------------------------------------------------------------------- */

/* torch_dtype (written as dtype since transformers 4.56): the top level's, else the text
 * config's (a wrapper's, or the text_config a top-level text model also holds: vllm/config/model.py
 * _find_dtype looks there next), else fp32, the dtype transformers gives a model whose config names
 * none. */
static llmmem_status read_dtype(const hf *c, const llmmem__json *root, const llmmem__json *text)
{
    const llmmem__json *objs[2] = {root, text};
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
    llmmem_status st = set(c, "torch_dtype", LLMMEM_KEY_TORCH_DTYPE, LLMMEM_FORMAT_FP32);
    /* vllm/config/model.py _find_dtype reaches its fp32 last resort here, and serves it as dtype auto says */
    return st ? st : set(c, "torch_dtype", LLMMEM_KEY_TORCH_DTYPE_IN_CONFIG, 0);
}

/* Modules a quantizer leaves unquantized that this library keeps unquantized anyway (the LM head
 * and MoE routers under GPTQ, AWQ and bitsandbytes); any other is refused. */
static llmmem_status check_skipped_modules(const hf *c, const llmmem__json *q, const char *field)
{
    const llmmem__json *list = llmmem__json_object_get(q, field);
    if (!list || llmmem__json_is_null(list))
        return LLMMEM_OK;
    if (!llmmem__json_is_array(list))
        return hf_fail(c, LLMMEM_ERR_PARSE, field, "expected an array, got %s", kind(list));
    /* e_score_correction_bias: a router's bias, kept in fp32 whatever the plan (MiniMax-M2.7's config) */
    static const char *const allowed[] = {"lm_head", "gate", "mlp.gate", "router", "re:.*mlp.gate$",
                                          "e_score_correction_bias", NULL};
    for (size_t i = 0; i < llmmem__json_array_size(list); i++) {
        const llmmem__json *v = llmmem__json_array_get(list, i);
        char name[64];
        snprintf(name, sizeof name, "%s[%zu]", field, i);
        if (!is_text(v))
            return hf_fail(c, LLMMEM_ERR_PARSE, name, "expected a string, got %s", kind(v));
        size_t k = 0;
        while (allowed[k] && strcmp(allowed[k], llmmem__json_string_value(v)) != 0)
            k++;
        if (!allowed[k])
            return unsupported_string(c, name, llmmem__json_string_value(v),
                                      "left unquantized, only lm_head and MoE routers are modelled");
    }
    return LLMMEM_OK;
}

/* bits of a 4-bit method; group_size (absent or null: 128; -1: one group per channel). */
static llmmem_status read_int4_groups(const hf *c, const llmmem__json *q)
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
static llmmem_status read_gptq(const hf *c, const llmmem__json *q)
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
    const llmmem__json *dyn = llmmem__json_object_get(q, "dynamic");
    if (dyn && !llmmem__json_is_null(dyn) && !(llmmem__json_is_object(dyn) && llmmem__json_object_size(dyn) == 0))
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "dynamic", "per-module overrides are not modelled");
    const llmmem__json *mods = llmmem__json_object_get(q, "modules_in_block_to_quantize");
    if (mods && !llmmem__json_is_null(mods))
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "modules_in_block_to_quantize",
                       "a partly quantized block is not modelled");
    return LLMMEM_OK;
}

/* AwqConfig: bits=4, group_size=128, zero_point=True, version "gemm". */
static llmmem_status read_awq(const hf *c, const llmmem__json *q)
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
static llmmem_status read_bitsandbytes(const hf *c, const llmmem__json *q, llmmem_format *format)
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
static llmmem_status read_fp8(const hf *c, const llmmem__json *q, llmmem_format *format)
{
    const char *fmt = NULL;
    enum presence p;
    llmmem_status st = get_string(c, q, "fmt", &fmt, &p);
    if (st)
        return st;
    /* "float8_e4m3fn" is torch's name of the same format (MiniMax-M2.7's config) */
    if (p == PRESENT && strcmp(fmt, "e4m3") != 0 && strcmp(fmt, "float8_e4m3fn") != 0)
        return unsupported_string(c, "fmt", fmt, "e4m3 and float8_e4m3fn are");
    const llmmem__json *block = llmmem__json_object_get(q, "weight_block_size");
    if (!block || llmmem__json_is_null(block)) {
        *format = LLMMEM_FORMAT_FP8_E4M3;
    } else {
        if (!llmmem__json_is_array(block))
            return hf_fail(c, LLMMEM_ERR_PARSE, "weight_block_size", "expected an array, got %s", kind(block));
        const llmmem__json *b0 = llmmem__json_array_get(block, 0), *b1 = llmmem__json_array_get(block, 1);
        if (llmmem__json_array_size(block) != 2 || !llmmem__json_is_integer(b0) || !llmmem__json_is_integer(b1))
            return hf_fail(c, LLMMEM_ERR_PARSE, "weight_block_size", "expected two integers");
        if (llmmem__json_integer_value(b0) != 128 || llmmem__json_integer_value(b1) != 128)
            return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "weight_block_size",
                           "[%lld, %lld] is not supported ([128, 128] is)", (long long)llmmem__json_integer_value(b0),
                           (long long)llmmem__json_integer_value(b1));
        *format = LLMMEM_FORMAT_FP8_BLOCK;
    }
    return check_skipped_modules(c, q, "modules_to_not_convert");
}

/* An ignore list that leaves lm_head, every attention, shared-expert and dense MLP linear unquantized, exactly
 * (moonshotai/Kimi-K2.5's config.json; its checkpoint stores those in bf16 and the routed experts as int4,
 * r33 SOURCES id 62530201892): the routed experts alone are quantized. */
static int ignores_all_but_experts(const llmmem__json *q)
{
    static const char *const scope[] = {"lm_head", "re:.*self_attn.*", "re:.*shared_experts.*",
                                        "re:.*mlp\\.(gate|up|gate_up|down)_proj.*", NULL};
    const llmmem__json *list = llmmem__json_object_get(q, "ignore");
    if (!llmmem__json_is_array(list) || llmmem__json_array_size(list) != 4)
        return 0;
    unsigned seen = 0;
    for (size_t i = 0; i < 4; i++) {
        const llmmem__json *v = llmmem__json_array_get(list, i);
        for (unsigned k = 0; scope[k] && llmmem__json_is_string(v); k++)
            if (strcmp(llmmem__json_string_value(v), scope[k]) == 0)
                seen |= 1u << k;
    }
    return seen == 15u;
}

/* compressed-tensors' mxfp4-pack-quantized (Kimi K3's text quantization_config): E2M1 values two a byte
 * (weight_packed, uint8) and a UE8M0 scale a byte (weight_scale) per 32 of a row, the routed experts alone
 * (Megatron-Bridge kimi_k3_bridge.py _load_one_hf_weight dequantizes the weight_packed and weight_scale pairs of
 * block_sparse_moe.experts; the published checkpoint's U8 count, 2,722,740,830,208, is its routed experts'
 * elements). num_bits 4, type float, strategy group and group_size 32 where given; an ignore entry naming the
 * routed experts is refused as read_mxfp4 refuses one. */
static llmmem_status read_ct_mxfp4(const hf *c, const llmmem__json *q, const llmmem__json *w)
{
    hf wc = *c;
    wc.prefix = strcmp(c->prefix, "quantization_config.") == 0
                    ? "quantization_config.config_groups.weights."
                    : "text_config.quantization_config.config_groups.weights.";
    static const struct {
        const char *field;
        int64_t want;
    } sizes[] = {{"num_bits", 4}, {"group_size", 32}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int64_t v = 0;
        enum presence p;
        llmmem_status st = get_int(&wc, w, sizes[i].field, &v, &p);
        if (st)
            return st;
        if (p == PRESENT && v != sizes[i].want)
            return hf_fail(&wc, LLMMEM_ERR_UNSUPPORTED, sizes[i].field, "%lld: mxfp4-pack-quantized is %lld",
                           (long long)v, (long long)sizes[i].want);
    }
    static const struct {
        const char *field, *want;
    } kinds[] = {{"type", "float"}, {"strategy", "group"}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        llmmem_status st = string_must_be(&wc, w, kinds[i].field, kinds[i].want, "mxfp4-pack-quantized takes float group");
        if (st)
            return st;
    }
    const llmmem__json *list = llmmem__json_object_get(q, "ignore");
    if (list && !llmmem__json_is_null(list) && !llmmem__json_is_array(list))
        return hf_fail(c, LLMMEM_ERR_PARSE, "ignore", "expected an array, got %s", kind(list));
    for (size_t i = 0; list && llmmem__json_is_array(list) && i < llmmem__json_array_size(list); i++) {
        const llmmem__json *v = llmmem__json_array_get(list, i);
        char name[64];
        snprintf(name, sizeof name, "ignore[%zu]", i);
        if (!is_text(v))
            return hf_fail(c, LLMMEM_ERR_PARSE, name, "expected a string, got %s", kind(v));
        const char *e = strstr(llmmem__json_string_value(v), "experts");
        if (e && !(e - llmmem__json_string_value(v) >= 7 && strncmp(e - 7, "shared_", 7) == 0))
            return unsupported_string(c, name, llmmem__json_string_value(v),
                                      "routed experts left unquantized beside MXFP4 ones are not modelled");
    }
    return set(c, "format", LLMMEM_KEY_QUANTIZED_MODULES, LLMMEM_QUANTIZED_EXPERTS);
}

/* The packing a compressed-tensors config names: its own format, else its group's. */
static const char *ct_format(const llmmem__json *q, const llmmem__json *g)
{
    const llmmem__json *f = llmmem__json_object_get(q, "format");
    if (!llmmem__json_is_string(f))
        f = llmmem__json_object_get(g, "format");
    return llmmem__json_is_string(f) ? llmmem__json_string_value(f) : "";
}

/* compressed-tensors (llm-compressor; vllm .../quantization/compressed_tensors/compressed_tensors.py):
 * one config group over every Linear, its weights' num_bits, type, strategy and group_size, and the
 * modules it ignores. */
static llmmem_status read_compressed_tensors(const hf *c, const llmmem__json *q, llmmem_format *format)
{
    const llmmem__json *groups = llmmem__json_object_get(q, "config_groups");
    if (!groups || llmmem__json_is_null(groups))
        return hf_fail(c, LLMMEM_ERR_INCOMPLETE, "config_groups", "is missing");
    if (!llmmem__json_is_object(groups))
        return hf_fail(c, LLMMEM_ERR_PARSE, "config_groups", "expected an object, got %s", kind(groups));
    if (llmmem__json_object_size(groups) != 1)
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "config_groups",
                       "%zu groups: one scheme for every linear layer is modelled", llmmem__json_object_size(groups));
    const llmmem__json *kv = llmmem__json_object_get(q, "kv_cache_scheme");
    if (kv && !llmmem__json_is_null(kv))
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "kv_cache_scheme",
                       "a quantized KV cache is set with the strategy's kv_cache_dtype, not read from the config");
    const llmmem__json *g = llmmem__json_object_value(groups, 0);
    if (!llmmem__json_is_object(g))
        return hf_fail(c, LLMMEM_ERR_PARSE, "config_groups", "expected its group to be an object, got %s", kind(g));
    const llmmem__json *targets = llmmem__json_object_get(g, "targets");
    if (!llmmem__json_is_array(targets) || llmmem__json_array_size(targets) != 1 ||
        !llmmem__json_is_string(llmmem__json_array_get(targets, 0)) ||
        strcmp(llmmem__json_string_value(llmmem__json_array_get(targets, 0)), "Linear"))
        return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "config_groups.targets", "only [\"Linear\"] is modelled");
    const llmmem__json *w = llmmem__json_object_get(g, "weights");
    if (!llmmem__json_is_object(w))
        return hf_fail(c, LLMMEM_ERR_INCOMPLETE, "config_groups.weights", "is missing or not an object");
    if (strcmp(ct_format(q, g), "mxfp4-pack-quantized") == 0) {
        *format = LLMMEM_FORMAT_MXFP4;
        return read_ct_mxfp4(c, q, w);
    }
    hf wc = *c;
    wc.prefix = "quantization_config.config_groups.weights.";
    int64_t bits = 0, group = 0;
    const char *type = NULL, *strategy = NULL;
    enum presence p;
    llmmem_status st = get_int(&wc, w, "num_bits", &bits, &p);
    if (!st && p != PRESENT)
        return hf_fail(&wc, LLMMEM_ERR_INCOMPLETE, "num_bits", "is missing");
    if (!st)
        st = get_string(&wc, w, "type", &type, &p);
    if (!st && p != PRESENT)
        return hf_fail(&wc, LLMMEM_ERR_INCOMPLETE, "type", "is missing");
    if (!st)
        st = get_string(&wc, w, "strategy", &strategy, &p);
    if (!st && p != PRESENT)
        return hf_fail(&wc, LLMMEM_ERR_INCOMPLETE, "strategy", "is missing");
    if (!st) /* QuantizationArgs.symmetric defaults to True; zero points are not modelled */
        st = refuse_if(&wc, w, "symmetric", 0, 1, "asymmetric weights store zero points, which are not modelled");
    if (st)
        return st;
    const llmmem__json *actorder = llmmem__json_object_get(w, "actorder");
    if (actorder && !llmmem__json_is_null(actorder) && !llmmem__json_is_false(actorder) &&
        !(llmmem__json_is_string(actorder) && strcmp(llmmem__json_string_value(actorder), "weight") == 0))
        return hf_fail(&wc, LLMMEM_ERR_UNSUPPORTED, "actorder",
                       "group activation ordering stores weight_g_idx, which is not modelled (null and weight are)");
    if (strcmp(type, "int") == 0 && bits == 4 && strcmp(strategy, "group") == 0) {
        st = get_int(&wc, w, "group_size", &group, &p);
        if (!st && (p != PRESENT || group <= 0))
            return hf_fail(&wc, LLMMEM_ERR_INCOMPLETE, "group_size", "must be a positive number with strategy group");
        if (!st)
            st = set(&wc, "group_size", LLMMEM_KEY_QUANTIZATION_GROUP_SIZE, group);
        *format = LLMMEM_FORMAT_CT_INT4;
    } else if (strcmp(type, "int") == 0 && bits == 8 && strcmp(strategy, "channel") == 0) {
        *format = LLMMEM_FORMAT_INT8_CHANNEL;
    } else if (strcmp(type, "float") == 0 && bits == 8 && strcmp(strategy, "channel") == 0) {
        *format = LLMMEM_FORMAT_FP8_CHANNEL;
    } else if (strcmp(type, "float") == 0 && bits == 8 && strcmp(strategy, "tensor") == 0) {
        *format = LLMMEM_FORMAT_FP8_E4M3;
    } else if (strcmp(type, "float") == 0 && bits == 8 && strcmp(strategy, "block") == 0) {
        const llmmem__json *b = llmmem__json_object_get(w, "block_structure");
        if (!llmmem__json_is_array(b) || llmmem__json_array_size(b) != 2 ||
            llmmem__json_integer_value(llmmem__json_array_get(b, 0)) != 128 ||
            llmmem__json_integer_value(llmmem__json_array_get(b, 1)) != 128)
            return hf_fail(&wc, LLMMEM_ERR_UNSUPPORTED, "block_structure", "only [128, 128] is modelled");
        *format = LLMMEM_FORMAT_FP8_BLOCK;
    } else {
        return hf_fail(&wc, LLMMEM_ERR_UNSUPPORTED, "num_bits",
                       "%lld-bit %s weights with strategy %s are not modelled (int 4 group, int 8 channel, float 8 "
                       "channel, tensor or block are)",
                       (long long)bits, type, strategy);
    }
    if (!st && ignores_all_but_experts(q))
        return set(c, "ignore", LLMMEM_KEY_QUANTIZED_MODULES, LLMMEM_QUANTIZED_EXPERTS);
    return st ? st : check_skipped_modules(c, q, "ignore");
}

/* Mxfp4Config (gpt-oss): transformers integrations/mxfp4.py replace_with_mxfp4_linear converts the
 * GptOssExperts modules alone, so what modules_to_not_convert lists (attention, router, embedding,
 * head) stays in the model's dtype whatever it names, unless it names the experts, which the
 * quantizer would then skip (refused: a 16-bit expert beside MXFP4 ones is not modelled). A model
 * without routed experts keeps every weight in its dtype. */
static llmmem_status read_mxfp4(const hf *c, const llmmem__json *root, const llmmem__json *q)
{
    const llmmem__json *list = llmmem__json_object_get(q, "modules_to_not_convert");
    if (list && !llmmem__json_is_null(list)) {
        if (!llmmem__json_is_array(list))
            return hf_fail(c, LLMMEM_ERR_PARSE, "modules_to_not_convert", "expected an array, got %s", kind(list));
        for (size_t i = 0; i < llmmem__json_array_size(list); i++) {
            const llmmem__json *v = llmmem__json_array_get(list, i);
            char name[64];
            snprintf(name, sizeof name, "modules_to_not_convert[%zu]", i);
            if (!llmmem__json_is_string(v))
                return hf_fail(c, LLMMEM_ERR_PARSE, name, "expected a string, got %s", kind(v));
            if (strstr(llmmem__json_string_value(v), "experts"))
                return unsupported_string(c, name, llmmem__json_string_value(v),
                                          "experts left unquantized beside MXFP4 ones are not modelled");
        }
    }
    llmmem_status st = set(c, "quant_method", LLMMEM_KEY_QUANTIZED_MODULES, LLMMEM_QUANTIZED_EXPERTS);
    /* quantizers/quantizer_mxfp4.py Mxfp4HfQuantizer.update_dtype: no dtype given is bfloat16 */
    if (!st && !llmmem__json_object_get(root, "torch_dtype") && !llmmem__json_object_get(root, "dtype"))
        st = set(c, "quant_method", LLMMEM_KEY_TORCH_DTYPE, LLMMEM_FORMAT_BF16);
    return st;
}

static llmmem_status read_quantization(const hf *c, const llmmem__json *root)
{
    const llmmem__json *q = llmmem__json_object_get(root, "quantization_config");
    if (!q || llmmem__json_is_null(q))
        return LLMMEM_OK;
    if (!llmmem__json_is_object(q))
        return hf_fail(c, LLMMEM_ERR_PARSE, "quantization_config", "expected an object, got %s", kind(q));
    hf qc = *c;
    qc.prefix = root == c->top ? "quantization_config." : "text_config.quantization_config.";
    const char *method = NULL;
    enum presence p;
    llmmem_status st = get_string(&qc, q, "quant_method", &method, &p);
    if (st)
        return st;
    if (p != PRESENT) { /* BitsAndBytesConfig before quant_method was written */
        if (llmmem__json_object_get(q, "load_in_4bit") || llmmem__json_object_get(q, "load_in_8bit"))
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
    } else if (strcmp(method, "compressed-tensors") == 0) {
        st = read_compressed_tensors(&qc, q, &format);
    } else if (strcmp(method, "mxfp4") == 0) {
        format = LLMMEM_FORMAT_MXFP4;
        st = read_mxfp4(&qc, root, q);
    } else {
        return unsupported_string(&qc, "quant_method", method, "gptq, awq, bitsandbytes, fp8, compressed-tensors and mxfp4 are");
    }
    if (st)
        return st;
    return set(&qc, "quant_method", LLMMEM_KEY_QUANTIZATION_FORMAT, format);
}

/* ---- a model_type the table lacks ---------------------------------------------------------------- */

/* Appends printf text to buf (always terminated, cut at size). */
static void appendf(char *buf, size_t size, const char *fmt, ...) LLMMEM_PRINTF(3, 4);
static void appendf(char *buf, size_t size, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, size - used, fmt, ap);
    va_end(ap);
}

static int has(const llmmem__json *obj, const char *field)
{
    const llmmem__json *v = llmmem__json_object_get(obj, field);
    return v && !llmmem__json_is_null(v);
}

static int is_true(const llmmem__json *obj, const char *field)
{
    return llmmem__json_is_true(llmmem__json_object_get(obj, field));
}

/* What a decoder's config.json says about its shape beyond the five shape fields, and the field
 * that says it (for the message). */
typedef struct decoder_traits {
    int moe, sliding, mla, qk_norm, attention_bias, kv_heads, head_dim;
    const char *moe_field, *sliding_field, *qk_norm_field;
} decoder_traits;

static decoder_traits traits_of(const llmmem__json *obj)
{
    decoder_traits t = {LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 0, 0, 0, NULL, NULL, NULL};
    /* MixtralConfig num_local_experts; Qwen2MoeConfig num_experts with shared_expert_intermediate_size,
     * Qwen3MoeConfig without; DeepseekV3Config n_routed_experts with kv_lora_rank (MLA) */
    t.mla = has(obj, "kv_lora_rank");
    if (has(obj, "num_local_experts")) {
        t.moe = LLMMEM_MOE_MIXTRAL;
        t.moe_field = "num_local_experts";
    } else if (has(obj, "num_experts")) {
        t.moe = has(obj, "shared_expert_intermediate_size") ? LLMMEM_MOE_QWEN_SHARED : LLMMEM_MOE_QWEN;
        t.moe_field = "num_experts";
    } else if (has(obj, "n_routed_experts")) {
        t.moe_field = "n_routed_experts";
    }
    /* Gemma2Config/Gemma3TextConfig interleave (sliding_window_pattern, layer_types); Qwen2Config
     * use_sliding_window and max_window_layers; MistralConfig sliding_window on every layer */
    static const struct {
        const char *field;
        int kind;
    } sliding[] = {{"sliding_window_pattern", LLMMEM_SLIDE_GEMMA}, {"_sliding_window_pattern", LLMMEM_SLIDE_GEMMA},
                   {"layer_types", LLMMEM_SLIDE_GEMMA},           {"use_sliding_window", LLMMEM_SLIDE_QWEN},
                   {"max_window_layers", LLMMEM_SLIDE_QWEN},      {"sliding_window", LLMMEM_SLIDE_ALL}};
    for (size_t i = 0; i < sizeof sliding / sizeof sliding[0] && !t.sliding_field; i++) {
        if (has(obj, sliding[i].field)) {
            t.sliding_field = sliding[i].field;
            t.sliding = sliding[i].kind;
        }
    }
    /* q/k norms: OLMo-2-style qk_norm, Llama 4 and Cohere use_qk_norm, Persimmon qk_layernorm */
    static const char *const qk[] = {"qk_norm", "use_qk_norm", "qk_layernorm"};
    for (size_t i = 0; i < 3 && !t.qk_norm; i++) {
        if (is_true(obj, qk[i])) {
            t.qk_norm = 1;
            t.qk_norm_field = qk[i];
        }
    }
    t.attention_bias = is_true(obj, "attention_bias");
    t.kv_heads = has(obj, "num_key_value_heads");
    t.head_dim = has(obj, "head_dim");
    return t;
}

/* How well a family's row reads a config of these traits: MLA first, then MoE, sliding window and
 * q/k norms, then the fields the row reads; 0 for rows that read other field names. */
static int closeness(const family *f, const decoder_traits *t)
{
    int64_t qk = 0, vision = 0;
    (void)llmmem__family_structure(&vision, f, LLMMEM_KEY_VISION_MODEL_TYPE);
    if ((f->reader != LLMMEM_READ_LLAMA_LIKE && f->reader != LLMMEM_READ_DEEPSEEK) || vision)
        return 0; /* a text decoder's config is never a vision-language row's */
    (void)llmmem__family_structure(&qk, f, LLMMEM_KEY_QK_NORM);
    int score = 1;
    score += 64 * ((f->reader == LLMMEM_READ_DEEPSEEK) == (t->mla != 0));
    score += 32 * (f->config.moe == t->moe);
    /* Qwen2Config use_sliding_window=False: a row that reads it also reads a config without it */
    score += f->config.sliding == t->sliding ? 8 : f->config.sliding == LLMMEM_SLIDE_QWEN && !t->sliding ? 4 : 0;
    score += 8 * ((qk != 0) == (t->qk_norm != 0));
    score += t->attention_bias ? 2 * (f->config.attention_bias >= 0) : 2;
    score += t->kv_heads ? f->config.reads_kv_heads : 1; /* absent: any row reads the heads' default */
    score += t->head_dim ? f->config.reads_head_dim : 1;
    return score;
}

/* A model_type the family table lacks. A config with a standard decoder's fields names the closest
 * row, by the fields that set the shape (the first row of the best score), and the keys that
 * describe the model, never read as that family silently; then, as for any unknown type, the
 * supported ones. */
static llmmem_status unknown_type(const hf *c, const llmmem__json *root, const char *type)
{
    char supported[1024] = "supported: "; /* every row of the family table and the wrappers */
    llmmem__family_list(supported + 11, sizeof supported - 11, "gemma3, llava");
    static const char *const shape[] = {"hidden_size", "num_hidden_layers", "num_attention_heads",
                                        "intermediate_size", "vocab_size"};
    for (size_t i = 0; i < 5; i++)
        if (!llmmem__json_is_integer(llmmem__json_object_get(root, shape[i])))
            return unsupported_string(c, "model_type", type, supported);
    decoder_traits t = traits_of(root);
    const family *best = llmmem__family_at(0);
    int best_score = -1;
    for (size_t i = 0; llmmem__family_at(i); i++) {
        int score = closeness(llmmem__family_at(i), &t);
        if (score > best_score) {
            best = llmmem__family_at(i);
            best_score = score;
        }
    }
    char why[160] = "";
    if (t.mla)
        appendf(why, sizeof why, "%sMLA: kv_lora_rank", why[0] ? "; " : "");
    if (t.moe_field)
        appendf(why, sizeof why, "%sMoE: %s", why[0] ? "; " : "", t.moe_field);
    if (t.sliding_field)
        appendf(why, sizeof why, "%ssliding window: %s", why[0] ? "; " : "", t.sliding_field);
    if (t.qk_norm_field)
        appendf(why, sizeof why, "%sq/k norms: %s", why[0] ? "; " : "", t.qk_norm_field);
    if (t.attention_bias)
        appendf(why, sizeof why, "%sbiases: attention_bias", why[0] ? "; " : "");
    if (!why[0])
        appendf(why, sizeof why, "a dense decoder with full attention and no biases");
    /* the config's integers under the model keys of the same names (llmmem_key_from_name) */
    static const char *const ints[] = {"hidden_size", "num_hidden_layers", "num_attention_heads",
                                       "num_key_value_heads", "head_dim", "intermediate_size", "vocab_size",
                                       "sliding_window", "num_experts", "num_experts_per_tok",
                                       "moe_intermediate_size", "shared_expert_intermediate_size",
                                       "n_shared_experts", "kv_lora_rank", "q_lora_rank", "qk_rope_head_dim",
                                       "qk_nope_head_dim", "v_head_dim"};
    char keys[LLMMEM_MESSAGE_MAX] = "";
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        const llmmem__json *v = llmmem__json_object_get(root, ints[i]);
        const char *field = ints[i];
        if (strcmp(field, "num_experts") == 0 && !v) /* MixtralConfig's and DeepseekV3Config's names */
            v = llmmem__json_object_get(root,
                                        has(root, "num_local_experts") ? "num_local_experts" : "n_routed_experts");
        if (llmmem__json_is_integer(v))
            appendf(keys, sizeof keys, " --set %s=%lld", field, (long long)llmmem__json_integer_value(v));
    }
    if (llmmem__json_is_boolean(llmmem__json_object_get(root, "tie_word_embeddings")))
        appendf(keys, sizeof keys, " --set tie_word_embeddings=%d", is_true(root, "tie_word_embeddings"));
    if (t.attention_bias)
        appendf(keys, sizeof keys, " --set qkv_bias=1 --set o_proj_bias=1");
    if (is_true(root, "mlp_bias"))
        appendf(keys, sizeof keys, " --set mlp_bias=1");
    if (t.qk_norm)
        appendf(keys, sizeof keys, " --set qk_norm=1");
    char shown[HF_SHOWN + 1];
    shown_text(shown, sizeof shown, type);
    return hf_fail(c, LLMMEM_ERR_UNSUPPORTED, "model_type",
                   "'%s' is not supported; its fields are a standard decoder's, closest to %s (%s): describe it "
                   "with --set model_type=%s%s (the model keys of those names), checking what its modeling file "
                   "adds (%s)",
                   shown, best->name, why, best->name, keys, supported);
}

/* ---- the document ------------------------------------------------------------------------------- */

static int deeper_than_limit(const llmmem__json *v, int depth)
{
    if (depth > HF_MAX_DEPTH)
        return 1;
    if (llmmem__json_is_object(v)) {
        for (size_t i = 0; i < llmmem__json_object_size(v); i++)
            if (deeper_than_limit(llmmem__json_object_value(v, i), depth + 1))
                return 1;
    } else if (llmmem__json_is_array(v)) {
        for (size_t i = 0; i < llmmem__json_array_size(v); i++)
            if (deeper_than_limit(llmmem__json_array_get(v, i), depth + 1))
                return 1;
    }
    return 0;
}

static llmmem_status read_document(hf *c, const llmmem__json *root)
{
    if (!llmmem__json_is_object(root))
        return hf_fail(c, LLMMEM_ERR_PARSE, NULL, "not a JSON object (the document is %s)", kind(root));
    for (size_t i = 0; i < llmmem__json_object_size(root); i++) {
        if (deeper_than_limit(llmmem__json_object_value(root, i), 2)) {
            char key[HF_SHOWN + 1];
            shown_text(key, sizeof key, llmmem__json_object_key(root, i));
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
    const llmmem__json *text = root;
    if (strcmp(type, "gemma3") == 0) {
        st = read_gemma3(c, root, &text);
    } else if (strcmp(type, "mimo_v2") == 0) { /* MiMo-V2.5's configs name the same model mimo_v2 */
        c->fam = llmmem__family_named("mimo_v2_flash");
        c->type = type;
        st = read_text(c, root);
    } else if (strcmp(type, "gemma4") == 0 || strcmp(type, "gemma4_text") == 0) {
        c->fam = llmmem__family_named("gemma4");
        c->type = type;
        st = strcmp(type, "gemma4") == 0 ? read_gemma4(c, root, &text) : read_text(c, root);
    } else if (strcmp(type, "llava") == 0) {
        st = read_llava(c, root, &text);
    } else if (strcmp(type, "mistral3") == 0 ||
               (strcmp(type, "ministral3") == 0 &&
                llmmem__json_is_object(llmmem__json_object_get(root, "text_config")))) {
        /* Ministral-3's published configs name ministral3 at the top of the Mistral3Config wrapper
         * (text_config and vision_config): read as the wrapper it is */
        st = read_mistral3(c, root, &text);
    } else if (strcmp(type, "qwen2_5_vl") == 0 || strcmp(type, "qwen3_vl") == 0 || strcmp(type, "qwen3_vl_moe") == 0 ||
               strcmp(type, "qwen3_5") == 0 || strcmp(type, "qwen3_5_moe") == 0) {
        c->fam = llmmem__family_named(type);
        c->type = c->fam->name;
        st = read_qwen_vl(c, root, &text);
    } else if (strcmp(type, "kimi_k25") == 0) {
        st = read_kimi_k25(c, root, &text);
    } else if (strcmp(type, "exaone4_5") == 0) {
        c->fam = llmmem__family_named(type);
        c->type = c->fam->name;
        st = read_exaone4_5(c, root, &text);
    } else if (strcmp(type, "minimax_m3_vl") == 0) {
        c->fam = llmmem__family_named(type);
        c->type = c->fam->name;
        st = read_wrapper(c, &minimax_m3_vl_wrapper, root, &text);
    } else if (strcmp(type, "kimi_k3") == 0) {
        c->fam = llmmem__family_named(type);
        c->type = c->fam->name;
        st = read_kimi_k3(c, root, &text);
    } else {
        c->fam = llmmem__family_named(type);
        if (!c->fam)
            return unknown_type(c, root, type);
        c->type = c->fam->name;
        st = read_text(c, root);
    }
    if (!st)
        st = read_dtype(c, root,
                        text != root ? text
                        : llmmem__json_is_object(llmmem__json_object_get(root, "text_config"))
                            ? llmmem__json_object_get(root, "text_config")
                            : NULL);
    if (!st)
        /* Kimi K3 writes its text model's quantization_config in text_config (stored index id 65943802881) */
        st = read_quantization(c, c->fam && c->fam->type == LLMMEM_MODEL_KIMI_K3 && text != root &&
                                          !llmmem__json_object_get(root, "quantization_config")
                                      ? text
                                      : root);
    if (st)
        return st;
    /* Settings each in bounds may still not make a model (heads that do not divide the width):
     * the inventory's own message, after the file name. */
    st = llmmem__model_check(c->m);
    return st ? llmmem__fail_prefixed(st, c->where) : LLMMEM_OK;
}

llmmem_status llmmem__model_from_config_text(llmmem_model **out, const char *json, size_t len, const char *where,
                                            const char *name)
{
    hf c = {NULL, where, "", 0, NULL, "", NULL};
    if (len > LLMMEM_CONFIG_MAX_BYTES)
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: %zu bytes is more than the %u a config.json may have", where, len,
                            LLMMEM_CONFIG_MAX_BYTES);
    /* the JSON reader's tree takes 32 bytes a value and 56 an object member: the values are counted first */
    uint64_t values = llmmem__json_count_values(json, len);
    if (values > LLMMEM_CONFIG_MAX_VALUES)
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: more than the %d JSON values and keys a config.json may have",
                            where, LLMMEM_CONFIG_MAX_VALUES);
    llmmem__json_error err;
    llmmem__json *root = llmmem__json_load_config(json, len, LLMMEM__JSON_REJECT_DUPLICATES, &err);
    if (!root) {
        /* the reader's words (jansson's) and where it stopped: no byte of a file that is not JSON, its
         * keys included (it may be any file a path names) */
        char what[LLMMEM__JSON_ERROR_TEXT_LENGTH];
        llmmem__json_error_text(what, sizeof what, &err);
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: not valid JSON: %s (line %d, column %d)", where, what, err.line,
                            err.column);
    }
    c.top = root;
    llmmem_status st = llmmem_model_new(&c.m);
    if (!st)
        st = read_document(&c, root);
    if (!st && !name) {
        const llmmem__json *given = llmmem__json_object_get(root, "_name_or_path");
        name = is_text(given) ? llmmem__json_string_value(given) : "";
    }
    if (!st)
        llmmem__model_set_name(c.m, name);
    llmmem__json_free(root);
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
    return llmmem__model_from_config_text(out, json, len, "<memory>", NULL);
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
        st = llmmem__model_from_config_text(out, text, got, where, path);
    free(text);
    free(joined);
    return st;
}
