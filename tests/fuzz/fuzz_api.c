/* libFuzzer target: any sequence of key/value calls followed by estimates gives a status,
 * never a crash, a hang, a leak or undefined behaviour, and every successful report is
 * self-consistent (the total is the sum of its components; fits agrees with capacity).
 *
 * Input bytes are read as operations: an opcode byte, then its operands. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llmmem/llmmem.h"
#include "reader.h"

static int64_t take_i64(reader *r)
{
    return (int64_t)take_be(r, 8);
}

/* A key: usually a real one, sometimes any number (unknown keys must be rejected). */
static llmmem_key take_key(reader *r)
{
    uint8_t b = take_u8(r);
    if (b == 0xff)
        return (llmmem_key)(int)take_i64(r);
    return llmmem_key_at(b % llmmem_key_count());
}

/* Small integers are likelier to pass validation and reach the arithmetic. */
static int64_t take_value(reader *r)
{
    switch (take_u8(r) % 4) {
    case 0: return take_u8(r);
    case 1: return (int64_t)take_u8(r) << (take_u8(r) % 40);
    case 2: return -(int64_t)take_u8(r);
    default: return take_i64(r);
    }
}

/* A short text, NUL-terminated, into buf. */
static void take_text(reader *r, char *buf, size_t size)
{
    size_t len = take_u8(r) % size;
    for (size_t i = 0; i < len; i++)
        buf[i] = (char)take_u8(r);
    buf[len] = '\0';
}

static void check_report(const llmmem_report *rep)
{
    uint64_t sum = 0;
    for (size_t c = 0; c < llmmem_component_count(); c++)
        sum += llmmem_report_bytes(rep, (llmmem_component)c);
    if (sum != llmmem_report_total_bytes(rep))
        abort();
    /* the report's device is its most loaded stage's */
    size_t stages = llmmem_report_stage_count(rep), most = llmmem_report_most_loaded_stage(rep);
    if (stages == 0 || most >= stages || llmmem_report_stage_total_bytes(rep, most) != llmmem_report_total_bytes(rep))
        abort();
    for (size_t i = 0; i < stages; i++)
        if (llmmem_report_stage_total_bytes(rep, i) > llmmem_report_total_bytes(rep))
            abort();
    if (llmmem_report_total_bytes(rep) > llmmem_report_capacity_bytes(rep) && llmmem_report_fits(rep))
        abort();
    uint64_t params = 0;
    for (size_t g = 0; g < llmmem_param_group_count(); g++)
        params += llmmem_report_parameters(rep, (llmmem_param_group)g);
    if (params != llmmem_report_total_parameters(rep) ||
        llmmem_report_active_parameters(rep) > llmmem_report_total_parameters(rep))
        abort();
}

