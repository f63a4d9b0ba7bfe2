/* vLLM as the current release accounts (engine_version latest, vllm-0.21) beside the release the
 * library modelled before (vllm-0.20), and public vLLM start-up logs reproduced to the KV block or
 * to the log's rounding.
 *
 * Every expected number is derived in its comment from vLLM's source (file and function named) or
 * read from a public log (URL, model, card, vLLM version). A log prints its GiB figures with two
 * decimals: each printed term carries up to 0.005 GiB (5,368,709 bytes) of rounding, so a budget
 * rebuilt from them lands within a few blocks of the logged count; where the log prints the KV
 * memory itself, the block count is reproduced within one block. */
#include <math.h>
#include <string.h>

#include "unit.h"

/* x / 100 GiB and x / 10000 GiB in bytes, rounded, as a log's "79.22GiB" or "3.3414 GB" read. */
#define GIB100(x) (((uint64_t)(x) * GIB + 50) / 100)
#define GIB10000(x) (((uint64_t)(x) * GIB + 5000) / 10000)

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

/* The budget terms add up: requested - weights - activation - non-torch - graphs = kv (no shortfall). */
static void assert_budget_adds_up(const fixture *f)
{
    ck_assert_uint_eq(get(f, LLMMEM_SERVING_SHORTFALL), 0);
    ck_assert_uint_eq(get(f, LLMMEM_SERVING_REQUESTED_BYTES),
                      get(f, LLMMEM_SERVING_WEIGHTS) + get(f, LLMMEM_SERVING_ACTIVATION_PEAK) +
                          get(f, LLMMEM_SERVING_NON_TORCH) + get(f, LLMMEM_SERVING_CUDA_GRAPH) +
                          get(f, LLMMEM_SERVING_KV_CACHE_BYTES));
}

/* Llama-3.1-8B on an H100 with vllm serve's defaults, as each release accounts:
 *   - vllm/config/cache.py CacheConfig.gpu_memory_utilization = 0.92 (0.9 through 0.20): requested
 *     = ceil(85,899,345,920 x 0.92) = 79,027,398,247 (0.9: 77,309,411,328);
 *   - vllm/config/vllm.py _set_cudagraph_sizes with max_num_seqs 1024 and max_num_batched_tokens
 *     8192 (engine/arg_utils.py, an H100): max_cudagraph_capture_size = min(1024 x 2, 512, 8192) =
 *     512; sizes 1, 2, 4, 8..248 by 8, 256..512 by 16: 3 + 31 + 17 = 51 PIECEWISE graphs, largest
 *     512; FULL decode graphs for sizes up to max_num_seqs 1024: all 51;
 *   - the estimate's floor (gpu_model_runner.py profile_cudagraph_memory: first graph + max(second,
 *     1 MiB) x (graphs - 1) per mode): the forward's working set at 512 tokens, 2 x 4096 + max(10,240
 *     attention, 3 x 14,336 MLP) = 51,200 elements a token, x 512 x 2 B = 52,428,800, plus 50 + 50
 *     MiB: 157,286,400 bytes, subtracted from 0.21 on (gpu_worker.py determine_available_memory);
 *   - the log's equivalence (gpu_worker.py compile_or_warm_up_model): 0.92 - 157,286,400 /
 *     85,899,345,920 = 0.918169 -> "0.9182". */
START_TEST(test_release_defaults)
{
    fixture f = make("llama-3.1-8b", "h100-sxm-80gb");
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_ENGINE), LLMMEM_ENGINE_VLLM);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_ENGINE_VERSION), LLMMEM_ENGINE_VERSION_LATEST);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MEMORY_FRACTION_X10000), 9200);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_REQUESTED_BYTES), 79027398247ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_CUDA_GRAPH_SIZES), 51);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_CUDA_GRAPH_LARGEST), 512);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_FULL_CUDA_GRAPHS), 51);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_FULL_CUDA_GRAPH_LARGEST), 512);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_CUDA_GRAPH), 157286400ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_EQUIVALENT_FRACTION_X10000), 9182);
    assert_budget_adds_up(&f);
    uint64_t latest_kv = get(&f, LLMMEM_SERVING_KV_CACHE_BYTES);

    set(&f, LLMMEM_KEY_ENGINE_VERSION, LLMMEM_ENGINE_VERSION_VLLM_0_21);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), latest_kv);

    /* the release modelled before: 0.9, graphs outside the budget */
    set(&f, LLMMEM_KEY_ENGINE_VERSION, LLMMEM_ENGINE_VERSION_VLLM_0_20);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_REQUESTED_BYTES), 77309411328ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_CUDA_GRAPH), 0);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_EQUIVALENT_FRACTION_X10000), 0);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), latest_kv + 157286400ULL - 1717986919ULL);
    assert_budget_adds_up(&f);

    /* a measured estimate replaces the floor; 0 applies none (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0) */
    set(&f, LLMMEM_KEY_ENGINE_VERSION, LLMMEM_ENGINE_VERSION_LATEST);
    set(&f, LLMMEM_KEY_CUDA_GRAPH_BYTES, 1LL << 30);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_CUDA_GRAPH), 1ULL << 30);
    set(&f, LLMMEM_KEY_CUDA_GRAPH_BYTES, 0);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_CUDA_GRAPH), 0);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), latest_kv + 157286400ULL);
    /* --enforce-eager: no graphs captured, none estimated */
    set(&f, LLMMEM_KEY_CUDA_GRAPH_BYTES, -1);
    set(&f, LLMMEM_KEY_ENFORCE_EAGER, 1);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_CUDA_GRAPH), 0);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_CUDA_GRAPH_SIZES), 0);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_FULL_CUDA_GRAPHS), 0);
    release(&f);
}
END_TEST

