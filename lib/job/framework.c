/* The framework presets: what the `auto` of attn_implementation, norm_implementation,
 * optimizer_implementation, gradient_allocation, keep_logits, experts_implementation,
 * activation_implementation and cache_implementation mean under each framework. Each
 * default follows the framework's code, cited on its line; a key set to anything but auto wins. */
#include "job/framework.h"

/* One framework's defaults. */
typedef struct preset {
    int64_t attn, norm, optimizer;
    int lazy_grads, keep_logits;
    int64_t experts;
    int64_t act;
} preset;

static const preset presets[] = {
    /* Megatron-LM: Korthikanti et al.'s accounting (flash_attention picks fused or core
     * attention, the norm keeps its input); megatron/core/optimizer/__init__.py takes Transformer
     * Engine's or apex's FusedAdam; distributed/param_and_grad_buffer.py holds every gradient in
     * one contiguous buffer for the whole run; the loss keeps the logits it was given;
     * core/transformer/moe/token_dispatcher.py permutes tokens into experts.py GroupedMLP;
     * core/fusions/fused_bias_gelu.py's GeLU is one autograd function saving its input */
    [LLMMEM_FRAMEWORK_MEGATRON] = {LLMMEM_ATTN_AUTO, LLMMEM_NORM_IMPL_INPUT, LLMMEM_OPTIMIZER_IMPL_FUSED, 0, 1,
                                   LLMMEM_EXPERTS_GROUPED, LLMMEM_ACT_IMPL_FUSED},
    /* transformers Trainer: modeling_utils.py picks attn_implementation "sdpa" where torch has it;
     * LlamaRMSNorm upcasts op by op; training_args.py defaults optim to adamw_torch_fused from
     * torch 2.8; trainer.py calls model.zero_grad() (set_to_none=True since torch 2.0) and
     * compute_loss returns the loss without the outputs; the experts as transformers resolves
     * them (AUTO, below); activations.py runs each model's activation as written (GPT-2's
     * NewGELUActivation is tensor arithmetic) */
    [LLMMEM_FRAMEWORK_HF_TRAINER] = {LLMMEM_ATTN_SDPA, LLMMEM_NORM_IMPL_EAGER, LLMMEM_OPTIMIZER_IMPL_FUSED, 1, 0,
                                     LLMMEM_EXPERTS_AUTO, LLMMEM_ACT_IMPL_EAGER},
    /* a transformers model under DeepSpeed: the engine's FusedAdam (ops/adam/fused_adam.py,
     * multi_tensor_apply: no temporaries) and gradients kept in its reduce buffers and partitions */
    [LLMMEM_FRAMEWORK_DEEPSPEED] = {LLMMEM_ATTN_SDPA, LLMMEM_NORM_IMPL_EAGER, LLMMEM_OPTIMIZER_IMPL_FUSED, 0, 0,
                                    LLMMEM_EXPERTS_AUTO, LLMMEM_ACT_IMPL_EAGER},
    /* torchtune on FSDP2: F.scaled_dot_product_attention (modules/attention.py), its RMSNorm
     * upcasts like transformers', recipes configure torch.optim.AdamW(fused=True) and call
     * optimizer.zero_grad(set_to_none=True); the recipe drops the logits after the loss;
     * modules/moe/experts.py GroupedExperts runs torch._grouped_mm over the permuted tokens; its
     * activations are torch's (nn.SiLU, F.gelu: one op each) */
    [LLMMEM_FRAMEWORK_FSDP2] = {LLMMEM_ATTN_SDPA, LLMMEM_NORM_IMPL_EAGER, LLMMEM_OPTIMIZER_IMPL_FUSED, 1, 0,
                                LLMMEM_EXPERTS_GROUPED, LLMMEM_ACT_IMPL_FUSED},
    /* vLLM serves: its FlashAttention backend; the training keys do not apply */
    [LLMMEM_FRAMEWORK_VLLM] = {LLMMEM_ATTN_FLASH_ATTENTION_2, LLMMEM_NORM_IMPL_FUSED, LLMMEM_OPTIMIZER_IMPL_FUSED, 0, 0,
                               LLMMEM_EXPERTS_GROUPED, LLMMEM_ACT_IMPL_FUSED},
};

