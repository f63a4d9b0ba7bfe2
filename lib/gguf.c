/* Reader of GGUF file headers (llama.cpp): metadata and tensor infos, never the tensor data.
 * Layout per ggml's docs/gguf.md (GGUF v2/v3): magic "GGUF", u32 version, u64 tensor count,
 * u64 metadata count, key/value pairs, then per tensor its name, u32 n_dims, u64 dims, u32 ggml
 * type and u64 offset. Every length is checked against the bytes that remain, so a hostile
 * count fails at once without a large allocation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"

#define GGUF_MAX_DIMS 4         /* GGML_MAX_DIMS */
#define GGUF_MAX_NESTING 4      /* arrays of arrays: deeper is refused */
#define GGUF_MAX_HEADER (1ull << 32)

enum { T_U8, T_I8, T_U16, T_I16, T_U32, T_I32, T_F32, T_BOOL, T_STRING, T_ARRAY, T_U64, T_I64, T_F64 };

typedef struct cursor {
    const uint8_t *p;
    size_t left, size;
    const char *src;
    llmmem_status st;
} cursor;

static int bad(cursor *c, const char *what)
{
    if (c->st == LLMMEM_OK)
        c->st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: %s at byte %zu", c->src, what, c->size - c->left);
    return 0;
}

static int take(cursor *c, void *out, size_t n, const char *what)
{
    if (c->st || c->left < n)
        return bad(c, what);
    memcpy(out, c->p, n); /* little-endian hosts: GGUF is little-endian */
    c->p += n;
    c->left -= n;
    return 1;
}

static int skip(cursor *c, uint64_t n, const char *what)
{
    if (c->st || c->left < n)
        return bad(c, what);
    c->p += n;
    c->left -= (size_t)n;
    return 1;
}

/* A GGUF string: u64 length and bytes (not NUL-terminated); *s points into the buffer. */
static int take_string(cursor *c, const char **s, uint64_t *len, const char *what)
{
    if (!take(c, len, 8, what) || *len > c->left)
        return bad(c, what);
    *s = (const char *)c->p;
    return skip(c, *len, what);
}

/* Bytes of a scalar value type, 0 for string/array or unknown. */
static unsigned scalar_size(uint32_t type)
{
    static const unsigned sizes[] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
    return type < sizeof sizes / sizeof sizes[0] ? sizes[type] : 0;
}

/* Skips one value; reads an integer into *num when it is one (and counts array items). */
static int read_value(cursor *c, uint32_t type, int depth, int64_t *num, uint64_t *items)
{
    if (type == T_STRING) {
        const char *s;
        uint64_t len;
        return take_string(c, &s, &len, "string value");
    }
    if (type == T_ARRAY) {
        uint32_t item_type;
        uint64_t n;
        if (depth >= GGUF_MAX_NESTING)
            return bad(c, "arrays nested too deep");
        if (!take(c, &item_type, 4, "array type") || !take(c, &n, 8, "array length"))
            return 0;
        if (items)
            *items = n;
        unsigned size = scalar_size(item_type);
        if (size) /* fixed-size items: checked and skipped in one step */
            return n <= c->left / size ? skip(c, n * size, "array items") : bad(c, "array longer than the file");
        if (item_type != T_STRING && item_type != T_ARRAY)
            return bad(c, "unknown array item type");
        for (uint64_t i = 0; i < n; i++) /* each item takes at least 8 bytes: bounded by the file */
            if (!read_value(c, item_type, depth + 1, NULL, NULL))
                return 0;
        return 1;
    }
    unsigned size = scalar_size(type);
    if (!size)
        return bad(c, "unknown metadata value type");
    uint8_t raw[8] = {0};
    if (!take(c, raw, size, "metadata value"))
        return 0;
    if (num && type != T_F32 && type != T_F64) {
        uint64_t u = 0;
        memcpy(&u, raw, size);
        int is_signed = type == T_I8 || type == T_I16 || type == T_I32 || type == T_I64;
        if (is_signed && size < 8 && (u >> (size * 8 - 1)) & 1)
            u |= ~0ull << (size * 8); /* sign-extend */
        *num = (int64_t)u;
    }
    return 1;
}

