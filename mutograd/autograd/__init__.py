"""Autograd: grad mode, the backward engine, nodes, and custom functions."""
from .anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .engine import backward, grad
from .function import Function, InplaceFunction, once_differentiable
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from . import graph   # a callable module: graph(y) draws, graph.saved_tensors_hooks ...
from . import forward_ad, functional   # forward mode; Jacobians, Hessians and their products
from .recompute import checkpoint, checkpoint_sequential

__all__ = ["Function", "InplaceFunction", "backward", "checkpoint", "checkpoint_sequential",
           "detect_anomaly", "enable_grad", "grad", "graph", "inference_mode",
           "is_anomaly_enabled", "is_grad_enabled", "no_grad", "once_differentiable",
           "set_detect_anomaly", "set_grad_enabled"]
