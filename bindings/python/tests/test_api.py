"""The pythonic layer: settings by name, values read back, reports, presentation, threads."""
import json
import subprocess
import sys
import threading
import warnings

import pytest

import llmmem


def test_version_matches_library():
    from llmmem import core

    assert llmmem.__version__ == llmmem.version() == core.llmmem_version_string()
    major, minor, patch = (int(x) for x in llmmem.version().split("."))
    assert core.llmmem_version_number() == major * 10000 + minor * 100 + patch


def test_settings_round_trip_by_kind():
    s = llmmem.Strategy(mode="lora", lora_rank=16, lora_targets=["q", "v", "o"], flash_attention=False,
                        micro_batch_size=4.0)
    assert s["mode"] == "lora"
    assert s["lora_rank"] == 16
    assert s["lora_targets"] == "q,v,o"
    assert s["flash_attention"] is False
    assert s["micro_batch_size"] == 4
    s["lora_targets"] = "q,k"
    assert s.get("lora_targets") == "q,k"
    hw = llmmem.Hardware.from_preset("h100-sxm-80gb", count=4, allocator_reserve_fraction=0.25)
    assert hw["devices_per_node"] == 4
    assert hw["allocator_reserve_fraction"] == 0.25
    hw.set(memory_bytes="80GB")
    assert hw.memory_bytes == 80 * 10**9
    m = llmmem.Model(model_type="custom", num_parameters="7e9", torch_dtype="bf16")
    assert m["num_parameters"] == 7 * 10**9
    assert m["torch_dtype"] == "bf16"
    assert m["model_type"] == "custom"


def test_every_key_reads_back_through_its_object():
    """Generic by key name: every key the library lists can be read on its object."""
    objects = {
        "model": llmmem.Model.from_preset("llama-3.1-8b"),
        "hardware": llmmem.Hardware.from_preset("h100-sxm-80gb"),
        "strategy": llmmem.Strategy(),
    }
    for k in llmmem.keys():
        value = objects[k.object][k.name]
        if k.type == "real":
            assert isinstance(value, float)
        elif k.type == "bool":
            assert isinstance(value, bool)
        elif k.type in ("choice", "flags"):
            assert isinstance(value, (str, int))
        elif k.type == "list":
            assert isinstance(value, list) and all(isinstance(v, float) for v in value)
        else:
            assert isinstance(value, int)
    assert {k.object for k in llmmem.keys("strategy")} == {"strategy"}


def test_every_choice_round_trips():
    s = llmmem.Strategy()
    for k in llmmem.keys("strategy"):
        if k.type == "choice":
            for choice in k.choices:
                s[k.name] = choice
                assert s[k.name] == choice
            s[k.name] = k.default


def test_copy_is_independent():
    a = llmmem.Strategy(mode="training")
    b = a.copy()
    b["mode"] = "inference"
    assert a["mode"] == "training" and b["mode"] == "inference"
    m = llmmem.Model.from_preset("gpt2")
    assert m.copy().total_parameters == m.total_parameters


def test_report_components_and_json(llama7b, h100):
    r = llmmem.estimate(llama7b, h100, llmmem.Strategy(mode="training"))
    d = r.to_dict()
    assert list(r.components) == llmmem.component_names()
    assert sum(r.components.values()) == r.total_bytes == d["per_device"]["total"]
    assert r.weights == d["per_device"]["weights"] > 0
    assert r.optimizer_states == d["per_device"]["optimizer_states"] > 0
    assert "optimizer_states" in dir(r)
    with pytest.raises(AttributeError):
        r.no_such_component
    assert r.to_dict() is not r.to_dict()  # a fresh dict each time
    assert json.loads(r.to_json()) == d
    assert r.peak_phase in ("loss", "recompute")


def test_estimate_defaults_to_inference(llama7b, h100):
    assert llmmem.estimate(llama7b, h100).to_json() == llmmem.estimate(llama7b, h100, llmmem.Strategy()).to_json()


