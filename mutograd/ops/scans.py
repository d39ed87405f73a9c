"""Cumulative ops along a dimension: the declared scans ``cumsum`` and ``cumprod``, and those
composed from declared ops (their gradients come from those): logcumsumexp, cummax, cummin,
diff, trapezoid (``trapz``), cumulative_trapezoid.

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

from ..errors import ShapeError
from ..tensor import Tensor, _wrap
from . import creation
from .axes import canon_dim
from .elementwise import conj
from .indexing import gather
from .reduction import ValuesIndices
from .registry import OPS, defop
from .shaping import cat


def _flat_scan_into(x, out, name):
    """A scan without an axis runs over the flattened tensor: in place only on 0-d/1-D ones."""
    if out is not None and x.ndim > 1:
        raise ShapeError(f"{name}_(): without an axis the result is flattened to "
                         f"[{x.size}] and cannot be written into a tensor of shape "
                         f"{list(x.shape)}; pass axis= (dim=)")
    return 0 if out is not None else None


def _scan(scan, xp, x, axis, out, dtype, name):
    """``scan`` (the backend's cumsum or cumprod) along ``axis``; without one over the flattened
    tensor; a 0-d tensor scans its one element and stays 0-d (ops/axes.py)."""
    if axis is None and out is not None:
        axis = _flat_scan_into(x, out, name)
    if axis is None:
        return scan(x.reshape(-1), dtype=dtype)
    if x.ndim:
        return scan(x, axis=axis, dtype=dtype, out=out)
    canon_dim(axis, 0, name)
    r = scan(x.reshape(1), dtype=dtype, out=None if out is None else out.reshape(1))
    return r.reshape(()) if out is None else out


def _cumsum(xp, x, axis=None, out=None, dtype=None):
    r = _scan(xp.cumsum, xp, x, axis, out, dtype, "cumsum")
    if r.dtype.kind in "fc":
        r += 0   # PyTorch's sums start from +0.0, so a run of -0.0 sums to +0.0 (NumPy: -0.0)
    return r


def _cumsum_grad(g, x_shape, axis, xp):
    if not x_shape:     # a 0-d tensor's scan is the identity
        return g
    if axis is None:
        return xp.flip(xp.cumsum(xp.flip(g, 0), 0), 0).reshape(x_shape)
    return xp.flip(xp.cumsum(xp.flip(g, axis), axis), axis)


defop("cumsum", _cumsum, kind="scan", grad=_cumsum_grad, layout="C")


def _cumprod(xp, x, axis=None, out=None, dtype=None):
    return _scan(xp.cumprod, xp, x, axis, out, dtype, "cumprod")


def _cumprod_grad(g, x, axis, xp):
    """d out_j / d x_i = prod_{k<=j, k!=i} x_k for j >= i; without a zero, the reversed running
    sum of ``g * out`` over ``x``; with one, exact (Note [Products with a zero factor] in
    reduction.py). A zero decides only where the product after it is not finite: elsewhere the
    plain product is exactly zero already, and keeps its derivative with respect to the zero
    factor (the gradient's own gradient)."""
    flat = axis is None
    if x.ndim == 0 or not x.size:   # the identity, or nothing to differentiate
        return g.reshape(x.shape) if x.ndim == 0 else xp.zeros_like(x)
    if flat:
        x, g, axis = x.reshape(-1), g.reshape(-1), 0
    x = conj(x)   # Note [Complex gradients] in elementwise.py
    if not (x == 0).any():   # PyTorch's form: the product of the others is out_j / x_i
        w = xp.flip(xp.cumprod(x, axis=axis) * g, axis)
        res = xp.flip(xp.cumsum(w, axis=axis), axis) / x
        return res.reshape(-1) if flat else res
    xm = xp.moveaxis(x, axis, -1)
    gm = xp.moveaxis(g, axis, -1)
    cols = []
    prefix = xp.ones_like(xm[..., 0])     # prod_{k<i} x_k
    for i in range(xm.shape[-1]):   # a loop over the scanned axis, not over elements
        # prod_{i<k<=j} x_k for every j > i, times the prefix before i
        rest = xm[..., i + 1:]
        after = _zero_decides(xp, xp.cumsum(rest == 0, axis=-1) > 0, xp.cumprod(rest, axis=-1))
        total = gm[..., i] + (gm[..., i + 1:] * after).sum(-1)
        cols.append(prefix * _zero_decides(xp, prefix == 0, total))
        prefix = prefix * _zero_decides(xp, prefix == 0, xm[..., i])
    res = xp.moveaxis(xp.stack(cols, axis=-1), -1, axis)
    return res.reshape(-1) if flat else res


def _zero_decides(xp, zero, v):
    """``v``, with 0 where a zero factor meets a value that is not finite."""
    return xp.where(zero & ~xp.isfinite(v), 0, v)


defop("cumprod", _cumprod, kind="scan", grad=_cumprod_grad, layout="C")


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
    idx = creation.tensor(np.ascontiguousarray(np.moveaxis(idx, -1, d)).reshape(input.shape))
    if input.ndim == 0:
        return ValuesIndices(input * 1, idx)
    return ValuesIndices(gather(input, d, idx), idx)


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


TENSOR_METHODS = {"cummax": cummax, "cummin": cummin}
FUNCTIONS = {f.__name__: f for f in (logcumsumexp, cummax, cummin, diff, trapezoid,
                                     cumulative_trapezoid)}
FUNCTIONS["trapz"] = trapezoid
