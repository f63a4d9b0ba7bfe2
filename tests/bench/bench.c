/* Benchmarks: nanoseconds per estimate (dense training, MoE with every parallel dimension,
 * serving), planner candidates per second, and the wall time of a 405B plan on 1024 GPUs. Prints
 * the machine and the figures; the best of several rounds is kept (shared machines are noisy).
 * Run with `meson test -C build --benchmark --verbose` or build/tests/bench/llmmem-bench. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

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

    if (set(s, "mode", "training") || set(s, "recompute", "selective") || check(llmmem_estimate(r, dense, hw, s), "dense"))
        return 1;
    printf("\nestimate, dense training (llama-3.1-70b, one device): %.0f ns\n", per_estimate(r, dense, hw, s, 200000));

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
