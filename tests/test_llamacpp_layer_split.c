/* Local inference, where llama.cpp puts the weights: a GGUF header's tensors split over GPUs and
 * the CPU by n_gpu_layers and tensor_split, each device's bytes derived by hand from the tensors
 * written, following ggml-org/llama.cpp src/llama-model.cpp load_tensors (a5bb8ba, Jan 2026):
 *   i_gpu_start = max(n_layer + 1 - n_gpu_layers, 0), act_gpu_layers = min(n_gpu_layers, n_layer + 1);
 *   layer il (il == n_layer: the output layer) is on the CPU when il < i_gpu_start or
 *   il - i_gpu_start >= act_gpu_layers, else on the first GPU whose normalised cumulative split
 *   exceeds (il - i_gpu_start) / act_gpu_layers; the input layer (token_embd) is always on the CPU;
 *   a model without output.weight uses token_embd there (TENSOR_DUPLICATED: a copy on a GPU).
 * And the same split from a preset's inventory when no GGUF is given. */
#include "gguf_writer.h"

/* Bytes per block, ggml-common.h: Q4_K 144 per 256 weights, Q6_K 210 per 256 */
#define Q4K 144u
#define Q6K 210u

/* Per layer (hidden 256, 2 heads of 128, 1 KV head, MLP 512): two f32 norms of 256, q and o
 * 256 x 256, k and v 128 x 256, gate and up 512 x 256 in Q4_K (one block per 256-wide row), down
 * 256 rows of 512 (two blocks each). */
#define LAYER_BYTES (2u * 256u * 4u + (256u + 128u + 128u + 256u + 512u + 512u + 256u * 2u) * Q4K)
#define EMBD_BYTES (8u * Q4K)        /* token_embd: 8 rows of 256 */
#define OUTPUT_BYTES (8u * Q6K)      /* output: 8 rows of 256 in Q6_K */
#define OUTPUT_NORM_BYTES (256u * 4u)

static void tiny(buf *b, int layers, int with_output)
{
    start(b, 3);
    kv_str(b, "general.architecture", "llama");
    kv_str(b, "general.name", "tiny");
    kv_u64(b, "llama.context_length", 4096);
    kv_u32(b, "llama.embedding_length", 256);
    kv_u32(b, "llama.block_count", (uint32_t)layers);
    kv_u32(b, "llama.feed_forward_length", 512);
    kv_u32(b, "llama.rope.dimension_count", 128);
    kv_u32(b, "llama.attention.head_count", 2);
    kv_u32(b, "llama.attention.head_count_kv", 1);
    kv_f32(b, "llama.attention.layer_norm_rms_epsilon");
    kv_tokens(b, 8);
    tensor(b, "token_embd.weight", Q4_K, EMBD_BYTES, DIMS(256, 8));
    for (int l = 0; l < layers; l++) {
        char n[64];
#define NAME(x) (snprintf(n, sizeof n, "blk.%d." x, l), n)
        tensor(b, NAME("attn_norm.weight"), F32, 256 * 4, DIMS(256));
        tensor(b, NAME("attn_q.weight"), Q4_K, 256 * Q4K, DIMS(256, 256));
        tensor(b, NAME("attn_k.weight"), Q4_K, 128 * Q4K, DIMS(256, 128));
        tensor(b, NAME("attn_v.weight"), Q4_K, 128 * Q4K, DIMS(256, 128));
        tensor(b, NAME("attn_output.weight"), Q4_K, 256 * Q4K, DIMS(256, 256));
        tensor(b, NAME("ffn_norm.weight"), F32, 256 * 4, DIMS(256));
        tensor(b, NAME("ffn_gate.weight"), Q4_K, 512 * Q4K, DIMS(256, 512));
        tensor(b, NAME("ffn_up.weight"), Q4_K, 512 * Q4K, DIMS(256, 512));
        tensor(b, NAME("ffn_down.weight"), Q4_K, 256 * 2 * Q4K, DIMS(512, 256));
#undef NAME
    }
    if (with_output)
        tensor(b, "output.weight", Q6_K, OUTPUT_BYTES, DIMS(256, 8));
    tensor(b, "output_norm.weight", F32, OUTPUT_NORM_BYTES, DIMS(256));
    done(b);
}

typedef struct run {
    llmmem_checkpoint *ck;
    llmmem_model *m;
    llmmem_hardware *hw;
    llmmem_strategy *s;
    llmmem_local *r;
    buf b;
} run;

