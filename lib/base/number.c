/* The library's one number parser. Integers are read exactly (no double in between) and reals are
 * converted in the "C" locale, so a host that called setlocale() reads "0.5" as every other host
 * does. Work is bounded by LLMMEM_NUMBER_MAX_LEN whatever the text. */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "base/number.h"

__extension__ typedef unsigned __int128 u128;

/* A decimal read as d * 10^e with d's trailing zeros moved into e. */
typedef struct decimal {
    int negative;
    int nonzero;      /* a digit other than 0 was seen */
    int digits;       /* significant digits in d (counted on beyond 19; d then holds the first 19) */
    uint64_t d;
    int64_t e;
    const char *end;  /* first character after the number */
} decimal;

#define EXPONENT_CAP 1000000 /* larger exponents read as this: the value is out of range or 0 anyway */

static int is_digit(char c)
{
    return c >= '0' && c <= '9'; /* not isdigit(): that one follows the locale */
}

static void push_digit(decimal *x, unsigned digit)
{
    if (x->digits < 19)
        x->d = x->d * 10 + digit;
    x->digits++;
}

/* [+-] digits [. digits] [(e|E) [+-] digits]; 0 when there is no mantissa digit. */
static int scan_decimal(decimal *x, const char *text)
{
    const char *p = text;
    int64_t pending_zeros = 0; /* zeros after a significant digit, kept back in case they trail */
    int any = 0, fraction = 0;
    memset(x, 0, sizeof *x);
    if (*p == '+' || *p == '-')
        x->negative = *p++ == '-';
    for (;; p++) {
        if (*p == '.' && !fraction) {
            fraction = 1;
            continue;
        }
        if (!is_digit(*p))
            break;
        any = 1;
        x->e -= fraction;
        if (*p == '0') {
            pending_zeros += x->nonzero;
            continue;
        }
        for (; pending_zeros > 0; pending_zeros--)
            push_digit(x, 0);
        push_digit(x, (unsigned)(*p - '0'));
        x->nonzero = 1;
    }
    if (!any)
        return 0;
    x->e += pending_zeros;
    int exp_sign = 1;
    const char *q = p + 1;
    if ((*p == 'e' || *p == 'E') && (*q == '+' || *q == '-'))
        exp_sign = *q++ == '-' ? -1 : 1;
    if ((*p == 'e' || *p == 'E') && is_digit(*q)) {
        int64_t exponent = 0;
        for (; is_digit(*q); q++)
            if (exponent < EXPONENT_CAP)
                exponent = exponent * 10 + (*q - '0');
        x->e += exp_sign * exponent;
        p = q;
    }
    x->end = p;
    return 1;
}

static int too_long(const char *text)
{
    return strnlen(text, LLMMEM_NUMBER_MAX_LEN + 1) > LLMMEM_NUMBER_MAX_LEN;
}

/* Unit suffixes after an integer: decimal (GB) and binary (GiB). A bare E would read as an
 * exponent, so exa is EB or EiB only. */
static const struct {
    const char *suffix;
    uint64_t factor;
} units[] = {
    {"K", 1000ULL},
    {"M", 1000000ULL},
    {"G", 1000000000ULL},
    {"T", 1000000000000ULL},
    {"P", 1000000000000000ULL},
    {"KB", 1000ULL},
    {"MB", 1000000ULL},
    {"GB", 1000000000ULL},
    {"TB", 1000000000000ULL},
    {"PB", 1000000000000000ULL},
    {"EB", 1000000000000000000ULL},
    {"KiB", 1ULL << 10},
    {"MiB", 1ULL << 20},
    {"GiB", 1ULL << 30},
    {"TiB", 1ULL << 40},
    {"PiB", 1ULL << 50},
    {"EiB", 1ULL << 60},
};

static int unit_factor(uint64_t *factor, const char *suffix)
{
    *factor = 1;
    if (*suffix == '\0')
        return 1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(suffix, units[i].suffix) == 0) {
            *factor = units[i].factor;
            return 1;
        }
    }
    return 0;
}

