/* SGLang's start-up sizing (engine sglang), against SGLang's source worked by hand and public
 * SGLang start-up logs.
 *
 * The rules are SGLang's (sgl-project/sglang python/sglang/srt/, read at 003fca80):
 * server_args.py ServerArgs._handle_gpu_memory_settings (the default mem_fraction_static),
 * mem_cache/kv_cache_configurator.py _profile_available_bytes, _handle_max_mamba_cache and
 * _resolve_max_num_reqs, model_executor/pool_configurator.py DefaultPoolConfigurator,
 * HybridSWAPoolConfigurator and DSV4PoolConfigurator (with mem_cache/deepseek_v4_memory_pool.py at
 * 41802551). SGLang computes in GiB doubles (P and A from mem_get_info / 2^30); the expected numbers
 * below follow the same operations, worked with a calculator. A log prints P and A with two decimals
 * (GB = 2^30 bytes there): each carries up to 0.005 GiB of rounding, so a token count rebuilt from them
 * is within that rounding of the logged one. */
#include <stdio.h>
#include <string.h>

#include "dsv4_config.h"
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
    ck_assert_ok(llmmem_strategy_set_int(f.s, LLMMEM_KEY_ENGINE, LLMMEM_ENGINE_SGLANG));
    ck_assert_ok(llmmem_serving_new(&f.r));
    return f;
}

#ifndef LLMMEM_TEST_DATA
#define LLMMEM_TEST_DATA "tests/data"
#endif

/* A fixture of the config.json tests/data/configs/<file>. */
static fixture make_config(const char *file, const char *gpu)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/configs/%s", LLMMEM_TEST_DATA, file);
    fixture f = make("llama-3.1-8b", gpu);
    llmmem_model_free(f.m);
    ck_assert_ok(llmmem_model_from_hf_config(&f.m, path));
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

static void set_real(fixture *f, llmmem_key key, double value)
{
    ck_assert_ok(llmmem_strategy_set_real(f->s, key, value));
}

static void hw(fixture *f, llmmem_key key, int64_t value)
{
    ck_assert_ok(llmmem_hardware_set_int(f->hw, key, value));
}

static void estimate(fixture *f)
{
    ck_assert_ok(llmmem_serving_estimate(f->r, f->m, f->hw, f->s));
}

static uint64_t get(const fixture *f, llmmem_serving_value v)
{
    return llmmem_serving_get(f->r, v);
}

/* The default mem_fraction_static (server_args.py _handle_gpu_memory_settings): reserved MiB = 512 +
 * 1.5 x max(chunked_prefill_size, 2048) + 2 x cuda_graph_max_bs + tp x pp / 8 x 1024, at least 10,240
 * above 60 GiB; round((gpu_mem - reserved) / gpu_mem, 3), gpu_mem nvidia-smi's memory.total in MiB:
 *   H100 SXM (81,559 MiB), TP1: chunked 8192, bs 256: 512 + 12,288 + 512 + 128 = 13,440 -> 0.8352 -> 0.835;
 *   TP8: bs 512: 512 + 12,288 + 1,024 + 1,024 = 14,848 -> 0.8179 -> 0.818;
 *   H200 (143,771 MiB), TP1: 13,440 -> 0.9065 -> 0.907;
 *   RTX 4090 (24 GiB = 24,576 MiB, under 35 GiB: chunked 2048, bs 24): 512 + 3,072 + 48 + 128 = 3,760
 *     -> 0.8470 -> 0.847;
 *   a 16,303 MiB card (under 20 GiB: chunked 2048, bs 8): 512 + 3,072 + 16 + 128 = 3,728 -> 0.771, the
 *     fraction that reproduces the LFM2-700M log of the notes (an SGLang write-up, Dec 2025:
 *     "max_mamba_cache_size: 85292", "#tokens: 473854" on a 16 GB-class card). */
START_TEST(test_default_fraction)
{
    fixture f = make("llama-3.1-8b", "h100-sxm-80gb");
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MEMORY_FRACTION_X10000), 8350);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_RESERVED_BYTES), 13440ULL << 20);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_BATCHED_TOKENS), 8192);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_CUDA_GRAPH_MAX_BS), 256);
    set(&f, LLMMEM_KEY_TENSOR_PARALLEL, 8);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MEMORY_FRACTION_X10000), 8180);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_CUDA_GRAPH_MAX_BS), 512);
    release(&f);
    f = make("llama-3.1-8b", "h200");
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MEMORY_FRACTION_X10000), 9070);
    release(&f);
    f = make("llama-3.1-8b", "rtx-4090");
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MEMORY_FRACTION_X10000), 8470);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_BATCHED_TOKENS), 2048);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_CUDA_GRAPH_MAX_BS), 24);
    hw(&f, LLMMEM_KEY_MEMORY_BYTES, 16303LL << 20);
    llmmem_model_free(f.m);
    ck_assert_ok(llmmem_model_from_preset(&f.m, "qwen2.5-0.5b"));
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MEMORY_FRACTION_X10000), 7710);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_CUDA_GRAPH_MAX_BS), 8);
    /* a given fraction is taken as it is, and nothing is reserved */
    set_real(&f, LLMMEM_KEY_MEM_FRACTION_STATIC, 0.5);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MEMORY_FRACTION_X10000), 5000);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_RESERVED_BYTES), 0);
    release(&f);
}
END_TEST

/* An SGLang 0.4.6.post2 log of Qwen3-0.6B on one GPU (a public SGLang tutorial with the full
 * server_args dump: mem_fraction_static 0.88, page_size 1, chunked_prefill_size 2048, cuda_graph_max_bs 8,
 * context_len 40960). Qwen3-0.6B: 28 layers, 8 KV heads of 128, bf16: 2 x 8 x 128 x 2 x 28 = 114,688 B
 * a token. Lines: "Load weight begin. avail mem=3.23 GB", "Load weight end. ... avail mem=2.03 GB, mem
 * usage=1.20 GB.", "KV Cache is allocated. #tokens: 15387, K size: 0.82 GB, V size: 0.82 GB",
 * "max_total_num_tokens=15387, chunked_prefill_size=2048, max_prefill_tokens=16384,
 * max_running_requests=2049, context_len=40960". From the printed P = 3.23 GiB (3,468,186,092 B) and
 * weights 1.20 GiB (1,288,490,189 B): rest = 2.03 - 3.23 x 0.12 = 1.6424 GiB, int(rest x 2^30) =
 * 1,763,513,571 B // 114,688 = 15,376 tokens, 11 under the log (P and A carry 0.005 GiB each: about 52
 * tokens); max_running_requests = min(max(int(15,376 / 40,960 x 512) = 192, 2048), 4096, 15,376 // 2)
 * = 2,048, logged by 0.4.x as the request pool's 2,049 rows (the padding row counted). */