/* ggml types (ggml.h enum ggml_type) and their storage: an llmmem format where one exists. */
static const struct ggml_type {
    uint32_t id;
    const char *name;
    llmmem_format format; /* AUTO: use block/bytes below */
    unsigned block, block_bytes;
} ggml_types[] = {
    {0, "F32", LLMMEM_FORMAT_FP32, 0, 0},    {1, "F16", LLMMEM_FORMAT_FP16, 0, 0},
    {2, "Q4_0", LLMMEM_FORMAT_Q4_0, 0, 0},   {3, "Q4_1", LLMMEM_FORMAT_Q4_1, 0, 0},
    {6, "Q5_0", LLMMEM_FORMAT_Q5_0, 0, 0},   {7, "Q5_1", LLMMEM_FORMAT_Q5_1, 0, 0},
    {8, "Q8_0", LLMMEM_FORMAT_Q8_0, 0, 0},
    {9, "Q8_1", LLMMEM_FORMAT_AUTO, 32, 36},   /* ggml-common.h block_q8_1: d, s (fp16) + qs[32] */
    {10, "Q2_K", LLMMEM_FORMAT_Q2_K, 0, 0},  {11, "Q3_K", LLMMEM_FORMAT_Q3_K, 0, 0},
    {12, "Q4_K", LLMMEM_FORMAT_Q4_K, 0, 0},  {13, "Q5_K", LLMMEM_FORMAT_Q5_K, 0, 0},
    {14, "Q6_K", LLMMEM_FORMAT_Q6_K, 0, 0},
    {15, "Q8_K", LLMMEM_FORMAT_AUTO, 256, 292}, /* block_q8_K: float d + qs[256] + int16 bsums[16] */
    {24, "I8", LLMMEM_FORMAT_AUTO, 1, 1},    {25, "I16", LLMMEM_FORMAT_AUTO, 1, 2},
    {26, "I32", LLMMEM_FORMAT_AUTO, 1, 4},   {27, "I64", LLMMEM_FORMAT_AUTO, 1, 8},
    {28, "F64", LLMMEM_FORMAT_AUTO, 1, 8},   {30, "BF16", LLMMEM_FORMAT_BF16, 0, 0},
    {39, "MXFP4", LLMMEM_FORMAT_AUTO, 32, 17}, /* block_mxfp4: e (E8M0) + qs[16] */
};

/* Bytes of a tensor of `rows` rows of ne0 elements in a ggml type; ggml requires whole blocks. */
static int tensor_bytes(cursor *c, const struct ggml_type *t, uint64_t ne0, uint64_t rows, uint64_t *out)
{
    if (t->format != LLMMEM_FORMAT_AUTO) {
        unsigned block = t->format >= LLMMEM_FORMAT_Q2_K && t->format <= LLMMEM_FORMAT_Q6_K ? 256u /* QK_K */
                         : t->format >= LLMMEM_FORMAT_Q4_0 && t->format <= LLMMEM_FORMAT_Q8_0 ? 32u : 1u;
        if (ne0 % block != 0)
            return bad(c, "row length not a multiple of the type's block");
        if (!llmmem__format_bytes(out, t->format, rows, ne0, 0, 0))
            return bad(c, "tensor size exceeds 64 bits");
        return 1;
    }
    if (ne0 % t->block != 0)
        return bad(c, "row length not a multiple of the type's block");
    uint64_t blocks;
    if (!llmmem__mul(&blocks, ne0 / t->block, rows) || !llmmem__mul(out, blocks, t->block_bytes))
        return bad(c, "tensor size exceeds 64 bits");
    return 1;
}