llmmem__number_result llmmem__parse_int(int64_t *out, const char *text)
{
    decimal x;
    uint64_t factor;
    if (too_long(text))
        return LLMMEM__NUMBER_TOO_LONG;
    if (!scan_decimal(&x, text) || !unit_factor(&factor, x.end))
        return LLMMEM__NUMBER_MALFORMED;
    if (!x.nonzero) {
        *out = 0;
        return LLMMEM__NUMBER_OK;
    }
    /* More than 19 significant digits: the integer part alone has more than 19 digits (beyond
     * int64), or the text asks for more precision than any int64 needs. */
    if (x.digits > 19)
        return x.digits + x.e > 19 ? LLMMEM__NUMBER_OUT_OF_RANGE : LLMMEM__NUMBER_NOT_WHOLE;
    const u128 limit = (u128)1 << 63; /* |INT64_MIN| */
    u128 v = (u128)x.d * factor;      /* < 10^19 * 2^60 < 2^124 */
    if (x.e >= 0) {
        for (int64_t i = 0; i < x.e && v <= limit; i++)
            v *= 10;
    } else {
        if (x.e < -38) /* 10^39 > 2^124 > v > 0: no whole quotient */
            return LLMMEM__NUMBER_NOT_WHOLE;
        for (int64_t i = 0; i < -x.e; i++) {
            if (v % 10)
                return LLMMEM__NUMBER_NOT_WHOLE;
            v /= 10;
        }
    }
    if (v > limit || (v == limit && !x.negative))
        return LLMMEM__NUMBER_OUT_OF_RANGE;
    if (v == limit)
        *out = INT64_MIN;
    else
        *out = x.negative ? -(int64_t)v : (int64_t)v;
    return LLMMEM__NUMBER_OK;
}

llmmem__number_result llmmem__parse_real(double *out, const char *text)
{
    decimal x;
    if (too_long(text))
        return LLMMEM__NUMBER_TOO_LONG;
    if (!scan_decimal(&x, text) || *x.end != '\0')
        return LLMMEM__NUMBER_MALFORMED;
    /* The text is plain ASCII decimal by now; strtod reads it in the "C" locale of this thread only
     * (uselocale, POSIX.1-2008), the host's own locale untouched. */
    locale_t c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (c_locale == (locale_t)0)
        return LLMMEM__NUMBER_MALFORMED;
    locale_t previous = uselocale(c_locale);
    errno = 0;
    char *end;
    double v = strtod(text, &end);
    int range_error = errno == ERANGE;
    uselocale(previous);
    freelocale(c_locale);
    if (end != x.end)
        return LLMMEM__NUMBER_MALFORMED;
    if (range_error && isinf(v))
        return LLMMEM__NUMBER_OUT_OF_RANGE;
    *out = v; /* an underflow is the nearest subnormal or zero, as strtod rounds it */
    return LLMMEM__NUMBER_OK;
}

llmmem_status llmmem_parse_int(int64_t *value_out, const char *text)
{
    LLMMEM_REQUIRE(value_out);
    LLMMEM_REQUIRE(text);
    switch (llmmem__parse_int(value_out, text)) {
    case LLMMEM__NUMBER_OK:
        return LLMMEM_OK;
    case LLMMEM__NUMBER_OUT_OF_RANGE:
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "'%.64s' is out of range [%lld, %lld]", text,
                            (long long)INT64_MIN, (long long)INT64_MAX);
    case LLMMEM__NUMBER_TOO_LONG:
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "'%.32s...' is too long for a number (at most %d "
                            "characters)", text, LLMMEM_NUMBER_MAX_LEN);
    case LLMMEM__NUMBER_NOT_WHOLE:
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "'%.64s' is not a whole number", text);
    default:
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "'%.64s' is not a number (" LLMMEM_NUMBER_GRAMMAR ")",
                            text);
    }
}
