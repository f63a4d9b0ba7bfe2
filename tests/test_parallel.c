/* Parallelism: per-rank state under ZeRO, FSDP and Megatron's distributed optimizer, pipeline
 * stages and their micro-batches in flight, tensor/sequence/context/expert splits, offload, and the
 * errors of impossible layouts, each against values derived by hand from the source it names. */
#include <string.h>

#include "engines/estimate.h"
#include "job_fixture.h"
#include "views/parallel.h"
#include "unit.h"

/* Llama-2-7B (meta-llama/Llama-2-7b-hf): h 4096, f 11008, 32 layers, 32 heads, vocab 32000, untied;
 * KerasHub llama2_7b_en: 6,738,415,616 parameters. */
#define N7B 6738415616ULL
#define H 4096ULL
#define F 11008ULL
#define V 32000ULL
/* One Llama-2-7B layer's saved bytes at 4096 tokens, bf16, flash, no recomputation (README's
 * derivation): 2·T·h·2 + 3·T·h·2 + 32·T·4 + T·h·2 + 2·T·h·2 + 4·T·f·2. */
#define T4K 4096ULL
#define LAYER_4K (2 * T4K * H * 2 + 3 * T4K * H * 2 + 32 * T4K * 4 + T4K * H * 2 + 2 * T4K * H * 2 + 4 * T4K * F * 2)

typedef struct job {
    llmmem_model *m;
    llmmem_hardware *hw;
    llmmem_strategy *s;
    llmmem_report *r;
} job;

static job make(const char *preset)
{
    job j = {0};
    ck_assert_ok(llmmem_model_from_preset(&j.m, preset));
    ck_assert_ok(llmmem_hardware_from_preset(&j.hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&j.s));
    ck_assert_ok(llmmem_report_new(&j.r));
    ck_assert_ok(llmmem_strategy_set_int(j.s, LLMMEM_KEY_MODE, LLMMEM_MODE_TRAINING));
    return j;
}

static job make_count(uint64_t params)
{
    job j = {0};
    ck_assert_ok(llmmem_model_new(&j.m));
    ck_assert_ok(llmmem_model_set_int(j.m, LLMMEM_KEY_NUM_PARAMETERS, (int64_t)params));
    ck_assert_ok(llmmem_hardware_from_preset(&j.hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&j.s));
    ck_assert_ok(llmmem_report_new(&j.r));
    ck_assert_ok(llmmem_strategy_set_int(j.s, LLMMEM_KEY_MODE, LLMMEM_MODE_TRAINING));
    return j;
}

static void set(job *j, const char *name, const char *value)
{
    ck_assert_ok(llmmem_strategy_set_text(j->s, name, value));
}

static void run(job *j)
{
    ck_assert_ok(llmmem_estimate(j->r, j->m, j->hw, j->s));
}

static void fails(job *j, const char *text)
{
    ck_assert_status(llmmem_estimate(j->r, j->m, j->hw, j->s), LLMMEM_ERR_INCOMPATIBLE);
    ck_assert_msg(strstr(llmmem_last_message(), text) != NULL, "'%s' lacks '%s'", llmmem_last_message(), text);
    ck_assert_int_eq(llmmem_report_valid(j->r), 0);
}

static void done(job *j)
{
    llmmem_report_free(j->r);
    llmmem_strategy_free(j->s);
    llmmem_hardware_free(j->hw);
    llmmem_model_free(j->m);
}

/* The model states of one rank of stage 0 (weights + gradients + master + optimizer), and its
 * communication buffers, without activations (a model given by its count has none). */
static uint64_t states(job *j, uint64_t *comm)
{
    llmmem__layout L;
    ck_assert_ok(llmmem__layout_make(&L, j->m, j->s, j->hw));
    llmmem__stage_report sr;
    llmmem__stage_parts parts;
    uint64_t host, nvme;
    llmmem__rank_costs rc;
    ck_assert_ok(llmmem__rank_costs_make(&rc, j->m, j->s, &L));
    ck_assert_ok(llmmem__stage_state(&sr, &host, &nvme, j->m, j->hw, j->s, &L, &rc, 0, &parts));
    if (comm)
        *comm = sr.bytes[LLMMEM_COMPONENT_COMM_BUFFERS];
    return sr.bytes[LLMMEM_COMPONENT_WEIGHTS] + sr.bytes[LLMMEM_COMPONENT_GRADIENTS] +
           sr.bytes[LLMMEM_COMPONENT_MASTER_WEIGHTS] + sr.bytes[LLMMEM_COMPONENT_OPTIMIZER_STATES];
}

/* Rajbhandari et al. 2019 (ZeRO) Figure 1 / §5: Ψ = 7.5B, N_d = 64, K = 12: P_os 2Ψ + 2Ψ + KΨ/N_d =
 * 31.4 GB, P_os+g 2Ψ + (2 + K)Ψ/N_d = 16.6 GB, P_os+g+p (2 + 2 + K)Ψ/N_d = 1.88 GB. */
