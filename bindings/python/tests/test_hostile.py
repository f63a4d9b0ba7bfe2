"""Hostile input (issue 14): whatever a caller passes, the package raises a subclass of
llmmem.Error naming the parameter and the value (never SWIG's TypeError or OverflowError, a
UnicodeEncodeError or an AttributeError), and a setter or close() is never starved by
threads estimating in a loop."""
import os
import shutil
import threading
import time

import pytest

import llmmem

UINT64_MAX = 2**64 - 1
SURROGATE = "\ud800"  # a lone surrogate: a str Python holds but UTF-8 cannot encode


@pytest.fixture(scope="module")
def inputs():
    return (llmmem.Model.from_preset("llama-2-7b"), llmmem.Hardware.from_preset("h100-sxm-80gb"),
            llmmem.Strategy())


@pytest.fixture(scope="module")
def serving(inputs):
    return llmmem.serve(*inputs)


def _checkpoint():
    header = b'{"model.norm.weight": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}'
    return llmmem.Checkpoint.from_safetensors_bytes(len(header).to_bytes(8, "little") + header)


# ---------------------------------------------------------------------------
# Threads: the guard of a model, hardware or strategy prefers writers
# ---------------------------------------------------------------------------


def _finishes_beside_an_estimating_loop(inputs, action, timeout=60.0):
    """Seconds `action` took while another thread estimated from `inputs` in a tight loop,
    or None if it had not finished after `timeout` (the loop is then stopped, so that the
    action ends and the test does not hang). The action takes milliseconds: the timeout is a
    hang guard that a loaded machine does not reach."""
    stop = threading.Event()
    looping = threading.Event()
    counts = [0]

    def loop():
        while not stop.is_set():
            try:
                llmmem.estimate(*inputs)
            except llmmem.Error:  # closed by the action: the loop has nothing left to read
                break
            counts[0] += 1
            looping.set()

    estimator = threading.Thread(target=loop, daemon=True)
    estimator.start()
    assert looping.wait(60)
    took = []

    def act():
        t0 = time.monotonic()
        action()
        took.append(time.monotonic() - t0)

    actor = threading.Thread(target=act, daemon=True)
    actor.start()
    actor.join(timeout)
    finished = bool(took)
    stop.set()
    actor.join(30)
    estimator.join(30)
    assert counts[0] > 0
    return took[0] if finished else None


def test_setter_is_not_starved_by_a_thread_estimating_in_a_loop():
    model, hw = llmmem.Model.from_preset("llama-2-7b"), llmmem.Hardware.from_preset("h100-sxm-80gb")
    strategy = llmmem.Strategy(mode="training")
    for n in (1, 2, 1):
        took = _finishes_beside_an_estimating_loop(
            (model, hw, strategy), lambda: strategy.set(micro_batch_size=n))
        assert took is not None, "Strategy.set waited over a minute for a thread estimating in a loop"
        assert strategy["micro_batch_size"] == n


def test_close_is_not_starved_by_a_thread_estimating_in_a_loop():
    model, hw = llmmem.Model.from_preset("llama-2-7b"), llmmem.Hardware.from_preset("h100-sxm-80gb")
    strategy = llmmem.Strategy()
    took = _finishes_beside_an_estimating_loop((model, hw, strategy), model.close)
    assert took is not None, "Model.close waited over a minute for a thread estimating in a loop"
    with pytest.raises(llmmem.InvalidArgumentError, match="closed"):
        llmmem.estimate(model, hw, strategy)


def test_many_estimating_threads_do_not_starve_a_setter():
    model, hw = llmmem.Model.from_preset("llama-2-7b"), llmmem.Hardware.from_preset("h100-sxm-80gb")
    strategy = llmmem.Strategy(mode="training")
    stop = threading.Event()

    def loop():
        while not stop.is_set():
            llmmem.estimate(model, hw, strategy)

    loops = [threading.Thread(target=loop, daemon=True) for _ in range(3)]
    for t in loops:
        t.start()
    try:
        took = _finishes_beside_an_estimating_loop((model, hw, strategy),
                                                   lambda: hw.set(devices_per_node=2))
    finally:
        stop.set()
        for t in loops:
            t.join(30)
    assert took is not None and hw["devices_per_node"] == 2


