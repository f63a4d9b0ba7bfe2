/*
 * vLLM's serving budget: what `vllm serve` leaves for its paged KV cache on every rank, and what
 * that cache holds. The memory left after weights, the profiled activation peak and non-torch
 * allocations is cut into num_blocks = available // page // layers_per_group blocks
 * (vllm/v1/core/kv_cache_utils.py get_num_blocks); max_model_len, concurrency and the questions
 * on requests follow from the pool (the block arithmetic is kv.c's). gpu_memory_utilization is
 * the one real, applied once the way vLLM applies it (math.ceil(total * utilization) in double
 * precision). No allocation but llmmem_serving_new's, no I/O.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "inventory/mixers.h"
#include "job/job.h"
#include "views/kv.h"
#include "views/rank.h"
#include "engines/serving.h"
#include "inventory/towers.h"
#include "base/text.h"
#include "views/weights.h"

#define MAX_STAGES LLMMEM_SERVING_MAX_STAGES
#define SERVING_VALUES LLMMEM_SERVING_VALUES

static const char *const value_names[] = {
    "memory_bytes",      "requested_bytes",  "weights",           "activation_peak",
    "non_torch",         "cuda_graph",       "kv_cache_bytes",    "shortfall",
    "bytes_per_token",   "page_bytes",       "block_bytes",       "num_blocks",
    "tokens",            "groups",           "layers_per_group",  "kv_heads_per_rank",
    "layers_per_stage",  "block_size",       "max_num_batched_tokens", "max_num_seqs",
    "max_model_len_setting", "max_model_len", "request_tokens",   "blocks_per_request",
    "waste_bytes",       "max_concurrency",  "vllm_concurrency_x100", "fits",
    "mm_max_tokens_per_item", "encoder_compute_budget", "encoder_cache_size", "mm_items_per_batch",
    "encoder_cache_bytes", "encoder_profile_bytes",
    "state_page_bytes",  "state_bytes_per_sequence", "state_groups", "concurrency_x100",
    "engine",            "engine_version",   "memory_fraction_x10000", "free_bytes",
    "cuda_graph_sizes",  "cuda_graph_largest", "full_cuda_graphs", "full_cuda_graph_largest",
    "equivalent_fraction_x10000", "cuda_graph_max_bs", "reserved_bytes", "mamba_cache_size",
    "swa_tokens",        "max_tokens",       "estimation_tokens", "pool_bytes",
    "state_pool_bytes",
};
_Static_assert(sizeof value_names / sizeof value_names[0] == SERVING_VALUES, "a name for every serving value");

/* ---- model shapes --------------------------------------------------------- */

static uint64_t mv(const llmmem_model *m, llmmem_key key)
{
    return (uint64_t)llmmem__model_value(m, key);
}

static llmmem_status overflow(const char *what)
{
    return llmmem__fail(LLMMEM_ERR_OVERFLOW, "%s exceeds 64 bits", what);
}

/* ---- parallel layout ------------------------------------------------------- */

/* Decoder layers of pipeline stage `stage`: vllm/distributed/utils.py get_pp_indices gives every
 * stage layers // pp and the remainder one each to the stages before the last, counted back from it. */
static void stage_range(uint64_t *first, uint64_t *end, uint64_t layers, uint64_t pp, uint64_t stage)
{
    uint64_t base = layers / pp, rem = layers % pp, start = 0;
    *first = *end = 0;
    for (uint64_t s = 0; s <= stage; s++) {
        uint64_t n = base + (rem && s + 1 < pp && s + 1 + rem >= pp);
        if (s == stage) {
            *first = start;
            *end = start + n;
            return;
        }
        start += n;
    }
}

static llmmem_status check_parallel(const llmmem__geometry *a, uint64_t tp, uint64_t pp)
{
    if (pp > 1 && llmmem__state_layers(a))
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "pipeline_parallel (%llu) with Mamba-2, Gated DeltaNet or Mamba-1 layers "
                            "is not modelled", (unsigned long long)pp);
    if (a->kv_heads == 0) /* no attention layer (Mamba-2) */
        return LLMMEM_OK;
    /* vLLM splits query heads evenly (ModelConfig.verify_with_parallel_config) and KV heads by
     * QKVParallelLinear: divisible by tp, or replicated when tp is a multiple of them */
    if (a->heads % tp)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "num_attention_heads (%llu) is not divisible by tensor_parallel (%llu)",
                            (unsigned long long)a->heads, (unsigned long long)tp);
    /* a layer type of its own query heads splits them the same way (vllm step3p5.py and laguna.py assert
     * total_num_heads % tp_size per layer) */
    if (a->global_heads % tp)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "num_global_attention_heads (%llu) is not divisible by tensor_parallel (%llu)",
                            (unsigned long long)a->global_heads, (unsigned long long)tp);
    if (!a->kv_lora_rank && ((a->kv_heads >= tp && a->kv_heads % tp) || (a->kv_heads < tp && tp % a->kv_heads)))
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "num_key_value_heads (%llu) and tensor_parallel (%llu): one must divide the other",
                            (unsigned long long)a->kv_heads, (unsigned long long)tp);
    /* vllm gemma4.py Gemma4Attention asserts the same of a full layer's num_global_key_value_heads */
    uint64_t g = a->kv_token_global.heads;
    if (g && ((g >= tp && g % tp) || (g < tp && tp % g)))
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "num_global_key_value_heads (%llu) and tensor_parallel (%llu): one must divide the other",
                            (unsigned long long)g, (unsigned long long)tp);
    if (pp > a->layers)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "pipeline_parallel (%llu) exceeds num_hidden_layers (%llu)",
                            (unsigned long long)pp, (unsigned long long)a->layers);
    if (pp > MAX_STAGES)
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "pipeline_parallel (%llu) exceeds %d",
                            (unsigned long long)pp, MAX_STAGES);
    return LLMMEM_OK;
}

/* ---- weights and activations of one rank ------------------------------------------ */

/* The families whose vLLM modeling file gives a kind of layer a working set of its own in the profile run,
 * one row each. A family without a row: layer_peak for its attention and MLP blocks, mamba2_peak and kda_peak
 * for those mixers; its Gated DeltaNet or short-convolution layers are not modelled (the caller refuses). */
enum { GDN_NONE, GDN_INTERLEAVED, GDN_SPLIT };
typedef struct vllm_profile_row {
    int64_t model_type;
    uint8_t gdn;           /* GDN_INTERLEAVED: qwen3_next.py's qkvz layout; GDN_SPLIT: Qwen3.5's split projections */
    uint8_t short_conv;    /* lfm2.py's short-convolution layers (short_conv_peak) */
    uint8_t typed;         /* gemma4.py's layers of two widths and per-layer inputs (gemma4_peak) */
    uint8_t gate_tensors;  /* head_wise_attn_gate: gate tensors of a query head each alive at the gated product */
    uint8_t split_mlp;     /* gate_proj and up_proj apart: silu(gate) and its product with up beside both */
    uint8_t router_fp32;   /* the router's logits cast to float32, alive through the experts */
} vllm_profile_row;

static const vllm_profile_row vllm_profile_rows[] = {
    {LLMMEM_MODEL_QWEN3_NEXT, GDN_INTERLEAVED, 0, 0, 0, 0, 0},
    {LLMMEM_MODEL_QWEN3_5, GDN_SPLIT, 0, 0, 0, 0, 0},
    {LLMMEM_MODEL_QWEN3_5_MOE, GDN_SPLIT, 0, 0, 0, 0, 0},
    {LLMMEM_MODEL_LFM2, GDN_NONE, 1, 0, 0, 0, 0},
    {LLMMEM_MODEL_GEMMA4, GDN_NONE, 0, 1, 0, 0, 0},
    /* vllm step3p5.py Step3p5Attention.forward: g_proj's one gate a head and its sigmoid beside the product */
    {LLMMEM_MODEL_STEP3P5, GDN_NONE, 0, 0, 2, 0, 0},
    /* vllm laguna.py: LagunaAttention.forward replaces g_proj's gate by softplus(gate.float()).type_as(...) (its two
     * float32 temporaries, 8 bytes a head, are gone before the product: below the product's head_dim elements a
     * head), LagunaMLP keeps gate_proj and up_proj apart, LagunaMoE.forward casts the router logits to float32 */
    {LLMMEM_MODEL_LAGUNA, GDN_NONE, 0, 0, 1, 1, 1},
    /* vllm models/minimax_m3/nvidia/model.py: MiniMaxM3MoE's GateLinear(out_dtype=torch.float32) router logits; the
     * sparse layers' forward returns qkv.new_zeros((T, hidden)) in the profile run (no indexer, no attention, no
     * o_proj): qkv with the index heads and h, below the MoE block's working set at every tensor_parallel */
    {LLMMEM_MODEL_MINIMAX_M3_VL, GDN_NONE, 0, 0, 0, 0, 1},
};

static const vllm_profile_row *profile_row(const llmmem_model *m)
{
    static const vllm_profile_row none = {0, GDN_NONE, 0, 0, 0, 0, 0};
    const int64_t type = llmmem__model_value(m, LLMMEM_KEY_MODEL_TYPE);
    for (size_t i = 0; i < sizeof vllm_profile_rows / sizeof vllm_profile_rows[0]; i++)
        if (vllm_profile_rows[i].model_type == type)
            return &vllm_profile_rows[i];
    return &none;
}

/* Weights of one rank of a serving stage: the classes split over tensor parallelism as
 * parallel.c splits them (vLLM's QKVParallelLinear replicates K and V heads below one per rank; a
 * tied embedding also sits on the last stage, LlamaModel builds it there to serve as the LM head). */
static llmmem_status stage_weights(uint64_t *out, const llmmem_model *m, const llmmem__serve_inputs *in,
                                   uint64_t tp, uint64_t pp, uint64_t first, uint64_t end, int first_stage,
                                   int last_stage)
{
    /* the served weight plan; a whole checkpoint's bytes need none unless MTP modules follow */
    const int stored = tp == 1 && pp == 1 && in->from_checkpoint;
    const llmmem__weight_plan *plan = &in->plan;
    llmmem_status st = stored ? LLMMEM_OK : llmmem__serve_kept(in, in->plan_status);
    if (!st)
        st = tp == 1 && pp == 1 ? llmmem__weight_bytes(out, m, plan, stored)
                                : llmmem__served_rank_weight_bytes(out, m, plan, tp, first, end, first_stage,
                                                                   last_stage, -1);
    if (st || !last_stage || in->set.speculative_method != LLMMEM_SPECULATIVE_MTP)
        return st;
    /* vllm model_executor/models/deepseek_mtp.py DeepSeekMTP: every num_nextn_predict_layers module, on the last rank */
    uint64_t mtp;
    if ((stored && (st = llmmem__serve_kept(in, in->plan_status)) != LLMMEM_OK) ||
        (st = llmmem__mtp_rank_weight_bytes(&mtp, m, plan, tp)) != LLMMEM_OK)
        return st;
    return llmmem__add(out, *out, mtp) ? LLMMEM_OK : overflow("weights with the MTP modules");
}

/* Elements per token that one decoder layer keeps alive at its peak in a no-grad forward on one
 * rank, residual stream included. vLLM's profile run (v1/worker/gpu_model_runner.py profile_run,
 * _dummy_run over max_num_batched_tokens) frees each intermediate once consumed, so the peak is the
 * residual and normed input (2h) plus the larger of the attention block (fused qkv, attention
 * output) and the MLP block (gate_up and the activation's output; vllm fused_moe's intermediate
 * caches of top_k copies of each token). */
