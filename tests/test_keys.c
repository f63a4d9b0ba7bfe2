/* The key space, status codes, handles' setters and the error contract. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "unit.h"

/* Status values are part of the ABI: pinned. */
_Static_assert(LLMMEM_OK == 0, "pinned");
_Static_assert(LLMMEM_ERR_INVALID_ARGUMENT == 1, "pinned");
_Static_assert(LLMMEM_ERR_OUT_OF_RANGE == 2, "pinned");
_Static_assert(LLMMEM_ERR_UNKNOWN_KEY == 3, "pinned");
_Static_assert(LLMMEM_ERR_NOT_FOUND == 4, "pinned");
_Static_assert(LLMMEM_ERR_INCOMPATIBLE == 5, "pinned");
_Static_assert(LLMMEM_ERR_OVERFLOW == 6, "pinned");
_Static_assert(LLMMEM_ERR_NO_MEMORY == 7, "pinned");
_Static_assert(LLMMEM_ERR_IO == 8, "pinned");
_Static_assert(LLMMEM_ERR_PARSE == 9, "pinned");
_Static_assert(LLMMEM_ERR_UNSUPPORTED == 10, "pinned");
_Static_assert(LLMMEM_ERR_INCOMPLETE == 11, "pinned");
_Static_assert(LLMMEM_KEY_MODEL_TYPE == 1000 && LLMMEM_KEY_MEMORY_BYTES == 2000 && LLMMEM_KEY_MODE == 3000,
               "key ranges are pinned");
_Static_assert(LLMMEM_COMPONENT_RUNTIME_OVERHEAD == 8 && LLMMEM_PARAMS_OTHER == 9, "pinned");

/* One handle of each kind, so a key can be set on its own object generically. */
typedef struct handles {
    llmmem_model *m;
    llmmem_hardware *hw;
    llmmem_strategy *s;
} handles;

static handles make(void)
{
    handles h;
    ck_assert_ok(llmmem_model_new(&h.m));
    ck_assert_ok(llmmem_hardware_new(&h.hw));
    ck_assert_ok(llmmem_strategy_new(&h.s));
    return h;
}

static void release(handles *h)
{
    llmmem_model_free(h->m);
    llmmem_hardware_free(h->hw);
    llmmem_strategy_free(h->s);
}

static llmmem_status set_int(handles *h, llmmem_object object, llmmem_key key, int64_t v)
{
    switch (object) {
    case LLMMEM_OBJECT_MODEL: return llmmem_model_set_int(h->m, key, v);
    case LLMMEM_OBJECT_HARDWARE: return llmmem_hardware_set_int(h->hw, key, v);
    case LLMMEM_OBJECT_STRATEGY: return llmmem_strategy_set_int(h->s, key, v);
    }
    return LLMMEM_ERR_INVALID_ARGUMENT;
}

static llmmem_status get_int(int64_t *v, handles *h, llmmem_object object, llmmem_key key)
{
    switch (object) {
    case LLMMEM_OBJECT_MODEL: return llmmem_model_get_int(v, h->m, key);
    case LLMMEM_OBJECT_HARDWARE: return llmmem_hardware_get_int(v, h->hw, key);
    case LLMMEM_OBJECT_STRATEGY: return llmmem_strategy_get_int(v, h->s, key);
    }
    return LLMMEM_ERR_INVALID_ARGUMENT;
}

START_TEST(test_status_names)
{
    for (int st = LLMMEM_OK; st <= LLMMEM_ERR_INCOMPLETE; st++) {
        const char *name = llmmem_status_str((llmmem_status)st);
        ck_assert_ptr_nonnull(name);
        ck_assert_int_gt((int)strlen(name), 0);
        ck_assert_str_ne(name, "unknown status");
    }
    ck_assert_str_eq(llmmem_status_str((llmmem_status)999), "unknown status");
    ck_assert_str_eq(llmmem_status_str((llmmem_status)-1), "unknown status");
}
END_TEST

START_TEST(test_version)
{
    ck_assert_uint_eq(llmmem_version_number(), LLMMEM_VERSION_NUMBER);
    ck_assert_str_eq(llmmem_version_string(), LLMMEM_VERSION_STRING);
}
END_TEST

START_TEST(test_names_round_trip)
{
    size_t n = llmmem_key_count();
    ck_assert_uint_gt(n, 40);
    for (size_t i = 0; i < n; i++) {
        llmmem_key key = llmmem_key_at(i);
        const char *name = llmmem_key_name(key);
        ck_assert_ptr_nonnull(name);
        ck_assert_ptr_nonnull(llmmem_key_doc(key));
        llmmem_key back;
        ck_assert_ok(llmmem_key_from_name(&back, name));
        ck_assert_int_eq(back, key);
        llmmem_object object;
        ck_assert_ok(llmmem_key_object(&object, key));
        ck_assert_int_eq((int)object, (int)key / 1000); /* model 1000+, hardware 2000+, strategy 3000+ */
        for (size_t j = 0; j < i; j++) {
            ck_assert_int_ne(llmmem_key_at(j), key);
            ck_assert_str_ne(llmmem_key_name(llmmem_key_at(j)), name);
        }
    }
    ck_assert_int_eq(llmmem_key_at(n), LLMMEM_KEY_NONE);
    ck_assert_ptr_null(llmmem_key_name((llmmem_key)4242));
    llmmem_key k;
    ck_assert_status(llmmem_key_from_name(&k, "no_such_key"), LLMMEM_ERR_UNKNOWN_KEY);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "no_such_key"));
}
END_TEST

