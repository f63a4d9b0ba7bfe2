"""The `llmmem` command-line tool, driven as a user would.

The binary is named by the LLMMEM_CLI environment variable (meson sets it).
Standard library only, besides pytest. Numbers are never stored here: the
tests compare the tool's outputs with each other (table against JSON, listing
against per-item commands), except for one hand derivation.
"""
import json
import os
import re
import subprocess

import pytest

from clirun import cli_path, ok, run

GIB = 2**30
GB = 10**9

ROW = re.compile(r"^(\S+)\s+(\d+) bytes\s+(\d+\.\d\d) GiB\s+(\d+\.\d\d) GB$")


def estimate_json(*args):
    return json.loads(ok("estimate", *args, "--json"))


def parse_table(text):
    """Rows of the estimate table: name -> (bytes, GiB text, GB text), plus header facts."""
    rows = {}
    facts = {}
    for line in text.splitlines():
        m = ROW.match(line)
        if m:
            assert m.group(1) not in rows, f"row {m.group(1)} printed twice"
            rows[m.group(1)] = (int(m.group(2)), m.group(3), m.group(4))
        elif line.startswith("fits:"):
            facts["fits"] = line.split(":", 1)[1].strip()
        elif line.startswith("parameters:"):
            m = re.match(r"parameters:\s+(\d+) total \(.*\), (\d+) active \(.*\)$", line)
            assert m, line
            facts["total"] = int(m.group(1))
            facts["active"] = int(m.group(2))
    return rows, facts


def json_components(report):
    return {k: v for k, v in report["per_device"].items() if k != "total"}


def json_groups(report):
    return {k: v for k, v in report["parameters"].items() if k not in ("total", "active")}


# --------------------------------------------------------------------------
# help and version


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["help"], ["help", "estimate"],
                                  ["estimate", "--help"]])
def test_help_exits_zero_and_states_defaults(args):
    out = ok(*args)
    for word in ("estimate", "params", "models", "gpus", "keys", "--model", "--gpu", "--set",
                 "--json", "llama-3.1-8b", "h100-sxm-80gb", "GiB", "GB"):
        assert word in out


def test_version():
    assert re.fullmatch(r"llmmem \d+\.\d+\.\d+\n", ok("--version"))


def test_no_command_is_a_usage_error():
    r = run()
    assert r.returncode == 2
    assert r.stdout == ""
    assert "command" in r.stderr


# --------------------------------------------------------------------------
# estimate: JSON and table


def test_json_has_the_documented_keys():
    report = estimate_json("--model", "llama-3.1-70b", "--gpu", "h100-sxm-80gb")
    for key in ("parameters", "per_device", "capacity_bytes", "fits"):
        assert key in report
    assert "total" in report["parameters"] and "active" in report["parameters"]
    assert "attention" in report["parameters"]
    assert "weights" in report["per_device"] and "total" in report["per_device"]
    assert isinstance(report["fits"], bool)
    assert isinstance(report["capacity_bytes"], int) and report["capacity_bytes"] > 0
    # every group and component the table lists is in the JSON, and nothing else
    rows, _ = parse_table(ok("estimate", "--model", "llama-3.1-70b", "--gpu", "h100-sxm-80gb"))
    components = set(rows) - {"total", "capacity", "headroom", "shortfall"}
    assert components == set(json_components(report))
    groups = set(parse_params(ok("params", "--model", "llama-3.1-70b")))
    assert groups - {"total", "active"} == set(json_groups(report))


@pytest.mark.parametrize("args", [
    ["--model", "llama-3.1-70b", "--gpu", "h100-sxm-80gb"],
    [],
    ["--model", "llama-3.1-70b", "--set", "weight_format=int4"],
])
def test_json_total_is_the_sum_of_components(args):
    report = estimate_json(*args)
    assert report["per_device"]["total"] == sum(json_components(report).values())
    assert report["parameters"]["total"] == sum(json_groups(report).values())
    assert report["parameters"]["active"] <= report["parameters"]["total"]
    assert report["fits"] == (report["per_device"]["total"] <= report["capacity_bytes"])


@pytest.mark.parametrize("args", [
    ["--model", "llama-3.1-70b", "--gpu", "h100-sxm-80gb"],
    [],
    ["--model", "llama-3.1-70b", "--set", "weight_format=int4"],
    ["--set", "memory_bytes=1000000000"],
])
def test_table_shows_the_same_numbers_as_json(args):
    report = estimate_json(*args)
    rows, facts = parse_table(ok("estimate", *args))

    for name, value in json_components(report).items():
        assert rows[name][0] == value, name
    total = report["per_device"]["total"]
    capacity = report["capacity_bytes"]
    assert rows["total"][0] == total
    assert rows["capacity"][0] == capacity
    if total <= capacity:
        assert rows["headroom"][0] == capacity - total and "shortfall" not in rows
    else:
        assert rows["shortfall"][0] == total - capacity and "headroom" not in rows
    assert facts["fits"] == ("yes" if report["fits"] else "no")
    assert facts["total"] == report["parameters"]["total"]
    assert facts["active"] == report["parameters"]["active"]


def test_table_gib_and_gb_columns_are_binary_and_decimal():
    rows, _ = parse_table(ok("estimate", "--model", "llama-3.1-70b"))
    assert rows
    for name, (nbytes, gib, gb) in rows.items():
        assert gib == f"{nbytes / GIB:.2f}", name
        assert gb == f"{nbytes / GB:.2f}", name


def test_model_given_by_count_alone():
    # 70e9 parameters stored in bf16 (2 bytes each): 140e9 bytes of weights.
    report = estimate_json("--set", "model_type=custom", "--set", "num_parameters=70000000000",
                           "--set", "torch_dtype=bf16")
    assert report["per_device"]["weights"] == 70_000_000_000 * 2
    assert report["parameters"]["total"] == 70_000_000_000


