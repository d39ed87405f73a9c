"""Reductions over ``axis`` (alias ``dim``) with ``keepdim``: the declared ops (sum, mean, prod,
amax/amin, argmax/argmin, all/any, var, std, norm, logsumexp) and the public functions composed
from them (max, min, aminmax, sum_to_size). Softmax is in softmax.py, the cumulative ops
(cumsum, cumprod, ...) in scans.py.

    >>> import mutograd as mg
    >>> v, i = mg.max(mg.tensor([[1.0, 5.0], [7.0, 2.0]]), 1)
    >>> v.tolist(), i.tolist()
    ([5.0, 7.0], [1, 0])
    >>> lo, hi = mg.aminmax(mg.tensor([3.0, -1.0, 2.0]))
    >>> lo.item(), hi.item()
    (-1.0, 3.0)
"""
import math
from collections import namedtuple

import numpy as np

from ..autograd.graph_arrays import GraphNamespace
from ..errors import DTypeError
from ..tensor import Tensor
from .axes import canon_dim, canon_dims, keepdim_arg
from .elementwise import sign
from .gradients import masked
from .registry import OPS, call, defop

# what max/min along a dim, sort, topk, kthvalue and cummax return
ValuesIndices = namedtuple("ValuesIndices", ["values", "indices"])


def _axes(axis, ndim):
    """``axis`` as a sorted tuple of non-negative ints (None: every axis; a 0-d tensor: none)."""
    if axis is None or axis == [] or axis == ():
        return tuple(range(ndim))
    return canon_dims(axis, ndim, "reduction")


def _np_axis(axis, ndim, what="reduction"):
    """``axis`` for the backend: checked (ops/axes.py), non-negative, None for every axis (and
    for a 0-d tensor, whose dims 0 and -1 are its one element)."""
    if axis is None or axis == [] or axis == ():
        return None
    dims = canon_dims(axis, ndim, what)
    if not dims:
        return None
    return dims[0] if isinstance(axis, int) else dims


def expand_back(xp, g, x_shape, axis, keepdim):
    """Broadcast a reduced gradient back to the input's shape (a view: no copy)."""
    if not keepdim and x_shape:   # the reduced axes back as ones: one reshape
        axes = _axes(axis, len(x_shape))
        g = g.reshape(tuple(1 if i in axes else n for i, n in enumerate(x_shape)))
    return xp.broadcast_to(g, x_shape)


def _count(x_shape, axis):
    n = 1
    for a in _axes(axis, len(x_shape)):
        n *= x_shape[a] if x_shape else 1
    return n


def _sum(xp, x, axis=None, keepdim=False, dtype=None):
    if dtype is None and x.dtype.kind in "bui" and x.dtype != xp.uint64:
        dtype = xp.int64   # PyTorch and Paddle sum integers and bools as int64
    # the array's method: NumPy's np.sum wrapper costs as much again as a small sum itself
    return x.sum(axis=_np_axis(axis, x.ndim, "sum"), keepdims=keepdim, dtype=dtype)


defop("sum", _sum, kind="reduction", inplace=False,
      grad=lambda g, x_shape, axis, keepdim, xp: expand_back(xp, g, x_shape, axis, keepdim))


def _mean(xp, x, axis=None, keepdim=False, dtype=None):
    if x.dtype.kind not in "fc" and dtype is None:
        raise DTypeError(f"mean(): could not infer output dtype; input dtype is {x.dtype}, "
                        f"use a floating tensor or pass dtype=")
    return x.mean(axis=_np_axis(axis, x.ndim, "mean"), keepdims=keepdim, dtype=dtype)


def _mean_grad(g, x_shape, axis, keepdim, xp):
    if type(xp) is GraphNamespace:   # a gradient of its own memory, as PyTorch's: a user may
        # write into it (the broadcast view below is cheaper, and the engine copies it first)
        return expand_back(xp, g, x_shape, axis, keepdim) / _count(x_shape, axis)
    return expand_back(xp, g / _count(x_shape, axis), x_shape, axis, keepdim)


defop("mean", _mean, kind="reduction", inplace=False, grad=_mean_grad)


