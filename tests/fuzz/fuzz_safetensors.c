/* libFuzzer target: any bytes given to llmmem_checkpoint_from_safetensors_bytes give a status,
 * never a crash, a hang, a leak or undefined behaviour. A failure leaves no checkpoint and a
 * message naming "<memory>"; a checkpoint read is self-consistent: role bytes and dtype bytes sum
 * to the total, group sums to their role sums, every tensor's bytes match its dtype and element
 * count, and verify() against a model answers OK or INCOMPATIBLE. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llmmem/llmmem.h"
/* The checkpoint API; moves into llmmem/llmmem.h at merge. */

/* Bits per element of the safetensors dtypes, kept apart from the library's table. */
static unsigned dtype_bits(const char *dtype)
{
    static const struct {
        const char *name;
        unsigned bits;
    } table[] = {{"BOOL", 8},   {"F4", 4},           {"F6_E2M3", 6},      {"F6_E3M2", 6},  {"U8", 8},
                 {"I8", 8},     {"F8_E5M2", 8},      {"F8_E4M3", 8},      {"F8_E8M0", 8},  {"F8_E4M3FNUZ", 8},
                 {"F8_E5M2FNUZ", 8}, {"I16", 16},    {"U16", 16},         {"F16", 16},     {"BF16", 16},
                 {"I32", 32},   {"U32", 32},         {"F32", 32},         {"C64", 64},     {"F64", 64},
                 {"I64", 64},   {"U64", 64}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].name, dtype) == 0)
            return table[i].bits;
    return 0;
}

