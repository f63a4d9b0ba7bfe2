/* Benchmarks: nanoseconds per estimate (dense training, MoE with every parallel dimension,
 * serving), planner candidates per second, the wall time of a 405B plan on 1024 GPUs, the
 * fewest-devices search on a job that fits and on one that never does, the JSON readers (a
 * config.json, safetensors headers of 100,000 tensors in the plain form and in one that goes
 * through the JSON reader), and the file readers on the hostile inputs of tests/test_bounds.c,
 * whose work and memory that test asserts. Prints
 * the machine and the figures; the best of several rounds is kept (shared machines are noisy).
 * Run with `meson test -C build --benchmark --verbose` or build/tests/bench/llmmem-bench. */
#define _POSIX_C_SOURCE 200809L
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

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void machine(void)
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
}

static int check(llmmem_status st, const char *what)
{
    if (st != LLMMEM_OK)
        fprintf(stderr, "%s: %s: %s\n", what, llmmem_status_str(st), llmmem_last_message());
    return st != LLMMEM_OK;
}

/* Best nanoseconds per call over 5 rounds of n calls. */
static double per_estimate(llmmem_report *r, const llmmem_model *m, const llmmem_hardware *hw,
                           const llmmem_strategy *s, int n)
{
    double best = 1e30;
    for (int round = 0; round < 5; round++) {
        double t0 = now();
        for (int i = 0; i < n; i++)
            llmmem_estimate(r, m, hw, s);
        double ns = (now() - t0) / n * 1e9;
        if (ns < best)
            best = ns;
    }
    return best;
}

