/* What one rank holds of each tensor class: which stages hold the classes outside the decoder
 * layers (the embedding on the first, the final norm and LM head on the last, a tied embedding on
 * both), and each class's shape split the way Megatron-LM splits it over tensor parallelism
 * (column/row-parallel linears, vocabulary-parallel embedding and head, replicated norms and
 * routers, experts over expert-tensor parallelism, KV heads replicated when fewer than t). The
 * parallel estimate (parallel.c) and vLLM's serving budget (serving.c) both read a rank from here. */
#include <string.h>

#include "views/rank.h"
#include "views/weights.h"

/* Which stages hold a class that is not per layer. */
int llmmem__rank_holds(const llmmem__tensor_class *t, const llmmem_model *m, int first, int last)
{
    switch (t->group) {
    case LLMMEM_PARAMS_EMBEDDING:
        /* a tied embedding also sits on the last stage for the output layer (Megatron-LM
         * LanguageModule.setup_embeddings_and_output_layer) */
        return first || (last && llmmem__model_value(m, LLMMEM_KEY_TIE_WORD_EMBEDDINGS));
    case LLMMEM_PARAMS_LM_HEAD: return last;
    case LLMMEM_PARAMS_NORMS: return t->role == LLMMEM_ROLE_FINAL_NORM ? last : first;
    default: return first; /* position table, embedding norm, vision tower and projector */
    }
}

/* A tensor's share on one rank: n split over `ways`, never below `floor` (a whole KV head). */
static uint64_t share(uint64_t n, uint64_t ways, uint64_t floor)
{
    uint64_t s = llmmem__ceil_div(n, ways);
    return s < floor ? floor : s;
}

/* A class's shape on one rank: column-parallel outputs (a bias: its only row) and the vocabulary
 * split over `ways`, KV heads replicated below one per rank, row-parallel inputs split, experts'
 * gate/up outputs and down inputs split; norms, routers and MLA down-projections replicated. */
static void split_class(llmmem__tensor_class *r, const llmmem__tensor_class *t, uint64_t ways, uint64_t head_dim)
{
    int kv = t->role == LLMMEM_ROLE_K || t->role == LLMMEM_ROLE_KV;
    switch (t->split) {
    case LLMMEM_SPLIT_COLUMN:
    case LLMMEM_SPLIT_VOCAB:
        if (t->rows > 1)
            r->rows = share(t->rows, ways, kv ? head_dim : 1);
        else
            r->cols = share(t->cols, ways, kv ? head_dim : 1);
        break;
    case LLMMEM_SPLIT_ROW: r->cols = share(t->cols, ways, 1); break;
    case LLMMEM_SPLIT_EXPERT:
        if (t->lora & LLMMEM_LORA_TARGET_DOWN)
            r->cols = share(t->cols, ways, 1);
        else if (t->rows > 1)
            r->rows = share(t->rows, ways, 1);
        else
            r->cols = share(t->cols, ways, 1);
        break;
    default: break;
    }
}

/* Tensors of a per-layer class in each layer of its kind set (0: a class outside the layers). */
static uint64_t tensors_per_layer(const llmmem__tensor_class *t, const llmmem_model *m)
{
    uint64_t all = t->kinds ? llmmem__class_layers(&m->geo, t, 0, m->geo.layers) : 0;
    return all ? t->count / all : 0;
}

/* The rank's bytes of one group's classes (-1: all), split as Megatron-LM splits them or, `served`, as the serving
 * engines split a class of served_head. */
static llmmem_status group_bytes(uint64_t *out, const llmmem_model *m, const llmmem__weight_plan *wp, uint64_t ways,
                                 uint64_t first, uint64_t end, int first_stage, int last_stage, int group, int served)
{
    llmmem__inventory view;
    const uint64_t head_dim = m->geo.head_dim;
    view.n = 0;
    memset(view.by_role, -1, sizeof view.by_role);
    for (unsigned i = 0; i < m->inv.n; i++) {
        const llmmem__tensor_class *t = &m->inv.t[i];
        llmmem__tensor_class r = *t;
        r.count = t->kinds == 0 ? (llmmem__rank_holds(t, m, first_stage, last_stage) ? t->count : 0)
                                : tensors_per_layer(t, m) * llmmem__class_layers(&m->geo, t, first, end);
        if (group >= 0 && t->group != group)
            r.count = 0;
        split_class(&r, t, ways, head_dim);
        if (served && t->served_head)
            r.rows = share(t->rows, ways, t->served_head);
        r.active_count = r.count;
        view.t[view.n++] = r;
    }
    llmmem__view v = {&view, first, end};
    return llmmem__view_weight_bytes(out, &v, wp);
}

