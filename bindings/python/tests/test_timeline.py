"""The step as a timeline: llmmem.timeline(), Report.timeline() and Report.plot_timeline().

Every number is compared with what the C library gives through its own getters (the report's
total, the model's layer count) or prints (`llmmem timeline --json`), never with a stored one.
"""
import json
import threading

import pytest

import llmmem
from conftest import run_cli

COMPONENTS = llmmem.component_names()


def small_training():
    """GPT-2 (12 layers) training on an H100: a small job."""
    model = llmmem.Model.from_preset("gpt2")
    hardware = llmmem.Hardware.from_preset("h100-sxm-80gb")
    strategy = llmmem.Strategy(mode="training", micro_batch_size=2, sequence_length=512)
    return model, hardware, strategy


def cli_timeline_json(*sets):
    args = ["timeline", "--json", "--model", "gpt2", "--gpu", "h100-sxm-80gb"]
    for s in sets:
        args += ["--set", s]
    out = run_cli(*args)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_training_timeline_follows_the_step():
    model, hardware, strategy = small_training()
    report = llmmem.estimate(model, hardware, strategy)
    tl = llmmem.timeline(model, hardware, strategy)
    layers = model["num_hidden_layers"]
    assert len(tl) == 2 * layers + 6
    points = tl.points
    assert len(points) == len(tl)
    # phases in order: each layer's forward, the loss's forward, the loss computed and its backward,
    # each layer's backward from the last, backward's end, the optimizer step and its end
    assert [(p["phase"], p["layer"]) for p in points[:layers]] == [("forward", i) for i in range(layers)]
    assert [(p["phase"], p["layer"]) for p in points[layers:layers + 3]] == \
        [("forward", None), ("loss_done", None), ("loss", None)]
    backward = points[layers + 3:2 * layers + 3]
    assert [p["layer"] for p in backward] == list(range(layers - 1, -1, -1))
    assert {p["phase"] for p in backward} <= {"backward", "recompute"}
    assert [(p["phase"], p["layer"]) for p in points[-3:]] == \
        [("backward_done", None), ("optimizer", None), ("optimizer_done", None)]
    assert set(p["phase"] for p in points) <= set(llmmem.phase_names())
    # each point adds up; the highest is the estimate's total and its components the report's
    for p in points:
        assert p["total"] == sum(p[name] for name in COMPONENTS)
    totals = [p["total"] for p in points]
    assert tl.peak_index == totals.index(max(totals))
    assert tl.peak == points[tl.peak_index]
    assert tl.peak["total"] == max(totals) == report.total_bytes
    assert {name: tl.peak[name] for name in COMPONENTS} == report.components
    # the report's moment is one of the highest points (the first of them is the peak index)
    assert (report.peak_phase, report.peak_layer, report.total_bytes) in \
        [(p["phase"], p["layer"], p["total"]) for p in points]
    assert tl.stage == report.most_loaded_stage == 0
    # the state outside the step's moments is the same at every moment
    for name in ("weights", "master_weights", "optimizer_states"):
        assert {p[name] for p in points} == {report.components[name]}


def test_timeline_json_is_the_libraries():
    model, hardware, strategy = small_training()
    tl = llmmem.timeline(model, hardware, strategy)
    cli = cli_timeline_json("mode=training", "micro_batch_size=2", "sequence_length=512")
    assert tl.to_json() == cli
    d = tl.to_dict()
    assert d == json.loads(cli) and d is not tl.to_dict()
    assert (d["stage"], d["peak_index"]) == (tl.stage, tl.peak_index)
    for point, expected in zip(tl.points, d["points"]):
        assert point["phase"] == expected["phase"]
        assert point["layer"] == (None if expected["layer"] < 0 else expected["layer"])
        assert point["total"] == expected["total"]
        assert {name: point[name] for name in COMPONENTS} == expected["bytes"]


