/* Internal: the allocation tape of a transformers job (tape.c): the model built, then Trainer-style
 * training steps, run through the autograd model (autograd.h) so that every tensor the framework
 * allocates and frees reaches a sink in order. Not installed. */
#ifndef LLMMEM_TAPE_H
#define LLMMEM_TAPE_H

#include "alloc/autograd.h"

/* The modeling code a decoder's layers follow. */
typedef enum llmmem__tape_family {
    LLMMEM__TAPE_LLAMA, /* LlamaDecoderLayer and the families written like it (Qwen2/3, Mistral, Gemma-2/3) */
    LLMMEM__TAPE_GPT2   /* GPT2Block: LayerNorms, Conv1D, learned positions, gelu_new, dropout */
} llmmem__tape_family;

/* The norm a family's code runs. */
typedef enum llmmem__tape_norm {
    LLMMEM__TAPE_NORM_LLAMA, /* LlamaRMSNorm: weight * x.to(input_dtype) */
    LLMMEM__TAPE_NORM_GEMMA  /* Gemma2RMSNorm: (x * (1 + weight.float())).type_as(x) */
} llmmem__tape_norm;

/* A decoder the tape can run: the shapes in elements, the element bytes of the weights and of the
 * activations, and what its modeling code does besides a Llama's. */
typedef struct llmmem__tape_model {
    llmmem__tape_family family;
    uint64_t hidden, layers, heads, kv_heads, head_dim, ffn, vocab;
    uint64_t positions;  /* learned position embeddings (GPT-2's n_positions) */
    int dropout;         /* dropout layers are active (a positive pdrop in training) */
    int tied;       /* tie_word_embeddings */
    int qkv_bias;   /* q, k and v projections with biases (Qwen2) */
    unsigned bytes; /* bytes of a weight and of an activation element (2: bf16; under autocast the
                     * weights' and the residual stream's, 4) */
    llmmem__tape_norm norm;
    unsigned norms;      /* norms per decoder layer: 2, or 4 with post-attention and post-feedforward ones */
    int gelu_tanh;       /* the MLP's activation is gelu(approximate="tanh"), else silu */
    int embed_scale;     /* inputs_embeds * normalizer (Gemma) */
    int attn_softcap;    /* scores / cap, tanh, * cap (Gemma-2's attn_logit_softcapping) */
    int final_softcap;   /* the same over the logits (final_logit_softcapping) */
    uint64_t sliding_period; /* layer_types: every period-th layer attends to all, the others within a window (0: none) */
    uint64_t window;     /* sliding_window: the tokens a sliding layer attends to */
    int local_rope;      /* sliding layers use their own rotary embedding (Gemma-3's rotary_emb_local) */
    int qk_norm;         /* q_norm and k_norm: 1 over each head (Qwen3, Gemma-3), 2 over the whole
                          * projection before its heads view (OLMoE) */
    /* a sparse block instead of the MLP on every layer when experts > 0 (OlmoeSparseMoeBlock: a
     * router to the top experts_per_tok, experts of expert_ffn run by transformers' grouped_mm) */
    uint64_t experts, experts_per_tok, expert_ffn;
} llmmem__tape_model;

typedef enum llmmem__tape_optimizer {
    LLMMEM__TAPE_ADAMW_FOREACH,
    LLMMEM__TAPE_ADAMW_FOR_LOOP,
    LLMMEM__TAPE_ADAMW_FUSED,
    LLMMEM__TAPE_SGD_MOMENTUM       /* torch.optim.SGD(momentum > 0), foreach */
} llmmem__tape_optimizer;

/* The moments a tape marks (the points the H100 traces record): after the model is built, after
 * each decoder layer's forward (again when gradient checkpointing recomputes it in backward), after
 * the loss, after backward, after the optimizer step, after zero_grad. */
typedef enum llmmem__tape_moment {
    LLMMEM__TAPE_BUILT,
    LLMMEM__TAPE_LAYER,
    LLMMEM__TAPE_RECOMPUTE,
    LLMMEM__TAPE_LOSS,
    LLMMEM__TAPE_BACKWARD,
    LLMMEM__TAPE_OPTIMIZER,
    LLMMEM__TAPE_ZERO_GRAD,
    LLMMEM__TAPE_STEP,        /* generate: a token's forward done (the prefill is step 0) */
    LLMMEM__TAPE_GEN_LAYER    /* generate: a decoder layer's forward in the step */
} llmmem__tape_moment;

/* "after step 2's loss", "after step 1, layer 3's forward": where the moment is, in words, written
 * into buf (at least 96 bytes); returns buf. */
char *llmmem__tape_moment_text(char *buf, size_t size, int moment, uint64_t step, uint64_t layer);

/* What runs. */
typedef struct llmmem__tape_job {
    llmmem__tape_model model;
    uint64_t batch, seq;
    int checkpoint;                  /* gradient checkpointing (reentrant) on every decoder layer */
    int eager;                       /* attn_implementation eager (else sdpa) */
    unsigned autocast;               /* torch.autocast's lower precision over fp32 weights: the bytes
                                      * of its element (2: bf16 or fp16); 0 off */
    /* PEFT LoRA: the base frozen, adapters of lora_rank on the linears whose bit is set in
     * lora_targets (q, k, v, o, gate, up, down from bit 0), their elements of lora_bytes */
    uint64_t lora_rank;
    unsigned lora_targets, lora_bytes;
    int input_grads;                 /* enable_input_require_grads (PEFT with gradient checkpointing) */
    /* inference: model.generate of new_tokens (0: training steps) from batch prompts of seq tokens */
    uint64_t new_tokens;
    int static_cache;                /* cache_implementation static (else dynamic) */
    uint64_t beams;                  /* num_beams (0 or 1: greedy) */
    uint64_t decode_stride;          /* decode steps replayed: every one (0 or 1), or every stride-th */
    llmmem__tape_optimizer optimizer;
    unsigned steps;                  /* training steps (the peak of the last is the job's) */
    uint64_t ws_forward, ws_forward_lt, ws_backward; /* cuBLAS workspaces (autograd.h) */
    int workspace_first;             /* workspaces made before the model: 1 the forward thread's, 2 both */
    int release;                     /* at the end everything but the workspaces is freed (the process goes on) */
} llmmem__tape_job;

/* Runs the job into sink. *peak_out: the highest bytes the tape held alive. Returns LLMMEM_OK,
 * LLMMEM__AG_OOM when the sink ran out of memory, or an error (message set). */
llmmem_status llmmem__tape_run(uint64_t *peak_out, const llmmem__tape_job *job, const llmmem__sink *sink);

#endif
