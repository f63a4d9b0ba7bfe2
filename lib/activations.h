/* Internal: the tensors one transformer layer saves for its backward pass, and their bytes.
 * The estimate composes these per layer, per micro-batch in flight (training issue). */
#ifndef LLMMEM_ACTIVATIONS_H
#define LLMMEM_ACTIVATIONS_H

#include "internal.h"

enum llmmem__recompute {
    LLMMEM_RECOMPUTE_NONE = 0,
    LLMMEM_RECOMPUTE_SELECTIVE = 1, /* attention core recomputed (Korthikanti et al. 2022 §5) */
    LLMMEM_RECOMPUTE_FULL = 2       /* only the layer input is kept */
};

/* One layer's shapes and how it runs. Element counts use s (tokens), b (sequences), h (hidden),
 * a / g (query / KV heads) of d, f (MLP width). */
typedef struct llmmem__act_layer {
    uint64_t s, b, h, a, g, d, f;
    uint64_t t;            /* tensor-parallel size */
    unsigned bytes;        /* bytes of one activation element (2 for bf16) */
    int sequence_parallel; /* Megatron SP: the tensors outside TP regions split over t too */
    int dropout;           /* attention and hidden dropout (1-byte masks, dropout outputs) */
    int flash;             /* fused attention: no s x s tensors, an fp32 log-sum-exp per row */
    int gated;             /* SwiGLU: gate and up outputs kept (fused as in Megatron's bias_swiglu) */
    enum llmmem__recompute recompute;
} llmmem__act_layer;

/* Bytes the layer keeps per micro-batch on one tensor-parallel rank. 0 on success, else
 * LLMMEM_ERR_OVERFLOW with the message set. */
llmmem_status llmmem__layer_activation_bytes(uint64_t *bytes_out, const llmmem__act_layer *l);

#endif
