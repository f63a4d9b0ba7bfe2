"""Mixed precision by autocast measured against the estimate: test_training.py's Llama and step
with fp32 weights, fp32 gradients and fp32 AdamW states, the forward and the loss under
torch.autocast("cpu", dtype=torch.bfloat16) as transformers' Trainer runs them with bf16=True
(train.py measure(..., autocast=torch.bfloat16)). The estimate is asked with precision_recipe=fp32
and autocast=bf16; the other keys say what this PyTorch is, as in test_training.py. What a layer
saves under autocast is derived in test_llama_autocast_saved.py."""
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
# test_training.py's Llama
VOCAB, HIDDEN, LAYERS, HEADS, KV_HEADS, FFN = 8192, 512, 4, 8, 2, 1408

# name, recompute, optimizer, batch, seq, tied
SCENARIOS = [
    ("llama autocast bf16 adamw foreach", "none", "adamw", 2, 512, False),
    ("llama autocast bf16 full recompute", "full", "adamw", 2, 512, False),
    # no optimizer state: the peak is the loss's forward, where the checkpointed layers' cached
    # bf16 weights are still held (the autocast region ends after the loss)
    ("llama autocast bf16 sgd, full recompute", "full", "sgd", 2, 512, False),
    ("llama autocast bf16 tied embeddings", "none", "adamw", 2, 512, True),
]


def build(recompute, optimizer, tied):
    def make():
        model = CausalLM(VOCAB, HIDDEN, LAYERS, HEADS, KV_HEADS, FFN, tie=tied)  # fp32
        model.checkpoint = recompute == "full"
        if optimizer == "sgd":
            opt = torch.optim.SGD(model.parameters(), lr=1e-3, foreach=True)
        else:
            opt = torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=True)
        return model, opt
    return make


def estimate(recompute, optimizer, batch, seq, tied):
    keys = {
        "model_type": "llama", "hidden_size": HIDDEN, "num_hidden_layers": LAYERS,
        "num_attention_heads": HEADS, "num_key_value_heads": KV_HEADS, "vocab_size": VOCAB,
        "intermediate_size": FFN, "tie_word_embeddings": "true" if tied else "false",
        "mode": "training", "micro_batch_size": batch, "sequence_length": seq,
        "precision_recipe": "fp32", "autocast": "bf16", "optimizer": optimizer, "recompute": recompute,
        "framework": "hf_trainer", "pytorch_version": "1.13", "optimizer_implementation": "foreach",
        "norm_fp32": "true", "runtime_overhead_bytes": 0, "device_kernels": "cpu",
    }
    out = estimate_json(keys)
    peak = out["training_peak"]
    return out["per_device"]["total"], peak["activations_held"] + peak["logits_held"], peak["phase"]


@pytest.mark.parametrize("name,recompute,optimizer,batch,seq,tied", SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_autocast_training_step(name, recompute, optimizer, batch, seq, tied):
    torch.set_num_threads(2)
    m = measure(build(recompute, optimizer, tied), VOCAB, batch, seq, autocast=torch.bfloat16)
    peak, saved, phase = estimate(recompute, optimizer, batch, seq, tied)
    ROWS.append((name, m.peak, peak, m.saved, saved, phase))
    assert abs(peak - m.peak) <= TOLERANCE * m.peak, (m.peak, peak, m.phase_peak)
    assert abs(saved - m.saved) <= TOLERANCE * m.saved, (m.saved, saved)
