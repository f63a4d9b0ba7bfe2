"""`llmmem serve`: vLLM-style serving capacity, driven as a user would.

The binary is named by the LLMMEM_CLI environment variable (meson sets it). The tests compare the
table with the JSON and the budget terms with each other; the few numbers written here are derived
by hand in their comments from public sources.
"""
import json
import re

import pytest

from clirun import ok, run

GIB = 2**30
GB = 10**9

ROW = re.compile(r"^(\S+)\s+(\d+) bytes\s+(\d+\.\d\d) GiB\s+(\d+\.\d\d) GB$")
VALUE = re.compile(r"^(\S+)\s+(\d+)$")

BUDGET_KEYS = ("memory_bytes", "requested_bytes", "weights", "activation_peak", "non_torch",
               "cuda_graph", "kv_cache_bytes", "shortfall")
KV_KEYS = ("bytes_per_token", "page_bytes", "num_blocks", "tokens", "max_concurrency",
           "max_model_len", "block_bytes", "groups", "layers_per_group", "kv_heads_per_rank",
           "blocks_per_request", "waste_bytes", "vllm_concurrency", "concurrency", "concurrency_x100", "fits")


def serve_json(*args):
    return json.loads(ok("serve", *args, "--json"))


def parse_serve_table(text):
    """Budget rows (name -> bytes), value rows (name -> int) and the vLLM-style lines."""
    rows, values, facts = {}, {}, {}
    for line in text.splitlines():
        m = ROW.match(line)
        if m:
            assert m.group(1) not in rows, f"row {m.group(1)} printed twice"
            rows[m.group(1)] = int(m.group(2))
            continue
        m = VALUE.match(line)
        if m:
            values[m.group(1)] = int(m.group(2))
            continue
        m = re.match(r"^GPU KV cache size: (\d+) tokens$", line)
        if m:
            facts["tokens"] = int(m.group(1))
        m = re.match(r"^Maximum concurrency for (\d+) tokens per request: (\d+\.\d\d)x$", line)
        if m:
            assert "concurrency" not in facts, "two concurrency lines"
            facts["request_tokens"] = int(m.group(1))
            facts["concurrency"] = m.group(2)
        if line.startswith("fits:"):
            facts["fits"] = line.split(":", 1)[1].strip()
    return rows, values, facts


# the capacity example, a 60 GB KV budget for Llama-3-8B with 16-token pages
SIXTY_GB = ["--model", "llama-3-8b", "--set", "kv_cache_memory_bytes=60000000000",
            "--set", "max_model_len=4096"]


def test_help_lists_serve_and_length():
    out = ok("--help")
    assert "serve" in out and "--length" in out


def test_json_has_the_documented_keys():
    report = serve_json()
    for key in ("model", "hardware", "kv_cache_dtype", "tensor_parallel", "pipeline_parallel",
                "budget", "kv"):
        assert key in report
    for key in BUDGET_KEYS:
        assert isinstance(report["budget"][key], int), key
    for key in KV_KEYS:
        assert key in report["kv"], key
    assert isinstance(report["kv"]["fits"], bool)
    assert isinstance(report["kv"]["vllm_concurrency"], float)


def test_defaults_are_llama_3_1_8b_on_h100():
    assert ok("serve", "--json") == ok("serve", "--model", "llama-3.1-8b", "--gpu", "h100-sxm-80gb",
                                       "--json")


