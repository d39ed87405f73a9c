"""Reductions into a tensor at indices: ``scatter_reduce_``, ``put_along_axis_`` and
``index_reduce_``, and their public functions (PyTorch's ``scatter_reduce(x, dim, index, src,
reduce)`` and ``index_reduce``, Paddle's ``put_along_axis(arr, indices, values, axis)``, which
clash with nothing).

One declaration (``scatter_reduce``) does the work: the values of ``src`` are combined into ``x``
at the positions that ``index`` names along ``axis`` (``x[..., index[i, j], ...] op= src[i, j]``)
with ``assign`` (the last write wins), ``sum``, ``prod``, ``mean``, ``amax`` or ``amin``, with or
without ``x``'s own value (``include_self``). The result is computed in full before ``x`` is
written, so an index out of range is refused with ``x`` unchanged.

Gradients are exact where the math is: ``prod`` handles zeros (the product of the other
contributors, not a division by zero), ``amax``/``amin`` share the gradient evenly among tied
contributors, ``assign`` gives a gradient only to the value that was kept.

    >>> import mutograd as mg
    >>> x = mg.zeros(3)
    >>> mg.scatter_reduce(x, 0, mg.tensor([0, 0, 2]), mg.tensor([1., 2., 3.]), "amax").tolist()
    [2.0, 0.0, 3.0]
"""
import numpy as np

from ..errors import GatherIndexError, ShapeError
from ..tensor import Tensor
from .axes import canon_dim, lift_0d
from .registry import OPS, call, call_inplace, defop
from .shaping import _flat_pos, _full_index

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
        raise GatherIndexError(f"scatter: index out of range for dimension {a} of size {n}")
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
        res = _combine_at(xp, res, pos, src)
    else:
        if not include_self:
            res[pos] = 0 if r in ("sum", "mean") else _identity(x.dtype, r)
        ufunc = {"sum": xp.add, "mean": xp.add, "prod": xp.multiply, "amax": xp.maximum,
                 "amin": xp.minimum}[r]
        res = _combine_at(xp, res, pos, src, ufunc)
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


def _combine_at(xp, res, pos, vals, ufunc=None):
    """``res`` with ``vals`` combined in at the advanced index ``pos`` by ``ufunc`` (None: the
    last value written wins): every position takes its values one after another, in index order,
    as NumPy's ``ufunc.at`` does. ``res`` may be updated in place; use the array returned.

    NumPy's ``ufunc.at`` and assignment already work that way. CuPy's do not: it has no
    ``multiply.at``, its ``add.at``/``maximum.at`` run atomics in no fixed order (a float sum then
    differs from the CPU's in its last bits), and which of several writes to one position wins
    is undefined. There the values are sorted by position and applied in rounds, the k-th value of
    every position in round k, so no round names a position twice: the same operations in the
    same order as on the CPU, in as many rounds as the most values one position receives. A
    gradient formula evaluated on tensors (create_graph) takes the rounds too: each is a read, an
    op and a write of distinct positions, all recorded, so the result differentiates again.
    """
    if xp is np:
        if ufunc is None:
            res[pos] = vals
        else:
            ufunc.at(res, pos, vals)
        return res
    tgt = _flat_pos(xp, res.shape, pos)
    vals = xp.broadcast_to(xp.asarray(vals), tgt.shape).reshape(-1)
    tgt = tgt.reshape(-1)
    flat = res.reshape(-1).copy()   # written as a whole array, not through a view of res
    for k in _rounds(xp, tgt):
        t = tgt[k]
        flat[t] = vals[k] if ufunc is None else ufunc(flat[t], vals[k])
    return flat.reshape(res.shape)


def _rounds(xp, tgt):
    """The positions of ``tgt`` (flat targets) in rounds in which no target repeats: the k-th
    value of every target, in index order, in round k."""
    n = tgt.size
    seq = xp.arange(n)
    by_pos = xp.argsort(tgt * n + seq)           # by target, in index order within one
    t = tgt[by_pos]
    rank = seq - xp.searchsorted(t, t)           # how many values came earlier to its target
    order = by_pos[xp.argsort(rank * n + seq)]
    start = 0
    for end in xp.cumsum(xp.bincount(rank)).tolist():
        yield order[start:end]
        start = end


