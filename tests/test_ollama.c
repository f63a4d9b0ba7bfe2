/* Engine ollama: ollama v0.30+ (llama-server underneath) resolved into llama.cpp's settings, every
 * expected number derived by hand from ollama/ollama fb3076099687 (lib/engines/ollama.c names the functions)
 * and the model's shapes.
 *
 * Llama-3.1-8B (preset llama-3.1-8b, bf16): 32 layers, 8 KV heads x 128, f16 cache: K and V rows
 * of 1024 elements x 2 bytes, 4096 bytes per cell and layer, 131072 bytes per token. Weights:
 * a layer 436,224,000 bytes, the embedding and the untied head 128256 x 4096 x 2 = 1,050,673,152
 * each, the final norm 8192: 16,060,522,496 bytes in all. */
#include <string.h>

#include "local_run.h"

#define MIB 1048576ULL
#define KV_TOKEN 131072ULL         /* bytes per token, Llama-3.1-8B f16 */
#define LAYER 436224000ULL         /* bytes of one Llama-3.1-8B layer in bf16 */
#define WEIGHTS 16060522496ULL     /* 32 layers, embedding, head, final norm */

/* `gpus` of `gib` GiB each (runtime_overhead_bytes stays 512 MiB, fit_margin_bytes 1024 MiB). */
static void open_run(run *x, const char *model, uint64_t gib, int64_t gpus)
{
    memset(x, 0, sizeof *x);
    ck_assert_ok(llmmem_model_from_preset(&x->m, model));
    ck_assert_ok(llmmem_hardware_from_preset(&x->hw, "rtx-4090"));
    ck_assert_ok(llmmem_hardware_set_int(x->hw, LLMMEM_KEY_MEMORY_BYTES, (int64_t)(gib * GIB)));
    ck_assert_ok(llmmem_hardware_set_int(x->hw, LLMMEM_KEY_DEVICES_PER_NODE, gpus));
    start_run(x, "ollama");
}

static uint64_t get(run *x, llmmem_local_value v)
{
    estimate(x);
    return llmmem_local_get(x->r, v);
}

static void set(run *x, llmmem_key key, int64_t value)
{
    ck_assert_ok(llmmem_strategy_set_int(x->s, key, value));
}

/* num_ctx 0 picks by the GPUs' total memory (server/routes.go Serve): 12 GiB -> 4096, 24 GiB ->
 * 32768, 2 x 24 GiB -> 262144, 80 GiB -> 262144. Llama-3.1-8B's context (131072) caps the last two.
 * With num_parallel 1 the KV is n_ctx x 131072 bytes. */
START_TEST(num_ctx_tiers)
{
    static const struct {
        uint64_t gib;
        int64_t gpus;
        uint64_t n_ctx;
    } cases[] = {{12, 1, 4096}, {24, 1, 32768}, {24, 2, 131072}, {80, 1, 131072}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run x;
        open_run(&x, "llama-3.1-8b", cases[i].gib, cases[i].gpus);
        ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_CTX), cases[i].n_ctx);
        ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_N_SEQ_MAX), 1);
        ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_KV_BYTES), cases[i].n_ctx * KV_TOKEN);
        close_run(&x);
    }
    /* the uncapped tier: a model with a 1M-token context on 80 GiB gets 262144 cells, 32 GiB of KV */
    run x;
    open_run(&x, "llama-3.1-8b", 80, 1);
    ck_assert_ok(llmmem_model_set_int(x.m, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, 1048576));
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_CTX), 262144);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_KV_BYTES), 32 * GIB);
    /* an explicit num_ctx wins over the tier, and is capped at the model's context all the same */
    set(&x, LLMMEM_KEY_NUM_CTX, 8192);
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_CTX), 8192);
    set(&x, LLMMEM_KEY_NUM_CTX, 2000000);
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_CTX), 1048576);
    close_run(&x);
}
END_TEST

