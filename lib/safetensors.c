/* Safetensors reader: the tensors of a checkpoint from its file headers alone.
 *
 * Format (huggingface/safetensors README and safetensors/src/tensor.rs): 8 bytes, N, a
 * little-endian u64; N bytes of UTF-8 JSON, an object mapping each tensor name to
 * {"dtype", "shape", "data_offsets": [begin, end]} plus an optional "__metadata__" object of
 * strings; then the data. The reference reader rejects N above 100,000,000 (MAX_HEADER_SIZE,
 * "a limit on the size of the header of 100MB to prevent parsing extremely large JSON"),
 * duplicate keys, offsets that do not tile the data buffer from 0 without holes or overlaps,
 * end - begin other than elements x dtype bits / 8 (and element bits that are not whole bytes),
 * and a file whose length is not 8 + N + the end of the data. This reader applies the same rules.
 * It reads the first 8 + N bytes of each file with fread, never the data. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64
#endif

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "checkpoint.h"

/* safetensors/src/tensor.rs: const MAX_HEADER_SIZE: usize = 100_000_000 */
#define ST_MAX_HEADER 100000000ULL
/* The same cap for an index or config.json read whole. */
#define ST_MAX_JSON_FILE 100000000ULL
/* Characters of a name or path shown in a message, so that the problem itself fits. */
#define SHOWN 160

/* The dtypes of the reference implementation's Dtype enum (safetensors/src/tensor.rs on main,
 * as also listed by its Python binding): bits per element. */
static const struct st_dtype {
    const char *name;
    unsigned bits;
} st_dtypes[] = {
    {"BOOL", 8},         {"F4", 4},           {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"U8", 8},   {"I8", 8},
    {"F8_E5M2", 8},      {"F8_E4M3", 8},      {"F8_E8M0", 8}, {"F8_E4M3FNUZ", 8},         {"F8_E5M2FNUZ", 8},
    {"I16", 16},         {"U16", 16},         {"F16", 16},    {"BF16", 16},   {"I32", 32}, {"U32", 32},
    {"F32", 32},         {"C64", 64},         {"F64", 64},    {"I64", 64},    {"U64", 64},
};

static const struct st_dtype *find_dtype(const char *name)
{
    for (size_t i = 0; i < sizeof st_dtypes / sizeof st_dtypes[0]; i++)
        if (strcmp(st_dtypes[i].name, name) == 0)
            return &st_dtypes[i];
    return NULL;
}

/* The tail of a long path or name, so that messages keep the file name and the problem. */
static const char *tail(const char *s)
{
    size_t n = strlen(s);
    return n > SHOWN ? s + (n - SHOWN) : s;
}

static int shown_len(size_t n)
{
    return n > SHOWN ? SHOWN : (int)n;
}

static const char *json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "object";
    case JSON_ARRAY: return "array";
    case JSON_STRING: return "string";
    case JSON_INTEGER: return "integer";
    case JSON_REAL: return "real number";
    case JSON_TRUE:
    case JSON_FALSE: return "boolean";
    default: return "null";
    }
}

/* strerror is not required to be thread-safe; these are the errors fopen/stat/fread give. */
static const char *errno_text(int e)
{
    switch (e) {
    case ENOENT: return "no such file or directory";
    case EACCES: return "permission denied";
    case EISDIR: return "is a directory";
    case ENOTDIR: return "a component of the path is not a directory";
    case ENAMETOOLONG: return "file name too long";
    case ELOOP: return "too many levels of symbolic links";
    case EMFILE:
    case ENFILE: return "too many open files";
    case ENOMEM: return "out of memory";
    case EIO: return "input/output error";
    default: return "system error";
    }
}

static llmmem_status io_fail(const char *path, const char *what, int e)
{
    return llmmem__fail(LLMMEM_ERR_IO, "%s: cannot %s: %s (errno %d)", tail(path), what, errno_text(e), e);
}

/* ---- one header -------------------------------------------------------- */

typedef struct span {
    uint64_t begin, end;
    const char *name; /* a key of the parsed header */
} span;

static int span_cmp(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return 0;
}

/* A non-negative JSON integer. */
static int get_u64(uint64_t *out, const json_t *v)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return 0;
    *out = (uint64_t)json_integer_value(v);
    return 1;
}

