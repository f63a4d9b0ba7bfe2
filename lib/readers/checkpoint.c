/* A checkpoint read from file headers: its tensors, what each one is (role and inventory group,
 * from its name), and sums by dtype, role and group. Shared by the safetensors and GGUF readers;
 * also the public getters and the cross-check against a model's inventory. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readers/checkpoint.h"

/* ---- names ------------------------------------------------------------- */

/* One dot-separated component of a tensor name. */
typedef struct tok {
    const char *p;
    size_t n;
} tok;

/* Without strlen(s): a name is compared with dozens of these per component (issue 14: a header of
 * a million tensors spent a third of its time in strlen). */
static int tok_eq(tok t, const char *s)
{
    for (size_t i = 0; i < t.n; i++)
        if (t.p[i] != s[i]) /* a shorter s stops here at its NUL */
            return 0;
    return s[t.n] == '\0';
}

static int tok_in(tok t, const char *const *list)
{
    for (; *list; list++)
        if (tok_eq(t, *list))
            return 1;
    return 0;
}

static int tok_starts(tok t, const char *s)
{
    size_t i = 0;
    for (; s[i]; i++)
        if (i >= t.n || t.p[i] != s[i])
            return 0;
    return 1;
}

static int tok_ends(tok t, const char *s)
{
    size_t n = strlen(s);
    return t.n >= n && memcmp(t.p + t.n - n, s, n) == 0;
}

static int tok_contains(tok t, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i + n <= t.n; i++)
        if (memcmp(t.p + i, s, n) == 0)
            return 1;
    return 0;
}

/* The first component. */
static tok first_tok(const char *name, size_t len)
{
    const char *dot = memchr(name, '.', len);
    return (tok){name, dot ? (size_t)(dot - name) : len};
}

/* The k-th component from the end (0: the last); empty when there are fewer. */
static tok tok_from_end(const char *name, size_t len, unsigned k)
{
    size_t end = len;
    for (;;) {
        size_t start = end;
        while (start > 0 && name[start - 1] != '.')
            start--;
        if (k == 0)
            return (tok){name + start, end - start};
        if (start == 0)
            return (tok){name, 0};
        end = start - 1;
        k--;
    }
}

typedef int (*tok_pred)(tok t);

/* 1 if any component satisfies pred. */
static int any_tok(const char *name, size_t len, tok_pred pred)
{
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || name[i] == '.') {
            if (pred((tok){name + start, i - start}))
                return 1;
            start = i + 1;
        }
    }
    return 0;
}

/* Multimodal towers and projectors: transformers LlavaForConditionalGeneration (vision_tower,
 * multi_modal_projector, image_newline), CLIP/SigLIP (vision_model), Qwen2-VL (visual); GGUF
 * mmproj files name theirs v.* and mm.*. Their norms and embeddings stay in the vision group,
 * as in the inventory (arch.c add_vision). */
static int is_vision(tok t)
{
    static const char *const names[] = {"vision_tower", "vision_model", "vision_encoder", "visual",
                                        "multi_modal_projector", "mm_projector", "image_newline",
                                        "vision_embed_tokens", NULL};
    return tok_in(t, names);
}

/* DeepSeek-V3's multi-token-prediction layer (model.layers.61: enorm, hnorm, eh_proj,
 * shared_head; GGUF blk.N.nextn.*): not part of the main model's inventory. */
static int is_mtp(tok t)
{
    static const char *const names[] = {"enorm", "hnorm", "eh_proj", "shared_head", NULL};
    return tok_in(t, names) || tok_starts(t, "nextn");
}

static int is_layers(tok t)
{
    return tok_eq(t, "layers") || tok_eq(t, "blk") || tok_eq(t, "h");
}

static int is_embed_tokens(tok t)
{
    return tok_eq(t, "embed_tokens");
}

/* Norms: *norm* (input_layernorm, post_attention_layernorm, q_norm, model.norm, ln_f via ln_,
 * GGUF attn_norm / ffn_norm / output_norm / attn_q_norm ...). */
static int is_norm(tok t)
{
    return tok_contains(t, "norm") || tok_starts(t, "ln_") || tok_eq(t, "ln");
}

/* Qwen2-MoE mlp.shared_expert.* and shared_expert_gate, DeepSeek mlp.shared_experts.*, GGUF *_shexp. */
static int is_shared_expert(tok t)
{
    static const char *const names[] = {"shared_expert", "shared_experts", "shared_expert_gate", NULL};
    return tok_in(t, names) || tok_ends(t, "_shexp");
}

