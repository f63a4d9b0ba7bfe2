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
 * It reads the first 8 + N bytes of each file with fread, never the data.
 *
 * Bounds (issue 14): a header or an index is never built as one JSON tree (lib/readers/json.c), which
 * costs 32 bytes per value and 56 per object member, up to 30 times the input for "[],". A scanner
 * that keeps nothing finds the members of the top-level object (readfile.c). A tensor entry
 * holding more than ST_ENTRY_MAX_VALUES JSON values is refused; one in its plain form is read
 * without building a tree (plain_tensor), any other by the JSON reader on its own.
 * "__metadata__" and an index's "weight_map" are read member by member. What is kept: the
 * checkpoint (llmmem__ck_add: a name and at most 160 bytes per tensor, a tensor entry taking at
 * least 50 bytes of header), a 24-byte span per tensor, and for an index each name once with 4
 * bytes, a hash and a set slot. Memory stays within 6 bytes per input byte (tests/test_bounds.c
 * measures 3.5 for the densest header, 4.2 for the densest index) and each byte is scanned a
 * bounded number of times. */

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "readers/json.h"

#include "readers/checkpoint.h"
#include "readers/readfile.h"

/* safetensors/src/tensor.rs: const MAX_HEADER_SIZE: usize = 100_000_000 */
#define ST_MAX_HEADER 100000000ULL
/* The same cap for an index read whole (a real one takes about 100 bytes per tensor). */
#define ST_MAX_INDEX 100000000ULL
/* JSON values in one tensor entry: dtype, the shape's dimensions, two offsets and the entry's
 * own structure take about 10 + dims; 1024 leaves room for any real shape and bounds the tree
 * the JSON reader builds for one entry to about 60 KB. */
#define ST_ENTRY_MAX_VALUES 1024
/* JSON values in any other member read whole (an index's "metadata" and members it does not
 * use; a folder's config.json): about 250 KB of tree at most. */
#define ST_SMALL_MAX_VALUES 4096
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

static const char *json_kind(const llmmem__json *v)
{
    if (llmmem__json_nonfinite(v)) /* Python's NaN or Infinity (readfile.h) */
        return "non-finite number";
    switch (llmmem__json_typeof(v)) {
    case LLMMEM__JSON_OBJECT: return "object";
    case LLMMEM__JSON_ARRAY: return "array";
    case LLMMEM__JSON_STRING: return "string";
    case LLMMEM__JSON_INTEGER: return "integer";
    case LLMMEM__JSON_REAL: return "real number";
    case LLMMEM__JSON_TRUE:
    case LLMMEM__JSON_FALSE: return "boolean";
    default: return "null";
    }
}

