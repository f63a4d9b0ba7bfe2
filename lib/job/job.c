/* The job of one estimate, resolved once before any view runs: the mode, the weight plan, the
 * training plan, the compute and KV formats, and the parallel layout. This file is the only one
 * that resolves an `auto` format or reads a layout key; the views read the job (job.h). */
#include <string.h>

#include "job/job.h"

/* memcmp keys the cost cache: no padding byte may differ between two equal pricings */
_Static_assert(sizeof(llmmem_format) == 4, "llmmem_format packs as 4 bytes in the pricing key");
_Static_assert(sizeof(llmmem__weight_plan) == 2 * 4 + 8 + 6 * 4, "llmmem__weight_plan has no padding");
_Static_assert(sizeof(llmmem__train_plan) == 4 * 8 + 4 * 4 + 2 * 4, "llmmem__train_plan has no padding");
_Static_assert(sizeof(llmmem__pricing) == 5 * 8 + sizeof(llmmem__weight_plan) + sizeof(llmmem__train_plan),
               "llmmem__pricing has no padding");

#define F32 LLMMEM_FORMAT_FP32
#define F16 LLMMEM_FORMAT_FP16
#define B16 LLMMEM_FORMAT_BF16
#define NONE LLMMEM_FORMAT_AUTO

static int64_t sv(const llmmem_strategy *s, llmmem_key k)
{
    return llmmem__get_int(&s->s, k);
}

/* ---- weight formats -------------------------------------------------------------------------- */

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
static int quantized(const llmmem__tensor_class *t, const llmmem__weight_plan *p)
{
    if (!t->matrix)
        return 0;
    /* transformers quantizers/quantizer_mxfp4.py param_needs_quantization: Mxfp4GptOssExperts' weights alone; the
     * routed experts', not a latent MoE's projections around them (Kimi K3's checkpoint keeps those in bf16) */
    if (p->experts_only)
        return t->group == LLMMEM_PARAMS_EXPERTS && t->split == LLMMEM_SPLIT_EXPERT;
    switch ((llmmem_param_group)t->group) {
    case LLMMEM_PARAMS_EMBEDDING: return p->quantize_embedding;
    case LLMMEM_PARAMS_LM_HEAD: return p->quantize_lm_head;
    case LLMMEM_PARAMS_ROUTER: return p->quantize_router;
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
    llmmem_format stored = (llmmem_format)llmmem__model_value(m, LLMMEM_KEY_QUANTIZATION_FORMAT);
    /* the weights as the checkpoint stores them, quantized or in torch_dtype: its fp32 tensors stay fp32 (transformers
     * registers DeepSeek-V3's and GLM's e_score_correction_bias as a float32 buffer, which loading in bf16 keeps) */
    const int32_t as_stored = weight_format == (stored != LLMMEM_FORMAT_AUTO ? stored : torch_dtype);
    llmmem__weight_plan p = {
        .weight = weight_format,
        .high = high_precision(weight_format, torch_dtype, llmmem__get_int(&s->s, LLMMEM_KEY_HIGH_PRECISION_FORMAT)),
        .group = group_size(m, s),
        .double_quant = double_quant(m, s),
        .quantize_embedding = sv(s, LLMMEM_KEY_QUANTIZE_EMBEDDING) != 0,
        .quantize_lm_head = sv(s, LLMMEM_KEY_QUANTIZE_LM_HEAD) != 0,
        .quantize_router = sv(s, LLMMEM_KEY_QUANTIZE_ROUTER) != 0,
        /* the checkpoint's scope and fp32 tensors hold while its own format is the one applied */
        .experts_only = as_stored && llmmem__model_value(m, LLMMEM_KEY_QUANTIZED_MODULES) == LLMMEM_QUANTIZED_EXPERTS,
        .as_stored = as_stored};
    if (as_stored && llmmem__model_value(m, LLMMEM_KEY_EXPERTS_FP4))
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "the checkpoint's FP4 experts beside its %s weights (experts_fp4, "
                            "deepseek_v4's expert_dtype fp4) are not priced: set weight_format to price every weight "
                            "in one format", llmmem_choice_name(LLMMEM_KEY_WEIGHT_FORMAT, weight_format));
    uint64_t probe;
    if (llmmem_format_tensor_bytes(&probe, p.weight, 1, 1, p.group, p.double_quant) == LLMMEM_ERR_OUT_OF_RANGE)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "quant_group_size (%llu) is not a valid group size for %s",
                            (unsigned long long)p.group, llmmem_choice_name(LLMMEM_KEY_WEIGHT_FORMAT, p.weight));
    /* torch/csrc/autograd/autocast_mode.cpp cached_cast casts fp32 tensors alone: autocast is modelled over
     * fp32 weights in full training (transformers Trainer bf16=True / fp16=True on an fp32 model) */
    if (llmmem__get_int(&s->s, LLMMEM_KEY_AUTOCAST) != LLMMEM_AUTOCAST_OFF &&
        (llmmem__get_int(&s->s, LLMMEM_KEY_MODE) != LLMMEM_MODE_TRAINING || p.weight != F32))
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "autocast is modelled for mode training over fp32 weights (precision_recipe fp32 or "
                            "weight_format fp32), not mode %s with weight_format %s",
                            llmmem_choice_name(LLMMEM_KEY_MODE, llmmem__get_int(&s->s, LLMMEM_KEY_MODE)),
                            llmmem_choice_name(LLMMEM_KEY_WEIGHT_FORMAT, p.weight));
    if (llmmem__get_int(&s->s, LLMMEM_KEY_MODE) == LLMMEM_MODE_TRAINING && !trainable_format(p.weight))
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "weight_format (%s) cannot be trained in mode training: full training keeps fp32, "
                            "fp16, bf16 or fp8 weights (mode qlora trains adapters on a quantized base)",
                            llmmem_choice_name(LLMMEM_KEY_WEIGHT_FORMAT, p.weight));
    *out = p;
    return LLMMEM_OK;
}