class _CallsBack(int):
    """An int whose conversion estimates from the object being set (code of the caller's
    own type, run by set())."""

    def __new__(cls, value, inputs):
        obj = super().__new__(cls, value)
        obj.inputs = inputs
        return obj

    def __int__(self):
        llmmem.estimate(*self.inputs)
        return super().__int__()

    __index__ = __int__


def test_a_value_whose_conversion_estimates_from_the_same_object_does_not_deadlock():
    model, hw = llmmem.Model.from_preset("llama-2-7b"), llmmem.Hardware.from_preset("h100-sxm-80gb")
    strategy = llmmem.Strategy()
    done = []
    t = threading.Thread(target=lambda: done.append(strategy.set(micro_batch_size=_CallsBack(3, (model, hw, strategy)))),
                         daemon=True)
    t.start()
    t.join(60)
    assert done, "set() deadlocked: it converted the value while holding the object's write lock"
    assert strategy["micro_batch_size"] == 3


# Serving keys a mutating thread sets on a training strategy, at their defaults: each is a new
# member of the object's settings (its repr grows) and no estimate changes with them.
_IDLE_KEYS = {"gpu_memory_utilization": 0.9, "block_size": 16, "max_num_seqs": 0, "request_tokens": 0,
              "shared_prefix_tokens": 0, "prompt_tokens": 0, "n": 1, "max_num_batched_tokens": 0,
              "max_model_len": 0, "kv_cache_memory_bytes": 0}


