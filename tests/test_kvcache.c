/* KV cache bytes and vLLM-style serving capacity, against hand derivations.
 *
 * Every expected number below is worked out in its comment from a public source: the model's
 * config.json on the Hugging Face Hub, the PagedAttention paper (Kwon et al. 2023), vLLM's own
 * arithmetic (vllm/v1/kv_cache_interface.py, vllm/v1/core/kv_cache_utils.py,
 * vllm/v1/worker/gpu_worker.py) written out, or a vLLM log line quoted with its thread. */
#include <stdio.h>
#include <string.h>

#include "job_fixture.h"
#include "engines/serving.h"
#include "views/kv.h"
#include "unit.h"

/* Llama-3-8B: meta-llama/Meta-Llama-3-8B config.json, 32 layers, 8 KV heads of head_dim 128
 * (4096 / 32), bf16: 2 (K, V) x 8 x 128 x 2 bytes = 4096 bytes per token and layer,
 * x 32 layers = 131,072 bytes per token; a 16-token page of one layer is 65,536 bytes. */
#define LLAMA3_8B_TOKEN 131072ULL
#define LLAMA3_8B_PAGE 65536ULL

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
    /* the derivations below follow vLLM through 0.20 (gpu_memory_utilization 0.9, CUDA graphs outside the
     * budget, "GPU KV cache size" = num_blocks // groups x block_size); test_vllm_releases.c holds the
     * current release's */
    ck_assert_ok(llmmem_strategy_set_int(f.s, LLMMEM_KEY_ENGINE_VERSION, LLMMEM_ENGINE_VERSION_VLLM_0_20));
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
    ck_assert(llmmem_serving_valid(f->r));
}

static uint64_t get(const fixture *f, llmmem_serving_value v)
{
    return llmmem_serving_get(f->r, v);
}

static uint64_t per_token(const fixture *f)
{
    uint64_t b;
    ck_assert_ok(llmmem_kv_bytes_per_token(&b, f->m, f->s));
    return b;
}

static uint64_t contiguous(const fixture *f, uint64_t sequences, uint64_t tokens)
{
    uint64_t b;
    ck_assert_ok(llmmem_kv_cache_bytes(&b, f->m, f->s, sequences, tokens));
    return b;
}

/* ---- bytes per token ----------------------------------------------------------------- */

/* Llama-2-7B (meta-llama/Llama-2-7b-hf config.json: 32 layers, 32 heads, no GQA, head_dim 128,
 * float16): 2 x 32 x 128 x 2 bytes x 32 layers = 524,288 bytes per token; a 4096-token sequence
 * holds 2,147,483,648 bytes (2 GiB), a batch of 32 of them 68,719,476,736 (68.7 GB). */
START_TEST(test_llama2_7b_mha)
{
    fixture f = make("llama-2-7b", "h100-sxm-80gb");
    ck_assert_uint_eq(per_token(&f), 524288);
    ck_assert_uint_eq(contiguous(&f, 1, 4096), 2147483648ULL);
    ck_assert_uint_eq(contiguous(&f, 32, 4096), 68719476736ULL);
    ck_assert_uint_eq(contiguous(&f, 32, 4096) / GB, 68); /* 68.7 GB */
    release(&f);
}
END_TEST

/* GQA: Llama-3-8B keeps 8 KV heads, not 32 (the bug the peers note: sizing with query heads is
 * 4x too big here). 131,072 bytes per token; 32 x 4096 tokens: 17,179,869,184 bytes (17.2 GB). */
START_TEST(test_llama3_8b_gqa)
{
    fixture f = make("llama-3-8b", "h100-sxm-80gb");
    ck_assert_uint_eq(per_token(&f), LLAMA3_8B_TOKEN);
    ck_assert_uint_eq(contiguous(&f, 32, 4096), 17179869184ULL);
    ck_assert_uint_eq((contiguous(&f, 32, 4096) + GB / 20) / (GB / 10), 172); /* 17.2 GB */
    release(&f);
}
END_TEST

/* Llama-3-70B (meta-llama/Meta-Llama-3-70B config.json: 80 layers, 8 KV heads, head_dim 128,
 * bf16): 2 x 8 x 128 x 2 bytes x 80 layers = 327,680 bytes per token, not 8 times that. */
START_TEST(test_llama3_70b)
{
    fixture f = make("llama-3.1-70b", "h100-sxm-80gb");
    ck_assert_uint_eq(per_token(&f), 327680);
    release(&f);
}
END_TEST

/* Kwon et al. 2023 (PagedAttention) §3: OPT-13B keeps 2 (key and value) x 5120 (hidden size)
 * x 40 (layers) x 2 (bytes, fp16) = 819,200 bytes, "800 KB", per token. Shape from
 * facebook/opt-13b config.json (hidden 5120, 40 layers of 40 heads, ffn 20480, vocab 50272). */
START_TEST(test_opt_13b_pagedattention_paper)
{
    llmmem_model *m;
    llmmem_strategy *s;
    ck_assert_ok(llmmem_model_new(&m));
    ck_assert_ok(llmmem_model_set_text(m, "model_type", "opt"));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_HIDDEN_SIZE, 5120));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_HIDDEN_LAYERS, 40));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_ATTENTION_HEADS, 40));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_INTERMEDIATE_SIZE, 20480));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_VOCAB_SIZE, 50272));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, 2048));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_TORCH_DTYPE, LLMMEM_FORMAT_FP16));
    ck_assert_ok(llmmem_strategy_new(&s));
    uint64_t b;
    ck_assert_ok(llmmem_kv_bytes_per_token(&b, m, s));
    ck_assert_uint_eq(b, 819200);
    ck_assert_uint_eq(b, 800 * 1024);
    llmmem_strategy_free(s);
    llmmem_model_free(m);
}
END_TEST

/* DeepSeek-V3 (deepseek-ai/DeepSeek-V3 config.json: 61 layers, kv_lora_rank 512,
 * qk_rope_head_dim 64, 128 heads, qk_nope_head_dim 128, v_head_dim 128, bf16 activations).
 * vLLM MLAAttentionSpec keeps one latent of 512 + 64 elements per token and layer, no factor 2:
 * 576 x 2 bytes x 61 = 70,272 bytes per token, a 16-token page 16 x 1152 = 18,432 bytes, the same
 * on every tensor-parallel rank (get_num_kv_heads is 1 for MLA). fp8_ds_mla packs a token in
 * 656 bytes (512 fp8 + 4 fp32 scales + 64 bf16): 656 x 61 = 40,016. Hugging Face's
 * DeepseekV3Attention caches decompressed keys (128 x (128 + 64)) and values (128 x 128):
 * 128 x 320 x 2 bytes x 61 = 4,997,120 bytes per token. */
START_TEST(test_deepseek_v3_mla)
{
    fixture f = make("deepseek-v3", "h200");
    ck_assert_uint_eq(per_token(&f), 70272);
    ck_assert_uint_eq(per_token(&f), (512 + 64) * 2 * 61);
    ck_assert_uint_eq(contiguous(&f, 1, 1), 4997120);
    set(&f, LLMMEM_KEY_TENSOR_PARALLEL, 8);
    ck_assert_uint_eq(per_token(&f), 70272);
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 1LL << 30);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_PAGE_BYTES), 18432);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_HEADS_PER_RANK), 1);
    /* 2^30 // 18,432 // 61 = 58,254 // 61 = 954 */
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 954);
    ck_assert_ok(llmmem_strategy_set_text(f.s, "kv_cache_dtype", "fp8_ds_mla"));
    ck_assert_uint_eq(per_token(&f), 40016);
    ck_assert_uint_eq(per_token(&f), 656 * 61);
    /* fp8: one byte per latent element, 576 x 61 = 35,136 */
    ck_assert_ok(llmmem_strategy_set_text(f.s, "kv_cache_dtype", "fp8"));
    ck_assert_uint_eq(per_token(&f), 35136);
    release(&f);
}
END_TEST