START_TEST(test_log_qwen3_0_6b_sglang_0_4_6)
{
    fixture f = make("qwen3-8b", "rtx-4060");
    ck_assert_ok(llmmem_model_set_int(f.m, LLMMEM_KEY_HIDDEN_SIZE, 1024));
    ck_assert_ok(llmmem_model_set_int(f.m, LLMMEM_KEY_NUM_HIDDEN_LAYERS, 28));
    ck_assert_ok(llmmem_model_set_int(f.m, LLMMEM_KEY_NUM_ATTENTION_HEADS, 16));
    ck_assert_ok(llmmem_model_set_int(f.m, LLMMEM_KEY_NUM_KEY_VALUE_HEADS, 8));
    ck_assert_ok(llmmem_model_set_int(f.m, LLMMEM_KEY_HEAD_DIM, 128));
    ck_assert_ok(llmmem_model_set_int(f.m, LLMMEM_KEY_INTERMEDIATE_SIZE, 3072));
    ck_assert_ok(llmmem_model_set_int(f.m, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, 40960));
    set(&f, LLMMEM_KEY_ENGINE_VERSION, LLMMEM_ENGINE_VERSION_SGLANG_0_4);
    set_real(&f, LLMMEM_KEY_MEM_FRACTION_STATIC, 0.88);
    set(&f, LLMMEM_KEY_PRE_MODEL_LOAD_BYTES, (int64_t)GIB100(323));
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, (int64_t)GIB100(120));
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_ENGINE), LLMMEM_ENGINE_SGLANG);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BYTES_PER_TOKEN), 114688);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_BATCHED_TOKENS), 2048);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_CUDA_GRAPH_MAX_BS), 8);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), 1763513571ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 15376);
    ck_assert_uint_le(15387 - get(&f, LLMMEM_SERVING_TOKENS), 52);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_MODEL_LEN_SETTING), 40960);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_SEQS), 2049);
    set(&f, LLMMEM_KEY_ENGINE_VERSION, LLMMEM_ENGINE_VERSION_LATEST);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_SEQS), 2048);
    release(&f);
}
END_TEST

/* sgl-project/sglang#18263 (2026-07, an AMD MI355X of 288 GiB, TP1, Qwen3-30B-A3B-Instruct: 48 layers,
 * 4 KV heads of 128, bf16: 98,304 B a token). Lines: "Load weight end. ... avail mem=230.20 GB, mem
 * usage=56.98 GB.", "self.server_args.mem_fraction_static 0.911", "initial available_bytes
 * 219721119039 / 204.63 GB". The default fraction on 294,912 MiB (AMD: total_memory // 2^20; above 160
 * GiB: chunked 16384, bs 512): 512 + 24,576 + 1,024 + 128 = 26,240 -> round(268,672 / 294,912, 3) =
 * 0.911 as logged. The budget from the printed P = 230.20 + 56.98 = 287.18 GiB and weights 56.98 GiB:
 * 230.20 - 287.18 x 0.089 = 204.641 GiB = 219,731,579,129 B, 10,460,090 B (0.0097 GiB) above the log's
 * exact bytes; its 219,721,119,039 // 98,304 = 2,235,118 tokens (the PR's unpatched count), ours
 * 2,235,225: 107 tokens, 0.005 %. */
START_TEST(test_log_sglang_18263_qwen3_30b_a3b_mi355x)
{
    fixture f = make("qwen3-30b-a3b", "mi300x");
    hw(&f, LLMMEM_KEY_MEMORY_BYTES, 288LL << 30);
    hw(&f, LLMMEM_KEY_BACKEND, LLMMEM_BACKEND_ROCM);
    set(&f, LLMMEM_KEY_PRE_MODEL_LOAD_BYTES, (int64_t)GIB100(28718));
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, (int64_t)GIB100(5698));
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MEMORY_FRACTION_X10000), 9110);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_RESERVED_BYTES), 26240ULL << 20);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_BATCHED_TOKENS), 16384);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_CUDA_GRAPH_MAX_BS), 512);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BYTES_PER_TOKEN), 98304);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), 219731579129ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 2235225);
    ck_assert_uint_le(get(&f, LLMMEM_SERVING_TOKENS) - 219721119039ULL / 98304, 107);
    release(&f);
}
END_TEST

/* SemiAnalysisAI/InferenceX#2128 (2026-07-09): DeepSeek-V4-Pro FP8 on 8 x H200, --tp 8
 * --mem-fraction-static 0.88: "Load weight end. quant=fp8, fmt=e4m3, avail mem=12.25 GB, mem usage=125.65
 * GB." then "Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.88. Raise
 * --mem-fraction-static above ... (minimum viable = 1 - available/pre = 0.9113)" (kv_cache_configurator.py
 * _profile_available_bytes). From the printed figures: rest = 12.25 - 137.90 x 0.12 < 0; 1 - 12.25 /
 * 137.90 = 0.91117, above which ceil(1000 x 0.91117) / 1000 = 0.912; the log's 0.9113 comes from the
 * unrounded P and A (0.0001 apart). The rule needs the weights and free memory alone; DeepSeek-V3's
 * preset stands in for the model. */
START_TEST(test_log_inferencex_2128_failure)
{
    fixture f = make("deepseek-v3", "h200");
    set(&f, LLMMEM_KEY_TENSOR_PARALLEL, 8);
    set_real(&f, LLMMEM_KEY_MEM_FRACTION_STATIC, 0.88);
    set(&f, LLMMEM_KEY_PRE_MODEL_LOAD_BYTES, (int64_t)GIB100(13790));
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, (int64_t)GIB100(12565));
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_str_eq(llmmem_last_message(), "SGLang: loaded weights leave no GPU memory for the KV cache under "
                                            "mem_fraction_static 0.880; raise it above 0.912 (minimum viable = 1 - "
                                            "available/pre = 0.9112)");
    ck_assert(!llmmem_serving_valid(f.r));
    set_real(&f, LLMMEM_KEY_MEM_FRACTION_STATIC, 0.92);
    estimate(&f);
    release(&f);
}
END_TEST

/* vllm-project/vllm#21348 (2025-07): Qwen3-235B-A22B-FP8 on 4 x H100 under `sglang.launch_server --tp 4
 * --mem-fraction-static 0.93`: "KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23
 * GB". 94 layers, 4 KV heads of 128 over 4 ranks: one head a rank, K 94 x 128 x 2 = 24,064 B a token,
 * K + V 48,128; 367,404 x 48,128 B = 16.47 GiB, 8.23 each as logged. The log omits the load lines, so
 * the count is capped at the logged one (--max-total-tokens) to read the pool's bytes. */
START_TEST(test_log_vllm_21348_qwen3_235b_sglang_pool)
{
    fixture f = make("qwen3-235b-a22b", "h100-sxm-80gb");
    set(&f, LLMMEM_KEY_TENSOR_PARALLEL, 4);
    set_real(&f, LLMMEM_KEY_MEM_FRACTION_STATIC, 0.93);
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, 55LL << 30); /* FP8 weights of one rank, about 235e9 / 4 bytes */
    set(&f, LLMMEM_KEY_MAX_TOTAL_TOKENS, 367404);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_HEADS_PER_RANK), 1);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BYTES_PER_TOKEN), 48128);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 367404);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_POOL_BYTES), 367404ULL * 48128);
    ck_assert_int_eq((int)((double)get(&f, LLMMEM_SERVING_POOL_BYTES) / 2 / (double)GIB * 100 + 0.5), 823);
    release(&f);
}
END_TEST