static llmmem_status layer_peak(uint64_t *out, const llmmem_model *m, const llmmem__geometry *a, uint64_t tp, int moe,
                                uint64_t e)
{
    const vllm_profile_row *row = profile_row(m);
    uint64_t q = a->heads / tp, attn, mlp;
    int gated = mv(m, LLMMEM_KEY_MLP_GATED) != 0;
    /* a gated MLP: the merged gate_up output (2 I) and the activation's (I); gate_proj and up_proj apart, silu(gate)
     * and the product beside both (4 I) */
    const uint64_t mlp_width = gated ? (row->split_mlp ? 4 : 3) : 2;
    if (a->kv_lora_rank) { /* MLA prefill: q, the latent, decompressed k_nope|v, k assembled with rope, output */
        uint64_t nope = a->qk_nope_head_dim, rope = a->qk_rope_head_dim, v_dim = a->v_head_dim;
        attn = q * (nope + rope) + (a->kv_lora_rank + rope) + q * (nope + v_dim) + q * (nope + rope) + q * v_dim;
    } else {
        attn = (q + 2 * llmmem__kv_heads_per_rank(a, tp)) * a->head_dim + q * a->head_dim;
        /* vllm qwen3_next.py Qwen3NextAttention.forward: qkv_proj also projects the gate (q heads), and the
         * gated product attn_output * sigmoid(gate) is a new tensor beside the attention output */
        if (mv(m, LLMMEM_KEY_ATTN_OUTPUT_GATE))
            attn += 2 * q * a->head_dim;
        /* a head-wise gate (the family's row: step3p5's g_proj output and its sigmoid, laguna's softplus), then the
         * gated product beside the attention output */
        if (mv(m, LLMMEM_KEY_HEAD_WISE_ATTN_GATE))
            attn += row->gate_tensors * q + q * a->head_dim;
    }
    if (!moe) {
        mlp = llmmem__ceil_div(a->ffn, tp) * mlp_width;
    } else {
        uint64_t k = a->experts_per_tok, fe = a->ffn_expert, fs = a->ffn_shared;
        uint64_t routed, width = a->moe_latent ? a->moe_latent : a->hidden;
        /* fused_moe: intermediate_cache1 (top_k x 2 fe), cache2 (top_k x fe), cache3 (top_k x h, a latent
         * MoE's top_k x moe_latent_size); the shared expert's output (h) stays alive beside them */
        if (!llmmem__mul(&routed, k, llmmem__ceil_div(fe, tp) * (gated ? 3 : 2) + width))
            return overflow("MoE activation elements");
        routed += fs ? a->hidden : 0;
        /* float32 router logits, every expert's on every rank (a replicated gate), in elements of e bytes (2 or 4) */
        if (row->router_fp32)
            routed += a->experts * 4 / e;
        uint64_t shared = llmmem__ceil_div(fs, tp) * mlp_width;
        mlp = routed > shared ? routed : shared;
    }
    *out = 2 * a->hidden + (attn > mlp ? attn : mlp);
    return LLMMEM_OK;
}

/* Bytes per token that one Mamba-2 layer keeps alive at its peak in vLLM's profile run on one rank,
 * residual stream (2h) included. The profile run has no attention metadata, so the SSD kernels
 * (ops/ssd_*.py: chunk cumsums, chunk states, CB) never run and no per-chunk scratch is allocated;
 * the conv and SSM step is the custom op's profile branch. Widths per rank: inner I = heads/tp x
 * head_dim, conv C = I + 2 x groups/tp x state (groups extended to tp as mamba_utils.py does). */
static llmmem_status mamba2_peak(uint64_t *out, const llmmem__geometry *a, uint64_t tp, uint64_t e)
{
    uint64_t groups = llmmem__mamba2_groups(a, tp);
    uint64_t heads = a->mamba_heads / tp, inner, conv, proj, op = 0, norm, tail, x;
    if (!llmmem__mul(&inner, heads, a->mamba_head_dim) || !llmmem__mul(&conv, groups / tp, 2 * a->mamba_state) ||
        !llmmem__add(&conv, conv, inner) || !llmmem__add(&proj, inner, conv) || !llmmem__add(&proj, proj, heads))
        return overflow("Mamba-2 activation elements");
    /* vllm mamba_mixer2.py MambaMixer2.forward: in_proj's projected_states (gate | x B C | dt) and the
     * ssm_output buffer (I) stay alive through the layer */
    uint64_t base = proj + inner;
    /* vllm mamba_mixer2.py conv_ssm_forward, attn_metadata None: x B C transposed, cloned, then made
     * contiguous: two copies of C alive at once */
    if (!llmmem__muladd(&op, 2, conv) || !llmmem__add(&op, op, base) || !llmmem__mul(&op, op, e))
        return overflow("Mamba-2 activation bytes");
    /* vllm mamba_mixer2.py Mixer2RMSNormGated.forward_native (n_groups != 1 or tp > 1): x * silu(gate in
     * fp32), then the grouped rsqrt, two fp32 copies of I at once; forward_cuda's rms_norm_gated (one
     * group, tp 1) writes only its output (I in the model's dtype) */
    int native = a->mamba_groups != 1 || tp > 1;
    if (!llmmem__mul(&norm, base, e) || !llmmem__muladd(&norm, inner, native ? 8 : e))
        return overflow("Mamba-2 activation bytes");
    /* vllm mamba_mixer2.py MambaMixer2.forward: out_proj's output (h) beside the norm's output (I) */
    if (!llmmem__add(&tail, base, inner) || !llmmem__add(&tail, tail, a->hidden) || !llmmem__mul(&tail, tail, e))
        return overflow("Mamba-2 activation bytes");
    x = op > norm ? op : norm;
    x = x > tail ? x : tail;
    if (!llmmem__muladd(&x, 2 * a->hidden, e)) /* residual and normed input, as layer_peak */
        return overflow("Mamba-2 activation bytes");
    *out = x;
    return LLMMEM_OK;
}

/* Elements per token that one Gated DeltaNet layer keeps alive at its peak in vLLM's profile run on one
 * rank, residual stream (2h) included, or 0 where the layer's path is not modelled (Kimi's KDA, a family
 * without a Gated DeltaNet row). Widths per rank: keys K = key heads/tp x key dim, values V = value
 * heads/tp x value dim, nv = value heads/tp. */
static uint64_t gdn_peak(const llmmem_model *m, const llmmem__geometry *a, uint64_t tp)
{
    const uint8_t layout = profile_row(m)->gdn;
    const int interleaved = layout == GDN_INTERLEAVED;
    /* heads that tp does not divide: vllm mamba_utils.py gated_delta_net_state_shape's divide() refuses them */
    if (mv(m, LLMMEM_KEY_LINEAR_ATTN_KDA) || a->gdn_k_heads % tp || a->gdn_v_heads % tp || layout == GDN_NONE)
        return 0;
    uint64_t k = a->gdn_k_heads / tp * a->gdn_k_dim, v = a->gdn_v_heads / tp * a->gdn_v_dim; /* < 2^48: key bounds */
    uint64_t nv = a->gdn_v_heads / tp;
    /* one key head per rank: the splits of the interleaved layout reshape as views (size-1 dimensions) */
    int copies = interleaved && a->gdn_k_heads / tp > 1;
    /* vllm qwen_gdn_linear_attn.py QwenGatedDeltaNetAttention.forward_cuda: the output buffer it writes (h),
     * in_proj_qkvz's output (2K + 2V), in_proj_ba's (2 nv) and core_attn_out (V, torch.zeros) stay alive */
    uint64_t x = a->hidden + 2 * k + 2 * v + 2 * nv + v;
    if (interleaved) /* rearranged q, k and their torch.cat with v into mixed_qkv (2K + V) */
        x += 2 * k + v;
    if (copies) /* fix_query_key_value_ordering: value, z, b, a reshaped from strided splits, q and k rearranged */
        x += v + v + 2 * nv + 2 * k;
    else if (!interleaved) /* Qwen3.5: split_ba's b and a made contiguous */
        x += 2 * nv;
    /* _forward_core returns at once when attn_metadata is None (the profile run): no conv, no chunk kernels
     * over the batch (_warmup_prefill_kernels runs them once over FLA_CHUNK_SIZE = 64 tokens, not counted);
     * _output_projection: z.reshape(-1, head_v_dim) copies a strided z (V), RMSNormGated's output (V) and
     * out_proj's output (h) are then alive at once */
    if (!copies)
        x += v;
    x += v + a->hidden;
    return 2 * a->hidden + x; /* residual and normed input, as layer_peak */
}

/* Elements per token that one LFM2 short-convolution layer keeps alive at its peak in vLLM's profile run
 * on one rank, residual stream (2h) included; 0 for a family without a short-convolution row (not
 * modelled). D = h/tp. */
static uint64_t short_conv_peak(const llmmem_model *m, const llmmem__geometry *a, uint64_t tp)
{
    if (!profile_row(m)->short_conv || a->hidden % tp)
        return 0;
    uint64_t d = a->hidden / tp;
    /* vllm lfm2.py Lfm2ShortConvDecoderLayer.forward: the output buffer (h, torch.empty_like); vllm
     * short_conv.py ShortConv.forward_cuda, attn_metadata None: in_proj's B|C|x (3D), B * x (D), C * Bx (D)
     * and out_proj's output (h) at once */
    return 2 * a->hidden + a->hidden + 3 * d + d + d + a->hidden;
}

/* Bytes per token that one Kimi Delta Attention layer keeps alive at its peak in vLLM's profile run on one
 * rank, residual stream (2h) included; 0 where tp does not divide the heads (vLLM asserts it). Widths per
 * rank: P = heads/tp x head_dim, nh = heads/tp; e the activation bytes. */
static uint64_t kda_peak(const llmmem__geometry *a, uint64_t tp, uint64_t e)
{
    if (a->gdn_k_heads % tp)
        return 0;
    uint64_t nh = a->gdn_k_heads / tp, p = nh * a->gdn_k_dim; /* < 2^48: key bounds */
    /* vllm kda.py KimiDeltaAttention.forward, at o_proj (_forward returns at once when attn_metadata is None):
     * the output buffer (h), q, k, v (3P), beta sigmoid in fp32 (nh x 4), g1 from fla/ops/kda.py
     * fused_kda_gate in fp32 (P x 4), g_b_proj's g2 (P), core_attn_out (P, torch.zeros), o_norm's output (P)
     * and o_proj's (h) */
    return (2 * a->hidden + a->hidden + 3 * p + p + p + p + a->hidden) * e + nh * 4 + p * 4;
}

/* Bytes per token that one Gemma 4 decoder layer keeps alive at its peak in vLLM's profile run on one rank of
 * the stage [first, end), as layer_peak counts (each intermediate freed once consumed), residual stream (2h)
 * included; q = heads/tp, each attention type at its own width (vllm gemma4.py Gemma4DecoderLayer: global_head_dim
 * on full layers, num_global_key_value_heads with attention_k_eq_v). */
