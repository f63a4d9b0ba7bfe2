/*
 * The serving engines side by side: which engine's rules a serving estimate follows (one
 * descriptor per engine, each in its own file: serving.c vLLM, sglang.c, trtllm.c), and the
 * comparison of one job under every engine (the serving engines' results and llama.cpp's and
 * ollama's, side by side). No allocation but the handles', no I/O.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/local.h"
#include "engines/serving.h"
#include "base/text.h"
#include "views/kv.h"

/* Every serving engine, in llmmem_engine order of their ids. */
static const llmmem__engine_desc *const serving_engines[] = {&llmmem__vllm_engine, &llmmem__sglang_engine,
                                                                &llmmem__trtllm_engine};

const llmmem__engine_desc *llmmem__engine_desc_of(int64_t id)
{
    if (id == LLMMEM_ENGINE_AUTO)
        return &llmmem__vllm_engine;
    for (size_t i = 0; i < sizeof serving_engines / sizeof serving_engines[0]; i++)
        if (serving_engines[i]->id == id)
            return serving_engines[i];
    return NULL;
}

/* One serving estimate from resolved inputs, under the engine they name. */
static llmmem_status serve(llmmem_serving *out, const llmmem_model *model, const llmmem__serve_inputs *in)
{
    out->valid = 0;
    const llmmem__engine_desc *e = llmmem__engine_desc_of(in->set.engine);
    if (e == NULL)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "engine (%s) runs on one machine: use llmmem_local_estimate "
                            "(llmmem serve --engine %s prints its buffers)",
                            llmmem__engine_name(in->set.engine),
                            llmmem__engine_name(in->set.engine));
    llmmem_status st = e->serve(out, model, in);
    if (st)
        out->valid = 0;
    return st;
}

llmmem_status llmmem_serving_estimate(llmmem_serving *out, const llmmem_model *model, const llmmem_hardware *hw,
                                      const llmmem_strategy *strategy)
{
    LLMMEM_REQUIRE(out);
    out->valid = 0;
    LLMMEM_REQUIRE(model);
    LLMMEM_REQUIRE(hw);
    LLMMEM_REQUIRE(strategy);
    llmmem__serve_inputs in;
    llmmem__serve_inputs_make(&in, model, hw, strategy);
    return serve(out, model, &in);
}

/* ---- a serving result as JSON: the common head, then its engine's sections ----------------- */

static void put_values(llmmem__text *b, const llmmem_serving *r, const llmmem__json_section *sec)
{
    char line[96];
    for (size_t i = 0; i < sec->n; i++) {
        llmmem_serving_value v = sec->values[i];
        if (v == LLMMEM_SERVING_FITS)
            snprintf(line, sizeof line, "    \"fits\": %s", r->v[v] ? "true" : "false");
        else if (v == LLMMEM_SERVING_VLLM_CONCURRENCY_X100) /* as vLLM logs it, two decimals */
            snprintf(line, sizeof line, "    \"vllm_concurrency\": %llu.%02llu",
                     (unsigned long long)(r->v[v] / 100), (unsigned long long)(r->v[v] % 100));
        else if (v == LLMMEM_SERVING_CONCURRENCY_X100) /* the same for request_tokens, and its integer */
            snprintf(line, sizeof line, "    \"concurrency\": %llu.%02llu,\n    \"concurrency_x100\": %llu",
                     (unsigned long long)(r->v[v] / 100), (unsigned long long)(r->v[v] % 100),
                     (unsigned long long)r->v[v]);
        else
            snprintf(line, sizeof line, "    \"%s\": %llu", llmmem_serving_value_name(v), (unsigned long long)r->v[v]);
        llmmem__text_str(b, line);
        llmmem__text_str(b, i + 1 < sec->n ? ",\n" : "\n");
    }
}