/* Routed experts: HF mlp.experts.E.*, Mixtral block_sparse_moe.experts.E.w1/w2/w3, fused
 * mlp.experts.gate_up_proj, Nemotron 3's mixer.fc1_latent_proj / fc2_latent_proj into and out of the
 * experts' latent; GGUF ffn_{gate,up,down,gate_up}_exps. */
static int is_expert(tok t)
{
    return tok_eq(t, "experts") || tok_ends(t, "_exps") || tok_eq(t, "fc1_latent_proj") || tok_eq(t, "fc2_latent_proj");
}

/* Routers: mlp.gate (Qwen MoE, DeepSeek), block_sparse_moe.gate (Mixtral), *.router (gpt-oss,
 * Jamba, DBRX), DeepSeek-V3 gate.e_score_correction_bias; GGUF ffn_gate_inp, exp_probs_b. */
static int is_router(tok t)
{
    static const char *const names[] = {"gate", "router", "e_score_correction_bias", "ffn_gate_inp",
                                        "exp_probs_b", NULL};
    return tok_in(t, names);
}

/* Token embeddings: Llama-style embed_tokens, GPT-2 wte, BLOOM/Falcon word_embeddings, GPT-NeoX
 * embed_in, Meta tok_embeddings, GGUF token_embd, Mamba-2 and Nemotron-H backbone.embeddings. */
static int is_embedding(tok t)
{
    static const char *const names[] = {"embed_tokens", "wte", "word_embeddings", "embed_in", "tok_embeddings",
                                        "token_embd", "embeddings", NULL};
    return tok_in(t, names);
}

/* Learned positions: GPT-2 wpe, OPT embed_positions, GGUF position_embd. */
static int is_positions(tok t)
{
    static const char *const names[] = {"wpe", "embed_positions", "position_embeddings", "position_embd", NULL};
    return tok_in(t, names);
}

static int is_lm_head(tok t)
{
    return tok_eq(t, "lm_head") || tok_eq(t, "embed_out");
}

/* Attention: HF self_attn.{q,k,v,o}_proj, MLA q_a/q_b/kv_a/kv_b, Phi-3 qkv_proj, GPT-2
 * attn.c_attn/c_proj, BLOOM/Falcon self_attention, GPT-NeoX attention.query_key_value, gpt-oss
 * sinks; GGUF attn_q/attn_k/attn_v/attn_output/attn_qkv/attn_q_a/... */
static int is_attention(tok t)
{
    static const char *const names[] = {"self_attn", "self_attention", "attn", "attention", "q_proj", "k_proj",
                                        "v_proj", "o_proj", "qkv_proj", "c_attn", "query_key_value", "q_a_proj",
                                        "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj", "sinks", NULL};
    return tok_in(t, names) || tok_starts(t, "attn_");
}

/* Dense MLPs: mlp.{gate,up,down}_proj, Phi-3 gate_up_proj, GPT-2 mlp.c_fc/c_proj, OPT fc1/fc2,
 * BLOOM/NeoX dense_h_to_4h/dense_4h_to_h, Meta feed_forward.w1/w2/w3; GGUF ffn_gate/ffn_up/ffn_down. */
static int is_mlp(tok t)
{
    static const char *const names[] = {"mlp", "feed_forward", "ffn", "gate_proj", "up_proj", "down_proj",
                                        "gate_up_proj", "fc1", "fc2", "c_fc", "dense_h_to_4h", "dense_4h_to_h",
                                        "w1", "w2", "w3", NULL};
    return tok_in(t, names) || tok_starts(t, "ffn_");
}

/* Token mixers that keep a state (LLMMEM_PARAMS_SSM): Qwen3-Next's linear_attn.*, and the Mamba-2
 * mixer's own tensors behind a `mixer` component (modeling_mamba2.py Mamba2Mixer, Nemotron-H's
 * mamba blocks: in_proj, conv1d, dt_bias, A_log, D, its gated norm, out_proj; Nemotron-H's
 * attention and MLP blocks name theirs q_proj ... and up_proj, down_proj). */
static int is_linear_attn(tok t)
{
    return tok_eq(t, "linear_attn");
}

