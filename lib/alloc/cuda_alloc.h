/* Internal: a model of PyTorch's CUDA caching allocator (cuda_alloc.c). Not installed.
 *
 * It follows c10/cuda/CUDACachingAllocator.cpp of torch 2.x (the DeviceCachingAllocator) and the
 * generic form of the same code in c10/core/CachingDeviceAllocator.h: requests are rounded, served
 * best-fit from a small (<= 1 MiB) and a large pool of cached free blocks per stream, split and
 * coalesced; a miss allocates a segment (cudaMalloc) or, with expandable_segments, maps pages of
 * one reserved address range per stream and pool; a failed allocation frees cached blocks and
 * retries before it is an out-of-memory error. Replaying a sequence of malloc and free calls (a
 * "tape") gives the bytes allocated and reserved, their peaks, and whether and where the job runs
 * out of memory under a capacity.
 *
 * Every decision is made from sizes, streams and addresses alone. Addresses matter in one place:
 * best fit breaks ties between free blocks of one size by address, so a segment's address comes from
 * the caller's hook (a real trace's) or from a default that imitates the CUDA driver (see
 * llmmem__ca_config.segment_address).
 *
 * Cost: each malloc or free is O(log n) in the cached blocks (ordered sets kept as treaps, no
 * recursion), plus O(blocks of one segment) when an expandable segment is searched, O(blocks) when
 * the cache is emptied, and O(outstanding stream uses) for a recorded stream's bookkeeping. Memory is one 88-byte record per block (allocated, cached or unmapped; a 70B training
 * step holds about 4,500 at once) and one 16-byte record per stream use, each capped by max_blocks:
 * past it an operation fails with LLMMEM_ERR_UNSUPPORTED and the model refuses further work until
 * llmmem__ca_reset. */
#ifndef LLMMEM_CUDA_ALLOC_H
#define LLMMEM_CUDA_ALLOC_H

#include "base/internal.h"

/* Constants of c10/cuda/CUDACachingAllocator.cpp (namespace Native) and c10/core/AllocatorConfig.h. */
#define LLMMEM__CA_MIN_BLOCK 512ULL            /* kMinBlockSize: every size is a multiple of 512 */
#define LLMMEM__CA_SMALL_SIZE 1048576ULL       /* kSmallSize: the largest request of the small pool */
#define LLMMEM__CA_SMALL_BUFFER 2097152ULL     /* kSmallBuffer: a small pool segment (and its page) */
#define LLMMEM__CA_MIN_LARGE_ALLOC 10485760ULL /* kMinLargeAlloc: below it a large request gets 20 MiB */
#define LLMMEM__CA_LARGE_BUFFER 20971520ULL    /* kLargeBuffer: that segment, and a large pool page */
#define LLMMEM__CA_ROUND_LARGE 2097152ULL      /* kRoundLarge: larger segments are multiples of 2 MiB */
/* AllocatorConfig.cpp: roundup_power2_divisions has one value per power-of-two interval from 1 MiB
 * (sizes below 2 MiB share the first) to 64 GiB (sizes above 32 GiB share the last). */
#define LLMMEM__CA_INTERVALS 16

/* Block ids handed out by llmmem__ca_malloc. */
#define LLMMEM__CA_NULL 0u         /* a request of 0 bytes: PyTorch allocates nothing (allocate()) */
#define LLMMEM__CA_OOM UINT32_MAX  /* the request ran out of memory (an OutOfMemoryError) */

