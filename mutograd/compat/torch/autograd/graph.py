"""``torch.autograd.graph``: the saved-tensor policies (autograd/saved.py)."""
from ....autograd.saved import (
    allow_mutation_on_saved_tensors,
    disable_saved_tensors_hooks,
    increment_version,
    save_on_cpu,
    saved_tensors_hooks,
)

__all__ = ["allow_mutation_on_saved_tensors", "disable_saved_tensors_hooks",
           "increment_version", "save_on_cpu", "saved_tensors_hooks"]
