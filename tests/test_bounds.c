/* Hostile inputs cost each reader a bounded amount of work and memory per input byte, and
 * nothing blocks (issue 14). Every input is generated here, into a temporary folder, and read in
 * a forked child that reports its status, CPU time and peak resident memory growth
 * (getrusage ru_maxrss after the read, less before it; the child's high-water mark starts at its
 * RSS when forked, Linux kernel/fork.c dup_mm).
 *
 * The bounds asserted (plain builds; see README "The bad-input contract"):
 *   - CPU time: at most 2.5 s per 100 MB of input plus 0.5 s (measured at most 1.3 s per 100 MB,
 *     the densest index; the margin is for a CI machine shared with sanitizer builds);
 *   - memory, input refused: at most the input's bytes (a header or a config is read whole) plus
 *     16 MiB;
 *   - memory, input read: at most MEM_PER_BYTE bytes per input byte plus 16 MiB.
 * Each read runs in a child capped at 3 GiB of address space and 60 s, so that a regression
 * fails here instead of taking the machine. Built with a sanitizer (ASan's redzones, quarantine
 * and shadow memory, and its slowdown), the inputs are 10 times smaller and only the statuses
 * are checked. The figures are printed to stderr. */

#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "unit.h"

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

#define SCALE (SANITIZED ? 10 : 1)
#define MIB (1024.0 * 1024.0)
/* Memory a successful read may use per input byte: measured 3.5 for the densest safetensors
 * header (a name and at most 160 bytes kept per tensor of about 55 bytes, llmmem__ck_add, and the
 * header itself), 4.2 for the densest index (12 bytes per tensor), 2.6 for GGUF tensor infos. */
#define MEM_PER_BYTE 6.0
#define FIXED_MEMORY (16.0 * MIB)

/* ---- a scratch folder ---------------------------------------------------------------------- */

/* One folder for the test case, made and removed by an unchecked fixture, which Check runs in its
 * own process before and after the tests (so a failed test leaves nothing behind); each test
 * empties it when done, the inputs being up to 100 MB. */
static char scratch[64];

static void scratch_clean(void)
{
    DIR *d = opendir(scratch);
    if (!d)
        return;
    for (struct dirent *e = readdir(d); e; e = readdir(d)) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", scratch, e->d_name);
        unlink(path);
    }
    closedir(d);
}

static void scratch_setup(void)
{
    snprintf(scratch, sizeof scratch, "/tmp/llmmem-bounds-XXXXXX");
    if (!mkdtemp(scratch))
        scratch[0] = '\0'; /* each test then fails to create its files, naming them */
}

static void scratch_teardown(void)
{
    if (!scratch[0])
        return;
    scratch_clean();
    rmdir(scratch);
}

static const char *scratch_path(const char *name)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", scratch, name);
    return path;
}

/* A file written through stdio, counting its bytes (ftell would ask the kernel each time). */
typedef struct out {
    FILE *f;
    uint64_t n;
} out;

static out create(const char *name)
{
    out o = {fopen(scratch_path(name), "wb"), 0};
    ck_assert_ptr_nonnull(o.f);
    return o;
}

/* No assertion here: each Check assertion writes its location to a pipe, a system call per
 * item written. finish() checks the stream once. */
static void put(out *o, const void *p, size_t n)
{
    o->n += fwrite(p, 1, n, o->f);
}

static void puts_(out *o, const char *s)
{
    put(o, s, strlen(s));
}

static void printf_(out *o, const char *fmt, ...) LLMMEM_PRINTF(2, 3);

