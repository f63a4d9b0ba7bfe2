/* The JSON reader (lib/readers/json.c): every error it words, with the line, column and byte position
 * where it stops, counted by hand from the texts below (a column counts characters up to and
 * including the last one read; a position counts bytes); numbers at the edges of int64 and
 * double; strings, escapes and UTF-8; the depth limit; duplicate keys; members in document order
 * and found by key in large objects. The expectations are jansson 2.14's (the reader follows it
 * on purpose), but for the one case noted where jansson skips a NUL byte. */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "readers/json.h"
#include "unit.h"

/* The reader's allocations fail on demand: tests/meson.build links this suite with
 * -Wl,--wrap=malloc,calloc,realloc. fail_after counts the allocations left before one fails
 * (-1: none fails). */
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
static long fail_after = -1;

static int allocation_fails(void)
{
    if (fail_after < 0)
        return 0;
    return fail_after-- == 0;
}

void *__wrap_malloc(size_t n)
{
    return allocation_fails() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return allocation_fails() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
    return allocation_fails() ? NULL : __real_realloc(p, n);
}

#define REJECT LLMMEM__JSON_REJECT_DUPLICATES
#define ANY LLMMEM__JSON_DECODE_ANY
#define NUL_OK LLMMEM__JSON_ALLOW_NUL

struct bad_case {
    const char *text;
    size_t len; /* 0: strlen(text) */
    size_t flags;
    const char *error;
    int line, column, position;
};

