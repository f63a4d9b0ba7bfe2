/* libFuzzer target: any bytes given to the GGUF header reader give a checkpoint or a status with
 * a message, never a crash, a hang, a leak or undefined behaviour. A checkpoint's sums agree
 * (tensors, dtypes, roles, groups), its getters stay in range, and its model, when it has one, has
 * a valid inventory, cross-checks as OK or INCOMPATIBLE, and estimates with the file's bytes as
 * its weights. The same bytes read from a file through the path API give the same result. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h> /* getpid (POSIX) */

#include "llmmem/llmmem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_failure(llmmem_status st)
{
    if (llmmem_last_message()[0] == '\0' || llmmem_last_status() != st)
        abort();
}

static void check_checkpoint(const llmmem_checkpoint *ck)
{
    size_t n = llmmem_checkpoint_tensor_count(ck);
    uint64_t bytes = 0, elements = 0, dtype_bytes = 0, dtype_elements = 0, role_bytes = 0, group_params = 0;
    for (size_t i = 0; i < n; i++) {
        const char *name = NULL, *dtype = NULL;
        uint64_t e, b;
        llmmem_tensor_role role;
        llmmem_param_group group;
        if (llmmem_checkpoint_tensor(&name, &dtype, &e, &b, &role, &group, ck, i) != LLMMEM_OK || !name || !dtype ||
            !dtype[0] || (unsigned)role > LLMMEM_TENSOR_QUANT_AUX || (size_t)group >= llmmem_param_group_count())
            abort();
        if (strlen(name) > 64) /* docs/gguf.md: tensor names are at most 64 bytes */
            abort();
        bytes += b;
        elements += e;
        if (bytes < b || elements < e)
            abort(); /* the sums fit: the reader checked them */
    }
    if (llmmem_checkpoint_tensor(NULL, NULL, NULL, NULL, NULL, NULL, ck, n) != LLMMEM_ERR_OUT_OF_RANGE)
        abort();
    for (size_t i = 0; i < llmmem_checkpoint_dtype_count(ck); i++) {
        const char *dtype = NULL;
        uint64_t e, b;
        if (llmmem_checkpoint_dtype(&dtype, &e, &b, ck, i) != LLMMEM_OK || !dtype)
            abort();
        dtype_bytes += b;
        dtype_elements += e;
    }
    for (int r = 0; r <= LLMMEM_TENSOR_QUANT_AUX; r++)
        role_bytes += llmmem_checkpoint_role_bytes(ck, (llmmem_tensor_role)r);
    for (size_t g = 0; g < llmmem_param_group_count(); g++)
        group_params += llmmem_checkpoint_group_parameters(ck, (llmmem_param_group)g);
    if (bytes != llmmem_checkpoint_total_bytes(ck) || dtype_bytes != bytes || dtype_elements != elements ||
        role_bytes != bytes || group_params != llmmem_checkpoint_role_elements(ck, LLMMEM_TENSOR_PARAMETER))
        abort();
}

/* The model, when there is one: valid, cross-checked, and estimated with the file's bytes. */
static llmmem_status check_model(const llmmem_checkpoint *ck)
{
    llmmem_model *m = (llmmem_model *)&m;
    llmmem_status st = llmmem_checkpoint_model(&m, ck);
    if (st != LLMMEM_OK) {
        if (m != NULL)
            abort();
        check_failure(st);
        return st;
    }
    uint64_t total;
    if (!m || llmmem_model_total_parameters(&total, m) != LLMMEM_OK)
        abort();
    llmmem_status v = llmmem_checkpoint_verify(ck, m);
    if (v != LLMMEM_OK && v != LLMMEM_ERR_INCOMPATIBLE)
        abort();
    if (llmmem_model_use_checkpoint(m, ck) != LLMMEM_OK)
        abort();
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_report *r = NULL;
    if (llmmem_hardware_from_preset(&hw, "h100-sxm-80gb") || llmmem_strategy_new(&s) || llmmem_report_new(&r))
        abort();
    llmmem_status e = llmmem_estimate(r, m, hw, s);
    if (e == LLMMEM_OK) {
        uint64_t stored = 0;
        for (size_t g = 0; g < llmmem_param_group_count(); g++)
            stored += llmmem_checkpoint_group_bytes(ck, (llmmem_param_group)g);
        if (llmmem_report_bytes(r, LLMMEM_COMPONENT_WEIGHTS) != stored)
            abort();
    } else {
        check_failure(e);
    }
    llmmem_report_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
    return LLMMEM_OK;
}

/* The path API over the same bytes: the same status, tensors, bytes and model status. */
static void check_file(const uint8_t *data, size_t size, llmmem_status st, const llmmem_checkpoint *ck,
                       llmmem_status model_st)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/llmmem-fuzz-gguf-%ld.gguf", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return; /* no scratch file here: the memory reader alone is checked */
    size_t written = fwrite(data, 1, size, f);
    if (fclose(f) != 0 || written != size) {
        remove(path);
        return;
    }
    llmmem_checkpoint *from_file = NULL;
    llmmem_status fst = llmmem_checkpoint_from_gguf(&from_file, path);
    remove(path);
    /* a file must hold its tensor data; bytes in memory are the start of a file only */
    if (st == LLMMEM_OK && fst == LLMMEM_ERR_PARSE &&
        strstr(llmmem_last_message(), "the tensor data is missing or truncated") && strstr(llmmem_last_message(), path))
        return;
    if (fst != st || (fst == LLMMEM_OK) != (from_file != NULL))
        abort();
    if (from_file) {
        if (llmmem_checkpoint_tensor_count(from_file) != llmmem_checkpoint_tensor_count(ck) ||
            llmmem_checkpoint_total_bytes(from_file) != llmmem_checkpoint_total_bytes(ck))
            abort();
        llmmem_model *m = NULL;
        llmmem_status mst = llmmem_checkpoint_model(&m, from_file);
        llmmem_model_free(m);
        if (mst != model_st)
            abort();
    } else if (!strstr(llmmem_last_message(), path)) {
        abort(); /* the message names the file */
    }
    llmmem_checkpoint_free(from_file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint8_t empty[1];
    if (!data)
        data = empty;
    llmmem_checkpoint *ck = (llmmem_checkpoint *)&ck;
    llmmem_status st = llmmem_checkpoint_from_gguf_bytes(&ck, data, size);
    if ((st == LLMMEM_OK) != (ck != NULL))
        abort();
    llmmem_status model_st = LLMMEM_OK;
    if (st != LLMMEM_OK) {
        check_failure(st);
        if (!strstr(llmmem_last_message(), "<memory>"))
            abort();
    } else {
        check_checkpoint(ck);
        model_st = check_model(ck);
        if (check_model(ck) != model_st) /* the same answer twice */
            abort();
    }
    /* the stdio path for a share of the inputs (a file write per input is slow) */
    if (size % 4 == 0)
        check_file(data, size, st, ck, model_st);
    llmmem_checkpoint_free(ck);
    return 0;
}
