/* Internal: a checkpoint read from file headers (safetensors, GGUF): its tensors, what each one
 * is, and sums by dtype, role and inventory group. Shared by safetensors.c and gguf.c;
 * checkpoint.c holds the common code. */
#ifndef LLMMEM_CHECKPOINT_H
#define LLMMEM_CHECKPOINT_H

#include "base/internal.h"
#include "readers/readfile.h"

/* What a stored tensor is. Values are part of the public API (llmmem_tensor_role). */
enum llmmem__tensor_role {
    LLMMEM__ROLE_PARAMETER = 0, /* a model parameter, mapped to an inventory group */
    LLMMEM__ROLE_BUFFER = 1,    /* not a parameter: rotary inv_freq, causal-mask and similar buffers */
    LLMMEM__ROLE_DUPLICATE = 2, /* a second copy of a parameter (a tied LM head stored again) */
    LLMMEM__ROLE_QUANT_AUX = 3  /* quantization data beside a weight: scales, zeros, g_idx, absmax */
};
#define LLMMEM__ROLES 4

#define LLMMEM__DTYPE_NAME_MAX 16
/* Distinct dtypes one checkpoint may hold: ggml defines 40 tensor types, safetensors 14. */
#define LLMMEM__MAX_DTYPES 48

typedef struct llmmem__ck_tensor {
    char *name;          /* owned */
    char dtype[LLMMEM__DTYPE_NAME_MAX]; /* "BF16", "F32", "I32", "U8", "F8_E4M3"; GGUF: "Q4_K", ... */
    uint64_t elements;   /* product of the shape */
    uint64_t bytes;      /* bytes stored for it (safetensors: end - begin offsets; GGUF: by its ggml type) */
    uint8_t role;        /* enum llmmem__tensor_role */
    uint8_t group;       /* llmmem_param_group, meaningful for PARAMETER and QUANT_AUX */
} llmmem__ck_tensor;

typedef struct llmmem__ck_dtype_sum {
    char dtype[LLMMEM__DTYPE_NAME_MAX];
    uint64_t elements, bytes;
} llmmem__ck_dtype_sum;

struct llmmem_checkpoint {
    llmmem__ck_tensor *tensors; /* owned array */
    size_t n_tensors, cap_tensors;
    llmmem__nameset names;      /* the tensors by name: no name is stored twice */
    llmmem__ck_dtype_sum dtypes[LLMMEM__MAX_DTYPES];
    size_t n_dtypes;
    uint64_t role_elements[LLMMEM__ROLES], role_bytes[LLMMEM__ROLES];
    uint64_t group_elements[LLMMEM_PARAM_GROUPS], group_bytes[LLMMEM_PARAM_GROUPS];
    uint64_t total_bytes;   /* every stored tensor */
    int format;             /* 1 safetensors, 2 GGUF */
    llmmem_model *model;    /* the model its GGUF metadata or its folder's config.json describes (owned), or NULL */
    llmmem_status model_status;             /* why there is no model: the metadata or config fell short, no config */
    char model_error[LLMMEM_MESSAGE_MAX];
};

/* A new, empty checkpoint (NO_MEMORY sets the message). */
llmmem_status llmmem__ck_new(struct llmmem_checkpoint **out, int format);
/* Appends a tensor (copies name), classifying it by name with llmmem__ck_classify, and updates
 * the sums with overflow checks. Fails with OVERFLOW / NO_MEMORY, and PARSE ("duplicate tensor
 * name '<name>'") for a name already stored, with nothing changed; message set. It keeps per
 * tensor a copy of the name, a 48-byte record in an array that doubles and up to 4 slots of 8
 * bytes in the name set: at most 160 bytes and the name. */
llmmem_status llmmem__ck_add(struct llmmem_checkpoint *ck, const char *name, size_t name_len, const char *dtype,
                             uint64_t elements, uint64_t bytes);
/* 1 and *index_out when a tensor of that name (up to its first NUL, as stored) is stored, else 0. */
int llmmem__ck_find(const struct llmmem_checkpoint *ck, const char *name, size_t name_len, size_t *index_out);
/* The same for a name without NUL whose llmmem__name_hash is known; llmmem__ck_prefetch fetches
 * its slot ahead (lookups of a million names overlap their cache misses). */
int llmmem__ck_find_hashed(const struct llmmem_checkpoint *ck, uint64_t hash, const char *name, size_t name_len,
                           size_t *index_out);
void llmmem__ck_prefetch(const struct llmmem_checkpoint *ck, uint64_t hash);
/* Role and group of a tensor from its name, in Hugging Face (model.layers.N.self_attn.q_proj.weight)
 * or GGUF (blk.N.attn_q.weight) naming. */
void llmmem__ck_classify(const char *name, size_t name_len, uint8_t *role_out, uint8_t *group_out);
/* Moves a stored tensor to another inventory group, its sums with it (a reader that knows more than
 * the name: GGUF blk.N.attn_qkv of a Qwen3-Next linear-attention layer is its mixer's). */
void llmmem__ck_set_group(struct llmmem_checkpoint *ck, size_t index, uint8_t group);
/* After all tensors are added: marks a stored LM head as DUPLICATE when the embedding is also
 * stored and the checkpoint (or its config) says the two are tied. */
void llmmem__ck_mark_tied_head(struct llmmem_checkpoint *ck, int tied);

/* ggml's blck_size of a GGUF tensor type by its name ("Q4_K": 256, "Q8_0": 32, "F16": 1); 1 when
 * unknown (gguf.c). */
unsigned llmmem__ggml_block_of(const char *dtype);

#endif