/* Metadata the model is built from. */
typedef struct gguf_meta {
    char arch[32];
    int64_t block_count, embedding, ffn, heads, kv_heads, key_length, context, experts, experts_used, vocab;
    int has_output;
} gguf_meta;

static void note_metadata(gguf_meta *g, const char *key, size_t key_len, int64_t num, uint64_t items)
{
    static const struct {
        const char *suffix;
        size_t offset;
    } fields[] = {
        {".block_count", offsetof(gguf_meta, block_count)},
        {".embedding_length", offsetof(gguf_meta, embedding)},
        {".feed_forward_length", offsetof(gguf_meta, ffn)},
        {".attention.head_count", offsetof(gguf_meta, heads)},
        {".attention.head_count_kv", offsetof(gguf_meta, kv_heads)},
        {".attention.key_length", offsetof(gguf_meta, key_length)},
        {".context_length", offsetof(gguf_meta, context)},
        {".expert_count", offsetof(gguf_meta, experts)},
        {".expert_used_count", offsetof(gguf_meta, experts_used)},
        {".vocab_size", offsetof(gguf_meta, vocab)},
    };
    size_t arch_len = strlen(g->arch);
    if (key_len == 21 && memcmp(key, "tokenizer.ggml.tokens", 21) == 0 && !g->vocab) {
        g->vocab = (int64_t)items;
        return;
    }
    if (!arch_len || key_len <= arch_len || memcmp(key, g->arch, arch_len) != 0)
        return;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        size_t n = strlen(fields[i].suffix);
        if (key_len - arch_len == n && memcmp(key + arch_len, fields[i].suffix, n) == 0)
            *(int64_t *)(void *)((char *)g + fields[i].offset) = num;
    }
}

/* The model the metadata describes, for the architectures llama.cpp names like Hugging Face's. */
static llmmem_status build_model(llmmem_model **out, const gguf_meta *g, const char *src)
{
    static const struct {
        const char *arch;
        llmmem_model_type type;
    } archs[] = {{"llama", LLMMEM_MODEL_LLAMA}, {"qwen2", LLMMEM_MODEL_QWEN2}, {"qwen3", LLMMEM_MODEL_QWEN3},
                 {"qwen3moe", LLMMEM_MODEL_QWEN3_MOE}, {"phi3", LLMMEM_MODEL_PHI3}, {"gemma2", LLMMEM_MODEL_GEMMA2}};
    llmmem_model_type type = LLMMEM_MODEL_CUSTOM;
    for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
        if (strcmp(archs[i].arch, g->arch) == 0)
            type = archs[i].type;
    if (type == LLMMEM_MODEL_CUSTOM)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "%s: general.architecture '%s' is not modelled from GGUF metadata",
                            src, g->arch[0] ? g->arch : "(missing)");
    const struct {
        llmmem_key key;
        int64_t value;
        const char *field;
    } sets[] = {
        {LLMMEM_KEY_MODEL_TYPE, type, "general.architecture"},
        {LLMMEM_KEY_HIDDEN_SIZE, g->embedding, "embedding_length"},
        {LLMMEM_KEY_NUM_HIDDEN_LAYERS, g->block_count, "block_count"},
        {LLMMEM_KEY_NUM_ATTENTION_HEADS, g->heads, "attention.head_count"},
        {LLMMEM_KEY_NUM_KEY_VALUE_HEADS, g->kv_heads, "attention.head_count_kv"},
        {LLMMEM_KEY_HEAD_DIM, g->key_length, "attention.key_length"},
        {LLMMEM_KEY_INTERMEDIATE_SIZE, g->ffn, "feed_forward_length"},
        {LLMMEM_KEY_VOCAB_SIZE, g->vocab, "tokenizer.ggml.tokens"},
        {LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, g->context, "context_length"},
        {LLMMEM_KEY_NUM_EXPERTS, g->experts, "expert_count"},
        {LLMMEM_KEY_NUM_EXPERTS_PER_TOK, g->experts_used, "expert_used_count"},
        {LLMMEM_KEY_MOE_INTERMEDIATE_SIZE, g->experts ? g->ffn : 0, "feed_forward_length"},
        {LLMMEM_KEY_TIE_WORD_EMBEDDINGS, !g->has_output, "output.weight"},
    };
    llmmem_model *m;
    llmmem_status st = llmmem_model_new(&m);
    for (size_t i = 0; !st && i < sizeof sets / sizeof sets[0]; i++) {
        if (sets[i].value == 0 && sets[i].key != LLMMEM_KEY_TIE_WORD_EMBEDDINGS)
            continue; /* absent: the key's default or derived value */
        if ((st = llmmem_model_set_int(m, sets[i].key, sets[i].value)) != LLMMEM_OK) {
            char prefix[600];
            snprintf(prefix, sizeof prefix, "%s: %s", src, sets[i].field);
            st = llmmem__fail_prefixed(st, prefix);
        }
    }
    if (!st)
        st = llmmem__model_check(m);
    if (st) {
        llmmem_model_free(m);
        return st;
    }
    *out = m;
    return LLMMEM_OK;
}