static llmmem_status gemma4_peak(uint64_t *out, const llmmem_model *m, const llmmem__geometry *a, uint64_t tp,
                                 uint64_t first, uint64_t end, uint64_t e)
{
    uint64_t q = a->heads / tp, sliding = llmmem__sliding_layers(a, first, end), attn = 0, x;
    uint64_t full = llmmem__layers_in(&a->plan, a->attention, first, end) - sliding;
    /* a full layer of the sliding layers' widths (kv_token_global.heads 0) is the sliding type's */
    const llmmem__kv_token own = {a->kv_heads, 2, a->head_dim};
    const llmmem__kv_token types[2] = {sliding ? own : (llmmem__kv_token){0, 0, 0},
                                       !full ? (llmmem__kv_token){0, 0, 0} : a->kv_token_global.heads ? a->kv_token_global : own};
    /* vllm gemma4.py Gemma4Attention.forward: qkv_proj's output (q + 2 kv heads, at least one a rank) and the
     * attention output (q heads), as layer_peak's */
    for (unsigned i = 0; i < 2; i++) {
        uint64_t kv = types[i].heads / tp ? types[i].heads / tp : 1;
        if (types[i].heads && (x = (2 * q + 2 * kv) * types[i].width) > attn)
            attn = x;
    }
    /* vllm gemma4.py Gemma4MLP: gate_up (2 x I) and GeluAndMul's output (I); Gemma4DecoderLayer: use_double_wide_mlp
     * doubles I on the KV-shared layers */
    uint64_t ffn = llmmem__ceil_div(a->ffn, tp) * (mv(m, LLMMEM_KEY_DOUBLE_WIDE_MLP) && a->kv_shared_layers ? 2 : 1);
    uint64_t peak = attn > 3 * ffn ? attn : 3 * ffn, bytes;
    /* Gemma4DecoderLayer.forward with enable_moe_block: the MLP's normed output (h) and pre_feedforward_layernorm_2's
     * (h) beside fused_moe's caches (top_k x (3 x expert width + h), as layer_peak's); the router's logits in fp32
     * (Gemma4Router: GateLinear out_dtype float32, one per expert) */
    uint64_t moe = 0;
    if (llmmem__layers_in(&a->plan, a->moe, first, end) &&
        (!llmmem__mul(&moe, a->experts_per_tok, 3 * llmmem__ceil_div(a->ffn_expert, tp) + a->hidden) ||
         !llmmem__add(&moe, moe, 2 * a->hidden)))
        return overflow("Gemma 4 MoE activation elements");
    /* per_layer_inputs (tokens x layers x hidden_size_per_layer_input, gathered on every rank) alive through the
     * whole forward (Gemma4Model.forward); a layer's per-layer tail (per_layer_projection's output and its norm
     * beside the hidden states, 3h) is below its MLP */
    uint64_t ple = 0;
    if (a->per_layer_inputs && !llmmem__mul(&ple, a->layers, mv(m, LLMMEM_KEY_HIDDEN_SIZE_PER_LAYER_INPUT)))
        return overflow("Gemma 4 per-layer input elements");
    if (!llmmem__add(&bytes, 2 * a->hidden + ple, peak > moe ? peak : moe) || !llmmem__mul(&bytes, bytes, e) ||
        (moe && !llmmem__muladd(&bytes, a->experts, 4)))
        return overflow("Gemma 4 activation bytes");
    /* the first stage's start (Gemma4Model.get_per_layer_inputs, project_per_layer_inputs): the embeddings (h), the
     * per-layer embeddings (P) and per_layer_model_projection's output with its successor (2P) at once */
    if (first == 0 && ple) {
        if (!llmmem__mul(&x, a->hidden + 3 * ple, e))
            return overflow("Gemma 4 per-layer input bytes");
        bytes = x > bytes ? x : bytes;
    }
    *out = bytes;
    return LLMMEM_OK;
}

/* The activation peak of vLLM's profile run on one rank of the stage [first, end): the forward over
 * max_num_batched_tokens tokens, or on the last stage the dummy sampler run if larger: the final
 * hidden states, the logits of the min(max_num_seqs, tokens) sampled rows in the model's dtype and
 * their fp32 copy (gpu_model_runner.py _dummy_sampler_run; v1/sample/sampler.py upcasts). */
static llmmem_status activation_peak(uint64_t *out, const llmmem_model *m, llmmem_kv_cache_dtype dtype,
                                     const llmmem__geometry *a, uint64_t tp, uint64_t first, uint64_t end,
                                     int last_stage, uint64_t tokens, uint64_t seqs)
{
    uint64_t e = llmmem__kv_element_bytes(dtype), per = 0, x = 0, typed_bytes = 0, peak;
    llmmem_status st;
    /* gemma4's layers (not MiMo-V2-Flash's typed ones, whose blocks are layer_peak's) */
    const int typed = profile_row(m)->typed;
    if (typed) {
        if ((st = gemma4_peak(&x, m, a, tp, first, end, e)) != LLMMEM_OK)
            return st;
        if (!llmmem__mul(&typed_bytes, x, tokens))
            return overflow("Gemma 4 activation bytes of the profile run");
    } else if (llmmem__layers_in(&a->plan, a->dense, first, end)) {
        if ((st = layer_peak(&x, m, a, tp, 0, e)) != LLMMEM_OK)
            return st;
        per = x;
    }
    if (!typed && llmmem__layers_in(&a->plan, a->moe, first, end)) {
        if ((st = layer_peak(&x, m, a, tp, 1, e)) != LLMMEM_OK)
            return st;
        per = x > per ? x : per;
    }
    if (a->linear_layers && llmmem__layers_in(&a->plan, a->linear, first, end)) {
        x = gdn_peak(m, a, tp);
        per = x > per ? x : per;
    }
    if (a->conv_layers && llmmem__layers_in(&a->plan, a->conv, first, end)) {
        x = short_conv_peak(m, a, tp);
        per = x > per ? x : per;
    }
    if (!llmmem__mul(&peak, per, tokens) || !llmmem__mul(&peak, peak, e))
        return overflow("activation bytes of the profile run");
    if (typed_bytes > peak)
        peak = typed_bytes;
    if (a->linear_layers && mv(m, LLMMEM_KEY_LINEAR_ATTN_KDA) && llmmem__layers_in(&a->plan, a->linear, first, end)) {
        if (!llmmem__mul(&x, kda_peak(a, tp, e), tokens))
            return overflow("KDA activation bytes of the profile run");
        if (x > peak)
            peak = x;
    }
    if (a->ssm_layers && llmmem__layers_in(&a->plan, a->ssm, first, end)) {
        if ((st = mamba2_peak(&x, a, tp, e)) != LLMMEM_OK)
            return st;
        if (!llmmem__mul(&x, x, tokens))
            return overflow("Mamba-2 activation bytes of the profile run");
        if (x > peak)
            peak = x;
    }
    if (last_stage) {
        uint64_t rows = seqs < tokens ? seqs : tokens, sampler = 0;
        if (!llmmem__muladd(&sampler, tokens, a->hidden * e) || !llmmem__mul(&x, rows, a->vocab) ||
            !llmmem__muladd(&sampler, x, e + 4))
            return overflow("logits bytes of the profile run");
        if (sampler > peak)
            peak = sampler;
    }
    *out = peak;
    return LLMMEM_OK;
}

llmmem_status llmmem__serving_activation_peak(uint64_t *out, const llmmem_model *m, llmmem_kv_cache_dtype dtype,
                                              const llmmem__geometry *a, uint64_t tp, uint64_t first, uint64_t end,
                                              uint64_t tokens, uint64_t seqs)
{
    return activation_peak(out, m, dtype, a, tp, first, end, seqs > 0, tokens, seqs);
}

llmmem_engine llmmem__version_engine(int64_t version)
{
    switch (version) {
    case LLMMEM_ENGINE_VERSION_VLLM_0_20:
    case LLMMEM_ENGINE_VERSION_VLLM_0_21: return LLMMEM_ENGINE_VLLM;
    case LLMMEM_ENGINE_VERSION_SGLANG_0_4: return LLMMEM_ENGINE_SGLANG;
    default: return LLMMEM_ENGINE_AUTO; /* latest: every engine's */
    }
}

llmmem_status llmmem__serving_version(int64_t *out, const llmmem__serve_inputs *in, llmmem_engine engine)
{
    int64_t v = in->set.version;
    llmmem_engine owner = llmmem__version_engine(v);
    *out = v;
    if (owner != LLMMEM_ENGINE_AUTO && owner != engine)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "engine_version (%s) is a release of %s, not of %s",
                            llmmem__engine_version_name(v),
                            llmmem__engine_name(owner), llmmem__engine_name(engine));
    return LLMMEM_OK;
}

uint64_t llmmem__serving_decimals(double x, int decimals)
{
    /* printf and Python's round and format round the exact binary value, half to even: x = m 2^-s
     * exactly (m of 53 bits; s >= 3 below 1e15), so 10^decimals x is m 10^decimals (under 2^67, two
     * words) shifted right by s, with the bit below the shift and the ones under it deciding */
    static const uint64_t pow10[] = {1, 10, 100, 1000, 10000};
    if (!(x > 0.0 && x < 1e15) || decimals < 0 || decimals > 4)
        return 0;
    int e;
    const uint64_t m = (uint64_t)ldexp(frexp(x, &e), 53), p = pow10[decimals];
    const unsigned s = (unsigned)(53 - e);
    if (s >= 69) /* below a quarter */
        return 0;
    const uint64_t a = (m & 0xffffffffu) * p, b = (m >> 32) * p;
    const uint64_t lo = a + (b << 32), hi = (b >> 32) + (lo < a);
    const uint64_t q = s >= 64 ? hi >> (s - 64) : (lo >> s) | (hi << (64 - s));
    const unsigned k = s - 1; /* the half's bit */
    const int half = (int)((k >= 64 ? hi >> (k - 64) : lo >> k) & 1);
    const int below = k >= 64 ? lo != 0 || (hi & ((UINT64_C(1) << (k - 64)) - 1)) != 0
                              : (lo & ((UINT64_C(1) << k) - 1)) != 0;
    return q + (uint64_t)(half && (below || (q & 1)));
}

uint64_t llmmem__serving_x10000(double fraction)
{
    return llmmem__serving_decimals(fraction, 4);
}

void llmmem__serving_finish(llmmem_serving *r, const llmmem_model *m, const llmmem__serve_inputs *in)
{
    llmmem__copy_name(r->model_name, m->name);
    llmmem__copy_name(r->hardware_name, in->dev.name);
    r->valid = 1;
}

llmmem_status llmmem__serving_check_request(const llmmem_serving *r, uint64_t request, const char *engine)
{
    if (request > r->max_model_len)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "request_tokens (%llu) exceeds max_model_len (%llu): %s refuses such a request",
                            (unsigned long long)request, (unsigned long long)r->max_model_len, engine);
    if (r->pool.prefix > request || r->pool.prompt > request)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "%s (%llu) exceeds the request's tokens (%llu: request_tokens, else max_model_len)",
                            r->pool.prefix > request ? "shared_prefix_tokens" : "prompt_tokens",
                            (unsigned long long)(r->pool.prefix > request ? r->pool.prefix : r->pool.prompt),
                            (unsigned long long)request);
    return LLMMEM_OK;
}

/* ---- the multimodal encoder ------------------------------------------------------ */

/* What vLLM sizes for a vision model's encoder: the largest image's embeddings, the compute and
 * cache budgets, the images the profile run encodes and the bytes their outputs hold. */
typedef struct mm_budget {
    uint64_t per_item, compute, cache, items, cache_bytes, profile_bytes;
} mm_budget;

/* Embeddings of the largest image and the width of one (0 and 0: no tower whose images the library
 * sizes; 0 and the width: a tower whose largest item is not established): the tower's row
 * (inventory/towers.c) gives the processor's largest image, max_pixels overriding it where the processor
 * resizes into a pixel budget. */
static void largest_image(uint64_t *tokens, uint64_t *width, const llmmem_model *m, const llmmem__serve_settings *set)
{
    const int64_t kind = llmmem__model_value(m, LLMMEM_KEY_VISION_MODEL_TYPE);
    const llmmem__tower *t = llmmem__tower_of(kind);
    const llmmem__tower_item *it = llmmem__tower_item_of(kind);
    uint64_t patch = mv(m, LLMMEM_KEY_VISION_PATCH_SIZE), merge = mv(m, LLMMEM_KEY_VISION_SPATIAL_MERGE_SIZE);
    uint64_t hidden = mv(m, LLMMEM_KEY_HIDDEN_SIZE), out = mv(m, LLMMEM_KEY_VISION_OUT_HIDDEN_SIZE);
    *tokens = *width = 0;
    if (merge == 0)
        merge = 2; /* Qwen vision configs and Mistral3Config: spatial_merge_size=2 */
    if (it != NULL) { /* what embed_multimodal returns: the projector's output, the text model's width */
        *width = hidden;
        *tokens = it->tokens ? it->tokens
                             : it->max_pixels ? llmmem__tower_budget_tokens(set->max_pixels ? set->max_pixels
                                                                                           : it->max_pixels,
                                                                            patch * merge)
                                              : 0;
        return;
    }
    if (t == NULL)
        return;
    if (out == 0)
        out = hidden;
    uint64_t pixels = t->max_pixels ? set->max_pixels : 0, image = mv(m, LLMMEM_KEY_VISION_IMAGE_SIZE);
    if (pixels == 0)
        pixels = t->max_pixels ? t->max_pixels : image * image; /* below 2^40 by the key bounds */
    uint64_t side = llmmem__tower_side(t, pixels, patch * merge); /* the factor is below 2^18 by the key bounds */
    *tokens = side * side;
    *width = t->text_width ? hidden : t->deepstack ? out * (1 + mv(m, LLMMEM_KEY_VISION_DEEPSTACK_LAYERS)) : out;
}

