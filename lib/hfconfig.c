/* Reader of Hugging Face config.json files: a model from its architecture fields.
 *
 * Every model key takes the config.json field of the same name where one exists, so most of the
 * mapping is one generic loop over the key space; the families that name things differently
 * (GPT-2's n_embd, Falcon's num_kv_heads, Mixtral's num_local_experts, ...) have aliases, and the
 * structural facts a config states only indirectly (Falcon's new_decoder_architecture, Qwen3's
 * layer_types, quantization_config) are translated below. Values go through the public setters,
 * so every bound is checked and every message names the field. Nothing is guessed: an unknown
 * model_type, a field of the wrong JSON type or an arrangement the inventory cannot express is an
 * error naming it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "internal.h"

#define CONFIG_MAX_BYTES (16u << 20) /* config.json files are a few KiB */

typedef struct reader {
    llmmem_model *m;
    const char *src; /* file name or "<memory>", for messages */
} reader;

/* Re-raises the library's last message prefixed with the source and the field. */
static llmmem_status fail_field(const reader *r, const char *field, llmmem_status st)
{
    char prefix[600];
    snprintf(prefix, sizeof prefix, "%s: %s", r->src, field);
    return llmmem__fail_prefixed(st, prefix);
}

static llmmem_status set_key(const reader *r, const char *field, llmmem_key key, int64_t v)
{
    llmmem_status st = llmmem_model_set_int(r->m, key, v);
    return st ? fail_field(r, field, st) : LLMMEM_OK;
}

/* Applies one JSON value to a key: integers, booleans and (for choice keys) strings; null means
 * "not given" (the field's default or derived value applies). */
static llmmem_status apply_value(const reader *r, const char *field, llmmem_key key, const json_t *v)
{
    if (json_is_null(v))
        return LLMMEM_OK;
    if (json_is_integer(v))
        return set_key(r, field, key, (int64_t)json_integer_value(v));
    if (json_is_boolean(v))
        return set_key(r, field, key, json_is_true(v) ? 1 : 0);
    if (json_is_string(v)) {
        llmmem_value_type type;
        if (llmmem_key_type(&type, key) == LLMMEM_OK && type == LLMMEM_TYPE_CHOICE) {
            llmmem_status st = llmmem_model_set_text(r->m, llmmem_key_name(key), json_string_value(v));
            return st ? fail_field(r, field, st) : LLMMEM_OK;
        }
    }
    return llmmem__fail(LLMMEM_ERR_PARSE, "%s: %s: expected %s", r->src, field,
                        json_is_string(v) ? "a number" : "a number or a boolean");
}

/* Fields named like the model keys they set. model_type and the vision keys are handled apart. */
static llmmem_status apply_same_named(const reader *r, const json_t *cfg)
{
    for (size_t i = 0; i < llmmem_key_count(); i++) {
        llmmem_key key = llmmem_key_at(i);
        llmmem_object object;
        if (llmmem_key_object(&object, key) || object != LLMMEM_OBJECT_MODEL || key == LLMMEM_KEY_MODEL_TYPE)
            continue;
        const char *name = llmmem_key_name(key);
        if (strncmp(name, "vision_", 7) == 0 || strncmp(name, "quantization_", 13) == 0)
            continue;
        const json_t *v = json_object_get(cfg, name);
        if (v) {
            llmmem_status st = apply_value(r, name, key, v);
            if (st)
                return st;
        }
    }
    return LLMMEM_OK;
}

/* Other names for the same keys, by family. */
typedef struct alias {
    const char *field;
    llmmem_key key;
} alias;

static const alias gpt2_aliases[] = {{"n_embd", LLMMEM_KEY_HIDDEN_SIZE},
                                     {"n_layer", LLMMEM_KEY_NUM_HIDDEN_LAYERS},
                                     {"n_head", LLMMEM_KEY_NUM_ATTENTION_HEADS},
                                     {"n_inner", LLMMEM_KEY_INTERMEDIATE_SIZE},
                                     {"n_positions", LLMMEM_KEY_MAX_POSITION_EMBEDDINGS},
                                     {NULL, LLMMEM_KEY_NONE}};
static const alias bloom_aliases[] = {{"n_embed", LLMMEM_KEY_HIDDEN_SIZE},
                                      {"n_layer", LLMMEM_KEY_NUM_HIDDEN_LAYERS},
                                      {"n_head", LLMMEM_KEY_NUM_ATTENTION_HEADS},
                                      {NULL, LLMMEM_KEY_NONE}};
