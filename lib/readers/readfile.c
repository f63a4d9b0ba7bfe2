/* Reading untrusted inputs: the one file opener of the readers, whole small files, errno words,
 * a name set, and a JSON scanner that bounds what the JSON reader (json.c) will build before it builds it. */

#include "readers/readfile.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- files ------------------------------------------------------------------------------- */

const char *llmmem__errno_text(int e)
{
    switch (e) {
    case ENOENT: return "no such file or directory";
    case EACCES: return "permission denied";
    case EPERM: return "operation not permitted";
    case EISDIR: return "is a directory";
    case ENOTDIR: return "a component of the path is not a directory";
    case ENAMETOOLONG: return "file name too long";
    case ELOOP: return "too many levels of symbolic links";
    case EMFILE:
    case ENFILE: return "too many open files";
    case ENOMEM: return "out of memory";
    case EIO: return "input/output error";
    case ENXIO: return "no such device or address";
    case EOVERFLOW: return "file too large";
    case EINTR: return "interrupted";
    default: return "system error";
    }
}

static const char *file_kind(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "a named pipe";
    if (S_ISDIR(mode))
        return "a folder";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a file";
}

static llmmem_status not_regular(const char *shown, mode_t mode)
{
    return llmmem__fail(LLMMEM_ERR_IO, "%s: is not a regular file (%s)", shown, file_kind(mode));
}

static llmmem_status cannot(const char *shown, const char *what, int e)
{
    return llmmem__fail(LLMMEM_ERR_IO, "%s: cannot %s: %s (errno %d)", shown, what, llmmem__errno_text(e), e);
}

llmmem_status llmmem__open_regular(FILE **f_out, uint64_t *size_out, const char *path, const char *shown)
{
    *f_out = NULL;
    *size_out = 0;
    /* Not even opened when it is known not to be a regular file (opening a device can act);
     * the fstat below is what holds when the path changes in between. */
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return not_regular(shown, sb.st_mode);
    /* O_NONBLOCK: open(2) on a FIFO without a writer returns at once instead of waiting. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return cannot(shown, "open", errno);
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return cannot(shown, "read the size of", e);
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return not_regular(shown, sb.st_mode);
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        int e = errno;
        close(fd);
        return cannot(shown, "open", e);
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        return cannot(shown, "open", e);
    }
    *f_out = f;
    *size_out = sb.st_size < 0 ? 0 : (uint64_t)sb.st_size;
    return LLMMEM_OK;
}

llmmem_status llmmem__read_small_file(char **text_out, size_t *len_out, const char *path, const char *shown,
                                      uint64_t max_bytes, const char *what)
{
    *text_out = NULL;
    *len_out = 0;
    FILE *f;
    uint64_t size;
    llmmem_status st = llmmem__open_regular(&f, &size, path, shown);
    if (st)
        return st;
    if (size > max_bytes || max_bytes >= SIZE_MAX - 2) {
        fclose(f);
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: %llu bytes is more than the %llu %s may have", shown,
                            (unsigned long long)size, (unsigned long long)max_bytes, what);
    }
    /* A byte more than the size, so that a file grown since the fstat is noticed. */
    size_t want = (size_t)size + 1;
    char *text = malloc(want + 1);
    if (!text) {
        fclose(f);
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "%s: out of memory for %zu bytes", shown, want);
    }
    size_t got = fread(text, 1, want, f);
    int e = ferror(f) ? (errno ? errno : EIO) : 0;
    fclose(f);
    if (e) {
        free(text);
        return cannot(shown, "read", e);
    }
    if (got > max_bytes) {
        free(text);
        return llmmem__fail(LLMMEM_ERR_PARSE, "%s: more than the %llu bytes %s may have (it grew while read)",
                            shown, (unsigned long long)max_bytes, what);
    }
    text[got] = '\0';
    *text_out = text;
    *len_out = got;
    return LLMMEM_OK;
}

/* ---- a set of names -------------------------------------------------------------------------- */

/* FNV-1a, then MurmurHash3's fmix64 finalizer: FNV's low bits, which the table's mask keeps,
 * depend only on the low bits of each byte, so names that differ in a hex digit collide. */
static uint64_t fnv1a(const char *p, size_t n)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)p[i]) * 1099511628211ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

/* A slot holds the top 32 bits of the name's hash above entry + 1. The table is indexed by the
 * hash's top bits, so it grows without reading a name again, and a probe compares names only
 * when the 32 bits agree (a probe is one cache line, not three). */