START_TEST(zero_paper_figure_1)
{
    const uint64_t psi = 7500000000ULL;
    job j = make_count(psi);
    set(&j, "precision_recipe", "zero");
    set(&j, "data_parallel", "64");
    set(&j, "zero_stage", "1");
    ck_assert_uint_eq(states(&j, NULL), 2 * psi + 2 * psi + 12 * psi / 64); /* 31,406,250,000 */
    set(&j, "zero_stage", "2");
    ck_assert_uint_eq(states(&j, NULL), 2 * psi + 14 * psi / 64); /* 16,640,625,000 */
    set(&j, "zero_stage", "3");
    ck_assert_uint_eq(states(&j, NULL), 16 * psi / 64); /* 1,875,000,000 */
    done(&j);
}
END_TEST

/* DeepSpeed deepspeed/runtime/zero/stage_1_and_2.py estimate_zero2_model_states_mem_needs (no
 * offload): gpu_mem = 2 * total_params + int(18 * total_params / total_gpus); stage3.py
 * estimate_zero3_model_states_mem_needs: largest_layer_memory = 4 * largest_layer_params, gpu_mem =
 * largest_layer_memory + int(18 * total_params / total_gpus). For LlamaForCausalLM Llama-2-7B on one
 * node of 8 GPUs, model_to_params gives total_params 6,738,415,616 and largest_layer_params
 * 131,072,000 (embed_tokens, 32000 x 4096). The estimate matches with DeepSpeed's recipe (fp16
 * params and grads, fp32 grad copy, master and Adam) and its buckets left out. */
START_TEST(deepspeed_estimators)
{
    job j = make("llama-2-7b");
    set(&j, "precision_recipe", "deepspeed");
    set(&j, "data_parallel", "8");
    set(&j, "reduce_bucket_size", "0");
    set(&j, "allgather_bucket_size", "0");
    set(&j, "stage3_prefetch_bucket_size", "0");
    uint64_t comm;
    set(&j, "zero_stage", "2");
    ck_assert_uint_eq(states(&j, &comm) + comm, 2 * N7B + 18 * N7B / 8); /* 28,638,266,368 */
    set(&j, "zero_stage", "3");
    ck_assert_uint_eq(states(&j, &comm) + comm, 4 * 131072000ULL + 18 * N7B / 8); /* 15,685,723,136 */
    /* and the CPU bytes they print: additional_buffer_factor 1.5 over, without offload, the fp32
     * model every process of the node builds (ZeRO-2: 4 N x 8; ZeRO-3 with zero_init: 4 x the
     * largest module x 8); with offload, total_params x max(4 x total_gpus, 16) for ZeRO-2 and
     * 18 N / nodes for ZeRO-3 offloading parameters and optimizer (zero_init) */
    set(&j, "host_buffer_factor", "1.5");
    set(&j, "host_init", "full");
    set(&j, "zero_stage", "2");
    run(&j);
    ck_assert_uint_eq(llmmem_report_host_bytes(j.r), 4 * N7B * 8 * 3 / 2);
    set(&j, "offload_optimizer", "cpu");
    run(&j);
    ck_assert_uint_eq(llmmem_report_host_bytes(j.r), N7B * 32 * 3 / 2); /* max(4 x 8, 16) = 32 */
    ck_assert_uint_eq(states(&j, &comm) + comm, 2 * N7B);                /* GPU: 2 N */
    set(&j, "zero_stage", "3");
    set(&j, "host_init", "zero_init");
    set(&j, "offload_optimizer", "none");
    run(&j);
    ck_assert_uint_eq(llmmem_report_host_bytes(j.r), 4 * 131072000ULL * 8 * 3 / 2);
    set(&j, "offload_optimizer", "cpu");
    set(&j, "offload_param", "cpu");
    run(&j);
    ck_assert_uint_eq(llmmem_report_host_bytes(j.r), 18 * N7B * 3 / 2);
    ck_assert_uint_eq(states(&j, &comm) + comm, 4 * 131072000ULL); /* GPU: the largest layer */
    set(&j, "offload_optimizer", "none");
    set(&j, "offload_param", "none");
    set(&j, "host_init", "none");
    set(&j, "host_buffer_factor", "1");

    /* DeepSpeed's defaults add its buckets: reduce 5e8 and all-gather 5e8 elements of fp16 (ZeRO-2) */
    set(&j, "zero_stage", "2");
    set(&j, "reduce_bucket_size", "500000000");
    set(&j, "allgather_bucket_size", "500000000");
    states(&j, &comm);
    ck_assert_uint_eq(comm, 2 * 500000000ULL + 2 * 500000000ULL);
    done(&j);
}
END_TEST

/* Megatron-LM megatron/training/theoretical_memory_usage.py: the most loaded shard's parameters
 * (first stage: (layers / p of the TP-split block + V h) / t + the replicated norms) and 6 + 12/d
 * bytes a parameter with the distributed optimizer (docs dist_optimizer.md: bf16 params, fp32
 * grads). Llama-2-7B at t 2, p 2, d 4: (16 (4h^2 + 3hf) + Vh) / 2 + 16 x 2h = 1,684,668,416. The
 * last stage holds the LM head instead of the embedding, and the final norm (h) besides. */