static const struct bad_case bad_cases[] = {
    /* structure */
    {"", 0, 0, "'[' or '{' expected near end of file", 1, 0, 0},
    {"1", 0, 0, "'[' or '{' expected near '1'", 1, 1, 1},
    {"  ", 0, ANY, "unexpected token near end of file", 1, 2, 2},
    {"{", 0, 0, "string or '}' expected near end of file", 1, 1, 1},
    {"{1:2}", 0, 0, "string or '}' expected near '1'", 1, 2, 2},
    {"{\"a\" 1}", 0, 0, "':' expected near '1'", 1, 6, 6},
    {"{\"a\":1 \"b\":2}", 0, 0, "'}' expected near '\"b\"'", 1, 10, 10},
    {"{\"a\":1,}", 0, 0, "string or '}' expected near '}'", 1, 8, 8},
    {"{\"a\":}", 0, 0, "unexpected token near '}'", 1, 6, 6},
    {"[1 2]", 0, 0, "']' expected near '2'", 1, 4, 4},
    {"[1,]", 0, 0, "unexpected token near ']'", 1, 4, 4},
    {"[1,", 0, 0, "']' expected near end of file", 1, 3, 3},
    {"[", 0, 0, "']' expected near end of file", 1, 1, 1},
    {"[}", 0, 0, "unexpected token near '}'", 1, 2, 2},
    {"[1] x", 0, 0, "end of file expected near 'x'", 1, 5, 5},
    {"[1] [2]", 0, 0, "end of file expected near '['", 1, 5, 5},
    {"[tru]", 0, 0, "invalid token near 'tru'", 1, 4, 4},
    {"[truefalse]", 0, 0, "invalid token near 'truefalse'", 1, 10, 10},
    {"[abcdefghijklmnopqrstuvwxyz]", 0, 0, "invalid token", 1, 27, 27}, /* over 20 bytes: no context */
    {"[+1]", 0, 0, "invalid token near '+'", 1, 2, 2},
    {"\n\n  x", 0, ANY, "invalid token near 'x'", 3, 3, 5},
    {"[\"\xc3\xa9\", x]", 0, 0, "invalid token near 'x'", 1, 7, 8}, /* é: one column, two bytes */
    {"[\xc3\xa9]", 0, 0, "invalid token near '\xc3\xa9'", 1, 2, 3},
    /* strings */
    {"[\"a\nb\"]", 0, 0, "unexpected newline near '\"a'", 1, 3, 3},
    {"[\"a\x01\"]", 0, 0, "control character 0x1 near '\"a'", 1, 3, 3},
    {"[\"\x1f\"]", 0, 0, "control character 0x1f near '\"'", 1, 2, 2},
    {"[\"\\x\"]", 0, 0, "invalid escape near '\"\\x'", 1, 4, 4},
    {"[\"\\", 0, 0, "invalid escape near '\"\\'", 1, 3, 3},
    {"[\"\\u12g4\"]", 0, 0, "invalid escape near '\"\\u12g'", 1, 7, 7},
    {"[\"\\u12", 0, 0, "invalid escape near '\"\\u12'", 1, 6, 6},
    {"[\"abc", 0, 0, "premature end of input near '\"abc'", 1, 5, 5},
    {"[\"\\ud800\"]", 0, 0, "invalid Unicode '\\uD800' near '\"\\ud800\"'", 1, 9, 9},
    {"[\"\\ud800\\u0041\"]", 0, 0, "invalid Unicode '\\uD800\\u0041' near '\"\\ud800\\u0041\"'", 1, 15, 15},
    {"[\"\\udc00\"]", 0, 0, "invalid Unicode '\\uDC00' near '\"\\udc00\"'", 1, 9, 9},
    /* an unpaired surrogate is found when the string is decoded, after its reading's errors */
    {"[\"\\ud800\\x\"]", 0, 0, "invalid escape near '\"\\ud800\\x'", 1, 10, 10},
    {"[\"\\u0000\"]", 0, 0, "\\u0000 is not allowed without JSON_ALLOW_NUL near '\"\\u0000\"'", 1, 9, 9},
    {"{\"\\u0000\":1}", 0, NUL_OK, "NUL byte in object key not supported near '\"\\u0000\"'", 1, 9, 9},
    {"[\"abcdefghijklmnopqrstuvwxyz\\q\"]", 0, 0, "invalid escape", 1, 30, 30},
    /* UTF-8 */
    {"[\xff]", 0, 0, "unable to decode byte 0xff", 1, 1, 1},
    {"[\"a\xc3\"]", 0, 0, "unable to decode byte 0xc3 near '\"a'", 1, 3, 3},
    {"[\"\xed\xa0\x80\"]", 0, 0, "unable to decode byte 0xed near '\"'", 1, 2, 2}, /* a surrogate */
    {"[\"\xc0\xaf\"]", 0, 0, "unable to decode byte 0xc0 near '\"'", 1, 2, 2},     /* overlong */
    {"[\"\xf4\x90\x80\x80\"]", 0, 0, "unable to decode byte 0xf4 near '\"'", 1, 2, 2}, /* > U+10FFFF */
    {"[1\x80]", 0, 0, "unable to decode byte 0x80 near '1'", 1, 2, 2},
    {"[\xe2\x82", 0, 0, "unable to decode byte 0xe2", 1, 1, 1}, /* cut by the end */
    /* numbers */
    {"[9223372036854775808]", 0, 0, "too big integer near '9223372036854775808'", 1, 20, 20},
    {"[-9223372036854775809]", 0, 0, "too big negative integer near '-9223372036854775809'", 1, 21, 21},
    {"[1e400]", 0, 0, "real number overflow near '1e400'", 1, 6, 6},
    {"[-1.8e308]", 0, 0, "real number overflow near '-1.8e308'", 1, 9, 9},
    {"[01]", 0, 0, "invalid token near '0'", 1, 2, 2},
    {"[-]", 0, 0, "invalid token near '-'", 1, 2, 2},
    {"[-a]", 0, 0, "invalid token near '-'", 1, 2, 2},
    {"[1.]", 0, 0, "invalid token near '1.'", 1, 3, 3},
    {"[.5]", 0, 0, "invalid token near '.'", 1, 2, 2},
    {"[1e+]", 0, 0, "invalid token near '1e+'", 1, 4, 4},
    {"[1E]", 0, 0, "invalid token near '1E'", 1, 3, 3},
    {"[1.5x]", 0, 0, "']' expected near 'x'", 1, 5, 5},
    {"[Infinity]", 0, 0, "invalid token near 'Infinity'", 1, 9, 9},
    /* duplicates: refused after the repeated key */
    {"{\"a\":1,\"a\":2}", 0, REJECT, "duplicate object key near '\"a\"'", 1, 10, 10},
    {"{\"x\":{\"a\":1,\"b\":{\"a\":1},\"b\":2}}", 0, REJECT, "duplicate object key near '\"b\"'", 1, 27, 27},
    /* raw NUL bytes: a token without text ("near end of file"); jansson skips the one after "1"
     * and accepts the second text, the reader refuses it */
    {"{}\0", 3, 0, "end of file expected near end of file", 1, 3, 3},
    {"1\0", 2, ANY, "end of file expected near end of file", 1, 2, 2},
};

