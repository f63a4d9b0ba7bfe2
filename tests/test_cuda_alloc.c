/* The model of PyTorch's CUDA caching allocator (lib/alloc/cuda_alloc.c).
 *
 * First its rules, each expectation worked out by hand in a comment from
 * c10/cuda/CUDACachingAllocator.cpp (torch 2.x; the generic copy c10/core/CachingDeviceAllocator.h
 * of torch 2.9+ where they differ) and c10/core/AllocatorConfig.cpp. Then the replay of every
 * allocator trace recorded on an H100 with torch 2.11 (tests/data/gpu, README.md there): each
 * allocation must get the address the real allocator gave it, every segment allocation, free, map
 * and unmap must come out in the trace's order with its address and size, the reserved and allocated
 * peaks must equal the ones measured and the segments left at the end the ones the snapshot listed;
 * replayed again with the model's default segment addresses, each trace must still reach its measured
 * reserved peak. Random tapes check that the bytes always add up under every kind of setting. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "alloc/cuda_alloc.h"
#include "gpu_trace.h"
#include "unit.h"

#define MIB 1048576ULL

/* ---- a model whose events are kept ------------------------------------------------------------- */

#define LOG_MAX 64
typedef struct log {
    llmmem__ca_event e[LOG_MAX];
    int n;
} log_t;

static void record(void *ctx, const llmmem__ca_event *e)
{
    log_t *l = ctx;
    ck_assert_int_lt(l->n, LOG_MAX);
    l->e[l->n++] = *e;
}

static llmmem__ca *model(llmmem__ca_config *c, log_t *l)
{
    llmmem__ca *ca;
    memset(l, 0, sizeof *l);
    c->on_event = record;
    c->on_event_ctx = l;
    ck_assert_ok(llmmem__ca_new(&ca, c));
    return ca;
}

static llmmem__ca *plain(log_t *l)
{
    llmmem__ca_config c;
    llmmem__ca_config_init(&c);
    return model(&c, l);
}

static uint32_t get(llmmem__ca *ca, uint64_t size, uint64_t stream)
{
    uint32_t id;
    ck_assert_ok(llmmem__ca_malloc(&id, ca, size, stream));
    ck_assert_msg(id != LLMMEM__CA_NULL && id != LLMMEM__CA_OOM, "malloc(%" PRIu64 ") got no block", size);
    return id;
}

static void put(llmmem__ca *ca, uint32_t id)
{
    ck_assert_ok(llmmem__ca_free(ca, id));
}

static uint64_t addr(const llmmem__ca *ca, uint32_t id)
{
    return llmmem__ca_block_address(ca, id);
}

static const llmmem__ca_stats *stats(const llmmem__ca *ca)
{
    return llmmem__ca_stats_get(ca);
}

/* Asserts event k of the log. */
static void event(const log_t *l, int k, llmmem__ca_action action, uint64_t address, uint64_t size)
{
    ck_assert_int_lt(k, l->n);
    ck_assert_msg(l->e[k].action == action && l->e[k].addr == address && l->e[k].size == size,
                  "event %d: action %d at %" PRIu64 " of %" PRIu64 ", expected action %d at %" PRIu64 " of %" PRIu64,
                  k, (int)l->e[k].action, l->e[k].addr, l->e[k].size, (int)action, address, size);
}

/* The number of events of one action in the log. */
static int count(const log_t *l, llmmem__ca_action action)
{
    int n = 0;
    for (int k = 0; k < l->n; k++)
        n += l->e[k].action == action;
    return n;
}

/* ---- sizes ------------------------------------------------------------------------------------- */

/* round_size: below kMinBlockSize (512) a request gets 512, otherwise the next multiple of 512;
 * roundup_power2_divisions d (for the size's interval) rounds a size above 512 * d to the next of d
 * equal steps between the powers of 2 around it (roundup_power2_next_division). */
START_TEST(test_round_size)
{
    llmmem__ca_config c;
    llmmem__ca_config_init(&c);
    ck_assert_uint_eq(llmmem__ca_round_size(&c, 1), 512);
    ck_assert_uint_eq(llmmem__ca_round_size(&c, 511), 512);
    ck_assert_uint_eq(llmmem__ca_round_size(&c, 512), 512);
    ck_assert_uint_eq(llmmem__ca_round_size(&c, 513), 1024);
    ck_assert_uint_eq(llmmem__ca_round_size(&c, 5 * MIB + 1), 5 * MIB + 512);
    for (int k = 0; k < LLMMEM__CA_INTERVALS; k++)
        c.roundup_power2_divisions[k] = 4;
    /* 2048 = 512 * 4 is not above it: 512-multiple; 2049: floor 2048, step 2048 / 4 = 512 -> 2560 */
    ck_assert_uint_eq(llmmem__ca_round_size(&c, 2048), 2048);
    ck_assert_uint_eq(llmmem__ca_round_size(&c, 2049), 2560);
    /* 5 MiB + 1: floor 4 MiB, step 1 MiB -> 6 MiB; a power of 2 stays */
    ck_assert_uint_eq(llmmem__ca_round_size(&c, 5 * MIB + 1), 6 * MIB);
    ck_assert_uint_eq(llmmem__ca_round_size(&c, 4 * MIB), 4 * MIB);
    /* divisions per interval: index log2(size) - 20; 8 for [2, 4) MiB only: 3 MiB + 1 -> floor 2 MiB,
     * step 256 KiB -> 3.25 MiB; 5 MiB + 1 (interval [4, 8) MiB, 0 divisions) -> 5 MiB + 512 */
    memset(c.roundup_power2_divisions, 0, sizeof c.roundup_power2_divisions);
    c.roundup_power2_divisions[1] = 8;
    ck_assert_uint_eq(llmmem__ca_round_size(&c, 3 * MIB + 1), 3 * MIB + 256 * 1024);
    ck_assert_uint_eq(llmmem__ca_round_size(&c, 5 * MIB + 1), 5 * MIB + 512);
    /* sizes below 2 MiB share interval 0, sizes of 32 GiB and more interval 15 */
    c.roundup_power2_divisions[0] = 2;
    ck_assert_uint_eq(llmmem__ca_round_size(&c, 1536 * 1024 + 1), 2 * MIB); /* floor 1 MiB, step 512 KiB */
    c.roundup_power2_divisions[15] = 2;
    ck_assert_uint_eq(llmmem__ca_round_size(&c, (1ULL << 40) + 1), (1ULL << 40) + (1ULL << 39));
}
END_TEST