/* Quantized KV formats of vLLM (kv_cache_interface.py), Llama-3-8B, per token and layer:
 * fp8 (per-tensor scale held by the layer) 2 x 8 x 128 x 1 = 2048 bytes;
 * int8/fp8 per token and head add 2 x 8 fp32 scales: 2048 + 64 = 2112;
 * nvfp4 packs head_size // 2 + head_size // 16 = 64 + 8 bytes per head: 2 x 8 x 72 = 1152. */
START_TEST(test_quantized_formats)
{
    fixture f = make("llama-3-8b", "h100-sxm-80gb");
    static const struct {
        const char *name;
        uint64_t bytes;
    } cases[] = {{"fp32", 8 * 1024 * 32},        {"fp16", 4096 * 32},         {"bf16", 4096 * 32},
                 {"fp8", 2048 * 32},             {"fp8_e4m3", 2048 * 32},     {"fp8_e5m2", 2048 * 32},
                 {"int8_per_token_head", 2112 * 32}, {"fp8_per_token_head", 2112 * 32}, {"nvfp4", 1152 * 32}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert_ok(llmmem_strategy_set_text(f.s, "kv_cache_dtype", cases[i].name));
        ck_assert_msg(per_token(&f) == cases[i].bytes, "%s: %llu", cases[i].name, (unsigned long long)per_token(&f));
    }
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 1LL << 30);
    ck_assert_ok(llmmem_strategy_set_text(f.s, "kv_cache_dtype", "nvfp4"));
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_PAGE_BYTES), 16 * 1152); /* 18,432 */
    /* a head of 1 packs 1 // 2 + 1 // 16 = 0 bytes: a page of none (it divided by zero before) */
    ck_assert_ok(llmmem_model_set_int(f.m, LLMMEM_KEY_HEAD_DIM, 1));
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "kv_cache_dtype (nvfp4) with head_dim 1"));
    release(&f);
}
END_TEST

/* ---- paged capacity -------------------------------------------------------------------- */

/* The issue's capacity example: a 60 GB (decimal) KV budget for a Llama-3-8B-shaped model with
 * 16-token pages. vLLM get_num_blocks: 60,000,000,000 // 65,536 // 32 = 915,527 // 32 = 28,610
 * blocks of 2 MiB (every layer); 28,610 x 16 = 457,760 tokens; sequences of 4096 tokens need
 * 256 blocks: 28,610 // 256 = 111 fit, and vLLM logs 28,610 / 256 = 111.76x. */
START_TEST(test_capacity_60gb)
{
    fixture f = make("llama-3-8b", "h100-sxm-80gb");
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 60000000000LL);
    set(&f, LLMMEM_KEY_MAX_MODEL_LEN, 4096);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_PAGE_BYTES), LLAMA3_8B_PAGE);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BLOCK_BYTES), 2097152);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 28610);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 457760);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BLOCKS_PER_REQUEST), 256);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_CONCURRENCY), 111);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_VLLM_CONCURRENCY_X100), 11176);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), 60000000000ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_GROUPS), 1);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_LAYERS_PER_GROUP), 32);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_FITS), 1);
    uint64_t n;
    ck_assert_ok(llmmem_serving_max_concurrency(&n, f.r, 4096));
    ck_assert_uint_eq(n, 111);
    ck_assert_ok(llmmem_serving_max_concurrency(&n, f.r, 1000)); /* 63 blocks: 28,610 // 63 = 454 */
    ck_assert_uint_eq(n, 454);
    /* longest request: max_model_len caps it at 4096; at 8192 (max_position_embeddings) too */
    ck_assert_ok(llmmem_serving_max_model_len(&n, f.r));
    ck_assert_uint_eq(n, 4096);
    /* contiguous (Hugging Face) batch of 4096-token sequences in the same 60e9 bytes:
     * 60e9 // (4096 x 131,072 = 536,870,912) = 111 */
    ck_assert_ok(llmmem_serving_max_batch(&n, f.r, 4096));
    ck_assert_uint_eq(n, 111);
    release(&f);
}
END_TEST

/* fp8 halves the page, so the same budget holds twice the blocks: 60e9 // 32,768 // 32 =
 * 1,831,054 // 32 = 57,220 (bf16: 28,610); 65,536 bytes per token. */
START_TEST(test_fp8_halves_the_page)
{
    fixture f = make("llama-3-8b", "h100-sxm-80gb");
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 60000000000LL);
    set(&f, LLMMEM_KEY_KV_CACHE_DTYPE, LLMMEM_KV_CACHE_FP8);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_PAGE_BYTES), LLAMA3_8B_PAGE / 2);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BYTES_PER_TOKEN), 65536);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 57220);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 2 * 28610);
    release(&f);
}
END_TEST

/* Waste: a request of 4001 tokens takes ceil(4001 / 16) = 251 blocks, 15 token slots of its last
 * block unused: 15 x 131,072 = 1,966,080 bytes; 4000 tokens fill 250 blocks exactly. */
START_TEST(test_waste_and_fits)
{
    fixture f = make("llama-3-8b", "h100-sxm-80gb");
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 60000000000LL);
    estimate(&f);
    uint64_t blocks, waste;
    ck_assert_ok(llmmem_serving_request_blocks(&blocks, &waste, f.r, 4001));
    ck_assert_uint_eq(blocks, 251);
    ck_assert_uint_eq(waste, 1966080);
    ck_assert_ok(llmmem_serving_request_blocks(&blocks, &waste, f.r, 4000));
    ck_assert_uint_eq(blocks, 250);
    ck_assert_uint_eq(waste, 0);
    ck_assert_ok(llmmem_serving_request_blocks(&blocks, NULL, f.r, 1));
    ck_assert_uint_eq(blocks, 1);
    /* max_model_len defaults to max_position_embeddings, 8192 */
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_MODEL_LEN_SETTING), 8192);
    int fits;
    ck_assert_ok(llmmem_serving_fits_request(&fits, f.r, 8192));
    ck_assert_int_eq(fits, 1);
    ck_assert_ok(llmmem_serving_fits_request(&fits, f.r, 8193)); /* longer than max_model_len */
    ck_assert_int_eq(fits, 0);
    uint64_t n;
    ck_assert_ok(llmmem_serving_max_concurrency(&n, f.r, 8193));
    ck_assert_uint_eq(n, 0);
    /* a budget of 100 blocks (100 x 2 MiB): 1600 tokens is the longest request */
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 100 * 2097152LL);
    estimate(&f);
    ck_assert_ok(llmmem_serving_max_model_len(&n, f.r));
    ck_assert_uint_eq(n, 1600);
    ck_assert_ok(llmmem_serving_fits_request(&fits, f.r, 1600));
    ck_assert_int_eq(fits, 1);
    ck_assert_ok(llmmem_serving_fits_request(&fits, f.r, 1601));
    ck_assert_int_eq(fits, 0);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_FITS), 0); /* 8192 tokens do not fit: vLLM would not start */
    release(&f);
}
END_TEST

/* Prefix sharing (vLLM prefix caching shares full blocks only). 28,610 blocks; requests of 4096
 * tokens (256 blocks) whose first 2048 tokens (128 blocks) are a shared system prompt: the prefix
 * is stored once, each request adds 128 blocks: (28,610 - 128) // 128 = 222. A 2050-token prefix
 * still shares only its 128 full blocks. Without prefix caching, 111. */
START_TEST(test_prefix_sharing)
{
    fixture f = make("llama-3-8b", "h100-sxm-80gb");
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 60000000000LL);
    set(&f, LLMMEM_KEY_SHARED_PREFIX_TOKENS, 2048);
    set(&f, LLMMEM_KEY_REQUEST_TOKENS, 4096);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_CONCURRENCY), 222);
    set(&f, LLMMEM_KEY_SHARED_PREFIX_TOKENS, 2050);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_CONCURRENCY), 222);
    set(&f, LLMMEM_KEY_ENABLE_PREFIX_CACHING, 0);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_CONCURRENCY), 111);
    release(&f);
}
END_TEST

