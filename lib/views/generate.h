/* Internal: inference as transformers' generate loop runs it (generate.c): the prefill and the
 * decode steps, moment by moment, and the peak over them. Not installed. */
#ifndef LLMMEM_GENERATE_H
#define LLMMEM_GENERATE_H

#include "job/framework.h"
#include "job/job.h"

/* How the attention of a moment allocates (the semantics' attn_implementation, grouped). */
enum {
    LLMMEM__GEN_EAGER = 0, /* eager (and Megatron's core): the scores, repeat_kv copies */
    LLMMEM__GEN_SDPA = 1,  /* torch SDPA: no scores; repeat_kv and a bool mask only with a mask */
    LLMMEM__GEN_FLASH = 2  /* flash_attention_2 (and fused): no scores, no mask, no copies */
};

/* The loop's inputs, resolved once from the job (llmmem__generate_shape). */
typedef struct llmmem__gen_shape {
    uint64_t b, s, n;          /* sequences the model sees (micro_batch_size x num_beams), prompt tokens,
                                  new tokens (at least 1: the prefill's) */
    uint64_t batch, beams;     /* the caller's prompts (micro_batch_size) and num_beams (1: greedy) */
    uint64_t h, layers, a, g;  /* hidden, decoder layers, query heads, KV heads */
    uint64_t d, dv;            /* a query/key head's width, a value head's */
    uint64_t f, vocab;         /* MLP width, vocabulary */
    int gated;                 /* three-matrix MLP */
    uint64_t e;                /* bytes of an activation element (the model's dtype) */
    uint64_t token_layer;      /* one token's keys and values in one layer (kv_cache_dtype) */
    uint64_t full, sliding, window; /* full and sliding-window layers, the window */
    uint64_t rotary;           /* rotary cos/sin pairs the model's forward computes, [b, q, d] each (Gemma 3:
                                  a global and a local one); 0: a learned position table's [b, q, h] lookup */
    int keeps_attn_output;     /* the block keeps its attention's output named through its MLP (GPT2Block) */
    int gelu_ops;              /* the MLP's activation is NewGELUActivation's arithmetic (gelu_new, eager) */
    uint64_t experts, top_k;   /* the last layer's routed experts and experts per token (0: a dense MLP) */
    int grouped;               /* its experts run transformers' grouped_mm_experts_forward */
    int attn;                  /* LLMMEM__GEN_* */
    int64_t cache;             /* llmmem_cache_implementation: dynamic, static, offloaded */
    uint64_t keep;             /* logits_to_keep (0: every position) */
    int softmax_copy;          /* softmax(x, dtype=float32) converts a 16-bit input first */
    int torch1;                /* PyTorch 1.13 on CPU (StaticLayer's any() casts the keys to bool) */
    int cpu_topk;              /* ATen's CPU topk (device_kernels cpu, or PyTorch 1.13 as measured here):
                                  a (value, index) queue over the row */
} llmmem__gen_shape;

#define LLMMEM__GEN_TERMS 24

/* One tensor (or group) alive at a moment, and the report component it belongs to. */
typedef struct llmmem__gen_term {
    const char *what;
    uint64_t bytes;
    int component; /* LLMMEM_COMPONENT_KV_CACHE, _ACTIVATIONS or _LOGITS */
} llmmem__gen_term;

/* A moment of the loop: what is alive beside the weights, by component. */
typedef struct llmmem__gen_moment {
    int phase;          /* LLMMEM_PEAK_PHASE_PREFILL or _DECODE */
    int64_t layer;      /* decoder layer, -1 outside the layers */
    uint64_t step;      /* 0: the prefill; decode steps 1..n-1 */
    const char *what;   /* the moment in words */
    unsigned terms;
    llmmem__gen_term term[LLMMEM__GEN_TERMS];
    uint64_t kv_cache, activations, logits, total;
} llmmem__gen_moment;

/* The most moments one step has (six of the forward's and generate's, four of beam search's), and
 * llmmem__generate_moments lists. */
#define LLMMEM__GEN_STEP_MOMENTS 10
#define LLMMEM__GEN_MOMENTS (2 * LLMMEM__GEN_STEP_MOMENTS)

/* Resolves the loop's shape from a job in mode inference and its semantics (sem->cache not AUTO);
 * fails on a model without shapes or a layout the loop is not modelled for. */
llmmem_status llmmem__generate_shape(llmmem__gen_shape *out, const llmmem__job *j, const llmmem__semantics *sem);

/* The loop's candidate moments, prefill's then decode's (at its last step, where the cache is
 * longest), for a timeline view; *count receives how many. Fails on overflow. */
llmmem_status llmmem__generate_moments(llmmem__gen_moment out[LLMMEM__GEN_MOMENTS], unsigned *count,
                                       const llmmem__gen_shape *g);

/* The candidate moments of one step of the loop (0: the prefill; 1..n-1: decode steps, each over
 * its own cache length), for a timeline view: call it for every step. */
llmmem_status llmmem__generate_step_moments(llmmem__gen_moment out[LLMMEM__GEN_STEP_MOMENTS], unsigned *count,
                                            const llmmem__gen_shape *g, uint64_t step);

/* The highest of the prefill's and the last decode step's (the longest cache; a static cache's
 * step 1 for its held 4D mask), the first of equals. */
llmmem_status llmmem__generate_peak(llmmem__gen_moment *peak, const llmmem__gen_shape *g);

/* Bytes of the whole cache at the loop's end: what an offloaded cache keeps on the host. */
llmmem_status llmmem__generate_host_cache(uint64_t *out, const llmmem__gen_shape *g);

#endif
