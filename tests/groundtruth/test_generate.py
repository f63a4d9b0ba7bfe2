"""The heap's peak during greedy generation and beam search as transformers runs them
(generate.py: _sample and _beam_search, a DynamicCache or StaticCache, eager attention,
logits_to_keep), derived by hand from the op
sequence and checked against the heap counter (memcount) for the prefill and for the decode
steps, with the moment of each peak (step, layer, caller, op) checked against the tracer's.

Each case runs generate.py in a process of its own (memcount preloaded, oneDNN off: see
generate.measuring_setup) so that no other test's kernels or caches are in its heap."""
import json
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

import memcount  # noqa: E402
from cli import estimate_json  # noqa: E402
from conftest import ROWS  # noqa: E402

pytestmark = pytest.mark.skipif(not memcount.available(), reason="run with memcount in LD_PRELOAD")

HERE = os.path.dirname(os.path.abspath(__file__))
I64 = 8  # token ids, the 2D attention mask, positions and cache positions are int64


def weights(e, h, L, a, g, f, V):
    d = h // a
    return e * (
        2 * V * h                   # embed_tokens and an untied lm_head
        + L * (
            2 * h * a * d           # q_proj, o_proj
            + 2 * h * g * d         # k_proj, v_proj
            + 3 * h * f             # gate_proj, up_proj, down_proj
            + 2 * h                 # the two RMSNorm weights
        )
        + h                         # the final norm
    )


ATTN = "generate.py:eager_attention_forward"


