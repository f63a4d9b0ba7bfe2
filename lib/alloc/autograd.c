/* PyTorch's eager execution and autograd engine, reduced to the allocations they make (autograd.h). */
#include "alloc/autograd.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_IN 3
#define MAX_SAVED 8
#define MAX_OUT 3
/* Tensors or nodes alive at once: a 70B training step needs about 10^4. */
#define CAP (1u << 22)

typedef struct tensor {
    uint64_t bytes;
    uint32_t rc;
    uint32_t base;  /* a view's base (kept alive), else 0 */
    uint32_t fn;    /* the node that made it, + 1 */
    uint32_t grad;  /* a leaf's accumulated grad */
    uint32_t sink;  /* the sink's id of its allocation */
    uint32_t next_free;
    uint8_t flags;
    uint8_t out;    /* which output of fn */
} tensor;

typedef struct node {
    uint64_t seq;
    uint64_t arg[2];
    uint64_t inb[MAX_IN];   /* each input's bytes */
    uint32_t saved[MAX_SAVED];
    uint32_t next[MAX_IN];  /* the node that made input i, + 1 */
    uint8_t next_out[MAX_IN]; /* which of that node's outputs input i is */
    uint32_t leaf[MAX_IN];  /* input i when it is a leaf requiring grad */
    uint32_t buf[MAX_OUT];  /* the grads gathered for each output during backward */
    uint32_t deps, mark;
    uint8_t op, nin, nsaved, rowsum, narrow, elem;
    uint8_t component;      /* what its forward's allocations held: its backward's hold the same */
} node;

struct llmmem__ag {
    llmmem__sink sink;
    llmmem_status status;
    tensor *t;
    uint32_t nt, capt, free_head;
    node *n;
    uint32_t nn, capn;
    uint64_t seq, live, peak;
    int grad_mode, depth;
    uint64_t ws_bytes[3];   /* forward cuBLAS, forward cuBLASLt, backward cuBLAS */
    uint64_t sms, threads_per_sm; /* the device's multiprocessors and threads on each */
    uint32_t ws[3];
    uint32_t stamp;
    int component;          /* what new allocations hold (llmmem_component) */
    llmmem__ag_rerun rerun;
    void *rerun_ctx;
};

enum { WS_FWD, WS_FWD_LT, WS_BWD };

static void fail(llmmem__ag *ag, llmmem_status st, const char *fmt, ...) LLMMEM_PRINTF(3, 4);
static void fail(llmmem__ag *ag, llmmem_status st, const char *fmt, ...)
{
    if (ag->status != LLMMEM_OK)
        return;
    ag->status = st;
    if (fmt) {
        char msg[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        llmmem__fail_text(st, msg);
    }
}

llmmem_status llmmem__ag_new(llmmem__ag **out, const llmmem__sink *sink)
{
    llmmem__ag *ag = calloc(1, sizeof *ag);
    if (!ag)
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "out of memory");
    ag->sink = *sink;
    ag->grad_mode = 1;
    ag->nt = 1; /* id 0 is "none" */
    ag->component = LLMMEM_COMPONENT_ACTIVATIONS;
    ag->sms = 132;            /* an H100 SXM until llmmem__ag_device says otherwise */
    ag->threads_per_sm = 2048;
    *out = ag;
    return LLMMEM_OK;
}

void llmmem__ag_release(llmmem__ag *ag)
{
    for (uint32_t i = 1; i < ag->nt && ag->status == LLMMEM_OK; i++) {
        tensor *t = &ag->t[i];
        if (!t->rc || t->base || i == ag->ws[WS_FWD] || i == ag->ws[WS_FWD_LT] || i == ag->ws[WS_BWD])
            continue;
        llmmem_status st = ag->sink.free(ag->sink.ctx, t->sink);
        if (st != LLMMEM_OK)
            fail(ag, st, NULL);
        ag->live -= t->bytes;
        t->rc = 0;
    }
}

void llmmem__ag_free(llmmem__ag *ag)
{
    if (!ag)
        return;
    free(ag->t);
    free(ag->n);
    free(ag);
}

llmmem_status llmmem__ag_status(const llmmem__ag *ag) { return ag->status; }
void llmmem__ag_grad_mode(llmmem__ag *ag, int on) { ag->grad_mode = on; }
uint64_t llmmem__ag_live(const llmmem__ag *ag) { return ag->live; }
uint64_t llmmem__ag_peak(const llmmem__ag *ag) { return ag->peak; }

void llmmem__ag_workspaces(llmmem__ag *ag, uint64_t forward, uint64_t forward_lt, uint64_t backward)
{
    ag->ws_bytes[WS_FWD] = forward;
    ag->ws_bytes[WS_FWD_LT] = forward_lt;
    ag->ws_bytes[WS_BWD] = backward;
}

void llmmem__ag_device(llmmem__ag *ag, uint64_t sms, uint64_t threads_per_sm)
{
    ag->sms = sms;
    ag->threads_per_sm = threads_per_sm;
}

