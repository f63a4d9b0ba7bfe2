/* config.json reader: published configs load to the counts of their presets (which
 * test_param_counts.c checks against the publishers' figures) or to a publisher's own count; every
 * malformed or unmodelled config fails with its status and a message naming the file and field.
 *
 * Fixtures (tests/data/configs) are the config.json files published with each checkpoint on the
 * Hugging Face Hub, named after the repository: openai-community/gpt2, facebook/opt-1.3b,
 * bigscience/bloom-560m, EleutherAI/pythia-1b, tiiuae/falcon-7b, meta-llama/Llama-2-7b-hf,
 * meta-llama/Llama-3.1-8B, mistralai/Mistral-7B-v0.1, mistralai/Mixtral-8x7B-v0.1, Qwen/Qwen2.5-7B,
 * Qwen/Qwen3-8B, Qwen/Qwen3-30B-A3B, google/gemma-2-9b, microsoft/Phi-3-mini-4k-instruct,
 * deepseek-ai/DeepSeek-V2-Lite, deepseek-ai/DeepSeek-V3, google/gemma-3-4b-pt,
 * llava-hf/llava-1.5-7b-hf, Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4 and Qwen/Qwen2.5-7B-Instruct-AWQ. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "readers/readfile.h"
#include "unit.h"

#ifndef LLMMEM_TEST_DATA
#define LLMMEM_TEST_DATA "tests/data"
#endif

static llmmem_status load_fixture(llmmem_model **m, const char *file)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/configs/%s", LLMMEM_TEST_DATA, file);
    return llmmem_model_from_hf_config(m, path);
}

static llmmem_status load_text(llmmem_model **m, const char *json)
{
    return llmmem_model_from_hf_config_text(m, json, strlen(json));
}

static int64_t get(const llmmem_model *m, llmmem_key key)
{
    int64_t v = -1;
    ck_assert_ok(llmmem_model_get_int(&v, m, key));
    return v;
}

static uint64_t total(const llmmem_model *m)
{
    uint64_t n = 0;
    ck_assert_ok(llmmem_model_total_parameters(&n, m));
    return n;
}

/* Every parameter group and the active count of the config's model equal the preset's. */
enum { SAME_SHAPES = 0, SAME_DTYPE = 1, SAME_QUANTIZATION = 2, SAME_ALL = 3 };

static void expect_same_as_preset(const char *file, const char *preset, unsigned same)
{
    llmmem_model *from_file = NULL, *from_preset = NULL;
    ck_assert_ok(load_fixture(&from_file, file));
    ck_assert_ok(llmmem_model_from_preset(&from_preset, preset));
    for (size_t g = 0; g < llmmem_param_group_count(); g++) {
        uint64_t a = 0, b = 0;
        ck_assert_ok(llmmem_model_parameters(&a, from_file, (llmmem_param_group)g));
        ck_assert_ok(llmmem_model_parameters(&b, from_preset, (llmmem_param_group)g));
        ck_assert_msg(a == b, "%s: %s parameters %llu, preset %s %llu", file,
                      llmmem_param_group_name((llmmem_param_group)g), (unsigned long long)a, preset,
                      (unsigned long long)b);
    }
    uint64_t a = 0, b = 0;
    ck_assert_ok(llmmem_model_active_parameters(&a, from_file));
    ck_assert_ok(llmmem_model_active_parameters(&b, from_preset));
    ck_assert_msg(a == b, "%s: active %llu, preset %llu", file, (unsigned long long)a, (unsigned long long)b);
    /* the attention shape, which the KV cache follows */
    static const llmmem_key shape[] = {LLMMEM_KEY_HIDDEN_SIZE, LLMMEM_KEY_NUM_HIDDEN_LAYERS,
                                       LLMMEM_KEY_NUM_ATTENTION_HEADS, LLMMEM_KEY_VOCAB_SIZE,
                                       LLMMEM_KEY_KV_LORA_RANK, LLMMEM_KEY_TIE_WORD_EMBEDDINGS};
    for (size_t i = 0; i < sizeof shape / sizeof shape[0]; i++)
        ck_assert_msg(get(from_file, shape[i]) == get(from_preset, shape[i]), "%s: %s %lld, preset %lld", file,
                      llmmem_key_name(shape[i]), (long long)get(from_file, shape[i]),
                      (long long)get(from_preset, shape[i]));
    int64_t kv_file = get(from_file, LLMMEM_KEY_NUM_KEY_VALUE_HEADS);
    int64_t kv_preset = get(from_preset, LLMMEM_KEY_NUM_KEY_VALUE_HEADS);
    if (kv_file == 0)
        kv_file = get(from_file, LLMMEM_KEY_NUM_ATTENTION_HEADS);
    if (kv_preset == 0)
        kv_preset = get(from_preset, LLMMEM_KEY_NUM_ATTENTION_HEADS);
    ck_assert_msg(kv_file == kv_preset, "%s: k/v heads %lld, preset %lld", file, (long long)kv_file,
                  (long long)kv_preset);
    /* the layers' attention (full, sliding and its window, chunked, state): one sequence's contiguous cache past
     * every window */
    llmmem_strategy *s = NULL;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_KV_CACHE_DTYPE, LLMMEM_KV_CACHE_BF16)); /* shapes, not dtypes */
    uint64_t cache_file = 0, cache_preset = 0;
    ck_assert_ok(llmmem_kv_cache_bytes(&cache_file, from_file, s, 1, 65536));
    ck_assert_ok(llmmem_kv_cache_bytes(&cache_preset, from_preset, s, 1, 65536));
    ck_assert_msg(cache_file == cache_preset, "%s: cache of 65,536 tokens %llu, preset %s %llu", file,
                  (unsigned long long)cache_file, preset, (unsigned long long)cache_preset);
    llmmem_strategy_free(s);
    if (same & SAME_QUANTIZATION)
        ck_assert_msg(get(from_file, LLMMEM_KEY_QUANTIZATION_FORMAT) ==
                          get(from_preset, LLMMEM_KEY_QUANTIZATION_FORMAT),
                      "%s: quantization_format %lld, preset %lld", file,
                      (long long)get(from_file, LLMMEM_KEY_QUANTIZATION_FORMAT),
                      (long long)get(from_preset, LLMMEM_KEY_QUANTIZATION_FORMAT));
    if (same & SAME_DTYPE)
        ck_assert_msg(get(from_file, LLMMEM_KEY_TORCH_DTYPE) == get(from_preset, LLMMEM_KEY_TORCH_DTYPE),
                      "%s: torch_dtype %s, preset %s", file,
                      llmmem_choice_name(LLMMEM_KEY_TORCH_DTYPE, get(from_file, LLMMEM_KEY_TORCH_DTYPE)),
                      llmmem_choice_name(LLMMEM_KEY_TORCH_DTYPE, get(from_preset, LLMMEM_KEY_TORCH_DTYPE)));
    llmmem_model_free(from_file);
    llmmem_model_free(from_preset);
}

/* ---- published configs ------------------------------------------------------------------------ */

START_TEST(one_config_per_family_matches_its_preset)
{
    expect_same_as_preset("gpt2.json", "gpt2", SAME_ALL); /* no torch_dtype: fp32, as the checkpoint */
    expect_same_as_preset("opt-1.3b.json", "opt-1.3b", SAME_ALL);
    expect_same_as_preset("pythia-1b.json", "pythia-1b", SAME_ALL);
    expect_same_as_preset("falcon-7b.json", "falcon-7b", SAME_ALL);
    expect_same_as_preset("llama-2-7b-hf.json", "llama-2-7b", SAME_ALL);
    expect_same_as_preset("llama-3.1-8b.json", "llama-3.1-8b", SAME_ALL);
    expect_same_as_preset("mistral-7b-v0.1.json", "mistral-7b-v0.1", SAME_ALL);
    expect_same_as_preset("mixtral-8x7b.json", "mixtral-8x7b", SAME_ALL);
    expect_same_as_preset("qwen2.5-7b.json", "qwen2.5-7b", SAME_ALL);
    expect_same_as_preset("qwen3-8b.json", "qwen3-8b", SAME_ALL);
    expect_same_as_preset("qwen3-30b-a3b.json", "qwen3-30b-a3b", SAME_ALL);
    expect_same_as_preset("gemma-2-9b.json", "gemma-2-9b", SAME_ALL);
    expect_same_as_preset("phi-3-mini-4k-instruct.json", "phi-3-mini-4k", SAME_ALL);
    expect_same_as_preset("deepseek-v2-lite.json", "deepseek-v2-lite", SAME_ALL);
    expect_same_as_preset("deepseek-v3.json", "deepseek-v3", SAME_ALL); /* and its fp8 128 x 128 blocks */
    expect_same_as_preset("gemma-3-4b-pt.json", "gemma-3-4b", SAME_ALL);
}
END_TEST

/* bigscience/bloom-560m's config names no torch_dtype: read as fp32, what transformers loads it
 * in, though the checkpoint is stored in fp16 (the preset's torch_dtype). */
START_TEST(bloom_without_torch_dtype)
{
    expect_same_as_preset("bloom-560m.json", "bloom-560m", SAME_QUANTIZATION);
    llmmem_model *m = NULL;
    ck_assert_ok(load_fixture(&m, "bloom-560m.json"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_TORCH_DTYPE), LLMMEM_FORMAT_FP32);
    ck_assert_int_eq(get(m, LLMMEM_KEY_TORCH_DTYPE_IN_CONFIG), 0); /* assumed, as vLLM's _find_dtype does */
    llmmem_model_free(m);
    /* bigscience/bloom-560m names no torch_dtype; Llama-3.1-8B's config names bfloat16 */
    ck_assert_ok(load_fixture(&m, "llama-3.1-8b.json"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_TORCH_DTYPE_IN_CONFIG), 1);
    llmmem_model_free(m);
}
END_TEST

/* google/gemma-3-4b-pt: 4,300,079,472 parameters (the Hub's safetensors total, as in
 * test_param_counts.c). Its text_config names only hidden_size, intermediate_size, num_hidden_layers
 * and sliding_window: Gemma3TextConfig's defaults give 8 heads of 256, 4 k/v heads, vocabulary
 * 262,208, a global layer every 6th; the SigLIP tower has no pooling head. */
