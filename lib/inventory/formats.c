/*
 * Storage formats: the exact bytes of one rows x cols weight tensor.
 *
 * cols is the input dimension (a Hugging Face nn.Linear weight is
 * [out_features = rows, in_features = cols]); a 1-D vector is rows = 1.
 * Blocks and groups run along cols, and a partial last block or group costs
 * a whole one. Loaders often demand cols divisible by the block or group
 * (ggml asserts ne[0] % block == 0; AutoAWQ and vLLM assert in % group == 0);
 * for such shapes the padded cost below equals the loaders' own, and for
 * others it is what a zero-padded copy of the tensor would take.
 *
 * Counted: every tensor the runtime keeps on the device for the weight
 * (packed values, scales, zero points, indices, per-tensor tables).
 * Not counted: activation scales (input_scale, input_global_scale), which
 * belong to the activations, and kernel-specific re-layouts made after
 * loading (scale swizzling, Marlin repacking).
 *
 * All arithmetic is integer and checked; no floating point.
 */
#include <inttypes.h>
#include <stdint.h>

#include "base/internal.h"

enum format_kind {
    KIND_NONE = 0,   /* AUTO and unassigned values: not a storage format */
    KIND_PLAIN,      /* elem_bits per element, packed over the whole tensor, + tensor_extra */
    KIND_ROW_BLOCK,  /* rows * ceil(cols / block_elems) * block_bytes + tensor_extra */
    KIND_FP8_BLOCK,  /* 1 byte per element + fp32 per block_elems x block_elems tile */
    KIND_BNB_INT8,   /* bitsandbytes LLM.int8 */
    KIND_BNB_4BIT,   /* bitsandbytes NF4 / FP4 */
    KIND_GPTQ,       /* GPTQ 4-bit */
    KIND_AWQ,        /* AWQ 4-bit GEMM */
    KIND_ROW_SCALED, /* elem_bits per element + an fp32 scale per row */
    KIND_CT_PACKED   /* compressed-tensors pack-quantized 4-bit */
};

typedef struct format_info {
    uint8_t kind;          /* enum format_kind */
    uint8_t elem_bits;     /* KIND_PLAIN: bits per element */
    uint16_t block_elems;  /* KIND_ROW_BLOCK / KIND_FP8_BLOCK: block edge in elements */
    uint16_t block_bytes;  /* KIND_ROW_BLOCK: bytes per block */
    uint16_t tensor_extra; /* bytes stored once per tensor */
} format_info;