/* Reads one tensor entry: dtype, element count, bytes and its data span. */
static llmmem_status parse_tensor(const struct st_dtype **dtype_out, uint64_t *elements_out, span *span_out,
                                  const char *where, const char *name, size_t name_len, const json_t *entry)
{
    int nl = shown_len(name_len);
    if (!json_is_object(entry))
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor '%.*s' is a JSON %s, not an object", where, nl, name,
                            json_kind(entry));

    const json_t *dtype = json_object_get(entry, "dtype");
    if (!dtype)
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor '%.*s' has no \"dtype\"", where, nl, name);
    if (!json_is_string(dtype))
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor '%.*s': \"dtype\" is a JSON %s, not a string", where, nl,
                            name, json_kind(dtype));
    const struct st_dtype *dt = find_dtype(json_string_value(dtype));
    if (!dt)
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor '%.*s': unknown dtype \"%.32s\"", where, nl, name,
                            json_string_value(dtype));

    const json_t *shape = json_object_get(entry, "shape");
    if (!shape)
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor '%.*s' has no \"shape\"", where, nl, name);
    if (!json_is_array(shape))
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor '%.*s': \"shape\" is a JSON %s, not an array", where, nl,
                            name, json_kind(shape));
    uint64_t elements = 1;
    for (size_t i = 0; i < json_array_size(shape); i++) {
        const json_t *dim = json_array_get(shape, i);
        uint64_t d;
        if (!json_is_integer(dim))
            return llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor '%.*s': shape[%zu] is a JSON %s, not an integer", where,
                                nl, name, i, json_kind(dim));
        if (!get_u64(&d, dim))
            return llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor '%.*s': shape[%zu] is negative (%lld)", where, nl, name,
                                i, (long long)json_integer_value(dim));
        if (!llmmem__mul(&elements, elements, d))
            return llmmem__fail(LLMMEM_ERR_OVERFLOW,
                                "%s: tensor '%.*s': the element count overflows 64 bits at shape[%zu] (%llu)", where,
                                nl, name, i, (unsigned long long)d);
    }

    const json_t *offsets = json_object_get(entry, "data_offsets");
    if (!offsets)
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor '%.*s' has no \"data_offsets\"", where, nl, name);
    uint64_t begin, end;
    if (!json_is_array(offsets) || json_array_size(offsets) != 2)
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor '%.*s': \"data_offsets\" is not [begin, end] (a JSON %s%s)",
                            where, nl, name, json_kind(offsets), json_is_array(offsets) ? " of another length" : "");
    if (!get_u64(&begin, json_array_get(offsets, 0)) || !get_u64(&end, json_array_get(offsets, 1)))
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor '%.*s': \"data_offsets\" are not two non-negative integers",
                            where, nl, name);
    if (begin > end)
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor '%.*s': data_offsets [%llu, %llu] end before they begin",
                            where, nl, name, (unsigned long long)begin, (unsigned long long)end);

    uint64_t bits;
    if (!llmmem__mul(&bits, elements, dt->bits))
        return llmmem__fail(LLMMEM_ERR_OVERFLOW, "%s: tensor '%.*s': %llu elements of %s take more than 2^64 bits", where,
                            nl, name, (unsigned long long)elements, dt->name);
    if (bits % 8 != 0)
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor '%.*s': %llu elements of %s are not a whole number of bytes",
                            where, nl, name, (unsigned long long)elements, dt->name);
    if (end - begin != bits / 8)
        return llmmem__fail(LLMMEM_ERR_PARSE,
                            "%s: tensor '%.*s': data_offsets [%llu, %llu] hold %llu bytes, but %llu elements of %s "
                            "take %llu",
                            where, nl, name, (unsigned long long)begin, (unsigned long long)end,
                            (unsigned long long)(end - begin), (unsigned long long)elements, dt->name,
                            (unsigned long long)(bits / 8));
    *dtype_out = dt;
    *elements_out = elements;
    *span_out = (span){begin, end, name};
    return LLMMEM_OK;
}

/* Prefixes the message of a failure inside llmmem__ck_add with the file. */
static llmmem_status prefix_fail(llmmem_status st, const char *where)
{
    char inner[LLMMEM_MESSAGE_MAX];
    snprintf(inner, sizeof inner, "%s", llmmem_last_message());
    return llmmem__fail(st, "%s: %s", where, inner);
}

