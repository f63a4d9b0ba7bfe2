/*
 * serving_pool — serving capacity of a model over a pool of GPUs, with libllmmem.
 *
 * For each GPU kind of the pool and each tensor-parallel size, one vLLM-style serving estimate
 * (paged KV cache, llmmem_serving_estimate) answers what a capacity planner asks: how many tokens
 * the KV cache holds, how many requests of a given length run at once (llmmem_serving_max_concurrency)
 * and the longest single request a replica accepts (llmmem_serving_max_model_len). The replica
 * serving the most requests per GPU is the one to deploy.
 *
 *   serving_pool [MODEL [REQUEST_TOKENS]]
 *   serving_pool llama-3.1-70b 8192
 *
 * Exit status: 0 when the report was printed, 2 for bad input, 1 when the library's answers
 * contradict each other (this program doubles as a test).
 *
 * Build: cc serving_pool.c $(pkg-config --cflags --libs llmmem)
 */
#include <llmmem/llmmem.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* The pool: GPU presets (`llmmem gpus`) and the tensor-parallel sizes a replica may use. */
static const char *const pool[] = {"l40s", "a100-sxm-80gb", "h100-sxm-80gb", "h200"};
static const int64_t tensor_parallel[] = {1, 2, 4, 8};

static int wrong(const char *gpu, int64_t t, const char *what)
{
    fprintf(stderr, "serving_pool: the library answered wrongly for %s x %" PRId64 ": %s\n", gpu, t, what);
    return 1;
}

/*
 * Self-check of one result against the public definitions:
 *   - max_concurrency requests of `tokens` tokens take at most num_blocks blocks, one more does
 *     not fit (n = 1 and no prefix caching: each request owns its blocks);
 *   - the longest request fits and one token more does not, unless it is max_model_len itself;
 *   - "fits" (vLLM starts) means a request of max_model_len fits.
 */
static int check(const llmmem_serving *sv, const char *gpu, int64_t t, uint64_t tokens, uint64_t requests,
                 uint64_t longest)
{
    uint64_t blocks = 0, num_blocks = llmmem_serving_get(sv, LLMMEM_SERVING_NUM_BLOCKS);
    uint64_t setting = llmmem_serving_get(sv, LLMMEM_SERVING_MAX_MODEL_LEN_SETTING);
    int fits = 0;
    if (llmmem_serving_request_blocks(&blocks, NULL, sv, tokens) != LLMMEM_OK || blocks == 0)
        return wrong(gpu, t, "no blocks for a request");
    if (tokens <= setting && (requests * blocks > num_blocks || (requests + 1) * blocks <= num_blocks))
        return wrong(gpu, t, "max_concurrency is not the number of requests the blocks hold");
    if (requests != llmmem_serving_get(sv, LLMMEM_SERVING_MAX_CONCURRENCY))
        return wrong(gpu, t, "two answers for the concurrency at request_tokens");
    if (longest > 0 && (llmmem_serving_fits_request(&fits, sv, longest) != LLMMEM_OK || !fits))
        return wrong(gpu, t, "the longest request does not fit");
    if (longest < setting && (llmmem_serving_fits_request(&fits, sv, longest + 1) != LLMMEM_OK || fits))
        return wrong(gpu, t, "a request longer than the longest fits");
    if (llmmem_serving_get(sv, LLMMEM_SERVING_FITS) != (longest == setting))
        return wrong(gpu, t, "fits disagrees with the longest request");
    return 0;
}

