#!/usr/bin/env python3
"""The CLI sweep: the outputs of one `llmmem` build over tens of thousands of command lines,
compared byte for byte with another build's (tests/sweep/README.md).

  sweep.py cases --cli OLD/llmmem [--data tests/data] > cases.jsonl
  sweep.py run --cli X/llmmem --cases cases.jsonl --out DIR [-j 2]
  sweep.py diff DIR_A DIR_B

`cases` writes one JSON object a line: {"id", "argv"} and, for a case that reads a file, "input":
{"src": a path under the data folder, "as": the name it is copied to, "mutate": [keys], "op": ...}.
`run` runs each case in a working folder of its worker (the input copied, or mutated, to its fixed
name there, so that a message naming the file reads the same whichever worker ran it) with LC_ALL=C
and writes DIR/manifest.tsv (id, argv, rc, sha256 of stdout, sha256 of stderr) and each output once,
under DIR/objects/, by its sha256. `diff` prints "N cases, N identical", or the first 20 differing
cases as unified diffs and exits 1.
"""
import argparse
import concurrent.futures
import difflib
import hashlib
import json
import os
import queue
import shlex
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DATA = os.path.normpath(os.path.join(HERE, '..', 'data'))
H100 = 'h100-sxm-80gb'

# ---------------------------------------------------------------------------------------------
# The setups. Each is (name, options); "gpu" in a setup's options fixes the GPU, otherwise the
# case takes the next preset in turn (every GPU preset is reached).

# The PyTorch estimate (`estimate`, `estimate --json`, `estimate --explain`, `explain`).
ESTIMATE = [
    ('inference', []),
    ('long-context', ['--set', 'sequence_length=131072']),
    ('generate-256', ['--set', 'framework=hf_trainer', '--set', 'max_new_tokens=256']),
    ('beams-4', ['--set', 'framework=hf_trainer', '--set', 'max_new_tokens=64', '--set', 'num_beams=4']),
    ('static-cache', ['--set', 'framework=hf_trainer', '--set', 'max_new_tokens=256',
                      '--set', 'cache_implementation=static']),
    ('offloaded-cache', ['--set', 'framework=hf_trainer', '--set', 'max_new_tokens=256',
                         '--set', 'cache_implementation=offloaded']),
    ('train', ['--set', 'mode=training']),
    ('train-selective', ['--set', 'mode=training', '--set', 'recompute=selective']),
    ('train-full', ['--set', 'mode=training', '--set', 'recompute=full']),
    ('train-full-block', ['--set', 'mode=training', '--set', 'recompute=full', '--set', 'recompute_method=block',
                          '--set', 'recompute_num_layers=2']),
    ('lora', ['--set', 'mode=lora', '--set', 'lora_targets=q,k,v,o']),
    ('qlora', ['--set', 'mode=qlora', '--set', 'recompute=full']),
    ('adamw-8bit', ['--set', 'mode=training', '--set', 'optimizer=adamw_8bit']),
    ('fp8-weights', ['--set', 'mode=training', '--set', 'precision_recipe=custom', '--set', 'weight_format=fp8_e4m3']),
    ('pure-bf16', ['--set', 'mode=training', '--set', 'precision_recipe=pure_bf16']),
    ('fp32-recipe', ['--set', 'mode=training', '--set', 'precision_recipe=fp32']),
    ('t2-p2-sp', ['--gpu', H100, '--set', 'mode=training', '--set', 'tensor_parallel=2', '--set', 'pipeline_parallel=2',
                  '--set', 'sequence_parallel=true']),
    ('zero1', ['--gpu', H100, '--set', 'mode=training', '--set', 'data_parallel=8', '--set', 'zero_stage=1']),
    ('zero2', ['--gpu', H100, '--set', 'mode=training', '--set', 'data_parallel=8', '--set', 'zero_stage=2']),
    ('zero3', ['--gpu', H100, '--set', 'mode=training', '--set', 'data_parallel=8', '--set', 'zero_stage=3',
               '--set', 'framework=deepspeed']),
    ('fsdp', ['--gpu', H100, '--set', 'mode=training', '--set', 'data_parallel=8', '--set', 'fsdp=full_shard',
              '--set', 'framework=fsdp2']),
    ('distributed-optimizer', ['--gpu', H100, '--set', 'mode=training', '--set', 'data_parallel=8',
                               '--set', 'distributed_optimizer=true']),
    ('cp2', ['--gpu', H100, '--set', 'mode=training', '--set', 'context_parallel=2', '--set', 'sequence_length=32768']),
    ('ep8', ['--gpu', H100, '--set', 'mode=training', '--set', 'data_parallel=8', '--set', 'expert_parallel=8']),
    ('offload', ['--gpu', H100, '--set', 'mode=training', '--set', 'data_parallel=4', '--set', 'zero_stage=3',
                 '--set', 'offload_optimizer=cpu', '--set', 'offload_param=cpu', '--set', 'host_memory_bytes=2TiB']),
    ('interleaved', ['--gpu', H100, '--set', 'mode=training', '--set', 'pipeline_parallel=4',
                     '--set', 'virtual_pipeline=2', '--set', 'pipeline_schedule=interleaved']),
    ('gpipe', ['--gpu', H100, '--set', 'mode=training', '--set', 'pipeline_parallel=2', '--set', 'pipeline_schedule=gpipe',
               '--set', 'num_micro_batches=8']),
    ('frozen-layers', ['--set', 'mode=training', '--set', 'frozen_layers=4']),
    ('images', ['--set', 'mode=training', '--set', 'images_per_sequence=2']),
    ('batch-4-seq-8k', ['--set', 'mode=training', '--set', 'micro_batch_size=4', '--set', 'sequence_length=8192']),
    ('hf-trainer-train', ['--set', 'framework=hf_trainer', '--set', 'mode=training', '--set', 'recompute=full',
                          '--set', 'sequence_length=1024']),
    ('autocast-bf16', ['--set', 'framework=hf_trainer', '--set', 'mode=training', '--set', 'autocast=bf16',
                       '--set', 'precision_recipe=fp32', '--set', 'sequence_length=1024']),
    ('chunked-loss', ['--set', 'mode=training', '--set', 'cross_entropy=chunked']),
    ('dropout-norm-fp32', ['--set', 'mode=training', '--set', 'dropout=true', '--set', 'norm_fp32=true']),
    ('nf4-inference', ['--set', 'weight_format=bnb_nf4']),
    ('int4-batch-16', ['--set', 'weight_format=int4', '--set', 'micro_batch_size=16']),
]
ESTIMATE_FORMS = [('text', ['estimate']), ('json', ['estimate', '--json']),
                  ('explain', ['estimate', '--explain']), ('explain-cmd', ['explain'])]

