/* Composing a report: the memory of the most loaded device. */
#include <stddef.h>
#include <string.h>

#include "comm.h"
#include "estimate.h"
#include "weights.h"
#include "kv.h"
#include "training.h"


/* Training, lora, qlora on one device: the static state (training.c) and the activation side of
 * the peak (activations.c), composed at the higher of the two moments llmmem.h defines. */
static llmmem_status training_peak(llmmem_report *r, const llmmem__job *j)
{
    llmmem__training t;
    llmmem__activations a;
    llmmem__view whole = llmmem__whole_model(j->m);
    llmmem_status st = llmmem__training_state(&t, j, &whole);
    if (st == LLMMEM_OK) {
        llmmem__act_stage one = llmmem__single_stage(j->m);
        st = llmmem__training_activations(&a, j->m, j->s, j->compute, &one);
    }
    if (st)
        return st;
    r->bytes[LLMMEM_COMPONENT_WEIGHTS] = t.weights;
    r->bytes[LLMMEM_COMPONENT_GRADIENTS] = t.gradients;
    r->bytes[LLMMEM_COMPONENT_MASTER_WEIGHTS] = t.master_weights;
    r->bytes[LLMMEM_COMPONENT_OPTIMIZER_STATES] = t.optimizer_states;
    r->params_trainable = t.trainable;
    /* activations offloaded to the host (recompute=offload), on every device of the node */
    if (!llmmem__mul(&r->host_bytes, a.host, (uint64_t)llmmem__get_int(&j->hw->s, LLMMEM_KEY_DEVICES_PER_NODE)))
        return llmmem__fail(LLMMEM_ERR_OVERFLOW, "per-rank bytes exceed 64 bits");

    llmmem__peak_parts(r->peak_parts, &a);
    return llmmem__peak_components(r->bytes, &r->peak_phase, &a);
}

/* Inference: the KV cache of micro_batch_size sequences of sequence_length tokens, allocated whole
 * as Hugging Face generate does (kv.c); a model given by its count alone has no KV heads and
 * no cache is counted (llmmem.h says so). */
static llmmem_status inference_kv(uint64_t *out, const llmmem__job *j)
{
    *out = 0;
    if (llmmem__model_value(j->m, LLMMEM_KEY_NUM_PARAMETERS) != 0)
        return LLMMEM_OK;
    return llmmem__kv_contiguous_bytes(out, j->m, j->kv, j->sequences, j->tokens);
}

/* One device holding the whole model (plain data parallelism keeps a whole replica). */
static llmmem_status single_device(llmmem_report *r, const llmmem__job *j)
{
    llmmem_status st;
    const llmmem__layout *L = &j->layout;
    if (j->price.mode == LLMMEM_MODE_INFERENCE) {
        st = llmmem__job_weight_bytes(&r->bytes[LLMMEM_COMPONENT_WEIGHTS], j);
        if (st == LLMMEM_OK)
            st = inference_kv(&r->bytes[LLMMEM_COMPONENT_KV_CACHE], j);
    } else {
        st = training_peak(r, j);
    }
    if (st)
        return st;
    /* plain data parallelism: DDP's bucket copy of the gradients (comm.c) */
    if (llmmem__comm_buffered(j)) {
        llmmem__comm_rank whole = {.gradients = r->bytes[LLMMEM_COMPONENT_GRADIENTS]};
        if ((st = llmmem__comm_buffers(&r->bytes[LLMMEM_COMPONENT_COMM_BUFFERS], j, &whole)) != LLMMEM_OK)
            return st;
    }
    r->bytes[LLMMEM_COMPONENT_RUNTIME_OVERHEAD] = (uint64_t)llmmem__get_int(&j->hw->s, LLMMEM_KEY_RUNTIME_OVERHEAD_BYTES);
    llmmem__stage_report *one = &r->stages[0];
    memcpy(one->bytes, r->bytes, sizeof one->bytes);
    one->first_layer = 0;
    one->layers = j->m->geo.layers;
    r->stage_count = 1;
    r->most_loaded = 0;
    /* ring all-reduce of the trained parameters' gradients: 2 (d - 1) / d of their 16-bit bytes per step */
    if (L->d > 1 && j->price.mode != LLMMEM_MODE_INFERENCE)
        return llmmem__comm_data_volume(&r->comm[LLMMEM_COMM_DATA], j, r->params_trainable);
    return LLMMEM_OK;
}

/* Host memory per node: the offloaded state, or the model each process materializes in fp32 at
 * start-up (host_init) if that is more, times host_buffer_factor. DeepSpeed's estimators
 * (stage_1_and_2.py / stage3.py estimate_zero*_model_states_mem_needs) count 4 bytes a parameter
 * per process without zero_init, 4 x the largest module's parameters with it, and a buffer factor
 * of 1.5. */