static const alias opt_aliases[] = {{"ffn_dim", LLMMEM_KEY_INTERMEDIATE_SIZE}, {NULL, LLMMEM_KEY_NONE}};
static const alias falcon_aliases[] = {{"n_head", LLMMEM_KEY_NUM_ATTENTION_HEADS},
                                       {"n_layer", LLMMEM_KEY_NUM_HIDDEN_LAYERS},
                                       {"num_kv_heads", LLMMEM_KEY_NUM_KEY_VALUE_HEADS},
                                       {NULL, LLMMEM_KEY_NONE}};
static const alias mixtral_aliases[] = {{"num_local_experts", LLMMEM_KEY_NUM_EXPERTS},
                                        {"intermediate_size", LLMMEM_KEY_MOE_INTERMEDIATE_SIZE},
                                        {NULL, LLMMEM_KEY_NONE}};
static const alias deepseek_aliases[] = {{"n_routed_experts", LLMMEM_KEY_NUM_EXPERTS}, {NULL, LLMMEM_KEY_NONE}};
static const alias qwen_moe_aliases[] = {{"decoder_sparse_step", LLMMEM_KEY_MOE_LAYER_FREQ},
                                         {NULL, LLMMEM_KEY_NONE}};

/* Supported model_type values: the llmmem family and its aliases. */
static const struct family {
    const char *model_type;
    llmmem_model_type family;
    const alias *aliases;
} families[] = {
    {"gpt2", LLMMEM_MODEL_GPT2, gpt2_aliases},
    {"opt", LLMMEM_MODEL_OPT, opt_aliases},
    {"bloom", LLMMEM_MODEL_BLOOM, bloom_aliases},
    {"gpt_neox", LLMMEM_MODEL_GPT_NEOX, NULL},
    {"falcon", LLMMEM_MODEL_FALCON, falcon_aliases},
    {"llama", LLMMEM_MODEL_LLAMA, NULL},
    {"mistral", LLMMEM_MODEL_MISTRAL, NULL},
    {"mixtral", LLMMEM_MODEL_MIXTRAL, mixtral_aliases},
    {"qwen2", LLMMEM_MODEL_QWEN2, NULL},
    {"qwen2_moe", LLMMEM_MODEL_QWEN2_MOE, qwen_moe_aliases},
    {"qwen3", LLMMEM_MODEL_QWEN3, NULL},
    {"qwen3_moe", LLMMEM_MODEL_QWEN3_MOE, qwen_moe_aliases},
    {"phi3", LLMMEM_MODEL_PHI3, NULL},
    {"gemma", LLMMEM_MODEL_GEMMA, NULL},
    {"gemma2", LLMMEM_MODEL_GEMMA2, NULL},
    {"gemma3_text", LLMMEM_MODEL_GEMMA3_TEXT, NULL},
    {"deepseek_v2", LLMMEM_MODEL_DEEPSEEK_V2, deepseek_aliases},
    {"deepseek_v3", LLMMEM_MODEL_DEEPSEEK_V3, deepseek_aliases},
};

/* Defaults of the transformers config class, for fields a config.json may leave out (the
 * multimodal wrappers' text_config often does): Gemma3TextConfig and LlamaConfig __init__. */
typedef struct class_default {
    llmmem_model_type family;
    llmmem_key key;
    int64_t value;
} class_default;

