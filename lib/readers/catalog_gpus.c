/* The GPU catalog: memory of one device in exact bytes, and the figures the planner uses.
 *
 * Memory is the physical capacity the vendor sells, in bytes: HBM and GDDR capacities marketed
 * as "80 GB" are 80 GiB of DRAM (80 x 2^30 bytes). The driver keeps a few hundred MiB of it
 * (nvidia-smi shows 81559 MiB of 81920 MiB on an H100 80GB); that share, the CUDA context and
 * library workspaces are the report's runtime_overhead, not a smaller capacity. Products sold
 * with part of their DRAM disabled (H100 NVL 94 GB, B200 180 GB, GB200 186 GB) get the enabled
 * capacity. A throughput of 0 means the datasheet gives no dense BF16 figure (or no BF16). */
#include "base/internal.h"

#define GIB(n) ((int64_t)(n) * 1024 * 1024 * 1024)
#define MIB(n) ((int64_t)(n) * 1024 * 1024)
#define TB_S(x) ((int64_t)((x) * 1e12))   /* decimal TB/s, as datasheets give bandwidth */
#define TFLOPS(x) ((int64_t)((x) * 1e12))

/* Hopper (compute capability 9.0): PyTorch's cuBLAS workspace of :4096:8 (keys.c) */
#define HOPPER_WORKSPACE {LLMMEM_KEY_CUBLAS_WORKSPACE_BYTES, 4096LL * 8 * 1024}

/* NVIDIA H100 Tensor Core GPU datasheet: SXM5 80 GB HBM3, 3.35 TB/s, 989 TFLOPS dense BF16,
 * NVLink 900 GB/s (both directions); CUDA's total measured on an H100 80GB HBM3 with driver
 * 580.159.04 (tests/data/gpu) */
static const llmmem__preset_value h100_sxm_80gb[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(80)},          {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(3.35)},
    {LLMMEM_KEY_PEAK_BF16_FLOPS, TFLOPS(989.4)}, {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.45)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 8},            {LLMMEM_KEY_DRIVER_TOTAL_BYTES, MIB(81559)},
    {LLMMEM_KEY_CUDA_TOTAL_BYTES, 85017493504LL}, HOPPER_WORKSPACE,
    {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA H200 Tensor Core GPU datasheet: 141 GB HBM3e (nvidia-smi: 143771 MiB after the driver's
 * share), 4.8 TB/s, 989 TFLOPS dense BF16, NVLink 900 GB/s */
static const llmmem__preset_value h200[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(141)},         {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(4.8)},
    {LLMMEM_KEY_PEAK_BF16_FLOPS, TFLOPS(989.4)}, {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.45)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 8},            {LLMMEM_KEY_DRIVER_TOTAL_BYTES, MIB(143771)},
    HOPPER_WORKSPACE,                            {LLMMEM_KEY_NONE, 0},
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
    {LLMMEM_KEY_DEVICES_PER_NODE, 1}, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA H100 PCIe datasheet: 80 GB HBM2e, 2.0 TB/s, 756 TFLOPS dense BF16, PCIe Gen5 (64 GB/s) */
static const llmmem__preset_value h100_pcie_80gb[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(80)},        {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(2.0)},
    {LLMMEM_KEY_PEAK_BF16_FLOPS, TFLOPS(756)}, {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.064)},
    HOPPER_WORKSPACE, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA H100 NVL datasheet: 94 GB HBM3, 3.9 TB/s, 835 TFLOPS dense BF16, NVLink bridge 600 GB/s */
static const llmmem__preset_value h100_nvl_94gb[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(94)},        {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(3.9)},
    {LLMMEM_KEY_PEAK_BF16_FLOPS, TFLOPS(835)}, {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.3)},
    HOPPER_WORKSPACE, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA H20 (HGX H20 product brief): 96 GB HBM3, 4.0 TB/s, 148 TFLOPS dense BF16, NVLink 900 GB/s */