static llmmem_status parse(llmmem_checkpoint **out, const uint8_t *data, size_t size, const char *src)
{
    cursor c = {data, size, size, src, LLMMEM_OK};
    uint32_t magic = 0, version = 0;
    uint64_t n_tensors = 0, n_kv = 0;
    if (!take(&c, &magic, 4, "magic") || memcmp(&magic, "GGUF", 4) != 0)
        return c.st ? c.st : llmmem__fail(LLMMEM_ERR_PARSE, "%s: not a GGUF file (bad magic)", src);
    if (!take(&c, &version, 4, "version"))
        return c.st;
    if (version < 2 || version > 3)
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: GGUF version %u is not supported (2 or 3)", src, version);
    if (!take(&c, &n_tensors, 8, "tensor count") || !take(&c, &n_kv, 8, "metadata count"))
        return c.st;
    /* every tensor info takes at least 8 + 4 + 8 + 4 + 8 bytes, every pair at least 8 + 4 + 1 */
    if (n_tensors > c.left / 32 || n_kv > c.left / 13)
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor count %llu or metadata count %llu exceeds the file", src,
                            (unsigned long long)n_tensors, (unsigned long long)n_kv);

    gguf_meta g;
    memset(&g, 0, sizeof g);
    for (uint64_t i = 0; i < n_kv; i++) {
        const char *key;
        uint64_t key_len, items = 0;
        uint32_t type;
        int64_t num = 0;
        if (!take_string(&c, &key, &key_len, "metadata key") || !take(&c, &type, 4, "metadata type"))
            return c.st;
        if (key_len == 20 && memcmp(key, "general.architecture", 20) == 0 && type == T_STRING) {
            const char *s;
            uint64_t len;
            if (!take_string(&c, &s, &len, "general.architecture"))
                return c.st;
            size_t n = len < sizeof g.arch - 1 ? (size_t)len : sizeof g.arch - 1;
            memcpy(g.arch, s, n);
            g.arch[n] = '\0';
            continue;
        }
        if (!read_value(&c, type, 0, &num, &items))
            return c.st;
        note_metadata(&g, key, (size_t)key_len, num, items);
    }

    struct llmmem_checkpoint *ck;
    llmmem_status st = llmmem__ck_new(&ck, 2);
    if (st)
        return st;
    for (uint64_t i = 0; i < n_tensors && !st; i++) {
        const char *name;
        uint64_t name_len, dims[GGUF_MAX_DIMS], offset;
        uint32_t n_dims, type;
        if (!take_string(&c, &name, &name_len, "tensor name") || !take(&c, &n_dims, 4, "tensor n_dims"))
            break;
        if (n_dims == 0 || n_dims > GGUF_MAX_DIMS) {
            bad(&c, "tensor n_dims not 1 to 4");
            break;
        }
        uint64_t elements = 1, rows = 1;
        for (uint32_t d = 0; d < n_dims; d++) {
            if (!take(&c, &dims[d], 8, "tensor dims"))
                break;
            if (!llmmem__mul(&elements, elements, dims[d]) || (d > 0 && !llmmem__mul(&rows, rows, dims[d]))) {
                bad(&c, "tensor element count exceeds 64 bits");
                break;
            }
        }
        if (c.st || !take(&c, &type, 4, "tensor type") || !take(&c, &offset, 8, "tensor offset"))
            break;
        const struct ggml_type *t = NULL;
        for (size_t k = 0; k < sizeof ggml_types / sizeof ggml_types[0]; k++)
            if (ggml_types[k].id == type)
                t = &ggml_types[k];
        if (!t) {
            st = llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "%s: tensor '%.*s' has ggml type %u, not modelled", src,
                              (int)(name_len > 64 ? 64 : name_len), name, type);
            break;
        }
        uint64_t bytes;
        if (!tensor_bytes(&c, t, dims[0], rows, &bytes))
            break;
        if (name_len == 13 && memcmp(name, "output.weight", 13) == 0)
            g.has_output = 1;
        st = llmmem__ck_add(ck, name, (size_t)name_len, t->name, elements, bytes);
    }
    if (!st)
        st = c.st;
    if (!st && build_model(&ck->model, &g, src) != LLMMEM_OK) {
        /* the byte sums stay usable; llmmem_checkpoint_model reports why there is no model */
        snprintf(ck->model_error, sizeof ck->model_error, "%s", llmmem_last_message());
        ck->model_status = llmmem_last_status();
    }
    if (st) {
        llmmem_checkpoint_free(ck);
        return st;
    }
    *out = ck;
    return LLMMEM_OK;
}

