/* Internal: training state (gradients, master weights, optimizer states, LoRA adapters) of a
 * resolved job (job.h), training.c. Not installed. */
#ifndef LLMMEM_TRAINING_H
#define LLMMEM_TRAINING_H

#include "job/job.h"

/* Per-device training memory of a single-device run, by component. */
typedef struct llmmem__training {
    uint64_t weights;           /* the whole model in its weight formats, plus adapter weights */
    uint64_t adapter_weights;   /* the LoRA adapters' share of `weights` (0 in mode training) */
    uint64_t gradients;         /* gradients of trained parameters, and any fp32 gradient copy */
    uint64_t gradient_copy;     /* the fp32 gradient copy's share of `gradients` */
    uint64_t master_weights;    /* the optimizer's higher-precision copy of trained parameters */
    uint64_t optimizer_states;  /* the optimizer's per-parameter states and their statistics */
    uint64_t trainable;         /* trained parameters: unfrozen ones, or the adapters' */
} llmmem__training;

/* The same for the tensors of one rank (a view built by parallel.c): the model's weight formats,
 * frozen layers counted within the view's layers. */
llmmem_status llmmem__training_state(llmmem__training *out, const llmmem__job *j, const llmmem__view *v);

/* What one tensor of a class costs: its weight bytes, and for a tensor that is trained (not in a
 * frozen layer) its adapters, gradients, master weights and optimizer states. Per-tensor sums over a
 * rank's tensors equal llmmem__training_state's, so a parallel estimate computes the costs once and
 * multiplies them by each stage's counts. */
typedef struct llmmem__class_cost {
    uint64_t weights;
    uint64_t adapter_weights, gradients, gradient_copy, master_weights, optimizer_states, trainable;
    uint8_t eight_bit; /* its optimizer states are bitsandbytes 8-bit */
} llmmem__class_cost;

/* The bytes bitsandbytes' 8-bit optimizers keep once per device (their quantization maps). */
#define LLMMEM__BNB_QMAPS_BYTES (2u * 256u * 4u)

/* Costs of one tensor of each class of `shapes` (counts ignored); *any_8bit is set when a tensor
 * would keep 8-bit states. Fails like llmmem__training_state on settings that cannot train. */
llmmem_status llmmem__class_costs(llmmem__class_cost *out, int *any_8bit, const llmmem__inventory *shapes,
                                  const llmmem__pricing *p);

#endif