def test_options_accept_the_equals_form():
    a = ok("estimate", "--model", "llama-3.1-70b", "--gpu", "h100-sxm-80gb", "--json")
    b = ok("estimate", "--model=llama-3.1-70b", "--gpu=h100-sxm-80gb", "--json")
    assert a == b


def test_defaults_are_llama_3_1_8b_on_h100():
    assert ok("estimate", "--json") == ok("estimate", "--model", "llama-3.1-8b",
                                          "--gpu", "h100-sxm-80gb", "--json")
    assert ok("params") == ok("params", "--model", "llama-3.1-8b")


def test_set_reaches_hardware_and_strategy():
    base = estimate_json("--model", "llama-3.1-70b")
    small = estimate_json("--model", "llama-3.1-70b", "--set", "memory_bytes=1000000000")
    assert small["capacity_bytes"] <= 1_000_000_000 < base["capacity_bytes"]
    assert small["fits"] is False
    quant = estimate_json("--model", "llama-3.1-70b", "--set", "weight_format=int4")
    assert quant["per_device"]["weights"] < base["per_device"]["weights"]
    assert quant["parameters"] == base["parameters"]


def test_set_reaches_the_model():
    base = estimate_json("--model", "llama-3.1-8b")
    wider = estimate_json("--model", "llama-3.1-8b", "--set", "vocab_size=256000")
    assert wider["parameters"]["embedding"] > base["parameters"]["embedding"]
    assert wider["per_device"]["weights"] > base["per_device"]["weights"]


# --------------------------------------------------------------------------
# params


def parse_params(text):
    counts = {}
    for line in text.splitlines():
        m = re.match(r"^(\S+)\s+(\d+)\s+\(.*\)$", line)
        if m:
            counts[m.group(1)] = int(m.group(2))
    return counts


@pytest.mark.parametrize("model", ["llama-3.1-8b", "llama-3.1-70b"])
def test_params_match_the_estimate_and_add_up(model):
    counts = parse_params(ok("params", "--model", model))
    report = estimate_json("--model", model)
    assert counts == report["parameters"]
    groups = {k: v for k, v in counts.items() if k not in ("total", "active")}
    assert sum(groups.values()) == counts["total"]


def test_params_takes_model_keys():
    base = parse_params(ok("params"))
    tied = parse_params(ok("params", "--set", "tie_word_embeddings=true"))
    assert tied["lm_head"] == 0
    assert tied["total"] == base["total"] - base["lm_head"]


# --------------------------------------------------------------------------
# listings


def test_models_lists_every_preset_with_its_parameters():
    lines = ok("models").splitlines()
    names = [line.split()[0] for line in lines]
    assert "llama-3.1-8b" in names and "llama-3.1-70b" in names
    assert len(names) == len(set(names))
    for line in lines:
        m = re.match(r"^(\S+)\s+(\S+)\s+(\d+\.\d\d) ([BMK]) params(?: \((\d+\.\d\d) ([BMK]) active\))?$",
                     line)
        assert m, line
        counts = parse_params(ok("params", "--model", m.group(1)))
        scale = {"B": 1e9, "M": 1e6, "K": 1e3}
        assert m.group(3) == f"{counts['total'] / scale[m.group(4)]:.2f}", line
        if m.group(5):
            assert m.group(5) == f"{counts['active'] / scale[m.group(6)]:.2f}", line
        else:
            assert counts["active"] == counts["total"], line


def test_models_groups_presets_by_family():
    rows = [line.split()[:2] for line in ok("models").splitlines()]
    family = dict(rows)
    # the model_type of each checkpoint's config.json on the Hugging Face Hub: meta-llama/Llama-3.1-8B,
    # EleutherAI/pythia-1b, Qwen/Qwen3-30B-A3B, google/gemma-3-4b-pt's text_config, openai-community/gpt2
    assert family["llama-3.1-8b"] == "llama"
    assert family["pythia-1b"] == "gpt_neox"
    assert family["qwen3-30b-a3b"] == "qwen3_moe"
    assert family["gemma-3-4b"] == "gemma3_text"
    assert family["gpt2-xl"] == "gpt2"
    # every family is a model_type choice, and its rows are contiguous
    keys = ok("keys").splitlines()
    block = keys[keys.index("model_type"):]
    choices = next(line for line in block if line.strip().startswith("choices:")).split()[1:]
    seen = []
    for _, fam in rows:
        assert fam in choices, fam
        if not seen or seen[-1] != fam:
            assert fam not in seen, f"{fam} is listed in two groups"
            seen.append(fam)
    # pythia-70m follows falcon-7b in the catalog but is listed with the other gpt_neox presets
    names = [name for name, _ in rows]
    assert names.index("pythia-70m") < names.index("falcon-7b")


def test_gpus_lists_every_preset_with_its_memory():
    lines = ok("gpus").splitlines()
    names = []
    for line in lines:
        m = ROW.match(line)
        assert m, line
        name, nbytes = m.group(1), int(m.group(2))
        names.append(name)
        assert m.group(3) == f"{nbytes / GIB:.2f}" and m.group(4) == f"{nbytes / GB:.2f}"
        report = estimate_json("--gpu", name)
        assert 0 < report["capacity_bytes"] <= nbytes
        # the listed memory is the gpu's memory_bytes: setting it changes nothing
        assert estimate_json("--gpu", name, "--set", f"memory_bytes={nbytes}") == report
    assert "h100-sxm-80gb" in names
    assert len(names) == len(set(names))


def parse_keys(text):
    keys = {}
    current = None
    for line in text.splitlines():
        if not line.startswith(" "):
            current = {"doc": []}
            keys[line.strip()] = current
            continue
        line = line.strip()
        m = re.match(r"^object: (\S+)\s+type: (\S+)\s+bounds: (\S+)\.\.(\S+)\s+default: (\S+)$",
                     line)
        if m and "object" not in current:
            current.update(object=m.group(1), type=m.group(2), lo=m.group(3), hi=m.group(4),
                           default=m.group(5))
        elif line.startswith("choices:") and "choices" not in current:
            current["choices"] = line.split(":", 1)[1].split()
        else:
            current["doc"].append(line)
    return keys


