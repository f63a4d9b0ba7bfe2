/* Composing a report: the memory of the most loaded device. */
#include <string.h>

#include "internal.h"

static void copy_name(char *dst, const char *src)
{
    size_t n = strlen(src);
    if (n >= LLMMEM_NAME_MAX)
        n = LLMMEM_NAME_MAX - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

llmmem_status llmmem_estimate(llmmem_report *out, const llmmem_model *model, const llmmem_hardware *hw,
                              const llmmem_strategy *strategy)
{
    LLMMEM_REQUIRE(out);
    memset(out, 0, sizeof *out);
    LLMMEM_REQUIRE(model);
    LLMMEM_REQUIRE(hw);
    LLMMEM_REQUIRE(strategy);
    llmmem_status st = llmmem__model_check(model);
    if (st)
        return st;
    uint64_t memory = (uint64_t)llmmem__get_int(&hw->s, LLMMEM_KEY_MEMORY_BYTES);
    if (memory == 0)
        return llmmem__fail(LLMMEM_ERR_INCOMPLETE, "hardware: memory_bytes is not set");
    int64_t mode = llmmem__get_int(&strategy->s, LLMMEM_KEY_MODE);
    if (mode != LLMMEM_MODE_INFERENCE)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "mode %s is not estimated by this version",
                            llmmem_choice_name(LLMMEM_KEY_MODE, mode));

    llmmem_report r;
    memset(&r, 0, sizeof r);
    st = llmmem__weight_bytes(&r.bytes[LLMMEM_COMPONENT_WEIGHTS], model, strategy);
    if (st)
        return st;
    r.bytes[LLMMEM_COMPONENT_RUNTIME_OVERHEAD] = (uint64_t)llmmem__get_int(&hw->s, LLMMEM_KEY_RUNTIME_OVERHEAD_BYTES);

    for (unsigned c = 0; c < LLMMEM_COMPONENTS; c++)
        if (!llmmem__add(&r.total, r.total, r.bytes[c]))
            return llmmem__fail(LLMMEM_ERR_OVERFLOW, "total bytes exceed 64 bits");

    /* The allocator reserve is a fraction of the device: rounded down to a whole byte. */
    double reserve = llmmem__get_real(&hw->s, LLMMEM_KEY_ALLOCATOR_RESERVE_FRACTION);
    r.memory_bytes = memory;
    r.capacity = memory - (uint64_t)((long double)memory * (long double)reserve);

    memcpy(r.params, model->inv.params, sizeof r.params);
    r.params_total = model->inv.total;
    r.params_active = model->inv.active;
    r.weights_from_checkpoint = llmmem__weights_from_checkpoint(model, strategy);
    copy_name(r.model_name, model->name);
    copy_name(r.hardware_name, hw->name);
    r.valid = 1;
    *out = r;
    return LLMMEM_OK;
}
