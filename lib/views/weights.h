/* Internal: weight bytes of a view under a weight plan, and of a job's whole model (weights.c).
 * Not installed. */
#ifndef LLMMEM_WEIGHTS_H
#define LLMMEM_WEIGHTS_H

#include "job/job.h"

/* The view of the whole model. */
llmmem__view llmmem__whole_model(const llmmem_model *m);

/* Bytes of the weights of a view under a weight plan (never a checkpoint's bytes). */
llmmem_status llmmem__view_weight_bytes(uint64_t *bytes_out, const llmmem__view *v, const llmmem__weight_plan *wp);

/* Bytes of all weights of the job's model on one device: the checkpoint's when the job keeps them. */
llmmem_status llmmem__job_weight_bytes(uint64_t *bytes_out, const llmmem__job *j);

/* Bytes of all weights of the model on one device: the checkpoint's when from_checkpoint
 * (llmmem__weights_from_checkpoint; the plan is then not read), else in the weight plan's formats. */
llmmem_status llmmem__weight_bytes(uint64_t *bytes_out, const llmmem_model *m, const llmmem__weight_plan *wp,
                                   int from_checkpoint);

#endif
