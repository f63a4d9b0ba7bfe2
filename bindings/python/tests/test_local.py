"""Local inference (llama.cpp, ollama): llmmem.local_estimate(), llmmem.local_solve(), the Local
result, and the list key tensor_split.

Every number is compared with one derived here from the model's public architecture, with the
C library's own JSON (`llmmem serve --engine llama.cpp --json`, `llmmem fit --engine ...`), or
with another estimate, never with a stored one.
"""
import json

import pytest

import llmmem
from conftest import cli_error_message, run_cli
from conftest import test_data as data_dir

GGUF = "gguf/llama-mixed.gguf"


def one_gpu(name="h100-sxm-80gb"):
    return llmmem.Hardware.from_preset(name, devices_per_node=1)


def cli_local(command, *args):
    out = run_cli(command, "--engine", "llama.cpp", *args)
    return out


def test_kv_bytes_of_llama_31_8b_with_a_q8_0_k_cache_as_derived_by_hand():
    model = llmmem.Model.from_preset("llama-3.1-8b")
    # the public architecture of Llama 3.1 8B (config.json): 32 layers, 8 KV heads of 128
    assert model["num_hidden_layers"] == 32
    assert model["num_key_value_heads"] == 8
    assert model["hidden_size"] // model["num_attention_heads"] == 128  # head_dim
    layers, kv_heads, head_dim, cells = 32, 8, 128, 32768
    row = kv_heads * head_dim  # 1024 elements of K (and of V) per cell and layer
    k_bytes = row // 32 * 34  # q8_0: 34 bytes per block of 32
    v_bytes = row * 2  # f16
    expected = (k_bytes + v_bytes) * cells * layers
    assert expected == 3136 * 32768 * 32

    local = llmmem.local_estimate(model, one_gpu(), llmmem.Strategy(n_ctx=cells, cache_type_k="q8_0"))
    assert local.kv_bytes == local.get("kv_bytes") == local.values["kv_bytes"] == expected
    gpu, host = local.devices
    assert gpu["kv"] == expected and host["kv"] == 0  # every layer's cache on the GPU
    assert gpu["layers"] == 32 and not gpu["host"] and host["host"] and host["name"] == "CPU"
    assert local.n_ctx == local.kv_size == cells
    assert local.gpus == 1 and local.n_gpu_layers == 33
    assert local.engine == "llama.cpp" and local.flash_attn is True and local.fits is True
    d = local.to_dict()
    assert d["cache_type_k"] == "q8_0" and d["cache_type_v"] == "f16"


def test_to_dict_is_the_json_and_equals_the_tool():
    model, hw = llmmem.Model.from_preset("llama-3.1-8b"), one_gpu()
    local = llmmem.local_estimate(model, hw, llmmem.Strategy(n_ctx=32768, cache_type_k="q8_0"))
    d = local.to_dict()
    assert d == json.loads(local.to_json())
    assert local.to_dict() is not local.to_dict()
    assert list(local.values) == llmmem.local_value_names()
    assert local.values == {name: d[name] for name in llmmem.local_value_names()}
    assert local.devices == d["devices"]
    assert [k for k in local.devices[0] if k in llmmem.local_buffer_names()] == llmmem.local_buffer_names()
    for dev in local.devices:
        assert dev["total"] == sum(dev[name] for name in llmmem.local_buffer_names())
    cli = cli_local("serve", "--model", "llama-3.1-8b", "--gpu", "h100-sxm-80gb", "--set", "devices_per_node=1",
                    "--set", "n_ctx=32768", "--set", "cache_type_k=q8_0", "--json")
    assert cli.returncode == 0, cli.stderr
    assert local.to_json() == cli.stdout


def test_values_as_attributes_and_by_name():
    local = llmmem.local_estimate(llmmem.Model.from_preset("llama-3.1-8b"), one_gpu())
    for name in llmmem.local_value_names():
        assert getattr(local, name) == local.get(name) == local.values[name]
        assert name in dir(local)
    with pytest.raises(AttributeError):
        local.no_such_value
    with pytest.raises(llmmem.NotFoundError, match="no value 'no_such_value'"):
        local.get("no_such_value")


