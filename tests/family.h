/* Shared by the family suites: a model from a stored config.json or a preset, and its counts. */
#ifndef LLMMEM_TESTS_FAMILY_H
#define LLMMEM_TESTS_FAMILY_H

#include <stdio.h>

#include "unit.h"

#ifndef LLMMEM_TEST_DATA
#define LLMMEM_TEST_DATA "tests/data"
#endif

#if defined(__GNUC__)
#  define FAMILY_HELPER static __attribute__((unused))
#else
#  define FAMILY_HELPER static
#endif

/* The model of tests/data/configs/<file>. */
FAMILY_HELPER llmmem_model *load(const char *file)
{
    char path[1024];
    llmmem_model *m = NULL;
    snprintf(path, sizeof path, "%s/configs/%s", LLMMEM_TEST_DATA, file);
    ck_assert_ok(llmmem_model_from_hf_config(&m, path));
    return m;
}

FAMILY_HELPER llmmem_model *preset(const char *name)
{
    llmmem_model *m = NULL;
    ck_assert_ok(llmmem_model_from_preset(&m, name));
    return m;
}

FAMILY_HELPER uint64_t total(const llmmem_model *m)
{
    uint64_t n = 0;
    ck_assert_ok(llmmem_model_total_parameters(&n, m));
    return n;
}

FAMILY_HELPER int64_t get(const llmmem_model *m, llmmem_key key)
{
    int64_t v = -1;
    ck_assert_ok(llmmem_model_get_int(&v, m, key));
    return v;
}

#endif
