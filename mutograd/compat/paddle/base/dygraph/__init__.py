"""``paddle.base.dygraph``: the dygraph helpers (``guard``, ``to_variable``, ``grad``,
``no_grad``)."""
from . import base
from .base import (
    disable_dygraph,
    enable_dygraph,
    enabled,
    guard,
    in_dygraph_mode,
    no_grad,
    no_grad_,
    to_variable,
)

__all__ = ["base", "disable_dygraph", "enable_dygraph", "enabled", "grad", "guard",
           "in_dygraph_mode", "no_grad", "no_grad_", "to_variable"]


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None):
    """``paddle.grad``: the gradients of ``outputs`` with respect to ``inputs`` (a list)."""
    from ... import grad as paddle_grad
    return paddle_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, only_inputs,
                       allow_unused, no_grad_vars)