/* What the allocator did, in the words of its trace (TraceEntry::Action). */
typedef enum llmmem__ca_action {
    LLMMEM__CA_ALLOC,          /* a block handed out: addr, size = the bytes requested */
    LLMMEM__CA_FREE_REQUESTED, /* free() called: addr, size = the bytes requested */
    LLMMEM__CA_FREE_COMPLETED, /* the block is back in its pool (later when other streams used it) */
    LLMMEM__CA_SEGMENT_ALLOC,  /* cudaMalloc: addr, size */
    LLMMEM__CA_SEGMENT_FREE,   /* cudaFree: addr, size */
    LLMMEM__CA_SEGMENT_MAP,    /* expandable segment pages mapped: addr, size */
    LLMMEM__CA_SEGMENT_UNMAP,  /* expandable segment pages unmapped: addr, size */
    LLMMEM__CA_OOM_ERROR       /* out of memory: addr = bytes the device had free, size = rounded request */
} llmmem__ca_action;

typedef struct llmmem__ca_event {
    llmmem__ca_action action;
    uint64_t addr, size, stream;
    int small;      /* the small pool's */
    uint32_t block; /* the block's id (ALLOC, FREE_*), else LLMMEM__CA_NULL */
} llmmem__ca_event;

/* The settings that change the allocator's decisions. PYTORCH_CUDA_ALLOC_CONF keys are named. */
typedef struct llmmem__ca_config {
    /* Bytes the device can give the allocator: a cudaMalloc or page mapping that would take reserved
     * bytes past it fails (the device's total less memory outside the allocator). 0: unlimited. */
    uint64_t capacity;
    /* torch.cuda.set_per_process_memory_fraction's limit in bytes (allowed_memory_maximum): checked
     * before each segment allocation against reserved + the request's allocation size. 0: not set. */
    uint64_t memory_fraction_limit;
    /* cudaDeviceProp.totalGlobalMem: an expandable segment reserves addresses for 1 1/8 of it. 0: the
     * capacity, or 80 GiB when that is unlimited too. */
    uint64_t device_total;
    uint64_t max_split_size;               /* max_split_size_mb in bytes; UINT64_MAX (default): none */
    uint64_t max_non_split_rounding;       /* max_non_split_rounding_mb in bytes; default 20 MiB */
    double garbage_collection_threshold;   /* in (0, 1); 0 (default): off. Acts with a fraction limit */
    uint32_t roundup_power2_divisions[LLMMEM__CA_INTERVALS]; /* 0 or a power of two; 0: off */
    int expandable_segments;               /* expandable_segments:True */
    uint32_t max_blocks;                   /* cap on block records (and on stream uses); 0: 1,048,576 */
    /* The address of a new cudaMalloc segment or expandable segment's reserved range of `size` bytes;
     * 0 (or no hook) takes the default: ranges handed out downwards from 0x7f0000000000, each 2 MiB
     * aligned, below the last. The CUDA driver mostly gives a process's new allocations addresses below
     * the earlier ones (in the five default-mode traces of tests/data/gpu 57 to 91% of cudaMalloc
     * segments lie below the one before), so best fit prefers the newest of equal free blocks, as it
     * mostly did there: with these addresses every trace reaches its measured reserved peak, with
     * addresses handed out upwards the Gemma-2-2B step would stay 916 MB short (test_cuda_alloc).
     * Addresses are never reused: a tape that frees segments and allocates again may break ties
     * differently from the driver, which refills freed ranges. */
    uint64_t (*segment_address)(void *ctx, uint64_t size, uint64_t stream, int small, int expandable);
    void *segment_address_ctx;
    void (*on_event)(void *ctx, const llmmem__ca_event *e); /* every action, in order; may be NULL */
    void *on_event_ctx;
} llmmem__ca_config;

/* What torch.cuda.memory_stats() reports of the same quantities (all pools, "all" stat type). */
typedef struct llmmem__ca_stats {
    uint64_t allocated, allocated_peak; /* allocated_bytes: blocks handed out, at their rounded size */
    uint64_t requested, requested_peak; /* requested_bytes: the sizes asked for */
    uint64_t reserved, reserved_peak;   /* reserved_bytes: segments and mapped pages */
    uint64_t segments;                  /* segment: live cudaMalloc segments (not expandable ones) */
    uint64_t num_alloc_retries, num_ooms, num_device_alloc, num_device_free, num_sync_all_streams;
    uint64_t oom_alloc_size;            /* the allocation size of the last out-of-memory request */
    uint64_t blocks, blocks_peak;       /* the model's own block records (memory bound) */
} llmmem__ca_stats;

