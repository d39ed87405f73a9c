"""``paddle.autograd``: ``PyLayer``, ``backward``, ``grad``, ``jacobian``, the grad-mode switches
and ``saved_tensors_hooks``."""
from ...autograd import engine as _engine
from ...autograd.function import Function as PyLayer
from ...autograd.function import FunctionCtx as PyLayerContext
from ...autograd.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from ...autograd.saved import saved_tensors_hooks

__all__ = ["Function", "PyLayer", "PyLayerContext", "backward", "enable_grad", "grad",
           "is_grad_enabled", "jacobian", "no_grad", "saved_tensors_hooks", "set_grad_enabled"]


def backward(tensors, grad_tensors=None, retain_graph=False):
    """Accumulate gradients of ``tensors`` into the leaves (ones for outputs without one)."""
    _engine.backward(tensors, grad_tensors, retain_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None):
    """The gradients of ``outputs`` with respect to ``inputs`` (a list)."""
    return list(_engine.grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
                             allow_unused=allow_unused, no_grad_vars=no_grad_vars))


Function = PyLayer


def _flat(t):
    return t.reshape([-1])


def jacobian(ys, xs, batch_axis=None):
    """d ys / d xs as a tensor [ys.numel(), xs.numel()] (with ``batch_axis=0``: [B, ys per
    sample, xs per sample]); a tuple when ``ys`` or ``xs`` is one. Each row is one
    ``grad`` call over the retained graph."""
    if isinstance(ys, (tuple, list)) or isinstance(xs, (tuple, list)):
        ys_t = ys if isinstance(ys, (tuple, list)) else [ys]
        xs_t = xs if isinstance(xs, (tuple, list)) else [xs]
        out = tuple(tuple(jacobian(y, x, batch_axis) for x in xs_t) for y in ys_t)
        if not isinstance(ys, (tuple, list)):
            return out[0]
        return out if isinstance(xs, (tuple, list)) else tuple(o[0] for o in out)
    from ...ops.creation import zeros
    from ...ops.shaping import stack
    if batch_axis is not None:
        rows = []
        b = ys.shape[0]
        per_y = ys.reshape([b, -1])
        for j in range(per_y.shape[1]):
            g, = _engine.grad([per_y[:, j].sum()], [xs], retain_graph=True, allow_unused=True)
            rows.append((zeros(list(xs.shape)) if g is None else g).reshape([b, -1]))
        return stack(rows, 1)
    flat = _flat(ys)
    rows = []
    for i in range(flat.shape[0]):
        g, = _engine.grad([flat[i]], [xs], retain_graph=True, allow_unused=True)
        rows.append(_flat(zeros(list(xs.shape)) if g is None else g))
    return stack(rows, 0)
