"""llmmem.estimate_runs: the job replayed through the model of PyTorch's CUDA caching allocator.

The facts are those the C library's own test states (tests/test_tape.c, test_estimate_runs and
test_replay_is_bounded): Llama-3.2-1B trained with transformers, 2 x 2048 tokens in pure bf16, is
the H100 job t_llama1b_sdpa, whose reserved peak was measured in a fresh process at
21,361,590,272 bytes; on a 16 GiB card it runs out of memory after step 2, layer 15's forward
(step 1 runs; step 2 has the optimizer states made at the end of step 1), and expandable
segments do not save it. A generate of 99,999 decode steps replays at most 64: ceil(99,999 / 64)
= 1,563 tokens a replayed step. The rest is checked against the library's own JSON and estimate.
"""
import json

import pytest

import llmmem
from conftest import run_cli, test_data as data_dir

GIB = 1 << 30
MEASURED_RESERVED = 21_361_590_272  # t_llama1b_sdpa on an H100, torch.cuda.max_memory_reserved()
ALLOCATOR = ("allocated_bytes", "reserved_bytes", "reserved_low_bytes", "reserved_free_bytes",
             "oom_request_bytes", "oom_after", "runs_expandable", "decode_stride")


def job(gpu="h100-sxm-80gb", **settings):
    model = llmmem.Model.from_hf_config(data_dir() / "gpu" / "configs" / "llama-3.2-1b.json")
    hw = llmmem.Hardware.from_preset(gpu)
    strategy = llmmem.Strategy(framework="hf_trainer", mode="training", precision_recipe="pure_bf16",
                               micro_batch_size=2, sequence_length=2048)
    strategy.set(**settings)
    return model, hw, strategy


def small_card():
    model, hw, strategy = job("rtx-4090")
    hw["memory_bytes"] = 16 * GIB
    return model, hw, strategy


def device_total(hw):
    """What CUDA reports as the device's total (llmmem.h, llmmem_report_device_total_bytes): the
    hardware's cuda_total_bytes, else driver_total_bytes, else memory_bytes; a memory_bytes below
    them (another card, a cap) is the total."""
    total = hw["cuda_total_bytes"] or hw["driver_total_bytes"]
    return total if 0 < total < hw.memory_bytes else hw.memory_bytes


def test_the_measured_job_runs_at_its_measured_reserved_peak():
    model, hw, strategy = job()
    r = llmmem.estimate_runs(model, hw, strategy)
    assert r.replayed and r.not_replayed is None
    assert r.runs is True and r.fits is True
    assert r.reserved_bytes == MEASURED_RESERVED
    # every live tensor of the estimate is an allocated block (rounded up, transients on top)
    assert r.allocated_bytes >= r.total_bytes - r.runtime_overhead
    # reserved = the blocks handed out at the peak + the free blocks the growing request could not use
    assert r.allocated_bytes <= r.reserved_bytes
    assert 0 <= r.reserved_free_bytes <= r.reserved_bytes
    assert r.reserved_low_bytes <= r.reserved_bytes
    assert r.device_total_bytes == device_total(hw)
    assert r.reserved_bytes + r.runtime_overhead <= r.device_total_bytes
    # a job that runs has no out-of-memory request, and no expandable-segments question
    assert (r.oom_request_bytes, r.oom_after, r.runs_expandable) == (None, None, None)
    assert r.decode_stride == 0  # training: no generate loop
    # the plain estimate is the same estimate, without the replay
    plain = llmmem.estimate(model, hw, strategy)
    assert plain.components == r.components
    assert not plain.replayed and plain.not_replayed is None and plain.runs is None
    assert all(getattr(plain, name) is None for name in ALLOCATOR)
    assert plain.device_total_bytes == r.device_total_bytes
    assert "allocator" not in plain.to_dict()


