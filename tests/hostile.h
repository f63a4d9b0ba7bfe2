/* Hostile inputs of the three file readers (safetensors, config.json, GGUF), each written at any
 * size: tests/test_bounds.c asserts the work and memory of reading them, tests/bench times it.
 * Included by one file each; every function is static. */
#ifndef LLMMEM_TESTS_HOSTILE_H
#define LLMMEM_TESTS_HOSTILE_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "llmmem/llmmem.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* Sanitized builds (ASan's redzones, quarantine and shadow memory, and its slowdown) read inputs
 * 10 times smaller. */
#define SCALE (SANITIZED ? 10 : 1)

/* Memory a successful read may use per input byte: measured 3.5 for the densest safetensors
 * header (a name and at most 160 bytes kept per tensor of about 55 bytes, llmmem__ck_add, and the
 * header itself), 4.4 for "__metadata__" strings, 4.2 for the densest index (12 bytes per tensor),
 * 2.7 for GGUF tensor infos. */
#define MEM_PER_BYTE 6.0

/* ---- writing ------------------------------------------------------------------------------- */

/* A file written through stdio, counting its bytes (ftell would ask the kernel each time); any
 * failure is kept for hostile_close. */
typedef struct out {
    FILE *f;
    uint64_t n;
    int failed;
} out;

static inline void put(out *o, const void *p, size_t n)
{
    o->n += fwrite(p, 1, n, o->f);
}

