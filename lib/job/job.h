/* Internal: the job of one estimate, resolved once from (model, hardware, strategy) before any
 * view runs (job.c): the mode, every format with its `auto` resolved, the training plan and the
 * parallel layout. Views read the job, not the keys behind it. Not installed. */
#ifndef LLMMEM_JOB_H
#define LLMMEM_JOB_H

#include "base/internal.h"
#include "job/framework.h"

/* How the weights are stored in the job's mode, every `auto` resolved. */
typedef struct llmmem__weight_plan {
    llmmem_format weight;    /* weight matrices the format applies to (see quantize_*) */
    llmmem_format high;      /* the other tensors: norms, biases, and unquantized embedding/head/router */
    uint64_t group;          /* group or block size (0: the format's default) */
    int32_t double_quant;    /* bitsandbytes 4-bit double quantization */
    int32_t quantize_embedding, quantize_lm_head, quantize_router; /* the weight format reaches these too */
    int32_t experts_only;    /* the weight format reaches routed experts alone (quantized_modules experts) */
    int32_t as_stored;       /* the weight format is the checkpoint's (quantized or torch_dtype): what it keeps in fp32 stays fp32 */
} llmmem__weight_plan;

/* What training keeps of the trained parameters (base parameters in mode training, adapters in
 * lora/qlora), every `auto` resolved; all 0 in inference. */
typedef struct llmmem__train_plan {
    int64_t optimizer;       /* llmmem_optimizer */
    uint64_t frozen_layers;  /* the first decoder layers, not trained */
    uint64_t rank;           /* lora_rank (lora/qlora) */
    uint64_t targets;        /* lora_targets bits (lora/qlora) */
    llmmem_format grad;      /* FP32, FP16 or BF16 */
    llmmem_format master;    /* AUTO: no master copy */
    llmmem_format state;     /* format of full-precision optimizer states */
    llmmem_format adapter;   /* adapter weights (lora/qlora) */
    int32_t grad_copy;       /* an fp32 gradient beside 16-bit ones */
    int32_t first_moment;    /* Adafactor beta1 */
} llmmem__train_plan;

/* Everything what one tensor of a class costs on a rank depends on: the report's cost cache is
 * keyed by it (memcmp). The cost functions (training.c llmmem__class_costs, parallel.c
 * llmmem__rank_costs_make) read the model's shapes and this alone, so a price-relevant setting
 * that is not in here cannot reach them. No padding: memcmp sees every byte (asserted in job.c). */
typedef struct llmmem__pricing {
    uint64_t model_id;       /* llmmem_model id: the shapes */
    uint64_t t, et, e;       /* tensor, expert-tensor and expert parallel sizes: the split */
    int64_t mode;            /* llmmem_mode */
    llmmem__weight_plan weights;
    llmmem__train_plan train;
} llmmem__pricing;

/* The layout, validated against the model. A single device is t = p = d = c = e = et = v = 1 (plain
 * data parallelism, d > 1 without sharding, keeps whole replicas too: llmmem__layout_single); the
 * job gives either schedule 1f1b, which holds one micro-batch in flight there. */
typedef struct llmmem__layout {
    uint64_t t, p, d, c, e, et, v; /* tensor, pipeline, data, context, expert, expert-tensor, virtual */
    int sp;                        /* sequence parallelism */
    uint64_t m;                    /* micro-batches per step (0: as many as the schedule holds) */
    int64_t schedule;              /* llmmem_pipeline_schedule */
    uint64_t first_layers, last_layers; /* decoder layers of the first and last stage (0: even) */
    uint64_t per_stage;            /* layers of every other stage */
    int64_t zero, fsdp;            /* ZeRO stage 0-3, llmmem_fsdp */
    int dist_opt;                  /* Megatron distributed optimizer */
    int64_t offload_opt, offload_param; /* llmmem_offload */
    uint64_t shard;                /* ranks the dense state is sharded over (d x c, or a node for hybrid) */
    uint64_t edp;                  /* expert data-parallel size: t x d x c / (e x et) */
    llmmem_format compute;         /* activations and buffers (the job's compute format) */
} llmmem__layout;

/* The device a PyTorch job runs on, resolved from the hardware's keys (none of it can fail: the
 * estimate refuses memory 0 itself, at its point). */
typedef struct llmmem__device {
    uint64_t memory;           /* memory_bytes (0: not set) */
    uint64_t capacity;         /* memory less allocator_reserve_fraction of it, rounded down to a byte */
    uint64_t cuda_total;       /* the total CUDA reports (llmmem__cuda_total) */
    uint64_t devices_per_node;
    uint64_t host, nvme;       /* host_memory_bytes, nvme_bytes of a node */
    uint64_t runtime;          /* bytes outside the allocator (llmmem__runtime_overhead of a PyTorch job) */
    uint64_t workspace;        /* one cuBLAS handle's workspace (cublas_workspace_bytes) */
    uint64_t workspaces;       /* the workspaces the job's threads hold (0 off CUDA kernels) */
} llmmem__device;