static llmmem_status host_per_node(llmmem_report *r, const llmmem_model *m, const llmmem_hardware *hw,
                                   const llmmem_strategy *s)
{
    uint64_t per_node = (uint64_t)llmmem__get_int(&hw->s, LLMMEM_KEY_DEVICES_PER_NODE), init = 0;
    int64_t kind = llmmem__get_int(&s->s, LLMMEM_KEY_HOST_INIT);
    if (kind == LLMMEM_HOST_INIT_FULL) {
        init = m->inv.total;
    } else if (kind == LLMMEM_HOST_INIT_ZERO_INIT) {
        for (unsigned i = 0; i < m->inv.n; i++)
            if (m->inv.t[i].rows * m->inv.t[i].cols > init)
                init = m->inv.t[i].rows * m->inv.t[i].cols;
    }
    if (!llmmem__mul(&init, init, 4) || !llmmem__mul(&init, init, per_node))
        return llmmem__fail(LLMMEM_ERR_OVERFLOW, "host bytes exceed 64 bits");
    uint64_t host = r->host_bytes > init ? r->host_bytes : init;
    long double scaled = (long double)host * (long double)llmmem__get_real(&s->s, LLMMEM_KEY_HOST_BUFFER_FACTOR);
    if (scaled >= 18446744073709551615.0L)
        return llmmem__fail(LLMMEM_ERR_OVERFLOW, "host bytes exceed 64 bits");
    r->host_bytes = (uint64_t)scaled;
    return LLMMEM_OK;
}

/* The parallel composition, with the rank costs of the cache when it holds this job's pricing
 * (refreshed otherwise): the pricing is everything the costs read (job.h), so the cache cannot
 * go stale. */
static llmmem_status parallel_cached(llmmem_report *out, const llmmem__job *j, llmmem__cost_cache *cache)
{
    if (!cache)
        return llmmem__parallel_estimate(out, j, NULL);
    if (!cache->valid || memcmp(&cache->key, &j->price, sizeof j->price) != 0) {
        cache->valid = 0;
        llmmem_status st = llmmem__rank_costs_of(&cache->costs, j->m, &j->price);
        if (st)
            return st;
        cache->key = j->price;
        cache->valid = 1;
    }
    return llmmem__parallel_estimate(out, j, &cache->costs);
}

llmmem_status llmmem_estimate(llmmem_report *out, const llmmem_model *model, const llmmem_hardware *hw,
                              const llmmem_strategy *strategy)
{
    LLMMEM_REQUIRE(out);
    if (!model || !hw || !strategy) {
        memset(out, 0, offsetof(llmmem_report, stages)); /* as after any failed estimate */
        LLMMEM_REQUIRE(model);
        LLMMEM_REQUIRE(hw);
        LLMMEM_REQUIRE(strategy);
    }
    return llmmem__estimate_cached(out, model, hw, strategy, out->cache);
}

llmmem_status llmmem__estimate_cached(llmmem_report *out, const llmmem_model *model, const llmmem_hardware *hw,
                                      const llmmem_strategy *strategy, llmmem__cost_cache *cache)
{
    LLMMEM_REQUIRE(out);
    /* the stage array is written only as far as stage_count reaches */
    memset(out, 0, offsetof(llmmem_report, stages));
    LLMMEM_REQUIRE(model);
    LLMMEM_REQUIRE(hw);
    LLMMEM_REQUIRE(strategy);
    llmmem_status st = llmmem__model_check(model);
    if (st)
        return st;
    uint64_t memory = (uint64_t)llmmem__get_int(&hw->s, LLMMEM_KEY_MEMORY_BYTES);
    if (memory == 0)
        return llmmem__fail(LLMMEM_ERR_INCOMPLETE, "hardware: memory_bytes is not set");

    llmmem__job job;
    if ((st = llmmem__job_make(&job, model, hw, strategy)) != LLMMEM_OK)
        return st;
    if (llmmem__layout_single(&job.layout))
        st = single_device(out, &job);
    else
        st = parallel_cached(out, &job, cache);
    if (st) {
        memset(out, 0, offsetof(llmmem_report, stages));
        return st;
    }

    for (unsigned c = 0; c < LLMMEM_COMPONENTS; c++)
        if (!llmmem__add(&out->total, out->total, out->bytes[c])) {
            memset(out, 0, offsetof(llmmem_report, stages));
            return llmmem__fail(LLMMEM_ERR_OVERFLOW, "total bytes exceed 64 bits");
        }
    out->stages[out->most_loaded].total = out->total;

    /* The allocator reserve is a fraction of the device: rounded down to a whole byte. */
    double reserve = llmmem__get_real(&hw->s, LLMMEM_KEY_ALLOCATOR_RESERVE_FRACTION);
    out->memory_bytes = memory;
    out->capacity = memory - (uint64_t)((long double)memory * (long double)reserve);
    if ((st = host_per_node(out, model, hw, strategy)) != LLMMEM_OK) {
        memset(out, 0, offsetof(llmmem_report, stages));
        return st;
    }
    out->host_capacity = (uint64_t)llmmem__get_int(&hw->s, LLMMEM_KEY_HOST_MEMORY_BYTES);
    out->nvme_capacity = (uint64_t)llmmem__get_int(&hw->s, LLMMEM_KEY_NVME_BYTES);

    memcpy(out->params, model->inv.params, sizeof out->params);
    out->params_total = model->inv.total;
    out->params_active = model->inv.active;
    out->weights_from_checkpoint = job.from_checkpoint;
    llmmem__copy_name(out->model_name, model->name);
    llmmem__copy_name(out->hardware_name, hw->name);
    out->valid = 1;
    return LLMMEM_OK;
}
