/* Internal declarations shared by the library's source files. Not installed. */
#ifndef LLMMEM_INTERNAL_H
#define LLMMEM_INTERNAL_H

#include <stdint.h>
#include <stddef.h>

#include "llmmem/llmmem.h"

#if defined(__GNUC__)
#  define LLMMEM_PRINTF(f, a) __attribute__((format(printf, f, a)))
/* a helper on an estimate's hot path, inlined wherever it is called */
#  define HOT_INLINE static inline __attribute__((always_inline))
#else
#  define LLMMEM_PRINTF(f, a)
#  define HOT_INLINE static inline
#endif

/* ---- errors (error.c) -------------------------------------------------- */

#define LLMMEM_MESSAGE_MAX 1024

/* Records status and message for this thread and returns status. */
llmmem_status llmmem__fail(llmmem_status status, const char *fmt, ...) LLMMEM_PRINTF(2, 3);
/* Records status with "prefix: " put before this thread's last message (a reader naming the file). */
llmmem_status llmmem__fail_prefixed(llmmem_status status, const char *prefix);
/* The same, with the message already formatted. */
llmmem_status llmmem__fail_text(llmmem_status status, const char *text);

/* Fails with INVALID_ARGUMENT naming the parameter when p is NULL. Only a public function
 * (llmmem_*) is named in the message: a user never called an internal one. */
