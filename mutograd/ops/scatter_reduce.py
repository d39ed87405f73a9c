"""Reductions into a tensor at indices: ``scatter_reduce_``, ``put_along_axis_`` and
``index_reduce_``.

One declaration (``scatter_reduce``) does the work: the values of ``src`` are combined into ``x``
at the positions that ``index`` names along ``axis`` (``x[..., index[i, j], ...] op= src[i, j]``)
with ``assign`` (the last write wins), ``sum``, ``prod``, ``mean``, ``amax`` or ``amin``, with or
without ``x``'s own value (``include_self``). The result is computed in full before ``x`` is
written, so an index out of range is refused with ``x`` unchanged.

Gradients are exact where the math is: ``prod`` handles zeros (the product of the other
contributors, not a division by zero), ``amax``/``amin`` share the gradient evenly among tied
contributors, ``assign`` gives a gradient only to the value that was kept.
"""
import numpy as np

from ..errors import IndexRangeError, ShapeError
from ..tensor import Tensor
from .axes import canon_dim, lift_0d
from .registry import OPS, call, call_inplace, defop
from .shaping import _full_index

_REDUCE = {"sum": "sum", "add": "sum", "prod": "prod", "mul": "prod", "multiply": "prod",
           "mean": "mean", "amax": "amax", "amin": "amin", "assign": "assign", "none": "assign"}


def _reduce_name(reduce):
    r = _REDUCE.get(reduce)
    if r is None:
        raise ValueError(f"reduce must be one of {sorted(_REDUCE)}, got {reduce!r}")
    return r


def _positions(xp, x, index, axis):
    if index.dtype.kind not in "iu":
        raise TypeError(f"scatter: index must be an integer tensor, got {index.dtype}")
    if index.ndim != x.ndim:
        raise ShapeError(f"scatter: index has {index.ndim} dimensions but the tensor written "
                         f"has {x.ndim}")
    a = canon_dim(axis, x.ndim, "scatter")
    for d in range(x.ndim):
        if d != a and index.shape[d] > x.shape[d]:
            raise ShapeError(f"scatter: index shape {list(index.shape)} exceeds the tensor's "
                             f"shape {list(x.shape)} at dimension {d}")
    n = x.shape[a]
    if index.size and (index.min() < -n or index.max() >= n):
        raise IndexRangeError(f"scatter: index out of range for dimension {a} of size {n}")
    return _full_index(xp, index % n if index.size else index, a)


def _identity(dtype, r):
    if r == "prod":
        return 1
    if dtype.kind == "f":
        return -np.inf if r == "amax" else np.inf
    info = np.iinfo(dtype) if dtype.kind in "iu" else None
    return info.min if r == "amax" else info.max


def _scatter_reduce(xp, x, index, src, *, axis, reduce="sum", include_self=True, out=None):
    r = _reduce_name(reduce)
    pos = _positions(xp, x, index, axis)
    src = xp.broadcast_to(xp.asarray(src, dtype=x.dtype), index.shape)
    res = x.copy()
    if r == "assign":
        res[pos] = src
    else:
        if not include_self:
            res[pos] = 0 if r in ("sum", "mean") else _identity(x.dtype, r)
        ufunc = {"sum": xp.add, "mean": xp.add, "prod": xp.multiply, "amax": xp.maximum,
                 "amin": xp.minimum}[r]
        ufunc.at(res, pos, src)
        if r == "mean":
            cnt = _counts(xp, x, pos, include_self)
            res = xp.where(cnt > 0, res / xp.where(cnt > 0, cnt, 1), res)
            if x.dtype.kind in "iu":     # integer means round down, as both frameworks do
                res = xp.floor(res)
            res = res.astype(x.dtype)
    if out is None:
        return res
    out[...] = res
    return out


def _counts(xp, x, pos, include_self):
    """How many values were combined into each position (0 where nothing was scattered)."""
    cnt = xp.zeros(x.shape, "float64")
    xp.add.at(cnt, pos, 1)
    if include_self:
        cnt = xp.where(cnt > 0, cnt + 1, 0)
    return cnt


def _grads(g, x, index, src, out, axis, reduce, include_self, xp):
    """Gradients for ``x`` and ``src`` (one pass; each wrapper below picks its part)."""
    r = _reduce_name(reduce)
    pos = _positions(xp, x, index, axis)
    src = xp.broadcast_to(xp.asarray(src, dtype=g.dtype), index.shape)
    hit = xp.zeros(x.shape, bool)
    hit[pos] = True
    if r == "assign":
        ids = xp.full(x.shape, -1)
        order = xp.arange(index.size).reshape(index.shape)
        ids[pos] = order
        return g * ~hit, g[pos] * (ids[pos] == order)
    if r == "sum":
        return (g if include_self else g * ~hit), g[pos]
    if r == "mean":
        cnt = _counts(xp, x, pos, include_self)
        gm = g / xp.where(cnt > 0, cnt, 1)
        return (xp.where(hit, gm, g) if include_self else g * ~hit), gm[pos]
    if r == "prod":
        # product of the non-zero contributors and the number of zeros, per position
        nz = xp.where(hit & include_self, xp.where(x == 0, 1, x), 1).astype(g.dtype)
        zeros = ((x == 0) & hit & include_self).astype(int)
        xp.multiply.at(nz, pos, xp.where(src == 0, 1, src))
        xp.add.at(zeros, pos, (src == 0).astype(int))

        def share(v, p_nz, z):
            return xp.where(v == 0, p_nz * (z == 1), p_nz * (z == 0) / xp.where(v == 0, 1, v))
        gx = xp.where(hit, g * share(x, nz, zeros), g) if include_self else g * ~hit
        return gx, g[pos] * share(src, nz[pos], zeros[pos])
    # amax / amin: tied contributors share the gradient evenly
    ties = xp.zeros(x.shape, "float64")
    xp.add.at(ties, pos, (src == out[pos]).astype("float64"))
    self_wins = hit & include_self & (x == out)
    ties = ties + self_wins
    gs = g / xp.where(ties > 0, ties, 1)
    gx = xp.where(hit, gs * self_wins, g)
    return gx, gs[pos] * (src == out[pos])


