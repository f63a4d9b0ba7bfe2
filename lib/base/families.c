/* The family table: one row per Hugging Face model_type (see families.h). */
#include <string.h>

#include "base/families.h"

#define NONE LLMMEM_CLASS_NONE
#define NO_SHAPES NONE, NONE, NONE, NONE, NONE
#define LN LLMMEM_NORM_LAYERNORM
#define END {LLMMEM_KEY_NONE, 0}

/* Structural defaults, from each family's transformers modeling file. */

/* models/gpt2/modeling_gpt2.py: Conv1D with bias, ln_1/ln_2, wpe, tied lm_head */
static const llmmem__key_default gpt2_structure[] = {
    {LLMMEM_KEY_NORM_TYPE, LN}, {LLMMEM_KEY_MLP_GATED, 0},         {LLMMEM_KEY_QKV_BIAS, 1},
    {LLMMEM_KEY_O_PROJ_BIAS, 1}, {LLMMEM_KEY_MLP_BIAS, 1},         {LLMMEM_KEY_LEARNED_POSITIONS, 1},
    {LLMMEM_KEY_TIE_WORD_EMBEDDINGS, 1}, END,
};
/* models/opt/modeling_opt.py: OPTLearnedPositionalEmbedding keeps offset 2 extra rows */
static const llmmem__key_default opt_structure[] = {
    {LLMMEM_KEY_NORM_TYPE, LN}, {LLMMEM_KEY_MLP_GATED, 0},         {LLMMEM_KEY_QKV_BIAS, 1},
    {LLMMEM_KEY_O_PROJ_BIAS, 1}, {LLMMEM_KEY_MLP_BIAS, 1},         {LLMMEM_KEY_LEARNED_POSITIONS, 1},
    {LLMMEM_KEY_POSITION_OFFSET, 2}, {LLMMEM_KEY_TIE_WORD_EMBEDDINGS, 1}, END,
};
/* models/bloom/modeling_bloom.py: word_embeddings_layernorm, ALiBi (no position table) */
static const llmmem__key_default bloom_structure[] = {
    {LLMMEM_KEY_NORM_TYPE, LN}, {LLMMEM_KEY_MLP_GATED, 0},         {LLMMEM_KEY_QKV_BIAS, 1},
    {LLMMEM_KEY_O_PROJ_BIAS, 1}, {LLMMEM_KEY_MLP_BIAS, 1},         {LLMMEM_KEY_EMBEDDING_NORM, 1},
    {LLMMEM_KEY_TIE_WORD_EMBEDDINGS, 1}, END,
};
/* models/gpt_neox/modeling_gpt_neox.py: biased query_key_value, dense and MLP; untied embed_out */
static const llmmem__key_default gpt_neox_structure[] = {
    {LLMMEM_KEY_NORM_TYPE, LN}, {LLMMEM_KEY_MLP_GATED, 0}, {LLMMEM_KEY_QKV_BIAS, 1},
    {LLMMEM_KEY_O_PROJ_BIAS, 1}, {LLMMEM_KEY_MLP_BIAS, 1}, END,
};
/* models/falcon/modeling_falcon.py: bias=False, one input_layernorm (parallel attention), tied */
static const llmmem__key_default falcon_structure[] = {
    {LLMMEM_KEY_NORM_TYPE, LN}, {LLMMEM_KEY_MLP_GATED, 0}, {LLMMEM_KEY_NORMS_PER_LAYER, 1},
    {LLMMEM_KEY_TIE_WORD_EMBEDDINGS, 1}, END,
};
/* models/qwen2/modeling_qwen2.py: q/k/v biases */
static const llmmem__key_default qwen2_structure[] = {{LLMMEM_KEY_QKV_BIAS, 1}, END};
/* models/qwen2_moe/modeling_qwen2_moe.py: q/k/v biases, shared_expert_gate */
static const llmmem__key_default qwen2_moe_structure[] = {
    {LLMMEM_KEY_QKV_BIAS, 1}, {LLMMEM_KEY_SHARED_EXPERT_GATE, 1}, END,
};
/* models/qwen3/modeling_qwen3.py and qwen3_moe: q_norm, k_norm over head_dim */
static const llmmem__key_default qk_norm_structure[] = {{LLMMEM_KEY_QK_NORM, 1}, END};
/* models/gemma, gemma2, gemma3 modeling files: tied; Gemma 2/3 norm before and after both blocks */
static const llmmem__key_default tied_structure[] = {{LLMMEM_KEY_TIE_WORD_EMBEDDINGS, 1}, END};
static const llmmem__key_default gemma2_structure[] = {
    {LLMMEM_KEY_TIE_WORD_EMBEDDINGS, 1}, {LLMMEM_KEY_NORMS_PER_LAYER, 4},
    {LLMMEM_KEY_SLIDING_WINDOW_PATTERN, 2}, /* Gemma2DecoderLayer: even layers slide */
    END,
};
static const llmmem__key_default gemma3_text_structure[] = {
    {LLMMEM_KEY_TIE_WORD_EMBEDDINGS, 1}, {LLMMEM_KEY_NORMS_PER_LAYER, 4}, {LLMMEM_KEY_QK_NORM, 1},
    {LLMMEM_KEY_SLIDING_WINDOW_PATTERN, 6}, /* Gemma3TextConfig default */
    END,
};
/* DeepSeek-V3 modeling_deepseek.py (and Kimi K2, which runs it): MoEGate.e_score_correction_bias */
static const llmmem__key_default deepseek_v3_structure[] = {
    {LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS, 1},
    /* README_WEIGHTS.md: the MTP module stores embed_tokens and shared_head.head (model.layers.61) */
    {LLMMEM_KEY_MTP_EMBEDDING, 1}, {LLMMEM_KEY_MTP_LM_HEAD, 1}, END,
};
/* models/gpt_oss/modeling_gpt_oss.py: GptOssAttention.sinks (one per head), GptOssTopKRouter.bias,
 * GptOssExperts gate_up_proj_bias and down_proj_bias; every layer a GptOssMLP (no dense MLP) */
static const llmmem__key_default gpt_oss_structure[] = {
    {LLMMEM_KEY_ATTENTION_SINKS, 1}, {LLMMEM_KEY_ROUTER_BIAS, 1}, {LLMMEM_KEY_MLP_BIAS, 1},
    {LLMMEM_KEY_SLIDING_WINDOW_PATTERN, 2}, /* GptOssConfig layer_types: sliding when (i + 1) % 2 */
    END,
};

/* models/olmo2/modeling_olmo2.py Olmo2DecoderLayer: post_attention_layernorm and post_feedforward_layernorm
 * (no input norm), Olmo2Attention q_norm/k_norm over all heads */
static const llmmem__key_default olmo2_structure[] = {
    {LLMMEM_KEY_NORMS_PER_LAYER, 2}, {LLMMEM_KEY_QK_NORM, 1}, {LLMMEM_KEY_QK_NORM_TYPE, LLMMEM_QK_NORM_PER_LAYER}, END,
};
/* models/cohere/modeling_cohere.py CohereDecoderLayer: one input_layernorm feeds attention and MLP in
 * parallel; CohereLayerNorm has a weight and no bias (one vector, as RMSNorm); q_norm/k_norm (use_qk_norm)
 * are CohereLayerNorm((heads, head_dim)): a weight per head */
static const llmmem__key_default cohere_structure[] = {
    {LLMMEM_KEY_NORM_TYPE, LLMMEM_NORM_RMSNORM}, {LLMMEM_KEY_NORMS_PER_LAYER, 1},
    {LLMMEM_KEY_QK_NORM_TYPE, LLMMEM_QK_NORM_PER_LAYER}, {LLMMEM_KEY_TIE_WORD_EMBEDDINGS, 1}, END,
};
/* models/cohere2/modeling_cohere2.py Cohere2DecoderLayer: Cohere's parallel block; layer i slides unless
 * (i + 1) % sliding_window_pattern == 0 */
static const llmmem__key_default cohere2_structure[] = {
    {LLMMEM_KEY_NORM_TYPE, LLMMEM_NORM_RMSNORM}, {LLMMEM_KEY_NORMS_PER_LAYER, 1},
    {LLMMEM_KEY_TIE_WORD_EMBEDDINGS, 1}, {LLMMEM_KEY_SLIDING_WINDOW_PATTERN, 4}, END,
};
/* models/glm4_moe/modeling_glm4_moe.py Glm4MoeTopkRouter: a registered e_score_correction_bias per expert */
static const llmmem__key_default glm4_moe_structure[] = {
    {LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS, 1},
    /* vllm model_executor/models/glm4_moe_mtp.py: each MTP layer has its own embed_tokens and shared_head.head */
    {LLMMEM_KEY_MTP_EMBEDDING, 1}, {LLMMEM_KEY_MTP_LM_HEAD, 1}, END,
};
/* models/minimax_m2/modeling_minimax_m2.py: MiniMaxM2Attention q_norm over heads*head_dim and k_norm over
 * kv_heads*head_dim; MiniMaxM2SparseMoeBlock e_score_correction_bias buffer, both unconditional */