static void open_run(run *x, int layers, int with_output, int gpus)
{
    tiny(&x->b, layers, with_output);
    ck_assert_ok(llmmem_checkpoint_from_gguf_bytes(&x->ck, x->b.p, x->b.len));
    ck_assert_ok(llmmem_checkpoint_model(&x->m, x->ck));
    ck_assert_ok(llmmem_hardware_from_preset(&x->hw, "rtx-4090"));
    ck_assert_ok(llmmem_hardware_set_int(x->hw, LLMMEM_KEY_DEVICES_PER_NODE, gpus));
    ck_assert_ok(llmmem_strategy_new(&x->s));
    ck_assert_ok(llmmem_strategy_set_text(x->s, "engine", "llama.cpp"));
    ck_assert_ok(llmmem_local_new(&x->r));
}

static void close_run(run *x)
{
    llmmem_local_free(x->r);
    llmmem_strategy_free(x->s);
    llmmem_hardware_free(x->hw);
    llmmem_model_free(x->m);
    llmmem_checkpoint_free(x->ck);
    free(x->b.p);
}

static void estimate(run *x)
{
    ck_assert_ok(llmmem_local_estimate(x->r, x->m, x->ck, x->hw, x->s));
}

static uint64_t model_bytes(const run *x, size_t device)
{
    return llmmem_local_bytes(x->r, device, LLMMEM_LOCAL_MODEL);
}

/* 4 layers, n_gpu_layers 3 on two GPUs: the layers are 0..4, the output layer 4; i_gpu_start
 * 5 - 3 = 2, act_gpu_layers 3, splits {0.5, 1}: layer 2 (0/3) and layer 3 (1/3) on CUDA0, the output
 * layer (2/3) on CUDA1; layers 0 and 1 stay on the CPU with token_embd. */
START_TEST(gguf_partial_offload_two_gpus)
{
    run x;
    open_run(&x, 4, 1, 2);
    ck_assert_ok(llmmem_strategy_set_int(x.s, LLMMEM_KEY_N_GPU_LAYERS, 3));
    estimate(&x);
    ck_assert_uint_eq(llmmem_local_device_count(x.r), 3);
    ck_assert_str_eq(llmmem_local_device_name(x.r, 0), "CUDA0");
    ck_assert_str_eq(llmmem_local_device_name(x.r, 2), "CPU");
    ck_assert_uint_eq(model_bytes(&x, 0), 2 * LAYER_BYTES);
    ck_assert_uint_eq(model_bytes(&x, 1), OUTPUT_BYTES + OUTPUT_NORM_BYTES);
    ck_assert_uint_eq(model_bytes(&x, 2), 2 * LAYER_BYTES + EMBD_BYTES);
    ck_assert_uint_eq(llmmem_local_device_layers(x.r, 0), 2);
    ck_assert_uint_eq(llmmem_local_device_layers(x.r, 1), 0);
    ck_assert_uint_eq(llmmem_local_device_layers(x.r, 2), 2);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_N_GPU_LAYERS), 3);
    /* each device's KV: f16 K and V rows of 1 head x 128 = 512 bytes a cell and layer, 4096 cells
     * (n_ctx 0: the GGUF's context_length 4096, a multiple of 256) */
    ck_assert_uint_eq(llmmem_local_bytes(x.r, 0, LLMMEM_LOCAL_KV), 2u * 512u * 4096u);
    ck_assert_uint_eq(llmmem_local_bytes(x.r, 1, LLMMEM_LOCAL_KV), 0);
    ck_assert_uint_eq(llmmem_local_bytes(x.r, 2, LLMMEM_LOCAL_KV), 2u * 512u * 4096u);
    /* n_gpu_layers 1: the output layer alone, at 0/1 on the first GPU */
    ck_assert_ok(llmmem_strategy_set_int(x.s, LLMMEM_KEY_N_GPU_LAYERS, 1));
    estimate(&x);
    ck_assert_uint_eq(model_bytes(&x, 0), OUTPUT_BYTES + OUTPUT_NORM_BYTES);
    ck_assert_uint_eq(model_bytes(&x, 1), 0);
    ck_assert_uint_eq(model_bytes(&x, 2), 4 * LAYER_BYTES + EMBD_BYTES);
    close_run(&x);
}
END_TEST

/* Every layer and the output: act_gpu_layers 5, layers at 0, 0.2, 0.4 on CUDA0, layer 3 (0.6) and
 * the output (0.8) on CUDA1; token_embd alone on the CPU. With tensor_split 3,1 (splits {0.75, 1})
 * all four layers are on CUDA0 and the output alone on CUDA1. */
