/* Internal: what one rank holds of each tensor class (rank.c). Not installed. */
#ifndef LLMMEM_RANK_H
#define LLMMEM_RANK_H

#include "job/job.h"

/* Whether a rank of the first and/or last pipeline stage holds a class that is not per layer:
 * the embedding on the first (a tied one on the last too), the final norm and LM head on the last,
 * every other such class on the first. */
int llmmem__rank_holds(const llmmem__tensor_class *t, const llmmem_model *m, int first_stage, int last_stage);

/* Every class's shape on one rank: split over t, routed experts over et (the counts stay the
 * model's; stages take their share). */
void llmmem__rank_shapes(llmmem__inventory *out, const llmmem_model *m, uint64_t t, uint64_t et);

/* Weight bytes of the classes of one llmmem_param_group (group -1: every class) on one rank holding
 * decoder layers [first, end) (the embedding when first_stage, the final norm and head when
 * last_stage, a tied embedding on both) in the formats of the weight plan, every class split over
 * `ways` tensor-parallel ranks as llmmem__rank_shapes splits them (experts too: no expert
 * parallelism). */
llmmem_status llmmem__rank_group_weight_bytes(uint64_t *out, const llmmem_model *m, const llmmem__weight_plan *wp,
                                              uint64_t ways, uint64_t first, uint64_t end, int first_stage,
                                              int last_stage, int group);

/* The same as a serving engine's rank holds them: a class of served_head split in whole heads of it, one on every
 * rank at least (vLLM and SGLang shard MiniMax-M3's index_q_proj as their KV heads), the others as above. */
llmmem_status llmmem__served_rank_weight_bytes(uint64_t *out, const llmmem_model *m, const llmmem__weight_plan *wp,
                                               uint64_t ways, uint64_t first, uint64_t end, int first_stage,
                                               int last_stage, int group);

/* The vision classes as SGLang's rank holds them where it splits the tower over its `ways` attention ranks
 * (served_tower): each class's served_whole elements whole, the rest split evenly, all in the weight plan's
 * high-precision format (the tower is built unquantized in the model's dtype). Refused where a vision class has no
 * such rule or its split part does not divide evenly (SGLang's linear layers assert it). */
llmmem_status llmmem__served_tower_weight_bytes(uint64_t *out, const llmmem_model *m, const llmmem__weight_plan *wp,
                                                uint64_t ways);

/* Weight bytes of the multi-token-prediction modules (llmmem__mtp_inventory) on one rank, every
 * class split over `ways` tensor-parallel ranks as the decoder layers' are. */
llmmem_status llmmem__mtp_rank_weight_bytes(uint64_t *out, const llmmem_model *m, const llmmem__weight_plan *wp,
                                            uint64_t ways);

/* A rank's weights priced once, so that a layout asking for many layer ranges (llama.cpp's devices,
 * every --fit probe) multiplies layer counts instead of pricing formats: the bytes one layer holds of
 * each (kind set, group) row of per-layer classes, and of each class outside the layers its bytes. */
typedef struct llmmem__rank_weight_row {
    uint8_t kinds, group;
    uint64_t bytes;                                  /* per layer of the kind set */
} llmmem__rank_weight_row;

typedef struct llmmem__rank_weights {
    const llmmem_model *m;
    uint64_t model_id;                               /* the contents priced (llmmem_model id; 0: none) */
    llmmem__weight_plan plan;
    uint64_t ways;
    unsigned rows;
    llmmem__rank_weight_row row[LLMMEM_MAX_TENSOR_CLASSES];
    unsigned outside;                                /* classes outside the layers */
    uint8_t outside_class[LLMMEM_MAX_TENSOR_CLASSES]; /* each one's index in the inventory */
    uint64_t whole[LLMMEM_MAX_TENSOR_CLASSES];       /* each one's tensors, all of them */
    int unpriced;                                    /* a class's bytes exceed 64 bits: every sum is
                                                        llmmem__rank_group_weight_bytes's */
} llmmem__rank_weights;

void llmmem__rank_weights_make(llmmem__rank_weights *out, const llmmem_model *m, const llmmem__weight_plan *wp,
                               uint64_t ways);

/* The same, kept when *out already holds this model's contents (its id) under this plan and ways:
 * a result handle keeps its table from one estimate to the next. */
void llmmem__rank_weights_keep(llmmem__rank_weights *out, const llmmem_model *m, const llmmem__weight_plan *wp,
                               uint64_t ways);

/* llmmem__rank_group_weight_bytes from the table: the same bytes, and the same failure (it is the
 * one that answers when a class cannot be priced or the sum overflows). */
llmmem_status llmmem__rank_weights_sum(uint64_t *out, const llmmem__rank_weights *w, uint64_t first, uint64_t end,
                                       int first_stage, int last_stage, int group);

#endif