static const llmmem__key_default minimax_m2_structure[] = {
    {LLMMEM_KEY_QK_NORM, 1}, {LLMMEM_KEY_QK_NORM_TYPE, LLMMEM_QK_NORM_PER_LAYER},
    {LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS, 1},
    /* vllm model_executor/models/minimax_m2.py MiniMaxM2MoE: gate ReplicatedLinear params_dtype=torch.float32
     * (the fp8 checkpoints store it F32) */
    {LLMMEM_KEY_ROUTER_FP32, 1}, END,
};
/* models/exaone4/modeling_exaone4.py: Exaone4DecoderLayer post_attention_layernorm and
 * post_feedforward_layernorm (no input norm), Exaone4Attention q_norm/k_norm = RMSNorm(head_dim) */
static const llmmem__key_default exaone4_structure[] = {
    {LLMMEM_KEY_NORMS_PER_LAYER, 2}, {LLMMEM_KEY_QK_NORM, 1}, {LLMMEM_KEY_QK_NORM_TYPE, LLMMEM_QK_NORM_PER_HEAD},
    {LLMMEM_KEY_SLIDING_WINDOW_PATTERN, 4}, END,
};
/* models/ernie4_5_moe/modeling_ernie4_5_moe.py Ernie4_5_MoeStatics: e_score_correction_bias of
 * (1, moe_num_experts) in every sparse block */
static const llmmem__key_default ernie4_5_moe_structure[] = {{LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS, 1}, END};
/* models/glm4/modeling_glm4.py Glm4DecoderLayer: input_layernorm, post_self_attn_layernorm,
 * post_attention_layernorm and post_mlp_layernorm; Glm4MLP's fused gate_up_proj is gate and up */
static const llmmem__key_default glm4_structure[] = {{LLMMEM_KEY_NORMS_PER_LAYER, 4}, END};

/* moonshotai/Kimi-K2.5 (KimiK25ForConditionalGeneration, remote code; vllm model_executor/models/kimi_k25.py): a
 * Kimi K2 text model (DeepSeek-V3's modeling: the gate's correction bias, MTP modules storing their embedding and
 * head), the MoonViT tower and its patch-merger projector (mm_projector) */
static const llmmem__key_default kimi_k25_structure[] = {
    {LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS, 1}, {LLMMEM_KEY_MTP_EMBEDDING, 1}, {LLMMEM_KEY_MTP_LM_HEAD, 1},
    {LLMMEM_KEY_VISION_MODEL_TYPE, LLMMEM__VISION_MOONVIT},
    {LLMMEM_KEY_MULTIMODAL_PROJECTOR, LLMMEM__PROJECTOR_KIMI_K25}, END,
};

/* models/exaone4_5/modular_exaone4_5.py: Exaone4 text layers (two norms after attention and MLP, q/k norms
 * over a head), Exaone4_5_VisionModel (Qwen2.5-VL's blocks with grouped key/value heads) and its
 * Qwen2_5_VLPatchMerger */
static const llmmem__key_default exaone4_5_structure[] = {
    {LLMMEM_KEY_NORMS_PER_LAYER, 2}, {LLMMEM_KEY_QK_NORM, 1}, {LLMMEM_KEY_QK_NORM_TYPE, LLMMEM_QK_NORM_PER_HEAD},
    {LLMMEM_KEY_SLIDING_WINDOW_PATTERN, 4}, {LLMMEM_KEY_VISION_MODEL_TYPE, LLMMEM__VISION_EXAONE4_5},
    {LLMMEM_KEY_MULTIMODAL_PROJECTOR, LLMMEM__PROJECTOR_QWEN2_5_VL_MERGER}, END,
};

/* vllm model_executor/models/laguna.py: LagunaAttention q_norm, k_norm over a head (always built); LagunaMoE's
 * e_score_correction_bias a float32 Parameter of the experts ("the fused top-k bias router requires float32") */
static const llmmem__key_default laguna_structure[] = {
    {LLMMEM_KEY_QK_NORM, 1}, {LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS, 1}, {LLMMEM_KEY_ROUTER_BIAS_FP32, 1}, END,
};

/* moonshotai/Kimi-K3 (KimiK3ForConditionalGeneration, remote code; Megatron-Bridge models/kimi/kimi_k3_bridge.py
 * mapping_registry, kimi_k3_layers.py): Kimi-Linear's KDA and MLA layers and MoE gate, whose
 * e_score_correction_bias the published checkpoint stores in float32 (the Hub's F32 count, 11,122,432, holds it),
 * the MoonViT tower of qkv_hidden_size and its PatchMergerV2 projector (vision_tower.*, mm_projector.*) */
static const llmmem__key_default kimi_k3_structure[] = {
    {LLMMEM_KEY_LINEAR_ATTN_KDA, 1}, {LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS, 1}, {LLMMEM_KEY_ROUTER_BIAS_FP32, 1},
    {LLMMEM_KEY_VISION_MODEL_TYPE, LLMMEM__VISION_MOONVIT_K3},
    {LLMMEM_KEY_MULTIMODAL_PROJECTOR, LLMMEM__PROJECTOR_KIMI_K3}, END,
};

/* MiniMax-M3 (MiniMaxAI/MiniMax-M3, remote code; NVIDIA-NeMo Megatron-Bridge models/minimax_m3/minimax_m3_bridge.py
 * and modeling_minimax_m3_vl.py, and the checkpoint's tensor table): q_norm and k_norm over a head, the experts'
 * e_score_correction_bias, the gate (block_sparse_moe.gate) and that bias stored in float32 (MiniMaxM3TopKRouter
 * "FP32 router weight"), the CLIP-style tower and its two projector MLPs */
static const llmmem__key_default minimax_m3_structure[] = {
    {LLMMEM_KEY_QK_NORM, 1}, {LLMMEM_KEY_QK_NORM_TYPE, LLMMEM_QK_NORM_PER_HEAD},
    {LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS, 1}, {LLMMEM_KEY_ROUTER_FP32, 1}, {LLMMEM_KEY_ROUTER_BIAS_FP32, 1},
    {LLMMEM_KEY_VISION_MODEL_TYPE, LLMMEM__VISION_MINIMAX_M3},
    {LLMMEM_KEY_MULTIMODAL_PROJECTOR, LLMMEM__PROJECTOR_MINIMAX_M3}, END,
};

/* models/qwen2_5_vl/modeling_qwen2_5_vl.py: Qwen2-shaped text model (q/k/v biased), the Qwen2.5-VL ViT
 * and its Qwen2_5_VLPatchMerger (visual.merger) */
static const llmmem__key_default qwen2_5_vl_structure[] = {
    {LLMMEM_KEY_QKV_BIAS, 1}, {LLMMEM_KEY_VISION_MODEL_TYPE, LLMMEM__VISION_QWEN2_5_VL},
    {LLMMEM_KEY_MULTIMODAL_PROJECTOR, LLMMEM__PROJECTOR_QWEN2_5_VL_MERGER}, END,
};
/* models/qwen3_vl/modeling_qwen3_vl.py and qwen3_vl_moe: Qwen3 text layers (q_norm, k_norm), the Qwen3-VL
 * ViT with its merger and deepstack mergers */
static const llmmem__key_default qwen3_vl_structure[] = {
    {LLMMEM_KEY_QK_NORM, 1}, {LLMMEM_KEY_VISION_MODEL_TYPE, LLMMEM__VISION_QWEN3_VL},
    {LLMMEM_KEY_MULTIMODAL_PROJECTOR, LLMMEM__PROJECTOR_QWEN3_VL_MERGER}, END,
};
/* models/mistral3/modeling_mistral3.py: PixtralVisionModel and Mistral3MultiModalProjector */
static const llmmem__key_default mistral3_structure[] = {
    {LLMMEM_KEY_VISION_MODEL_TYPE, LLMMEM__VISION_PIXTRAL},
    {LLMMEM_KEY_MULTIMODAL_PROJECTOR, LLMMEM__PROJECTOR_MISTRAL3}, END,
};

/* models/llama4/modeling_llama4.py: Llama4TextConfig attention_chunk_size=8192 on the RoPE layers,
 * no_rope_layer_interval=4, interleave_moe_layer_step=1 (Llama4TextL2Norm, the qk norm, has no weight) */
static const llmmem__key_default llama4_structure[] = {
    {LLMMEM_KEY_ATTENTION_CHUNK_SIZE, 8192}, {LLMMEM_KEY_NO_ROPE_LAYER_INTERVAL, 4},
    {LLMMEM_KEY_INTERLEAVE_MOE_LAYER_STEP, 1}, END,
};

/* models/mllama/modeling_mllama.py: MllamaTextModel embeds vocab_size + 8 rows */
static const llmmem__key_default mllama_structure[] = {{LLMMEM_KEY_EMBEDDING_EXTRA_ROWS, 8}, END};

/* models/mamba2/modeling_mamba2.py Mamba2Block: one norm before the mixer, no feed-forward */
static const llmmem__key_default mamba2_structure[] = {{LLMMEM_KEY_NORMS_PER_LAYER, 1}, END};
/* models/nemotron_h/modeling_nemotron_h.py NemotronHBlock: one norm per block; NemotronHMLP:
 * up_proj, relu2, down_proj (two matrices); NemotronHTopkRouter of the MoE blocks: e_score_correction_bias */
static const llmmem__key_default nemotron_h_structure[] = {
    {LLMMEM_KEY_NORMS_PER_LAYER, 1}, {LLMMEM_KEY_MLP_GATED, 0}, {LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS, 1}, END,
};
/* models/qwen3_next/modeling_qwen3_next.py: Qwen3NextAttention q_norm, k_norm and the output gate
 * in q_proj; Qwen3NextSparseMoeBlock.shared_expert_gate */
