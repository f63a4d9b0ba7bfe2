/* Reader of GGUF file headers (llama.cpp / ggml): metadata and tensor infos, never the tensor data.
 *
 * Layout, per ggml-org/ggml docs/gguf.md (GGUF v2 and v3, little-endian): magic "GGUF", u32
 * version, u64 tensor_count, u64 metadata_kv_count; the key/value pairs (a key is a u64-length
 * string, then a u32 value type and the value; an array holds a u32 item type, a u64 count and the
 * items, and may hold arrays); then per tensor its name, u32 n_dims, n_dims u64 dimensions, u32
 * ggml type and u64 data offset.
 *
 * The checks are those of ggml's own reader (ggml-org/llama.cpp ggml/src/gguf.cpp,
 * gguf_init_from_reader), so a header is accepted when llama.cpp would accept it: version 2 or 3,
 * non-empty and unique keys, general.alignment a u32 power of two, unique tensor names, at most 4
 * dimensions, none negative as int64, an element count below 2^63, a known ggml type, rows made
 * of whole blocks, and each tensor's data offset the padded end of the one before. Two limits come
 * from docs/gguf.md instead: keys of at most 65535 bytes and tensor names of at most 64.
 *
 * Bounds: every count and length is checked against the bytes that remain before anything is
 * read or allocated for it, so a tensor count of 2^60 or a string length of 2^63 fails at once.
 * A file is read with a cursor through one 64 KiB buffer, never whole: strings and arrays that are
 * not needed are skipped (a seek past what is not buffered). What is kept grows only with what was
 * read: the keys (for the duplicate check), the tensors (llmmem__ck_add: a name and at most 160
 * bytes each), and the few metadata values the model is built from; so memory is linear in the
 * header's bytes, and so is the work (each byte is looked at a bounded number of times). Arrays
 * may nest at most GGUF_MAX_DEPTH deep. A file must also hold every tensor's data (check_data);
 * bytes in memory are taken as the start of a file, whose data may be absent. */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "base/families.h"
#include "readers/checkpoint.h"
#include "readers/readfile.h"

#define GGUF_MAX_DIMS 4            /* ggml.h GGML_MAX_DIMS */
#define GGUF_MAX_NAME 64           /* docs/gguf.md gguf_tensor_info_t: a name is at most 64 bytes */
#define GGUF_MAX_KEY 65535         /* docs/gguf.md gguf_metadata_kv_t: a key is at most 2^16-1 bytes */
#define GGUF_MAX_DEPTH 8           /* arrays of arrays: deeper nesting is refused */
#define GGUF_DEFAULT_ALIGNMENT 32  /* docs/gguf.md general.alignment: 32 when absent */
#define GGUF_ARCH_MAX 32           /* longest general.architecture kept (longer ones are not known) */
#define SHOWN 160                  /* characters of a path shown in a message */

/* ---- value types (docs/gguf.md enum gguf_metadata_value_type) ------------------------------ */

enum { V_U8, V_I8, V_U16, V_I16, V_U32, V_I32, V_F32, V_BOOL, V_STRING, V_ARRAY, V_U64, V_I64, V_F64, V_COUNT };

/* ggml/src/gguf.cpp GGUF_TYPE_NAME */
static const char *const value_type_names[V_COUNT] = {"u8",  "i8",  "u16", "i16", "u32", "i32", "f32",
                                                      "bool", "str", "arr", "u64", "i64", "f64"};

static const char *value_type_name(uint32_t type)
{
    return type < V_COUNT ? value_type_names[type] : "unknown";
}

/* Bytes of a fixed-size value; 0 for strings, arrays and unknown types. */
static unsigned value_size(uint32_t type)
{
    static const unsigned sizes[V_COUNT] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
    return type < V_COUNT ? sizes[type] : 0;
}

/* ---- ggml types --------------------------------------------------------------------------- */

/* Ids and names: ggml/include/ggml.h enum ggml_type and gguf-py/gguf/constants.py
 * GGMLQuantizationType (NVFP4 = 40, Q1_0 = 41 are newer than GGML_TYPE_COUNT 40 of ggml.h);
 * blocks and bytes per block: the block_* structs of ggml/src/ggml-common.h, as
 * ggml.c type_traits uses them (blck_size, sizeof block). Where llmmem has the format, its bytes
 * come from formats.c (llmmem__format_bytes), and `bytes` is left 0. */
typedef struct ggml_type_info {
    uint32_t id;
    const char *name;     /* GGMLQuantizationType name, the checkpoint's dtype */
    llmmem_format format; /* AUTO: `bytes` per `block` below */
    uint16_t block;       /* elements per block (1 for plain types) */
    uint16_t bytes;       /* bytes per block when format is AUTO */
} ggml_type_info;

#define F(x) LLMMEM_FORMAT_##x
static const ggml_type_info ggml_types[] = {
    {0, "F32", F(FP32), 1, 0},
    {1, "F16", F(FP16), 1, 0},
    {2, "Q4_0", F(Q4_0), 32, 0},      /* block_q4_0: d + qs[16]: 18 B */
    {3, "Q4_1", F(Q4_1), 32, 0},      /* block_q4_1: d, m + qs[16]: 20 B */
    {6, "Q5_0", F(Q5_0), 32, 0},      /* block_q5_0: d + qh[4] + qs[16]: 22 B */
    {7, "Q5_1", F(Q5_1), 32, 0},      /* block_q5_1: d, m + qh[4] + qs[16]: 24 B */
    {8, "Q8_0", F(Q8_0), 32, 0},      /* block_q8_0: d + qs[32]: 34 B */
    {9, "Q8_1", F(AUTO), 32, 36},     /* block_q8_1: d, s (2 x fp16) + qs[32] */
    {10, "Q2_K", F(Q2_K), 256, 0},    /* block_q2_K: 84 B */
    {11, "Q3_K", F(Q3_K), 256, 0},    /* block_q3_K: 110 B */
    {12, "Q4_K", F(Q4_K), 256, 0},    /* block_q4_K: 144 B */
    {13, "Q5_K", F(Q5_K), 256, 0},    /* block_q5_K: 176 B */
    {14, "Q6_K", F(Q6_K), 256, 0},    /* block_q6_K: 210 B */
    {15, "Q8_K", F(AUTO), 256, 292},  /* block_q8_K: float d + qs[256] + int16 bsums[16] */
    {16, "IQ2_XXS", F(AUTO), 256, 66},/* block_iq2_xxs: d + uint16 qs[32] */
    {17, "IQ2_XS", F(AUTO), 256, 74}, /* block_iq2_xs: d + uint16 qs[32] + scales[8] */
    {18, "IQ3_XXS", F(AUTO), 256, 98},/* block_iq3_xxs: d + qs[96] */
    {19, "IQ1_S", F(AUTO), 256, 50},  /* block_iq1_s: d + qs[32] + uint16 qh[8] */
    {20, "IQ4_NL", F(AUTO), 32, 18},  /* block_iq4_nl: d + qs[16] */
    {21, "IQ3_S", F(AUTO), 256, 110}, /* block_iq3_s: d + qs[64] + qh[8] + signs[32] + scales[4] */
    {22, "IQ2_S", F(AUTO), 256, 82},  /* block_iq2_s: d + qs[64] + qh[8] + scales[8] */
    {23, "IQ4_XS", F(AUTO), 256, 136},/* block_iq4_xs: d + scales_h + scales_l[4] + qs[128] */
    {24, "I8", F(INT8), 1, 0},
    {25, "I16", F(AUTO), 1, 2},
    {26, "I32", F(AUTO), 1, 4},
    {27, "I64", F(AUTO), 1, 8},
    {28, "F64", F(AUTO), 1, 8},
    {29, "IQ1_M", F(AUTO), 256, 56},  /* block_iq1_m: qs[32] + qh[16] + scales[8] */
    {30, "BF16", F(BF16), 1, 0},
    {34, "TQ1_0", F(AUTO), 256, 54},  /* block_tq1_0: qs[48] + qh[4] + d */
    {35, "TQ2_0", F(AUTO), 256, 66},  /* block_tq2_0: qs[64] + d */
    {39, "MXFP4", F(MXFP4), 32, 0},   /* block_mxfp4: e (E8M0) + qs[16]: 17 B */
    {40, "NVFP4", F(AUTO), 64, 36},   /* block_nvfp4: d[4] (UE4M3) + qs[32] */
    {41, "Q1_0", F(AUTO), 128, 18},   /* block_q1_0: d + qs[16] */
};
#undef F

static const ggml_type_info *ggml_type_find(uint32_t id)
{
    for (size_t i = 0; i < sizeof ggml_types / sizeof ggml_types[0]; i++)
        if (ggml_types[i].id == id)
            return &ggml_types[i];
    return NULL;
}

unsigned llmmem__ggml_block_of(const char *dtype)
{
    for (size_t i = 0; i < sizeof ggml_types / sizeof ggml_types[0]; i++)
        if (strcmp(ggml_types[i].name, dtype) == 0)
            return ggml_types[i].block;
    return 1;
}

/* ---- cursor ------------------------------------------------------------------------------- */

#define READ_CHUNK 65536 /* bytes of a file read at once into the cursor's buffer */

typedef struct cursor {
    const uint8_t *mem; /* the bytes, or NULL when reading f */
    FILE *f;
    uint64_t size;      /* bytes in the source */
    uint64_t pos;       /* offset of the next byte */
    const char *src;    /* path or "<memory>", for messages */
    llmmem_status st;   /* the first failure; every read after it fails */
    uint8_t *buf;       /* a file's bytes from pos on: buf[at, end) (one fread per chunk, not per item) */
    size_t at, end;
} cursor;

static uint64_t left(const cursor *c)
{
    return c->size - c->pos;
}

/* Records the first failure, naming the source and the byte offset of the field at fault. */
static int fail_at(cursor *c, llmmem_status st, uint64_t at, const char *fmt, ...) LLMMEM_PRINTF(4, 5);

