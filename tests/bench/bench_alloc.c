/* Benchmark of the CUDA caching allocator model (lib/alloc/cuda_alloc.c): the time to replay a tape of
 * malloc and free calls, for the six H100 traces (tests/data/gpu) and for a tape shaped like a
 * Llama-3-70B training step on one of 8 tensor-parallel ranks. An internal module, so this program
 * links the static core rather than the library bench.c measures. Prints the figures; the best of
 * several rounds is kept. Run with `meson test -C build --benchmark --verbose`. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../gpu_trace.h"
#include "alloc/cuda_alloc.h"

#define MIB 1048576ULL

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* A tape: malloc (size, the slot that keeps the block), free (the slot), or empty_cache. */
enum { MALLOC, FREE, EMPTY };
typedef struct op {
    int kind;
    uint64_t size;
    uint32_t slot;
} op;

typedef struct tape {
    op *ops;
    size_t n, cap;
    uint32_t slots;
} tape;

static void push(tape *t, int kind, uint64_t size, uint32_t slot)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 4096;
        t->ops = realloc(t->ops, t->cap * sizeof *t->ops);
        if (!t->ops) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
    }
    t->ops[t->n++] = (op){kind, size, slot};
}

static uint32_t alloc(tape *t, uint64_t size)
{
    push(t, MALLOC, size, t->slots);
    return t->slots++;
}

static void release(tape *t, uint32_t slot)
{
    push(t, FREE, 0, slot);
}

/* The calls of a trace: an alloc keeps its block in a slot, a free_requested frees the slot of the
 * address, a segment_free no call caused is an empty_cache. */
