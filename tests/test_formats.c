/*
 * Storage formats: bytes of one rows x cols tensor, checked against hand computations.
 *
 * rows = output features, cols = input features (the dimension blocks and groups run along).
 * Every format is tested on rows whose length is not a multiple of its block or group
 * (4096 x 4100, 11008 x 300, 7 x 33) and on an exact multiple (4096 x 4096).
 */
#include <stdint.h>
#include <string.h>

#include "unit.h"

/* Bytes by the public function, checked against the internal one. */
static uint64_t bytes_of(llmmem_format format, uint64_t rows, uint64_t cols, uint64_t group,
                         int double_quant)
{
    uint64_t pub = 0, internal = 0;
    ck_assert_ok(llmmem_format_tensor_bytes(&pub, format, rows, cols, group, double_quant));
    ck_assert_int_eq(llmmem__format_bytes(&internal, format, rows, cols, group, double_quant), 1);
    ck_assert_uint_eq(pub, internal);
    return pub;
}

#define ck_assert_bytes(format, rows, cols, group, dq, expected)                                   \
    ck_assert_uint_eq(bytes_of((format), (rows), (cols), (group), (dq)), (expected))

/* Asserts the last message contains a fragment. */
#define ck_assert_message_has(fragment)                                                            \
    ck_assert_msg(strstr(llmmem_last_message(), (fragment)) != NULL,                               \
                  "message \"%s\" lacks \"%s\"", llmmem_last_message(), (fragment))

/* ---- plain types ---------------------------------------------------------------------------- */

START_TEST(test_plain)
{
    /* IEEE binary32: 4 bytes per element */
    ck_assert_bytes(LLMMEM_FORMAT_FP32, 4096, 4100, 0, 0, 4096ULL * 4100 * 4);
    ck_assert_bytes(LLMMEM_FORMAT_FP32, 7, 33, 0, 0, 7ULL * 33 * 4);
    ck_assert_bytes(LLMMEM_FORMAT_FP32, 4096, 4096, 0, 0, 4096ULL * 4096 * 4);
    /* binary16 and bfloat16: 2 bytes */
    ck_assert_bytes(LLMMEM_FORMAT_FP16, 11008, 300, 0, 0, 11008ULL * 300 * 2);
    ck_assert_bytes(LLMMEM_FORMAT_FP16, 7, 33, 0, 0, 7ULL * 33 * 2);
    ck_assert_bytes(LLMMEM_FORMAT_BF16, 4096, 4100, 0, 0, 4096ULL * 4100 * 2);
    ck_assert_bytes(LLMMEM_FORMAT_BF16, 1, 4096, 0, 0, 4096ULL * 2);
    /* int8: 1 byte, no scale */
    ck_assert_bytes(LLMMEM_FORMAT_INT8, 11008, 300, 0, 0, 11008ULL * 300);
    ck_assert_bytes(LLMMEM_FORMAT_INT8, 7, 33, 0, 0, 7ULL * 33);
    /* int4: two per byte over the whole tensor, ceil(rows * cols / 2) */
    ck_assert_bytes(LLMMEM_FORMAT_INT4, 7, 33, 0, 0, (7ULL * 33 + 1) / 2); /* 231 -> 116 */
    ck_assert_uint_eq((7ULL * 33 + 1) / 2, 116);
    ck_assert_bytes(LLMMEM_FORMAT_INT4, 1, 1, 0, 0, 1);
    ck_assert_bytes(LLMMEM_FORMAT_INT4, 4096, 4100, 0, 0, 4096ULL * 4100 / 2);
    ck_assert_bytes(LLMMEM_FORMAT_INT4, 11008, 300, 0, 0, 11008ULL * 300 / 2);
}
END_TEST

START_TEST(test_fp8)
{
    /* vLLM fp8.py / compressed-tensors per-tensor FP8: 1 byte per element + fp32 weight_scale */
    ck_assert_bytes(LLMMEM_FORMAT_FP8_E4M3, 4096, 4100, 0, 0, 4096ULL * 4100 + 4);
    ck_assert_bytes(LLMMEM_FORMAT_FP8_E4M3, 7, 33, 0, 0, 7ULL * 33 + 4);
    ck_assert_bytes(LLMMEM_FORMAT_FP8_E4M3, 4096, 4096, 0, 0, 4096ULL * 4096 + 4);
    ck_assert_bytes(LLMMEM_FORMAT_FP8_E5M2, 11008, 300, 0, 0, 11008ULL * 300 + 4);
    ck_assert_bytes(LLMMEM_FORMAT_FP8_E5M2, 7, 33, 0, 0, 7ULL * 33 + 4);
}
END_TEST

