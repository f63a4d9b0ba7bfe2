/* Internal: communication of one rank under a resolved job (comm.c): the data-parallel buffers it
 * holds and the bytes it sends per step, with checked arithmetic. Not installed. */
#ifndef LLMMEM_COMM_H
#define LLMMEM_COMM_H

#include "job/job.h"

/* What one rank's communication is sized by (parallel.c fills it from the rank's stage; a
 * device holding the whole model needs `gradients` and `trained` alone). */
typedef struct llmmem__comm_rank {
    uint64_t params;         /* parameters on the rank, after the tensor and expert split */
    uint64_t once_params;    /* of those, outside the decoder layers and routed experts (FSDP's root unit) */
    uint64_t layer_params;   /* the rank's share of its largest decoder layer (an FSDP layer unit) */
    uint64_t largest_tensor; /* its largest single tensor (ZeRO-3's gathered module) */
    uint64_t layers;         /* decoder layers on the rank, every chunk counted */
    uint64_t moe_layers;     /* of those, with a MoE block */
    uint64_t gradients;      /* gradient bytes the device keeps after sharding (DDP's bucket copy) */
    uint64_t trained;        /* trained parameters on the rank (whole replicas all-reduce their gradients) */
} llmmem__comm_rank;

/* Whether a device holds data-parallel communication buffers at all: training, lora or qlora with
 * data or context parallelism (inline: every single-device estimate asks). */
static inline int llmmem__comm_buffered(const llmmem__job *j)
{
    return j->price.mode != LLMMEM_MODE_INFERENCE && j->layout.d * j->layout.c > 1;
}

/* Bytes of the data-parallel communication buffers of one device, in the job's compute format:
 * DeepSpeed's ZeRO buckets, FSDP's gathered units, DDP's gradient copy; 0 in inference or without
 * data or context parallelism. LLMMEM_ERR_OVERFLOW past 64 bits. */
llmmem_status llmmem__comm_buffers(uint64_t *bytes_out, const llmmem__job *j, const llmmem__comm_rank *r);

/* Bytes one rank of pipeline stage `stage` sends per step, by kind (llmmem_comm); whole replicas
 * (llmmem__layout_single) send their trained parameters' gradients alone, and nothing in inference.
 * LLMMEM_ERR_OVERFLOW, naming the kind and the batch, past 64 bits. */
llmmem_status llmmem__comm_volume(uint64_t comm[LLMMEM_COMM_KINDS], const llmmem__job *j, const llmmem__comm_rank *r,
                                  uint64_t stage);

#endif