TIMELINE = [
    ('inference', []),
    ('train-selective', ['--set', 'mode=training', '--set', 'recompute=selective']),
    ('t2-p2', ['--gpu', H100, '--set', 'mode=training', '--set', 'tensor_parallel=2', '--set', 'pipeline_parallel=2']),
    ('generate-64', ['--set', 'framework=hf_trainer', '--set', 'max_new_tokens=64']),
]
# timeline --allocator replays the job through the caching allocator: models of at most 8 B only
ALLOCATOR = [
    ('train-bf16-full', ['--set', 'framework=hf_trainer', '--set', 'mode=training', '--set', 'precision_recipe=pure_bf16',
                         '--set', 'recompute=full', '--set', 'sequence_length=1024']),
    ('generate-16', ['--set', 'framework=hf_trainer', '--set', 'max_new_tokens=16', '--set', 'sequence_length=512']),
]
ALLOCATOR_MAX_PARAMS = 8.5e9

VLLM = [
    ('default', []), ('json', ['--json']),
    ('tp2', ['--set', 'tensor_parallel=2']), ('tp4', ['--gpu', H100, '--set', 'tensor_parallel=4']),
    ('tp8', ['--gpu', H100, '--set', 'tensor_parallel=8']), ('pp2', ['--set', 'pipeline_parallel=2']),
    ('kv-fp8', ['--set', 'kv_cache_dtype=fp8']), ('kv-fp8-e5m2', ['--set', 'kv_cache_dtype=fp8_e5m2']),
    ('no-prefix-caching', ['--set', 'enable_prefix_caching=false']), ('max-num-seqs-64', ['--set', 'max_num_seqs=64']),
    ('max-model-len-8k', ['--set', 'max_model_len=8192']), ('length-4k', ['--length', '4096']),
    ('length-32k', ['--length', '32K']), ('vllm-0.20', ['--set', 'engine_version=vllm-0.20']),
    ('vllm-0.21', ['--set', 'engine_version=vllm-0.21']), ('utilization-0.8', ['--set', 'gpu_memory_utilization=0.8']),
    ('enforce-eager', ['--set', 'enforce_eager=true']),
    ('mtp', ['--set', 'speculative_method=mtp', '--set', 'num_speculative_tokens=1']),
    ('text-only', ['--set', 'limit_mm_per_prompt=0']), ('batched-8k', ['--set', 'max_num_batched_tokens=8192']),
    ('n4-prompt-1000', ['--set', 'n=4', '--set', 'prompt_tokens=1000']),
    ('shared-prefix', ['--set', 'shared_prefix_tokens=2048', '--length', '8192']),
    ('fp16', ['--set', 'dtype=fp16']), ('kv-memory-8gib', ['--set', 'kv_cache_memory_bytes=8GiB', '--json']),
]
SGLANG = [
    ('default', []), ('json', ['--json']),
    ('tp2', ['--set', 'tensor_parallel=2']), ('tp4', ['--gpu', H100, '--set', 'tensor_parallel=4']),
    ('tp8', ['--gpu', H100, '--set', 'tensor_parallel=8']), ('kv-fp8', ['--set', 'kv_cache_dtype=fp8_e4m3']),
    ('mem-fraction-0.8', ['--set', 'mem_fraction_static=0.8']), ('max-total-100k', ['--set', 'max_total_tokens=100000']),
    ('max-running-64', ['--set', 'max_num_seqs=64']), ('context-8k', ['--set', 'max_model_len=8192']),
    ('length-4k', ['--length', '4096']), ('graph-bs-32', ['--set', 'cuda_graph_max_bs=32']),
    ('chunked-4k', ['--set', 'max_num_batched_tokens=4096']), ('swa-ratio-0.5', ['--set', 'swa_full_tokens_ratio=0.5']),
    ('mamba-ratio-0.5', ['--set', 'mamba_full_memory_ratio=0.5']), ('mamba-cache-64', ['--set', 'max_mamba_cache_size=64']),
    ('sglang-0.4', ['--set', 'engine_version=sglang-0.4']), ('page-16', ['--set', 'block_size=16']),
    ('pre-load-70gib', ['--gpu', H100, '--set', 'pre_model_load_bytes=70GiB']), ('bf16', ['--set', 'dtype=bf16']),
    ('eager', ['--set', 'enforce_eager=true']), ('no-prefix-caching', ['--set', 'enable_prefix_caching=false']),
    ('fp16-json', ['--set', 'dtype=fp16', '--json']), ('length-32k-tp2', ['--set', 'tensor_parallel=2', '--length', '32K']),
]
TRTLLM = [
    ('default', []), ('json', ['--json']),
    ('tp2', ['--set', 'tensor_parallel=2']), ('tp4', ['--gpu', H100, '--set', 'tensor_parallel=4']),
    ('tp8', ['--gpu', H100, '--set', 'tensor_parallel=8']), ('pp2', ['--set', 'pipeline_parallel=2']),
    ('kv-fp8', ['--set', 'kv_cache_dtype=fp8']), ('free-0.5', ['--set', 'free_gpu_memory_fraction=0.5']),
    ('engine-backend', ['--set', 'trtllm_backend=engine']), ('batch-64', ['--set', 'max_num_seqs=64']),
    ('tokens-4k', ['--set', 'max_num_batched_tokens=4096']), ('seq-8k', ['--set', 'max_model_len=8192']),
    ('length-4k', ['--length', '4096']), ('block-64', ['--set', 'block_size=64']),
    ('max-tokens-50k', ['--set', 'max_total_tokens=50000']), ('kv-free-40gib', ['--gpu', H100, '--set', 'kv_free_bytes=40GiB']),
    ('fp16', ['--set', 'dtype=fp16']), ('eager', ['--set', 'enforce_eager=true']),
    ('no-prefix-caching', ['--set', 'enable_prefix_caching=false']), ('utilization', ['--set', 'gpu_memory_utilization=0.8']),
    ('length-32k', ['--length', '32K']), ('tp2-json', ['--set', 'tensor_parallel=2', '--json']),
    ('mtp', ['--set', 'speculative_method=mtp', '--set', 'num_speculative_tokens=1']),
    ('kv-fp8-tp4', ['--gpu', H100, '--set', 'kv_cache_dtype=fp8', '--set', 'tensor_parallel=4']),
]
LLAMA_CPP = [
    ('default', []), ('json', ['--json']),
    ('ctx-4k', ['--set', 'n_ctx=4096']), ('ctx-32k', ['--set', 'n_ctx=32768']),
    ('ngl-0', ['--set', 'n_gpu_layers=0']), ('ngl-20', ['--set', 'n_gpu_layers=20']),
    ('ngl-all-no-fit', ['--set', 'n_gpu_layers=-1', '--set', 'fit=false', '--set', 'n_ctx=8192']),
    ('split-none', ['--set', 'devices_per_node=2', '--set', 'split_mode=none']),
    ('split-layer-2', ['--set', 'devices_per_node=2', '--set', 'split_mode=layer']),
    ('split-row', ['--set', 'devices_per_node=2', '--set', 'split_mode=row']),
    ('split-tensor', ['--set', 'devices_per_node=2', '--set', 'split_mode=tensor', '--set', 'n_ctx=8192']),
    ('tensor-split-3-1', ['--set', 'devices_per_node=2', '--set', 'tensor_split=3,1']),
    ('cache-q8', ['--set', 'cache_type_k=q8_0', '--set', 'cache_type_v=q8_0', '--set', 'flash_attn=on']),
    ('cache-v-q4-fa-off', ['--set', 'cache_type_v=q4_0', '--set', 'flash_attn=off']),
    ('fa-off', ['--set', 'flash_attn=off', '--set', 'n_ctx=8192']), ('swa-full', ['--set', 'swa_full=true']),
    ('unified-4', ['--set', 'kv_unified=true', '--set', 'n_parallel=4']), ('np-auto', ['--set', 'n_parallel=-1']),
    ('cpu-moe-8', ['--set', 'n_cpu_moe=8']), ('q4-k', ['--set', 'weight_format=q4_k']),
    ('q8-0-4gpu', ['--set', 'weight_format=q8_0', '--set', 'devices_per_node=4']),
    ('3-gpus', ['--set', 'devices_per_node=3', '--set', 'n_ctx=16384']),
    ('cpu-backend', ['--set', 'backend=cpu', '--set', 'host_memory_bytes=64GiB']),
    ('metal', ['--gpu', 'm2-max-96gb', '--set', 'n_ctx=8192']),
]
OLLAMA = [
    ('default', []), ('json', ['--json']),
    ('ctx-8k', ['--set', 'num_ctx=8192']), ('ctx-auto-2gpu', ['--set', 'devices_per_node=2']),
    ('num-gpu-0', ['--set', 'num_gpu=0']), ('num-gpu-20', ['--set', 'num_gpu=20']), ('num-gpu-all', ['--set', 'num_gpu=-1']),
    ('parallel-1', ['--set', 'num_parallel=1']), ('parallel-4', ['--set', 'num_parallel=4']),
    ('spread-2', ['--set', 'devices_per_node=2', '--set', 'sched_spread=true']),
    ('overhead-2gib', ['--set', 'gpu_overhead_bytes=2GiB']), ('batch-1024', ['--set', 'num_batch=1024']),
    ('fa-on', ['--set', 'flash_attn=on']), ('fa-off', ['--set', 'flash_attn=off']),
    ('q4-k', ['--set', 'weight_format=q4_k']), ('q8-0', ['--set', 'weight_format=q8_0']),
    ('4-gpus', ['--set', 'devices_per_node=4']), ('cpu-backend', ['--set', 'backend=cpu']),
    ('metal', ['--gpu', 'm4-16gb']), ('cache-q8', ['--set', 'cache_type_k=q8_0', '--set', 'flash_attn=on']),
    ('host-32gib', ['--set', 'host_memory_bytes=32GiB']), ('margin-2gib', ['--set', 'fit_margin_bytes=2GiB']),
    ('ctx-32k-json', ['--set', 'num_ctx=32768', '--json']), ('h100', ['--gpu', H100]),
]
SERVE = [('vllm', VLLM), ('sglang', SGLANG), ('trtllm', TRTLLM), ('llama.cpp', LLAMA_CPP), ('ollama', OLLAMA)]

