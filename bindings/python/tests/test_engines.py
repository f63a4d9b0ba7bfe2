"""llmmem.engines(): the job under every engine side by side, the same dict as the tool's
`llmmem serve --engine all --json` prints, and each serving row the engine's own `serve`."""
import json

import llmmem
from conftest import run_cli


def test_engines_equals_the_tool_and_each_engine():
    model = llmmem.Model.from_preset("llama-3.1-8b")
    hw = llmmem.Hardware.from_preset("h100-sxm-80gb", devices_per_node=1)
    strategy = llmmem.Strategy(request_tokens=8192)
    got = llmmem.engines(model, hw, strategy)
    out = run_cli("serve", "--engine", "all", "--model", "llama-3.1-8b", "--gpu", "h100-sxm-80gb",
                  "--set", "devices_per_node=1", "--length", "8192", "--json")
    assert out.returncode == 0, out.stderr
    assert got == json.loads(out.stdout)
    assert [row["engine"] for row in got["engines"]] == ["vllm", "llama.cpp", "ollama", "sglang", "trtllm"]
    for name in ("vllm", "sglang", "trtllm"):
        row = next(r for r in got["engines"] if r["engine"] == name)
        own = llmmem.serve(model, hw, llmmem.Strategy(request_tokens=8192, engine=name))
        assert row["status"] == 0 and row["message"] is None
        assert row["kv_tokens"] == own.tokens and row["concurrency"] == own.values["max_concurrency"]


def test_a_refusal_is_a_row_not_an_exception():
    model = llmmem.Model.from_preset("qwen3-next-80b-a3b")
    got = llmmem.engines(model, llmmem.Hardware.from_preset("h200"), llmmem.Strategy(tensor_parallel=4))
    trt = next(r for r in got["engines"] if r["engine"] == "trtllm")
    assert trt["status"] != 0
    assert "TensorRT-LLM" in trt["message"] and trt["fits"] is False
