/* The hardware handle: one kind of device, how many, and what the runtime takes. */
#include <stdlib.h>

#include "base/internal.h"

#define HW LLMMEM_OBJECT_HARDWARE

llmmem_status llmmem_hardware_new(llmmem_hardware **out)
{
    LLMMEM_REQUIRE(out);
    *out = calloc(1, sizeof **out);
    if (!*out)
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "hardware_new: out of memory");
    llmmem__settings_init(&(*out)->s, HW);
    return LLMMEM_OK;
}

llmmem_status llmmem_hardware_from_preset(llmmem_hardware **out, const char *name)
{
    LLMMEM_REQUIRE(out);
    *out = NULL;
    LLMMEM_REQUIRE(name);
    llmmem_hardware *hw;
    llmmem_status st = llmmem_hardware_new(&hw);
    if (st)
        return st;
    st = llmmem__preset_load(&hw->s, hw->name, HW, llmmem__gpu_presets, llmmem__gpu_preset_total, name, "gpu");
    if (st) {
        llmmem_hardware_free(hw);
        return st;
    }
    *out = hw;
    return LLMMEM_OK;
}

llmmem_status llmmem_hardware_clone(llmmem_hardware **out, const llmmem_hardware *hw)
{
    LLMMEM_REQUIRE(out);
    *out = NULL;
    LLMMEM_REQUIRE(hw);
    *out = llmmem__duplicate(hw, sizeof *hw);
    return *out ? LLMMEM_OK : LLMMEM_ERR_NO_MEMORY;
}

void llmmem_hardware_free(llmmem_hardware *hw)
{
    free(hw);
}

llmmem_status llmmem_hardware_set_int(llmmem_hardware *hw, llmmem_key key, int64_t value)
{
    LLMMEM_REQUIRE(hw);
    return llmmem__settings_set_int(&hw->s, HW, key, value);
}

llmmem_status llmmem_hardware_get_int(int64_t *value_out, const llmmem_hardware *hw, llmmem_key key)
{
    LLMMEM_REQUIRE(value_out);
    LLMMEM_REQUIRE(hw);
    return llmmem__settings_get_int(value_out, &hw->s, HW, key);
}

llmmem_status llmmem_hardware_set_real(llmmem_hardware *hw, llmmem_key key, double value)
{
    LLMMEM_REQUIRE(hw);
    return llmmem__settings_set_real(&hw->s, HW, key, value);
}

llmmem_status llmmem_hardware_get_real(double *value_out, const llmmem_hardware *hw, llmmem_key key)
{
    LLMMEM_REQUIRE(value_out);
    LLMMEM_REQUIRE(hw);
    return llmmem__settings_get_real(value_out, &hw->s, HW, key);
}

llmmem_status llmmem_hardware_set_text(llmmem_hardware *hw, const char *key_name, const char *value)
{
    LLMMEM_REQUIRE(hw);
    LLMMEM_REQUIRE(key_name);
    LLMMEM_REQUIRE(value);
    return llmmem__settings_set_text(&hw->s, HW, key_name, value, NULL);
}

const char *llmmem_hardware_name(const llmmem_hardware *hw)
{
    return hw ? hw->name : "";
}

size_t llmmem_hardware_preset_count(void)
{
    return llmmem__gpu_preset_total;
}

const char *llmmem_hardware_preset_name(size_t index)
{
    return index < llmmem__gpu_preset_total ? llmmem__gpu_presets[index].name : NULL;
}

