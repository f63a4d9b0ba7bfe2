/* Internal: composing a report (estimate.c): the cost cache a report keeps between estimates, and
 * the estimate that reuses it (the planner runs many). Not installed. */
#ifndef LLMMEM_ESTIMATE_H
#define LLMMEM_ESTIMATE_H

#include "views/generate.h"
#include "views/parallel.h"
#include "views/trace.h"

/* Rank costs kept across estimates for the pricing `key` (job.h: the model, the split and every
 * resolved format and training setting): those of a layout that splits or shards when `valid`, the
 * whole model's state when costs.whole_made (an estimate with another pricing clears both). */
typedef struct llmmem__cost_cache {
    int valid;
    llmmem__pricing key;
    llmmem__rank_costs costs;
    llmmem__act_cache acts; /* the layer kinds, keyed apart (a strategy's activation keys change them) */
    /* the last job resolved, for the model, hardware and strategy contents of these ids (0: none) */
    uint64_t job_model, job_hw, job_s;
    llmmem__job job;
} llmmem__cost_cache;

/* llmmem_estimate, reusing or refreshing `cache`. */
llmmem_status llmmem__estimate_cached(llmmem_report *out, const llmmem_model *model, const llmmem_hardware *hw,
                                      const llmmem_strategy *strategy, llmmem__cost_cache *cache);

/* The same, recording into `trace` when it is not NULL (NULL costs the estimate nothing). */
llmmem_status llmmem__estimate_traced(llmmem_report *out, const llmmem_model *model, const llmmem_hardware *hw,
                                      const llmmem_strategy *strategy, llmmem__cost_cache *cache,
                                      llmmem__trace *trace);

/* The same, with the job's layout-independent parts kept in `fixed` (llmmem__job_make_fixed; the
 * planner's candidates differ in layout keys alone); NULL: resolved every time. With `fixed` and no
 * trace the caller reads the most loaded stage alone: other entries of stages[] may be stale. */
llmmem_status llmmem__estimate_fixed(llmmem_report *out, const llmmem_model *model, const llmmem_hardware *hw,
                                     const llmmem_strategy *strategy, llmmem__cost_cache *cache,
                                     llmmem__trace *trace, llmmem__job_fixed *fixed);

#endif