START_TEST(test_fp8_block)
{
    /* DeepSeek-V3 README_WEIGHTS.md: e4m3 + fp32 weight_scale_inv per 128 x 128 block,
     * a partial block zero-padded to 128: ceil(rows / 128) * ceil(cols / 128) scales */
    /* 4096 / 128 = 32, ceil(4100 / 128) = 33 */
    ck_assert_bytes(LLMMEM_FORMAT_FP8_BLOCK, 4096, 4100, 0, 0, 4096ULL * 4100 + 32ULL * 33 * 4);
    /* 11008 / 128 = 86, ceil(300 / 128) = 3 */
    ck_assert_bytes(LLMMEM_FORMAT_FP8_BLOCK, 11008, 300, 0, 0, 11008ULL * 300 + 86ULL * 3 * 4);
    /* one partial block each way */
    ck_assert_bytes(LLMMEM_FORMAT_FP8_BLOCK, 7, 33, 0, 0, 7ULL * 33 + 1ULL * 1 * 4);
    /* exact: 32 x 32 blocks; DeepSeek-V3 q_b_proj-like 24576 x 1536: 192 x 12 blocks */
    ck_assert_bytes(LLMMEM_FORMAT_FP8_BLOCK, 4096, 4096, 0, 0, 4096ULL * 4096 + 32ULL * 32 * 4);
    ck_assert_bytes(LLMMEM_FORMAT_FP8_BLOCK, 24576, 1536, 0, 0, 24576ULL * 1536 + 192ULL * 12 * 4);
}
END_TEST

/* ---- bitsandbytes --------------------------------------------------------------------------- */

START_TEST(test_bnb_int8)
{
    /* bitsandbytes Int8Params._quantize: CB int8 [rows, cols] + SCB fp32 [rows] */
    ck_assert_bytes(LLMMEM_FORMAT_BNB_INT8, 4096, 4100, 0, 0, 4096ULL * 4100 + 4096ULL * 4);
    ck_assert_bytes(LLMMEM_FORMAT_BNB_INT8, 11008, 300, 0, 0, 11008ULL * 300 + 11008ULL * 4);
    ck_assert_bytes(LLMMEM_FORMAT_BNB_INT8, 7, 33, 0, 0, 7ULL * 33 + 7ULL * 4);
    ck_assert_bytes(LLMMEM_FORMAT_BNB_INT8, 4096, 4096, 0, 0, 4096ULL * 4096 + 4096ULL * 4);
}
END_TEST

/* Per-tensor constants of a bitsandbytes 4-bit QuantState (see lib/inventory/formats.c):
 * code 16 x fp32 always; with double quant also offset (fp32) and state2.code 256 x fp32. */
#define BNB4_CODE 64ULL
#define BNB4_DQ_CONST (4ULL + 1024ULL)

START_TEST(test_bnb_4bit)
{
    /* bitsandbytes quantize_4bit, blocksize 64 (default): n = rows * cols flattened,
     * packed ceil(n / 2) + absmax fp32 per ceil(n / 64) + code */
    /* n = 4096 * 4100 = 16793600: packed 8396800, 262400 blocks */
    ck_assert_bytes(LLMMEM_FORMAT_BNB_NF4, 4096, 4100, 0, 0,
                    16793600ULL / 2 + 262400ULL * 4 + BNB4_CODE);
    ck_assert_uint_eq(4096ULL * 4100, 16793600ULL);
    ck_assert_uint_eq(16793600ULL / 64, 262400ULL);
    /* n = 7 * 33 = 231: packed ceil(231 / 2) = 116, ceil(231 / 64) = 4 blocks */
    ck_assert_bytes(LLMMEM_FORMAT_BNB_NF4, 7, 33, 0, 0, 116ULL + 4ULL * 4 + BNB4_CODE);
    ck_assert_bytes(LLMMEM_FORMAT_BNB_FP4, 7, 33, 64, 0, 116ULL + 4ULL * 4 + BNB4_CODE);
    /* blocks run over the flattened tensor, not per row: 3 x 100 -> ceil(300/64) = 5, not 3 * 2 */
    ck_assert_bytes(LLMMEM_FORMAT_BNB_NF4, 3, 100, 0, 0, 150ULL + 5ULL * 4 + BNB4_CODE);
    /* blocksize 128: n = 11008 * 300 = 3302400, 25800 blocks */
    ck_assert_bytes(LLMMEM_FORMAT_BNB_FP4, 11008, 300, 128, 0,
                    3302400ULL / 2 + 25800ULL * 4 + BNB4_CODE);
    ck_assert_uint_eq(11008ULL * 300 / 128, 25800ULL);
    /* blocksize 4096 on a tiny tensor: one partial block */
    ck_assert_bytes(LLMMEM_FORMAT_BNB_NF4, 7, 33, 4096, 0, 116ULL + 1ULL * 4 + BNB4_CODE);
    /* blocksize 32 (accepted by the CUDA backend) */
    ck_assert_bytes(LLMMEM_FORMAT_BNB_NF4, 7, 33, 32, 0, 116ULL + 8ULL * 4 + BNB4_CODE);
    /* exact: n = 4096 * 4096 = 16777216, 262144 blocks */
    ck_assert_bytes(LLMMEM_FORMAT_BNB_NF4, 4096, 4096, 0, 0,
                    16777216ULL / 2 + 262144ULL * 4 + BNB4_CODE);
}
END_TEST