/* LMCache/LMCache#3430 (2026-05-28): Qwen3-8B (36 layers, 8 KV heads of 128, bf16: 147,456 B a token,
 * 2,359,296 a 16-token block of every layer) under vLLM 0.21 or later on a 24 GB-class card,
 * --gpu-memory-utilization 0.9764, max_model_len 16,384. Lines:
 *   "Profiling CUDA graph memory: PIECEWISE=51 (largest=512), FULL=35 (largest=256)": max_num_seqs
 *     256 on a card under 70 GiB (engine/arg_utils.py get_batch_defaults), capture sizes up to
 *     min(256 x 2, 512, 2048) = 512 (51 of them) and FULL decode sizes up to 256 (3 + 31 + 1 = 35);
 *   "Estimated CUDA graph memory: 0.52 GiB total" and "--gpu-memory-utilization=0.9764 is equivalent
 *     to --gpu-memory-utilization=0.9543": 0.9764 - 0.52 GiB / total; any total from 23.48 to 23.58
 *     GiB prints 0.9543 (the log gives no other), 23.55 GiB taken here: 0.954319;
 *   "Available KV cache memory: 6.37 GiB", "GPU KV cache size: 46,368 tokens", "Maximum concurrency
 *     for 16,384 tokens per request: 2.83x": 6.37 GiB = 6,839,735,419 B // 2,359,296 = 2,899 blocks,
 *     46,384 tokens, one block above the log's 2,898 (46,368 / 16): 6.37 is rounded, and 2,898 blocks
 *     is any budget from 6.3677 to 6.3699 GiB; 2,899 / 1,024 = 2.83x as logged. The same count in
 *     the one-line report of later releases: int(2,899 / 1,024 x 16,384) = 46,384. */
START_TEST(test_log_lmcache_3430_qwen3_8b)
{
    fixture f = make("qwen3-8b", "rtx-4090");
    ck_assert_ok(llmmem_hardware_set_int(f.hw, LLMMEM_KEY_MEMORY_BYTES, (int64_t)GIB100(2355)));
    ck_assert_ok(llmmem_strategy_set_real(f.s, LLMMEM_KEY_GPU_MEMORY_UTILIZATION, 0.9764));
    set(&f, LLMMEM_KEY_MAX_MODEL_LEN, 16384);
    set(&f, LLMMEM_KEY_ENGINE_VERSION, LLMMEM_ENGINE_VERSION_VLLM_0_21);
    set(&f, LLMMEM_KEY_CUDA_GRAPH_BYTES, (int64_t)GIB100(52));
    /* the budget terms the log leaves at debug level are measured as if from it */
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, (int64_t)(15ULL * GIB));
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_CUDA_GRAPH_SIZES), 51);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_CUDA_GRAPH_LARGEST), 512);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_FULL_CUDA_GRAPHS), 35);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_FULL_CUDA_GRAPH_LARGEST), 256);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MEMORY_FRACTION_X10000), 9764);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_EQUIVALENT_FRACTION_X10000), 9543);
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, (int64_t)GIB100(637));
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_PAGE_BYTES) * get(&f, LLMMEM_SERVING_LAYERS_PER_GROUP), 2359296);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 2899);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 46384);
    ck_assert_uint_le(get(&f, LLMMEM_SERVING_TOKENS) - 46368, 16); /* within one block of the log */
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_VLLM_CONCURRENCY_X100), 283);
    set(&f, LLMMEM_KEY_ENGINE_VERSION, LLMMEM_ENGINE_VERSION_LATEST);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 46384);
    release(&f);
}
END_TEST