/* Every integer key accepts its bounds and rejects one past each, naming key and value. */
START_TEST(test_int_bounds_both_edges)
{
    handles h = make();
    for (size_t i = 0; i < llmmem_key_count(); i++) {
        llmmem_key key = llmmem_key_at(i);
        llmmem_value_type type;
        llmmem_object object;
        ck_assert_ok(llmmem_key_type(&type, key));
        ck_assert_ok(llmmem_key_object(&object, key));
        ck_assert_uint_lt(llmmem__slot(key), LLMMEM_SLOTS); /* the handle has room for it */
        ck_assert_uint_eq((unsigned)key / 1000u, (unsigned)object);
        if (type == LLMMEM_TYPE_REAL || type == LLMMEM_TYPE_LIST) /* a list's values: test_list_key */
            continue;
        int64_t lo, hi, v;
        ck_assert_ok(llmmem_key_bounds(&lo, &hi, key));
        ck_assert_int_le(lo, hi);
        ck_assert_ok(set_int(&h, object, key, lo));
        ck_assert_ok(get_int(&v, &h, object, key));
        ck_assert_int_eq(v, lo);
        ck_assert_ok(set_int(&h, object, key, hi));
        ck_assert_ok(get_int(&v, &h, object, key));
        ck_assert_int_eq(v, hi);
        if (lo > INT64_MIN) {
            ck_assert_status(set_int(&h, object, key, lo - 1), LLMMEM_ERR_OUT_OF_RANGE);
            ck_assert_ptr_nonnull(strstr(llmmem_last_message(), llmmem_key_name(key)));
            char num[32];
            snprintf(num, sizeof num, "(%lld)", (long long)(lo - 1));
            ck_assert_msg(strstr(llmmem_last_message(), num), "message '%s' lacks %s", llmmem_last_message(), num);
        }
        if (hi < INT64_MAX) {
            ck_assert_status(set_int(&h, object, key, hi + 1), LLMMEM_ERR_OUT_OF_RANGE);
            ck_assert_ptr_nonnull(strstr(llmmem_last_message(), llmmem_key_name(key)));
        }
        /* The rejected value did not replace the last good one. */
        ck_assert_ok(get_int(&v, &h, object, key));
        ck_assert_int_eq(v, hi);
    }
    release(&h);
}
END_TEST

/* The report keeps its last job for the contents of the handles it was resolved from (estimate.c
 * cached_job): every validated change of a hardware or strategy value, of any type, takes a new
 * contents id, so no change can leave a cached job behind. */
START_TEST(test_setters_renumber)
{
    handles h = make();
    for (size_t i = 0; i < llmmem_key_count(); i++) {
        llmmem_key key = llmmem_key_at(i);
        llmmem_value_type type;
        llmmem_object object;
        ck_assert_ok(llmmem_key_type(&type, key));
        ck_assert_ok(llmmem_key_object(&object, key));
        if (object == LLMMEM_OBJECT_MODEL)
            continue;
        llmmem__settings *k = object == LLMMEM_OBJECT_HARDWARE ? &h.hw->s : &h.s->s;
        const uint64_t before = k->id;
        ck_assert_uint_ne(before, 0);
        if (type == LLMMEM_TYPE_LIST) {
            const double one = 1.0;
            ck_assert_ok(llmmem_strategy_set_list(h.s, key, &one, 1));
        } else if (type == LLMMEM_TYPE_REAL) {
            double lo, hi;
            ck_assert_ok(llmmem_key_bounds_real(&lo, &hi, key));
            ck_assert_ok(object == LLMMEM_OBJECT_HARDWARE ? llmmem_hardware_set_real(h.hw, key, hi)
                                                          : llmmem_strategy_set_real(h.s, key, hi));
        } else {
            int64_t lo, hi;
            ck_assert_ok(llmmem_key_bounds(&lo, &hi, key));
            ck_assert_ok(set_int(&h, object, key, hi));
        }
        ck_assert_msg(k->id != before && k->id != 0, "setting %s kept the contents id", llmmem_key_name(key));
    }
    release(&h);
}
END_TEST

START_TEST(test_real_bounds)
{
    llmmem_hardware *hw;
    ck_assert_ok(llmmem_hardware_new(&hw));
    double lo, hi, v;
    ck_assert_ok(llmmem_key_bounds_real(&lo, &hi, LLMMEM_KEY_ALLOCATOR_RESERVE_FRACTION));
    ck_assert_ok(llmmem_hardware_set_real(hw, LLMMEM_KEY_ALLOCATOR_RESERVE_FRACTION, lo));
    ck_assert_ok(llmmem_hardware_set_real(hw, LLMMEM_KEY_ALLOCATOR_RESERVE_FRACTION, hi));
    ck_assert_ok(llmmem_hardware_get_real(&v, hw, LLMMEM_KEY_ALLOCATOR_RESERVE_FRACTION));
    ck_assert_double_eq(v, hi);
    ck_assert_status(llmmem_hardware_set_real(hw, LLMMEM_KEY_ALLOCATOR_RESERVE_FRACTION, nextafter(hi, 2.0)),
                     LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_status(llmmem_hardware_set_real(hw, LLMMEM_KEY_ALLOCATOR_RESERVE_FRACTION, -1e-9),
                     LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_status(llmmem_hardware_set_real(hw, LLMMEM_KEY_ALLOCATOR_RESERVE_FRACTION, NAN),
                     LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "allocator_reserve_fraction"));
    ck_assert_status(llmmem_hardware_set_real(hw, LLMMEM_KEY_ALLOCATOR_RESERVE_FRACTION, INFINITY),
                     LLMMEM_ERR_OUT_OF_RANGE);
    /* Integer and real accessors do not mix. */
    ck_assert_status(llmmem_hardware_set_int(hw, LLMMEM_KEY_ALLOCATOR_RESERVE_FRACTION, 0), LLMMEM_ERR_UNKNOWN_KEY);
    ck_assert_status(llmmem_hardware_set_real(hw, LLMMEM_KEY_MEMORY_BYTES, 1.0), LLMMEM_ERR_UNKNOWN_KEY);
    llmmem_hardware_free(hw);
}
END_TEST

START_TEST(test_wrong_object)
{
    handles h = make();
    ck_assert_status(llmmem_strategy_set_int(h.s, LLMMEM_KEY_HIDDEN_SIZE, 4096), LLMMEM_ERR_UNKNOWN_KEY);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "hidden_size belongs to the model"));
    ck_assert_status(llmmem_model_set_int(h.m, LLMMEM_KEY_MEMORY_BYTES, 1), LLMMEM_ERR_UNKNOWN_KEY);
    ck_assert_status(llmmem_hardware_set_text(h.hw, "weight_format", "bf16"), LLMMEM_ERR_UNKNOWN_KEY);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "weight_format belongs to the strategy"));
    ck_assert_status(llmmem_model_set_int(h.m, (llmmem_key)1999, 1), LLMMEM_ERR_UNKNOWN_KEY);
    release(&h);
}
END_TEST

