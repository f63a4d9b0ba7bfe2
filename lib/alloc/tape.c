/* The allocation tape of a transformers job (tape.h): the model's code, op by op, as PyTorch runs
 * it on a CUDA device. Each function follows the transformers 5.x function it names. */
#include "alloc/tape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define F32 4u

/* A decoder layer's linears, in the order its module registers them. */
enum { LIN_Q, LIN_K, LIN_V, LIN_O, LIN_GATE, LIN_UP, LIN_DOWN, LINEARS };

typedef struct linear_params {
    uint32_t w, bias;
    uint32_t lora_a, lora_b; /* PEFT's adapter, when the linear is a target */
    uint32_t cast[2];        /* autocast's cached copies of w and bias while the context is on */
    uint64_t in, out;        /* features */
} linear_params;

typedef struct layer_params {
    linear_params lin[LINEARS];
    uint32_t norm[4]; /* input, post-attention (of four), pre-feedforward, post-feedforward (of four) */
    uint32_t q_norm, k_norm;
    uint32_t norm_bias[4]; /* LayerNorm's biases */
    linear_params router;  /* a sparse block's router and its experts' stacked weights */
    uint32_t gate_up, down;
} layer_params;

typedef struct run {
    llmmem__ag *ag;
    const llmmem__sink *sink;
    unsigned step;
    /* the forward running: sequences, query tokens of each, keys each attends to (the cache's
     * length after its update), rows of the position ids (1 when the model makes them) */
    uint64_t seqs, q, kv, pos_rows;
    uint64_t grow;       /* tokens the cache grows by in this forward: q, or a strided decode's stride */
    uint32_t *cache;     /* generate: each layer's key and value cache */
    uint64_t *cache_len; /* and the tokens each holds (a sliding layer's: at most window - 1) */
    uint64_t layer_index; /* the layer running */
    const llmmem__tape_job *job;
    uint64_t N;          /* tokens of a step: batch x seq */
    uint32_t embed, norm, norm_bias, head, ids;
    uint32_t head_cast[2];  /* autocast's cached copy of the head's weight */
    unsigned act;        /* bytes of an element a linear or the attention outputs (autocast's, else the model's) */
    uint32_t wpe;        /* GPT-2's position embedding */
    layer_params *layer;
    uint32_t cos[2], sin[2]; /* the rotary embeddings of the step: global, local (Gemma-3) */
    uint32_t mask[2];    /* eager attention's masks: causal, sliding window */
    uint32_t normalizer; /* Gemma's embedding scale */
} run;

#define OP(ag, ...) llmmem__ag_op((ag), &(llmmem__ag_call){__VA_ARGS__})

static void mark(const run *r, llmmem__tape_moment moment, uint64_t layer)
{
    if (r->sink->mark && llmmem__ag_status(r->ag) == LLMMEM_OK)
        r->sink->mark(r->sink->ctx, (int)moment, r->step, layer);
}

static uint64_t mul3(llmmem__ag *ag, uint64_t a, uint64_t b, uint64_t c, int *bad)
{
    (void)ag;
    return llmmem__mul_flag(bad, llmmem__mul_flag(bad, a, b), c);
}

/* ---- building blocks --------------------------------------------------------------------------- */

static uint32_t unary(run *r, llmmem__op op, uint32_t x, uint64_t out, int save_in)
{
    return OP(r->ag, .op = op, .out = out, .in = {x}, .nin = 1, .saved = {x}, .nsaved = save_in ? 1u : 0u);
}

/* torch.autocast (aten/src/ATen/autocast_mode.cpp): an op of its lower-precision list (linear,
 * scaled_dot_product_attention) runs on cached_cast copies of its fp32 arguments. An activation
 * of `elems` elements is cast anew at every call (a reference when it is in the lower precision
 * already, or autocast is off); a weight (a leaf requiring grad) once while the context is on,
 * the cache (slot) holding the copy until the context exits. */
static uint32_t lower(run *r, uint32_t x, uint64_t elems, uint32_t *slot)
{
    llmmem__ag *ag = r->ag;
    unsigned lp = r->job->autocast;
    if (!lp || !x)
        return llmmem__ag_ref(ag, x);
    if (!llmmem__ag_requires_grad(ag, x))
        slot = NULL; /* cached_cast's can_try_cache: a leaf requiring grad */
    if (slot && *slot)
        return llmmem__ag_ref(ag, *slot);
    int bad = 0;
    uint64_t b = llmmem__mul_flag(&bad, elems, lp);
    if (bad || llmmem__ag_bytes(ag, x) == b)
        return llmmem__ag_ref(ag, x);
    uint32_t c = unary(r, LLMMEM__OP_TO, x, b, 0);
    if (slot)
        *slot = llmmem__ag_ref(ag, c);
    return c;
}

/* a parameter's lower-precision copy (its fp32 elements counted from its bytes) */
static uint32_t lower_param(run *r, uint32_t w, uint32_t *slot)
{
    return lower(r, w, llmmem__ag_bytes(r->ag, w) / F32, slot);
}

/* the context exits (torch.autocast.__exit__: clear_autocast_cache): the cache lets its copies go */
static void autocast_exit(run *r)
{
    for (uint64_t l = 0; r->job->autocast && l < r->job->model.layers; l++)
        for (unsigned i = 0; i <= LINEARS; i++) {
            linear_params *L = i < LINEARS ? &r->layer[l].lin[i] : &r->layer[l].router;
            for (unsigned c = 0; c < 2; c++) {
                llmmem__ag_unref(r->ag, L->cast[c]);
                L->cast[c] = 0;
            }
        }
    for (unsigned c = 0; c < 2; c++) {
        llmmem__ag_unref(r->ag, r->head_cast[c]);
        r->head_cast[c] = 0;
    }
}

/* nn.Linear: F.linear, an mm (or addmm with a bias) saving what its weight's and input's grads
 * need; x holds x_elems elements. Under autocast on the copies autocast's WrapFunction_ makes of
 * its arguments, evaluated as GCC evaluates a call's arguments: right to left (bias, weight, x). */
static uint32_t linear(run *r, uint32_t x, uint64_t x_elems, uint32_t w, uint32_t bias, uint32_t *cast, uint64_t out)
{
    llmmem__ag *ag = r->ag;
    uint32_t *cast_w = cast ? &cast[0] : NULL, *cast_b = cast ? &cast[1] : NULL; /* NULL: no autocast cache */
    uint32_t b = bias ? lower_param(r, bias, cast_b) : 0, wl = lower_param(r, w, cast_w);
    uint32_t xl = lower(r, x, x_elems, NULL);
    uint32_t saved[2];
    unsigned ns = 0;
    if (llmmem__ag_requires_grad(ag, wl))
        saved[ns++] = xl;
    if (llmmem__ag_requires_grad(ag, xl))
        saved[ns++] = wl;
    uint32_t y = b ? OP(ag, .op = LLMMEM__OP_ADDMM, .out = out, .in = {xl, wl, b}, .nin = 3,
                        .saved = {saved[0], saved[1]}, .nsaved = ns)
                   : OP(ag, .op = LLMMEM__OP_MM, .out = out, .in = {xl, wl}, .nin = 2, .saved = {saved[0], saved[1]},
                        .nsaved = ns);
    llmmem__ag_unref(ag, xl);
    llmmem__ag_unref(ag, wl);
    llmmem__ag_unref(ag, b);
    return y;
}

/* peft.tuners.lora.layer.Linear.forward: result = base_layer(x); x = _cast_input_dtype(x, lora_A's
 * dtype); result = result + lora_B(lora_A(dropout(x))) * scaling (dropout 0: nn.Identity), then
 * result.to(the base's dtype); else the plain linear */
static uint32_t proj(run *r, layer_params *p, unsigned which, uint32_t x)
{
    llmmem__ag *ag = r->ag;
    linear_params *L = &p->lin[which];
    const llmmem__tape_job *j = r->job;
    int bad = 0;
    uint64_t out = mul3(ag, r->N, L->out, r->act, &bad);
    uint64_t in32 = mul3(ag, r->N, L->in, j->lora_bytes, &bad), a32 = mul3(ag, r->N, j->lora_rank, j->lora_bytes, &bad);
    uint64_t out32 = mul3(ag, r->N, L->out, j->lora_bytes, &bad);
    uint64_t x_elems = llmmem__mul_flag(&bad, r->N, L->in);
    if (bad)
        return 0;
    uint32_t res = linear(r, x, x_elems, L->w, L->bias, L->cast, out);
    if (!L->lora_a)
        return res;
    uint32_t xc = unary(r, LLMMEM__OP_TO, x, in32, 0);
    uint32_t a = linear(r, xc, in32 / j->lora_bytes, L->lora_a, 0, NULL, a32);
    llmmem__ag_unref(ag, xc);
    uint32_t b = linear(r, a, a32 / j->lora_bytes, L->lora_b, 0, NULL, out32);
    llmmem__ag_unref(ag, a);
    uint32_t sc = unary(r, LLMMEM__OP_SCALE, b, out32, 0);
    llmmem__ag_unref(ag, b);
    uint32_t sum = OP(ag, .op = LLMMEM__OP_ADD, .out = out32, .in = {res, sc}, .nin = 2, .narrow = 1);
    llmmem__ag_unref(ag, res);
    llmmem__ag_unref(ag, sc);
    uint32_t o = unary(r, LLMMEM__OP_TO, sum, out, 0);
    llmmem__ag_unref(ag, sum);
    return o;
}

/* a * b (out bytes): MulBackward0 saves each factor the other's grad needs; narrow: the factors
 * of a 16-bit dtype in a product promoted to fp32 (autograd.h) */
