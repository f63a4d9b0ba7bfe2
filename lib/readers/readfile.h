/* Internal: reading untrusted inputs. One way to open a file (never a FIFO or a device, so
 * nothing blocks), whole small files under a size cap, the errno words of every reader, a set of
 * names for duplicate checks, and a JSON scanner that finds members and counts values without
 * building a tree, so that a parser's memory can be bounded before the JSON reader (json.c) builds anything.
 * Shared by hfconfig.c, safetensors.c and gguf.c. */
#ifndef LLMMEM_READFILE_H
#define LLMMEM_READFILE_H

#include <stdio.h>

#include "readers/json.h"

#include "base/internal.h"

/* ---- limits ------------------------------------------------------------------------------ */

/* A config.json (hfconfig.c, and a safetensors folder's): published configs take a few KB and
 * the largest (multimodal, with per-layer lists) under 100 KB; 4 MiB is 40 times that. */
#define LLMMEM_CONFIG_MAX_BYTES (4u << 20)
/* JSON values and keys in a config.json (llmmem__json_count_values): real ones hold a few
 * hundred; 100,000 bounds the JSON reader's tree to about 6 MB (twice that while it is read)
 * however they are packed. */
#define LLMMEM_CONFIG_MAX_VALUES 100000

/* A model from the text of a config.json (hfconfig.c): `where` names the file in messages, and the
 * model is named `name`, or the config's _name_or_path when `name` is NULL (a text read from memory). */
llmmem_status llmmem__model_from_config_text(llmmem_model **out, const char *json, size_t len, const char *where,
                                            const char *name);

/* ---- files ------------------------------------------------------------------------------- */

/* Words for the errno values open, fstat, read and opendir give (strerror is not thread-safe). */
const char *llmmem__errno_text(int e);

/* Opens a regular file for reading without ever blocking: open(O_RDONLY | O_NONBLOCK | O_CLOEXEC
 * | O_NOCTTY), fstat the descriptor, refuse anything but a regular file ("<shown>: is not a
 * regular file (a named pipe)"), clear O_NONBLOCK, fdopen. A FIFO opened this way returns at once
 * instead of waiting for a writer. *size_out is the file's size. `shown` names the file in
 * messages (LLMMEM_ERR_IO). */
llmmem_status llmmem__open_regular(FILE **f_out, uint64_t *size_out, const char *path, const char *shown);

/* A whole regular file of at most max_bytes (`what` names the cap in the message: "a
 * config.json"), read into a malloc'd buffer of *len_out bytes plus a terminating NUL. A file
 * over the cap is LLMMEM_ERR_PARSE before anything is read; one that grew past it while read,
 * too. */
llmmem_status llmmem__read_small_file(char **text_out, size_t *len_out, const char *path, const char *shown,
                                      uint64_t max_bytes, const char *what);

/* ---- a set of names -------------------------------------------------------------------------- */

/* The bytes of entry e (an index into the caller's own storage). */
typedef void (*llmmem__entry_fn)(const void *ctx, size_t e, const char **p, size_t *n);

/* Open addressing over entries the caller stores: 8-byte slots, at most half full, so 16 to 32
 * bytes per entry; at most 2^32 - 1 entries (adding more fails as out of memory: each name
 * takes at least a byte of input, and no reader reads 4 GB of names). */
typedef struct llmmem__nameset {
    uint64_t *slot; /* 0: empty, else a hash tag and entry + 1 */
    size_t cap, n;
} llmmem__nameset;

/* The hash every set and caller uses (FNV-1a with a finalizer). */
uint64_t llmmem__name_hash(const char *p, size_t n);
/* 1 and *found_out (the entry) when the name is present, else 0. */
int llmmem__nameset_find(const llmmem__nameset *s, const char *p, size_t n, llmmem__entry_fn get, const void *ctx,
                         size_t *found_out);
/* The same with the name's hash known. */
int llmmem__nameset_find_hashed(const llmmem__nameset *s, uint64_t hash, const char *p, size_t n,
                                llmmem__entry_fn get, const void *ctx, size_t *found_out);
/* Adds entry e for a name known to be absent: 0, or -1 when out of memory. */
int llmmem__nameset_insert_hashed(llmmem__nameset *s, uint64_t hash, size_t e);
/* Fetches a name's slot into the cache ahead of its lookup: a set of millions of names misses the
 * cache on every lookup, and lookups LLMMEM_LOOKUPS_AHEAD apart overlap their misses. */
void llmmem__nameset_prefetch(const llmmem__nameset *s, uint64_t hash);
#define LLMMEM_LOOKUPS_AHEAD 32
/* Grows the set for n entries in all, so that slots fetched ahead stay put: 1, or 0 when out of
 * memory. */
int llmmem__nameset_reserve(llmmem__nameset *s, size_t n);
void llmmem__nameset_free(llmmem__nameset *s);

/* Distinct names, each copied once into one buffer as its bytes, a NUL and a 4-byte value, and
 * indexed by a name set: a name costs its bytes plus at most 37. A name's id is its offset in the
 * buffer; ids in the order added are 0, llmmem__names_next(0), ... Names hold no NUL (the JSON
 * strings the readers keep cannot). */
typedef struct llmmem__names {
    char *buf;
    size_t len, cap, n;
    llmmem__nameset set;
    uint64_t *hash; /* names appended (llmmem__names_append): the hash of each, in order */
    size_t hash_cap;
} llmmem__names;

