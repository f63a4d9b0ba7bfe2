/* llama.cpp --split-mode tensor (split_mode tensor): one meta device holds the layers, each tensor is
 * split across the GPUs or mirrored on each, following ggml-org/llama.cpp src/llama-model.cpp
 * llama_meta_device_get_split_state and docs/multi-gpu.md (PR 19378, 2026-04; quantized KV cache from
 * PR 23792):
 *   - granularity: n_gqa = heads / kv_heads, n_embd_q = n_gqa x head_dim, blck_perf the block of
 *     attn_output's type doubled while below 128 and blck_perf x devices < n_embd_q, g_q =
 *     lcm(n_embd_q, blck_perf), g_kv = g_q / n_gqa (k, v and the KV cache rows); feed-forward
 *     lcm(block of ffn_down, 128); output.weight its own block;
 *   - a split of ne rows: device (j + rotation) mod n ends at ne x (j + 1) / n (tensor_split: ne x
 *     cumulative share, float), rounded down to the granularity, the last taking the rest; the rotation
 *     is the layer's index among layers of its kind (n_layer for tensors outside the layers);
 *   - norms mirrored, token_embd on the CPU, the compute buffer whole on every GPU.
 * Every number below is worked by hand from those rules; three public logs are reproduced for their KV
 * lines (the first two from the notes, whose models' other shapes are not published). */
#include "gguf_writer.h"

#define Q4K 144u /* bytes of a Q4_K block of 256 */
#define Q6K 210u

/* A GGUF of `layers` layers (hidden 256, 2 heads of 128, 1 KV head, MLP 512, Q4_K), as
 * test_llamacpp_layer_split.c writes it. */
static void tiny(buf *b, int layers)
{
    start(b, 3);
    kv_str(b, "general.architecture", "llama");
    kv_str(b, "general.name", "tiny");
    kv_u64(b, "llama.context_length", 4096);
    kv_u32(b, "llama.embedding_length", 256);
    kv_u32(b, "llama.block_count", (uint32_t)layers);
    kv_u32(b, "llama.feed_forward_length", 512);
    kv_u32(b, "llama.rope.dimension_count", 128);
    kv_u32(b, "llama.attention.head_count", 2);
    kv_u32(b, "llama.attention.head_count_kv", 1);
    kv_f32(b, "llama.attention.layer_norm_rms_epsilon");
    kv_tokens(b, 8);
    tensor(b, "token_embd.weight", Q4_K, 8u * Q4K, DIMS(256, 8));
    for (int l = 0; l < layers; l++) {
        char n[64];
#define NAME(x) (snprintf(n, sizeof n, "blk.%d." x, l), n)
        tensor(b, NAME("attn_norm.weight"), F32, 256 * 4, DIMS(256));
        tensor(b, NAME("attn_q.weight"), Q4_K, 256 * Q4K, DIMS(256, 256));
        tensor(b, NAME("attn_k.weight"), Q4_K, 128 * Q4K, DIMS(256, 128));
        tensor(b, NAME("attn_v.weight"), Q4_K, 128 * Q4K, DIMS(256, 128));
        tensor(b, NAME("attn_output.weight"), Q4_K, 256 * Q4K, DIMS(256, 256));
        tensor(b, NAME("ffn_norm.weight"), F32, 256 * 4, DIMS(256));
        tensor(b, NAME("ffn_gate.weight"), Q4_K, 512 * Q4K, DIMS(256, 512));
        tensor(b, NAME("ffn_up.weight"), Q4_K, 512 * Q4K, DIMS(256, 512));
        tensor(b, NAME("ffn_down.weight"), Q4_K, 256 * 2 * Q4K, DIMS(512, 256));
#undef NAME
    }
    tensor(b, "output.weight", Q6_K, 8u * Q6K, DIMS(256, 8));
    tensor(b, "output_norm.weight", F32, 256 * 4, DIMS(256));
    done(b);
}

typedef struct run {
    llmmem_checkpoint *ck;
    llmmem_model *m;
    llmmem_hardware *hw;
    llmmem_strategy *s;
    llmmem_local *r;
    buf b;
} run;