static llmmem_status io_fail(const char *path, const char *what, int e)
{
    return llmmem__fail(LLMMEM_ERR_IO, "%s: cannot %s: %s (errno %d)", tail(path), what,
                        llmmem__errno_text(e), e);
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

/* ---- the plain form of an entry, without a tree ----------------------------------------- */

static size_t skip_ws(const char *t, size_t e, size_t p)
{
    while (p < e && (t[p] == ' ' || t[p] == '\t' || t[p] == '\n' || t[p] == '\r'))
        p++;
    return p;
}

/* A JSON integer in canonical form below 10^18 at t[*p] (no sign, no leading zero, no fraction or
 * exponent after it). */
static int plain_uint(const char *t, size_t e, size_t *p, uint64_t *v)
{
    size_t i = *p;
    uint64_t x = 0;
    while (i < e && t[i] >= '0' && t[i] <= '9' && i - *p < 19)
        x = x * 10 + (uint64_t)(t[i++] - '0');
    size_t n = i - *p;
    if (n == 0 || n > 18 || (n > 1 && t[*p] == '0') ||
        (i < e && (t[i] == '.' || t[i] == 'e' || t[i] == 'E' || (t[i] >= '0' && t[i] <= '9'))))
        return 0;
    *p = i;
    *v = x;
    return 1;
}

/* A string token at t[p] of printable ASCII without escapes: its bytes [*b, *e). */
static int plain_string(const char *t, size_t e, size_t p, size_t *b_out, size_t *e_out)
{
    if (p >= e || t[p] != '"')
        return 0;
    size_t i = p + 1;
    while (i < e && t[i] != '"' && t[i] != '\\' && (unsigned char)t[i] >= 0x20 && (unsigned char)t[i] < 0x7f)
        i++;
    if (i >= e || t[i] != '"')
        return 0;
    *b_out = p + 1;
    *e_out = i;
    return 1;
}

/* A tensor entry in its plain form, {"dtype": "...", "shape": [...], "data_offsets": [b, e]}: the
 * three keys once each in any order, strings without escapes, canonical integers, and the values
 * parse_tensor accepts. 0 leaves the entry to the JSON reader and parse_tensor, which word each
 * failure; 1 gives what they would give. (Building a tree costs allocations for every entry: with
 * jansson a header of a million tensors took over 1 s.) */
static int plain_tensor(const struct st_dtype **dt_out, uint64_t *elements_out, span *span_out, const char *t,
                        size_t b, size_t e)
{
    size_t p = skip_ws(t, e, b), kb, ke;
    const struct st_dtype *dt = NULL;
    uint64_t elements = 1, off[2] = {0, 0};
    unsigned have = 0;
    if (p >= e || t[p] != '{')
        return 0;
    p++;
    for (;;) {
        p = skip_ws(t, e, p);
        if (!plain_string(t, e, p, &kb, &ke))
            return 0;
        p = skip_ws(t, e, ke + 1);
        if (p >= e || t[p] != ':')
            return 0;
        p = skip_ws(t, e, p + 1);
        if (ke - kb == 5 && memcmp(t + kb, "dtype", 5) == 0 && !(have & 1)) {
            size_t sb, se;
            char name[LLMMEM__DTYPE_NAME_MAX];
            if (!plain_string(t, e, p, &sb, &se) || se - sb >= sizeof name)
                return 0;
            memcpy(name, t + sb, se - sb);
            name[se - sb] = '\0';
            if (!(dt = find_dtype(name)))
                return 0;
            p = se + 1;
            have |= 1;
        } else if (ke - kb == 5 && memcmp(t + kb, "shape", 5) == 0 && !(have & 2)) {
            if (p >= e || t[p] != '[')
                return 0;
            p = skip_ws(t, e, p + 1);
            if (p < e && t[p] == ']') {
                p++;
            } else {
                for (;;) {
                    uint64_t d;
                    if (!plain_uint(t, e, &p, &d) || !llmmem__mul(&elements, elements, d))
                        return 0;
                    p = skip_ws(t, e, p);
                    if (p < e && t[p] == ',') {
                        p = skip_ws(t, e, p + 1);
                        continue;
                    }
                    if (p < e && t[p] == ']') {
                        p++;
                        break;
                    }
                    return 0;
                }
            }
            have |= 2;
        } else if (ke - kb == 12 && memcmp(t + kb, "data_offsets", 12) == 0 && !(have & 4)) {
            if (p >= e || t[p] != '[')
                return 0;
            p = skip_ws(t, e, p + 1);
            if (!plain_uint(t, e, &p, &off[0]))
                return 0;
            p = skip_ws(t, e, p);
            if (p >= e || t[p] != ',')
                return 0;
            p = skip_ws(t, e, p + 1);
            if (!plain_uint(t, e, &p, &off[1]))
                return 0;
            p = skip_ws(t, e, p);
            if (p >= e || t[p] != ']')
                return 0;
            p++;
            have |= 4;
        } else {
            return 0;
        }
        p = skip_ws(t, e, p);
        if (p < e && t[p] == ',') {
            p++;
            continue;
        }
        if (p < e && t[p] == '}')
            break;
        return 0;
    }
    uint64_t bits;
    if (have != 7 || skip_ws(t, e, p + 1) != e || off[0] > off[1] || !llmmem__mul(&bits, elements, dt->bits) ||
        bits % 8 != 0 || off[1] - off[0] != bits / 8)
        return 0;
    *dt_out = dt;
    *elements_out = elements;
    *span_out = (span){off[0], off[1], NULL};
    return 1;
}

/* A non-negative JSON integer. */
static int get_u64(uint64_t *out, const llmmem__json *v)
{
    if (!llmmem__json_is_integer(v) || llmmem__json_integer_value(v) < 0)
        return 0;
    *out = (uint64_t)llmmem__json_integer_value(v);
    return 1;
}

/* Reads one tensor entry: dtype, element count, bytes and its data span. */
static llmmem_status parse_tensor(const struct st_dtype **dtype_out, uint64_t *elements_out, span *span_out,
                                  const char *where, const char *name, size_t name_len, const llmmem__json *entry)
{
    int nl = shown_len(name_len);
    if (!llmmem__json_is_object(entry))
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor '%.*s' is a JSON %s, not an object", where, nl, name,
                            json_kind(entry));

    const llmmem__json *dtype = llmmem__json_object_get(entry, "dtype");
    if (!dtype)
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor '%.*s' has no \"dtype\"", where, nl, name);
    if (!llmmem__json_is_string(dtype))
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor '%.*s': \"dtype\" is a JSON %s, not a string", where, nl,
                            name, json_kind(dtype));
    const struct st_dtype *dt = find_dtype(llmmem__json_string_value(dtype));
    if (!dt)
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor '%.*s': unknown dtype \"%.32s\"", where, nl, name,
                            llmmem__json_string_value(dtype));

    const llmmem__json *shape = llmmem__json_object_get(entry, "shape");
    if (!shape)
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor '%.*s' has no \"shape\"", where, nl, name);
    if (!llmmem__json_is_array(shape))
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor '%.*s': \"shape\" is a JSON %s, not an array", where, nl,
                            name, json_kind(shape));
    uint64_t elements = 1;
    for (size_t i = 0; i < llmmem__json_array_size(shape); i++) {
        const llmmem__json *dim = llmmem__json_array_get(shape, i);
        uint64_t d;
        if (!llmmem__json_is_integer(dim))
            return llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor '%.*s': shape[%zu] is a JSON %s, not an integer", where,
                                nl, name, i, json_kind(dim));
        if (!get_u64(&d, dim))
            return llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor '%.*s': shape[%zu] is negative (%lld)", where, nl, name,
                                i, (long long)llmmem__json_integer_value(dim));
        if (!llmmem__mul(&elements, elements, d))
            return llmmem__fail(LLMMEM_ERR_OVERFLOW,
                                "%s: tensor '%.*s': the element count overflows 64 bits at shape[%zu] (%llu)", where,
                                nl, name, i, (unsigned long long)d);
    }

    const llmmem__json *offsets = llmmem__json_object_get(entry, "data_offsets");
    if (!offsets)
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor '%.*s' has no \"data_offsets\"", where, nl, name);
    uint64_t begin, end;
    if (!llmmem__json_is_array(offsets) || llmmem__json_array_size(offsets) != 2)
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor '%.*s': \"data_offsets\" is not [begin, end] (a JSON %s%s)",
                            where, nl, name, json_kind(offsets),
                            llmmem__json_is_array(offsets) ? " of another length" : "");
    if (!get_u64(&begin, llmmem__json_array_get(offsets, 0)) || !get_u64(&end, llmmem__json_array_get(offsets, 1)))
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