#define ENTRY_MASK 0xffffffffull

static size_t home(uint64_t tag, size_t cap) /* tag: the hash's top 32 bits; cap: 2^1 .. 2^32 */
{
    return (size_t)(tag >> (32 - __builtin_ctzll((unsigned long long)cap)));
}

static int nameset_grow(llmmem__nameset *s)
{
    size_t cap = s->cap ? s->cap * 2 : 64;
    if (cap < s->cap || (uint64_t)cap > ((uint64_t)1 << 32) || cap > SIZE_MAX / sizeof *s->slot)
        return 0;
    uint64_t *slot = calloc(cap, sizeof *slot);
    if (!slot)
        return 0;
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->slot[i])
            continue;
        size_t j = home(s->slot[i] >> 32, cap);
        while (slot[j])
            j = (j + 1) & (cap - 1);
        slot[j] = s->slot[i];
    }
    free(s->slot);
    s->slot = slot;
    s->cap = cap;
    return 1;
}

uint64_t llmmem__name_hash(const char *p, size_t n)
{
    return fnv1a(p, n);
}

void llmmem__nameset_prefetch(const llmmem__nameset *s, uint64_t hash)
{
    if (s->cap)
        __builtin_prefetch(&s->slot[home(hash >> 32, s->cap)]);
}

int llmmem__nameset_find(const llmmem__nameset *s, const char *p, size_t n, llmmem__entry_fn get, const void *ctx,
                         size_t *found_out)
{
    return llmmem__nameset_find_hashed(s, fnv1a(p, n), p, n, get, ctx, found_out);
}

int llmmem__nameset_find_hashed(const llmmem__nameset *s, uint64_t hash, const char *p, size_t n,
                                llmmem__entry_fn get, const void *ctx, size_t *found_out)
{
    if (!s->cap)
        return 0;
    uint64_t tag = hash >> 32;
    for (size_t j = home(tag, s->cap); s->slot[j]; j = (j + 1) & (s->cap - 1)) {
        if (s->slot[j] >> 32 != tag)
            continue;
        const char *q;
        size_t m, e = (size_t)((s->slot[j] & ENTRY_MASK) - 1);
        get(ctx, e, &q, &m);
        if (m == n && memcmp(p, q, n) == 0) {
            if (found_out)
                *found_out = e;
            return 1;
        }
    }
    return 0;
}

int llmmem__nameset_insert_hashed(llmmem__nameset *s, uint64_t hash, size_t e)
{
    if ((uint64_t)e >= ENTRY_MASK) /* 2^32 names: more than any reader keeps (see readfile.h) */
        return -1;
    if ((s->n + 1) * 2 > s->cap && !nameset_grow(s))
        return -1;
    uint64_t tag = hash >> 32;
    size_t j = home(tag, s->cap);
    while (s->slot[j])
        j = (j + 1) & (s->cap - 1);
    s->slot[j] = tag << 32 | ((uint64_t)e + 1);
    s->n++;
    return 0;
}

void llmmem__nameset_free(llmmem__nameset *s)
{
    free(s->slot);
    s->slot = NULL;
    s->cap = s->n = 0;
}

static void names_entry(const void *ctx, size_t e, const char **p, size_t *n)
{
    const llmmem__names *t = ctx;
    *p = t->buf + e;
    *n = strlen(*p);
}

/* Room for a record of a name of n bytes. */
static int names_room(llmmem__names *t, size_t n)
{
    if (n > SIZE_MAX / 4 - t->len)
        return 0;
    size_t need = n + 1 + 4;
    if (t->cap - t->len < need) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap - t->len < need)
            cap *= 2;
        char *grown = realloc(t->buf, cap);
        if (!grown)
            return 0;
        t->buf = grown;
        t->cap = cap;
    }
    return 1;
}

static void names_put(llmmem__names *t, const char *p, size_t n, uint32_t value)
{
    size_t id = t->len;
    memcpy(t->buf + id, p, n);
    t->buf[id + n] = '\0';
    for (unsigned i = 0; i < 4; i++)
        t->buf[id + n + 1 + i] = (char)(value >> (8 * i));
    t->len += n + 1 + 4;
    t->n++;
}