static const llmmem__preset_value h20[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(96)},        {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(4.0)},
    {LLMMEM_KEY_PEAK_BF16_FLOPS, TFLOPS(148)}, {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.45)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 8},          HOPPER_WORKSPACE, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA HGX B200 datasheet: 180 GB HBM3e per GPU, 7.7 TB/s, 2.25 PFLOPS dense BF16 (4.5 sparse),
 * NVLink 5 1.8 TB/s (both directions) */
static const llmmem__preset_value b200[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(180)},        {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(7.7)},
    {LLMMEM_KEY_PEAK_BF16_FLOPS, TFLOPS(2250)}, {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.9)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 8},           {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA GB200 NVL72 datasheet, per Blackwell GPU: 186 GB HBM3e (13.4 TB for 72), 8 TB/s,
 * 2.5 PFLOPS dense BF16 (5 sparse), NVLink 5 1.8 TB/s; 72 GPUs in one NVLink domain */
static const llmmem__preset_value gb200[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(186)},        {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(8.0)},
    {LLMMEM_KEY_PEAK_BF16_FLOPS, TFLOPS(2500)}, {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.9)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 72},          {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA A100 datasheet, PCIe 80 GB: HBM2e, 1,935 GB/s, 312 TFLOPS BF16, PCIe Gen4 (32 GB/s) */
static const llmmem__preset_value a100_pcie_80gb[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(80)},        {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(1.935)},
    {LLMMEM_KEY_PEAK_BF16_FLOPS, TFLOPS(312)}, {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.032)},
    {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA A100 datasheet, PCIe 40 GB: HBM2, 1,555 GB/s, 312 TFLOPS BF16, PCIe Gen4 */
static const llmmem__preset_value a100_pcie_40gb[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(40)},        {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(1.555)},
    {LLMMEM_KEY_PEAK_BF16_FLOPS, TFLOPS(312)}, {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.032)},
    {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA L40S datasheet: 48 GB GDDR6, 864 GB/s, 362 TFLOPS dense BF16 (733 sparse), PCIe Gen4 */
static const llmmem__preset_value l40s[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(48)},        {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.864)},
    {LLMMEM_KEY_PEAK_BF16_FLOPS, TFLOPS(362)}, {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.032)},
    {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA A10 datasheet: 24 GB GDDR6, 600 GB/s, 125 TFLOPS dense BF16, PCIe Gen4 */
static const llmmem__preset_value a10[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(24)},        {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.6)},
    {LLMMEM_KEY_PEAK_BF16_FLOPS, TFLOPS(125)}, {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.032)},
    {LLMMEM_KEY_NONE, 0},
};

/* AWS EC2 G5 instances (NVIDIA A10G): 24 GB GDDR6, 600 GB/s; bf16 throughput not published (0) */
static const llmmem__preset_value a10g[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(24)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.6)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.032)}, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA T4 datasheet: 16 GB GDDR6, 320 GB/s; Turing has no bf16 (0), PCIe Gen3 (16 GB/s) */
static const llmmem__preset_value t4[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(16)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.32)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.016)}, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA V100 datasheet, SXM2 16 GB: HBM2, 900 GB/s; Volta has no bf16 (0); NVLink 300 GB/s */
static const llmmem__preset_value v100_sxm2_16gb[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(16)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.9)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.15)}, {LLMMEM_KEY_DEVICES_PER_NODE, 8}, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA V100 datasheet, SXM2 32 GB: HBM2, 900 GB/s; no bf16 (0); NVLink 300 GB/s */
static const llmmem__preset_value v100_sxm2_32gb[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(32)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.9)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.15)}, {LLMMEM_KEY_DEVICES_PER_NODE, 8}, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA GeForce RTX 3090 specifications: 24 GB GDDR6X, 936 GB/s, PCIe Gen4; bf16 rate not set (0) */
static const llmmem__preset_value rtx_3090[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(24)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.936)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.032)}, {LLMMEM_KEY_DEVICES_PER_NODE, 1}, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA GeForce RTX 5090 specifications: 32 GB GDDR7, 1,792 GB/s, PCIe Gen5; bf16 rate not set (0) */
static const llmmem__preset_value rtx_5090[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(32)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(1.792)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.064)}, {LLMMEM_KEY_DEVICES_PER_NODE, 1}, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA RTX 6000 Ada Generation datasheet: 48 GB GDDR6, 960 GB/s, 364 TFLOPS dense BF16 */
static const llmmem__preset_value rtx_6000_ada[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(48)},        {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.96)},
    {LLMMEM_KEY_PEAK_BF16_FLOPS, TFLOPS(364)}, {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.032)},
    {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA RTX A6000 datasheet: 48 GB GDDR6, 768 GB/s, 154.8 TFLOPS dense BF16, NVLink bridge 112.5 GB/s */
static const llmmem__preset_value rtx_a6000[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(48)},          {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.768)},
    {LLMMEM_KEY_PEAK_BF16_FLOPS, TFLOPS(154.8)}, {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.05625)},
    {LLMMEM_KEY_NONE, 0},
};