@pytest.mark.parametrize("question", ["max_gpu_layers", "max_context", "max_parallel"])
def test_solver_answer_fits_and_one_more_does_not(question):
    model = llmmem.Model.from_preset("llama-3.1-8b")
    # a host with its RAM stated: the layers left on the CPU are checked too (an unknown host makes
    # such a layout's verdict unknown, not a fit)
    hw = one_gpu("rtx-4090").set(host_memory_bytes="64GiB")
    # a context long enough that not every layer fits on 24 GB; 8192 per sequence for n_parallel
    base = {"max_gpu_layers": {"n_ctx": 131072}, "max_context": {}, "max_parallel": {"n_ctx": 8192}}[question]
    strategy = llmmem.Strategy(**base)
    answer = llmmem.local_solve(question, model, hw, strategy)
    assert answer > 0

    def at(value):
        s = strategy.copy()
        s["fit"] = False  # the solver's layouts: llama.cpp's --fit would move layers to the CPU itself
        if question == "max_gpu_layers":
            s["n_gpu_layers"] = value
        elif question == "max_context":
            s["n_ctx"] = value
        else:  # n_parallel sequences of the strategy's n_ctx each
            s.set(n_parallel=value, n_ctx=base["n_ctx"] * value)
        return llmmem.local_estimate(model, hw, s)

    assert at(answer).fits
    assert not at(answer + 1).fits
    assert at(answer + 1).shortfall > 0
    # the tool's `fit --engine llama.cpp` gives the same answer
    sets = [x for k, v in base.items() for x in ("--set", f"{k}={v}")]
    cli = cli_local("fit", "--model", "llama-3.1-8b", "--gpu", "rtx-4090", "--set", "devices_per_node=1",
                    "--set", "host_memory_bytes=64GiB", *sets, "--json")
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout)[question] == answer


def test_layers_in_a_host_of_unknown_ram_are_not_a_fit():
    """Issue 28: a discrete GPU's preset states no host RAM; layers left on the CPU then make the
    verdict unknown (``host_unknown``), not a fit; a stated RAM is checked."""
    model = llmmem.Model.from_preset("llama-3.1-70b")
    local = llmmem.local_estimate(model, one_gpu("rtx-4090"))
    assert local.devices[-1]["layers"] > 0 and local.devices[-1]["capacity"] == 0
    assert local.fits is False and local.host_unknown is True and local.shortfall == 0
    assert local.values["host_unknown"] is True and local.to_dict()["host_unknown"] is True
    assert "fits=unknown:" in repr(local) and "fit unknown: the host holds part of the layers" in repr(local)
    assert "fit unknown" in local._repr_html_()
    local = llmmem.local_estimate(model, one_gpu("rtx-4090").set(host_memory_bytes="256GiB"))
    assert local.fits is True and local.host_unknown is False


def test_solver_questions_and_bad_question():
    assert llmmem.local_questions() == ["max_gpu_layers", "max_context", "max_parallel"]
    m, hw = llmmem.Model.from_preset("llama-3.1-8b"), one_gpu()
    with pytest.raises(llmmem.InvalidArgumentError, match="question 'max_batch' is not one of max_gpu_layers"):
        llmmem.local_solve("max_batch", m, hw)
    with pytest.raises(llmmem.InvalidTypeError):
        llmmem.local_solve(0, m, hw)