def test_repr_labels_gib_and_gb(llama7b, h100):
    r = llmmem.estimate(llama7b, h100)
    text = repr(r)
    assert "GiB" in text and "GB" in text
    assert f"{r.total_bytes:,}" in text
    assert f"{r.total_bytes / 2**30:.2f}" in text and f"{r.total_bytes / 1e9:.2f}" in text
    assert "llama-2-7b" in text and "fits=True" in text
    assert "GiB" in repr(h100) and "GB" in repr(h100)
    assert f"{llama7b.total_parameters:,} parameters" in repr(llama7b)
    assert repr(llmmem.Strategy(mode="training", micro_batch_size=2)) == \
        "llmmem.Strategy(mode='training', micro_batch_size=2)"


def test_html_table_for_notebooks(llama7b, h100):
    r = llmmem.estimate(llama7b, h100, llmmem.Strategy(mode="training"))
    html = r._repr_html_()
    assert html.startswith("<table") and html.endswith("</table>")
    for name, value in r.components.items():
        if value:
            assert f"<td>{name}</td>" in html and f"{value:,}" in html
    assert "GiB" in html and "GB" in html and "does not fit" in html


def test_importing_llmmem_does_not_import_matplotlib():
    code = "import sys, llmmem; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_plot_writes_png(tmp_path, llama7b, h100):
    pytest.importorskip("matplotlib", reason="matplotlib is not installed (python3-matplotlib)")
    r = llmmem.estimate(llama7b, h100, llmmem.Strategy(mode="training"))
    path = tmp_path / "breakdown.png"
    ax = r.plot(path=path)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "weights" in labels and "capacity" in labels
    with pytest.raises(ValueError, match="unit"):
        r.plot(unit="furlongs")


def test_concurrent_estimates_equal_serial(llama7b, h100):
    """Many threads estimate from shared inputs (without the GIL); each equals the serial one."""
    strategy = llmmem.Strategy(mode="training", recompute="selective")
    expected = llmmem.estimate(llama7b, h100, strategy).to_json()
    bad = []

    def work():
        for _ in range(300):
            if llmmem.estimate(llama7b, h100, strategy).to_json() != expected:
                bad.append(1)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not bad


