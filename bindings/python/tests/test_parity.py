"""The Python report equals the C report byte for byte.

For each configuration of bindings/parity_cases.json the `llmmem` tool prints its JSON
(run now, never stored) and the binding builds the same inputs, once with the settings as
text and once as typed values (int, float, bool, list); the JSON must be identical, and so
must every number the Report's getters return. A configuration the tool rejects must raise
the same message. If the C library's answer changes, the tool's changes with it and these
tests compare against the new answer; a binding that computed anything itself would differ.
"""
import json
import math
import re

import pytest

import llmmem
from conftest import build_inputs, cli_error_message, cli_estimate, missing_keys, parity_cases

CASES = parity_cases()


@pytest.mark.parametrize("typed", [False, True], ids=["text", "typed"])
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_report_equals_cli_json(case, typed):
    missing = missing_keys(case)
    if missing:
        pytest.skip(f"the library has no key {', '.join(missing)} yet")
    cli = cli_estimate(case, "estimate", "--json")
    if cli.returncode != 0:
        assert cli.returncode == 2, cli.stderr
        expected = cli_error_message(cli.stderr)
        with pytest.raises(llmmem.Error) as err:
            llmmem.estimate(*build_inputs(case, typed))
        assert str(err.value) == expected
        return

    # `llmmem estimate` replays the job where the allocation tape models it, and keeps the
    # estimate where it does not
    report = llmmem.estimate_runs(*build_inputs(case, typed), fallback=True)
    timeline = llmmem.timeline(*build_inputs(case, typed))
    text = report.to_json()
    # the tool's JSON is the report's with the step's timeline as its last member
    members = text.rstrip()[:-1].rstrip()
    assert members + ',\n  "timeline": ' + timeline.to_json().rstrip("\n") + "\n}\n" == cli.stdout
    assert report.timeline().to_json() == timeline.to_json()
    # its highest point is the estimate's total, and the report's moment one of the highest
    assert timeline.peak["total"] == report.total_bytes
    assert (report.peak_phase, report.peak_layer, report.total_bytes) in \
        [(p["phase"], p["layer"], p["total"]) for p in timeline]

    d = json.loads(cli.stdout)
    assert timeline.to_dict() == d.pop("timeline")
    assert report.to_dict() == d
    # the replay's figures (the "allocator" object), and the plain estimate: the same without it
    allocator = d.get("allocator")
    assert report.replayed is (allocator is not None)
    assert report.device_total_bytes == d["device_total_bytes"]
    plain = llmmem.estimate(*build_inputs(case, typed))
    assert {k: v for k, v in plain.to_dict().items() if k != "fits"} == \
        {k: v for k, v in d.items() if k not in ("allocator", "fits")}
    if allocator is None:
        assert report.runs is None and plain.fits is report.fits
        # why not: the tool's text says it in the same words
        text = cli_estimate(case, "estimate").stdout
        assert f"\nallocator: not replayed: {report.not_replayed}\n" in text
    else:
        assert report.not_replayed is None
        assert report.runs is allocator["runs"] is d["fits"]
        assert report.allocated_bytes == allocator["allocated_peak"]
        assert report.reserved_bytes == allocator["reserved_peak"]
        assert report.reserved_low_bytes == allocator["reserved_low"]
        assert report.reserved_free_bytes == allocator["free_at_reserved_peak"]
        assert report.runtime_overhead == allocator["outside"]
        assert report.decode_stride == allocator["decode_stride"]
        oom = allocator.get("out_of_memory", {})
        assert (report.oom_request_bytes, report.oom_after) == (oom.get("request"), oom.get("after"))
        assert report.runs_expandable is allocator.get("runs_with_expandable_segments")
    per_device = dict(d["per_device"])
    assert report.total_bytes == per_device.pop("total")
    assert report.components == per_device
    for name, value in per_device.items():
        assert getattr(report, name) == value
    params = dict(d["parameters"])
    assert report.total_parameters == params.pop("total")
    assert report.active_parameters == params.pop("active")
    assert report.parameters == params
    assert report.capacity_bytes == d["capacity_bytes"]
    assert report.fits is d["fits"]
    assert report.model_name == d["model"]
    assert report.hardware_name == d["hardware"]
    if "stages" in d:
        assert report.stages == d["stages"]
        assert report.most_loaded_stage == d["most_loaded_stage"]
        assert report.host_bytes == d["host_bytes_per_node"]
        assert report.nvme_bytes == d["nvme_bytes_per_node"]
        assert report.comm_bytes == d["comm_bytes_per_step"]
    peak = d.get("training_peak")
    if peak is None:
        inference_peak = d.get("inference_peak", {})
        assert report.peak_phase == inference_peak.get("phase", "static")
        layer = inference_peak.get("layer", -1)
        assert report.peak_layer == (layer if layer >= 0 else None)
        assert report.peak == {}
        assert report.trainable_parameters == 0
    else:
        assert report.peak_phase == peak["phase"]
        assert report.peak_layer == (None if peak["layer"] < 0 else peak["layer"])
        assert report.trainable_parameters == peak["trainable_parameters"]
        assert report.peak == {k: v for k, v in peak.items() if k not in ("phase", "layer", "trainable_parameters")}