void llmmem__ag_set_rerun(llmmem__ag *ag, llmmem__ag_rerun fn, void *ctx)
{
    ag->rerun = fn;
    ag->rerun_ctx = ctx;
}

/* ---- tensors --------------------------------------------------------------------------------- */

static int grow(llmmem__ag *ag, void **p, uint32_t *cap, size_t size, uint32_t need, const char *what)
{
    if (need <= *cap)
        return 1;
    if (need > CAP) {
        fail(ag, LLMMEM_ERR_UNSUPPORTED, "the allocation tape needs more than %u %s alive at once", CAP, what);
        return 0;
    }
    uint32_t c = *cap ? *cap : 256;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, (size_t)c * size);
    if (!q) {
        fail(ag, LLMMEM_ERR_NO_MEMORY, "out of memory");
        return 0;
    }
    *p = q;
    *cap = c;
    return 1;
}

static uint32_t new_tensor(llmmem__ag *ag, uint64_t bytes)
{
    uint32_t id = ag->free_head;
    if (id)
        ag->free_head = ag->t[id].next_free;
    else {
        if (!grow(ag, (void **)&ag->t, &ag->capt, sizeof *ag->t, ag->nt + 1, "tensors"))
            return 0;
        id = ag->nt++;
    }
    tensor *t = &ag->t[id];
    memset(t, 0, sizeof *t);
    t->bytes = bytes;
    t->rc = 1;
    return id;
}

static void recycle(llmmem__ag *ag, uint32_t id)
{
    ag->t[id].rc = 0;
    ag->t[id].next_free = ag->free_head;
    ag->free_head = id;
}

int llmmem__ag_component(llmmem__ag *ag, int component)
{
    int was = ag->component;
    ag->component = component;
    return was;
}

static void tag(llmmem__ag *ag, uint32_t id, int component)
{
    if (ag->sink.tag && id && ag->status == LLMMEM_OK)
        ag->sink.tag(ag->sink.ctx, ag->t[id].sink, component);
}

/* A new tensor holding `component`. */
static uint32_t alloc_as(llmmem__ag *ag, uint64_t bytes, int component)
{
    int was = llmmem__ag_component(ag, component);
    uint32_t id = llmmem__ag_alloc(ag, bytes);
    ag->component = was;
    return id;
}

uint32_t llmmem__ag_alloc(llmmem__ag *ag, uint64_t bytes)
{
    if (ag->status != LLMMEM_OK)
        return 0;
    uint32_t id = new_tensor(ag, bytes);
    if (!id)
        return 0;
    uint32_t sid = 0;
    llmmem_status st = ag->sink.alloc(ag->sink.ctx, &sid, bytes);
    if (st != LLMMEM_OK) {
        recycle(ag, id);
        fail(ag, st, NULL);
        return 0;
    }
    ag->t[id].sink = sid;
    if (!llmmem__add(&ag->live, ag->live, bytes)) {
        fail(ag, LLMMEM_ERR_OVERFLOW, "the allocation tape's bytes exceed 64 bits");
        return 0;
    }
    if (ag->live > ag->peak)
        ag->peak = ag->live;
    tag(ag, id, ag->component);
    return id;
}

uint32_t llmmem__ag_param(llmmem__ag *ag, uint64_t bytes)
{
    uint32_t id = alloc_as(ag, bytes, LLMMEM_COMPONENT_WEIGHTS);
    if (id)
        ag->t[id].flags = LLMMEM__T_REQ | LLMMEM__T_LEAF | LLMMEM__T_PARAM;
    return id;
}

uint32_t llmmem__ag_ref(llmmem__ag *ag, uint32_t t)
{
    if (t)
        ag->t[t].rc++;
    return t;
}

uint32_t llmmem__ag_view(llmmem__ag *ag, uint32_t base, uint64_t bytes, int leaf)
{
    if (ag->status != LLMMEM_OK || !base)
        return 0;
    uint32_t id = new_tensor(ag, bytes);
    if (!id)
        return 0;
    ag->t[id].base = llmmem__ag_ref(ag, base);
    ag->t[id].flags = (uint8_t)((ag->t[base].flags & LLMMEM__T_BSHD) | LLMMEM__T_NOACC |
                                (leaf ? LLMMEM__T_REQ | LLMMEM__T_LEAF : 0));
    return id;
}

void llmmem__ag_unref(llmmem__ag *ag, uint32_t id)
{
    /* a chain of views ends at the tensor that owns the memory */
    while (id) {
        tensor *t = &ag->t[id];
        if (--t->rc)
            return;
        uint32_t base = t->base, grad = t->grad;
        t->grad = 0;
        llmmem__ag_unref(ag, grad);
        t = &ag->t[id];
        if (!base) {
            ag->live -= t->bytes;
            llmmem_status st = ag->sink.free(ag->sink.ctx, t->sink);
            if (st != LLMMEM_OK)
                fail(ag, st, NULL);
        }
        recycle(ag, id);
        id = base;
    }
}

