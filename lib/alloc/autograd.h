/* Internal: a model of PyTorch's eager execution and autograd engine that emits, in order, every
 * tensor allocation and free a program makes on a CUDA device (autograd.c). The program (tape.c)
 * runs a model's forward as calls of the ops below; each op allocates its outputs, and when grad
 * mode is on records a node saving what PyTorch's derivative formula saves. backward() then runs
 * the nodes the way torch/csrc/autograd/engine.cpp does: ready nodes by descending sequence number,
 * gradients gathered in input buffers (input_buffer.cpp), sums to broadcast shapes
 * (validate_outputs), saved tensors released after each node, leaf gradients accumulated
 * (accumulate_grad.h). Sizes only: no values are computed. Not installed.
 *
 * Tensors are reference counted as Python and autograd hold them: an op's output starts with one
 * reference (the caller's variable), a node's saved tensor takes one, unref drops one, and the last
 * drop is a free on the device (a view drops its base instead). Errors are sticky: after the first
 * failure (the sink's out of memory, an overflow, a cap) every call does nothing and the status
 * stays. */
#ifndef LLMMEM_AUTOGRAD_H
#define LLMMEM_AUTOGRAD_H

#include "base/internal.h"

/* Where allocations go: the caching allocator's model, or a recorder. alloc sets *id (0 for 0
 * bytes) and returns LLMMEM_OK, or LLMMEM__AG_OOM when the device ran out of memory. */
#define LLMMEM__AG_OOM ((llmmem_status)1000)
typedef struct llmmem__sink {
    void *ctx;
    llmmem_status (*alloc)(void *ctx, uint32_t *id_out, uint64_t bytes);
    llmmem_status (*free)(void *ctx, uint32_t id);
    /* A moment of the program (tape.h llmmem__tape_moment) has passed; may be NULL. */
    void (*mark)(void *ctx, int moment, uint64_t step, uint64_t layer);
    /* What an allocation holds (llmmem_component): called after each alloc, and again when a tensor
     * changes role (a backward's output that AccumulateGrad keeps as a parameter's grad); may be NULL. */
    void (*tag)(void *ctx, uint32_t id, int component);
} llmmem__sink;

/* Tensor flags. */
enum {
    LLMMEM__T_REQ = 1,    /* requires grad */
    LLMMEM__T_LEAF = 2,   /* a leaf that accumulates its grad (a parameter, a detached input) */
    LLMMEM__T_NOACC = 4,  /* a grad that cannot take another in place (a reshaped view of a GEMM's output) */
    LLMMEM__T_BSHD = 8,   /* a grad laid out as (batch, seq, heads, dim): its heads view needs no copy */
    LLMMEM__T_PARAM = 16  /* a parameter (llmmem__ag_param): its grad is a gradient, not an activation's */
};