/* Parallel sampling / beam width n = 4, prompt of 1000 tokens, 1500 tokens per sequence: the
 * prompt's 62 full blocks are shared, each of the 4 sequences holds ceil(1500 / 16) - 62 = 32 of
 * its own: 62 + 4 x 32 = 190 blocks per request; 28,610 // 190 = 150 requests (600 sequences).
 * Without sharing, 4 x 94 = 376 blocks: 76 requests. */
START_TEST(test_parallel_sampling)
{
    fixture f = make("llama-3-8b", "h100-sxm-80gb");
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 60000000000LL);
    set(&f, LLMMEM_KEY_N, 4);
    set(&f, LLMMEM_KEY_PROMPT_TOKENS, 1000);
    estimate(&f);
    uint64_t n;
    ck_assert_ok(llmmem_serving_max_concurrency(&n, f.r, 1500));
    ck_assert_uint_eq(n, 150);
    set(&f, LLMMEM_KEY_ENABLE_PREFIX_CACHING, 0);
    estimate(&f);
    ck_assert_ok(llmmem_serving_max_concurrency(&n, f.r, 1500));
    ck_assert_uint_eq(n, 76);
    release(&f);
}
END_TEST

/* ---- sliding windows ----------------------------------------------------------------- */

/* Mistral-7B-v0.1 (mistralai/Mistral-7B-v0.1 config.json: sliding_window 4096 on all 32 layers,
 * 8 KV heads, head_dim 128): a contiguous cache of 8192 tokens keeps 4096 per layer:
 * 32 x 4096 x 4096 bytes = 536,870,912, half of the 1 GiB without the window. vLLM's
 * SlidingWindowSpec sizes a request for min(4096 - 1 + max_num_batched_tokens, tokens) tokens:
 * with 2048 batched tokens, ceil(6143 / 16) + 1 = 385 blocks for 8192 tokens (512 without). */
START_TEST(test_mistral_sliding_window)
{
    fixture f = make("mistral-7b-v0.1", "l4");
    ck_assert_ok(llmmem_model_set_int(f.m, LLMMEM_KEY_SLIDING_WINDOW, 4096));
    ck_assert_uint_eq(contiguous(&f, 1, 8192), 536870912);
    ck_assert_uint_eq(contiguous(&f, 1, 4096), 536870912);
    ck_assert_uint_eq(contiguous(&f, 1, 1000), 1000 * LLAMA3_8B_TOKEN);
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 1LL << 30);
    set(&f, LLMMEM_KEY_MAX_NUM_BATCHED_TOKENS, 2048);
    set(&f, LLMMEM_KEY_MAX_NUM_SEQS, 256);
    set(&f, LLMMEM_KEY_MAX_MODEL_LEN, 8192);
    estimate(&f);
    uint64_t blocks;
    ck_assert_ok(llmmem_serving_request_blocks(&blocks, NULL, f.r, 8192));
    ck_assert_uint_eq(blocks, 385);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_GROUPS), 1);
    /* every layer slides, so the longest request is only bounded by max_model_len */
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_MODEL_LEN), 8192);
    ck_assert_ok(llmmem_model_set_int(f.m, LLMMEM_KEY_SLIDING_WINDOW, 0));
    estimate(&f);
    ck_assert_ok(llmmem_serving_request_blocks(&blocks, NULL, f.r, 8192));
    ck_assert_uint_eq(blocks, 512);
    ck_assert_uint_eq(contiguous(&f, 1, 8192), 1073741824);
    release(&f);
}
END_TEST

/* Gemma 2 (google/gemma-2-9b config.json: 42 layers, sliding_window 4096 on the even layers,
 * 8 KV heads of head_dim 256, served in bf16): 2 x 8 x 256 x 2 = 8192 bytes per token and layer.
 * Contiguous, 8192 tokens: 21 global layers keep 8192 tokens, 21 local ones 4096:
 * 21 x (8192 + 4096) x 8192 = 2,113,929,216 bytes (42 x 8192 x 8192 = 2,818,572,288 without).
 * vLLM groups the 21 full and 21 sliding layers into two groups of 21 (group_size = 21):
 * page 16 x 8192 = 131,072; a 10 GiB budget gives 10,737,418,240 // 131,072 // 21 = 3,900
 * blocks, 3,900 // 2 x 16 = 31,200 tokens logged; 8192 tokens need 512 (full) +
 * ceil(min(4095 + 2048, 8192) / 16) + 1 = 385 (sliding) = 897 blocks: 3,900 / 897 = 4.35x. */
START_TEST(test_gemma2_alternating)
{
    fixture f = make("gemma-2-9b", "l4");
    ck_assert_ok(llmmem_model_set_int(f.m, LLMMEM_KEY_SLIDING_WINDOW, 4096));
    set(&f, LLMMEM_KEY_KV_CACHE_DTYPE, LLMMEM_KV_CACHE_BF16);
    ck_assert_uint_eq(contiguous(&f, 1, 8192), 2113929216ULL);
    ck_assert_uint_eq(per_token(&f), 42 * 8192);
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 10LL << 30);
    set(&f, LLMMEM_KEY_MAX_NUM_BATCHED_TOKENS, 2048);
    set(&f, LLMMEM_KEY_MAX_NUM_SEQS, 256);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_GROUPS), 2);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_LAYERS_PER_GROUP), 21);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_PAGE_BYTES), 131072);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 3900);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 31200);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_MODEL_LEN_SETTING), 8192);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BLOCKS_PER_REQUEST), 897);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_VLLM_CONCURRENCY_X100), 435);
    /* --disable-hybrid-kv-cache-manager: one group of 42 full-attention layers:
     * 81,920 // 42 = 1,950 blocks, 512 per request */
    set(&f, LLMMEM_KEY_DISABLE_HYBRID_KV_CACHE_MANAGER, 1);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_GROUPS), 1);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_LAYERS_PER_GROUP), 42);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 1950);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BLOCKS_PER_REQUEST), 512);
    release(&f);
}
END_TEST

/* Gemma 3 4B (google/gemma-3-4b-it text_config: 34 layers, sliding_window 1024,
 * sliding_window_pattern 6, 4 KV heads of head_dim 256): layers 5, 11, 17, 23, 29 are global, 29
 * slide. vLLM _get_kv_cache_groups_uniform_page_size: 29 >= 1.5 x 5, so group_size 5: one full
 * group and ceil(29 / 5) = 6 sliding groups (one padded), 7 groups of 5 layers. Page
 * 16 x 2 x 4 x 256 x 2 = 65,536; 8 GiB: 131,072 // 5 = 26,214 blocks, 26,214 // 7 x 16 = 59,904
 * tokens. 32,768 tokens (2048 batched) need 2048 + 6 x (ceil(3071 / 16) + 1) = 2048 + 6 x 193 =
 * 3,206 blocks: 26,214 / 3,206 = 8.18x. */
START_TEST(test_gemma3_pattern)
{
    fixture f = make("gemma-3-4b", "l4");
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 8LL << 30);
    set(&f, LLMMEM_KEY_MAX_NUM_BATCHED_TOKENS, 2048);
    set(&f, LLMMEM_KEY_MAX_NUM_SEQS, 256);
    set(&f, LLMMEM_KEY_MAX_MODEL_LEN, 32768);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_GROUPS), 7);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_LAYERS_PER_GROUP), 5);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_PAGE_BYTES), 65536);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 26214);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 59904);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_BLOCKS_PER_REQUEST), 3206);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_VLLM_CONCURRENCY_X100), 818);
    /* contiguous: 5 x 32,768 + 29 x 1024 = 193,536 token-layers of 2 x 4 x 256 x 2 = 4096 bytes */
    ck_assert_uint_eq(contiguous(&f, 1, 32768), 193536ULL * 4096);
    release(&f);
}
END_TEST