static void printf_(out *o, const char *fmt, ...)
{
    char b[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    put(o, b, n > 0 && (size_t)n < sizeof b ? (size_t)n : 0);
}

static void le(out *o, uint64_t v, unsigned n)
{
    unsigned char b[8];
    for (unsigned i = 0; i < n; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    put(o, b, n);
}

/* `count` copies of an item of `size` bytes. */
static void repeat(out *o, const void *item, size_t size, uint64_t count)
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
static void pad_to(out *o, uint64_t start, uint64_t size)
{
    if (o->n - start < size)
        repeat(o, " ", 1, size - (o->n - start));
}

static void finish(out *o)
{
    ck_assert_int_eq(ferror(o->f), 0);
    ck_assert_int_eq(fclose(o->f), 0);
}

/* ---- the measurement --------------------------------------------------------------------- */

typedef enum { READ_SAFETENSORS, READ_GGUF, READ_CONFIG } reader;

typedef struct result {
    llmmem_status status;
    size_t tensors;
    double cpu, wall;     /* seconds */
    double memory;        /* peak resident growth, bytes */
    char message[LLMMEM_MESSAGE_MAX];
} result;

static double seconds(struct timeval t)
{
    return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

/* Reads `path` in a forked child, which a runaway read cannot take the machine with it: its
 * address space is capped (plain builds) and an alarm ends it. */
static result measure(reader r, const char *path)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(fds[0]);
        alarm(60);
        if (!SANITIZED) {
            struct rlimit lim = {(rlim_t)3 << 30, (rlim_t)3 << 30};
            setrlimit(RLIMIT_AS, &lim);
        }
        result out;
        memset(&out, 0, sizeof out);
        struct rusage before, after;
        struct timespec t0, t1;
        getrusage(RUSAGE_SELF, &before);
        clock_gettime(CLOCK_MONOTONIC, &t0);
        llmmem_checkpoint *ck = NULL;
        llmmem_model *m = NULL;
        if (r == READ_SAFETENSORS)
            out.status = llmmem_checkpoint_from_safetensors(&ck, path);
        else if (r == READ_GGUF)
            out.status = llmmem_checkpoint_from_gguf(&ck, path);
        else
            out.status = llmmem_model_from_hf_config(&m, path);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        getrusage(RUSAGE_SELF, &after);
        out.tensors = llmmem_checkpoint_tensor_count(ck);
        out.cpu = seconds(after.ru_utime) + seconds(after.ru_stime) - seconds(before.ru_utime) -
                  seconds(before.ru_stime);
        out.wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        out.memory = (double)(after.ru_maxrss - before.ru_maxrss) * 1024.0; /* Linux: kilobytes */
        snprintf(out.message, sizeof out.message, "%s", llmmem_last_message());
        ssize_t w = write(fds[1], &out, sizeof out);
        _exit(w == (ssize_t)sizeof out ? 0 : 1);
    }
    close(fds[1]);
    result res;
    memset(&res, 0, sizeof res);
    size_t got = 0;
    while (got < sizeof res) {
        ssize_t n = read(fds[0], (char *)&res + got, sizeof res - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fds[0]);
    int wstatus = 0;
    ck_assert_int_eq(waitpid(pid, &wstatus, 0), pid);
    ck_assert_msg(got == sizeof res && WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0,
                  "the reader of %s did not finish (wait status %d)", path, wstatus);
    return res;
}

static uint64_t file_size(const char *path)
{
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    return (uint64_t)sb.st_size;
}

/* The status, a part of the message, and (plain builds) the time and memory bounds; `kept` is
 * the memory allowed per input byte. */
static result expect(reader r, const char *name, llmmem_status status, const char *needle, double kept)
{
    const char *path = scratch_path(name);
    double bytes = (double)file_size(path);
    result res = measure(r, path);
    fprintf(stderr,
            "bounds: %-28s %10.0f bytes: %-18s cpu %.3f s (%.2f s per 100 MB), wall %.3f s, peak +%.1f MiB (%.2f "
            "per byte)\n",
            name, bytes, llmmem_status_str(res.status), res.cpu, res.cpu / bytes * 1e8, res.wall, res.memory / MIB,
            res.memory / bytes);
    ck_assert_msg(res.status == status, "%s: %s (%s), expected %s", name, llmmem_status_str(res.status), res.message,
                  llmmem_status_str(status));
    ck_assert_msg(!needle || strstr(res.message, needle), "%s: message '%s' lacks '%s'", name, res.message, needle);
    if (!SANITIZED) {
        double cpu_bound = 0.5 + 2.5 * bytes / 100e6;
        double memory_bound = FIXED_MEMORY + kept * bytes;
        ck_assert_msg(res.cpu <= cpu_bound, "%s: %.3f s of CPU for %.0f bytes, above %.3f s", name, res.cpu, bytes,
                      cpu_bound);
        ck_assert_msg(res.memory <= memory_bound, "%s: peak memory grew %.1f MiB for %.0f bytes, above %.1f MiB",
                      name, res.memory / MIB, bytes, memory_bound / MIB);
    }
    return res;
}

/* ---- safetensors --------------------------------------------------------------------------- */

/* Starts a .safetensors file; the 8-byte length is patched by st_end. */
static uint64_t st_begin(out *o)
{
    le(o, 0, 8);
    return o->n;
}

static void st_end(out *o, uint64_t start, uint64_t data_bytes)
{
    uint64_t n = o->n - start;
    ck_assert_int_eq(fseek(o->f, 0, SEEK_SET), 0);
    le(o, n, 8);
    ck_assert_int_eq(fflush(o->f), 0);
    ck_assert_int_eq(ftruncate(fileno(o->f), (off_t)(8 + n + data_bytes)), 0);
    finish(o);
    ck_assert_uint_eq(o->n, 8 + n + 8); /* everything was written (and the length twice) */
}

/* A header of `size` bytes: `open`, empty arrays, `close`. */
static void st_arrays(const char *name, const char *open, const char *close, uint64_t size)
{
    out o = create(name);
    uint64_t start = st_begin(&o);
    puts_(&o, open);
    uint64_t room = size - strlen(open) - strlen(close) - 2;
    repeat(&o, "[],", 3, room / 3);
    puts_(&o, "[]");
    puts_(&o, close);
    pad_to(&o, start, size);
    st_end(&o, start, 0);
}

/* The input of issue 14: 99 MB of header holding 33 million empty arrays in one member. Before
 * the fix jansson built them all (4.5 GB, 10 s) before the tensor was found not an object. */
START_TEST(safetensors_header_of_empty_arrays)
{
    const uint64_t size = 99000000 / SCALE;
    st_arrays("arrays.safetensors", "{\"t\":[", "]}", size);
    expect(READ_SAFETENSORS, "arrays.safetensors", LLMMEM_ERR_PARSE, "its entry holds more than 1024 JSON values",
           1.0);
    /* the same arrays as a "__metadata__" value, and as the whole header */
    st_arrays("metadata-arrays.safetensors", "{\"__metadata__\":{\"m\":[", "]}}", size);
    expect(READ_SAFETENSORS, "metadata-arrays.safetensors", LLMMEM_ERR_PARSE, "field 'm' is a JSON array, not a string",
           1.0);
    st_arrays("toplevel.safetensors", "[", "]", size);
    expect(READ_SAFETENSORS, "toplevel.safetensors", LLMMEM_ERR_PARSE, "header is a JSON array, not an object", 1.0);
    scratch_clean();
}
END_TEST

/* The most tensors a header can describe: 0-byte U8 entries of about 55 bytes each (50 is the
 * least a tensor entry takes), all read; the memory kept grows with them, within MEM_PER_BYTE. */
START_TEST(safetensors_header_of_tiny_tensors)
{
    const uint64_t size = 40000000 / SCALE;
    out o = create("tiny.safetensors");
    uint64_t start = st_begin(&o);
    puts_(&o, "{");
    size_t n = 0;
    while (o.n - start + 64 < size) {
        printf_(&o, "%s\"%zx\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]}", n ? "," : "", n);
        n++;
    }
    puts_(&o, "}");
    pad_to(&o, start, size);
    st_end(&o, start, 0);
    result r = expect(READ_SAFETENSORS, "tiny.safetensors", LLMMEM_OK, NULL, MEM_PER_BYTE);
    ck_assert_uint_eq(r.tensors, n);

    /* "__metadata__" of as many short strings: each key kept once, for the duplicate check */
    o = create("metadata.safetensors");
    start = st_begin(&o);
    puts_(&o, "{\"__metadata__\":{");
    n = 0;
    while (o.n - start + 64 < size) {
        printf_(&o, "%s\"%zx\":\"\"", n ? "," : "", n);
        n++;
    }
    puts_(&o, "}}");
    pad_to(&o, start, size);
    st_end(&o, start, 0);
    r = expect(READ_SAFETENSORS, "metadata.safetensors", LLMMEM_OK, NULL, MEM_PER_BYTE);
    ck_assert_uint_eq(r.tensors, 0);

    /* an index naming as many tensors, in a shard that is not there: the weight_map is read
     * whole before the shard is looked for */
    o = create("model.safetensors.index.json");
    puts_(&o, "{\"metadata\":{\"total_size\":0},\"weight_map\":{");
    n = 0;
    while (o.n + 64 < size) {
        printf_(&o, "%s\"%zx\":\"s\"", n ? "," : "", n);
        n++;
    }
    puts_(&o, "}}");
    finish(&o);
    expect(READ_SAFETENSORS, "model.safetensors.index.json", LLMMEM_ERR_IO, "s: cannot open: no such file",
           MEM_PER_BYTE);
    scratch_clean();
}
END_TEST

/* ---- config.json --------------------------------------------------------------------------- */

#define LLAMA_FIELDS                                                                                   \
    "\"model_type\": \"llama\", \"hidden_size\": 64, \"num_hidden_layers\": 2, \"num_attention_heads\": 4, " \
    "\"vocab_size\": 100, \"intermediate_size\": 128"

static void config_of(const char *name, const char *item, uint64_t items)
{
    out o = create(name);
    puts_(&o, "{" LLAMA_FIELDS ", \"unread\": [");
    char one[8];
    snprintf(one, sizeof one, "%s,", item);
    repeat(&o, one, strlen(one), items - 1);
    puts_(&o, item);
    puts_(&o, "]}");
    finish(&o);
}

/* The 16.5 MB config.json of empty arrays (748 MB before the fix): refused by its size
 * (4 MiB at most); 4 MiB of them: refused by its count of values (100,000 at most, an empty
 * container counting twice); 49,000 empty objects, the dearest value jansson builds (about 244
 * bytes for 3 of input), just under the count: read, within 16 MiB. */
START_TEST(config_json_amplification)
{
    config_of("big.json", "[]", 5500000); /* refused unread: the same size when sanitized */
    expect(READ_CONFIG, "big.json", LLMMEM_ERR_PARSE, "bytes is more than the 4194304 a config.json may have", 0.0);
    config_of("dense.json", "[]", 1390000);
    expect(READ_CONFIG, "dense.json", LLMMEM_ERR_PARSE, "more than the 100000 JSON values and keys", 1.0);
    config_of("at-cap.json", "{}", 49000);
    expect(READ_CONFIG, "at-cap.json", LLMMEM_OK, NULL, 0.0);
    scratch_clean();
}
END_TEST

/* ---- GGUF ---------------------------------------------------------------------------------- */

static void gguf_begin(out *o, uint64_t n_tensors, uint64_t n_kv)
{
    puts_(o, "GGUF");
    le(o, 3, 4);
    le(o, n_tensors, 8);
    le(o, n_kv, 8);
}

static void gguf_str(out *o, const char *s)
{
    le(o, strlen(s), 8);
    puts_(o, s);
}

/* Counts claiming more than any file holds fail before anything is read or allocated. */
START_TEST(gguf_claimed_counts)
{
    static const unsigned char zero8[8];
    out o = create("claims.gguf");
    gguf_begin(&o, 1ULL << 60, 1ULL << 60);
    repeat(&o, zero8, 8, 1000);
    finish(&o);
    expect(READ_GGUF, "claims.gguf", LLMMEM_ERR_PARSE, "metadata count 1152921504606846976 exceeds the file", 0.0);
    o = create("tensors.gguf");
    gguf_begin(&o, 1ULL << 60, 0);
    repeat(&o, zero8, 8, 1000);
    finish(&o);
    expect(READ_GGUF, "tensors.gguf", LLMMEM_ERR_PARSE, "tensor count 1152921504606846976 exceeds the file", 0.0);
    scratch_clean();
}
END_TEST

/* 100 MB arrays: u32 items of a key the model reads (each decoded), empty strings, and empty
 * arrays (nested): linear time, constant memory. */
START_TEST(gguf_long_arrays)
{
    const uint64_t items = 25000000 / SCALE;
    static const unsigned char zero12[12]; /* a u32 0; a string of 0 bytes; an empty u8 array */
    out o = create("u32.gguf");
    gguf_begin(&o, 0, 2);
    gguf_str(&o, "general.architecture");
    le(&o, 8, 4);
    gguf_str(&o, "llama");
    gguf_str(&o, "llama.block_count");
    le(&o, 9, 4); /* array */
    le(&o, 4, 4); /* of u32 */
    le(&o, items, 8);
    repeat(&o, zero12, 4, items);
    finish(&o);
    expect(READ_GGUF, "u32.gguf", LLMMEM_OK, NULL, 0.0);

    o = create("strings.gguf");
    gguf_begin(&o, 0, 1);
    gguf_str(&o, "tokenizer.ggml.tokens");
    le(&o, 9, 4);
    le(&o, 8, 4); /* of strings */
    le(&o, items / 2, 8);
    repeat(&o, zero12, 8, items / 2);
    finish(&o);
    expect(READ_GGUF, "strings.gguf", LLMMEM_OK, NULL, 0.0);

    o = create("nested.gguf");
    gguf_begin(&o, 0, 1);
    gguf_str(&o, "x");
    le(&o, 9, 4);
    le(&o, 9, 4); /* of arrays */
    le(&o, items / 3, 8);
    repeat(&o, zero12, 12, items / 3);
    finish(&o);
    expect(READ_GGUF, "nested.gguf", LLMMEM_OK, NULL, 0.0);
    scratch_clean();
}
END_TEST

/* The most metadata keys and tensor infos per byte: each kept (the keys for the duplicate check,
 * the tensors in the checkpoint), within MEM_PER_BYTE. */
START_TEST(gguf_many_keys_and_tensors)
{
    const uint64_t n = 1000000 / SCALE;
    out o = create("keys.gguf");
    gguf_begin(&o, 0, n);
    for (uint64_t i = 0; i < n; i++) {
        char k[24];
        snprintf(k, sizeof k, "%llx", (unsigned long long)i);
        gguf_str(&o, k);
        le(&o, 0, 4); /* u8 */
        le(&o, 0, 1);
    }
    finish(&o);
    expect(READ_GGUF, "keys.gguf", LLMMEM_OK, NULL, MEM_PER_BYTE);

    o = create("tensors.gguf");
    gguf_begin(&o, n, 0);
    for (uint64_t i = 0; i < n; i++) {
        char k[24];
        snprintf(k, sizeof k, "%llx", (unsigned long long)i);
        gguf_str(&o, k);
        le(&o, 1, 4); /* one dimension */
        le(&o, 0, 8); /* of 0 elements: no data */
        le(&o, 0, 4); /* F32 */
        le(&o, 0, 8); /* at offset 0 */
    }
    /* the data section starts at the header's end padded to 32 (docs/gguf.md): all 0 bytes of it */
    repeat(&o, "", 1, (32 - o.n % 32) % 32);
    finish(&o);
    result r = expect(READ_GGUF, "tensors.gguf", LLMMEM_OK, NULL, MEM_PER_BYTE);
    ck_assert_uint_eq(r.tensors, n);
    scratch_clean();
}
END_TEST

static Suite *bounds_suite(void)
{
    Suite *s = suite_create("bounds");
    TCase *tc = tcase_create("bounds");
    tcase_set_timeout(tc, 120);
    tcase_add_unchecked_fixture(tc, scratch_setup, scratch_teardown);
    tcase_add_test(tc, safetensors_header_of_empty_arrays);
    tcase_add_test(tc, safetensors_header_of_tiny_tensors);
    tcase_add_test(tc, config_json_amplification);
    tcase_add_test(tc, gguf_claimed_counts);
    tcase_add_test(tc, gguf_long_arrays);
    tcase_add_test(tc, gguf_many_keys_and_tensors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(bounds_suite());
}
