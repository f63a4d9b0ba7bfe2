/*
 * llama.cpp --split-mode tensor: the selected GPUs become one meta device
 * (src/llama.cpp llama_prepare_model_devices, ggml_backend_meta_device), so the layers are placed as
 * on one GPU, and every tensor of the meta device is then split across the GPUs or mirrored on each
 * (src/llama-model.cpp llama_meta_device_get_split_state):
 *   - attention (attn_q/k/v/qkv/gate on their output rows, attn_output on its inputs) and the KV
 *     cache (cache_k_l, cache_v_l on axis 0: every GPU holds all cells of its share of the heads) in
 *     whole groups of g_kv rows: g_q = lcm(n_gqa x head_dim, blck_perf) with blck_perf the block of
 *     attn_output's type doubled while below 128 and blck_perf x n_devices < n_gqa x head_dim,
 *     g_kv = g_q / n_gqa;
 *   - feed-forward (up/gate on their rows, down on its inputs, experts alike) in groups of
 *     lcm(block of ffn_down, 128); output.weight on the vocabulary in groups of its own block;
 *   - everything else (norms, routers, a tied embedding used as the head) mirrored: a full copy on
 *     every GPU; token_embd stays on the CPU.
 * A split of ne rows: device (j + rotation) mod n ends at ne x scan_j / scan_last (tensor_split
 * proportions, float; even: ne x (j + 1) / n), rounded down to the granularity, the last device taking
 * the rest; the rotation is the layer's index among the layers of its kind, modulo n. The meta
 * device's compute buffer is allocated whole on every GPU (ggml-backend-meta.cpp; llama.cpp#23937).
 * Model, KV and compute buffers per GPU follow; the recurrent state of Gated DeltaNet layers is split
 * evenly (its heads divided by n), and an uneven tensor_split is modelled for models without
 * recurrent or sliding-window layers. No allocation, no I/O.
 */
#include <stdio.h>
#include <string.h>

#include "readers/checkpoint.h"
#include "job/job.h"
#include "engines/local.h"
#include "views/weights.h"

#define META_MAX_DEVICES 16 /* ggml-backend-meta.cpp GGML_BACKEND_META_MAX_DEVICES */

typedef struct splitter {
    size_t n;
    int proportional;            /* tensor_split given */
    float ts[LLMMEM__LOCAL_GPUS];
} splitter;

/* What kind of split a tensor takes: its ne and granularity. */
typedef enum { PART_MIRRORED, PART_ATTENTION, PART_FFN, PART_VOCAB, PART_STATE } part;

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static uint64_t lcm(uint64_t a, uint64_t b)
{
    return a / gcd(a, b) * b; /* n_embd_q below 2^44 (heads x head_dim), a block below 2^9: below 2^53 */
}

/* Rows of a dimension of ne elements each device gets (llama_meta_device_get_split_state). */
static void split_rows(uint64_t *rows, const splitter *sp, uint64_t ne, uint64_t g, uint64_t rotation)
{
    float total = 0.0f, scan = 0.0f;
    for (size_t i = 0; i < sp->n; i++)
        total += sp->ts[i];
    uint64_t prev = 0;
    for (size_t j = 0; j < sp->n; j++) {
        size_t dev = (j + rotation) % sp->n;
        if (j + 1 == sp->n) {
            rows[dev] = ne - prev;
            break;
        }
        uint64_t high;
        if (sp->proportional) {
            scan += sp->ts[dev];
            high = (uint64_t)((float)ne * scan / total);
        } else {
            high = ne * (j + 1) / sp->n;
        }
        high -= high % g;
        if (high < prev)
            high = prev;
        rows[dev] = high - prev;
        prev = high;
    }
}

/* g_kv and g_q of the attention, from the block of attn_output's type (get_split_granularity). */
static void attention_granularity(uint64_t *g_q, uint64_t *g_kv, const llmmem__geometry *a, uint64_t blck, size_t n)
{
    uint64_t n_gqa = a->heads / a->kv_heads, n_embd_q = n_gqa * a->head_dim, perf = blck;
    while (perf < 128 && perf * n < n_embd_q)
        perf *= 2;
    *g_q = lcm(n_embd_q, perf);
    *g_kv = *g_q / n_gqa;
}