def test_cases_cover_every_setter_kind():
    """The typed settings of the cases reach each Python value kind the bindings map."""
    kinds = set()
    for case in CASES:
        for value in case["typed"].values():
            kinds.add(type(value).__name__)
    assert {"int", "float", "bool", "str", "list"} <= kinds


def test_model_parameters_equal_cli_params():
    """Model.parameters against `llmmem params`, for every preset."""
    for name in llmmem.model_presets():
        model = llmmem.Model.from_preset(name)
        report = llmmem.estimate(model, llmmem.Hardware.from_preset("h100-sxm-80gb"))
        assert model.parameters == report.parameters
        assert model.total_parameters == report.total_parameters
        assert model.active_parameters == report.active_parameters


def test_presets_equal_cli_listings():
    from conftest import run_cli

    models = [line.split()[0] for line in run_cli("models").stdout.splitlines() if line.strip()]
    gpus = [line.split()[0] for line in run_cli("gpus").stdout.splitlines() if line.strip()]
    assert sorted(llmmem.model_presets()) == sorted(models)  # the CLI groups them by family
    assert llmmem.hardware_presets() == gpus


def test_keys_equal_cli_listing():
    from conftest import run_cli

    out = run_cli("keys").stdout.splitlines()
    names = [line for line in out if line and not line.startswith(" ")]
    keys = llmmem.keys()
    assert [k.name for k in keys] == names
    for k in keys:
        assert llmmem.key(k.name).id == k.id
    assert {k.object for k in keys} == {"model", "hardware", "strategy"}


# ---------------------------------------------------------------------------
# Serving, the solvers and the planner against `llmmem serve`, `fit` and `plan`
# ---------------------------------------------------------------------------

SERVE = parity_cases("serve_cases")
FIT = parity_cases("fit_cases")
PLAN = parity_cases("plan_cases")


def _with_length(case, typed):
    """The case's inputs; --length N is the key request_tokens (the tool says so)."""
    case = dict(case)
    if "length" in case:
        case["set"] = case["set"] + [["request_tokens", str(case["length"])]]
        case["typed"] = {**case["typed"], "request_tokens": case["length"]}
    return build_inputs(case, typed)


@pytest.mark.parametrize("typed", [False, True], ids=["text", "typed"])
@pytest.mark.parametrize("case", SERVE, ids=[c["name"] for c in SERVE])
def test_serving_equals_cli_json(case, typed):
    extra = ["--json"] + (["--length", str(case["length"])] if "length" in case else [])
    cli = cli_estimate(case, "serve", *extra)
    if cli.returncode != 0:
        with pytest.raises(llmmem.Error) as err:
            llmmem.serve(*_with_length(case, typed))
        assert str(err.value) == cli_error_message(cli.stderr)
        return
    model, hardware, strategy = _with_length(case, typed)
    serving = llmmem.serve(model, hardware, strategy)
    text = serving.to_json()
    assert (text if text.endswith("\n") else text + "\n") == cli.stdout
    d = json.loads(cli.stdout)
    values = serving.values
    for section in ("budget", "kv"):
        for name, value in d[section].items():
            if name in values:
                assert values[name] == (int(value) if isinstance(value, bool) else value), name
    assert serving.fits is d["kv"]["fits"]
    tokens = values["request_tokens"]
    assert serving.max_concurrency(tokens) == values["max_concurrency"]
    assert serving.request_blocks(tokens) == (values["blocks_per_request"], values["waste_bytes"])
    assert serving.longest_request() == values["max_model_len"]
    if values["max_model_len"] > 0:
        assert serving.fits_request(values["max_model_len"]) is True
        assert serving.fits_request(values["max_model_len"] + 1) is False
    per_token = llmmem.kv_bytes_per_token(model, strategy)
    assert per_token == values["bytes_per_token"]
    assert "GiB" in repr(serving) and "<table" in serving._repr_html_()