void llmmem__semantics_resolve(llmmem__semantics *out, const llmmem_strategy *s)
{
    const llmmem__settings *k = &s->s;
    const int64_t fw = llmmem__get_int(k, LLMMEM_KEY_FRAMEWORK);
    const preset *p = &presets[fw];
    out->torch1 = llmmem__get_int(k, LLMMEM_KEY_PYTORCH_VERSION) == LLMMEM_PYTORCH_1_13;
    out->refused = fw == LLMMEM_FRAMEWORK_VLLM && llmmem__get_int(k, LLMMEM_KEY_MODE) != LLMMEM_MODE_INFERENCE
                       ? LLMMEM__SEM_VLLM_TRAINS
                       : LLMMEM__SEM_OK;

    int64_t attn = llmmem__get_int(k, LLMMEM_KEY_ATTN_IMPLEMENTATION);
    if (attn == LLMMEM_ATTN_AUTO) {
        attn = p->attn;
        if (attn == LLMMEM_ATTN_AUTO) /* megatron: the flash_attention switch */
            attn = llmmem__get_int(k, LLMMEM_KEY_FLASH_ATTENTION) ? LLMMEM_ATTN_FUSED : LLMMEM_ATTN_CORE;
        else if (attn == LLMMEM_ATTN_SDPA && out->torch1) /* transformers falls back to eager without SDPA */
            attn = LLMMEM_ATTN_EAGER;
    } else if (attn == LLMMEM_ATTN_SDPA && out->torch1 && !out->refused) {
        out->refused = LLMMEM__SEM_TORCH1_SDPA;
    }
    out->attn = attn;

    int64_t norm = llmmem__get_int(k, LLMMEM_KEY_NORM_IMPLEMENTATION);
    out->norm = norm == LLMMEM_NORM_IMPL_AUTO ? p->norm : norm;

    int64_t opt = llmmem__get_int(k, LLMMEM_KEY_OPTIMIZER_IMPLEMENTATION);
    out->optimizer = opt == LLMMEM_OPTIMIZER_IMPL_AUTO ? p->optimizer : opt;

    int64_t grads = llmmem__get_int(k, LLMMEM_KEY_GRADIENT_ALLOCATION);
    out->lazy_grads = grads == LLMMEM_GRADIENTS_AUTO ? p->lazy_grads : grads == LLMMEM_GRADIENTS_LAZY;

    int64_t act = llmmem__get_int(k, LLMMEM_KEY_ACTIVATION_IMPLEMENTATION);
    out->act = act == LLMMEM_ACT_IMPL_AUTO ? p->act : act;

    /* aten/src/ATen/native/Dropout.cpp: dropout takes native_dropout (a bool mask) only where
     * is_fused_kernel_acceptable (CUDA, XPU, lazy, PrivateUse1), in 1.13 and 2.x alike; elsewhere
     * _dropout_impl multiplies by bernoulli_ noise made with empty_like(input), which the multiply
     * saves. native/layer_norm.cpp layer_norm_cpu makes mean and rstd in the input's dtype (2.x:
     * param_scalar_type, the same unless the weight's differs); cuda/layer_norm_kernel.cu in
     * toAccumulateType's, fp32 for 16-bit inputs */
    out->cpu_kernels = llmmem__get_int(k, LLMMEM_KEY_DEVICE_KERNELS) == LLMMEM_KERNELS_CPU;

    int64_t keep = llmmem__get_int(k, LLMMEM_KEY_KEEP_LOGITS); /* auto, off, on */
    out->keep_logits = keep == 0 ? p->keep_logits : keep == 2;

    int64_t experts = llmmem__get_int(k, LLMMEM_KEY_EXPERTS_IMPLEMENTATION);
    if (experts == LLMMEM_EXPERTS_AUTO)
        experts = p->experts;
    /* transformers 5 modeling_utils.py PreTrainedModel.get_correct_experts_implementation: grouped_mm
     * where _grouped_mm_can_dispatch (torch._grouped_mm, torch 2.9 on), else eager; before 5.0
     * (transformers_version 4.x) the experts class's own forward ran, integrations/moe.py's eager */
    if (experts == LLMMEM_EXPERTS_AUTO)
        experts = !out->torch1 && llmmem__get_int(k, LLMMEM_KEY_TRANSFORMERS_VERSION) == LLMMEM_TRANSFORMERS_5
                      ? LLMMEM_EXPERTS_GROUPED
                      : LLMMEM_EXPERTS_EAGER;
    out->experts = experts;

    /* a trained embedding's output requires grad; a frozen one's only through a hook:
     * transformers modeling_utils.py gradient_checkpointing_enable and PEFT peft_model.py
     * _prepare_model_for_gradient_checkpointing call enable_input_require_grads when checkpointing */
    const int64_t mode = llmmem__get_int(k, LLMMEM_KEY_MODE), rc = llmmem__get_int(k, LLMMEM_KEY_RECOMPUTE);
    int64_t input = llmmem__get_int(k, LLMMEM_KEY_INPUT_REQUIRES_GRAD); /* auto, off, on */
    if (mode != LLMMEM_MODE_LORA && mode != LLMMEM_MODE_QLORA)
        out->input_grads = 1;
    else
        out->input_grads = input == 0 ? rc == LLMMEM_RECOMPUTE_FULL || rc == LLMMEM_RECOMPUTE_OFFLOAD : input == 2;

    /* inference: transformers' generate loop (generate.c). transformers frameworks run it with
     * generation/configuration_utils.py's default cache, a DynamicCache (generation/utils.py
     * _prepare_cache_for_generation); megatron keeps the contiguous cache of sequence_length tokens
     * unless a loop is asked for (max_new_tokens or a cache named); vllm serves (serving.c) */
    int64_t cache = llmmem__get_int(k, LLMMEM_KEY_CACHE_IMPLEMENTATION);
    if (fw == LLMMEM_FRAMEWORK_VLLM)
        cache = LLMMEM_CACHE_AUTO;
    else if (cache == LLMMEM_CACHE_AUTO && (fw != LLMMEM_FRAMEWORK_MEGATRON || llmmem__get_int(k, LLMMEM_KEY_MAX_NEW_TOKENS) > 0))
        cache = LLMMEM_CACHE_DYNAMIC;
    out->cache = cache;
}

llmmem_status llmmem__semantics_check(const llmmem__semantics *sem)
{
    switch (sem->refused) {
    case LLMMEM__SEM_VLLM_TRAINS:
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "framework vllm serves models and does not train: set mode=inference or another framework");
    case LLMMEM__SEM_TORCH1_SDPA:
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "attn_implementation sdpa: PyTorch 1.13 (pytorch_version) has no scaled_dot_product_attention");
    default:
        return LLMMEM_OK;
    }
}

llmmem_status llmmem__semantics_make(llmmem__semantics *out, const llmmem_strategy *s)
{
    llmmem__semantics_resolve(out, s);
    return llmmem__semantics_check(out);
}
