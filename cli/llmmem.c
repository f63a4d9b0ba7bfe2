/*
 * llmmem — command-line front end of libllmmem.
 *
 * A user of the public API like any other: it includes only <llmmem/llmmem.h>
 * and links against the shared library. The library does every computation
 * and writes every message about a setting; this file parses the command line,
 * prints tables and maps failures to exit statuses:
 *   0  success (an estimate that does not fit is still a success),
 *   2  bad input: usage errors and every library status caused by the user's
 *      names and numbers,
 *   1  internal failure: out of memory, I/O, output that could not be written.
 */
#include <llmmem/llmmem.h>

#include "args.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MODEL CLI_DEFAULT_MODEL
#define DEFAULT_GPU CLI_DEFAULT_GPU

enum { EXIT_INTERNAL = CLI_EXIT_INTERNAL, EXIT_USAGE = CLI_EXIT_USAGE };

static const double bytes_per_gib = 1073741824.0; /* 2^30 */
static const double bytes_per_gb = 1e9;           /* 10^9 */

/* ------------------------------------------------------------------------ */
/* Messages                                                                  */
/* ------------------------------------------------------------------------ */

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static void error_msg(const char *fmt, ...)
{
    va_list ap;
    fputs("llmmem: error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static int exit_for_status(llmmem_status status)
{
    /* IO: a file the user named (--config, --safetensors, --gguf) cannot be read: bad input */
    return status == LLMMEM_ERR_NO_MEMORY ? EXIT_INTERNAL : EXIT_USAGE;
}

/*
 * Report a failed library call: the library's message, which names the key,
 * value or name at fault. `context` is printed only if the message is empty.
 */
static int library_failure(llmmem_status status, const char *context)
{
    const char *msg = llmmem_last_message();
    if (msg != NULL && msg[0] != '\0')
        error_msg("%s", msg);
    else
        error_msg("%s: %s", context, llmmem_status_str(status));
    return exit_for_status(status);
}

/* A library call that fails only if the library itself is broken. */
static int internal_failure(llmmem_status status, const char *what)
{
    const char *msg = llmmem_last_message();
    error_msg("%s failed: %s%s%s", what, llmmem_status_str(status),
              (msg != NULL && msg[0] != '\0') ? ": " : "", msg != NULL ? msg : "");
    return EXIT_INTERNAL;
}

static int finish_output(int code)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        error_msg("could not write the output");
        return code == 0 ? EXIT_INTERNAL : code;
    }
    return code;
}

/* One option in the usage: its spelling and value name in a column of 16, then its help, each
 * further line under the first (a longer spelling pushes the first line right). */
static void print_option(FILE *out, const cli_option *opt)
{
    char label[64];
    if (opt->alias != NULL)
        snprintf(label, sizeof label, "%s, %s", opt->alias, opt->name);
    else if (opt->arg != NULL)
        snprintf(label, sizeof label, "%s %s", opt->name, opt->arg);
    else
        snprintf(label, sizeof label, "%s", opt->name);
    fprintf(out, strlen(label) < 16 ? "  %-16s " : "  %s  ", label);
    for (const char *line = opt->help;;) {
        const char *end = strchr(line, '\n');
        if (end == NULL) {
            fprintf(out, "%s\n", line);
            return;
        }
        fprintf(out, "%.*s\n%19s", (int)(end - line), line, "");
        line = end + 1;
    }
}

static void print_usage(FILE *out)
{
    size_t i;
    fprintf(out,
            "Usage: llmmem COMMAND [OPTIONS]\n"
            "\n"
            "Exact memory estimates for large language models (libllmmem %s).\n"
            "\n"
            "Commands:\n",
            llmmem_version_string());
    for (i = 0; i < cli_command_count; i++)
        fprintf(out, "  %-10s %s\n", cli_commands[i].name, cli_commands[i].summary);
    fputs("\nOptions:\n", out);
    for (i = 0; i < cli_option_count; i++)
        print_option(out, &cli_option_table[i]);
    fputs("\n"
          "Units: byte counts are exact; GiB = 2^30 bytes, GB = 10^9 bytes;\n"
          "parameter counts are exact; B = 10^9, M = 10^6, K = 10^3 parameters.\n"
          "Whole numbers (--length, --devices, --top, integer keys of --set) take an\n"
          "optional exponent and unit: 7e9, 1.5e9, 8K, 80GiB (no spaces).\n"
          "\n"
          "Exit status: 0 success (whether or not the estimate fits), 2 bad input,\n"
          "1 internal failure.\n"
          "\n"
          "Examples:\n"
          "  llmmem estimate --model llama-3.1-70b --gpu h100-sxm-80gb\n"
          "  llmmem estimate --set weight_format=bnb_nf4 --json\n"
          "  llmmem estimate --set model_type=custom --set num_parameters=70000000000 \\\n"
          "                  --set torch_dtype=bf16\n"
          "  llmmem params --model llama-3.1-70b\n"
          "  llmmem serve --model llama-3.1-70b --set tensor_parallel=4 --length 8192\n"
          "  llmmem fit --model llama-3.1-8b --set mode=training --set sequence_length=8192\n"
          "  llmmem plan --model llama-3.1-405b --devices 1024 --set mode=training \\\n"
          "              --set global_batch_size=1024 --set sequence_length=8192\n",
          out);
}

/* ------------------------------------------------------------------------ */
/* Formatting                                                                */
/* ------------------------------------------------------------------------ */

/* A parameter count for people: "70.55 B", "124.44 M", "512". */
static void format_count(char *buf, size_t size, uint64_t n)
{
    if (n >= 1000000000u)
        snprintf(buf, size, "%.2f B", (double)n / 1e9);
    else if (n >= 1000000u)
        snprintf(buf, size, "%.2f M", (double)n / 1e6);
    else if (n >= 1000u)
        snprintf(buf, size, "%.2f K", (double)n / 1e3);
    else
        snprintf(buf, size, "%" PRIu64, n);
}

/* One table row: name, exact bytes, GiB, GB. */
static void print_bytes_row(int name_width, const char *name, uint64_t bytes)
{
    printf("%-*s %20" PRIu64 " bytes %12.2f GiB %12.2f GB\n", name_width, name, bytes,
           (double)bytes / bytes_per_gib, (double)bytes / bytes_per_gb);
}

/* ------------------------------------------------------------------------ */
/* Building inputs                                                           */
/* ------------------------------------------------------------------------ */

/* Length of the KEY part of a KEY=VALUE text. */
static size_t set_key_length(const char *set)
{
    return (size_t)(strchr(set, '=') - set);
}

static int sets_model_type(const cli_options *opts)
{
    static const char name[] = "model_type";
    size_t i;
    for (i = 0; i < opts->set_count; i++)
        if (set_key_length(opts->sets[i]) == sizeof name - 1 &&
            strncmp(opts->sets[i], name, sizeof name - 1) == 0)
            return 1;
    return 0;
}

/*
 * The model, and the checkpoint of --gguf or --safetensors (*ck_out, NULL without one; the caller
 * frees it), each file read once, by the library. The model: a GGUF's metadata; the preset named by
 * --model or the config of --config; a safetensors checkpoint's own (the config.json beside it) when
 * neither is given and the command line does not set model_type; an empty model when it does (a
 * family change makes a preset's structure meaningless); else the default preset.
 */
static int model_of(llmmem_model **model, llmmem_checkpoint **ck_out, const cli_options *opts)
{
    llmmem_status st = LLMMEM_OK;
    const char *checkpoint = opts->gguf != NULL ? opts->gguf : opts->safetensors;
    if (opts->gguf != NULL)
        st = llmmem_checkpoint_from_gguf(ck_out, opts->gguf);
    else if (opts->safetensors != NULL)
        st = llmmem_checkpoint_from_safetensors(ck_out, opts->safetensors);
    if (st != LLMMEM_OK)
        return library_failure(st, checkpoint);
    if (opts->gguf != NULL ||
        (opts->safetensors != NULL && opts->config == NULL && opts->model == NULL && !sets_model_type(opts))) {
        if ((st = llmmem_checkpoint_model(model, *ck_out)) == LLMMEM_OK)
            return 0;
        if (opts->gguf != NULL)
            return library_failure(st, checkpoint);
        error_msg("%s; or give the model: --model, --config or --set model_type=...", llmmem_last_message());
        return exit_for_status(st);
    }
    if (opts->config != NULL) {
        st = llmmem_model_from_hf_config(model, opts->config);
        return st == LLMMEM_OK ? 0 : library_failure(st, opts->config);
    }
    if (opts->model == NULL && sets_model_type(opts)) {
        st = llmmem_model_new(model);
        return st == LLMMEM_OK ? 0 : internal_failure(st, "llmmem_model_new");
    }
    st = llmmem_model_from_preset(model, opts->model != NULL ? opts->model : DEFAULT_MODEL);
    return st == LLMMEM_OK ? 0 : library_failure(st, opts->model != NULL ? opts->model : DEFAULT_MODEL);
}

static int make_model(llmmem_model **model, llmmem_checkpoint **ck_out, const cli_options *opts)
{
    int rc;
    *ck_out = NULL;
    if ((rc = model_of(model, ck_out, opts)) != 0) {
        llmmem_checkpoint_free(*ck_out);
        *ck_out = NULL;
    }
    return rc;
}

static int make_hardware(llmmem_hardware **hw, const cli_options *opts)
{
    const char *name = opts->gpu != NULL ? opts->gpu : DEFAULT_GPU;
    llmmem_status st = llmmem_hardware_from_preset(hw, name);
    return st == LLMMEM_OK ? 0 : library_failure(st, name);
}

static const char *object_name(llmmem_object object)
{
    switch (object) {
    case LLMMEM_OBJECT_MODEL: return "model";
    case LLMMEM_OBJECT_HARDWARE: return "hardware";
    case LLMMEM_OBJECT_STRATEGY: return "strategy";
    }
    return "?";
}

/*
 * Apply every --set, in order, to the object that owns its key. A NULL
 * hardware or strategy means the command takes no keys of that object.
 */
static int apply_sets(const cli_options *opts, llmmem_model *model, llmmem_hardware *hw,
                      llmmem_strategy *strategy)
{
    size_t i;
    for (i = 0; i < opts->set_count; i++) {
        const char *set = opts->sets[i];
        size_t key_len = set_key_length(set);
        const char *value = set + key_len + 1;
        char *name = malloc(key_len + 1);
        llmmem_key key = LLMMEM_KEY_NONE;
        llmmem_object object = LLMMEM_OBJECT_MODEL;
        llmmem_status st;

        if (name == NULL) {
            error_msg("out of memory");
            return EXIT_INTERNAL;
        }
        memcpy(name, set, key_len);
        name[key_len] = '\0';

        st = llmmem_key_from_name(&key, name);
        if (st == LLMMEM_OK)
            st = llmmem_key_object(&object, key);
        if (st == LLMMEM_OK && ((object == LLMMEM_OBJECT_HARDWARE && hw == NULL) ||
                                (object == LLMMEM_OBJECT_STRATEGY && strategy == NULL))) {
            error_msg("--set %s: '%s' is a %s key; '%s' takes model keys only", set, name,
                      object_name(object), opts->command);
            free(name);
            return EXIT_USAGE;
        }
        if (st == LLMMEM_OK) {
            switch (object) {
            case LLMMEM_OBJECT_MODEL:
                st = llmmem_model_set_text(model, name, value);
                break;
            case LLMMEM_OBJECT_HARDWARE:
                st = llmmem_hardware_set_text(hw, name, value);
                break;
            case LLMMEM_OBJECT_STRATEGY:
                st = llmmem_strategy_set_text(strategy, name, value);
                break;
            default:
                free(name);
                return internal_failure(LLMMEM_ERR_INVALID_ARGUMENT, "llmmem_key_object");
            }
        }
        free(name);
        if (st != LLMMEM_OK) {
            char context[64];
            snprintf(context, sizeof context, "--set %.50s", set);
            return library_failure(st, context);
        }
    }
    return 0;
}

