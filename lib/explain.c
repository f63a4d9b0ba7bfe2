/* The estimate explained: for each component of the most loaded device, the arithmetic with the
 * numbers substituted and the rule it follows, one line each, ending in "= BYTES bytes" so a reader
 * (or a test) can redo every line and add them up to the total. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "activations.h"
#include "parallel.h"
#include "text.h"
#include "training.h"
#include "weights.h"

static unsigned long long u(uint64_t v)
{
    return (unsigned long long)v;
}

static const char *name_of(llmmem_key key, int64_t value)
{
    const char *n = llmmem_choice_name(key, value);
    return n ? n : "?";
}

/* "P params x b bytes" when the bytes are a whole multiple of the parameters, else the bits. */
static void per_param(llmmem__text *t, uint64_t bytes, uint64_t params, const char *what)
{
    if (params && bytes % params == 0)
        llmmem__text_printf(t, "%llu %s x %llu bytes", u(params), what, u(bytes / params));
    else if (params)
        llmmem__text_printf(t, "%llu %s at %.4g bits each (whole blocks and scales)", u(params), what,
            (double)bytes * 8.0 / (double)params);
    else
        llmmem__text_printf(t, "%llu bytes", u(bytes));
}

/* One part of a component: its bytes on the rank before sharding, the divisor, the result. */
static void part(llmmem__text *t, uint64_t raw, uint64_t params, const char *what, uint64_t divisor, const char *why)
{
    per_param(t, raw, params, what);
    if (divisor > 1)
        llmmem__text_printf(t, " / %llu (%s, rounded up)", u(divisor), why);
}

/* Why the state is divided, from the layout. */
static const char *shard_reason(const llmmem__layout *L)
{
    if (L->zero)
        return L->zero == 1 ? "ZeRO-1 over data x context ranks" : L->zero == 2 ? "ZeRO-2 over data x context ranks"
                                                                                 : "ZeRO-3 over data x context ranks";
    if (L->fsdp)
        return "FSDP over its shard group";
    if (L->dist_opt)
        return "distributed optimizer over data x context ranks";
    return "";
}

static void state_line(llmmem__text *t, const char *name, uint64_t result, uint64_t dense_raw, uint64_t expert_raw,
                       uint64_t div_dense, uint64_t div_experts, uint64_t params_dense, uint64_t params_experts,
                       const char *what, const llmmem__layout *L, const char *source)
{
    llmmem__text_printf(t, "%-17s ", name);
    part(t, dense_raw, params_dense, what, div_dense, shard_reason(L));
    if (expert_raw) {
        llmmem__text_printf(t, " + routed experts: ");
        part(t, expert_raw, params_experts, what, div_experts, "over the expert data-parallel size");
    }
    llmmem__text_printf(t, " = %llu bytes  [%s]\n", u(result), source);
}

