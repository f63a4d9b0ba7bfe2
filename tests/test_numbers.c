/* The number parser behind every key's text form and llmmem_parse_int: exact integers with
 * units, reals in every locale, bounded work, and messages that quote the text. Expected values
 * are the arithmetic of the text itself (80GiB = 80 x 2^30; INT64_MAX = 2^63 - 1). */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

typedef struct int_case {
    const char *text;
    llmmem_status status;
    int64_t value;
} int_case;

static const int_case int_cases[] = {
    {"0", LLMMEM_OK, 0},
    {"-0", LLMMEM_OK, 0},
    {"+5", LLMMEM_OK, 5},
    {"7e9", LLMMEM_OK, 7000000000LL},
    {"1.5e9", LLMMEM_OK, 1500000000LL},
    {"80GiB", LLMMEM_OK, 80LL << 30},
    {"80GB", LLMMEM_OK, 80000000000LL},
    {"1.5K", LLMMEM_OK, 1500},
    {"0.5KiB", LLMMEM_OK, 512},
    {"0.0009765625KiB", LLMMEM_OK, 1},                 /* 1024 x 10^-10 x 9765625 = 1 */
    {"2PiB", LLMMEM_OK, 2LL << 50},
    {"8EB", LLMMEM_OK, 8000000000000000000LL},
    {"7EiB", LLMMEM_OK, 7LL << 60},
    {"10000000000000000000000e-10", LLMMEM_OK, 1000000000000LL}, /* trailing zeros are exact */
    {"9223372036854775807", LLMMEM_OK, INT64_MAX},
    {"-9223372036854775808", LLMMEM_OK, INT64_MIN},
    {"0e999999999999", LLMMEM_OK, 0},
    /* whole, but beyond int64: out of range, not "not a whole number" */
    {"9223372036854775808", LLMMEM_ERR_OUT_OF_RANGE, 0},
    {"-9223372036854775809", LLMMEM_ERR_OUT_OF_RANGE, 0},
    {"99999999999999999999999", LLMMEM_ERR_OUT_OF_RANGE, 0},
    {"1e19", LLMMEM_ERR_OUT_OF_RANGE, 0},
    {"1e30GiB", LLMMEM_ERR_OUT_OF_RANGE, 0},
    {"8EiB", LLMMEM_ERR_OUT_OF_RANGE, 0},              /* 2^63 */
    {"1e999999999999", LLMMEM_ERR_OUT_OF_RANGE, 0},
    /* not whole */
    {"1.5", LLMMEM_ERR_INVALID_ARGUMENT, 0},
    {"1e-1", LLMMEM_ERR_INVALID_ARGUMENT, 0},
    {"1e-999999", LLMMEM_ERR_INVALID_ARGUMENT, 0},
    {"1234567890123456789012345e-10", LLMMEM_ERR_INVALID_ARGUMENT, 0},
    /* not numbers: spaces, other digits, hexadecimal, dangling parts, unknown units */
    {"", LLMMEM_ERR_INVALID_ARGUMENT, 0},
    {" 5", LLMMEM_ERR_INVALID_ARGUMENT, 0},
    {"5 ", LLMMEM_ERR_INVALID_ARGUMENT, 0},
    {" -1", LLMMEM_ERR_INVALID_ARGUMENT, 0},
    {"\t5", LLMMEM_ERR_INVALID_ARGUMENT, 0},
    {".", LLMMEM_ERR_INVALID_ARGUMENT, 0},
    {"-", LLMMEM_ERR_INVALID_ARGUMENT, 0},
    {"e5", LLMMEM_ERR_INVALID_ARGUMENT, 0},
    {"5e", LLMMEM_ERR_INVALID_ARGUMENT, 0},
    {"5e+", LLMMEM_ERR_INVALID_ARGUMENT, 0},
    {"5B", LLMMEM_ERR_INVALID_ARGUMENT, 0},
    {"5KiB ", LLMMEM_ERR_INVALID_ARGUMENT, 0},
    {"0x10", LLMMEM_ERR_INVALID_ARGUMENT, 0},
    {"1,5", LLMMEM_ERR_INVALID_ARGUMENT, 0},
    {"\xd9\xa3", LLMMEM_ERR_INVALID_ARGUMENT, 0},      /* ARABIC-INDIC DIGIT THREE */
    {"--5", LLMMEM_ERR_INVALID_ARGUMENT, 0},
};

START_TEST(test_parse_int)
{
    const int_case *c = &int_cases[_i];
    int64_t v = -42;
    llmmem_status st = llmmem_parse_int(&v, c->text);
    ck_assert_msg(st == c->status, "'%s': %s, expected %s (%s)", c->text, llmmem_status_str(st),
                  llmmem_status_str(c->status), llmmem_last_message());
    if (c->status == LLMMEM_OK)
        ck_assert_msg(v == c->value, "'%s' read as %lld, expected %lld", c->text, (long long)v, (long long)c->value);
    else
        ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "'"));
}
END_TEST

