/* The model handle: settings, family defaults, and the inventory kept current. */
#include <stdlib.h>
#include <string.h>

#include <stdatomic.h>

#include "base/families.h"
#include "base/internal.h"
#include "readers/json.h"

/* A model key's value: set, else the family's structural default (families.c), else the key's. */
static int64_t resolve(const llmmem_model *m, const llmmem__family *family, llmmem_key key)
{
    if (llmmem__is_set(&m->s, key) || key == LLMMEM_KEY_MODEL_TYPE)
        return llmmem__get_int(&m->s, key);
    int64_t value;
    if (llmmem__family_structure(&value, family, key))
        return value;
    return llmmem__get_int(&m->s, key);
}

/* Identifies a model's contents for caches: every change takes the next number. */
static _Atomic uint64_t next_model_id = 1;

static void refresh(llmmem_model *m)
{
    m->id = atomic_fetch_add(&next_model_id, 1);
    m->has_checkpoint = 0;
    /* every model key resolved once per change: estimates read them many times */
    const llmmem__family *family = llmmem__family_of_type(llmmem__get_int(&m->s, LLMMEM_KEY_MODEL_TYPE));
    for (unsigned slot = 0; slot < LLMMEM_SLOTS; slot++)
        m->value[slot] = resolve(m, family, (llmmem_key)(1000u * LLMMEM_OBJECT_MODEL + slot));
    m->inv_status = llmmem__inventory_build(&m->inv, &m->geo, m, m->inv_message, sizeof m->inv_message);
}

llmmem_status llmmem__model_check(const llmmem_model *m)
{
    if (m->inv_status != LLMMEM_OK)
        return llmmem__fail_text(m->inv_status, m->inv_message);
    return LLMMEM_OK;
}

llmmem_status llmmem_model_new(llmmem_model **out)
{
    LLMMEM_REQUIRE(out);
    *out = NULL;
    llmmem_model *m = calloc(1, sizeof *m);
    if (!m)
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "model_new: out of memory");
    llmmem__settings_init(&m->s, LLMMEM_OBJECT_MODEL);
    refresh(m);
    *out = m;
    return LLMMEM_OK;
}

static llmmem_status apply_preset(llmmem__settings *s, llmmem_object object, const llmmem__preset *p)
{
    for (const llmmem__preset_value *v = p->values; v->key != LLMMEM_KEY_NONE; v++) {
        llmmem_status st = llmmem__settings_set_int(s, object, v->key, v->value);
        if (st)
            return st;
    }
    return LLMMEM_OK;
}

static const llmmem__preset *find_preset(const llmmem__preset *presets, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(presets[i].name, name) == 0)
            return &presets[i];
    return NULL;
}

llmmem_status llmmem__preset_load(llmmem__settings *s, char *name_out, llmmem_object object,
                                  const llmmem__preset *presets, size_t n, const char *name,
                                  const char *what)
{
    const llmmem__preset *p = find_preset(presets, n, name);
    if (!p)
        return llmmem__fail(LLMMEM_ERR_NOT_FOUND, "unknown %s '%.64s' (llmmem %ss lists them)", what,
                            name, what);
    llmmem_status st = apply_preset(s, object, p);
    if (st)
        return st;
    size_t len = strlen(p->name);
    if (len >= LLMMEM_NAME_MAX)
        len = LLMMEM_NAME_MAX - 1;
    memcpy(name_out, p->name, len);
    name_out[len] = '\0';
    return LLMMEM_OK;
}

llmmem_status llmmem_model_from_preset(llmmem_model **out, const char *name)
{
    LLMMEM_REQUIRE(out);
    *out = NULL;
    LLMMEM_REQUIRE(name);
    llmmem_model *m;
    llmmem_status st = llmmem_model_new(&m);
    if (st)
        return st;
    st = llmmem__preset_load(&m->s, m->name, LLMMEM_OBJECT_MODEL, llmmem__model_presets,
                             llmmem__model_preset_total, name, "model");
    if (st) {
        llmmem_model_free(m);
        return st;
    }
    for (size_t i = 0; i < llmmem__model_pattern_total; i++) {
        const char *pattern = llmmem__model_patterns[i].pattern;
        char why[LLMMEM_MESSAGE_MAX];
        if (strcmp(llmmem__model_patterns[i].name, name) != 0)
            continue;
        /* the catalog's patterns are checked by the test suite: this fails only on a bad table */
        if (!llmmem__layer_map_from_pattern(&m->layer_map, pattern, strlen(pattern),
                                            llmmem__model_patterns[i].feed_forward, why, sizeof why)) {
            llmmem_model_free(m);
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "preset %s: %s", name, why);
        }
    }
    refresh(m);
    *out = m;
    return LLMMEM_OK;
}

