"""transformers' causal-LM loss, loss_utils.py ForCausalLMLoss with fixed_cross_entropy: the
logits upcast to fp32, the labels padded with -100 and shifted left (a contiguous copy), mean
cross-entropy ignoring -100."""
import torch
from torch import nn


def causal_lm_loss(logits, labels, ignore_index=-100):
    logits = logits.float()
    labels = nn.functional.pad(labels, (0, 1), value=ignore_index)
    shift_labels = labels[..., 1:].contiguous()
    logits = logits.view(-1, logits.size(-1))
    return nn.functional.cross_entropy(logits, shift_labels.view(-1), ignore_index=ignore_index, reduction="mean")
