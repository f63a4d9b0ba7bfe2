/*
 * SGLang's start-up sizing: the mem_fraction_static it picks when none is given, the KV pool's
 * tokens (max_total_num_tokens) from the memory free before and after the weights load, the page
 * rounding, the sliding-window and Mamba pools of hybrid models, and max_running_requests
 * (sgl-project/sglang python/sglang/srt/: server_args.py, mem_cache/kv_cache_configurator.py,
 * model_executor/pool_configurator.py, read at 003fca80; the Mamba radix cache strategy from
 * arg_groups/overrides.py at 003bbaf9 and arg_groups/mamba_hook.py at 0e009ce0; DeepSeek-V4's pools from
 * mem_cache/deepseek_v4_memory_pool.py, read at 41802551). SGLang computes in GiB doubles where it
 * does; so does this file, in the same order. No allocation, no I/O.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "job/job.h"
#include "views/kv.h"
#include "views/rank.h"
#include "engines/serving.h"

#define MIB_BYTES 1048576.0
#define GIB_BYTES 1073741824.0

static llmmem_status overflow(const char *what)
{
    return llmmem__fail(LLMMEM_ERR_OVERFLOW, "%s exceeds 64 bits", what);
}

/* server_args.py ServerArgs._handle_gpu_memory_settings: chunked_prefill_size and cuda_graph_max_bs by
 * the GPU's memory (MiB), tp < 4 and tp >= 4. */
static const struct {
    uint64_t below_mib, chunked, bs, bs_tp4;
} memory_buckets[] = {
    {20 * 1024, 2048, 8, 8},       /* T4, 4080 */
    {35 * 1024, 2048, 24, 80},     /* A10, 4090, 5090 */
    {60 * 1024, 4096, 32, 160},    /* A100 40GB, L40 */
    {90 * 1024, 8192, 256, 512},   /* H100, A100 */
    {160 * 1024, 8192, 256, 512},  /* H20, H200 */
    {UINT64_MAX, 16384, 512, 512}, /* B200, MI300 */
};

/* The SGLang releases with rows (engine_version). */
typedef struct sglang_release {
    llmmem_engine_version version;
    int log_padding_slot; /* 0.4.x logs max_running_requests as the ReqToTokenPool's size, the padding row
                           * (slot 0, CUDA-graph padding) counted */
    int mamba_strategy;   /* --mamba-radix-cache-strategy decides a hybrid's state slots a request (auto resolved
                           * to extra_buffer since sgl-project/sglang#28151, 2026-06-19); 0: 3 slots, as before */
} sglang_release;

static const sglang_release sglang_releases[] = {
    {LLMMEM_ENGINE_VERSION_LATEST, 0, 1},
    {LLMMEM_ENGINE_VERSION_SGLANG_0_4, 1, 0},
};

/* The KV cache layout SGLang allocates for kv_cache_dtype d (auto: the model's dtype), as vLLM's
 * paged layout costs the same bytes per token and layer (kv.c): MHATokenToKVPool n_kv x (head_dim +
 * v_head_dim) x dtype (pool_configurator.py DefaultPoolConfigurator._compute_cell_size),
 * MLATokenToKVPool the kv_lora_rank + rope latent, DeepSeek's sparse attention with fp8_e4m3 the
 * 656-byte quantized latent (kv_cache_configurator.py calculate_mla_kv_cache_dim) and the indexer's
 * key with its scales (index_head_dim + index_head_dim / 128 x 4 B, DSATokenToKVPool). */
static llmmem_status sglang_kv_dtype(llmmem_kv_cache_dtype *out, const llmmem__geometry *a, llmmem_kv_cache_dtype d)
{
    switch (d) {
    case LLMMEM_KV_CACHE_FP32:
    case LLMMEM_KV_CACHE_FP16:
    case LLMMEM_KV_CACHE_BF16:
    case LLMMEM_KV_CACHE_FP8_E5M2:
        *out = d;
        return LLMMEM_OK;
    case LLMMEM_KV_CACHE_FP8:
    case LLMMEM_KV_CACHE_FP8_E4M3:
        *out = a->kv_lora_rank && a->index_cache ? LLMMEM_KV_CACHE_FP8_DS_MLA : LLMMEM_KV_CACHE_FP8_E4M3;
        return LLMMEM_OK;
    default:
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "kv_cache_dtype (%s) is not modelled for SGLang: use auto, fp16, bf16, fp8_e4m3 or "
                            "fp8_e5m2",
                            llmmem__kv_dtype_name(d));
    }
}

/* Bytes of one sequence's Mamba state in every state layer of a rank (SGLang's mamba2_cache_params
 * mamba_cache_per_req: the conv state in the model's dtype, the SSM or recurrent state in
 * --mamba-ssm-dtype, float32 by default: server_args.py ServerArgs.mamba_ssm_dtype); the state
 * shapes are vLLM's (kv.c llmmem__state_elements), which SGLang's mamba_utils shares: Kimi Delta
 * Attention's too (configs/mamba_utils.py KimiLinearStateShape: conv (kernel - 1) x 3 x heads x head_dim / tp,
 * recurrent heads / tp x head_dim^2, over configs/kimi_linear.py linear_layer_ids, the kda_layers). */
static llmmem_status state_per_request(uint64_t *out, const llmmem_model *m, const llmmem__geometry *a,
                                       const llmmem__serve_settings *set, uint64_t tp)
{
    uint64_t conv, temporal, e = llmmem__kv_element_bytes(llmmem__model_dtype(m));
    llmmem_status st = llmmem__state_elements(&conv, &temporal, a, tp);
    if (st)
        return st;
    int64_t choice = set->mamba_ssm_cache_dtype; /* auto, float32, bfloat16, float16 */
    uint64_t ssm = choice == 2 || choice == 3 ? 2 : 4;
    uint64_t one;
    if (!llmmem__mul(&one, conv, e) || !llmmem__muladd(&one, temporal, ssm) ||
        !llmmem__mul(out, one, llmmem__state_layers(a)))
        return overflow("Mamba state bytes of a request");
    return LLMMEM_OK;
}

/* The tower's layers and width as server_args.py ServerArgs.adjust_mem_fraction_for_vlm reads them:
 * getattr(vision_config, "num_hidden_layers", 24) and getattr(vision_config, "hidden_size", 1024) of the config class
 * SGLang loads (transformers' unless hf_transformers_utils _CONFIG_REGISTRY names its own; PreTrainedConfig itself has
 * neither attribute). A key gives the model's value (our vision keys), else the constant is what the class yields. */
