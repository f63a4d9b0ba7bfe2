/* libFuzzer target: a config.json's layer_types of any length (up to 100,000 entries, the values a
 * config may hold) and content, for each family that reads it, gives a model or a status with a
 * message, in time linear in the entries (libFuzzer's per-input -timeout catches a quadratic
 * search, issue 34); and for up to 1024 entries the sliding_window_pattern read is the one found
 * by trying every period (transformers' sliding_window_pattern, llama.cpp llama-hparams.cpp
 * set_swa_pattern: layer i is global exactly when (i + 1) % n == 0).
 *
 * Input bytes: family, shape and length, period, window, then changes (an index and what it holds
 * there). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llmmem/llmmem.h"
#include "reader.h"

static const char *const families[] = {"gemma3_text", "cohere2", "exaone4", "qwen3_next"};
static const char *const kinds[] = {"full_attention", "sliding_attention", "linear_attention", "chunked_attention",
                                    "attention",      "mamba",             "",                 "Full_attention"};
#define FULL 0
#define SLIDING 1
#define MAX_LAYERS 100000
#define ORACLE_MAX 1024

/* The pattern n that the flags follow (global exactly when (i + 1) % n == 0), tried one by one; 0
 * for none. */
static size_t brute_period(const uint8_t *kind, size_t n)
{
    for (size_t q = 1; q <= n; q++) {
        size_t i = 0;
        while (i < n && (kind[i] == FULL) == ((i + 1) % q == 0))
            i++;
        if (i == n)
            return q;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    const char *family = families[take_u8(&r) % (sizeof families / sizeof families[0])];
    uint8_t shape = take_u8(&r);
    /* mostly up to 256 layers; an eighth up to 4097 (the 4096 a map lists, and one more); rarely up
     * to 100,000 */
    size_t n = shape == 0xff ? 1 + take_be(&r, 3) % MAX_LAYERS
               : shape % 8 == 2 ? 1 + take_be(&r, 2) % 4097 : 1 + (size_t)take_u8(&r);
    size_t period = 1 + take_be(&r, 3) % n;
    int window = take_u8(&r) % 4 == 3 ? 0 : 16; /* mostly a window: the layers slide */
    uint8_t *kind = malloc(n);
    char *json = malloc(512 + n * 22);
    if (!kind || !json)
        abort();
    for (size_t i = 0; i < n; i++)
        kind[i] = (i + 1) % period == 0 ? FULL : SLIDING;
    for (int changes = take_u8(&r) % 8; changes > 0; changes--) {
        size_t at = take_be(&r, 3) % n;
        kind[at] = take_u8(&r) % (sizeof kinds / sizeof kinds[0]);
    }
    int len = snprintf(json, 512,
                       "{\"model_type\": \"%s\", \"hidden_size\": 64, \"intermediate_size\": 128, "
                       "\"num_hidden_layers\": %zu, \"num_attention_heads\": 4, \"num_key_value_heads\": 2, "
                       "\"head_dim\": 16, \"vocab_size\": 128, \"sliding_window\": %d, \"layer_types\": [",
                       family, n, window);
    size_t at = (size_t)len;
    for (size_t i = 0; i < n; i++)
        at += (size_t)sprintf(json + at, "%s\"%s\"", i ? "," : "", kinds[kind[i]]);
    memcpy(json + at, "]}", 3);

    llmmem_model *m = NULL;
    llmmem_status st = llmmem_model_from_hf_config_text(&m, json, at + 2);
    if (st != LLMMEM_OK && (m != NULL || strncmp(llmmem_last_message(), "<memory>: ", 10) != 0))
        abort();
    /* an attention-only model of up to ORACLE_MAX layers: the pattern read is the brute force's */
    int attention_only = 1, any_full = 0, any_sliding = 0;
    for (size_t i = 0; i < n; i++) {
        attention_only &= kind[i] == FULL || kind[i] == SLIDING;
        any_full |= kind[i] == FULL;
        any_sliding |= kind[i] == SLIDING;
    }
    if (st == LLMMEM_OK && attention_only && n <= ORACLE_MAX && strcmp(family, "qwen3_next") != 0) {
        int64_t pattern = -1, sliding = -1;
        if (llmmem_model_get_int(&pattern, m, LLMMEM_KEY_SLIDING_WINDOW_PATTERN) ||
            llmmem_model_get_int(&sliding, m, LLMMEM_KEY_SLIDING_WINDOW))
            abort();
        size_t q = brute_period(kind, n);
        if (!any_sliding || window == 0) {
            if (sliding != 0) /* no layer slides */
                abort();
        } else if (!any_full) {
            if (pattern != 0) /* every layer slides */
                abort();
        } else if (q >= 2 && (size_t)pattern != q) {
            abort();
        }
    }
    llmmem_model_free(m);
    free(json);
    free(kind);
    return 0;
}
