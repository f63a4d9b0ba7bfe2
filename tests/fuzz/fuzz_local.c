/* libFuzzer target: llama.cpp's and ollama's settings, their list key tensor_split and the
 * hardware, at and past their bounds (n_ctx x n_parallel toward 2^64, num_ctx x num_parallel past
 * llama-server's int), give a local estimate or a status with a message, never a crash; an estimate
 * is self-consistent and inside llama.cpp's own limits (at most 256 sequences, a context llama.cpp
 * holds in a uint32, at least one cell a sequence), and a solver's answer is inside its key's
 * bounds and, re-estimated, fits (issue 34).
 *
 * Input bytes: a model, a GPU, its count and memory, the model's context, the engine and the
 * question, then settings, each a key from the engine's list and a value that is usually near a
 * bound, or tensor_split as raw text or raw doubles. */
#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llmmem/llmmem.h"
#include "reader.h"

static const char *const models[] = {"llama-3.1-8b", "qwen2.5-14b", "mixtral-8x7b", "gemma-2-9b", "deepseek-v3",
                                     "qwen3-next-80b-a3b"};
static const char *const gpus[] = {"rtx-4090", "h100-sxm-80gb", "rtx-3060-12gb"};
static const char *const keys[] = {
    "engine",      "n_ctx",        "n_parallel",   "n_batch",      "n_ubatch",         "n_gpu_layers",
    "n_cpu_moe",   "cache_type_k", "cache_type_v", "flash_attn",   "kv_unified",       "swa_full",
    "split_mode",  "main_gpu",     "offload_kqv",  "fit",          "fit_margin_bytes", "num_ctx",
    "num_parallel", "num_gpu",     "num_batch",    "sched_spread", "gpu_overhead_bytes", "weight_format",
};

