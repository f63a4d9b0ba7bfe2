/* A model of PyTorch's CUDA caching allocator; see cuda_alloc.h. Function comments name the
 * function of c10/cuda/CUDACachingAllocator.cpp (DeviceCachingAllocator, ExpandableSegment) that
 * each one follows; "CDA" is c10/core/CachingDeviceAllocator.h, the same code in its generic form
 * (torch 2.9+), where it differs from the older file; "AC" is c10/core/AllocatorConfig.cpp. */
#include "alloc/cuda_alloc.h"

#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX
#define DEFAULT_MAX_BLOCKS 1048576u
#define DEFAULT_TOP_ADDRESS 0x7f0000000000ULL
#define EXA_BYTES 1152921504606846976ULL /* NativeCachingAllocator::allocate: 1 EiB or more is an OOM at once */

/* One block: a range of a segment, allocated, cached (in its pool's set) or, in an expandable
 * segment, unmapped (in the pool's unmapped set). */
typedef struct block {
    uint64_t ptr, size, requested, stream;
    uint64_t gc_base;                   /* the pool's get_free_block count when it was cached */
    uint32_t prev, next;                /* neighbours in the segment */
    uint32_t left, right, parent, prio; /* treap links while in a set */
    uint32_t seg;                       /* expandable segment, NIL for a cudaMalloc segment */
    uint32_t events;                    /* streams whose work must complete before the free does */
    uint32_t link;                      /* release_blocks' list of blocks to unmap; the free list */
    uint32_t uses;                      /* streams recorded while allocated */
    uint8_t small, allocated, mapped, live;
} block;

/* A recorded stream use of a block: RECORDED while the block is allocated, then an event that waits
 * for the stream (PENDING), then DONE until process_events returns the block. */
enum { USE_RECORDED, USE_PENDING, USE_DONE };
typedef struct use {
    uint64_t stream;
    uint32_t block;
    uint32_t state;
} use;

/* ExpandableSegment: one reserved address range, mapped in pages of `page` bytes. */
typedef struct xseg {
    uint64_t base, size, stream;
    uint64_t page;
    int live;
} xseg;

/* BlockPool: free mapped blocks ordered by (stream, size, address) (BlockComparatorSize) and
 * unmapped blocks ordered by (stream, address) (BlockComparatorAddress). */
typedef struct pool {
    uint32_t blocks, unmapped; /* treap roots */
    uint64_t get_free_blocks_call_count;
    int small;
} pool;

struct llmmem__ca {
    llmmem__ca_config cfg;
    llmmem__ca_stats stats;
    pool large, small;
    block *b;
    uint32_t nb, capb, free_head; /* records in use or on the free list, allocated, free list */
    use *u;
    uint32_t nu, capu, ndone; /* stream uses; how many are DONE */
    xseg *x;
    uint32_t nx, capx;
    uint64_t next_address; /* the default address hook's next range ends here */
    uint32_t rng;          /* treap priorities (xorshift32) */
    llmmem_status broken;  /* a failed operation left the model inconsistent */
};

/* AllocParams */
typedef struct params {
    uint64_t size, alloc_size, stream;
    pool *p;
    uint32_t block;
} params;

/* ---- records ---------------------------------------------------------------------------------- */

static llmmem_status limit(const llmmem__ca *ca, const char *what)
{
    return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "allocator model: more than %u %s (max_blocks)",
                        ca->cfg.max_blocks, what);
}

/* The array, with room for record n of `size` bytes (doubling), within max_blocks records; NULL with
 * *st set when there is none (the array unchanged). */
static void *grow(llmmem_status *st, llmmem__ca *ca, void *array, uint32_t *cap, uint32_t n, size_t size,
                  const char *what)
{
    *st = LLMMEM_OK; /* set on every path: gcc -O3 cannot see that NULL comes with a failure */
    if (n >= ca->cfg.max_blocks) {
        *st = limit(ca, what);
        return NULL;
    }
    if (n < *cap)
        return array;
    uint32_t want = *cap ? *cap * 2 : 64;
    want = want < ca->cfg.max_blocks ? want : ca->cfg.max_blocks;
    void *p = realloc(array, (size_t)want * size);
    if (!p)
        *st = llmmem__fail(LLMMEM_ERR_NO_MEMORY, "allocator model: out of memory for %u %s", want, what);
    else
        *cap = want;
    return p;
}

/* A new block record (new Block). */
static llmmem_status new_block(uint32_t *out, llmmem__ca *ca, uint64_t stream, uint64_t size, int small, uint64_t ptr)
{
    uint32_t i = ca->free_head;
    if (i != NIL) {
        ca->free_head = ca->b[i].link;
    } else {
        llmmem_status st;
        block *more = grow(&st, ca, ca->b, &ca->capb, ca->nb, sizeof *ca->b, "blocks");
        if (!more)
            return st;
        ca->b = more;
        i = ca->nb++;
    }
    block *b = &ca->b[i];
    memset(b, 0, sizeof *b);
    b->ptr = ptr;
    b->size = size;
    b->stream = stream;
    b->small = (uint8_t)small;
    b->mapped = 1;
    b->live = 1;
    b->prev = b->next = b->left = b->right = b->parent = b->seg = b->link = NIL;
    ca->rng ^= ca->rng << 13;
    ca->rng ^= ca->rng >> 17;
    ca->rng ^= ca->rng << 5;
    b->prio = ca->rng;
    if (++ca->stats.blocks > ca->stats.blocks_peak)
        ca->stats.blocks_peak = ca->stats.blocks;
    *out = i;
    return LLMMEM_OK;
}

static void delete_block(llmmem__ca *ca, uint32_t i)
{
    ca->b[i].live = 0;
    ca->b[i].link = ca->free_head;
    ca->free_head = i;
    ca->stats.blocks--;
}