/* vllm/multimodal/encoder_budget.py MultiModalBudget with vllm/v1/core/encoder_cache_manager.py
 * compute_mm_encoder_budget, for images (a model serving video sets mm_max_tokens_per_item to its
 * largest video item): compute budget max(max_num_batched_tokens, item), cache size
 * max(encoder_cache_size or max_num_batched_tokens, item); the profile run
 * (v1/worker/gpu_model_runner.py profile_run) encodes max(1, min(min(compute, cache) // item,
 * max_num_seqs x max(1, min(limit, max_model_len // item)))) items of the largest size (chunked
 * prefill, vLLM V1's default) and keeps their outputs in encoder_cache through the decoder's dummy
 * forward. */
static llmmem_status encoder_budget(mm_budget *out, const llmmem_model *m, const llmmem__serve_settings *set,
                                    uint64_t batched, uint64_t seqs, uint64_t max_model_len)
{
    memset(out, 0, sizeof *out);
    uint64_t limit = set->limit_mm_per_prompt, item, width;
    largest_image(&item, &width, m, set);
    if (set->mm_max_tokens_per_item > 0)
        item = set->mm_max_tokens_per_item;
    /* a tower whose largest item is its processor's and not established (inventory/towers.c): no silent empty
     * encoder cache */
    const uint64_t tower = mv(m, LLMMEM_KEY_VISION_MODEL_TYPE);
    const llmmem__tower_item *it = llmmem__tower_item_of((int64_t)tower);
    if (limit > 0 && set->mm_max_tokens_per_item == 0 && it != NULL && it->tokens == 0 && it->max_pixels == 0)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "limit_mm_per_prompt (%llu): vLLM's encoder cache for %s's %s tower is not modelled (its "
                            "largest image is set by the processor's preprocessor_config.json); set "
                            "mm_max_tokens_per_item to its largest item, or limit_mm_per_prompt=0 to serve text alone",
                            (unsigned long long)limit, llmmem_choice_name(LLMMEM_KEY_MODEL_TYPE, (int64_t)mv(m, LLMMEM_KEY_MODEL_TYPE)),
                            llmmem_choice_name(LLMMEM_KEY_VISION_MODEL_TYPE, (int64_t)tower));
    if (limit == 0 || item == 0 || width == 0) /* "Encoder cache will not be initialized" */
        return LLMMEM_OK;
    uint64_t cache = llmmem__serve_or(set->encoder_cache_size, batched);
    out->per_item = item;
    out->compute = batched > item ? batched : item;
    out->cache = cache > item ? cache : item;
    uint64_t budget = out->compute < out->cache ? out->compute : out->cache;
    uint64_t per_prompt = max_model_len / item, decoder_items;
    if (per_prompt > limit)
        per_prompt = limit;
    if (per_prompt == 0)
        per_prompt = 1;
    if (!llmmem__mul(&decoder_items, seqs, per_prompt))
        return overflow("images per batch");
    out->items = budget / item < decoder_items ? budget / item : decoder_items;
    if (out->items == 0)
        out->items = 1;
    uint64_t e = llmmem__kv_element_bytes(llmmem__model_dtype(m)), x;
    if (!llmmem__mul(&x, width, e) || !llmmem__mul(&out->cache_bytes, out->cache, x) ||
        !llmmem__mul(&out->profile_bytes, out->items, item) || !llmmem__mul(&out->profile_bytes, out->profile_bytes, x))
        return overflow("encoder cache bytes");
    return LLMMEM_OK;
}

/* ---- the estimate --------------------------------------------------------------- */

/* ceil(total * fraction) as Python computes math.ceil(total * fraction): the product in double
 * precision, rounded up to a whole byte (vllm/v1/worker/utils.py request_memory). */
static uint64_t requested_memory(uint64_t total, double fraction)
{
    double p = (double)total * fraction;
    uint64_t r = (uint64_t)p;
    return (double)r < p ? r + 1 : r;
}

llmmem_status llmmem_serving_new(llmmem_serving **out)
{
    LLMMEM_REQUIRE(out);
    *out = calloc(1, sizeof **out);
    if (!*out)
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "serving_new: out of memory");
    return LLMMEM_OK;
}

llmmem_status llmmem_serving_clone(llmmem_serving **out, const llmmem_serving *serving)
{
    LLMMEM_REQUIRE(out);
    *out = NULL;
    LLMMEM_REQUIRE(serving);
    *out = llmmem__duplicate(serving, sizeof *serving);
    return *out ? LLMMEM_OK : LLMMEM_ERR_NO_MEMORY;
}

void llmmem_serving_free(llmmem_serving *serving)
{
    free(serving);
}

int llmmem_serving_valid(const llmmem_serving *serving)
{
    return serving && serving->valid;
}

size_t llmmem_serving_value_count(void)
{
    return SERVING_VALUES;
}

const char *llmmem_serving_value_name(llmmem_serving_value value)
{
    return (unsigned)value < SERVING_VALUES ? value_names[value] : NULL;
}

uint64_t llmmem_serving_get(const llmmem_serving *serving, llmmem_serving_value value)
{
    if (!serving || !serving->valid || (unsigned)value >= SERVING_VALUES)
        return 0;
    return serving->v[value];
}

/* Bytes of one element of a state in a vLLM MambaDType choice (auto: `fallback`). */
static uint64_t state_element_bytes(int64_t choice, uint64_t fallback)
{
    return choice == 1 ? 4 : choice == 2 || choice == 3 ? 2 : fallback;
}

/* The paged pool of a model with Mamba-2 or Gated DeltaNet layers (one stage; the caller checked
 * the rest of the setup), from the memory left for it.
 *   - MambaSpec.page_size_bytes (v1/kv_cache_interface.py): conv and SSM state of one sequence in
 *     one layer, in mamba_cache_dtype and mamba_ssm_cache_dtype (mamba_utils.py
 *     MambaStateDtypeCalculator._mamba_state_dtype: auto is the model's dtype, the SSM state's
 *     auto the conv state's);
 *   - models/config.py HybridAttentionMambaModelConfig.verify_and_update_config (no prefix
 *     caching): attention block size 16 x cdiv(state page, 16 x attention page of one token),
 *     kept when block_size is already that large; the state page padded to the attention page;
 *   - kv_cache_utils.py _get_kv_cache_groups_uniform_page_size: groups of group_size layers (the
 *     smaller type's count, or the larger one's under 1.5 times it); a model of state layers alone
 *     is one group of them (_get_kv_cache_groups_uniform_type) whose MambaSpec block_size is
 *     max_model_len (MambaModelConfig: mamba_block_size = max_model_len);
 *   - parallel_ssm (models/falcon_h1.py FalconH1ParallelHybrid): each decoder layer i registers an
 *     Attention ("model.layers.i.attn") and a MambaMixer2 ("model.{num_hidden_layers + i}.mixer"), so
 *     the attention and state counts below are both num_hidden_layers (geometry: ssm_layers = layers). */
static llmmem_status state_pool(llmmem_serving *r, const llmmem_model *m, const llmmem__geometry *a,
                                const llmmem__serve_settings *set)
{
    uint64_t conv, temporal, model_bytes = llmmem__kv_element_bytes(llmmem__model_dtype(m));
    llmmem_status st = llmmem__state_elements(&conv, &temporal, a, r->tp);
    if (st)
        return st;
    uint64_t conv_bytes = state_element_bytes(set->mamba_cache_dtype, model_bytes);
    uint64_t ssm_bytes = state_element_bytes(set->mamba_ssm_cache_dtype, conv_bytes);
    uint64_t state_page = 0; /* not bounded by the keys: a Mamba-2 state of 2^24-wide heads, dims and state */
    if (!llmmem__muladd(&state_page, conv, conv_bytes) || !llmmem__muladd(&state_page, temporal, ssm_bytes))
        return overflow("state page bytes");
    /* vllm/model_executor/models/falcon_h1.py: a parallel_ssm layer is one attention and one mamba cache layer */
    uint64_t state_layers = llmmem__state_layers(a);
    uint64_t attention = llmmem__layers_in(&a->plan, a->attention, 0, a->layers);
    r->pool.full_groups = r->pool.sliding_groups = 0; /* set below: no sliding layer here */
    r->v[LLMMEM_SERVING_STATE_PAGE_BYTES] = state_page;
    if (!llmmem__mul(&r->v[LLMMEM_SERVING_STATE_BYTES_PER_SEQUENCE], state_page, state_layers))
        return overflow("state bytes of a sequence");
    if (attention == 0) {
        /* v1/core/kv_cache_utils.py get_num_blocks: available_memory // page_size, a page of 0 bytes with
         * conv_L_cache 1 (its state keeps conv_L_cache - 1 columns) */
        if (state_page == 0)
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "vLLM cannot start with conv_L_cache %llu and no attention "
                                "layer: a short-convolution state of 0 bytes is a page of 0 bytes, and get_num_blocks "
                                "divides by it", (unsigned long long)mv(m, LLMMEM_KEY_CONV_L_CACHE));
        r->pool.block = r->max_model_len;
        r->page = state_page;
        r->pool.group_layers = state_layers;
        r->pool.state_groups = 1;
        return LLMMEM_OK;
    }
    /* vllm/model_executor/models/config.py HybridAttentionMambaModelConfig: kernel_block_alignment_size 16, 64 for
     * MLA attention (128 with the CUTLASS_MLA backend, not modelled) */
    uint64_t one = r->pool.token_layer, align = a->kv_lora_rank ? 64 : 16, blocks;
    if (!llmmem__mul(&blocks, align, one))
        return overflow("attention page bytes");
    uint64_t attn_block = align * llmmem__ceil_div(state_page, blocks);
    if (r->pool.block < attn_block)
        r->pool.block = attn_block;
    if (!llmmem__mul(&r->page, r->pool.block, one))
        return overflow("page bytes");
    uint64_t lo = attention < state_layers ? attention : state_layers;
    uint64_t hi = attention < state_layers ? state_layers : attention;
    uint64_t size = 2 * hi < 3 * lo ? hi : lo, held;
    r->pool.full_groups = llmmem__ceil_div(attention, size);
    r->pool.state_groups = llmmem__ceil_div(state_layers, size);
    r->pool.group_layers = size;
    /* a sequence's state blocks: a padded page in each layer slot of its groups, padding layers included */
    if (!llmmem__mul(&held, r->pool.state_groups * size, r->page))
        return overflow("state bytes of a sequence");
    r->pool.state_waste = held - r->v[LLMMEM_SERVING_STATE_BYTES_PER_SEQUENCE];
    return LLMMEM_OK;
}

/* What changed between the vLLM releases modelled, one row each (engine_version). */
typedef struct vllm_release {
    llmmem_engine_version version;
    double utilization;   /* vllm/config/cache.py CacheConfig.gpu_memory_utilization default */
    int estimate_graphs;  /* v1/worker/gpu_worker.py determine_available_memory subtracts the CUDA-graph estimate
                           * (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS on, "default since v0.21.0") */
    int capacity_line;    /* v1/core/kv_cache_utils.py get_kv_cache_capacity: "GPU KV cache size" is
                           * int(max_concurrency x max_model_len), logged on one line with the concurrency */
} vllm_release;

static const vllm_release vllm_releases[] = {
    {LLMMEM_ENGINE_VERSION_LATEST, 0.92, 1, 1},
    {LLMMEM_ENGINE_VERSION_VLLM_0_20, 0.9, 0, 0}, /* docs v0.10.2: gpu_memory_utilization = 0.9 */
    {LLMMEM_ENGINE_VERSION_VLLM_0_21, 0.92, 1, 0},
};

static const vllm_release *vllm_release_of(int64_t version)
{
    for (size_t i = 0; i < sizeof vllm_releases / sizeof vllm_releases[0]; i++)
        if (vllm_releases[i].version == version)
            return &vllm_releases[i];
    return &vllm_releases[0];
}

