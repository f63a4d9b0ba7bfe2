/* The estimate explained: for each component of the most loaded device, the arithmetic with the
 * numbers substituted and the rule it follows, one line each, ending in "= BYTES bytes" so a reader
 * (or a test) can redo every line and add them up to the total. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/estimate.h"
#include "base/text.h"

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

/* A component of the state (weights to optimizer states), over all the rank's parameters or the
 * trained ones: the dense part, then the routed experts' if the rank holds any. */
static void state_line(llmmem__text *t, const llmmem_report *r, const llmmem__trace *tr, llmmem_component c,
                       int trained, const char *source)
{
    llmmem__text_printf(t, "%-17s ", llmmem_component_name(c));
    for (int i = 0; i < 2; i++) {
        const llmmem__trace_part *p = &tr->part[i];
        if (i == 1) {
            if (!p->bytes[c])
                break;
            llmmem__text_printf(t, " + routed experts: ");
        }
        part(t, p->bytes[c], trained ? p->trained : p->params, trained ? "trained params" : "params", p->divisor[c],
             i == 0 ? shard_reason(&tr->layout) : "over the expert data-parallel size");
    }
    llmmem__text_printf(t, " = %llu bytes  [%s]\n", u(llmmem_report_bytes(r, c)), source);
}

/* The peak's moment in words: "the loss's backward", "layer 3's backward". */
static void moment_name(llmmem__text *t, const llmmem_report *r)
{
    const llmmem_peak_phase phase = llmmem_report_peak_phase(r);
    const int64_t layer = llmmem_report_peak_layer(r);
    if (phase == LLMMEM_PEAK_PHASE_FORWARD)
        llmmem__text_printf(t, "the loss's forward");
    else if (phase == LLMMEM_PEAK_PHASE_LOSS)
        llmmem__text_printf(t, "the loss's backward");
    else if (phase == LLMMEM_PEAK_PHASE_OPTIMIZER)
        llmmem__text_printf(t, "the optimizer step");
    else
        llmmem__text_printf(t, "layer %lld's backward%s", (long long)layer,
                            phase == LLMMEM_PEAK_PHASE_RECOMPUTE ? " (recomputing its chunk)" : "");
}

/* Gradients: the trained parameters' whole, or with lazy allocation (zero_grad(set_to_none=True))
 * those born by the peak's moment. */
static void gradient_line(llmmem__text *t, const llmmem_report *r, const llmmem__trace *tr, const char *source)
{
    const uint64_t alive = llmmem_report_bytes(r, LLMMEM_COMPONENT_GRADIENTS);
    const uint64_t all = tr->state[LLMMEM_COMPONENT_GRADIENTS];
    if (!tr->have_step || !tr->step.lazy_grads || alive == all) {
        state_line(t, r, tr, LLMMEM_COMPONENT_GRADIENTS, 1, source);
        return;
    }
    llmmem__text_printf(t, "%-17s %llu in all, born during backward (set to None after each step); at ", "gradients", u(all));
    moment_name(t, r);
    const llmmem_peak_phase phase = llmmem_report_peak_phase(r);
    if (phase == LLMMEM_PEAK_PHASE_FORWARD || phase == LLMMEM_PEAK_PHASE_LOSS)
        llmmem__text_printf(t, " none yet");
    else if (llmmem_report_peak_layer(r) == (int64_t)tr->stage.first && alive == tr->step.grads_first)
        llmmem__text_printf(t, " all but the embedding's %llu", u(all - alive));
    else
        llmmem__text_printf(t, " the head's and final norm's %llu + the layer's own %llu", u(tr->step.grads_head),
                            u(alive - tr->step.grads_head));
    llmmem__text_printf(t, " = %llu bytes  [%s; gradient_allocation lazy]\n", u(alive), source);
}

/* Activations, the loss and the optimizer's temporaries at the peak's moment (llmmem.h, the
 * training peak): what each moment keeps, from the figures the estimate compared. */
