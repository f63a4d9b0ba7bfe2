/*
 * The local engines' solvers (llmmem_local_solve): the largest value of one llama.cpp or ollama
 * setting that fits, searched over local estimates of strategy copies.
 */
#include "engines/local.h"

/* How a searched value acts on the context. */
typedef enum {
    FIXED_CONTEXT,  /* n_gpu_layers, num_gpu: the context stays */
    GROWS_CONTEXT,  /* n_ctx, num_ctx, num_parallel: a context llama.cpp refuses (past its int, or 64
                     * bits: num_ctx x num_parallel) does not fit */
    CONTEXT_PER_SEQ /* n_parallel: n_ctx is set to per_seq x value as well (it covers every sequence) */
} context_rule;

/* Fits with `key` set to `value` (in a copy of the strategy)? Any failure but a context beyond
 * llama.cpp's bounds stops the search. A host of unknown
 * RAM is not held against a value: every device whose memory is known keeps its part (the answer is the
 * GPUs'). */
static llmmem_status try_value(int *fits, llmmem_local *r, llmmem_strategy *copy, llmmem_key key, int64_t value,
                               context_rule rule, uint64_t per_seq, const llmmem_model *m, const llmmem_checkpoint *ck,
                               const llmmem_hardware *hw)
{
    llmmem_status st = llmmem__settings_set_int(&copy->s, LLMMEM_OBJECT_STRATEGY, key, value);
    if (!st && rule == CONTEXT_PER_SEQ)
        st = llmmem__settings_set_int(&copy->s, LLMMEM_OBJECT_STRATEGY, LLMMEM_KEY_N_CTX, (int64_t)per_seq * value);
    if (!st)
        st = llmmem_local_estimate(r, m, ck, hw, copy);
    if (rule != FIXED_CONTEXT && (st == LLMMEM_ERR_OUT_OF_RANGE || st == LLMMEM_ERR_OVERFLOW)) {
        *fits = 0;
        return LLMMEM_OK;
    }
    *fits = !st && (r->v[LLMMEM_LOCAL_FITS] || (r->v[LLMMEM_LOCAL_HOST_UNKNOWN] && llmmem__local_gpus_fit(r)));
    return st;
}

/* The largest value in [lo, hi] that fits when fitting is monotone (more layers, cells or sequences
 * never take less memory); 0 in *answer when lo does not fit. The search stays inside the key's
 * bounds: it never answers, nor tries, a value the key (llama.cpp's own bound) refuses. */
static llmmem_status search(int64_t *answer, llmmem_local *r, llmmem_strategy *copy, llmmem_key key, int64_t lo,
                            int64_t hi, context_rule rule, uint64_t per_seq, const llmmem_model *m,
                            const llmmem_checkpoint *ck, const llmmem_hardware *hw)
{
    const llmmem__key_info *k = llmmem__key_info_get(key);
    if (hi > k->max)
        hi = k->max;
    int fits;
    llmmem_status st = try_value(&fits, r, copy, key, lo, rule, per_seq, m, ck, hw);
    if (st)
        return st;
    if (!fits) {
        *answer = 0;
        return LLMMEM_OK;
    }
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if ((st = try_value(&fits, r, copy, key, mid, rule, per_seq, m, ck, hw)) != LLMMEM_OK)
            return st;
        if (fits)
            lo = mid;
        else
            hi = mid - 1;
    }
    *answer = lo;
    return LLMMEM_OK;
}

llmmem_status llmmem_local_solve(int64_t *answer_out, llmmem_local_question question, const llmmem_model *model,
                                 const llmmem_checkpoint *gguf, const llmmem_hardware *hw,
                                 const llmmem_strategy *strategy)
{
    LLMMEM_REQUIRE(answer_out);
    LLMMEM_REQUIRE(model);
    LLMMEM_REQUIRE(hw);
    LLMMEM_REQUIRE(strategy);
    if ((unsigned)question > LLMMEM_LOCAL_MAX_PARALLEL)
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "unknown local question %d", (int)question);
    llmmem_local *r = NULL;
    llmmem_strategy *copy = NULL;
    llmmem_status st = llmmem_local_new(&r);
    if (!st)
        st = llmmem_strategy_clone(&copy, strategy);
    if (st) {
        llmmem_local_free(r);
        return st ? st : LLMMEM_ERR_NO_MEMORY;
    }
    /* a first estimate validates every other setting and gives the model's sizes */
    if ((st = llmmem_local_estimate(r, model, gguf, hw, strategy)) == LLMMEM_OK) {
        int ollama = r->v[LLMMEM_LOCAL_ENGINE] == LLMMEM_ENGINE_OLLAMA;
        uint64_t n_layer = r->v[LLMMEM_LOCAL_N_LAYER];
        /* llama.cpp's --fit would answer every question itself: the solver searches the setting instead */
        if (!ollama)
            st = llmmem__settings_set_int(&copy->s, LLMMEM_OBJECT_STRATEGY, LLMMEM_KEY_FIT, 0);
        /* ollama's num_gpu -1 lets --fit leave layers on the CPU until any context fits: the context
         * and parallel questions ask instead what fits with every layer on the GPUs */
        if (ollama && question != LLMMEM_LOCAL_MAX_GPU_LAYERS && llmmem__get_int(&copy->s, LLMMEM_KEY_NUM_GPU) < 0)
            st = llmmem__settings_set_int(&copy->s, LLMMEM_OBJECT_STRATEGY, LLMMEM_KEY_NUM_GPU, (int64_t)n_layer + 1);
        if (!st) {
            switch (question) {
            case LLMMEM_LOCAL_MAX_GPU_LAYERS:
                st = search(answer_out, r, copy, ollama ? LLMMEM_KEY_NUM_GPU : LLMMEM_KEY_N_GPU_LAYERS, 0,
                            (int64_t)n_layer + 1, FIXED_CONTEXT, 0, model, gguf, hw);
                break;
            case LLMMEM_LOCAL_MAX_CONTEXT: {
                /* up to the model's context length (n_ctx_train), or further when it has none */
                int64_t top = llmmem__model_value(model, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS);
                if (!ollama) /* n_ctx covers every sequence */
                    top *= (int64_t)r->v[LLMMEM_LOCAL_N_SEQ_MAX];
                st = search(answer_out, r, copy, ollama ? LLMMEM_KEY_NUM_CTX : LLMMEM_KEY_N_CTX, 1,
                            top > 0 ? top : (int64_t)1 << 24, GROWS_CONTEXT, 0, model, gguf, hw);
                break;
            }
            case LLMMEM_LOCAL_MAX_PARALLEL:
                /* each sequence keeps its context: n_ctx grows with n_parallel (ollama: num_ctx is per sequence) */
                st = search(answer_out, r, copy, ollama ? LLMMEM_KEY_NUM_PARALLEL : LLMMEM_KEY_N_PARALLEL, 1,
                            INT64_MAX, ollama ? GROWS_CONTEXT : CONTEXT_PER_SEQ, r->v[LLMMEM_LOCAL_N_CTX_SEQ], model,
                            gguf, hw);
                break;
            }
        }
    }
    llmmem_local_free(r);
    llmmem_strategy_free(copy);
    return st;
}