llmmem_format llmmem__weight_plan_format(const llmmem__weight_plan *p, const llmmem__tensor_class *t)
{
    if (t->fp32 && p->as_stored)
        return F32;
    return quantized(t, p) ? p->weight : p->high;
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

/* ---- precision recipes and the training plan ------------------------------------------------- */

typedef struct recipe_info {
    llmmem_format weights;   /* weight_format auto (custom: torch_dtype) */
    llmmem_format gradients; /* gradient_format auto */
    llmmem_format master;    /* master_weights_format auto; AUTO = no master copy */
    llmmem_format states;    /* optimizer_state_format auto */
    int fp32_gradient_copy;  /* fp32_gradient_copy auto */
} recipe_info;

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


/* The format full training computes in: the weight format where it is a 16/32-bit float, else (fp8
 * weights) the format of the tensors kept in high precision. */
static llmmem_format training_dtype(const llmmem__weight_plan *w)
{
    if (w->weight == F32 || w->weight == F16 || w->weight == B16)
        return w->weight;
    return w->high;
}

/* Whether the compute format needs the weight plan: activation_format auto outside qlora. */
static int compute_needs_plan(const llmmem_strategy *s)
{
    return sv(s, LLMMEM_KEY_ACTIVATION_FORMAT) == 0 && sv(s, LLMMEM_KEY_MODE) != LLMMEM_MODE_QLORA;
}

/* The compute format given the weight plan (read only when compute_needs_plan). */
static llmmem_format compute_of(const llmmem_strategy *s, const llmmem__weight_plan *w)
{
    int64_t key = sv(s, LLMMEM_KEY_ACTIVATION_FORMAT); /* auto, fp32, fp16, bf16 */
    if (key != 0)
        return (llmmem_format)key;
    int64_t mode = sv(s, LLMMEM_KEY_MODE);
    if (mode == LLMMEM_MODE_QLORA)
        return B16;
    /* torch.autocast: linears and matmuls compute in its dtype (autocast_mode.cpp lower_precision_fp ops) */
    if (sv(s, LLMMEM_KEY_AUTOCAST) != LLMMEM_AUTOCAST_OFF)
        return sv(s, LLMMEM_KEY_AUTOCAST) == LLMMEM_AUTOCAST_FP16 ? F16 : B16;
    llmmem_format f = mode == LLMMEM_MODE_TRAINING ? training_dtype(w) : w->high;
    return f == F32 || f == F16 ? f : B16;
}

llmmem_status llmmem__compute_format(llmmem_format *out, const llmmem_model *m, const llmmem_strategy *s)
{
    llmmem__weight_plan w = {0};
    llmmem_status st = compute_needs_plan(s) ? llmmem__weight_plan_make(&w, m, s) : LLMMEM_OK;
    if (st == LLMMEM_OK)
        *out = compute_of(s, &w);
    return st;
}

/* The training plan of mode training, lora or qlora over the weight plan w. */
static llmmem_status train_plan_make(llmmem__train_plan *p, int64_t mode, const llmmem__weight_plan *w,
                                     const llmmem_model *m, const llmmem_strategy *s)
{
    const llmmem__settings *k = &s->s;

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

    if (mode == LLMMEM_MODE_TRAINING) {
        /* custom, and every auto of a recipe without a row: plain PyTorch, where .grad and
         * torch.optim states (zeros_like(p)) take the parameter's dtype and nothing is copied */
        llmmem_format dtype = training_dtype(w);
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
                            llmmem_choice_name(LLMMEM_KEY_MODE, mode));
    p->targets = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_LORA_TARGETS);
    if (p->targets == 0)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "lora_targets is empty: name at least one of q, k, v, o, gate, up, down");
    p->rank = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_LORA_RANK);
    /* A rank beyond a target's smaller side is no longer low-rank (Hu et al. 2021 §4: r << min(d, k)):
     * the adapters would outweigh the matrix they adapt, which is a mistyped rank, not a job */
    for (unsigned i = 0; i < m->inv.n; i++) {
        const llmmem__tensor_class *t = &m->inv.t[i];
        uint64_t side = t->rows < t->cols ? t->rows : t->cols;
        if (t->count && llmmem__lora_target(t, (unsigned)p->targets) && p->rank > side)
            return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                                "lora_rank (%llu) exceeds the smaller side of %s (%llu x %llu), a LoRA target",
                                (unsigned long long)p->rank, t->name, (unsigned long long)t->rows,
                                (unsigned long long)t->cols);
    }
    p->adapter = llmmem__adapter_format(s);
    /* Adapters are ordinary trainable parameters (PEFT + transformers Trainer, qlora.py): .grad in
     * their own dtype, updated in place with no master or fp32 gradient copy unless the keys say so;
     * the recipe supplies only the state format (custom: the adapter's dtype, as torch.optim), and
     * a recipe without master weights none: torch/optim/adamw.py's zeros_like(p) takes the
     * adapter's dtype (fp32 adapters on a pure bf16 base keep fp32 states) */
    p->grad = grad_key ? (llmmem_format)grad_key : p->adapter;
    p->master = master_key ? master_choice(master_key) : NONE;
    p->state = state_key ? state_choice(state_key)
               : recipe >= 0 && recipe < RECIPES && recipes[recipe].master != NONE ? recipes[recipe].states
                                                                                  : p->adapter;
    p->grad_copy = copy_key == 2;
    return LLMMEM_OK;
}