/* AMD Instinct MI250X datasheet: 128 GB HBM2e, 3.2 TB/s, 383 TFLOPS BF16; ROCm */
static const llmmem__preset_value mi250x[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(128)},       {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(3.2)},
    {LLMMEM_KEY_PEAK_BF16_FLOPS, TFLOPS(383)}, {LLMMEM_KEY_DEVICES_PER_NODE, 4},
    {LLMMEM_KEY_BACKEND, LLMMEM_BACKEND_ROCM}, {LLMMEM_KEY_NONE, 0},
};

/* AMD Instinct MI300X datasheet: 192 GB HBM3, 5.3 TB/s, 1307.4 TFLOPS dense BF16, Infinity Fabric
 * 896 GB/s aggregate over 7 links (448 GB/s one direction); ROCm */
static const llmmem__preset_value mi300x[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(192)},          {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(5.3)},
    {LLMMEM_KEY_PEAK_BF16_FLOPS, TFLOPS(1307.4)}, {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.448)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 8},             {LLMMEM_KEY_BACKEND, LLMMEM_BACKEND_ROCM},
    {LLMMEM_KEY_NONE, 0},
};

/* AMD Instinct MI325X datasheet: 256 GB HBM3E, 6 TB/s, 1307.4 TFLOPS dense BF16; ROCm */
static const llmmem__preset_value mi325x[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(256)},          {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(6.0)},
    {LLMMEM_KEY_PEAK_BF16_FLOPS, TFLOPS(1307.4)}, {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.448)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 8},             {LLMMEM_KEY_BACKEND, LLMMEM_BACKEND_ROCM},
    {LLMMEM_KEY_NONE, 0},
};

/* Consumer GPUs for local inference (issue 18): capacity and bandwidth from the vendor's
 * specifications page (bandwidth = bus width x data rate), one card per machine
 * (devices_per_node 1), the bf16 rate not set (0) as for rtx-3090 and rtx-5090. The host link
 * is PCIe, one direction: Gen4 x16 32 GB/s, Gen4 x8 16 GB/s, Gen5 twice those. */

/* NVIDIA GeForce RTX 3060 family specifications: 12 GB GDDR6, 192-bit at 15 Gbps = 360 GB/s,
 * PCIe Gen4 x16; bf16 rate not set (0) */
static const llmmem__preset_value rtx_3060_12gb[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(12)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.36)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.032)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1}, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA GeForce RTX 3060 Ti specifications: 8 GB GDDR6, 256-bit at 14 Gbps = 448 GB/s,
 * PCIe Gen4 x16; bf16 rate not set (0) */
static const llmmem__preset_value rtx_3060_ti[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(8)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.448)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.032)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1}, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA GeForce RTX 3070 specifications: 8 GB GDDR6, 256-bit at 14 Gbps = 448 GB/s,
 * PCIe Gen4 x16; bf16 rate not set (0) */
static const llmmem__preset_value rtx_3070[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(8)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.448)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.032)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1}, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA GeForce RTX 3080 specifications: 10 GB GDDR6X, 320-bit at 19 Gbps = 760 GB/s,
 * PCIe Gen4 x16; bf16 rate not set (0) */