/* ---- ordered sets: treaps with parent links, no recursion ---------------------------------------- */

/* BlockComparatorSize (by_address 0) or BlockComparatorAddress (1): does a sort before b? */
static int before(const block *a, const block *b, int by_address)
{
    if (a->stream != b->stream)
        return a->stream < b->stream;
    if (!by_address && a->size != b->size)
        return a->size < b->size;
    return a->ptr < b->ptr;
}

/* Puts x in its parent's place. */
static void rotate_up(llmmem__ca *ca, uint32_t *root, uint32_t x)
{
    block *B = ca->b;
    uint32_t p = B[x].parent, g = B[p].parent, c;
    if (B[p].left == x) {
        c = B[x].right;
        B[p].left = c;
        B[x].right = p;
    } else {
        c = B[x].left;
        B[p].right = c;
        B[x].left = p;
    }
    if (c != NIL)
        B[c].parent = p;
    B[p].parent = x;
    B[x].parent = g;
    if (g == NIL)
        *root = x;
    else if (B[g].left == p)
        B[g].left = x;
    else
        B[g].right = x;
}

static void set_insert(llmmem__ca *ca, uint32_t *root, uint32_t x, int by_address)
{
    block *B = ca->b;
    uint32_t p = NIL, at = *root;
    int go_left = 0;
    while (at != NIL) {
        p = at;
        go_left = before(&B[x], &B[at], by_address);
        at = go_left ? B[at].left : B[at].right;
    }
    B[x].left = B[x].right = NIL;
    B[x].parent = p;
    if (p == NIL)
        *root = x;
    else if (go_left)
        B[p].left = x;
    else
        B[p].right = x;
    while (B[x].parent != NIL && B[x].prio < B[B[x].parent].prio)
        rotate_up(ca, root, x);
}

static void set_erase(llmmem__ca *ca, uint32_t *root, uint32_t x)
{
    block *B = ca->b;
    while (B[x].left != NIL && B[x].right != NIL)
        rotate_up(ca, root, B[B[x].left].prio < B[B[x].right].prio ? B[x].left : B[x].right);
    uint32_t c = B[x].left != NIL ? B[x].left : B[x].right, p = B[x].parent;
    if (c != NIL)
        B[c].parent = p;
    if (p == NIL)
        *root = c;
    else if (B[p].left == x)
        B[p].left = c;
    else
        B[p].right = c;
    B[x].left = B[x].right = B[x].parent = NIL;
}

/* std::set::lower_bound: the first block not before key. */
static uint32_t set_lower_bound(const llmmem__ca *ca, uint32_t root, const block *key, int by_address)
{
    uint32_t at = root, best = NIL;
    while (at != NIL) {
        if (before(&ca->b[at], key, by_address)) {
            at = ca->b[at].right;
        } else {
            best = at;
            at = ca->b[at].left;
        }
    }
    return best;
}

/* The first block (begin()), or the last with `back`; NIL for an empty set. */
static uint32_t set_end(const llmmem__ca *ca, uint32_t root, int back)
{
    if (root == NIL)
        return NIL;
    while ((back ? ca->b[root].right : ca->b[root].left) != NIL)
        root = back ? ca->b[root].right : ca->b[root].left;
    return root;
}

/* In-order successor (++it), or predecessor (--it) with `back`. */
static uint32_t set_step(const llmmem__ca *ca, uint32_t x, int back)
{
    const block *B = ca->b;
    uint32_t down = back ? B[x].left : B[x].right;
    if (down != NIL) {
        while ((back ? B[down].right : B[down].left) != NIL)
            down = back ? B[down].right : B[down].left;
        return down;
    }
    uint32_t p = B[x].parent;
    while (p != NIL && (back ? B[p].left : B[p].right) == x) {
        x = p;
        p = B[p].parent;
    }
    return p;
}

/* BlockPool::insert_into_blocks: a cached block remembers the pool's get_free_block count. */
static void cache_block(llmmem__ca *ca, uint32_t i)
{
    pool *p = ca->b[i].small ? &ca->small : &ca->large;
    ca->b[i].gc_base = p->get_free_blocks_call_count;
    set_insert(ca, &p->blocks, i, 0);
}

static pool *pool_of(llmmem__ca *ca, uint32_t i)
{
    return ca->b[i].small ? &ca->small : &ca->large;
}

/* ---- events and statistics ---------------------------------------------------------------------- */

static void emit(llmmem__ca *ca, llmmem__ca_action action, uint64_t addr, uint64_t size, uint64_t stream, int small,
                 uint32_t block_id)
{
    if (!ca->cfg.on_event)
        return;
    llmmem__ca_event e = {action, addr, size, stream, small, block_id};
    ca->cfg.on_event(ca->cfg.on_event_ctx, &e);
}

/* increase_stat; reserved and allocated bytes are checked against 64 bits by the callers. */
static void increase(uint64_t *current, uint64_t *peak, uint64_t amount)
{
    *current += amount;
    if (*current > *peak)
        *peak = *current;
}

/* ---- rules --------------------------------------------------------------------------------------- */

/* AC roundup_power2_divisions(size): the interval of log2(size), from 1 MiB (index 0) to 32 GiB and
 * up (index 15). */
static uint32_t divisions_for(const llmmem__ca_config *c, uint64_t size)
{
    int index = 63 - __builtin_clzll(size) - 20;
    index = index < 0 ? 0 : index > LLMMEM__CA_INTERVALS - 1 ? LLMMEM__CA_INTERVALS - 1 : index;
    return c->roundup_power2_divisions[index];
}