/* ---- KV cache format ------------------------------------------------------------------------- */

/* The format the model computes in: its 16- or 32-bit torch_dtype, else bf16 (a quantized or fp8
 * checkpoint computes in 16 bits). Also what kv_cache_dtype auto means (vLLM CacheConfig: "auto"
 * uses the model's dtype). */
llmmem_kv_cache_dtype llmmem__kv_dtype_of(llmmem_format f)
{
    switch (f) {
    case LLMMEM_FORMAT_FP32: return LLMMEM_KV_CACHE_FP32;
    case LLMMEM_FORMAT_FP16: return LLMMEM_KV_CACHE_FP16;
    case LLMMEM_FORMAT_BF16: return LLMMEM_KV_CACHE_BF16;
    default: return LLMMEM_KV_CACHE_AUTO;
    }
}

llmmem_kv_cache_dtype llmmem__model_dtype(const llmmem_model *m)
{
    llmmem_kv_cache_dtype d = llmmem__kv_dtype_of((llmmem_format)llmmem__model_value(m, LLMMEM_KEY_TORCH_DTYPE));
    return d == LLMMEM_KV_CACHE_AUTO ? LLMMEM_KV_CACHE_BF16 : d;
}

llmmem_kv_cache_dtype llmmem__kv_dtype(const llmmem_model *m, const llmmem_strategy *s)
{
    int64_t d = sv(s, LLMMEM_KEY_KV_CACHE_DTYPE);
    return d == LLMMEM_KV_CACHE_AUTO ? llmmem__model_dtype(m) : (llmmem_kv_cache_dtype)d;
}

/* ---- serving ------------------------------------------------------------------------------- */

/* vllm/config/model.py _FLOAT16_NOT_SUPPORTED_MODELS: the model types vLLM will not run in fp16 */
static int fp16_refused(int64_t model_type)
{
    return model_type == LLMMEM_MODEL_GEMMA2 || model_type == LLMMEM_MODEL_GEMMA3_TEXT;
}

/* The format vLLM serves the model in (vllm/config/model.py _get_and_verify_dtype): dtype when set;
 * auto takes the config's torch_dtype (fp32 when the config names none: _find_dtype's last resort,
 * as torch_dtype_in_config 0 records), and _resolve_auto_dtype serves an fp32 config, or an fp16
 * one of a type refused in fp16, in supported_dtypes[0], bf16 on CUDA capability 8.0 and later
 * (vllm/platforms/cuda.py supported_dtypes). */
static llmmem_status served_format(llmmem_format *out, const llmmem_model *m, const llmmem_strategy *s)
{
    llmmem_format torch_dtype = (llmmem_format)llmmem__model_value(m, LLMMEM_KEY_TORCH_DTYPE);
    int64_t type = llmmem__model_value(m, LLMMEM_KEY_MODEL_TYPE), dtype = sv(s, LLMMEM_KEY_DTYPE);
    if (dtype == F16 && fp16_refused(type)) /* _check_valid_dtype */
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "dtype (fp16): vLLM does not run model_type %s in float16 (numerical instability); "
                            "use bf16 or fp32",
                            llmmem_choice_name(LLMMEM_KEY_MODEL_TYPE, type));
    if (dtype != 0)
        *out = (llmmem_format)dtype;
    else if (torch_dtype == F32 || (torch_dtype == F16 && fp16_refused(type)))
        *out = B16;
    else
        *out = torch_dtype;
    return LLMMEM_OK;
}

/* the served format is put as a KV cache dtype below, unchecked: the three share their values */
_Static_assert(LLMMEM_KV_CACHE_FP32 == (int)LLMMEM_FORMAT_FP32 && LLMMEM_KV_CACHE_FP16 == (int)LLMMEM_FORMAT_FP16 &&
                   LLMMEM_KV_CACHE_BF16 == (int)LLMMEM_FORMAT_BF16,
               "fp32, fp16 and bf16 are the same values as formats and as KV cache dtypes");

llmmem_status llmmem__serving_strategy(llmmem_strategy *out, llmmem_format *served_out, const llmmem_model *m,
                                       const llmmem_strategy *s)
{
    llmmem_format served = LLMMEM_FORMAT_AUTO;
    llmmem_status st = served_format(&served, m, s);
    if (st)
        return st;
    *out = *s;
    *served_out = served;
    if (served != F32 && served != F16 && served != B16) /* a torch_dtype of another kind: as the model says */
        return LLMMEM_OK;
    llmmem_format torch_dtype = (llmmem_format)llmmem__model_value(m, LLMMEM_KEY_TORCH_DTYPE);
    int quantized = llmmem__model_value(m, LLMMEM_KEY_QUANTIZATION_FORMAT) != LLMMEM_FORMAT_AUTO;
    /* vllm/model_executor/model_loader/base_loader.py builds the model under set_default_torch_dtype:
     * the stored weights cast to `served` (not the checkpoint's bytes), a quantized model's
     * unquantized layers in it too */
    if (served != torch_dtype && !quantized && sv(s, LLMMEM_KEY_WEIGHT_FORMAT) == LLMMEM_FORMAT_AUTO)
        llmmem__settings_put(&out->s, LLMMEM_KEY_WEIGHT_FORMAT, served);
    if (served != torch_dtype && quantized && sv(s, LLMMEM_KEY_HIGH_PRECISION_FORMAT) == LLMMEM_FORMAT_AUTO)
        llmmem__settings_put(&out->s, LLMMEM_KEY_HIGH_PRECISION_FORMAT, served);
    /* vllm/config/cache.py CacheConfig cache_dtype "auto": the model's dtype */
    if (sv(s, LLMMEM_KEY_KV_CACHE_DTYPE) == LLMMEM_KV_CACHE_AUTO)
        llmmem__settings_put(&out->s, LLMMEM_KEY_KV_CACHE_DTYPE, (int64_t)served);
    return LLMMEM_OK;
}

