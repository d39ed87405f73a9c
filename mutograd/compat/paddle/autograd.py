"""``paddle.autograd``: ``PyLayer``, ``backward``, ``grad`` and ``saved_tensors_hooks``."""
from ...autograd import engine as _engine
from ...autograd.function import Function as PyLayer
from ...autograd.function import FunctionCtx as PyLayerContext
from ...autograd.grad_mode import no_grad
from ...autograd.saved import saved_tensors_hooks

__all__ = ["PyLayer", "PyLayerContext", "backward", "grad", "no_grad", "saved_tensors_hooks"]


def backward(tensors, grad_tensors=None, retain_graph=False):
    """Accumulate gradients of ``tensors`` into the leaves (ones for outputs without one)."""
    _engine.backward(tensors, grad_tensors, retain_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None):
    """The gradients of ``outputs`` with respect to ``inputs`` (a list)."""
    return list(_engine.grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
                             allow_unused=allow_unused))