def test_threads_estimate_while_others_mutate_and_close():
    """Issue 28: threads that estimate, read, copy and print the inputs while others change and
    close them. The contract (llmmem/__init__.py): an estimate sees its inputs as they were when it
    began (never half a change), and its report's timeline follows that job even after the inputs
    change or close; a call on a closed object raises InvalidArgumentError "this X is closed", and
    repr() of one says "(closed)"; nothing else is ever raised. Python switches threads every
    microsecond here, so that a read between two bytecodes of another thread's change is met."""
    import sys

    base = {"mode": "training", "sequence_length": 2048}
    model0, hw0 = llmmem.Model.from_preset("llama-2-7b"), llmmem.Hardware.from_preset("h100-sxm-80gb")
    totals = {llmmem.estimate(model0, hw0, llmmem.Strategy(**base, micro_batch_size=mbs, recompute=r)).total_bytes
              for mbs in (1, 2) for r in ("none", "full")}  # every job a thread may estimate
    errors = []

    def guarded(fn):
        """fn(); a closed object's refusal is the contract, anything else is recorded."""
        try:
            return fn()
        except llmmem.InvalidArgumentError as e:
            if "is closed" not in str(e):
                errors.append(repr(e))
        except BaseException as e:  # noqa: BLE001 - the failure looked for
            errors.append(repr(e))
        return None

    for _ in range(3):
        model, hw = llmmem.Model.from_preset("llama-2-7b"), llmmem.Hardware.from_preset("h100-sxm-80gb")
        strategy = llmmem.Strategy(**base, micro_batch_size=1)
        ck = _checkpoint()
        barrier = threading.Barrier(5)
        halfway = threading.Event()  # the closer starts once the others have run a while

        def estimator():
            barrier.wait()
            for _ in range(60):
                r = guarded(lambda: llmmem.estimate(model, hw, strategy))
                if r is not None and r.total_bytes not in totals:
                    errors.append(f"total {r.total_bytes} is no job's")
                if r is not None and guarded(lambda: r.timeline().peak["total"]) != r.total_bytes:
                    errors.append("the report's timeline followed another job")
                guarded(lambda: (repr(model), repr(hw), repr(strategy), repr(ck), strategy["micro_batch_size"],
                                 model.total_parameters, hw.memory_bytes, len(ck), strategy.copy()))

        def mutator():
            barrier.wait()
            for i, (key, value) in enumerate(list(_IDLE_KEYS.items()) * 4):
                guarded(lambda: strategy.set(micro_batch_size=1 + i % 2, recompute=("none", "full")[i % 3 % 2],
                                             **{key: value}))
                guarded(lambda: model.use_checkpoint(ck) if i % 7 == 0 else model.set(max_position_embeddings=4096))
                if i == 20:
                    halfway.set()

        def closer():
            barrier.wait()
            halfway.wait(60)
            for obj in (ck, hw, strategy, model):
                time.sleep(0.002)
                obj.close()

        old = sys.getswitchinterval()
        sys.setswitchinterval(1e-6)
        try:
            threads = [threading.Thread(target=f, daemon=True) for f in (estimator, estimator, mutator, mutator, closer)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(120)
        finally:
            sys.setswitchinterval(old)
        assert not any(t.is_alive() for t in threads), "a thread hung"
        assert errors == [], errors[:5]
        for obj, name in ((model, "Model"), (hw, "Hardware"), (ck, "Checkpoint")):
            assert repr(obj) == f"<llmmem.{name} (closed)>"
        with pytest.raises(llmmem.InvalidArgumentError, match="this Strategy is closed"):
            llmmem.estimate(model0, hw0, strategy)


class _ReprActs(int):
    """An int whose repr() runs an action: code of the caller's own type, run while the package
    prints the object it was set on, in place of another thread acting at that moment."""

    def __new__(cls, value, action):
        obj = super().__new__(cls, value)
        obj.action = action
        return obj

    def __repr__(self):
        self.action()
        return super().__repr__()


def test_repr_while_the_object_changes_or_closes():
    """repr() read the settings' dict while iterating it and the handle after checking it was open:
    a change meanwhile (another thread's, or here the value's own repr) raised "dictionary changed
    size during iteration", and a close() "this Hardware is closed"."""
    s = llmmem.Strategy(mode="training")
    s.set(micro_batch_size=_ReprActs(2, lambda: s.set(recompute="full")))
    assert repr(s).startswith("llmmem.Strategy(mode='training', micro_batch_size=2")
    hw = llmmem.Hardware.from_preset("h100-sxm-80gb")
    hw.set(devices_per_node=_ReprActs(4, hw.close))
    assert repr(hw) == "<llmmem.Hardware h100-sxm-80gb: 85,899,345,920 bytes (80.00 GiB, 85.90 GB), devices_per_node=4>"
    assert repr(hw) == "<llmmem.Hardware (closed)>"
    model = llmmem.Model.from_preset("gpt2")
    model.set(max_position_embeddings=_ReprActs(1024, model.close))
    assert repr(model).startswith("<llmmem.Model gpt2: ")
    assert repr(model) == "<llmmem.Model (closed)>"


def _in_thread(fn, timeout=60.0):
    """fn() in another thread; what it returned or raised, or a failure if it hangs."""
    out = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed to the test
            out["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout)
    assert out, "deadlocked"
    if "error" in out:
        raise out["error"]
    return out.get("value")


def test_guard_read_is_reentrant_while_a_writer_waits():
    """A thread holding the read side takes it again even while a writer waits (the writer
    waits for it, so making it wait behind the writer would deadlock)."""
    guard = llmmem._Guard()
    writer_started = threading.Event()
    events = []

    def writer():
        writer_started.set()
        guard.acquire_write("Strategy")
        events.append("write")
        guard.release_write()

    def reader():
        guard.acquire_read()
        w = threading.Thread(target=writer, daemon=True)
        w.start()
        writer_started.wait()
        deadline = time.monotonic() + 60
        while guard._waiting == 0 and time.monotonic() < deadline:
            time.sleep(0.001)
        assert guard._waiting == 1  # the writer waits for this reader
        guard.acquire_read()  # again, in the same thread: must not wait behind the writer
        events.append("read again")
        guard.release_read()
        guard.release_read()
        w.join(60)
        return events

    assert _in_thread(reader) == ["read again", "write"]


def test_guard_new_readers_wait_behind_a_waiting_writer():
    guard = llmmem._Guard()
    order = []
    guard.acquire_read()
    w = threading.Thread(target=lambda: (guard.acquire_write("Model"), order.append("write"), guard.release_write()),
                         daemon=True)
    w.start()
    deadline = time.monotonic() + 60
    while guard._waiting == 0 and time.monotonic() < deadline:
        time.sleep(0.001)
    r = threading.Thread(target=lambda: (guard.acquire_read(), order.append("read"), guard.release_read()),
                         daemon=True)
    r.start()
    time.sleep(0.05)
    assert order == []  # the new reader waits behind the writer, which waits for us
    guard.release_read()
    w.join(60)
    r.join(60)
    assert order == ["write", "read"]


def test_guard_writer_is_reentrant_and_may_read_and_an_upgrade_raises():
    guard = llmmem._Guard()

    def nested():
        guard.acquire_write("Strategy")
        guard.acquire_write("Strategy")
        guard.acquire_read()  # the writer may read what it writes
        guard.release_read()
        guard.release_write()
        guard.release_write()
        guard.acquire_read()
        try:
            with pytest.raises(llmmem.InvalidArgumentError, match="while this thread reads it"):
                guard.acquire_write("Strategy")  # would wait on itself
        finally:
            guard.release_read()
        guard.acquire_write("Strategy")  # free again
        guard.release_write()
        return True

    assert _in_thread(nested)


# ---------------------------------------------------------------------------
# Integers: out of range for the C parameter, or not integers
# ---------------------------------------------------------------------------


def _number_calls(inputs, serving):
    """Every public call taking an integer parameter: (name, function of the value)."""
    m, hw, s = inputs
    return [
        ("max_devices", lambda v: llmmem.solve_min_devices(m, hw, s, v)),
        ("devices", lambda v: llmmem.plan(m, hw, s, v)),
        ("sequences", lambda v: llmmem.kv_cache_bytes(m, s, v, 1)),
        ("tokens_each", lambda v: llmmem.kv_cache_bytes(m, s, 1, v)),
        ("tokens", serving.request_blocks),
        ("tokens", serving.fits_request),
        ("tokens", serving.max_concurrency),
        ("tokens", serving.max_batch),
    ]


@pytest.mark.parametrize("value", [-1, -(2**63) - 1, 2**64, 2**64 + 5, 10**30])
def test_integers_out_of_uint64_raise_out_of_range_naming_the_parameter(inputs, serving, value):
    for name, call in _number_calls(inputs, serving):
        with pytest.raises(llmmem.OutOfRangeError) as err:
            call(value)
        assert str(err.value) == f"{name} ({value}) is out of range [0, {UINT64_MAX}]"


def test_uint64_bounds_themselves_reach_the_library(inputs, serving):
    """0 and 2^64 - 1 are valid C arguments: the library answers (a value or its own error)."""
    for name, call in _number_calls(inputs, serving):
        for value in (0, UINT64_MAX):
            try:
                call(value)
            except llmmem.Error as e:
                assert not str(e).startswith(f"{name} ("), e  # the library's message, not ours


@pytest.mark.parametrize("value", [None, "8", b"8", [8], 1.5, float("nan"), True, False])
def test_non_integers_raise_llmmem_errors_naming_the_parameter(inputs, serving, value):
    for name, call in _number_calls(inputs, serving):
        with pytest.raises(llmmem.InvalidArgumentError) as err:
            call(value)
        assert str(err.value).startswith(name)
        if isinstance(value, float):
            assert "not a whole number" in str(err.value)
        else:
            assert isinstance(err.value, TypeError) and isinstance(err.value, llmmem.InvalidTypeError)


def test_whole_floats_count_as_integers_as_in_settings(inputs, serving):
    m, hw, s = inputs
    assert llmmem.kv_cache_bytes(m, s, 2.0, 16.0) == llmmem.kv_cache_bytes(m, s, 2, 16)
    assert serving.max_batch(4096.0) == serving.max_batch(4096)


@pytest.mark.parametrize("value", [2**63, 2**64, -(2**63) - 1, 10**30, 1e300, -1e300])
def test_settings_beyond_int64_are_out_of_range_with_the_keys_bounds(value):
    lo, hi = llmmem.key("micro_batch_size").bounds
    with pytest.raises(llmmem.OutOfRangeError) as err:
        llmmem.Strategy(micro_batch_size=value)
    assert str(err.value) == f"micro_batch_size ({value!r}) is out of range [{lo}, {hi}]"
    with pytest.raises(llmmem.OutOfRangeError, match=r"^devices_per_node \("):
        llmmem.Hardware.from_preset("h100-sxm-80gb", count=value)


def test_integers_too_large_for_a_double_or_for_str():
    lo, hi = llmmem.key("allocator_reserve_fraction").bounds
    with pytest.raises(llmmem.OutOfRangeError) as err:
        llmmem.Hardware(allocator_reserve_fraction=10**400)
    assert str(err.value).startswith("allocator_reserve_fraction (1000000000")
    assert str(err.value).endswith(f"(401 digits)) is out of range [{lo:g}, {hi:g}]")
    with pytest.raises(llmmem.OutOfRangeError, match=r"micro_batch_size \(<an integer of \d+ bits>\)"):
        llmmem.Strategy(micro_batch_size=1 << 20000)  # beyond Python's int-to-str limit
    with pytest.raises(llmmem.UnknownKeyError, match="unknown key 1180591620717411303424"):
        llmmem.Key(2**70)
    with pytest.raises(llmmem.InvalidTypeError, match="key_id must be an int, not str"):
        llmmem.Key("weight_format")


def test_nan_and_infinities():
    for value in (float("nan"), float("inf"), float("-inf")):
        with pytest.raises(llmmem.InvalidArgumentError, match="micro_batch_size: '.*' is not a whole number"):
            llmmem.Strategy(micro_batch_size=value)  # the library's words
        with pytest.raises(llmmem.OutOfRangeError, match="allocator_reserve_fraction .* not a finite number"):
            llmmem.Hardware(allocator_reserve_fraction=value)


def test_plan_index_out_of_range_is_an_index_error_and_an_llmmem_error(inputs):
    m, hw, s = inputs
    p = llmmem.plan(m, hw, s, 2)
    n = len(p)
    assert n > 0 and p[-1].bytes == p[n - 1].bytes
    for index in (n, -n - 1, 2**64, -(2**70)):
        with pytest.raises(llmmem.OutOfRangeError) as err:
            p[index]
        assert isinstance(err.value, IndexError) and "plan index" in str(err.value)
    for index in ("0", None, 0.0, True):
        with pytest.raises(llmmem.InvalidTypeError, match="plan index"):
            p[index]
    assert [x.bytes for x in p] == [x.bytes for x in p[:]]


# ---------------------------------------------------------------------------
# Booleans
# ---------------------------------------------------------------------------


def test_booleans_set_bool_keys_as_one_and_zero():
    s = llmmem.Strategy(flash_attention=True)
    assert s["flash_attention"] is True
    s.set(flash_attention=False)
    assert s["flash_attention"] is False
    s["flash_attention"] = True
    assert s["flash_attention"] is True
    for value in (0, 0.0, "false"):
        s.set(flash_attention=value)
        assert s["flash_attention"] is False
    for value in (1, 1.0, "true"):
        s.set(flash_attention=value)
        assert s["flash_attention"] is True
    with pytest.raises(llmmem.OutOfRangeError, match=r"flash_attention \(2\) is out of range \[0, 1\]"):
        s.set(flash_attention=2)


def test_a_bool_where_a_number_is_expected_is_an_invalid_argument_everywhere(inputs, serving):
    with pytest.raises(llmmem.InvalidArgumentError, match="sequence_length: 'true'"):
        llmmem.Strategy(sequence_length=True)
    with pytest.raises(llmmem.InvalidArgumentError, match="allocator_reserve_fraction: 'false'"):
        llmmem.Hardware(allocator_reserve_fraction=False)
    with pytest.raises(llmmem.InvalidArgumentError, match="devices_per_node: 'true'"):
        llmmem.Hardware.from_preset("h100-sxm-80gb", count=True)
    for name, call in _number_calls(inputs, serving):
        with pytest.raises(llmmem.InvalidArgumentError, match=f"^{name} must be an int, not bool"):
            call(True)


# ---------------------------------------------------------------------------
# Text: lone surrogates, NUL, wrong types, huge strings
# ---------------------------------------------------------------------------


def _text_calls(inputs):
    """Every public call taking a name or a value as str: (parameter, function of the str)."""
    m, hw, s = inputs
    return [
        ("key", llmmem.key),
        ("key", lambda v: s.get(v)),
        ("key", lambda v: s[v]),
        ("key", lambda v: s.set(**{v: 1}) if isinstance(v, str) else s.__setitem__(v, 1)),  # kwargs: str only
        ("key", lambda v: s.__setitem__(v, 1)),
        ("key", lambda v: llmmem.Strategy(**{v: 1}) if isinstance(v, str) else s.__setitem__(v, 2)),
        ("mode", lambda v: s.set(mode=v)),
        ("mode", lambda v: s.__setitem__("mode", v)),
        ("lora_targets", lambda v: s.set(lora_targets=["q", v])),
        ("torch_dtype", lambda v: llmmem.Model(torch_dtype=v)),
        ("memory_bytes", lambda v: llmmem.Hardware(memory_bytes=v)),
        ("preset", llmmem.Model.from_preset),
        ("preset", llmmem.Hardware.from_preset),
        ("object", llmmem.keys),
        ("unit", lambda v: llmmem.estimate(m, hw, s).plot(unit=v)),
    ]


def _path_calls():
    return [
        ("path", llmmem.Model.from_hf_config),
        ("path", llmmem.Model.from_gguf),
        ("path", llmmem.Model.from_safetensors),
        ("path", llmmem.Checkpoint.from_gguf),
        ("path", llmmem.Checkpoint.from_safetensors),
    ]


@pytest.mark.parametrize("text", [SURROGATE, "a" + SURROGATE + "b", "\udcff", "q\udfff"])
def test_lone_surrogates_raise_invalid_argument_naming_the_parameter(inputs, text):
    try:
        os.fsencode(text)
        paths = []  # a surrogate escape (\udc80-\udcff) is a byte of a file name: a valid path
    except UnicodeEncodeError:
        paths = _path_calls()
    for name, call in _text_calls(inputs) + paths:
        with pytest.raises(llmmem.InvalidArgumentError) as err:
            call(text)
        message = str(err.value)
        if name != "unit":  # plot() names the units it takes
            assert message.startswith(name) and "surrogates not allowed" in message, message
    for call in (llmmem.Model.from_hf_config_text, llmmem.Checkpoint.from_safetensors_bytes,
                 llmmem.Checkpoint.from_gguf_bytes):
        with pytest.raises(llmmem.InvalidArgumentError, match="cannot be encoded as UTF-8"):
            call('{"model_type": "' + text + '"}')


def test_nul_characters_raise_invalid_argument(inputs):
    for name, call in _text_calls(inputs) + _path_calls():
        with pytest.raises(llmmem.InvalidArgumentError) as err:
            call("a\0b")
        if name != "unit":
            assert str(err.value).startswith(name) and "NUL" in str(err.value), err.value
    with pytest.raises(llmmem.InvalidArgumentError, match="NUL"):
        llmmem.Model.from_hf_config(b"a\0b")


@pytest.mark.parametrize("value", [None, 3, 2.5, b"bytes", ["a"], object()])
def test_wrong_types_for_names_raise_invalid_type_naming_the_parameter(inputs, value):
    for name, call in _text_calls(inputs):
        if name in ("mode", "lora_targets", "torch_dtype", "memory_bytes"):
            continue  # values: numbers are settings too; tested below
        if name == "object" and value is None:
            continue  # keys(None) lists every key
        with pytest.raises(llmmem.InvalidTypeError) as err:
            call(value)
        assert isinstance(err.value, TypeError) and str(err.value).startswith(name)
    for name, call in _path_calls():
        if isinstance(value, bytes):
            continue  # a path may be bytes
        with pytest.raises(llmmem.InvalidTypeError, match=r"^path must be a str, bytes or os.PathLike"):
            call(value)
    for call in (llmmem.Model.from_hf_config_text, llmmem.Checkpoint.from_safetensors_bytes,
                 llmmem.Checkpoint.from_gguf_bytes):
        if isinstance(value, bytes):
            continue
        with pytest.raises(llmmem.InvalidTypeError, match="must be str or a bytes-like object"):
            call(value)


@pytest.mark.parametrize("value", [None, {}, object(), b"training", [1, 2], __import__("decimal").Decimal(4)])
def test_settings_of_types_no_setter_takes_raise_invalid_type_naming_the_key(value):
    with pytest.raises(llmmem.InvalidTypeError) as err:
        llmmem.Strategy(micro_batch_size=value)
    assert str(err.value).startswith(f"micro_batch_size: cannot set a {type(value).__name__}")
    assert isinstance(err.value, TypeError)


def test_unknown_object_name_for_keys():
    with pytest.raises(llmmem.InvalidArgumentError, match="object 'gpu' is not one of hardware, model, strategy"):
        llmmem.keys("gpu")


def test_huge_strings_are_named_and_cut():
    huge = "x" * 10_000_000
    for call in (llmmem.key, llmmem.Model.from_preset, lambda v: llmmem.Strategy(mode=v),
                 lambda v: llmmem.Strategy(**{v: 1})):
        with pytest.raises(llmmem.Error) as err:
            call(huge)
        assert len(str(err.value)) < 400
    with pytest.raises(llmmem.InvalidArgumentError) as err:
        llmmem.key(huge + SURROGATE)
    assert len(str(err.value)) < 400


def test_paths_may_be_bytes_or_undecodable_file_names(tmp_path):
    from conftest import test_data

    config = test_data() / "configs" / "qwen3-8b.json"
    odd = os.path.join(os.fsencode(tmp_path), b"config-\xff.json")  # not UTF-8
    shutil.copyfile(config, odd)
    want = llmmem.Model.from_hf_config(config).parameters
    assert llmmem.Model.from_hf_config(odd).parameters == want
    assert llmmem.Model.from_hf_config(os.fsdecode(odd)).parameters == want  # '\udcff' escape
    with pytest.raises(llmmem.FileError, match="missing"):
        llmmem.Model.from_hf_config(os.fsencode(tmp_path / "missing.json"))


def test_non_contiguous_buffers_are_read():
    header = b'{"model.norm.weight": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}'
    data = len(header).to_bytes(8, "little") + header
    spread = bytearray(2 * len(data))
    spread[::2] = data
    ck = llmmem.Checkpoint.from_safetensors_bytes(memoryview(spread)[::2])
    assert ck.total_bytes == 16


# ---------------------------------------------------------------------------
# Objects: None, the wrong class, closed
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [None, "llama-2-7b", 0])
def test_none_or_wrong_objects_raise_invalid_type_naming_the_parameter(inputs, bad):
    m, hw, s = inputs
    bad_s = hw if bad is None else bad  # a strategy may be None (the default, inference)
    calls = [
        ("model", lambda: llmmem.estimate(bad, hw, s)),
        ("hardware", lambda: llmmem.estimate(m, bad, s)),
        ("strategy", lambda: llmmem.estimate(m, hw, bad_s)),
        ("model", lambda: llmmem.serve(bad, hw)),
        ("strategy", lambda: llmmem.serve(m, hw, bad_s)),
        ("hardware", lambda: llmmem.solve_max_micro_batch(m, bad)),
        ("strategy", lambda: llmmem.solve_max_sequence_length(m, hw, bad_s)),
        ("model", lambda: llmmem.solve_weight_format(bad, hw)),
        ("model", lambda: llmmem.solve_min_devices(bad, hw, s)),
        ("model", lambda: llmmem.plan(bad, hw, s, 2)),
        ("strategy", lambda: llmmem.plan(m, hw, bad_s, 2)),
        ("model", lambda: llmmem.kv_bytes_per_token(bad)),
        ("strategy", lambda: llmmem.kv_bytes_per_token(m, bad_s)),
        ("model", lambda: llmmem.kv_cache_bytes(bad, s, 1, 1)),
        ("strategy", lambda: llmmem.kv_cache_bytes(m, bad_s, 1, 1)),
        ("checkpoint", lambda: m.copy().use_checkpoint(bad)),
        ("model", lambda: _checkpoint().verify(bad)),
    ]
    for name, call in calls:
        with pytest.raises(llmmem.InvalidTypeError) as err:
            call()
        assert str(err.value).startswith(f"{name} must be an llmmem."), err.value
        assert isinstance(err.value, TypeError)
    for cls in (llmmem.Report, llmmem.Serving, llmmem.Checkpoint):
        with pytest.raises(llmmem.InvalidTypeError, match=f"llmmem.{cls.__name__} is made by"):
            cls(bad)


def test_closed_objects_raise_invalid_argument(inputs):
    m, hw, s = inputs
    closed = llmmem.Strategy()
    closed.close()
    closed.close()  # twice is fine
    for call in (lambda: closed.set(mode="training"), lambda: closed["mode"], closed.copy,
                 lambda: llmmem.estimate(m, hw, closed), lambda: llmmem.kv_bytes_per_token(m, closed)):
        with pytest.raises(llmmem.InvalidArgumentError, match="this Strategy is closed"):
            call()
    ck = _checkpoint()
    ck.close()
    for call in (lambda: len(ck), lambda: ck.total_bytes, ck.tensors, ck.dtypes, ck.model,
                 lambda: ck.verify(m), lambda: m.copy().use_checkpoint(ck)):
        with pytest.raises(llmmem.InvalidArgumentError, match="this Checkpoint is closed"):
            call()
    model = llmmem.Model.from_preset("gpt2")
    model.close()
    with pytest.raises(llmmem.InvalidArgumentError, match="this Model is closed"):
        _checkpoint().verify(model)


def test_plot_unit_is_checked_before_matplotlib_is_needed(inputs):
    r = llmmem.estimate(*inputs)
    with pytest.raises(llmmem.InvalidArgumentError, match="unit must be one of GiB"):
        r.plot(unit="furlongs")
    with pytest.raises(llmmem.InvalidTypeError, match="unit must be a str, not list"):
        r.plot(unit=[])