/* ---- layout ---------------------------------------------------------------------------------- */

/* An impossible layout: the message names both numbers at fault. */
#define bad(fmt, a, b) llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, fmt, (unsigned long long)(a), (unsigned long long)(b))

static uint64_t key(const llmmem_strategy *s, llmmem_key k)
{
    return (uint64_t)llmmem__get_int(&s->s, k);
}

/* Megatron-LM's split of the layers over stages: even, or the first and last stages as given
 * (--decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers) and the rest even. */
static llmmem_status split_layers(llmmem__layout *L, uint64_t layers)
{
    if (L->p > 1 && L->p > layers)
        return bad("pipeline_parallel (%llu) exceeds num_hidden_layers (%llu)", L->p, layers);
    if (L->p == 1) {
        if (L->first_layers || L->last_layers)
            return bad("pipeline_first_stage_layers (%llu) or pipeline_last_stage_layers (%llu) need "
                       "pipeline_parallel > 1",
                       L->first_layers, L->last_layers);
        L->first_layers = L->last_layers = L->per_stage = layers;
        return LLMMEM_OK;
    }
    uint64_t given = L->first_layers + L->last_layers;
    uint64_t others = L->p - (L->first_layers ? 1 : 0) - (L->last_layers ? 1 : 0);
    if (given > layers || (others == 0 && given != layers))
        return bad("pipeline_first_stage_layers + pipeline_last_stage_layers (%llu) do not fit num_hidden_layers (%llu)",
                   given, layers);
    if (others) {
        if ((layers - given) % others != 0) {
            if (given == 0)
                return bad("num_hidden_layers (%llu) is not divisible by pipeline_parallel (%llu); set "
                           "pipeline_first_stage_layers or pipeline_last_stage_layers",
                           layers, L->p);
            return bad("the %llu layers left are not divisible by the %llu stages left", layers - given, others);
        }
        L->per_stage = (layers - given) / others;
        if (L->per_stage == 0)
            return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                                "pipeline_parallel (%llu) leaves %llu stages without a layer: "
                                "pipeline_first_stage_layers (%llu) and pipeline_last_stage_layers (%llu) take "
                                "all of num_hidden_layers (%llu)",
                                (unsigned long long)L->p, (unsigned long long)others,
                                (unsigned long long)L->first_layers, (unsigned long long)L->last_layers,
                                (unsigned long long)layers);
    }
    if (!L->first_layers)
        L->first_layers = L->per_stage;
    if (!L->last_layers)
        L->last_layers = L->per_stage;
    return LLMMEM_OK;
}

