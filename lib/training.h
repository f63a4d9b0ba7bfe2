/* Internal: training state (gradients, master weights, optimizer states, LoRA adapters) and the
 * weight formats it depends on. Not installed. */
#ifndef LLMMEM_TRAINING_H
#define LLMMEM_TRAINING_H

#include "internal.h"

/* ---- weight formats of one estimate (weights.c) ------------------------- */

/* How the strategy stores the model's weights in its mode, every `auto` resolved. */
typedef struct llmmem__weight_plan {
    llmmem_format weight; /* weight matrices the format applies to (see quantize_* keys) */
    llmmem_format high;   /* the other tensors: norms, biases, and unquantized embedding/head/router */
    uint64_t group;       /* group or block size (0: the format's default) */
    int double_quant;     /* bitsandbytes 4-bit double quantization */
} llmmem__weight_plan;

/* Resolves weight_format, high_precision_format, quant_group_size and double_quant for the
 * strategy's mode. Fails (message set) on a group size the format rejects, or on a weight
 * format full training cannot keep. */
llmmem_status llmmem__weight_plan_make(llmmem__weight_plan *out, const llmmem_model *m,
                                       const llmmem_strategy *s);
/* The storage format of one tensor class under a plan. */
llmmem_format llmmem__weight_plan_format(const llmmem__weight_plan *p, const llmmem__tensor_class *t,
                                         const llmmem_strategy *s);

/* ---- training state (training.c) ----------------------------------------- */

/* The format full training keeps its weights in when weight_format is auto: the precision
 * recipe's (megatron, pure_bf16: bf16; zero, deepspeed: fp16; fp32: fp32; custom: torch_dtype). */
llmmem_format llmmem__recipe_weight_format(int64_t recipe, llmmem_format torch_dtype);

/* The format training computes and saves activations in: activation_format, else for mode training
 * the 16-bit (or fp32) format of the trained weights, for lora the base's unquantized format, for
 * qlora bf16 (qlora.py bnb_4bit_compute_dtype with --bf16). */
llmmem_status llmmem__compute_format(llmmem_format *out, const llmmem_model *m, const llmmem_strategy *s);

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
llmmem_status llmmem__training_state(llmmem__training *out, const llmmem_model *m, const llmmem__view *v,
                                     const llmmem_strategy *s);

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
llmmem_status llmmem__class_costs(llmmem__class_cost *out, int *any_8bit, const llmmem_model *m,
                                  const llmmem__inventory *shapes, const llmmem_strategy *s);

/* Fills *out for mode training, lora or qlora (all zero for inference). No allocation.
 * Fails with the message naming the key and value at fault, or LLMMEM_ERR_OVERFLOW. */
llmmem_status llmmem__training_estimate(llmmem__training *out, const llmmem_model *m,
                                        const llmmem_strategy *s);

/* Trainable parameters: in mode training every parameter outside the first frozen_layers
 * decoder layers; in lora/qlora the adapters' A and B matrices; 0 for inference. */
llmmem_status llmmem__trainable_parameters(uint64_t *count_out, const llmmem_model *m,
                                           const llmmem_strategy *s);

/* Whether LoRA adapters with the lora_targets bits go on a tensor class (routed experts only with
 * the experts bit). */
int llmmem__lora_target(const llmmem__tensor_class *t, unsigned targets);

/* Bytes of the LoRA adapter weights alone (lora_format), counted in the weights component. */
llmmem_status llmmem__adapter_weight_bytes(uint64_t *bytes_out, const llmmem_model *m,
                                           const llmmem_strategy *s);

#endif