/* MLA with DeepSeek's sparse indexer (DeepSeek-V3.2: 61 layers, kv_lora_rank 512, rope 64, index_head_dim
 * 128) on 8 x H200, given P = 130 GiB, weights 80 GiB, fraction 0.9: rest = 50 - 13 = 37 GiB =
 * 39,728,447,488 B. Cell (pool_configurator.py _compute_cell_size): the
 * latent in bf16 (512 + 64) x 2 = 1,152 and the indexer's key with scales 128 + 128 / 128 x 4 = 132 (one
 * byte each), per layer: 1,284 x 61 = 78,324 B; pages of 64 on CUDA (server_args.py: DeepSeek DSA):
 * 39,728,447,488 // 78,324 = 507,232 -> 507,200 tokens. With kv_cache_dtype fp8_e4m3 the latent is 512 +
 * 512 / 128 x 4 + 64 x 2 = 656 (calculate_mla_kv_cache_dim): 788 x 61 = 48,068 B, 826,505 -> 826,496. */
START_TEST(test_mla_sparse_indexer)
{
    fixture f = make("deepseek-v3.2", "h200");
    set(&f, LLMMEM_KEY_TENSOR_PARALLEL, 8);
    set_real(&f, LLMMEM_KEY_MEM_FRACTION_STATIC, 0.9);
    set(&f, LLMMEM_KEY_PRE_MODEL_LOAD_BYTES, 130LL << 30);
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, 80LL << 30);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), 39728447488ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BYTES_PER_TOKEN), 78324);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BLOCK_SIZE), 64);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_TOKENS), 507232);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 507200);
    ck_assert_ok(llmmem_strategy_set_text(f.s, "kv_cache_dtype", "fp8_e4m3"));
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BYTES_PER_TOKEN), 48068);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 826496);
    /* ROCm pages DSA by 1 */
    hw(&f, LLMMEM_KEY_BACKEND, LLMMEM_BACKEND_ROCM);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 826505);
    release(&f);
}
END_TEST

/* Hybrid sliding window (HybridSWAPoolConfigurator): gpt-oss-120b, 36 layers alternating full and
 * 128-token sliding attention, 8 KV heads of 64: F = S = 2 x 8 x 64 x 2 = 2,048 B a token and layer.
 * P = 100 GiB, weights 60 GiB, fraction 0.9: rest = 40 - 10 = 30 GiB = 32,212,254,720 B; cell = 2,048 x 18
 * + 0.8 x 2,048 x 18 = 66,355.2; full = int(32,212,254,720 // 66,355.2) = 485,451, swa = int(485,451 x
 * 0.8) = 388,360 ("Use sliding window memory pool. full_layer_tokens=485451, swa_layer_tokens=388360");
 * pool bytes 485,451 x 36,864 + 388,360 x 36,864 = 32,212,168,704. A request keeps its window and a
 * page in the sliding pool (129 cells), every token in the full one. */
/* DeepSeek-V4-Flash (43 layers: compress_ratios 0, 0, then 4 and 128 by turns: 21 ratio-4, 20 ratio-128; one
 * KV head of 512 = 448 nope + 64 rope, sliding_window 128, index_head_dim 128) on 8 x H200, given P = 130 GiB,
 * weights 25 GiB, fraction 0.9: rest = 105 - 13 = 92 GiB = 98,784,247,808 B. SGLang (mem_cache/
 * deepseek_v4_memory_pool.py at 41802551, model_executor/pool_configurator.py DSV4PoolConfigurator at 003fca80):
 * an entry is 448 fp8 + 64 x 2 bf16 + 448 / 64 scales + 1 pad = 584 B (DeepSeekV4SingleKVPool, asserted); an
 * indexer key 128 + 128 / 128 x 4 = 132 B; the ratio-4 compressor states 2 x 2 x 512 x 4 = 8,192 B and 2 x 2 x
 * 128 x 4 = 2,048 B a slot, 8 slots a 128-token window (get_compress_state_ring_size; float32:
 * SGLANG_DSV4_COMPRESS_STATE_DTYPE). _get_bytes_per_full_token with swa_full_tokens_ratio 0.8:
 *   0.8 x 584 x 43 + 584 / 4 x 21 + 584 / 128 x 20 + 132 / 4 x 21 + 0.8 x 8 / 128 x (8,192 + 2,048) x 21
 *   = 20,089.6 + 3,066 + 91.25 + 693 + 10,752 = 34,691.85 B a full token.
 * The ratio-128 layers' request-scoped state first (_get_c128_state_fixed_bytes_for_token_capacity): 98,784,247,808
 * / 34,691.85 = 2,847,477 tokens, int(2,847,477 / 1,048,576 x 512) = 1,390 -> 2,048 requests; (2,048 + 1) x 128
 * + 128 + 1 = 262,401 rows -> 262,528 (multiple of 128) x 2 x 512 x 4 B x 20 layers = 21,506,293,760 B. Then
 * 77,277,954,048 / 34,691.85 = 2,227,553 -> 2,227,456 tokens (pages of 256: server_args.py DeepseekV4ForCausalLM);
 * swa int(0.8 x 2,227,456) = 1,781,964 -> 1,781,760; c4 556,864, c128 17,402, c4 state 1,781,760 / 128 x 8 =
 * 111,360 rows. Pools: 1,781,760 x 584 x 43 + 556,864 x 584 x 21 + 17,402 x 584 x 20 + 17,402 x 32 x 132 x 21 =
 * 53,319,819,584 B; states 111,360 x 10,240 x 21 + 21,506,293,760 = 45,453,148,160 B. A page of 256 tokens in
 * every pool: 256 x 584 x 43 + 64 x (584 + 132) x 21 + 2 x 584 x 20 = 7,414,336 B (28,962 a token, rounded down).
 * With --max-running-requests 256: (257 x 128 + 129 = 33,025 -> 33,152 rows) x 4,096 x 20 = 2,715,811,840 B,
 * 96,068,435,968 / 34,691.85 = 2,769,193 -> 2,769,152 tokens, swa 2,215,168. */
START_TEST(test_deepseek_v4_pools)
{
    fixture f = make("deepseek-v3", "h200");
    llmmem_model_free(f.m);
    f.m = deepseek_v4_flash("");
    set(&f, LLMMEM_KEY_TENSOR_PARALLEL, 8);
    set_real(&f, LLMMEM_KEY_MEM_FRACTION_STATIC, 0.9);
    set(&f, LLMMEM_KEY_PRE_MODEL_LOAD_BYTES, 130LL << 30);
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, 25LL << 30);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), 98784247808ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BLOCK_SIZE), 256);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_TOKENS), 2227553);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 2227456);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_SWA_TOKENS), 1781760);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_SEQS), 2048);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_POOL_BYTES), 53319819584ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_STATE_POOL_BYTES), 45453148160ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BLOCK_BYTES), 7414336);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BYTES_PER_TOKEN), 28962);
    ck_assert_uint_le(get(&f, LLMMEM_SERVING_POOL_BYTES) + get(&f, LLMMEM_SERVING_STATE_POOL_BYTES),
                      get(&f, LLMMEM_SERVING_KV_CACHE_BYTES));
    set(&f, LLMMEM_KEY_MAX_NUM_SEQS, 256);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_TOKENS), 2769193);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 2769152);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_SWA_TOKENS), 2215168);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_SEQS), 256);
    /* what SGLang's source does not settle stays refused, by name */
    ck_assert_ok(llmmem_strategy_set_text(f.s, "kv_cache_dtype", "bf16"));
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "fp8 only"));
    ck_assert_ok(llmmem_strategy_set_text(f.s, "kv_cache_dtype", "fp8_e4m3"));
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 2769152);
    ck_assert_ok(llmmem_strategy_set_text(f.s, "speculative_method", "mtp"));
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "speculative decoding of deepseek_v4"));
    ck_assert_ok(llmmem_strategy_set_text(f.s, "speculative_method", "none"));
    ck_assert_ok(llmmem_strategy_set_text(f.s, "engine_version", "sglang-0.4"));
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "SGLang 0.4"));
    release(&f);
}
END_TEST

