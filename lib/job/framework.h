/* Internal: the framework semantics of a training step (framework.c): the keys whose `auto`
 * takes the framework's behaviour, resolved once. Not installed. */
#ifndef LLMMEM_FRAMEWORK_H
#define LLMMEM_FRAMEWORK_H

#include "base/internal.h"

typedef struct llmmem__semantics {
    int64_t attn;        /* llmmem_attn_implementation, never AUTO */
    int64_t norm;        /* llmmem_norm_implementation, never AUTO */
    int64_t optimizer;   /* llmmem_optimizer_implementation, never AUTO */
    int lazy_grads;      /* gradients are born in backward and set to None after the step */
    int keep_logits;     /* the model's output logits stay referenced until backward ends */
    int torch1;          /* PyTorch 1.13 semantics */
    int64_t experts;     /* llmmem_experts_implementation, never AUTO */
    int input_grads;     /* the embedding's output requires grad (trained, or a frozen one's hook) */
    int64_t cache;       /* llmmem_cache_implementation of inference's generate loop; AUTO: no loop
                            (megatron's contiguous cache of sequence_length tokens, or vllm's serving) */
    int64_t act;         /* llmmem_activation_implementation, never AUTO */
    int cpu_kernels;     /* device_kernels cpu: dropout masks and layer_norm statistics in the input's dtype */
} llmmem__semantics;

/* Resolves the strategy's framework keys; fails (message set) on a combination the framework
 * cannot run: vLLM does not train, PyTorch 1.13 has no SDPA. */
llmmem_status llmmem__semantics_make(llmmem__semantics *out, const llmmem_strategy *s);

#endif