/* Sum over `layers` consecutive layers of a kind, the first of rotation `rotation`, of the rows each
 * device gets. */
static void rows_over_layers(uint64_t *sum, const splitter *sp, uint64_t ne, uint64_t g, uint64_t layers,
                             uint64_t rotation)
{
    uint64_t rows[LLMMEM__LOCAL_GPUS];
    memset(sum, 0, sp->n * sizeof *sum);
    for (uint64_t r = 0; r < sp->n && r < layers; r++) {
        split_rows(rows, sp, ne, g, (rotation + r) % sp->n);
        uint64_t times = layers / sp->n + (r < layers % sp->n);
        for (size_t d = 0; d < sp->n; d++)
            sum[d] += rows[d] * times; /* at most ne x layers: the meta KV buffer's checked product is larger */
    }
}

/* The split of a class by its parameter group: attention projections and their biases by KV-head
 * groups, feed-forwards and experts by their width, the head by the vocabulary, Gated DeltaNet
 * mixers by their value heads; norms, routers and the rest mirrored. */
static part class_part(const llmmem__tensor_class *t)
{
    switch (t->group) {
    case LLMMEM_PARAMS_ATTENTION: return PART_ATTENTION;
    case LLMMEM_PARAMS_MLP:
    case LLMMEM_PARAMS_EXPERTS:
    case LLMMEM_PARAMS_SHARED_EXPERTS: return PART_FFN;
    case LLMMEM_PARAMS_LM_HEAD: return PART_VOCAB;
    case LLMMEM_PARAMS_SSM: return PART_STATE;
    default: return PART_MIRRORED;
    }
}

/* Bytes of a split part on each device: `bytes` of `layers` alike layers (0: one tensor outside
 * them), each device holding rows/ne of each layer's, the rotation starting at `rotation` (the first
 * layer's index among the layers of its kind; n_layer for a tensor outside the layers) and advancing
 * with the layer. */
static int share_bytes(uint64_t *out, const splitter *sp, uint64_t bytes, uint64_t ne, uint64_t g, uint64_t layers,
                       uint64_t rotation)
{
    uint64_t rows[LLMMEM__LOCAL_GPUS], n_layers = layers ? layers : 1, per = bytes / n_layers;
    for (uint64_t r = 0; r < sp->n && r < n_layers; r++) {
        split_rows(rows, sp, ne, g, (rotation + r) % sp->n);
        uint64_t times = n_layers / sp->n + (r < n_layers % sp->n), x;
        for (size_t d = 0; d < sp->n; d++) {
            /* per x rows / ne; the remainder's product in 128 bits: an attention row of kv_heads x head_dim
             * passes 2^32 within the key bounds (head_dim 2^24), and its square 2^64 */
            __extension__ const uint64_t rest = (uint64_t)((unsigned __int128)(per % ne) * rows[d] / ne);
            if (!llmmem__mul(&x, per / ne, rows[d]) || !llmmem__add(&x, x, rest) ||
                !llmmem__mul(&x, x, times) || !llmmem__add(&out[d], out[d], x))
                return 0;
        }
    }
    return 1;
}

/* The block of the format a class's matrices are stored in under the weight plan (weights.c's rule:
 * the weight format, unless it reaches the experts alone or the head is left unquantized). */
static uint64_t plan_block(const llmmem__weight_plan *plan, int group)
{
    int quantized = group == LLMMEM_PARAMS_LM_HEAD ? plan->quantize_lm_head != 0
                    : plan->experts_only           ? group == LLMMEM_PARAMS_EXPERTS
                                                   : 1;
    return llmmem__format_block_elements(quantized ? plan->weight : plan->high);
}

/* The weights of the meta device split per GPU, from the inventory in the strategy's formats: the
 * classes on the GPU layers [first, n_layer) and, with `output`, the final norm and head. */
