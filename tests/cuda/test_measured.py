"""The estimate against what PyTorch's CUDA caching allocator measured on an H100 (tests/data/gpu).

Every measured job is asked of the built `llmmem` tool (LLMMEM_CLI) the way a transformers user would
describe it (framework=hf_trainer and the keys that name what ran; tests/data/gpu/README.md), and three
things are held to within 3 %:

- the allocated peak: torch.cuda.max_memory_allocated over the measured step (a training job's second
  step, or the generate call), less what the process held before the model was built, plus the cuBLAS
  workspaces among those bytes that this job's own threads use (the estimate counts them);
- the weights: the bytes allocated by building the model;
- a training step's trace points against `llmmem timeline --json` (the moments are mapped below), in the
  expandable-segments rows, where the allocator's count is the bytes requested: the default allocator
  also counts the rest of a cached block it hands out whole (c10/cuda/CUDACachingAllocator.cpp
  should_split: up to 1 MiB a large block), which the estimate does not model; those rows are printed.

runtime_overhead_bytes=0: the measured side is the allocator's own count, without the CUDA context.
Each test prints its table (pytest -s, or the meson test log on failure)."""
import json
import os
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, os.pardir, "data", "gpu")
TOLERANCE = 3.0  # percent
# c10/cuda/CublasHandlePool.cpp getChosenWorkspaceSize: 4096 KiB x 8 on Hopper; one per thread that runs a
# matmul (torch/csrc/autograd/engine.cpp runs backward on a device thread of its own)
WORKSPACE = 32 << 20
TARGETS = {"q_proj": "q", "k_proj": "k", "v_proj": "v", "o_proj": "o", "gate_proj": "gate", "up_proj": "up",
           "down_proj": "down"}


def cli():
    path = os.environ.get("LLMMEM_CLI")
    if not path:
        pytest.fail("LLMMEM_CLI must name the built llmmem tool")
    return path


