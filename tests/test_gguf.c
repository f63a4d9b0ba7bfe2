/* GGUF header reader: exact bytes of mixed-type files from ggml's block sizes, the model the
 * metadata describes (its parameters equal the tensors' elements, group by group), and clean
 * failures on every truncation and every hostile count, length, shape and type. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

#include "gguf_writer.h"

static llmmem_checkpoint *load(const buf *b)
{
    llmmem_checkpoint *ck = NULL;
    ck_assert_ok(llmmem_checkpoint_from_gguf_bytes(&ck, b->p, b->len));
    ck_assert_ptr_nonnull(ck);
    return ck;
}

static void expect_fail(const buf *b, llmmem_status st, const char *needle)
{
    llmmem_checkpoint *ck = (llmmem_checkpoint *)&ck;
    ck_assert_status(llmmem_checkpoint_from_gguf_bytes(&ck, b->p, b->len), st);
    ck_assert_ptr_null(ck);
    ck_assert_msg(strstr(llmmem_last_message(), needle) != NULL, "'%s' not in '%s'", needle, llmmem_last_message());
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "<memory>: "));
}

/* The model's failure, with the checkpoint itself loaded. */
static void expect_model_fail(const buf *b, llmmem_status st, const char *needle)
{
    llmmem_checkpoint *ck = load(b);
    llmmem_model *m = (llmmem_model *)&m;
    ck_assert_status(llmmem_checkpoint_model(&m, ck), st);
    ck_assert_ptr_null(m);
    ck_assert_msg(strstr(llmmem_last_message(), needle) != NULL, "'%s' not in '%s'", needle, llmmem_last_message());
    llmmem_checkpoint_free(ck);
}

/* ---- block sizes -------------------------------------------------------------------------- */

/* Bytes per block, ggml-org/llama.cpp ggml/src/ggml-common.h (the static_asserts on each block_*
 * struct): Q4_K d, dmin (2 x fp16) + scales[12] + qs[128] = 144 per 256 weights; Q6_K ql[128] +
 * qh[64] + scales[16] + d = 210 per 256. */
#define Q4_K_BLOCK 144u
#define Q6_K_BLOCK 210u

/* ---- a Q4_K_M-like llama ------------------------------------------------------------------ */

/* Two layers of hidden 256, 2 heads of 128 with 1 KV head, MLP 512, vocab 8, quantized like
 * llama.cpp's Q4_K_M (llama-quant.cpp: attn_v and ffn_down in Q6_K on some layers, Q4_K
 * elsewhere, output Q6_K, norms F32). Returns the exact bytes, summed by type. */
typedef struct sums {
    uint64_t q4k, q6k, f32, total, params;
} sums;

static sums tiny_llama(buf *b, uint32_t version, int chat_template_bytes)
{
    sums s = {0, 0, 0, 0, 0};
    start(b, version);
    kv_str(b, "general.architecture", "llama");
    kv_str(b, "general.name", "tiny");
    kv_u32(b, "general.file_type", 15); /* MOSTLY_Q4_K_M */
    kv_u32(b, "general.quantization_version", 2);
    kv_u64(b, "llama.context_length", 4096); /* u64, as docs/gguf.md recommends */
    kv_u32(b, "llama.embedding_length", 256);
    kv_u32(b, "llama.block_count", 2);
    kv_u32(b, "llama.feed_forward_length", 512);
    kv_u32(b, "llama.rope.dimension_count", 128);
    kv_u32(b, "llama.attention.head_count", 2);
    kv_u32(b, "llama.attention.head_count_kv", 1);
    kv_f32(b, "llama.attention.layer_norm_rms_epsilon");
    kv_tokens(b, 8);
    key(b, "tokenizer.ggml.scores", T_ARRAY); /* skipped at once: 8 x f32 */
    w32(b, T_F32);
    w64(b, 8);
    for (int i = 0; i < 8; i++)
        w32(b, 0);
    key(b, "test.nested", T_ARRAY); /* arrays of arrays: [[1, 2], []] */
    w32(b, T_ARRAY);
    w64(b, 2);
    w32(b, T_U8);
    w64(b, 2);
    w8(b, 1);
    w8(b, 2);
    w32(b, T_STRING);
    w64(b, 0);
    if (chat_template_bytes) { /* a long string: the file reader seeks past it */
        char *t = malloc((size_t)chat_template_bytes + 1);
        memset(t, 'x', (size_t)chat_template_bytes);
        t[chat_template_bytes] = '\0';
        kv_str(b, "tokenizer.chat_template", t);
        free(t);
    }

    uint64_t q4k_rows = 0, q6k_rows = 0, f32_elements = 0;
    tensor(b, "token_embd.weight", Q4_K, 8 * Q4_K_BLOCK, DIMS(256, 8));
    q4k_rows += 8;
    for (int l = 0; l < 2; l++) {
        char n[64];
        int more_bits = l == 0; /* Q6_K attn_v and ffn_down on layer 0 only */
#define NAME(x) (snprintf(n, sizeof n, "blk.%d." x, l), n)
        tensor(b, NAME("attn_norm.weight"), F32, 256 * 4, DIMS(256));
        tensor(b, NAME("attn_q.weight"), Q4_K, 256 * Q4_K_BLOCK, DIMS(256, 256));
        tensor(b, NAME("attn_k.weight"), Q4_K, 128 * Q4_K_BLOCK, DIMS(256, 128));
        tensor(b, NAME("attn_v.weight"), more_bits ? Q6_K : Q4_K, 128 * (more_bits ? Q6_K_BLOCK : Q4_K_BLOCK),
               DIMS(256, 128));
        tensor(b, NAME("attn_output.weight"), Q4_K, 256 * Q4_K_BLOCK, DIMS(256, 256));
        tensor(b, NAME("ffn_norm.weight"), F32, 256 * 4, DIMS(256));
        tensor(b, NAME("ffn_gate.weight"), Q4_K, 512 * Q4_K_BLOCK, DIMS(256, 512));
        tensor(b, NAME("ffn_up.weight"), Q4_K, 512 * Q4_K_BLOCK, DIMS(256, 512));
        /* ffn_down rows are 512 long: two blocks each */
        tensor(b, NAME("ffn_down.weight"), more_bits ? Q6_K : Q4_K, 256 * 2 * (more_bits ? Q6_K_BLOCK : Q4_K_BLOCK),
               DIMS(512, 256));
#undef NAME
        f32_elements += 2 * 256;
        q4k_rows += 256 + 128 + 256 + 512 + 512 + (more_bits ? 0 : 128 + 2 * 256);
        q6k_rows += more_bits ? 128 + 2 * 256 : 0;
    }
    /* 8 x 210 = 1680 bytes: not a multiple of 32, so the next offset is padded */
    tensor(b, "output.weight", Q6_K, 8 * Q6_K_BLOCK, DIMS(256, 8));
    q6k_rows += 8;
    tensor(b, "output_norm.weight", F32, 256 * 4, DIMS(256));
    f32_elements += 256;
    done(b);

    s.q4k = q4k_rows * Q4_K_BLOCK;
    s.q6k = q6k_rows * Q6_K_BLOCK;
    s.f32 = f32_elements * 4;
    s.total = s.q4k + s.q6k + s.f32;
    /* embedding and head 8 x 256; per layer q 256^2, k and v 128 x 256, o 256^2, gate/up/down
     * 3 x 512 x 256, two norms of 256; the final norm */
    s.params = 2 * 8 * 256 + 2 * (65536 + 2 * 32768 + 65536 + 3 * 131072 + 2 * 256) + 256;
    return s;
}

START_TEST(mixed_types_exact_bytes)
{
    buf b;
    sums s = tiny_llama(&b, 3, 0);
    llmmem_checkpoint *ck = load(&b);
    ck_assert_uint_eq(llmmem_checkpoint_total_bytes(ck), s.total);
    ck_assert_uint_eq(llmmem_checkpoint_tensor_count(ck), 21);
    ck_assert_uint_eq(llmmem_checkpoint_role_elements(ck, LLMMEM_TENSOR_PARAMETER), s.params);
    ck_assert_uint_eq(llmmem_checkpoint_group_bytes(ck, LLMMEM_PARAMS_LM_HEAD), 8 * Q6_K_BLOCK);
    ck_assert_uint_eq(llmmem_checkpoint_group_bytes(ck, LLMMEM_PARAMS_EMBEDDING), 8 * Q4_K_BLOCK);
    ck_assert_uint_eq(llmmem_checkpoint_group_bytes(ck, LLMMEM_PARAMS_NORMS), (2 * 512 + 256) * 4);

    /* per dtype, in order of first appearance, with the ggml type names */
    ck_assert_uint_eq(llmmem_checkpoint_dtype_count(ck), 3);
    static const char *const names[3] = {"Q4_K", "F32", "Q6_K"};
    uint64_t bytes[3] = {s.q4k, s.f32, s.q6k};
    for (size_t i = 0; i < 3; i++) {
        const char *dtype;
        uint64_t n;
        ck_assert_ok(llmmem_checkpoint_dtype(&dtype, NULL, &n, ck, i));
        ck_assert_str_eq(dtype, names[i]);
        ck_assert_uint_eq(n, bytes[i]);
    }
    const char *name, *dtype;
    uint64_t elements, nbytes;
    llmmem_tensor_role role;
    llmmem_param_group group;
    ck_assert_ok(llmmem_checkpoint_tensor(&name, &dtype, &elements, &nbytes, &role, &group, ck, 9));
    ck_assert_str_eq(name, "blk.0.ffn_down.weight");
    ck_assert_str_eq(dtype, "Q6_K");
    ck_assert_uint_eq(elements, 512 * 256);
    ck_assert_uint_eq(nbytes, 256 * 2 * Q6_K_BLOCK);
    ck_assert_int_eq(role, LLMMEM_TENSOR_PARAMETER);
    ck_assert_int_eq(group, LLMMEM_PARAMS_MLP);

    /* The model from the metadata has exactly the tensors' parameters, group by group; read from
     * memory, it has no name. */
    llmmem_model *m;
    ck_assert_ok(llmmem_checkpoint_model(&m, ck));
    ck_assert_str_eq(llmmem_model_name(m), "");
    uint64_t total;
    int64_t v;
    ck_assert_ok(llmmem_model_total_parameters(&total, m));
    ck_assert_uint_eq(total, s.params);
    ck_assert_ok(llmmem_checkpoint_verify(ck, m));
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_MODEL_TYPE));
    ck_assert_int_eq(v, LLMMEM_MODEL_LLAMA);
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_NUM_KEY_VALUE_HEADS));
    ck_assert_int_eq(v, 1);
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_VOCAB_SIZE));
    ck_assert_int_eq(v, 8);
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS));
    ck_assert_int_eq(v, 4096);
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS));
    ck_assert_int_eq(v, 0); /* output.weight is stored */
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_TORCH_DTYPE));
    ck_assert_int_eq(v, LLMMEM_FORMAT_BF16); /* no float matrices: the default */

    /* Its estimate's weights are the file's bytes. */
    llmmem_hardware *hw;
    llmmem_strategy *st;
    llmmem_report *r;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "l4"));
    ck_assert_ok(llmmem_strategy_new(&st));
    ck_assert_ok(llmmem_report_new(&r));
    ck_assert_ok(llmmem_model_use_checkpoint(m, ck));
    ck_assert_ok(llmmem_estimate(r, m, hw, st));
    ck_assert_uint_eq(llmmem_report_bytes(r, LLMMEM_COMPONENT_WEIGHTS), s.total);
    llmmem_report_free(r);
    llmmem_strategy_free(st);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
    llmmem_checkpoint_free(ck);

    /* Version 2 has the same layout. */
    free(b.p);
    tiny_llama(&b, 2, 0);
    ck = load(&b);
    ck_assert_uint_eq(llmmem_checkpoint_total_bytes(ck), s.total);
    llmmem_checkpoint_free(ck);
    free(b.p);
}
END_TEST