def derived_peak(e, b, s, n, h, L, a, g, f, V, cache="dynamic", keep=1, beams=1):
    """Peak heap bytes of generate(max_new_tokens=n, greedy, or num_beams=beams) over the heap
    before the model was built, for the prefill and for the decode steps: {"prefill": (bytes,
    moment), "decode": (bytes, moment)}. e: bytes per element of the model dtype (2 bf16, 4
    fp32); b batch (the caller's prompts), s prompt, h hidden, L layers, a heads, g kv heads, f
    intermediate, V vocab, keep: logits_to_keep (0: every position). A moment is (what, steps, layer, callers, ops): the
    steps (generate's loop: "prefill", then 1..n-1) and layer (None: outside the layers) where
    it happens, the caller (file:function) and torch functions the tracer may name for it; the
    decode's last steps differ by a few KB, within the allocator's noise, hence several steps."""
    d = h // a
    r = a // g                          # repeat_kv's n_rep
    M = s + n - 1                       # a static cache's length: generate's max_length - 1
    W = weights(e, h, L, a, g, f, V)
    beam = beams > 1
    # beam search: _expand_inputs_for_generation repeats each prompt num_beams times, so the model,
    # its masks and the cache see B sequences; greedy: B = b
    B = b * beams
    U8 = I64 * B * (s + n)              # one [b, beams, max_length] int64 of _beam_search
    I4 = 4 * B * n                      # one [b, beams, max_length - s] int32 (beam indices)
    # repeat_kv copies the whole cache (reshape of an expand) unless n_rep is 1 (the cache
    # itself) or there is one kv head (the size-1 kv-head dim merges: a view with stride 0)
    copies_kv = r > 1 and g > 1
    # ... and with one kv head and b > 1, the matmul's batch fold (expand + reshape to [b*a, ...])
    # cannot view the stride-0 heads: each attention matmul copies its repeated operand
    folds_kv = r > 1 and g == 1 and b > 1
    # the scores at the softmax: the masked scores in the dtype, softmax's fp32 conversion of its
    # input (at::softmax with dtype=float32: input.toType(float32); none when already fp32) and
    # its fp32 output; in fp32 the matmul * scaling and the + mask hold two such tensors too
    S = e + 4 + (4 if e != 4 else 0)
    scores_ops = ("softmax",) if e != 4 else ("mul", "add", "softmax")
    last = L - 1
    out = {}

    # ---- prefill: q = s positions; attention over T = s (dynamic) or M (static) -------------
    T = s if cache == "dynamic" else M
    C = e * B * g * T * d               # one layer's keys (or values) once this step updated it
    held = (
        W
        + I64 * b * s                   # the prompt's ids (the caller's)
        + (I64 * B * s if beam else 0)  # the prompt repeat_interleave'd over the beams
        + I64 * B * s                   # generate's 2D attention mask of ones (expanded likewise)
        + I64 * s                       # cache_position
        + 2 * I64 * B * s               # model_inputs: input_ids and position_ids, cloned
        # _beam_search: running_sequences and sequences, running_beam_indices and beam_indices
        + (2 * U8 + 2 * I4 if beam else 0)
    )
    mask = e * B * s * T                # the additive [b, 1, q, T] mask in the dtype
    if cache == "static":
        held += mask                    # built by prepare_inputs_for_generation, in model_inputs
    fwd = (
        held
        + (mask if cache == "dynamic" else 0)   # built by the model's forward
        + e * B * s * h                 # inputs_embeds: LlamaModel.forward keeps them referenced
        + 2 * e * B * s * d             # rotary cos and sin [b, q, d]
    )
    caches = L * 2 * C                  # the last layer: every layer's cache is written
    layer_in = e * B * s * h if L > 1 else 0    # the last layer's input (layer 0's: the embeds)
    attn = (
        fwd + caches + layer_in
        + e * B * s * h                 # input_layernorm's output, the attention's input
        + e * B * a * s * d             # rotated q (the unrotated q, k, v and rotated k are gone)
    )
    P = frozenset({"prefill"})
    cands = {
        ("the last layer's attention scores", P, last, frozenset({ATTN}), scores_ops): (
            attn
            + (2 * e * B * a * T * d if copies_kv else 0)   # repeat_kv's copies of k and v
            + S * B * a * s * T         # the scores
        ),
        ("the last layer's MLP, gate * up", P, last, frozenset({"llama.py:forward"}), ("mul",)): (
            fwd + caches + layer_in
            + e * B * a * s * T         # the probabilities, bound to `_` in the decoder layer
            + e * B * s * h             # residual + attention output
            + e * B * s * h             # post_attention_layernorm's output
            + 3 * e * B * s * f         # silu(gate), up and their product
        ),
        ("the final RMSNorm", P, None, frozenset({"llama.py:forward"}), ("mul",)): (
            fwd + caches
            + e * B * s * h             # the last layer's output
            + 8 * B * s * h             # two fp32 [b, s, h] working tensors (x*rsqrt, weight*x)
        ),
        ("lm_head", P, None, frozenset({"generate.py:forward"}), ("linear",)): (
            held + caches               # the model's forward has returned: mask, embeds gone
            + e * B * s * h             # the final norm's output
            + e * B * (keep or s) * V   # the logits of the kept positions
        ),
    }
    if not beam:
        cands[("after the forward, before `del outputs`", P, None, frozenset({"generate.py:generate"}), ())] = (
            held + caches
            + e * b * (keep or s) * V   # the logits, alive until `del outputs`
            + 4 * b * V                 # next_token_logits: their last position in fp32
            + 2 * I64 * b * (s + 1)     # the attention mask and input_ids grown by torch.cat
        )
    else:
        cands.update(_beam_moments(P, 0, W, e, b, B, s, n, g, d, V, T, C, L, beams, keep, cache, U8, I4, S=s))
    if folds_kv:
        cands[("the last layer's probs @ v, the fold's copy of v", P, last, frozenset({ATTN}), ("matmul",))] = (
            attn + e * B * a * T * d + e * B * a * s * T + e * B * a * s * d   # copy, probs, output
        )
    out["prefill"] = _max(cands)

    # ---- decode: q = 1; the last step (n - 1) attends over T = s + n - 1 (= M) ---------------
    T = M
    C = e * B * g * T * d
    if not beam:
        held = (
            W
            + I64 * b * s               # the prompt's ids
            + I64 * b * T               # generate's input_ids, grown by torch.cat to s + n - 1
            + I64 * b * T               # the 2D attention mask, grown by torch.cat
            + 4 * b * V                 # the previous step's next_token_logits (fp32)
            + 2 * I64 * b + I64         # model_inputs: input_ids, position_ids, cache_position
        )
    else:
        held = (
            W
            + I64 * b * s               # the prompt's ids
            + I64 * B * s               # their expansion over the beams (running_sequences has the tokens)
            + I64 * B * T               # the 2D attention mask, grown by torch.cat to s + n - 1
            + 8 * B * V                 # the previous step's fp32 logits and accumulated log-probs
            + 2 * I64 * B + I64         # model_inputs: input_ids, position_ids, cache_position
            # running and finished sequences and beam indices, and the previous step's topk ones
            + 4 * U8 + 4 * I4
        )
    fwd = (
        held
        + e * B * T                     # the [b, 1, 1, T] mask
        + e * B * h                     # inputs_embeds
        + 2 * e * B * d                 # cos, sin
    )
    attn = (
        fwd + L * 2 * C                 # every layer's cache at T
        + e * B * h * (2 if L > 1 else 1)   # the last layer's input, its normed input
        + e * B * a * d                 # rotated q
    )
    D = frozenset(range(1, n) if cache == "static" else range(max(1, n - 3), n))
    any_layer = "any"
    cands = {
        ("the last steps' attention", D, any_layer, frozenset({ATTN}), ()): (
            attn
            + (2 * e * B * a * T * d if copies_kv else 0)   # repeat_kv's copies of the cache
            + S * B * a * T             # the scores
        ),
    }
    if folds_kv:
        cands[("the last steps' probs @ v, the fold's copy of v", D, any_layer, frozenset({ATTN}), ("matmul",))] = (
            attn + e * B * a * T * d + e * B * a * T + e * B * a * d     # copy, probs, output
        )
    if cache == "dynamic":
        # DynamicLayer.update's torch.cat of the values: the old values beside the new
        cands[("the last steps' cache torch.cat", D, any_layer, frozenset({"generate.py:update"}), ("cat",))] = (
            attn
            + e * B * g * (T - 1) * d   # the old values, beside the new ones (counted in the caches)
            + 2 * e * B * g * d         # this step's rotated k and v, the update's arguments
        )
    else:
        # step 1's prepare_inputs_for_generation: the prefill's model_inputs, with its 4D
        # [b, 1, s, M] mask, are alive until the new ones are bound
        step1 = (
            W
            + I64 * b * s               # the prompt
            + (I64 * B * s if beam else I64 * b * (s + 1))  # its expansion, or greedy's grown input_ids
            + I64 * B * (s + 1)         # the attention mask, grown by one
            + (8 if beam else 4) * B * V  # the prefill's fp32 logits (and beam search's log-probs)
            + e * B * s * M             # the prefill's 4D mask
            + 2 * I64 * B * s + I64 * s  # the prefill's input_ids, position_ids, cache_position
            + L * 2 * C                 # the caches
            + (4 * U8 + 4 * I4 if beam else 0)  # beam search's sequences and indices
        )
        fn = "generate.py:prepare_inputs_for_generation"
        cands[("step 1's position ids, the prefill's 4D mask still held", frozenset({1}), None, frozenset({fn}), ("sub",))] = (
            step1 + 2 * I64 * B * (s + 1)   # attention_mask.long().cumsum(-1), and minus 1
        )
        fn = "generate.py:get_seq_length"
        cands[("step 1's get_seq_length, the prefill's 4D mask still held", frozenset({1}), None, frozenset({fn}), ("any",))] = (
            step1 + M * d               # keys[0][0, 0].any(-1): torch 1.13 casts the [M, d] to bool first
        )
    if beam:
        cands.update(_beam_moments(D, n - 1, W, e, b, B, s, n, g, d, V, T, C, L, beams, keep, cache, U8, I4, S=T))
    out["decode"] = _max(cands)
    return out