/*
 * With --safetensors or --gguf (ck not NULL): cross-check the checkpoint against the model (a
 * mismatch is reported on stderr, not hidden) and make its stored bytes the model's weights.
 */
static int attach_checkpoint(const llmmem_checkpoint *ck, llmmem_model *model)
{
    llmmem_status st;
    if (ck == NULL)
        return 0;
    st = llmmem_checkpoint_verify(ck, model);
    if (st == LLMMEM_ERR_INCOMPATIBLE)
        fprintf(stderr, "llmmem: warning: the checkpoint does not match the model: %s\n", llmmem_last_message());
    else if (st != LLMMEM_OK)
        return library_failure(st, "checkpoint");
    if ((st = llmmem_model_use_checkpoint(model, ck)) != LLMMEM_OK)
        return library_failure(st, "checkpoint");
    return 0;
}

/* What a checkpoint stores beside the parameters, and its bytes per dtype. */
static void print_checkpoint_summary(const llmmem_checkpoint *ck)
{
    static const struct { llmmem_tensor_role role; const char *name; } roles[] = {
        {LLMMEM_TENSOR_PARAMETER, "parameters"},
        {LLMMEM_TENSOR_BUFFER, "buffers (not parameters)"},
        {LLMMEM_TENSOR_DUPLICATE, "duplicates (tied copies)"},
        {LLMMEM_TENSOR_QUANT_AUX, "quantization data"},
    };
    size_t i;
    printf("\ncheckpoint: %zu tensors, %" PRIu64 " bytes stored\n", llmmem_checkpoint_tensor_count(ck),
           llmmem_checkpoint_total_bytes(ck));
    for (i = 0; i < sizeof roles / sizeof roles[0]; i++)
        printf("  %-26s %20" PRIu64 " elements %20" PRIu64 " bytes\n", roles[i].name,
               llmmem_checkpoint_role_elements(ck, roles[i].role), llmmem_checkpoint_role_bytes(ck, roles[i].role));
    for (i = 0; i < llmmem_checkpoint_dtype_count(ck); i++) {
        const char *dtype = NULL;
        uint64_t elements = 0, bytes = 0;
        if (llmmem_checkpoint_dtype(&dtype, &elements, &bytes, ck, i) == LLMMEM_OK)
            printf("  dtype %-20s %20" PRIu64 " elements %20" PRIu64 " bytes\n", dtype, elements, bytes);
    }
}

static const char *model_label(const llmmem_model *model)
{
    const char *name = llmmem_model_name(model);
    return (name != NULL && name[0] != '\0') ? name : "(custom)";
}

static int name_column_width(size_t count, const char *(*name_at)(size_t), int minimum)
{
    int width = minimum;
    size_t i;
    for (i = 0; i < count; i++) {
        const char *name = name_at(i);
        if (name != NULL && (int)strlen(name) > width)
            width = (int)strlen(name);
    }
    return width;
}

static const char *group_name_at(size_t i)
{
    return llmmem_param_group_name((llmmem_param_group)i);
}

static const char *component_name_at(size_t i)
{
    return llmmem_component_name((llmmem_component)i);
}

/* ------------------------------------------------------------------------ */
/* Commands                                                                  */
/* ------------------------------------------------------------------------ */

static int cmd_params(const cli_options *opts)
{
    llmmem_model *model = NULL;
    llmmem_checkpoint *ck = NULL;
    size_t groups = llmmem_param_group_count();
    int width = name_column_width(groups, group_name_at, 6);
    uint64_t total = 0, active = 0;
    char human[32];
    llmmem_status st;
    size_t g;
    int rc;

    if ((rc = make_model(&model, &ck, opts)) != 0)
        return rc;
    if ((rc = apply_sets(opts, model, NULL, NULL)) != 0)
        goto done;
    if ((rc = attach_checkpoint(ck, model)) != 0)
        goto done;

    /* Count everything before printing, so a failure prints nothing on stdout. */
    st = llmmem_model_total_parameters(&total, model);
    if (st == LLMMEM_OK)
        st = llmmem_model_active_parameters(&active, model);
    if (st != LLMMEM_OK) {
        rc = library_failure(st, "parameters");
        goto done;
    }

    printf("model: %s\n\n", model_label(model));
    printf("%-*s %20s%s\n", width, "group", "parameters", ck ? "           checkpoint" : "");
    for (g = 0; g < groups; g++) {
        uint64_t n = 0;
        const char *name = llmmem_param_group_name((llmmem_param_group)g);
        st = llmmem_model_parameters(&n, model, (llmmem_param_group)g);
        if (st != LLMMEM_OK) {
            rc = library_failure(st, name != NULL ? name : "parameters");
            goto done;
        }
        format_count(human, sizeof human, n);
        printf("%-*s %20" PRIu64, width, name != NULL ? name : "?", n);
        if (ck)
            printf(" %20" PRIu64, llmmem_checkpoint_group_parameters(ck, (llmmem_param_group)g));
        printf("  (%s)\n", human);
    }
    format_count(human, sizeof human, total);
    printf("%-*s %20" PRIu64 "%s  (%s)\n", width, "total", total, ck ? "                     " : "", human);
    format_count(human, sizeof human, active);
    printf("%-*s %20" PRIu64 "%s  (%s)\n", width, "active", active, ck ? "                     " : "", human);
    if (ck)
        print_checkpoint_summary(ck);
done:
    llmmem_checkpoint_free(ck);
    llmmem_model_free(model);
    return rc;
}

/* Training modes: which moment the components describe, and the parts of the peak; inference under
 * the generate loop: its phase, step and layer. */
static void print_training_peak(const llmmem_report *report, int width)
{
    static const char *const parts[] = {"activations_held", "recompute",       "logits_held",
                                        "logits_transient", "host_activations", "largest_layer"};
    llmmem_peak_phase phase = llmmem_report_peak_phase(report);
    if (phase == LLMMEM_PEAK_PHASE_STATIC)
        return;
    if (phase == LLMMEM_PEAK_PHASE_PREFILL || phase == LLMMEM_PEAK_PHASE_DECODE) { /* inference: the generate loop */
        const int64_t layer = llmmem_report_peak_layer(report);
        const uint64_t step = llmmem_report_peak_step(report);
        const char *when = phase == LLMMEM_PEAK_PHASE_PREFILL ? "prefill" : "decode";
        if (layer >= 0 && phase == LLMMEM_PEAK_PHASE_PREFILL)
            printf("\npeak at: %s, layer %" PRId64 "\n", when, layer);
        else if (layer >= 0)
            printf("\npeak at: %s, step %" PRIu64 ", layer %" PRId64 "\n", when, step, layer);
        else
            printf("\npeak at: %s, step %" PRIu64 ", outside the layers (lm_head and generate's tensors)\n", when, step);
        return;
    }
    char trainable[32];
    format_count(trainable, sizeof trainable, llmmem_report_trainable_parameters(report));
    printf("\ntrainable parameters: %" PRIu64 " (%s)\n", llmmem_report_trainable_parameters(report), trainable);
    static const char *const moments[] = {
        [LLMMEM_PEAK_PHASE_LOSS] = "the loss (end of forward + loss backward)",
        [LLMMEM_PEAK_PHASE_RECOMPUTE] = "recomputation of the largest chunk in backward",
        [LLMMEM_PEAK_PHASE_FORWARD] = "the loss's forward (the logits and their fp32 copy)",
        [LLMMEM_PEAK_PHASE_BACKWARD] = "a decoder layer's backward",
        [LLMMEM_PEAK_PHASE_OPTIMIZER] = "the optimizer step (every gradient and its temporaries)",
    };
    printf("peak at: %s\n", (unsigned)phase < sizeof moments / sizeof moments[0] && moments[phase] ? moments[phase]
                                                                                                : "unknown");
    for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++)
        print_bytes_row(width, parts[p], llmmem_report_peak_part(report, (llmmem_peak_part)p));
}

/* Pipeline stages (when there are several), offloaded bytes and traffic per step. */
static void print_layout(const llmmem_report *report, int width)
{
    size_t stages = llmmem_report_stage_count(report);
    size_t components = llmmem_component_count();
    if (stages > 1) {
        printf("\nstages (one device each; the table above is stage %zu, the most loaded)\n",
               llmmem_report_most_loaded_stage(report));
        printf("%-6s %-9s", "stage", "layers");
        for (size_t c = 0; c < components; c++) {
            const char *name = llmmem_component_name((llmmem_component)c);
            if (strcmp(name, "kv_cache") != 0)
                printf(" %17s", name);
        }
        printf(" %17s\n", "total");
        for (size_t i = 0; i < stages; i++) {
            uint64_t first, count;
            char layers[32];
            if (llmmem_report_stage_layers(&first, &count, report, i) != LLMMEM_OK)
                continue;
            snprintf(layers, sizeof layers, "%" PRIu64 "+%" PRIu64, first, count);
            printf("%-6zu %-9s", i, layers);
            for (size_t c = 0; c < components; c++)
                if (strcmp(llmmem_component_name((llmmem_component)c), "kv_cache") != 0)
                    printf(" %17" PRIu64, llmmem_report_stage_bytes(report, i, (llmmem_component)c));
            printf(" %17" PRIu64 "\n", llmmem_report_stage_total_bytes(report, i));
        }
    }
    if (llmmem_report_host_bytes(report) || llmmem_report_nvme_bytes(report)) {
        printf("\noffloaded, per node\n");
        print_bytes_row(width, "host", llmmem_report_host_bytes(report));
        print_bytes_row(width, "nvme", llmmem_report_nvme_bytes(report));
    }
    uint64_t sent = 0;
    for (int k = 0; llmmem_comm_name((llmmem_comm)k); k++)
        sent += llmmem_report_comm_bytes(report, (llmmem_comm)k);
    if (sent) {
        printf("\nsent per step by one device of that stage\n");
        for (int k = 0; llmmem_comm_name((llmmem_comm)k); k++)
            print_bytes_row(width, llmmem_comm_name((llmmem_comm)k), llmmem_report_comm_bytes(report, (llmmem_comm)k));
    }
}

/* What llmmem_estimate_runs found: the allocator's peaks beside the memory outside it and the
 * device's total, and whether the job runs (or why it was not replayed). */