/* 0 and *id_out its new id when added (with `value`); 1 and the id held when present (its value
 * unchanged); -1 when out of memory. */
int llmmem__names_add(llmmem__names *t, const char *p, size_t n, uint32_t value, size_t *id_out);
/* Many names, looked up in a second pass: llmmem__names_append copies a name and keeps its hash
 * (t->hash[i] for the i-th) without looking it up (0, or -1 when out of memory);
 * llmmem__names_index then adds every name to the set in the order appended, fetching each slot
 * ahead: 0, 1 and *dup_id_out for the first name met twice, -1 when out of memory. (A lookup as
 * each name is read waits on a cache miss for each of millions; ahead, they overlap.) A names
 * object is either added to or appended to, not both. */
int llmmem__names_append(llmmem__names *t, const char *p, size_t n, uint32_t value);
int llmmem__names_index(llmmem__names *t, size_t *dup_id_out);

/* The name of an id (NUL-terminated), its length, and its value. */
const char *llmmem__names_get(const llmmem__names *t, size_t id, size_t *n_out);
uint32_t llmmem__names_value(const llmmem__names *t, size_t id);
/* The id after `id` in the order added; t->len at the end. */
size_t llmmem__names_next(const llmmem__names *t, size_t id);
void llmmem__names_free(llmmem__names *t);

/* ---- JSON without a tree ----------------------------------------------------------------------- */

/* The JSON reader's error text (jansson's words) without the input it quotes: its
 * " near '<token>'" context is cut, and so are the escape "invalid Unicode" quotes and the byte
 * value "unable to decode byte" and "control character" show, so that a message never echoes a
 * file's bytes; " near end of file" stays. */
void llmmem__json_error_text(char *out, size_t size, const llmmem__json_error *err);

/* 1-based line and column (in characters, as the JSON reader counts them) of byte offset pos. */
void llmmem__json_line_col(const char *text, size_t len, size_t pos, int *line_out, int *col_out);

/* An upper bound on the values and keys the JSON reader builds from any prefix of text: 1 + the '{', '[',
 * ',' and ':' outside strings (each value or key but the first follows one of them). */
uint64_t llmmem__json_count_values(const char *text, size_t len);


/* A cursor over the members of one JSON object, each found without building it. */
typedef struct llmmem__json_members {
    const char *text;
    size_t len;
    size_t pos;  /* next byte to scan */
    int started; /* the first member was read */
} llmmem__json_members;

/* One member: its key token (quotes included) and its value's bytes, and an upper bound on the
 * values the JSON reader would build from that value (llmmem__json_count_values). */
typedef struct llmmem__json_member {
    size_t key_begin, key_end;
    size_t value_begin, value_end;
    uint64_t values;
} llmmem__json_member;

/* Starts at text[pos], which must (after whitespace) be '{'. 0 and *what_out / *at_out (the
 * expected token, in the JSON reader's words, and its offset) when it is not. */
int llmmem__json_members_open(llmmem__json_members *it, const char *text, size_t len, size_t pos,
                              const char **what_out, size_t *at_out);
/* 1: *m is the next member; 0: the object ended (it->pos is after its '}'); -1: malformed, with
 * *what_out / *at_out. Strings are only delimited here (the JSON reader decodes them); a value is
 * delimited by matching brackets, so nesting costs no memory. */
int llmmem__json_members_next(llmmem__json_members *it, llmmem__json_member *m, const char **what_out,
                              size_t *at_out);
/* Offset of the first byte at or after pos that is not JSON whitespace. */
size_t llmmem__json_skip_space(const char *text, size_t len, size_t pos);

/* Decodes one JSON string token text[begin, end) (quotes included) with the JSON reader: escapes,
 * UTF-8 and NUL are checked. NULL with *err set when the token is not a valid string. */
llmmem__json *llmmem__json_decode_string(const char *text, size_t begin, size_t end, llmmem__json_error *err);

/* config.json as Python's json module reads it. PretrainedConfig.to_json_string writes with
 * json.dumps, whose allow_nan=True writes float('inf'), float('-inf') and float('nan') as the bare
 * tokens Infinity, -Infinity and NaN (nvidia's Nemotron-H configs hold "time_step_limit": [0.0,
 * Infinity]); strict JSON readers refuse them, json.c included. So a pre-pass rewrites
 * each one that stands where a value may start (never a key, never inside a string) into the JSON
 * string "\u0000NaN", "\u0000Infinity" or "\u0000-Infinity" and parses that with LLMMEM__JSON_ALLOW_NUL:
 * the input may then hold no \u0000 escape of its own (refused as the reader refuses it without the flag), so a string
 * that starts with NUL is one of these and nothing else. Any other non-JSON stays an error. Text
 * without such a token is parsed as it is; a parse error's position, line and column are the
 * original text's. The rewrite adds 8 bytes per token, at most one per counted value
 * (llmmem__json_count_values), so a caller's value limit also bounds the copy. */
llmmem__json *llmmem__json_load_config(const char *text, size_t len, size_t flags, llmmem__json_error *err);

/* "NaN", "Infinity" or "-Infinity" for a value llmmem__json_load_config read from such a token;
 * NULL for any other value. */
const char *llmmem__json_nonfinite(const llmmem__json *v);

#endif
