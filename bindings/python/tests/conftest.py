"""Shared helpers of the Python binding tests.

meson runs them with PYTHONPATH on the build tree's package (build/bindings/python),
LLMMEM_CLI naming the built `llmmem` tool and LLMMEM_TEST_DATA the repository's tests/data.
No expected number is stored in these tests: they compare the bindings with the C library's
own outputs (the tool's JSON, run at test time) and with each other.
"""
import json
import os
import subprocess
from pathlib import Path

import pytest

import llmmem

HERE = Path(__file__).resolve().parent
PARITY_CASES = HERE.parent.parent / "parity_cases.json"


def cli_path() -> str:
    path = os.environ.get("LLMMEM_CLI")
    if not path:
        pytest.fail("LLMMEM_CLI must name the built llmmem tool (meson sets it)")
    return path


def test_data() -> Path:
    path = os.environ.get("LLMMEM_TEST_DATA")
    if not path:
        pytest.fail("LLMMEM_TEST_DATA must name the repository's tests/data (meson sets it)")
    return Path(path)


def run_cli(*args):
    return subprocess.run([cli_path(), *args], capture_output=True, text=True, timeout=120)


def cli_estimate(case, command="estimate", *extra):
    """The tool's output and exit status for a parity case (estimate --json by default)."""
    args = [command, *extra, "--gpu", case["gpu"]]
    if case.get("model"):
        args += ["--model", case["model"]]
    if case.get("config"):
        args += ["--config", str(test_data() / "configs" / case["config"])]
    for key, value in case["set"]:
        args += ["--set", f"{key}={value}"]
    return run_cli(*args)


def parity_cases(kind="cases"):
    return json.loads(PARITY_CASES.read_text())[kind]


def missing_keys(case):
    missing = []
    for name in case.get("requires", []):
        try:
            llmmem.key(name)
        except llmmem.UnknownKeyError:
            missing.append(name)
    return missing


def split_by_object(settings):
    """Settings (name -> value, in order) split per object, as the tool's --set applies them."""
    out = {"model": {}, "hardware": {}, "strategy": {}}
    for name, value in settings:
        out[llmmem.key(name).object][name] = value
    return out


def build_inputs(case, typed):
    """Model, Hardware and Strategy for a case, with its settings as typed values or as text."""
    settings = list(case["typed"].items()) if typed else [tuple(kv) for kv in case["set"]]
    per = split_by_object(settings)
    if case.get("config"):
        model = llmmem.Model.from_hf_config(test_data() / "configs" / case["config"], **per["model"])
    elif case.get("model"):
        model = llmmem.Model.from_preset(case["model"], **per["model"])
    else:
        model = llmmem.Model(**per["model"])
    hardware = llmmem.Hardware.from_preset(case["gpu"], **per["hardware"])
    strategy = llmmem.Strategy(**per["strategy"])
    return model, hardware, strategy


def cli_error_message(stderr: str) -> str:
    prefix = "llmmem: error: "
    line = stderr.strip().splitlines()[-1]
    assert line.startswith(prefix), stderr
    return line[len(prefix):]


@pytest.fixture
def llama7b():
    return llmmem.Model.from_preset("llama-2-7b")


@pytest.fixture
def h100():
    return llmmem.Hardware.from_preset("h100-sxm-80gb")
