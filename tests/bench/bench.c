/* Benchmarks: nanoseconds per estimate (dense training, MoE with every parallel dimension,
 * serving, local), planner candidates per second, the wall time of a 405B plan on 1024 GPUs, the
 * fewest-devices search on a job that fits and on one that never does, the JSON readers (a
 * config.json, safetensors headers of 100,000 tensors in the plain form and in one that goes
 * through the JSON reader), and the file readers on the hostile inputs of tests/test_bounds.c,
 * whose work and memory that test asserts. Prints the machine and one line per figure: the best
 * of many short rounds (a millisecond or so where the figure allows), since on a loaded machine
 * the shortest rounds are the ones most likely to run without being preempted.
 *
 * With LLMMEM_BENCH_BASELINE=/path/libllmmem.so.0, another build of the library is loaded beside
 * this one and every figure but the hostile inputs is measured for both, rounds alternated, each
 * line ending in the baseline's figure and the ratio of the two (tests/bench/compare.sh builds a
 * commit's library and runs this). `--only SECTION` runs one section: readers, hostile,
 * estimates, runs, json, work.
 * Run with `meson test -C build --benchmark --verbose` or build/tests/bench/llmmem-bench. */
#define _GNU_SOURCE /* RTLD_DEEPBIND */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "../hostile.h"
#include "llmmem/llmmem.h"

/* The public functions the figures call, through a table per library: this build's, linked, and
 * the baseline's, looked up by name (a baseline without one skips the figures that need it). */
#define BENCH_API(X)                                                                                          \
    X(version_string) X(status_str) X(last_message) X(string_free) X(model_from_preset)                        \
    X(model_from_hf_config_text) X(model_set_int) X(model_free) X(checkpoint_from_safetensors_bytes)           \
    X(checkpoint_free) X(hardware_from_preset) X(hardware_set_int) X(hardware_free) X(strategy_new)           \
    X(strategy_set_text) X(strategy_free) X(report_new) X(report_free) X(estimate) X(report_to_json)          \
    X(report_reserved_bytes) X(report_runs) X(estimate_runs) X(timeline_new) X(timeline_free)                 \
    X(estimate_timeline) X(timeline_to_json) X(serving_new) X(serving_free) X(serving_estimate) X(local_new)  \
    X(local_free) X(local_estimate) X(local_solve) X(plan_new) X(plan_free) X(plan_run) X(plan_candidates)    \
    X(plan_count) X(plan_set_limit) X(plan_fitting) X(plan_set_work_limit) X(plan_work) X(solve_min_devices)

typedef struct api {
#define FIELD(name) __typeof__(llmmem_##name) *name;
    BENCH_API(FIELD)
#undef FIELD
} api;

/* One library under test: its functions, the models and device most figures use, and what the
 * last round has to say beside its figure (an answer, a count, or why it failed). */
typedef struct lib {
    api a;
    llmmem_model *dense, *moe, *big;
    llmmem_hardware *hw;
    char note[256];
} lib;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void machine(const char *baseline, const lib *base)
{
    struct utsname u;
    char model[256] = "unknown", line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                snprintf(model, sizeof model, "%s", colon + 2);
                model[strcspn(model, "\n")] = '\0';
            }
            break;
        }
    if (f)
        fclose(f);
    uname(&u);
    printf("machine: %s %s, %s, %ld cores online; libllmmem %s\n", u.sysname, u.machine, model,
           sysconf(_SC_NPROCESSORS_ONLN), llmmem_version_string());
    if (baseline)
        printf("baseline: %s (libllmmem %s), rounds alternated with this build\n", baseline,
               base->a.version_string ? base->a.version_string() : "?");
}

/* 1 when st failed, its message kept as the round's note. */
static int failed(lib *L, llmmem_status st, const char *what)
{
    if (st == LLMMEM_OK)
        return 0;
    snprintf(L->note, sizeof L->note, "%s: %s: %s", what, L->a.status_str ? L->a.status_str(st) : "?",
             L->a.last_message ? L->a.last_message() : "");
    return 1;
}

