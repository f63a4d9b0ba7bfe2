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
    llmmem__state_cache states; /* the stages' state, for most_loaded_only estimates alone (the planner's) */
    llmmem__job_cache jobs; /* the last job resolved (llmmem__job_resolve) */
} llmmem__cost_cache;

/* The report of a resolved job (llmmem__job_resolve) on the hardware named `hw_name`, with the costs
 * `cache` holds for its pricing (refreshed otherwise; NULL: none), recording into `trace` when it is not
 * NULL (NULL costs the estimate nothing). most_loaded_only: the planner reads the most loaded stage
 * alone (other entries of stages[] may be stale). `out` is cleared first and again on failure. */
llmmem_status llmmem__estimate_job(llmmem_report *out, const llmmem__job *j, const char *hw_name,
                                   llmmem__cost_cache *cache, llmmem__trace *trace, int most_loaded_only);

#endif