static uint32_t mul(run *r, uint32_t a, uint32_t b, uint64_t out, unsigned rowsum, unsigned narrow)
{
    llmmem__ag *ag = r->ag;
    uint32_t saved[2];
    unsigned ns = 0;
    if (llmmem__ag_requires_grad(ag, b))
        saved[ns++] = a;
    if (llmmem__ag_requires_grad(ag, a))
        saved[ns++] = b;
    return OP(ag, .op = LLMMEM__OP_MUL, .out = out, .in = {a, b}, .nin = 2, .saved = {saved[0], saved[1]}, .nsaved = ns,
              .rowsum = rowsum, .narrow = narrow);
}

/* Tensor.to(dtype) into `bytes`: the tensor itself (a reference) when it has the dtype already */
static uint32_t to(run *r, uint32_t x, uint64_t bytes)
{
    if (llmmem__ag_bytes(r->ag, x) == bytes)
        return llmmem__ag_ref(r->ag, x);
    return unary(r, LLMMEM__OP_TO, x, bytes, 0);
}

/* x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) of the fp32 x32: the normalized rows */
static uint32_t normalize(run *r, uint32_t x32, uint64_t full32, uint64_t rows, uint32_t *var_out)
{
    llmmem__ag *ag = r->ag;
    uint32_t p = unary(r, LLMMEM__OP_POW2, x32, full32, 1);
    uint32_t var = unary(r, LLMMEM__OP_MEAN, p, rows, 0);
    llmmem__ag_unref(ag, p);
    uint32_t ve = unary(r, LLMMEM__OP_PASS, var, rows, 0);
    if (!var_out)
        llmmem__ag_unref(ag, var);
    uint32_t rs = llmmem__ag_alloc(ag, rows); /* rsqrt_backward uses its result */
    llmmem__ag_node(ag, &(llmmem__ag_call){.op = LLMMEM__OP_RSQRT, .in = {ve}, .nin = 1, .saved = {rs}, .nsaved = 1}, rs);
    llmmem__ag_unref(ag, ve);
    uint32_t y32 = OP(ag, .op = LLMMEM__OP_MUL, .out = full32, .in = {x32, rs}, .nin = 2, .saved = {x32, rs}, .nsaved = 2,
                      .rowsum = 2, .elem = F32);
    llmmem__ag_unref(ag, rs);
    if (var_out)
        *var_out = var;
    return y32;
}

/* Gemma2RMSNorm.forward (modeling_gemma2.py): output = self._norm(x.float()); output * (1.0 +
 * self.weight.float()); output.type_as(x) */
static uint32_t rmsnorm_gemma(run *r, uint32_t x, uint32_t w, uint64_t full, uint64_t full32, uint64_t rows)
{
    llmmem__ag *ag = r->ag;
    uint32_t x32 = unary(r, LLMMEM__OP_TO, x, full32, 0);
    uint32_t n = normalize(r, x32, full32, rows, NULL);
    llmmem__ag_unref(ag, x32);
    uint64_t h32 = llmmem__ag_bytes(ag, w) / r->job->model.bytes * F32;
    uint32_t w32 = unary(r, LLMMEM__OP_TO, w, h32, 0);
    uint32_t w1 = unary(r, LLMMEM__OP_PASS, w32, h32, 0);
    llmmem__ag_unref(ag, w32);
    uint32_t o32 = OP(ag, .op = LLMMEM__OP_MUL, .out = full32, .in = {n, w1}, .nin = 2, .saved = {n, w1}, .nsaved = 2,
                      .elem = F32);
    llmmem__ag_unref(ag, n);
    llmmem__ag_unref(ag, w1);
    uint32_t out = unary(r, LLMMEM__OP_TO, o32, full, 0);
    llmmem__ag_unref(ag, o32);
    return out;
}

/* LlamaRMSNorm.forward (modeling_llama.py): hidden_states.to(float32); variance =
 * hidden_states.pow(2).mean(-1, keepdim=True); hidden_states * torch.rsqrt(variance + eps);
 * self.weight * hidden_states.to(input_dtype) */
static uint32_t norm(run *r, uint32_t x, uint32_t w)
{
    llmmem__ag *ag = r->ag;
    const llmmem__tape_model *m = &r->job->model;
    /* the rows of x (tokens, or tokens x heads for a q/k norm) over the weight's width */
    uint64_t full = llmmem__ag_bytes(ag, x), wb = llmmem__ag_bytes(ag, w);
    if (!wb)
        return 0;
    uint64_t full32 = full / m->bytes * F32, rows = full / wb * F32;
    if (m->norm == LLMMEM__TAPE_NORM_GEMMA)
        return rmsnorm_gemma(r, x, w, full, full32, rows);
    uint32_t x32 = to(r, x, full32);
    uint32_t var;
    uint32_t y32 = normalize(r, x32, full32, rows, &var);
    llmmem__ag_unref(ag, x32);
    uint32_t yb = to(r, y32, full);
    uint32_t out = mul(r, w, yb, full, 0, 0);
    llmmem__ag_unref(ag, yb);
    llmmem__ag_unref(ag, y32);
    llmmem__ag_unref(ag, var);
    return out;
}

/* rotate_half (modeling_llama.py): torch.cat((-x2, x1), dim=-1) of the two halves x1, x2 */
static uint32_t rotate_half(run *r, uint32_t x)
{
    llmmem__ag *ag = r->ag;
    uint64_t half = llmmem__ag_bytes(ag, x) / 2;
    uint32_t x1 = OP(ag, .op = LLMMEM__OP_SLICE, .out = half, .view = 1, .in = {x}, .nin = 1);
    uint32_t x2 = OP(ag, .op = LLMMEM__OP_SLICE, .out = half, .view = 1, .in = {x}, .nin = 1);
    uint32_t n = OP(ag, .op = LLMMEM__OP_NEG, .out = half, .in = {x2}, .nin = 1);
    uint32_t c = OP(ag, .op = LLMMEM__OP_CAT2, .out = 2 * half, .in = {n, x1}, .nin = 2);
    llmmem__ag_unref(ag, n);
    llmmem__ag_unref(ag, x1);
    llmmem__ag_unref(ag, x2);
    return c;
}

/* apply_rotary_pos_emb: (x * cos) + (rotate_half(x) * sin); cos and sin have the hidden states'
 * dtype, so under autocast the products promote the 16-bit x to fp32 */
static uint32_t rope(run *r, uint32_t x, unsigned which)
{
    llmmem__ag *ag = r->ag;
    uint64_t b = llmmem__ag_bytes(ag, x), wide = b / r->act * r->job->model.bytes;
    unsigned narrow = wide > b;
    uint32_t a = mul(r, x, r->cos[which], wide, 0, narrow);
    uint32_t rot = rotate_half(r, x);
    uint32_t s = mul(r, rot, r->sin[which], wide, 0, narrow);
    llmmem__ag_unref(ag, rot);
    uint32_t o = OP(ag, .op = LLMMEM__OP_ADD, .out = wide, .in = {a, s}, .nin = 2);
    llmmem__ag_unref(ag, a);
    llmmem__ag_unref(ag, s);
    return o;
}

/* A norm applied to a block's output (Gemma's post-attention and post-feedforward norms), replacing it */
static uint32_t post_norm(run *r, uint32_t x, uint32_t w)
{
    if (!w)
        return x;
    uint32_t y = norm(r, x, w);
    llmmem__ag_unref(r->ag, x);
    return y;
}

/* proj(x).view(hidden_shape).transpose(1, 2) */
static uint32_t heads(run *r, uint32_t x)
{
    uint32_t v = OP(r->ag, .op = LLMMEM__OP_HEADS, .out = llmmem__ag_bytes(r->ag, x), .view = 1, .in = {x}, .nin = 1);
    llmmem__ag_unref(r->ag, x);
    return v;
}

/* sdpa_attention_forward (integrations/sdpa_attention.py), causal, as the cuDNN backend torch 2.11
 * runs it on an H100 (aten _scaled_dot_product_cudnn_attention): the philox seed and offset, the
 * output, the logsumexp (fp32, batch x heads x seq) and a 256-byte workspace */
static uint32_t sdpa(run *r, uint32_t q_in, uint32_t k_in, uint32_t v_in, int sliding)
{
    llmmem__ag *ag = r->ag;
    const llmmem__tape_model *m = &r->job->model;
    int bad = 0;
    uint64_t lse = mul3(ag, r->N, m->heads, F32, &bad);
    uint64_t mb = mul3(ag, r->seqs, llmmem__mul_flag(&bad, r->q, r->kv), m->bytes, &bad);
    uint64_t qe = mul3(ag, r->N, m->heads, m->head_dim, &bad);
    uint64_t kve = mul3(ag, llmmem__mul_flag(&bad, r->seqs, r->kv), m->kv_heads, m->head_dim, &bad);
    if (bad)
        return 0;
    /* autocast's copies, cast right to left (linear) */
    uint32_t v = lower(r, v_in, kve, NULL), k = lower(r, k_in, kve, NULL), q = lower(r, q_in, qe, NULL);
    int grad = llmmem__ag_requires_grad(ag, q) || llmmem__ag_requires_grad(ag, k) || llmmem__ag_requires_grad(ag, v);
    uint32_t mask = 0;
    if (sliding) {
        /* a boolean mask becomes an additive one of the query's dtype, expanded over the batch
         * (aten/src/ATen/native/transformers/attention.cpp convert_boolean_attn_mask) */
        uint32_t lo = llmmem__ag_alloc(ag, 2), neg = llmmem__ag_alloc(ag, 2);
        mask = llmmem__ag_alloc(ag, mb);
        llmmem__ag_unref(ag, lo);
        llmmem__ag_unref(ag, neg);
    }
    uint32_t seed = llmmem__ag_alloc(ag, 8), off = llmmem__ag_alloc(ag, 8);
    uint32_t o = llmmem__ag_alloc(ag, llmmem__ag_bytes(ag, q));
    uint32_t l = grad ? llmmem__ag_alloc(ag, lse) : 0; /* the logsumexp only for a backward */
    llmmem__ag_unref(ag, llmmem__ag_alloc(ag, 256));
    llmmem__ag_node(ag,
                    &(llmmem__ag_call){.op = LLMMEM__OP_SDPA_CUDNN, .in = {q, k, v}, .nin = 3,
                                       .saved = {q, k, v, o, l, seed, off, mask}, .nsaved = mask ? 8u : 7u,
                                       .arg = {lse, mask != 0}},
                    o);
    llmmem__ag_unref(ag, seed);
    llmmem__ag_unref(ag, off);
    llmmem__ag_unref(ag, l);
    llmmem__ag_unref(ag, mask);
    llmmem__ag_unref(ag, q);
    llmmem__ag_unref(ag, k);
    llmmem__ag_unref(ag, v);
    return o;
}