/* ---- tensor and pipeline parallel ------------------------------------------------------ */

/* Llama-3-70B's 8 KV heads over tensor-parallel ranks: vLLM get_num_kv_heads = max(1, 8 // t).
 * t = 4: 2 heads, 2 x 2 x 128 x 2 x 80 = 81,920 bytes per token per rank; t = 8 and t = 16: one
 * head, 40,960, so at t = 16 each head is held by two ranks and the 16 ranks together hold
 * 16 x 40,960 = 655,360 bytes per token, twice the unsharded 327,680. */
START_TEST(test_tp_replication)
{
    fixture f = make("llama-3.1-70b", "h100-sxm-80gb");
    static const struct {
        int64_t tp;
        uint64_t per_rank, heads;
    } cases[] = {{1, 327680, 8}, {2, 163840, 4}, {4, 81920, 2}, {8, 40960, 1}, {16, 40960, 1}};
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 1LL << 30);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        set(&f, LLMMEM_KEY_TENSOR_PARALLEL, cases[i].tp);
        ck_assert_uint_eq(per_token(&f), cases[i].per_rank);
        estimate(&f);
        ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_HEADS_PER_RANK), cases[i].heads);
    }
    ck_assert_uint_eq(16 * per_token(&f), 2 * 327680);
    /* 64 query heads cannot be split over 3 ranks; 8 KV heads and 12 ranks do not divide */
    set(&f, LLMMEM_KEY_TENSOR_PARALLEL, 3);
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "num_attention_heads (64)"));
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "tensor_parallel (3)"));
    ck_assert(!llmmem_serving_valid(f.r));
    ck_assert_ok(llmmem_model_set_int(f.m, LLMMEM_KEY_NUM_ATTENTION_HEADS, 24));
    ck_assert_ok(llmmem_model_set_int(f.m, LLMMEM_KEY_HEAD_DIM, 128));
    set(&f, LLMMEM_KEY_TENSOR_PARALLEL, 12);
    ck_assert_status(llmmem_kv_bytes_per_token(&(uint64_t){0}, f.m, f.s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "num_key_value_heads (8)"));
    release(&f);
}
END_TEST

/* The format vLLM serves a model in (vllm/config/model.py _get_and_verify_dtype and
 * _resolve_auto_dtype; vllm/platforms/cuda.py supported_dtypes on capability 8.0 and later is
 * [bf16, fp16, fp32]): --dtype auto keeps a 16-bit config's dtype and serves an fp32 one, or one that
 * names none (_find_dtype's fp32), in supported_dtypes[0], bf16; Gemma 2 and 3 are never run in
 * fp16 (_FLOAT16_NOT_SUPPORTED_MODELS). The tiny Llama of test_weights_per_rank holds 712 elements
 * per rank at t = 2: 2,848 bytes in fp32, 1,424 in bf16 or fp16; its KV per token 64 and 32 bytes. */
static llmmem_model *tiny_llama(llmmem_format torch_dtype)
{
    llmmem_model *m;
    ck_assert_ok(llmmem_model_new(&m));
    ck_assert_ok(llmmem_model_set_text(m, "model_type", "llama"));
    static const struct {
        llmmem_key key;
        int64_t value;
    } keys[] = {{LLMMEM_KEY_HIDDEN_SIZE, 8},       {LLMMEM_KEY_NUM_HIDDEN_LAYERS, 2},
                {LLMMEM_KEY_NUM_ATTENTION_HEADS, 2}, {LLMMEM_KEY_NUM_KEY_VALUE_HEADS, 1},
                {LLMMEM_KEY_INTERMEDIATE_SIZE, 12},  {LLMMEM_KEY_VOCAB_SIZE, 16},
                {LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, 64}};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        ck_assert_ok(llmmem_model_set_int(m, keys[i].key, keys[i].value));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_TORCH_DTYPE, torch_dtype));
    return m;
}

START_TEST(test_serving_dtype)
{
    static const struct {
        llmmem_format torch_dtype;
        int64_t dtype; /* the dtype key: 0 auto */
        uint64_t weights, per_token;
        const char *served, *kv;
    } cases[] = {
        {LLMMEM_FORMAT_FP32, 0, 1424, 32, "bf16", "bf16"}, /* fp32 config: downcast to bf16 */
        {LLMMEM_FORMAT_BF16, 0, 1424, 32, "bf16", "bf16"},
        {LLMMEM_FORMAT_FP16, 0, 1424, 32, "fp16", "fp16"}, /* a 16-bit config keeps its dtype */
        {LLMMEM_FORMAT_FP32, LLMMEM_FORMAT_FP32, 2848, 64, "fp32", "fp32"}, /* --dtype float32 */
        {LLMMEM_FORMAT_BF16, LLMMEM_FORMAT_FP32, 2848, 64, "fp32", "fp32"}, /* upcast allowed */
        {LLMMEM_FORMAT_FP32, LLMMEM_FORMAT_FP16, 1424, 32, "fp16", "fp16"}, /* --dtype half */
    };
    llmmem_hardware *hw;
    llmmem_serving *r;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "l4"));
    ck_assert_ok(llmmem_serving_new(&r));
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        llmmem_model *m = tiny_llama(cases[i].torch_dtype);
        llmmem_strategy *s;
        ck_assert_ok(llmmem_strategy_new(&s));
        ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_TENSOR_PARALLEL, 2));
        ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_DTYPE, cases[i].dtype));
        ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
        ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_WEIGHTS), cases[i].weights);
        ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BYTES_PER_TOKEN), cases[i].per_token);
        uint64_t per_token = 0;
        ck_assert_ok(llmmem_kv_bytes_per_token(&per_token, m, s));
        ck_assert_uint_eq(per_token, cases[i].per_token);
        char *json = NULL, want[64];
        ck_assert_ok(llmmem_serving_to_json(&json, r));
        snprintf(want, sizeof want, "\"dtype\": \"%s\"", cases[i].served);
        ck_assert_msg(strstr(json, want) != NULL, "case %zu: %s", i, json);
        snprintf(want, sizeof want, "\"kv_cache_dtype\": \"%s\"", cases[i].kv);
        ck_assert_msg(strstr(json, want) != NULL, "case %zu: %s", i, json);
        llmmem_string_free(json);
        llmmem_strategy_free(s);
        llmmem_model_free(m);
    }
    /* an explicit kv_cache_dtype stays: fp8 (1 byte) under an fp32 config served in bf16 */
    llmmem_model *m = tiny_llama(LLMMEM_FORMAT_FP32);
    llmmem_strategy *s;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_TENSOR_PARALLEL, 2));
    ck_assert_ok(llmmem_strategy_set_text(s, "kv_cache_dtype", "fp8"));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BYTES_PER_TOKEN), 16);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_WEIGHTS), 1424);
    /* Gemma 2: --dtype half is refused; auto serves even an fp16 config in bf16 */
    ck_assert_ok(llmmem_model_set_text(m, "model_type", "gemma2"));
    ck_assert_ok(llmmem_strategy_set_text(s, "kv_cache_dtype", "auto"));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_DTYPE, LLMMEM_FORMAT_FP16));
    ck_assert_status(llmmem_serving_estimate(r, m, hw, s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_str_eq(llmmem_last_message(), "dtype (fp16): vLLM does not run model_type gemma2 in float16 "
                                            "(numerical instability); use bf16 or fp32");
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_DTYPE, 0));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_TORCH_DTYPE, LLMMEM_FORMAT_FP16));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    char *json = NULL;
    ck_assert_ok(llmmem_serving_to_json(&json, r));
    ck_assert_ptr_nonnull(strstr(json, "\"dtype\": \"bf16\""));
    llmmem_string_free(json);
    llmmem_strategy_free(s);
    llmmem_model_free(m);
    llmmem_serving_free(r);
    llmmem_hardware_free(hw);
}
END_TEST