/* The strategy's activation settings (recomputation, the layer's options, the loss, adapters, images),
 * read once; every member 64 bits wide, so the activation cache's key has no padding. */
typedef struct llmmem__act_settings {
    int64_t recompute;               /* llmmem_recompute */
    int64_t recompute_method;        /* llmmem_recompute_method */
    uint64_t recompute_num_layers;
    int64_t dropout, norm_fp32, fused_swiglu, autocast;
    int64_t cross_entropy, logits_fp32;
    uint64_t loss_chunk_tokens;
    int64_t lora_targets;            /* lora_targets bits */
    uint64_t lora_rank;
    int64_t adapter;                 /* llmmem__adapter_format */
    uint64_t images_per_sequence, image_pixels;
    int64_t framework;               /* llmmem_framework: whose model forward holds the extras */
} llmmem__act_settings;

/* The strategy's data-parallel communication settings (comm.c's buffers), read once. */
typedef struct llmmem__comm_settings {
    uint64_t reduce_bucket, allgather_bucket;      /* reduce_bucket_size, allgather_bucket_size */
    int overlap;                                   /* overlap_comm */
    uint64_t stage3_prefetch, stage3_live;         /* stage3_prefetch_bucket_size, stage3_max_live_parameters */
    int fsdp_limit_all_gathers, ddp_gradient_copy;
} llmmem__comm_settings;

/* The generate loop's settings (generate.c), read once. */
typedef struct llmmem__loop_settings {
    uint64_t beams, max_new_tokens, logits_to_keep; /* num_beams, max_new_tokens, logits_to_keep */
} llmmem__loop_settings;

/* PYTORCH_CUDA_ALLOC_CONF's keys (the allocator replay's), read once. */
typedef struct llmmem__alloc_settings {
    int64_t expandable_segments, max_split_size_mb, roundup_power2_divisions;
    double garbage_collection_threshold;
} llmmem__alloc_settings;

/* The host side of a node (the report's host_bytes): what each process materializes at start-up and
 * the buffer factor over it, read once. */
typedef struct llmmem__host_settings {
    int64_t init;         /* llmmem_host_init */
    double buffer_factor; /* host_buffer_factor */
} llmmem__host_settings;

/* The format and optimizer choices as the user gave them (auto included), for explain's trace; the
 * plans above hold what they resolve to. */
typedef struct llmmem__asked {
    int64_t weight, gradient, master, state; /* weight, gradient, master_weights, optimizer_state formats */
    int64_t optimizer, recipe;               /* llmmem_optimizer, llmmem_precision_recipe */
} llmmem__asked;

/* One estimate's inputs, resolved: views read these blocks, never the hardware or strategy handle
 * (the model handle stays: its shapes are the inventory's). */
typedef struct llmmem__job {
    llmmem__pricing price;
    llmmem__layout layout;
    llmmem_format compute;          /* activations, gradients in flight, communication buffers */
    llmmem_kv_cache_dtype kv;       /* the KV cache's elements */
    int from_checkpoint;            /* the weights are an attached checkpoint's stored bytes */
    uint64_t sequences, tokens;     /* micro_batch_size, sequence_length */
    llmmem__device dev;
    llmmem__act_settings act;
    llmmem__comm_settings comm;
    llmmem__loop_settings loop;
    llmmem__alloc_settings alloc;
    llmmem__host_settings host;
    llmmem__asked asked;
    uint64_t hw_id, s_id;           /* the contents ids of the hardware and strategy resolved (a cache's key) */
    /* the framework keys (framework.c), made with the job; a refusal they hold is reported where a
     * view first needs them (llmmem__semantics_check) */
    llmmem__semantics sem;
    const llmmem_model *m;
    /* inference under the generate loop (parallel.c sets them from generate.c): the peak moment
     * whose bytes the rank reports instead of the contiguous cache, and the cache an offloaded
     * one keeps on the host; NULL: no loop */
    const struct llmmem__gen_moment *gen;
    uint64_t gen_host;
} llmmem__job;

/* What a job resolves from the model and the strategy's keys other than the layout's: the weight
 * and training plans, the compute and KV formats. The planner's candidates differ in layout keys
 * alone (solve.c apply), so it keeps this from its first job and hands it to the others
 * (llmmem__job_make_fixed). valid 0: not resolved yet. Of the keys a candidate sets, the job's
 * settings blocks and semantics (the job's start) read recompute alone: a start is kept per
 * recompute value, made by the first candidate with it (bit r of `started`). */
typedef struct llmmem__job_fixed {
    int valid;
    llmmem__weight_plan weights;
    llmmem__train_plan train;
    llmmem_format compute;
    llmmem_kv_cache_dtype kv;
    unsigned started;
    llmmem__job start[LLMMEM_RECOMPUTE_OFFLOAD + 1];
} llmmem__job_fixed;

/* The last job resolved, kept for the next resolution of the same contents: the model's id and the
 * hardware's and strategy's contents ids (every validated change takes a new one); model 0: none. */