static const struct vlm_tower_row {
    llmmem__vision_kind vk;
    llmmem_key layers_key, width_key; /* LLMMEM_KEY_NONE: the constant */
    double layers, width;
} vlm_towers[] = {
    /* CLIPVisionConfig, SiglipVisionConfig, PixtralVisionConfig, Gemma4VisionConfig: num_hidden_layers, hidden_size */
    {LLMMEM__VISION_CLIP, LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS, LLMMEM_KEY_VISION_HIDDEN_SIZE, 0.0, 0.0},
    {LLMMEM__VISION_SIGLIP, LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS, LLMMEM_KEY_VISION_HIDDEN_SIZE, 0.0, 0.0},
    {LLMMEM__VISION_PIXTRAL, LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS, LLMMEM_KEY_VISION_HIDDEN_SIZE, 0.0, 0.0},
    {LLMMEM__VISION_GEMMA4, LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS, LLMMEM_KEY_VISION_HIDDEN_SIZE, 0.0, 0.0},
    /* Qwen2_5_VLVisionConfig, Qwen3VLVisionConfig (Qwen3VLMoeVisionConfig and SGLang's configs/qwen3_5.py
     * Qwen3_5VisionConfig subclass it), Exaone4_5_VisionConfig: the depth is `depth`, no attribute_map: 24 layers */
    {LLMMEM__VISION_QWEN2_5_VL, LLMMEM_KEY_NONE, LLMMEM_KEY_VISION_HIDDEN_SIZE, 24.0, 0.0},
    {LLMMEM__VISION_QWEN3_VL, LLMMEM_KEY_NONE, LLMMEM_KEY_VISION_HIDDEN_SIZE, 24.0, 0.0},
    {LLMMEM__VISION_EXAONE4_5, LLMMEM_KEY_NONE, LLMMEM_KEY_VISION_HIDDEN_SIZE, 24.0, 0.0},
    /* configs/kimi_k25.py KimiK25VisionConfig keeps its defaults, 27 and 1152 (the checkpoint's vt_* keys land
     * beside them) */
    {LLMMEM__VISION_MOONVIT, LLMMEM_KEY_NONE, LLMMEM_KEY_NONE, 27.0, 1152.0},
    /* configs/kimi_k3.py KimiK3VisionConfig copies vt_num_hidden_layers and vt_hidden_size into them */
    {LLMMEM__VISION_MOONVIT_K3, LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS, LLMMEM_KEY_VISION_HIDDEN_SIZE, 0.0, 0.0},
    /* configs/minimax_vl.py MiniMaxVLBaseConfig: the checkpoint's CLIPVisionConfig */
    {LLMMEM__VISION_MINIMAX_M3, LLMMEM_KEY_VISION_NUM_HIDDEN_LAYERS, LLMMEM_KEY_VISION_HIDDEN_SIZE, 0.0, 0.0},
};

/* The row of the model's tower; NULL when its class is not read (mllama's is refused before, Llama 4's not used). */
static const struct vlm_tower_row *vlm_tower(const llmmem_model *m)
{
    int64_t vk = llmmem__model_value(m, LLMMEM_KEY_VISION_MODEL_TYPE);
    for (size_t i = 0; i < sizeof vlm_towers / sizeof vlm_towers[0]; i++)
        if (vlm_towers[i].vk == vk)
            return &vlm_towers[i];
    return NULL;
}

/* adjust_mem_fraction_for_vlm: 0.95 x clamp(1 - 0.1 x (ratio - 1), 0.8, 1.05), ratio the tower's layers x width^2
 * over ViT-L/14's 24 x 1024^2; the default fraction (round(..., 3)) is multiplied by it, not rounded again */
static double vlm_fraction(const llmmem_model *m, const struct vlm_tower_row *t)
{
    double layers = t->layers_key != LLMMEM_KEY_NONE ? (double)llmmem__model_value(m, t->layers_key) : t->layers;
    double width = t->width_key != LLMMEM_KEY_NONE ? (double)llmmem__model_value(m, t->width_key) : t->width;
    double ratio = layers * (width * width) / (24.0 * (1024.0 * 1024.0));
    double factor = 1.0 - 0.1 * (ratio - 1.0);
    factor = factor > 1.05 ? 1.05 : factor < 0.8 ? 0.8 : factor;
    return 0.95 * factor;
}

/* configs/model_config.py is_hybrid_swa_model (read at 001adf56): the architectures whose sliding-window layers get a
 * pool of their own (SWAKVPool); the sliding layers of any other model (Gemma 2 and 3, Cohere2, EXAONE 4, OLMo 3,
 * Mistral's sliding_window) are paged as full attention. Llama 4 and Laguna are on the list too, refused before for
 * their chunked attention and head widths; DeepSeek-V4 has pools of its own (dsv4_serve). */
static const int64_t sglang_hybrid_swa_types[] = {LLMMEM_MODEL_GPT_OSS, LLMMEM_MODEL_MIMO_V2_FLASH, LLMMEM_MODEL_STEP3P5,
                                                  LLMMEM_MODEL_GEMMA4, LLMMEM_MODEL_LLAMA4, LLMMEM_MODEL_LAGUNA};

static int sglang_hybrid_swa(const llmmem_model *m)
{
    const int64_t type = llmmem__model_value(m, LLMMEM_KEY_MODEL_TYPE);
    for (size_t i = 0; i < sizeof sglang_hybrid_swa_types / sizeof sglang_hybrid_swa_types[0]; i++)
        if (sglang_hybrid_swa_types[i] == type)
            return 1;
    return 0;
}

/* kv_cache_configurator.py _resolve_max_num_reqs: the context_length, else max_position_embeddings */
static llmmem_status sglang_context(uint64_t *out, const llmmem_model *model, const llmmem__serve_settings *set)
{
    uint64_t positions = (uint64_t)llmmem__model_value(model, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS);
    if (set->max_model_len < 0)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "max_model_len auto (-1) is vLLM's; SGLang takes a context_length");
    *out = llmmem__serve_or(set->max_model_len, positions ? positions : 2048);
    return LLMMEM_OK;
}

/* kv_cache_configurator.py _resolve_max_num_reqs: int(tokens / context_len x 512) within [2048, 4096], at most
 * --max-running-requests (given) when given, else at most tokens // 2 */
static uint64_t sglang_requests(uint64_t tokens, uint64_t context, uint64_t given)
{
    int64_t estimated = (int64_t)((double)tokens / (double)context * 512.0);
    estimated = estimated < 2048 ? 2048 : estimated > 4096 ? 4096 : estimated;
    uint64_t requests = (uint64_t)estimated;
    if (given)
        return given < requests ? given : requests;
    return tokens / 2 < requests ? tokens / 2 : requests;
}

/* mamba_radix_cache_strategy's choices (keys.c mamba_strategy_names) */
enum { MAMBA_AUTO, MAMBA_NO_BUFFER, MAMBA_EXTRA_BUFFER, MAMBA_EXTRA_BUFFER_LAZY };

/* The model types whose SGLang architecture takes the extra buffer (arg_groups/overrides.py
 * _MAMBA_EXTRA_BUFFER_ARCHS at 003bbaf9). */
static int mamba_extra_buffer_model(int64_t type)
{
    switch (type) {
    case LLMMEM_MODEL_QWEN3_NEXT:
    case LLMMEM_MODEL_QWEN3_5:
    case LLMMEM_MODEL_QWEN3_5_MOE:
    case LLMMEM_MODEL_KIMI_LINEAR:
    case LLMMEM_MODEL_KIMI_K3:
    case LLMMEM_MODEL_NEMOTRON_H:
    case LLMMEM_MODEL_FALCON_H1:
    case LLMMEM_MODEL_GRANITEMOEHYBRID:
        return 1;
    default:
        return 0;
    }
}