/* Parses one JSON header and adds its tensors to ck. On success *data_size_out is the size of
 * the data section it describes and, if root_out is given, the parsed header is returned. */
static llmmem_status parse_header(json_t **root_out, uint64_t *data_size_out, llmmem_checkpoint *ck,
                                  const char *where, const char *text, size_t len)
{
    json_error_t err;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    if (!root)
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: header is not valid JSON: %s (line %d, column %d)", where,
                            err.text, err.line, err.column);
    if (!json_is_object(root)) {
        llmmem_status st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: header is a JSON %s, not an object", where,
                                        json_kind(root));
        json_decref(root);
        return st;
    }

    size_t n = json_object_size(root), n_spans = 0;
    span *spans = malloc((n ? n : 1) * sizeof *spans);
    if (!spans) {
        json_decref(root);
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "%s: out of memory for %zu tensors", where, n);
    }
    llmmem_status st = LLMMEM_OK;
    for (void *it = json_object_iter(root); it && st == LLMMEM_OK; it = json_object_iter_next(root, it)) {
        const char *key = json_object_iter_key(it);
        size_t key_len = strlen(key); /* keys hold no NUL: JSON_ALLOW_NUL is not set */
        const json_t *value = json_object_iter_value(it);
        if (strcmp(key, "__metadata__") == 0) {
            if (!json_is_object(value)) {
                st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: \"__metadata__\" is a JSON %s, not an object of strings",
                                  where, json_kind(value));
                break;
            }
            for (void *m = json_object_iter((json_t *)value); m; m = json_object_iter_next((json_t *)value, m)) {
                const json_t *v = json_object_iter_value(m);
                if (!json_is_string(v)) {
                    st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: \"__metadata__\" field '%.*s' is a JSON %s, not a string",
                                      where, shown_len(strlen(json_object_iter_key(m))), json_object_iter_key(m),
                                      json_kind(v));
                    break;
                }
            }
            continue;
        }
        const struct st_dtype *dt = NULL;
        uint64_t elements = 0;
        span sp;
        st = parse_tensor(&dt, &elements, &sp, where, key, key_len, value);
        if (st == LLMMEM_OK) {
            st = llmmem__ck_add(ck, key, key_len, dt->name, elements, sp.end - sp.begin);
            if (st != LLMMEM_OK)
                st = prefix_fail(st, where);
        }
        if (st == LLMMEM_OK)
            spans[n_spans++] = sp;
    }

    /* The data buffer is tiled from 0, in offset order, without holes or overlaps. */
    uint64_t at = 0;
    if (st == LLMMEM_OK) {
        qsort(spans, n_spans, sizeof *spans, span_cmp);
        for (size_t i = 0; i < n_spans; i++) {
            if (spans[i].begin > at) {
                st = llmmem__fail(LLMMEM_ERR_PARSE,
                                  "%s: no tensor holds data bytes [%llu, %llu) before tensor '%.*s' (a hole in the "
                                  "data_offsets)",
                                  where, (unsigned long long)at, (unsigned long long)spans[i].begin,
                                  shown_len(strlen(spans[i].name)), spans[i].name);
                break;
            }
            if (spans[i].begin < at) {
                st = llmmem__fail(LLMMEM_ERR_PARSE,
                                  "%s: tensor '%.*s' at data_offsets [%llu, %llu] overlaps the tensor before it, which "
                                  "ends at %llu",
                                  where, shown_len(strlen(spans[i].name)), spans[i].name,
                                  (unsigned long long)spans[i].begin, (unsigned long long)spans[i].end,
                                  (unsigned long long)at);
                break;
            }
            at = spans[i].end;
        }
    }
    free(spans);
    if (st != LLMMEM_OK) {
        json_decref(root);
        return st;
    }
    *data_size_out = at;
    if (root_out)
        *root_out = root;
    else
        json_decref(root);
    return LLMMEM_OK;
}

static uint64_t read_le64(const unsigned char b[8])
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

