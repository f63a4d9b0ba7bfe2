/*
 * launcher — choose a parallel layout for a training job with libllmmem's planner.
 *
 * A launcher knows the model, the GPU and how many of them it has; it must pick tensor, pipeline,
 * data and context parallel sizes, a sharding (ZeRO, FSDP, Megatron's distributed optimizer), a
 * recomputation mode and a micro-batch that fit. llmmem_plan_run tries every valid layout, keeps
 * those that fit and orders them by a cost (llmmem.h); this program takes the cheapest, prints
 * the keys to launch it with, and the memory of each pipeline stage's devices.
 *
 *   launcher [MODEL [GPU [DEVICES [GLOBAL_BATCH [SEQUENCE_LENGTH]]]]]
 *   launcher llama-3.1-70b h100-sxm-80gb 32 128 4096
 *
 * Exit status: 0 when a layout was chosen, 3 when none fits, 2 for bad input, 1 when the library's
 * answers contradict each other (this program doubles as a test).
 *
 * Build: cc launcher.c $(pkg-config --cflags --libs llmmem)
 */
#include <llmmem/llmmem.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static int fail(llmmem_status status, const char *what)
{
    fprintf(stderr, "launcher: %s: %s (%s)\n", what, llmmem_last_message(), llmmem_status_str(status));
    return 2;
}

static int wrong(const char *what)
{
    fprintf(stderr, "launcher: the library answered wrongly: %s\n", what);
    return 1;
}

static int64_t get(const llmmem_strategy *s, llmmem_key key)
{
    int64_t v = 0;
    (void)llmmem_strategy_get_int(&v, s, key);
    return v;
}

static double gib(uint64_t bytes)
{
    return (double)bytes / 1073741824.0;
}

/*
 * The layout as launch flags: every strategy key the planner changed from the base, by name, with
 * choice names where the key has them ("recompute=full", "zero_stage=3"). Generic over the key
 * space, so a key the planner learns to set later shows up without a change here.
 */
static void print_changed_keys(const llmmem_strategy *chosen, const llmmem_strategy *base)
{
    for (size_t i = 0; i < llmmem_key_count(); i++) {
        llmmem_key key = llmmem_key_at(i);
        llmmem_object object;
        llmmem_value_type type;
        if (llmmem_key_object(&object, key) != LLMMEM_OK || object != LLMMEM_OBJECT_STRATEGY ||
            llmmem_key_type(&type, key) != LLMMEM_OK || type == LLMMEM_TYPE_REAL)
            continue;
        int64_t value = get(chosen, key);
        if (value == get(base, key))
            continue;
        const char *name = type == LLMMEM_TYPE_CHOICE ? llmmem_choice_name(key, value) : NULL;
        if (name != NULL)
            printf("  --set %s=%s\n", llmmem_key_name(key), name);
        else
            printf("  --set %s=%" PRId64 "\n", llmmem_key_name(key), value);
    }
}