/* The tier's cut-offs are 23 and 47 GiB of total memory after OLLAMA_GPU_OVERHEAD per GPU. */
START_TEST(num_ctx_tier_cutoffs_and_gpu_overhead)
{
    run x;
    open_run(&x, "llama-3.1-8b", 24, 1);
    set(&x, LLMMEM_KEY_GPU_OVERHEAD_BYTES, (int64_t)GIB); /* 23 GiB: still 32768 */
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_CTX), 32768);
    set(&x, LLMMEM_KEY_GPU_OVERHEAD_BYTES, (int64_t)GIB + 1); /* a byte under 23 GiB */
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_CTX), 4096);
    close_run(&x);
    open_run(&x, "llama-3.1-8b", 24, 2);
    set(&x, LLMMEM_KEY_GPU_OVERHEAD_BYTES, (int64_t)(512 * MIB)); /* 2 x 23.5 = 47 GiB */
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_CTX), 131072);
    set(&x, LLMMEM_KEY_GPU_OVERHEAD_BYTES, (int64_t)(512 * MIB) + 1);
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_CTX), 32768);
    /* the overhead does not reach llama-server: each GPU's capacity is its memory less the runtime's
     * 512 MiB and --fit's 1024 MiB, overhead or not */
    ck_assert_uint_eq(llmmem_local_device_capacity(x.r, 0), 24 * GIB - 1536 * MIB);
    close_run(&x);
}
END_TEST

/* -c num_ctx x num_parallel -np num_parallel, no --kv-unified: one stream of num_ctx cells per
 * sequence. 24 GiB, num_parallel 2: n_ctx 65536 in 2 streams of 32768, 8 GiB of KV. */
START_TEST(num_parallel_multiplies_the_context)
{
    run x;
    open_run(&x, "llama-3.1-8b", 24, 1);
    set(&x, LLMMEM_KEY_NUM_PARALLEL, 2);
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_CTX), 65536);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_N_SEQ_MAX), 2);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_N_STREAMS), 2);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_N_CTX_SEQ), 32768);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_KV_BYTES), 65536 * KV_TOKEN);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_KV_BYTES), 8 * GIB);
    close_run(&x);
    /* Qwen3-VL is one of the families ollama keeps to one sequence */
    open_run(&x, "qwen3-vl-8b-instruct", 24, 1);
    set(&x, LLMMEM_KEY_NUM_PARALLEL, 4);
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_SEQ_MAX), 1);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_N_CTX), 32768);
    close_run(&x);
}
END_TEST

/* num_gpu -1 is llama-server --fit: the most layers whose buffers leave every GPU its 1024 MiB.
 * 12 GiB: capacity 12 GiB - 512 MiB - 1024 MiB = 11,274,289,152 bytes; num_ctx 4096 (the tier), so
 * a layer costs 436,224,000 + 4096 x 4096 (its KV) = 453,001,216 bytes. n_gpu_layers counts the
 * output layer first (load_tensors: i_gpu_start = n_layer + 1 - n_gpu_layers): the head and final
 * norm, 1,050,681,344 bytes, and the f32 logits of a 512-token ubatch in the compute buffer,
 * (4096 + 128256) x 512 x 4 = 271,056,896. 22 = the output + 21 layers: 10,211,385,344 of weights,
 * 352,321,536 of KV, 10,834,763,776 in all, under the capacity. 23 adds a layer: 11,287,764,992,
 * over. So n_gpu_layers is 22: layers 11..31 and the output on the GPU. */
