/* libFuzzer target: the step timeline and transformers' generate loop with their keys at and past
 * their bounds (num_beams up to 2^16, max_new_tokens up to 2^30, the batch and prompt beside them)
 * give a report and a timeline, or the same status with a message from both, never a crash; the
 * timeline's highest point is the report's total, every point is the sum of its components and
 * at most that peak, and a solver's answer fits when set.
 *
 * Input bytes: a model, a GPU, a mode, the solver, then settings (a key from the list, a value near a bound). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llmmem/llmmem.h"
#include "reader.h"

static const char *const models[] = {"llama-3.1-8b", "gemma-2-9b", "mixtral-8x7b", "deepseek-v3",
                                     "qwen3-next-80b-a3b", "qwen2.5-14b"};
static const char *const gpus[] = {"h100-sxm-80gb", "rtx-4090"};
static const char *const modes[] = {"inference", "training", "lora", "qlora"};
static const char *const keys[] = {
    "num_beams",         "max_new_tokens",       "micro_batch_size", "sequence_length",   "logits_to_keep",
    "cache_implementation", "attn_implementation", "framework",      "weight_format",     "tensor_parallel",
    "pipeline_parallel", "context_parallel",     "recompute",        "pytorch_version",   "kv_cache_dtype",
    "num_micro_batches", "device_kernels",       "data_parallel",    "zero_stage",        "expert_parallel",
};

static int64_t take_value(reader *r)
{
    static const int64_t edges[] = {0, 1, 2, 3, -1, 255, 256, 4096, 65535, 65536, 65537, 1LL << 24, (1LL << 30) - 1,
                                    1LL << 30, (1LL << 30) + 1, 1LL << 31, INT64_MAX};
    switch (take_u8(r) % 4) {
    case 0: return edges[take_u8(r) % (sizeof edges / sizeof edges[0])];
    case 1: return (int64_t)take_u8(r);
    case 2: return (int64_t)1 << (take_u8(r) % 63);
    default: return (int64_t)take_be(r, 8);
    }
}

static void check_failure(llmmem_status st)
{
    if (st != LLMMEM_OK && (llmmem_last_message()[0] == '\0' || llmmem_last_status() != st))
        abort();
}

static uint64_t components(const llmmem_report *rep)
{
    uint64_t sum = 0;
    for (size_t c = 0; c < llmmem_component_count(); c++)
        sum += llmmem_report_bytes(rep, (llmmem_component)c);
    return sum;
}

static void check_timeline(const llmmem_timeline *tl, const llmmem_report *rep)
{
    size_t n = llmmem_timeline_count(tl), peak = llmmem_timeline_peak_index(tl);
    if (n == 0 || peak >= n || llmmem_timeline_total_bytes(tl, peak) != llmmem_report_total_bytes(rep))
        abort();
    for (size_t i = 0; i < n; i++) {
        uint64_t sum = 0;
        for (size_t c = 0; c < llmmem_component_count(); c++)
            sum += llmmem_timeline_bytes(tl, i, (llmmem_component)c);
        if (sum != llmmem_timeline_total_bytes(tl, i) || sum > llmmem_timeline_total_bytes(tl, peak))
            abort();
    }
    char *json = NULL;
    if (llmmem_timeline_to_json(&json, tl) != LLMMEM_OK)
        abort();
    llmmem_string_free(json);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    llmmem_model *m = NULL;
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_report *rep = NULL;
    llmmem_timeline *tl = NULL;
    if (llmmem_model_from_preset(&m, models[take_u8(&r) % (sizeof models / sizeof models[0])]) ||
        llmmem_hardware_from_preset(&hw, gpus[take_u8(&r) % (sizeof gpus / sizeof gpus[0])]) ||
        llmmem_strategy_new(&s) || llmmem_report_new(&rep) || llmmem_timeline_new(&tl))
        abort();
    check_failure(llmmem_strategy_set_text(s, "mode", modes[take_u8(&r) % (sizeof modes / sizeof modes[0])]));
    int batch = take_u8(&r) & 1; /* the solver asked at the end: the most sequences, else the longest */
    for (int ops = 0; r.n && ops < 16; ops++) {
        llmmem_key key;
        if (llmmem_key_from_name(&key, keys[take_u8(&r) % (sizeof keys / sizeof keys[0])]))
            abort();
        int64_t v = take_value(&r), lo, hi;
        llmmem_status st = llmmem_strategy_set_int(s, key, v);
        check_failure(st);
        if (st == LLMMEM_OK && (llmmem_key_bounds(&lo, &hi, key) || v < lo || v > hi))
            abort();
    }
    llmmem_status st = llmmem_estimate(rep, m, hw, s);
    check_failure(st);
    if (llmmem_estimate_timeline(tl, m, hw, s) != st) /* the same validation */
        abort();
    if (st == LLMMEM_OK) {
        if (components(rep) != llmmem_report_total_bytes(rep))
            abort();
        check_timeline(tl, rep);
        char *json = NULL;
        if (llmmem_report_to_json(&json, rep) != LLMMEM_OK)
            abort();
        llmmem_string_free(json);
        /* a solver's answer, set, fits */
        uint64_t answer = 0;
        llmmem_key key = batch ? LLMMEM_KEY_MICRO_BATCH_SIZE : LLMMEM_KEY_SEQUENCE_LENGTH;
        st = batch ? llmmem_solve_max_micro_batch(&answer, m, hw, s)
                   : llmmem_solve_max_sequence_length(&answer, m, hw, s);
        check_failure(st);
        if (st == LLMMEM_OK && answer > 0) {
            if (llmmem_strategy_set_int(s, key, (int64_t)answer) || llmmem_estimate(rep, m, hw, s) ||
                !llmmem_report_fits(rep))
                abort();
        }
    }
    llmmem_timeline_free(tl);
    llmmem_report_free(rep);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
    return 0;
}
