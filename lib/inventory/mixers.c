/* Token mixers as rows: one row per enum llmmem__mixer value, and each state mixer's state shape as
 * vLLM, transformers and llama.cpp store it (pure functions of the model's geometry). */
#include <stdio.h>
#include <string.h>

#include "inventory/mixers.h"

static llmmem_status not_divided(const char *what, uint64_t n, uint64_t tp)
{
    return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "%s (%llu) is not divisible by tensor_parallel (%llu)", what,
                        (unsigned long long)n, (unsigned long long)tp);
}

static llmmem_status overflow(const char *what)
{
    return llmmem__fail(LLMMEM_ERR_OVERFLOW, "%s exceeds 64 bits", what);
}

/* The conv state of vLLM's mamba_utils.py shapes: (kernel - 1) x conv_dim / tp. */
static llmmem_status vllm_conv(uint64_t *conv, uint64_t conv_dim, uint64_t kernel, uint64_t tp)
{
    if (conv_dim % tp) /* vllm/distributed/utils.py divide asserts it */
        return not_divided("the state's conv width", conv_dim, tp);
    if (!llmmem__mul(conv, kernel - 1, conv_dim / tp))
        return overflow("conv state elements");
    return LLMMEM_OK;
}

/* ---- Gated DeltaNet (transformers Qwen3NextGatedDeltaNet) ---------------------------------------- */

static uint64_t gdn_layers(const llmmem__geometry *g)
{
    return g->linear_layers;
}
/* A layer's SSM state elements, heads / tp x two widths; the widths reach 2^24 each (keys.c), so the product
 * can pass 64 bits: refused naming the three keys and values. */
static llmmem_status state_elements(uint64_t *out, const char *mixer, const char *const keys[3], uint64_t heads,
                                    uint64_t tp, uint64_t w1, uint64_t w2)
{
    if (llmmem__mul(out, heads / tp, w1) && llmmem__mul(out, *out, w2))
        return LLMMEM_OK;
    return llmmem__fail(LLMMEM_ERR_OVERFLOW, "the %s state elements of a layer (%s %llu x %s %llu x %s %llu) exceed "
                        "64 bits", mixer, keys[0], (unsigned long long)heads, keys[1], (unsigned long long)w1, keys[2],
                        (unsigned long long)w2);
}

static llmmem_status gdn_vllm(uint64_t *conv, uint64_t *temporal, const llmmem__geometry *g, uint64_t tp)
{
    /* mamba_utils.py gated_delta_net_state_shape: conv (kernel - 1) x (2 key_dim + value_dim) / tp,
     * recurrent state num_v_heads / tp x head_v_dim x head_k_dim */
    uint64_t conv_dim = 2 * g->gdn_k_heads * g->gdn_k_dim + g->gdn_v_heads * g->gdn_v_dim;
    if (g->gdn_v_heads % tp)
        return not_divided("linear_num_value_heads", g->gdn_v_heads, tp);
    static const char *const keys[3] = {"linear_num_value_heads", "linear_value_head_dim", "linear_key_head_dim"};
    llmmem_status st = state_elements(temporal, "Gated DeltaNet", keys, g->gdn_v_heads, tp, g->gdn_v_dim, g->gdn_k_dim);
    if (st)
        return st;
    return vllm_conv(conv, conv_dim, g->gdn_conv_kernel, tp);
}
static uint64_t gdn_contiguous(const llmmem__geometry *g, uint64_t e)
{
    /* modeling_qwen3_next.py Qwen3NextGatedDeltaNet: conv state F.pad to conv_kernel columns of conv_dim in the
     * model's dtype; the recurrent state chunk_gated_delta_rule returns (num_v_heads x head_k_dim x head_v_dim)
     * stays float32 */
    uint64_t x = 0, y;
    if (!llmmem__muladd(&x, g->gdn_conv_dim * g->gdn_conv_kernel, e) || !llmmem__mul(&y, g->gdn_v_heads, g->gdn_k_dim) ||
        !llmmem__mul(&y, y, g->gdn_v_dim) || !llmmem__muladd(&x, y, 4))
        return UINT64_MAX; /* past 64 bits (widths up to 2^24 each): the caller's checked product refuses it */
    return x;
}
static void gdn_llama_state(uint64_t r[2], uint64_t s[3], const llmmem__geometry *g)
{
    /* qwen3next: d_inner = value heads x width, d_state = key width */
    r[0] = g->gdn_conv_kernel - 1, r[1] = g->gdn_conv_dim;
    s[0] = g->gdn_k_dim, s[1] = g->gdn_v_dim, s[2] = g->gdn_v_heads;
}
static void gdn_llama_widths(uint64_t *inner, uint64_t *conv, const llmmem__geometry *g)
{
    *inner = g->gdn_v_heads * g->gdn_v_dim;
    *conv = g->gdn_conv_dim;
}

