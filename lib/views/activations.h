/* Internal: the tensors a training step saves for its backward pass, and the activation part of
 * the training peak (activations.c). */
#ifndef LLMMEM_ACTIVATIONS_H
#define LLMMEM_ACTIVATIONS_H

#include "job/job.h"
#include "base/internal.h"

/* One decoder layer's shapes and how it runs. Element counts use s (tokens per sequence), b
 * (sequences), h (hidden), a / g (query / KV heads) of d, f (dense MLP width). Fields left 0 mean
 * "not this kind of layer": kv_rank 0 is not MLA, experts 0 is a dense MLP. */
typedef struct llmmem__act_layer {
    uint64_t s, b, h, a, g, d, f;
    uint64_t t;              /* tensor-parallel size */
    unsigned bytes;          /* bytes of one activation element (2 for bf16) */
    unsigned norm_bytes;     /* bytes of a saved norm input (0: bytes; 4 when norms upcast to fp32) */
    unsigned norms;          /* norms per layer: 1 (Falcon-7B's shared norm), 2, 4 (Gemma 2/3); 0: 2 */
    int sequence_parallel;   /* Megatron SP: the tensors outside TP regions split over t too */
    int dropout;             /* attention and hidden dropout (1-byte masks, dropout outputs) */
    int attn;                /* llmmem_attn_implementation (resolved; 0 counts as core) */
    int norm_impl;           /* llmmem_norm_implementation (resolved; 0 counts as input) */
    int layernorm;           /* the norms are LayerNorm (a mean row statistic besides rstd) */
    int torch1;              /* PyTorch 1.13: mean saves its input */
    int gated;               /* gated MLP (SwiGLU, GeGLU) */
    int fused_swiglu;        /* Megatron bias_swiglu: the activation's output is not kept */
    int qk_norm;             /* per-head q and k norms (Qwen3, Gemma 3) */
    llmmem_recompute recompute; /* none or selective; full and offload keep the input alone */
    /* MLA (DeepSeek-V2/V3): low-rank query and key-value latents */
    uint64_t q_rank, kv_rank, rope, nope, v_dim;
    /* MoE: routed experts of width fe, top_k per token, shared experts of total width fs */
    uint64_t experts, top_k, fe, fs;
    int eager_experts;       /* transformers' eager experts loop (llmmem_experts_implementation) */
    int router_fp32;         /* the router's linear casts its input and weight to fp32 (DeepSeek-V3) */
    /* LoRA: adapter rank x adapted linears a token passes through in one layer (0: none) */
    uint64_t adapter;
    int frozen;              /* the base is frozen (lora, qlora): its linears and norms keep no input */
    unsigned lora;           /* lora_targets bits of the adapted linears (llmmem_lora_target) */
    unsigned adapter_bytes;  /* bytes of an adapter element (their input is cast to it) */
    uint64_t et;             /* tensor-parallel size inside an expert (0: t) */
    unsigned mask_bytes;     /* bytes of a dropout mask element (0: 1, a bool mask) */
    int cpu_norm_stats;      /* LayerNorm's mean and rstd in the input's dtype (CPU kernels), not fp32 */
    int gelu_tanh_ops;       /* GPT-2's gelu_new op by op (NewGELUActivation's tanh formula) */
    int softmax_in_dtype;    /* eager softmax without the fp32 upcast (GPT-2's eager_attention_forward) */
    int norm_scale_fp32;     /* Gemma's RMSNorm multiplies by (1 + weight) in fp32, then casts */
    int softcap;             /* Gemma-2's attention logit softcapping (tanh over the scores) */
    /* torch.autocast over fp32 weights: the residual stream, the norms and what they save stay fp32
     * (stream = 4); each linear saves its own 16-bit copy of its input and of its weight */
    int autocast;
    unsigned stream;         /* bytes of a residual-stream element (0: bytes) */
    uint64_t attn_weights, mlp_weights; /* elements of the attention's and the MLP's linear weights */
    /* a Mamba-2 block (norm and Mamba2Mixer, no attention or MLP): in_proj width, inner width,
     * heads, groups; ssm_proj 0 for any other layer */
    uint64_t ssm_proj, ssm_inner, ssm_heads, ssm_groups;
    /* hybrid blocks (Nemotron-H): an MLP block without attention, an attention block without MLP */
    int no_attention, no_ffn;
    /* a Gated DeltaNet mixer in place of attention: key and value heads and widths (gdn_v 0: none) */
    uint64_t gdn_k, gdn_v, gdn_dk, gdn_dv;
    int attn_gate;           /* q_proj's sigmoid gate on the attention output (Qwen3NextAttention) */
    int cuda_sdpa;           /* torch SDPA on CUDA kernels (PyTorch 2.x): its flash or memory-efficient backend */
    int masked;              /* SDPA reads a mask (a sliding layer over more tokens than its window) */
    int shared_gate;         /* a sigmoid gate on the shared expert's output (Qwen3NextSparseMoeBlock) */
} llmmem__act_layer;