/* DynamicLayer.update (cache_utils.py): self.keys = torch.cat([self.keys, key_states], dim=-2) from
 * an empty tensor, a new allocation each call; DynamicSlidingWindowLayer.update: the same cat, then
 * self.keys = full_key_states[:, :, -sliding_window + 1:, :] (a view, keeping the whole cat alive
 * until the next update) and the whole cat returned; StaticLayer: torch.zeros of the whole length at
 * its first update (lazy_initialization), then index_copy_ in place. Returns the states the
 * attention reads (a reference). */
static uint32_t cache_update(run *r, uint64_t l, unsigned which, uint32_t x, int sliding)
{
    llmmem__ag *ag = r->ag;
    uint32_t *c = &r->cache[2 * l + which];
    uint64_t *len = &r->cache_len[2 * l + which];
    uint64_t xb = llmmem__ag_bytes(ag, x), per_token = xb / r->q;
    int was = llmmem__ag_component(ag, LLMMEM_COMPONENT_KV_CACHE);
    if (r->job->static_cache) {
        if (!*c)
            *c = llmmem__ag_alloc(ag, per_token * (r->job->seq + r->job->new_tokens - 1));
        llmmem__ag_component(ag, was);
        return llmmem__ag_ref(ag, *c);
    }
    uint32_t grown = llmmem__ag_alloc(ag, per_token * (*len + r->grow));
    llmmem__ag_component(ag, was);
    llmmem__ag_unref(ag, *c);
    *c = grown;
    *len += r->grow;
    if (sliding && *len > r->job->model.window - 1)
        *len = r->job->model.window - 1;
    return llmmem__ag_ref(ag, grown);
}

/* eager_attention_forward (modeling_llama.py, modeling_gemma2.py): repeat_kv, q @ k^T * scaling,
 * Gemma-2's softcap (/ cap, tanh, * cap), + the mask, softmax in fp32 cast back, dropout (p = 0:
 * the input itself), @ v, transpose(1, 2).contiguous() */
static uint32_t eager(run *r, uint32_t q, uint32_t k, uint32_t v, int sliding, uint32_t *weights_out)
{
    llmmem__ag *ag = r->ag;
    const llmmem__tape_model *m = &r->job->model;
    int bad = 0;
    uint64_t qb = llmmem__ag_bytes(ag, q);
    uint64_t sb = mul3(ag, llmmem__mul_flag(&bad, r->seqs, m->heads), llmmem__mul_flag(&bad, r->q, r->kv),
                       m->bytes, &bad);
    uint64_t s32 = sb / m->bytes * F32;
    if (bad)
        return 0;
    uint32_t kr = llmmem__ag_ref(ag, k), vr = llmmem__ag_ref(ag, v);
    if (m->heads != m->kv_heads) {
        llmmem__ag_unref(ag, kr);
        llmmem__ag_unref(ag, vr);
        kr = unary(r, LLMMEM__OP_REPEAT_KV, k, qb, 0);
        vr = unary(r, LLMMEM__OP_REPEAT_KV, v, qb, 0);
    }
    uint32_t w = OP(ag, .op = LLMMEM__OP_BMM, .out = sb, .in = {q, kr}, .nin = 2, .saved = {q, kr}, .nsaved = 2);
    uint32_t x = unary(r, LLMMEM__OP_SCALE, w, sb, 0);
    llmmem__ag_unref(ag, w);
    if (m->attn_softcap) {
        uint32_t d = unary(r, LLMMEM__OP_SCALE, x, sb, 0);
        llmmem__ag_unref(ag, x);
        uint32_t t = llmmem__ag_alloc(ag, sb);
        llmmem__ag_node(ag, &(llmmem__ag_call){.op = LLMMEM__OP_TANH, .in = {d}, .nin = 1, .saved = {t}, .nsaved = 1}, t);
        llmmem__ag_unref(ag, d);
        x = unary(r, LLMMEM__OP_SCALE, t, sb, 0);
        llmmem__ag_unref(ag, t);
    }
    uint32_t masked = OP(ag, .op = LLMMEM__OP_ADD, .out = sb, .in = {x, r->mask[sliding != 0]}, .nin = 2);
    llmmem__ag_unref(ag, x);
    uint32_t f = unary(r, LLMMEM__OP_TO, masked, s32, 0);
    uint32_t p = llmmem__ag_alloc(ag, s32); /* _softmax_backward_data uses the result */
    llmmem__ag_node(ag, &(llmmem__ag_call){.op = LLMMEM__OP_SOFTMAX, .in = {f}, .nin = 1, .saved = {p}, .nsaved = 1}, p);
    llmmem__ag_unref(ag, f);
    uint32_t pb = unary(r, LLMMEM__OP_TO, p, sb, 0);
    llmmem__ag_unref(ag, p);
    /* attn_weights = softmax(attn_weights, dtype=float32).to(query.dtype): the masked scores stay
     * referenced until the statement's result replaces them */
    llmmem__ag_unref(ag, masked);
    uint32_t o = OP(ag, .op = LLMMEM__OP_BMM, .out = qb, .in = {pb, vr}, .nin = 2, .saved = {pb, vr}, .nsaved = 2);
    *weights_out = pb; /* returned with the output: return attn_output, attn_weights */
    llmmem__ag_unref(ag, kr);
    llmmem__ag_unref(ag, vr);
    uint32_t c = unary(r, LLMMEM__OP_PASS, o, qb, 0); /* contiguous(): CloneBackward0 passes the grad */
    llmmem__ag_unref(ag, o);
    return c;
}

/* LlamaAttention.forward: q, k, v projections viewed as heads, the rotary embedding, the attention,
 * o_proj */
static uint32_t attention(run *r, layer_params *p, uint32_t x, int sliding, uint32_t *weights_out)
{
    llmmem__ag *ag = r->ag;
    uint32_t q, k, v;
    if (r->job->model.qk_norm == 2) { /* OlmoeAttention: q_norm(q_proj(x)), k_norm(k_proj(x)) over the projection */
        q = heads(r, post_norm(r, proj(r, p, LIN_Q, x), p->q_norm));
        k = heads(r, post_norm(r, proj(r, p, LIN_K, x), p->k_norm));
        v = heads(r, proj(r, p, LIN_V, x));
    } else {
        q = heads(r, proj(r, p, LIN_Q, x));
        k = heads(r, proj(r, p, LIN_K, x));
        v = heads(r, proj(r, p, LIN_V, x));
        if (p->q_norm) { /* Gemma3Attention / Qwen3Attention: q_norm and k_norm over each head */
            q = post_norm(r, q, p->q_norm);
            k = post_norm(r, k, p->k_norm);
        }
    }
    unsigned which = sliding && r->job->model.local_rope;
    uint32_t qe = rope(r, q, which), ke = rope(r, k, which);
    llmmem__ag_unref(ag, q);
    llmmem__ag_unref(ag, k);
    if (r->cache) { /* past_key_values.update: attention over the whole cache */
        uint32_t kc = cache_update(r, r->layer_index, 0, ke, sliding), vc = cache_update(r, r->layer_index, 1, v, sliding);
        llmmem__ag_unref(ag, ke);
        llmmem__ag_unref(ag, v);
        ke = kc;
        v = vc;
    }
    uint32_t a = r->job->eager ? eager(r, qe, ke, v, sliding, weights_out) : sdpa(r, qe, ke, v, sliding);
    uint32_t o = proj(r, p, LIN_O, a);
    llmmem__ag_unref(ag, a);
    /* query_states, key_states, value_states live until forward returns */
    llmmem__ag_unref(ag, qe);
    llmmem__ag_unref(ag, ke);
    llmmem__ag_unref(ag, v);
    return o;
}

/* torch.sort of n int64s (cuda/Sort.cpp sort_cuda_kernel): the sorted values (*values_out) and
 * their indices (returned); past 4096 (should_use_small_sort) SortStable.cu
 * segmented_sort_large_segments sorts with cub: a range of positions and cub's temporary storage,
 * freed as it returns */
static uint32_t sort(run *r, uint64_t n, uint32_t *values_out)
{
    llmmem__ag *ag = r->ag;
    int bad = 0;
    uint64_t n8 = llmmem__mul_flag(&bad, n, 8), tmp = llmmem__ag_sort_temp(n);
    if (bad || !tmp)
        return 0;
    *values_out = llmmem__ag_alloc(ag, n8);
    uint32_t indices = llmmem__ag_alloc(ag, n8);
    if (n > 4096) {
        uint32_t iota = llmmem__ag_alloc(ag, n8);
        llmmem__ag_unref(ag, llmmem__ag_alloc(ag, tmp));
        llmmem__ag_unref(ag, iota);
    }
    return indices;
}

/* x.masked_fill_(mask, 0.0) in place: MaskedFillBackward0 (grad.masked_fill(mask, 0), one kernel)
 * rebases x's history; x itself returned (its reference taken over) */
static uint32_t masked_fill(run *r, uint32_t x, uint32_t mask)
{
    uint32_t y = OP(r->ag, .op = LLMMEM__OP_SCALE, .out = llmmem__ag_bytes(r->ag, x), .view = 1, .in = {x}, .nin = 1,
                    .saved = {mask}, .nsaved = 1);
    llmmem__ag_unref(r->ag, x);
    return y;
}

/* torch._grouped_mm(x, w.transpose(-2, -1), offs) of out bytes: the output, then the kernel's
 * argument buffer and workspace (autograd.c) */