llmmem_status llmmem__rank_group_weight_bytes(uint64_t *out, const llmmem_model *m, const llmmem__weight_plan *wp,
                                              uint64_t ways, uint64_t first, uint64_t end, int first_stage,
                                              int last_stage, int group)
{
    return group_bytes(out, m, wp, ways, first, end, first_stage, last_stage, group, 0);
}

llmmem_status llmmem__served_rank_weight_bytes(uint64_t *out, const llmmem_model *m, const llmmem__weight_plan *wp,
                                               uint64_t ways, uint64_t first, uint64_t end, int first_stage,
                                               int last_stage, int group)
{
    return group_bytes(out, m, wp, ways, first, end, first_stage, last_stage, group, 1);
}

llmmem_status llmmem__served_tower_weight_bytes(uint64_t *out, const llmmem_model *m, const llmmem__weight_plan *wp,
                                                uint64_t ways)
{
    uint64_t elements = 0;
    for (unsigned i = 0; i < m->inv.n; i++) {
        const llmmem__tensor_class *t = &m->inv.t[i];
        uint64_t all;
        if (t->group != LLMMEM_PARAMS_VISION || t->count == 0)
            continue;
        if (!t->served_tower)
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "a rank's share of the vision class %s split over the "
                                "attention ranks is not modelled", t->name);
        if (!llmmem__mul(&all, t->rows, t->cols) || !llmmem__mul(&all, all, t->count))
            return llmmem__fail(LLMMEM_ERR_OVERFLOW, "elements of %s exceed 64 bits", t->name);
        const uint64_t split = all - t->served_whole;
        if (split % ways)
            return llmmem__fail(LLMMEM_ERR_UNSUPPORTED, "tensor_parallel (%llu) does not divide the vision class %s "
                                "(%llu split elements) evenly, as SGLang's parallel linears require",
                                (unsigned long long)ways, t->name, (unsigned long long)split);
        if (!llmmem__add(&elements, elements, t->served_whole + split / ways))
            return llmmem__fail(LLMMEM_ERR_OVERFLOW, "elements of the vision tower exceed 64 bits");
    }
    llmmem__inventory view = {.n = 1};
    memset(view.by_role, -1, sizeof view.by_role);
    view.t[0] = (llmmem__tensor_class){.name = "vision", .group = LLMMEM_PARAMS_VISION, .rows = 1, .cols = elements,
                                       .count = elements ? 1 : 0, .active_count = elements ? 1 : 0};
    llmmem__view v = {&view, 0, m->geo.layers};
    return llmmem__view_weight_bytes(out, &v, wp);
}

void llmmem__rank_weights_make(llmmem__rank_weights *out, const llmmem_model *m, const llmmem__weight_plan *wp,
                               uint64_t ways)
{
    out->m = m;
    out->model_id = m->id;
    out->plan = *wp;
    out->ways = ways;
    out->rows = out->outside = 0;
    out->unpriced = 0;
    for (unsigned i = 0; i < m->inv.n; i++) {
        const llmmem__tensor_class *t = &m->inv.t[i];
        llmmem__tensor_class r = *t;
        split_class(&r, t, ways, m->geo.head_dim);
        const uint64_t tensors = t->kinds ? tensors_per_layer(t, m) : t->count;
        if (tensors == 0) /* never on a rank: llmmem__view_weight_bytes skips it */
            continue;
        /* llmmem__view_weight_bytes's price of the class's tensors */
        uint64_t one, bytes = 0;
        int priced = llmmem__format_bytes(&one, llmmem__weight_plan_format(wp, &r), r.rows, r.cols, wp->group,
                                          wp->double_quant) &&
                     llmmem__muladd(&bytes, one, tensors);
        if (t->kinds == 0) {
            out->outside_class[out->outside] = (uint8_t)i;
            out->whole[out->outside] = bytes;
            out->unpriced |= !priced;
            out->outside++;
            continue;
        }
        unsigned k = 0;
        while (k < out->rows && (out->row[k].kinds != t->kinds || out->row[k].group != t->group))
            k++;
        if (k == out->rows)
            out->row[out->rows++] = (llmmem__rank_weight_row){t->kinds, t->group, 0};
        if (!priced || !llmmem__add(&out->row[k].bytes, out->row[k].bytes, bytes))
            out->unpriced = 1;
    }
}