static int fail_at(cursor *c, llmmem_status st, uint64_t at, const char *fmt, ...)
{
    if (c->st == LLMMEM_OK) {
        char what[LLMMEM_MESSAGE_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        c->st = llmmem__fail(st, "%.*s: %s (at byte %llu)", SHOWN, c->src, what, (unsigned long long)at);
    }
    return 0;
}

static int truncated(cursor *c, const char *what, uint64_t need)
{
    return fail_at(c, LLMMEM_ERR_PARSE, c->pos, "truncated: %s needs %llu bytes, %llu are left", what,
                   (unsigned long long)need, (unsigned long long)left(c));
}

static int read_failed(cursor *c, const char *what)
{
    return fail_at(c, LLMMEM_ERR_IO, c->pos, "reading %s failed (did the file change while being read?)", what);
}

/* n bytes into out. */
static int rd(cursor *c, void *out, size_t n, const char *what)
{
    if (c->st)
        return 0;
    if (n > left(c))
        return truncated(c, what, n);
    if (n == 0)
        return 1;
    if (!c->f) {
        memcpy(out, c->mem + c->pos, n);
        c->pos += n;
        return 1;
    }
    uint8_t *o = out;
    size_t done = 0;
    while (done < n) {
        if (c->at == c->end) {
            uint64_t want = left(c) - done < READ_CHUNK ? left(c) - done : READ_CHUNK;
            c->at = 0;
            c->end = fread(c->buf, 1, (size_t)want, c->f);
            if (c->end == 0)
                return read_failed(c, what);
        }
        size_t k = c->end - c->at < n - done ? c->end - c->at : n - done;
        memcpy(o + done, c->buf + c->at, k);
        c->at += k;
        done += k;
    }
    c->pos += n;
    return 1;
}

/* Little-endian integers, decoded byte by byte so the host's byte order does not matter. */
static uint64_t le(const uint8_t *b, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;)
        v = v << 8 | b[i];
    return v;
}

static int rd_u32(cursor *c, uint32_t *v, const char *what)
{
    uint8_t b[4];
    if (!rd(c, b, 4, what))
        return 0;
    *v = (uint32_t)le(b, 4);
    return 1;
}

static int rd_u64(cursor *c, uint64_t *v, const char *what)
{
    uint8_t b[8];
    if (!rd(c, b, 8, what))
        return 0;
    *v = le(b, 8);
    return 1;
}

/* Moves past n bytes without keeping them. */
static int skip(cursor *c, uint64_t n, const char *what)
{
    if (c->st)
        return 0;
    if (n > left(c))
        return truncated(c, what, n);
    if (c->f && n <= c->end - c->at) {
        c->at += (size_t)n;
    } else if (c->f) { /* past the buffer: seek, and refill on the next read */
        if (fseeko(c->f, (off_t)(c->pos + n), SEEK_SET) != 0)
            return read_failed(c, what);
        c->at = c->end = 0;
    }
    c->pos += n;
    return 1;
}

/* A string's u64 length, checked against the bytes left. */
static int rd_len(cursor *c, uint64_t *len, const char *what)
{
    uint64_t at = c->pos;
    if (!rd_u64(c, len, what))
        return 0;
    if (*len > left(c))
        return fail_at(c, LLMMEM_ERR_PARSE, at, "%s has length %llu, more than the %llu bytes left", what,
                       (unsigned long long)*len, (unsigned long long)left(c));
    return 1;
}

/* ---- metadata kept for the model ----------------------------------------------------------- */

/* Architectures modelled: the family table's llama.cpp names (families.c; gguf-py/gguf/constants.py
 * MODEL_ARCH_NAMES), by row; a row without one is never matched. */
#define N_ARCHS LLMMEM__FAMILY_COUNT
static const char *arch_name(size_t a)
{
    return llmmem__family_at(a)->gguf;
}
static llmmem_model_type arch_type(size_t a)
{
    return llmmem__family_at(a)->type;
}

/* Keys `<arch>.<suffix>` read (gguf-py/gguf/constants.py Keys.LLM, Keys.Attention, Keys.Rope). */
enum field_id {
    K_BLOCK_COUNT, K_EMBEDDING, K_FFN, K_HEADS, K_KV_HEADS, K_KEY_LENGTH, K_VALUE_LENGTH, K_KEY_LENGTH_MLA,
    K_VALUE_LENGTH_MLA, K_CONTEXT, K_EXPERTS, K_EXPERTS_USED, K_EXPERT_FFN, K_SHARED_FFN, K_SHARED_COUNT,
    K_LEADING_DENSE, K_SLIDING_WINDOW, K_SLIDING_PATTERN, K_Q_LORA, K_KV_LORA, K_ROPE_DIMS, K_VOCAB,
    K_NEXTN, K_SSM_CONV, K_SSM_INNER, K_SSM_STATE, K_SSM_DT_RANK, K_SSM_GROUPS, K_FULL_ATTN_INTERVAL, N_FIELDS
};

static const char *const field_suffix[N_FIELDS] = {
    [K_BLOCK_COUNT] = "block_count",
    [K_EMBEDDING] = "embedding_length",
    [K_FFN] = "feed_forward_length",
    [K_HEADS] = "attention.head_count",
    [K_KV_HEADS] = "attention.head_count_kv",
    [K_KEY_LENGTH] = "attention.key_length",
    [K_VALUE_LENGTH] = "attention.value_length",
    [K_KEY_LENGTH_MLA] = "attention.key_length_mla",
    [K_VALUE_LENGTH_MLA] = "attention.value_length_mla",
    [K_CONTEXT] = "context_length",
    [K_EXPERTS] = "expert_count",
    [K_EXPERTS_USED] = "expert_used_count",
    [K_EXPERT_FFN] = "expert_feed_forward_length",
    [K_SHARED_FFN] = "expert_shared_feed_forward_length",
    [K_SHARED_COUNT] = "expert_shared_count",
    [K_LEADING_DENSE] = "leading_dense_block_count",
    [K_SLIDING_WINDOW] = "attention.sliding_window",
    [K_SLIDING_PATTERN] = "attention.sliding_window_pattern",
    [K_Q_LORA] = "attention.q_lora_rank",
    [K_KV_LORA] = "attention.kv_lora_rank",
    [K_ROPE_DIMS] = "rope.dimension_count",
    [K_VOCAB] = "vocab_size",
    [K_NEXTN] = "nextn_predict_layers",
    [K_SSM_CONV] = "ssm.conv_kernel",
    [K_SSM_INNER] = "ssm.inner_size",
    [K_SSM_STATE] = "ssm.state_size",
    [K_SSM_DT_RANK] = "ssm.time_step_rank",
    [K_SSM_GROUPS] = "ssm.group_count",
    [K_FULL_ATTN_INTERVAL] = "full_attention_interval",
};

/* One metadata value as far as the model needs it. */
typedef struct field {
    uint8_t present;
    uint8_t is_array;
    uint8_t is_int;   /* an integer (or bool); for an array: every item is, and they agree */
    uint8_t big;      /* a u64 above INT64_MAX */
    uint32_t type;    /* value type (an array's item type) */
    int64_t num;
    uint64_t items;   /* array length */
    uint64_t at;      /* byte offset of the key */
    int64_t *keep;    /* per-layer arrays (head_count_kv, feed_forward_length): the first items, -1 for a
                       * value that is no integer >= 0 (meta.per_layer) */
} field;

typedef struct meta {
    char arch[GGUF_ARCH_MAX + 1];
    uint8_t arch_present, arch_long;
    uint32_t arch_type;
    uint64_t arch_at;
    field f[N_ARCHS][N_FIELDS];
    field tokens; /* tokenizer.ggml.tokens */
    /* llama.cpp's per-layer arrays (llama_model_loader::get_key_or_arr) of head_count_kv and
     * feed_forward_length: the items of the last such array read, up to LLMMEM_LAYER_MAP_MAX, and its field */
    int64_t per_layer[2][LLMMEM_LAYER_MAP_MAX];
    const field *per_layer_of[2];
    uint64_t alignment;
    /* every key, for the duplicate check once all are read: 2 length bytes, the key's 8-byte
     * offset in the file, then the key, back to back; and each key's hash */
    char *keys;
    size_t keys_len, keys_cap;
    uint64_t *key_hash;
    size_t n_keys, cap_keys;
    llmmem__nameset key_set; /* entries: offsets into keys */
} meta;

#define KEY_HEAD 10 /* length and file offset before each kept key */

static void key_entry(const void *ctx, size_t e, const char **p, size_t *n)
{
    const meta *g = ctx;
    const unsigned char *k = (const unsigned char *)g->keys + e;
    *n = (size_t)k[0] | (size_t)k[1] << 8;
    *p = (const char *)k + KEY_HEAD;
}

static int int_type(uint32_t type)
{
    return type <= V_I32 || type == V_BOOL || type == V_U64 || type == V_I64;
}

/* The value an integer type holds; 0 for other types. */
static int decode_int(uint32_t type, const uint8_t *b, int64_t *v, uint8_t *big)
{
    uint64_t u;
    *big = 0;
    switch (type) {
    case V_U8: case V_U16: case V_U32: case V_U64:
        u = le(b, value_size(type));
        *big = u > INT64_MAX;
        *v = *big ? INT64_MAX : (int64_t)u;
        return 1;
    case V_I8: *v = (int8_t)b[0]; return 1;
    case V_I16: *v = (int16_t)(uint16_t)le(b, 2); return 1;
    case V_I32: *v = (int32_t)(uint32_t)le(b, 4); return 1;
    case V_I64: *v = (int64_t)le(b, 8); return 1;
    case V_BOOL: *v = b[0] != 0; return 1; /* gguf.cpp reads a bool as int8 != 0 */
    default: return 0;
    }
}

/* How an array's items become one value: all equal (per-layer values that do not vary), or
 * llama.cpp's per-layer sliding-window flags, read as sliding_window_pattern n (layer i is global
 * when (i + 1) % n == 0, 0 when every layer slides: llama-hparams.cpp set_swa_pattern). */
enum fold { FOLD_EQUAL, FOLD_PERIOD };

typedef struct folder {
    enum fold how;
    int ok;
    int64_t value;
    uint64_t i;
    llmmem__swa_pattern swa; /* FOLD_PERIOD: a flag of 0 is a global layer */
} folder;

static void fold_item(folder *fo, int64_t v)
{
    if (fo->how == FOLD_PERIOD) {
        llmmem__swa_pattern_push(&fo->swa, v == 0);
        fo->ok &= fo->swa.ok;
        fo->value = (int64_t)fo->swa.n;
    } else if (fo->i == 0) {
        fo->value = v;
    } else if (v != fo->value) {
        fo->ok = 0;
    }
    fo->i++;
}

