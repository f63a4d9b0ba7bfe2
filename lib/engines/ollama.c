/*
 * ollama as it runs GGUF models since v0.30 (ollama/ollama 9db4bdbad6a4, PR 16031): its scheduler
 * resolves its options and starts upstream llama-server with them, and llama-server's --fit picks
 * the GPU layers. This file turns ollama's options and defaults into the llama.cpp settings that
 * llama-server receives; local.c runs the --fit search, llamacpp.c sizes the buffers.
 *
 * Sources are ollama/ollama at fb3076099687 (v0.33.0-rc2, 2026-08-21), cited as file@fb3076099687
 * followed by the function. What llama-server gets (llm/llama_server.go@fb3076099687 startLlamaServer):
 *   -c num_ctx x num_parallel, -np num_parallel, -b and -ub num_batch,
 *   --cache-type-k and --cache-type-v OLLAMA_KV_CACHE_TYPE (when set), --flash-attn auto|on|off,
 *   -ngl only when num_gpu >= 0, --split-mode none --main-gpu 0 when one GPU is picked.
 * It never passes --kv-unified or --fit-target (text models).
 * OLLAMA_GPU_OVERHEAD and ollama's 457 MiB per-GPU minimum (ml/device.go@fb3076099687
 * MinimumMemory) do not reach llama-server in this era. server/sched.go@fb3076099687 load only logs
 * them ("gpu memory"), so the margin each GPU keeps is llama.cpp's fit target, fit_margin_bytes.
 * OLLAMA_GPU_OVERHEAD still lowers the GPU memory that picks the default num_ctx (below).
 */
#include "readers/checkpoint.h"
#include "views/kv.h"
#include "engines/local.h"

#define MIB (1ULL << 20)
#define GIB (1ULL << 30)

/* The default num_ctx when neither the request, the Modelfile nor OLLAMA_CONTEXT_LENGTH sets one.
 * It is picked by the total memory of every GPU, less OLLAMA_GPU_OVERHEAD per GPU, measured once
 * at server start (server/routes.go@fb3076099687 Serve, since 0334ffa6250752c0 v0.15.5):
 *   >= 47 GiB: 262144;  >= 23 GiB: 32768;  otherwise 4096 (so 4096 without a GPU).
 * Go's unsigned subtraction would wrap for an overhead larger than the GPU; here it stops at 0. */
static uint64_t vram_tier_num_ctx(uint64_t memory, uint64_t gpus, uint64_t overhead)
{
    uint64_t each = memory > overhead ? memory - overhead : 0;
    uint64_t total = each * gpus; /* memory < 2^51 and gpus <= 1024: no overflow */
    if (total >= 47 * GIB)
        return 262144;
    if (total >= 23 * GIB)
        return 32768;
    return 4096;
}

/* Families that always get num_parallel 1 (server/sched.go@fb3076099687 load, issue 4165): mllama,
 * qwen3vl, qwen3vlmoe, qwen35, qwen35moe, qwen3next, lfm2, lfm2moe and nemotron_h*. Only those
 * with a model_type here are listed. */
static int single_sequence_family(const llmmem_model *m)
{
    switch (llmmem__model_value(m, LLMMEM_KEY_MODEL_TYPE)) {
    case LLMMEM_MODEL_MLLAMA:
    case LLMMEM_MODEL_QWEN3_VL:
    case LLMMEM_MODEL_QWEN3_VL_MOE:
    case LLMMEM_MODEL_QWEN3_NEXT:
    case LLMMEM_MODEL_NEMOTRON_H:
        return 1;
    default:
        return 0;
    }
}

/* ollama's own VRAM prediction, used to choose GPUs and the batch, never layers
 * (llm/llama_server.go@fb3076099687 PredictServerVRAM): the GGUF file's size plus an f16 KV cache
 * of 2 x block_count x head_count_kv (its minimum over layers, at least 1) x n_embd / n_head x ctx x
 * 2 bytes. It has no compute buffer, no sliding window and no MLA. The file size here is the sum of
 * the GGUF's tensor bytes (the header and metadata are left out). Without a GGUF it is the
 * inventory's weights in the strategy's weight_format. In a hybrid model's GGUF, head_count_kv is
 * an array that is 0 at the recurrent layers, so its minimum is taken as 1. */