START_TEST(test_bnb_4bit_double_quant)
{
    /* compress_statistics: absmax uint8 per block + state2.absmax fp32 per 256 blocks
     * + offset fp32 + state2.code 256 x fp32, plus the 4-bit code */
    /* n = 231: 116 packed, 4 blocks -> 4 bytes absmax, ceil(4 / 256) = 1 nested absmax */
    ck_assert_bytes(LLMMEM_FORMAT_BNB_NF4, 7, 33, 0, 1,
                    116ULL + 4ULL + 1ULL * 4 + BNB4_DQ_CONST + BNB4_CODE);
    /* n = 16793600: 262400 blocks, 262400 / 256 = 1025 nested */
    ck_assert_bytes(LLMMEM_FORMAT_BNB_NF4, 4096, 4100, 0, 1,
                    8396800ULL + 262400ULL + 1025ULL * 4 + BNB4_DQ_CONST + BNB4_CODE);
    /* n = 3302400 at blocksize 64: 51600 blocks, ceil(51600 / 256) = 202 nested */
    ck_assert_bytes(LLMMEM_FORMAT_BNB_FP4, 11008, 300, 0, 1,
                    1651200ULL + 51600ULL + 202ULL * 4 + BNB4_DQ_CONST + BNB4_CODE);
    ck_assert_uint_eq((51600ULL + 255) / 256, 202ULL);
    /* exact: n = 4096 * 4096 = 16777216, 262144 blocks, 1024 nested */
    ck_assert_bytes(LLMMEM_FORMAT_BNB_NF4, 4096, 4096, 0, 1,
                    8388608ULL + 262144ULL + 1024ULL * 4 + BNB4_DQ_CONST + BNB4_CODE);
    ck_assert_uint_eq(bytes_of(LLMMEM_FORMAT_BNB_NF4, 4096, 4096, 0, 1), 8655940ULL);
    /* any nonzero double_quant means yes */
    ck_assert_uint_eq(bytes_of(LLMMEM_FORMAT_BNB_NF4, 7, 33, 0, 2),
                      bytes_of(LLMMEM_FORMAT_BNB_NF4, 7, 33, 0, 1));
}
END_TEST

START_TEST(test_qlora_bits_per_param)
{
    /* QLoRA (Dettmers et al. 2023), double quantization: 8/64 + 32/(64*256) = 0.127 bits per
     * parameter of constants on top of the 4-bit weights. On n = 64 * 256 * k elements all
     * blocks are whole, so bytes * 8 = n*4 + n*8/64 + n*32/(64*256) + per-tensor constants. */
    const uint64_t rows = 8192, cols = 8192, n = rows * cols;
    ck_assert_uint_eq(n % (64ULL * 256), 0);
    uint64_t bytes = bytes_of(LLMMEM_FORMAT_BNB_NF4, rows, cols, 64, 1);
    ck_assert_uint_eq(bytes * 8,
                      n * 4 + n * 8 / 64 + n * 32 / (64 * 256) + (BNB4_DQ_CONST + BNB4_CODE) * 8);
    /* 4 + 8/64 + 32/16384 = 4.126953125 = 4226/1024 bits per parameter, exactly */
    ck_assert_uint_eq((bytes - BNB4_DQ_CONST - BNB4_CODE) * 8 * 1024, n * 4226);
    /* without double quantization: 4 + 32/64 = 4.5 bits */
    bytes = bytes_of(LLMMEM_FORMAT_BNB_NF4, rows, cols, 64, 0);
    ck_assert_uint_eq((bytes - BNB4_CODE) * 8 * 2, n * 9);
}
END_TEST

/* ---- GPTQ / AWQ ----------------------------------------------------------------------------- */