def test_tensor_split_round_trip_as_text_and_as_list():
    for value in ("3,1", "3/1", [3, 1], (3, 1), [3.0, 1.0], ["3", "1"]):
        s = llmmem.Strategy(tensor_split=value)
        got = s["tensor_split"]
        assert got == [3.0, 1.0] and all(isinstance(v, float) for v in got), value
    s = llmmem.Strategy()
    assert s["tensor_split"] == [] and llmmem.key("tensor_split").type == "list"
    s["tensor_split"] = [0.6, 0.4, 0]
    assert s.get("tensor_split") == [0.6, 0.4, 0.0]
    assert s.copy()["tensor_split"] == [0.6, 0.4, 0.0]
    s["tensor_split"] = []
    assert s["tensor_split"] == []
    s["tensor_split"] = "1,2"
    s["tensor_split"] = ""
    assert s["tensor_split"] == []
    assert repr(llmmem.Strategy(tensor_split=[3, 1])) == "llmmem.Strategy(tensor_split=[3, 1])"


def test_tensor_split_places_layers_as_the_text_form_does():
    model = llmmem.Model.from_preset("llama-3.1-8b")
    hw = llmmem.Hardware.from_preset("rtx-4090", devices_per_node=2)
    by_list = llmmem.local_estimate(model, hw, llmmem.Strategy(tensor_split=[3, 1]))
    by_text = llmmem.local_estimate(model, hw, llmmem.Strategy(tensor_split="3,1"))
    assert by_list.to_json() == by_text.to_json()
    gpu0, gpu1, host = by_list.devices
    assert gpu0["layers"] > gpu1["layers"] > 0 and gpu0["layers"] + gpu1["layers"] == 32
    mirrored = llmmem.local_estimate(model, hw, llmmem.Strategy(tensor_split=[1, 3])).devices
    assert 0 < mirrored[0]["layers"] < mirrored[1]["layers"]


def test_tensor_split_errors_carry_the_library_message():
    with pytest.raises(llmmem.OutOfRangeError, match="tensor_split: every value is 0"):
        llmmem.Strategy(tensor_split=[0, 0])
    with pytest.raises(llmmem.OutOfRangeError, match="tensor_split: value 2 \\(-1\\) is not a finite number"):
        llmmem.Strategy(tensor_split=[1, -1])
    with pytest.raises(llmmem.OutOfRangeError, match="tensor_split has 17 values; at most 16"):
        llmmem.Strategy(tensor_split=[1] * 17)
    with pytest.raises(llmmem.OutOfRangeError, match="not a finite number"):
        llmmem.Strategy(tensor_split=[1, 10**400])
    with pytest.raises(llmmem.InvalidArgumentError, match="tensor_split is a list"):
        llmmem.Strategy(tensor_split=3)
    with pytest.raises(llmmem.InvalidArgumentError, match="tensor_split: 'x' in '3,x' is not a number"):
        llmmem.Strategy(tensor_split="3,x")
    with pytest.raises(llmmem.InvalidTypeError):
        llmmem.Strategy(tensor_split=[3, "1"])
    with pytest.raises(llmmem.InvalidTypeError):
        llmmem.Strategy(micro_batch_size=[3, 1])  # not a list key
    # more proportions than GPUs: the estimate says so
    with pytest.raises(llmmem.Error, match="tensor_split"):
        llmmem.local_estimate(llmmem.Model.from_preset("llama-3.1-8b"), one_gpu(),
                              llmmem.Strategy(tensor_split=[3, 1]))


def test_errors_raise_the_library_message():
    model, hw = llmmem.Model.from_preset("llama-3.1-8b"), one_gpu()
    bad = llmmem.Strategy(cache_type_v="q4_0", flash_attn="off")
    with pytest.raises(llmmem.Error, match="needs flash attention") as err:
        llmmem.local_estimate(model, hw, bad)
    cli = cli_local("serve", "--model", "llama-3.1-8b", "--gpu", "h100-sxm-80gb", "--set", "devices_per_node=1",
                    "--set", "cache_type_v=q4_0", "--set", "flash_attn=off")
    assert cli.returncode == 2
    assert str(err.value) == cli_error_message(cli.stderr)
    with pytest.raises(llmmem.Error, match="needs flash attention"):
        llmmem.local_solve("max_context", model, hw, bad)
    with pytest.raises(llmmem.Error, match="engine vllm"):
        llmmem.local_estimate(model, hw, llmmem.Strategy(engine="vllm"))
    with pytest.raises(llmmem.InvalidTypeError, match="gguf must be an llmmem.Checkpoint"):
        llmmem.local_estimate(model, hw, None, gguf="model.gguf")
    with pytest.raises(llmmem.InvalidTypeError):
        llmmem.local_estimate(None, hw)
    with pytest.raises(llmmem.InvalidTypeError, match="llmmem.Local is made by llmmem.local_estimate"):
        llmmem.Local(object())