/* roundup_power2_next_division: up to the next of `divisions` equal steps between two powers of 2. */
static uint64_t roundup_power2_next_division(uint64_t size, uint64_t divisions)
{
    if ((size & (size - 1)) == 0)
        return size;
    uint64_t floor2 = 1ULL << (63 - __builtin_clzll(size));
    uint64_t step = floor2 >> (63 - __builtin_clzll(divisions));
    if (step == 0)
        return floor2 << 1;
    uint64_t down = size & ~(step - 1);
    return down == size ? size : down + step;
}

/* round_size */
uint64_t llmmem__ca_round_size(const llmmem__ca_config *c, uint64_t size)
{
    if (size < LLMMEM__CA_MIN_BLOCK)
        return LLMMEM__CA_MIN_BLOCK;
    uint32_t divisions = divisions_for(c, size);
    if (divisions > 1 && size > LLMMEM__CA_MIN_BLOCK * divisions)
        return roundup_power2_next_division(size, divisions);
    return LLMMEM__CA_MIN_BLOCK * llmmem__ceil_div(size, LLMMEM__CA_MIN_BLOCK);
}

/* get_allocation_size */
uint64_t llmmem__ca_allocation_size(uint64_t size)
{
    if (size <= LLMMEM__CA_SMALL_SIZE)
        return LLMMEM__CA_SMALL_BUFFER;
    if (size < LLMMEM__CA_MIN_LARGE_ALLOC)
        return LLMMEM__CA_LARGE_BUFFER;
    return LLMMEM__CA_ROUND_LARGE * llmmem__ceil_div(size, LLMMEM__CA_ROUND_LARGE);
}

/* should_split: a small or expandable block keeps any remainder of 512 bytes or more; a large one
 * only a remainder over 1 MiB, and never when the request is max_split_size or more. */
static int should_split(const llmmem__ca *ca, const block *b, uint64_t size)
{
    uint64_t remaining = b->size - size;
    if (b->small || ca->cfg.expandable_segments)
        return remaining >= LLMMEM__CA_MIN_BLOCK;
    return size < ca->cfg.max_split_size && remaining > LLMMEM__CA_SMALL_SIZE;
}

/* Can the device give `bytes` more to the allocator (cudaMalloc, cuMemCreate)? */
static int device_has(const llmmem__ca *ca, uint64_t bytes)
{
    return !ca->cfg.capacity || bytes <= ca->cfg.capacity - ca->stats.reserved;
}

/* Reserved bytes grow by `bytes`, within 64 bits. */
static llmmem_status reserve(llmmem__ca *ca, uint64_t bytes)
{
    if (ca->stats.reserved + bytes < ca->stats.reserved)
        return llmmem__fail(LLMMEM_ERR_OVERFLOW, "allocator model: reserved bytes pass 2^64");
    increase(&ca->stats.reserved, &ca->stats.reserved_peak, bytes);
    ca->stats.num_device_alloc++;
    return LLMMEM_OK;
}

/* The address of a new segment or reserved range: the caller's hook, or the next one down. */
static llmmem_status segment_address(uint64_t *out, llmmem__ca *ca, uint64_t size, uint64_t stream, int small,
                                     int expandable)
{
    uint64_t a = ca->cfg.segment_address ? ca->cfg.segment_address(ca->cfg.segment_address_ctx, size, stream, small,
                                                                   expandable)
                                         : 0;
    if (a == 0) {
        uint64_t span = LLMMEM__CA_ROUND_LARGE * llmmem__ceil_div(size, LLMMEM__CA_ROUND_LARGE);
        if (span > ca->next_address - LLMMEM__CA_ROUND_LARGE)
            return llmmem__fail(LLMMEM_ERR_OVERFLOW, "allocator model: default addresses exhausted");
        ca->next_address -= span;
        a = ca->next_address;
    }
    if (a + size < a)
        return llmmem__fail(LLMMEM_ERR_OVERFLOW, "allocator model: a segment of %llu bytes at address %llu "
                            "passes 2^64", (unsigned long long)size, (unsigned long long)a);
    *out = a;
    return LLMMEM_OK;
}

/* ---- coalescing and returning blocks ------------------------------------------------------------- */

/* try_merge_blocks: dst absorbs its neighbour src if src is free and mapped alike. */
static void try_merge(llmmem__ca *ca, uint32_t dst, uint32_t src)
{
    block *B = ca->b;
    if (src == NIL || B[src].allocated || B[src].events || B[dst].mapped != B[src].mapped)
        return;
    if (B[dst].prev == src) {
        B[dst].ptr = B[src].ptr;
        B[dst].prev = B[src].prev;
        if (B[dst].prev != NIL)
            B[B[dst].prev].next = dst;
    } else {
        B[dst].next = B[src].next;
        if (B[dst].next != NIL)
            B[B[dst].next].prev = dst;
    }
    B[dst].size += B[src].size;
    pool *p = pool_of(ca, src);
    set_erase(ca, B[src].mapped ? &p->blocks : &p->unmapped, src);
    delete_block(ca, src);
}

/* free_block: the block merges with its free neighbours and is cached. */
static void free_block(llmmem__ca *ca, uint32_t i)
{
    block *B = ca->b;
    emit(ca, LLMMEM__CA_FREE_COMPLETED, B[i].ptr, B[i].requested, B[i].stream, B[i].small, i + 1);
    ca->stats.requested -= B[i].requested;
    uint32_t prev = B[i].prev, next = B[i].next;
    try_merge(ca, i, prev);
    try_merge(ca, i, next);
    cache_block(ca, i);
}

/* The stream uses of a block whose free is requested become events (insert_events). */
static void insert_events(llmmem__ca *ca, uint32_t i)
{
    for (uint32_t k = 0; k < ca->nu; k++)
        if (ca->u[k].block == i && ca->u[k].state == USE_RECORDED)
            ca->u[k].state = USE_PENDING;
    ca->b[i].events = ca->b[i].uses;
    ca->b[i].uses = 0;
}