/* vllm-project/vllm#12126 (youkaichao, 2025-01-16, vLLM V0): `vllm serve meta-llama/Llama-3.2-11B-Vision
 * --load-format dummy --max-model-len 65536 --max-num-seqs 128 --enforce-eager` on an H100. V0 pages
 * all 40 decoder layers alike (32 self-attention, 8 cross-attention; 8 KV heads of 128, bf16): a
 * block of 16 tokens is 40 x 16 x 2 x 8 x 128 x 2 = 2,621,440 B, the same as 40 layers of a Llama
 * decoder of that width, which stands in for the decoder here. Lines: "total_gpu_memory (79.22GiB) x
 * gpu_memory_utilization (0.90) = 71.29GiB", "model weights take 19.86GiB; non_torch_memory takes
 * 0.16GiB; PyTorch activation peak memory takes 36.63GiB; the rest of the memory reserved for KV Cache
 * is 14.65GiB", "# CUDA blocks: 6001". From the printed terms: ceil(85,061,827,297 x 0.9) =
 * 76,555,644,568 - 21,324,512,625 - 171,798,692 - 39,331,163,013 = 15,728,170,238 B (14.648 GiB)
 * // 2,621,440 = 5,999 blocks, 2 below the log: the four printed terms carry up to 0.02 GiB of
 * rounding (8 blocks). The printed KV memory itself, 14.65 GiB, is 6,000 blocks, one below. */
START_TEST(test_log_vllm_12126_llama_vision)
{
    fixture f = make("llama-3.1-8b", "h100-sxm-80gb");
    ck_assert_ok(llmmem_model_set_int(f.m, LLMMEM_KEY_NUM_HIDDEN_LAYERS, 40));
    ck_assert_ok(llmmem_hardware_set_int(f.hw, LLMMEM_KEY_MEMORY_BYTES, (int64_t)GIB100(7922)));
    set(&f, LLMMEM_KEY_ENGINE_VERSION, LLMMEM_ENGINE_VERSION_VLLM_0_20);
    set(&f, LLMMEM_KEY_ENFORCE_EAGER, 1);
    set(&f, LLMMEM_KEY_MAX_MODEL_LEN, 65536);
    set(&f, LLMMEM_KEY_MAX_NUM_SEQS, 128);
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, (int64_t)GIB100(1986));
    set(&f, LLMMEM_KEY_PROFILE_ACTIVATION_BYTES, (int64_t)GIB100(3663));
    set(&f, LLMMEM_KEY_PROFILE_NON_TORCH_BYTES, (int64_t)GIB100(16));
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BLOCK_BYTES), 2621440);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_REQUESTED_BYTES), 76555644568ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), 15728170238ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 5999);
    ck_assert_uint_le(6001 - get(&f, LLMMEM_SERVING_NUM_BLOCKS), 8);
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, (int64_t)GIB100(1465));
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 6000);
    release(&f);
}
END_TEST

/* vllm-project/vllm#12529 (comment of gaocegege, 2025-03-13, vLLM V0): Qwen2.5-1.5B (28 layers, 2 KV
 * heads of 128, bf16: a 16-token block of every layer 28 x 16 x 2 x 2 x 128 x 2 = 458,752 B) on a
 * 7.75 GiB card, max_model_len 2000. Lines: "Model loading took 3.3414 GB" (GiB, as its next line
 * prints 3.34GiB), "total_gpu_memory (7.75GiB) x gpu_memory_utilization (0.90) = 6.97GiB",
 * "non_torch_memory takes 0.04GiB; PyTorch activation peak memory takes 1.39GiB; the rest of the
 * memory reserved for KV Cache is 2.20GiB", "# cuda blocks: 5148", "Maximum concurrency for 2000
 * tokens per request: 41.18x". From the printed terms: ceil(8,321,499,136 x 0.9) = 7,489,349,223 -
 * 3,587,800,931 - 1,492,501,135 - 42,949,673 = 2,366,097,484 // 458,752 = 5,157 blocks, 9 above the log
 * (the terms' rounding spans 41 blocks); the printed 2.20 GiB = 2,362,232,013 B is 5,149 blocks, one
 * above; 5,149 / cdiv(2000, 16) = 41.19x against the log's 41.18x (5,148 / 125 = 41.184). */
