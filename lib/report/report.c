/* Reading a report: getters, component names, and the JSON rendering. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/estimate.h"
#include "base/text.h"

static const char *const component_names[LLMMEM_COMPONENTS] = {
    "weights",     "gradients", "master_weights", "optimizer_states", "activations",
    "logits",      "kv_cache",  "comm_buffers",   "runtime_overhead", "optimizer_temporaries",
    "workspaces",
};

size_t llmmem_component_count(void)
{
    return LLMMEM_COMPONENTS;
}

const char *llmmem_component_name(llmmem_component component)
{
    return (unsigned)component < LLMMEM_COMPONENTS ? component_names[component] : NULL;
}

llmmem_status llmmem_report_new(llmmem_report **out)
{
    LLMMEM_REQUIRE(out);
    *out = calloc(1, sizeof **out);
    if (*out && !((*out)->cache = calloc(1, sizeof *(*out)->cache))) {
        free(*out);
        *out = NULL;
    }
    if (!*out)
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "report_new: out of memory");
    return LLMMEM_OK;
}

llmmem_status llmmem_report_clone(llmmem_report **out, const llmmem_report *report)
{
    LLMMEM_REQUIRE(out);
    *out = NULL;
    LLMMEM_REQUIRE(report);
    llmmem_report *copy = llmmem__duplicate(report, sizeof *report);
    if (!copy)
        return LLMMEM_ERR_NO_MEMORY;
    /* the copy starts with an empty cache of its own */
    if (!(copy->cache = calloc(1, sizeof *copy->cache))) {
        free(copy);
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "report_clone: out of memory");
    }
    *out = copy;
    return LLMMEM_OK;
}

void llmmem_report_free(llmmem_report *report)
{
    if (report)
        free(report->cache);
    free(report);
}

int llmmem_report_valid(const llmmem_report *report)
{
    return report && report->valid;
}

uint64_t llmmem_report_bytes(const llmmem_report *report, llmmem_component component)
{
    if (!report || (unsigned)component >= LLMMEM_COMPONENTS)
        return 0;
    return report->bytes[component];
}

uint64_t llmmem_report_total_bytes(const llmmem_report *report)
{
    return report ? report->total : 0;
}

uint64_t llmmem_report_capacity_bytes(const llmmem_report *report)
{
    return report ? report->capacity : 0;
}

int llmmem_report_fits(const llmmem_report *report)
{
    if (report && report->valid && report->replayed) /* llmmem_estimate_runs: the allocator's answer */
        return report->runs;
    return report && report->valid && report->total <= report->capacity &&
           (report->host_capacity == 0 || report->host_bytes <= report->host_capacity) &&
           (report->nvme_capacity == 0 || report->nvme_bytes <= report->nvme_capacity);
}

size_t llmmem_report_stage_count(const llmmem_report *report)
{
    return report && report->valid ? report->stage_count : 0;
}

uint64_t llmmem_report_stage_bytes(const llmmem_report *report, size_t stage, llmmem_component component)
{
    if (!report || !report->valid || stage >= report->stage_count || (unsigned)component >= LLMMEM_COMPONENTS)
        return 0;
    return report->stages[stage].bytes[component];
}

uint64_t llmmem_report_stage_total_bytes(const llmmem_report *report, size_t stage)
{
    if (!report || !report->valid || stage >= report->stage_count)
        return 0;
    return report->stages[stage].total;
}

llmmem_status llmmem_report_stage_layers(uint64_t *first_out, uint64_t *count_out, const llmmem_report *report,
                                         size_t stage)
{
    LLMMEM_REQUIRE(first_out);
    LLMMEM_REQUIRE(count_out);
    *first_out = *count_out = 0;
    LLMMEM_REQUIRE(report);
    if (!report->valid)
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "report_stage_layers: the report holds no estimate");
    if (stage >= report->stage_count)
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "report_stage_layers: stage %zu of a report with %u stages",
                            stage, report->stage_count);
    *first_out = report->stages[stage].first_layer;
    *count_out = report->stages[stage].layers;
    return LLMMEM_OK;
}

size_t llmmem_report_most_loaded_stage(const llmmem_report *report)
{
    return report && report->valid ? report->most_loaded : 0;
}

uint64_t llmmem_report_host_bytes(const llmmem_report *report)
{
    return report && report->valid ? report->host_bytes : 0;
}

uint64_t llmmem_report_nvme_bytes(const llmmem_report *report)
{
    return report && report->valid ? report->nvme_bytes : 0;
}

static const char *const comm_names[LLMMEM_COMM_KINDS] = {"data", "tensor", "pipeline", "expert", "context"};

uint64_t llmmem_report_comm_bytes(const llmmem_report *report, llmmem_comm kind)
{
    if (!report || !report->valid || (unsigned)kind >= LLMMEM_COMM_KINDS)
        return 0;
    return report->comm[kind];
}