START_TEST(versions)
{
    buf b;
    tiny_llama(&b, 1, 0);
    expect_fail(&b, LLMMEM_ERR_PARSE, "GGUF version 1 is no longer supported");
    free(b.p);
    tiny_llama(&b, 0, 0);
    expect_fail(&b, LLMMEM_ERR_PARSE, "version 0");
    free(b.p);
    tiny_llama(&b, 4, 0);
    expect_fail(&b, LLMMEM_ERR_UNSUPPORTED, "version 4 is newer");
    free(b.p);
    tiny_llama(&b, 3u << 24, 0); /* a big-endian file's version 3, read little-endian */
    expect_fail(&b, LLMMEM_ERR_UNSUPPORTED, "big-endian");
    free(b.p);
}
END_TEST

/* Every prefix of a valid file fails cleanly: never a crash, always a message and a NULL. */
START_TEST(every_truncation_fails)
{
    buf b;
    tiny_llama(&b, 3, 0);
    for (size_t n = 0; n < b.len; n++) {
        llmmem_checkpoint *ck = (llmmem_checkpoint *)&ck;
        ck_assert_status(llmmem_checkpoint_from_gguf_bytes(&ck, b.p, n), LLMMEM_ERR_PARSE);
        ck_assert_ptr_null(ck);
        ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "<memory>: "));
    }
    free(b.p);
}
END_TEST

/* A header of one tensor after the given metadata writer. */
static void one_tensor(buf *b, uint32_t type, uint64_t bytes, uint32_t n_dims, const uint64_t *ne)
{
    start(b, 3);
    tensor(b, "t", type, bytes, n_dims, ne);
    done(b);
}

START_TEST(hostile_headers)
{
    buf b;
    llmmem_checkpoint *ck;
    tiny_llama(&b, 3, 0);
    /* a file that is not GGUF: none of its bytes in the message (it quoted the 4 it read) */
    memcpy(b.p, "GGUX", 4);
    expect_fail(&b, LLMMEM_ERR_PARSE, "not a GGUF file (its first 4 bytes are not \"GGUF\")");
    ck_assert_ptr_null(strstr(llmmem_last_message(), "GGUX"));
    free(b.p);

    /* counts and lengths far beyond the file fail before anything is allocated for them */
    const uint64_t huge[] = {1ULL << 60, 1ULL << 63, UINT64_MAX};
    for (size_t i = 0; i < 3; i++) {
        tiny_llama(&b, 3, 0);
        for (unsigned k = 0; k < 8; k++)
            b.p[8 + k] = (unsigned char)(huge[i] >> (8 * k));
        expect_fail(&b, LLMMEM_ERR_PARSE, "tensor count");
        ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "exceeds the file"));
        free(b.p);
        tiny_llama(&b, 3, 0);
        for (unsigned k = 0; k < 8; k++)
            b.p[16 + k] = (unsigned char)(huge[i] >> (8 * k));
        expect_fail(&b, LLMMEM_ERR_PARSE, "metadata count");
        free(b.p);
        tiny_llama(&b, 3, 0);
        for (unsigned k = 0; k < 8; k++) /* the first key's length */
            b.p[24 + k] = (unsigned char)(huge[i] >> (8 * k));
        expect_fail(&b, LLMMEM_ERR_PARSE, "a metadata key has length");
        ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "(at byte 24)"));
        free(b.p);
    }
    /* a string value, an array and a nested array longer than the file */
    start(&b, 3);
    key(&b, "a", T_STRING);
    w64(&b, 1ULL << 63);
    done(&b);
    expect_fail(&b, LLMMEM_ERR_PARSE, "a string value has length 9223372036854775808");
    free(b.p);
    static const uint32_t item_types[] = {T_U8, T_U64, T_STRING, T_ARRAY};
    for (size_t i = 0; i < 4; i++) {
        start(&b, 3);
        key(&b, "a", T_ARRAY);
        w32(&b, item_types[i]);
        w64(&b, 1ULL << 60);
        done(&b);
        expect_fail(&b, LLMMEM_ERR_PARSE, "is longer than the");
        free(b.p);
    }
    /* arrays nest at most 8 deep */
    for (unsigned depth = 8; depth <= 9; depth++) {
        start(&b, 3);
        key(&b, "a", T_ARRAY);
        for (unsigned d = 1; d < depth; d++) {
            w32(&b, T_ARRAY);
            w64(&b, 1);
        }
        w32(&b, T_U8);
        w64(&b, 0);
        done(&b);
        if (depth == 8) {
            ck = load(&b);
            llmmem_checkpoint_free(ck);
        } else {
            expect_fail(&b, LLMMEM_ERR_PARSE, "nested more than 8 deep");
        }
        free(b.p);
    }
    /* unknown value types, empty and overlong keys, duplicate keys, bad alignment */
    start(&b, 3);
    key(&b, "a", 13);
    w8(&b, 0); /* a pair takes at least 14 bytes */
    done(&b);
    expect_fail(&b, LLMMEM_ERR_PARSE, "value type 13");
    free(b.p);
    start(&b, 3);
    key(&b, "a", T_ARRAY);
    w32(&b, 99);
    w64(&b, 0);
    done(&b);
    expect_fail(&b, LLMMEM_ERR_PARSE, "item type is 99");
    free(b.p);
    start(&b, 3);
    kv_u32(&b, "", 1);
    done(&b);
    expect_fail(&b, LLMMEM_ERR_PARSE, "metadata key 0 is empty");
    free(b.p);
    {
        char *k = malloc(65537);
        memset(k, 'k', 65536);
        k[65536] = '\0';
        start(&b, 3);
        kv_u32(&b, k, 1);
        done(&b);
        expect_fail(&b, LLMMEM_ERR_PARSE, "65536 bytes long");
        free(b.p);
        k[65535] = '\0'; /* 65535 bytes: the longest key allowed */
        start(&b, 3);
        kv_u32(&b, k, 1);
        done(&b);
        llmmem_checkpoint_free(load(&b));
        free(b.p);
        free(k);
    }
    start(&b, 3);
    kv_u32(&b, "llama.block_count", 1);
    kv_str(&b, "x", "y");
    kv_u64(&b, "llama.block_count", 2);
    done(&b);
    expect_fail(&b, LLMMEM_ERR_PARSE, "duplicate metadata key 'llama.block_count'");
    free(b.p);
    start(&b, 3);
    kv_u32(&b, "general.alignment", 48);
    done(&b);
    expect_fail(&b, LLMMEM_ERR_PARSE, "general.alignment 48 is not a power of two");
    free(b.p);
    start(&b, 3);
    kv_u64(&b, "general.alignment", 64);
    done(&b);
    expect_fail(&b, LLMMEM_ERR_PARSE, "general.alignment is a u64");
    free(b.p);

    /* tensor infos: n_dims 5, a Q4_K row of 100 weights, unknown and removed types, a negative
     * dimension, dims whose product overflows, a 65-byte name, a duplicate, a wrong offset */
    one_tensor(&b, F32, 4, 5, (const uint64_t[]){1, 1, 1, 1, 1});
    expect_fail(&b, LLMMEM_ERR_PARSE, "tensor 't' has 5 dimensions");
    free(b.p);
    one_tensor(&b, Q4_K, 0, DIMS(100, 1));
    expect_fail(&b, LLMMEM_ERR_PARSE, "rows of 100 elements, not a multiple of its block of 256");
    free(b.p);
    static const uint32_t unknown_types[] = {4, 5, 31, 32, 33, 36, 37, 38, 42, 77, UINT32_MAX};
    for (size_t i = 0; i < sizeof unknown_types / sizeof unknown_types[0]; i++) {
        char needle[64];
        one_tensor(&b, unknown_types[i], 0, DIMS(32));
        snprintf(needle, sizeof needle, "ggml type %u, which", unknown_types[i]);
        expect_fail(&b, LLMMEM_ERR_UNSUPPORTED, needle);
        free(b.p);
    }
    one_tensor(&b, F32, 0, DIMS(8, 1ULL << 63));
    expect_fail(&b, LLMMEM_ERR_PARSE, "dimension 1 of tensor 't' is 9223372036854775808, negative");
    free(b.p);
    one_tensor(&b, F32, 0, DIMS(1ULL << 40, 1ULL << 40));
    expect_fail(&b, LLMMEM_ERR_OVERFLOW, "the count exceeds ggml's int64");
    free(b.p);
    one_tensor(&b, F32, 0, DIMS(1ULL << 31, 1ULL << 31, 2)); /* 2^63 elements: one too many */
    expect_fail(&b, LLMMEM_ERR_OVERFLOW, "exceeds ggml's int64");
    free(b.p);
    one_tensor(&b, F32, 0, DIMS(1ULL << 31, 1ULL << 31)); /* 2^62 elements of 4 bytes: 2^64 bytes */
    expect_fail(&b, LLMMEM_ERR_OVERFLOW, "takes more than 2^64 bytes");
    free(b.p);
    start(&b, 3);
    tensor(&b, "01234567890123456789012345678901234567890123456789012345678901234", F32, 4, DIMS(1));
    done(&b);
    expect_fail(&b, LLMMEM_ERR_PARSE, "a name of 65 bytes");
    free(b.p);
    start(&b, 3);
    tensor(&b, "0123456789012345678901234567890123456789012345678901234567890123", F32, 4, DIMS(1));
    done(&b);
    llmmem_checkpoint_free(load(&b));
    free(b.p);
    start(&b, 3);
    tensor(&b, "a", F32, 4, DIMS(1));
    tensor(&b, "b", F32, 4, DIMS(1));
    tensor(&b, "a", F32, 4, DIMS(1));
    done(&b);
    expect_fail(&b, LLMMEM_ERR_PARSE, "duplicate tensor name 'a'");
    free(b.p);
    start(&b, 3);
    tensor(&b, "a", F32, 4, DIMS(1));
    tensor(&b, "b", F32, 8, DIMS(1)); /* says 1 element, but the writer counts 8 bytes for it */
    tensor(&b, "c", F32, 4, DIMS(1));
    done(&b);
    ck = load(&b); /* both end padded to 32: the same offsets */
    llmmem_checkpoint_free(ck);
    free(b.p);
    start(&b, 3);
    tensor(&b, "a", F32, 40, DIMS(1)); /* 4 bytes stored, 40 claimed: b's offset is 64, not 32 */
    tensor(&b, "b", F32, 4, DIMS(1));
    done(&b);
    expect_fail(&b, LLMMEM_ERR_PARSE, "tensor 'b' has data offset 64; ggml expects 32");
    free(b.p);

    /* a file may hold every valid ggml type at once (ggml.h enum ggml_type, the removed 4, 5,
     * 31-33, 36-38 left out): all 33 are kept as distinct dtypes */
    start(&b, 3);
    static const uint32_t ids[33] = {0,  1,  2,  3,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18,
                                     19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 34, 35, 39, 40};
    for (int i = 0; i < 33; i++) {
        char n[16];
        snprintf(n, sizeof n, "t%d", i);
        tensor(&b, n, ids[i], 0, DIMS(0));
    }
    done(&b);
    llmmem_checkpoint *all = load(&b);
    ck_assert_uint_eq(llmmem_checkpoint_dtype_count(all), 33);
    llmmem_checkpoint_free(all);
    free(b.p);

    /* NULL arguments */
    ck_assert_status(llmmem_checkpoint_from_gguf_bytes(NULL, "GGUF", 4), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_checkpoint_from_gguf_bytes(&ck, NULL, 4), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_checkpoint_from_gguf(&ck, NULL), LLMMEM_ERR_INVALID_ARGUMENT);
    ck_assert_status(llmmem_checkpoint_model(NULL, NULL), LLMMEM_ERR_INVALID_ARGUMENT);
}
END_TEST

/* Each ggml type's bytes: gguf-py/gguf/constants.py GGML_QUANT_SIZES (block, type size), except
 * Q8_1, whose ggml-common.h block_q8_1 holds d and s as fp16 (36 bytes; constants.py still says
 * 4 + 4 + 32). A tensor of 3 rows of 2 blocks, then one F32 value at the padded offset. */