static llmmem_status predict_server_vram(uint64_t *out, const llmmem__geometry *a, llmmem__llama_job *j, uint64_t ctx)
{
    uint64_t weights = 0;
    if (j->ck) {
        weights = j->ck->total_bytes;
    } else {
        const llmmem__rank_weights *w;
        llmmem_status st = llmmem__llama_weights(&w, j);
        if (st || (st = llmmem__rank_weights_sum(&weights, w, 0, a->layers, 1, 1, -1)) != LLMMEM_OK)
            return st;
    }
    int layers_without_attention = a->ssm_layers + a->linear_layers + a->mamba1_layers > 0 && !a->parallel_ssm;
    uint64_t kv_heads = a->kv_heads && !layers_without_attention ? a->kv_heads : 1;
    uint64_t head_dim = a->heads ? a->hidden / a->heads : 0;
    uint64_t kv = 4 * a->layers, sum;
    if (!llmmem__mul(&kv, kv, kv_heads) || !llmmem__mul(&kv, kv, head_dim) || !llmmem__mul(&kv, kv, ctx) ||
        !llmmem__add(&sum, weights, kv))
        return llmmem__fail(LLMMEM_ERR_OVERFLOW, "ollama's VRAM prediction for a context of %llu exceeds 64 bits",
                            (unsigned long long)ctx);
    *out = sum;
    return LLMMEM_OK;
}

/* The batch surcharge the scheduler adds to a prediction, and whether a larger batch leaves room
 * (server/sched.go@fb3076099687 generationBatchSurcharge, generationBatchFits,
 * generationBatchHasHeadroom): the prediction within 80% of the available memory, within 75% (1024)
 * or 60% (2048) of it, and the surcharge (768 MiB, 2 GiB) within what the 80% leaves. */
static uint64_t batch_surcharge(uint64_t batch)
{
    return batch >= 2048 ? 2 * GIB : batch >= 1024 ? 768 * MIB : 0;
}

static int batch_fits(uint64_t batch, uint64_t predicted, uint64_t available)
{
    if (predicted == 0 || available == 0)
        return 1;
    uint64_t threshold = available * 80 / 100; /* available < 2^61 */
    if (predicted > threshold)
        return 0;
    if (batch >= 2048 && predicted > available * 60 / 100)
        return 0;
    if (batch >= 1024 && batch < 2048 && predicted > available * 75 / 100)
        return 0;
    return batch_surcharge(batch) <= threshold - predicted;
}

/* num_batch when the user sets none (server/sched.go@fb3076099687 automaticGenerationBatch,
 * generationBatchForContext, constrainedCUDAWithoutFlashAttention). With flash attention off on
 * CUDA the batch is 512, or 256 when the context is over 4096 and a GPU has at most 8 GiB free.
 * Otherwise the context chooses: 512 up to 4096 tokens, 1024 over 4096, 2048 over 32768. It steps
 * down (2048, 1024, 512) while the prediction leaves no room for the larger batch; with no GPU
 * memory to compare (no GPU) it does not step down. */
static uint64_t automatic_batch(uint64_t ctx, int cuda_without_flash_attn, uint64_t gpu_free, uint64_t predicted,
                                uint64_t available)
{
    if (cuda_without_flash_attn)
        return ctx > 4096 && gpu_free > 0 && gpu_free <= 8 * GIB ? 256 : 512;
    uint64_t batch = ctx > 32768 ? 2048 : ctx > 4096 ? 1024 : 512;
    while (batch > 512 && !batch_fits(batch, predicted, available))
        batch = batch > 1024 ? 1024 : 512;
    return batch;
}

