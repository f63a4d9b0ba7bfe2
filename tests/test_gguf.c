/* GGUF header reader: exact bytes of a mixed-type file from ggml's block sizes, the model its
 * metadata describes, and clean failures on every truncation and hostile count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

/* A small GGUF writer (docs/gguf.md: little-endian, u64 lengths and counts). */
typedef struct buf {
    unsigned char data[16384];
    size_t len;
} buf;

static void put(buf *b, const void *p, size_t n)
{
    ck_assert_uint_le(b->len + n, sizeof b->data);
    memcpy(b->data + b->len, p, n);
    b->len += n;
}
static void u32(buf *b, uint32_t v) { put(b, &v, 4); }
static void u64(buf *b, uint64_t v) { put(b, &v, 8); }
static void str(buf *b, const char *s) { u64(b, strlen(s)); put(b, s, strlen(s)); }
static void kv_u32(buf *b, const char *k, uint32_t v) { str(b, k); u32(b, 4); u32(b, v); }
static void kv_str(buf *b, const char *k, const char *v) { str(b, k); u32(b, 8); str(b, v); }

static void tensor(buf *b, const char *name, uint64_t ne0, uint64_t ne1, uint32_t type)
{
    str(b, name);
    u32(b, ne1 ? 2 : 1);
    u64(b, ne0);
    if (ne1)
        u64(b, ne1);
    u32(b, type);
    u64(b, 0);
}

enum { F32 = 0, Q4_K = 12, Q6_K = 14 };

/* A one-layer llama (hidden 256, 2 heads of 128, 1 KV head, MLP 256, vocab 4) stored like a
 * Q4_K_M file: most matrices Q4_K, attn_v, ffn_down and output Q6_K, norms F32. */
static void tiny_q4_k_m(buf *b, uint32_t version)
{
    b->len = 0;
    put(b, "GGUF", 4);
    u32(b, version);
    u64(b, 12); /* tensors */
    u64(b, 8);  /* metadata pairs */
    kv_str(b, "general.architecture", "llama");
    kv_u32(b, "llama.block_count", 1);
    kv_u32(b, "llama.embedding_length", 256);
    kv_u32(b, "llama.feed_forward_length", 256);
    kv_u32(b, "llama.attention.head_count", 2);
    kv_u32(b, "llama.attention.head_count_kv", 1);
    kv_u32(b, "llama.context_length", 2048);
    str(b, "tokenizer.ggml.tokens"); /* an array of 4 strings */
    u32(b, 9);
    u32(b, 8);
    u64(b, 4);
    str(b, "a"), str(b, "b"), str(b, "c"), str(b, "d");
    tensor(b, "token_embd.weight", 256, 4, Q4_K);
    tensor(b, "blk.0.attn_q.weight", 256, 256, Q4_K);
    tensor(b, "blk.0.attn_k.weight", 256, 128, Q4_K);
    tensor(b, "blk.0.attn_v.weight", 256, 128, Q6_K);
    tensor(b, "blk.0.attn_output.weight", 256, 256, Q4_K);
    tensor(b, "blk.0.ffn_gate.weight", 256, 256, Q4_K);
    tensor(b, "blk.0.ffn_up.weight", 256, 256, Q4_K);
    tensor(b, "blk.0.ffn_down.weight", 256, 256, Q6_K);
    tensor(b, "blk.0.attn_norm.weight", 256, 0, F32);
    tensor(b, "blk.0.ffn_norm.weight", 256, 0, F32);
    tensor(b, "output_norm.weight", 256, 0, F32);
    tensor(b, "output.weight", 256, 4, Q6_K);
}

/* ggml-common.h: block_q4_K is 144 bytes and block_q6_K 210 bytes per 256 weights. */
START_TEST(mixed_types_exact_bytes)
{
    buf b;
    tiny_q4_k_m(&b, 3);
    llmmem_checkpoint *ck;
    ck_assert_ok(llmmem_checkpoint_from_gguf_bytes(&ck, b.data, b.len));
    uint64_t q4k_rows = 4 + 256 + 128 + 256 + 256 + 256; /* embd, q, k, o, gate, up */
    uint64_t q6k_rows = 128 + 256 + 4;                   /* v, down, output */
    uint64_t expected = q4k_rows * 144 + q6k_rows * 210 + 3 * 256 * 4;
    ck_assert_uint_eq(llmmem_checkpoint_total_bytes(ck), expected);
    ck_assert_uint_eq(llmmem_checkpoint_group_bytes(ck, LLMMEM_PARAMS_LM_HEAD), 4 * 210);

    /* The model from the metadata has exactly the tensors' parameters. */
    llmmem_model *m;
    ck_assert_ok(llmmem_checkpoint_model(&m, ck));
    uint64_t total;
    ck_assert_ok(llmmem_model_total_parameters(&total, m));
    ck_assert_uint_eq(total, 1024 + 65536 + 32768 + 32768 + 65536 + 3 * 65536 + 3 * 256 + 1024);
    ck_assert_ok(llmmem_checkpoint_verify(ck, m));

    /* Its estimate's weights are the file's bytes. */
    llmmem_hardware *hw;
    llmmem_strategy *s;
    llmmem_report *r;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, "l4"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_report_new(&r));
    ck_assert_ok(llmmem_model_use_checkpoint(m, ck));
    ck_assert_ok(llmmem_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_report_bytes(r, LLMMEM_COMPONENT_WEIGHTS), expected);
    llmmem_report_free(r);
    llmmem_strategy_free(s);
    llmmem_hardware_free(hw);
    llmmem_model_free(m);
    llmmem_checkpoint_free(ck);

    /* Version 2 reads the same; version 1 is refused. */
    tiny_q4_k_m(&b, 2);
    ck_assert_ok(llmmem_checkpoint_from_gguf_bytes(&ck, b.data, b.len));
    llmmem_checkpoint_free(ck);
    tiny_q4_k_m(&b, 1);
    ck_assert_status(llmmem_checkpoint_from_gguf_bytes(&ck, b.data, b.len), LLMMEM_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "version 1"));
}
END_TEST

