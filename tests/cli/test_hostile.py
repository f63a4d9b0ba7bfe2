"""Hostile numbers and sizes on the `llmmem` command line (issue 14): every numeric option reads
its text as the library reads a key's, refuses what is not a whole number in its range with exit 2
and one line naming the option and the text, and `fit` and `plan` answer any device count they
accept within a bounded time.

The binary is named by the LLMMEM_CLI environment variable (meson sets it). Nothing here is timed:
a search that scanned every device count would not finish within run()'s 120 s limit.
"""
import json
import re

import pytest

from clirun import ok, run


def refused(*args):
    """Exit 2, nothing on stdout, one line on stderr; that line."""
    r = run(*args)
    assert r.returncode == 2, (args, r.returncode, r.stdout, r.stderr)
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("llmmem: error: "), r.stderr
    return lines[0]


PLAN = ("plan", "--model", "llama-3.1-70b", "--set", "mode=training", "--set", "global_batch_size=32",
        "--set", "sequence_length=4096")


# ---- --devices: the same range and message for fit and plan -------------------------------------

def test_zero_devices_is_refused_by_fit_and_plan_alike():
    fit = refused("fit", "--devices", "0")
    plan = refused("plan", "--devices", "0")
    assert fit == plan
    assert "--devices" in fit and "'0'" in fit and "1 to 16777216" in fit


@pytest.mark.parametrize("command", ["fit", "plan"])
@pytest.mark.parametrize("text", ["99999999999999999999999", " -1", "-1", " 5", "5 ", "1.5", "16777217",
                                  "1e30", "0x10", "", "abc"])
def test_devices_not_a_count_in_range_is_refused(command, text):
    line = refused(command, "--devices", text)
    assert "--devices" in line
    assert f"'{text}'" in line


def test_devices_read_as_a_key_reads_a_number():
    # 1K = 1000 devices, 1.6e1 = 16: the library's grammar, for --devices as for --set
    doc = json.loads(ok(*PLAN, "--devices", "1.6e1", "--json", "--top", "1"))
    assert doc["devices"] == 16
    text = ok("plan", "--devices=1K", "--top", "1")
    assert "x 1000" in text


# ---- --top: the planner's limit ------------------------------------------------------------------

@pytest.mark.parametrize("text", ["-1", "99999999999999999999", " 3", "3 ", "2.5", "x"])
def test_top_not_a_count_in_range_is_refused(text):
    line = refused(*PLAN, "--devices", "16", "--top", text)
    assert "--top" in line and f"'{text}'" in line


def test_top_keeps_the_cheapest_and_counts_the_rest():
    every = json.loads(ok(*PLAN, "--devices", "16", "--json", "--top", "0"))
    three = json.loads(ok(*PLAN, "--devices", "16", "--json", "--top", "3"))
    assert every["fitting"] == len(every["layouts"]) > 3
    assert three["fitting"] == every["fitting"]
    assert three["candidates"] == every["candidates"]
    assert three["layouts"] == every["layouts"][:3]
    text = ok(*PLAN, "--devices", "16", "--top", "3")
    assert f"{every['fitting']} fit of {every['candidates']} valid candidates; the cheapest 3:" in text


def test_top_default_is_ten():
    text = ok(*PLAN, "--devices", "16")
    assert "the cheapest 10:" in text
    assert len([l for l in text.splitlines() if re.match(r"^\s+\d+\s+\d+\s+\d+", l)]) == 10


# ---- --length: the same grammar as --devices ------------------------------------------------------

@pytest.mark.parametrize("text", [" 5", "5 ", "-3", "1e30", "1.5"])
def test_length_is_read_like_devices(text):
    line = refused("serve", "--length", text)
    assert "--length" in line and "request_tokens" in line and f"'{text}'" in line


def test_length_takes_units():
    assert ok("serve", "--length", "1K", "--json") == ok("serve", "--length", "1000", "--json")


# ---- the largest device counts --------------------------------------------------------------------

NEVER_FITS = ("--model", "llama-3.1-405b", "--gpu", "rtx-4090", "--set", "mode=training",
              "--set", "sequence_length=131072")


@pytest.mark.parametrize("devices", ["4096", "32768", "16777216"])
def test_fit_answers_for_any_device_count(devices):
    # every count from 1 was planned in turn: 0.4 s for 4096, 3.4 s for 32768, hours for 2^24
    text = ok("fit", *NEVER_FITS, "--devices", devices)
    assert f"fewest devices with a layout that fits: more than {devices}" in text


