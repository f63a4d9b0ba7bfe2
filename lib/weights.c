/* Weight bytes: each tensor class of the inventory in the format the strategy gives it. */
#include "internal.h"

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

static int double_quant(const llmmem_model *m, const llmmem_strategy *s)
{
    int64_t dq = llmmem__get_int(&s->s, LLMMEM_KEY_DOUBLE_QUANT); /* auto, off, on */
    return dq == 0 ? llmmem__model_value(m, LLMMEM_KEY_QUANTIZATION_DOUBLE_QUANT) != 0 : dq == 2;
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

int llmmem__weights_from_checkpoint(const llmmem_model *m, const llmmem_strategy *s)
{
    return m->has_checkpoint && llmmem__get_int(&s->s, LLMMEM_KEY_WEIGHT_FORMAT) == LLMMEM_FORMAT_AUTO;
}

llmmem_status llmmem__weight_bytes(uint64_t *bytes_out, const llmmem_model *m, const llmmem_strategy *s)
{
    if (llmmem__weights_from_checkpoint(m, s))
        return checkpoint_bytes(bytes_out, m);
    llmmem_format torch_dtype = (llmmem_format)llmmem__model_value(m, LLMMEM_KEY_TORCH_DTYPE);
    llmmem_format weight_format = (llmmem_format)llmmem__get_int(&s->s, LLMMEM_KEY_WEIGHT_FORMAT);
    if (weight_format == LLMMEM_FORMAT_AUTO)
        weight_format = (llmmem_format)llmmem__model_value(m, LLMMEM_KEY_QUANTIZATION_FORMAT);
    if (weight_format == LLMMEM_FORMAT_AUTO)
        weight_format = torch_dtype;
    llmmem_format hp = high_precision(weight_format, torch_dtype, llmmem__get_int(&s->s, LLMMEM_KEY_HIGH_PRECISION_FORMAT));
    uint64_t group = group_size(m, s);
    int dq = double_quant(m, s);
    uint64_t probe;
    if (llmmem_format_tensor_bytes(&probe, weight_format, 1, 1, group, dq) == LLMMEM_ERR_OUT_OF_RANGE)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "quant_group_size (%llu) is not a valid group size for %s",
                            (unsigned long long)group, llmmem_choice_name(LLMMEM_KEY_WEIGHT_FORMAT, weight_format));

    uint64_t total = 0;
    for (unsigned i = 0; i < m->inv.n; i++) {
        const llmmem__tensor_class *t = &m->inv.t[i];
        llmmem_format f = quantized(t, s) ? weight_format : hp;
        uint64_t one;
        if (!llmmem__format_bytes(&one, f, t->rows, t->cols, group, dq))
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