START_TEST(test_hybrid_sliding_window)
{
    fixture f = make("gpt-oss-120b", "h200");
    set_real(&f, LLMMEM_KEY_MEM_FRACTION_STATIC, 0.9);
    set(&f, LLMMEM_KEY_PRE_MODEL_LOAD_BYTES, 100LL << 30);
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, 60LL << 30);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), 32212254720ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BYTES_PER_TOKEN), 73728);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 485451);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_SWA_TOKENS), 388360);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_POOL_BYTES), 32212168704ULL);
    uint64_t n;
    ck_assert_ok(llmmem_serving_max_concurrency(&n, f.r, 100000));
    ck_assert_uint_eq(n, 4); /* 485,451 / 100,000 */
    ck_assert_ok(llmmem_serving_max_concurrency(&n, f.r, 64));
    /* the full pool holds 7,585 of 64 tokens, the sliding one 388,360 / 64; max_running_requests is
     * clamp(int(485,451 / 131,072 x 512) = 1,896, 2048, 4096) = 2,048 */
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_SEQS), 2048);
    ck_assert_uint_eq(n, 2048);
    release(&f);
}
END_TEST

/* Gemma-3-4B (34 layers: five sliding ones of 1,024 tokens to one full; 4 KV heads of 256) is not on
 * configs/model_config.py is_hybrid_swa_model's list (gpt-oss, MiMo-V2, Step-3.5, Gemma 4, Llama 4, Laguna,
 * DeepSeek-V4 at 001adf56): SGLang pages all its layers as full attention, no sliding-window pool. One H200,
 * P = 100 GiB, weights 60 GiB, fraction 0.9: 30 GiB = 32,212,254,720 B; cell 34 x 2 x 4 x 256 x 2 B = 139,264 B:
 * 231,303 tokens; max_running_requests clamp(int(231,303 / 131,072 x 512) = 903, 2048, 4096) = 2,048. */
START_TEST(test_sliding_window_paged_as_full)
{
    fixture f = make("gemma-3-4b", "h200");
    set_real(&f, LLMMEM_KEY_MEM_FRACTION_STATIC, 0.9);
    set(&f, LLMMEM_KEY_PRE_MODEL_LOAD_BYTES, 100LL << 30);
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, 60LL << 30);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), 32212254720ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BYTES_PER_TOKEN), 139264);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 231303);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_SWA_TOKENS), 0);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_SEQS), 2048);
    release(&f);
}
END_TEST

/* A Gated DeltaNet hybrid (Qwen3-Next-80B-A3B: 48 layers, one in four full attention with 2 KV heads of 256;
 * 36 Gated DeltaNet layers of 16 key heads and 32 value heads of 128, conv kernel 4) on 4 x H200, P = 130 GiB,
 * weights 40 GiB, fraction 0.9:
 *   state a request on a rank: conv (4 - 1) x (2 x 16 x 128 + 32 x 128) / 4 = 6,144 elements in bf16 and the
 *   recurrent state 32 / 4 x 128 x 128 = 131,072 in float32 (server_args.py mamba_ssm_dtype): 536,576 B a
 *   layer, x 36 = 19,316,736 B;
 *   rest = 90 - 13 = 77 GiB; _handle_max_mamba_cache: 77 x 0.9 / 1.9 GiB = 39,163,320,212.2 B, int((that -
 *   19,316,736) // 19,316,736) = 2,026 slots, the pool 2,027 x 19,316,736 = 39,155,023,872 B: rest 40.534 GiB
 *   = 43,523,096,576 B;
 *   cell: 12 attention layers, one KV head a rank (2 heads on 4 ranks, replicated): 2 x 256 x 2 x 12 =
 *   12,288 B: 3,541,918 tokens;
 *   max_running_requests: min(clamp(int(3,541,918 / 262,144 x 512), 2048, 4096) = 4096, 1,770,959,
 *   2,026 // 5 = 405) = 405: Qwen3NextForCausalLM is in arg_groups/overrides.py _MAMBA_EXTRA_BUFFER_ARCHS, so with the
 *   radix cache and overlap scheduling on (both defaults) _mamba_radix_cache_resolution turns auto into extra_buffer
 *   and kv_cache_configurator.py _calculate_mamba_ratio gives 3 + 2 (the ping-pong track buffers) = 5 slots. */
START_TEST(test_hybrid_gated_deltanet)
{
    fixture f = make("qwen3-next-80b-a3b", "h200");
    set(&f, LLMMEM_KEY_TENSOR_PARALLEL, 4);
    set_real(&f, LLMMEM_KEY_MEM_FRACTION_STATIC, 0.9);
    set(&f, LLMMEM_KEY_PRE_MODEL_LOAD_BYTES, 130LL << 30);
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, 40LL << 30);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_STATE_BYTES_PER_SEQUENCE), 19316736);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAMBA_CACHE_SIZE), 2026);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_STATE_POOL_BYTES), 2027ULL * 19316736);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), 43523096576ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BYTES_PER_TOKEN), 12288);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 3541918);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_SEQS), 405);
    /* --max-mamba-cache-size 100: the state pool holds 101 slots, 100 // 5 = 20 requests run */
    set(&f, LLMMEM_KEY_MAX_MAMBA_CACHE_SIZE, 100);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAMBA_CACHE_SIZE), 100);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_SEQS), 20);
    release(&f);
}
END_TEST

/* --mamba-radix-cache-strategy on the Qwen3-Next run above (2,026 state slots; the strategy moves no byte:
 * _handle_max_mamba_cache sizes the pool the same, the slots per request only cap max_running_requests):
 *   extra_buffer_lazy: 3 + MAMBA_CACHE_V2_ADDITIONAL_RATIO_OVERLAP_LAZY 1 = 4: 2,026 // 4 = 506;
 *   no_buffer (with --disable-overlap-schedule, which validate_mamba_no_buffer asks for): 3: 2,026 // 3 = 675, and
 *   refused with --page-size 64 ("no_buffer only supports page_size=1");
 *   --disable-radix-cache: 1 slot: min(4096, 1,770,959, 2,026) = 2,026; with --max-running-requests 64 as well,
 *   _handle_max_mamba_cache takes 64 slots (no share of the rest): rest = 77 GiB - 65 x 19,316,736 B =
 *   81,422,532,608 B, // 12,288 = 6,626,182 tokens, 64 requests;
 *   SGLang 0.4 (engine_version sglang-0.4) keeps the 3 slots of a request, 675 + the padding row its log counts. */