typedef struct llmmem__job_cache {
    uint64_t model, hw, s;
    llmmem__job job;
} llmmem__job_cache;

/* The job of an estimate: the model checked (llmmem__model_check), then the cache's job when it holds
 * these contents (never with a valid `fixed`, nor a model with a checkpoint attached), else one
 * resolved into `own` (kept in the cache when the contents have ids); fails on a device without
 * memory_bytes before the layout (llmmem__job_make's order after it). cache NULL: none. */
llmmem_status llmmem__job_resolve(const llmmem__job **out, llmmem__job *own, llmmem__job_cache *cache,
                                  const llmmem_model *m, const llmmem_hardware *hw, const llmmem_strategy *s,
                                  llmmem__job_fixed *fixed);

/* Resolves the job; fails (message set) on a layout, format or training plan that cannot run, in
 * the order the estimate has always reported them: layout, weight formats, training plan. */
llmmem_status llmmem__job_make(llmmem__job *out, const llmmem_model *m, const llmmem_hardware *hw,
                               const llmmem_strategy *s);
/* The activation settings of a strategy (job start; cannot fail). */
void llmmem__act_settings_make(llmmem__act_settings *out, const llmmem_strategy *s);

/* The same, taking the parts `fixed` holds from it when valid, and filling it (valid) after a job
 * that resolved them; NULL: as llmmem__job_make. The caller changes only layout keys between
 * calls with the same `fixed`. */
llmmem_status llmmem__job_make_fixed(llmmem__job *j, const llmmem_model *m, const llmmem_hardware *hw,
                                     const llmmem_strategy *s, llmmem__job_fixed *fixed);

/* Reads and validates the layout alone (compute format included); the message names the numbers
 * at fault. */
llmmem_status llmmem__layout_make(llmmem__layout *out, const llmmem_model *m, const llmmem_strategy *s,
                                  const llmmem_hardware *hw);

/* 1 when nothing is split or sharded: one device holds the whole model (data parallelism without
 * sharding keeps a whole replica too, but may add gradient buckets). */
int llmmem__layout_single(const llmmem__layout *L);

/* The weight plan alone (the strategy's mode); fails on a group size the format rejects, or on a
 * weight format the mode cannot keep. */
llmmem_status llmmem__weight_plan_make(llmmem__weight_plan *out, const llmmem_model *m,
                                       const llmmem_strategy *s);
/* The storage format of one tensor class under a plan. */
llmmem_format llmmem__weight_plan_format(const llmmem__weight_plan *p, const llmmem__tensor_class *t);

/* The pricing part of a job for a model and strategy, split by t, et and e (no layout check). */
llmmem_status llmmem__pricing_make(llmmem__pricing *out, const llmmem_model *m, const llmmem_strategy *s,
                                   uint64_t t, uint64_t et, uint64_t e);

/* The format training computes and saves activations in: activation_format, else for mode training
 * the 16-bit (or fp32) format of the trained weights, for lora the base's unquantized format, for
 * qlora bf16 (qlora.py bnb_4bit_compute_dtype with --bf16). */
llmmem_status llmmem__compute_format(llmmem_format *out, const llmmem_model *m, const llmmem_strategy *s);

/* The format full training keeps its weights in when weight_format is auto: the precision
 * recipe's (megatron, pure_bf16: bf16; zero, deepspeed: fp16; fp32: fp32; custom: torch_dtype). */
llmmem_format llmmem__recipe_weight_format(int64_t recipe, llmmem_format torch_dtype);

/* The KV cache elements of a float format (fp32, fp16, bf16); auto for any other. */
llmmem_kv_cache_dtype llmmem__kv_dtype_of(llmmem_format f);
/* The 16- or 32-bit format the model computes in at inference (its torch_dtype, else bf16). */
llmmem_kv_cache_dtype llmmem__model_dtype(const llmmem_model *m);
/* kv_cache_dtype with auto resolved to the model's dtype (vLLM CacheConfig "auto"). */
llmmem_kv_cache_dtype llmmem__kv_dtype(const llmmem_model *m, const llmmem_strategy *s);

/* The strategy vLLM serving runs (serving.c): a copy of s with the format it serves the model in
 * (*served_out: the dtype key, else the model's torch_dtype with fp32 served in bf16) put where s
 * leaves weight_format, high_precision_format or kv_cache_dtype auto. */
llmmem_status llmmem__serving_strategy(llmmem_strategy *out, llmmem_format *served_out, const llmmem_model *m,
                                       const llmmem_strategy *s);

/* Whether LoRA adapters with the lora_targets bits go on a tensor class (routed experts only with
 * the experts bit). */
int llmmem__lora_target(const llmmem__tensor_class *t, unsigned targets);

/* The format of LoRA adapter weights: lora_format, else PEFT's (fp32) or QLoRA's (bf16). */
llmmem_format llmmem__adapter_format(const llmmem_strategy *s);

/* 1 when the weights are the bytes of an attached checkpoint (weight_format auto, inference or lora). */
int llmmem__weights_from_checkpoint(const llmmem_model *m, const llmmem_strategy *s);

#endif