/* llama.cpp's recurrent tensors (gguf-py/gguf/constants.py MODEL_TENSOR.SSM_*): blk.N.ssm_in, ssm_conv1d,
 * ssm_dt, ssm_a, ssm_d, ssm_norm, ssm_out, and Qwen3-Next's ssm_ba / ssm_beta_alpha. */
static int is_gguf_ssm(tok t)
{
    return tok_starts(t, "ssm_");
}

static int is_ssm(const char *name, size_t len)
{
    static const char *const mamba[] = {"in_proj", "conv1d", "dt_bias", "A_log", "D", "norm", "out_proj", NULL};
    /* modeling_jamba.py JambaMambaDecoderLayer.mamba (JambaMambaMixer): its own tensors and its three norms */
    static const char *const jamba[] = {"in_proj", "conv1d", "x_proj", "dt_proj", "A_log", "D", "out_proj",
                                        "dt_layernorm", "b_layernorm", "c_layernorm", NULL};
    if (any_tok(name, len, is_linear_attn))
        return 1;
    if (tok_eq(first_tok(name, len), "blk") && any_tok(name, len, is_gguf_ssm))
        return 1;
    for (unsigned k = 1;; k++) {
        tok prev = tok_from_end(name, len, k);
        if (prev.n == 0)
            return 0;
        if (tok_eq(prev, "mixer"))
            return tok_in(tok_from_end(name, len, k - 1), mamba);
        if (tok_eq(prev, "mamba"))
            return tok_in(tok_from_end(name, len, k - 1), jamba);
    }
}

/* The inventory group of a parameter (or of the weight a quantization tensor belongs to).
 * Order matters: vision before norms (vision norms are vision), norms before everything else
 * (q_norm is a norm, not attention), shared experts and experts before routers, attention
 * before MLP (GPT-2 attn.c_proj vs mlp.c_proj). */
static llmmem_param_group classify_group(const char *name, size_t len)
{
    tok first = first_tok(name, len);
    if (any_tok(name, len, is_vision) || tok_eq(first, "v") || tok_eq(first, "mm"))
        return LLMMEM_PARAMS_VISION;
    if (any_tok(name, len, is_mtp) ||
        (any_tok(name, len, is_embed_tokens) && any_tok(name, len, is_layers)))
        return LLMMEM_PARAMS_OTHER;
    if (is_ssm(name, len)) /* before norms: the Mamba-2 and Gated DeltaNet gated norms are the mixer's */
        return LLMMEM_PARAMS_SSM;
    if (any_tok(name, len, is_norm))
        return LLMMEM_PARAMS_NORMS;
    if (any_tok(name, len, is_shared_expert))
        return LLMMEM_PARAMS_SHARED_EXPERTS;
    if (any_tok(name, len, is_expert))
        return LLMMEM_PARAMS_EXPERTS;
    if (any_tok(name, len, is_router))
        return LLMMEM_PARAMS_ROUTER;
    if (any_tok(name, len, is_embedding))
        return LLMMEM_PARAMS_EMBEDDING;
    if (any_tok(name, len, is_positions))
        return LLMMEM_PARAMS_POSITIONS;
    /* GGUF and Meta name the head output.weight; output_norm was taken by the norms above */
    if (any_tok(name, len, is_lm_head) || tok_eq(first, "output"))
        return LLMMEM_PARAMS_LM_HEAD;
    if (any_tok(name, len, is_attention))
        return LLMMEM_PARAMS_ATTENTION;
    if (any_tok(name, len, is_mlp))
        return LLMMEM_PARAMS_MLP;
    return LLMMEM_PARAMS_OTHER;
}

/* Buffers saved beside the parameters: rotary inv_freq and cos/sin caches, GPT-2/GPT-J attn.bias
 * and attn.masked_bias and GPT-NeoX attention.bias / masked_bias causal masks, CLIP position_ids,
 * fairseq _float_tensor, Meta rope.freqs, GGUF rope_freqs (Llama 3 rope scaling factors). */
static int is_buffer(const char *name, size_t len)
{
    static const char *const last_names[] = {"inv_freq", "cos_cached", "sin_cached", "_cos_cached",
                                             "_sin_cached", "position_ids", "masked_bias", "_float_tensor",
                                             "freqs_cis", NULL};
    tok last = tok_from_end(name, len, 0), prev = tok_from_end(name, len, 1), first = first_tok(name, len);
    if (tok_in(last, last_names))
        return 1;
    if (tok_eq(last, "bias") && (tok_eq(prev, "attn") || tok_eq(prev, "attention")))
        return 1;
    return tok_eq(first, "rope_freqs") || (tok_eq(first, "rope") && tok_eq(last, "freqs"));
}