START_TEST(test_log_vllm_12529_qwen2_5_1_5b)
{
    fixture f = make("qwen2.5-1.5b", "rtx-3070");
    ck_assert_ok(llmmem_hardware_set_int(f.hw, LLMMEM_KEY_MEMORY_BYTES, (int64_t)GIB100(775)));
    set(&f, LLMMEM_KEY_ENGINE_VERSION, LLMMEM_ENGINE_VERSION_VLLM_0_20);
    set(&f, LLMMEM_KEY_MAX_MODEL_LEN, 2000);
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, (int64_t)GIB10000(33414));
    set(&f, LLMMEM_KEY_PROFILE_ACTIVATION_BYTES, (int64_t)GIB100(139));
    set(&f, LLMMEM_KEY_PROFILE_NON_TORCH_BYTES, (int64_t)GIB100(4));
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BLOCK_BYTES), 458752);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), 2366097484ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 5157);
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, (int64_t)GIB100(220));
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 5149);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_VLLM_CONCURRENCY_X100), 4119);
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 5148LL * 458752);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_VLLM_CONCURRENCY_X100), 4118);
    release(&f);
}
END_TEST

/* vllm-project/vllm#10511 (comment of youkaichao, 2024-12-14, vLLM V0): Meta-Llama-3-8B on an H100,
 * TP1: "total_gpu_memory 79.22GiB x 0.90 = 71.29GiB; model weights take 14.96GiB; non_torch_memory
 * takes 1.79GiB; PyTorch activation peak memory takes 1.26GiB; available_kv_cache_memory 53.29GiB"
 * (the block line is not in the excerpt). From the printed terms: 76,555,644,568 - 16,063,177,687 -
 * 1,921,997,865 - 1,352,914,698 = 57,217,554,318 B = 53.288 GiB, printed 53.29 as logged; 27,283
 * blocks of 2 MiB (32 layers x 65,536). */
START_TEST(test_log_vllm_10511_llama3_8b_budget)
{
    fixture f = make("llama-3-8b", "h100-sxm-80gb");
    ck_assert_ok(llmmem_hardware_set_int(f.hw, LLMMEM_KEY_MEMORY_BYTES, (int64_t)GIB100(7922)));
    set(&f, LLMMEM_KEY_ENGINE_VERSION, LLMMEM_ENGINE_VERSION_VLLM_0_20);
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, (int64_t)GIB100(1496));
    set(&f, LLMMEM_KEY_PROFILE_ACTIVATION_BYTES, (int64_t)GIB100(126));
    set(&f, LLMMEM_KEY_PROFILE_NON_TORCH_BYTES, (int64_t)GIB100(179));
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), 57217554318ULL);
    ck_assert_int_eq((int)floor((double)get(&f, LLMMEM_SERVING_KV_CACHE_BYTES) / (double)GIB * 100.0 + 0.5), 5329);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 27283);
    release(&f);
}
END_TEST

/* The one-line capacity report (vllm/v1/core/kv_cache_utils.py get_kv_cache_capacity): "GPU KV cache
 * size" = int(max_concurrency x max_model_len), max_concurrency = num_blocks / blocks per request
 * (get_max_concurrency_for_kv_cache_config). Llama-3-8B, 4 GiB of KV cache: 4,294,967,296 //
 * 65,536 // 32 = 2,048 blocks; at max_model_len 1,000 a request takes cdiv(1000, 16) = 63 blocks:
 * int(2048 / 63 x 1000) = 32,507 tokens, where the two-line report of 0.21 prints 2,048 x 16 =
 * 32,768; 32.51x either way. */
START_TEST(test_one_line_capacity)
{
    fixture f = make("llama-3-8b", "h100-sxm-80gb");
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 4LL << 30);
    set(&f, LLMMEM_KEY_MAX_MODEL_LEN, 1000);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 2048);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 32507);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_VLLM_CONCURRENCY_X100), 3251);
    set(&f, LLMMEM_KEY_ENGINE_VERSION, LLMMEM_ENGINE_VERSION_VLLM_0_21);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 32768);
    release(&f);
}
END_TEST

/* --max-model-len auto (-1; kv_cache_utils.py _auto_fit_max_model_len): the longest length whose
 * blocks fit. Llama-3.1-8B (131,072 positions), 8 GiB of KV cache: 4,096 blocks of 2 MiB hold
 * 4,096 x 16 = 65,536 tokens: max_model_len becomes 65,536, one request fits (1.00x). A cache that
 * holds no block is refused ("does not fit even a single token"). */