/* process_events (all_streams 0: only the completed ones) and synchronize_and_free_events (1). */
static void complete_events(llmmem__ca *ca, int all_streams)
{
    if (!all_streams && !ca->ndone)
        return;
    uint32_t kept = 0;
    for (uint32_t k = 0; k < ca->nu; k++) {
        use e = ca->u[k];
        int done = e.state == USE_DONE || (all_streams && e.state == USE_PENDING);
        if (done && --ca->b[e.block].events == 0)
            free_block(ca, e.block);
        if (!done)
            ca->u[kept++] = e;
    }
    ca->nu = kept;
    ca->ndone = 0;
}

/* release_block: cudaFree of a whole free segment. */
static void release_block(llmmem__ca *ca, uint32_t i)
{
    block *B = ca->b;
    emit(ca, LLMMEM__CA_SEGMENT_FREE, B[i].ptr, B[i].size, B[i].stream, B[i].small, LLMMEM__CA_NULL);
    ca->stats.reserved -= B[i].size;
    ca->stats.segments--;
    ca->stats.num_device_free++;
    set_erase(ca, &pool_of(ca, i)->blocks, i);
    delete_block(ca, i);
}

/* ExpandableSegment page index of an address (segmentLeft) and of its end rounded up (segmentRight). */
static uint64_t page_left(const xseg *s, uint64_t addr)
{
    return (addr - s->base) / s->page;
}
static uint64_t page_right(const xseg *s, uint64_t addr)
{
    return llmmem__ceil_div(addr - s->base, s->page);
}

/* unmap_block: the whole pages of a free expandable block go back to the device; the ends of the
 * block that share a page with its neighbours stay mapped and cached. */
static llmmem_status unmap_block(llmmem__ca *ca, uint32_t i)
{
    block *B = ca->b;
    const xseg *s = &ca->x[B[i].seg];
    uint64_t first = page_right(s, B[i].ptr), end = page_left(s, B[i].ptr + B[i].size);
    if (first >= end)
        return LLMMEM_OK;
    pool *p = pool_of(ca, i);
    set_erase(ca, &p->blocks, i);
    uint64_t start = s->base + first * s->page, size = (end - first) * s->page;
    uint64_t before_size = start - B[i].ptr, after_size = B[i].size - before_size - size;
    uint32_t piece;
    llmmem_status st;
    if (before_size > 0) {
        if ((st = new_block(&piece, ca, B[i].stream, before_size, B[i].small, B[i].ptr)))
            return st;
        B = ca->b;
        B[piece].seg = B[i].seg;
        B[piece].prev = B[i].prev;
        B[piece].next = i;
        if (B[i].prev != NIL)
            B[B[i].prev].next = piece;
        B[i].prev = piece;
        cache_block(ca, piece);
    }
    if (after_size > 0) {
        if ((st = new_block(&piece, ca, B[i].stream, after_size, B[i].small, start + size)))
            return st;
        B = ca->b;
        B[piece].seg = B[i].seg;
        B[piece].prev = i;
        B[piece].next = B[i].next;
        if (B[i].next != NIL)
            B[B[i].next].prev = piece;
        B[i].next = piece;
        cache_block(ca, piece);
    }
    B[i].ptr = start;
    B[i].size = size;
    B[i].mapped = 0;
    try_merge(ca, i, B[i].prev);
    try_merge(ca, i, B[i].next);
    set_insert(ca, &p->unmapped, i, 1);
    ca->stats.reserved -= size;
    ca->stats.num_device_free++;
    emit(ca, LLMMEM__CA_SEGMENT_UNMAP, start, size, B[i].stream, B[i].small, LLMMEM__CA_NULL);
    return LLMMEM_OK;
}

/* release_expandable_segment: an expandable segment with nothing mapped gives up its addresses. */
static void release_expandable_segment(llmmem__ca *ca, uint32_t i)
{
    ca->x[ca->b[i].seg].live = 0;
    set_erase(ca, &pool_of(ca, i)->unmapped, i);
    delete_block(ca, i);
}

/* release_blocks: cudaFree every free whole segment of the pool, unmap the free pages of expandable
 * ones (gathered first: unmapping changes the set). */
static llmmem_status release_blocks(llmmem__ca *ca, pool *p)
{
    uint32_t head = NIL, tail = NIL;
    for (uint32_t it = set_end(ca, p->blocks, 0); it != NIL;) {
        uint32_t i = it;
        it = set_step(ca, it, 0);
        if (ca->b[i].seg != NIL) {
            ca->b[i].link = NIL;
            if (tail == NIL)
                head = i;
            else
                ca->b[tail].link = i;
            tail = i;
        } else if (ca->b[i].prev == NIL && ca->b[i].next == NIL) {
            release_block(ca, i);
        }
    }
    for (uint32_t i = head; i != NIL;) {
        uint32_t next = ca->b[i].link;
        llmmem_status st = unmap_block(ca, i);
        if (st)
            return st;
        if (ca->b[i].prev == NIL && ca->b[i].next == NIL)
            release_expandable_segment(ca, i);
        i = next;
    }
    return LLMMEM_OK;
}

/* release_cached_blocks: wait for every stream, then free all that is cached. */
static llmmem_status release_cached_blocks(llmmem__ca *ca)
{
    ca->stats.num_sync_all_streams++;
    complete_events(ca, 1);
    llmmem_status st = release_blocks(ca, &ca->large);
    return st ? st : release_blocks(ca, &ca->small);
}

/* release_available_cached_blocks (CDA: skipping expandable blocks): with max_split_size set, cudaFree
 * the smallest oversize block that covers the request, or else the largest ones until their bytes do. */