START_TEST(gguf_full_offload_and_tensor_split)
{
    run x;
    open_run(&x, 4, 1, 2);
    estimate(&x); /* n_gpu_layers -1: all */
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_N_GPU_LAYERS), 5);
    ck_assert_uint_eq(model_bytes(&x, 0), 3 * LAYER_BYTES);
    ck_assert_uint_eq(model_bytes(&x, 1), LAYER_BYTES + OUTPUT_BYTES + OUTPUT_NORM_BYTES);
    ck_assert_uint_eq(model_bytes(&x, 2), EMBD_BYTES);
    ck_assert_ok(llmmem_strategy_set_text(x.s, "tensor_split", "3,1"));
    estimate(&x);
    ck_assert_uint_eq(model_bytes(&x, 0), 4 * LAYER_BYTES);
    ck_assert_uint_eq(model_bytes(&x, 1), OUTPUT_BYTES + OUTPUT_NORM_BYTES);
    ck_assert_uint_eq(llmmem_local_device_layers(x.r, 1), 0);
    /* n_gpu_layers 99 is all of them too */
    ck_assert_ok(llmmem_strategy_set_int(x.s, LLMMEM_KEY_N_GPU_LAYERS, 99));
    estimate(&x);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_N_GPU_LAYERS), 5);
    ck_assert_uint_eq(model_bytes(&x, 0), 4 * LAYER_BYTES);
    close_run(&x);
}
END_TEST

/* No output.weight: llama.cpp duplicates token_embd as the output onto the output layer's GPU, and
 * the CPU keeps its own (mapped) token_embd; with nothing offloaded there is one copy. */
START_TEST(gguf_tied_output_duplicated_on_gpu)
{
    run x;
    open_run(&x, 4, 0, 1);
    estimate(&x);
    ck_assert_uint_eq(model_bytes(&x, 0), 4 * LAYER_BYTES + OUTPUT_NORM_BYTES + EMBD_BYTES);
    ck_assert_uint_eq(model_bytes(&x, 1), EMBD_BYTES);
    ck_assert_ok(llmmem_strategy_set_int(x.s, LLMMEM_KEY_N_GPU_LAYERS, 0));
    estimate(&x);
    ck_assert_uint_eq(model_bytes(&x, 0), 0);
    ck_assert_uint_eq(model_bytes(&x, 1), 4 * LAYER_BYTES + EMBD_BYTES + OUTPUT_NORM_BYTES);
    ck_assert_uint_eq(llmmem_local_get(x.r, LLMMEM_LOCAL_N_GPU_LAYERS), 0);
    close_run(&x);
}
END_TEST

/* split_mode none: one GPU (main_gpu) takes every offloaded layer; a tensor_split longer than the
 * GPUs, split_mode row and a main_gpu past the GPUs are refused by name. */
START_TEST(gguf_split_mode_none_and_refusals)
{
    run x;
    open_run(&x, 4, 1, 2);
    ck_assert_ok(llmmem_strategy_set_text(x.s, "split_mode", "none"));
    ck_assert_ok(llmmem_strategy_set_int(x.s, LLMMEM_KEY_MAIN_GPU, 1));
    estimate(&x);
    ck_assert_uint_eq(llmmem_local_device_count(x.r), 2);
    ck_assert_str_eq(llmmem_local_device_name(x.r, 0), "CUDA1");
    ck_assert_uint_eq(model_bytes(&x, 0), 4 * LAYER_BYTES + OUTPUT_BYTES + OUTPUT_NORM_BYTES);
    ck_assert_ok(llmmem_strategy_set_int(x.s, LLMMEM_KEY_MAIN_GPU, 2));
    ck_assert_status(llmmem_local_estimate(x.r, x.m, x.ck, x.hw, x.s), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "main_gpu (2)"));
    ck_assert_int_eq(llmmem_local_valid(x.r), 0);
    ck_assert_ok(llmmem_strategy_set_text(x.s, "split_mode", "row"));
    ck_assert_status(llmmem_local_estimate(x.r, x.m, x.ck, x.hw, x.s), LLMMEM_ERR_UNSUPPORTED);
    ck_assert_ok(llmmem_strategy_set_text(x.s, "split_mode", "layer"));
    ck_assert_ok(llmmem_strategy_set_text(x.s, "tensor_split", "1,1,1"));
    ck_assert_status(llmmem_local_estimate(x.r, x.m, x.ck, x.hw, x.s), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "tensor_split has 3 values for 2 GPUs"));
    close_run(&x);
}
END_TEST