/* get_allocation_size: up to kSmallSize (1 MiB) a 2 MiB segment, below kMinLargeAlloc (10 MiB) a
 * kLargeBuffer (20 MiB) one, from 10 MiB on the size rounded up to kRoundLarge (2 MiB). */
START_TEST(test_allocation_size)
{
    ck_assert_uint_eq(llmmem__ca_allocation_size(512), 2 * MIB);
    ck_assert_uint_eq(llmmem__ca_allocation_size(MIB), 2 * MIB);
    ck_assert_uint_eq(llmmem__ca_allocation_size(MIB + 512), 20 * MIB);
    ck_assert_uint_eq(llmmem__ca_allocation_size(10 * MIB - 512), 20 * MIB);
    ck_assert_uint_eq(llmmem__ca_allocation_size(10 * MIB), 10 * MIB);
    ck_assert_uint_eq(llmmem__ca_allocation_size(10 * MIB + 512), 12 * MIB);
    ck_assert_uint_eq(llmmem__ca_allocation_size(501 * MIB), 502 * MIB);
}
END_TEST

/* get_pool picks by the rounded size: 1 MiB is small (a 2 MiB segment), 1 MiB + 1 rounds to
 * 1 MiB + 512 and is large (20 MiB); 10 MiB - 1 rounds up to exactly 10 MiB, a 10 MiB segment. */
START_TEST(test_pools_and_segment_sizes)
{
    log_t l;
    llmmem__ca *ca = plain(&l);
    uint32_t a = get(ca, MIB, 0), c = get(ca, 10 * MIB - 1, 0), b = get(ca, MIB + 1, 0);
    ck_assert_int_eq(l.n, 6);
    event(&l, 0, LLMMEM__CA_SEGMENT_ALLOC, addr(ca, a), 2 * MIB);
    ck_assert(l.e[0].small);
    event(&l, 2, LLMMEM__CA_SEGMENT_ALLOC, addr(ca, c), 10 * MIB);
    event(&l, 4, LLMMEM__CA_SEGMENT_ALLOC, addr(ca, b), 20 * MIB);
    ck_assert(!l.e[4].small);
    event(&l, 5, LLMMEM__CA_ALLOC, addr(ca, b), MIB + 1);
    ck_assert_uint_eq(stats(ca)->reserved, 32 * MIB);
    ck_assert_uint_eq(stats(ca)->segments, 3);
    /* allocated counts rounded blocks: 1 MiB + (1 MiB + 512) + 10 MiB */
    ck_assert_uint_eq(stats(ca)->allocated, 12 * MIB + 512);
    ck_assert_uint_eq(stats(ca)->requested, 12 * MIB);
    llmmem__ca_destroy(ca);
}
END_TEST

/* should_split: a small block keeps a remainder of 512 bytes or more; a large one only a remainder
 * over kSmallSize (1 MiB). */
START_TEST(test_split)
{
    log_t l;
    llmmem__ca *ca = plain(&l);
    /* 100 bytes round to 512 and split a 2 MiB segment; the next 512 follow at + 512 */
    uint32_t s1 = get(ca, 100, 0), s2 = get(ca, 512, 0);
    ck_assert_uint_eq(addr(ca, s2), addr(ca, s1) + 512);
    /* 5 MiB in a 20 MiB segment leaves 15 MiB (> 1 MiB): split, the next 5 MiB at + 5 MiB */
    uint32_t a = get(ca, 5 * MIB, 0), b = get(ca, 5 * MIB, 0);
    ck_assert_uint_eq(addr(ca, b), addr(ca, a) + 5 * MIB);
    ck_assert_int_eq(count(&l, LLMMEM__CA_SEGMENT_ALLOC), 2);
    /* 19 MiB: a 20 MiB segment (rounded to 2 MiB) whose 1 MiB remainder is not over 1 MiB: the block is
     * the whole segment, 20 MiB allocated */
    uint64_t before = stats(ca)->allocated;
    uint32_t c = get(ca, 19 * MIB, 0);
    ck_assert_uint_eq(llmmem__ca_block_size(ca, c), 20 * MIB);
    ck_assert_uint_eq(stats(ca)->allocated - before, 20 * MIB);
    /* 18 MiB + 1 rounds to 18 MiB + 512 in a 20 MiB segment: 2 MiB - 512 remain, over 1 MiB: split */
    uint32_t d = get(ca, 18 * MIB + 1, 0);
    ck_assert_uint_eq(llmmem__ca_block_size(ca, d), 18 * MIB + 512);
    /* the remainder serves the next large request that fits it: 1 MiB + 512 bytes at its start */
    uint32_t e = get(ca, MIB + 512, 0);
    ck_assert_uint_eq(addr(ca, e), addr(ca, d) + 18 * MIB + 512);
    ck_assert_int_eq(count(&l, LLMMEM__CA_SEGMENT_ALLOC), 4);
    llmmem__ca_destroy(ca);
}
END_TEST

static void add_segment(void *ctx, const llmmem__ca_segment *s)
{
    llmmem__ca_segment *out = ctx;
    ck_assert_uint_eq(out->total_size, 0);
    *out = *s;
}

/* free_block's try_merge_blocks: a freed block absorbs free neighbours; only a whole free segment
 * is returned by empty_cache (release_blocks frees blocks with no prev and no next). */
START_TEST(test_coalescing)
{
    log_t l;
    llmmem__ca *ca = plain(&l);
    uint32_t a = get(ca, 5 * MIB, 0), b = get(ca, 5 * MIB, 0), c = get(ca, 5 * MIB, 0);
    uint64_t base = addr(ca, a);
    put(ca, a);
    put(ca, c); /* merges with the 5 MiB left at the end: 10 MiB free */
    ck_assert_ok(llmmem__ca_empty_cache(ca));
    ck_assert_int_eq(count(&l, LLMMEM__CA_SEGMENT_FREE), 0); /* b still splits the segment */
    llmmem__ca_segment s = {0};
    llmmem__ca_segments(ca, add_segment, &s);
    ck_assert_uint_eq(s.address, base);
    ck_assert_uint_eq(s.total_size, 20 * MIB);
    ck_assert_uint_eq(s.allocated_size, 5 * MIB);
    put(ca, b); /* merges with both: one free 20 MiB block */
    ck_assert_ok(llmmem__ca_empty_cache(ca));
    event(&l, l.n - 1, LLMMEM__CA_SEGMENT_FREE, base, 20 * MIB);
    ck_assert_uint_eq(stats(ca)->reserved, 0);
    ck_assert_uint_eq(stats(ca)->reserved_peak, 20 * MIB);
    ck_assert_uint_eq(stats(ca)->blocks, 0);
    llmmem__ca_destroy(ca);
}
END_TEST