int main(int argc, char **argv)
{
    const char *model_name = argc > 1 ? argv[1] : "llama-3.1-70b";
    uint64_t tokens = strtoull(argc > 2 ? argv[2] : "8192", NULL, 10);

    llmmem_model *model = NULL;
    llmmem_strategy *strategy = NULL;
    llmmem_serving *sv = NULL;
    llmmem_status st;
    const char *best_gpu = NULL;
    int64_t best_t = 0;
    double best_per_gpu = 0;
    int rc = 0;

    /* One model, one strategy and one serving result, reused for every replica shape: the
     * estimate refills the result without allocating. request_tokens is the request length the
     * result's concurrency answers for. */
    if ((st = llmmem_model_from_preset(&model, model_name)) != LLMMEM_OK || (st = llmmem_strategy_new(&strategy)) != LLMMEM_OK ||
        (st = llmmem_serving_new(&sv)) != LLMMEM_OK ||
        (st = llmmem_strategy_set_int(strategy, LLMMEM_KEY_REQUEST_TOKENS, (int64_t)tokens)) != LLMMEM_OK) {
        fprintf(stderr, "serving_pool: %s (%s)\n", llmmem_last_message(), llmmem_status_str(st));
        rc = 2;
        goto done;
    }

    printf("%s, requests of %" PRIu64 " tokens (prompt and output)\n\n", model_name, tokens);
    printf("%-15s %3s %14s %12s %14s\n", "gpu", "t", "KV tokens", "requests", "longest");
    for (size_t g = 0; g < sizeof pool / sizeof pool[0] && rc == 0; g++) {
        llmmem_hardware *hw = NULL;
        if ((st = llmmem_hardware_from_preset(&hw, pool[g])) != LLMMEM_OK) {
            fprintf(stderr, "serving_pool: %s\n", llmmem_last_message());
            rc = 2;
            break;
        }
        for (size_t i = 0; i < sizeof tensor_parallel / sizeof tensor_parallel[0] && rc == 0; i++) {
            int64_t t = tensor_parallel[i];
            uint64_t requests = 0, longest = 0;
            llmmem_strategy_set_int(strategy, LLMMEM_KEY_TENSOR_PARALLEL, t);
            /* A shape the model cannot take (heads not divisible by t, say) is skipped with the
             * library's reason; a budget the weights exceed is a result with no blocks. */
            if ((st = llmmem_serving_estimate(sv, model, hw, strategy)) != LLMMEM_OK) {
                printf("%-15s %3" PRId64 "  not possible: %s\n", pool[g], t, llmmem_last_message());
                continue;
            }
            if ((st = llmmem_serving_max_concurrency(&requests, sv, tokens)) != LLMMEM_OK ||
                (st = llmmem_serving_max_model_len(&longest, sv)) != LLMMEM_OK) {
                fprintf(stderr, "serving_pool: %s\n", llmmem_last_message());
                rc = 2;
                break;
            }
            uint64_t shortfall = llmmem_serving_get(sv, LLMMEM_SERVING_SHORTFALL);
            if (shortfall > 0)
                printf("%-15s %3" PRId64 "  does not load: %.2f GiB short per GPU\n", pool[g], t,
                       (double)shortfall / 1073741824.0);
            else
                printf("%-15s %3" PRId64 " %14" PRIu64 " %12" PRIu64 " %14" PRIu64 "%s\n", pool[g], t,
                       llmmem_serving_get(sv, LLMMEM_SERVING_TOKENS), requests, longest,
                       llmmem_serving_get(sv, LLMMEM_SERVING_FITS) ? "" : "  (below max_model_len: vLLM refuses to start)");
            rc = check(sv, pool[g], t, tokens, requests, longest);
            if ((double)requests / (double)t > best_per_gpu) {
                best_per_gpu = (double)requests / (double)t;
                best_gpu = pool[g];
                best_t = t;
            }
        }
        llmmem_hardware_free(hw);
    }
    if (rc == 0 && best_gpu != NULL)
        printf("\nmost requests per GPU: %s x %" PRId64 " (%.1f requests of %" PRIu64 " tokens per GPU)\n", best_gpu,
               best_t, best_per_gpu, tokens);
    else if (rc == 0)
        printf("\nno replica shape of the pool holds one request of %" PRIu64 " tokens\n", tokens);

done:
    llmmem_serving_free(sv);
    llmmem_strategy_free(strategy);
    llmmem_model_free(model);
    return rc;
}