/* tensor_split as text and as values: its count is the key's integer; bad lists are refused whole. */
START_TEST(tensor_split_list_key)
{
    llmmem_strategy *s = NULL;
    double v[16];
    size_t n = 99;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_get_list(v, 16, &n, s, LLMMEM_KEY_TENSOR_SPLIT));
    ck_assert_uint_eq(n, 0);
    ck_assert_ok(llmmem_strategy_set_text(s, "tensor_split", "0.6/0.4"));
    ck_assert_ok(llmmem_strategy_get_list(v, 16, &n, s, LLMMEM_KEY_TENSOR_SPLIT));
    ck_assert_uint_eq(n, 2);
    ck_assert(v[0] == 0.6 && v[1] == 0.4);
    int64_t count = 0;
    ck_assert_ok(llmmem_strategy_get_int(&count, s, LLMMEM_KEY_TENSOR_SPLIT));
    ck_assert_int_eq(count, 2);
    static const char *const bad[] = {"3,", ",1", "3,,1", "a,b", "-1,2", "0,0", "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(llmmem_strategy_set_text(s, "tensor_split", bad[i]) != LLMMEM_OK, "'%s' accepted", bad[i]);
        ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "tensor_split"));
    }
    ck_assert_ok(llmmem_strategy_get_list(v, 1, &n, s, LLMMEM_KEY_TENSOR_SPLIT)); /* unchanged */
    ck_assert_uint_eq(n, 2);
    ck_assert_status(llmmem_strategy_set_int(s, LLMMEM_KEY_TENSOR_SPLIT, 2), LLMMEM_ERR_INVALID_ARGUMENT);
    const double three[] = {3, 1, 0};
    ck_assert_ok(llmmem_strategy_set_list(s, LLMMEM_KEY_TENSOR_SPLIT, three, 3));
    ck_assert_ok(llmmem_strategy_get_list(v, 16, &n, s, LLMMEM_KEY_TENSOR_SPLIT));
    ck_assert_uint_eq(n, 3);
    ck_assert_ok(llmmem_strategy_set_text(s, "tensor_split", ""));
    ck_assert_ok(llmmem_strategy_get_list(NULL, 0, &n, s, LLMMEM_KEY_TENSOR_SPLIT));
    ck_assert_uint_eq(n, 0);
    ck_assert_status(llmmem_strategy_get_list(v, 16, &n, s, LLMMEM_KEY_N_CTX), LLMMEM_ERR_UNKNOWN_KEY);
    llmmem_strategy_free(s);
}
END_TEST

/* tensor_split holds what llama.cpp holds: each value as a float, read by std::stof (common/arg.cpp
 * -ts), which refuses a value that underflows (1e-50 to 0, 1e-40 and 1e-38 to subnormals; the
 * smallest normal float, FLT_MIN, is 1.17549435e-38). 1e-50,1e-50 was accepted as doubles and
 * split as floats: 0 / 0 split points put every layer on the last GPU. Small normal floats split
 * as their ratio: 3e-30,1e-30 as 3,1 (all four layers on CUDA0, the output on CUDA1). */
START_TEST(tensor_split_as_llama_reads_it)
{
    run x;
    open_run(&x, 4, 1, 2);
    ck_assert_status(llmmem_strategy_set_text(x.s, "tensor_split", "1e-50,1e-50"), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_str_eq(llmmem_last_message(), "tensor_split: value 1 (1e-50) is neither 0 nor a float of at least "
                                            "1.17549e-38 (llama.cpp reads each value as a float, with std::stof, "
                                            "and refuses it)");
    static const double refused[] = {1e-40, 1e-38, 1.1754942e-38};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        ck_assert_status(llmmem_strategy_set_list(x.s, LLMMEM_KEY_TENSOR_SPLIT, &refused[i], 1),
                         LLMMEM_ERR_OUT_OF_RANGE);
    const double smallest[] = {1.17549435e-38, 0};
    ck_assert_ok(llmmem_strategy_set_list(x.s, LLMMEM_KEY_TENSOR_SPLIT, smallest, 2));
    ck_assert_ok(llmmem_strategy_set_text(x.s, "tensor_split", "3e-30,1e-30"));
    estimate(&x);
    ck_assert_uint_eq(model_bytes(&x, 0), 4 * LAYER_BYTES);
    ck_assert_uint_eq(model_bytes(&x, 1), OUTPUT_BYTES + OUTPUT_NORM_BYTES);
    close_run(&x);
}
END_TEST

/* Without a GGUF: Llama-3.1-8B from the preset in bf16 (config.json: hidden 4096, 32 layers, 32
 * heads, 8 KV heads, intermediate 14336, vocab 128256, untied). A layer is q and o 4096^2, k and v
 * 1024 x 4096, gate, up and down 14336 x 4096, two norms of 4096: 218,112,000 parameters, 436,224,000
 * bytes. n_gpu_layers 16: i_gpu_start 33 - 16 = 17, so layers 17..31 and the output layer (head and
 * final norm) on the GPU; layers 0..16 and the embedding (128256 x 4096) on the CPU. */
START_TEST(inventory_partial_offload)
{
    llmmem_model *m = NULL;
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_local *r = NULL;
    ck_assert_ok(llmmem_model_from_preset(&m, "llama-3.1-8b"));
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "rtx-4090"));
    ck_assert_ok(llmmem_hardware_set_int(hw, LLMMEM_KEY_DEVICES_PER_NODE, 1));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_N_GPU_LAYERS, 16));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_N_CTX, 4096));
    ck_assert_ok(llmmem_local_new(&r));
    ck_assert_ok(llmmem_local_estimate(r, m, NULL, hw, s)); /* engine auto: llama.cpp */
    const uint64_t layer = 436224000u, embd = 128256ull * 4096 * 2;
    ck_assert_uint_eq(llmmem_local_bytes(r, 0, LLMMEM_LOCAL_MODEL), 15 * layer + embd + 4096 * 2);
    ck_assert_uint_eq(llmmem_local_bytes(r, 1, LLMMEM_LOCAL_MODEL), 17 * layer + embd);
    /* KV: 8 heads x 128 in f16, K and V, 4096 cells, per layer on its device */
    ck_assert_uint_eq(llmmem_local_bytes(r, 0, LLMMEM_LOCAL_KV), 15ull * 2 * 1024 * 2 * 4096);
    ck_assert_uint_eq(llmmem_local_bytes(r, 1, LLMMEM_LOCAL_KV), 17ull * 2 * 1024 * 2 * 4096);
    /* all layers and the output: the head on the GPU, the embedding alone on the CPU */
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_N_GPU_LAYERS, -1));
    ck_assert_ok(llmmem_local_estimate(r, m, NULL, hw, s));
    ck_assert_uint_eq(llmmem_local_bytes(r, 0, LLMMEM_LOCAL_MODEL), 32 * layer + embd + 4096 * 2);
    ck_assert_uint_eq(llmmem_local_bytes(r, 1, LLMMEM_LOCAL_MODEL), embd);
    ck_assert_ok(llmmem_strategy_set_text(s, "engine", "vllm"));
    ck_assert_status(llmmem_local_estimate(r, m, NULL, hw, s), LLMMEM_ERR_INVALID_ARGUMENT);
    llmmem_local_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
}
END_TEST