static int release_available_cached_blocks(llmmem__ca *ca, const params *q)
{
    uint64_t max_split = ca->cfg.max_split_size;
    if (max_split == UINT64_MAX)
        return 0;
    block key;
    memset(&key, 0, sizeof key);
    key.stream = q->stream;
    key.size = q->size < max_split ? max_split : q->size;
    uint32_t it = set_lower_bound(ca, q->p->blocks, &key, 0);
    if (it != NIL && ca->b[it].stream == q->stream && ca->b[it].seg == NIL) {
        release_block(ca, it);
        return 1;
    }
    uint64_t released = 0;
    it = it == NIL ? set_end(ca, q->p->blocks, 1) : set_step(ca, it, 1);
    while (it != NIL && released < key.size && ca->b[it].size >= max_split && ca->b[it].stream == q->stream) {
        uint32_t i = it;
        it = set_step(ca, it, 1);
        if (ca->b[i].seg == NIL) {
            released += ca->b[i].size;
            release_block(ca, i);
        }
    }
    return released >= key.size;
}

/* garbage_collect_cached_blocks: with reserved above garbage_collection_threshold of the fraction
 * limit, cudaFree the whole cached large segments whose age (the pool's get_free_block calls since they
 * were cached) is at least the average, pass after pass, until the bytes freed cover the excess or a
 * pass frees nothing (CDA: expandable blocks stay). */
static void garbage_collect_cached_blocks(llmmem__ca *ca)
{
    pool *p = &ca->large;
    uint64_t threshold =
        (uint64_t)(ca->cfg.garbage_collection_threshold * (double)ca->cfg.memory_fraction_limit);
    if (ca->stats.reserved <= threshold)
        return;
    uint64_t target = ca->stats.reserved - threshold, reclaimed = 0, total_age = 0, freeable = 0;
    for (uint32_t it = set_end(ca, p->blocks, 0); it != NIL; it = set_step(ca, it, 0))
        if (ca->b[it].prev == NIL && ca->b[it].next == NIL) {
            total_age += p->get_free_blocks_call_count - ca->b[it].gc_base;
            freeable++;
        }
    int freed = 1;
    while (reclaimed < target && freed && freeable > 0) {
        double age_threshold = (double)total_age / (double)freeable;
        freed = 0;
        for (uint32_t it = set_end(ca, p->blocks, 0); it != NIL;) {
            uint32_t i = it;
            uint64_t age = p->get_free_blocks_call_count - ca->b[i].gc_base;
            it = set_step(ca, it, 0);
            if (ca->b[i].prev == NIL && ca->b[i].next == NIL && ca->b[i].seg == NIL &&
                (double)age >= age_threshold) {
                freed = 1;
                reclaimed += ca->b[i].size;
                total_age -= age;
                freeable--;
                release_block(ca, i);
            }
        }
    }
}

/* ---- finding and making blocks ------------------------------------------------------------------- */

/* The size an expandable block could grow to: its own and the unmapped range after it. */
static uint64_t expandable_size(const llmmem__ca *ca, uint32_t i)
{
    uint32_t n = ca->b[i].next;
    return ca->b[i].size + (n != NIL && !ca->b[n].mapped ? ca->b[n].size : 0);
}

/* get_free_block: the smallest cached block of the stream that holds the request (ties: the lowest
 * address); an expandable block that can grow into unmapped pages yields to the next larger block
 * that cannot; an oversize block (max_split_size or more) serves only a request of max_split_size or
 * more, and one less than max_non_split_rounding larger than it. */
static int get_free_block(llmmem__ca *ca, params *q)
{
    pool *p = q->p;
    const block *B = ca->b;
    if (ca->cfg.memory_fraction_limit && ca->cfg.garbage_collection_threshold > 0.0)
        p->get_free_blocks_call_count++;
    block key;
    memset(&key, 0, sizeof key);
    key.stream = q->stream;
    key.size = q->size;
    uint32_t it = set_lower_bound(ca, p->blocks, &key, 0);
    if (it == NIL || B[it].stream != q->stream)
        return 0;
    if (B[it].seg != NIL) {
        if (ca->cfg.expandable_segments) {
            uint32_t next = set_step(ca, it, 0);
            while (B[it].seg != NIL && next != NIL && B[next].stream == q->stream &&
                   expandable_size(ca, next) < expandable_size(ca, it)) {
                it = next;
                next = set_step(ca, next, 0);
            }
        } else {
            do
                it = set_step(ca, it, 0);
            while (it != NIL && B[it].seg != NIL && B[it].stream == q->stream);
            if (it == NIL || B[it].stream != q->stream)
                return 0;
        }
    }
    uint64_t max_split = ca->cfg.max_split_size;
    if (q->size < max_split && B[it].size >= max_split)
        return 0;
    if (q->size >= max_split && B[it].size - q->size >= ca->cfg.max_non_split_rounding)
        return 0;
    set_erase(ca, &p->blocks, it);
    q->block = it;
    return 1;
}

/* find_expandable_block: the lowest address of the stream's expandable segments where free and
 * unmapped blocks in a row hold `size` bytes, or a new segment's whole unmapped range. */
