"""Training steps of MoE, MLA and LoRA models measured against the estimate, as test_training.py
does for Llama: each scenario builds an eager model that follows transformers (mixtral.py,
deepseek.py) or PEFT (lora.py over llama.py), runs two Trainer-style steps (train.py) and compares
the second step's peak heap bytes and the bytes its forward saved with `llmmem estimate` for the
same job. The keys say what this PyTorch is, as in test_training.py (1.13, eager attention,
foreach AdamW, fp32 norms, no CUDA context), and name transformers' eager experts loop
(experts_implementation=eager, what framework=hf_trainer picks anyway).

Routing. The seed is fixed (train.measure seeds 0), so the tokens route the same on every run,
as the random router routes them: unevenly. The estimate assumes nothing about the spread: every
saved tensor of the experts is per token-expert assignment (where's index pair, the gathered
state, gate/up/silu/product, the weighted output, index_add_'s source), and there are T * top_k
assignments whatever the router does (dropless: transformers has no capacity factor). The spread
changes only how long one expert's working set lives, a few MB at this size.

What the measured peak has that the estimate does not: the eager experts run bf16 GEMMs of a new
shape for each expert's token count, and oneDNN (torch's CPU matmul for bf16) caches a primitive
with its buffers for each shape; about 10 MB here stays allocated across steps (it goes with
ONEDNN_PRIMITIVE_CACHE_CAPACITY=0). It is a CPU artifact, counted in the measured peak and not in
the estimate (runtime_overhead_bytes=0): the MoE peaks read about 2% low for it.

LoRA follows PEFT's get_peft_model: r on the named projections, alpha 16, dropout 0, the adapters
fp32 over the bf16 base (autocast_adapter_dtype), every other parameter frozen, the optimizer over
the trainable parameters alone (Trainer.create_optimizer). With full recomputation the embedding's
output is made to require grad (enable_input_require_grads, as transformers' and PEFT's gradient
checkpointing setup do: reentrant checkpointing gives the adapters no gradient otherwise); without
it, it does not, and the first layer's input norm runs unrecorded (input_requires_grad auto)."""
import os

import pytest

torch = pytest.importorskip("torch")

import deepseek  # noqa: E402
import llama  # noqa: E402
import memcount  # noqa: E402
from cli import estimate_json  # noqa: E402
import mixtral  # noqa: E402
from conftest import ROWS  # noqa: E402
from lora import apply_lora, enable_input_require_grads  # noqa: E402
from train import measure  # noqa: E402

pytestmark = pytest.mark.skipif(not memcount.available() or "LLMMEM_CLI" not in os.environ,
                                reason="run by meson test (memcount in LD_PRELOAD, LLMMEM_CLI set)")

TOLERANCE = 0.03
VOCAB, HIDDEN, LAYERS, HEADS, KV_HEADS, FFN = 8192, 512, 4, 8, 2, 1408
BATCH, SEQ = 2, 512
EXPERTS, TOP_K = 8, 2
# DeepSeek-V3's shape, scaled down: MLA ranks and head dims, 8 routed experts in 4 groups (top 2
# groups, top-2 experts), one shared expert, the first layer dense
MLA = dict(q_lora_rank=192, kv_lora_rank=128, qk_nope_head_dim=64, qk_rope_head_dim=32, v_head_dim=64)
MOE_FFN = 352
DS_MOE = dict(moe_intermediate=MOE_FFN, experts=EXPERTS, top_k=TOP_K, groups=4, topk_group=2, shared=1)
PEFT_NAMES = {"q": "q_proj", "k": "k_proj", "v": "v_proj", "o": "o_proj", "gate": "gate_proj", "up": "up_proj",
              "down": "down_proj"}