int llmmem__names_add(llmmem__names *t, const char *p, size_t n, uint32_t value, size_t *id_out)
{
    uint64_t hash = llmmem__name_hash(p, n);
    if (llmmem__nameset_find_hashed(&t->set, hash, p, n, names_entry, t, id_out))
        return 1;
    size_t id = t->len;
    if (!names_room(t, n) || llmmem__nameset_insert_hashed(&t->set, hash, id) < 0)
        return -1;
    names_put(t, p, n, value);
    if (id_out)
        *id_out = id;
    return 0;
}

int llmmem__names_append(llmmem__names *t, const char *p, size_t n, uint32_t value)
{
    if (t->n == t->hash_cap) {
        size_t cap = t->hash_cap ? t->hash_cap * 2 : 64;
        uint64_t *grown = cap < SIZE_MAX / sizeof *grown ? realloc(t->hash, cap * sizeof *grown) : NULL;
        if (!grown)
            return -1;
        t->hash = grown;
        t->hash_cap = cap;
    }
    if (!names_room(t, n))
        return -1;
    t->hash[t->n] = llmmem__name_hash(p, n);
    names_put(t, p, n, value);
    return 0;
}

#define AHEAD LLMMEM_LOOKUPS_AHEAD

int llmmem__nameset_reserve(llmmem__nameset *s, size_t n)
{
    while ((n + 1) * 2 > s->cap)
        if (!nameset_grow(s))
            return 0;
    return 1;
}

int llmmem__names_index(llmmem__names *t, size_t *dup_id_out)
{
    const uint64_t *hashes = t->hash;
    /* the set at its final size first, so that prefetched slots stay where they were fetched */
    if (!llmmem__nameset_reserve(&t->set, t->n))
        return -1;
    size_t i = 0;
    for (; i < t->n && i < AHEAD; i++)
        llmmem__nameset_prefetch(&t->set, hashes[i]);
    i = 0;
    for (size_t id = 0; id < t->len; id = llmmem__names_next(t, id), i++) {
        if (i + AHEAD < t->n)
            llmmem__nameset_prefetch(&t->set, hashes[i + AHEAD]);
        const char *p = t->buf + id;
        size_t n = strlen(p);
        if (llmmem__nameset_find_hashed(&t->set, hashes[i], p, n, names_entry, t, NULL)) {
            *dup_id_out = id;
            return 1;
        }
        if (llmmem__nameset_insert_hashed(&t->set, hashes[i], id) < 0)
            return -1;
    }
    return 0;
}

const char *llmmem__names_get(const llmmem__names *t, size_t id, size_t *n_out)
{
    if (n_out)
        *n_out = strlen(t->buf + id);
    return t->buf + id;
}

uint32_t llmmem__names_value(const llmmem__names *t, size_t id)
{
    const unsigned char *v = (const unsigned char *)t->buf + id + strlen(t->buf + id) + 1;
    return (uint32_t)v[0] | (uint32_t)v[1] << 8 | (uint32_t)v[2] << 16 | (uint32_t)v[3] << 24;
}

size_t llmmem__names_next(const llmmem__names *t, size_t id)
{
    return id + strlen(t->buf + id) + 1 + 4;
}

void llmmem__names_free(llmmem__names *t)
{
    free(t->buf);
    free(t->hash);
    llmmem__nameset_free(&t->set);
    memset(t, 0, sizeof *t);
}

/* ---- JSON without a tree ----------------------------------------------------------------------- */

void llmmem__json_error_text(char *out, size_t size, const llmmem__json_error *err)
{
    /* json.c words an error as jansson 2.14 does: "<text> near '<token>'" for tokens up to 20
     * bytes; the text itself is one of json.c's fixed strings, or one that shows what it read:
     * "invalid Unicode '\uD800'" (and jansson's "invalid Unicode escape '%.6s'"), "unable to decode
     * byte 0xff", "control character 0x1", each cut before what it shows */
    static const char unicode[] = "invalid Unicode";
    const char *t = err->text;
    size_t keep = strnlen(t, sizeof err->text - 1);
    const char *near = strstr(t, " near ");
    if (near && strcmp(near, " near end of file") != 0)
        keep = (size_t)(near - t);
    const char *shown = strstr(t, " 0x");
    if (shown && (size_t)(shown - t) < keep)
        keep = (size_t)(shown - t);
    if (strncmp(t, unicode, sizeof unicode - 1) == 0)
        keep = strncmp(t, "invalid Unicode escape", 22) == 0 ? 22 : sizeof unicode - 1;
    snprintf(out, size, "%.*s", (int)keep, t);
}