# Note [Products with a zero factor]
#     The gradient of a product with respect to one factor is the product of the others. When
#     those others hold an exact zero and also an inf or a NaN, multiplying them out gives NaN
#     (0 * inf), while taking the zero as deciding gives 0. PyTorch does the second in cumprod's
#     backward and in prod's over all elements when two or more are zero (every element's
#     others then hold a zero), the first in prod's along a dim and with a single zero. Both
#     are followed here, so that NaN appears where it does in PyTorch (tests/ops/test_extremal.py).
#     A gradient that is itself recorded (create_graph) keeps the products of the others, as
#     PyTorch's double backward does: with exactly two zeros, each one's gradient is zero in
#     value but the other zero's derivative of it is not.


def _prod_grad(g, x, axis, keepdim, xp):
    """Product of all other elements, exact with zeros: exclusive cumprods from both ends."""
    if x.ndim == 0:
        return g.reshape(())
    a = -1 if axis is None else canon_dim(axis, x.ndim, "prod")
    xm = x.reshape(-1) if axis is None else xp.moveaxis(x, a, -1)
    if not xm.shape[-1]:
        return xp.zeros_like(x)   # an empty product: no element to weigh
    ones = xp.ones_like(xm[..., :1])
    left = xp.concatenate([ones, xp.cumprod(xm[..., :-1], -1)], -1)
    right = xp.flip(xp.concatenate([ones, xp.cumprod(xp.flip(xm, -1)[..., :-1], -1)], -1), -1)
    others = left * right
    if axis is None and not isinstance(xp, GraphNamespace) and xp.count_nonzero(xm == 0) > 1:
        others[...] = 0   # Note [Products with a zero factor]
    others = others.reshape(x.shape) if axis is None else xp.moveaxis(others, -1, a)
    return expand_back(xp, g, x.shape, axis, keepdim) * others


def _prod(xp, x, axis=None, keepdim=False, dtype=None):
    if not (axis is None or isinstance(axis, int)):
        raise TypeError("prod(): axis must be an int or None")
    return xp.prod(x, axis=_np_axis(axis, x.ndim, "prod"), keepdims=keepdim, dtype=dtype)


defop("prod", _prod, kind="reduction", inplace=False, grad=_prod_grad)


def _extreme_grad(g, x, out, axis, keepdim, xp):
    """Gradient of amax/amin: shared evenly among the elements equal to the extreme."""
    o = expand_back(xp, out, x.shape, axis, keepdim)
    hit = x == o
    n = hit.sum(axis=_np_axis(axis, x.ndim), keepdims=True)
    return expand_back(xp, g, x.shape, axis, keepdim) * hit / n


defop("amax", lambda xp, x, axis=None, keepdim=False: xp.amax(
    x, axis=_np_axis(axis, x.ndim, "amax"), keepdims=keepdim),
      kind="reduction", inplace=False, grad=_extreme_grad)
defop("amin", lambda xp, x, axis=None, keepdim=False: xp.amin(
    x, axis=_np_axis(axis, x.ndim, "amin"), keepdims=keepdim),
      kind="reduction", inplace=False, grad=_extreme_grad)


def _all_extreme_grad(g, x, out, xp):
    """Gradient of max()/min() over all elements: shared evenly among the elements equal to the
    result, or among the NaN elements when it is NaN (PyTorch's max(); its amax, whose
    gradient above divides by a count of 0 there, gives NaN)."""
    hit = xp.isnan(x) if xp.isnan(out) else x == out
    return masked(xp.broadcast_to(g / hit.sum(), hit.shape), hit, xp)


defop("max_all", lambda xp, x: xp.amax(x), kind="reduction", inplace=False, method=False,
      grad=_all_extreme_grad, node_name="MaxBackward")
defop("min_all", lambda xp, x: xp.amin(x), kind="reduction", inplace=False, method=False,
      grad=_all_extreme_grad, node_name="MinBackward")
defop("argmax", lambda xp, x, axis=None, keepdim=False: xp.argmax(
    x, axis=_np_axis(axis, x.ndim, "argmax"), keepdims=keepdim), kind="reduction",
    inplace=False)