void llmmem__ag_make_leaf(llmmem__ag *ag, uint32_t t)
{
    if (t)
        ag->t[t].flags |= LLMMEM__T_REQ | LLMMEM__T_LEAF;
}

uint64_t llmmem__ag_bytes(const llmmem__ag *ag, uint32_t t) { return t ? ag->t[t].bytes : 0; }
int llmmem__ag_requires_grad(const llmmem__ag *ag, uint32_t t) { return t && (ag->t[t].flags & LLMMEM__T_REQ); }
uint32_t llmmem__ag_grad(const llmmem__ag *ag, uint32_t leaf) { return leaf ? ag->t[leaf].grad : 0; }

void llmmem__ag_drop_grad(llmmem__ag *ag, uint32_t leaf)
{
    if (!leaf)
        return;
    uint32_t g = ag->t[leaf].grad;
    ag->t[leaf].grad = 0;
    llmmem__ag_unref(ag, g);
}

/* The first GEMM of a thread makes the workspace its cuBLAS handle keeps
 * (aten/src/ATen/cuda/CublasHandlePool.cpp getCurrentCUDABlasHandle, getCUDABlasLtWorkspace). */
static void workspace(llmmem__ag *ag, int which)
{
    if (!ag->ws[which] && ag->ws_bytes[which])
        ag->ws[which] = alloc_as(ag, ag->ws_bytes[which], LLMMEM_COMPONENT_WORKSPACES);
}

void llmmem__ag_early_workspaces(llmmem__ag *ag, int backward)
{
    workspace(ag, WS_FWD);
    if (backward)
        workspace(ag, WS_BWD);
}

/* The workspace CUTLASS's grouped GEMM takes (Gemm::get_workspace_size of the sm90 ptr-array
 * kernels cuda/GroupMM.cu runs): a TMA descriptor (128 bytes) per multiprocessor for each of A, B
 * (sm90_mma_array_tma_gmma_ss_warpspecialized) and C, D (sm90_epilogue_array_tma_warpspecialized) */
static uint64_t grouped_workspace(const llmmem__ag *ag) { return 4 * 128 * ag->sms; }

uint64_t llmmem__ag_sort_temp(uint64_t n)
{
    int bad = 0;
    uint64_t b = llmmem__add_flag(&bad, llmmem__mul_flag(&bad, n, 16), 8191);
    return bad ? 0 : b;
}

/* A kernel's scratch buffers, made in turn and freed in reverse as it returns (0: none). */
static void scratch(llmmem__ag *ag, uint64_t a, uint64_t b)
{
    uint32_t x = llmmem__ag_alloc(ag, a), y = llmmem__ag_alloc(ag, b);
    llmmem__ag_unref(ag, y);
    llmmem__ag_unref(ag, x);
}

/* ---- ops ------------------------------------------------------------------------------------- */

static int needs_grad(const llmmem__ag *ag, const llmmem__ag_call *c)
{
    if (!ag->grad_mode)
        return 0;
    for (unsigned i = 0; i < c->nin; i++)
        if (llmmem__ag_requires_grad(ag, c->in[i]))
            return 1;
    return 0;
}

void llmmem__ag_node(llmmem__ag *ag, const llmmem__ag_call *c, uint32_t out)
{
    if (ag->status != LLMMEM_OK || !out || !needs_grad(ag, c))
        return;
    if (!grow(ag, (void **)&ag->n, &ag->capn, sizeof *ag->n, ag->nn + 1, "autograd nodes"))
        return;
    uint32_t k = ag->nn++;
    node *n = &ag->n[k];
    memset(n, 0, sizeof *n);
    n->seq = ++ag->seq;
    n->component = (uint8_t)ag->component;
    n->op = (uint8_t)c->op;
    n->nin = (uint8_t)c->nin;
    n->rowsum = (uint8_t)c->rowsum;
    n->narrow = (uint8_t)c->narrow;
    n->elem = (uint8_t)(c->elem ? c->elem : 2);
    n->arg[0] = c->arg[0];
    n->arg[1] = c->arg[1];
    for (unsigned i = 0; i < c->nin; i++) {
        const tensor *x = &ag->t[c->in[i]];
        n->inb[i] = c->in[i] ? x->bytes : 0;
        if (!llmmem__ag_requires_grad(ag, c->in[i]))
            continue;
        if (x->flags & LLMMEM__T_LEAF)
            n->leaf[i] = c->in[i];
        else
            n->next[i] = x->fn, n->next_out[i] = x->out;
    }
    for (unsigned i = 0; i < c->nsaved; i++)
        n->saved[n->nsaved++] = llmmem__ag_ref(ag, c->saved[i]);
    ag->t[out].flags |= LLMMEM__T_REQ;
    ag->t[out].fn = k + 1;
    ag->t[out].out = 0;
}