/* ---- JSON read member by member ---------------------------------------- */

/* "<where>: <what>not valid JSON: <expected> (line, column)" for a failure of the scanner at `at`;
 * what is "header is " or "". */
static llmmem_status syntax_fail(const char *where, const char *what, const char *text, size_t len,
                                 const char *expected, size_t at)
{
    int line, col;
    llmmem__json_line_col(text, len, at, &line, &col);
    return llmmem__fail(LLMMEM_ERR_PARSE, "%s: %snot valid JSON: %s%s (line %d, column %d)", where, what, expected,
                        at >= len ? " near end of file" : "", line, col);
}

/* The same for the JSON reader failing on the bytes that start at text[base]; never quotes the
 * input. */
static llmmem_status json_fail(const char *where, const char *what, const char *text, size_t len, size_t base,
                               const llmmem__json_error *err)
{
    char expected[LLMMEM__JSON_ERROR_TEXT_LENGTH];
    llmmem__json_error_text(expected, sizeof expected, err);
    int line, col;
    llmmem__json_line_col(text, len, base + (err->position > 0 ? (size_t)err->position - 1 : 0), &line, &col);
    return llmmem__fail(LLMMEM_ERR_PARSE, "%s: %snot valid JSON: %s (line %d, column %d)", where, what, expected,
                        line, col);
}

/* The kind of the JSON value text[begin, end) from its first byte, for values too large to build. */
static const char *token_kind(const char *text, size_t begin, size_t end)
{
    switch (text[begin]) {
    case '{': return "object";
    case '[': return "array";
    case '"': return "string";
    case 't':
    case 'f': return "boolean";
    case 'n': return "null";
    default:
        for (size_t i = begin; i < end; i++)
            if (text[i] == '.' || text[i] == 'e' || text[i] == 'E')
                return "real number";
        return "integer";
    }
}

/* A member's value built by the JSON reader, when it holds at most `max` values; *out NULL otherwise. */
static llmmem_status load_value(llmmem__json **out, const char *where, const char *what, const char *text, size_t len,
                                const llmmem__json_member *m, uint64_t max)
{
    *out = NULL;
    if (m->values > max)
        return LLMMEM_OK;
    llmmem__json_error err;
    *out = llmmem__json_load(text + m->value_begin, m->value_end - m->value_begin,
                             LLMMEM__JSON_DECODE_ANY | LLMMEM__JSON_REJECT_DUPLICATES, &err);
    if (!*out)
        return json_fail(where, what, text, len, m->value_begin, &err);
    return LLMMEM_OK;
}

/* The kind of a member's value: the reader's when it is small enough to build (which also checks
 * it), else from its first byte. */
static llmmem_status value_kind(const char **kind_out, const char *where, const char *what, const char *text,
                                size_t len, const llmmem__json_member *m)
{
    llmmem__json *v;
    llmmem_status st = load_value(&v, where, what, text, len, m, ST_ENTRY_MAX_VALUES);
    if (st)
        return st;
    *kind_out = v ? json_kind(v) : token_kind(text, m->value_begin, m->value_end);
    llmmem__json_free(v);
    return LLMMEM_OK;
}

/* A member's key, decoded (escapes, UTF-8 and NUL checked by the JSON reader). */
static llmmem_status member_key(llmmem__json **key_out, const char *where, const char *what, const char *text,
                                size_t len, const llmmem__json_member *m)
{
    llmmem__json_error err;
    *key_out = llmmem__json_decode_string(text, m->key_begin, m->key_end, &err);
    return *key_out ? LLMMEM_OK : json_fail(where, what, text, len, m->key_begin, &err);
}

/* A member's key or a string value: as it stands when plain, else decoded by the JSON reader (*owned
 * then holds it). */
static llmmem_status string_at(const char **p_out, size_t *n_out, llmmem__json **owned, const char *where,
                               const char *what, const char *text, size_t len, size_t begin, size_t end)
{
    size_t b, e;
    *owned = NULL;
    if (plain_string(text, end, begin, &b, &e)) {
        *p_out = text + b;
        *n_out = e - b;
        return LLMMEM_OK;
    }
    llmmem__json_error err;
    if (!(*owned = llmmem__json_decode_string(text, begin, end, &err)))
        return json_fail(where, what, text, len, begin, &err);
    *p_out = llmmem__json_string_value(*owned);
    *n_out = llmmem__json_string_length(*owned);
    return LLMMEM_OK;
}

/* Next member, or 0 at the end; a scanner failure is a message. */
static llmmem_status next_member(int *more, llmmem__json_members *it, llmmem__json_member *m, const char *where,
                                 const char *what)
{
    const char *expected = NULL;
    size_t at = 0;
    int r = llmmem__json_members_next(it, m, &expected, &at);
    if (r < 0)
        return syntax_fail(where, what, it->text, it->len, expected, at);
    *more = r;
    return LLMMEM_OK;
}

/* After the top-level object: only whitespace. */
static llmmem_status check_end(const char *where, const char *what, const llmmem__json_members *it)
{
    size_t p = llmmem__json_skip_space(it->text, it->len, it->pos);
    return p == it->len ? LLMMEM_OK : syntax_fail(where, what, it->text, it->len, "end of file expected", p);
}