/* A key's text names the key and quotes the text; beyond int64 is the key's range error. */
START_TEST(test_key_messages)
{
    llmmem_model *m = NULL;
    ck_assert_ok(llmmem_model_new(&m));
    ck_assert_status(llmmem_model_set_text(m, "num_parameters", "9223372036854775808"), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_str_eq(llmmem_last_message(),
                     "num_parameters (9223372036854775808) is out of range [1, 9223372036854775807]");
    ck_assert_status(llmmem_model_set_text(m, "num_parameters", "1e30GiB"), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "num_parameters (1e30GiB) is out of range"));
    ck_assert_status(llmmem_model_set_text(m, "num_parameters", "1.5"), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(llmmem_last_message(), "num_parameters: '1.5' is not a whole number");
    ck_assert_status(llmmem_model_set_text(m, "hidden_size", "4k"), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "hidden_size: '4k' is not a whole number ("));
    llmmem_model_free(m);
}
END_TEST

START_TEST(test_reals)
{
    llmmem_strategy *s = NULL;
    double v = 0;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_text(s, "gpu_memory_utilization", "0.5"));
    ck_assert_ok(llmmem_strategy_get_real(&v, s, LLMMEM_KEY_GPU_MEMORY_UTILIZATION));
    ck_assert(v == 0.5);
    ck_assert_ok(llmmem_strategy_set_text(s, "gpu_memory_utilization", "5e-1"));
    ck_assert_ok(llmmem_strategy_set_text(s, "gpu_memory_utilization", ".9"));
    ck_assert_ok(llmmem_strategy_get_real(&v, s, LLMMEM_KEY_GPU_MEMORY_UTILIZATION));
    ck_assert(v == 0.9);
    /* a subnormal is a (tiny) number, not "not a number" */
    ck_assert_ok(llmmem_strategy_set_text(s, "gpu_memory_utilization", "1e-310"));
    ck_assert_ok(llmmem_strategy_get_real(&v, s, LLMMEM_KEY_GPU_MEMORY_UTILIZATION));
    ck_assert(v > 0 && v < 1e-300);
    ck_assert_status(llmmem_strategy_set_text(s, "gpu_memory_utilization", "1e400"), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "gpu_memory_utilization (1e400) is out of range"));
    ck_assert_status(llmmem_strategy_set_text(s, "gpu_memory_utilization", "0,5"), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "gpu_memory_utilization: '0,5' is not a number"));
    ck_assert_status(llmmem_strategy_set_text(s, "gpu_memory_utilization", " 0.5"), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_strategy_set_text(s, "gpu_memory_utilization", "0x1p-1"), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_strategy_set_text(s, "gpu_memory_utilization", "-inf"), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_status(llmmem_strategy_set_text(s, "gpu_memory_utilization", "NaN"), LLMMEM_ERR_OUT_OF_RANGE);
    llmmem_strategy_free(s);
}
END_TEST

/* The text is refused after LLMMEM_NUMBER_MAX_LEN characters, however long it is: the old parser
 * counted digits in an int and looped once per fractional digit. */
START_TEST(test_long_texts)
{
    enum { LEN = 1 << 20 };
    char *text = malloc(LEN + 1);
    ck_assert_ptr_nonnull(text);
    memset(text, '0', LEN);
    text[1] = '.';
    text[LEN] = '\0';
    int64_t v;
    ck_assert_status(llmmem_parse_int(&v, text), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "too long for a number (at most 256 characters)"));
    llmmem_model *m = NULL;
    ck_assert_ok(llmmem_model_new(&m));
    ck_assert_status(llmmem_model_set_text(m, "hidden_size", text), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "hidden_size: '0.000"));
    llmmem_model_free(m);
    llmmem_strategy *s = NULL;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_status(llmmem_strategy_set_text(s, "gpu_memory_utilization", text), LLMMEM_ERR_INVALID_ARGUMENT);
    llmmem_strategy_free(s);
    /* 256 characters are still a number, 257 are not */
    memset(text, '0', 256);
    text[255] = '7';
    text[256] = '\0';
    ck_assert_ok(llmmem_parse_int(&v, text));
    ck_assert_int_eq(v, 7);
    text[256] = '0';
    text[257] = '\0';
    ck_assert_status(llmmem_parse_int(&v, text), LLMMEM_ERR_INVALID_ARGUMENT);
    free(text);
}
END_TEST

/* A host that set a locale with a decimal comma reads "0.5" as every host does. The test build
 * compiles de_DE.UTF-8 into LOCPATH (tests/meson.build), so this runs wherever localedef does. */