static int read_value(cursor *c, uint32_t type, unsigned depth, field *out, enum fold how);

/* An array after its value type: item type, count, items. */
static int read_array(cursor *c, unsigned depth, field *out, enum fold how)
{
    uint64_t at = c->pos, n;
    uint32_t item;
    if (depth >= GGUF_MAX_DEPTH)
        return fail_at(c, LLMMEM_ERR_PARSE, at, "arrays nested more than %d deep", GGUF_MAX_DEPTH);
    if (!rd_u32(c, &item, "an array's item type"))
        return 0;
    if (item >= V_COUNT)
        return fail_at(c, LLMMEM_ERR_PARSE, at, "an array's item type is %u, not a GGUF value type", item);
    if (!rd_u64(c, &n, "an array's length"))
        return 0;
    unsigned size = value_size(item);
    /* every item takes at least its size, 8 bytes (a string's length) or 12 (an array's header) */
    uint64_t least = size ? size : item == V_STRING ? 8 : 12;
    if (n > left(c) / least)
        return fail_at(c, LLMMEM_ERR_PARSE, at + 4, "an array of %llu %s items is longer than the %llu bytes left",
                       (unsigned long long)n, value_type_name(item), (unsigned long long)left(c));
    if (out) {
        out->is_array = 1;
        out->type = item;
        out->items = n;
    }
    int64_t v = 0;
    uint8_t b[8], big = 0;
    if (out && int_type(item)) {
        /* integer items are read when the model needs the value */
        folder fo = {how, n > 0, 0, 0, LLMMEM__SWA_PATTERN_INIT};
        for (uint64_t i = 0; i < n; i++) {
            if (!rd(c, b, size, "an array item"))
                return 0;
            decode_int(item, b, &v, &big);
            if (big)
                fo.ok = 0;
            if (out->keep && i < LLMMEM_LAYER_MAP_MAX)
                out->keep[i] = big || v < 0 ? -1 : v;
            fold_item(&fo, v);
        }
        out->is_int = (uint8_t)fo.ok;
        out->num = fo.value;
        return 1;
    }
    if (size)
        return skip(c, n * size, "an array's items");
    for (uint64_t i = 0; i < n; i++)
        if (!read_value(c, item, depth + 1, NULL, FOLD_EQUAL))
            return 0;
    return 1;
}

/* One value of a type; kept in *out (when not NULL) as far as the model needs it. */
static int read_value(cursor *c, uint32_t type, unsigned depth, field *out, enum fold how)
{
    if (type == V_ARRAY)
        return read_array(c, depth, out, how);
    if (out)
        out->type = type;
    if (type == V_STRING) {
        uint64_t len;
        return rd_len(c, &len, "a string value") && skip(c, len, "a string value");
    }
    unsigned size = value_size(type);
    uint8_t b[8];
    if (!size)
        return fail_at(c, LLMMEM_ERR_PARSE, c->pos - 4, "value type %u is not a GGUF value type", type);
    if (!rd(c, b, size, "a metadata value"))
        return 0;
    if (out)
        out->is_int = (uint8_t)decode_int(type, b, &out->num, &out->big);
    return 1;
}

/* The field a key names (*id: which, N_FIELDS for tokenizer.ggml.tokens), or NULL. */
static field *field_of(meta *g, const char *key, size_t n, unsigned *id)
{
    static const char tokens[] = "tokenizer.ggml.tokens";
    *id = N_FIELDS;
    if (n == sizeof tokens - 1 && memcmp(key, tokens, n) == 0)
        return &g->tokens;
    for (size_t a = 0; a < N_ARCHS; a++) {
        const char *name = arch_name(a);
        size_t an = name ? strlen(name) : 0;
        if (!name || n <= an + 1 || memcmp(key, name, an) != 0 || key[an] != '.')
            continue;
        for (unsigned k = 0; k < N_FIELDS; k++) {
            size_t sn = strlen(field_suffix[k]);
            if (n - an - 1 == sn && memcmp(key + an + 1, field_suffix[k], sn) == 0) {
                *id = k;
                return &g->f[a][k];
            }
        }
        return NULL;
    }
    return NULL;
}

static int key_is(const char *key, size_t n, const char *name)
{
    return n == strlen(name) && memcmp(key, name, n) == 0;
}

/* No key twice (gguf.cpp: "duplicate key"): looked up once all are read, each set slot fetched
 * ahead (a lookup as each key is read would wait on a cache miss for each of a million keys). */
static int check_keys(cursor *c, meta *g)
{
    if (!llmmem__nameset_reserve(&g->key_set, g->n_keys))
        return fail_at(c, LLMMEM_ERR_NO_MEMORY, c->pos, "out of memory for the metadata keys");
    for (size_t i = 0; i < g->n_keys && i < LLMMEM_LOOKUPS_AHEAD; i++)
        llmmem__nameset_prefetch(&g->key_set, g->key_hash[i]);
    size_t e = 0;
    for (size_t i = 0; i < g->n_keys; i++) {
        if (i + LLMMEM_LOOKUPS_AHEAD < g->n_keys)
            llmmem__nameset_prefetch(&g->key_set, g->key_hash[i + LLMMEM_LOOKUPS_AHEAD]);
        const char *key;
        size_t n;
        key_entry(g, e, &key, &n);
        if (llmmem__nameset_find_hashed(&g->key_set, g->key_hash[i], key, n, key_entry, g, NULL))
            return fail_at(c, LLMMEM_ERR_PARSE, le((const uint8_t *)g->keys + e + 2, 8), "duplicate metadata key '%.*s'",
                           n > 80 ? 80 : (int)n, key);
        if (llmmem__nameset_insert_hashed(&g->key_set, g->key_hash[i], e) < 0)
            return fail_at(c, LLMMEM_ERR_NO_MEMORY, c->pos, "out of memory for the metadata keys");
        e += n + KEY_HEAD;
    }
    return 1;
}

static int read_metadata(cursor *c, meta *g, uint64_t n_kv)
{
    for (uint64_t i = 0; i < n_kv; i++) {
        uint64_t at = c->pos, len;
        if (!rd_len(c, &len, "a metadata key"))
            return 0;
        if (len == 0)
            return fail_at(c, LLMMEM_ERR_PARSE, at, "metadata key %llu is empty", (unsigned long long)i);
        if (len > GGUF_MAX_KEY)
            return fail_at(c, LLMMEM_ERR_PARSE, at, "metadata key %llu is %llu bytes long; GGUF allows %d",
                           (unsigned long long)i, (unsigned long long)len, GGUF_MAX_KEY);
        size_t n = (size_t)len;
        if (g->keys_cap - g->keys_len < n + KEY_HEAD) {
            size_t cap = g->keys_cap ? g->keys_cap : 4096;
            while (cap - g->keys_len < n + KEY_HEAD)
                cap *= 2; /* the keys were read from the input: no overflow */
            char *grown = realloc(g->keys, cap);
            if (!grown)
                return fail_at(c, LLMMEM_ERR_NO_MEMORY, at, "out of memory for the metadata keys");
            g->keys = grown;
            g->keys_cap = cap;
        }
        if (g->n_keys == g->cap_keys) {
            size_t cap = g->cap_keys ? g->cap_keys * 2 : 256;
            uint64_t *grown = realloc(g->key_hash, cap * sizeof *grown); /* cap < bytes read: no overflow */
            if (!grown)
                return fail_at(c, LLMMEM_ERR_NO_MEMORY, at, "out of memory for the metadata keys");
            g->key_hash = grown;
            g->cap_keys = cap;
        }
        char *key = g->keys + g->keys_len + KEY_HEAD;
        if (!rd(c, key, n, "a metadata key"))
            return 0;
        g->keys[g->keys_len] = (char)(n & 0xff);
        g->keys[g->keys_len + 1] = (char)(n >> 8);
        for (unsigned b = 0; b < 8; b++)
            g->keys[g->keys_len + 2 + b] = (char)(at >> (8 * b));
        g->key_hash[g->n_keys++] = llmmem__name_hash(key, n);
        g->keys_len += n + KEY_HEAD;
        int shown = n > 80 ? 80 : (int)n;

        uint32_t type;
        uint64_t type_at = c->pos;
        if (!rd_u32(c, &type, "a metadata value type"))
            return 0;
        if (type >= V_COUNT)
            return fail_at(c, LLMMEM_ERR_PARSE, type_at, "metadata key '%.*s' has value type %u, not a GGUF value type",
                           shown, key, type);

        if (key_is(key, n, "general.architecture")) {
            g->arch_present = 1;
            g->arch_type = type;
            g->arch_at = at;
            if (type == V_STRING) {
                uint64_t slen;
                if (!rd_len(c, &slen, "general.architecture"))
                    return 0;
                size_t keep = slen > GGUF_ARCH_MAX ? GGUF_ARCH_MAX : (size_t)slen;
                if (!rd(c, g->arch, keep, "general.architecture") || !skip(c, slen - keep, "general.architecture"))
                    return 0;
                g->arch[keep] = '\0';
                g->arch_long = slen > GGUF_ARCH_MAX;
                continue;
            }
        } else if (key_is(key, n, "general.alignment")) {
            /* gguf.cpp: general.alignment must be a u32 and a power of two */
            uint32_t a;
            if (type != V_U32)
                return fail_at(c, LLMMEM_ERR_PARSE, at, "general.alignment is a %s; ggml requires a u32",
                               value_type_name(type));
            if (!rd_u32(c, &a, "general.alignment"))
                return 0;
            if (a == 0 || (a & (a - 1)) != 0)
                return fail_at(c, LLMMEM_ERR_PARSE, at, "general.alignment %u is not a power of two", a);
            g->alignment = a;
            continue;
        }
        unsigned id;
        field *fd = field_of(g, key, n, &id);
        if (fd) {
            fd->present = 1;
            fd->at = at;
            fd->keep = NULL;
            if (type == V_ARRAY && (id == K_KV_HEADS || id == K_FFN)) {
                fd->keep = g->per_layer[id == K_FFN];
                g->per_layer_of[id == K_FFN] = fd;
            }
        }
        if (!read_value(c, type, 0, fd, id == K_SLIDING_PATTERN ? FOLD_PERIOD : FOLD_EQUAL))
            return 0;
    }
    return check_keys(c, g);
}

/* ---- tensors ------------------------------------------------------------------------------ */

