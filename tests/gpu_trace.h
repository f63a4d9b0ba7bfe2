/* Shared by test_cuda_alloc and the allocator benchmark: the H100 allocator traces in the text form
 * tests/data/gpu/convert.py writes (the format is described there), and a table of the live
 * allocations of a replay by address. */
#ifndef LLMMEM_TESTS_GPU_TRACE_H
#define LLMMEM_TESTS_GPU_TRACE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/cuda_alloc.h"

#if defined(__GNUC__)
#  define GPU_TRACE_HELPER static __attribute__((unused))
#else
#  define GPU_TRACE_HELPER static
#endif

/* The six traces, by the name of their file (tests/data/gpu/NAME.json.gz, built into gpu-NAME.trace). */
static const char *const GPU_TRACES[] = {
    "full_t_llama1b_sdpa_gc", "full_expandable_t_llama1b_sdpa_gc", "full_t_llama1b_lora_qv_gc",
    "full_t_qwen05b_sdpa",    "full_t_gemma2_2b_eager",            "full_g_llama8b_readme",
};

typedef struct gpu_trace_event {
    char action; /* a alloc, r free_requested, c free_completed, s segment_alloc, f segment_free,
                    m segment_map, u segment_unmap */
    uint64_t addr, size, stream;
} gpu_trace_event;

typedef struct gpu_trace {
    char job[64];
    int expandable;
    uint64_t device_total, init_addr, init_bytes;
    uint64_t peak_reserved, peak_reserved_events, peak_allocated;
    llmmem__ca_segment *end; /* segments_at_end */
    size_t nend;
    gpu_trace_event *ev;
    size_t n;
} gpu_trace;

GPU_TRACE_HELPER void gpu_trace_free(gpu_trace *t)
{
    free(t->end);
    free(t->ev);
    memset(t, 0, sizeof *t);
}

/* Reads `count` decimal numbers after the line's first word; 0 when they are all there. */
GPU_TRACE_HELPER int gpu_trace_numbers(const char *at, uint64_t *out, int count)
{
    for (int k = 0; k < count; k++) {
        char *end;
        out[k] = strtoull(at, &end, 10);
        if (end == at)
            return -1;
        at = end;
    }
    return 0;
}

/* Reads tests' build folder/gpu-NAME.trace; 0, or -1 with the reason in err. */
GPU_TRACE_HELPER int gpu_trace_read(gpu_trace *t, const char *folder, const char *name, char *err, size_t errlen)
{
    char path[4096], line[256];
    size_t cap = 0, endcap = 0;
    snprintf(path, sizeof path, "%s/gpu-%s.trace", folder, name);
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot open %s", path);
        return -1;
    }
    int bad = 0;
    for (size_t lineno = 1; !bad && fgets(line, sizeof line, f); lineno++) {
        char word[32];
        int used = 0;
        uint64_t v[4] = {0};
        const char *at = line;
        if (sscanf(line, "%31s %n", word, &used) != 1) {
            bad = 1;
        } else if ((at = line + used), strcmp(word, "job") == 0) {
            bad = sscanf(at, "%63s", t->job) != 1;
        } else if (strcmp(word, "mode") == 0) {
            t->expandable = strncmp(at, "expandable", 10) == 0;
        } else if (strcmp(word, "device_total") == 0) {
            bad = gpu_trace_numbers(at, &t->device_total, 1);
        } else if (strcmp(word, "init") == 0) {
            bad = gpu_trace_numbers(at, v, 2);
            t->init_addr = v[0], t->init_bytes = v[1];
        } else if (strcmp(word, "peak_reserved") == 0) {
            bad = gpu_trace_numbers(at, &t->peak_reserved, 1);
        } else if (strcmp(word, "peak_reserved_events") == 0) {
            bad = gpu_trace_numbers(at, &t->peak_reserved_events, 1);
        } else if (strcmp(word, "peak_allocated") == 0) {
            bad = gpu_trace_numbers(at, &t->peak_allocated, 1);
        } else if (strcmp(word, "segment") == 0) {
            if (t->nend == endcap) {
                endcap = endcap ? 2 * endcap : 256;
                llmmem__ca_segment *p = realloc(t->end, endcap * sizeof *p);
                bad = p == NULL;
                t->end = bad ? t->end : p;
            }
            if (!bad && !(bad = gpu_trace_numbers(at, v, 3)))
                t->end[t->nend++] = (llmmem__ca_segment){v[0], v[1], v[2], 0, strstr(at, "small") != NULL, t->expandable};
        } else if (strcmp(word, "events") == 0) {
            bad = gpu_trace_numbers(at, v, 1) || !(t->ev = calloc((size_t)v[0] + 1, sizeof *t->ev));
            cap = bad ? 0 : (size_t)v[0];
        } else {
            bad = strlen(word) != 1 || !strchr("arcsfmu", word[0]) || t->n >= cap || gpu_trace_numbers(at, v, 3);
            if (!bad)
                t->ev[t->n++] = (gpu_trace_event){word[0], v[0], v[1], v[2]};
        }
        if (bad)
            snprintf(err, errlen, "%s:%zu: cannot read \"%.60s\"", path, lineno, line);
    }
    fclose(f);
    if (!bad && (t->n != cap || cap == 0)) {
        snprintf(err, errlen, "%s: %zu of %zu events", path, t->n, cap);
        bad = 1;
    }
    if (bad)
        gpu_trace_free(t);
    return bad ? -1 : 0;
}

/* Live allocations by address: open addressing, deletion by backward shift; address 0 is empty. */
#define GPU_TRACE_MAP (1u << 17) /* over twice the most allocations any trace holds at once */
typedef struct gpu_trace_slot {
    uint64_t addr;
    uint32_t id;
} gpu_trace_slot;

GPU_TRACE_HELPER uint32_t gpu_trace_home(uint64_t a)
{
    return (uint32_t)(((a >> 9) * 0x9E3779B97F4A7C15ULL) >> 47) & (GPU_TRACE_MAP - 1);
}

/* The slot holding address a, or the empty one where it would go. */
GPU_TRACE_HELPER uint32_t gpu_trace_find(const gpu_trace_slot *m, uint64_t a)
{
    uint32_t i = gpu_trace_home(a);
    while (m[i].addr && m[i].addr != a)
        i = (i + 1) & (GPU_TRACE_MAP - 1);
    return i;
}

GPU_TRACE_HELPER void gpu_trace_forget(gpu_trace_slot *m, uint32_t i)
{
    for (uint32_t j = (i + 1) & (GPU_TRACE_MAP - 1); m[j].addr; j = (j + 1) & (GPU_TRACE_MAP - 1)) {
        uint32_t k = gpu_trace_home(m[j].addr);
        if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
            m[i] = m[j];
            i = j;
        }
    }
    m[i].addr = 0;
}

#endif
