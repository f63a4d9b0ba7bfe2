"""Statuses become exceptions carrying the library's message, which names key and value."""
import os
import pickle
import threading

import pytest

import llmmem


def has_key(name):
    try:
        llmmem.key(name)
        return True
    except llmmem.UnknownKeyError:
        return False


def test_tensor_parallel_3_on_32_heads_names_both_numbers(llama7b, h100):
    if not has_key("tensor_parallel"):
        pytest.skip("the library has no key tensor_parallel yet (parallelism keys not added)")
    assert llama7b["num_attention_heads"] == 32
    with pytest.raises(llmmem.Error) as err:
        llmmem.estimate(llama7b, h100, llmmem.Strategy(tensor_parallel=3))
    message = str(err.value)
    assert "32" in message and "3" in message.replace("32", "")
    assert "tensor_parallel" in message
    assert isinstance(err.value, llmmem.IncompatibleError)


def test_kv_heads_not_dividing_heads_names_both_numbers(h100):
    model = llmmem.Model(model_type="llama", hidden_size=4096, num_hidden_layers=32,
                         num_attention_heads=32, num_key_value_heads=3, intermediate_size=11008,
                         vocab_size=32000, torch_dtype="bf16")
    with pytest.raises(llmmem.IncompatibleError) as err:
        llmmem.estimate(model, h100)
    assert str(err.value) == "num_attention_heads (32) is not divisible by num_key_value_heads (3)"
    assert err.value.status == llmmem.IncompatibleError.status
    assert err.value.status_name == "incompatible settings"
    assert isinstance(err.value, ValueError)
    with pytest.raises(llmmem.IncompatibleError):
        model.total_parameters


def test_value_out_of_range_names_key_value_and_bounds():
    with pytest.raises(llmmem.OutOfRangeError) as err:
        llmmem.Strategy(micro_batch_size=-3)
    lo, hi = llmmem.key("micro_batch_size").bounds
    assert str(err.value) == f"micro_batch_size (-3) is out of range [{lo}, {hi}]"
    with pytest.raises(llmmem.OutOfRangeError, match=r"allocator_reserve_fraction \(0\.95\)"):
        llmmem.Hardware.from_preset("h100-sxm-80gb", allocator_reserve_fraction=0.95)
    with pytest.raises(llmmem.OutOfRangeError, match="not a finite number"):
        llmmem.Hardware.from_preset("h100-sxm-80gb", allocator_reserve_fraction=float("nan"))


def test_unknown_key_and_key_of_another_object():
    with pytest.raises(llmmem.UnknownKeyError) as err:
        llmmem.Strategy(no_such_key=1)
    assert "no_such_key" in str(err.value)
    assert isinstance(err.value, KeyError)
    assert str(err.value) == err.value.message  # not quoted as KeyError would
    with pytest.raises(llmmem.UnknownKeyError, match="hidden_size belongs to the model, not the strategy"):
        llmmem.Strategy(hidden_size=4096)
    with pytest.raises(llmmem.UnknownKeyError, match="belongs to the strategy, not the model"):
        llmmem.Model.from_preset("gpt2", mode="training")
    with pytest.raises(llmmem.UnknownKeyError):
        llmmem.key("no_such_key")


def test_unknown_names_and_malformed_values():
    with pytest.raises(llmmem.NotFoundError, match="'no-such-model'"):
        llmmem.Model.from_preset("no-such-model")
    with pytest.raises(llmmem.NotFoundError, match="'no-such-gpu'"):
        llmmem.Hardware.from_preset("no-such-gpu")
    with pytest.raises(llmmem.Error, match="nf5"):
        llmmem.Strategy(weight_format="nf5")
    with pytest.raises(llmmem.InvalidArgumentError, match=r"num_parameters: '1\.5' is not a whole number"):
        llmmem.Model(num_parameters=1.5)
    with pytest.raises(llmmem.InvalidArgumentError, match="sequence_length: 'true'"):
        llmmem.Strategy(sequence_length=True)
    with pytest.raises(llmmem.InvalidArgumentError, match="NUL"):
        llmmem.Strategy(mode="training\0")


def test_python_type_errors_name_the_key():
    with pytest.raises(TypeError, match="micro_batch_size: cannot set a dict"):
        llmmem.Strategy(micro_batch_size={})
    with pytest.raises(TypeError):
        llmmem.estimate(llmmem.Strategy(), llmmem.Hardware.from_preset("h100-sxm-80gb"))


def test_files_errors(tmp_path):
    with pytest.raises(llmmem.FileError) as err:
        llmmem.Model.from_hf_config(tmp_path / "missing.json")
    assert "missing.json" in str(err.value)
    assert isinstance(err.value, OSError)
    with pytest.raises(llmmem.ParseError):
        llmmem.Model.from_hf_config_text('{"model_type": "llama",')
    with pytest.raises(llmmem.Error):
        llmmem.Checkpoint.from_safetensors_bytes(b"\x01\x00")


