/* Communication: the buffers of data-parallel communication one device holds (DeepSpeed's ZeRO
 * buckets, PyTorch FSDP's gathered units, DDP's gradient copy) and the bytes one rank sends per
 * step over each kind of link. Every product is checked; the divisions stay where each rule puts
 * them, so the figures are the rules' own integer results. No allocation. */
#include "views/comm.h"

/* A product of byte counts, factors and exact divisions, evaluated left to right as written (the
 * divisions where the rule puts them) with every step checked: ok turns 0 on an overflow. */
typedef struct checked {
    uint64_t v;
    int ok;
} checked;

static checked times(checked a, uint64_t b)
{
    if (a.ok && !llmmem__mul(&a.v, a.v, b))
        a.ok = 0;
    return a;
}

static checked over(checked a, uint64_t b)
{
    a.v /= b;
    return a;
}

static checked of(uint64_t v)
{
    return (checked){v, 1};
}

static checked add(checked a, checked b)
{
    if (!a.ok || !b.ok || !llmmem__add(&a.v, a.v, b.v))
        a.ok = 0;
    return a;
}


/* Bytes of an element of the job's compute format (buffers and messages are 16-bit). */
static uint64_t element(const llmmem__job *j)
{
    return llmmem__format_element_bits(j->layout.compute) / 8u;
}

/* ---- buffers ----------------------------------------------------------------------------------- */

/* DeepSpeed stage_1_and_2.py: the reduce bucket (two with overlap_comm) and the all-gather bucket
 * of updated parameters */
static checked zero_1_2(const llmmem__comm_settings *c, uint64_t reduce, uint64_t gather, uint64_t e)
{
    return add(times(times(of(reduce), e), c->overlap ? 2 : 1), times(of(gather), e));
}

/* DeepSpeed stage3.py estimate_zero3_model_states_mem_needs: the largest layer's 16-bit
 * parameters and gradients of the largest module gathered (4 x largest_layer_params); plus
 * the prefetch bucket
 * (parameter_offload prefetch, capped by stage3_max_live_parameters) and the reduce bucket */
static checked zero_3(const llmmem__comm_settings *c, const llmmem__comm_rank *r, uint64_t reduce, uint64_t e)
{
    uint64_t prefetch = c->stage3_prefetch;
    uint64_t live = c->stage3_live, gathered = r->largest_tensor + prefetch;
    if (gathered > live && live >= r->largest_tensor)
        gathered = live;
    return add(add(times(of(gathered), e), times(of(r->largest_tensor), e)), times(of(reduce), e));
}

/* PyTorch FSDP (Zhao et al. 2023 §3, _runtime_utils): the root unit (embedding, head) stays
 * unsharded through the step; limit_all_gathers keeps the current and the prefetched
 * layer unit gathered; backward holds a unit's unsharded gradients to reduce-scatter */
static checked fsdp_full(const llmmem__comm_settings *c, const llmmem__comm_rank *r, uint64_t e)
{
    uint64_t units = c->fsdp_limit_all_gathers ? 2 : r->layers;
    return add(add(times(of(r->once_params), e), times(times(of(units), r->layer_params), e)),
               times(of(r->layer_params), e));
}

/* Buffers of data-parallel communication, in the 16-bit compute format */
llmmem_status llmmem__comm_buffers(uint64_t *bytes_out, const llmmem__job *j, const llmmem__comm_rank *r)
{
    const llmmem__comm_settings *c = &j->comm;
    const llmmem__layout *L = &j->layout;
    if (!llmmem__comm_buffered(j)) {
        *bytes_out = 0;
        return LLMMEM_OK;
    }
    const uint64_t e = element(j);
    uint64_t reduce = c->reduce_bucket, gather = c->allgather_bucket;
    if (reduce > r->params)
        reduce = r->params;
    if (gather > r->params)
        gather = r->params;
    checked comm = of(0);
    if (L->zero == 1 || L->zero == 2) {
        comm = zero_1_2(c, reduce, gather, e);
    } else if (L->zero == 3) {
        comm = zero_3(c, r, reduce, e);
    } else if (L->fsdp == LLMMEM_FSDP_FULL_SHARD || L->fsdp == LLMMEM_FSDP_HYBRID_SHARD) {
        comm = fsdp_full(c, r, e);
    } else if (L->fsdp == LLMMEM_FSDP_SHARD_GRAD_OP) {
        /* SHARD_GRAD_OP: parameters stay gathered from forward to the end of backward */
        comm = add(times(of(r->params), e), times(of(r->layer_params), e));
    } else if (!L->dist_opt && c->ddp_gradient_copy) {
        /* torch DistributedDataParallel without gradient_as_bucket_view: buckets copy every gradient */
        comm = of(r->gradients);
    }
    if (!comm.ok)
        return llmmem__fail(LLMMEM_ERR_OVERFLOW, "per-rank bytes exceed 64 bits");
    *bytes_out = comm.v;
    return LLMMEM_OK;
}

/* ---- volumes ----------------------------------------------------------------------------------- */

/* Ring collectives: a rank sends (n - 1) / n of the data for reduce-scatter or all-gather, twice
 * that for all-reduce (Thakur et al. 2005; NCCL's ring algorithm). */
static checked ring(checked bytes, uint64_t n, uint64_t passes)
{
    if (n <= 1)
        return of(0);
    return times(times(over(bytes, n), n - 1), passes);
}

