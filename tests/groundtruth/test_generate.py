"""The heap's peak during greedy generation as transformers runs it (generate.py: _sample, a
DynamicCache or StaticCache, eager attention, logits_to_keep), derived by hand from the op
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


def derived_peak(e, b, s, n, h, L, a, g, f, V, cache="dynamic", keep=1):
    """Peak heap bytes of generate(max_new_tokens=n, greedy) over the heap before the model was
    built, for the prefill and for the decode steps: {"prefill": (bytes, moment), "decode":
    (bytes, moment)}. e: bytes per element of the model dtype (2 bf16, 4 fp32); b batch, s
    prompt, h hidden, L layers, a heads, g kv heads, f intermediate, V vocab, keep:
    logits_to_keep (0: every position). A moment is (what, steps, layer, callers, ops): the
    steps (generate's loop: "prefill", then 1..n-1) and layer (None: outside the layers) where
    it happens, the caller (file:function) and torch functions the tracer may name for it; the
    decode's last steps differ by a few KB, within the allocator's noise, hence several steps."""
    d = h // a
    r = a // g                          # repeat_kv's n_rep
    M = s + n - 1                       # a static cache's length: generate's max_length - 1
    W = weights(e, h, L, a, g, f, V)
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
    C = e * b * g * T * d               # one layer's keys (or values) once this step updated it
    held = (
        W
        + I64 * b * s                   # the prompt's ids (the caller's)
        + I64 * b * s                   # generate's 2D attention mask of ones
        + I64 * s                       # cache_position
        + 2 * I64 * b * s               # model_inputs: input_ids and position_ids, cloned
    )
    mask = e * b * s * T                # the additive [b, 1, q, T] mask in the dtype
    if cache == "static":
        held += mask                    # built by prepare_inputs_for_generation, in model_inputs
    fwd = (
        held
        + (mask if cache == "dynamic" else 0)   # built by the model's forward
        + e * b * s * h                 # inputs_embeds: LlamaModel.forward keeps them referenced
        + 2 * e * b * s * d             # rotary cos and sin [b, q, d]
    )
    caches = L * 2 * C                  # the last layer: every layer's cache is written
    layer_in = e * b * s * h if L > 1 else 0    # the last layer's input (layer 0's: the embeds)
    attn = (
        fwd + caches + layer_in
        + e * b * s * h                 # input_layernorm's output, the attention's input
        + e * b * a * s * d             # rotated q (the unrotated q, k, v and rotated k are gone)
    )
    P = frozenset({"prefill"})
    cands = {
        ("the last layer's attention scores", P, last, frozenset({ATTN}), scores_ops): (
            attn
            + (2 * e * b * a * T * d if copies_kv else 0)   # repeat_kv's copies of k and v
            + S * b * a * s * T         # the scores
        ),
        ("the last layer's MLP, gate * up", P, last, frozenset({"llama.py:forward"}), ("mul",)): (
            fwd + caches + layer_in
            + e * b * a * s * T         # the probabilities, bound to `_` in the decoder layer
            + e * b * s * h             # residual + attention output
            + e * b * s * h             # post_attention_layernorm's output
            + 3 * e * b * s * f         # silu(gate), up and their product
        ),
        ("the final RMSNorm", P, None, frozenset({"llama.py:forward"}), ("mul",)): (
            fwd + caches
            + e * b * s * h             # the last layer's output
            + 8 * b * s * h             # two fp32 [b, s, h] working tensors (x*rsqrt, weight*x)
        ),
        ("lm_head", P, None, frozenset({"generate.py:forward"}), ("linear",)): (
            held + caches               # the model's forward has returned: mask, embeds gone
            + e * b * s * h             # the final norm's output
            + e * b * (keep or s) * V   # the logits of the kept positions
        ),
        ("after the forward, before `del outputs`", P, None, frozenset({"generate.py:generate"}), ()): (
            held + caches
            + e * b * (keep or s) * V   # the logits, alive until `del outputs`
            + 4 * b * V                 # next_token_logits: their last position in fp32
            + 2 * I64 * b * (s + 1)     # the attention mask and input_ids grown by torch.cat
        ),
    }
    if folds_kv:
        cands[("the last layer's probs @ v, the fold's copy of v", P, last, frozenset({ATTN}), ("matmul",))] = (
            attn + e * b * a * T * d + e * b * a * s * T + e * b * a * s * d   # copy, probs, output
        )
    out["prefill"] = _max(cands)

    # ---- decode: q = 1; the last step (n - 1) attends over T = s + n - 1 (= M) ---------------
    T = M
    C = e * b * g * T * d
    held = (
        W
        + I64 * b * s                   # the prompt's ids
        + I64 * b * T                   # generate's input_ids, grown by torch.cat to s + n - 1
        + I64 * b * T                   # the 2D attention mask, grown by torch.cat
        + 4 * b * V                     # the previous step's next_token_logits (fp32)
        + 2 * I64 * b + I64             # model_inputs: input_ids, position_ids, cache_position
    )
    fwd = (
        held
        + e * b * T                     # the [b, 1, 1, T] mask
        + e * b * h                     # inputs_embeds
        + 2 * e * b * d                 # cos, sin
    )
    attn = (
        fwd + L * 2 * C                 # every layer's cache at T
        + e * b * h * (2 if L > 1 else 1)   # the last layer's input, its normed input
        + e * b * a * d                 # rotated q
    )
    D = frozenset(range(1, n) if cache == "static" else range(max(1, n - 3), n))
    any_layer = "any"
    cands = {
        ("the last steps' attention", D, any_layer, frozenset({ATTN}), ()): (
            attn
            + (2 * e * b * a * T * d if copies_kv else 0)   # repeat_kv's copies of the cache
            + S * b * a * T             # the scores
        ),
    }
    if folds_kv:
        cands[("the last steps' probs @ v, the fold's copy of v", D, any_layer, frozenset({ATTN}), ("matmul",))] = (
            attn + e * b * a * T * d + e * b * a * T + e * b * a * d     # copy, probs, output
        )
    if cache == "dynamic":
        # DynamicLayer.update's torch.cat of the values: the old values beside the new
        cands[("the last steps' cache torch.cat", D, any_layer, frozenset({"generate.py:update"}), ("cat",))] = (
            attn
            + e * b * g * (T - 1) * d   # the old values, beside the new ones (counted in the caches)
            + 2 * e * b * g * d         # this step's rotated k and v, the update's arguments
        )
    else:
        # step 1's prepare_inputs_for_generation: the prefill's model_inputs, with its 4D
        # [b, 1, s, M] mask, are alive until the new ones are bound
        step1 = (
            W
            + I64 * b * s               # the prompt
            + 2 * I64 * b * (s + 1)     # input_ids and the attention mask, grown by one
            + 4 * b * V                 # the prefill's next_token_logits
            + e * b * s * M             # the prefill's 4D mask
            + 2 * I64 * b * s + I64 * s  # the prefill's input_ids, position_ids, cache_position
            + L * 2 * C                 # the caches
        )
        fn = "generate.py:prepare_inputs_for_generation"
        cands[("step 1's position ids, the prefill's 4D mask still held", frozenset({1}), None, frozenset({fn}), ("sub",))] = (
            step1 + 2 * I64 * b * (s + 1)   # attention_mask.long().cumsum(-1), and minus 1
        )
        fn = "generate.py:get_seq_length"
        cands[("step 1's get_seq_length, the prefill's 4D mask still held", frozenset({1}), None, frozenset({fn}), ("any",))] = (
            step1 + M * d               # keys[0][0, 0].any(-1): torch 1.13 casts the [M, d] to bool first
        )
    out["decode"] = _max(cands)
    return out


def _max(cands):
    moment = max(cands, key=cands.get)
    return cands[moment], moment


def measure(**kw):
    """generate.measure in a process of its own: the peaks and the tracer's moments."""
    run = subprocess.run(
        [sys.executable, os.path.join(HERE, "generate.py"), json.dumps({**kw, "trace": True})],
        capture_output=True, text=True, cwd=HERE, timeout=120,
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
}


def close(measured, derived, rel=0.01):
    return abs(measured - derived) <= rel * derived


TOLERANCE = 0.03  # the estimate against the measured peak (README: Validated against PyTorch)


def estimate(c):
    """`llmmem estimate --json` for the same generate job: greedy generation of n tokens after a
    prompt of s, under transformers' semantics on the CPU's torch 1.13 (eager attention, softmax's
    fp32 input copy), nothing held by the runtime. Its total is the weights plus the peak
    moment's cache, working set and logits; its phase and layer the moment's."""
    keys = {
        "model_type": "llama", "hidden_size": c["h"], "num_hidden_layers": c["L"],
        "num_attention_heads": c["a"], "num_key_value_heads": c["g"], "vocab_size": c["V"],
        "intermediate_size": c["f"], "tie_word_embeddings": "false",
        "torch_dtype": {"bfloat16": "bf16", "float32": "fp32"}[c["dtype"]],
        "mode": "inference", "micro_batch_size": c["b"], "sequence_length": c["s"],
        "max_new_tokens": c["n"], "cache_implementation": c["cache"], "logits_to_keep": c.get("keep", 1),
        "framework": "hf_trainer", "pytorch_version": "1.13", "attn_implementation": "eager",
        "runtime_overhead_bytes": 0,
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
        kv_heads=c["g"], intermediate=c["f"],
    )
    assert m["weights"] == weights(e, c["h"], c["L"], c["a"], c["g"], c["f"], c["V"])
    # held when generate starts beyond the weights and the prompt: the modules' Python objects
    # (their dicts and the like, about 30 KB), not derived
    overhead = m["start"] - m["weights"] - I64 * c["b"] * c["s"]
    assert 0 <= overhead < 100_000, overhead
    want = derived_peak(e, c["b"], c["s"], c["n"], c["h"], c["L"], c["a"], c["g"], c["f"], c["V"],
                        c["cache"], c.get("keep", 1))
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