START_TEST(test_mamba_radix_cache_strategy)
{
    fixture f = make("qwen3-next-80b-a3b", "h200");
    set(&f, LLMMEM_KEY_TENSOR_PARALLEL, 4);
    set_real(&f, LLMMEM_KEY_MEM_FRACTION_STATIC, 0.9);
    set(&f, LLMMEM_KEY_PRE_MODEL_LOAD_BYTES, 130LL << 30);
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, 40LL << 30);
    ck_assert_ok(llmmem_strategy_set_text(f.s, "mamba_radix_cache_strategy", "extra_buffer"));
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_SEQS), 405);
    ck_assert_ok(llmmem_strategy_set_text(f.s, "mamba_radix_cache_strategy", "extra_buffer_lazy"));
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAMBA_CACHE_SIZE), 2026);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_STATE_POOL_BYTES), 2027ULL * 19316736);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_SEQS), 506);
    ck_assert_ok(llmmem_strategy_set_text(f.s, "mamba_radix_cache_strategy", "no_buffer"));
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_SEQS), 675);
    set(&f, LLMMEM_KEY_BLOCK_SIZE, 64);
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "no_buffer only supports page_size=1"));
    set(&f, LLMMEM_KEY_BLOCK_SIZE, 0);
    ck_assert_ok(llmmem_strategy_set_text(f.s, "mamba_radix_cache_strategy", "auto"));
    set(&f, LLMMEM_KEY_ENABLE_PREFIX_CACHING, 0);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAMBA_CACHE_SIZE), 2026);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_SEQS), 2026);
    set(&f, LLMMEM_KEY_MAX_NUM_SEQS, 64);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAMBA_CACHE_SIZE), 64);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_STATE_POOL_BYTES), 65ULL * 19316736);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), 81422532608ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 6626182);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_SEQS), 64);
    set(&f, LLMMEM_KEY_MAX_NUM_SEQS, 0);
    set(&f, LLMMEM_KEY_ENABLE_PREFIX_CACHING, 1);
    set(&f, LLMMEM_KEY_ENGINE_VERSION, LLMMEM_ENGINE_VERSION_SGLANG_0_4);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_SEQS), 676);
    ck_assert_ok(llmmem_strategy_set_text(f.s, "mamba_radix_cache_strategy", "no_buffer"));
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "SGLang 0.4"));
    release(&f);
}
END_TEST

/* Jamba (JambaForCausalLM) is in neither of overrides.py's Mamba lists: auto stays unresolved (3 slots a request)
 * and an explicit extra buffer, which validate_mamba_extra_buffer asserts the architecture supports, is refused. */
START_TEST(test_mamba_extra_buffer_refused)
{
    fixture f = make("jamba-1.5-mini", "h200");
    ck_assert_ok(llmmem_strategy_set_text(f.s, "mamba_radix_cache_strategy", "extra_buffer"));
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "jamba's architecture"));
    ck_assert_ok(llmmem_strategy_set_text(f.s, "mamba_radix_cache_strategy", "auto"));
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_SEQS), get(&f, LLMMEM_SERVING_MAMBA_CACHE_SIZE) / 3);
    release(&f);
}
END_TEST

/* Kimi-Linear-48B-A3B-Instruct (tests/data/configs/kimi-linear-48b-a3b-instruct.json: 27 layers, kda_layers 20 of them
 * with 32 heads of 128 and short_conv_kernel_size 4, full_attn_layers 7 MLA layers of kv_lora_rank 512 and
 * qk_rope_head_dim 64, bf16) on one H200 (143,771 MiB), TP1, P = 140 GiB, weights 92 GiB, context 1,048,576 (its
 * model_max_length), SGLang's own fraction:
 *   reserved 512 + 1.5 x 8,192 + 2 x 256 + 1/8 x 1,024 = 13,440 MiB -> round(130,331 / 143,771, 3) = 0.907;
 *   state a request (configs/mamba_utils.py KimiLinearStateShape over kimi_linear.py linear_layer_ids): conv
 *   (4 - 1) x (32 x 128 + 2 x 32 x 128) = 36,864 in bf16 = 73,728 B, recurrent 32 x 128 x 128 = 524,288 in float32 =
 *   2,097,152 B: 2,170,880 B a layer, x 20 = 43,417,600 B;
 *   rest = 48 - 140 x 0.093 = 34.98 GiB; _handle_max_mamba_cache: 34.98 x 0.9 / 1.9 GiB = 17,791,336,896.4 B,
 *   int((that - 43,417,600) / 43,417,600) = 408 slots, the pool 409 x 43,417,600 = 17,757,798,400 B: rest
 *   18.44176 GiB, int(rest x 2^30) = 19,801,690,603 B;
 *   cell (model_config.py KimiLinearForCausalLM: AttentionArch.MLA; _compute_cell_size over the 7
 *   full_attention_layer_ids): (512 + 64) x 2 x 7 = 8,064 B: 2,455,566 tokens;
 *   max_running_requests: min(clamp(int(2,455,566 / 1,048,576 x 512) = 1,199, 2048, 4096), 1,227,783, 408 // 5 =
 *   81) = 81 (KimiLinearForCausalLM takes the extra buffer: 5 slots a request, as test_hybrid_gated_deltanet). */
START_TEST(test_kimi_linear_kda_mla)
{
    fixture f = make_config("kimi-linear-48b-a3b-instruct.json", "h200");
    set(&f, LLMMEM_KEY_PRE_MODEL_LOAD_BYTES, 140LL << 30);
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, 92LL << 30);
    set(&f, LLMMEM_KEY_MAX_MODEL_LEN, 1048576);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MEMORY_FRACTION_X10000), 9070);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_STATE_BYTES_PER_SEQUENCE), 43417600);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAMBA_CACHE_SIZE), 408);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_STATE_POOL_BYTES), 409ULL * 43417600);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), 19801690603ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BYTES_PER_TOKEN), 8064);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 2455566);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_SEQS), 81);
    /* --mamba-ssm-dtype bfloat16 halves the recurrent state: 20 x (73,728 + 1,048,576) = 22,446,080 B */
    ck_assert_ok(llmmem_strategy_set_text(f.s, "mamba_ssm_cache_dtype", "bfloat16"));
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_STATE_BYTES_PER_SEQUENCE), 22446080);
    release(&f);
}
END_TEST