static int set(llmmem_strategy *s, const char *key, const char *value)
{
    return check(llmmem_strategy_set_text(s, key, value), key);
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

static void bench_json(void)
{
    size_t len;
    char *config = config_text(&len);
    if (!config)
        return;
    double best = 1e30;
    for (int round = 0; round < 5; round++) {
        double t0 = now();
        for (int i = 0; i < 2000; i++) {
            llmmem_model *m = NULL;
            if (check(llmmem_model_from_hf_config_text(&m, config, len), "config"))
                return;
            llmmem_model_free(m);
        }
        double per = (now() - t0) / 2000 * 1e6;
        best = per < best ? per : best;
    }
    printf("config.json read (deepseek-v3, %zu bytes): %.1f us\n", len, best);
    free(config);
    for (int escaped = 0; escaped < 2; escaped++) {
        size_t size;
        char *st = safetensors_bytes(100000, escaped, &size);
        if (!st)
            return;
        best = 1e30;
        for (int round = 0; round < 5; round++) {
            double t0 = now();
            llmmem_checkpoint *ck = NULL;
            if (check(llmmem_checkpoint_from_safetensors_bytes(&ck, st, size), "safetensors"))
                return;
            llmmem_checkpoint_free(ck);
            double wall = now() - t0;
            best = wall < best ? wall : best;
        }
        printf("safetensors header, 100000 tensors, %s (%zu bytes): %.1f ms\n",
               escaped ? "escaped names and dtypes (JSON reader)" : "plain form", size, best * 1e3);
        free(st);
    }
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

/* llmmem_estimate_runs: the job's allocation tape replayed through the caching allocator model (the
 * README's "milliseconds" for a 70B training step: on a device large enough to hold it all) */
static int bench_runs(const llmmem_model *m)
{
    llmmem_hardware *big;
    llmmem_strategy *s;
    llmmem_report *r;
    if (check(llmmem_hardware_from_preset(&big, "h100-sxm-80gb"), "gpu") ||
        check(llmmem_hardware_set_int(big, LLMMEM_KEY_MEMORY_BYTES, 2048LL << 30), "memory_bytes") ||
        check(llmmem_strategy_new(&s), "strategy") || check(llmmem_report_new(&r), "report"))
        return 1;
    static const struct {
        const char *what, *sets[6][2];
    } jobs[] = {
        {"training step x 2, bf16 AdamW, recompute full, 1 x 4096 (llama-3.1-70b, a 2 TiB device)",
         {{"framework", "hf_trainer"}, {"mode", "training"}, {"precision_recipe", "pure_bf16"},
          {"recompute", "full"}, {"sequence_length", "4096"}, {"max_new_tokens", "0"}}},
        {"generate 8 x 4096 prompts, 4096 new tokens (llama-3.1-70b, a 2 TiB device)",
         {{"mode", "inference"}, {"micro_batch_size", "8"}, {"max_new_tokens", "4096"},
          {"recompute", "none"}, {"sequence_length", "4096"}, {"framework", "hf_trainer"}}},
    };
    for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
        for (size_t k = 0; k < 6; k++)
            if (set(s, jobs[i].sets[k][0], jobs[i].sets[k][1]))
                return 1;
        double best = 1e30;
        for (int round = 0; round < 5; round++) {
            double t0 = now();
            if (check(llmmem_estimate_runs(r, m, big, s), "estimate_runs"))
                return 1;
            double ms = (now() - t0) * 1e3;
            best = ms < best ? ms : best;
        }
        printf("replay, %s: %.1f ms, reserved %" PRIu64 " bytes, runs %d\n", jobs[i].what, best,
               llmmem_report_reserved_bytes(r), llmmem_report_runs(r));
    }
    llmmem_report_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(big);
    return 0;
}

int main(void)
{
    llmmem_model *dense, *moe, *big;
    llmmem_hardware *hw;
    llmmem_strategy *s;
    llmmem_report *r;
    llmmem_serving *serving;
    if (check(llmmem_model_from_preset(&dense, "llama-3.1-70b"), "model") ||
        check(llmmem_model_from_preset(&moe, "deepseek-v3"), "model") ||
        check(llmmem_model_from_preset(&big, "llama-3.1-405b"), "model") ||
        check(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"), "gpu") || check(llmmem_strategy_new(&s), "strategy") ||
        check(llmmem_report_new(&r), "report") || check(llmmem_serving_new(&serving), "serving"))
        return 1;
    machine();
    printf("\n");
    bench_json();
    bench_hostile();

    if (set(s, "mode", "training") || set(s, "recompute", "selective") || check(llmmem_estimate(r, dense, hw, s), "dense"))
        return 1;
    printf("\nestimate, dense training (llama-3.1-70b, one device): %.0f ns\n", per_estimate(r, dense, hw, s, 200000));

    /* inference as transformers' generate loop (generate.c): every prefill and decode moment */
    if (set(s, "mode", "inference") || set(s, "framework", "hf_trainer") || set(s, "max_new_tokens", "256") ||
        check(llmmem_estimate(r, dense, hw, s), "generate"))
        return 1;
    printf("estimate, inference as generate (llama-3.1-70b, hf_trainer, 256 new tokens): %.0f ns\n",
           per_estimate(r, dense, hw, s, 200000));
    if (set(s, "mode", "training") || set(s, "framework", "megatron") || set(s, "max_new_tokens", "0"))
        return 1;
    if (bench_runs(dense))
        return 1;

    /* the JSON renderings (text.c): what `llmmem estimate --json` and the web page print per call */
    {
        llmmem_timeline *tl = NULL;
        if (check(llmmem_estimate(r, dense, hw, s), "json") || check(llmmem_timeline_new(&tl), "timeline") ||
            check(llmmem_estimate_timeline(tl, dense, hw, s), "timeline"))
            return 1;
        double best_json = 1e30;
        size_t bytes = 0;
        for (int round = 0; round < 5; round++) {
            double t0 = now();
            for (int i = 0; i < 2000; i++) {
                char *a = NULL, *b = NULL;
                if (check(llmmem_report_to_json(&a, r), "report json") || check(llmmem_timeline_to_json(&b, tl), "timeline json"))
                    return 1;
                bytes = strlen(a) + strlen(b);
                llmmem_string_free(a);
                llmmem_string_free(b);
            }
            double us = (now() - t0) / 2000 * 1e6;
            best_json = us < best_json ? us : best_json;
        }
        printf("report and timeline as JSON (llama-3.1-70b training, %zu bytes): %.1f us\n", bytes, best_json);
        llmmem_timeline_free(tl);
    }

    if (set(s, "tensor_parallel", "8") || set(s, "pipeline_parallel", "4") || set(s, "pipeline_first_stage_layers", "16") ||
        set(s, "data_parallel", "8") || set(s, "context_parallel", "2") ||
        set(s, "sequence_parallel", "true") || set(s, "expert_parallel", "16") || set(s, "distributed_optimizer", "true") ||
        check(llmmem_estimate(r, moe, hw, s), "moe"))
        return 1;
    printf("estimate, MoE with t 8, p 4, d 8, c 2, e 16 (deepseek-v3): %.0f ns\n",
           per_estimate(r, moe, hw, s, 20000));

    llmmem_strategy *serve;
    if (check(llmmem_strategy_new(&serve), "strategy") || set(serve, "tensor_parallel", "4") ||
        check(llmmem_serving_estimate(serving, dense, hw, serve), "serving"))
        return 1;
    double best = 1e30;
    for (int round = 0; round < 5; round++) {
        double t0 = now();
        for (int i = 0; i < 200000; i++)
            llmmem_serving_estimate(serving, dense, hw, serve);
        double ns = (now() - t0) / 200000 * 1e9;
        best = ns < best ? ns : best;
    }
    printf("serving estimate (llama-3.1-70b, t 4): %.0f ns\n", best);

    /* local inference (llamacpp.c): llama-3.1-70b split over two 24 GiB cards, 40 layers offloaded */
    llmmem_strategy *local_s;
    llmmem_hardware *desk;
    llmmem_local *local;
    int64_t most = 0;
    if (check(llmmem_strategy_new(&local_s), "strategy") || set(local_s, "engine", "llama.cpp") ||
        set(local_s, "n_ctx", "32768") || set(local_s, "n_gpu_layers", "40") || set(local_s, "weight_format", "q4_k") ||
        check(llmmem_hardware_from_preset(&desk, "rtx-4090"), "gpu") ||
        check(llmmem_hardware_set_int(desk, LLMMEM_KEY_DEVICES_PER_NODE, 2), "gpus") ||
        check(llmmem_local_new(&local), "local") || check(llmmem_local_estimate(local, dense, NULL, desk, local_s), "local"))
        return 1;
    best = 1e30;
    for (int round = 0; round < 5; round++) {
        double t0 = now();
        for (int i = 0; i < 100000; i++)
            llmmem_local_estimate(local, dense, NULL, desk, local_s);
        double ns = (now() - t0) / 100000 * 1e9;
        best = ns < best ? ns : best;
    }
    printf("local estimate (llama-3.1-70b, llama.cpp, 2 GPUs, 40 layers offloaded): %.0f ns\n", best);
    double solve_t0 = now();
    if (check(llmmem_local_solve(&most, LLMMEM_LOCAL_MAX_GPU_LAYERS, dense, NULL, desk, local_s), "solve"))
        return 1;
    printf("local solve, most n_gpu_layers (answer %" PRId64 "): %.1f us\n", most, (now() - solve_t0) * 1e6);
    llmmem_local_free(local);
    llmmem_hardware_free(desk);
    llmmem_strategy_free(local_s);

    llmmem_strategy *base;
    llmmem_plan *plan;
    if (check(llmmem_strategy_new(&base), "strategy") || set(base, "mode", "training") ||
        set(base, "sequence_length", "8192") || set(base, "global_batch_size", "1024") ||
        check(llmmem_plan_new(&plan), "plan"))
        return 1;
    double wall = 1e30;
    for (int round = 0; round < 20; round++) { /* a plan takes about a millisecond: best of 20 */
        double t0 = now();
        if (check(llmmem_plan_run(plan, big, hw, base, 1024), "plan"))
            return 1;
        double t = now() - t0;
        wall = t < wall ? t : wall;
    }
    printf("plan llama-3.1-405b on 1024 h100-sxm-80gb, default space: %.3f s, %" PRIu64
           " candidates (%.0f per second), %zu fit\n",
           wall, llmmem_plan_candidates(plan), (double)llmmem_plan_candidates(plan) / wall, llmmem_plan_count(plan));

    /* a MoE space: expert parallelism multiplies the layouts */
    double moe_wall = 1e30;
    for (int round = 0; round < 5; round++) {
        double t0 = now();
        if (check(llmmem_plan_run(plan, moe, hw, base, 1024), "plan"))
            return 1;
        double t = now() - t0;
        moe_wall = t < moe_wall ? t : moe_wall;
    }
    printf("plan deepseek-v3 on 1024 h100-sxm-80gb, default space: %.3f s, %" PRIu64
           " candidates (%.0f per second), %zu fit\n",
           moe_wall, llmmem_plan_candidates(plan), (double)llmmem_plan_candidates(plan) / moe_wall,
           llmmem_plan_count(plan));

#ifdef LLMMEM_PLAN_DEFAULT_LIMIT
    /* the same space keeping its 10 cheapest layouts (a heap) instead of every one */
    double top_wall = 1e30;
    if (check(llmmem_plan_set_limit(plan, 10), "limit"))
        return 1;
    for (int round = 0; round < 5; round++) {
        double t0 = now();
        if (check(llmmem_plan_run(plan, moe, hw, base, 1024), "plan"))
            return 1;
        double t = now() - t0;
        top_wall = t < top_wall ? t : top_wall;
    }
    printf("plan deepseek-v3 on 1024 h100-sxm-80gb, the cheapest 10 kept: %.3f s, %" PRIu64 " fit\n", top_wall,
           llmmem_plan_fitting(plan));

    /* the time of a unit of work where it costs most: estimates of up to 256 stages with frozen
     * layers (every stage priced on its own) of a model mixing dense and MoE layers, over a wide
     * space; the work limit times this bounds a run */
    llmmem_model *deep;
    llmmem_strategy *wide;
    llmmem_plan *slow;
    if (check(llmmem_model_from_preset(&deep, "deepseek-v3"), "model") ||
        check(llmmem_model_set_int(deep, LLMMEM_KEY_NUM_HIDDEN_LAYERS, 720), "layers") ||
        check(llmmem_model_set_int(deep, LLMMEM_KEY_MOE_LAYER_FREQ, 2), "moe_layer_freq") ||
        check(llmmem_strategy_new(&wide), "strategy") || set(wide, "mode", "training") ||
        set(wide, "frozen_layers", "1") || set(wide, "plan_max_pipeline_parallel", "256") ||
        set(wide, "plan_max_tensor_parallel", "64") || set(wide, "plan_max_context_parallel", "64") ||
        set(wide, "plan_max_virtual_pipeline", "64") || check(llmmem_plan_new(&slow), "plan") ||
        check(llmmem_plan_set_work_limit(slow, (uint64_t)1 << 26), "work limit"))
        return 1;
    double t0 = now();
    if (check(llmmem_plan_run(slow, deep, hw, wide, 5040), "plan"))
        return 1;
    double slow_wall = now() - t0;
    printf("plan deepseek-v3 with 720 layers, frozen_layers 1, on 5040 h100-sxm-80gb, wide space: %.3f s, %" PRIu64
           " units of work (%.3f us a unit; %.2f s for the default limit of %d)\n",
           slow_wall, llmmem_plan_work(slow), slow_wall / (double)llmmem_plan_work(slow) * 1e6,
           slow_wall / (double)llmmem_plan_work(slow) * LLMMEM_PLAN_DEFAULT_WORK_LIMIT, LLMMEM_PLAN_DEFAULT_WORK_LIMIT);
    llmmem_plan_free(slow);
    llmmem_strategy_free(wide);
    llmmem_model_free(deep);
#endif

    /* the fewest devices: a job that fits (on 16), and one that never fits, searched up to 4096
     * and to 32768 devices (the search used to run the planner on every count up to the ceiling) */
    struct {
        const char *what;
        llmmem_model *model;
        const char *gpu, *seq;
        uint64_t most;
    } fewest[] = {
        {"llama-3.1-70b training, fits on 16", dense, "h100-sxm-80gb", "4096", 1024},
        {"llama-3.1-405b training, 131072 tokens, never fits", big, "rtx-4090", "131072", 4096},
        {"llama-3.1-405b training, 131072 tokens, never fits", big, "rtx-4090", "131072", 32768},
    };
    for (size_t i = 0; i < sizeof fewest / sizeof fewest[0]; i++) {
        llmmem_hardware *gpu;
        llmmem_strategy *job;
        uint64_t answer = 0;
        if (check(llmmem_hardware_from_preset(&gpu, fewest[i].gpu), "gpu") || check(llmmem_strategy_new(&job), "job") ||
            set(job, "mode", "training") || set(job, "sequence_length", fewest[i].seq))
            return 1;
        double best_t = 1e30;
        for (int round = 0; round < 3; round++) {
            double t0 = now();
            if (check(llmmem_solve_min_devices(&answer, fewest[i].model, gpu, job, fewest[i].most), "fewest"))
                return 1;
            double t = now() - t0;
            best_t = t < best_t ? t : best_t;
        }
        printf("fewest devices, %s, up to %" PRIu64 ": %.4f s (answer %" PRIu64 ")\n", fewest[i].what,
               fewest[i].most, best_t, answer);
        llmmem_strategy_free(job);
        llmmem_hardware_free(gpu);
    }

    llmmem_plan_free(plan);
    llmmem_strategy_free(base);
    llmmem_strategy_free(serve);
    llmmem_serving_free(serving);
    llmmem_report_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(big);
    llmmem_model_free(moe);
    llmmem_model_free(dense);
    return 0;
}