/* ---- Mamba-2 (transformers Mamba2Mixer) ------------------------------------------------------------ */

static uint64_t mamba2_layers(const llmmem__geometry *g)
{
    return g->ssm_layers;
}
static llmmem_status mamba2_vllm(uint64_t *conv, uint64_t *temporal, const llmmem__geometry *g, uint64_t tp)
{
    /* vllm mamba_mixer2.py MambaMixer2.__init__: assert n_groups % tp_size == 0 or n_groups == 1 */
    if (g->mamba_groups % tp && g->mamba_groups != 1)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "mamba_n_groups (%llu) is neither 1 nor divisible by "
                            "tensor_parallel (%llu): MambaMixer2 asserts one or the other (vLLM's and SGLang's port)",
                            (unsigned long long)g->mamba_groups, (unsigned long long)tp);
    /* mamba_utils.py mamba2_state_shape: conv (conv_kernel - 1) x conv_dim / tp over the extended groups, SSM state
     * num_heads / tp x head_dim x state_size */
    uint64_t conv_dim = g->mamba_heads * g->mamba_head_dim + 2 * llmmem__mamba2_groups(g, tp) * g->mamba_state;
    if (g->mamba_heads % tp)
        return not_divided("mamba_num_heads", g->mamba_heads, tp);
    static const char *const keys[3] = {"mamba_num_heads", "mamba_head_dim", "ssm_state_size"};
    llmmem_status st = state_elements(temporal, "Mamba-2", keys, g->mamba_heads, tp, g->mamba_head_dim, g->mamba_state);
    if (st)
        return st;
    return vllm_conv(conv, conv_dim, g->mamba_conv_kernel, tp);
}
uint64_t llmmem__mamba2_groups(const llmmem__geometry *g, uint64_t tp)
{
    return g->mamba_groups % tp ? g->mamba_groups + tp - g->mamba_groups % tp : g->mamba_groups;
}
static uint64_t mamba2_contiguous(const llmmem__geometry *g, uint64_t e)
{
    /* transformers modeling_mamba2.py Mamba2Cache: conv_dim x conv_kernel and heads x head_dim x state, in the
     * model's dtype */
    uint64_t x = g->mamba_conv_dim * g->mamba_conv_kernel; /* below 2^62: 2^50 x 2^12 by the key bounds */
    if (!llmmem__muladd(&x, g->mamba_heads * g->mamba_head_dim, g->mamba_state) || !llmmem__mul(&x, x, e))
        return UINT64_MAX; /* past 64 bits (widths up to 2^24 each): the caller's checked product refuses it */
    return x;
}
static void mamba2_llama_state(uint64_t r[2], uint64_t s[3], const llmmem__geometry *g)
{
    r[0] = g->mamba_conv_kernel - 1, r[1] = g->mamba_conv_dim;
    s[0] = g->mamba_state, s[1] = g->mamba_heads, s[2] = g->mamba_head_dim;
}
static void mamba2_llama_widths(uint64_t *inner, uint64_t *conv, const llmmem__geometry *g)
{
    *inner = g->mamba_heads * g->mamba_head_dim;
    *conv = g->mamba_conv_dim;
}

/* ---- Mamba-1 (transformers modeling_jamba.py JambaMambaMixer) --------------------------------------- */