/* State slots a request of a Mamba hybrid holds: max_running_requests is at most max_mamba_cache_size // this
 * (mem_cache/kv_cache_configurator.py KVCacheConfigurator._calculate_mamba_ratio and resolve_max_num_reqs, read at
 * 003fca80). Overlap scheduling is SGLang's default and assumed on; SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK is off. */
static llmmem_status mamba_slots(uint64_t *out, const sglang_release *rel, const llmmem_model *model,
                                 const llmmem__serve_settings *set, uint64_t page)
{
    int64_t strategy = set->mamba_radix_cache_strategy, type = llmmem__model_value(model, LLMMEM_KEY_MODEL_TYPE);
    const char *name = llmmem__mamba_radix_cache_strategy_name(strategy);
    *out = 3; /* MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO */
    if (!rel->mamba_strategy) {
        if (strategy != MAMBA_AUTO)
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "mamba_radix_cache_strategy (%s) under SGLang 0.4 (which has no "
                                "such flag) is not modelled: use engine_version latest", name);
        return LLMMEM_OK;
    }
    if (!set->enable_prefix_caching) { /* _calculate_mamba_ratio: --disable-radix-cache, one slot */
        *out = 1;
        return LLMMEM_OK;
    }
    const int extra = mamba_extra_buffer_model(type);
    /* arg_groups/overrides.py _mamba_radix_cache_resolution (003bbaf9): auto -> extra_buffer where the architecture
     * supports it (linear_attn_backend triton, the default) and overlap scheduling is on, else no_buffer for the
     * other _MAMBA_RADIX_CACHE_ARCHS (Lfm2ForCausalLM; overlap scheduling turned off); jamba and mamba2 are in
     * neither list and keep auto: 3 slots */
    if (strategy == MAMBA_AUTO)
        strategy = extra ? MAMBA_EXTRA_BUFFER : type == LLMMEM_MODEL_LFM2 ? MAMBA_NO_BUFFER : MAMBA_AUTO;
    else if (strategy != MAMBA_NO_BUFFER && !extra) /* arg_groups/mamba_hook.py validate_mamba_extra_buffer (0e009ce0) */
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "mamba_radix_cache_strategy %s under SGLang: %s's architecture "
                            "does not take the extra buffer (validate_mamba_extra_buffer); use no_buffer or auto",
                            name, llmmem_choice_name(LLMMEM_KEY_MODEL_TYPE, type));
    else if (strategy == MAMBA_NO_BUFFER && page > 1) /* mamba_hook.py validate_mamba_no_buffer (0e009ce0) */
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "mamba_radix_cache_strategy no_buffer under SGLang needs block_size "
                            "1 (validate_mamba_no_buffer: \"no_buffer only supports page_size=1\"), not %llu",
                            (unsigned long long)page);
    /* 3 + MAMBA_CACHE_V2_ADDITIONAL_RATIO_OVERLAP (2: the ping-pong track buffers) or _OVERLAP_LAZY (1) */
    if (strategy == MAMBA_EXTRA_BUFFER)
        *out = 5;
    else if (strategy == MAMBA_EXTRA_BUFFER_LAZY)
        *out = 4;
    return LLMMEM_OK;
}

/* What sglang_serve has measured when the KV pool is sized (the budget DeepSeek-V4's pools start from). */
typedef struct sglang_start {
    const sglang_release *rel;
    uint64_t memory, pre, post, chunked, graph_bs, available;
    double fraction, reserved; /* mem_fraction_static, its reserve in MiB (0: given) */
} sglang_start;

/* The budget's figures in a serving report (the pool's own are its sizing's). */
static void start_values(uint64_t *v, const sglang_start *b)
{
    v[LLMMEM_SERVING_MEMORY_BYTES] = b->memory;
    v[LLMMEM_SERVING_REQUESTED_BYTES] = (uint64_t)((double)b->pre * b->fraction);
    v[LLMMEM_SERVING_WEIGHTS] = b->pre - b->post;
    v[LLMMEM_SERVING_KV_CACHE_BYTES] = b->available;
    v[LLMMEM_SERVING_MAX_NUM_BATCHED_TOKENS] = b->chunked;
    v[LLMMEM_SERVING_ENGINE] = LLMMEM_ENGINE_SGLANG;
    v[LLMMEM_SERVING_ENGINE_VERSION] = (uint64_t)b->rel->version;
    v[LLMMEM_SERVING_MEMORY_FRACTION_X10000] = llmmem__serving_x10000(b->fraction);
    v[LLMMEM_SERVING_FREE_BYTES] = b->pre;
    v[LLMMEM_SERVING_CUDA_GRAPH_MAX_BS] = b->graph_bs;
    v[LLMMEM_SERVING_RESERVED_BYTES] = (uint64_t)(b->reserved * MIB_BYTES);
}

/* ---- DeepSeek-V4 (sgl-project/sglang python/sglang/srt/mem_cache/deepseek_v4_memory_pool.py read at 41802551,
 * model_executor/pool_configurator.py DSV4PoolConfigurator at 003fca80) --------------------------------------- */

/* deepseek_v4_memory_pool.py DeepSeekV4SingleKVPool.get_bytes_per_token: the 448 nope elements in fp8, the 64 rope
 * ones in bf16, an fp8 scale per 64 nope elements and a pad byte (create_buffer asserts 584, uint8 storage) */
#define DSV4_NOPE 448
#define DSV4_ROPE 64
#define DSV4_ENTRY (DSV4_NOPE + DSV4_ROPE * 2 + DSV4_NOPE / 64 + 1)
/* get_compress_state_ring_size without speculative decoding or online c128 (SGLANG_OPT_USE_ONLINE_COMPRESS off) */
#define DSV4_C4_RING 8
#define DSV4_C128_RING 128
/* pool_configurator.py _get_dsv4_compress_state_dtype_sizes: SGLANG_DSV4_COMPRESS_STATE_DTYPE float32 */
#define DSV4_STATE_BYTES 4

/* The pools' sizes from a count of full tokens (pool_configurator.py DSV4PoolConfigurator._compute_dsv4_sizes). */
typedef struct dsv4_sizes {
    uint64_t full, swa, c4, c128, c4_state;
} dsv4_sizes;

static dsv4_sizes dsv4_pools(uint64_t full_token, uint64_t page, double ratio, uint64_t window)
{
    dsv4_sizes s;
    s.full = full_token / page * page;
    s.swa = (uint64_t)((double)s.full * ratio) / page * page;
    s.c4 = s.full / 4;
    s.c128 = s.full / 128;
    s.c4_state = s.swa / window * DSV4_C4_RING; /* swa_page_size there is cfg.window_size */
    return s;
}

/* DSV4PoolConfigurator._get_c128_state_fixed_bytes: the heavily compressed layers' compressor state, a 128-slot
 * ring per request slot (max_running_requests + 1), a ring and a row more, rows rounded up to 128, of 2 x
 * (nope + rope) fp32 elements a row */
static int dsv4_c128_state(uint64_t *out, uint64_t requests, uint64_t n128)
{
    uint64_t rows = 0;
    if (n128 && (!llmmem__mul(&rows, requests + 1, DSV4_C128_RING) ||
                 !llmmem__add(&rows, rows, DSV4_C128_RING + 1)))
        return 0;
    rows = llmmem__ceil_div(rows, 128) * 128;
    return llmmem__mul(out, rows, 2 * (DSV4_NOPE + DSV4_ROPE) * DSV4_STATE_BYTES) && llmmem__mul(out, *out, n128);
}

