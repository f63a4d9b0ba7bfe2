/*
 * Training state of one device, single-device run: gradients, master weights and optimizer states
 * of the trained parameters, and LoRA/QLoRA adapters. Everything comes from the tensor inventory
 * (arch.c); formats are plain floats whose bytes are elements x bits / 8; optimizer states that
 * depend on shapes (Adafactor, 8-bit Adam, Muon) are counted per tensor class.
 *
 * Counted: every tensor the optimizer keeps on the device per parameter (moments, factored moments,
 * 8-bit states with their block statistics and code tables, 0-dim device scalars). Not counted:
 * scalars the frameworks keep on the host (Python step counters; torch.optim's CPU `step`
 * tensors), and allocator rounding.
 *
 * No allocation, no I/O.
 */
#include <string.h>

#include "views/training.h"
#include "views/weights.h"

#define F32 LLMMEM_FORMAT_FP32
#define NONE LLMMEM_FORMAT_AUTO

static uint64_t bytes_of(llmmem_format f)
{
    return llmmem__format_element_bits(f) / 8u;
}

/* ---- trained tensors --------------------------------------------------------------------------- */

/* Tensors of a class inside the first `frozen` decoder layers: the class's per-layer multiplicity
 * times the layers of its kinds among them, within the view's layers (none for a class outside the layers). */
static uint64_t frozen_tensors(const llmmem_model *m, const llmmem__view *v, const llmmem__tensor_class *t,
                               uint64_t frozen)
{
    if (frozen <= v->first)
        return 0;
    uint64_t in_view = llmmem__class_layers(&m->geo, t, v->first, v->end);
    if (in_view == 0)
        return 0;
    uint64_t end = frozen < v->end ? frozen : v->end;
    return t->count / in_view * llmmem__class_layers(&m->geo, t, v->first, end);
}

/* Muon's "hidden matrices": every 2-D weight except the input embedding and the LM head
 * (KellerJordan/Muon README: embed_tokens and lm_head excluded, p.ndim >= 2 to Muon, the rest to
 * AdamW; Moonlight "Muon is Scalable for LLM Training" §2: embedding and head on AdamW). Attention,
 * MLP, expert and router matrices qualify; learned position tables and a vision tower's patch
 * convolution and position table (matrix flag 0) are embeddings or the input layer and do not. A
 * model given by its count alone has no shapes and is treated as all AdamW (an upper bound). */
static int muon_hidden(const llmmem__tensor_class *t)
{
    return t->rows > 1 && t->matrix && t->group != LLMMEM_PARAMS_EMBEDDING && t->group != LLMMEM_PARAMS_LM_HEAD;
}

/* bitsandbytes/optim/optimizer.py Optimizer2State.init_state: min_8bit_size default 4096
 * (p.numel() < 4096: fp32 state1/state2); uint8 states with fp32 absmax1/absmax2 per block of 256
 * (blocks = ceil(n / 256); 2048 before v0.44, bitsandbytes PR #1365). */
#define BNB_MIN_8BIT_SIZE 4096u
#define BNB_BLOCK 256u
/* qmap1/qmap2 point at name2qmap["dynamic"] and ["udynamic"] (functional.create_dynamic_map: 256
 * fp32 values each), moved to the device once and shared by every parameter. */
#define BNB_QMAPS_BYTES LLMMEM__BNB_QMAPS_BYTES

/* Optimizer state bytes of `tensors` tensors of rows x cols, added to *acc; 0 on overflow. two_d:
 * the tensor is a matrix (Adafactor factors it); hidden: Muon's momentum applies. */
