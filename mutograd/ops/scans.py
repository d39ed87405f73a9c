"""Cumulative ops along a dimension, composed from declared ops (their gradients come from
those): logcumsumexp, cummax, cummin, diff, trapezoid (``trapz``), cumulative_trapezoid. The
declared scans ``cumsum`` and ``cumprod`` are in reduction.py.

    >>> import mutograd as mg
    >>> mg.diff(mg.tensor([1.0, 4.0, 9.0])).tolist()
    [3.0, 5.0]
    >>> v, i = mg.cummax(mg.tensor([1.0, 3.0, 2.0]), 0)
    >>> v.tolist(), i.tolist()
    ([1.0, 3.0, 3.0], [0, 1, 1])
    >>> mg.trapezoid(mg.tensor([1.0, 2.0, 3.0])).item()
    4.0
"""
import numpy as np

from ..tensor import Tensor, _wrap
from . import creation
from .reduction import ValuesIndices
from .registry import OPS
from .shaping import cat


def logcumsumexp(input, dim):
    """``log(cumsum(exp(input)))`` along ``dim``, computed stably."""
    where = OPS["where"].function
    m = input.detach().amax(dim, keepdim=True)
    m = where(m.isinf(), 0.0, m)
    return (input - m).exp().cumsum(dim).log() + m


def _running(input, dim, better):
    """Values and indices of the running extreme along ``dim``; the values are gathered at the
    indices, so the gradient goes to the element that won (the last of equal ones)."""
    d = dim % max(input.ndim, 1)
    a = np.moveaxis(input.detach().numpy().reshape(input.shape or (1,)), d, -1)
    idx = np.zeros(a.shape, np.int64)
    best = a[..., 0].copy()
    for i in range(1, a.shape[-1]):
        take = better(a[..., i], best) | (a[..., i] == best) | np.isnan(a[..., i])
        best = np.where(take, a[..., i], best)
        idx[..., i] = np.where(take, i, idx[..., i - 1])
    idx = creation.tensor(np.moveaxis(idx, -1, d).reshape(input.shape))
    if input.ndim == 0:
        return ValuesIndices(input * 1, idx)
    return ValuesIndices(input.gather(d, idx), idx)


def cummax(input, dim):
    """``(values, indices)`` of the running maximum along ``dim``."""
    return _running(input, dim, np.greater)


def cummin(input, dim):
    """``(values, indices)`` of the running minimum along ``dim``."""
    return _running(input, dim, np.less)


def diff(x, n=1, dim=-1, prepend=None, append=None, axis=None):
    """The ``n``-th forward difference along ``dim``, after joining ``prepend``/``append``."""
    axis = (dim if axis is None else axis) % x.ndim
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        x = cat([p if isinstance(p, Tensor) else _wrap(np.asarray(p)) for p in parts], axis)
    for _ in range(n):
        m = x.shape[axis]
        x = x.narrow(axis, 1, m - 1) - x.narrow(axis, 0, m - 1) if m else x
    return x


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoidal rule along ``dim`` (spacing ``dx``, default 1, or sample points ``x``)."""
    n = y.shape[dim]
    mid = y.narrow(dim, 1, n - 1) + y.narrow(dim, 0, n - 1)
    if x is not None:
        d = x.narrow(-1 if x.ndim == 1 else dim, 1, n - 1) - x.narrow(
            -1 if x.ndim == 1 else dim, 0, n - 1)
        return (mid * d).sum(dim) / 2
    return mid.sum(dim) * ((1.0 if dx is None else dx) / 2)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoidal integral along ``dim``."""
    n = y.shape[dim]
    mid = y.narrow(dim, 1, n - 1) + y.narrow(dim, 0, n - 1)
    if x is not None:
        mid = mid * (x.narrow(-1 if x.ndim == 1 else dim, 1, n - 1)
                     - x.narrow(-1 if x.ndim == 1 else dim, 0, n - 1))
    else:
        mid = mid * (1.0 if dx is None else dx)
    return mid.cumsum(dim) / 2


Tensor.cummax = cummax
Tensor.cummin = cummin
FUNCTIONS = {f.__name__: f for f in (logcumsumexp, cummax, cummin, diff, trapezoid,
                                     cumulative_trapezoid)}
FUNCTIONS["trapz"] = trapezoid