/* clang-format off */
static const format_info format_table[] = {
    [LLMMEM_FORMAT_AUTO]      = { KIND_NONE, 0, 0, 0, 0 },
    /* IEEE binary32 / binary16, bfloat16, int8: whole bytes, no scales */
    [LLMMEM_FORMAT_FP32]      = { KIND_PLAIN, 32, 0, 0, 0 },
    [LLMMEM_FORMAT_FP16]      = { KIND_PLAIN, 16, 0, 0, 0 },
    [LLMMEM_FORMAT_BF16]      = { KIND_PLAIN, 16, 0, 0, 0 },
    [LLMMEM_FORMAT_INT8]      = { KIND_PLAIN, 8, 0, 0, 0 },
    /* plain int4: two elements per byte over the flattened tensor, no scales */
    [LLMMEM_FORMAT_INT4]      = { KIND_PLAIN, 4, 0, 0, 0 },
    /* vllm-project/vllm .../quantization/fp8.py Fp8LinearMethod: fp8 + fp32 weight_scale */
    [LLMMEM_FORMAT_FP8_E4M3]  = { KIND_PLAIN, 8, 0, 0, 4 },
    [LLMMEM_FORMAT_FP8_E5M2]  = { KIND_PLAIN, 8, 0, 0, 4 },
    /* deepseek-ai/DeepSeek-V3 README_WEIGHTS.md: e4m3 + fp32 weight_scale_inv per 128x128 block */
    [LLMMEM_FORMAT_FP8_BLOCK] = { KIND_FP8_BLOCK, 8, 128, 0, 0 },
    [LLMMEM_FORMAT_BNB_INT8]  = { KIND_BNB_INT8, 0, 0, 0, 0 },
    [LLMMEM_FORMAT_BNB_NF4]   = { KIND_BNB_4BIT, 0, 0, 0, 0 },
    [LLMMEM_FORMAT_BNB_FP4]   = { KIND_BNB_4BIT, 0, 0, 0, 0 },
    [LLMMEM_FORMAT_GPTQ_INT4] = { KIND_GPTQ, 0, 0, 0, 0 },
    [LLMMEM_FORMAT_AWQ_INT4]  = { KIND_AWQ, 0, 0, 0, 0 },
    /* OCP MX v1.0 MXFP4; llama.cpp ggml/src/ggml-common.h block_mxfp4: e (E8M0) + qs[16] per 32 */
    [LLMMEM_FORMAT_MXFP4]     = { KIND_ROW_BLOCK, 0, 32, 17, 0 },
    /* vllm .../compressed_tensors_w4a4_nvfp4.py: 8 B E2M1 + E4M3 scale per 16; fp32 global scale */
    [LLMMEM_FORMAT_NVFP4]     = { KIND_ROW_BLOCK, 0, 16, 9, 4 },
    /* ggml-org/llama.cpp ggml/src/ggml-common.h block_q4_0: d (fp16) + qs[16] per 32 weights */
    [LLMMEM_FORMAT_Q4_0]      = { KIND_ROW_BLOCK, 0, 32, 18, 0 },
    /* ggml-common.h block_q4_1: d, m (2 x fp16) + qs[16] per 32 weights */
    [LLMMEM_FORMAT_Q4_1]      = { KIND_ROW_BLOCK, 0, 32, 20, 0 },
    /* ggml-common.h block_q5_0: d (fp16) + qh[4] + qs[16] per 32 weights */
    [LLMMEM_FORMAT_Q5_0]      = { KIND_ROW_BLOCK, 0, 32, 22, 0 },
    /* ggml-common.h block_q5_1: d, m (2 x fp16) + qh[4] + qs[16] per 32 weights */
    [LLMMEM_FORMAT_Q5_1]      = { KIND_ROW_BLOCK, 0, 32, 24, 0 },
    /* ggml-common.h block_q8_0: d (fp16) + qs[32] per 32 weights */
    [LLMMEM_FORMAT_Q8_0]      = { KIND_ROW_BLOCK, 0, 32, 34, 0 },
    /* ggml-common.h block_q2_K: scales[16] + qs[64] + d, dmin (2 x fp16) per QK_K = 256 weights */
    [LLMMEM_FORMAT_Q2_K]      = { KIND_ROW_BLOCK, 0, 256, 84, 0 },
    /* ggml-common.h block_q3_K: hmask[32] + qs[64] + scales[12] + d (fp16) per 256 weights */
    [LLMMEM_FORMAT_Q3_K]      = { KIND_ROW_BLOCK, 0, 256, 110, 0 },
    /* ggml-common.h block_q4_K: d, dmin (2 x fp16) + scales[K_SCALE_SIZE=12] + qs[128] per 256 */
    [LLMMEM_FORMAT_Q4_K]      = { KIND_ROW_BLOCK, 0, 256, 144, 0 },
    /* ggml-common.h block_q5_K: d, dmin (2 x fp16) + scales[12] + qh[32] + qs[128] per 256 */
    [LLMMEM_FORMAT_Q5_K]      = { KIND_ROW_BLOCK, 0, 256, 176, 0 },
    /* ggml-common.h block_q6_K: ql[128] + qh[64] + scales[16] + d (fp16) per 256 weights */
    [LLMMEM_FORMAT_Q6_K]      = { KIND_ROW_BLOCK, 0, 256, 210, 0 },
    /* vllm .../compressed_tensors/schemes/compressed_tensors_w8a8_fp8.py: channel weight_scale fp32 (rows, 1) */
    [LLMMEM_FORMAT_FP8_CHANNEL]  = { KIND_ROW_SCALED, 8, 0, 0, 0 },
    /* vllm .../schemes/compressed_tensors_w8a8_int8.py: int8 weight, channel weight_scale fp32 (rows, 1) */
    [LLMMEM_FORMAT_INT8_CHANNEL] = { KIND_ROW_SCALED, 8, 0, 0, 0 },
    /* vllm .../schemes/compressed_tensors_wNa16.py: weight_packed, weight_scale, weight_shape (symmetric) */
    [LLMMEM_FORMAT_CT_INT4]      = { KIND_CT_PACKED, 4, 0, 0, 16 },
};
/* clang-format on */