llmmem_status llmmem_serving_to_json(char **json_out, const llmmem_serving *serving)
{
    LLMMEM_REQUIRE(json_out);
    *json_out = NULL;
    LLMMEM_REQUIRE(serving);
    if (!serving->valid) /* as serving.c's readers say it */
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "%s: the serving result holds no estimate", __func__);
    const llmmem__engine_desc *e = llmmem__engine_desc_of((int64_t)serving->v[LLMMEM_SERVING_ENGINE]);
    const llmmem__json_section *sections = e->json;
    size_t n = e->json_sections;
    llmmem__text b = {0};
    char line[256];
    llmmem__text_str(&b, "{\n  \"model\": ");
    llmmem__text_quoted(&b, serving->model_name);
    llmmem__text_str(&b, ",\n  \"hardware\": ");
    llmmem__text_quoted(&b, serving->hardware_name);
    snprintf(line, sizeof line,
             ",\n  \"engine\": \"%s\",\n  \"engine_version\": \"%s\",\n  \"dtype\": \"%s\",\n"
             "  \"kv_cache_dtype\": \"%s\",\n  \"tensor_parallel\": %llu,\n  \"pipeline_parallel\": %llu",
             llmmem__engine_name((int64_t)serving->v[LLMMEM_SERVING_ENGINE]),
             llmmem__engine_version_name((int64_t)serving->v[LLMMEM_SERVING_ENGINE_VERSION]),
             llmmem__format_name(serving->served), llmmem__kv_dtype_name(serving->dtype),
             (unsigned long long)serving->tp, (unsigned long long)serving->pp);
    llmmem__text_str(&b, line);
    for (size_t i = 0; i < n; i++) {
        snprintf(line, sizeof line, ",\n  \"%s\": {\n", sections[i].name);
        llmmem__text_str(&b, line);
        put_values(&b, serving, &sections[i]);
        llmmem__text_str(&b, "  }");
    }
    llmmem__text_str(&b, "\n}\n");
    return llmmem__text_finish(json_out, &b, "serving_to_json");
}

/* ---- one job, every engine ------------------------------------------------------------------- */

#define ENGINE_ROWS 5
#define ENGINES_VALUES (LLMMEM_ENGINES_FITS + 1)

static const char *const engines_value_names[] = {"weights",   "activations",    "cuda_graphs", "kv_bytes",
                                                  "kv_tokens", "request_tokens", "concurrency", "fits"};
_Static_assert(sizeof engines_value_names / sizeof engines_value_names[0] == ENGINES_VALUES,
               "a name for every engines value");

typedef struct engine_row {
    llmmem_engine engine;
    llmmem_status status;
    char message[LLMMEM_MESSAGE_MAX];
    uint64_t v[ENGINES_VALUES];
} engine_row;

struct llmmem_engines {
    size_t rows;
    char model_name[LLMMEM_NAME_MAX];
    char hardware_name[LLMMEM_NAME_MAX];
    engine_row row[ENGINE_ROWS];
    llmmem_serving serving; /* reused by every serving engine's estimate */
    struct llmmem_local local;
};

/* The engines compared, in llmmem_engine order: a serving engine runs on the serving inputs under its
 * descriptor, a local one (NULL) on llama.cpp's inputs resolved for it. */
static const struct {
    llmmem_engine engine;
    const llmmem__engine_desc *serving;
} row_engines[ENGINE_ROWS] = {
    {LLMMEM_ENGINE_VLLM, &llmmem__vllm_engine}, {LLMMEM_ENGINE_LLAMA_CPP, NULL}, {LLMMEM_ENGINE_OLLAMA, NULL},
    {LLMMEM_ENGINE_SGLANG, &llmmem__sglang_engine}, {LLMMEM_ENGINE_TRTLLM, &llmmem__trtllm_engine},
};

llmmem_status llmmem_engines_new(llmmem_engines **out)
{
    LLMMEM_REQUIRE(out);
    *out = calloc(1, sizeof **out);
    if (!*out)
        return llmmem__fail(LLMMEM_ERR_NO_MEMORY, "engines_new: out of memory");
    return LLMMEM_OK;
}

void llmmem_engines_free(llmmem_engines *engines)
{
    free(engines);
}

