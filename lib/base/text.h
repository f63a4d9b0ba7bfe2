/* Internal: a growing text buffer for the library's renderings (JSON, explanations). Not installed. */
#ifndef LLMMEM_TEXT_H
#define LLMMEM_TEXT_H

#include "base/internal.h"

typedef struct llmmem__text {
    char *data; /* NUL-terminated once anything is written */
    size_t len, cap;
    int failed; /* out of memory: later writes do nothing */
} llmmem__text;

void llmmem__text_put(llmmem__text *t, const char *s, size_t n);
void llmmem__text_str(llmmem__text *t, const char *s);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void llmmem__text_printf(llmmem__text *t, const char *fmt, ...);
/* A JSON string literal, escaped per RFC 8259 §7. */
void llmmem__text_quoted(llmmem__text *t, const char *s);
/* Hands the text to *out, or frees it and fails with LLMMEM_ERR_NO_MEMORY naming `what`. */
llmmem_status llmmem__text_finish(char **out, llmmem__text *t, const char *what);

#endif