static void check_failure(llmmem_status st)
{
    if (st == LLMMEM_OK)
        return;
    if (llmmem_last_message()[0] == '\0' || llmmem_last_status() != st)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    llmmem_model *m = NULL;
    llmmem_hardware *hw = NULL;
    llmmem_strategy *s = NULL;
    llmmem_report *rep = NULL;
    if (llmmem_model_new(&m) || llmmem_hardware_new(&hw) || llmmem_strategy_new(&s) || llmmem_report_new(&rep))
        abort();
    char key_text[24], value_text[24];
    for (int ops = 0; r.n && ops < 256; ops++) {
        llmmem_status st = LLMMEM_OK;
        switch (take_u8(&r) % 16) {
        case 0: st = llmmem_model_set_int(m, take_key(&r), take_value(&r)); break;
        case 1: st = llmmem_hardware_set_int(hw, take_key(&r), take_value(&r)); break;
        case 2: st = llmmem_strategy_set_int(s, take_key(&r), take_value(&r)); break;
        case 3: {
            llmmem_key k = take_key(&r);
            int64_t bits = take_i64(&r);
            double d;
            memcpy(&d, &bits, sizeof d); /* any double, NaN and infinities included */
            st = (take_u8(&r) & 1) ? llmmem_hardware_set_real(hw, k, d) : llmmem_strategy_set_real(s, k, d);
            break;
        }
        case 4: {
            const char *name = llmmem_key_name(take_key(&r));
            take_text(&r, value_text, sizeof value_text);
            if (!name) {
                take_text(&r, key_text, sizeof key_text);
                name = key_text;
            }
            switch (take_u8(&r) % 3) {
            case 0: st = llmmem_model_set_text(m, name, value_text); break;
            case 1: st = llmmem_hardware_set_text(hw, name, value_text); break;
            default: st = llmmem_strategy_set_text(s, name, value_text); break;
            }
            break;
        }
        case 5: {
            llmmem_model *next = NULL;
            const char *name = llmmem_model_preset_name(take_u8(&r) % (llmmem_model_preset_count() + 1));
            st = llmmem_model_from_preset(&next, name ? name : "no-such-model");
            if (st == LLMMEM_OK) {
                llmmem_model_free(m);
                m = next;
            } else if (next) {
                abort(); /* out is NULL on failure */
            }
            break;
        }
        case 6: {
            llmmem_hardware *next = NULL;
            const char *name = llmmem_hardware_preset_name(take_u8(&r) % (llmmem_hardware_preset_count() + 1));
            st = llmmem_hardware_from_preset(&next, name ? name : "no-such-gpu");
            if (st == LLMMEM_OK) {
                llmmem_hardware_free(hw);
                hw = next;
            }
            break;
        }
        case 7:
        case 8:
            st = llmmem_estimate(rep, m, hw, s);
            if (st == LLMMEM_OK)
                check_report(rep);
            else if (llmmem_report_valid(rep))
                abort();
            break;
        case 9: {
            char *json = NULL;
            st = llmmem_report_to_json(&json, rep);
            if ((st == LLMMEM_OK) != (json != NULL))
                abort();
            llmmem_string_free(json);
            break;
        }
        case 12: { /* the solvers: their answers fit, or they fail with a status */
            uint64_t answer = 0;
            llmmem_format format;
            st = (take_u8(&r) & 1) ? llmmem_solve_max_micro_batch(&answer, m, hw, s)
                                   : llmmem_solve_max_sequence_length(&answer, m, hw, s);
            if (st == LLMMEM_OK && llmmem_solve_weight_format(&format, m, hw, s) == LLMMEM_ERR_OVERFLOW)
                abort();
            break;
        }
        case 13: { /* a plan over a few devices: every layout it returns estimates and fits */
            llmmem_plan *plan = NULL;
            if (llmmem_plan_new(&plan))
                abort();
            st = llmmem_plan_run(plan, m, hw, s, 1 + take_u8(&r) % 4); /* small: keeps an input fast */
            for (size_t i = 0; st == LLMMEM_OK && i < llmmem_plan_count(plan) && i < 4; i++) {
                llmmem_strategy *got = NULL;
                if (llmmem_plan_get(&got, plan, i) || llmmem_estimate(rep, m, hw, got) || !llmmem_report_fits(rep))
                    abort();
                check_report(rep);
                llmmem_strategy_free(got);
            }
            llmmem_plan_free(plan);
            break;
        }
        case 14: {
            char *text = NULL;
            st = llmmem_explain(&text, m, hw, s);
            if ((st == LLMMEM_OK) != (text != NULL))
                abort();
            llmmem_string_free(text);
            break;
        }
        case 15: {
            uint8_t which = take_u8(&r) % 3;
            if (which == 0) {
                llmmem_serving *sv = NULL;
                if (llmmem_serving_new(&sv))
                    abort();
                st = llmmem_serving_estimate(sv, m, hw, s);
                llmmem_serving_free(sv);
            } else if (which == 1) { /* local inference: each device's total is its buffers, the verdict agrees */
                llmmem_local *l = NULL;
                if (llmmem_local_new(&l))
                    abort();
                st = llmmem_local_estimate(l, m, NULL, hw, s);
                if ((st == LLMMEM_OK) != (llmmem_local_valid(l) != 0))
                    abort();
                uint64_t kv = 0;
                for (size_t d = 0; d < llmmem_local_device_count(l); d++) {
                    uint64_t sum = 0;
                    for (size_t b = 0; b < llmmem_local_buffer_count(); b++)
                        sum += llmmem_local_bytes(l, d, (llmmem_local_buffer)b);
                    if (sum != llmmem_local_device_total(l, d))
                        abort();
                    kv += llmmem_local_bytes(l, d, LLMMEM_LOCAL_KV);
                }
                /* a device short of memory does not fit; one that fits lacks nothing; a job that lacks
                 * nothing yet does not fit is one whose host RAM is unknown (FITS is 0 then) */
                uint64_t fits = llmmem_local_get(l, LLMMEM_LOCAL_FITS);
                uint64_t shortfall = llmmem_local_get(l, LLMMEM_LOCAL_SHORTFALL);
                if (kv != llmmem_local_get(l, LLMMEM_LOCAL_KV_BYTES) ||
                    (st == LLMMEM_OK && ((fits && shortfall) ||
                                         (!fits && !shortfall && !llmmem_local_get(l, LLMMEM_LOCAL_HOST_UNKNOWN)))))
                    abort();
                llmmem_local_free(l);
            } else {
                int64_t answer = -1;
                st = llmmem_local_solve(&answer, (llmmem_local_question)(take_u8(&r) % 4), m, NULL, hw, s);
                if (st == LLMMEM_OK && answer < 0)
                    abort();
            }
            break;
        }
        case 10: {
            llmmem_model *copy = NULL;
            st = llmmem_model_clone(&copy, m);
            llmmem_model_free(m);
            m = copy;
            break;
        }
        default: {
            uint64_t n;
            st = llmmem_model_total_parameters(&n, m);
            break;
        }
        }
        check_failure(st);
    }
    llmmem_model_free(m);
    llmmem_hardware_free(hw);
    llmmem_strategy_free(s);
    llmmem_report_free(rep);
    return 0;
}
