/* The strategy handle: what runs on the hardware and how the weights are stored. */
#include <stdlib.h>

#include "internal.h"

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
    LLMMEM_REQUIRE(s);
    return llmmem__settings_get_real(value_out, &s->s, ST, key);
}

llmmem_status llmmem_strategy_set_text(llmmem_strategy *s, const char *key_name, const char *value)
{
    LLMMEM_REQUIRE(s);
    LLMMEM_REQUIRE(key_name);
    LLMMEM_REQUIRE(value);
    return llmmem__settings_set_text(&s->s, ST, key_name, value, NULL);
}