void llmmem__ag_split(llmmem__ag *ag, uint32_t x, unsigned n, uint32_t *out)
{
    for (unsigned i = 0; i < n; i++)
        out[i] = 0;
    if (ag->status != LLMMEM_OK || n < 2 || n > MAX_OUT)
        return;
    uint64_t piece = ag->t[x].bytes / n;
    for (unsigned i = 0; i < n; i++)
        out[i] = llmmem__ag_view(ag, x, piece, 0);
    llmmem__ag_node(ag, &(llmmem__ag_call){.op = LLMMEM__OP_SPLIT, .in = {x}, .nin = 1}, out[0]);
    if (out[0] && ag->t[out[0]].fn)
        for (unsigned i = 0; i < n; i++) {
            ag->t[out[i]].fn = ag->t[out[0]].fn;
            ag->t[out[i]].out = (uint8_t)i;
            ag->t[out[i]].flags = (uint8_t)((ag->t[out[i]].flags | LLMMEM__T_REQ) & ~LLMMEM__T_NOACC);
        }
}

uint32_t llmmem__ag_op(llmmem__ag *ag, const llmmem__ag_call *c)
{
    if (ag->status != LLMMEM_OK)
        return 0;
    uint32_t out = c->view ? llmmem__ag_view(ag, c->in[0], c->out, 0) : llmmem__ag_alloc(ag, c->out);
    if (c->view && out)
        ag->t[out].flags &= (uint8_t)~LLMMEM__T_NOACC;
    if (c->op == LLMMEM__OP_MM)
        workspace(ag, ag->depth ? WS_BWD : WS_FWD);
    else if (c->op == LLMMEM__OP_ADDMM)
        workspace(ag, ag->depth ? WS_BWD : WS_FWD_LT);
    else if (c->op == LLMMEM__OP_GROUPED_MM)
        scratch(ag, c->arg[0], grouped_workspace(ag));
    llmmem__ag_node(ag, c, out);
    return out;
}

/* ---- backward -------------------------------------------------------------------------------- */

static uint32_t alloc_flags(llmmem__ag *ag, uint64_t bytes, uint8_t flags)
{
    uint32_t t = llmmem__ag_alloc(ag, bytes);
    if (t)
        ag->t[t].flags |= flags;
    return t;
}

/* allocs n temporaries of `bytes` then frees all but the last, which is returned (a formula of n
 * elementwise kernels) */
static uint32_t chain(llmmem__ag *ag, unsigned n, uint64_t bytes)
{
    uint32_t tmp[4] = {0};
    for (unsigned i = 0; i < n; i++)
        tmp[i] = llmmem__ag_alloc(ag, bytes);
    for (unsigned i = 0; i + 1 < n; i++)
        llmmem__ag_unref(ag, tmp[i]);
    return tmp[n - 1];
}

static int wants(const node *n, unsigned i) { return n->next[i] || n->leaf[i]; }