def test_on_a_16_gib_card_it_runs_out_of_memory_in_step_2():
    r = llmmem.estimate_runs(*small_card())
    assert r.replayed and r.runs is False and r.fits is False
    assert r.oom_after == "step 2, layer 15's forward"
    assert r.oom_request_bytes > 0
    assert r.runs_expandable is False
    assert r.device_total_bytes == 16 * GIB
    # the allocator never holds more than the device has beside the memory outside it
    assert r.reserved_bytes + r.runtime_overhead <= r.device_total_bytes
    text = repr(r)
    assert "reserved peak" in text and "device total" in text
    assert "runs: no, out of memory" in text and "after step 2, layer 15's forward" in text
    assert "expandable_segments" not in text  # it does not run with them either
    assert "not replayed" not in r._repr_html_() and "out of memory" in r._repr_html_()


def test_expandable_segments_do_not_save_it():
    r = llmmem.estimate_runs(*small_card())
    model, hw, strategy = small_card()
    strategy["expandable_segments"] = True
    on = llmmem.estimate_runs(model, hw, strategy)
    assert on.runs is r.runs_expandable is False
    assert on.runs_expandable is None  # the question is asked with them off only
    # one range per stream and pool: no placement of segments to choose
    assert on.reserved_low_bytes == on.reserved_bytes


def test_the_properties_are_the_reports_json():
    for inputs in (job(), small_card()):
        r = llmmem.estimate_runs(*inputs)
        d = json.loads(r.to_json())
        a = d["allocator"]
        assert r.runs is a["runs"] and r.fits is d["fits"] is a["runs"]
        assert (r.allocated_bytes, r.reserved_bytes, r.reserved_low_bytes, r.reserved_free_bytes, r.decode_stride) == \
            (a["allocated_peak"], a["reserved_peak"], a["reserved_low"], a["free_at_reserved_peak"], a["decode_stride"])
        assert a["outside"] == r.runtime_overhead
        assert d["device_total_bytes"] == r.device_total_bytes
        if not r.runs:
            assert a["out_of_memory"] == {"request": r.oom_request_bytes, "after": r.oom_after}
            assert a["runs_with_expandable_segments"] is r.runs_expandable
        assert r.to_dict() == d


def test_a_job_not_modelled_raises_with_the_estimate():
    model, hw, strategy = small_card()
    strategy["tensor_parallel"] = 2
    with pytest.raises(llmmem.UnsupportedError, match="several devices") as err:
        llmmem.estimate_runs(model, hw, strategy)
    r = err.value.report
    assert isinstance(r, llmmem.Report)
    assert not r.replayed and r.runs is None and r.not_replayed == str(err.value)
    assert all(getattr(r, name) is None for name in ALLOCATOR)
    plain = llmmem.estimate(model, hw, strategy)
    assert r.to_json() == plain.to_json() and r.fits is plain.fits
    assert r.timeline().to_json() == plain.timeline().to_json()
    assert f"allocator: not replayed: {err.value}" in repr(r)
    # fallback=True: the same estimate returned
    fb = llmmem.estimate_runs(model, hw, strategy, fallback=True)
    assert fb.to_json() == plain.to_json() and fb.not_replayed == str(err.value)
    # another framework's job: its reason
    strategy["tensor_parallel"] = 1
    strategy["framework"] = "megatron"
    assert "megatron" in llmmem.estimate_runs(model, hw, strategy, fallback=True).not_replayed
    # an UnsupportedError of anything else carries no report
    assert llmmem.UnsupportedError("x").report is None


def test_a_failing_estimate_is_not_a_fallback():
    model, hw, strategy = job()
    strategy["tensor_parallel"] = 3  # Llama-3.2-1B: 32 heads, not divisible by 3
    with pytest.raises(llmmem.IncompatibleError) as err:
        llmmem.estimate_runs(model, hw, strategy, fallback=True)
    with pytest.raises(llmmem.IncompatibleError) as plain:
        llmmem.estimate(model, hw, strategy)
    assert str(err.value) == str(plain.value)


