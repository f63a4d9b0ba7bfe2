/* A growing text buffer shared by the JSON renderings and llmmem_explain. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

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
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->failed = 1;
        return;
    }
    if (!reserve(t, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(t->data + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

void llmmem__text_quoted(llmmem__text *t, const char *s)
{
    llmmem__text_put(t, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            llmmem__text_put(t, esc, 2);
        } else if (c < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            llmmem__text_str(t, esc);
        } else {
            llmmem__text_put(t, (const char *)&c, 1);
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
