/* Runs a fuzz target over files given on the command line, so every build (gcc, valgrind,
 * sanitizers) replays the committed corpus without libFuzzer. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            fprintf(stderr, "replay: cannot open %s\n", argv[i]);
            return 1;
        }
        uint8_t *buf = malloc(1 << 20);
        size_t n = buf ? fread(buf, 1, 1 << 20, f) : 0;
        fclose(f);
        if (!buf)
            return 1;
        LLVMFuzzerTestOneInput(buf, n);
        free(buf);
    }
    printf("replayed %d inputs\n", argc - 1);
    return 0;
}