/* Quantization data stored beside a weight: GPTQ/AWQ scales, qzeros, g_idx; fp8 weight_scale,
 * weight_scale_inv (DeepSeek-V3), input_scale, k/v_scale; compressed-tensors weight_zero_point,
 * weight_g_idx, weight_shape, *_global_scale; ModelOpt weight_scale_2; bitsandbytes absmax,
 * quant_map, nested_absmax, nested_quant_map, quant_state.*, SCB, weight_format; MXFP4 *_scales. */
static int is_quant_state(tok t)
{
    return tok_starts(t, "quant_state");
}

static int is_quant_aux(const char *name, size_t len)
{
    static const char *const last_names[] = {
        "scales", "qzeros", "g_idx", "weight_scale", "weight_scale_inv", "weight_scale_2", "input_scale",
        "output_scale", "k_scale", "v_scale", "weight_zero_point", "weight_g_idx", "weight_shape",
        "weight_global_scale", "input_global_scale", "absmax", "quant_map", "nested_absmax",
        "nested_quant_map", "SCB", "weight_format", NULL};
    tok last = tok_from_end(name, len, 0);
    return tok_in(last, last_names) || tok_ends(last, "_scales") || any_tok(name, len, is_quant_state);
}

void llmmem__ck_classify(const char *name, size_t name_len, uint8_t *role_out, uint8_t *group_out)
{
    uint8_t role = LLMMEM__ROLE_PARAMETER, group = LLMMEM_PARAMS_OTHER;
    if (is_buffer(name, name_len)) {
        role = LLMMEM__ROLE_BUFFER;
    } else {
        if (is_quant_aux(name, name_len))
            role = LLMMEM__ROLE_QUANT_AUX;
        group = (uint8_t)classify_group(name, name_len);
    }
    if (role_out)
        *role_out = role;
    if (group_out)
        *group_out = group;
}

/* Parameters one stored element holds. A GPTQ/AWQ qweight (and compressed-tensors
 * weight_packed) packs 32/bits values in each int32: AutoGPTQ (auto_gptq/nn_modules/qlinear/
 * qlinear_cuda_old.py, qlinear_exllama.py) registers qweight as int32 of shape
 * (infeatures // 32 * bits, outfeatures); AutoAWQ packs along outfeatures the same way. The
 * bit width is not in the header, so 4 bits (the common case) is assumed: 8 per element.
 * MXFP4 *_blocks (gpt-oss) hold two 4-bit values per U8. */
static uint64_t packed_factor(const char *name, size_t len, const char *dtype)
{
    tok last = tok_from_end(name, len, 0);
    if ((tok_eq(last, "qweight") || tok_eq(last, "weight_packed")) &&
        (strcmp(dtype, "I32") == 0 || strcmp(dtype, "U32") == 0))
        return 8;
    if (tok_ends(last, "_blocks") && strcmp(dtype, "U8") == 0)
        return 2;
    return 1;
}

/* ---- building ---------------------------------------------------------- */

llmmem_status llmmem__ck_new(struct llmmem_checkpoint **out, int format)
{
    LLMMEM_REQUIRE(out);
    *out = calloc(1, sizeof **out);
    if (!*out)
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "checkpoint: out of memory");
    (*out)->format = format;
    return LLMMEM_OK;
}

/* Names in messages are cut so that the problem stays inside the message buffer. */
#define NAME_SHOWN 160

static void ck_name_entry(const void *ctx, size_t e, const char **p, size_t *n)
{
    const struct llmmem_checkpoint *ck = ctx;
    *p = ck->tensors[e].name;
    *n = strlen(*p);
}

static size_t stored_len(const char *name, size_t name_len)
{
    const char *nul = memchr(name, '\0', name_len);
    return nul ? (size_t)(nul - name) : name_len;
}

int llmmem__ck_find(const struct llmmem_checkpoint *ck, const char *name, size_t name_len, size_t *index_out)
{
    if (!ck || !name)
        return 0;
    return llmmem__nameset_find(&ck->names, name, stored_len(name, name_len), ck_name_entry, ck, index_out);
}