/* Weights per rank, by hand for a tiny Llama (hidden 8, 2 layers, 2 heads of 4, 1 KV head,
 * ffn 12, vocab 16, fp32) at t = 2: q 4 x 8, k and v replicated 4 x 8 each, o 8 x 4, gate and
 * up 6 x 8, down 8 x 6, two norms of 8: 288 elements per layer, 576 for both; embedding and LM
 * head 8 x 8 each (vocabulary split), final norm 8: 712 elements, 2,848 bytes. */
START_TEST(test_weights_per_rank)
{
    llmmem_model *m;
    llmmem_hardware *hw;
    llmmem_strategy *s;
    llmmem_serving *r;
    ck_assert_ok(llmmem_model_new(&m));
    ck_assert_ok(llmmem_model_set_text(m, "model_type", "llama"));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_HIDDEN_SIZE, 8));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_HIDDEN_LAYERS, 2));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_ATTENTION_HEADS, 2));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_KEY_VALUE_HEADS, 1));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_INTERMEDIATE_SIZE, 12));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_VOCAB_SIZE, 16));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, 64));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_TORCH_DTYPE, LLMMEM_FORMAT_FP32));
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "l4"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_serving_new(&r));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_TENSOR_PARALLEL, 2));
    /* vllm serve --dtype float32 (auto serves an fp32 config in bf16: test_serving_dtype) */
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_DTYPE, LLMMEM_FORMAT_FP32));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_WEIGHTS), 2848);
    /* one KV head of 4 on each rank, fp32: 2 x 1 x 4 x 4 bytes x 2 layers = 64 per token */
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_BYTES_PER_TOKEN), 64);
    /* pipeline_parallel 2 at t = 1: a layer is q 8 x 8, k and v 4 x 8, o 8 x 8, MLP 3 x 96 and
     * norms 16: 496 elements. The first stage holds the embedding (128) and layer 0: 624; the last
     * layer 1, the final norm and the LM head: 496 + 8 + 128 = 632 elements, 2,528 bytes, the
     * heavier stage and so the one reported */
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_TENSOR_PARALLEL, 1));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_PIPELINE_PARALLEL, 2));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_PROFILE_ACTIVATION_BYTES, 0));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_WEIGHTS), 2528);
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_LAYERS_PER_STAGE), 1);
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_PIPELINE_PARALLEL, 3)); /* 3 stages, 2 layers */
    ck_assert_status(llmmem_serving_estimate(r, m, hw, s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "pipeline_parallel (3)"));
    /* a serving result holds at most 256 stages: the key's bound says so (issue 14) */
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_HIDDEN_LAYERS, 300));
    ck_assert_status(llmmem_strategy_set_int(s, LLMMEM_KEY_PIPELINE_PARALLEL, 257), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "pipeline_parallel (257)"));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_PIPELINE_PARALLEL, 256));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_serving_get(r, LLMMEM_SERVING_LAYERS_PER_STAGE), 2); /* 300 = 256 + 44 */
    llmmem_serving_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
}
END_TEST

/* vllm/distributed/utils.py get_pp_indices: 32 layers over 3 stages are 10 each and the
 * remainder 2 go to the stages before the last: [11, 11, 10]; the largest holds 11 layers:
 * 11 x 4096 = 45,056 bytes per token, and a 1 GiB budget 1,073,741,824 // 65,536 // 11 = 1,489
 * blocks (the last stage, with 10 layers, would hold 1,638; the smallest count wins). */
START_TEST(test_pipeline_stages)
{
    fixture f = make("llama-3-8b", "h100-sxm-80gb");
    set(&f, LLMMEM_KEY_PIPELINE_PARALLEL, 3);
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 1LL << 30);
    ck_assert_uint_eq(per_token(&f), 45056);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_LAYERS_PER_STAGE), 11);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 1489);
    release(&f);
}
END_TEST

/* ---- the budget --------------------------------------------------------------------------- */

/* vllm/v1/worker/gpu_worker.py determine_available_memory written out, with every measured term
 * given: requested = ceil(85,899,345,920 (80 GiB) x 0.9) = 77,309,411,328; minus weights
 * 15,000,000,000, activation peak 2,000,000,000 and non-torch 500,000,000: 59,809,411,328 for the
 * KV cache; // 65,536 // 32 = 912,619 // 32 = 28,519 blocks. A 1 GiB CUDA-graph reserve leaves
 * 58,735,669,504: 896,235 // 32 = 28,007 blocks. */
START_TEST(test_budget_arithmetic)
{
    fixture f = make("llama-3-8b", "h100-sxm-80gb");
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, 15000000000LL);
    set(&f, LLMMEM_KEY_PROFILE_ACTIVATION_BYTES, 2000000000LL);
    set(&f, LLMMEM_KEY_PROFILE_NON_TORCH_BYTES, 500000000LL);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MEMORY_BYTES), 85899345920ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_REQUESTED_BYTES), 77309411328ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), 59809411328ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 28519);
    set(&f, LLMMEM_KEY_CUDA_GRAPH_BYTES, 1LL << 30);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), 58735669504ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 28007);
    /* gpu_memory_utilization 0.5: ceil(85,899,345,920 x 0.5) = 42,949,672,960 */
    ck_assert_ok(llmmem_strategy_set_real(f.s, LLMMEM_KEY_GPU_MEMORY_UTILIZATION, 0.5));
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_REQUESTED_BYTES), 42949672960ULL);
    /* weights over the budget: no blocks, and the shortfall says by how much:
     * 80e9 + 2e9 + 5e8 + 2^30 - 42,949,672,960 = 40,624,068,864 */
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, 80000000000LL);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 0);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), 0);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_SHORTFALL), 40624068864ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_FITS), 0);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_MODEL_LEN), 0);
    release(&f);
}
END_TEST

/* The modelled terms. Llama-3-8B on an L4 (24 GiB: vllm serve's defaults there are 2048 batched
 * tokens and 256 sequences). The weights are the inventory's, 8,030,261,248 parameters in bf16:
 * 16,060,522,496 bytes. The activation peak of the profile run, per token of a decoder layer:
 * residual and normed input 2 x 4096, then the larger of attention ((32 + 2 x 8) x 128 fused qkv
 * + 32 x 128 output = 10,240) and the gated MLP (3 x 14,336 = 43,008): 51,200 elements x 2048
 * tokens x 2 bytes = 209,715,200; the sampler's peak, final hidden states 2048 x 4096 x 2 =
 * 16,777,216 plus 256 rows of 128,256 logits in bf16 and fp32 (6 bytes): 197,001,216, is
 * 213,778,432 and the larger. Non-torch: the hardware's runtime_overhead_bytes (512 MiB). */
START_TEST(test_modelled_terms)
{
    fixture f = make("llama-3-8b", "l4");
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_BATCHED_TOKENS), 2048);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_NUM_SEQS), 256);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_WEIGHTS), 16060522496ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_ACTIVATION_PEAK), 213778432ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NON_TORCH), 512ULL << 20);
    /* 24 GiB x 0.9 = 23,192,823,398.4, rounded up: 23,192,823,399 */
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_REQUESTED_BYTES), 23192823399ULL);
    uint64_t kv = 23192823399ULL - 16060522496ULL - 213778432ULL - (512ULL << 20);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), kv);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), kv / LLAMA3_8B_PAGE / 32);
    /* the forward dominates at 16,384 batched tokens: 51,200 x 16,384 x 2 = 1,677,721,600 */
    set(&f, LLMMEM_KEY_MAX_NUM_BATCHED_TOKENS, 16384);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_ACTIVATION_PEAK), 1677721600ULL);
    /* on an H100 (80 GiB, not an A100) vllm serve's defaults are 8192 and 1024 */
    fixture g = make("llama-3-8b", "h100-sxm-80gb");
    estimate(&g);
    ck_assert_uint_eq(get(&g, LLMMEM_SERVING_MAX_NUM_BATCHED_TOKENS), 8192);
    ck_assert_uint_eq(get(&g, LLMMEM_SERVING_MAX_NUM_SEQS), 1024);
    release(&g);
    fixture a = make("llama-3-8b", "a100-sxm-80gb");
    estimate(&a);
    ck_assert_uint_eq(get(&a, LLMMEM_SERVING_MAX_NUM_BATCHED_TOKENS), 2048);
    release(&a);
    release(&f);
}
END_TEST

