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

#include "training.h"

/* ---- precision recipes ---------------------------------------------------- */

typedef struct recipe_info {
    llmmem_format weights;   /* weight_format auto (custom: torch_dtype) */
    llmmem_format gradients; /* gradient_format auto */
    llmmem_format master;    /* master_weights_format auto; AUTO = no master copy */
    llmmem_format states;    /* optimizer_state_format auto */
    int fp32_gradient_copy;  /* fp32_gradient_copy auto */
} recipe_info;

#define F32 LLMMEM_FORMAT_FP32
#define F16 LLMMEM_FORMAT_FP16
#define B16 LLMMEM_FORMAT_BF16
#define NONE LLMMEM_FORMAT_AUTO

/* clang-format off */
static const recipe_info recipes[] = {
    /* Megatron-LM megatron/training/theoretical_memory_usage.py: 18 bytes/param without the distributed
     * optimizer; docs/source/api-guide/dist_optimizer.md table row "float16 param, fp32 grads: 18" (the
     * bf16 case, whose main grads are fp32): bf16 params, fp32 main grads, fp32 main (master) params,
     * fp32 Adam exp_avg and exp_avg_sq: 2 + 4 + 4 + 8 */
    [LLMMEM_RECIPE_MEGATRON]  = {B16, F32, F32, F32, 0},
    /* Rajbhandari et al. 2019 (ZeRO) §3.1: 2Ψ fp16 params + 2Ψ fp16 grads + KΨ, K = 12 (fp32 params,
     * momentum, variance) = 16Ψ: 120 GB for 7.5B parameters */
    [LLMMEM_RECIPE_ZERO]      = {F16, F16, F32, F32, 0},
    /* DeepSpeed deepspeed/runtime/zero/stage_1_and_2.py estimate_zero2_model_states_mem_needs, no
     * offload: 2 + 18/G, "18 = 2_grads_16bit + 4_grads_32bit + 4_params_32bit + 8_optimizer_states"
     * (older releases: 4 + 16/G): 20 bytes/param on one GPU */
    [LLMMEM_RECIPE_DEEPSPEED] = {F16, F16, F32, F32, 1},
    /* pure bf16 AdamW: torch.optim.AdamW keeps exp_avg/exp_avg_sq zeros_like(p), no master copy:
     * 2 + 2 + 2 + 2 = 8 */
    [LLMMEM_RECIPE_PURE_BF16] = {B16, B16, NONE, B16, 0},
    /* fp32: dist_optimizer.md "fp32 param, fp32 grads: 16": 4 + 4 + 8; the fp32 master equals the
     * weights, so there is no separate copy */
    [LLMMEM_RECIPE_FP32]      = {F32, F32, F32, F32, 0},
};
/* clang-format on */

#define RECIPES (int64_t)(sizeof recipes / sizeof recipes[0])

llmmem_format llmmem__recipe_weight_format(int64_t recipe, llmmem_format torch_dtype)
{
    return recipe >= 0 && recipe < RECIPES ? recipes[recipe].weights : torch_dtype;
}

/* Choices of the format keys (keys.c): gradient_format and lora_format name llmmem_format values
 * auto, fp32, fp16, bf16 in order; master_weights_format is auto, none, fp32, fp16, bf16;
 * optimizer_state_format is auto, fp32, bf16. */
static llmmem_format master_choice(int64_t v)
{
    static const llmmem_format map[] = {NONE, NONE, F32, F16, B16};
    return v >= 0 && v < 5 ? map[v] : NONE;
}
static llmmem_format state_choice(int64_t v)
{
    return v == 2 ? B16 : F32;
}

static uint64_t bytes_of(llmmem_format f)
{
    return llmmem__format_element_bits(f) / 8u;
}

/* ---- the resolved settings of one estimate --------------------------------------------------- */

typedef struct plan {
    int64_t mode;
    llmmem__weight_plan weights;
    /* trained base parameters (training) or adapters (lora/qlora) */
    llmmem_format grad;    /* FP32, FP16 or BF16 */
    llmmem_format master;  /* NONE: no master copy */
    llmmem_format state;   /* format of full-precision optimizer states */
    int grad_copy;         /* an fp32 gradient beside 16-bit ones */
    int64_t optimizer;
    int first_moment;      /* Adafactor beta1 */
    uint64_t frozen_layers;
    /* lora/qlora */
    uint64_t rank;
    unsigned targets;
    llmmem_format adapter; /* adapter weights */
} plan;