llmmem_status llmmem_model_clone(llmmem_model **out, const llmmem_model *model)
{
    LLMMEM_REQUIRE(out);
    *out = NULL;
    LLMMEM_REQUIRE(model);
    *out = llmmem__duplicate(model, sizeof *model);
    return *out ? LLMMEM_OK : LLMMEM_ERR_NO_MEMORY;
}

void llmmem_model_free(llmmem_model *model)
{
    free(model);
}

llmmem_status llmmem_model_set_int(llmmem_model *model, llmmem_key key, int64_t value)
{
    LLMMEM_REQUIRE(model);
    llmmem_status st = llmmem__settings_set_int(&model->s, LLMMEM_OBJECT_MODEL, key, value);
    if (st)
        return st;
    refresh(model);
    return LLMMEM_OK;
}

llmmem_status llmmem_model_get_int(int64_t *value_out, const llmmem_model *model, llmmem_key key)
{
    LLMMEM_REQUIRE(value_out);
    LLMMEM_REQUIRE(model);
    int64_t ignored;
    llmmem_status st = llmmem__settings_get_int(&ignored, &model->s, LLMMEM_OBJECT_MODEL, key);
    if (st)
        return st;
    *value_out = llmmem__model_value(model, key); /* the family's default when not set */
    return LLMMEM_OK;
}

llmmem_status llmmem_model_set_text(llmmem_model *model, const char *key_name, const char *value)
{
    LLMMEM_REQUIRE(model);
    LLMMEM_REQUIRE(key_name);
    LLMMEM_REQUIRE(value);
    llmmem_status st = llmmem__settings_set_text(&model->s, LLMMEM_OBJECT_MODEL, key_name, value, NULL);
    if (st)
        return st;
    refresh(model);
    return LLMMEM_OK;
}


llmmem_status llmmem_model_set_layer_types(llmmem_model *model, const char *layer_types)
{
    LLMMEM_REQUIRE(model);
    LLMMEM_REQUIRE(layer_types);
    llmmem__layer_map map;
    memset(&map, 0, sizeof map);
    for (const char *p = layer_types; *p;) {
        size_t len = strcspn(p, ",");
        enum llmmem__mixer mixer;
        if (map.layers == LLMMEM_LAYER_MAP_MAX)
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "layer_types: more than %d layers are not modelled",
                                LLMMEM_LAYER_MAP_MAX);
        if (!llmmem__layer_type_mixer(&mixer, p, len))
            return llmmem__fail(LLMMEM_ERR_NOT_FOUND,
                                "layer_types[%llu]: '%.*s' is not a layer type (" LLMMEM_MODELLED_LAYER_TYPES " are)",
                                (unsigned long long)map.layers, (int)(len < 64 ? len : 64), p);
        if (!llmmem__mixer_modelled(mixer))
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                                "layer_types[%llu]: '%.*s' layers are not modelled yet (" LLMMEM_MODELLED_LAYER_TYPES
                                " are)",
                                (unsigned long long)map.layers, (int)len, p);
        llmmem__layer_map_push(&map, mixer);
        p += len;
        if (*p == ',' && *++p == '\0')
            return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "layer_types: an empty entry after the last ','");
    }
    llmmem__model_set_layer_map(model, &map);
    return LLMMEM_OK;
}

void llmmem__model_set_layer_map(llmmem_model *m, const llmmem__layer_map *map)
{
    m->layer_map = *map;
    refresh(m);
}

llmmem_status llmmem__state_check(const llmmem_model *m, const char *what, int training)
{
    const llmmem__geometry *g = &m->geo;
    if (llmmem__state_layers(g) == 0)
        return LLMMEM_OK;
    if (training && g->mamba1_layers) /* activations.c models Mamba-2 and Gated DeltaNet saved tensors only */
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "%s of a model with %llu Mamba-1 layers (jamba's JambaMambaMixer) "
                            "is not modelled: their saved tensors are not costed", what,
                            (unsigned long long)g->mamba1_layers);
    if (training && g->linear_layers && llmmem__model_value(m, LLMMEM_KEY_LINEAR_ATTN_KDA))
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "%s of a model with %llu Kimi Delta Attention layers (kimi_linear's "
                            "KimiDeltaAttention) is not modelled: their saved tensors are not costed", what,
                            (unsigned long long)g->linear_layers);
    if (training && g->conv_layers)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "%s of a model with %llu short-convolution layers (lfm2's "
                            "Lfm2ShortConv) is not modelled: their saved tensors are not costed", what,
                            (unsigned long long)g->conv_layers);
    if (training && g->parallel_ssm) /* activations.c costs the saved tensors of Mamba-2 layers, not of one beside attention */
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "%s of a model with parallel_ssm (falcon_h1's FalconH1Mixer beside "
                            "the attention of every layer) is not modelled: the mixer's saved tensors are not costed",
                            what);
    if (training) /* their saved tensors are modelled (activations.c) */
        return LLMMEM_OK;
    if (g->conv_layers)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "%s of a model with %llu short-convolution layers is not modelled yet: the window each "
                            "sequence keeps is not costed there (vLLM serving and llmmem_kv_cache_bytes are)",
                            what, (unsigned long long)g->conv_layers);
    if (g->mamba1_layers)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "%s of a model with %llu Mamba-1 layers is not modelled yet: the conv and SSM state each "
                            "sequence keeps is not costed there (vLLM serving and llmmem_kv_cache_bytes are)",
                            what, (unsigned long long)g->mamba1_layers);
    return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                        "%s of a model with %llu Mamba-2 and %llu Gated DeltaNet layers is not modelled yet: the "
                        "conv and recurrent state each sequence keeps is not costed there (training, vLLM serving "
                        "and llmmem_kv_cache_bytes are)",
                        what, (unsigned long long)g->ssm_layers, (unsigned long long)g->linear_layers);
}