static void print_allocator(const llmmem_report *report, int width, const char *not_replayed)
{
    if (llmmem_report_runs(report) < 0) {
        if (*not_replayed)
            printf("\nallocator: not replayed: %s\n", not_replayed);
        return;
    }
    uint64_t reserved = llmmem_report_reserved_bytes(report), low = llmmem_report_reserved_low_bytes(report);
    uint64_t outside = llmmem_report_bytes(report, LLMMEM_COMPONENT_RUNTIME_OVERHEAD);
    uint64_t total = llmmem_report_device_total_bytes(report);
    uint64_t stride = llmmem_report_decode_stride(report);
    printf("\nPyTorch's CUDA caching allocator, the job replayed");
    if (stride > 1)
        printf(" (decode steps every %llu tokens)", (unsigned long long)stride);
    printf("\n");
    print_bytes_row(width, "allocated peak", llmmem_report_allocated_bytes(report));
    print_bytes_row(width, "reserved peak", reserved);
    print_bytes_row(width, "  free blocks", llmmem_report_reserved_free_bytes(report));
    if (low != reserved)
        print_bytes_row(width, "  placed upward", low);
    print_bytes_row(width, "outside", outside);
    print_bytes_row(width, "device total", total);
    if (llmmem_report_runs(report)) {
        printf("runs: yes, reserved peak and outside memory within the device's total (%.2f GiB to spare)\n",
               (double)(total - reserved - outside) / bytes_per_gib);
        return;
    }
    printf("runs: no, out of memory: a request of %.2f GiB after %s%s\n",
           (double)llmmem_report_oom_request_bytes(report) / bytes_per_gib, llmmem_report_oom_after(report),
           llmmem_report_runs_expandable(report) == 1 ? "; it runs with expandable_segments:True (--set expandable_segments=true)"
                                                      : "");
}

static int print_estimate_table(const llmmem_report *report, const llmmem_model *model,
                                const llmmem_hardware *hw, const char *not_replayed)
{
    size_t components = llmmem_component_count();
    int width = name_column_width(components, component_name_at, 9);
    uint64_t total = llmmem_report_total_bytes(report);
    uint64_t capacity = llmmem_report_capacity_bytes(report);
    int fits = llmmem_report_fits(report);
    char total_h[32], active_h[32];
    size_t c;

    format_count(total_h, sizeof total_h, llmmem_report_total_parameters(report));
    format_count(active_h, sizeof active_h, llmmem_report_active_parameters(report));
    printf("model:      %s\n", model_label(model));
    printf("gpu:        %s\n", llmmem_hardware_name(hw));
    printf("parameters: %" PRIu64 " total (%s), %" PRIu64 " active (%s)\n\n",
           llmmem_report_total_parameters(report), total_h,
           llmmem_report_active_parameters(report), active_h);

    /* Column heads over the unit labels of each row: " bytes", " GiB", " GB". */
    printf("%-*s %26s %16s %15s\n", width, "component", "exact", "2^30 B", "10^9 B");
    for (c = 0; c < components; c++) {
        const char *name = llmmem_component_name((llmmem_component)c);
        print_bytes_row(width, name != NULL ? name : "?",
                        llmmem_report_bytes(report, (llmmem_component)c));
    }
    print_bytes_row(width, "total", total);
    print_bytes_row(width, "capacity", capacity);
    if (total <= capacity)
        print_bytes_row(width, "headroom", capacity - total);
    else
        print_bytes_row(width, "shortfall", total - capacity);
    printf("fits: %s%s\n", fits ? "yes" : "no",
           llmmem_report_runs(report) >= 0 ? " (whether the job runs, as the allocator serves it: below)" : "");
    print_allocator(report, width, not_replayed);
    print_training_peak(report, width);
    print_layout(report, width);
    return 0;
}

/* A JSON text from the library, ending in one newline. */
static void print_json(const char *json)
{
    size_t len = strlen(json);
    fputs(json, stdout);
    if (len == 0 || json[len - 1] != '\n')
        fputc('\n', stdout);
}

/* A JSON string: the text (valid UTF-8, as the library's names are) with '"', '\\' and control
 * characters escaped. */
static void print_json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

/* The opening brace and the "model" and "hardware" members of a JSON the tool writes itself. */
static void print_json_names(const llmmem_model *model, const llmmem_hardware *hw)
{
    fputs("{\n  \"model\": ", stdout);
    print_json_string(llmmem_model_name(model));
    fputs(",\n  \"hardware\": ", stdout);
    print_json_string(llmmem_hardware_name(hw));
    fputs(",\n", stdout);
}

/* The report's JSON with the step's timeline as its last member, "timeline". */
static int print_json_with_timeline(const char *json, const llmmem_model *model, const llmmem_hardware *hw,
                                    const llmmem_strategy *strategy)
{
    llmmem_timeline *tl = NULL;
    char *tj = NULL;
    llmmem_status st;
    int rc = 0;
    /* the report's members, without its closing brace and the blanks around it */
    size_t len = strlen(json), tlen;
    while (len > 0 && json[len - 1] != '}')
        len--;
    while (len > 1 && (json[len - 2] == '\n' || json[len - 2] == ' '))
        len--;
    len = len ? len - 1 : 0;
    if ((st = llmmem_timeline_new(&tl)) != LLMMEM_OK)
        rc = internal_failure(st, "llmmem_timeline_new");
    else if ((st = llmmem_estimate_timeline(tl, model, hw, strategy)) != LLMMEM_OK)
        rc = library_failure(st, "timeline");
    else if ((st = llmmem_timeline_to_json(&tj, tl)) != LLMMEM_OK)
        rc = internal_failure(st, "llmmem_timeline_to_json");
    else {
        for (tlen = strlen(tj); tlen > 0 && tj[tlen - 1] == '\n';)
            tlen--;
        printf("%.*s,\n  \"timeline\": %.*s\n}\n", (int)len, json, (int)tlen, tj);
    }
    llmmem_string_free(tj);
    llmmem_timeline_free(tl);
    return rc;
}

/* 1 for `--engine all`: the job under every engine (serve alone). */
static int all_engines(const cli_options *opts)
{
    return opts->engine != NULL && strcmp(opts->engine, "all") == 0;
}

/* The model, hardware and strategy of a command that answers questions about them, and the
 * checkpoint of --gguf or --safetensors (NULL without one). */
static int make_inputs(llmmem_model **model, llmmem_hardware **hw, llmmem_strategy **strategy,
                       llmmem_checkpoint **ck, const cli_options *opts)
{
    llmmem_status st;
    int rc;
    if ((rc = make_model(model, ck, opts)) != 0 || (rc = make_hardware(hw, opts)) != 0)
        return rc;
    if ((st = llmmem_strategy_new(strategy)) != LLMMEM_OK)
        return internal_failure(st, "llmmem_strategy_new");
    if (opts->engine != NULL && !all_engines(opts) &&
        (st = llmmem_strategy_set_text(*strategy, "engine", opts->engine)) != LLMMEM_OK)
        return library_failure(st, "--engine");
    return apply_sets(opts, *model, *hw, *strategy);
}

static int cmd_estimate(const cli_options *opts)
{
    llmmem_model *model = NULL;
    llmmem_hardware *hw = NULL;
    llmmem_strategy *strategy = NULL;
    llmmem_report *report = NULL;
    llmmem_checkpoint *ck = NULL;
    char *json = NULL;
    llmmem_status st;
    int rc;

    if ((rc = make_inputs(&model, &hw, &strategy, &ck, opts)) != 0)
        goto done;
    if ((st = llmmem_report_new(&report)) != LLMMEM_OK) {
        rc = internal_failure(st, "llmmem_report_new");
        goto done;
    }
    if ((rc = attach_checkpoint(ck, model)) != 0)
        goto done;
    /* the estimate, then the job replayed through PyTorch's caching allocator where the allocation
     * tape models it (a job it does not model keeps the estimate, and says why) */
    st = llmmem_estimate_runs(report, model, hw, strategy);
    char not_replayed[1024] = "";
    if (st == LLMMEM_ERR_UNSUPPORTED && llmmem_report_valid(report))
        snprintf(not_replayed, sizeof not_replayed, "%s", llmmem_last_message());
    else if (st != LLMMEM_OK) {
        rc = library_failure(st, "estimate");
        goto done;
    }
    if (opts->json) {
        if ((st = llmmem_report_to_json(&json, report)) != LLMMEM_OK) {
            rc = internal_failure(st, "llmmem_report_to_json");
            goto done;
        }
        rc = print_json_with_timeline(json, model, hw, strategy);
    } else if (strcmp(opts->command, "explain") != 0) {
        rc = print_estimate_table(report, model, hw, not_replayed);
    }
    if (rc == 0 && (opts->explain || strcmp(opts->command, "explain") == 0)) {
        char *text = NULL;
        if ((st = llmmem_explain(&text, model, hw, strategy)) != LLMMEM_OK) {
            rc = library_failure(st, "explain");
            goto done;
        }
        printf("%s%s", opts->explain ? "\n" : "", text);
        llmmem_string_free(text);
    }
done:
    llmmem_checkpoint_free(ck);
    llmmem_string_free(json);
    llmmem_report_free(report);
    llmmem_strategy_free(strategy);
    llmmem_hardware_free(hw);
    llmmem_model_free(model);
    return rc;
}

/* The timeline's moments, one row each: what stays (the state outside the step's moments) and what
 * the step's moments change, the total, and which row is the peak. */
static void print_timeline(const llmmem_timeline *tl, const llmmem_model *model, const llmmem_hardware *hw)
{
    static const llmmem_component training[] = {LLMMEM_COMPONENT_GRADIENTS, LLMMEM_COMPONENT_ACTIVATIONS,
                                                LLMMEM_COMPONENT_LOGITS, LLMMEM_COMPONENT_OPTIMIZER_TEMPORARIES};
    static const llmmem_component generate[] = {LLMMEM_COMPONENT_KV_CACHE, LLMMEM_COMPONENT_ACTIVATIONS,
                                                LLMMEM_COMPONENT_LOGITS};
    const size_t n = llmmem_timeline_count(tl), peak = llmmem_timeline_peak_index(tl);
    const llmmem_peak_phase first = llmmem_timeline_phase(tl, 0);
    const int gen = first == LLMMEM_PEAK_PHASE_PREFILL || first == LLMMEM_PEAK_PHASE_DECODE;
    const llmmem_component *moving = gen ? generate : training;
    const size_t columns = gen ? sizeof generate / sizeof generate[0] : sizeof training / sizeof training[0];
    printf("model:      %s\n", model_label(model));
    printf("gpu:        %s\n", llmmem_hardware_name(hw));
    printf("stage:      %zu (the most loaded); bytes alive at each moment of one step\n\n", llmmem_timeline_stage(tl));
    printf("%-14s %6s %14s", "moment", "layer", "state");
    for (size_t c = 0; c < columns; c++)
        printf(" %14s", moving[c] == LLMMEM_COMPONENT_OPTIMIZER_TEMPORARIES ? "temporaries"
                                                                           : llmmem_component_name(moving[c]));
    printf(" %14s\n", "total");
    for (size_t i = 0; i < n; i++) {
        uint64_t total = llmmem_timeline_total_bytes(tl, i), state = total;
        const int64_t layer = llmmem_timeline_layer(tl, i);
        const char *phase = llmmem_peak_phase_name(llmmem_timeline_phase(tl, i));
        printf("%-14s ", phase ? phase : "?");
        if (layer >= 0)
            printf("%6" PRId64, layer);
        else
            printf("%6s", "-");
        for (size_t c = 0; c < columns; c++)
            state -= llmmem_timeline_bytes(tl, i, moving[c]);
        printf(" %14" PRIu64, state);
        for (size_t c = 0; c < columns; c++)
            printf(" %14" PRIu64, llmmem_timeline_bytes(tl, i, moving[c]));
        printf(" %14" PRIu64 "%s\n", total, i == peak ? "  <- peak" : "");
    }
    if (n) {
        const uint64_t total = llmmem_timeline_total_bytes(tl, peak);
        printf("\npeak: %" PRIu64 " bytes (%.2f GiB, %.2f GB)\n", total, (double)total / bytes_per_gib,
               (double)total / bytes_per_gb);
    }
}