/* The header length against the format's limits and the bytes that follow it. */
static llmmem_status check_header_length(const char *where, uint64_t n, uint64_t available)
{
    if (n < 2)
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: header length %llu is too small for a JSON object (at least 2, \"{}\")",
                            where, (unsigned long long)n);
    if (n > ST_MAX_HEADER)
        return llmmem__fail(LLMMEM_ERR_PARSE,
                            "%s: header length %llu exceeds the safetensors limit of %llu bytes (100 MB)", where,
                            (unsigned long long)n, ST_MAX_HEADER);
    if (n > available)
        return llmmem__fail(LLMMEM_ERR_PARSE,
                            "%s: header length %llu runs past the end of the input (%llu bytes after the length): "
                            "truncated header",
                            where, (unsigned long long)n, (unsigned long long)available);
    return LLMMEM_OK;
}

/* Size of an open regular file. */
static llmmem_status file_size(uint64_t *size_out, FILE *f, const char *path)
{
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0)
        return io_fail(path, "read the size of", errno);
    if (!S_ISREG(sb.st_mode))
        return llmmem__fail(LLMMEM_ERR_IO, "%s: not a regular file", tail(path));
    *size_out = sb.st_size < 0 ? 0 : (uint64_t)sb.st_size;
    return LLMMEM_OK;
}

/* Reads one .safetensors file's header into ck (and returns the parsed header if asked). */
static llmmem_status read_file(json_t **root_out, llmmem_checkpoint *ck, const char *path)
{
    const char *where = tail(path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return io_fail(path, "open", errno);
    uint64_t size = 0;
    llmmem_status st = file_size(&size, f, path);
    if (st != LLMMEM_OK) {
        fclose(f);
        return st;
    }
    unsigned char len8[8];
    size_t got = fread(len8, 1, sizeof len8, f);
    if (got < sizeof len8) {
        st = ferror(f) ? io_fail(path, "read", errno)
                       : llmmem__fail(LLMMEM_ERR_PARSE,
                                      "%s: the file is %zu bytes, too short for the 8-byte header length: truncated "
                                      "header",
                                      where, got);
        fclose(f);
        return st;
    }
    uint64_t n = read_le64(len8);
    st = check_header_length(where, n, size - 8);
    if (st != LLMMEM_OK) {
        fclose(f);
        return st;
    }
    char *text = malloc((size_t)n);
    if (!text) {
        fclose(f);
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "%s: out of memory for a %llu-byte header", where,
                            (unsigned long long)n);
    }
    got = fread(text, 1, (size_t)n, f);
    int read_error = ferror(f);
    fclose(f);
    if (got < n) {
        free(text);
        if (read_error)
            return io_fail(path, "read", errno);
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: the header ends after %zu of its %llu bytes: truncated header",
                            where, got, (unsigned long long)n);
    }
    uint64_t data = 0;
    json_t *root = NULL;
    st = parse_header(&root, &data, ck, where, text, (size_t)n);
    free(text);
    if (st != LLMMEM_OK)
        return st;
    uint64_t expected = 8 + n + data; /* offsets are below 2^63 (JSON integers), n <= 1e8: fits */
    if (size != expected) {
        json_decref(root);
        return llmmem__fail(LLMMEM_ERR_PARSE,
                            "%s: the file is %llu bytes, but its header describes %llu (8 + %llu of header + %llu of "
                            "data): %s",
                            where, (unsigned long long)size, (unsigned long long)expected, (unsigned long long)n,
                            (unsigned long long)data, size < expected ? "truncated" : "unexpected bytes at the end");
    }
    if (root_out)
        *root_out = root;
    else
        json_decref(root);
    return LLMMEM_OK;
}

/* ---- index, config, folders -------------------------------------------- */