/* Ascending addresses for the tie test: 1 GiB, 2 GiB, ... */
static uint64_t ascending(void *ctx, uint64_t size, uint64_t stream, int small, int expandable)
{
    (void)size, (void)stream, (void)small, (void)expandable;
    return ++*(uint64_t *)ctx << 30;
}

/* get_free_block: the smallest cached block of at least the request (BlockComparatorSize: stream,
 * size, address), so ties go to the lowest address. */
START_TEST(test_best_fit)
{
    log_t l;
    llmmem__ca *ca = plain(&l);
    /* requests of 10 MiB and more get segments of their size rounded to 2 MiB: 12, 16, 14 MiB */
    uint32_t a = get(ca, 12 * MIB, 0), b = get(ca, 16 * MIB, 0), c = get(ca, 14 * MIB, 0);
    uint64_t at_a = addr(ca, a), at_b = addr(ca, b), at_c = addr(ca, c);
    put(ca, a), put(ca, b), put(ca, c);
    ck_assert_uint_eq(addr(ca, get(ca, 13 * MIB, 0)), at_c);
    ck_assert_uint_eq(addr(ca, get(ca, 11 * MIB, 0)), at_a);
    ck_assert_uint_eq(addr(ca, get(ca, 15 * MIB, 0)), at_b);
    ck_assert_int_eq(count(&l, LLMMEM__CA_SEGMENT_ALLOC), 3);
    get(ca, 15 * MIB, 0); /* nothing cached fits: a fourth segment */
    ck_assert_int_eq(count(&l, LLMMEM__CA_SEGMENT_ALLOC), 4);
    /* two free 12 MiB segments: the default hands out addresses downwards, so the second segment is
     * the lower and wins the tie; with ascending addresses the first does */
    for (int up = 0; up < 2; up++) {
        uint64_t next = 0;
        llmmem__ca_config cfg;
        llmmem__ca_config_init(&cfg);
        if (up) {
            cfg.segment_address = ascending;
            cfg.segment_address_ctx = &next;
        }
        llmmem__ca *m = model(&cfg, &l);
        uint32_t first = get(m, 12 * MIB, 0), second = get(m, 12 * MIB, 0);
        uint64_t at_first = addr(m, first), at_second = addr(m, second);
        ck_assert(up ? at_first < at_second : at_second < at_first);
        put(m, first), put(m, second);
        ck_assert_uint_eq(addr(m, get(m, 12 * MIB, 0)), up ? at_first : at_second);
        llmmem__ca_destroy(m);
    }
    llmmem__ca_destroy(ca);
}
END_TEST

/* max_split_size_mb: get_free_block gives an oversize block (>= max_split_size) only to a request of
 * max_split_size or more, and only if the block is less than max_non_split_rounding_mb (20 MiB by
 * default) larger; should_split never splits for such a request. */
START_TEST(test_max_split_size)
{
    log_t l;
    llmmem__ca_config c;
    llmmem__ca_config_init(&c);
    c.max_split_size = 20 * MIB;
    llmmem__ca *ca = model(&c, &l);
    uint32_t big = get(ca, 40 * MIB, 0);
    uint64_t at_big = addr(ca, big);
    put(ca, big);
    /* 5 MiB would fit the cached 40 MiB block, but it is oversize: a new 20 MiB segment */
    uint32_t small = get(ca, 5 * MIB, 0);
    ck_assert_uint_ne(addr(ca, small), at_big);
    event(&l, l.n - 2, LLMMEM__CA_SEGMENT_ALLOC, addr(ca, small), 20 * MIB);
    /* 30 MiB: 40 < 30 + 20, served from the 40 MiB block whole (no split: 30 MiB >= max_split_size) */
    uint32_t mid = get(ca, 30 * MIB, 0);
    ck_assert_uint_eq(addr(ca, mid), at_big);
    ck_assert_uint_eq(llmmem__ca_block_size(ca, mid), 40 * MIB);
    put(ca, mid);
    /* 20 MiB: 40 >= 20 + 20, refused; a new segment */
    uint32_t edge = get(ca, 20 * MIB, 0);
    ck_assert_uint_ne(addr(ca, edge), at_big);
    ck_assert_int_eq(count(&l, LLMMEM__CA_SEGMENT_ALLOC), 3);
    llmmem__ca_destroy(ca);
    /* max_non_split_rounding_mb:40 lets it have the 40 MiB block */
    c.max_non_split_rounding = 40 * MIB;
    ca = model(&c, &l);
    big = get(ca, 40 * MIB, 0);
    at_big = addr(ca, big);
    put(ca, big);
    ck_assert_uint_eq(addr(ca, get(ca, 20 * MIB, 0)), at_big);
    llmmem__ca_destroy(ca);
}
END_TEST

/* malloc: when a segment cannot be had, release_cached_blocks frees every cached whole segment and
 * alloc_block retries once; then it is an out-of-memory error. */