START_TEST(num_gpu_auto_fits_the_most_layers)
{
    run x;
    open_run(&x, "llama-3.1-8b", 12, 1);
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_GPU_LAYERS), 22);
    /* 10 layers stay on a host whose RAM is not stated: unknown, not a fit; 64 GiB of it holds them */
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_FITS), 0);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_HOST_UNKNOWN), 1);
    ck_assert_ok(llmmem_hardware_set_int(x.hw, LLMMEM_KEY_HOST_MEMORY_BYTES, 64LL << 30));
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_GPU_LAYERS), 22);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_FITS), 1);
    ck_assert_uint_eq(llmmem_local_device_layers(x.r, 0), 21);
    ck_assert_uint_eq(llmmem_local_bytes(x.r, 0, LLMMEM_LOCAL_MODEL), 21 * LAYER + 1050681344ULL);
    ck_assert_uint_eq(llmmem_local_bytes(x.r, 0, LLMMEM_LOCAL_KV), 21 * 4096 * 4096ULL);
    ck_assert_uint_eq(llmmem_local_bytes(x.r, 0, LLMMEM_LOCAL_COMPUTE), (4096 + 128256) * 512 * 4ULL);
    ck_assert_uint_eq(llmmem_local_device_total(x.r, 0), 10834763776ULL);
    ck_assert_uint_eq(llmmem_local_device_capacity(x.r, 0), 11274289152ULL);
    /* the next layer does not fit: num_gpu 23 (-ngl 23, no fit) is over */
    set(&x, LLMMEM_KEY_NUM_GPU, 23);
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_FITS), 0);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_N_GPU_LAYERS), 23);
    ck_assert_uint_eq(llmmem_local_device_total(x.r, 0), 10834763776ULL + 453001216ULL);
    /* the solver agrees */
    int64_t most = 0;
    set(&x, LLMMEM_KEY_NUM_GPU, -1);
    ck_assert_ok(llmmem_local_solve(&most, LLMMEM_LOCAL_MAX_GPU_LAYERS, x.m, NULL, x.hw, x.s));
    ck_assert_int_eq(most, 22);
    /* fit gives up when the user set tensor_split: every layer is offloaded, and does not fit */
    ck_assert_ok(llmmem_strategy_set_text(x.s, "tensor_split", "1"));
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_GPU_LAYERS), 33);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_FITS), 0);
    close_run(&x);
    /* when everything fits nothing changes: 24 GiB, q4_k weights, 33 of 33 */
    open_run(&x, "llama-3.1-8b", 24, 1);
    ck_assert_ok(llmmem_strategy_set_text(x.s, "weight_format", "q4_k"));
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_GPU_LAYERS), 33);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_FITS), 1);
    close_run(&x);
}
END_TEST

/* With several GPUs the model runs on one alone when ollama's prediction (the weights plus
 * 4 x 32 layers x 8 KV heads x 128 x ctx bytes) is within 80% of one GPU's free memory: 24 GiB less
 * 512 MiB is 25,232,932,864 bytes, 80% of it 20,186,346,291. num_ctx 8192: 16,060,522,496 +
 * 1 GiB = 17,134,264,320, one GPU. num_ctx 32768: + 4 GiB = 20,355,489,792, both. */
START_TEST(one_gpu_when_the_prediction_allows)
{
    run x;
    open_run(&x, "llama-3.1-8b", 24, 2);
    set(&x, LLMMEM_KEY_NUM_CTX, 8192);
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_GPUS), 1);
    ck_assert_uint_eq(llmmem_local_device_count(x.r), 2);
    set(&x, LLMMEM_KEY_NUM_CTX, 32768);
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_GPUS), 2);
    set(&x, LLMMEM_KEY_NUM_CTX, 8192);
    ck_assert_ok(llmmem_strategy_set_text(x.s, "sched_spread", "on"));
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_GPUS), 2);
    close_run(&x);
}
END_TEST

/* -b N -ub N. N by context when num_batch is unset (server/sched.go automaticGenerationBatch), with
 * the same prediction: 24 GiB, num_ctx 8192 asks 1024, and 17,134,264,320 is within 75% of
 * 25,232,932,864 (18,924,699,648) with the 768 MiB surcharge inside the 80% -> 1024. The tier's
 * 32768: 20,355,489,792 is over 80% -> 512. Two GPUs, num_ctx 65536 asks 2048: 16,060,522,496 +
 * 8 GiB = 24,650,457,088 is within 60% of 50,465,865,728 and leaves the 2 GiB surcharge -> 2048. */