static int add_states(uint64_t *acc, int *any_8bit, const llmmem__train_plan *p, uint64_t rows, uint64_t cols, uint64_t tensors,
                      int two_d, int hidden)
{
    uint64_t n, per = 0, s = bytes_of(p->state);
    if (tensors == 0)
        return 1;
    if (!llmmem__mul(&n, rows, cols))
        return 0;
    switch (p->optimizer) {
    case LLMMEM_OPTIMIZER_ADAMW:
    case LLMMEM_OPTIMIZER_ADAM:
        /* torch/optim/adam.py, adamw.py _init_group: exp_avg, exp_avg_sq = zeros_like(p); `step` is a
         * CPU tensor unless capturable or fused ("special device hosting for step") */
        if (!llmmem__muladd(&per, n, 2 * s))
            return 0;
        break;
    case LLMMEM_OPTIMIZER_SGD: /* torch/optim/sgd.py: no state without momentum */
        break;
    case LLMMEM_OPTIMIZER_SGD_MOMENTUM: /* torch/optim/sgd.py: one momentum_buffer per parameter */
    case LLMMEM_OPTIMIZER_LION:         /* Chen et al. 2023 Alg. 2; lucidrains/lion-pytorch: exp_avg only */
        if (!llmmem__muladd(&per, n, s))
            return 0;
        break;
    case LLMMEM_OPTIMIZER_MUON:
        /* KellerJordan/Muon muon.py, torch/optim/_muon.py: momentum_buffer for hidden matrices;
         * MuonWithAuxAdam: exp_avg, exp_avg_sq for the rest (step a Python int) */
        if (!llmmem__muladd(&per, n, hidden ? s : 2 * s))
            return 0;
        break;
    case LLMMEM_OPTIMIZER_ADAFACTOR: {
        /* transformers optimization.py Adafactor (Shazeer & Stern 2018): factored = ndim >= 2:
         * exp_avg_sq_row (rows) + exp_avg_sq_col (cols), else exp_avg_sq (n); exp_avg (n) when beta1
         * is set (default None); grads upcast to fp32, so the states are fp32 there. state["RMS"] =
         * _rms(p_data_fp32): a 0-dim fp32 tensor on the device; state["step"] is a Python int. */
        uint64_t second = n;
        if (two_d && !llmmem__add(&second, rows, cols))
            return 0;
        if (!llmmem__muladd(&per, second, s) || (p->first_moment && !llmmem__muladd(&per, n, s)) ||
            !llmmem__add(&per, per, 4))
            return 0;
        break;
    }
    case LLMMEM_OPTIMIZER_ADAMW_8BIT:
        if (n < BNB_MIN_8BIT_SIZE) { /* two fp32 states */
            if (!llmmem__muladd(&per, n, 8))
                return 0;
        } else { /* two uint8 states + two fp32 absmax per block */
            if (!llmmem__muladd(&per, n, 2) || !llmmem__muladd(&per, llmmem__ceil_div(n, BNB_BLOCK), 2 * 4))
                return 0;
            *any_8bit = 1;
        }
        break;
    default: break;
    }
    return llmmem__muladd(acc, per, tensors);
}

/* Gradient and master bytes of n trained parameters stored in format w. */
static int add_grad_master(llmmem__training *out, const llmmem__train_plan *p, uint64_t n, llmmem_format w)
{
    if (!llmmem__muladd(&out->gradients, n, bytes_of(p->grad)))
        return 0;
    if (p->grad_copy && p->grad != F32 &&
        (!llmmem__muladd(&out->gradients, n, 4) || !llmmem__muladd(&out->gradient_copy, n, 4)))
        return 0;
    /* no separate master copy where the weights already are in the master format */
    if (p->master != NONE && p->master != w && !llmmem__muladd(&out->master_weights, n, bytes_of(p->master)))
        return 0;
    return 1;
}

static llmmem_status overflow(const char *what, const llmmem__tensor_class *t)
{
    return llmmem__fail(LLMMEM_ERR_OVERFLOW, "%s of %s (%llu x %llu, %llu tensors) exceed 64 bits", what, t->name,
                        (unsigned long long)t->rows, (unsigned long long)t->cols, (unsigned long long)t->count);
}