START_TEST(gemma_3_4b_publisher_count)
{
    llmmem_model *m = NULL;
    ck_assert_ok(load_fixture(&m, "gemma-3-4b-pt.json"));
    ck_assert_uint_eq(total(m), 4300079472ULL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_GEMMA3_TEXT);
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_ATTENTION_HEADS), 8);
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_KEY_VALUE_HEADS), 4);
    ck_assert_int_eq(get(m, LLMMEM_KEY_HEAD_DIM), 256);
    ck_assert_int_eq(get(m, LLMMEM_KEY_VOCAB_SIZE), 262208);
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW), 1024);
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW_PATTERN), 6);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS), 131072);
    ck_assert_int_eq(get(m, LLMMEM_KEY_VISION_MODEL_TYPE), 2);
    ck_assert_int_eq(get(m, LLMMEM_KEY_VISION_USE_HEAD), 0);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MULTIMODAL_PROJECTOR), 2);
    ck_assert_int_eq(get(m, LLMMEM_KEY_TORCH_DTYPE), LLMMEM_FORMAT_BF16);
    llmmem_model_free(m);
}
END_TEST

/* llava-hf/llava-1.5-7b-hf: sum(p.numel() for p in model.parameters()) = 7,063,427,072, the
 * figure printed for LlavaForConditionalGeneration.from_pretrained("llava-hf/llava-1.5-7b-hf")
 * in public write-ups and asserted by LLaVA reimplementations. Its text_config names only
 * max_position_embeddings and vocab_size (32064): LlamaConfig's defaults give the Llama-2-7B
 * shapes. By hand: */
START_TEST(llava_1_5_7b_publisher_count)
{
    const uint64_t h = 4096, vh = 1024, vi = 4096, vl = 24;
    /* Llama-2-7B (test_param_counts.c) with 64 more vocabulary rows in the embedding and the LM head */
    const uint64_t text = 6738415616ULL + 2 * 64 * h;
    /* CLIPVisionModel ViT-L/14 at 336 px: patch conv without bias, class embedding, 24 x 24 + 1
     * positions, pre_layrnorm, 2 LayerNorms per layer, post_layernorm (weight and bias each),
     * biased q, k, v, out and fc1, fc2 */
    const uint64_t vision = vh * 3 * 14 * 14 + vh + (24 * 24 + 1) * vh + (2 * vl + 2) * 2 * vh +
                            vl * (4 * (vh * vh + vh) + vi * vh + vi + vh * vi + vh);
    /* LlavaMultiModalProjector: linear_1 1024 -> 4096, linear_2 4096 -> 4096, both biased */
    const uint64_t projector = h * vh + h + h * h + h;
    ck_assert_uint_eq(text + vision + projector, 7063427072ULL);

    llmmem_model *m = NULL;
    ck_assert_ok(load_fixture(&m, "llava-1.5-7b-hf.json"));
    ck_assert_uint_eq(total(m), 7063427072ULL);
    uint64_t n = 0;
    ck_assert_ok(llmmem_model_parameters(&n, m, LLMMEM_PARAMS_VISION));
    ck_assert_uint_eq(n, vision + projector);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_LLAMA);
    ck_assert_int_eq(get(m, LLMMEM_KEY_HIDDEN_SIZE), 4096);
    ck_assert_int_eq(get(m, LLMMEM_KEY_INTERMEDIATE_SIZE), 11008);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS), 4096);
    ck_assert_int_eq(get(m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS), 0);
    ck_assert_int_eq(get(m, LLMMEM_KEY_VISION_MODEL_TYPE), 1);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MULTIMODAL_PROJECTOR), 1);
    ck_assert_int_eq(get(m, LLMMEM_KEY_TORCH_DTYPE), LLMMEM_FORMAT_FP16);
    llmmem_model_free(m);
}
END_TEST

/* Qwen's GPTQ-Int4 and AWQ releases of Qwen2.5-7B-Instruct keep the base model's shapes. */
START_TEST(quantized_releases)
{
    expect_same_as_preset("qwen2.5-7b-instruct-gptq-int4.json", "qwen2.5-7b", SAME_SHAPES);
    expect_same_as_preset("qwen2.5-7b-instruct-awq.json", "qwen2.5-7b", SAME_SHAPES);
    llmmem_model *m = NULL;
    ck_assert_ok(load_fixture(&m, "qwen2.5-7b-instruct-gptq-int4.json"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_QUANTIZATION_FORMAT), LLMMEM_FORMAT_GPTQ_INT4);
    ck_assert_int_eq(get(m, LLMMEM_KEY_QUANTIZATION_GROUP_SIZE), 128);
    ck_assert_int_eq(get(m, LLMMEM_KEY_TORCH_DTYPE), LLMMEM_FORMAT_FP16);
    llmmem_model_free(m);
    ck_assert_ok(load_fixture(&m, "qwen2.5-7b-instruct-awq.json"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_QUANTIZATION_FORMAT), LLMMEM_FORMAT_AWQ_INT4);
    ck_assert_int_eq(get(m, LLMMEM_KEY_QUANTIZATION_GROUP_SIZE), 128);
    llmmem_model_free(m);
}
END_TEST

/* Fields beyond the counts: sliding windows as transformers applies them. */
START_TEST(published_sliding_windows)
{
    llmmem_model *m = NULL;
    /* Qwen2.5: sliding_window 131072 but use_sliding_window false: none */
    ck_assert_ok(load_fixture(&m, "qwen2.5-7b.json"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW), 0);
    ck_assert_int_eq(get(m, LLMMEM_KEY_QKV_BIAS), 1);
    ck_assert_int_eq(get(m, LLMMEM_KEY_O_PROJ_BIAS), 0);
    llmmem_model_free(m);
    /* Mistral-7B-v0.1: every layer slides over 4096 tokens */
    ck_assert_ok(load_fixture(&m, "mistral-7b-v0.1.json"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW), 4096);
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW_PATTERN), 0);
    llmmem_model_free(m);
    /* Gemma 2: even layers slide (Gemma2DecoderLayer), so every 2nd is global */
    ck_assert_ok(load_fixture(&m, "gemma-2-9b.json"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW), 4096);
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW_PATTERN), 2);
    ck_assert_int_eq(get(m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS), 1); /* Gemma2Config default */
    llmmem_model_free(m);
    /* Mixtral: sliding_window null */
    ck_assert_ok(load_fixture(&m, "mixtral-8x7b.json"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW), 0);
    llmmem_model_free(m);
}
END_TEST

/* A folder means its config.json; messages name the file. */
START_TEST(folders_and_files)
{
    llmmem_model *m = (llmmem_model *)&m;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/configs", LLMMEM_TEST_DATA);
    ck_assert_status(llmmem_model_from_hf_config(&m, dir), LLMMEM_ERR_IO);
    ck_assert_ptr_null(m);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "configs/config.json: cannot open"));

    char tmp[] = "/tmp/llmmem-hfconfig-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(tmp));
    char path[1100];
    snprintf(path, sizeof path, "%s/config.json", tmp);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\"model_type\": \"llama\", \"hidden_size\": 64, \"num_hidden_layers\": 2, \"num_attention_heads\": 4, "
          "\"vocab_size\": 100, \"intermediate_size\": 128}",
          f);
    fclose(f);
    ck_assert_ok(llmmem_model_from_hf_config(&m, tmp)); /* the folder */
    llmmem_model_free(m);
    ck_assert_ok(llmmem_model_from_hf_config(&m, path)); /* the file */
    llmmem_model_free(m);

    /* more than 4 MiB (LLMMEM_CONFIG_MAX_BYTES): refused before reading; 4 MiB is read */
    int fd = open(path, O_WRONLY | O_TRUNC);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, (off_t)(4 << 20) + 1), 0);
    close(fd);
    ck_assert_status(llmmem_model_from_hf_config(&m, path), LLMMEM_ERR_PARSE);
    ck_assert_ptr_nonnull(
        strstr(llmmem_last_message(), "config.json: 4194305 bytes is more than the 4194304 a config.json may have"));
    fd = open(path, O_WRONLY | O_TRUNC);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "{}", 2), 2);
    ck_assert_int_eq(ftruncate(fd, (off_t)(4 << 20)), 0); /* {} and NUL bytes: read, then not JSON */
    close(fd);
    ck_assert_status(llmmem_model_from_hf_config(&m, path), LLMMEM_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "config.json: not valid JSON: end of file expected"));
    /* a malformed file: the message starts with its path */
    f = fopen(path, "w");
    fputs("{\"model_type\": \"llama\", \"hidden_size\": true}", f);
    fclose(f);
    ck_assert_status(llmmem_model_from_hf_config(&m, path), LLMMEM_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "config.json: hidden_size: expected an integer, got true"));
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(rmdir(tmp), 0);

    ck_assert_status(llmmem_model_from_hf_config(&m, "/no/such/config.json"), LLMMEM_ERR_IO);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "/no/such/config.json: cannot open: no such file"));
    ck_assert_status(llmmem_model_from_hf_config(&m, NULL), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_model_from_hf_config(NULL, dir), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_model_from_hf_config_text(&m, NULL, 0), LLMMEM_ERR_INVALID_ARGUMENT);

    /* text over 4 MiB */
    size_t big = (4u << 20) + 1;
    char *text = malloc(big);
    ck_assert_ptr_nonnull(text);
    memset(text, ' ', big);
    ck_assert_status(llmmem_model_from_hf_config_text(&m, text, big), LLMMEM_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "<memory>: 4194305 bytes is more than the 4194304"));
    free(text);
}
END_TEST

#define SMALL_SHAPE "\"hidden_size\": 64, \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 100, \"intermediate_size\": 128"

/* A model read from a config.json is named by the path given, or (from memory) by _name_or_path
 * (issue 28: such jobs printed "(custom)"); the name is valid UTF-8, a long one keeps its end. */