int main(int argc, char **argv)
{
    const char *model_name = argc > 1 ? argv[1] : "llama-3.1-70b";
    const char *gpu_name = argc > 2 ? argv[2] : "h100-sxm-80gb";
    uint64_t devices = strtoull(argc > 3 ? argv[3] : "32", NULL, 10);
    const char *global_batch = argc > 4 ? argv[4] : "128";
    const char *sequence_length = argc > 5 ? argv[5] : "4096";

    llmmem_model *model = NULL;
    llmmem_hardware *hw = NULL;
    llmmem_strategy *base = NULL, *chosen = NULL;
    llmmem_plan *plan = NULL;
    llmmem_report *report = NULL;
    llmmem_status st;
    int rc = 0;

    /* 1. The job without a layout: training, the global batch and the sequence length. */
    if ((st = llmmem_model_from_preset(&model, model_name)) != LLMMEM_OK ||
        (st = llmmem_hardware_from_preset(&hw, gpu_name)) != LLMMEM_OK ||
        (st = llmmem_strategy_new(&base)) != LLMMEM_OK ||
        (st = llmmem_strategy_set_int(base, LLMMEM_KEY_MODE, LLMMEM_MODE_TRAINING)) != LLMMEM_OK ||
        (st = llmmem_strategy_set_text(base, "global_batch_size", global_batch)) != LLMMEM_OK ||
        (st = llmmem_strategy_set_text(base, "sequence_length", sequence_length)) != LLMMEM_OK) {
        rc = fail(st, "inputs");
        goto done;
    }

    /* 2. Every layout of `devices` GPUs that fits, cheapest first. */
    if ((st = llmmem_plan_new(&plan)) != LLMMEM_OK || (st = llmmem_plan_run(plan, model, hw, base, devices)) != LLMMEM_OK) {
        rc = fail(st, "plan");
        goto done;
    }
    size_t count = llmmem_plan_count(plan);
    printf("%s on %" PRIu64 " x %s: %zu of %" PRIu64 " valid layouts fit\n", model_name, devices, gpu_name, count,
           llmmem_plan_candidates(plan));
    if (count == 0) {
        printf("no layout fits: more devices, a smaller global batch or a shorter sequence\n");
        rc = 3;
        goto done;
    }

    /* 3. The cheapest layout, as a strategy: the base with the layout's keys set. The planner
     *    divides the global batch into micro_batch_size x data_parallel x gradient accumulation
     *    steps; the launcher sets those steps (num_micro_batches) for the run it starts. */
    double cost;
    uint64_t planned_bytes;
    if ((st = llmmem_plan_get(&chosen, plan, 0)) != LLMMEM_OK ||
        (st = llmmem_plan_cost(&cost, &planned_bytes, plan, 0)) != LLMMEM_OK) {
        rc = fail(st, "plan_get");
        goto done;
    }
    int64_t t = get(chosen, LLMMEM_KEY_TENSOR_PARALLEL), p = get(chosen, LLMMEM_KEY_PIPELINE_PARALLEL);
    int64_t d = get(chosen, LLMMEM_KEY_DATA_PARALLEL), c = get(chosen, LLMMEM_KEY_CONTEXT_PARALLEL);
    int64_t mbs = get(chosen, LLMMEM_KEY_MICRO_BATCH_SIZE);
    int64_t steps = get(base, LLMMEM_KEY_GLOBAL_BATCH_SIZE) / (mbs * d);
    if ((st = llmmem_strategy_set_int(chosen, LLMMEM_KEY_NUM_MICRO_BATCHES, steps)) != LLMMEM_OK) {
        rc = fail(st, "num_micro_batches");
        goto done;
    }
    printf("chosen: t %" PRId64 " x p %" PRId64 " x d %" PRId64 " x c %" PRId64 ", %" PRId64
           " micro-batches of %" PRId64 " per step, cost %.3f s/step (a ranking proxy)\n",
           t, p, d, c, steps, mbs, cost);
    printf("launch with:\n");
    print_changed_keys(chosen, base);

    /* 4. Its memory, stage by stage: every device of a stage holds the same bytes. */
    if ((st = llmmem_report_new(&report)) != LLMMEM_OK || (st = llmmem_estimate(report, model, hw, chosen)) != LLMMEM_OK) {
        rc = fail(st, "estimate");
        goto done;
    }
    printf("\n%5s %11s %12s %12s %12s %12s %12s\n", "stage", "layers", "weights GiB", "state GiB", "activ. GiB",
           "other GiB", "total GiB");
    size_t stages = llmmem_report_stage_count(report);
    for (size_t i = 0; i < stages; i++) {
        uint64_t first = 0, layers = 0, sum = 0;
        llmmem_report_stage_layers(&first, &layers, report, i);
        uint64_t weights = llmmem_report_stage_bytes(report, i, LLMMEM_COMPONENT_WEIGHTS);
        uint64_t state = llmmem_report_stage_bytes(report, i, LLMMEM_COMPONENT_GRADIENTS) +
                         llmmem_report_stage_bytes(report, i, LLMMEM_COMPONENT_MASTER_WEIGHTS) +
                         llmmem_report_stage_bytes(report, i, LLMMEM_COMPONENT_OPTIMIZER_STATES);
        uint64_t activations = llmmem_report_stage_bytes(report, i, LLMMEM_COMPONENT_ACTIVATIONS) +
                               llmmem_report_stage_bytes(report, i, LLMMEM_COMPONENT_LOGITS);
        uint64_t total = llmmem_report_stage_total_bytes(report, i);
        for (size_t k = 0; k < llmmem_component_count(); k++)
            sum += llmmem_report_stage_bytes(report, i, (llmmem_component)k);
        printf("%5zu %5" PRIu64 "+%-5" PRIu64 " %12.2f %12.2f %12.2f %12.2f %12.2f\n", i, first, layers, gib(weights),
               gib(state), gib(activations), gib(total - weights - state - activations), gib(total));
        /* Self-check: a stage's total is the sum of its components and fits the device. */
        if (sum != total)
            rc = wrong("a stage's total is not the sum of its components");
        if (total > llmmem_report_capacity_bytes(report))
            rc = wrong("a stage of a layout that fits holds more than the device");
    }
    printf("most loaded: stage %zu, %.2f GiB of %.2f GiB usable\n", llmmem_report_most_loaded_stage(report),
           gib(llmmem_report_total_bytes(report)), gib(llmmem_report_capacity_bytes(report)));

    /* Self-check: the layout spans the devices, fits, and its estimate is the one the planner
     * ranked; the plan is ordered by cost. */
    if ((uint64_t)(t * p * d * c) != devices)
        rc = wrong("the layout does not use every device");
    if (!llmmem_report_fits(report) || llmmem_report_total_bytes(report) != planned_bytes)
        rc = wrong("the chosen layout's estimate differs from the planner's");
    if (llmmem_report_total_bytes(report) !=
        llmmem_report_stage_total_bytes(report, llmmem_report_most_loaded_stage(report)))
        rc = wrong("the report's total is not its most loaded stage's");
    for (size_t i = 1; i < count; i++) {
        double previous, next;
        uint64_t bytes;
        if (llmmem_plan_cost(&previous, &bytes, plan, i - 1) != LLMMEM_OK ||
            llmmem_plan_cost(&next, &bytes, plan, i) != LLMMEM_OK || next < previous)
            rc = wrong("the plan is not ordered by cost");
    }

done:
    llmmem_report_free(report);
    llmmem_plan_free(plan);
    llmmem_strategy_free(chosen);
    llmmem_strategy_free(base);
    llmmem_hardware_free(hw);
    llmmem_model_free(model);
    return rc;
}