/* A figure is not measured for a library that lacks a function it calls (an older baseline). */
#define NEED(L, fn)                                                                                           \
    do {                                                                                                      \
        if (!(L)->a.fn) {                                                                                     \
            snprintf((L)->note, sizeof (L)->note, "no llmmem_" #fn);                                         \
            return -1;                                                                                        \
        }                                                                                                     \
    } while (0)

/* A strategy with each "key", "value" pair of the NULL-terminated `sets` applied; NULL on failure. */
static llmmem_strategy *strategy_of(lib *L, const char *const *sets)
{
    llmmem_strategy *s = NULL;
    if (failed(L, L->a.strategy_new(&s), "strategy"))
        return NULL;
    for (; *sets; sets += 2)
        if (failed(L, L->a.strategy_set_text(s, sets[0], sets[1]), sets[0])) {
            L->a.strategy_free(s);
            return NULL;
        }
    return s;
}

/* ---- figures: each measures one round for one library (negative: not measured, see the note) -- */

/* Nanoseconds per llmmem_estimate over n calls, after one that fills the report's caches. */
static double estimate_ns(lib *L, const llmmem_model *m, const char *const *sets, int n)
{
    llmmem_strategy *s = strategy_of(L, sets);
    llmmem_report *r = NULL;
    double ns = -1;
    if (s && !failed(L, L->a.report_new(&r), "report") && !failed(L, L->a.estimate(r, m, L->hw, s), "estimate")) {
        double t0 = now();
        for (int i = 0; i < n; i++)
            L->a.estimate(r, m, L->hw, s);
        ns = (now() - t0) / n * 1e9;
    }
    L->a.report_free(r);
    L->a.strategy_free(s);
    return ns;
}

static double dense_estimate(lib *L)
{
    static const char *const sets[] = {"mode", "training", "recompute", "selective", NULL};
    return estimate_ns(L, L->dense, sets, 2000);
}

/* inference as transformers' generate loop (generate.c): every prefill and decode moment */
static double generate_estimate(lib *L)
{
    static const char *const sets[] = {"mode", "inference", "recompute", "selective", "framework", "hf_trainer",
                                       "max_new_tokens", "256", NULL};
    return estimate_ns(L, L->dense, sets, 2000);
}

static double moe_estimate(lib *L)
{
    static const char *const sets[] = {
        "mode", "training", "recompute", "selective", "tensor_parallel", "8", "pipeline_parallel", "4",
        "pipeline_first_stage_layers", "16", "data_parallel", "8", "context_parallel", "2", "sequence_parallel", "true",
        "expert_parallel", "16", "distributed_optimizer", "true", NULL};
    return estimate_ns(L, L->moe, sets, 500);
}

static double serving_estimate(lib *L)
{
    static const char *const sets[] = {"tensor_parallel", "4", NULL};
    NEED(L, serving_estimate);
    llmmem_strategy *s = strategy_of(L, sets);
    llmmem_serving *sv = NULL;
    double ns = -1;
    if (s && !failed(L, L->a.serving_new(&sv), "serving") &&
        !failed(L, L->a.serving_estimate(sv, L->dense, L->hw, s), "serving")) {
        double t0 = now();
        for (int i = 0; i < 2000; i++)
            L->a.serving_estimate(sv, L->dense, L->hw, s);
        ns = (now() - t0) / 2000 * 1e9;
    }
    L->a.serving_free(sv);
    L->a.strategy_free(s);
    return ns;
}

/* local inference (llamacpp.c): llama-3.1-70b split over two 24 GiB cards, 40 layers offloaded */
static const char *const local_sets[] = {"engine", "llama.cpp", "n_ctx", "32768", "n_gpu_layers", "40",
                                         "weight_format", "q4_k", NULL};

static llmmem_hardware *two_cards(lib *L)
{
    llmmem_hardware *desk = NULL;
    if (failed(L, L->a.hardware_from_preset(&desk, "rtx-4090"), "gpu") ||
        failed(L, L->a.hardware_set_int(desk, LLMMEM_KEY_DEVICES_PER_NODE, 2), "gpus")) {
        L->a.hardware_free(desk);
        return NULL;
    }
    return desk;
}

static double local_estimate(lib *L)
{
    NEED(L, local_estimate);
    llmmem_strategy *s = strategy_of(L, local_sets);
    llmmem_hardware *desk = s ? two_cards(L) : NULL;
    llmmem_local *local = NULL;
    double ns = -1;
    if (desk && !failed(L, L->a.local_new(&local), "local") &&
        !failed(L, L->a.local_estimate(local, L->dense, NULL, desk, s), "local")) {
        double t0 = now();
        for (int i = 0; i < 1000; i++)
            L->a.local_estimate(local, L->dense, NULL, desk, s);
        ns = (now() - t0) / 1000 * 1e9;
    }
    L->a.local_free(local);
    L->a.hardware_free(desk);
    L->a.strategy_free(s);
    return ns;
}

static double local_solve(lib *L)
{
    NEED(L, local_solve);
    llmmem_strategy *s = strategy_of(L, local_sets);
    llmmem_hardware *desk = s ? two_cards(L) : NULL;
    int64_t most = 0;
    double us = -1;
    if (desk) {
        double t0 = now();
        if (!failed(L, L->a.local_solve(&most, LLMMEM_LOCAL_MAX_GPU_LAYERS, L->dense, NULL, desk, s), "solve")) {
            us = (now() - t0) * 1e6;
            snprintf(L->note, sizeof L->note, "answer %" PRId64, most);
        }
    }
    L->a.hardware_free(desk);
    L->a.strategy_free(s);
    return us;
}

/* Candidates per second of one plan of `m` on 1024 devices. */
static double plan_rate(lib *L, const llmmem_model *m)
{
    static const char *const sets[] = {"mode", "training", "sequence_length", "8192", "global_batch_size", "1024", NULL};
    NEED(L, plan_run);
    llmmem_strategy *base = strategy_of(L, sets);
    llmmem_plan *plan = NULL;
    double rate = -1;
    if (base && !failed(L, L->a.plan_new(&plan), "plan")) {
        double t0 = now();
        if (!failed(L, L->a.plan_run(plan, m, L->hw, base, 1024), "plan")) {
            rate = (double)L->a.plan_candidates(plan) / (now() - t0);
            snprintf(L->note, sizeof L->note, "%" PRIu64 " candidates, %zu fit", L->a.plan_candidates(plan),
                     L->a.plan_count(plan));
        }
    }
    L->a.plan_free(plan);
    L->a.strategy_free(base);
    return rate;
}

static double plan_dense(lib *L)
{
    return plan_rate(L, L->big);
}

/* a MoE space: expert parallelism multiplies the layouts */
static double plan_moe(lib *L)
{
    return plan_rate(L, L->moe);
}

/* the same space keeping its 10 cheapest layouts (a heap) instead of every one */
static double plan_top(lib *L)
{
    static const char *const sets[] = {"mode", "training", "sequence_length", "8192", "global_batch_size", "1024", NULL};
    NEED(L, plan_set_limit);
    NEED(L, plan_fitting);
    llmmem_strategy *base = strategy_of(L, sets);
    llmmem_plan *plan = NULL;
    double wall = -1;
    if (base && !failed(L, L->a.plan_new(&plan), "plan") && !failed(L, L->a.plan_set_limit(plan, 10), "limit")) {
        double t0 = now();
        if (!failed(L, L->a.plan_run(plan, L->moe, L->hw, base, 1024), "plan")) {
            wall = now() - t0;
            snprintf(L->note, sizeof L->note, "%" PRIu64 " fit", L->a.plan_fitting(plan));
        }
    }
    L->a.plan_free(plan);
    L->a.strategy_free(base);
    return wall;
}

/* the fewest devices: a job that fits (on 16), and one that never fits, searched up to 4096 and to
 * 32768 devices (the search used to run the planner on every count up to the ceiling) */
static double fewest(lib *L, const llmmem_model *m, const char *gpu, const char *seq, uint64_t most)
{
    const char *const sets[] = {"mode", "training", "sequence_length", seq, NULL};
    NEED(L, solve_min_devices);
    llmmem_strategy *job = strategy_of(L, sets);
    llmmem_hardware *hw = NULL;
    uint64_t answer = 0;
    double wall = -1;
    if (job && !failed(L, L->a.hardware_from_preset(&hw, gpu), "gpu")) {
        double t0 = now();
        if (!failed(L, L->a.solve_min_devices(&answer, m, hw, job, most), "fewest")) {
            wall = now() - t0;
            snprintf(L->note, sizeof L->note, "answer %" PRIu64, answer);
        }
    }
    L->a.hardware_free(hw);
    L->a.strategy_free(job);
    return wall;
}

static double fewest_fits(lib *L)
{
    return fewest(L, L->dense, "h100-sxm-80gb", "4096", 1024);
}

static double fewest_never_4096(lib *L)
{
    return fewest(L, L->big, "rtx-4090", "131072", 4096);
}

static double fewest_never_32768(lib *L)
{
    return fewest(L, L->big, "rtx-4090", "131072", 32768);
}

/* An h100-sxm-80gb of 2 TiB. The replay runs under the lowest of cuda_total_bytes, driver_total_bytes
 * and memory_bytes (llmmem_report_device_total_bytes), so all three are raised; a library older than
 * the first two keys refuses them and replays under memory_bytes. */
static llmmem_hardware *huge_device(lib *L)
{
    llmmem_hardware *big = NULL;
    if (failed(L, L->a.hardware_from_preset(&big, "h100-sxm-80gb"), "gpu") ||
        failed(L, L->a.hardware_set_int(big, LLMMEM_KEY_MEMORY_BYTES, 2048LL << 30), "memory_bytes")) {
        L->a.hardware_free(big);
        return NULL;
    }
    L->a.hardware_set_int(big, LLMMEM_KEY_DRIVER_TOTAL_BYTES, 2048LL << 30);
    L->a.hardware_set_int(big, LLMMEM_KEY_CUDA_TOTAL_BYTES, 2048LL << 30);
    return big;
}

/* llmmem_estimate_runs: the job's allocation tape replayed through the caching allocator model (the
 * README's "milliseconds" for a 70B training step: on a device large enough to hold it all) */
static double replay_ms(lib *L, const char *const *sets)
{
    NEED(L, estimate_runs);
    llmmem_strategy *s = strategy_of(L, sets);
    llmmem_hardware *big = s ? huge_device(L) : NULL;
    llmmem_report *r = NULL;
    double ms = -1;
    if (big && !failed(L, L->a.report_new(&r), "report")) {
        double t0 = now();
        if (!failed(L, L->a.estimate_runs(r, L->dense, big, s), "estimate_runs")) {
            ms = (now() - t0) * 1e3;
            snprintf(L->note, sizeof L->note, "reserved %" PRIu64 " bytes, runs %d", L->a.report_reserved_bytes(r),
                     L->a.report_runs(r));
        }
    }
    L->a.report_free(r);
    L->a.hardware_free(big);
    L->a.strategy_free(s);
    return ms;
}

static double replay_training(lib *L)
{
    static const char *const sets[] = {"framework", "hf_trainer", "mode", "training", "precision_recipe", "pure_bf16",
                                       "recompute", "full", "sequence_length", "4096", NULL};
    return replay_ms(L, sets);
}

static double replay_generate(lib *L)
{
    static const char *const sets[] = {"framework", "hf_trainer", "precision_recipe", "pure_bf16", "mode", "inference",
                                       "recompute", "none", "micro_batch_size", "8", "max_new_tokens", "4096",
                                       "sequence_length", "4096", NULL};
    return replay_ms(L, sets);
}

/* the JSON renderings (text.c): what `llmmem estimate --json` and the web page print per call */
static double json_renderings(lib *L)
{
    static const char *const sets[] = {"mode", "training", "recompute", "selective", NULL};
    NEED(L, timeline_to_json);
    llmmem_strategy *s = strategy_of(L, sets);
    llmmem_report *r = NULL;
    llmmem_timeline *tl = NULL;
    double us = -1;
    if (s && !failed(L, L->a.report_new(&r), "report") && !failed(L, L->a.estimate(r, L->dense, L->hw, s), "json") &&
        !failed(L, L->a.timeline_new(&tl), "timeline") &&
        !failed(L, L->a.estimate_timeline(tl, L->dense, L->hw, s), "timeline")) {
        size_t bytes = 0;
        double t0 = now();
        for (int i = 0; i < 10; i++) {
            char *a = NULL, *b = NULL;
            if (failed(L, L->a.report_to_json(&a, r), "report json") ||
                failed(L, L->a.timeline_to_json(&b, tl), "timeline json")) {
                L->a.string_free(a);
                t0 = -1;
                break;
            }
            bytes = strlen(a) + strlen(b);
            L->a.string_free(a);
            L->a.string_free(b);
        }
        if (t0 >= 0) {
            us = (now() - t0) / 10 * 1e6;
            snprintf(L->note, sizeof L->note, "%zu bytes", bytes);
        }
    }
    L->a.timeline_free(tl);
    L->a.report_free(r);
    L->a.strategy_free(s);
    return us;
}

/* A config.json as transformers writes it (deepseek-v3's fields, per-layer lists of 61). */
static char *config_text(size_t *len_out)
{
    size_t cap = 16384, n = 0;
    char *t = malloc(cap);
    if (!t)
        return NULL;
    n += (size_t)snprintf(t + n, cap - n,
                          "{\n  \"architectures\": [\"DeepseekV3ForCausalLM\"],\n  \"model_type\": \"deepseek_v3\",\n"
                          "  \"hidden_size\": 7168,\n  \"intermediate_size\": 18432,\n  \"moe_intermediate_size\": 2048,\n"
                          "  \"num_hidden_layers\": 61,\n  \"num_attention_heads\": 128,\n  \"num_key_value_heads\": 128,\n"
                          "  \"n_routed_experts\": 256,\n  \"n_shared_experts\": 1,\n  \"num_experts_per_tok\": 8,\n"
                          "  \"first_k_dense_replace\": 3,\n  \"moe_layer_freq\": 1,\n  \"q_lora_rank\": 1536,\n"
                          "  \"kv_lora_rank\": 512,\n  \"qk_nope_head_dim\": 128,\n  \"qk_rope_head_dim\": 64,\n"
                          "  \"v_head_dim\": 128,\n  \"vocab_size\": 129280,\n  \"max_position_embeddings\": 163840,\n"
                          "  \"rms_norm_eps\": 1e-06,\n  \"rope_theta\": 10000,\n  \"routed_scaling_factor\": 2.5,\n"
                          "  \"rope_scaling\": {\"beta_fast\": 32, \"beta_slow\": 1, \"factor\": 40, \"mscale\": 1.0,"
                          " \"mscale_all_dim\": 1.0, \"original_max_position_embeddings\": 4096, \"type\": \"yarn\"},\n"
                          "  \"tie_word_embeddings\": false,\n  \"torch_dtype\": \"bfloat16\",\n"
                          "  \"transformers_version\": \"4.33.1\",\n  \"use_cache\": true,\n  \"attention_bias\": false,\n"
                          "  \"unused_per_layer\": [");
    for (int i = 0; i < 61; i++)
        n += (size_t)snprintf(t + n, cap - n, "%s%.3f", i ? ", " : "", 0.5 + i * 0.125);
    n += (size_t)snprintf(t + n, cap - n, "]\n}\n");
    *len_out = n;
    return t;
}

/* A safetensors header of `tensors` entries; `escaped` spells each name's "weight" and dtype with
 * a \u escape, so that every key and entry goes through the JSON reader rather than the plain
 * form's fast path. */
static char *safetensors_bytes(size_t tensors, int escaped, size_t *size_out)
{
    size_t cap = 8 + tensors * 160 + 64, n = 8;
    char *t = malloc(cap);
    if (!t)
        return NULL;
    t[n++] = '{';
    for (size_t i = 0; i < tensors; i++)
        n += (size_t)snprintf(t + n, cap - n,
                              "%s\"model.layers.%zu.mlp.%s\":{\"dtype\":\"%s\",\"shape\":[16,16],\"data_offsets\":[%zu,%zu]}",
                              i ? "," : "", i, escaped ? "w\\u0065ight" : "weight", escaped ? "BF\\u00316" : "BF16",
                              i * 512, (i + 1) * 512);
    t[n++] = '}';
    uint64_t header = n - 8;
    for (int b = 0; b < 8; b++)
        t[b] = (char)(header >> (8 * b));
    *size_out = n;
    return t;
}

static char *config_json;
static size_t config_len;
static char *safetensors[2];
static size_t safetensors_size[2];

static double config_read(lib *L)
{
    double t0 = now();
    for (int i = 0; i < 20; i++) {
        llmmem_model *m = NULL;
        if (failed(L, L->a.model_from_hf_config_text(&m, config_json, config_len), "config"))
            return -1;
        L->a.model_free(m);
    }
    snprintf(L->note, sizeof L->note, "%zu bytes", config_len);
    return (now() - t0) / 20 * 1e6;
}

static double safetensors_read(lib *L, int escaped)
{
    llmmem_checkpoint *ck = NULL;
    double t0 = now();
    if (failed(L, L->a.checkpoint_from_safetensors_bytes(&ck, safetensors[escaped], safetensors_size[escaped]),
               "safetensors"))
        return -1;
    double wall = now() - t0;
    L->a.checkpoint_free(ck);
    snprintf(L->note, sizeof L->note, "%zu bytes", safetensors_size[escaped]);
    return wall * 1e3;
}

static double safetensors_plain(lib *L)
{
    return safetensors_read(L, 0);
}

static double safetensors_escaped(lib *L)
{
    return safetensors_read(L, 1);
}

/* the time of a unit of work where it costs most: estimates of up to 256 stages with frozen layers
 * (every stage priced on its own) of a model mixing dense and MoE layers, over a wide space; the
 * work limit times this bounds a run */
static double work_unit(lib *L)
{
    static const char *const sets[] = {"mode", "training", "frozen_layers", "1", "plan_max_pipeline_parallel", "256",
                                       "plan_max_tensor_parallel", "64", "plan_max_context_parallel", "64",
                                       "plan_max_virtual_pipeline", "64", NULL};
    NEED(L, plan_work);
    NEED(L, plan_set_work_limit);
    llmmem_model *deep = NULL;
    llmmem_strategy *wide = strategy_of(L, sets);
    llmmem_plan *slow = NULL;
    double us = -1;
    if (wide && !failed(L, L->a.model_from_preset(&deep, "deepseek-v3"), "model") &&
        !failed(L, L->a.model_set_int(deep, LLMMEM_KEY_NUM_HIDDEN_LAYERS, 720), "layers") &&
        !failed(L, L->a.model_set_int(deep, LLMMEM_KEY_MOE_LAYER_FREQ, 2), "moe_layer_freq") &&
        !failed(L, L->a.plan_new(&slow), "plan") &&
        !failed(L, L->a.plan_set_work_limit(slow, (uint64_t)1 << 26), "work limit")) {
        double t0 = now();
        if (!failed(L, L->a.plan_run(slow, deep, L->hw, wide, 5040), "plan")) {
            double wall = now() - t0;
            us = wall / (double)L->a.plan_work(slow) * 1e6;
            snprintf(L->note, sizeof L->note, "%" PRIu64 " units of work in %.3f s; %.2f s for the default limit of %d",
                     L->a.plan_work(slow), wall, us * 1e-6 * LLMMEM_PLAN_DEFAULT_WORK_LIMIT,
                     LLMMEM_PLAN_DEFAULT_WORK_LIMIT);
        }
    }
    L->a.plan_free(slow);
    L->a.strategy_free(wide);
    L->a.model_free(deep);
    return us;
}

/* Each hostile input (tests/hostile.h) written to a file and read: the best of 3 reads, and its
 * time per 100 MB. */
static void bench_hostile(void)
{
    char dir[] = "/tmp/llmmem-bench-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return;
    }
    for (size_t i = 0; i < sizeof hostile_inputs / sizeof hostile_inputs[0]; i++) {
        const hostile_input *in = &hostile_inputs[i];
        char path[sizeof dir + 64];
        snprintf(path, sizeof path, "%s/%s", dir, in->name);
        struct stat sb;
        if (hostile_write(in, path, in->size) < 0 || stat(path, &sb) != 0) {
            fprintf(stderr, "%s: cannot write it\n", path);
            break;
        }
        llmmem_status st = LLMMEM_OK;
        double best = 1e30;
        for (int round = 0; round < 3; round++) {
            llmmem_checkpoint *ck = NULL;
            llmmem_model *m = NULL;
            double t0 = now();
            st = hostile_read(in->reader, path, &ck, &m);
            double t = now() - t0;
            llmmem_checkpoint_free(ck);
            llmmem_model_free(m);
            best = t < best ? t : best;
        }
        printf("hostile %s (%lld bytes, %s): %.3f s, %.2f s per 100 MB\n", in->name, (long long)sb.st_size,
               llmmem_status_str(st), best, best / (double)sb.st_size * 1e8);
        remove(path);
    }
    rmdir(dir);
}

