/* The GPU catalog: memory of one device in exact bytes, and the figures the planner uses.
 *
 * Memory is the physical capacity the vendor sells, in bytes: HBM and GDDR capacities marketed
 * as "80 GB" are 80 GiB of DRAM (80 x 2^30 bytes). The driver keeps a few hundred MiB of it
 * (nvidia-smi shows 81559 MiB of 81920 MiB on an H100 80GB); that share, the CUDA context and
 * library workspaces are the report's runtime_overhead, not a smaller capacity. */
#include "internal.h"

#define GIB(n) ((int64_t)(n) * 1024 * 1024 * 1024)
#define TB_S(x) ((int64_t)((x) * 1e12))   /* decimal TB/s, as datasheets give bandwidth */
#define TFLOPS(x) ((int64_t)((x) * 1e12))

/* NVIDIA H100 Tensor Core GPU datasheet: SXM5 80 GB HBM3, 3.35 TB/s, 989 TFLOPS dense BF16,
 * NVLink 900 GB/s (both directions) */
static const llmmem__preset_value h100_sxm_80gb[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(80)},          {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(3.35)},
    {LLMMEM_KEY_PEAK_BF16_FLOPS, TFLOPS(989.4)}, {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.45)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 8},            {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA H200 Tensor Core GPU datasheet: 141 GB HBM3e (nvidia-smi: 143771 MiB after the driver's
 * share), 4.8 TB/s, 989 TFLOPS dense BF16, NVLink 900 GB/s */
static const llmmem__preset_value h200[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(141)},         {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(4.8)},
    {LLMMEM_KEY_PEAK_BF16_FLOPS, TFLOPS(989.4)}, {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.45)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 8},            {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA A100 Tensor Core GPU datasheet: 80 GB HBM2e SXM, 2,039 GB/s, 312 TFLOPS BF16,
 * NVLink 600 GB/s (both directions) */
static const llmmem__preset_value a100_sxm_80gb[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(80)},        {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(2.039)},
    {LLMMEM_KEY_PEAK_BF16_FLOPS, TFLOPS(312)}, {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.3)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 8},          {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA A100 Tensor Core GPU datasheet: 40 GB HBM2 SXM, 1,555 GB/s, 312 TFLOPS BF16, NVLink 600 GB/s */
static const llmmem__preset_value a100_sxm_40gb[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(40)},        {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(1.555)},
    {LLMMEM_KEY_PEAK_BF16_FLOPS, TFLOPS(312)}, {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.3)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 8},          {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA L4 Tensor Core GPU datasheet: 24 GB GDDR6, 300 GB/s, 121 TFLOPS dense BF16, PCIe Gen4 x16 */
static const llmmem__preset_value l4[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(24)},          {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.3)},
    {LLMMEM_KEY_PEAK_BF16_FLOPS, TFLOPS(121)},   {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.032)},
    {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA Ada Lovelace architecture whitepaper, GeForce RTX 4090: 24 GB GDDR6X, 1,008 GB/s,
 * 165.2 TFLOPS dense BF16 (FP32 accumulate), PCIe Gen4 x16 */
static const llmmem__preset_value rtx_4090[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(24)},          {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(1.008)},
    {LLMMEM_KEY_PEAK_BF16_FLOPS, TFLOPS(165.2)}, {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.032)},
    {LLMMEM_KEY_NONE, 0},
};

const llmmem__preset llmmem__gpu_presets[] = {
    {"h100-sxm-80gb", h100_sxm_80gb}, {"h200", h200},   {"a100-sxm-80gb", a100_sxm_80gb},
    {"a100-sxm-40gb", a100_sxm_40gb}, {"l4", l4},       {"rtx-4090", rtx_4090},
};
const size_t llmmem__gpu_preset_total = sizeof llmmem__gpu_presets / sizeof llmmem__gpu_presets[0];