#define FORMAT_COUNT (sizeof format_table / sizeof format_table[0])

/* Defaults for group_size == 0. */
#define BNB_4BIT_DEFAULT_BLOCKSIZE 64u
#define GPTQ_AWQ_DEFAULT_GROUP 128u
/* quantize_config.json stores group_size as a JSON int; (uint64_t)-1 lands above this. */
#define GPTQ_AWQ_MAX_GROUP 2147483647u

/* The table row of a storage format, or NULL for AUTO and unknown values. */
static const format_info *format_lookup(llmmem_format format)
{
    unsigned index = (unsigned)format;
    if (index >= FORMAT_COUNT || format_table[index].kind == KIND_NONE)
        return NULL;
    return &format_table[index];
}

/* bitsandbytes/backends/cuda/ops.py quantize_4bit: blocksize in [4096 .. 64, 32] */
static int bnb_4bit_blocksize_valid(uint64_t blocksize)
{
    /* a power of two from 32 to 4096 */
    return blocksize >= 32u && blocksize <= 4096u && (blocksize & (blocksize - 1u)) == 0;
}

/* The group (block) size a format uses: 1 and *group_out set, or 0 if group_size is not valid.
 * Formats without groups ignore group_size. */
static int format_group(uint64_t *group_out, const format_info *info, uint64_t group_size)
{
    switch (info->kind) {
    case KIND_BNB_4BIT:
        *group_out = group_size == 0 ? BNB_4BIT_DEFAULT_BLOCKSIZE : group_size;
        return bnb_4bit_blocksize_valid(*group_out);
    case KIND_GPTQ:
    case KIND_AWQ:
    case KIND_CT_PACKED:
        *group_out = group_size == 0 ? GPTQ_AWQ_DEFAULT_GROUP : group_size;
        return *group_out <= GPTQ_AWQ_MAX_GROUP;
    default:
        *group_out = 0;
        return 1;
    }
}

/* acc += a * b * c, checked. */
static int muladd3(uint64_t *acc, uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t ab;
    return llmmem__mul(&ab, a, b) && llmmem__muladd(acc, ab, c);
}

/* ceil(n * bits / 8) without forming n * bits: 8 elements always fill `bits` whole bytes. */
static int packed_bytes(uint64_t *out, uint64_t n, unsigned bits)
{
    uint64_t whole;
    if (!llmmem__mul(&whole, n / 8u, bits))
        return 0;
    return llmmem__add(out, whole, llmmem__ceil_div((n % 8u) * bits, 8u));
}

/* bitsandbytes/functional.py quantize_4bit + QuantState: the flattened tensor in blocks of
 * `blocksize`. The per-tensor code tables are counted because each QuantState holds its own
 * copy on the device: get_4bit_type() builds a fresh 16-entry fp32 code for every call,
 * quantize_blockwise() keeps code.to(device, copy=True) for the nested state, and a
 * pre-quantized checkpoint stores quant_map and nested_quant_map per tensor (QuantState.as_dict
 * clones the nested map), which QuantState.from_dict loads per tensor. */