START_TEST(megatron_distributed_optimizer)
{
    const uint64_t first = (16 * (4 * H * H + 3 * H * F) + V * H) / 2 + 16 * 2 * H;
    const uint64_t last = first + H;
    job j = make("llama-2-7b");
    set(&j, "tensor_parallel", "2");
    set(&j, "pipeline_parallel", "2");
    set(&j, "data_parallel", "4");
    set(&j, "distributed_optimizer", "true");
    run(&j);
    ck_assert_uint_eq(first, 1684668416ULL);
    ck_assert_uint_eq(llmmem_report_stage_count(j.r), 2);
    for (size_t stage = 0; stage < 2; stage++) {
        uint64_t n = stage ? last : first;
        ck_assert_uint_eq(llmmem_report_stage_bytes(j.r, stage, LLMMEM_COMPONENT_WEIGHTS), 2 * n);
        ck_assert_uint_eq(llmmem_report_stage_bytes(j.r, stage, LLMMEM_COMPONENT_GRADIENTS), 4 * n);
        ck_assert_uint_eq(llmmem_report_stage_bytes(j.r, stage, LLMMEM_COMPONENT_MASTER_WEIGHTS), 4 * n / 4);
        ck_assert_uint_eq(llmmem_report_stage_bytes(j.r, stage, LLMMEM_COMPONENT_OPTIMIZER_STATES), 8 * n / 4);
    }
    /* without the distributed optimizer: Megatron's 18 */
    set(&j, "distributed_optimizer", "false");
    run(&j);
    ck_assert_uint_eq(llmmem_report_stage_bytes(j.r, 0, LLMMEM_COMPONENT_OPTIMIZER_STATES), 8 * first);
    ck_assert_uint_eq(llmmem_report_stage_bytes(j.r, 0, LLMMEM_COMPONENT_MASTER_WEIGHTS), 4 * first);
    /* the JSON lists both stages and names the most loaded */
    char *json = NULL;
    ck_assert_ok(llmmem_report_to_json(&json, j.r));
    ck_assert_ptr_nonnull(strstr(json, "\"stages\": [\n    {\n      \"first_layer\": 0,\n      \"layers\": 16,"));
    ck_assert_ptr_nonnull(strstr(json, "\"most_loaded_stage\": "));
    llmmem_string_free(json);
    done(&j);
}
END_TEST

/* Narayanan et al. 2021 (1F1B): stage i keeps p - i micro-batches in flight, so the first stage
 * holds p x L/p = L layers' activations whatever p is (Korthikanti §4.2.3), plus p micro-batches'
 * token ids (8 bytes each). */
START_TEST(one_f_one_b_first_stage)
{
    job j = make("llama-2-7b");
    set(&j, "sequence_length", "4096");
    static const char *const stages[] = {"2", "4", "8"};
    static const uint64_t p[] = {2, 4, 8};
    for (int i = 0; i < 3; i++) {
        set(&j, "pipeline_parallel", stages[i]);
        run(&j);
        ck_assert_uint_eq(llmmem_report_stage_bytes(j.r, 0, LLMMEM_COMPONENT_ACTIVATIONS), 32 * LAYER_4K + p[i] * 8 * T4K);
        /* the last stage holds one micro-batch: its layers, the head's inputs and the loss */
        uint64_t last = 32 / p[i] * LAYER_4K + 2 * T4K * H * 2;
        ck_assert_uint_eq(llmmem_report_stage_bytes(j.r, p[i] - 1, LLMMEM_COMPONENT_ACTIVATIONS), last);
        ck_assert_uint_eq(llmmem_report_stage_bytes(j.r, p[i] - 1, LLMMEM_COMPONENT_LOGITS), T4K * V * (6 + 8));
    }
    /* fewer micro-batches than stages: p 4, m 2 holds 2 on the first stage */
    set(&j, "pipeline_parallel", "4");
    set(&j, "num_micro_batches", "2");
    run(&j);
    ck_assert_uint_eq(llmmem_report_stage_bytes(j.r, 0, LLMMEM_COMPONENT_ACTIVATIONS), 2 * 8 * LAYER_4K + 2 * 8 * T4K);
    /* GPipe keeps every micro-batch: 8 of them on every stage */
    set(&j, "num_micro_batches", "8");
    set(&j, "pipeline_schedule", "gpipe");
    run(&j);
    ck_assert_uint_eq(llmmem_report_stage_bytes(j.r, 0, LLMMEM_COMPONENT_ACTIVATIONS), 8 * 8 * LAYER_4K + 8 * 8 * T4K);
    done(&j);
}
END_TEST

/* Megatron-LM interleaved schedule, p 4, v 2: the first stage holds L (1 + (p - 1)/(p v)) =
 * 32 x 11/8 = 44 layers' activations (Korthikanti §4.2.3; schedules.py warm-up 2(p - 1) + (v - 1)p
 * chunk forwards + 1 = 11 chunks of 4 layers) and 11/2 micro-batches' token ids. */
START_TEST(interleaved_factor)
{
    job j = make("llama-2-7b");
    set(&j, "sequence_length", "4096");
    set(&j, "pipeline_parallel", "4");
    set(&j, "virtual_pipeline", "2");
    set(&j, "pipeline_schedule", "interleaved");
    run(&j);
    ck_assert_uint_eq(llmmem_report_stage_bytes(j.r, 0, LLMMEM_COMPONENT_ACTIVATIONS), 44 * LAYER_4K + 44 * T4K);
    uint64_t first, count;
    ck_assert_ok(llmmem_report_stage_layers(&first, &count, j.r, 1));
    ck_assert_uint_eq(first, 4); /* stage 1 holds chunks 1 and 5: layers 4-7 and 20-23 */
    ck_assert_uint_eq(count, 8);
    set(&j, "virtual_pipeline", "3");
    fails(&j, "interleaving needs num_hidden_layers (32) divisible by pipeline_parallel x virtual_pipeline (12)");
    done(&j);
}
END_TEST