static llmmem_status inventory_split(uint64_t *model, const llmmem_model *m, const llmmem__weight_plan *wp,
                                     const splitter *sp, uint64_t first, int output)
{
    const llmmem__geometry *a = &m->geo;
    llmmem_status st;
    uint64_t g_q, g_kv;
    attention_granularity(&g_q, &g_kv, a, plan_block(wp, LLMMEM_PARAMS_ATTENTION), sp->n);
    for (unsigned i = 0; i < m->inv.n; i++) {
        const llmmem__tensor_class *t = &m->inv.t[i];
        llmmem__inventory one;
        one.n = 1;
        memset(one.by_role, -1, sizeof one.by_role);
        one.t[0] = *t;
        uint64_t layers = 0, rotation = a->layers; /* outside the layers: n_layer */
        if (t->kinds) {
            rotation = llmmem__class_layers(a, t, 0, first);
            uint64_t all = llmmem__class_layers(a, t, 0, a->layers);
            layers = llmmem__class_layers(a, t, first, a->layers);
            one.t[0].count = all ? t->count / all * layers : 0;
        } else {
            /* outside the layers: the embedding stays on the CPU, the head and final norm go with the
             * output layer; a tied head is the embedding mirrored onto the GPUs */
            int head = t->split == LLMMEM_SPLIT_VOCAB && t->group != LLMMEM_PARAMS_EMBEDDING;
            int tied_head = t->group == LLMMEM_PARAMS_EMBEDDING && llmmem__model_value(m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS);
            int final_norm = t->role == LLMMEM_ROLE_FINAL_NORM;
            one.t[0].count = output && (head || tied_head || final_norm) ? t->count : 0;
            if (tied_head)
                one.t[0].split = LLMMEM_SPLIT_REPLICATED;
        }
        if (one.t[0].count == 0)
            continue;
        one.t[0].active_count = one.t[0].count;
        llmmem__view v = {&one, first, a->layers};
        uint64_t bytes;
        if ((st = llmmem__view_weight_bytes(&bytes, &v, wp)) != LLMMEM_OK)
            return st;
        part pt = one.t[0].split == LLMMEM_SPLIT_REPLICATED && t->group != LLMMEM_PARAMS_ATTENTION
                      ? PART_MIRRORED : class_part(t);
        int ok = 1;
        if (pt == PART_MIRRORED) {
            for (size_t d = 0; d < sp->n; d++)
                model[d] += bytes;
        } else if (pt == PART_ATTENTION) {
            /* q, k, v and o split alike by KV-head groups: the share of the KV rows */
            ok = share_bytes(model, sp, bytes, a->kv_heads * a->head_dim, g_kv, layers, rotation);
        } else if (pt == PART_FFN) {
            uint64_t width = t->group == LLMMEM_PARAMS_EXPERTS          ? a->ffn_expert
                             : t->group == LLMMEM_PARAMS_SHARED_EXPERTS ? a->ffn_shared
                                                                        : a->ffn;
            ok = share_bytes(model, sp, bytes, width, lcm(plan_block(wp, t->group), 128), layers, rotation);
        } else if (pt == PART_STATE) {
            ok = share_bytes(model, sp, bytes, a->gdn_v_heads, 1, layers, rotation); /* even: checked divisible */
        } else {
            ok = share_bytes(model, sp, bytes, a->vocab, plan_block(wp, LLMMEM_PARAMS_LM_HEAD), 0, rotation);
        }
        if (!ok)
            return llmmem__fail(LLMMEM_ERR_OVERFLOW, "the weights of a GPU exceed 64 bits");
    }
    return LLMMEM_OK;
}