const char *llmmem_model_name(const llmmem_model *model)
{
    return model ? model->name : "";
}

void llmmem__model_set_name(llmmem_model *m, const char *text)
{
    size_t len = strlen(text), from = 0, o = 0;
    char *out = m->name;
    if (len >= LLMMEM_NAME_MAX) { /* "...", the end, the NUL */
        from = len - (LLMMEM_NAME_MAX - 4);
        while (from < len && ((unsigned char)text[from] & 0xC0) == 0x80) /* not inside a character */
            from++;
        memcpy(out, "...", 3);
        o = 3;
    }
    for (size_t i = from; i < len;) {
        unsigned char c = (unsigned char)text[i];
        size_t n = c >= 0x80 ? llmmem__utf8_length(text, len, i) : (size_t)(c >= 0x20 && c != 0x7F);
        if (n == 0) {
            out[o++] = '?';
            i++;
        } else {
            memcpy(out + o, text + i, n);
            o += n;
            i += n;
        }
    }
    out[o] = '\0';
}

static const char *const group_names[LLMMEM_PARAM_GROUPS] = {
    "embedding", "positions", "attention", "mlp", "experts", "shared_experts",
    "router",    "norms",     "lm_head",   "other",          "vision",
    "ssm",
};

size_t llmmem_param_group_count(void)
{
    return LLMMEM_PARAM_GROUPS;
}

const char *llmmem_param_group_name(llmmem_param_group group)
{
    return (unsigned)group < LLMMEM_PARAM_GROUPS ? group_names[group] : NULL;
}

llmmem_status llmmem_model_parameters(uint64_t *count_out, const llmmem_model *model,
                                      llmmem_param_group group)
{
    LLMMEM_REQUIRE(count_out);
    LLMMEM_REQUIRE(model);
    if ((unsigned)group >= LLMMEM_PARAM_GROUPS)
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "unknown parameter group %d", (int)group);
    llmmem_status st = llmmem__model_check(model);
    if (st)
        return st;
    *count_out = model->inv.params[group];
    return LLMMEM_OK;
}

llmmem_status llmmem_model_total_parameters(uint64_t *count_out, const llmmem_model *model)
{
    LLMMEM_REQUIRE(count_out);
    LLMMEM_REQUIRE(model);
    llmmem_status st = llmmem__model_check(model);
    if (st)
        return st;
    *count_out = model->inv.total;
    return LLMMEM_OK;
}

llmmem_status llmmem_model_active_parameters(uint64_t *count_out, const llmmem_model *model)
{
    LLMMEM_REQUIRE(count_out);
    LLMMEM_REQUIRE(model);
    llmmem_status st = llmmem__model_check(model);
    if (st)
        return st;
    *count_out = model->inv.active;
    return LLMMEM_OK;
}

llmmem_status llmmem_model_checkpoint_parameters(uint64_t *count_out, const llmmem_model *model)
{
    LLMMEM_REQUIRE(count_out);
    LLMMEM_REQUIRE(model);
    llmmem__inventory mtp;
    llmmem_status st = llmmem__model_check(model);
    if (st || (st = llmmem__mtp_inventory(&mtp, model)) != LLMMEM_OK)
        return st;
    /* and what it stores that the model drops on load (Gemma 4's KV-shared layers' keys and values) */
    if (!llmmem__add(count_out, model->inv.total, mtp.total) || !llmmem__add(count_out, *count_out, model->geo.dropped))
        return llmmem__fail(LLMMEM_ERR_OVERFLOW, "checkpoint parameters exceed 64 bits");
    return LLMMEM_OK;
}

size_t llmmem_model_preset_count(void)
{
    return llmmem__model_preset_total;
}

const char *llmmem_model_preset_name(size_t index)
{
    return index < llmmem__model_preset_total ? llmmem__model_presets[index].name : NULL;
}