START_TEST(batch_by_context)
{
    run x;
    open_run(&x, "llama-3.1-8b", 24, 1);
    set(&x, LLMMEM_KEY_NUM_CTX, 8192);
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_BATCH), 1024);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_N_UBATCH), 1024);
    set(&x, LLMMEM_KEY_NUM_CTX, 4096);
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_UBATCH), 512);
    set(&x, LLMMEM_KEY_NUM_CTX, 0);
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_CTX), 32768);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_N_UBATCH), 512);
    set(&x, LLMMEM_KEY_NUM_BATCH, 300); /* the user's num_batch, physical batch alike */
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_BATCH), 300);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_N_UBATCH), 300);
    close_run(&x);
    open_run(&x, "llama-3.1-8b", 24, 2);
    set(&x, LLMMEM_KEY_NUM_CTX, 65536);
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_UBATCH), 2048);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_GPUS), 2);
    /* flash attention off on CUDA: 512 */
    ck_assert_ok(llmmem_strategy_set_text(x.s, "flash_attn", "off"));
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_UBATCH), 512);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_FLASH_ATTN), 0);
    close_run(&x);
    /* ... and 256 over 4096 tokens on a GPU with at most 8 GiB free */
    open_run(&x, "llama-3.2-3b", 8, 1);
    ck_assert_ok(llmmem_strategy_set_text(x.s, "flash_attn", "off"));
    set(&x, LLMMEM_KEY_NUM_CTX, 8192);
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_UBATCH), 256);
    set(&x, LLMMEM_KEY_NUM_CTX, 4096);
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_UBATCH), 512);
    close_run(&x);
}
END_TEST

/* OLLAMA_KV_CACHE_TYPE is passed as both -ctk and -ctv. With flash attention auto it runs, and a
 * q8_0 cache is 1088 bytes per 1024-element row (34-byte blocks of 32). With flash attention off,
 * llama.cpp refuses the quantized V cache, so the model does not load. */
START_TEST(kv_cache_type)
{
    run x;
    open_run(&x, "llama-3.1-8b", 24, 1);
    ck_assert_ok(llmmem_strategy_set_text(x.s, "cache_type_k", "q8_0"));
    ck_assert_ok(llmmem_strategy_set_text(x.s, "cache_type_v", "q8_0"));
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_KV_BYTES), 32768ULL * 32 * 2 * 1088);
    ck_assert_ok(llmmem_strategy_set_text(x.s, "flash_attn", "off"));
    ck_assert_status(llmmem_local_estimate(x.r, x.m, NULL, x.hw, x.s), LLMMEM_ERR_INVALID_ARGUMENT);
    close_run(&x);
}
END_TEST

/*
 * https://github.com/ollama/ollama/issues/8098 (ollama 0.5.x, llama3.2 3B, one 80 GB GPU). The
 * runner was started with
 *   --ctx-size 8192 --batch-size 512 --n-gpu-layers 29 --parallel 4
 * (num_ctx 2048 x 4 sequences, then ollama's automatic parallelism). ollama's own estimate line was
 *   layers.model=29 layers.offload=29 memory.required.kv="896.0 MiB" memory.graph.full="424.0 MiB"
 *   memory.graph.partial="570.7 MiB"
 * The whole line is ollama's estimate (llm/memory.go, fs/ggml GraphSize), not a llama.cpp
 * allocation. Its KV matches what llama.cpp allocates for these settings: 28 layers x 8192 cells x
 * 8 heads x 128 x 2 (K, V) x 2 bytes = 939,524,096 = 896 MiB. That is 4 streams of 2048 cells,
 * already multiples of 256, so no padding. The graph figures are ollama's formulas, not llama.cpp's
 * compute buffers, and are not tested here.
 * This test checks what the model computes for the same settings: n_ctx, the streams, the KV, the
 * batch, and every layer offloaded by --fit (29 = 28 + the output layer). num_batch is 512, as that
 * era's default was. Today's automatic choice over 4096 tokens is 1024.
 */
START_TEST(log_8098_llama32_3b_parallel_4)
{
    run x;
    open_run(&x, "llama-3.2-3b", 80, 1);
    set(&x, LLMMEM_KEY_NUM_CTX, 2048);
    set(&x, LLMMEM_KEY_NUM_PARALLEL, 4);
    set(&x, LLMMEM_KEY_NUM_BATCH, 512);
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_CTX), 8192);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_N_SEQ_MAX), 4);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_N_STREAMS), 4);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_N_CTX_SEQ), 2048);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_KV_BYTES), 28ULL * 8192 * 8 * 128 * 2 * 2);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_KV_BYTES), 896 * MIB);
    ck_assert_uint_eq(llmmem_local_bytes(x.r, 0, LLMMEM_LOCAL_KV), 896 * MIB); /* all on the GPU */
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_N_GPU_LAYERS), 29);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_N_BATCH), 512);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_N_UBATCH), 512);
    set(&x, LLMMEM_KEY_NUM_BATCH, 0);
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_UBATCH), 1024);
    close_run(&x);
}
END_TEST