int llmmem__ck_find_hashed(const struct llmmem_checkpoint *ck, uint64_t hash, const char *name, size_t name_len,
                           size_t *index_out)
{
    return llmmem__nameset_find_hashed(&ck->names, hash, name, name_len, ck_name_entry, ck, index_out);
}

void llmmem__ck_prefetch(const struct llmmem_checkpoint *ck, uint64_t hash)
{
    llmmem__nameset_prefetch(&ck->names, hash);
}

llmmem_status llmmem__ck_add(struct llmmem_checkpoint *ck, const char *name, size_t name_len, const char *dtype,
                             uint64_t elements, uint64_t bytes)
{
    LLMMEM_REQUIRE(ck);
    LLMMEM_REQUIRE(name);
    LLMMEM_REQUIRE(dtype);
    /* A name is a C string from here on: classify exactly what is stored and later read back. */
    name_len = stored_len(name, name_len);
    int shown = name_len > NAME_SHOWN ? NAME_SHOWN : (int)name_len;
    uint64_t hash = llmmem__name_hash(name, name_len);
    llmmem__nameset_prefetch(&ck->names, hash); /* looked up below, after the name is classified */
    size_t dtype_len = strlen(dtype);
    if (dtype_len == 0 || dtype_len >= LLMMEM__DTYPE_NAME_MAX)
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "tensor '%.*s': dtype name '%.32s' is empty or longer than %d",
                            shown, name, dtype, LLMMEM__DTYPE_NAME_MAX - 1);

    uint8_t role, group;
    llmmem__ck_classify(name, name_len, &role, &group);
    if (llmmem__nameset_find_hashed(&ck->names, hash, name, name_len, ck_name_entry, ck, NULL))
        return llmmem__fail(LLMMEM_ERR_PARSE, "duplicate tensor name '%.*s'", shown, name);
    uint64_t counted = elements;
    if (role == LLMMEM__ROLE_PARAMETER && !llmmem__mul(&counted, elements, packed_factor(name, name_len, dtype)))
        return llmmem__fail(LLMMEM_ERR_OVERFLOW, "tensor '%.*s': unpacked parameter count of %llu elements exceeds 64 bits",
                            shown, name, (unsigned long long)elements);

    size_t d = 0;
    while (d < ck->n_dtypes && strcmp(ck->dtypes[d].dtype, dtype) != 0)
        d++;
    if (d == LLMMEM__MAX_DTYPES)
        return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "tensor '%.*s': more than %d distinct dtypes in one checkpoint",
                            shown, name, LLMMEM__MAX_DTYPES);

    /* Every sum is computed first and stored only when none overflows. The sum over all roles is
     * checked too, so that moving a tensor between roles (llmmem__ck_mark_tied_head) cannot. */
    uint64_t d_elements = d < ck->n_dtypes ? ck->dtypes[d].elements : 0;
    uint64_t d_bytes = d < ck->n_dtypes ? ck->dtypes[d].bytes : 0;
    uint64_t all_elements = 0;
    for (int r = 0; r < LLMMEM__ROLES; r++)
        all_elements += ck->role_elements[r]; /* fits: checked by every earlier call */
    uint64_t total, role_e, role_b, group_e = ck->group_elements[group], group_b = ck->group_bytes[group];
    int ok = llmmem__add(&total, ck->total_bytes, bytes) && llmmem__add(&d_elements, d_elements, elements) &&
             llmmem__add(&d_bytes, d_bytes, bytes) && llmmem__add(&role_e, ck->role_elements[role], counted) &&
             llmmem__add(&role_b, ck->role_bytes[role], bytes) && llmmem__add(&all_elements, all_elements, counted);
    if (ok && role == LLMMEM__ROLE_PARAMETER)
        ok = llmmem__add(&group_e, group_e, counted);
    if (ok && (role == LLMMEM__ROLE_PARAMETER || role == LLMMEM__ROLE_QUANT_AUX))
        ok = llmmem__add(&group_b, group_b, bytes);
    if (!ok)
        return llmmem__fail(LLMMEM_ERR_OVERFLOW, "tensor '%.*s': checkpoint element or byte count exceeds 64 bits",
                            shown, name);

    if (ck->n_tensors == ck->cap_tensors) {
        size_t cap = ck->cap_tensors ? ck->cap_tensors * 2 : 64;
        if (cap < ck->cap_tensors || cap > SIZE_MAX / sizeof *ck->tensors)
            return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "checkpoint: too many tensors");
        llmmem__ck_tensor *grown = realloc(ck->tensors, cap * sizeof *grown);
        if (!grown)
            return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "checkpoint: out of memory for %zu tensors", cap);
        ck->tensors = grown;
        ck->cap_tensors = cap;
    }
    char *copy = malloc(name_len + 1);
    if (!copy)
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "checkpoint: out of memory for a tensor name");
    memcpy(copy, name, name_len);
    copy[name_len] = '\0';

    llmmem__ck_tensor *t = &ck->tensors[ck->n_tensors];
    memset(t, 0, sizeof *t);
    t->name = copy;
    if (llmmem__nameset_insert_hashed(&ck->names, hash, ck->n_tensors) < 0) {
        free(copy);
        t->name = NULL;
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "checkpoint: out of memory for the tensor names");
    }
    ck->n_tensors++;
    memcpy(t->dtype, dtype, dtype_len + 1);
    t->elements = elements;
    t->bytes = bytes;
    t->role = role;
    t->group = group;
    if (d == ck->n_dtypes) {
        memcpy(ck->dtypes[d].dtype, dtype, dtype_len + 1);
        ck->n_dtypes++;
    }
    ck->dtypes[d].elements = d_elements;
    ck->dtypes[d].bytes = d_bytes;
    ck->total_bytes = total;
    ck->role_elements[role] = role_e;
    ck->role_bytes[role] = role_b;
    ck->group_elements[group] = group_e;
    ck->group_bytes[group] = group_b;
    return LLMMEM_OK;
}

