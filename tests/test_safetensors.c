/* The safetensors reader: headers built here (in memory, or written with their data into a
 * fresh mkdtemp folder), every expected count derived by hand in the comments next to it. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "readers/checkpoint.h"
#include "unit.h"

/* ---- building headers ---------------------------------------------------- */

/* Bits per element, written out here rather than taken from the library. */
static unsigned bits_of(const char *dtype)
{
    static const struct {
        const char *name;
        unsigned bits;
    } table[] = {{"BOOL", 8},  {"U8", 8},   {"I8", 8},   {"F8_E4M3", 8}, {"F4", 4},   {"F6_E2M3", 6},
                 {"I16", 16},  {"F16", 16}, {"BF16", 16}, {"I32", 32},   {"U32", 32}, {"F32", 32},
                 {"I64", 64},  {"F64", 64}, {"C64", 64}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].name, dtype) == 0)
            return table[i].bits;
    ck_abort_msg("test table lacks dtype %s", dtype);
    return 0;
}

/* A header under construction: tensors laid out one after another from offset 0. */
typedef struct hdr {
    char json[32768];
    size_t len;
    uint64_t offset;
} hdr;

static void hdr_init(hdr *h)
{
    h->json[0] = '{';
    h->json[1] = '\0';
    h->len = 1;
    h->offset = 0;
}

static void hdr_append(hdr *h, const char *fmt, ...) LLMMEM_PRINTF(2, 3);

static void hdr_append(hdr *h, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(h->json + h->len, sizeof h->json - h->len, fmt, ap);
    va_end(ap);
    ck_assert(n >= 0 && (size_t)n < sizeof h->json - h->len);
    h->len += (size_t)n;
}

/* Adds a tensor whose shape is given as JSON ("[16, 8]"); its bytes follow the previous one's. */
static void hdr_add(hdr *h, const char *name, const char *dtype, const char *shape)
{
    uint64_t elements = 1;
    for (const char *p = shape; *p; p++) {
        if (*p >= '0' && *p <= '9') {
            char *end;
            elements *= strtoull(p, &end, 10);
            p = end - 1;
        }
    }
    uint64_t bytes = elements * bits_of(dtype) / 8;
    hdr_append(h, "%s\"%s\":{\"dtype\":\"%s\",\"shape\":%s,\"data_offsets\":[%" PRIu64 ",%" PRIu64 "]}",
               h->len > 1 ? "," : "", name, dtype, shape, h->offset, h->offset + bytes);
    h->offset += bytes;
}

/* The file: length, JSON, and (if with_data) zeroed data for every tensor. Free with free(). */
static unsigned char *hdr_bytes(hdr *h, size_t *size_out, int with_data)
{
    hdr_append(h, "}");
    size_t data = with_data ? (size_t)h->offset : 0;
    size_t size = 8 + h->len + data;
    unsigned char *b = calloc(1, size);
    ck_assert_ptr_nonnull(b);
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)((uint64_t)h->len >> (8 * i));
    memcpy(b + 8, h->json, h->len);
    *size_out = size;
    return b;
}

/* A raw header: the 8-byte length of `json`, then `json`. */
static unsigned char *raw_bytes(const char *json, size_t *size_out)
{
    size_t n = strlen(json);
    unsigned char *b = malloc(8 + n);
    ck_assert_ptr_nonnull(b);
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)((uint64_t)n >> (8 * i));
    memcpy(b + 8, json, n);
    *size_out = 8 + n;
    return b;
}

/* ---- a temporary folder -------------------------------------------------- */

typedef struct tmp {
    char dir[256];
    char files[16][320];
    int n;
} tmp;

static void tmp_init(tmp *t)
{
    const char *base = getenv("TMPDIR");
    snprintf(t->dir, sizeof t->dir, "%s/llmmem-st-XXXXXX", base && *base ? base : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(t->dir));
    t->n = 0;
}

static const char *tmp_write(tmp *t, const char *name, const void *data, size_t size)
{
    ck_assert_int_lt(t->n, 16);
    char *path = t->files[t->n++];
    char joined[sizeof t->files[0]];
    snprintf(joined, sizeof joined, "%s/%s", t->dir, name);
    memcpy(path, joined, sizeof joined);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, size, f), size);
    ck_assert_int_eq(fclose(f), 0);
    return path;
}

static const char *tmp_write_text(tmp *t, const char *name, const char *text)
{
    return tmp_write(t, name, text, strlen(text));
}

/* A named pipe in the folder, no writer at its other end. */
static const char *tmp_fifo(tmp *t, const char *name)
{
    ck_assert_int_lt(t->n, 16);
    char *path = t->files[t->n++];
    char joined[sizeof t->files[0]];
    snprintf(joined, sizeof joined, "%s/%s", t->dir, name);
    memcpy(path, joined, sizeof joined);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    return path;
}

static void tmp_done(tmp *t)
{
    for (int i = 0; i < t->n; i++)
        unlink(t->files[i]);
    rmdir(t->dir);
}

/* ---- looking at a checkpoint --------------------------------------------- */

static llmmem_checkpoint *from_bytes(const unsigned char *b, size_t size)
{
    llmmem_checkpoint *ck = NULL;
    ck_assert_ok(llmmem_checkpoint_from_safetensors_bytes(&ck, b, size));
    ck_assert_ptr_nonnull(ck);
    return ck;
}

/* Role and group of the named tensor. */
static void expect_tensor(const llmmem_checkpoint *ck, const char *name, llmmem_tensor_role role,
                          llmmem_param_group group)
{
    for (size_t i = 0; i < llmmem_checkpoint_tensor_count(ck); i++) {
        const char *n = NULL;
        llmmem_tensor_role r;
        llmmem_param_group g;
        ck_assert_ok(llmmem_checkpoint_tensor(&n, NULL, NULL, NULL, &r, &g, ck, i));
        if (strcmp(n, name) != 0)
            continue;
        ck_assert_msg(r == role, "%s: role %d, expected %d", name, (int)r, (int)role);
        if (role == LLMMEM_TENSOR_PARAMETER || role == LLMMEM_TENSOR_QUANT_AUX)
            ck_assert_msg(g == group, "%s: group %s, expected %s", name, llmmem_param_group_name(g),
                          llmmem_param_group_name(group));
        return;
    }
    ck_abort_msg("no tensor %s", name);
}

/* The sums agree with each other whatever the checkpoint. */
static void check_sums(const llmmem_checkpoint *ck)
{
    uint64_t roles = 0, groups = 0, group_bytes = 0, dtype_bytes = 0;
    for (int r = 0; r < 4; r++)
        roles += llmmem_checkpoint_role_bytes(ck, (llmmem_tensor_role)r);
    for (size_t g = 0; g < llmmem_param_group_count(); g++) {
        groups += llmmem_checkpoint_group_parameters(ck, (llmmem_param_group)g);
        group_bytes += llmmem_checkpoint_group_bytes(ck, (llmmem_param_group)g);
    }
    for (size_t d = 0; d < llmmem_checkpoint_dtype_count(ck); d++) {
        uint64_t b = 0;
        ck_assert_ok(llmmem_checkpoint_dtype(NULL, NULL, &b, ck, d));
        dtype_bytes += b;
    }
    ck_assert_uint_eq(roles, llmmem_checkpoint_total_bytes(ck));
    ck_assert_uint_eq(dtype_bytes, llmmem_checkpoint_total_bytes(ck));
    ck_assert_uint_eq(groups, llmmem_checkpoint_role_elements(ck, LLMMEM_TENSOR_PARAMETER));
    ck_assert_uint_eq(group_bytes, llmmem_checkpoint_role_bytes(ck, LLMMEM_TENSOR_PARAMETER) +
                                       llmmem_checkpoint_role_bytes(ck, LLMMEM_TENSOR_QUANT_AUX));
}

#define ck_assert_message_has(needle)                                                              \
    ck_assert_msg(strstr(llmmem_last_message(), (needle)) != NULL, "message \"%s\" lacks \"%s\"", \
                  llmmem_last_message(), (needle))

/* ---- a tiny Llama-shaped checkpoint -------------------------------------- */

/* vocab 16, hidden 8, one layer, 2 heads of 4 (no GQA), intermediate 12, all BF16, plus a
 * rotary inv_freq buffer (F32, head_dim / 2 = 2) and the LM head stored although tied. */
static void tiny_llama(hdr *h)
{
    hdr_init(h);
    hdr_add(h, "model.embed_tokens.weight", "BF16", "[16, 8]");                    /* 128 */
    hdr_add(h, "model.layers.0.self_attn.q_proj.weight", "BF16", "[8, 8]");        /* 64 */
    hdr_add(h, "model.layers.0.self_attn.k_proj.weight", "BF16", "[8, 8]");        /* 64 */
    hdr_add(h, "model.layers.0.self_attn.v_proj.weight", "BF16", "[8, 8]");        /* 64 */
    hdr_add(h, "model.layers.0.self_attn.o_proj.weight", "BF16", "[8, 8]");        /* 64 */
    hdr_add(h, "model.layers.0.self_attn.rotary_emb.inv_freq", "F32", "[2]");      /* buffer */
    hdr_add(h, "model.layers.0.mlp.gate_proj.weight", "BF16", "[12, 8]");          /* 96 */
    hdr_add(h, "model.layers.0.mlp.up_proj.weight", "BF16", "[12, 8]");            /* 96 */
    hdr_add(h, "model.layers.0.mlp.down_proj.weight", "BF16", "[8, 12]");          /* 96 */
    hdr_add(h, "model.layers.0.input_layernorm.weight", "BF16", "[8]");            /* 8 */
    hdr_add(h, "model.layers.0.post_attention_layernorm.weight", "BF16", "[8]");   /* 8 */
    hdr_add(h, "model.norm.weight", "BF16", "[8]");                                /* 8 */
    hdr_add(h, "lm_head.weight", "BF16", "[16, 8]");                               /* 128 */
}