/* `timeline`: the step moment by moment (and the JSON estimate's "timeline" member). */
/* timeline --allocator: the replay's moments, step by step, what the allocator's blocks hold at each
 * moment's highest and the reserved segments beside them (both with the memory outside it). */
static void print_allocator_timeline(const llmmem_timeline *tl, const llmmem_model *model, const llmmem_hardware *hw)
{
    static const llmmem_component shown[] = {LLMMEM_COMPONENT_GRADIENTS, LLMMEM_COMPONENT_OPTIMIZER_STATES,
                                             LLMMEM_COMPONENT_ACTIVATIONS, LLMMEM_COMPONENT_LOGITS,
                                             LLMMEM_COMPONENT_KV_CACHE, LLMMEM_COMPONENT_OPTIMIZER_TEMPORARIES};
    const size_t n = llmmem_timeline_count(tl), peak = llmmem_timeline_peak_index(tl);
    const size_t columns = sizeof shown / sizeof shown[0];
    size_t reserved_peak = 0;
    printf("model:      %s\n", model_label(model));
    printf("gpu:        %s\n", llmmem_hardware_name(hw));
    printf("PyTorch's CUDA caching allocator, the job replayed: at each moment the highest bytes allocated\n"
           "since the one before, by what they hold, and the segments reserved (both with the memory\n"
           "outside the allocator)\n\n");
    printf("%-10s %5s %6s %14s", "moment", "step", "layer", "state");
    for (size_t c = 0; c < columns; c++)
        printf(" %14s", shown[c] == LLMMEM_COMPONENT_OPTIMIZER_TEMPORARIES ? "temporaries"
                        : shown[c] == LLMMEM_COMPONENT_OPTIMIZER_STATES     ? "opt_states"
                                                                            : llmmem_component_name(shown[c]));
    printf(" %14s %14s\n", "allocated", "reserved");
    for (size_t i = 0; i < n; i++) {
        uint64_t total = llmmem_timeline_total_bytes(tl, i), state = total;
        const int64_t layer = llmmem_timeline_layer(tl, i);
        const char *phase = llmmem_peak_phase_name(llmmem_timeline_phase(tl, i));
        printf("%-10s %5" PRIu64 " ", phase ? phase : "?", llmmem_timeline_step(tl, i));
        if (layer >= 0)
            printf("%6" PRId64, layer);
        else
            printf("%6s", "-");
        for (size_t c = 0; c < columns; c++)
            state -= llmmem_timeline_bytes(tl, i, shown[c]);
        printf(" %14" PRIu64, state);
        for (size_t c = 0; c < columns; c++)
            printf(" %14" PRIu64, llmmem_timeline_bytes(tl, i, shown[c]));
        printf(" %14" PRIu64 " %14" PRIu64 "%s\n", total, llmmem_timeline_reserved_bytes(tl, i), i == peak ? "  <- peak" : "");
        if (llmmem_timeline_reserved_bytes(tl, i) > llmmem_timeline_reserved_bytes(tl, reserved_peak))
            reserved_peak = i;
    }
    if (n) {
        const uint64_t total = llmmem_timeline_total_bytes(tl, peak), reserved = llmmem_timeline_reserved_bytes(tl, reserved_peak);
        printf("\npeak allocated: %" PRIu64 " bytes (%.2f GiB, %.2f GB); reserved: %" PRIu64 " bytes (%.2f GiB, %.2f GB)\n",
               total, (double)total / bytes_per_gib, (double)total / bytes_per_gb, reserved,
               (double)reserved / bytes_per_gib, (double)reserved / bytes_per_gb);
    }
}

static int cmd_timeline(const cli_options *opts)
{
    llmmem_model *model = NULL;
    llmmem_hardware *hw = NULL;
    llmmem_strategy *strategy = NULL;
    llmmem_timeline *tl = NULL;
    llmmem_checkpoint *ck = NULL;
    char *json = NULL;
    llmmem_status st;
    int rc;

    if ((rc = make_inputs(&model, &hw, &strategy, &ck, opts)) != 0 || (rc = attach_checkpoint(ck, model)) != 0)
        goto done;
    if ((st = llmmem_timeline_new(&tl)) != LLMMEM_OK) {
        rc = internal_failure(st, "llmmem_timeline_new");
        goto done;
    }
    st = opts->allocator ? llmmem_estimate_timeline_runs(tl, model, hw, strategy)
                         : llmmem_estimate_timeline(tl, model, hw, strategy);
    if (st != LLMMEM_OK) {
        rc = library_failure(st, "timeline");
        goto done;
    }
    if (!opts->json && opts->allocator)
        print_allocator_timeline(tl, model, hw);
    else if (!opts->json)
        print_timeline(tl, model, hw);
    else if ((st = llmmem_timeline_to_json(&json, tl)) != LLMMEM_OK)
        rc = internal_failure(st, "llmmem_timeline_to_json");
    else
        print_json(json);
done:
    llmmem_string_free(json);
    llmmem_timeline_free(tl);
    llmmem_checkpoint_free(ck);
    llmmem_strategy_free(strategy);
    llmmem_hardware_free(hw);
    llmmem_model_free(model);
    return rc;
}

/* Serving: the budget rows in the estimate's format, then the block arithmetic vLLM logs. */
static void print_serving_table(const llmmem_serving *sv, const llmmem_model *model, const llmmem_hardware *hw)
{
    static const llmmem_serving_value budget[] = {
        LLMMEM_SERVING_MEMORY_BYTES, LLMMEM_SERVING_REQUESTED_BYTES, LLMMEM_SERVING_WEIGHTS,
        LLMMEM_SERVING_ACTIVATION_PEAK, LLMMEM_SERVING_NON_TORCH, LLMMEM_SERVING_CUDA_GRAPH,
        LLMMEM_SERVING_KV_CACHE_BYTES};
    static const llmmem_serving_value kv[] = {
        LLMMEM_SERVING_BYTES_PER_TOKEN, LLMMEM_SERVING_PAGE_BYTES, LLMMEM_SERVING_BLOCK_BYTES,
        LLMMEM_SERVING_NUM_BLOCKS, LLMMEM_SERVING_TOKENS, LLMMEM_SERVING_GROUPS,
        LLMMEM_SERVING_LAYERS_PER_GROUP, LLMMEM_SERVING_KV_HEADS_PER_RANK, LLMMEM_SERVING_LAYERS_PER_STAGE,
        LLMMEM_SERVING_MAX_NUM_BATCHED_TOKENS, LLMMEM_SERVING_MAX_NUM_SEQS, LLMMEM_SERVING_MAX_MODEL_LEN_SETTING,
        LLMMEM_SERVING_MAX_MODEL_LEN, LLMMEM_SERVING_REQUEST_TOKENS, LLMMEM_SERVING_BLOCKS_PER_REQUEST,
        LLMMEM_SERVING_WASTE_BYTES, LLMMEM_SERVING_MAX_CONCURRENCY};
    int width = 22;
    size_t i;
    uint64_t shortfall = llmmem_serving_get(sv, LLMMEM_SERVING_SHORTFALL);
    uint64_t x100 = llmmem_serving_get(sv, LLMMEM_SERVING_CONCURRENCY_X100);

    uint64_t fraction = llmmem_serving_get(sv, LLMMEM_SERVING_MEMORY_FRACTION_X10000);
    uint64_t equivalent = llmmem_serving_get(sv, LLMMEM_SERVING_EQUIVALENT_FRACTION_X10000);

    printf("model:      %s\n", model_label(model));
    printf("gpu:        %s\n", llmmem_hardware_name(hw));
    printf("engine:     vllm (%s), gpu_memory_utilization %" PRIu64 ".%04" PRIu64 "\n\n",
           llmmem_choice_name(LLMMEM_KEY_ENGINE_VERSION, (int64_t)llmmem_serving_get(sv, LLMMEM_SERVING_ENGINE_VERSION)),
           fraction / 10000, fraction % 10000);
    printf("%-*s %26s %16s %15s\n", width, "budget (one rank)", "exact", "2^30 B", "10^9 B");
    for (i = 0; i < sizeof budget / sizeof budget[0]; i++)
        print_bytes_row(width, llmmem_serving_value_name(budget[i]), llmmem_serving_get(sv, budget[i]));
    if (shortfall > 0)
        print_bytes_row(width, "shortfall", shortfall);
    printf("\n");
    for (i = 0; i < sizeof kv / sizeof kv[0]; i++)
        printf("%-*s %20" PRIu64 "\n", width, llmmem_serving_value_name(kv[i]), llmmem_serving_get(sv, kv[i]));
    if (llmmem_serving_get(sv, LLMMEM_SERVING_CUDA_GRAPH_SIZES))
        printf("\nProfiling CUDA graph memory: PIECEWISE=%" PRIu64 " (largest=%" PRIu64 "), FULL=%" PRIu64
               " (largest=%" PRIu64 ")\n",
               llmmem_serving_get(sv, LLMMEM_SERVING_CUDA_GRAPH_SIZES),
               llmmem_serving_get(sv, LLMMEM_SERVING_CUDA_GRAPH_LARGEST),
               llmmem_serving_get(sv, LLMMEM_SERVING_FULL_CUDA_GRAPHS),
               llmmem_serving_get(sv, LLMMEM_SERVING_FULL_CUDA_GRAPH_LARGEST));
    if (equivalent)
        printf("The current --gpu-memory-utilization=%" PRIu64 ".%04" PRIu64 " is equivalent to "
               "--gpu-memory-utilization=%" PRIu64 ".%04" PRIu64 " without the CUDA graph estimate\n",
               fraction / 10000, fraction % 10000, equivalent / 10000, equivalent % 10000);
    /* vLLM's two lines; the second for the length asked (--length), which is max_model_len by default */
    printf("\nGPU KV cache size: %" PRIu64 " tokens\n", llmmem_serving_get(sv, LLMMEM_SERVING_TOKENS));
    printf("Maximum concurrency for %" PRIu64 " tokens per request: %" PRIu64 ".%02" PRIu64 "x\n",
           llmmem_serving_get(sv, LLMMEM_SERVING_REQUEST_TOKENS), x100 / 100, x100 % 100);
    printf("fits: %s\n", llmmem_serving_get(sv, LLMMEM_SERVING_FITS) ? "yes" : "no");
    if (llmmem_serving_get(sv, LLMMEM_SERVING_MM_MAX_TOKENS_PER_ITEM) > 0) { /* a vision model's encoder */
        static const llmmem_serving_value encoder[] = {
            LLMMEM_SERVING_MM_MAX_TOKENS_PER_ITEM, LLMMEM_SERVING_ENCODER_COMPUTE_BUDGET,
            LLMMEM_SERVING_ENCODER_CACHE_SIZE, LLMMEM_SERVING_MM_ITEMS_PER_BATCH};
        printf("\n");
        for (i = 0; i < sizeof encoder / sizeof encoder[0]; i++)
            printf("%-*s %20" PRIu64 "\n", width, llmmem_serving_value_name(encoder[i]),
                   llmmem_serving_get(sv, encoder[i]));
        print_bytes_row(width, "encoder_cache_bytes", llmmem_serving_get(sv, LLMMEM_SERVING_ENCODER_CACHE_BYTES));
        print_bytes_row(width, "encoder_profile_bytes", llmmem_serving_get(sv, LLMMEM_SERVING_ENCODER_PROFILE_BYTES));
    }
}