/* Bytes the layer keeps per micro-batch on one tensor-parallel rank. 0 on success, else
 * LLMMEM_ERR_OVERFLOW with the message set. */
llmmem_status llmmem__layer_activation_bytes(uint64_t *bytes_out, const llmmem__act_layer *l);

/* What the layer's backward adds, at its highest point, to the memory held when it starts (its
 * saved tensors included): the gradients it computes less the saved tensors it has freed by then.
 * Modelled for eager attention (the two fp32 s x s gradients of the softmax); 0 for the fused and
 * Megatron implementations (Korthikanti's accounting counts saved tensors alone). */
llmmem_status llmmem__layer_backward_bytes(uint64_t *bytes_out, const llmmem__act_layer *l);
/* The activation side of one device's training peak, for one micro-batch of the strategy. */
typedef struct llmmem__activations {
    uint64_t held;            /* saved for backward on the device when the last forward ends */
    uint64_t recompute;       /* working set rebuilt by recomputation during backward (largest chunk) */
    uint64_t logits_held;     /* the loss's saved tensors at the end of the forward */
    uint64_t logits_transient;/* what the loss adds at its own peak (its gradient, or a chunk) */
    uint64_t host;            /* activations offloaded to host memory */
    uint64_t layer_full;      /* largest decoder layer's saved bytes without recomputation */
    uint64_t loss_forward;    /* what the loss's forward holds beside `logits_held` at its highest point */
    uint64_t backward;        /* what a decoder layer's backward adds at its highest point */
    uint64_t head;            /* `held`'s part outside the layers that the loss's backward frees */
    uint64_t first_held;      /* held when the first layer's backward starts (with the other
                               * micro-batches in flight): its saved tensors or kept input, the ids */
} llmmem__activations;

/* What a training step holds beside the saved tensors as a layer's forward returns (the timeline's
 * forward points; the peak's on a pipeline stage before the last) and after backward. */
typedef struct llmmem__forward_extra {
    uint64_t locals;     /* as a layer's forward returns: its output, the model's named embeddings and masks */
    uint64_t input;      /* and its input, from the stage's second layer on (every layer past the first stage) */
    uint64_t leaf_input; /* after backward until the loss is released: a leaf input and its grad */
} llmmem__forward_extra;

/* What the step's moments take besides the activations: gradients as they are born (lazy) and the
 * optimizer step's temporaries. */
typedef struct llmmem__step {
    int lazy_grads;          /* gradients are born in backward (else all held throughout) */
    uint64_t grads_head;     /* born by the loss's and the head's backward: the head's, the final norm's */
    uint64_t grads_last;     /* alive in the last decoder layer's backward: the head's and its own */
    uint64_t grads_first;    /* alive in the first layer's backward: all but the embedding's */
    uint64_t grads_kind[LLMMEM_LAYER_KINDS_MAX]; /* one trained decoder layer's, by layer kind */
    uint64_t frozen_layers;  /* the first layers, which get none */
    uint64_t temporaries;    /* the optimizer step's temporaries */
} llmmem__step;

/* Gradients of the decoder layers [first, end) under lazy allocation (the frozen ones have none). */
int llmmem__step_layer_grads(uint64_t *out, const llmmem__step *st, const llmmem__layer_plan *plan, uint64_t first,
                             uint64_t end);