def test_keys_lists_every_key():
    keys = parse_keys(ok("keys"))
    for name in ("hidden_size", "memory_bytes", "weight_format", "model_type", "torch_dtype",
                 "num_parameters", "allocator_reserve_fraction"):
        assert name in keys
    assert keys["hidden_size"]["object"] == "model"
    assert keys["hidden_size"]["type"] == "int"
    assert keys["memory_bytes"]["object"] == "hardware"
    assert keys["weight_format"]["object"] == "strategy"
    assert keys["weight_format"]["type"] == "choice"
    assert keys["allocator_reserve_fraction"]["type"] == "real"
    for choice in ("auto", "fp32", "fp16", "bf16", "int4"):
        assert choice in keys["weight_format"]["choices"]
    assert "custom" in keys["model_type"]["choices"] and "llama" in keys["model_type"]["choices"]
    for name, info in keys.items():
        assert info.get("object") in ("model", "hardware", "strategy"), name
        assert info["type"] in ("int", "bool", "choice", "real", "flags", "list"), name
        if info["type"] == "list":
            continue
        assert float(info["lo"]) <= float(info["hi"]), name
        assert info["doc"] and info["doc"][-1], f"{name} has no doc"
        if info["type"] == "choice":
            assert info["choices"], name
            assert info["default"] in info["choices"], name
        else:
            assert "choices" not in info, name


def test_keys_list_the_gpu_measured_settings():
    """Issue 29: CUDA's total beside the datasheet, cuBLAS's workspace, the transformers release, and the
    runtime overhead's default by stack; the H100 preset carries the total measured on one."""
    keys = parse_keys(ok("keys"))
    assert keys["cuda_total_bytes"]["object"] == "hardware" and keys["cuda_total_bytes"]["default"] == "0"
    assert keys["cublas_workspace_bytes"]["object"] == "hardware"
    assert keys["transformers_version"]["choices"] == ["5.x", "4.x"]
    assert keys["runtime_overhead_bytes"]["default"] == "-1"
    report = estimate_json("--model", "llama-3.2-1b", "--gpu", "h100-sxm-80gb", "--set", "mode=training")
    assert report["per_device"]["workspaces"] == 2 * 32 * 2**20
    assert report["per_device"]["runtime_overhead"] == 768 * 2**20
    out = ok("estimate", "--model", "llama-3.2-1b", "--gpu", "h100-sxm-80gb", "--set", "cuda_total_bytes=85017493504",
             "--set", "memory_bytes=85017493504")
    assert "capacity                       85017493504 bytes" in out


def test_every_listed_choice_is_accepted():
    keys = parse_keys(ok("keys"))
    for choice in keys["weight_format"]["choices"]:
        r = run("estimate", "--set", f"weight_format={choice}", "--json")
        # a format may be unsupported for the model, but never an unknown name
        assert r.returncode in (0, 2), choice
        if r.returncode == 2:
            assert "weight_format" in r.stderr or choice in r.stderr


# --------------------------------------------------------------------------
# bad input: exit 2, one line on stderr naming the culprit, nothing on stdout


@pytest.mark.parametrize("args,culprits", [
    (["estimate", "--set", "no_such_key=1"], ["no_such_key"]),
    (["estimate", "--set", "hidden_size=-5"], ["hidden_size", "-5"]),
    (["estimate", "--set", "weight_format=nf5"], ["weight_format", "nf5"]),
    (["params", "--set", "hidden_size=-5"], ["hidden_size", "-5"]),
    (["estimate", "--model", "no-such-model"], ["no-such-model"]),
    (["params", "--model", "no-such-model"], ["no-such-model"]),
    (["estimate", "--gpu", "no-such-gpu"], ["no-such-gpu"]),
    (["frobnicate"], ["frobnicate"]),
    (["help", "frobnicate"], ["frobnicate"]),
    (["estimate", "--set", "hidden_size"], ["hidden_size"]),
    (["estimate", "--frobnicate"], ["--frobnicate"]),
    (["estimate", "--model"], ["--model"]),
    (["estimate", "--set"], ["--set"]),
    (["estimate", "extra"], ["extra"]),
    (["models", "--gpu", "h100-sxm-80gb"], ["--gpu"]),
    (["params", "--json"], ["--json"]),
    (["params", "--set", "memory_bytes=1"], ["memory_bytes"]),
])
def test_bad_input_exits_2_and_names_the_culprit(args, culprits):
    r = run(*args)
    assert r.returncode == 2, (args, r.returncode, r.stderr)
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("llmmem: error: "), r.stderr
    for culprit in culprits:
        assert culprit in lines[0], (culprit, r.stderr)


def test_bad_input_with_json_prints_no_json():
    r = run("estimate", "--model", "no-such-model", "--json")
    assert r.returncode == 2 and r.stdout == ""


def test_params_of_a_model_given_by_count_alone():
    counts = parse_params(ok("params", "--set", "model_type=custom",
                             "--set", "num_parameters=70000000000"))
    assert counts["total"] == 70_000_000_000 == counts["active"]


def test_incomplete_model_is_bad_input():
    # a family with no shapes: the library names the missing key
    r = run("estimate", "--set", "model_type=llama")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith("llmmem: error: ") and "hidden_size" in r.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_unwritable_output_is_an_internal_failure():
    with open("/dev/full", "w") as full:
        r = subprocess.run([cli_path(), "keys"], stdout=full, stderr=subprocess.PIPE, text=True,
                           timeout=120)
    assert r.returncode == 1
    assert "llmmem: error: " in r.stderr


# ---- checkpoints ---------------------------------------------------------------------------

TINY_LLAMA = ["--set", "model_type=llama", "--set", "hidden_size=8", "--set", "num_hidden_layers=2",
              "--set", "num_attention_heads=2", "--set", "num_key_value_heads=1",
              "--set", "intermediate_size=12", "--set", "vocab_size=16", "--set", "torch_dtype=fp32"]


