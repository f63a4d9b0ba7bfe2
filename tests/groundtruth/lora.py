"""PEFT-style LoRA following peft's tuners/lora/layer.py (LoraLayer.update_layer,
reset_lora_parameters, Linear.forward; read at a 2026 main) and tuners_utils.py
(cast_adapter_dtype, BaseTunerLayer._cast_input_dtype), op for op. Its own code, not a copy.

What PEFT does, and this module with it:
- each targeted nn.Linear becomes a wrapper holding the original as base_layer, lora_A
  (in -> r, no bias) and lora_B (r -> out, no bias), lora_dropout (nn.Dropout(p) when p > 0,
  else nn.Identity: no op at all) and scaling = alpha / r (a Python float);
- lora_A is initialized as nn.Linear's default, kaiming_uniform_(a=sqrt(5)), lora_B to zeros
  (init_lora_weights=True);
- get_peft_model's autocast_adapter_dtype=True (its default) makes the adapter weights fp32 when
  the base is fp16 or bf16;
- forward: result = base_layer(x); x is cast to lora_A's dtype when they differ (a copy in fp32
  for a bf16 model); result = result + lora_B(lora_A(dropout(x))) * scaling; the sum is cast
  back to the base result's dtype (with fp32 adapters on a bf16 base the sum is fp32 first);
- every parameter whose name lacks "lora_" stops requiring grad (bias="none").
A target matches a module whose qualified name is the target or ends with "." + target, as
PEFT's string target_modules do; no match raises, as PEFT does."""
import math

import torch
from torch import nn


class LoraLinear(nn.Module):
    def __init__(self, base, r, alpha=16, dropout=0.0, autocast_adapter_dtype=True):
        super().__init__()
        self.base_layer = base
        dtype = base.weight.dtype
        if autocast_adapter_dtype and dtype in (torch.float16, torch.bfloat16):
            dtype = torch.float32
        self.lora_dropout = nn.Dropout(p=dropout) if dropout > 0.0 else nn.Identity()
        self.lora_A = nn.Linear(base.in_features, r, bias=False).to(dtype)
        self.lora_B = nn.Linear(r, base.out_features, bias=False).to(dtype)
        nn.init.kaiming_uniform_(self.lora_A.weight, a=math.sqrt(5))
        nn.init.zeros_(self.lora_B.weight)
        self.scaling = alpha / r

    def forward(self, x):
        result = self.base_layer(x)
        dtype = result.dtype
        if x.dtype != self.lora_A.weight.dtype:  # _cast_input_dtype
            x = x.to(self.lora_A.weight.dtype)
        result = result + self.lora_B(self.lora_A(self.lora_dropout(x))) * self.scaling
        return result.to(dtype)


def apply_lora(model, r, targets=("q_proj", "v_proj"), alpha=16, dropout=0.0, autocast_adapter_dtype=True):
    """Wrap the nn.Linear modules named by `targets` with LoraLinear and freeze every other
    parameter, as get_peft_model(model, LoraConfig(r, alpha, target_modules, dropout)) does.
    Call it on the model in its training dtype (the adapters' dtype is chosen from the base)."""
    names = [
        name for name, module in model.named_modules()
        if isinstance(module, nn.Linear) and any(name == t or name.endswith("." + t) for t in targets)
    ]
    if not names:
        raise ValueError(f"target modules {list(targets)} not found in the model")
    for name in names:
        parent_name, _, child = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        setattr(parent, child, LoraLinear(getattr(parent, child), r, alpha, dropout, autocast_adapter_dtype))
    for name, p in model.named_parameters():
        p.requires_grad_("lora_" in name)
    return model


def enable_input_require_grads(embedding):
    """transformers' PreTrainedModel.enable_input_require_grads: a forward hook making the input
    embedding's output require grad. Reentrant checkpointing (use_reentrant=True) gives no
    gradient to a checkpointed segment none of whose tensor inputs requires grad, so with a
    frozen embedding the LoRA weights inside checkpointed layers get none without it;
    transformers calls it from gradient_checkpointing_enable when PEFT adapters are loaded
    through its integration, and PEFT's prepare_model_for_kbit_training calls it too."""

    def hook(module, inputs, output):
        output.requires_grad_(True)

    return embedding.register_forward_hook(hook)