static void open_preset(run *x, const char *model, const char *gpu, int gpus)
{
    memset(x, 0, sizeof *x);
    ck_assert_ok(llmmem_model_from_preset(&x->m, model));
    ck_assert_ok(llmmem_hardware_from_preset(&x->hw, gpu));
    ck_assert_ok(llmmem_hardware_set_int(x->hw, LLMMEM_KEY_DEVICES_PER_NODE, gpus));
    ck_assert_ok(llmmem_strategy_new(&x->s));
    ck_assert_ok(llmmem_strategy_set_text(x->s, "engine", "llama.cpp"));
    ck_assert_ok(llmmem_strategy_set_text(x->s, "split_mode", "tensor"));
    ck_assert_ok(llmmem_local_new(&x->r));
}

static void close_run(run *x)
{
    llmmem_local_free(x->r);
    llmmem_strategy_free(x->s);
    llmmem_hardware_free(x->hw);
    llmmem_model_free(x->m);
    llmmem_checkpoint_free(x->ck);
    free(x->b.p);
}

static void estimate(run *x)
{
    ck_assert_ok(llmmem_local_estimate(x->r, x->m, x->ck, x->hw, x->s));
}

static uint64_t bytes(const run *x, size_t device, llmmem_local_buffer b)
{
    return llmmem_local_bytes(x->r, device, b);
}

/* The GGUF above, 2 layers on 2 GPUs, even split. Attention: n_gqa 2, n_embd_q 256, Q4_K blocks of 256:
 * g_q = 256, g_kv = 128 (one head): the KV dimension of 128 splits at 128 x 1 / 2 = 64 -> 0, so each
 * layer's attention goes whole to one GPU, rotating: layer 0's to CUDA1, layer 1's to CUDA0 (q, k, v, o:
 * 768 rows of 144 B = 110,592 B). Feed-forward: 512 wide in groups of lcm(256, 128) = 256: half each
 * (gate, up, down 73,728 B each: 110,592 a layer and GPU). Norms mirrored (2 x 1,024 a layer,
 * output_norm 1,024). output.weight: 8 vocabulary rows in groups of Q6_K's 256: 0 and 8, rotation
 * n_layer % 2 = 0: all 1,680 B on CUDA1. token_embd (1,152 B) on the CPU.
 *   CUDA0: 110,592 + 2 x 110,592 + 4,096 + 1,024 = 336,896; CUDA1: 336,896 + 1,680 = 338,576.
 * KV (f16, one head of 128: 512 B a cell for K and V, 4,096 cells): one layer on each GPU, 2,097,152 B.
 * The compute buffer is the meta device's, whole on each GPU. */
START_TEST(gguf_even_split_two_gpus)
{
    run x;
    memset(&x, 0, sizeof x);
    tiny(&x.b, 2);
    ck_assert_ok(llmmem_checkpoint_from_gguf_bytes(&x.ck, x.b.p, x.b.len));
    ck_assert_ok(llmmem_checkpoint_model(&x.m, x.ck));
    ck_assert_ok(llmmem_hardware_from_preset(&x.hw, "rtx-4090"));
    ck_assert_ok(llmmem_hardware_set_int(x.hw, LLMMEM_KEY_DEVICES_PER_NODE, 2));
    ck_assert_ok(llmmem_strategy_new(&x.s));
    ck_assert_ok(llmmem_strategy_set_text(x.s, "engine", "llama.cpp"));
    ck_assert_ok(llmmem_local_new(&x.r));
    ck_assert_ok(llmmem_strategy_set_text(x.s, "split_mode", "none")); /* everything on one GPU */
    estimate(&x);
    uint64_t compute = bytes(&x, 0, LLMMEM_LOCAL_COMPUTE);
    ck_assert_ok(llmmem_strategy_set_text(x.s, "split_mode", "tensor"));
    estimate(&x);
    ck_assert_uint_eq(llmmem_local_device_count(x.r), 3);
    ck_assert_str_eq(llmmem_local_device_name(x.r, 1), "CUDA1");
    ck_assert_uint_eq(bytes(&x, 0, LLMMEM_LOCAL_MODEL), 336896);
    ck_assert_uint_eq(bytes(&x, 1, LLMMEM_LOCAL_MODEL), 338576);
    ck_assert_uint_eq(bytes(&x, 2, LLMMEM_LOCAL_MODEL), 8u * Q4K);
    ck_assert_uint_eq(bytes(&x, 0, LLMMEM_LOCAL_KV), 2097152);
    ck_assert_uint_eq(bytes(&x, 1, LLMMEM_LOCAL_KV), 2097152);
    ck_assert_uint_eq(llmmem_local_device_layers(x.r, 0), 2);
    ck_assert_uint_eq(llmmem_local_device_layers(x.r, 1), 2);
    ck_assert_uint_eq(bytes(&x, 0, LLMMEM_LOCAL_COMPUTE), compute);
    ck_assert_uint_eq(bytes(&x, 1, LLMMEM_LOCAL_COMPUTE), compute);
    close_run(&x);
}
END_TEST