START_TEST(test_gptq)
{
    /* AutoGPTQ QuantLinear (bits 4): qweight int32 [cols/8, rows], qzeros int32 [groups, rows/8],
     * scales fp16 [groups, rows], g_idx int32 [cols]; groups = ceil(cols / g), g = 128 default */
    /* 4096 x 4100: ceil(4100 / 8) = 513 qweight rows, ceil(4100 / 128) = 33 groups */
    ck_assert_bytes(LLMMEM_FORMAT_GPTQ_INT4, 4096, 4100, 0, 0,
                    4ULL * 513 * 4096 + 4ULL * 33 * 512 + 2ULL * 33 * 4096 + 4ULL * 4100);
    /* 11008 x 300: ceil(300 / 8) = 38, 3 groups, 11008 / 8 = 1376 */
    ck_assert_bytes(LLMMEM_FORMAT_GPTQ_INT4, 11008, 300, 128, 0,
                    4ULL * 38 * 11008 + 4ULL * 3 * 1376 + 2ULL * 3 * 11008 + 4ULL * 300);
    /* 7 x 33: ceil(33 / 8) = 5, 1 group, ceil(7 / 8) = 1 */
    ck_assert_bytes(LLMMEM_FORMAT_GPTQ_INT4, 7, 33, 0, 0,
                    4ULL * 5 * 7 + 4ULL * 1 * 1 + 2ULL * 1 * 7 + 4ULL * 33);
    /* 7 x 33, g = 32: 2 groups */
    ck_assert_bytes(LLMMEM_FORMAT_GPTQ_INT4, 7, 33, 32, 0,
                    4ULL * 5 * 7 + 4ULL * 2 * 1 + 2ULL * 2 * 7 + 4ULL * 33);
    /* exact, Llama-2-7B q_proj: qweight [512, 4096], qzeros [32, 512], scales [32, 4096],
     * g_idx [4096] */
    ck_assert_bytes(LLMMEM_FORMAT_GPTQ_INT4, 4096, 4096, 128, 0,
                    4ULL * 512 * 4096 + 4ULL * 32 * 512 + 2ULL * 32 * 4096 + 4ULL * 4096);
    /* g = 1 (every column its own group) is valid */
    ck_assert_bytes(LLMMEM_FORMAT_GPTQ_INT4, 8, 8, 1, 0,
                    4ULL * 1 * 8 + 4ULL * 8 * 1 + 2ULL * 8 * 8 + 4ULL * 8);
}
END_TEST

START_TEST(test_awq)
{
    /* AutoAWQ WQLinear_GEMM: qweight int32 [cols, rows/8], qzeros int32 [groups, rows/8],
     * scales fp16 [groups, rows]; no g_idx; groups = ceil(cols / g), g = 128 default */
    /* 4096 x 4100: 4096 / 8 = 512, 33 groups */
    ck_assert_bytes(LLMMEM_FORMAT_AWQ_INT4, 4096, 4100, 0, 0,
                    4ULL * 4100 * 512 + 4ULL * 33 * 512 + 2ULL * 33 * 4096);
    /* 11008 x 300: 1376, 3 groups */
    ck_assert_bytes(LLMMEM_FORMAT_AWQ_INT4, 11008, 300, 0, 0,
                    4ULL * 300 * 1376 + 4ULL * 3 * 1376 + 2ULL * 3 * 11008);
    /* 7 x 33: ceil(7 / 8) = 1, 1 group */
    ck_assert_bytes(LLMMEM_FORMAT_AWQ_INT4, 7, 33, 128, 0,
                    4ULL * 33 * 1 + 4ULL * 1 * 1 + 2ULL * 1 * 7);
    /* 7 x 33, g = 16: ceil(33 / 16) = 3 groups */
    ck_assert_bytes(LLMMEM_FORMAT_AWQ_INT4, 7, 33, 16, 0,
                    4ULL * 33 * 1 + 4ULL * 3 * 1 + 2ULL * 3 * 7);
    /* exact 4096 x 4096: qweight [4096, 512], qzeros [32, 512], scales [32, 4096] */
    ck_assert_bytes(LLMMEM_FORMAT_AWQ_INT4, 4096, 4096, 0, 0,
                    4ULL * 4096 * 512 + 4ULL * 32 * 512 + 2ULL * 32 * 4096);
}
END_TEST

/* ---- microscaling --------------------------------------------------------------------------- */

START_TEST(test_mxfp4)
{
    /* OCP MX v1.0 / ggml block_mxfp4: 32 E2M1 (16 B) + 1 E8M0 scale = 17 B per 32 along cols */
    ck_assert_bytes(LLMMEM_FORMAT_MXFP4, 4096, 4100, 0, 0, 4096ULL * 129 * 17); /* ceil(4100/32) */
    ck_assert_bytes(LLMMEM_FORMAT_MXFP4, 11008, 300, 0, 0, 11008ULL * 10 * 17); /* ceil(300/32) */
    ck_assert_bytes(LLMMEM_FORMAT_MXFP4, 7, 33, 0, 0, 7ULL * 2 * 17);
    ck_assert_bytes(LLMMEM_FORMAT_MXFP4, 4096, 4096, 0, 0, 4096ULL * 128 * 17);
}
END_TEST