START_TEST(test_errors)
{
    const struct bad_case *c = &bad_cases[_i];
    size_t len = c->len ? c->len : strlen(c->text);
    llmmem__json_error err;
    llmmem__json *v = llmmem__json_load(c->text, len, c->flags, &err);
    ck_assert_msg(v == NULL, "case %d accepted", _i);
    ck_assert_msg(strcmp(err.text, c->error) == 0, "case %d: '%s', expected '%s'", _i, err.text, c->error);
    ck_assert_msg(err.line == c->line && err.column == c->column && err.position == c->position,
                  "case %d: line %d column %d position %d, expected %d %d %d", _i, err.line, err.column,
                  err.position, c->line, c->column, c->position);
    /* err may be NULL */
    ck_assert_ptr_null(llmmem__json_load(c->text, len, c->flags, NULL));
}
END_TEST

static llmmem__json *load(const char *text, size_t flags)
{
    llmmem__json_error err;
    llmmem__json *v = llmmem__json_load(text, strlen(text), flags, &err);
    ck_assert_msg(v != NULL, "'%s' refused: %s (line %d, column %d)", text, err.text, err.line, err.column);
    ck_assert_str_eq(err.text, "");
    ck_assert_int_eq(err.line, -1);
    ck_assert_int_eq(err.column, -1);
    ck_assert_int_eq(err.position, (int)strlen(text));
    return v;
}

START_TEST(test_numbers)
{
    llmmem__json *v = load("[0, -0, 9223372036854775807, -9223372036854775808, 1.5, -0.0, 1e-400, 2.5E+2, 1E2,"
                           " 4.9406564584124654e-324, 0.1, 1.7976931348623157e308, 123456789012345678901234567890.0,"
                           " 0.1000000000000000055511151231257827021181583404541015625, 5e-324, 2.4703282292062328e-324]",
                           0);
    ck_assert_uint_eq(llmmem__json_array_size(v), 16);
    const llmmem__json *e = llmmem__json_array_get(v, 0);
    ck_assert(llmmem__json_is_integer(e) && llmmem__json_integer_value(e) == 0);
    e = llmmem__json_array_get(v, 1); /* -0 is the integer 0 */
    ck_assert(llmmem__json_is_integer(e) && llmmem__json_integer_value(e) == 0);
    ck_assert(llmmem__json_integer_value(llmmem__json_array_get(v, 2)) == INT64_MAX);
    ck_assert(llmmem__json_integer_value(llmmem__json_array_get(v, 3)) == INT64_MIN);
    e = llmmem__json_array_get(v, 4);
    ck_assert(llmmem__json_is_real(e) && llmmem__json_real_value(e) == 1.5);
    e = llmmem__json_array_get(v, 5);
    ck_assert(llmmem__json_is_real(e) && llmmem__json_real_value(e) == 0.0 && signbit(llmmem__json_real_value(e)));
    e = llmmem__json_array_get(v, 6); /* underflow: a value, zero */
    ck_assert(llmmem__json_is_real(e) && llmmem__json_real_value(e) == 0.0 && !signbit(llmmem__json_real_value(e)));
    ck_assert(llmmem__json_real_value(llmmem__json_array_get(v, 7)) == 250.0);
    e = llmmem__json_array_get(v, 8); /* an exponent makes a real */
    ck_assert(llmmem__json_is_real(e) && llmmem__json_real_value(e) == 100.0);
    ck_assert(llmmem__json_real_value(llmmem__json_array_get(v, 9)) == 4.9406564584124654e-324);
    ck_assert(llmmem__json_real_value(llmmem__json_array_get(v, 10)) == 0.1);
    ck_assert(llmmem__json_real_value(llmmem__json_array_get(v, 11)) == 1.7976931348623157e308);
    e = llmmem__json_array_get(v, 12); /* an integer too big is an error, but with a '.' a real */
    ck_assert(llmmem__json_is_real(e) && llmmem__json_real_value(e) == 123456789012345678901234567890.0);
    ck_assert(llmmem__json_real_value(llmmem__json_array_get(v, 13)) == 0.1); /* 0.1's exact value */
    ck_assert(llmmem__json_real_value(llmmem__json_array_get(v, 14)) == 4.9406564584124654e-324);
    /* just above half the smallest subnormal: rounds up to it */
    ck_assert(llmmem__json_real_value(llmmem__json_array_get(v, 15)) == 4.9406564584124654e-324);
    /* number_value reads both kinds */
    ck_assert(llmmem__json_number_value(llmmem__json_array_get(v, 2)) == 9223372036854775807.0);
    ck_assert(llmmem__json_number_value(llmmem__json_array_get(v, 4)) == 1.5);
    ck_assert(llmmem__json_is_number(llmmem__json_array_get(v, 4)) && llmmem__json_is_number(llmmem__json_array_get(v, 0)));
    llmmem__json_free(v);
}
END_TEST