/* The CUDA-graph batch sizes vLLM captures (vllm/config/vllm.py VllmConfig._set_cudagraph_sizes):
 * [1, 2, 4] + range(8, 256, 8) + range(256, max + 1, 16), every size at most max_cudagraph_capture_size
 * = min(max_num_seqs x decode_query_len x 2, 512, max_num_batched_tokens); the FULL graphs of
 * cudagraph_mode FULL_AND_PIECEWISE (the default) are those of uniform decode batches, sizes from
 * decode_query_len to max_num_seqs x decode_query_len (cudagraph_dispatcher.py). Under speculative
 * decoding vLLM also rounds the sizes up to multiples of decode_query_len, not modelled. */
typedef struct graph_sizes {
    uint64_t count, largest, full, full_largest;
} graph_sizes;

static graph_sizes capture_sizes(uint64_t seqs, uint64_t batched, uint64_t query_len)
{
    graph_sizes g = {0, 0, 0, 0};
    uint64_t cap = seqs * query_len * 2, decode = seqs * query_len; /* below 2^31 by the key bounds */
    if (cap > 512)
        cap = 512;
    if (cap > batched)
        cap = batched;
    for (uint64_t size = 1; size <= cap; size = size < 4 ? size * 2 : size < 8 ? 8 : size + (size < 256 ? 8 : 16)) {
        g.count++;
        g.largest = size;
        if (size >= query_len && size <= decode) {
            g.full++;
            g.full_largest = size;
        }
    }
    return g;
}

/* What vLLM's estimate of CUDA-graph memory is at the least (v1/worker/gpu_model_runner.py
 * GPUModelRunner.profile_cudagraph_memory: estimate = the first graph's + max(second's, 1 MiB) x
 * (graphs - 1) per mode, the first the larger of the modes'): vLLM measures the graphs against a
 * throwaway KV cache; the first graph holds at least the forward's working set at the largest batch,
 * each later one at least vLLM's 1 MiB floor. A floor, not the measurement: set cuda_graph_bytes to
 * the log's "Estimated CUDA graph memory" for the exact budget. */
static llmmem_status graph_estimate(uint64_t *out, const llmmem_model *m, llmmem_kv_cache_dtype dtype,
                                    const llmmem__geometry *a, uint64_t tp, uint64_t first, uint64_t end,
                                    const graph_sizes *g)
{
    uint64_t first_graph;
    llmmem_status st = activation_peak(&first_graph, m, dtype, a, tp, first, end, 0, g->largest, 0);
    if (st)
        return st;
    uint64_t later = (g->count - 1) + (g->full ? g->full - 1 : 0);
    if (!llmmem__add(out, first_graph, later << 20))
        return overflow("CUDA-graph estimate");
    return LLMMEM_OK;
}

/* vLLM and TensorRT-LLM serve kimi_k3 but size its cache in ways not modelled here (research/k3v): a row names
 * the engine's model file and what of its budget is missing; SGLang (no profile run) models its pools. */
static const struct {
    llmmem_engine engine;
    const char *runs, *missing;
} attn_res_engines[] = {
    /* vllm models/kimi_k3/nvidia/model.py KimiLinearModel.forward: block_residual new_empty(tokens,
     * cdiv(layers, attn_res_block_size), hidden), live through the whole forward of the profile run */
    {LLMMEM_ENGINE_VLLM, "vLLM runs it (vllm/models/kimi_k3/nvidia/model.py)",
     "its profile run (KimiLinearModel.forward's AttnRes bank beside the residual, KimiK3DeltaAttention's state, "
     "the latent MoE runner's workspace)"},
    /* TensorRT-LLM _torch/models/modeling_kimi_linear.py (its docstring's Caching): KDA's state on the Mamba side
     * of MixedMambaHybridCacheManager, MLA on the paged side; trtllm.c has no state pool */
    {LLMMEM_ENGINE_TRTLLM, "TensorRT-LLM runs it (_torch/models/modeling_kimi_linear.py KimiLinearForCausalLM)",
     "its MixedMambaHybridCacheManager (KDA's conv and recurrent state in slots a request beside MLA's paged "
     "latent) and the AttnRes bank of its estimation run"},
};

static llmmem_status attn_res_refusal(const llmmem_model *m, const char *cache, int64_t engine)
{
    size_t row = 0; /* vLLM, also for auto */
    for (size_t i = 0; i < sizeof attn_res_engines / sizeof attn_res_engines[0]; i++)
        if (attn_res_engines[i].engine == engine)
            row = i;
    uint64_t block = mv(m, LLMMEM_KEY_ATTN_RES_BLOCK_SIZE), layers = mv(m, LLMMEM_KEY_NUM_HIDDEN_LAYERS);
    return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "%s of %s: %s; not modelled: %s; the AttnRes bank is %llu "
                        "hidden-wide rows a token (%llu layers / attn_res_block_size %llu, rounded up); SGLang "
                        "serving (engine sglang) models its pools, and the weights and the contiguous cache "
                        "(llmmem_kv_cache_bytes) are", cache,
                        llmmem_choice_name(LLMMEM_KEY_MODEL_TYPE, (int64_t)mv(m, LLMMEM_KEY_MODEL_TYPE)),
                        attn_res_engines[row].runs, attn_res_engines[row].missing,
                        (unsigned long long)llmmem__ceil_div(layers, block), (unsigned long long)layers,
                        (unsigned long long)block);
}

llmmem_status llmmem__serving_prepare(llmmem__served *out, llmmem_serving *r, const llmmem_model *m,
                                      const llmmem__serve_inputs *in, const char *cache, int modelled)
{
    llmmem_status st = llmmem__kv_shape_modelled(&out->a, m, modelled);
    if (!st)
        st = llmmem__kv_refuse_cross(out->a, cache);
    if (!st)
        st = llmmem__kv_refuse_typed(out->a, cache, modelled);
    if (!st && mv(m, LLMMEM_KEY_ATTN_RES_BLOCK_SIZE) && !(modelled & LLMMEM__SERVING_NO_PROFILE))
        st = attn_res_refusal(m, cache, in->set.engine);
    if (st)
        return st;
    if (llmmem__state_kinds(out->a) > 1)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "a model with state layers of more than one kind (Mamba-2, Gated "
                            "DeltaNet, Mamba-1) is not modelled");
    int64_t mode = in->set.mode;
    if (mode != LLMMEM_MODE_INFERENCE)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "serving estimates inference; mode is %s",
                            llmmem__mode_name(mode));
    out->memory = in->dev.memory;
    if (out->memory == 0)
        return llmmem__fail(LLMMEM_ERR_INCOMPLETE, "hardware: memory_bytes is not set");
    if ((st = llmmem__serve_kept(in, in->served_status)) != LLMMEM_OK)
        return st;
    out->format = in->served;
    out->activations = llmmem__kv_dtype_of(out->format);
    if (out->activations == LLMMEM_KV_CACHE_AUTO)
        out->activations = llmmem__model_dtype(m);
    /* the per-stage arrays (most of the struct) are written for every stage below pp before any
     * read: cleared as far as they begin */
    memset(r, 0, offsetof(llmmem_serving, stage_budget));
    if (in->set.speculative_method == LLMMEM_SPECULATIVE_MTP &&
        llmmem__model_value(m, LLMMEM_KEY_NUM_NEXTN_PREDICT_LAYERS) == 0)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "speculative_method mtp drafts with the checkpoint's multi-token-prediction modules, but "
                            "the model's num_nextn_predict_layers is 0");
    r->served = out->format;
    r->tp = out->tp = in->set.tp;
    r->pp = in->set.pp;
    return check_parallel(out->a, r->tp, r->pp);
}

llmmem_status llmmem__serving_weights_less_tower(uint64_t *w, const llmmem_model *m, const llmmem__serve_inputs *in,
                                                uint64_t tp)
{
    uint64_t tower = 0;
    llmmem_status st = llmmem__serve_kept(in, in->plan_status);
    if (st || (st = llmmem__served_rank_weight_bytes(&tower, m, &in->plan, tp, 0, m->geo.layers, 1, 1,
                                                     LLMMEM_PARAMS_VISION)) != LLMMEM_OK)
        return st;
    if (tower > *w)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "the checkpoint's weights (%llu bytes) are below its vision "
                            "tower's (%llu bytes) as the weight plan prices them", (unsigned long long)*w,
                            (unsigned long long)tower);
    *w -= tower;
    return LLMMEM_OK;
}

/* vLLM's model memory of minimax_m3_vl beside its layers' weights (vllm models/minimax_m3/nvidia/model.py):
 * MiniMaxM3SparseForConditionalGeneration builds the tower and both projectors under _mark_tower_model, which skips
 * them when limit_mm_per_prompt is 0 for images and videos (models/interfaces.py SupportsMultiModal); MiniMaxM3Model
 * allocates on the device at load its topk_indices_buffer, int32 [max(1, index heads // tensor_parallel),
 * max_num_batched_tokens rounded up to 4, sparse_topk_blocks]. One stage (pipeline_parallel is refused). */
static llmmem_status indexer_model_memory(uint64_t *w, const llmmem_model *m, const llmmem__serve_inputs *in,
                                          uint64_t tp, uint64_t batched)
{
    const uint64_t blocks = mv(m, LLMMEM_KEY_INDEX_TOPK_BLOCKS), heads = mv(m, LLMMEM_KEY_INDEX_N_HEADS) / tp;
    if (blocks == 0)
        return llmmem__fail(LLMMEM_ERR_INCOMPLETE, "index_topk_blocks is not set: vLLM's top-k buffer of "
                            "minimax_m3_vl needs it (sparse_attention_config's sparse_topk_blocks)");
    uint64_t topk;
    llmmem_status st;
    if (in->set.limit_mm_per_prompt == 0 && (st = llmmem__serving_weights_less_tower(w, m, in, tp)) != LLMMEM_OK)
        return st;
    /* groups of 4 tokens of 4-byte indices */
    if (!llmmem__mul(&topk, heads ? heads : 1, llmmem__ceil_div(batched, 4)) || !llmmem__mul(&topk, topk, blocks) ||
        !llmmem__mul(&topk, topk, 16) || !llmmem__add(w, *w, topk))
        return overflow("model memory with the top-k buffer");
    return LLMMEM_OK;
}

llmmem_status llmmem__serving_rank_weights(uint64_t *out, const llmmem_model *m, const llmmem__serve_inputs *in,
                                           uint64_t tp)
{
    return stage_weights(out, m, in, tp, 1, 0, m->geo.layers, 1, 1);
}

/* DeepSeek-V4 under vLLM (research/dsv4v/notes.md): every spec is known (sparse_swa.py DeepseekV4SWACache:
 * SlidingWindowMLASpec on every layer, blocks of 64; deepseek_v4_attention.py DeepseekV4MLAAttention and
 * DeepseekV4IndexerCache: MLAAttentionSpec with compress_ratio, blocks of 256, fp8_ds_mla entries padded to 576 B;
 * compressor.py CompressorStateCache: float32 state, windows 8 and 128), but the block count is a planner's that
 * differs between vLLM's versions (nvidia/kv_cache_planner.py DeepseekV4KVCachePlanner pads the state pages to the
 * MLA pages, another version's kv_cache_utils.py packs them unpadded) and the profile run reserves a prefill workspace
 * (attention_impl's dummy-run branch): refused by name before any number. */
static llmmem_status vllm_refuse_compressed(const llmmem_model *m)
{
    llmmem_status st = llmmem__model_check(m);
    const llmmem__geometry *a = &m->geo;
    if (st || (!a->compressed_layers && !a->hc_mult))
        return st;
    const uint64_t n4 = llmmem__mixer_layers(a, LLMMEM_MIXER_CSA), n128 = llmmem__mixer_layers(a, LLMMEM_MIXER_HCA);
    return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                        "vLLM serving of deepseek_v4 is not modelled: vLLM pages the sliding window of its %llu "
                        "layers (SlidingWindowMLASpec, blocks of 64), the compressed entries of its %llu ratio-4 and "
                        "%llu ratio-128 layers and the ratio-4 layers' indexer keys (MLAAttentionSpec, blocks of "
                        "256, fp8_ds_mla) and the compressors' float32 state in layer-tuple groups whose block count "
                        "differs between vLLM versions (kv_cache_planner.py pads the state pages to the MLA pages, "
                        "another version's kv_cache_utils.py packs them unpadded), and its profile run reserves a "
                        "prefill workspace of 4 x (max_model_len / 4 + window + max_num_batched_tokens) rows of 512 "
                        "bf16; SGLang serving (engine sglang) models its pools",
                        (unsigned long long)a->layers, (unsigned long long)n4, (unsigned long long)n128);
}