START_TEST(names)
{
    llmmem_model *m = NULL;
    char path[1024];
    snprintf(path, sizeof path, "%s/configs/llama-2-7b-hf.json", LLMMEM_TEST_DATA);
    ck_assert_ok(llmmem_model_from_hf_config(&m, path)); /* the path wins over its _name_or_path */
    ck_assert_str_eq(llmmem_model_name(m), path);
    llmmem_model_free(m);

    ck_assert_ok(load_text(&m, "{\"_name_or_path\": \"meta-llama/Llama-2-7b-hf\", \"model_type\": \"llama\", " SMALL_SHAPE "}"));
    ck_assert_str_eq(llmmem_model_name(m), "meta-llama/Llama-2-7b-hf");
    llmmem_model_free(m);
    ck_assert_ok(load_text(&m, "{\"model_type\": \"llama\", " SMALL_SHAPE "}"));
    ck_assert_str_eq(llmmem_model_name(m), "");
    llmmem_model_free(m);
    /* not a string, or a control character: no name, or '?' in its place */
    ck_assert_ok(load_text(&m, "{\"_name_or_path\": 7, \"model_type\": \"llama\", " SMALL_SHAPE "}"));
    ck_assert_str_eq(llmmem_model_name(m), "");
    llmmem_model_free(m);
    ck_assert_ok(load_text(&m, "{\"_name_or_path\": \"a\\u0007b\\u00e9\", \"model_type\": \"llama\", " SMALL_SHAPE "}"));
    ck_assert_str_eq(llmmem_model_name(m), "a?b\xc3\xa9");
    llmmem_model_free(m);
    /* 261 bytes: 10 'x', 125 two-byte 'e' (U+00E9), 'y'. The name keeps 124 bytes after "...", less
     * the half of a character it would start in: the last 123 */
    char json[1024], name[320];
    size_t n = 0;
    for (int i = 0; i < 10; i++)
        name[n++] = 'x';
    for (int i = 0; i < 125; i++) {
        name[n++] = (char)0xC3;
        name[n++] = (char)0xA9;
    }
    name[n++] = 'y';
    name[n] = '\0';
    snprintf(json, sizeof json, "{\"_name_or_path\": \"%s\", \"model_type\": \"llama\", " SMALL_SHAPE "}", name);
    ck_assert_ok(load_text(&m, json));
    const char *got = llmmem_model_name(m);
    ck_assert_uint_eq(strlen(got), 3 + 123);
    ck_assert_int_eq(strncmp(got, "...", 3), 0);
    ck_assert_str_eq(got + 3, name + n - 123);
    llmmem_model_free(m);
}
END_TEST

/* ---- the brief's error cases: status, and a message naming the field ---------------------------- */

#define SMALL "\"hidden_size\": 64, \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 100"
#define LLAMA "{\"model_type\": \"llama\", " SMALL ", \"intermediate_size\": 128"
#define QWEN2_SMALL "{\"model_type\": \"qwen2\", " SMALL ", \"intermediate_size\": 128, \"num_key_value_heads\": 2"

static void expect_error(const char *json, llmmem_status status, const char *text)
{
    llmmem_model *m = (llmmem_model *)&m;
    llmmem_status st = load_text(&m, json);
    ck_assert_msg(st == status, "%s: %s (%s), expected %s", json, llmmem_status_str(st), llmmem_last_message(),
                  llmmem_status_str(status));
    ck_assert_ptr_null(m);
    ck_assert_msg(strstr(llmmem_last_message(), text) != NULL, "%s: message '%s' lacks '%s'", json,
                  llmmem_last_message(), text);
    ck_assert_msg(strncmp(llmmem_last_message(), "<memory>: ", 10) == 0, "message '%s'", llmmem_last_message());
}

START_TEST(errors_name_the_field)
{
    expect_error("{\"model_type\": \"rwkv\"}", LLMMEM_ERR_UNSUPPORTED, "model_type: 'rwkv' is not supported");
    expect_error("{\"hidden_size\": 64}", LLMMEM_ERR_INCOMPLETE, "model_type: is missing");
    expect_error("{\"model_type\": 7}", LLMMEM_ERR_PARSE, "model_type: expected a string, got an integer");
    expect_error("{\"model_type\": \"mistral\", \"num_hidden_layers\": 2, \"num_attention_heads\": 4, "
                 "\"vocab_size\": 10, \"intermediate_size\": 8}",
                 LLMMEM_ERR_INCOMPLETE, "hidden_size: is missing (required for model_type mistral)");
    expect_error("{\"model_type\": \"llama\", \"hidden_size\": null}", LLMMEM_ERR_INCOMPLETE, "hidden_size: is null");
    /* wrong JSON types */
    expect_error("{\"model_type\": \"llama\", \"hidden_size\": \"64\"}", LLMMEM_ERR_PARSE,
                 "hidden_size: expected an integer, got a string");
    expect_error("{\"model_type\": \"llama\", \"hidden_size\": 64.0}", LLMMEM_ERR_PARSE,
                 "hidden_size: expected an integer, got a real number");
    expect_error(LLAMA ", \"tie_word_embeddings\": 1}", LLMMEM_ERR_PARSE,
                 "tie_word_embeddings: expected true or false, got an integer");
    expect_error(LLAMA ", \"torch_dtype\": [\"bfloat16\"]}", LLMMEM_ERR_PARSE,
                 "torch_dtype: expected a string, got an array");
    expect_error(LLAMA ", \"quantization_config\": \"gptq\"}", LLMMEM_ERR_PARSE,
                 "quantization_config: expected an object, got a string");
    /* duplicate keys */
    expect_error("{\"model_type\": \"llama\", \"hidden_size\": 64, \"hidden_size\": 64}", LLMMEM_ERR_PARSE,
                 "duplicate object key (line 1, column 56)");
    /* an integer beyond 64 bits (1e30 written out) */
    expect_error("{\"model_type\": \"llama\", \"hidden_size\": 1000000000000000000000000000000}", LLMMEM_ERR_PARSE,
                 "too big integer (line 1, column 70)");
    /* in 64 bits but out of the key's bounds */
    expect_error("{\"model_type\": \"llama\", \"hidden_size\": -64}", LLMMEM_ERR_OUT_OF_RANGE,
                 "hidden_size: hidden_size (-64) is out of range");
    expect_error("{\"model_type\": \"gpt2\", \"n_embd\": 99999999999, \"n_layer\": 1}", LLMMEM_ERR_OUT_OF_RANGE,
                 "n_embd: hidden_size (99999999999) is out of range");
    /* truncated */
    expect_error("{\"model_type\": \"llama\", \"hidden_size\": 6", LLMMEM_ERR_PARSE, "not valid JSON");
    expect_error("{\"model_type\": \"llama\", ", LLMMEM_ERR_PARSE, "not valid JSON");
    expect_error("", LLMMEM_ERR_PARSE, "not valid JSON");
    expect_error("[1, 2]", LLMMEM_ERR_PARSE, "not a JSON object (the document is an array)");
    /* 100 levels of nesting in a field nobody reads */
    char deep[512] = LLAMA ", \"rope_scaling\": ";
    for (int i = 0; i < 100; i++)
        strcat(deep, "[");
    for (int i = 0; i < 100; i++)
        strcat(deep, "]");
    strcat(deep, "}");
    expect_error(deep, LLMMEM_ERR_PARSE, "rope_scaling: nested deeper than 32 levels");
    /* a non-periodic layer_types */
    expect_error("{\"model_type\": \"qwen3\", " SMALL ", \"intermediate_size\": 128, \"num_hidden_layers\": 3, "
                 "\"use_sliding_window\": true, \"sliding_window\": 16, "
                 "\"layer_types\": [\"full_attention\", \"sliding_attention\", \"full_attention\"]}",
                 LLMMEM_ERR_PARSE, "duplicate object key"); /* SMALL already names num_hidden_layers */
    /* a non-periodic layer_types loads as a per-layer map since issue 15 (test_families.c); an
     * entry that is neither kind is still refused */
    expect_error("{\"model_type\": \"qwen3\", \"hidden_size\": 64, \"num_hidden_layers\": 3, "
                 "\"num_attention_heads\": 4, \"vocab_size\": 100, \"intermediate_size\": 128, "
                 "\"use_sliding_window\": true, \"sliding_window\": 16, "
                 "\"layer_types\": [\"full_attention\", \"chunked_attention\", \"full_attention\"]}",
                 LLMMEM_ERR_UNSUPPORTED, "layer_types[1]: 'chunked_attention' is not supported");
    /* shapes each in bounds that do not make a model: the inventory's message */
    expect_error("{\"model_type\": \"llama\", \"hidden_size\": 64, \"num_hidden_layers\": 2, "
                 "\"num_attention_heads\": 5, \"vocab_size\": 100, \"intermediate_size\": 128}",
                 LLMMEM_ERR_INCOMPATIBLE, "hidden_size (64) is not divisible by num_attention_heads (5)");
}
END_TEST

/* A model_type the table lacks with a standard decoder's fields: the closest row by the fields
 * present and the keys that describe it, never a silent read. The fields are published configs'
 * (allenai/OLMoE-1B-7B-0924, allenai/OLMo-2-1124-7B, a Qwen2 MoE-shaped one with q/k norms); the
 * model_type is renamed (unlisted_*) so that a later row for the family keeps the case unknown. */