/* The same digits without the '.': an integer, too big (over 20 bytes, so without context). */
START_TEST(test_big_integer_alone)
{
    llmmem__json_error err;
    ck_assert_ptr_null(llmmem__json_load("[123456789012345678901234567890]", 32, 0, &err));
    ck_assert_str_eq(err.text, "too big integer");
    ck_assert_int_eq(err.position, 31);
}
END_TEST

/* Long mantissas are rounded once, correctly: 400 digits of 1/3 and a 1000-digit integer part. */
START_TEST(test_long_reals)
{
    char text[2100];
    size_t n = 0;
    text[n++] = '[';
    text[n++] = '0';
    text[n++] = '.';
    for (int i = 0; i < 400; i++)
        text[n++] = '3';
    text[n++] = ',';
    text[n++] = '1';
    for (int i = 0; i < 1000; i++)
        text[n++] = '0';
    memcpy(text + n, "e-1000]", 8);
    llmmem__json *v = load(text, 0);
    ck_assert(llmmem__json_real_value(llmmem__json_array_get(v, 0)) == 1.0 / 3.0);
    ck_assert(llmmem__json_real_value(llmmem__json_array_get(v, 1)) == 1.0);
    llmmem__json_free(v);
}
END_TEST

START_TEST(test_strings)
{
    llmmem__json *v = load("[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\", \"\\u00e9\\u20AC\", \"\\ud83d\\ude00\", \"caf\xc3\xa9 \xf0\x9f\x98\x80\","
                           " \"\", \"\x7f\"]",
                           0);
    ck_assert_str_eq(llmmem__json_string_value(llmmem__json_array_get(v, 0)), "\"\\/\b\f\n\r\t");
    ck_assert_uint_eq(llmmem__json_string_length(llmmem__json_array_get(v, 0)), 8);
    ck_assert_str_eq(llmmem__json_string_value(llmmem__json_array_get(v, 1)), "\xc3\xa9\xe2\x82\xac");
    ck_assert_str_eq(llmmem__json_string_value(llmmem__json_array_get(v, 2)), "\xf0\x9f\x98\x80");
    ck_assert_str_eq(llmmem__json_string_value(llmmem__json_array_get(v, 3)), "caf\xc3\xa9 \xf0\x9f\x98\x80");
    ck_assert_str_eq(llmmem__json_string_value(llmmem__json_array_get(v, 4)), "");
    ck_assert_str_eq(llmmem__json_string_value(llmmem__json_array_get(v, 5)), "\x7f");
    llmmem__json_free(v);
    /* \u0000 with LLMMEM__JSON_ALLOW_NUL: a byte of the value, which stays NUL-terminated too */
    v = load("\"a\\u0000b\"", ANY | NUL_OK);
    ck_assert(llmmem__json_is_string(v));
    ck_assert_uint_eq(llmmem__json_string_length(v), 3);
    ck_assert(memcmp(llmmem__json_string_value(v), "a\0b", 4) == 0);
    llmmem__json_free(v);
}
END_TEST