/* The layout's sizes and stages, validated against the model's shapes. */
static llmmem_status layout_shape(llmmem__layout *L, const llmmem_model *m, const llmmem_strategy *s)
{
    memset(L, 0, sizeof *L);
    L->t = key(s, LLMMEM_KEY_TENSOR_PARALLEL);
    L->p = key(s, LLMMEM_KEY_PIPELINE_PARALLEL);
    L->d = key(s, LLMMEM_KEY_DATA_PARALLEL);
    L->c = key(s, LLMMEM_KEY_CONTEXT_PARALLEL);
    L->e = key(s, LLMMEM_KEY_EXPERT_PARALLEL);
    L->et = key(s, LLMMEM_KEY_EXPERT_TENSOR_PARALLEL);
    if (L->et == 0)
        L->et = L->t;
    L->v = key(s, LLMMEM_KEY_VIRTUAL_PIPELINE);
    L->sp = key(s, LLMMEM_KEY_SEQUENCE_PARALLEL) != 0;
    L->m = key(s, LLMMEM_KEY_NUM_MICRO_BATCHES);
    L->schedule = llmmem__get_int(&s->s, LLMMEM_KEY_PIPELINE_SCHEDULE);
    L->first_layers = key(s, LLMMEM_KEY_PIPELINE_FIRST_STAGE_LAYERS);
    L->last_layers = key(s, LLMMEM_KEY_PIPELINE_LAST_STAGE_LAYERS);
    L->zero = llmmem__get_int(&s->s, LLMMEM_KEY_ZERO_STAGE);
    L->fsdp = llmmem__get_int(&s->s, LLMMEM_KEY_FSDP);
    L->dist_opt = key(s, LLMMEM_KEY_DISTRIBUTED_OPTIMIZER) != 0;
    L->offload_opt = llmmem__get_int(&s->s, LLMMEM_KEY_OFFLOAD_OPTIMIZER);
    L->offload_param = llmmem__get_int(&s->s, LLMMEM_KEY_OFFLOAD_PARAM);

    const int split = L->t > 1 || L->p > 1 || L->c > 1 || L->e > 1 || L->et > 1;
    if (split && llmmem__model_value(m, LLMMEM_KEY_NUM_PARAMETERS) != 0)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "a model given by num_parameters alone has no shapes to split over tensor, pipeline, "
                            "context or expert parallelism");
    if (L->p > LLMMEM_MAX_STAGES)
        return bad("pipeline_parallel (%llu) exceeds the %llu stages a report holds", L->p, LLMMEM_MAX_STAGES);
    const llmmem__geometry *g = &m->geo;
    uint64_t layers = g->layers;
    if (split) {
        /* Megatron-LM ColumnParallelLinear / RowParallelLinear: whole heads and MLP columns per rank
         * (MLA's one latent head divides every t) */
        if (g->heads % L->t)
            return bad("num_attention_heads (%llu) is not divisible by tensor_parallel (%llu)", g->heads, L->t);
        if (g->kv_heads % L->t && L->t % g->kv_heads)
            return bad("num_key_value_heads (%llu) and tensor_parallel (%llu): neither divides the other",
                       g->kv_heads, L->t);
        if (g->dense_layers && g->ffn % L->t)
            return bad("intermediate_size (%llu) is not divisible by tensor_parallel (%llu)", g->ffn, L->t);
    }
    uint64_t experts = g->experts;
    if ((L->e > 1 || L->et != L->t) && experts == 0)
        return bad("expert_parallel (%llu) or expert_tensor_parallel (%llu) need a model with routed experts", L->e,
                   L->et);
    if (experts && experts % L->e)
        return bad("num_experts (%llu) is not divisible by expert_parallel (%llu)", experts, L->e);
    if (g->moe_layers && g->ffn_expert % L->et)
        return bad("moe_intermediate_size (%llu) is not divisible by expert_tensor_parallel (%llu)", g->ffn_expert,
                   L->et);
    /* Megatron-LM parallel_state: expert x expert-tensor ranks tile the tensor x data x context ranks */
    uint64_t dense_ranks = L->t * L->d * L->c;
    if (dense_ranks % (L->e * L->et))
        return bad("expert_parallel x expert_tensor_parallel (%llu) does not divide tensor_parallel x "
                   "data_parallel x context_parallel (%llu)",
                   L->e * L->et, dense_ranks);
    L->edp = dense_ranks / (L->e * L->et);
    uint64_t seq = key(s, LLMMEM_KEY_SEQUENCE_LENGTH);
    if (seq % L->c)
        return bad("sequence_length (%llu) is not divisible by context_parallel (%llu)", seq, L->c);
    if (L->v > 1 && L->schedule != LLMMEM_SCHEDULE_INTERLEAVED)
        return bad("virtual_pipeline (%llu) needs pipeline_schedule interleaved (it is %llu)", L->v,
                   (unsigned long long)L->schedule);
    if (L->schedule == LLMMEM_SCHEDULE_INTERLEAVED) {
        if (L->p == 1 || L->v == 1)
            return bad("pipeline_schedule interleaved needs pipeline_parallel (%llu) and virtual_pipeline (%llu) "
                       "above 1",
                       L->p, L->v);
        if (L->first_layers || L->last_layers || layers % (L->p * L->v))
            return bad("interleaving needs num_hidden_layers (%llu) divisible by pipeline_parallel x "
                       "virtual_pipeline (%llu), without uneven first or last stages",
                       layers, L->p * L->v);
    }
    return split_layers(L, layers);
}

/* How data parallelism shards the state and what is offloaded. */
static llmmem_status layout_sharding(llmmem__layout *L, const llmmem_hardware *hw)
{
    int shards = (L->zero > 0) + (L->fsdp != LLMMEM_FSDP_NONE) + L->dist_opt;
    if (shards > 1)
        return bad("zero_stage (%llu), fsdp (%llu) and distributed_optimizer each shard data parallelism: set one",
                   (unsigned long long)L->zero, (unsigned long long)L->fsdp);
    if (L->offload_param && L->zero != 3)
        return bad("offload_param needs zero_stage 3 (it is %llu); offload_optimizer is %llu",
                   (unsigned long long)L->zero, (unsigned long long)L->offload_opt);
    if (L->offload_opt && L->zero == 0)
        return bad("offload_optimizer (%llu) needs a ZeRO stage (zero_stage is %llu)",
                   (unsigned long long)L->offload_opt, (unsigned long long)L->zero);
    /* Megatron's distributed optimizer and DeepSpeed shard over the data-parallel group with the
     * context-parallel ranks in it (parallel_state get_data_parallel_group(with_context_parallel)) */
    L->shard = L->d * L->c;
    if (L->fsdp == LLMMEM_FSDP_HYBRID_SHARD) {
        /* torch.distributed.fsdp HYBRID_SHARD: full shard inside a node, replicate across nodes */
        uint64_t per_node = (uint64_t)llmmem__get_int(&hw->s, LLMMEM_KEY_DEVICES_PER_NODE);
        uint64_t in_node = per_node / (L->t * L->c) ? per_node / (L->t * L->c) : 1;
        L->shard = in_node < L->d ? in_node : L->d;
    }
    if (L->fsdp == LLMMEM_FSDP_NO_SHARD)
        L->shard = 1;
    return LLMMEM_OK;
}