/* The grads a node's derivative formula allocates, for each input that requires grad. */
static void rule(llmmem__ag *ag, uint32_t k, const uint32_t *gs, uint32_t *gin)
{
    uint32_t g = gs[0];
    node n = ag->n[k]; /* a copy: a checkpoint's rerun may move the array */
    uint64_t gb = g ? ag->t[g].bytes : 0;
    switch ((llmmem__op)n.op) {
    case LLMMEM__OP_TO:
    case LLMMEM__OP_MEAN:
    case LLMMEM__OP_SUM:
    case LLMMEM__OP_SILU:
    case LLMMEM__OP_GELU_TANH:
    case LLMMEM__OP_SLICE:
    case LLMMEM__OP_LOGSOFTMAX:
        gin[0] = llmmem__ag_alloc(ag, n.inb[0]);
        break;
    case LLMMEM__OP_NEG:
    case LLMMEM__OP_SCALE:
    case LLMMEM__OP_TANH:
        gin[0] = llmmem__ag_alloc(ag, gb);
        break;
    case LLMMEM__OP_REPEAT_KV:
        gin[0] = llmmem__ag_alloc(ag, n.inb[0]);
        break;
    case LLMMEM__OP_SOFTMAX:
        gin[0] = llmmem__ag_alloc(ag, n.inb[0]);
        llmmem__ag_unref(ag, llmmem__ag_alloc(ag, n.inb[0]));
        break;
    case LLMMEM__OP_BMM:
        if (wants(&n, 1))
            gin[1] = llmmem__ag_alloc(ag, n.inb[1]);
        if (wants(&n, 0))
            gin[0] = llmmem__ag_alloc(ag, n.inb[0]);
        break;
    case LLMMEM__OP_POW2:
    case LLMMEM__OP_RSQRT:
        gin[0] = chain(ag, 3, n.inb[0]);
        break;
    case LLMMEM__OP_PASS:
        gin[0] = llmmem__ag_ref(ag, g);
        break;
    case LLMMEM__OP_SPLIT:
        /* SplitBackward0 (FunctionsManual.cpp split_backward): the grads of the pieces (zeros for a
         * missing one) catenated */
        gin[0] = llmmem__ag_alloc(ag, n.inb[0]);
        break;
    case LLMMEM__OP_TOPK:
        /* TopkBackward0 (FunctionsManual.cpp value_selecting_reduction_backward): zeros of the
         * input's size, the grad scattered into them in place */
        gin[0] = llmmem__ag_alloc(ag, n.inb[0]);
        break;
    case LLMMEM__OP_GROUPED_MM:
        /* GroupedMmBackward0 (FunctionsManual.cpp _grouped_mm_mat2_backward, _grouped_mm_mat1_backward),
         * written as mm's and run in MmBackward0's order: each a grouped GEMM making its output, then
         * its argument buffer and workspace (cuda/GroupMM.cu), freed as it returns */
        if (wants(&n, 1)) {
            gin[1] = llmmem__ag_alloc(ag, n.inb[1]);
            scratch(ag, n.arg[0], grouped_workspace(ag));
        }
        if (wants(&n, 0)) {
            gin[0] = llmmem__ag_alloc(ag, n.inb[0]);
            scratch(ag, n.arg[0], grouped_workspace(ag));
        }
        break;
    case LLMMEM__OP_INDEX: {
        /* IndexBackward0 (FunctionsManual.cpp index_backward): grad.new_zeros(the input's sizes) into
         * _unsafe_index_put, which clones them (TensorAdvancedIndexing.cpp index_put) and accumulates
         * into the clone (cuda/Indexing.cu index_put_with_sort_kernel): the linear index
         * (wrapIndexOnce's remainder, times the stride), the sorted indices and their positions, a
         * range, cub's temporary storage; all freed as it returns, the zeros last */
        int bad = 0;
        uint64_t n8 = llmmem__mul_flag(&bad, n.arg[0], 8), tmpb = llmmem__ag_sort_temp(n.arg[0]);
        if (bad || !tmpb) {
            fail(ag, LLMMEM_ERR_OVERFLOW, "an index backward's buffers exceed 64 bits");
            break;
        }
        uint32_t zeros = llmmem__ag_alloc(ag, n.inb[0]);
        gin[0] = llmmem__ag_alloc(ag, n.inb[0]);
        uint32_t rem = llmmem__ag_alloc(ag, n8), lin = llmmem__ag_alloc(ag, n8);
        llmmem__ag_unref(ag, rem);
        uint32_t sorted = llmmem__ag_alloc(ag, n8), orig = llmmem__ag_alloc(ag, n8);
        uint32_t range = llmmem__ag_alloc(ag, n8);
        llmmem__ag_unref(ag, llmmem__ag_alloc(ag, tmpb));
        llmmem__ag_unref(ag, range);
        llmmem__ag_unref(ag, orig);
        llmmem__ag_unref(ag, sorted);
        llmmem__ag_unref(ag, lin);
        llmmem__ag_unref(ag, zeros);
        break;
    }
    case LLMMEM__OP_LAYERNORM:
        /* native_layer_norm_backward: the input's grad, then the weight's and the bias's */
        for (unsigned i = 0; i < 3; i++)
            if (wants(&n, i))
                gin[i] = llmmem__ag_alloc(ag, n.inb[i]);
        break;
    case LLMMEM__OP_DROPOUT:
        gin[0] = llmmem__ag_alloc(ag, n.inb[0]); /* native_dropout_backward: grad * mask * scale */
        break;
    case LLMMEM__OP_ADD:
        for (unsigned i = 0; i < 2; i++)
            if (wants(&n, i))
                gin[i] = llmmem__ag_ref(ag, g);
        break;
    case LLMMEM__OP_MUL:
        for (unsigned i = 0; i < 2; i++)
            if (wants(&n, i))
                gin[i] = llmmem__ag_alloc(ag, gb);
        break;
    case LLMMEM__OP_CAT2:
        for (unsigned i = 0; i < 2; i++)
            if (wants(&n, i))
                gin[i] = llmmem__ag_view(ag, g, n.inb[i], 0);
        break;
    case LLMMEM__OP_MM:
        if (wants(&n, 1)) {
            gin[1] = llmmem__ag_alloc(ag, n.inb[1]);
            workspace(ag, WS_BWD);
        }
        if (wants(&n, 0))
            gin[0] = alloc_flags(ag, n.inb[0], LLMMEM__T_NOACC);
        break;
    case LLMMEM__OP_ADDMM:
        if (wants(&n, 0)) {
            gin[0] = alloc_flags(ag, n.inb[0], LLMMEM__T_NOACC);
            workspace(ag, WS_BWD);
        }
        if (wants(&n, 1))
            gin[1] = llmmem__ag_alloc(ag, n.inb[1]);
        if (wants(&n, 2))
            gin[2] = llmmem__ag_ref(ag, g);
        break;
    case LLMMEM__OP_HEADS:
        gin[0] = (ag->t[g].flags & LLMMEM__T_BSHD) ? llmmem__ag_view(ag, g, gb, 0) : llmmem__ag_alloc(ag, gb);
        break;
    case LLMMEM__OP_SDPA_CUDNN: {
        for (unsigned i = 0; i < 3; i++)
            if (wants(&n, i))
                gin[i] = alloc_flags(ag, n.inb[i], LLMMEM__T_BSHD);
        /* the backward's workspace as measured with the cuDNN backend torch 2.11 picks on an H100
         * (tests/data/gpu): an fp32 accumulator of dQ's size, for grouped KV heads without a mask
         * dK and dV expanded to every query head too, the softmax statistics, 256 bytes */
        int bad = 0;
        int gqa = n.inb[1] < n.inb[0] && !n.arg[1];
        uint64_t acc = llmmem__mul_flag(&bad, n.inb[0], gqa ? 4 : 2);
        uint64_t ws = llmmem__add_flag(&bad, llmmem__add_flag(&bad, acc, n.arg[0]), 256);
        if (bad) {
            fail(ag, LLMMEM_ERR_OVERFLOW, "the attention backward's workspace exceeds 64 bits");
            break;
        }
        llmmem__ag_unref(ag, llmmem__ag_alloc(ag, ws));
        break;
    }
    case LLMMEM__OP_EMBED: {
        /* embedding_dense_backward_cuda (ATen/native/cuda/Embedding.cu): past 3072 indices, the indices sorted by cub's
         * radix sort (sorted and original indices, a range, the temporary storage), the zero-filled
         * grad; embedding_backward_cuda_kernel (EmbeddingBackwardKernel.cu): segment offsets, their
         * count, partial offsets and at most one partial sum row (fp32) per index */
        uint64_t n8 = n.arg[0] * 8;
        if (n.arg[0] <= 3072) { /* the direct kernel for few indices: the grad alone */
            gin[0] = llmmem__ag_alloc(ag, n.inb[0]);
            break;
        }
        uint32_t sorted = llmmem__ag_alloc(ag, n8), orig = llmmem__ag_alloc(ag, n8);
        uint32_t range = llmmem__ag_alloc(ag, n8), tmp = llmmem__ag_alloc(ag, llmmem__ag_sort_temp(n.arg[0]));
        llmmem__ag_unref(ag, range);
        llmmem__ag_unref(ag, tmp);
        gin[0] = llmmem__ag_alloc(ag, n.inb[0]);
        uint32_t seg = llmmem__ag_alloc(ag, n8), count = llmmem__ag_alloc(ag, 8), part = llmmem__ag_alloc(ag, n8);
        llmmem__ag_unref(ag, llmmem__ag_alloc(ag, n.arg[0] * n.arg[1] + n8));
        llmmem__ag_unref(ag, seg);
        llmmem__ag_unref(ag, count);
        llmmem__ag_unref(ag, part);
        llmmem__ag_unref(ag, sorted);
        llmmem__ag_unref(ag, orig);
        break;
    }
    case LLMMEM__OP_NLL:
        gin[0] = llmmem__ag_alloc(ag, n.arg[0]);
        break;
    case LLMMEM__OP_CHECKPOINT: {
        if (!ag->rerun) {
            fail(ag, LLMMEM_ERR_UNSUPPORTED, "a checkpoint without its forward");
            break;
        }
        uint32_t x = llmmem__ag_view(ag, n.saved[0], n.inb[0], 1);
        uint32_t y = ag->rerun(ag->rerun_ctx, ag, n.arg[0], x);
        llmmem__ag_backward(ag, y, llmmem__ag_ref(ag, g));
        llmmem__ag_unref(ag, y);
        if (x) {
            gin[0] = ag->t[x].grad;
            ag->t[x].grad = 0;
        }
        llmmem__ag_unref(ag, x);
        break;
    }
    case LLMMEM__OPS:
        break;
    }
}

