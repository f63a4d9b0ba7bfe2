/* Shared by the Check suites: one suite per executable, run with the standard runner. */
#ifndef LLMMEM_TESTS_UNIT_H
#define LLMMEM_TESTS_UNIT_H

#include <check.h>
#include <stdlib.h>

#include "base/internal.h"

/* Decimal and binary units, for readable expectations. */
#define GB 1000000000ULL
#define GIB 1073741824ULL

static inline int run_suite(Suite *suite)
{
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_ENV);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* Asserts a call returns LLMMEM_OK, printing the library's message otherwise. */
#define ck_assert_ok(call)                                                                     \
    do {                                                                                       \
        llmmem_status st_ = (call);                                                            \
        ck_assert_msg(st_ == LLMMEM_OK, "%s failed: %s: %s", #call, llmmem_status_str(st_),    \
                      llmmem_last_message());                                                  \
    } while (0)

/* Asserts a call fails with the given status. */
#define ck_assert_status(call, expected)                                                       \
    do {                                                                                       \
        llmmem_status st_ = (call);                                                            \
        ck_assert_msg(st_ == (expected), "%s returned %s, expected %s (%s)", #call,            \
                      llmmem_status_str(st_), llmmem_status_str(expected),                     \
                      llmmem_last_message());                                                  \
    } while (0)

#endif
