"""``torch.autograd``: ``Function``, ``grad``, ``backward``, the grad-mode switches,
``torch.autograd.graph`` (the saved-tensor policies), ``functional`` (Jacobians, Hessians and
their products), ``forward_ad`` (dual tensors) and ``gradcheck``/``gradgradcheck``."""
from ....autograd import engine as _engine
from ....autograd.anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from ....autograd.function import Function, FunctionCtx
from ....autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from ....tensor import Tensor as _Tensor
from . import forward_ad, functional, graph
from .gradcheck import GradcheckError, gradcheck, gradgradcheck

__all__ = ["Function", "FunctionCtx", "GradcheckError", "Variable", "backward", "forward_ad",
           "functional", "gradcheck", "gradgradcheck", "is_multithreading_enabled",
           "is_view_replay_enabled",
           "set_multithreading_enabled", "variable", "detect_anomaly", "enable_grad",
           "grad", "graph", "inference_mode", "is_anomaly_enabled", "is_grad_enabled", "no_grad",
           "set_detect_anomaly", "set_grad_enabled"]


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs`` (a tuple), leaving ``.grad`` alone.

    An output without a ``grad_outputs`` entry must be a scalar, as in PyTorch.
    """
    if isinstance(inputs, graph.GradientEdge):
        inputs = (inputs,)
    inputs = [graph._edge_tensor(i) for i in inputs] if isinstance(inputs, (list, tuple)) \
        else inputs
    outs = list(outputs) if isinstance(outputs, (list, tuple)) and not _engine.is_edge(
        outputs) else [outputs]   # (a GradientEdge is a named tuple)
    gouts = grad_outputs
    if gouts is not None and not isinstance(gouts, (list, tuple)):
        gouts = [gouts]
    for i, o in enumerate(outs):
        if (gouts is None or gouts[i] is None) and hasattr(o, "numel") and o.numel() != 1:
            from ....errors import BackwardError
            raise BackwardError(f"grad can be implicitly created only for scalar outputs; got "
                                f"shape {list(o.shape)}")
    return _engine.grad(outs, inputs, grad_outputs, retain_graph, create_graph,
                        allow_unused=allow_unused)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate gradients of ``tensors`` into the leaves; implicit gradients need scalars."""
    _engine.backward(tensors, grad_tensors, retain_graph, inputs=inputs, scalar_only=True,
                     create_graph=create_graph)


class _VariableMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _Tensor)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, _Tensor)


class Variable(metaclass=_VariableMeta):
    """PyTorch's deprecated wrapper: ``Variable(t, requires_grad=...)`` is a new leaf sharing
    ``t``'s data (``t.detach()``), and every tensor is an instance of it.

        >>> import mutograd.compat.torch as torch
        >>> t = torch.ones(2)
        >>> v = torch.autograd.Variable(t, requires_grad=True)
        >>> v is t, v.is_leaf, v.requires_grad, isinstance(t, torch.autograd.Variable)
        (False, True, True, True)
    """

    def __new__(cls, data, requires_grad=False, volatile=False):
        if not isinstance(data, _Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(requires_grad)


def variable(*args, **kwargs):
    """Removed from PyTorch: raises, naming the replacement (as PyTorch does)."""
    raise RuntimeError("torch.autograd.variable(...) is deprecated, use torch.tensor(...) "
                       "instead")


def is_multithreading_enabled():
    """True: backward may be run from several threads (grad mode is per thread)."""
    return True


class set_multithreading_enabled:   # noqa: N801 - PyTorch's name
    """Accepted for PyTorch scripts (a context manager or a call); backward runs in the
    calling thread either way."""

    def __init__(self, mode):
        self.mode = bool(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def is_view_replay_enabled():
    """False, as PyTorch by default: a view's gradient comes from its base's history."""
    return False