START_TEST(test_nvfp4)
{
    /* vLLM compressed_tensors_w4a4_nvfp4: weight_packed uint8 [rows, cols/2], weight_scale e4m3
     * [rows, cols/16], weight_global_scale fp32: 9 B per 16 along cols + 4 B per tensor */
    ck_assert_bytes(LLMMEM_FORMAT_NVFP4, 4096, 4100, 0, 0, 4096ULL * 257 * 9 + 4); /* 4100/16 */
    ck_assert_bytes(LLMMEM_FORMAT_NVFP4, 11008, 300, 0, 0, 11008ULL * 19 * 9 + 4); /* 300/16 */
    ck_assert_bytes(LLMMEM_FORMAT_NVFP4, 7, 33, 0, 0, 7ULL * 3 * 9 + 4);
    ck_assert_bytes(LLMMEM_FORMAT_NVFP4, 4096, 4096, 0, 0, 4096ULL * 256 * 9 + 4);
}
END_TEST

/* ---- GGUF ----------------------------------------------------------------------------------- */

START_TEST(test_gguf_legacy)
{
    /* ggml-common.h: 32 weights per block; block_q4_0 = 2 + 16, q4_1 = 4 + 16, q5_0 = 2 + 4 + 16,
     * q5_1 = 4 + 4 + 16, q8_0 = 2 + 32. Rows padded: ceil(4100/32) = 129, ceil(300/32) = 10,
     * ceil(33/32) = 2 */
    ck_assert_bytes(LLMMEM_FORMAT_Q4_0, 4096, 4100, 0, 0, 4096ULL * 129 * (2 + 16));
    ck_assert_bytes(LLMMEM_FORMAT_Q4_0, 7, 33, 0, 0, 7ULL * 2 * 18);
    ck_assert_bytes(LLMMEM_FORMAT_Q4_0, 4096, 4096, 0, 0, 4096ULL * 128 * 18);
    ck_assert_bytes(LLMMEM_FORMAT_Q4_1, 11008, 300, 0, 0, 11008ULL * 10 * (4 + 16));
    ck_assert_bytes(LLMMEM_FORMAT_Q4_1, 4096, 4096, 0, 0, 4096ULL * 128 * 20);
    ck_assert_bytes(LLMMEM_FORMAT_Q5_0, 7, 33, 0, 0, 7ULL * 2 * (2 + 4 + 16));
    ck_assert_bytes(LLMMEM_FORMAT_Q5_0, 4096, 4096, 0, 0, 4096ULL * 128 * 22);
    ck_assert_bytes(LLMMEM_FORMAT_Q5_1, 4096, 4100, 0, 0, 4096ULL * 129 * (4 + 4 + 16));
    ck_assert_bytes(LLMMEM_FORMAT_Q5_1, 4096, 4096, 0, 0, 4096ULL * 128 * 24);
    ck_assert_bytes(LLMMEM_FORMAT_Q8_0, 11008, 300, 0, 0, 11008ULL * 10 * (2 + 32));
    ck_assert_bytes(LLMMEM_FORMAT_Q8_0, 1, 4100, 0, 0, 1ULL * 129 * 34);
    ck_assert_bytes(LLMMEM_FORMAT_Q8_0, 4096, 4096, 0, 0, 4096ULL * 128 * 34);
}
END_TEST

