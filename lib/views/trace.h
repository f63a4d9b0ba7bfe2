/* Internal: what an estimate worked with on its way to the report (views/parallel.c records the most
 * loaded stage; engines/estimate.c the job's settings; report/explain.c and report/timeline.c read
 * it). Not installed. */
#ifndef LLMMEM_TRACE_H
#define LLMMEM_TRACE_H

#include "views/generate.h"
#include "views/parallel.h"

/* One part of the most loaded rank's state (0: the tensors other than routed experts, 1: those)
 * before data-parallel sharding, by component (llmmem_component: weights, gradients as data
 * parallelism reduces them, master weights, optimizer states), and what the layout divides each by. */
typedef struct llmmem__trace_part {
    uint64_t params, trained;             /* parameters on the rank; those trained */
    uint64_t bytes[4];                    /* the weights include the LoRA adapters' */
    uint64_t divisor[4];
    uint64_t adapter_weights;
} llmmem__trace_part;

/* What an estimate worked with on its way to the report, beyond the report itself: the figures
 * llmmem_explain prints (explain.c formats them and computes nothing). */
typedef struct llmmem__trace {
    llmmem__layout layout;                /* the job's */
    int64_t mode;
    /* the settings explain names, as the strategy gives them (auto stays auto) */
    int64_t weight_format, gradient_format, master_weights_format, optimizer_state_format;
    int64_t optimizer, precision_recipe, recompute, cross_entropy;
    llmmem__trace_part part[2];           /* the most loaded stage's */
    /* training: that stage's layers, one micro-batch's activations held on it and the micro-batches
     * its schedule keeps in flight (in_flight_num / in_flight_den) */
    uint64_t first_layer, layers;
    uint64_t unit_held, in_flight_num, in_flight_den;
    /* training: the step's moments on that stage (timeline.c walks them, explain.c prints the peak's) */
    int have_step;
    uint64_t state[LLMMEM_COMPONENTS];    /* its bytes with every gradient, before the peak's moment */
    llmmem__activations acts;             /* the micro-batches in flight's */
    llmmem__step step;
    llmmem__act_kinds kinds;
    llmmem__act_stage stage;              /* its layers and ends */
    /* inference: the KV cache of `sequences` sequences of `tokens` tokens */
    int kv_heads;                         /* 0: a model given by its count, no KV heads */
    int kv_whole;                         /* the cache is kv_token_bytes x tokens x sequences */
    uint64_t kv_token_bytes;              /* one token of one sequence in every layer, contiguous */
    uint64_t sequences, tokens;
    /* inference under the generate loop: its peak moment, term by term (has_gen) */
    int has_gen;
    llmmem__gen_moment gen;
    llmmem__gen_shape gen_shape;          /* the loop's shape (timeline.c lists its steps' moments) */
} llmmem__trace;

/* Records the most loaded stage's parts before sharding, their divisors and its layers
 * (parallel.c, which records its activations too). */
void llmmem__trace_stage(llmmem__trace *t, const llmmem__layout *L, const llmmem__stage_parts *ss,
                         const llmmem__stage_report *sr);

#endif