START_TEST(test_choices)
{
    int64_t v;
    ck_assert_ok(llmmem_choice_from_name(&v, LLMMEM_KEY_WEIGHT_FORMAT, "gptq_int4"));
    ck_assert_int_eq(v, LLMMEM_FORMAT_GPTQ_INT4);
    ck_assert_ok(llmmem_choice_from_name(&v, LLMMEM_KEY_TORCH_DTYPE, "bfloat16")); /* config.json spelling */
    ck_assert_int_eq(v, LLMMEM_FORMAT_BF16);
    ck_assert_ok(llmmem_choice_from_name(&v, LLMMEM_KEY_MODEL_TYPE, "qwen3_moe"));
    ck_assert_int_eq(v, LLMMEM_MODEL_QWEN3_MOE);
    ck_assert_ok(llmmem_choice_from_name(&v, LLMMEM_KEY_TIE_WORD_EMBEDDINGS, "true"));
    ck_assert_int_eq(v, 1);
    ck_assert_status(llmmem_choice_from_name(&v, LLMMEM_KEY_WEIGHT_FORMAT, "nf5"), LLMMEM_ERR_NOT_FOUND);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "'nf5'"));
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "bnb_nf4"));
    ck_assert_status(llmmem_choice_from_name(&v, LLMMEM_KEY_HIDDEN_SIZE, "x"), LLMMEM_ERR_UNKNOWN_KEY);
    /* "auto" is not a dtype a checkpoint is stored in. */
    ck_assert_status(llmmem_choice_from_name(&v, LLMMEM_KEY_TORCH_DTYPE, "auto"), LLMMEM_ERR_NOT_FOUND);
    for (size_t i = 0; i < llmmem_key_count(); i++) {
        llmmem_key key = llmmem_key_at(i);
        llmmem_value_type type;
        ck_assert_ok(llmmem_key_type(&type, key));
        if (type != LLMMEM_TYPE_CHOICE)
            continue;
        int64_t lo, hi;
        ck_assert_ok(llmmem_key_bounds(&lo, &hi, key));
        for (int64_t c = lo; c <= hi; c++) {
            const char *name = llmmem_choice_name(key, c);
            if (!name && (key == LLMMEM_KEY_VISION_MODEL_TYPE || key == LLMMEM_KEY_MULTIMODAL_PROJECTOR) && c >= 3 &&
                c <= 6) /* values left for other towers: refused until they have a name */
                continue;
            ck_assert_ptr_nonnull(name);
            ck_assert_ok(llmmem_choice_from_name(&v, key, name));
            ck_assert_int_eq(v, c);
        }
        ck_assert_ptr_null(llmmem_choice_name(key, hi + 1));
    }
}
END_TEST

/* Flags keys: a set of named bits, written "q,k,v". */
START_TEST(test_flags)
{
    int64_t v;
    ck_assert_ok(llmmem_choice_from_name(&v, LLMMEM_KEY_LORA_TARGETS, "q,k,v,o"));
    ck_assert_int_eq(v, LLMMEM_LORA_TARGET_Q | LLMMEM_LORA_TARGET_K | LLMMEM_LORA_TARGET_V | LLMMEM_LORA_TARGET_O);
    ck_assert_ok(llmmem_choice_from_name(&v, LLMMEM_KEY_LORA_TARGETS, "none"));
    ck_assert_int_eq(v, 0);
    ck_assert_status(llmmem_choice_from_name(&v, LLMMEM_KEY_LORA_TARGETS, "q,bogus"), LLMMEM_ERR_NOT_FOUND);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "'bogus'"));
    ck_assert_str_eq(llmmem_choice_name(LLMMEM_KEY_LORA_TARGETS, LLMMEM_LORA_TARGET_DOWN), "down");
    ck_assert_ptr_null(llmmem_choice_name(LLMMEM_KEY_LORA_TARGETS, 3)); /* not a single bit */
    llmmem_strategy *s;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_get_int(&v, s, LLMMEM_KEY_LORA_TARGETS));
    ck_assert_int_eq(v, LLMMEM_LORA_TARGET_Q | LLMMEM_LORA_TARGET_V); /* PEFT's default for Llama */
    ck_assert_ok(llmmem_strategy_set_text(s, "lora_targets", "gate,up,down,experts"));
    ck_assert_ok(llmmem_strategy_get_int(&v, s, LLMMEM_KEY_LORA_TARGETS));
    ck_assert_int_eq(v, 0xf0);
    ck_assert_status(llmmem_strategy_set_int(s, LLMMEM_KEY_LORA_TARGETS, 256), LLMMEM_ERR_OUT_OF_RANGE);
    llmmem_strategy_free(s);
}
END_TEST