static uint64_t mamba1_layers(const llmmem__geometry *g)
{
    return g->mamba1_layers;
}
static llmmem_status mamba1_vllm(uint64_t *conv, uint64_t *temporal, const llmmem__geometry *g, uint64_t tp)
{
    /* mamba_utils.py mamba1_state_shape: conv (conv_kernel - 1) x intermediate_size / tp, temporal
     * intermediate_size / tp x state_size (models/jamba.py: intermediate_size = mamba_expand x hidden_size) */
    if (g->m1_inner % tp)
        return not_divided("mamba_expand x hidden_size", g->m1_inner, tp);
    if (!llmmem__mul(temporal, g->m1_inner / tp, g->m1_state))
        return overflow("Mamba-1 state elements");
    return vllm_conv(conv, g->m1_inner, g->m1_conv_kernel, tp);
}
static uint64_t mamba1_contiguous(const llmmem__geometry *g, uint64_t e)
{
    /* transformers modeling_jamba.py HybridMambaAttentionDynamicCache: conv_states (intermediate x d_conv, the
     * whole kernel) and ssm_states (intermediate x d_state) in the dtype the model passes (its own); below 2^62
     * by the key bounds (inner <= 64 x 2^24, kernel <= 4096, state <= 2^24) times e <= 4: checked by the caller's
     * product only, so saturate here */
    uint64_t x = 0;
    if (!llmmem__muladd(&x, g->m1_inner, g->m1_conv_kernel) || !llmmem__muladd(&x, g->m1_inner, g->m1_state) ||
        !llmmem__mul(&x, x, e))
        return UINT64_MAX;
    return x;
}
static void mamba1_llama_state(uint64_t r[2], uint64_t s[3], const llmmem__geometry *g)
{
    /* ssm_n_group 0: the conv runs over the inner width alone */
    r[0] = g->m1_conv_kernel - 1, r[1] = g->m1_inner;
    s[0] = g->m1_state, s[1] = g->m1_inner, s[2] = 1;
}
static void mamba1_llama_widths(uint64_t *inner, uint64_t *conv, const llmmem__geometry *g)
{
    *inner = g->m1_inner;
    *conv = g->m1_inner;
}

/* ---- LFM2's short convolution (transformers modeling_lfm2.py Lfm2ShortConv) ------------------------ */

static uint64_t conv_layers(const llmmem__geometry *g)
{
    return g->conv_layers;
}
static llmmem_status conv_vllm(uint64_t *conv, uint64_t *temporal, const llmmem__geometry *g, uint64_t tp)
{
    /* mamba_utils.py short_conv_state_shape: (conv_kernel - 1) x hidden / tp, no temporal state */
    if (g->hidden % tp)
        return not_divided("hidden_size", g->hidden, tp);
    *temporal = 0;
    return llmmem__mul(conv, g->conv_kernel - 1, g->hidden / tp) ? LLMMEM_OK : overflow("conv state elements");
}
static uint64_t conv_contiguous(const llmmem__geometry *g, uint64_t e)
{
    /* transformers modeling_lfm2.py Lfm2HybridConvCache: conv_cache of hidden x conv_L_cache */
    return g->hidden * g->conv_kernel * e;
}

/* ---- the rows ----------------------------------------------------------------------------------- */

#define ATTN LLMMEM_MIXER_ATTENTION
#define STATE LLMMEM_MIXER_STATE
#define WINDOWED LLMMEM_MIXER_WINDOWED
#define MODELLED LLMMEM_MIXER_MODELLED

/* A state row's engine names and shape functions, in the struct's order. */
#define STATE_ROW(vllm_class, llama_arch, name)                                                              \
    .vllm = vllm_class, .llama = llama_arch, .layers = name##_layers, .vllm_state = name##_vllm,              \
    .contiguous_state = name##_contiguous

static const llmmem__mixer_row rows[LLMMEM_MIXERS] = {
    [LLMMEM_MIXER_FULL] = {.id = LLMMEM_MIXER_FULL, .traits = ATTN | MODELLED, .label = "full attention"},
    [LLMMEM_MIXER_SLIDING] = {.id = LLMMEM_MIXER_SLIDING, .traits = ATTN | WINDOWED | MODELLED,
                              .label = "sliding-window attention"},
    [LLMMEM_MIXER_CHUNKED] = {.id = LLMMEM_MIXER_CHUNKED, .traits = ATTN | WINDOWED | MODELLED,
                              .label = "chunked attention"},
    [LLMMEM_MIXER_MLA] = {.id = LLMMEM_MIXER_MLA, .traits = ATTN, .label = "multi-head latent attention"},
    [LLMMEM_MIXER_LINEAR] = {.id = LLMMEM_MIXER_LINEAR, .traits = STATE | MODELLED, .label = "Gated DeltaNet",
                             STATE_ROW("Qwen3NextGatedDeltaNet", "qwen3next", gdn),
                             .llama_state = gdn_llama_state, .llama_widths = gdn_llama_widths},
    [LLMMEM_MIXER_SSM] = {.id = LLMMEM_MIXER_SSM, .traits = STATE | MODELLED, .label = "Mamba-2",
                          STATE_ROW("MambaMixer2", "mamba2", mamba2),
                          .llama_state = mamba2_llama_state, .llama_widths = mamba2_llama_widths},
    [LLMMEM_MIXER_NONE] = {.id = LLMMEM_MIXER_NONE, .traits = 0, .label = "no mixer"},
    [LLMMEM_MIXER_CROSS] = {.id = LLMMEM_MIXER_CROSS, .traits = LLMMEM_MIXER_CROSSING, .label = "cross-attention"},
    [LLMMEM_MIXER_MAMBA1] = {.id = LLMMEM_MIXER_MAMBA1, .traits = STATE | MODELLED, .label = "Mamba-1",
                             STATE_ROW("MambaMixer", "mamba", mamba1),
                             .llama_state = mamba1_llama_state, .llama_widths = mamba1_llama_widths},
    [LLMMEM_MIXER_SLIDING_SHARED] = {.id = LLMMEM_MIXER_SLIDING_SHARED, .traits = LLMMEM_MIXER_SHARED_KV,
                                     .label = "sliding attention over shared keys and values"},
    [LLMMEM_MIXER_FULL_SHARED] = {.id = LLMMEM_MIXER_FULL_SHARED, .traits = LLMMEM_MIXER_SHARED_KV,
                                  .label = "full attention over shared keys and values"},
    [LLMMEM_MIXER_CSA] = {.id = LLMMEM_MIXER_CSA, .traits = 0, .label = "compressed sparse attention"},
    [LLMMEM_MIXER_HCA] = {.id = LLMMEM_MIXER_HCA, .traits = 0, .label = "heavily compressed attention"},
    /* no llama.cpp state: llama.cpp serving of short-convolution layers is refused (llmmem__kv_refuse_typed) */
    [LLMMEM_MIXER_SHORT_CONV] = {.id = LLMMEM_MIXER_SHORT_CONV, .traits = STATE, .label = "short convolution",
                                 STATE_ROW("ShortConv", "lfm2", conv)},
};