static llmmem_status find_expandable_block(uint32_t *out, llmmem__ca *ca, uint64_t stream, pool *p, uint64_t size)
{
    const block *B = ca->b;
    block key;
    memset(&key, 0, sizeof key);
    key.stream = stream;
    for (uint32_t it = set_lower_bound(ca, p->unmapped, &key, 1); it != NIL && B[it].stream == stream;
         it = set_step(ca, it, 0)) {
        uint32_t c = it, prev = B[it].prev;
        if (prev != NIL && !B[prev].allocated && !B[prev].events)
            c = prev;
        uint64_t bytes = 0;
        for (uint32_t at = c; bytes < size && at != NIL && !B[at].allocated && !B[at].events; at = B[at].next)
            bytes += B[at].size;
        if (bytes >= size) {
            *out = c;
            return LLMMEM_OK;
        }
    }
    /* ExpandableSegment: address space for 1 1/8 of the device's memory, in pages of 2 MiB (small
     * pool) or 20 MiB (large pool) */
    uint64_t page = p->small ? LLMMEM__CA_SMALL_BUFFER : LLMMEM__CA_LARGE_BUFFER;
    uint64_t total = ca->cfg.device_total;
    uint64_t range = page * llmmem__ceil_div(total + total / 8, page), base;
    uint32_t slot = 0, c;
    while (slot < ca->nx && ca->x[slot].live)
        slot++;
    llmmem_status st = LLMMEM_OK;
    xseg *more = grow(&st, ca, ca->x, &ca->capx, slot, sizeof *ca->x, "expandable segments");
    if (more)
        ca->x = more;
    if (!more || (st = segment_address(&base, ca, range, stream, p->small, 1)) ||
        (st = new_block(&c, ca, stream, range, p->small, base)))
        return st;
    ca->x[slot] = (xseg){base, range, stream, page, 1};
    ca->nx += slot == ca->nx;
    ca->b[c].seg = slot;
    ca->b[c].mapped = 0;
    set_insert(ca, &p->unmapped, c, 1);
    *out = c;
    return LLMMEM_OK;
}

/* map_block: map the pages of an unmapped block that `size` bytes from its start touch (a device
 * out of memory: nothing); the rest stays unmapped; the mapped part merges with free neighbours. */
static llmmem_status map_block(int *mapped, llmmem__ca *ca, uint32_t i, uint64_t size)
{
    block *B = ca->b;
    const xseg *s = &ca->x[B[i].seg];
    uint64_t start = B[i].ptr, bytes = (page_right(s, start + size) - page_left(s, start)) * s->page;
    pool *p = pool_of(ca, i);
    *mapped = device_has(ca, bytes);
    if (!*mapped)
        return LLMMEM_OK;
    llmmem_status st = reserve(ca, bytes);
    if (st)
        return st;
    if (bytes < B[i].size) {
        uint32_t rest;
        st = new_block(&rest, ca, B[i].stream, B[i].size - bytes, B[i].small, start + bytes);
        if (st)
            return st;
        B = ca->b;
        B[rest].seg = B[i].seg;
        B[rest].mapped = 0;
        B[rest].prev = i;
        B[rest].next = B[i].next;
        if (B[i].next != NIL)
            B[B[i].next].prev = rest;
        B[i].next = rest;
        set_insert(ca, &p->unmapped, rest, 1);
        B[i].size = bytes;
    }
    set_erase(ca, &p->unmapped, i);
    B[i].mapped = 1;
    try_merge(ca, i, B[i].prev);
    try_merge(ca, i, B[i].next);
    cache_block(ca, i);
    emit(ca, LLMMEM__CA_SEGMENT_MAP, start, bytes, B[i].stream, B[i].small, LLMMEM__CA_NULL);
    return LLMMEM_OK;
}

/* try_allocate_expandable_block: map what the request needs past the free bytes it starts in. */
static llmmem_status try_allocate_expandable_block(uint32_t *out, llmmem__ca *ca, const params *q)
{
    uint32_t c = NIL;
    int mapped = 1;
    *out = NIL;
    llmmem_status st = find_expandable_block(&c, ca, q->stream, q->p, q->size);
    if (st)
        return st;
    if (!ca->b[c].mapped) {
        uint64_t want = ca->b[c].size < q->size ? ca->b[c].size : q->size;
        if ((st = map_block(&mapped, ca, c, want)) || !mapped)
            return st;
    }
    while (ca->b[c].size < q->size) {
        uint32_t n = ca->b[c].next;
        uint64_t remaining = q->size - ca->b[c].size;
        if ((st = map_block(&mapped, ca, n, remaining < ca->b[n].size ? remaining : ca->b[n].size)) || !mapped)
            return st;
        c = n;
    }
    set_erase(ca, &q->p->blocks, c);
    *out = c;
    return LLMMEM_OK;
}

/* alloc_block: a new segment of the request's allocation size (cudaMalloc), or pages of an
 * expandable segment; refused past the fraction limit or the device's capacity. */
static llmmem_status alloc_block(int *found, llmmem__ca *ca, params *q, int is_retry)
{
    uint64_t size = q->alloc_size, reserved = ca->stats.reserved;
    *found = 0;
    if (is_retry)
        ca->stats.num_alloc_retries++;
    if (ca->cfg.memory_fraction_limit && (reserved > ca->cfg.memory_fraction_limit ||
                                          size > ca->cfg.memory_fraction_limit - reserved))
        return LLMMEM_OK;
    if (ca->cfg.expandable_segments) {
        llmmem_status st = try_allocate_expandable_block(&q->block, ca, q);
        *found = q->block != NIL;
        return st;
    }
    if (!device_has(ca, size))
        return LLMMEM_OK;
    uint64_t address;
    llmmem_status st = segment_address(&address, ca, size, q->stream, q->p->small, 0);
    if (st || (st = new_block(&q->block, ca, q->stream, size, q->p->small, address)) || (st = reserve(ca, size)))
        return st;
    ca->stats.segments++;
    emit(ca, LLMMEM__CA_SEGMENT_ALLOC, address, size, q->stream, q->p->small, LLMMEM__CA_NULL);
    *found = 1;
    return LLMMEM_OK;
}