START_TEST(test_set_text)
{
    handles h = make();
    int64_t v;
    ck_assert_ok(llmmem_hardware_set_text(h.hw, "memory_bytes", "80GiB"));
    ck_assert_ok(llmmem_hardware_get_int(&v, h.hw, LLMMEM_KEY_MEMORY_BYTES));
    ck_assert_int_eq(v, 80LL * 1024 * 1024 * 1024);
    ck_assert_ok(llmmem_hardware_set_text(h.hw, "memory_bytes", "80GB"));
    ck_assert_ok(llmmem_hardware_get_int(&v, h.hw, LLMMEM_KEY_MEMORY_BYTES));
    ck_assert_int_eq(v, 80000000000LL);
    ck_assert_ok(llmmem_model_set_text(h.m, "num_parameters", "7e9"));
    ck_assert_ok(llmmem_model_get_int(&v, h.m, LLMMEM_KEY_NUM_PARAMETERS));
    ck_assert_int_eq(v, 7000000000LL);
    ck_assert_ok(llmmem_model_set_text(h.m, "num_parameters", "1.5e9"));
    ck_assert_ok(llmmem_model_get_int(&v, h.m, LLMMEM_KEY_NUM_PARAMETERS));
    ck_assert_int_eq(v, 1500000000LL);
    ck_assert_status(llmmem_model_set_text(h.m, "num_parameters", "1.5"), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "num_parameters: '1.5'"));
    ck_assert_status(llmmem_model_set_text(h.m, "hidden_size", "abc"), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_model_set_text(h.m, "hidden_size", "-5"), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "hidden_size (-5)"));
    /* whole but beyond int64: the key's range error (issue 14), no longer "not a whole number" */
    ck_assert_status(llmmem_model_set_text(h.m, "num_parameters", "99999999999999999999"),
                     LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_ok(llmmem_model_set_text(h.m, "tie_word_embeddings", "false"));
    ck_assert_ok(llmmem_model_set_text(h.m, "torch_dtype", "float16"));
    ck_assert_ok(llmmem_model_get_int(&v, h.m, LLMMEM_KEY_TORCH_DTYPE));
    ck_assert_int_eq(v, LLMMEM_FORMAT_FP16);
    ck_assert_ok(llmmem_strategy_set_text(h.s, "weight_format", "11")); /* a choice by number */
    ck_assert_ok(llmmem_strategy_get_int(&v, h.s, LLMMEM_KEY_WEIGHT_FORMAT));
    ck_assert_int_eq(v, LLMMEM_FORMAT_GPTQ_INT4);
    ck_assert_status(llmmem_strategy_set_text(h.s, "weight_format", "nf5"), LLMMEM_ERR_NOT_FOUND);
    ck_assert_ok(llmmem_hardware_set_text(h.hw, "allocator_reserve_fraction", "0.05"));
    ck_assert_status(llmmem_hardware_set_text(h.hw, "allocator_reserve_fraction", "nan"), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_status(llmmem_hardware_set_text(h.hw, "allocator_reserve_fraction", "0.1x"),
                     LLMMEM_ERR_INVALID_ARGUMENT);
    release(&h);
}
END_TEST

START_TEST(test_null_arguments)
{
    llmmem_model_free(NULL);
    llmmem_hardware_free(NULL);
    llmmem_strategy_free(NULL);
    llmmem_report_free(NULL);
    llmmem_string_free(NULL);
    ck_assert_status(llmmem_model_new(NULL), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "out"));
    llmmem_model *m = (llmmem_model *)&m; /* must be reset to NULL on failure */
    ck_assert_status(llmmem_model_from_preset(&m, NULL), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(m);
    ck_assert_status(llmmem_model_from_preset(&m, "no-such-model"), LLMMEM_ERR_NOT_FOUND);
    ck_assert_ptr_null(m);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "no-such-model"));
    llmmem_hardware *hw;
    ck_assert_status(llmmem_hardware_from_preset(&hw, "no-such-gpu"), LLMMEM_ERR_NOT_FOUND);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "no-such-gpu"));
    int64_t v;
    ck_assert_status(llmmem_model_get_int(&v, NULL, LLMMEM_KEY_HIDDEN_SIZE), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_model_set_int(NULL, LLMMEM_KEY_HIDDEN_SIZE, 1), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_strategy_set_text(NULL, "mode", "inference"), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_key_from_name(NULL, "mode"), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_estimate(NULL, NULL, NULL, NULL), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(llmmem_report_total_bytes(NULL), 0);
    ck_assert_int_eq(llmmem_report_fits(NULL), 0);
    ck_assert_str_eq(llmmem_model_name(NULL), "");
}
END_TEST

/* Every public function that returns a status and takes a pointer, called with NULL in each
 * pointer argument in turn (the others valid): LLMMEM_ERR_INVALID_ARGUMENT and "<function>:
 * argument '<parameter>' is NULL", the function the user called and the parameter's name in the
 * header, never an internal helper's (issue 34: 24 such calls named none, or a helper's 'm' or
 * 's'). A pointer the header lets be NULL is listed with ACCEPTS_NULL. check_symbols.py checks that
 * every such function and parameter of the header is here. */
#define EXPECT_NULL(fn, param, ...) expect_null(fn(__VA_ARGS__), #fn, param)
#define ACCEPTS_NULL(fn, param, ...) accepts_null(fn(__VA_ARGS__), #fn, param)

static void expect_null(llmmem_status st, const char *fn, const char *param)
{
    char want[256];
    snprintf(want, sizeof want, "%s: argument '%s' is NULL", fn, param);
    ck_assert_msg(st == LLMMEM_ERR_INVALID_ARGUMENT && strcmp(llmmem_last_message(), want) == 0,
                  "%s with %s NULL: %s, \"%s\"; expected \"%s\"", fn, param, llmmem_status_str(st),
                  llmmem_last_message(), want);
}

static void accepts_null(llmmem_status st, const char *fn, const char *param)
{
    ck_assert_msg(st == LLMMEM_OK, "%s with %s NULL (allowed): %s, \"%s\"", fn, param, llmmem_status_str(st),
                  llmmem_last_message());
}

