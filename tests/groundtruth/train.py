"""One training step as transformers' Trainer runs it (trainer.py training_step and the loop
around it): compute_loss keeps the loss and drops the model's outputs, backward, the optimizer's
step, then model.zero_grad() with set_to_none=True (PyTorch 2.x's default; 1.13's is False).
The second step is measured: the first creates the optimizer's states. The heap counter
(memcount) gives the bytes in use, per phase; the census (saved.py) what the forward saves."""
import contextlib

import torch

import memcount
from loss import causal_lm_loss
from saved import Saved

PHASES = ("forward", "loss", "backward", "optimizer")


class Measured:
    def __init__(self):
        self.peak = 0          # the step's highest heap bytes over the heap before the model existed
        self.phase_peak = {}   # each phase's highest point, the same way
        self.saved = 0         # bytes of the storages the forward and the loss saved
        self.start = 0         # bytes held when the step starts (weights, optimizer states)


def measure(build, vocab, batch, seq, autocast=None, seed=0):
    """build() -> (model, optimizer), called after the heap's baseline is read."""
    torch.manual_seed(seed)
    base = memcount.current()
    model, optimizer = build()
    ids = torch.randint(vocab, (batch, seq))
    labels = ids.clone()
    params = list(model.parameters())
    m = Measured()

    def phase(name, run):
        memcount.reset_peak()
        out = run()
        m.phase_peak[name] = max(m.phase_peak.get(name, 0), memcount.peak() - base)
        return out

    def step(census):
        amp = torch.autocast("cpu", dtype=autocast) if autocast else contextlib.nullcontext()
        with census, amp:
            logits = phase("forward", lambda: model(ids))
            loss = phase("loss", lambda: causal_lm_loss(logits, labels))
        del logits  # compute_loss returns the loss alone: the outputs go
        phase("backward", loss.backward)
        del loss
        phase("optimizer", optimizer.step)
        optimizer.zero_grad(set_to_none=True)

    step(contextlib.nullcontext())
    m.phase_peak = {}
    m.start = memcount.current() - base
    census = Saved(params)
    step(census)
    m.saved = census.bytes
    m.peak = max(m.phase_peak.values())
    return m
