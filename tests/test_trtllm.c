/* TensorRT-LLM's KV cache manager (engine trtllm), against its source worked by hand and public
 * TensorRT-LLM start-up logs.
 *
 * The rules (NVIDIA/TensorRT-LLM): KvCacheConfig's defaults (free_gpu_memory_fraction 0.9, a C++
 * float: 0.8999999761581421; tokens_per_block 32); cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp
 * BaseKVCacheManager::calculateFreeMemBytes (the free memory once the engine is loaded) and
 * calculateMaxNumBlocks (tokens = bytes x fraction / bytes per token, blocks = ceil(tokens /
 * tokens_per_block), "Allocated X GiB for max tokens in paged KV cache (blocks x tokens_per_block)");
 * tensorrt_llm/_torch/pyexecutor/_util.py KvCacheCreator (PyTorch backend: a temporary KV cache for
 * dummy requests of max_num_tokens, available = (total - peak + that cache) x fraction, max_tokens =
 * int(available // bytes per token)). Logs print GiB with two decimals, each figure within 0.005 GiB. */
#include <stdio.h>
#include <string.h>

#include "unit.h"

#define GIB100(x) (((uint64_t)(x) * GIB + 50) / 100)

typedef struct fixture {
    llmmem_model *m;
    llmmem_hardware *hw;
    llmmem_strategy *s;
    llmmem_serving *r;
} fixture;

static fixture make(const char *model, const char *gpu)
{
    fixture f;
    ck_assert_ok(llmmem_model_from_preset(&f.m, model));
    ck_assert_ok(llmmem_hardware_from_preset(&f.hw, gpu));
    ck_assert_ok(llmmem_strategy_new(&f.s));
    ck_assert_ok(llmmem_strategy_set_int(f.s, LLMMEM_KEY_ENGINE, LLMMEM_ENGINE_TRTLLM));
    ck_assert_ok(llmmem_serving_new(&f.r));
    return f;
}

static void release(fixture *f)
{
    llmmem_serving_free(f->r);
    llmmem_strategy_free(f->s);
    llmmem_hardware_free(f->hw);
    llmmem_model_free(f->m);
}

static void set(fixture *f, llmmem_key key, int64_t value)
{
    ck_assert_ok(llmmem_strategy_set_int(f->s, key, value));
}

static void estimate(fixture *f)
{
    ck_assert_ok(llmmem_serving_estimate(f->r, f->m, f->hw, f->s));
}

static uint64_t get(const fixture *f, llmmem_serving_value v)
{
    return llmmem_serving_get(f->r, v);
}

/* A public log of `trtllm-serve openai/gpt-oss-120b` on a DGX Spark (GB10, torch total 119.70 GiB),
 * TensorRT-LLM 1.1.0rc3, PyTorch backend, fraction 0.9 ("fraction is set 0.8999999761581421"),
 * tokens_per_block 32, max_num_tokens 8192, max_seq_len 131,072. gpt-oss-120b: 36 layers, 8 KV heads
 * of 64, bf16 ("kv size is 73728" B a token; one attention window, the sliding layers keep it all).
 * Lines: "Allocated 0.56 GiB for max tokens in paged KV cache (8224)": one dummy request of 8,192
 * tokens and its generated one, ceil(8,193 / 32) = 257 blocks, 8,224 tokens, x 73,728 = 606,339,072 B;
 * "Memory used after loading model weights (inside torch): 63.52 GiB", "Memory dynamically allocated
 * during inference (inside torch): 0.85 GiB", "Memory used outside torch (e.g., NCCL and CUDA graphs):
 * 49.28 GiB" (on unified memory the host's use, and the temporary cache), "Peak memory ...: 113.65 GiB,
 * available KV cache memory when calculating max tokens: 5.95 GiB"; then "Allocated 5.95 GiB for max
 * tokens in paged KV cache (86720)". From the printed figures: (119.70 - 113.65) GiB + 606,339,072 B =
 * 7,102,477,108 B, x 0.8999999761581421 = 6,392,229,227.9 (5.953 GiB), // 73,728 = 86,700 tokens (the
 * log's max_tokens 86,711: 11 tokens apart, inside the rounding of the three printed terms), ceil(86,700
 * / 32) = 2,710 blocks = 86,720 tokens, as logged; 86,720 x 73,728 B = 5.95 GiB as logged. */
