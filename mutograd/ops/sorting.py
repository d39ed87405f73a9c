"""Ordering and sampling: ``argsort``, ``sort``, ``topk``, ``multinomial``.

The index ops are declared with ``defop`` (not differentiable); the values of ``sort`` and
``topk`` are a ``gather`` at those indices, so their gradient is the gather's scatter.

    >>> import mutograd as mg
    >>> v, i = mg.topk(mg.tensor([1., 5., 3.]), 2)
    >>> v.tolist(), i.tolist()
    ([5.0, 3.0], [1, 2])
"""
from collections import namedtuple

import numpy as np

from ..errors import ShapeError
from .axes import canon_dim
from ..tensor import Tensor, _wrap
from .registry import OPS, call, defop

_ValuesIndices = namedtuple("ValuesIndices", ["values", "indices"])


def _argsort(xp, x, *, axis=-1, descending=False, stable=False):
    axis = canon_dim(axis, x.ndim, "argsort")
    if x.ndim == 0:
        return xp.zeros((), np.int64)
    # descending: a stable ascending sort of a key in reversed order, so that equal elements
    # keep their original order (PyTorch's stable sort) and NaN, the largest, comes first
    if not descending:
        idx = xp.argsort(x, axis=axis, kind="stable")
    elif x.dtype.kind in "fc":
        idx = xp.lexsort((-x, ~xp.isnan(x)), axis=axis)   # the last key is the first criterion
    else:
        idx = xp.argsort(~x, axis=axis, kind="stable")   # ~x reverses ints and bools exactly
    return idx.astype(np.int64, copy=False)


def _argtopk(xp, x, *, k, axis=-1, largest=True):
    idx = _argsort(xp, x, axis=axis, descending=largest)
    return xp.take(idx, xp.arange(k), axis=axis) if x.ndim else idx


defop("argsort", _argsort, kind="other", inplace=False)
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
    return _ValuesIndices(_gather(x, idx, a), idx)


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
    return _ValuesIndices(_gather(x, idx, a), idx)


def multinomial(x, num_samples, replacement=False, generator=None, name=None):
    """Draw ``num_samples`` category indices per row of the non-negative weights ``x`` (1-D or
    2-D), with or without replacement; draws from ``generator`` or mutograd's seeded one.

        >>> import mutograd as mg
        >>> _ = mg.seed(0)
        >>> mg.multinomial(mg.tensor([0., 1., 0.]), 2, replacement=True).tolist()
        [1, 1]
    """
    from .. import random
    if not isinstance(x, Tensor):
        raise TypeError(f"multinomial(): weights must be a Tensor, got {type(x).__name__}")
    if x.ndim not in (1, 2):
        raise ShapeError(f"multinomial(): prob_dist must be 1 or 2 dim, got {x.ndim} dims")
    w = np.asarray(x._data, dtype=np.float64)
    rows = w.reshape(-1, w.shape[-1])
    n = rows.shape[1]
    num_samples = int(num_samples)
    if num_samples <= 0:
        raise ValueError(f"multinomial(): cannot sample num_samples={num_samples} <= 0 samples")
    if not replacement and num_samples > n:
        raise ValueError(f"multinomial(): cannot sample n_sample > prob_dist.size(-1) samples "
                         f"without replacement ({num_samples} > {n})")
    if not np.all(np.isfinite(rows)) or (rows < 0).any():
        raise ValueError("multinomial(): probability tensor contains either inf, nan or "
                         "element < 0")
    sums = rows.sum(axis=1)
    if (sums <= 0).any():
        raise ValueError("multinomial(): invalid multinomial distribution (sum of "
                         "probabilities <= 0)")
    if not replacement and (np.count_nonzero(rows, axis=1) < num_samples).any():
        raise ValueError("multinomial(): invalid multinomial distribution (with replacement="
                         "False, not enough non-negative category to sample)")
    rng = random.generator(None, generator)   # drawn on the host
    out = np.stack([rng.choice(n, size=num_samples, replace=replacement, p=r / s)
                    for r, s in zip(rows, sums)])
    out = out.reshape(w.shape[:-1] + (num_samples,)).astype(np.int64)
    return _wrap(x._place.xp.asarray(out), x)


FUNCTIONS = {"sort": sort, "topk": topk, "multinomial": multinomial}