def test_recompute_backward_and_peak_layer():
    model, hardware, _ = small_training()
    strategy = llmmem.Strategy(mode="training", recompute="full", micro_batch_size=2, sequence_length=512)
    report = llmmem.estimate(model, hardware, strategy)
    tl = report.timeline()
    layers = model["num_hidden_layers"]
    assert {p["phase"] for p in tl[layers + 3:2 * layers + 3]} == {"recompute"}
    assert tl.peak["total"] == report.total_bytes
    assert (report.peak_phase, report.peak_layer, report.total_bytes) in \
        [(p["phase"], p["layer"], p["total"]) for p in tl]
    cli = run_cli("estimate", "--json", "--model", "gpt2", "--gpu", "h100-sxm-80gb", "--set", "mode=training",
                  "--set", "recompute=full", "--set", "micro_batch_size=2", "--set", "sequence_length=512")
    layer = json.loads(cli.stdout)["training_peak"]["layer"]
    assert report.peak_layer == (None if layer < 0 else layer)


def test_inference_is_one_moment():
    model, hardware, _ = small_training()
    report = llmmem.estimate(model, hardware)
    tl = llmmem.timeline(model, hardware)
    assert len(tl) == 1 and tl.peak_index == 0
    assert tl[0]["phase"] == report.peak_phase == "static" and tl[0]["layer"] is None
    assert tl[0]["total"] == report.total_bytes
    assert report.timeline().to_json() == tl.to_json()


def test_pipeline_follows_the_most_loaded_stage():
    model = llmmem.Model.from_preset("llama-2-7b")
    hardware = llmmem.Hardware.from_preset("h100-sxm-80gb", count=4)
    strategy = llmmem.Strategy(mode="training", pipeline_parallel=4)
    report = llmmem.estimate(model, hardware, strategy)
    tl = report.timeline()
    stage = report.stages[report.most_loaded_stage]
    assert tl.stage == report.most_loaded_stage
    assert len(tl) == 2 * stage["layers"] + 6
    layers = [p["layer"] for p in tl if p["phase"] == "forward" and p["layer"] is not None]
    assert layers == list(range(stage["first_layer"], stage["first_layer"] + stage["layers"]))
    assert tl.peak["total"] == report.total_bytes


def test_timeline_sequence_protocol():
    tl = llmmem.timeline(*small_training())
    points = tl.points
    assert tl[0] == points[0] and tl[-1] == points[-1] and tl[1:3] == points[1:3]
    assert list(tl) == points
    tl[0]["total"] = -1  # a copy: the timeline is unchanged
    assert tl[0] == points[0]
    with pytest.raises(IndexError):
        tl[len(tl)]
    with pytest.raises(llmmem.OutOfRangeError):
        tl[-len(tl) - 1]
    with pytest.raises(llmmem.InvalidTypeError):
        tl["0"]
    labels = tl.labels
    layers = llmmem.Model.from_preset("gpt2")["num_hidden_layers"]
    assert labels[0] == "fwd 0" and labels[layers - 1] == f"fwd {layers - 1}"
    assert labels[layers:layers + 4] == ["loss fwd", "loss_done", "loss bwd", f"bwd {layers - 1}"]
    assert labels[-4:] == ["bwd 0", "backward_done", "opt", "optimizer_done"]
    text = repr(tl)
    peak = tl.peak["total"]
    assert f"{len(tl)} moments" in text and f"{peak:,} bytes" in text
    assert f"{peak / 2**30:.2f} GiB" in text and f"{peak / 1e9:.2f} GB" in text
    with pytest.raises(llmmem.InvalidTypeError):
        llmmem.Timeline(object())


def test_timeline_errors_as_estimate():
    model = llmmem.Model.from_preset("llama-2-7b", num_key_value_heads=3)
    hardware = llmmem.Hardware.from_preset("h100-sxm-80gb")
    with pytest.raises(llmmem.Error) as est:
        llmmem.estimate(model, hardware)
    with pytest.raises(llmmem.Error) as tl:
        llmmem.timeline(model, hardware)
    assert type(tl.value) is type(est.value) and str(tl.value) == str(est.value)
    with pytest.raises(llmmem.InvalidTypeError):
        llmmem.timeline(None, hardware)