START_TEST(test_max_model_len_auto)
{
    fixture f = make("llama-3.1-8b", "h100-sxm-80gb");
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 8LL << 30);
    set(&f, LLMMEM_KEY_MAX_MODEL_LEN, -1);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_MODEL_LEN_SETTING), 65536);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_MODEL_LEN), 65536);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_REQUEST_TOKENS), 65536);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_VLLM_CONCURRENCY_X100), 100);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_FITS), 1);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 65536);
    /* a request longer than the fitted length is refused */
    set(&f, LLMMEM_KEY_REQUEST_TOKENS, 70000);
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "max_model_len (65536)"));
    set(&f, LLMMEM_KEY_REQUEST_TOKENS, 0);
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 1000);
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "max_model_len auto"));
    ck_assert(!llmmem_serving_valid(f.r));
    release(&f);
}
END_TEST

/* KV formats vLLM pages by whole blocks (vllm/v1/kv_cache_interface.py AttentionSpec.real_page_size_bytes,
 * v1/attention/backends/triton_attn.py customize_spec), Llama-3-8B (8 KV heads of 128, 32 layers), per
 * token and layer:
 *   int4_per_token_head: 2 x 8 x (128 / 2 + 4 B scale) = 1,088; x 32 = 34,816 a token
 *   fp8_inc: 2 x 8 x 128 x 1 = 2,048 (65,536 a token)
 *   nvfp4_4over6: nvfp4's layout, 2 x 8 x (64 + 8) = 1,152 (36,864 a token); a page of 16 tokens of
 *     one layer 18,432. */
START_TEST(test_kv_formats)
{
    fixture f = make("llama-3-8b", "h100-sxm-80gb");
    uint64_t b;
    ck_assert_ok(llmmem_strategy_set_text(f.s, "kv_cache_dtype", "int4_per_token_head"));
    ck_assert_ok(llmmem_kv_bytes_per_token(&b, f.m, f.s));
    ck_assert_uint_eq(b, 34816);
    ck_assert_ok(llmmem_strategy_set_text(f.s, "kv_cache_dtype", "fp8_inc"));
    ck_assert_ok(llmmem_kv_bytes_per_token(&b, f.m, f.s));
    ck_assert_uint_eq(b, 65536);
    ck_assert_ok(llmmem_strategy_set_text(f.s, "kv_cache_dtype", "nvfp4_4over6"));
    ck_assert_ok(llmmem_kv_bytes_per_token(&b, f.m, f.s));
    ck_assert_uint_eq(b, 36864);
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 1LL << 30);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_PAGE_BYTES), 18432);
    /* an MLA model has no per-head layout for these */
    fixture g = make("deepseek-v3", "h200");
    ck_assert_ok(llmmem_strategy_set_text(g.s, "kv_cache_dtype", "int4_per_token_head"));
    ck_assert_status(llmmem_kv_bytes_per_token(&b, g.m, g.s), LLMMEM_ERR_UNSUPPORTED);
    release(&g);
    release(&f);
}
END_TEST

START_TEST(test_version_errors)
{
    fixture f = make("llama-3-8b", "h100-sxm-80gb");
    ck_assert_ok(llmmem_strategy_set_text(f.s, "engine_version", "sglang-0.4"));
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_str_eq(llmmem_last_message(), "engine_version (sglang-0.4) is a release of sglang, not of vllm");
    ck_assert_status(llmmem_strategy_set_text(f.s, "engine_version", "vllm-0.1"), LLMMEM_ERR_NOT_FOUND);
    ck_assert_status(llmmem_strategy_set_int(f.s, LLMMEM_KEY_MAX_MODEL_LEN, -2), LLMMEM_ERR_OUT_OF_RANGE);
    /* a local engine has no paged pool */
    ck_assert_ok(llmmem_strategy_set_text(f.s, "engine_version", "latest"));
    ck_assert_ok(llmmem_strategy_set_text(f.s, "engine", "llama.cpp"));
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "llmmem_local_estimate"));
    release(&f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("vllm_releases");
    TCase *tc = tcase_create("vllm_current");
    tcase_add_test(tc, test_release_defaults);
    tcase_add_test(tc, test_log_lmcache_3430_qwen3_8b);
    tcase_add_test(tc, test_log_vllm_12126_llama_vision);
    tcase_add_test(tc, test_log_vllm_12529_qwen2_5_1_5b);
    tcase_add_test(tc, test_log_vllm_10511_llama3_8b_budget);
    tcase_add_test(tc, test_one_line_capacity);
    tcase_add_test(tc, test_max_model_len_auto);
    tcase_add_test(tc, test_kv_formats);
    tcase_add_test(tc, test_version_errors);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
