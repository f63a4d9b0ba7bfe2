/* Internal: a job replayed through PyTorch's CUDA caching allocator (replay.c): the resolved job
 * becomes the allocation tape of its framework (tape.c), whose every allocation and free the
 * allocator's model (cuda_alloc.c) serves under the device's capacity. What the device must hold
 * for the job to run. Not installed; on demand, never on the estimate's path (it allocates and
 * takes milliseconds). */
#ifndef LLMMEM_REPLAY_H
#define LLMMEM_REPLAY_H

#include "job/job.h"
#include "alloc/tape.h"

/* The interval of the tape that ends at a moment: its highest allocated bytes, what they held then
 * (the allocator's blocks at their rounded sizes, by llmmem_component), and the highest reserved. */
typedef struct llmmem__replay_point {
    uint8_t moment;          /* llmmem__tape_moment */
    uint32_t step;
    uint32_t layer;
    uint64_t allocated, reserved;
    uint64_t bytes[LLMMEM_COMPONENTS];
} llmmem__replay_point;

/* Points a timeline keeps (more moments merge pairwise, each merged point the higher of two) */
#define LLMMEM__REPLAY_POINTS 4096u
/* Decode steps a generate replays at most: the H100 generate jobs' reserved peaks move by 0.21% at
 * most with 64 (GPT-2's 127 decode steps replayed 2 at a time; tests/test_tape.c) */
#define LLMMEM__REPLAY_DECODE_STEPS 64u

typedef struct llmmem__replay {
    int runs;                   /* 1: every allocation fit within the capacity; 0: out of memory */
    uint64_t capacity;          /* bytes the allocator could reserve (0: unlimited) */
    uint64_t allocated_peak;    /* the allocator's peaks (allocated: rounded blocks) */
    uint64_t reserved_peak;
    uint64_t requested_peak;    /* the tape's own peak: the bytes the framework asked for */
    /* out of memory: the request that failed and the moment before it */
    uint64_t oom_request;
    llmmem__replay_point oom_after;
    /* at the reserved peak: the bytes of the segments' free blocks (reserved - allocated then) */
    uint64_t free_at_reserved_peak;
    uint64_t decode_stride;     /* generate: tokens a replayed decode step stands for (1: every step) */
    /* the moments, in order: the caller's array of LLMMEM__REPLAY_POINTS, or NULL to keep none */
    llmmem__replay_point *points;
    unsigned n_points;
} llmmem__replay;

/* The tape of a job: fails with LLMMEM_ERR_UNSUPPORTED naming what the tape does not run (a
 * framework, a family, a layout, a setting). */
llmmem_status llmmem__tape_job_make(llmmem__tape_job *out, const llmmem__job *j);

/* Where the CUDA driver puts a new segment. Best fit takes the lowest address of equal free blocks,
 * so the order of two equal segments can decide whether a later request fits in one; the driver's
 * order is not PyTorch's to know (57 to 91% of the traces' segments lie below the one before, and
 * the rest fill gaps the memory outside the allocator leaves). */
typedef enum llmmem__placement {
    LLMMEM__PLACE_DOWNWARD, /* each below the last: the traces' majority */
    LLMMEM__PLACE_UPWARD    /* each above the last */
} llmmem__placement;

/* Replays the job with the strategy's allocator settings (expandable_segments: the key, or
 * `expandable` >= 0 instead) under the device's capacity: what CUDA reports as its total (the
 * hardware's llmmem__cuda_total) less the memory outside PyTorch's allocator
 * (runtime_overhead_bytes). */
llmmem_status llmmem__replay_job(llmmem__replay *out, const llmmem__job *j, int expandable, llmmem__placement place);

/* Empties a timeline (timeline.c): what a failed estimate leaves, as llmmem_estimate_timeline does. */
void llmmem__timeline_clear(llmmem_timeline *t);

/* Fills the timeline with a replay's points (timeline.c): each moment's highest allocated bytes by
 * component and the reserved bytes, both with the memory outside the allocator (`outside`). */
llmmem_status llmmem__timeline_from_replay(llmmem_timeline *out, const llmmem__replay_point *points, unsigned n,
                                           uint64_t outside);

#endif
