"""What autograd saves for backward, by storage: torch.autograd.graph.saved_tensors_hooks sees
every tensor an op packs; a storage is counted once however many views of it are saved, and
parameters (leaves that require grad) are not activations."""
import torch

# torch 1.13's MeanBackward1 saves its input (an RMSNorm's squared fp32 values); from 2.0 it keeps
# only the input's sizes (derivatives.yaml: mean_backward(grad, self.sym_sizes(), ...))
MEAN_SAVES_INPUT = int(torch.__version__.split(".")[0]) < 2


class Saved:
    """Context manager: bytes of the distinct non-parameter storages saved inside it."""

    def __init__(self, parameters=()):
        self._params = {p.data_ptr() for p in parameters}
        self._seen = {}

    def _pack(self, t):
        ptr = t.storage().data_ptr() if t.device.type == "cpu" else t.data_ptr()
        if ptr not in self._params and ptr not in self._seen:
            self._seen[ptr] = t.storage().nbytes()
        return t

    def __enter__(self):
        self._hooks = torch.autograd.graph.saved_tensors_hooks(self._pack, lambda t: t)
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc):
        self._hooks.__exit__(*exc)

    @property
    def bytes(self):
        return sum(self._seen.values())

    @property
    def count(self):
        return len(self._seen)