START_TEST(ggml_type_sizes)
{
    static const struct {
        uint32_t id;
        const char *name;
        unsigned block, size;
    } types[] = {
        {0, "F32", 1, 4},          {1, "F16", 1, 2},         {2, "Q4_0", 32, 18},     {3, "Q4_1", 32, 20},
        {6, "Q5_0", 32, 22},       {7, "Q5_1", 32, 24},      {8, "Q8_0", 32, 34},     {9, "Q8_1", 32, 36},
        {10, "Q2_K", 256, 84},     {11, "Q3_K", 256, 110},   {12, "Q4_K", 256, 144},  {13, "Q5_K", 256, 176},
        {14, "Q6_K", 256, 210},    {15, "Q8_K", 256, 292},   {16, "IQ2_XXS", 256, 66}, {17, "IQ2_XS", 256, 74},
        {18, "IQ3_XXS", 256, 98},  {19, "IQ1_S", 256, 50},   {20, "IQ4_NL", 32, 18},  {21, "IQ3_S", 256, 110},
        {22, "IQ2_S", 256, 82},    {23, "IQ4_XS", 256, 136}, {24, "I8", 1, 1},        {25, "I16", 1, 2},
        {26, "I32", 1, 4},         {27, "I64", 1, 8},        {28, "F64", 1, 8},       {29, "IQ1_M", 256, 56},
        {30, "BF16", 1, 2},        {34, "TQ1_0", 256, 54},   {35, "TQ2_0", 256, 66},  {39, "MXFP4", 32, 17},
        {40, "NVFP4", 64, 36},     {41, "Q1_0", 128, 18},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        buf b;
        uint64_t bytes = 3 * 2 * (uint64_t)types[i].size;
        start(&b, 3);
        tensor(&b, "blk.0.ffn_up.weight", types[i].id, bytes, DIMS(2 * (uint64_t)types[i].block, 3));
        tensor(&b, "blk.0.ffn_norm.weight", F32, 4, DIMS(1));
        done(&b);
        llmmem_checkpoint *ck = load(&b);
        const char *dtype;
        uint64_t elements, n;
        ck_assert_ok(llmmem_checkpoint_tensor(NULL, &dtype, &elements, &n, NULL, NULL, ck, 0));
        ck_assert_str_eq(dtype, types[i].name);
        ck_assert_uint_eq(elements, 6 * (uint64_t)types[i].block);
        ck_assert_msg(n == bytes, "%s: %llu bytes, expected %llu", types[i].name, (unsigned long long)n,
                      (unsigned long long)bytes);
        ck_assert_uint_eq(llmmem_checkpoint_total_bytes(ck), bytes + 4);
        llmmem_checkpoint_free(ck);
        free(b.p);
        if (types[i].block > 1) { /* half a block more per row: ggml refuses it */
            one_tensor(&b, types[i].id, 0, DIMS(types[i].block + types[i].block / 2, 1));
            expect_fail(&b, LLMMEM_ERR_PARSE, "not a multiple of its block");
            free(b.p);
        }
    }
    /* zero-element tensors take no bytes (ggml_nbytes) */
    buf b;
    start(&b, 3);
    tensor(&b, "empty", Q4_K, 0, DIMS(0, 1ULL << 62, 1ULL << 62));
    tensor(&b, "next", F32, 4, DIMS(1));
    done(&b);
    llmmem_checkpoint *ck = load(&b);
    ck_assert_uint_eq(llmmem_checkpoint_total_bytes(ck), 4);
    llmmem_checkpoint_free(ck);
    free(b.p);
}
END_TEST

/* A file of the header and then `size` bytes in all (zeros past the header, sparse). */
static void write_gguf(const char *path, const buf *b, uint64_t size)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(b->p, 1, b->len, f), b->len);
    ck_assert_int_eq(fflush(f), 0);
    ck_assert_int_eq(ftruncate(fileno(f), (off_t)size), 0);
    fclose(f);
}

/* The path API reads the header through its buffer, seeking past long strings; the same result.
 * A file must hold the tensor data too: it starts at the header's end padded to general.alignment
 * (32 here) and the last tensor, output_norm.weight (1024 bytes, a multiple of 32), ends at
 * b.data_end after it (docs/gguf.md; llama.cpp llama-model-loader "data is not within the file
 * bounds"). */
START_TEST(from_file)
{
    buf b;
    sums s = tiny_llama(&b, 3, 200000);
    char path[] = "/tmp/llmmem-gguf-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    uint64_t whole = (b.len + 31) / 32 * 32 + b.data_end;
    write_gguf(path, &b, whole);
    llmmem_checkpoint *ck;
    ck_assert_ok(llmmem_checkpoint_from_gguf(&ck, path));
    ck_assert_uint_eq(llmmem_checkpoint_tensor_count(ck), 21);
    ck_assert_uint_eq(llmmem_checkpoint_total_bytes(ck), s.total);
    llmmem_model *m;
    ck_assert_ok(llmmem_checkpoint_model(&m, ck));
    ck_assert_ok(llmmem_checkpoint_verify(ck, m));
    ck_assert_str_eq(llmmem_model_name(m), path); /* named by the file (issue 28), not "" */
    llmmem_model_free(m);
    llmmem_checkpoint_free(ck);

    /* bytes after the last tensor's data are allowed, as in llama.cpp */
    write_gguf(path, &b, whole + 100);
    ck_assert_ok(llmmem_checkpoint_from_gguf(&ck, path));
    llmmem_checkpoint_free(ck);
    /* one byte of data short, and no data at all: the tensor whose data is cut is named */
    write_gguf(path, &b, whole - 1);
    ck_assert_status(llmmem_checkpoint_from_gguf(&ck, path), LLMMEM_ERR_PARSE);
    ck_assert_ptr_null(ck);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), path));
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "tensor 'output_norm.weight' needs data bytes"));
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "the tensor data is missing or truncated"));
    write_gguf(path, &b, b.len);
    ck_assert_status(llmmem_checkpoint_from_gguf(&ck, path), LLMMEM_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "tensor 'token_embd.weight' needs data bytes"));
    /* the same header from memory is the start of a file: its data is not looked for */
    ck_assert_ok(llmmem_checkpoint_from_gguf_bytes(&ck, b.p, b.len));
    llmmem_checkpoint_free(ck);

    /* truncated files fail as truncated memory does, naming the path */
    FILE *f;
    for (size_t n = 0; n < b.len; n += n < 2048 ? 7 : 4099) {
        f = fopen(path, "wb");
        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(fwrite(b.p, 1, n, f), n);
        fclose(f);
        ck = (llmmem_checkpoint *)&ck;
        ck_assert_status(llmmem_checkpoint_from_gguf(&ck, path), LLMMEM_ERR_PARSE);
        ck_assert_ptr_null(ck);
        ck_assert_ptr_nonnull(strstr(llmmem_last_message(), path));
    }
    remove(path);
    ck_assert_status(llmmem_checkpoint_from_gguf(&ck, "/no/such.gguf"), LLMMEM_ERR_IO);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "/no/such.gguf"));
    ck_assert_status(llmmem_checkpoint_from_gguf(&ck, "/tmp"), LLMMEM_ERR_IO);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "not a regular file"));
    free(b.p);
}
END_TEST

/* A named pipe with no writer is refused at once (issue 14: open(2) without O_NONBLOCK waited for
 * a writer forever); the alarm ends the test process should it block again. */
START_TEST(fifo_is_refused)
{
    char dir[] = "/tmp/llmmem-gguf-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[64], want[128];
    snprintf(path, sizeof path, "%s/model.gguf", dir);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    alarm(120); /* a hang guard: the calls take milliseconds */
    llmmem_checkpoint *ck = (llmmem_checkpoint *)&ck;
    ck_assert_status(llmmem_checkpoint_from_gguf(&ck, path), LLMMEM_ERR_IO);
    ck_assert_ptr_null(ck);
    snprintf(want, sizeof want, "%s: is not a regular file (a named pipe)", path);
    ck_assert_str_eq(llmmem_last_message(), want);
    ck_assert_status(llmmem_checkpoint_from_gguf(&ck, "/dev/zero"), LLMMEM_ERR_IO);
    ck_assert_str_eq(llmmem_last_message(), "/dev/zero: is not a regular file (a character device)");
    alarm(0);
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* ---- models from metadata ----------------------------------------------------------------- */

static void check_model(const buf *b, llmmem_model_type type)
{
    llmmem_checkpoint *ck = load(b);
    llmmem_model *m;
    int64_t v;
    uint64_t total;
    ck_assert_ok(llmmem_checkpoint_model(&m, ck));
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_MODEL_TYPE));
    ck_assert_int_eq(v, type);
    ck_assert_ok(llmmem_model_total_parameters(&total, m));
    ck_assert_uint_eq(total, llmmem_checkpoint_role_elements(ck, LLMMEM_TENSOR_PARAMETER));
    ck_assert_ok(llmmem_checkpoint_verify(ck, m));
    llmmem_model_free(m);
    llmmem_checkpoint_free(ck);
}

/* Qwen3-MoE: experts stored as 3-D tensors (llama.cpp ffn_*_exps), q/k norms, no LM head
 * (tied), F16 matrices. */
static void tiny_qwen3moe(buf *b, int tied)
{
    start(b, 3);
    kv_str(b, "general.architecture", "qwen3moe");
    kv_u32(b, "qwen3moe.block_count", 2);
    kv_u32(b, "qwen3moe.embedding_length", 64);
    kv_u32(b, "qwen3moe.feed_forward_length", 96); /* unused: every layer is MoE */
    kv_u32(b, "qwen3moe.expert_feed_forward_length", 32);
    kv_u32(b, "qwen3moe.expert_count", 4);
    kv_u32(b, "qwen3moe.expert_used_count", 2);
    kv_u32(b, "qwen3moe.attention.head_count", 4);
    kv_u32(b, "qwen3moe.attention.head_count_kv", 2);
    kv_u32(b, "qwen3moe.attention.key_length", 32); /* head_dim 32, not 64 / 4 */
    kv_u32(b, "qwen3moe.attention.value_length", 32);
    kv_u32(b, "qwen3moe.vocab_size", 16);
    tensor(b, "token_embd.weight", F16, 16 * 64 * 2, DIMS(64, 16));
    for (int l = 0; l < 2; l++) {
        char n[64];
#define NAME(x) (snprintf(n, sizeof n, "blk.%d." x, l), n)
        tensor(b, NAME("attn_norm.weight"), F32, 64 * 4, DIMS(64));
        tensor(b, NAME("attn_q.weight"), F16, 128 * 64 * 2, DIMS(64, 128));
        tensor(b, NAME("attn_k.weight"), F16, 64 * 64 * 2, DIMS(64, 64));
        tensor(b, NAME("attn_v.weight"), F16, 64 * 64 * 2, DIMS(64, 64));
        tensor(b, NAME("attn_q_norm.weight"), F32, 32 * 4, DIMS(32));
        tensor(b, NAME("attn_k_norm.weight"), F32, 32 * 4, DIMS(32));
        tensor(b, NAME("attn_output.weight"), F16, 64 * 128 * 2, DIMS(128, 64));
        tensor(b, NAME("ffn_norm.weight"), F32, 64 * 4, DIMS(64));
        tensor(b, NAME("ffn_gate_inp.weight"), F32, 4 * 64 * 4, DIMS(64, 4));
        tensor(b, NAME("ffn_gate_exps.weight"), F16, 4 * 32 * 64 * 2, DIMS(64, 32, 4));
        tensor(b, NAME("ffn_up_exps.weight"), F16, 4 * 32 * 64 * 2, DIMS(64, 32, 4));
        tensor(b, NAME("ffn_down_exps.weight"), F16, 4 * 64 * 32 * 2, DIMS(32, 64, 4));
#undef NAME
    }
    tensor(b, "output_norm.weight", F32, 64 * 4, DIMS(64));
    if (!tied)
        tensor(b, "output.weight", BF16, 16 * 64 * 2, DIMS(64, 16));
    done(b);
}