START_TEST(test_oom_after_freeing_the_cache)
{
    log_t l;
    llmmem__ca_config c;
    llmmem__ca_config_init(&c);
    c.capacity = 60 * MIB;
    llmmem__ca *ca = model(&c, &l);
    uint32_t a = get(ca, 20 * MIB, 0);
    uint64_t at_a = addr(ca, a);
    put(ca, a);
    /* 20 + 50 > 60: the cached 20 MiB segment goes back, then the 50 MiB one fits */
    uint32_t b = get(ca, 50 * MIB, 0);
    ck_assert_int_eq(l.n, 7);
    event(&l, 4, LLMMEM__CA_SEGMENT_FREE, at_a, 20 * MIB);
    event(&l, 5, LLMMEM__CA_SEGMENT_ALLOC, addr(ca, b), 50 * MIB);
    ck_assert_uint_eq(stats(ca)->num_alloc_retries, 1);
    /* 50 + 20 > 60 and nothing is cached: out of memory, 10 MiB free on the device */
    uint32_t id;
    ck_assert_ok(llmmem__ca_malloc(&id, ca, 20 * MIB, 0));
    ck_assert_uint_eq(id, LLMMEM__CA_OOM);
    event(&l, l.n - 1, LLMMEM__CA_OOM_ERROR, 10 * MIB, 20 * MIB);
    ck_assert_uint_eq(stats(ca)->num_ooms, 1);
    ck_assert_uint_eq(stats(ca)->oom_alloc_size, 20 * MIB);
    ck_assert_uint_eq(stats(ca)->reserved, 50 * MIB);
    ck_assert_uint_eq(stats(ca)->num_alloc_retries, 2);
    put(ca, b);
    llmmem__ca_destroy(ca);
    /* a cached block of a segment still in use cannot be given back: 5 MiB cached in a 20 MiB
     * segment whose other 5 MiB are allocated; 25 MiB (a 26 MiB segment) into 40 MiB runs out */
    c.capacity = 40 * MIB;
    ca = model(&c, &l);
    uint32_t x = get(ca, 5 * MIB, 0);
    get(ca, 5 * MIB, 0);
    put(ca, x);
    ck_assert_ok(llmmem__ca_malloc(&id, ca, 25 * MIB, 0));
    ck_assert_uint_eq(id, LLMMEM__CA_OOM);
    ck_assert_int_eq(count(&l, LLMMEM__CA_SEGMENT_FREE), 0);
    ck_assert_uint_eq(stats(ca)->oom_alloc_size, 26 * MIB);
    llmmem__ca_destroy(ca);
}
END_TEST

/* release_available_cached_blocks (max_split_size set): before emptying the whole cache, free the
 * smallest cached oversize block that covers the request, or else the largest oversize blocks
 * until their bytes do, and try again (no retry counted). */
START_TEST(test_release_available_cached_blocks)
{
    log_t l;
    llmmem__ca_config c;
    llmmem__ca_config_init(&c);
    c.max_split_size = 20 * MIB;
    c.capacity = 100 * MIB;
    llmmem__ca *ca = model(&c, &l);
    uint32_t a = get(ca, 30 * MIB, 0), b = get(ca, 40 * MIB, 0);
    uint64_t at_a = addr(ca, a), at_b = addr(ca, b);
    put(ca, a), put(ca, b);
    /* 50 MiB: no cached block holds it; 70 + 50 > 100; none is 50 MiB or more, so the largest go
     * first: 40 (40 < 50), then 30 (70 >= 50) */
    uint32_t d = get(ca, 50 * MIB, 0);
    ck_assert_int_eq(l.n, 12);
    event(&l, 8, LLMMEM__CA_SEGMENT_FREE, at_b, 40 * MIB);
    event(&l, 9, LLMMEM__CA_SEGMENT_FREE, at_a, 30 * MIB);
    event(&l, 10, LLMMEM__CA_SEGMENT_ALLOC, addr(ca, d), 50 * MIB);
    ck_assert_uint_eq(stats(ca)->num_alloc_retries, 0);
    llmmem__ca_destroy(ca);
    /* cached 30 and 60 MiB, 35 MiB asked (a 36 MiB segment): the 60 MiB block is 20 MiB or more
     * above it (refused), 90 + 36 > 100; the smallest oversize block of 35 MiB or more is the 60 */
    c.capacity = 120 * MIB;
    ca = model(&c, &l);
    a = get(ca, 30 * MIB, 0), b = get(ca, 60 * MIB, 0);
    at_b = addr(ca, b);
    put(ca, a), put(ca, b);
    d = get(ca, 35 * MIB, 0);
    event(&l, 8, LLMMEM__CA_SEGMENT_FREE, at_b, 60 * MIB);
    event(&l, 9, LLMMEM__CA_SEGMENT_ALLOC, addr(ca, d), 36 * MIB);
    llmmem__ca_destroy(ca);
    /* without max_split_size the whole cache goes, smallest first (30, 40), and it is a retry */
    llmmem__ca_config_init(&c);
    c.capacity = 100 * MIB;
    ca = model(&c, &l);
    a = get(ca, 30 * MIB, 0), b = get(ca, 40 * MIB, 0);
    at_a = addr(ca, a), at_b = addr(ca, b);
    put(ca, a), put(ca, b);
    get(ca, 50 * MIB, 0);
    event(&l, 8, LLMMEM__CA_SEGMENT_FREE, at_a, 30 * MIB);
    event(&l, 9, LLMMEM__CA_SEGMENT_FREE, at_b, 40 * MIB);
    ck_assert_uint_eq(stats(ca)->num_alloc_retries, 1);
    llmmem__ca_destroy(ca);
}
END_TEST

/* garbage_collection_threshold:0.5 under a 100 MiB fraction limit: a miss with more than 50 MiB
 * reserved frees whole cached large segments at least as old as the average (age: get_free_block
 * calls of the pool since the block was cached). */
START_TEST(test_garbage_collection)
{
    for (int gc = 0; gc < 2; gc++) {
        log_t l;
        llmmem__ca_config c;
        llmmem__ca_config_init(&c);
        c.memory_fraction_limit = 100 * MIB;
        c.garbage_collection_threshold = gc ? 0.5 : 0.0;
        llmmem__ca *ca = model(&c, &l);
        uint32_t p = get(ca, 12 * MIB, 0); /* call 1: segment P of 12 MiB */
        uint64_t at_p = addr(ca, p);
        put(ca, p);                        /* P cached at 1 */
        uint32_t a = get(ca, 20 * MIB, 0); /* call 2: P is too small, segment A; reserved 32 */
        uint64_t at_a = addr(ca, a);
        put(ca, a); /* A cached at 2 */
        for (int k = 0; k < 3; k++)
            put(ca, get(ca, 12 * MIB, 0)); /* calls 3, 4, 5 take P and cache it again: at 5 */
        get(ca, 30 * MIB, 0);              /* call 6: segment B, reserved 62 */
        int before = l.n;
        uint32_t d = get(ca, 40 * MIB, 0); /* call 7: a miss */
        if (gc) {
            /* 62 > 50: ages A 7 - 2 = 5, P 7 - 5 = 2, average 3.5: A goes, reclaiming 20 >= 12; then
             * 42 + 40 <= 100 */
            ck_assert_int_eq(l.n - before, 3);
            event(&l, before, LLMMEM__CA_SEGMENT_FREE, at_a, 20 * MIB);
            event(&l, before + 1, LLMMEM__CA_SEGMENT_ALLOC, addr(ca, d), 40 * MIB);
            ck_assert_uint_eq(stats(ca)->reserved, 82 * MIB);
        } else {
            /* 62 + 40 > 100: the whole cache goes (P then A), then the retry fits */
            ck_assert_int_eq(l.n - before, 4);
            event(&l, before, LLMMEM__CA_SEGMENT_FREE, at_p, 12 * MIB);
            event(&l, before + 1, LLMMEM__CA_SEGMENT_FREE, at_a, 20 * MIB);
            ck_assert_uint_eq(stats(ca)->reserved, 70 * MIB);
        }
        llmmem__ca_destroy(ca);
    }
}
END_TEST