static int bnb_4bit_bytes(uint64_t *out, uint64_t rows, uint64_t cols, uint64_t blocksize,
                          int double_quant)
{
    uint64_t n, nblocks, total;
    if (!llmmem__mul(&n, rows, cols))
        return 0;
    nblocks = llmmem__ceil_div(n, blocksize);
    /* backends/cuda/ops.py quantize_4bit: out uint8 [(n + 1) // 2], absmax fp32 [ceil(n / bs)] */
    total = llmmem__ceil_div(n, 2u);
    /* functional.py get_4bit_type: code, 16 x fp32 = 64 B per QuantState */
    if (!llmmem__add(&total, total, 16u * 4u))
        return 0;
    if (!double_quant) {
        if (!llmmem__muladd(&total, nblocks, 4u))
            return 0;
    } else {
        /* functional.py quantize_4bit compress_statistics: absmax -> uint8 (blocksize 256) */
        if (!llmmem__add(&total, total, nblocks))
            return 0;
        /* state2.absmax fp32 per 256 blocks, offset (0-dim fp32), state2.code 256 x fp32 */
        if (!llmmem__muladd(&total, llmmem__ceil_div(nblocks, 256u), 4u) ||
            !llmmem__add(&total, total, 4u + 256u * 4u))
            return 0;
    }
    *out = total;
    return 1;
}

/* Bytes of a validated format; 0 on overflow. */
static int format_compute(uint64_t *out, const format_info *info, uint64_t rows, uint64_t cols,
                          uint64_t group, int double_quant)
{
    uint64_t n, total = 0, groups;

    switch (info->kind) {
    case KIND_PLAIN:
        if (!llmmem__mul(&n, rows, cols) || !packed_bytes(&total, n, info->elem_bits))
            return 0;
        break;

    case KIND_ROW_BLOCK:
        if (!muladd3(&total, rows, llmmem__ceil_div(cols, info->block_elems), info->block_bytes))
            return 0;
        break;

    case KIND_FP8_BLOCK:
        if (!llmmem__mul(&total, rows, cols) ||
            !muladd3(&total, llmmem__ceil_div(rows, info->block_elems),
                     llmmem__ceil_div(cols, info->block_elems), 4u))
            return 0;
        break;

    case KIND_BNB_INT8:
        /* bitsandbytes/nn/modules.py Int8Params._quantize: CB int8 [rows, cols], SCB fp32 [rows] */
        if (!llmmem__mul(&total, rows, cols) || !llmmem__muladd(&total, rows, 4u))
            return 0;
        break;

    case KIND_BNB_4BIT:
        return bnb_4bit_bytes(out, rows, cols, group, double_quant);

    case KIND_GPTQ:
        groups = llmmem__ceil_div(cols, group);
        /* AutoGPTQ auto_gptq/nn_modules/qlinear/qlinear_cuda.py: qweight int32 [cols*4/32, rows] */
        if (!muladd3(&total, 4u, llmmem__ceil_div(cols, 8u), rows) ||
            /* qzeros int32 [ceil(cols / g), rows*4/32], scales fp16 [ceil(cols / g), rows] */
            !muladd3(&total, 4u, groups, llmmem__ceil_div(rows, 8u)) ||
            !muladd3(&total, 2u, groups, rows) ||
            /* g_idx int32 [cols] */
            !llmmem__muladd(&total, 4u, cols))
            return 0;
        break;

    case KIND_AWQ:
        groups = llmmem__ceil_div(cols, group);
        /* AutoAWQ awq/modules/linear/gemm.py WQLinear_GEMM: qweight int32 [cols, rows*4/32] */
        if (!muladd3(&total, 4u, cols, llmmem__ceil_div(rows, 8u)) ||
            /* qzeros int32 [cols / g, rows*4/32], scales fp16 [cols / g, rows]; no g_idx */
            !muladd3(&total, 4u, groups, llmmem__ceil_div(rows, 8u)) ||
            !muladd3(&total, 2u, groups, rows))
            return 0;
        break;

    case KIND_ROW_SCALED:
        if (!llmmem__mul(&total, rows, cols) || !llmmem__muladd(&total, rows, 4u))
            return 0;
        break;

    case KIND_CT_PACKED:
        /* compressed_tensors_wNa16.py: weight_packed int32 [rows, cols / 8], weight_scale (the model's
         * 16-bit dtype) [rows, cols / group], weight_shape int64 [2] (tensor_extra) */
        if (!muladd3(&total, 4u, llmmem__ceil_div(cols, 8u), rows) ||
            !muladd3(&total, 2u, llmmem__ceil_div(cols, group), rows))
            return 0;
        break;

    default:
        return 0;
    }

    if (!llmmem__add(&total, total, info->tensor_extra))
        return 0;
    *out = total;
    return 1;
}