def _products_before(xp, start, tgt, vals):
    """For each of ``vals`` (flat, combined at the flat targets ``tgt`` into ``start``), the
    product accumulated at its target before it: ``start`` times the values that came earlier."""
    flat = start.reshape(-1).copy()
    before = xp.zeros_like(vals)
    for k in _rounds(xp, tgt):
        t = tgt[k]
        acc = flat[t]
        before[k] = acc
        flat[t] = acc * vals[k]
    return before


def _counts(xp, x, pos, include_self):
    """How many values were combined into each position (0 where nothing was scattered)."""
    cnt = _combine_at(xp, xp.zeros(x.shape, "float64"), pos, 1, xp.add)
    if include_self:
        cnt = xp.where(cnt > 0, cnt + 1, 0)
    return cnt


# Note [Gradients of a scattered product]
#     Combining values ``v`` into a tensor by multiplication (scatter_reduce "prod", scatter with
#     reduce="multiply", index_reduce "prod") gives each position the product of its starting
#     value and the values landing there. A value's gradient is the product of everything else
#     at its position. Written as ``result / v`` it is one multiplication per value and
#     differentiates correctly (``result`` holds ``v``), but not at ``v == 0``; there the
#     product of the others is computed with ``v`` replaced by 1 (PyTorch's way), which is exact
#     to every order while a position has at most one zero value. Where one has two or more,
#     the product of the others is the product of the values before it times the product of
#     those after it, taken in rounds (each a recorded multiplication): exact to every order
#     with any number of zeros, where PyTorch refuses the double backward. The starting value's
#     own gradient is the product of the values landing.
def _others_product(xp, start, pos, src, out=None):
    """For each value of ``src`` multiplied into ``start`` at ``pos``, the product of everything
    else at its position (``out``: the result, or None to compute it): Note [Gradients of a
    scattered product]."""
    zero = src == 0
    zeros = _combine_at(xp, xp.zeros_like(start), pos, zero.astype(start.dtype), xp.add)[pos]
    if (zeros > 1).any():
        tgt = _flat_pos(xp, start.shape, pos).reshape(-1)
        v = src.reshape(-1)
        after = xp.flip(_products_before(xp, xp.ones_like(start), tgt[::-1], xp.flip(v)))
        return (_products_before(xp, start, tgt, v) * after).reshape(src.shape)
    if out is None:
        out = _combine_at(xp, start.copy(), pos, src, xp.multiply)
    others = out[pos] / xp.where(zero, 1, src)
    single = zero & (zeros == 1)
    if single.any():
        without = _combine_at(xp, start.copy(), pos, xp.where(single, 1, src), xp.multiply)
        others = xp.where(single, without[pos], others)
    return others


def _grads(g, x, index, src, out, axis, reduce, include_self, xp, part):
    """The gradient for ``x`` (``part`` 0) or ``src`` (1)."""
    r = _reduce_name(reduce)
    pos = _positions(xp, x, index, axis)
    src = xp.broadcast_to(xp.asarray(src, dtype=g.dtype), index.shape)
    hit = xp.zeros(x.shape, bool)
    hit[pos] = True
    if r == "assign":
        order = xp.arange(index.size).reshape(index.shape)
        ids = _combine_at(xp, xp.zeros(x.shape, order.dtype) - 1, pos, order)
        return (g * ~hit, g[pos] * (ids[pos] == order))[part]
    if r == "sum":
        return ((g if include_self else g * ~hit), g[pos])[part]
    if r == "mean":
        cnt = _counts(xp, x, pos, include_self)
        gm = g / xp.where(cnt > 0, cnt, 1)
        return ((xp.where(hit, gm, g) if include_self else g * ~hit), gm[pos])[part]
    if r == "prod":
        if part == 0:
            if not include_self:
                return g * ~hit
            # x's own value multiplied in and divided out again: NaN where x is inf, as PyTorch
            kept = xp.where(x == 0, 1, x)
            return g * _combine_at(xp, kept.copy(), pos, src, xp.multiply) / kept
        start = x if include_self else xp.where(hit, 1, x)
        return g[pos] * _others_product(xp, start, pos, src, out)
    # amax / amin: tied contributors share the gradient evenly
    ties = _combine_at(xp, xp.zeros(x.shape, "float64"), pos,
                       (src == out[pos]).astype("float64"), xp.add)
    self_wins = hit & include_self & (x == out)
    ties = ties + self_wins
    gs = g / xp.where(ties > 0, ties, 1)
    return (xp.where(hit, gs * self_wins, g), gs[pos] * (src == out[pos]))[part]