#define LLMMEM_REQUIRE(p)                                                                      \
    do {                                                                                       \
        if ((p) == NULL)                                                                       \
            return llmmem__fail_null(__func__, #p);                                            \
    } while (0)
llmmem_status llmmem__fail_null(const char *function, const char *argument);

/* ---- checked arithmetic ------------------------------------------------ */

/* Each returns 1 on success and 0 on overflow; *out is then unspecified. */
static inline int llmmem__mul(uint64_t *out, uint64_t a, uint64_t b)
{
    return !__builtin_mul_overflow(a, b, out);
}
static inline int llmmem__add(uint64_t *out, uint64_t a, uint64_t b)
{
    return !__builtin_add_overflow(a, b, out);
}
/* For chains of products and sums checked once at their end: an overflow sets *bad and gives 0. */
static inline uint64_t llmmem__mul_flag(int *bad, uint64_t a, uint64_t b)
{
    uint64_t r;
    if (__builtin_mul_overflow(a, b, &r)) {
        *bad = 1;
        return 0;
    }
    return r;
}
static inline uint64_t llmmem__add_flag(int *bad, uint64_t a, uint64_t b)
{
    uint64_t r;
    if (__builtin_add_overflow(a, b, &r)) {
        *bad = 1;
        return 0;
    }
    return r;
}
/* acc += a * b */
static inline int llmmem__muladd(uint64_t *acc, uint64_t a, uint64_t b)
{
    uint64_t p;
    return llmmem__mul(&p, a, b) && llmmem__add(acc, *acc, p);
}
/* ceil(a / b) for b > 0, without overflow. */
static inline uint64_t llmmem__ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

/* floor(sqrt(x)) by bisection, exact for every 64-bit x. */
static inline uint64_t llmmem__isqrt(uint64_t x)
{
    uint64_t lo = 0, hi = x < 4294967296ULL ? x : 4294967295ULL;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if (mid * mid <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Greatest common divisor (Euclid); gcd(a, 0) = a. */
static inline uint64_t llmmem__gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* x * num / den, rounded up, saturating at UINT64_MAX (the caller's total check reports the overflow);
 * x itself when num = den (a whole share: every layer, every head), however large. */
static inline uint64_t llmmem__scaled(uint64_t x, uint64_t num, uint64_t den)
{
    uint64_t v;
    if (num == den && den)
        return x;
    return den && llmmem__mul(&v, x, num) ? llmmem__ceil_div(v, den) : UINT64_MAX;
}

/* ---- keys (keys.c) ----------------------------------------------------- */

/* Slots per object: key = object * 1000 + slot (strategy slots 200+ hold the parallel layout;
 * test_keys checks every key's slot is below this). */
#define LLMMEM_SLOTS 256

/* The name of a value of a choice key as the key table spells it, "?" for one the key does not list:
 * what messages and JSON print, so that no file but the key table names the key (keys.c). */
const char *llmmem__engine_name(int64_t value);
const char *llmmem__engine_version_name(int64_t value);
const char *llmmem__format_name(int64_t value);           /* weight_format's (every format key's) */
const char *llmmem__mode_name(int64_t value);
const char *llmmem__ggml_cache_type_name(int64_t value);  /* cache_type_k's and cache_type_v's */
const char *llmmem__kv_dtype_name(int64_t value);
const char *llmmem__framework_name(int64_t value);
const char *llmmem__attn_implementation_name(int64_t value);
const char *llmmem__norm_implementation_name(int64_t value);
const char *llmmem__experts_implementation_name(int64_t value);
const char *llmmem__cache_implementation_name(int64_t value);
const char *llmmem__recompute_name(int64_t value);
const char *llmmem__optimizer_name(int64_t value);

typedef struct llmmem__key_info {
    llmmem_key key;
    llmmem_object object;
    llmmem_value_type type;
    const char *name;
    int64_t min, max, def;          /* INT, BOOL, CHOICE */
    double rmin, rmax, rdef;        /* REAL */
    const char *const *choices;     /* CHOICE: name of each value 0..max, NULL for gaps */
    const char *doc;
} llmmem__key_info;

/* NULL for an unknown key. */
const llmmem__key_info *llmmem__key_info_get(llmmem_key key);

/* Values of one handle: set or not, by slot. */
typedef struct llmmem__settings {
    int64_t ival[LLMMEM_SLOTS];
    double rval[LLMMEM_SLOTS];
    uint64_t is_set[LLMMEM_SLOTS / 64]; /* bit per slot */
    /* identifies the contents for caches (the report's job): every validated change takes the next
     * number (llmmem__settings_next_id), a copy keeps it; 0: unknown, never cached */
    uint64_t id;
} llmmem__settings;

/* The next contents id of any handle's settings (process-unique, never 0). */
uint64_t llmmem__settings_next_id(void);

static inline unsigned llmmem__slot(llmmem_key key)
{
    return (unsigned)key % 1000u;
}
static inline int llmmem__is_set(const llmmem__settings *s, llmmem_key key)
{
    unsigned slot = llmmem__slot(key);
    return (int)((s->is_set[slot / 64] >> (slot % 64)) & 1u);
}
/* Stores a value known to be valid for the key (the planner's own layouts), unchecked. */
static inline void llmmem__settings_put(llmmem__settings *s, llmmem_key key, int64_t value)
{
    unsigned slot = llmmem__slot(key);
    s->ival[slot] = value;
    s->is_set[slot / 64] |= 1ULL << (slot % 64);
    s->id = 0; /* the planner's candidates: not worth a number each */
}
/* All slots of an object hold their key's default; nothing is marked set. */
void llmmem__settings_init(llmmem__settings *s, llmmem_object object);
/* The value set, or the key's default. */
int64_t llmmem__get_int(const llmmem__settings *s, llmmem_key key);
double llmmem__get_real(const llmmem__settings *s, llmmem_key key);

/* Validated setters: object, type and bounds are checked, the message names key and value. */
llmmem_status llmmem__settings_set_int(llmmem__settings *s, llmmem_object object, llmmem_key key,
                                       int64_t value);
llmmem_status llmmem__settings_set_real(llmmem__settings *s, llmmem_object object, llmmem_key key,
                                        double value);
llmmem_status llmmem__settings_set_text(llmmem__settings *s, llmmem_object object,
                                        const char *key_name, const char *text, llmmem_key *key_out);
/* Validated getters: the key must belong to object and be of the accessor's type. */
llmmem_status llmmem__settings_get_int(int64_t *value_out, const llmmem__settings *s, llmmem_object object,
                                       llmmem_key key);
llmmem_status llmmem__settings_get_real(double *value_out, const llmmem__settings *s, llmmem_object object,
                                        llmmem_key key);

/* A heap copy of a handle (clone); sets the message and returns NULL when out of memory. */
void *llmmem__duplicate(const void *handle, size_t size);
/* Copies a name into a LLMMEM_NAME_MAX buffer, cut to fit. */
void llmmem__copy_name(char *dst, const char *src);
/* Names a model by a text the user gave (the path it was read from, a config's _name_or_path):
 * well-formed UTF-8, any other byte and every control character shown as '?', and a text longer
 * than the name keeps its end after "..." (a path's last parts tell it apart). */
void llmmem__model_set_name(struct llmmem_model *m, const char *text);

/* Values of vision_model_type (base/keys.c vision_names: the same order). */
typedef enum llmmem__vision_kind {
    LLMMEM__VISION_NONE = 0,
    LLMMEM__VISION_CLIP = 1,
    LLMMEM__VISION_SIGLIP = 2,
    LLMMEM__VISION_QWEN2_5_VL = 3,
    LLMMEM__VISION_QWEN3_VL = 4,
    LLMMEM__VISION_PIXTRAL = 5,
    LLMMEM__VISION_LLAMA4 = 7,
    LLMMEM__VISION_MLLAMA = 8,
    LLMMEM__VISION_GEMMA4 = 9,
    LLMMEM__VISION_MOONVIT = 10,
    LLMMEM__VISION_EXAONE4_5 = 11,
    LLMMEM__VISION_MOONVIT_K3 = 12,
    LLMMEM__VISION_MINIMAX_M3 = 13
} llmmem__vision_kind;

/* Values of multimodal_projector (base/keys.c projector_names: the same order). */
typedef enum llmmem__projector_kind {
    LLMMEM__PROJECTOR_NONE = 0,
    LLMMEM__PROJECTOR_LLAVA_MLP = 1,
    LLMMEM__PROJECTOR_GEMMA3 = 2,
    LLMMEM__PROJECTOR_QWEN2_5_VL_MERGER = 3,
    LLMMEM__PROJECTOR_QWEN3_VL_MERGER = 4,
    LLMMEM__PROJECTOR_MISTRAL3 = 5,
    LLMMEM__PROJECTOR_LLAMA4 = 7,
    LLMMEM__PROJECTOR_MLLAMA = 8,
    LLMMEM__PROJECTOR_GEMMA4 = 9,
    LLMMEM__PROJECTOR_KIMI_K25 = 10,
    LLMMEM__PROJECTOR_KIMI_K3 = 11,
    LLMMEM__PROJECTOR_MINIMAX_M3 = 12
} llmmem__projector_kind;

/* ---- formats (formats.c) ----------------------------------------------- */

/* Bits of one element of a plain data type (fp32 32, bf16 16, fp8 8, int4 4); 0 if blocked. */
unsigned llmmem__format_element_bits(llmmem_format format);
/* Elements of one block of a row-block format (GGUF's Q4_0 32, Q4_K 256, MXFP4 32), 1 for the others:
 * ggml_blck_size for the formats GGUF stores. */
unsigned llmmem__format_block_elements(llmmem_format format);
/* Bytes of a rows x cols matrix; see llmmem_format_tensor_bytes. Does not set the message. */
int llmmem__format_bytes(uint64_t *bytes_out, llmmem_format format, uint64_t rows, uint64_t cols,
                         uint64_t group_size, int double_quant);
/* Bytes of `rows` vectors of `cols` elements in a plain or row-block format (fp16, fp8, nvfp4...),
 * without what the format keeps once per tensor (a cache's scales are per layer, not per token).
 * 0 for other formats or on overflow; does not set the message. */
int llmmem__format_vector_bytes(uint64_t *bytes_out, llmmem_format format, uint64_t rows, uint64_t cols);

/* ---- model and inventory (model.c, arch.c) ----------------------------- */

enum llmmem__split {           /* how tensor parallelism splits a tensor class */
    LLMMEM_SPLIT_REPLICATED = 0,
    LLMMEM_SPLIT_COLUMN = 1,   /* output features split (q, k, v, gate, up) */
    LLMMEM_SPLIT_ROW = 2,      /* input features split (o, down) */
    LLMMEM_SPLIT_VOCAB = 3,    /* vocabulary rows split (embedding, LM head) */
    LLMMEM_SPLIT_EXPERT = 4    /* whole experts split over expert parallelism */
};


enum llmmem__role {            /* classes the estimate looks up by what they are */
    LLMMEM_ROLE_OTHER = 0,
    LLMMEM_ROLE_Q = 1,         /* q_proj */
    LLMMEM_ROLE_K = 2,         /* k_proj */
    LLMMEM_ROLE_KV = 3,        /* v_proj and the k/v biases: KV heads, replicated below one per rank */
    LLMMEM_ROLE_MLP_UP = 4,    /* mlp.up_proj */
    LLMMEM_ROLE_EXPERT_UP = 5, /* experts.up_proj */
    LLMMEM_ROLE_SHARED_UP = 6, /* shared_experts.up_proj */
    LLMMEM_ROLE_FINAL_NORM = 7,
    LLMMEM_ROLES = 8
};

/* One class of weight tensors: `count` tensors of rows x cols (cols = input features).
 * A vector (norm weight, bias) has rows = 1. */
typedef struct llmmem__tensor_class {
    const char *name;       /* "q_proj", "experts.down_proj", ... */
    uint8_t group;          /* llmmem_param_group */
    uint8_t split;          /* enum llmmem__split */
    uint8_t matrix;         /* 1: a weight matrix that weight quantization may apply to */
    uint8_t lora;           /* llmmem_lora_target bits of the module, 0 if none */
    uint8_t kinds;          /* llmmem__kind_set of the decoder layers it repeats over (count = per-layer
                             * multiplicity x those layers); 0: outside the layers (embeddings, head, vision) */
    uint8_t role;           /* enum llmmem__role */
    uint8_t fp32;           /* stored in fp32 whatever the weight plan (DeepSeek-V3's e_score_correction_bias) */
    uint32_t served_head;   /* rows of a head where the serving engines (vLLM, SGLang) split whole heads of a
                             * class `split` replicates, one head a rank at least, as their KV heads (MiniMax-M3's
                             * index_q_proj); 0: they split it as `split` */
    uint8_t served_tower;   /* 1: a vision class SGLang splits over its attention ranks (MiniMax-M3's tower and
                             * projectors, sglang models/minimax_vl_common.py), all of it but served_whole elements,
                             * unquantized in the model's dtype; 0: not modelled */
    uint64_t served_whole;  /* under served_tower: the class's elements (all its tensors) every rank holds whole */
    uint64_t rows, cols;
    uint64_t count;         /* occurrences in the whole model (layers x experts) */
    uint64_t active_count;  /* occurrences used by one token */
} llmmem__tensor_class;

#define LLMMEM_MAX_TENSOR_CLASSES 64
#define LLMMEM_PARAM_GROUPS 12
#define LLMMEM_NAME_MAX 128 /* a preset's name, or a path or _name_or_path a model was read from */

typedef struct llmmem__inventory {
    llmmem__tensor_class t[LLMMEM_MAX_TENSOR_CLASSES];
    unsigned n;
    uint64_t params[LLMMEM_PARAM_GROUPS];
    uint64_t total;
    uint64_t active;
    int8_t by_role[LLMMEM_ROLES]; /* index of the class with each role, -1 if none */
} llmmem__inventory;

/* The class with a role, or NULL. */
static inline const llmmem__tensor_class *llmmem__class_of(const llmmem__inventory *inv, enum llmmem__role role)
{
    return inv->by_role[role] >= 0 ? &inv->t[inv->by_role[role]] : NULL;
}

/* ---- layer kinds ------------------------------------------------------- */

/* A decoder layer is a token mixer and a feed-forward (with the norms and extras the model's keys
 * give every layer): the mixer decides what the layer caches per token or keeps per sequence, the
 * feed-forward which weights it holds. */
enum llmmem__mixer {
    LLMMEM_MIXER_FULL = 0,     /* attention over every token of the sequence */
    LLMMEM_MIXER_SLIDING = 1,  /* attention over the last sliding_window tokens */
    LLMMEM_MIXER_CHUNKED = 2,  /* attention within its chunk of attention_chunk_size tokens (Llama 4) */
    LLMMEM_MIXER_MLA = 3,      /* multi-head latent attention over every token (DeepSeek-V2 §2.1) */
    LLMMEM_MIXER_LINEAR = 4,   /* linear attention (Gated DeltaNet): a fixed state per sequence */
    LLMMEM_MIXER_SSM = 5,      /* state-space model (Mamba-2): a fixed state per sequence */
    LLMMEM_MIXER_NONE = 6,     /* no token mixer: a feed-forward-only layer (Nemotron-H '-') */
    LLMMEM_MIXER_CROSS = 8,    /* cross-attention to the image: caches the image's keys and values (mllama) */
    LLMMEM_MIXER_MAMBA1 = 9,   /* state-space model (Mamba-1, Jamba's): a fixed state per sequence */
    LLMMEM_MIXER_SLIDING_SHARED = 10, /* sliding attention over an earlier layer's keys and values: no k/v, no cache (Gemma 4) */
    LLMMEM_MIXER_FULL_SHARED = 11,    /* the same over every token */
    LLMMEM_MIXER_CSA = 12,     /* compressed sparse attention: a window, compressed entries an indexer picks (DeepSeek-V4) */
    LLMMEM_MIXER_HCA = 13,     /* heavily compressed attention: a window and heavily compressed entries (DeepSeek-V4) */
    LLMMEM_MIXER_SHORT_CONV = 14, /* a gated short depthwise convolution: its window per sequence (LFM2) */
    LLMMEM_MIXERS = 15
};
enum llmmem__ffn {
    LLMMEM_FFN_DENSE = 0,      /* one MLP (gated or two-matrix: the model's mlp_gated) */
    LLMMEM_FFN_MOE = 1,        /* routed experts, a router, shared experts when the model has them */
    LLMMEM_FFN_NONE = 2,       /* no feed-forward: a mixer-only layer */
    LLMMEM_FFN_HASH_MOE = 3,   /* routed experts chosen by a token-id table, not a router (DeepSeek-V4's first layers) */
    LLMMEM_FFNS = 4
};
#define LLMMEM_MIXER_BIT(m) (1u << (m))
#define LLMMEM_FFN_BIT(f) (1u << (f))
/* What each mixer is and keeps: its row (inventory/mixers.h); sets of mixers come from the rows'
 * traits (llmmem__mixers_with). */

typedef struct llmmem__layer_kind {
    uint8_t mixer;             /* enum llmmem__mixer */
    uint8_t ffn;               /* enum llmmem__ffn */
    uint8_t block;             /* 0; else 1 + the layer's entry in its map's block table (per-layer shapes) */
} llmmem__layer_kind;

/* The distinct kinds of a model's decoder layers, indexed 0..n-1; a set of them is a bit mask. */
#define LLMMEM_LAYER_KINDS_MAX 8
typedef uint8_t llmmem__kind_set;

enum llmmem__layer_rule {
    LLMMEM_RULE_NONE = 0,      /* counted from the bitmaps */
    LLMMEM_RULE_WINDOW = 1,    /* sliding (or chunked) where (i + 1) % rule_period != 0 */
    LLMMEM_RULE_MOE = 2        /* MoE where i >= rule_first and i % rule_period == 0 */
};

/* Layers a model lists kind by kind; past them the kinds repeat with the model's period. */
#define LLMMEM_LAYER_MAP_MAX 4096 /* published models have < 200 decoder layers */

/* Which decoder layer is of which kind (arch.c resolves it from layer_types, or from the periodic
 * keys families use: sliding_window_pattern, first_k_dense_replace, moe_layer_freq). The first
 * `listed` layers are bitmaps, one per kind; layer i >= listed has the kind of layer
 * listed - period + (i - listed + period) % period. */
typedef struct llmmem__layer_plan {
    unsigned n;                                     /* kinds in use */
    llmmem__layer_kind kind[LLMMEM_LAYER_KINDS_MAX];
    uint64_t layers, listed, period;
    uint64_t total[LLMMEM_LAYER_KINDS_MAX];         /* layers of each kind in the model */
    /* two kinds told apart by one periodic key (no per-layer map): the layers of kind rule_kind
     * are counted by the key's own arithmetic, the bitmaps left alone */
    uint8_t rule;                                   /* enum llmmem__layer_rule */
    uint8_t rule_kind;
    uint64_t rule_first, rule_period;
    uint64_t bits[LLMMEM_LAYER_KINDS_MAX][LLMMEM_LAYER_MAP_MAX / 64];
    uint16_t before[LLMMEM_LAYER_KINDS_MAX][LLMMEM_LAYER_MAP_MAX / 64 + 1]; /* set bits in the words before */
} llmmem__layer_plan;

/* The kinds whose mixer is in `mixers` and whose feed-forward is in `ffns` (bit masks). */
llmmem__kind_set llmmem__kinds_of(const llmmem__layer_plan *p, unsigned mixers, unsigned ffns);
/* Decoder layers of each kind among [first, end) (on[0..n-1]). */
void llmmem__kind_counts(uint64_t on[LLMMEM_LAYER_KINDS_MAX], const llmmem__layer_plan *p, uint64_t first,
                         uint64_t end);
/* Decoder layers among [first, end) whose kind is in the set. */
uint64_t llmmem__layers_in(const llmmem__layer_plan *p, llmmem__kind_set set, uint64_t first, uint64_t end);

/* The mixer of each layer as a model's input gives it (llmmem_model_set_layer_types, a config's
 * layer_types) when no periodic pattern says it. layers 0: no map. */
typedef struct llmmem__layer_map {
    uint64_t layers;
    uint8_t mixer[LLMMEM_LAYER_MAP_MAX]; /* enum llmmem__mixer */
    /* 0: the feed-forward the model's keys give (dense or MoE); else 1 + the layer's own enum llmmem__ffn
     * (Nemotron-H's 'M' and '*' blocks and Mamba-2's have none, its '-' block a dense MLP, its 'E' block
     * the experts) */
    uint8_t ffn[LLMMEM_LAYER_MAP_MAX];
    /* per-layer block shapes (Nemotron-NAS block_configs): the layer's entry + 1 in `blocks` (0: the model's keys) */
    uint8_t block[LLMMEM_LAYER_MAP_MAX];
    unsigned nblocks;
    struct llmmem__block {
        uint64_t kv_heads;     /* its attention's KV heads (its mixer full attention) */
        uint64_t ffn;          /* its dense MLP's width (its feed-forward dense) */
        uint8_t attn_linear;   /* no attention: one hidden x hidden linear in its place (replace_with_linear) */
        uint8_t ffn_linear;    /* no MLP: one hidden x hidden linear in its place */
    } blocks[LLMMEM_LAYER_KINDS_MAX];
} llmmem__layer_map;

/* The mixer a transformers layer_types entry names (configuration_utils.py ALLOWED_LAYER_TYPES,
 * granitemoehybrid's "attention" and "mamba"); 0 for another name (inventory/mixers.c). */
int llmmem__layer_type_mixer(enum llmmem__mixer *out, const char *name, size_t len);
/* Whether a layer_types entry naming the mixer is costed (its row's MODELLED trait; the others are
 * refused by name). */
int llmmem__mixer_modelled(enum llmmem__mixer m);
/* The modelled layer_types names, for messages: the rows' text (llmmem__modelled_layer_types; test_mixers pins it). */
#define LLMMEM_MODELLED_LAYER_TYPES \
    "full_attention, sliding_attention, chunked_attention, attention, linear_attention and mamba"

/* Appends one layer to a map (the caller keeps layers below LLMMEM_LAYER_MAP_MAX). */
static inline void llmmem__layer_map_push(llmmem__layer_map *map, enum llmmem__mixer mixer)
{
    map->ffn[map->layers] = 0;
    map->block[map->layers] = 0;
    map->mixer[map->layers++] = (uint8_t)mixer;
}

/* sliding_window_pattern n read from per-layer flags, one layer at a time. Layer i is global exactly
 * when (i + 1) % n == 0 (llama.cpp llama-hparams.cpp set_swa_pattern; transformers' configs write the
 * same layers as layer_types), so the first global layer gives n and each other layer is checked
 * against it: one step a layer, whatever the layers. After the last: n is 0 when no layer is
 * global, and the layers follow pattern n when ok. */
typedef struct llmmem__swa_pattern {
    uint64_t n, layers;
    int ok;
} llmmem__swa_pattern;

#define LLMMEM__SWA_PATTERN_INIT {0, 0, 1}

static inline void llmmem__swa_pattern_push(llmmem__swa_pattern *p, int global)
{
    if (p->n == 0) {
        if (global)
            p->n = p->layers + 1;
    } else if (global != ((p->layers + 1) % p->n == 0)) {
        p->ok = 0;
    }
    p->layers++;
}
/* A map from a Nemotron-H hybrid_override_pattern: 'M' a Mamba-2 block, '*' an attention block,
 * '-' an MLP block, 'E' a MoE block (transformers NemotronHConfig layers_block_type); with `feed_forward`, 'M' and '*'
 * name the mixer of a layer that keeps its feed-forward as well (Granite 4.0-H's layer_types). 0 and
 * the message (naming the character) for another character or a pattern longer than
 * LLMMEM_LAYER_MAP_MAX. */
int llmmem__layer_map_from_pattern(llmmem__layer_map *map, const char *pattern, size_t len, int feed_forward,
                                   char *message, size_t message_size);

/* What one token adds to one attention layer's cache: `heads` heads (split over tensor-parallel
 * ranks, never below one per rank) of `vectors` vectors (K and V, or MLA's one) of `width` elements. */
typedef struct llmmem__kv_token {
    uint64_t heads, vectors, width;
} llmmem__kv_token;

/* The model's shapes, resolved once when the model changes (arch.c, beside the inventory; the
 * defaults a config may omit are applied here and nowhere else). Views read these, never the
 * keys behind them. Zero past the fields a model has: a model given by num_parameters alone has
 * hidden, layers and vocab at most. Valid when the model's inventory is (llmmem__model_check). */
typedef struct llmmem__geometry {
    uint64_t hidden, layers, vocab;
    uint64_t heads;              /* query heads */
    uint64_t kv_heads;           /* num_key_value_heads, else heads; MLA: 1, its latent (vLLM MLAAttentionSpec) */
    uint64_t head_dim;           /* width of a query and key head: head_dim, else hidden / heads; MLA: nope + rope */
    uint64_t v_head_dim;         /* width of a value head */
    /* multi-head latent attention (DeepSeek-V2 §2.1): kv_lora_rank > 0; all 0 otherwise */
    uint64_t q_lora_rank, kv_lora_rank, qk_rope_head_dim, qk_nope_head_dim;
    uint64_t ffn;                /* dense MLP width: intermediate_size, else 4 x hidden */
    uint64_t ffn_expert;         /* a routed expert's width: moe_intermediate_size, else ffn (MoE only) */
    uint64_t ffn_shared;         /* all shared experts' width (MoE only; 0: none) */
    uint64_t experts, experts_per_tok;
    uint64_t moe_latent;         /* the routed experts' width when they work in a latent (moe_latent_size); 0: hidden */
    uint64_t window;             /* the tokens a windowed layer keeps: sliding_window, or attention_chunk_size
                                  * for a chunked model (transformers caches a chunked layer as a sliding one) */
    uint64_t chunk;              /* attention_chunk_size when the model has chunked layers; 0 otherwise */
    /* cross-attention layers (mllama): what one image adds to each one's cache, per sequence: its
     * tokens (tiles x patches) of `cross_heads` heads (the kv_token's width and vectors) */
    uint64_t cross_layers, image_tokens, cross_heads;
    llmmem__layer_plan plan;     /* the kind of every decoder layer */
    /* the sets views ask for: every layer, attention, dense and MoE feed-forwards, windowed layers
     * (sliding and chunked: both keep at most `window` tokens in a contiguous cache), chunked ones */
    llmmem__kind_set all, attention, dense, moe, sliding, chunked, cross;
    uint64_t dense_layers, moe_layers;    /* decoder layers with a dense MLP and with a MoE block */
    /* what one token adds to an attention layer of any kind: the decompressed keys and values, as
     * the attention computes them (what a Hugging Face cache stores) */
    llmmem__kv_token kv_token;
    llmmem__kv_token kv_latent;  /* MLA: the compressed latent vLLM caches instead; 0 otherwise */
    /* what a token adds to a full-attention layer when its heads or width differ from the sliding layers'
     * (Gemma 4's global_head_dim, num_global_key_value_heads); heads 0 when kv_token holds for every layer */
    llmmem__kv_token kv_token_global;
    uint64_t global_heads;       /* query heads of the full-attention layers when they differ from `heads`, the
                                  * sliding ones' (Step-3.5-Flash); 0 otherwise */
    uint64_t kv_shared_layers;   /* layers reading an earlier layer's keys and values, caching none (Gemma 4) */
    uint64_t dropped;            /* parameters the checkpoint stores but the model drops on load (Gemma 4's
                                  * KV-shared layers' k_proj, v_proj, k_norm) */
    uint8_t per_layer_inputs;    /* per-layer input embeddings feed every layer (Gemma 4 PLE) */
    uint8_t blocks;              /* layers of per-layer shapes (Nemotron-NAS block_configs): widths vary by kind */
    /* short-convolution layers (LFM2's Lfm2ShortConv): a depthwise conv of conv_kernel over the hidden width */
    llmmem__kind_set conv;
    uint64_t conv_layers, conv_kernel;
    /* DeepSeek-V4's compressed attention layers and hyper-connections (their caches and saved tensors are not
     * modelled) */
    uint64_t compressed_layers, hc_mult;
    uint64_t index_cache;        /* bytes of the indexer's key per token and layer in vLLM's paged cache (0: no
                                  * indexer): DeepSeek sparse attention's on every MLA layer, MiniMax-M3's on its
                                  * index_layers */
    uint64_t index_layers;       /* standard-attention layers with MiniMax-M3's lightning indexer (their saved
                                  * tensors are not modelled) */
    /* mixers that keep a state per sequence (0 when the model has none of them) */
    llmmem__kind_set ssm, linear;         /* the Mamba-2 and the Gated DeltaNet layers */
    uint64_t ssm_layers, linear_layers;
    /* Mamba-2 (transformers Mamba2Mixer): inner width = heads x head_dim; conv over inner + 2 x groups x state */
    uint64_t mamba_heads, mamba_head_dim, mamba_state, mamba_groups, mamba_conv_kernel, mamba_conv_dim;
    /* Gated DeltaNet (transformers Qwen3NextGatedDeltaNet): conv over 2 x key_dim + value_dim */
    uint64_t gdn_k_heads, gdn_v_heads, gdn_k_dim, gdn_v_dim, gdn_conv_kernel, gdn_conv_dim;
    /* Mamba-1 (transformers modeling_jamba.py JambaMambaMixer): inner = mamba_expand x hidden, the conv
     * over inner channels, x_proj to dt_rank + 2 x state */
    llmmem__kind_set mamba1;
    uint64_t mamba1_layers, m1_inner, m1_dt_rank, m1_state, m1_conv_kernel;
    /* parallel_ssm (modeling_falcon_h1.py FalconH1DecoderLayer): every layer is attention and a Mamba-2 mixer */
    uint8_t parallel_ssm;
} llmmem__geometry;

/* Layers that keep a state per sequence (Mamba-2, Gated DeltaNet, Mamba-1). */
static inline uint64_t llmmem__state_layers(const llmmem__geometry *g)
{
    return g->ssm_layers + g->linear_layers + g->mamba1_layers + g->conv_layers;
}
/* State mixers of different kinds in one model (0 or 1 when the model has at most one). */
static inline unsigned llmmem__state_kinds(const llmmem__geometry *g)
{
    return (unsigned)(g->ssm_layers != 0) + (unsigned)(g->linear_layers != 0) + (unsigned)(g->mamba1_layers != 0) +
           (unsigned)(g->conv_layers != 0);
}

struct llmmem_model {
    llmmem__settings s;
    uint64_t id;                         /* new on every change, unique in the process (caches key on it) */
    int64_t value[LLMMEM_SLOTS];         /* every model key resolved (llmmem__model_value) */
    char name[LLMMEM_NAME_MAX];
    /* Rebuilt after every change, so const users (estimate) never build it. */
    llmmem__inventory inv;
    llmmem__geometry geo;                /* resolved with the inventory */
    llmmem__layer_map layer_map;         /* set by llmmem_model_set_layer_types (input, resolved into geo.plan) */
    llmmem_status inv_status;            /* LLMMEM_OK when inv is valid */
    char inv_message[LLMMEM_MESSAGE_MAX];
    /* Bytes stored per parameter group in a checkpoint (llmmem_model_use_checkpoint); any
     * later setting clears them, since the shapes they describe may have changed. */
    int has_checkpoint;
    uint64_t checkpoint_bytes[LLMMEM_PARAM_GROUPS];
};

/* Sets (layers 0: removes) the model's per-layer attention map; the model is resolved again. */
void llmmem__model_set_layer_map(llmmem_model *m, const llmmem__layer_map *map);

/* Effective value of a model key: set, else the family's default, else the key's (resolved when
 * the model last changed, model.c refresh). */
static inline int64_t llmmem__model_value(const llmmem_model *m, llmmem_key key)
{
    return m->value[llmmem__slot(key)];
}
/* Builds the inventory and resolves the geometry from the model's values. On failure writes a
 * message (and the geometry is all 0). */
llmmem_status llmmem__inventory_build(llmmem__inventory *inv, llmmem__geometry *geo, const llmmem_model *m,
                                      char *message, size_t message_size);
/* The multi-token-prediction modules a checkpoint stores beyond the model (num_nextn_predict_layers
 * of them; arch.c): each a decoder layer of the kind of the model's last layer, its input norms and
 * projection, its output norm, and its own embedding and head where the family stores them. For a
 * model llmmem__model_check passed; an empty inventory when the model has none. */
llmmem_status llmmem__mtp_inventory(llmmem__inventory *out, const llmmem_model *m);
/* Decoder layers of one token mixer (enum llmmem__mixer), whatever their feed-forward block. */
static inline uint64_t llmmem__mixer_layers(const llmmem__geometry *g, unsigned mixer)
{
    return llmmem__layers_in(&g->plan, llmmem__kinds_of(&g->plan, LLMMEM_MIXER_BIT(mixer), (1u << LLMMEM_FFNS) - 1), 0,
                             g->layers);
}
/* Sliding-window attention layers among decoder layers [first, end). */
static inline uint64_t llmmem__sliding_layers(const llmmem__geometry *g, uint64_t first, uint64_t end)
{
    return llmmem__layers_in(&g->plan, g->sliding, first, end);
}
/* Decoder layers among [first, end) that a tensor class repeats over. */
static inline uint64_t llmmem__class_layers(const llmmem__geometry *g, const llmmem__tensor_class *t, uint64_t first,
                                            uint64_t end)
{
    return llmmem__layers_in(&g->plan, t->kinds, first, end);
}
/* Fails with the stored inventory error if the model's settings are incomplete or invalid. */
llmmem_status llmmem__model_check(const llmmem_model *m);
/* Fails with UNSUPPORTED when the model has Mamba-2 or Gated DeltaNet layers and the user is not
 * `training`: the per-sequence state the generate loop and the paged cache per token keep is not
 * costed there, and a number without it would be silently low. */
llmmem_status llmmem__state_check(const llmmem_model *m, const char *what, int training);

/* ---- hardware and strategy (hardware.c, strategy.c) --------------------- */

struct llmmem_hardware {
    llmmem__settings s;
    char name[LLMMEM_NAME_MAX];
};

/* runtime_overhead_bytes, or its default (-1) for a PyTorch job (torch_job: llmmem_estimate's
 * training steps and generate loops) or another (serve, llama.cpp, ollama) */
static inline uint64_t llmmem__runtime_overhead(const llmmem_hardware *hw, int torch_job)
{
    const int64_t set = llmmem__get_int(&hw->s, LLMMEM_KEY_RUNTIME_OVERHEAD_BYTES);
    if (set >= 0)
        return (uint64_t)set;
    /* a PyTorch process: the memory outside its allocator once a training step's kernels have
     * loaded, 0.73 to 0.80 GB on an H100 with torch 2.11 and CUDA 13 (tests/data/gpu
     * non_pytorch_bytes; the context alone 0.65 GB); the context took 426 MiB with torch 2.10 and
     * CUDA 13 on an RTX 6000 Ada (unslothai/unsloth-zoo#1053). Serving and the local engines keep
     * the earlier figure: a CUDA context of ~400 MB with lazy module loading since CUDA 11.7
     * (pytorch/pytorch#109888), rounded up to 512 MiB. */
    return torch_job ? 768ULL << 20 : 512ULL << 20;
}

/* The device's total as CUDA reports it (cudaMemGetInfo), where the allocator's segments and the
 * memory outside it come from; unknown, the driver's total (nvidia-smi), else the DRAM's: each
 * larger than CUDA's by the share the driver keeps, so the replay errs towards "runs" there. A
 * memory_bytes below it (another card, a cap) is the total. */
static inline uint64_t llmmem__cuda_total(const llmmem_hardware *hw)
{
    uint64_t memory = (uint64_t)llmmem__get_int(&hw->s, LLMMEM_KEY_MEMORY_BYTES);
    int64_t total = llmmem__get_int(&hw->s, LLMMEM_KEY_CUDA_TOTAL_BYTES);
    if (total <= 0)
        total = llmmem__get_int(&hw->s, LLMMEM_KEY_DRIVER_TOTAL_BYTES);
    return total > 0 && (uint64_t)total < memory ? (uint64_t)total : memory;
}

#define LLMMEM__LIST_MAX 16 /* values of a list key: llama.cpp's LLAMA_MAX_DEVICES (tensor_split) */

struct llmmem_strategy {
    llmmem__settings s;
    /* the one list key's values (tensor_split); its count is the key's integer value */
    double tensor_split[LLMMEM__LIST_MAX];
};

/* ---- catalogs (catalog_models.c, catalog_gpus.c) ------------------------ */

typedef struct llmmem__preset_value {
    llmmem_key key;
    int64_t value;
} llmmem__preset_value;

typedef struct llmmem__preset {
    const char *name;
    const llmmem__preset_value *values; /* terminated by key LLMMEM_KEY_NONE */
} llmmem__preset;

/* A model preset's blocks in Nemotron-H's hybrid_override_pattern letters
 * (llmmem__layer_map_from_pattern), for the presets whose keys alone do not give every layer's kind. */
typedef struct llmmem__preset_pattern {
    const char *name;    /* the preset's */
    const char *pattern;
    int feed_forward;    /* the letters name each layer's mixer beside its feed-forward (llmmem__layer_map_from_pattern) */
} llmmem__preset_pattern;

/* Applies a named preset's values to s and copies its name; NOT_FOUND names `what`. */
llmmem_status llmmem__preset_load(llmmem__settings *s, char *name_out, llmmem_object object,
                                  const llmmem__preset *presets, size_t n, const char *name,
                                  const char *what);

extern const llmmem__preset llmmem__model_presets[];
extern const size_t llmmem__model_preset_total;
extern const llmmem__preset_pattern llmmem__model_patterns[];
extern const size_t llmmem__model_pattern_total;
extern const llmmem__preset llmmem__gpu_presets[];
extern const size_t llmmem__gpu_preset_total;

/* ---- views (weights.h: what a view weighs) ------------------------------ */

/* The tensors one rank holds: an inventory whose classes are already split by the parallel
 * layout (rank.c), and the decoder layers [first, end) it covers. The whole model on one
 * device is the model's own inventory and layers [0, num_hidden_layers). */
typedef struct llmmem__view {
    const llmmem__inventory *inv;
    uint64_t first, end;
} llmmem__view;


/* ---- report (estimate.c, report.c) ------------------------------------- */

#define LLMMEM_COMPONENTS 11
#define LLMMEM_PEAK_PARTS 6
#define LLMMEM_COMM_KINDS 5
#define LLMMEM_MAX_STAGES 256 /* pipeline stages a report holds */

typedef struct llmmem__stage_report {
    uint64_t bytes[LLMMEM_COMPONENTS]; /* one device of the stage */
    uint64_t total;
    uint64_t first_layer, layers;      /* its decoder layers (the first of its first chunk) */
} llmmem__stage_report;

struct llmmem_report {
    int valid;
    char model_name[LLMMEM_NAME_MAX];
    char hardware_name[LLMMEM_NAME_MAX];
    uint64_t bytes[LLMMEM_COMPONENTS];
    uint64_t total;
    uint64_t memory_bytes;
    uint64_t capacity;
    uint64_t params[LLMMEM_PARAM_GROUPS];
    uint64_t params_total;
    uint64_t params_active;
    int weights_from_checkpoint; /* weights are a checkpoint's stored bytes, not the inventory's */
    uint64_t params_trainable;   /* parameters that get gradients (training, lora, qlora) */
    uint64_t peak_parts[LLMMEM_PEAK_PARTS]; /* llmmem_peak_part */
    int peak_phase;              /* llmmem_peak_phase */
    int64_t peak_layer;          /* a layer's backward, prefill and decode: the decoder layer (-1: none) */
    uint64_t peak_step;          /* prefill and decode: the generate step (0: the prefill) */
    const char *peak_moment;     /* prefill and decode: the moment in words (static text) */
    uint64_t host_bytes, nvme_bytes; /* per node, offloaded */
    uint64_t host_capacity, nvme_capacity; /* per node, from the hardware (0: not known) */
    uint64_t comm[LLMMEM_COMM_KINDS]; /* bytes a rank of the most loaded stage sends per step */
    unsigned stage_count, most_loaded;
    uint64_t device_total;       /* what CUDA reports as the device's total (llmmem__cuda_total) */
    /* llmmem_estimate_runs: the job replayed through the caching allocator (replayed 0: it was not) */
    int replayed, runs, runs_expandable;
    uint64_t reserved_peak, allocated_peak; /* the placement with the higher reserved peak's */
    uint64_t reserved_low;                  /* the other placement's reserved peak */
    uint64_t decode_stride;                 /* generate: tokens a replayed decode step stood for */
    uint64_t free_at_reserved_peak; /* reserved - allocated at the reserved peak: free blocks in segments */
    uint64_t oom_request;        /* out of memory: the request that failed, and where (after what) */
    char oom_after[96];          /* llmmem__tape_moment_text */
    /* last: estimate clears only the fields above and writes stage_count stages */
    llmmem__stage_report stages[LLMMEM_MAX_STAGES];
    /* what one tensor of each class costs on a rank, kept between estimates into this report for
     * the same model, pricing settings and split (estimate.h); never cleared by an estimate */
    struct llmmem__cost_cache *cache;
};

#endif /* LLMMEM_INTERNAL_H */