/* A serving engine's figures for one rank. */
static void serving_row(engine_row *row, const llmmem__engine_desc *e, const llmmem_serving *r)
{
    const uint64_t *v = r->v;
    row->v[LLMMEM_ENGINES_WEIGHTS] = v[LLMMEM_SERVING_WEIGHTS];
    /* SGLang sizes no activations: what it leaves outside the static pool, pre x (1 - mem_fraction_static) */
    row->v[LLMMEM_ENGINES_ACTIVATIONS] = e->static_pool ? v[LLMMEM_SERVING_FREE_BYTES] - v[LLMMEM_SERVING_REQUESTED_BYTES]
                                                        : v[LLMMEM_SERVING_ACTIVATION_PEAK];
    row->v[LLMMEM_ENGINES_CUDA_GRAPHS] = v[LLMMEM_SERVING_CUDA_GRAPH];
    /* SGLang's Mamba state pool is beside its KV budget; vLLM's pages hold both */
    row->v[LLMMEM_ENGINES_KV_BYTES] = v[LLMMEM_SERVING_KV_CACHE_BYTES] + v[LLMMEM_SERVING_STATE_POOL_BYTES];
    row->v[LLMMEM_ENGINES_KV_TOKENS] = v[LLMMEM_SERVING_TOKENS];
    row->v[LLMMEM_ENGINES_REQUEST_TOKENS] = v[LLMMEM_SERVING_REQUEST_TOKENS];
    row->v[LLMMEM_ENGINES_CONCURRENCY] = v[LLMMEM_SERVING_MAX_CONCURRENCY];
    row->v[LLMMEM_ENGINES_FITS] = v[LLMMEM_SERVING_FITS];
}

/* A local engine's figures on its most loaded GPU (the host without GPUs): its slots run at once when
 * each holds the request (n_ctx_seq cells a sequence). */
static void local_row(engine_row *row, const struct llmmem_local *r, uint64_t request)
{
    size_t gpus = r->devices - 1, d = gpus ? 0 : gpus;
    for (size_t i = 1; i < gpus; i++)
        if (llmmem_local_device_total(r, i) > llmmem_local_device_total(r, d))
            d = i;
    uint64_t seq = r->v[LLMMEM_LOCAL_N_CTX_SEQ];
    row->v[LLMMEM_ENGINES_WEIGHTS] = r->bytes[d][LLMMEM_LOCAL_MODEL];
    row->v[LLMMEM_ENGINES_ACTIVATIONS] = r->bytes[d][LLMMEM_LOCAL_COMPUTE];
    row->v[LLMMEM_ENGINES_KV_BYTES] = r->bytes[d][LLMMEM_LOCAL_KV] + r->bytes[d][LLMMEM_LOCAL_RECURRENT];
    row->v[LLMMEM_ENGINES_KV_TOKENS] = r->v[LLMMEM_LOCAL_N_CTX];
    row->v[LLMMEM_ENGINES_REQUEST_TOKENS] = request ? request : seq;
    row->v[LLMMEM_ENGINES_CONCURRENCY] = !request || seq >= request ? r->v[LLMMEM_LOCAL_N_SEQ_MAX] : 0;
    row->v[LLMMEM_ENGINES_FITS] = r->v[LLMMEM_LOCAL_FITS] && row->v[LLMMEM_ENGINES_CONCURRENCY] > 0;
}

llmmem_status llmmem_engines_estimate(llmmem_engines *out, const llmmem_model *model, const llmmem_checkpoint *gguf,
                                      const llmmem_hardware *hw, const llmmem_strategy *strategy)
{
    LLMMEM_REQUIRE(out);
    out->rows = 0;
    LLMMEM_REQUIRE(model);
    LLMMEM_REQUIRE(hw);
    LLMMEM_REQUIRE(strategy);
    /* the serving engines' inputs, resolved once; each row runs them under its engine */
    llmmem__serve_inputs in;
    llmmem__serve_inputs_make(&in, model, hw, strategy);
    /* the request every row answers for: request_tokens, else max_model_len, else the model's context */
    int64_t request = in.set.request_tokens;
    if (request <= 0)
        request = in.set.max_model_len > 0 ? in.set.max_model_len
                                           : llmmem__model_value(model, LLMMEM_KEY_MAX_POSITION_EMBEDDINGS);
    const int64_t version = in.set.version;
    const llmmem_engine owner = llmmem__version_engine(version);
    for (size_t i = 0; i < ENGINE_ROWS; i++) {
        engine_row *row = &out->row[i];
        memset(row, 0, sizeof *row);
        const llmmem__engine_desc *e = row_engines[i].serving;
        row->engine = row_engines[i].engine;
        row->v[LLMMEM_ENGINES_REQUEST_TOKENS] = (uint64_t)request; /* a refused row keeps the request asked */
        if (e) {
            in.set.engine = row->engine;
            /* a release of another engine: this one's latest */
            in.set.version = owner != LLMMEM_ENGINE_AUTO && owner != row->engine ? LLMMEM_ENGINE_VERSION_LATEST : version;
            row->status = serve(&out->serving, model, &in);
            if (row->status == LLMMEM_OK)
                serving_row(row, e, &out->serving);
        } else {
            llmmem__llama_inputs local;
            llmmem__llama_inputs_for(&local, model, hw, strategy, row->engine);
            row->status = llmmem__local_run(&out->local, model, gguf, &local);
            if (row->status == LLMMEM_OK)
                local_row(row, &out->local, (uint64_t)request);
        }
        if (row->status != LLMMEM_OK)
            snprintf(row->message, sizeof row->message, "%s", llmmem_last_message());
    }
    llmmem__copy_name(out->model_name, model->name);
    llmmem__copy_name(out->hardware_name, hw->name);
    out->rows = ENGINE_ROWS;
    return LLMMEM_OK;
}

