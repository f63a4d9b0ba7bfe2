"""Training steps of GPT-2 and Gemma-2 measured against the estimate, as test_training.py does for
Llama: each scenario builds the eager model that follows transformers' code (gpt2.py, gemma2.py),
runs two Trainer-style steps (train.py) and compares the second step's peak heap bytes and the
bytes its forward saved with `llmmem estimate` for the same job.

The keys say what runs here: PyTorch 1.13 (pytorch_version), transformers' Trainer (framework), the
optimizer's implementation, runtime_overhead_bytes=0 (no CUDA context), and device_kernels=cpu:
on a CPU at::dropout draws its mask in the input's dtype and layer_norm keeps its mean and rstd in
the input's dtype (CUDA: a bool mask, fp32 statistics). GPT-2's LayerNorm does not upcast
(norm_fp32 false); Gemma2RMSNorm does (norm_fp32 true)."""
import os

import pytest

torch = pytest.importorskip("torch")

import gemma2  # noqa: E402
import gpt2  # noqa: E402
import memcount  # noqa: E402
from cli import estimate_json  # noqa: E402
from conftest import ROWS  # noqa: E402
from train import measure  # noqa: E402

pytestmark = pytest.mark.skipif(not memcount.available() or "LLMMEM_CLI" not in os.environ,
                                reason="run by meson test (memcount in LD_PRELOAD, LLMMEM_CLI set)")

TOLERANCE = 0.03
VOCAB, HIDDEN, LAYERS, HEADS, POSITIONS = 8192, 512, 4, 8, 1024
# Gemma-2: GQA, head_dim 64, a window of 256 tokens under 512-token sequences (even layers slide)
KV_HEADS, HEAD_DIM, FFN, WINDOW = 2, 64, 1408, 256

# name, model, dtype, recompute, dropout, optimizer implementation, batch, seq
SCENARIOS = [
    ("gpt2 bf16 dropout 0.1", "gpt2", "bf16", "none", 0.1, "foreach", 2, 512),
    ("gpt2 bf16 dropout 0.1, full recompute", "gpt2", "bf16", "full", 0.1, "foreach", 2, 512),
    ("gpt2 fp32 dropout 0.1", "gpt2", "fp32", "none", 0.1, "foreach", 2, 512),
    ("gpt2 bf16 no dropout", "gpt2", "bf16", "none", 0.0, "foreach", 2, 512),
    ("gpt2 fp32 no dropout, full recompute", "gpt2", "fp32", "full", 0.0, "foreach", 2, 512),
    ("gemma2 bf16 (window 256 of 512)", "gemma2", "bf16", "none", 0.0, "foreach", 2, 512),
    ("gemma2 bf16 full recompute", "gemma2", "bf16", "full", 0.0, "foreach", 2, 512),
    ("gemma2 fp32", "gemma2", "fp32", "none", 0.0, "foreach", 2, 512),
]

DTYPES = {"bf16": torch.bfloat16, "fp32": torch.float32}
RECIPES = {"bf16": "pure_bf16", "fp32": "fp32"}


def build(model_type, dtype, recompute, dropout, impl):
    def make():
        if model_type == "gpt2":
            model = gpt2.CausalLM(VOCAB, HIDDEN, LAYERS, HEADS, positions=POSITIONS, dropout=dropout)
        else:
            model = gemma2.CausalLM(VOCAB, HIDDEN, LAYERS, HEADS, KV_HEADS, FFN, head_dim=HEAD_DIM,
                                    sliding_window=WINDOW)
        model = model.to(DTYPES[dtype])
        model.checkpoint = recompute == "full"
        return model, torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=impl == "foreach")
    return make


def estimate(model_type, dtype, recompute, dropout, impl, batch, seq):
    keys = {
        "model_type": model_type, "hidden_size": HIDDEN, "num_hidden_layers": LAYERS,
        "num_attention_heads": HEADS, "vocab_size": VOCAB,
        "mode": "training", "micro_batch_size": batch, "sequence_length": seq,
        "precision_recipe": RECIPES[dtype], "optimizer": "adamw", "recompute": recompute,
        "framework": "hf_trainer", "pytorch_version": "1.13", "optimizer_implementation": impl,
        "dropout": "true" if dropout > 0 else "false", "device_kernels": "cpu",
        "runtime_overhead_bytes": 0,
    }
    if model_type == "gpt2":
        keys.update({"max_position_embeddings": POSITIONS, "norm_fp32": "false"})
    else:
        keys.update({"num_key_value_heads": KV_HEADS, "head_dim": HEAD_DIM, "intermediate_size": FFN,
                     "sliding_window": WINDOW, "norm_fp32": "true"})
    out = estimate_json(keys)
    peak = out["training_peak"]
    return out["per_device"]["total"], peak["activations_held"] + peak["logits_held"], peak["phase"]


@pytest.mark.parametrize("name,model_type,dtype,recompute,dropout,impl,batch,seq", SCENARIOS,
                         ids=[s[0] for s in SCENARIOS])
def test_training_step(name, model_type, dtype, recompute, dropout, impl, batch, seq):
    torch.set_num_threads(2)
    m = measure(build(model_type, dtype, recompute, dropout, impl), VOCAB, batch, seq)
    peak, saved, phase = estimate(model_type, dtype, recompute, dropout, impl, batch, seq)
    ROWS.append((name, m.peak, peak, m.saved, saved, phase))
    assert abs(peak - m.peak) <= TOLERANCE * m.peak, (m.peak, peak, m.phase_peak)
    assert abs(saved - m.saved) <= TOLERANCE * m.saved, (m.saved, saved)
