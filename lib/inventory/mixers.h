/* Token mixers as rows (mixers.c): what each mixer is (its traits, the layer_types names that select
 * it) and, for a mixer that keeps a state per sequence, that state's shape as each engine stores it.
 * Views and engines read the model's state row (llmmem__state_row) instead of asking which mixer it is. */
#ifndef LLMMEM_MIXERS_H
#define LLMMEM_MIXERS_H

#include "base/internal.h"

/* What a mixer is (bits of llmmem__mixer_row.traits). */
enum llmmem__mixer_trait {
    LLMMEM_MIXER_ATTENTION = 1u << 0, /* attention over its own keys and values, cached per token */
    LLMMEM_MIXER_STATE = 1u << 1,     /* a fixed state per sequence instead of a cache per token */
    LLMMEM_MIXER_WINDOWED = 1u << 2,  /* keeps at most the model's window of tokens (sliding, chunked) */
    LLMMEM_MIXER_SHARED_KV = 1u << 3, /* reads an earlier layer's keys and values, caches none (Gemma 4) */
    LLMMEM_MIXER_CROSSING = 1u << 4,  /* attends to the image's keys and values (mllama) */
    LLMMEM_MIXER_MODELLED = 1u << 5   /* a layer_types entry naming it is costed (others refused by name) */
};

typedef struct llmmem__mixer_row {
    uint8_t id;          /* enum llmmem__mixer */
    unsigned traits;     /* enum llmmem__mixer_trait bits */
    const char *label;   /* the mixer in words */
    /* a state mixer's vLLM layer class (model_executor/layers/mamba, models/qwen3_next.py) and a llama.cpp
     * architecture that builds it (llama-arch.cpp); NULL for the others */
    const char *vllm, *llama;
    /* a state mixer's layers in the model (the geometry's count of them); NULL for the others */
    uint64_t (*layers)(const llmmem__geometry *g);
    /* vLLM's (and SGLang's) state of one sequence and layer on a tensor-parallel rank, in elements:
     * the conv state and the temporal (SSM or recurrent) state (model_executor/layers/mamba/mamba_utils.py) */
    llmmem_status (*vllm_state)(uint64_t *conv, uint64_t *temporal, const llmmem__geometry *g, uint64_t tp);
    /* the transformers cache's state of one sequence and layer, in bytes for elements of `e` bytes */
    uint64_t (*contiguous_state)(const llmmem__geometry *g, uint64_t e);
    /* llama.cpp's n_embd_r and n_embd_s (llama-hparams.cpp) as products of factors in the order
     * llamacpp.c multiplies them (unused factors 1), and the widths of the scan's input projection and
     * of its conv in the compute buffer; NULL: llama.cpp keeps none (0) */
    void (*llama_state)(uint64_t r[2], uint64_t s[3], const llmmem__geometry *g);
    void (*llama_widths)(uint64_t *inner, uint64_t *conv, const llmmem__geometry *g);
} llmmem__mixer_row;

/* The row of mixer `id` (enum llmmem__mixer), or NULL for a value that names none. */
const llmmem__mixer_row *llmmem__mixer_of(unsigned id);
/* The mixers (LLMMEM_MIXER_BIT mask) whose rows have every trait in `traits`. */
unsigned llmmem__mixers_with(unsigned traits);
/* The state row of the model's state layers, or NULL when it has none; the first row in id order
 * when it has several kinds (every engine refuses them: llmmem__state_kinds). */
const llmmem__mixer_row *llmmem__state_row(const llmmem__geometry *g);
/* Mamba-2 groups of the whole layer once tensor_parallel `tp` splits it (mamba_utils.py
 * extra_groups_for_head_shards: a single group is copied to every rank, tp - 1 extra; MambaMixer2 refuses the
 * other groups tp does not divide, as llmmem__mixer_of(LLMMEM_MIXER_MAMBA2)->vllm_state does). */
uint64_t llmmem__mamba2_groups(const llmmem__geometry *g, uint64_t tp);
/* The layer_types names a model's input may give, the modelled ones listed for messages
 * ("a, b and c"); returns the characters written, as snprintf does. */
int llmmem__modelled_layer_types(char *out, size_t size);

#endif