/* SGLang's rank of minimax_m3_vl (models/minimax_m3_vl.py builds the tower whatever the limits, quant_config None):
 * the tower and projectors split over the attention ranks as models/minimax_vl_common.py splits them
 * (mm_enable_dp_encoder off, its default; the inventory's served_tower rule) in place of the inventory's replicated
 * ones, and the post_layernorm MiniMaxVLVisionTransformer builds though the checkpoint has none (require_post_norm
 * unset with every layer kept), a LayerNorm's weight and bias in the model's dtype */
static llmmem_status sglang_m3_tower(uint64_t *w, const llmmem_model *m, const llmmem__serve_inputs *in, uint64_t tp)
{
    uint64_t split, post;
    llmmem_status st;
    /* VisionAttention divides the heads (dist_utils.divide), fc1 and both linear_1 (ColumnParallelLinear) their
     * outputs over the ranks: SGLang refuses to start otherwise */
    static const llmmem_key divided[] = {LLMMEM_KEY_VISION_NUM_ATTENTION_HEADS, LLMMEM_KEY_VISION_INTERMEDIATE_SIZE,
                                         LLMMEM_KEY_HIDDEN_SIZE};
    for (size_t i = 0; i < sizeof divided / sizeof divided[0]; i++) {
        const int64_t n = llmmem__model_value(m, divided[i]);
        if (n > 0 && (uint64_t)n % tp)
            return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "SGLang splits minimax_m3_vl's vision tower over the "
                                "attention ranks: %s (%lld) is not divisible by tensor_parallel (%llu)",
                                llmmem_key_name(divided[i]), (long long)n, (unsigned long long)tp);
    }
    if ((st = llmmem__serving_weights_less_tower(w, m, in, tp)) != LLMMEM_OK ||
        (st = llmmem__served_tower_weight_bytes(&split, m, &in->plan, tp)) != LLMMEM_OK)
        return st;
    if (!llmmem__mul(&post, (uint64_t)llmmem__model_value(m, LLMMEM_KEY_VISION_HIDDEN_SIZE),
                     2 * llmmem__kv_element_bytes(llmmem__model_dtype(m))) ||
        !llmmem__add(w, *w, split) || !llmmem__add(w, *w, post))
        return overflow("weights of a rank with its vision tower");
    return LLMMEM_OK;
}

/* SGLang's DeepSeekV4TokenToKVPool: a sliding-window pool on every layer, compressed pools on the ratio-4 and
 * ratio-128 layers, the ratio-4 layers' indexer keys and the compressors' state, sized by DSV4PoolConfigurator
 * from the budget sglang_serve measured. */