/* The format full training computes in: the weight format where it is a 16/32-bit float, else (fp8
 * weights) the format of the tensors kept in high precision. */
static llmmem_format training_dtype(const llmmem__weight_plan *w)
{
    if (w->weight == F32 || w->weight == F16 || w->weight == B16)
        return w->weight;
    return w->high;
}

llmmem_status llmmem__compute_format(llmmem_format *out, const llmmem_model *m, const llmmem_strategy *s)
{
    int64_t key = llmmem__get_int(&s->s, LLMMEM_KEY_ACTIVATION_FORMAT); /* auto, fp32, fp16, bf16 */
    if (key != 0) {
        *out = (llmmem_format)key;
        return LLMMEM_OK;
    }
    int64_t mode = llmmem__get_int(&s->s, LLMMEM_KEY_MODE);
    if (mode == LLMMEM_MODE_QLORA) {
        *out = B16;
        return LLMMEM_OK;
    }
    llmmem__weight_plan w;
    llmmem_status st = llmmem__weight_plan_make(&w, m, s);
    if (st)
        return st;
    llmmem_format f = mode == LLMMEM_MODE_TRAINING ? training_dtype(&w) : w.high;
    *out = f == F32 || f == F16 ? f : B16;
    return LLMMEM_OK;
}

static llmmem_status make_plan(plan *p, const llmmem_model *m, const llmmem_strategy *s)
{
    const llmmem__settings *k = &s->s;
    p->mode = llmmem__get_int(k, LLMMEM_KEY_MODE);
    llmmem_status st = llmmem__weight_plan_make(&p->weights, m, s);
    if (st)
        return st;

    uint64_t layers = m->geo.layers;
    p->frozen_layers = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_FROZEN_LAYERS);
    if (p->frozen_layers > layers)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "frozen_layers (%llu) exceeds num_hidden_layers (%llu)",
                            (unsigned long long)p->frozen_layers, (unsigned long long)layers);

    p->optimizer = llmmem__get_int(k, LLMMEM_KEY_OPTIMIZER);
    p->first_moment = llmmem__get_int(k, LLMMEM_KEY_ADAFACTOR_FIRST_MOMENT) != 0;
    int64_t recipe = llmmem__get_int(k, LLMMEM_KEY_PRECISION_RECIPE);
    int64_t grad_key = llmmem__get_int(k, LLMMEM_KEY_GRADIENT_FORMAT);
    int64_t master_key = llmmem__get_int(k, LLMMEM_KEY_MASTER_WEIGHTS_FORMAT);
    int64_t state_key = llmmem__get_int(k, LLMMEM_KEY_OPTIMIZER_STATE_FORMAT);
    int64_t copy_key = llmmem__get_int(k, LLMMEM_KEY_FP32_GRADIENT_COPY); /* auto, off, on */

    /* bitsandbytes 8-bit optimizers keep uint8 states, or fp32 ones below min_8bit_size: no bf16 */
    if (p->optimizer == LLMMEM_OPTIMIZER_ADAMW_8BIT && state_key == 2)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "optimizer_state_format (bf16) does not apply to optimizer adamw_8bit: its states are "
                            "8-bit, or fp32 for tensors under 4096 elements");

    if (p->mode == LLMMEM_MODE_TRAINING) {
        /* custom, and every auto of a recipe without a row: plain PyTorch, where .grad and
         * torch.optim states (zeros_like(p)) take the parameter's dtype and nothing is copied */
        llmmem_format dtype = training_dtype(&p->weights);
        recipe_info r = recipe >= 0 && recipe < RECIPES ? recipes[recipe] : (recipe_info){dtype, dtype, NONE, dtype, 0};
        p->grad = grad_key ? (llmmem_format)grad_key : r.gradients;
        p->master = master_key ? master_choice(master_key) : r.master;
        p->state = state_key ? state_choice(state_key) : r.states;
        p->grad_copy = copy_key ? copy_key == 2 : r.fp32_gradient_copy;
        return LLMMEM_OK;
    }

    /* lora, qlora */
    if (llmmem__model_value(m, LLMMEM_KEY_NUM_PARAMETERS) != 0)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "mode %s needs the model's shapes: a model given by num_parameters alone has no "
                            "modules to attach LoRA adapters to",
                            llmmem_choice_name(LLMMEM_KEY_MODE, p->mode));
    p->targets = (unsigned)llmmem__get_int(k, LLMMEM_KEY_LORA_TARGETS);
    if (p->targets == 0)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "lora_targets is empty: name at least one of q, k, v, o, gate, up, down");
    p->rank = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_LORA_RANK);
    /* A rank beyond a target's smaller side is no longer low-rank (Hu et al. 2021 §4: r << min(d, k)):
     * the adapters would outweigh the matrix they adapt, which is a mistyped rank, not a job */
    for (unsigned i = 0; i < m->inv.n; i++) {
        const llmmem__tensor_class *t = &m->inv.t[i];
        uint64_t side = t->rows < t->cols ? t->rows : t->cols;
        if (t->count && llmmem__lora_target(t, p->targets) && p->rank > side)
            return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                                "lora_rank (%llu) exceeds the smaller side of %s (%llu x %llu), a LoRA target",
                                (unsigned long long)p->rank, t->name, (unsigned long long)t->rows,
                                (unsigned long long)t->cols);
    }
    int64_t lora_key = llmmem__get_int(k, LLMMEM_KEY_LORA_FORMAT);
    /* PEFT LoraConfig/get_peft_model autocast_adapter_dtype=True (tuners_utils.cast_adapter_dtype):
     * fp16/bf16 adapters are upcast to fp32. QLoRA (qlora.py with --bf16, as in the paper's runs)
     * casts every LoraLayer to bf16. */
    p->adapter = lora_key ? (llmmem_format)lora_key : p->mode == LLMMEM_MODE_QLORA ? B16 : F32;
    /* Adapters are ordinary trainable parameters (PEFT + transformers Trainer, qlora.py): .grad in
     * their own dtype, updated in place with no master or fp32 gradient copy unless the keys say so;
     * the recipe supplies only the state format (custom: the adapter's dtype, as torch.optim). */
    p->grad = grad_key ? (llmmem_format)grad_key : p->adapter;
    p->master = master_key ? master_choice(master_key) : NONE;
    p->state = state_key ? state_choice(state_key)
                         : recipe >= 0 && recipe < RECIPES ? recipes[recipe].states : p->adapter;
    p->grad_copy = copy_key == 2;
    return LLMMEM_OK;
}