START_TEST(unknown_decoder_names_the_closest_family)
{
    /* OLMoE: num_experts without shared_expert_intermediate_size is Qwen3MoeConfig's MoE */
    expect_error("{\"model_type\": \"unlisted_olmoe\", \"hidden_size\": 2048, \"intermediate_size\": 1024, "
                 "\"num_hidden_layers\": 16, \"num_experts\": 64, \"num_experts_per_tok\": 8, "
                 "\"num_attention_heads\": 16, \"num_key_value_heads\": 16, \"vocab_size\": 50304, "
                 "\"tie_word_embeddings\": false, \"clip_qkv\": null, \"norm_topk_prob\": false}",
                 LLMMEM_ERR_UNSUPPORTED,
                 "<memory>: model_type: 'unlisted_olmoe' is not supported; its fields are a standard decoder's, "
                 "closest to qwen3_moe (MoE: num_experts): describe it with --set model_type=qwen3_moe "
                 "--set hidden_size=2048 --set num_hidden_layers=16 --set num_attention_heads=16 "
                 "--set num_key_value_heads=16 --set intermediate_size=1024 --set vocab_size=50304 "
                 "--set num_experts=64 --set num_experts_per_tok=8 --set tie_word_embeddings=0 (the model keys "
                 "of those names), checking what its modeling file adds (supported: llama, gpt2");
    /* OLMo 2: nothing beyond Llama's fields (its q/k norms are structural): llama, the first row */
    expect_error("{\"model_type\": \"unlisted_olmo2\", \"hidden_size\": 4096, \"intermediate_size\": 11008, "
                 "\"num_attention_heads\": 32, \"num_hidden_layers\": 32, \"num_key_value_heads\": 32, "
                 "\"vocab_size\": 100352, \"attention_bias\": false, \"tie_word_embeddings\": false, "
                 "\"max_position_embeddings\": 4096, \"torch_dtype\": \"float32\"}",
                 LLMMEM_ERR_UNSUPPORTED,
                 "closest to llama (a dense decoder with full attention and no biases): describe it with "
                 "--set model_type=llama --set hidden_size=4096");
    /* the fields that move it: Mistral's sliding_window on every layer, Mixtral's experts, MLA,
     * attention_bias and a q/k norm flag */
    expect_error("{\"model_type\": \"unlisted\", " SMALL ", \"intermediate_size\": 128, \"sliding_window\": 32, "
                 "\"num_key_value_heads\": 2}",
                 LLMMEM_ERR_UNSUPPORTED, "closest to mistral (sliding window: sliding_window)");
    expect_error("{\"model_type\": \"unlisted\", " SMALL ", \"intermediate_size\": 128, \"num_local_experts\": 8, "
                 "\"num_experts_per_tok\": 2}",
                 LLMMEM_ERR_UNSUPPORTED, "closest to mixtral (MoE: num_local_experts)");
    expect_error("{\"model_type\": \"unlisted\", " SMALL ", \"intermediate_size\": 128, \"num_experts\": 8, "
                 "\"shared_expert_intermediate_size\": 64, \"use_sliding_window\": false}",
                 LLMMEM_ERR_UNSUPPORTED, "closest to qwen2_moe (MoE: num_experts; sliding window: use_sliding_window)");
    expect_error("{\"model_type\": \"unlisted\", " SMALL ", \"intermediate_size\": 128, \"kv_lora_rank\": 16, "
                 "\"n_routed_experts\": 4}",
                 LLMMEM_ERR_UNSUPPORTED, "closest to deepseek_v2 (MLA: kv_lora_rank; MoE: n_routed_experts)");
    expect_error("{\"model_type\": \"unlisted\", " SMALL ", \"intermediate_size\": 128, \"head_dim\": 32, "
                 "\"num_key_value_heads\": 2, \"use_qk_norm\": true, \"use_sliding_window\": false}",
                 LLMMEM_ERR_UNSUPPORTED,
                 "closest to qwen3 (sliding window: use_sliding_window; q/k norms: use_qk_norm): describe it with "
                 "--set model_type=qwen3 --set hidden_size=64 --set num_hidden_layers=2 --set num_attention_heads=4 "
                 "--set num_key_value_heads=2 --set head_dim=32 --set intermediate_size=128 --set vocab_size=100 "
                 "--set qk_norm=1");
    expect_error("{\"model_type\": \"unlisted\", " SMALL ", \"intermediate_size\": 128, \"attention_bias\": true, "
                 "\"mlp_bias\": true}",
                 LLMMEM_ERR_UNSUPPORTED, "--set qkv_bias=1 --set o_proj_bias=1 --set mlp_bias=1");
    /* without the five shape fields: the list of supported types alone */
    expect_error("{\"model_type\": \"unlisted\", \"hidden_size\": 64}", LLMMEM_ERR_UNSUPPORTED,
                 "model_type: 'unlisted' is not supported (supported: llama");
}
END_TEST

/* ---- family mappings ----------------------------------------------------------------------------- */

START_TEST(gpt_opt_bloom_neox)
{
    llmmem_model *m = NULL;
    /* GPT-2: n_inner null is 4 * n_embd; the attribute_map aliases must agree */
    ck_assert_ok(load_text(&m, "{\"model_type\": \"gpt2\", \"n_embd\": 64, \"n_layer\": 2, \"n_head\": 4, "
                               "\"n_positions\": 32, \"vocab_size\": 100, \"n_inner\": null}"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_INTERMEDIATE_SIZE), 0);
    ck_assert_int_eq(get(m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS), 1);
    ck_assert_int_eq(get(m, LLMMEM_KEY_TORCH_DTYPE), LLMMEM_FORMAT_FP32);
    /* wte, wpe, 2 x (ln_1, c_attn, c_proj, ln_2, c_fc, c_proj), ln_f */
    ck_assert_uint_eq(total(m), 100 * 64 + 32 * 64 + 2 * (4 * 64 * 64 + 4 * 64 + 2 * 256 * 64 + 256 + 64 + 4 * 64) +
                                    2 * 64);
    llmmem_model_free(m);
    expect_error("{\"model_type\": \"gpt2\", \"n_embd\": 64, \"hidden_size\": 32}", LLMMEM_ERR_PARSE,
                 "hidden_size: 32 disagrees with n_embd (64)");
    expect_error("{\"model_type\": \"gpt2\", \"n_embd\": 64, \"n_layer\": 2, \"n_head\": 4, \"vocab_size\": 100, "
                 "\"add_cross_attention\": true}",
                 LLMMEM_ERR_UNSUPPORTED, "add_cross_attention: true is not supported");
    /* OPT: project_in/out and post-norm are not modelled */
    const char *opt = "{\"model_type\": \"opt\", " SMALL ", \"ffn_dim\": 128, \"max_position_embeddings\": 32";
    char json[512];
    snprintf(json, sizeof json, "%s, \"word_embed_proj_dim\": 32}", opt);
    expect_error(json, LLMMEM_ERR_UNSUPPORTED, "word_embed_proj_dim: 32 differs from hidden_size (64)");
    snprintf(json, sizeof json, "%s, \"do_layer_norm_before\": false}", opt);
    expect_error(json, LLMMEM_ERR_UNSUPPORTED, "do_layer_norm_before: false is not supported");
    snprintf(json, sizeof json, "%s, \"enable_bias\": false}", opt);
    ck_assert_ok(load_text(&m, json));
    ck_assert_int_eq(get(m, LLMMEM_KEY_QKV_BIAS), 0);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MLP_BIAS), 0);
    ck_assert_int_eq(get(m, LLMMEM_KEY_POSITION_OFFSET), 2);
    llmmem_model_free(m);
    /* BLOOM: n_embed (the older name) or hidden_size */
    ck_assert_ok(load_text(&m, "{\"model_type\": \"bloom\", \"n_embed\": 64, \"n_layer\": 2, \"n_head\": 4, "
                               "\"vocab_size\": 100}"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_HIDDEN_SIZE), 64);
    ck_assert_int_eq(get(m, LLMMEM_KEY_EMBEDDING_NORM), 1);
    llmmem_model_free(m);
    /* GPT-NeoX: attention_bias false drops the query_key_value and dense biases */
    ck_assert_ok(load_text(&m, "{\"model_type\": \"gpt_neox\", " SMALL ", \"intermediate_size\": 256, "
                               "\"attention_bias\": false}"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_QKV_BIAS), 0);
    ck_assert_int_eq(get(m, LLMMEM_KEY_O_PROJ_BIAS), 0);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MLP_BIAS), 1);
    ck_assert_int_eq(get(m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS), 0);
    llmmem_model_free(m);
}
END_TEST

START_TEST(falcon_variants)
{
    llmmem_model *m = NULL;
    const char *base = "{\"model_type\": \"falcon\", \"hidden_size\": 64, \"num_hidden_layers\": 2, "
                       "\"num_attention_heads\": 8, \"vocab_size\": 100";
    char json[512];
    /* new_decoder_architecture (Falcon-40B): num_kv_heads, ln_attn and ln_mlp */
    snprintf(json, sizeof json, "%s, \"new_decoder_architecture\": true, \"num_kv_heads\": 2}", base);
    ck_assert_ok(load_text(&m, json));
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_KEY_VALUE_HEADS), 2);
    ck_assert_int_eq(get(m, LLMMEM_KEY_NORMS_PER_LAYER), 2);
    ck_assert_int_eq(get(m, LLMMEM_KEY_QKV_BIAS), 0);
    llmmem_model_free(m);
    /* older configs name the heads n_head_kv */
    snprintf(json, sizeof json, "%s, \"new_decoder_architecture\": true, \"n_head_kv\": 4}", base);
    ck_assert_ok(load_text(&m, json));
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_KEY_VALUE_HEADS), 4);
    llmmem_model_free(m);
    /* multi_query false: all heads, whatever num_kv_heads says; parallel_attn false: two norms;
     * bias: biased projections */
    snprintf(json, sizeof json, "%s, \"multi_query\": false, \"num_kv_heads\": 2, \"parallel_attn\": false, "
                                "\"bias\": true, \"alibi\": true}", base);
    ck_assert_ok(load_text(&m, json));
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_KEY_VALUE_HEADS), 8);
    ck_assert_int_eq(get(m, LLMMEM_KEY_NORMS_PER_LAYER), 2);
    ck_assert_int_eq(get(m, LLMMEM_KEY_QKV_BIAS), 1);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MLP_BIAS), 1);
    llmmem_model_free(m);
    /* Falcon-7B: multi_query (one k/v head), one input_layernorm */
    snprintf(json, sizeof json, "%s, \"ffn_hidden_size\": 96}", base);
    ck_assert_ok(load_text(&m, json));
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_KEY_VALUE_HEADS), 1);
    ck_assert_int_eq(get(m, LLMMEM_KEY_NORMS_PER_LAYER), 1);
    ck_assert_int_eq(get(m, LLMMEM_KEY_INTERMEDIATE_SIZE), 96);
    llmmem_model_free(m);
}
END_TEST