/* The global staging buffer and semaphores a CUDA reduction of `inputs` elements into each of
 * `outputs` outputs takes: ATen/native/cuda/Reduce.cuh setReduceConfig with its constants
 * (MAX_NUM_THREADS 512, min/max values per thread 16/256, warp 32, float accumulation), on a device
 * of `sms` multiprocessors of `threads_per_sm` threads; the input contiguous, the reduction along
 * its last dim (`fastest`) or across rows. 0 when the reduction stays within its blocks. */
static uint64_t pow2_floor(uint64_t n)
{
    uint64_t p = 1;
    while (p <= n / 2)
        p *= 2;
    return p;
}

static void reduce_buffers(uint64_t *stage, uint64_t *sem, uint64_t outputs, uint64_t inputs, unsigned elem, int fastest,
                           uint64_t sms, uint64_t threads_per_sm)
{
    *stage = *sem = 0;
    uint64_t dim0 = fastest ? inputs : outputs, dim1 = fastest ? outputs : inputs;
    uint64_t out_vec = 1;
    if (fastest) {
        if (dim0 > 128 && elem <= 4)
            dim0 /= 4; /* vectorize along input (vt0 4) */
    } else {
        out_vec = 4; /* get_output_vec_size: 4 for an aligned, multiple-of-4 output */
        while (outputs % out_vec)
            out_vec /= 2;
        dim0 /= out_vec;
    }
    uint64_t max_threads = 512 / out_vec;
    uint64_t d0 = dim0 < max_threads ? pow2_floor(dim0 ? dim0 : 1) : max_threads;
    uint64_t d1 = dim1 < max_threads ? pow2_floor(dim1 ? dim1 : 1) : max_threads;
    uint64_t width = d0 < 32 ? d0 : 32;
    uint64_t height = d1 < max_threads / width ? d1 : max_threads / width;
    width = d0 < max_threads / height ? d0 : max_threads / height;
    uint64_t step_in = 1, step_out = 1;
    if (fastest)
        step_in *= width;
    else
        step_out *= width;
    uint64_t vpt = llmmem__ceil_div(inputs, step_in);
    uint64_t threshold = height * 16 < 256 ? height * 16 : 256;
    int split_y = vpt >= threshold;
    if (split_y)
        step_in *= height;
    else
        step_out *= height;
    vpt = llmmem__ceil_div(inputs, step_in);
    uint64_t grid = llmmem__ceil_div(outputs / out_vec, step_out);
    uint64_t target = sms * (threads_per_sm / (width * height));
    if (!split_y || vpt < 256 || grid > target)
        return;
    uint64_t c1 = llmmem__ceil_div(target, grid), c2 = llmmem__ceil_div(vpt, 16), c3 = llmmem__ceil_div(vpt, 256);
    uint64_t ctas = c1 < c2 ? c1 : c2;
    if (ctas < c3)
        ctas = c3;
    if (ctas <= 1)
        return;
    *stage = 4 * outputs * ctas * (fastest ? 1 : width * out_vec);
    *sem = 4 * grid;
}

