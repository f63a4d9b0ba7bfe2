/*
 * The `llmmem` tool's command line (cli_args.h): options, their values and the numbers they
 * hold, checked without running a command or printing. Numbers are read as the library reads a
 * key's (llmmem_parse_int), so `--devices 1K`, `--set tensor_parallel=8` and `--length 8KiB` follow
 * one grammar, and a message names the option and quotes the text given.
 */
#include "cli_args.h"

#include <llmmem/llmmem.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const cli_command cli_commands[] = {
    {"estimate", CLI_OPT_MODEL | CLI_OPT_GPU | CLI_OPT_SET | CLI_OPT_JSON | CLI_OPT_SAFETENSORS | CLI_OPT_CONFIG |
                     CLI_OPT_GGUF | CLI_OPT_EXPLAIN,
     "memory of the most loaded device, per component, and whether it fits"},
    {"explain", CLI_OPT_MODEL | CLI_OPT_GPU | CLI_OPT_SET | CLI_OPT_SAFETENSORS | CLI_OPT_CONFIG | CLI_OPT_GGUF,
     "the estimate's arithmetic, one line per component, with the rule it follows"},
    {"serve", CLI_OPT_MODEL | CLI_OPT_GPU | CLI_OPT_SET | CLI_OPT_JSON | CLI_OPT_SAFETENSORS | CLI_OPT_CONFIG |
                  CLI_OPT_GGUF | CLI_OPT_LENGTH,
     "vLLM-style serving: KV cache blocks, concurrent requests, longest context"},
    {"fit", CLI_OPT_MODEL | CLI_OPT_GPU | CLI_OPT_SET | CLI_OPT_CONFIG | CLI_OPT_GGUF | CLI_OPT_DEVICES,
     "largest micro-batch, longest sequence, least compressed format, fewest devices that fit"},
    {"plan", CLI_OPT_MODEL | CLI_OPT_GPU | CLI_OPT_SET | CLI_OPT_CONFIG | CLI_OPT_GGUF | CLI_OPT_DEVICES | CLI_OPT_TOP |
                 CLI_OPT_JSON,
     "the cheapest layouts of --devices GPUs that fit"},
    {"params", CLI_OPT_MODEL | CLI_OPT_SET | CLI_OPT_SAFETENSORS | CLI_OPT_CONFIG | CLI_OPT_GGUF,
     "exact parameter counts of a model, per group"},
    {"models", 0, "list the model presets with their parameter counts"},
    {"gpus", 0, "list the GPU presets with their memory"},
    {"keys", 0, "list every key --set accepts: object, type, bounds, default, choices"},
    {"help", 0, "show this help"},
};

const size_t cli_command_count = sizeof cli_commands / sizeof cli_commands[0];

