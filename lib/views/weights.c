/* Weight bytes: each tensor class of the inventory in the format the weight plan gives it (job.c). */
#include "views/weights.h"

/* A checkpoint's stored bytes (parameters and their quantization data, per group), exact for
 * mixed-type files such as GGUF Q4_K_M, used while the strategy keeps the checkpoint's format. */
static llmmem_status checkpoint_bytes(uint64_t *bytes_out, const llmmem_model *m)
{
    uint64_t total = 0;
    for (unsigned g = 0; g < LLMMEM_PARAM_GROUPS; g++)
        if (!llmmem__add(&total, total, m->checkpoint_bytes[g]))
            return llmmem__fail(LLMMEM_ERR_OVERFLOW, "checkpoint bytes exceed 64 bits");
    *bytes_out = total;
    return LLMMEM_OK;
}

llmmem__view llmmem__whole_model(const llmmem_model *m)
{
    llmmem__view v = {&m->inv, 0, m->geo.layers};
    return v;
}

llmmem_status llmmem__view_weight_bytes(uint64_t *bytes_out, const llmmem__view *v, const llmmem__weight_plan *plan)
{
    uint64_t total = 0;
    for (unsigned i = 0; i < v->inv->n; i++) {
        const llmmem__tensor_class *t = &v->inv->t[i];
        if (t->count == 0)
            continue;
        llmmem_format f = llmmem__weight_plan_format(plan, t);
        uint64_t one;
        if (!llmmem__format_bytes(&one, f, t->rows, t->cols, plan->group, plan->double_quant))
            return llmmem__fail(LLMMEM_ERR_OVERFLOW, "bytes of %s (%llu x %llu in %s) exceed 64 bits", t->name,
                                (unsigned long long)t->rows, (unsigned long long)t->cols,
                                llmmem__format_name(f));
        if (!llmmem__muladd(&total, one, t->count))
            return llmmem__fail(LLMMEM_ERR_OVERFLOW, "weight bytes of %s (%llu tensors) exceed 64 bits", t->name,
                                (unsigned long long)t->count);
    }
    *bytes_out = total;
    return LLMMEM_OK;
}

llmmem_status llmmem__job_weight_bytes(uint64_t *bytes_out, const llmmem__job *j)
{
    return llmmem__weight_bytes(bytes_out, j->m, &j->price.weights, j->from_checkpoint);
}

llmmem_status llmmem__weight_bytes(uint64_t *bytes_out, const llmmem_model *m, const llmmem__weight_plan *wp,
                                   int from_checkpoint)
{
    if (from_checkpoint)
        return checkpoint_bytes(bytes_out, m);
    llmmem__view v = llmmem__whole_model(m);
    return llmmem__view_weight_bytes(bytes_out, &v, wp);
}
