/*
 * The `llmmem` tool's command line (args.h): options, their values and the numbers they
 * hold, checked without running a command or printing. Numbers are read as the library reads a
 * key's (llmmem_parse_int), so `--devices 1K`, `--set tensor_parallel=8` and `--length 8KiB` follow
 * one grammar, and a message names the option and quotes the text given.
 */
#include "args.h"

#include <llmmem/llmmem.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const cli_command cli_commands[] = {
    {"estimate", CLI_CMD_ESTIMATE, "memory of the most loaded device, per component, and whether it fits"},
    {"explain", CLI_CMD_EXPLAIN, "the estimate's arithmetic, one line per component, with the rule it follows"},
    {"timeline", CLI_CMD_TIMELINE, "the step moment by moment: bytes after each layer's forward and backward"},
    {"serve", CLI_CMD_SERVE, "vLLM-style serving: KV cache blocks, concurrent requests, longest context"},
    {"fit", CLI_CMD_FIT, "largest micro-batch, longest sequence, least compressed format, fewest devices that fit"},
    {"plan", CLI_CMD_PLAN, "the cheapest layouts of --devices GPUs that fit"},
    {"params", CLI_CMD_PARAMS, "exact parameter counts of a model, per group"},
    {"models", CLI_CMD_MODELS, "list the model presets by family with their parameter counts"},
    {"gpus", CLI_CMD_GPUS, "list the GPU presets with their memory"},
    {"keys", CLI_CMD_KEYS, "list every key --set accepts: object, type, bounds, default, choices"},
    {"help", CLI_CMD_HELP, "show this help"},
};

const size_t cli_command_count = sizeof cli_commands / sizeof cli_commands[0];

const cli_command *cli_find_command(const char *name)
{
    for (size_t i = 0; i < cli_command_count; i++)
        if (strcmp(cli_commands[i].name, name) == 0)
            return &cli_commands[i];
    return NULL;
}

/* The commands that build a model, a device and a strategy, and those that also take a model
 * from a file. */
#define MODEL_CMDS (CLI_CMD_ESTIMATE | CLI_CMD_EXPLAIN | CLI_CMD_TIMELINE | CLI_CMD_SERVE | CLI_CMD_FIT | CLI_CMD_PLAN | CLI_CMD_PARAMS)
#define DEVICE_CMDS (CLI_CMD_ESTIMATE | CLI_CMD_EXPLAIN | CLI_CMD_TIMELINE | CLI_CMD_SERVE | CLI_CMD_FIT | CLI_CMD_PLAN)
#define FLAG(field) CLI_FLAG, offsetof(cli_options, field)
#define TEXT(field) CLI_TEXT, offsetof(cli_options, field)
#define NUMBER CLI_NUMBER, 0

/* In the usage's order; the help text is printed as written, each line after the first indented
 * under the first. */