/* Where the activations are held: a pipeline stage's layers and ends, how many micro-batches it
 * keeps in flight, and how the layout splits its tensors. */
typedef struct llmmem__act_stage {
    uint64_t first, end;          /* decoder layers [first, end) */
    int has_embedding, has_head;  /* first stage: token ids, embedding; last: final norm, head, loss */
    uint64_t in_flight_num;       /* micro-batches held = in_flight_num / in_flight_den */
    uint64_t in_flight_den;
    uint64_t loss_in_flight;      /* micro-batches whose loss tensors are held */
    uint64_t t, et, c;            /* tensor, expert-tensor and context parallel sizes */
    int sequence_parallel;
} llmmem__act_stage;

/* What a decoder layer saves, computed once per estimate (the same on every stage of a layout). */
typedef struct llmmem__act_kinds {
    llmmem__act_layer layer;       /* the layer as the strategy runs it */
    uint64_t dense, moe;           /* saved bytes of a dense and a MoE layer, as the strategy runs them */
    uint64_t dense_full, moe_full; /* the same without any recomputation (what recomputation rebuilds) */
    uint64_t input;                /* a layer's input: what full recomputation keeps */
    uint64_t backward;             /* a layer's backward working set (llmmem__layer_backward_bytes) */
    uint64_t first_less;           /* what the first layer does not save when its input needs no grad */
    /* a hybrid of Mamba-2, attention and MLP blocks: the saved bytes of each layer kind (plan index),
     * as run and without recomputation, instead of dense / moe */
    int hybrid;
    uint64_t kind[LLMMEM_LAYER_KINDS_MAX], kind_full[LLMMEM_LAYER_KINDS_MAX];
    unsigned e;                    /* bytes of an activation element */
    int64_t mode;                  /* llmmem_mode the kinds were made for (inference saves nothing) */
    int norm_fp32;
    llmmem__semantics sem;         /* the framework keys, resolved */
    llmmem__act_settings act;      /* the job's activation settings the kinds were made with */
} llmmem__act_kinds;

/* The layer kinds of a job's model as its strategy runs them, in its compute format, with its
 * semantics (their refusal reported here, after the model's). */
llmmem_status llmmem__act_kinds_make(llmmem__act_kinds *k, const llmmem__job *j, const llmmem__act_stage *stage);

/* Everything the layer kinds of a layout's stages read: the model (its id), the job's tokens, split,
 * mode, compute format, activation settings and semantics. 64-bit members alone: memcmp sees no
 * padding. */
typedef struct llmmem__act_key {
    uint64_t model_id, sequences, tokens, t, et, c, sp, compute, mode;
    llmmem__act_settings act;
    int64_t sem[12]; /* llmmem__semantics, member by member */
} llmmem__act_key;

/* The layer kinds of the jobs that made them, direct-mapped by their key (the report's cost cache
 * keeps one table: the planner's candidates cycle through recomputation modes and micro-batches). */
#define LLMMEM_ACT_CACHE_SLOTS 16
typedef struct llmmem__act_slot {
    int valid;
    llmmem__act_key key;
    llmmem__act_kinds kinds;
} llmmem__act_slot;
typedef struct llmmem__act_cache {
    llmmem__act_slot slot[LLMMEM_ACT_CACHE_SLOTS];
} llmmem__act_cache;

/* The layer kinds of the job's stages (llmmem__act_kinds_make on its layout's split): the cache's
 * when it holds this job's key (*out points there), else made into the key's slot of the cache (or
 * `own` without one). A failure leaves that slot empty. */
llmmem_status llmmem__act_kinds_of(const llmmem__act_kinds **out, llmmem__act_kinds *own, llmmem__act_cache *cache,
                                   const llmmem__job *j);

/* One stage's activations from the layer kinds: its layers under the recomputation mode, the
 * token ids and head inputs on the ends, the loss on the last stage. */
llmmem_status llmmem__stage_activations(llmmem__activations *out, const llmmem_model *m,
                                        const llmmem__act_kinds *k, const llmmem__act_stage *stage);

