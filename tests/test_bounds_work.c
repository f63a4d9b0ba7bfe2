/* Readers do work linear in their input, asserted as work, never as time: the config reader's
 * reads of JSON array items (llmmem__json_array_get, wrapped at link time with -Wl,--wrap) are
 * counted while it reads a layer_types of 99,000 entries, under the 4 MiB and 100,000-value caps
 * of a config.json (issue 34: the period search read up to n^2 / 2 items, 52 s of CPU).
 *
 * Expected results follow from the pattern's definition (transformers' sliding_window_pattern,
 * llama.cpp llama-hparams.cpp set_swa_pattern: layer i is global exactly when (i + 1) % n == 0). */
#include <stdio.h>
#include <string.h>

#include "readers/json.h"
#include "readers/readfile.h"
#include "unit.h"

#define LAYERS 99000
/* items read per entry: its own check, and a few reads outside layer_types */
#define READS_PER_ENTRY 2
#define READS_BESIDE 1000

static unsigned long long reads, read_limit = ~0ULL;

llmmem__json *__real_llmmem__json_array_get(const llmmem__json *arr, size_t i);
llmmem__json *__wrap_llmmem__json_array_get(const llmmem__json *arr, size_t i);

llmmem__json *__wrap_llmmem__json_array_get(const llmmem__json *arr, size_t i)
{
    /* stop at once past the bound, where a quadratic reader would go on for minutes */
    if (++reads > read_limit)
        ck_abort_msg("more than %llu array items read for %d layers: the work is not linear", read_limit, LAYERS);
    return __real_llmmem__json_array_get(arr, i);
}

/* The layer kinds of one test: global(i) for layer i of n. */
typedef int (*global_fn)(size_t i, size_t n);

static int every_sixth(size_t i, size_t n)
{
    (void)n;
    return (i + 1) % 6 == 0;
}
static int last_only(size_t i, size_t n)
{
    return i + 1 == n;
}
static int last_two(size_t i, size_t n)
{
    return i + 2 >= n;
}

/* A config of `model_type` with LAYERS layers whose layer_types the function gives; the text is
 * malloc'd. */
static char *config(const char *model_type, global_fn global)
{
    size_t cap = 512 + (size_t)LAYERS * sizeof "\"sliding_attention\", ";
    char *json = malloc(cap);
    ck_assert_ptr_nonnull(json);
    int n = snprintf(json, cap,
                     "{\"model_type\": \"%s\", \"hidden_size\": 64, \"intermediate_size\": 128, "
                     "\"num_hidden_layers\": %d, \"num_attention_heads\": 4, \"num_key_value_heads\": 2, "
                     "\"head_dim\": 16, \"vocab_size\": 128, \"sliding_window\": 16, \"layer_types\": [",
                     model_type, LAYERS);
    size_t len = (size_t)n;
    for (size_t i = 0; i < LAYERS; i++) {
        const char *t = global(i, LAYERS) ? "\"full_attention\"" : "\"sliding_attention\"";
        size_t tl = strlen(t);
        memcpy(json + len, t, tl);
        len += tl;
        if (i + 1 < LAYERS) {
            memcpy(json + len, ", ", 2);
            len += 2;
        }
    }
    memcpy(json + len, "]}", 3);
    ck_assert_uint_lt(len + 3, LLMMEM_CONFIG_MAX_BYTES);
    return json;
}

static const char *const families[] = {"gemma3_text", "cohere2", "exaone4"};

/* Reads the config, counting array items read; the pattern read (-1 when refused). */
static int64_t read_counted(const char *model_type, global_fn global)
{
    char *json = config(model_type, global);
    llmmem_model *m = NULL;
    reads = 0;
    read_limit = (unsigned long long)READS_PER_ENTRY * LAYERS + READS_BESIDE;
    llmmem_status st = llmmem_model_from_hf_config_text(&m, json, strlen(json));
    unsigned long long counted = reads;
    read_limit = ~0ULL;
    free(json);
    ck_assert_msg(counted <= (unsigned long long)READS_PER_ENTRY * LAYERS + READS_BESIDE, "%s: %llu reads",
                  model_type, counted);
    ck_assert_msg(counted >= LAYERS, "%s: %llu reads: the wrapper does not see the reader", model_type, counted);
    if (st != LLMMEM_OK)
        return -1;
    int64_t pattern = -1;
    ck_assert_ok(llmmem_model_get_int(&pattern, m, LLMMEM_KEY_SLIDING_WINDOW_PATTERN));
    llmmem_model_free(m);
    return pattern;
}

/* Every sixth layer global (Gemma 3's 5:1): pattern 6. */
START_TEST(layer_types_periodic)
{
    ck_assert_int_eq(read_counted(families[_i], every_sixth), 6);
}
END_TEST

/* Only the last layer global: pattern n, found after one read of each entry (the old search tried
 * every period below it, each up to its own length). A pattern must repeat within the 4096 layers
 * a model lists one by one (arch.c), so the model is refused, naming the pattern it found. */
START_TEST(layer_types_period_of_the_whole_model)
{
    ck_assert_int_eq(read_counted(families[_i], last_only), -1);
    ck_assert_msg(strstr(llmmem_last_message(), "num_hidden_layers (99000) exceeds 4096 and the layer pattern "
                                                "(sliding_window_pattern 99000,") != NULL,
                  "%s", llmmem_last_message());
}
END_TEST

/* The last two layers global: no period, and too many layers for a per-layer map: refused with
 * its message. */
START_TEST(layer_types_not_periodic)
{
    ck_assert_int_eq(read_counted(families[_i], last_two), -1);
    ck_assert_msg(strstr(llmmem_last_message(), "layer_types: not periodic, and more than 4096 layers are not "
                                                "modelled layer by layer") != NULL,
                  "%s", llmmem_last_message());
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bounds_work");
    TCase *tc = tcase_create("layer_types");
    int n = (int)(sizeof families / sizeof families[0]);
    tcase_add_loop_test(tc, layer_types_periodic, 0, n);
    tcase_add_loop_test(tc, layer_types_period_of_the_whole_model, 0, n);
    tcase_add_loop_test(tc, layer_types_not_periodic, 0, n);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