START_TEST(test_log_gpt_oss_120b_dgx_spark)
{
    fixture f = make("gpt-oss-120b", "h100-sxm-80gb");
    ck_assert_ok(llmmem_hardware_set_int(f.hw, LLMMEM_KEY_MEMORY_BYTES, (int64_t)GIB100(11970)));
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, (int64_t)GIB100(6352));
    set(&f, LLMMEM_KEY_PROFILE_ACTIVATION_BYTES, (int64_t)GIB100(85));
    set(&f, LLMMEM_KEY_PROFILE_NON_TORCH_BYTES, (int64_t)GIB100(4928));
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_ENGINE), LLMMEM_ENGINE_TRTLLM);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BYTES_PER_TOKEN), 73728);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_ESTIMATION_TOKENS), 8224);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MEMORY_FRACTION_X10000), 9000);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_FREE_BYTES), 7102477108ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), 6392229227ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_TOKENS), 86700);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 2710);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 86720);
    ck_assert_int_eq((int)((double)get(&f, LLMMEM_SERVING_POOL_BYTES) / (double)GIB * 100 + 0.5), 595);
    /* the log's own max_tokens rounds up to the same blocks */
    set(&f, LLMMEM_KEY_MAX_TOTAL_TOKENS, 86711);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 86720);
    release(&f);
}
END_TEST

/* NVIDIA/TensorRT-LLM#4275 (comment of 2025-06-05): a trtllm-build engine of Llama-3.1-8B-Instruct with
 * fp8 weights and an fp8 KV cache on an RTX 5090, TensorRT-LLM 0.19.0, kv_cache_free_gpu_mem_fraction
 * 0.9: 32 layers, 8 KV heads of 128, 1 byte: 65,536 B a token. Lines: "Memory usage when calculating max
 * tokens in paged kv cache: total: 31.84 GiB, available: 17.83 GiB", "Number of blocks in KV cache primary
 * pool: 8219", "Number of tokens per block: 32.", "Allocated 16.05 GiB for max tokens in paged KV cache
 * (263008)". From the printed 17.83 GiB (19,144,816,722 B): x 0.8999999761581421 // 65,536 = 262,914
 * tokens, ceil(/ 32) = 8,217 blocks, 2 under the log's 8,219: that count needs 17.8345 GiB or more,
 * inside the printed figure's rounding (8,219 x 32 x 65,536 B = 16.05 GiB as logged). */
START_TEST(test_log_trtllm_4275_llama31_8b_fp8_engine)
{
    fixture f = make("llama-3.1-8b", "rtx-5090");
    set(&f, LLMMEM_KEY_TRTLLM_BACKEND, LLMMEM_TRTLLM_ENGINE);
    ck_assert_ok(llmmem_strategy_set_text(f.s, "kv_cache_dtype", "fp8"));
    set(&f, LLMMEM_KEY_MAX_MODEL_LEN, 2048);
    set(&f, LLMMEM_KEY_KV_FREE_BYTES, (int64_t)GIB100(1783));
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BYTES_PER_TOKEN), 65536);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BLOCK_SIZE), 32);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_TOKENS), 262914);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 8217);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_ESTIMATION_TOKENS), 0);
    set(&f, LLMMEM_KEY_KV_FREE_BYTES, (int64_t)(17.8345 * (double)GIB));
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 8219);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 263008);
    ck_assert_int_eq((int)((double)get(&f, LLMMEM_SERVING_POOL_BYTES) / (double)GIB * 100 + 0.5), 1605);
    release(&f);
}
END_TEST

/* Public notes of two Triton engines on one GPU (`docker logs triton-llm`), tokens_per_block 64:
 * Qwen2.5-1.5B (28 layers, 2 KV heads of 128, bf16: 28,672 B a token) at fraction 0.45 of "16.25 GiB"
 * free: "Allocated 7.31 GiB for max tokens in paged KV cache (273792)"; Qwen2.5-0.5B (24 layers, 2 KV
 * heads of 64: 12,288 B) loaded after it at 0.25 of "8.73 GiB": "Allocated 2.18 GiB ... (190656)".
 * 0.45f x 16.25 GiB // 28,672 = 273,846 tokens -> 4,279 blocks (273,856), one block above the log's
 * 4,278 (273,792 / 64; 16.245 GiB gives it); 0.25 x 8.73 GiB // 12,288 = 190,709 -> 2,980 blocks
 * (190,720), one above the log's 2,979 (8.725 GiB gives it). */