/* ---- trained tensors --------------------------------------------------------------------------- */

/* Tensors of a class inside the first `frozen` decoder layers: the class's per-layer multiplicity
 * times the layers of its span among them, within the view's layers (span ONCE and VISION: none). */
static uint64_t frozen_tensors(const llmmem_model *m, const llmmem__view *v, const llmmem__tensor_class *t,
                               uint64_t frozen)
{
    if (frozen <= v->first)
        return 0;
    uint64_t span_all = llmmem__span_layers(m, (enum llmmem__span)t->span, v->first, v->end);
    if (span_all == 0)
        return 0;
    uint64_t end = frozen < v->end ? frozen : v->end;
    return t->count / span_all * llmmem__span_layers(m, (enum llmmem__span)t->span, v->first, end);
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
static int add_states(uint64_t *acc, int *any_8bit, const plan *p, uint64_t rows, uint64_t cols, uint64_t tensors,
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
static int add_grad_master(llmmem__training *out, const plan *p, uint64_t n, llmmem_format w)
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

/* Whether a class gets adapters. Routed experts only with the experts bit; shared experts and
 * dense MLPs take the gate/up/down bits alone. */
int llmmem__lora_target(const llmmem__tensor_class *t, unsigned targets)
{
    const unsigned modules = LLMMEM_LORA_TARGET_Q | LLMMEM_LORA_TARGET_K | LLMMEM_LORA_TARGET_V |
                             LLMMEM_LORA_TARGET_O | LLMMEM_LORA_TARGET_GATE | LLMMEM_LORA_TARGET_UP |
                             LLMMEM_LORA_TARGET_DOWN;
    if ((t->lora & targets & modules) == 0)
        return 0;
    return t->group != LLMMEM_PARAMS_EXPERTS || (targets & LLMMEM_LORA_TARGET_EXPERTS) != 0;
}

llmmem_status llmmem__training_state(llmmem__training *out, const llmmem_model *m, const llmmem__view *v,
                                     const llmmem_strategy *s)
{
    *out = (llmmem__training){0};
    if (llmmem__get_int(&s->s, LLMMEM_KEY_MODE) == LLMMEM_MODE_INFERENCE)
        return LLMMEM_OK;
    /* what one tensor of each class costs, times the tensors outside the frozen layers */
    llmmem__class_cost costs[LLMMEM_MAX_TENSOR_CLASSES];
    int any_8bit = 0, used_8bit = 0;
    llmmem_status st = llmmem__class_costs(costs, &any_8bit, m, v->inv, s);
    if (st)
        return st;
    const uint64_t frozen = (uint64_t)llmmem__get_int(&s->s, LLMMEM_KEY_FROZEN_LAYERS);
    llmmem__training t = {0};
    /* the whole view, frozen parameters included, in its weight formats; the whole model may take
     * a checkpoint's stored bytes instead (weights.c) */
    const int stored = v->inv == &m->inv && llmmem__weights_from_checkpoint(m, s);
    if (stored && (st = llmmem__weight_bytes(&t.weights, m, s)) != LLMMEM_OK)
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

llmmem_status llmmem__class_costs(llmmem__class_cost *out, int *any_8bit, const llmmem_model *m,
                                  const llmmem__inventory *shapes, const llmmem_strategy *s)
{
    *any_8bit = 0;
    llmmem__weight_plan wp;
    llmmem_status st = llmmem__weight_plan_make(&wp, m, s);
    if (st)
        return st;
    const int64_t mode = llmmem__get_int(&s->s, LLMMEM_KEY_MODE);
    plan p;
    if (mode != LLMMEM_MODE_INFERENCE && (st = make_plan(&p, m, s)) != LLMMEM_OK)
        return st;
    for (unsigned i = 0; i < shapes->n; i++) {
        const llmmem__tensor_class *t = &shapes->t[i];
        llmmem__class_cost *c = &out[i];
        memset(c, 0, sizeof *c);
        llmmem_format f = llmmem__weight_plan_format(&wp, t, s);
        if (!llmmem__format_bytes(&c->weights, f, t->rows, t->cols, wp.group, wp.double_quant))
            return overflow("weight bytes", t);
        if (mode == LLMMEM_MODE_INFERENCE)
            continue;
        llmmem__training one = {0};
        int eight_bit = 0;
        if (mode == LLMMEM_MODE_TRAINING) {
            /* full training: the tensor itself is trained */
            uint64_t n = t->rows * t->cols; /* one tensor: within the inventory's checked total */
            one.trainable = n;
            if (!add_grad_master(&one, &p, n, f) ||
                !add_states(&one.optimizer_states, &eight_bit, &p, t->rows, t->cols, 1, t->rows > 1, muon_hidden(t)))
                return overflow("training state", t);
        } else if (llmmem__lora_target(t, p.targets)) {
            /* LoRA (Hu et al. 2021; PEFT tuners/lora/layer.py LoraLayer.update_layer): lora_A r x cols and
             * lora_B rows x r, no bias, both 2-D matrices (factored by Adafactor, Muon's) */
            uint64_t width, n;
            if (!llmmem__add(&width, t->rows, t->cols) || !llmmem__mul(&n, width, p.rank) ||
                !llmmem__muladd(&one.adapter_weights, n, bytes_of(p.adapter)) || !add_grad_master(&one, &p, n, p.adapter) ||
                !add_states(&one.optimizer_states, &eight_bit, &p, p.rank, t->cols, 1, 1, 1) ||
                !add_states(&one.optimizer_states, &eight_bit, &p, t->rows, p.rank, 1, 1, 1))
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

llmmem_status llmmem__training_estimate(llmmem__training *out, const llmmem_model *m, const llmmem_strategy *s)
{
    LLMMEM_REQUIRE(out);
    *out = (llmmem__training){0};
    LLMMEM_REQUIRE(m);
    LLMMEM_REQUIRE(s);
    llmmem_status st = llmmem__model_check(m);
    if (st)
        return st;
    llmmem__view v = llmmem__whole_model(m);
    return llmmem__training_state(out, m, &v, s);
}

llmmem_status llmmem__trainable_parameters(uint64_t *count_out, const llmmem_model *m, const llmmem_strategy *s)
{
    LLMMEM_REQUIRE(count_out);
    llmmem__training t;
    llmmem_status st = llmmem__training_estimate(&t, m, s);
    *count_out = st ? 0 : t.trainable;
    return st;
}

llmmem_status llmmem__adapter_weight_bytes(uint64_t *bytes_out, const llmmem_model *m, const llmmem_strategy *s)
{
    LLMMEM_REQUIRE(bytes_out);
    llmmem__training t;
    llmmem_status st = llmmem__training_estimate(&t, m, s);
    *bytes_out = st ? 0 : t.adapter_weights;
    return st;
}