/* KV heads replicated when fewer than t (Megatron-LM: each rank keeps one whole query group).
 * Llama-3.1-8B (h 4096, 32 heads of 128, 8 KV heads, SwiGLU 14336, vocab 128256, untied) at t 16,
 * bf16 inference: per rank q 256 x 4096, k and v 128 x 4096 each (one head, not 64 rows), o 4096 x
 * 256, gate and up 896 x 4096, down 4096 x 896, two norms of 4096 per layer; embedding and head
 * 8016 x 4096 each (128256 / 16), the final norm 4096. */
START_TEST(kv_head_replication)
{
    const uint64_t layer = 256 * H + 2 * 128 * H + H * 256 + 2 * 896 * H + H * 896 + 2 * H;
    job j = make("llama-3.1-8b");
    set(&j, "mode", "inference");
    set(&j, "tensor_parallel", "16");
    run(&j);
    ck_assert_uint_eq(llmmem_report_bytes(j.r, LLMMEM_COMPONENT_WEIGHTS), 2 * (32 * layer + 2 * 8016 * H + H));
    /* at t 8 each rank holds exactly one KV head: the same k and v, half of everything else */
    set(&j, "tensor_parallel", "8");
    run(&j);
    const uint64_t layer8 = 512 * H + 2 * 128 * H + H * 512 + 2 * 1792 * H + H * 1792 + 2 * H;
    ck_assert_uint_eq(llmmem_report_bytes(j.r, LLMMEM_COMPONENT_WEIGHTS), 2 * (32 * layer8 + 2 * 16032 * H + H));
    done(&j);
}
END_TEST

/* Korthikanti et al. 2022 Table 2 for the whole model: tensor + sequence parallelism with selective
 * recomputation keeps 34 sbh / t per layer; the hidden-sized tensors outside the layers split too
 * (the final norm's and head's inputs, 4sbh / t), the token ids (8 sb) do not. Context parallelism
 * halves every per-token tensor at c 2. */
START_TEST(sequence_and_context_parallel)
{
    const uint64_t s = 2048, h = 12288, sbh = s * h, t = 8;
    job j = make("llama-2-7b");
    llmmem_model_free(j.m);
    ck_assert_ok(llmmem_model_new(&j.m));
    ck_assert_ok(llmmem_model_set_text(j.m, "model_type", "gpt2"));
    ck_assert_ok(llmmem_model_set_text(j.m, "hidden_size", "12288"));
    ck_assert_ok(llmmem_model_set_text(j.m, "num_hidden_layers", "96"));
    ck_assert_ok(llmmem_model_set_text(j.m, "num_attention_heads", "96"));
    ck_assert_ok(llmmem_model_set_text(j.m, "vocab_size", "51200"));
    ck_assert_ok(llmmem_model_set_text(j.m, "max_position_embeddings", "2048"));
    set(&j, "sequence_length", "2048");
    set(&j, "flash_attention", "false");
    set(&j, "dropout", "true");
    set(&j, "recompute", "selective");
    set(&j, "tensor_parallel", "8");
    set(&j, "sequence_parallel", "true");
    run(&j);
    uint64_t extras = 8 * s + sbh / t + 2 * sbh / t + 2 * sbh / t; /* ids, embedding dropout mask, norm, head */
    ck_assert_uint_eq(llmmem_report_peak_part(j.r, LLMMEM_PEAK_ACTIVATIONS_HELD), 96 * 34 * sbh / t + extras);
    set(&j, "context_parallel", "2");
    run(&j);
    ck_assert_uint_eq(llmmem_report_peak_part(j.r, LLMMEM_PEAK_ACTIVATIONS_HELD),
                      96 * 34 * sbh / t / 2 + extras / 2);
    set(&j, "sequence_length", "2047");
    fails(&j, "sequence_length (2047) is not divisible by context_parallel (2)");
    done(&j);
}
END_TEST

/* ZeRO-Offload / ZeRO-Infinity: optimizer states, master weights and fp32 gradients to the host
 * (Ren et al. 2021: 16 bytes a parameter on the CPU), parameters to NVMe; per node = 8 devices x
 * one rank's share. Llama-2-7B, ZeRO recipe (fp16, K = 12), d 8: host 8 x 16Ψ/8 = 16Ψ, NVMe 2Ψ. */
START_TEST(offload_host_and_nvme)
{
    job j = make("llama-2-7b");
    set(&j, "sequence_length", "1024");
    set(&j, "precision_recipe", "zero");
    set(&j, "data_parallel", "8");
    set(&j, "zero_stage", "3");
    set(&j, "offload_optimizer", "cpu");
    set(&j, "offload_param", "nvme");
    run(&j);
    ck_assert_uint_eq(llmmem_report_host_bytes(j.r), 16 * N7B);
    ck_assert_uint_eq(llmmem_report_bytes(j.r, LLMMEM_COMPONENT_GRADIENTS), 0);
    ck_assert_uint_eq(llmmem_report_nvme_bytes(j.r), 2 * N7B);
    ck_assert_uint_eq(llmmem_report_bytes(j.r, LLMMEM_COMPONENT_WEIGHTS), 0);
    ck_assert_uint_eq(llmmem_report_bytes(j.r, LLMMEM_COMPONENT_OPTIMIZER_STATES), 0);
    ck_assert_int_eq(llmmem_report_fits(j.r), 1);
    /* a node with less host memory than that does not fit */
    ck_assert_ok(llmmem_hardware_set_int(j.hw, LLMMEM_KEY_HOST_MEMORY_BYTES, (int64_t)(16 * N7B - 1)));
    run(&j);
    ck_assert_int_eq(llmmem_report_fits(j.r), 0);
    set(&j, "zero_stage", "2");
    fails(&j, "offload_param needs zero_stage 3 (it is 2)");
    done(&j);
}
END_TEST