static llmmem_status vllm_serve(llmmem_serving *out, const llmmem_model *model, const llmmem__serve_inputs *in)
{
    llmmem__served p;
    llmmem_serving *r = out;
    const llmmem__serve_settings *set = &in->set;
    llmmem_status st = vllm_refuse_compressed(model);
    if (st)
        return st;
    st = llmmem__serving_prepare(&p, r, model, in, "vLLM's paged cache",
                                 LLMMEM__KV_BLOCKS | LLMMEM__KV_TYPED | LLMMEM__KV_INDEXED);
    if (st)
        return st;
    const llmmem__geometry *a = p.a;
    const uint64_t memory = p.memory;
    const llmmem_kv_cache_dtype activations = p.activations;
    const int state = llmmem__state_layers(a) != 0;
    if (state && (a->window || (a->kv_lora_rank && !a->linear_layers)))
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "%s beside state layers (Mamba, Gated DeltaNet, KDA or short convolutions) is not modelled",
                            a->window ? "sliding-window attention" : "multi-head latent attention");
    /* gemma4: full and sliding layers of different widths, KV-shared layers, per-layer input embeddings */
    const int typed = a->kv_token_global.heads || a->kv_shared_layers || a->per_layer_inputs;
    /* the profile run's working set is modelled for Mamba-2, Qwen's Gated DeltaNet, Kimi's KDA, LFM2's
     * short-convolution layers and gemma4's (activation_peak), not for Mamba-1's */
    const int kda = mv(model, LLMMEM_KEY_LINEAR_ATTN_KDA) != 0;
    const int linear_unmodelled = a->linear_layers && (kda ? !kda_peak(a, r->tp, 1) : !gdn_peak(model, a, r->tp));
    const int state_unmodelled = linear_unmodelled || a->mamba1_layers ||
                                 (a->conv_layers && !short_conv_peak(model, a, r->tp));
    if (state_unmodelled && set->profile_activation_bytes < 0 && !set->kv_cache_memory_bytes)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "the profile run's activation peak of %s layers is not modelled: "
                            "set profile_activation_bytes or kv_cache_memory_bytes",
                            a->linear_layers ? "Gated DeltaNet"
                            : a->conv_layers   ? "short-convolution"
                                               : "Mamba-1");
    /* vllm/model_executor/layers/attention/attention.py validate_kv_sharing_target: the layer read must be on the
     * same rank; which stage holds it is not modelled */
    if (a->kv_shared_layers && r->pp > 1)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "pipeline_parallel (%llu) with KV-shared layers (num_kv_shared_layers "
                            "%llu) is not modelled", (unsigned long long)r->pp, (unsigned long long)a->kv_shared_layers);
    int64_t version;
    if ((st = llmmem__serving_version(&version, in, LLMMEM_ENGINE_VLLM)) != LLMMEM_OK)
        return st;
    const vllm_release *rel = vllm_release_of(version);
    double util = set->gpu_memory_utilization;
    if (util == 0.0) /* the key's bounds keep it in [0, 1] */
        util = rel->utilization;

    r->dtype = in->kv;
    if ((st = llmmem__kv_token_layer_bytes(&r->pool.token_layer, a, r->dtype, r->tp, 0)) != LLMMEM_OK)
        return st;
    /* v1/core/kv_cache_utils.py get_num_blocks divides by the page: nvfp4's head_size // 2 + head_size // 16 bytes
     * (kv.c) are none for a head of 1 */
    if (a->kv_token.heads && r->pool.token_layer == 0)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "kv_cache_dtype (%s) with head_dim %llu: head_size // 2 + "
                            "head_size // 16 is a page of 0 bytes, and vLLM's get_num_blocks divides by it",
                            llmmem__kv_dtype_name(r->dtype), (unsigned long long)a->kv_token.width);
    if (r->dtype != LLMMEM_KV_CACHE_FP8_DS_MLA &&
        (st = llmmem__kv_token_layer_bytes(&r->contig_token_layer, a, r->dtype, r->tp, 1)) != LLMMEM_OK)
        return st;

    const int large = in->dev.large;
    r->pool.block = llmmem__serve_or(set->block_size, 16); /* vllm/config/cache.py CacheConfig.DEFAULT_BLOCK_SIZE */
    r->pool.batched = llmmem__serve_or(set->max_num_batched_tokens, large ? 8192 : 2048);
    /* minimax_m3_vl: its index keys page beside K and V in one group of per-layer pages (kv.c) */
    const int indexed = a->index_layers != 0;
    if (indexed) {
        /* a stage's group pages its own layers' K/V and index keys: per-stage pages are not modelled */
        if (r->pp > 1)
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "pipeline_parallel (%llu) with minimax_m3_vl's lightning "
                                "indexer is not modelled", (unsigned long long)r->pp);
        if ((st = llmmem__kv_indexed_pool(&r->pool, a, r->dtype, r->tp)) != LLMMEM_OK)
            return st;
    }
    uint64_t seqs = llmmem__serve_or(set->max_num_seqs, large ? 1024 : 256);
    if (seqs > r->pool.batched) /* vllm/config/scheduler.py SchedulerConfig._verify_args */
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "max_num_seqs (%llu) exceeds max_num_batched_tokens (%llu)",
                            (unsigned long long)seqs, (unsigned long long)r->pool.batched);
    uint64_t positions = mv(model, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS);
    /* vllm/config/model.py _get_and_verify_max_len: a config with no length key is taken as 2048 tokens
     * long (Mamba2Config has none) */
    /* max_model_len -1 (vLLM's "auto"): the profile runs with the model's length, the KV cache then
     * fits it (v1/core/kv_cache_utils.py _auto_fit_max_model_len, below) */
    const int auto_len = set->max_model_len < 0;
    r->max_model_len = llmmem__serve_or(set->max_model_len, positions ? positions : 2048);
    if (positions && r->max_model_len > positions) /* vllm/config/model.py _get_and_verify_max_len */
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE,
                            "max_model_len (%llu) exceeds the model's max_position_embeddings (%llu)",
                            (unsigned long long)r->max_model_len, (unsigned long long)positions);
    r->pool.window = a->window;
    r->pool.chunked = a->chunk != 0; /* vllm ChunkedLocalAttentionSpec for the chunked layers */
    /* vLLM 0.11 engine/arg_utils.py: a hybrid model's prefix caching is off by default, and
     * models/config.py MambaModelConfig.verify_and_update_config turns it off even when asked ("Hybrid or
     * mamba-based model detected without support for prefix caching: disabling") */
    r->pool.prefix_caching = !state && set->enable_prefix_caching;
    r->pool.prefix = set->shared_prefix_tokens;
    r->pool.prompt = set->prompt_tokens;
    r->pool.n = set->n;
    uint64_t request = llmmem__serve_or(set->request_tokens, r->max_model_len);
    if (!auto_len && (st = llmmem__serving_check_request(r, request, "vLLM")) != LLMMEM_OK)
        return st;

    mm_budget mm;
    if ((st = encoder_budget(&mm, model, set, r->pool.batched, seqs, r->max_model_len)) != LLMMEM_OK)
        return st;

    llmmem__kv_groups g = llmmem__kv_groups_of(a, set->disable_hybrid_kv_cache_manager);
    r->pool.full_groups = g.full_groups;
    r->pool.sliding_groups = g.sliding_groups;
    uint64_t sliding_token = r->pool.token_layer, full_token = sliding_token;
    r->typed = typed;
    if (a->kv_token_global.heads && g.full) {
        /* the full layers' own spec (vllm gemma4.py Gemma4DecoderLayer: global_head_dim, num_global_key_value_heads;
         * mimo_v2_flash.py MiMoV2FlashDecoderLayer: their own KV heads, values narrower than keys, a page of
         * head_size + head_size_v on sliding and full layers alike: v1/kv_cache_interface.py
         * SlidingWindowSpec.real_page_size_bytes, FullAttentionSpec's; layers/attention/attention.py
         * Attention.get_kv_cache_spec gives both specs head_size_v) */
        if (!g.sliding)
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "vLLM's paged cache of full layers of different widths %s is not "
                                "modelled (one group of per-layer pages, UniformTypeKVCacheSpecs)",
                                set->disable_hybrid_kv_cache_manager ? "under disable_hybrid_kv_cache_manager"
                                                                                 : "alone");
        if (r->dtype == LLMMEM_KV_CACHE_INT8_PER_TOKEN_HEAD || r->dtype == LLMMEM_KV_CACHE_FP8_PER_TOKEN_HEAD ||
            r->dtype == LLMMEM_KV_CACHE_INT4_PER_TOKEN_HEAD)
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "kv_cache_dtype (%s) with full layers of another width is not "
                                "modelled (vllm gemma4.py pads their pages: kv_cache_page_size_padded)",
                                llmmem__kv_dtype_name(r->dtype));
        if ((st = llmmem__kv_full_token_layer_bytes(&full_token, a, r->dtype, r->tp, 0)) != LLMMEM_OK ||
            (st = llmmem__kv_unify_pages(&r->pool, full_token)) != LLMMEM_OK)
            return st;
    }
    if (state) {
        if (set->disable_hybrid_kv_cache_manager)
            return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "disable_hybrid_kv_cache_manager: vLLM needs the hybrid "
                                "manager for Mamba-2 and Gated DeltaNet layers");
        if ((st = state_pool(r, model, a, set)) != LLMMEM_OK)
            return st;
    } else if (!llmmem__mul(&r->page, r->pool.token_layer, r->pool.block))
        return overflow("page bytes");

    /* vllm/v1/worker/gpu_worker.py determine_available_memory: requested_memory minus the
     * non-KV memory of the profile run (weights + torch peak + non-torch increase), minus the
     * CUDA-graph estimate when applied; or kv_cache_memory_bytes, which skips profiling */
    uint64_t requested = requested_memory(memory, util);
    int64_t w_set = set->profile_weights_bytes, act_set = set->profile_activation_bytes;
    int64_t nt_set = set->profile_non_torch_bytes;
    uint64_t non_torch = nt_set >= 0 ? (uint64_t)nt_set : in->dev.runtime;
    int64_t graphs_set = set->cuda_graph_bytes;
    const int eager = set->enforce_eager;
    graph_sizes sizes = {0, 0, 0, 0};
    if (!eager)
        sizes = capture_sizes(seqs, r->pool.batched, 1 + set->num_speculative_tokens);
    /* a set cuda_graph_bytes is the measured estimate; unset, the release's: none before 0.21 */
    uint64_t fixed_budget = set->kv_cache_memory_bytes;
    /* gpu_worker.py determine_available_memory: kv_cache_memory_bytes returns before the graph estimate */
    const int estimate_graphs = graphs_set < 0 && rel->estimate_graphs && !eager && sizes.count && !fixed_budget;
    uint64_t graphs = graphs_set > 0 && !fixed_budget ? (uint64_t)graphs_set : 0;
    uint64_t best_w = 0, best_act = 0, best_graphs = 0, shortfall = 0, most_layers = 0, most_bytes = 0;
    int have = 0;
    for (uint64_t stage = 0; stage < r->pp; stage++) {
        uint64_t first, end, w = 0, act = 0, non_kv = 0, avail;
        stage_range(&first, &end, a->layers, r->pp, stage);
        int is_first = stage == 0, is_last = stage + 1 == r->pp;
        if (w_set >= 0)
            w = (uint64_t)w_set;
        else if ((st = stage_weights(&w, model, in, r->tp, r->pp, first, end, is_first, is_last)) != LLMMEM_OK ||
                 (indexed && (st = indexer_model_memory(&w, model, in, r->tp, r->pool.batched)) != LLMMEM_OK))
            return st;
        if (act_set >= 0 || state_unmodelled) /* act_set, or a fixed budget that needs none */
            act = act_set >= 0 ? (uint64_t)act_set : 0;
        else if ((st = activation_peak(&act, model, activations, a, r->tp, first, end, is_last, r->pool.batched,
                                       seqs)) != LLMMEM_OK)
            return st;
        else if (is_first && !llmmem__add(&act, act, mm.profile_bytes)) /* the tower sits on the first stage (rank.c) */
            return overflow("profile run bytes");
        if (estimate_graphs && (st = graph_estimate(&graphs, model, activations, a, r->tp, first, end, &sizes)) != LLMMEM_OK)
            return st;
        if (!llmmem__add(&non_kv, w, act) || !llmmem__add(&non_kv, non_kv, non_torch) ||
            !llmmem__add(&non_kv, non_kv, graphs))
            return overflow("non-KV memory");
        if (fixed_budget) {
            avail = fixed_budget;
        } else if (requested > non_kv) {
            avail = requested - non_kv;
        } else {
            avail = 0;
            if (non_kv - requested > shortfall)
                shortfall = non_kv - requested;
        }
        r->stage_budget[stage] = avail;
        r->stage_sliding[stage] = g.sliding ? llmmem__sliding_layers(a, first, end) : 0;
        uint64_t attention = llmmem__layers_in(&a->plan, a->attention, first, end), cached;
        r->stage_full[stage] = attention - r->stage_sliding[stage];
        /* bytes a token adds on the stage: its sliding layers' and its full layers' (their own widths) */
        uint64_t stage_sliding = llmmem__sliding_layers(a, first, end);
        if (indexed) /* the group's summed page over block (one stage) */
            cached = r->pool.token_layer;
        else if (!llmmem__mul(&cached, stage_sliding, sliding_token) ||
                 !llmmem__muladd(&cached, attention - stage_sliding, full_token))
            return overflow("KV bytes per token");
        if (cached > most_bytes)
            most_bytes = cached;
        r->stage_hf_sliding[stage] = llmmem__sliding_layers(a, first, end);
        r->stage_group[stage] = state || indexed ? r->pool.group_layers : llmmem__kv_group_layers(a, &g, first, end);
        /* kv_cache_utils.py get_kv_cache_config_from_groups: a worker whose stage caches no layer has a group of
         * none, and `assert group_size > 0` stops the engine (Nemotron-NAS's no_op attention blocks) */
        if (r->stage_group[stage] == 0)
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "vLLM cannot start with pipeline_parallel %llu: stage %llu "
                                "(layers %llu to %llu) caches no layer (get_kv_cache_config_from_groups asserts "
                                "group_size > 0)", (unsigned long long)r->pp, (unsigned long long)stage,
                                (unsigned long long)first, (unsigned long long)end - 1);
        if (end - first > most_layers)
            most_layers = end - first;
        /* kv_cache_utils.py get_num_blocks: available // page_size // num_layers (per group);
         * get_kv_cache_configs then gives every worker the smallest count */
        uint64_t blocks = avail / r->page / r->stage_group[stage];
        /* the smallest block count; of equal ones, the rank with the least memory left */
        if (!have || blocks < r->pool.num_blocks ||
            (blocks == r->pool.num_blocks && avail < r->stage_budget[r->binding])) {
            have = 1;
            r->pool.num_blocks = blocks;
            r->binding = stage;
            best_w = w;
            best_act = act;
            best_graphs = graphs;
        }
    }
    r->pool.group_layers = r->stage_group[r->binding];

    uint64_t *v = r->v, need;
    v[LLMMEM_SERVING_MEMORY_BYTES] = memory;
    v[LLMMEM_SERVING_REQUESTED_BYTES] = requested;
    v[LLMMEM_SERVING_WEIGHTS] = best_w;
    v[LLMMEM_SERVING_ACTIVATION_PEAK] = best_act;
    v[LLMMEM_SERVING_NON_TORCH] = non_torch;
    v[LLMMEM_SERVING_CUDA_GRAPH] = best_graphs;
    v[LLMMEM_SERVING_KV_CACHE_BYTES] = r->stage_budget[r->binding];
    v[LLMMEM_SERVING_SHORTFALL] = shortfall;
    if (state && !llmmem__mul(&most_bytes, r->pool.token_layer, llmmem__layers_in(&a->plan, a->attention, 0, a->layers)))
        return overflow("KV bytes per token");
    v[LLMMEM_SERVING_BYTES_PER_TOKEN] = most_bytes;
    if (!llmmem__mul(&v[LLMMEM_SERVING_BLOCK_BYTES], r->page, r->stage_group[r->binding]))
        return overflow("KV bytes per token");
    v[LLMMEM_SERVING_PAGE_BYTES] = r->page;
    v[LLMMEM_SERVING_NUM_BLOCKS] = r->pool.num_blocks;
    uint64_t groups = r->pool.full_groups + r->pool.sliding_groups + r->pool.state_groups;
    v[LLMMEM_SERVING_GROUPS] = groups;
    v[LLMMEM_SERVING_STATE_GROUPS] = r->pool.state_groups;
    v[LLMMEM_SERVING_LAYERS_PER_GROUP] = r->stage_group[r->binding];
    v[LLMMEM_SERVING_KV_HEADS_PER_RANK] = llmmem__kv_heads_per_rank(a, r->tp);
    v[LLMMEM_SERVING_LAYERS_PER_STAGE] = most_layers;
    v[LLMMEM_SERVING_BLOCK_SIZE] = r->pool.block;
    v[LLMMEM_SERVING_MAX_NUM_BATCHED_TOKENS] = r->pool.batched;
    v[LLMMEM_SERVING_MAX_NUM_SEQS] = seqs;
    v[LLMMEM_SERVING_MM_MAX_TOKENS_PER_ITEM] = mm.per_item;
    v[LLMMEM_SERVING_ENCODER_COMPUTE_BUDGET] = mm.compute;
    v[LLMMEM_SERVING_ENCODER_CACHE_SIZE] = mm.cache;
    v[LLMMEM_SERVING_MM_ITEMS_PER_BATCH] = mm.items;
    v[LLMMEM_SERVING_ENCODER_CACHE_BYTES] = mm.cache_bytes;
    v[LLMMEM_SERVING_ENCODER_PROFILE_BYTES] = mm.profile_bytes;
    v[LLMMEM_SERVING_ENGINE] = LLMMEM_ENGINE_VLLM;
    v[LLMMEM_SERVING_ENGINE_VERSION] = (uint64_t)rel->version;
    v[LLMMEM_SERVING_MEMORY_FRACTION_X10000] = llmmem__serving_x10000(util);
    v[LLMMEM_SERVING_FREE_BYTES] = memory;
    v[LLMMEM_SERVING_CUDA_GRAPH_SIZES] = sizes.count;
    v[LLMMEM_SERVING_CUDA_GRAPH_LARGEST] = sizes.largest;
    v[LLMMEM_SERVING_FULL_CUDA_GRAPHS] = sizes.full;
    v[LLMMEM_SERVING_FULL_CUDA_GRAPH_LARGEST] = sizes.full_largest;
    /* gpu_worker.py compile_or_warm_up_model: "The current --gpu-memory-utilization=U is equivalent to
     * --gpu-memory-utilization=U - estimate / total", four decimals */
    if (rel->estimate_graphs && best_graphs)
        v[LLMMEM_SERVING_EQUIVALENT_FRACTION_X10000] =
            llmmem__serving_x10000(util - (double)best_graphs / (double)memory);

    uint64_t lo;
    if ((st = llmmem__serving_longest(&lo, r)) != LLMMEM_OK)
        return st;
    v[LLMMEM_SERVING_MAX_MODEL_LEN] = lo;
    if (auto_len) {
        /* kv_cache_utils.py _auto_fit_max_model_len: the same search per worker, the smallest taken
         * (num_blocks already is); not one token: "does not fit even a single token" */
        if (lo == 0)
            return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "max_model_len auto (-1): the KV cache (%llu bytes) does not "
                                "hold a single token", (unsigned long long)r->stage_budget[r->binding]);
        r->max_model_len = lo;
        if (!set->request_tokens)
            request = lo;
        if ((st = llmmem__serving_check_request(r, request, "vLLM")) != LLMMEM_OK)
            return st;
    }
    v[LLMMEM_SERVING_MAX_MODEL_LEN_SETTING] = r->max_model_len;
    v[LLMMEM_SERVING_REQUEST_TOKENS] = request;

    /* kv_cache_utils.py get_max_concurrency_for_kv_cache_config, logged with "%.2fx" for max_model_len */
    if (!llmmem__kv_pool_blocks(&need, &r->pool, r->max_model_len))
        return overflow("blocks per request");
    double concurrency = (double)r->pool.num_blocks / (double)need;
    v[LLMMEM_SERVING_VLLM_CONCURRENCY_X100] = llmmem__serving_decimals(concurrency, 2);
    v[LLMMEM_SERVING_FITS] = need <= r->pool.num_blocks && r->pool.num_blocks > 0;
    if (rel->capacity_line) {
        /* kv_cache_utils.py get_kv_cache_capacity: int(max_concurrency * max_model_len) in Python floats */
        v[LLMMEM_SERVING_TOKENS] = (uint64_t)(concurrency * (double)r->max_model_len);
    } else {
        /* kv_cache_utils.py _report_kv_cache_config: "GPU KV cache size: num_blocks // groups * min_block_size",
         * the attention block or the mamba block (max_model_len) */
        uint64_t min_block = state && r->max_model_len < r->pool.block ? r->max_model_len : r->pool.block;
        v[LLMMEM_SERVING_TOKENS] = r->pool.num_blocks / groups * min_block;
    }

    if (!llmmem__kv_pool_blocks(&need, &r->pool, request))
        return overflow("blocks per request");
    v[LLMMEM_SERVING_BLOCKS_PER_REQUEST] = need;
    /* the same ratio for the length asked: what "Maximum concurrency" is for request_tokens */
    v[LLMMEM_SERVING_CONCURRENCY_X100] = llmmem__serving_decimals((double)r->pool.num_blocks / (double)need, 2);
    if ((st = llmmem__serving_requests(&v[LLMMEM_SERVING_MAX_CONCURRENCY], r, request)) != LLMMEM_OK)
        return st;
    if (!llmmem__kv_pool_waste(&v[LLMMEM_SERVING_WASTE_BYTES], &r->pool, request))
        return overflow("waste bytes");

    llmmem__serving_finish(r, model, in);
    return LLMMEM_OK;
}

