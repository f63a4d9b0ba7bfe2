/* libFuzzer target: the number parser behind every key's text form. The first byte picks a key
 * (every key of the model, hardware and strategy), the rest is the text. Any text gives OK or a
 * status with a printable message that names the key; a value accepted is within the key's bounds
 * and reads back as set; llmmem_parse_int agrees with the integer keys on what is a number, and
 * its value prints and parses back to itself. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llmmem/llmmem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void printable_or_abort(const char *message)
{
    for (const unsigned char *p = (const unsigned char *)message; *p; p++)
        if (*p < 0x20 || *p == 0x7F)
            abort();
}

static llmmem_status set_text(llmmem_object object, llmmem_model *m, llmmem_hardware *hw, llmmem_strategy *s,
                              const char *name, const char *text)
{
    switch (object) {
    case LLMMEM_OBJECT_MODEL: return llmmem_model_set_text(m, name, text);
    case LLMMEM_OBJECT_HARDWARE: return llmmem_hardware_set_text(hw, name, text);
    default: return llmmem_strategy_set_text(s, name, text);
    }
}

static llmmem_status get_int(int64_t *v, llmmem_object object, const llmmem_model *m, const llmmem_hardware *hw,
                             const llmmem_strategy *s, llmmem_key key)
{
    switch (object) {
    case LLMMEM_OBJECT_MODEL: return llmmem_model_get_int(v, m, key);
    case LLMMEM_OBJECT_HARDWARE: return llmmem_hardware_get_int(v, hw, key);
    default: return llmmem_strategy_get_int(v, s, key);
    }
}

static llmmem_status get_real(double *v, llmmem_object object, const llmmem_model *m, const llmmem_hardware *hw,
                              const llmmem_strategy *s, llmmem_key key)
{
    (void)m; /* no model key is real */
    if (object == LLMMEM_OBJECT_HARDWARE)
        return llmmem_hardware_get_real(v, hw, key);
    return llmmem_strategy_get_real(v, s, key);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    llmmem_key key = llmmem_key_at(data[0] % llmmem_key_count());
    char *text = malloc(size);
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0'; /* stops at the first NUL, as a C string does */

    llmmem_object object;
    llmmem_value_type type;
    if (llmmem_key_object(&object, key) != LLMMEM_OK || llmmem_key_type(&type, key) != LLMMEM_OK)
        abort();
    llmmem_model *m = NULL;
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    if (llmmem_model_new(&m) || llmmem_hardware_new(&hw) || llmmem_strategy_new(&s))
        abort();
    const char *name = llmmem_key_name(key);
    llmmem_status st = set_text(object, m, hw, s, name, text);
    if (st != LLMMEM_OK) {
        printable_or_abort(llmmem_last_message());
        if (strstr(llmmem_last_message(), name) == NULL)
            abort();
    } else if (type == LLMMEM_TYPE_REAL) {
        double v, lo, hi;
        if (get_real(&v, object, m, hw, s, key) || llmmem_key_bounds_real(&lo, &hi, key) || !(v >= lo && v <= hi))
            abort();
    } else {
        int64_t v, lo, hi;
        if (get_int(&v, object, m, hw, s, key) || llmmem_key_bounds(&lo, &hi, key) || v < lo || v > hi)
            abort();
    }

    /* the public parser: a value prints and reads back as itself; an integer key accepts exactly the
     * texts whose value is within its bounds */
    int64_t n;
    llmmem_status pst = llmmem_parse_int(&n, text);
    if (pst == LLMMEM_OK) {
        char again[32];
        int64_t n2;
        snprintf(again, sizeof again, "%" PRId64, n);
        if (llmmem_parse_int(&n2, again) != LLMMEM_OK || n2 != n)
            abort();
        if (type == LLMMEM_TYPE_INT) {
            int64_t lo, hi;
            if (llmmem_key_bounds(&lo, &hi, key) || (st == LLMMEM_OK) != (n >= lo && n <= hi))
                abort();
        }
    } else {
        printable_or_abort(llmmem_last_message());
        if (pst != LLMMEM_ERR_INVALID_ARGUMENT && pst != LLMMEM_ERR_OUT_OF_RANGE)
            abort();
        if (type == LLMMEM_TYPE_INT && st == LLMMEM_OK)
            abort();
    }
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
    free(text);
    return 0;
}