START_TEST(rotary_buffer_and_tied_head)
{
    hdr h;
    tiny_llama(&h);
    size_t size;
    unsigned char *b = hdr_bytes(&h, &size, 1);
    tmp t;
    tmp_init(&t);
    const char *file = tmp_write(&t, "model.safetensors", b, size);
    tmp_write_text(&t, "config.json", "{\"model_type\": \"llama\", \"tie_word_embeddings\": true}");

    /* The folder: config.json says tied, so the stored head is a duplicate. */
    llmmem_checkpoint *ck = NULL;
    ck_assert_ok(llmmem_checkpoint_from_safetensors(&ck, t.dir));
    ck_assert_uint_eq(llmmem_checkpoint_tensor_count(ck), 13);
    expect_tensor(ck, "model.layers.0.self_attn.rotary_emb.inv_freq", LLMMEM_TENSOR_BUFFER, LLMMEM_PARAMS_OTHER);
    expect_tensor(ck, "lm_head.weight", LLMMEM_TENSOR_DUPLICATE, LLMMEM_PARAMS_LM_HEAD);
    expect_tensor(ck, "model.embed_tokens.weight", LLMMEM_TENSOR_PARAMETER, LLMMEM_PARAMS_EMBEDDING);
    expect_tensor(ck, "model.layers.0.input_layernorm.weight", LLMMEM_TENSOR_PARAMETER, LLMMEM_PARAMS_NORMS);
    /* embedding 16*8 = 128; attention 4 * 8*8 = 256; mlp 3 * 12*8 = 288; norms 3 * 8 = 24 */
    ck_assert_uint_eq(llmmem_checkpoint_group_parameters(ck, LLMMEM_PARAMS_EMBEDDING), 128);
    ck_assert_uint_eq(llmmem_checkpoint_group_parameters(ck, LLMMEM_PARAMS_ATTENTION), 256);
    ck_assert_uint_eq(llmmem_checkpoint_group_parameters(ck, LLMMEM_PARAMS_MLP), 288);
    ck_assert_uint_eq(llmmem_checkpoint_group_parameters(ck, LLMMEM_PARAMS_NORMS), 24);
    ck_assert_uint_eq(llmmem_checkpoint_group_parameters(ck, LLMMEM_PARAMS_LM_HEAD), 0);
    ck_assert_uint_eq(llmmem_checkpoint_group_parameters(ck, LLMMEM_PARAMS_OTHER), 0);
    ck_assert_uint_eq(llmmem_checkpoint_role_elements(ck, LLMMEM_TENSOR_PARAMETER), 128 + 256 + 288 + 24);
    ck_assert_uint_eq(llmmem_checkpoint_role_elements(ck, LLMMEM_TENSOR_DUPLICATE), 128);
    ck_assert_uint_eq(llmmem_checkpoint_role_elements(ck, LLMMEM_TENSOR_BUFFER), 2);
    ck_assert_uint_eq(llmmem_checkpoint_role_bytes(ck, LLMMEM_TENSOR_BUFFER), 8);
    ck_assert_uint_eq(llmmem_checkpoint_role_bytes(ck, LLMMEM_TENSOR_DUPLICATE), 256);
    /* (696 parameters + 128 duplicate) * 2 bytes + 8 bytes of F32 buffer */
    ck_assert_uint_eq(llmmem_checkpoint_total_bytes(ck), 1656);
    check_sums(ck);

    /* The same model with tie_word_embeddings = true has exactly these parameters. */
    llmmem_model *m = NULL;
    ck_assert_ok(llmmem_model_new(&m));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_MODEL_TYPE, LLMMEM_MODEL_LLAMA));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_HIDDEN_SIZE, 8));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_HIDDEN_LAYERS, 1));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_ATTENTION_HEADS, 2));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_INTERMEDIATE_SIZE, 12));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_VOCAB_SIZE, 16));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS, 1));
    ck_assert_ok(llmmem_checkpoint_verify(ck, m));
    llmmem_model_free(m);
    llmmem_checkpoint_free(ck);

    /* The file: the config.json beside it is read as the folder's is, so the head is a duplicate too. */
    ck_assert_ok(llmmem_checkpoint_from_safetensors(&ck, file));
    expect_tensor(ck, "lm_head.weight", LLMMEM_TENSOR_DUPLICATE, LLMMEM_PARAMS_LM_HEAD);
    ck_assert_uint_eq(llmmem_checkpoint_role_elements(ck, LLMMEM_TENSOR_DUPLICATE), 128);
    check_sums(ck);
    llmmem_checkpoint_free(ck);

    /* A file with no config.json beside it: the head stays a parameter. */
    tmp alone;
    tmp_init(&alone);
    ck_assert_ok(llmmem_checkpoint_from_safetensors(&ck, tmp_write(&alone, "model.safetensors", b, size)));
    expect_tensor(ck, "lm_head.weight", LLMMEM_TENSOR_PARAMETER, LLMMEM_PARAMS_LM_HEAD);
    ck_assert_uint_eq(llmmem_checkpoint_group_parameters(ck, LLMMEM_PARAMS_LM_HEAD), 128);
    ck_assert_uint_eq(llmmem_checkpoint_role_elements(ck, LLMMEM_TENSOR_DUPLICATE), 0);
    check_sums(ck);
    llmmem_checkpoint_free(ck);
    tmp_done(&alone);

    /* The same bytes from memory. */
    ck = from_bytes(b, size);
    ck_assert_uint_eq(llmmem_checkpoint_total_bytes(ck), 1656);
    llmmem_checkpoint_free(ck);
    free(b);
    tmp_done(&t);
}
END_TEST

/* config.json saying false, or not saying: the head stays a parameter. */
START_TEST(untied_config)
{
    static const char *const configs[] = {"{\"tie_word_embeddings\": false}", "{\"model_type\": \"llama\"}",
                                          "{\"text_config\": {\"tie_word_embeddings\": false}}"};
    hdr h;
    size_t size;
    tiny_llama(&h);
    unsigned char *b = hdr_bytes(&h, &size, 1);
    for (size_t i = 0; i < 3; i++) {
        tmp t;
        tmp_init(&t);
        tmp_write(&t, "model.safetensors", b, size);
        tmp_write_text(&t, "config.json", configs[i]);
        llmmem_checkpoint *ck = NULL;
        ck_assert_ok(llmmem_checkpoint_from_safetensors(&ck, t.dir));
        expect_tensor(ck, "lm_head.weight", LLMMEM_TENSOR_PARAMETER, LLMMEM_PARAMS_LM_HEAD);
        llmmem_checkpoint_free(ck);
        tmp_done(&t);
    }
    /* text_config (multimodal configs) is read when the top level does not say */
    tmp t;
    tmp_init(&t);
    tmp_write(&t, "model.safetensors", b, size);
    tmp_write_text(&t, "config.json", "{\"text_config\": {\"tie_word_embeddings\": true}}");
    llmmem_checkpoint *ck = NULL;
    ck_assert_ok(llmmem_checkpoint_from_safetensors(&ck, t.dir));
    expect_tensor(ck, "lm_head.weight", LLMMEM_TENSOR_DUPLICATE, LLMMEM_PARAMS_LM_HEAD);
    llmmem_checkpoint_free(ck);
    tmp_done(&t);

    /* a config.json that says something else than a boolean is an error naming it */
    tmp_init(&t);
    tmp_write(&t, "model.safetensors", b, size);
    tmp_write_text(&t, "config.json", "{\"tie_word_embeddings\": \"yes\"}");
    ck_assert_status(llmmem_checkpoint_from_safetensors(&ck, t.dir), LLMMEM_ERR_PARSE);
    ck_assert_ptr_null(ck);
    ck_assert_message_has("config.json");
    ck_assert_message_has("tie_word_embeddings");
    tmp_done(&t);
    free(b);
}
END_TEST

/* The model a checkpoint's config.json describes (issue 28): the same whether the folder, its
 * model.safetensors or its index is given, named by the path given; no config.json, or one that
 * describes no model, is the reason llmmem_checkpoint_model gives, and the bytes stay readable. */
START_TEST(model_from_the_config_beside_it)
{
    static const char config[] = "{\"model_type\": \"llama\", \"hidden_size\": 8, \"num_hidden_layers\": 1, "
                                 "\"num_attention_heads\": 2, \"intermediate_size\": 12, \"vocab_size\": 16, "
                                 "\"tie_word_embeddings\": true, \"torch_dtype\": \"bfloat16\"}";
    hdr h;
    size_t size;
    tiny_llama(&h);
    unsigned char *b = hdr_bytes(&h, &size, 1);
    tmp t;
    tmp_init(&t);
    tmp_write_text(&t, "config.json", config);
    const char *paths[3] = {t.dir, tmp_write(&t, "model-00001-of-00001.safetensors", b, size),
                            tmp_write_text(&t, "model.safetensors.index.json",
                                           "{\"weight_map\": {\"lm_head.weight\": \"model-00001-of-00001.safetensors\"}}")};
    for (int i = 0; i < 3; i++) {
        llmmem_checkpoint *ck = NULL;
        llmmem_model *m = NULL;
        uint64_t total = 0;
        ck_assert_ok(llmmem_checkpoint_from_safetensors(&ck, paths[i]));
        ck_assert_ok(llmmem_checkpoint_model(&m, ck));
        ck_assert_str_eq(llmmem_model_name(m), paths[i]);
        /* the tiny Llama tied: 128 + 256 + 288 + 24 = 696 parameters, as stored */
        ck_assert_ok(llmmem_model_total_parameters(&total, m));
        ck_assert_uint_eq(total, 696);
        ck_assert_ok(llmmem_checkpoint_verify(ck, m));
        llmmem_model_free(m);
        llmmem_checkpoint_free(ck);
    }
    tmp_done(&t);

    /* no config.json: the bytes are read, the model is missing */
    tmp_init(&t);
    const char *file = tmp_write(&t, "model.safetensors", b, size);
    llmmem_checkpoint *ck = NULL;
    llmmem_model *m = (llmmem_model *)&m;
    ck_assert_ok(llmmem_checkpoint_from_safetensors(&ck, file));
    ck_assert_uint_eq(llmmem_checkpoint_total_bytes(ck), 1656);
    ck_assert_status(llmmem_checkpoint_model(&m, ck), LLMMEM_ERR_INCOMPLETE);
    ck_assert_ptr_null(m);
    ck_assert_message_has("config.json: no such file");
    llmmem_checkpoint_free(ck);
    /* a config.json whose model_type is not modelled: the same, with the config's own message */
    tmp_write_text(&t, "config.json", "{\"model_type\": \"rwkv\"}");
    ck_assert_ok(llmmem_checkpoint_from_safetensors(&ck, file));
    ck_assert_int_ne(llmmem_checkpoint_model(&m, ck), LLMMEM_OK);
    ck_assert_message_has("rwkv");
    llmmem_checkpoint_free(ck);
    tmp_done(&t);

    /* a header from memory names no folder */
    ck = from_bytes(b, size);
    ck_assert_status(llmmem_checkpoint_model(&m, ck), LLMMEM_ERR_NOT_FOUND);
    llmmem_checkpoint_free(ck);
    free(b);
}
END_TEST

/* ---- sharded ------------------------------------------------------------- */

START_TEST(index_two_shards)
{
    hdr a, c;
    size_t size_a, size_c;
    hdr_init(&a);
    hdr_add(&a, "model.embed_tokens.weight", "F16", "[16, 8]");            /* 128 */
    hdr_add(&a, "model.layers.0.self_attn.q_proj.weight", "F16", "[8, 8]"); /* 64 */
    unsigned char *ba = hdr_bytes(&a, &size_a, 1);
    hdr_init(&c);
    hdr_add(&c, "model.layers.0.mlp.down_proj.weight", "F16", "[8, 12]"); /* 96 */
    hdr_add(&c, "model.norm.weight", "F32", "[8]");                       /* 8 */
    hdr_add(&c, "lm_head.weight", "F16", "[16, 8]");                      /* 128 */
    unsigned char *bc = hdr_bytes(&c, &size_c, 1);
    static const char index[] =
        "{\"metadata\": {\"total_size\": 864}, \"weight_map\": {"
        "\"lm_head.weight\": \"model-00002-of-00002.safetensors\","
        "\"model.embed_tokens.weight\": \"model-00001-of-00002.safetensors\","
        "\"model.layers.0.mlp.down_proj.weight\": \"model-00002-of-00002.safetensors\","
        "\"model.layers.0.self_attn.q_proj.weight\": \"model-00001-of-00002.safetensors\","
        "\"model.norm.weight\": \"model-00002-of-00002.safetensors\"}}";

    tmp t;
    tmp_init(&t);
    tmp_write(&t, "model-00001-of-00002.safetensors", ba, size_a);
    tmp_write(&t, "model-00002-of-00002.safetensors", bc, size_c);
    const char *index_path = tmp_write_text(&t, "model.safetensors.index.json", index);

    const char *paths[] = {t.dir, index_path};
    for (int i = 0; i < 2; i++) {
        llmmem_checkpoint *ck = NULL;
        ck_assert_ok(llmmem_checkpoint_from_safetensors(&ck, paths[i]));
        ck_assert_uint_eq(llmmem_checkpoint_tensor_count(ck), 5);
        /* shards in order of first mention: 00002 (lm_head comes first), then 00001 */
        const char *first = NULL;
        ck_assert_ok(llmmem_checkpoint_tensor(&first, NULL, NULL, NULL, NULL, NULL, ck, 0));
        ck_assert_str_eq(first, "model.layers.0.mlp.down_proj.weight");
        ck_assert_uint_eq(llmmem_checkpoint_group_parameters(ck, LLMMEM_PARAMS_EMBEDDING), 128);
        ck_assert_uint_eq(llmmem_checkpoint_group_parameters(ck, LLMMEM_PARAMS_ATTENTION), 64);
        ck_assert_uint_eq(llmmem_checkpoint_group_parameters(ck, LLMMEM_PARAMS_MLP), 96);
        ck_assert_uint_eq(llmmem_checkpoint_group_parameters(ck, LLMMEM_PARAMS_NORMS), 8);
        ck_assert_uint_eq(llmmem_checkpoint_group_parameters(ck, LLMMEM_PARAMS_LM_HEAD), 128);
        /* F16: (128 + 64 + 96 + 128) * 2 = 832; F32 norm: 32 */
        ck_assert_uint_eq(llmmem_checkpoint_total_bytes(ck), 864);
        check_sums(ck);
        llmmem_checkpoint_free(ck);
    }
    free(ba);
    free(bc);
    tmp_done(&t);
}
END_TEST