llmmem_status llmmem__layout_make(llmmem__layout *L, const llmmem_model *m, const llmmem_strategy *s,
                                  const llmmem_hardware *hw)
{
    llmmem_status st = layout_shape(L, m, s);
    /* the 16-bit (or fp32) format activations and communication buffers are in */
    L->compute = LLMMEM_FORMAT_BF16;
    if (st == LLMMEM_OK && sv(s, LLMMEM_KEY_MODE) != LLMMEM_MODE_INFERENCE)
        st = llmmem__compute_format(&L->compute, m, s);
    return st ? st : layout_sharding(L, hw);
}

int llmmem__layout_single(const llmmem__layout *L)
{
    return L->t == 1 && L->p == 1 && L->c == 1 && L->e == 1 && L->et == 1 && L->zero == 0 &&
           (L->fsdp == LLMMEM_FSDP_NONE || L->fsdp == LLMMEM_FSDP_NO_SHARD) && !L->dist_opt;
}

/* ---- the job --------------------------------------------------------------------------------- */

llmmem_format llmmem__adapter_format(const llmmem_strategy *s)
{
    int64_t lora_key = llmmem__get_int(&s->s, LLMMEM_KEY_LORA_FORMAT);
    /* PEFT LoraConfig/get_peft_model autocast_adapter_dtype=True (tuners_utils.cast_adapter_dtype):
     * fp16/bf16 adapters are upcast to fp32. QLoRA (qlora.py with --bf16, as in the paper's runs)
     * casts every LoraLayer to bf16. */
    if (lora_key)
        return (llmmem_format)lora_key;
    return llmmem__get_int(&s->s, LLMMEM_KEY_MODE) == LLMMEM_MODE_QLORA ? B16 : F32;
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

/* The pricing's training part from its weight plan: the plan of the mode (frozen_layers kept in
 * inference too, where nothing is trained). */
static llmmem_status pricing_train(llmmem__pricing *p, const llmmem_model *m, const llmmem_strategy *s)
{
    if (p->mode != LLMMEM_MODE_INFERENCE)
        return train_plan_make(&p->train, p->mode, &p->weights, m, s);
    p->train.frozen_layers = (uint64_t)sv(s, LLMMEM_KEY_FROZEN_LAYERS);
    return LLMMEM_OK;
}

llmmem_status llmmem__pricing_make(llmmem__pricing *p, const llmmem_model *m, const llmmem_strategy *s, uint64_t t,
                                   uint64_t et, uint64_t e)
{
    memset(p, 0, sizeof *p); /* every byte is compared */
    p->model_id = m->id;
    p->t = t;
    p->et = et;
    p->e = e;
    p->mode = sv(s, LLMMEM_KEY_MODE);
    llmmem_status st = llmmem__weight_plan_make(&p->weights, m, s);
    return st ? st : pricing_train(p, m, s);
}

/* The layout, the compute format and the weight plan, in the order the estimate reports their
 * errors: the layout's shape, the plan where the compute format needs it, the sharding. */
static llmmem_status job_layout(llmmem__job *j, const llmmem_hardware *hw, const llmmem_strategy *s, int *have_plan,
                                const llmmem__job_fixed *fixed)
{
    llmmem__layout *L = &j->layout;
    llmmem_status st = layout_shape(L, j->m, s);
    if (st)
        return st;
    *have_plan = j->price.mode != LLMMEM_MODE_INFERENCE && compute_needs_plan(s);
    if (fixed) {
        if (*have_plan)
            j->price.weights = fixed->weights;
        j->compute = fixed->compute;
    } else {
        if (*have_plan && (st = llmmem__weight_plan_make(&j->price.weights, j->m, s)) != LLMMEM_OK)
            return st;
        /* the 16-bit (or fp32) format activations and communication buffers are in */
        j->compute = j->price.mode == LLMMEM_MODE_INFERENCE ? B16 : compute_of(s, &j->price.weights);
    }
    L->compute = j->compute;
    return layout_sharding(L, hw);
}

llmmem_status llmmem__job_make(llmmem__job *j, const llmmem_model *m, const llmmem_hardware *hw,
                               const llmmem_strategy *s)
{
    return llmmem__job_make_fixed(j, m, hw, s, NULL);
}

/* The device's capacities and what a PyTorch job holds outside its allocator. */
static void device_make(llmmem__device *d, const llmmem_hardware *hw, const llmmem_strategy *s, int64_t mode)
{
    const llmmem__settings *k = &hw->s;
    d->memory = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_MEMORY_BYTES);
    /* the allocator reserve is a fraction of the device: rounded down to a whole byte (converted
     * here, before the composition: the long double conversion stalls behind its stores) */
    double reserve = llmmem__get_real(k, LLMMEM_KEY_ALLOCATOR_RESERVE_FRACTION);
    d->capacity = d->memory - (uint64_t)((long double)d->memory * (long double)reserve);
    d->cuda_total = llmmem__cuda_total(hw);
    d->devices_per_node = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_DEVICES_PER_NODE);
    d->host = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_HOST_MEMORY_BYTES);
    d->nvme = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_NVME_BYTES);
    d->runtime = llmmem__runtime_overhead(hw, 1);
    d->workspace = (uint64_t)llmmem__get_int(k, LLMMEM_KEY_CUBLAS_WORKSPACE_BYTES);
    /* aten/src/ATen/cuda/CublasHandlePool.cpp getCurrentCUDABlasHandle: each thread's handle takes a
     * workspace from the caching allocator (getNewWorkspace; cuBLASLt's is the same one,
     * getCUDABlasLtWorkspaceSize unified); the forward runs on the caller's thread and backward on
     * autograd's device thread (torch/csrc/autograd/engine.cpp), so a training step holds two */
    if (llmmem__get_int(k, LLMMEM_KEY_BACKEND) == LLMMEM_BACKEND_CUDA &&
        sv(s, LLMMEM_KEY_DEVICE_KERNELS) == LLMMEM_KERNELS_CUDA)
        d->workspaces = d->workspace * (mode == LLMMEM_MODE_INFERENCE ? 1u : 2u);
}