unsigned llmmem__format_block_elements(llmmem_format format)
{
    const format_info *info = format_lookup(format);
    return info != NULL && info->kind == KIND_ROW_BLOCK ? info->block_elems : 1u;
}

unsigned llmmem__format_element_bits(llmmem_format format)
{
    const format_info *info = format_lookup(format);
    return info != NULL && info->kind == KIND_PLAIN ? info->elem_bits : 0u;
}

int llmmem__format_bytes(uint64_t *bytes_out, llmmem_format format, uint64_t rows, uint64_t cols,
                         uint64_t group_size, int double_quant)
{
    const format_info *info = format_lookup(format);
    uint64_t group, bytes;
    if (bytes_out == NULL || info == NULL || !format_group(&group, info, group_size))
        return 0;
    if (!format_compute(&bytes, info, rows, cols, group, double_quant))
        return 0;
    *bytes_out = bytes;
    return 1;
}

int llmmem__format_vector_bytes(uint64_t *bytes_out, llmmem_format format, uint64_t rows, uint64_t cols)
{
    const format_info *info = format_lookup(format);
    if (info == NULL || (info->kind != KIND_PLAIN && info->kind != KIND_ROW_BLOCK))
        return 0;
    format_info per_vector = *info;
    per_vector.tensor_extra = 0;
    return format_compute(bytes_out, &per_vector, rows, cols, 0, 0);
}

LLMMEM_API llmmem_status llmmem_format_tensor_bytes(uint64_t *bytes_out, llmmem_format format,
                                                    uint64_t rows, uint64_t cols,
                                                    uint64_t group_size, int double_quant)
{
    const format_info *info;
    uint64_t group, bytes;

    LLMMEM_REQUIRE(bytes_out);
    info = format_lookup(format);
    if (info == NULL) {
        if (format == LLMMEM_FORMAT_AUTO)
            return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT,
                                "%s: format 0 (auto) is not a storage format; resolve it to the "
                                "model's torch_dtype first",
                                __func__);
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "%s: format %d is not a known format",
                            __func__, (int)format);
    }
    if (!format_group(&group, info, group_size)) {
        if (info->kind == KIND_BNB_4BIT)
            return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE,
                                "%s: group_size (%" PRIu64 ") is not a bitsandbytes 4-bit block "
                                "size (32, 64, 128, 256, 512, 1024, 2048 or 4096; 0 = 64) for "
                                "format %d",
                                __func__, group_size, (int)format);
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE,
                            "%s: group_size (%" PRIu64 ") is out of range 1..%u for format %d "
                            "(0 = 128; per-column -1 is not supported)",
                            __func__, group_size, GPTQ_AWQ_MAX_GROUP, (int)format);
    }
    if (!format_compute(&bytes, info, rows, cols, group, double_quant))
        return llmmem__fail(LLMMEM_ERR_OVERFLOW,
                            "%s: size of a %" PRIu64 " x %" PRIu64 " tensor in format %d "
                            "exceeds 64 bits",
                            __func__, rows, cols, (int)format);
    *bytes_out = bytes;
    return LLMMEM_OK;
}