# fit: the PyTorch questions (micro-batch, sequence, format, fewest devices) and the local ones
FIT = [
    ('inference', []), ('inference-json', ['--json']),
    ('train', ['--set', 'mode=training']), ('train-json', ['--set', 'mode=training', '--json']),
    ('vllm', ['--engine', 'vllm']), ('vllm-json', ['--engine', 'vllm', '--json']),
    ('lora-devices-64', ['--set', 'mode=lora', '--devices', '64']),
    ('hf-trainer-train', ['--set', 'framework=hf_trainer', '--set', 'mode=training', '--set', 'precision_recipe=pure_bf16']),
    ('llama.cpp', ['--engine', 'llama.cpp', '--gpu', 'rtx-4090']),
    ('llama.cpp-json', ['--engine', 'llama.cpp', '--gpu', 'rtx-3090', '--json']),
    ('ollama', ['--engine', 'ollama', '--gpu', 'rtx-4060-ti-16gb']),
    ('ollama-json-2gpu', ['--engine', 'ollama', '--set', 'devices_per_node=2', '--json']),
]
PLAN_MODELS = ['llama-3.1-8b', 'llama-3.1-70b', 'llama-3.1-405b', 'mixtral-8x7b', 'deepseek-v3', 'qwen3-30b-a3b',
               'gemma-2-9b', 'gpt2-xl', 'jamba-1.5-mini', 'llama-4-scout-17b-16e']