static inline void puts_(out *o, const char *s)
{
    put(o, s, strlen(s));
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
static inline void printf_(out *o, const char *fmt, ...)
{
    char b[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    put(o, b, n > 0 && (size_t)n < sizeof b ? (size_t)n : 0);
}

static inline void le(out *o, uint64_t v, unsigned n)
{
    unsigned char b[8];
    for (unsigned i = 0; i < n; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    put(o, b, n);
}

/* `count` copies of an item of `size` bytes. */
static inline void repeat(out *o, const void *item, size_t size, uint64_t count)
{
    static unsigned char chunk[1 << 16];
    size_t per = sizeof chunk / size;
    for (size_t i = 0; i < per; i++)
        memcpy(chunk + i * size, item, size);
    while (count) {
        size_t k = count < per ? (size_t)count : per;
        put(o, chunk, k * size);
        count -= k;
    }
}

/* Spaces up to `size` bytes since byte `start`. */
static inline void pad_to(out *o, uint64_t start, uint64_t size)
{
    if (o->n - start < size)
        repeat(o, " ", 1, size - (o->n - start));
}

/* Closes the file: 0 if every byte was written. */
static inline int hostile_close(out *o)
{
    int failed = o->failed || ferror(o->f);
    return fclose(o->f) != 0 || failed;
}

/* ---- safetensors --------------------------------------------------------------------------- */

/* Starts a .safetensors file; the 8-byte length is patched by st_end. */
static inline uint64_t st_begin(out *o)
{
    le(o, 0, 8);
    return o->n;
}

static inline void st_end(out *o, uint64_t start, uint64_t data_bytes)
{
    uint64_t n = o->n - start;
    if (fseek(o->f, 0, SEEK_SET) != 0)
        o->failed = 1;
    le(o, n, 8);
    if (fflush(o->f) != 0 || ftruncate(fileno(o->f), (off_t)(8 + n + data_bytes)) != 0)
        o->failed = 1;
}

/* A header of `size` bytes: `open`, empty arrays, `close`. */
static inline void st_arrays(out *o, const char *open, const char *close, uint64_t size)
{
    uint64_t start = st_begin(o);
    puts_(o, open);
    uint64_t room = size - strlen(open) - strlen(close) - 2;
    repeat(o, "[],", 3, room / 3);
    puts_(o, "[]");
    puts_(o, close);
    pad_to(o, start, size);
    st_end(o, start, 0);
}

/* Each writer below writes its input of `size` bytes or items, and returns the count of tensors
 * a reader finds in it. */

/* The input of issue 14: a header of empty arrays in one member. Before the fix jansson built
 * them all (the 99 MB: 33 million arrays, 4.5 GB, 10 s) before the tensor was found not
 * an object. */
static inline uint64_t tensor_of_arrays(out *o, uint64_t size)
{
    st_arrays(o, "{\"t\":[", "]}", size);
    return 0;
}

/* the same arrays as a "__metadata__" value, and as the whole header */
static inline uint64_t metadata_of_arrays(out *o, uint64_t size)
{
    st_arrays(o, "{\"__metadata__\":{\"m\":[", "]}}", size);
    return 0;
}

static inline uint64_t header_of_arrays(out *o, uint64_t size)
{
    st_arrays(o, "[", "]", size);
    return 0;
}

/* The most tensors a header can describe: 0-byte U8 entries of about 55 bytes each (50 is the
 * least a tensor entry takes), all read; the memory kept grows with them, within MEM_PER_BYTE. */
static inline uint64_t tiny_tensors(out *o, uint64_t size)
{
    uint64_t start = st_begin(o);
    puts_(o, "{");
    size_t n = 0;
    while (o->n - start + 64 < size) {
        printf_(o, "%s\"%zx\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]}", n ? "," : "", n);
        n++;
    }
    puts_(o, "}");
    pad_to(o, start, size);
    st_end(o, start, 0);
    return n;
}

/* "__metadata__" of as many short strings: each key kept once, for the duplicate check */
static inline uint64_t metadata_strings(out *o, uint64_t size)
{
    uint64_t start = st_begin(o);
    puts_(o, "{\"__metadata__\":{");
    size_t n = 0;
    while (o->n - start + 64 < size) {
        printf_(o, "%s\"%zx\":\"\"", n ? "," : "", n);
        n++;
    }
    puts_(o, "}}");
    pad_to(o, start, size);
    st_end(o, start, 0);
    return 0;
}

/* An index naming as many tensors, in a shard that is not there: the weight_map is read whole
 * before the shard is looked for. */
static inline uint64_t index_entries(out *o, uint64_t size)
{
    puts_(o, "{\"metadata\":{\"total_size\":0},\"weight_map\":{");
    size_t n = 0;
    while (o->n + 64 < size) {
        printf_(o, "%s\"%zx\":\"s\"", n ? "," : "", n);
        n++;
    }
    puts_(o, "}}");
    return 0;
}

/* ---- config.json --------------------------------------------------------------------------- */

static inline void config_of(out *o, const char *item, uint64_t items)
{
    puts_(o, "{\"model_type\": \"llama\", \"hidden_size\": 64, \"num_hidden_layers\": 2, \"num_attention_heads\": 4, "
             "\"vocab_size\": 100, \"intermediate_size\": 128, \"unread\": [");
    char one[8];
    snprintf(one, sizeof one, "%s,", item);
    repeat(o, one, strlen(one), items - 1);
    puts_(o, item);
    puts_(o, "]}");
}

/* The 16.5 MB config.json of empty arrays (748 MB before the fix) is refused by its size
 * (4 MiB at most); 4 MiB of them, by its count of values (100,000 at most, an empty container
 * counting twice). */
static inline uint64_t config_arrays(out *o, uint64_t items)
{
    config_of(o, "[]", items);
    return 0;
}

/* 49,000 empty objects, the dearest value the old reader (jansson) built (about 244 bytes for 3
 * of input), just under the count: read. */
static inline uint64_t config_objects(out *o, uint64_t items)
{
    config_of(o, "{}", items);
    return 0;
}

/* ---- GGUF ---------------------------------------------------------------------------------- */

static inline void gguf_begin(out *o, uint64_t n_tensors, uint64_t n_kv)
{
    puts_(o, "GGUF");
    le(o, 3, 4);
    le(o, n_tensors, 8);
    le(o, n_kv, 8);
}

static inline void gguf_str(out *o, const char *s)
{
    le(o, strlen(s), 8);
    puts_(o, s);
}

/* Counts claiming more than any file holds fail before anything is read or allocated: the
 * metadata count, and the tensor count, followed by `words` zero words. */
static inline uint64_t claimed_keys(out *o, uint64_t words)
{
    static const unsigned char zero8[8];
    gguf_begin(o, 1ULL << 60, 1ULL << 60);
    repeat(o, zero8, 8, words);
    return 0;
}

static inline uint64_t claimed_tensors(out *o, uint64_t words)
{
    static const unsigned char zero8[8];
    gguf_begin(o, 1ULL << 60, 0);
    repeat(o, zero8, 8, words);
    return 0;
}

/* Long arrays: `items` items of `size` zero bytes as the value of `key`, of element type `type`
 * (docs/gguf.md gguf_type): linear work, constant memory. */
static inline void gguf_array(out *o, const char *key, unsigned type, unsigned size, uint64_t items)
{
    static const unsigned char zero12[12]; /* a u32 0; a string of 0 bytes; an empty u8 array */
    gguf_begin(o, 0, 2);
    gguf_str(o, "general.architecture");
    le(o, 8, 4);
    gguf_str(o, "llama");
    gguf_str(o, key);
    le(o, 9, 4); /* an array */
    le(o, type, 4);
    le(o, items, 8);
    repeat(o, zero12, size, items);
}

/* u32 items of a key the model reads (each decoded), empty strings, and empty arrays (nested) */
static inline uint64_t u32_array(out *o, uint64_t items)
{
    gguf_array(o, "llama.block_count", 4, 4, items);
    return 0;
}

static inline uint64_t string_array(out *o, uint64_t items)
{
    gguf_array(o, "tokenizer.ggml.tokens", 8, 8, items);
    return 0;
}

static inline uint64_t nested_array(out *o, uint64_t items)
{
    gguf_array(o, "x", 9, 12, items);
    return 0;
}

/* The most metadata keys and tensor infos per byte: each kept (the keys for the duplicate check,
 * the tensors in the checkpoint), within MEM_PER_BYTE. */
static inline uint64_t many_keys(out *o, uint64_t n)
{
    gguf_begin(o, 0, n);
    for (uint64_t i = 0; i < n; i++) {
        char k[24];
        snprintf(k, sizeof k, "%llx", (unsigned long long)i);
        gguf_str(o, k);
        le(o, 0, 4); /* u8 */
        le(o, 0, 1);
    }
    return 0;
}

static inline uint64_t many_tensors(out *o, uint64_t n)
{
    gguf_begin(o, n, 0);
    for (uint64_t i = 0; i < n; i++) {
        char k[24];
        snprintf(k, sizeof k, "%llx", (unsigned long long)i);
        gguf_str(o, k);
        le(o, 1, 4); /* one dimension */
        le(o, 0, 8); /* of 0 elements: no data */
        le(o, 0, 4); /* F32 */
        le(o, 0, 8); /* at offset 0 */
    }
    /* the data section starts at the header's end padded to 32 (docs/gguf.md): all 0 bytes of it */
    repeat(o, "", 1, (32 - o->n % 32) % 32);
    return n;
}

/* ---- the inputs ---------------------------------------------------------------------------- */

typedef enum { READ_SAFETENSORS, READ_GGUF, READ_CONFIG } hostile_reader;

static inline llmmem_status hostile_read(hostile_reader r, const char *path, llmmem_checkpoint **ck, llmmem_model **m)
{
    if (r == READ_SAFETENSORS)
        return llmmem_checkpoint_from_safetensors(ck, path);
    if (r == READ_GGUF)
        return llmmem_checkpoint_from_gguf(ck, path);
    return llmmem_model_from_hf_config(m, path);
}

typedef struct hostile_input {
    const char *name;
    uint64_t (*write)(out *o, uint64_t size);
    uint64_t size; /* bytes, or items for the config and GGUF arrays, keys and tensors */
    hostile_reader reader;
    llmmem_status status;
    const char *needle; /* in the message */
    double kept;        /* memory per input byte */
} hostile_input;

static const hostile_input hostile_inputs[] = {
    {"arrays.safetensors", tensor_of_arrays, 25000000 / SCALE, READ_SAFETENSORS, LLMMEM_ERR_PARSE,
     "its entry holds more than 1024 JSON values", 1.0},
    {"metadata-arrays.safetensors", metadata_of_arrays, 25000000 / SCALE, READ_SAFETENSORS, LLMMEM_ERR_PARSE,
     "field 'm' is a JSON array, not a string", 1.0},
    {"toplevel.safetensors", header_of_arrays, 25000000 / SCALE, READ_SAFETENSORS, LLMMEM_ERR_PARSE,
     "header is a JSON array, not an object", 1.0},
    {"tiny.safetensors", tiny_tensors, 10000000 / SCALE, READ_SAFETENSORS, LLMMEM_OK, NULL, MEM_PER_BYTE},
    {"metadata.safetensors", metadata_strings, 10000000 / SCALE, READ_SAFETENSORS, LLMMEM_OK, NULL, MEM_PER_BYTE},
    {"model.safetensors.index.json", index_entries, 10000000 / SCALE, READ_SAFETENSORS, LLMMEM_ERR_IO,
     "s: cannot open: no such file", MEM_PER_BYTE},
    /* refused unread: the same size when sanitized */
    {"big.json", config_arrays, 5500000, READ_CONFIG, LLMMEM_ERR_PARSE,
     "bytes is more than the 4194304 a config.json may have", 0.0},
    {"dense.json", config_arrays, 1390000, READ_CONFIG, LLMMEM_ERR_PARSE, "more than the 100000 JSON values and keys",
     1.0},
    {"at-cap.json", config_objects, 49000, READ_CONFIG, LLMMEM_OK, NULL, 0.0},
    {"claims.gguf", claimed_keys, 1000, READ_GGUF, LLMMEM_ERR_PARSE,
     "metadata count 1152921504606846976 exceeds the file", 0.0},
    {"claimed-tensors.gguf", claimed_tensors, 1000, READ_GGUF, LLMMEM_ERR_PARSE,
     "tensor count 1152921504606846976 exceeds the file", 0.0},
    {"u32.gguf", u32_array, 6250000 / SCALE, READ_GGUF, LLMMEM_OK, NULL, 0.0},
    {"strings.gguf", string_array, 3125000 / SCALE, READ_GGUF, LLMMEM_OK, NULL, 0.0},
    {"nested.gguf", nested_array, 2083333 / SCALE, READ_GGUF, LLMMEM_OK, NULL, 0.0},
    {"keys.gguf", many_keys, 250000 / SCALE, READ_GGUF, LLMMEM_OK, NULL, MEM_PER_BYTE},
    {"tensors.gguf", many_tensors, 250000 / SCALE, READ_GGUF, LLMMEM_OK, NULL, MEM_PER_BYTE},
};

/* Writes `in` at `size` to `path`; returns the tensors it describes, or -1 if it could not. */
static inline int64_t hostile_write(const hostile_input *in, const char *path, uint64_t size)
{
    out o = {fopen(path, "wb"), 0, 0};
    if (!o.f)
        return -1;
    uint64_t tensors = in->write(&o, size);
    return hostile_close(&o) ? -1 : (int64_t)tensors;
}

#endif