/* A document whose top level is not an object: its kind (checked by the JSON reader when small). */
static llmmem_status not_an_object(const char *where, const char *what, const char *text, size_t len,
                                   const char *expected, size_t at)
{
    (void)expected;
    (void)at;
    size_t p = llmmem__json_skip_space(text, len, 0);
    if (p >= len || text[p] == '\0' || !strchr("[\"tfn-0123456789", text[p]))
        return syntax_fail(where, what, text, len, "'[' or '{' expected", p);
    uint64_t values = llmmem__json_count_values(text, len);
    const char *kind = token_kind(text, p, len);
    if (values <= ST_SMALL_MAX_VALUES) {
        llmmem__json_error err;
        llmmem__json *root =
            llmmem__json_load(text, len, LLMMEM__JSON_DECODE_ANY | LLMMEM__JSON_REJECT_DUPLICATES, &err);
        if (!root)
            return json_fail(where, what, text, len, 0, &err);
        kind = json_kind(root);
        llmmem__json_free(root);
    }
    return llmmem__fail(LLMMEM_ERR_PARSE, "%s: %sa JSON %s, not an object", where, what, kind);
}

/* "__metadata__": an object of strings, read member by member. */
static llmmem_status check_metadata(const char *where, const char *text, size_t len, const llmmem__json_member *meta)
{
    static const char what[] = "header is ";
    llmmem__json_members it;
    const char *expected = NULL;
    size_t at = 0;
    if (text[meta->value_begin] != '{') {
        const char *kind;
        llmmem_status st = value_kind(&kind, where, what, text, len, meta);
        return st ? st
                  : llmmem__fail(LLMMEM_ERR_PARSE, "%s: \"__metadata__\" is a JSON %s, not an object of strings", where,
                                 kind);
    }
    if (!llmmem__json_members_open(&it, text, meta->value_end, meta->value_begin, &expected, &at))
        return syntax_fail(where, what, text, len, expected, at); /* not reached: it starts with '{' */
    llmmem__names keys = {0}; /* looked up once all are read (llmmem__names_index) */
    llmmem_status st = LLMMEM_OK;
    for (;;) {
        llmmem__json_member m;
        int more = 0;
        llmmem__json *key = NULL, *value = NULL;
        const char *k, *v;
        size_t kn, vn;
        if ((st = next_member(&more, &it, &m, where, what)) || !more)
            break;
        if ((st = string_at(&k, &kn, &key, where, what, text, len, m.key_begin, m.key_end)))
            break;
        if (text[m.value_begin] == '"') {
            st = string_at(&v, &vn, &value, where, what, text, len, m.value_begin, m.value_end);
        } else {
            const char *kind;
            st = value_kind(&kind, where, what, text, len, &m);
            if (!st)
                st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: \"__metadata__\" field '%.*s' is a JSON %s, not a string",
                                  where, shown_len(kn), k, kind);
        }
        if (!st && llmmem__names_append(&keys, k, kn, 0) < 0)
            st = llmmem__fail(LLMMEM_ERR_NO_MEMORY, "%s: out of memory for the \"__metadata__\" keys", where);
        llmmem__json_free(value);
        llmmem__json_free(key);
        if (st)
            break;
    }
    size_t dup = 0;
    int r = st ? 0 : llmmem__names_index(&keys, &dup);
    if (r < 0) {
        st = llmmem__fail(LLMMEM_ERR_NO_MEMORY, "%s: out of memory for the \"__metadata__\" keys", where);
    } else if (r > 0) {
        size_t n;
        const char *k = llmmem__names_get(&keys, dup, &n);
        st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: \"__metadata__\" has a duplicate key '%.*s'", where, shown_len(n), k);
    }
    llmmem__names_free(&keys);
    return st;
}

/* ---- one header -------------------------------------------------------- */

/* Parses one JSON header and adds its tensors to ck; *data_size_out is the size of the data
 * section it describes. A tensor already stored by an earlier file of the checkpoint fails with
 * *other_out its index (SIZE_MAX otherwise), so that an index names both shards. */