/* A vLLM v0.10.2 log of llava-hf/llava-v1.6-mistral-7b-hf on an H100 (default arguments,
 * max_model_len 4096, fp16): "Current kv cache memory in use is 59212694937 bytes.", "GPU KV
 * cache size: 451,744 tokens", "Maximum concurrency for 4,096 tokens per request: 110.29x".
 * The language model is Mistral-7B-Instruct-v0.2 (32 layers, 8 KV heads of 128): page
 * 16 x 2 x 8 x 128 x 2 = 65,536; 59,212,694,937 // 65,536 = 903,514, // 32 = 28,234 blocks;
 * 28,234 x 16 = 451,744 tokens; 4096 tokens are 256 blocks: 28,234 / 256 = 110.29. The measured
 * KV memory reproduces both lines exactly. The same log's budget terms are printed to 0.01 GiB
 * (79.19 GiB x 0.9, weights 14.08, activation 1.97, non-torch 0.07): from them the budget is
 * ceil(85,029,615,043 x 0.9) = 76,526,653,539, less 15,116,781,643 (14.0786 GiB), 2,115,271,393
 * and 75,161,928: 59,219,438,575 bytes (55.15 GiB, as the log prints), 28,238 blocks, 4 from the
 * log's 28,234: the printed terms carry up to 0.005 GiB (2.56 blocks of 2 MiB) of rounding each,
 * so only the exact byte count pins the block count. */
START_TEST(test_vllm_log_llava_mistral)
{
    fixture f = make("mistral-7b-v0.1", "h100-sxm-80gb"); /* v0.2 has the same shapes, no window */
    ck_assert_ok(llmmem_model_set_int(f.m, LLMMEM_KEY_SLIDING_WINDOW, 0));
    ck_assert_ok(llmmem_model_set_int(f.m, LLMMEM_KEY_TORCH_DTYPE, LLMMEM_FORMAT_FP16));
    set(&f, LLMMEM_KEY_MAX_MODEL_LEN, 4096);
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 59212694937LL);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 28234);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_TOKENS), 451744);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_VLLM_CONCURRENCY_X100), 11029);
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 0);
    ck_assert_ok(llmmem_hardware_set_int(f.hw, LLMMEM_KEY_MEMORY_BYTES, 85029615043LL)); /* 79.19 GiB */
    set(&f, LLMMEM_KEY_PROFILE_WEIGHTS_BYTES, 15116781643LL);    /* 14.0786 GiB, "Model loading took" */
    set(&f, LLMMEM_KEY_PROFILE_ACTIVATION_BYTES, 2115271393LL);  /* 1.97 GiB */
    set(&f, LLMMEM_KEY_PROFILE_NON_TORCH_BYTES, 75161928LL);     /* 0.07 GiB */
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_REQUESTED_BYTES), 76526653539ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_KV_CACHE_BYTES), 59219438575ULL);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 28238);
    release(&f);
}
END_TEST

/* vllm-project/vllm#10517, comment of 2024-12-02 (vLLM V0 on an RTX 3090, Llama-3.1-8B-Instruct,
 * 16-token blocks of 32 x 65,536 = 2,097,152 bytes): "# GPU blocks: 1952 ... Maximum concurrency
 * for 20000 tokens per request: 1.56x": 1952 / ceil(20000 / 16) = 1952 / 1250 = 1.5616; and
 * "# GPU blocks: 1478 ... Maximum concurrency for 29000 tokens per request: 0.82x ... larger than
 * the maximum number of tokens that can be stored in KV cache (23648)": 1478 / 1813 = 0.815,
 * 1478 x 16 = 23,648 tokens, so a 29,000-token request does not fit. The block counts are given as
 * their KV memory (1952 x 2,097,152 = 4,093,640,704 bytes; 1478 x 2,097,152 = 3,099,590,656). */
START_TEST(test_vllm_issue_10517)
{
    fixture f = make("llama-3.1-8b", "rtx-3090");
    set(&f, LLMMEM_KEY_MAX_MODEL_LEN, 20000);
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 4093640704LL);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 1952);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_VLLM_CONCURRENCY_X100), 156);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_FITS), 1);
    set(&f, LLMMEM_KEY_MAX_MODEL_LEN, 29000);
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 3099590656LL);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 1478);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_VLLM_CONCURRENCY_X100), 82);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_MAX_MODEL_LEN), 23648);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_FITS), 0);
    int fits;
    ck_assert_ok(llmmem_serving_fits_request(&fits, f.r, 29000));
    ck_assert_int_eq(fits, 0);
    release(&f);
}
END_TEST

/* ---- outputs ------------------------------------------------------------------------------ */

START_TEST(test_json_and_names)
{
    fixture f = make("llama-3-8b", "h100-sxm-80gb");
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 60000000000LL);
    set(&f, LLMMEM_KEY_MAX_MODEL_LEN, 4096);
    estimate(&f);
    char *json;
    ck_assert_ok(llmmem_serving_to_json(&json, f.r));
    static const char *const want[] = {"\"model\": \"llama-3-8b\"", "\"hardware\": \"h100-sxm-80gb\"",
                                       "\"kv_cache_dtype\": \"bf16\"", "\"num_blocks\": 28610",
                                       "\"tokens\": 457760", "\"bytes_per_token\": 131072",
                                       "\"page_bytes\": 65536", "\"max_concurrency\": 111",
                                       "\"vllm_concurrency\": 111.76", "\"max_model_len\": 4096",
                                       "\"kv_cache_bytes\": 60000000000", "\"fits\": true"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(strstr(json, want[i]), "missing %s in %s", want[i], json);
    llmmem_string_free(json);
    ck_assert_uint_eq(llmmem_serving_value_count(), LLMMEM_SERVING_STATE_POOL_BYTES + 1);
    for (size_t i = 0; i < llmmem_serving_value_count(); i++)
        ck_assert_ptr_nonnull(llmmem_serving_value_name((llmmem_serving_value)i));
    ck_assert_str_eq(llmmem_serving_value_name(LLMMEM_SERVING_NUM_BLOCKS), "num_blocks");
    ck_assert_ptr_null(llmmem_serving_value_name((llmmem_serving_value)99));
    ck_assert_uint_eq(llmmem_serving_get(f.r, (llmmem_serving_value)99), 0);
    llmmem_serving *copy;
    ck_assert_ok(llmmem_serving_clone(&copy, f.r));
    ck_assert_uint_eq(llmmem_serving_get(copy, LLMMEM_SERVING_NUM_BLOCKS), 28610);
    llmmem_serving_free(copy);
    /* vLLM's ratio for the request length: 28,610 / 256 blocks = 111.76 at max_model_len 4096; for
     * requests of 1000 tokens, 28,610 / ceil(1000 / 16) = 454.13 (vllm_concurrency stays vLLM's line) */
    ck_assert_uint_eq(llmmem_serving_get(f.r, LLMMEM_SERVING_CONCURRENCY_X100), 11176);
    set(&f, LLMMEM_KEY_REQUEST_TOKENS, 1000);
    estimate(&f);
    ck_assert_uint_eq(llmmem_serving_get(f.r, LLMMEM_SERVING_CONCURRENCY_X100), 45413);
    ck_assert_uint_eq(llmmem_serving_get(f.r, LLMMEM_SERVING_VLLM_CONCURRENCY_X100), 11176);
    ck_assert_ok(llmmem_serving_to_json(&json, f.r));
    ck_assert_ptr_nonnull(strstr(json, "\"fits\": true,\n    \"concurrency\": 454.13,\n    \"concurrency_x100\": 45413\n  },"));
    llmmem_string_free(json);
    release(&f);
}
END_TEST