START_TEST(model_qwen3moe)
{
    buf b;
    tiny_qwen3moe(&b, 1);
    check_model(&b, LLMMEM_MODEL_QWEN3_MOE);
    llmmem_checkpoint *ck = load(&b);
    llmmem_model *m;
    int64_t v;
    ck_assert_ok(llmmem_checkpoint_model(&m, ck));
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS));
    ck_assert_int_eq(v, 1);
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_TORCH_DTYPE));
    ck_assert_int_eq(v, LLMMEM_FORMAT_FP16); /* the matrices' float type, not the F32 norms and router */
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_HEAD_DIM));
    ck_assert_int_eq(v, 32);
    uint64_t experts;
    ck_assert_ok(llmmem_model_parameters(&experts, m, LLMMEM_PARAMS_EXPERTS));
    ck_assert_uint_eq(experts, 2 * 4 * 3 * 32 * 64);
    llmmem_model_free(m);
    llmmem_checkpoint_free(ck);
    free(b.p);
    tiny_qwen3moe(&b, 0);
    check_model(&b, LLMMEM_MODEL_QWEN3_MOE);
    free(b.p);
}
END_TEST

/* DeepSeek-V3 with multi-head latent attention in llama.cpp's current form (attn_k_b / attn_v_b,
 * key_length_mla), one leading dense layer, a shared expert and exp_probs_b (the router's score
 * correction bias, which makes it V3). */
static void tiny_deepseek(buf *b, int legacy, int v3)
{
    const uint64_t h = 64, heads = 2, q_rank = 32, kv_rank = 16, rope = 8, nope = 16, vdim = 16, f = 96, fe = 32, E = 4;
    start(b, 3);
    kv_str(b, "general.architecture", "deepseek2");
    kv_u32(b, "deepseek2.block_count", 2);
    kv_u32(b, "deepseek2.embedding_length", (uint32_t)h);
    kv_u32(b, "deepseek2.feed_forward_length", (uint32_t)f);
    kv_u32(b, "deepseek2.attention.head_count", (uint32_t)heads);
    kv_u32(b, "deepseek2.attention.head_count_kv", 1);
    kv_u32(b, "deepseek2.leading_dense_block_count", 1);
    kv_u32(b, "deepseek2.attention.q_lora_rank", (uint32_t)q_rank);
    kv_u32(b, "deepseek2.attention.kv_lora_rank", (uint32_t)kv_rank);
    kv_u32(b, "deepseek2.rope.dimension_count", (uint32_t)rope);
    if (legacy) {
        kv_u32(b, "deepseek2.attention.key_length", (uint32_t)(nope + rope));
        kv_u32(b, "deepseek2.attention.value_length", (uint32_t)vdim);
    } else {
        kv_u32(b, "deepseek2.attention.key_length", (uint32_t)(kv_rank + rope));
        kv_u32(b, "deepseek2.attention.value_length", (uint32_t)kv_rank);
        kv_u32(b, "deepseek2.attention.key_length_mla", (uint32_t)(nope + rope));
        kv_u32(b, "deepseek2.attention.value_length_mla", (uint32_t)vdim);
    }
    kv_u32(b, "deepseek2.expert_count", (uint32_t)E);
    kv_u32(b, "deepseek2.expert_used_count", 2);
    kv_u32(b, "deepseek2.expert_shared_count", 1);
    kv_u32(b, "deepseek2.expert_feed_forward_length", (uint32_t)fe);
    kv_tokens(b, 16);
    tensor(b, "token_embd.weight", BF16, 16 * h * 2, DIMS(h, 16));
    for (int l = 0; l < 2; l++) {
        char n[64];
#define NAME(x) (snprintf(n, sizeof n, "blk.%d." x, l), n)
        tensor(b, NAME("attn_norm.weight"), F32, h * 4, DIMS(h));
        tensor(b, NAME("attn_q_a.weight"), BF16, q_rank * h * 2, DIMS(h, q_rank));
        tensor(b, NAME("attn_q_a_norm.weight"), F32, q_rank * 4, DIMS(q_rank));
        tensor(b, NAME("attn_q_b.weight"), BF16, heads * (nope + rope) * q_rank * 2, DIMS(q_rank, heads * (nope + rope)));
        tensor(b, NAME("attn_kv_a_mqa.weight"), BF16, (kv_rank + rope) * h * 2, DIMS(h, kv_rank + rope));
        tensor(b, NAME("attn_kv_a_norm.weight"), F32, kv_rank * 4, DIMS(kv_rank));
        if (legacy) {
            tensor(b, NAME("attn_kv_b.weight"), BF16, heads * (nope + vdim) * kv_rank * 2,
                   DIMS(kv_rank, heads * (nope + vdim)));
        } else {
            tensor(b, NAME("attn_k_b.weight"), BF16, heads * nope * kv_rank * 2, DIMS(nope, kv_rank, heads));
            tensor(b, NAME("attn_v_b.weight"), BF16, heads * vdim * kv_rank * 2, DIMS(kv_rank, vdim, heads));
        }
        tensor(b, NAME("attn_output.weight"), BF16, h * heads * vdim * 2, DIMS(heads * vdim, h));
        tensor(b, NAME("ffn_norm.weight"), F32, h * 4, DIMS(h));
        if (l == 0) {
            tensor(b, NAME("ffn_gate.weight"), BF16, f * h * 2, DIMS(h, f));
            tensor(b, NAME("ffn_up.weight"), BF16, f * h * 2, DIMS(h, f));
            tensor(b, NAME("ffn_down.weight"), BF16, f * h * 2, DIMS(f, h));
        } else {
            tensor(b, NAME("ffn_gate_inp.weight"), F32, E * h * 4, DIMS(h, E));
            if (v3)
                tensor(b, NAME("exp_probs_b.bias"), F32, E * 4, DIMS(E));
            tensor(b, NAME("ffn_gate_exps.weight"), BF16, E * fe * h * 2, DIMS(h, fe, E));
            tensor(b, NAME("ffn_up_exps.weight"), BF16, E * fe * h * 2, DIMS(h, fe, E));
            tensor(b, NAME("ffn_down_exps.weight"), BF16, E * fe * h * 2, DIMS(fe, h, E));
            tensor(b, NAME("ffn_gate_shexp.weight"), BF16, fe * h * 2, DIMS(h, fe));
            tensor(b, NAME("ffn_up_shexp.weight"), BF16, fe * h * 2, DIMS(h, fe));
            tensor(b, NAME("ffn_down_shexp.weight"), BF16, fe * h * 2, DIMS(fe, h));
        }
#undef NAME
    }
    tensor(b, "output_norm.weight", F32, h * 4, DIMS(h));
    tensor(b, "output.weight", BF16, 16 * h * 2, DIMS(h, 16));
    done(b);
}

START_TEST(model_deepseek_mla)
{
    buf b;
    tiny_deepseek(&b, 0, 1);
    check_model(&b, LLMMEM_MODEL_DEEPSEEK_V3);
    llmmem_checkpoint *ck = load(&b);
    llmmem_model *m;
    int64_t v;
    ck_assert_ok(llmmem_checkpoint_model(&m, ck));
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_QK_NOPE_HEAD_DIM));
    ck_assert_int_eq(v, 16);
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_V_HEAD_DIM));
    ck_assert_int_eq(v, 16);
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_TORCH_DTYPE));
    ck_assert_int_eq(v, LLMMEM_FORMAT_BF16);
    llmmem_model_free(m);
    llmmem_checkpoint_free(ck);
    free(b.p);
    tiny_deepseek(&b, 1, 0); /* files converted before llama.cpp split kv_b: V2 without exp_probs_b */
    check_model(&b, LLMMEM_MODEL_DEEPSEEK_V2);
    free(b.p);
}
END_TEST

/* Gemma 2 with per-layer sliding flags (llama.cpp swa_layers): every second layer global. */
START_TEST(model_sliding_pattern)
{
    for (int variant = 0; variant < 4; variant++) {
        buf b;
        start(&b, 3);
        kv_str(&b, "general.architecture", "gemma2");
        kv_u32(&b, "gemma2.block_count", 4);
        kv_u32(&b, "gemma2.embedding_length", 32);
        kv_u32(&b, "gemma2.feed_forward_length", 64);
        kv_u32(&b, "gemma2.attention.head_count", 2);
        kv_u32(&b, "gemma2.attention.head_count_kv", 1);
        kv_u32(&b, "gemma2.attention.key_length", 16);
        kv_u32(&b, "gemma2.attention.sliding_window", 4096);
        static const uint8_t flags[4][4] = {{1, 0, 1, 0}, {1, 1, 1, 1}, {1, 1, 1, 0}, {1, 0, 0, 1}};
        kv_bool_array(&b, "gemma2.attention.sliding_window_pattern", flags[variant], 4);
        kv_tokens(&b, 8);
        tensor(&b, "token_embd.weight", F32, 8 * 32 * 4, DIMS(32, 8));
        done(&b);
        llmmem_checkpoint *ck = load(&b);
        llmmem_model *m;
        int64_t v;
        if (variant == 3) {
            ck_assert_status(llmmem_checkpoint_model(&m, ck), LLMMEM_ERR_UNSUPPORTED);
            ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "gemma2.attention.sliding_window_pattern makes no"));
        } else {
            ck_assert_ok(llmmem_checkpoint_model(&m, ck));
            ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_SLIDING_WINDOW_PATTERN));
            ck_assert_int_eq(v, variant == 0 ? 2 : variant == 1 ? 0 : 4);
            ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_SLIDING_WINDOW));
            ck_assert_int_eq(v, 4096);
            ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS));
            ck_assert_int_eq(v, 1);
            ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_TORCH_DTYPE));
            ck_assert_int_eq(v, LLMMEM_FORMAT_FP32);
            llmmem_model_free(m);
        }
        llmmem_checkpoint_free(ck);
        free(b.p);
    }
}
END_TEST

/* A small metadata set for the failures: llama unless told otherwise. */
static void meta_only(buf *b, const char *arch, const char *skip_key, int heads_kind)
{
    char k[96];
    start(b, 3);
    if (arch)
        kv_str(b, "general.architecture", arch);
    const char *a = arch ? arch : "llama";
#define KEY(x) (snprintf(k, sizeof k, "%s." x, a), k)
    if (!skip_key || strcmp(skip_key, "block_count") != 0)
        kv_u32(b, KEY("block_count"), 2);
    kv_u32(b, KEY("embedding_length"), 64);
    if (!skip_key || strcmp(skip_key, "feed_forward_length") != 0)
        kv_u32(b, KEY("feed_forward_length"), 128);
    if (heads_kind == 0) {
        kv_u32(b, KEY("attention.head_count"), 4);
    } else if (heads_kind == 1) {
        kv_f32(b, KEY("attention.head_count"));
    } else {
        static const uint32_t uniform[2] = {4, 4}, varying[2] = {4, 8};
        kv_u32_array(b, KEY("attention.head_count"), heads_kind == 2 ? uniform : varying, 2);
    }
#undef KEY
    if (!skip_key || strcmp(skip_key, "vocab") != 0)
        kv_tokens(b, 8);
    tensor(b, "blk.0.attn_q.weight", Q8_0, 64 * 34 * 2, DIMS(64, 64));
    done(b);
}