static void check_checkpoint(const llmmem_checkpoint *ck, const llmmem_model *model)
{
    enum { ROLES = 4 };
    uint64_t role_bytes[ROLES] = {0}, role_elements[ROLES] = {0}, all_bytes = 0, all_elements = 0;
    size_t n = llmmem_checkpoint_tensor_count(ck);
    for (size_t i = 0; i < n; i++) {
        const char *name = NULL, *dtype = NULL;
        uint64_t elements = 0, bytes = 0;
        llmmem_tensor_role role;
        llmmem_param_group group;
        if (llmmem_checkpoint_tensor(&name, &dtype, &elements, &bytes, &role, &group, ck, i) != LLMMEM_OK)
            abort();
        if (!name || !dtype || (unsigned)role >= ROLES || (size_t)group >= llmmem_param_group_count())
            abort();
        unsigned bits = dtype_bits(dtype);
        /* elements * bits fits 64 bits for every tensor read, and is whole bytes */
        if (bits == 0 || (elements != 0 && UINT64_MAX / elements < bits) || elements * bits % 8 != 0 ||
            elements * bits / 8 != bytes)
            abort();
        /* no tied head from bytes: nothing says the head is tied */
        if (role == LLMMEM_TENSOR_DUPLICATE)
            abort();
        role_bytes[role] += bytes;
        role_elements[role] += elements;
        all_bytes += bytes;
        all_elements += elements; /* may wrap; compared modulo 2^64 below */
    }
    if (llmmem_checkpoint_tensor(NULL, NULL, NULL, NULL, NULL, NULL, ck, n) != LLMMEM_ERR_OUT_OF_RANGE)
        abort();

    if (all_bytes != llmmem_checkpoint_total_bytes(ck))
        abort();
    uint64_t sum = 0;
    for (int r = 0; r < ROLES; r++) {
        if (role_bytes[r] != llmmem_checkpoint_role_bytes(ck, (llmmem_tensor_role)r))
            abort();
        sum += llmmem_checkpoint_role_bytes(ck, (llmmem_tensor_role)r);
    }
    if (sum != llmmem_checkpoint_total_bytes(ck))
        abort();
    /* buffers and quantization data count stored elements; parameters count packed weights
     * unpacked, so never fewer */
    if (role_elements[LLMMEM_TENSOR_BUFFER] != llmmem_checkpoint_role_elements(ck, LLMMEM_TENSOR_BUFFER) ||
        role_elements[LLMMEM_TENSOR_QUANT_AUX] != llmmem_checkpoint_role_elements(ck, LLMMEM_TENSOR_QUANT_AUX) ||
        llmmem_checkpoint_role_elements(ck, LLMMEM_TENSOR_DUPLICATE) != 0)
        abort();

    uint64_t group_parameters = 0, group_bytes = 0;
    for (size_t g = 0; g < llmmem_param_group_count(); g++) {
        group_parameters += llmmem_checkpoint_group_parameters(ck, (llmmem_param_group)g);
        group_bytes += llmmem_checkpoint_group_bytes(ck, (llmmem_param_group)g);
    }
    if (group_parameters != llmmem_checkpoint_role_elements(ck, LLMMEM_TENSOR_PARAMETER) ||
        group_bytes != role_bytes[LLMMEM_TENSOR_PARAMETER] + role_bytes[LLMMEM_TENSOR_QUANT_AUX])
        abort();
    if (llmmem_checkpoint_group_parameters(ck, (llmmem_param_group)99) != 0 ||
        llmmem_checkpoint_role_bytes(ck, (llmmem_tensor_role)99) != 0)
        abort();

    uint64_t dtype_bytes = 0, dtype_elements = 0;
    size_t nd = llmmem_checkpoint_dtype_count(ck);
    if ((n == 0) != (nd == 0) || nd > n)
        abort();
    for (size_t d = 0; d < nd; d++) {
        const char *dtype = NULL;
        uint64_t e = 0, b = 0;
        if (llmmem_checkpoint_dtype(&dtype, &e, &b, ck, d) != LLMMEM_OK || !dtype || dtype_bits(dtype) == 0)
            abort();
        for (size_t k = 0; k < d; k++) {
            const char *other = NULL;
            if (llmmem_checkpoint_dtype(&other, NULL, NULL, ck, k) != LLMMEM_OK || strcmp(other, dtype) == 0)
                abort(); /* each dtype once */
        }
        dtype_bytes += b;
        dtype_elements += e;
    }
    if (llmmem_checkpoint_dtype(NULL, NULL, NULL, ck, nd) != LLMMEM_ERR_OUT_OF_RANGE)
        abort();
    if (dtype_bytes != all_bytes || dtype_elements != all_elements)
        abort();

    llmmem_status st = llmmem_checkpoint_verify(ck, model);
    if (st != LLMMEM_OK && (st != LLMMEM_ERR_INCOMPATIBLE || llmmem_last_message()[0] == '\0'))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    llmmem_checkpoint *ck = (llmmem_checkpoint *)(uintptr_t)1;
    llmmem_status st = llmmem_checkpoint_from_safetensors_bytes(&ck, data, size);
    if (st != LLMMEM_OK) {
        if (ck != NULL || llmmem_last_status() != st || llmmem_last_message()[0] == '\0')
            abort();
        if (st != LLMMEM_ERR_NO_MEMORY && strncmp(llmmem_last_message(), "<memory>: ", 10) != 0)
            abort();
        if (st != LLMMEM_ERR_PARSE && st != LLMMEM_ERR_OVERFLOW && st != LLMMEM_ERR_NO_MEMORY)
            abort();
        return 0;
    }
    if (!ck)
        abort();
    /* a small Llama-shaped model to cross-check against */
    llmmem_model *m = NULL;
    if (llmmem_model_new(&m) != LLMMEM_OK || llmmem_model_set_int(m, LLMMEM_KEY_MODEL_TYPE, LLMMEM_MODEL_LLAMA) ||
        llmmem_model_set_int(m, LLMMEM_KEY_HIDDEN_SIZE, 8) || llmmem_model_set_int(m, LLMMEM_KEY_NUM_HIDDEN_LAYERS, 1) ||
        llmmem_model_set_int(m, LLMMEM_KEY_NUM_ATTENTION_HEADS, 2) ||
        llmmem_model_set_int(m, LLMMEM_KEY_VOCAB_SIZE, 16))
        abort();
    check_checkpoint(ck, m);
    llmmem_model_free(m);
    llmmem_checkpoint_free(ck);
    return 0;
}