PLAN = [('train', ['--set', 'mode=training', '--set', 'global_batch_size=256', '--set', 'sequence_length=8192'])]

# Reader mutations: every field at depth 1 to 3 of each config (an array's first element counts as a
# level), replaced by each of these.
MUTATIONS = [('delete', None), ('null', None), ('x', 'x'), ('minus-1', -1), ('zero', 0), ('2e63', 2 ** 63),
             ('true', True), ('empty-list', [])]
MUTATION_DEPTH = 3


def cli_lines(cli, *argv):
    out = subprocess.run([cli, *argv], check=True, capture_output=True, text=True, env=run_env()).stdout
    return [line.split() for line in out.splitlines() if line.strip()]


def parameters(words):
    """The count a `llmmem models` row prints: '8.03 B params' -> 8.03e9."""
    scale = {'B': 1e9, 'M': 1e6, 'K': 1e3}
    i = words.index('params')
    return float(words[i - 2]) * scale.get(words[i - 1], 1)


def generate_cases(cli, data):
    models = [(w[0], parameters(w)) for w in cli_lines(cli, 'models')]
    gpus = [w[0] for w in cli_lines(cli, 'gpus')]
    cases, turn = [], [0]

    def add(case_id, argv, **input_):
        case = {'id': case_id, 'argv': argv}
        if input_:
            case['input'] = input_
        cases.append(case)

    def with_gpu(options):
        """The setup's options, with the next GPU preset in turn where the setup names none."""
        if '--gpu' in options:
            return list(options)
        turn[0] += 1
        return ['--gpu', gpus[turn[0] % len(gpus)]] + list(options)

    # the commands without a model, and the help of every command
    for command in ['models', 'gpus', 'keys', 'help', '--help', '--version']:
        add('list/' + command, [command])
    add('usage/no-command', [])
    add('usage/unknown-command', ['estimat'])
    add('usage/unknown-option', ['estimate', '--modle', 'gpt2'])
    add('usage/refused-option', ['models', '--json'])
    for command in ['estimate', 'explain', 'timeline', 'serve', 'fit', 'plan', 'params', 'models', 'gpus', 'keys']:
        add('help/' + command, [command, '--help'])

    for m, (model, count) in enumerate(models):
        base = ['--model', model]
        add(f'params/{model}', ['params'] + base)
        for s, (setup, options) in enumerate(ESTIMATE):
            form, command = ESTIMATE_FORMS[(m + s) % len(ESTIMATE_FORMS)]
            add(f'estimate/{model}/{setup}/{form}', command + base + with_gpu(options))
        for setup, options in TIMELINE:
            add(f'timeline/{model}/{setup}', ['timeline', '--json'] + base + with_gpu(options))
        if count <= ALLOCATOR_MAX_PARAMS:
            for setup, options in ALLOCATOR:
                add(f'timeline-allocator/{model}/{setup}', ['timeline', '--allocator'] + base + with_gpu(options))
        for engine, setups in SERVE:
            for setup, options in setups:
                add(f'serve/{engine}/{model}/{setup}', ['serve', '--engine', engine] + base + with_gpu(options))
        add(f'serve/all/{model}/text', ['serve', '--engine', 'all'] + base + with_gpu([]))
        add(f'serve/all/{model}/json', ['serve', '--engine', 'all', '--json'] + base + with_gpu(['--length', '8192']))
        for setup, options in FIT:
            add(f'fit/{model}/{setup}', ['fit'] + base + with_gpu(options))
    for model in PLAN_MODELS:
        for devices in ['8', '64']:
            for setup, options in PLAN:
                add(f'plan/{model}/{devices}/{setup}', ['plan', '--model', model, '--devices', devices, '--top', '5',
                                                       '--json', '--gpu', H100] + options)

    configs = sorted(os.path.join('configs', f) for f in os.listdir(os.path.join(data, 'configs'))
                     if f.endswith('.json'))
    configs += sorted(os.path.join('gpu', 'configs', f) for f in os.listdir(os.path.join(data, 'gpu', 'configs'))
                      if f.endswith('.json'))
    for src in configs:
        name = src.replace(os.sep, '-')
        add(f'params-config/{name}', ['params', '--config', name], src=src, **{'as': name})
        add(f'estimate-config/{name}', ['estimate', '--config', name, '--set', 'mode=training'], src=src, **{'as': name})
        add(f'serve-config/{name}', ['serve', '--config', name, '--json'], src=src, **{'as': name})
    # a config's folder
    add('params-config-folder/llama-3.1-8b', ['params', '--config', 'model'],
        src=os.path.join('configs', 'llama-3.1-8b.json'), **{'as': os.path.join('model', 'config.json')})
    for f in sorted(os.listdir(os.path.join(data, 'gguf'))):
        src = os.path.join('gguf', f)
        add(f'params-gguf/{f}', ['params', '--gguf', f], src=src, **{'as': f})
        add(f'serve-gguf/{f}', ['serve', '--gguf', f, '--engine', 'llama.cpp', '--gpu', 'rtx-4090',
                                  '--set', 'n_ctx=4096'], src=src, **{'as': f})
        add(f'estimate-gguf/{f}', ['estimate', '--gguf', f], src=src, **{'as': f})

    # reader mutations: the file keeps its name, so the messages read as for the real one
    for src in configs:
        name = src.replace(os.sep, '-')
        with open(os.path.join(data, src), encoding='utf-8') as f:
            document = json.load(f)
        for path in field_paths(document, MUTATION_DEPTH):
            for op, _ in MUTATIONS:
                add(f'mutate/{name}/{".".join(map(str, path))}/{op}', ['params', '--config', name], src=src,
                    mutate=list(path), op=op, **{'as': name})

    seen = set()
    for case in cases:
        if case['id'] in seen:
            raise SystemExit(f'sweep.py: two cases named {case["id"]}')
        seen.add(case['id'])
    return cases


