"""Autograd: grad mode, the backward engine, nodes, and custom functions."""
from .engine import backward, grad
from .function import Function
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled

__all__ = ["Function", "backward", "enable_grad", "grad", "inference_mode", "is_grad_enabled",
           "no_grad", "set_grad_enabled"]
