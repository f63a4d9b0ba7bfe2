/* Internal: the allocation tape of a transformers job (tape.c): the model built, then Trainer-style
 * training steps, run through the autograd model (autograd.h) so that every tensor the framework
 * allocates and frees reaches a sink in order. Not installed. */
#ifndef LLMMEM_TAPE_H
#define LLMMEM_TAPE_H

#include "autograd.h"

/* The norm a family's code runs. */
typedef enum llmmem__tape_norm {
    LLMMEM__TAPE_NORM_LLAMA, /* LlamaRMSNorm: weight * x.to(input_dtype) */
    LLMMEM__TAPE_NORM_GEMMA  /* Gemma2RMSNorm: (x * (1 + weight.float())).type_as(x) */
} llmmem__tape_norm;

/* A decoder the tape can run: the shapes in elements, the element bytes of the weights and of the
 * activations, and what its modeling code does besides a Llama's. */
typedef struct llmmem__tape_model {
    uint64_t hidden, layers, heads, kv_heads, head_dim, ffn, vocab;
    int tied;       /* tie_word_embeddings */
    int qkv_bias;   /* q, k and v projections with biases (Qwen2) */
    unsigned bytes; /* bytes of a weight and of an activation element (2: bf16) */
    llmmem__tape_norm norm;
    unsigned norms;      /* norms per decoder layer: 2, or 4 with post-attention and post-feedforward ones */
    int gelu_tanh;       /* the MLP's activation is gelu(approximate="tanh"), else silu */
    int embed_scale;     /* inputs_embeds * normalizer (Gemma) */
    int attn_softcap;    /* scores / cap, tanh, * cap (Gemma-2's attn_logit_softcapping) */
    int final_softcap;   /* the same over the logits (final_logit_softcapping) */
    int sliding;         /* some layers attend within a window (one more mask) */
} llmmem__tape_model;

typedef enum llmmem__tape_optimizer {
    LLMMEM__TAPE_ADAMW_FOREACH,
    LLMMEM__TAPE_ADAMW_FOR_LOOP,
    LLMMEM__TAPE_ADAMW_FUSED
} llmmem__tape_optimizer;

/* What runs. */
typedef struct llmmem__tape_job {
    llmmem__tape_model model;
    uint64_t batch, seq;
    int checkpoint;                  /* gradient checkpointing (reentrant) on every decoder layer */
    int eager;                       /* attn_implementation eager (else sdpa) */
    llmmem__tape_optimizer optimizer;
    unsigned steps;                  /* training steps (the peak of the last is the job's) */
    uint64_t ws_forward, ws_forward_lt, ws_backward; /* cuBLAS workspaces (autograd.h) */
    int workspace_first;             /* workspaces made before the model: 1 the forward thread's, 2 both */
} llmmem__tape_job;

/* Runs the job into sink. *peak_out: the highest bytes the tape held alive. Returns LLMMEM_OK,
 * LLMMEM__AG_OOM when the sink ran out of memory, or an error (message set). */
llmmem_status llmmem__tape_run(uint64_t *peak_out, const llmmem__tape_job *job, const llmmem__sink *sink);

#endif
