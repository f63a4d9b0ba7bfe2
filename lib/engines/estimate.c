/* Composing a report: the memory of the most loaded device. */
#include <stddef.h>
#include <string.h>

#include "engines/estimate.h"
#include "views/kv.h"

/* Host memory per node: the offloaded state, or the model each process materializes in fp32 at
 * start-up (host_init) if that is more, times host_buffer_factor. DeepSpeed's estimators
 * (stage_1_and_2.py / stage3.py estimate_zero*_model_states_mem_needs) count 4 bytes a parameter
 * per process without zero_init, 4 x the largest module's parameters with it, and a buffer factor
 * of 1.5. */
static llmmem_status host_per_node(llmmem_report *r, const llmmem_model *m, const llmmem__job *j)
{
    uint64_t per_node = j->dev.devices_per_node, init = 0;
    int64_t kind = j->host.init;
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
    if (host == 0) /* nothing to scale (and no x87 conversion, slow after the composition's stores) */
        return LLMMEM_OK;
    long double scaled = (long double)host * (long double)j->host.buffer_factor;
    if (scaled >= 18446744073709551615.0L)
        return llmmem__fail(LLMMEM_ERR_OVERFLOW, "host bytes exceed 64 bits");
    r->host_bytes = (uint64_t)scaled;
    return LLMMEM_OK;
}

/* The composition of every layout (parallel.c; one device is the layout t = p = d = 1), with the
 * costs of the cache when it holds this job's pricing (refreshed otherwise): the rank costs of a
 * layout that splits or shards, the whole model's state of one that does not. The pricing is
 * everything either reads (job.h) but an attached checkpoint's bytes, which are never cached, so
 * the cache cannot go stale. */
static llmmem_status composed(llmmem_report *out, const llmmem__job *j, llmmem__cost_cache *cache,
                              llmmem__trace *trace, int most_loaded_only)
{
    const int whole = llmmem__layout_single(&j->layout);
    if (!cache || (whole && j->from_checkpoint))
        return llmmem__parallel_estimate(out, j, NULL, NULL, NULL, trace, most_loaded_only);
    if (memcmp(&cache->key, &j->price, sizeof j->price) != 0) {
        cache->valid = 0;
        cache->costs.whole_made = 0;
        cache->states.valid = 0;
        cache->key = j->price;
    }
    llmmem_status st = LLMMEM_OK;
    if (whole && !cache->costs.whole_made)
        st = llmmem__whole_costs(&cache->costs, j);
    else if (!whole && !cache->valid && (st = llmmem__rank_costs_of(&cache->costs, j->m, &j->price)) == LLMMEM_OK)
        cache->valid = 1;
    /* the planner's candidates share everything a stage's state reads but the layout (parallel.h) */
    llmmem__state_cache *states = most_loaded_only ? &cache->states : NULL;
    return st ? st : llmmem__parallel_estimate(out, j, &cache->costs, &cache->acts, states, trace, most_loaded_only);
}

/* The job's layout and the settings explain names, into the trace. */
static void trace_job(llmmem__trace *t, const llmmem__job *j)
{
    t->layout = j->layout;
    t->mode = j->price.mode;
    t->weight_format = j->asked.weight;
    t->gradient_format = j->asked.gradient;
    t->master_weights_format = j->asked.master;
    t->optimizer_state_format = j->asked.state;
    t->optimizer = j->asked.optimizer;
    t->precision_recipe = j->asked.recipe;
    t->recompute = j->act.recompute;
    t->cross_entropy = j->act.cross_entropy;
    t->sequences = j->sequences;
    t->tokens = j->tokens;
}

/* Inference: what one token takes in the whole model's contiguous cache, and whether the rank's
 * cache is that times every token of every sequence (no window capped a layer, no split shared it). */
static void trace_kv(llmmem__trace *t, const llmmem__job *j, uint64_t kv)
{
    uint64_t all;
    t->kv_heads = llmmem__model_value(j->m, LLMMEM_KEY_NUM_PARAMETERS) == 0;
    t->kv_whole = t->kv_heads && llmmem__kv_contiguous_bytes(&t->kv_token_bytes, j->m, j->kv, 1, 1) == LLMMEM_OK &&
                  llmmem__mul(&all, t->kv_token_bytes, t->tokens) && llmmem__mul(&all, all, t->sequences) && all == kv;
}

llmmem_status llmmem_estimate(llmmem_report *out, const llmmem_model *model, const llmmem_hardware *hw,
                              const llmmem_strategy *strategy)
{
    LLMMEM_REQUIRE(out);
    llmmem_status st = LLMMEM_OK;
    const llmmem__job *j = NULL;
    llmmem__job own;
    if (!model || !hw || !strategy ||
        (st = llmmem__job_resolve(&j, &own, out->cache ? &out->cache->jobs : NULL, model, hw, strategy, NULL)) !=
            LLMMEM_OK) {
        memset(out, 0, offsetof(llmmem_report, stages)); /* as after any failed estimate */
        LLMMEM_REQUIRE(model);
        LLMMEM_REQUIRE(hw);
        LLMMEM_REQUIRE(strategy);
        return st;
    }
    return llmmem__estimate_job(out, j, hw->name, out->cache, NULL, 0);
}

llmmem_status llmmem__estimate_job(llmmem_report *out, const llmmem__job *j, const char *hw_name,
                                   llmmem__cost_cache *cache, llmmem__trace *trace, int most_loaded_only)
{
    /* the stage array is written only as far as stage_count reaches */
    memset(out, 0, offsetof(llmmem_report, stages));
    const llmmem_model *model = j->m;
    llmmem_status st;
    if (trace) {
        memset(trace, 0, sizeof *trace);
        trace_job(trace, j);
    }
    if ((st = composed(out, j, cache, trace, most_loaded_only)) != LLMMEM_OK) {
        memset(out, 0, offsetof(llmmem_report, stages));
        return st;
    }
    if (trace && j->price.mode == LLMMEM_MODE_INFERENCE)
        trace_kv(trace, j, out->bytes[LLMMEM_COMPONENT_KV_CACHE]);

    for (unsigned c = 0; c < LLMMEM_COMPONENTS; c++)
        if (!llmmem__add(&out->total, out->total, out->bytes[c])) {
            memset(out, 0, offsetof(llmmem_report, stages));
            return llmmem__fail(LLMMEM_ERR_OVERFLOW, "total bytes exceed 64 bits");
        }
    out->stages[out->most_loaded].total = out->total;

    out->memory_bytes = j->dev.memory;
    out->capacity = j->dev.capacity;
    out->device_total = j->dev.cuda_total;
    if ((st = host_per_node(out, model, j)) != LLMMEM_OK) {
        memset(out, 0, offsetof(llmmem_report, stages));
        return st;
    }
    out->host_capacity = j->dev.host;
    out->nvme_capacity = j->dev.nvme;

    memcpy(out->params, model->inv.params, sizeof out->params);
    out->params_total = model->inv.total;
    out->params_active = model->inv.active;
    out->weights_from_checkpoint = j->from_checkpoint;
    llmmem__copy_name(out->model_name, model->name);
    llmmem__copy_name(out->hardware_name, hw_name);
    out->valid = 1;
    return LLMMEM_OK;
}