void llmmem__ck_set_group(struct llmmem_checkpoint *ck, size_t index, uint8_t group)
{
    llmmem__ck_tensor *t = &ck->tensors[index];
    if (t->group == group || (t->role != LLMMEM__ROLE_PARAMETER && t->role != LLMMEM__ROLE_QUANT_AUX))
        return;
    /* the sums stay within the totals llmmem__ck_add checked: no overflow */
    if (t->role == LLMMEM__ROLE_PARAMETER) {
        uint64_t counted = t->elements * packed_factor(t->name, strlen(t->name), t->dtype);
        ck->group_elements[t->group] -= counted;
        ck->group_elements[group] += counted;
    }
    ck->group_bytes[t->group] -= t->bytes;
    ck->group_bytes[group] += t->bytes;
    t->group = group;
}

void llmmem__ck_mark_tied_head(struct llmmem_checkpoint *ck, int tied)
{
    if (!ck || !tied || ck->group_elements[LLMMEM_PARAMS_EMBEDDING] == 0)
        return;
    for (size_t i = 0; i < ck->n_tensors; i++) {
        llmmem__ck_tensor *t = &ck->tensors[i];
        if (t->group != LLMMEM_PARAMS_LM_HEAD ||
            (t->role != LLMMEM__ROLE_PARAMETER && t->role != LLMMEM__ROLE_QUANT_AUX))
            continue;
        uint64_t counted = t->elements;
        if (t->role == LLMMEM__ROLE_PARAMETER) {
            counted *= packed_factor(t->name, strlen(t->name), t->dtype); /* was checked in llmmem__ck_add */
            ck->group_elements[t->group] -= counted;
        }
        ck->group_bytes[t->group] -= t->bytes;
        ck->role_elements[t->role] -= counted;
        ck->role_bytes[t->role] -= t->bytes;
        ck->role_elements[LLMMEM__ROLE_DUPLICATE] += counted; /* the sum over roles fits (llmmem__ck_add) */
        ck->role_bytes[LLMMEM__ROLE_DUPLICATE] += t->bytes;
        t->role = LLMMEM__ROLE_DUPLICATE;
    }
}

/* ---- public ------------------------------------------------------------ */

void llmmem_checkpoint_free(llmmem_checkpoint *ck)
{
    if (!ck)
        return;
    for (size_t i = 0; i < ck->n_tensors; i++)
        free(ck->tensors[i].name);
    free(ck->tensors);
    llmmem__nameset_free(&ck->names);
    llmmem_model_free(ck->model);
    free(ck);
}

size_t llmmem_checkpoint_tensor_count(const llmmem_checkpoint *ck)
{
    return ck ? ck->n_tensors : 0;
}

