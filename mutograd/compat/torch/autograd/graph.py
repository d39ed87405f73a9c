"""``torch.autograd.graph``: the saved-tensor policies (autograd/saved.py)."""
from ....autograd.saved import (
    allow_mutation_on_saved_tensors,
    disable_saved_tensors_hooks,
    increment_version,
    save_on_cpu,
    saved_tensors_hooks,
)

import collections as _collections

__all__ = ["GradientEdge", "allow_mutation_on_saved_tensors", "disable_saved_tensors_hooks",
           "get_gradient_edge", "increment_version", "save_on_cpu", "saved_tensors_hooks"]


class GradientEdge(_collections.namedtuple("GradientEdge", ["node", "output_nr"])):
    """Where a tensor's gradient enters the graph: its ``grad_fn`` and output index.
    ``torch.autograd.grad(out, edge)`` gives the gradient flowing into it."""


def get_gradient_edge(tensor):
    """The :class:`GradientEdge` of ``tensor``; it can be passed to ``torch.autograd.grad`` as
    an input, for the gradient of ``tensor``.

        >>> import mutograd.compat.torch as torch
        >>> x = torch.ones(2, requires_grad=True)
        >>> y = x * 2
        >>> torch.autograd.grad(y.sum(), torch.autograd.graph.get_gradient_edge(y))
        (tensor([1., 1.]),)
    """
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does "
                           "not require gradients")
    edge = GradientEdge(tensor.grad_fn, 0)
    edge._tensor = tensor        # the edge is a tuple, as PyTorch's; grad() needs the tensor
    return edge


def _edge_tensor(obj):
    """The tensor of a GradientEdge made by get_gradient_edge, or ``obj`` unchanged."""
    if isinstance(obj, GradientEdge):
        if not hasattr(obj, "_tensor"):
            raise RuntimeError("torch.autograd.grad: a GradientEdge must come from "
                               "torch.autograd.graph.get_gradient_edge()")
        return obj._tensor
    return obj