defop("scatter_reduce", _scatter_reduce, kind="index", result="same", method=False,
      grad=(lambda g, x, index, src, out, axis, reduce, include_self, xp:
            _grads(g, x, index, src, out, axis, reduce, include_self, xp)[0],
            None,
            lambda g, x, index, src, out, axis, reduce, include_self, xp:
            _grads(g, x, index, src, out, axis, reduce, include_self, xp)[1]))


def _axis(axis, dim, what):
    a = dim if dim is not None else axis
    if a is None:
        raise TypeError(f"{what}() missing required argument 'axis' (or 'dim')")
    return a


def _index(index):
    return index if isinstance(index, Tensor) else np.asarray(index)


@lift_0d
def scatter_reduce(x, axis=None, index=None, src=None, reduce="sum", *, include_self=True,
                   dim=None):
    """Out of place: ``x`` with ``src`` combined in at ``index`` along ``axis``.

    Example::

        >>> import mutograd as mg
        >>> x = mg.zeros(3)
        >>> mg.scatter_reduce(x, 0, mg.tensor([0, 0, 2]), mg.tensor([1., 2., 3.]), "sum").tolist()
        [3.0, 0.0, 3.0]
    """
    return call(OPS["scatter_reduce"], [x, _index(index), src],
                {"axis": _axis(axis, dim, "scatter_reduce"), "reduce": reduce,
                 "include_self": include_self})


@lift_0d
def scatter_reduce_(x, axis=None, index=None, src=None, reduce="sum", *, include_self=True,
                    dim=None):
    """In-place :func:`scatter_reduce` (PyTorch's ``Tensor.scatter_reduce_``); returns ``x``."""
    return call_inplace(OPS["scatter_reduce"], [x, _index(index), src],
                        {"axis": _axis(axis, dim, "scatter_reduce_"), "reduce": reduce,
                         "include_self": include_self})


def _along_args(arr, indices, values, axis, broadcast):
    idx = _index(indices)
    if broadcast:   # Paddle broadcasts the index against arr (all but the axis)
        ia = idx._data if isinstance(idx, Tensor) else idx
        a = canon_dim(axis, arr.ndim, "put_along_axis")
        shape = tuple(ia.shape[d] if d == a else max(ia.shape[d], arr.shape[d])
                      for d in range(arr.ndim)) if ia.ndim == arr.ndim else None
        if shape is not None and shape != ia.shape:
            idx = np.broadcast_to(ia, shape)
    return idx


@lift_0d
def put_along_axis(arr, indices, values, axis, reduce="assign", include_self=True,
                   broadcast=True):
    """Paddle's ``put_along_axis``: ``arr`` with ``values`` put at ``indices`` along ``axis``."""
    return call(OPS["scatter_reduce"], [arr, _along_args(arr, indices, values, axis, broadcast),
                                        values],
                {"axis": axis, "reduce": reduce, "include_self": include_self})


@lift_0d
def put_along_axis_(arr, indices, values, axis, reduce="assign", include_self=True,
                    broadcast=True):
    """In-place :func:`put_along_axis`; returns ``arr``."""
    return call_inplace(OPS["scatter_reduce"],
                        [arr, _along_args(arr, indices, values, axis, broadcast), values],
                        {"axis": axis, "reduce": reduce, "include_self": include_self})


def _index_args(x, axis, index, source):
    """``index_reduce`` as a scatter: the 1-D index repeated over the other dimensions."""
    ia = index._data if isinstance(index, Tensor) else np.asarray(index)
    sa = source._data if isinstance(source, Tensor) else np.asarray(source)
    if ia.ndim != 1:
        raise ShapeError(f"index_reduce_(): index must be 1-D, got {ia.ndim}-D")
    a = canon_dim(axis, x.ndim, "index_reduce_")
    if sa.ndim != x.ndim or sa.shape[a] != ia.shape[0]:
        raise ShapeError(f"index_reduce_(): source of shape {list(sa.shape)} must have "
                         f"{ia.shape[0]} entries along dimension {a} and {x.ndim} dimensions")
    shape = [1] * sa.ndim
    shape[a] = -1
    return np.broadcast_to(ia.reshape(shape), sa.shape)


@lift_0d
def index_reduce_(x, axis=None, index=None, source=None, reduce=None, *, include_self=True,
                  dim=None):
    """PyTorch's ``Tensor.index_reduce_(dim, index, source, reduce)`` ('prod', 'mean', 'amax',
    'amin'); returns ``x``."""
    a = _axis(axis, dim, "index_reduce_")
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise ValueError(f"index_reduce_(): reduce must be 'prod', 'mean', 'amax' or 'amin', "
                         f"got {reduce!r}")
    return call_inplace(OPS["scatter_reduce"], [x, _index_args(x, a, index, source), source],
                        {"axis": a, "reduce": reduce, "include_self": include_self})


@lift_0d
def index_reduce(x, axis=None, index=None, source=None, reduce=None, *, include_self=True,
                 dim=None):
    """Out-of-place :func:`index_reduce_`."""
    a = _axis(axis, dim, "index_reduce")
    return call(OPS["scatter_reduce"], [x, _index_args(x, a, index, source), source],
                {"axis": a, "reduce": reduce, "include_self": include_self})