def write_safetensors(path, tensors):
    """A .safetensors file: 8-byte little-endian header length, the JSON header, zeroed data."""
    header, offset = {}, 0
    for name, dtype, shape in tensors:
        size = {"BF16": 2, "F32": 4}[dtype]
        for dim in shape:
            size *= dim
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little") + text + bytes(offset))
    return offset


def tiny_llama_tensors(layers=2):
    tensors = [("model.embed_tokens.weight", "BF16", [16, 8]), ("model.norm.weight", "BF16", [8]),
               ("lm_head.weight", "BF16", [16, 8])]
    for i in range(layers):
        p = f"model.layers.{i}."
        tensors += [(p + "self_attn.q_proj.weight", "BF16", [8, 8]), (p + "self_attn.k_proj.weight", "BF16", [4, 8]),
                    (p + "self_attn.v_proj.weight", "BF16", [4, 8]), (p + "self_attn.o_proj.weight", "BF16", [8, 8]),
                    (p + "mlp.gate_proj.weight", "BF16", [12, 8]), (p + "mlp.up_proj.weight", "BF16", [12, 8]),
                    (p + "mlp.down_proj.weight", "BF16", [8, 12]), (p + "input_layernorm.weight", "BF16", [8]),
                    (p + "post_attention_layernorm.weight", "BF16", [8]),
                    (p + "self_attn.rotary_emb.inv_freq", "F32", [2])]
    return tensors


def test_safetensors_gives_exact_weight_bytes(tmp_path):
    # 16x8 embedding and head, 8 norm; per layer 8x8 q and o, 4x8 k and v, 3 x 12x8 MLP, 2 x 8 norms
    params = 2 * 16 * 8 + 8 + 2 * (2 * 64 + 2 * 32 + 3 * 96 + 2 * 8)
    write_safetensors(tmp_path / "model.safetensors", tiny_llama_tensors())
    report = estimate_json(*TINY_LLAMA, "--safetensors", str(tmp_path))
    # the checkpoint stores the parameters in bf16 (the rotary buffers are not weights)
    assert report["per_device"]["weights"] == params * 2
    assert report["weights_source"] == "checkpoint"
    # without it, the model's own fp32
    assert estimate_json(*TINY_LLAMA)["per_device"]["weights"] == params * 4
    out = ok("params", *TINY_LLAMA, "--safetensors", str(tmp_path / "model.safetensors"))
    assert "buffers (not parameters)" in out and "checkpoint" in out


def test_safetensors_mismatch_is_a_warning(tmp_path):
    write_safetensors(tmp_path / "model.safetensors", tiny_llama_tensors(layers=1))
    r = run("estimate", *TINY_LLAMA, "--safetensors", str(tmp_path), "--json")
    assert r.returncode == 0, r.stderr
    assert "does not match the model" in r.stderr and "attention" in r.stderr
    json.loads(r.stdout)


def test_safetensors_malformed_is_bad_input(tmp_path):
    (tmp_path / "model.safetensors").write_bytes(b"\x05\x00\x00\x00\x00\x00\x00\x00{bad}")
    r = run("estimate", "--safetensors", str(tmp_path / "model.safetensors"))
    assert r.returncode == 2
    assert "model.safetensors" in r.stderr


DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "configs")


def test_config_gives_the_preset_model():
    from_config = estimate_json("--config", os.path.join(DATA, "llama-2-7b-hf.json"))
    from_preset = estimate_json("--model", "llama-2-7b")
    assert from_config["parameters"] == from_preset["parameters"]
    assert from_config["per_device"] == from_preset["per_device"]


def test_config_errors_are_bad_input(tmp_path):
    bad = tmp_path / "config.json"
    bad.write_text('{"model_type": "rwkv"}')
    r = run("estimate", "--config", str(bad))
    assert r.returncode == 2 and "rwkv" in r.stderr
    r = run("params", "--model", "gpt2", "--config", str(bad))
    assert r.returncode == 2


def test_safetensors_folder_with_its_config(tmp_path):
    write_safetensors(tmp_path / "model.safetensors", tiny_llama_tensors())
    (tmp_path / "config.json").write_text(json.dumps({
        "model_type": "llama", "hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2,
        "num_key_value_heads": 1, "intermediate_size": 12, "vocab_size": 16, "torch_dtype": "float32",
        "tie_word_embeddings": False, "max_position_embeddings": 64}))
    r = run("estimate", "--safetensors", str(tmp_path), "--json")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    params = 2 * 16 * 8 + 8 + 2 * (2 * 64 + 2 * 32 + 3 * 96 + 2 * 8)
    assert json.loads(r.stdout)["per_device"]["weights"] == params * 2


TINY_CONFIG = {"model_type": "llama", "hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2,
               "num_key_value_heads": 1, "intermediate_size": 12, "vocab_size": 16, "torch_dtype": "float32",
               "tie_word_embeddings": False, "max_position_embeddings": 64}


def tiny_folder(folder, shards=1):
    """The tiny Llama as a checkpoint folder with its config.json: model.safetensors, or two shards
    and their model.safetensors.index.json."""
    folder.mkdir(exist_ok=True)
    (folder / "config.json").write_text(json.dumps(TINY_CONFIG))
    tensors = tiny_llama_tensors()
    if shards == 1:
        write_safetensors(folder / "model.safetensors", tensors)
        return folder / "model.safetensors"
    half = len(tensors) // 2
    parts = {"model-00001-of-00002.safetensors": tensors[:half], "model-00002-of-00002.safetensors": tensors[half:]}
    for name, part in parts.items():
        write_safetensors(folder / name, part)
    index = {"weight_map": {t[0]: name for name, part in parts.items() for t in part}}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))
    return folder / "model.safetensors.index.json"