static const llmmem__preset_value rtx_3080_10gb[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(10)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.76)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.032)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1}, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA GeForce RTX 3080 specifications, 12 GB model: GDDR6X, 384-bit at 19 Gbps = 912 GB/s,
 * PCIe Gen4 x16; bf16 rate not set (0) */
static const llmmem__preset_value rtx_3080_12gb[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(12)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.912)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.032)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1}, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA GeForce RTX 3080 Ti specifications: 12 GB GDDR6X, 384-bit at 19 Gbps = 912 GB/s,
 * PCIe Gen4 x16; bf16 rate not set (0) */
static const llmmem__preset_value rtx_3080_ti[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(12)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.912)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.032)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1}, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA GeForce RTX 4060 specifications: 8 GB GDDR6, 128-bit at 17 Gbps = 272 GB/s,
 * PCIe Gen4 x8 (16 GB/s); bf16 rate not set (0) */
static const llmmem__preset_value rtx_4060[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(8)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.272)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.016)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1}, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA GeForce RTX 4060 Ti specifications, 8 GB model: GDDR6, 128-bit at 18 Gbps = 288 GB/s,
 * PCIe Gen4 x8 (16 GB/s); bf16 rate not set (0) */
static const llmmem__preset_value rtx_4060_ti_8gb[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(8)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.288)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.016)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1}, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA GeForce RTX 4060 Ti specifications, 16 GB model: GDDR6, 128-bit at 18 Gbps = 288 GB/s,
 * PCIe Gen4 x8 (16 GB/s); bf16 rate not set (0) */
static const llmmem__preset_value rtx_4060_ti_16gb[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(16)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.288)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.016)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1}, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA GeForce RTX 4070 specifications: 12 GB GDDR6X, 192-bit at 21 Gbps = 504 GB/s,
 * PCIe Gen4 x16; bf16 rate not set (0) */
static const llmmem__preset_value rtx_4070[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(12)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.504)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.032)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1}, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA GeForce RTX 4070 SUPER specifications: 12 GB GDDR6X, 192-bit at 21 Gbps = 504 GB/s,
 * PCIe Gen4 x16; bf16 rate not set (0) */
static const llmmem__preset_value rtx_4070_super[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(12)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.504)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.032)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1}, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA GeForce RTX 4070 Ti SUPER specifications: 16 GB GDDR6X, 256-bit at 21 Gbps = 672 GB/s,
 * PCIe Gen4 x16; bf16 rate not set (0) */
static const llmmem__preset_value rtx_4070_ti_super[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(16)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.672)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.032)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1}, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA Ada Lovelace architecture whitepaper, GeForce RTX 4080: 16 GB GDDR6X, 256-bit at
 * 22.4 Gbps = 716.8 GB/s, PCIe Gen4 x16; bf16 rate not set (0) */
static const llmmem__preset_value rtx_4080[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(16)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.7168)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.032)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1}, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA GeForce RTX 4080 SUPER specifications: 16 GB GDDR6X, 256-bit at 23 Gbps = 736 GB/s,
 * PCIe Gen4 x16; bf16 rate not set (0) */
static const llmmem__preset_value rtx_4080_super[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(16)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.736)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.032)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1}, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA GeForce RTX 5060 Ti specifications, 16 GB model: GDDR7, 128-bit at 28 Gbps = 448 GB/s,
 * PCIe Gen5 x8 (32 GB/s); bf16 rate not set (0) */
static const llmmem__preset_value rtx_5060_ti_16gb[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(16)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.448)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.032)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1}, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA GeForce RTX 5070 specifications: 12 GB GDDR7, 192-bit at 28 Gbps = 672 GB/s,
 * PCIe Gen5 x16; bf16 rate not set (0) */
static const llmmem__preset_value rtx_5070[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(12)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.672)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.064)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1}, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA GeForce RTX 5070 Ti specifications: 16 GB GDDR7, 256-bit at 28 Gbps = 896 GB/s,
 * PCIe Gen5 x16; bf16 rate not set (0) */
static const llmmem__preset_value rtx_5070_ti[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(16)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.896)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.064)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1}, {LLMMEM_KEY_NONE, 0},
};