/*
 * https://github.com/ollama/ollama/issues/6160 (comment by theasp, 2024-10). The model is
 * mistral-small 22B (Mistral-Small-Instruct-2409: 56 layers, hidden 6144, 48 heads, 8 KV heads of
 * 128, vocab 32768), run with num_ctx 49152 and num_gpu 57. These buffer lines are llama.cpp's
 * allocation, not ollama's estimate:
 *   llama_kv_cache_init:      CUDA0 KV buffer size =  5712.00 MiB
 *   llm_load_tensors:      CUDA0 buffer size = 17295.40 MiB
 *   llama_new_context_with_model:      CUDA0 compute buffer size =   192.00 MiB
 * Together with the host buffers they add up to nvidia-smi's 23508 MiB. ollama's estimate was
 * what `ollama ps` showed, 29 GB and 16%/84% CPU/GPU, and is not modelled.
 * The KV line is a q8_0 cache (flash attention on): a 1024-element row is 32 blocks of 34 bytes,
 * 1088 bytes, so 2176 per cell and layer. 56 x 49152 x 2176 = 5,989,466,112 bytes = 5712.00 MiB,
 * all on CUDA0 (57 = 56 layers + the output). The fixture sets no training context, so ollama's
 * cap does not apply: the log predates that cap and shows all 49152 cells. The weights depend on
 * the file's quantization, and the compute buffer is modelled rather than read, so neither is
 * tested here.
 */
START_TEST(log_6160_mistral_small_22b_q8_0)
{
    run x;
    open_run(&x, "mistral-7b-v0.1", 24, 1);
    ck_assert_ok(llmmem_model_set_int(x.m, LLMMEM_KEY_HIDDEN_SIZE, 6144));
    ck_assert_ok(llmmem_model_set_int(x.m, LLMMEM_KEY_NUM_HIDDEN_LAYERS, 56));
    ck_assert_ok(llmmem_model_set_int(x.m, LLMMEM_KEY_NUM_ATTENTION_HEADS, 48));
    ck_assert_ok(llmmem_model_set_int(x.m, LLMMEM_KEY_NUM_KEY_VALUE_HEADS, 8));
    ck_assert_ok(llmmem_model_set_int(x.m, LLMMEM_KEY_INTERMEDIATE_SIZE, 16384));
    ck_assert_ok(llmmem_model_set_int(x.m, LLMMEM_KEY_VOCAB_SIZE, 32768));
    ck_assert_ok(llmmem_model_set_int(x.m, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, 0));
    ck_assert_ok(llmmem_model_set_int(x.m, LLMMEM_KEY_SLIDING_WINDOW, 0)); /* Mistral-Small-22B has none */
    set(&x, LLMMEM_KEY_NUM_CTX, 49152);
    set(&x, LLMMEM_KEY_NUM_GPU, 57);
    ck_assert_ok(llmmem_strategy_set_text(x.s, "cache_type_k", "q8_0"));
    ck_assert_ok(llmmem_strategy_set_text(x.s, "cache_type_v", "q8_0"));
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_CTX), 49152);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_N_GPU_LAYERS), 57);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_FLASH_ATTN), 1);
    ck_assert_uint_eq(llmmem_local_bytes(x.r, 0, LLMMEM_LOCAL_KV), 56ULL * 49152 * 2176);
    ck_assert_uint_eq(llmmem_local_bytes(x.r, 0, LLMMEM_LOCAL_KV), 5712 * MIB);
    ck_assert_uint_eq(llmmem_local_bytes(x.r, 1, LLMMEM_LOCAL_KV), 0);
    close_run(&x);
}
END_TEST