static uint32_t grouped_mm(run *r, uint32_t x, uint32_t w, uint32_t offs, uint64_t out)
{
    /* cuda/GroupMM.cu bf16bf16_grouped_gemm_impl_sm90_sm100: pointers to A, B and the output for
     * each group (their count rounded up to even), then a problem shape (3 int32) and three
     * 8-byte strides per group */
    uint64_t g = r->job->model.experts;
    uint64_t args = (g + 1) / 2 * 2 * 3 * 8 + g * 12 + 3 * g * 8;
    return OP(r->ag, .op = LLMMEM__OP_GROUPED_MM, .out = out, .in = {x, w}, .nin = 2, .saved = {x, w, offs},
              .nsaved = 3, .arg = {args});
}

/* OlmoeSparseMoeBlock.forward (modeling_olmoe.py) over x, the tokens as rows: the router, then the
 * experts as experts_implementation grouped_mm runs them. Every size follows tokens x top_k, none
 * the routing. */
static uint32_t moe(run *r, layer_params *p, uint32_t x)
{
    llmmem__ag *ag = r->ag;
    const llmmem__tape_model *m = &r->job->model;
    int bad = 0;
    uint64_t N = r->N, E = m->experts, H = m->hidden, a = r->act, k = m->experts_per_tok;
    uint64_t S = llmmem__mul_flag(&bad, N, k);
    uint64_t logits = mul3(ag, N, E, a, &bad), probs = mul3(ag, N, E, F32, &bad);
    uint64_t top32 = mul3(ag, N, k, F32, &bad), top = mul3(ag, N, k, a, &bad), top_i = mul3(ag, N, k, 8, &bad);
    uint64_t s8 = llmmem__mul_flag(&bad, S, 8), sh = mul3(ag, S, H, a, &bad);
    uint64_t gu_b = mul3(ag, S, 2 * m->expert_ffn, a, &bad), si = mul3(ag, S, m->expert_ffn, a, &bad);
    uint64_t nh = mul3(ag, N, H, a, &bad);
    if (bad)
        return 0;
    /* Qwen2MoeTopKRouter.forward (OlmoeTopKRouter): router_logits = F.linear(x, weight), kept to be
     * returned; their fp32 copy into softmax (SoftMax.cpp softmax with a dtype); topk of the
     * probabilities (OLMoE's norm_topk_prob is False), the values cast to the logits' dtype */
    uint32_t lg = linear(r, x, nh / a, p->router.w, 0, p->router.cast, logits);
    uint32_t l32 = unary(r, LLMMEM__OP_TO, lg, probs, 0);
    uint32_t pr = llmmem__ag_alloc(ag, probs);
    llmmem__ag_node(ag, &(llmmem__ag_call){.op = LLMMEM__OP_SOFTMAX, .in = {l32}, .nin = 1, .saved = {pr}, .nsaved = 1},
                    pr);
    llmmem__ag_unref(ag, l32);
    uint32_t tv32 = llmmem__ag_alloc(ag, top32), ti = llmmem__ag_alloc(ag, top_i);
    llmmem__ag_node(ag, &(llmmem__ag_call){.op = LLMMEM__OP_TOPK, .in = {pr}, .nin = 1, .saved = {ti}, .nsaved = 1},
                    tv32);
    llmmem__ag_unref(ag, pr); /* router_probs, a local of the router */
    uint32_t tv = unary(r, LLMMEM__OP_TO, tv32, top, 0);
    llmmem__ag_unref(ag, tv32);
    /* integrations/moe.py grouped_mm_experts_forward: expert_ids_g, perm = torch.sort(expert_ids);
     * the rows gathered by perm // top_k, the routing weights by perm; histc's counts (int32), their
     * cumsum the offsets; the sentinel mask (bool) filling the gathered rows in place */
    uint32_t ids_g = 0, perm = sort(r, S, &ids_g);
    uint32_t pk = llmmem__ag_alloc(ag, s8);
    uint32_t sel = llmmem__ag_alloc(ag, sh);
    llmmem__ag_node(ag, &(llmmem__ag_call){.op = LLMMEM__OP_INDEX, .in = {x}, .nin = 1, .saved = {pk}, .nsaved = 1,
                                           .arg = {S}}, sel);
    llmmem__ag_unref(ag, pk);
    uint32_t sw = llmmem__ag_alloc(ag, S * a);
    llmmem__ag_node(ag, &(llmmem__ag_call){.op = LLMMEM__OP_INDEX, .in = {tv}, .nin = 1, .saved = {perm}, .nsaved = 1,
                                           .arg = {S}}, sw);
    uint32_t hist_in = llmmem__ag_alloc(ag, S * 4), counts = llmmem__ag_alloc(ag, E * 4);
    uint32_t offs = llmmem__ag_alloc(ag, E * 4);
    uint32_t mask = llmmem__ag_alloc(ag, S);
    sel = masked_fill(r, sel, mask);
    /* the gate and up projections in one grouped GEMM, chunked: act_fn(gate) * up (_default_apply_gate),
     * proj_out rebound at each step */
    uint32_t gu = grouped_mm(r, sel, p->gate_up, offs, gu_b);
    uint32_t part[2];
    llmmem__ag_split(ag, gu, 2, part);
    llmmem__ag_unref(ag, gu);
    uint32_t act = unary(r, LLMMEM__OP_SILU, part[0], si, 1);
    uint32_t gated = mul(r, act, part[1], si, 0, 0);
    llmmem__ag_unref(ag, act);
    llmmem__ag_unref(ag, part[0]);
    llmmem__ag_unref(ag, part[1]);
    uint32_t down = grouped_mm(r, gated, p->down, offs, sh);
    llmmem__ag_unref(ag, gated);
    /* weighted_out = proj_out * sample_weights_g.unsqueeze(-1), the sentinels' rows filled in place;
     * inv_perm = empty_like(perm), inv_perm[perm] = arange; weighted_out[inv_perm] rebinding it */
    uint32_t wt = masked_fill(r, mul(r, down, sw, sh, 2, 0), mask);
    uint32_t inv = llmmem__ag_alloc(ag, s8);
    llmmem__ag_unref(ag, llmmem__ag_alloc(ag, s8));
    uint32_t po = llmmem__ag_alloc(ag, sh);
    llmmem__ag_node(ag, &(llmmem__ag_call){.op = LLMMEM__OP_INDEX, .in = {wt}, .nin = 1, .saved = {inv}, .nsaved = 1,
                                           .arg = {S}}, po);
    llmmem__ag_unref(ag, wt);
    /* .view(tokens, top_k, hidden).sum(dim=1); .to(the input's dtype) is that sum */
    uint32_t out = OP(ag, .op = LLMMEM__OP_SUM, .out = nh, .in = {po}, .nin = 1);
    /* the locals as the function returns, in the order they were bound; then the block's: the
     * router's logits (bound to `_`), top_k_weights, top_k_index */
    const uint32_t locals[] = {ids_g, perm, sel, sw, hist_in, counts, offs, mask, down, po, inv, lg, tv, ti};
    for (size_t i = 0; i < sizeof locals / sizeof *locals; i++)
        llmmem__ag_unref(ag, locals[i]);
    return out;
}

/* LlamaMLP.forward: down_proj(act_fn(gate_proj(x)) * up_proj(x)); the activation silu, or Gemma's
 * gelu_pytorch_tanh (activations.py PytorchGELUTanh: gelu(approximate="tanh")); OLMoE's sparse block */
static uint32_t mlp(run *r, layer_params *p, uint32_t x)
{
    llmmem__ag *ag = r->ag;
    const llmmem__tape_model *m = &r->job->model;
    if (m->experts)
        return moe(r, p, x);
    int bad = 0;
    uint64_t fb = mul3(ag, r->N, m->ffn, r->act, &bad);
    if (bad)
        return 0;
    uint32_t g = proj(r, p, LIN_GATE, x);
    uint32_t act = unary(r, m->gelu_tanh ? LLMMEM__OP_GELU_TANH : LLMMEM__OP_SILU, g, fb, 1);
    llmmem__ag_unref(ag, g);
    uint32_t u = proj(r, p, LIN_UP, x);
    uint32_t prod = mul(r, act, u, fb, 0, 0);
    llmmem__ag_unref(ag, act);
    llmmem__ag_unref(ag, u);
    uint32_t d = proj(r, p, LIN_DOWN, prod);
    llmmem__ag_unref(ag, prod);
    return d;
}


/* residual + y: under autocast a 16-bit y promoted to the fp32 residual */
static uint32_t residual(run *r, uint32_t x, uint32_t y)
{
    uint64_t hb = llmmem__ag_bytes(r->ag, x);
    return OP(r->ag, .op = LLMMEM__OP_ADD, .out = hb, .in = {x, y}, .nin = 2,
              .narrow = llmmem__ag_bytes(r->ag, y) < hb ? 2u : 0u);
}

/* LlamaDecoderLayer.forward, Gemma2DecoderLayer.forward: the residual around the attention and the
 * MLP, each after its norm (and, with four norms, before the residual too) */
static uint32_t decoder_layer(run *r, uint64_t l, uint32_t x)
{
    llmmem__ag *ag = r->ag;
    const llmmem__tape_model *m = &r->job->model;
    layer_params *p = &r->layer[l];
    int four = m->norms == 4;
    uint32_t h1 = norm(r, x, p->norm[0]);
    /* layer_types: every sliding_period-th layer attends to all, the others within the window */
    /* hidden_states, _ = self.self_attn(...): `_` keeps eager attention's weights to the layer's end */
    uint32_t weights = 0;
    uint32_t a = attention(r, p, h1, m->sliding_period && (l + 1) % m->sliding_period != 0, &weights);
    llmmem__ag_unref(ag, h1);
    a = post_norm(r, a, four ? p->norm[1] : 0);
    uint32_t r1 = residual(r, x, a);
    llmmem__ag_unref(ag, a);
    uint32_t h2 = norm(r, r1, p->norm[four ? 2 : 1]);
    uint32_t d = mlp(r, p, h2);
    llmmem__ag_unref(ag, h2);
    d = post_norm(r, d, four ? p->norm[3] : 0);
    uint32_t r2 = residual(r, r1, d);
    llmmem__ag_unref(ag, d);
    llmmem__ag_unref(ag, r1);
    llmmem__ag_unref(ag, weights);
    return r2;
}

