/* libFuzzer target: any bytes given to the config.json reader give a model or a status with a
 * message naming "<memory>", never a crash, a hang, a leak or undefined behaviour; a model it
 * returns has a valid inventory (the reader checks it), whose active parameters do not exceed
 * the total, and reading the same bytes again gives the same model. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llmmem/llmmem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    llmmem_model *m = (llmmem_model *)&m; /* must come back NULL on failure */
    llmmem_status st = llmmem_model_from_hf_config_text(&m, (const char *)data, size);
    if (st != LLMMEM_OK) {
        if (m != NULL || strncmp(llmmem_last_message(), "<memory>: ", 10) != 0)
            abort();
        switch (st) {
        case LLMMEM_ERR_PARSE:
        case LLMMEM_ERR_UNSUPPORTED:
        case LLMMEM_ERR_INCOMPLETE:
        case LLMMEM_ERR_OUT_OF_RANGE:
        case LLMMEM_ERR_INCOMPATIBLE:
        case LLMMEM_ERR_OVERFLOW:
        case LLMMEM_ERR_NO_MEMORY: return 0;
        default: abort();
        }
    }
    if (m == NULL)
        abort();
    uint64_t total = 0, active = 0, again = 0;
    if (llmmem_model_total_parameters(&total, m) != LLMMEM_OK ||
        llmmem_model_active_parameters(&active, m) != LLMMEM_OK || active > total)
        abort();
    llmmem_model *m2 = NULL;
    if (llmmem_model_from_hf_config_text(&m2, (const char *)data, size) != LLMMEM_OK ||
        llmmem_model_total_parameters(&again, m2) != LLMMEM_OK || again != total)
        abort();
    llmmem_model_free(m2);
    llmmem_model_free(m);
    return 0;
}