COMMON = {
    "vocab_size": VOCAB, "hidden_size": HIDDEN, "num_hidden_layers": LAYERS, "num_attention_heads": HEADS,
    "tie_word_embeddings": "false", "micro_batch_size": BATCH, "sequence_length": SEQ,
    "precision_recipe": "pure_bf16", "optimizer": "adamw", "framework": "hf_trainer", "pytorch_version": "1.13",
    "optimizer_implementation": "foreach", "norm_fp32": "true", "runtime_overhead_bytes": 0, "device_kernels": "cpu",
}
MIXTRAL_KEYS = {"model_type": "mixtral", "num_key_value_heads": KV_HEADS, "intermediate_size": FFN,
                "num_experts": EXPERTS, "num_experts_per_tok": TOP_K, "experts_implementation": "eager"}
DEEPSEEK_KEYS = {"model_type": "deepseek_v3", "intermediate_size": FFN, "moe_intermediate_size": MOE_FFN,
                 "num_experts": EXPERTS, "num_experts_per_tok": TOP_K, "n_shared_experts": 1,
                 "first_k_dense_replace": 1, "experts_implementation": "eager", **MLA}
LLAMA_KEYS = {"model_type": "llama", "num_key_value_heads": KV_HEADS, "intermediate_size": FFN}


def mixtral_model():
    return mixtral.CausalLM(VOCAB, HIDDEN, LAYERS, HEADS, KV_HEADS, FFN, EXPERTS, TOP_K)


def deepseek_model():
    return deepseek.CausalLM(VOCAB, HIDDEN, LAYERS, HEADS, FFN, first_k_dense_replace=1, moe=DS_MOE, **MLA)


def llama_model():
    return llama.CausalLM(VOCAB, HIDDEN, LAYERS, HEADS, KV_HEADS, FFN)


# name, model, keys, recompute, LoRA (rank, targets) or None
SCENARIOS = [
    ("mixtral bf16 adamw foreach", mixtral_model, MIXTRAL_KEYS, "none", None),
    ("mixtral bf16 full recompute", mixtral_model, MIXTRAL_KEYS, "full", None),
    ("deepseek-v3 MLA+MoE bf16 adamw foreach", deepseek_model, DEEPSEEK_KEYS, "none", None),
    ("llama bf16 LoRA r8 q,v", llama_model, LLAMA_KEYS, "none", (8, "q,v")),
    ("llama bf16 LoRA r8 q,v, full recompute", llama_model, LLAMA_KEYS, "full", (8, "q,v")),
    ("llama bf16 LoRA r16 all linears", llama_model, LLAMA_KEYS, "none", (16, "q,k,v,o,gate,up,down")),
]


def build(model_fn, recompute, lora):
    def make():
        model = model_fn().to(torch.bfloat16)
        if lora:
            rank, targets = lora
            apply_lora(model, rank, [PEFT_NAMES[t] for t in targets.split(",")])
        model.checkpoint = recompute == "full"
        if lora and model.checkpoint:
            enable_input_require_grads(model.embed_tokens)
        trained = [p for p in model.parameters() if p.requires_grad]
        return model, torch.optim.AdamW(trained, lr=1e-3, foreach=True)
    return make


def estimate(keys, recompute, lora):
    keys = {**COMMON, **keys, "recompute": recompute, "mode": "training"}
    if lora:
        keys.update({"mode": "lora", "lora_rank": lora[0], "lora_targets": lora[1]})
    out = estimate_json(keys)
    peak = out["training_peak"]
    return out["per_device"]["total"], peak["activations_held"] + peak["logits_held"], peak["phase"]


@pytest.mark.parametrize("name,model_fn,keys,recompute,lora", SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_training_step(name, model_fn, keys, recompute, lora):
    torch.set_num_threads(2)
    m = measure(build(model_fn, recompute, lora), VOCAB, BATCH, SEQ)
    peak, saved, phase = estimate(keys, recompute, lora)
    ROWS.append((name, m.peak, peak, m.saved, saved, phase))
    assert abs(peak - m.peak) <= TOLERANCE * m.peak, (m.peak, peak, m.phase_peak)
    assert abs(saved - m.saved) <= TOLERANCE * m.saved, (m.saved, saved)