@pytest.mark.parametrize("shards", [1, 2])
def test_a_checkpoint_file_takes_its_model_from_the_config_beside_it(tmp_path, shards):
    """--safetensors DIR/model.safetensors (or DIR/model.safetensors.index.json) is the same job as
    --safetensors DIR: the folder's config.json gives the model, not the default preset."""
    path = tiny_folder(tmp_path / "tiny", shards)
    by_folder = run("estimate", "--safetensors", str(tmp_path / "tiny"), "--json")
    by_file = run("estimate", "--safetensors", str(path), "--json")
    assert by_folder.returncode == 0 and by_folder.stderr == "", by_folder.stderr
    assert by_file.returncode == 0 and by_file.stderr == "", by_file.stderr  # no mismatch warning
    params = 2 * 16 * 8 + 8 + 2 * (2 * 64 + 2 * 32 + 3 * 96 + 2 * 8)
    for r in (by_folder, by_file):
        report = json.loads(r.stdout)
        assert report["per_device"]["weights"] == params * 2
        assert report["parameters"]["total"] == params
    assert json.loads(by_file.stdout)["per_device"] == json.loads(by_folder.stdout)["per_device"]
    # a preset, a config or model_type given by the user still wins over the checkpoint's config.json
    r = run("params", "--model", "llama-3.1-8b", "--safetensors", str(path))
    assert r.returncode == 0 and "does not match the model" in r.stderr


def test_a_checkpoint_without_a_config_needs_the_model_given(tmp_path):
    """No config.json beside the checkpoint: no default model stands in for it (the estimate would
    be the default preset's, with only a mismatch warning)."""
    write_safetensors(tmp_path / "model.safetensors", tiny_llama_tensors())
    for path in (tmp_path, tmp_path / "model.safetensors"):
        r = run("estimate", "--safetensors", str(path))
        assert r.returncode == 2 and r.stdout == "", r.stdout
        assert "config.json" in r.stderr and "--model" in r.stderr, r.stderr
    r = run("estimate", *TINY_LLAMA, "--safetensors", str(tmp_path / "model.safetensors"), "--json")
    assert r.returncode == 0 and r.stderr == "", r.stderr