const cli_command *cli_find_command(const char *name)
{
    for (size_t i = 0; i < cli_command_count; i++)
        if (strcmp(cli_commands[i].name, name) == 0)
            return &cli_commands[i];
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

/* The text given to a number option, kept until every option is read. */
typedef struct number_text {
    const char *length, *devices, *top;
} number_text;

static int read_numbers(cli_options *opts, const number_text *given, char *err, size_t size)
{
    int64_t v, lo, hi;
    int rc;
    if (given->length != NULL) {
        if (llmmem_key_bounds(&lo, &hi, LLMMEM_KEY_REQUEST_TOKENS) != LLMMEM_OK) {
            snprintf(err, size, "llmmem_key_bounds(request_tokens) failed: %s", llmmem_last_message());
            return CLI_EXIT_INTERNAL;
        }
        if ((rc = read_number(&v, given->length, "--length", "request_tokens", lo, hi, err, size)) != 0)
            return rc;
        opts->has_length = 1;
        opts->length = v;
    }
    opts->devices = CLI_DEFAULT_FIT_DEVICES;
    if (given->devices != NULL) {
        if ((rc = read_number(&v, given->devices, "--devices", NULL, 1, LLMMEM_PLAN_MAX_DEVICES, err, size)) != 0)
            return rc;
        opts->devices = (uint64_t)v;
    }
    opts->top = CLI_DEFAULT_TOP;
    if (given->top != NULL) {
        hi = (uint64_t)SIZE_MAX < (uint64_t)INT64_MAX ? (int64_t)SIZE_MAX : INT64_MAX;
        if ((rc = read_number(&v, given->top, "--top", NULL, 0, hi, err, size)) != 0)
            return rc;
        opts->top = (uint64_t)v;
    }
    return 0;
}

/* The options a command does not take are refused, naming the first. */
static int check_applies(const cli_options *opts, const cli_command *cmd, char *err, size_t size)
{
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {{CLI_OPT_MODEL, "--model"},   {CLI_OPT_GPU, "--gpu"},         {CLI_OPT_SET, "--set"},
                 {CLI_OPT_JSON, "--json"},     {CLI_OPT_SAFETENSORS, "--safetensors"},
                 {CLI_OPT_CONFIG, "--config"}, {CLI_OPT_GGUF, "--gguf"},       {CLI_OPT_LENGTH, "--length"},
                 {CLI_OPT_DEVICES, "--devices"}, {CLI_OPT_TOP, "--top"},       {CLI_OPT_EXPLAIN, "--explain"}};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if ((opts->seen & names[k].bit) != 0 && (cmd->allowed & names[k].bit) == 0)
            return fail(err, size, "option '%s' does not apply to '%s'", names[k].name, cmd->name);
    return 0;
}

int cli_parse_args(cli_options *opts, int argc, char **argv, char *err, size_t err_size)
{
    static const struct {
        const char *name;
        size_t offset; /* of the const char * in cli_options, or (size_t)-1 for a number */
        unsigned bit;
    } valued[] = {
        {"--model", offsetof(cli_options, model), CLI_OPT_MODEL},
        {"--gpu", offsetof(cli_options, gpu), CLI_OPT_GPU},
        {"--config", offsetof(cli_options, config), CLI_OPT_CONFIG},
        {"--gguf", offsetof(cli_options, gguf), CLI_OPT_GGUF},
        {"--safetensors", offsetof(cli_options, safetensors), CLI_OPT_SAFETENSORS},
        {"--length", (size_t)-1, CLI_OPT_LENGTH},
        {"--devices", (size_t)-1, CLI_OPT_DEVICES},
        {"--top", (size_t)-1, CLI_OPT_TOP},
    };
    number_text given = {NULL, NULL, NULL};
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
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            opts->help = 1;
            continue;
        }
        if (strcmp(arg, "--version") == 0) {
            opts->version = 1;
            continue;
        }
        if (strcmp(arg, "--json") == 0) {
            opts->json = 1;
            opts->seen |= CLI_OPT_JSON;
            continue;
        }
        if (strcmp(arg, "--explain") == 0) {
            opts->explain = 1;
            opts->seen |= CLI_OPT_EXPLAIN;
            continue;
        }
        for (k = 0; k < sizeof valued / sizeof valued[0]; k++)
            if ((r = option_value(&value, argc, argv, &i, valued[k].name)) != 0)
                break;
        if (r < 0)
            return fail(err, err_size, "option '%s' needs an argument", valued[k].name);
        if (r > 0) {
            opts->seen |= valued[k].bit;
            if (valued[k].offset != (size_t)-1)
                *(const char **)((char *)opts + valued[k].offset) = value;
            else if (valued[k].bit == CLI_OPT_LENGTH)
                given.length = value;
            else if (valued[k].bit == CLI_OPT_DEVICES)
                given.devices = value;
            else
                given.top = value;
            continue;
        }
        if ((r = option_value(&value, argc, argv, &i, "--set")) != 0) {
            if (r < 0)
                return fail(err, err_size, "option '--set' needs an argument");
            if (strchr(value, '=') == NULL)
                return fail(err, err_size, "--set expects KEY=VALUE, got '%.64s'", value);
            opts->sets[opts->set_count++] = value;
            opts->seen |= CLI_OPT_SET;
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
    if (rc == 0 && strcmp(opts->command, "plan") == 0 && given.devices == NULL)
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