START_TEST(kv_heads_head_dim_tie_defaults)
{
    llmmem_model *m = NULL;
    /* LlamaConfig: num_key_value_heads None is the attention heads; ties nothing */
    ck_assert_ok(load_text(&m, LLAMA "}"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_KEY_VALUE_HEADS), 0);
    ck_assert_int_eq(get(m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS), 0);
    ck_assert_int_eq(get(m, LLMMEM_KEY_HEAD_DIM), 0);
    llmmem_model_free(m);
    /* MistralConfig: num_key_value_heads=8 when absent, the attention heads when null */
    const char *mistral = "{\"model_type\": \"mistral\", \"hidden_size\": 64, \"num_hidden_layers\": 2, "
                          "\"num_attention_heads\": 16, \"vocab_size\": 100, \"intermediate_size\": 128";
    char json[512];
    snprintf(json, sizeof json, "%s}", mistral);
    ck_assert_ok(load_text(&m, json));
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_KEY_VALUE_HEADS), 8);
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW), 4096);
    llmmem_model_free(m);
    snprintf(json, sizeof json, "%s, \"num_key_value_heads\": null, \"head_dim\": null, \"sliding_window\": null}",
             mistral);
    ck_assert_ok(load_text(&m, json));
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_KEY_VALUE_HEADS), 0);
    ck_assert_int_eq(get(m, LLMMEM_KEY_HEAD_DIM), 0);
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW), 0);
    llmmem_model_free(m);
    /* Qwen3Config: head_dim=128 when absent; attention_bias biases q, k, v and o */
    ck_assert_ok(load_text(&m, "{\"model_type\": \"qwen3\", " SMALL ", \"intermediate_size\": 128, "
                               "\"num_key_value_heads\": 2, \"attention_bias\": true}"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_HEAD_DIM), 128);
    ck_assert_int_eq(get(m, LLMMEM_KEY_QKV_BIAS), 1);
    ck_assert_int_eq(get(m, LLMMEM_KEY_O_PROJ_BIAS), 1);
    ck_assert_int_eq(get(m, LLMMEM_KEY_QK_NORM), 1);
    llmmem_model_free(m);
    /* Llama: mlp_bias; Gemma ties by default */
    ck_assert_ok(load_text(&m, LLAMA ", \"mlp_bias\": true, \"attention_bias\": true}"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_MLP_BIAS), 1);
    ck_assert_int_eq(get(m, LLMMEM_KEY_O_PROJ_BIAS), 1);
    llmmem_model_free(m);
    ck_assert_ok(load_text(&m, "{\"model_type\": \"gemma\", " SMALL ", \"intermediate_size\": 128, "
                               "\"num_key_value_heads\": 1}"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS), 1);
    ck_assert_int_eq(get(m, LLMMEM_KEY_HEAD_DIM), 256);
    llmmem_model_free(m);
}
END_TEST

START_TEST(sliding_window_layouts)
{
    llmmem_model *m = NULL;
    const char *qwen = "{\"model_type\": \"qwen2\", \"hidden_size\": 64, \"num_hidden_layers\": 6, "
                       "\"num_attention_heads\": 4, \"num_key_value_heads\": 4, \"vocab_size\": 100, "
                       "\"intermediate_size\": 128, \"sliding_window\": 32";
    char json[1024];
    /* use_sliding_window with max_window_layers past the last layer: no layer slides */
    snprintf(json, sizeof json, "%s, \"use_sliding_window\": true, \"max_window_layers\": 6}", qwen);
    ck_assert_ok(load_text(&m, json));
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW), 0);
    llmmem_model_free(m);
    /* from layer 0: every layer slides */
    snprintf(json, sizeof json, "%s, \"use_sliding_window\": true, \"max_window_layers\": 0}", qwen);
    ck_assert_ok(load_text(&m, json));
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW), 32);
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW_PATTERN), 0);
    llmmem_model_free(m);
    /* from layer 3: not periodic, a per-layer map since issue 15 (its KV bytes: test_families.c) */
    snprintf(json, sizeof json, "%s, \"use_sliding_window\": true, \"max_window_layers\": 3}", qwen);
    ck_assert_ok(load_text(&m, json));
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW), 32);
    llmmem_model_free(m);
    /* layer_types: a global layer every third */
    snprintf(json, sizeof json,
             "%s, \"use_sliding_window\": true, \"layer_types\": [\"sliding_attention\", \"sliding_attention\", "
             "\"full_attention\", \"sliding_attention\", \"sliding_attention\", \"full_attention\"]}",
             qwen);
    ck_assert_ok(load_text(&m, json));
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW), 32);
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW_PATTERN), 3);
    llmmem_model_free(m);
    /* use_sliding_window false: transformers drops the window, whatever layer_types says */
    snprintf(json, sizeof json,
             "%s, \"layer_types\": [\"sliding_attention\", \"sliding_attention\", \"full_attention\", "
             "\"sliding_attention\", \"sliding_attention\", \"full_attention\"]}",
             qwen);
    ck_assert_ok(load_text(&m, json));
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW), 0);
    llmmem_model_free(m);
    /* all full_attention (as Qwen3 configs of transformers 5 write): no window */
    snprintf(json, sizeof json,
             "%s, \"use_sliding_window\": true, \"layer_types\": [\"full_attention\", \"full_attention\", "
             "\"full_attention\", \"full_attention\", \"full_attention\", \"full_attention\"]}",
             qwen);
    ck_assert_ok(load_text(&m, json));
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW), 0);
    llmmem_model_free(m);
    snprintf(json, sizeof json, "%s, \"use_sliding_window\": true, \"layer_types\": [\"full_attention\"]}", qwen);
    expect_error(json, LLMMEM_ERR_INCOMPATIBLE, "layer_types: has 1 entries, but num_hidden_layers is 6");
    snprintf(json, sizeof json,
             "%s, \"use_sliding_window\": true, \"layer_types\": [\"full_attention\", \"chunked_attention\", "
             "\"full_attention\", \"full_attention\", \"full_attention\", \"full_attention\"]}",
             qwen);
    expect_error(json, LLMMEM_ERR_UNSUPPORTED, "layer_types[1]: 'chunked_attention' is not supported");
    snprintf(json, sizeof json, "%s, \"use_sliding_window\": true, \"layer_types\": \"full_attention\"}", qwen);
    expect_error(json, LLMMEM_ERR_PARSE, "layer_types: expected an array, got a string");
    /* Gemma 3: sliding_window_pattern, or _sliding_window_pattern as later versions write it */
    ck_assert_ok(load_text(&m, "{\"model_type\": \"gemma3_text\", " SMALL ", \"intermediate_size\": 128, "
                               "\"sliding_window\": 512, \"_sliding_window_pattern\": 4}"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_SLIDING_WINDOW_PATTERN), 4);
    llmmem_model_free(m);
}
END_TEST

START_TEST(mixture_of_experts)
{
    llmmem_model *m = NULL;
    const char *moe = "{\"model_type\": \"qwen2_moe\", \"hidden_size\": 64, \"num_hidden_layers\": 4, "
                      "\"num_attention_heads\": 4, \"num_key_value_heads\": 4, \"vocab_size\": 100, "
                      "\"intermediate_size\": 256, \"num_experts\": 8, \"num_experts_per_tok\": 2, "
                      "\"moe_intermediate_size\": 32, "
                      "\"shared_expert_intermediate_size\": 64";
    char json[1024];
    /* mlp_only_layers [0, 1]: two leading dense layers */
    snprintf(json, sizeof json, "%s, \"mlp_only_layers\": [0, 1]}", moe);
    ck_assert_ok(load_text(&m, json));
    ck_assert_int_eq(get(m, LLMMEM_KEY_FIRST_K_DENSE_REPLACE), 2);
    uint64_t dense = 0, shared = 0;
    ck_assert_ok(llmmem_model_parameters(&dense, m, LLMMEM_PARAMS_MLP));
    ck_assert_ok(llmmem_model_parameters(&shared, m, LLMMEM_PARAMS_SHARED_EXPERTS));
    ck_assert_uint_eq(dense, 2 * 3 * 256 * 64);
    ck_assert_uint_eq(shared, 2 * (3 * 64 * 64 + 64)); /* shared expert and its 1 x hidden gate */
    llmmem_model_free(m);
    snprintf(json, sizeof json, "%s, \"mlp_only_layers\": [3]}", moe);
    expect_error(json, LLMMEM_ERR_UNSUPPORTED, "mlp_only_layers: dense layers other than a leading run");
    snprintf(json, sizeof json, "%s, \"decoder_sparse_step\": 2}", moe);
    expect_error(json, LLMMEM_ERR_UNSUPPORTED, "decoder_sparse_step: 2: MoE on the layers i with (i + 1) % 2 == 0");
    snprintf(json, sizeof json, "%s, \"decoder_sparse_step\": 0}", moe);
    expect_error(json, LLMMEM_ERR_OUT_OF_RANGE, "decoder_sparse_step: 0 is below 1");
    /* Mixtral: num_local_experts of intermediate_size, no dense MLP */
    ck_assert_ok(load_text(&m, "{\"model_type\": \"mixtral\", " SMALL ", \"intermediate_size\": 96, "
                               "\"num_key_value_heads\": 2, \"num_local_experts\": 4, \"num_experts_per_tok\": 2}"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_EXPERTS), 4);
    ck_assert_int_eq(get(m, LLMMEM_KEY_MOE_INTERMEDIATE_SIZE), 96);
    ck_assert_ok(llmmem_model_parameters(&dense, m, LLMMEM_PARAMS_MLP));
    ck_assert_uint_eq(dense, 0);
    llmmem_model_free(m);
    expect_error("{\"model_type\": \"mixtral\", " SMALL ", \"intermediate_size\": 96}", LLMMEM_ERR_INCOMPLETE,
                 "num_local_experts: is missing");
    /* issue 14: 0 experts made a dense model without a word */
    expect_error("{\"model_type\": \"mixtral\", " SMALL ", \"intermediate_size\": 96, \"num_key_value_heads\": 2, "
                 "\"num_local_experts\": 0, \"num_experts_per_tok\": 2}",
                 LLMMEM_ERR_OUT_OF_RANGE, "num_local_experts: 0 experts: a mixtral model routes every layer");
    /* DeepSeek: n_routed_experts null is dense; topk_method decides the correction bias */
    const char *ds = "{\"model_type\": \"deepseek_v3\", " SMALL ", \"intermediate_size\": 128, "
                     "\"kv_lora_rank\": 16, \"qk_rope_head_dim\": 8, \"qk_nope_head_dim\": 8, \"v_head_dim\": 8, "
                     "\"q_lora_rank\": null";
    snprintf(json, sizeof json, "%s, \"n_routed_experts\": null}", ds);
    ck_assert_ok(load_text(&m, json));
    ck_assert_int_eq(get(m, LLMMEM_KEY_NUM_EXPERTS), 0);
    ck_assert_int_eq(get(m, LLMMEM_KEY_Q_LORA_RANK), 0);
    llmmem_model_free(m);
    snprintf(json, sizeof json, "%s, \"n_routed_experts\": 8, \"num_experts_per_tok\": 2, "
                                "\"moe_intermediate_size\": 16, \"first_k_dense_replace\": 1, "
                                "\"topk_method\": \"greedy\"}", ds);
    ck_assert_ok(load_text(&m, json));
    ck_assert_int_eq(get(m, LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS), 0);
    ck_assert_int_eq(get(m, LLMMEM_KEY_N_SHARED_EXPERTS), 0);
    llmmem_model_free(m);
    snprintf(json, sizeof json, "%s, \"n_routed_experts\": 8, \"num_experts_per_tok\": 2, "
                                "\"moe_intermediate_size\": 16, \"first_k_dense_replace\": 1, "
                                "\"topk_method\": \"random\"}", ds);
    expect_error(json, LLMMEM_ERR_UNSUPPORTED, "topk_method: 'random' is not supported");
    snprintf(json, sizeof json, "%s, \"n_routed_experts\": null, \"attention_bias\": true}", ds);
    expect_error(json, LLMMEM_ERR_UNSUPPORTED, "attention_bias: true is not supported");
    expect_error("{\"model_type\": \"deepseek_v2\", " SMALL ", \"intermediate_size\": 128, \"kv_lora_rank\": 16, "
                 "\"qk_rope_head_dim\": 8, \"qk_nope_head_dim\": 8, \"v_head_dim\": 8, \"n_routed_experts\": null}",
                 LLMMEM_ERR_INCOMPLETE, "q_lora_rank: is missing");
}
END_TEST