defop("argmin", lambda xp, x, axis=None, keepdim=False: xp.argmin(
    x, axis=_np_axis(axis, x.ndim, "argmin"), keepdims=keepdim), kind="reduction",
    inplace=False)
defop("all", lambda xp, x, axis=None, keepdim=False: xp.all(
    x, axis=_np_axis(axis, x.ndim, "all"), keepdims=keepdim), kind="reduction", inplace=False)
defop("any", lambda xp, x, axis=None, keepdim=False: xp.any(
    x, axis=_np_axis(axis, x.ndim, "any"), keepdims=keepdim), kind="reduction", inplace=False)


def _take_along(xp, x, index, axis, keepdim):
    """The values of ``x`` at ``index`` (from argmax/argmin along ``axis``)."""
    idx = index if keepdim else xp.expand_dims(index, axis)
    v = xp.take_along_axis(x, idx, axis)
    return v if keepdim else v.squeeze(axis)


def _select_grad(g, x_shape, index, axis, keepdim, xp):
    """Gradient of max/min with an axis: all of it to the chosen index (as PyTorch)."""
    z = xp.zeros(x_shape, g.dtype)
    idx = index if keepdim else xp.expand_dims(index, axis)
    xp.put_along_axis(z, idx, g if keepdim else xp.expand_dims(g, axis), axis)
    return z


defop("values_at", lambda xp, x, index, *, axis, keepdim=True: _take_along(
    xp, x, index, axis, keepdim), kind="reduction", inplace=False,
    grad=(_select_grad, None), node_name="MaxBackward", method=False)


def _extreme(x, axis, keepdim, reduce, arg, other_op, name):
    if isinstance(axis, Tensor):          # max(x, y): the element-wise maximum
        return call(OPS[other_op], [x, axis], {})
    if axis is None and not keepdim:   # over all elements: its own gradient rule at NaN
        return call(OPS[name + "_all"], [x], {})
    if axis is None or not isinstance(axis, int):
        return call(OPS[reduce], [x], {"axis": axis, "keepdim": keepdim})
    if x.ndim == 0:   # its one element, after checking the dim (ops/axes.py)
        canon_dim(axis, 0, name)
        return ValuesIndices(call(OPS[reduce], [x], {"axis": None, "keepdim": False}),
                             call(OPS[arg], [x], {"axis": None, "keepdim": False}))
    idx = call(OPS[arg], [x], {"axis": axis, "keepdim": keepdim})
    vals = call(OPS["values_at"], [x, idx], {"axis": axis, "keepdim": keepdim})
    return ValuesIndices(vals, idx)


def max(x, axis=None, keepdim=False, dim=None, other=None, keepdims=None, name=None):
    """The largest value (``axis=None``), ``(values, indices)`` along an int ``axis``, or the
    element-wise maximum with a tensor."""
    if other is not None:
        axis = other
    return _extreme(x, axis if dim is None else dim, keepdim_arg(keepdim, keepdims), "amax",
                    "argmax", "maximum", "max")


def min(x, axis=None, keepdim=False, dim=None, other=None, keepdims=None, name=None):
    """As :func:`max`, for the smallest value."""
    if other is not None:
        axis = other
    return _extreme(x, axis if dim is None else dim, keepdim_arg(keepdim, keepdims), "amin",
                    "argmin", "minimum", "min")


_MinMax = namedtuple("aminmax", ["min", "max"])


def aminmax(input, *, dim=None, keepdim=False):
    """``(min, max)`` over ``dim`` (every element when None)."""
    if dim is None:
        return _MinMax(input.amin(), input.amax())
    return _MinMax(input.amin(dim, keepdim=keepdim), input.amax(dim, keepdim=keepdim))


def sum_to_size(input, *size):
    """``input`` summed down to ``size`` (which it must broadcast from)."""
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (list, tuple)) else size
    lead = input.ndim - len(size)
    out = input.sum(tuple(range(lead))) if lead > 0 else input
    axes = tuple(i for i, s in enumerate(size) if s == 1 and out.shape[i] != 1)
    return out.sum(axes, keepdim=True) if axes else out



def _var(xp, x, axis=None, keepdim=False, correction=1):
    return xp.var(x, axis=_np_axis(axis, x.ndim, "var"), keepdims=keepdim, ddof=correction)