/* Per-stream pools: a cached block serves its own stream only; recordStream holds a freed block
 * back until the other stream's work completes (process_events at the next malloc). */
START_TEST(test_streams)
{
    log_t l;
    llmmem__ca *ca = plain(&l);
    uint32_t a = get(ca, 5 * MIB, 1);
    uint64_t at_a = addr(ca, a);
    put(ca, a);
    uint32_t b = get(ca, 5 * MIB, 2);
    ck_assert_uint_ne(addr(ca, b), at_a);
    ck_assert_int_eq(count(&l, LLMMEM__CA_SEGMENT_ALLOC), 2);
    ck_assert_uint_eq(addr(ca, get(ca, 5 * MIB, 1)), at_a);
    /* a block used on stream 2 too: its free completes only after stream 2's work */
    uint32_t d = get(ca, 4096, 1);
    uint64_t at_d = addr(ca, d);
    ck_assert_ok(llmmem__ca_record_stream(ca, d, 1)); /* its own stream: nothing to wait for */
    ck_assert_ok(llmmem__ca_record_stream(ca, d, 2));
    ck_assert_ok(llmmem__ca_record_stream(ca, d, 2));
    int before = l.n;
    put(ca, d);
    ck_assert_int_eq(l.n - before, 1);
    event(&l, before, LLMMEM__CA_FREE_REQUESTED, at_d, 4096);
    uint32_t e = get(ca, 4096, 1);
    ck_assert_uint_eq(addr(ca, e), at_d + 4096); /* d's range is not free yet */
    ck_assert_ok(llmmem__ca_stream_complete(ca, 2));
    before = l.n;
    uint32_t f = get(ca, 4096, 1);
    event(&l, before, LLMMEM__CA_FREE_COMPLETED, at_d, 4096);
    ck_assert_uint_eq(addr(ca, f), at_d);
    /* emptying the cache waits for every stream */
    ck_assert_ok(llmmem__ca_record_stream(ca, f, 3));
    put(ca, f);
    before = l.n;
    ck_assert_ok(llmmem__ca_empty_cache(ca));
    event(&l, before, LLMMEM__CA_FREE_COMPLETED, at_d, 4096);
    ck_assert_uint_eq(stats(ca)->num_sync_all_streams, 1);
    llmmem__ca_destroy(ca);
}
END_TEST

/* expandable_segments:True: one address range per stream and pool, mapped in pages of 20 MiB
 * (large pool) or 2 MiB (small) as requests need them (map_block, try_allocate_expandable_block);
 * empty_cache unmaps the whole free pages (unmap_block) and gives up a range with nothing mapped. */
START_TEST(test_expandable_growth)
{
    log_t l;
    llmmem__ca_config c;
    llmmem__ca_config_init(&c);
    c.expandable_segments = 1;
    llmmem__ca *ca = model(&c, &l);
    /* 501 MiB: 26 pages (520 MiB) mapped; split, as expandable blocks are, leaving 19 MiB free */
    uint32_t a = get(ca, 501 * MIB, 0);
    uint64_t base = addr(ca, a);
    event(&l, 0, LLMMEM__CA_SEGMENT_MAP, base, 520 * MIB);
    /* 8 MiB from the 19 MiB left: no mapping */
    uint32_t b = get(ca, 8 * MIB, 0);
    ck_assert_uint_eq(addr(ca, b), base + 501 * MIB);
    ck_assert_int_eq(l.n, 3);
    /* 12 MiB: 11 MiB are free at the end of the mapped range, one more page makes 31 MiB */
    uint32_t d = get(ca, 12 * MIB, 0);
    event(&l, 3, LLMMEM__CA_SEGMENT_MAP, base + 520 * MIB, 20 * MIB);
    ck_assert_uint_eq(addr(ca, d), base + 509 * MIB);
    /* the small pool has a range of its own: one 2 MiB page */
    uint32_t s = get(ca, 4096, 0);
    uint64_t small_base = addr(ca, s);
    event(&l, 5, LLMMEM__CA_SEGMENT_MAP, small_base, 2 * MIB);
    ck_assert_uint_eq(stats(ca)->reserved, 542 * MIB);
    ck_assert_uint_eq(stats(ca)->segments, 0); /* the segment stat counts cudaMalloc segments */
    /* with b and d freed, 39 MiB are free from 501 MiB on: only the page [520, 540) is whole */
    put(ca, b), put(ca, d);
    int before = l.n;
    ck_assert_ok(llmmem__ca_empty_cache(ca));
    ck_assert_int_eq(l.n - before, 1);
    event(&l, before, LLMMEM__CA_SEGMENT_UNMAP, base + 520 * MIB, 20 * MIB);
    ck_assert_uint_eq(stats(ca)->reserved, 522 * MIB);
    /* then a 30 MiB request maps it again: free 19 MiB + one page */
    uint32_t e = get(ca, 30 * MIB, 0);
    ck_assert_uint_eq(addr(ca, e), base + 501 * MIB);
    event(&l, before + 1, LLMMEM__CA_SEGMENT_MAP, base + 520 * MIB, 20 * MIB);
    /* all freed: everything unmapped and both ranges given up */
    put(ca, a), put(ca, e), put(ca, s);
    before = l.n;
    ck_assert_ok(llmmem__ca_empty_cache(ca));
    event(&l, before, LLMMEM__CA_SEGMENT_UNMAP, base, 540 * MIB);
    event(&l, before + 1, LLMMEM__CA_SEGMENT_UNMAP, small_base, 2 * MIB);
    ck_assert_uint_eq(stats(ca)->reserved, 0);
    ck_assert_uint_eq(stats(ca)->blocks, 0);
    ck_assert_uint_eq(stats(ca)->reserved_peak, 542 * MIB);
    llmmem__ca_destroy(ca);
}
END_TEST