static llmmem_status build(llmmem__text *t, const llmmem_model *m, const llmmem_hardware *hw, const llmmem_strategy *s)
{
    llmmem_report *r;
    llmmem_status st = llmmem_report_new(&r);
    if (st)
        return st;
    if ((st = llmmem_estimate(r, m, hw, s)) != LLMMEM_OK) {
        llmmem_report_free(r);
        return st;
    }
    llmmem__job job; /* the estimate's own resolution */
    if ((st = llmmem__job_make(&job, m, hw, s)) != LLMMEM_OK) {
        llmmem_report_free(r);
        return st;
    }
    const llmmem__layout L = job.layout;
    const int64_t mode = job.price.mode;
    const size_t stage = llmmem_report_most_loaded_stage(r), stages = llmmem_report_stage_count(r);
    llmmem__text_printf(t, "%s on %s, %s: one device of stage %zu of %zu (the most loaded)\n", m->name[0] ? m->name : "model",
        hw->name[0] ? hw->name : "device", name_of(LLMMEM_KEY_MODE, mode), stage, stages);
    llmmem__text_printf(t, "layout: tensor %llu, pipeline %llu, data %llu, context %llu, expert %llu; every line ends in its bytes\n",
        u(L.t), u(L.p), u(L.d), u(L.c), u(L.e));

    /* the rank's tensors and their state before sharding */
    llmmem__training dense = {0}, experts = {0};
    uint64_t div[3] = {1, 1, 1}, ediv[3] = {1, 1, 1}, dense_params = m->inv.total, expert_params = 0;
    if (llmmem__layout_single(&L)) {
        llmmem__view whole = llmmem__whole_model(m);
        if (mode != LLMMEM_MODE_INFERENCE && (st = llmmem__training_state(&dense, &job, &whole)) != LLMMEM_OK)
            goto done;
        if (mode == LLMMEM_MODE_INFERENCE)
            dense.weights = llmmem_report_bytes(r, LLMMEM_COMPONENT_WEIGHTS);
    } else {
        llmmem__stage_report sr;
        llmmem__stage_parts parts;
        uint64_t host, nvme;
        llmmem__rank_costs rc;
        if ((st = llmmem__rank_costs_of(&rc, m, &job.price)) != LLMMEM_OK ||
            (st = llmmem__stage_state_of(&sr, &host, &nvme, &job, &rc, stage, &parts)) != LLMMEM_OK)
            goto done;
        dense = parts.dense;
        experts = parts.experts;
        dense_params = parts.dense_params;
        expert_params = parts.expert_params;
        for (int w = 0; w < 3; w++) {
            div[w] = llmmem__sharded(&L, L.shard, w);
            ediv[w] = llmmem__sharded(&L, L.edp, w);
        }
    }
    const uint64_t trained_dense = dense.trainable, trained_experts = experts.trainable;
    const char *recipe = name_of(LLMMEM_KEY_PRECISION_RECIPE, llmmem__get_int(&s->s, LLMMEM_KEY_PRECISION_RECIPE));
    const char *optimizer = name_of(LLMMEM_KEY_OPTIMIZER, llmmem__get_int(&s->s, LLMMEM_KEY_OPTIMIZER));
    char source[160];

    /* weights: the rank's whole share, frozen parameters included (adapters add theirs) */
    snprintf(source, sizeof source, "weight_format %s; tensor/pipeline/expert splits as Megatron-LM",
             name_of(LLMMEM_KEY_WEIGHT_FORMAT, llmmem__get_int(&s->s, LLMMEM_KEY_WEIGHT_FORMAT)));
    if (r->weights_from_checkpoint)
        llmmem__text_printf(t, "%-17s the checkpoint's stored bytes = %llu bytes  [llmmem_model_use_checkpoint]\n", "weights",
            u(llmmem_report_bytes(r, LLMMEM_COMPONENT_WEIGHTS)));
    else if (L.offload_param)
        llmmem__text_printf(t, "%-17s 0: offload_param keeps them in %s = 0 bytes  [ZeRO-Infinity]\n", "weights",
            name_of(LLMMEM_KEY_OFFLOAD_PARAM, L.offload_param));
    else if (dense.adapter_weights) {
        llmmem__text_printf(t, "%-17s base: ", "weights");
        per_param(t, dense.weights - dense.adapter_weights, dense_params, "params");
        llmmem__text_printf(t, " + adapters: ");
        per_param(t, dense.adapter_weights, dense.trainable, "adapter params");
        llmmem__text_printf(t, " = %llu bytes  [%s; LoRA adapters in lora_format]\n", u(llmmem_report_bytes(r, LLMMEM_COMPONENT_WEIGHTS)),
            source);
    } else
        state_line(t, "weights", llmmem_report_bytes(r, LLMMEM_COMPONENT_WEIGHTS), dense.weights, experts.weights,
                   div[0], ediv[0], dense_params, expert_params, "params", &L, source);
    if (mode != LLMMEM_MODE_INFERENCE) {
        snprintf(source, sizeof source, "precision_recipe %s, gradient_format %s", recipe,
                 name_of(LLMMEM_KEY_GRADIENT_FORMAT, llmmem__get_int(&s->s, LLMMEM_KEY_GRADIENT_FORMAT)));
        if (L.offload_opt) {
            llmmem__text_printf(t, "%-17s 0: offload_optimizer streams them to the host in fp32 = 0 bytes  [ZeRO-Offload]\n",
                "gradients");
        } else {
            uint64_t gd = L.zero == 3 && dense.gradient_copy ? dense.gradient_copy : dense.gradients;
            uint64_t ge = L.zero == 3 && experts.gradient_copy ? experts.gradient_copy : experts.gradients;
            state_line(t, "gradients", llmmem_report_bytes(r, LLMMEM_COMPONENT_GRADIENTS), gd, ge, div[1], ediv[1],
                       trained_dense, trained_experts, "trained params", &L, source);
        }
        if (L.offload_opt) {
            llmmem__text_printf(t, "%-17s 0: offloaded to %s = 0 bytes  [ZeRO-Offload]\n", "master_weights",
                name_of(LLMMEM_KEY_OFFLOAD_OPTIMIZER, L.offload_opt));
            llmmem__text_printf(t, "%-17s 0: offloaded to %s = 0 bytes  [ZeRO-Offload]\n", "optimizer_states",
                name_of(LLMMEM_KEY_OFFLOAD_OPTIMIZER, L.offload_opt));
        } else {
            snprintf(source, sizeof source, "precision_recipe %s, master_weights_format %s", recipe,
                     name_of(LLMMEM_KEY_MASTER_WEIGHTS_FORMAT, llmmem__get_int(&s->s, LLMMEM_KEY_MASTER_WEIGHTS_FORMAT)));
            if (dense.master_weights + experts.master_weights == 0)
                llmmem__text_printf(t, "%-17s 0: no separate copy (the weights are already in the master format, or none is "
                       "kept) = 0 bytes  [%s]\n",
                    "master_weights", source);
            else
                state_line(t, "master_weights", llmmem_report_bytes(r, LLMMEM_COMPONENT_MASTER_WEIGHTS),
                       dense.master_weights, experts.master_weights, div[2], ediv[2], trained_dense, trained_experts,
                       "trained params", &L, source);
            snprintf(source, sizeof source, "optimizer %s, optimizer_state_format %s", optimizer,
                     name_of(LLMMEM_KEY_OPTIMIZER_STATE_FORMAT, llmmem__get_int(&s->s, LLMMEM_KEY_OPTIMIZER_STATE_FORMAT)));
            state_line(t, "optimizer_states", llmmem_report_bytes(r, LLMMEM_COMPONENT_OPTIMIZER_STATES),
                       dense.optimizer_states, experts.optimizer_states, div[2], ediv[2], trained_dense,
                       trained_experts, "trained params", &L, source);
        }

        /* activations and the loss: the parts of the peak (llmmem.h) */
        uint64_t held = llmmem_report_peak_part(r, LLMMEM_PEAK_ACTIVATIONS_HELD);
        uint64_t recompute = llmmem_report_peak_part(r, LLMMEM_PEAK_RECOMPUTE);
        uint64_t layer = llmmem_report_peak_part(r, LLMMEM_PEAK_LARGEST_LAYER);
        uint64_t first, count;
        (void)llmmem_report_stage_layers(&first, &count, r, stage);
        const char *rc = name_of(LLMMEM_KEY_RECOMPUTE, llmmem__get_int(&s->s, LLMMEM_KEY_RECOMPUTE));
        int at_recompute = llmmem_report_peak_phase(r) == LLMMEM_PEAK_PHASE_RECOMPUTE;
        /* one micro-batch's activations on this stage, and the micro-batches its schedule holds */
        llmmem__act_stage a = {first, first + count, stage == 0, stage + 1 == L.p, 1, 1, 1, L.t, L.et, L.c, L.sp};
        llmmem__activations unit;
        if ((st = llmmem__training_activations(&unit, m, s, job.compute, &a)) != LLMMEM_OK)
            goto done;
        llmmem__in_flight(&L, stage, &a);
        llmmem__text_printf(t, "%-17s %llu a micro-batch (%llu layers from layer %llu, recompute %s, one layer %llu without "
               "recomputation; token ids, embedding and head inputs) x %llu",
            "activations", u(unit.held), u(count), u(first), rc, u(layer), u(a.in_flight_num));
        if (a.in_flight_den > 1)
            llmmem__text_printf(t, "/%llu", u(a.in_flight_den));
        llmmem__text_printf(t, " micro-batches in flight (rounded up)");
        if (at_recompute)
            llmmem__text_printf(t, " = %llu held + %llu rebuilt by recomputing the largest chunk in backward", u(held), u(recompute));
        llmmem__text_printf(t, " = %llu bytes  [Korthikanti et al. 2022 §4-5, tensor by tensor]\n",
            u(llmmem_report_bytes(r, LLMMEM_COMPONENT_ACTIVATIONS)));
        uint64_t lh = llmmem_report_peak_part(r, LLMMEM_PEAK_LOGITS_HELD);
        uint64_t lt = llmmem_report_peak_part(r, LLMMEM_PEAK_LOGITS_TRANSIENT);
        if (at_recompute)
            llmmem__text_printf(t, "%-17s 0: the peak is the recomputation, after the loss (%llu held + %llu in its backward) is "
                   "freed = 0 bytes  [llmmem.h, the peak]\n",
                "logits", u(lh), u(lt));
        else
            llmmem__text_printf(t, "%-17s %llu held + %llu in the loss's backward = %llu bytes  [cross_entropy %s]\n", "logits", u(lh),
                u(lt), u(llmmem_report_bytes(r, LLMMEM_COMPONENT_LOGITS)),
                name_of(LLMMEM_KEY_CROSS_ENTROPY, llmmem__get_int(&s->s, LLMMEM_KEY_CROSS_ENTROPY)));
    } else {
        uint64_t kv = llmmem_report_bytes(r, LLMMEM_COMPONENT_KV_CACHE), per_token = 0;
        uint64_t seqs = (uint64_t)llmmem__get_int(&s->s, LLMMEM_KEY_MICRO_BATCH_SIZE);
        uint64_t tokens = (uint64_t)llmmem__get_int(&s->s, LLMMEM_KEY_SEQUENCE_LENGTH);
        if (llmmem__model_value(m, LLMMEM_KEY_NUM_PARAMETERS) != 0)
            llmmem__text_printf(t, "%-17s 0: a model given by its count has no KV heads = 0 bytes  [llmmem.h]\n", "kv_cache");
        else if (llmmem_kv_cache_bytes(&per_token, m, s, 1, 1) == LLMMEM_OK && per_token * seqs * tokens == kv)
            llmmem__text_printf(t, "%-17s %llu bytes a token x %llu tokens x %llu sequences = %llu bytes  [Hugging Face generate, "
                   "contiguous]\n",
                "kv_cache", u(per_token), u(tokens), u(seqs), u(kv));
        else
            llmmem__text_printf(t, "%-17s %llu sequences x %llu tokens, sliding-window layers capped at the window = %llu bytes  "
                   "[transformers cache_utils]\n",
                "kv_cache", u(seqs), u(tokens), u(kv));
    }
    llmmem__text_printf(t, "%-17s %s = %llu bytes  [data-parallel buffers]\n", "comm_buffers",
        L.zero == 1 || L.zero == 2 ? "DeepSpeed reduce and all-gather buckets"
        : L.zero == 3              ? "DeepSpeed ZeRO-3: the largest module gathered, prefetch and reduce buckets"
        : L.fsdp                   ? "FSDP: the root unit, gathered layer units, one unit's gradients"
                                   : "none, or DDP's copy of the gradients (ddp_gradient_copy)",
        u(llmmem_report_bytes(r, LLMMEM_COMPONENT_COMM_BUFFERS)));
    llmmem__text_printf(t, "%-17s runtime_overhead_bytes = %llu bytes  [CUDA context and workspaces]\n", "runtime_overhead",
        u(llmmem_report_bytes(r, LLMMEM_COMPONENT_RUNTIME_OVERHEAD)));
    llmmem__text_printf(t, "%-17s the lines above = %llu bytes of %llu usable: %s\n", "total", u(llmmem_report_total_bytes(r)),
        u(llmmem_report_capacity_bytes(r)), llmmem_report_fits(r) ? "fits" : "does not fit");
done:
    llmmem_report_free(r);
    return st;
}

llmmem_status llmmem_explain(char **text_out, const llmmem_model *model, const llmmem_hardware *hw,
                             const llmmem_strategy *strategy)
{
    LLMMEM_REQUIRE(text_out);
    *text_out = NULL;
    LLMMEM_REQUIRE(model);
    LLMMEM_REQUIRE(hw);
    LLMMEM_REQUIRE(strategy);
    llmmem__text t = {0};
    llmmem_status st = build(&t, model, hw, strategy);
    if (st) {
        free(t.data);
        return st;
    }
    return llmmem__text_finish(text_out, &t, "explain");
}