/* The internal entry the estimate uses is the public contiguous count. */
START_TEST(test_internal_contiguous)
{
    fixture f = make("llama-2-7b", "h100-sxm-80gb");
    uint64_t b;
    ck_assert_ok(llmmem__kv_cache_contiguous_bytes(&b, f.m, f.s, 2, 100));
    ck_assert_uint_eq(b, 2 * 100 * 524288ULL);
    ck_assert_ok(llmmem__kv_cache_contiguous_bytes(&b, f.m, f.s, 0, 100));
    ck_assert_uint_eq(b, 0);
    release(&f);
}
END_TEST

/* ---- errors ------------------------------------------------------------------------------ */

START_TEST(test_argument_errors)
{
    fixture f = make("llama-3-8b", "h100-sxm-80gb");
    uint64_t n;
    int fits;
    char *json;
    ck_assert_status(llmmem_serving_new(NULL), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_serving_clone(NULL, f.r), LLMMEM_ERR_INVALID_ARGUMENT);
    llmmem_serving *copy;
    ck_assert_status(llmmem_serving_clone(&copy, NULL), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(copy);
    llmmem_serving_free(NULL);
    ck_assert_status(llmmem_serving_estimate(NULL, f.m, f.hw, f.s), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_serving_estimate(f.r, NULL, f.hw, f.s), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, NULL, f.s), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, NULL), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "s"));
    /* no estimate yet: every question says so */
    ck_assert(!llmmem_serving_valid(f.r));
    ck_assert(!llmmem_serving_valid(NULL));
    ck_assert_uint_eq(llmmem_serving_get(f.r, LLMMEM_SERVING_NUM_BLOCKS), 0);
    ck_assert_status(llmmem_serving_max_concurrency(&n, f.r, 10), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "holds no estimate"));
    ck_assert_status(llmmem_serving_fits_request(&fits, f.r, 10), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_serving_request_blocks(&n, NULL, f.r, 10), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_serving_max_model_len(&n, f.r), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_serving_max_batch(&n, f.r, 10), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_serving_to_json(&json, f.r), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(json);
    estimate(&f);
    /* NULL outputs and zero tokens */
    ck_assert_status(llmmem_serving_max_concurrency(NULL, f.r, 10), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_serving_max_concurrency(&n, NULL, 10), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_serving_max_concurrency(&n, f.r, 0), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "tokens (0)"));
    ck_assert_status(llmmem_serving_fits_request(NULL, f.r, 10), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_serving_fits_request(&fits, NULL, 10), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_serving_fits_request(&fits, f.r, 0), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_serving_request_blocks(NULL, NULL, f.r, 10), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_serving_request_blocks(&n, NULL, NULL, 10), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_serving_request_blocks(&n, NULL, f.r, 0), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_serving_max_model_len(NULL, f.r), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_serving_max_model_len(&n, NULL), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_serving_max_batch(NULL, f.r, 10), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_serving_max_batch(&n, NULL, 10), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_serving_max_batch(&n, f.r, 0), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_serving_to_json(NULL, f.r), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_serving_to_json(&json, NULL), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_kv_bytes_per_token(NULL, f.m, f.s), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_kv_bytes_per_token(&n, NULL, f.s), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_kv_bytes_per_token(&n, f.m, NULL), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_kv_cache_bytes(NULL, f.m, f.s, 1, 1), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_kv_cache_bytes(&n, NULL, f.s, 1, 1), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_kv_cache_bytes(&n, f.m, NULL, 1, 1), LLMMEM_ERR_INVALID_ARGUMENT);
    /* overflow of a contiguous cache */
    ck_assert_status(llmmem_kv_cache_bytes(&n, f.m, f.s, UINT64_MAX, 2), LLMMEM_ERR_OVERFLOW);
    release(&f);
}
END_TEST

START_TEST(test_setting_errors)
{
    fixture f = make("llama-3-8b", "h100-sxm-80gb");
    /* serving is inference */
    ck_assert_ok(llmmem_strategy_set_text(f.s, "mode", "training"));
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "mode is training"));
    ck_assert_ok(llmmem_strategy_set_text(f.s, "mode", "inference"));
    /* utilization 0 is the release's default (vllm-0.20: 0.9): ceil(85,899,345,920 x 0.9) */
    ck_assert_ok(llmmem_strategy_set_real(f.s, LLMMEM_KEY_GPU_MEMORY_UTILIZATION, 0.0));
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_REQUESTED_BYTES), 77309411328ULL);
    ck_assert_status(llmmem_strategy_set_real(f.s, LLMMEM_KEY_GPU_MEMORY_UTILIZATION, -0.1), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_status(llmmem_strategy_set_real(f.s, LLMMEM_KEY_GPU_MEMORY_UTILIZATION, 1.5), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_ok(llmmem_strategy_set_real(f.s, LLMMEM_KEY_GPU_MEMORY_UTILIZATION, 0.9));
    /* more sequences than batched tokens (vLLM SchedulerConfig refuses it) */
    set(&f, LLMMEM_KEY_MAX_NUM_SEQS, 4096);
    set(&f, LLMMEM_KEY_MAX_NUM_BATCHED_TOKENS, 2048);
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "max_num_seqs (4096)"));
    set(&f, LLMMEM_KEY_MAX_NUM_SEQS, 0);
    /* max_model_len above the model's positions */
    set(&f, LLMMEM_KEY_MAX_MODEL_LEN, 8193);
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "max_model_len (8193)"));
    set(&f, LLMMEM_KEY_MAX_MODEL_LEN, 0);
    /* a request longer than max_model_len is refused (vLLM input_processor.py), not "0 fit, fits: yes"
     * (issue 14): llama-3-8b's max_model_len is its 8192 positions */
    set(&f, LLMMEM_KEY_REQUEST_TOKENS, 1073741824);
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_str_eq(llmmem_last_message(),
                     "request_tokens (1073741824) exceeds max_model_len (8192): vLLM refuses such a request");
    set(&f, LLMMEM_KEY_REQUEST_TOKENS, 8193);
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_INCOMPATIBLE);
    set(&f, LLMMEM_KEY_REQUEST_TOKENS, 8192);
    estimate(&f);
    set(&f, LLMMEM_KEY_REQUEST_TOKENS, 0);
    /* a prefix longer than the request */
    set(&f, LLMMEM_KEY_SHARED_PREFIX_TOKENS, 9000);
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "shared_prefix_tokens (9000)"));
    set(&f, LLMMEM_KEY_SHARED_PREFIX_TOKENS, 100);
    estimate(&f);
    uint64_t n;
    ck_assert_status(llmmem_serving_max_concurrency(&n, f.r, 50), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "shared_prefix_tokens (100)"));
    set(&f, LLMMEM_KEY_SHARED_PREFIX_TOKENS, 0);
    set(&f, LLMMEM_KEY_PROMPT_TOKENS, 9000);
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "prompt_tokens (9000)"));
    set(&f, LLMMEM_KEY_PROMPT_TOKENS, 0);
    /* fp8_ds_mla without MLA */
    ck_assert_ok(llmmem_strategy_set_text(f.s, "kv_cache_dtype", "fp8_ds_mla"));
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "kv_lora_rank is 0"));
    ck_assert_ok(llmmem_strategy_set_text(f.s, "kv_cache_dtype", "auto"));
    ck_assert_status(llmmem_strategy_set_text(f.s, "kv_cache_dtype", "fp4"), LLMMEM_ERR_NOT_FOUND);
    ck_assert_status(llmmem_strategy_set_int(f.s, LLMMEM_KEY_N, 0), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_status(llmmem_strategy_set_int(f.s, LLMMEM_KEY_BLOCK_SIZE, -1), LLMMEM_ERR_OUT_OF_RANGE);
    /* the hardware's memory is required */
    llmmem_hardware *bare;
    ck_assert_ok(llmmem_hardware_new(&bare));
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, bare, f.s), LLMMEM_ERR_INCOMPLETE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "memory_bytes"));
    llmmem_hardware_free(bare);
    /* no max_model_len and no max_position_embeddings: vllm/config/model.py _get_and_verify_max_len
     * assumes 2048 tokens ("Assuming the model's maximum length is 2048") */
    ck_assert_ok(llmmem_model_set_int(f.m, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, 0));
    ck_assert_ok(llmmem_serving_estimate(f.r, f.m, f.hw, f.s));
    ck_assert_uint_eq(llmmem_serving_get(f.r, LLMMEM_SERVING_MAX_MODEL_LEN), 2048);
    release(&f);
}
END_TEST