const cli_option cli_option_table[] = {
    {"--model", NULL, "NAME", CLI_OPT_MODEL, MODEL_CMDS,
     "model preset (default: " CLI_DEFAULT_MODEL "; see 'llmmem models');\n"
     "estimate, explain, serve, fit, plan, params. With --set\n"
     "model_type=... and no\n"
     "--model, the model starts empty and is built key by key.",
     TEXT(model)},
    {"--gpu", NULL, "NAME", CLI_OPT_GPU, DEVICE_CMDS,
     "GPU preset (default: " CLI_DEFAULT_GPU "; see 'llmmem gpus');\n"
     "estimate, explain, serve, fit, plan",
     TEXT(gpu)},
    {"--set", NULL, "KEY=VALUE", CLI_OPT_SET, MODEL_CMDS,
     "set a model, hardware or strategy key (repeatable; see\n"
     "'llmmem keys'); estimate, explain, serve, fit, plan, params\n"
     "(model keys only)",
     CLI_KEYS, 0},
    {"--json", NULL, NULL, CLI_OPT_JSON, CLI_CMD_ESTIMATE | CLI_CMD_TIMELINE | CLI_CMD_SERVE | CLI_CMD_FIT | CLI_CMD_PLAN,
     "estimate, timeline, serve, fit, plan: print JSON\n"
     "(estimate's includes the timeline)", FLAG(json)},
    {"--explain", NULL, NULL, CLI_OPT_EXPLAIN, CLI_CMD_ESTIMATE,
     "estimate: after the table, the arithmetic of every line", FLAG(explain)},
    {"--allocator", NULL, NULL, CLI_OPT_ALLOCATOR, CLI_CMD_TIMELINE,
     "timeline: the moments as PyTorch's CUDA caching allocator\n"
     "serves them (the job replayed): allocated and reserved",
     FLAG(allocator)},
    {"--length", NULL, "TOKENS", CLI_OPT_LENGTH, CLI_CMD_SERVE,
     "serve: tokens per request (prompt and output) for the\n"
     "question \"how many concurrent requests\" (default:\n"
     "max_model_len); the same as --set request_tokens=TOKENS",
     NUMBER},
    {"--devices", NULL, "N", CLI_OPT_DEVICES, CLI_CMD_FIT | CLI_CMD_PLAN,
     "plan: the devices to lay out (required); fit: the most\n"
     "devices tried for the fewest that fit (default 1024);\n"
     "1 to 16777216",
     NUMBER},
    {"--top", NULL, "K", CLI_OPT_TOP, CLI_CMD_PLAN,
     "plan: the cheapest layouts kept and printed, the others\n"
     "only counted (default 10; 0: all)",
     NUMBER},
    {"--config", NULL, "PATH", CLI_OPT_CONFIG, MODEL_CMDS,
     "a Hugging Face config.json (or its folder) instead of --model;\n"
     "estimate, serve, params. The config.json beside a --safetensors\n"
     "checkpoint is used the same way when neither is given.",
     TEXT(config)},
    {"--gguf", NULL, "PATH", CLI_OPT_GGUF, MODEL_CMDS,
     "a GGUF file: the model from its metadata and the weights'\n"
     "exact bytes from its tensors' types; estimate, serve, params",
     TEXT(gguf)},
    {"--safetensors", NULL, "PATH", CLI_OPT_SAFETENSORS,
     CLI_CMD_ESTIMATE | CLI_CMD_EXPLAIN | CLI_CMD_TIMELINE | CLI_CMD_SERVE | CLI_CMD_PARAMS,
     "a .safetensors file, an index or a folder: its headers\n"
     "give the weights' exact stored bytes and are checked\n"
     "against the model (a mismatch is a warning); estimate,\n"
     "serve, params",
     TEXT(safetensors)},
    {"--engine", NULL, "NAME", CLI_OPT_ENGINE, CLI_CMD_SERVE | CLI_CMD_FIT,
     "serve, fit: vllm (default for serve: paged KV blocks),\n"
     "sglang, trtllm (their KV pools), llama.cpp or ollama\n"
     "(buffers per device on one machine, layers split between\n"
     "GPUs and CPU); the same as --set engine=NAME. serve\n"
     "--engine all: the job under every engine side by side",
     TEXT(engine)},
    {"--help", "-h", NULL, 0, CLI_CMD_ALL, "show this help", FLAG(help)},
    {"--version", NULL, NULL, 0, CLI_CMD_ALL, "show the version", FLAG(version)},
};

const size_t cli_option_count = sizeof cli_option_table / sizeof cli_option_table[0];

#undef MODEL_CMDS
#undef DEVICE_CMDS
#undef FLAG
#undef TEXT
#undef NUMBER

/* The option of a CLI_OPT_* bit. */
static const cli_option *option_of(unsigned bit)
{
    for (size_t k = 0; k < cli_option_count; k++)
        if (cli_option_table[k].bit == bit)
            return &cli_option_table[k];
    return NULL;
}