llmmem_status llmmem__ollama_settings(llmmem__llama_job *j)
{
    llmmem__llama_settings *out = &j->in->ls;
    const llmmem_model *m = j->m;
    const llmmem__geometry *a = NULL;
    llmmem_status st = llmmem__kv_shape_with_state(&a, m);
    if (!st)
        st = llmmem__kv_refuse_typed(a, "ollama's KV cache", 0);
    if (st)
        return st;
    uint64_t devices = j->in->dev.gpus; /* backend cpu: ollama discovers no GPU */
    uint64_t memory = j->in->dev.memory;
    uint64_t runtime = j->in->dev.overhead;
    /* what a GPU reports free before the model loads: its memory less what the runtime holds */
    uint64_t gpu_free = devices && memory > runtime ? memory - runtime : 0;

    /* num_ctx: 0 is the VRAM tier (server/routes.go@fb3076099687 modelOptionsWithEmbeddingBatchDefault
     * and Serve); at least 4 (server/sched.go@fb3076099687 getRunner); then capped at the model's
     * training context (llm/server.go@fb3076099687 NewLlamaServer, "requested context size too large
     * for model"; server/sched.go@fb3076099687 effectiveContext) */
    uint64_t num_ctx = j->in->ollama.num_ctx;
    if (num_ctx == 0)
        num_ctx = vram_tier_num_ctx(memory, devices, j->in->ollama.gpu_overhead);
    if (num_ctx < 4)
        num_ctx = 4;
    uint64_t n_ctx_train = (uint64_t)llmmem__model_value(m, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS);
    if (n_ctx_train && num_ctx > n_ctx_train)
        num_ctx = n_ctx_train;

    /* num_parallel: OLLAMA_NUM_PARALLEL, default 1 since v0.9.7 (20c3266e943f), forced to 1 for
     * some families (server/sched.go@fb3076099687 load) */
    uint64_t parallel = j->in->ollama.num_parallel;
    if (single_sequence_family(m))
        parallel = 1;

    /* -c num_ctx x num_parallel, -np num_parallel (llm/llama_server.go@fb3076099687 startLlamaServer).
     * There is no --kv-unified: because -np is given, llama-server keeps kv_unified off. Its
     * 4-slot unified default applies only when -np is absent (llama.cpp tools/server/server.cpp). So
     * each sequence has its own stream of num_ctx cells. Only the kv_unified key (LLAMA_ARG_KV_UNIFIED
     * in ollama's environment) unifies them; n_parallel's auto (-1) never applies. */
    uint64_t n_ctx = num_ctx * parallel; /* both at most 2^31 by their keys */
    if (n_ctx > j->in->ollama.n_ctx_max) /* llama-server reads -c as an int */
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "num_ctx (%llu) x num_parallel (%llu) is %llu, but llama-server "
                            "reads its -c as an int (at most %lld)", (unsigned long long)num_ctx,
                            (unsigned long long)parallel, (unsigned long long)n_ctx,
                            (long long)j->in->ollama.n_ctx_max);
    out->n_ctx = n_ctx;
    out->n_seq_max = parallel;
    out->kv_unified = j->in->ollama.kv_unified;

    /* The prediction is made for the context the runner gets (server/sched.go@fb3076099687
     * effectiveLlamaServerContext). */
    uint64_t predicted = 0;
    if ((st = predict_server_vram(&predicted, a, j, n_ctx)) != LLMMEM_OK)
        return st;

    /* num_gpu: -ngl N when N >= 0; with -1 no -ngl, and llama-server --fit picks the layers
     * (llm/llama_server.go@fb3076099687 startLlamaServer). fit gives up and keeps every layer when
     * the user already set tensor_split or tensor overrides such as --n-cpu-moe (llama.cpp
     * common/fit.cpp common_params_fit_impl: "already set by user, abort"). */
    int64_t num_gpu = j->in->ollama.num_gpu;
    out->n_gpu_layers = num_gpu;
    out->fit = num_gpu < 0 && out->n_split == 0 && out->n_cpu_moe == 0;

    /* Placement with several GPUs and no OLLAMA_SCHED_SPREAD: if the prediction is within 80% of
     * one GPU's free memory, that GPU runs the model alone (--split-mode none --main-gpu 0).
     * Otherwise llama-server gets them all (server/sched.go@fb3076099687 selectLlamaServerPlacement,
     * bestSingleGPUFit). A split_mode the user sets is ollama's main_gpu option and is kept. */
    uint64_t available = gpu_free * devices; /* < 2^61 */
    if (devices > 1 && num_gpu != 0 && !j->in->ollama.sched_spread &&
        !j->in->ollama.split_mode_set && predicted <= gpu_free * 80 / 100) {
        out->split_mode = LLMMEM_SPLIT_MODE_NONE;
        out->main_gpu = 0;
    }
    if (out->split_mode == LLMMEM_SPLIT_MODE_NONE)
        available = gpu_free; /* availableMemoryForPlacement: the one GPU's */

    /* -b N -ub N: the physical batch equals the logical one (llm/llama_server.go@fb3076099687
     * appendBatchArgs). N is num_batch when set, else ollama's automatic choice (completion models;
     * embedding models are not modelled). flash_attn is OLLAMA_FLASH_ATTENTION: unset gives
     * --flash-attn auto (llm/llama_server.go@fb3076099687 LlamaServerFlashAttention), and the key
     * keeps llama.cpp's meaning. The cache types are OLLAMA_KV_CACHE_TYPE, passed to llama-server
     * for K and V alike whether or not flash attention runs. llama.cpp then refuses a quantized V
     * cache without it (llamacpp.c). */
    uint64_t batch = j->in->ollama.num_batch;
    if (batch == 0)
        batch = automatic_batch(n_ctx, j->in->dev.backend == LLMMEM_BACKEND_CUDA && devices &&
                                           j->in->ollama.flash_attn == 1,
                                gpu_free, predicted, available);
    out->n_batch = batch;
    out->n_ubatch = batch;
    return LLMMEM_OK;
}
