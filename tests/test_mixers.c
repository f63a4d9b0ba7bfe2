/*
 * Token mixers as rows (lib/inventory/mixers.c): the sets and the message text derived from the rows
 * are the ones the layer kinds and the readers' messages held before the rows (pinned here by hand),
 * and the model's state row is the one of its state layers.
 */
#include <stdint.h>
#include <string.h>

#include "unit.h"
#include "inventory/mixers.h"

#define BIT(m) LLMMEM_MIXER_BIT(LLMMEM_MIXER_##m)

START_TEST(test_sets_from_traits)
{
    /* the enum's comments: attention over its own cache per token; a fixed state per sequence */
    ck_assert_uint_eq(llmmem__mixers_with(LLMMEM_MIXER_ATTENTION), BIT(FULL) | BIT(SLIDING) | BIT(CHUNKED) | BIT(MLA));
    ck_assert_uint_eq(llmmem__mixers_with(LLMMEM_MIXER_STATE), BIT(LINEAR) | BIT(SSM) | BIT(MAMBA1) | BIT(SHORT_CONV));
    ck_assert_uint_eq(llmmem__mixers_with(LLMMEM_MIXER_WINDOWED), BIT(SLIDING) | BIT(CHUNKED));
    ck_assert_uint_eq(llmmem__mixers_with(LLMMEM_MIXER_SHARED_KV), BIT(SLIDING_SHARED) | BIT(FULL_SHARED));
    ck_assert_uint_eq(llmmem__mixers_with(LLMMEM_MIXER_CROSSING), BIT(CROSS));
    ck_assert_uint_eq(llmmem__mixers_with(LLMMEM_MIXER_MODELLED),
                      BIT(FULL) | BIT(SLIDING) | BIT(CHUNKED) | BIT(LINEAR) | BIT(SSM) | BIT(MAMBA1));
}
END_TEST

START_TEST(test_every_mixer_has_its_row)
{
    for (unsigned m = 0; m < LLMMEM_MIXERS; m++) {
        const llmmem__mixer_row *r = llmmem__mixer_of(m);
        if (m == 7) { /* no mixer has the value 7 */
            ck_assert_ptr_null(r);
            continue;
        }
        ck_assert_ptr_nonnull(r);
        ck_assert_uint_eq(r->id, m);
        /* a state mixer says how every engine stores its state */
        int state = (r->traits & LLMMEM_MIXER_STATE) != 0;
        ck_assert_int_eq(r->layers != NULL, state);
        ck_assert_int_eq(r->vllm_state != NULL, state);
        ck_assert_int_eq(r->contiguous_state != NULL, state);
        ck_assert_int_eq(r->vllm != NULL, state);
    }
    ck_assert_ptr_null(llmmem__mixer_of(LLMMEM_MIXERS));
}
END_TEST

START_TEST(test_modelled_layer_types_text)
{
    char text[256];
    int n = llmmem__modelled_layer_types(text, sizeof text);
    ck_assert_str_eq(text, "full_attention, sliding_attention, chunked_attention, attention, linear_attention and mamba");
    ck_assert_int_eq(n, (int)strlen(text));
    ck_assert_str_eq(text, LLMMEM_MODELLED_LAYER_TYPES); /* the messages' compile-time copy */
    enum llmmem__mixer m;
    ck_assert_int_eq(llmmem__layer_type_mixer(&m, "mamba", 5), 1);
    ck_assert_int_eq(m, LLMMEM_MIXER_SSM);
    ck_assert_int_eq(llmmem__layer_type_mixer(&m, "attention", 9), 1);
    ck_assert_int_eq(m, LLMMEM_MIXER_FULL);
    ck_assert_int_eq(llmmem__layer_type_mixer(&m, "mamba2", 6), 0);
}
END_TEST

START_TEST(test_state_row)
{
    llmmem__geometry g;
    memset(&g, 0, sizeof g);
    ck_assert_ptr_null(llmmem__state_row(&g));
    /* Mamba-Codestral-7B's mixer (config.json: 128 heads of 64, state 128, 8 groups, conv 4) on one rank:
     * mamba_utils.py mamba2_state_shape gives conv (4 - 1) x (128 x 64 + 2 x 8 x 128) = 30720 and
     * SSM 128 x 64 x 128 = 1048576 */
    g.ssm_layers = 64;
    g.mamba_heads = 128, g.mamba_head_dim = 64, g.mamba_state = 128, g.mamba_groups = 8, g.mamba_conv_kernel = 4;
    const llmmem__mixer_row *r = llmmem__state_row(&g);
    ck_assert_ptr_nonnull(r);
    ck_assert_uint_eq(r->id, LLMMEM_MIXER_SSM);
    uint64_t conv = 0, temporal = 0;
    ck_assert_int_eq(r->vllm_state(&conv, &temporal, &g, 1), LLMMEM_OK);
    ck_assert_uint_eq(conv, 30720);
    ck_assert_uint_eq(temporal, 1048576);
    /* LFM2-1.2B's short convolution (hidden 2048, conv_L_cache 3): (3 - 1) x 2048 = 4096, no temporal state */
    memset(&g, 0, sizeof g);
    g.conv_layers = 10, g.hidden = 2048, g.conv_kernel = 3;
    r = llmmem__state_row(&g);
    ck_assert_uint_eq(r->id, LLMMEM_MIXER_SHORT_CONV);
    ck_assert_int_eq(r->vllm_state(&conv, &temporal, &g, 1), LLMMEM_OK);
    ck_assert_uint_eq(conv, 4096);
    ck_assert_uint_eq(temporal, 0);
}
END_TEST

static Suite *mixers_suite(void)
{
    Suite *s = suite_create("mixers");
    TCase *rows = tcase_create("rows");
    tcase_add_test(rows, test_sets_from_traits);
    tcase_add_test(rows, test_every_mixer_has_its_row);
    tcase_add_test(rows, test_modelled_layer_types_text);
    tcase_add_test(rows, test_state_row);
    suite_add_tcase(s, rows);
    return s;
}

int main(void)
{
    return run_suite(mixers_suite());
}