/* The same for a GGUF's tensors by name (each with its own type's block). */
static llmmem_status gguf_split(uint64_t *model, const struct llmmem_checkpoint *ck, const llmmem__geometry *a,
                                const splitter *sp, uint64_t first, int output)
{
    uint64_t attn_blck = 1, ffn_blck = 1, has_output = 0, embd = 0;
    for (size_t i = 0; i < ck->n_tensors; i++) { /* the reference tensors' blocks */
        const char *name = ck->tensors[i].name;
        if (strstr(name, ".attn_output.weight"))
            attn_blck = llmmem__ggml_block_of(ck->tensors[i].dtype);
        else if (strstr(name, ".ffn_down"))
            ffn_blck = llmmem__ggml_block_of(ck->tensors[i].dtype);
        has_output |= strcmp(name, "output.weight") == 0;
    }
    uint64_t g_q, g_kv;
    attention_granularity(&g_q, &g_kv, a, attn_blck, sp->n);
    int ok = 1;
    for (size_t i = 0; i < ck->n_tensors && ok; i++) {
        const llmmem__ck_tensor *t = &ck->tensors[i];
        uint64_t il = 0;
        if (sscanf(t->name, "blk.%llu.", (unsigned long long *)&il) == 1) {
            if (il < first || il >= a->layers)
                continue;
            const char *leaf = strchr(t->name + 4, '.') + 1;
            int attn = strncmp(leaf, "attn_q.", 7) == 0 || strncmp(leaf, "attn_k.", 7) == 0 ||
                       strncmp(leaf, "attn_v.", 7) == 0 || strncmp(leaf, "attn_qkv.", 9) == 0 ||
                       strncmp(leaf, "attn_output.", 12) == 0 || strncmp(leaf, "attn_gate.", 10) == 0;
            int ffn = strncmp(leaf, "ffn_up", 6) == 0 || strncmp(leaf, "ffn_gate", 8) == 0 ||
                      strncmp(leaf, "ffn_down", 8) == 0;
            if (strncmp(leaf, "ffn_gate_inp", 12) == 0 || strstr(leaf, ".bias") || strstr(leaf, "_norm"))
                attn = ffn = 0; /* the router, biases and norms: mirrored (their split is negligible) */
            uint64_t one[LLMMEM__LOCAL_GPUS] = {0};
            /* the layer's index among the layers of its kind: attention layers of the same window kind */
            int swa = llmmem__sliding_layers(a, il, il + 1) != 0;
            uint64_t below = llmmem__sliding_layers(a, 0, il);
            uint64_t rotation = swa ? below : llmmem__layers_in(&a->plan, a->attention, 0, il) - below;
            if (attn)
                ok = share_bytes(one, sp, t->bytes, a->kv_heads * a->head_dim, g_kv, 1, rotation);
            else if (ffn)
                ok = share_bytes(one, sp, t->bytes, strstr(leaf, "_exps") ? a->ffn_expert :
                                 strstr(leaf, "_shexp") ? a->ffn_shared : a->ffn, lcm(ffn_blck, 128), 1, il);
            for (size_t d = 0; d < sp->n; d++)
                model[d] += attn || ffn ? one[d] : t->bytes;
        } else if (output && strcmp(t->name, "output.weight") == 0) {
            ok = share_bytes(model, sp, t->bytes, a->vocab, llmmem__ggml_block_of(t->dtype), 0, a->layers);
        } else if (output && strncmp(t->name, "output_norm.", 12) == 0) {
            for (size_t d = 0; d < sp->n; d++)
                model[d] += t->bytes;
        } else if (strcmp(t->name, "token_embd.weight") == 0) {
            embd = t->bytes;
        }
    }
    if (output && !has_output) /* the embedding duplicated as the head, mirrored */
        for (size_t d = 0; d < sp->n; d++)
            model[d] += embd;
    return ok ? LLMMEM_OK : llmmem__fail(LLMMEM_ERR_OVERFLOW, "the GGUF's tensor bytes exceed 64 bits");
}

