/* Internal: the serving result every paged engine fills (serving.c vLLM, sglang.c, trtllm.c), the
 * helpers they share, and each engine's entry point (engines.c picks one). Not installed. */
#ifndef LLMMEM_SERVING_H
#define LLMMEM_SERVING_H

#include "base/internal.h"
#include "job/serve.h"
#include "views/kv.h"

#define LLMMEM_SERVING_MAX_STAGES 256 /* pipeline stages a serving result holds */
#define LLMMEM_SERVING_VALUES (LLMMEM_SERVING_STATE_POOL_BYTES + 1)

struct llmmem_serving {
    int valid;
    char model_name[LLMMEM_NAME_MAX];
    char hardware_name[LLMMEM_NAME_MAX];
    uint64_t v[LLMMEM_SERVING_VALUES];
    llmmem_kv_cache_dtype dtype; /* resolved (never auto) */
    llmmem_format served;        /* the format the engine serves the model in (the dtype key resolved) */
    uint64_t tp, pp;
    /* what the questions need, captured by the estimate */
    llmmem__kv_pool pool;         /* the paged pool a request draws from (kv.c answers from it) */
    uint64_t max_model_len;
    uint64_t swa_tokens, swa_window; /* SGLang's sliding-window pool: cells, and the window a request keeps there */
    uint64_t seq_cap;             /* requests the engine runs at once (SGLang max_running_requests; 0: no cap) */
    uint64_t state_cap;           /* sequences its state pool holds (SGLang max_mamba_cache_size; 0: none) */
    uint64_t page;                /* one layer, one block, one rank */
    uint64_t contig_token_layer;  /* Hugging Face layout: bytes of one token in one layer on one rank */
    int typed;                    /* layers of different widths or KV-shared ones (gemma4): no contiguous answer */
    uint64_t binding;             /* the stage whose block count is the smallest */
    uint64_t stage_budget[LLMMEM_SERVING_MAX_STAGES];
    uint64_t stage_full[LLMMEM_SERVING_MAX_STAGES], stage_sliding[LLMMEM_SERVING_MAX_STAGES]; /* as the paged groups hold them */
    uint64_t stage_group[LLMMEM_SERVING_MAX_STAGES];  /* layers per group */
    uint64_t stage_hf_sliding[LLMMEM_SERVING_MAX_STAGES]; /* sliding layers a contiguous cache caps at the window */
};

/* ---- each engine: a descriptor with its entry point and how its result reads ---------------------- */

/* One heading of an engine's JSON and the values under it. */
typedef struct llmmem__json_section {
    const char *name;
    const llmmem_serving_value *values;
    size_t n;
} llmmem__json_section;

typedef struct llmmem__engine_desc {
    llmmem_engine id;
    const char *label; /* for messages: "vLLM" */
    /* fills `out` (cleared by the caller, valid 0) or fails, from the inputs resolved for it */
    llmmem_status (*serve)(llmmem_serving *out, const llmmem_model *m, const llmmem__serve_inputs *in);
    const llmmem__json_section *json;
    size_t json_sections;
    /* sizes no activation peak (SGLang): the comparison of engines reports what it leaves outside its static
     * pool instead */
    int static_pool;
} llmmem__engine_desc;

extern const llmmem__engine_desc llmmem__vllm_engine;   /* serving.c */
extern const llmmem__engine_desc llmmem__sglang_engine; /* sglang.c */
extern const llmmem__engine_desc llmmem__trtllm_engine; /* trtllm.c */

/* The serving engine `id` resolves to (auto: vLLM), or NULL for a local engine (llama.cpp, ollama). */
const llmmem__engine_desc *llmmem__engine_desc_of(int64_t id);

/* ---- shared by the engines (serving.c) -------------------------------------------------------- */

/* What every engine checks and resolves first: the model's geometry for a paged cache (no
 * cross-attention: `cache` names the engine's cache in the message, one kind of state layer), mode
 * inference, the device's memory, the format the model is served in, the activations' element type,
 * tensor and pipeline sizes vLLM's way; `r` is cleared (the per-stage arrays excepted). */