static void moment_lines(llmmem__text *t, const llmmem_report *r, const llmmem__trace *tr)
{
    const llmmem_peak_phase phase = llmmem_report_peak_phase(r);
    const llmmem__activations *a = &tr->acts;
    const uint64_t acts = llmmem_report_bytes(r, LLMMEM_COMPONENT_ACTIVATIONS);
    const uint64_t layer = llmmem_report_peak_part(r, LLMMEM_PEAK_LARGEST_LAYER);
    llmmem__text_printf(t, "%-17s ", "activations");
    if (phase == LLMMEM_PEAK_PHASE_OPTIMIZER)
        llmmem__text_printf(t, "0: backward has freed them (%llu held when the forward ended)", u(a->held));
    else {
        /* one micro-batch's activations on this stage, and the micro-batches its schedule holds */
        llmmem__text_printf(t, "%llu a micro-batch (%llu layers from layer %llu, recompute %s, one layer %llu without "
               "recomputation; token ids, embedding and head inputs) x %llu",
            u(tr->unit_held), u(tr->layers), u(tr->first_layer), name_of(LLMMEM_KEY_RECOMPUTE, tr->recompute),
            u(layer), u(tr->in_flight_num));
        if (tr->in_flight_den > 1)
            llmmem__text_printf(t, "/%llu", u(tr->in_flight_den));
        llmmem__text_printf(t, " micro-batches in flight (rounded up)");
        if (phase == LLMMEM_PEAK_PHASE_BACKWARD || phase == LLMMEM_PEAK_PHASE_RECOMPUTE) {
            const uint64_t rebuilt = a->recompute + a->backward, below = acts - rebuilt;
            llmmem__text_printf(t, " = %llu held; at ", u(a->held));
            moment_name(t, r);
            if (llmmem_report_peak_layer(r) == (int64_t)tr->stage.first && below == a->first_held)
                llmmem__text_printf(t, " the first layer's and the ends' %llu", u(below));
            else
                llmmem__text_printf(t, " less the head's inputs the loss freed %llu", u(a->held - below));
            llmmem__text_printf(t, ", + %llu rebuilt by recomputation + %llu the layer's backward working set", u(a->recompute),
                                u(a->backward));
        }
    }
    llmmem__text_printf(t, " = %llu bytes  [Korthikanti et al. 2022 §4-5, tensor by tensor; attn_implementation]\n", u(acts));

    const uint64_t lh = llmmem_report_peak_part(r, LLMMEM_PEAK_LOGITS_HELD);
    const uint64_t lt = llmmem_report_peak_part(r, LLMMEM_PEAK_LOGITS_TRANSIENT);
    const uint64_t logits = llmmem_report_bytes(r, LLMMEM_COMPONENT_LOGITS);
    if (!tr->stage.has_head)
        llmmem__text_printf(t, "%-17s 0: the loss runs on the last stage = %llu bytes  [pipeline parallelism]\n", "logits",
                            u(logits));
    else if (phase == LLMMEM_PEAK_PHASE_FORWARD)
        llmmem__text_printf(t, "%-17s %llu held + %llu in the loss's forward (fp32 copies, log-softmax) = %llu bytes  "
               "[cross_entropy %s]\n", "logits", u(lh), u(a->loss_forward), u(logits),
            name_of(LLMMEM_KEY_CROSS_ENTROPY, tr->cross_entropy));
    else if (phase == LLMMEM_PEAK_PHASE_LOSS)
        llmmem__text_printf(t, "%-17s %llu held + %llu in the loss's backward = %llu bytes  [cross_entropy %s]\n", "logits",
            u(lh), u(lt), u(logits), name_of(LLMMEM_KEY_CROSS_ENTROPY, tr->cross_entropy));
    else
        llmmem__text_printf(t, "%-17s 0: the loss is done by then (%llu held + %llu in its backward, freed) = %llu bytes  "
               "[llmmem.h, the peak]\n", "logits", u(lh), u(lt), u(logits));

    const uint64_t temps = llmmem_report_bytes(r, LLMMEM_COMPONENT_OPTIMIZER_TEMPORARIES);
    if (!tr->step.temporaries) /* a fused or stateless step allocates none */
        return;
    if (phase == LLMMEM_PEAK_PHASE_OPTIMIZER)
        llmmem__text_printf(t, "%-17s what the %s step allocates while it runs = %llu bytes  [torch/optim: "
               "optimizer_implementation]\n", "optimizer_temporaries", name_of(LLMMEM_KEY_OPTIMIZER, tr->optimizer), u(temps));
    else
        llmmem__text_printf(t, "%-17s 0: only while the optimizer steps (%llu then) = %llu bytes  [torch/optim: "
               "optimizer_implementation]\n", "optimizer_temporaries", u(tr->step.temporaries), u(temps));
}