/* A small JSON file (index or config) read whole. */
static llmmem_status load_json_file(json_t **out, const char *path)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return io_fail(path, "open", errno);
    uint64_t size = 0;
    llmmem_status st = file_size(&size, f, path);
    if (st == LLMMEM_OK && size > ST_MAX_JSON_FILE)
        st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: %llu bytes is more than the %llu read for a JSON file", tail(path),
                          (unsigned long long)size, ST_MAX_JSON_FILE);
    char *text = st == LLMMEM_OK ? malloc(size ? (size_t)size : 1) : NULL;
    if (st == LLMMEM_OK && !text)
        st = llmmem__fail(LLMMEM_ERR_NO_MEMORY, "%s: out of memory", tail(path));
    size_t got = 0;
    if (st == LLMMEM_OK) {
        got = fread(text, 1, (size_t)size, f);
        if (ferror(f))
            st = io_fail(path, "read", errno);
    }
    fclose(f);
    if (st == LLMMEM_OK) {
        json_error_t err;
        *out = json_loadb(text, got, JSON_REJECT_DUPLICATES, &err);
        if (!*out)
            st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: not valid JSON: %s (line %d, column %d)", tail(path), err.text,
                              err.line, err.column);
        else if (!json_is_object(*out)) {
            st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: a JSON %s, not an object", tail(path), json_kind(*out));
            json_decref(*out);
            *out = NULL;
        }
    }
    free(text);
    return st;
}

static char *join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    int slash = a > 0 && dir[a - 1] != '/';
    char *p = malloc(a + (size_t)slash + b + 1);
    if (!p) {
        llmmem__fail(LLMMEM_ERR_NO_MEMORY, "checkpoint: out of memory for a path");
        return NULL;
    }
    memcpy(p, dir, a);
    if (slash)
        p[a] = '/';
    memcpy(p + a + slash, name, b + 1);
    return p;
}

/* The folder holding a file ("." when the path has none). */
static char *folder_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return join(".", "");
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    char *p = malloc(n + 1);
    if (!p) {
        llmmem__fail(LLMMEM_ERR_NO_MEMORY, "checkpoint: out of memory for a path");
        return NULL;
    }
    memcpy(p, path, n);
    p[n] = '\0';
    return p;
}

/* A shard named in an index is a file beside it: no folders, no "." or "..". */
static int plain_file_name(const char *s)
{
    return s[0] != '\0' && strcmp(s, ".") != 0 && strcmp(s, "..") != 0 && !strchr(s, '/') && !strchr(s, '\\');
}

/* model.safetensors.index.json: {"metadata": {"total_size": N}, "weight_map": {tensor: shard}}.
 * Each distinct shard's header is read once, in order of first mention; every tensor of every
 * shard is counted, no tensor may be stored in two shards, and every weight_map entry must be
 * stored in the shard it names. total_size, when present, must be an integer and is otherwise
 * not used (real indexes do not always agree with the sum of their data). */