/* The derivative formulas modelled, one row each in autograd.c. */
typedef enum llmmem__op {
    LLMMEM__OP_TO,        /* dtype cast: ToCopyBackward0 casts the grad back */
    LLMMEM__OP_POW2,      /* x.pow(2): pow_backward, grad * (2 * x.pow(1)) */
    LLMMEM__OP_MEAN,      /* mean over the last dim: the grad expanded and divided */
    LLMMEM__OP_PASS,      /* x + scalar: the grad passes */
    LLMMEM__OP_RSQRT,     /* rsqrt_backward: -0.5 * grad * result.pow(3) */
    LLMMEM__OP_MUL,       /* a * b: grad * b, grad * a (each summed to its input's shape) */
    LLMMEM__OP_ADD,       /* a + b: the grad passes to both */
    LLMMEM__OP_MM,        /* a linear without bias: MmBackward0, the weight's grad then the input's */
    LLMMEM__OP_ADDMM,     /* a linear with bias: AddmmBackward0, the input's, the weight's, the bias's */
    LLMMEM__OP_SILU,      /* silu_backward */
    LLMMEM__OP_NEG,       /* NegBackward0 */
    LLMMEM__OP_SLICE,     /* a slice view: SliceBackward0 fills a zero grad of the input's size */
    LLMMEM__OP_CAT2,      /* cat of two: each grad a slice (view) of the grad */
    LLMMEM__OP_HEADS,     /* view(b, s, heads, d).transpose(1, 2): a copy unless the grad is (b, s, heads, d) */
    LLMMEM__OP_SDPA_CUDNN,/* _scaled_dot_product_cudnn_attention: dq, dk, dv and a workspace */
    LLMMEM__OP_EMBED,     /* embedding_dense_backward_cuda */
    LLMMEM__OP_LOGSOFTMAX,/* _log_softmax_backward_data */
    LLMMEM__OP_NLL,       /* nll_loss_backward: a zero-filled grad of the log-probabilities */
    LLMMEM__OP_CHECKPOINT,/* torch.utils.checkpoint (reentrant): recompute, then backward through it */
    LLMMEM__OP_SCALE,     /* x * scalar, x / scalar, x * a tensor that needs no grad: one grad kernel */
    LLMMEM__OP_TANH,      /* tanh_backward, from the saved result */
    LLMMEM__OP_BMM,       /* a batched matmul: BmmBackward0, the second factor's grad then the first's */
    LLMMEM__OP_REPEAT_KV, /* repeat_kv's expand + reshape: ExpandBackward0 sums the copies */
    LLMMEM__OP_SOFTMAX,   /* _softmax_backward_data: the grad and a temporary of the input's size */
    LLMMEM__OP_GELU_TANH, /* gelu_backward (approximate tanh), from the saved input */
    LLMMEM__OP_LAYERNORM, /* native_layer_norm: saves the input, weight, bias, mean and rstd */
    LLMMEM__OP_DROPOUT,   /* native_dropout: saves its mask */
    LLMMEM__OP_SPLIT,     /* split or chunk into equal views (llmmem__ag_split): the grads catenated */
    LLMMEM__OP_GROUPED_MM,/* _grouped_mm(x, a param's transposed view, offs): the weight's grad, then the input's */
    LLMMEM__OP_INDEX,     /* x[indices] along dim 0: IndexBackward0 puts the grad into zeros */
    LLMMEM__OP_TOPK,      /* topk's values: TopkBackward0 scatters the grad into zeros */
    LLMMEM__OP_SUM,       /* x.view(...).sum(dim): SumBackward0 expands the grad, ViewBackward0's reshape copies it */
    LLMMEM__OPS
} llmmem__op;

typedef struct llmmem__ag llmmem__ag;

/* Reruns a checkpointed piece of the forward on the detached input x (grad mode on) and returns its
 * output (tape.c). */
typedef uint32_t (*llmmem__ag_rerun)(void *ctx, llmmem__ag *ag, uint64_t piece, uint32_t x);

/* An engine writing to sink; fails only on host memory. */
llmmem_status llmmem__ag_new(llmmem__ag **out, const llmmem__sink *sink);
void llmmem__ag_free(llmmem__ag *ag);
/* Frees every tensor still alive but the workspaces (the process drops the model, its cuBLAS
 * handles stay); the engine takes no more ops. */
void llmmem__ag_release(llmmem__ag *ag);
/* The sticky status: LLMMEM_OK, LLMMEM__AG_OOM, or an error with its message set. */
llmmem_status llmmem__ag_status(const llmmem__ag *ag);
/* torch.no_grad() (0) or enable_grad() (1). */
void llmmem__ag_grad_mode(llmmem__ag *ag, int on);
/* How the forward's GEMMs reach cuBLAS: the first GEMM on a thread makes its workspace, which stays
 * (lt: cuBLASLt's, for a GEMM with bias). Sizes in bytes; 0: none. */
void llmmem__ag_workspaces(llmmem__ag *ag, uint64_t forward, uint64_t forward_lt, uint64_t backward);
/* The forward thread's cuBLAS workspace (and the backward thread's), made now: a process that ran
 * GEMMs (and a backward) before the model. */
void llmmem__ag_early_workspaces(llmmem__ag *ag, int backward);
/* The device's multiprocessors and the threads each runs at once (cudaDeviceProp
 * multiProcessorCount, maxThreadsPerMultiProcessor): they size a reduction's staging buffer. */