/* get_free_block with expandable segments: a block that could grow into the unmapped pages after it
 * counts as that large, so a block that cannot grow is taken first even when it is larger. */
START_TEST(test_expandable_best_fit)
{
    log_t l;
    llmmem__ca_config c;
    llmmem__ca_config_init(&c);
    c.expandable_segments = 1;
    llmmem__ca *ca = model(&c, &l);
    uint32_t x = get(ca, 20 * MIB, 0); /* page [0, 20) */
    uint64_t base = addr(ca, x);
    uint32_t f = get(ca, 12 * MIB, 0); /* page [20, 40): f at 20, 8 MiB free */
    uint32_t y = get(ca, 19 * MIB, 0); /* 8 free + page [40, 60): y at 32, 9 MiB free at 51 */
    ck_assert_uint_eq(addr(ca, y), base + 32 * MIB);
    put(ca, f);                        /* 12 MiB free at 20, between x and y */
    /* 8 MiB: best fit is the 9 MiB at 51, but it can grow; the 12 MiB at 20 cannot */
    uint32_t g = get(ca, 8 * MIB, 0);
    ck_assert_uint_eq(addr(ca, g), base + 20 * MIB);
    ck_assert_int_eq(count(&l, LLMMEM__CA_SEGMENT_MAP), 3);
    /* expandable_segments turned off: no expandable block is handed out, a cudaMalloc segment is */
    llmmem__ca_set_expandable_segments(ca, 0);
    uint32_t h = get(ca, 4 * MIB, 0);
    event(&l, l.n - 2, LLMMEM__CA_SEGMENT_ALLOC, addr(ca, h), 20 * MIB);
    ck_assert_uint_eq(stats(ca)->segments, 1);
    llmmem__ca_destroy(ca);
}
END_TEST

/* The model's own limits: max_blocks records, then nothing until reset; ids that are not blocks;
 * settings outside PyTorch's bounds (AllocatorConfig's parser). */