void llmmem__act_settings_make(llmmem__act_settings *a, const llmmem_strategy *s)
{
    a->recompute = sv(s, LLMMEM_KEY_RECOMPUTE);
    a->recompute_method = sv(s, LLMMEM_KEY_RECOMPUTE_METHOD);
    a->recompute_num_layers = (uint64_t)sv(s, LLMMEM_KEY_RECOMPUTE_NUM_LAYERS);
    a->dropout = sv(s, LLMMEM_KEY_DROPOUT);
    a->norm_fp32 = sv(s, LLMMEM_KEY_NORM_FP32);
    a->fused_swiglu = sv(s, LLMMEM_KEY_FUSED_SWIGLU);
    a->autocast = sv(s, LLMMEM_KEY_AUTOCAST);
    a->cross_entropy = sv(s, LLMMEM_KEY_CROSS_ENTROPY);
    a->logits_fp32 = sv(s, LLMMEM_KEY_LOGITS_FP32);
    a->loss_chunk_tokens = (uint64_t)sv(s, LLMMEM_KEY_LOSS_CHUNK_TOKENS);
    a->lora_targets = sv(s, LLMMEM_KEY_LORA_TARGETS);
    a->lora_rank = (uint64_t)sv(s, LLMMEM_KEY_LORA_RANK);
    a->adapter = llmmem__adapter_format(s);
    a->images_per_sequence = (uint64_t)sv(s, LLMMEM_KEY_IMAGES_PER_SEQUENCE);
    a->image_pixels = (uint64_t)sv(s, LLMMEM_KEY_IMAGE_PIXELS);
    a->framework = sv(s, LLMMEM_KEY_FRAMEWORK);
}

static void comm_settings_make(llmmem__comm_settings *c, const llmmem_strategy *s)
{
    c->reduce_bucket = (uint64_t)sv(s, LLMMEM_KEY_REDUCE_BUCKET_SIZE);
    c->allgather_bucket = (uint64_t)sv(s, LLMMEM_KEY_ALLGATHER_BUCKET_SIZE);
    c->overlap = sv(s, LLMMEM_KEY_OVERLAP_COMM) != 0;
    c->stage3_prefetch = (uint64_t)sv(s, LLMMEM_KEY_STAGE3_PREFETCH_BUCKET_SIZE);
    c->stage3_live = (uint64_t)sv(s, LLMMEM_KEY_STAGE3_MAX_LIVE_PARAMETERS);
    c->fsdp_limit_all_gathers = sv(s, LLMMEM_KEY_FSDP_LIMIT_ALL_GATHERS) != 0;
    c->ddp_gradient_copy = sv(s, LLMMEM_KEY_DDP_GRADIENT_COPY) != 0;
}

/* The job in two steps: the mode, the device, the settings blocks and the semantics, none of which can fail
 * (start), then the rest from the same handles (finish), so that a device without memory is refused first. */
static void job_start(llmmem__job *j, const llmmem_model *m, const llmmem_hardware *hw, const llmmem_strategy *s)
{
    memset(j, 0, sizeof *j); /* the pricing's padding-free bytes included */
    j->m = m;
    j->price.model_id = m->id;
    j->price.mode = sv(s, LLMMEM_KEY_MODE);
    device_make(&j->dev, hw, s, j->price.mode);
    llmmem__act_settings_make(&j->act, s);
    comm_settings_make(&j->comm, s);
    j->loop = (llmmem__loop_settings){(uint64_t)sv(s, LLMMEM_KEY_NUM_BEAMS), (uint64_t)sv(s, LLMMEM_KEY_MAX_NEW_TOKENS),
                                      (uint64_t)sv(s, LLMMEM_KEY_LOGITS_TO_KEEP)};
    j->alloc = (llmmem__alloc_settings){sv(s, LLMMEM_KEY_EXPANDABLE_SEGMENTS), sv(s, LLMMEM_KEY_MAX_SPLIT_SIZE_MB),
                                        sv(s, LLMMEM_KEY_ROUNDUP_POWER2_DIVISIONS),
                                        llmmem__get_real(&s->s, LLMMEM_KEY_GARBAGE_COLLECTION_THRESHOLD)};
    j->host = (llmmem__host_settings){sv(s, LLMMEM_KEY_HOST_INIT), llmmem__get_real(&s->s, LLMMEM_KEY_HOST_BUFFER_FACTOR)};
    j->asked = (llmmem__asked){sv(s, LLMMEM_KEY_WEIGHT_FORMAT),    sv(s, LLMMEM_KEY_GRADIENT_FORMAT),
                               sv(s, LLMMEM_KEY_MASTER_WEIGHTS_FORMAT), sv(s, LLMMEM_KEY_OPTIMIZER_STATE_FORMAT),
                               sv(s, LLMMEM_KEY_OPTIMIZER),        sv(s, LLMMEM_KEY_PRECISION_RECIPE)};
    j->hw_id = hw->s.id;
    j->s_id = s->s.id;
    llmmem__semantics_resolve(&j->sem, s);
}