def test_a_long_generation_replays_at_most_64_decode_steps():
    model, hw, strategy = job(mode="inference", micro_batch_size=1, sequence_length=16, max_new_tokens=100000)
    r = llmmem.estimate_runs(model, hw, strategy)
    assert r.runs is True and r.decode_stride == 1563  # ceil(99,999 / 64)
    strategy["max_new_tokens"] = 65  # 64 decode steps: every one
    assert llmmem.estimate_runs(model, hw, strategy).decode_stride == 1
    model["num_hidden_layers"] = 4097
    with pytest.raises(llmmem.UnsupportedError) as err:
        llmmem.estimate_runs(model, hw, strategy)
    assert str(err.value) == "the allocation tape runs 1 to 4096 decoder layers"
    assert err.value.report.total_bytes == llmmem.estimate(model, hw, strategy).total_bytes


def test_bad_arguments():
    model, hw, strategy = job()
    with pytest.raises(llmmem.InvalidTypeError, match="fallback must be a bool, not str"):
        llmmem.estimate_runs(model, hw, strategy, fallback="yes")
    with pytest.raises(llmmem.InvalidTypeError, match="hardware must be an llmmem.Hardware"):
        llmmem.estimate_runs(model, None, strategy)
    with pytest.raises(TypeError):
        llmmem.estimate_runs(model, hw, strategy, True)  # fallback is keyword-only
    # the inputs stay as they were estimated: a change after it does not change the report
    r = llmmem.estimate_runs(model, hw, strategy)
    strategy["micro_batch_size"] = 1
    assert r.reserved_bytes == MEASURED_RESERVED
    assert r.timeline().peak["total"] == r.total_bytes


# --- llmmem.timeline_runs: the replay moment by moment -------------------------------------

def measured(name):
    """A job's record of the H100 runs (tests/data/gpu/h100-measured.jsonl, torch.cuda's counters)."""
    with open(data_dir() / "gpu" / "h100-measured.jsonl", encoding="utf-8") as f:
        return next(rec for rec in map(json.loads, f) if rec["name"] == name)


def test_timeline_runs_reaches_the_measured_reserved_peak():
    model, hw, strategy = job()
    tl = llmmem.timeline_runs(model, hw, strategy)
    r = llmmem.estimate_runs(model, hw, strategy)
    assert tl.replayed and r.replayed
    outside = r.runtime_overhead  # the memory outside the allocator: every point holds it
    reserved = [p["reserved"] for p in tl.points]
    # what the device holds at its highest: the measured reserved peak plus the memory outside
    assert measured("t_llama1b_sdpa")["peak_reserved"] == MEASURED_RESERVED
    assert max(reserved) == MEASURED_RESERVED + outside == r.reserved_bytes + outside
    assert tl[tl.reserved_peak_index]["reserved"] == max(reserved)
    assert tl.reserved_peak_index == reserved.index(max(reserved))
    # the highest allocated moment is the report's allocated peak
    assert tl.peak["total"] == r.allocated_bytes + outside
    # the caching allocator frees no segment (no empty_cache, no OOM retry): reserved only grows,
    # and every block handed out lies in a reserved segment
    assert reserved == sorted(reserved)
    assert all(p["runtime_overhead"] >= outside and p["reserved"] >= p["total"] for p in tl.points)


def test_timeline_runs_follows_two_training_steps():
    model, hw, strategy = job()
    tl = llmmem.timeline_runs(model, hw, strategy)
    layers = model["num_hidden_layers"]
    moments = [(p["step"], p["phase"], p["layer"]) for p in tl.points]
    assert moments[0] == (0, "static", None)  # the model built
    for step in (0, 1):  # each layer's forward, in order, then the loss's forward
        forward = [m for m in moments if m[0] == step and m[1] == "forward"]
        assert forward == [(step, "forward", i) for i in range(layers)] + [(step, "forward", None)]
    assert {m[0] for m in moments} == {0, 1}
    assert moments[-1] == (1, "optimizer", None)


def test_timeline_runs_of_a_generate_call():
    # 4 new tokens: the prefill (token 0) then 3 decode steps, each its 16 layers and the logits
    model, hw, strategy = job(mode="inference", micro_batch_size=1, sequence_length=16, max_new_tokens=4)
    tl = llmmem.timeline_runs(model, hw, strategy)
    layers = model["num_hidden_layers"]
    assert len(tl) == 1 + 4 * (layers + 1)
    for token in range(4):
        phase = "prefill" if token == 0 else "decode"
        assert [(p["phase"], p["layer"]) for p in tl.points if p["step"] == token and p["phase"] != "static"] == \
            [(phase, i) for i in range(layers)] + [(phase, None)]