START_TEST(impossible_layouts)
{
    job j = make("llama-3.1-8b");
    set(&j, "tensor_parallel", "3");
    fails(&j, "num_attention_heads (32) is not divisible by tensor_parallel (3)");
    set(&j, "tensor_parallel", "1");
    set(&j, "pipeline_parallel", "3");
    fails(&j, "num_hidden_layers (32) is not divisible by pipeline_parallel (3); set pipeline_first_stage_layers");
    /* uneven stages as given: 10 layers first, the other 22 over two stages */
    set(&j, "pipeline_first_stage_layers", "10");
    run(&j);
    uint64_t first, count;
    ck_assert_ok(llmmem_report_stage_layers(&first, &count, j.r, 2));
    ck_assert_uint_eq(first, 21);
    ck_assert_uint_eq(count, 11);
    set(&j, "pipeline_parallel", "40");
    fails(&j, "pipeline_parallel (40) exceeds num_hidden_layers (32)");
    /* first and last stages take every layer: the message names the keys (issue 14) */
    set(&j, "pipeline_parallel", "4");
    set(&j, "pipeline_first_stage_layers", "16");
    set(&j, "pipeline_last_stage_layers", "16");
    fails(&j, "pipeline_parallel (4) leaves 2 stages without a layer: pipeline_first_stage_layers (16) and "
              "pipeline_last_stage_layers (16) take all of num_hidden_layers (32)");
    set(&j, "pipeline_last_stage_layers", "0");
    set(&j, "pipeline_parallel", "1");
    set(&j, "pipeline_first_stage_layers", "0");
    set(&j, "expert_parallel", "2");
    fails(&j, "expert_parallel (2) or expert_tensor_parallel (1) need a model with routed experts");
    set(&j, "expert_parallel", "1");
    set(&j, "zero_stage", "2");
    set(&j, "fsdp", "full_shard");
    fails(&j, "zero_stage (2), fsdp (1) and distributed_optimizer each shard data parallelism: set one");
    done(&j);

    job x = make("mixtral-8x7b");
    set(&x, "expert_parallel", "3");
    set(&x, "data_parallel", "3");
    fails(&x, "num_experts (8) is not divisible by expert_parallel (3)");
    set(&x, "expert_parallel", "4");
    fails(&x, "expert_parallel x expert_tensor_parallel (4) does not divide tensor_parallel x data_parallel x "
              "context_parallel (3)");
    done(&x);
}
END_TEST

/* Expert parallelism: Mixtral-8x7B's 8 experts over e 4 leave 2 per rank (each expert: gate, up
 * 14336 x 4096 and down 4096 x 14336, bf16), everything else whole at t 1. Megatron's expert
 * data-parallel size is t d c / (e et) = 8 / 4 = 2: with the distributed optimizer the experts'
 * optimizer states (8 bytes) are sharded over 2, the rest over 8. */
START_TEST(expert_parallel_sharding)
{
    const uint64_t expert = 3 * 14336 * H, experts_per_rank = 32 * 2 * expert;
    job j = make("mixtral-8x7b");
    set(&j, "expert_parallel", "4");
    set(&j, "data_parallel", "8");
    set(&j, "distributed_optimizer", "true");
    run(&j);
    uint64_t total = 0;
    ck_assert_ok(llmmem_model_total_parameters(&total, j.m));
    uint64_t all_experts = 32 * 8 * expert, dense = total - all_experts;
    ck_assert_uint_eq(llmmem_report_bytes(j.r, LLMMEM_COMPONENT_WEIGHTS), 2 * (dense + experts_per_rank));
    ck_assert_uint_eq(llmmem_report_bytes(j.r, LLMMEM_COMPONENT_OPTIMIZER_STATES),
                      8 * dense / 8 + 8 * experts_per_rank / 2);
    done(&j);
}
END_TEST

/* A report reused across estimates keeps what one tensor costs on a rank; any change to the model,
 * to a setting that prices a tensor, or to the split must give what a fresh report gives. */