/* at::sum_to in validate_outputs: the sum, and the staging buffer and semaphores of its kernel */
static uint32_t sum_to(llmmem__ag *ag, uint32_t full, uint64_t bytes, int rowsum, unsigned elem)
{
    uint32_t o = llmmem__ag_alloc(ag, bytes);
    uint64_t stage, sem;
    reduce_buffers(&stage, &sem, bytes / elem, ag->t[full].bytes / bytes, elem, rowsum, ag->sms, ag->threads_per_sm);
    if (stage) {
        uint32_t ws = llmmem__ag_alloc(ag, stage);
        llmmem__ag_unref(ag, llmmem__ag_alloc(ag, sem));
        llmmem__ag_unref(ag, ws);
    }
    llmmem__ag_unref(ag, full);
    return o;
}

/* InputBuffer::accumulate (input_buffer.cpp): in place into a grad only this buffer holds (the old
 * one first), else a new sum. */
static uint32_t accumulate(llmmem__ag *ag, uint32_t old, uint32_t add)
{
    const tensor *a = &ag->t[old], *b = &ag->t[add];
    if (a->rc == 1 && !(a->flags & LLMMEM__T_NOACC) && !a->base) {
        llmmem__ag_unref(ag, add);
        return old;
    }
    if (b->rc == 1 && !(b->flags & LLMMEM__T_NOACC) && !b->base) {
        llmmem__ag_unref(ag, old);
        return add;
    }
    uint32_t s = llmmem__ag_alloc(ag, b->bytes);
    llmmem__ag_unref(ag, old);
    llmmem__ag_unref(ag, add);
    return s;
}

/* AccumulateGrad (accumulate_grad.h): the first grad is stolen; a later one is added out of place. */
static void accumulate_leaf(llmmem__ag *ag, uint32_t leaf, uint32_t g)
{
    tensor *p = &ag->t[leaf];
    int as = p->flags & LLMMEM__T_PARAM ? LLMMEM_COMPONENT_GRADIENTS : ag->component;
    if (!p->grad) {
        p->grad = g;
        tag(ag, g, as);
        return;
    }
    uint32_t old = p->grad;
    uint32_t s = alloc_as(ag, ag->t[g].bytes, as);
    llmmem__ag_unref(ag, old);
    llmmem__ag_unref(ag, g);
    ag->t[leaf].grad = s;
}

/* A max-heap of node indices by sequence number (the engine's ReadyQueue). */
typedef struct heap {
    uint32_t *v;
    uint32_t n;
} heap;

static void heap_push(const llmmem__ag *ag, heap *h, uint32_t k)
{
    uint32_t i = h->n++;
    while (i) {
        uint32_t p = (i - 1) / 2;
        if (ag->n[h->v[p]].seq >= ag->n[k].seq)
            break;
        h->v[i] = h->v[p];
        i = p;
    }
    h->v[i] = k;
}

