/* Composing a report: the memory of the most loaded device. */
#include <string.h>

#include "activations.h"
#include "training.h"

static void copy_name(char *dst, const char *src)
{
    size_t n = strlen(src);
    if (n >= LLMMEM_NAME_MAX)
        n = LLMMEM_NAME_MAX - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Training, lora, qlora: the static state (training.c) and the activation side of the peak
 * (activations.c), composed at the higher of the two moments llmmem.h defines. */
static llmmem_status training_peak(llmmem_report *r, const llmmem_model *m, const llmmem_strategy *s)
{
    llmmem__training t;
    llmmem__activations a;
    llmmem_format compute;
    llmmem_status st = llmmem__training_estimate(&t, m, s);
    if (st == LLMMEM_OK)
        st = llmmem__compute_format(&compute, m, s);
    if (st == LLMMEM_OK)
        st = llmmem__training_activations(&a, m, s, compute);
    if (st)
        return st;
    r->bytes[LLMMEM_COMPONENT_WEIGHTS] = t.weights;
    r->bytes[LLMMEM_COMPONENT_GRADIENTS] = t.gradients;
    r->bytes[LLMMEM_COMPONENT_MASTER_WEIGHTS] = t.master_weights;
    r->bytes[LLMMEM_COMPONENT_OPTIMIZER_STATES] = t.optimizer_states;
    r->params_trainable = t.trainable;

    uint64_t loss;
    if (!llmmem__add(&loss, a.logits_held, a.logits_transient))
        return llmmem__fail(LLMMEM_ERR_OVERFLOW, "logits bytes exceed 64 bits");
    r->bytes[LLMMEM_COMPONENT_ACTIVATIONS] = a.held;
    if (a.recompute > loss) {
        r->peak_phase = LLMMEM_PEAK_PHASE_RECOMPUTE;
        if (!llmmem__add(&r->bytes[LLMMEM_COMPONENT_ACTIVATIONS], a.held, a.recompute))
            return llmmem__fail(LLMMEM_ERR_OVERFLOW, "activation bytes exceed 64 bits");
    } else {
        r->peak_phase = LLMMEM_PEAK_PHASE_LOSS;
        r->bytes[LLMMEM_COMPONENT_LOGITS] = loss;
    }
    r->peak_parts[LLMMEM_PEAK_ACTIVATIONS_HELD] = a.held;
    r->peak_parts[LLMMEM_PEAK_RECOMPUTE] = a.recompute;
    r->peak_parts[LLMMEM_PEAK_LOGITS_HELD] = a.logits_held;
    r->peak_parts[LLMMEM_PEAK_LOGITS_TRANSIENT] = a.logits_transient;
    r->peak_parts[LLMMEM_PEAK_HOST_ACTIVATIONS] = a.host;
    r->peak_parts[LLMMEM_PEAK_LARGEST_LAYER] = a.layer_full;
    return LLMMEM_OK;
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

    llmmem_report r;
    memset(&r, 0, sizeof r);
    if (mode == LLMMEM_MODE_INFERENCE)
        st = llmmem__weight_bytes(&r.bytes[LLMMEM_COMPONENT_WEIGHTS], model, strategy);
    else
        st = training_peak(&r, model, strategy);
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