/* Llama-3.1-8B in Q4_K (8 KV heads of 128, n_gqa 4: n_embd_q 512, g_q 512, g_kv 128: one head) at
 * n_ctx 32,768, f16 cache (4 B a row element and cell for K and V):
 *   2 GPUs: 4 heads each in every layer: 32 x 512 x 4 x 32,768 = 2,147,483,648 B each (half of one GPU's);
 *   3 GPUs: cuts at 1024 / 3 = 341 -> 256 and 682 -> 640: 2, 3, 3 heads, the 2-head share rotating over
 *     the 32 layers (rotation r mod 3: 11, 11 and 10 layers): CUDA0 and CUDA1 256 x 11 + 384 x 21 =
 *     10,880 rows, CUDA2 256 x 10 + 384 x 22 = 11,008; x 4 x 32,768 = 1,426,063,360 and 1,442,840,576 B. */
START_TEST(inventory_kv_heads_over_gpus)
{
    run x;
    open_preset(&x, "llama-3.1-8b", "rtx-4090", 2);
    ck_assert_ok(llmmem_strategy_set_text(x.s, "weight_format", "q4_k"));
    ck_assert_ok(llmmem_strategy_set_int(x.s, LLMMEM_KEY_N_CTX, 32768));
    estimate(&x);
    ck_assert_uint_eq(bytes(&x, 0, LLMMEM_LOCAL_KV), 2147483648ULL);
    ck_assert_uint_eq(bytes(&x, 1, LLMMEM_LOCAL_KV), 2147483648ULL);
    ck_assert_uint_eq(bytes(&x, 0, LLMMEM_LOCAL_COMPUTE), bytes(&x, 1, LLMMEM_LOCAL_COMPUTE));
    ck_assert_ok(llmmem_hardware_set_int(x.hw, LLMMEM_KEY_DEVICES_PER_NODE, 3));
    estimate(&x);
    ck_assert_uint_eq(bytes(&x, 0, LLMMEM_LOCAL_KV), 1426063360ULL);
    ck_assert_uint_eq(bytes(&x, 1, LLMMEM_LOCAL_KV), 1426063360ULL);
    ck_assert_uint_eq(bytes(&x, 2, LLMMEM_LOCAL_KV), 1442840576ULL);
    /* --fit is not implemented for the mode: n_ctx 0 loads the model's 131,072 cells unfitted */
    ck_assert_ok(llmmem_strategy_set_int(x.s, LLMMEM_KEY_N_CTX, 0));
    estimate(&x);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_N_CTX), 131072);
    close_run(&x);
}
END_TEST

/* KV rows wider than 2^32 within the key bounds (1,024 KV heads of head_dim 2^24: ne = 2^34), one layer, hidden 33,
 * q4_0: an attention matrix is 2^34 x 33 x 18 / 32 = 318,901,321,728 B, 18 ne and 9,663,676,416 B over; each GPU's
 * half is 18 x 2^33 + 9,663,676,416 x 2^33 / 2^34. That remainder's product (9 x 2^63) wrapped: a GPU's weights
 * came out 2^32 B short (1,082,873,511,302). */
