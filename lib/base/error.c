/* Status names, the thread-local last error, and library-allocated strings. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"

static _Thread_local char last_message[LLMMEM_MESSAGE_MAX];
static _Thread_local llmmem_status last_status;

static const char *const status_names[] = {
    [LLMMEM_OK] = "ok",
    [LLMMEM_ERR_INVALID_ARGUMENT] = "invalid argument",
    [LLMMEM_ERR_OUT_OF_RANGE] = "value out of range",
    [LLMMEM_ERR_UNKNOWN_KEY] = "unknown key",
    [LLMMEM_ERR_NOT_FOUND] = "not found",
    [LLMMEM_ERR_INCOMPATIBLE] = "incompatible settings",
    [LLMMEM_ERR_OVERFLOW] = "arithmetic overflow",
    [LLMMEM_ERR_NO_MEMORY] = "out of memory",
    [LLMMEM_ERR_IO] = "input/output error",
    [LLMMEM_ERR_PARSE] = "malformed input",
    [LLMMEM_ERR_UNSUPPORTED] = "not supported",
    [LLMMEM_ERR_INCOMPLETE] = "incomplete settings",
};

const char *llmmem_status_str(llmmem_status status)
{
    if ((unsigned)status < sizeof status_names / sizeof status_names[0] && status_names[status])
        return status_names[status];
    return "unknown status";
}

const char *llmmem_last_message(void)
{
    return last_message;
}

llmmem_status llmmem_last_status(void)
{
    return last_status;
}

/* Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlongs, no surrogates, at most
 * U+10FFFF), 0 if there is none. */
static size_t utf8_sequence(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (n == 0)
        return 0;
    unsigned char lo = 0x80, hi = 0xBF; /* the second byte's range */
    if (c == 0xE0)
        lo = 0xA0;
    else if (c == 0xED)
        hi = 0x9F;
    else if (c == 0xF0)
        lo = 0x90;
    else if (c == 0xF4)
        hi = 0x8F;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return n;
}

/* A message quotes what the user gave, cut to a width: every binding must be able to decode it
 * and a terminal to print it, so bytes that are not UTF-8 text, or are control characters,
 * become '?'. */
static void make_printable(char *message)
{
    unsigned char *p = (unsigned char *)message;
    while (*p) {
        size_t n = utf8_sequence(p);
        if (n == 0 || (n == 1 && (*p < 0x20 || *p == 0x7F))) {
            *p++ = '?';
            continue;
        }
        p += n;
    }
}

llmmem_status llmmem__fail_text(llmmem_status status, const char *text)
{
    last_status = status;
    size_t n = strlen(text);
    if (n >= sizeof last_message)
        n = sizeof last_message - 1;
    memmove(last_message, text, n);
    last_message[n] = '\0';
    make_printable(last_message);
    return status;
}

llmmem_status llmmem__fail(llmmem_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    /* vsnprintf formats into memory only; it never writes to a stream. */
    vsnprintf(last_message, sizeof last_message, fmt, ap);
    va_end(ap);
    make_printable(last_message);
    last_status = status;
    return status;
}

llmmem_status llmmem__fail_null(const char *function, const char *argument)
{
    if (strncmp(function, "llmmem_", 7) == 0 && function[7] != '_')
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", function, argument);
    return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "argument '%s' is NULL", argument);
}

llmmem_status llmmem__fail_prefixed(llmmem_status status, const char *prefix)
{
    char copy[LLMMEM_MESSAGE_MAX]; /* the message is formatted into the buffer it is read from */
    memcpy(copy, last_message, sizeof copy);
    return llmmem__fail(status, "%s: %s", prefix, copy);
}

void llmmem__copy_name(char *dst, const char *src)
{
    size_t n = strlen(src);
    if (n >= LLMMEM_NAME_MAX)
        n = LLMMEM_NAME_MAX - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

void *llmmem__duplicate(const void *handle, size_t size)
{
    void *copy = malloc(size);
    if (!copy) {
        llmmem__fail(LLMMEM_ERR_NO_MEMORY, "clone: out of memory");
        return NULL;
    }
    memcpy(copy, handle, size);
    return copy;
}

void llmmem_string_free(char *s)
{
    free(s);
}

unsigned llmmem_version_number(void)
{
    return LLMMEM_VERSION_NUMBER;
}

const char *llmmem_version_string(void)
{
    return LLMMEM_VERSION_STRING;
}