llmmem_status llmmem__llama_tensor_buffers(struct llmmem_local *out, llmmem__llama_job *j)
{
    const llmmem_model *m = j->m;
    const struct llmmem_checkpoint *ck = j->ck;
    const llmmem__llama_settings *ls = &j->in->ls;
    const llmmem__geometry *a = &m->geo;
    uint64_t gpus = j->in->dev.gpus;
    if (gpus == 0)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "split_mode tensor splits across GPUs; the hardware has none");
    if (gpus > META_MAX_DEVICES)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "split_mode tensor takes at most %d GPUs "
                            "(GGML_BACKEND_META_MAX_DEVICES); devices_per_node is %llu", META_MAX_DEVICES,
                            (unsigned long long)gpus);
    if (!ls->flash_attn) /* docs/multi-gpu.md: "SPLIT_MODE_TENSOR requires flash_attn to be enabled" */
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "split_mode tensor needs flash attention: llama.cpp refuses "
                            "it with flash_attn off");
    /* src/llama-model.cpp llm_arch_supports_sm_tensor: MLA architectures (DeepSeek2, GLM-DSA, MiniCPM3,
     * Kimi-Linear, ...) and Mamba, Mamba-2, Jamba, Falcon-H1, Nemotron-H and Granite-Hybrid are refused */
    if (a->kv_lora_rank || a->ssm_layers || a->mamba1_layers)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "LLAMA_SPLIT_MODE_TENSOR not implemented for this architecture "
                            "(%s): llama.cpp refuses it", a->kv_lora_rank ? "multi-head latent attention" :
                                                          "Mamba layers");
    splitter sp = {(size_t)gpus, ls->n_split > 0, {0}};
    if (ls->n_split > gpus)
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "tensor_split has %zu values for %llu GPUs (devices_per_node)",
                            ls->n_split, (unsigned long long)gpus);
    int uneven = 0;
    float total = 0.0f;
    for (size_t d = 0; d < sp.n; d++) {
        sp.ts[d] = d < ls->n_split ? (float)ls->split[d] : 0.0f;
        total += sp.ts[d];
        uneven |= sp.proportional && sp.ts[d] != sp.ts[0];
    }
    if (sp.proportional && total == 0.0f)
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "tensor_split gives every GPU 0");
    uint64_t sliding = llmmem__sliding_layers(a, 0, a->layers);
    if (uneven && (a->linear_layers || sliding))
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "an uneven tensor_split under split_mode tensor is modelled for "
                            "models without Gated DeltaNet or sliding-window layers");
    if (a->linear_layers && a->gdn_v_heads % gpus)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "split_mode tensor over %llu GPUs: the recurrent state's %llu value "
                            "heads do not divide evenly (not modelled)", (unsigned long long)gpus,
                            (unsigned long long)a->gdn_v_heads);

    /* the meta device is one device: every buffer as on one GPU */
    llmmem__llama_settings one = *ls;
    one.split_mode = LLMMEM_SPLIT_MODE_NONE;
    one.main_gpu = 0;
    one.n_split = 0;
    llmmem_status st = llmmem__llama_buffers(out, j, &one);
    if (st)
        return st;
    const size_t meta = 0, host = 1;
    uint64_t meta_bytes[LLMMEM__LOCAL_BUFFERS], host_bytes[LLMMEM__LOCAL_BUFFERS];
    memcpy(meta_bytes, out->bytes[meta], sizeof meta_bytes);
    memcpy(host_bytes, out->bytes[host], sizeof host_bytes);
    uint64_t gpu_layers = out->layers[meta], host_layers = out->layers[host];
    uint64_t first = a->layers - gpu_layers;
    int output = out->v[LLMMEM_LOCAL_N_GPU_LAYERS] == a->layers + 1;

    uint64_t model[LLMMEM__LOCAL_GPUS] = {0}, kv[LLMMEM__LOCAL_GPUS] = {0};
    const llmmem__rank_weights *w;
    if (gpu_layers || output) {
        if (ck)
            st = gguf_split(model, ck, a, &sp, first, output);
        else if ((st = llmmem__llama_weights(&w, j)) == LLMMEM_OK)
            st = inventory_split(model, m, &w->plan, &sp, first, output);
        if (st)
            return st;
    }
    /* the KV cache of the GPU layers, split on its rows (cache_k_l / cache_v_l axis 0, the reference
     * attn_output's granularity); with offload_kqv off it stays on the host as one buffer */
    if (ls->offload_kqv && meta_bytes[LLMMEM_LOCAL_KV]) {
        if ((st = llmmem__llama_weights(&w, j)) != LLMMEM_OK)
            return st;
        uint64_t blck = plan_block(&w->plan, LLMMEM_PARAMS_ATTENTION), g_q, g_kv;
        if (ck)
            for (size_t i = 0; i < ck->n_tensors; i++)
                if (strstr(ck->tensors[i].name, ".attn_output.weight"))
                    blck = llmmem__ggml_block_of(ck->tensors[i].dtype);
        attention_granularity(&g_q, &g_kv, a, blck, sp.n);
        uint64_t head_v = a->v_head_dim ? a->v_head_dim : a->head_dim;
        uint64_t full = llmmem__layers_in(&a->plan, a->attention, first, a->layers) -
                        llmmem__sliding_layers(a, first, a->layers);
        uint64_t swa = llmmem__sliding_layers(a, first, a->layers);
        uint64_t streams = out->v[LLMMEM_LOCAL_N_STREAMS];
        uint64_t swa_below = llmmem__sliding_layers(a, 0, first);
        uint64_t full_below = llmmem__layers_in(&a->plan, a->attention, 0, first) - swa_below;
        for (int kind = 0; kind < 2; kind++) { /* full-attention layers, then sliding ones: each kind rotates alone */
            uint64_t layers = kind ? swa : full, cells = kind ? out->v[LLMMEM_LOCAL_KV_SIZE_SWA] : out->v[LLMMEM_LOCAL_KV_SIZE];
            if (!layers)
                continue;
            uint64_t rk[LLMMEM__LOCAL_GPUS], rv[LLMMEM__LOCAL_GPUS], rot = kind ? swa_below : full_below;
            rows_over_layers(rk, &sp, a->kv_heads * a->head_dim, g_kv, layers, rot);
            rows_over_layers(rv, &sp, a->kv_heads * head_v, g_kv / a->head_dim * head_v, layers, rot);
            for (size_t d = 0; d < sp.n; d++) {
                /* rk sums rows over the layers: a whole number of blocks of the cache type per layer */
                uint64_t bytes = llmmem__ggml_row_bytes(ls->type_k, rk[d]) + llmmem__ggml_row_bytes(ls->type_v, rv[d]);
                uint64_t x;
                if (!llmmem__mul(&x, bytes, cells) || !llmmem__mul(&x, x, streams) || !llmmem__add(&kv[d], kv[d], x))
                    return llmmem__fail(LLMMEM_ERR_OVERFLOW, "the KV buffer of a GPU exceeds 64 bits");
            }
        }
    }

    out->devices = sp.n + 1;
    for (size_t d = 0; d < sp.n; d++) {
        llmmem__ggml_device_name(out->device_name[d], sizeof out->device_name[d], j->in->dev.prefix, (unsigned)(d % 100));
        out->bytes[d][LLMMEM_LOCAL_MODEL] = model[d];
        out->bytes[d][LLMMEM_LOCAL_KV] = kv[d]; /* offload_kqv off: the meta layout put it on the host */
        out->bytes[d][LLMMEM_LOCAL_RECURRENT] = meta_bytes[LLMMEM_LOCAL_RECURRENT] / sp.n;
        out->bytes[d][LLMMEM_LOCAL_COMPUTE] = meta_bytes[LLMMEM_LOCAL_COMPUTE]; /* whole on every GPU */
        out->bytes[d][LLMMEM_LOCAL_OUTPUT] = 0;
        out->layers[d] = gpu_layers;
    }
    memcpy(out->device_name[sp.n], "CPU", 4);
    memcpy(out->bytes[sp.n], host_bytes, sizeof host_bytes);
    out->layers[sp.n] = host_layers;
    out->v[LLMMEM_LOCAL_GPUS] = sp.n;
    return LLMMEM_OK;
}