START_TEST(test_scalars_and_kinds)
{
    static const struct {
        const char *text;
        llmmem__json_kind kind;
    } docs[] = {
        {"\"x\"", LLMMEM__JSON_STRING}, {" true ", LLMMEM__JSON_TRUE},  {"false", LLMMEM__JSON_FALSE},
        {"null\n", LLMMEM__JSON_NULL},  {"-12", LLMMEM__JSON_INTEGER}, {"1.0", LLMMEM__JSON_REAL},
        {"{}", LLMMEM__JSON_OBJECT},    {"[]", LLMMEM__JSON_ARRAY},
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        llmmem__json *v = load(docs[i].text, ANY);
        ck_assert_int_eq(llmmem__json_typeof(v), docs[i].kind);
        llmmem__json_free(v);
    }
    /* NULL reads as nothing */
    ck_assert(!llmmem__json_is_null(NULL) && !llmmem__json_is_object(NULL) && !llmmem__json_is_boolean(NULL));
    ck_assert_ptr_null(llmmem__json_object_get(NULL, "a"));
    ck_assert_ptr_null(llmmem__json_array_get(NULL, 0));
    ck_assert_uint_eq(llmmem__json_array_size(NULL), 0);
    ck_assert_uint_eq(llmmem__json_object_size(NULL), 0);
    ck_assert_ptr_null(llmmem__json_string_value(NULL));
    ck_assert(llmmem__json_integer_value(NULL) == 0 && llmmem__json_number_value(NULL) == 0.0);
    llmmem__json_free(NULL);
    /* a kind's getter on another kind */
    llmmem__json *v = load("[true, \"1\", 1]", 0);
    ck_assert(llmmem__json_is_boolean(llmmem__json_array_get(v, 0)) && llmmem__json_is_true(llmmem__json_array_get(v, 0)));
    ck_assert(llmmem__json_integer_value(llmmem__json_array_get(v, 1)) == 0);
    ck_assert_ptr_null(llmmem__json_string_value(llmmem__json_array_get(v, 2)));
    ck_assert_ptr_null(llmmem__json_array_get(v, 3));
    ck_assert_ptr_null(llmmem__json_object_get(v, "a"));
    llmmem__json_free(v);
}
END_TEST

START_TEST(test_document_order_and_duplicates)
{
    llmmem__json *v = load("{\"z\": 1, \"a\": {\"y\": [1, 2], \"b\": null}, \"m\": \"s\"}", REJECT);
    ck_assert_uint_eq(llmmem__json_object_size(v), 3);
    ck_assert_str_eq(llmmem__json_object_key(v, 0), "z");
    ck_assert_str_eq(llmmem__json_object_key(v, 1), "a");
    ck_assert_str_eq(llmmem__json_object_key(v, 2), "m");
    ck_assert_ptr_null(llmmem__json_object_key(v, 3));
    ck_assert_ptr_null(llmmem__json_object_value(v, 3));
    const llmmem__json *a = llmmem__json_object_get(v, "a");
    ck_assert_ptr_eq(a, llmmem__json_object_value(v, 1));
    ck_assert_str_eq(llmmem__json_object_key(a, 0), "y");
    ck_assert_uint_eq(llmmem__json_array_size(llmmem__json_object_get(a, "y")), 2);
    ck_assert(llmmem__json_is_null(llmmem__json_object_get(a, "b")));
    ck_assert_ptr_null(llmmem__json_object_get(a, "c"));
    ck_assert_ptr_eq(llmmem__json_object_getn(v, "zz", 1), llmmem__json_object_value(v, 0));
    llmmem__json_free(v);
    /* without LLMMEM__JSON_REJECT_DUPLICATES a repeated key keeps its place and takes the last value */
    v = load("{\"a\": 1, \"b\": 2, \"a\": [3]}", 0);
    ck_assert_uint_eq(llmmem__json_object_size(v), 2);
    ck_assert_str_eq(llmmem__json_object_key(v, 0), "a");
    ck_assert(llmmem__json_is_array(llmmem__json_object_value(v, 0)));
    ck_assert(llmmem__json_integer_value(llmmem__json_object_get(v, "b")) == 2);
    llmmem__json_free(v);
}
END_TEST

/* 100,000 keys: each found by key through the index, in order, and a repeat of the first refused
 * at the end (which a quadratic search would take minutes to reach). */