/* ---- questions ------------------------------------------------------------------ */

llmmem_status llmmem__serving_longest(uint64_t *out, const llmmem_serving *r)
{
    /* kv_cache_utils.py estimate_max_model_len: the largest length whose blocks fit (binary search) */
    uint64_t lo = 0, hi = r->max_model_len, need;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if (!llmmem__kv_pool_blocks(&need, &r->pool, mid))
            return overflow("blocks per request");
        if (need <= r->pool.num_blocks)
            lo = mid;
        else
            hi = mid - 1;
    }
    *out = lo;
    return LLMMEM_OK;
}

llmmem_status llmmem__serving_requests(uint64_t *out, const llmmem_serving *r, uint64_t tokens)
{
    uint64_t n;
    if (!llmmem__kv_pool_requests(&n, &r->pool, tokens))
        return overflow("blocks of a request");
    if (r->swa_tokens) {
        /* SGLang's sliding-window pool keeps at most the window and a page of each sequence: the
         * admission floor of pool_configurator.py HybridSWAPoolConfigurator._solve_pool_sizes */
        uint64_t kept = r->swa_window + r->pool.block < tokens ? r->swa_window + r->pool.block : tokens, each;
        if (!llmmem__mul(&each, llmmem__ceil_div(kept, r->pool.block) * r->pool.block, r->pool.n))
            return overflow("sliding-window cells of a request");
        if (each && r->swa_tokens / each < n)
            n = r->swa_tokens / each;
    }
    if (r->seq_cap && r->seq_cap / r->pool.n < n) /* the engine runs at most seq_cap sequences */
        n = r->seq_cap / r->pool.n;
    if (r->state_cap && r->state_cap / r->pool.n < n) /* every sequence its own state slot */
        n = r->state_cap / r->pool.n;
    *out = tokens <= r->max_model_len ? n : 0;
    return LLMMEM_OK;
}