/* Kimi K3 (tests/data/configs/kimi-k3.json: 93 layers, 69 KDA layers of 96 heads of 128 with kernel 4, 24 MLA layers
 * of 512 + 64, its MoonViT of vt_num_hidden_layers 27 and vt_hidden_size 1,024) on 16 x H200, TP16 (its 1.56 TB
 * of weights need more than 8 x 141 GB), P = 139 GiB, weights 101 GiB, SGLang's own fraction:
 *   reserved 512 + 12,288 + 2 x 512 + 16 / 8 x 1,024 = 15,872 MiB -> round(127,899 / 143,771, 3) = 0.890;
 *   server_args.py adjust_mem_fraction_for_vlm (configs/kimi_k3.py KimiK3VisionConfig: num_hidden_layers 27,
 *   hidden_size 1,024): ratio 27 x 1,024^2 / (24 x 1,024^2) = 1.125, factor 1 - 0.1 x 0.125 = 0.9875, x 0.95 =
 *   0.938125: fraction 0.890 x 0.938125 = 0.83493125;
 *   rest = 38 - 139 x 0.16506875 = 15.05544375 GiB, less kv_cache_configurator.py mm_runtime_reservation_gb's
 *   SGLANG_VLM_CACHE_SIZE_MB 100 / 1,024 = 14.9577875 GiB;
 *   state a request: conv 3 x 3 x 96 x 128 / 16 = 6,912 in bf16 = 13,824 B, recurrent 96 / 16 x 128 x 128 = 98,304
 *   in float32 = 393,216 B: 407,040 B a layer, x 69 = 28,085,760 B;
 *   _handle_max_mamba_cache: 14.9577875 x 0.9 / 1.9 GiB = 7,607,748,331.5 B: int((that - 28,085,760) / 28,085,760) =
 *   269 slots, the pool 270 x 28,085,760 = 7,583,155,200 B: rest 7.8954239 GiB = 8,477,646,833 B;
 *   cell: the MLA latent is whole on every rank: 576 x 2 x 24 = 27,648 B: 306,627 tokens;
 *   max_running_requests: min(2048, 153,313, 269 // 5 = 53) = 53 (the cookbook's "KDA state slots per request:
 *   extra_buffer=5", the default on this architecture).
 * Without SGLang's profile run the AttnRes banks (which keep vLLM refused) take nothing from this budget. */
START_TEST(test_kimi_k3)
{
    fixture f = make_config("kimi-k3.json", "h200");
    set(&f, LLMMEM_KEY_TENSOR_PARALLEL, 16);
    set(&f, LLMMEM_KEY_PRE_MODEL_LOAD_BYTES, 139LL << 30);
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, 101LL << 30);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MEMORY_FRACTION_X10000), 8349);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_RESERVED_BYTES), 15872ULL << 20);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_STATE_BYTES_PER_SEQUENCE), 28085760);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAMBA_CACHE_SIZE), 269);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_STATE_POOL_BYTES), 270ULL * 28085760);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), 8477646833ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BYTES_PER_TOKEN), 27648);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 306627);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_SEQS), 53);
    uint64_t n;
    ck_assert_ok(llmmem_serving_max_concurrency(&n, f.r, 131072));
    ck_assert_uint_eq(n, 2); /* 306,627 / 131,072 */
    /* the cookbook's H200 recipe (docs/cookbook/autoregressive/Moonshotai/Kimi-K3.mdx: TP16, FlashMLA decode) pages by
     * 64: 306,627 // 64 = 4,791 pages, 306,624 tokens */
    set(&f, LLMMEM_KEY_BLOCK_SIZE, 64);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 4791);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 306624);
    set(&f, LLMMEM_KEY_BLOCK_SIZE, 0);
    /* a given fraction is taken as it is: no VLM factor, the 100 MiB reservation still out of the rest
     * (38 - 139 x 0.1 - 100 / 1,024 = 24.00234375 GiB before the state pool) */
    set_real(&f, LLMMEM_KEY_MEM_FRACTION_STATIC, 0.9);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MEMORY_FRACTION_X10000), 9000);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAMBA_CACHE_SIZE), 433);
    release(&f);
}
END_TEST

/* SGLang's VLM fraction (adjust_mem_fraction_for_vlm), one row a checkpoint, each by hand:
 * Kimi-K2.5 (tests/data/configs/kimi-k2.5.json: the DeepSeek-V3 text model, 61 MLA layers, and MoonViT) on 8 x H200,
 * P = 139 GiB, weights 72 GiB: configs/kimi_k25.py KimiK25VisionConfig keeps num_hidden_layers 27 and hidden_size
 * 1,152 (the checkpoint's vt_* keys are other attributes): ratio 27 x 1,152^2 / (24 x 1,024^2) = 1.423828125, factor
 * 1 - 0.0423828125 = 0.9576171875, x 0.95 = 0.909736328125; reserved 512 + 12,288 + 1,024 + 1,024 = 14,848 MiB ->
 * round(128,923 / 143,771, 3) = 0.897, x 0.909736328125 = 0.816033486; rest = 67 - 139 x 0.183966514 - 0.09765625 =
 * 41.3309983 GiB = 44,378,821,555 B; cell 576 x 2 x 61 = 70,272 B: 631,529 tokens.
 * Qwen3-VL-8B-Instruct (tests/data/configs/qwen3-vl-8b-instruct.json: text_config 36 layers of 8 KV heads of 128 in
 * bf16; vision_config depth 27, hidden_size 1152) on one H200, P = 139 GiB, weights 17 GiB, SGLang's own fraction:
 *   reserved 512 + 12,288 + 512 + 128 = 13,440 MiB -> round(130,331 / 143,771, 3) = 0.907;
 *   adjust_mem_fraction_for_vlm reads getattr(vision_config, "num_hidden_layers", 24): Qwen3VLVisionConfig names its
 *   depth `depth` (no such attribute, no attribute_map) -> 24, and hidden_size 1152: ratio 24 x 1,152^2 /
 *   (24 x 1,024^2) = 1.265625, factor 1 - 0.1 x 0.265625 = 0.9734375, x 0.95 = 0.924765625; fraction 0.907 x
 *   0.924765625 = 0.838762421875 (0.8388 in ten-thousandths);
 *   rest = (139 - 17) - 139 x 0.161237578125 - 100 / 1,024 = 122 - 22.412023359375 - 0.09765625 = 99.490320390625 GiB
 *   = 106,826,918,086 B; cell 36 x 8 x 128 x 2 x 2 = 147,456 B: 724,466 tokens (page 1).
 * Qwen2.5-VL-7B-Instruct (tests/data/configs/qwen2.5-vl-7b-instruct.json: 28 layers of 4 KV heads of 128 in bf16;
 * vision_config depth 32, hidden_size 1280) on one H200, P = 139 GiB, weights 16 GiB: Qwen2_5_VLVisionConfig names its
 * depth `depth` too, so SGLang reads 24 layers, not 32: ratio 24 x 1,280^2 / (24 x 1,024^2) = 1.5625, factor
 * 1 - 0.05625 = 0.94375, x 0.95 = 0.8965625; fraction 0.907 x 0.8965625 = 0.8131821875 (0.8132);
 * rest = 123 - 139 x 0.1868178125 - 0.09765625 = 123 - 25.9676759375 - 0.09765625 = 96.9346678125 GiB
 * = 104,082,807,025 B; cell 28 x 4 x 128 x 2 x 2 = 57,344 B: 1,815,060 tokens. */
static const struct vlm_case {
    const char *config;
    int64_t tp, weights_gib;
    uint64_t fraction_x10000, kv_bytes, bytes_per_token, tokens;
} vlm_cases[] = {
    {"kimi-k2.5.json", 8, 72, 8160, 44378821555ULL, 70272, 631529},
    {"qwen3-vl-8b-instruct.json", 1, 17, 8388, 106826918086ULL, 147456, 724466},
    {"qwen2.5-vl-7b-instruct.json", 1, 16, 8132, 104082807025ULL, 57344, 1815060},
};

START_TEST(test_vlm_fraction)
{
    const struct vlm_case *c = &vlm_cases[_i];
    fixture f = make_config(c->config, "h200");
    set(&f, LLMMEM_KEY_TENSOR_PARALLEL, c->tp);
    set(&f, LLMMEM_KEY_PRE_MODEL_LOAD_BYTES, 139LL << 30);
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, c->weights_gib << 30);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MEMORY_FRACTION_X10000), c->fraction_x10000);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), c->kv_bytes);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BYTES_PER_TOKEN), c->bytes_per_token);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), c->tokens);
    release(&f);
}
END_TEST