static int trace_tape(tape *t, gpu_trace *tr, const char *name)
{
    static gpu_trace_slot live[GPU_TRACE_MAP];
    char err[4352];
    if (gpu_trace_read(tr, LLMMEM_GPU_TRACES, name, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    memset(live, 0, sizeof live);
    alloc(t, tr->init_bytes);
    for (size_t k = 0; k < tr->n; k++) {
        const gpu_trace_event *e = &tr->ev[k];
        if (e->action == 'a') {
            uint32_t i = gpu_trace_find(live, e->addr);
            live[i] = (gpu_trace_slot){e->addr, alloc(t, e->size)};
        } else if (e->action == 'r') {
            uint32_t i = gpu_trace_find(live, e->addr);
            release(t, live[i].id);
            gpu_trace_forget(live, i);
        } else if ((e->action == 'f' || e->action == 'u') && k > 0 && !strchr("fu", tr->ev[k - 1].action)) {
            push(t, EMPTY, 0, 0);
        }
    }
    return 0;
}

/* Llama-3-70B (hidden 8192, FFN 28672, 80 layers, 64 query and 8 KV heads of 128, vocabulary
 * 128256) on one of 8 tensor-parallel ranks, one sequence of 2048 tokens, bf16, two steps of AdamW
 * with its states sharded over 8 data-parallel ranks (half the weights' bytes each): per layer the
 * forward's saved tensors and temporaries, the backward's gradients (weight gradients made in the
 * first step and kept), then the optimizer's states (first step) and temporaries. */
static void llama70b_tape(tape *t)
{
    const uint64_t T = 2048, H = 8192 * 2 * T, Q = 1024 * 2 * T, KV = 128 * 2 * T, F = 3584 * 2 * T;
    const uint64_t act[] = {H, Q, KV, KV, Q, 8 * 4 * T, H, H, H, F, F, F, H, 4 * T, 4 * T};
    const uint64_t tmp[] = {KV, KV, Q, KV, 64 * 4 * T, H};
    const uint64_t weights[] = {16 * MIB, 2 * MIB, 2 * MIB, 16 * MIB, 56 * MIB, 56 * MIB, 56 * MIB, 16384, 16384};
    enum { NA = sizeof act / sizeof act[0], NT = sizeof tmp / sizeof tmp[0], NW = sizeof weights / sizeof weights[0] };
    static uint32_t saved[80][NA];
    uint64_t embed = 128256 / 8 * 8192 * 2;
    alloc(t, embed), alloc(t, embed);
    for (int l = 0; l < 80; l++)
        for (int w = 0; w < NW; w++)
            alloc(t, weights[w]);
    for (int step = 0; step < 2; step++) {
        uint32_t x = alloc(t, H);
        for (int l = 0; l < 80; l++) {
            for (int a = 0; a < NA; a++) {
                saved[l][a] = alloc(t, act[a]);
                if (a < NT)
                    release(t, alloc(t, tmp[a]));
            }
        }
        uint32_t logits = alloc(t, 128256 / 8 * 4 * T), dlogits = alloc(t, 128256 / 8 * 4 * T);
        release(t, logits);
        uint32_t dx = alloc(t, H);
        release(t, dlogits);
        for (int l = 79; l >= 0; l--) {
            for (int a = NA - 1; a >= 0; a--) {
                uint32_t g = alloc(t, act[a]);
                if (a < NT)
                    release(t, alloc(t, tmp[a]));
                release(t, saved[l][a]);
                release(t, g);
            }
            for (int w = 0; w < NW; w++) {
                if (step == 0) /* kept */
                    alloc(t, weights[w]);
                else
                    release(t, alloc(t, weights[w]));
            }
        }
        release(t, dx);
        release(t, x);
        for (int l = 0; l < 80; l++)
            for (int w = 0; w < NW; w++) {
                if (step == 0) /* kept */
                    alloc(t, weights[w] / 2), alloc(t, weights[w] / 2);
                uint32_t u = alloc(t, weights[w] / 2), v = alloc(t, weights[w] / 2);
                release(t, u), release(t, v);
            }
    }
}

/* Best time of `rounds` replays; the model's statistics of the last. */
static double replay(llmmem__ca *ca, const tape *t, uint32_t *ids, int rounds, llmmem__ca_stats *out)
{
    double best = 1e30;
    for (int r = 0; r < rounds; r++) {
        if (llmmem__ca_reset(ca, NULL) != LLMMEM_OK)
            return -1;
        double t0 = now();
        for (size_t k = 0; k < t->n; k++) {
            const op *o = &t->ops[k];
            llmmem_status st = o->kind == MALLOC ? llmmem__ca_malloc(&ids[o->slot], ca, o->size, 0)
                               : o->kind == FREE ? llmmem__ca_free(ca, ids[o->slot])
                                                 : llmmem__ca_empty_cache(ca);
            if (o->kind == EMPTY) /* measure.py clean(): the peaks restart after empty_cache */
                llmmem__ca_reset_peak(ca);
            if (st != LLMMEM_OK) {
                fprintf(stderr, "op %zu: %s\n", k, llmmem_last_message());
                return -1;
            }
        }
        double s = now() - t0;
        best = s < best ? s : best;
    }
    *out = *llmmem__ca_stats_get(ca);
    return best;
}

static int run(const char *name, const tape *t, int expandable, uint64_t device_total, uint64_t measured)
{
    llmmem__ca_config c;
    llmmem__ca_config_init(&c);
    c.expandable_segments = expandable;
    c.device_total = device_total;
    llmmem__ca *ca;
    uint32_t *ids = calloc(t->slots, sizeof *ids);
    if (!ids || llmmem__ca_new(&ca, &c) != LLMMEM_OK)
        return 1;
    llmmem__ca_stats st;
    double s = replay(ca, t, ids, 7, &st);
    llmmem__ca_destroy(ca);
    free(ids);
    if (s < 0)
        return 1;
    printf("  %-40s %6zu calls %8.2f ms  %6.0f ns/call  reserved peak %6.2f GB", name, t->n, s * 1e3,
           s * 1e9 / (double)t->n, (double)st.reserved_peak / 1e9);
    if (measured)
        printf(" (measured %+" PRId64 " bytes)", (int64_t)(measured - st.reserved_peak));
    printf("  model %" PRIu64 " blocks peak\n", st.blocks_peak);
    return 0;
}

int main(void)
{
    int bad = 0;
    printf("CUDA caching allocator model: replay time (best of 7), default segment addresses\n");
    for (size_t k = 0; k < sizeof GPU_TRACES / sizeof GPU_TRACES[0]; k++) {
        tape t = {0};
        gpu_trace tr;
        if (trace_tape(&t, &tr, GPU_TRACES[k]) != 0)
            return 1;
        bad |= run(GPU_TRACES[k], &t, tr.expandable, tr.device_total, tr.peak_reserved);
        gpu_trace_free(&tr);
        free(t.ops);
    }
    for (int expandable = 0; expandable < 2; expandable++) {
        tape t = {0};
        llama70b_tape(&t);
        bad |= run(expandable ? "llama-3-70b tp8 step x2, expandable" : "llama-3-70b tp8 step x2", &t, expandable,
                   85017493504ULL, 0);
        free(t.ops);
    }
    return bad;
}
