/* Shared by the family suites: a model from a stored config.json or a preset, and its counts. */
#ifndef LLMMEM_TESTS_FAMILY_H
#define LLMMEM_TESTS_FAMILY_H

#include <stdio.h>
#include <string.h>

#include "unit.h"
#include "dsv4_config.h"

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

/* The model of a config.json given as text. */
FAMILY_HELPER llmmem_model *from_text(const char *json)
{
    llmmem_model *m = NULL;
    ck_assert_msg(llmmem_model_from_hf_config_text(&m, json, strlen(json)) == LLMMEM_OK, "%s", llmmem_last_message());
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

/* Parameters the checkpoint stores: the model's and its multi-token-prediction layers. */
FAMILY_HELPER uint64_t checkpoint_total(const llmmem_model *m)
{
    uint64_t n = 0;
    ck_assert_ok(llmmem_model_checkpoint_parameters(&n, m));
    return n;
}

/* Parameters of the vision (and audio) towers and their projectors. */
FAMILY_HELPER uint64_t vision_params(const llmmem_model *m)
{
    uint64_t n = 0;
    ck_assert_ok(llmmem_model_parameters(&n, m, LLMMEM_PARAMS_VISION));
    return n;
}

/* Weight bytes of the whole model on one device in inference, in the checkpoint's formats. */
FAMILY_HELPER uint64_t inference_weights(const llmmem_model *m)
{
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_report *r = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_SEQUENCE_LENGTH, 128));
    ck_assert_ok(llmmem_report_new(&r));
    ck_assert_ok(llmmem_estimate(r, m, hw, s));
    uint64_t w = llmmem_report_bytes(r, LLMMEM_COMPONENT_WEIGHTS);
    llmmem_report_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    return w;
}

#endif