START_TEST(test_big_object)
{
    enum { KEYS = 100000 };
    size_t cap = (size_t)KEYS * 20 + 64, n = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    text[n++] = '{';
    for (int i = 0; i < KEYS; i++)
        n += (size_t)snprintf(text + n, cap - n, "%s\"k%d\":%d", i ? "," : "", i, i);
    size_t closed = n;
    text[n++] = '}';
    text[n] = '\0';
    llmmem__json *v = load(text, REJECT);
    ck_assert_uint_eq(llmmem__json_object_size(v), KEYS);
    char key[16];
    for (int i = 0; i < KEYS; i++) {
        snprintf(key, sizeof key, "k%d", i);
        ck_assert_str_eq(llmmem__json_object_key(v, (size_t)i), key);
        ck_assert(llmmem__json_integer_value(llmmem__json_object_get(v, key)) == i);
    }
    ck_assert_ptr_null(llmmem__json_object_get(v, "k100000"));
    llmmem__json_free(v);
    /* the first key again, last */
    n = closed + (size_t)snprintf(text + closed, cap - closed, ",\"k0\":1}");
    llmmem__json_error err;
    ck_assert_ptr_null(llmmem__json_load(text, n, REJECT, &err));
    ck_assert_str_eq(err.text, "duplicate object key near '\"k0\"'");
    ck_assert_int_eq(err.position, (int)n - 3);
    ck_assert_int_eq(err.column, (int)n - 3);
    /* a large array of small objects */
    n = 0;
    text[n++] = '[';
    for (int i = 0; i < KEYS; i++)
        n += (size_t)snprintf(text + n, cap - n, "%s{\"a\":%d}", i ? "," : "", i);
    text[n++] = ']';
    text[n] = '\0';
    v = load(text, REJECT);
    ck_assert_uint_eq(llmmem__json_array_size(v), KEYS);
    ck_assert(llmmem__json_integer_value(llmmem__json_object_get(llmmem__json_array_get(v, KEYS - 1), "a")) ==
              KEYS - 1);
    llmmem__json_free(v);
    free(text);
}
END_TEST

/* 2048 values deep is the limit, the document itself being the first; the next level is refused
 * where its token ends. */
START_TEST(test_depth)
{
    enum { D = LLMMEM__JSON_MAX_DEPTH };
    char *text = malloc(2 * D + 8);
    ck_assert_ptr_nonnull(text);
    memset(text, '[', D);
    memset(text + D, ']', D);
    text[2 * D] = '\0';
    llmmem__json *v = load(text, 0);
    const llmmem__json *inner = v;
    for (int i = 1; i < D; i++)
        inner = llmmem__json_array_get(inner, 0);
    ck_assert(llmmem__json_is_array(inner) && llmmem__json_array_size(inner) == 0);
    llmmem__json_free(v);
    llmmem__json_error err;
    /* a value inside the deepest array: level 2049 */
    memset(text, '[', D);
    text[D] = '1';
    memset(text + D + 1, ']', D);
    ck_assert_ptr_null(llmmem__json_load(text, 2 * D + 1, 0, &err));
    ck_assert_str_eq(err.text, "maximum parsing depth reached near '1'");
    ck_assert_int_eq(err.position, D + 1);
    /* one bracket more */
    memset(text, '[', D + 1);
    memset(text + D + 1, ']', D + 1);
    ck_assert_ptr_null(llmmem__json_load(text, 2 * D + 2, 0, &err));
    ck_assert_str_eq(err.text, "maximum parsing depth reached near '['");
    ck_assert_int_eq(err.line, 1);
    ck_assert_int_eq(err.column, D + 1);
    ck_assert_int_eq(err.position, D + 1);
    free(text);
    /* a million brackets cost no stack: refused at the same place */
    size_t big = 1000000;
    text = malloc(big);
    ck_assert_ptr_nonnull(text);
    memset(text, '[', big);
    ck_assert_ptr_null(llmmem__json_load(text, big, 0, &err));
    ck_assert_int_eq(err.position, D + 1);
    free(text);
}
END_TEST