/* What the tensors say about the model beyond the metadata. */
typedef struct seen {
    int has_output;     /* output.weight: an LM head of its own (else tied to token_embd) */
    int qkv_bias, o_bias, mlp_bias, qk_norm;
    int attn_norm_2;    /* Falcon-40B style: two norms per layer */
    int exp_probs_b;    /* DeepSeek-V3 router score correction bias */
    int exps_bias;      /* gpt-oss: ffn_{gate,up,down}_exps.bias, the experts' biases */
    int router_bias;    /* gpt-oss: ffn_gate_inp.bias */
    int attn_sinks;     /* gpt-oss: attn_sinks.weight, one sink per head */
    int ssm_conv_bias;  /* Mamba-2: ssm_conv1d.bias */
    int ssm_proj_bias;  /* Mamba-2: ssm_in.bias, ssm_out.bias */
    uint64_t float_elements[3]; /* matrices stored in F32, F16, BF16 */
} seen;

static int name_is(const char *p, size_t n, const char *s)
{
    return n == strlen(s) && memcmp(p, s, n) == 0;
}

/* llama.cpp tensor names (gguf-py/gguf/constants.py TENSOR_NAMES): blk.N.<rest> per layer. */
static void note_tensor(seen *s, const char *name, size_t n)
{
    if (name_is(name, n, "output.weight")) {
        s->has_output = 1;
        return;
    }
    if (n < 6 || memcmp(name, "blk.", 4) != 0)
        return;
    size_t i = 4;
    while (i < n && name[i] >= '0' && name[i] <= '9')
        i++;
    if (i == 4 || i >= n || name[i] != '.')
        return;
    const char *r = name + i + 1;
    size_t rn = n - i - 1;
    if (name_is(r, rn, "attn_q.bias") || name_is(r, rn, "attn_k.bias") || name_is(r, rn, "attn_v.bias") ||
        name_is(r, rn, "attn_qkv.bias"))
        s->qkv_bias = 1;
    else if (name_is(r, rn, "attn_output.bias"))
        s->o_bias = 1;
    else if (name_is(r, rn, "ffn_up.bias") || name_is(r, rn, "ffn_down.bias") || name_is(r, rn, "ffn_gate.bias"))
        s->mlp_bias = 1;
    else if (name_is(r, rn, "attn_q_norm.weight") || name_is(r, rn, "attn_k_norm.weight"))
        s->qk_norm = 1;
    else if (name_is(r, rn, "attn_norm_2.weight"))
        s->attn_norm_2 = 1;
    else if (name_is(r, rn, "exp_probs_b.bias"))
        s->exp_probs_b = 1;
    else if (name_is(r, rn, "ffn_gate_exps.bias") || name_is(r, rn, "ffn_up_exps.bias") ||
             name_is(r, rn, "ffn_down_exps.bias"))
        s->exps_bias = 1;
    else if (name_is(r, rn, "ffn_gate_inp.bias"))
        s->router_bias = 1;
    else if (name_is(r, rn, "attn_sinks.weight"))
        s->attn_sinks = 1;
    else if (name_is(r, rn, "ssm_conv1d.bias"))
        s->ssm_conv_bias = 1;
    else if (name_is(r, rn, "ssm_in.bias") || name_is(r, rn, "ssm_out.bias"))
        s->ssm_proj_bias = 1;
}

/* Bytes of a tensor: ne0 / block blocks per row (ggml_row_size), rows rows. */
static int tensor_bytes(uint64_t *out, const ggml_type_info *t, uint64_t ne0, uint64_t rows)
{
    if (t->format != LLMMEM_FORMAT_AUTO)
        return llmmem__format_bytes(out, t->format, rows, ne0, 0, 0);
    uint64_t blocks;
    return llmmem__mul(&blocks, ne0 / t->block, rows) && llmmem__mul(out, blocks, t->bytes);
}

static int read_tensors(cursor *c, const meta *g, struct llmmem_checkpoint *ck, seen *s, uint64_t n_tensors)
{
    uint64_t expected_offset = 0; /* gguf.cpp: offsets follow each other, each end padded to alignment */
    for (uint64_t i = 0; i < n_tensors && !c->st; i++) {
        uint64_t at = c->pos, len;
        char name[GGUF_MAX_NAME + 1];
        if (!rd_len(c, &len, "a tensor name"))
            break;
        if (len > GGUF_MAX_NAME) {
            fail_at(c, LLMMEM_ERR_PARSE, at, "tensor %llu has a name of %llu bytes; GGUF allows %d",
                    (unsigned long long)i, (unsigned long long)len, GGUF_MAX_NAME);
            break;
        }
        if (!rd(c, name, (size_t)len, "a tensor name"))
            break;
        name[len] = '\0'; /* a NUL inside ends the name, as in ggml_set_name */
        size_t name_len = strlen(name);

        uint32_t n_dims;
        uint64_t dims_at = c->pos, ne[GGUF_MAX_DIMS] = {1, 1, 1, 1};
        if (!rd_u32(c, &n_dims, "a tensor's n_dims"))
            break;
        if (n_dims > GGUF_MAX_DIMS) {
            fail_at(c, LLMMEM_ERR_PARSE, dims_at, "tensor '%s' has %u dimensions; ggml allows at most %d", name,
                    n_dims, GGUF_MAX_DIMS);
            break;
        }
        int zero = 0;
        for (uint32_t d = 0; d < n_dims && !c->st; d++) {
            uint64_t d_at = c->pos;
            if (rd_u64(c, &ne[d], "a tensor dimension") && ne[d] > INT64_MAX)
                fail_at(c, LLMMEM_ERR_PARSE, d_at, "dimension %u of tensor '%s' is %llu, negative as ggml's int64",
                        d, name, (unsigned long long)ne[d]);
            zero |= ne[d] == 0;
        }
        if (c->st)
            break;
        uint64_t elements = 1;
        if (zero) {
            elements = 0;
        } else {
            for (unsigned d = 0; d < GGUF_MAX_DIMS; d++)
                if (!llmmem__mul(&elements, elements, ne[d]) || elements > INT64_MAX) {
                    fail_at(c, LLMMEM_ERR_OVERFLOW, dims_at,
                            "tensor '%s' of %llu x %llu x %llu x %llu elements: the count exceeds ggml's int64",
                            name, (unsigned long long)ne[0], (unsigned long long)ne[1], (unsigned long long)ne[2],
                            (unsigned long long)ne[3]);
                    break;
                }
            if (c->st)
                break;
        }

        uint32_t type;
        uint64_t type_at = c->pos;
        if (!rd_u32(c, &type, "a tensor's ggml type"))
            break;
        const ggml_type_info *t = ggml_type_find(type);
        if (!t) {
            fail_at(c, LLMMEM_ERR_UNSUPPORTED, type_at, "tensor '%s' has ggml type %u, which this version does not know",
                    name, type);
            break;
        }
        if (ne[0] % t->block != 0) {
            fail_at(c, LLMMEM_ERR_PARSE, dims_at,
                    "tensor '%s' in %s has rows of %llu elements, not a multiple of its block of %u (ggml requires "
                    "whole blocks)",
                    name, t->name, (unsigned long long)ne[0], t->block);
            break;
        }
        uint64_t bytes = 0;
        if (elements && !tensor_bytes(&bytes, t, ne[0], elements / ne[0])) {
            fail_at(c, LLMMEM_ERR_OVERFLOW, dims_at, "tensor '%s' in %s takes more than 2^64 bytes", name, t->name);
            break;
        }

        uint64_t offset, offset_at = c->pos, padded;
        if (!rd_u64(c, &offset, "a tensor's data offset"))
            break;
        if (offset != expected_offset) {
            fail_at(c, LLMMEM_ERR_PARSE, offset_at,
                    "tensor '%s' has data offset %llu; ggml expects %llu (tensors in order, each padded to "
                    "general.alignment %llu)",
                    name, (unsigned long long)offset, (unsigned long long)expected_offset,
                    (unsigned long long)g->alignment);
            break;
        }
        if (!llmmem__add(&padded, bytes, (g->alignment - bytes % g->alignment) % g->alignment) ||
            !llmmem__add(&expected_offset, expected_offset, padded)) {
            fail_at(c, LLMMEM_ERR_OVERFLOW, at, "the tensor data ends past 2^64 bytes at tensor '%s'", name);
            break;
        }

        llmmem_status st = llmmem__ck_add(ck, name, name_len, t->name, elements, bytes);
        if (st == LLMMEM_ERR_PARSE) { /* the one PARSE failure of ck_add: the name is stored */
            fail_at(c, LLMMEM_ERR_PARSE, at, "duplicate tensor name '%s'", name);
            break;
        }
        if (st) {
            char prefix[SHOWN + 32];
            snprintf(prefix, sizeof prefix, "%.*s", SHOWN, c->src);
            c->st = llmmem__fail_prefixed(st, prefix);
            break;
        }
        note_tensor(s, name, name_len);
        if (n_dims >= 2 && (type == 0 || type == 1 || type == 30)) {
            uint64_t *sum = &s->float_elements[type == 0 ? 0 : type == 1 ? 1 : 2];
            if (!llmmem__add(sum, *sum, elements))
                *sum = UINT64_MAX;
        }
    }
    return c->st == LLMMEM_OK;
}

/* ---- the model ---------------------------------------------------------------------------- */

typedef struct builder {
    const meta *g;
    size_t arch;
    const char *src;
} builder;

static llmmem_status model_fail(const builder *b, llmmem_status st, const char *fmt, ...) LLMMEM_PRINTF(3, 4);

