/* The library's strict JSON reader (json.h): a lexer that reads the text as jansson 2.14's stream
 * does (so that errors stop at the same byte with the same words), a parser driven by an explicit
 * stack of open containers (no recursion), and a tree whose nodes, strings and indexes live in
 * one arena freed at once. */

#include "readers/json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the arena --------------------------------------------------------------------------------- */

/* Blocks are chained; a request larger than a block gets a block of its own. */
typedef struct arena_block {
    struct arena_block *next;
    size_t used, cap;
    /* the data follows, aligned for any value */
} arena_block;

#define ARENA_ALIGN 8u
#define ARENA_HEADER ((sizeof(arena_block) + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1))
#define ARENA_FIRST 4096u
#define ARENA_LARGEST (1u << 20)

typedef struct arena {
    arena_block *head; /* the block being filled */
    size_t next_cap;
    void *last;        /* the latest allocation, when it came from the head block */
} arena;

static void *arena_alloc(arena *a, size_t size)
{
    size_t need = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (need < size)
        return NULL;
    arena_block *b = a->head;
    if (b && b->cap - b->used >= need) {
        void *p = (char *)b + ARENA_HEADER + b->used;
        b->used += need;
        a->last = p;
        return p;
    }
    size_t cap = a->next_cap < ARENA_FIRST ? ARENA_FIRST : a->next_cap;
    if (cap < need)
        cap = need;
    if (cap > SIZE_MAX - ARENA_HEADER)
        return NULL;
    arena_block *nb = malloc(ARENA_HEADER + cap);
    if (!nb)
        return NULL;
    nb->used = need;
    nb->cap = cap;
    if (b && cap > ARENA_LARGEST && b->cap - b->used >= ARENA_FIRST) {
        /* an oversized request: keep filling the current block after it */
        nb->next = b->next;
        b->next = nb;
        a->last = NULL;
    } else {
        nb->next = b;
        a->head = nb;
        if (a->next_cap < ARENA_LARGEST)
            a->next_cap = cap < ARENA_LARGEST ? cap * 2 : ARENA_LARGEST;
        a->last = (char *)nb + ARENA_HEADER;
    }
    return (char *)nb + ARENA_HEADER;
}

/* Gives back the unused end of the latest allocation made from the head block. */
static void arena_shrink_last(arena *a, const void *p, size_t used)
{
    if (p != a->last)
        return;
    arena_block *b = a->head;
    size_t off = (size_t)((const char *)p - ((char *)b + ARENA_HEADER));
    size_t keep = (used + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (off + keep <= b->used)
        b->used = off + keep;
}

static void arena_free(arena *a)
{
    for (arena_block *b = a->head; b;) {
        arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
}

/* A document: its arena and its top value, handed out as &doc->root. */
typedef struct json_doc {
    arena mem;
    llmmem__json root;
} json_doc;

/* ---- hashing ----------------------------------------------------------------------------------- */

static uint32_t key_hash(const char *p, size_t n)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 16777619u;
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    return h;
}

/* Objects of at most this many members are searched member by member. */
#define SMALL_OBJECT 8u

/* ---- the reader's state ------------------------------------------------------------------------ */

enum token {
    TOK_EOF,
    TOK_INVALID,
    TOK_STRING,
    TOK_INTEGER,
    TOK_REAL,
    TOK_TRUE,
    TOK_FALSE,
    TOK_NULL,
    TOK_LBRACE,
    TOK_RBRACE,
    TOK_LBRACKET,
    TOK_RBRACKET,
    TOK_COLON,
    TOK_COMMA
};

/* A value read but not yet placed in its container, with its key when the container is an
 * object. */
typedef struct pending {
    const char *key;
    size_t key_len;
    uint32_t hash;
    llmmem__json value;
} pending;

/* An open container: where its values start on the pending stack, and an object's index. */
typedef struct frame {
    size_t start;
    int is_object;
    size_t replace; /* an object: the member the value being read replaces, + 1 (0: a new one) */
    uint32_t *index;
    uint32_t mask;
} frame;

typedef struct reader {
    const char *text;
    size_t len;
    size_t pos;       /* bytes consumed: jansson's stream position */
    size_t tok_begin; /* the current token's text (jansson's saved text) */
    size_t tok_end;
    size_t flags;
    llmmem__json_error *err;
    int failed;
    arena *mem;
    /* the current token's value */
    enum token tok;
    const char *str;
    size_t str_len;
    int64_t integer;
    double real;
    /* the stacks */
    pending *stack;
    size_t stack_n, stack_cap;
    frame *frames;
    size_t frames_n, frames_cap;
} reader;

/* ---- errors ------------------------------------------------------------------------------------ */

static int clamp_int(size_t v)
{
    return v > INT32_MAX ? INT32_MAX : (int)v;
}

/* Records the first error only, at the reader's position, with the current token as context as
 * jansson words it: " near '<token>'" for a token of at most 20 bytes, nothing for a longer one,
 * " near end of file" when there is no token (but for an undecodable byte). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 3, 4)))
#endif
static void fail_at(reader *r, int bad_utf8, const char *fmt, ...)
{
    if (r->failed)
        return;
    r->failed = 1;
    llmmem__json_error *e = r->err;
    if (!e)
        return;
    char msg[96]; /* the longest message is under 60 bytes */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t n = r->tok_end - r->tok_begin;
    int w, has_text = n > 0 && r->text[r->tok_begin] != '\0'; /* a NUL token reads as none */
    if (has_text && n <= 20)
        w = snprintf(e->text, sizeof e->text, "%s near '%.*s'", msg, (int)n, r->text + r->tok_begin);
    else if (has_text || bad_utf8)
        w = snprintf(e->text, sizeof e->text, "%s", msg);
    else
        w = snprintf(e->text, sizeof e->text, "%s near end of file", msg);
    (void)w; /* never cut: 96 + 29 bytes at most */
    /* line and column of the bytes consumed: a newline starts a line at column 0, and every byte
     * but a UTF-8 continuation byte is a character */
    size_t line = 1, col = 0;
    for (size_t i = 0; i < r->pos; i++) {
        unsigned char c = (unsigned char)r->text[i];
        if (c == '\n') {
            line++;
            col = 0;
        } else if ((c & 0xC0) != 0x80) {
            col++;
        }
    }
    e->line = clamp_int(line);
    e->column = clamp_int(col);
    e->position = clamp_int(r->pos);
}