def test_report_keeps_the_job_as_estimated():
    """The report's timeline is the job's as estimated, computed after its inputs changed or closed."""
    model, hardware, strategy = small_training()
    report = llmmem.estimate(model, hardware, strategy)
    before = llmmem.timeline(model, hardware, strategy).to_json()
    strategy.set(micro_batch_size=8, recompute="full")
    model["num_hidden_layers"] = 4
    hardware["memory_bytes"] = "40GiB"
    changed = llmmem.estimate(model, hardware, strategy)
    assert changed.total_bytes != report.total_bytes  # the change took effect on the objects
    assert len(llmmem.timeline(model, hardware, strategy)) == 2 * 4 + 6
    model.close()
    strategy.close()
    assert report.timeline().to_json() == before
    assert report.timeline() is report.timeline()  # computed once
    assert changed.timeline().peak["total"] == changed.total_bytes


def test_estimate_does_not_compute_the_timeline(monkeypatch):
    """estimate() stays one C estimate: the timeline is computed only when asked for."""
    model, hardware, strategy = small_training()
    calls = []
    real = llmmem.core.llmmem_estimate_timeline

    def counting(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(llmmem.core, "llmmem_estimate_timeline", counting)
    report = llmmem.estimate(model, hardware, strategy)
    assert report.total_bytes > 0 and report.to_json() and not calls
    report.timeline()
    report.timeline()
    assert len(calls) == 1


def test_setter_after_estimate_leaves_the_report_alone():
    """A change after an estimate works on a clone of the handle; the estimates see it at once."""
    model, hardware, strategy = small_training()
    a = llmmem.estimate(model, hardware, strategy)
    strategy["micro_batch_size"] = 4
    b = llmmem.estimate(model, hardware, strategy)
    strategy["micro_batch_size"] = 2
    c = llmmem.estimate(model, hardware, strategy)
    assert a.to_json() == c.to_json() != b.to_json()
    assert [r.timeline().peak["total"] for r in (a, b, c)] == [r.total_bytes for r in (a, b, c)]
    assert strategy["micro_batch_size"] == 2 and strategy.copy()["micro_batch_size"] == 2


def test_timelines_beside_a_setter():
    """Threads compute reports' timelines while another changes the strategy they came from."""
    model, hardware, strategy = small_training()
    reports = [llmmem.estimate(model, hardware, strategy) for _ in range(4)]
    expected = llmmem.timeline(model, hardware, strategy).to_json()
    stop = threading.Event()
    bad = []

    def flip():
        n = 0
        while not stop.is_set():
            strategy["micro_batch_size"] = 1 + n % 3
            n += 1

    def work(report):
        for _ in range(50):
            report._timeline = None  # recompute from the kept handles
            if report.timeline().to_json() != expected:
                bad.append(1)

    flipper = threading.Thread(target=flip)
    flipper.start()
    workers = [threading.Thread(target=work, args=(r,)) for r in reports]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    stop.set()
    flipper.join()
    assert not bad


def test_plot_timeline_unit_is_checked():
    report = llmmem.estimate(*small_training())
    with pytest.raises(ValueError, match="unit"):
        report.plot_timeline(unit="furlongs")
    with pytest.raises(llmmem.InvalidArgumentError, match="unit"):
        report.plot_timeline(unit="gib")
    with pytest.raises(TypeError):
        report.plot_timeline(unit=2**30)


def test_plot_timeline_writes_png(tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib is not installed (python3-matplotlib)")
    model, hardware, strategy = small_training()
    report = llmmem.estimate(model, hardware, strategy)
    path = tmp_path / "timeline.png"
    ax = report.plot_timeline(path=path, unit="GB")
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "activations" in legend and "capacity" in legend and "peak" in legend
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks == report.timeline().labels  # 27 moments: every one is labelled
    assert ax.get_ylabel() == "memory (GB)"
    (peak_x,), (peak_y,) = ax.lines[0].get_data()
    assert peak_x == report.timeline().peak_index and peak_y == report.total_bytes / 1e9
    import matplotlib.pyplot as plt

    fig, own = plt.subplots()
    assert report.plot_timeline(own, title="step") is own and own.get_title() == "step"
    plt.close(fig)
    # inference: one moment, drawn too
    llmmem.estimate(model, hardware).plot_timeline(path=tmp_path / "inference.png")
    assert (tmp_path / "inference.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
