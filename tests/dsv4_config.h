/* Shared by the suites that build DeepSeek-V4-Flash (test_families_moe.c, test_sglang.c). */
#ifndef LLMMEM_TESTS_DSV4_CONFIG_H
#define LLMMEM_TESTS_DSV4_CONFIG_H

#include <stdio.h>
#include <string.h>

#include "unit.h"

/* deepseek-ai/DeepSeek-V4-Flash as DeepseekV4Config's defaults in a published config's legacy keys (test_families_moe.c
 * deepseek_v4_flash_count: its source and count): compress_ratios 0, 0 then 4 and 128 by turns; `extra` is
 * appended to the object. */
#if defined(__GNUC__)
__attribute__((unused))
#endif
static llmmem_model *deepseek_v4_flash(const char *extra)
{
    char json[4096], ratios[512] = "";
    size_t used = 0;
    for (int i = 0; i < 43; i++)
        used += (size_t)snprintf(ratios + used, sizeof ratios - used, "%s%d", i ? ", " : "",
                                 i < 2 ? 0 : i % 2 == 0 ? 4 : 128);
    snprintf(json, sizeof json,
             "{\"architectures\": [\"DeepseekV4ForCausalLM\"], \"model_type\": \"deepseek_v4\", \"vocab_size\": 129280, "
             "\"hidden_size\": 4096, \"moe_intermediate_size\": 2048, \"num_hidden_layers\": 43, "
             "\"num_attention_heads\": 64, \"num_key_value_heads\": 1, \"head_dim\": 512, \"q_lora_rank\": 1024, "
             "\"qk_rope_head_dim\": 64, \"num_experts_per_tok\": 6, \"n_routed_experts\": 256, \"n_shared_experts\": 1, "
             "\"scoring_func\": \"sqrtsoftplus\", \"routed_scaling_factor\": 1.5, \"compress_ratios\": [%s], "
             "\"compress_rope_theta\": 160000, \"num_hash_layers\": 3, \"hc_mult\": 4, \"hc_sinkhorn_iters\": 20, "
             "\"sliding_window\": 128, \"o_groups\": 8, \"o_lora_rank\": 1024, \"index_n_heads\": 64, "
             "\"index_head_dim\": 128, \"index_topk\": 512, \"num_nextn_predict_layers\": 1, "
             "\"max_position_embeddings\": 1048576, \"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\"%s}",
             ratios, extra);
    llmmem_model *m = NULL;
    ck_assert_msg(llmmem_model_from_hf_config_text(&m, json, strlen(json)) == LLMMEM_OK, "%s", llmmem_last_message());
    return m;
}

#endif