START_TEST(multimodal_wrappers)
{
    llmmem_model *m = NULL;
    /* LLaVA with a Mistral text model and no model_type in vision_config (CLIP by default) */
    ck_assert_ok(load_text(&m, "{\"model_type\": \"llava\", \"text_config\": {\"model_type\": \"mistral\", " SMALL
                               ", \"intermediate_size\": 128, \"num_key_value_heads\": 2}, "
                               "\"vision_config\": {\"hidden_size\": 32, "
                               "\"intermediate_size\": 64, \"num_hidden_layers\": 2, \"image_size\": 28, "
                               "\"patch_size\": 14}, \"torch_dtype\": \"bfloat16\"}"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_MODEL_TYPE), LLMMEM_MODEL_MISTRAL);
    ck_assert_int_eq(get(m, LLMMEM_KEY_VISION_MODEL_TYPE), 1);
    ck_assert_int_eq(get(m, LLMMEM_KEY_VISION_HIDDEN_SIZE), 32);
    ck_assert_int_eq(get(m, LLMMEM_KEY_TORCH_DTYPE), LLMMEM_FORMAT_BF16);
    llmmem_model_free(m);
    /* the text config's own dtype when the top level names none */
    ck_assert_ok(load_text(&m, "{\"model_type\": \"llava\", \"text_config\": {\"torch_dtype\": \"float16\"}, "
                               "\"vision_config\": {}}"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_TORCH_DTYPE), LLMMEM_FORMAT_FP16);
    ck_assert_int_eq(get(m, LLMMEM_KEY_HIDDEN_SIZE), 4096);      /* LlamaConfig default */
    ck_assert_int_eq(get(m, LLMMEM_KEY_VISION_PATCH_SIZE), 32);  /* CLIPVisionConfig default */
    llmmem_model_free(m);
    expect_error("{\"model_type\": \"llava\", \"vision_config\": {}}", LLMMEM_ERR_INCOMPLETE,
                 "text_config: is missing (required for model_type llava)");
    expect_error("{\"model_type\": \"llava\", \"text_config\": [], \"vision_config\": {}}", LLMMEM_ERR_PARSE,
                 "text_config: expected an object, got an array");
    expect_error("{\"model_type\": \"llava\", \"text_config\": {\"model_type\": \"mamba\"}, \"vision_config\": {}}",
                 LLMMEM_ERR_UNSUPPORTED, "text_config.model_type: 'mamba' is not supported");
    /* a class without encoded defaults needs its shapes even in text_config */
    expect_error("{\"model_type\": \"llava\", \"text_config\": {\"model_type\": \"qwen3\"}, \"vision_config\": {}}",
                 LLMMEM_ERR_INCOMPLETE, "text_config.hidden_size: is missing (required for model_type qwen3)");
    expect_error("{\"model_type\": \"llava\", \"text_config\": {}, \"vision_config\": {\"model_type\": \"vit\"}}",
                 LLMMEM_ERR_UNSUPPORTED, "vision_config.model_type: 'vit' is not supported");
    expect_error("{\"model_type\": \"llava\", \"text_config\": {}, \"vision_config\": {}, "
                 "\"vision_feature_layer\": [-2, -5]}",
                 LLMMEM_ERR_UNSUPPORTED, "vision_feature_layer: a list of feature layers");
    expect_error("{\"model_type\": \"llava\", \"text_config\": {\"hidden_size\": \"big\"}, \"vision_config\": {}}",
                 LLMMEM_ERR_PARSE, "text_config.hidden_size: expected an integer, got a string");
    /* Gemma 3: SigLIP tower, vision_use_head true by default */
    ck_assert_ok(load_text(&m, "{\"model_type\": \"gemma3\", \"text_config\": {}, \"vision_config\": {}}"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_VISION_USE_HEAD), 1);
    ck_assert_int_eq(get(m, LLMMEM_KEY_VISION_PATCH_SIZE), 16);
    ck_assert_int_eq(get(m, LLMMEM_KEY_HIDDEN_SIZE), 2304);
    ck_assert_int_eq(get(m, LLMMEM_KEY_TORCH_DTYPE), LLMMEM_FORMAT_FP32);
    llmmem_model_free(m);
    /* tie_word_embeddings and dtype given only in text_config (transformers 4.56+ writes a sub-config's
     * dtype there: Qwen/Qwen3-VL-8B-Instruct's config.json names dtype only in its text_config) */
    ck_assert_ok(load_text(&m, "{\"model_type\": \"gemma3\", \"text_config\": {\"tie_word_embeddings\": false, "
                               "\"dtype\": \"bfloat16\"}, \"vision_config\": {}}"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS), 0); /* Gemma3TextConfig's default is true */
    ck_assert_int_eq(get(m, LLMMEM_KEY_TORCH_DTYPE), LLMMEM_FORMAT_BF16);
    ck_assert_int_eq(get(m, LLMMEM_KEY_TORCH_DTYPE_IN_CONFIG), 1);
    llmmem_model_free(m);
    /* a text model read from the top level that also holds a text_config: transformers' tie_weights
     * reads get_text_config(decoder=True), the text_config, before the top level; vLLM's _find_dtype
     * the top level's dtype, then the text_config's */
    ck_assert_ok(load_text(&m, QWEN2_SMALL ", "
                               "\"tie_word_embeddings\": false, \"text_config\": {\"tie_word_embeddings\": true, "
                               "\"dtype\": \"float16\"}}"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS), 1);
    ck_assert_int_eq(get(m, LLMMEM_KEY_TORCH_DTYPE), LLMMEM_FORMAT_FP16);
    llmmem_model_free(m);
    ck_assert_ok(load_text(&m, QWEN2_SMALL ", "
                               "\"torch_dtype\": \"bfloat16\", \"text_config\": {\"dtype\": \"float16\"}}"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_TORCH_DTYPE), LLMMEM_FORMAT_BF16);
    ck_assert_int_eq(get(m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS), 0); /* Qwen2Config's default */
    llmmem_model_free(m);
    expect_error(QWEN2_SMALL ", \"text_config\": "
                 "{\"dtype\": \"int8\", \"tie_word_embeddings\": \"yes\"}}",
                 LLMMEM_ERR_PARSE, "<memory>: text_config.tie_word_embeddings: expected true or false, got a string");
    expect_error(QWEN2_SMALL ", \"text_config\": "
                 "{\"dtype\": \"int8\"}}",
                 LLMMEM_ERR_UNSUPPORTED, "<memory>: text_config.dtype: 'int8' is not supported");
    expect_error("{\"model_type\": \"gemma3\", \"text_config\": {\"model_type\": \"llama\"}, \"vision_config\": {}}",
                 LLMMEM_ERR_UNSUPPORTED, "text_config.model_type: 'llama' is not supported (gemma3 takes gemma3_text)");
}
END_TEST