/* native_dropout (nn.Dropout in training): the mask (one byte an element), then the output */
static uint32_t dropout(run *r, uint32_t x)
{
    llmmem__ag *ag = r->ag;
    uint64_t b = llmmem__ag_bytes(ag, x);
    uint32_t mask = llmmem__ag_alloc(ag, b / r->job->model.bytes);
    uint32_t y = llmmem__ag_alloc(ag, b);
    llmmem__ag_node(ag, &(llmmem__ag_call){.op = LLMMEM__OP_DROPOUT, .in = {x}, .nin = 1, .saved = {mask}, .nsaved = 1},
                    y);
    llmmem__ag_unref(ag, mask);
    return y;
}

/* a dropout replacing its input, when the model's dropout is active */
static uint32_t dropped(run *r, uint32_t x)
{
    if (!r->job->model.dropout)
        return x;
    uint32_t y = dropout(r, x);
    llmmem__ag_unref(r->ag, x);
    return y;
}

/* nn.LayerNorm: native_layer_norm's output, mean and rstd (fp32 per row) */
static uint32_t layernorm(run *r, uint32_t x, uint32_t w, uint32_t b)
{
    llmmem__ag *ag = r->ag;
    uint64_t rows = llmmem__ag_bytes(ag, x) / llmmem__ag_bytes(ag, w) * F32;
    uint32_t y = llmmem__ag_alloc(ag, llmmem__ag_bytes(ag, x));
    uint32_t mean = llmmem__ag_alloc(ag, rows), rstd = llmmem__ag_alloc(ag, rows);
    llmmem__ag_node(ag,
                    &(llmmem__ag_call){.op = LLMMEM__OP_LAYERNORM, .in = {x, w, b}, .nin = 3,
                                       .saved = {x, w, b, mean, rstd}, .nsaved = 5},
                    y);
    llmmem__ag_unref(ag, mean);
    llmmem__ag_unref(ag, rstd);
    return y;
}

/* NewGELUActivation (activations.py), op by op: 0.5 * x * (1.0 + tanh(sqrt(2 / pi) * (x + 0.044715 *
 * pow(x, 3.0)))) */
static uint32_t gelu_new(run *r, uint32_t x)
{
    llmmem__ag *ag = r->ag;
    uint64_t b = llmmem__ag_bytes(ag, x);
    uint32_t half = unary(r, LLMMEM__OP_SCALE, x, b, 0);
    uint32_t cube = unary(r, LLMMEM__OP_POW2, x, b, 1); /* pow_backward's three kernels, as for pow(2) */
    uint32_t c = unary(r, LLMMEM__OP_SCALE, cube, b, 0);
    llmmem__ag_unref(ag, cube);
    uint32_t sum = OP(ag, .op = LLMMEM__OP_ADD, .out = b, .in = {x, c}, .nin = 2);
    llmmem__ag_unref(ag, c);
    uint32_t u = unary(r, LLMMEM__OP_SCALE, sum, b, 0);
    llmmem__ag_unref(ag, sum);
    uint32_t t = llmmem__ag_alloc(ag, b);
    llmmem__ag_node(ag, &(llmmem__ag_call){.op = LLMMEM__OP_TANH, .in = {u}, .nin = 1, .saved = {t}, .nsaved = 1}, t);
    llmmem__ag_unref(ag, u);
    uint32_t t1 = unary(r, LLMMEM__OP_PASS, t, b, 0);
    llmmem__ag_unref(ag, t);
    uint32_t y = mul(r, half, t1, b, 0, 0);
    llmmem__ag_unref(ag, half);
    llmmem__ag_unref(ag, t1);
    return y;
}

/* GPT2Block.forward (modeling_gpt2.py): ln_1, GPT2Attention (c_attn split into q, k, v heads, SDPA
 * with attn_pdrop, c_proj, resid_dropout), the residual, ln_2, GPT2MLP (c_fc, gelu_new, c_proj,
 * dropout), the residual */
static uint32_t gpt2_block(run *r, uint64_t l, uint32_t x)
{
    llmmem__ag *ag = r->ag;
    layer_params *p = &r->layer[l];
    uint64_t hb = llmmem__ag_bytes(ag, x);
    /* hidden_states = self.ln_1(hidden_states): the variable keeps it until the residual's sum */
    uint32_t h = layernorm(r, x, p->norm[0], p->norm_bias[0]);
    uint32_t qkv = proj(r, p, LIN_Q, h);
    uint32_t part[3];
    llmmem__ag_split(ag, qkv, 3, part);
    llmmem__ag_unref(ag, qkv);
    uint32_t q = heads(r, part[0]), k = heads(r, part[1]), v = heads(r, part[2]);
    if (r->cache) {
        uint32_t kc = cache_update(r, l, 0, k, 0), vc = cache_update(r, l, 1, v, 0);
        llmmem__ag_unref(ag, k);
        llmmem__ag_unref(ag, v);
        k = kc;
        v = vc;
    }
    uint32_t a = sdpa(r, q, k, v, 0);
    uint32_t o = dropped(r, proj(r, p, LIN_O, a));
    llmmem__ag_unref(ag, a);
    llmmem__ag_unref(ag, q);
    llmmem__ag_unref(ag, k);
    llmmem__ag_unref(ag, v);
    uint32_t r1 = OP(ag, .op = LLMMEM__OP_ADD, .out = hb, .in = {o, x}, .nin = 2);
    llmmem__ag_unref(ag, o);
    llmmem__ag_unref(ag, h);
    h = layernorm(r, r1, p->norm[1], p->norm_bias[1]);
    uint32_t f = proj(r, p, LIN_UP, h);
    uint32_t g = gelu_new(r, f);
    llmmem__ag_unref(ag, f);
    uint32_t d = dropped(r, proj(r, p, LIN_DOWN, g));
    llmmem__ag_unref(ag, g);
    uint32_t r2 = OP(ag, .op = LLMMEM__OP_ADD, .out = hb, .in = {r1, d}, .nin = 2);
    llmmem__ag_unref(ag, d);
    llmmem__ag_unref(ag, h);
    llmmem__ag_unref(ag, r1);
    return r2;
}

static uint32_t layer_forward(run *r, uint64_t l, uint32_t x)
{
    r->layer_index = l;
    return r->job->model.family == LLMMEM__TAPE_GPT2 ? gpt2_block(r, l, x) : decoder_layer(r, l, x);
}

static uint32_t rerun(void *ctx, llmmem__ag *ag, uint64_t piece, uint32_t x)
{
    (void)ag;
    uint32_t y = layer_forward(ctx, piece, x);
    mark(ctx, LLMMEM__TAPE_RECOMPUTE, piece);
    return y;
}

/* GradientCheckpointingLayer.__call__ with transformers' default gradient_checkpointing_enable():
 * torch.utils.checkpoint reentrant (CheckpointFunction): the forward under no_grad, its inputs saved
 * (the hidden states and the rotary embedding) */
static uint32_t checkpointed(run *r, uint64_t l, uint32_t x)
{
    llmmem__ag *ag = r->ag;
    llmmem__ag_grad_mode(ag, 0);
    uint32_t y = layer_forward(r, l, x);
    llmmem__ag_grad_mode(ag, 1);
    llmmem__ag_node(ag,
                    &(llmmem__ag_call){.op = LLMMEM__OP_CHECKPOINT, .in = {x}, .nin = 1, .saved = {x, r->cos[0], r->sin[0], r->cos[1], r->sin[1], r->mask[0], r->mask[1]},
                                       .nsaved = 7, .arg = {l}},
                    y);
    return y;
}

/* The model's parameters in the order nn.Module registers them (LlamaForCausalLM.__init__):
 * embed_tokens, each layer's attention (q, k, v, o), MLP (gate, up, down) and two norms, the final
 * norm, the rotary inv_freq buffer, lm_head (made, then replaced by the tied embedding) */
static uint32_t weight(run *r, uint64_t bytes)
{
    return r->job->lora_rank ? llmmem__ag_alloc(r->ag, bytes) : llmmem__ag_param(r->ag, bytes);
}

/* GPT2LMHeadModel.__init__: wte, wpe, each block's ln_1, attn (c_attn, c_proj), ln_2, mlp (c_fc,
 * c_proj) with biases, ln_f, the tied head */
static void build_gpt2(run *r)
{
    llmmem__ag *ag = r->ag;
    const llmmem__tape_model *m = &r->job->model;
    int bad = 0;
    uint64_t e = mul3(ag, m->vocab, m->hidden, m->bytes, &bad), pe = mul3(ag, m->positions, m->hidden, m->bytes, &bad);
    (void)mul3(ag, m->hidden, m->ffn, m->bytes, &bad);
    (void)mul3(ag, m->hidden, 3 * m->hidden, m->bytes, &bad);
    if (bad)
        return;
    r->embed = weight(r, e);
    r->wpe = weight(r, pe);
    const struct {
        unsigned lin;
        uint64_t in, out;
    } order[] = {{LIN_Q, m->hidden, 3 * m->hidden}, {LIN_O, m->hidden, m->hidden},
                 {LIN_UP, m->hidden, m->ffn},       {LIN_DOWN, m->ffn, m->hidden}};
    for (uint64_t l = 0; l < m->layers; l++) {
        layer_params *p = &r->layer[l];
        for (unsigned i = 0; i < 4; i++) {
            if (i == 0 || i == 2) {
                p->norm[i / 2] = weight(r, m->hidden * m->bytes);
                p->norm_bias[i / 2] = weight(r, m->hidden * m->bytes);
            }
            linear_params *L = &p->lin[order[i].lin];
            L->in = order[i].in;
            L->out = order[i].out;
            L->w = weight(r, L->in * L->out * m->bytes);
            L->bias = weight(r, L->out * m->bytes);
        }
    }
    r->norm = weight(r, m->hidden * m->bytes);
    r->norm_bias = weight(r, m->hidden * m->bytes);
    llmmem__ag_unref(ag, llmmem__ag_alloc(ag, e)); /* lm_head, replaced by the tied wte */
    r->head = r->embed;
}