static const llmmem__key_default qwen3_next_structure[] = {
    {LLMMEM_KEY_QK_NORM, 1}, {LLMMEM_KEY_ATTN_OUTPUT_GATE, 1}, {LLMMEM_KEY_SHARED_EXPERT_GATE, 1}, END,
};

/* models/granitemoehybrid/modeling_granitemoehybrid.py GraniteMoeHybridDecoderLayer: input_layernorm and
 * post_attention_layernorm; GraniteMoeHybridMLP and the experts' input_linear hold gate and up (SwiGLU) */
/* modeling_falcon_h1.py FalconH1DecoderLayer: input_layernorm and pre_ff_layernorm, FalconH1MLP
 * gated, FalconH1Mixer beside FalconH1Attention in every layer */
static const llmmem__key_default falcon_h1_structure[] = {
    {LLMMEM_KEY_NORMS_PER_LAYER, 2}, {LLMMEM_KEY_MLP_GATED, 1}, {LLMMEM_KEY_PARALLEL_SSM, 1}, END,
};

/* models/qwen3_5/modeling_qwen3_5.py (and qwen3_5_moe): Qwen3_5Attention's q_norm, k_norm and output gate
 * in q_proj (Qwen3-Next's), the Gated DeltaNet of Qwen3-Next with in_proj_qkvz / in_proj_ba split into
 * in_proj_qkv, in_proj_z, in_proj_b, in_proj_a (the same parameters); Qwen3_5VisionModel: the Qwen3-VL ViT
 * and merger without deepstack mergers; Qwen3_5MoeSparseMoeBlock's shared_expert_gate */
static const llmmem__key_default qwen3_5_structure[] = {
    {LLMMEM_KEY_QK_NORM, 1}, {LLMMEM_KEY_ATTN_OUTPUT_GATE, 1}, {LLMMEM_KEY_VISION_MODEL_TYPE, LLMMEM__VISION_QWEN3_VL},
    {LLMMEM_KEY_MULTIMODAL_PROJECTOR, LLMMEM__PROJECTOR_QWEN3_VL_MERGER}, END,
};
static const llmmem__key_default qwen3_5_moe_structure[] = {
    {LLMMEM_KEY_QK_NORM, 1}, {LLMMEM_KEY_ATTN_OUTPUT_GATE, 1}, {LLMMEM_KEY_VISION_MODEL_TYPE, LLMMEM__VISION_QWEN3_VL},
    {LLMMEM_KEY_MULTIMODAL_PROJECTOR, LLMMEM__PROJECTOR_QWEN3_VL_MERGER}, {LLMMEM_KEY_SHARED_EXPERT_GATE, 1}, END,
};

/* models/gemma4/modular_gemma4.py Gemma4TextDecoderLayer: input, post_attention, pre_feedforward and
 * post_feedforward norms, layer_scalar; Gemma4TextAttention q_norm and k_norm over each head (v_norm has no
 * weight); tied embeddings */
static const llmmem__key_default gemma4_structure[] = {
    {LLMMEM_KEY_TIE_WORD_EMBEDDINGS, 1}, {LLMMEM_KEY_NORMS_PER_LAYER, 4}, {LLMMEM_KEY_QK_NORM, 1},
    {LLMMEM_KEY_LAYER_SCALAR, 1}, END,
};

/* models/glm4_moe_lite/modeling_glm4_moe_lite.py and glm_moe_dsa: Glm4MoeTopkRouter's e_score_correction_bias
 * (a float32 buffer) */
static const llmmem__key_default glm_moe_structure[] = {{LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS, 1}, END};

/* antirez/ds4 ds4.c weights_validate_layout (the GGUF tensors of DeepSeek-V4): attn_sinks per head, the router's
 * exp_probs_b on the non-hash MoE layers, attn_norm and ffn_norm per layer */
static const llmmem__key_default deepseek_v4_structure[] = {
    {LLMMEM_KEY_ATTENTION_SINKS, 1}, {LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS, 1}, END,
};

/* moonshotai/Kimi-Linear modeling_kimi.py: KimiDeltaAttention layers, MLA layers, a MoE gate with
 * e_score_correction_bias, which the published checkpoint stores in bf16 (its index's total_size) */
static const llmmem__key_default kimi_linear_structure[] = {
    {LLMMEM_KEY_LINEAR_ATTN_KDA, 1}, {LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS, 1}, {LLMMEM_KEY_ROUTER_BIAS_FP32, 0}, END,
};

/* models/apertus/modeling_apertus.py: ApertusMLP up_proj, XIELUActivation (alpha_p, alpha_n learned), down_proj;
 * ApertusAttention q_norm and k_norm over a head */
static const llmmem__key_default apertus_structure[] = {
    {LLMMEM_KEY_MLP_GATED, 0}, {LLMMEM_KEY_QK_NORM, 1}, {LLMMEM_KEY_MLP_ACT_PARAMS, 2}, END,
};

/* models/lfm2/modeling_lfm2.py Lfm2DecoderLayer: operator_norm and ffn_norm, Lfm2MLP w1, w3, w2 (gated),
 * Lfm2Attention q_layernorm and k_layernorm over a head; tied */
static const llmmem__key_default lfm2_structure[] = {{LLMMEM_KEY_QK_NORM, 1}, {LLMMEM_KEY_TIE_WORD_EMBEDDINGS, 1}, END};

/* XiaomiMiMo/MiMo-V2-Flash modeling (vllm model_executor/models/mimo_v2_flash.py): a MoE gate with
 * e_score_correction_bias (topk_method noaux_tc) */
static const llmmem__key_default mimo_v2_structure[] = {{LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS, 1}, END};

/* models/hunyuan_v1_dense and hunyuan_v1_moe modeling files: HunYuan*V1Attention query_layernorm and
 * key_layernorm over a head (always built); HunYuanTopKGate.wg a Linear of dtype torch.float32 */
static const llmmem__key_default hunyuan_dense_structure[] = {{LLMMEM_KEY_QK_NORM, 1}, END};
static const llmmem__key_default hunyuan_moe_structure[] = {{LLMMEM_KEY_QK_NORM, 1}, {LLMMEM_KEY_ROUTER_FP32, 1}, END};
/* microsoft/Phi-4-mini-flash-reasoning modeling_phi4flash.py (remote code): PHI_NORM_CLASS nn.LayerNorm; Wqkv and
 * out_proj with biases; _SambaMLP fc1 to 2 x intermediate_size (gate and value), fc2 back, no biases */
/* vllm model_executor/models/step3p5.py: Step3p5Attention q_norm, k_norm over a head (always built);
 * FusedMoEBlock.gate an FP32ReplicatedLinear, router_bias an fp32 nn.Parameter (use_moe_router_bias and
 * need_fp32_gate asserted) */
static const llmmem__key_default step3p5_structure[] = {
    {LLMMEM_KEY_QK_NORM, 1}, {LLMMEM_KEY_ROUTER_FP32, 1}, {LLMMEM_KEY_ROUTER_SCORE_CORRECTION_BIAS, 1},
    {LLMMEM_KEY_ROUTER_BIAS_FP32, 1}, {LLMMEM_KEY_MTP_LM_HEAD, 1}, END,
};

static const llmmem__key_default phi4flash_structure[] = {
    {LLMMEM_KEY_NORM_TYPE, LN}, {LLMMEM_KEY_QKV_BIAS, 1}, {LLMMEM_KEY_O_PROJ_BIAS, 1}, END,
};

static const llmmem__key_default granitemoehybrid_structure[] = {
    {LLMMEM_KEY_NORMS_PER_LAYER, 2}, {LLMMEM_KEY_MLP_GATED, 1}, END,
};

/* Class defaults: values from transformers' configuration_<family>.py __init__ signatures
 * (max_position_embeddings: GPTNeoX, Falcon, Llama and Granite 2048, Mistral and Mixtral 4096 * 32,
 * Qwen and SmolLM3 32768, Phi-3 4096, Gemma and Gemma 2 8192, Gemma 3 131072). Fields in order:
 * kv_heads, head_dim, reads_kv_heads, reads_head_dim, tie, attention_bias, reads_mlp_bias, moe,
 * sliding, sliding_window, sliding_pattern, max_position, hidden, intermediate, layers, heads, vocab. */