/* SGLang's start-up lines (GB = 2^30 bytes, as SGLang prints them), its budget with exact bytes. */
static void print_sglang_table(const llmmem_serving *sv, const llmmem_model *model, const llmmem_hardware *hw)
{
    static const llmmem_serving_value budget[] = {
        LLMMEM_SERVING_MEMORY_BYTES, LLMMEM_SERVING_FREE_BYTES, LLMMEM_SERVING_REQUESTED_BYTES,
        LLMMEM_SERVING_WEIGHTS, LLMMEM_SERVING_KV_CACHE_BYTES, LLMMEM_SERVING_POOL_BYTES};
    static const llmmem_serving_value kv[] = {
        LLMMEM_SERVING_BYTES_PER_TOKEN, LLMMEM_SERVING_BLOCK_SIZE, LLMMEM_SERVING_MAX_TOKENS,
        LLMMEM_SERVING_TOKENS, LLMMEM_SERVING_KV_HEADS_PER_RANK, LLMMEM_SERVING_CUDA_GRAPH_MAX_BS,
        LLMMEM_SERVING_REQUEST_TOKENS, LLMMEM_SERVING_MAX_CONCURRENCY};
    int width = 22;
    size_t i;
    uint64_t fraction = llmmem_serving_get(sv, LLMMEM_SERVING_MEMORY_FRACTION_X10000);
    uint64_t swa = llmmem_serving_get(sv, LLMMEM_SERVING_SWA_TOKENS);
    uint64_t mamba = llmmem_serving_get(sv, LLMMEM_SERVING_MAMBA_CACHE_SIZE);

    printf("model:      %s\n", model_label(model));
    printf("gpu:        %s\n", llmmem_hardware_name(hw));
    printf("engine:     sglang (%s), mem_fraction_static %" PRIu64 ".%03" PRIu64 "%s\n\n",
           llmmem_choice_name(LLMMEM_KEY_ENGINE_VERSION, (int64_t)llmmem_serving_get(sv, LLMMEM_SERVING_ENGINE_VERSION)),
           fraction / 10000, fraction % 10000 / 10,
           llmmem_serving_get(sv, LLMMEM_SERVING_RESERVED_BYTES) ? " (SGLang's default for this GPU)" : "");
    printf("%-*s %26s %16s %15s\n", width, "budget (one rank)", "exact", "2^30 B", "10^9 B");
    for (i = 0; i < sizeof budget / sizeof budget[0]; i++)
        print_bytes_row(width, llmmem_serving_value_name(budget[i]), llmmem_serving_get(sv, budget[i]));
    int64_t type = 0;
    llmmem_model_get_int(&type, model, LLMMEM_KEY_MODEL_TYPE);
    if (mamba || type == LLMMEM_MODEL_DEEPSEEK_V4) /* Mamba's state pool, DeepSeek-V4's compressor states */
        print_bytes_row(width, "state_pool_bytes", llmmem_serving_get(sv, LLMMEM_SERVING_STATE_POOL_BYTES));
    printf("\n");
    for (i = 0; i < sizeof kv / sizeof kv[0]; i++)
        printf("%-*s %20" PRIu64 "\n", width, llmmem_serving_value_name(kv[i]), llmmem_serving_get(sv, kv[i]));
    printf("\nLoad weight begin. avail mem=%.2f GB\n",
           (double)llmmem_serving_get(sv, LLMMEM_SERVING_FREE_BYTES) / bytes_per_gib);
    printf("Load weight end. mem usage=%.2f GB.\n", (double)llmmem_serving_get(sv, LLMMEM_SERVING_WEIGHTS) / bytes_per_gib);
    if (mamba)
        printf("Mamba Cache is allocated. max_mamba_cache_size: %" PRIu64 "\n", mamba);
    printf("KV Cache is allocated. #tokens: %" PRIu64 ", KV size: %.2f GB\n",
           llmmem_serving_get(sv, LLMMEM_SERVING_TOKENS),
           (double)llmmem_serving_get(sv, LLMMEM_SERVING_POOL_BYTES) / bytes_per_gib);
    if (swa)
        printf("Use sliding window memory pool. full_layer_tokens=%" PRIu64 ", swa_layer_tokens=%" PRIu64 "\n",
               llmmem_serving_get(sv, LLMMEM_SERVING_TOKENS), swa);
    printf("max_total_num_tokens=%" PRIu64 ", chunked_prefill_size=%" PRIu64 ", max_running_requests=%" PRIu64
           ", context_len=%" PRIu64 "\n",
           llmmem_serving_get(sv, LLMMEM_SERVING_TOKENS), llmmem_serving_get(sv, LLMMEM_SERVING_MAX_NUM_BATCHED_TOKENS),
           llmmem_serving_get(sv, LLMMEM_SERVING_MAX_NUM_SEQS), llmmem_serving_get(sv, LLMMEM_SERVING_MAX_MODEL_LEN_SETTING));
    printf("fits: %s\n", llmmem_serving_get(sv, LLMMEM_SERVING_FITS) ? "yes" : "no");
}

/* TensorRT-LLM's KV cache manager lines (GiB), its budget with exact bytes. */
static void print_trtllm_table(const llmmem_serving *sv, const llmmem_model *model, const llmmem_hardware *hw)
{
    static const llmmem_serving_value budget[] = {
        LLMMEM_SERVING_MEMORY_BYTES, LLMMEM_SERVING_WEIGHTS, LLMMEM_SERVING_ACTIVATION_PEAK, LLMMEM_SERVING_NON_TORCH,
        LLMMEM_SERVING_FREE_BYTES, LLMMEM_SERVING_KV_CACHE_BYTES, LLMMEM_SERVING_POOL_BYTES};
    static const llmmem_serving_value kv[] = {
        LLMMEM_SERVING_BYTES_PER_TOKEN, LLMMEM_SERVING_BLOCK_SIZE, LLMMEM_SERVING_MAX_TOKENS,
        LLMMEM_SERVING_NUM_BLOCKS, LLMMEM_SERVING_TOKENS, LLMMEM_SERVING_KV_HEADS_PER_RANK,
        LLMMEM_SERVING_MAX_MODEL_LEN, LLMMEM_SERVING_REQUEST_TOKENS, LLMMEM_SERVING_MAX_CONCURRENCY};
    int width = 22;
    size_t i;
    uint64_t fraction = llmmem_serving_get(sv, LLMMEM_SERVING_MEMORY_FRACTION_X10000);
    uint64_t estimation = llmmem_serving_get(sv, LLMMEM_SERVING_ESTIMATION_TOKENS);
    uint64_t shortfall = llmmem_serving_get(sv, LLMMEM_SERVING_SHORTFALL);

    printf("model:      %s\n", model_label(model));
    printf("gpu:        %s\n", llmmem_hardware_name(hw));
    printf("engine:     trtllm (%s backend), free_gpu_memory_fraction %" PRIu64 ".%04" PRIu64 "\n\n",
           estimation ? "pytorch" : "engine", fraction / 10000, fraction % 10000);
    printf("%-*s %26s %16s %15s\n", width, "budget (one rank)", "exact", "2^30 B", "10^9 B");
    for (i = 0; i < sizeof budget / sizeof budget[0]; i++)
        print_bytes_row(width, llmmem_serving_value_name(budget[i]), llmmem_serving_get(sv, budget[i]));
    if (shortfall > 0)
        print_bytes_row(width, "shortfall", shortfall);
    printf("\n");
    for (i = 0; i < sizeof kv / sizeof kv[0]; i++)
        printf("%-*s %20" PRIu64 "\n", width, llmmem_serving_value_name(kv[i]), llmmem_serving_get(sv, kv[i]));
    printf("\n");
    if (estimation)
        printf("temporary KV cache of the profile: %" PRIu64 " tokens\n"
               "available KV cache memory when calculating max tokens: %.2f GiB\n",
               estimation, (double)llmmem_serving_get(sv, LLMMEM_SERVING_KV_CACHE_BYTES) / bytes_per_gib);
    else
        printf("Memory usage when calculating max tokens in paged kv cache: total: %.2f GiB, available: %.2f GiB\n",
               (double)llmmem_serving_get(sv, LLMMEM_SERVING_MEMORY_BYTES) / bytes_per_gib,
               (double)llmmem_serving_get(sv, LLMMEM_SERVING_FREE_BYTES) / bytes_per_gib);
    printf("Number of blocks in KV cache primary pool: %" PRIu64 "\n", llmmem_serving_get(sv, LLMMEM_SERVING_NUM_BLOCKS));
    printf("Number of tokens per block: %" PRIu64 ".\n", llmmem_serving_get(sv, LLMMEM_SERVING_BLOCK_SIZE));
    printf("[MemUsageChange] Allocated %.2f GiB for max tokens in paged KV cache (%" PRIu64 ").\n",
           (double)llmmem_serving_get(sv, LLMMEM_SERVING_POOL_BYTES) / bytes_per_gib,
           llmmem_serving_get(sv, LLMMEM_SERVING_TOKENS));
    printf("fits: %s\n", llmmem_serving_get(sv, LLMMEM_SERVING_FITS) ? "yes" : "no");
}

/* ---- local inference: llama.cpp and ollama ---- */

/* 1 when the strategy's engine is llama.cpp or ollama. */
static int local_engine(const llmmem_strategy *strategy)
{
    int64_t engine = LLMMEM_ENGINE_AUTO;
    (void)llmmem_strategy_get_int(&engine, strategy, LLMMEM_KEY_ENGINE);
    return engine == LLMMEM_ENGINE_LLAMA_CPP || engine == LLMMEM_ENGINE_OLLAMA;
}