def field_paths(document, depth, prefix=()):
    """The paths of every object member down to `depth` levels, in the file's order, and of the
    first element of each array (per-layer lists, block_configs)."""
    if depth == 0:
        return []
    if isinstance(document, list):
        if not document:
            return []
        return [prefix + (0,)] + field_paths(document[0], depth - 1, prefix + (0,))
    if not isinstance(document, dict):
        return []
    paths = []
    for key, value in document.items():
        paths.append(prefix + (key,))
        paths += field_paths(value, depth - 1, prefix + (key,))
    return paths


def mutated(text, path, op):
    document = json.loads(text)
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    if op == 'delete':
        del parent[path[-1]]
    else:
        parent[path[-1]] = dict(MUTATIONS)[op]
    return json.dumps(document, indent=2, ensure_ascii=False) + '\n'


# ---------------------------------------------------------------------------------------------

def run_env():
    return {'LC_ALL': 'C', 'PATH': '/usr/bin:/bin', 'TZ': 'UTC'}


def store(objects, content):
    """Write `content` once under objects/, by its sha256; returns the hash."""
    digest = hashlib.sha256(content).hexdigest()
    folder = os.path.join(objects, digest[:2])
    path = os.path.join(folder, digest)
    if not os.path.exists(path):
        os.makedirs(folder, exist_ok=True)
        tmp = f'{path}.{threading.get_ident()}'
        with open(tmp, 'wb') as f:
            f.write(content)
        os.replace(tmp, path)
    return digest


