/* Vision towers as rows (towers.c): what each tower's processor does with an image, read by the
 * vLLM encoder budget (engines/serving.c) and the tower's saved activations (views/activations.c). */
#ifndef LLMMEM_TOWERS_H
#define LLMMEM_TOWERS_H

#include "base/internal.h"

/* A tower whose images the library sizes: the processor's largest image and what it embeds into. */
typedef struct llmmem__tower {
    llmmem__vision_kind kind;
    uint64_t max_pixels;   /* the processor's largest image, in pixels (0: vision_image_size squared, fixed) */
    int side_round_up;     /* the image's side in patch x merge factors: rounded up, else down */
    int text_width;        /* an embedding is the text model's width (a projector's), else out_hidden_size */
    int deepstack;         /* the deepstack mergers' outputs are concatenated to the merger's */
    uint64_t frames;       /* temporal patch size when the config has none (1: images alone) */
} llmmem__tower;

/* The row of vision_model_type `kind`, or NULL for a tower whose images are not sized. */
const llmmem__tower *llmmem__tower_of(int64_t kind);

/* A tower whose largest item is its processor's alone (the processor class's defaults or the checkpoint's
 * preprocessor_config.json, which config.json does not carry): vLLM's encoder budget takes it in tokens of the
 * text model's width. The tower's training activations are not sized (no llmmem__tower row). */
typedef struct llmmem__tower_item {
    llmmem__vision_kind kind;
    uint64_t tokens;     /* the largest item's embeddings (0: from max_pixels) */
    uint64_t max_pixels; /* the processor's pixel budget, factored into a grid of tokens (0 and tokens 0: the
                          * largest item is not established) */
} llmmem__tower_item;

/* The item row of vision_model_type `kind`, or NULL. */
const llmmem__tower_item *llmmem__tower_item_of(int64_t kind);

/* Tokens of the largest image within `pixels` in factors of `factor` (patch x merge) as vLLM's
 * Qwen2VLProcessingInfo.get_image_size_with_most_features factors them: pixels // factor^2 tokens, one fewer
 * while the closest factor pair's sides differ more than 200-fold (0 for a zero factor). */
uint64_t llmmem__tower_budget_tokens(uint64_t pixels, uint64_t factor);

/* The side of an image of `pixels` (a square) in factors of patch x merge: the processors' resize. */
static inline uint64_t llmmem__tower_side(const llmmem__tower *t, uint64_t pixels, uint64_t factor)
{
    uint64_t root = llmmem__isqrt(pixels);
    return factor == 0 ? 0 : t->side_round_up ? llmmem__ceil_div(root, factor) : root / factor;
}

#endif