static const class_default class_defaults[] = {
    {LLMMEM_MODEL_GEMMA3_TEXT, LLMMEM_KEY_VOCAB_SIZE, 262208},
    {LLMMEM_MODEL_GEMMA3_TEXT, LLMMEM_KEY_HIDDEN_SIZE, 2304},
    {LLMMEM_MODEL_GEMMA3_TEXT, LLMMEM_KEY_INTERMEDIATE_SIZE, 9216},
    {LLMMEM_MODEL_GEMMA3_TEXT, LLMMEM_KEY_NUM_HIDDEN_LAYERS, 26},
    {LLMMEM_MODEL_GEMMA3_TEXT, LLMMEM_KEY_NUM_ATTENTION_HEADS, 8},
    {LLMMEM_MODEL_GEMMA3_TEXT, LLMMEM_KEY_NUM_KEY_VALUE_HEADS, 4},
    {LLMMEM_MODEL_GEMMA3_TEXT, LLMMEM_KEY_HEAD_DIM, 256},
    {LLMMEM_MODEL_GEMMA3_TEXT, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, 131072},
    {LLMMEM_MODEL_GEMMA3_TEXT, LLMMEM_KEY_SLIDING_WINDOW, 4096},
    {LLMMEM_MODEL_LLAMA, LLMMEM_KEY_VOCAB_SIZE, 32000},
    {LLMMEM_MODEL_LLAMA, LLMMEM_KEY_HIDDEN_SIZE, 4096},
    {LLMMEM_MODEL_LLAMA, LLMMEM_KEY_INTERMEDIATE_SIZE, 11008},
    {LLMMEM_MODEL_LLAMA, LLMMEM_KEY_NUM_HIDDEN_LAYERS, 32},
    {LLMMEM_MODEL_LLAMA, LLMMEM_KEY_NUM_ATTENTION_HEADS, 32},
    {LLMMEM_MODEL_LLAMA, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, 2048},
};

static llmmem_status apply_class_defaults(const reader *r, llmmem_model_type family)
{
    for (size_t i = 0; i < sizeof class_defaults / sizeof class_defaults[0]; i++) {
        if (class_defaults[i].family != family)
            continue;
        llmmem_status st = set_key(r, "(class default)", class_defaults[i].key, class_defaults[i].value);
        if (st)
            return st;
    }
    return LLMMEM_OK;
}

static llmmem_status apply_aliases(const reader *r, const json_t *cfg, const alias *aliases)
{
    for (const alias *a = aliases; a && a->field; a++) {
        const json_t *v = json_object_get(cfg, a->field);
        if (v) {
            llmmem_status st = apply_value(r, a->field, a->key, v);
            if (st)
                return st;
        }
    }
    return LLMMEM_OK;
}

static int flag(const json_t *cfg, const char *field)
{
    return json_is_true(json_object_get(cfg, field));
}

/* Structural facts stated indirectly. */
static llmmem_status apply_family_rules(const reader *r, const json_t *cfg, llmmem_model_type family)
{
    llmmem_status st = LLMMEM_OK;
    /* Qwen2Config keeps sliding_window set while use_sliding_window is false */
    if (json_is_false(json_object_get(cfg, "use_sliding_window")) &&
        (st = set_key(r, "use_sliding_window", LLMMEM_KEY_SLIDING_WINDOW, 0)))
        return st;
    if (json_is_boolean(json_object_get(cfg, "attention_bias"))) { /* LlamaConfig: q, k, v and o */
        int b = flag(cfg, "attention_bias");
        if ((st = set_key(r, "attention_bias", LLMMEM_KEY_QKV_BIAS, b)) ||
            (st = set_key(r, "attention_bias", LLMMEM_KEY_O_PROJ_BIAS, b)))
            return st;
    }
    switch (family) {
    case LLMMEM_MODEL_FALCON: { /* transformers FalconConfig / FalconDecoderLayer */
        int b = flag(cfg, "bias"), new_arch = flag(cfg, "new_decoder_architecture");
        if ((st = set_key(r, "bias", LLMMEM_KEY_QKV_BIAS, b)) || (st = set_key(r, "bias", LLMMEM_KEY_O_PROJ_BIAS, b)) ||
            (st = set_key(r, "bias", LLMMEM_KEY_MLP_BIAS, b)))
            return st;
        if (!new_arch && flag(cfg, "multi_query") && (st = set_key(r, "multi_query", LLMMEM_KEY_NUM_KEY_VALUE_HEADS, 1)))
            return st;
        /* new_decoder_architecture: ln_attn and ln_mlp; else one input_layernorm when parallel_attn */
        int norms = new_arch ? 2 : (json_is_false(json_object_get(cfg, "parallel_attn")) ? 2 : 1);
        return set_key(r, "new_decoder_architecture", LLMMEM_KEY_NORMS_PER_LAYER, norms);
    }
    case LLMMEM_MODEL_OPT:
        if (json_is_integer(json_object_get(cfg, "word_embed_proj_dim")) &&
            json_integer_value(json_object_get(cfg, "word_embed_proj_dim")) !=
                json_integer_value(json_object_get(cfg, "hidden_size")))
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                                "%s: word_embed_proj_dim differs from hidden_size (project_in/out layers are not "
                                "modelled)", r->src);
        if (json_is_false(json_object_get(cfg, "do_layer_norm_before")))
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "%s: do_layer_norm_before false (no final layer norm) is "
                                                        "not modelled", r->src);
        return LLMMEM_OK;
    case LLMMEM_MODEL_MIXTRAL: /* every layer is MoE; the experts are the MLP */
        return LLMMEM_OK;
    case LLMMEM_MODEL_QWEN2_MOE:
    case LLMMEM_MODEL_QWEN3_MOE: {
        /* Qwen2MoeDecoderLayer: MoE when (i + 1) % decoder_sparse_step == 0, a different rule from
         * DeepSeek's i % moe_layer_freq; they agree for step 1, the only step published models use */
        const json_t *step = json_object_get(cfg, "decoder_sparse_step");
        if (json_is_integer(step) && json_integer_value(step) != 1)
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "%s: decoder_sparse_step %lld is not modelled (only 1)",
                                r->src, (long long)json_integer_value(step));
        const json_t *dense = json_object_get(cfg, "mlp_only_layers");
        if (json_is_array(dense) && json_array_size(dense) > 0)
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "%s: mlp_only_layers is not modelled", r->src);
        return LLMMEM_OK;
    }
    case LLMMEM_MODEL_DEEPSEEK_V2:
    case LLMMEM_MODEL_DEEPSEEK_V3: { /* DeepSeek-V3 MoEGate: topk_method noaux_tc adds e_score_correction_bias */
        const json_t *method = json_object_get(cfg, "topk_method");
        if (json_is_string(method))
            return set_key(r, "topk_method", LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS,
                           strcmp(json_string_value(method), "noaux_tc") == 0);
        return LLMMEM_OK;
    }
    default:
        return LLMMEM_OK;
    }
}

