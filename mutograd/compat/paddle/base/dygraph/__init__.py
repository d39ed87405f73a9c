"""``paddle.base.dygraph``: the dygraph helpers (``guard``, ``to_variable``, ``grad``,
``no_grad``)."""
from ...autograd import grad  # paddle.base.dygraph.grad is paddle.grad
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