/* A shard that is missing, a tensor the index places in a shard that lacks it, and a tensor
 * stored twice. */
START_TEST(index_errors)
{
    hdr a;
    size_t size_a;
    hdr_init(&a);
    hdr_add(&a, "model.embed_tokens.weight", "F16", "[16, 8]");
    unsigned char *ba = hdr_bytes(&a, &size_a, 1);
    llmmem_checkpoint *ck = NULL;
    tmp t;

    tmp_init(&t);
    tmp_write(&t, "a.safetensors", ba, size_a);
    tmp_write_text(&t, "model.safetensors.index.json",
                   "{\"weight_map\": {\"model.embed_tokens.weight\": \"a.safetensors\", "
                   "\"lm_head.weight\": \"b.safetensors\"}}");
    ck_assert_status(llmmem_checkpoint_from_safetensors(&ck, t.dir), LLMMEM_ERR_IO);
    ck_assert_ptr_null(ck);
    ck_assert_message_has("b.safetensors");
    ck_assert_message_has("no such file");
    tmp_done(&t);

    tmp_init(&t);
    tmp_write(&t, "a.safetensors", ba, size_a);
    tmp_write_text(&t, "model.safetensors.index.json",
                   "{\"weight_map\": {\"model.embed_tokens.weight\": \"a.safetensors\", "
                   "\"lm_head.weight\": \"a.safetensors\"}}");
    ck_assert_status(llmmem_checkpoint_from_safetensors(&ck, t.dir), LLMMEM_ERR_PARSE);
    ck_assert_message_has("model.safetensors.index.json");
    ck_assert_message_has("'lm_head.weight'");
    ck_assert_message_has("does not hold it");
    tmp_done(&t);

    tmp_init(&t);
    tmp_write(&t, "a.safetensors", ba, size_a);
    tmp_write(&t, "b.safetensors", ba, size_a);
    tmp_write_text(&t, "model.safetensors.index.json",
                   "{\"weight_map\": {\"model.embed_tokens.weight\": \"a.safetensors\", \"x\": \"b.safetensors\"}}");
    ck_assert_status(llmmem_checkpoint_from_safetensors(&ck, t.dir), LLMMEM_ERR_PARSE);
    ck_assert_message_has("stored in both");
    tmp_done(&t);

    static const char *const bad_indexes[][2] = {
        {"{\"metadata\": {\"total_size\": \"864\"}, \"weight_map\": {\"x\": \"a.safetensors\"}}", "total_size"},
        {"{\"metadata\": {\"total_size\": 8.5}, \"weight_map\": {\"x\": \"a.safetensors\"}}", "total_size"},
        {"{\"metadata\": {}}", "\"weight_map\" is missing"},
        {"{\"weight_map\": {}}", "\"weight_map\" is empty"},
        {"{\"weight_map\": [\"a.safetensors\"]}", "\"weight_map\" is not an object"},
        {"{\"weight_map\": {\"x\": 3}}", "'x' is not a string"},
        {"{\"weight_map\": {\"x\": \"../a.safetensors\"}}", "'x' is a path"},
        {"{\"weight_map\": {\"x\": \"a.safetensors\"}, \"weight_map\": {}}", "duplicate"},
        {"[]", "not an object"},
    };
    for (size_t i = 0; i < sizeof bad_indexes / sizeof bad_indexes[0]; i++) {
        tmp_init(&t);
        tmp_write(&t, "a.safetensors", ba, size_a);
        const char *index_path = tmp_write_text(&t, "model.safetensors.index.json", bad_indexes[i][0]);
        ck_assert_status(llmmem_checkpoint_from_safetensors(&ck, index_path), LLMMEM_ERR_PARSE);
        ck_assert_message_has("model.safetensors.index.json");
        ck_assert_message_has(bad_indexes[i][1]);
        tmp_done(&t);
    }
    free(ba);
}
END_TEST

/* ---- quantized ----------------------------------------------------------- */

/* One GPTQ 4-bit q_proj (in 64, out 32, group 32) as AutoGPTQ stores it
 * (auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py):
 *   qweight I32 [64 / 32 * 4, 32] = [8, 32]:   256 elements, 1024 bytes, 256 * 8 = 2048 = 64 * 32 parameters
 *   qzeros  I32 [ceil(64 / 32), 32 / 32 * 4] = [2, 4]: 8 elements, 32 bytes
 *   scales  F16 [2, 32]:                         64 elements, 128 bytes
 *   g_idx   I32 [64]:                            64 elements, 256 bytes
 *   bias    F16 [32]:                            32 parameters, 64 bytes
 * and a down_proj the same way (in 32, out 64): qweight [4, 64] (256 elements, 2048 parameters),
 * qzeros [1, 8], scales F16 [1, 64], g_idx [32]. */
START_TEST(gptq)
{
    hdr h;
    size_t size;
    hdr_init(&h);
    hdr_add(&h, "model.layers.0.self_attn.q_proj.qweight", "I32", "[8, 32]");
    hdr_add(&h, "model.layers.0.self_attn.q_proj.qzeros", "I32", "[2, 4]");
    hdr_add(&h, "model.layers.0.self_attn.q_proj.scales", "F16", "[2, 32]");
    hdr_add(&h, "model.layers.0.self_attn.q_proj.g_idx", "I32", "[64]");
    hdr_add(&h, "model.layers.0.self_attn.q_proj.bias", "F16", "[32]");
    hdr_add(&h, "model.layers.0.mlp.down_proj.qweight", "I32", "[4, 64]");
    hdr_add(&h, "model.layers.0.mlp.down_proj.qzeros", "I32", "[1, 8]");
    hdr_add(&h, "model.layers.0.mlp.down_proj.scales", "F16", "[1, 64]");
    hdr_add(&h, "model.layers.0.mlp.down_proj.g_idx", "I32", "[32]");
    unsigned char *b = hdr_bytes(&h, &size, 0);
    llmmem_checkpoint *ck = from_bytes(b, size);
    expect_tensor(ck, "model.layers.0.self_attn.q_proj.qweight", LLMMEM_TENSOR_PARAMETER, LLMMEM_PARAMS_ATTENTION);
    expect_tensor(ck, "model.layers.0.self_attn.q_proj.qzeros", LLMMEM_TENSOR_QUANT_AUX, LLMMEM_PARAMS_ATTENTION);
    expect_tensor(ck, "model.layers.0.self_attn.q_proj.scales", LLMMEM_TENSOR_QUANT_AUX, LLMMEM_PARAMS_ATTENTION);
    expect_tensor(ck, "model.layers.0.self_attn.q_proj.g_idx", LLMMEM_TENSOR_QUANT_AUX, LLMMEM_PARAMS_ATTENTION);
    expect_tensor(ck, "model.layers.0.mlp.down_proj.scales", LLMMEM_TENSOR_QUANT_AUX, LLMMEM_PARAMS_MLP);

    /* the tensor getter gives stored elements; parameters count unpacked */
    uint64_t elements = 0, bytes = 0;
    const char *dtype = NULL;
    ck_assert_ok(llmmem_checkpoint_tensor(NULL, &dtype, &elements, &bytes, NULL, NULL, ck, 0));
    ck_assert_str_eq(dtype, "I32");
    ck_assert_uint_eq(elements, 256);
    ck_assert_uint_eq(bytes, 1024);

    ck_assert_uint_eq(llmmem_checkpoint_group_parameters(ck, LLMMEM_PARAMS_ATTENTION), 2048 + 32);
    ck_assert_uint_eq(llmmem_checkpoint_group_parameters(ck, LLMMEM_PARAMS_MLP), 2048);
    /* QUANT_AUX: q_proj 32 + 128 + 256 = 416, down_proj 32 + 128 + 128 = 288 */
    ck_assert_uint_eq(llmmem_checkpoint_role_bytes(ck, LLMMEM_TENSOR_QUANT_AUX), 416 + 288);
    ck_assert_uint_eq(llmmem_checkpoint_role_elements(ck, LLMMEM_TENSOR_QUANT_AUX), (8 + 64 + 64) + (8 + 64 + 32));
    ck_assert_uint_eq(llmmem_checkpoint_role_bytes(ck, LLMMEM_TENSOR_PARAMETER), 1024 + 64 + 1024);
    /* group bytes: parameters and their quantization data */
    ck_assert_uint_eq(llmmem_checkpoint_group_bytes(ck, LLMMEM_PARAMS_ATTENTION), 1024 + 64 + 416);
    ck_assert_uint_eq(llmmem_checkpoint_group_bytes(ck, LLMMEM_PARAMS_MLP), 1024 + 288);
    check_sums(ck);
    llmmem_checkpoint_free(ck);
    free(b);
}
END_TEST

/* bitsandbytes, fp8 and MXFP4 auxiliary tensors. */
START_TEST(other_quantization)
{
    hdr h;
    size_t size;
    hdr_init(&h);
    hdr_add(&h, "model.layers.0.mlp.up_proj.weight", "F8_E4M3", "[256, 128]");           /* 32768 */
    hdr_add(&h, "model.layers.0.mlp.up_proj.weight_scale_inv", "F32", "[2, 1]");          /* aux 8 */
    hdr_add(&h, "model.layers.0.self_attn.o_proj.weight", "U8", "[64, 1]");              /* 64 */
    hdr_add(&h, "model.layers.0.self_attn.o_proj.weight.absmax", "F32", "[2]");          /* aux 8 */
    hdr_add(&h, "model.layers.0.self_attn.o_proj.weight.quant_map", "F32", "[16]");      /* aux 64 */
    hdr_add(&h, "model.layers.0.self_attn.o_proj.weight.quant_state.bitsandbytes__nf4", "U8", "[40]"); /* aux 40 */
    hdr_add(&h, "model.layers.0.mlp.experts.down_proj_blocks", "U8", "[2, 8, 1, 16]");   /* 256 B, 512 params */
    hdr_add(&h, "model.layers.0.mlp.experts.down_proj_scales", "U8", "[2, 8, 1]");       /* aux 16 */
    unsigned char *b = hdr_bytes(&h, &size, 0);
    llmmem_checkpoint *ck = from_bytes(b, size);
    expect_tensor(ck, "model.layers.0.mlp.up_proj.weight_scale_inv", LLMMEM_TENSOR_QUANT_AUX, LLMMEM_PARAMS_MLP);
    expect_tensor(ck, "model.layers.0.self_attn.o_proj.weight.quant_state.bitsandbytes__nf4", LLMMEM_TENSOR_QUANT_AUX,
                  LLMMEM_PARAMS_ATTENTION);
    expect_tensor(ck, "model.layers.0.mlp.experts.down_proj_blocks", LLMMEM_TENSOR_PARAMETER, LLMMEM_PARAMS_EXPERTS);
    ck_assert_uint_eq(llmmem_checkpoint_group_parameters(ck, LLMMEM_PARAMS_MLP), 32768);
    ck_assert_uint_eq(llmmem_checkpoint_group_parameters(ck, LLMMEM_PARAMS_ATTENTION), 64);
    ck_assert_uint_eq(llmmem_checkpoint_group_parameters(ck, LLMMEM_PARAMS_EXPERTS), 512);
    ck_assert_uint_eq(llmmem_checkpoint_role_bytes(ck, LLMMEM_TENSOR_QUANT_AUX), 8 + 8 + 64 + 40 + 16);
    check_sums(ck);
    llmmem_checkpoint_free(ck);
    free(b);
}
END_TEST