START_TEST(reused_report_follows_changes)
{
    static const char *const steps[][2] = {
        {"tensor_parallel", "8"},       {"micro_batch_size", "2"}, {"optimizer", "adamw_8bit"},
        {"precision_recipe", "zero"},   {"expert_parallel", "4"},  {"expert_tensor_parallel", "1"},
        {"mode", "lora"},               {"lora_rank", "16"},       {"lora_targets", "q,v,experts"},
        {"weight_format", "fp8_e4m3"},  {"weight_format", "bnb_fp4"}, /* qlora needs a 4-bit base */
        {"mode", "qlora"},              {"mode", "inference"},
    };
    job j = make("mixtral-8x7b");
    set(&j, "pipeline_parallel", "2");
    set(&j, "data_parallel", "8");
    set(&j, "zero_stage", "1");
    llmmem_report *fresh;
    for (size_t i = 0; i <= sizeof steps / sizeof steps[0]; i++) {
        if (i == 2) /* a change of the model itself, with no pricing key changing */
            ck_assert_ok(llmmem_model_set_int(j.m, LLMMEM_KEY_MOE_INTERMEDIATE_SIZE, 8192));
        if (i > 0)
            set(&j, steps[i - 1][0], steps[i - 1][1]);
        run(&j); /* the same report every time */
        ck_assert_ok(llmmem_report_new(&fresh));
        ck_assert_ok(llmmem_estimate(fresh, j.m, j.hw, j.s));
        for (int c = 0; c < LLMMEM_COMPONENT_RUNTIME_OVERHEAD; c++)
            ck_assert_uint_eq(llmmem_report_bytes(j.r, (llmmem_component)c), llmmem_report_bytes(fresh, (llmmem_component)c));
        llmmem_report_free(fresh);
    }
    done(&j);
}
END_TEST

/* A reused report (its cost cache) equals a fresh one after a change of any strategy key to any
 * value it takes, in every mode: the cache is keyed by the resolved job (job.h llmmem__pricing), so
 * a key that prices a tensor cannot leave it stale. Every key of llmmem_key_at is visited. */
static void same_as_fresh(job *j)
{
    llmmem_report *fresh;
    char *a = NULL, *b = NULL;
    ck_assert_ok(llmmem_report_new(&fresh));
    llmmem_status reused = llmmem_estimate(j->r, j->m, j->hw, j->s);
    ck_assert_int_eq(reused, llmmem_estimate(fresh, j->m, j->hw, j->s));
    if (reused == LLMMEM_OK) {
        ck_assert_ok(llmmem_report_to_json(&a, j->r));
        ck_assert_ok(llmmem_report_to_json(&b, fresh));
        ck_assert_str_eq(a, b);
    }
    llmmem_string_free(a);
    llmmem_string_free(b);
    llmmem_report_free(fresh);
}

/* Values to try for an integer key: every choice, else a few around the current one. */
static size_t candidates(int64_t out[64], const llmmem__key_info *k, int64_t cur)
{
    size_t n = 0;
    if (k->type == LLMMEM_TYPE_CHOICE || k->type == LLMMEM_TYPE_BOOL) {
        for (int64_t v = k->min; v <= k->max && n < 64; v++)
            out[n++] = v;
        return n;
    }
    const int64_t tries[] = {cur + 1, cur * 2, cur / 2, k->min, cur - 1, 7};
    for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++)
        if (tries[i] >= k->min && tries[i] <= k->max && tries[i] != cur)
            out[n++] = tries[i];
    return n;
}

static void each_key_value(job *j)
{
    for (size_t i = 0; i < llmmem_key_count(); i++) {
        const llmmem__key_info *k = llmmem__key_info_get(llmmem_key_at(i));
        if (k->object != LLMMEM_OBJECT_STRATEGY || k->type == LLMMEM_TYPE_LIST) /* lists: set by text */
            continue;
        if (k->type == LLMMEM_TYPE_REAL) {
            double cur;
            ck_assert_ok(llmmem_strategy_get_real(&cur, j->s, k->key));
            if (llmmem_strategy_set_real(j->s, k->key, (cur + k->rmin) / 2) == LLMMEM_OK)
                same_as_fresh(j);
            ck_assert_ok(llmmem_strategy_set_real(j->s, k->key, cur));
            continue;
        }
        int64_t cur, values[64];
        ck_assert_ok(llmmem_strategy_get_int(&cur, j->s, k->key));
        size_t n = candidates(values, k, cur);
        for (size_t v = 0; v < n; v++)
            if (values[v] != cur && llmmem_strategy_set_int(j->s, k->key, values[v]) == LLMMEM_OK)
                same_as_fresh(j);
        ck_assert_ok(llmmem_strategy_set_int(j->s, k->key, cur));
        same_as_fresh(j); /* and back */
    }
}

START_TEST(reused_report_follows_every_key)
{
    static const char *const modes[] = {"training", "lora", "qlora", "inference"};
    for (size_t mode = 0; mode < sizeof modes / sizeof modes[0]; mode++) {
        job j = make("mixtral-8x7b");
        set(&j, "mode", modes[mode]);
        set(&j, "pipeline_parallel", "2");
        set(&j, "data_parallel", "8");
        set(&j, "tensor_parallel", "2");
        set(&j, "zero_stage", "1");
        same_as_fresh(&j);
        each_key_value(&j);
        done(&j);
    }
}
END_TEST

/* The same on one device and on whole replicas (plain data parallelism): the cache then keeps the
 * whole model's state, keyed the same way. */
START_TEST(reused_report_follows_every_key_on_one_device)
{
    static const char *const modes[] = {"training", "lora", "qlora", "inference"};
    for (size_t mode = 0; mode < sizeof modes / sizeof modes[0]; mode++) {
        job j = make("mixtral-8x7b");
        set(&j, "mode", modes[mode]);
        set(&j, "data_parallel", "2");
        same_as_fresh(&j);
        each_key_value(&j);
        done(&j);
    }
}
END_TEST