llmmem_status llmmem_checkpoint_from_gguf_bytes(llmmem_checkpoint **out, const void *data, size_t size)
{
    LLMMEM_REQUIRE(out);
    *out = NULL;
    LLMMEM_REQUIRE(data);
    return parse(out, data, size, "<memory>");
}

llmmem_status llmmem_checkpoint_from_gguf(llmmem_checkpoint **out, const char *path)
{
    LLMMEM_REQUIRE(out);
    *out = NULL;
    LLMMEM_REQUIRE(path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return llmmem__fail(LLMMEM_ERR_IO, "%s: cannot open", path);
    /* The header precedes the (aligned) data: read it in growing chunks until it parses. */
    char magic[4];
    if (fread(magic, 1, 4, f) != 4 || memcmp(magic, "GGUF", 4) != 0) {
        fclose(f);
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: not a GGUF file (bad magic)", path);
    }
    rewind(f);
    size_t cap = 1 << 20, size = 0;
    uint8_t *buf = NULL;
    llmmem_status st = LLMMEM_ERR_PARSE;
    for (;;) {
        uint8_t *grown = realloc(buf, cap);
        if (!grown) {
            st = llmmem__fail(LLMMEM_ERR_NO_MEMORY, "%s: out of memory reading the header", path);
            break;
        }
        buf = grown;
        size += fread(buf + size, 1, cap - size, f);
        st = parse(out, buf, size, path);
        int more = size == cap && cap < GGUF_MAX_HEADER;
        if (st != LLMMEM_ERR_PARSE || !more)
            break;
        cap *= 4; /* a truncated read may only mean the header is longer than what was read */
    }
    fclose(f);
    free(buf);
    return st;
}

llmmem_status llmmem_checkpoint_model(llmmem_model **out, const llmmem_checkpoint *ck)
{
    LLMMEM_REQUIRE(out);
    *out = NULL;
    LLMMEM_REQUIRE(ck);
    if (!ck->model) {
        if (ck->model_status)
            return llmmem__fail_text(ck->model_status, ck->model_error);
        return llmmem__fail(LLMMEM_ERR_NOT_FOUND, "the checkpoint describes no model (safetensors: use its config.json)");
    }
    return llmmem_model_clone(out, ck->model);
}