static llmmem_status dsv4_serve(llmmem_serving *r, const llmmem_model *model, const llmmem__serve_inputs *in,
                                const sglang_start *b)
{
    const llmmem__geometry *a = &model->geo;
    const llmmem__serve_settings *set = &in->set;
    const uint64_t layers = a->layers, window = a->window;
    const uint64_t n4 = llmmem__mixer_layers(a, LLMMEM_MIXER_CSA), n128 = llmmem__mixer_layers(a, LLMMEM_MIXER_HCA);
    uint64_t rope = (uint64_t)llmmem__model_value(model, LLMMEM_KEY_QK_ROPE_HEAD_DIM);
    uint64_t index = (uint64_t)llmmem__model_value(model, LLMMEM_KEY_INDEX_HEAD_DIM);
    int64_t kv = set->kv_cache_dtype;
    /* pool_configurator.py DSV4PoolConfigurator.__init__: a draft worker's layer inflates bytes_per_full_token
     * and get_compress_state_ring_size doubles the rings */
    if (set->speculative_method != LLMMEM_SPECULATIVE_NONE)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "speculative decoding of deepseek_v4 under SGLang (its draft "
                            "worker's pools, DSV4PoolConfigurator's (layers + 1) / layers and rings of 16 and 256) is "
                            "not modelled");
    if (b->rel->version != LLMMEM_ENGINE_VERSION_LATEST) /* DeepseekV4ForCausalLM came after 0.4 */
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "deepseek_v4 under SGLang 0.4 (which has no DeepSeek-V4 pools) is "
                            "not modelled: use engine_version latest");
    /* the AMD path's unified-KV layout (bf16 latent, per-request rings) sizes otherwise */
    if (in->dev.backend == LLMMEM_BACKEND_ROCM)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "deepseek_v4 under SGLang on ROCm (its unified-KV pools) is not "
                            "modelled");
    /* server_args.py _handle_model_specific_adjustments, DeepseekV4ForCausalLM: kv_cache_dtype auto -> fp8_e4m3;
     * DeepSeekV4SingleKVPool.create_buffer asserts uint8 storage */
    if (kv != LLMMEM_KV_CACHE_AUTO && kv != LLMMEM_KV_CACHE_FP8 && kv != LLMMEM_KV_CACHE_FP8_E4M3)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "kv_cache_dtype (%s) under SGLang's deepseek_v4 pools: they "
                            "store fp8 only (auto, fp8 or fp8_e4m3)", llmmem__kv_dtype_name(kv));
    /* create_buffer asserts 448 fp8 + 64 bf16 elements a token; _init_compressed_layer_mapping takes ratios 4
     * and 128 alone */
    if (a->head_dim != DSV4_NOPE + DSV4_ROPE || (rope && rope != DSV4_ROPE) ||
        (n4 && llmmem__model_value(model, LLMMEM_KEY_COMPRESS_RATE_CSA) != 4) ||
        (n128 && llmmem__model_value(model, LLMMEM_KEY_COMPRESS_RATE_HCA) != 128) || window == 0)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "SGLang's deepseek_v4 pools take head_dim 512 (448 + 64 rope), "
                            "compress rates 4 and 128 and a sliding window; head_dim %llu, sliding_window %llu "
                            "are not modelled", (unsigned long long)a->head_dim, (unsigned long long)window);
    /* server_args.py DeepseekV4ForCausalLM: page_size 256 when unset; the model runner asserts 256 for the paged
     * sliding-window pool */
    uint64_t page = llmmem__serve_or(set->block_size, 256);
    if (page != 256)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "block_size (%llu): SGLang's deepseek_v4 pools page by 256",
                            (unsigned long long)page);
    r->dtype = LLMMEM_KV_CACHE_FP8_E4M3;

    /* DSV4PoolConfigurator._get_bytes_per_full_token (float, SGLang's order): the sliding pool's share
     * (swa_full_tokens_ratio) on every layer, a quarter entry and a quarter indexer key (index_head_dim fp8 +
     * a fp32 scale per 128) on the ratio-4 layers, 1/128 entry on the ratio-128 layers, and the ratio-4 layers'
     * compressor states (2 x 2 x width fp32 a slot, c4_ring_size / window slots a sliding token) */
    const double ratio = set->swa_full_tokens_ratio;
    const uint64_t indexer = index + index / 128 * 4, width = DSV4_NOPE + DSV4_ROPE;
    const double state_ratio = (double)DSV4_C4_RING / (double)window;
    double bpft = ratio * DSV4_ENTRY * (double)layers + 0.25 * DSV4_ENTRY * (double)n4 +
                  1.0 / 128 * DSV4_ENTRY * (double)n128 + 0.25 * (double)indexer * (double)n4 +
                  ratio * state_ratio * (double)(2 * 2 * width * DSV4_STATE_BYTES) * (double)n4 +
                  ratio * state_ratio * (double)(2 * 2 * index * DSV4_STATE_BYTES) * (double)n4;

    /* calculate_pool_sizes: the ratio-128 state is request-scoped, taken out first for --max-running-requests
     * or the requests the token capacity implies (_get_c128_state_fixed_bytes_for_token_capacity) */
    uint64_t context = 0, fixed = 0, given = (uint64_t)set->max_num_seqs;
    llmmem_status st = sglang_context(&context, model, set);
    if (st)
        return st;
    uint64_t first = (uint64_t)((double)b->available / bpft);
    if (!dsv4_c128_state(&fixed, given ? given : sglang_requests(first, context, 0), n128))
        return overflow("the compressor state of deepseek_v4's heavily compressed layers");
    uint64_t rest = b->available > fixed ? b->available - fixed : 0;
    uint64_t max_tokens = (uint64_t)((double)rest / bpft);
    dsv4_sizes s = dsv4_pools(max_tokens, page, ratio, window);
    /* _apply_token_constraints: --max-total-tokens caps it (calculate_pool_sizes_from_max_tokens) */
    uint64_t cap = set->max_total_tokens;
    if (cap && cap / page * page < s.full)
        s = dsv4_pools(cap, page, ratio, window);
    if (s.full == 0)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "SGLang: not enough memory for one page of the KV pool "
                            "(MemoryPoolConfig: \"Please try to increase --mem-fraction-static\")");
    /* finalize_with_max_running_requests: the ratio-128 state pool for the requests SGLang runs */
    uint64_t requests = sglang_requests(s.full, context, given), c128_state = 0;
    if (!dsv4_c128_state(&c128_state, requests, n128))
        return overflow("the compressor state of deepseek_v4's heavily compressed layers");

    /* the pools as DeepSeekV4TokenToKVPool.__init__ builds them: swa_kv_pool on every layer, c4_kv_pool and
     * c128_kv_pool on their layers, c4_indexer_kv_pool of c128_size x 32 keys; the compressor states
     * (_init_paged_compress_states: attention and indexer states on the ratio-4 layers) */
    uint64_t *v = r->v, pool = 0, states = 0, block = 0, waste = 0, longest, fit = 0, need = 0;
    if (!llmmem__mul(&pool, s.swa, DSV4_ENTRY * layers) || !llmmem__muladd(&pool, s.c4, DSV4_ENTRY * n4) ||
        !llmmem__muladd(&pool, s.c128, DSV4_ENTRY * n128) || !llmmem__muladd(&pool, s.c128 * 32, indexer * n4) ||
        !llmmem__mul(&states, s.c4_state, 2 * 2 * (width + index) * DSV4_STATE_BYTES * n4) ||
        !llmmem__add(&states, states, c128_state))
        return overflow("deepseek_v4's pools");
    /* one page of 256 tokens in every pool: the window's on every layer, 64 compressed entries and indexer keys
     * a ratio-4 layer, 2 entries a ratio-128 layer */
    block = page * DSV4_ENTRY * layers + page / 4 * (DSV4_ENTRY + indexer) * n4 + page / 128 * DSV4_ENTRY * n128;

    r->max_model_len = context;
    r->pool.block = page;
    r->pool.full_groups = 1;
    r->pool.token_layer = block / page; /* the ratio-128 layers' 584 B over 128 tokens: rounded down */
    r->pool.group_layers = 1;
    r->pool.num_blocks = s.full / page;
    r->pool.batched = b->chunked;
    r->pool.n = set->n;
    r->pool.prefix = set->shared_prefix_tokens;
    r->pool.prompt = set->prompt_tokens;
    r->pool.prefix_caching = set->enable_prefix_caching;
    r->swa_tokens = s.swa; /* each request keeps its window and a page there, as in the hybrid pools */
    r->swa_window = window;
    r->page = page * DSV4_ENTRY; /* a page of one layer's sliding-window pool */
    r->seq_cap = requests;
    uint64_t request = llmmem__serve_or(set->request_tokens, context);
    if ((st = llmmem__serving_check_request(r, request, "SGLang")) != LLMMEM_OK ||
        (st = llmmem__serving_requests(&fit, r, context)) != LLMMEM_OK ||
        (st = llmmem__serving_requests(&v[LLMMEM_SERVING_MAX_CONCURRENCY], r, request)) != LLMMEM_OK ||
        (st = llmmem__serving_longest(&longest, r)) != LLMMEM_OK)
        return st;
    if (!llmmem__kv_pool_blocks(&need, &r->pool, request))
        return overflow("pages of a request");
    /* the request's last page, unfilled, in every pool: its tokens in the window's, its entries in the others */
    uint64_t pages = llmmem__ceil_div(request, page);
    if (!llmmem__mul(&waste, pages * page - request, DSV4_ENTRY * layers) ||
        !llmmem__muladd(&waste, pages * (page / 4) - request / 4, (DSV4_ENTRY + indexer) * n4) ||
        !llmmem__muladd(&waste, pages * (page / 128) - request / 128, DSV4_ENTRY * n128))
        return overflow("the bytes a request leaves unfilled");

    v[LLMMEM_SERVING_BYTES_PER_TOKEN] = block / page;
    v[LLMMEM_SERVING_PAGE_BYTES] = r->page;
    v[LLMMEM_SERVING_BLOCK_BYTES] = block;
    v[LLMMEM_SERVING_NUM_BLOCKS] = s.full / page;
    v[LLMMEM_SERVING_TOKENS] = s.full;
    v[LLMMEM_SERVING_GROUPS] = 1u + (n4 ? 2u : 0u) + (n128 ? 1u : 0u); /* sliding, compressed, indexer pools */
    v[LLMMEM_SERVING_LAYERS_PER_GROUP] = layers;
    v[LLMMEM_SERVING_KV_HEADS_PER_RANK] = 1;
    v[LLMMEM_SERVING_LAYERS_PER_STAGE] = layers;
    v[LLMMEM_SERVING_BLOCK_SIZE] = page;
    v[LLMMEM_SERVING_MAX_NUM_SEQS] = requests + (uint64_t)b->rel->log_padding_slot;
    v[LLMMEM_SERVING_MAX_MODEL_LEN_SETTING] = context;
    v[LLMMEM_SERVING_MAX_MODEL_LEN] = longest;
    v[LLMMEM_SERVING_REQUEST_TOKENS] = request;
    v[LLMMEM_SERVING_BLOCKS_PER_REQUEST] = need;
    v[LLMMEM_SERVING_WASTE_BYTES] = waste;
    start_values(v, b);
    v[LLMMEM_SERVING_FITS] = fit > 0;
    v[LLMMEM_SERVING_SWA_TOKENS] = s.swa;
    v[LLMMEM_SERVING_MAX_TOKENS] = max_tokens;
    v[LLMMEM_SERVING_POOL_BYTES] = pool;
    v[LLMMEM_SERVING_STATE_POOL_BYTES] = states;
    /* a request's own state: the ratio-128 layers' ring (the ratio-4 states are the window's) */
    v[LLMMEM_SERVING_STATE_BYTES_PER_SEQUENCE] = DSV4_C128_RING * 2 * width * DSV4_STATE_BYTES * n128;
    llmmem__serving_finish(r, model, in);
    return LLMMEM_OK;
}