typedef struct llmmem__ca llmmem__ca;

/* Defaults: PyTorch's when PYTORCH_CUDA_ALLOC_CONF is unset, no capacity, no hooks. */
void llmmem__ca_config_init(llmmem__ca_config *c);

/* round_size: the block size a request of `size` bytes gets (size > 0). */
uint64_t llmmem__ca_round_size(const llmmem__ca_config *c, uint64_t size);
/* get_allocation_size: the segment a rounded size allocates when nothing cached fits. */
uint64_t llmmem__ca_allocation_size(uint64_t rounded);

/* A model with no segments. Fails on a config out of PyTorch's bounds (naming the setting). */
llmmem_status llmmem__ca_new(llmmem__ca **out, const llmmem__ca_config *c);
/* Back to no segments under config c (NULL: the same), keeping the model's memory for reuse. */
llmmem_status llmmem__ca_reset(llmmem__ca *ca, const llmmem__ca_config *c);
void llmmem__ca_destroy(llmmem__ca *ca);

/* DeviceCachingAllocator::malloc: *id_out is the block, LLMMEM__CA_NULL for 0 bytes, LLMMEM__CA_OOM
 * when the request ran out of memory (the model is unchanged but for the cache it emptied trying).
 * Fails only on the model's own limits (max_blocks, a 64-bit address or byte count, host memory). */
llmmem_status llmmem__ca_malloc(uint32_t *id_out, llmmem__ca *ca, uint64_t size, uint64_t stream);
/* DeviceCachingAllocator::free of a block malloc handed out (LLMMEM__CA_NULL: nothing). */
llmmem_status llmmem__ca_free(llmmem__ca *ca, uint32_t id);
/* recordStream: the block is used on `stream` too; when it is freed it returns to its pool only once
 * that stream's work up to the free has completed (llmmem__ca_stream_complete). */
llmmem_status llmmem__ca_record_stream(llmmem__ca *ca, uint32_t id, uint64_t stream);
/* The work queued on `stream` so far has completed: the next malloc (process_events) or emptying of
 * the cache returns the blocks that waited on it to their pools. */
llmmem_status llmmem__ca_stream_complete(llmmem__ca *ca, uint64_t stream);
/* torch.cuda.empty_cache(): release_cached_blocks. */
llmmem_status llmmem__ca_empty_cache(llmmem__ca *ca);
/* torch.cuda.set_allocator_settings("expandable_segments:...") in the middle of a run. */
void llmmem__ca_set_expandable_segments(llmmem__ca *ca, int on);
/* torch.cuda.reset_peak_memory_stats(): every peak drops to its current value. */
void llmmem__ca_reset_peak(llmmem__ca *ca);

const llmmem__ca_stats *llmmem__ca_stats_get(const llmmem__ca *ca);
/* The address and rounded size of an allocated block; 0 for an id that is not one. */
uint64_t llmmem__ca_block_address(const llmmem__ca *ca, uint32_t id);
uint64_t llmmem__ca_block_size(const llmmem__ca *ca, uint32_t id);

/* One segment as torch.cuda.memory_snapshot() reports it: a cudaMalloc segment, or one contiguous
 * mapped range of an expandable segment. */
typedef struct llmmem__ca_segment {
    uint64_t address, total_size, allocated_size, stream;
    int small, expandable;
} llmmem__ca_segment;
/* Calls fn for every segment, in no particular order. O(blocks). */
void llmmem__ca_segments(const llmmem__ca *ca, void (*fn)(void *ctx, const llmmem__ca_segment *s), void *ctx);

#endif