static llmmem_status parse_header(uint64_t *data_size_out, size_t *other_out, llmmem_checkpoint *ck,
                                  const char *where, const char *text, size_t len)
{
    static const char what[] = "header is ";
    size_t first = ck->n_tensors;
    *other_out = SIZE_MAX;
    llmmem__json_members it;
    const char *expected = NULL;
    size_t at = 0;
    if (!llmmem__json_members_open(&it, text, len, 0, &expected, &at))
        return not_an_object(where, "header is ", text, len, expected, at);

    span *spans = NULL;
    size_t n_spans = 0, cap_spans = 0;
    int has_metadata = 0;
    llmmem_status st = LLMMEM_OK;
    for (;;) {
        llmmem__json_member m;
        int more = 0;
        llmmem__json *key = NULL, *entry = NULL;
        if ((st = next_member(&more, &it, &m, where, what)) || !more)
            break;
        const char *name;
        size_t name_len, kb, ke;
        if (plain_string(text, m.key_end, m.key_begin, &kb, &ke)) { /* the name as it stands */
            name = text + kb;
            name_len = ke - kb;
        } else if ((st = member_key(&key, where, what, text, len, &m)) == LLMMEM_OK) {
            name = llmmem__json_string_value(key);
            name_len = llmmem__json_string_length(key);
        } else {
            break;
        }
        int nl = shown_len(name_len);
        size_t held = 0;
        int line = 0, col = 0;
        const struct st_dtype *dt = NULL;
        uint64_t elements = 0;
        span sp;
        if (name_len == 12 && memcmp(name, "__metadata__", 12) == 0) {
            if (has_metadata) {
                llmmem__json_line_col(text, len, m.key_end - 1, &line, &col);
                st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: duplicate key \"__metadata__\" (line %d, column %d)", where,
                                  line, col);
            } else {
                st = check_metadata(where, text, len, &m);
            }
            has_metadata = 1;
        } else if (m.values > ST_ENTRY_MAX_VALUES) {
            llmmem__json_line_col(text, len, m.key_end - 1, &line, &col);
            st = llmmem__fail(LLMMEM_ERR_PARSE,
                              "%s: tensor '%.*s': its entry holds more than %d JSON values (line %d, column %d); "
                              "dtype, shape and data_offsets take a few",
                              where, nl, name, ST_ENTRY_MAX_VALUES, line, col);
        } else if (plain_tensor(&dt, &elements, &sp, text, m.value_begin, m.value_end) ||
                   ((st = load_value(&entry, where, what, text, len, &m, ST_ENTRY_MAX_VALUES)) == LLMMEM_OK &&
                    (st = parse_tensor(&dt, &elements, &sp, where, name, name_len, entry)) == LLMMEM_OK)) {
            if (n_spans == cap_spans) {
                size_t cap = cap_spans ? cap_spans * 2 : 64;
                span *grown = cap < SIZE_MAX / sizeof *grown ? realloc(spans, cap * sizeof *grown) : NULL;
                if (!grown)
                    st = llmmem__fail(LLMMEM_ERR_NO_MEMORY, "%s: out of memory for %zu tensors", where, cap);
                else {
                    spans = grown;
                    cap_spans = cap;
                }
            }
            if (!st && (st = llmmem__ck_add(ck, name, name_len, dt->name, elements, sp.end - sp.begin)) &&
                st != LLMMEM_ERR_PARSE) /* its one PARSE failure: the name is stored already */
                st = prefix_fail(st, where);
            if (st == LLMMEM_ERR_PARSE && llmmem__ck_find(ck, name, name_len, &held)) {
                llmmem__json_line_col(text, len, m.key_end - 1, &line, &col);
                if (held >= first)
                    st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: duplicate tensor name '%.*s' (line %d, column %d)", where,
                                      nl, name, line, col);
                else
                    st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor '%.*s' is also stored by an earlier file", where,
                                      nl, name);
                *other_out = held < first ? held : SIZE_MAX;
            }
            if (!st) {
                sp.name = ck->tensors[ck->n_tensors - 1].name; /* owned by ck, stable */
                spans[n_spans++] = sp;
            }
        }
        llmmem__json_free(entry);
        llmmem__json_free(key);
        if (st)
            break;
    }
    if (!st)
        st = check_end(where, what, &it);

    /* The data buffer is tiled from 0, in offset order, without holes or overlaps. */
    uint64_t end = 0;
    if (st == LLMMEM_OK) {
        if (n_spans) /* qsort's array may not be NULL, even empty */
            qsort(spans, n_spans, sizeof *spans, span_cmp);
        for (size_t i = 0; i < n_spans; i++) {
            if (spans[i].begin > end) {
                st = llmmem__fail(LLMMEM_ERR_PARSE,
                                  "%s: no tensor holds data bytes [%llu, %llu) before tensor '%.*s' (a hole in the "
                                  "data_offsets)",
                                  where, (unsigned long long)end, (unsigned long long)spans[i].begin,
                                  shown_len(strlen(spans[i].name)), spans[i].name);
                break;
            }
            if (spans[i].begin < end) {
                st = llmmem__fail(LLMMEM_ERR_PARSE,
                                  "%s: tensor '%.*s' at data_offsets [%llu, %llu] overlaps the tensor before it, which "
                                  "ends at %llu",
                                  where, shown_len(strlen(spans[i].name)), spans[i].name,
                                  (unsigned long long)spans[i].begin, (unsigned long long)spans[i].end,
                                  (unsigned long long)end);
                break;
            }
            end = spans[i].end;
        }
    }
    free(spans);
    if (st == LLMMEM_OK)
        *data_size_out = end;
    return st;
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
    if (n > ST_MAX_HEADER) /* most often a file that is not safetensors: its first 8 bytes are not shown */
        return llmmem__fail(LLMMEM_ERR_PARSE,
                            "%s: the header length (the first 8 bytes) exceeds the safetensors limit of %llu bytes "
                            "(100 MB): not a safetensors file, or a damaged one", where, ST_MAX_HEADER);
    if (n > available)
        return llmmem__fail(LLMMEM_ERR_PARSE,
                            "%s: header length %llu runs past the end of the input (%llu bytes after the length): "
                            "truncated header",
                            where, (unsigned long long)n, (unsigned long long)available);
    return LLMMEM_OK;
}

/* Reads one .safetensors file's header into ck; *other_out as parse_header's. */
static llmmem_status read_file(llmmem_checkpoint *ck, const char *path, size_t *other_out)
{
    const char *where = tail(path);
    *other_out = SIZE_MAX;
    FILE *f;
    uint64_t size = 0;
    llmmem_status st = llmmem__open_regular(&f, &size, path, where);
    if (st != LLMMEM_OK)
        return st;
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
    st = parse_header(&data, other_out, ck, where, text, (size_t)n);
    free(text);
    if (st != LLMMEM_OK)
        return st;
    uint64_t expected = 8 + n + data; /* offsets are below 2^63 (JSON integers), n <= 1e8: fits */
    if (size != expected)
        return llmmem__fail(LLMMEM_ERR_PARSE,
                            "%s: the file is %llu bytes, but its header describes %llu (8 + %llu of header + %llu of "
                            "data): %s",
                            where, (unsigned long long)size, (unsigned long long)expected, (unsigned long long)n,
                            (unsigned long long)data, size < expected ? "truncated" : "unexpected bytes at the end");
    return LLMMEM_OK;
}