START_TEST(model_failures)
{
    buf b;
    /* the tensors load and their sums hold without a model; the model says why there is none */
    meta_only(&b, "mamba", NULL, 0);
    llmmem_checkpoint *ck = load(&b);
    ck_assert_uint_eq(llmmem_checkpoint_total_bytes(ck), 64 * 2 * 34);
    llmmem_checkpoint_free(ck);
    expect_model_fail(&b, LLMMEM_ERR_UNSUPPORTED, "general.architecture 'mamba' is not modelled (known: llama,");
    free(b.p);
    meta_only(&b, NULL, NULL, 0);
    expect_model_fail(&b, LLMMEM_ERR_PARSE, "<memory>: general.architecture is missing");
    free(b.p);
    start(&b, 3);
    kv_u32(&b, "general.architecture", 1);
    done(&b);
    expect_model_fail(&b, LLMMEM_ERR_PARSE, "general.architecture is a u32, not a string (at byte 24)");
    free(b.p);
    meta_only(&b, "llama", "block_count", 0);
    expect_model_fail(&b, LLMMEM_ERR_PARSE, "llama.block_count is missing");
    free(b.p);
    meta_only(&b, "qwen2", "feed_forward_length", 0);
    expect_model_fail(&b, LLMMEM_ERR_PARSE, "qwen2.feed_forward_length is missing");
    free(b.p);
    meta_only(&b, "llama", "vocab", 0);
    expect_model_fail(&b, LLMMEM_ERR_PARSE, "neither llama.vocab_size nor tokenizer.ggml.tokens");
    free(b.p);
    meta_only(&b, "llama", NULL, 1);
    expect_model_fail(&b, LLMMEM_ERR_PARSE, "llama.attention.head_count is a f32, not an integer");
    free(b.p);
    meta_only(&b, "llama", NULL, 3);
    expect_model_fail(&b, LLMMEM_ERR_UNSUPPORTED, "llama.attention.head_count differs between layers");
    free(b.p);
    meta_only(&b, "llama", NULL, 2); /* the same value on every layer is that value */
    ck = load(&b);
    llmmem_model *m;
    ck_assert_ok(llmmem_checkpoint_model(&m, ck));
    int64_t v;
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_NUM_ATTENTION_HEADS));
    ck_assert_int_eq(v, 4);
    llmmem_model_free(m);
    llmmem_checkpoint_free(ck);
    free(b.p);
    meta_only(&b, "gpt2", NULL, 0);
    expect_model_fail(&b, LLMMEM_ERR_PARSE, "gpt2.context_length is missing");
    free(b.p);

    /* a value the model keys refuse: the message names the GGUF key and the model key */
    start(&b, 3);
    kv_str(&b, "general.architecture", "llama");
    kv_u32(&b, "llama.block_count", 2);
    kv_u32(&b, "llama.embedding_length", 0);
    kv_u32(&b, "llama.feed_forward_length", 128);
    kv_u32(&b, "llama.attention.head_count", 4);
    kv_u32(&b, "llama.vocab_size", 8);
    done(&b);
    expect_model_fail(&b, LLMMEM_ERR_OUT_OF_RANGE, "<memory>: llama.embedding_length: ");
    free(b.p);
    /* settings the inventory refuses: 3 heads over 2 KV heads */
    start(&b, 3);
    kv_str(&b, "general.architecture", "llama");
    kv_u32(&b, "llama.block_count", 2);
    kv_u32(&b, "llama.embedding_length", 48);
    kv_u32(&b, "llama.feed_forward_length", 128);
    kv_u32(&b, "llama.attention.head_count", 3);
    kv_u32(&b, "llama.attention.head_count_kv", 2);
    kv_u32(&b, "llama.vocab_size", 8);
    done(&b);
    expect_model_fail(&b, LLMMEM_ERR_INCOMPATIBLE, "the model llama describes: num_attention_heads (3)");
    free(b.p);
    /* experts without a count of experts used */
    start(&b, 3);
    kv_str(&b, "general.architecture", "llama");
    kv_u32(&b, "llama.block_count", 2);
    kv_u32(&b, "llama.embedding_length", 64);
    kv_u32(&b, "llama.feed_forward_length", 128);
    kv_u32(&b, "llama.attention.head_count", 4);
    kv_u32(&b, "llama.vocab_size", 8);
    kv_u32(&b, "llama.expert_count", 8);
    done(&b);
    expect_model_fail(&b, LLMMEM_ERR_PARSE, "llama.expert_used_count is missing (llama.expert_count is 8)");
    free(b.p);

    /* a safetensors-style checkpoint describes no model */
    ck_assert_ok(llmmem_checkpoint_from_safetensors_bytes(&ck, "\x02\0\0\0\0\0\0\0{}", 10));
    ck_assert_status(llmmem_checkpoint_model(&m, ck), LLMMEM_ERR_NOT_FOUND);
    llmmem_checkpoint_free(ck);
}
END_TEST

/* llmmem_local_estimate, engine llama.cpp, on the model and the checkpoint of b: n_ctx cells, one
 * sequence, the default ubatch of 512, the whole model on one GPU. */
static void local_bytes(const buf *b, int64_t n_ctx, uint64_t *kv, uint64_t *recurrent, uint64_t *kv_size_swa)
{
    llmmem_checkpoint *ck = load(b);
    llmmem_model *m;
    llmmem_hardware *hw;
    llmmem_strategy *s;
    llmmem_local *r;
    ck_assert_ok(llmmem_checkpoint_model(&m, ck));
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "h100-sxm-80gb"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_strategy_set_text(s, "engine", "llama.cpp"));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_N_CTX, n_ctx));
    ck_assert_ok(llmmem_strategy_set_int(s, LLMMEM_KEY_N_PARALLEL, 1));
    ck_assert_ok(llmmem_local_new(&r));
    ck_assert_ok(llmmem_local_estimate(r, m, ck, hw, s));
    *kv = llmmem_local_get(r, LLMMEM_LOCAL_KV_BYTES);
    *recurrent = llmmem_local_get(r, LLMMEM_LOCAL_RECURRENT_BYTES);
    *kv_size_swa = llmmem_local_get(r, LLMMEM_LOCAL_KV_SIZE_SWA);
    llmmem_local_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
    llmmem_checkpoint_free(ck);
}

/* gpt-oss as convert_hf_to_gguf.py GptOssModel writes it (llama.cpp LLM_ARCH_OPENAI_MOE): head_dim
 * from key_length (32, not 64 / 4), sliding_window 128, attn_post_norm, biased q/k/v/o, attn_sinks
 * per head, a biased router and biased experts in MXFP4 (17 bytes per 32). */
static void tiny_gpt_oss(buf *b, int with_window)
{
    const uint64_t h = 64, heads = 4, kv = 2, hd = 32, fe = 32, E = 4, V = 16;
    start(b, 3);
    kv_str(b, "general.architecture", "gpt-oss");
    kv_u32(b, "gpt-oss.block_count", 2);
    kv_u32(b, "gpt-oss.context_length", 4096);
    kv_u32(b, "gpt-oss.embedding_length", (uint32_t)h);
    kv_u32(b, "gpt-oss.feed_forward_length", (uint32_t)fe);
    kv_u32(b, "gpt-oss.attention.head_count", (uint32_t)heads);
    kv_u32(b, "gpt-oss.attention.head_count_kv", (uint32_t)kv);
    kv_u32(b, "gpt-oss.attention.key_length", (uint32_t)hd);
    kv_u32(b, "gpt-oss.attention.value_length", (uint32_t)hd);
    kv_u32(b, "gpt-oss.rope.dimension_count", (uint32_t)hd);
    if (with_window)
        kv_u32(b, "gpt-oss.attention.sliding_window", 128);
    kv_u32(b, "gpt-oss.expert_count", (uint32_t)E);
    kv_u32(b, "gpt-oss.expert_used_count", 2);
    kv_u32(b, "gpt-oss.expert_feed_forward_length", (uint32_t)fe);
    kv_tokens(b, (unsigned)V);
    tensor(b, "token_embd.weight", F16, V * h * 2, DIMS(h, V));
    for (int l = 0; l < 2; l++) {
        char n[64];
#define NAME(x) (snprintf(n, sizeof n, "blk.%d." x, l), n)
        tensor(b, NAME("attn_norm.weight"), F32, h * 4, DIMS(h));
        tensor(b, NAME("attn_post_norm.weight"), F32, h * 4, DIMS(h));
        tensor(b, NAME("attn_q.weight"), F16, heads * hd * h * 2, DIMS(h, heads * hd));
        tensor(b, NAME("attn_q.bias"), F32, heads * hd * 4, DIMS(heads * hd));
        tensor(b, NAME("attn_k.weight"), F16, kv * hd * h * 2, DIMS(h, kv * hd));
        tensor(b, NAME("attn_k.bias"), F32, kv * hd * 4, DIMS(kv * hd));
        tensor(b, NAME("attn_v.weight"), F16, kv * hd * h * 2, DIMS(h, kv * hd));
        tensor(b, NAME("attn_v.bias"), F32, kv * hd * 4, DIMS(kv * hd));
        tensor(b, NAME("attn_output.weight"), F16, h * heads * hd * 2, DIMS(heads * hd, h));
        tensor(b, NAME("attn_output.bias"), F32, h * 4, DIMS(h));
        tensor(b, NAME("attn_sinks.weight"), F32, heads * 4, DIMS(heads));
        tensor(b, NAME("ffn_gate_inp.weight"), F32, E * h * 4, DIMS(h, E));
        tensor(b, NAME("ffn_gate_inp.bias"), F32, E * 4, DIMS(E));
        tensor(b, NAME("ffn_gate_exps.weight"), MXFP4, E * fe * h / 32 * 17, DIMS(h, fe, E));
        tensor(b, NAME("ffn_gate_exps.bias"), F32, E * fe * 4, DIMS(fe, E));
        tensor(b, NAME("ffn_up_exps.weight"), MXFP4, E * fe * h / 32 * 17, DIMS(h, fe, E));
        tensor(b, NAME("ffn_up_exps.bias"), F32, E * fe * 4, DIMS(fe, E));
        tensor(b, NAME("ffn_down_exps.weight"), MXFP4, E * h * fe / 32 * 17, DIMS(fe, h, E));
        tensor(b, NAME("ffn_down_exps.bias"), F32, E * h * 4, DIMS(h, E));
#undef NAME
    }
    tensor(b, "output_norm.weight", F32, h * 4, DIMS(h));
    tensor(b, "output.weight", F16, V * h * 2, DIMS(h, V));
    done(b);
}

START_TEST(model_gpt_oss)
{
    buf b;
    tiny_gpt_oss(&b, 1);
    check_model(&b, LLMMEM_MODEL_GPT_OSS);
    llmmem_checkpoint *ck = load(&b);
    llmmem_model *m;
    int64_t v;
    ck_assert_ok(llmmem_checkpoint_model(&m, ck));
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_HEAD_DIM));
    ck_assert_int_eq(v, 32);
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_SLIDING_WINDOW));
    ck_assert_int_eq(v, 128);
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_SLIDING_WINDOW_PATTERN));
    ck_assert_int_eq(v, 2);
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_ATTENTION_SINKS));
    ck_assert_int_eq(v, 1);
    uint64_t p;
    ck_assert_ok(llmmem_model_parameters(&p, m, LLMMEM_PARAMS_EXPERTS)); /* 3 matrices and their biases */
    ck_assert_uint_eq(p, 2 * 4 * (3 * 32 * 64 + 2 * 32 + 64));
    ck_assert_ok(llmmem_model_parameters(&p, m, LLMMEM_PARAMS_ROUTER));
    ck_assert_uint_eq(p, 2 * (4 * 64 + 4));
    llmmem_model_free(m);
    llmmem_checkpoint_free(ck);

    /* llama-kv-cache-iswa.cpp: layer 0 slides (il % 2 == 0), layer 1 keeps n_ctx 2048 cells; the
     * window takes GGML_PAD(128 * 1 + 512, 256) = 768 cells; a cell of a layer holds K and V of 2 KV
     * heads of 32 in F16: 2 * 2 * 32 * 2 = 256 bytes */
    uint64_t kv, rs, swa;
    local_bytes(&b, 2048, &kv, &rs, &swa);
    ck_assert_uint_eq(swa, 768);
    ck_assert_uint_eq(kv, 256u * (2048 + 768));
    ck_assert_uint_eq(rs, 0);
    free(b.p);

    tiny_gpt_oss(&b, 0); /* llama.cpp's load_hparams requires the window */
    expect_model_fail(&b, LLMMEM_ERR_PARSE, "gpt-oss.attention.sliding_window is missing");
    free(b.p);
}
END_TEST

/* Qwen3-Next as convert_hf_to_gguf.py Qwen3NextModel writes it (llama.cpp qwen3next): 4 layers, layer 3
 * gated attention (attn_q holds query and gate: 2 heads of 32 twice), layers 0-2 Gated DeltaNet with 2 key
 * heads and 4 value heads of 16 (ssm.state_size 16, group_count 2, time_step_rank 4, inner_size 64,
 * conv_kernel 4); every layer 4 experts of 32 and a gated shared expert of 32. `split`: the newer
 * converter's attn_qkv + attn_gate and ssm_beta_alpha instead of ssm_in and ssm_ba. */