/* Bytes sent per step that exceed 64 bits are an overflow, never a wrapped count (issue 14: 2^40
 * micro-batches on llama-3.1-70b at t 8, p 4, d 2 returned OK with 0 tensor and pipeline bytes:
 * 2^40 x the per-micro-batch bytes wrapped to 0 mod 2^64). */
START_TEST(communication_overflow)
{
    job j = make("llama-3.1-70b");
    set(&j, "tensor_parallel", "8");
    set(&j, "pipeline_parallel", "4");
    set(&j, "data_parallel", "2");
    set(&j, "num_micro_batches", "1099511627776");
    ck_assert_status(llmmem_estimate(j.r, j.m, j.hw, j.s), LLMMEM_ERR_OVERFLOW);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "links per step exceed 64 bits (num_micro_batches "
                                                        "1099511627776"));
    ck_assert_int_eq(llmmem_report_valid(j.r), 0);
    set(&j, "num_micro_batches", "8"); /* the same layout with a real schedule is fine */
    run(&j);
    ck_assert_uint_gt(llmmem_report_comm_bytes(j.r, LLMMEM_COMM_TENSOR), 0);
    ck_assert_uint_gt(llmmem_report_comm_bytes(j.r, LLMMEM_COMM_PIPELINE), 0);
    done(&j);
}
END_TEST

/* Frozen first layers under pipeline parallelism: Llama-2-7B on 2 stages with frozen_layers 8, the
 * first stage trains its layers 8-15 and the embedding (a layer is 4h^2 + 3hf + 2h = 202,383,360
 * parameters), the second all of its 16 layers, the final norm and the head (Megatron's 18: 2 bytes
 * of weights for every parameter, 4 of gradients for the trained ones). */
START_TEST(frozen_layers_per_stage)
{
    const uint64_t layer = 4 * H * H + 3 * H * F + 2 * H, embed = V * H;
    job j = make("llama-2-7b");
    set(&j, "pipeline_parallel", "2");
    set(&j, "frozen_layers", "8");
    run(&j);
    ck_assert_uint_eq(llmmem_report_stage_bytes(j.r, 0, LLMMEM_COMPONENT_WEIGHTS), 2 * (16 * layer + embed));
    ck_assert_uint_eq(llmmem_report_stage_bytes(j.r, 0, LLMMEM_COMPONENT_GRADIENTS), 4 * (8 * layer + embed));
    ck_assert_uint_eq(llmmem_report_stage_bytes(j.r, 1, LLMMEM_COMPONENT_GRADIENTS), 4 * (16 * layer + H + embed));
    set(&j, "frozen_layers", "0");
    run(&j);
    ck_assert_uint_eq(llmmem_report_stage_bytes(j.r, 0, LLMMEM_COMPONENT_GRADIENTS), 4 * (16 * layer + embed));
    done(&j);
}
END_TEST

/* The most loaded stage's parts are its own: DeepSeek-V3's first three layers are dense, so with one
 * layer on the first stage the middle stages differ (stage 1: two dense and 18 MoE layers, stage 2:
 * 20 MoE layers) and are each computed; stage 1 is the most loaded, and its trained parameters and
 * data-parallel volume are its own, not those of stage 2 computed after it. */
START_TEST(most_loaded_stage_keeps_its_parts)
{
    job j = make("deepseek-v3");
    set(&j, "tensor_parallel", "8");
    set(&j, "pipeline_parallel", "4");
    set(&j, "pipeline_first_stage_layers", "1");
    set(&j, "data_parallel", "8");
    set(&j, "expert_parallel", "8");
    set(&j, "zero_stage", "1");
    run(&j);
    ck_assert_uint_eq(llmmem_report_most_loaded_stage(j.r), 1);
    llmmem__layout L;
    ck_assert_ok(llmmem__layout_make(&L, j.m, j.s, j.hw));
    llmmem__rank_costs rc;
    ck_assert_ok(llmmem__rank_costs_make(&rc, j.m, j.s, &L));
    llmmem__stage_report sr;
    llmmem__stage_parts one, two;
    uint64_t host, nvme;
    ck_assert_ok(llmmem__stage_state(&sr, &host, &nvme, j.m, j.hw, j.s, &L, &rc, 1, &one));
    ck_assert_ok(llmmem__stage_state(&sr, &host, &nvme, j.m, j.hw, j.s, &L, &rc, 2, &two));
    const uint64_t trained = one.dense.trainable + one.experts.trainable;
    ck_assert_uint_ne(trained, two.dense.trainable + two.experts.trainable);
    ck_assert_uint_eq(llmmem_report_trainable_parameters(j.r), trained);
    /* plain ring over the 8 data-parallel ranks: 2 x 7/8 of the rank's 16-bit gradients */
    ck_assert_uint_eq(llmmem_report_comm_bytes(j.r, LLMMEM_COMM_DATA), one.params * 2 / 8 * 7 * 2);
    done(&j);
}
END_TEST

/* The trace an estimate records for llmmem_explain is what the estimate computed: the most loaded
 * stage's parts before sharding and their divisors, one micro-batch's activations and the
 * micro-batches in flight; recording it changes nothing in the report. */
