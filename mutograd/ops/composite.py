"""Public functions composed from declared ops (their gradients come from those ops)."""
from collections import namedtuple

from ..tensor import Tensor
from .axes import canon_dim
from .registry import OPS, call

_ValuesIndices = namedtuple("ValuesIndices", ["values", "indices"])


def _extreme(x, axis, keepdim, reduce, arg, other_op, name):
    if isinstance(axis, Tensor):          # max(x, y): the element-wise maximum
        return call(OPS[other_op], [x, axis], {})
    if axis is None and not keepdim:   # over all elements: its own gradient rule at NaN
        return call(OPS[name + "_all"], [x], {})
    if axis is None or not isinstance(axis, int):
        return call(OPS[reduce], [x], {"axis": axis, "keepdim": keepdim})
    if x.ndim == 0:   # its one element, after checking the dim (ops/axes.py)
        canon_dim(axis, 0, name)
        return _ValuesIndices(call(OPS[reduce], [x], {"axis": None, "keepdim": False}),
                              call(OPS[arg], [x], {"axis": None, "keepdim": False}))
    idx = call(OPS[arg], [x], {"axis": axis, "keepdim": keepdim})
    vals = call(OPS["values_at"], [x, idx], {"axis": axis, "keepdim": keepdim})
    return _ValuesIndices(vals, idx)


def max(x, axis=None, keepdim=False, dim=None, other=None, keepdims=None, name=None):
    """The largest value (``axis=None``), ``(values, indices)`` along an int ``axis``, or the
    element-wise maximum with a tensor."""
    if other is not None:
        axis = other
    return _extreme(x, axis if dim is None else dim, _keep(keepdim, keepdims), "amax", "argmax",
                    "maximum", "max")


def min(x, axis=None, keepdim=False, dim=None, other=None, keepdims=None, name=None):
    """As :func:`max`, for the smallest value."""
    if other is not None:
        axis = other
    return _extreme(x, axis if dim is None else dim, _keep(keepdim, keepdims), "amin", "argmin",
                    "minimum", "min")


def _keep(keepdim, keepdims):
    """``keepdim`` (PyTorch, Paddle) or ``keepdims`` (NumPy)."""
    return keepdim if keepdims is None else keepdims


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased in (None, True) else 0


def var(x, axis=None, unbiased=None, keepdim=False, dim=None, correction=None, keepdims=None,
        name=None):
    """Variance (unbiased by default, as both frameworks)."""
    if isinstance(axis, bool):   # PyTorch's ``var(x, unbiased)`` overload: no axis
        axis, unbiased = None, axis
    return call(OPS["var"], [x], {"axis": axis if dim is None else dim,
                                  "keepdim": _keep(keepdim, keepdims),
                                  "correction": _correction(unbiased, correction)})


def std(x, axis=None, unbiased=None, keepdim=False, dim=None, correction=None, keepdims=None,
        name=None):
    """Standard deviation (unbiased by default)."""
    if isinstance(axis, bool):   # PyTorch's ``std(x, unbiased)`` overload: no axis
        axis, unbiased = None, axis
    return call(OPS["std"], [x], {"axis": axis if dim is None else dim,
                                  "keepdim": _keep(keepdim, keepdims),
                                  "correction": _correction(unbiased, correction)})


def softmax(x, axis=-1, dtype=None, dim=None):
    """``exp(x) / sum(exp(x))`` along ``axis`` (default the last)."""
    if dtype is not None:
        x = call(OPS["astype"], [x], {"dtype": dtype})
    return call(OPS["softmax"], [x], {"axis": axis if dim is None else dim})


def log_softmax(x, axis=-1, dtype=None, dim=None):
    """``log(softmax(x))`` computed stably."""
    if dtype is not None:
        x = call(OPS["astype"], [x], {"dtype": dtype})
    return call(OPS["log_softmax"], [x], {"axis": axis if dim is None else dim})


def einsum(equation, *operands):
    """Einstein summation, with gradients for every operand."""
    from .registry import call_var
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = operands[0]
    return call_var(OPS["einsum"], list(operands), {"equation": equation})


def meshgrid(*tensors, indexing="ij"):
    """Coordinate grids from 1-D tensors: each result is a view of its input expanded to the
    full grid (``indexing='ij'``: matrix order; ``'xy'``: the first two axes swapped), so its
    gradient sums back into that input."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing not in ("ij", "xy"):
        raise ValueError(f"meshgrid: indexing must be 'ij' or 'xy', got {indexing!r}")
    for t in tensors:
        if t.ndim > 1:
            raise ValueError(f"meshgrid: expects 0-D or 1-D tensors, got shape {list(t.shape)}")
    order = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        order[0], order[1] = 1, 0
    shape = [tensors[i].numel() for i in order]
    out = []
    for i, t in enumerate(tensors):
        view = [1] * len(shape)
        view[order.index(i)] = -1
        out.append(t.reshape(view).expand(*shape))
    return tuple(out)