/* The buffers per device as llama.cpp logs them (MiB = 2^20 bytes, two decimals), exact bytes beside. */
static void print_local_table(const llmmem_local *r, const llmmem_model *model, const llmmem_hardware *hw)
{
    static const double mib = 1024.0 * 1024.0;
    size_t devices = llmmem_local_device_count(r), d;
    unsigned b;
    uint64_t n_layer = llmmem_local_get(r, LLMMEM_LOCAL_N_LAYER);
    uint64_t ngl = llmmem_local_get(r, LLMMEM_LOCAL_N_GPU_LAYERS);
    uint64_t swa = llmmem_local_get(r, LLMMEM_LOCAL_KV_SIZE_SWA);

    printf("model:      %s\n", model_label(model));
    printf("gpu:        %s x %" PRIu64 "\n", llmmem_hardware_name(hw), llmmem_local_get(r, LLMMEM_LOCAL_GPUS));
    printf("engine:     %s\n",
           llmmem_choice_name(LLMMEM_KEY_ENGINE, (int64_t)llmmem_local_get(r, LLMMEM_LOCAL_ENGINE)));
    printf("context:    n_ctx %" PRIu64 " = %" PRIu64 " sequence(s) x %" PRIu64 " cells, %" PRIu64
           " stream(s); n_ubatch %" PRIu64 "; flash_attn %s\n",
           llmmem_local_get(r, LLMMEM_LOCAL_N_CTX), llmmem_local_get(r, LLMMEM_LOCAL_N_SEQ_MAX),
           llmmem_local_get(r, LLMMEM_LOCAL_N_CTX_SEQ), llmmem_local_get(r, LLMMEM_LOCAL_N_STREAMS),
           llmmem_local_get(r, LLMMEM_LOCAL_N_UBATCH), llmmem_local_get(r, LLMMEM_LOCAL_FLASH_ATTN) ? "on" : "off");
    if (swa)
        printf("            sliding-window layers keep %" PRIu64 " cells per stream\n", swa);
    printf("offloaded:  %" PRIu64 "/%" PRIu64 " layers to GPU (the output layer counts as one)\n\n",
           ngl, n_layer + 1);
    printf("%-8s %6s", "device", "layers");
    for (b = 0; b < llmmem_local_buffer_count(); b++)
        printf(" %11s", llmmem_local_buffer_name((llmmem_local_buffer)b));
    printf(" %11s %11s   (MiB)\n", "total", "capacity");
    for (d = 0; d < devices; d++) {
        uint64_t cap = llmmem_local_device_capacity(r, d);
        printf("%-8s %6" PRIu64, llmmem_local_device_name(r, d), llmmem_local_device_layers(r, d));
        for (b = 0; b < llmmem_local_buffer_count(); b++)
            printf(" %11.2f", (double)llmmem_local_bytes(r, d, (llmmem_local_buffer)b) / mib);
        printf(" %11.2f", (double)llmmem_local_device_total(r, d) / mib);
        if (cap)
            printf(" %11.2f\n", (double)cap / mib);
        else
            printf(" %11s\n", "-");
    }
    printf("\n");
    for (d = 0; d < devices; d++)
        if (llmmem_local_bytes(r, d, LLMMEM_LOCAL_KV) || llmmem_local_bytes(r, d, LLMMEM_LOCAL_RECURRENT))
            printf("%s: KV buffer %" PRIu64 " bytes, RS buffer %" PRIu64 " bytes\n", llmmem_local_device_name(r, d),
                   llmmem_local_bytes(r, d, LLMMEM_LOCAL_KV), llmmem_local_bytes(r, d, LLMMEM_LOCAL_RECURRENT));
    if (llmmem_local_get(r, LLMMEM_LOCAL_FITS))
        printf("fits: yes, every GPU keeps its fit_margin_bytes free%s\n",
               llmmem_local_device_capacity(r, devices - 1) ? " and the host's RAM holds its part" : "");
    else if (llmmem_local_get(r, LLMMEM_LOCAL_SHORTFALL))
        printf("fits: no, short by %" PRIu64 " bytes (%.2f MiB) on the most over-committed device\n",
               llmmem_local_get(r, LLMMEM_LOCAL_SHORTFALL),
               (double)llmmem_local_get(r, LLMMEM_LOCAL_SHORTFALL) / mib);
    else
        printf("fits: unknown: every GPU keeps its fit_margin_bytes free, but the host holds %.2f MiB and its RAM "
               "is not known (--set host_memory_bytes=BYTES)\n",
               (double)llmmem_local_get(r, LLMMEM_LOCAL_HOST_BYTES) / mib);
}

/* `gguf`: the checkpoint of --gguf, whose tensors llama.cpp places (NULL without it). */
static int cmd_local_serve(const cli_options *opts, llmmem_model *model, const llmmem_checkpoint *gguf,
                           llmmem_hardware *hw, llmmem_strategy *strategy)
{
    llmmem_local *r = NULL;
    char *json = NULL;
    llmmem_status st;
    int rc = 0;

    if ((st = llmmem_local_new(&r)) != LLMMEM_OK) {
        rc = internal_failure(st, "llmmem_local_new");
        goto done;
    }
    if ((st = llmmem_local_estimate(r, model, gguf, hw, strategy)) != LLMMEM_OK) {
        rc = library_failure(st, "serve");
        goto done;
    }
    if (opts->json) {
        if ((st = llmmem_local_to_json(&json, r)) != LLMMEM_OK) {
            rc = internal_failure(st, "llmmem_local_to_json");
            goto done;
        }
        print_json(json);
    } else {
        print_local_table(r, model, hw);
    }
done:
    llmmem_string_free(json);
    llmmem_local_free(r);
    return rc;
}

/* Every answer is found before any is printed. `gguf` as for cmd_local_serve. */
static int cmd_local_fit(const cli_options *opts, llmmem_model *model, const llmmem_checkpoint *gguf,
                         llmmem_hardware *hw, llmmem_strategy *strategy)
{
    static const struct {
        llmmem_local_question q;
        const char *name;
        const char *llama, *ollama;
    } questions[] = {
        {LLMMEM_LOCAL_MAX_GPU_LAYERS, "max_gpu_layers", "most n_gpu_layers that fit:", "most num_gpu that fit:"},
        {LLMMEM_LOCAL_MAX_CONTEXT, "max_context", "longest n_ctx that fits:", "longest num_ctx that fits:"},
        {LLMMEM_LOCAL_MAX_PARALLEL, "max_parallel", "most n_parallel that fit:", "most num_parallel that fit:"},
    };
    int64_t answer[3];
    int64_t engine = LLMMEM_ENGINE_LLAMA_CPP, margin = 0, host_memory = 0;
    llmmem_status st;
    size_t i;

    for (i = 0; i < 3; i++)
        if ((st = llmmem_local_solve(&answer[i], questions[i].q, model, gguf, hw, strategy)) != LLMMEM_OK)
            return library_failure(st, "fit");
    (void)llmmem_strategy_get_int(&engine, strategy, LLMMEM_KEY_ENGINE);
    (void)llmmem_strategy_get_int(&margin, strategy, LLMMEM_KEY_FIT_MARGIN_BYTES);
    (void)llmmem_hardware_get_int(&host_memory, hw, LLMMEM_KEY_HOST_MEMORY_BYTES);
    if (opts->json) {
        print_json_names(model, hw);
        printf("  \"engine\": \"%s\",\n  \"fit_margin_bytes\": %" PRId64 ",\n",
               engine == LLMMEM_ENGINE_OLLAMA ? "ollama" : "llama.cpp", margin);
        for (i = 0; i < 3; i++)
            printf("  \"%s\": %" PRId64 "%s\n", questions[i].name, answer[i], i + 1 < 3 ? "," : "");
        printf("}\n");
    } else {
        printf("model:      %s\n", model_label(model));
        printf("gpu:        %s\n", llmmem_hardware_name(hw));
        printf("engine:     %s, keeping %" PRId64 " bytes (%.0f MiB) free on each GPU\n\n",
               engine == LLMMEM_ENGINE_OLLAMA ? "ollama" : "llama.cpp", margin, (double)margin / 1048576.0);
        for (i = 0; i < 3; i++)
            printf("%-30s %" PRId64 "%s\n", engine == LLMMEM_ENGINE_OLLAMA ? questions[i].ollama : questions[i].llama,
                   answer[i], answer[i] ? "" : " (none)");
        if (host_memory == 0)
            printf("\nthe host's RAM is not known: what the answers leave on the CPU is not checked "
                   "(--set host_memory_bytes=BYTES)\n");
    }
    return 0;
}

/* `serve --engine all`: one row per engine, the figures of one GPU (GiB in the text, bytes in the JSON). */
static int cmd_engines_serve(const cli_options *opts, llmmem_model *model, const llmmem_checkpoint *gguf,
                             llmmem_hardware *hw, llmmem_strategy *strategy)
{
    llmmem_engines *e = NULL;
    const llmmem_checkpoint *ck = gguf;
    char *json = NULL;
    llmmem_status st;
    int rc = 0;
    size_t i;

    if ((st = llmmem_engines_new(&e)) != LLMMEM_OK) {
        rc = internal_failure(st, "llmmem_engines_new");
        goto done;
    }
    if ((st = llmmem_engines_estimate(e, model, ck, hw, strategy)) != LLMMEM_OK) {
        rc = library_failure(st, "serve");
        goto done;
    }
    if (opts->json) {
        if ((st = llmmem_engines_to_json(&json, e)) != LLMMEM_OK) {
            rc = internal_failure(st, "llmmem_engines_to_json");
            goto done;
        }
        print_json(json);
        goto done;
    }
    printf("model:      %s\n", model_label(model));
    printf("gpu:        %s (figures of one GPU: a serving rank, a local engine's most loaded GPU)\n\n",
           llmmem_hardware_name(hw));
    printf("%-10s %10s %12s %12s %10s %12s %12s %5s\n", "engine", "weights", "activations", "cuda_graphs",
           "kv_cache", "kv_tokens", "concurrency", "fits");
    printf("%-10s %10s %12s %12s %10s %12s %12s %5s\n", "", "(GiB)", "(GiB)", "(GiB)", "(GiB)", "", "(requests)", "");
    for (i = 0; i < llmmem_engines_count(e); i++) {
        const char *name = llmmem_choice_name(LLMMEM_KEY_ENGINE, llmmem_engines_engine(e, i));
        if (llmmem_engines_status(e, i) != LLMMEM_OK) {
            printf("%-10s refused: %s\n", name, llmmem_engines_message(e, i));
            continue;
        }
        printf("%-10s %10.2f %12.2f %12.2f %10.2f %12" PRIu64 " %12" PRIu64 " %5s\n", name,
               (double)llmmem_engines_get(e, i, LLMMEM_ENGINES_WEIGHTS) / bytes_per_gib,
               (double)llmmem_engines_get(e, i, LLMMEM_ENGINES_ACTIVATIONS) / bytes_per_gib,
               (double)llmmem_engines_get(e, i, LLMMEM_ENGINES_CUDA_GRAPHS) / bytes_per_gib,
               (double)llmmem_engines_get(e, i, LLMMEM_ENGINES_KV_BYTES) / bytes_per_gib,
               llmmem_engines_get(e, i, LLMMEM_ENGINES_KV_TOKENS), llmmem_engines_get(e, i, LLMMEM_ENGINES_CONCURRENCY),
               llmmem_engines_get(e, i, LLMMEM_ENGINES_FITS) ? "yes" : "no");
    }
    printf("\nconcurrency: requests of %" PRIu64 " tokens at once (--length; llama.cpp and ollama: their slots when each "
           "holds one)\n", llmmem_engines_get(e, 0, LLMMEM_ENGINES_REQUEST_TOKENS));
    printf("activations: the profile's peak (vllm, trtllm), what sglang leaves outside mem_fraction_static, the "
           "compute buffer (llama.cpp, ollama)\n");
done:
    llmmem_string_free(json);
    llmmem_engines_free(e);
    return rc;
}