/* NVIDIA GeForce RTX 5080 specifications: 16 GB GDDR7, 256-bit at 30 Gbps = 960 GB/s,
 * PCIe Gen5 x16; bf16 rate not set (0) */
static const llmmem__preset_value rtx_5080[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(16)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.96)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.064)},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1}, {LLMMEM_KEY_NONE, 0},
};

/* AMD Radeon RX 7900 XTX specifications: 24 GB GDDR6, 384-bit at 20 Gbps = 960 GB/s,
 * PCIe 4.0 x16; ROCm; bf16 rate not set (0) */
static const llmmem__preset_value rx_7900_xtx[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(24)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.96)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.032)}, {LLMMEM_KEY_BACKEND, LLMMEM_BACKEND_ROCM},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1}, {LLMMEM_KEY_NONE, 0},
};

/* AMD Radeon RX 7900 XT specifications: 20 GB GDDR6, 320-bit at 20 Gbps = 800 GB/s,
 * PCIe 4.0 x16; ROCm; bf16 rate not set (0) */
static const llmmem__preset_value rx_7900_xt[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(20)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.8)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.032)}, {LLMMEM_KEY_BACKEND, LLMMEM_BACKEND_ROCM},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1}, {LLMMEM_KEY_NONE, 0},
};

/* AMD Radeon RX 7800 XT specifications: 16 GB GDDR6, 256-bit at 19.5 Gbps = 624 GB/s,
 * PCIe 4.0 x16; ROCm; bf16 rate not set (0) */
static const llmmem__preset_value rx_7800_xt[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(16)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.624)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.032)}, {LLMMEM_KEY_BACKEND, LLMMEM_BACKEND_ROCM},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1}, {LLMMEM_KEY_NONE, 0},
};

/* AMD Radeon RX 9070 XT specifications: 16 GB GDDR6, 256-bit at 20 Gbps = 640 GB/s,
 * PCIe 5.0 x16; ROCm (6.4.1 and later support RDNA 4); bf16 rate not set (0) */
static const llmmem__preset_value rx_9070_xt[] = {
    {LLMMEM_KEY_MEMORY_BYTES, GIB(16)}, {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.64)},
    {LLMMEM_KEY_INTRA_NODE_BANDWIDTH, TB_S(0.064)}, {LLMMEM_KEY_BACKEND, LLMMEM_BACKEND_ROCM},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1}, {LLMMEM_KEY_NONE, 0},
};

/* Apple Silicon (issue 18). memory_bytes is Metal's recommendedMaxWorkingSetSize, the share of the
 * RAM macOS lets the GPU keep resident: llama.cpp and ollama size their Metal buffers against it,
 * and it depends on the RAM and the macOS version, so each preset gives the figure one public log
 * printed, recovered to the byte. ggml-metal.m printed it / 2^20 ("MB", in some late-2023 builds
 * "MiB") until it switched to / 1e6 ("MB"; ggml-org/ggml 98b3155, Nov 2023). The exact values MLX's
 * device_info reports are whole numbers of 16 KiB pages, and in each log below exactly one
 * multiple of 16 KiB prints as the text, which is the value used. host_memory_bytes is the RAM
 * (unified_memory: CPU buffers come out of it too), backend metal, runtime_overhead_bytes 0 (Metal
 * has no CUDA context: llama.cpp's Metal buffers count against the working set themselves),
 * bandwidth Apple's, no bf16 rate (0), one device. */

/* Apple M1, 16 GB: ise-uiuc/magicoder#19 (MacBook Air M1 16G, ollama, Dec 2023) prints 10922.67 MiB, and
 * ggml-org/llama.cpp#4495 (M1 MacBook Air) 11453.25 MB with 10922.67 MiB: 699051 x 16 KiB; 68.25 GB/s =
 * 128-bit LPDDR4X-4266 (Apple: M2's 100 GB/s is 50 percent more than M1's) */