static llmmem_status model_fail(const builder *b, llmmem_status st, const char *fmt, ...)
{
    char what[LLMMEM_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return llmmem__fail(st, "%.*s: %s", SHOWN, b->src, what);
}

/* <arch>.<suffix>: *present 0 when absent; the value when an integer >= 0 that does not vary
 * between layers; a failure naming the key otherwise. */
static llmmem_status get(const builder *b, enum field_id id, int64_t *value, int *present)
{
    const field *f = &b->g->f[b->arch][id];
    const char *arch = arch_name(b->arch), *name = field_suffix[id];
    *present = f->present;
    *value = 0;
    if (!f->present)
        return LLMMEM_OK;
    if (f->is_array && int_type(f->type) && f->items > 0 && !f->is_int)
        return model_fail(b, LLMMEM_ERR_UNSUPPORTED, "%s.%s %s, which is not modelled (at byte %llu)", arch, name,
                          id == K_SLIDING_PATTERN ? "makes no 'every n-th layer is global' pattern"
                                                  : "differs between layers",
                          (unsigned long long)f->at);
    if (!f->is_int)
        return model_fail(b, LLMMEM_ERR_PARSE, "%s.%s is %s %s%s, not an integer (at byte %llu)", arch, name,
                          f->is_array ? "an array of" : "a", value_type_name(f->type),
                          f->is_array && f->items == 0 ? " (empty)" : "", (unsigned long long)f->at);
    if (f->big || f->num < 0)
        return model_fail(b, LLMMEM_ERR_OUT_OF_RANGE, "%s.%s is %s%lld (at byte %llu)", arch, name,
                          f->big ? "above " : "", (long long)f->num, (unsigned long long)f->at);
    *value = f->num;
    return LLMMEM_OK;
}

static llmmem_status require(const builder *b, enum field_id id, int64_t *value)
{
    int present;
    llmmem_status st = get(b, id, value, &present);
    if (!st && !present)
        return model_fail(b, LLMMEM_ERR_PARSE, "%s.%s is missing", arch_name(b->arch), field_suffix[id]);
    return st;
}

/* Sets a key through the public setter, so its bounds apply; a failure names the GGUF key. */
static llmmem_status set(const builder *b, llmmem_model *m, llmmem_key key, int64_t value, const char *gguf_key)
{
    llmmem_status st = llmmem_model_set_int(m, key, value);
    if (st) {
        char prefix[SHOWN + 96];
        if (gguf_key[0] == '.')
            snprintf(prefix, sizeof prefix, "%.*s: %s%s", SHOWN, b->src, arch_name(b->arch), gguf_key);
        else
            snprintf(prefix, sizeof prefix, "%.*s: %s", SHOWN, b->src, gguf_key);
        return llmmem__fail_prefixed(st, prefix);
    }
    return LLMMEM_OK;
}

/* The dtype the unquantized matrices are stored in (1-D tensors are F32 in every llama.cpp file
 * type, llama.h llama_ftype "except 1d tensors", so they say nothing); bf16 when all are quantized. */
static llmmem_format stored_dtype(const seen *s)
{
    const uint64_t *e = s->float_elements;
    if (e[2] && e[2] >= e[1] && e[2] >= e[0])
        return LLMMEM_FORMAT_BF16;
    if (e[1] && e[1] >= e[0])
        return LLMMEM_FORMAT_FP16;
    if (e[0])
        return LLMMEM_FORMAT_FP32;
    return LLMMEM_FORMAT_BF16;
}

/* gpt-oss, llama.cpp's LLM_ARCH_OPENAI_MOE (llama-model.cpp load_hparams: sliding_window required,
 * set_swa_pattern(2), so layer il slides when il % 2 == 0, as the family's pattern 2 says; load_tensors:
 * attn_sinks {n_head}, ffn_gate_inp.bias and the ffn_*_exps biases on every layer, experts of
 * expert_feed_forward_length). */
static llmmem_status describe_gpt_oss(llmmem_model *m, const builder *b, const seen *s, const int *has,
                                      const int64_t *v)
{
    llmmem_status st;
    if (!has[K_SLIDING_WINDOW] || v[K_SLIDING_WINDOW] == 0)
        return model_fail(b, LLMMEM_ERR_PARSE, "%s.attention.sliding_window is missing (llama.cpp requires it)",
                          arch_name(b->arch));
    if (v[K_EXPERTS] == 0)
        return model_fail(b, LLMMEM_ERR_PARSE, "%s.expert_count is missing: every gpt-oss layer is a mixture of "
                          "experts", arch_name(b->arch));
    if ((st = set(b, m, LLMMEM_KEY_MLP_BIAS, s->mlp_bias || s->exps_bias, "blk.N.ffn_{gate,up,down}_exps.bias")) ||
        (st = set(b, m, LLMMEM_KEY_ROUTER_BIAS, s->router_bias, "blk.N.ffn_gate_inp.bias")) ||
        (st = set(b, m, LLMMEM_KEY_ATTENTION_SINKS, s->attn_sinks, "blk.N.attn_sinks.weight")) ||
        (st = set(b, m, LLMMEM_KEY_FIRST_K_DENSE_REPLACE, 0, ".expert_count")) ||
        (st = set(b, m, LLMMEM_KEY_MOE_LAYER_FREQ, 1, ".expert_count")))
        return st;
    if (has[K_EXPERT_FFN] && (st = set(b, m, LLMMEM_KEY_INTERMEDIATE_SIZE, v[K_EXPERT_FFN], ".expert_feed_forward_length")))
        return st;
    return LLMMEM_OK;
}

/* Qwen3-Next, llama.cpp's qwen3next (llama-model.cpp load_hparams: ssm.* keys, layer il recurrent unless
 * (il + 1) % full_attention_interval == 0, the interval 4 when absent; convert_hf_to_gguf.py
 * Qwen3NextModel: state_size = linear_key_head_dim, group_count = linear_num_key_heads, time_step_rank =
 * linear_num_value_heads, inner_size = linear_value_head_dim * linear_num_value_heads). */
static llmmem_status describe_qwen3next(llmmem_model *m, const builder *b, const int *has, const int64_t *v)
{
    const char *arch = arch_name(b->arch);
    int64_t conv, inner, state, dt_rank, groups;
    llmmem_status st;
    if ((st = require(b, K_SSM_CONV, &conv)) || (st = require(b, K_SSM_INNER, &inner)) ||
        (st = require(b, K_SSM_STATE, &state)) || (st = require(b, K_SSM_DT_RANK, &dt_rank)) ||
        (st = require(b, K_SSM_GROUPS, &groups)))
        return st;
    if (dt_rank == 0 || inner % dt_rank != 0)
        return model_fail(b, LLMMEM_ERR_PARSE, "%s.ssm.inner_size (%lld) is not a multiple of %s.ssm.time_step_rank "
                          "(%lld), the value heads", arch, (long long)inner, arch, (long long)dt_rank);
    int64_t interval = has[K_FULL_ATTN_INTERVAL] ? v[K_FULL_ATTN_INTERVAL] : 4;
    if ((st = set(b, m, LLMMEM_KEY_LINEAR_CONV_KERNEL_DIM, conv, ".ssm.conv_kernel")) ||
        (st = set(b, m, LLMMEM_KEY_LINEAR_KEY_HEAD_DIM, state, ".ssm.state_size")) ||
        (st = set(b, m, LLMMEM_KEY_LINEAR_NUM_KEY_HEADS, groups, ".ssm.group_count")) ||
        (st = set(b, m, LLMMEM_KEY_LINEAR_NUM_VALUE_HEADS, dt_rank, ".ssm.time_step_rank")) ||
        (st = set(b, m, LLMMEM_KEY_LINEAR_VALUE_HEAD_DIM, inner / dt_rank, ".ssm.inner_size")) ||
        (st = set(b, m, LLMMEM_KEY_FULL_ATTENTION_INTERVAL, interval, ".full_attention_interval")))
        return st;
    /* llama-model.cpp load_tensors: the shared expert is n_ff_shexp wide, else n_ff */
    if (v[K_EXPERTS] > 0 && !has[K_SHARED_FFN] && has[K_FFN] &&
        (st = set(b, m, LLMMEM_KEY_SHARED_EXPERT_INTERMEDIATE_SIZE, v[K_FFN], ".feed_forward_length")))
        return st;
    return LLMMEM_OK;
}

/* ---- the Mamba-2 families (llama.cpp mamba2, nemotron_h, granitehybrid) ---------------------- */

/* The Mamba-2 mixer from llama.cpp's ssm.* keys (llama-model.cpp load_hparams, LLM_ARCH_MAMBA2 and the
 * hybrids: ssm_d_conv, ssm_d_inner, ssm_d_state, ssm_dt_rank = the heads, ssm_n_group) and the tensors
 * (load_tensors: ssm_conv1d.bias, ssm_in.bias / ssm_out.bias when the model has them). */
static llmmem_status describe_mamba2_mixer(llmmem_model *m, const builder *b, const seen *s)
{
    const char *arch = arch_name(b->arch);
    int64_t conv, inner, state, heads, groups;
    llmmem_status st;
    if ((st = require(b, K_SSM_CONV, &conv)) || (st = require(b, K_SSM_INNER, &inner)) ||
        (st = require(b, K_SSM_STATE, &state)) || (st = require(b, K_SSM_DT_RANK, &heads)) ||
        (st = require(b, K_SSM_GROUPS, &groups)))
        return st;
    if (heads == 0 || inner % heads != 0)
        return model_fail(b, LLMMEM_ERR_PARSE, "%s.ssm.inner_size (%lld) is not a multiple of %s.ssm.time_step_rank "
                          "(%lld), the heads", arch, (long long)inner, arch, (long long)heads);
    if ((st = set(b, m, LLMMEM_KEY_MAMBA_NUM_HEADS, heads, ".ssm.time_step_rank")) ||
        (st = set(b, m, LLMMEM_KEY_MAMBA_HEAD_DIM, inner / heads, ".ssm.inner_size")) ||
        (st = set(b, m, LLMMEM_KEY_SSM_STATE_SIZE, state, ".ssm.state_size")) ||
        (st = set(b, m, LLMMEM_KEY_MAMBA_N_GROUPS, groups, ".ssm.group_count")) ||
        (st = set(b, m, LLMMEM_KEY_MAMBA_D_CONV, conv, ".ssm.conv_kernel")) ||
        (st = set(b, m, LLMMEM_KEY_MAMBA_CONV_BIAS, s->ssm_conv_bias, "blk.N.ssm_conv1d.bias")) ||
        (st = set(b, m, LLMMEM_KEY_MAMBA_PROJ_BIAS, s->ssm_proj_bias, "blk.N.ssm_in.bias")))
        return st;
    return LLMMEM_OK;
}

/* head_count_kv or feed_forward_length layer by layer, as llama_model_loader::get_key_or_arr reads it:
 * one value for every layer, or an array of block_count items; 0 when absent. */
typedef struct per_layer {
    int64_t scalar;
    const int64_t *items;
} per_layer;

static llmmem_status per_layer_open(const builder *b, enum field_id id, int64_t layers, per_layer *p)
{
    const field *f = &b->g->f[b->arch][id];
    const char *arch = arch_name(b->arch), *name = field_suffix[id];
    int present;
    p->scalar = 0;
    p->items = NULL;
    if (!f->present || !f->is_array)
        return get(b, id, &p->scalar, &present);
    if (!int_type(f->type))
        return model_fail(b, LLMMEM_ERR_PARSE, "%s.%s is an array of %s, not of integers (at byte %llu)", arch, name,
                          value_type_name(f->type), (unsigned long long)f->at);
    if (f->items != (uint64_t)layers)
        return model_fail(b, LLMMEM_ERR_PARSE, "%s.%s has %llu items, but %s.block_count is %lld (at byte %llu)", arch,
                          name, (unsigned long long)f->items, arch, (long long)layers, (unsigned long long)f->at);
    if (b->g->per_layer_of[id == K_FFN] != f)
        return model_fail(b, LLMMEM_ERR_UNSUPPORTED, "%s.%s: per-layer arrays of two architectures are not read", arch,
                          name);
    p->items = b->g->per_layer[id == K_FFN];
    for (int64_t i = 0; i < layers; i++)
        if (p->items[i] < 0)
            return model_fail(b, LLMMEM_ERR_OUT_OF_RANGE, "%s.%s[%lld] is not an integer >= 0 (at byte %llu)", arch,
                              name, (long long)i, (unsigned long long)f->at);
    return LLMMEM_OK;
}

static int64_t per_layer_at(const per_layer *p, int64_t i)
{
    return p->items ? p->items[i] : p->scalar;
}

/* The layers of nemotron_h and granitehybrid from the per-layer head_count_kv and feed_forward_length, as
 * llama-model.cpp load_hparams marks them recurrent: nemotron_h when n_head_kv(il) == 0 && n_ff(il) == 0
 * (an attention layer has KV heads and no n_ff, an MLP layer n_ff and no KV heads), granitehybrid when
 * n_head_kv(il) == 0 (every layer keeps its feed-forward). pattern: 'M', '*' and '-' per layer
 * (llmmem__layer_map_from_pattern); *kv and *ff: the one value of the attention and MLP layers. */
static llmmem_status hybrid_layers(const builder *b, int nemotron, int64_t layers, char *pattern, int64_t *kv,
                                   int *has_kv, int64_t *ff, int *has_ff)
{
    const char *arch = arch_name(b->arch);
    per_layer pk, pf;
    llmmem_status st;
    if (layers > LLMMEM_LAYER_MAP_MAX)
        return model_fail(b, LLMMEM_ERR_UNSUPPORTED, "%s.block_count %lld: more than %d layers are not modelled",
                          arch, (long long)layers, LLMMEM_LAYER_MAP_MAX);
    if ((st = per_layer_open(b, K_KV_HEADS, layers, &pk)) || (st = per_layer_open(b, K_FFN, layers, &pf)))
        return st;
    *kv = *ff = 0;
    *has_kv = *has_ff = 0;
    for (int64_t i = 0; i < layers; i++) {
        int64_t k = per_layer_at(&pk, i), f = per_layer_at(&pf, i);
        if (nemotron && k > 0 && f > 0)
            return model_fail(b, LLMMEM_ERR_UNSUPPORTED, "layer %lld has both KV heads (%s.attention.head_count_kv) "
                              "and %s.feed_forward_length: a nemotron_h block is Mamba-2, attention or MLP",
                              (long long)i, arch, arch);
        if (k > 0 && *has_kv && k != *kv)
            return model_fail(b, LLMMEM_ERR_UNSUPPORTED, "%s.attention.head_count_kv differs between attention layers "
                              "(%lld and %lld), which is not modelled", arch, (long long)*kv, (long long)k);
        if (f > 0 && *has_ff && f != *ff)
            return model_fail(b, LLMMEM_ERR_UNSUPPORTED, "%s.feed_forward_length differs between layers (%lld and "
                              "%lld), which is not modelled", arch, (long long)*ff, (long long)f);
        if (k > 0)
            *kv = k, *has_kv = 1;
        if (f > 0)
            *ff = f, *has_ff = 1;
        pattern[i] = k > 0 ? '*' : nemotron && f > 0 ? '-' : 'M';
    }
    pattern[layers] = '\0';
    return LLMMEM_OK;
}

static llmmem_status set_layer_pattern(llmmem_model *m, const builder *b, const char *pattern, int feed_forward)
{
    llmmem__layer_map map;
    char why[LLMMEM_MESSAGE_MAX];
    if (!llmmem__layer_map_from_pattern(&map, pattern, strlen(pattern), feed_forward, why, sizeof why))
        return model_fail(b, LLMMEM_ERR_UNSUPPORTED, "%s: %s", arch_name(b->arch), why);
    llmmem__model_set_layer_map(m, &map);
    return LLMMEM_OK;
}

static llmmem_status describe(llmmem_model *m, const builder *b, const seen *s)
{
    const meta *g = b->g;
    const char *arch = arch_name(b->arch);
    int64_t v[N_FIELDS] = {0};
    int has[N_FIELDS] = {0};
    llmmem_status st = LLMMEM_OK;
    const llmmem_model_type family = arch_type(b->arch);
    /* llama.cpp's Mamba-2 hybrids give head_count_kv and feed_forward_length layer by layer */
    const int hybrid = family == LLMMEM_MODEL_NEMOTRON_H || family == LLMMEM_MODEL_GRANITEMOEHYBRID;
    for (unsigned k = 0; k < N_FIELDS && !st; k++)
        if (!(hybrid && (k == K_KV_HEADS || k == K_FFN)))
            st = get(b, (enum field_id)k, &v[k], &has[k]);
    if (st)
        return st;
    char pattern[LLMMEM_LAYER_MAP_MAX + 1];

    /* llama-model.cpp load_hparams: <arch>.vocab_size, else the length of tokenizer.ggml.tokens */
    int64_t vocab = v[K_VOCAB];
    if (!has[K_VOCAB]) {
        if (!g->tokens.present)
            return model_fail(b, LLMMEM_ERR_PARSE, "neither %s.vocab_size nor tokenizer.ggml.tokens gives the "
                              "vocabulary size", arch);
        if (!g->tokens.is_array)
            return model_fail(b, LLMMEM_ERR_PARSE, "tokenizer.ggml.tokens is a %s, not an array (at byte %llu)",
                              value_type_name(g->tokens.type), (unsigned long long)g->tokens.at);
        vocab = g->tokens.items > INT64_MAX ? INT64_MAX : (int64_t)g->tokens.items;
    }
    int64_t layers, hidden, heads = 0;
    if ((st = require(b, K_BLOCK_COUNT, &layers)) || (st = require(b, K_EMBEDDING, &hidden)))
        return st;
    if (family == LLMMEM_MODEL_MAMBA2) {
        /* llama-model.cpp LLM_ARCH_MAMBA2: every layer attn_norm and the Mamba-2 mixer, no attention and no
         * feed-forward (convert_hf_to_gguf.py Mamba2Model writes head_count and feed_forward_length 0) */
        if (layers > LLMMEM_LAYER_MAP_MAX)
            return model_fail(b, LLMMEM_ERR_UNSUPPORTED, "%s.block_count %lld: more than %d layers are not modelled",
                              arch, (long long)layers, LLMMEM_LAYER_MAP_MAX);
        memset(pattern, 'M', (size_t)layers);
        pattern[layers] = '\0';
        if ((st = set(b, m, LLMMEM_KEY_MODEL_TYPE, family, "general.architecture")) ||
            (st = set(b, m, LLMMEM_KEY_NUM_HIDDEN_LAYERS, layers, ".block_count")) ||
            (st = set(b, m, LLMMEM_KEY_HIDDEN_SIZE, hidden, ".embedding_length")) ||
            (st = set(b, m, LLMMEM_KEY_VOCAB_SIZE, vocab, has[K_VOCAB] ? ".vocab_size" : "tokenizer.ggml.tokens")) ||
            (st = describe_mamba2_mixer(m, b, s)) ||
            (st = set(b, m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS, !s->has_output, "output.weight")) ||
            (st = set(b, m, LLMMEM_KEY_TORCH_DTYPE, stored_dtype(s), "the tensors' float type")) ||
            (st = set_layer_pattern(m, b, pattern, 0)))
            return st;
        goto check;
    }
    if ((st = require(b, K_HEADS, &heads)))
        return st;
    if (hybrid && (st = hybrid_layers(b, family == LLMMEM_MODEL_NEMOTRON_H, layers, pattern, &v[K_KV_HEADS],
                                      &has[K_KV_HEADS], &v[K_FFN], &has[K_FFN])))
        return st;
    if (has[K_NEXTN]) { /* multi-token-prediction layers counted in block_count */
        if (v[K_NEXTN] >= layers)
            return model_fail(b, LLMMEM_ERR_PARSE, "%s.nextn_predict_layers (%lld) is not below %s.block_count (%lld)",
                              arch, (long long)v[K_NEXTN], arch, (long long)layers);
        layers -= v[K_NEXTN];
    }
    int64_t experts = v[K_EXPERTS];
    if (experts > 0 && !has[K_EXPERTS_USED])
        return model_fail(b, LLMMEM_ERR_PARSE, "%s.expert_used_count is missing (%s.expert_count is %lld)", arch, arch,
                          (long long)experts);
    /* the dense MLP's width is needed for dense layers, and for experts without a width of their own */
    if ((experts == 0 || v[K_LEADING_DENSE] > 0 || !has[K_EXPERT_FFN]) && !has[K_FFN])
        return model_fail(b, LLMMEM_ERR_PARSE, "%s.feed_forward_length is missing", arch);
    if (arch_type(b->arch) == LLMMEM_MODEL_GPT2 && !has[K_CONTEXT]) /* the learned position table's rows */
        return model_fail(b, LLMMEM_ERR_PARSE, "%s.context_length is missing", arch);

    llmmem_model_type type = arch_type(b->arch);
    if (type == LLMMEM_MODEL_LLAMA && experts > 0)
        type = LLMMEM_MODEL_MIXTRAL; /* convert_hf_to_gguf.py writes Mixtral as llama with experts */
    if (type == LLMMEM_MODEL_DEEPSEEK_V2 && s->exp_probs_b)
        type = LLMMEM_MODEL_DEEPSEEK_V3;

    if ((st = set(b, m, LLMMEM_KEY_MODEL_TYPE, type, "general.architecture")) ||
        (st = set(b, m, LLMMEM_KEY_NUM_HIDDEN_LAYERS, layers, ".block_count")) ||
        (st = set(b, m, LLMMEM_KEY_HIDDEN_SIZE, hidden, ".embedding_length")) ||
        (st = set(b, m, LLMMEM_KEY_NUM_ATTENTION_HEADS, heads, ".attention.head_count")) ||
        (st = set(b, m, LLMMEM_KEY_VOCAB_SIZE, vocab, has[K_VOCAB] ? ".vocab_size" : "tokenizer.ggml.tokens")))
        return st;
    if (has[K_FFN] && (st = set(b, m, LLMMEM_KEY_INTERMEDIATE_SIZE, v[K_FFN], ".feed_forward_length")))
        return st;
    if (has[K_CONTEXT] && (st = set(b, m, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, v[K_CONTEXT], ".context_length")))
        return st;

    if (v[K_KV_LORA] > 0) {
        /* Multi-head latent attention (deepseek2). convert_hf_to_gguf.py DeepseekV2Model writes the
         * per-head widths as key_length_mla / value_length_mla (older files: key_length /
         * value_length) and qk_rope_head_dim as rope.dimension_count; head_count_kv and
         * key_length then describe llama.cpp's MQA form of the cache, not the weights. */
        int64_t rope, k, vdim;
        if ((st = require(b, K_ROPE_DIMS, &rope)) ||
            (st = require(b, has[K_KEY_LENGTH_MLA] ? K_KEY_LENGTH_MLA : K_KEY_LENGTH, &k)) ||
            (st = require(b, has[K_VALUE_LENGTH_MLA] ? K_VALUE_LENGTH_MLA : K_VALUE_LENGTH, &vdim)))
            return st;
        const char *kname = has[K_KEY_LENGTH_MLA] ? ".attention.key_length_mla" : ".attention.key_length";
        if (k <= rope)
            return model_fail(b, LLMMEM_ERR_PARSE, "%s%s (%lld) does not exceed %s.rope.dimension_count (%lld)", arch,
                              kname, (long long)k, arch, (long long)rope);
        if ((st = set(b, m, LLMMEM_KEY_KV_LORA_RANK, v[K_KV_LORA], ".attention.kv_lora_rank")) ||
            (st = set(b, m, LLMMEM_KEY_Q_LORA_RANK, v[K_Q_LORA], ".attention.q_lora_rank")) ||
            (st = set(b, m, LLMMEM_KEY_QK_ROPE_HEAD_DIM, rope, ".rope.dimension_count")) ||
            (st = set(b, m, LLMMEM_KEY_QK_NOPE_HEAD_DIM, k - rope, kname)) ||
            (st = set(b, m, LLMMEM_KEY_V_HEAD_DIM, vdim,
                      has[K_VALUE_LENGTH_MLA] ? ".attention.value_length_mla" : ".attention.value_length")))
            return st;
    } else {
        if (has[K_KV_HEADS] && (st = set(b, m, LLMMEM_KEY_NUM_KEY_VALUE_HEADS, v[K_KV_HEADS], ".attention.head_count_kv")))
            return st;
        if (has[K_KEY_LENGTH] && (st = set(b, m, LLMMEM_KEY_HEAD_DIM, v[K_KEY_LENGTH], ".attention.key_length")))
            return st;
        /* docs/gguf.md: key_length and value_length default to embedding_length / head_count */
        int64_t k = has[K_KEY_LENGTH] ? v[K_KEY_LENGTH] : heads ? hidden / heads : 0;
        if (has[K_VALUE_LENGTH] && v[K_VALUE_LENGTH] != k)
            return model_fail(b, LLMMEM_ERR_UNSUPPORTED,
                              "%s.attention.value_length (%lld) differs from the key length (%lld), which is not "
                              "modelled",
                              arch, (long long)v[K_VALUE_LENGTH], (long long)k);
    }

    if (experts > 0) {
        if ((st = set(b, m, LLMMEM_KEY_NUM_EXPERTS, experts, ".expert_count")) ||
            (st = set(b, m, LLMMEM_KEY_NUM_EXPERTS_PER_TOK, v[K_EXPERTS_USED], ".expert_used_count")))
            return st;
        if (has[K_EXPERT_FFN] &&
            (st = set(b, m, LLMMEM_KEY_MOE_INTERMEDIATE_SIZE, v[K_EXPERT_FFN], ".expert_feed_forward_length")))
            return st;
        if (has[K_SHARED_FFN] && (st = set(b, m, LLMMEM_KEY_SHARED_EXPERT_INTERMEDIATE_SIZE, v[K_SHARED_FFN],
                                           ".expert_shared_feed_forward_length")))
            return st;
        if (has[K_SHARED_COUNT] &&
            (st = set(b, m, LLMMEM_KEY_N_SHARED_EXPERTS, v[K_SHARED_COUNT], ".expert_shared_count")))
            return st;
        if (has[K_LEADING_DENSE] &&
            (st = set(b, m, LLMMEM_KEY_FIRST_K_DENSE_REPLACE, v[K_LEADING_DENSE], ".leading_dense_block_count")))
            return st;
    }
    if (v[K_SLIDING_WINDOW] > 0 && (st = set(b, m, LLMMEM_KEY_SLIDING_WINDOW, v[K_SLIDING_WINDOW],
                                              ".attention.sliding_window")))
        return st;
    if (has[K_SLIDING_PATTERN] && (st = set(b, m, LLMMEM_KEY_SLIDING_WINDOW_PATTERN, v[K_SLIDING_PATTERN],
                                             ".attention.sliding_window_pattern")))
        return st;

    /* llama-model.cpp load_hparams, olmo2: a sliding window (OLMo 3) slides every layer but each 4th
     * (set_swa_pattern(4)) */
    if (type == LLMMEM_MODEL_OLMO2 && v[K_SLIDING_WINDOW] > 0 &&
        (st = set(b, m, LLMMEM_KEY_SLIDING_WINDOW_PATTERN, 4, ".attention.sliding_window")))
        return st;
    /* llama-model.cpp load_hparams, cohere2: sliding_window required, set_swa_pattern(4) (the family's) */
    if (type == LLMMEM_MODEL_COHERE2 && v[K_SLIDING_WINDOW] == 0)
        return model_fail(b, LLMMEM_ERR_PARSE, "%s.attention.sliding_window is missing (llama.cpp requires it)", arch);
    /* llama-model.cpp load_hparams, exaone4: only the 64-layer model (32B) slides, 4096 tokens unless
     * sliding_window says otherwise, set_swa_pattern(4); the others have no window, whatever the key says */
    if (type == LLMMEM_MODEL_EXAONE4) {
        int swa = layers == 64;
        if ((st = set(b, m, LLMMEM_KEY_SLIDING_WINDOW, swa ? (v[K_SLIDING_WINDOW] > 0 ? v[K_SLIDING_WINDOW] : 4096) : 0,
                      ".attention.sliding_window")) ||
            (swa && (st = set(b, m, LLMMEM_KEY_SLIDING_WINDOW_PATTERN, 4, ".block_count"))))
            return st;
    }

    /* What the tensors show: biases, per-head q/k norms, a stored LM head, Falcon's second norm. */
    if ((st = set(b, m, LLMMEM_KEY_QKV_BIAS, s->qkv_bias, "blk.N.attn_{q,k,v,qkv}.bias")) ||
        (st = set(b, m, LLMMEM_KEY_O_PROJ_BIAS, s->o_bias, "blk.N.attn_output.bias")) ||
        (st = set(b, m, LLMMEM_KEY_MLP_BIAS, s->mlp_bias, "blk.N.ffn_{up,down}.bias")) ||
        (st = set(b, m, LLMMEM_KEY_QK_NORM, s->qk_norm, "blk.N.attn_{q,k}_norm.weight")) ||
        (st = set(b, m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS, !s->has_output, "output.weight")) ||
        (st = set(b, m, LLMMEM_KEY_TORCH_DTYPE, stored_dtype(s), "the tensors' float type")))
        return st;
    if (type == LLMMEM_MODEL_GPT_OSS && (st = describe_gpt_oss(m, b, s, has, v)))
        return st;
    if (type == LLMMEM_MODEL_QWEN3_NEXT && (st = describe_qwen3next(m, b, has, v)))
        return st;
    if (family == LLMMEM_MODEL_GRANITEMOEHYBRID) {
        /* convert_hf_to_gguf.py GraniteHybridModel (GraniteMoeModel): the experts are feed_forward_length
         * wide beside a shared expert of expert_shared_feed_forward_length (llama-model.cpp load_tensors,
         * granitehybrid: ffn_*_exps and ffn_*_shexp on every layer) */
        if (experts == 0)
            return model_fail(b, LLMMEM_ERR_UNSUPPORTED, "%s.expert_count is 0: a Granite 4.0-H file without experts "
                              "is not read", arch);
        if (!has[K_SHARED_FFN])
            return model_fail(b, LLMMEM_ERR_PARSE, "%s.expert_shared_feed_forward_length is missing", arch);
        if ((!has[K_EXPERT_FFN] &&
             (st = set(b, m, LLMMEM_KEY_MOE_INTERMEDIATE_SIZE, v[K_FFN], ".feed_forward_length"))) ||
            (st = set(b, m, LLMMEM_KEY_FIRST_K_DENSE_REPLACE, 0, ".expert_count")) ||
            (st = set(b, m, LLMMEM_KEY_MOE_LAYER_FREQ, 1, ".expert_count")))
            return st;
    }
    if (hybrid && ((st = describe_mamba2_mixer(m, b, s)) ||
                   (st = set_layer_pattern(m, b, pattern, family == LLMMEM_MODEL_GRANITEMOEHYBRID))))
        return st;
    /* llama.cpp falcon: attn_norm, and attn_norm_2 under new_decoder_architecture (Falcon-40B) */
    if (type == LLMMEM_MODEL_FALCON &&
        (st = set(b, m, LLMMEM_KEY_NORMS_PER_LAYER, s->attn_norm_2 ? 2 : 1, "blk.N.attn_norm_2.weight")))
        return st;

check:
    st = llmmem__model_check(m);
    if (st) {
        char prefix[SHOWN + 64];
        snprintf(prefix, sizeof prefix, "%.*s: the model %s describes", SHOWN, b->src, arch);
        return llmmem__fail_prefixed(st, prefix);
    }
    return LLMMEM_OK;
}

/* The model the metadata describes; the message names the key at fault when there is none. */
static llmmem_status build_model(llmmem_model **out, const meta *g, const seen *s, const char *src)
{
    *out = NULL;
    if (!g->arch_present)
        return llmmem__fail(LLMMEM_ERR_PARSE, "%.*s: general.architecture is missing", SHOWN, src);
    if (g->arch_type != V_STRING)
        return llmmem__fail(LLMMEM_ERR_PARSE, "%.*s: general.architecture is a %s, not a string (at byte %llu)", SHOWN,
                            src, value_type_name(g->arch_type), (unsigned long long)g->arch_at);
    size_t a = 0;
    while (a < N_ARCHS && (g->arch_long || !arch_name(a) || strcmp(arch_name(a), g->arch) != 0))
        a++;
    if (a == N_ARCHS) {
        char known[256];
        size_t n = 0;
        known[0] = '\0';
        for (size_t i = 0; i < N_ARCHS && n < sizeof known; i++)
            if (arch_name(i))
                n += (size_t)snprintf(known + n, sizeof known - n, "%s%s", n ? ", " : "", arch_name(i));
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "%.*s: general.architecture '%s%s' is not modelled (known: %s)",
                            SHOWN, src, g->arch, g->arch_long ? "..." : "", known);
    }
    builder b = {g, a, src};
    llmmem_model *m;
    llmmem_status st = llmmem_model_new(&m);
    if (st)
        return st;
    st = describe(m, &b, s);
    if (st) {
        llmmem_model_free(m);
        return st;
    }
    *out = m;
    return LLMMEM_OK;
}