/* An estimate recording its trace, as explain and the timeline run it. */
static llmmem_status estimate_traced(llmmem_report *r, const llmmem_model *m, const llmmem_hardware *hw, const llmmem_strategy *s,
                                     llmmem__cost_cache *cache, llmmem__trace *tr)
{
    llmmem__job own;
    const llmmem__job *jb;
    llmmem_status st = llmmem__job_resolve(&jb, &own, cache ? &cache->jobs : NULL, m, hw, s, NULL);
    return st ? st : llmmem__estimate_job(r, jb, llmmem_hardware_name(hw), cache, tr, 0);
}

START_TEST(trace_is_what_the_estimate_computed)
{
    job j = make("deepseek-v3");
    set(&j, "tensor_parallel", "8");
    set(&j, "pipeline_parallel", "4");
    set(&j, "pipeline_first_stage_layers", "1");
    set(&j, "data_parallel", "8");
    set(&j, "expert_parallel", "8");
    set(&j, "zero_stage", "1");
    llmmem__trace tr;
    char *traced = NULL, *plain = NULL;
    ck_assert_ok(estimate_traced(j.r, j.m, j.hw, j.s, NULL, &tr));
    ck_assert_ok(llmmem_report_to_json(&traced, j.r));
    run(&j);
    ck_assert_ok(llmmem_report_to_json(&plain, j.r));
    ck_assert_str_eq(traced, plain);
    llmmem_string_free(traced);
    llmmem_string_free(plain);
    /* stage 1 of 4 under 1F1B holds 3 micro-batches; ZeRO-1 over 8 ranks divides the dense
     * optimizer state, the experts' data-parallel group is 8 x 8 / (8 x 8) = 1 rank */
    ck_assert_uint_eq(llmmem_report_most_loaded_stage(j.r), 1);
    ck_assert_uint_eq(tr.first_layer, 1);
    ck_assert_uint_eq(tr.layers, 20);
    ck_assert_uint_eq(tr.in_flight_num, 3);
    ck_assert_uint_eq(tr.in_flight_den, 1);
    ck_assert_uint_eq(3 * tr.unit_held, llmmem_report_peak_part(j.r, LLMMEM_PEAK_ACTIVATIONS_HELD));
    ck_assert_uint_eq(tr.part[0].divisor[LLMMEM_COMPONENT_WEIGHTS], 1);
    ck_assert_uint_eq(tr.part[0].divisor[LLMMEM_COMPONENT_OPTIMIZER_STATES], 8);
    ck_assert_uint_eq(tr.part[1].divisor[LLMMEM_COMPONENT_OPTIMIZER_STATES], 1);
    ck_assert_uint_eq(tr.part[0].trained + tr.part[1].trained, llmmem_report_trainable_parameters(j.r));
    for (int c = LLMMEM_COMPONENT_WEIGHTS; c <= LLMMEM_COMPONENT_OPTIMIZER_STATES; c++)
        ck_assert_uint_eq(llmmem_report_bytes(j.r, (llmmem_component)c),
                          (tr.part[0].bytes[c] + tr.part[0].divisor[c] - 1) / tr.part[0].divisor[c] +
                              (tr.part[1].bytes[c] + tr.part[1].divisor[c] - 1) / tr.part[1].divisor[c]);
    done(&j);

    /* one device's inference: the whole model, its KV cache a token's bytes x tokens x sequences */
    j = make("llama-3.1-8b");
    set(&j, "mode", "inference");
    set(&j, "micro_batch_size", "3");
    ck_assert_ok(estimate_traced(j.r, j.m, j.hw, j.s, j.r->cache, &tr));
    ck_assert_int_eq(tr.kv_heads, 1);
    ck_assert_int_eq(tr.kv_whole, 1);
    ck_assert_uint_eq(tr.kv_token_bytes, 131072); /* 32 layers x 8 KV heads x 128 x K and V x 2 bytes */
    ck_assert_uint_eq(tr.kv_token_bytes * tr.tokens * tr.sequences, llmmem_report_bytes(j.r, LLMMEM_COMPONENT_KV_CACHE));
    ck_assert_uint_eq(tr.part[0].params, llmmem_report_total_parameters(j.r));
    ck_assert_uint_eq(tr.part[0].bytes[LLMMEM_COMPONENT_WEIGHTS], llmmem_report_bytes(j.r, LLMMEM_COMPONENT_WEIGHTS));
    done(&j);
}
END_TEST

static Suite *parallel_suite(void)
{
    Suite *s = suite_create("parallel");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, zero_paper_figure_1);
    tcase_add_test(tc, deepspeed_estimators);
    tcase_add_test(tc, megatron_distributed_optimizer);
    tcase_add_test(tc, one_f_one_b_first_stage);
    tcase_add_test(tc, interleaved_factor);
    tcase_add_test(tc, kv_head_replication);
    tcase_add_test(tc, sequence_and_context_parallel);
    tcase_add_test(tc, offload_host_and_nvme);
    tcase_add_test(tc, impossible_layouts);
    tcase_add_test(tc, expert_parallel_sharding);
    tcase_add_test(tc, reused_report_follows_changes);
    tcase_add_test(tc, reused_report_follows_every_key);
    tcase_add_test(tc, reused_report_follows_every_key_on_one_device);
    tcase_add_test(tc, frozen_layers_per_stage);
    tcase_add_test(tc, communication_overflow);
    tcase_add_test(tc, most_loaded_stage_keeps_its_parts);
    tcase_add_test(tc, trace_is_what_the_estimate_computed);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(parallel_suite());
}