def _fit_line(text, label):
    m = re.search(rf"^{re.escape(label)}:\s+(.*)$", text, re.M)
    assert m, f"no line {label!r} in:\n{text}"
    return m.group(1).strip()


@pytest.mark.parametrize("case", FIT, ids=[c["name"] for c in FIT])
def test_solvers_equal_cli_fit(case):
    extra = ["--devices", str(case["devices"])] if "devices" in case else []
    cli = cli_estimate(case, "fit", *extra)
    assert cli.returncode == 0, cli.stderr
    inputs = build_inputs(case, True)
    mbs = _fit_line(cli.stdout, "largest micro_batch_size that fits")
    assert llmmem.solve_max_micro_batch(*inputs) == int(mbs.split()[0])
    seq = _fit_line(cli.stdout, "longest sequence_length that fits")
    assert llmmem.solve_max_sequence_length(*inputs) == int(seq.split()[0])
    fmt = _fit_line(cli.stdout, "least compressed weight_format")
    if fmt == "none fits":
        with pytest.raises(llmmem.NotFoundError):
            llmmem.solve_weight_format(*inputs)
    else:
        assert llmmem.solve_weight_format(*inputs) == fmt
    devices = _fit_line(cli.stdout, "fewest devices with a layout that fits")
    got = llmmem.solve_min_devices(*inputs, max_devices=case.get("devices", 1024))
    assert got == (0 if devices.startswith("more than") else int(devices.split()[0]))


@pytest.mark.parametrize("case", PLAN, ids=[c["name"] for c in PLAN])
def test_plan_equals_cli_plan(case):
    cli = cli_estimate(case, "plan", "--json", "--top", "0", "--devices", str(case["devices"]))
    assert cli.returncode == 0, cli.stderr
    d = json.loads(cli.stdout)
    result = llmmem.plan(*build_inputs(case, True), case["devices"], top=0)
    # the library's JSON, byte for byte as the tool prints it
    assert result.to_json() == cli.stdout
    assert result.to_dict() == d
    assert result.candidates == d["candidates"]
    assert len(result) == result.fitting == d["fitting"] == len(d["layouts"])
    # keeping the cheapest 2 keeps exactly the first 2 of the full list, and counts the rest
    two = llmmem.plan(*build_inputs(case, True), case["devices"], top=2)
    assert two.fitting == result.fitting and len(two) == min(2, result.fitting)
    assert [l.bytes for l in two] == [l.bytes for l in result[:2]]
    cli_two = cli_estimate(case, "plan", "--json", "--top", "2", "--devices", str(case["devices"]))
    assert two.to_json() == cli_two.stdout
    assert two.to_dict()["layouts"] == d["layouts"][:2]
    strategy_keys = {k.name for k in llmmem.keys("strategy")}
    for layout, expected in zip(result, d["layouts"]):
        assert layout.bytes == expected["bytes"]
        assert math.isclose(layout.cost_seconds, expected["cost_seconds"], rel_tol=1e-5)
        for name, value in expected.items():
            if name in strategy_keys:
                assert layout.strategy[name] == value, name
        # the layout's strategy estimates to the bytes the planner reports
        assert llmmem.estimate(result_model(case), llmmem.Hardware.from_preset(case["gpu"]),
                               layout.strategy).total_bytes == layout.bytes


def result_model(case):
    return build_inputs(case, True)[0]


# ---------------------------------------------------------------------------
# The step's timeline against `llmmem timeline --json`
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_timeline_equals_cli_timeline(case):
    missing = missing_keys(case)
    if missing:
        pytest.skip(f"the library has no key {', '.join(missing)} yet")
    cli = cli_estimate(case, "timeline", "--json")
    if cli.returncode != 0:
        assert cli.returncode == 2, cli.stderr
        with pytest.raises(llmmem.Error) as err:
            llmmem.timeline(*build_inputs(case, True))
        assert str(err.value) == cli_error_message(cli.stderr)
        return
    timeline = llmmem.timeline(*build_inputs(case, True))
    text = timeline.to_json()
    assert (text if text.endswith("\n") else text + "\n") == cli.stdout
    d = json.loads(cli.stdout)
    assert timeline.stage == d["stage"] and timeline.peak_index == d["peak_index"]
    assert len(timeline) == len(d["points"])
    for point, expected in zip(timeline.points, d["points"]):
        assert point["phase"] == expected["phase"]
        assert point["layer"] == (None if expected["layer"] < 0 else expected["layer"])
        assert point["total"] == expected["total"]
        assert {k: v for k, v in point.items() if k not in ("phase", "layer", "total")} == expected["bytes"]
