/* Hostile inputs cost each reader a bounded amount of work and memory per input byte, and
 * nothing blocks (issue 14). Every input is generated here, into a temporary folder, at its size
 * and at a quarter of it, and read in a forked child that reports its status, the work it did
 * and its peak resident memory growth (getrusage ru_maxrss after the read, less before it; the
 * child's high-water mark starts at its RSS when forked, Linux kernel/fork.c dup_mm).
 *
 * The work is the number of the core's basic blocks executed: the test links a copy of the core
 * built with -fsanitize-coverage=trace-pc (tests/meson.build), which calls the counter below from
 * every block. A count is the same on any machine however busy it is; nothing here is timed
 * (issue 28: a bound on CPU seconds failed six runs in ten on a loaded machine). The speed of the
 * readers is a benchmark figure (tests/bench).
 *
 * The bounds asserted (plain builds; see README "The bad-input contract"):
 *   - work: per input byte, at most twice what the same input a quarter of the size takes. A
 *     linear reader does no more per byte on the larger input (its fixed costs are spread over
 *     more bytes); a quadratic one does up to 4 times more, and more than twice as soon as its
 *     quadratic term, on the smaller input, is half its linear one;
 *   - memory, input refused: at most the input's bytes (a header or a config is read whole) plus
 *     8 MiB;
 *   - memory, input read: at most MEM_PER_BYTE bytes per input byte plus 8 MiB.
 * The bounds being per byte, the inputs need only be large against the fixed costs: up to 25 MB
 * (the 100 MB of issue 14 cost four times as much to count, and show nothing more).
 * Each read runs in a child capped at 3 GiB of address space and 60 s of CPU (the largest read
 * takes about 1 s), and ended by an alarm after 5 minutes should it block, so that a regression
 * fails here instead of taking the machine. Built with a sanitizer (ASan's redzones, quarantine
 * and shadow memory, and its slowdown), the inputs are 10 times smaller and only the statuses
 * are checked. The figures are printed to stderr. */

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostile.h"
#include "unit.h"

#define MIB (1024.0 * 1024.0)
/* A read's fixed cost: at most 4.7 MiB (at-cap.json: 49,000 objects). */
#define FIXED_MEMORY (8.0 * MIB)

/* ---- a scratch folder ---------------------------------------------------------------------- */

/* One folder for the test case, made and removed by an unchecked fixture, which Check runs in its
 * own process before and after the tests (so a failed test leaves nothing behind); each test
 * empties it when done, the inputs being up to 25 MB. */
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

/* ---- the measurement --------------------------------------------------------------------- */

#ifdef LLMMEM_COUNT_WORK
/* The core's basic blocks executed since the count was last reset. */
static uint64_t work;

void __sanitizer_cov_trace_pc(void);

void __sanitizer_cov_trace_pc(void)
{
    work++;
}
#define COUNTING 1
#else
#define COUNTING 0
#endif

typedef struct result {
    llmmem_status status;
    size_t tensors;
    double bytes;  /* of the input */
    double work;   /* basic blocks of the core */
    double memory; /* peak resident growth, bytes */
    char message[LLMMEM_MESSAGE_MAX];
} result;

static uint64_t file_size(const char *path)
{
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    return (uint64_t)sb.st_size;
}

/* Reads `path` in a forked child, which a runaway read cannot take the machine with it: its
 * address space (plain builds) and CPU time are capped, and an alarm ends it should it block. */
static result measure(hostile_reader r, const char *path)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(fds[0]);
        alarm(300);
        struct rlimit cpu = {60, 60};
        setrlimit(RLIMIT_CPU, &cpu);
        if (!SANITIZED) {
            struct rlimit lim = {(rlim_t)3 << 30, (rlim_t)3 << 30};
            setrlimit(RLIMIT_AS, &lim);
        }
        result out;
        memset(&out, 0, sizeof out);
        struct rusage before, after;
        getrusage(RUSAGE_SELF, &before);
#if COUNTING
        work = 0;
#endif
        llmmem_checkpoint *ck = NULL;
        llmmem_model *m = NULL;
        out.status = hostile_read(r, path, &ck, &m);
#if COUNTING
        out.work = (double)work;
#endif
        getrusage(RUSAGE_SELF, &after);
        out.tensors = llmmem_checkpoint_tensor_count(ck);
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
                  "the reader of %s did not finish (%s %d; SIGXCPU is 60 s of CPU, SIGALRM 5 minutes)", path,
                  WIFSIGNALED(wstatus) ? "signal" : "exit status",
                  WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : WEXITSTATUS(wstatus));
    res.bytes = (double)file_size(path);
    return res;
}

static void print(const char *name, const result *r)
{
    char done[48] = "work not counted";
    if (COUNTING)
        snprintf(done, sizeof done, "work %8.2f a byte", r->work / r->bytes);
    fprintf(stderr, "bounds: %-28s %10.0f bytes: %-18s %s, peak +%.1f MiB (%.2f a byte)\n", name, r->bytes,
            llmmem_status_str(r->status), done, r->memory / MIB, r->memory / r->bytes);
}

/* Each input at a quarter of its size, then at its size: the status, a part of the message, the
 * tensors found, and (plain builds) the work and memory bounds. */
START_TEST(work_and_memory_are_linear)
{
    const hostile_input *in = &hostile_inputs[_i];
    const char *path = scratch_path(in->name);
    ck_assert_msg(hostile_write(in, path, in->size / 4) >= 0, "%s: cannot write it", path);
    result quarter = measure(in->reader, path);
    print(in->name, &quarter);
    int64_t tensors = hostile_write(in, path, in->size);
    ck_assert_msg(tensors >= 0, "%s: cannot write it", path);
    result res = measure(in->reader, path);
    print(in->name, &res);
    scratch_clean();
    ck_assert_msg(res.status == in->status, "%s: %s (%s), expected %s", in->name, llmmem_status_str(res.status),
                  res.message, llmmem_status_str(in->status));
    ck_assert_msg(!in->needle || strstr(res.message, in->needle), "%s: message '%s' lacks '%s'", in->name,
                  res.message, in->needle);
    ck_assert_uint_eq(res.tensors, (uint64_t)tensors);
    if (SANITIZED)
        return;
    ck_assert_msg(!COUNTING || res.work / res.bytes <= 2.0 * quarter.work / quarter.bytes,
                  "%s: %.2f blocks of work a byte for %.0f bytes, more than twice the %.2f for %.0f bytes: the work "
                  "grows faster than the input",
                  in->name, res.work / res.bytes, res.bytes, quarter.work / quarter.bytes, quarter.bytes);
    double memory_bound = FIXED_MEMORY + in->kept * res.bytes;
    ck_assert_msg(res.memory <= memory_bound, "%s: peak memory grew %.1f MiB for %.0f bytes, above %.1f MiB",
                  in->name, res.memory / MIB, res.bytes, memory_bound / MIB);
}
END_TEST

static Suite *bounds_suite(void)
{
    Suite *s = suite_create("bounds");
    TCase *tc = tcase_create("bounds");
    tcase_set_timeout(tc, 600); /* a hang guard: each input takes seconds */
    tcase_add_unchecked_fixture(tc, scratch_setup, scratch_teardown);
    tcase_add_loop_test(tc, work_and_memory_are_linear, 0, (int)(sizeof hostile_inputs / sizeof hostile_inputs[0]));
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    if (!COUNTING && !SANITIZED)
        fprintf(stderr, "bounds: the work is not counted (the compiler has no -fsanitize-coverage=trace-pc)\n");
    return run_suite(bounds_suite());
}