/* A result handle keeps the weights it priced for its next estimate: a changed weight format or model
 * is priced anew. Llama-3.1-8B with 16 layers offloaded: GPU 0 holds 15 layers, the head and the final
 * norm (436,224,000, 1,050,673,152 and 8,192 bytes in bf16); fp32 doubles each. intermediate_size 7168
 * makes a layer 2 x (2 x 4096^2 + 2 x 1024 x 4096 + 3 x 7168 x 4096 + 2 x 4096) = 260,063,232 bf16 bytes. */
START_TEST(inventory_repriced_on_change)
{
    llmmem_model *m = NULL;
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_local *r = NULL;
    ck_assert_ok(llmmem_model_from_preset(&m, "llama-3.1-8b"));
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "rtx-4090"));
    ck_assert_ok(llmmem_hardware_set_int(hw, LLMMEM_KEY_DEVICES_PER_NODE, 1));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_N_GPU_LAYERS, 16));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_N_CTX, 4096));
    ck_assert_ok(llmmem_local_new(&r));
    const uint64_t head = 128256ull * 4096 * 2, gpu = 15 * 436224000ull + head + 4096 * 2;
    ck_assert_ok(llmmem_local_estimate(r, m, NULL, hw, s));
    ck_assert_uint_eq(llmmem_local_bytes(r, 0, LLMMEM_LOCAL_MODEL), gpu);
    ck_assert_ok(llmmem_strategy_set_text(s, "weight_format", "fp32"));
    ck_assert_ok(llmmem_local_estimate(r, m, NULL, hw, s));
    ck_assert_uint_eq(llmmem_local_bytes(r, 0, LLMMEM_LOCAL_MODEL), 2 * gpu);
    ck_assert_ok(llmmem_model_set_int(m, LLMMEM_KEY_INTERMEDIATE_SIZE, 7168));
    ck_assert_ok(llmmem_local_estimate(r, m, NULL, hw, s));
    ck_assert_uint_eq(llmmem_local_bytes(r, 0, LLMMEM_LOCAL_MODEL), 2 * (15 * 260063232ull + head + 4096 * 2));
    llmmem_local_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
}
END_TEST

/* llama-server --fit (on by default) with n_ctx and n_gpu_layers left unset, Llama-3.1-8B in bf16
 * (layer 436,224,000 bytes; embedding and head 128256 x 4096 x 2 = 1,050,673,152 each; final norm
 * 8,192; KV 32 layers x 2 x 1024 x 2 = 131,072 bytes a cell; the output device's compute buffer is
 * the f32 logits and input of 512 tokens, (128256 + 4096) x 512 x 4 = 271,056,896, larger than a
 * layer's 72 MiB). A GPU may hold its memory less 512 MiB (runtime_overhead_bytes) and 1 GiB (the
 * fit target).
 * rtx-4090, 24 GiB: capacity 24,159,191,040; all 33 layers take 32 x 436,224,000 + 1,050,681,344 +
 * 271,056,896 = 15,280,906,240, leaving 8,878,284,800 for 67,736.0 cells: the context 131,072 is
 * lowered to 67,584 (264 x 256), every layer kept.
 * rtx-3060-12gb: capacity 11,274,289,152; not even 4096 cells fit with every layer, so the context
 * is 4096 (16 MiB of KV a layer) and the layers are lowered: k layers and the output take
 * k x 453,001,216 + 1,321,738,240, so k = 21, n_gpu_layers 22. */
