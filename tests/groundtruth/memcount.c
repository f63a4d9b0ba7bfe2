/* Bytes in use by the process's heap, for the ground-truth suite: preloaded (LD_PRELOAD) under a
 * Python that runs PyTorch on CPU, whose allocator has no memory statistics of its own. Every
 * allocation function forwards to glibc's own (__libc_*) and adds or subtracts the block's usable
 * size (malloc_usable_size), so current and peak bytes are what the process holds, rounding
 * included. Read and reset from Python with ctypes (memcount_current, memcount_peak,
 * memcount_reset_peak). Counters are atomic: PyTorch's CPU kernels allocate from worker threads. */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static _Atomic int64_t current, peak;

int64_t memcount_current(void);
int64_t memcount_peak(void);
void memcount_reset_peak(void);

int64_t memcount_current(void)
{
    return atomic_load(&current);
}

int64_t memcount_peak(void)
{
    return atomic_load(&peak);
}

/* The peak from now on starts at what is in use now. */
void memcount_reset_peak(void)
{
    atomic_store(&peak, atomic_load(&current));
}

static void *counted(void *p)
{
    if (p) {
        int64_t now = atomic_fetch_add(&current, (int64_t)malloc_usable_size(p)) + (int64_t)malloc_usable_size(p);
        int64_t seen = atomic_load(&peak);
        while (now > seen && !atomic_compare_exchange_weak(&peak, &seen, now))
            ;
    }
    return p;
}

static void uncount(void *p)
{
    if (p)
        atomic_fetch_sub(&current, (int64_t)malloc_usable_size(p));
}

void *malloc(size_t n)
{
    return counted(__libc_malloc(n));
}

void *calloc(size_t n, size_t size)
{
    return counted(__libc_calloc(n, size));
}

void free(void *p)
{
    uncount(p);
    __libc_free(p);
}

void *realloc(void *p, size_t n)
{
    size_t old = p ? malloc_usable_size(p) : 0;
    void *q = __libc_realloc(p, n);
    if (q || n == 0) { /* the old block is gone (moved, or freed by a zero size) */
        atomic_fetch_sub(&current, (int64_t)old);
        return counted(q);
    }
    return NULL; /* failed: the old block stays, still counted */
}

void *memalign(size_t alignment, size_t n)
{
    return counted(__libc_memalign(alignment, n));
}

void *aligned_alloc(size_t alignment, size_t n)
{
    return counted(__libc_memalign(alignment, n));
}

int posix_memalign(void **out, size_t alignment, size_t n)
{
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0)
        return EINVAL;
    void *p = counted(__libc_memalign(alignment, n));
    if (!p && n)
        return ENOMEM;
    *out = p;
    return 0;
}

void *valloc(size_t n)
{
    return counted(__libc_memalign(4096, n));
}