START_TEST(inventory_wide_attention_rows)
{
    run x;
    open_preset(&x, "llama-3.1-8b", "h100-sxm-80gb", 2);
    ck_assert_ok(llmmem_model_set_int(x.m, LLMMEM_KEY_HIDDEN_SIZE, 33));
    ck_assert_ok(llmmem_model_set_int(x.m, LLMMEM_KEY_NUM_ATTENTION_HEADS, 1024));
    ck_assert_ok(llmmem_model_set_int(x.m, LLMMEM_KEY_NUM_KEY_VALUE_HEADS, 1024));
    ck_assert_ok(llmmem_model_set_int(x.m, LLMMEM_KEY_HEAD_DIM, 16777216));
    ck_assert_ok(llmmem_model_set_int(x.m, LLMMEM_KEY_NUM_HIDDEN_LAYERS, 1));
    ck_assert_ok(llmmem_strategy_set_text(x.s, "weight_format", "q4_0"));
    ck_assert_ok(llmmem_strategy_set_text(x.s, "flash_attn", "on"));
    ck_assert_ok(llmmem_strategy_set_int(x.s, LLMMEM_KEY_N_CTX, 256));
    estimate(&x);
    ck_assert_uint_eq(bytes(&x, 0, LLMMEM_LOCAL_MODEL), 1087168478598ULL);
    ck_assert_uint_eq(bytes(&x, 1, LLMMEM_LOCAL_MODEL), 1087168478598ULL);
    close_run(&x);
}
END_TEST

/* Public notes of llama.cpp bb4caa754 on an RTX 5070 Ti and an RTX 4060 (-sm tensor, -ts of about
 * 0.68 for the first): "llama_kv_cache: Meta() KV buffer size = 31.88 MiB (total 42.50)" of
 * KAT-Coder-V2.5-Dev (qwen35moe: 40 layers, 10 of them attention with 2 KV heads of 256, q8_0 cache,
 * the Meta() line printing the first GPU's share). The KV line depends on the attention layers alone:
 * a plain model of those 10 layers stands in (16 heads, 2 KV heads of 256, Q4_K weights), n_ctx 4,096,
 * q8_0 K and V (544 B a row of 512): 10 x 4,096 x 2 x 544 = 44,564,480 B = 42.50 MiB. n_gqa 8, n_embd_q
 * 2,048, g_q 2,048, g_kv 256 (one head). tensor_split 0.6828, 0.3172: rotation 0: 512 x 0.6828 = 349 ->
 * 256 rows for CUDA0, 256 for CUDA1; rotation 1: CUDA1 first at 512 x 0.3172 = 162 -> 0, CUDA0 all 512;
 * five layers of each: CUDA0 3,840 of 5,120 rows, 75 %: 33,423,360 B = 31.875 MiB, the log's 31.88. */
START_TEST(log_kat_coder_share)
{
    run x;
    open_preset(&x, "qwen3-8b", "rtx-5070-ti", 2);
    ck_assert_ok(llmmem_model_set_int(x.m, LLMMEM_KEY_NUM_HIDDEN_LAYERS, 10));
    ck_assert_ok(llmmem_model_set_int(x.m, LLMMEM_KEY_NUM_ATTENTION_HEADS, 16));
    ck_assert_ok(llmmem_model_set_int(x.m, LLMMEM_KEY_NUM_KEY_VALUE_HEADS, 2));
    ck_assert_ok(llmmem_model_set_int(x.m, LLMMEM_KEY_HEAD_DIM, 256));
    ck_assert_ok(llmmem_strategy_set_text(x.s, "weight_format", "q4_k"));
    ck_assert_ok(llmmem_strategy_set_text(x.s, "cache_type_k", "q8_0"));
    ck_assert_ok(llmmem_strategy_set_text(x.s, "cache_type_v", "q8_0"));
    ck_assert_ok(llmmem_strategy_set_text(x.s, "tensor_split", "0.6828,0.3172"));
    ck_assert_ok(llmmem_strategy_set_int(x.s, LLMMEM_KEY_N_CTX, 4096));
    estimate(&x);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_KV_BYTES), 44564480);
    ck_assert_uint_eq(bytes(&x, 0, LLMMEM_LOCAL_KV), 33423360);
    ck_assert_int_eq((int)((double)bytes(&x, 0, LLMMEM_LOCAL_KV) / 1048576.0 * 100 + 0.5), 3188);
    ck_assert_uint_eq(bytes(&x, 1, LLMMEM_LOCAL_KV), 11141120);
    close_run(&x);
}
END_TEST

/* Public notes of a 4-GPU ROCm machine (-sm tensor, no -ts): "llama_kv_cache: size = 16384.00 MiB (262144
 * cells, 16 layers, 4/1 seqs), K (f16): 8192.00 MiB, V (f16): 8192.00 MiB" and "Meta() KV buffer size =
 * 4096.00 MiB": 16 attention layers of 1,024-wide K rows (2,048 B in f16) for 262,144 cells, one stream
 * of 4 sequences. A Qwen3-Next-shaped stand-in (64 layers, one in four attention: 16; 4 KV heads of 256;
 * 32 Gated DeltaNet value heads, divisible by 4): g_kv one head of 256, one head a GPU: 4,096 MiB each. */