size_t llmmem_engines_count(const llmmem_engines *engines)
{
    return engines ? engines->rows : 0;
}

llmmem_engine llmmem_engines_engine(const llmmem_engines *engines, size_t row)
{
    return engines && row < engines->rows ? engines->row[row].engine : LLMMEM_ENGINE_AUTO;
}

llmmem_status llmmem_engines_status(const llmmem_engines *engines, size_t row)
{
    LLMMEM_REQUIRE(engines);
    if (row >= engines->rows)
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "llmmem_engines_status: row %zu is past the rows", row);
    return engines->row[row].status;
}

const char *llmmem_engines_message(const llmmem_engines *engines, size_t row)
{
    return engines && row < engines->rows ? engines->row[row].message : NULL;
}

uint64_t llmmem_engines_get(const llmmem_engines *engines, size_t row, llmmem_engines_value value)
{
    if (!engines || row >= engines->rows || (unsigned)value >= ENGINES_VALUES)
        return 0;
    return engines->row[row].v[value];
}

size_t llmmem_engines_value_count(void)
{
    return ENGINES_VALUES;
}

const char *llmmem_engines_value_name(llmmem_engines_value value)
{
    return (unsigned)value < ENGINES_VALUES ? engines_value_names[value] : NULL;
}

llmmem_status llmmem_engines_to_json(char **json_out, const llmmem_engines *engines)
{
    LLMMEM_REQUIRE(json_out);
    *json_out = NULL;
    LLMMEM_REQUIRE(engines);
    if (engines->rows == 0)
        return llmmem__fail(LLMMEM_ERR_INVALID_ARGUMENT, "llmmem_engines_to_json: the comparison holds no estimate");
    llmmem__text b = {0};
    char line[128];
    llmmem__text_str(&b, "{\n  \"model\": ");
    llmmem__text_quoted(&b, engines->model_name);
    llmmem__text_str(&b, ",\n  \"hardware\": ");
    llmmem__text_quoted(&b, engines->hardware_name);
    llmmem__text_str(&b, ",\n  \"engines\": [");
    for (size_t i = 0; i < engines->rows; i++) {
        const engine_row *row = &engines->row[i];
        snprintf(line, sizeof line, "%s\n    {\n      \"engine\": \"%s\",\n      \"status\": %d,\n      \"message\": ",
                 i ? "," : "", llmmem__engine_name(row->engine), (int)row->status);
        llmmem__text_str(&b, line);
        if (row->status)
            llmmem__text_quoted(&b, row->message);
        else
            llmmem__text_str(&b, "null");
        for (unsigned v = 0; v < ENGINES_VALUES; v++) {
            if (v == LLMMEM_ENGINES_FITS)
                snprintf(line, sizeof line, ",\n      \"fits\": %s", row->v[v] ? "true" : "false");
            else
                snprintf(line, sizeof line, ",\n      \"%s\": %llu", engines_value_names[v], (unsigned long long)row->v[v]);
            llmmem__text_str(&b, line);
        }
        llmmem__text_str(&b, "\n    }");
    }
    llmmem__text_str(&b, "\n  ]\n}\n");
    return llmmem__text_finish(json_out, &b, "engines_to_json");
}