/* The solver's context and parallel questions keep every layer on the GPUs when num_gpu is -1
 * (--fit would otherwise move layers to the CPU until any context fits). 12 GiB, bf16 weights
 * (16,060,522,496 bytes): all 33 layers never fit, so no context does. */
START_TEST(solver_with_fit)
{
    run x;
    open_run(&x, "llama-3.1-8b", 12, 1);
    int64_t answer = -1;
    ck_assert_ok(llmmem_local_solve(&answer, LLMMEM_LOCAL_MAX_CONTEXT, x.m, NULL, x.hw, x.s));
    ck_assert_int_eq(answer, 0);
    ck_assert_ok(llmmem_local_solve(&answer, LLMMEM_LOCAL_MAX_PARALLEL, x.m, NULL, x.hw, x.s));
    ck_assert_int_eq(answer, 0);
    close_run(&x);
    /* 16 GiB, q4_k weights: the longest num_ctx fits with all 33 layers, one token more does not */
    open_run(&x, "llama-3.1-8b", 16, 1);
    ck_assert_ok(llmmem_strategy_set_text(x.s, "weight_format", "q4_k"));
    ck_assert_ok(llmmem_local_solve(&answer, LLMMEM_LOCAL_MAX_CONTEXT, x.m, NULL, x.hw, x.s));
    ck_assert_int_gt(answer, 32768);
    ck_assert_int_lt(answer, 131072);
    set(&x, LLMMEM_KEY_NUM_CTX, answer);
    set(&x, LLMMEM_KEY_NUM_GPU, 33);
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_FITS), 1);
    set(&x, LLMMEM_KEY_NUM_CTX, answer + 1);
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_FITS), 0);
    /* with num_gpu -1, --fit moves layers off the GPU instead: that context still "fits", in a host
     * whose RAM holds them (unstated, the verdict is unknown) */
    set(&x, LLMMEM_KEY_NUM_GPU, -1);
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_HOST_UNKNOWN), 1);
    ck_assert_ok(llmmem_hardware_set_int(x.hw, LLMMEM_KEY_HOST_MEMORY_BYTES, 64LL << 30));
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_FITS), 1);
    ck_assert_uint_lt(llmmem_local_get(x.r, LLMMEM_LOCAL_N_GPU_LAYERS), 33);
    close_run(&x);
}
END_TEST

/* Without a GPU (backend cpu) ollama's tier is 4096 whatever memory_bytes says, and every layer
 * stays on the CPU. ollama always passes -np, so llama.cpp's n_parallel -1 (llama-server's auto:
 * 4 slots, one unified cache) never applies; only kv_unified unifies the streams. */
START_TEST(no_gpu_and_explicit_np)
{
    run x;
    open_run(&x, "llama-3.1-8b", 80, 1);
    ck_assert_ok(llmmem_hardware_set_text(x.hw, "backend", "cpu"));
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_CTX), 4096);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_GPUS), 0);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_N_GPU_LAYERS), 0);
    ck_assert_ok(llmmem_hardware_set_text(x.hw, "backend", "cuda"));
    set(&x, LLMMEM_KEY_N_PARALLEL, -1);
    set(&x, LLMMEM_KEY_NUM_PARALLEL, 2);
    set(&x, LLMMEM_KEY_NUM_CTX, 8192);
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_STREAMS), 2);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_N_SEQ_MAX), 2);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_N_CTX_SEQ), 8192);
    ck_assert_ok(llmmem_strategy_set_text(x.s, "kv_unified", "on"));
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_STREAMS), 1);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_N_CTX_SEQ), 16384);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_KV_BYTES), 16384 * KV_TOKEN);
    close_run(&x);
}
END_TEST