llmmem_status llmmem_checkpoint_tensor(const char **name_out, const char **dtype_out, uint64_t *elements_out,
                                       uint64_t *bytes_out, llmmem_tensor_role *role_out,
                                       llmmem_param_group *group_out, const llmmem_checkpoint *ck, size_t index)
{
    LLMMEM_REQUIRE(ck);
    if (index >= ck->n_tensors)
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "checkpoint tensor index %zu is past the last (%zu tensors)",
                            index, ck->n_tensors);
    const llmmem__ck_tensor *t = &ck->tensors[index];
    if (name_out)
        *name_out = t->name;
    if (dtype_out)
        *dtype_out = t->dtype;
    if (elements_out)
        *elements_out = t->elements;
    if (bytes_out)
        *bytes_out = t->bytes;
    if (role_out)
        *role_out = (llmmem_tensor_role)t->role;
    if (group_out)
        *group_out = (llmmem_param_group)t->group;
    return LLMMEM_OK;
}

uint64_t llmmem_checkpoint_total_bytes(const llmmem_checkpoint *ck)
{
    return ck ? ck->total_bytes : 0;
}

uint64_t llmmem_checkpoint_role_bytes(const llmmem_checkpoint *ck, llmmem_tensor_role role)
{
    return ck && (unsigned)role < LLMMEM__ROLES ? ck->role_bytes[role] : 0;
}

uint64_t llmmem_checkpoint_role_elements(const llmmem_checkpoint *ck, llmmem_tensor_role role)
{
    return ck && (unsigned)role < LLMMEM__ROLES ? ck->role_elements[role] : 0;
}

uint64_t llmmem_checkpoint_group_parameters(const llmmem_checkpoint *ck, llmmem_param_group group)
{
    return ck && (unsigned)group < LLMMEM_PARAM_GROUPS ? ck->group_elements[group] : 0;
}

uint64_t llmmem_checkpoint_group_bytes(const llmmem_checkpoint *ck, llmmem_param_group group)
{
    return ck && (unsigned)group < LLMMEM_PARAM_GROUPS ? ck->group_bytes[group] : 0;
}

size_t llmmem_checkpoint_dtype_count(const llmmem_checkpoint *ck)
{
    return ck ? ck->n_dtypes : 0;
}

llmmem_status llmmem_checkpoint_dtype(const char **dtype_out, uint64_t *elements_out, uint64_t *bytes_out,
                                      const llmmem_checkpoint *ck, size_t index)
{
    LLMMEM_REQUIRE(ck);
    if (index >= ck->n_dtypes)
        return llmmem__fail(LLMMEM_ERR_OUT_OF_RANGE, "checkpoint dtype index %zu is past the last (%zu dtypes)",
                            index, ck->n_dtypes);
    if (dtype_out)
        *dtype_out = ck->dtypes[index].dtype;
    if (elements_out)
        *elements_out = ck->dtypes[index].elements;
    if (bytes_out)
        *bytes_out = ck->dtypes[index].bytes;
    return LLMMEM_OK;
}

/* Appends to a message buffer, keeping it terminated; marks the cut with "..." when full. */
static void append(char *buf, size_t size, size_t *len, int *cut, const char *fmt, ...) LLMMEM_PRINTF(5, 6);

static void append(char *buf, size_t size, size_t *len, int *cut, const char *fmt, ...)
{
    if (*cut)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, size - *len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= size - *len) {
        *cut = 1;
        *len = size - 1;
        if (size >= 4)
            memcpy(buf + size - 4, "...", 4);
        return;
    }
    *len += (size_t)n;
}