@pytest.mark.parametrize("args", [
    [],
    SIXTY_GB,
    ["--model", "llama-3.1-70b", "--set", "tensor_parallel=4", "--length", "8192"],
    ["--model", "llama-3.1-70b"],  # does not fit on one device: a shortfall row
    ["--model", "gemma-3-4b", "--gpu", "l4", "--set", "max_model_len=32768"],
])
def test_table_shows_the_same_numbers_as_json(args):
    report = serve_json(*args)
    rows, values, facts = parse_serve_table(ok("serve", *args))
    for key in BUDGET_KEYS:
        if key == "shortfall" and report["budget"][key] == 0:
            assert key not in rows
            continue
        assert rows[key] == report["budget"][key], key
    for key, value in values.items():
        assert report["kv"][key] == value, key
    assert facts["tokens"] == report["kv"]["tokens"]
    # one line, about the length asked (--length, else max_model_len as vLLM logs it)
    assert facts["request_tokens"] == report["kv"]["request_tokens"]
    assert facts["concurrency"] == f"{report['kv']['concurrency']:.2f}"
    if report["kv"]["request_tokens"] == report["kv"]["max_model_len_setting"]:
        assert report["kv"]["concurrency"] == report["kv"]["vllm_concurrency"]
    assert facts["fits"] == ("yes" if report["kv"]["fits"] else "no")
    for name, nbytes in rows.items():
        line = next(l for l in ok("serve", *args).splitlines() if l.startswith(name + " "))
        assert f"{nbytes / GIB:.2f} GiB" in line and f"{nbytes / GB:.2f} GB" in line


@pytest.mark.parametrize("args", [[], ["--model", "llama-3.1-70b", "--set", "tensor_parallel=8"],
                                  ["--model", "qwen3-30b-a3b", "--gpu", "a100-sxm-80gb"]])