/* The generate loop's peak moment (generate.c): for each of its components, the tensors alive
 * then, each with its bytes, adding up to the component. */
static void generate_lines(llmmem__text *t, const llmmem_report *r, const llmmem__gen_moment *g)
{
    static const llmmem_component order[] = {LLMMEM_COMPONENT_KV_CACHE, LLMMEM_COMPONENT_ACTIVATIONS,
                                             LLMMEM_COMPONENT_LOGITS};
    char where[64];
    if (g->layer >= 0)
        snprintf(where, sizeof where, "layer %lld", (long long)g->layer);
    else
        snprintf(where, sizeof where, "outside the layers");
    for (size_t c = 0; c < sizeof order / sizeof order[0]; c++) {
        int any = 0;
        llmmem__text_printf(t, "%-17s at the peak, %s, %s, step %llu (%s): ", llmmem_component_name(order[c]),
            g->phase == LLMMEM_PEAK_PHASE_PREFILL ? "prefill" : "decode", where, u(g->step), g->what);
        for (unsigned i = 0; i < g->terms; i++) {
            if (g->term[i].component != (int)order[c])
                continue;
            llmmem__text_printf(t, "%s%s %llu", any ? " + " : "", g->term[i].what, u(g->term[i].bytes));
            any = 1;
        }
        llmmem__text_printf(t, "%s = %llu bytes  [%s]\n", any ? "" : "none at this moment",
            u(llmmem_report_bytes(r, order[c])),
            order[c] == LLMMEM_COMPONENT_KV_CACHE ? "cache_utils.py, alive at the moment"
            : order[c] == LLMMEM_COMPONENT_LOGITS ? "logits_to_keep; generate's fp32 next_token_logits"
                                                  : "generate's ids and masks, the forward's working set; GENERATE.md");
    }
}

/* Whether the job runs: its allocation tape replayed through PyTorch's caching allocator
 * (llmmem_estimate_runs), why reserved exceeds allocated, or why the tape does not run the job.
 * Reuses r (the estimate is recomputed, equal). */
static llmmem_status allocator_lines(llmmem__text *t, llmmem_report *r, const llmmem_model *m, const llmmem_hardware *hw,
                                     const llmmem_strategy *s)
{
    llmmem_status st = llmmem_estimate_runs(r, m, hw, s);
    if (st == LLMMEM_ERR_UNSUPPORTED) {
        llmmem__text_printf(t, "%-17s not replayed: %s\n", "allocator", llmmem_last_message());
        return LLMMEM_OK;
    }
    if (st)
        return st;
    uint64_t reserved = llmmem_report_reserved_bytes(r), low = llmmem_report_reserved_low_bytes(r);
    uint64_t free_blocks = llmmem_report_reserved_free_bytes(r), stride = llmmem_report_decode_stride(r);
    uint64_t outside = llmmem_report_bytes(r, LLMMEM_COMPONENT_RUNTIME_OVERHEAD), total = llmmem_report_device_total_bytes(r);
    llmmem__text_printf(t, "%-17s the allocation tape's blocks at their rounded sizes, at the highest = %llu bytes  "
        "[PyTorch eager and autograd; CUDACachingAllocator.cpp round_size]\n",
        "allocated_peak", u(llmmem_report_allocated_bytes(r)));
    if (stride > 1)
        llmmem__text_printf(t, "%-17s each replayed decode step stands for %llu tokens (at most 64 replayed, the last always)\n",
            "", u(stride));
    llmmem__text_printf(t, "%-17s segments held from the device: %llu bytes in blocks handed out + %llu in free blocks "
        "the request that grew them could not use = %llu bytes  [CUDACachingAllocator.cpp malloc, get_free_block]\n",
        "reserved_peak", u(reserved - free_blocks), u(free_blocks), u(reserved));
    if (low != reserved)
        llmmem__text_printf(t, "%-17s with the driver placing each new segment above the last, not below: %llu bytes (best "
            "fit takes the lower of equal free blocks)\n", "", u(low));
    if (llmmem_report_runs(r)) {
        llmmem__text_printf(t, "%-17s reserved peak + outside (runtime_overhead_bytes) = %llu bytes of the device's %llu: "
            "runs\n", "runs", u(reserved + outside), u(total));
        return LLMMEM_OK;
    }
    llmmem__text_printf(t, "%-17s out of memory: a request of %llu bytes after %s finds no free block and no room for "
        "a segment in the device's %llu less outside %llu%s\n",
        "runs", u(llmmem_report_oom_request_bytes(r)), llmmem_report_oom_after(r), u(total), u(outside),
        llmmem_report_runs_expandable(r) == 1 ? "; it runs with expandable_segments:True" : "");
    return LLMMEM_OK;
}