def test_ollama_resolves_its_defaults():
    local = llmmem.local_estimate(llmmem.Model.from_preset("llama-3.1-8b"), one_gpu(),
                                  llmmem.Strategy(engine="ollama", num_ctx=8192, num_parallel=2))
    assert local.engine == "ollama" and local.to_dict()["engine"] == "ollama"
    assert local.n_seq_max == 2 and local.n_ctx_seq == 8192


def test_gguf_checkpoint_gives_the_model_buffers():
    path = data_dir() / GGUF
    ck = llmmem.Checkpoint.from_gguf(path)
    model = ck.model()
    hw = one_gpu("rtx-4090")
    # the test file has no context_length: n_ctx is given (llama.cpp's 0 means the file's)
    strategy = llmmem.Strategy(n_ctx=4096)
    local = llmmem.local_estimate(model, hw, strategy, gguf=ck)
    # every tensor of the file is in a model buffer of some device
    assert sum(dev["model"] for dev in local.devices) == ck.total_bytes
    cli = cli_local("serve", "--gguf", str(path), "--gpu", "rtx-4090", "--set", "devices_per_node=1",
                    "--set", "n_ctx=4096", "--json")
    assert cli.returncode == 0, cli.stderr
    assert local.to_json() == cli.stdout
    cli_fit = cli_local("fit", "--gguf", str(path), "--gpu", "rtx-4090", "--set", "devices_per_node=1",
                        "--set", "n_ctx=4096", "--json")
    assert cli_fit.returncode == 0, cli_fit.stderr
    for question in llmmem.local_questions():
        assert llmmem.local_solve(question, model, hw, strategy, gguf=ck) == json.loads(cli_fit.stdout)[question]
    ck.close()
    with pytest.raises(llmmem.InvalidArgumentError, match="Checkpoint is closed"):
        llmmem.local_estimate(model, hw, gguf=ck)


def test_repr_and_html_table():
    local = llmmem.local_estimate(llmmem.Model.from_preset("llama-3.1-8b"), one_gpu(),
                                  llmmem.Strategy(n_ctx=32768, cache_type_k="q8_0"))
    text = repr(local)
    assert text.startswith("<llmmem.Local model='llama-3.1-8b' hardware='h100-sxm-80gb' engine='llama.cpp' fits=True")
    for dev in local.devices:
        assert dev["name"] in text and f"{dev['total']:,}" in text and f"{dev['kv']:,}" in text
        assert f"{dev['total'] / 2**30:.2f}" in text
    assert "GiB" in text and "GB" in text and "q8_0/f16" in text
    html = local._repr_html_()
    assert html.startswith("<div class='llmmem-local'>") and html.endswith("</div>")
    for dev in local.devices:
        assert f"<td>{dev['name']}" in html and f"{dev['total']:,}" in html
    for name in llmmem.local_buffer_names():
        assert f"<th>{name}</th>" in html
    assert "<td>kv_bytes</td>" in html and "fits" in html
    tight = llmmem.local_estimate(llmmem.Model.from_preset("llama-3.1-8b"), one_gpu("rtx-4090"),
                                  llmmem.Strategy(n_ctx=131072, n_gpu_layers=33))  # every layer kept
    assert not tight.fits and f"short by {tight.shortfall:,} bytes" in repr(tight)
    assert "does not fit" in tight._repr_html_()