static llmmem_status read_index(llmmem_checkpoint *ck, const char *index_path)
{
    const char *where = tail(index_path);
    json_t *index = NULL, *shards = NULL, *seen = NULL;
    char *dir = NULL;
    llmmem_status st = load_json_file(&index, index_path);
    if (st != LLMMEM_OK)
        return st;

    const json_t *metadata = json_object_get(index, "metadata");
    const json_t *weight_map = json_object_get(index, "weight_map");
    if (metadata && !json_is_object(metadata)) {
        st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: \"metadata\" is a JSON %s, not an object", where, json_kind(metadata));
        goto done;
    }
    const json_t *total_size = metadata ? json_object_get(metadata, "total_size") : NULL;
    if (total_size && (!json_is_integer(total_size) || json_integer_value(total_size) < 0)) {
        st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: \"metadata\".\"total_size\" is a JSON %s, not a non-negative integer",
                          where, json_kind(total_size));
        goto done;
    }
    if (!weight_map || !json_is_object(weight_map) || json_object_size(weight_map) == 0) {
        st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: \"weight_map\" is %s", where,
                          !weight_map ? "missing"
                          : json_is_object(weight_map) ? "empty"
                                                       : "not an object of tensor names to shard files");
        goto done;
    }

    shards = json_object(); /* shard file -> null, in order of first mention */
    seen = json_object();   /* tensor -> the shard holding it */
    dir = folder_of(index_path);
    if (!shards || !seen || !dir) {
        st = llmmem__fail(LLMMEM_ERR_NO_MEMORY, "%s: out of memory", where);
        goto done;
    }
    for (void *it = json_object_iter((json_t *)weight_map); it; it = json_object_iter_next((json_t *)weight_map, it)) {
        const json_t *shard = json_object_iter_value(it);
        if (!json_is_string(shard) || !plain_file_name(json_string_value(shard))) {
            st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: weight_map entry '%.*s' is %s, not a file name beside the index",
                              where, shown_len(strlen(json_object_iter_key(it))), json_object_iter_key(it),
                              json_is_string(shard) ? "a path" : "not a string");
            goto done;
        }
        if (!json_object_get(shards, json_string_value(shard)) &&
            json_object_set_new(shards, json_string_value(shard), json_null()) != 0) {
            st = llmmem__fail(LLMMEM_ERR_NO_MEMORY, "%s: out of memory", where);
            goto done;
        }
    }

    for (void *it = json_object_iter(shards); it; it = json_object_iter_next(shards, it)) {
        const char *shard = json_object_iter_key(it);
        char *path = join(dir, shard);
        if (!path) {
            st = LLMMEM_ERR_NO_MEMORY;
            goto done;
        }
        json_t *header = NULL;
        st = read_file(&header, ck, path);
        free(path);
        if (st != LLMMEM_OK)
            goto done;
        for (void *t = json_object_iter(header); t && st == LLMMEM_OK; t = json_object_iter_next(header, t)) {
            const char *name = json_object_iter_key(t);
            if (strcmp(name, "__metadata__") == 0)
                continue;
            const json_t *other = json_object_get(seen, name);
            if (other)
                st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor '%.*s' is stored in both %.*s and %.*s", where,
                                  shown_len(strlen(name)), name, 80, json_string_value(other), 80, shard);
            else if (json_object_set_new(seen, name, json_string(shard)) != 0)
                st = llmmem__fail(LLMMEM_ERR_NO_MEMORY, "%s: out of memory", where);
        }
        json_decref(header);
        if (st != LLMMEM_OK)
            goto done;
    }

    for (void *it = json_object_iter((json_t *)weight_map); it; it = json_object_iter_next((json_t *)weight_map, it)) {
        const char *name = json_object_iter_key(it);
        const char *shard = json_string_value(json_object_iter_value(it));
        const json_t *held = json_object_get(seen, name);
        if (!held || strcmp(json_string_value(held), shard) != 0) {
            st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: weight_map puts tensor '%.*s' in %.*s, but %s%.*s", where,
                              shown_len(strlen(name)), name, 80, shard, held ? "it is stored in " : "that shard does not hold it",
                              80, held ? json_string_value(held) : "");
            goto done;
        }
    }

done:
    free(dir);
    json_decref(seen);
    json_decref(shards);
    json_decref(index);
    return st;
}

/* tie_word_embeddings of a folder's config.json: top level, else text_config (multimodal
 * configs); absent, null or no config.json: 0 (the stored head stays a parameter). */
static llmmem_status read_tie(int *tied_out, const char *dir)
{
    *tied_out = 0;
    char *path = join(dir, "config.json");
    if (!path)
        return LLMMEM_ERR_NO_MEMORY;
    struct stat sb;
    if (stat(path, &sb) != 0 && errno == ENOENT) {
        free(path);
        return LLMMEM_OK;
    }
    json_t *config = NULL;
    llmmem_status st = load_json_file(&config, path);
    if (st == LLMMEM_OK) {
        const json_t *v = json_object_get(config, "tie_word_embeddings");
        const json_t *text_config = json_object_get(config, "text_config");
        if (!v && json_is_object(text_config))
            v = json_object_get(text_config, "tie_word_embeddings");
        if (v && !json_is_null(v) && !json_is_boolean(v))
            st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: \"tie_word_embeddings\" is a JSON %s, not true or false",
                              tail(path), json_kind(v));
        else
            *tied_out = v && json_is_true(v);
    }
    json_decref(config);
    free(path);
    return st;
}

