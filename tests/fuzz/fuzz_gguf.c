/* libFuzzer target: any bytes given to the GGUF header reader give a checkpoint or a status with
 * a message; a checkpoint's sums agree and its model, if any, has a valid inventory. */
#include <stdint.h>
#include <stdlib.h>

#include "llmmem/llmmem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    llmmem_checkpoint *ck = NULL;
    llmmem_status st = llmmem_checkpoint_from_gguf_bytes(&ck, data, size);
    if ((st == LLMMEM_OK) != (ck != NULL) || (st != LLMMEM_OK && llmmem_last_message()[0] == '\0'))
        abort();
    if (!ck)
        return 0;
    uint64_t roles = 0;
    for (int r = 0; r < 4; r++)
        roles += llmmem_checkpoint_role_bytes(ck, (llmmem_tensor_role)r);
    if (roles != llmmem_checkpoint_total_bytes(ck))
        abort();
    llmmem_model *m = NULL;
    if (llmmem_checkpoint_model(&m, ck) == LLMMEM_OK) {
        uint64_t n;
        if (llmmem_model_total_parameters(&n, m) != LLMMEM_OK)
            abort();
        llmmem_status v = llmmem_checkpoint_verify(ck, m);
        if (v != LLMMEM_OK && v != LLMMEM_ERR_INCOMPATIBLE)
            abort();
    }
    llmmem_model_free(m);
    llmmem_checkpoint_free(ck);
    return 0;
}