def test_budget_terms_add_up(args):
    b = serve_json(*args)["budget"]
    used = b["weights"] + b["activation_peak"] + b["non_torch"] + b["cuda_graph"]
    assert b["requested_bytes"] == used + b["kv_cache_bytes"] - b["shortfall"]
    # vllm/v1/worker/utils.py: requested = ceil(total x gpu_memory_utilization), 0.92 by default since
    # vLLM 0.21 (vllm/config/cache.py CacheConfig.gpu_memory_utilization)
    assert b["requested_bytes"] == -(-b["memory_bytes"] * 92 // 100)
    assert b["memory_fraction_x10000"] == 9200


def test_capacity_example_by_hand():
    # 60e9 // 65,536 (2 x 8 KV heads x 128 x 2 bytes x 16 tokens) // 32 layers = 28,610 blocks;
    # 28,610 x 16 = 457,760 tokens; 4096-token requests need 256 blocks: 111 fit, 111.76x logged
    kv = serve_json(*SIXTY_GB)["kv"]
    assert kv["bytes_per_token"] == 131072
    assert kv["page_bytes"] == 65536
    assert kv["num_blocks"] == 28610
    assert kv["tokens"] == 457760
    assert kv["max_concurrency"] == 111
    assert kv["vllm_concurrency"] == 111.76
    assert kv["max_model_len"] == 4096
    text = ok("serve", *SIXTY_GB)
    assert "GPU KV cache size: 457760 tokens" in text
    assert "Maximum concurrency for 4096 tokens per request: 111.76x" in text


def test_length_is_request_tokens():
    a = ok("serve", *SIXTY_GB, "--length", "1000", "--json")
    b = ok("serve", *SIXTY_GB, "--set", "request_tokens=1000", "--json")
    assert a == b
    kv = json.loads(a)["kv"]
    # ceil(1000 / 16) = 63 blocks; 28,610 // 63 = 454 requests
    assert kv["request_tokens"] == 1000 and kv["blocks_per_request"] == 63
    assert kv["max_concurrency"] == 454
    assert ok("serve", *SIXTY_GB, "--length=1000", "--json") == a
    # the concurrency line speaks of the length asked, as vLLM's would with max_model_len 1000:
    # 28,610 / 63 = 454.13x (the JSON keeps vLLM's own line for max_model_len 4096, 111.76x)
    assert kv["concurrency"] == 454.13 and kv["concurrency_x100"] == 45413
    assert kv["vllm_concurrency"] == 111.76
    text = ok("serve", *SIXTY_GB, "--length", "1000")
    assert "Maximum concurrency for 1000 tokens per request: 454.13x" in text
    assert "4096 tokens per request" not in text
    assert re.search(r"^max_concurrency +454$", text, re.M)


def test_tensor_parallel_keeps_one_kv_head_per_rank():
    # Llama-3-70B: 8 KV heads; at t = 16 each rank keeps max(1, 8 // 16) = 1:
    # 2 x 1 x 128 x 2 bytes x 80 layers = 40,960 bytes per token
    kv = serve_json("--model", "llama-3.1-70b", "--set", "tensor_parallel=16")["kv"]
    assert kv["kv_heads_per_rank"] == 1
    assert kv["bytes_per_token"] == 40960
    full = serve_json("--model", "llama-3.1-70b")["kv"]
    assert full["bytes_per_token"] == 327680 and full["num_blocks"] == 0


def test_does_not_fit_is_success_with_a_shortfall():
    report = serve_json("--model", "llama-3.1-70b")
    assert report["kv"]["fits"] is False
    assert report["budget"]["shortfall"] > 0 and report["budget"]["kv_cache_bytes"] == 0
    rows, _, facts = parse_serve_table(ok("serve", "--model", "llama-3.1-70b"))
    assert rows["shortfall"] == report["budget"]["shortfall"]
    assert facts["fits"] == "no"


def test_fp8_doubles_the_blocks():
    bf16 = serve_json(*SIXTY_GB)["kv"]
    fp8 = serve_json(*SIXTY_GB, "--set", "kv_cache_dtype=fp8")["kv"]
    assert fp8["page_bytes"] * 2 == bf16["page_bytes"]
    assert fp8["num_blocks"] == 57220  # 60e9 // 32,768 // 32


@pytest.mark.parametrize("args,culprits", [
    (["serve", "--length", "abc"], ["request_tokens", "abc"]),
    (["serve", "--length", "-3"], ["request_tokens", "-3"]),
    (["serve", "--length"], ["--length"]),
    (["serve", "--model", "llama-3.1-70b", "--set", "tensor_parallel=3"],
     ["num_attention_heads (64)", "tensor_parallel (3)"]),
    (["serve", "--set", "kv_cache_dtype=fp5"], ["kv_cache_dtype", "fp5"]),
    (["serve", "--set", "kv_cache_dtype=fp8_ds_mla"], ["fp8_ds_mla"]),
    (["serve", "--set", "gpu_memory_utilization=1.5"], ["gpu_memory_utilization"]),
    (["serve", "--set", "max_model_len=200000"], ["max_model_len (200000)"]),
    (["serve", "--set", "mode=training"], ["mode"]),
    (["serve", "--set", "shared_prefix_tokens=500000", "--set", "max_model_len=4096"],
     ["shared_prefix_tokens (500000)"]),
    (["estimate", "--length", "10"], ["--length"]),
    (["params", "--length", "10"], ["--length"]),
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


def test_serve_reads_a_config(tmp_path):
    # the same shapes from a config.json give the same answer as the preset
    config = {
        "model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336,
        "vocab_size": 128256, "max_position_embeddings": 8192, "tie_word_embeddings": False,
        "torch_dtype": "bfloat16", "rms_norm_eps": 1e-5,
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    a = serve_json("--config", str(path), "--set", "kv_cache_memory_bytes=60000000000")["kv"]
    b = serve_json("--model", "llama-3-8b", "--set", "kv_cache_memory_bytes=60000000000")["kv"]
    assert a == b


def test_dtype_follows_vllm_auto():
    # openai-community/gpt2 holds 124,439,808 parameters stored in float32; vLLM's --dtype auto
    # (vllm/config/model.py _resolve_auto_dtype) downcasts a float32 model to bfloat16 on GPUs of
    # compute capability 8.0 and later: 2 bytes a parameter, 4 with --dtype float32
    auto = serve_json("--model", "gpt2")
    assert auto["dtype"] == "bf16" and auto["kv_cache_dtype"] == "bf16"
    assert auto["budget"]["weights"] == 124439808 * 2
    fp32 = serve_json("--model", "gpt2", "--set", "dtype=fp32")
    assert fp32["dtype"] == "fp32" and fp32["kv_cache_dtype"] == "fp32"
    assert fp32["budget"]["weights"] == 124439808 * 4
    assert fp32["kv"]["bytes_per_token"] == 2 * auto["kv"]["bytes_per_token"]
    # a bfloat16 checkpoint stays bfloat16 (meta-llama/Llama-3.1-8B's config.json)
    assert serve_json("--model", "llama-3.1-8b")["dtype"] == "bf16"


def test_dtype_fp16_refused_for_gemma2():
    # vllm/config/model.py _FLOAT16_NOT_SUPPORTED_MODELS holds gemma2 and gemma3_text
    r = run("serve", "--model", "gemma-2-9b", "--set", "dtype=fp16")
    assert r.returncode != 0
    assert "dtype (fp16): vLLM does not run model_type gemma2 in float16" in r.stderr


def test_mamba2_profile_run_is_modelled():
    # tests/test_mixer_mamba2_gdn.c profile_run_nemotron_h derives the peak: 165,632 B x 8,192 tokens
    report = serve_json("--model", "nemotron-nano-9b-v2")
    assert report["budget"]["activation_peak"] == 1356857344


def test_local_layers_in_a_host_of_unknown_ram_are_not_a_fit():
    """Issue 28: Llama-3.1-70B on one RTX 4090 under llama.cpp put 68 of 80 layers (about 114 GB)
    in host memory and said "fits: yes", since the preset states no host RAM. The GPU keeps its
    margin; whether the host holds the rest is unknown until its RAM is given."""
    job = ("serve", "--model", "llama-3.1-70b", "--gpu", "rtx-4090", "--engine", "llama.cpp")
    r = json.loads(ok(*job, "--json"))
    host = r["devices"][-1]
    assert host["host"] and host["layers"] > 0 and host["capacity"] == 0
    assert r["fits"] is False and r["host_unknown"] is True and r["shortfall"] == 0
    text = ok(*job)
    assert re.search(r"^fits: unknown: every GPU keeps its fit_margin_bytes free, but the host holds "
                     r"[0-9.]+ MiB and its RAM is not known \(--set host_memory_bytes=BYTES\)$", text, re.M)
    assert "fits: yes" not in text
    # stated: 64 GiB cannot hold the host's part, 256 GiB can
    small = json.loads(ok(*job, "--set", "host_memory_bytes=64GiB", "--json"))
    assert small["fits"] is False and small["host_unknown"] is False
    assert small["shortfall"] == host["total"] - 64 * GIB
    assert "fits: no, short by" in ok(*job, "--set", "host_memory_bytes=64GiB")
    big = json.loads(ok(*job, "--set", "host_memory_bytes=256GiB", "--json"))
    assert big["fits"] is True and big["host_unknown"] is False
    assert "fits: yes, every GPU keeps its fit_margin_bytes free and the host's RAM holds its part" in ok(
        *job, "--set", "host_memory_bytes=256GiB")
    # every layer on the GPU: the host keeps only the embedding and the buffers it always keeps
    r = json.loads(ok("serve", "--model", "llama-3.1-8b", "--gpu", "rtx-4090", "--engine", "llama.cpp", "--json"))
    assert r["devices"][-1]["layers"] == 0 and r["fits"] is True and r["host_unknown"] is False
    # fit answers what the GPUs hold and says the host is not checked
    out = ok("fit", "--model", "llama-3.1-70b", "--gpu", "rtx-4090", "--engine", "llama.cpp")
    assert "the host's RAM is not known" in out
    assert "not known" not in ok("fit", "--model", "llama-3.1-70b", "--gpu", "rtx-4090", "--engine", "llama.cpp",
                                 "--set", "host_memory_bytes=256GiB")


def test_sglang_prints_its_start_up_lines():
    """`--engine sglang` prints the lines SGLang logs, with the numbers of its JSON."""
    args = ("--engine", "sglang", "--model", "gpt-oss-120b", "--gpu", "h200")
    report = serve_json(*args)
    assert report["engine"] == "sglang" and "cuda_graphs" not in report
    text = ok("serve", *args)
    kv = report["kv"]
    assert (f"max_total_num_tokens={kv['tokens']}, chunked_prefill_size={kv['max_num_batched_tokens']}, "
            f"max_running_requests={kv['max_num_seqs']}, context_len={kv['max_model_len_setting']}") in text
    assert f"swa_layer_tokens={kv['swa_tokens']}" in text
    # server_args.py: H200 (143,771 MiB), TP1: round((143771 - 13440) / 143771, 3) = 0.907
    assert "mem_fraction_static 0.907" in text and report["budget"]["memory_fraction_x10000"] == 9070


@pytest.mark.parametrize("backend", ["pytorch", "engine"])
def test_trtllm_prints_its_kv_cache_manager_lines(backend):
    """`--engine trtllm` prints TensorRT-LLM's block lines, with the numbers of its JSON."""
    args = ("--engine", "trtllm", "--model", "llama-3.1-8b", "--set", f"trtllm_backend={backend}")
    report = serve_json(*args)
    assert report["engine"] == "trtllm"
    kv = report["kv"]
    text = ok("serve", *args)
    assert f"Number of blocks in KV cache primary pool: {kv['num_blocks']}\n" in text
    assert f"paged KV cache ({kv['tokens']})." in text
    # kvCacheManager.cpp calculateMaxNumBlocks: whole blocks of tokens_per_block (32)
    assert kv["tokens"] == kv["num_blocks"] * 32 and kv["tokens"] - kv["max_tokens"] < 32
    assert (kv["estimation_tokens"] == 8224) == (backend == "pytorch")


def test_engine_all_side_by_side():
    """`serve --engine all`: one row per engine, the text and the JSON alike; a refusal is its row's."""
    args = ("--engine", "all", "--model", "llama-3.1-8b", "--gpu", "h100-sxm-80gb",
            "--set", "devices_per_node=1", "--length", "8192")
    report = serve_json(*args)
    names = [row["engine"] for row in report["engines"]]
    assert names == ["vllm", "llama.cpp", "ollama", "sglang", "trtllm"]
    text = ok("serve", *args)
    for row in report["engines"]:
        assert row["status"] == 0 and row["message"] is None and row["request_tokens"] == 8192
        line = next(l for l in text.splitlines() if l.split() and l.split()[0] == row["engine"])
        cells = line.split()
        assert cells[1] == f"{row['weights'] / GIB:.2f}" and cells[4] == f"{row['kv_bytes'] / GIB:.2f}"
        assert int(cells[5]) == row["kv_tokens"] and int(cells[6]) == row["concurrency"]
        assert cells[7] == ("yes" if row["fits"] else "no")
    # the same figures as each engine's own serve
    vllm = serve_json("--model", "llama-3.1-8b", "--gpu", "h100-sxm-80gb", "--set", "devices_per_node=1",
                      "--length", "8192")
    assert report["engines"][0]["kv_tokens"] == vllm["kv"]["tokens"]
    assert report["engines"][0]["concurrency"] == vllm["kv"]["max_concurrency"]
    refused = serve_json("--engine", "all", "--model", "qwen3-next-80b-a3b", "--gpu", "h200",
                         "--set", "tensor_parallel=4")
    trt = next(r for r in refused["engines"] if r["engine"] == "trtllm")
    assert trt["status"] != 0 and "TensorRT-LLM" in trt["message"] and trt["fits"] is False
    r = run("fit", "--engine", "all")
    assert r.returncode == 2 and "--engine all" in r.stderr