def test_setter_beside_estimates_is_safe(llama7b, h100):
    """A thread changing the strategy while others estimate from it: every report is one of
    the two settings' reports (setters wait for running estimates)."""
    strategy = llmmem.Strategy(mode="training")
    a = llmmem.estimate(llama7b, h100, llmmem.Strategy(mode="training", micro_batch_size=1)).to_json()
    b = llmmem.estimate(llama7b, h100, llmmem.Strategy(mode="training", micro_batch_size=2)).to_json()
    stop = threading.Event()
    seen = set()

    def flip():
        n = 0
        while not stop.is_set():
            strategy["micro_batch_size"] = 1 + n % 2
            n += 1

    def work():
        for _ in range(400):
            seen.add(llmmem.estimate(llama7b, h100, strategy).to_json())

    flipper = threading.Thread(target=flip)
    flipper.start()
    workers = [threading.Thread(target=work) for _ in range(4)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    stop.set()
    flipper.join()
    assert seen <= {a, b}


def test_model_from_config_text_equals_file():
    from conftest import test_data

    path = test_data() / "configs" / "qwen3-8b.json"
    a = llmmem.Model.from_hf_config(path)
    b = llmmem.Model.from_hf_config_text(path.read_text())
    c = llmmem.Model.from_hf_config_text(path.read_bytes())
    assert a.parameters == b.parameters == c.parameters
    assert a.total_parameters > 0


def test_checkpoint_from_safetensors_header():
    header = json.dumps({
        "__metadata__": {"format": "pt"},
        "model.embed_tokens.weight": {"dtype": "BF16", "shape": [8, 4], "data_offsets": [0, 64]},
        "model.norm.weight": {"dtype": "F32", "shape": [4], "data_offsets": [64, 80]},
    }).encode()
    data = len(header).to_bytes(8, "little") + header
    ck = llmmem.Checkpoint.from_safetensors_bytes(data)
    assert len(ck) == 2
    tensors = {t.name: t for t in ck.tensors()}
    assert tensors["model.embed_tokens.weight"].bytes == 64
    assert tensors["model.embed_tokens.weight"].elements == 32
    assert tensors["model.norm.weight"].dtype == "F32"
    assert ck.total_bytes == 80
    assert ck.dtypes() == {"BF16": {"elements": 32, "bytes": 64}, "F32": {"elements": 4, "bytes": 16}}
    assert sum(ck.role_bytes().values()) == ck.total_bytes
    assert "2 tensors" in repr(ck)


def test_model_from_a_safetensors_file_takes_the_config_beside_it(tmp_path):
    """Model.from_safetensors of the folder, its model.safetensors or an index: the same model,
    from the folder's config.json, named by the path given (issue 28: a file's path was read as
    its config and failed)."""
    config = {"model_type": "llama", "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
              "intermediate_size": 12, "vocab_size": 16, "tie_word_embeddings": False, "torch_dtype": "bfloat16"}
    tensors = {"model.embed_tokens.weight": [16, 8], "lm_head.weight": [16, 8], "model.norm.weight": [8]}
    p = "model.layers.0."
    tensors.update({p + "self_attn.q_proj.weight": [8, 8], p + "self_attn.k_proj.weight": [8, 8],
                    p + "self_attn.v_proj.weight": [8, 8], p + "self_attn.o_proj.weight": [8, 8],
                    p + "mlp.gate_proj.weight": [12, 8], p + "mlp.up_proj.weight": [12, 8],
                    p + "mlp.down_proj.weight": [8, 12], p + "input_layernorm.weight": [8],
                    p + "post_attention_layernorm.weight": [8]})
    header, offset = {}, 0
    for name, shape in tensors.items():
        size = 2 * shape[0] * (shape[1] if len(shape) > 1 else 1)
        header[name] = {"dtype": "BF16", "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header).encode()
    (tmp_path / "model.safetensors").write_bytes(len(text).to_bytes(8, "little") + text + bytes(offset))
    (tmp_path / "config.json").write_text(json.dumps(config))
    (tmp_path / "model.safetensors.index.json").write_text(
        json.dumps({"weight_map": {name: "model.safetensors" for name in tensors}}))
    # embedding and head 2 x 128, attention 4 x 64, MLP 3 x 96, norms 3 x 8
    params = 2 * 128 + 4 * 64 + 3 * 96 + 3 * 8
    for path in (tmp_path, tmp_path / "model.safetensors", tmp_path / "model.safetensors.index.json"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no mismatch warning: the config's model is the checkpoint's
            model = llmmem.Model.from_safetensors(path)
        assert model.total_parameters == params
        assert model.name == str(path)
        assert llmmem.estimate(model, llmmem.Hardware.from_preset("l4")).model_name == str(path)
    (tmp_path / "config.json").unlink()
    with pytest.raises(llmmem.IncompleteError, match="config.json: no such file"):
        llmmem.Model.from_safetensors(tmp_path / "model.safetensors")


def test_stub_covers_the_public_api():
    """The .pyi names every public name of the package and every public member of its classes."""
    import ast
    import inspect
    from pathlib import Path

    stub = ast.parse((Path(llmmem.__file__).parent / "__init__.pyi").read_text())
    top = {}
    for node in stub.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top[node.name] = node
        elif isinstance(node, ast.AnnAssign):
            top[node.target.id] = node
    missing = [name for name in llmmem.__all__ if name not in top]
    assert not missing, f"not in the stub: {missing}"
    for name in llmmem.__all__:
        obj = getattr(llmmem, name)
        if not inspect.isclass(obj) or issubclass(obj, BaseException):
            continue
        stubbed = set()
        for cls in [top[name]] + [top[b.id] for b in top[name].bases if isinstance(b, ast.Name) and b.id in top]:
            for node in cls.body:
                if isinstance(node, ast.FunctionDef):
                    stubbed.add(node.name)
                elif isinstance(node, ast.AnnAssign):
                    stubbed.add(node.target.id)
        public = {n for n in dir(obj) if not n.startswith("_")}
        assert public <= stubbed, f"{name}: not in the stub: {sorted(public - stubbed)}"


def _releases_gil(call, repeat=200_000):
    """True if `call` lets another thread run while it is in C. With a switch interval of
    10 minutes the interpreter never takes the GIL from a running thread by itself: the main
    thread, waiting for it, gets it before the worker's loop ends only if the C calls release
    it. The worker calls until the main thread has run (at most `repeat` times), so however late
    a loaded machine wakes the main thread, the answer is the same; only a call that keeps the
    GIL runs all `repeat` calls."""
    started, ran = threading.Event(), threading.Event()
    calls = [0]

    def work():
        started.set()
        while calls[0] < repeat and not ran.is_set():
            call()
            calls[0] += 1

    old = sys.getswitchinterval()
    sys.setswitchinterval(600.0)
    try:
        t = threading.Thread(target=work)
        t.start()
        started.wait()  # returns holding the GIL: while the worker is in C, or once it is done
        released = calls[0] < repeat
        ran.set()
        t.join()
    finally:
        sys.setswitchinterval(old)
    return released


def test_long_calls_release_the_gil(llama7b, h100):
    from conftest import test_data

    training = llmmem.Strategy(mode="training")
    config = (test_data() / "configs" / "qwen3-8b.json").read_text()
    assert _releases_gil(lambda: llmmem.estimate(llama7b, h100, training))
    # a job the allocation tape replays (estimate_runs raises for one it does not)
    replayed = llmmem.Strategy(framework="hf_trainer", mode="training", precision_recipe="pure_bf16",
                               sequence_length=256)
    assert llmmem.estimate_runs(llama7b, h100, replayed).replayed
    assert _releases_gil(lambda: llmmem.estimate_runs(llama7b, h100, replayed), repeat=2000)
    assert _releases_gil(lambda: llmmem.timeline_runs(llama7b, h100, replayed), repeat=2000)
    assert _releases_gil(lambda: llmmem.Model.from_hf_config_text(config))
    # inference fits, so each solve searches (a dozen estimates)
    inference = llmmem.Strategy()
    assert _releases_gil(lambda: llmmem.solve_max_micro_batch(llama7b, h100, inference))
    assert _releases_gil(lambda: llmmem.serve(llama7b, h100))
    assert _releases_gil(lambda: llmmem.local_estimate(llama7b, h100))
    assert _releases_gil(lambda: llmmem.local_solve("max_context", llama7b, h100))
    # a setter keeps the GIL (it changes a handle estimates may read): all its calls run first
    assert not _releases_gil(lambda: training.set(micro_batch_size=1), repeat=20000)


def test_set_layer_types_counts_each_layer_by_its_kind():
    # Qwen2-shaped, 6 layers, 2 KV heads of 16 in bf16: one token adds 2 x 2 x 16 x 2 = 128 bytes
    # to a layer; a sliding layer keeps 32 of 100 tokens (tests/test_families.c derives the same)
    config = ('{"model_type": "qwen2", "hidden_size": 64, "num_hidden_layers": 6, '
              '"num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 100, '
              '"intermediate_size": 128, "torch_dtype": "bfloat16"}')
    m = llmmem.Model.from_hf_config_text(config, sliding_window=32)
    kinds = ["full_attention", "sliding_attention", "sliding_attention",
             "full_attention", "full_attention", "sliding_attention"]
    assert m.set_layer_types(kinds) is m
    assert llmmem.kv_cache_bytes(m, llmmem.Strategy(), 1, 100) == 3 * 100 * 128 + 3 * 32 * 128
    m.set_layer_types(",".join(["sliding_attention"] * 6))
    assert llmmem.kv_cache_bytes(m, llmmem.Strategy(), 1, 100) == 6 * 32 * 128
    m.set_layer_types(["chunked_attention"] + ["full_attention"] * 5)  # a known kind, but no chunk size
    with pytest.raises(llmmem.IncompleteError, match=r"chunked_attention layers but attention_chunk_size is not set"):
        llmmem.kv_cache_bytes(m, llmmem.Strategy(), 1, 100)
    with pytest.raises(llmmem.NotFoundError, match=r"layer_types\[1\]: 'global' is not a layer type"):
        m.set_layer_types(["full_attention", "global"])
    with pytest.raises(llmmem.InvalidTypeError):
        m.set_layer_types(6)
