/* libFuzzer target: the `llmmem` tool's command-line parser (cli/args.c). The input is
 * split on NUL bytes into argv[1..] (argv[0] is "llmmem"); parsing never crashes, leaks or
 * prints, and its answer is consistent: 0 with a known command (or help or the version) and every
 * number within its option's range, or an exit status of 1 or 2 with a message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "llmmem/llmmem.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* a copy ending in NUL, so the last argument ends too */
    char *text = malloc(size + 1);
    char *argv[MAX_ARGS + 2];
    int argc = 1;
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    argv[0] = (char *)"llmmem";
    for (size_t start = 0; start <= size && argc <= MAX_ARGS;) {
        argv[argc++] = text + start;
        start += strlen(text + start) + 1;
    }
    argv[argc] = NULL;

    cli_options opts;
    char err[1024];
    memset(err, 'x', sizeof err);
    int rc = cli_parse_args(&opts, argc, argv, err, sizeof err);
    if (memchr(err, '\0', sizeof err) == NULL)
        abort(); /* the message is always terminated */
    if (rc == 0) {
        if (!opts.help && !opts.version) {
            const cli_command *cmd = opts.command ? cli_find_command(opts.command) : NULL;
            if (!cmd)
                abort();
            if (strcmp(cmd->name, "plan") == 0 && (opts.devices < 1 || opts.devices > LLMMEM_PLAN_MAX_DEVICES))
                abort();
            if (cli_refused_option(opts.seen, cmd) != NULL)
                abort();
            if (opts.devices < 1 || opts.devices > LLMMEM_PLAN_MAX_DEVICES)
                abort();
            if (opts.has_length && (opts.length < 0 || opts.length > (int64_t)1 << 30))
                abort();
            if (opts.top > (uint64_t)INT64_MAX)
                abort();
        }
        if (opts.set_count > (size_t)argc)
            abort();
        for (size_t i = 0; i < opts.set_count; i++)
            if (strchr(opts.sets[i], '=') == NULL)
                abort();
    } else if (rc == CLI_EXIT_USAGE || rc == CLI_EXIT_INTERNAL) {
        if (err[0] == '\0')
            abort(); /* a refusal says why */
    } else {
        abort();
    }
    cli_options_free(&opts);
    free(text);
    return 0;
}