void llmmem__ag_device(llmmem__ag *ag, uint64_t sms, uint64_t threads_per_sm);
/* cub's temporary storage for radix_sort_pairs of n 8-byte keys with 8-byte values (the alternate
 * keys and values and its bookkeeping, as the H100 traces show the embedding's sort); 0 when it
 * exceeds 64 bits. */
uint64_t llmmem__ag_sort_temp(uint64_t n);
/* Bytes alive now and at the highest point so far. */
uint64_t llmmem__ag_live(const llmmem__ag *ag);
uint64_t llmmem__ag_peak(const llmmem__ag *ag);

/* What the allocations from now on hold (llmmem_component; the sink's tag): the program's phase.
 * Parameters are weights, leaves' grads gradients and workspaces runtime overhead whatever it is.
 * Returns the previous one. */
int llmmem__ag_component(llmmem__ag *ag, int component);
/* A new tensor of `bytes` (one reference); a parameter (a leaf requiring grad). */
uint32_t llmmem__ag_alloc(llmmem__ag *ag, uint64_t bytes);
uint32_t llmmem__ag_param(llmmem__ag *ag, uint64_t bytes);
/* A view of base (no allocation; keeps base alive) that is a leaf requiring grad when leaf is set
 * (checkpoint's detached input). */
uint32_t llmmem__ag_view(llmmem__ag *ag, uint32_t base, uint64_t bytes, int leaf);
uint32_t llmmem__ag_ref(llmmem__ag *ag, uint32_t t);
/* t.requires_grad_(True) on a tensor made without grad: a leaf that accumulates its grad, freed with it. */
void llmmem__ag_make_leaf(llmmem__ag *ag, uint32_t t);
void llmmem__ag_unref(llmmem__ag *ag, uint32_t t);
uint64_t llmmem__ag_bytes(const llmmem__ag *ag, uint32_t t);
int llmmem__ag_requires_grad(const llmmem__ag *ag, uint32_t t);
/* A leaf's accumulated grad (0: none); drop_grad frees it (zero_grad(set_to_none=True)). */
uint32_t llmmem__ag_grad(const llmmem__ag *ag, uint32_t leaf);
void llmmem__ag_drop_grad(llmmem__ag *ag, uint32_t leaf);

/* One op call. The output is out bytes (view: a view of in[0] instead, no allocation); with grad
 * mode on and an input requiring grad, a node saves saved[] (each takes a reference). arg[]: the
 * op's sizes (SDPA_CUDNN: the logsumexp's bytes, and 1 with a mask; NLL: the log-probabilities'; EMBED: the indices
 * and a row of the partial sums; CHECKPOINT: the piece; GROUPED_MM: the kernel's argument buffer and
 * workspace, made and freed around each grouped GEMM; INDEX: the indices). rowsum: bit i set when
 * input i's grad is summed along the last dim (a per-row statistic), which takes no staging buffer.
 * narrow: bit i set when input i is a 16-bit float in an op that computes in fp32 (type promotion):
 * its grad, twice its bytes, is cast to its dtype once summed to its shape. */
typedef struct llmmem__ag_call {
    llmmem__op op;
    uint64_t out;
    int view;
    uint32_t in[3];
    unsigned nin;
    uint32_t saved[8];
    unsigned nsaved;
    uint64_t arg[2];
    unsigned rowsum;
    unsigned narrow;
    unsigned elem;  /* bytes of an element of the op's grads (0: 2): sizes a sum's staging buffer */
} llmmem__ag_call;
uint32_t llmmem__ag_op(llmmem__ag *ag, const llmmem__ag_call *c);
/* Records c's node for an output the caller made (ops that allocate around their output). */
void llmmem__ag_node(llmmem__ag *ag, const llmmem__ag_call *c, uint32_t out);
/* x.split(size, dim=-1) into n (2 or 3) equal views, one node with n outputs. */
void llmmem__ag_split(llmmem__ag *ag, uint32_t x, unsigned n, uint32_t *out);
/* The checkpoint rerun (CHECKPOINT nodes). */
void llmmem__ag_set_rerun(llmmem__ag *ag, llmmem__ag_rerun fn, void *ctx);

/* loss.backward(): root takes the grad `grad` (consumed); every node reached runs once and is gone. */
void llmmem__ag_backward(llmmem__ag *ag, uint32_t root, uint32_t grad);

#endif