/* ---- the header --------------------------------------------------------------------------- */

/* Magic, version and the two counts, each count checked against the bytes after it. */
static int read_header(cursor *c, uint64_t *n_tensors, uint64_t *n_kv)
{
    uint8_t magic[4];
    uint32_t version;
    if (!rd(c, magic, 4, "the magic"))
        return 0;
    if (memcmp(magic, "GGUF", 4) != 0) /* a file that is not GGUF: none of its bytes in the message */
        return fail_at(c, LLMMEM_ERR_PARSE, 0, "not a GGUF file (its first 4 bytes are not \"GGUF\")");
    if (!rd_u32(c, &version, "the version"))
        return 0;
    /* gguf.cpp: version 0 is invalid, a version with zero low half is a byte-swapped (big-endian)
     * file, version 1 is no longer read, above 3 is newer than the format known here */
    if (version == 0)
        return fail_at(c, LLMMEM_ERR_PARSE, 4, "GGUF version 0 is invalid");
    if ((version & 0xffffu) == 0)
        return fail_at(c, LLMMEM_ERR_UNSUPPORTED, 4,
                       "GGUF version %u: a big-endian file (version %u byte-swapped), which is not read", version,
                       version >> 24 | (version >> 8 & 0xff00u));
    if (version == 1)
        return fail_at(c, LLMMEM_ERR_PARSE, 4,
                       "GGUF version 1 is no longer supported (ggml reads versions 2 and 3); convert the model again");
    if (version > 3)
        return fail_at(c, LLMMEM_ERR_UNSUPPORTED, 4, "GGUF version %u is newer than the versions read (2 and 3)",
                       version);
    if (!rd_u64(c, n_tensors, "the tensor count") || !rd_u64(c, n_kv, "the metadata count"))
        return 0;
    /* a pair takes at least 8 + 1 + 4 + 1 bytes, a tensor info 8 + 4 + 4 + 8 */
    uint64_t rest = left(c);
    if (*n_kv > rest / 14)
        return fail_at(c, LLMMEM_ERR_PARSE, 16,
                       "metadata count %llu exceeds the file: the %llu bytes after the counts hold at most %llu pairs",
                       (unsigned long long)*n_kv, (unsigned long long)rest, (unsigned long long)(rest / 14));
    if (*n_tensors > (rest - *n_kv * 14) / 24)
        return fail_at(c, LLMMEM_ERR_PARSE, 8,
                       "tensor count %llu exceeds the file: the %llu bytes after the counts hold at most %llu tensor "
                       "infos beside %llu pairs",
                       (unsigned long long)*n_tensors, (unsigned long long)rest,
                       (unsigned long long)((rest - *n_kv * 14) / 24), (unsigned long long)*n_kv);
    return 1;
}

