"""``torch.autograd.graph``: the graph's structure (``Node``, ``GradientEdge``,
``get_gradient_edge``, ``register_multi_grad_hook``) and the saved-tensor policies
(``mutograd.autograd.graph``)."""
from ....autograd.graph import (
    GradientEdge,
    Node,
    allow_mutation_on_saved_tensors,
    disable_saved_tensors_hooks,
    get_gradient_edge,
    increment_version,
    register_multi_grad_hook,
    save_on_cpu,
    saved_tensors_hooks,
)

__all__ = ["GradientEdge", "Node", "allow_mutation_on_saved_tensors",
           "disable_saved_tensors_hooks", "get_gradient_edge", "increment_version",
           "register_multi_grad_hook", "save_on_cpu", "saved_tensors_hooks"]


def _edge_tensor(obj):
    """What ``torch.autograd.grad`` passes on for an input: the engine takes GradientEdges
    as they are."""
    return obj