def run_case(case, cli, work, objects, timeout, sources):
    written = None
    spec = case.get('input')
    if spec:
        written = os.path.join(work, spec['as'])
        os.makedirs(os.path.dirname(written), exist_ok=True)
        content = sources(spec['src'])
        if 'mutate' in spec:
            content = mutated(content.decode('utf-8'), spec['mutate'], spec['op']).encode('utf-8')
        with open(written, 'wb') as f:
            f.write(content)
    try:
        p = subprocess.run([cli] + case['argv'], cwd=work, env=run_env(), stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=timeout)
        rc, out, err = str(p.returncode), p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = 'timeout', e.stdout or b'', e.stderr or b''
    finally:
        if written:
            top = os.path.join(work, spec['as'].split(os.sep)[0])
            if os.path.isdir(top):
                shutil.rmtree(top)
            else:
                os.remove(written)
    return rc, store(objects, out), store(objects, err)


def read_cases(path):
    with open(path, encoding='utf-8') as f:
        return [json.loads(line) for line in f if line.strip()]


def cmd_cases(args):
    cases = generate_cases(os.path.abspath(args.cli), os.path.abspath(args.data))
    out = open(args.output, 'w', encoding='utf-8') if args.output else sys.stdout
    for case in cases:
        out.write(json.dumps(case, sort_keys=True) + '\n')
    if args.output:
        out.close()
    print(f'{len(cases)} cases', file=sys.stderr)