/* ---- dtypes -------------------------------------------------------------- */

START_TEST(dtype_sums)
{
    hdr h;
    size_t size;
    hdr_init(&h);
    hdr_add(&h, "a", "BF16", "[3, 5]");     /* 15 elements, 30 bytes */
    hdr_add(&h, "b", "F32", "[7]");         /* 7, 28 */
    hdr_add(&h, "c", "BF16", "[2, 2, 2]");  /* 8, 16 */
    hdr_add(&h, "d", "F4", "[4, 2]");       /* 8 elements of 4 bits: 4 bytes */
    hdr_add(&h, "e", "F6_E2M3", "[4]");     /* 24 bits: 3 bytes */
    hdr_add(&h, "f", "C64", "[3]");         /* 24 bytes */
    hdr_add(&h, "g", "BOOL", "[]");         /* a scalar: 1 element, 1 byte */
    hdr_add(&h, "h", "F32", "[0, 9]");      /* empty: 0 elements, 0 bytes */
    hdr_add(&h, "i", "F8_E4M3", "[5]");     /* 5, 5 */
    unsigned char *b = hdr_bytes(&h, &size, 0);
    llmmem_checkpoint *ck = from_bytes(b, size);
    static const struct {
        const char *dtype;
        uint64_t elements, bytes;
    } expected[] = {{"BF16", 23, 46}, {"F32", 7, 28}, {"F4", 8, 4}, {"F6_E2M3", 4, 3},
                    {"C64", 3, 24},   {"BOOL", 1, 1}, {"F8_E4M3", 5, 5}};
    ck_assert_uint_eq(llmmem_checkpoint_dtype_count(ck), 7);
    for (size_t i = 0; i < 7; i++) {
        const char *name = NULL;
        uint64_t e = 0, by = 0;
        ck_assert_ok(llmmem_checkpoint_dtype(&name, &e, &by, ck, i));
        ck_assert_str_eq(name, expected[i].dtype);
        ck_assert_uint_eq(e, expected[i].elements);
        ck_assert_uint_eq(by, expected[i].bytes);
    }
    ck_assert_status(llmmem_checkpoint_dtype(NULL, NULL, NULL, ck, 7), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_status(llmmem_checkpoint_tensor(NULL, NULL, NULL, NULL, NULL, NULL, ck, 9), LLMMEM_ERR_OUT_OF_RANGE);
    /* single-letter names are unknown: parameters of the group "other", still counted */
    ck_assert_uint_eq(llmmem_checkpoint_total_bytes(ck), 46 + 28 + 4 + 3 + 24 + 1 + 5);
    ck_assert_uint_eq(llmmem_checkpoint_group_parameters(ck, LLMMEM_PARAMS_OTHER), 23 + 7 + 8 + 4 + 3 + 1 + 5);
    check_sums(ck);
    llmmem_checkpoint_free(ck);
    free(b);

    /* an empty header is a checkpoint without tensors; __metadata__ is skipped */
    unsigned char *e = raw_bytes("{\"__metadata__\": {\"format\": \"pt\"}}  ", &size);
    ck = from_bytes(e, size);
    ck_assert_uint_eq(llmmem_checkpoint_tensor_count(ck), 0);
    ck_assert_uint_eq(llmmem_checkpoint_dtype_count(ck), 0);
    llmmem_checkpoint_free(ck);
    free(e);

    /* NULL handles read as empty */
    ck_assert_uint_eq(llmmem_checkpoint_tensor_count(NULL), 0);
    ck_assert_uint_eq(llmmem_checkpoint_total_bytes(NULL), 0);
    ck_assert_uint_eq(llmmem_checkpoint_role_bytes(NULL, LLMMEM_TENSOR_PARAMETER), 0);
    ck_assert_uint_eq(llmmem_checkpoint_group_parameters(NULL, LLMMEM_PARAMS_MLP), 0);
    ck_assert_status(llmmem_checkpoint_tensor(NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0),
                     LLMMEM_ERR_INVALID_ARGUMENT);
    llmmem_checkpoint_free(NULL);
}
END_TEST

/* ---- classification ------------------------------------------------------ */

START_TEST(classification)
{
    enum { P = LLMMEM__ROLE_PARAMETER, B = LLMMEM__ROLE_BUFFER, Q = LLMMEM__ROLE_QUANT_AUX };
    static const struct {
        const char *name;
        int role;
        llmmem_param_group group;
    } cases[] = {
        /* Hugging Face: Llama, Qwen, Mixtral, DeepSeek */
        {"model.embed_tokens.weight", P, LLMMEM_PARAMS_EMBEDDING},
        {"model.layers.0.self_attn.q_proj.weight", P, LLMMEM_PARAMS_ATTENTION},
        {"model.layers.0.self_attn.k_proj.bias", P, LLMMEM_PARAMS_ATTENTION},
        {"model.layers.0.self_attn.qkv_proj.weight", P, LLMMEM_PARAMS_ATTENTION},
        {"model.layers.0.self_attn.kv_a_proj_with_mqa.weight", P, LLMMEM_PARAMS_ATTENTION},
        {"model.layers.0.self_attn.kv_a_layernorm.weight", P, LLMMEM_PARAMS_NORMS},
        {"model.layers.0.self_attn.q_norm.weight", P, LLMMEM_PARAMS_NORMS},
        {"model.layers.0.self_attn.rotary_emb.inv_freq", B, LLMMEM_PARAMS_OTHER},
        {"model.rotary_emb.inv_freq", B, LLMMEM_PARAMS_OTHER},
        {"model.layers.0.mlp.gate_proj.weight", P, LLMMEM_PARAMS_MLP},
        {"model.layers.0.mlp.gate_up_proj.weight", P, LLMMEM_PARAMS_MLP},
        {"model.layers.0.input_layernorm.weight", P, LLMMEM_PARAMS_NORMS},
        {"model.layers.0.pre_feedforward_layernorm.weight", P, LLMMEM_PARAMS_NORMS},
        {"model.norm.weight", P, LLMMEM_PARAMS_NORMS},
        {"lm_head.weight", P, LLMMEM_PARAMS_LM_HEAD},
        {"model.layers.3.mlp.experts.7.down_proj.weight", P, LLMMEM_PARAMS_EXPERTS},
        {"model.layers.3.block_sparse_moe.experts.7.w1.weight", P, LLMMEM_PARAMS_EXPERTS},
        {"model.layers.3.block_sparse_moe.gate.weight", P, LLMMEM_PARAMS_ROUTER},
        {"model.layers.3.mlp.gate.weight", P, LLMMEM_PARAMS_ROUTER},
        {"model.layers.3.mlp.gate.e_score_correction_bias", P, LLMMEM_PARAMS_ROUTER},
        {"model.layers.3.mlp.shared_expert.up_proj.weight", P, LLMMEM_PARAMS_SHARED_EXPERTS},
        {"model.layers.3.mlp.shared_experts.down_proj.weight", P, LLMMEM_PARAMS_SHARED_EXPERTS},
        {"model.layers.3.mlp.shared_expert_gate.weight", P, LLMMEM_PARAMS_SHARED_EXPERTS},
        {"model.layers.61.enorm.weight", P, LLMMEM_PARAMS_OTHER},
        {"model.layers.61.embed_tokens.weight", P, LLMMEM_PARAMS_OTHER},
        {"model.layers.61.shared_head.head.weight", P, LLMMEM_PARAMS_OTHER},
        /* gpt-oss */
        {"model.layers.0.mlp.router.weight", P, LLMMEM_PARAMS_ROUTER},
        {"model.layers.0.mlp.experts.gate_up_proj_blocks", P, LLMMEM_PARAMS_EXPERTS},
        {"model.layers.0.mlp.experts.gate_up_proj_scales", Q, LLMMEM_PARAMS_EXPERTS},
        {"model.layers.0.self_attn.sinks", P, LLMMEM_PARAMS_ATTENTION},
        /* GPT-2, GPT-NeoX, OPT, BLOOM, Falcon */
        {"transformer.wte.weight", P, LLMMEM_PARAMS_EMBEDDING},
        {"transformer.wpe.weight", P, LLMMEM_PARAMS_POSITIONS},
        {"transformer.h.0.ln_1.weight", P, LLMMEM_PARAMS_NORMS},
        {"transformer.h.0.attn.c_attn.weight", P, LLMMEM_PARAMS_ATTENTION},
        {"transformer.h.0.attn.c_proj.bias", P, LLMMEM_PARAMS_ATTENTION},
        {"transformer.h.0.mlp.c_proj.weight", P, LLMMEM_PARAMS_MLP},
        {"transformer.h.0.mlp.c_fc.bias", P, LLMMEM_PARAMS_MLP},
        {"transformer.h.0.attn.bias", B, LLMMEM_PARAMS_OTHER},
        {"transformer.h.0.attn.masked_bias", B, LLMMEM_PARAMS_OTHER},
        {"h.0.attn.bias", B, LLMMEM_PARAMS_OTHER},
        {"transformer.ln_f.bias", P, LLMMEM_PARAMS_NORMS},
        {"gpt_neox.embed_in.weight", P, LLMMEM_PARAMS_EMBEDDING},
        {"gpt_neox.layers.0.attention.query_key_value.weight", P, LLMMEM_PARAMS_ATTENTION},
        {"gpt_neox.layers.0.attention.dense.bias", P, LLMMEM_PARAMS_ATTENTION},
        {"gpt_neox.layers.0.attention.bias", B, LLMMEM_PARAMS_OTHER},
        {"gpt_neox.layers.0.mlp.dense_4h_to_h.weight", P, LLMMEM_PARAMS_MLP},
        {"gpt_neox.final_layer_norm.weight", P, LLMMEM_PARAMS_NORMS},
        {"embed_out.weight", P, LLMMEM_PARAMS_LM_HEAD},
        {"model.decoder.embed_positions.weight", P, LLMMEM_PARAMS_POSITIONS},
        {"model.decoder.layers.0.fc1.weight", P, LLMMEM_PARAMS_MLP},
        {"model.decoder.layers.0.self_attn_layer_norm.bias", P, LLMMEM_PARAMS_NORMS},
        {"transformer.word_embeddings.weight", P, LLMMEM_PARAMS_EMBEDDING},
        {"transformer.word_embeddings_layernorm.weight", P, LLMMEM_PARAMS_NORMS},
        {"transformer.h.0.self_attention.query_key_value.weight", P, LLMMEM_PARAMS_ATTENTION},
        {"transformer.h.0.mlp.dense_h_to_4h.weight", P, LLMMEM_PARAMS_MLP},
        {"transformer.h.0.ln_attn.weight", P, LLMMEM_PARAMS_NORMS},
        /* multimodal */
        {"vision_tower.vision_model.encoder.layers.0.layer_norm1.weight", P, LLMMEM_PARAMS_VISION},
        {"vision_tower.vision_model.encoder.layers.0.self_attn.q_proj.weight", P, LLMMEM_PARAMS_VISION},
        {"multi_modal_projector.linear_1.weight", P, LLMMEM_PARAMS_VISION},
        {"multi_modal_projector.mm_soft_emb_norm.weight", P, LLMMEM_PARAMS_VISION},
        {"vision_model.embeddings.position_ids", B, LLMMEM_PARAMS_OTHER},
        {"language_model.model.layers.0.self_attn.o_proj.weight", P, LLMMEM_PARAMS_ATTENTION},
        /* quantization data */
        {"model.layers.0.self_attn.q_proj.qweight", P, LLMMEM_PARAMS_ATTENTION},
        {"model.layers.0.self_attn.q_proj.qzeros", Q, LLMMEM_PARAMS_ATTENTION},
        {"model.layers.0.mlp.down_proj.weight_scale", Q, LLMMEM_PARAMS_MLP},
        {"model.layers.0.mlp.down_proj.input_scale", Q, LLMMEM_PARAMS_MLP},
        {"model.layers.0.mlp.down_proj.weight.nested_absmax", Q, LLMMEM_PARAMS_MLP},
        {"model.layers.0.mlp.down_proj.weight.nested_quant_map", Q, LLMMEM_PARAMS_MLP},
        {"model.layers.0.mlp.down_proj.SCB", Q, LLMMEM_PARAMS_MLP},
        {"model.layers.0.mlp.experts.3.up_proj.weight_scale_inv", Q, LLMMEM_PARAMS_EXPERTS},
        /* GGUF */
        {"token_embd.weight", P, LLMMEM_PARAMS_EMBEDDING},
        {"token_embd_norm.weight", P, LLMMEM_PARAMS_NORMS},
        {"position_embd.weight", P, LLMMEM_PARAMS_POSITIONS},
        {"blk.0.attn_q.weight", P, LLMMEM_PARAMS_ATTENTION},
        {"blk.0.attn_qkv.bias", P, LLMMEM_PARAMS_ATTENTION},
        {"blk.0.attn_output.weight", P, LLMMEM_PARAMS_ATTENTION},
        {"blk.0.attn_kv_b.weight", P, LLMMEM_PARAMS_ATTENTION},
        {"blk.0.attn_norm.weight", P, LLMMEM_PARAMS_NORMS},
        {"blk.0.attn_q_norm.weight", P, LLMMEM_PARAMS_NORMS},
        {"blk.0.ffn_norm.weight", P, LLMMEM_PARAMS_NORMS},
        {"blk.0.ffn_gate.weight", P, LLMMEM_PARAMS_MLP},
        {"blk.0.ffn_down.weight", P, LLMMEM_PARAMS_MLP},
        {"blk.0.ffn_down_exps.weight", P, LLMMEM_PARAMS_EXPERTS},
        {"blk.0.ffn_gate_up_exps.weight", P, LLMMEM_PARAMS_EXPERTS},
        {"blk.0.ffn_up_shexp.weight", P, LLMMEM_PARAMS_SHARED_EXPERTS},
        {"blk.0.ffn_gate_inp_shexp.weight", P, LLMMEM_PARAMS_SHARED_EXPERTS},
        {"blk.0.ffn_gate_inp.weight", P, LLMMEM_PARAMS_ROUTER},
        {"blk.0.exp_probs_b.bias", P, LLMMEM_PARAMS_ROUTER},
        {"output_norm.weight", P, LLMMEM_PARAMS_NORMS},
        {"output.weight", P, LLMMEM_PARAMS_LM_HEAD},
        {"rope_freqs.weight", B, LLMMEM_PARAMS_OTHER},
        {"v.blk.0.attn_q.weight", P, LLMMEM_PARAMS_VISION},
        {"mm.0.weight", P, LLMMEM_PARAMS_VISION},
        /* unknown, odd and empty names */
        {"some.unknown.tensor", P, LLMMEM_PARAMS_OTHER},
        {"", P, LLMMEM_PARAMS_OTHER},
        {"...", P, LLMMEM_PARAMS_OTHER},
        {".weight", P, LLMMEM_PARAMS_OTHER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t role = 99, group = 99;
        llmmem__ck_classify(cases[i].name, strlen(cases[i].name), &role, &group);
        ck_assert_msg(role == cases[i].role, "%s: role %d, expected %d", cases[i].name, role, cases[i].role);
        ck_assert_msg(group == cases[i].group, "%s: group %s, expected %s", cases[i].name,
                      llmmem_param_group_name((llmmem_param_group)group), llmmem_param_group_name(cases[i].group));
    }
}
END_TEST

/* ---- malformed input ----------------------------------------------------- */

/* Fails with `status`, no checkpoint, a message naming <memory> and containing `needle`. */
static void expect_bad(const void *data, size_t size, llmmem_status status, const char *needle)
{
    llmmem_checkpoint *ck = (llmmem_checkpoint *)(uintptr_t)1;
    llmmem_status st = llmmem_checkpoint_from_safetensors_bytes(&ck, data, size);
    ck_assert_msg(st == status, "expected %s for \"%s\", got %s: %s", llmmem_status_str(status), needle,
                  llmmem_status_str(st), llmmem_last_message());
    ck_assert_ptr_null(ck);
    ck_assert_int_eq(llmmem_last_status(), status);
    ck_assert_message_has("<memory>");
    ck_assert_message_has(needle);
}

static void expect_bad_json(const char *json, llmmem_status status, const char *needle)
{
    size_t size;
    unsigned char *b = raw_bytes(json, &size);
    expect_bad(b, size, status, needle);
    free(b);
}

START_TEST(truncated_headers)
{
    static const unsigned char short_input[5] = {2, 0, 0, 0, 0};
    expect_bad(short_input, sizeof short_input, LLMMEM_ERR_PARSE, "too short for the 8-byte header length");
    expect_bad(short_input, 0, LLMMEM_ERR_PARSE, "truncated");
    /* length 100, 20 bytes follow */
    unsigned char b[28] = {100, 0, 0, 0, 0, 0, 0, 0, '{', '"', 'a', '"', ':'};
    expect_bad(b, sizeof b, LLMMEM_ERR_PARSE, "runs past the end");
    /* length 1 and 0 */
    unsigned char one[9] = {1, 0, 0, 0, 0, 0, 0, 0, '{'};
    expect_bad(one, sizeof one, LLMMEM_ERR_PARSE, "too small");
    one[0] = 0;
    expect_bad(one, 8, LLMMEM_ERR_PARSE, "too small");
    /* above the 100,000,000-byte limit, even with few bytes present; and 2^64 - 1 */
    unsigned char big[16] = {0x01, 0xe1, 0xf5, 0x05, 0, 0, 0, 0, '{', '}'}; /* 100,000,001 */
    expect_bad(big, sizeof big, LLMMEM_ERR_PARSE, "exceeds the safetensors limit of 100000000 bytes");
    memset(big, 0xff, 8);
    expect_bad(big, sizeof big, LLMMEM_ERR_PARSE, "exceeds the safetensors limit");
    /* a text file read as safetensors: its first 8 bytes are a length past the limit, and the message
     * quotes none of them (it printed them as the number 2609312867587944306) */
    static const char shadow[] = "root:$6$hunter2$abcdef:19000:0:99999:7:::\n";
    expect_bad(shadow, sizeof shadow - 1, LLMMEM_ERR_PARSE, "<memory>: the header length (the first 8 bytes) exceeds "
               "the safetensors limit of 100000000 bytes (100 MB): not a safetensors file, or a damaged one");
    ck_assert_ptr_null(strstr(llmmem_last_message(), "2609312867587944306"));
    /* exactly the JSON, cut short inside */
    expect_bad_json("{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]", LLMMEM_ERR_PARSE,
                    "not valid JSON");
    ck_assert_status(llmmem_checkpoint_from_safetensors_bytes(NULL, b, sizeof b), LLMMEM_ERR_INVALID_ARGUMENT);
    llmmem_checkpoint *ck = NULL;
    ck_assert_status(llmmem_checkpoint_from_safetensors_bytes(&ck, NULL, 8), LLMMEM_ERR_INVALID_ARGUMENT);
}
END_TEST

START_TEST(malformed_json)
{
    expect_bad_json("{not json}", LLMMEM_ERR_PARSE, "not valid JSON");
    expect_bad_json("[1, 2]", LLMMEM_ERR_PARSE, "header is a JSON array, not an object");
    expect_bad_json("{}x", LLMMEM_ERR_PARSE, "not valid JSON");
    expect_bad_json("{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]},"
                    " \"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [4, 8]}}",
                    LLMMEM_ERR_PARSE, "duplicate");
    /* an embedded NUL and invalid UTF-8 */
    unsigned char nul[18] = {10, 0, 0, 0, 0, 0, 0, 0, '{', '"', 'a', 0, '"', ':', '1', '}', ' ', ' '};
    expect_bad(nul, sizeof nul, LLMMEM_ERR_PARSE, "not valid JSON");
    expect_bad_json("{\"\xff\": 1}", LLMMEM_ERR_PARSE, "not valid JSON");
}
END_TEST

START_TEST(wrong_types)
{
    expect_bad_json("{\"w\": {\"dtype\": \"F32\", \"shape\": \"[2, 2]\", \"data_offsets\": [0, 16]}}", LLMMEM_ERR_PARSE,
                    "tensor 'w': \"shape\" is a JSON string, not an array");
    expect_bad_json("{\"w\": {\"dtype\": 32, \"shape\": [2, 2], \"data_offsets\": [0, 16]}}", LLMMEM_ERR_PARSE,
                    "tensor 'w': \"dtype\" is a JSON integer, not a string");
    expect_bad_json("{\"w\": {\"dtype\": \"F32\", \"shape\": [2, 2.0], \"data_offsets\": [0, 16]}}", LLMMEM_ERR_PARSE,
                    "shape[1] is a JSON real number, not an integer");
    expect_bad_json("{\"w\": {\"dtype\": \"F32\", \"shape\": [2, 2], \"data_offsets\": \"0-16\"}}", LLMMEM_ERR_PARSE,
                    "tensor 'w': \"data_offsets\" is not [begin, end]");
    expect_bad_json("{\"w\": {\"dtype\": \"F32\", \"shape\": [2, 2], \"data_offsets\": [0, 8, 16]}}", LLMMEM_ERR_PARSE,
                    "\"data_offsets\" is not [begin, end]");
    expect_bad_json("{\"w\": {\"dtype\": \"F32\", \"shape\": [2, 2], \"data_offsets\": [0, null]}}", LLMMEM_ERR_PARSE,
                    "not two non-negative integers");
    expect_bad_json("{\"w\": [\"F32\", [2, 2], [0, 16]]}", LLMMEM_ERR_PARSE, "tensor 'w' is a JSON array, not an object");
    expect_bad_json("{\"w\": {\"shape\": [2, 2], \"data_offsets\": [0, 16]}}", LLMMEM_ERR_PARSE,
                    "tensor 'w' has no \"dtype\"");
    expect_bad_json("{\"w\": {\"dtype\": \"F32\", \"data_offsets\": [0, 16]}}", LLMMEM_ERR_PARSE,
                    "tensor 'w' has no \"shape\"");
    expect_bad_json("{\"w\": {\"dtype\": \"F32\", \"shape\": [2, 2]}}", LLMMEM_ERR_PARSE,
                    "tensor 'w' has no \"data_offsets\"");
    expect_bad_json("{\"w\": {\"dtype\": \"F12\", \"shape\": [2, 2], \"data_offsets\": [0, 16]}}", LLMMEM_ERR_PARSE,
                    "tensor 'w': unknown dtype \"F12\"");
    expect_bad_json("{\"w\": {\"dtype\": \"f32\", \"shape\": [2, 2], \"data_offsets\": [0, 16]}}", LLMMEM_ERR_PARSE,
                    "unknown dtype \"f32\"");
    expect_bad_json("{\"__metadata__\": {\"format\": 1}}", LLMMEM_ERR_PARSE,
                    "\"__metadata__\" field 'format' is a JSON integer, not a string");
    expect_bad_json("{\"__metadata__\": [\"pt\"]}", LLMMEM_ERR_PARSE, "\"__metadata__\" is a JSON array");
}
END_TEST

START_TEST(bad_shapes_and_offsets)
{
    expect_bad_json("{\"w\": {\"dtype\": \"F32\", \"shape\": [2, -3], \"data_offsets\": [0, 16]}}", LLMMEM_ERR_PARSE,
                    "tensor 'w': shape[1] is negative (-3)");
    /* 2^32 * 2^32 = 2^64 elements */
    expect_bad_json("{\"w\": {\"dtype\": \"U8\", \"shape\": [4294967296, 4294967296], \"data_offsets\": [0, 0]}}",
                    LLMMEM_ERR_OVERFLOW, "tensor 'w': the element count overflows 64 bits at shape[1]");
    /* 2^62 elements fit, their 2^67 bits do not */
    expect_bad_json("{\"w\": {\"dtype\": \"F32\", \"shape\": [4611686018427387904], \"data_offsets\": [0, 0]}}",
                    LLMMEM_ERR_OVERFLOW, "tensor 'w'");
    /* beyond a signed 64-bit integer: jansson's "too big integer" */
    expect_bad_json("{\"w\": {\"dtype\": \"F32\", \"shape\": [18446744073709551616], \"data_offsets\": [0, 0]}}",
                    LLMMEM_ERR_PARSE, "not valid JSON");
    expect_bad_json("{\"w\": {\"dtype\": \"F32\", \"shape\": [2, 2], \"data_offsets\": [0, 15]}}", LLMMEM_ERR_PARSE,
                    "tensor 'w': data_offsets [0, 15] hold 15 bytes, but 4 elements of F32 take 16");
    expect_bad_json("{\"w\": {\"dtype\": \"F32\", \"shape\": [2, 2], \"data_offsets\": [16, 0]}}", LLMMEM_ERR_PARSE,
                    "tensor 'w': data_offsets [16, 0] end before they begin");
    expect_bad_json("{\"w\": {\"dtype\": \"F32\", \"shape\": [2, 2], \"data_offsets\": [-16, 0]}}", LLMMEM_ERR_PARSE,
                    "not two non-negative integers");
    expect_bad_json("{\"w\": {\"dtype\": \"F4\", \"shape\": [3], \"data_offsets\": [0, 2]}}", LLMMEM_ERR_PARSE,
                    "tensor 'w': 3 elements of F4 are not a whole number of bytes");
    /* the data must be tiled from 0 without holes or overlaps */
    expect_bad_json("{\"w\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [4, 8]}}", LLMMEM_ERR_PARSE,
                    "no tensor holds data bytes [0, 4) before tensor 'w'");
    expect_bad_json("{\"v\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]},"
                    " \"w\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [4, 8]}}",
                    LLMMEM_ERR_PARSE, "tensor 'w' at data_offsets [4, 8] overlaps");
}
END_TEST

START_TEST(deep_nesting)
{
    /* 100 levels: valid JSON, but a tensor that is not an object, and metadata that is not a string */
    char json[512];
    size_t n = 0;
    n += (size_t)snprintf(json, sizeof json, "{\"t\": ");
    for (int i = 0; i < 100; i++)
        json[n++] = '[';
    for (int i = 0; i < 100; i++)
        json[n++] = ']';
    json[n++] = '}';
    json[n] = '\0';
    expect_bad_json(json, LLMMEM_ERR_PARSE, "tensor 't' is a JSON array, not an object");
    n = (size_t)snprintf(json, sizeof json, "{\"__metadata__\": {\"m\": ");
    for (int i = 0; i < 100; i++)
        json[n++] = '[';
    for (int i = 0; i < 100; i++)
        json[n++] = ']';
    json[n++] = '}';
    json[n++] = '}';
    json[n] = '\0';
    expect_bad_json(json, LLMMEM_ERR_PARSE, "\"__metadata__\" field 'm' is a JSON array");

    /* 100,000 levels: beyond jansson's depth limit, refused by the parser */
    size_t deep = 100000;
    char *big = malloc(2 * deep + 16);
    ck_assert_ptr_nonnull(big);
    n = (size_t)sprintf(big, "{\"t\": ");
    memset(big + n, '[', deep);
    n += deep;
    memset(big + n, ']', deep);
    n += deep;
    big[n++] = '}';
    big[n] = '\0';
    expect_bad_json(big, LLMMEM_ERR_PARSE, "maximum parsing depth");
    free(big);
}
END_TEST

/* ---- files and folders --------------------------------------------------- */

START_TEST(files_and_folders)
{
    hdr h;
    size_t size;
    tiny_llama(&h);
    unsigned char *b = hdr_bytes(&h, &size, 1);
    llmmem_checkpoint *ck = NULL;
    tmp t;

    /* the data section shorter and longer than the header says */
    tmp_init(&t);
    const char *cut = tmp_write(&t, "cut.safetensors", b, size - 1);
    ck_assert_status(llmmem_checkpoint_from_safetensors(&ck, cut), LLMMEM_ERR_PARSE);
    ck_assert_message_has("cut.safetensors");
    ck_assert_message_has("truncated");
    tmp_done(&t);

    unsigned char *longer = calloc(1, size + 3);
    ck_assert_ptr_nonnull(longer);
    memcpy(longer, b, size);
    tmp_init(&t);
    const char *extra = tmp_write(&t, "extra.safetensors", longer, size + 3);
    ck_assert_status(llmmem_checkpoint_from_safetensors(&ck, extra), LLMMEM_ERR_PARSE);
    ck_assert_message_has("extra.safetensors");
    ck_assert_message_has("unexpected bytes at the end");
    tmp_done(&t);
    free(longer);

    /* a file of 5 bytes, a header length past the file's end */
    tmp_init(&t);
    const char *tiny = tmp_write(&t, "tiny.safetensors", b, 5);
    ck_assert_status(llmmem_checkpoint_from_safetensors(&ck, tiny), LLMMEM_ERR_PARSE);
    ck_assert_message_has("tiny.safetensors");
    ck_assert_message_has("the file is 5 bytes");
    const char *head = tmp_write(&t, "head.safetensors", b, 40);
    ck_assert_status(llmmem_checkpoint_from_safetensors(&ck, head), LLMMEM_ERR_PARSE);
    ck_assert_message_has("head.safetensors");
    ck_assert_message_has("runs past the end");
    tmp_done(&t);

    /* no such path; an empty folder; a folder of two unindexed shards; a folder whose only file is
     * found by its extension */
    tmp_init(&t);
    char missing[400];
    snprintf(missing, sizeof missing, "%s/none.safetensors", t.dir);
    ck_assert_status(llmmem_checkpoint_from_safetensors(&ck, missing), LLMMEM_ERR_IO);
    ck_assert_message_has("none.safetensors");
    ck_assert_status(llmmem_checkpoint_from_safetensors(&ck, t.dir), LLMMEM_ERR_NOT_FOUND);
    ck_assert_message_has("no model.safetensors.index.json");
    tmp_write(&t, "x-1.safetensors", b, size);
    ck_assert_ok(llmmem_checkpoint_from_safetensors(&ck, t.dir));
    ck_assert_uint_eq(llmmem_checkpoint_tensor_count(ck), 13);
    llmmem_checkpoint_free(ck);
    tmp_write(&t, "x-2.safetensors", b, size);
    ck_assert_status(llmmem_checkpoint_from_safetensors(&ck, t.dir), LLMMEM_ERR_NOT_FOUND);
    ck_assert_message_has("2 .safetensors files");
    tmp_done(&t);

    ck_assert_status(llmmem_checkpoint_from_safetensors(&ck, NULL), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_checkpoint_from_safetensors(NULL, "x"), LLMMEM_ERR_INVALID_ARGUMENT);
    free(b);
}
END_TEST

/* ---- issue 14: hostile inputs -------------------------------------------- */

/* A named pipe where a file is read, no writer at its other end: refused at once. open(2)
 * without O_NONBLOCK waited for a writer forever on a shard an index names and on a folder's
 * config.json; the alarm ends the test process should it block again. */
START_TEST(fifo_is_refused)
{
    hdr h;
    size_t size;
    hdr_init(&h);
    hdr_add(&h, "model.embed_tokens.weight", "F16", "[16, 8]");
    unsigned char *b = hdr_bytes(&h, &size, 1);
    llmmem_checkpoint *ck = (llmmem_checkpoint *)&ck;
    char want[512];
    tmp t;
    alarm(120); /* a hang guard: the calls take milliseconds */

    tmp_init(&t);
    tmp_write(&t, "a.safetensors", b, size);
    const char *shard = tmp_fifo(&t, "b.safetensors");
    tmp_write_text(&t, "model.safetensors.index.json",
                   "{\"weight_map\": {\"model.embed_tokens.weight\": \"a.safetensors\", "
                   "\"lm_head.weight\": \"b.safetensors\"}}");
    ck_assert_status(llmmem_checkpoint_from_safetensors(&ck, t.dir), LLMMEM_ERR_IO);
    ck_assert_ptr_null(ck);
    snprintf(want, sizeof want, "%s: is not a regular file (a named pipe)", shard);
    ck_assert_str_eq(llmmem_last_message(), want);
    tmp_done(&t);

    tmp_init(&t);
    const char *file = tmp_write(&t, "model.safetensors", b, size);
    const char *config = tmp_fifo(&t, "config.json");
    snprintf(want, sizeof want, "%s: is not a regular file (a named pipe)", config);
    ck_assert_status(llmmem_checkpoint_from_safetensors(&ck, t.dir), LLMMEM_ERR_IO);
    ck_assert_str_eq(llmmem_last_message(), want);
    ck_assert_status(llmmem_checkpoint_from_safetensors(&ck, file), LLMMEM_ERR_IO); /* the file's folder's */
    ck_assert_str_eq(llmmem_last_message(), want);
    tmp_done(&t);

    /* the path itself, and a folder whose only checkpoint is a pipe */
    tmp_init(&t);
    const char *pipe_path = tmp_fifo(&t, "model.safetensors");
    ck_assert_status(llmmem_checkpoint_from_safetensors(&ck, pipe_path), LLMMEM_ERR_IO);
    ck_assert_message_has("not a regular file");
    ck_assert_status(llmmem_checkpoint_from_safetensors(&ck, t.dir), LLMMEM_ERR_NOT_FOUND);
    tmp_done(&t);
    alarm(0);
    free(b);
}
END_TEST

/* Messages never quote the header: jansson's " near '<token>'" is cut; the scanner's own failures
 * name what was expected, line and column (the column of the byte at fault, counted by hand). */
START_TEST(messages_do_not_quote_the_input)
{
    static const struct {
        const char *json, *message;
    } cases[] = {
        {"{hunter2}", "<memory>: header is not valid JSON: string or '}' expected (line 1, column 2)"},
        {"{\"a\" hunter2}", "<memory>: header is not valid JSON: ':' expected (line 1, column 6)"},
        {"{\"a\": {\"dtype\": hunter2}}", "<memory>: header is not valid JSON: invalid token (line 1, column 22)"},
        {"{\"__metadata__\": {} hunter2}", "<memory>: header is not valid JSON: '}' expected (line 1, column 21)"},
        {"{\"hunter2\\q\": 1}", "<memory>: header is not valid JSON: invalid escape (line 1, column 11)"},
        {"{\"a\": [1, 2}", "<memory>: header is not valid JSON: ']' expected (line 1, column 12)"},
        {"{\"a\": [1, 2", "<memory>: header is not valid JSON: ']' expected near end of file (line 1, column 11)"},
        {"{} hunter2", "<memory>: header is not valid JSON: end of file expected (line 1, column 4)"},
        {"hunter2", "<memory>: header is not valid JSON: '[' or '{' expected (line 1, column 1)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t size;
        unsigned char *b = raw_bytes(cases[i].json, &size);
        llmmem_checkpoint *ck = (llmmem_checkpoint *)&ck;
        ck_assert_status(llmmem_checkpoint_from_safetensors_bytes(&ck, b, size), LLMMEM_ERR_PARSE);
        ck_assert_msg(strcmp(llmmem_last_message(), cases[i].message) == 0, "%s: '%s', expected '%s'", cases[i].json,
                      llmmem_last_message(), cases[i].message);
        free(b);
    }
    /* a duplicate tensor names itself, where it is */
    expect_bad_json("{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]},\n"
                    " \"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [4, 8]}}",
                    LLMMEM_ERR_PARSE, "<memory>: duplicate tensor name 'a' (line 2, column 4)");
}
END_TEST

/* A tensor entry holds at most 1024 JSON values (dtype, shape, data_offsets and the entry's own
 * structure take about 10 + dims); the scanner counts them before jansson builds the entry. */
START_TEST(entry_values_are_bounded)
{
    /* counted: 1, '{', 3 ':', 2 ',' between the members, '[' and ',' of the offsets, '[' of the
     * shape and its d - 1 commas: 9 + d. d = 1015 is 1024: read; 1016: refused */
    for (int d = 1015; d <= 1016; d++) {
        char json[4096];
        int n = snprintf(json, sizeof json, "{\"w\": {\"dtype\": \"U8\", \"data_offsets\": [0, 1], \"shape\": [1");
        for (int i = 1; i < d; i++)
            n += snprintf(json + n, sizeof json - (size_t)n, ",1");
        snprintf(json + n, sizeof json - (size_t)n, "]}}");
        size_t size;
        unsigned char *b = raw_bytes(json, &size);
        llmmem_checkpoint *ck = NULL;
        llmmem_status st = llmmem_checkpoint_from_safetensors_bytes(&ck, b, size);
        if (d == 1015) {
            ck_assert_msg(st == LLMMEM_OK, "%s", llmmem_last_message());
            ck_assert_uint_eq(llmmem_checkpoint_total_bytes(ck), 1);
            llmmem_checkpoint_free(ck);
        } else {
            ck_assert_int_eq(st, LLMMEM_ERR_PARSE);
            ck_assert_message_has("<memory>: tensor 'w': its entry holds more than 1024 JSON values (line 1, column 4)");
        }
        free(b);
    }
}
END_TEST

/* Entries in their plain form are read without jansson; any other form (escapes, unknown keys,
 * non-canonical numbers, a repeated key) goes to jansson, and both give the same tensors. */
START_TEST(plain_and_general_entries_agree)
{
    static const char *const same[] = {
        "{\"ab\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]}}",
        "{ \"a\\u0062\" : { \"shape\" : [ 2 , 3 ] ,\n\t\"data_offsets\" : [ 0 , 24 ] , \"dtype\" : \"F32\" } }",
        "{\"ab\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24],\"extra\":[1]}}",
        "{\"ab\":{\"dtype\":\"F\\u0033\\u0032\",\"shape\":[2,3],\"data_offsets\":[-0,24]}}",
        "{\"ab\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]},\"__metadata__\":{\"k\":\"v\"}}",
    };
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        size_t size;
        unsigned char *b = raw_bytes(same[i], &size);
        llmmem_checkpoint *ck = from_bytes(b, size);
        const char *name, *dtype;
        uint64_t elements, bytes;
        ck_assert_uint_eq(llmmem_checkpoint_tensor_count(ck), 1);
        ck_assert_ok(llmmem_checkpoint_tensor(&name, &dtype, &elements, &bytes, NULL, NULL, ck, 0));
        ck_assert_str_eq(name, "ab");
        ck_assert_str_eq(dtype, "F32");
        ck_assert_uint_eq(elements, 6);
        ck_assert_uint_eq(bytes, 24);
        llmmem_checkpoint_free(ck);
        free(b);
    }
    /* forms jansson refuses: a leading zero, a repeated key */
    expect_bad_json("{\"w\": {\"dtype\": \"F32\", \"shape\": [02], \"data_offsets\": [0, 8]}}", LLMMEM_ERR_PARSE,
                    "not valid JSON: invalid token");
    expect_bad_json("{\"w\": {\"dtype\": \"F32\", \"shape\": [2], \"shape\": [2], \"data_offsets\": [0, 8]}}",
                    LLMMEM_ERR_PARSE, "not valid JSON: duplicate object key");
}
END_TEST

/* ---- verify -------------------------------------------------------------- */

/* Llama-shaped: hidden 8, 2 layers, 2 heads of 4 with 1 KV head, intermediate 12, vocab 16,
 * untied. Per layer: q 8*8 = 64, k 4*8 = 32, v 32, o 8*8 = 64 (attention 192); gate, up, down
 * 3 * 12*8 = 288; two norms of 8. Whole: embedding 128, attention 384, mlp 576, norms 2*2*8 + 8
 * = 40, lm_head 128. */
static void small_llama(hdr *h, int skip_k1)
{
    hdr_init(h);
    hdr_add(h, "model.embed_tokens.weight", "BF16", "[16, 8]");
    for (int l = 0; l < 2; l++) {
        char name[96];
#define LAYER(suffix, shape)                                                                    \
    do {                                                                                        \
        snprintf(name, sizeof name, "model.layers.%d.%s", l, suffix);                            \
        hdr_add(h, name, "BF16", shape);                                                        \
    } while (0)
        LAYER("self_attn.q_proj.weight", "[8, 8]");
        if (!(skip_k1 && l == 1))
            LAYER("self_attn.k_proj.weight", "[4, 8]");
        LAYER("self_attn.v_proj.weight", "[4, 8]");
        LAYER("self_attn.o_proj.weight", "[8, 8]");
        LAYER("mlp.gate_proj.weight", "[12, 8]");
        LAYER("mlp.up_proj.weight", "[12, 8]");
        LAYER("mlp.down_proj.weight", "[8, 12]");
        LAYER("input_layernorm.weight", "[8]");
        LAYER("post_attention_layernorm.weight", "[8]");
#undef LAYER
    }
    hdr_add(h, "model.norm.weight", "BF16", "[8]");
    hdr_add(h, "lm_head.weight", "BF16", "[16, 8]");
}

static llmmem_model *small_llama_model(void)
{
    llmmem_model *m = NULL;
    ck_assert_ok(llmmem_model_new(&m));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_MODEL_TYPE, LLMMEM_MODEL_LLAMA));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_HIDDEN_SIZE, 8));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_HIDDEN_LAYERS, 2));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_ATTENTION_HEADS, 2));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_KEY_VALUE_HEADS, 1));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_INTERMEDIATE_SIZE, 12));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_VOCAB_SIZE, 16));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS, 0));
    return m;
}