/* The new keys: names, defaults and ranges. */
START_TEST(ollama_keys)
{
    llmmem_strategy *s = NULL;
    int64_t v = -1;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_get_int(&v, s, LLMMEM_KEY_GPU_OVERHEAD_BYTES));
    ck_assert_int_eq(v, 0);
    ck_assert_ok(llmmem_strategy_get_int(&v, s, LLMMEM_KEY_NUM_BATCH));
    ck_assert_int_eq(v, 0);
    ck_assert_ok(llmmem_strategy_get_int(&v, s, LLMMEM_KEY_SCHED_SPREAD));
    ck_assert_int_eq(v, 0);
    ck_assert_ok(llmmem_strategy_set_text(s, "num_batch", "2048"));
    ck_assert_ok(llmmem_strategy_set_text(s, "gpu_overhead_bytes", "1073741824"));
    ck_assert_status(llmmem_strategy_set_int(s, LLMMEM_KEY_NUM_BATCH, -1), LLMMEM_ERR_OUT_OF_RANGE);
    llmmem_strategy_free(s);
}
END_TEST

/* What ollama hands llama-server must be what llama.cpp takes (llm/llama_server.go startLlamaServer:
 * -c num_ctx x num_parallel -np num_parallel, both read by llama.cpp's common/arg.cpp with
 * std::stoi, and n_seq_max at most 256, src/llama-cparams.h LLAMA_MAX_SEQ). num_parallel 65536
 * "fit" with a 1 PiB cache; a -c past INT32_MAX was accepted. A model context of 2^24 keeps num_ctx
 * as given (ollama caps it at the model's). */
START_TEST(ollama_within_llamas_bounds)
{
    run x;
    open_run(&x, "llama-3.1-8b", 1ULL << 20, 1); /* 2^50 bytes: every context fits */
    ck_assert_ok(llmmem_model_set_int(x.m, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, 1LL << 24));
    ck_assert_status(llmmem_strategy_set_int(x.s, LLMMEM_KEY_NUM_PARALLEL, 257), LLMMEM_ERR_OUT_OF_RANGE);
    set(&x, LLMMEM_KEY_NUM_CTX, 1LL << 24);
    set(&x, LLMMEM_KEY_NUM_PARALLEL, 128); /* -c 2^31 */
    ck_assert_status(llmmem_local_estimate(x.r, x.m, NULL, x.hw, x.s), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_str_eq(llmmem_last_message(), "num_ctx (16777216) x num_parallel (128) is 2147483648, but "
                                            "llama-server reads its -c as an int (at most 2147483647)");
    set(&x, LLMMEM_KEY_NUM_PARALLEL, 127); /* -c 2,130,706,432 */
    ck_assert_uint_eq(get(&x, LLMMEM_LOCAL_N_CTX), 127ull << 24);
    /* the solvers: the most sequences whose -c llama.cpp reads, 2147483647 / 2^24 = 127; the longest
     * num_ctx for 256 sequences, 2147483647 / 256 = 8,388,607 */
    int64_t answer = -1;
    ck_assert_ok(llmmem_local_solve(&answer, LLMMEM_LOCAL_MAX_PARALLEL, x.m, NULL, x.hw, x.s));
    ck_assert_int_eq(answer, 127);
    set(&x, LLMMEM_KEY_NUM_PARALLEL, 256);
    set(&x, LLMMEM_KEY_NUM_CTX, 4096);
    ck_assert_ok(llmmem_local_solve(&answer, LLMMEM_LOCAL_MAX_CONTEXT, x.m, NULL, x.hw, x.s));
    ck_assert_int_eq(answer, 8388607);
    close_run(&x);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ollama");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, num_ctx_tiers);
    tcase_add_test(tc, num_ctx_tier_cutoffs_and_gpu_overhead);
    tcase_add_test(tc, num_parallel_multiplies_the_context);
    tcase_add_test(tc, num_gpu_auto_fits_the_most_layers);
    tcase_add_test(tc, one_gpu_when_the_prediction_allows);
    tcase_add_test(tc, batch_by_context);
    tcase_add_test(tc, kv_cache_type);
    tcase_add_test(tc, log_8098_llama32_3b_parallel_4);
    tcase_add_test(tc, log_6160_mistral_small_22b_q8_0);
    tcase_add_test(tc, solver_with_fit);
    tcase_add_test(tc, no_gpu_and_explicit_np);
    tcase_add_test(tc, ollama_keys);
    tcase_add_test(tc, ollama_within_llamas_bounds);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