static void tiny_qwen3next(buf *b, int split)
{
    const uint64_t h = 64, heads = 2, hd = 32, nk = 2, nv = 4, dk = 16, dv = 16, E = 4, fe = 32, V = 16;
    const uint64_t key_dim = nk * dk, value_dim = nv * dv, conv_dim = 2 * key_dim + value_dim;
    start(b, 3);
    kv_str(b, "general.architecture", "qwen3next");
    kv_u32(b, "qwen3next.block_count", 4);
    kv_u32(b, "qwen3next.context_length", 4096);
    kv_u32(b, "qwen3next.embedding_length", (uint32_t)h);
    kv_u32(b, "qwen3next.feed_forward_length", 96);
    kv_u32(b, "qwen3next.attention.head_count", (uint32_t)heads);
    kv_u32(b, "qwen3next.attention.head_count_kv", 1);
    kv_u32(b, "qwen3next.attention.key_length", (uint32_t)hd);
    kv_u32(b, "qwen3next.attention.value_length", (uint32_t)hd);
    kv_u32(b, "qwen3next.rope.dimension_count", 8);
    kv_u32(b, "qwen3next.expert_count", (uint32_t)E);
    kv_u32(b, "qwen3next.expert_used_count", 2);
    kv_u32(b, "qwen3next.expert_feed_forward_length", (uint32_t)fe);
    kv_u32(b, "qwen3next.expert_shared_feed_forward_length", (uint32_t)fe);
    kv_u32(b, "qwen3next.ssm.conv_kernel", 4);
    kv_u32(b, "qwen3next.ssm.state_size", (uint32_t)dk);
    kv_u32(b, "qwen3next.ssm.group_count", (uint32_t)nk);
    kv_u32(b, "qwen3next.ssm.time_step_rank", (uint32_t)nv);
    kv_u32(b, "qwen3next.ssm.inner_size", (uint32_t)value_dim);
    kv_tokens(b, (unsigned)V);
    tensor(b, "token_embd.weight", BF16, V * h * 2, DIMS(h, V));
    for (int l = 0; l < 4; l++) {
        char n[64];
#define NAME(x) (snprintf(n, sizeof n, "blk.%d." x, l), n)
        tensor(b, NAME("attn_norm.weight"), F32, h * 4, DIMS(h));
        tensor(b, NAME("attn_post_norm.weight"), F32, h * 4, DIMS(h));
        if (l == 3) {
            tensor(b, NAME("attn_q.weight"), BF16, 2 * heads * hd * h * 2, DIMS(h, 2 * heads * hd));
            tensor(b, NAME("attn_k.weight"), BF16, hd * h * 2, DIMS(h, hd));
            tensor(b, NAME("attn_v.weight"), BF16, hd * h * 2, DIMS(h, hd));
            tensor(b, NAME("attn_output.weight"), BF16, h * heads * hd * 2, DIMS(heads * hd, h));
            tensor(b, NAME("attn_q_norm.weight"), F32, hd * 4, DIMS(hd));
            tensor(b, NAME("attn_k_norm.weight"), F32, hd * 4, DIMS(hd));
        } else {
            if (split) {
                tensor(b, NAME("attn_qkv.weight"), BF16, conv_dim * h * 2, DIMS(h, conv_dim));
                tensor(b, NAME("attn_gate.weight"), BF16, value_dim * h * 2, DIMS(h, value_dim));
            } else {
                tensor(b, NAME("ssm_in.weight"), BF16, (conv_dim + value_dim) * h * 2, DIMS(h, conv_dim + value_dim));
            }
            tensor(b, NAME("ssm_conv1d.weight"), F32, 4 * conv_dim * 4, DIMS(4, conv_dim));
            tensor(b, NAME("ssm_dt.bias"), F32, nv * 4, DIMS(nv));
            tensor(b, NAME("ssm_a"), F32, nv * 4, DIMS(nv));
            tensor(b, split ? NAME("ssm_beta_alpha.weight") : NAME("ssm_ba.weight"), BF16, 2 * nv * h * 2,
                   DIMS(h, 2 * nv));
            tensor(b, NAME("ssm_norm.weight"), F32, dv * 4, DIMS(dv));
            tensor(b, NAME("ssm_out.weight"), BF16, h * value_dim * 2, DIMS(value_dim, h));
        }
        tensor(b, NAME("ffn_gate_inp.weight"), F32, E * h * 4, DIMS(h, E));
        tensor(b, NAME("ffn_gate_exps.weight"), BF16, E * fe * h * 2, DIMS(h, fe, E));
        tensor(b, NAME("ffn_up_exps.weight"), BF16, E * fe * h * 2, DIMS(h, fe, E));
        tensor(b, NAME("ffn_down_exps.weight"), BF16, E * h * fe * 2, DIMS(fe, h, E));
        tensor(b, NAME("ffn_gate_inp_shexp.weight"), F32, h * 4, DIMS(h));
        tensor(b, NAME("ffn_gate_shexp.weight"), BF16, fe * h * 2, DIMS(h, fe));
        tensor(b, NAME("ffn_up_shexp.weight"), BF16, fe * h * 2, DIMS(h, fe));
        tensor(b, NAME("ffn_down_shexp.weight"), BF16, h * fe * 2, DIMS(fe, h));
#undef NAME
    }
    tensor(b, "output_norm.weight", F32, h * 4, DIMS(h));
    tensor(b, "output.weight", BF16, V * h * 2, DIMS(h, V));
    done(b);
}

START_TEST(model_qwen3next)
{
    for (int split = 0; split <= 1; split++) {
        buf b;
        tiny_qwen3next(&b, split);
        check_model(&b, LLMMEM_MODEL_QWEN3_NEXT);
        llmmem_checkpoint *ck = load(&b);
        llmmem_model *m;
        int64_t v;
        ck_assert_ok(llmmem_checkpoint_model(&m, ck));
        ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_FULL_ATTENTION_INTERVAL));
        ck_assert_int_eq(v, 4);
        ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_LINEAR_VALUE_HEAD_DIM));
        ck_assert_int_eq(v, 16);
        ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_LINEAR_NUM_VALUE_HEADS));
        ck_assert_int_eq(v, 4);
        uint64_t p; /* the three Gated DeltaNet mixers: in_proj_qkvz, in_proj_ba, conv1d, dt_bias, A_log,
                     * norm, out_proj */
        ck_assert_ok(llmmem_model_parameters(&p, m, LLMMEM_PARAMS_SSM));
        ck_assert_uint_eq(p, 3 * (192 * 64 + 8 * 64 + 4 * 128 + 4 + 4 + 16 + 64 * 64));
        llmmem_model_free(m);
        llmmem_checkpoint_free(ck);

        /* llama-memory-recurrent.cpp with n_embd_r = (d_conv - 1) * (d_inner + 2 * n_group * d_state) =
         * 3 * (64 + 2 * 2 * 16) = 384 and n_embd_s = d_state * d_inner = 16 * 64 = 1024 floats per layer:
         * 4 * (384 + 1024) = 5632 bytes for each of the 3 recurrent layers and the one sequence; the KV
         * cache of layer 3 alone: 1024 cells of K and V of 1 head of 32 in F16, 128 bytes a cell */
        uint64_t kv, rs, swa;
        local_bytes(&b, 1024, &kv, &rs, &swa);
        ck_assert_uint_eq(rs, 3u * 5632);
        ck_assert_uint_eq(kv, 1024u * 128);
        ck_assert_uint_eq(swa, 0);
        free(b.p);
    }
}
END_TEST

/* The Mamba-2 layers below (llama.cpp load_tensors, mamba2 and its hybrids): d_inner 128 in 4 heads of 32,
 * d_state 16, 2 groups, kernel 4, so the convolution spans 128 + 2 * 2 * 16 = 192 channels and ssm_in
 * projects to 2 * 128 + 2 * 2 * 16 + 4 = 324 (z, x, B, C, dt). */
enum { M_H = 64, M_INNER = 128, M_HEADS = 4, M_STATE = 16, M_GROUPS = 2, M_CONV = 4 };
#define M_CONV_DIM (M_INNER + 2 * M_GROUPS * M_STATE)
#define M_IN_PROJ (2 * M_INNER + 2 * M_GROUPS * M_STATE + M_HEADS)
/* llama-hparams.cpp n_embd_r = (d_conv - 1) * 192 = 576 and n_embd_s = d_state * d_inner = 2048 floats:
 * 4 * 2624 = 10496 bytes per recurrent layer and sequence (llama-memory-recurrent.cpp, F32 r and s) */
#define M_STATE_BYTES 10496u

static void mamba_keys(buf *b, const char *arch)
{
    char k[96];
#define KEY(x) (snprintf(k, sizeof k, "%s." x, arch), k)
    kv_u32(b, KEY("ssm.conv_kernel"), M_CONV);
    kv_u32(b, KEY("ssm.inner_size"), M_INNER);
    kv_u32(b, KEY("ssm.state_size"), M_STATE);
    kv_u32(b, KEY("ssm.time_step_rank"), M_HEADS);
    kv_u32(b, KEY("ssm.group_count"), M_GROUPS);
#undef KEY
}

static void mamba_layer(buf *b, int l)
{
    char n[64];
#define NAME(x) (snprintf(n, sizeof n, "blk.%d." x, l), n)
    tensor(b, NAME("ssm_in.weight"), F16, (uint64_t)M_IN_PROJ * M_H * 2, DIMS(M_H, M_IN_PROJ));
    tensor(b, NAME("ssm_conv1d.weight"), F32, M_CONV * M_CONV_DIM * 4, DIMS(M_CONV, M_CONV_DIM));
    tensor(b, NAME("ssm_conv1d.bias"), F32, M_CONV_DIM * 4, DIMS(M_CONV_DIM));
    tensor(b, NAME("ssm_dt.bias"), F32, M_HEADS * 4, DIMS(M_HEADS));
    tensor(b, NAME("ssm_a"), F32, M_HEADS * 4, DIMS(1, M_HEADS));
    tensor(b, NAME("ssm_d"), F32, M_HEADS * 4, DIMS(1, M_HEADS));
    tensor(b, NAME("ssm_norm.weight"), F32, M_INNER * 4, DIMS(M_INNER / M_GROUPS, M_GROUPS));
    tensor(b, NAME("ssm_out.weight"), F16, M_H * M_INNER * 2, DIMS(M_INNER, M_H));
#undef NAME
}

/* Parameters of one Mamba-2 mixer: in_proj, conv1d and its bias, dt_bias, A_log, D, norm, out_proj. */
#define M_MIXER_PARAMS ((uint64_t)M_IN_PROJ * M_H + M_CONV * M_CONV_DIM + M_CONV_DIM + 3 * M_HEADS + M_INNER + \
                        M_INNER * M_H)

/* Mamba-2 as convert_hf_to_gguf.py Mamba2Model writes it (llama.cpp LLM_ARCH_MAMBA2): head_count and
 * feed_forward_length 0, two layers of attn_norm and the mixer, an LM head of its own. */
START_TEST(model_mamba2)
{
    buf b;
    start(&b, 3);
    kv_str(&b, "general.architecture", "mamba2");
    kv_u32(&b, "mamba2.context_length", 1048576);
    kv_u32(&b, "mamba2.block_count", 2);
    kv_u32(&b, "mamba2.embedding_length", M_H);
    kv_u32(&b, "mamba2.feed_forward_length", 0);
    kv_u32(&b, "mamba2.attention.head_count", 0);
    mamba_keys(&b, "mamba2");
    kv_tokens(&b, 16);
    tensor(&b, "token_embd.weight", F16, 16 * M_H * 2, DIMS(M_H, 16));
    for (int l = 0; l < 2; l++) {
        char n[64];
        snprintf(n, sizeof n, "blk.%d.attn_norm.weight", l);
        tensor(&b, n, F32, M_H * 4, DIMS(M_H));
        mamba_layer(&b, l);
    }
    tensor(&b, "output_norm.weight", F32, M_H * 4, DIMS(M_H));
    tensor(&b, "output.weight", F16, 16 * M_H * 2, DIMS(M_H, 16));
    done(&b);
    check_model(&b, LLMMEM_MODEL_MAMBA2);
    llmmem_checkpoint *ck = load(&b);
    llmmem_model *m;
    uint64_t p;
    ck_assert_ok(llmmem_checkpoint_model(&m, ck));
    ck_assert_ok(llmmem_model_parameters(&p, m, LLMMEM_PARAMS_SSM));
    ck_assert_uint_eq(p, 2 * M_MIXER_PARAMS);
    llmmem_model_free(m);
    llmmem_checkpoint_free(ck);
    uint64_t kv, rs, swa;
    local_bytes(&b, 1024, &kv, &rs, &swa);
    ck_assert_uint_eq(rs, 2 * M_STATE_BYTES);
    ck_assert_uint_eq(kv, 0);
    free(b.p);
}
END_TEST