static const llmmem__family families[] = {
    /* the most common family first: messages list the rows in this order */
    /* LlamaConfig: vocab_size=32000, hidden_size=4096, intermediate_size=11008,
     * num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=None, head_dim=None,
     * tie_word_embeddings=False, attention_bias=False, mlp_bias=False; llama.cpp's "llama" also
     * holds Mistral and, with expert_count, Mixtral */
    {LLMMEM_MODEL_LLAMA, "llama", LLMMEM_READ_LLAMA_LIKE,
     {NONE, 0, 1, 1, 0, 0, 1, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 2048, 4096, 11008, 32, 32, 32000, 0}, NULL,
     "llama"},
    /* GPT2Config, OPTConfig, BloomConfig, FalconConfig: no tie_word_embeddings argument, so
     * PretrainedConfig's True */
    {LLMMEM_MODEL_GPT2, "gpt2", LLMMEM_READ_GPT2,
     {NONE, 0, 0, 0, 1, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, NONE, NO_SHAPES, 0}, gpt2_structure, "gpt2"},
    {LLMMEM_MODEL_OPT, "opt", LLMMEM_READ_OPT,
     {NONE, 0, 0, 0, 1, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, NONE, NO_SHAPES, 0}, opt_structure, NULL},
    {LLMMEM_MODEL_BLOOM, "bloom", LLMMEM_READ_BLOOM,
     {NONE, 0, 0, 0, 1, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, NONE, NO_SHAPES, 0}, bloom_structure, "bloom"},
    /* GPTNeoXConfig: tie_word_embeddings=False, attention_bias=True; GPTNeoXAttention has no
     * grouped-query heads */
    {LLMMEM_MODEL_GPT_NEOX, "gpt_neox", LLMMEM_READ_LLAMA_LIKE,
     {NONE, 0, 0, 0, 0, 1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 2048, NO_SHAPES, 0}, gpt_neox_structure,
     "gptneox"},
    {LLMMEM_MODEL_FALCON, "falcon", LLMMEM_READ_FALCON,
     {NONE, 0, 0, 0, 1, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 2048, NO_SHAPES, 0}, falcon_structure,
     "falcon"},
    /* MistralConfig: intermediate_size=14336, num_key_value_heads=8, sliding_window=4096 */
    {LLMMEM_MODEL_MISTRAL, "mistral", LLMMEM_READ_LLAMA_LIKE,
     {8, 0, 1, 1, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_ALL, 4096, 0, 131072, 4096, 14336, 32, 32, 32000, 0}, NULL,
     NULL},
    /* MixtralConfig: num_key_value_heads=8, sliding_window=None */
    {LLMMEM_MODEL_MIXTRAL, "mixtral", LLMMEM_READ_LLAMA_LIKE,
     {8, 0, 1, 1, 0, -1, 0, LLMMEM_MOE_MIXTRAL, LLMMEM_SLIDE_ALL, 0, 0, 131072, NO_SHAPES, 0}, NULL, NULL},
    /* Qwen2Config: vocab_size=151936, hidden_size=4096, intermediate_size=22016,
     * num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=32, sliding_window=4096;
     * Qwen2Attention: q, k, v biased, o not */
    {LLMMEM_MODEL_QWEN2, "qwen2", LLMMEM_READ_LLAMA_LIKE,
     {32, 0, 1, 1, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_QWEN, 4096, 0, 32768, 4096, 22016, 32, 32, 151936, 0},
     qwen2_structure, "qwen2"},
    /* Qwen2MoeConfig: num_key_value_heads=16 */
    {LLMMEM_MODEL_QWEN2_MOE, "qwen2_moe", LLMMEM_READ_LLAMA_LIKE,
     {16, 0, 1, 1, 0, -1, 0, LLMMEM_MOE_QWEN_SHARED, LLMMEM_SLIDE_QWEN, 4096, 0, 32768, NO_SHAPES, 0},
     qwen2_moe_structure, "qwen2moe"},
    /* Qwen3Config: num_key_value_heads=32, head_dim=128, attention_bias=False */
    {LLMMEM_MODEL_QWEN3, "qwen3", LLMMEM_READ_LLAMA_LIKE,
     {32, 128, 1, 1, 0, 0, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_QWEN, 4096, 0, 32768, NO_SHAPES, 0}, qk_norm_structure,
     "qwen3"},
    /* Qwen3MoeConfig: num_key_value_heads=4, attention_bias=False */
    {LLMMEM_MODEL_QWEN3_MOE, "qwen3_moe", LLMMEM_READ_LLAMA_LIKE,
     {4, 0, 1, 1, 0, 0, 0, LLMMEM_MOE_QWEN, LLMMEM_SLIDE_QWEN, 4096, 0, 32768, NO_SHAPES, 0}, qk_norm_structure,
     "qwen3moe"},
    /* Phi3Config: num_key_value_heads=None, sliding_window=None */
    {LLMMEM_MODEL_PHI3, "phi3", LLMMEM_READ_LLAMA_LIKE,
     {NONE, 0, 1, 1, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_ALL, 0, 0, 4096, NO_SHAPES, 0}, NULL, "phi3"},
    /* GemmaConfig: num_key_value_heads=16, head_dim=256, tie_word_embeddings=True */
    {LLMMEM_MODEL_GEMMA, "gemma", LLMMEM_READ_LLAMA_LIKE,
     {16, 256, 1, 1, 1, 0, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 8192, NO_SHAPES, 0}, tied_structure, "gemma"},
    /* Gemma2Config: vocab_size=256000, hidden_size=2304, intermediate_size=9216,
     * num_hidden_layers=26, num_attention_heads=8, num_key_value_heads=4, head_dim=256,
     * sliding_window=4096; Gemma2DecoderLayer: is_sliding = not bool(layer_idx % 2) */
    {LLMMEM_MODEL_GEMMA2, "gemma2", LLMMEM_READ_LLAMA_LIKE,
     {4, 256, 1, 1, 1, 0, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_GEMMA, 4096, 2, 8192, 2304, 9216, 26, 8, 256000, 0},
     gemma2_structure, "gemma2"},
    /* Gemma3TextConfig: vocab_size=262_208, hidden_size=2304, intermediate_size=9216,
     * num_hidden_layers=26, num_attention_heads=8, num_key_value_heads=4, head_dim=256,
     * sliding_window=4096, sliding_window_pattern=6 */
    {LLMMEM_MODEL_GEMMA3_TEXT, "gemma3_text", LLMMEM_READ_LLAMA_LIKE,
     {4, 256, 1, 1, 1, 0, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_GEMMA, 4096, 6, 131072, 2304, 9216, 26, 8, 262208, 0},
     gemma3_text_structure, "gemma3"},
    /* llama.cpp's deepseek2 holds both; V3 when it stores exp_probs_b (gguf.c) */
    {LLMMEM_MODEL_DEEPSEEK_V2, "deepseek_v2", LLMMEM_READ_DEEPSEEK,
     {NONE, 0, 0, 0, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, NONE, NO_SHAPES, 0}, NULL, "deepseek2"},
    {LLMMEM_MODEL_DEEPSEEK_V3, "deepseek_v3", LLMMEM_READ_DEEPSEEK,
     {NONE, 0, 0, 0, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, NONE, NO_SHAPES, 0}, deepseek_v3_structure,
     NULL},
    /* GraniteConfig: vocab_size=32000, hidden_size=4096, intermediate_size=11008,
     * num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=None, tie_word_embeddings=False,
     * attention_bias=False, mlp_bias=False; GraniteAttention is Llama's (its four multipliers are
     * floats, not tensors); llama.cpp's "granite" */
    {LLMMEM_MODEL_GRANITE, "granite", LLMMEM_READ_LLAMA_LIKE,
     {NONE, 0, 1, 0, 0, 0, 1, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 2048, 4096, 11008, 32, 32, 32000, 0}, NULL,
     "granite"},
    /* SmolLM3Config: vocab_size=128256, hidden_size=2048, intermediate_size=11008,
     * num_hidden_layers=36, num_attention_heads=16, num_key_value_heads=4, tie_word_embeddings=True,
     * attention_bias=False, mlp_bias=False, use_sliding_window=False, sliding_window=None,
     * max_window_layers=28; SmolLM3DecoderLayer is Llama's (no_rope_layers hold no tensors) */
    {LLMMEM_MODEL_SMOLLM3, "smollm3", LLMMEM_READ_LLAMA_LIKE,
     {4, 0, 1, 1, 1, 0, 1, LLMMEM_MOE_NONE, LLMMEM_SLIDE_QWEN, 0, 0, 32768, 2048, 11008, 36, 16, 128256, 0},
     tied_structure, "smollm3"},
    /* moonshotai Kimi K2 (configuration_deepseek.py, DeepseekV3ForCausalLM): DeepSeek-V3's modeling
     * with its own sizes; llama.cpp reads its GGUF as deepseek2 */
    {LLMMEM_MODEL_KIMI_K2, "kimi_k2", LLMMEM_READ_DEEPSEEK,
     {NONE, 0, 0, 0, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, NONE, NO_SHAPES, 0}, deepseek_v3_structure,
     NULL},
    /* GptOssConfig: num_hidden_layers=36, num_local_experts=128, vocab_size=201088, hidden_size=2880,
     * intermediate_size=2880, head_dim=64, num_attention_heads=64, num_key_value_heads=8,
     * sliding_window=128, tie_word_embeddings=False, max_position_embeddings=131072,
     * num_experts_per_tok=4, attention_bias=True; its experts are num_local_experts of
     * intermediate_size on every layer (read as Mixtral's); llama.cpp's "gpt-oss" (LLM_ARCH_OPENAI_MOE) */
    {LLMMEM_MODEL_GPT_OSS, "gpt_oss", LLMMEM_READ_LLAMA_LIKE,
     {8, 64, 1, 1, 0, 1, 0, LLMMEM_MOE_MIXTRAL, LLMMEM_SLIDE_GEMMA, 128, 2, 131072, 2880, 2880, 36, 64, 201088, 0},
     gpt_oss_structure, "gpt-oss"},
    /* deepseek-ai/DeepSeek-V3.2-Exp and DeepSeek-V3.2 (DeepseekV32ForCausalLM, remote code): DeepSeek-V3's
     * modeling and an indexer in every attention layer (index_n_heads, index_head_dim) */
    {LLMMEM_MODEL_DEEPSEEK_V32, "deepseek_v32", LLMMEM_READ_DEEPSEEK,
     {NONE, 0, 0, 0, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, NONE, NO_SHAPES, 0}, deepseek_v3_structure,
     NULL},
    /* Olmo2Config: vocab_size=50304, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
     * num_attention_heads=32, num_key_value_heads=None, max_position_embeddings=2048,
     * tie_word_embeddings=False, attention_bias=False; llama.cpp "olmo2" */
    {LLMMEM_MODEL_OLMO2, "olmo2", LLMMEM_READ_LLAMA_LIKE,
     {NONE, 0, 1, 1, 0, 0, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 2048, 4096, 11008, 32, 32, 50304, 0},
     olmo2_structure, "olmo2"},
    /* OlmoeConfig: vocab_size=50304, hidden_size=2048, intermediate_size=2048, num_hidden_layers=16,
     * num_attention_heads=16, num_key_value_heads=None, max_position_embeddings=4096,
     * tie_word_embeddings=False, attention_bias=False, num_experts=64, num_experts_per_tok=8;
     * OlmoeAttention: head_dim = hidden_size / num_attention_heads (config.head_dim not read) */
    {LLMMEM_MODEL_OLMOE, "olmoe", LLMMEM_READ_LLAMA_LIKE,
     {NONE, 0, 1, 0, 0, 0, 0, LLMMEM_MOE_OLMOE, LLMMEM_SLIDE_NONE, 0, 0, 4096, 2048, 2048, 16, 16, 50304, 0},
     olmo2_structure, NULL},
    /* CohereConfig: vocab_size=256000, hidden_size=8192, intermediate_size=22528, num_hidden_layers=40,
     * num_attention_heads=64, num_key_value_heads=None, max_position_embeddings=8192,
     * tie_word_embeddings=True, attention_bias=False, use_qk_norm=False */
    {LLMMEM_MODEL_COHERE, "cohere", LLMMEM_READ_LLAMA_LIKE,
     {NONE, 0, 1, 1, 1, 0, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 8192, 8192, 22528, 40, 64, 256000, 1},
     cohere_structure, NULL},
    /* Cohere2Config: CohereConfig's sizes, sliding_window=4096, sliding_window_pattern=4 (layer_types
     * from transformers 4.53); Cohere2Attention has no q/k norms */
    {LLMMEM_MODEL_COHERE2, "cohere2", LLMMEM_READ_LLAMA_LIKE,
     {NONE, 0, 1, 1, 1, 0, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_GEMMA, 4096, 4, 8192, 8192, 22528, 40, 64, 256000, 0},
     cohere2_structure, "cohere2"},
    /* Glm4MoeConfig: vocab_size=151552, hidden_size=4096, intermediate_size=10944, num_hidden_layers=46,
     * num_attention_heads=96, num_key_value_heads=8, head_dim=128, max_position_embeddings=131072,
     * tie_word_embeddings=False, attention_bias=False, use_qk_norm=False (the MoE fields: hfconfig.c) */
    {LLMMEM_MODEL_GLM4_MOE, "glm4_moe", LLMMEM_READ_GLM4,
     {8, 128, 1, 1, 0, 0, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 131072, 4096, 10944, 46, 96, 151552, 1},
     glm4_moe_structure, NULL},
    /* MiniMaxM2Config: vocab_size=200064, hidden_size=3072, intermediate_size=1536, num_hidden_layers=62,
     * num_attention_heads=48, num_key_value_heads=8, head_dim=128, max_position_embeddings=196608,
     * tie_word_embeddings=False, num_local_experts=256, num_experts_per_tok=8 */
    {LLMMEM_MODEL_MINIMAX_M2, "minimax_m2", LLMMEM_READ_MINIMAX_M2,
     {8, 128, 1, 1, 0, -1, 0, LLMMEM_MOE_MIXTRAL, LLMMEM_SLIDE_NONE, 0, 0, 196608, 3072, 1536, 62, 48, 200064, 0},
     minimax_m2_structure, NULL},
    /* Exaone4Config: vocab_size=102400, hidden_size=4096, intermediate_size=16384, num_hidden_layers=32,
     * num_attention_heads=32, num_key_value_heads=32, max_position_embeddings=2048,
     * tie_word_embeddings=False, sliding_window=4096, sliding_window_pattern=4 (layer i global when
     * (i + 1) % 4 == 0), or layer_types; Exaone4Attention reads config.head_dim, biases none */
    {LLMMEM_MODEL_EXAONE4, "exaone4", LLMMEM_READ_LLAMA_LIKE,
     {32, 0, 1, 1, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_GEMMA, 4096, 4, 2048, 4096, 16384, 32, 32, 102400, 0},
     exaone4_structure, "exaone4"},
    /* Ernie4_5Config: vocab_size=103424, hidden_size=1024, intermediate_size=3072, num_hidden_layers=18,
     * num_attention_heads=16, num_key_value_heads=2, head_dim=128, max_position_embeddings=131072,
     * use_bias=False, tie_word_embeddings=True */
    {LLMMEM_MODEL_ERNIE4_5, "ernie4_5", LLMMEM_READ_ERNIE,
     {2, 128, 1, 1, 1, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 131072, 1024, 3072, 18, 16, 103424, 0},
     NULL, NULL},
    /* Ernie4_5_MoeConfig: vocab_size=103424, hidden_size=2560, intermediate_size=12288,
     * num_hidden_layers=28, num_attention_heads=20, num_key_value_heads=4, max_position_embeddings=131072,
     * use_bias=False, tie_word_embeddings=True (the moe_* defaults: hfconfig.c read_ernie) */
    {LLMMEM_MODEL_ERNIE4_5_MOE, "ernie4_5_moe", LLMMEM_READ_ERNIE,
     {4, 0, 1, 1, 1, -1, 0, LLMMEM_MOE_ERNIE, LLMMEM_SLIDE_NONE, 0, 0, 131072, 2560, 12288, 28, 20, 103424, 0},
     ernie4_5_moe_structure, NULL},
    /* Glm4Config: vocab_size=151552, hidden_size=4096, intermediate_size=13696, num_hidden_layers=40,
     * num_attention_heads=32, num_key_value_heads=2, head_dim=128, max_position_embeddings=131072,
     * tie_word_embeddings=False, attention_bias=True (q, k, v only: hfconfig.c read_glm4) */
    {LLMMEM_MODEL_GLM4, "glm4", LLMMEM_READ_GLM4,
     {2, 128, 1, 1, 0, 1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 131072, 4096, 13696, 40, 32, 151552, 0},
     glm4_structure, NULL},
    /* Qwen2_5_VLConfig (text fields at the top level, or in text_config as Qwen2_5_VLTextConfig):
     * vocab_size=152064, hidden_size=8192, intermediate_size=29568, num_hidden_layers=80,
     * num_attention_heads=64, num_key_value_heads=8, max_position_embeddings=32768,
     * tie_word_embeddings=False, use_sliding_window=False, sliding_window=4096; llama.cpp "qwen2vl" */
    {LLMMEM_MODEL_QWEN2_5_VL, "qwen2_5_vl", LLMMEM_READ_LLAMA_LIKE,
     {8, 0, 1, 0, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_QWEN, 4096, 0, 32768, 8192, 29568, 80, 64, 152064, 0},
     qwen2_5_vl_structure, NULL},
    /* Qwen3VLTextConfig: vocab_size=151936, hidden_size=4096, intermediate_size=22016,
     * num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=32, head_dim=128,
     * max_position_embeddings=128000, tie_word_embeddings=False, attention_bias=False;
     * Qwen3VLTextAttention has no sliding window */
    {LLMMEM_MODEL_QWEN3_VL, "qwen3_vl", LLMMEM_READ_LLAMA_LIKE,
     {32, 128, 1, 1, 0, 0, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 128000, 4096, 22016, 32, 32, 151936, 0},
     qwen3_vl_structure, NULL},
    /* Qwen3VLMoeTextConfig: vocab_size=151936, hidden_size=2048, intermediate_size=5632,
     * num_hidden_layers=24, num_attention_heads=16, num_key_value_heads=16, head_dim=None,
     * max_position_embeddings=128000, tie_word_embeddings=True, attention_bias=False (its class;
     * Qwen3VLMoeConfig's own tie_word_embeddings=False governs the model), sliding_window=None */
    {LLMMEM_MODEL_QWEN3_VL_MOE, "qwen3_vl_moe", LLMMEM_READ_LLAMA_LIKE,
     {16, 0, 1, 1, 0, 0, 0, LLMMEM_MOE_QWEN, LLMMEM_SLIDE_NONE, 0, 0, 128000, 2048, 5632, 24, 16, 151936, 0},
     qwen3_vl_structure, NULL},
    /* Mistral3Config: text_config a MistralConfig unless it names another model_type (ministral3);
     * the MistralConfig defaults fill its text fields */
    {LLMMEM_MODEL_MISTRAL3, "mistral3", LLMMEM_READ_LLAMA_LIKE,
     {8, 0, 1, 1, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_ALL, 4096, 0, 131072, 4096, 14336, 32, 32, 32000, 0},
     mistral3_structure, NULL},
    /* Ministral3Config: vocab_size=131072, hidden_size=4096, intermediate_size=14336,
     * num_hidden_layers=34, num_attention_heads=32, num_key_value_heads=8, head_dim=128,
     * max_position_embeddings=262144, tie_word_embeddings=False, sliding_window=None; Mistral's layers */
    {LLMMEM_MODEL_MINISTRAL3, "ministral3", LLMMEM_READ_LLAMA_LIKE,
     {8, 128, 1, 1, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_ALL, 0, 0, 262144, 4096, 14336, 34, 32, 131072, 0}, NULL,
     NULL},
    /* Llama4TextConfig (the text_config of a Llama4Config): vocab_size=202048, hidden_size=5120,
     * intermediate_size=8192 (an expert's and the shared expert's width; intermediate_size_mlp=16384 the
     * dense layers'), num_hidden_layers=48, num_attention_heads=40, num_key_value_heads=8, head_dim=128,
     * max_position_embeddings=4096 * 32, tie_word_embeddings=False, attention_bias=False; the MoE and
     * chunk fields are read by the llama4 reader (hfconfig.c) */
    {LLMMEM_MODEL_LLAMA4, "llama4", LLMMEM_READ_LLAMA4,
     {8, 128, 1, 1, 0, 0, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 131072, 5120, 8192, 48, 40, 202048, 0},
     llama4_structure, NULL},
    /* MllamaTextConfig: vocab_size=128256, hidden_size=4096, intermediate_size=14336,
     * num_hidden_layers=40, num_attention_heads=32, num_key_value_heads=8, max_position_embeddings=131072,
     * tie_word_embeddings=False; MllamaTextSelfAttention and MllamaTextCrossAttention take head_dim =
     * hidden_size / num_attention_heads and no biases; cross_attention_layers (the mllama reader) */
    {LLMMEM_MODEL_MLLAMA, "mllama", LLMMEM_READ_MLLAMA,
     {8, 0, 1, 0, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 131072, 4096, 14336, 40, 32, 128256, 0},
     mllama_structure, NULL},
    /* Llama4TextConfig alone (Llama4ForCausalLM): the llama4 row's text defaults */
    {LLMMEM_MODEL_LLAMA4_TEXT, "llama4_text", LLMMEM_READ_LLAMA4_TEXT,
     {8, 128, 1, 1, 0, 0, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 131072, 5120, 8192, 48, 40, 202048, 0},
     llama4_structure, NULL},
    /* Mamba2Config: tie_word_embeddings=False, no attention, no max_position_embeddings; its mixer
     * fields are read by their own names (hfconfig.c read_mamba2) */
    {LLMMEM_MODEL_MAMBA2, "mamba2", LLMMEM_READ_MAMBA2,
     {NONE, 0, 0, 0, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, NONE, NO_SHAPES, 0}, mamba2_structure,
     "mamba2"},
    /* NemotronHConfig: tie_word_embeddings=False, attention_bias=False, mlp_bias=False,
     * max_position_embeddings=4096 */
    {LLMMEM_MODEL_NEMOTRON_H, "nemotron_h", LLMMEM_READ_NEMOTRON_H,
     {NONE, 0, 1, 1, 0, 0, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 4096, NO_SHAPES, 0}, nemotron_h_structure,
     "nemotron_h"},
    /* Qwen3NextConfig: num_key_value_heads=2, head_dim=256, tie_word_embeddings=False,
     * attention_bias=False, max_position_embeddings=32768; Qwen2-MoE's routing fields and a
     * shared expert; full_attention_interval and the linear_* fields read by read_llama_like */
    {LLMMEM_MODEL_QWEN3_NEXT, "qwen3_next", LLMMEM_READ_LLAMA_LIKE,
     {2, 256, 1, 1, 0, 0, 0, LLMMEM_MOE_QWEN_SHARED, LLMMEM_SLIDE_NONE, 0, 0, 32768, NO_SHAPES, 0},
     qwen3_next_structure, "qwen3next"},
    /* GraniteMoeHybridConfig: vocab_size=32000, hidden_size=4096, intermediate_size=11008,
     * num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=None (the attention heads),
     * max_position_embeddings=2048, tie_word_embeddings=False, attention_bias=False; its mamba_* and
     * MoE fields are read by read_granitemoehybrid (hfconfig.c) */
    {LLMMEM_MODEL_GRANITEMOEHYBRID, "granitemoehybrid", LLMMEM_READ_GRANITEMOEHYBRID,
     {NONE, 0, 1, 1, 0, 0, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 2048, 4096, 11008, 32, 32, 32000, 0},
     granitemoehybrid_structure, "granitehybrid"},
    /* JambaConfig: vocab_size=65536, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
     * num_attention_heads=32, num_key_value_heads=8, max_position_embeddings=262144,
     * tie_word_embeddings=False; JambaAttention: head_dim = hidden_size / num_heads, no biases;
     * JambaMLP gated; two JambaRMSNorm a decoder layer (input_layernorm, pre_ff_layernorm); the MoE,
     * layer-period and mamba_* fields read by read_jamba (hfconfig.c) */
    {LLMMEM_MODEL_JAMBA, "jamba", LLMMEM_READ_JAMBA,
     {8, 0, 1, 0, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 262144, 4096, 14336, 32, 32, 65536, 0},
     NULL, NULL}, /* llama.cpp jamba GGUF: its ssm_* tensors are not read (gguf.c) */
    /* FalconH1Config (configuration_falcon_h1.py): vocab_size=128000, hidden_size=4096,
     * intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8,
     * head_dim=None, max_position_embeddings=8192, tie_word_embeddings=False, attention_bias=False,
     * mlp_bias=False; the mamba_* and projectors_bias fields read by read_falcon_h1 (hfconfig.c) */
    {LLMMEM_MODEL_FALCON_H1, "falcon_h1", LLMMEM_READ_FALCON_H1,
     {8, 0, 1, 1, 0, 0, 1, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 8192, 4096, 14336, 32, 32, 128000, 0},
     falcon_h1_structure, NULL}, /* llama.cpp falcon-h1 GGUF: not read */
    /* Qwen3_5TextConfig (models/qwen3_5/configuration_qwen3_5.py, text_config of Qwen3_5Config): vocab_size=248320,
     * hidden_size=4096, intermediate_size=12288, num_hidden_layers=32, num_attention_heads=16,
     * num_key_value_heads=4, head_dim=256, max_position_embeddings=32768, tie_word_embeddings=False,
     * attention_bias=False; the linear_* fields, full_attention_interval=4 and mtp_num_hidden_layers read as
     * Qwen3-Next's (hfconfig.c). llama.cpp's qwen35 GGUF: not read */
    {LLMMEM_MODEL_QWEN3_5, "qwen3_5", LLMMEM_READ_LLAMA_LIKE,
     {4, 256, 1, 1, 0, 0, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 32768, 4096, 12288, 32, 16, 248320, 0},
     qwen3_5_structure, NULL},
    /* Qwen3_5MoeTextConfig (models/qwen3_5_moe/configuration_qwen3_5_moe.py): vocab_size=248320, hidden_size=2048,
     * num_hidden_layers=40, num_attention_heads=16, num_key_value_heads=2, head_dim=256,
     * max_position_embeddings=32768, tie_word_embeddings=False, no intermediate_size (every layer MoE:
     * num_experts=256, num_experts_per_tok=8, moe_intermediate_size=512, shared_expert_intermediate_size=512,
     * hfconfig.c). llama.cpp's qwen35moe GGUF: not read */
    {LLMMEM_MODEL_QWEN3_5_MOE, "qwen3_5_moe", LLMMEM_READ_LLAMA_LIKE,
     {2, 256, 1, 1, 0, 0, 0, LLMMEM_MOE_QWEN_SHARED, LLMMEM_SLIDE_NONE, 0, 0, 32768, 2048, 0, 40, 16, 248320, 0},
     qwen3_5_moe_structure, NULL},
    /* Gemma4TextConfig (models/gemma4/configuration_gemma4.py, text_config of Gemma4Config): vocab_size=262144,
     * hidden_size=2304, intermediate_size=9216, num_hidden_layers=30, num_attention_heads=8,
     * num_key_value_heads=4, head_dim=256, max_position_embeddings=131072, tie_word_embeddings=True,
     * attention_bias=False, sliding_window=512, layer_types 5 sliding : 1 full with the last layer full; the
     * Gemma 4 fields read by read_gemma4_text (hfconfig.c). llama.cpp's gemma4 GGUF: not read */
    {LLMMEM_MODEL_GEMMA4, "gemma4", LLMMEM_READ_GEMMA4,
     {4, 256, 1, 1, 1, 0, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_GEMMA, 512, 6, 131072, 2304, 9216, 30, 8, 262144, 0},
     gemma4_structure, NULL},
    /* Glm4MoeLiteConfig (models/glm4_moe_lite/configuration_glm4_moe_lite.py, GLM-4.7-Flash's sizes): DeepSeek-V3's
     * MLA and MoE (Glm4MoeLiteDecoderLayer), the router's e_score_correction_bias; mlp_layer_types [dense] + sparse,
     * read by read_deepseek. llama.cpp: not read */
    {LLMMEM_MODEL_GLM4_MOE_LITE, "glm4_moe_lite", LLMMEM_READ_DEEPSEEK,
     {NONE, 0, 0, 0, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, NONE, NO_SHAPES, 0}, glm_moe_structure, NULL},
    /* GlmMoeDsaConfig (models/glm_moe_dsa/configuration_glm_moe_dsa.py, GLM-5's sizes): Glm4MoeLite's layers and a
     * GlmMoeDsaIndexer in each (index_n_heads=32, index_head_dim=128, the class defaults read_deepseek gives),
     * mlp_layer_types 3 x dense + sparse. llama.cpp's glm-dsa GGUF: not read */
    {LLMMEM_MODEL_GLM_MOE_DSA, "glm_moe_dsa", LLMMEM_READ_DEEPSEEK,
     {NONE, 0, 0, 0, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, NONE, NO_SHAPES, 0}, glm_moe_structure, NULL},
    /* DeepseekV4Config (models/deepseek_v4/configuration_deepseek_v4.py; its defaults are V4-Flash's): vocab_size=129280,
     * hidden_size=4096, moe_intermediate_size=2048, num_hidden_layers=43, num_attention_heads=64,
     * num_key_value_heads=1, head_dim=512, q_lora_rank=1024, max_position_embeddings=1048576, tie_word_embeddings=False,
     * sliding_window=128; the rest read by read_deepseek_v4 (hfconfig.c). llama.cpp's deepseek4 GGUF: not read */
    {LLMMEM_MODEL_DEEPSEEK_V4, "deepseek_v4", LLMMEM_READ_DEEPSEEK_V4,
     {1, 512, 1, 1, 0, 0, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 1048576, 4096, 2048, 43, 64, 129280, 0},
     deepseek_v4_structure, NULL},
    /* KimiLinearConfig (moonshotai/Kimi-Linear configuration_kimi.py, remote code): every field written by the
     * published config; linear_attn_config's kda_layers and full_attn_layers are 1-indexed. llama.cpp's kimi-linear
     * GGUF: not read */
    {LLMMEM_MODEL_KIMI_LINEAR, "kimi_linear", LLMMEM_READ_KIMI_LINEAR,
     {NONE, 0, 0, 0, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, NONE, NO_SHAPES, 0}, kimi_linear_structure,
     NULL},
    /* DeciLMConfig (nvidia/Llama-3_3-Nemotron-Super-49B-v1 configuration_decilm.py, remote code; vLLM
     * nemotron_nas.py): Llama's shapes, num_key_value_heads and intermediate_size null, block_configs read by
     * read_nemotron_nas. llama.cpp's deci GGUF: not read */
    {LLMMEM_MODEL_NEMOTRON_NAS, "nemotron-nas", LLMMEM_READ_NEMOTRON_NAS,
     {NONE, 0, 0, 0, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, NONE, NO_SHAPES, 0}, NULL, NULL},
    /* Olmo3Config (models/olmo3/configuration_olmo3.py): vocab_size=50304, hidden_size=4096, intermediate_size=11008,
     * num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=None, max_position_embeddings=2048,
     * tie_word_embeddings=False, attention_bias=False, sliding_window=4096, layer_types sliding unless
     * (i + 1) % 4 == 0; OLMo 2's layers. llama.cpp reads its GGUF as olmo2 (with a sliding window) */
    {LLMMEM_MODEL_OLMO3, "olmo3", LLMMEM_READ_LLAMA_LIKE,
     {NONE, 0, 1, 1, 0, 0, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_GEMMA, 4096, 4, 2048, 4096, 11008, 32, 32, 50304, 0},
     olmo2_structure, NULL},
    /* ApertusConfig (models/apertus/configuration_apertus.py): vocab_size=131072, hidden_size=4096,
     * intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=None,
     * max_position_embeddings=65536, tie_word_embeddings=False, attention_bias=False, hidden_act "xielu".
     * llama.cpp's apertus GGUF: not read */
    {LLMMEM_MODEL_APERTUS, "apertus", LLMMEM_READ_LLAMA_LIKE,
     {NONE, 0, 1, 1, 0, 0, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 65536, 4096, 14336, 32, 32, 131072, 0},
     apertus_structure, NULL},
    /* Lfm2Config (models/lfm2/configuration_lfm2.py): vocab_size=65536, hidden_size=2560, intermediate_size=12288,
     * num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8, max_position_embeddings=128000,
     * tie_word_embeddings=True; conv_bias, conv_L_cache, the block_* MLP rule and full_attn_idxs read by
     * read_lfm2. llama.cpp's lfm2 GGUF: not read */
    {LLMMEM_MODEL_LFM2, "lfm2", LLMMEM_READ_LFM2,
     {8, 0, 1, 0, 1, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 128000, 2560, 12288, 32, 32, 65536, 0},
     lfm2_structure, NULL},
    /* MiMoV2FlashConfig (XiaomiMiMo/MiMo-V2-Flash configuration, remote code): swa_num_key_value_heads=8,
     * swa_head_dim=192, swa_v_head_dim=128, max_position_embeddings=262144, tie_word_embeddings=False,
     * add_swa_attention_sink_bias=True, add_full_attention_sink_bias=False, sliding_window=128, n_routed_experts=256,
     * num_experts_per_tok=8, n_shared_experts=None, read by read_mimo_v2. llama.cpp's mimo2 GGUF: not read */
    {LLMMEM_MODEL_MIMO_V2_FLASH, "mimo_v2_flash", LLMMEM_READ_MIMO_V2,
     {NONE, 0, 0, 0, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, NONE, NO_SHAPES, 0}, mimo_v2_structure, NULL},
    /* HunYuanDenseV1Config and HunYuanMoEV1Config (models/hunyuan_v1_dense, hunyuan_v1_moe configuration files):
     * vocab_size=290943, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=None
     * (the attention heads), head_dim=None, max_position_embeddings=2048, tie_word_embeddings=False,
     * attention_bias=False; the MoE's num_experts=1, moe_topk=1, use_mixed_mlp_moe=False read by read_hunyuan.
     * llama.cpp: hunyuan-dense, hunyuan-moe (convert_hf_to_gguf.py HunYuanMoEModel writes the shared MLP's width
     * and count) */
    {LLMMEM_MODEL_HUNYUAN_V1_DENSE, "hunyuan_v1_dense", LLMMEM_READ_HUNYUAN,
     {NONE, 0, 1, 1, 0, 0, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 2048, 4096, 11008, 32, 32, 290943, 0},
     hunyuan_dense_structure, "hunyuan-dense"},
    {LLMMEM_MODEL_HUNYUAN_V1_MOE, "hunyuan_v1_moe", LLMMEM_READ_HUNYUAN,
     {NONE, 0, 1, 1, 0, 0, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 2048, 4096, 11008, 32, 32, 290943, 0},
     hunyuan_moe_structure, "hunyuan-moe"},
    /* Phi4FlashConfig (microsoft/Phi-4-mini-flash-reasoning configuration_phi4flash.py, remote code): vocab_size=51200,
     * hidden_size=2560, intermediate_size=9216, num_hidden_layers=32, num_attention_heads=40, num_key_value_heads=4,
     * max_position_embeddings=4096, tie_word_embeddings=True, sliding_window=2047, mb_per_layer=2, mamba_d_state=16,
     * mamba_d_conv=4, mamba_expand=2, mamba_dt_rank "auto", mamba_conv_bias=True, mamba_proj_bias=False, read by
     * read_phi4flash. llama.cpp has no architecture for it */
    {LLMMEM_MODEL_PHI4FLASH, "phi4flash", LLMMEM_READ_PHI4FLASH,
     {4, 0, 1, 0, 1, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 4096, 2560, 9216, 32, 40, 51200, 0},
     phi4flash_structure, NULL},
    /* Step3p5Config (stepfun-ai/Step-3.5-Flash remote code; Megatron-Bridge stepfun/configuration_step35.py mirrors
     * it): vocab_size=128815, hidden_size=4096, intermediate_size=11264, num_hidden_layers=45, num_attention_heads=64,
     * num_attention_groups=8, head_dim=128, max_position_embeddings=128000, moe_* and share_expert_dim read by
     * read_step3p5. llama.cpp's step35 GGUF: not read */
    {LLMMEM_MODEL_STEP3P5, "step3p5", LLMMEM_READ_STEP3P5,
     {NONE, 128, 0, 1, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, 128000, 4096, 11264, 45, 64, 128815, 0},
     step3p5_structure, NULL},
    /* KimiK25Config (moonshotai/Kimi-K2.5 configuration_kimi_k25.py, remote code): text_config a DeepseekV3Config
     * (deepseek_v3 or kimi_k2) read by its own family, vision_config MoonViT's fields, read by read_kimi_k25.
     * llama.cpp runs the text model as deepseek2 */
    {LLMMEM_MODEL_KIMI_K25, "kimi_k25", LLMMEM_READ_DEEPSEEK,
     {NONE, 0, 0, 0, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, NONE, NO_SHAPES, 0}, kimi_k25_structure,
     NULL},
    /* Exaone4_5_Config (transformers models/exaone4_5/configuration_exaone4_5.py): text_config an Exaone4Config
     * (exaone4; the first configs wrote exaone4_5_text) whose class defaults fill it, vision_config an
     * Exaone4_5_VisionConfig, read by read_exaone4_5. llama.cpp's exaone4 GGUF holds the text model alone */
    {LLMMEM_MODEL_EXAONE4_5, "exaone4_5", LLMMEM_READ_LLAMA_LIKE,
     {32, 0, 1, 1, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_GEMMA, 4096, 4, 2048, 4096, 16384, 32, 32, 102400, 0},
     exaone4_5_structure, NULL},
    /* LagunaConfig (poolside Laguna, vllm model_executor/models/laguna.py): sizes, layer_types, per-layer query heads,
     * gating and experts read by read_laguna, none from class defaults. llama.cpp's laguna GGUF: not read */
    {LLMMEM_MODEL_LAGUNA, "laguna", LLMMEM_READ_LAGUNA,
     {NONE, 0, 1, 1, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, NONE, NO_SHAPES, 0}, laguna_structure, NULL},
    /* MiniMaxM3VLConfig (MiniMaxAI/MiniMax-M3 configuration_minimax_m3_vl.py, remote code): text_config (no model_type;
     * MiniMaxM3SparseForCausalLM) read by read_minimax_m3, vision_config (clip_vision_model) and the projectors by
     * read_minimax_m3_vl; no field from class defaults. vLLM: vllm/models/minimax_m3 (serving.c); no llama.cpp GGUF */
    {LLMMEM_MODEL_MINIMAX_M3_VL, "minimax_m3_vl", LLMMEM_READ_MINIMAX_M3,
     {NONE, 0, 1, 1, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, NONE, NO_SHAPES, 0}, minimax_m3_structure,
     NULL},
    /* KimiK3Config (moonshotai/Kimi-K3, remote code): text_config a KimiLinearConfig (kimi_linear) read by
     * read_kimi_linear under this family, vision_config the MoonViT's vt_* fields and qkv_hidden_size, read by
     * read_kimi_k3; the text model's quantization_config (compressed-tensors mxfp4-pack-quantized) is read there.
     * No GGUF arch read */
    {LLMMEM_MODEL_KIMI_K3, "kimi_k3", LLMMEM_READ_KIMI_LINEAR,
     {NONE, 0, 0, 0, 0, -1, 0, LLMMEM_MOE_NONE, LLMMEM_SLIDE_NONE, 0, 0, NONE, NO_SHAPES, 0}, kimi_k3_structure,
     NULL},
};
#define N_FAMILIES (sizeof families / sizeof families[0])