START_TEST(test_log_triton_qwen2_5_engines)
{
    fixture f = make("qwen2.5-1.5b", "l4");
    set(&f, LLMMEM_KEY_TRTLLM_BACKEND, LLMMEM_TRTLLM_ENGINE);
    set(&f, LLMMEM_KEY_BLOCK_SIZE, 64);
    ck_assert_ok(llmmem_strategy_set_real(f.s, LLMMEM_KEY_FREE_GPU_MEMORY_FRACTION, 0.45));
    set(&f, LLMMEM_KEY_KV_FREE_BYTES, (int64_t)GIB100(1625));
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BYTES_PER_TOKEN), 28672);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_TOKENS), 273846);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 273856);
    ck_assert_uint_le(get(&f, LLMMEM_SERVING_TOKENS) - 273792, 64);
    release(&f);
    f = make("qwen2.5-0.5b", "l4");
    set(&f, LLMMEM_KEY_TRTLLM_BACKEND, LLMMEM_TRTLLM_ENGINE);
    set(&f, LLMMEM_KEY_BLOCK_SIZE, 64);
    ck_assert_ok(llmmem_strategy_set_real(f.s, LLMMEM_KEY_FREE_GPU_MEMORY_FRACTION, 0.25));
    set(&f, LLMMEM_KEY_KV_FREE_BYTES, (int64_t)GIB100(873));
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BYTES_PER_TOKEN), 12288);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_TOKENS), 190709);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 190720);
    ck_assert_uint_le(get(&f, LLMMEM_SERVING_TOKENS) - 190656, 64);
    release(&f);
}
END_TEST

/* The modelled PyTorch path, Llama-3.1-8B on an H100 (80 GiB, runtime share 512 MiB), defaults: the
 * temporary cache is 8,224 tokens x 131,072 B = 1,077,936,128 B, measured outside torch beside the
 * runtime's share, and added back: available = (total - weights - activations - runtime share) x
 * 0.9f, the temporary cache cancelling. GQA at tensor_parallel 2: 4 KV heads a rank, 65,536 B a token;
 * above num_key_value_heads (8) the replication is not modelled. */
START_TEST(test_modelled_pytorch_path)
{
    fixture f = make("llama-3.1-8b", "h100-sxm-80gb");
    estimate(&f);
    uint64_t total = get(&f, LLMMEM_SERVING_MEMORY_BYTES), w = get(&f, LLMMEM_SERVING_WEIGHTS);
    uint64_t act = get(&f, LLMMEM_SERVING_ACTIVATION_PEAK), nt = get(&f, LLMMEM_SERVING_NON_TORCH);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_ESTIMATION_TOKENS), 8224);
    ck_assert_uint_eq(nt, 536870912ULL + 1077936128ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_FREE_BYTES), total - w - act - 536870912ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES),
                      (uint64_t)((double)get(&f, LLMMEM_SERVING_FREE_BYTES) * (double)0.9f));
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS) % 32, 0);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_BATCHED_TOKENS), 8192);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_SEQS), 2048);
    /* concurrency at 8,192 tokens: 256 blocks a request */
    uint64_t n;
    ck_assert_ok(llmmem_serving_max_concurrency(&n, f.r, 8192));
    ck_assert_uint_eq(n, get(&f, LLMMEM_SERVING_NUM_BLOCKS) / 256);
    set(&f, LLMMEM_KEY_TENSOR_PARALLEL, 2);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BYTES_PER_TOKEN), 65536);
    set(&f, LLMMEM_KEY_TENSOR_PARALLEL, 16);
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_UNSUPPORTED);
    release(&f);
}
END_TEST

START_TEST(test_errors)
{
    fixture f = make("qwen3-next-80b-a3b", "h200");
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_UNSUPPORTED);
    release(&f);
    f = make("llama-3.1-8b", "h100-sxm-80gb");
    ck_assert_ok(llmmem_strategy_set_text(f.s, "kv_cache_dtype", "nvfp4"));
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "TensorRT-LLM"));
    ck_assert_ok(llmmem_strategy_set_text(f.s, "kv_cache_dtype", "auto"));
    ck_assert_ok(llmmem_strategy_set_text(f.s, "engine_version", "sglang-0.4"));
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_INCOMPATIBLE);
    release(&f);
}
END_TEST

/* Mamba hybrids (issue 33). TensorRT-LLM's PyTorch backend serves Nemotron-H and Qwen3-Next with a
 * MambaHybridCacheManager (tensorrt_llm/_torch/pyexecutor/mamba_cache_manager.py; MixedMambaHybridCacheManager
 * in newer releases): attention paged, each Mamba-2 / Gated DeltaNet layer's conv state (conv_dim / tp x
 * (conv_kernel - 1)) and SSM state (heads / tp x head_dim x state, mamba_ssm_cache_dtype) in max_batch_size + 1
 * slots; how each release's KvCacheCreator takes the slots out of the KV budget differs (research/trtmamba),
 * so the refusal names the manager, the rules known and what is not modelled. Layer counts by hand from the
 * configs: Nemotron-Nano-9B-v2's hybrid_override_pattern (56 characters) has 27 'M' (Mamba-2), 4 '*', 25 '-';
 * Qwen3-Next-80B-A3B: 48 layers, full_attention_interval 4 -> 36 Gated DeltaNet; Jamba-1.5-Mini: 32 layers,
 * attn_layer_period 8 -> 4 attention, 28 Mamba-1 (no hybrid manager of TensorRT-LLM's holds Mamba-1 state).
 * Before: "Mamba or Gated DeltaNet layers under TensorRT-LLM are not modelled" for all three. */