START_TEST(dtypes_and_quantization)
{
    llmmem_model *m = NULL;
    char json[1024];
    /* dtype is how transformers 4.56 and later write torch_dtype */
    ck_assert_ok(load_text(&m, LLAMA ", \"dtype\": \"bfloat16\"}"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_TORCH_DTYPE), LLMMEM_FORMAT_BF16);
    llmmem_model_free(m);
    expect_error(LLAMA ", \"dtype\": \"bfloat16\", \"torch_dtype\": \"float16\"}", LLMMEM_ERR_PARSE,
                 "torch_dtype: 'float16' disagrees with dtype ('bfloat16')");
    expect_error(LLAMA ", \"torch_dtype\": \"float8_e4m3fn\"}", LLMMEM_ERR_UNSUPPORTED,
                 "torch_dtype: 'float8_e4m3fn' is not supported");
    static const struct {
        const char *config;
        llmmem_format format;
        int64_t group, double_quant;
    } ok[] = {
        {"{\"quant_method\": \"gptq\", \"bits\": 4, \"group_size\": 32, \"checkpoint_format\": \"gptq_v2\"}",
         LLMMEM_FORMAT_GPTQ_INT4, 32, 0},
        {"{\"quant_method\": \"gptq\", \"bits\": 4}", LLMMEM_FORMAT_GPTQ_INT4, 128, 0},
        {"{\"quant_method\": \"awq\", \"bits\": 4, \"group_size\": 64, \"version\": \"gemm\", "
         "\"modules_to_not_convert\": [\"gate\"]}",
         LLMMEM_FORMAT_AWQ_INT4, 64, 0},
        {"{\"quant_method\": \"bitsandbytes\", \"load_in_4bit\": true, \"bnb_4bit_quant_type\": \"nf4\", "
         "\"bnb_4bit_use_double_quant\": true}",
         LLMMEM_FORMAT_BNB_NF4, 0, 1},
        {"{\"quant_method\": \"bitsandbytes\", \"_load_in_4bit\": true}", LLMMEM_FORMAT_BNB_FP4, 0, 0},
        {"{\"load_in_8bit\": true}", LLMMEM_FORMAT_BNB_INT8, 0, 0},
        {"{\"quant_method\": \"fp8\", \"activation_scheme\": \"dynamic\"}", LLMMEM_FORMAT_FP8_E4M3, 0, 0},
        {"{\"quant_method\": \"fp8\", \"weight_block_size\": [128, 128]}", LLMMEM_FORMAT_FP8_BLOCK, 0, 0},
        {"{\"quant_method\": \"mxfp4\"}", LLMMEM_FORMAT_MXFP4, 0, 0},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        snprintf(json, sizeof json, LLAMA ", \"quantization_config\": %s}", ok[i].config);
        ck_assert_msg(load_text(&m, json) == LLMMEM_OK, "%s: %s", ok[i].config, llmmem_last_message());
        ck_assert_int_eq(get(m, LLMMEM_KEY_QUANTIZATION_FORMAT), ok[i].format);
        ck_assert_int_eq(get(m, LLMMEM_KEY_QUANTIZATION_GROUP_SIZE), ok[i].group);
        ck_assert_int_eq(get(m, LLMMEM_KEY_QUANTIZATION_DOUBLE_QUANT), ok[i].double_quant);
        llmmem_model_free(m);
    }
    static const struct {
        const char *config;
        llmmem_status status;
        const char *text;
    } bad[] = {
        {"{\"quant_method\": \"gptq\", \"bits\": 3}", LLMMEM_ERR_UNSUPPORTED,
         "quantization_config.bits: 3 is not supported (4 is)"},
        {"{\"quant_method\": \"gptq\", \"bits\": 4, \"group_size\": -1}", LLMMEM_ERR_UNSUPPORTED,
         "quantization_config.group_size: -1 (one group per output channel)"},
        /* issue 14: group_size 0 was taken as the key's 0, "the format's default" (128) */
        {"{\"quant_method\": \"gptq\", \"bits\": 4, \"group_size\": 0}", LLMMEM_ERR_OUT_OF_RANGE,
         "quantization_config.group_size: 0 is not a group size"},
        {"{\"quant_method\": \"awq\", \"bits\": 4, \"group_size\": 0}", LLMMEM_ERR_OUT_OF_RANGE,
         "quantization_config.group_size: 0 is not a group size"},
        {"{\"quant_method\": \"gptq\", \"bits\": 4, \"group_size\": -2}", LLMMEM_ERR_OUT_OF_RANGE,
         "quantization_config.group_size: quantization_group_size (-2) is out of range"},
        {"{\"quant_method\": \"gptq\"}", LLMMEM_ERR_INCOMPLETE, "quantization_config.bits: is missing"},
        {"{\"quant_method\": \"gptq\", \"bits\": 4, \"checkpoint_format\": \"marlin\"}", LLMMEM_ERR_UNSUPPORTED,
         "quantization_config.checkpoint_format: 'marlin' is not supported"},
        {"{\"quant_method\": \"gptq\", \"bits\": 4, \"lm_head\": true}", LLMMEM_ERR_UNSUPPORTED,
         "quantization_config.lm_head: true is not supported"},
        {"{\"quant_method\": \"awq\", \"bits\": 4, \"version\": \"gemv\"}", LLMMEM_ERR_UNSUPPORTED,
         "quantization_config.version: 'gemv' is not supported"},
        {"{\"quant_method\": \"awq\", \"bits\": 4, \"zero_point\": false}", LLMMEM_ERR_UNSUPPORTED,
         "quantization_config.zero_point: false is not supported"},
        {"{\"quant_method\": \"awq\", \"bits\": 4, \"modules_to_not_convert\": [\"visual\"]}",
         LLMMEM_ERR_UNSUPPORTED, "quantization_config.modules_to_not_convert[0]: 'visual' is not supported"},
        {"{\"quant_method\": \"bitsandbytes\", \"load_in_4bit\": true, \"bnb_4bit_quant_type\": \"int4\"}",
         LLMMEM_ERR_UNSUPPORTED, "quantization_config.bnb_4bit_quant_type: 'int4' is not supported"},
        {"{\"quant_method\": \"bitsandbytes\"}", LLMMEM_ERR_INCOMPLETE,
         "quantization_config.load_in_4bit: and load_in_8bit are both false or missing"},
        {"{\"quant_method\": \"bitsandbytes\", \"load_in_4bit\": true, \"load_in_8bit\": true}", LLMMEM_ERR_PARSE,
         "are both true"},
        {"{\"quant_method\": \"fp8\", \"weight_block_size\": [64, 64]}", LLMMEM_ERR_UNSUPPORTED,
         "quantization_config.weight_block_size: [64, 64] is not supported"},
        {"{\"quant_method\": \"fp8\", \"weight_block_size\": [128]}", LLMMEM_ERR_PARSE,
         "weight_block_size: expected two integers"},
        {"{\"quant_method\": \"compressed-tensors\", \"format\": \"pack-quantized\"}", LLMMEM_ERR_INCOMPLETE,
         "quantization_config.config_groups: is missing"},
        {"{\"quant_method\": \"hqq\"}", LLMMEM_ERR_UNSUPPORTED, "quant_method: 'hqq' is not supported"},
        {"{\"bits\": 4}", LLMMEM_ERR_INCOMPLETE, "quantization_config.quant_method: is missing"},
        {"{\"quant_method\": 4}", LLMMEM_ERR_PARSE, "quantization_config.quant_method: expected a string"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(json, sizeof json, LLAMA ", \"quantization_config\": %s}", bad[i].config);
        expect_error(json, bad[i].status, bad[i].text);
    }
}
END_TEST

/* ---- issue 14: hostile inputs ------------------------------------------------------------------- */

/* Messages name the path, line, column and the key where jansson stopped; a duplicate key names
 * itself (it was blamed on the field before it), and no byte of the input is quoted beyond a
 * key's name (a file that is not JSON, such as /etc/shadow, was echoed in "near '...'"). */
START_TEST(json_errors_quote_nothing_of_the_file)
{
    /* where the reader stopped, and nothing of what the file holds, its keys included (issue 34:
     * a duplicate key or a bad token named the field it was in, quoting the file's keys) */
    expect_error("{\"model_type\": \"llama\", \"hidden_size\": 64, \"vocab_size\": 100, \"hidden_size\": 64}",
                 LLMMEM_ERR_PARSE, "duplicate object key (line 1, column 75)");
    expect_error("{\"model_type\": \"llama\", \"quantization_config\": {\"bits\": 4, \"group_size\": 128, "
                 "\"bits\": 4}}",
                 LLMMEM_ERR_PARSE, "duplicate object key (line 1, column 84)");
    expect_error("{\"model_type\": \"llama\", \"layer_types\": [\"full_attention\", x]}", LLMMEM_ERR_PARSE,
                 "invalid token (line 1, column 59)");

    static const char *const hostile[] = {
        "root:$6$hunter2$abcdef:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n",
        "{\"model_type\": \"llama\", \"hidden_size\": hunter2}",
        "{\"model_type\": \"llama\", \"token\": \"hunter2\n\"}",
        "{\"model_type\": \"llama\", \"token\": \"hunter2\\x\"}",
        "{\"model_type\": \"llama\", \"token\": \"\\u12zz hunter2\"}",
        "[\"hunter2\"]x",
        "{\"hunter2\": x}",
        "{\"a\": {\"hunter2\": [1, 2, @]}}",
        "{\"hunter2\": 1, \"hunter2\": 2}",
        "{\"\\udead\": 1}",
        "[\"\xffhunter2\"]",
        "[\"\x01hunter2\"]",
    };
    /* columns: where jansson stopped, counted by hand (the identifier "root" ends at 4, "hunter" at
     * 45 (a digit ends it), the newline is not consumed after column 41, the bad escapes' letters
     * are 43 and 39, the x after the array 12, the x at 13, the @ at 26, the second key's closing
     * quote at 24, the escape's end at 9, the quote before the bad bytes at 2); the message shows
     * neither the escape "\udead" nor the bytes 0xff and 0x01 by value */
    static const char *const expected[] = {
        "<memory>: not valid JSON: '[' or '{' expected (line 1, column 4)",
        "<memory>: not valid JSON: invalid token (line 1, column 45)",
        "<memory>: not valid JSON: unexpected newline (line 1, column 41)",
        "<memory>: not valid JSON: invalid escape (line 1, column 43)",
        "<memory>: not valid JSON: invalid escape (line 1, column 39)",
        "<memory>: not valid JSON: end of file expected (line 1, column 12)",
        "<memory>: not valid JSON: invalid token (line 1, column 13)",
        "<memory>: not valid JSON: invalid token (line 1, column 26)",
        "<memory>: not valid JSON: duplicate object key (line 1, column 24)",
        "<memory>: not valid JSON: invalid Unicode (line 1, column 9)",
        "<memory>: not valid JSON: unable to decode byte (line 1, column 2)",
        "<memory>: not valid JSON: control character (line 1, column 2)",
    };
    for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
        llmmem_model *m = (llmmem_model *)&m;
        ck_assert_status(load_text(&m, hostile[i]), LLMMEM_ERR_PARSE);
        ck_assert_ptr_null(m);
        ck_assert_msg(strcmp(llmmem_last_message(), expected[i]) == 0, "'%s', expected '%s'", llmmem_last_message(),
                      expected[i]);
        ck_assert_ptr_null(strstr(llmmem_last_message(), "hunter"));
        ck_assert_ptr_null(strstr(llmmem_last_message(), "0x"));
        ck_assert_ptr_null(strstr(llmmem_last_message(), "DEAD"));
    }

    /* a file that is not JSON: its path, where, and nothing of what it holds */
    char tmp[] = "/tmp/llmmem-hfconfig-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(tmp));
    char path[1100];
    snprintf(path, sizeof path, "%s/shadow", tmp);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(hostile[0], f);
    fclose(f);
    llmmem_model *m = (llmmem_model *)&m;
    ck_assert_status(llmmem_model_from_hf_config(&m, path), LLMMEM_ERR_PARSE);
    char want[1300];
    snprintf(want, sizeof want, "%s: not valid JSON: '[' or '{' expected (line 1, column 4)", path);
    ck_assert_str_eq(llmmem_last_message(), want);
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(rmdir(tmp), 0);
}
END_TEST