/* Every prefix of a valid file fails cleanly: never a crash, always a message. */
START_TEST(every_truncation_fails)
{
    buf b;
    tiny_q4_k_m(&b, 3);
    for (size_t n = 0; n < b.len; n++) {
        llmmem_checkpoint *ck = (llmmem_checkpoint *)&ck;
        ck_assert_status(llmmem_checkpoint_from_gguf_bytes(&ck, b.data, n), LLMMEM_ERR_PARSE);
        ck_assert_ptr_null(ck);
        ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "<memory>"));
    }
}
END_TEST

START_TEST(hostile_headers)
{
    buf b;
    llmmem_checkpoint *ck;
    tiny_q4_k_m(&b, 3);
    memcpy(b.data, "GGUX", 4);
    ck_assert_status(llmmem_checkpoint_from_gguf_bytes(&ck, b.data, b.len), LLMMEM_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "bad magic"));
    tiny_q4_k_m(&b, 3);
    uint64_t huge = 1ULL << 60;
    memcpy(b.data + 8, &huge, 8); /* tensor count */
    ck_assert_status(llmmem_checkpoint_from_gguf_bytes(&ck, b.data, b.len), LLMMEM_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "exceeds the file"));
    tiny_q4_k_m(&b, 3);
    memcpy(b.data + 24, &huge, 8); /* the first key's length */
    ck_assert_status(llmmem_checkpoint_from_gguf_bytes(&ck, b.data, b.len), LLMMEM_ERR_PARSE);

    /* n_dims 5, a Q4_K row of 100 weights, an unknown type, dims overflowing */
    static const struct {
        uint32_t n_dims, type;
        uint64_t ne0, ne1;
        llmmem_status st;
        const char *needle;
    } cases[] = {{5, F32, 8, 8, LLMMEM_ERR_PARSE, "n_dims"},
                 {2, Q4_K, 100, 1, LLMMEM_ERR_PARSE, "multiple of the type's block"},
                 {2, 77, 32, 1, LLMMEM_ERR_UNSUPPORTED, "ggml type 77"},
                 {2, F32, 1ULL << 40, 1ULL << 40, LLMMEM_ERR_PARSE, "exceeds 64 bits"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        b.len = 0;
        put(&b, "GGUF", 4);
        u32(&b, 3);
        u64(&b, 1);
        u64(&b, 0);
        str(&b, "t");
        u32(&b, cases[i].n_dims);
        for (uint32_t d = 0; d < cases[i].n_dims; d++)
            u64(&b, d == 0 ? cases[i].ne0 : cases[i].ne1);
        u32(&b, cases[i].type);
        u64(&b, 0);
        ck_assert_status(llmmem_checkpoint_from_gguf_bytes(&ck, b.data, b.len), cases[i].st);
        ck_assert_msg(strstr(llmmem_last_message(), cases[i].needle), "%s", llmmem_last_message());
    }
    ck_assert_status(llmmem_checkpoint_from_gguf(&ck, "/no/such.gguf"), LLMMEM_ERR_IO);
}
END_TEST

/* The path API reads only the header of a file on disk. */
START_TEST(from_file)
{
    buf b;
    tiny_q4_k_m(&b, 3);
    char path[] = "/tmp/llmmem-gguf-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "wb");
    fwrite(b.data, 1, b.len, f);
    fclose(f);
    llmmem_checkpoint *ck;
    ck_assert_ok(llmmem_checkpoint_from_gguf(&ck, path));
    ck_assert_uint_eq(llmmem_checkpoint_tensor_count(ck), 12);
    llmmem_checkpoint_free(ck);
    remove(path);
}
END_TEST

static Suite *gguf_suite(void)
{
    Suite *s = suite_create("gguf");
    TCase *tc = tcase_create("reader");
    tcase_add_test(tc, mixed_types_exact_bytes);
    tcase_add_test(tc, every_truncation_fails);
    tcase_add_test(tc, hostile_headers);
    tcase_add_test(tc, from_file);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(gguf_suite());
}