def test_fit_finds_the_same_fewest_under_any_ceiling():
    args = ("--model", "llama-3.1-70b", "--set", "mode=training", "--set", "sequence_length=4096")
    low = ok("fit", *args, "--devices", "64")
    high = ok("fit", *args, "--devices", "16777216")
    line = "fewest devices with a layout that fits: 16 (see 'llmmem plan --devices 16')"
    assert line in low and line in high


def test_a_space_beyond_the_work_limit_is_refused():
    # heads, layers and sequence with many divisors on a highly composite device count: 7.3
    # million layouts fit; listing them took 10 s and 624 MB
    line = refused("plan", "--set", "model_type=llama", "--set", "hidden_size=5040",
                   "--set", "num_attention_heads=5040", "--set", "num_key_value_heads=5040",
                   "--set", "num_hidden_layers=720", "--set", "intermediate_size=5040",
                   "--set", "vocab_size=5040", "--set", "mode=training", "--set", "sequence_length=10080",
                   "--set", "plan_max_tensor_parallel=1024", "--set", "plan_max_context_parallel=1024",
                   "--set", "plan_max_virtual_pipeline=16", "--devices", "14414400")
    assert "devices (14414400)" in line and "work limit" in line


def test_plan_on_the_largest_count():
    doc = json.loads(ok("plan", "--model", "llama-3.1-405b", "--set", "mode=training",
                        "--set", "global_batch_size=16777216", "--devices", "16777216", "--json"))
    assert doc["devices"] == 16777216
    assert doc["fitting"] >= len(doc["layouts"]) > 0


# ---- fit of a model given by its parameter count ---------------------------------------------------

@pytest.mark.parametrize("mode", ["inference", "training"])
def test_fit_of_a_count_only_model_is_refused_before_printing(mode):
    line = refused("fit", "--set", "model_type=custom", "--set", "num_parameters=70e9", "--set", f"mode={mode}")
    assert "num_parameters" in line and "fit" in line


# ---- which commands take which option ----------------------------------------------------------

# What each command took before the options came from one table (cli/args.c): the table
# must give the same answers.
TAKES = {
    "estimate": {"--model", "--gpu", "--set", "--json", "--safetensors", "--config", "--gguf", "--explain"},
    "explain": {"--model", "--gpu", "--set", "--safetensors", "--config", "--gguf"},
    "serve": {"--model", "--gpu", "--set", "--json", "--safetensors", "--config", "--gguf", "--length", "--engine"},
    "fit": {"--model", "--gpu", "--set", "--json", "--config", "--gguf", "--devices", "--engine"},
    "plan": {"--model", "--gpu", "--set", "--config", "--gguf", "--devices", "--top", "--json"},
    "params": {"--model", "--set", "--safetensors", "--config", "--gguf"},
    "models": set(), "gpus": set(), "keys": set(), "help": set(),
}
VALUES = {"--model": "x", "--gpu": "x", "--set": "k=v", "--safetensors": "x", "--config": "x", "--gguf": "x",
          "--length": "1", "--devices": "1", "--top": "1", "--engine": "x"}


@pytest.mark.parametrize("command", sorted(TAKES))
def test_an_option_a_command_does_not_take_is_refused(command):
    for option in sorted(set(VALUES) | {"--json", "--explain"}):
        if option in TAKES[command]:
            continue
        args = [command, option] + ([VALUES[option]] if option in VALUES else [])
        assert refused(*args) == f"llmmem: error: option '{option}' does not apply to '{command}'"


def test_of_several_refused_options_the_first_in_a_fixed_order_is_named():
    # --model, --gpu, --set, --json, --safetensors, --config, --gguf, --length, --devices, --top, --explain
    line = refused("models", "--explain", "--top", "1", "--safetensors", "x")
    assert line == "llmmem: error: option '--safetensors' does not apply to 'models'"
    line = refused("params", "--explain", "--top", "1")
    assert line == "llmmem: error: option '--top' does not apply to 'params'"


def test_every_option_in_the_usage_is_one_the_parser_reads():
    usage = run("--help").stdout
    listed = re.findall(r"^  (-h, --help|--[a-z]+)", usage, re.M)
    assert listed == ["--model", "--gpu", "--set", "--json", "--explain", "--allocator", "--length", "--devices", "--top",
                      "--config", "--gguf", "--safetensors", "--engine", "-h, --help", "--version"]
    for option in listed:
        assert "unknown option" not in run(option.split(", ")[-1]).stderr