START_TEST(log_rocm_even_split)
{
    run x;
    open_preset(&x, "qwen3-next-80b-a3b", "mi300x", 4);
    ck_assert_ok(llmmem_hardware_set_int(x.hw, LLMMEM_KEY_BACKEND, LLMMEM_BACKEND_ROCM));
    ck_assert_ok(llmmem_model_set_int(x.m, LLMMEM_KEY_NUM_HIDDEN_LAYERS, 64));
    ck_assert_ok(llmmem_model_set_int(x.m, LLMMEM_KEY_NUM_KEY_VALUE_HEADS, 4));
    ck_assert_ok(llmmem_strategy_set_text(x.s, "weight_format", "q4_k"));
    ck_assert_ok(llmmem_strategy_set_int(x.s, LLMMEM_KEY_N_CTX, 262144));
    ck_assert_ok(llmmem_strategy_set_int(x.s, LLMMEM_KEY_N_PARALLEL, 4));
    ck_assert_ok(llmmem_strategy_set_int(x.s, LLMMEM_KEY_KV_UNIFIED, 1));
    estimate(&x);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_KV_BYTES), 16384ULL << 20);
    for (size_t d = 0; d < 4; d++)
        ck_assert_uint_eq(bytes(&x, d, LLMMEM_LOCAL_KV), 4096ULL << 20);
    ck_assert_str_eq(llmmem_local_device_name(x.r, 3), "ROCm3");
    /* the recurrent state divided evenly */
    ck_assert_uint_eq(bytes(&x, 0, LLMMEM_LOCAL_RECURRENT) * 4, llmmem_local_get(x.r, LLMMEM_LOCAL_RECURRENT_BYTES));
    close_run(&x);
}
END_TEST

/* Public notes of a Windows machine with an RTX 4070 SUPER and an RTX 5060 Ti, llama.cpp build 10499
 * (1deefcca3), -sm tensor with no -ts (the even split), ctx 147,456, -ctk q4_0 -ctv q4_0
 * (xenodeve/Qwen-3.8-27B-Tuning, docs/reports/36-DUAL-GPU-FINDINGS.md at 110bba96, sections 2-3):
 * "llama_kv_cache: Meta() KV buffer size = 1296.00 MiB", each GPU's share (its even-split demand per
 * card: 8,065 + 1,296 + 1,024 MiB). The model is
 * Qwen3.8-27B (unsloth UD-Q4_K_XL), architecture qwen3_5 with 27,781.4M parameters, the total of
 * Qwen/Qwen3.5-27B's config.json (test_families_hybrid.c qwen3_5_27b); its text_config, as published:
 * 64 layers, full_attention_interval 4 (16 attention layers), 24 heads and 4 KV heads of 256, Gated
 * DeltaNet 16 key and 48 value heads of 128. The notes' own "18.00 KiB per token at q4_0" checks it:
 * 16 layers x 2 x 1,024 values in q4_0 (18 B a block of 32: 576 B a row) = 18,432 B a cell.
 *   KV: 147,456 cells x 18,432 = 2,717,908,992 B = 2,592 MiB.
 *   n_gqa 6, n_embd_q 1,536, g_q lcm(1,536, 256 of Q4_K) = 1,536, g_kv 256 (one head): the 1,024-wide
 *   rows cut at 512, two heads a GPU in every layer: 1,358,954,496 B = 1,296.00 MiB each.
 * The weights are a stand-in (Q4_K for the file's mix); the KV line does not depend on them. */