START_TEST(test_mamba_hybrids_refused)
{
    static const struct {
        const char *model, *gpu;
        int64_t tp;
        const char *layers;
        int manager;
    } rows[] = {{"nemotron-nano-9b-v2", "h100-sxm-80gb", 1, "27 Mamba-2 layers", 1},
                {"qwen3-next-80b-a3b", "h200", 4, "36 Gated DeltaNet layers", 1},
                {"jamba-1.5-mini", "h100-sxm-80gb", 1, "28 Mamba-1 layers under TensorRT-LLM", 0}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        fixture f = make(rows[i].model, rows[i].gpu);
        set(&f, LLMMEM_KEY_TENSOR_PARALLEL, rows[i].tp);
        ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_UNSUPPORTED);
        const char *msg = llmmem_last_message();
        ck_assert_msg(strstr(msg, rows[i].layers) && strstr(msg, "MambaHybridCacheManager"), "%s", msg);
        if (rows[i].manager)
            ck_assert_msg(strstr(msg, "max_batch_size + 1") && strstr(msg, "conv_kernel - 1") &&
                              strstr(msg, "mamba_ssm_cache_dtype") && strstr(msg, "engine vllm models"),
                          "%s", msg);
        release(&f);
    }
}
END_TEST

/* MiniMax-M3 (tests/data/configs/minimax-m3.json: 60 layers, sparse_attention_freq 1 on layers 3-59) as issue 33
 * serves it, TP8 on H200s. TensorRT-LLM pages it with MiniMaxM3KVCacheManagerV2
 * (tensorrt_llm/_torch/attention/backends/sparse/minimax_m3/cache_manager.py, selected by
 * get_sparse_attn_kv_cache_manager for algorithm minimax_m3): K and V on all 60 layers plus, per block, one
 * index-key buffer of 1 x sparse_index_dim 128 x 2 B (indexer_kv_dtype bf16) x tokens_per_block on each of the
 * 57 indexer layers (_extra_buffers_per_layer), 256 B a token and layer on every rank. Its capacity is a byte
 * quota (KvCacheCreator: max_gpu_total_bytes) cut by the V2 runtime into pool groups of whole physical chunks
 * (StorageManager._compute_slot_count_for_level), not tokens // bytes per token rounded up to blocks: refused
 * by name, before the rules it would otherwise meet (num_key_value_heads 4 < tensor_parallel 8; DeepSeek's
 * indexer). Before: the generic "... is not modelled: the weights and the contiguous cache ... are". */
START_TEST(test_minimax_m3_refused)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/configs/minimax-m3.json", LLMMEM_TEST_DATA);
    fixture f = make("llama-3.1-8b", "h200");
    llmmem_model_free(f.m);
    ck_assert_ok(llmmem_model_from_hf_config(&f.m, path));
    const uint64_t tps[] = {8, 1};
    for (size_t i = 0; i < sizeof tps / sizeof tps[0]; i++) {
        set(&f, LLMMEM_KEY_TENSOR_PARALLEL, (int64_t)tps[i]);
        ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_UNSUPPORTED);
        const char *msg = llmmem_last_message();
        ck_assert_ptr_nonnull(strstr(msg, "minimax_m3_vl (a lightning indexer on 57 standard-attention layers)"));
        ck_assert_ptr_nonnull(strstr(msg, "MiniMaxM3KVCacheManagerV2"));
        ck_assert_ptr_nonnull(strstr(msg, "max_gpu_total_bytes"));
    }
    release(&f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("trtllm");
    TCase *tc = tcase_create("trtllm");
    tcase_add_test(tc, test_log_gpt_oss_120b_dgx_spark);
    tcase_add_test(tc, test_log_trtllm_4275_llama31_8b_fp8_engine);
    tcase_add_test(tc, test_log_triton_qwen2_5_engines);
    tcase_add_test(tc, test_modelled_pytorch_path);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_minimax_m3_refused);
    tcase_add_test(tc, test_mamba_hybrids_refused);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