START_TEST(test_gguf_k)
{
    /* ggml-common.h, QK_K = 256, K_SCALE_SIZE = 12:
     *   q2_K = scales[16] + qs[64] + 2 x fp16          = 84
     *   q3_K = hmask[32] + qs[64] + scales[12] + fp16  = 110
     *   q4_K = 2 x fp16 + scales[12] + qs[128]         = 144
     *   q5_K = 2 x fp16 + scales[12] + qh[32] + qs[128] = 176
     *   q6_K = ql[128] + qh[64] + scales[16] + fp16    = 210
     * Rows padded: ceil(4100/256) = 17, ceil(300/256) = 2, ceil(33/256) = 1 */
    ck_assert_bytes(LLMMEM_FORMAT_Q2_K, 4096, 4100, 0, 0, 4096ULL * 17 * (16 + 64 + 4));
    ck_assert_bytes(LLMMEM_FORMAT_Q2_K, 4096, 4096, 0, 0, 4096ULL * 16 * 84);
    ck_assert_bytes(LLMMEM_FORMAT_Q3_K, 11008, 300, 0, 0, 11008ULL * 2 * (32 + 64 + 12 + 2));
    ck_assert_bytes(LLMMEM_FORMAT_Q3_K, 4096, 4096, 0, 0, 4096ULL * 16 * 110);
    ck_assert_bytes(LLMMEM_FORMAT_Q4_K, 7, 33, 0, 0, 7ULL * 1 * (4 + 12 + 128));
    ck_assert_bytes(LLMMEM_FORMAT_Q4_K, 4096, 4100, 0, 0, 4096ULL * 17 * 144);
    ck_assert_bytes(LLMMEM_FORMAT_Q4_K, 4096, 4096, 0, 0, 4096ULL * 16 * 144);
    ck_assert_bytes(LLMMEM_FORMAT_Q5_K, 4096, 4100, 0, 0, 4096ULL * 17 * (4 + 12 + 32 + 128));
    ck_assert_bytes(LLMMEM_FORMAT_Q5_K, 4096, 4096, 0, 0, 4096ULL * 16 * 176);
    ck_assert_bytes(LLMMEM_FORMAT_Q6_K, 11008, 300, 0, 0, 11008ULL * 2 * (128 + 64 + 16 + 2));
    ck_assert_bytes(LLMMEM_FORMAT_Q6_K, 7, 33, 0, 0, 7ULL * 1 * 210);
    ck_assert_bytes(LLMMEM_FORMAT_Q6_K, 4096, 4096, 0, 0, 4096ULL * 16 * 210);
}
END_TEST

/* ---- element bits --------------------------------------------------------------------------- */

START_TEST(test_element_bits)
{
    ck_assert_uint_eq(llmmem__format_element_bits(LLMMEM_FORMAT_FP32), 32);
    ck_assert_uint_eq(llmmem__format_element_bits(LLMMEM_FORMAT_FP16), 16);
    ck_assert_uint_eq(llmmem__format_element_bits(LLMMEM_FORMAT_BF16), 16);
    ck_assert_uint_eq(llmmem__format_element_bits(LLMMEM_FORMAT_FP8_E4M3), 8);
    ck_assert_uint_eq(llmmem__format_element_bits(LLMMEM_FORMAT_FP8_E5M2), 8);
    ck_assert_uint_eq(llmmem__format_element_bits(LLMMEM_FORMAT_INT8), 8);
    ck_assert_uint_eq(llmmem__format_element_bits(LLMMEM_FORMAT_INT4), 4);

    static const llmmem_format blocked[] = {
        LLMMEM_FORMAT_AUTO,      LLMMEM_FORMAT_FP8_BLOCK, LLMMEM_FORMAT_BNB_INT8,
        LLMMEM_FORMAT_BNB_NF4,   LLMMEM_FORMAT_BNB_FP4,   LLMMEM_FORMAT_GPTQ_INT4,
        LLMMEM_FORMAT_AWQ_INT4,  LLMMEM_FORMAT_MXFP4,     LLMMEM_FORMAT_NVFP4,
        LLMMEM_FORMAT_Q4_0,      LLMMEM_FORMAT_Q4_1,      LLMMEM_FORMAT_Q5_0,
        LLMMEM_FORMAT_Q5_1,      LLMMEM_FORMAT_Q8_0,      LLMMEM_FORMAT_Q2_K,
        LLMMEM_FORMAT_Q3_K,      LLMMEM_FORMAT_Q4_K,      LLMMEM_FORMAT_Q5_K,
        LLMMEM_FORMAT_Q6_K,      LLMMEM_FORMAT_FP8_CHANNEL, LLMMEM_FORMAT_INT8_CHANNEL,
        LLMMEM_FORMAT_CT_INT4,   (llmmem_format)255,      (llmmem_format)-1,
    };
    for (size_t i = 0; i < sizeof blocked / sizeof blocked[0]; i++)
        ck_assert_msg(llmmem__format_element_bits(blocked[i]) == 0, "format %d has element bits",
                      (int)blocked[i]);
}
END_TEST

/* ---- errors --------------------------------------------------------------------------------- */

START_TEST(test_every_format_accepted)
{
    for (int f = 1; f <= LLMMEM_FORMAT_CT_INT4; f++) {
        uint64_t bytes = 0;
        ck_assert_ok(llmmem_format_tensor_bytes(&bytes, (llmmem_format)f, 7, 33, 0, 0));
        ck_assert_msg(bytes > 0, "format %d: 0 bytes", f);
    }
}
END_TEST