START_TEST(test_model_errors)
{
    llmmem_model *m;
    llmmem_strategy *s;
    llmmem_hardware *hw;
    llmmem_serving *r;
    uint64_t n;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_serving_new(&r));
    /* a model given by its count alone has no KV shapes */
    ck_assert_ok(llmmem_model_new(&m));
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_NUM_PARAMETERS, 7000000000LL));
    ck_assert_status(llmmem_kv_bytes_per_token(&n, m, s), LLMMEM_ERR_INCOMPLETE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "num_parameters (7000000000)"));
    ck_assert_status(llmmem_serving_estimate(r, m, hw, s), LLMMEM_ERR_INCOMPLETE);
    ck_assert_status(llmmem_kv_cache_bytes(&n, m, s, 1, 1), LLMMEM_ERR_INCOMPLETE);
    llmmem_model_free(m);
    /* an incomplete model reports its own missing key */
    ck_assert_ok(llmmem_model_new(&m));
    ck_assert_ok(llmmem_model_set_text(m, "model_type", "llama"));
    ck_assert_status(llmmem_kv_bytes_per_token(&n, m, s), LLMMEM_ERR_INCOMPLETE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "hidden_size"));
    llmmem_model_free(m);
    /* MLA formats vLLM does not define for a latent, and fp8_ds_mla in a contiguous cache */
    ck_assert_ok(llmmem_model_from_preset(&m, "deepseek-v2-lite"));
    ck_assert_ok(llmmem_strategy_set_text(s, "kv_cache_dtype", "nvfp4"));
    ck_assert_status(llmmem_kv_bytes_per_token(&n, m, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "kv_cache_dtype (nvfp4)"));
    ck_assert_ok(llmmem_strategy_set_text(s, "kv_cache_dtype", "int8_per_token_head"));
    ck_assert_status(llmmem_kv_bytes_per_token(&n, m, s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ok(llmmem_strategy_set_text(s, "kv_cache_dtype", "fp8_ds_mla"));
    ck_assert_status(llmmem_kv_cache_bytes(&n, m, s, 1, 1), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "fp8_ds_mla"));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 1LL << 30));
    ck_assert_ok(llmmem_serving_estimate(r, m, hw, s));
    ck_assert_status(llmmem_serving_max_batch(&n, r, 10), LLMMEM_ERR_UNSUPPORTED);
    llmmem_model_free(m);
    llmmem_serving_free(r);
    llmmem_hardware_free(hw);
    llmmem_strategy_free(s);
}
END_TEST

/* The result is reused: a failed estimate leaves it invalid, a later one fills it again. */
START_TEST(test_reuse)
{
    fixture f = make("llama-3-8b", "h100-sxm-80gb");
    set(&f, LLMMEM_KEY_KV_CACHE_MEMORY_BYTES, 60000000000LL);
    estimate(&f);
    set(&f, LLMMEM_KEY_TENSOR_PARALLEL, 3);
    ck_assert_status(llmmem_serving_estimate(f.r, f.m, f.hw, f.s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert(!llmmem_serving_valid(f.r));
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 0);
    set(&f, LLMMEM_KEY_TENSOR_PARALLEL, 1);
    estimate(&f);
    ck_assert_uint_eq(get(&f, LLMMEM_SERVING_NUM_BLOCKS), 28610);
    release(&f);
}
END_TEST

/* The decimals vLLM and SGLang log ("%.2fx", round(x, 3)) are the exact binary value rounded half to
 * even, as C's printf does (C11 7.21.6.1: correctly rounded in the default rounding mode): multiples of
 * 2^-13 up to 8192 (ties among them), and values whose decimal spelling is not what they hold, against
 * printf's digits. */
static uint64_t printf_digits(double x, int decimals)
{
    char text[48];
    uint64_t n = 0;
    snprintf(text, sizeof text, "%.*f", decimals, x);
    for (const char *c = text; *c; c++)
        if (*c >= '0' && *c <= '9')
            n = n * 10 + (uint64_t)(*c - '0');
    return n;
}

START_TEST(test_serving_decimals_as_printf)
{
    for (int d = 0; d <= 4; d++)
        for (uint64_t k = 1; k < (UINT64_C(1) << 26); k += 997)
            ck_assert_uint_eq(llmmem__serving_decimals((double)k / 8192.0, d), printf_digits((double)k / 8192.0, d));
    ck_assert_uint_eq(llmmem__serving_decimals(0.125, 2), 12);  /* a tie: to even */
    ck_assert_uint_eq(llmmem__serving_decimals(0.375, 2), 38);  /* a tie: to even */
    ck_assert_uint_eq(llmmem__serving_decimals(2.675, 2), 267); /* 2.67499999999999982236431605997495353221893310546875 */
    ck_assert_uint_eq(llmmem__serving_decimals(0.92, 4), 9200);
    ck_assert_uint_eq(llmmem__serving_decimals(1e15, 2), 0);    /* beyond the range: 0 */
    ck_assert_uint_eq(llmmem__serving_decimals(-1.5, 2), 0);
    ck_assert_uint_eq(llmmem__serving_decimals(5e-324, 4), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kvcache");
    TCase *tc = tcase_create("kvcache");
    tcase_add_test(tc, test_llama2_7b_mha);
    tcase_add_test(tc, test_llama3_8b_gqa);
    tcase_add_test(tc, test_llama3_70b);
    tcase_add_test(tc, test_opt_13b_pagedattention_paper);
    tcase_add_test(tc, test_deepseek_v3_mla);
    tcase_add_test(tc, test_quantized_formats);
    tcase_add_test(tc, test_capacity_60gb);
    tcase_add_test(tc, test_fp8_halves_the_page);
    tcase_add_test(tc, test_waste_and_fits);
    tcase_add_test(tc, test_prefix_sharing);
    tcase_add_test(tc, test_parallel_sampling);
    tcase_add_test(tc, test_mistral_sliding_window);
    tcase_add_test(tc, test_gemma2_alternating);
    tcase_add_test(tc, test_gemma3_pattern);
    tcase_add_test(tc, test_tp_replication);
    tcase_add_test(tc, test_weights_per_rank);
    tcase_add_test(tc, test_serving_dtype);
    tcase_add_test(tc, test_pipeline_stages);
    tcase_add_test(tc, test_budget_arithmetic);
    tcase_add_test(tc, test_modelled_terms);
    tcase_add_test(tc, test_vllm_log_llava_mistral);
    tcase_add_test(tc, test_vllm_issue_10517);
    tcase_add_test(tc, test_json_and_names);
    tcase_add_test(tc, test_internal_contiguous);
    tcase_add_test(tc, test_argument_errors);
    tcase_add_test(tc, test_setting_errors);
    tcase_add_test(tc, test_model_errors);
    tcase_add_test(tc, test_reuse);
    tcase_add_test(tc, test_serving_decimals_as_printf);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