/* layer_types ["sliding_attention", ..., "full_attention", ...] as sliding_window_pattern: the
 * period n with layer i global exactly when (i + 1) % n == 0; 0 when every layer slides. */
static llmmem_status apply_layer_types(const reader *r, const json_t *cfg)
{
    const json_t *types = json_object_get(cfg, "layer_types");
    if (!types || json_is_null(types))
        return LLMMEM_OK;
    if (!json_is_array(types))
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: layer_types: expected a list", r->src);
    size_t n = json_array_size(types), first_full = n;
    for (size_t i = 0; i < n; i++) {
        const char *t = json_string_value(json_array_get(types, i));
        if (!t || (strcmp(t, "full_attention") != 0 && strcmp(t, "sliding_attention") != 0))
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "%s: layer_types[%zu]: not full_attention or "
                                                        "sliding_attention", r->src, i);
        if (first_full == n && strcmp(t, "full_attention") == 0)
            first_full = i;
    }
    size_t period = first_full == n ? 0 : first_full + 1;
    for (size_t i = 0; i < n; i++) {
        int full = strcmp(json_string_value(json_array_get(types, i)), "full_attention") == 0;
        if (full != (period != 0 && (i + 1) % period == 0))
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                                "%s: layer_types is not periodic (layer %zu breaks the pattern of a global "
                                "layer every %zu)", r->src, i, period);
    }
    return set_key(r, "layer_types", LLMMEM_KEY_SLIDING_WINDOW_PATTERN, (int64_t)period);
}

