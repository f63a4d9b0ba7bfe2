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
    int refused;         /* llmmem__sem_refusal: a combination the framework cannot run */
} llmmem__semantics;

/* Why a framework cannot run a strategy (the first that applies). */
enum llmmem__sem_refusal { LLMMEM__SEM_OK, LLMMEM__SEM_VLLM_TRAINS, LLMMEM__SEM_TORCH1_SDPA };

/* Resolves the strategy's framework keys; fails (message set) on a combination the framework
 * cannot run: vLLM does not train, PyTorch 1.13 has no SDPA. */
llmmem_status llmmem__semantics_make(llmmem__semantics *out, const llmmem_strategy *s);
/* The same in two steps: every field, the refusal kept in `refused` (it cannot fail), then the
 * refusal reported (message set), for a job that makes its semantics before a view needs them. */
void llmmem__semantics_resolve(llmmem__semantics *out, const llmmem_strategy *s);
llmmem_status llmmem__semantics_check(const llmmem__semantics *sem);

#endif