START_TEST(fit_lowers_context_then_layers)
{
    llmmem_model *m = NULL;
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_local *r = NULL;
    ck_assert_ok(llmmem_model_from_preset(&m, "llama-3.1-8b"));
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "rtx-4090"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_local_new(&r));
    ck_assert_ok(llmmem_local_estimate(r, m, NULL, hw, s));
    ck_assert_uint_eq(llmmem_local_get(r, LLMMEM_LOCAL_N_CTX), 67584);
    ck_assert_uint_eq(llmmem_local_get(r, LLMMEM_LOCAL_N_GPU_LAYERS), 33);
    ck_assert_uint_eq(llmmem_local_device_total(r, 0), 15280906240ull + 67584ull * 131072);
    /* the host keeps only what it keeps whatever the offload (the embedding): a fit though its RAM is unknown */
    ck_assert_uint_eq(llmmem_local_device_layers(r, 1), 0);
    ck_assert_uint_eq(llmmem_local_get(r, LLMMEM_LOCAL_FITS), 1);
    ck_assert_uint_eq(llmmem_local_get(r, LLMMEM_LOCAL_HOST_UNKNOWN), 0);
    /* without fit: the training context, which does not fit */
    ck_assert_ok(llmmem_strategy_set_text(s, "fit", "false"));
    ck_assert_ok(llmmem_local_estimate(r, m, NULL, hw, s));
    ck_assert_uint_eq(llmmem_local_get(r, LLMMEM_LOCAL_N_CTX), 131072);
    ck_assert_uint_eq(llmmem_local_get(r, LLMMEM_LOCAL_FITS), 0);
    /* a context the user gives is kept */
    ck_assert_ok(llmmem_strategy_set_text(s, "fit", "true"));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_N_CTX, 100000));
    ck_assert_ok(llmmem_local_estimate(r, m, NULL, hw, s));
    ck_assert_uint_eq(llmmem_local_get(r, LLMMEM_LOCAL_N_CTX), 100096); /* padded to 256 */
    ck_assert_uint_lt(llmmem_local_get(r, LLMMEM_LOCAL_N_GPU_LAYERS), 33); /* the layers give way */
    /* ...to the host, whose RAM the rtx-4090 preset does not state (issue 28: "fits" with the layers
     * in a host of unknown size): the GPU keeps its margin, the verdict is unknown, not a fit */
    ck_assert_uint_gt(llmmem_local_device_layers(r, 1), 0);
    ck_assert_uint_eq(llmmem_local_device_capacity(r, 1), 0);
    ck_assert_uint_eq(llmmem_local_get(r, LLMMEM_LOCAL_FITS), 0);
    ck_assert_uint_eq(llmmem_local_get(r, LLMMEM_LOCAL_HOST_UNKNOWN), 1);
    ck_assert_uint_eq(llmmem_local_get(r, LLMMEM_LOCAL_SHORTFALL), 0);
    /* a host RAM stated: checked. 1 GiB holds less than the embedding alone (1,050,673,152 bytes) and a
     * layer (436,224,000); 64 GiB holds the model's 16 GB whole */
    ck_assert_ok(llmmem_hardware_set_int(hw, LLMMEM_KEY_HOST_MEMORY_BYTES, 1LL << 30));
    ck_assert_ok(llmmem_local_estimate(r, m, NULL, hw, s));
    ck_assert_uint_eq(llmmem_local_get(r, LLMMEM_LOCAL_FITS), 0);
    ck_assert_uint_eq(llmmem_local_get(r, LLMMEM_LOCAL_HOST_UNKNOWN), 0);
    ck_assert_uint_eq(llmmem_local_get(r, LLMMEM_LOCAL_SHORTFALL), llmmem_local_device_total(r, 1) - (1ull << 30));
    ck_assert_ok(llmmem_hardware_set_int(hw, LLMMEM_KEY_HOST_MEMORY_BYTES, 64LL << 30));
    ck_assert_ok(llmmem_local_estimate(r, m, NULL, hw, s));
    ck_assert_uint_eq(llmmem_local_get(r, LLMMEM_LOCAL_FITS), 1);
    ck_assert_uint_eq(llmmem_local_get(r, LLMMEM_LOCAL_HOST_UNKNOWN), 0);
    llmmem_hardware_free(hw);
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "rtx-3060-12gb"));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_N_CTX, 0));
    ck_assert_ok(llmmem_local_estimate(r, m, NULL, hw, s));
    ck_assert_uint_eq(llmmem_local_get(r, LLMMEM_LOCAL_N_CTX), 4096);
    ck_assert_uint_eq(llmmem_local_get(r, LLMMEM_LOCAL_N_GPU_LAYERS), 22);
    ck_assert_uint_eq(llmmem_local_device_total(r, 0), 21ull * 453001216 + 1321738240);
    llmmem_local_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
}
END_TEST

