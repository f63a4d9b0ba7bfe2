/* libFuzzer target: any bytes given to the config.json reader give a model or a status with a
 * message; a model it returns has a valid inventory or says why not. */
#include <stdint.h>
#include <stdlib.h>

#include "llmmem/llmmem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    llmmem_model *m = NULL;
    llmmem_status st = llmmem_model_from_hf_config_text(&m, (const char *)data, size);
    if ((st == LLMMEM_OK) != (m != NULL))
        abort();
    if (st != LLMMEM_OK && llmmem_last_message()[0] == '\0')
        abort();
    if (m) {
        uint64_t total = 0, active = 0;
        if (llmmem_model_total_parameters(&total, m) == LLMMEM_OK &&
            (llmmem_model_active_parameters(&active, m) != LLMMEM_OK || active > total))
            abort();
    }
    llmmem_model_free(m);
    return 0;
}