START_TEST(test_null_arguments_name_the_function)
{
    /* one valid object of each kind */
    llmmem_model *m;
    llmmem_hardware *hw;
    llmmem_strategy *s, *got;
    llmmem_report *r;
    llmmem_timeline *tl;
    llmmem_plan *plan;
    llmmem_serving *sv;
    llmmem_local *lo;
    llmmem_checkpoint *ck;
    ck_assert_ok(llmmem_model_from_preset(&m, "llama-3.1-8b"));
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_report_new(&r));
    ck_assert_ok(llmmem_estimate(r, m, hw, s));
    ck_assert_ok(llmmem_timeline_new(&tl));
    ck_assert_ok(llmmem_estimate_timeline(tl, m, hw, s));
    ck_assert_ok(llmmem_plan_new(&plan));
    ck_assert_ok(llmmem_plan_run(plan, m, hw, s, 1));
    ck_assert_ok(llmmem_serving_new(&sv));
    ck_assert_ok(llmmem_serving_estimate(sv, m, hw, s));
    ck_assert_ok(llmmem_local_new(&lo));
    ck_assert_ok(llmmem_local_estimate(lo, m, NULL, hw, s));
    static const char header[] = "\x3d\0\0\0\0\0\0\0"
                                 "{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]}}\0\0\0\0";
    ck_assert_ok(llmmem_checkpoint_from_safetensors_bytes(&ck, header, sizeof header - 1));
    llmmem_key key;
    llmmem_format format;
    int64_t i64, i64b;
    uint64_t u64, u64b;
    double d, list[2] = {1, 1};
    size_t count;
    int flag;
    char *text;
    const char *name, *dtype;
    llmmem_tensor_role role;
    llmmem_param_group group;
    llmmem_model *m2;
    llmmem_hardware *hw2;
    llmmem_report *r2;
    llmmem_plan *plan2;
    llmmem_serving *sv2;
    llmmem_local *lo2;
    llmmem_checkpoint *ck2;
    const llmmem_key mk = LLMMEM_KEY_HIDDEN_SIZE, hk = LLMMEM_KEY_MEMORY_BYTES, sk = LLMMEM_KEY_MICRO_BATCH_SIZE;
    const llmmem_key hr = LLMMEM_KEY_ALLOCATOR_RESERVE_FRACTION, sr = LLMMEM_KEY_GPU_MEMORY_UTILIZATION;

    EXPECT_NULL(llmmem_key_from_name, "key_out", NULL, "mode");
    EXPECT_NULL(llmmem_key_from_name, "name", &key, NULL);
    EXPECT_NULL(llmmem_key_object, "object_out", NULL, mk);
    EXPECT_NULL(llmmem_key_type, "type_out", NULL, mk);
    EXPECT_NULL(llmmem_key_bounds, "min_out", NULL, &i64, mk);
    EXPECT_NULL(llmmem_key_bounds, "max_out", &i64, NULL, mk);
    EXPECT_NULL(llmmem_key_bounds_real, "min_out", NULL, &d, hr);
    EXPECT_NULL(llmmem_key_bounds_real, "max_out", &d, NULL, hr);
    EXPECT_NULL(llmmem_key_default, "value_out", NULL, mk);
    EXPECT_NULL(llmmem_key_default_real, "value_out", NULL, hr);
    EXPECT_NULL(llmmem_choice_from_name, "value_out", NULL, LLMMEM_KEY_MODE, "training");
    EXPECT_NULL(llmmem_choice_from_name, "name", &i64, LLMMEM_KEY_MODE, NULL);
    EXPECT_NULL(llmmem_parse_int, "value_out", NULL, "5");
    EXPECT_NULL(llmmem_parse_int, "text", &i64, NULL);

    EXPECT_NULL(llmmem_model_new, "out", NULL);
    EXPECT_NULL(llmmem_model_from_preset, "out", NULL, "llama-3.1-8b");
    EXPECT_NULL(llmmem_model_from_preset, "name", &m2, NULL);
    EXPECT_NULL(llmmem_model_clone, "out", NULL, m);
    EXPECT_NULL(llmmem_model_clone, "model", &m2, NULL);
    EXPECT_NULL(llmmem_model_set_int, "model", NULL, mk, 64);
    EXPECT_NULL(llmmem_model_get_int, "value_out", NULL, m, mk);
    EXPECT_NULL(llmmem_model_get_int, "model", &i64, NULL, mk);
    EXPECT_NULL(llmmem_model_set_text, "model", NULL, "hidden_size", "64");
    EXPECT_NULL(llmmem_model_set_text, "key_name", m, NULL, "64");
    EXPECT_NULL(llmmem_model_set_text, "value", m, "hidden_size", NULL);
    EXPECT_NULL(llmmem_model_set_layer_types, "model", NULL, "");
    EXPECT_NULL(llmmem_model_set_layer_types, "layer_types", m, NULL);
    EXPECT_NULL(llmmem_model_parameters, "count_out", NULL, m, LLMMEM_PARAMS_EMBEDDING);
    EXPECT_NULL(llmmem_model_parameters, "model", &u64, NULL, LLMMEM_PARAMS_EMBEDDING);
    EXPECT_NULL(llmmem_model_total_parameters, "count_out", NULL, m);
    EXPECT_NULL(llmmem_model_total_parameters, "model", &u64, NULL);
    EXPECT_NULL(llmmem_model_active_parameters, "count_out", NULL, m);
    EXPECT_NULL(llmmem_model_active_parameters, "model", &u64, NULL);
    EXPECT_NULL(llmmem_model_checkpoint_parameters, "count_out", NULL, m);
    EXPECT_NULL(llmmem_model_checkpoint_parameters, "model", &u64, NULL);
    EXPECT_NULL(llmmem_model_from_hf_config, "out", NULL, "config.json");
    EXPECT_NULL(llmmem_model_from_hf_config, "path", &m2, NULL);
    EXPECT_NULL(llmmem_model_from_hf_config_text, "out", NULL, "{}", 2);
    EXPECT_NULL(llmmem_model_from_hf_config_text, "json", &m2, NULL, 2);

    EXPECT_NULL(llmmem_hardware_new, "out", NULL);
    EXPECT_NULL(llmmem_hardware_from_preset, "out", NULL, "h100-sxm-80gb");
    EXPECT_NULL(llmmem_hardware_from_preset, "name", &hw2, NULL);
    EXPECT_NULL(llmmem_hardware_clone, "out", NULL, hw);
    EXPECT_NULL(llmmem_hardware_clone, "hw", &hw2, NULL);
    EXPECT_NULL(llmmem_hardware_set_int, "hw", NULL, hk, 1);
    EXPECT_NULL(llmmem_hardware_get_int, "value_out", NULL, hw, hk);
    EXPECT_NULL(llmmem_hardware_get_int, "hw", &i64, NULL, hk);
    EXPECT_NULL(llmmem_hardware_set_real, "hw", NULL, hr, 0.1);
    EXPECT_NULL(llmmem_hardware_get_real, "value_out", NULL, hw, hr);
    EXPECT_NULL(llmmem_hardware_get_real, "hw", &d, NULL, hr);
    EXPECT_NULL(llmmem_hardware_set_text, "hw", NULL, "memory_bytes", "1");
    EXPECT_NULL(llmmem_hardware_set_text, "key_name", hw, NULL, "1");
    EXPECT_NULL(llmmem_hardware_set_text, "value", hw, "memory_bytes", NULL);

    EXPECT_NULL(llmmem_strategy_new, "out", NULL);
    EXPECT_NULL(llmmem_strategy_clone, "out", NULL, s);
    EXPECT_NULL(llmmem_strategy_clone, "s", &got, NULL);
    EXPECT_NULL(llmmem_strategy_set_int, "s", NULL, sk, 1);
    EXPECT_NULL(llmmem_strategy_get_int, "value_out", NULL, s, sk);
    EXPECT_NULL(llmmem_strategy_get_int, "s", &i64, NULL, sk);
    EXPECT_NULL(llmmem_strategy_set_real, "s", NULL, sr, 0.5);
    EXPECT_NULL(llmmem_strategy_get_real, "value_out", NULL, s, sr);
    EXPECT_NULL(llmmem_strategy_get_real, "s", &d, NULL, sr);
    EXPECT_NULL(llmmem_strategy_set_text, "s", NULL, "mode", "training");
    EXPECT_NULL(llmmem_strategy_set_text, "key_name", s, NULL, "training");
    EXPECT_NULL(llmmem_strategy_set_text, "value", s, "mode", NULL);
    EXPECT_NULL(llmmem_strategy_get_list, "values_out", NULL, 2, &count, s, LLMMEM_KEY_TENSOR_SPLIT);
    ACCEPTS_NULL(llmmem_strategy_get_list, "values_out", NULL, 0, &count, s, LLMMEM_KEY_TENSOR_SPLIT);
    EXPECT_NULL(llmmem_strategy_get_list, "count_out", list, 2, NULL, s, LLMMEM_KEY_TENSOR_SPLIT);
    EXPECT_NULL(llmmem_strategy_get_list, "s", list, 2, &count, NULL, LLMMEM_KEY_TENSOR_SPLIT);
    EXPECT_NULL(llmmem_strategy_set_list, "s", NULL, LLMMEM_KEY_TENSOR_SPLIT, list, 2);
    EXPECT_NULL(llmmem_strategy_set_list, "values", s, LLMMEM_KEY_TENSOR_SPLIT, NULL, 2);
    ACCEPTS_NULL(llmmem_strategy_set_list, "values", s, LLMMEM_KEY_TENSOR_SPLIT, NULL, 0);
    EXPECT_NULL(llmmem_format_tensor_bytes, "bytes_out", NULL, LLMMEM_FORMAT_BF16, 2, 2, 0, 0);

    EXPECT_NULL(llmmem_checkpoint_from_safetensors, "out", NULL, "x.safetensors");
    EXPECT_NULL(llmmem_checkpoint_from_safetensors, "path", &ck2, NULL);
    EXPECT_NULL(llmmem_checkpoint_from_safetensors_bytes, "out", NULL, header, sizeof header - 1);
    EXPECT_NULL(llmmem_checkpoint_from_safetensors_bytes, "data", &ck2, NULL, 8);
    ACCEPTS_NULL(llmmem_checkpoint_tensor, "name_out", NULL, &dtype, &u64, &u64b, &role, &group, ck, 0);
    ACCEPTS_NULL(llmmem_checkpoint_tensor, "dtype_out", &name, NULL, &u64, &u64b, &role, &group, ck, 0);
    ACCEPTS_NULL(llmmem_checkpoint_tensor, "elements_out", &name, &dtype, NULL, &u64b, &role, &group, ck, 0);
    ACCEPTS_NULL(llmmem_checkpoint_tensor, "bytes_out", &name, &dtype, &u64, NULL, &role, &group, ck, 0);
    ACCEPTS_NULL(llmmem_checkpoint_tensor, "role_out", &name, &dtype, &u64, &u64b, NULL, &group, ck, 0);
    ACCEPTS_NULL(llmmem_checkpoint_tensor, "group_out", &name, &dtype, &u64, &u64b, &role, NULL, ck, 0);
    EXPECT_NULL(llmmem_checkpoint_tensor, "ck", &name, &dtype, &u64, &u64b, &role, &group, NULL, 0);
    ACCEPTS_NULL(llmmem_checkpoint_dtype, "dtype_out", NULL, &u64, &u64b, ck, 0);
    ACCEPTS_NULL(llmmem_checkpoint_dtype, "elements_out", &dtype, NULL, &u64b, ck, 0);
    ACCEPTS_NULL(llmmem_checkpoint_dtype, "bytes_out", &dtype, &u64, NULL, ck, 0);
    EXPECT_NULL(llmmem_checkpoint_dtype, "ck", &dtype, &u64, &u64b, NULL, 0);
    EXPECT_NULL(llmmem_checkpoint_verify, "ck", NULL, m);
    EXPECT_NULL(llmmem_checkpoint_verify, "model", ck, NULL);
    EXPECT_NULL(llmmem_checkpoint_from_gguf, "out", NULL, "x.gguf");
    EXPECT_NULL(llmmem_checkpoint_from_gguf, "path", &ck2, NULL);
    EXPECT_NULL(llmmem_checkpoint_from_gguf_bytes, "out", NULL, "GGUF", 4);
    EXPECT_NULL(llmmem_checkpoint_from_gguf_bytes, "data", &ck2, NULL, 4);
    EXPECT_NULL(llmmem_checkpoint_model, "out", NULL, ck);
    EXPECT_NULL(llmmem_checkpoint_model, "ck", &m2, NULL);
    EXPECT_NULL(llmmem_model_use_checkpoint, "model", NULL, ck);
    EXPECT_NULL(llmmem_model_use_checkpoint, "ck", m, NULL);

    EXPECT_NULL(llmmem_report_new, "out", NULL);
    EXPECT_NULL(llmmem_report_clone, "out", NULL, r);
    EXPECT_NULL(llmmem_report_clone, "report", &r2, NULL);
    EXPECT_NULL(llmmem_estimate, "out", NULL, m, hw, s);
    EXPECT_NULL(llmmem_estimate, "model", r, NULL, hw, s);
    EXPECT_NULL(llmmem_estimate, "hw", r, m, NULL, s);
    EXPECT_NULL(llmmem_estimate, "strategy", r, m, hw, NULL);
    EXPECT_NULL(llmmem_estimate_runs, "out", NULL, m, hw, s);
    EXPECT_NULL(llmmem_estimate_runs, "model", r, NULL, hw, s);
    EXPECT_NULL(llmmem_estimate_runs, "hw", r, m, NULL, s);
    EXPECT_NULL(llmmem_estimate_runs, "strategy", r, m, hw, NULL);
    ck_assert_ok(llmmem_estimate(r, m, hw, s)); /* valid again for the report's readers */
    EXPECT_NULL(llmmem_timeline_new, "out", NULL);
    EXPECT_NULL(llmmem_estimate_timeline, "out", NULL, m, hw, s);
    EXPECT_NULL(llmmem_estimate_timeline, "model", tl, NULL, hw, s);
    EXPECT_NULL(llmmem_estimate_timeline, "hw", tl, m, NULL, s);
    EXPECT_NULL(llmmem_estimate_timeline, "strategy", tl, m, hw, NULL);
    ck_assert_ok(llmmem_estimate_timeline(tl, m, hw, s));
    EXPECT_NULL(llmmem_estimate_timeline_runs, "out", NULL, m, hw, s);
    EXPECT_NULL(llmmem_estimate_timeline_runs, "model", tl, NULL, hw, s);
    EXPECT_NULL(llmmem_estimate_timeline_runs, "hw", tl, m, NULL, s);
    EXPECT_NULL(llmmem_estimate_timeline_runs, "strategy", tl, m, hw, NULL);
    ck_assert_ok(llmmem_estimate_timeline(tl, m, hw, s));
    EXPECT_NULL(llmmem_timeline_to_json, "json_out", NULL, tl);
    EXPECT_NULL(llmmem_timeline_to_json, "timeline", &text, NULL);
    EXPECT_NULL(llmmem_report_stage_layers, "first_out", NULL, &u64b, r, 0);
    EXPECT_NULL(llmmem_report_stage_layers, "count_out", &u64, NULL, r, 0);
    EXPECT_NULL(llmmem_report_stage_layers, "report", &u64, &u64b, NULL, 0);
    EXPECT_NULL(llmmem_report_to_json, "json_out", NULL, r);
    EXPECT_NULL(llmmem_report_to_json, "report", &text, NULL);

    EXPECT_NULL(llmmem_solve_max_micro_batch, "out", NULL, m, hw, s);
    EXPECT_NULL(llmmem_solve_max_micro_batch, "model", &u64, NULL, hw, s);
    EXPECT_NULL(llmmem_solve_max_micro_batch, "hw", &u64, m, NULL, s);
    EXPECT_NULL(llmmem_solve_max_micro_batch, "strategy", &u64, m, hw, NULL);
    EXPECT_NULL(llmmem_solve_max_sequence_length, "out", NULL, m, hw, s);
    EXPECT_NULL(llmmem_solve_max_sequence_length, "model", &u64, NULL, hw, s);
    EXPECT_NULL(llmmem_solve_max_sequence_length, "hw", &u64, m, NULL, s);
    EXPECT_NULL(llmmem_solve_max_sequence_length, "strategy", &u64, m, hw, NULL);
    EXPECT_NULL(llmmem_solve_weight_format, "out", NULL, m, hw, s);
    EXPECT_NULL(llmmem_solve_weight_format, "model", &format, NULL, hw, s);
    EXPECT_NULL(llmmem_solve_weight_format, "hw", &format, m, NULL, s);
    EXPECT_NULL(llmmem_solve_weight_format, "strategy", &format, m, hw, NULL);
    EXPECT_NULL(llmmem_plan_new, "out", NULL);
    EXPECT_NULL(llmmem_plan_set_limit, "plan", NULL, 4);
    EXPECT_NULL(llmmem_plan_set_work_limit, "plan", NULL, 1000);
    EXPECT_NULL(llmmem_plan_run, "plan", NULL, m, hw, s, 1);
    ck_assert_ok(llmmem_plan_new(&plan2));
    EXPECT_NULL(llmmem_plan_run, "model", plan2, NULL, hw, s, 1);
    EXPECT_NULL(llmmem_plan_run, "hw", plan2, m, NULL, s, 1);
    EXPECT_NULL(llmmem_plan_run, "base", plan2, m, hw, NULL, 1);
    EXPECT_NULL(llmmem_plan_get, "out", NULL, plan, 0);
    EXPECT_NULL(llmmem_plan_get, "plan", &got, NULL, 0);
    EXPECT_NULL(llmmem_plan_cost, "seconds_out", NULL, &u64, plan, 0);
    EXPECT_NULL(llmmem_plan_cost, "bytes_out", &d, NULL, plan, 0);
    EXPECT_NULL(llmmem_plan_cost, "plan", &d, &u64, NULL, 0);
    EXPECT_NULL(llmmem_plan_to_json, "json_out", NULL, plan);
    EXPECT_NULL(llmmem_plan_to_json, "plan", &text, NULL);
    EXPECT_NULL(llmmem_solve_min_devices, "out", NULL, m, hw, s, 8);
    EXPECT_NULL(llmmem_solve_min_devices, "model", &u64, NULL, hw, s, 8);
    EXPECT_NULL(llmmem_solve_min_devices, "hw", &u64, m, NULL, s, 8);
    EXPECT_NULL(llmmem_solve_min_devices, "base", &u64, m, hw, NULL, 8);
    EXPECT_NULL(llmmem_plan_min_devices, "out", NULL, plan2, m, hw, s, 8);
    EXPECT_NULL(llmmem_plan_min_devices, "plan", &u64, NULL, m, hw, s, 8);
    EXPECT_NULL(llmmem_plan_min_devices, "model", &u64, plan2, NULL, hw, s, 8);
    EXPECT_NULL(llmmem_plan_min_devices, "hw", &u64, plan2, m, NULL, s, 8);
    EXPECT_NULL(llmmem_plan_min_devices, "base", &u64, plan2, m, hw, NULL, 8);
    EXPECT_NULL(llmmem_explain, "text_out", NULL, m, hw, s);
    EXPECT_NULL(llmmem_explain, "model", &text, NULL, hw, s);
    EXPECT_NULL(llmmem_explain, "hw", &text, m, NULL, s);
    EXPECT_NULL(llmmem_explain, "strategy", &text, m, hw, NULL);

    EXPECT_NULL(llmmem_serving_new, "out", NULL);
    EXPECT_NULL(llmmem_serving_clone, "out", NULL, sv);
    EXPECT_NULL(llmmem_serving_clone, "serving", &sv2, NULL);
    EXPECT_NULL(llmmem_serving_estimate, "out", NULL, m, hw, s);
    ck_assert_ok(llmmem_serving_new(&sv2));
    EXPECT_NULL(llmmem_serving_estimate, "model", sv2, NULL, hw, s);
    EXPECT_NULL(llmmem_serving_estimate, "hw", sv2, m, NULL, s);
    EXPECT_NULL(llmmem_serving_estimate, "strategy", sv2, m, hw, NULL);
    EXPECT_NULL(llmmem_serving_request_blocks, "blocks_out", NULL, &u64b, sv, 100);
    ACCEPTS_NULL(llmmem_serving_request_blocks, "waste_bytes_out", &u64, NULL, sv, 100);
    EXPECT_NULL(llmmem_serving_request_blocks, "serving", &u64, &u64b, NULL, 100);
    EXPECT_NULL(llmmem_serving_fits_request, "fits_out", NULL, sv, 100);
    EXPECT_NULL(llmmem_serving_fits_request, "serving", &flag, NULL, 100);
    EXPECT_NULL(llmmem_serving_max_concurrency, "requests_out", NULL, sv, 100);
    EXPECT_NULL(llmmem_serving_max_concurrency, "serving", &u64, NULL, 100);
    EXPECT_NULL(llmmem_serving_max_model_len, "tokens_out", NULL, sv);
    EXPECT_NULL(llmmem_serving_max_model_len, "serving", &u64, NULL);
    EXPECT_NULL(llmmem_serving_max_batch, "sequences_out", NULL, sv, 100);
    EXPECT_NULL(llmmem_serving_max_batch, "serving", &u64, NULL, 100);
    EXPECT_NULL(llmmem_serving_to_json, "json_out", NULL, sv);
    EXPECT_NULL(llmmem_serving_to_json, "serving", &text, NULL);
    EXPECT_NULL(llmmem_kv_bytes_per_token, "bytes_out", NULL, m, s);
    EXPECT_NULL(llmmem_kv_bytes_per_token, "model", &u64, NULL, s);
    EXPECT_NULL(llmmem_kv_bytes_per_token, "strategy", &u64, m, NULL);
    EXPECT_NULL(llmmem_kv_cache_bytes, "bytes_out", NULL, m, s, 1, 100);
    EXPECT_NULL(llmmem_kv_cache_bytes, "model", &u64, NULL, s, 1, 100);
    EXPECT_NULL(llmmem_kv_cache_bytes, "strategy", &u64, m, NULL, 1, 100);

    EXPECT_NULL(llmmem_local_new, "out", NULL);
    EXPECT_NULL(llmmem_local_clone, "out", NULL, lo);
    EXPECT_NULL(llmmem_local_clone, "local", &lo2, NULL);
    EXPECT_NULL(llmmem_local_estimate, "out", NULL, m, NULL, hw, s);
    ck_assert_ok(llmmem_local_new(&lo2));
    EXPECT_NULL(llmmem_local_estimate, "model", lo2, NULL, NULL, hw, s);
    ACCEPTS_NULL(llmmem_local_estimate, "gguf", lo2, m, NULL, hw, s);
    EXPECT_NULL(llmmem_local_estimate, "hw", lo2, m, NULL, NULL, s);
    EXPECT_NULL(llmmem_local_estimate, "strategy", lo2, m, NULL, hw, NULL);
    EXPECT_NULL(llmmem_local_to_json, "json_out", NULL, lo);
    EXPECT_NULL(llmmem_local_to_json, "local", &text, NULL);
    EXPECT_NULL(llmmem_local_solve, "answer_out", NULL, LLMMEM_LOCAL_MAX_PARALLEL, m, NULL, hw, s);
    EXPECT_NULL(llmmem_local_solve, "model", &i64, LLMMEM_LOCAL_MAX_PARALLEL, NULL, NULL, hw, s);
    ACCEPTS_NULL(llmmem_local_solve, "gguf", &i64b, LLMMEM_LOCAL_MAX_GPU_LAYERS, m, NULL, hw, s);
    EXPECT_NULL(llmmem_local_solve, "hw", &i64, LLMMEM_LOCAL_MAX_PARALLEL, m, NULL, NULL, s);
    EXPECT_NULL(llmmem_local_solve, "strategy", &i64, LLMMEM_LOCAL_MAX_PARALLEL, m, NULL, hw, NULL);

    llmmem_engines *en = NULL;
    EXPECT_NULL(llmmem_engines_new, "out", NULL);
    ck_assert_ok(llmmem_engines_new(&en));
    EXPECT_NULL(llmmem_engines_estimate, "out", NULL, m, NULL, hw, s);
    EXPECT_NULL(llmmem_engines_estimate, "model", en, NULL, NULL, hw, s);
    ACCEPTS_NULL(llmmem_engines_estimate, "gguf", en, m, NULL, hw, s);
    EXPECT_NULL(llmmem_engines_estimate, "hw", en, m, NULL, NULL, s);
    EXPECT_NULL(llmmem_engines_estimate, "strategy", en, m, NULL, hw, NULL);
    EXPECT_NULL(llmmem_engines_status, "engines", NULL, 0);
    EXPECT_NULL(llmmem_engines_to_json, "json_out", NULL, en);
    EXPECT_NULL(llmmem_engines_to_json, "engines", &text, NULL);
    llmmem_engines_free(en);

    llmmem_local_free(lo2);
    llmmem_local_free(lo);
    llmmem_serving_free(sv2);
    llmmem_serving_free(sv);
    llmmem_plan_free(plan2);
    llmmem_plan_free(plan);
    llmmem_timeline_free(tl);
    llmmem_report_free(r);
    llmmem_checkpoint_free(ck);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
}
END_TEST