/* Indexed by value: the model_type key's choices (keys.c); the test suite checks each row's name
 * is here at its value. */
const char *const llmmem__model_type_names[] = {
    [LLMMEM_MODEL_CUSTOM] = "custom",           [LLMMEM_MODEL_GPT2] = "gpt2",
    [LLMMEM_MODEL_OPT] = "opt",                 [LLMMEM_MODEL_BLOOM] = "bloom",
    [LLMMEM_MODEL_GPT_NEOX] = "gpt_neox",       [LLMMEM_MODEL_FALCON] = "falcon",
    [LLMMEM_MODEL_LLAMA] = "llama",             [LLMMEM_MODEL_MISTRAL] = "mistral",
    [LLMMEM_MODEL_MIXTRAL] = "mixtral",         [LLMMEM_MODEL_QWEN2] = "qwen2",
    [LLMMEM_MODEL_QWEN2_MOE] = "qwen2_moe",     [LLMMEM_MODEL_QWEN3] = "qwen3",
    [LLMMEM_MODEL_QWEN3_MOE] = "qwen3_moe",     [LLMMEM_MODEL_PHI3] = "phi3",
    [LLMMEM_MODEL_GEMMA] = "gemma",             [LLMMEM_MODEL_GEMMA2] = "gemma2",
    [LLMMEM_MODEL_GEMMA3_TEXT] = "gemma3_text", [LLMMEM_MODEL_DEEPSEEK_V2] = "deepseek_v2",
    [LLMMEM_MODEL_DEEPSEEK_V3] = "deepseek_v3", [LLMMEM_MODEL_GRANITE] = "granite",
    [LLMMEM_MODEL_SMOLLM3] = "smollm3",         [LLMMEM_MODEL_KIMI_K2] = "kimi_k2",
    [LLMMEM_MODEL_GPT_OSS] = "gpt_oss",         [LLMMEM_MODEL_DEEPSEEK_V32] = "deepseek_v32",
    [LLMMEM_MODEL_OLMO2] = "olmo2",             [LLMMEM_MODEL_OLMOE] = "olmoe",
    [LLMMEM_MODEL_COHERE] = "cohere",           [LLMMEM_MODEL_COHERE2] = "cohere2",
    [LLMMEM_MODEL_GLM4_MOE] = "glm4_moe",       [LLMMEM_MODEL_MINIMAX_M2] = "minimax_m2",
    [LLMMEM_MODEL_EXAONE4] = "exaone4",         [LLMMEM_MODEL_ERNIE4_5] = "ernie4_5",
    [LLMMEM_MODEL_ERNIE4_5_MOE] = "ernie4_5_moe", [LLMMEM_MODEL_GLM4] = "glm4",
    [LLMMEM_MODEL_QWEN2_5_VL] = "qwen2_5_vl",   [LLMMEM_MODEL_QWEN3_VL] = "qwen3_vl",
    [LLMMEM_MODEL_QWEN3_VL_MOE] = "qwen3_vl_moe", [LLMMEM_MODEL_MISTRAL3] = "mistral3",
    [LLMMEM_MODEL_MINISTRAL3] = "ministral3",
    [LLMMEM_MODEL_LLAMA4] = "llama4",           [LLMMEM_MODEL_MLLAMA] = "mllama",
    [LLMMEM_MODEL_LLAMA4_TEXT] = "llama4_text",
    [LLMMEM_MODEL_MAMBA2] = "mamba2",           [LLMMEM_MODEL_NEMOTRON_H] = "nemotron_h",
    [LLMMEM_MODEL_QWEN3_NEXT] = "qwen3_next",   [LLMMEM_MODEL_GRANITEMOEHYBRID] = "granitemoehybrid",
    [LLMMEM_MODEL_JAMBA] = "jamba",             [LLMMEM_MODEL_FALCON_H1] = "falcon_h1",
    [LLMMEM_MODEL_QWEN3_5] = "qwen3_5",         [LLMMEM_MODEL_QWEN3_5_MOE] = "qwen3_5_moe",
    [LLMMEM_MODEL_GEMMA4] = "gemma4",           [LLMMEM_MODEL_GLM4_MOE_LITE] = "glm4_moe_lite",
    [LLMMEM_MODEL_GLM_MOE_DSA] = "glm_moe_dsa",     [LLMMEM_MODEL_DEEPSEEK_V4] = "deepseek_v4",
    [LLMMEM_MODEL_KIMI_LINEAR] = "kimi_linear",     [LLMMEM_MODEL_NEMOTRON_NAS] = "nemotron-nas",
    [LLMMEM_MODEL_OLMO3] = "olmo3",             [LLMMEM_MODEL_APERTUS] = "apertus",
    [LLMMEM_MODEL_LFM2] = "lfm2",               [LLMMEM_MODEL_MIMO_V2_FLASH] = "mimo_v2_flash",
    [LLMMEM_MODEL_HUNYUAN_V1_DENSE] = "hunyuan_v1_dense", [LLMMEM_MODEL_HUNYUAN_V1_MOE] = "hunyuan_v1_moe",
    [LLMMEM_MODEL_PHI4FLASH] = "phi4flash",         [LLMMEM_MODEL_STEP3P5] = "step3p5",
    [LLMMEM_MODEL_KIMI_K25] = "kimi_k25",           [LLMMEM_MODEL_EXAONE4_5] = "exaone4_5",
    [LLMMEM_MODEL_LAGUNA] = "laguna",               [LLMMEM_MODEL_MINIMAX_M3_VL] = "minimax_m3_vl",
    [LLMMEM_MODEL_KIMI_K3] = "kimi_k3",
    [LLMMEM__MODEL_TYPE_LAST + 1] = NULL,
};
_Static_assert(N_FAMILIES == LLMMEM__FAMILY_COUNT, "one row per model_type value but custom");