defop("scatter_reduce", _scatter_reduce, kind="index", result="same", method=False,
      grad=(lambda g, x, index, src, out, axis, reduce, include_self, xp:
            _grads(g, x, index, src, out, axis, reduce, include_self, xp, 0),
            None,
            lambda g, x, index, src, out, axis, reduce, include_self, xp:
            _grads(g, x, index, src, out, axis, reduce, include_self, xp, 1)))


# ---- the public functions: PyTorch's (dim, index, src) order, Paddle's put_along_axis (no clash)
# and PyTorch's index_reduce -----------------------------------------------------------------
def _index_array(index):
    """An index as the op takes it: a tensor, or a backend array for a list."""
    if isinstance(index, Tensor):
        return index
    return np.asarray(index)


def _required_axis(axis, dim, what):
    a = dim if dim is not None else axis
    if a is None:
        raise TypeError(f"{what}() missing required argument 'axis' (or 'dim')")
    return a


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
    return call(OPS["scatter_reduce"], [x, _index_array(index), src],
                {"axis": _required_axis(axis, dim, "scatter_reduce"), "reduce": reduce,
                 "include_self": include_self})


@lift_0d
def scatter_reduce_(x, axis=None, index=None, src=None, reduce="sum", *, include_self=True,
                    dim=None):
    """In-place :func:`scatter_reduce` (PyTorch's ``Tensor.scatter_reduce_``); returns ``x``."""
    return call_inplace(OPS["scatter_reduce"], [x, _index_array(index), src],
                        {"axis": _required_axis(axis, dim, "scatter_reduce_"), "reduce": reduce,
                         "include_self": include_self})


def _along_args(arr, indices, values, axis, broadcast):
    idx = _index_array(indices)
    if broadcast:   # Paddle broadcasts the index against arr (all but the axis)
        ia = idx._data if isinstance(idx, Tensor) else idx
        a = canon_dim(axis, arr.ndim, "put_along_axis")
        shape = tuple(ia.shape[d] if d == a else max(ia.shape[d], arr.shape[d])
                      for d in range(arr.ndim)) if ia.ndim == arr.ndim else None
        if shape is not None and shape != ia.shape:
            idx = _broadcast_index(idx, shape)
    return idx


def _broadcast_index(index, shape):
    """``index`` (a tensor or an array) broadcast to ``shape``. One on a device stays a tensor: the
    dispatcher takes a bare array for host data and would refuse a device array."""
    if isinstance(index, Tensor) and index._place.xp is not np:
        return index.expand(*shape)
    return np.broadcast_to(index._data if isinstance(index, Tensor) else index, shape)


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
    return _broadcast_index(index.reshape(shape) if isinstance(index, Tensor) else
                            ia.reshape(shape), sa.shape)


@lift_0d
def index_reduce_(x, axis=None, index=None, source=None, reduce=None, *, include_self=True,
                  dim=None):
    """PyTorch's ``Tensor.index_reduce_(dim, index, source, reduce)`` ('prod', 'mean', 'amax',
    'amin'); returns ``x``."""
    a = _required_axis(axis, dim, "index_reduce_")
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise ValueError(f"index_reduce_(): reduce must be 'prod', 'mean', 'amax' or 'amin', "
                         f"got {reduce!r}")
    return call_inplace(OPS["scatter_reduce"], [x, _index_args(x, a, index, source), source],
                        {"axis": a, "reduce": reduce, "include_self": include_self})


@lift_0d
def index_reduce(x, axis=None, index=None, source=None, reduce=None, *, include_self=True,
                 dim=None):
    """Out-of-place :func:`index_reduce_`."""
    a = _required_axis(axis, dim, "index_reduce")
    return call(OPS["scatter_reduce"], [x, _index_args(x, a, index, source), source],
                {"axis": a, "reduce": reduce, "include_self": include_self})


FUNCTIONS = {f.__name__: f for f in (scatter_reduce, scatter_reduce_, put_along_axis,
                                     put_along_axis_, index_reduce, index_reduce_)}