const char *llmmem_comm_name(llmmem_comm kind)
{
    return (unsigned)kind < LLMMEM_COMM_KINDS ? comm_names[kind] : NULL;
}

uint64_t llmmem_report_parameters(const llmmem_report *report, llmmem_param_group group)
{
    if (!report || (unsigned)group >= LLMMEM_PARAM_GROUPS)
        return 0;
    return report->params[group];
}

uint64_t llmmem_report_total_parameters(const llmmem_report *report)
{
    return report ? report->params_total : 0;
}

uint64_t llmmem_report_active_parameters(const llmmem_report *report)
{
    return report ? report->params_active : 0;
}

uint64_t llmmem_report_trainable_parameters(const llmmem_report *report)
{
    return report ? report->params_trainable : 0;
}

uint64_t llmmem_report_peak_part(const llmmem_report *report, llmmem_peak_part part)
{
    if (!report || (unsigned)part >= LLMMEM_PEAK_PARTS)
        return 0;
    return report->peak_parts[part];
}

llmmem_peak_phase llmmem_report_peak_phase(const llmmem_report *report)
{
    return report && report->valid ? (llmmem_peak_phase)report->peak_phase : LLMMEM_PEAK_PHASE_STATIC;
}

int64_t llmmem_report_peak_layer(const llmmem_report *report)
{
    if (!report || !report->valid ||
        (report->peak_phase != LLMMEM_PEAK_PHASE_BACKWARD && report->peak_phase != LLMMEM_PEAK_PHASE_RECOMPUTE &&
         report->peak_phase != LLMMEM_PEAK_PHASE_PREFILL && report->peak_phase != LLMMEM_PEAK_PHASE_DECODE))
        return -1;
    return report->peak_layer;
}

uint64_t llmmem_report_peak_step(const llmmem_report *report)
{
    if (!report || !report->valid ||
        (report->peak_phase != LLMMEM_PEAK_PHASE_PREFILL && report->peak_phase != LLMMEM_PEAK_PHASE_DECODE))
        return 0;
    return report->peak_step;
}

static const char *const peak_part_names[LLMMEM_PEAK_PARTS] = {
    "activations_held", "recompute", "logits_held", "logits_transient", "host_activations", "largest_layer",
};
static const char *const peak_phase_names[] = {"static",   "loss",      "recompute", "forward",
                                               "backward", "optimizer", "prefill",   "decode",
                                               "loss_done", "backward_done", "optimizer_done"};

const char *llmmem_peak_phase_name(llmmem_peak_phase phase)
{
    return (unsigned)phase < sizeof peak_phase_names / sizeof peak_phase_names[0] ? peak_phase_names[phase] : NULL;
}

/* ---- JSON -------------------------------------------------------------- */

static void put_member_u64(llmmem__text *b, const char *indent, const char *name, uint64_t v, int last)
{
    char num[32];
    snprintf(num, sizeof num, "%llu", (unsigned long long)v);
    llmmem__text_str(b, indent);
    llmmem__text_quoted(b, name);
    llmmem__text_str(b, ": ");
    llmmem__text_str(b, num);
    llmmem__text_str(b, last ? "\n" : ",\n");
}