/* EXAONE 4.5 33B (tests/data/configs/exaone-4.5-33b.json: vision_config depth 28, hidden_size 2048), multimodal to
 * SGLang through its text_config (model_config.py: hf_config is not hf_text_config); Exaone4_5_VisionConfig has
 * `depth`, so 24 layers: ratio 24 x 2,048^2 / (24 x 1,024^2) = 4, 1 - 0.3 = 0.7 clamped to 0.8, x 0.95 = 0.76;
 * fraction 0.907 x 0.76 = 0.68932 (0.6893); P = 139 GiB, weights 70 GiB: rest = 69 - 139 x 0.31068 - 0.09765625 =
 * 25.71782375 GiB = 27,614,302,982 B.
 * Gemma 3 (gemma-3-4b-pt.json, a 27 x 1152 SigLIP tower): Gemma3ForConditionalGeneration is in model_config.py's
 * mm_disabled_models, so without --enable-multimodal SGLang serves it without the VLM fraction and without the VLM
 * cache: fraction 0.907, P = 139 GiB, weights 9 GiB: rest = 130 - 139 x 0.093 = 117.073 GiB = 125,706,176,561 B. */
START_TEST(test_vlm_clamp_and_text_only)
{
    fixture f = make_config("exaone-4.5-33b.json", "h200");
    set(&f, LLMMEM_KEY_PRE_MODEL_LOAD_BYTES, 139LL << 30);
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, 70LL << 30);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MEMORY_FRACTION_X10000), 6893);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), 27614302982ULL);
    release(&f);
    f = make_config("gemma-3-4b-pt.json", "h200");
    set(&f, LLMMEM_KEY_PRE_MODEL_LOAD_BYTES, 139LL << 30);
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, 9LL << 30);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MEMORY_FRACTION_X10000), 9070);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), 125706176561ULL);
    release(&f);
}
END_TEST

/* MiniMax-M3 (tests/data/configs/minimax-m3.json: 60 layers of 4 KV heads of 128, a lightning indexer of
 * sparse_index_dim 128 on layers 3-59, a clip_vision_model tower of 32 layers of 1,280) on 8 x H200, TP8,
 * P = 139 GiB, weights 100 GiB, SGLang's own fraction:
 *   reserved 512 + 12,288 + 2 x 512 + 1,024 = 14,848 MiB -> round(128,923 / 143,771, 3) = 0.897;
 *   adjust_mem_fraction_for_vlm (configs/minimax_vl.py: the checkpoint's CLIPVisionConfig, 32 layers of 1,280):
 *   ratio 32 x 1,280^2 / (24 x 1,024^2) = 2.0833, factor 1 - 0.10833 = 0.891667, x 0.95 = 0.8470833: fraction
 *   0.75983375; rest = 39 - 139 x 0.24016625 - 100 / 1,024 = 5.519235 GiB = 5,926,233,455 B;
 *   pool_configurator.py _compute_cell_size (is_minimax_sparse): K and V of 1 head (max(1, 4 // 8)) of 128 in bf16 on
 *   60 layers = 30,720 B, the 57 sparse layers' index key of 128 in the model's bf16 (K only) = 14,592 B: 45,312 B;
 *   model_overrides/minimax_m3.py: page_size 128 (fa3 on SM90): 5,926,233,455 // 45,312 = 130,787 -> 1,021 pages,
 *   130,688 tokens; max_running_requests min(clamp(int(130,688 / 1,048,576 x 512) = 63, 2048, 4096), 65,344) = 2,048.
 * kv_cache_dtype fp8_e4m3 shrinks K and V alone: 15,360 + 14,592 = 29,952 B: 197,857 -> 197,760 tokens.
 * Without profile_weights_bytes, SGLang's own rank (models/minimax_m3.py @01b5f572, minimax_m3_vl.py @035888b1,
 * minimax_vl_common.py @420f0de3, layers/attention/vision.py VisionAttention, layers/quantization/unquant.py
 * UnquantizedFusedMoEMethod: no padding of the 384-wide shards), bf16 but the MoE gate and e_score_correction_bias
 * (float32):
 *   the text model as vLLM's TP8 rank holds it (test_families_vlm.c minimax_m3_vllm: the same sharding in
 *   minimax_m3.py: 25,008 vocabulary rows, qkv of 8 + 1 + 1 heads, index_qkv_proj over min(8, 4) ranks, per-head
 *   GemmaRMSNorms of 128, the shared expert fused as a 129th FusedMoE expert of 3,072 / 8 = 384):
 *   106,930,768,896 B;
 *   the tower (vision_config: 32 layers of 1,280, 16 heads, MLP 5,120, patch 14, 3 channels, temporal patch 2) over
 *   the 8 attention ranks (mm_enable_dp_encoder off), every part in bf16 (quant_config None; the Conv3d built in the
 *   model's dtype, the checkpoint's float32 cast on load):
 *     patch_embedding whole 1,280 x 3 x 2 x 14 x 14 = 1,505,280; pre_layrnorm and 32 x 2 LayerNorms (weight, bias)
 *     130 x 1,280 = 166,400; post_layernorm (built: require_post_norm unset, all 32 layers kept; not in the
 *     checkpoint) 2,560;
 *     VisionAttention: qkv_proj (QKVParallelLinear, 2 of 16 heads of 80) 3 x 1,280 x 160 and proj
 *     (RowParallelLinear) 1,280 x 160: 32 x 819,200 = 26,214,400; biases 32 x (3 x 160 + 1,280 whole) = 56,320;
 *     fc1 (Column) 640 x 1,280 and fc2 (Row) 1,280 x 640: 32 x 1,638,400 = 52,428,800; biases 32 x (640 + 1,280
 *     whole) = 61,440;
 *     multi_modal_projector.linear_1 (Column) 768 x 1,280 = 983,040, patch_merge_mlp.linear_1 (Column) 768 x
 *     24,576 = 18,874,368, both linear_2 (Row) 2 x 6,144 x 768 = 9,437,184, biases 2 x 768 + 2 x 6,144 whole =
 *     13,824;
 *     109,743,616 elements: 219,487,232 B;
 *   weights 107,150,256,128 B: rest = (149,250,113,536 - 107,150,256,128) / 2^30 - 139 x 0.24016625 - 100 / 1,024
 *   = 39.20839 - 33.38310875 - 0.09765625 = 5.727783 GiB = 6,150,159,727 B: // 45,312 = 135,729 -> 1,060 pages,
 *   135,680 tokens. On ROCm refused by name. */