#define FAIL(r, ...) fail_at((r), 0, __VA_ARGS__)

static void out_of_memory(reader *r)
{
    FAIL(r, "out of memory");
}

/* ---- UTF-8 ------------------------------------------------------------------------------------- */

size_t llmmem__utf8_length(const char *text, size_t len, size_t i)
{
    const unsigned char *s = (const unsigned char *)text + i;
    unsigned char c = s[0];
    size_t n;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        cp = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        cp = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        cp = c & 0x07u;
    } else {
        return 0;
    }
    if (len - i < n)
        return 0;
    for (size_t k = 1; k < n; k++) {
        if ((s[k] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[k] & 0x3Fu);
    }
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000))
        return 0;
    return n;
}

/* The byte at text[i] as the lexer reads it: -1 at the end; a byte of 0x80 or more must start a
 * well-formed character, else the error jansson's stream gives (-2). */
static int peek(reader *r, size_t i)
{
    if (i >= r->len)
        return -1;
    unsigned char c = (unsigned char)r->text[i];
    if (c >= 0x80 && !llmmem__utf8_length(r->text, r->len, i)) {
        r->pos = i;
        r->tok_end = i;
        fail_at(r, 1, "unable to decode byte 0x%x", (unsigned)c);
        return -2;
    }
    return c;
}

