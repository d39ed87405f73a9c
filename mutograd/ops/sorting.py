"""Ordering: ``argsort``, ``sort``, ``topk``, ``msort``.

The index ops are declared with ``defop`` (not differentiable); the values of ``sort`` and
``topk`` are a ``gather`` at those indices, so their gradient is the gather's scatter.

    >>> import mutograd as mg
    >>> v, i = mg.topk(mg.tensor([1., 5., 3.]), 2)
    >>> v.tolist(), i.tolist()
    ([5.0, 3.0], [1, 2])
"""
import numpy as np

from ..errors import ShapeError
from .axes import canon_dim
from .reduction import ValuesIndices
from .registry import OPS, call, defop


def _argsort(xp, x, *, axis=-1, descending=False, stable=False):
    axis = canon_dim(axis, x.ndim, "argsort")
    if x.ndim == 0:
        return xp.zeros((), np.int64)
    # descending: a stable ascending sort of a key in reversed order, so that equal elements
    # keep their original order (PyTorch's stable sort) and NaN, the largest, comes first
    if not descending:
        idx = xp.argsort(x, axis=axis, kind="stable")
    elif x.dtype.kind in "fc":   # by -x, then NaN first: two stable sorts (CuPy's lexsort has
        order = xp.argsort(-x, axis=axis, kind="stable")            # no axis)
        nan_last = xp.take_along_axis(~xp.isnan(x), order, axis=axis)
        idx = xp.take_along_axis(order, xp.argsort(nan_last, axis=axis, kind="stable"), axis=axis)
    else:
        idx = xp.argsort(~x, axis=axis, kind="stable")   # ~x reverses ints and bools exactly
    return idx.astype(np.int64, copy=False)


def _argtopk(xp, x, *, k, axis=-1, largest=True):
    idx = _argsort(xp, x, axis=axis, descending=largest)
    return xp.take(idx, xp.arange(k), axis=axis) if x.ndim else idx


defop("argsort", _argsort, kind="other", inplace=False, layout="input")
defop("argtopk", _argtopk, kind="other", inplace=False, method=False)


def _gather(x, idx, axis):
    if x.ndim == 0:          # a 0-d tensor is its own sort
        return call(OPS["clone"], [x], {"memory_format": None})
    return call(OPS["gather"], [x, idx], {"axis": axis})


def _axis(x, axis, dim, name):
    a = axis if dim is None else dim
    canon_dim(a, x.ndim, name)
    return a


def sort(x, axis=-1, descending=False, stable=False, dim=None, name=None):
    """``(values, indices)`` of ``x`` sorted along ``axis`` (stable; equal elements keep their
    order).

        >>> import mutograd as mg
        >>> mg.sort(mg.tensor([[3., 1., 2.]]), descending=True).values.tolist()
        [[3.0, 2.0, 1.0]]
    """
    a = _axis(x, axis, dim, "sort")
    idx = call(OPS["argsort"], [x], {"axis": a, "descending": descending, "stable": stable})
    return ValuesIndices(_gather(x, idx, a), idx)


def topk(x, k, axis=-1, largest=True, sorted=True, dim=None, name=None):
    """``(values, indices)`` of the ``k`` largest (``largest=False``: smallest) elements along
    ``axis``, in sorted order.

        >>> import mutograd as mg
        >>> mg.topk(mg.tensor([1., 5., 3.]), 1).indices.tolist()
        [1]
    """
    a = _axis(x, axis, dim, "topk")
    k = int(k)
    n = x.shape[a] if x.ndim else 1
    if not 0 <= k <= n:
        raise ShapeError(f"topk(): k ({k}) is out of range for a dimension of size {n}")
    idx = call(OPS["argtopk"], [x], {"k": k, "axis": a, "largest": largest})
    return ValuesIndices(_gather(x, idx, a), idx)


def msort(input):
    """``input`` sorted along dimension 0."""
    return input.sort(0)[0]


FUNCTIONS = {"sort": sort, "topk": topk, "msort": msort}