START_TEST(test_auto_and_unknown_rejected)
{
    uint64_t bytes = 12345, internal = 12345;
    ck_assert_status(llmmem_format_tensor_bytes(&bytes, LLMMEM_FORMAT_AUTO, 7, 33, 0, 0),
                     LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_message_has("format 0");
    ck_assert_uint_eq(bytes, 12345); /* untouched on failure */
    ck_assert_int_eq(llmmem__format_bytes(&internal, LLMMEM_FORMAT_AUTO, 7, 33, 0, 0), 0);
    ck_assert_uint_eq(internal, 12345);

    ck_assert_status(llmmem_format_tensor_bytes(&bytes, (llmmem_format)255, 7, 33, 0, 0),
                     LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_message_has("format 255");
    ck_assert_status(llmmem_format_tensor_bytes(&bytes, (llmmem_format)-1, 7, 33, 0, 0),
                     LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_message_has("format -1");
    ck_assert_int_eq(llmmem__format_bytes(&internal, (llmmem_format)255, 7, 33, 0, 0), 0);
    ck_assert_int_eq(llmmem__format_bytes(&internal, (llmmem_format)-1, 7, 33, 0, 0), 0);
    ck_assert_uint_eq(bytes, 12345);
}
END_TEST

START_TEST(test_null_output_rejected)
{
    ck_assert_status(llmmem_format_tensor_bytes(NULL, LLMMEM_FORMAT_FP16, 7, 33, 0, 0),
                     LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_message_has("bytes_out");
    ck_assert_int_eq(llmmem__format_bytes(NULL, LLMMEM_FORMAT_FP16, 7, 33, 0, 0), 0);
}
END_TEST

START_TEST(test_group_sizes)
{
    uint64_t bytes = 12345, internal = 12345;
    /* bitsandbytes 4-bit block sizes: 32 .. 4096, powers of two */
    static const uint64_t bad_bnb[] = {1, 16, 48, 63, 100, 96, 8192, UINT64_MAX};
    for (size_t i = 0; i < sizeof bad_bnb / sizeof bad_bnb[0]; i++) {
        ck_assert_status(
            llmmem_format_tensor_bytes(&bytes, LLMMEM_FORMAT_BNB_NF4, 7, 33, bad_bnb[i], 0),
            LLMMEM_ERR_OUT_OF_RANGE);
        ck_assert_message_has("group_size");
        ck_assert_int_eq(
            llmmem__format_bytes(&internal, LLMMEM_FORMAT_BNB_FP4, 7, 33, bad_bnb[i], 1), 0);
    }
    ck_assert_status(llmmem_format_tensor_bytes(&bytes, LLMMEM_FORMAT_BNB_FP4, 7, 33, 100, 0),
                     LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_message_has("group_size (100)");
    for (uint64_t bs = 32; bs <= 4096; bs *= 2)
        ck_assert_ok(llmmem_format_tensor_bytes(&bytes, LLMMEM_FORMAT_BNB_NF4, 7, 33, bs, 1));

    /* GPTQ / AWQ: 1 .. 2^31 - 1; (uint64_t)-1, the "-1" per-column setting, is rejected */
    bytes = 12345;
    static const uint64_t bad_group[] = {UINT64_MAX, 2147483648ULL, 1ULL << 40};
    for (size_t i = 0; i < sizeof bad_group / sizeof bad_group[0]; i++) {
        ck_assert_status(
            llmmem_format_tensor_bytes(&bytes, LLMMEM_FORMAT_GPTQ_INT4, 7, 33, bad_group[i], 0),
            LLMMEM_ERR_OUT_OF_RANGE);
        ck_assert_message_has("group_size");
        ck_assert_status(
            llmmem_format_tensor_bytes(&bytes, LLMMEM_FORMAT_AWQ_INT4, 7, 33, bad_group[i], 0),
            LLMMEM_ERR_OUT_OF_RANGE);
        ck_assert_int_eq(
            llmmem__format_bytes(&internal, LLMMEM_FORMAT_AWQ_INT4, 7, 33, bad_group[i], 0), 0);
    }
    ck_assert_status(
        llmmem_format_tensor_bytes(&bytes, LLMMEM_FORMAT_GPTQ_INT4, 7, 33, (uint64_t)-1, 0),
        LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_message_has("group_size (18446744073709551615)");
    ck_assert_uint_eq(bytes, 12345);
    ck_assert_uint_eq(internal, 12345);
    ck_assert_ok(llmmem_format_tensor_bytes(&bytes, LLMMEM_FORMAT_GPTQ_INT4, 7, 33, 2147483647, 0));

    /* 0 selects the default: 64 for bitsandbytes, 128 for GPTQ / AWQ */
    ck_assert_uint_eq(bytes_of(LLMMEM_FORMAT_BNB_NF4, 4096, 4100, 0, 1),
                      bytes_of(LLMMEM_FORMAT_BNB_NF4, 4096, 4100, 64, 1));
    ck_assert_uint_eq(bytes_of(LLMMEM_FORMAT_GPTQ_INT4, 4096, 4100, 0, 0),
                      bytes_of(LLMMEM_FORMAT_GPTQ_INT4, 4096, 4100, 128, 0));
    ck_assert_uint_eq(bytes_of(LLMMEM_FORMAT_AWQ_INT4, 4096, 4100, 0, 0),
                      bytes_of(LLMMEM_FORMAT_AWQ_INT4, 4096, 4100, 128, 0));
    /* formats without groups ignore group_size and double_quant */
    ck_assert_bytes(LLMMEM_FORMAT_FP16, 7, 33, 100, 1, 7ULL * 33 * 2);
    ck_assert_bytes(LLMMEM_FORMAT_Q4_K, 7, 33, 3, 1, 7ULL * 144);
}
END_TEST

START_TEST(test_overflow)
{
    uint64_t bytes = 12345, internal = 12345;
    const uint64_t big = 1ULL << 33; /* 8589934592 */
    ck_assert_status(llmmem_format_tensor_bytes(&bytes, LLMMEM_FORMAT_FP32, big, big, 0, 0),
                     LLMMEM_ERR_OVERFLOW);
    ck_assert_message_has("8589934592 x 8589934592");
    ck_assert_message_has("exceeds 64 bits");
    ck_assert_int_eq(llmmem__format_bytes(&internal, LLMMEM_FORMAT_FP32, big, big, 0, 0), 0);
    ck_assert_uint_eq(bytes, 12345);
    ck_assert_uint_eq(internal, 12345);

    /* the element count fits but the bytes do not: 2^31 x 2^31 fp32 = 2^64 bytes */
    ck_assert_status(
        llmmem_format_tensor_bytes(&bytes, LLMMEM_FORMAT_FP32, 1ULL << 31, 1ULL << 31, 0, 0),
        LLMMEM_ERR_OVERFLOW);
    /* 2^63 int4 elements need 2^62 bytes: no overflow from forming n * 4 bits */
    ck_assert_bytes(LLMMEM_FORMAT_INT4, 1ULL << 32, 1ULL << 31, 0, 0, 1ULL << 62);
    ck_assert_status(
        llmmem_format_tensor_bytes(&bytes, LLMMEM_FORMAT_FP16, 1ULL << 32, 1ULL << 31, 0, 0),
        LLMMEM_ERR_OVERFLOW);
    /* every format overflows on the largest shape */
    for (int f = 1; f <= LLMMEM_FORMAT_CT_INT4; f++) {
        ck_assert_status(
            llmmem_format_tensor_bytes(&bytes, (llmmem_format)f, UINT64_MAX, UINT64_MAX, 0, 0),
            LLMMEM_ERR_OVERFLOW);
        ck_assert_int_eq(
            llmmem__format_bytes(&internal, (llmmem_format)f, UINT64_MAX, UINT64_MAX, 0, 1), 0);
    }
    /* a per-tensor constant pushes it over: (2^64 - 4) fp8 elements + 4 B scale */
    ck_assert_status(
        llmmem_format_tensor_bytes(&bytes, LLMMEM_FORMAT_FP8_E4M3, 1, UINT64_MAX - 3, 0, 0),
        LLMMEM_ERR_OVERFLOW);
    ck_assert_bytes(LLMMEM_FORMAT_FP8_E4M3, 1, UINT64_MAX - 4, 0, 0, UINT64_MAX);
    ck_assert_uint_eq(bytes, 12345);
}
END_TEST

static Suite *formats_suite(void)
{
    Suite *s = suite_create("formats");

    TCase *layouts = tcase_create("layouts");
    tcase_add_test(layouts, test_plain);
    tcase_add_test(layouts, test_fp8);
    tcase_add_test(layouts, test_fp8_block);
    tcase_add_test(layouts, test_bnb_int8);
    tcase_add_test(layouts, test_bnb_4bit);
    tcase_add_test(layouts, test_bnb_4bit_double_quant);
    tcase_add_test(layouts, test_qlora_bits_per_param);
    tcase_add_test(layouts, test_gptq);
    tcase_add_test(layouts, test_awq);
    tcase_add_test(layouts, test_mxfp4);
    tcase_add_test(layouts, test_nvfp4);
    tcase_add_test(layouts, test_gguf_legacy);
    tcase_add_test(layouts, test_gguf_k);
    tcase_add_test(layouts, test_element_bits);
    suite_add_tcase(s, layouts);

    TCase *errors = tcase_create("errors");
    tcase_add_test(errors, test_every_format_accepted);
    tcase_add_test(errors, test_auto_and_unknown_rejected);
    tcase_add_test(errors, test_null_output_rejected);
    tcase_add_test(errors, test_group_sizes);
    tcase_add_test(errors, test_overflow);
    suite_add_tcase(s, errors);

    return s;
}

int main(void)
{
    return run_suite(formats_suite());
}