static int is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static int is_alpha(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int hex_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static size_t utf8_put(char *out, uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* ---- strings ----------------------------------------------------------------------------------- */

/* Reads the four hex digits of a \u escape whose 'u' is at text[i - 1]: their value, or -1 after
 * the error (jansson reads each digit before it checks it, so a bad one is counted as read). */
static int32_t read_hex4(reader *r, size_t i)
{
    int32_t v = 0;
    for (size_t k = 0; k < 4; k++) {
        int c = peek(r, i + k);
        if (c == -2)
            return -1;
        int h = c < 0 ? -1 : hex_value(c);
        if (h < 0) {
            r->pos = c < 0 ? r->len : i + k + 1;
            r->tok_end = r->pos;
            FAIL(r, "invalid escape");
            return -1;
        }
        v = v * 16 + h;
    }
    return v;
}

/* The string token whose opening quote is at text[r->tok_begin]: decoded into the arena. The
 * errors of the whole token's reading (end of input, control characters, bad escapes, bad
 * UTF-8) come before those of its decoding (unpaired surrogates), as in jansson, which reads a
 * string fully before it decodes it. */
static int lex_string(reader *r)
{
    const char *t = r->text;
    size_t len = r->len, i = r->tok_begin + 1;
    /* the decoded text is never longer than the token: find the closing quote to size it */
    size_t k = i;
    while (k < len && t[k] != '"')
        k += t[k] == '\\' ? 2 : 1;
    size_t span = (k < len ? k : len) - i;
    char *out = arena_alloc(r->mem, span + 1);
    if (!out) {
        r->pos = i;
        r->tok_end = i;
        out_of_memory(r);
        return 0;
    }
    size_t o = 0;
    char deferred[48] = "";  /* the first unpaired surrogate, reported once the token is read */
    for (;;) {
        /* plain bytes in bulk */
        size_t s = i;
        while (i < len) {
            unsigned char c = (unsigned char)t[i];
            if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80)
                break;
            i++;
        }
        memcpy(out + o, t + s, i - s);
        o += i - s;
        int c = peek(r, i);
        if (c == -2)
            return 0;
        if (c == -1) {
            r->pos = len;
            r->tok_end = len;
            FAIL(r, "premature end of input");
            return 0;
        }
        if (c == '"') {
            i++;
            break;
        }
        if (c < 0x20) {
            r->pos = i;
            r->tok_end = i;
            if (c == '\n')
                FAIL(r, "unexpected newline");
            else
                FAIL(r, "control character 0x%x", (unsigned)c);
            return 0;
        }
        if (c >= 0x80) {
            size_t n = llmmem__utf8_length(t, len, i);
            memcpy(out + o, t + i, n);
            o += n;
            i += n;
            continue;
        }
        /* an escape */
        c = peek(r, i + 1);
        if (c == -2)
            return 0;
        if (c == 'u') {
            int32_t v = read_hex4(r, i + 2);
            if (v < 0)
                return 0;
            i += 6;
            if (v >= 0xD800 && v <= 0xDBFF) {
                if (i + 1 < len && t[i] == '\\' && t[i + 1] == 'u') {
                    int32_t v2 = read_hex4(r, i + 2);
                    if (v2 < 0)
                        return 0;
                    i += 6;
                    if (v2 >= 0xDC00 && v2 <= 0xDFFF) {
                        o += utf8_put(out + o, (uint32_t)(((v - 0xD800) << 10) + (v2 - 0xDC00) + 0x10000));
                    } else if (!deferred[0]) {
                        snprintf(deferred, sizeof deferred, "invalid Unicode '\\u%04X\\u%04X'", (unsigned)v,
                                 (unsigned)v2);
                    }
                    continue;
                }
                if (!deferred[0])
                    snprintf(deferred, sizeof deferred, "invalid Unicode '\\u%04X'", (unsigned)v);
                continue;
            }
            if (v >= 0xDC00 && v <= 0xDFFF) {
                if (!deferred[0])
                    snprintf(deferred, sizeof deferred, "invalid Unicode '\\u%04X'", (unsigned)v);
                continue;
            }
            o += utf8_put(out + o, (uint32_t)v);
            continue;
        }
        char e;
        switch (c) {
        case '"': e = '"'; break;
        case '\\': e = '\\'; break;
        case '/': e = '/'; break;
        case 'b': e = '\b'; break;
        case 'f': e = '\f'; break;
        case 'n': e = '\n'; break;
        case 'r': e = '\r'; break;
        case 't': e = '\t'; break;
        default:
            r->pos = c < 0 ? len : i + 2;
            r->tok_end = r->pos;
            FAIL(r, "invalid escape");
            return 0;
        }
        out[o++] = e;
        i += 2;
    }
    r->pos = i;
    r->tok_end = i;
    if (deferred[0]) {
        FAIL(r, "%s", deferred);
        return 0;
    }
    out[o] = '\0';
    arena_shrink_last(r->mem, out, o + 1);
    r->str = out;
    r->str_len = o;
    r->tok = TOK_STRING;
    return 1;
}

/* ---- numbers ----------------------------------------------------------------------------------- */

/* The integer text[b, e) (an optional '-' and digits, no leading zero): 0, or -1 beyond int64. */
static int to_integer(const char *text, size_t b, size_t e, int64_t *out)
{
    int neg = text[b] == '-';
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX, v = 0;
    for (size_t i = b + (size_t)neg; i < e; i++) {
        unsigned d = (unsigned)(text[i] - '0');
        if (v > (limit - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    if (neg)
        *out = v == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)v;
    else
        *out = (int64_t)v;
    return 0;
}

/* The real text[b, e) of JSON's grammar, correctly rounded by strtod, and never through the
 * locale: the decimal point (the one byte strtod reads by locale) is moved into the exponent, so
 * "12.5e3" is read as "125e2". 0, -1 on overflow, -2 when out of memory. */
static int to_real(const char *text, size_t b, size_t e, double *out)
{
    char small[96], *buf = small;
    size_t need = e - b + 24;
    if (need > sizeof small && !(buf = malloc(need)))
        return -2;
    size_t o = 0, i = b, frac = 0;
    if (text[i] == '-')
        buf[o++] = text[i++];
    while (i < e && is_digit(text[i]))
        buf[o++] = text[i++];
    if (i < e && text[i] == '.') {
        for (i++; i < e && is_digit(text[i]); i++, frac++)
            buf[o++] = text[i];
    }
    /* the exponent, saturated far beyond any double's range, less the fraction's digits */
    int64_t exp = 0;
    if (i < e && (text[i] == 'e' || text[i] == 'E')) {
        i++;
        int neg = 0;
        if (text[i] == '+' || text[i] == '-')
            neg = text[i++] == '-';
        for (; i < e; i++)
            if (exp < INT64_C(1000000000000000))
                exp = exp * 10 + (text[i] - '0');
        if (neg)
            exp = -exp;
    }
    uint64_t digits = frac, cap = UINT64_C(1000000000000000);
    exp -= (int64_t)(digits < cap ? digits : cap);
    o += (size_t)snprintf(buf + o, need - o, "e%lld", (long long)exp);
    errno = 0;
    double v = strtod(buf, NULL);
    if (buf != small)
        free(buf);
    if (isinf(v))
        return -1;
    *out = v;
    return 0;
}

/* Reads on past the digit at text[*i]: *i ends at the first byte that is not a digit, which is
 * returned as peek gives it. */
static int skip_digits(reader *r, size_t *i)
{
    int c;
    do
        c = peek(r, ++*i);
    while (is_digit(c));
    return c;
}

/* The number token at text[r->tok_begin], read as jansson's lexer reads it: the byte after it is
 * read (and must decode) but not consumed; a malformed one is an invalid token ending where the
 * reading stopped. An integer is a token without '.', 'e' or 'E'. */
static int lex_number(reader *r)
{
    size_t i = r->tok_begin;
    int c = (unsigned char)r->text[i];
    r->tok = TOK_INVALID;
    if (c == '-')
        c = peek(r, ++i);
    if (c == -2)
        return 0;
    if (c == '0') {
        c = peek(r, ++i);
        if (c == -2)
            return 0;
        if (is_digit(c))
            goto invalid;
    } else if (is_digit(c)) {
        if ((c = skip_digits(r, &i)) == -2)
            return 0;
    } else {
        goto invalid;
    }
    if (c != '.' && c != 'e' && c != 'E') {
        r->pos = r->tok_end = i;
        if (to_integer(r->text, r->tok_begin, i, &r->integer)) {
            FAIL(r, "%s", r->text[r->tok_begin] == '-' ? "too big negative integer" : "too big integer");
            return 0;
        }
        r->tok = TOK_INTEGER;
        return 1;
    }
    if (c == '.') {
        c = peek(r, ++i);
        if (c == -2)
            return 0;
        if (!is_digit(c))
            goto invalid;
        if ((c = skip_digits(r, &i)) == -2)
            return 0;
    }
    if (c == 'e' || c == 'E') {
        c = peek(r, ++i);
        if (c == '+' || c == '-')
            c = peek(r, ++i);
        if (c == -2)
            return 0;
        if (!is_digit(c))
            goto invalid;
        if ((c = skip_digits(r, &i)) == -2)
            return 0;
    }
    r->pos = r->tok_end = i;
    int rc = to_real(r->text, r->tok_begin, i, &r->real);
    if (rc == -2) {
        out_of_memory(r);
        return 0;
    }
    if (rc) {
        FAIL(r, "real number overflow");
        return 0;
    }
    r->tok = TOK_REAL;
    return 1;
invalid:
    r->pos = r->tok_end = i;
    return 1;
}

/* ---- tokens ------------------------------------------------------------------------------------ */

/* The next token into r->tok, its text [tok_begin, tok_end) and r->pos after it. 0 when the
 * reading itself failed (the error is set). */
static int lex(reader *r)
{
    size_t i = r->pos;
    int c;
    for (;;) {
        r->tok_begin = r->tok_end = i; /* no token yet: an undecodable byte here has no context */
        c = peek(r, i);
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        i++;
    }
    r->pos = r->tok_begin = r->tok_end = i;
    if (c == -2) {
        r->tok = TOK_INVALID;
        return 0;
    }
    if (c == -1) {
        r->tok = TOK_EOF;
        return 1;
    }
    r->pos = r->tok_end = i + 1;
    switch (c) {
    case '{': r->tok = TOK_LBRACE; return 1;
    case '}': r->tok = TOK_RBRACE; return 1;
    case '[': r->tok = TOK_LBRACKET; return 1;
    case ']': r->tok = TOK_RBRACKET; return 1;
    case ':': r->tok = TOK_COLON; return 1;
    case ',': r->tok = TOK_COMMA; return 1;
    case '"':
        r->tok = TOK_INVALID;
        return lex_string(r);
    default: break;
    }
    if (c == '-' || is_digit(c))
        return lex_number(r);
    if (is_alpha(c)) {
        /* the whole word, so that the context names it */
        do
            c = peek(r, ++i);
        while (is_alpha(c));
        if (c == -2) {
            r->tok = TOK_INVALID;
            return 0;
        }
        r->pos = r->tok_end = i;
        size_t n = i - r->tok_begin;
        const char *w = r->text + r->tok_begin;
        if (n == 4 && memcmp(w, "true", 4) == 0)
            r->tok = TOK_TRUE;
        else if (n == 5 && memcmp(w, "false", 5) == 0)
            r->tok = TOK_FALSE;
        else if (n == 4 && memcmp(w, "null", 4) == 0)
            r->tok = TOK_NULL;
        else
            r->tok = TOK_INVALID;
        return 1;
    }
    /* any other character is an invalid token of its own, a multi-byte one whole */
    if (c >= 0x80)
        r->pos = r->tok_end = i + llmmem__utf8_length(r->text, r->len, i);
    r->tok = TOK_INVALID;
    return 1;
}

/* ---- the tree ---------------------------------------------------------------------------------- */

static int push_pending(reader *r, const pending *p)
{
    if (r->stack_n == r->stack_cap) {
        size_t cap = r->stack_cap ? r->stack_cap * 2 : 64;
        if (cap < r->stack_cap || cap > SIZE_MAX / sizeof *r->stack) {
            out_of_memory(r);
            return 0;
        }
        pending *s = realloc(r->stack, cap * sizeof *s);
        if (!s) {
            out_of_memory(r);
            return 0;
        }
        r->stack = s;
        r->stack_cap = cap;
    }
    r->stack[r->stack_n++] = *p;
    return 1;
}

static int push_frame(reader *r, int is_object)
{
    if (r->frames_n == r->frames_cap) {
        size_t cap = r->frames_cap ? r->frames_cap * 2 : 16;
        frame *f = realloc(r->frames, cap * sizeof *f);
        if (!f) {
            out_of_memory(r);
            return 0;
        }
        r->frames = f;
        r->frames_cap = cap;
    }
    r->frames[r->frames_n++] = (frame){r->stack_n, is_object, 0, NULL, 0};
    return 1;
}

/* Inserts member m (relative to the frame's start) into an index of mask + 1 slots. */
static void index_put(uint32_t *index, uint32_t mask, uint32_t hash, size_t m)
{
    uint32_t s = hash & mask;
    while (index[s])
        s = (s + 1) & mask;
    index[s] = (uint32_t)(m + 1);
}

/* (Re)builds an open object's index for at least `members` members, half full at most. */
static int index_grow(reader *r, frame *f, size_t members)
{
    size_t slots = 16;
    while (slots / 2 < members + 1) {
        if (slots > ((size_t)UINT32_MAX >> 1) / 2)
            return 0;
        slots *= 2;
    }
    if (slots > SIZE_MAX / sizeof(uint32_t))
        return 0;
    uint32_t *index = arena_alloc(r->mem, slots * sizeof *index);
    if (!index)
        return 0;
    memset(index, 0, slots * sizeof *index);
    uint32_t mask = (uint32_t)(slots - 1);
    for (size_t m = 0; m < r->stack_n - f->start; m++)
        index_put(index, mask, r->stack[f->start + m].hash, m);
    f->index = index;
    f->mask = mask;
    return 1;
}

/* The member of the open object with this key, + 1; 0 when it has none. */
static size_t find_open_member(const reader *r, const frame *f, const char *key, size_t n, uint32_t hash)
{
    if (r->stack_n == f->start)
        return 0;
    const pending *base = r->stack + f->start;
    if (f->index) {
        for (uint32_t s = hash & f->mask; f->index[s]; s = (s + 1) & f->mask) {
            const pending *p = base + (f->index[s] - 1);
            if (p->hash == hash && p->key_len == n && memcmp(p->key, key, n) == 0)
                return f->index[s];
        }
        return 0;
    }
    for (size_t m = 0; m < r->stack_n - f->start; m++) {
        const pending *p = base + m;
        if (p->hash == hash && p->key_len == n && memcmp(p->key, key, n) == 0)
            return m + 1;
    }
    return 0;
}

/* Pops the top frame's values into a node. */
static int close_container(reader *r, llmmem__json *node)
{
    frame *f = &r->frames[r->frames_n - 1];
    size_t n = r->stack_n - f->start;
    const pending *src = n ? r->stack + f->start : NULL;
    memset(node, 0, sizeof *node);
    node->n = n;
    if (f->is_object) {
        node->kind = LLMMEM__JSON_OBJECT;
        if (n) {
            if (n > SIZE_MAX / sizeof(llmmem__json_entry))
                return 0;
            llmmem__json_entry *m = arena_alloc(r->mem, n * sizeof *m);
            if (!m)
                return 0;
            for (size_t k = 0; k < n; k++)
                m[k] = (llmmem__json_entry){src[k].key, src[k].key_len, src[k].hash, src[k].value};
            node->u.members = m;
            if (n > SMALL_OBJECT) {
                node->index = f->index;
                node->mask = f->mask;
            }
        }
    } else {
        node->kind = LLMMEM__JSON_ARRAY;
        if (n) {
            if (n > SIZE_MAX / sizeof(llmmem__json))
                return 0;
            llmmem__json *items = arena_alloc(r->mem, n * sizeof *items);
            if (!items)
                return 0;
            for (size_t k = 0; k < n; k++)
                items[k] = src[k].value;
            node->u.items = items;
        }
    }
    r->stack_n = f->start;
    r->frames_n--;
    return 1;
}

/* ---- the parser -------------------------------------------------------------------------------- */

/* The value that starts with the current token: a scalar into *node (1), or a container opened
 * (2, with the token after its bracket read), or an error (0). */
static int begin_value(reader *r, llmmem__json *node)
{
    if (r->frames_n + 1 > LLMMEM__JSON_MAX_DEPTH) {
        FAIL(r, "maximum parsing depth reached");
        return 0;
    }
    memset(node, 0, sizeof *node);
    switch (r->tok) {
    case TOK_STRING:
        if (!(r->flags & LLMMEM__JSON_ALLOW_NUL) && memchr(r->str, '\0', r->str_len)) {
            FAIL(r, "\\u0000 is not allowed without JSON_ALLOW_NUL");
            return 0;
        }
        node->kind = LLMMEM__JSON_STRING;
        node->u.string = r->str;
        node->n = r->str_len;
        return 1;
    case TOK_INTEGER:
        node->kind = LLMMEM__JSON_INTEGER;
        node->u.integer = r->integer;
        return 1;
    case TOK_REAL:
        node->kind = LLMMEM__JSON_REAL;
        node->u.real = r->real;
        return 1;
    case TOK_TRUE: node->kind = LLMMEM__JSON_TRUE; return 1;
    case TOK_FALSE: node->kind = LLMMEM__JSON_FALSE; return 1;
    case TOK_NULL: node->kind = LLMMEM__JSON_NULL; return 1;
    case TOK_LBRACE:
    case TOK_LBRACKET:
        if (!push_frame(r, r->tok == TOK_LBRACE))
            return 0;
        return lex(r) ? 2 : 0;
    case TOK_INVALID: FAIL(r, "invalid token"); return 0;
    default: FAIL(r, "unexpected token"); return 0;
    }
}

/* An object's key (the current token), its duplicate check, and the ':' after it; the token
 * after the ':' is read. */
static int object_key(reader *r)
{
    if (r->tok != TOK_STRING) {
        FAIL(r, "string or '}' expected");
        return 0;
    }
    if (memchr(r->str, '\0', r->str_len)) {
        FAIL(r, "NUL byte in object key not supported");
        return 0;
    }
    frame *f = &r->frames[r->frames_n - 1];
    uint32_t hash = key_hash(r->str, r->str_len);
    size_t dup = find_open_member(r, f, r->str, r->str_len, hash);
    if (dup && (r->flags & LLMMEM__JSON_REJECT_DUPLICATES)) {
        FAIL(r, "duplicate object key");
        return 0;
    }
    f->replace = dup;
    if (!dup) {
        size_t members = r->stack_n - f->start;
        if (members >= UINT32_MAX - 1) {
            out_of_memory(r);
            return 0;
        }
        pending p;
        memset(&p, 0, sizeof p);
        p.key = r->str;
        p.key_len = r->str_len;
        p.hash = hash;
        if (!push_pending(r, &p))
            return 0;
        f = &r->frames[r->frames_n - 1];
        if (members + 1 > SMALL_OBJECT) {
            if (!f->index || (members + 1) * 2 > (size_t)f->mask + 1) {
                if (!index_grow(r, f, members + 1)) {
                    out_of_memory(r);
                    return 0;
                }
            } else {
                index_put(f->index, f->mask, hash, members);
            }
        }
    }
    if (!lex(r))
        return 0;
    if (r->tok != TOK_COLON) {
        FAIL(r, "':' expected");
        return 0;
    }
    return lex(r);
}

/* Reads the document; its top value into *root. */
static int parse(reader *r, llmmem__json *root)
{
    llmmem__json node;
    if (!lex(r))
        return 0;
    if (!(r->flags & LLMMEM__JSON_DECODE_ANY) && r->tok != TOK_LBRACE && r->tok != TOK_LBRACKET) {
        FAIL(r, "'[' or '{' expected");
        return 0;
    }
    for (;;) {
        /* a value starts at the current token */
        int got = begin_value(r, &node);
        if (!got)
            return 0;
        if (got == 2) {
            frame *f = &r->frames[r->frames_n - 1];
            if (f->is_object) {
                if (r->tok != TOK_RBRACE) {
                    if (!object_key(r))
                        return 0;
                    continue;
                }
            } else if (r->tok != TOK_RBRACKET) {
                if (r->tok == TOK_EOF) {
                    FAIL(r, "']' expected");
                    return 0;
                }
                if (!push_pending(r, &(pending){NULL, 0, 0, {0}}))
                    return 0;
                continue;
            }
            if (!close_container(r, &node)) {
                out_of_memory(r);
                return 0;
            }
        }
        /* a value is complete: place it, then read on until another value starts */
        for (;;) {
            if (r->frames_n == 0) {
                *root = node;
                if (!lex(r))
                    return 0;
                if (r->tok != TOK_EOF) {
                    FAIL(r, "end of file expected");
                    return 0;
                }
                return 1;
            }
            frame *f = &r->frames[r->frames_n - 1];
            if (f->is_object && f->replace) {
                r->stack[f->start + f->replace - 1].value = node; /* a repeated key keeps its place */
                f->replace = 0;
            } else {
                r->stack[r->stack_n - 1].value = node;
            }
            if (!lex(r))
                return 0;
            if (r->tok == TOK_COMMA) {
                if (!lex(r))
                    return 0;
                if (f->is_object) {
                    if (!object_key(r))
                        return 0;
                } else {
                    if (r->tok == TOK_EOF) {
                        FAIL(r, "']' expected");
                        return 0;
                    }
                    if (!push_pending(r, &(pending){NULL, 0, 0, {0}}))
                        return 0;
                }
                break;
            }
            if (r->tok != (f->is_object ? TOK_RBRACE : TOK_RBRACKET)) {
                FAIL(r, "%s", f->is_object ? "'}' expected" : "']' expected");
                return 0;
            }
            if (!close_container(r, &node)) {
                out_of_memory(r);
                return 0;
            }
        }
    }
}

llmmem__json *llmmem__json_load(const char *text, size_t len, size_t flags, llmmem__json_error *err)
{
    if (err) {
        memset(err, 0, sizeof *err);
        err->line = -1;
        err->column = -1;
    }
    reader r;
    memset(&r, 0, sizeof r);
    r.text = text ? text : "";
    r.len = text ? len : 0;
    r.flags = flags;
    r.err = err;
    json_doc *doc = calloc(1, sizeof *doc);
    if (!doc) {
        out_of_memory(&r);
        return NULL;
    }
    r.mem = &doc->mem;
    int ok = parse(&r, &doc->root);
    free(r.stack);
    free(r.frames);
    if (!ok) {
        arena_free(&doc->mem);
        free(doc);
        return NULL;
    }
    if (err)
        err->position = clamp_int(r.pos);
    return &doc->root;
}

void llmmem__json_free(llmmem__json *root)
{
    if (!root)
        return;
    json_doc *doc = (json_doc *)(void *)((char *)root - offsetof(json_doc, root));
    arena_free(&doc->mem);
    free(doc);
}

/* ---- reading the tree -------------------------------------------------------------------------- */

llmmem__json_kind llmmem__json_typeof(const llmmem__json *v)
{
    return v ? (llmmem__json_kind)v->kind : LLMMEM__JSON_NULL;
}

int llmmem__json_is_object(const llmmem__json *v) { return v && v->kind == LLMMEM__JSON_OBJECT; }
int llmmem__json_is_array(const llmmem__json *v) { return v && v->kind == LLMMEM__JSON_ARRAY; }
int llmmem__json_is_string(const llmmem__json *v) { return v && v->kind == LLMMEM__JSON_STRING; }
int llmmem__json_is_integer(const llmmem__json *v) { return v && v->kind == LLMMEM__JSON_INTEGER; }
int llmmem__json_is_real(const llmmem__json *v) { return v && v->kind == LLMMEM__JSON_REAL; }
int llmmem__json_is_number(const llmmem__json *v) { return llmmem__json_is_integer(v) || llmmem__json_is_real(v); }
int llmmem__json_is_true(const llmmem__json *v) { return v && v->kind == LLMMEM__JSON_TRUE; }
int llmmem__json_is_false(const llmmem__json *v) { return v && v->kind == LLMMEM__JSON_FALSE; }
int llmmem__json_is_boolean(const llmmem__json *v) { return llmmem__json_is_true(v) || llmmem__json_is_false(v); }
int llmmem__json_is_null(const llmmem__json *v) { return v && v->kind == LLMMEM__JSON_NULL; }

llmmem__json *llmmem__json_object_getn(const llmmem__json *obj, const char *key, size_t n)
{
    if (!llmmem__json_is_object(obj) || !key || obj->n == 0)
        return NULL;
    llmmem__json_entry *m = obj->u.members;
    if (obj->index) {
        uint32_t hash = key_hash(key, n);
        for (uint32_t s = hash & obj->mask; obj->index[s]; s = (s + 1) & obj->mask) {
            llmmem__json_entry *p = m + (obj->index[s] - 1);
            if (p->hash == hash && p->key_len == n && memcmp(p->key, key, n) == 0)
                return &p->value;
        }
        return NULL;
    }
    for (size_t i = 0; i < obj->n; i++)
        if (m[i].key_len == n && memcmp(m[i].key, key, n) == 0)
            return &m[i].value;
    return NULL;
}

llmmem__json *llmmem__json_object_get(const llmmem__json *obj, const char *key)
{
    return key ? llmmem__json_object_getn(obj, key, strlen(key)) : NULL;
}

size_t llmmem__json_object_size(const llmmem__json *obj)
{
    return llmmem__json_is_object(obj) ? obj->n : 0;
}

const char *llmmem__json_object_key(const llmmem__json *obj, size_t i)
{
    return i < llmmem__json_object_size(obj) ? obj->u.members[i].key : NULL;
}

llmmem__json *llmmem__json_object_value(const llmmem__json *obj, size_t i)
{
    return i < llmmem__json_object_size(obj) ? &obj->u.members[i].value : NULL;
}

size_t llmmem__json_array_size(const llmmem__json *arr)
{
    return llmmem__json_is_array(arr) ? arr->n : 0;
}

llmmem__json *llmmem__json_array_get(const llmmem__json *arr, size_t i)
{
    return i < llmmem__json_array_size(arr) ? &arr->u.items[i] : NULL;
}

const char *llmmem__json_string_value(const llmmem__json *v)
{
    return llmmem__json_is_string(v) ? v->u.string : NULL;
}

size_t llmmem__json_string_length(const llmmem__json *v)
{
    return llmmem__json_is_string(v) ? v->n : 0;
}

int64_t llmmem__json_integer_value(const llmmem__json *v)
{
    return llmmem__json_is_integer(v) ? v->u.integer : 0;
}

double llmmem__json_real_value(const llmmem__json *v)
{
    return llmmem__json_is_real(v) ? v->u.real : 0.0;
}

double llmmem__json_number_value(const llmmem__json *v)
{
    if (llmmem__json_is_integer(v))
        return (double)v->u.integer;
    return llmmem__json_real_value(v);
}