/* ---- index, config, folders -------------------------------------------- */

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

/* A shard named in an index is a file beside it: no folders, no "." or "..", no NUL. */
static int plain_file_name(const char *s, size_t n)
{
    return n > 0 && !(n == 1 && s[0] == '.') && !(n == 2 && s[0] == '.' && s[1] == '.') && !memchr(s, '/', n) &&
           !memchr(s, '\\', n) && !memchr(s, '\0', n);
}

/* model.safetensors.index.json: {"metadata": {"total_size": N}, "weight_map": {tensor: shard}}.
 * Each distinct shard's header is read once, in order of first mention; every tensor of every
 * shard is counted, no tensor may be stored in two shards, and every weight_map entry must be
 * stored in the shard it names. total_size, when present, must be an integer and is otherwise
 * not used (real indexes do not always agree with the sum of their data). The index is read
 * member by member: weight_map keeps each tensor name once and a shard number, "metadata" and
 * any other member are built only when they hold at most ST_SMALL_MAX_VALUES values. */
/* Distinct shard files an index may name: real checkpoints have up to a few hundred (191 for
 * Llama 3.1 405B); each is opened in turn. */
#define ST_MAX_SHARDS 65536

typedef struct index_state {
    llmmem__names tensors; /* weight_map's tensors, each with the number of its shard */
    llmmem__names shards;  /* shard files, numbered in order of first mention */
    size_t *shard_id, cap; /* shard number -> its id in `shards` */
    size_t *first;         /* shard s holds checkpoint tensors [first[s], first[s + 1]) */
} index_state;

static llmmem_status read_weight_map(index_state *x, const char *where, const char *text, size_t len,
                                     const llmmem__json_member *wm)
{
    static const char what[] = "";
    if (text[wm->value_begin] != '{') {
        const char *kind;
        llmmem_status st = value_kind(&kind, where, what, text, len, wm);
        return st ? st
                  : llmmem__fail(LLMMEM_ERR_PARSE, "%s: \"weight_map\" is not an object of tensor names to shard files "
                                 "(a JSON %s)", where, kind);
    }
    llmmem__json_members it;
    const char *expected = NULL;
    size_t at = 0;
    if (!llmmem__json_members_open(&it, text, wm->value_end, wm->value_begin, &expected, &at))
        return syntax_fail(where, what, text, len, expected, at); /* not reached: it starts with '{' */
    llmmem_status st = LLMMEM_OK;
    for (;;) {
        llmmem__json_member m;
        int more = 0;
        llmmem__json *key = NULL, *value = NULL;
        const char *name = NULL, *shard = NULL;
        size_t name_len = 0, shard_len = 0, s_id = 0;
        if ((st = next_member(&more, &it, &m, where, what)) || !more)
            break;
        if ((st = string_at(&name, &name_len, &key, where, what, text, len, m.key_begin, m.key_end)))
            break;
        int nl = shown_len(name_len);
        if (text[m.value_begin] == '"')
            st = string_at(&shard, &shard_len, &value, where, what, text, len, m.value_begin, m.value_end);
        if (!st && (!shard || !plain_file_name(shard, shard_len)))
            st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: weight_map entry '%.*s' is %s, not a file name beside the index",
                              where, nl, name, shard ? "a path" : "not a string");
        if (!st) {
            size_t number = x->shards.n;
            int s_added = llmmem__names_add(&x->shards, shard, shard_len, (uint32_t)number, &s_id);
            if (s_added == 0 && number == ST_MAX_SHARDS) {
                st = llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "%s: weight_map names more than %d shard files", where,
                                  ST_MAX_SHARDS);
                s_added = 1;
            }
            if (s_added == 0 && number == x->cap) {
                size_t cap = x->cap ? x->cap * 2 : 16;
                size_t *grown = cap < SIZE_MAX / sizeof *grown ? realloc(x->shard_id, cap * sizeof *grown) : NULL;
                if (grown) {
                    x->shard_id = grown;
                    x->cap = cap;
                } else {
                    s_added = -1;
                }
            }
            if (s_added == 0)
                x->shard_id[number] = s_id;
            /* looked up once all are read (llmmem__names_index): duplicates are found there */
            if (!st && (s_added < 0 || llmmem__names_append(&x->tensors, name, name_len,
                                                            llmmem__names_value(&x->shards, s_id)) < 0))
                st = llmmem__fail(LLMMEM_ERR_NO_MEMORY, "%s: out of memory for the weight_map", where);
        }
        llmmem__json_free(value);
        llmmem__json_free(key);
        if (st)
            break;
    }
    if (!st && x->tensors.n == 0)
        st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: \"weight_map\" is empty", where);
    size_t dup = 0;
    int r = st ? 0 : llmmem__names_index(&x->tensors, &dup);
    if (r < 0)
        st = llmmem__fail(LLMMEM_ERR_NO_MEMORY, "%s: out of memory for the weight_map", where);
    else if (r > 0) {
        size_t n;
        const char *name = llmmem__names_get(&x->tensors, dup, &n);
        st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: weight_map has a duplicate tensor name '%.*s'", where,
                          shown_len(n), name);
    }
    return st;
}