/* quantization_config: the checkpoint's storage format. */
static llmmem_status apply_quantization(const reader *r, const json_t *cfg)
{
    const json_t *q = json_object_get(cfg, "quantization_config");
    if (!q || json_is_null(q))
        return LLMMEM_OK;
    const char *method = json_string_value(json_object_get(q, "quant_method"));
    if (!method)
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: quantization_config.quant_method: expected a string", r->src);
    llmmem_format format;
    llmmem_status st;
    if (strcmp(method, "gptq") == 0 || strcmp(method, "awq") == 0) {
        const json_t *bits = json_object_get(q, "bits"), *group = json_object_get(q, "group_size");
        if (!json_is_integer(bits) || json_integer_value(bits) != 4)
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "%s: quantization_config.bits: only 4-bit %s is modelled",
                                r->src, method);
        if (json_is_integer(group) && json_integer_value(group) <= 0)
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "%s: quantization_config.group_size %lld (per-column) is "
                                "not modelled", r->src, (long long)json_integer_value(group));
        if (json_is_integer(group) &&
            (st = set_key(r, "quantization_config.group_size", LLMMEM_KEY_QUANTIZATION_GROUP_SIZE,
                          (int64_t)json_integer_value(group))))
            return st;
        format = method[0] == 'g' ? LLMMEM_FORMAT_GPTQ_INT4 : LLMMEM_FORMAT_AWQ_INT4;
    } else if (strcmp(method, "bitsandbytes") == 0) {
        if (flag(q, "load_in_4bit")) {
            const char *type = json_string_value(json_object_get(q, "bnb_4bit_quant_type"));
            format = type && strcmp(type, "fp4") == 0 ? LLMMEM_FORMAT_BNB_FP4 : LLMMEM_FORMAT_BNB_NF4;
            if (type && strcmp(type, "fp4") != 0 && strcmp(type, "nf4") != 0)
                return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "%s: bnb_4bit_quant_type '%.32s' is not modelled",
                                    r->src, type);
            if ((st = set_key(r, "bnb_4bit_use_double_quant", LLMMEM_KEY_QUANTIZATION_DOUBLE_QUANT,
                              flag(q, "bnb_4bit_use_double_quant"))))
                return st;
        } else if (flag(q, "load_in_8bit")) {
            format = LLMMEM_FORMAT_BNB_INT8;
        } else {
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "%s: bitsandbytes without load_in_4bit or load_in_8bit",
                                r->src);
        }
    } else if (strcmp(method, "fp8") == 0) { /* DeepSeek-V3: weight_block_size [128, 128] */
        format = json_is_array(json_object_get(q, "weight_block_size")) ? LLMMEM_FORMAT_FP8_BLOCK
                                                                          : LLMMEM_FORMAT_FP8_E4M3;
    } else if (strcmp(method, "mxfp4") == 0) {
        format = LLMMEM_FORMAT_MXFP4;
    } else {
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "%s: quantization_config.quant_method '%.32s' is not modelled",
                            r->src, method);
    }
    return set_key(r, "quantization_config", LLMMEM_KEY_QUANTIZATION_FORMAT, format);
}

/* vision_config of a multimodal model: a standard ViT tower (SigLIP or CLIP). */
static llmmem_status apply_vision(const reader *r, const json_t *vision, int projector)
{
    const char *type = json_string_value(json_object_get(vision, "model_type"));
    int kind = !type ? 0 : strcmp(type, "clip_vision_model") == 0 ? 1 : strcmp(type, "siglip_vision_model") == 0 ? 2 : 0;
    if (!kind)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "%s: vision_config.model_type '%.40s' is not modelled", r->src,
                            type ? type : "(missing)");
    static const alias fields[] = {{"hidden_size", LLMMEM_KEY_VISION_HIDDEN_SIZE},
                                   {"intermediate_size", LLMMEM_KEY_VISION_INTERMEDIATE_SIZE},
                                   {"num_hidden_layers", LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS},
                                   {"patch_size", LLMMEM_KEY_VISION_PATCH_SIZE},
                                   {"image_size", LLMMEM_KEY_VISION_IMAGE_SIZE},
                                   {"num_channels", LLMMEM_KEY_VISION_NUM_CHANNELS},
                                   {NULL, LLMMEM_KEY_NONE}};
    llmmem_status st;
    if ((st = set_key(r, "vision_config.model_type", LLMMEM_KEY_VISION_MODEL_TYPE, kind)))
        return st;
    for (const alias *a = fields; a->field; a++) {
        const json_t *v = json_object_get(vision, a->field);
        if (!v && a->key != LLMMEM_KEY_VISION_NUM_CHANNELS)
            return llmmem__fail(LLMMEM_ERR_INCOMPLETE, "%s: vision_config.%s is missing", r->src, a->field);
        if (v && (st = apply_value(r, a->field, a->key, v)))
            return st;
    }
    /* SiglipVisionConfig: vision_use_head defaults to true */
    const json_t *head = json_object_get(vision, "vision_use_head");
    int use_head = kind == 2 && (!head || json_is_true(head));
    if ((st = set_key(r, "vision_config.vision_use_head", LLMMEM_KEY_VISION_USE_HEAD, use_head)))
        return st;
    return set_key(r, "model_type", LLMMEM_KEY_MULTIMODAL_PROJECTOR, projector);
}

