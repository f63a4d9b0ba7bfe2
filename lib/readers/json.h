/* Internal: the library's own strict JSON reader (RFC 8259), used in every build, native and
 * WebAssembly alike, so that the same text gives the same tree and the same message in every
 * host. It builds a read-only tree in one allocation arena.
 *
 * What it accepts, refuses and reports follows jansson 2.14's json_loadb on purpose (the readers'
 * messages and tests were written against it): the same error words, the same line, column and
 * byte position, the same "near '<token>'" context, integers as int64 with overflow refused,
 * reals correctly rounded whatever the locale, a depth limit of 2048 values, objects in document
 * order. One deliberate difference: a NUL byte that ends a number or a word is refused as an
 * invalid token here, where jansson 2.14 skips it (a raw NUL is never valid JSON).
 *
 * Names carry the llmmem__json_ prefix and nothing is exported, so a host may link jansson
 * beside the static library. */
#ifndef LLMMEM_JSON_H
#define LLMMEM_JSON_H

#include <stddef.h>
#include <stdint.h>

/* The kinds, in jansson's json_type order. */
typedef enum llmmem__json_kind {
    LLMMEM__JSON_OBJECT,
    LLMMEM__JSON_ARRAY,
    LLMMEM__JSON_STRING,
    LLMMEM__JSON_INTEGER,
    LLMMEM__JSON_REAL,
    LLMMEM__JSON_TRUE,
    LLMMEM__JSON_FALSE,
    LLMMEM__JSON_NULL
} llmmem__json_kind;

/* Flags of llmmem__json_load. */
#define LLMMEM__JSON_REJECT_DUPLICATES 0x1u /* a key met twice in one object is an error */
#define LLMMEM__JSON_DECODE_ANY 0x4u        /* the document may be a string, number, true, false or null */
#define LLMMEM__JSON_ALLOW_NUL 0x10u        /* a string value may hold \u0000 (a key never may) */

/* Containers nested deeper than this (the document itself is level 1) are an error. */
#define LLMMEM__JSON_MAX_DEPTH 2048
#define LLMMEM__JSON_ERROR_TEXT_LENGTH 160

/* Where and why a load failed: line and column are 1-based and count characters (a newline
 * starts a line at column 0), position counts bytes, each where the reader stood when it gave up.
 * After a successful load, text is empty, line and column are -1 and position is the length. */
typedef struct llmmem__json_error {
    int line;
    int column;
    int position;
    char text[LLMMEM__JSON_ERROR_TEXT_LENGTH];
} llmmem__json_error;

typedef struct llmmem__json llmmem__json;
typedef struct llmmem__json_entry llmmem__json_entry;

/* A value. Read it through the functions below only. */
struct llmmem__json {
    uint8_t kind;    /* llmmem__json_kind */
    uint32_t mask;   /* an object's index: slots - 1 (0: no index) */
    size_t n;        /* a string's bytes, an array's values, an object's members */
    union {
        int64_t integer;
        double real;
        const char *string;          /* NUL-terminated; may hold NUL with LLMMEM__JSON_ALLOW_NUL */
        llmmem__json *items;         /* an array's values */
        llmmem__json_entry *members; /* an object's members in document order */
    } u;
    uint32_t *index; /* an object's hash index (member + 1 per slot, 0: empty), NULL when small */
};

struct llmmem__json_entry {
    const char *key; /* NUL-terminated, never holds NUL */
    size_t key_len;
    uint32_t hash;
    llmmem__json value;
};

/* Parses text[0, len) (no terminating NUL needed) with LLMMEM__JSON_* flags. The document, or
 * NULL with *err set (err may be NULL); an allocation failure is an error too ("out of memory"). */
llmmem__json *llmmem__json_load(const char *text, size_t len, size_t flags, llmmem__json_error *err);
/* Frees a document llmmem__json_load returned (never a value inside one); NULL is ignored. */
void llmmem__json_free(llmmem__json *doc);

/* LLMMEM__JSON_NULL for a NULL pointer. */
llmmem__json_kind llmmem__json_typeof(const llmmem__json *v);
/* Kind tests; each is 0 for a NULL pointer. */
int llmmem__json_is_object(const llmmem__json *v);
int llmmem__json_is_array(const llmmem__json *v);
int llmmem__json_is_string(const llmmem__json *v);
int llmmem__json_is_integer(const llmmem__json *v);
int llmmem__json_is_real(const llmmem__json *v);
int llmmem__json_is_number(const llmmem__json *v); /* integer or real */
int llmmem__json_is_true(const llmmem__json *v);
int llmmem__json_is_false(const llmmem__json *v);
int llmmem__json_is_boolean(const llmmem__json *v);
int llmmem__json_is_null(const llmmem__json *v);

/* An object's member by key (a NUL-terminated key, or key_len bytes): NULL when absent or when
 * obj is not an object. Objects of more than 8 members are looked up through a hash index. */
llmmem__json *llmmem__json_object_get(const llmmem__json *obj, const char *key);
llmmem__json *llmmem__json_object_getn(const llmmem__json *obj, const char *key, size_t key_len);
/* Members in document order: the count (0 for a non-object), and the i-th key and value (NULL
 * past the end). */
size_t llmmem__json_object_size(const llmmem__json *obj);
const char *llmmem__json_object_key(const llmmem__json *obj, size_t i);
llmmem__json *llmmem__json_object_value(const llmmem__json *obj, size_t i);

/* An array's values: the count (0 for a non-array) and the i-th (NULL past the end). */
size_t llmmem__json_array_size(const llmmem__json *arr);
llmmem__json *llmmem__json_array_get(const llmmem__json *arr, size_t i);

/* A string's bytes (NUL-terminated) and length: NULL and 0 for a non-string. */
const char *llmmem__json_string_value(const llmmem__json *v);
size_t llmmem__json_string_length(const llmmem__json *v);
/* An integer's value: 0 for a non-integer. */
int64_t llmmem__json_integer_value(const llmmem__json *v);
/* A real's value: 0.0 for a non-real. */
double llmmem__json_real_value(const llmmem__json *v);
/* An integer's or a real's value as a double: 0.0 for anything else. */
double llmmem__json_number_value(const llmmem__json *v);

/* The length of the well-formed UTF-8 character at text[i] (a byte of 0x80 or more), or 0: a
 * continuation or an overlong, surrogate or out-of-range form, or one cut by the end of the text. */
size_t llmmem__utf8_length(const char *text, size_t len, size_t i);

#endif