static void build(run *r)
{
    if (r->job->model.family == LLMMEM__TAPE_GPT2) {
        build_gpt2(r);
        return;
    }
    llmmem__ag *ag = r->ag;
    const llmmem__tape_model *m = &r->job->model;
    const uint64_t q = m->heads * m->head_dim, kv = m->kv_heads * m->head_dim;
    const uint64_t shape[LINEARS][2] = {{m->hidden, q},      {m->hidden, kv},     {m->hidden, kv}, {q, m->hidden},
                                        {m->hidden, m->ffn}, {m->hidden, m->ffn}, {m->ffn, m->hidden}};
    int bad = 0;
    uint64_t e = mul3(ag, m->vocab, m->hidden, m->bytes, &bad);
    for (unsigned i = 0; i < LINEARS; i++)
        (void)mul3(ag, shape[i][0], shape[i][1], m->bytes, &bad);
    /* OlmoeExperts (MixtralExperts.__init__): gate_up_proj (experts, 2 x ffn, hidden), down_proj
     * (experts, hidden, ffn); the router's weight (experts, hidden) */
    uint64_t gate_up = mul3(ag, llmmem__mul_flag(&bad, m->experts, 2 * m->expert_ffn), m->hidden, m->bytes, &bad);
    uint64_t down = mul3(ag, llmmem__mul_flag(&bad, m->experts, m->expert_ffn), m->hidden, m->bytes, &bad);
    uint64_t router = mul3(ag, m->experts, m->hidden, m->bytes, &bad);
    if (bad)
        return;
    r->embed = weight(r, e);
    if (m->embed_scale) /* Gemma2Model.__init__: the normalizer buffer, hidden_size ** 0.5 in the dtype */
        r->normalizer = llmmem__ag_alloc(ag, m->bytes);
    for (uint64_t l = 0; l < m->layers; l++) {
        layer_params *p = &r->layer[l];
        for (unsigned i = 0; i < LINEARS; i++) {
            if (i >= LIN_GATE && m->experts)
                break;
            linear_params *L = &p->lin[i];
            L->in = shape[i][0];
            L->out = shape[i][1];
            L->w = weight(r, L->in * L->out * m->bytes);
            if (m->qkv_bias && i <= LIN_V)
                L->bias = weight(r, L->out * m->bytes);
            if (i == LIN_O && m->qk_norm) { /* the attention's q_norm and k_norm follow o_proj */
                p->q_norm = weight(r, (m->qk_norm == 2 ? q : m->head_dim) * m->bytes);
                p->k_norm = weight(r, (m->qk_norm == 2 ? kv : m->head_dim) * m->bytes);
            }
        }
        if (m->experts) { /* OlmoeSparseMoeBlock.__init__: the router (gate), then the experts */
            p->router.in = m->hidden;
            p->router.out = m->experts;
            p->router.w = weight(r, router);
            p->gate_up = weight(r, gate_up);
            p->down = weight(r, down);
        }
        for (unsigned i = 0; i < m->norms; i++)
            p->norm[i] = weight(r, m->hidden * m->bytes);
    }
    r->norm = weight(r, m->hidden * m->bytes);
    llmmem__ag_alloc(ag, m->head_dim / 2 * F32); /* inv_freq, kept */
    if (m->tied) {
        /* PreTrainedModel.tie_weights: the head made in __init__ is replaced by the embedding */
        llmmem__ag_unref(ag, llmmem__ag_alloc(ag, e));
        r->head = r->embed;
    } else
        r->head = weight(r, e);
    /* peft.get_peft_model: each target's lora_A (rank x in) and lora_B (out x rank), in module order,
     * made in the adapters' dtype and moved to the base layer's device
     * (tuners_utils.py _move_adapter_to_device_of_base_layer) */
    const llmmem__tape_job *j = r->job;
    for (uint64_t l = 0; j->lora_rank && l < m->layers; l++)
        for (unsigned i = 0; i < LINEARS; i++) {
            linear_params *L = &r->layer[l].lin[i];
            if (!(j->lora_targets >> i & 1))
                continue;
            L->lora_a = llmmem__ag_param(ag, j->lora_rank * L->in * j->lora_bytes);
            L->lora_b = llmmem__ag_param(ag, L->out * j->lora_rank * j->lora_bytes);
        }
}

/* masking_utils.create_causal_mask and create_sliding_window_causal_mask: the boolean seq x seq
 * mask the mask functions make (and_mask makes three for a window); eager attention gets
 * eager_mask's (batch, 1, seq, seq) additive mask in the model's dtype, SDPA the boolean mask of a
 * window (a causal one is is_causal instead, sdpa_mask's skip), both kept for the forward */
static void masks(run *r)
{
    llmmem__ag *ag = r->ag;
    const llmmem__tape_model *m = &r->job->model;
    int bad = 0;
    uint64_t ss = llmmem__mul_flag(&bad, r->q, r->kv);
    uint64_t mb = mul3(ag, r->seqs, ss, m->bytes, &bad);
    if (bad)
        return;
    for (unsigned w = 0; w <= (m->sliding_period != 0); w++) {
        if (!r->job->eager && !w)
            continue;
        unsigned temps = w ? 3 : 1;
        for (unsigned i = 0; i + (r->job->eager ? 0 : 1) < temps; i++)
            llmmem__ag_unref(ag, llmmem__ag_alloc(ag, ss));
        r->mask[w] = llmmem__ag_alloc(ag, r->job->eager ? mb : ss);
    }
}

/* The rotary embedding's forward under no_grad (LlamaRotaryEmbedding.forward): the positions and
 * frequencies in fp32, cos and sin scaled, cast to the model's dtype */
static void rotary(run *r, unsigned which)
{
    llmmem__ag *ag = r->ag;
    const llmmem__tape_model *m = &r->job->model;
    int bad = 0;
    uint64_t s = llmmem__mul_flag(&bad, r->pos_rows, r->q);
    uint64_t rot32 = mul3(ag, s, m->head_dim, F32, &bad), rot = mul3(ag, s, m->head_dim, m->bytes, &bad);
    if (bad)
        return;
    uint32_t pos = llmmem__ag_alloc(ag, s * F32), freqs = llmmem__ag_alloc(ag, rot32 / 2);
    uint32_t emb = llmmem__ag_alloc(ag, rot32);
    uint32_t c = llmmem__ag_alloc(ag, rot32), cs = llmmem__ag_alloc(ag, rot32);
    llmmem__ag_unref(ag, c);
    uint32_t sn = llmmem__ag_alloc(ag, rot32), ss = llmmem__ag_alloc(ag, rot32);
    llmmem__ag_unref(ag, sn);
    r->cos[which] = llmmem__ag_alloc(ag, rot);
    r->sin[which] = llmmem__ag_alloc(ag, rot);
    llmmem__ag_unref(ag, pos);
    llmmem__ag_unref(ag, freqs);
    llmmem__ag_unref(ag, emb);
    llmmem__ag_unref(ag, cs);
    llmmem__ag_unref(ag, ss);
}

/* LlamaModel.forward: the embedding, cache_position and position_ids, the rotary embedding (fp32,
 * then cast), the layers, the final norm; LlamaForCausalLM: the head over every position, then
 * ForCausalLMLoss (loss_utils.py): logits.float(), labels padded and shifted, cross_entropy with
 * reduction sum */
/* The model up to its head: the embeddings (and GPT-2's positions), the masks and the rotary
 * embedding, the layers, the final norm; returns the normed hidden states of every position. */
static uint32_t model_forward(run *r)
{
    llmmem__ag *ag = r->ag;
    const llmmem__tape_model *m = &r->job->model;
    uint64_t N = r->N, s = r->q;
    int bad = 0;
    uint64_t hb = mul3(ag, N, m->hidden, m->bytes, &bad);
    uint64_t pos = llmmem__mul_flag(&bad, llmmem__mul_flag(&bad, r->pos_rows, s), 8);
    if (bad)
        return 0;
    uint32_t x = llmmem__ag_alloc(ag, hb);
    llmmem__ag_node(ag,
                    &(llmmem__ag_call){.op = LLMMEM__OP_EMBED, .in = {r->embed}, .nin = 1, .saved = {r->ids},
                                       .nsaved = 1, .arg = {N, m->hidden * F32}},
                    x);
    if (r->job->input_grads) /* PreTrainedModel.enable_input_require_grads: a hook makes the embedding's output require grad */
        llmmem__ag_make_leaf(ag, x);
    /* LlamaModel.forward: hidden_states = inputs_embeds, the variable keeping the embedding alive
     * through the forward; Gemma's scaled copy replaces it (hidden_states = inputs_embeds * normalizer) */
    uint32_t inputs_embeds = llmmem__ag_ref(ag, x);
    if (m->embed_scale) {
        uint32_t scaled = unary(r, LLMMEM__OP_SCALE, x, hb, 0);
        llmmem__ag_unref(ag, x);
        llmmem__ag_unref(ag, inputs_embeds);
        inputs_embeds = 0;
        x = scaled;
    }
    uint32_t cache_position = llmmem__ag_alloc(ag, s * 8), position_ids = llmmem__ag_alloc(ag, pos);
    llmmem__ag_unref(ag, cache_position);
    uint32_t position_embeds = 0;
    if (r->wpe) {
        /* GPT2Model.forward: inputs_embeds + wpe(position_ids), then the embedding dropout */
        uint64_t pb = mul3(ag, llmmem__mul_flag(&bad, r->pos_rows, s), m->hidden, m->bytes, &bad);
        position_embeds = llmmem__ag_alloc(ag, pb);
        llmmem__ag_node(ag,
                        &(llmmem__ag_call){.op = LLMMEM__OP_EMBED, .in = {r->wpe}, .nin = 1, .saved = {position_ids},
                                           .nsaved = 1, .arg = {s, m->hidden * F32}},
                        position_embeds);
        uint32_t sum = OP(ag, .op = LLMMEM__OP_ADD, .out = hb, .in = {x, position_embeds}, .nin = 2);
        llmmem__ag_unref(ag, x);
        x = dropped(r, sum);
    }
    masks(r);
    if (!r->wpe)
        rotary(r, 0);
    if (m->local_rope) /* Gemma3TextModel: rotary_emb_local for the sliding layers */
        rotary(r, 1);
    for (uint64_t l = 0; l < m->layers; l++) {
        uint32_t y = r->job->checkpoint ? checkpointed(r, l, x) : layer_forward(r, l, x);
        llmmem__ag_unref(ag, x);
        x = y;
        mark(r, r->cache ? LLMMEM__TAPE_GEN_LAYER : LLMMEM__TAPE_LAYER, l);
    }
    uint32_t hn = r->norm_bias ? layernorm(r, x, r->norm, r->norm_bias) : norm(r, x, r->norm);
    llmmem__ag_unref(ag, x);
    llmmem__ag_unref(ag, inputs_embeds);
    llmmem__ag_unref(ag, position_embeds);
    for (unsigned i = 0; i < 2; i++) {
        llmmem__ag_unref(ag, r->cos[i]);
        llmmem__ag_unref(ag, r->sin[i]);
        llmmem__ag_unref(ag, r->mask[i]);
        r->cos[i] = r->sin[i] = r->mask[i] = 0;
    }
    llmmem__ag_unref(ag, position_ids);
    return hn;
}

