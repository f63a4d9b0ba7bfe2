/* libFuzzer target: the library's JSON reader (lib/readers/json.c) against jansson 2.14, whose behaviour
 * it follows. For any bytes and three sets of flags, both accept or both refuse; a refusal has
 * the same words, line, column and position; an acceptance the same tree (kinds, integers, reals
 * to the bit, strings to the byte, members in the same order) and the same end position. Every
 * member is also found by key, through the index of a large object.
 *
 * One difference is on purpose: jansson 2.14 skips a NUL byte that ends a number or a word (its
 * stream forgets a NUL put back), where the reader refuses it as an invalid token. So for input
 * holding a NUL byte only one way is checked: what the reader accepts, jansson accepts alike.
 *
 * Built only with -Dfuzzing=true and jansson installed (a test-only dependency). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "readers/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void differ(const char *what, const uint8_t *data, size_t size, size_t flags)
{
    fprintf(stderr, "fuzz_json_diff: %s (flags 0x%zx, %zu bytes)\n", what, flags, size);
    fwrite(data, 1, size, stderr);
    fputc('\n', stderr);
    abort();
}

/* 1 when our value equals jansson's. */
static int same(const llmmem__json *a, const json_t *b)
{
    switch (llmmem__json_typeof(a)) {
    case LLMMEM__JSON_OBJECT: {
        if (!json_is_object(b) || llmmem__json_object_size(a) != json_object_size(b))
            return 0;
        size_t i = 0;
        for (void *it = json_object_iter((json_t *)b); it; it = json_object_iter_next((json_t *)b, it), i++) {
            const char *key = llmmem__json_object_key(a, i);
            if (!key || strcmp(key, json_object_iter_key(it)) != 0)
                return 0;
            if (llmmem__json_object_get(a, key) != llmmem__json_object_value(a, i))
                return 0;
            if (!same(llmmem__json_object_value(a, i), json_object_iter_value(it)))
                return 0;
        }
        return i == llmmem__json_object_size(a);
    }
    case LLMMEM__JSON_ARRAY:
        if (!json_is_array(b) || llmmem__json_array_size(a) != json_array_size(b))
            return 0;
        for (size_t i = 0; i < json_array_size(b); i++)
            if (!same(llmmem__json_array_get(a, i), json_array_get(b, i)))
                return 0;
        return 1;
    case LLMMEM__JSON_STRING:
        return json_is_string(b) && llmmem__json_string_length(a) == json_string_length(b) &&
               memcmp(llmmem__json_string_value(a), json_string_value(b), json_string_length(b)) == 0 &&
               llmmem__json_string_value(a)[llmmem__json_string_length(a)] == '\0';
    case LLMMEM__JSON_INTEGER:
        return json_is_integer(b) && llmmem__json_integer_value(a) == json_integer_value(b);
    case LLMMEM__JSON_REAL: {
        if (!json_is_real(b))
            return 0;
        double x = llmmem__json_real_value(a), y = json_real_value(b);
        return memcmp(&x, &y, sizeof x) == 0;
    }
    case LLMMEM__JSON_TRUE: return json_is_true(b);
    case LLMMEM__JSON_FALSE: return json_is_false(b);
    case LLMMEM__JSON_NULL: return json_is_null(b);
    }
    return 0;
}

static void check(const uint8_t *data, size_t size, size_t flags, size_t jflags)
{
    llmmem__json_error ours;
    json_error_t theirs;
    llmmem__json *a = llmmem__json_load((const char *)data, size, flags, &ours);
    json_t *b = json_loadb((const char *)data, size, jflags, &theirs);
    if (memchr(data, '\0', size)) {
        if (a && (!b || !same(a, b)))
            differ("accepted here, not alike by jansson (input with NUL)", data, size, flags);
    } else if (!a != !b) {
        fprintf(stderr, "ours: %s; jansson: %s\n", a ? "accepted" : ours.text, b ? "accepted" : theirs.text);
        differ("one accepts, the other refuses", data, size, flags);
    } else if (!a) {
        if (strcmp(ours.text, theirs.text) != 0 || ours.line != theirs.line || ours.column != theirs.column ||
            ours.position != theirs.position) {
            fprintf(stderr, "ours:    %s (line %d, column %d, position %d)\njansson: %s (line %d, column %d, position %d)\n",
                    ours.text, ours.line, ours.column, ours.position, theirs.text, theirs.line, theirs.column,
                    theirs.position);
            differ("errors differ", data, size, flags);
        }
    } else if (!same(a, b) || ours.position != theirs.position) {
        differ("trees differ", data, size, flags);
    }
    llmmem__json_free(a);
    json_decref(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check(data, size, LLMMEM__JSON_REJECT_DUPLICATES, JSON_REJECT_DUPLICATES);
    check(data, size, LLMMEM__JSON_DECODE_ANY | LLMMEM__JSON_ALLOW_NUL, JSON_DECODE_ANY | JSON_ALLOW_NUL);
    check(data, size, LLMMEM__JSON_DECODE_ANY | LLMMEM__JSON_REJECT_DUPLICATES,
          JSON_DECODE_ANY | JSON_REJECT_DUPLICATES);
    return 0;
}
