/* libFuzzer target: the layout planner and the fewest-devices search over any device count (up
 * to past LLMMEM_PLAN_MAX_DEVICES), any model, hardware and planner keys. Every call returns a
 * status within its work limit (2^12 units a call: each execution takes milliseconds), never
 * crashes, leaks or hangs, and the answers agree with each other: a plan holds at most its limit
 * of layouts, cheapest first, each estimating to the bytes it was ranked by; the fewest devices
 * fit, one device fewer does not, and for a few devices the answer is the one running the
 * planner on every count gives.
 *
 * Input bytes: a model preset, a GPU preset, up to 12 key settings, the device count, the plan's
 * limit and work limit, and max_devices. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llmmem/llmmem.h"
#include "reader.h"

static uint64_t take_u32(reader *r)
{
    return take_be(r, 4);
}

/* Device counts with many divisors, the planner's largest, and one past it. */
static const uint64_t counts[] = {1, 2, 8, 12, 64, 720, 1024, 5040, 8648640, 10810800, 14414400, 16777216,
                                  16777217};

static uint64_t take_count(reader *r)
{
    switch (take_u8(r) % 4) {
    case 0: return take_u8(r) % 64 + 1;
    case 1: return counts[take_u8(r) % (sizeof counts / sizeof counts[0])];
    case 2: return take_u32(r) % (LLMMEM_PLAN_MAX_DEVICES + 2);
    default: return take_u32(r);
    }
}

static int64_t take_value(reader *r)
{
    switch (take_u8(r) % 4) {
    case 0: return take_u8(r);
    case 1: return (int64_t)take_u8(r) << (take_u8(r) % 40);
    case 2: return (int64_t)take_u32(r);
    default: return -(int64_t)take_u8(r);
    }
}

static const char *const strategy_keys[] = {
    "mode", "sequence_length", "global_batch_size", "micro_batch_size", "plan_max_tensor_parallel",
    "plan_max_pipeline_parallel", "plan_max_context_parallel", "plan_max_virtual_pipeline",
    "plan_max_micro_batch_size", "plan_shardings", "plan_recompute", "expert_tensor_parallel",
    "offload_optimizer", "offload_param", "ddp_gradient_copy", "weight_format", "frozen_layers", "zero_stage"};
static const char *const model_keys[] = {"num_hidden_layers",   "num_attention_heads", "num_key_value_heads",
                                         "num_experts",         "hidden_size",         "intermediate_size",
                                         "first_k_dense_replace", "moe_layer_freq"};
static const char *const hardware_keys[] = {"memory_bytes", "devices_per_node", "host_memory_bytes", "nvme_bytes",
                                            "runtime_overhead_bytes"};

#define N_OF(a) (sizeof a / sizeof a[0])

static void set_key(reader *r, llmmem_model *m, llmmem_hardware *hw, llmmem_strategy *s)
{
    uint8_t which = take_u8(r);
    llmmem_key key;
    int64_t value = take_value(r);
    switch (which % 3) {
    case 0:
        if (llmmem_key_from_name(&key, strategy_keys[(which / 3) % N_OF(strategy_keys)]) == LLMMEM_OK)
            (void)llmmem_strategy_set_int(s, key, value);
        break;
    case 1:
        if (llmmem_key_from_name(&key, model_keys[(which / 3) % N_OF(model_keys)]) == LLMMEM_OK)
            (void)llmmem_model_set_int(m, key, value);
        break;
    default:
        if (llmmem_key_from_name(&key, hardware_keys[(which / 3) % N_OF(hardware_keys)]) == LLMMEM_OK)
            (void)llmmem_hardware_set_int(hw, key, value);
        break;
    }
}

static int64_t get(const llmmem_strategy *s, llmmem_key key)
{
    int64_t v = 0;
    if (llmmem_strategy_get_int(&v, s, key) != LLMMEM_OK)
        abort();
    return v;
}

