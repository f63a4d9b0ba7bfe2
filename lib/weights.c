/* Weight bytes: each tensor class of the inventory in the format the strategy gives it. */
#include "training.h"

/* The format for tensors a quantized checkpoint keeps unquantized. */
static llmmem_format high_precision(llmmem_format weight_format, llmmem_format torch_dtype, int64_t setting)
{
    if (setting != LLMMEM_FORMAT_AUTO)
        return (llmmem_format)setting;
    if (llmmem__format_element_bits(weight_format) >= 16)
        return weight_format;
    if (llmmem__format_element_bits(torch_dtype) >= 16)
        return torch_dtype;
    return LLMMEM_FORMAT_BF16;
}

/* Whether the weight format applies to a tensor class. GPTQ, AWQ (AutoGPTQ/AutoAWQ skip lm_head and
 * embeddings) and bitsandbytes (transformers' llm_int8_skip_modules default keeps lm_head) quantize
 * the linear layers only; the strategy can extend that to the embedding, LM head and router. */
static int quantized(const llmmem__tensor_class *t, const llmmem_strategy *s)
{
    if (!t->matrix)
        return 0;
    switch ((llmmem_param_group)t->group) {
    case LLMMEM_PARAMS_EMBEDDING: return llmmem__get_int(&s->s, LLMMEM_KEY_QUANTIZE_EMBEDDING) != 0;
    case LLMMEM_PARAMS_LM_HEAD: return llmmem__get_int(&s->s, LLMMEM_KEY_QUANTIZE_LM_HEAD) != 0;
    case LLMMEM_PARAMS_ROUTER: return llmmem__get_int(&s->s, LLMMEM_KEY_QUANTIZE_ROUTER) != 0;
    default: return 1;
    }
}

/* Group or block size: the strategy's, else the checkpoint's (0 lets the format use its default). */
static uint64_t group_size(const llmmem_model *m, const llmmem_strategy *s)
{
    int64_t g = llmmem__get_int(&s->s, LLMMEM_KEY_QUANT_GROUP_SIZE);
    return (uint64_t)(g ? g : llmmem__model_value(m, LLMMEM_KEY_QUANTIZATION_GROUP_SIZE));
}

static int bnb_4bit(llmmem_format f)
{
    return f == LLMMEM_FORMAT_BNB_NF4 || f == LLMMEM_FORMAT_BNB_FP4;
}

/* double_quant: auto (the checkpoint's), off, on. In qlora mode auto is on unless the checkpoint is
 * itself a bitsandbytes 4-bit one: the QLoRA recipe (Dettmers et al. 2023 §2; artidoro/qlora qlora.py
 * double_quant default True) quantizes the base with NF4 and double quantization. */
static int double_quant(const llmmem_model *m, const llmmem_strategy *s)
{
    int64_t dq = llmmem__get_int(&s->s, LLMMEM_KEY_DOUBLE_QUANT);
    if (dq != 0)
        return dq == 2;
    if (llmmem__get_int(&s->s, LLMMEM_KEY_MODE) == LLMMEM_MODE_QLORA &&
        !bnb_4bit((llmmem_format)llmmem__model_value(m, LLMMEM_KEY_QUANTIZATION_FORMAT)))
        return 1;
    return llmmem__model_value(m, LLMMEM_KEY_QUANTIZATION_DOUBLE_QUANT) != 0;
}

/* Formats full training can keep its weights in: IEEE/bfloat floats, and fp8 (Transformer Engine
 * and DeepSeek-V3-style fp8 training keep fp8 weights beside a higher-precision master copy).
 * Integer, block-quantized and GGUF formats hold no gradient-updatable values. */
static int trainable_format(llmmem_format f)
{
    switch (f) {
    case LLMMEM_FORMAT_FP32:
    case LLMMEM_FORMAT_FP16:
    case LLMMEM_FORMAT_BF16:
    case LLMMEM_FORMAT_FP8_E4M3:
    case LLMMEM_FORMAT_FP8_E5M2:
    case LLMMEM_FORMAT_FP8_BLOCK: return 1;
    default: return 0;
    }
}

/* The weight format when weight_format is auto, by mode:
 *   inference, lora: the checkpoint's (its quantization format, else torch_dtype): a LoRA base is
 *                    the model as loaded (PEFT wraps the loaded modules; GPTQ/AWQ bases included);
 *   qlora:           bitsandbytes NF4 (QLoRA paper §2; qlora.py quant_type "nf4"), or the checkpoint's
 *                    own bitsandbytes 4-bit format;
 *   training:        the precision recipe's (training.c). */
static llmmem_format auto_weight_format(const llmmem_model *m, const llmmem_strategy *s)
{
    llmmem_format torch_dtype = (llmmem_format)llmmem__model_value(m, LLMMEM_KEY_TORCH_DTYPE);
    llmmem_format quant = (llmmem_format)llmmem__model_value(m, LLMMEM_KEY_QUANTIZATION_FORMAT);
    switch (llmmem__get_int(&s->s, LLMMEM_KEY_MODE)) {
    case LLMMEM_MODE_TRAINING:
        return llmmem__recipe_weight_format(llmmem__get_int(&s->s, LLMMEM_KEY_PRECISION_RECIPE), torch_dtype);
    case LLMMEM_MODE_QLORA: return bnb_4bit(quant) ? quant : LLMMEM_FORMAT_BNB_NF4;
    default: return quant != LLMMEM_FORMAT_AUTO ? quant : torch_dtype;
    }
}