/* A host with a decimal comma reads "1.5" as 1.5 (tests/meson.build compiles de_DE.UTF-8). */
START_TEST(test_locale)
{
    if (!setlocale(LC_ALL, "de_DE.UTF-8")) {
        ck_assert_msg(getenv("LLMMEM_REQUIRE_LOCALE") == NULL, "de_DE.UTF-8 could not be loaded");
        return;
    }
    ck_assert_str_eq(localeconv()->decimal_point, ",");
    llmmem__json *v = load("[1.5, 2.5e-1, 1e2]", 0);
    ck_assert(llmmem__json_real_value(llmmem__json_array_get(v, 0)) == 1.5);
    ck_assert(llmmem__json_real_value(llmmem__json_array_get(v, 1)) == 0.25);
    ck_assert(llmmem__json_real_value(llmmem__json_array_get(v, 2)) == 100.0);
    llmmem__json_free(v);
    setlocale(LC_ALL, "C");
}
END_TEST

/* The text needs no terminating NUL: only len bytes are read. */
START_TEST(test_length_bound)
{
    const char text[] = "[1, 2]garbage";
    llmmem__json *v = llmmem__json_load(text, 6, 0, NULL);
    ck_assert_ptr_nonnull(v);
    ck_assert_uint_eq(llmmem__json_array_size(v), 2);
    llmmem__json_free(v);
    llmmem__json_error err;
    ck_assert_ptr_null(llmmem__json_load("[12345", 3, 0, &err)); /* "[12" */
    ck_assert_str_eq(err.text, "']' expected near end of file");
    ck_assert_int_eq(err.position, 3);
    ck_assert_ptr_null(llmmem__json_load(NULL, 5, ANY, &err));
    ck_assert_str_eq(err.text, "unexpected token near end of file");
}
END_TEST

/* Each allocation of a load failing in turn: "out of memory" and nothing left behind (the
 * sanitizer build finds a leak), until the load needs no more and succeeds. */
START_TEST(test_allocation_failures)
{
    char text[4096];
    size_t n = 0;
    n += (size_t)snprintf(text + n, sizeof text - n, "{\"big\": {");
    for (int i = 0; i < 40; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s\"k%d\": [%d, \"s\\u00e9%d\", {\"x\": null}]", i ? "," : "", i,
                              i, i);
    n += (size_t)snprintf(text + n, sizeof text - n, "}, \"real\": 0.");
    for (int i = 0; i < 200; i++) /* a mantissa too long for the converter's own buffer */
        text[n++] = '1';
    n += (size_t)snprintf(text + n, sizeof text - n, ", \"s\": \"%0500d\"}", 7);
    int failures = 0;
    for (long k = 0;; k++) {
        llmmem__json_error err;
        fail_after = k;
        llmmem__json *v = llmmem__json_load(text, n, REJECT, &err);
        fail_after = -1;
        if (v) {
            ck_assert_uint_eq(llmmem__json_object_size(llmmem__json_object_get(v, "big")), 40);
            ck_assert(llmmem__json_real_value(llmmem__json_object_get(v, "real")) > 0.111);
            llmmem__json_free(v);
            break;
        }
        ck_assert_msg(strncmp(err.text, "out of memory", 13) == 0, "allocation %ld: '%s'", k, err.text);
        failures++;
        ck_assert_int_lt(failures, 10000);
    }
    ck_assert_int_gt(failures, 3); /* the document, the stacks, the arena and the converter */
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("json");
    TCase *tc = tcase_create("core");
    tcase_add_loop_test(tc, test_errors, 0, (int)(sizeof bad_cases / sizeof bad_cases[0]));
    tcase_add_test(tc, test_numbers);
    tcase_add_test(tc, test_big_integer_alone);
    tcase_add_test(tc, test_long_reals);
    tcase_add_test(tc, test_strings);
    tcase_add_test(tc, test_scalars_and_kinds);
    tcase_add_test(tc, test_document_order_and_duplicates);
    tcase_add_test(tc, test_big_object);
    tcase_add_test(tc, test_depth);
    tcase_add_test(tc, test_locale);
    tcase_add_test(tc, test_length_bound);
    tcase_add_test(tc, test_allocation_failures);
    suite_add_tcase(suite, tc);
    return run_suite(suite);
}