def test_incomplete_custom_model(h100):
    model = llmmem.Model(model_type="llama", hidden_size=4096)
    with pytest.raises(llmmem.IncompleteError) as err:
        llmmem.estimate(model, h100)
    assert "num_hidden_layers" in str(err.value) or "not set" in str(err.value)


def test_exception_classes_follow_the_status_codes():
    from llmmem import core

    assert llmmem.InvalidArgumentError.status == core.LLMMEM_ERR_INVALID_ARGUMENT
    assert llmmem.IncompleteError.status == core.LLMMEM_ERR_INCOMPLETE
    for cls in (llmmem.OutOfRangeError, llmmem.UnknownKeyError, llmmem.NotFoundError,
                llmmem.IncompatibleError, llmmem.SizeOverflowError, llmmem.NoMemoryError,
                llmmem.FileError, llmmem.ParseError, llmmem.UnsupportedError):
        assert issubclass(cls, llmmem.Error)
        assert core.llmmem_status_str(cls.status) == cls("x").status_name
    e = pickle.loads(pickle.dumps(llmmem.OutOfRangeError("k (1) is out of range")))
    assert type(e) is llmmem.OutOfRangeError and e.message == "k (1) is out of range"


def test_each_thread_reads_its_own_message(h100):
    """The message is read in the same wrapper as the failing call, on the same thread."""
    errors = {}
    barrier = threading.Barrier(8)

    def work(i):
        barrier.wait()
        for _ in range(200):
            try:
                llmmem.Strategy(micro_batch_size=-(i + 1))
            except llmmem.OutOfRangeError as e:
                if f"({-(i + 1)})" not in str(e):
                    errors[i] = str(e)
                    return

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == {}


def test_closed_handles():
    s = llmmem.Strategy()
    s.close()
    with pytest.raises(ValueError, match="closed"):
        s.set(mode="training")
    with llmmem.Model.from_preset("gpt2") as m:
        assert m.total_parameters > 0
    with pytest.raises(ValueError, match="closed"):
        m.total_parameters


def test_exceptions_fit_pythons_hierarchy():
    """Issue 28: a misspelt choice raised NotFoundError, neither a ValueError nor a KeyError. A bad
    value is a ValueError, an unknown key a KeyError, whatever the status; every class stays an
    llmmem.Error, under its old name."""
    with pytest.raises(ValueError, match="unknown choice 'trainig'") as err:
        llmmem.Strategy(mode="trainig")
    assert isinstance(err.value, llmmem.NotFoundError) and isinstance(err.value, llmmem.Error)
    assert isinstance(err.value, LookupError)  # as before
    with pytest.raises(ValueError, match="'no-such-model'"):
        llmmem.Model.from_preset("no-such-model")
    with pytest.raises(ValueError, match="is not a boolean"):
        llmmem.Strategy(flash_attention="maybe")
    with pytest.raises(KeyError):
        llmmem.Strategy(no_such_key=1)
    with pytest.raises(NotImplementedError):  # valid, but not modelled
        llmmem.Model.from_hf_config_text('{"model_type": "rwkv", "hidden_size": 64}')
    for cls in (llmmem.InvalidArgumentError, llmmem.OutOfRangeError, llmmem.NotFoundError,
                llmmem.IncompatibleError, llmmem.ParseError, llmmem.IncompleteError):
        assert issubclass(cls, ValueError) and issubclass(cls, llmmem.Error), cls
    assert issubclass(llmmem.UnknownKeyError, KeyError)
    assert issubclass(llmmem.UnsupportedError, NotImplementedError)


def test_an_extension_built_for_another_python_says_so(tmp_path):
    """Importing the package with a Python its C extension was not built for said "cannot import
    name '_core' from partially initialized module (most likely due to a circular import)". The
    package is copied with its extension named for another version (as a build for 3.11 looks to
    3.12)."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    here = Path(llmmem.__file__).parent
    copy = tmp_path / "llmmem"
    shutil.copytree(here, copy, ignore=shutil.ignore_patterns("*.p", "__pycache__", "*.c"))
    built = [p for p in copy.iterdir() if p.name.startswith("_core.")]
    assert len(built) == 1, built
    other = built[0].with_name("_core.cpython-39-x86_64-linux-gnu.so")
    built[0].rename(other)
    r = subprocess.run([sys.executable, "-c", "import llmmem"], capture_output=True, text=True, timeout=60,
                       env={**os.environ, "PYTHONPATH": str(tmp_path)}, cwd=tmp_path)
    assert r.returncode != 0
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: ") and "circular import" not in last, r.stderr
    assert "_core.cpython-39-x86_64-linux-gnu.so" in last and "built for another Python" in last, last
    assert f"{sys.version_info.major}.{sys.version_info.minor}" in last, last