/* ---- the driver ---------------------------------------------------------------------------- */

typedef struct figure {
    const char *section, *label, *unit;
    int rounds, digits;
    double (*round)(lib *);
} figure;

static const figure figures[] = {
    {"readers", "config.json read (deepseek-v3)", "us", 200, 1, config_read},
    {"readers", "safetensors header, 100000 tensors, plain form", "ms", 5, 1, safetensors_plain},
    {"readers", "safetensors header, 100000 tensors, escaped names and dtypes (JSON reader)", "ms", 5, 1,
     safetensors_escaped},
    {"estimates", "estimate, dense training (llama-3.1-70b, one device)", "ns", 250, 0, dense_estimate},
    {"estimates", "estimate, inference as generate (llama-3.1-70b, hf_trainer, 256 new tokens)", "ns", 250, 0,
     generate_estimate},
    {"estimates", "estimate, MoE with t 8, p 4, d 8, c 2, e 16 (deepseek-v3)", "ns", 250, 0, moe_estimate},
    {"estimates", "serving estimate (llama-3.1-70b, t 4)", "ns", 250, 0, serving_estimate},
    {"estimates", "local estimate (llama-3.1-70b, llama.cpp, 2 GPUs, 40 layers offloaded)", "ns", 250, 0,
     local_estimate},
    {"estimates", "local solve, most n_gpu_layers (the same job)", "us", 200, 1, local_solve},
    {"estimates", "planner, llama-3.1-405b on 1024 h100-sxm-80gb, default space", "candidates/s", 200, 0, plan_dense},
    {"estimates", "planner, deepseek-v3 on 1024 h100-sxm-80gb, default space", "candidates/s", 50, 0, plan_moe},
    {"estimates", "plan deepseek-v3 on 1024 h100-sxm-80gb, the cheapest 10 kept", "s", 50, 3, plan_top},
    {"estimates", "fewest devices, llama-3.1-70b training, fits on 16, up to 1024", "s", 200, 4, fewest_fits},
    {"estimates", "fewest devices, llama-3.1-405b training, 131072 tokens, never fits, up to 4096", "s", 200, 4,
     fewest_never_4096},
    {"estimates", "fewest devices, llama-3.1-405b training, 131072 tokens, never fits, up to 32768", "s", 200, 4,
     fewest_never_32768},
    {"runs", "replay, training step x 2, bf16 AdamW, recompute full, 1 x 4096 (llama-3.1-70b, a 2 TiB device)", "ms",
     25, 1, replay_training},
    {"runs", "replay, generate 8 x 4096 prompts, 4096 new tokens (llama-3.1-70b, a 2 TiB device)", "ms", 5, 1,
     replay_generate},
    {"json", "report and timeline as JSON (llama-3.1-70b training)", "us", 200, 1, json_renderings},
    {"work", "plan deepseek-v3 with 720 layers, frozen_layers 1, on 5040 h100-sxm-80gb, wide space: a unit of work",
     "us", 1, 3, work_unit},
};