def test_a_fifo_for_config_json_is_refused_at_once(tmp_path):
    """The CLI reads every file through the library, which refuses a named pipe without opening it
    (issue 34 item 3: a blocking fopen of DIR/config.json waited for a writer forever). The timeout
    guards the suite should it block again."""
    write_safetensors(tmp_path / "model.safetensors", tiny_llama_tensors())
    os.mkfifo(tmp_path / "config.json")
    for command in ("params", "estimate", "serve", "explain", "timeline"):
        try:
            r = subprocess.run([cli_path(), command, "--safetensors", str(tmp_path)], capture_output=True,
                               text=True, timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail(f"llmmem {command} --safetensors blocked on a named pipe for config.json")
        assert r.returncode == 2 and r.stdout == "", (command, r.stdout)
        assert "config.json: is not a regular file (a named pipe)" in r.stderr, r.stderr


def test_a_model_read_from_a_file_is_named_by_its_path(tmp_path):
    """Jobs read from --config, --safetensors or --gguf are named by the path given, in the
    table, the JSON and explain (not "(custom)" and "model")."""
    path = tiny_folder(tmp_path / "tiny")
    config = tmp_path / "tiny" / "config.json"
    gguf = os.path.join(DATA, "..", "gguf", "llama-mixed.gguf")
    for option, given in (("--config", str(config)), ("--safetensors", str(tmp_path / "tiny")),
                          ("--safetensors", str(path)), ("--gguf", gguf)):
        assert f"model:      {given}\n" in run("estimate", option, given).stdout
        assert json.loads(run("estimate", option, given, "--json").stdout)["model"] == given
        assert run("explain", option, given).stdout.startswith(f"{given} on h100-sxm-80gb, ")
        assert f"model: {given}\n" in run("params", option, given).stdout
        assert json.loads(run("serve", option, given, "--json").stdout)["model"] == given
        local = ("--engine", "llama.cpp", "--set", "n_ctx=512")  # the GGUF seed states no context length
        assert json.loads(run("serve", *local, option, given, "--json").stdout)["model"] == given
        if option != "--safetensors":  # fit takes no checkpoint's bytes
            assert json.loads(run("fit", option, given, "--json").stdout)["model"] == given
            assert json.loads(run("fit", *local, option, given, "--json").stdout)["model"] == given
    # a path that JSON must escape, and one longer than a name keeps: its end, after "..."
    odd = tmp_path / 'say "hi"\\'
    odd.mkdir()
    (odd / "config.json").write_text(json.dumps(TINY_CONFIG))
    assert json.loads(ok("fit", "--config", str(odd), "--json"))["model"] == str(odd)
    deep = tmp_path / ("d" * 100) / "checkpoint-final"
    deep.mkdir(parents=True)
    (deep / "config.json").write_text(json.dumps(TINY_CONFIG))
    name = estimate_json("--config", str(deep))["model"]
    assert name.startswith("...") and name.endswith("/checkpoint-final") and str(deep).endswith(name[3:])


def test_gguf_gives_model_and_exact_bytes():
    # tests/fuzz/corpus/gguf/llama-mixed: token_embd 4 rows of 256 in Q4_K (144 bytes per 256),
    # attn_q 256 rows in Q6_K (210), ffn_down 256 rows in Q8_0 (8 blocks of 34), output_norm 256
    # F32, output 4 rows in Q4_0 (8 blocks of 18): ggml-common.h block sizes. A GGUF file must hold
    # its tensor data: tests/data/gguf/llama-mixed.gguf is that seed with its (zero) data
    seed = os.path.join(DATA, "..", "gguf", "llama-mixed.gguf")
    r = run("estimate", "--gguf", seed, "--gpu", "l4", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["per_device"]["weights"] == 4 * 144 + 256 * 210 + 256 * 8 * 34 + 256 * 4 + 4 * 8 * 18
    # the seed holds one layer's q and down only: the cross-check says so
    assert "does not match the model" in r.stderr
    r = run("estimate", "--gguf", "/no/such/file.gguf")
    assert r.returncode == 2 and "/no/such/file.gguf" in r.stderr


# ---- training modes -----------------------------------------------------------------------

TRAINING = ("--model", "llama-2-7b", "--set", "mode=training", "--set", "sequence_length=4096")


def test_training_table_matches_json_and_adds_up():
    text = ok("estimate", *TRAINING)
    rows, facts = parse_table(text)
    doc = estimate_json(*TRAINING)
    per_device = doc["per_device"]
    for name, value in per_device.items():
        assert rows[name][0] == value, name
    assert sum(v for k, v in per_device.items() if k != "total") == per_device["total"]
    peak = doc["training_peak"]
    for name in ("activations_held", "recompute", "logits_held", "logits_transient",
                 "host_activations", "largest_layer"):
        assert rows[name][0] == peak[name], name
    assert f"trainable parameters: {peak['trainable_parameters']} " in text
    # Megatron-LM's 18 bytes per parameter (bf16 weights, fp32 main grads, master and Adam)
    state = sum(per_device[k] for k in ("weights", "gradients", "master_weights", "optimizer_states"))
    assert state == 18 * doc["parameters"]["total"]
    assert peak["trainable_parameters"] == doc["parameters"]["total"]
    # the peak is the loss here: its components are the held activations and the loss's parts
    assert peak["phase"] == "loss"
    assert per_device["activations"] == peak["activations_held"]
    assert per_device["logits"] == peak["logits_held"] + peak["logits_transient"]


def test_full_recompute_moves_the_peak_and_keeps_inputs_only():
    none = estimate_json(*TRAINING)["training_peak"]
    full = estimate_json(*TRAINING, "--set", "recompute=full")
    peak = full["training_peak"]
    # Llama-2-7B: 32 layer inputs of 4096 x 4096 bf16, then the same tensors outside the layers
    outside = none["activations_held"] - 32 * none["largest_layer"]
    assert peak["activations_held"] == 32 * 4096 * 4096 * 2 + outside
    assert peak["recompute"] == none["largest_layer"] - 4096 * 4096 * 2
    assert full["per_device"]["total"] < estimate_json(*TRAINING)["per_device"]["total"]


def test_qlora_and_lora_name_their_trainable_parameters():
    doc = estimate_json("--model", "llama-2-7b", "--set", "mode=lora", "--set", "lora_rank=8",
                        "--set", "lora_targets=q,v")
    # PEFT prints "trainable params: 4,194,304" for r=8 on q_proj, v_proj of Llama-2-7B
    assert doc["training_peak"]["trainable_parameters"] == 4194304
    q = estimate_json("--model", "llama-2-7b", "--gpu", "rtx-4090", "--set", "mode=qlora",
                      "--set", "lora_rank=64", "--set", "lora_targets=q,k,v,o,gate,up,down",
                      "--set", "sequence_length=2048", "--set", "recompute=full")
    assert q["fits"] is True
    assert q["per_device"]["master_weights"] == 0


def test_training_of_a_count_only_model_is_refused():
    r = run("estimate", "--set", "model_type=custom", "--set", "num_parameters=7000000000",
            "--set", "mode=training")
    assert r.returncode == 2
    assert "num_parameters alone" in r.stderr


# ---- parallel layouts ---------------------------------------------------------------------

LAYOUT_70B = ("--model", "llama-3.1-70b", "--set", "mode=training", "--set", "tensor_parallel=8",
              "--set", "pipeline_parallel=4", "--set", "data_parallel=2", "--set", "recompute=selective",
              "--set", "sequence_parallel=true", "--set", "distributed_optimizer=true",
              "--set", "sequence_length=8192")


def test_stages_in_table_and_json_agree():
    text = ok("estimate", *LAYOUT_70B)
    doc = estimate_json(*LAYOUT_70B)
    stages = doc["stages"]
    assert len(stages) == 4
    most = doc["most_loaded_stage"]
    assert stages[most]["total"] == max(s["total"] for s in stages)
    assert stages[most]["total"] == doc["per_device"]["total"]
    for i, stage in enumerate(stages):
        assert sum(v for k, v in stage.items() if k not in ("first_layer", "layers", "total")) == stage["total"]
        row = re.search(rf"^{i}\s+{stage['first_layer']}\+{stage['layers']}\s+(.*)$", text, re.M)
        assert row, f"stage {i} missing from the table"
        assert int(row.group(1).split()[-1]) == stage["total"]
    # only the last stage holds the loss; 1F1B leaves the first stage the most activations
    assert [s["logits"] > 0 for s in stages] == [False, False, False, True]
    assert stages[0]["activations"] > stages[1]["activations"] > stages[2]["activations"]
    # Megatron's distributed optimizer: 6 + 12/d bytes a parameter, d = 2
    trainable = doc["training_peak"]["trainable_parameters"]
    s0 = stages[0]
    assert s0["weights"] + s0["gradients"] + s0["master_weights"] + s0["optimizer_states"] == 12 * trainable
    assert doc["comm_bytes_per_step"]["tensor"] > 0


def test_impossible_layout_names_both_numbers():
    r = run("estimate", "--model", "llama-3.1-8b", "--set", "mode=training", "--set", "tensor_parallel=3")
    assert r.returncode == 2
    assert "num_attention_heads (32) is not divisible by tensor_parallel (3)" in r.stderr


# ---- fit and plan ---------------------------------------------------------------------------

def test_fit_answers_are_the_edges_of_estimate():
    base = ("--model", "llama-3.2-1b", "--gpu", "a100-sxm-40gb", "--set", "mode=training",
            "--set", "sequence_length=2048")
    text = ok("fit", *base)
    batch = int(re.search(r"largest micro_batch_size that fits:\s+(\d+)", text).group(1))
    seq = int(re.search(r"longest sequence_length that fits:\s+(\d+)", text).group(1))
    assert batch > 0 and seq > 0
    assert estimate_json(*base, "--set", f"micro_batch_size={batch}")["fits"] is True
    assert estimate_json(*base, "--set", f"micro_batch_size={batch + 1}")["fits"] is False
    assert estimate_json(*base, "--set", f"sequence_length={seq}")["fits"] is True
    assert estimate_json(*base, "--set", f"sequence_length={seq + 1}")["fits"] is False


def test_fit_of_a_replayed_job_is_the_edge_of_runs():
    """Issue 30: where the allocation tape runs the job, fit's answers are the largest jobs that run
    as PyTorch's caching allocator serves them (the estimate's "runs", the next one does not), and it
    says how far expandable_segments:True goes."""
    base = ("--config", os.path.join(DATA, "..", "gpu", "configs", "llama-3.2-1b.json"), "--gpu", "rtx-4090",
            "--set", "framework=hf_trainer", "--set", "mode=training", "--set", "precision_recipe=pure_bf16",
            "--set", "sequence_length=2048")
    text = ok("fit", *base)
    answers = json.loads(ok("fit", *base, "--json"))
    assert answers["replayed"] is True and "fits: runs as PyTorch's CUDA caching allocator serves it" in text
    seq = answers["sequence_length"]
    assert estimate_json(*base, "--set", f"sequence_length={seq}")["allocator"]["runs"] is True
    beyond = estimate_json(*base, "--set", f"sequence_length={seq + 1}")["allocator"]
    assert beyond["runs"] is False
    longer = answers["expandable_segments"]["sequence_length"]
    assert longer > seq and f"longest sequence_length that fits:   {seq} ({longer} with expandable_segments:True)" in text
    assert beyond["runs_with_expandable_segments"] is True
    on = base + ("--set", "expandable_segments=true")
    assert estimate_json(*on, "--set", f"sequence_length={longer}")["allocator"]["runs"] is True
    assert estimate_json(*on, "--set", f"sequence_length={longer + 1}")["allocator"]["runs"] is False
    # a job the tape does not run: no replay, the estimate's bytes
    assert "replayed" not in json.loads(ok("fit", "--model", "llama-3.2-1b", "--gpu", "a100-sxm-40gb", "--json"))


def test_fit_json_gives_the_answers_of_the_text():
    base = ("--model", "llama-3.1-70b", "--gpu", "a100-sxm-40gb", "--set", "mode=training",
            "--set", "sequence_length=2048", "--devices", "64")
    text = ok("fit", *base)
    answers = json.loads(ok("fit", *base, "--json"))
    assert answers["micro_batch_size"] == 0 and "micro_batch_size that fits:  0 (none)" in text
    assert answers["sequence_length"] == 0 and answers["weight_format"] is None
    assert "weight_format:      none fits" in text
    devices = int(re.search(r"fewest devices with a layout that fits: (\d+)", text).group(1))
    assert answers["min_devices"] == devices > 1 and answers["max_devices"] == 64
    small = json.loads(ok("fit", "--model", "llama-3.2-1b", "--gpu", "a100-sxm-40gb", "--json"))
    assert small["min_devices"] == 1 and small["weight_format"] == "bf16" and small["micro_batch_size"] > 0


def test_plan_lists_layouts_that_fit_cheapest_first():
    args = ("--model", "llama-3.1-70b", "--devices", "16", "--set", "mode=training",
            "--set", "global_batch_size=32", "--set", "sequence_length=4096")
    doc = json.loads(ok("plan", *args, "--json", "--top", "0"))
    layouts = doc["layouts"]
    assert doc["fitting"] == len(layouts) > 0
    costs = [l["cost_seconds"] for l in layouts]
    assert costs == sorted(costs)
    for layout in layouts[:5]:
        sets = []
        for key in ("tensor_parallel", "pipeline_parallel", "data_parallel", "context_parallel",
                    "expert_parallel", "virtual_pipeline", "micro_batch_size"):
            sets += ["--set", f"{key}={layout[key]}"]
        assert layout["tensor_parallel"] * layout["pipeline_parallel"] * layout["data_parallel"] * \
            layout["context_parallel"] == 16
        assert layout["sharding"] in ("none", "zero1", "zero2", "zero3", "fsdp", "distributed_optimizer")
    text = ok("plan", *args, "--top", "3")
    assert len([l for l in text.splitlines() if re.match(r"^\s+[123]\s", l)]) == 3


def test_plan_needs_devices():
    r = run("plan", "--model", "llama-3.1-8b")
    assert r.returncode == 2
    assert "--devices" in r.stderr


# ---- explain ----------------------------------------------------------------------------------

EXPLAINED = [
    LAYOUT_70B,
    ("--model", "llama-2-7b", "--gpu", "rtx-4090", "--set", "mode=qlora", "--set", "lora_rank=64",
     "--set", "lora_targets=q,k,v,o,gate,up,down", "--set", "sequence_length=2048", "--set", "recompute=full"),
    ("--model", "deepseek-v3", "--set", "mode=training", "--set", "tensor_parallel=8", "--set", "pipeline_parallel=4",
     "--set", "pipeline_first_stage_layers=16", "--set", "data_parallel=8", "--set", "context_parallel=2",
     "--set", "expert_parallel=16", "--set", "distributed_optimizer=true", "--set", "recompute=full"),
    ("--model", "llama-2-7b", "--set", "mode=training", "--set", "precision_recipe=deepspeed",
     "--set", "data_parallel=8", "--set", "zero_stage=3", "--set", "offload_optimizer=cpu"),
    ("--model", "qwen2.5-7b",),
]


@pytest.mark.parametrize("args", EXPLAINED)
def test_explained_lines_add_up_to_the_total(args):
    text = ok("explain", *args)
    total_json = estimate_json(*args)["per_device"]["total"]
    lines = [l for l in text.splitlines()[2:] if l.strip()]
    # the estimate's lines end at its total; the allocator's replay follows (or why there is none)
    ends = next(i for i, l in enumerate(lines) if l.startswith("total "))
    assert lines[ends + 1].startswith("allocator         not replayed: the allocation tape does not run ")
    lines = lines[:ends + 1]
    amounts = {}
    for line in lines:
        name = line.split()[0]
        m = re.search(r"= (\d+) bytes", line)
        assert m, f"no '= N bytes' in: {line}"
        amounts[name] = int(m.group(1))
    total = amounts.pop("total")
    assert total == total_json
    assert sum(amounts.values()) == total
    # the products on a line are the line's own arithmetic: "P params x b bytes / d" where shown
    for line in lines:
        m = re.match(r"^\S+\s+(\d+) (?:trained )?params x (\d+) bytes(?: / (\d+) \()?(?:.*?)= (\d+) bytes", line)
        if m and "routed experts" not in line:
            p, b, d, result = int(m.group(1)), int(m.group(2)), int(m.group(3) or 1), int(m.group(4))
            assert -(-p * b // d) == result, line


def test_explain_says_why_reserved_exceeds_allocated():
    """Issue 30: a job the allocation tape runs (Llama-3.2-1B's H100 job t_llama1b_sdpa, on a 24 GiB
    card) is explained by the allocator's replay: the reserved peak is the blocks handed out plus the
    free blocks of the segments then, and the job runs when that plus the memory outside the
    allocator is within the device's total; the same numbers as the JSON report's."""
    args = ("--config", os.path.join(DATA, "..", "gpu", "configs", "llama-3.2-1b.json"), "--gpu", "rtx-4090",
            "--set", "framework=hf_trainer", "--set", "mode=training", "--set", "precision_recipe=pure_bf16",
            "--set", "micro_batch_size=2", "--set", "sequence_length=2048")
    text = ok("explain", *args)
    alloc = estimate_json(*args)["allocator"]
    m = re.search(r"^reserved_peak .*: (\d+) bytes in blocks handed out \+ (\d+) in free blocks .* = (\d+) bytes", text, re.M)
    assert m, text
    handed, free, reserved = map(int, m.groups())
    assert (handed + free, free, reserved) == (reserved, alloc["free_at_reserved_peak"], alloc["reserved_peak"])
    assert re.search(r"^allocated_peak .* = %d bytes" % alloc["allocated_peak"], text, re.M)
    m = re.search(r"^runs +reserved peak \+ outside \(runtime_overhead_bytes\) = (\d+) bytes of the device's (\d+): runs$",
                  text, re.M)
    assert m and int(m.group(1)) == reserved + alloc["outside"] and int(m.group(2)) == 24 * GIB, text


def test_timeline_allocator_gives_reserved_beside_allocated():
    """Issue 30: `timeline --allocator` is the job as PyTorch's caching allocator serves it: each
    moment's allocated bytes by component and the reserved segments beside them (both with the memory
    outside the allocator), two training steps; its highest points are the estimate's allocator
    peaks; a job the tape does not run is refused with the reason."""
    args = ("--config", os.path.join(DATA, "..", "gpu", "configs", "llama-3.2-1b.json"), "--gpu", "rtx-4090",
            "--set", "framework=hf_trainer", "--set", "mode=training", "--set", "precision_recipe=pure_bf16",
            "--set", "micro_batch_size=2", "--set", "sequence_length=2048")
    points = json.loads(ok("timeline", "--allocator", "--json", *args))["points"]
    alloc = estimate_json(*args)["allocator"]
    assert {p["step"] for p in points} == {0, 1}
    assert max(p["reserved"] for p in points) == alloc["reserved_peak"] + alloc["outside"]
    assert max(p["total"] for p in points) == alloc["allocated_peak"] + alloc["outside"]
    assert all(sum(p["bytes"].values()) == p["total"] <= p["reserved"] for p in points)
    text = ok("timeline", "--allocator", *args)
    assert "PyTorch's CUDA caching allocator, the job replayed" in text
    assert re.search(r"^\s*moment\s+step\s+layer\s+state .* allocated\s+reserved$", text, re.M)
    assert "reserved: %d bytes" % (alloc["reserved_peak"] + alloc["outside"]) in text
    r = run("timeline", "--allocator", "--model", "llama-3.1-70b", "--set", "tensor_parallel=8")
    assert r.returncode != 0 and "allocation tape does not run" in r.stderr
    assert "allocator" not in json.loads(ok("timeline", "--json", *args))["points"][0]


def test_estimate_explain_follows_the_table():
    text = ok("estimate", "--model", "llama-3.1-8b", "--explain")
    assert "fits: yes" in text
    assert re.search(r"^kv_cache\s+131072 bytes a token x 4096 tokens x 1 sequences = 536870912 bytes", text, re.M)


def test_json_and_explain_together_are_refused():
    r = run("estimate", "--json", "--explain")
    assert r.returncode == 2
    assert "--json or --explain" in r.stderr


def test_config_with_python_infinity(tmp_path):
    # nvidia's Nemotron-H configs hold "time_step_limit": [0.0, Infinity], as Python's json writes
    # float("inf"); a field the reader needs names the token
    base = ('{"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, '
            '"vocab_size": 100, "intermediate_size": 128, %s}')
    (tmp_path / "config.json").write_text(base % '"time_step_limit": [0.0, Infinity]')
    assert parse_params(ok("params", "--config", str(tmp_path)))["total"] > 0
    (tmp_path / "config.json").write_text(base % '"num_key_value_heads": NaN')
    r = run("params", "--config", str(tmp_path))
    assert r.returncode != 0
    assert "num_key_value_heads: expected an integer, got NaN" in r.stderr


def test_config_of_an_unknown_decoder_names_the_closest_family(tmp_path):
    # allenai/OLMoE-1B-7B-0924's fields under a model_type the table lacks
    (tmp_path / "config.json").write_text(
        '{"model_type": "unlisted_olmoe", "hidden_size": 2048, "intermediate_size": 1024, '
        '"num_hidden_layers": 16, "num_experts": 64, "num_experts_per_tok": 8, "num_attention_heads": 16, '
        '"num_key_value_heads": 16, "vocab_size": 50304}')
    r = run("params", "--config", str(tmp_path))
    assert r.returncode != 0
    assert "closest to qwen3_moe (MoE: num_experts)" in r.stderr
    assert "--set model_type=qwen3_moe --set hidden_size=2048" in r.stderr