START_TEST(verify)
{
    llmmem_model *m = small_llama_model();
    hdr h;
    size_t size;
    small_llama(&h, 0);
    unsigned char *b = hdr_bytes(&h, &size, 0);
    llmmem_checkpoint *ck = from_bytes(b, size);
    ck_assert_uint_eq(llmmem_checkpoint_group_parameters(ck, LLMMEM_PARAMS_ATTENTION), 384);
    ck_assert_uint_eq(llmmem_checkpoint_group_parameters(ck, LLMMEM_PARAMS_MLP), 576);
    ck_assert_uint_eq(llmmem_checkpoint_group_parameters(ck, LLMMEM_PARAMS_NORMS), 40);
    ck_assert_ok(llmmem_checkpoint_verify(ck, m));
    llmmem_checkpoint_free(ck);
    free(b);

    /* layer 1's k_proj (4 * 8 = 32) missing */
    small_llama(&h, 1);
    b = hdr_bytes(&h, &size, 0);
    ck = from_bytes(b, size);
    ck_assert_status(llmmem_checkpoint_verify(ck, m), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_message_has("attention: checkpoint 352, model 384");
    ck_assert_msg(strstr(llmmem_last_message(), "mlp") == NULL, "%s", llmmem_last_message());

    /* a tied model: the stored head is now one mismatch more */
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS, 1));
    ck_assert_status(llmmem_checkpoint_verify(ck, m), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_message_has("attention: checkpoint 352, model 384; lm_head: checkpoint 128, model 0");
    llmmem_checkpoint_free(ck);
    free(b);

    /* a model given by its count alone is compared on the total: 128 + 384 + 576 + 40 + 128 */
    llmmem_model *count = NULL;
    ck_assert_ok(llmmem_model_new(&count));
    ck_assert_ok(llmmem_model_set_int(count, LLMMEM_KEY_NUM_PARAMETERS, 1256));
    small_llama(&h, 0);
    b = hdr_bytes(&h, &size, 0);
    ck = from_bytes(b, size);
    ck_assert_ok(llmmem_checkpoint_verify(ck, count));
    ck_assert_ok(llmmem_model_set_int(count, LLMMEM_KEY_NUM_PARAMETERS, 1000));
    ck_assert_status(llmmem_checkpoint_verify(ck, count), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_message_has("total: checkpoint 1256, model 1000");

    /* an incomplete model fails with its own status */
    llmmem_model *empty = NULL;
    ck_assert_ok(llmmem_model_new(&empty));
    ck_assert_status(llmmem_checkpoint_verify(ck, empty), LLMMEM_ERR_INCOMPLETE);
    ck_assert_status(llmmem_checkpoint_verify(NULL, m), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_checkpoint_verify(ck, NULL), LLMMEM_ERR_INVALID_ARGUMENT);
    llmmem_model_free(empty);
    llmmem_model_free(count);
    llmmem_checkpoint_free(ck);
    free(b);
    llmmem_model_free(m);
}
END_TEST

/* Every mismatch is listed; a message longer than the buffer is cut with "...". */
/* The estimate's weights become the checkpoint's stored bytes while weight_format is auto. */
/* A config.json that names no dtype (torch_dtype_in_config 0): the stored floats' dtype, as
 * transformers' get_state_dict_dtype (the first floating tensor's) and vLLM's _find_dtype (the
 * safetensors files' dtypes) agree on when every float is one dtype; several, or a config that
 * named its dtype, leave torch_dtype as it is. */
START_TEST(checkpoint_dtype_when_the_config_names_none)
{
    hdr h;
    size_t size;
    small_llama(&h, 0); /* every parameter BF16 */
    unsigned char *b = hdr_bytes(&h, &size, 0);
    llmmem_checkpoint *ck = from_bytes(b, size);
    llmmem_model *m = small_llama_model();
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_TORCH_DTYPE, LLMMEM_FORMAT_FP32));
    ck_assert_ok(llmmem_model_use_checkpoint(m, ck)); /* the config named fp32: kept */
    int64_t v = 0;
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_TORCH_DTYPE));
    ck_assert_int_eq(v, LLMMEM_FORMAT_FP32);
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_TORCH_DTYPE_IN_CONFIG, 0));
    ck_assert_ok(llmmem_model_use_checkpoint(m, ck));
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_TORCH_DTYPE));
    ck_assert_int_eq(v, LLMMEM_FORMAT_BF16);
    llmmem_checkpoint_free(ck);
    free(b);
    /* an F32 tensor among the BF16 ones: no one dtype, fp32 stays */
    small_llama(&h, 0);
    hdr_add(&h, "model.layers.0.self_attn.q_proj.bias", "F32", "[8]");
    b = hdr_bytes(&h, &size, 0);
    ck = from_bytes(b, size);
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_TORCH_DTYPE, LLMMEM_FORMAT_FP32));
    ck_assert_ok(llmmem_model_use_checkpoint(m, ck));
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_TORCH_DTYPE));
    ck_assert_int_eq(v, LLMMEM_FORMAT_FP32);
    llmmem_checkpoint_free(ck);
    free(b);
    llmmem_model_free(m);
}
END_TEST

