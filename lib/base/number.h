/* The library's one number parser: the same text gives the same value in every host and locale. */
#ifndef LLMMEM_NUMBER_H
#define LLMMEM_NUMBER_H

#include <stdint.h>

/* The grammar of an integer, for messages. */
#define LLMMEM_NUMBER_GRAMMAR                                                                       \
    "digits, optional fraction and exponent such as 1.5e9, optional unit K/M/G/T/P, "             \
    "KB/MB/GB/TB/PB/EB or KiB/MiB/GiB/TiB/PiB/EiB"

/* Longest numeric text accepted; longer texts are refused before they are scanned further. */
#define LLMMEM_NUMBER_MAX_LEN 256

typedef enum llmmem__number_result {
    LLMMEM__NUMBER_OK = 0,
    LLMMEM__NUMBER_MALFORMED,    /* not of the grammar below */
    LLMMEM__NUMBER_NOT_WHOLE,    /* an integer was asked for and the value has a fraction */
    LLMMEM__NUMBER_OUT_OF_RANGE, /* well formed, but beyond int64 (integers) or double (reals) */
    LLMMEM__NUMBER_TOO_LONG      /* more than LLMMEM_NUMBER_MAX_LEN characters */
} llmmem__number_result;

/* An exact integer: [+-] digits [. digits] [(e|E) [+-] digits] [unit], where the unit is one of
 * K M G T P (powers of 1000), KB MB GB TB PB EB (the same) or KiB MiB GiB TiB PiB EiB (powers
 * of 1024). ASCII only, no spaces. "1.5e9", "80GiB" and "0.5KiB" are whole; "1.5" is not. */
llmmem__number_result llmmem__parse_int(int64_t *out, const char *text);

/* A finite real: [+-] digits [. digits] [(e|E) [+-] digits], '.' as the decimal point whatever
 * the locale; no "inf", "nan", hexadecimal or spaces. An underflow to a subnormal or to zero is
 * a value, not an error. */
llmmem__number_result llmmem__parse_real(double *out, const char *text);

#endif