BEAM = "generate.py:beam_search"


def _beam_moments(steps, k, W, e, b, B, s, n, g, d, V, T, C, L, beams, keep, cache, U8, I4, S):
    """Beam search's moments after step k's forward (_beam_search's loop body), T the cache's length
    then, S the 2D mask's length at the forward (s + k)."""
    q = s if k == 0 else 1              # the positions the step forwarded
    after = (
        W
        + I64 * b * s + I64 * B * s     # the prompt and its expansion over the beams
        + I64 * B * (S + 1)             # the 2D mask grown by torch.cat
        # model_inputs' mask: the 2D one, or a static cache's 4D [B, 1, q, T] one
        + (I64 * B * S if cache == "dynamic" else e * B * q * T)
        + 2 * I64 * B * q + I64 * q     # model_inputs' input_ids, position_ids, cache_position
        + L * 2 * C                     # every layer's cache at T
    )
    held = 2 if k == 0 else 4           # sequences and indices alive through the forward
    kept = 1 if k else (keep or s)
    return {
        # logits = outputs.logits[:, -1, :].to(fp32), then log_softmax, with the model's logits
        # and (from step 1) the previous step's accumulated log_probs alive
        ("beam search's log_softmax", steps, None, frozenset({BEAM}), ("log_softmax",)): (
            after + held * U8 + held * I4
            + e * B * kept * V          # the model's logits, until `del model_outputs`
            + (8 if k == 0 else 12) * B * V   # fp32 logits, log_softmax (, previous log_probs)
        ),
        # torch.topk over [b, beams x V] on CPU: the kernel's queue of (fp32 value, int64 index)
        # pairs over a row (aten TopKImpl.h topk_impl_loop), one row at a time
        ("beam search's topk", steps, None, frozenset({"generate.py:get_top_k_continuations"}), ("topk",)): (
            after + held * U8 + held * I4
            + 8 * B * V                 # fp32 logits, accumulated log-probs
            + 16 * beams * V            # the queue
        ),
        # _update_finished_beams' last gather (beam indices): the sequences old and new running,
        # old and new finished, the step's topk (2 x beams), the merge (3 x beams); indices
        # likewise, and from step 1 the previous running indices kept by the reorder's beam_idx view
        ("_update_finished_beams' gathers", steps, None, frozenset({"generate.py:gather_beams"}), ("take_along_dim",)): (
            after + 8 * B * V + 9 * U8 + (8 if k == 0 else 9) * I4
        ),
        # reorder_cache: index_select of one layer's keys beside the whole cache, with running
        # (old, through flat_running_sequences, and new), finished and topk sequences
        ("the cache reorder", steps, None, frozenset({"generate.py:reorder_cache"}), ("index_select",)): (
            after + 8 * B * V + 5 * U8 + 4 * I4
            + C                         # one layer's keys, copied
        ),
    }