/* alloc_found_block: the request takes the front of the block; a remainder worth keeping is cached. */
static llmmem_status alloc_found_block(uint32_t *out, llmmem__ca *ca, const params *q, uint64_t orig_size)
{
    uint32_t i = q->block;
    if (should_split(ca, &ca->b[i], q->size)) {
        uint32_t rest = i;
        llmmem_status st = new_block(&i, ca, q->stream, q->size, q->p->small, ca->b[rest].ptr);
        if (st)
            return st;
        block *B = ca->b;
        B[i].seg = B[rest].seg;
        B[i].prev = B[rest].prev;
        if (B[i].prev != NIL)
            B[B[i].prev].next = i;
        B[i].next = rest;
        B[rest].prev = i;
        B[rest].ptr += q->size;
        B[rest].size -= q->size;
        cache_block(ca, rest);
    }
    block *b = &ca->b[i];
    b->allocated = 1;
    b->requested = orig_size;
    emit(ca, LLMMEM__CA_ALLOC, b->ptr, orig_size, b->stream, b->small, i + 1);
    increase(&ca->stats.allocated, &ca->stats.allocated_peak, b->size);
    increase(&ca->stats.requested, &ca->stats.requested_peak, orig_size);
    *out = i + 1;
    return LLMMEM_OK;
}

/* ---- the interface ------------------------------------------------------------------------------- */

static llmmem_status usable(const llmmem__ca *ca)
{
    if (ca->broken)
        return llmmem__fail(ca->broken, "allocator model: unusable after an earlier failure; reset it");
    return LLMMEM_OK;
}

/* Marks the model unusable after a failure in the middle of an operation. */
static llmmem_status failed(llmmem__ca *ca, llmmem_status st)
{
    if (st)
        ca->broken = st;
    return st;
}

/* DeviceCachingAllocator::malloc */
llmmem_status llmmem__ca_malloc(uint32_t *id_out, llmmem__ca *ca, uint64_t size, uint64_t stream)
{
    llmmem_status st = usable(ca);
    *id_out = size < EXA_BYTES ? LLMMEM__CA_NULL : LLMMEM__CA_OOM;
    if (st || size == 0 || size >= EXA_BYTES)
        return st;
    complete_events(ca, 0);
    params q;
    q.stream = stream;
    q.block = NIL;
    q.size = llmmem__ca_round_size(&ca->cfg, size);
    q.p = q.size <= LLMMEM__CA_SMALL_SIZE ? &ca->small : &ca->large;
    q.alloc_size = llmmem__ca_allocation_size(q.size);
    int found = get_free_block(ca, &q);
    if (!found) {
        if (ca->cfg.memory_fraction_limit && ca->cfg.garbage_collection_threshold > 0.0)
            garbage_collect_cached_blocks(ca);
        if ((st = alloc_block(&found, ca, &q, 0)))
            return failed(ca, st);
        if (!found && release_available_cached_blocks(ca, &q) && (st = alloc_block(&found, ca, &q, 0)))
            return failed(ca, st);
        if (!found && ((st = release_cached_blocks(ca)) || (st = alloc_block(&found, ca, &q, 1))))
            return failed(ca, st);
    }
    if (!found) {
        uint64_t device_free = ca->cfg.capacity > ca->stats.reserved ? ca->cfg.capacity - ca->stats.reserved : 0;
        emit(ca, LLMMEM__CA_OOM_ERROR, device_free, q.size, stream, q.p->small, LLMMEM__CA_NULL);
        ca->stats.num_ooms++;
        ca->stats.oom_alloc_size = q.alloc_size;
        *id_out = LLMMEM__CA_OOM;
        return LLMMEM_OK;
    }
    return failed(ca, alloc_found_block(id_out, ca, &q, size));
}

/* The record of an allocated block's id, or NIL. */
static uint32_t allocated_record(const llmmem__ca *ca, uint32_t id)
{
    return id != LLMMEM__CA_NULL && id <= ca->nb && ca->b[id - 1].live && ca->b[id - 1].allocated ? id - 1 : NIL;
}

static llmmem_status not_allocated(uint32_t id)
{
    return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "allocator model: block %u is not allocated", id);
}

/* DeviceCachingAllocator::free */
llmmem_status llmmem__ca_free(llmmem__ca *ca, uint32_t id)
{
    llmmem_status st = usable(ca);
    if (st || id == LLMMEM__CA_NULL)
        return st;
    uint32_t i = allocated_record(ca, id);
    if (i == NIL)
        return not_allocated(id);
    block *b = &ca->b[i];
    b->allocated = 0;
    ca->stats.allocated -= b->size;
    emit(ca, LLMMEM__CA_FREE_REQUESTED, b->ptr, b->requested, b->stream, b->small, id);
    if (b->uses)
        insert_events(ca, i);
    else
        free_block(ca, i);
    return LLMMEM_OK;
}

/* recordStream: a use on the block's own stream, or one already recorded, changes nothing. */
llmmem_status llmmem__ca_record_stream(llmmem__ca *ca, uint32_t id, uint64_t stream)
{
    llmmem_status st = usable(ca);
    if (st)
        return st;
    uint32_t i = allocated_record(ca, id);
    if (i == NIL)
        return not_allocated(id);
    if (ca->b[i].stream == stream)
        return LLMMEM_OK;
    for (uint32_t k = 0; k < ca->nu; k++)
        if (ca->u[k].block == i && ca->u[k].state == USE_RECORDED && ca->u[k].stream == stream)
            return LLMMEM_OK;
    use *more = grow(&st, ca, ca->u, &ca->capu, ca->nu, sizeof *ca->u, "stream uses");
    if (!more)
        return st;
    ca->u = more;
    ca->u[ca->nu++] = (use){stream, i, USE_RECORDED};
    ca->b[i].uses++;
    return LLMMEM_OK;
}

llmmem_status llmmem__ca_stream_complete(llmmem__ca *ca, uint64_t stream)
{
    llmmem_status st = usable(ca);
    for (uint32_t k = 0; !st && k < ca->nu; k++)
        if (ca->u[k].state == USE_PENDING && ca->u[k].stream == stream) {
            ca->u[k].state = USE_DONE;
            ca->ndone++;
        }
    return st;
}