llmmem_status llmmem__training_state(llmmem__training *out, const llmmem__job *j, const llmmem__view *v)
{
    *out = (llmmem__training){0};
    if (j->price.mode == LLMMEM_MODE_INFERENCE)
        return LLMMEM_OK;
    const llmmem_model *m = j->m;
    /* what one tensor of each class costs, times the tensors outside the frozen layers */
    llmmem__class_cost costs[LLMMEM_MAX_TENSOR_CLASSES];
    int any_8bit = 0, used_8bit = 0;
    llmmem_status st = llmmem__class_costs(costs, &any_8bit, v->inv, &j->price);
    if (st)
        return st;
    const uint64_t frozen = j->price.train.frozen_layers;
    llmmem__training t = {0};
    /* the whole view, frozen parameters included, in its weight formats; the whole model may take
     * a checkpoint's stored bytes instead (weights.c) */
    const int stored = v->inv == &m->inv && j->from_checkpoint;
    if (stored && (st = llmmem__job_weight_bytes(&t.weights, j)) != LLMMEM_OK)
        return st;
    for (unsigned i = 0; i < v->inv->n; i++) {
        const llmmem__tensor_class *tc = &v->inv->t[i];
        const llmmem__class_cost *c = &costs[i];
        if (!stored && !llmmem__muladd(&t.weights, tc->count, c->weights))
            return overflow("weight bytes", tc);
        uint64_t trained = tc->count - frozen_tensors(m, v, tc, frozen);
        if (trained == 0 || c->trainable == 0)
            continue;
        used_8bit |= c->eight_bit;
        if (!llmmem__muladd(&t.trainable, trained, c->trainable) ||
            !llmmem__muladd(&t.adapter_weights, trained, c->adapter_weights) ||
            !llmmem__muladd(&t.gradients, trained, c->gradients) ||
            !llmmem__muladd(&t.gradient_copy, trained, c->gradient_copy) ||
            !llmmem__muladd(&t.master_weights, trained, c->master_weights) ||
            !llmmem__muladd(&t.optimizer_states, trained, c->optimizer_states))
            return overflow("training state", tc);
    }
    if ((used_8bit && !llmmem__add(&t.optimizer_states, t.optimizer_states, BNB_QMAPS_BYTES)) ||
        !llmmem__add(&t.weights, t.weights, t.adapter_weights))
        return llmmem__fail(LLMMEM_ERR_OVERFLOW, "training bytes exceed 64 bits");
    *out = t;
    return LLMMEM_OK;
}

llmmem_status llmmem__class_costs(llmmem__class_cost *out, int *any_8bit, const llmmem__inventory *shapes,
                                  const llmmem__pricing *pr)
{
    *any_8bit = 0;
    /* local copies: the stores below cannot alias them (the loop stays as fast as with the keys) */
    const llmmem__weight_plan plan = pr->weights;
    const llmmem__train_plan train = pr->train;
    const llmmem__weight_plan *wp = &plan;
    const llmmem__train_plan *p = &train;
    const int64_t mode = pr->mode;
    for (unsigned i = 0; i < shapes->n; i++) {
        const llmmem__tensor_class *t = &shapes->t[i];
        llmmem__class_cost *c = &out[i];
        memset(c, 0, sizeof *c);
        llmmem_format f = llmmem__weight_plan_format(wp, t);
        if (!llmmem__format_bytes(&c->weights, f, t->rows, t->cols, wp->group, wp->double_quant))
            return overflow("weight bytes", t);
        if (mode == LLMMEM_MODE_INFERENCE)
            continue;
        llmmem__training one = {0};
        int eight_bit = 0;
        if (mode == LLMMEM_MODE_TRAINING) {
            /* full training: the tensor itself is trained */
            uint64_t n = t->rows * t->cols; /* one tensor: within the inventory's checked total */
            one.trainable = n;
            if (!add_grad_master(&one, p, n, f) ||
                !add_states(&one.optimizer_states, &eight_bit, p, t->rows, t->cols, 1, t->rows > 1, muon_hidden(t)))
                return overflow("training state", t);
        } else if (llmmem__lora_target(t, (unsigned)p->targets)) {
            /* LoRA (Hu et al. 2021; PEFT tuners/lora/layer.py LoraLayer.update_layer): lora_A r x cols and
             * lora_B rows x r, no bias, both 2-D matrices (factored by Adafactor, Muon's) */
            uint64_t width, n;
            if (!llmmem__add(&width, t->rows, t->cols) || !llmmem__mul(&n, width, p->rank) ||
                !llmmem__muladd(&one.adapter_weights, n, bytes_of(p->adapter)) || !add_grad_master(&one, p, n, p->adapter) ||
                !add_states(&one.optimizer_states, &eight_bit, p, p->rank, t->cols, 1, 1, 1) ||
                !add_states(&one.optimizer_states, &eight_bit, p, t->rows, p->rank, 1, 1, 1))
                return overflow("LoRA adapters", t);
            one.trainable = n;
        }
        c->eight_bit = (uint8_t)eight_bit;
        *any_8bit |= eight_bit;
        c->adapter_weights = one.adapter_weights;
        c->gradients = one.gradients;
        c->gradient_copy = one.gradient_copy;
        c->master_weights = one.master_weights;
        c->optimizer_states = one.optimizer_states;
        c->trainable = one.trainable;
    }
    return LLMMEM_OK;
}
