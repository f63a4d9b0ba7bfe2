/* The strategy handle: what runs on the hardware and how the weights are stored. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "base/number.h"

#include "base/internal.h"

#define ST LLMMEM_OBJECT_STRATEGY

llmmem_status llmmem_strategy_new(llmmem_strategy **out)
{
    LLMMEM_REQUIRE(out);
    *out = calloc(1, sizeof **out);
    if (!*out)
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "strategy_new: out of memory");
    llmmem__settings_init(&(*out)->s, ST);
    return LLMMEM_OK;
}

llmmem_status llmmem_strategy_clone(llmmem_strategy **out, const llmmem_strategy *s)
{
    LLMMEM_REQUIRE(out);
    *out = NULL;
    LLMMEM_REQUIRE(s);
    *out = llmmem__duplicate(s, sizeof *s);
    return *out ? LLMMEM_OK : LLMMEM_ERR_NO_MEMORY;
}

void llmmem_strategy_free(llmmem_strategy *s)
{
    free(s);
}

llmmem_status llmmem_strategy_set_int(llmmem_strategy *s, llmmem_key key, int64_t value)
{
    LLMMEM_REQUIRE(s);
    return llmmem__settings_set_int(&s->s, ST, key, value);
}

llmmem_status llmmem_strategy_get_int(int64_t *value_out, const llmmem_strategy *s, llmmem_key key)
{
    LLMMEM_REQUIRE(value_out);
    LLMMEM_REQUIRE(s);
    return llmmem__settings_get_int(value_out, &s->s, ST, key);
}

llmmem_status llmmem_strategy_set_real(llmmem_strategy *s, llmmem_key key, double value)
{
    LLMMEM_REQUIRE(s);
    return llmmem__settings_set_real(&s->s, ST, key, value);
}

llmmem_status llmmem_strategy_get_real(double *value_out, const llmmem_strategy *s, llmmem_key key)
{
    LLMMEM_REQUIRE(value_out);
    LLMMEM_REQUIRE(s);
    return llmmem__settings_get_real(value_out, &s->s, ST, key);
}

/* The list key's values, checked as a whole before any is kept: llama.cpp normalises tensor_split
 * by its sum (llama-model.cpp load_tensors), so each must be finite and not negative, one positive.
 * llama.cpp holds each as a float (common/arg.cpp -ts: std::stof, which refuses a value that
 * underflows, a subnormal included), and the split points are computed from the same floats
 * (llamacpp.c split_points): each value is checked as that float. */
static llmmem_status store_list(llmmem_strategy *s, const llmmem__key_info *k, const double *values, size_t count)
{
    if (count > LLMMEM__LIST_MAX)
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "%s has %zu values; at most %d are kept (llama.cpp's "
                            "LLAMA_MAX_DEVICES)", k->name, count, LLMMEM__LIST_MAX);
    int positive = count == 0;
    for (size_t i = 0; i < count; i++) {
        if (!(values[i] >= 0.0) || values[i] > 1e15)
            return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "%s: value %zu (%g) is not a finite number from 0 to "
                                "1e15", k->name, i + 1, values[i]);
        if (values[i] > 0.0 && !((float)values[i] >= FLT_MIN))
            return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "%s: value %zu (%g) is neither 0 nor a float of at least "
                                "%g (llama.cpp reads each value as a float, with std::stof, and refuses it)",
                                k->name, i + 1, values[i], (double)FLT_MIN);
        positive |= values[i] > 0.0;
    }
    if (!positive)
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "%s: every value is 0; at least one must be positive", k->name);
    for (size_t i = 0; i < LLMMEM__LIST_MAX; i++)
        s->tensor_split[i] = i < count ? values[i] : 0.0;
    unsigned slot = llmmem__slot(k->key);
    s->s.ival[slot] = (int64_t)count;
    if (count)
        s->s.is_set[slot / 64] |= 1ULL << (slot % 64);
    else
        s->s.is_set[slot / 64] &= ~(1ULL << (slot % 64));
    s->s.id = llmmem__settings_next_id();
    return LLMMEM_OK;
}

static llmmem_status list_key(const llmmem__key_info **out, llmmem_key key)
{
    const llmmem__key_info *k = llmmem__key_info_get(key);
    if (!k || k->object != ST || k->type != LLMMEM_TYPE_LIST)
        return llmmem__fail(LLMMEM_ERR_UNKNOWN_KEY, "key %d is not a strategy list key (tensor_split is)", (int)key);
    *out = k;
    return LLMMEM_OK;
}

llmmem_status llmmem_strategy_set_list(llmmem_strategy *s, llmmem_key key, const double *values, size_t count)
{
    LLMMEM_REQUIRE(s);
    if (count)
        LLMMEM_REQUIRE(values);
    const llmmem__key_info *k = NULL;
    llmmem_status st = list_key(&k, key);
    return st ? st : store_list(s, k, values, count);
}

llmmem_status llmmem_strategy_get_list(double *values_out, size_t capacity, size_t *count_out,
                                       const llmmem_strategy *s, llmmem_key key)
{
    LLMMEM_REQUIRE(count_out);
    LLMMEM_REQUIRE(s);
    if (capacity)
        LLMMEM_REQUIRE(values_out);
    const llmmem__key_info *k = NULL;
    llmmem_status st = list_key(&k, key);
    if (st)
        return st;
    size_t n = (size_t)llmmem__get_int(&s->s, key);
    for (size_t i = 0; i < n && i < capacity; i++)
        values_out[i] = s->tensor_split[i];
    *count_out = n;
    return LLMMEM_OK;
}

/* "3,1" or "0.6,0.4" (llama.cpp -ts takes commas or slashes); "" clears the list. */
static llmmem_status parse_list(llmmem_strategy *s, const llmmem__key_info *k, const char *text)
{
    double values[LLMMEM__LIST_MAX];
    size_t n = 0;
    const char *p = text;
    while (*p) {
        char item[LLMMEM_NUMBER_MAX_LEN + 2];
        size_t len = strcspn(p, ",/");
        if (n == LLMMEM__LIST_MAX)
            return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "%s: '%.64s' has more than %d values", k->name, text,
                                LLMMEM__LIST_MAX);
        if (len == 0 || len > LLMMEM_NUMBER_MAX_LEN)
            return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "%s: '%.64s' is not a list of numbers such as 3,1",
                                k->name, text);
        memcpy(item, p, len);
        item[len] = '\0';
        if (llmmem__parse_real(&values[n], item) != LLMMEM__NUMBER_OK)
            return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "%s: '%s' in '%.64s' is not a number", k->name, item,
                                text);
        n++;
        p += len;
        if (*p && !*++p)
            return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "%s: '%.64s' ends with a separator", k->name, text);
    }
    return store_list(s, k, values, n);
}

llmmem_status llmmem_strategy_set_text(llmmem_strategy *s, const char *key_name, const char *value)
{
    LLMMEM_REQUIRE(s);
    LLMMEM_REQUIRE(key_name);
    LLMMEM_REQUIRE(value);
    llmmem_key key;
    if (llmmem_key_from_name(&key, key_name) == LLMMEM_OK) {
        const llmmem__key_info *k = llmmem__key_info_get(key);
        if (k->object == ST && k->type == LLMMEM_TYPE_LIST)
            return parse_list(s, k, value);
    }
    return llmmem__settings_set_text(&s->s, ST, key_name, value, NULL);
}
