/* Call-site shims for the tests (issue 31, gate G4): internal functions that the library no longer
 * has, or that now take a resolved job or plan, keep their old names and signatures here, static, so
 * that a test file changes only an #include line. Each resolves what the library takes, then calls it.
 * Not part of the library. */
#ifndef LLMMEM_TEST_JOB_FIXTURE_H
#define LLMMEM_TEST_JOB_FIXTURE_H

#include <string.h>

#include "views/activations.h"
#include "views/kv.h"
#include "views/parallel.h"
#include "views/training.h"
#include "views/weights.h"

/* llmmem__act_kinds_make on a job of the model and the strategy in a compute format (no layout,
 * no hardware: the layer kinds read neither; the stage gives the split). */
static inline llmmem_status llmmem__activation_kinds(llmmem__act_kinds *k, const llmmem_model *m,
                                                     const llmmem_strategy *s, llmmem_format compute,
                                                     const llmmem__act_stage *stage)
{
    llmmem__job j;
    memset(&j, 0, sizeof j);
    j.m = m;
    j.compute = compute;
    j.price.mode = llmmem__get_int(&s->s, LLMMEM_KEY_MODE);
    j.sequences = (uint64_t)llmmem__get_int(&s->s, LLMMEM_KEY_MICRO_BATCH_SIZE);
    j.tokens = (uint64_t)llmmem__get_int(&s->s, LLMMEM_KEY_SEQUENCE_LENGTH);
    llmmem__act_settings_make(&j.act, s);
    llmmem__semantics_resolve(&j.sem, s);
    return llmmem__act_kinds_make(k, &j, stage);
}

/* llmmem__layers_held_of: the kinds carry the activation settings they were made with (s's). */
static inline llmmem_status llmmem__layers_held(uint64_t *out, const llmmem_model *m, const llmmem_strategy *s,
                                                const llmmem__act_kinds *k, const llmmem__act_stage *st, uint64_t upto)
{
    (void)s;
    return llmmem__layers_held_of(out, m, k, st, upto);
}

/* The training state of the whole model on one device, its own inventory unsplit (mode training,
 * lora or qlora; all zero for inference): llmmem__training_state over a job priced for one device. */
static inline llmmem_status llmmem__training_estimate(llmmem__training *out, const llmmem_model *m, const llmmem_strategy *s)
{
    LLMMEM_REQUIRE(out);
    *out = (llmmem__training){0};
    LLMMEM_REQUIRE(m);
    LLMMEM_REQUIRE(s);
    llmmem_status st = llmmem__model_check(m);
    if (st || llmmem__get_int(&s->s, LLMMEM_KEY_MODE) == LLMMEM_MODE_INFERENCE)
        return st;
    /* the whole model on one device: its own inventory, unsplit */
    llmmem__job j = {.m = m, .from_checkpoint = llmmem__weights_from_checkpoint(m, s)};
    if ((st = llmmem__pricing_make(&j.price, m, s, 1, 1, 1)) != LLMMEM_OK)
        return st;
    llmmem__view v = llmmem__whole_model(m);
    return llmmem__training_state(out, &j, &v);
}

/* Trainable parameters: in mode training every parameter outside the first frozen_layers decoder
 * layers; in lora/qlora the adapters' A and B matrices; 0 for inference. */
static inline llmmem_status llmmem__trainable_parameters(uint64_t *count_out, const llmmem_model *m, const llmmem_strategy *s)
{
    LLMMEM_REQUIRE(count_out);
    llmmem__training t;
    llmmem_status st = llmmem__training_estimate(&t, m, s);
    *count_out = st ? 0 : t.trainable;
    return st;
}

/* Bytes of the LoRA adapter weights alone (lora_format), counted in the weights component. */
static inline llmmem_status llmmem__adapter_weight_bytes(uint64_t *bytes_out, const llmmem_model *m, const llmmem_strategy *s)
{
    LLMMEM_REQUIRE(bytes_out);
    llmmem__training t;
    llmmem_status st = llmmem__training_estimate(&t, m, s);
    *bytes_out = st ? 0 : t.adapter_weights;
    return st;
}

/* A rank's costs priced from the strategy for a layout's t, et and e (llmmem__rank_costs_of). */
static inline llmmem_status llmmem__rank_costs_make(llmmem__rank_costs *rc, const llmmem_model *m, const llmmem_strategy *s,
                                                    const llmmem__layout *L)
{
    llmmem__pricing p;
    llmmem_status st = llmmem__pricing_make(&p, m, s, L->t, L->et, L->e);
    rc->whole_made = 0;
    return st ? st : llmmem__rank_costs_of(rc, m, &p);
}

/* llmmem__stage_state_of on the job the handles resolve to, with layout L. */
static inline llmmem_status llmmem__stage_state(llmmem__stage_report *out, uint64_t *host, uint64_t *nvme,
                                                const llmmem_model *m, const llmmem_hardware *hw, const llmmem_strategy *s,
                                                const llmmem__layout *L, const llmmem__rank_costs *rc, uint64_t stage,
                                                llmmem__stage_parts *ss)
{
    llmmem__job j;
    llmmem_status st = llmmem__job_make(&j, m, hw, s);
    j.layout = *L;
    return st ? st : llmmem__stage_state_of(out, host, nvme, &j, rc, stage, ss);
}

/* The contiguous cache in the strategy's kv_cache_dtype (llmmem__kv_contiguous_bytes). */
static inline llmmem_status llmmem__kv_cache_contiguous_bytes(uint64_t *bytes_out, const llmmem_model *m,
                                                              const llmmem_strategy *s, uint64_t sequences,
                                                              uint64_t tokens_each)
{
    return llmmem__kv_contiguous_bytes(bytes_out, m, llmmem__kv_dtype(m, s), sequences, tokens_each);
}

#endif