START_TEST(use_checkpoint)
{
    llmmem_model *m = small_llama_model();
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_TORCH_DTYPE, LLMMEM_FORMAT_FP32));
    hdr h;
    size_t size;
    small_llama(&h, 0);
    unsigned char *b = hdr_bytes(&h, &size, 0);
    llmmem_checkpoint *ck = from_bytes(b, size);
    llmmem_hardware *hw;
    llmmem_strategy *s;
    llmmem_report *r;
    ck_assert_ok(llmmem_hardware_new(&hw));
    ck_assert_ok(llmmem_hardware_set_int(hw, LLMMEM_KEY_MEMORY_BYTES, 1 << 20));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_report_new(&r));
    /* The inventory in fp32: 1256 parameters x 4 bytes. */
    ck_assert_ok(llmmem_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_report_bytes(r, LLMMEM_COMPONENT_WEIGHTS), 1256 * 4);
    /* The checkpoint stores them in BF16: 1256 x 2 bytes. */
    ck_assert_ok(llmmem_model_use_checkpoint(m, ck));
    ck_assert_ok(llmmem_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_report_bytes(r, LLMMEM_COMPONENT_WEIGHTS), 1256 * 2);
    char *json;
    ck_assert_ok(llmmem_report_to_json(&json, r));
    ck_assert_ptr_nonnull(strstr(json, "\"weights_source\": \"checkpoint\""));
    llmmem_string_free(json);
    /* An explicit weight_format re-quantizes from the inventory: int8 for the layers' matrices
     * (1256 - 40 norm weights - 2 x 128 for the embedding and LM head), which stay in fp32. */
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_WEIGHT_FORMAT, LLMMEM_FORMAT_INT8));
    ck_assert_ok(llmmem_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_report_bytes(r, LLMMEM_COMPONENT_WEIGHTS), (1256 - 40 - 256) * 1 + (40 + 256) * 4);
    /* Under LoRA the base is held as stored too; fp32, the model's own format, prices the same
     * tensors as auto but takes the inventory's bytes: a reused report (its cache) follows both. */
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MODE, LLMMEM_MODE_LORA));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_LORA_RANK, 2));
    const int64_t formats[] = {LLMMEM_FORMAT_FP32, LLMMEM_FORMAT_AUTO, LLMMEM_FORMAT_FP32, LLMMEM_FORMAT_AUTO};
    uint64_t lora_weights[4];
    for (int i = 0; i < 4; i++) {
        llmmem_report *fresh;
        ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_WEIGHT_FORMAT, formats[i]));
        ck_assert_ok(llmmem_estimate(r, m, hw, s));
        ck_assert_ok(llmmem_report_new(&fresh));
        ck_assert_ok(llmmem_estimate(fresh, m, hw, s));
        lora_weights[i] = llmmem_report_bytes(r, LLMMEM_COMPONENT_WEIGHTS);
        ck_assert_uint_eq(lora_weights[i], llmmem_report_bytes(fresh, LLMMEM_COMPONENT_WEIGHTS));
        llmmem_report_free(fresh);
    }
    /* the adapters (fp32) are the same on both bases: the stored base is 1256 x 2 bytes smaller */
    ck_assert_uint_eq(lora_weights[0] - lora_weights[1], 1256 * 2);
    ck_assert_uint_eq(lora_weights[2], lora_weights[0]);
    ck_assert_uint_eq(lora_weights[3], lora_weights[1]);
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_MODE, LLMMEM_MODE_INFERENCE));
    /* Changing the model detaches the checkpoint. */
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_WEIGHT_FORMAT, LLMMEM_FORMAT_AUTO));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_TORCH_DTYPE, LLMMEM_FORMAT_FP16));
    ck_assert_ok(llmmem_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_report_bytes(r, LLMMEM_COMPONENT_WEIGHTS), 1256 * 2);
    ck_assert_status(llmmem_model_use_checkpoint(m, NULL), LLMMEM_ERR_INVALID_ARGUMENT);
    llmmem_report_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_checkpoint_free(ck);
    free(b);
    llmmem_model_free(m);
}
END_TEST

