/*
 * The `llmmem` tool's command line, parsed without running a command or printing anything: the
 * tool (llmmem.c) and its fuzz target (tests/fuzz/fuzz_cli.c) share it.
 */
#ifndef LLMMEM_CLI_ARGS_H
#define LLMMEM_CLI_ARGS_H

#include <stddef.h>
#include <stdint.h>

#define CLI_DEFAULT_MODEL "llama-3.1-8b"
#define CLI_DEFAULT_GPU "h100-sxm-80gb"
#define CLI_DEFAULT_FIT_DEVICES 1024 /* fit --devices: the most devices tried */
#define CLI_DEFAULT_TOP 10           /* plan --top: layouts printed */

/* Exit statuses: 0 success, 1 internal failure, 2 bad input. */
enum { CLI_EXIT_INTERNAL = 1, CLI_EXIT_USAGE = 2 };

/* Options seen on the command line, as bits, to reject those a command ignores. */
enum {
    CLI_OPT_MODEL = 1u << 0,
    CLI_OPT_GPU = 1u << 1,
    CLI_OPT_SET = 1u << 2,
    CLI_OPT_JSON = 1u << 3,
    CLI_OPT_SAFETENSORS = 1u << 4,
    CLI_OPT_CONFIG = 1u << 5,
    CLI_OPT_GGUF = 1u << 6,
    CLI_OPT_LENGTH = 1u << 7,
    CLI_OPT_DEVICES = 1u << 8,
    CLI_OPT_TOP = 1u << 9,
    CLI_OPT_EXPLAIN = 1u << 10
};

typedef struct cli_command {
    const char *name;
    unsigned allowed; /* CLI_OPT_* bits */
    const char *summary;
} cli_command;

extern const cli_command cli_commands[];
extern const size_t cli_command_count;

/* The command of that name, or NULL. */
const cli_command *cli_find_command(const char *name);

typedef struct cli_options {
    const char *command;
    const char *topic;       /* help COMMAND */
    const char *model;       /* NULL: the default, or an empty model (see model_type) */
    const char *gpu;         /* NULL: CLI_DEFAULT_GPU */
    const char *safetensors; /* checkpoint whose stored bytes the weights become */
    const char *config;      /* a Hugging Face config.json (file or folder) instead of --model */
    const char *gguf;        /* a GGUF file: the model from its metadata, weights from its tensors */
    const char **sets;       /* the KEY=VALUE texts of --set, in order */
    size_t set_count;
    /* numbers, read with llmmem_parse_int and checked against their ranges */
    int has_length;
    int64_t length;          /* serve --length: tokens per request (the strategy's request_tokens) */
    uint64_t devices;        /* plan --devices: the devices to lay out; fit --devices: the most to try */
    uint64_t top;            /* plan --top: layouts printed (0: all) */
    unsigned seen;           /* CLI_OPT_* bits */
    int json;
    int explain;             /* estimate --explain, or the explain command */
    int help;
    int version;
} cli_options;

/*
 * Reads argv[1 .. argc - 1] into *opts (zeroed first). Returns 0 when a command (or help, or the
 * version) is to run; CLI_EXIT_USAGE for bad input and CLI_EXIT_INTERNAL when out of memory,
 * with the message (naming the option and the text given) in err. Prints nothing. Free *opts with
 * cli_options_free whatever it returns.
 */
int cli_parse_args(cli_options *opts, int argc, char **argv, char *err, size_t err_size);

void cli_options_free(cli_options *opts);

#endif