/* What a successful run must hold. */
static void check_plan(llmmem_plan *plan, llmmem_report *rep, const llmmem_model *m, const llmmem_hardware *hw,
                       uint64_t devices, size_t limit)
{
    size_t n = llmmem_plan_count(plan);
    if (n > llmmem_plan_fitting(plan) || llmmem_plan_fitting(plan) > llmmem_plan_candidates(plan))
        abort();
    if (limit ? n != (llmmem_plan_fitting(plan) < limit ? llmmem_plan_fitting(plan) : limit)
              : n != llmmem_plan_fitting(plan))
        abort();
    double previous = -1;
    uint64_t previous_bytes = 0;
    for (size_t i = 0; i < n; i++) {
        double cost;
        uint64_t bytes;
        if (llmmem_plan_cost(&cost, &bytes, plan, i) != LLMMEM_OK || isnan(cost) || cost < previous ||
            (cost == previous && bytes < previous_bytes))
            abort();
        previous = cost;
        previous_bytes = bytes;
        if (i < 3) { /* the layout's strategy estimates to what it was ranked by */
            llmmem_strategy *got;
            if (llmmem_plan_get(&got, plan, i) != LLMMEM_OK)
                abort();
            uint64_t world = (uint64_t)get(got, LLMMEM_KEY_TENSOR_PARALLEL) * (uint64_t)get(got, LLMMEM_KEY_PIPELINE_PARALLEL) *
                             (uint64_t)get(got, LLMMEM_KEY_DATA_PARALLEL) * (uint64_t)get(got, LLMMEM_KEY_CONTEXT_PARALLEL);
            if (world != devices || llmmem_estimate(rep, m, hw, got) != LLMMEM_OK ||
                llmmem_report_total_bytes(rep) != bytes || !llmmem_report_fits(rep))
                abort();
            llmmem_strategy_free(got);
        }
    }
    if (llmmem_plan_count(plan) && llmmem_plan_cost(&previous, &previous_bytes, plan, n) != LLMMEM_ERR_OUT_OF_RANGE)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    llmmem_model *m = NULL;
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_plan *plan = NULL, *other = NULL;
    llmmem_report *rep = NULL;
    size_t models = llmmem_model_preset_count(), gpus = llmmem_hardware_preset_count();
    if (llmmem_model_from_preset(&m, llmmem_model_preset_name(take_u8(&r) % models)) != LLMMEM_OK ||
        llmmem_hardware_from_preset(&hw, llmmem_hardware_preset_name(take_u8(&r) % gpus)) != LLMMEM_OK ||
        llmmem_strategy_new(&s) != LLMMEM_OK || llmmem_plan_new(&plan) != LLMMEM_OK ||
        llmmem_plan_new(&other) != LLMMEM_OK || llmmem_report_new(&rep) != LLMMEM_OK)
        abort();
    unsigned settings = take_u8(&r) % 13;
    for (unsigned i = 0; i < settings; i++)
        set_key(&r, m, hw, s);
    uint64_t devices = take_count(&r);
    size_t limit = take_u8(&r) % 3 == 0 ? 0 : (size_t)(take_u8(&r) % 40 + 1);
    /* at most 2^12 units a call, so that an execution takes milliseconds and the fuzz suite's
     * runs stay within minutes; the spaces beyond it are refused, which is fuzzed too */
    uint64_t work = (take_u32(&r) & ((1u << 12) - 1)) + 1;
    uint64_t max_devices = take_count(&r);
    if (llmmem_plan_set_limit(plan, limit) != LLMMEM_OK || llmmem_plan_set_work_limit(plan, work) != LLMMEM_OK ||
        llmmem_plan_set_work_limit(other, work) != LLMMEM_OK || llmmem_plan_set_limit(other, 1) != LLMMEM_OK)
        abort();

    uint64_t total;
    const int model_ok = llmmem_model_total_parameters(&total, m) == LLMMEM_OK;
    llmmem_status st = llmmem_plan_run(plan, m, hw, s, devices);
    if (st == LLMMEM_OK)
        check_plan(plan, rep, m, hw, devices, limit);
    else if (llmmem_plan_count(plan) || llmmem_plan_fitting(plan) || llmmem_last_message()[0] == '\0')
        abort();
    if (model_ok && (devices == 0 || devices > LLMMEM_PLAN_MAX_DEVICES) && st != LLMMEM_ERR_OUT_OF_RANGE)
        abort();

    uint64_t fewest = 0;
    st = llmmem_plan_min_devices(&fewest, plan, m, hw, s, max_devices);
    if (st != LLMMEM_OK) {
        if (fewest || llmmem_plan_count(plan) || llmmem_last_message()[0] == '\0')
            abort();
    } else if (fewest == 0) {
        if (llmmem_plan_count(plan) || max_devices == 0 || max_devices > LLMMEM_PLAN_MAX_DEVICES)
            abort();
    } else {
        /* the plan holds the layouts of the fewest devices; one fewer has none */
        if (fewest > max_devices || llmmem_plan_fitting(plan) == 0)
            abort();
        check_plan(plan, rep, m, hw, fewest, limit);
        if (fewest > 1 && llmmem_plan_run(other, m, hw, s, fewest - 1) == LLMMEM_OK && llmmem_plan_fitting(other))
            abort();
    }
    /* a few devices: the answer of trying every count, where every try stays within the limit */
    if (st == LLMMEM_OK && max_devices <= 6) {
        uint64_t first = 0;
        int complete = 1;
        for (uint64_t n = 1; n <= max_devices && !first && complete; n++) {
            if (llmmem_plan_run(other, m, hw, s, n) != LLMMEM_OK)
                complete = 0;
            else if (llmmem_plan_fitting(other))
                first = n;
        }
        if (complete && first != fewest)
            abort();
        uint64_t solved = 0;
        if (llmmem_solve_min_devices(&solved, m, hw, s, max_devices) == LLMMEM_OK && solved != fewest)
            abort();
    }

    llmmem_report_free(rep);
    llmmem_plan_free(other);
    llmmem_plan_free(plan);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
    return 0;
}