void llmmem__rank_weights_keep(llmmem__rank_weights *out, const llmmem_model *m, const llmmem__weight_plan *wp,
                               uint64_t ways)
{
    if (out->model_id == m->id && out->ways == ways && memcmp(&out->plan, wp, sizeof *wp) == 0)
        out->m = m; /* the same contents, perhaps a clone's */
    else
        llmmem__rank_weights_make(out, m, wp, ways);
}

/* Every term is a product of the same bytes and counts llmmem__rank_group_weight_bytes multiplies, so
 * the sum is its sum; where a term or the sum exceeds 64 bits, it answers with its message. */
llmmem_status llmmem__rank_weights_sum(uint64_t *out, const llmmem__rank_weights *w, uint64_t first, uint64_t end,
                                       int first_stage, int last_stage, int group)
{
    const llmmem_model *m = w->m;
    uint64_t total = 0, layers = 0;
    unsigned kinds = 0; /* whose layers `layers` counts: rows of one kind set share them */
    int over = w->unpriced;
    for (unsigned k = 0; k < w->rows && !over; k++) {
        const llmmem__rank_weight_row *r = &w->row[k];
        if (group >= 0 && r->group != group)
            continue;
        if (r->kinds != kinds) {
            kinds = r->kinds;
            layers = llmmem__layers_in(&m->geo.plan, r->kinds, first, end);
        }
        if (layers)
            over = !llmmem__muladd(&total, r->bytes, layers);
    }
    for (unsigned k = 0; k < w->outside && !over; k++) {
        const llmmem__tensor_class *t = &m->inv.t[w->outside_class[k]];
        if ((group < 0 || t->group == group) && llmmem__rank_holds(t, m, first_stage, last_stage))
            over = !llmmem__add(&total, total, w->whole[k]);
    }
    if (over)
        return llmmem__rank_group_weight_bytes(out, m, &w->plan, w->ways, first, end, first_stage, last_stage, group);
    *out = total;
    return LLMMEM_OK;
}

llmmem_status llmmem__mtp_rank_weight_bytes(uint64_t *out, const llmmem_model *m, const llmmem__weight_plan *wp,
                                            uint64_t ways)
{
    llmmem__inventory mtp;
    llmmem_status st = llmmem__model_check(m);
    if (st || (st = llmmem__mtp_inventory(&mtp, m)) != LLMMEM_OK)
        return st;
    for (unsigned i = 0; i < mtp.n; i++) {
        const llmmem__tensor_class t = mtp.t[i];
        split_class(&mtp.t[i], &t, ways, m->geo.head_dim);
    }
    llmmem__view v = {&mtp, 0, 0};
    return llmmem__view_weight_bytes(out, &v, wp);
}

/* Every class's shape on one rank: split over t, routed experts over et (the counts are the
 * model's; stages take their share). */
void llmmem__rank_shapes(llmmem__inventory *out, const llmmem_model *m, uint64_t t, uint64_t et)
{
    out->n = m->inv.n;
    memset(out->by_role, -1, sizeof out->by_role);
    for (unsigned i = 0; i < m->inv.n; i++) {
        out->t[i] = m->inv.t[i];
        split_class(&out->t[i], &m->inv.t[i], m->inv.t[i].group == LLMMEM_PARAMS_EXPERTS ? et : t, m->geo.head_dim);
    }
}