START_TEST(test_clone_is_independent)
{
    llmmem_model *a, *b;
    ck_assert_ok(llmmem_model_from_preset(&a, "llama-2-7b"));
    ck_assert_ok(llmmem_model_clone(&b, a));
    ck_assert_ok(llmmem_model_set_int(b, LLMMEM_KEY_NUM_HIDDEN_LAYERS, 1));
    uint64_t pa, pb;
    ck_assert_ok(llmmem_model_total_parameters(&pa, a));
    ck_assert_ok(llmmem_model_total_parameters(&pb, b));
    ck_assert_uint_gt(pa, pb);
    ck_assert_str_eq(llmmem_model_name(b), "llama-2-7b");
    llmmem_model_free(a);
    llmmem_model_free(b);
}
END_TEST

static Suite *keys_suite(void)
{
    Suite *s = suite_create("keys");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_status_names);
    tcase_add_test(tc, test_version);
    tcase_add_test(tc, test_names_round_trip);
    tcase_add_test(tc, test_setters_renumber);
    tcase_add_test(tc, test_int_bounds_both_edges);
    tcase_add_test(tc, test_real_bounds);
    tcase_add_test(tc, test_wrong_object);
    tcase_add_test(tc, test_choices);
    tcase_add_test(tc, test_flags);
    tcase_add_test(tc, test_set_text);
    tcase_add_test(tc, test_null_arguments);
    tcase_add_test(tc, test_null_arguments_name_the_function);
    tcase_add_test(tc, test_clone_is_independent);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(keys_suite());
}