/* The best of f->rounds rounds for each library, the libraries alternated within a round; one line:
 * "LABEL: X UNIT (NOTE) (baseline Y UNIT, R x; NOTE)". Returns 1 when this build's round failed. */
static int measure(const figure *f, lib *libs, int n)
{
    double best[2] = {-1, -1};
    char notes[2][sizeof libs[0].note] = {"", ""};
    int rate = strchr(f->unit, '/') != NULL; /* per second: more is better */
    for (int round = 0; round < f->rounds; round++)
        for (int j = 0; j < n; j++) {
            int k = round % 2 ? n - 1 - j : j; /* A B, B A, ...: neither always runs first */
            if (round > 0 && best[k] < 0)
                continue; /* failed or not available: said once */
            libs[k].note[0] = '\0';
            double v = f->round(&libs[k]);
            if (v >= 0 && (best[k] < 0 || (rate ? v > best[k] : v < best[k])))
                best[k] = v;
            if (v < 0)
                best[k] = -1;
            memcpy(notes[k], libs[k].note, sizeof notes[k]);
        }
    if (best[0] < 0) {
        printf("%s: failed: %s\n", f->label, notes[0]);
        return 1;
    }
    printf("%s: %.*f %s", f->label, f->digits, best[0], f->unit);
    if (notes[0][0])
        printf(" (%s)", notes[0]);
    if (n == 2 && best[1] < 0)
        printf(" (baseline: %s)", notes[1]);
    else if (n == 2)
        printf(" (baseline %.*f %s, %.2fx%s%s)", f->digits, best[1], f->unit, best[0] / best[1],
               strcmp(notes[0], notes[1]) ? "; baseline: " : "", strcmp(notes[0], notes[1]) ? notes[1] : "");
    printf("\n");
    fflush(stdout);
    return 0;
}