/* Python's json module (json.dumps, allow_nan=True by default) writes float('inf') as Infinity:
 * transformers' Mamba2Config and NemotronHConfig default time_step_limit=(0.0, float("inf")), which
 * nvidia/Nemotron-H-8B-Base-8K's config.json holds as "time_step_limit": [0.0, Infinity]. The three
 * tokens are read as values; a field the reader needs names them; nothing else non-JSON passes. */
START_TEST(python_non_finite_numbers)
{
    llmmem_model *m = NULL;
    /* fields the reader ignores: an array, an object member, the last member, -Infinity and NaN */
    ck_assert_ok(load_text(&m, LLAMA ", \"time_step_limit\": [0.0, Infinity], \"rope_scaling\": {\"f\": -Infinity},"
                               " \"x\":NaN,\"y\":[NaN,-Infinity,Infinity], \"z\": Infinity}"));
    ck_assert_int_eq(get(m, LLMMEM_KEY_HIDDEN_SIZE), 64);
    llmmem_model_free(m);
    /* strings holding the words are untouched: a key, and a value the reader reads as a string */
    ck_assert_ok(load_text(&m, LLAMA ", \"NaN\": \"Infinity\", \"Infinity\": [\"-Infinity\", \"NaN\"]}"));
    llmmem_model_free(m);
    expect_error(LLAMA ", \"torch_dtype\": \"NaN\"}", LLMMEM_ERR_UNSUPPORTED, "torch_dtype: 'NaN' is not supported");
    /* a field read as an integer, a bool, a string, an object, a list entry */
    expect_error("{\"model_type\": \"llama\", \"hidden_size\": Infinity}", LLMMEM_ERR_PARSE,
                 "<memory>: hidden_size: expected an integer, got Infinity");
    expect_error(LLAMA ", \"num_key_value_heads\": NaN}", LLMMEM_ERR_PARSE,
                 "num_key_value_heads: expected an integer, got NaN");
    expect_error(LLAMA ", \"max_position_embeddings\": -Infinity}", LLMMEM_ERR_PARSE,
                 "max_position_embeddings: expected an integer, got -Infinity");
    expect_error(LLAMA ", \"tie_word_embeddings\": NaN}", LLMMEM_ERR_PARSE,
                 "tie_word_embeddings: expected true or false, got NaN");
    expect_error("{\"model_type\": NaN}", LLMMEM_ERR_PARSE, "model_type: expected a string, got NaN");
    expect_error(LLAMA ", \"quantization_config\": Infinity}", LLMMEM_ERR_PARSE,
                 "quantization_config: expected an object, got Infinity");
    expect_error(LLAMA ", \"quantization_config\": {\"quant_method\": \"awq\", \"bits\": 4, "
                 "\"modules_to_not_convert\": [NaN]}}",
                 LLMMEM_ERR_PARSE, "quantization_config.modules_to_not_convert[0]: expected a string, got NaN");
    expect_error("Infinity", LLMMEM_ERR_PARSE, "not valid JSON: '[' or '{' expected (line 1, column 8)");
    expect_error("[Infinity]", LLMMEM_ERR_PARSE, "not a JSON object (the document is an array)");
    /* what Python's json refuses stays refused: a key, other spellings, a sign on NaN, inside a word */
    /* column 4: the end of the word jansson read */
    expect_error("{NaN: 1}", LLMMEM_ERR_PARSE, "not valid JSON: string or '}' expected (line 1, column 4)");
    expect_error(LLAMA ", \"a\": 1, NaN: 2}", LLMMEM_ERR_PARSE, "not valid JSON");
    expect_error(LLAMA ", \"x\": inf}", LLMMEM_ERR_PARSE, "invalid token");
    expect_error(LLAMA ", \"x\": nan}", LLMMEM_ERR_PARSE, "invalid token");
    expect_error(LLAMA ", \"x\": +Infinity}", LLMMEM_ERR_PARSE, "invalid token");
    expect_error(LLAMA ", \"x\": -NaN}", LLMMEM_ERR_PARSE, "invalid token");
    expect_error(LLAMA ", \"x\": NaNa}", LLMMEM_ERR_PARSE, "not valid JSON");
    expect_error(LLAMA ", \"x\": Infinit}", LLMMEM_ERR_PARSE, "invalid token");
    expect_error(LLAMA ", \"x\": [1 NaN]}", LLMMEM_ERR_PARSE, "not valid JSON");
    /* an error after a rewritten token is placed in the text as written: column 19 is the x */
    expect_error("{\"a\": [NaN, NaN], x}", LLMMEM_ERR_PARSE, "(line 1, column 19)");
    /* the rewrite parses with \u0000 allowed, so the input's own \u0000 is refused here */
    expect_error("{\"a\": NaN, \"b\": \"x\\u0000\"}", LLMMEM_ERR_PARSE, /* column 19: the backslash */
                 "not valid JSON: \\u0000 is not allowed in a string (line 1, column 19)");
    expect_error("{\"a\": \"x\\u0000\"}", LLMMEM_ERR_PARSE, "not valid JSON");
    /* the value limit counts them like any value */
    ck_assert_uint_eq(llmmem__json_count_values("[NaN,Infinity,-Infinity]", 24), 4); /* the array and its 3 */
}
END_TEST

/* At most LLMMEM_CONFIG_MAX_VALUES (100,000) JSON values and keys, counted before jansson builds
 * any (an empty container counts twice): 16.5 MB of "[]," cost 748 MB of tree before the fix. */
START_TEST(json_value_count_is_bounded)
{
    /* counted: 1, and in LLAMA '{', 6 ':' and 5 ','; ", \"x\": [" adds 3 (',' ':' '['); z zeros add
     * z - 1 commas: 15 + z in all */
    size_t size = 1000000;
    char *json = malloc(size);
    ck_assert_ptr_nonnull(json);
    for (int over = 0; over <= 1; over++) {
        size_t zeros = over ? 99986 : 99985; /* 100,000 counted: read; 100,001: refused */
        size_t n = (size_t)snprintf(json, size, LLAMA ", \"x\": [0");
        for (size_t i = 1; i < zeros; i++) {
            json[n++] = ',';
            json[n++] = '0';
        }
        n += (size_t)snprintf(json + n, size - n, "]}");
        ck_assert_uint_eq(llmmem__json_count_values(json, n), 100000 + (uint64_t)over);
        llmmem_model *m = NULL;
        llmmem_status st = llmmem_model_from_hf_config_text(&m, json, n);
        if (over) {
            ck_assert_int_eq(st, LLMMEM_ERR_PARSE);
            ck_assert_str_eq(llmmem_last_message(), "<memory>: more than the 100000 JSON values and keys a config.json "
                                                    "may have");
        } else {
            ck_assert_msg(st == LLMMEM_OK, "%s", llmmem_last_message());
            llmmem_model_free(m);
        }
    }
    free(json);
}
END_TEST

/* A named pipe as the config or as a folder's config.json is refused at once: open(2) without
 * O_NONBLOCK waited for a writer forever. The alarm ends the test process should it block. */
START_TEST(fifo_is_refused)
{
    char tmp[] = "/tmp/llmmem-hfconfig-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(tmp));
    char path[1100];
    snprintf(path, sizeof path, "%s/config.json", tmp);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    alarm(120); /* a hang guard: the calls take milliseconds */
    llmmem_model *m = (llmmem_model *)&m;
    ck_assert_status(llmmem_model_from_hf_config(&m, path), LLMMEM_ERR_IO);
    ck_assert_ptr_null(m);
    char want[1300];
    snprintf(want, sizeof want, "%s: is not a regular file (a named pipe)", path);
    ck_assert_str_eq(llmmem_last_message(), want);
    ck_assert_status(llmmem_model_from_hf_config(&m, tmp), LLMMEM_ERR_IO); /* the folder: its config.json */
    ck_assert_str_eq(llmmem_last_message(), want);
    /* a character device too */
    ck_assert_status(llmmem_model_from_hf_config(&m, "/dev/null"), LLMMEM_ERR_IO);
    ck_assert_str_eq(llmmem_last_message(), "/dev/null: is not a regular file (a character device)");
    alarm(0);
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(rmdir(tmp), 0);
}
END_TEST

static Suite *hfconfig_suite(void)
{
    Suite *s = suite_create("hfconfig");
    TCase *published = tcase_create("published");
    tcase_add_test(published, one_config_per_family_matches_its_preset);
    tcase_add_test(published, bloom_without_torch_dtype);
    tcase_add_test(published, gemma_3_4b_publisher_count);
    tcase_add_test(published, llava_1_5_7b_publisher_count);
    tcase_add_test(published, quantized_releases);
    tcase_add_test(published, published_sliding_windows);
    tcase_add_test(published, folders_and_files);
    tcase_add_test(published, names);
    suite_add_tcase(s, published);
    TCase *reader = tcase_create("reader");
    tcase_add_test(reader, errors_name_the_field);
    tcase_add_test(reader, unknown_decoder_names_the_closest_family);
    tcase_add_test(reader, gpt_opt_bloom_neox);
    tcase_add_test(reader, falcon_variants);
    tcase_add_test(reader, kv_heads_head_dim_tie_defaults);
    tcase_add_test(reader, sliding_window_layouts);
    tcase_add_test(reader, mixture_of_experts);
    tcase_add_test(reader, multimodal_wrappers);
    tcase_add_test(reader, dtypes_and_quantization);
    tcase_add_test(reader, json_errors_quote_nothing_of_the_file);
    tcase_add_test(reader, json_value_count_is_bounded);
    tcase_add_test(reader, python_non_finite_numbers);
    tcase_add_test(reader, fifo_is_refused);
    suite_add_tcase(s, reader);
    return s;
}

int main(void)
{
    return run_suite(hfconfig_suite());
}