static llmmem_status build(llmmem_model **out, const json_t *root, const char *src)
{
    if (!json_is_object(root))
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: expected a JSON object", src);
    const json_t *cfg = root, *vision = NULL;
    int projector = 0;
    const char *type = json_string_value(json_object_get(root, "model_type"));
    if (!type)
        return llmmem__fail(LLMMEM_ERR_INCOMPLETE, "%s: model_type is missing or not a string", src);
    /* Multimodal wrappers: the language model is text_config, the tower vision_config. */
    if (strcmp(type, "gemma3") == 0 || strcmp(type, "llava") == 0) {
        projector = type[0] == 'g' ? 2 : 1;
        cfg = json_object_get(root, "text_config");
        vision = json_object_get(root, "vision_config");
        if (!json_is_object(cfg) || !json_is_object(vision))
            return llmmem__fail(LLMMEM_ERR_INCOMPLETE, "%s: %s needs text_config and vision_config objects", src, type);
        const char *text_type = json_string_value(json_object_get(cfg, "model_type"));
        type = text_type ? text_type : projector == 2 ? "gemma3_text" : "llama";
    }
    const struct family *fam = NULL;
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (strcmp(families[i].model_type, type) == 0)
            fam = &families[i];
    if (!fam)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "%s: model_type '%.64s' is not supported", src, type);

    reader r = {NULL, src};
    llmmem_status st = llmmem_model_new(&r.m);
    if (st)
        return st;
    if (!(st = set_key(&r, "model_type", LLMMEM_KEY_MODEL_TYPE, fam->family)) &&
        /* A config without torch_dtype was saved from fp32 weights (transformers' default dtype). */
        !(st = set_key(&r, "torch_dtype", LLMMEM_KEY_TORCH_DTYPE, LLMMEM_FORMAT_FP32)) &&
        !(st = apply_class_defaults(&r, fam->family)) &&
        !(st = apply_same_named(&r, cfg)) && !(st = apply_aliases(&r, cfg, fam->aliases)) &&
        !(st = apply_family_rules(&r, cfg, fam->family)) && !(st = apply_layer_types(&r, cfg)) &&
        !(st = apply_quantization(&r, root)) && cfg != root && !json_object_get(cfg, "torch_dtype")) {
        const json_t *dtype = json_object_get(root, "torch_dtype"); /* multimodal: the wrapper's dtype */
        if (dtype)
            st = apply_value(&r, "torch_dtype", LLMMEM_KEY_TORCH_DTYPE, dtype);
    }
    if (!st && vision)
        st = apply_vision(&r, vision, projector);
    if (!st && (st = llmmem__model_check(r.m)) != LLMMEM_OK)
        st = fail_field(&r, "model", st);
    if (st) {
        llmmem_model_free(r.m);
        return st;
    }
    *out = r.m;
    return LLMMEM_OK;
}

llmmem_status llmmem_model_from_hf_config_text(llmmem_model **out, const char *json, size_t len)
{
    LLMMEM_REQUIRE(out);
    *out = NULL;
    LLMMEM_REQUIRE(json);
    json_error_t err;
    json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &err);
    if (!root)
        return llmmem__fail(LLMMEM_ERR_PARSE, "<memory>:%d:%d: %s", err.line, err.column, err.text);
    llmmem_status st = build(out, root, "<memory>");
    json_decref(root);
    return st;
}

llmmem_status llmmem_model_from_hf_config(llmmem_model **out, const char *path)
{
    LLMMEM_REQUIRE(out);
    *out = NULL;
    LLMMEM_REQUIRE(path);
    char file[4096];
    struct stat sb;
    int n = snprintf(file, sizeof file, "%s", path);
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        n = snprintf(file, sizeof file, "%s/config.json", path);
    if (n < 0 || (size_t)n >= sizeof file)
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "config path too long");
    json_error_t err;
    FILE *f = fopen(file, "rb");
    if (!f)
        return llmmem__fail(LLMMEM_ERR_IO, "%s: cannot open (errno %d)", file, errno);
    if (stat(file, &sb) == 0 && (uint64_t)sb.st_size > CONFIG_MAX_BYTES) {
        fclose(f);
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: larger than %u bytes; not a config.json", file, CONFIG_MAX_BYTES);
    }
    json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &err);
    fclose(f);
    if (!root)
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s:%d:%d: %s", file, err.line, err.column, err.text);
    llmmem_status st = build(out, root, file);
    json_decref(root);
    return st;
}
