/* Internal: the parallel layout of a training or inference job and what one rank of each
 * pipeline stage holds (parallel.c). */
#ifndef LLMMEM_PARALLEL_H
#define LLMMEM_PARALLEL_H

#include "views/activations.h"
#include "views/rank.h"
#include "views/training.h"

/* Decoder layers of a stage: the first of its first chunk, and how many it holds. */
void llmmem__stage_layers(const llmmem__layout *L, uint64_t layers, uint64_t stage, uint64_t *first,
                          uint64_t *count);

/* What the state of one rank of a stage is made of, before data-parallel sharding. */
typedef struct llmmem__stage_parts {
    llmmem__training dense, experts; /* the rank's tensors other than routed experts, and those */
    uint64_t params, once_params;    /* parameters on the rank; those outside the decoder layers */
    uint64_t dense_params, expert_params; /* the rank's parameters other than routed experts, and those */
    uint64_t layer_params;           /* the rank's share of its largest decoder layer */
    uint64_t largest_tensor;         /* its largest single tensor */
} llmmem__stage_parts;

/* Every class's shape on one rank and what one of its tensors costs there: computed once per
 * estimate, then multiplied by each stage's counts. */
typedef struct llmmem__rank_costs {
    /* a rank holding the whole model (a layout that neither splits nor shards): its state, when
     * whole_made (llmmem__whole_costs; llmmem__rank_costs_of leaves both as they were) */
    int whole_made;
    llmmem__training whole;
    llmmem__inventory shapes;                     /* the model's classes, split by t, et and e */
    llmmem__class_cost cost[LLMMEM_MAX_TENSOR_CLASSES];
    int any_8bit;
    /* one decoder layer of each kind (the geometry's plan), by part (0: all but routed experts,
     * 1: routed experts), when no layer is frozen */
    llmmem__training unit[LLMMEM_LAYER_KINDS_MAX][2];
    uint64_t unit_params[LLMMEM_LAYER_KINDS_MAX][2];
    uint64_t unit_largest[LLMMEM_LAYER_KINDS_MAX]; /* the kind's largest tensor on the rank */
    uint64_t unit_layer[LLMMEM_LAYER_KINDS_MAX];   /* one layer's parameters of the kind on the rank */
    /* the classes outside the layers (kinds 0: embeddings, final norm, head), which a stage without
     * frozen layers adds one by one beside its layer sums */
    uint8_t outside[LLMMEM_MAX_TENSOR_CLASSES];
    unsigned outside_n;
} llmmem__rank_costs;

/* The state of the stages (llmmem__stage_state_of) the last training estimates computed, for the next
 * with the same layout: a stage's state reads the layout, the pricing and the job's device and
 * communication settings, not the micro-batch, num_micro_batches or recompute, which are all the
 * planner's candidates of one layout differ in (its holder keeps the rest fixed: the planner's run
 * over one model, device and base strategy, cleared when the pricing changes). valid 0: empty. */
typedef struct llmmem__state_cache {
    int valid;
    llmmem__layout layout; /* the key: the layout with num_micro_batches (m) cleared */
    unsigned n;            /* stages kept (the first, a middle and the last at most) */
    uint64_t stage[3], host[3], nvme[3];
    llmmem__stage_report report[3];
    llmmem__stage_parts parts[3];
} llmmem__state_cache;

/* The rank's costs from a pricing (job.h): the model's shapes and the pricing are all it reads, so
 * the pricing keys a cache of it. */
llmmem_status llmmem__rank_costs_of(llmmem__rank_costs *rc, const llmmem_model *m, const llmmem__pricing *p);
/* The state of a rank holding the whole model (rc->whole): training.c's sums over the model's own
 * inventory (weights alone in inference), the weights an attached checkpoint's stored bytes where
 * the job takes them. Without a checkpoint the job's pricing is all it reads. */
llmmem_status llmmem__whole_costs(llmmem__rank_costs *rc, const llmmem__job *j);

/* One device of a stage of a resolved job (its layout) without activations: weights, gradients,
 * master weights and optimizer states sharded over data parallelism and offloaded, communication
 * buffers, runtime overhead; *host and *nvme receive the offloaded bytes of that device. For a layout
 * that neither splits nor shards the rank holds the whole model, its state rc->whole (made here when
 * rc is NULL or has none). */
llmmem_status llmmem__stage_state_of(llmmem__stage_report *out, uint64_t *host, uint64_t *nvme, const llmmem__job *j,
                                     const llmmem__rank_costs *rc, uint64_t stage, llmmem__stage_parts *ss);

/* Micro-batches whose activations (in_flight_num / in_flight_den) and loss tensors
 * (loss_in_flight) a stage holds under the layout's pipeline schedule. */
void llmmem__in_flight(const llmmem__layout *L, uint64_t stage, llmmem__act_stage *a);

/* The data-parallel divisor of a part of the state (what: 0 weights, 1 gradients, 2 master
 * weights and optimizer states) over `ranks`, or 1 when the layout does not shard it. */
uint64_t llmmem__sharded(const llmmem__layout *L, uint64_t ranks, int what);

/* The gradient bytes of a part that data parallelism reduces: ZeRO-3 reduces 16-bit gradients
 * straight into the fp32 partition the optimizer reads (stage3.py: 18 bytes a parameter over the
 * ranks, no 16-bit gradient kept). */
static inline uint64_t llmmem__reduced_gradients(const llmmem__layout *L, const llmmem__training *t)
{
    return L->zero == 3 && t->gradient_copy ? t->gradient_copy : t->gradients;
}

struct llmmem__trace; /* views/trace.h */

/* Fills the report's stages and components for any layout, one device (t = p = d = 1) included;
 * `costs` are the layout's rank costs when the caller has them (the report's cache), else NULL;
 * for a layout whose rank is the whole model, llmmem__whole_costs's. Training takes its layer
 * kinds from `acts` (llmmem__act_kinds_of; NULL: made for this call). Records the most loaded
 * stage into `trace` when it is not NULL, and takes the stages' state from `states` when it holds
 * them (NULL: none; training alone). most_loaded_only: the caller reads the most loaded stage
 * alone (the planner), so a middle stage that cannot be more loaded than an earlier one is skipped
 * and its entry in stages[] left as it was. */
llmmem_status llmmem__parallel_estimate(llmmem_report *r, const llmmem__job *j, const llmmem__rank_costs *costs,
                                        llmmem__act_cache *acts, struct llmmem__state_cache *states,
                                        struct llmmem__trace *trace, int most_loaded_only);


#endif