START_TEST(verify_many_mismatches)
{
    llmmem_model *m = small_llama_model();
    size_t size;
    unsigned char *b = raw_bytes("{}", &size);
    llmmem_checkpoint *ck = from_bytes(b, size);
    ck_assert_status(llmmem_checkpoint_verify(ck, m), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_message_has("embedding: checkpoint 0, model 128; attention: checkpoint 0, model 384; "
                          "mlp: checkpoint 0, model 576; norms: checkpoint 0, model 40; "
                          "lm_head: checkpoint 0, model 128");
    llmmem_checkpoint_free(ck);
    free(b);
    llmmem_model_free(m);
}
END_TEST

/* ---- internal: adding tensors -------------------------------------------- */

START_TEST(ck_add_limits)
{
    struct llmmem_checkpoint *ck = NULL;
    ck_assert_ok(llmmem__ck_new(&ck, 2));
    /* LLMMEM__MAX_DTYPES distinct dtype names fit; one more does not */
    for (int i = 0; i < LLMMEM__MAX_DTYPES; i++) {
        char dtype[8], name[8];
        snprintf(dtype, sizeof dtype, "T%d", i);
        snprintf(name, sizeof name, "x%d", i);
        ck_assert_ok(llmmem__ck_add(ck, name, strlen(name), dtype, 1, 1));
    }
    /* a name already stored, cut at its NUL as stored: refused, nothing changed */
    ck_assert_status(llmmem__ck_add(ck, "x0\0y", 4, "T0", 1, 1), LLMMEM_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "duplicate tensor name 'x0'"));
    ck_assert_uint_eq(llmmem_checkpoint_tensor_count(ck), LLMMEM__MAX_DTYPES);
    size_t at = 0;
    ck_assert_int_eq(llmmem__ck_find(ck, "x7", 2, &at), 1);
    ck_assert_uint_eq(at, 7);
    ck_assert_int_eq(llmmem__ck_find(ck, "x", 1, &at), 0);
    ck_assert_status(llmmem__ck_add(ck, "y", 1, "T99", 1, 1), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_status(llmmem__ck_add(ck, "y", 1, "A_DTYPE_NAME_TOO_LONG", 1, 1), LLMMEM_ERR_INVALID_ARGUMENT);
    /* bytes overflowing the total leave the checkpoint unchanged */
    ck_assert_ok(llmmem__ck_add(ck, "big", 3, "T0", 1, UINT64_MAX - LLMMEM__MAX_DTYPES - 50));
    uint64_t before = llmmem_checkpoint_total_bytes(ck);
    ck_assert_status(llmmem__ck_add(ck, "more", 4, "T0", 1, 100), LLMMEM_ERR_OVERFLOW);
    ck_assert_uint_eq(llmmem_checkpoint_total_bytes(ck), before);
    ck_assert_uint_eq(llmmem_checkpoint_tensor_count(ck), LLMMEM__MAX_DTYPES + 1);
    /* an unpacked count over 64 bits */
    ck_assert_status(llmmem__ck_add(ck, "a.qweight", 9, "I32", UINT64_MAX / 4, 0), LLMMEM_ERR_OVERFLOW);
    /* a name is taken by length, and may hold any byte */
    ck_assert_ok(llmmem__ck_add(ck, "lm_head.weightXYZ", 14, "T1", 2, 0));
    const char *name = NULL;
    ck_assert_ok(llmmem_checkpoint_tensor(&name, NULL, NULL, NULL, NULL, NULL, ck, LLMMEM__MAX_DTYPES + 1));
    ck_assert_str_eq(name, "lm_head.weight");
    llmmem_checkpoint_free(ck);

    /* GGUF-style names; a packed head cut at a NUL is classified as stored, and marking it tied
     * moves exactly what was counted: 4 packed elements, 32 parameters */
    ck_assert_ok(llmmem__ck_new(&ck, 2));
    ck_assert_ok(llmmem__ck_add(ck, "token_embd.weight", 17, "F16", 64, 128));
    ck_assert_ok(llmmem__ck_add(ck, "output.qweight\0xyz", 18, "I32", 4, 16));
    ck_assert_ok(llmmem__ck_add(ck, "output.scales", 13, "F16", 2, 4));
    ck_assert_uint_eq(llmmem_checkpoint_group_parameters(ck, LLMMEM_PARAMS_LM_HEAD), 32);
    ck_assert_uint_eq(llmmem_checkpoint_group_bytes(ck, LLMMEM_PARAMS_LM_HEAD), 20);
    llmmem__ck_mark_tied_head(ck, 0);
    ck_assert_uint_eq(llmmem_checkpoint_role_elements(ck, LLMMEM_TENSOR_DUPLICATE), 0);
    llmmem__ck_mark_tied_head(ck, 1);
    ck_assert_uint_eq(llmmem_checkpoint_group_parameters(ck, LLMMEM_PARAMS_LM_HEAD), 0);
    ck_assert_uint_eq(llmmem_checkpoint_group_bytes(ck, LLMMEM_PARAMS_LM_HEAD), 0);
    ck_assert_uint_eq(llmmem_checkpoint_role_elements(ck, LLMMEM_TENSOR_DUPLICATE), 32 + 2);
    ck_assert_uint_eq(llmmem_checkpoint_role_bytes(ck, LLMMEM_TENSOR_DUPLICATE), 20);
    ck_assert_uint_eq(llmmem_checkpoint_role_elements(ck, LLMMEM_TENSOR_PARAMETER), 64);
    ck_assert_uint_eq(llmmem_checkpoint_role_elements(ck, LLMMEM_TENSOR_QUANT_AUX), 0);
    check_sums(ck);
    llmmem__ck_mark_tied_head(ck, 1); /* again: nothing left to move */
    ck_assert_uint_eq(llmmem_checkpoint_role_bytes(ck, LLMMEM_TENSOR_DUPLICATE), 20);
    llmmem_checkpoint_free(ck);

    /* no embedding stored: a head is never a duplicate */
    ck_assert_ok(llmmem__ck_new(&ck, 2));
    ck_assert_ok(llmmem__ck_add(ck, "output.weight", 13, "F16", 64, 128));
    llmmem__ck_mark_tied_head(ck, 1);
    ck_assert_uint_eq(llmmem_checkpoint_group_parameters(ck, LLMMEM_PARAMS_LM_HEAD), 64);
    llmmem_checkpoint_free(ck);
    llmmem__ck_mark_tied_head(NULL, 1);
}
END_TEST

static Suite *safetensors_suite(void)
{
    Suite *s = suite_create("safetensors");
    TCase *tc = tcase_create("reader");
    tcase_add_test(tc, rotary_buffer_and_tied_head);
    tcase_add_test(tc, untied_config);
    tcase_add_test(tc, model_from_the_config_beside_it);
    tcase_add_test(tc, index_two_shards);
    tcase_add_test(tc, index_errors);
    tcase_add_test(tc, gptq);
    tcase_add_test(tc, other_quantization);
    tcase_add_test(tc, dtype_sums);
    tcase_add_test(tc, classification);
    tcase_add_test(tc, truncated_headers);
    tcase_add_test(tc, malformed_json);
    tcase_add_test(tc, wrong_types);
    tcase_add_test(tc, bad_shapes_and_offsets);
    tcase_add_test(tc, deep_nesting);
    tcase_add_test(tc, files_and_folders);
    tcase_add_test(tc, verify);
    tcase_add_test(tc, use_checkpoint);
    tcase_add_test(tc, checkpoint_dtype_when_the_config_names_none);
    tcase_add_test(tc, verify_many_mismatches);
    tcase_add_test(tc, ck_add_limits);
    tcase_add_test(tc, fifo_is_refused);
    tcase_add_test(tc, messages_do_not_quote_the_input);
    tcase_add_test(tc, entry_values_are_bounded);
    tcase_add_test(tc, plain_and_general_entries_agree);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(safetensors_suite());
}
