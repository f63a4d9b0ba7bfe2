/* The fuzz targets' view of their input: bytes taken from the front, zeros once it runs out. */
#ifndef LLMMEM_FUZZ_READER_H
#define LLMMEM_FUZZ_READER_H

#include <stddef.h>
#include <stdint.h>

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static inline uint8_t take_u8(reader *r)
{
    if (!r->n)
        return 0;
    r->n--;
    return *r->p++;
}

/* The next `bytes` bytes (at most 8) as a big-endian number. */
static inline uint64_t take_be(reader *r, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++)
        v = v << 8 | take_u8(r);
    return v;
}

#endif