/* Values near the bounds that matter: 0, 1, 255..257, 2^31 - 1 and 2^31, 2^32, 2^63 - 1, negatives. */
static int64_t take_value(reader *r)
{
    static const int64_t edges[] = {0, 1, 2, -1, -2, 255, 256, 257, 4096, 65536, 2147483647LL, 2147483648LL,
                                    4294967295LL, 4294967296LL, 4294967297LL, INT64_MAX, INT64_MIN};
    uint8_t how = take_u8(r);
    switch (how % 4) {
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

/* The verdict a solver's answer must have: it fits, or every GPU keeps its part and only the host's
 * RAM is unknown (FITS is 0 then, HOST_UNKNOWN 1 and no device lacks anything: llmmem.h). */
static int fits_or_host_unknown_only(const llmmem_local *l)
{
    return llmmem_local_get(l, LLMMEM_LOCAL_FITS) ||
           (llmmem_local_get(l, LLMMEM_LOCAL_HOST_UNKNOWN) && !llmmem_local_get(l, LLMMEM_LOCAL_SHORTFALL));
}

/* The estimate's own sums, and llama.cpp's limits on what it describes. */
static void check_local(const llmmem_local *l)
{
    uint64_t kv = 0;
    for (size_t d = 0; d < llmmem_local_device_count(l); d++) {
        uint64_t sum = 0;
        for (size_t b = 0; b < llmmem_local_buffer_count(); b++)
            sum += llmmem_local_bytes(l, d, (llmmem_local_buffer)b);
        if (sum != llmmem_local_device_total(l, d))
            abort();
        kv += llmmem_local_bytes(l, d, LLMMEM_LOCAL_KV);
    }
    uint64_t n_ctx = llmmem_local_get(l, LLMMEM_LOCAL_N_CTX), seqs = llmmem_local_get(l, LLMMEM_LOCAL_N_SEQ_MAX);
    if (kv != llmmem_local_get(l, LLMMEM_LOCAL_KV_BYTES) || seqs < 1 || seqs > 256 || n_ctx == 0 ||
        n_ctx > UINT32_MAX || llmmem_local_get(l, LLMMEM_LOCAL_N_CTX_SEQ) == 0 ||
        llmmem_local_get(l, LLMMEM_LOCAL_N_UBATCH) > llmmem_local_get(l, LLMMEM_LOCAL_N_BATCH) ||
        llmmem_local_get(l, LLMMEM_LOCAL_N_BATCH) > n_ctx ||
        !fits_or_host_unknown_only(l) == !llmmem_local_get(l, LLMMEM_LOCAL_SHORTFALL) ||
        (llmmem_local_get(l, LLMMEM_LOCAL_FITS) && llmmem_local_get(l, LLMMEM_LOCAL_SHORTFALL)))
        abort();
}

/* tensor_split as kept: each value a float llama.cpp reads (0, or normal: std::stof refuses less),
 * one of them positive, so the split points are never 0 / 0. */
static void check_split(const llmmem_strategy *s)
{
    double v[16];
    size_t n = 0;
    int positive = 0;
    if (llmmem_strategy_get_list(v, 16, &n, s, LLMMEM_KEY_TENSOR_SPLIT) || n > 16)
        abort();
    for (size_t i = 0; i < n; i++) {
        float f = (float)v[i];
        if (!(v[i] >= 0) || (v[i] > 0 && !(f >= FLT_MIN)))
            abort();
        positive |= f > 0;
    }
    if (n && !positive)
        abort();
}

/* The key a question searches. */
static const char *searched(llmmem_local_question q, int ollama)
{
    switch (q) {
    case LLMMEM_LOCAL_MAX_GPU_LAYERS: return ollama ? "num_gpu" : "n_gpu_layers";
    case LLMMEM_LOCAL_MAX_CONTEXT: return ollama ? "num_ctx" : "n_ctx";
    default: return ollama ? "num_parallel" : "n_parallel";
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    llmmem_model *m = NULL;
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_local *l = NULL;
    if (llmmem_model_from_preset(&m, models[take_u8(&r) % (sizeof models / sizeof models[0])]) ||
        llmmem_hardware_from_preset(&hw, gpus[take_u8(&r) % (sizeof gpus / sizeof gpus[0])]) ||
        llmmem_strategy_new(&s) || llmmem_local_new(&l))
        abort();
    check_failure(llmmem_hardware_set_int(hw, LLMMEM_KEY_DEVICES_PER_NODE, take_u8(&r) % 5));
    if (take_u8(&r) & 1)
        check_failure(llmmem_hardware_set_int(hw, LLMMEM_KEY_MEMORY_BYTES, take_value(&r)));
    if (take_u8(&r) & 1)
        check_failure(llmmem_model_set_int(m, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, take_value(&r)));
    check_failure(llmmem_strategy_set_text(s, "engine", take_u8(&r) & 1 ? "ollama" : "llama.cpp"));
    uint8_t which = take_u8(&r) % 3;
    llmmem_local_question q = which == 0 ? LLMMEM_LOCAL_MAX_GPU_LAYERS
                              : which == 1 ? LLMMEM_LOCAL_MAX_CONTEXT : LLMMEM_LOCAL_MAX_PARALLEL;
    for (int ops = 0; r.n && ops < 24; ops++) {
        uint8_t op = take_u8(&r);
        llmmem_status st;
        if (op % 8 == 0) { /* tensor_split as any text, or as any doubles */
            if (op & 8) {
                char text[48];
                size_t len = take_u8(&r) % sizeof text;
                for (size_t i = 0; i < len; i++)
                    text[i] = (char)take_u8(&r);
                text[len] = '\0';
                st = llmmem_strategy_set_text(s, "tensor_split", text);
            } else {
                double values[18];
                size_t n = take_u8(&r) % 18;
                for (size_t i = 0; i < n; i++) {
                    uint64_t bits = take_be(&r, 8);
                    memcpy(&values[i], &bits, sizeof bits); /* NaN, infinities, subnormals included */
                }
                st = llmmem_strategy_set_list(s, LLMMEM_KEY_TENSOR_SPLIT, values, n);
            }
        } else {
            const char *name = keys[take_u8(&r) % (sizeof keys / sizeof keys[0])];
            llmmem_key key;
            if (llmmem_key_from_name(&key, name))
                abort();
            int64_t v = take_value(&r), lo, hi;
            st = llmmem_strategy_set_int(s, key, v);
            /* a value accepted is in its key's bounds */
            if (st == LLMMEM_OK && (llmmem_key_bounds(&lo, &hi, key) == LLMMEM_OK) && (v < lo || v > hi))
                abort();
        }
        check_failure(st);
        check_split(s);
    }
    llmmem_status st = llmmem_local_estimate(l, m, NULL, hw, s);
    check_failure(st);
    if ((st == LLMMEM_OK) != (llmmem_local_valid(l) != 0))
        abort();
    if (st == LLMMEM_OK) {
        check_local(l);
        char *json = NULL;
        if (llmmem_local_to_json(&json, l) != LLMMEM_OK)
            abort();
        llmmem_string_free(json);
        int ollama = llmmem_local_get(l, LLMMEM_LOCAL_ENGINE) == LLMMEM_ENGINE_OLLAMA;
        int64_t answer = -1, lo, hi;
        llmmem_key key;
        st = llmmem_local_solve(&answer, q, m, NULL, hw, s);
        check_failure(st);
        if (llmmem_key_from_name(&key, searched(q, ollama)) || llmmem_key_bounds(&lo, &hi, key))
            abort();
        if (st == LLMMEM_OK && (answer < 0 || answer > hi))
            abort();
        /* llama.cpp's layers and context: the answer, set with fit off as the solver sets it, fits */
        if (st == LLMMEM_OK && answer > 0 && !ollama && q != LLMMEM_LOCAL_MAX_PARALLEL) {
            llmmem_strategy *c = NULL;
            if (llmmem_strategy_clone(&c, s) || llmmem_strategy_set_int(c, LLMMEM_KEY_FIT, 0) ||
                llmmem_strategy_set_int(c, key, answer) || llmmem_local_estimate(l, m, NULL, hw, c) ||
                !fits_or_host_unknown_only(l))
                abort();
            check_local(l);
            llmmem_strategy_free(c);
        }
    }
    llmmem_local_free(l);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
    return 0;
}