static const llmmem__preset_value m1_16gb[] = {
    {LLMMEM_KEY_MEMORY_BYTES, 11453251584LL},    {LLMMEM_KEY_HOST_MEMORY_BYTES, GIB(16)},
    {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.06825)}, {LLMMEM_KEY_UNIFIED_MEMORY, 1},
    {LLMMEM_KEY_BACKEND, LLMMEM_BACKEND_METAL},   {LLMMEM_KEY_RUNTIME_OVERHEAD_BYTES, 0},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1},             {LLMMEM_KEY_NONE, 0},
};

/* Apple M1 Max, 32 GB: ggml-org/llama.cpp#2011 (EliasOenal, M1 Max with 32GB RAM, July 2023) prints
 * 21845.34 "MB" = bytes / 2^20: 1398102 x 16 KiB; Apple newsroom (Oct 2021): M1 Max 400 GB/s */
static const llmmem__preset_value m1_max_32gb[] = {
    {LLMMEM_KEY_MEMORY_BYTES, 22906503168LL},   {LLMMEM_KEY_HOST_MEMORY_BYTES, GIB(32)},
    {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.4)},   {LLMMEM_KEY_UNIFIED_MEMORY, 1},
    {LLMMEM_KEY_BACKEND, LLMMEM_BACKEND_METAL}, {LLMMEM_KEY_RUNTIME_OVERHEAD_BYTES, 0},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1},           {LLMMEM_KEY_NONE, 0},
};

/* Apple M1 Max, 64 GB: ggml-org/llama.cpp#1870 (zestysoft, M1 MAX with 64GB of ram, Nov 2023) prints
 * 49152.00 MiB, utilityai/llama-cpp-rs#64 (M1 Max) 51539.61 MB with 49152.00 MiB: 48 GiB, 3145728 x 16 KiB;
 * Apple newsroom (Oct 2021): 400 GB/s */
static const llmmem__preset_value m1_max_64gb[] = {
    {LLMMEM_KEY_MEMORY_BYTES, 51539607552LL},   {LLMMEM_KEY_HOST_MEMORY_BYTES, GIB(64)},
    {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.4)},   {LLMMEM_KEY_UNIFIED_MEMORY, 1},
    {LLMMEM_KEY_BACKEND, LLMMEM_BACKEND_METAL}, {LLMMEM_KEY_RUNTIME_OVERHEAD_BYTES, 0},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1},           {LLMMEM_KEY_NONE, 0},
};

/* Apple M2 Max, 32 GB: ollama/ollama#434 (MacBook Pro M2 Max with 32GB memory, Aug 2023) prints 21845.34
 * "MB" = bytes / 2^20: 1398102 x 16 KiB; Apple newsroom (Jan 2023): M2 Max 400 GB/s */
static const llmmem__preset_value m2_max_32gb[] = {
    {LLMMEM_KEY_MEMORY_BYTES, 22906503168LL},   {LLMMEM_KEY_HOST_MEMORY_BYTES, GIB(32)},
    {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.4)},   {LLMMEM_KEY_UNIFIED_MEMORY, 1},
    {LLMMEM_KEY_BACKEND, LLMMEM_BACKEND_METAL}, {LLMMEM_KEY_RUNTIME_OVERHEAD_BYTES, 0},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1},           {LLMMEM_KEY_NONE, 0},
};

/* Apple M2 Max, 96 GB: ggml-org/llama.cpp#3213 (M2 max 96 Gb RAM, Sept 2023) prints 73728,00 "MB" =
 * bytes / 2^20: 72 GiB, 4718592 x 16 KiB; Apple newsroom (Jan 2023): M2 Max 400 GB/s */
static const llmmem__preset_value m2_max_96gb[] = {
    {LLMMEM_KEY_MEMORY_BYTES, 77309411328LL},   {LLMMEM_KEY_HOST_MEMORY_BYTES, GIB(96)},
    {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.4)},   {LLMMEM_KEY_UNIFIED_MEMORY, 1},
    {LLMMEM_KEY_BACKEND, LLMMEM_BACKEND_METAL}, {LLMMEM_KEY_RUNTIME_OVERHEAD_BYTES, 0},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1},           {LLMMEM_KEY_NONE, 0},
};

