package raw

// Two hand-written helpers beside the SWIG wrapper, for the leak tests of package llmmem.

/*
#include <stddef.h>
#include <stdlib.h> // defines __GLIBC__
#if defined(__GLIBC__)
#include <malloc.h>
#endif

// Provided by the ASan/LSan runtime when the test binary is built with go test -asan.
extern int __lsan_do_recoverable_leak_check(void) __attribute__((weak));

static int llmmem_go_leak_check(void)
{
    return __lsan_do_recoverable_leak_check ? __lsan_do_recoverable_leak_check() : -1;
}

static long long llmmem_go_malloc_in_use(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    return (long long)mallinfo2().uordblks;
#else
    return -1;
#endif
}
*/
import "C"

// LeakCheck runs LeakSanitizer now: 1 if it found leaks (and printed them), 0 if none,
// -1 when the binary has no LeakSanitizer (built without -asan).
func LeakCheck() int {
	return int(C.llmmem_go_leak_check())
}

// MallocInUse is the bytes of C heap in use (glibc's mallinfo2), or -1 where unknown.
func MallocInUse() int64 {
	return int64(C.llmmem_go_malloc_in_use())
}