static llmmem_status require_valid(const llmmem_serving *r, const char *func)
{
    if (!r->valid)
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "%s: the serving result holds no estimate", func);
    return LLMMEM_OK;
}

static llmmem_status require_tokens(uint64_t tokens, const char *func)
{
    if (tokens == 0)
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "%s: tokens (0) must be at least 1", func);
    return LLMMEM_OK;
}

llmmem_status llmmem_serving_request_blocks(uint64_t *blocks_out, uint64_t *waste_bytes_out,
                                            const llmmem_serving *serving, uint64_t tokens)
{
    LLMMEM_REQUIRE(blocks_out);
    LLMMEM_REQUIRE(serving);
    llmmem_status st = require_valid(serving, __func__);
    if (st || (st = require_tokens(tokens, __func__)) != LLMMEM_OK)
        return st;
    uint64_t need, waste;
    if (!llmmem__kv_pool_blocks(&need, &serving->pool, tokens) || !llmmem__kv_pool_waste(&waste, &serving->pool, tokens))
        return overflow("blocks of a request");
    *blocks_out = need;
    if (waste_bytes_out)
        *waste_bytes_out = waste;
    return LLMMEM_OK;
}

llmmem_status llmmem_serving_fits_request(int *fits_out, const llmmem_serving *serving, uint64_t tokens)
{
    LLMMEM_REQUIRE(fits_out);
    LLMMEM_REQUIRE(serving);
    llmmem_status st = require_valid(serving, __func__);
    if (st || (st = require_tokens(tokens, __func__)) != LLMMEM_OK)
        return st;
    uint64_t need;
    if (!llmmem__kv_pool_blocks(&need, &serving->pool, tokens))
        return overflow("blocks of a request");
    /* vLLM refuses a request longer than max_model_len (v1/engine/input_processor.py) */
    *fits_out = tokens <= serving->max_model_len && need <= serving->pool.num_blocks;
    return LLMMEM_OK;
}

llmmem_status llmmem_serving_max_concurrency(uint64_t *requests_out, const llmmem_serving *serving, uint64_t tokens)
{
    LLMMEM_REQUIRE(requests_out);
    LLMMEM_REQUIRE(serving);
    llmmem_status st = require_valid(serving, __func__);
    if (st || (st = require_tokens(tokens, __func__)) != LLMMEM_OK)
        return st;
    if (serving->pool.prefix > tokens || serving->pool.prompt > tokens)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "%s (%llu) exceeds the request's tokens (%llu)",
                            serving->pool.prefix > tokens ? "shared_prefix_tokens" : "prompt_tokens",
                            (unsigned long long)(serving->pool.prefix > tokens ? serving->pool.prefix : serving->pool.prompt),
                            (unsigned long long)tokens);
    return llmmem__serving_requests(requests_out, serving, tokens);
}

llmmem_status llmmem_serving_max_model_len(uint64_t *tokens_out, const llmmem_serving *serving)
{
    LLMMEM_REQUIRE(tokens_out);
    LLMMEM_REQUIRE(serving);
    llmmem_status st = require_valid(serving, __func__);
    if (st)
        return st;
    *tokens_out = serving->v[LLMMEM_SERVING_MAX_MODEL_LEN];
    return LLMMEM_OK;
}

llmmem_status llmmem_serving_max_batch(uint64_t *sequences_out, const llmmem_serving *serving, uint64_t tokens)
{
    LLMMEM_REQUIRE(sequences_out);
    LLMMEM_REQUIRE(serving);
    llmmem_status st = require_valid(serving, __func__);
    if (st || (st = require_tokens(tokens, __func__)) != LLMMEM_OK)
        return st;
    if (serving->dtype == LLMMEM_KV_CACHE_FP8_DS_MLA)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED,
                            "kv_cache_dtype (fp8_ds_mla) is vLLM's paged MLA layout; a contiguous "
                            "(Hugging Face) cache stores decompressed keys and values");
    if (serving->pool.state_groups)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "the contiguous (Hugging Face) cache of Mamba-2 and Gated "
                            "DeltaNet layers is not modelled");
    if (serving->typed)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "the contiguous (Hugging Face) cache of a serving rank of gemma4's "
                            "layers is not modelled: llmmem_kv_cache_bytes models the whole model's");
    uint64_t best = UINT64_MAX;
    for (uint64_t stage = 0; stage < serving->pp; stage++) {
        uint64_t one;
        uint64_t sliding = serving->stage_hf_sliding[stage];
        uint64_t layers = serving->stage_full[stage] + serving->stage_sliding[stage];
        if (!llmmem__kv_contiguous_layers(&one, serving->contig_token_layer, layers - sliding, sliding, serving->pool.window, 1, tokens))
            return overflow("contiguous KV bytes of a sequence");
        uint64_t fit = one ? serving->stage_budget[stage] / one : UINT64_MAX;
        if (fit < best)
            best = fit;
    }
    *sequences_out = best;
    return LLMMEM_OK;
}

/* ---- direct questions on a model -------------------------------------------------- */

llmmem_status llmmem_kv_bytes_per_token(uint64_t *bytes_out, const llmmem_model *model, const llmmem_strategy *strategy)
{
    LLMMEM_REQUIRE(bytes_out);
    LLMMEM_REQUIRE(model);
    LLMMEM_REQUIRE(strategy);
    const llmmem__geometry *a = NULL;
    llmmem_status st = llmmem__kv_shape_with_state(&a, model);
    if (!st)
        st = llmmem__kv_refuse_cross(a, "vLLM's paged cache");
    if (!st)
        st = llmmem__kv_refuse_typed(a, "vLLM's paged cache", LLMMEM__KV_BLOCKS | LLMMEM__KV_TYPED);
    if (st)
        return st;
    /* kv_cache_dtype auto: the format vLLM serves the model in, as llmmem_serving_estimate holds it */
    llmmem__serve_inputs in;
    llmmem__serve_inputs_make(&in, model, NULL, strategy);
    const uint64_t tp = in.set.tp, pp = in.set.pp;
    if ((st = check_parallel(a, tp, pp)) != LLMMEM_OK || (st = llmmem__serve_kept(&in, in.served_status)) != LLMMEM_OK)
        return st;
    uint64_t token_layer = 0, full_layer = 0;
    const uint64_t attention = llmmem__layers_in(&a->plan, a->attention, 0, a->layers);
    const llmmem_kv_cache_dtype dtype = in.kv;
    if (attention && ((st = llmmem__kv_token_layer_bytes(&token_layer, a, dtype, tp, 0)) != LLMMEM_OK ||
                      (st = llmmem__kv_full_token_layer_bytes(&full_layer, a, dtype, tp, 0)) != LLMMEM_OK))
        return st;
    if (a->kv_token_global.heads || a->kv_shared_layers) {
        /* gemma4: each stage's sliding and full layers at their own widths, KV-shared layers none
         * (gpu_model_runner.py get_kv_cache_spec); the most loaded stage's */
        uint64_t most = 0;
        for (uint64_t stage = 0; stage < pp; stage++) {
            uint64_t first, end, x;
            stage_range(&first, &end, a->layers, pp, stage);
            uint64_t sliding = llmmem__sliding_layers(a, first, end);
            if (!llmmem__mul(&x, sliding, token_layer) ||
                !llmmem__muladd(&x, llmmem__layers_in(&a->plan, a->attention, first, end) - sliding, full_layer))
                return overflow("KV bytes per token");
            most = x > most ? x : most;
        }
        *bytes_out = most;
        return LLMMEM_OK;
    }
    /* the most loaded stage: get_pp_indices gives each stage layers // pp, some one more; a model
     * with Mamba-2 or Gated DeltaNet layers (one stage, check_parallel) caches tokens in its
     * attention layers alone, its state is per sequence (serving's state_bytes_per_sequence) */
    uint64_t most = attention < a->layers ? attention : a->layers / pp + (a->layers % pp != 0);
    if (!llmmem__mul(bytes_out, token_layer, most))
        return overflow("KV bytes per token");
    return LLMMEM_OK;
}

/* ---- JSON ---------------------------------------------------------------------- */

#define N_(a) (sizeof a / sizeof a[0])


static const llmmem_serving_value vllm_budget[] = {
    LLMMEM_SERVING_MEMORY_BYTES, LLMMEM_SERVING_REQUESTED_BYTES, LLMMEM_SERVING_WEIGHTS,
    LLMMEM_SERVING_ACTIVATION_PEAK, LLMMEM_SERVING_NON_TORCH, LLMMEM_SERVING_CUDA_GRAPH,
    LLMMEM_SERVING_KV_CACHE_BYTES, LLMMEM_SERVING_SHORTFALL, LLMMEM_SERVING_MEMORY_FRACTION_X10000};
static const llmmem_serving_value vllm_kv[] = {
    LLMMEM_SERVING_BYTES_PER_TOKEN, LLMMEM_SERVING_PAGE_BYTES, LLMMEM_SERVING_BLOCK_BYTES, LLMMEM_SERVING_NUM_BLOCKS,
    LLMMEM_SERVING_TOKENS, LLMMEM_SERVING_GROUPS, LLMMEM_SERVING_LAYERS_PER_GROUP, LLMMEM_SERVING_KV_HEADS_PER_RANK,
    LLMMEM_SERVING_LAYERS_PER_STAGE, LLMMEM_SERVING_BLOCK_SIZE, LLMMEM_SERVING_MAX_NUM_BATCHED_TOKENS,
    LLMMEM_SERVING_MAX_NUM_SEQS, LLMMEM_SERVING_MAX_MODEL_LEN_SETTING, LLMMEM_SERVING_MAX_MODEL_LEN,
    LLMMEM_SERVING_REQUEST_TOKENS, LLMMEM_SERVING_BLOCKS_PER_REQUEST, LLMMEM_SERVING_WASTE_BYTES,
    LLMMEM_SERVING_MAX_CONCURRENCY, LLMMEM_SERVING_VLLM_CONCURRENCY_X100, LLMMEM_SERVING_FITS,
    LLMMEM_SERVING_CONCURRENCY_X100};
static const llmmem_serving_value vllm_graphs[] = {
    LLMMEM_SERVING_CUDA_GRAPH_SIZES, LLMMEM_SERVING_CUDA_GRAPH_LARGEST, LLMMEM_SERVING_FULL_CUDA_GRAPHS,
    LLMMEM_SERVING_FULL_CUDA_GRAPH_LARGEST, LLMMEM_SERVING_EQUIVALENT_FRACTION_X10000};
static const llmmem_serving_value vllm_encoder[] = {
    LLMMEM_SERVING_MM_MAX_TOKENS_PER_ITEM, LLMMEM_SERVING_ENCODER_COMPUTE_BUDGET, LLMMEM_SERVING_ENCODER_CACHE_SIZE,
    LLMMEM_SERVING_MM_ITEMS_PER_BATCH, LLMMEM_SERVING_ENCODER_CACHE_BYTES, LLMMEM_SERVING_ENCODER_PROFILE_BYTES,
    LLMMEM_SERVING_STATE_PAGE_BYTES, LLMMEM_SERVING_STATE_BYTES_PER_SEQUENCE, LLMMEM_SERVING_STATE_GROUPS};
static const llmmem__json_section vllm_json[] = {
    {"budget", vllm_budget, N_(vllm_budget)}, {"kv", vllm_kv, N_(vllm_kv)},
    {"cuda_graphs", vllm_graphs, N_(vllm_graphs)}, {"encoder", vllm_encoder, N_(vllm_encoder)}};

const llmmem__engine_desc llmmem__vllm_engine = {LLMMEM_ENGINE_VLLM, "vLLM", vllm_serve, vllm_json,
                                                 N_(vllm_json), 0};