def cmd_run(args):
    cli, data, out = os.path.abspath(args.cli), os.path.abspath(args.data), os.path.abspath(args.out)
    if not os.access(cli, os.X_OK):
        raise SystemExit(f'sweep.py: {cli} is not an executable')
    os.makedirs(out, exist_ok=True)
    if args.cases:
        cases = read_cases(args.cases)
    else:  # the cases of this very CLI, kept beside the manifest
        cases = generate_cases(cli, data)
        with open(os.path.join(out, 'cases.jsonl'), 'w', encoding='utf-8') as f:
            for case in cases:
                f.write(json.dumps(case, sort_keys=True) + '\n')
    objects = os.path.join(out, 'objects')
    cache, cache_lock = {}, threading.Lock()

    def sources(src):
        with cache_lock:
            if src not in cache:
                with open(os.path.join(data, src), 'rb') as f:
                    cache[src] = f.read()
            return cache[src]

    results = [None] * len(cases)
    work_dirs = queue.Queue()
    for w in range(args.jobs):
        path = os.path.join(out, 'work', f'w{w}')
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path)
        work_dirs.put(path)

    def one(i):
        work = work_dirs.get()
        try:
            results[i] = run_case(cases[i], cli, work, objects, args.timeout, sources)
        finally:
            work_dirs.put(work)

    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for future in concurrent.futures.as_completed([pool.submit(one, i) for i in range(len(cases))]):
            future.result()
    elapsed = time.monotonic() - start
    shutil.rmtree(os.path.join(out, 'work'))
    with open(os.path.join(out, 'manifest.tsv'), 'w', encoding='utf-8') as f:
        f.write('id\targv\trc\tstdout_sha256\tstderr_sha256\n')
        for case, (rc, out_hash, err_hash) in zip(cases, results):
            f.write(f'{case["id"]}\t{shlex.join(case["argv"])}\t{rc}\t{out_hash}\t{err_hash}\n')
    codes = {}
    for rc, _, _ in results:
        codes[rc] = codes.get(rc, 0) + 1
    summary = ', '.join(f'rc {rc}: {n}' for rc, n in sorted(codes.items()))
    print(f'{len(cases)} cases in {elapsed:.1f} s with {args.jobs} workers ({summary}); {out}/manifest.tsv')


