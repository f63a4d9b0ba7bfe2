/* Per-layer activation memory against Korthikanti et al. 2022, Table 2, derived by hand for a
 * GPT-3 175B layer (h 12288, a 96 heads, s 2048, b 1, t 8: §6, Table 3's 175B row), and a
 * Llama-style layer with every saved tensor listed. */
#include "activations.h"
#include "unit.h"

static llmmem__act_layer gpt3_layer(uint64_t t, int sp, enum llmmem__recompute rc)
{
    llmmem__act_layer l = {.s = 2048, .b = 1, .h = 12288, .a = 96, .g = 96, .d = 128, .f = 4 * 12288,
                           .t = t, .bytes = 2, .sequence_parallel = sp, .dropout = 1, .flash = 0, .gated = 0,
                           .recompute = rc};
    return l;
}

static uint64_t bytes_of(llmmem__act_layer l)
{
    uint64_t b;
    ck_assert_ok(llmmem__layer_activation_bytes(&b, &l));
    return b;
}

/* Table 2, with sbh = 2048 x 1 x 12288 and 5as^2b = 5 x 96 x 2048^2 x 1. */
START_TEST(korthikanti_table_2)
{
    const uint64_t sbh = 2048ULL * 12288, as2b = 96ULL * 2048 * 2048, t = 8;
    /* no parallelism: sbh(34 + 5as/h) = 34sbh + 5as^2b */
    ck_assert_uint_eq(bytes_of(gpt3_layer(1, 0, LLMMEM_RECOMPUTE_NONE)), 34 * sbh + 5 * as2b);
    /* tensor parallel: sbh(10 + 24/t + 5as/(ht)) */
    ck_assert_uint_eq(bytes_of(gpt3_layer(t, 0, LLMMEM_RECOMPUTE_NONE)), 10 * sbh + 24 * sbh / t + 5 * as2b / t);
    /* tensor + sequence parallel: sbh/t (34 + 5as/h) */
    ck_assert_uint_eq(bytes_of(gpt3_layer(t, 1, LLMMEM_RECOMPUTE_NONE)), (34 * sbh + 5 * as2b) / t);
    /* tensor parallel + selective recomputation: sbh(10 + 24/t) */
    ck_assert_uint_eq(bytes_of(gpt3_layer(t, 0, LLMMEM_RECOMPUTE_SELECTIVE)), 10 * sbh + 24 * sbh / t);
    /* tensor + sequence parallel + selective recomputation: 34 sbh / t */
    ck_assert_uint_eq(bytes_of(gpt3_layer(t, 1, LLMMEM_RECOMPUTE_SELECTIVE)), 34 * sbh / t);
    /* full recomputation: 2sbh, the layer's input */
    ck_assert_uint_eq(bytes_of(gpt3_layer(1, 0, LLMMEM_RECOMPUTE_FULL)), 2 * sbh);
    /* Megatron-LM theoretical_memory_usage.py (SP + selective): sbh(18 + 4f/h) / t, = 34sbh/t at f = 4h */
    ck_assert_uint_eq(bytes_of(gpt3_layer(t, 1, LLMMEM_RECOMPUTE_SELECTIVE)), sbh * (18 + 4 * 4) / t);
}
END_TEST

/* A Llama-3-8B layer (h 4096, 32 heads of 128, 8 KV heads, SwiGLU 14336), s 4096, b 1, bf16,
 * flash attention, no dropout, no parallelism. Saved: norm input, QKV input (sbh each); Q (s b 32
 * 128), K and V (s b 8 128 each); the fp32 log-sum-exp (32 x s x b x 4 bytes); the output
 * projection's input (s b 32 128); norm input and MLP input (sbh each); gate, up and down-input
 * (s b 14336 each). */
START_TEST(llama_style_layer)
{
    const uint64_t s = 4096, h = 4096, f = 14336;
    llmmem__act_layer l = {.s = s, .b = 1, .h = h, .a = 32, .g = 8, .d = 128, .f = f, .t = 1, .bytes = 2,
                           .sequence_parallel = 0, .dropout = 0, .flash = 1, .gated = 1,
                           .recompute = LLMMEM_RECOMPUTE_NONE};
    uint64_t expected = 2 * (s * h) * 2          /* norm input, QKV input */
                        + s * 32 * 128 * 2       /* Q */
                        + 2 * (s * 8 * 128 * 2)  /* K, V */
                        + 32 * s * 4             /* log-sum-exp */
                        + s * 32 * 128 * 2       /* output projection input */
                        + 2 * (s * h) * 2        /* norm input, MLP input */
                        + 3 * (s * f) * 2;       /* gate out, up out, down input */
    ck_assert_uint_eq(bytes_of(l), expected);
    /* each recomputation mode's saving follows from the list: selective drops nothing more under
     * flash (no scores are kept); full keeps the input alone */
    l.recompute = LLMMEM_RECOMPUTE_SELECTIVE;
    ck_assert_uint_eq(bytes_of(l), expected);
    l.recompute = LLMMEM_RECOMPUTE_FULL;
    ck_assert_uint_eq(bytes_of(l), s * h * 2);
}
END_TEST

START_TEST(overflow)
{
    llmmem__act_layer l = gpt3_layer(1, 0, LLMMEM_RECOMPUTE_NONE);
    l.s = 1ULL << 40;
    uint64_t b;
    ck_assert_status(llmmem__layer_activation_bytes(&b, &l), LLMMEM_ERR_OVERFLOW);
}
END_TEST

static Suite *activations_suite(void)
{
    Suite *s = suite_create("activations");
    TCase *tc = tcase_create("layer");
    tcase_add_test(tc, korthikanti_table_2);
    tcase_add_test(tc, llama_style_layer);
    tcase_add_test(tc, overflow);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(activations_suite());
}
