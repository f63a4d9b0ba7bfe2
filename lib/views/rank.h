/* Internal: what one rank holds of each tensor class (rank.c). Not installed. */
#ifndef LLMMEM_RANK_H
#define LLMMEM_RANK_H

#include "base/internal.h"

/* Whether a rank of the first and/or last pipeline stage holds a class that is not per layer:
 * the embedding on the first (a tied one on the last too), the final norm and LM head on the last,
 * every other such class on the first. */
int llmmem__rank_holds(const llmmem__tensor_class *t, const llmmem_model *m, int first_stage, int last_stage);

/* Every class's shape on one rank: split over t, routed experts over et (the counts stay the
 * model's; stages take their share). */
void llmmem__rank_shapes(llmmem__inventory *out, const llmmem_model *m, uint64_t t, uint64_t et);

/* Weight bytes of one rank holding decoder layers [first, end) (the embedding when first_stage,
 * the final norm and head when last_stage, a tied embedding on both), every class split over `ways`
 * tensor-parallel ranks as llmmem__rank_shapes splits them (experts too: no expert parallelism). */
llmmem_status llmmem__rank_weight_bytes(uint64_t *out, const llmmem_model *m, const llmmem_strategy *s, uint64_t ways,
                                        uint64_t first, uint64_t end, int first_stage, int last_stage);

/* The same for the classes of one llmmem_param_group alone (group -1: every class). */
llmmem_status llmmem__rank_group_weight_bytes(uint64_t *out, const llmmem_model *m, const llmmem_strategy *s,
                                              uint64_t ways, uint64_t first, uint64_t end, int first_stage,
                                              int last_stage, int group);

/* Weight bytes of the multi-token-prediction modules (llmmem__mtp_inventory) on one rank, every
 * class split over `ways` tensor-parallel ranks as the decoder layers' are. */
llmmem_status llmmem__mtp_rank_weight_bytes(uint64_t *out, const llmmem_model *m, const llmmem_strategy *s,
                                            uint64_t ways);

#endif