def _max(cands):
    moment = max(cands, key=cands.get)
    return cands[moment], moment


def measure(**kw):
    """generate.measure in a process of its own: the peaks and the tracer's moments. The timeout
    is a hang guard, far beyond what importing torch and a small model's run take on a loaded
    machine."""
    run = subprocess.run(
        [sys.executable, os.path.join(HERE, "generate.py"), json.dumps({**kw, "trace": True})],
        capture_output=True, text=True, cwd=HERE, timeout=900,
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


SMALL = dict(h=256, L=2, a=4, g=2, f=704, V=4096)
CASES = {
    # GQA, bf16, prefill peak at the last layer's softmax, decode at the last step's softmax
    "bf16-dynamic": dict(dtype="bfloat16", b=2, s=256, n=16, cache="dynamic", **SMALL),
    "bf16-static": dict(dtype="bfloat16", b=2, s=256, n=16, cache="static", **SMALL),
    "fp32-dynamic": dict(dtype="float32", b=1, s=384, n=16, cache="dynamic", **SMALL),
    "fp32-static": dict(dtype="float32", b=1, s=384, n=16, cache="static", **SMALL),
    # MHA: repeat_kv returns the cache itself; the decode peak is the cache's torch.cat
    "bf16-mha": dict(dtype="bfloat16", b=2, s=256, n=32, cache="dynamic", **{**SMALL, "g": 4}),
    # MQA, b=2: repeat_kv is a view, the matmuls' batch fold copies
    "bf16-mqa": dict(dtype="bfloat16", b=2, s=256, n=16, cache="dynamic", **{**SMALL, "g": 1}),
    # MQA, static, b=1: no copy at all; the decode peak is step 1 still holding the prefill's mask
    "bf16-mqa-static": dict(dtype="bfloat16", b=1, s=384, n=16, cache="static", **{**SMALL, "g": 1}),
    # every position's logits (logits_to_keep=0) of a large vocabulary: the peak is lm_head
    "bf16-all-logits": dict(dtype="bfloat16", b=2, s=128, n=8, cache="dynamic", keep=0, **{**SMALL, "V": 16384}),
    # a short prompt, a wide MLP: the peak is the MLP's gate * up
    "fp32-mlp": dict(dtype="float32", b=2, s=96, n=8, cache="dynamic", **{**SMALL, "f": 1408}),
    # a short prompt and a long generation: the run's peak is the last decode steps' softmax
    "bf16-decode": dict(dtype="bfloat16", b=1, s=16, n=256, cache="dynamic", **SMALL),
    # beam search, 2 prompts x 3 beams: the model sees 6 sequences; the peaks are the softmax's
    "bf16-beams": dict(dtype="bfloat16", b=2, beams=3, s=256, n=16, cache="dynamic", **SMALL),
    # MHA (no repeat_kv copy), static cache, a short prompt: the decode's peak is the cache
    # reorder's index_select of one layer's keys
    "bf16-beams-mha-static": dict(dtype="bfloat16", b=1, beams=8, s=128, n=32, cache="static",
                                  **{**SMALL, "g": 4, "V": 2048}),
    # a large vocabulary and a short prompt: the run's peak is the last step's topk over
    # beams x V, with the CPU kernel's (value, index) queue
    "bf16-beams-vocab": dict(dtype="bfloat16", b=1, beams=4, s=16, n=64, cache="dynamic", **{**SMALL, "V": 16384}),
}


def close(measured, derived, rel=0.01):
    return abs(measured - derived) <= rel * derived


TOLERANCE = 0.03  # the estimate against the measured peak (README: Validated against PyTorch)


def estimate(c):
    """`llmmem estimate --json` for the same generate job: greedy generation (or beam search with
    num_beams) of n tokens after a prompt of s, under transformers' semantics on the CPU's torch 1.13 (eager attention, softmax's
    fp32 input copy), nothing held by the runtime. Its total is the weights plus the peak
    moment's cache, working set and logits; its phase and layer the moment's."""
    keys = {
        "model_type": "llama", "hidden_size": c["h"], "num_hidden_layers": c["L"],
        "num_attention_heads": c["a"], "num_key_value_heads": c["g"], "vocab_size": c["V"],
        "intermediate_size": c["f"], "tie_word_embeddings": "false",
        "torch_dtype": {"bfloat16": "bf16", "float32": "fp32"}[c["dtype"]],
        "mode": "inference", "micro_batch_size": c["b"], "sequence_length": c["s"],
        "max_new_tokens": c["n"], "cache_implementation": c["cache"], "logits_to_keep": c.get("keep", 1),
        "num_beams": c.get("beams", 1),
        "framework": "hf_trainer", "pytorch_version": "1.13", "attn_implementation": "eager",
        "runtime_overhead_bytes": 0, "device_kernels": "cpu",
    }
    out = estimate_json(keys)
    return out["per_device"]["total"], out["per_device"]["weights"], out["inference_peak"]


@pytest.mark.parametrize("case", list(CASES))
def test_generate_peak_is_the_derivation(case):
    c = dict(CASES[case])
    e = {"bfloat16": 2, "float32": 4}[c["dtype"]]
    m = measure(
        dtype=c["dtype"], batch=c["b"], prompt=c["s"], new_tokens=c["n"], cache=c["cache"],
        logits_to_keep=c.get("keep", 1), vocab=c["V"], hidden=c["h"], layers=c["L"], heads=c["a"],
        kv_heads=c["g"], intermediate=c["f"], num_beams=c.get("beams", 1),
    )
    assert m["weights"] == weights(e, c["h"], c["L"], c["a"], c["g"], c["f"], c["V"])
    # held when generate starts beyond the weights and the prompt: the modules' Python objects
    # (their dicts and the like, about 30 KB), not derived
    overhead = m["start"] - m["weights"] - I64 * c["b"] * c["s"]
    assert 0 <= overhead < 100_000, overhead
    want = derived_peak(e, c["b"], c["s"], c["n"], c["h"], c["L"], c["a"], c["g"], c["f"], c["V"],
                        c["cache"], c.get("keep", 1), c.get("beams", 1))
    for phase in ("prefill", "decode"):
        peak, step, layer, caller, op = m["moment"][phase]
        derived, (_what, steps, d_layer, callers, ops) = want[phase]
        got = (phase, m["moment"][phase], overhead, want[phase])
        assert close(peak - overhead, derived), got
        assert step in steps and d_layer in ("any", layer), got
        assert caller.rsplit(":", 1)[0] in callers and (not ops or op in ops), got
    if "LLMMEM_CLI" not in os.environ:
        return
    # the estimate: the measured heap at the run's peak (weights included: the heap before the
    # model was built is the baseline) less the modules' Python objects, which no estimate counts,
    # against llmmem's total (weights included, runtime_overhead_bytes 0)
    phase = max(("prefill", "decode"), key=lambda p: m["moment"][p][0])
    measured = m["moment"][phase][0] - overhead
    total, est_weights, peak = estimate(c)
    assert est_weights == m["weights"], (est_weights, m["weights"])
    ROWS.append((f"generate {case}", measured, total, None, None, peak["phase"]))
    assert abs(total - measured) <= TOLERANCE * measured, (case, measured, total, phase, peak)
    assert peak["phase"] == phase, (case, phase, peak, m["moment"])