static int cmd_serve(const cli_options *opts)
{
    llmmem_model *model = NULL;
    llmmem_hardware *hw = NULL;
    llmmem_strategy *strategy = NULL;
    llmmem_serving *sv = NULL;
    llmmem_checkpoint *ck = NULL;
    char *json = NULL;
    llmmem_status st;
    int rc;

    if ((rc = make_inputs(&model, &hw, &strategy, &ck, opts)) != 0)
        goto done;
    if (all_engines(opts)) {
        if (opts->has_length &&
            (st = llmmem_strategy_set_int(strategy, LLMMEM_KEY_REQUEST_TOKENS, opts->length)) != LLMMEM_OK)
            rc = library_failure(st, "--length");
        else
            rc = cmd_engines_serve(opts, model, opts->gguf != NULL ? ck : NULL, hw, strategy);
        goto done;
    }
    if (local_engine(strategy)) {
        if (opts->has_length) {
            error_msg("--length asks vLLM's concurrency question; with --engine llama.cpp or ollama set n_ctx, "
                      "n_parallel (or num_ctx, num_parallel)");
            rc = EXIT_USAGE;
        } else {
            rc = cmd_local_serve(opts, model, opts->gguf != NULL ? ck : NULL, hw, strategy);
        }
        goto done;
    }
    if ((st = llmmem_serving_new(&sv)) != LLMMEM_OK) {
        rc = internal_failure(st, "llmmem_serving_new");
        goto done;
    }
    if (opts->has_length &&
        (st = llmmem_strategy_set_int(strategy, LLMMEM_KEY_REQUEST_TOKENS, opts->length)) != LLMMEM_OK) {
        rc = library_failure(st, "--length");
        goto done;
    }
    if ((rc = attach_checkpoint(ck, model)) != 0)
        goto done;
    if ((st = llmmem_serving_estimate(sv, model, hw, strategy)) != LLMMEM_OK) {
        rc = library_failure(st, "serve");
        goto done;
    }
    if (opts->json) {
        if ((st = llmmem_serving_to_json(&json, sv)) != LLMMEM_OK) {
            rc = internal_failure(st, "llmmem_serving_to_json");
            goto done;
        }
        print_json(json);
    } else {
        switch (llmmem_serving_get(sv, LLMMEM_SERVING_ENGINE)) {
        case LLMMEM_ENGINE_SGLANG: print_sglang_table(sv, model, hw); break;
        case LLMMEM_ENGINE_TRTLLM: print_trtllm_table(sv, model, hw); break;
        default: print_serving_table(sv, model, hw); break;
        }
    }
done:
    llmmem_checkpoint_free(ck);
    llmmem_string_free(json);
    llmmem_serving_free(sv);
    llmmem_strategy_free(strategy);
    llmmem_hardware_free(hw);
    llmmem_model_free(model);
    return rc;
}

/* 1 when the model is given by num_parameters alone (no shapes). */
static int count_only(const llmmem_model *model)
{
    int64_t n = 0;
    return llmmem_model_get_int(&n, model, LLMMEM_KEY_NUM_PARAMETERS) == LLMMEM_OK && n != 0;
}

/* Every answer is found before any is printed: a failure prints nothing on stdout. */
/* Whether the allocation tape runs the job (then the solvers' "fits" is the replay's "runs"), and
 * with expandable_segments off, the largest micro-batch and sequence with it on (0 otherwise). */
static int fit_expandable(int *replayed, uint64_t *batch, uint64_t *seq, const llmmem_model *model,
                          const llmmem_hardware *hw, const llmmem_strategy *strategy)
{
    llmmem_report *r = NULL;
    llmmem_strategy *on = NULL;
    llmmem_status st;
    int64_t expandable = 0;
    *replayed = 0;
    *batch = *seq = 0;
    if ((st = llmmem_report_new(&r)) != LLMMEM_OK)
        return internal_failure(st, "llmmem_report_new");
    st = llmmem_estimate_runs(r, model, hw, strategy);
    llmmem_report_free(r);
    if (st == LLMMEM_ERR_UNSUPPORTED)
        return 0;
    if (st != LLMMEM_OK)
        return library_failure(st, "fit");
    *replayed = 1;
    if ((st = llmmem_strategy_get_int(&expandable, strategy, LLMMEM_KEY_EXPANDABLE_SEGMENTS)) != LLMMEM_OK)
        return library_failure(st, "fit");
    if (expandable)
        return 0;
    if ((st = llmmem_strategy_clone(&on, strategy)) != LLMMEM_OK ||
        (st = llmmem_strategy_set_int(on, LLMMEM_KEY_EXPANDABLE_SEGMENTS, 1)) != LLMMEM_OK ||
        (st = llmmem_solve_max_micro_batch(batch, model, hw, on)) != LLMMEM_OK ||
        (st = llmmem_solve_max_sequence_length(seq, model, hw, on)) != LLMMEM_OK) {
        llmmem_strategy_free(on);
        return library_failure(st, "fit");
    }
    llmmem_strategy_free(on);
    return 0;
}

static int cmd_fit(const cli_options *opts)
{
    llmmem_model *model = NULL;
    llmmem_hardware *hw = NULL;
    llmmem_strategy *strategy = NULL;
    llmmem_checkpoint *ck = NULL;
    uint64_t batch, seq, devices = 0, max_devices = opts->devices;
    llmmem_format format = LLMMEM_FORMAT_AUTO;
    llmmem_status st, format_st;
    int rc;

    if ((rc = make_inputs(&model, &hw, &strategy, &ck, opts)) != 0)
        goto done;
    if (all_engines(opts)) {
        error_msg("--engine all compares the engines in serve; fit takes one engine");
        rc = EXIT_USAGE;
        goto done;
    }
    if (local_engine(strategy)) {
        rc = cmd_local_fit(opts, model, opts->gguf != NULL ? ck : NULL, hw, strategy);
        goto done;
    }
    if (count_only(model)) {
        /* the micro-batch, the sequence and the layouts all need the model's shapes */
        error_msg("fit needs the model's shapes: a model given by num_parameters alone has no activations, KV "
                  "cache or layers for fit to size (use 'llmmem estimate' for its weights)");
        rc = EXIT_USAGE;
        goto done;
    }
    if ((st = llmmem_solve_max_micro_batch(&batch, model, hw, strategy)) != LLMMEM_OK ||
        (st = llmmem_solve_max_sequence_length(&seq, model, hw, strategy)) != LLMMEM_OK) {
        rc = library_failure(st, "fit");
        goto done;
    }
    format_st = llmmem_solve_weight_format(&format, model, hw, strategy);
    if (format_st != LLMMEM_OK && format_st != LLMMEM_ERR_NOT_FOUND) {
        rc = library_failure(format_st, "fit");
        goto done;
    }
    if ((st = llmmem_solve_min_devices(&devices, model, hw, strategy, max_devices)) != LLMMEM_OK) {
        rc = library_failure(st, "fit");
        goto done;
    }
    /* where the allocation tape runs the job, "fits" is "runs" (the solvers replay it): and with
     * expandable segments, how far would it go? */
    uint64_t batch_exp = 0, seq_exp = 0;
    int replayed = 0;
    if ((rc = fit_expandable(&replayed, &batch_exp, &seq_exp, model, hw, strategy)) != 0)
        goto done;
    if (opts->json) {
        /* 0 for an answer that does not exist (none fits, or more than max_devices), as in the text */
        print_json_names(model, hw);
        printf("  \"micro_batch_size\": %" PRIu64 ",\n  \"sequence_length\": %" PRIu64 ",\n"
               "  \"weight_format\": %s%s%s,\n  \"min_devices\": %" PRIu64 ",\n  \"max_devices\": %" PRIu64,
               batch, seq, format_st == LLMMEM_OK ? "\"" : "",
               format_st == LLMMEM_OK ? llmmem_choice_name(LLMMEM_KEY_WEIGHT_FORMAT, format) : "null",
               format_st == LLMMEM_OK ? "\"" : "", devices, max_devices);
        if (replayed) /* the allocator's answers: runs, and with expandable segments (0 when already on) */
            printf(",\n  \"replayed\": true,\n  \"expandable_segments\": {\"micro_batch_size\": %" PRIu64
                   ", \"sequence_length\": %" PRIu64 "}", batch_exp, seq_exp);
        printf("\n}\n");
        goto done;
    }
    printf("model:      %s\n", model_label(model));
    printf("gpu:        %s\n\n", llmmem_hardware_name(hw));
    printf("largest micro_batch_size that fits:  %" PRIu64 "%s", batch, batch ? "" : " (none)");
    if (replayed && batch_exp > batch)
        printf(" (%" PRIu64 " with expandable_segments:True)", batch_exp);
    printf("\nlongest sequence_length that fits:   %" PRIu64 "%s", seq, seq ? "" : " (none)");
    if (replayed && seq_exp > seq)
        printf(" (%" PRIu64 " with expandable_segments:True)", seq_exp);
    printf("\n");
    if (replayed)
        printf("  fits: runs as PyTorch's CUDA caching allocator serves it (the job replayed)\n");
    if (format_st == LLMMEM_OK)
        printf("least compressed weight_format:      %s\n", llmmem_choice_name(LLMMEM_KEY_WEIGHT_FORMAT, format));
    else
        printf("least compressed weight_format:      none fits\n");
    if (devices)
        printf("fewest devices with a layout that fits: %" PRIu64 " (see 'llmmem plan --devices %" PRIu64 "')\n",
               devices, devices);
    else
        printf("fewest devices with a layout that fits: more than %" PRIu64 "\n", max_devices);
done:
    llmmem_checkpoint_free(ck);
    llmmem_strategy_free(strategy);
    llmmem_hardware_free(hw);
    llmmem_model_free(model);
    return rc;
}

static int64_t strategy_value(const llmmem_strategy *s, llmmem_key key)
{
    int64_t v = 0;
    (void)llmmem_strategy_get_int(&v, s, key);
    return v;
}

/* The sharding a planned strategy uses, by the plan_shardings names. */
static const char *sharding_name(const llmmem_strategy *s)
{
    static const char *const zero[] = {"none", "zero1", "zero2", "zero3"};
    if (strategy_value(s, LLMMEM_KEY_FSDP) != LLMMEM_FSDP_NONE)
        return "fsdp";
    if (strategy_value(s, LLMMEM_KEY_DISTRIBUTED_OPTIMIZER))
        return "distributed_optimizer";
    return zero[strategy_value(s, LLMMEM_KEY_ZERO_STAGE) & 3];
}

static int cmd_plan(const cli_options *opts)
{
    llmmem_model *model = NULL;
    llmmem_hardware *hw = NULL;
    llmmem_strategy *strategy = NULL;
    llmmem_checkpoint *ck = NULL;
    llmmem_plan *plan = NULL;
    char *json = NULL;
    const uint64_t devices = opts->devices;
    llmmem_status st;
    int rc;

    if ((rc = make_inputs(&model, &hw, &strategy, &ck, opts)) != 0)
        goto done;
    if ((st = llmmem_plan_new(&plan)) != LLMMEM_OK) {
        rc = internal_failure(st, "llmmem_plan_new");
        goto done;
    }
    /* --top K keeps the K cheapest (0: every layout that fits); the rest are only counted */
    if ((st = llmmem_plan_set_limit(plan, (size_t)opts->top)) != LLMMEM_OK) {
        rc = internal_failure(st, "llmmem_plan_set_limit");
        goto done;
    }
    if ((st = llmmem_plan_run(plan, model, hw, strategy, devices)) != LLMMEM_OK) {
        rc = library_failure(st, "plan");
        goto done;
    }
    if (opts->json) {
        if ((st = llmmem_plan_to_json(&json, plan)) != LLMMEM_OK) {
            rc = internal_failure(st, "llmmem_plan_to_json");
            goto done;
        }
        print_json(json);
        goto done;
    }
    size_t shown = llmmem_plan_count(plan);
    printf("model:      %s\ngpu:        %s x %" PRIu64 "\n", model_label(model), llmmem_hardware_name(hw), devices);
    printf("layouts:    %" PRIu64 " fit of %" PRIu64 " valid candidates; the cheapest %zu:\n\n",
           llmmem_plan_fitting(plan), llmmem_plan_candidates(plan), shown);
    printf("%4s %4s %4s %7s %4s %4s %3s %-22s %-9s %4s %12s %18s\n", "rank", "t", "p", "d", "c", "e", "v",
           "sharding", "recompute", "mbs", "cost s/step", "most loaded bytes");
    for (size_t i = 0; i < shown; i++) {
        llmmem_strategy *s = NULL;
        double cost;
        uint64_t bytes;
        if ((st = llmmem_plan_get(&s, plan, i)) != LLMMEM_OK || (st = llmmem_plan_cost(&cost, &bytes, plan, i)) != LLMMEM_OK) {
            llmmem_strategy_free(s);
            rc = internal_failure(st, "llmmem_plan_get");
            goto done;
        }
        const char *recompute = llmmem_choice_name(LLMMEM_KEY_RECOMPUTE, strategy_value(s, LLMMEM_KEY_RECOMPUTE));
        printf("%4zu %4" PRId64 " %4" PRId64 " %7" PRId64 " %4" PRId64 " %4" PRId64 " %3" PRId64
               " %-22s %-9s %4" PRId64 " %12.3f %18" PRIu64 "\n",
               i + 1, strategy_value(s, LLMMEM_KEY_TENSOR_PARALLEL), strategy_value(s, LLMMEM_KEY_PIPELINE_PARALLEL),
               strategy_value(s, LLMMEM_KEY_DATA_PARALLEL), strategy_value(s, LLMMEM_KEY_CONTEXT_PARALLEL),
               strategy_value(s, LLMMEM_KEY_EXPERT_PARALLEL), strategy_value(s, LLMMEM_KEY_VIRTUAL_PIPELINE),
               sharding_name(s), recompute, strategy_value(s, LLMMEM_KEY_MICRO_BATCH_SIZE), cost, bytes);
        llmmem_strategy_free(s);
    }
done:
    llmmem_checkpoint_free(ck);
    llmmem_string_free(json);
    llmmem_plan_free(plan);
    llmmem_strategy_free(strategy);
    llmmem_hardware_free(hw);
    llmmem_model_free(model);
    return rc;
}

