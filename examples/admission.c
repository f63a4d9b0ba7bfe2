/*
 * admission — a scheduler's admission check with libllmmem.
 *
 * Given a job (model, GPU, mode, sequence length, micro-batch), decide before launching it whether
 * it fits on one device of this node. If it does not, say what would: the largest micro-batch at
 * this sequence length (llmmem_solve_max_micro_batch) and the longest sequence at this micro-batch
 * (llmmem_solve_max_sequence_length), so the job can be resubmitted instead of crashing an hour in
 * with CUDA out of memory.
 *
 *   admission [MODEL [GPU [MODE [SEQUENCE_LENGTH [MICRO_BATCH]]]]] [KEY=VALUE ...]
 *   admission llama-3.1-8b a100-sxm-80gb lora 4096 4
 *   admission llama-3.1-70b h100-sxm-80gb training 8192 1 tensor_parallel=8 zero_stage=3
 *
 * MODEL and GPU are preset names (`llmmem models`, `llmmem gpus`), MODE one of inference, training,
 * lora, qlora; any other strategy key of the job can follow as KEY=VALUE (`llmmem keys`).
 *
 * Exit status: 0 when the check ran (admitted or not: the verdict is printed), 2 for a bad job
 * description, 1 when the library's answers contradict each other (this program doubles as a test).
 *
 * Build: cc admission.c $(pkg-config --cflags --libs llmmem)
 */
#include <llmmem/llmmem.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* Print the library's explanation of a failed call; it names the key and value at fault. */
static int fail(llmmem_status status, const char *what)
{
    fprintf(stderr, "admission: %s: %s (%s)\n", what, llmmem_last_message(), llmmem_status_str(status));
    return 2;
}

/* A contradiction between two answers of the library: a bug there, never the job's fault. */
static int wrong(const char *what)
{
    fprintf(stderr, "admission: the library answered wrongly: %s\n", what);
    return 1;
}

/* Does the job fit with `key` set to `value`? -1 if the estimate itself fails. */
static int fits_with(const llmmem_model *m, const llmmem_hardware *hw, const llmmem_strategy *job,
                     llmmem_key key, uint64_t value)
{
    llmmem_strategy *s = NULL;
    llmmem_report *r = NULL;
    int fits = -1;
    if (llmmem_strategy_clone(&s, job) == LLMMEM_OK && llmmem_report_new(&r) == LLMMEM_OK &&
        llmmem_strategy_set_int(s, key, (int64_t)value) == LLMMEM_OK && llmmem_estimate(r, m, hw, s) == LLMMEM_OK)
        fits = llmmem_report_fits(r);
    llmmem_report_free(r);
    llmmem_strategy_free(s);
    return fits;
}

/*
 * A solver's answer `best` for `key` must fit, and the next value up (best + step, within the
 * key's bounds) must not: that is what "largest" means, and the check costs two estimates.
 */
static int check_largest(const llmmem_model *m, const llmmem_hardware *hw, const llmmem_strategy *job,
                         llmmem_key key, uint64_t best, uint64_t step)
{
    int64_t lo, hi;
    if (llmmem_key_bounds(&lo, &hi, key) != LLMMEM_OK)
        return wrong("no bounds for a strategy key");
    if (best > 0 && fits_with(m, hw, job, key, best) != 1)
        return wrong("the solver's answer does not fit");
    if (best + step <= (uint64_t)hi && fits_with(m, hw, job, key, best + step) != 0)
        return wrong("one more than the solver's answer fits too");
    return 0;
}