/* "metadata": an object whose total_size, when present, is a non-negative integer. */
static llmmem_status read_index_metadata(const char *where, const char *text, size_t len, const llmmem__json_member *m)
{
    llmmem__json *metadata = NULL;
    llmmem_status st = load_value(&metadata, where, "", text, len, m, ST_SMALL_MAX_VALUES);
    if (st)
        return st;
    if (!metadata)
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: \"metadata\" holds more than %d JSON values", where,
                            ST_SMALL_MAX_VALUES);
    const llmmem__json *total_size =
        llmmem__json_is_object(metadata) ? llmmem__json_object_get(metadata, "total_size") : NULL;
    if (!llmmem__json_is_object(metadata))
        st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: \"metadata\" is a JSON %s, not an object", where, json_kind(metadata));
    else if (total_size && (!llmmem__json_is_integer(total_size) || llmmem__json_integer_value(total_size) < 0))
        st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: \"metadata\".\"total_size\" is a JSON %s, not a non-negative integer",
                          where, json_kind(total_size));
    llmmem__json_free(metadata);
    return st;
}

/* The index's members: metadata, weight_map, and others checked and left. */
static llmmem_status read_index_members(index_state *x, const char *where, const char *text, size_t len)
{
    static const char what[] = "";
    llmmem__json_members it;
    const char *expected = NULL;
    size_t at = 0;
    if (!llmmem__json_members_open(&it, text, len, 0, &expected, &at))
        return not_an_object(where, what, text, len, expected, at);
    llmmem__names keys = {0};
    llmmem_status st = LLMMEM_OK;
    int has_weight_map = 0;
    for (;;) {
        llmmem__json_member m;
        int more = 0;
        llmmem__json *key = NULL, *other = NULL;
        if ((st = next_member(&more, &it, &m, where, what)) || !more)
            break;
        if ((st = member_key(&key, where, what, text, len, &m)))
            break;
        const char *k = llmmem__json_string_value(key);
        size_t kn = llmmem__json_string_length(key);
        int added = llmmem__names_add(&keys, k, kn, 0, NULL);
        if (added < 0) {
            st = llmmem__fail(LLMMEM_ERR_NO_MEMORY, "%s: out of memory", where);
        } else if (added) {
            int line, col;
            llmmem__json_line_col(text, len, m.key_end - 1, &line, &col);
            st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: duplicate key '%.*s' (line %d, column %d)", where,
                              shown_len(kn), k, line, col);
        } else if (strcmp(k, "metadata") == 0) {
            st = read_index_metadata(where, text, len, &m);
        } else if (strcmp(k, "weight_map") == 0) {
            has_weight_map = 1;
            st = read_weight_map(x, where, text, len, &m);
        } else if ((st = load_value(&other, where, what, text, len, &m, ST_SMALL_MAX_VALUES)) == LLMMEM_OK &&
                   !other) {
            st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: member '%.*s' holds more than %d JSON values (an index holds "
                              "\"metadata\" and \"weight_map\")", where, shown_len(kn), k, ST_SMALL_MAX_VALUES);
        }
        llmmem__json_free(other);
        llmmem__json_free(key);
        if (st)
            break;
    }
    llmmem__names_free(&keys);
    if (!st)
        st = check_end(where, what, &it);
    if (!st && !has_weight_map)
        st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: \"weight_map\" is missing", where);
    return st;
}