const llmmem__family *llmmem__family_at(size_t index)
{
    return index < N_FAMILIES ? &families[index] : NULL;
}

const llmmem__family *llmmem__family_of_type(int64_t type)
{
    for (size_t i = 0; i < N_FAMILIES; i++)
        if (families[i].type == type)
            return &families[i];
    return NULL;
}

const llmmem__family *llmmem__family_named(const char *model_type)
{
    for (size_t i = 0; i < N_FAMILIES; i++)
        if (strcmp(families[i].name, model_type) == 0)
            return &families[i];
    return NULL;
}

int llmmem__family_structure(int64_t *value, const llmmem__family *f, llmmem_key key)
{
    if (!f || !f->structure)
        return 0;
    for (const llmmem__key_default *d = f->structure; d->key != LLMMEM_KEY_NONE; d++) {
        if (d->key == key) {
            *value = d->value;
            return 1;
        }
    }
    return 0;
}

/* Appends text to buf (always terminated, cut at size). */
static void append(char *buf, size_t size, size_t *used, const char *text)
{
    size_t n = strlen(text);
    if (*used + 1 >= size)
        return;
    if (n > size - 1 - *used)
        n = size - 1 - *used;
    memcpy(buf + *used, text, n);
    *used += n;
    buf[*used] = '\0';
}

void llmmem__family_list(char *buf, size_t size, const char *extra)
{
    size_t used = 0;
    if (size)
        buf[0] = '\0';
    for (size_t i = 0; i < N_FAMILIES; i++) {
        append(buf, size, &used, i ? ", " : "");
        append(buf, size, &used, families[i].name);
    }
    if (extra) {
        append(buf, size, &used, ", ");
        append(buf, size, &used, extra);
    }
}