typedef struct llmmem__served {
    const llmmem__geometry *a;
    llmmem_format format;
    llmmem_kv_cache_dtype activations; /* the activations' element type */
    uint64_t memory;              /* memory_bytes of one device */
    uint64_t tp;
} llmmem__served;
/* modelled: the LLMMEM__KV_* kinds of layers the engine's cache models (kv.h llmmem__kv_refuse_typed), and
 * LLMMEM__SERVING_NO_PROFILE for an engine that sizes its pool without a profile run (SGLang's
 * mem_fraction_static): the tensors only a profile run sees (Kimi K3's AttnRes banks) do not refuse it */
#define LLMMEM__SERVING_NO_PROFILE 256
llmmem_status llmmem__serving_prepare(llmmem__served *out, llmmem_serving *r, const llmmem_model *m,
                                      const llmmem__serve_inputs *in, const char *cache, int modelled);

/* Weights of one tensor-parallel rank holding every layer (pipeline_parallel 1). */
llmmem_status llmmem__serving_rank_weights(uint64_t *out, const llmmem_model *m, const llmmem__serve_inputs *in,
                                           uint64_t tp);

/* Takes from a rank's weights `w` its vision tower as the weight plan prices it (replicated): an engine that does not
 * load the tower (vLLM at limit_mm_per_prompt 0) or loads it split its own way (SGLang's MiniMax-M3). */
llmmem_status llmmem__serving_weights_less_tower(uint64_t *w, const llmmem_model *m, const llmmem__serve_inputs *in,
                                                uint64_t tp);

/* The activation peak of a profile forward over `tokens` tokens on one rank holding decoder layers
 * [first, end); with `seqs` > 0 also the dummy sampler's logits of min(seqs, tokens) rows in the
 * model's dtype and fp32 (vLLM's profile run on the last stage). */
llmmem_status llmmem__serving_activation_peak(uint64_t *out, const llmmem_model *m, llmmem_kv_cache_dtype dtype,
                                              const llmmem__geometry *a, uint64_t tp, uint64_t first, uint64_t end,
                                              uint64_t tokens, uint64_t seqs);

/* The engine a release belongs to (LLMMEM_ENGINE_AUTO for latest, every engine's). */
llmmem_engine llmmem__version_engine(int64_t version);
/* The engine release the inputs ask for, for `engine` (latest: 0); fails naming a release of
 * another engine. */
llmmem_status llmmem__serving_version(int64_t *out, const llmmem__serve_inputs *in, llmmem_engine engine);

/* 10^decimals x a non-negative x rounded to `decimals` as Python's round(x, n) and "%.nf" do (in
 * every locale); 0 for x beyond 10^15. */
uint64_t llmmem__serving_decimals(double x, int decimals);
/* 10000 x a fraction as an engine logs it with four decimals. */
uint64_t llmmem__serving_x10000(double fraction);

/* Refuses a request longer than max_model_len, or shorter than its shared prefix or prompt (vllm/v1/engine/
 * input_processor.py and the OpenAI server: "This model's maximum context length is ..."; SGLang and
 * TensorRT-LLM refuse it too). */
llmmem_status llmmem__serving_check_request(const llmmem_serving *r, uint64_t request, const char *engine);

/* Requests of `tokens` tokens that fit at once in the result's pools (kv.c's paged pool with the
 * strategy's sharing, SGLang's sliding-window pool, the engine's caps); 0 past max_model_len. */
llmmem_status llmmem__serving_requests(uint64_t *out, const llmmem_serving *r, uint64_t tokens);
/* The longest single request the pool holds, at most max_model_len (binary search on its blocks). */
llmmem_status llmmem__serving_longest(uint64_t *out, const llmmem_serving *r);

/* Marks the result valid, with the names of the model and the hardware. */
void llmmem__serving_finish(llmmem_serving *r, const llmmem_model *m, const llmmem__serve_inputs *in);

#endif