int main(int argc, char **argv)
{
    /* The job: positional arguments, else these defaults (a LoRA job that does not fit). */
    const char *model_name = argc > 1 ? argv[1] : "llama-3.1-8b";
    const char *gpu_name = argc > 2 ? argv[2] : "a100-sxm-80gb";
    const char *mode = argc > 3 ? argv[3] : "lora";
    const char *sequence_length = argc > 4 ? argv[4] : "4096";
    const char *micro_batch = argc > 5 ? argv[5] : "4";

    llmmem_model *model = NULL;
    llmmem_hardware *hw = NULL;
    llmmem_strategy *job = NULL;
    llmmem_report *report = NULL;
    llmmem_status st;
    int rc = 0;

    /* 1. The inputs: two presets and a strategy set by key name, as a job file would give them. */
    if ((st = llmmem_model_from_preset(&model, model_name)) != LLMMEM_OK) {
        rc = fail(st, "model");
        goto done;
    }
    if ((st = llmmem_hardware_from_preset(&hw, gpu_name)) != LLMMEM_OK) {
        rc = fail(st, "gpu");
        goto done;
    }
    if ((st = llmmem_strategy_new(&job)) != LLMMEM_OK || (st = llmmem_report_new(&report)) != LLMMEM_OK) {
        rc = fail(st, "setup");
        goto done;
    }
    if ((st = llmmem_strategy_set_text(job, "mode", mode)) != LLMMEM_OK ||
        (st = llmmem_strategy_set_text(job, "sequence_length", sequence_length)) != LLMMEM_OK ||
        (st = llmmem_strategy_set_text(job, "micro_batch_size", micro_batch)) != LLMMEM_OK) {
        rc = fail(st, "job");
        goto done;
    }
    for (int i = 6; i < argc; i++) { /* KEY=VALUE: any other strategy key */
        char key[64];
        const char *eq = argv[i];
        while (*eq != '\0' && *eq != '=')
            eq++;
        if (*eq != '=' || (size_t)(eq - argv[i]) >= sizeof key) {
            fprintf(stderr, "admission: expected KEY=VALUE, got '%s'\n", argv[i]);
            rc = 2;
            goto done;
        }
        snprintf(key, sizeof key, "%.*s", (int)(eq - argv[i]), argv[i]);
        if ((st = llmmem_strategy_set_text(job, key, eq + 1)) != LLMMEM_OK) {
            rc = fail(st, argv[i]);
            goto done;
        }
    }

    /* 2. The verdict: one estimate of the most loaded device. */
    if ((st = llmmem_estimate(report, model, hw, job)) != LLMMEM_OK) {
        rc = fail(st, "estimate");
        goto done;
    }
    int64_t seq = 0, mbs = 0, max_positions = 0, cp = 1;
    llmmem_strategy_get_int(&seq, job, LLMMEM_KEY_SEQUENCE_LENGTH);
    llmmem_strategy_get_int(&mbs, job, LLMMEM_KEY_MICRO_BATCH_SIZE);
    llmmem_strategy_get_int(&cp, job, LLMMEM_KEY_CONTEXT_PARALLEL);
    llmmem_model_get_int(&max_positions, model, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS);
    int admit = llmmem_report_fits(report);
    uint64_t need = llmmem_report_total_bytes(report), have = llmmem_report_capacity_bytes(report);
    printf("job:     %s on %s, %s, micro-batch %" PRId64 " x %" PRId64 " tokens\n", model_name, gpu_name, mode, mbs, seq);
    printf("memory:  %.2f GiB needed of %.2f GiB usable per device\n", (double)need / 1073741824.0,
           (double)have / 1073741824.0);
    printf("verdict: %s\n", admit ? "ADMIT" : "REJECT");

    /* 3. What would fit: the largest micro-batch at this length, the longest context at this
     *    micro-batch. Both solvers keep every other setting of the job. */
    uint64_t best_mbs = 0, best_seq = 0;
    if ((st = llmmem_solve_max_micro_batch(&best_mbs, model, hw, job)) != LLMMEM_OK ||
        (st = llmmem_solve_max_sequence_length(&best_seq, model, hw, job)) != LLMMEM_OK) {
        rc = fail(st, "solve");
        goto done;
    }
    if (best_mbs > 0)
        printf("largest micro_batch_size that fits at %" PRId64 " tokens: %" PRIu64 "\n", seq, best_mbs);
    else
        printf("no micro-batch fits at %" PRId64 " tokens\n", seq);
    if (best_seq > 0)
        printf("longest sequence_length that fits at micro-batch %" PRId64 ": %" PRIu64 "%s\n", mbs, best_seq,
               best_seq == (uint64_t)max_positions ? " (the model's max_position_embeddings)" : "");
    else
        printf("no sequence length fits at micro-batch %" PRId64 "\n", mbs);

    /* 4. Self-check: the verdict and the solvers must agree, and each answer must be the largest
     *    (a context solver stops at the model's positions: past them "one more" is not asked). */
    int capped = max_positions > 0 && best_seq + (uint64_t)cp > (uint64_t)max_positions;
    if (admit != (best_mbs >= (uint64_t)mbs) || admit != (best_seq >= (uint64_t)seq))
        rc = wrong("the verdict and the solvers disagree");
    else if ((rc = check_largest(model, hw, job, LLMMEM_KEY_MICRO_BATCH_SIZE, best_mbs, 1)) == 0 && !capped)
        rc = check_largest(model, hw, job, LLMMEM_KEY_SEQUENCE_LENGTH, best_seq, (uint64_t)cp);
    else if (rc == 0 && best_seq > 0 && fits_with(model, hw, job, LLMMEM_KEY_SEQUENCE_LENGTH, best_seq) != 1)
        rc = wrong("the solver's answer does not fit");

done:
    llmmem_report_free(report);
    llmmem_strategy_free(job);
    llmmem_hardware_free(hw);
    llmmem_model_free(model);
    return rc;
}