/* Apple M4, 16 GB: ggml-org/llama.cpp#11083 ([Mac M4], Jan 2025) prints 11453.25 MB (/ 1e6): 699051 x 16 KiB,
 * as llama.cpp's own Mac mini M4 CI runner prints (ggml-org/ci, ggml-100-mac-m4); the thread does not state
 * the RAM: 16 GB is the configuration whose 2/3 this is, as on the 16 GB M1 above. Apple newsroom
 * (May 2024): M4 120 GB/s */
static const llmmem__preset_value m4_16gb[] = {
    {LLMMEM_KEY_MEMORY_BYTES, 11453251584LL},   {LLMMEM_KEY_HOST_MEMORY_BYTES, GIB(16)},
    {LLMMEM_KEY_MEMORY_BANDWIDTH, TB_S(0.12)},  {LLMMEM_KEY_UNIFIED_MEMORY, 1},
    {LLMMEM_KEY_BACKEND, LLMMEM_BACKEND_METAL}, {LLMMEM_KEY_RUNTIME_OVERHEAD_BYTES, 0},
    {LLMMEM_KEY_DEVICES_PER_NODE, 1},           {LLMMEM_KEY_NONE, 0},
};

const llmmem__preset llmmem__gpu_presets[] = {
    {"h100-sxm-80gb", h100_sxm_80gb},   {"h100-pcie-80gb", h100_pcie_80gb}, {"h100-nvl-94gb", h100_nvl_94gb},
    {"h200", h200},                     {"h20", h20},                       {"b200", b200},
    {"gb200", gb200},                   {"a100-sxm-80gb", a100_sxm_80gb},   {"a100-sxm-40gb", a100_sxm_40gb},
    {"a100-pcie-80gb", a100_pcie_80gb}, {"a100-pcie-40gb", a100_pcie_40gb}, {"l40s", l40s},
    {"l4", l4},                         {"a10", a10},                       {"a10g", a10g},
    {"t4", t4},                         {"v100-sxm2-16gb", v100_sxm2_16gb}, {"v100-sxm2-32gb", v100_sxm2_32gb},
    {"rtx-3090", rtx_3090},             {"rtx-4090", rtx_4090},             {"rtx-5090", rtx_5090},
    {"rtx-6000-ada", rtx_6000_ada},     {"rtx-a6000", rtx_a6000},           {"mi250x", mi250x},
    {"mi300x", mi300x},                 {"mi325x", mi325x},
    {"rtx-3060-12gb", rtx_3060_12gb}, {"rtx-3060-ti", rtx_3060_ti}, {"rtx-3070", rtx_3070},
    {"rtx-3080-10gb", rtx_3080_10gb}, {"rtx-3080-12gb", rtx_3080_12gb}, {"rtx-3080-ti", rtx_3080_ti},
    {"rtx-4060", rtx_4060}, {"rtx-4060-ti-8gb", rtx_4060_ti_8gb}, {"rtx-4060-ti-16gb", rtx_4060_ti_16gb},
    {"rtx-4070", rtx_4070}, {"rtx-4070-super", rtx_4070_super}, {"rtx-4070-ti-super", rtx_4070_ti_super},
    {"rtx-4080", rtx_4080}, {"rtx-4080-super", rtx_4080_super}, {"rtx-5060-ti-16gb", rtx_5060_ti_16gb},
    {"rtx-5070", rtx_5070}, {"rtx-5070-ti", rtx_5070_ti}, {"rtx-5080", rtx_5080},
    {"rx-7900-xtx", rx_7900_xtx}, {"rx-7900-xt", rx_7900_xt}, {"rx-7800-xt", rx_7800_xt}, {"rx-9070-xt", rx_9070_xt},
    {"m1-16gb", m1_16gb}, {"m1-max-32gb", m1_max_32gb}, {"m1-max-64gb", m1_max_64gb},
    {"m2-max-32gb", m2_max_32gb}, {"m2-max-96gb", m2_max_96gb}, {"m4-16gb", m4_16gb},
};
const size_t llmmem__gpu_preset_total = sizeof llmmem__gpu_presets / sizeof llmmem__gpu_presets[0];