/* The shard (in order of first mention) that holds checkpoint tensor i. */
static size_t shard_holding(const index_state *x, size_t n_read, size_t i)
{
    size_t lo = 0, hi = n_read; /* first[lo] <= i < first[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (x->first[mid] <= i)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static const char *shard_name(const index_state *x, size_t number)
{
    return llmmem__names_get(&x->shards, x->shard_id[number], NULL);
}

static llmmem_status read_index(llmmem_checkpoint *ck, const char *index_path)
{
    const char *where = tail(index_path);
    index_state x;
    memset(&x, 0, sizeof x);
    char *dir = NULL, *text = NULL;
    size_t len = 0;
    llmmem_status st = llmmem__read_small_file(&text, &len, index_path, where, ST_MAX_INDEX, "an index");
    if (!st)
        st = read_index_members(&x, where, text, len);
    free(text);
    if (st)
        goto done;

    dir = folder_of(index_path);
    x.first = malloc((x.shards.n + 1) * sizeof *x.first);
    if (!dir || !x.first) {
        st = llmmem__fail(LLMMEM_ERR_NO_MEMORY, "%s: out of memory", where);
        goto done;
    }
    for (size_t s = 0; s < x.shards.n; s++) {
        const char *shard = shard_name(&x, s);
        char *path = join(dir, shard);
        if (!path) {
            st = LLMMEM_ERR_NO_MEMORY;
            goto done;
        }
        size_t other = SIZE_MAX;
        x.first[s] = ck->n_tensors;
        st = read_file(ck, path, &other);
        free(path);
        if (st && other != SIZE_MAX) {
            const char *name = ck->tensors[other].name;
            st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: tensor '%.*s' is stored in both %.*s and %.*s", where,
                              shown_len(strlen(name)), name, 80, shard_name(&x, shard_holding(&x, s, other)), 80,
                              shard);
        }
        if (st)
            goto done;
    }
    x.first[x.shards.n] = ck->n_tensors;

    const size_t ahead = LLMMEM_LOOKUPS_AHEAD;
    for (size_t i = 0; i < x.tensors.n && i < ahead; i++)
        llmmem__ck_prefetch(ck, x.tensors.hash[i]);
    size_t i = 0;
    for (size_t id = 0; id < x.tensors.len; id = llmmem__names_next(&x.tensors, id), i++) {
        if (i + ahead < x.tensors.n)
            llmmem__ck_prefetch(ck, x.tensors.hash[i + ahead]);
        size_t name_len, held = 0;
        const char *name = llmmem__names_get(&x.tensors, id, &name_len);
        size_t in_map = llmmem__names_value(&x.tensors, id);
        int stored = llmmem__ck_find_hashed(ck, x.tensors.hash[i], name, name_len, &held);
        size_t in = stored ? shard_holding(&x, x.shards.n, held) : 0;
        if (!stored || in != in_map) {
            st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: weight_map puts tensor '%.*s' in %.*s, but %s%.*s", where,
                              shown_len(name_len), name, 80, shard_name(&x, in_map),
                              stored ? "it is stored in " : "that shard does not hold it", 80,
                              stored ? shard_name(&x, in) : "");
            goto done;
        }
    }

done:
    free(dir);
    free(x.first);
    free(x.shard_id);
    llmmem__names_free(&x.tensors);
    llmmem__names_free(&x.shards);
    return st;
}

/* The config.json of the checkpoint's folder (the folder given, or the one holding the file or index
 * given), read once: tie_word_embeddings (top level, else text_config; absent or null: 0, the stored
 * head stays a parameter), a value that is not a boolean failing the read; and the model it
 * describes, named by `given` (a config that describes none is kept as the reason, as GGUF metadata
 * is: llmmem_checkpoint_model reports it). No config.json: no tie and no model. The file is bounded
 * as hfconfig.c bounds it: LLMMEM_CONFIG_MAX_BYTES and LLMMEM_CONFIG_MAX_VALUES. */
static llmmem_status read_folder_config(llmmem_checkpoint *ck, const char *dir, const char *given)
{
    char *path = join(dir, "config.json");
    if (!path)
        return LLMMEM_ERR_NO_MEMORY;
    const char *where = tail(path);
    struct stat sb;
    if (stat(path, &sb) != 0 && errno == ENOENT) {
        ck->model_status = llmmem__fail(LLMMEM_ERR_INCOMPLETE, "%s: no such file: the config.json beside a "
                                        "safetensors checkpoint describes its model", where);
        snprintf(ck->model_error, sizeof ck->model_error, "%s", llmmem_last_message());
        free(path);
        return LLMMEM_OK;
    }
    llmmem__json *config = NULL;
    char *text = NULL;
    size_t len = 0;
    llmmem_status st = llmmem__read_small_file(&text, &len, path, where, LLMMEM_CONFIG_MAX_BYTES, "a config.json");
    if (!st && llmmem__json_count_values(text, len) > LLMMEM_CONFIG_MAX_VALUES)
        st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: more than the %d JSON values a config.json may have", where,
                          LLMMEM_CONFIG_MAX_VALUES);
    if (!st) {
        llmmem__json_error err;
        config = llmmem__json_load_config(text, len, LLMMEM__JSON_REJECT_DUPLICATES, &err);
        if (!config)
            st = json_fail(where, "", text, len, 0, &err);
        else if (!llmmem__json_is_object(config))
            st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: a JSON %s, not an object", where, json_kind(config));
    }
    if (st == LLMMEM_OK) {
        const llmmem__json *v = llmmem__json_object_get(config, "tie_word_embeddings");
        const llmmem__json *text_config = llmmem__json_object_get(config, "text_config");
        if (!v && llmmem__json_is_object(text_config))
            v = llmmem__json_object_get(text_config, "tie_word_embeddings");
        if (v && !llmmem__json_is_null(v) && !llmmem__json_is_boolean(v))
            st = llmmem__fail(LLMMEM_ERR_PARSE, "%s: \"tie_word_embeddings\" is a JSON %s, not true or false",
                              where, json_kind(v));
        else
            llmmem__ck_mark_tied_head(ck, v && llmmem__json_is_true(v));
    }
    llmmem__json_free(config);
    if (st == LLMMEM_OK) {
        ck->model_status = llmmem__model_from_config_text(&ck->model, text, len, where, given);
        if (ck->model_status == LLMMEM_ERR_NO_MEMORY)
            st = LLMMEM_ERR_NO_MEMORY;
        else if (ck->model_status)
            snprintf(ck->model_error, sizeof ck->model_error, "%s", llmmem_last_message());
    }
    free(text);
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
    char *found = NULL, *dir = NULL;
    int is_index = ends_with(path, ".json");
    size_t other;
    if (S_ISDIR(sb.st_mode))
        st = find_in_folder(&found, &is_index, path);
    const char *file = found ? found : path;
    if (st == LLMMEM_OK)
        st = is_index ? read_index(ck, file) : read_file(ck, file, &other);
    /* the config.json of the folder given, or of the one holding the file or index */
    if (st == LLMMEM_OK && !(dir = S_ISDIR(sb.st_mode) ? join(path, "") : folder_of(path)))
        st = LLMMEM_ERR_NO_MEMORY;
    if (st == LLMMEM_OK)
        st = read_folder_config(ck, dir, path);
    free(dir);
    free(found);
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
    size_t other;
    st = parse_header(&data_size, &other, ck, where, (const char *)bytes + 8, (size_t)n);
    if (st != LLMMEM_OK) {
        llmmem_checkpoint_free(ck);
        return st;
    }
    *out = ck;
    return LLMMEM_OK;
}