START_TEST(test_locale_independent)
{
    if (!setlocale(LC_ALL, "de_DE.UTF-8")) {
        ck_assert_msg(getenv("LLMMEM_REQUIRE_LOCALE") == NULL, "de_DE.UTF-8 could not be loaded from LOCPATH=%s",
                      getenv("LOCPATH") ? getenv("LOCPATH") : "");
        return;
    }
    ck_assert_str_eq(localeconv()->decimal_point, ","); /* the locale is really in force */
    llmmem_strategy *s = NULL;
    double v = 0;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_text(s, "gpu_memory_utilization", "0.5"));
    ck_assert_ok(llmmem_strategy_get_real(&v, s, LLMMEM_KEY_GPU_MEMORY_UTILIZATION));
    ck_assert(v == 0.5);
    ck_assert_status(llmmem_strategy_set_text(s, "gpu_memory_utilization", "0,5"), LLMMEM_ERR_INVALID_ARGUMENT);
    int64_t n;
    ck_assert_ok(llmmem_parse_int(&n, "1.5e9"));
    ck_assert_int_eq(n, 1500000000);
    /* the host's locale is the host's again afterwards */
    ck_assert_str_eq(localeconv()->decimal_point, ",");
    llmmem_strategy_free(s);
    setlocale(LC_ALL, "C");
}
END_TEST

START_TEST(test_booleans)
{
    llmmem_strategy *s = NULL;
    int64_t v;
    ck_assert_ok(llmmem_strategy_new(&s));
    static const char *const yes[] = {"True", "TRUE", "true", "Yes", "ON", "1"};
    static const char *const no[] = {"False", "false", "NO", "off", "0"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        ck_assert_ok(llmmem_strategy_set_text(s, "flash_attention", yes[i]));
        ck_assert_ok(llmmem_strategy_get_int(&v, s, LLMMEM_KEY_FLASH_ATTENTION));
        ck_assert_int_eq(v, 1);
    }
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        ck_assert_ok(llmmem_strategy_set_text(s, "flash_attention", no[i]));
        ck_assert_ok(llmmem_strategy_get_int(&v, s, LLMMEM_KEY_FLASH_ATTENTION));
        ck_assert_int_eq(v, 0);
    }
    ck_assert_status(llmmem_strategy_set_text(s, "flash_attention", "tru"), LLMMEM_ERR_NOT_FOUND);
    ck_assert_str_eq(llmmem_last_message(),
                     "flash_attention: 'tru' is not a boolean (true/false, 1/0, yes/no or on/off, in any case)");
    llmmem_strategy_free(s);
}
END_TEST

/* Messages are printable UTF-8 whatever bytes the user gave: a binding decodes them. */
START_TEST(test_messages_are_text)
{
    llmmem_model *m = NULL;
    ck_assert_ok(llmmem_model_new(&m));
    ck_assert_status(llmmem_model_set_text(m, "hidden_size", "4\xff\x01\xed\xa0\x80"), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "hidden_size: '4?????" "' is not a whole number"));
    /* a cut inside a multibyte character leaves no half character behind */
    char text[80];
    memset(text, 'x', 63);
    memcpy(text + 63, "\xc3\xa9", 3); /* 'é' straddles the 64-byte quote */
    ck_assert_status(llmmem_model_set_text(m, "hidden_size", text), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "x?' is not"));
    llmmem_model_free(m);
}
END_TEST

START_TEST(test_null_arguments)
{
    int64_t v;
    ck_assert_status(llmmem_parse_int(NULL, "5"), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(llmmem_last_message(), "llmmem_parse_int: argument 'value_out' is NULL");
    ck_assert_status(llmmem_parse_int(&v, NULL), LLMMEM_ERR_INVALID_ARGUMENT);
    llmmem_strategy *s = NULL;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_status(llmmem_strategy_set_text(s, "micro_batch_size", NULL), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(llmmem_last_message(), "llmmem_strategy_set_text: argument 'value' is NULL");
    llmmem_strategy_free(s);
    /* an internal function is never named: the user called llmmem_estimate */
    llmmem_report *r = NULL;
    ck_assert_ok(llmmem_report_new(&r));
    ck_assert_status(llmmem_estimate(r, NULL, NULL, NULL), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(llmmem_last_message(), "llmmem_estimate: argument 'model' is NULL");
    llmmem_report_free(r);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("numbers");
    TCase *tc = tcase_create("core");
    tcase_add_loop_test(tc, test_parse_int, 0, (int)(sizeof int_cases / sizeof int_cases[0]));
    tcase_add_test(tc, test_key_messages);
    tcase_add_test(tc, test_reals);
    tcase_add_test(tc, test_long_texts);
    tcase_add_test(tc, test_locale_independent);
    tcase_add_test(tc, test_booleans);
    tcase_add_test(tc, test_messages_are_text);
    tcase_add_test(tc, test_null_arguments);
    suite_add_tcase(suite, tc);
    return run_suite(suite);
}