const llmmem__mixer_row *llmmem__mixer_of(unsigned id)
{
    return id < LLMMEM_MIXERS && rows[id].label ? &rows[id] : NULL;
}

unsigned llmmem__mixers_with(unsigned traits)
{
    unsigned set = 0;
    for (unsigned m = 0; m < LLMMEM_MIXERS; m++)
        if (rows[m].label && (rows[m].traits & traits) == traits)
            set |= LLMMEM_MIXER_BIT(m);
    return set;
}

int llmmem__mixer_modelled(enum llmmem__mixer m)
{
    const llmmem__mixer_row *r = llmmem__mixer_of((unsigned)m);
    return r && (r->traits & LLMMEM_MIXER_MODELLED);
}

const llmmem__mixer_row *llmmem__state_row(const llmmem__geometry *g)
{
    for (unsigned m = 0; m < LLMMEM_MIXERS; m++)
        if (rows[m].layers && rows[m].layers(g))
            return &rows[m];
    return NULL;
}

/* ---- layer_types names ---------------------------------------------------------------------------- */

/* transformers configuration_utils.py ALLOWED_LAYER_TYPES and granitemoehybrid's "attention" and
 * "mamba", in the order messages list them */
static const struct {
    const char *name;
    uint8_t mixer;
} layer_types[] = {
    {"full_attention", LLMMEM_MIXER_FULL},       {"sliding_attention", LLMMEM_MIXER_SLIDING},
    {"chunked_attention", LLMMEM_MIXER_CHUNKED}, {"attention", LLMMEM_MIXER_FULL},
    {"linear_attention", LLMMEM_MIXER_LINEAR},   {"mamba", LLMMEM_MIXER_SSM},
};
#define LAYER_TYPES (sizeof layer_types / sizeof layer_types[0])

int llmmem__layer_type_mixer(enum llmmem__mixer *out, const char *name, size_t len)
{
    for (size_t i = 0; i < LAYER_TYPES; i++)
        if (strlen(layer_types[i].name) == len && memcmp(layer_types[i].name, name, len) == 0) {
            *out = (enum llmmem__mixer)layer_types[i].mixer;
            return 1;
        }
    return 0;
}

int llmmem__modelled_layer_types(char *out, size_t size)
{
    size_t n = 0, at = 0, listed = 0;
    for (size_t i = 0; i < LAYER_TYPES; i++)
        n += llmmem__mixer_modelled((enum llmmem__mixer)layer_types[i].mixer) != 0;
    int written = 0;
    for (size_t i = 0; i < LAYER_TYPES; i++) {
        if (!llmmem__mixer_modelled((enum llmmem__mixer)layer_types[i].mixer))
            continue;
        const char *sep = listed == 0 ? "" : listed + 1 == n ? " and " : ", ";
        int w = snprintf(out + at, at < size ? size - at : 0, "%s%s", sep, layer_types[i].name);
        if (w < 0)
            return w;
        written += w;
        at = at + (size_t)w < size ? at + (size_t)w : size;
        listed++;
    }
    return written;
}