/* What one micro-batch's layers [stage first, upto) hold when their forward is done, under the
 * recomputation mode (the part of `held` the stage's first layers make). */
llmmem_status llmmem__layers_held_of(uint64_t *out, const llmmem_model *m, const llmmem__act_kinds *k,
                                     const llmmem__act_stage *st, uint64_t upto);

/* Layers of a stage looked at one by one (the backward's moments, the timeline's points); a longer
 * stage is sampled, its first and last layers always: the i-th of `samples` of `count` from `first`. */
#define LLMMEM_STAGE_SAMPLES 4096u
static inline uint64_t llmmem__stage_layer_at(uint64_t first, uint64_t count, uint64_t i, uint64_t samples)
{
    return samples == count ? first + i : first + i * (count - 1) / (samples - 1);
}

/* One decoder layer's backward moment on the stage: the gradients and activations alive. */
typedef struct llmmem__backward_point {
    uint64_t layer, grads, acts;
} llmmem__backward_point;

/* The backward moment of each sampled layer of the stage st (first and end set), from the last to
 * the first, given to `each` (NULL: none), and the highest in *best (the later layer on a tie): the
 * layers at and below a layer still hold theirs, recomputation rebuilds its chunk, its own working
 * set; `grads` are every gradient, lazily born ones all but those of the layers below it and the
 * embedding's; the last layer has the head's inputs freed. The highest need not be an end: a
 * layer's saved bytes and gradients differ by kind (DeepSeek-V3's dense layers before its MoE
 * ones). A stage without layers has the ends' moments alone. */
typedef llmmem_status (*llmmem__backward_fn)(void *ctx, const llmmem__backward_point *p);
llmmem_status llmmem__backward_points(llmmem__backward_point *best, llmmem__backward_fn each, void *ctx,
                                      const llmmem_model *m, const llmmem__act_kinds *k,
                                      const llmmem__act_stage *st, const llmmem__activations *a,
                                      const llmmem__step *step, uint64_t grads);

/* The training peak (llmmem.h): bytes[] comes with the static state and every gradient; the
 * gradients, activations, logits and optimizer temporaries become those of the step's highest
 * moment (the loss's forward, its backward, the highest layer's backward `bwd`, the optimizer
 * step), and *phase names it (llmmem_peak_phase). LLMMEM_ERR_OVERFLOW past 64 bits. */
llmmem_status llmmem__peak_components(uint64_t bytes[LLMMEM_COMPONENTS], int *phase, const llmmem__activations *a,
                                      const llmmem__step *st, const llmmem__backward_point *bwd, uint64_t forward);

/* A layer's forward moment: first_held, what the layers after the stage's first keep (held_l, counting
 * the first, less h1), the forward's locals and the layer's input (none for the stage's first layer
 * when its input is the embeddings). 0 past 64 bits. */
static inline int llmmem__forward_acts(uint64_t *acts, const llmmem__activations *a, uint64_t h1, uint64_t held_l,
                                       const llmmem__forward_extra *x, int embeddings_input)
{
    return llmmem__add(acts, a->first_held, held_l - h1) && llmmem__add(acts, *acts, x->locals) &&
           llmmem__add(acts, *acts, embeddings_input ? 0 : x->input);
}

/* The activations as the stage's last layer's forward returns (the timeline's last forward point; st
 * with has_embedding and has_head set): `forward` of llmmem__peak_components. */
llmmem_status llmmem__forward_point(uint64_t *acts, const llmmem_model *m,
                                   const llmmem__act_kinds *k, const llmmem__act_stage *st, const llmmem__activations *a);

/* The parts of the peak, as the report gives them (llmmem_report_peak_part). */
void llmmem__peak_parts(uint64_t parts[LLMMEM_PEAK_PARTS], const llmmem__activations *a);

/* The extras of a training step's stage (all 0 for inference); fails on overflow. */
llmmem_status llmmem__forward_extras(llmmem__forward_extra *out, const llmmem_model *m,
                                     const llmmem__act_kinds *k, const llmmem__act_stage *stage);

#endif