def test_timeline_runs_stops_where_it_runs_out_of_memory():
    # the 16 GiB card: out of memory in step 2, layer 15's forward (tests/test_tape.c)
    model, hw, strategy = small_card()
    tl = llmmem.timeline_runs(model, hw, strategy)
    r = llmmem.estimate_runs(model, hw, strategy)
    assert r.runs is False and r.oom_after == "step 2, layer 15's forward"
    last = tl[-1]
    assert (last["step"], last["phase"], last["layer"]) == (1, "forward", 15)
    assert max(p["reserved"] for p in tl.points) == r.reserved_bytes + r.runtime_overhead <= r.device_total_bytes


def test_timeline_runs_json_is_the_clis():
    model, hw, strategy = job()
    tl = llmmem.timeline_runs(model, hw, strategy)
    cli = run_cli("timeline", "--allocator", "--json", "--gpu", "h100-sxm-80gb",
                  "--config", str(data_dir() / "gpu" / "configs" / "llama-3.2-1b.json"),
                  *[arg for kv in ("framework=hf_trainer", "mode=training", "precision_recipe=pure_bf16",
                                   "micro_batch_size=2", "sequence_length=2048") for arg in ("--set", kv)])
    assert cli.returncode == 0, cli.stderr
    assert tl.to_json() == cli.stdout
    d = tl.to_dict()
    assert d == json.loads(cli.stdout)
    assert (d["stage"], d["peak_index"]) == (tl.stage, tl.peak_index)
    for point, expected in zip(tl.points, d["points"], strict=True):
        assert (point["phase"], point["total"], point["step"], point["reserved"]) == \
            (expected["phase"], expected["total"], expected["step"], expected["reserved"])
        assert point["layer"] == (None if expected["layer"] < 0 else expected["layer"])
        assert {name: point[name] for name in expected["bytes"]} == expected["bytes"]


def test_timeline_runs_presents_reserved_beside_allocated():
    model, hw, strategy = job()
    tl = llmmem.timeline_runs(model, hw, strategy)
    high = tl[tl.reserved_peak_index]["reserved"]
    text = repr(tl)
    assert f"reserved peak {high:,} bytes" in text
    peak = tl.peak
    assert f"{peak['total']:>16,} {peak['reserved']:>16,}  <- peak" in text
    html = tl._repr_html_()
    assert "<th>allocated</th><th>reserved</th>" in html and f"{high:,}" in html
    # a timeline of the estimate is not replayed: no step, no reserved
    plain = llmmem.timeline(model, hw, strategy)
    assert not plain.replayed and plain.reserved_peak_index is None
    assert not any("step" in p or "reserved" in p for p in plain.points)
    assert '"reserved"' not in plain.to_json() and "reserved" not in repr(plain)
    assert "<th>reserved</th>" not in plain._repr_html_()


def test_timeline_runs_raises_for_a_job_not_modelled():
    model, hw, strategy = job()
    strategy["framework"] = "megatron"
    with pytest.raises(llmmem.UnsupportedError, match="the allocation tape does not run framework megatron"):
        llmmem.timeline_runs(model, hw, strategy)
    strategy["framework"] = "hf_trainer"
    strategy["tensor_parallel"] = 3  # the estimate's own error first, as estimate_runs
    with pytest.raises(llmmem.IncompatibleError) as err:
        llmmem.timeline_runs(model, hw, strategy)
    with pytest.raises(llmmem.IncompatibleError) as plain:
        llmmem.estimate_runs(model, hw, strategy)
    assert str(err.value) == str(plain.value)
    with pytest.raises(llmmem.InvalidTypeError, match="hardware must be an llmmem.Hardware"):
        llmmem.timeline_runs(model, None, strategy)
