"""Questions about values, answered with indices, counts or booleans (no gradient): nonzero,
argwhere, count_nonzero, unique, bincount, searchsorted, bucketize, isin, histc. PyTorch's
signatures, with ``axis`` accepted for ``dim``.

    >>> import mutograd as mg
    >>> mg.nonzero(mg.tensor([[0, 1], [2, 0]])).tolist()
    [[0, 1], [1, 0]]
    >>> values, counts = mg.unique(mg.tensor([3, 1, 3, 2]), return_counts=True)
    >>> values.tolist(), counts.tolist()
    ([1, 2, 3], [1, 1, 2])
"""
import numpy as np

from ..tensor import Tensor, _wrap


def array_of(x):
    """The backend array of a tensor, or ``x`` as a NumPy array."""
    return x._data if isinstance(x, Tensor) else np.asarray(x)


def backend_of(x):
    """The backend namespace of a tensor's place (NumPy for anything else)."""
    return x._place.xp if isinstance(x, Tensor) else np


def _dim(dim, axis):
    return axis if dim is None else dim


def nonzero(x, as_tuple=False):
    """The indices of the nonzero elements: an (n, ndim) int64 tensor, or one 1-D tensor per
    dimension with ``as_tuple=True``."""
    xp, a = backend_of(x), array_of(x)
    idx = xp.nonzero(a) if a.ndim else xp.nonzero(a.reshape(1))
    if as_tuple:
        return tuple(_wrap(i.astype(np.int64), x) for i in idx)
    return _wrap(xp.stack(idx, axis=1).astype(np.int64) if a.ndim else
                 xp.zeros((int(bool(a)), 0), np.int64), x)


def argwhere(x):
    """``nonzero(x)``: the indices of the nonzero elements, one row each."""
    return nonzero(x)


def count_nonzero(x, dim=None, axis=None):
    """How many elements are nonzero, over ``dim`` (an int or a tuple) or everywhere."""
    d = _dim(dim, axis)
    xp = backend_of(x)
    n = xp.count_nonzero(array_of(x), axis=d)   # a C-contiguous result, as PyTorch's
    return _wrap(xp.ascontiguousarray(n).astype(np.int64, copy=False), x)


def unique(x, sorted=True, return_inverse=False, return_counts=False, dim=None, axis=None):
    """The distinct values (sorted), and optionally where each element went and how often
    each value occurs; with ``dim``, distinct slices along it."""
    xp, a = backend_of(x), array_of(x)
    d = _dim(dim, axis)
    r = xp.unique(a, return_inverse=True, return_counts=True, axis=d)
    values, inverse, counts = r
    out = [_wrap(values, x)]
    if return_inverse:
        out.append(_wrap(inverse.reshape(a.shape if d is None else (-1,)).astype(np.int64), x))
    if return_counts:
        out.append(_wrap(counts.astype(np.int64), x))
    return out[0] if len(out) == 1 else tuple(out)


def bincount(x, weights=None, minlength=0):
    """How often each value 0, 1, ... occurs in the 1-D non-negative integer ``x`` (summing
    ``weights`` instead of ones when given)."""
    a = array_of(x)
    if a.ndim != 1 or a.dtype.kind not in "iu":
        raise ValueError(f"bincount only supports 1-d non-negative integral inputs, got shape "
                         f"{list(a.shape)} and dtype {a.dtype}")
    if a.size and a.min() < 0:
        raise ValueError("bincount only supports 1-d non-negative integral inputs")
    w = None if weights is None else array_of(weights)
    r = backend_of(x).bincount(a, weights=w, minlength=minlength)
    return _wrap(r if w is not None else r.astype(np.int64), x)


def searchsorted(sorted_sequence, values, out_int32=False, right=False, side=None,
                 sorter=None):
    """Where ``values`` would go in ``sorted_sequence`` (the last axis, row by row for a
    batch of sequences) to keep it sorted: the leftmost place, or the rightmost with
    ``right=True`` / ``side='right'``."""
    xp = backend_of(sorted_sequence)
    seq, v = array_of(sorted_sequence), array_of(values)
    side = side or ("right" if right else "left")
    if sorter is not None:
        seq = xp.take_along_axis(seq, array_of(sorter), -1)
    dtype = np.int32 if out_int32 else np.int64
    if seq.ndim == 1:
        r = xp.searchsorted(seq, v, side=side)
    else:
        if seq.shape[:-1] != v.shape[:-1]:
            raise ValueError(f"searchsorted: the leading dimensions of sorted_sequence "
                             f"{list(seq.shape)} and values {list(v.shape)} differ")
        rows_s, rows_v = seq.reshape(-1, seq.shape[-1]), v.reshape(-1, v.shape[-1])
        r = xp.stack([xp.searchsorted(s, w, side=side) for s, w in zip(rows_s, rows_v)])
        r = r.reshape(v.shape)
    return _wrap(xp.asarray(r).astype(dtype), values if isinstance(values, Tensor)
                 else sorted_sequence)


def bucketize(input, boundaries, out_int32=False, right=False):
    """The bucket of each element among the 1-D sorted ``boundaries``: ``searchsorted``
    with the roles of ``right`` as in PyTorch (``right=False``: boundaries[i-1] < x <=
    boundaries[i])."""
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def isin(elements, test_elements, assume_unique=False, invert=False):
    """Whether each element of ``elements`` is among ``test_elements``."""
    xp = backend_of(elements)
    r = xp.isin(array_of(elements), array_of(test_elements), assume_unique=assume_unique,
                invert=invert)
    return _wrap(xp.asarray(r), elements if isinstance(elements, Tensor) else test_elements)


def histc(x, bins=100, min=0, max=0):
    """A histogram of ``bins`` equal bins over [min, max] (the data's range when both are 0);
    elements outside are ignored."""
    xp, a = backend_of(x), array_of(x)
    lo, hi = float(min), float(max)
    if lo == hi == 0 and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise ValueError(f"histc: max must be larger than min, got min={min}, max={max}")
    counts, _ = xp.histogram(a, bins=int(bins), range=(lo, hi))
    return _wrap(counts.astype(a.dtype if a.dtype.kind == "f" else np.float32), x)


FUNCTIONS = {f.__name__: f for f in (nonzero, argwhere, count_nonzero, unique, bincount,
                                     searchsorted, bucketize, isin, histc)}
