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

/* Options seen on the command line, as bits (cli_options.seen); a command given options it does
 * not take names the first of them in this order. */
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
    CLI_OPT_EXPLAIN = 1u << 10,
    CLI_OPT_ENGINE = 1u << 11,
    CLI_OPT_ALLOCATOR = 1u << 12
};

/* Commands, as bits, for the commands an option applies to. */
enum {
    CLI_CMD_ESTIMATE = 1u << 0,
    CLI_CMD_EXPLAIN = 1u << 1,
    CLI_CMD_SERVE = 1u << 2,
    CLI_CMD_FIT = 1u << 3,
    CLI_CMD_PLAN = 1u << 4,
    CLI_CMD_PARAMS = 1u << 5,
    CLI_CMD_MODELS = 1u << 6,
    CLI_CMD_GPUS = 1u << 7,
    CLI_CMD_KEYS = 1u << 8,
    CLI_CMD_HELP = 1u << 9,
    CLI_CMD_TIMELINE = 1u << 10,
    CLI_CMD_ALL = (1u << 11) - 1
};

typedef struct cli_command {
    const char *name;
    unsigned bit; /* CLI_CMD_* */
    const char *summary;
} cli_command;

extern const cli_command cli_commands[];
extern const size_t cli_command_count;

/* The command of that name, or NULL. */
const cli_command *cli_find_command(const char *name);

/* How the parser reads an option. */
typedef enum cli_option_kind {
    CLI_FLAG,   /* no value: sets an int of cli_options to 1 */
    CLI_TEXT,   /* "--name VALUE" or "--name=VALUE": a const char * of cli_options, the last given */
    CLI_NUMBER, /* a value read as a whole number once every option is read (args.c read_numbers) */
    CLI_KEYS    /* KEY=VALUE, repeatable: appended to cli_options.sets */
} cli_option_kind;

/*
 * One option of the tool: the one table from which the parser reads the command line, the usage
 * text lists the options and a command refuses those it does not take.
 */
typedef struct cli_option {
    const char *name;     /* "--model" */
    const char *alias;    /* another spelling ("-h"), written first in the usage; or NULL */
    const char *arg;      /* the value's name in the usage ("NAME"); NULL for a flag */
    unsigned bit;         /* CLI_OPT_*; 0 for --help and --version, which every command takes */
    unsigned commands;    /* CLI_CMD_* bits of the commands that take it */
    const char *help;     /* its usage text, lines separated by '\n' */
    cli_option_kind kind;
    size_t offset;        /* CLI_FLAG, CLI_TEXT: where in cli_options it goes */
} cli_option;

extern const cli_option cli_option_table[];
extern const size_t cli_option_count;

/* The first option of `seen` (CLI_OPT_* bits, in their order) that `cmd` does not take, or NULL. */
const cli_option *cli_refused_option(unsigned seen, const cli_command *cmd);

typedef struct cli_options {
    const char *command;
    const char *topic;       /* help COMMAND */
    const char *model;       /* NULL: the default, or an empty model (see model_type) */
    const char *gpu;         /* NULL: CLI_DEFAULT_GPU */
    const char *safetensors; /* checkpoint whose stored bytes the weights become */
    const char *config;      /* a Hugging Face config.json (file or folder) instead of --model */
    const char *gguf;        /* a GGUF file: the model from its metadata, weights from its tensors */
    const char *engine;      /* serve, fit --engine: vllm, llama.cpp or ollama (the strategy's engine key) */
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
    int allocator;           /* timeline --allocator: the caching allocator's replay */
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