/* The baseline's functions, from the library at `path` loaded with its own symbols first. */
static int load_baseline(lib *L, const char *path)
{
#ifdef RTLD_DEEPBIND
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
#else
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
#endif
    if (!h) {
        fprintf(stderr, "LLMMEM_BENCH_BASELINE: %s\n", dlerror());
        return 1;
    }
#define LOAD(name)                                                                                            \
    {                                                                                                         \
        void *p = dlsym(h, "llmmem_" #name);                                                                  \
        memcpy(&L->a.name, &p, sizeof p); /* ISO C has no cast from an object to a function pointer */       \
    }
    BENCH_API(LOAD)
#undef LOAD
    static const char *const basics[] = {"llmmem_status_str", "llmmem_last_message", "llmmem_model_from_preset",
                                         "llmmem_model_free", "llmmem_hardware_from_preset", "llmmem_hardware_free",
                                         "llmmem_strategy_new", "llmmem_strategy_set_text", "llmmem_strategy_free",
                                         "llmmem_report_new", "llmmem_report_free", "llmmem_estimate"};
    for (size_t i = 0; i < sizeof basics / sizeof basics[0]; i++)
        if (!dlsym(h, basics[i])) {
            fprintf(stderr, "LLMMEM_BENCH_BASELINE: %s has no %s\n", path, basics[i]);
            return 1;
        }
    return 0;
}

static int inputs(lib *L)
{
    return failed(L, L->a.model_from_preset(&L->dense, "llama-3.1-70b"), "model") ||
           failed(L, L->a.model_from_preset(&L->moe, "deepseek-v3"), "model") ||
           failed(L, L->a.model_from_preset(&L->big, "llama-3.1-405b"), "model") ||
           failed(L, L->a.hardware_from_preset(&L->hw, "h100-sxm-80gb"), "gpu");
}

int main(int argc, char **argv)
{
    static const char *const sections[] = {"readers", "hostile", "estimates", "runs", "json", "work"};
    const char *only = NULL;
    if (argc == 3 && strcmp(argv[1], "--only") == 0)
        only = argv[2];
    int known = only == NULL;
    for (size_t i = 0; only && i < sizeof sections / sizeof sections[0]; i++)
        known |= strcmp(only, sections[i]) == 0;
    if (!known || (argc != 1 && argc != 3)) {
        fprintf(stderr, "usage: %s [--only readers|hostile|estimates|runs|json|work]\n", argv[0]);
        return 2;
    }

    lib libs[2] = {{.a = {
#define CURRENT(name) .name = llmmem_##name,
                        BENCH_API(CURRENT)
#undef CURRENT
                    }}};
    const char *baseline = getenv("LLMMEM_BENCH_BASELINE");
    int n = baseline && baseline[0] ? 2 : 1;
    if (n == 2 && load_baseline(&libs[1], baseline))
        return 1;
    for (int k = 0; k < n; k++)
        if (inputs(&libs[k])) {
            fprintf(stderr, "%s: %s\n", k ? "baseline" : "this build", libs[k].note);
            return 1;
        }
    machine(n == 2 ? baseline : NULL, &libs[1]);

    if (!only || strcmp(only, "readers") == 0) {
        config_json = config_text(&config_len);
        for (int escaped = 0; escaped < 2; escaped++)
            safetensors[escaped] = safetensors_bytes(100000, escaped, &safetensors_size[escaped]);
        if (!config_json || !safetensors[0] || !safetensors[1]) {
            fprintf(stderr, "out of memory\n");
            return 1;
        }
    }
    int bad = 0;
    for (size_t s = 0; s < sizeof sections / sizeof sections[0]; s++) {
        if (only && strcmp(only, sections[s]) != 0)
            continue;
        printf("\n");
        if (strcmp(sections[s], "hostile") == 0)
            bench_hostile(); /* this build's readers alone: tests/hostile.h calls it directly */
        for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++)
            if (strcmp(figures[i].section, sections[s]) == 0)
                bad |= measure(&figures[i], libs, n);
    }

    free(config_json);
    free(safetensors[0]);
    free(safetensors[1]);
    for (int k = 0; k < n; k++) {
        libs[k].a.hardware_free(libs[k].hw);
        libs[k].a.model_free(libs[k].big);
        libs[k].a.model_free(libs[k].moe);
        libs[k].a.model_free(libs[k].dense);
    }
    return bad;
}