/* emptyCache */
llmmem_status llmmem__ca_empty_cache(llmmem__ca *ca)
{
    llmmem_status st = usable(ca);
    return st ? st : failed(ca, release_cached_blocks(ca));
}

void llmmem__ca_set_expandable_segments(llmmem__ca *ca, int on)
{
    ca->cfg.expandable_segments = on != 0;
}

/* resetPeakStats */
void llmmem__ca_reset_peak(llmmem__ca *ca)
{
    ca->stats.allocated_peak = ca->stats.allocated;
    ca->stats.requested_peak = ca->stats.requested;
    ca->stats.reserved_peak = ca->stats.reserved;
    ca->stats.blocks_peak = ca->stats.blocks;
}

const llmmem__ca_stats *llmmem__ca_stats_get(const llmmem__ca *ca)
{
    return &ca->stats;
}

uint64_t llmmem__ca_block_address(const llmmem__ca *ca, uint32_t id)
{
    uint32_t i = allocated_record(ca, id);
    return i == NIL ? 0 : ca->b[i].ptr;
}

uint64_t llmmem__ca_block_size(const llmmem__ca *ca, uint32_t id)
{
    uint32_t i = allocated_record(ca, id);
    return i == NIL ? 0 : ca->b[i].size;
}

/* snapshot(): one segment per cudaMalloc and per contiguous mapped range of an expandable segment. */
void llmmem__ca_segments(const llmmem__ca *ca, void (*fn)(void *ctx, const llmmem__ca_segment *s), void *ctx)
{
    const block *B = ca->b;
    for (uint32_t i = 0; i < ca->nb; i++) {
        if (!B[i].live || !B[i].mapped || (B[i].prev != NIL && B[B[i].prev].mapped))
            continue;
        llmmem__ca_segment s = {B[i].ptr, 0, 0, B[i].stream, B[i].small, B[i].seg != NIL};
        for (uint32_t at = i; at != NIL && B[at].mapped; at = B[at].next) {
            s.total_size += B[at].size;
            s.allocated_size += B[at].allocated ? B[at].size : 0;
        }
        fn(ctx, &s);
    }
}

/* ---- configuration and life cycle ---------------------------------------------------------------- */

/* AllocatorConfig's defaults (AC AllocatorConfig::AllocatorConfig). */
void llmmem__ca_config_init(llmmem__ca_config *c)
{
    memset(c, 0, sizeof *c);
    c->max_split_size = UINT64_MAX;
    c->max_non_split_rounding = LLMMEM__CA_LARGE_BUFFER;
}

/* The bounds AllocatorConfig's parser puts on each setting (AC parseMaxSplitSize and the rest). */
static llmmem_status check_config(const llmmem__ca_config *c)
{
    if (c->max_split_size < LLMMEM__CA_LARGE_BUFFER)
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "allocator model: max_split_size %llu bytes is below "
                            "PyTorch's least, 20 MiB", (unsigned long long)c->max_split_size);
    if (c->max_non_split_rounding < LLMMEM__CA_LARGE_BUFFER)
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "allocator model: max_non_split_rounding %llu bytes is "
                            "below PyTorch's least, 20 MiB", (unsigned long long)c->max_non_split_rounding);
    if (c->garbage_collection_threshold != 0.0 &&
        !(c->garbage_collection_threshold > 0.0 && c->garbage_collection_threshold < 1.0))
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "allocator model: garbage_collection_threshold %g is not "
                            "in (0, 1)", c->garbage_collection_threshold);
    for (int k = 0; k < LLMMEM__CA_INTERVALS; k++)
        if (c->roundup_power2_divisions[k] & (c->roundup_power2_divisions[k] - 1))
            return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "allocator model: roundup_power2_divisions %u (interval "
                                "%d) is not 0 or a power of 2", c->roundup_power2_divisions[k], k);
    /* keeps an expandable segment's address range (9/8 of it) and its addresses within 64 bits */
    if (c->device_total > (1ULL << 56) || c->capacity > (1ULL << 56))
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "allocator model: a device of more than 2^56 bytes");
    if (c->max_blocks >= UINT32_MAX / 2)
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "allocator model: max_blocks %u is not below 2^31",
                            c->max_blocks);
    return LLMMEM_OK;
}

llmmem_status llmmem__ca_reset(llmmem__ca *ca, const llmmem__ca_config *c)
{
    if (c) {
        llmmem_status st = check_config(c);
        if (st)
            return st;
        ca->cfg = *c;
    }
    if (!ca->cfg.max_blocks)
        ca->cfg.max_blocks = DEFAULT_MAX_BLOCKS;
    if (!ca->cfg.device_total)
        ca->cfg.device_total = ca->cfg.capacity ? ca->cfg.capacity : 80 * (1ULL << 30);
    memset(&ca->stats, 0, sizeof ca->stats);
    ca->large = (pool){NIL, NIL, 0, 0};
    ca->small = (pool){NIL, NIL, 0, 1};
    ca->nb = ca->nu = ca->ndone = ca->nx = 0;
    ca->free_head = NIL;
    ca->next_address = DEFAULT_TOP_ADDRESS;
    ca->rng = 2463534242u;
    ca->broken = LLMMEM_OK;
    return LLMMEM_OK;
}

llmmem_status llmmem__ca_new(llmmem__ca **out, const llmmem__ca_config *c)
{
    *out = NULL;
    llmmem_status st = check_config(c);
    if (st)
        return st;
    llmmem__ca *ca = calloc(1, sizeof *ca);
    if (!ca)
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "allocator model: out of memory");
    llmmem__ca_reset(ca, c);
    *out = ca;
    return LLMMEM_OK;
}

void llmmem__ca_destroy(llmmem__ca *ca)
{
    if (!ca)
        return;
    free(ca->b);
    free(ca->u);
    free(ca->x);
    free(ca);
}