/* lm_head over `rows` positions of hn (Gemma-2: then final_logit_softcapping: / cap, tanh, * cap) */
static uint32_t head(run *r, uint32_t hn, uint64_t rows)
{
    llmmem__ag *ag = r->ag;
    const llmmem__tape_model *m = &r->job->model;
    int bad = 0;
    uint64_t lb = mul3(ag, rows, m->vocab, r->act, &bad), x_elems = llmmem__mul_flag(&bad, rows, m->hidden);
    if (bad)
        return 0;
    uint32_t logits = linear(r, hn, x_elems, r->head, 0, r->head_cast, lb);
    if (m->final_softcap) {
        uint32_t div = unary(r, LLMMEM__OP_SCALE, logits, lb, 0);
        llmmem__ag_unref(ag, logits);
        uint32_t t = llmmem__ag_alloc(ag, lb);
        llmmem__ag_node(ag, &(llmmem__ag_call){.op = LLMMEM__OP_TANH, .in = {div}, .nin = 1, .saved = {t}, .nsaved = 1}, t);
        llmmem__ag_unref(ag, div);
        logits = unary(r, LLMMEM__OP_SCALE, t, lb, 0);
        llmmem__ag_unref(ag, t);
    }
    return logits;
}

/* LlamaForCausalLM.forward with labels: the head over every position, then ForCausalLMLoss
 * (loss_utils.py): logits.float(), labels padded and shifted, cross_entropy with reduction sum */
static uint32_t forward_loss(run *r)
{
    llmmem__ag *ag = r->ag;
    const llmmem__tape_model *m = &r->job->model;
    uint64_t N = r->N, s = r->q;
    int bad = 0;
    uint64_t l32 = mul3(ag, N, m->vocab, F32, &bad);
    if (bad)
        return 0;
    uint32_t hn = model_forward(r);
    llmmem__ag_component(ag, LLMMEM_COMPONENT_LOGITS); /* the head, the loss and their backward */
    uint32_t logits = head(r, hn, N);
    llmmem__ag_unref(ag, hn);
    uint32_t lf = unary(r, LLMMEM__OP_TO, logits, l32, 0);
    uint32_t padded = llmmem__ag_alloc(ag, r->seqs * (s + 1) * 8);
    uint32_t labels = llmmem__ag_alloc(ag, N * 8);
    llmmem__ag_unref(ag, padded);
    /* log_softmax saves its result */
    uint32_t ls = llmmem__ag_alloc(ag, l32);
    llmmem__ag_node(ag, &(llmmem__ag_call){.op = LLMMEM__OP_LOGSOFTMAX, .in = {lf}, .nin = 1, .saved = {ls}, .nsaved = 1},
                    ls);
    uint32_t total_weight = llmmem__ag_alloc(ag, 4);
    uint32_t loss = OP(ag, .op = LLMMEM__OP_NLL, .out = 4, .in = {ls}, .nin = 1, .saved = {labels, total_weight},
                       .nsaved = 2, .arg = {l32});
    llmmem__ag_unref(ag, total_weight);
    llmmem__ag_unref(ag, labels);
    llmmem__ag_unref(ag, lf);
    llmmem__ag_unref(ag, ls);
    autocast_exit(r); /* the forward ran in `with torch.autocast(...)` */
    llmmem__ag_unref(ag, logits); /* the Trainer drops the outputs */
    llmmem__ag_component(ag, LLMMEM_COMPONENT_ACTIVATIONS);
    mark(r, LLMMEM__TAPE_LOSS, 0);
    return loss;
}

/* The forward's shape: `seqs` sequences of `q` new tokens attending to `kv` keys. */
static void set_shape(run *r, uint64_t seqs, uint64_t q, uint64_t kv)
{
    r->seqs = seqs;
    r->q = q;
    r->kv = kv;
    r->grow = q;
    r->N = seqs * q;
}

/* GenerationMixin.generate (generation/utils.py): the prefill of the prompt, then one token per step.
 * Greedy (_sample): each step keeps its fp32 next_token_logits until the next, and grows input_ids
 * and the attention mask by one column. Beam search (_beam_search, num_beams k): the inputs
 * expanded to batch x k sequences (_expand_inputs_for_generation), each step's fp32 logits and
 * log_softmax plus the running scores, and the cache reordered layer by layer
 * (DynamicLayer.reorder_cache: index_select, a copy of each layer's keys and values) */
static void generate(run *r)
{
    llmmem__ag *ag = r->ag;
    const llmmem__tape_job *j = r->job;
    const llmmem__tape_model *m = &j->model;
    uint64_t k = j->beams > 1 ? j->beams : 1, b = j->batch * k, s = j->seq;
    int bad = 0;
    uint64_t l32 = mul3(ag, b, m->vocab, F32, &bad);
    if (bad)
        return;
    r->pos_rows = b;
    uint32_t ids = llmmem__ag_alloc(ag, b * s * 8), mask = llmmem__ag_alloc(ag, b * s * 8);
    uint32_t next_logits = 0, scores = 0;
    /* decode steps 1 .. last; with a stride, every stride-th stands for those before it (the cache
     * and the ids grow by the stride at once), the last always replayed */
    uint64_t last = j->new_tokens ? j->new_tokens - 1 : 0, stride = j->decode_stride ? j->decode_stride : 1;
    for (uint64_t t = 0, prev = 0; j->new_tokens && llmmem__ag_status(ag) == LLMMEM_OK;
         prev = t, t = t ? (last - t > stride ? t + stride : last) : 1) {
        r->step = (unsigned)t;
        set_shape(r, b, t ? 1 : s, s + t);
        if (t)
            r->grow = t - prev;
        uint32_t hn = model_forward(r);
        /* logits_to_keep=1: the head over the last position */
        llmmem__ag_component(ag, LLMMEM_COMPONENT_LOGITS);
        uint32_t logits = head(r, hn, b);
        llmmem__ag_unref(ag, hn);
        uint32_t nl = llmmem__ag_alloc(ag, l32); /* outputs.logits[:, -1, :].to(copy=True, dtype=float32) */
        llmmem__ag_unref(ag, next_logits);
        next_logits = nl;
        llmmem__ag_unref(ag, logits);
        if (k > 1) {
            /* log_probs = log_softmax(logits); log_probs = log_probs + running_beam_scores[:, :, None] */
            uint32_t lp = llmmem__ag_alloc(ag, l32), sum = llmmem__ag_alloc(ag, l32);
            llmmem__ag_unref(ag, lp);
            llmmem__ag_unref(ag, scores);
            scores = sum;
            llmmem__ag_component(ag, LLMMEM_COMPONENT_KV_CACHE);
            for (uint64_t l = 0; l < 2 * m->layers; l++) {
                uint32_t moved = llmmem__ag_alloc(ag, llmmem__ag_bytes(ag, r->cache[l]));
                llmmem__ag_unref(ag, r->cache[l]);
                r->cache[l] = moved;
            }
        }
        llmmem__ag_component(ag, LLMMEM_COMPONENT_ACTIVATIONS);
        if (k <= 1) {
            uint32_t grown = llmmem__ag_alloc(ag, b * (s + t + 1) * 8); /* torch.cat([input_ids, next_tokens]) */
            llmmem__ag_unref(ag, ids);
            ids = grown;
        }
        uint32_t grown = llmmem__ag_alloc(ag, b * (s + t + 1) * 8); /* _update_model_kwargs_for_generation: the mask */
        llmmem__ag_unref(ag, mask);
        mask = grown;
        mark(r, LLMMEM__TAPE_STEP, t);
        if (t == last)
            break;
    }
    llmmem__ag_unref(ag, scores);
    llmmem__ag_unref(ag, next_logits);
    llmmem__ag_unref(ag, mask);
    for (uint64_t i = 0; i < 2 * m->layers; i++)
        llmmem__ag_unref(ag, r->cache[i]);
    llmmem__ag_unref(ag, ids);
}