static uint32_t heap_pop(const llmmem__ag *ag, heap *h)
{
    uint32_t top = h->v[0], last = h->v[--h->n], i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && ag->n[h->v[c + 1]].seq > ag->n[h->v[c]].seq)
            c++;
        if (ag->n[h->v[c]].seq <= ag->n[last].seq)
            break;
        h->v[i] = h->v[c];
        i = c;
    }
    if (h->n)
        h->v[i] = last;
    return top;
}

/* Counts each reachable node's incoming edges (GraphTask's dependencies); returns how many nodes
 * were reached, 0 on failure. */
static uint32_t dependencies(llmmem__ag *ag, uint32_t start, uint32_t stamp, uint32_t *stack)
{
    uint32_t sp = 0, reached = 0;
    ag->n[start].mark = stamp;
    ag->n[start].deps = 0;
    stack[sp++] = start;
    while (sp) {
        node *n = &ag->n[stack[--sp]];
        reached++;
        for (unsigned i = 0; i < n->nin; i++) {
            if (!n->next[i])
                continue;
            node *m = &ag->n[n->next[i] - 1];
            if (m->mark != stamp) {
                m->mark = stamp;
                m->deps = 0;
                memset(m->buf, 0, sizeof m->buf);
                stack[sp++] = n->next[i] - 1;
            }
            m->deps++;
        }
    }
    return reached;
}

void llmmem__ag_backward(llmmem__ag *ag, uint32_t root, uint32_t grad)
{
    if (ag->status != LLMMEM_OK || !root || !ag->t[root].fn) {
        llmmem__ag_unref(ag, grad);
        return;
    }
    uint32_t start = ag->t[root].fn - 1;
    uint32_t *space = malloc(2 * (size_t)ag->nn * sizeof *space);
    if (!space) {
        fail(ag, LLMMEM_ERR_NO_MEMORY, "out of memory");
        llmmem__ag_unref(ag, grad);
        return;
    }
    uint32_t stamp = ++ag->stamp;
    dependencies(ag, start, stamp, space);
    heap h = {space + ag->nn, 0};
    ag->n[start].buf[ag->t[root].out] = grad;
    heap_push(ag, &h, start);
    ag->depth++;
    int component = ag->component;
    while (h.n && ag->status == LLMMEM_OK) {
        uint32_t k = heap_pop(ag, &h);
        uint32_t gs[MAX_OUT], gin[MAX_IN] = {0};
        ag->component = ag->n[k].component;
        memcpy(gs, ag->n[k].buf, sizeof gs);
        memset(ag->n[k].buf, 0, sizeof gs);
        /* engine.cpp call_function: the node's apply, validate_outputs (sums to the inputs'
         * shapes, casts to their dtypes), the incoming grads dropped as it returns; then
         * evaluate_function releases the saved tensors and routes the outputs */
        rule(ag, k, gs, gin);
        for (unsigned i = 0; i < ag->n[k].nin; i++) {
            const node *v = &ag->n[k];
            if (!gin[i] || !v->inb[i])
                continue;
            unsigned narrow = (v->narrow >> i) & 1;
            uint64_t wide = v->inb[i] << narrow; /* the fp32 grad of a 16-bit input: twice its bytes */
            if (wide >> narrow != v->inb[i]) {
                fail(ag, LLMMEM_ERR_OVERFLOW, "a grad's bytes exceed 64 bits");
                break;
            }
            if (ag->t[gin[i]].bytes > wide)
                gin[i] = sum_to(ag, gin[i], wide, (v->rowsum >> i) & 1, v->elem);
            if (narrow) { /* grad.to(the input's dtype) */
                uint32_t cast = llmmem__ag_alloc(ag, ag->n[k].inb[i]);
                llmmem__ag_unref(ag, gin[i]);
                gin[i] = cast;
            }
        }
        for (unsigned i = 0; i < MAX_OUT; i++)
            llmmem__ag_unref(ag, gs[i]);
        node *n = &ag->n[k];
        for (unsigned i = 0; i < n->nsaved; i++)
            llmmem__ag_unref(ag, n->saved[i]);
        n->nsaved = 0;
        for (unsigned i = 0; i < n->nin; i++) {
            if (!n->next[i]) {
                if (!n->leaf[i])
                    llmmem__ag_unref(ag, gin[i]);
                continue;
            }
            node *m = &ag->n[n->next[i] - 1];
            uint32_t *b = &m->buf[n->next_out[i]];
            if (gin[i])
                *b = *b ? accumulate(ag, *b, gin[i]) : gin[i];
            m = &ag->n[n->next[i] - 1];
            if (--m->deps == 0)
                heap_push(ag, &h, n->next[i] - 1);
        }
        for (unsigned i = 0; i < n->nin; i++)
            if (n->leaf[i] && gin[i])
                accumulate_leaf(ag, n->leaf[i], gin[i]);
    }
    ag->component = component;
    ag->depth--;
    free(space);
    if (ag->depth == 0) {
        /* every node of the step has run: the graph is gone */
        for (uint32_t i = 1; i < ag->nt; i++)
            ag->t[i].fn = 0;
        ag->nn = 0;
    }
}
