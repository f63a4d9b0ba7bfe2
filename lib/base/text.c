/* A growing text buffer shared by the JSON renderings and llmmem_explain. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"

/* Room for n more bytes and the NUL; 0 (and failed set) when memory runs out. */
static int reserve(llmmem__text *t, size_t n)
{
    if (t->failed)
        return 0;
    if (t->len + n + 1 <= t->cap)
        return 1;
    size_t cap = t->cap ? t->cap : 1024;
    while (t->len + n + 1 > cap)
        cap *= 2;
    char *data = realloc(t->data, cap);
    if (!data) {
        t->failed = 1;
        return 0;
    }
    t->data = data;
    t->cap = cap;
    return 1;
}

void llmmem__text_put(llmmem__text *t, const char *s, size_t n)
{
    if (!reserve(t, n))
        return;
    memcpy(t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = '\0';
}

void llmmem__text_str(llmmem__text *t, const char *s)
{
    llmmem__text_put(t, s, strlen(s));
}

void llmmem__text_printf(llmmem__text *t, const char *fmt, ...)
{
    va_list ap;
    if (t->failed)
        return;
    /* formatted once into the room left, which holds nearly every line; again only after growing */
    size_t room = t->cap - t->len;
    va_start(ap, fmt);
    int n = vsnprintf(room ? t->data + t->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->failed = 1;
        return;
    }
    if ((size_t)n >= room) {
        if (!reserve(t, (size_t)n))
            return;
        va_start(ap, fmt);
        vsnprintf(t->data + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
    }
    t->len += (size_t)n;
}

void llmmem__text_quoted(llmmem__text *t, const char *s)
{
    llmmem__text_put(t, "\"", 1);
    while (*s) {
        size_t plain = 0; /* a run of bytes that need no escape, put at once */
        while (s[plain] && s[plain] != '"' && s[plain] != '\\' && (unsigned char)s[plain] >= 0x20)
            plain++;
        llmmem__text_put(t, s, plain);
        s += plain;
        if (!*s)
            break;
        unsigned char c = (unsigned char)*s++;
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            llmmem__text_put(t, esc, 2);
        } else {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            llmmem__text_str(t, esc);
        }
    }
    llmmem__text_put(t, "\"", 1);
}

llmmem_status llmmem__text_finish(char **out, llmmem__text *t, const char *what)
{
    if (t->failed || !t->data) {
        free(t->data);
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "%s: out of memory", what);
    }
    *out = t->data;
    return LLMMEM_OK;
}