llmmem_status llmmem_report_to_json(char **json_out, const llmmem_report *report)
{
    LLMMEM_REQUIRE(json_out);
    *json_out = NULL;
    LLMMEM_REQUIRE(report);
    if (!report->valid)
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "report_to_json: the report holds no estimate");
    llmmem__text b = {0};
    llmmem__text_str(&b, "{\n  \"model\": ");
    llmmem__text_quoted(&b, report->model_name);
    llmmem__text_str(&b, ",\n  \"hardware\": ");
    llmmem__text_quoted(&b, report->hardware_name);
    llmmem__text_str(&b, ",\n  \"weights_source\": ");
    llmmem__text_quoted(&b, report->weights_from_checkpoint ? "checkpoint" : "inventory");
    llmmem__text_str(&b, ",\n  \"parameters\": {\n");
    for (unsigned g = 0; g < LLMMEM_PARAM_GROUPS; g++)
        put_member_u64(&b, "    ", llmmem_param_group_name((llmmem_param_group)g), report->params[g], 0);
    put_member_u64(&b, "    ", "total", report->params_total, 0);
    put_member_u64(&b, "    ", "active", report->params_active, 1);
    llmmem__text_str(&b, "  },\n  \"per_device\": {\n");
    for (unsigned c = 0; c < LLMMEM_COMPONENTS; c++)
        put_member_u64(&b, "    ", component_names[c], report->bytes[c], 0);
    put_member_u64(&b, "    ", "total", report->total, 1);
    llmmem__text_str(&b, "  },\n");
    if (report->peak_phase == LLMMEM_PEAK_PHASE_PREFILL || report->peak_phase == LLMMEM_PEAK_PHASE_DECODE) {
        llmmem__text_str(&b, "  \"inference_peak\": {\n    \"phase\": ");
        llmmem__text_quoted(&b, peak_phase_names[report->peak_phase]);
        llmmem__text_printf(&b, ",\n    \"layer\": %lld,\n", (long long)llmmem_report_peak_layer(report));
        put_member_u64(&b, "    ", "step", llmmem_report_peak_step(report), 0);
        llmmem__text_str(&b, "    \"moment\": ");
        llmmem__text_quoted(&b, report->peak_moment ? report->peak_moment : "");
        llmmem__text_str(&b, "\n  },\n");
    } else if (report->peak_phase != LLMMEM_PEAK_PHASE_STATIC) {
        llmmem__text_str(&b, "  \"training_peak\": {\n    \"phase\": ");
        llmmem__text_quoted(&b, peak_phase_names[report->peak_phase]);
        llmmem__text_printf(&b, ",\n    \"layer\": %lld,\n", (long long)llmmem_report_peak_layer(report));
        put_member_u64(&b, "    ", "trainable_parameters", report->params_trainable, 0);
        for (unsigned p = 0; p < LLMMEM_PEAK_PARTS; p++)
            put_member_u64(&b, "    ", peak_part_names[p], report->peak_parts[p], p + 1 == LLMMEM_PEAK_PARTS);
        llmmem__text_str(&b, "  },\n");
    }
    llmmem__text_str(&b, "  \"stages\": [\n");
    for (unsigned i = 0; i < report->stage_count; i++) {
        const llmmem__stage_report *st = &report->stages[i];
        llmmem__text_str(&b, "    {\n");
        put_member_u64(&b, "      ", "first_layer", st->first_layer, 0);
        put_member_u64(&b, "      ", "layers", st->layers, 0);
        for (unsigned c = 0; c < LLMMEM_COMPONENTS; c++)
            put_member_u64(&b, "      ", component_names[c], st->bytes[c], 0);
        put_member_u64(&b, "      ", "total", st->total, 1);
        llmmem__text_str(&b, i + 1 == report->stage_count ? "    }\n" : "    },\n");
    }
    llmmem__text_str(&b, "  ],\n");
    put_member_u64(&b, "  ", "most_loaded_stage", report->most_loaded, 0);
    put_member_u64(&b, "  ", "host_bytes_per_node", report->host_bytes, 0);
    put_member_u64(&b, "  ", "nvme_bytes_per_node", report->nvme_bytes, 0);
    llmmem__text_str(&b, "  \"comm_bytes_per_step\": {\n");
    for (unsigned k = 0; k < LLMMEM_COMM_KINDS; k++)
        put_member_u64(&b, "    ", comm_names[k], report->comm[k], k + 1 == LLMMEM_COMM_KINDS);
    llmmem__text_str(&b, "  },\n");
    put_member_u64(&b, "  ", "memory_bytes", report->memory_bytes, 0);
    put_member_u64(&b, "  ", "capacity_bytes", report->capacity, 0);
    put_member_u64(&b, "  ", "device_total_bytes", report->device_total, 0);
    if (report->replayed) {
        /* llmmem_estimate_runs: the caching allocator's replay */
        llmmem__text_str(&b, "  \"allocator\": {\n");
        put_member_u64(&b, "    ", "allocated_peak", report->allocated_peak, 0);
        put_member_u64(&b, "    ", "reserved_peak", report->reserved_peak, 0);
        put_member_u64(&b, "    ", "reserved_low", report->reserved_low, 0);
        put_member_u64(&b, "    ", "free_at_reserved_peak", report->free_at_reserved_peak, 0);
        put_member_u64(&b, "    ", "outside", report->bytes[LLMMEM_COMPONENT_RUNTIME_OVERHEAD], 0);
        put_member_u64(&b, "    ", "decode_stride", report->decode_stride, 0);
        llmmem__text_printf(&b, "    \"runs\": %s", report->runs ? "true" : "false");
        if (!report->runs) {
            llmmem__text_printf(&b, ",\n    \"runs_with_expandable_segments\": %s",
                                report->runs_expandable < 0 ? "null" : report->runs_expandable ? "true" : "false");
            llmmem__text_str(&b, ",\n    \"out_of_memory\": {\n");
            put_member_u64(&b, "      ", "request", report->oom_request, 0);
            llmmem__text_str(&b, "      \"after\": ");
            llmmem__text_quoted(&b, report->oom_after);
            llmmem__text_str(&b, "\n    }");
        }
        llmmem__text_str(&b, "\n  },\n");
    }
    llmmem__text_str(&b, llmmem_report_fits(report) ? "  \"fits\": true\n}\n" : "  \"fits\": false\n}\n");
    return llmmem__text_finish(json_out, &b, "report_to_json");
}