void llmmem__json_line_col(const char *text, size_t len, size_t pos, int *line_out, int *col_out)
{
    if (pos > len)
        pos = len;
    size_t end = pos < len ? pos + 1 : len; /* the character at pos counts, as json.c's column does */
    long line = 1, col = 0;
    for (size_t i = 0; i < end; i++) {
        if (text[i] == '\n') {
            line++;
            col = 0;
        } else if (((unsigned char)text[i] & 0xC0) != 0x80) {
            col++;
        }
    }
    *line_out = line > INT32_MAX ? INT32_MAX : (int)line;
    *col_out = col > INT32_MAX ? INT32_MAX : (int)col;
}

/* The offset of the closing quote of the string whose opening quote is at i, or len. */
static size_t string_end(const char *text, size_t len, size_t i)
{
    for (i++; i < len; i++) {
        if (text[i] == '\\')
            i++;
        else if (text[i] == '"')
            return i;
    }
    return len;
}

uint64_t llmmem__json_count_values(const char *text, size_t len)
{
    uint64_t n = 1;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '"')
            i = string_end(text, len, i);
        else if (c == '{' || c == '[' || c == ',' || c == ':')
            n++;
    }
    return n;
}

size_t llmmem__json_skip_space(const char *text, size_t len, size_t pos)
{
    while (pos < len && (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' || text[pos] == '\r'))
        pos++;
    return pos;
}

/* LLMMEM__JSON_MAX_DEPTH: deeper input is an error in json.c too */
#define SCAN_MAX_DEPTH 2048

/* 1 when the bracket open at depth d is a '{'. */
static int closes_brace(const uint8_t *closer, size_t d)
{
    return (int)(((unsigned)closer[d / 8] >> (d % 8)) & 1u);
}

/* The end of the value starting at text[pos] (no whitespace before it) and the values in it. */
static int skip_value(const char *text, size_t len, size_t pos, size_t *end_out, uint64_t *values_out,
                      const char **what, size_t *at)
{
    uint8_t closer[SCAN_MAX_DEPTH / 8]; /* bit set: '}' expected at that depth, else ']' */
    size_t depth = 0;
    uint64_t values = 1;
    if (pos >= len) {
        *what = "unexpected token";
        *at = pos;
        return 0;
    }
    char c = text[pos];
    if (c == '"') {
        size_t e = string_end(text, len, pos);
        if (e >= len) {
            *what = "premature end of input";
            *at = len;
            return 0;
        }
        *end_out = e + 1;
        *values_out = 1;
        return 1;
    }
    if (c != '{' && c != '[') {
        size_t i = pos;
        while (i < len && !strchr(",:]}[{\" \t\r\n", text[i]))
            i++;
        if (i == pos) {
            *what = "unexpected token";
            *at = pos;
            return 0;
        }
        *end_out = i;
        *values_out = 1;
        return 1;
    }
    for (size_t i = pos; i < len; i++) {
        c = text[i];
        if (c == '"') {
            i = string_end(text, len, i);
            if (i >= len)
                break;
        } else if (c == '{' || c == '[') {
            if (depth == SCAN_MAX_DEPTH) {
                *what = "maximum parsing depth reached";
                *at = i;
                return 0;
            }
            unsigned bit = 1u << (depth % 8);
            closer[depth / 8] = (uint8_t)(c == '{' ? closer[depth / 8] | bit : closer[depth / 8] & ~bit);
            depth++;
            values++;
        } else if (c == '}' || c == ']') {
            int want_brace = depth && closes_brace(closer, depth - 1);
            if (!depth || (c == '}') != want_brace) {
                *what = want_brace ? "'}' expected" : "']' expected";
                *at = i;
                return 0;
            }
            if (--depth == 0) {
                *end_out = i + 1;
                *values_out = values;
                return 1;
            }
        } else if (c == ',' || c == ':') {
            values++;
        }
    }
    *what = closes_brace(closer, depth - 1) ? "'}' expected" : "']' expected";
    *at = len;
    return 0;
}

int llmmem__json_members_open(llmmem__json_members *it, const char *text, size_t len, size_t pos,
                              const char **what_out, size_t *at_out)
{
    pos = llmmem__json_skip_space(text, len, pos);
    *it = (llmmem__json_members){text, len, pos, 0};
    if (pos >= len || text[pos] != '{') {
        *what_out = "'{' expected";
        *at_out = pos;
        return 0;
    }
    it->pos = pos + 1;
    return 1;
}

int llmmem__json_members_next(llmmem__json_members *it, llmmem__json_member *m, const char **what_out,
                              size_t *at_out)
{
    const char *t = it->text;
    size_t len = it->len;
    size_t pos = llmmem__json_skip_space(t, len, it->pos);
    if (pos < len && t[pos] == '}') {
        it->pos = pos + 1;
        return 0;
    }
    if (it->started) {
        if (pos >= len || t[pos] != ',') {
            *what_out = "'}' expected";
            *at_out = pos;
            return -1;
        }
        pos = llmmem__json_skip_space(t, len, pos + 1);
    }
    if (pos >= len || t[pos] != '"') {
        *what_out = "string or '}' expected";
        *at_out = pos;
        return -1;
    }
    size_t key_end = string_end(t, len, pos);
    if (key_end >= len) {
        *what_out = "premature end of input";
        *at_out = len;
        return -1;
    }
    m->key_begin = pos;
    m->key_end = key_end + 1;
    pos = llmmem__json_skip_space(t, len, key_end + 1);
    if (pos >= len || t[pos] != ':') {
        *what_out = "':' expected";
        *at_out = pos;
        return -1;
    }
    pos = llmmem__json_skip_space(t, len, pos + 1);
    size_t end;
    uint64_t values;
    if (!skip_value(t, len, pos, &end, &values, what_out, at_out))
        return -1;
    m->value_begin = pos;
    m->value_end = end;
    m->values = values;
    it->pos = end;
    it->started = 1;
    return 1;
}

llmmem__json *llmmem__json_decode_string(const char *text, size_t begin, size_t end, llmmem__json_error *err)
{
    llmmem__json *s = llmmem__json_load(text + begin, end - begin, LLMMEM__JSON_DECODE_ANY, err);
    if (s && !llmmem__json_is_string(s)) { /* not reached: the scanner hands over string tokens only */
        llmmem__json_free(s);
        memset(err, 0, sizeof *err);
        snprintf(err->text, sizeof err->text, "string expected");
        return NULL;
    }
    return s;
}

/* ---- Python's non-finite numbers ------------------------------------------------------------- */

/* What a rewritten token grows by: '"', the six bytes of "\u0000" and '"'. */
#define NONFINITE_GROWTH 8

/* A scan for the bare tokens NaN, Infinity and -Infinity where a JSON value may start: after '[',
 * ':', or ',' inside an array, or at the start of the document (never a key, never in a string). */
typedef struct nonfinite_scan {
    const char *text;
    size_t len, pos;
    size_t depth;                        /* brackets open */
    uint8_t closer[SCAN_MAX_DEPTH / 8];  /* bit set: the bracket open at that depth is '{' */
    char prev;                           /* the last byte outside strings and whitespace; 0 at the start */
} nonfinite_scan;

static int value_position(const nonfinite_scan *s)
{
    if (s->prev == 0 || s->prev == '[' || s->prev == ':')
        return 1;
    return s->prev == ',' && s->depth > 0 && s->depth <= SCAN_MAX_DEPTH && !closes_brace(s->closer, s->depth - 1);
}

/* The length of the non-finite token at text[i] (0: none). */
static size_t nonfinite_token(const char *text, size_t len, size_t i)
{
    static const char *const tokens[] = {"NaN", "Infinity", "-Infinity"};
    for (size_t k = 0; k < 3; k++) {
        size_t n = strlen(tokens[k]);
        if (len - i >= n && memcmp(text + i, tokens[k], n) == 0)
            return n;
    }
    return 0;
}

/* The next token: 1 and [*begin, *begin + *n); 0 at the end. */
static int nonfinite_next(nonfinite_scan *s, size_t *begin, size_t *n)
{
    for (; s->pos < s->len; s->pos++) {
        char c = s->text[s->pos];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            continue;
        if (c == '"') {
            s->pos = string_end(s->text, s->len, s->pos);
        } else if (c == '{' || c == '[') {
            if (s->depth < SCAN_MAX_DEPTH) {
                uint8_t bit = (uint8_t)(1u << (s->depth % 8));
                s->closer[s->depth / 8] = (uint8_t)(c == '{' ? s->closer[s->depth / 8] | bit
                                                             : s->closer[s->depth / 8] & ~bit);
            }
            s->depth++;
        } else if ((c == '}' || c == ']') && s->depth > 0) {
            s->depth--;
        } else if ((c == 'N' || c == 'I' || c == '-') && value_position(s) &&
                   (*n = nonfinite_token(s->text, s->len, s->pos)) != 0) {
            *begin = s->pos;
            s->pos += *n;
            s->prev = '"'; /* a value was read */
            return 1;
        }
        s->prev = c;
    }
    return 0;
}

static void nonfinite_start(nonfinite_scan *s, const char *text, size_t len)
{
    s->text = text;
    s->len = len;
    s->pos = 0;
    s->depth = 0;
    s->prev = 0;
}

/* The offset of the escape \u0000 in a string of text, or len. */
static size_t escaped_nul(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (text[i] != '"')
            continue;
        size_t e = string_end(text, len, i);
        for (size_t k = i + 1; k < e; k++) {
            if (text[k] != '\\')
                continue;
            if (e - k > 5 && text[k + 1] == 'u' && memcmp(text + k + 2, "0000", 4) == 0)
                return k;
            k++; /* the escaped byte */
        }
        i = e;
    }
    return len;
}

/* The reader's error at rewritten offset pos, placed back in the original text. */
static void nonfinite_error_back(llmmem__json_error *err, const char *text, size_t len)
{
    size_t pos = err->position < 0 ? 0 : (size_t)err->position, begin, n, grown = 0;
    nonfinite_scan *s = malloc(sizeof *s);
    if (s) {
        nonfinite_start(s, text, len);
        while (nonfinite_next(s, &begin, &n) && begin + grown < pos) {
            if (pos < begin + grown + n + NONFINITE_GROWTH) { /* inside the token: its start */
                pos = begin + grown;
                break;
            }
            grown += NONFINITE_GROWTH;
        }
        free(s);
    }
    pos -= grown;
    if (pos > len)
        pos = len;
    err->position = pos > INT32_MAX ? INT32_MAX : (int)pos;
    /* the reader's column counts the characters read before position */
    err->line = 1;
    err->column = 0;
    if (pos > 0)
        llmmem__json_line_col(text, len, pos - 1, &err->line, &err->column);
}

llmmem__json *llmmem__json_load_config(const char *text, size_t len, size_t flags, llmmem__json_error *err)
{
    nonfinite_scan *s = malloc(sizeof *s);
    if (!s) {
        memset(err, 0, sizeof *err);
        snprintf(err->text, sizeof err->text, "out of memory");
        return NULL;
    }
    size_t tokens = 0, begin, n;
    nonfinite_start(s, text, len);
    while (nonfinite_next(s, &begin, &n))
        tokens++;
    if (tokens == 0) {
        free(s);
        return llmmem__json_load(text, len, flags, err);
    }
    /* the rewritten text is parsed with LLMMEM__JSON_ALLOW_NUL, so the input may hold no \u0000 of its own */
    size_t nul = escaped_nul(text, len);
    if (nul < len) {
        free(s);
        memset(err, 0, sizeof *err);
        snprintf(err->text, sizeof err->text, "\\u0000 is not allowed in a string");
        err->position = nul > INT32_MAX ? INT32_MAX : (int)nul;
        llmmem__json_line_col(text, len, nul, &err->line, &err->column);
        return NULL;
    }
    size_t size = 0;
    char *out = NULL;
    if (!__builtin_mul_overflow(tokens, (size_t)NONFINITE_GROWTH, &size) && !__builtin_add_overflow(size, len, &size))
        out = malloc(size + 1);
    if (!out) {
        free(s);
        memset(err, 0, sizeof *err);
        snprintf(err->text, sizeof err->text, "out of memory");
        return NULL;
    }
    size_t from = 0, to = 0;
    nonfinite_start(s, text, len);
    while (nonfinite_next(s, &begin, &n)) {
        memcpy(out + to, text + from, begin - from);
        to += begin - from;
        memcpy(out + to, "\"\\u0000", 7);
        memcpy(out + to + 7, text + begin, n);
        out[to + 7 + n] = '"';
        to += n + NONFINITE_GROWTH;
        from = begin + n;
    }
    memcpy(out + to, text + from, len - from);
    to += len - from;
    free(s);
    llmmem__json *root = llmmem__json_load(out, to, flags | LLMMEM__JSON_ALLOW_NUL, err);
    free(out);
    if (!root)
        nonfinite_error_back(err, text, len);
    return root;
}

const char *llmmem__json_nonfinite(const llmmem__json *v)
{
    if (!llmmem__json_is_string(v) || llmmem__json_string_length(v) < 2 || llmmem__json_string_value(v)[0] != '\0')
        return NULL;
    return llmmem__json_string_value(v) + 1;
}