/* One preset of the listing: its family is its model_type key's choice name. */
typedef struct preset_row {
    const char *name;
    int64_t type;
    uint64_t total, active;
} preset_row;

static int read_preset_row(preset_row *row, size_t i)
{
    llmmem_model *model = NULL;
    llmmem_status st;
    row->name = llmmem_model_preset_name(i);
    if (row->name == NULL)
        return internal_failure(LLMMEM_ERR_NOT_FOUND, "llmmem_model_preset_name");
    st = llmmem_model_from_preset(&model, row->name);
    if (st == LLMMEM_OK)
        st = llmmem_model_get_int(&row->type, model, LLMMEM_KEY_MODEL_TYPE);
    if (st == LLMMEM_OK)
        st = llmmem_model_total_parameters(&row->total, model);
    if (st == LLMMEM_OK)
        st = llmmem_model_active_parameters(&row->active, model);
    llmmem_model_free(model);
    return st == LLMMEM_OK ? 0 : internal_failure(st, row->name);
}

static const char *family_of(const preset_row *row)
{
    const char *family = llmmem_choice_name(LLMMEM_KEY_MODEL_TYPE, row->type);
    return family != NULL ? family : "?";
}

static void print_preset_row(const preset_row *row, int width, int family_width)
{
    char total_h[32], active_h[32];
    format_count(total_h, sizeof total_h, row->total);
    printf("%-*s  %-*s  %s params", width, row->name, family_width, family_of(row), total_h);
    if (row->active != row->total) {
        format_count(active_h, sizeof active_h, row->active);
        printf(" (%s active)", active_h);
    }
    putchar('\n');
}

/*
 * One line per preset, "NAME  FAMILY  COUNT params", grouped by family (the
 * model_type key's choice name, so a new family needs no table here): the
 * families in the order of their first preset in the catalog, each family's
 * presets in catalog order.
 */
static int cmd_models(void)
{
    size_t count = llmmem_model_preset_count();
    int width = name_column_width(count, llmmem_model_preset_name, 4), family_width = 6;
    preset_row *rows = calloc(count ? count : 1, sizeof *rows);
    size_t i, j;
    int rc = 0;

    if (rows == NULL)
        return internal_failure(LLMMEM_ERR_NO_MEMORY, "the preset listing");
    for (i = 0; i < count && rc == 0; i++) {
        rc = read_preset_row(&rows[i], i);
        if (rc == 0 && (int)strlen(family_of(&rows[i])) > family_width)
            family_width = (int)strlen(family_of(&rows[i]));
    }
    for (i = 0; i < count && rc == 0; i++) {
        for (j = 0; j < i && rows[j].type != rows[i].type; j++)
            ;
        if (j < i)
            continue; /* printed with the family's first preset */
        for (j = i; j < count; j++)
            if (rows[j].type == rows[i].type)
                print_preset_row(&rows[j], width, family_width);
    }
    free(rows);
    return rc;
}

static int cmd_gpus(void)
{
    size_t count = llmmem_hardware_preset_count();
    int width = name_column_width(count, llmmem_hardware_preset_name, 4);
    size_t i;
    for (i = 0; i < count; i++) {
        const char *name = llmmem_hardware_preset_name(i);
        llmmem_hardware *hw = NULL;
        int64_t memory = 0;
        llmmem_status st;

        if (name == NULL)
            return internal_failure(LLMMEM_ERR_NOT_FOUND, "llmmem_hardware_preset_name");
        st = llmmem_hardware_from_preset(&hw, name);
        if (st == LLMMEM_OK)
            st = llmmem_hardware_get_int(&memory, hw, LLMMEM_KEY_MEMORY_BYTES);
        llmmem_hardware_free(hw);
        if (st != LLMMEM_OK)
            return internal_failure(st, name);
        print_bytes_row(width, name, (uint64_t)memory);
    }
    return 0;
}

static const char *type_name(llmmem_value_type type)
{
    switch (type) {
    case LLMMEM_TYPE_INT: return "int";
    case LLMMEM_TYPE_BOOL: return "bool";
    case LLMMEM_TYPE_CHOICE: return "choice";
    case LLMMEM_TYPE_REAL: return "real";
    case LLMMEM_TYPE_FLAGS: return "flags";
    case LLMMEM_TYPE_LIST: return "list";
    }
    return "?";
}

/* A value of an int, bool, choice or flags key as text: names where there are some. */
static void format_value(char *buf, size_t size, llmmem_key key, llmmem_value_type type, int64_t v)
{
    const char *name;
    if (type == LLMMEM_TYPE_FLAGS) {
        size_t used = 0;
        int bit;
        buf[0] = '\0';
        for (bit = 0; bit < 62; bit++) {
            const char *bit_name = (v >> bit) & 1 ? llmmem_choice_name(key, (int64_t)1 << bit) : NULL;
            if (bit_name != NULL && used < size)
                used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? "," : "", bit_name);
        }
        if (used == 0)
            snprintf(buf, size, "none");
        return;
    }
    name = type == LLMMEM_TYPE_INT ? NULL : llmmem_choice_name(key, v);
    if (name != NULL)
        snprintf(buf, size, "%s", name);
    else
        snprintf(buf, size, "%" PRId64, v);
}

static int print_key(llmmem_key key)
{
    const char *name = llmmem_key_name(key);
    const char *doc = llmmem_key_doc(key);
    llmmem_object object = LLMMEM_OBJECT_MODEL;
    llmmem_value_type type = LLMMEM_TYPE_INT;
    llmmem_status st;

    if (name == NULL)
        return internal_failure(LLMMEM_ERR_UNKNOWN_KEY, "llmmem_key_name");
    if ((st = llmmem_key_object(&object, key)) != LLMMEM_OK ||
        (st = llmmem_key_type(&type, key)) != LLMMEM_OK)
        return internal_failure(st, name);

    printf("%s\n  object: %s  type: %s", name, object_name(object), type_name(type));
    if (type == LLMMEM_TYPE_LIST) {
        printf("  bounds: 0..16  default: empty\n  values: numbers separated by commas, at most 16\n");
    } else if (type == LLMMEM_TYPE_REAL) {
        double lo = 0, hi = 0, def = 0;
        if ((st = llmmem_key_bounds_real(&lo, &hi, key)) != LLMMEM_OK ||
            (st = llmmem_key_default_real(&def, key)) != LLMMEM_OK)
            return internal_failure(st, name);
        printf("  bounds: %g..%g  default: %g\n", lo, hi, def);
    } else {
        int64_t lo = 0, hi = 0, def = 0;
        char lo_s[64], hi_s[64], def_s[64];
        if ((st = llmmem_key_bounds(&lo, &hi, key)) != LLMMEM_OK ||
            (st = llmmem_key_default(&def, key)) != LLMMEM_OK)
            return internal_failure(st, name);
        snprintf(lo_s, sizeof lo_s, "%" PRId64, lo);
        snprintf(hi_s, sizeof hi_s, "%" PRId64, hi);
        format_value(def_s, sizeof def_s, key, type, def);
        printf("  bounds: %s..%s  default: %s\n", lo_s, hi_s, def_s);
        if (type == LLMMEM_TYPE_CHOICE) {
            int64_t v;
            const char *sep = "";
            fputs("  choices: ", stdout);
            /* Choice ranges are small; the cap guards against a broken bound. */
            for (v = lo; v <= hi && v - lo < 4096; v++) {
                const char *choice = llmmem_choice_name(key, v);
                if (choice != NULL) {
                    printf("%s%s", sep, choice);
                    sep = " ";
                }
                if (v == INT64_MAX)
                    break;
            }
            fputc('\n', stdout);
        } else if (type == LLMMEM_TYPE_FLAGS) {
            char all[256];
            format_value(all, sizeof all, key, type, hi);
            printf("  flags: %s (comma-separated)\n", all);
        }
    }
    printf("  %s\n", doc != NULL ? doc : "");
    return 0;
}

static int cmd_keys(void)
{
    size_t count = llmmem_key_count();
    size_t i;
    for (i = 0; i < count; i++) {
        int rc = print_key(llmmem_key_at(i));
        if (rc != 0)
            return rc;
    }
    return 0;
}

int main(int argc, char **argv)
{
    cli_options opts;
    char err[1024];
    int rc;

    rc = cli_parse_args(&opts, argc, argv, err, sizeof err);
    if (rc != 0) {
        error_msg("%s", err);
        cli_options_free(&opts);
        return rc;
    }
    if (opts.help || (opts.command != NULL && strcmp(opts.command, "help") == 0)) {
        print_usage(stdout);
    } else if (opts.version) {
        printf("llmmem %s\n", llmmem_version_string());
    } else if (strcmp(opts.command, "estimate") == 0 || strcmp(opts.command, "explain") == 0) {
        rc = cmd_estimate(&opts);
    } else if (strcmp(opts.command, "timeline") == 0) {
        rc = cmd_timeline(&opts);
    } else if (strcmp(opts.command, "serve") == 0) {
        rc = cmd_serve(&opts);
    } else if (strcmp(opts.command, "fit") == 0) {
        rc = cmd_fit(&opts);
    } else if (strcmp(opts.command, "plan") == 0) {
        rc = cmd_plan(&opts);
    } else if (strcmp(opts.command, "params") == 0) {
        rc = cmd_params(&opts);
    } else if (strcmp(opts.command, "models") == 0) {
        rc = cmd_models();
    } else if (strcmp(opts.command, "gpus") == 0) {
        rc = cmd_gpus();
    } else {
        rc = cmd_keys();
    }
    cli_options_free(&opts);
    return finish_output(rc);
}