static int is_regular(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* The checkpoint in a folder: model.safetensors.index.json, else model.safetensors, else its
 * only *.safetensors file (dot files skipped). *is_index_out tells which kind was found. */
static llmmem_status find_in_folder(char **path_out, int *is_index_out, const char *dir)
{
    *path_out = NULL;
    *is_index_out = 0;
    char *p = join(dir, "model.safetensors.index.json");
    if (!p)
        return LLMMEM_ERR_NO_MEMORY;
    if (is_regular(p)) {
        *path_out = p;
        *is_index_out = 1;
        return LLMMEM_OK;
    }
    free(p);
    p = join(dir, "model.safetensors");
    if (!p)
        return LLMMEM_ERR_NO_MEMORY;
    if (is_regular(p)) {
        *path_out = p;
        return LLMMEM_OK;
    }
    free(p);

    DIR *d = opendir(dir);
    if (!d)
        return io_fail(dir, "list the folder", errno);
    char *found = NULL;
    size_t count = 0;
    llmmem_status st = LLMMEM_OK;
    for (struct dirent *e = readdir(d); e && st == LLMMEM_OK; e = readdir(d)) {
        if (e->d_name[0] == '.' || !ends_with(e->d_name, ".safetensors"))
            continue;
        char *candidate = join(dir, e->d_name);
        if (!candidate) {
            st = LLMMEM_ERR_NO_MEMORY;
            break;
        }
        if (!is_regular(candidate)) {
            free(candidate);
            continue;
        }
        if (++count == 1)
            found = candidate;
        else
            free(candidate);
    }
    closedir(d);
    if (st != LLMMEM_OK) {
        free(found);
        return st;
    }
    if (count == 1) {
        *path_out = found;
        return LLMMEM_OK;
    }
    free(found);
    if (count == 0)
        return llmmem__fail(LLMMEM_ERR_NOT_FOUND,
                            "%s: no model.safetensors.index.json, model.safetensors or other .safetensors file in "
                            "this folder",
                            tail(dir));
    return llmmem__fail(LLMMEM_ERR_NOT_FOUND,
                        "%s: %zu .safetensors files but no model.safetensors.index.json or model.safetensors; "
                        "pass one file or add the index",
                        tail(dir), count);
}

/* ---- public ------------------------------------------------------------ */

llmmem_status llmmem_checkpoint_from_safetensors(llmmem_checkpoint **out, const char *path)
{
    LLMMEM_REQUIRE(out);
    *out = NULL;
    LLMMEM_REQUIRE(path);
    struct stat sb;
    if (stat(path, &sb) != 0)
        return io_fail(path, "open", errno);
    if (!S_ISDIR(sb.st_mode) && !S_ISREG(sb.st_mode))
        return llmmem__fail(LLMMEM_ERR_IO, "%s: not a regular file or a folder", tail(path));

    llmmem_checkpoint *ck = NULL;
    llmmem_status st = llmmem__ck_new(&ck, 1);
    if (st != LLMMEM_OK)
        return st;
    if (S_ISDIR(sb.st_mode)) {
        char *file = NULL;
        int is_index = 0, tied = 0;
        st = find_in_folder(&file, &is_index, path);
        if (st == LLMMEM_OK)
            st = is_index ? read_index(ck, file) : read_file(NULL, ck, file);
        if (st == LLMMEM_OK)
            st = read_tie(&tied, path);
        if (st == LLMMEM_OK)
            llmmem__ck_mark_tied_head(ck, tied);
        free(file);
    } else if (ends_with(path, ".json")) {
        st = read_index(ck, path);
    } else {
        st = read_file(NULL, ck, path);
    }
    if (st != LLMMEM_OK) {
        llmmem_checkpoint_free(ck);
        return st;
    }
    *out = ck;
    return LLMMEM_OK;
}

llmmem_status llmmem_checkpoint_from_safetensors_bytes(llmmem_checkpoint **out, const void *data, size_t size)
{
    static const char where[] = "<memory>";
    LLMMEM_REQUIRE(out);
    *out = NULL;
    if (!data && size != 0)
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "%s: argument 'data' is NULL", __func__);
    if (size < 8)
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: %zu bytes, too short for the 8-byte header length: truncated header",
                            where, size);
    const unsigned char *bytes = data;
    uint64_t n = read_le64(bytes);
    llmmem_status st = check_header_length(where, n, (uint64_t)(size - 8));
    if (st != LLMMEM_OK)
        return st;
    llmmem_checkpoint *ck = NULL;
    st = llmmem__ck_new(&ck, 1);
    if (st != LLMMEM_OK)
        return st;
    uint64_t data_size = 0;
    st = parse_header(NULL, &data_size, ck, where, (const char *)bytes + 8, (size_t)n);
    if (st != LLMMEM_OK) {
        llmmem_checkpoint_free(ck);
        return st;
    }
    *out = ck;
    return LLMMEM_OK;
}