static llmmem_status sglang_serve(llmmem_serving *out, const llmmem_model *model, const llmmem__serve_inputs *in)
{
    llmmem__served p;
    llmmem_serving *r = out;
    const llmmem__serve_settings *set = &in->set;
    llmmem_status st = llmmem__serving_prepare(&p, r, model, in, "SGLang's KV pool",
                                                LLMMEM__SERVING_NO_PROFILE | LLMMEM__KV_COMPRESSED | LLMMEM__KV_INDEXED);
    if (st)
        return st;
    const llmmem__geometry *a = p.a;
    int64_t version;
    if ((st = llmmem__serving_version(&version, in, LLMMEM_ENGINE_SGLANG)) != LLMMEM_OK)
        return st;
    const sglang_release *rel = &sglang_releases[version == LLMMEM_ENGINE_VERSION_SGLANG_0_4];
    if (r->pp > 1)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "pipeline_parallel (%llu) under SGLang is not modelled",
                            (unsigned long long)r->pp);
    /* SGLang serves a multimodal checkpoint with its tower: server_args.py LANGUAGE_MODEL_ONLY_ARCHITECTURES, the
     * models --language-model-only takes, names none we read; the tower's share is vlm_fraction's. configs/
     * model_config.py ModelConfig.__init__ (read at 001adf56): with --enable-multimodal unset, mm_disabled_models
     * (Gemma3ForConditionalGeneration, Llama4ForConditionalGeneration) are not is_multimodal: no VLM fraction and no
     * VLM cache (gemma3_mm.py still builds and loads the tower) */
    const int64_t projector = llmmem__model_value(model, LLMMEM_KEY_MULTIMODAL_PROJECTOR);
    const int vlm = llmmem__model_value(model, LLMMEM_KEY_VISION_MODEL_TYPE) != 0 &&
                    projector != LLMMEM__PROJECTOR_GEMMA3 && projector != LLMMEM__PROJECTOR_LLAMA4;
    const struct vlm_tower_row *tower = vlm ? vlm_tower(model) : NULL;
    if (vlm && !tower) {
        char known[320];
        size_t n = 0;
        for (size_t i = 0; i < sizeof vlm_towers / sizeof vlm_towers[0] && n < sizeof known; i++)
            n += (size_t)snprintf(known + n, sizeof known - n, "%s%s", i ? ", " : "",
                                  llmmem_choice_name(LLMMEM_KEY_VISION_MODEL_TYPE, vlm_towers[i].vk));
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "%s with its %s tower under SGLang is not modelled: the vision "
                            "config's num_hidden_layers and hidden_size that server_args.py adjust_mem_fraction_for_vlm "
                            "reads are known for %s only",
                            llmmem_choice_name(LLMMEM_KEY_MODEL_TYPE, llmmem__model_value(model, LLMMEM_KEY_MODEL_TYPE)),
                            llmmem_choice_name(LLMMEM_KEY_VISION_MODEL_TYPE,
                                               llmmem__model_value(model, LLMMEM_KEY_VISION_MODEL_TYPE)),
                            known);
    }
    if (a->chunk)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "chunked local attention under SGLang is not modelled");
    const uint64_t tp = p.tp;
    const int state = llmmem__state_layers(a) != 0;
    /* a Mamba hybrid's MLA layers are paged as any MLA model's (configs/model_config.py: KimiLinearForCausalLM is
     * AttentionArch.MLA; pool_configurator.py _compute_cell_size: the MLA cell over mambaish full_attention_layer_ids);
     * its sliding-window layers are not modelled */
    if (state && a->window)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "sliding-window attention beside Mamba or Gated DeltaNet layers "
                            "under SGLang is not modelled");
    if ((st = sglang_kv_dtype(&r->dtype, a, in->kv)) != LLMMEM_OK)
        return st;
    /* model_overrides/minimax_m3.py: ROCm takes the triton backend and no page size of its own */
    const int indexed = a->index_layers != 0;
    if (indexed && in->dev.backend == LLMMEM_BACKEND_ROCM)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "minimax_m3_vl under SGLang on ROCm (its triton or FlyDSL "
                            "attention and their page sizes) is not modelled");
    /* server_args.py _handle_gpu_memory_settings: gpu_mem is the smallest memory.total of the visible GPUs
     * in MiB (utils get_device_memory_capacity: nvidia-smi) */
    uint64_t driver = in->dev.driver_total;
    uint64_t gpu_mem = (driver ? driver : p.memory) >> 20;
    size_t b = 0;
    while (gpu_mem >= memory_buckets[b].below_mib)
        b++;
    uint64_t chunked = llmmem__serve_or(set->max_num_batched_tokens, memory_buckets[b].chunked);
    uint64_t graph_bs = llmmem__serve_or(set->cuda_graph_max_bs, tp < 4 ? memory_buckets[b].bs : memory_buckets[b].bs_tp4);
    double fraction = set->mem_fraction_static, reserved = 0.0;
    if (fraction == 0.0) {
        /* the reserve for what lives outside the static pool: metadata 512 MiB, 1.5 MiB per prefill
         * token, 2 MiB per CUDA-graph batch, 1 GiB per 8 ranks, at least 10 GiB above 60 GiB; an EAGLE-
         * style draft (MTP) 2 GiB more; then round((gpu_mem - reserved) / gpu_mem, 3) */
        reserved = 512.0 + 1.5 * (double)(chunked > 2048 ? chunked : 2048) + 2.0 * (double)graph_bs +
                   (double)tp * (double)r->pp / 8.0 * 1024.0;
        if (gpu_mem > 60 * 1024 && reserved < 10240.0)
            reserved = 10240.0;
        if (set->speculative_method == LLMMEM_SPECULATIVE_MTP)
            reserved += 2048.0;
        fraction = (double)llmmem__serving_decimals(((double)gpu_mem - reserved) / (double)gpu_mem, 3) / 1000.0;
        if (vlm)
            fraction *= vlm_fraction(model, tower);
    }

    /* model_runner init_torch_distributed: pre_model_load_memory, the free memory after NCCL, before the
     * weights (measured by SGLang; modelled as the device less the runtime's share); the weights come out
     * of it before the KV budget is taken (the draft's too: rank weights with the MTP modules) */
    int64_t pre_set = set->pre_model_load_bytes, w_set = set->profile_weights_bytes;
    uint64_t overhead = in->dev.runtime;
    uint64_t pre = pre_set >= 0 ? (uint64_t)pre_set : p.memory > overhead ? p.memory - overhead : 0;
    uint64_t weights;
    if (w_set >= 0)
        weights = (uint64_t)w_set;
    else if ((st = llmmem__serving_rank_weights(&weights, model, in, tp)) != LLMMEM_OK ||
             (indexed && (st = sglang_m3_tower(&weights, model, in, tp)) != LLMMEM_OK))
        return st;
    if (weights >= pre)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "SGLang: the weights of a rank (%llu bytes) exceed the memory free "
                            "before they load (%llu bytes)", (unsigned long long)weights, (unsigned long long)pre);
    uint64_t post = pre - weights;
    double pre_gib = (double)pre / GIB_BYTES, post_gib = (double)post / GIB_BYTES;

    /* kv_cache_configurator.py _profile_available_bytes: rest = post - pre x (1 - mem_fraction_static) */
    double rest = post_gib - pre_gib * (1.0 - fraction);
    /* mm_runtime_reservation_gb: a multimodal model's embedding cache, SGLANG_VLM_CACHE_SIZE_MB (environ.py: 100),
     * comes out of the KV budget (the feature-transport pools only with cuda_ipc or cuda_vmm, not the default) */
    if (vlm)
        rest -= 100.0 / 1024.0;
    uint64_t per_req = 0, mamba = 0;
    if (state) {
        if ((st = state_per_request(&per_req, model, a, set, tp)) != LLMMEM_OK)
            return st;
        /* _handle_max_mamba_cache: --max-mamba-cache-size, else (latest, at 003fca80) --max-running-requests when
         * the radix cache is off, else a share r / (1 + r) of the rest, less the padding slot; the pool holds one
         * slot more (the padding), whatever the strategy: the extra-buffer slots come out of these */
        mamba = set->max_mamba_cache_size;
        if (mamba == 0 && rel->mamba_strategy && !set->enable_prefix_caching && set->max_num_seqs > 0)
            mamba = (uint64_t)set->max_num_seqs;
        if (mamba == 0 && rest > 0.0) {
            double ratio = set->mamba_full_memory_ratio;
            double budget = rest * ratio / (1.0 + ratio) * GIB_BYTES;
            mamba = budget > (double)per_req ? (uint64_t)((budget - (double)per_req) / (double)per_req) : 0;
        }
        uint64_t pool;
        if (!llmmem__mul(&pool, mamba + 1, per_req))
            return overflow("Mamba state pool");
        rest -= (double)pool / GIB_BYTES;
        r->v[LLMMEM_SERVING_STATE_BYTES_PER_SEQUENCE] = per_req;
    }
    if (!(rest > 0.0)) {
        /* _profile_available_bytes refuses to start: the minimum viable fraction is 1 - post / pre */
        double viable = 1.0 - post_gib / pre_gib;
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "SGLang: loaded weights leave no GPU memory for the KV cache under mem_fraction_static "
                            "%.3f; raise it above %.3f (minimum viable = 1 - available/pre = %.4f)",
                            fraction, ceil(viable * 1000.0) / 1000.0, viable);
    }
    uint64_t available = (uint64_t)(rest * GIB_BYTES);
    const sglang_start start = {rel, p.memory, pre, post, chunked, graph_bs, available, fraction, reserved};
    if (a->compressed_layers) /* DeepSeek-V4's own pools */
        return dsv4_serve(r, model, in, &start);

    /* bytes per token: the full-attention layers of this rank (a Mamba hybrid's attention layers alone),
     * a sliding-window layer's share in HybridSWAPoolConfigurator */
    uint64_t token_layer;
    if ((st = llmmem__kv_token_layer_bytes(&token_layer, a, r->dtype, tp, 0)) != LLMMEM_OK)
        return st;
    uint64_t attention = llmmem__layers_in(&a->plan, a->attention, 0, a->layers);
    uint64_t swa_layers = llmmem__sliding_layers(a, 0, a->layers), full_layers = attention - swa_layers;
    const int hybrid_swa = swa_layers && full_layers && sglang_hybrid_swa(model);
    if (!hybrid_swa) /* all-sliding models and those off SGLang's list are paged as full attention */
        full_layers = attention, swa_layers = 0;
    uint64_t page = llmmem__serve_or(set->block_size, 1);
    /* server_args.py _handle_model_specific_adjustments: DeepSeek's sparse attention pages by 64 on CUDA, 1
     * on ROCm */
    if (a->index_cache && !indexed && !set->block_size)
        page = in->dev.backend == LLMMEM_BACKEND_ROCM ? 1 : 64;
    /* model_overrides/minimax_m3.py: fa3 on SM90, fa4 or trtllm_mha on SM100, each with page_size 128 when unset */
    if (indexed && !set->block_size)
        page = 128;
    uint64_t full_cell, swa_cell, cell_full_layers;
    /* pool_configurator.py _compute_cell_size, is_minimax_sparse (MiniMaxSparseKVPool): K and V on every layer, one
     * index key of sparse_index_dim on each sparse layer (K-only: sparse_disable_index_value), in the model's dtype */
    uint64_t index_cell = 0;
    if (!llmmem__mul(&index_cell, a->index_layers, a->index_cache / 2) ||
        !llmmem__mul(&index_cell, index_cell, indexed ? llmmem__kv_element_bytes(llmmem__model_dtype(model)) : 0) ||
        !llmmem__mul(&full_cell, token_layer, full_layers) || !llmmem__mul(&swa_cell, token_layer, swa_layers) ||
        !llmmem__add(&full_cell, full_cell, index_cell) || !llmmem__add(&cell_full_layers, full_cell, swa_cell))
        return overflow("KV bytes per token");
    if (full_cell == 0 && swa_cell == 0)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "SGLang: a model without attention layers has no KV pool");
    uint64_t max_tokens, tokens, swa_tokens = 0;
    double ratio = set->swa_full_tokens_ratio;
    if (hybrid_swa) {
        /* HybridSWAPoolConfigurator: cell = F x L_full + ratio x S x L_swa (bytes per full-pool token);
         * full = page-aligned int(available // cell), swa = page-aligned int(full x ratio) */
        double cell = (double)full_cell + ratio * (double)swa_cell;
        max_tokens = (uint64_t)((double)available / cell); /* positive: the cast floors */
        tokens = max_tokens / page * page;
        swa_tokens = (uint64_t)((double)tokens * ratio) / page * page;
        if (a->window + page >= swa_tokens)
            return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "SGLang: the sliding-window pool (%llu tokens) cannot hold "
                                "one request: sliding_window (%llu) + page_size (%llu); raise swa_full_tokens_ratio "
                                "or the memory", (unsigned long long)swa_tokens, (unsigned long long)a->window,
                                (unsigned long long)page);
    } else {
        /* DefaultPoolConfigurator.calculate_pool_sizes: available // cell, to whole pages */
        max_tokens = available / full_cell;
        tokens = max_tokens / page * page;
    }
    /* _apply_token_constraints: --max-total-tokens caps it; the configurator aligns the cap to pages */
    uint64_t cap = set->max_total_tokens;
    if (cap && cap / page * page < tokens) {
        tokens = cap / page * page;
        if (hybrid_swa)
            swa_tokens = (uint64_t)((double)tokens * ratio) / page * page;
    }
    if (tokens == 0)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "SGLang: not enough memory for one page of the KV pool "
                            "(MemoryPoolConfig: \"Please try to increase --mem-fraction-static\")");

    /* a Mamba hybrid runs at most max_mamba_cache_size // slots requests (resolve_max_num_reqs) */
    uint64_t context = 0, slots = 1;
    if ((st = sglang_context(&context, model, set)) != LLMMEM_OK ||
        (state && (st = mamba_slots(&slots, rel, model, set, page)) != LLMMEM_OK))
        return st;
    uint64_t requests = sglang_requests(tokens, context, (uint64_t)set->max_num_seqs);
    if (state && mamba / slots < requests)
        requests = mamba / slots;

    /* the pool a request draws from: pages of the full pool (kv.c answers the questions from it) */
    r->max_model_len = context;
    r->pool.block = page;
    r->pool.full_groups = 1;
    r->pool.token_layer = indexed ? full_cell : token_layer; /* minimax_m3_vl: its layers' pages summed, as kv.c's */
    r->pool.group_layers = indexed ? 1 : full_layers;
    r->pool.num_blocks = tokens / page;
    r->pool.batched = chunked;
    r->pool.n = set->n;
    r->pool.prefix = set->shared_prefix_tokens;
    r->pool.prompt = set->prompt_tokens;
    r->pool.prefix_caching = set->enable_prefix_caching; /* the radix cache, on by default */
    r->swa_tokens = swa_tokens;
    r->swa_window = a->window;
    r->page = r->pool.token_layer * page;
    r->seq_cap = requests;
    r->state_cap = state ? mamba : 0;
    uint64_t request = llmmem__serve_or(set->request_tokens, context);
    if ((st = llmmem__serving_check_request(r, request, "SGLang")) != LLMMEM_OK)
        return st;

    uint64_t *v = r->v, fit = 0, need = 0, longest;
    if ((st = llmmem__serving_requests(&fit, r, context)) != LLMMEM_OK ||
        (st = llmmem__serving_requests(&v[LLMMEM_SERVING_MAX_CONCURRENCY], r, request)) != LLMMEM_OK ||
        (st = llmmem__serving_longest(&longest, r)) != LLMMEM_OK)
        return st;
    if (!llmmem__kv_pool_blocks(&need, &r->pool, request) ||
        !llmmem__kv_pool_waste(&v[LLMMEM_SERVING_WASTE_BYTES], &r->pool, request))
        return overflow("pages of a request");
    v[LLMMEM_SERVING_BYTES_PER_TOKEN] = cell_full_layers;
    v[LLMMEM_SERVING_PAGE_BYTES] = r->page;
    if (!llmmem__mul(&v[LLMMEM_SERVING_BLOCK_BYTES], cell_full_layers, page))
        return overflow("page bytes");
    v[LLMMEM_SERVING_NUM_BLOCKS] = tokens / page;
    v[LLMMEM_SERVING_TOKENS] = tokens;
    v[LLMMEM_SERVING_GROUPS] = hybrid_swa ? 2 : 1;
    v[LLMMEM_SERVING_LAYERS_PER_GROUP] = full_layers;
    v[LLMMEM_SERVING_KV_HEADS_PER_RANK] = llmmem__kv_heads_per_rank(a, tp);
    v[LLMMEM_SERVING_LAYERS_PER_STAGE] = a->layers;
    v[LLMMEM_SERVING_BLOCK_SIZE] = page;
    v[LLMMEM_SERVING_MAX_NUM_SEQS] = requests + (uint64_t)rel->log_padding_slot;
    v[LLMMEM_SERVING_MAX_MODEL_LEN_SETTING] = context;
    v[LLMMEM_SERVING_MAX_MODEL_LEN] = longest;
    v[LLMMEM_SERVING_REQUEST_TOKENS] = request;
    v[LLMMEM_SERVING_BLOCKS_PER_REQUEST] = need;
    v[LLMMEM_SERVING_FITS] = fit > 0;
    start_values(v, &start);
    v[LLMMEM_SERVING_MAMBA_CACHE_SIZE] = mamba;
    v[LLMMEM_SERVING_SWA_TOKENS] = swa_tokens;
    v[LLMMEM_SERVING_MAX_TOKENS] = max_tokens;
    /* the full layers hold `tokens` cells, the sliding ones swa_tokens */
    if (!llmmem__mul(&v[LLMMEM_SERVING_POOL_BYTES], tokens, full_cell) ||
        !llmmem__muladd(&v[LLMMEM_SERVING_POOL_BYTES], hybrid_swa ? swa_tokens : tokens, swa_cell) ||
        !llmmem__mul(&v[LLMMEM_SERVING_STATE_POOL_BYTES], state ? mamba + 1 : 0, per_req))
        return overflow("pool bytes");
    llmmem__serving_finish(r, model, in);
    return LLMMEM_OK;
}