START_TEST(test_limits_and_misuse)
{
    log_t l;
    llmmem__ca_config c;
    llmmem__ca_config_init(&c);
    c.max_blocks = 8;
    llmmem__ca *ca = model(&c, &l);
    uint32_t id = 0;
    llmmem_status st = LLMMEM_OK;
    int made = 0;
    while (st == LLMMEM_OK && made < 100) {
        st = llmmem__ca_malloc(&id, ca, 512, 0);
        made += st == LLMMEM_OK;
    }
    /* the first request makes the segment's record and the block's, each later one a record more */
    ck_assert_int_eq(made, 7);
    ck_assert_int_eq(st, LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "max_blocks"));
    ck_assert_int_eq(llmmem__ca_free(ca, 1), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "reset"));
    ck_assert_ok(llmmem__ca_reset(ca, NULL));
    ck_assert_uint_eq(stats(ca)->reserved, 0);
    id = get(ca, 512, 0);
    put(ca, id);
    ck_assert_int_eq(llmmem__ca_free(ca, id), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(llmmem__ca_free(ca, 12345), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(llmmem__ca_record_stream(ca, 12345, 1), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_ok(llmmem__ca_free(ca, LLMMEM__CA_NULL));
    /* 0 bytes: no block and nothing done; 1 EiB: out of memory before the allocator is asked */
    int before = l.n;
    ck_assert_ok(llmmem__ca_malloc(&id, ca, 0, 0));
    ck_assert_uint_eq(id, LLMMEM__CA_NULL);
    ck_assert_ok(llmmem__ca_malloc(&id, ca, 1ULL << 60, 0));
    ck_assert_uint_eq(id, LLMMEM__CA_OOM);
    ck_assert_int_eq(l.n, before);
    llmmem__ca_destroy(ca);
    llmmem__ca_config_init(&c);
    c.max_split_size = 10 * MIB;
    ck_assert_int_eq(llmmem__ca_new(&ca, &c), LLMMEM_ERR_OUT_OF_RANGE);
    llmmem__ca_config_init(&c);
    c.roundup_power2_divisions[3] = 3;
    ck_assert_int_eq(llmmem__ca_new(&ca, &c), LLMMEM_ERR_OUT_OF_RANGE);
    llmmem__ca_config_init(&c);
    c.garbage_collection_threshold = 1.0;
    ck_assert_int_eq(llmmem__ca_new(&ca, &c), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_ptr_null(ca);
}
END_TEST

/* ---- random tapes ------------------------------------------------------------------------------ */

typedef struct span {
    uint64_t addr, size;
} span;

static int by_start(const void *a, const void *b)
{
    uint64_t x = ((const span *)a)->addr, y = ((const span *)b)->addr;
    return (x > y) - (x < y);
}

typedef struct tally {
    span seg[4096];
    size_t n;
    uint64_t total, allocated;
} tally;

static void add_span(void *ctx, const llmmem__ca_segment *s)
{
    tally *t = ctx;
    ck_assert_uint_lt(t->n, sizeof t->seg / sizeof t->seg[0]);
    t->seg[t->n++] = (span){s->address, s->total_size};
    t->total += s->total_size;
    t->allocated += s->allocated_size;
}

/* The segments hold exactly the reserved and allocated bytes, and every live block lies inside one
 * segment without overlapping another block. */
static void check_consistent(const llmmem__ca *ca, const uint32_t *live, size_t nlive)
{
    static tally t;
    static span blocks[4096];
    t.n = 0, t.total = 0, t.allocated = 0;
    llmmem__ca_segments(ca, add_span, &t);
    ck_assert_uint_eq(t.total, stats(ca)->reserved);
    ck_assert_uint_eq(t.allocated, stats(ca)->allocated);
    qsort(t.seg, t.n, sizeof t.seg[0], by_start);
    for (size_t k = 0; k < nlive; k++)
        blocks[k] = (span){llmmem__ca_block_address(ca, live[k]), llmmem__ca_block_size(ca, live[k])};
    qsort(blocks, nlive, sizeof blocks[0], by_start);
    size_t s = 0;
    for (size_t k = 0; k < nlive; k++) {
        ck_assert(k == 0 || blocks[k - 1].addr + blocks[k - 1].size <= blocks[k].addr);
        while (s < t.n && t.seg[s].addr + t.seg[s].size <= blocks[k].addr)
            s++;
        ck_assert_msg(s < t.n && t.seg[s].addr <= blocks[k].addr &&
                          blocks[k].addr + blocks[k].size <= t.seg[s].addr + t.seg[s].size,
                      "a block at %" PRIu64 " of %" PRIu64 " bytes outside every segment", blocks[k].addr,
                      blocks[k].size);
    }
}

static uint64_t next_random(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* Random calls under every kind of setting (expandable segments, a capacity that runs out, max_split_size,
 * garbage collection, three streams with recorded uses): the bytes always add up, blocks never overlap,
 * and once everything is freed and the cache emptied nothing is left: every split was coalesced. */
START_TEST(test_random_tapes)
{
    static uint32_t live[4096];
    uint64_t x = 88172645463325252ULL + (uint64_t)_i;
    llmmem__ca_config c;
    llmmem__ca_config_init(&c);
    c.expandable_segments = _i & 1;
    c.capacity = _i & 2 ? 3 * GIB : 0;
    c.max_split_size = _i & 4 ? 64 * MIB : UINT64_MAX;
    if (_i & 8) {
        c.memory_fraction_limit = 2 * GIB;
        c.garbage_collection_threshold = 0.6;
    }
    llmmem__ca *ca;
    ck_assert_ok(llmmem__ca_new(&ca, &c));
    size_t nlive = 0;
    for (int op = 0; op < 4000; op++) {
        uint64_t r = next_random(&x) % 100, v = next_random(&x);
        if (r < 55 && nlive < 4096) {
            static const uint64_t scale[] = {4096, MIB, 10 * MIB, 200 * MIB};
            uint64_t size = 1 + v % scale[(v >> 40) % 4];
            uint32_t id;
            ck_assert_ok(llmmem__ca_malloc(&id, ca, size, (v >> 50) % 3));
            if (id != LLMMEM__CA_OOM)
                live[nlive++] = id;
        } else if (r < 90 && nlive) {
            size_t k = v % nlive;
            put(ca, live[k]);
            live[k] = live[--nlive];
        } else if (r < 94 && nlive) {
            ck_assert_ok(llmmem__ca_record_stream(ca, live[v % nlive], (v >> 32) % 3));
        } else if (r < 98) {
            ck_assert_ok(llmmem__ca_stream_complete(ca, v % 3));
        } else {
            ck_assert_ok(llmmem__ca_empty_cache(ca));
        }
        if (op % 250 == 0)
            check_consistent(ca, live, nlive);
    }
    check_consistent(ca, live, nlive);
    while (nlive)
        put(ca, live[--nlive]);
    ck_assert_ok(llmmem__ca_empty_cache(ca));
    ck_assert_uint_eq(stats(ca)->allocated, 0);
    ck_assert_uint_eq(stats(ca)->requested, 0);
    ck_assert_uint_eq(stats(ca)->reserved, 0);
    ck_assert_uint_eq(stats(ca)->segments, 0);
    ck_assert_uint_eq(stats(ca)->blocks, 0);
    if (c.capacity)
        ck_assert_uint_le(stats(ca)->reserved_peak, c.capacity);
    llmmem__ca_destroy(ca);
}
END_TEST

/* ---- replay of the H100 traces ------------------------------------------------------------------ */

/* A replay that compares the model's events with the trace's. */
typedef struct replay {
    const gpu_trace *t;
    size_t pos;      /* the trace event the model's next event must equal */
    int before;      /* the allocation made before the trace began: its events are not in it */
    char error[512]; /* the first difference */
    uint64_t segment_events;
} replay;

static const char CODES[] = {'a', 'r', 'c', 's', 'f', 'm', 'u', 'o'}; /* by llmmem__ca_action */

static void compare(void *ctx, const llmmem__ca_event *e)
{
    replay *r = ctx;
    if (r->before || r->error[0])
        return;
    char code = CODES[e->action];
    if (r->pos >= r->t->n) {
        snprintf(r->error, sizeof r->error, "the model made '%c %" PRIu64 " %" PRIu64 "' after the trace's last event",
                 code, e->addr, e->size);
        return;
    }
    const gpu_trace_event *x = &r->t->ev[r->pos];
    if (code != x->action || e->addr != x->addr || e->size != x->size || e->stream != x->stream)
        snprintf(r->error, sizeof r->error,
                 "event %zu: the trace has '%c %" PRIu64 " %" PRIu64 " %" PRIu64 "', the model made '%c %" PRIu64
                 " %" PRIu64 " %" PRIu64 "'",
                 r->pos, x->action, x->addr, x->size, x->stream, code, e->addr, e->size, e->stream);
    r->segment_events += strchr("sfmu", code) != NULL;
    r->pos++;
}

/* The trace's own address for the segment the model makes: the one of the event due next. */
static uint64_t trace_address(void *ctx, uint64_t size, uint64_t stream, int small, int expandable)
{
    const replay *r = ctx;
    (void)size, (void)stream, (void)small, (void)expandable;
    if (r->before)
        return r->t->init_addr;
    if (r->pos < r->t->n && strchr("sm", r->t->ev[r->pos].action))
        return r->t->ev[r->pos].addr;
    return 0;
}

typedef struct segments {
    llmmem__ca_segment s[1024];
    size_t n;
} segments;

static void collect(void *ctx, const llmmem__ca_segment *s)
{
    segments *all = ctx;
    ck_assert_uint_lt(all->n, sizeof all->s / sizeof all->s[0]);
    all->s[all->n++] = *s;
}

static int by_address(const void *a, const void *b)
{
    uint64_t x = ((const llmmem__ca_segment *)a)->address, y = ((const llmmem__ca_segment *)b)->address;
    return (x > y) - (x < y);
}

/* The calls of the job, in the trace's order, made on the model: the workspace allocated before
 * recording, then each alloc a malloc of its size on its stream, each free_requested a free of the
 * block the trace had at its address, and a segment_free or segment_unmap that no call caused (the
 * first of a run) measure.py's clean(): empty_cache, then reset_peak_memory_stats. */
static void make_calls(llmmem__ca *ca, const gpu_trace *t, replay *r)
{
    static gpu_trace_slot live[GPU_TRACE_MAP];
    uint32_t id;
    memset(live, 0, sizeof live);
    ck_assert_ok(llmmem__ca_malloc(&id, ca, t->init_bytes, 0));
    if (r)
        r->before = 0;
    for (size_t k = 0; k < t->n && !(r && r->error[0]); k++) {
        const gpu_trace_event *e = &t->ev[k];
        if (e->action == 'a') {
            ck_assert_ok(llmmem__ca_malloc(&id, ca, e->size, e->stream));
            ck_assert_msg(id != LLMMEM__CA_OOM, "%s: event %zu: out of memory", t->job, k);
            live[gpu_trace_find(live, e->addr)] = (gpu_trace_slot){e->addr, id};
        } else if (e->action == 'r') {
            uint32_t i = gpu_trace_find(live, e->addr);
            ck_assert_msg(live[i].addr != 0, "%s: event %zu: no block at %" PRIu64, t->job, k, e->addr);
            ck_assert_ok(llmmem__ca_free(ca, live[i].id));
            gpu_trace_forget(live, i);
        } else if (strchr("fu", e->action) && (k == 0 || !strchr("fu", t->ev[k - 1].action))) {
            ck_assert_ok(llmmem__ca_empty_cache(ca));
            llmmem__ca_reset_peak(ca);
        }
    }
}

/* Replays a trace: the model, given the trace's segment addresses, must make the trace's events one
 * for one, reach the measured peaks, and end with the segments the snapshot listed. Then with its
 * default addresses it must still reach the measured reserved peak. */
static void replay_trace(const char *name)
{
    static segments model_end;
    gpu_trace t;
    char err[4352]; /* a path and a line */
    ck_assert_msg(gpu_trace_read(&t, LLMMEM_GPU_TRACES, name, err, sizeof err) == 0, "%s", err);
    replay r = {&t, 0, 1, "", 0};
    llmmem__ca_config c;
    llmmem__ca_config_init(&c);
    c.expandable_segments = t.expandable;
    c.device_total = t.device_total;
    c.segment_address = trace_address;
    c.segment_address_ctx = &r;
    c.on_event = compare;
    c.on_event_ctx = &r;
    llmmem__ca *ca;
    ck_assert_ok(llmmem__ca_new(&ca, &c));
    make_calls(ca, &t, &r);
    ck_assert_msg(!r.error[0], "%s: %s", name, r.error);
    ck_assert_msg(r.pos == t.n, "%s: the model made %zu of the trace's %zu events", name, r.pos, t.n);
    const llmmem__ca_stats *st = stats(ca);
    ck_assert_msg(st->reserved_peak == t.peak_reserved && t.peak_reserved == t.peak_reserved_events,
                  "%s: reserved peak: model %" PRIu64 ", measured %" PRIu64 ", from the trace's events %" PRIu64, name,
                  st->reserved_peak, t.peak_reserved, t.peak_reserved_events);
    /* measured over step 2 of a training job, where the model's peak spans the whole trace: step 1
     * holds less (the optimizer states step 2 carries are made at step 1's end) */
    ck_assert_msg(st->allocated_peak == t.peak_allocated, "%s: allocated peak: model %" PRIu64 ", measured %" PRIu64,
                  name, st->allocated_peak, t.peak_allocated);
    /* the segments the snapshot listed at the end, by address */
    model_end.n = 0;
    llmmem__ca_segments(ca, collect, &model_end);
    qsort(model_end.s, model_end.n, sizeof model_end.s[0], by_address);
    qsort(t.end, t.nend, sizeof t.end[0], by_address);
    ck_assert_uint_eq(model_end.n, t.nend);
    for (size_t k = 0; k < t.nend; k++) {
        const llmmem__ca_segment *m = &model_end.s[k], *x = &t.end[k];
        ck_assert_msg(m->address == x->address && m->total_size == x->total_size &&
                          m->allocated_size == x->allocated_size && m->small == x->small,
                      "%s: segment %zu at the end: the snapshot has %" PRIu64 " of %" PRIu64 " bytes, %" PRIu64
                      " allocated, %s; the model %" PRIu64 " of %" PRIu64 ", %" PRIu64 ", %s",
                      name, k, x->address, x->total_size, x->allocated_size, x->small ? "small" : "large", m->address,
                      m->total_size, m->allocated_size, m->small ? "small" : "large");
    }
    printf("%s (%s): %zu events, %" PRIu64 " segment events, %zu segments at the end reproduced; reserved peak %" PRIu64
           ", allocated peak %" PRIu64 " (both as measured)\n",
           name, t.expandable ? "expandable_segments" : "default", t.n, r.segment_events, t.nend, st->reserved_peak,
           st->allocated_peak);
    /* the default addresses (downwards) break best fit's ties as the driver's did, closely enough */
    c.segment_address = NULL;
    c.on_event = NULL;
    ck_assert_ok(llmmem__ca_reset(ca, &c));
    make_calls(ca, &t, NULL);
    ck_assert_msg(stats(ca)->reserved_peak == t.peak_reserved,
                  "%s: reserved peak with the default addresses %" PRIu64 ", measured %" PRIu64, name,
                  stats(ca)->reserved_peak, t.peak_reserved);
    gpu_trace_free(&t);
    llmmem__ca_destroy(ca);
}

/* One test per trace of GPU_TRACES (tests/gpu_trace.h). */
START_TEST(test_replay)
{
    replay_trace(GPU_TRACES[_i]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cuda_alloc");
    TCase *rules = tcase_create("rules");
    tcase_add_test(rules, test_round_size);
    tcase_add_test(rules, test_allocation_size);
    tcase_add_test(rules, test_pools_and_segment_sizes);
    tcase_add_test(rules, test_split);
    tcase_add_test(rules, test_coalescing);
    tcase_add_test(rules, test_best_fit);
    tcase_add_test(rules, test_max_split_size);
    tcase_add_test(rules, test_oom_after_freeing_the_cache);
    tcase_add_test(rules, test_release_available_cached_blocks);
    tcase_add_test(rules, test_garbage_collection);
    tcase_add_test(rules, test_streams);
    tcase_add_test(rules, test_expandable_growth);
    tcase_add_test(rules, test_expandable_best_fit);
    tcase_add_test(rules, test_limits_and_misuse);
    tcase_add_loop_test(rules, test_random_tapes, 0, 16);
    suite_add_tcase(s, rules);
    TCase *traces = tcase_create("h100_traces");
    tcase_add_loop_test(traces, test_replay, 0, (int)(sizeof GPU_TRACES / sizeof GPU_TRACES[0]));
    suite_add_tcase(s, traces);
    return run_suite(s);
}