static const char qwen3_5_27b[] =
    "{\"architectures\": [\"Qwen3_5ForConditionalGeneration\"], \"model_type\": \"qwen3_5\", "
    "\"image_token_id\": 248056, \"video_token_id\": 248057, \"tie_word_embeddings\": false, "
    "\"text_config\": {\"model_type\": \"qwen3_5_text\", \"hidden_size\": 5120, \"num_hidden_layers\": 64, "
    "\"num_attention_heads\": 24, \"num_key_value_heads\": 4, \"head_dim\": 256, \"linear_num_key_heads\": 16, "
    "\"linear_num_value_heads\": 48, \"linear_key_head_dim\": 128, \"linear_value_head_dim\": 128, "
    "\"linear_conv_kernel_dim\": 4, \"full_attention_interval\": 4, \"vocab_size\": 248320, "
    "\"intermediate_size\": 17408, \"max_position_embeddings\": 262144, \"rms_norm_eps\": 1e-06, "
    "\"attn_output_gate\": true, \"mtp_num_hidden_layers\": 1, \"dtype\": \"bfloat16\"}, "
    "\"vision_config\": {\"model_type\": \"qwen3_5_vision\", \"depth\": 27, \"hidden_size\": 1152, "
    "\"intermediate_size\": 4304, \"num_heads\": 16, \"in_channels\": 3, \"patch_size\": 16, "
    "\"spatial_merge_size\": 2, \"temporal_patch_size\": 2, \"out_hidden_size\": 5120, "
    "\"num_position_embeddings\": 2304}}";

START_TEST(log_qwen3_8_27b_q4_0_even_split)
{
    run x;
    open_preset(&x, "llama-3.1-8b", "rtx-4070-super", 2);
    llmmem_model_free(x.m);
    x.m = NULL;
    ck_assert_ok(llmmem_model_from_hf_config_text(&x.m, qwen3_5_27b, sizeof qwen3_5_27b - 1));
    ck_assert_ok(llmmem_strategy_set_text(x.s, "weight_format", "q4_k"));
    ck_assert_ok(llmmem_strategy_set_text(x.s, "cache_type_k", "q4_0"));
    ck_assert_ok(llmmem_strategy_set_text(x.s, "cache_type_v", "q4_0"));
    ck_assert_ok(llmmem_strategy_set_int(x.s, LLMMEM_KEY_N_CTX, 147456));
    estimate(&x);
    ck_assert_uint_eq(147456ULL * 16 * 2 * 576, 2592ULL << 20);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_KV_BYTES), 2592ULL << 20);
    ck_assert_uint_eq(bytes(&x, 0, LLMMEM_LOCAL_KV), 1296ULL << 20);
    ck_assert_uint_eq(bytes(&x, 1, LLMMEM_LOCAL_KV), 1296ULL << 20);
    close_run(&x);
}
END_TEST

/* What llama.cpp refuses: -sm row, deprecated (docs/multi-gpu.md; current builds fail at load), tensor
 * without flash attention, tensor for an MLA or Mamba architecture (llm_arch_supports_sm_tensor), an
 * uneven tensor_split of a hybrid (not modelled). */
START_TEST(refusals)
{
    run x;
    open_preset(&x, "llama-3.1-8b", "rtx-4090", 2);
    ck_assert_ok(llmmem_strategy_set_text(x.s, "split_mode", "row"));
    ck_assert_status(llmmem_local_estimate(x.r, x.m, NULL, x.hw, x.s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "deprecated"));
    ck_assert_ok(llmmem_strategy_set_text(x.s, "split_mode", "tensor"));
    ck_assert_ok(llmmem_strategy_set_text(x.s, "flash_attn", "off"));
    ck_assert_status(llmmem_local_estimate(x.r, x.m, NULL, x.hw, x.s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "flash attention"));
    close_run(&x);
    open_preset(&x, "deepseek-v3", "h200", 8);
    ck_assert_status(llmmem_local_estimate(x.r, x.m, NULL, x.hw, x.s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "LLAMA_SPLIT_MODE_TENSOR"));
    close_run(&x);
    open_preset(&x, "qwen3-next-80b-a3b", "h200", 2);
    ck_assert_ok(llmmem_strategy_set_text(x.s, "tensor_split", "3,1"));
    ck_assert_status(llmmem_local_estimate(x.r, x.m, NULL, x.hw, x.s), LLMMEM_ERR_UNSUPPORTED);
    close_run(&x);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("llamacpp_tensor_split");
    TCase *tc = tcase_create("llamacpp_tensor");
    tcase_add_test(tc, gguf_even_split_two_gpus);
    tcase_add_test(tc, inventory_kv_heads_over_gpus);
    tcase_add_test(tc, inventory_wide_attention_rows);
    tcase_add_test(tc, log_kat_coder_share);
    tcase_add_test(tc, log_rocm_even_split);
    tcase_add_test(tc, log_qwen3_8_27b_q4_0_even_split);
    tcase_add_test(tc, refusals);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