/* Micro-batches per step: num_micro_batches, else one per pipeline stage. */
static uint64_t micro_batches(const llmmem__layout *L)
{
    return L->m ? L->m : L->p;
}

/* data: plain data parallelism all-reduces the gradients; ZeRO-1/2 and the distributed
 * optimizer reduce-scatter them and all-gather the parameters (the same volume, ZeRO §7);
 * ZeRO-3 and FSDP gather the parameters again for backward (1.5x, ZeRO §7.2.2) */
static inline checked data_volume(const llmmem__layout *L, uint64_t params, uint64_t e)
{
    checked grads = times(of(params), e);
    if (L->zero == 3 || L->fsdp == LLMMEM_FSDP_FULL_SHARD || L->fsdp == LLMMEM_FSDP_HYBRID_SHARD)
        return ring(grads, L->shard, 3);
    return ring(grads, L->d * L->c, 2);
}

/* tensor: two all-reduces of the hidden states per layer forward and two backward (Megatron-LM
 * §3; with sequence parallelism an all-gather and a reduce-scatter each, the same bytes),
 * two more forward when full recomputation reruns the layer */
static checked tensor_volume(const llmmem__job *j, checked act, uint64_t layers, uint64_t micro)
{
    uint64_t per_layer = j->act.recompute >= LLMMEM_RECOMPUTE_FULL ? 6 : 4;
    return times(times(times(ring(act, j->layout.t, 2), per_layer), layers), micro);
}

/* pipeline: each micro-batch's activations forward to the next stage and their gradient back
 * (once per model chunk when interleaved) */
static checked pipeline_volume(const llmmem__layout *L, checked act, uint64_t stage, uint64_t micro)
{
    uint64_t sends = (uint64_t)(stage + 1 < L->p) + (uint64_t)(stage > 0);
    return times(times(times(over(act, L->sp ? L->t : 1), sends), micro), L->v);
}

/* expert: dispatch and combine all-to-all forward and backward of top_k copies of each token */
static checked expert_volume(const llmmem__job *j, checked act, uint64_t moe_layers, uint64_t micro)
{
    const llmmem__layout *L = &j->layout;
    uint64_t k = j->m->geo.experts_per_tok;
    if (L->e <= 1)
        return of(0);
    return times(times(times(times(over(times(act, k), L->e), L->e - 1), 4), moe_layers), micro);
}

/* context: ring attention passes each K and V chunk around the c ranks forward, and K, V and
 * their gradients backward (Liu et al. 2023; Transformer Engine context parallel p2p), at the
 * k_proj width (an MLA model's at the hidden width) */
static checked context_volume(const llmmem__job *j, checked tokens, uint64_t layers, uint64_t e, uint64_t micro)
{
    const llmmem__layout *L = &j->layout;
    const llmmem__geometry *g = &j->m->geo;
    uint64_t kv_width = g->kv_lora_rank ? g->hidden : g->kv_heads * g->head_dim;
    if (L->c <= 1)
        return of(0);
    return times(times(times(times(over(times(times(times(tokens, kv_width), 2), e), L->t), L->c - 1), 3), layers),
                 micro);
}

/* The volume of one kind, or its overflow named with the batch that caused it. */
static llmmem_status sent(uint64_t *out, const llmmem__job *j, llmmem_comm kind, checked v)
{
    if (!v.ok)
        return llmmem__fail(LLMMEM_ERR_OVERFLOW, "bytes sent over %s links per step exceed 64 bits "
                            "(num_micro_batches %llu, micro_batch_size %lld, sequence_length %lld)",
                            llmmem_comm_name(kind), (unsigned long long)micro_batches(&j->layout),
                            (long long)j->sequences, (long long)j->tokens);
    *out = v.v;
    return LLMMEM_OK;
}

llmmem_status llmmem__comm_volume(uint64_t comm[LLMMEM_COMM_KINDS], const llmmem__job *j, const llmmem__comm_rank *r,
                                  uint64_t stage)
{
    const llmmem__layout *L = &j->layout;
    const uint64_t e = element(j), micro = micro_batches(L);
    if (llmmem__layout_single(L)) {
        /* whole replicas: a ring all-reduce of the trained parameters' gradients when training
         * (none with one replica); nothing is split, so nothing else is sent */
        for (unsigned i = 0; i < LLMMEM_COMM_KINDS; i++)
            comm[i] = 0;
        if (j->price.mode == LLMMEM_MODE_INFERENCE)
            return LLMMEM_OK;
        return sent(&comm[LLMMEM_COMM_DATA], j, LLMMEM_COMM_DATA, data_volume(L, r->trained, e));
    }
    const checked tokens = times(of(j->tokens / L->c), j->sequences);
    const checked act = times(times(tokens, j->m->geo.hidden), e);
    checked v[LLMMEM_COMM_KINDS];
    v[LLMMEM_COMM_DATA] = data_volume(L, r->params, e);
    v[LLMMEM_COMM_TENSOR] = tensor_volume(j, act, r->layers, micro);
    v[LLMMEM_COMM_PIPELINE] = pipeline_volume(L, act, stage, micro);
    v[LLMMEM_COMM_EXPERT] = expert_volume(j, act, r->moe_layers, micro);
    v[LLMMEM_COMM_CONTEXT] = context_volume(j, tokens, r->layers, e, micro);
    for (unsigned i = 0; i < LLMMEM_COMM_KINDS; i++) {
        llmmem_status st = sent(&comm[i], j, (llmmem_comm)i, v[i]);
        if (st)
            return st;
    }
    return LLMMEM_OK;
}
