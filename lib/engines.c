/*
 * The serving engines side by side: which engine's rules a serving estimate follows (one
 * descriptor per engine, each in its own file: serving.c vLLM, sglang.c, trtllm.c), and the
 * comparison of one job under every engine. No allocation but the handles', no I/O.
 */
#include "serving.h"

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

llmmem_status llmmem_serving_estimate(llmmem_serving *out, const llmmem_model *model, const llmmem_hardware *hw,
                                      const llmmem_strategy *s)
{
    LLMMEM_REQUIRE(out);
    out->valid = 0;
    LLMMEM_REQUIRE(model);
    LLMMEM_REQUIRE(hw);
    LLMMEM_REQUIRE(s);
    int64_t engine = llmmem__get_int(&s->s, LLMMEM_KEY_ENGINE);
    const llmmem__engine_desc *e = llmmem__engine_desc_of(engine);
    if (e == NULL)
        return llmmem__fail(LLMMEM_ERR_INCOMPATIBLE, "engine (%s) runs on one machine: use llmmem_local_estimate "
                            "(llmmem serve --engine %s prints its buffers)",
                            llmmem_choice_name(LLMMEM_KEY_ENGINE, engine), llmmem_choice_name(LLMMEM_KEY_ENGINE, engine));
    llmmem_status st = e->serve(out, model, hw, s);
    if (st)
        out->valid = 0;
    return st;
}