const cli_option *cli_refused_option(unsigned seen, const cli_command *cmd)
{
    for (unsigned bit = 1; bit != 0 && bit <= seen; bit <<= 1) {
        const cli_option *opt = (seen & bit) ? option_of(bit) : NULL;
        if (opt != NULL && (opt->commands & cmd->bit) == 0)
            return opt;
    }
    return NULL;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(char *err, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (size)
        vsnprintf(err, size, fmt, ap);
    va_end(ap);
    return CLI_EXIT_USAGE;
}

/*
 * Option `name` takes a value: "--name VALUE" or "--name=VALUE". Returns 1 and sets *value if
 * argv[*i] is that option, 0 if it is not, -1 if the value is missing.
 */
static int option_value(const char **value, int argc, char **argv, int *i, const char *name)
{
    const char *arg = argv[*i];
    size_t len = strlen(name);
    if (strncmp(arg, name, len) != 0)
        return 0;
    if (arg[len] == '=') {
        *value = arg + len + 1;
        return 1;
    }
    if (arg[len] != '\0')
        return 0;
    if (*i + 1 >= argc)
        return -1;
    *i += 1;
    *value = argv[*i];
    return 1;
}

/*
 * A whole number from lo to hi given to `option` (`note`, when not NULL, says what it sets):
 * read by llmmem_parse_int, so "1K", "7e3" and "4KiB" are numbers and " 5" or "5 " are not.
 */
static int read_number(int64_t *out, const char *text, const char *option, const char *note, int64_t lo,
                       int64_t hi, char *err, size_t size)
{
    char name[64];
    if (note)
        snprintf(name, sizeof name, "%s (%s)", option, note);
    else
        snprintf(name, sizeof name, "%s", option);
    llmmem_status st = llmmem_parse_int(out, text);
    if (st == LLMMEM_OK && *out >= lo && *out <= hi)
        return 0;
    if (st != LLMMEM_OK && st != LLMMEM_ERR_OUT_OF_RANGE) {
        const char *why = llmmem_last_message();
        return fail(err, size, "%s: %s", name, why && why[0] ? why : "not a whole number");
    }
    /* a whole number, beyond int64 or beyond the option's range; the text is quoted as the
     * library quotes a key's (llmmem_parse_int has read at most 256 characters of it) */
    return fail(err, size, "%s: '%.64s%s' is out of range: %" PRId64 " to %" PRId64, name, text,
                strlen(text) > 64 ? "..." : "", lo, hi);
}

/* The text given to each option that takes a value (by its row in cli_option_table), kept until
 * every option is read. */
typedef struct given_text {
    const char *text[sizeof cli_option_table / sizeof cli_option_table[0]];
} given_text;

/* The text given to the option of a CLI_OPT_* bit, or NULL. */
static const char *given_to(const given_text *given, unsigned bit)
{
    const cli_option *opt = option_of(bit);
    return opt ? given->text[opt - cli_option_table] : NULL;
}

static int read_numbers(cli_options *opts, const given_text *given, char *err, size_t size)
{
    const char *length = given_to(given, CLI_OPT_LENGTH), *devices = given_to(given, CLI_OPT_DEVICES),
               *top = given_to(given, CLI_OPT_TOP);
    int64_t v, lo, hi;
    int rc;
    if (length != NULL) {
        if (llmmem_key_bounds(&lo, &hi, LLMMEM_KEY_REQUEST_TOKENS) != LLMMEM_OK) {
            snprintf(err, size, "llmmem_key_bounds(request_tokens) failed: %s", llmmem_last_message());
            return CLI_EXIT_INTERNAL;
        }
        if ((rc = read_number(&v, length, "--length", "request_tokens", lo, hi, err, size)) != 0)
            return rc;
        opts->has_length = 1;
        opts->length = v;
    }
    opts->devices = CLI_DEFAULT_FIT_DEVICES;
    if (devices != NULL) {
        if ((rc = read_number(&v, devices, "--devices", NULL, 1, LLMMEM_PLAN_MAX_DEVICES, err, size)) != 0)
            return rc;
        opts->devices = (uint64_t)v;
    }
    opts->top = CLI_DEFAULT_TOP;
    if (top != NULL) {
        hi = (uint64_t)SIZE_MAX < (uint64_t)INT64_MAX ? (int64_t)SIZE_MAX : INT64_MAX;
        if ((rc = read_number(&v, top, "--top", NULL, 0, hi, err, size)) != 0)
            return rc;
        opts->top = (uint64_t)v;
    }
    return 0;
}

/* The options a command does not take are refused, naming the first. */
static int check_applies(const cli_options *opts, const cli_command *cmd, char *err, size_t size)
{
    const cli_option *refused = cli_refused_option(opts->seen, cmd);
    if (refused != NULL)
        return fail(err, size, "option '%s' does not apply to '%s'", refused->name, cmd->name);
    return 0;
}

/*
 * Whether argv[*i] is the option `opt`: 1 (with its value in *value, argv advanced past it, for
 * an option that takes one), 0 if not, -1 when its value is missing.
 */
static int match(const char **value, const cli_option *opt, int argc, char **argv, int *i)
{
    if (opt->kind == CLI_FLAG)
        return strcmp(argv[*i], opt->name) == 0 || (opt->alias != NULL && strcmp(argv[*i], opt->alias) == 0);
    return option_value(value, argc, argv, i, opt->name);
}

int cli_parse_args(cli_options *opts, int argc, char **argv, char *err, size_t err_size)
{
    given_text given;
    memset(&given, 0, sizeof given);
    memset(opts, 0, sizeof *opts);
    if (err_size)
        err[0] = '\0';
    opts->sets = malloc(sizeof *opts->sets * (size_t)(argc > 0 ? argc : 1));
    if (opts->sets == NULL) {
        snprintf(err, err_size, "out of memory");
        return CLI_EXIT_INTERNAL;
    }
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = NULL;
        int r = 0;
        size_t k;
        for (k = 0; k < cli_option_count; k++)
            if ((r = match(&value, &cli_option_table[k], argc, argv, &i)) != 0)
                break;
        if (r < 0)
            return fail(err, err_size, "option '%s' needs an argument", cli_option_table[k].name);
        if (r > 0) {
            const cli_option *opt = &cli_option_table[k];
            opts->seen |= opt->bit;
            switch (opt->kind) {
            case CLI_FLAG:
                *(int *)((char *)opts + opt->offset) = 1;
                break;
            case CLI_TEXT:
                *(const char **)((char *)opts + opt->offset) = value;
                break;
            case CLI_NUMBER:
                given.text[k] = value;
                break;
            case CLI_KEYS:
                if (strchr(value, '=') == NULL)
                    return fail(err, err_size, "%s expects KEY=VALUE, got '%.64s'", opt->name, value);
                opts->sets[opts->set_count++] = value;
                break;
            }
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return fail(err, err_size, "unknown option '%.64s' (try 'llmmem --help')", arg);
        } else if (opts->command == NULL) {
            if (cli_find_command(arg) == NULL)
                return fail(err, err_size, "unknown command '%.64s' (try 'llmmem --help')", arg);
            opts->command = arg;
        } else if (strcmp(opts->command, "help") == 0 && opts->topic == NULL) {
            if (cli_find_command(arg) == NULL)
                return fail(err, err_size, "unknown command '%.64s' (try 'llmmem --help')", arg);
            opts->topic = arg;
        } else {
            return fail(err, err_size, "unexpected argument '%.64s' (try 'llmmem --help')", arg);
        }
    }
    if (opts->help || opts->version)
        return 0;
    if ((opts->model != NULL) + (opts->config != NULL) + (opts->gguf != NULL) > 1)
        return fail(err, err_size, "give one of --model, --config and --gguf");
    if (opts->json && opts->explain)
        return fail(err, err_size, "give --json or --explain, not both (the explanation is text)");
    if (opts->gguf != NULL && opts->safetensors != NULL)
        return fail(err, err_size, "give --gguf or --safetensors, not both");
    if (opts->command == NULL)
        return fail(err, err_size, "no command given (try 'llmmem --help')");
    int rc = check_applies(opts, cli_find_command(opts->command), err, err_size);
    if (rc == 0 && strcmp(opts->command, "plan") == 0 && given_to(&given, CLI_OPT_DEVICES) == NULL)
        rc = fail(err, err_size, "plan needs --devices N");
    if (rc == 0)
        rc = read_numbers(opts, &given, err, err_size);
    return rc;
}

void cli_options_free(cli_options *opts)
{
    free(opts->sets);
    opts->sets = NULL;
    opts->set_count = 0;
}