static llmmem_status build(llmmem__text *t, const llmmem_model *m, const llmmem_hardware *hw, const llmmem_strategy *s)
{
    llmmem_report *r;
    llmmem__trace tr; /* what the estimate worked with: every figure below is its or the report's */
    llmmem_status st = llmmem_report_new(&r);
    if (st)
        return st;
    llmmem__job own;
    const llmmem__job *j;
    if ((st = llmmem__job_resolve(&j, &own, &r->cache->jobs, m, hw, s, NULL)) != LLMMEM_OK ||
        (st = llmmem__estimate_job(r, j, hw->name, r->cache, &tr, 0)) != LLMMEM_OK) {
        llmmem_report_free(r);
        return st;
    }
    const llmmem__layout *L = &tr.layout;
    const llmmem__trace_part *dense = &tr.part[0], *experts = &tr.part[1];
    const size_t stage = llmmem_report_most_loaded_stage(r), stages = llmmem_report_stage_count(r);
    llmmem__text_printf(t, "%s on %s, %s: one device of stage %zu of %zu (the most loaded)\n", m->name[0] ? m->name : "model",
        hw->name[0] ? hw->name : "device", name_of(LLMMEM_KEY_MODE, tr.mode), stage, stages);
    llmmem__text_printf(t, "layout: tensor %llu, pipeline %llu, data %llu, context %llu, expert %llu; every line ends in its bytes\n",
        u(L->t), u(L->p), u(L->d), u(L->c), u(L->e));

    const char *recipe = name_of(LLMMEM_KEY_PRECISION_RECIPE, tr.precision_recipe);
    char source[160];

    /* weights: the rank's whole share, frozen parameters included (adapters add theirs) */
    snprintf(source, sizeof source, "weight_format %s; tensor/pipeline/expert splits as Megatron-LM",
             name_of(LLMMEM_KEY_WEIGHT_FORMAT, tr.weight_format));
    if (r->weights_from_checkpoint)
        llmmem__text_printf(t, "%-17s the checkpoint's stored bytes = %llu bytes  [llmmem_model_use_checkpoint]\n", "weights",
            u(llmmem_report_bytes(r, LLMMEM_COMPONENT_WEIGHTS)));
    else if (L->offload_param)
        llmmem__text_printf(t, "%-17s 0: offload_param keeps them in %s = 0 bytes  [ZeRO-Infinity]\n", "weights",
            name_of(LLMMEM_KEY_OFFLOAD_PARAM, L->offload_param));
    else if (dense->adapter_weights) {
        llmmem__text_printf(t, "%-17s base: ", "weights");
        per_param(t, dense->bytes[LLMMEM_COMPONENT_WEIGHTS] - dense->adapter_weights, dense->params, "params");
        llmmem__text_printf(t, " + adapters: ");
        per_param(t, dense->adapter_weights, dense->trained, "adapter params");
        llmmem__text_printf(t, " = %llu bytes  [%s; LoRA adapters in lora_format]\n", u(llmmem_report_bytes(r, LLMMEM_COMPONENT_WEIGHTS)),
            source);
    } else
        state_line(t, r, &tr, LLMMEM_COMPONENT_WEIGHTS, 0, source);
    if (tr.mode != LLMMEM_MODE_INFERENCE) {
        snprintf(source, sizeof source, "precision_recipe %s, gradient_format %s", recipe,
                 name_of(LLMMEM_KEY_GRADIENT_FORMAT, tr.gradient_format));
        if (L->offload_opt)
            llmmem__text_printf(t, "%-17s 0: offload_optimizer streams them to the host in fp32 = 0 bytes  [ZeRO-Offload]\n",
                "gradients");
        else
            gradient_line(t, r, &tr, source);
        if (L->offload_opt) {
            llmmem__text_printf(t, "%-17s 0: offloaded to %s = 0 bytes  [ZeRO-Offload]\n", "master_weights",
                name_of(LLMMEM_KEY_OFFLOAD_OPTIMIZER, L->offload_opt));
            llmmem__text_printf(t, "%-17s 0: offloaded to %s = 0 bytes  [ZeRO-Offload]\n", "optimizer_states",
                name_of(LLMMEM_KEY_OFFLOAD_OPTIMIZER, L->offload_opt));
        } else {
            snprintf(source, sizeof source, "precision_recipe %s, master_weights_format %s", recipe,
                     name_of(LLMMEM_KEY_MASTER_WEIGHTS_FORMAT, tr.master_weights_format));
            if (dense->bytes[LLMMEM_COMPONENT_MASTER_WEIGHTS] + experts->bytes[LLMMEM_COMPONENT_MASTER_WEIGHTS] == 0)
                llmmem__text_printf(t, "%-17s 0: no separate copy (the weights are already in the master format, or none is "
                       "kept) = 0 bytes  [%s]\n",
                    "master_weights", source);
            else
                state_line(t, r, &tr, LLMMEM_COMPONENT_MASTER_WEIGHTS, 1, source);
            snprintf(source, sizeof source, "optimizer %s, optimizer_state_format %s", name_of(LLMMEM_KEY_OPTIMIZER, tr.optimizer),
                     name_of(LLMMEM_KEY_OPTIMIZER_STATE_FORMAT, tr.optimizer_state_format));
            state_line(t, r, &tr, LLMMEM_COMPONENT_OPTIMIZER_STATES, 1, source);
        }

        moment_lines(t, r, &tr);
    } else if (tr.has_gen) {
        generate_lines(t, r, &tr.gen);
    } else {
        uint64_t kv = llmmem_report_bytes(r, LLMMEM_COMPONENT_KV_CACHE);
        if (!tr.kv_heads)
            llmmem__text_printf(t, "%-17s 0: a model given by its count has no KV heads = 0 bytes  [llmmem.h]\n", "kv_cache");
        else if (tr.kv_whole)
            llmmem__text_printf(t, "%-17s %llu bytes a token x %llu tokens x %llu sequences = %llu bytes  [Hugging Face generate, "
                   "contiguous]\n",
                "kv_cache", u(tr.kv_token_bytes), u(tr.tokens), u(tr.sequences), u(kv));
        else
            llmmem__text_printf(t, "%-17s %llu sequences x %llu tokens, sliding-window layers capped at the window = %llu bytes  "
                   "[transformers cache_utils]\n",
                "kv_cache", u(tr.sequences), u(tr.tokens), u(kv));
    }
    llmmem__text_printf(t, "%-17s %s = %llu bytes  [data-parallel buffers]\n", "comm_buffers",
        L->zero == 1 || L->zero == 2 ? "DeepSpeed reduce and all-gather buckets"
        : L->zero == 3               ? "DeepSpeed ZeRO-3: the largest module gathered, prefetch and reduce buckets"
        : L->fsdp                    ? "FSDP: the root unit, gathered layer units, one unit's gradients"
                                     : "none, or DDP's copy of the gradients (ddp_gradient_copy)",
        u(llmmem_report_bytes(r, LLMMEM_COMPONENT_COMM_BUFFERS)));
    llmmem__text_printf(t, "%-17s runtime_overhead_bytes = %llu bytes  [outside PyTorch's allocator: CUDA context, "
        "kernel modules]\n", "runtime_overhead", u(llmmem_report_bytes(r, LLMMEM_COMPONENT_RUNTIME_OVERHEAD)));
    llmmem__text_printf(t, "%-17s cublas_workspace_bytes x %s = %llu bytes  [ATen CublasHandlePool.cpp: one per "
        "thread that runs matmuls, on CUDA]\n", "workspaces", tr.mode == LLMMEM_MODE_INFERENCE ? "1 thread (forward)"
        : "2 threads (forward, autograd's backward)", u(llmmem_report_bytes(r, LLMMEM_COMPONENT_WORKSPACES)));
    llmmem__text_printf(t, "%-17s the lines above = %llu bytes of %llu usable: %s\n", "total", u(llmmem_report_total_bytes(r)),
        u(llmmem_report_capacity_bytes(r)), llmmem_report_fits(r) ? "fits" : "does not fit");
    st = allocator_lines(t, r, m, hw, s);
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