def jobs():
    rows = []
    with open(os.path.join(DATA, "h100-measured.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            if not r["name"].startswith("_") and r.get("ok") and not r.get("fit"):
                rows.append(r)
    return rows


def keys_for(s):
    """The job's keys, as tests/data/gpu/README.md lists them."""
    k = {"framework": "hf_trainer", "runtime_overhead_bytes": "0", "micro_batch_size": str(s["batch"]),
         "sequence_length": str(s["seq"]), "attn_implementation": s.get("attn", "sdpa")}
    if s["kind"] == "train":
        k["mode"] = "lora" if s.get("lora") else "training"
        k["precision_recipe"] = "fp32" if s.get("weights") == "fp32" else "pure_bf16"
        if s.get("autocast"):
            k["autocast"] = "bf16"
        if s.get("gc"):
            k["recompute"] = "full"
        k["optimizer_implementation"] = {"foreach": "foreach", "fused": "fused",
                                         "forloop": "for_loop"}[s.get("impl", "foreach")]
        if s.get("optimizer") == "sgd":
            k["optimizer"] = "sgd_momentum"
        if s.get("lora"):
            k["lora_rank"] = str(s["lora"]["r"])
            k["lora_targets"] = ",".join(TARGETS[t] for t in s["lora"]["targets"])
        if s["config"] == "gpt2":  # GPT2Config's dropouts of 0.1, active under model.train()
            k["dropout"] = "true"
    else:
        k["mode"] = "inference"
        k["max_new_tokens"] = str(s["new"])
        if s.get("cache"):
            k["cache_implementation"] = s["cache"]
        if s.get("beams"):
            k["num_beams"] = str(s["beams"])
    return k


def ask(command, s):
    args = [cli(), command, "--config", os.path.join(DATA, "configs", s["config"] + ".json"), "--gpu",
            "h100-sxm-80gb"]
    for key, value in keys_for(s).items():
        args += ["--set", "%s=%s" % (key, value)]
    p = subprocess.run(args + ["--json"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, "llmmem %s for %s: %s" % (command, s["name"], p.stderr)
    return json.loads(p.stdout)


def workspaces_held(r):
    """The workspaces among the process's bytes before the model was built that this job uses: 32 MiB
    for each thread that had run a matmul (env_allocated also holds a few MiB earlier jobs left), at
    most the job's own (the forward thread; a training step's backward thread too)."""
    return min(r["env_allocated"] // WORKSPACE, 2 if r["kind"] == "train" else 1) * WORKSPACE


def measured_peak(r):
    return r["peak_alloc"] - r["env_allocated"] + workspaces_held(r)


def error(estimate, measured):
    return 100.0 * (estimate - measured) / measured


def report(title, rows):
    """Prints the table; returns the rows outside the tolerance."""
    print("\n%s\n%-28s %-18s %15s %15s %8s" % (title, "job", "allocator mode", "measured", "estimate", "error"))
    for name, mode, m, e in rows:
        print("%-28s %-18s %15s %15s %+7.2f%%" % (name, mode, format(m, ","), format(e, ","), error(e, m)))
    return [(name, mode, round(error(e, m), 2)) for name, mode, m, e in rows if abs(error(e, m)) > TOLERANCE]


def test_allocated_peak_within_3_percent():
    rows = []
    for r in jobs():
        est = ask("estimate", r["spec"])
        rows.append((r["name"], r["alloc_conf"], measured_peak(r), est["per_device"]["total"]))
    assert len(rows) == 52
    assert report("allocated peak", rows) == []


def test_weights_within_3_percent():
    rows = []
    for r in jobs():
        est = ask("estimate", r["spec"])
        rows.append((r["name"], r["alloc_conf"], r["weights_measured"], est["per_device"]["weights"]))
    assert report("weights", rows) == []


# A training step's trace point -> the timeline point it is compared with: after decoder layer i's forward
# (the forward hook) -> ("forward", i); after the loss, the model's outputs dropped -> "loss_done" (the
# loss's saved tensors, before its backward); after loss.backward() -> "backward_done"; after
# optimizer.step() -> "optimizer_done" (the step's temporaries freed).
def timeline_point(points, phase, layer):
    want = ("forward", layer) if phase == "forward" else ({"loss": "loss_done"}.get(phase, phase), -1)
    return [p for p in points if (p["phase"], p["layer"]) == want][0]


def test_training_trace_within_3_percent():
    rows = []
    for r in jobs():
        if r["kind"] != "train":
            continue
        points = ask("timeline", r["spec"])["points"]
        for phase, layer, value in r["trace"]:
            if phase == "backward" or phase == "zero_grad":  # recomputation's forwards; after zero_grad
                continue
            p = timeline_point(points, phase, layer)
            rows.append(("%s %s%s" % (r["name"], phase, "" if layer < 0 else " %d" % layer), r["alloc_conf"],
                         value + workspaces_held(r), p["total"]))
    report("training trace, default allocator (printed)", [row for row in rows if row[1] == "default"])
    assert report("training trace", [row for row in rows if row[1] != "default"]) == []


def test_training_trace_exact_with_expandable_segments():
    """With expandable segments the allocator counts the bytes asked for, rounded to 512 each (the data's
    requested_peak is at most 0.001 % below peak_alloc there): every moment the timeline names, the
    forward's locals (each layer's input and output, the model's embeddings and masks) and backward's
    leaf input included, is then the measured figure to 0.1 %."""
    rows = []
    for r in jobs():
        if r["kind"] != "train" or r["alloc_conf"] == "default":
            continue
        points = ask("timeline", r["spec"])["points"]
        for phase, layer, value in r["trace"]:
            if phase in ("backward", "zero_grad"):
                continue
            p = timeline_point(points, phase, layer)
            rows.append(("%s %s %d" % (r["name"], phase, layer), value + workspaces_held(r), p["total"]))
    off = [(name, round(error(e, m), 3)) for name, m, e in rows if abs(error(e, m)) > 0.1]
    assert len(rows) > 300 and off == []