START_TEST(test_minimax_m3)
{
    fixture f = make_config("minimax-m3.json", "h200");
    set(&f, LLMMEM_KEY_TENSOR_PARALLEL, 8);
    set(&f, LLMMEM_KEY_PRE_MODEL_LOAD_BYTES, 139LL << 30);
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, 100LL << 30);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MEMORY_FRACTION_X10000), 7598);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), 5926233455ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BYTES_PER_TOKEN), 45312);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BLOCK_SIZE), 128);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_PAGE_BYTES), 45312 * 128);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 1021);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 130688);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_SEQS), 2048);
    set(&f, LLMMEM_KEY_KV_CACHE_DTYPE, LLMMEM_KV_CACHE_FP8_E4M3);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BYTES_PER_TOKEN), 29952);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 197760);
    /* SGLang's own rank: the tower split over the attention ranks */
    set(&f, LLMMEM_KEY_KV_CACHE_DTYPE, LLMMEM_KV_CACHE_AUTO);
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, -1);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_WEIGHTS), 107150256128ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), 6150159727ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 1060);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 135680);
    /* VisionAttention divides the tower's heads over the ranks: 12 heads do not split over 8 */
    ck_assert_ok(llmmem_model_set_int(f.m, LLMMEM_KEY_VISION_NUM_ATTENTION_HEADS, 12));
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "vision_num_attention_heads (12)"));
    ck_assert_ok(llmmem_model_set_int(f.m, LLMMEM_KEY_VISION_NUM_ATTENTION_HEADS, 16));
    /* ROCm: model_overrides/minimax_m3.py takes the triton backend without a page size of its own */
    hw(&f, LLMMEM_KEY_BACKEND, LLMMEM_BACKEND_ROCM);
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "minimax_m3_vl under SGLang on ROCm"));
    release(&f);
}
END_TEST

/* max_running_requests and the page rounding: Llama-3.1-8B (131,072 B a token), P = 60 GiB, weights 15 GiB,
 * fraction 0.9: rest = 45 - 6 = 39 GiB = 41,875,931,136 B: 319,488 tokens; --page-size 64 keeps 319,488
 * (4,992 pages); --max-running-requests 100 caps the estimate of clamp(int(319,488 / 131,072 x 512),
 * 2048, 4096) = 2,048; --max-total-tokens 100,000 caps the pool at 99,968 (whole pages of 64). */
START_TEST(test_requests_and_pages)
{
    fixture f = make("llama-3.1-8b", "h100-sxm-80gb");
    set_real(&f, LLMMEM_KEY_MEM_FRACTION_STATIC, 0.9);
    set(&f, LLMMEM_KEY_PRE_MODEL_LOAD_BYTES, 60LL << 30);
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, 15LL << 30);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), 41875931136ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 319488);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_SEQS), 2048);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_CONCURRENCY), 2); /* 131,072-token requests */
    set(&f, LLMMEM_KEY_BLOCK_SIZE, 64);
    set(&f, LLMMEM_KEY_MAX_NUM_SEQS, 100);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 4992);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_SEQS), 100);
    uint64_t n;
    ck_assert_ok(llmmem_serving_max_concurrency(&n, f.r, 1000));
    ck_assert_uint_eq(n, 100); /* 319,488 / 1,024 = 312 fit, 100 run */
    set(&f, LLMMEM_KEY_MAX_TOTAL_TOKENS, 100000);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 99968);
    char *json;
    ck_assert_ok(llmmem_serving_to_json(&json, f.r));
    ck_assert_ptr_nonnull(strstr(json, "\"engine\": \"sglang\""));
    ck_assert_ptr_nonnull(strstr(json, "\"tokens\": 99968"));
    ck_assert_ptr_null(strstr(json, "cuda_graphs"));
    llmmem_string_free(json);
    release(&f);
}
END_TEST

START_TEST(test_errors)
{
    fixture f = make("llama-3.1-8b", "h100-sxm-80gb");
    set(&f, LLMMEM_KEY_PIPELINE_PARALLEL, 2);
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "pipeline_parallel (2)"));
    set(&f, LLMMEM_KEY_PIPELINE_PARALLEL, 1);
    ck_assert_ok(llmmem_strategy_set_text(f.s, "kv_cache_dtype", "int8_per_token_head"));
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "kv_cache_dtype (int8_per_token_head)"));
    ck_assert_ok(llmmem_strategy_set_text(f.s, "kv_cache_dtype", "auto"));
    ck_assert_ok(llmmem_strategy_set_text(f.s, "engine_version", "vllm-0.20"));
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_str_eq(llmmem_last_message(), "engine_version (vllm-0.20) is a release of vllm, not of sglang");
    ck_assert_ok(llmmem_strategy_set_text(f.s, "engine_version", "latest"));
    set(&f, LLMMEM_KEY_REQUEST_TOKENS, 200000);
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "SGLang refuses"));
    set(&f, LLMMEM_KEY_REQUEST_TOKENS, 0);
    /* weights above the free memory */
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, 100LL << 30);
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "exceed the memory free before they load"));
    release(&f);
    /* a tower whose config class is not read (Llama 4's, beside a projector SGLang would serve) */
    fixture g = make_config("llava-1.5-7b-hf.json", "h100-sxm-80gb");
    ck_assert_ok(llmmem_model_set_int(g.m, LLMMEM_KEY_VISION_MODEL_TYPE, 7));
    ck_assert_ok(llmmem_model_set_int(g.m, LLMMEM_KEY_VISION_OUTPUT_DIM, 7680));
    ck_assert_ok(llmmem_model_set_int(g.m, LLMMEM_KEY_PROJECTOR_INPUT_DIM, 4096));
    ck_assert_ok(llmmem_model_set_int(g.m, LLMMEM_KEY_PROJECTOR_OUTPUT_DIM, 4096));
    ck_assert_status(llmmem_serving_estimate(g.r, g.m, g.hw, g.s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_str_eq(llmmem_last_message(), "llama with its llama4_vision_model tower under SGLang is not modelled: the "
                     "vision config's num_hidden_layers and hidden_size that server_args.py adjust_mem_fraction_for_vlm "
                     "reads are known for clip_vision_model, siglip_vision_model, pixtral, gemma4_vision, qwen2_5_vl, "
                     "qwen3_vl, exaone4_5_vision, moonvit, kimi_k3_vision, minimax_m3_vision only");
    release(&g);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sglang");
    TCase *tc = tcase_create("sglang");
    tcase_add_test(tc, test_default_fraction);
    tcase_add_test(tc, test_log_qwen3_0_6b_sglang_0_4_6);
    tcase_add_test(tc, test_log_sglang_18263_qwen3_30b_a3b_mi355x);
    tcase_add_test(tc, test_log_inferencex_2128_failure);
    tcase_add_test(tc, test_log_vllm_21348_qwen3_235b_sglang_pool);
    tcase_add_test(tc, test_mla_sparse_indexer);
    tcase_add_test(tc, test_deepseek_v4_pools);
    tcase_add_test(tc, test_hybrid_sliding_window);
    tcase_add_test(tc, test_sliding_window_paged_as_full);
    tcase_add_test(tc, test_hybrid_gated_deltanet);
    tcase_add_test(tc, test_mamba_radix_cache_strategy);
    tcase_add_test(tc, test_mamba_extra_buffer_refused);
    tcase_add_test(tc, test_kimi_linear_kda_mla);
    tcase_add_test(tc, test_kimi_k3);
    tcase_add_loop_test(tc, test_vlm_fraction, 0, (int)(sizeof vlm_cases / sizeof vlm_cases[0]));
    tcase_add_test(tc, test_minimax_m3);
    tcase_add_test(tc, test_vlm_clamp_and_text_only);
    tcase_add_test(tc, test_requests_and_pages);
    tcase_add_test(tc, test_errors);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