/* The file holds every tensor's data: the data section starts at the end of the tensor infos
 * padded to general.alignment (docs/gguf.md "Padding ... to ALIGNMENT" before tensor_data), and
 * each tensor's offset + bytes must lie within the file, as llama.cpp's loader requires
 * (src/llama-model-loader.h llama_tensor_weight: "tensor '%s' data is not within the file
 * bounds, model is corrupted or incomplete"). The offsets are those read_tensors checked: each
 * the padded end of the one before. Bytes after the last tensor are allowed, as there. */
static llmmem_status check_data(const cursor *c, const struct llmmem_checkpoint *ck, uint64_t alignment)
{
    uint64_t start, offset = 0;
    if (!llmmem__add(&start, c->pos, (alignment - c->pos % alignment) % alignment))
        start = UINT64_MAX;
    for (size_t i = 0; i < ck->n_tensors; i++) {
        const llmmem__ck_tensor *t = &ck->tensors[i];
        uint64_t begin, end;
        if (!llmmem__add(&begin, start, offset))
            begin = end = UINT64_MAX;
        else if (!llmmem__add(&end, begin, t->bytes))
            end = UINT64_MAX;
        if (end > c->size)
            return llmmem__fail(LLMMEM_ERR_PARSE,
                                "%.*s: tensor '%s' needs data bytes [%llu, %llu), past the end of the file (%llu "
                                "bytes): the tensor data is missing or truncated",
                                SHOWN, c->src, t->name, (unsigned long long)begin, (unsigned long long)end,
                                (unsigned long long)c->size);
        /* end <= size < 2^63 and the padding is below 2^32: no overflow */
        offset += t->bytes + (alignment - t->bytes % alignment) % alignment;
    }
    return LLMMEM_OK;
}

