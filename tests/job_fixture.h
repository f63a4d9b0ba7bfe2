/* Tests' shims for internal functions whose signatures moved to the resolved job (issue 31): each
 * keeps its old name and arguments, resolves what the job would have, and calls the new function,
 * so the tests' assertions stay as they were written. Not part of the library. */
#ifndef LLMMEM_TEST_JOB_FIXTURE_H
#define LLMMEM_TEST_JOB_FIXTURE_H

#include <string.h>

#include "views/activations.h"

/* llmmem__act_kinds_make on a job of the model and the strategy in a compute format (no layout,
 * no hardware: the layer kinds read neither; the stage gives the split). */
static inline llmmem_status llmmem__activation_kinds(llmmem__act_kinds *k, const llmmem_model *m,
                                                     const llmmem_strategy *s, llmmem_format compute,
                                                     const llmmem__act_stage *stage)
{
    llmmem__job j;
    memset(&j, 0, sizeof j);
    j.m = m;
    j.s = s;
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

#endif