def read_manifest(folder):
    with open(os.path.join(folder, 'manifest.tsv'), encoding='utf-8') as f:
        rows = [line.rstrip('\n').split('\t') for line in f][1:]
    return {row[0]: row[1:] for row in rows}, [row[0] for row in rows]


def object_lines(folder, digest):
    with open(os.path.join(folder, 'objects', digest[:2], digest), 'rb') as f:
        return f.read().decode('utf-8', 'backslashreplace').splitlines(keepends=True)


def case_diff(a, b, case_id, ra, rb, limit=80):
    lines = []
    if ra[0] != rb[0]:
        lines.append(f'argv: {ra[0]}\n   -> {rb[0]}\n')
    if ra[1] != rb[1]:
        lines.append(f'exit status: {ra[1]} -> {rb[1]}\n')
    for k, stream in ((2, 'stdout'), (3, 'stderr')):
        if ra[k] != rb[k]:
            lines += difflib.unified_diff(object_lines(a, ra[k]), object_lines(b, rb[k]),
                                          f'a/{case_id}/{stream}', f'b/{case_id}/{stream}')
    if len(lines) > limit:
        lines = lines[:limit] + [f'... ({len(lines) - limit} more lines)\n']
    return ''.join(line if line.endswith('\n') else line + '\n\\ No newline at end of file\n' for line in lines)


def cmd_diff(args):
    a, order = read_manifest(args.a)
    b, order_b = read_manifest(args.b)
    ids = order + [i for i in order_b if i not in a]
    differing = []
    for case_id in ids:
        if case_id not in b or case_id not in a:
            differing.append(case_id)
        elif a[case_id] != b[case_id]:
            differing.append(case_id)
    for case_id in differing[:args.show]:
        print(f'=== {case_id}')
        if case_id not in b:
            print(f'only in {args.a}')
        elif case_id not in a:
            print(f'only in {args.b}')
        else:
            sys.stdout.write(case_diff(args.a, args.b, case_id, a[case_id], b[case_id]))
    if len(differing) > args.show:
        print(f'... and {len(differing) - args.show} more differing cases')
    print(f'{len(ids)} cases, {len(ids) - len(differing)} identical')
    return 1 if differing else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest='command', required=True)
    p = sub.add_parser('cases', help='write the case list of a CLI build (JSON lines)')
    p.add_argument('--cli', required=True, help='the llmmem binary whose presets name the cases')
    p.add_argument('--data', default=DEFAULT_DATA, help='the tests/data folder (default: %(default)s)')
    p.add_argument('-o', '--output', help='file to write (default: standard output)')
    p = sub.add_parser('run', help='run a CLI over a case list, write DIR/manifest.tsv and DIR/objects')
    p.add_argument('--cli', required=True, help='the llmmem binary to run')
    p.add_argument('--cases', help='the case list (default: generated from --cli, kept as DIR/cases.jsonl)')
    p.add_argument('--data', default=DEFAULT_DATA, help='the tests/data folder (default: %(default)s)')
    p.add_argument('--out', required=True, help='output folder')
    p.add_argument('-j', '--jobs', type=int, default=os.cpu_count() or 2, help='workers (default: %(default)s)')
    p.add_argument('--timeout', type=float, default=120, help='seconds a case may run (default: %(default)s)')
    p = sub.add_parser('diff', help='compare two run folders: exit 1 on any difference')
    p.add_argument('a')
    p.add_argument('b')
    p.add_argument('--show', type=int, default=20, help='differing cases printed (default: %(default)s)')
    args = parser.parse_args()
    return {'cases': cmd_cases, 'run': cmd_run, 'diff': cmd_diff}[args.command](args) or 0


if __name__ == '__main__':
    sys.exit(main())
