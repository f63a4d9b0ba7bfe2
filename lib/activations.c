/* Activation memory of one transformer layer from the tensors it saves for backward.
 * Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models",
 * §4.1 lists them for a GPT layer (Table 2 sums them: sbh(34 + 5as/h) with 16-bit activations
 * and 1-byte dropout masks); this file keeps each one separate so GQA (smaller K and V), gated
 * MLPs, fused attention and each recomputation mode change only the tensors they change. */
#include "activations.h"

typedef struct acc {
    uint64_t total;
    int overflow;
} acc;

/* Adds n elements of `bytes` each, split over the t tensor-parallel ranks when `split`. */
static void keep(acc *a, const llmmem__act_layer *l, uint64_t elements, unsigned bytes, int split)
{
    uint64_t b;
    if (!llmmem__mul(&b, elements, bytes)) {
        a->overflow = 1;
        return;
    }
    if (split || l->sequence_parallel)
        b = llmmem__ceil_div(b, l->t);
    if (!llmmem__add(&a->total, a->total, b))
        a->overflow = 1;
}

/* n1 x n2 x n3 x n4 elements, checked. */
static uint64_t elems(acc *a, uint64_t n1, uint64_t n2, uint64_t n3, uint64_t n4)
{
    uint64_t x;
    if (!llmmem__mul(&x, n1, n2) || !llmmem__mul(&x, x, n3) || !llmmem__mul(&x, x, n4)) {
        a->overflow = 1;
        return 0;
    }
    return x;
}

llmmem_status llmmem__layer_activation_bytes(uint64_t *bytes_out, const llmmem__act_layer *l)
{
    acc a = {0, 0};
    const unsigned e = l->bytes;
    const uint64_t sbh = elems(&a, l->s, l->b, l->h, 1);
    if (l->recompute == LLMMEM_RECOMPUTE_FULL) {
        /* Korthikanti §5 (full recomputation): only the layer's input, 2sbh */
        keep(&a, l, sbh, e, 0);
    } else {
        const uint64_t q = elems(&a, l->s, l->b, l->a, l->d), kv = elems(&a, l->s, l->b, l->g, l->d);
        const uint64_t scores = elems(&a, l->a, l->s, l->s, l->b), sbf = elems(&a, l->s, l->b, l->f, 1);
        /* Attention block (§4.1): the norm's input and the QKV projection's input, unsplit by TP */
        keep(&a, l, sbh, e, 0);
        keep(&a, l, sbh, e, 0);
        /* Q and K for QK^T, V for the product with the scores; GQA keeps g heads of K and V */
        keep(&a, l, q, e, 1);
        keep(&a, l, kv, e, 1);
        keep(&a, l, kv, e, 1);
        if (l->flash) {
            /* FlashAttention (Dao et al. 2022) keeps no s x s tensor, only the fp32 log-sum-exp per row */
            keep(&a, l, elems(&a, l->a, l->s, l->b, 1), 4, 1);
        } else if (l->recompute != LLMMEM_RECOMPUTE_SELECTIVE) {
            /* softmax output 2as^2b; with dropout its 1-byte mask and its output 2as^2b more */
            keep(&a, l, scores, e, 1);
            if (l->dropout) {
                keep(&a, l, scores, 1, 1);
                keep(&a, l, scores, e, 1);
            }
        }
        /* the output projection's input (heads x head_dim wide) and the hidden dropout's mask */
        keep(&a, l, q, e, 1);
        if (l->dropout)
            keep(&a, l, sbh, 1, 0);
        /* MLP block: the norm's input and the first linear's input, unsplit by TP */
        keep(&a, l, sbh, e, 0);
        keep(&a, l, sbh, e, 0);
        if (l->gated) {
            /* gate and up outputs (the fused SwiGLU's input), and the down projection's input */
            keep(&a, l, sbf, e, 1);
            keep(&a, l, sbf, e, 1);
            keep(&a, l, sbf, e, 1);
        } else {
            /* GeLU's input and output (the second linear's input): 8sbh each when f = 4h */
            keep(&a, l, sbf, e, 1);
            keep(&a, l, sbf, e, 1);
        }
        if (l->dropout)
            keep(&a, l, sbh, 1, 0);
    }
    if (a.overflow)
        return llmmem__fail(LLMMEM_ERR_OVERFLOW, "activation bytes of a layer (s %llu, b %llu, h %llu) exceed 64 bits",
                            (unsigned long long)l->s, (unsigned long long)l->b, (unsigned long long)l->h);
    *bytes_out = a.total;
    return LLMMEM_OK;
}
