/* Public prototypes of the config.json reader (lib/hfconfig.c), kept here until they move into
 * include/llmmem/llmmem.h (section "Model"). */
#ifndef LLMMEM_HFCONFIG_API_H
#define LLMMEM_HFCONFIG_API_H

#include <stddef.h>

#include "llmmem/llmmem.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A model from a Hugging Face config.json: `path` is the file, or a folder holding config.json.
 * Every value is set through llmmem_model_set_int, so it is checked against its key's bounds.
 * Reads the families of llmmem_model_type (model_type "gpt2" ... "deepseek_v3") and the
 * multimodal wrappers "gemma3" (gemma3_text + SigLIP + Gemma 3 projector) and "llava" (any of
 * those text families + CLIP + LLaVA projector); quantization_config of gptq, awq, bitsandbytes,
 * fp8 and mxfp4 sets quantization_format.
 *
 * A field the config leaves out takes the default of its transformers config class (LlamaConfig
 * ties no embeddings, Gemma ties them; num_key_value_heads: MistralConfig 8, LlamaConfig the
 * attention heads). The shape fields (hidden_size, num_hidden_layers, num_attention_heads,
 * vocab_size, the MLP and expert widths) are required at the top level; inside text_config and
 * vision_config, which transformers writes as differences from their class defaults, those
 * defaults fill them. torch_dtype (or dtype) absent: fp32, the dtype transformers gives a model
 * whose config names none.
 *
 * Fails with LLMMEM_ERR_IO (cannot open or read), LLMMEM_ERR_PARSE (not JSON, duplicate keys,
 * an integer beyond 64 bits, a field of the wrong JSON type, nesting deeper than 32 levels, more
 * than 16 MiB), LLMMEM_ERR_UNSUPPORTED (a model_type, quantization or layer layout this version
 * does not model), LLMMEM_ERR_INCOMPLETE (a required field missing), LLMMEM_ERR_OUT_OF_RANGE (a
 * value outside its key's bounds) and the inventory's own statuses (LLMMEM_ERR_INCOMPATIBLE).
 * Messages start with the file name (or "<memory>") and the JSON field. On failure *out is NULL.
 */
LLMMEM_API llmmem_status llmmem_model_from_hf_config(llmmem_model **out, const char *path);
/** The same from a config.json text of `len` bytes (no NUL needed); messages name "<memory>". */
LLMMEM_API llmmem_status llmmem_model_from_hf_config_text(llmmem_model **out, const char *json, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* LLMMEM_HFCONFIG_API_H */