/* Nemotron-H as convert_hf_to_gguf.py NemotronHModel writes it (llama.cpp nemotron_h): the blocks "M*M-"
 * from the per-layer head_count_kv [0, 1, 0, 0] and feed_forward_length [0, 0, 0, 96]; attention of 2
 * heads of 32 (key_length), an MLP of ffn_up and ffn_down. */
static void tiny_nemotron_h(buf *b, int both)
{
    static const uint32_t kv[4] = {0, 1, 0, 0}, ff[4] = {0, 0, 0, 96}, ff_both[4] = {0, 96, 0, 96};
    start(b, 3);
    kv_str(b, "general.architecture", "nemotron_h");
    kv_u32(b, "nemotron_h.context_length", 8192);
    kv_u32(b, "nemotron_h.block_count", 4);
    kv_u32(b, "nemotron_h.embedding_length", M_H);
    kv_u32_array(b, "nemotron_h.feed_forward_length", both ? ff_both : ff, 4);
    kv_u32(b, "nemotron_h.attention.head_count", 2);
    kv_u32_array(b, "nemotron_h.attention.head_count_kv", kv, 4);
    kv_u32(b, "nemotron_h.attention.key_length", 32);
    kv_u32(b, "nemotron_h.attention.value_length", 32);
    mamba_keys(b, "nemotron_h");
    kv_tokens(b, 16);
    tensor(b, "token_embd.weight", F16, 16 * M_H * 2, DIMS(M_H, 16));
    for (int l = 0; l < 4; l++) {
        char n[64];
#define NAME(x) (snprintf(n, sizeof n, "blk.%d." x, l), n)
        tensor(b, NAME("attn_norm.weight"), F32, M_H * 4, DIMS(M_H));
        if (l == 1) {
            tensor(b, NAME("attn_q.weight"), F16, 64 * M_H * 2, DIMS(M_H, 64));
            tensor(b, NAME("attn_k.weight"), F16, 32 * M_H * 2, DIMS(M_H, 32));
            tensor(b, NAME("attn_v.weight"), F16, 32 * M_H * 2, DIMS(M_H, 32));
            tensor(b, NAME("attn_output.weight"), F16, M_H * 64 * 2, DIMS(64, M_H));
        } else if (l == 3) {
            tensor(b, NAME("ffn_up.weight"), F16, 96 * M_H * 2, DIMS(M_H, 96));
            tensor(b, NAME("ffn_down.weight"), F16, M_H * 96 * 2, DIMS(96, M_H));
        } else {
            mamba_layer(b, l);
        }
#undef NAME
    }
    tensor(b, "output_norm.weight", F32, M_H * 4, DIMS(M_H));
    tensor(b, "output.weight", F16, 16 * M_H * 2, DIMS(M_H, 16));
    done(b);
}

START_TEST(model_nemotron_h)
{
    buf b;
    tiny_nemotron_h(&b, 0);
    check_model(&b, LLMMEM_MODEL_NEMOTRON_H);
    llmmem_checkpoint *ck = load(&b);
    llmmem_model *m;
    uint64_t p;
    int64_t v;
    ck_assert_ok(llmmem_checkpoint_model(&m, ck));
    ck_assert_ok(llmmem_model_parameters(&p, m, LLMMEM_PARAMS_SSM));
    ck_assert_uint_eq(p, 2 * M_MIXER_PARAMS);
    ck_assert_ok(llmmem_model_parameters(&p, m, LLMMEM_PARAMS_MLP)); /* the one '-' block */
    ck_assert_uint_eq(p, 2 * 96 * M_H);
    ck_assert_ok(llmmem_model_get_int(&v, m, LLMMEM_KEY_NUM_KEY_VALUE_HEADS));
    ck_assert_int_eq(v, 1);
    llmmem_model_free(m);
    llmmem_checkpoint_free(ck);
    /* llama-model.cpp create_memory: the 2 'M' blocks keep a state, the '*' block 1024 cells of K and V of
     * 1 head of 32 in F16 (128 bytes a cell), the '-' block neither */
    uint64_t kv, rs, swa;
    local_bytes(&b, 1024, &kv, &rs, &swa);
    ck_assert_uint_eq(rs, 2 * M_STATE_BYTES);
    ck_assert_uint_eq(kv, 1024u * 128);
    free(b.p);
    tiny_nemotron_h(&b, 1); /* layer 1 with KV heads and a feed-forward: no nemotron_h block */
    expect_model_fail(&b, LLMMEM_ERR_UNSUPPORTED, "a nemotron_h block is Mamba-2, attention or MLP");
    free(b.p);
}
END_TEST

/* Granite 4.0-H as convert_hf_to_gguf.py GraniteHybridModel writes it (llama.cpp granitehybrid): layers
 * 0-2 Mamba-2 and layer 3 attention (head_count_kv [0, 0, 0, 1]), every layer 4 experts of
 * feed_forward_length 32 and a shared expert of 48. `experts` 0: a file without experts, refused. */
static void tiny_granitehybrid(buf *b, unsigned experts)
{
    static const uint32_t kv[4] = {0, 0, 0, 1};
    const uint64_t E = 4, fe = 32, fs = 48;
    start(b, 3);
    kv_str(b, "general.architecture", "granitehybrid");
    kv_u32(b, "granitehybrid.context_length", 1048576);
    kv_u32(b, "granitehybrid.block_count", 4);
    kv_u32(b, "granitehybrid.embedding_length", M_H);
    kv_u32(b, "granitehybrid.feed_forward_length", (uint32_t)fe);
    kv_u32(b, "granitehybrid.attention.head_count", 2);
    kv_u32_array(b, "granitehybrid.attention.head_count_kv", kv, 4);
    kv_u32(b, "granitehybrid.expert_count", experts);
    kv_u32(b, "granitehybrid.expert_used_count", 2);
    kv_u32(b, "granitehybrid.expert_shared_feed_forward_length", (uint32_t)fs);
    mamba_keys(b, "granitehybrid");
    kv_tokens(b, 16);
    tensor(b, "token_embd.weight", F16, 16 * M_H * 2, DIMS(M_H, 16));
    for (int l = 0; l < 4; l++) {
        char n[64];
#define NAME(x) (snprintf(n, sizeof n, "blk.%d." x, l), n)
        tensor(b, NAME("attn_norm.weight"), F32, M_H * 4, DIMS(M_H));
        if (l == 3) {
            tensor(b, NAME("attn_q.weight"), F16, 64 * M_H * 2, DIMS(M_H, 64));
            tensor(b, NAME("attn_k.weight"), F16, 32 * M_H * 2, DIMS(M_H, 32));
            tensor(b, NAME("attn_v.weight"), F16, 32 * M_H * 2, DIMS(M_H, 32));
            tensor(b, NAME("attn_output.weight"), F16, M_H * 64 * 2, DIMS(64, M_H));
        } else {
            mamba_layer(b, l);
        }
        tensor(b, NAME("ffn_norm.weight"), F32, M_H * 4, DIMS(M_H));
        tensor(b, NAME("ffn_gate_inp.weight"), F32, E * M_H * 4, DIMS(M_H, E));
        tensor(b, NAME("ffn_gate_exps.weight"), F16, E * fe * M_H * 2, DIMS(M_H, fe, E));
        tensor(b, NAME("ffn_up_exps.weight"), F16, E * fe * M_H * 2, DIMS(M_H, fe, E));
        tensor(b, NAME("ffn_down_exps.weight"), F16, E * M_H * fe * 2, DIMS(fe, M_H, E));
        tensor(b, NAME("ffn_gate_shexp.weight"), F16, fs * M_H * 2, DIMS(M_H, fs));
        tensor(b, NAME("ffn_up_shexp.weight"), F16, fs * M_H * 2, DIMS(M_H, fs));
        tensor(b, NAME("ffn_down_shexp.weight"), F16, M_H * fs * 2, DIMS(fs, M_H));
#undef NAME
    }
    tensor(b, "output_norm.weight", F32, M_H * 4, DIMS(M_H));
    tensor(b, "output.weight", F16, 16 * M_H * 2, DIMS(M_H, 16));
    done(b);
}

START_TEST(model_granitehybrid)
{
    buf b;
    tiny_granitehybrid(&b, 4);
    check_model(&b, LLMMEM_MODEL_GRANITEMOEHYBRID);
    llmmem_checkpoint *ck = load(&b);
    llmmem_model *m;
    uint64_t p;
    ck_assert_ok(llmmem_checkpoint_model(&m, ck));
    ck_assert_ok(llmmem_model_parameters(&p, m, LLMMEM_PARAMS_SSM));
    ck_assert_uint_eq(p, 3 * M_MIXER_PARAMS);
    ck_assert_ok(llmmem_model_parameters(&p, m, LLMMEM_PARAMS_EXPERTS));
    ck_assert_uint_eq(p, 4 * 4 * 3 * 32 * M_H);
    ck_assert_ok(llmmem_model_parameters(&p, m, LLMMEM_PARAMS_SHARED_EXPERTS));
    ck_assert_uint_eq(p, 4 * 3 * 48 * M_H);
    llmmem_model_free(m);
    llmmem_checkpoint_free(ck);
    /* 3 recurrent layers (n_head_kv 0) and layer 3's 1024 cells of 1 KV head of 64 / 2 = 32 in F16 */
    uint64_t kv, rs, swa;
    local_bytes(&b, 1024, &kv, &rs, &swa);
    ck_assert_uint_eq(rs, 3 * M_STATE_BYTES);
    ck_assert_uint_eq(kv, 1024u * 128);
    free(b.p);
    tiny_granitehybrid(&b, 0);
    expect_model_fail(&b, LLMMEM_ERR_UNSUPPORTED, "granitehybrid.expert_count is 0");
    free(b.p);
}
END_TEST

/* The dense post-norm and parallel families as convert_hf_to_gguf.py writes them: `layers` layers of 64
 * wide, 4 heads of 16 with 2 KV heads, an MLP of 96, an untied head; a sliding_window key when `window`.
 * olmo2 (Olmo2Model): attn_post_norm and ffn_post_norm, q/k norms over all heads; exaone4: the same
 * with per-head q/k norms; cohere2 (Cohere2Model): one attn_norm feeding attention and MLP in parallel,
 * no q/k norms. */