llmmem_status llmmem__weight_plan_make(llmmem__weight_plan *out, const llmmem_model *m, const llmmem_strategy *s)
{
    llmmem_format torch_dtype = (llmmem_format)llmmem__model_value(m, LLMMEM_KEY_TORCH_DTYPE);
    llmmem_format weight_format = (llmmem_format)llmmem__get_int(&s->s, LLMMEM_KEY_WEIGHT_FORMAT);
    if (weight_format == LLMMEM_FORMAT_AUTO)
        weight_format = auto_weight_format(m, s);
    /* QLoRA is LoRA over a bitsandbytes 4-bit base (Dettmers et al. 2023 §2); any other base is LoRA */
    if (llmmem__get_int(&s->s, LLMMEM_KEY_MODE) == LLMMEM_MODE_QLORA && !bnb_4bit(weight_format))
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "mode qlora keeps the base in bitsandbytes 4-bit (bnb_nf4 or bnb_fp4), not weight_format "
                            "%s: use mode=lora for a LoRA over that base",
                            llmmem_choice_name(LLMMEM_KEY_WEIGHT_FORMAT, weight_format));
    llmmem__weight_plan p = {
        .weight = weight_format,
        .high = high_precision(weight_format, torch_dtype, llmmem__get_int(&s->s, LLMMEM_KEY_HIGH_PRECISION_FORMAT)),
        .group = group_size(m, s),
        .double_quant = double_quant(m, s)};
    uint64_t probe;
    if (llmmem_format_tensor_bytes(&probe, p.weight, 1, 1, p.group, p.double_quant) == LLMMEM_ERR_OUT_OF_RANGE)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "quant_group_size (%llu) is not a valid group size for %s",
                            (unsigned long long)p.group, llmmem_choice_name(LLMMEM_KEY_WEIGHT_FORMAT, p.weight));
    if (llmmem__get_int(&s->s, LLMMEM_KEY_MODE) == LLMMEM_MODE_TRAINING && !trainable_format(p.weight))
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "weight_format (%s) cannot be trained in mode training: full training keeps fp32, "
                            "fp16, bf16 or fp8 weights (mode qlora trains adapters on a quantized base)",
                            llmmem_choice_name(LLMMEM_KEY_WEIGHT_FORMAT, p.weight));
    *out = p;
    return LLMMEM_OK;
}

llmmem_format llmmem__weight_plan_format(const llmmem__weight_plan *p, const llmmem__tensor_class *t,
                                         const llmmem_strategy *s)
{
    return quantized(t, s) ? p->weight : p->high;
}

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

/* The checkpoint's bytes stand for the weights only where the weights are held as stored: in
 * inference and under a LoRA base. Full training re-materializes them in the recipe's format and
 * QLoRA re-quantizes them to NF4, so those modes use the inventory. */
int llmmem__weights_from_checkpoint(const llmmem_model *m, const llmmem_strategy *s)
{
    int64_t mode = llmmem__get_int(&s->s, LLMMEM_KEY_MODE);
    return m->has_checkpoint && llmmem__get_int(&s->s, LLMMEM_KEY_WEIGHT_FORMAT) == LLMMEM_FORMAT_AUTO &&
           (mode == LLMMEM_MODE_INFERENCE || mode == LLMMEM_MODE_LORA);
}

llmmem__view llmmem__whole_model(const llmmem_model *m)
{
    llmmem__view v = {&m->inv, 0, m->geo.layers};
    return v;
}

llmmem_status llmmem__view_weight_bytes(uint64_t *bytes_out, const llmmem_model *m, const llmmem__view *v,
                                        const llmmem_strategy *s)
{
    llmmem__weight_plan plan;
    llmmem_status st = llmmem__weight_plan_make(&plan, m, s);
    if (st)
        return st;
    uint64_t total = 0;
    for (unsigned i = 0; i < v->inv->n; i++) {
        const llmmem__tensor_class *t = &v->inv->t[i];
        if (t->count == 0)
            continue;
        llmmem_format f = llmmem__weight_plan_format(&plan, t, s);
        uint64_t one;
        if (!llmmem__format_bytes(&one, f, t->rows, t->cols, plan.group, plan.double_quant))
            return llmmem__fail(LLMMEM_ERR_OVERFLOW, "bytes of %s (%llu x %llu in %s) exceed 64 bits", t->name,
                                (unsigned long long)t->rows, (unsigned long long)t->cols,
                                llmmem_choice_name(LLMMEM_KEY_WEIGHT_FORMAT, f));
        if (!llmmem__muladd(&total, one, t->count))
            return llmmem__fail(LLMMEM_ERR_OVERFLOW, "weight bytes of %s (%llu tensors) exceed 64 bits", t->name,
                                (unsigned long long)t->count);
    }
    *bytes_out = total;
    return LLMMEM_OK;
}

llmmem_status llmmem__weight_bytes(uint64_t *bytes_out, const llmmem_model *m, const llmmem_strategy *s)
{
    if (llmmem__weights_from_checkpoint(m, s))
        return checkpoint_bytes(bytes_out, m);
    llmmem__view v = llmmem__whole_model(m);
    return llmmem__view_weight_bytes(bytes_out, m, &v, s);
}