def _var_grad(g, x, axis, keepdim, correction, xp):
    mean = xp.mean(x, axis=_np_axis(axis, x.ndim), keepdims=True)
    n = np.float64(_count(x.shape, axis) - correction)   # 0: inf, as the forward's NaN
    with np.errstate(divide="ignore"):
        scale = 2 / n
    return expand_back(xp, g, x.shape, axis, keepdim) * scale * (x - mean)


defop("var", _var, kind="reduction", inplace=False, grad=_var_grad)


def _std(xp, x, axis=None, keepdim=False, correction=1):
    return xp.std(x, axis=_np_axis(axis, x.ndim, "std"), keepdims=keepdim, ddof=correction)


def _std_grad(g, x, out, axis, keepdim, correction, xp):
    mean = xp.mean(x, axis=_np_axis(axis, x.ndim), keepdims=True)
    n = _count(x.shape, axis) - correction
    o = expand_back(xp, out, x.shape, axis, keepdim)
    return expand_back(xp, g, x.shape, axis, keepdim) * (x - mean) / (n * o)


defop("std", _std, kind="reduction", inplace=False, grad=_std_grad)


def _norm(xp, x, p=2, axis=None, keepdim=False):
    ax = _np_axis(axis, x.ndim, "norm")
    a = xp.abs(x)
    if p in ("fro", 2, 2.0):
        return xp.sqrt(xp.sum(a * a, axis=ax, keepdims=keepdim))
    if p in (math.inf, "inf"):
        return xp.amax(a, axis=ax, keepdims=keepdim)
    if p in (-math.inf, "-inf"):
        return xp.amin(a, axis=ax, keepdims=keepdim)
    if p == 0:
        return xp.sum(a != 0, axis=ax, keepdims=keepdim).astype(x.dtype)
    if p == 1:
        return xp.sum(a, axis=ax, keepdims=keepdim)
    return xp.sum(a ** p, axis=ax, keepdims=keepdim) ** (1.0 / p)


def _norm_grad(g, x, out, p, axis, keepdim, xp):
    o = expand_back(xp, out, x.shape, axis, keepdim)
    ge = expand_back(xp, g, x.shape, axis, keepdim)
    if p in ("fro", 2, 2.0):
        return ge * xp.where(o == 0, 0, x / xp.where(o == 0, 1, o))
    if p == 1:
        return ge * sign(xp, x)
    if p in (math.inf, "inf", -math.inf, "-inf"):
        # the elements at the norm, or the NaN ones when it is NaN (where sign gives 0)
        hit = (xp.abs(x) == o) | xp.isnan(x)
        return ge * sign(xp, x) * hit / hit.sum(axis=_np_axis(axis, x.ndim), keepdims=True)
    if p == 0:
        return xp.zeros_like(x)
    a = xp.abs(x)
    return ge * sign(xp, x) * a ** (p - 1) / xp.where(o == 0, 1, o ** (p - 1))


defop("norm", _norm, kind="reduction", inplace=False, grad=_norm_grad)


def _logsumexp(xp, x, axis=None, keepdim=False):
    ax = _np_axis(axis, x.ndim, "logsumexp")
    if x.size:
        m = xp.amax(x, axis=ax, keepdims=True)
    else:   # an empty slice's maximum is -inf (CuPy's amax takes no initial=)
        m = xp.full_like(xp.sum(x, axis=ax, keepdims=True), -math.inf)
    m = xp.where(xp.isfinite(m), m, 0)
    r = xp.log(xp.sum(xp.exp(x - m), axis=ax, keepdims=True)) + m
    return r if keepdim else r.squeeze(ax) if ax is not None else r.reshape(())


defop("logsumexp", _logsumexp, kind="reduction", inplace=False, result="float",
      grad=lambda g, x, out, axis, keepdim, xp: expand_back(xp, g, x.shape, axis, keepdim)
      * xp.exp(x - expand_back(xp, out, x.shape, axis, keepdim)))


FUNCTIONS = {"max": max, "min": min, "aminmax": aminmax}
TENSOR_METHODS = {"sum_to_size": sum_to_size}