llmmem_status llmmem_checkpoint_verify(const llmmem_checkpoint *ck, const llmmem_model *model)
{
    LLMMEM_REQUIRE(ck);
    LLMMEM_REQUIRE(model);
    uint64_t expected[LLMMEM_PARAM_GROUPS], total = 0;
    for (unsigned g = 0; g < LLMMEM_PARAM_GROUPS; g++) {
        llmmem_status st = llmmem_model_parameters(&expected[g], model, (llmmem_param_group)g);
        if (st != LLMMEM_OK)
            return st;
    }
    llmmem_status st = llmmem_model_total_parameters(&total, model);
    if (st != LLMMEM_OK)
        return st;

    char msg[LLMMEM_MESSAGE_MAX];
    size_t len = 0;
    int cut = 0, mismatches = 0;
    msg[0] = '\0';
    append(msg, sizeof msg, &len, &cut, "checkpoint parameters do not match the model:");
    if (llmmem__model_value(model, LLMMEM_KEY_NUM_PARAMETERS) != 0) {
        /* a model given by its count alone has no groups to compare: compare the totals */
        uint64_t have = ck->role_elements[LLMMEM__ROLE_PARAMETER];
        if (have != total) {
            append(msg, sizeof msg, &len, &cut, " total: checkpoint %llu, model %llu", (unsigned long long)have,
                   (unsigned long long)total);
            mismatches++;
        }
    } else {
        for (unsigned g = 0; g < LLMMEM_PARAM_GROUPS; g++) {
            if (ck->group_elements[g] == expected[g])
                continue;
            append(msg, sizeof msg, &len, &cut, "%s %s: checkpoint %llu, model %llu", mismatches ? ";" : "",
                   llmmem_param_group_name((llmmem_param_group)g), (unsigned long long)ck->group_elements[g],
                   (unsigned long long)expected[g]);
            mismatches++;
        }
    }
    if (mismatches)
        return llmmem__fail_text(LLMMEM_ERR_INCOMPATIBLE, msg);
    return LLMMEM_OK;
}

/* ---- a checkpoint applied to a model ------------------------------------------------------------- */

/* The one float dtype (F32, F16, BF16) every floating parameter tensor of a safetensors checkpoint
 * is stored in; LLMMEM_FORMAT_AUTO when there are several, another float (F64, F8_*) or none.
 * Integer tensors (packed quantized weights) are not floats and do not count. */
static llmmem_format stored_float_format(const llmmem_checkpoint *ck)
{
    static const struct {
        const char *name;
        llmmem_format format;
    } floats[] = {{"F32", LLMMEM_FORMAT_FP32}, {"F16", LLMMEM_FORMAT_FP16}, {"BF16", LLMMEM_FORMAT_BF16},
                  {"F64", LLMMEM_FORMAT_AUTO}, {"F8_E4M3", LLMMEM_FORMAT_AUTO}, {"F8_E5M2", LLMMEM_FORMAT_AUTO}};
    llmmem_format found = LLMMEM_FORMAT_AUTO;
    if (ck->format != 1)
        return LLMMEM_FORMAT_AUTO;
    for (size_t i = 0; i < ck->n_tensors; i++) {
        const llmmem__ck_tensor *t = &ck->tensors[i];
        size_t k = 0;
        while (k < sizeof floats / sizeof floats[0] && strcmp(floats[k].name, t->dtype) != 0)
            k++;
        if (t->role != LLMMEM__ROLE_PARAMETER || k == sizeof floats / sizeof floats[0])
            continue;
        if (floats[k].format == LLMMEM_FORMAT_AUTO || (found != LLMMEM_FORMAT_AUTO && floats[k].format != found))
            return LLMMEM_FORMAT_AUTO;
        found = floats[k].format;
    }
    return found;
}

llmmem_status llmmem_model_use_checkpoint(llmmem_model *model, const llmmem_checkpoint *ck)
{
    LLMMEM_REQUIRE(model);
    LLMMEM_REQUIRE(ck);
    llmmem_status st = llmmem__model_check(model);
    if (st)
        return st;
    /* a config.json that named no dtype (torch_dtype_in_config 0): transformers' modeling_utils.py
     * get_state_dict_dtype takes the stored floats' dtype (torch_dtype "auto"), as vLLM's _find_dtype
     * the safetensors files' (common_broadcastable_dtype): the same dtype when every float agrees */
    llmmem_format stored = llmmem__model_value(model, LLMMEM_KEY_TORCH_DTYPE_IN_CONFIG) ? LLMMEM_FORMAT_AUTO
                                                                                       : stored_float_format(ck);
    if (stored != LLMMEM_FORMAT_AUTO && (st = llmmem_model_set_int(model, LLMMEM_KEY_TORCH_DTYPE, stored)) != LLMMEM_OK)
        return st;
    for (unsigned g = 0; g < LLMMEM_PARAM_GROUPS; g++)
        model->checkpoint_bytes[g] = llmmem_checkpoint_group_bytes(ck, (llmmem_param_group)g);
    model->has_checkpoint = 1;
    return LLMMEM_OK;
}