static llmmem_status job_finish(llmmem__job *j, const llmmem_hardware *hw, const llmmem_strategy *s,
                                llmmem__job_fixed *fixed);

/* job_start, or a copy of the start `fixed` keeps for the strategy's recompute value (job.h). */
static void job_start_fixed(llmmem__job *j, llmmem__job_fixed *fixed, const llmmem_model *m,
                            const llmmem_hardware *hw, const llmmem_strategy *s)
{
    const int64_t rc = sv(s, LLMMEM_KEY_RECOMPUTE);
    if (!fixed || rc < 0 || rc > LLMMEM_RECOMPUTE_OFFLOAD) {
        job_start(j, m, hw, s);
        return;
    }
    if (!((fixed->started >> rc) & 1u)) {
        job_start(&fixed->start[rc], m, hw, s);
        fixed->started |= 1u << rc;
    }
    *j = fixed->start[rc];
}

/* The cache's job when it was resolved from the contents these handles hold, with the model handle put
 * in; else NULL. */
static const llmmem__job *cached_job(llmmem__job_cache *cache, const llmmem_model *m, const llmmem_hardware *hw,
                                     const llmmem_strategy *s)
{
    if (!cache || !cache->model || cache->model != m->id || cache->hw != hw->s.id || cache->s != s->s.id ||
        m->has_checkpoint)
        return NULL;
    cache->job.m = m;
    return &cache->job;
}

/* `j` kept in the cache for the next resolution with the same contents (not when a handle's contents
 * have no id, or the model's checkpoint, attached without a new id, can change the job). */
static const llmmem__job *keep_job(llmmem__job_cache *cache, const llmmem__job *j)
{
    if (!cache || !j->hw_id || !j->s_id || j->m->has_checkpoint)
        return j;
    cache->job = *j;
    cache->model = j->m->id;
    cache->hw = j->hw_id;
    cache->s = j->s_id;
    return &cache->job;
}

llmmem_status llmmem__job_resolve(const llmmem__job **out, llmmem__job *own, llmmem__job_cache *cache,
                                  const llmmem_model *m, const llmmem_hardware *hw, const llmmem_strategy *s,
                                  llmmem__job_fixed *fixed)
{
    /* a model with Mamba-2 or Gated DeltaNet layers: training and the contiguous cache cost their
     * state and saved tensors, the generate loop refuses them (kv.c llmmem__kv_shape) */
    llmmem_status st = llmmem__model_check(m);
    if (st)
        return st;
    if (!fixed && (*out = cached_job(cache, m, hw, s)) != NULL)
        return LLMMEM_OK;
    job_start_fixed(own, fixed, m, hw, s);
    if (own->dev.memory == 0)
        return llmmem__fail(LLMMEM_ERR_INCOMPLETE, "hardware: memory_bytes is not set");
    if ((st = job_finish(own, hw, s, fixed)) != LLMMEM_OK)
        return st;
    *out = fixed ? own : keep_job(cache, own);
    return LLMMEM_OK;
}

llmmem_status llmmem__job_make_fixed(llmmem__job *j, const llmmem_model *m, const llmmem_hardware *hw,
                                     const llmmem_strategy *s, llmmem__job_fixed *fixed)
{
    job_start_fixed(j, fixed, m, hw, s);
    return job_finish(j, hw, s, fixed);
}

static llmmem_status job_finish(llmmem__job *j, const llmmem_hardware *hw, const llmmem_strategy *s,
                                llmmem__job_fixed *fixed)
{
    const llmmem_model *m = j->m;
    const llmmem__job_fixed *given = fixed && fixed->valid ? fixed : NULL;
    int have_plan;
    llmmem_status st = job_layout(j, hw, s, &have_plan, given);
    if (st)
        return st;
    const llmmem__layout *L = &j->layout;
    j->price.t = L->t;
    j->price.et = L->et;
    j->price.e = L->e;
    j->from_checkpoint = llmmem__layout_single(L) && llmmem__weights_from_checkpoint(m, s);
    /* a device holding the whole model runs no pipeline: one micro-batch at a time, whatever
     * pipeline_schedule says (GPipe's all-forwards-first needs stages) */
    if (llmmem__layout_single(L))
        j->layout.schedule = LLMMEM_SCHEDULE_1F1B;
    /* a checkpoint's stored bytes need no weight plan (inference on one device) */
    const int plan_unused = j->from_checkpoint && j->price.mode == LLMMEM_MODE_INFERENCE;
    j->sequences = (uint64_t)sv(s, LLMMEM_KEY_MICRO_BATCH_SIZE);
    j->tokens = (uint64_t)sv(s, LLMMEM_KEY_SEQUENCE_LENGTH);
    if (given) {
        if (!have_plan && !plan_unused)
            j->price.weights = given->weights;
        j->price.train = given->train;
        j->kv = given->kv;
        return LLMMEM_OK;
    }
    if (!have_plan && !plan_unused && (st = llmmem__weight_plan_make(&j->price.weights, m, s)) != LLMMEM_OK)
        return st;
    if ((st = pricing_train(&j->price, m, s)) != LLMMEM_OK)
        return st;
    j->kv = llmmem__kv_dtype(m, s);
    if (fixed && !plan_unused) { /* a job that made every part: the next ones take them (and the starts kept) */
        fixed->valid = 1;
        fixed->weights = j->price.weights;
        fixed->train = j->price.train;
        fixed->compute = j->compute;
        fixed->kv = j->kv;
    }
    return LLMMEM_OK;
}