#define N_(a) (sizeof a / sizeof a[0])

static const llmmem_serving_value sglang_budget[] = {
    LLMMEM_SERVING_MEMORY_BYTES,           LLMMEM_SERVING_FREE_BYTES,     LLMMEM_SERVING_MEMORY_FRACTION_X10000,
    LLMMEM_SERVING_RESERVED_BYTES,         LLMMEM_SERVING_REQUESTED_BYTES, LLMMEM_SERVING_WEIGHTS,
    LLMMEM_SERVING_KV_CACHE_BYTES,         LLMMEM_SERVING_POOL_BYTES,     LLMMEM_SERVING_STATE_POOL_BYTES};
static const llmmem_serving_value sglang_kv[] = {
    LLMMEM_SERVING_BYTES_PER_TOKEN,        LLMMEM_SERVING_PAGE_BYTES,     LLMMEM_SERVING_BLOCK_BYTES,
    LLMMEM_SERVING_NUM_BLOCKS,             LLMMEM_SERVING_MAX_TOKENS,     LLMMEM_SERVING_TOKENS,
    LLMMEM_SERVING_SWA_TOKENS,             LLMMEM_SERVING_MAMBA_CACHE_SIZE, LLMMEM_SERVING_STATE_BYTES_PER_SEQUENCE,
    LLMMEM_SERVING_KV_HEADS_PER_RANK,      LLMMEM_SERVING_BLOCK_SIZE,     LLMMEM_SERVING_MAX_NUM_BATCHED_TOKENS,
    LLMMEM_SERVING_CUDA_GRAPH_MAX_BS,      LLMMEM_SERVING_MAX_NUM_SEQS,   LLMMEM_SERVING_MAX_MODEL_LEN_SETTING,
    LLMMEM_SERVING_MAX_MODEL_LEN,          LLMMEM_SERVING_REQUEST_TOKENS, LLMMEM_SERVING_BLOCKS_PER_REQUEST,
    LLMMEM_SERVING_WASTE_BYTES,            LLMMEM_SERVING_MAX_CONCURRENCY, LLMMEM_SERVING_FITS};
static const llmmem__json_section sglang_json[] = {{"budget", sglang_budget, N_(sglang_budget)},
                                                   {"kv", sglang_kv, N_(sglang_kv)}};

const llmmem__engine_desc llmmem__sglang_engine = {LLMMEM_ENGINE_SGLANG, "SGLang", sglang_serve, sglang_json,
                                                   N_(sglang_json), 1};
