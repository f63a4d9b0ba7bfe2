"""Training steps measured against the estimate: each scenario builds an eager model that follows
transformers' code (llama.py), runs two Trainer-style steps (train.py) and compares the second
step's peak heap bytes and the bytes its forward saved with `llmmem estimate` for the same job.
The keys say what this PyTorch is: 1.13 (mean saves its input, foreach AdamW keeps two
temporaries, no SDPA, so attention is eager), the step's optimizer implementation, fp32 norms
(LlamaRMSNorm upcasts), runtime_overhead_bytes=0 (no CUDA context on a CPU)."""
import os

import pytest

torch = pytest.importorskip("torch")

import memcount  # noqa: E402
from cli import estimate_json  # noqa: E402
from conftest import ROWS  # noqa: E402
from llama import CausalLM  # noqa: E402
from train import measure  # noqa: E402

pytestmark = pytest.mark.skipif(not memcount.available() or "LLMMEM_CLI" not in os.environ,
                                reason="run by meson test (memcount in LD_PRELOAD, LLMMEM_CLI set)")

TOLERANCE = 0.03
VOCAB, HIDDEN, LAYERS, HEADS, KV_HEADS, FFN = 8192, 512, 4, 8, 2, 1408

# name, dtype, recompute, optimizer, implementation, batch, seq, kv heads, tied
SCENARIOS = [
    ("llama bf16 adamw foreach", "bf16", "none", "adamw", "foreach", 2, 512, 2, False),
    ("llama bf16 full recompute", "bf16", "full", "adamw", "foreach", 2, 512, 2, False),
    ("llama fp32 adamw foreach", "fp32", "none", "adamw", "foreach", 2, 512, 2, False),
    ("llama fp32 full recompute", "fp32", "full", "adamw", "foreach", 2, 512, 2, False),
    ("llama bf16 adamw for-loop", "bf16", "none", "adamw", "for_loop", 2, 512, 2, False),
    ("llama bf16 full recompute, for-loop", "bf16", "full", "adamw", "for_loop", 2, 512, 2, False),
    ("llama bf16 sgd momentum", "bf16", "none", "sgd_momentum", "foreach", 2, 512, 2, False),
    ("llama fp32 sgd momentum, full recompute", "fp32", "full", "sgd_momentum", "foreach", 2, 512, 2, False),
    ("llama bf16 batch 4 x 256", "bf16", "none", "adamw", "foreach", 4, 256, 2, False),
    ("llama bf16 batch 1 x 1024", "bf16", "none", "adamw", "foreach", 1, 1024, 2, False),
    ("llama bf16 MHA (8 KV heads)", "bf16", "none", "adamw", "foreach", 2, 512, 8, False),
    ("llama bf16 tied embeddings", "bf16", "none", "adamw", "foreach", 2, 512, 2, True),
    ("llama fp32 batch 1 x 1024, full recompute", "fp32", "full", "adamw", "foreach", 1, 1024, 2, False),
    ("llama bf16 batch 8 x 128, for-loop", "bf16", "none", "adamw", "for_loop", 8, 128, 2, False),
]

DTYPES = {"bf16": torch.bfloat16, "fp32": torch.float32}
RECIPES = {"bf16": "pure_bf16", "fp32": "fp32"}


def build(dtype, recompute, optimizer, impl, kv_heads, tied):
    def make():
        model = CausalLM(VOCAB, HIDDEN, LAYERS, HEADS, kv_heads, FFN, tie=tied).to(DTYPES[dtype])
        model.checkpoint = recompute == "full"
        foreach = impl == "foreach"
        if optimizer == "sgd_momentum":
            opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9, foreach=foreach)
        else:
            opt = torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=foreach)
        return model, opt
    return make


def estimate(dtype, recompute, optimizer, impl, batch, seq, kv_heads, tied):
    keys = {
        "model_type": "llama", "hidden_size": HIDDEN, "num_hidden_layers": LAYERS,
        "num_attention_heads": HEADS, "num_key_value_heads": kv_heads, "vocab_size": VOCAB,
        "intermediate_size": FFN, "tie_word_embeddings": "true" if tied else "false",
        "mode": "training", "micro_batch_size": batch, "sequence_length": seq,
        "precision_recipe": RECIPES[dtype], "optimizer": optimizer, "recompute": recompute,
        "framework": "hf_trainer", "pytorch_version": "1.13", "optimizer_implementation": impl,
        "norm_fp32": "true", "runtime_overhead_bytes": 0, "device_kernels": "cpu",
    }
    out = estimate_json(keys)
    peak = out["training_peak"]
    return out["per_device"]["total"], peak["activations_held"] + peak["logits_held"], peak["phase"]


@pytest.mark.parametrize("name,dtype,recompute,optimizer,impl,batch,seq,kv_heads,tied", SCENARIOS,
                         ids=[s[0] for s in SCENARIOS])
def test_training_step(name, dtype, recompute, optimizer, impl, batch, seq, kv_heads, tied):
    torch.set_num_threads(2)
    m = measure(build(dtype, recompute, optimizer, impl, kv_heads, tied), VOCAB, batch, seq)
    peak, saved, phase = estimate(dtype, recompute, optimizer, impl, batch, seq, kv_heads, tied)
    ROWS.append((name, m.peak, peak, m.saved, saved, phase))
    assert abs(peak - m.peak) <= TOLERANCE * m.peak, (m.peak, peak, m.phase_peak)
    assert abs(saved - m.saved) <= TOLERANCE * m.saved, (m.saved, saved)