static void tiny_dense(buf *b, const char *arch, int layers, uint32_t window)
{
    const uint64_t h = 64, heads = 4, kvh = 2, hd = 16, f = 96, V = 16;
    const int cohere = strcmp(arch, "cohere2") == 0, exaone = strcmp(arch, "exaone4") == 0;
    char k[96];
    start(b, 3);
    kv_str(b, "general.architecture", arch);
#define KEY(x) (snprintf(k, sizeof k, "%s." x, arch), k)
    kv_u32(b, KEY("block_count"), (uint32_t)layers);
    kv_u32(b, KEY("context_length"), 4096);
    kv_u32(b, KEY("embedding_length"), (uint32_t)h);
    kv_u32(b, KEY("feed_forward_length"), (uint32_t)f);
    kv_u32(b, KEY("attention.head_count"), (uint32_t)heads);
    kv_u32(b, KEY("attention.head_count_kv"), (uint32_t)kvh);
    if (window)
        kv_u32(b, KEY("attention.sliding_window"), window);
#undef KEY
    kv_tokens(b, (unsigned)V);
    tensor(b, "token_embd.weight", F16, V * h * 2, DIMS(h, V));
    for (int l = 0; l < layers; l++) {
        char n[64];
#define NAME(x) (snprintf(n, sizeof n, "blk.%d." x, l), n)
        if (cohere)
            tensor(b, NAME("attn_norm.weight"), F32, h * 4, DIMS(h));
        tensor(b, NAME("attn_q.weight"), F16, heads * hd * h * 2, DIMS(h, heads * hd));
        tensor(b, NAME("attn_k.weight"), F16, kvh * hd * h * 2, DIMS(h, kvh * hd));
        tensor(b, NAME("attn_v.weight"), F16, kvh * hd * h * 2, DIMS(h, kvh * hd));
        tensor(b, NAME("attn_output.weight"), F16, h * heads * hd * 2, DIMS(heads * hd, h));
        if (exaone) {
            tensor(b, NAME("attn_q_norm.weight"), F32, hd * 4, DIMS(hd));
            tensor(b, NAME("attn_k_norm.weight"), F32, hd * 4, DIMS(hd));
        } else if (!cohere) {
            tensor(b, NAME("attn_q_norm.weight"), F32, heads * hd * 4, DIMS(heads * hd));
            tensor(b, NAME("attn_k_norm.weight"), F32, kvh * hd * 4, DIMS(kvh * hd));
        }
        if (!cohere)
            tensor(b, NAME("attn_post_norm.weight"), F32, h * 4, DIMS(h));
        tensor(b, NAME("ffn_gate.weight"), F16, f * h * 2, DIMS(h, f));
        tensor(b, NAME("ffn_up.weight"), F16, f * h * 2, DIMS(h, f));
        tensor(b, NAME("ffn_down.weight"), F16, h * f * 2, DIMS(f, h));
        if (!cohere)
            tensor(b, NAME("ffn_post_norm.weight"), F32, h * 4, DIMS(h));
#undef NAME
    }
    tensor(b, "output_norm.weight", F32, h * 4, DIMS(h));
    tensor(b, "output.weight", F16, V * h * 2, DIMS(h, V));
    done(b);
}

/* K and V of 2 heads of 16 in F16: 128 bytes a cell of a layer. With a window of 64 and one sequence the
 * sliding layers keep GGML_PAD(64 + 512, 256) = 768 cells (llama-kv-cache-iswa.cpp). */
static void expect_dense_kv(const buf *b, uint64_t full_layers, uint64_t swa_layers)
{
    uint64_t kv, rs, swa;
    local_bytes(b, 1024, &kv, &rs, &swa);
    ck_assert_uint_eq(swa, swa_layers ? 768 : 0);
    ck_assert_uint_eq(kv, 128u * (1024 * full_layers + 768 * swa_layers));
    ck_assert_uint_eq(rs, 0);
}

/* llama.cpp olmo2: no window (OLMo 2), or a window on every layer but each 4th (OLMo 3). */
START_TEST(model_olmo2)
{
    buf b;
    tiny_dense(&b, "olmo2", 4, 0);
    check_model(&b, LLMMEM_MODEL_OLMO2);
    expect_dense_kv(&b, 4, 0);
    free(b.p);
    tiny_dense(&b, "olmo2", 4, 64);
    check_model(&b, LLMMEM_MODEL_OLMO2);
    expect_dense_kv(&b, 1, 3);
    free(b.p);
}
END_TEST

/* llama.cpp cohere2: the window on layers 0-2, layer 3 global (set_swa_pattern(4)); required. */
START_TEST(model_cohere2)
{
    buf b;
    tiny_dense(&b, "cohere2", 4, 64);
    check_model(&b, LLMMEM_MODEL_COHERE2);
    expect_dense_kv(&b, 1, 3);
    free(b.p);
    tiny_dense(&b, "cohere2", 4, 0);
    expect_model_fail(&b, LLMMEM_ERR_PARSE, "cohere2.attention.sliding_window is missing");
    free(b.p);
}
END_TEST

/* llama.cpp exaone4: a window only on the 64-layer model (16 global layers, 48 sliding); the 4-layer
 * one ignores its sliding_window key. */
START_TEST(model_exaone4)
{
    buf b;
    tiny_dense(&b, "exaone4", 4, 64);
    check_model(&b, LLMMEM_MODEL_EXAONE4);
    expect_dense_kv(&b, 4, 0);
    free(b.p);
    tiny_dense(&b, "exaone4", 64, 64);
    check_model(&b, LLMMEM_MODEL_EXAONE4);
    expect_dense_kv(&b, 16, 48);
    free(b.p);
}
END_TEST

/* Mixtral (llama with expert_count, convert_hf_to_gguf.py) and Qwen2-MoE's shared expert with its
 * gate (ffn_gate_inp_shexp) and q/k/v biases. */
static void tiny_moe(buf *b, int qwen)
{
    const char *a = qwen ? "qwen2moe" : "llama";
    char k[96];
    start(b, 3);
    kv_str(b, "general.architecture", a);
#define KEY(x) (snprintf(k, sizeof k, "%s." x, a), k)
    kv_u32(b, KEY("block_count"), 1);
    kv_u32(b, KEY("embedding_length"), 64);
    kv_u32(b, KEY("feed_forward_length"), 96);
    kv_u32(b, KEY("attention.head_count"), 4);
    kv_u32(b, KEY("attention.head_count_kv"), 2);
    kv_u32(b, KEY("expert_count"), 4);
    kv_u32(b, KEY("expert_used_count"), 2);
    if (qwen) {
        kv_u32(b, KEY("expert_feed_forward_length"), 32);
        kv_u32(b, KEY("expert_shared_feed_forward_length"), 64);
    }
#undef KEY
    kv_tokens(b, 16);
    uint64_t fe = qwen ? 32 : 96;
    tensor(b, "token_embd.weight", Q8_0, 16 * 2 * 34, DIMS(64, 16));
    tensor(b, "blk.0.attn_norm.weight", F32, 64 * 4, DIMS(64));
    tensor(b, "blk.0.attn_q.weight", Q8_0, 64 * 2 * 34, DIMS(64, 64));
    tensor(b, "blk.0.attn_k.weight", Q8_0, 32 * 2 * 34, DIMS(64, 32));
    tensor(b, "blk.0.attn_v.weight", Q8_0, 32 * 2 * 34, DIMS(64, 32));
    if (qwen) {
        tensor(b, "blk.0.attn_q.bias", F32, 64 * 4, DIMS(64));
        tensor(b, "blk.0.attn_k.bias", F32, 32 * 4, DIMS(32));
        tensor(b, "blk.0.attn_v.bias", F32, 32 * 4, DIMS(32));
    }
    tensor(b, "blk.0.attn_output.weight", Q8_0, 64 * 2 * 34, DIMS(64, 64));
    tensor(b, "blk.0.ffn_norm.weight", F32, 64 * 4, DIMS(64));
    tensor(b, "blk.0.ffn_gate_inp.weight", F32, 4 * 64 * 4, DIMS(64, 4));
    tensor(b, "blk.0.ffn_gate_exps.weight", Q8_0, 4 * fe * 2 * 34, DIMS(64, fe, 4));
    tensor(b, "blk.0.ffn_up_exps.weight", Q8_0, 4 * fe * 2 * 34, DIMS(64, fe, 4));
    tensor(b, "blk.0.ffn_down_exps.weight", Q8_0, 4 * 64 * (fe / 32) * 34, DIMS(fe, 64, 4));
    if (qwen) {
        tensor(b, "blk.0.ffn_gate_inp_shexp.weight", F32, 64 * 4, DIMS(64));
        tensor(b, "blk.0.ffn_gate_shexp.weight", Q8_0, 64 * 2 * 34, DIMS(64, 64));
        tensor(b, "blk.0.ffn_up_shexp.weight", Q8_0, 64 * 2 * 34, DIMS(64, 64));
        tensor(b, "blk.0.ffn_down_shexp.weight", Q8_0, 64 * 2 * 34, DIMS(64, 64));
    }
    tensor(b, "output_norm.weight", F32, 64 * 4, DIMS(64));
    tensor(b, "output.weight", Q8_0, 16 * 2 * 34, DIMS(64, 16));
    done(b);
}

START_TEST(model_moe)
{
    buf b;
    tiny_moe(&b, 0);
    check_model(&b, LLMMEM_MODEL_MIXTRAL);
    free(b.p);
    tiny_moe(&b, 1);
    check_model(&b, LLMMEM_MODEL_QWEN2_MOE);
    llmmem_checkpoint *ck = load(&b);
    llmmem_model *m;
    uint64_t shared;
    ck_assert_ok(llmmem_checkpoint_model(&m, ck));
    ck_assert_ok(llmmem_model_parameters(&shared, m, LLMMEM_PARAMS_SHARED_EXPERTS));
    ck_assert_uint_eq(shared, 3 * 64 * 64 + 64);
    llmmem_model_free(m);
    llmmem_checkpoint_free(ck);
    free(b.p);
}
END_TEST

/* Falcon: one norm per layer, or two (attn_norm_2) under the new decoder architecture. */
START_TEST(model_falcon)
{
    for (int two = 0; two <= 1; two++) {
        buf b;
        start(&b, 3);
        kv_str(&b, "general.architecture", "falcon");
        kv_u32(&b, "falcon.block_count", 1);
        kv_u32(&b, "falcon.embedding_length", 64);
        kv_u32(&b, "falcon.feed_forward_length", 256);
        kv_u32(&b, "falcon.attention.head_count", 4);
        kv_u32(&b, "falcon.attention.head_count_kv", two ? 2 : 1);
        kv_tokens(&b, 8);
        tensor(&b, "token_embd.weight", F16, 8 * 64 * 2, DIMS(64, 8));
        tensor(&b, "blk.0.attn_norm.weight", F32, 64 * 4, DIMS(64));
        tensor(&b, "blk.0.attn_norm.bias", F32, 64 * 4, DIMS(64));
        if (two) {
            tensor(&b, "blk.0.attn_norm_2.weight", F32, 64 * 4, DIMS(64));
            tensor(&b, "blk.0.attn_norm_2.bias", F32, 64 * 4, DIMS(64));
        }
        uint64_t qkv = 64 + 2 * (two ? 2 : 1) * 16;
        tensor(&b, "blk.0.attn_qkv.weight", F16, qkv * 64 * 2, DIMS(64, qkv));
        tensor(&b, "blk.0.attn_output.weight", F16, 64 * 64 * 2, DIMS(64, 64));
        tensor(&b, "blk.0.ffn_up.weight", F16, 256 * 64 * 2, DIMS(64, 256));
        tensor(&b, "blk.0.ffn_down.weight", F16, 256 * 64 * 2, DIMS(256, 64));
        tensor(&b, "output_norm.weight", F32, 64 * 4, DIMS(64));
        tensor(&b, "output_norm.bias", F32, 64 * 4, DIMS(64));
        done(&b);
        check_model(&b, LLMMEM_MODEL_FALCON);
        free(b.p);
    }
}
END_TEST

static Suite *gguf_suite(void)
{
    Suite *s = suite_create("gguf");
    TCase *tc = tcase_create("reader");
    tcase_add_test(tc, mixed_types_exact_bytes);
    tcase_add_test(tc, versions);
    tcase_add_test(tc, every_truncation_fails);
    tcase_add_test(tc, hostile_headers);
    tcase_add_test(tc, ggml_type_sizes);
    tcase_add_test(tc, from_file);
    tcase_add_test(tc, fifo_is_refused);
    suite_add_tcase(s, tc);
    TCase *models = tcase_create("models");
    tcase_add_test(models, model_qwen3moe);
    tcase_add_test(models, model_deepseek_mla);
    tcase_add_test(models, model_sliding_pattern);
    tcase_add_test(models, model_failures);
    tcase_add_test(models, model_falcon);
    tcase_add_test(models, model_moe);
    tcase_add_test(models, model_gpt_oss);
    tcase_add_test(models, model_qwen3next);
    tcase_add_test(models, model_mamba2);
    tcase_add_test(models, model_nemotron_h);
    tcase_add_test(models, model_granitehybrid);
    tcase_add_test(models, model_olmo2);
    tcase_add_test(models, model_cohere2);
    tcase_add_test(models, model_exaone4);
    suite_add_tcase(s, models);
    return s;
}

int main(void)
{
    return run_suite(gguf_suite());
}