/* ---- llama.cpp's own bounds (issue 34) ---------------------------------------------------------- */

/* Llama-3.1-8B (preset; KV 131,072 bytes a cell in f16, weights 16,060,522,496 bytes in bf16) on
 * one GPU of `memory` bytes, engine llama.cpp, fit off unless `fit`. */
typedef struct job {
    llmmem_model *m;
    llmmem_hardware *hw;
    llmmem_strategy *s;
    llmmem_local *r;
} job;

static void open_job(job *j, int64_t memory)
{
    ck_assert_ok(llmmem_model_from_preset(&j->m, "llama-3.1-8b"));
    ck_assert_ok(llmmem_hardware_from_preset(&j->hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_hardware_set_int(j->hw, LLMMEM_KEY_MEMORY_BYTES, memory));
    ck_assert_ok(llmmem_strategy_new(&j->s));
    ck_assert_ok(llmmem_strategy_set_text(j->s, "engine", "llama.cpp"));
    ck_assert_ok(llmmem_local_new(&j->r));
}

static void close_job(job *j)
{
    llmmem_local_free(j->r);
    llmmem_strategy_free(j->s);
    llmmem_hardware_free(j->hw);
    llmmem_model_free(j->m);
}

static uint64_t local_value(job *j, llmmem_local_value v)
{
    ck_assert_ok(llmmem_local_estimate(j->r, j->m, NULL, j->hw, j->s));
    return llmmem_local_get(j->r, v);
}

/* The keys' bounds are llama.cpp's: at most LLAMA_MAX_SEQ (256) sequences (src/llama-cparams.h;
 * llama-context.cpp throws "n_seq_max must be <= 256"), and the options common/arg.cpp reads with
 * std::stoi at most INT32_MAX. n_parallel 16384 estimated "n_ctx 0, KV 0, fits" (fit lowered n_ctx
 * to 4096, 0 cells a sequence); n_parallel 0 divided by zero (llama_context takes max(1, 0)). */
START_TEST(llama_bounds_are_llamas)
{
    static const struct {
        const char *name;
        int64_t min, max;
    } bounds[] = {
        {"n_parallel", -1, 256},        {"n_ctx", 0, 2147483647},       {"n_batch", 1, 2147483647},
        {"n_ubatch", 1, 2147483647},    {"n_gpu_layers", -1, 2147483647}, {"n_cpu_moe", 0, 2147483647},
        {"num_parallel", 1, 256},       {"num_ctx", 0, 2147483647},     {"num_batch", 0, 2147483647},
        {"num_gpu", -1, 2147483647},
    };
    for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++) {
        llmmem_key key;
        int64_t lo, hi;
        ck_assert_ok(llmmem_key_from_name(&key, bounds[i].name));
        ck_assert_ok(llmmem_key_bounds(&lo, &hi, key));
        ck_assert_msg(lo == bounds[i].min && hi == bounds[i].max, "%s: [%lld, %lld]", bounds[i].name, (long long)lo,
                      (long long)hi);
    }
    job j;
    open_job(&j, 80 * GIB);
    ck_assert_status(llmmem_strategy_set_text(j.s, "n_parallel", "16384"), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_str_eq(llmmem_last_message(), "n_parallel (16384) is out of range [-1, 256]");
    ck_assert_status(llmmem_strategy_set_text(j.s, "n_ctx", "2147483648"), LLMMEM_ERR_OUT_OF_RANGE);
    /* 256 sequences of the training context 131072: n_ctx_seq 131072 / 256 = 512 cells each */
    ck_assert_ok(llmmem_strategy_set_int(j.s, LLMMEM_KEY_N_PARALLEL, 256));
    ck_assert_uint_eq(local_value(&j, LLMMEM_LOCAL_N_CTX_SEQ), 512);
    ck_assert_uint_eq(llmmem_local_get(j.r, LLMMEM_LOCAL_KV_BYTES), 131072ull * 131072);
    /* n_parallel 0: one sequence */
    ck_assert_ok(llmmem_strategy_set_int(j.s, LLMMEM_KEY_N_PARALLEL, 0));
    ck_assert_uint_eq(local_value(&j, LLMMEM_LOCAL_N_SEQ_MAX), 1);
    ck_assert_uint_eq(llmmem_local_get(j.r, LLMMEM_LOCAL_N_CTX_SEQ), 131072);
    close_job(&j);
}
END_TEST

/* llama-context.cpp llama_context: with causal attention n_batch = min(n_ctx, n_batch), n_ctx as
 * given (before its padding to 256), then n_ubatch = min(n_batch, n_ubatch). */
START_TEST(llama_batch_within_the_context)
{
    job j;
    open_job(&j, 80 * GIB);
    ck_assert_ok(llmmem_strategy_set_int(j.s, LLMMEM_KEY_N_CTX, 300));
    ck_assert_uint_eq(local_value(&j, LLMMEM_LOCAL_N_BATCH), 300);
    ck_assert_uint_eq(llmmem_local_get(j.r, LLMMEM_LOCAL_N_UBATCH), 300);
    ck_assert_uint_eq(llmmem_local_get(j.r, LLMMEM_LOCAL_N_CTX), 512);
    ck_assert_ok(llmmem_strategy_set_int(j.s, LLMMEM_KEY_N_CTX, 1000));
    ck_assert_ok(llmmem_strategy_set_int(j.s, LLMMEM_KEY_N_BATCH, 2147483647));
    ck_assert_uint_eq(local_value(&j, LLMMEM_LOCAL_N_BATCH), 1000);
    ck_assert_uint_eq(llmmem_local_get(j.r, LLMMEM_LOCAL_N_UBATCH), 512);
    close_job(&j);
}
END_TEST

/* The solvers answer values llama.cpp takes, and search only those. Most sequences: n_ctx 256 a
 * sequence (131,072 x 256 = 32 MiB of KV each), 80 GiB: 256 fit (8 GiB of KV beside 16 GB of
 * weights), and 256 is llama.cpp's most; the search went on to 65536 and answered 15646. */
START_TEST(llama_max_parallel_is_llamas)
{
    job j;
    open_job(&j, 80 * GIB);
    ck_assert_ok(llmmem_strategy_set_text(j.s, "fit", "false"));
    ck_assert_ok(llmmem_strategy_set_int(j.s, LLMMEM_KEY_N_CTX, 256));
    int64_t answer = -1;
    ck_assert_ok(llmmem_local_solve(&answer, LLMMEM_LOCAL_MAX_PARALLEL, j.m, NULL, j.hw, j.s));
    ck_assert_int_eq(answer, 256);
    close_job(&j);
}
END_TEST

/* Longest context: 256 sequences and a model context of 2^24 give a search up to 2^32 cells; with
 * a GPU of 2^50 bytes, 2^31 - 1 cells (2^48 bytes of KV) fit, and 2147483647 is the longest -c
 * llama.cpp reads: the search answered 4294967296 (and with n_parallel 65536 failed whole, "n_ctx
 * (4294967297) is out of range"). */
START_TEST(llama_max_context_in_range)
{
    job j;
    open_job(&j, 1LL << 50);
    ck_assert_ok(llmmem_model_set_int(j.m, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS, 1LL << 24));
    ck_assert_ok(llmmem_strategy_set_int(j.s, LLMMEM_KEY_N_PARALLEL, 256));
    int64_t answer = -1;
    ck_assert_ok(llmmem_local_solve(&answer, LLMMEM_LOCAL_MAX_CONTEXT, j.m, NULL, j.hw, j.s));
    ck_assert_int_eq(answer, 2147483647);
    ck_assert_ok(llmmem_strategy_set_int(j.s, LLMMEM_KEY_N_CTX, answer));
    ck_assert_uint_eq(local_value(&j, LLMMEM_LOCAL_FITS), 1);
    ck_assert_uint_eq(llmmem_local_get(j.r, LLMMEM_LOCAL_N_CTX), 1ull << 31); /* padded: 2^23 cells x 256 */
    close_job(&j);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("llamacpp_layer_split");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, gguf_partial_offload_two_gpus);
    tcase_add_test(tc, gguf_full_offload_and_tensor_split);
    tcase_add_test(tc, gguf_tied_output_duplicated_on_gpu);
    tcase_add_test(tc, gguf_split_mode_none_and_refusals);
    tcase_add_test(tc, tensor_split_list_key);
    tcase_add_test(tc, tensor_split_as_llama_reads_it);
    tcase_add_test(tc, inventory_partial_offload);
    tcase_add_test(tc, inventory_repriced_on_change);
    tcase_add_test(tc, fit_lowers_context_then_layers);
    suite_add_tcase(s, tc);
    TCase *bounds = tcase_create("bounds");
    tcase_add_test(bounds, llama_bounds_are_llamas);
    tcase_add_test(bounds, llama_batch_within_the_context);
    tcase_add_test(bounds, llama_max_parallel_is_llamas);
    tcase_add_test(bounds, llama_max_context_in_range);
    suite_add_tcase(s, bounds);
    return run_suite(s);
}