/* The trained parameters in model.parameters() order: every weight, or PEFT's adapters alone. */
static unsigned params(const run *r, uint32_t *out)
{
    unsigned n = 0;
    if (r->job->lora_rank) {
        for (uint64_t l = 0; l < r->job->model.layers; l++)
            for (unsigned i = 0; i < LINEARS; i++)
                if (r->layer[l].lin[i].lora_a) {
                    out[n++] = r->layer[l].lin[i].lora_a;
                    out[n++] = r->layer[l].lin[i].lora_b;
                }
        return n;
    }
    out[n++] = r->embed;
    if (r->job->model.family == LLMMEM__TAPE_GPT2) {
        out[n++] = r->wpe;
        for (uint64_t l = 0; l < r->job->model.layers; l++) {
            const layer_params *p = &r->layer[l];
            const unsigned order[] = {LIN_Q, LIN_O, LIN_UP, LIN_DOWN};
            for (unsigned i = 0; i < 4; i++) {
                if (i == 0 || i == 2) {
                    out[n++] = p->norm[i / 2];
                    out[n++] = p->norm_bias[i / 2];
                }
                out[n++] = p->lin[order[i]].w;
                out[n++] = p->lin[order[i]].bias;
            }
        }
        out[n++] = r->norm;
        out[n++] = r->norm_bias;
        return n;
    }
    for (uint64_t l = 0; l < r->job->model.layers; l++) {
        const layer_params *p = &r->layer[l];
        for (unsigned i = 0; i < LINEARS && p->lin[i].w; i++) {
            out[n++] = p->lin[i].w;
            if (p->lin[i].bias)
                out[n++] = p->lin[i].bias;
            if (i == LIN_O && p->q_norm) {
                out[n++] = p->q_norm;
                out[n++] = p->k_norm;
            }
        }
        if (p->router.w) {
            out[n++] = p->router.w;
            out[n++] = p->gate_up;
            out[n++] = p->down;
        }
        for (unsigned i = 0; i < r->job->model.norms; i++)
            out[n++] = p->norm[i];
    }
    out[n++] = r->norm;
    if (r->head != r->embed)
        out[n++] = r->head;
    return n;
}

/* torch.optim.AdamW.step (torch/optim/adamw.py → adam.py): the first step's _init_group makes
 * exp_avg and exp_avg_sq (zeros_like) per parameter (fused: a step tensor on the device too);
 * _multi_tensor_adam: _foreach_sqrt(exp_avg_sqs) makes one temporary per parameter, freed when the
 * step returns; _single_tensor_adam: exp_avg_sq.sqrt() / bias_correction2_sqrt per parameter, one
 * at a time; _fused_adam: none */
static void optimizer_step(run *r, const uint32_t *p, unsigned n, uint32_t *state)
{
    llmmem__ag *ag = r->ag;
    llmmem__ag_component(ag, LLMMEM_COMPONENT_OPTIMIZER_STATES);
    if (r->job->optimizer == LLMMEM__TAPE_SGD_MOMENTUM) {
        /* torch/optim/sgd.py _multi_tensor_sgd: the first step's momentum buffers are
         * torch.clone(grad).detach(); later ones are updated in place */
        if (!state[0])
            for (unsigned i = 0; i < n; i++)
                state[3 * i] = llmmem__ag_alloc(ag, llmmem__ag_bytes(ag, p[i]));
        return;
    }
    if (!state[0])
        for (unsigned i = 0; i < n; i++) {
            uint64_t b = llmmem__ag_bytes(ag, p[i]);
            state[3 * i] = llmmem__ag_alloc(ag, b);
            state[3 * i + 1] = llmmem__ag_alloc(ag, b);
            if (r->job->optimizer == LLMMEM__TAPE_ADAMW_FUSED)
                state[3 * i + 2] = llmmem__ag_alloc(ag, 4);
        }
    llmmem__ag_component(ag, LLMMEM_COMPONENT_OPTIMIZER_TEMPORARIES);
    if (r->job->optimizer == LLMMEM__TAPE_ADAMW_FOREACH) {
        uint32_t *tmp = state + 3 * (size_t)n;
        for (unsigned i = 0; i < n; i++)
            tmp[i] = llmmem__ag_alloc(ag, llmmem__ag_bytes(ag, p[i]));
        for (unsigned i = 0; i < n; i++)
            llmmem__ag_unref(ag, tmp[i]);
    } else if (r->job->optimizer == LLMMEM__TAPE_ADAMW_FOR_LOOP) {
        for (unsigned i = 0; i < n; i++) {
            uint64_t b = llmmem__ag_bytes(ag, p[i]);
            uint32_t s = llmmem__ag_alloc(ag, b), q = llmmem__ag_alloc(ag, b);
            llmmem__ag_unref(ag, s);
            llmmem__ag_unref(ag, q);
        }
    }
}

llmmem_status llmmem__tape_run(uint64_t *peak_out, const llmmem__tape_job *job, const llmmem__sink *sink)
{
    const llmmem__tape_model *m = &job->model;
    if (m->layers == 0 || m->layers > 4096 || m->bytes == 0)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "the allocation tape runs 1 to 4096 decoder layers");
    run r = {.job = job, .sink = sink, .act = job->autocast ? job->autocast : m->bytes};
    uint64_t N;
    if (!llmmem__mul(&N, job->batch, job->seq + job->new_tokens) || !llmmem__mul(&N, N, m->hidden))
        return llmmem__fail(LLMMEM_ERR_OVERFLOW, "batch x sequence exceeds 64 bits");
    size_t np = 5 + 16 * (size_t)m->layers;
    r.layer = calloc((size_t)m->layers, sizeof *r.layer);
    uint32_t *p = calloc(np, sizeof *p), *state = calloc(4 * np, sizeof *state);
    llmmem_status st = llmmem__ag_new(&r.ag, sink);
    if (st == LLMMEM_OK && (!r.layer || !p || !state))
        st = llmmem__fail(LLMMEM_ERR_NO_MEMORY, "out of memory");
    if (st == LLMMEM_OK) {
        llmmem__ag *ag = r.ag;
        llmmem__ag_workspaces(ag, job->ws_forward, job->ws_forward_lt, job->ws_backward);
        llmmem__ag_set_rerun(ag, rerun, &r);
        if (job->workspace_first)
            llmmem__ag_early_workspaces(ag, job->workspace_first > 1);
        llmmem__ag_component(ag, LLMMEM_COMPONENT_WEIGHTS);
        build(&r);
        llmmem__ag_component(ag, LLMMEM_COMPONENT_ACTIVATIONS);
        mark(&r, LLMMEM__TAPE_BUILT, 0);
        if (job->new_tokens) {
            r.cache = calloc(2 * (size_t)m->layers, sizeof *r.cache);
            r.cache_len = calloc(2 * (size_t)m->layers, sizeof *r.cache_len);
            if (!r.cache || !r.cache_len)
                st = llmmem__fail(LLMMEM_ERR_NO_MEMORY, "out of memory");
            else {
                llmmem__ag_grad_mode(ag, 0); /* generate runs under torch.no_grad() */
                generate(&r);
            }
        }
        set_shape(&r, job->batch, job->seq, job->seq);
        r.pos_rows = 1;
        r.ids = job->new_tokens ? 0 : llmmem__ag_alloc(ag, r.N * 8);
        unsigned n = params(&r, p);
        for (r.step = 0; !job->new_tokens && r.step < job->steps && llmmem__ag_status(ag) == LLMMEM_OK; r.step++) {
            uint32_t loss = forward_loss(&r);
            llmmem__ag_backward(ag, loss, llmmem__ag_alloc(ag, 4));
            llmmem__ag_unref(ag, loss);
            mark(&r, LLMMEM__TAPE_BACKWARD, 0);
            optimizer_step(&r, p, n, state);
            llmmem__ag_component(ag, LLMMEM_COMPONENT_ACTIVATIONS);
            mark(&r, LLMMEM__TAPE_OPTIMIZER, 0);
            for (unsigned i = 0; i < n; i++)
                llmmem__ag_drop_grad(ag, p[i]); /* zero_grad(set_to_none=True) */
            mark(&r, LLMMEM__TAPE_ZERO_GRAD, 0);
        }
        *peak_out = llmmem__ag_peak(ag);
        if (job->release)
            llmmem__ag_release(ag);
        if (st == LLMMEM_OK)
            st = llmmem__ag_status(ag);
    }
    free(r.cache);
    free(r.cache_len);
    llmmem__ag_free(r.ag);
    free(r.layer);
    free(p);
    free(state);
    return st;
}

char *llmmem__tape_moment_text(char *buf, size_t size, int moment, uint64_t step, uint64_t layer)
{
    unsigned long long st = (unsigned long long)step + 1, l = (unsigned long long)layer;
    switch ((llmmem__tape_moment)moment) {
    case LLMMEM__TAPE_BUILT:
        snprintf(buf, size, "the model built");
        break;
    case LLMMEM__TAPE_LAYER:
        snprintf(buf, size, "step %llu, layer %llu's forward", st, l);
        break;
    case LLMMEM__TAPE_RECOMPUTE:
        snprintf(buf, size, "step %llu, layer %llu's recomputation", st, l);
        break;
    case LLMMEM__TAPE_LOSS:
        snprintf(buf, size, "step %llu, the loss", st);
        break;
    case LLMMEM__TAPE_BACKWARD:
        snprintf(buf, size, "step %llu, backward", st);
        break;
    case LLMMEM__TAPE_OPTIMIZER:
        snprintf(buf, size, "step %llu, the optimizer step", st);
        break;
    case LLMMEM__TAPE_ZERO_GRAD:
        snprintf(buf, size, "step %llu, zero_grad", st);
        break;
    case LLMMEM__TAPE_STEP:
        snprintf(buf, size, step ? "decode step %llu" : "the prefill", (unsigned long long)step);
        break;
    case LLMMEM__TAPE_GEN_LAYER:
        if (step)
            snprintf(buf, size, "decode step %llu, layer %llu's forward", (unsigned long long)step, l);
        else
            snprintf(buf, size, "the prefill, layer %llu's forward", l);
        break;
    default:
        snprintf(buf, size, "the start");
    }
    return buf;
}