/* Qwen3-Next files from llama.cpp's newer converter split a linear-attention layer's in_proj_qkvz into
 * blk.N.attn_qkv and blk.N.attn_gate (llama-model.cpp load_tensors, qwen3next: wqkv, wqkv_gate beside
 * ssm_conv1d): in a layer with ssm_conv1d they are the Gated DeltaNet mixer's, not attention. */
static void regroup_linear_attention(struct llmmem_checkpoint *ck)
{
    for (size_t i = 0; i < ck->n_tensors; i++) {
        const char *name = ck->tensors[i].name;
        unsigned layer;
        int end = 0;
        char rest[GGUF_MAX_NAME + 1], conv[GGUF_MAX_NAME + 16];
        if (sscanf(name, "blk.%u.%64s%n", &layer, rest, &end) != 2 || name[end] != '\0' ||
            (strcmp(rest, "attn_qkv.weight") != 0 && strcmp(rest, "attn_gate.weight") != 0))
            continue;
        snprintf(conv, sizeof conv, "blk.%u.ssm_conv1d.weight", layer);
        if (llmmem__ck_find(ck, conv, strlen(conv), NULL))
            llmmem__ck_set_group(ck, i, LLMMEM_PARAMS_SSM);
    }
}

static llmmem_status parse(llmmem_checkpoint **out, cursor *c)
{
    uint64_t n_tensors = 0, n_kv = 0;
    if (!read_header(c, &n_tensors, &n_kv))
        return c->st;

    meta *g = calloc(1, sizeof *g);
    if (!g)
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "%.*s: out of memory", SHOWN, c->src);
    g->alignment = GGUF_DEFAULT_ALIGNMENT;
    struct llmmem_checkpoint *ck = NULL;
    seen s;
    memset(&s, 0, sizeof s);
    llmmem_status st = LLMMEM_OK;
    if (!read_metadata(c, g, n_kv))
        st = c->st;
    else if ((st = llmmem__ck_new(&ck, 2)) == LLMMEM_OK && !read_tensors(c, g, ck, &s, n_tensors))
        st = c->st;
    else if (c->f) /* a file holds its data; bytes in memory are the start of a file only */
        st = check_data(c, ck, g->alignment);
    if (st == LLMMEM_OK && g->arch_present && !g->arch_long && strcmp(g->arch, "qwen3next") == 0)
        regroup_linear_attention(ck);
    if (st == LLMMEM_OK) {
        /* the byte sums stay usable without a model; llmmem_checkpoint_model reports why */
        llmmem_status model_st = build_model(&ck->model, g, &s, c->src);
        if (model_st) {
            ck->model_status = model_st;
            snprintf(ck->model_error, sizeof ck->model_error, "%s", llmmem_last_message());
        } else if (c->f) { /* named by the file's path, as a model read from a config.json is */
            llmmem__model_set_name(ck->model, c->src);
        }
    }
    free(g->keys);
    llmmem__nameset_free(&g->key_set);
    free(g->key_hash);
    free(g);
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
    cursor c = {data, NULL, size, 0, "<memory>", LLMMEM_OK, NULL, 0, 0};
    return parse(out, &c);
}

llmmem_status llmmem_checkpoint_from_gguf(llmmem_checkpoint **out, const char *path)
{
    LLMMEM_REQUIRE(out);
    *out = NULL;
    LLMMEM_REQUIRE(path);
    char shown[SHOWN + 1];
    snprintf(shown, sizeof shown, "%s", path);
    FILE *f;
    uint64_t size;
    llmmem_status st = llmmem__open_regular(&f, &size, path, shown);
    if (st)
        return st;
    setvbuf(f, NULL, _IONBF, 0); /* the cursor buffers */
    uint8_t *buf = malloc(READ_CHUNK);
    if (!buf) {
        fclose(f);
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "%s: out of memory", shown);
    }
    cursor c = {NULL, f, size, 0, path, LLMMEM_OK, buf, 0, 0};
    st = parse(out, &c);
    free(buf);
    fclose(f);
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
        return llmmem__fail(LLMMEM_ERR_NOT_FOUND, "a safetensors header read from memory describes no model: "
                            "read its config.json (llmmem_model_from_hf_config_text)");
    }
    return llmmem_model_clone(out, ck->model);
}
