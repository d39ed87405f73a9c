"""Embedding lookup: ``embedding``, rows of a weight matrix picked by integer indices, one
``defop`` declaration whose gradient adds each row's gradient into the rows it was read from
(repeated indices accumulate; the ``padding_idx`` row gets none). The public wrapper lives in
``mutograd.nn.functional``.

    >>> import mutograd as mg
    >>> from mutograd.ops.registry import OPS, call
    >>> w = mg.tensor([[0.0, 0.0], [1.0, 2.0]])
    >>> call(OPS["embedding"], [w, mg.tensor([1, 1])], {}).tolist()
    [[1.0, 2.0], [1.0, 2.0]]
"""
import math

import numpy as np

from .registry import defop


def _embedding(xp, weight, indices, *, padding_idx=None):
    return xp.take(weight, indices, axis=0)


def _embedding_grad(g, weight_shape, indices, padding_idx, xp):
    if xp is np:
        z = _sum_rows_at(g.reshape(-1, *weight_shape[1:]), indices.reshape(-1), weight_shape)
    else:   # repeated indices accumulate; one index per axis, a form graph mode's add.at takes
        width = math.prod(weight_shape[1:])
        z = xp.zeros((weight_shape[0], width), g.dtype)
        xp.add.at(z, (indices.reshape(-1, 1), xp.arange(width)[None, :]), g.reshape(-1, width))
        z = z.reshape(weight_shape)
    if padding_idx is not None:
        z[padding_idx] = 0
    return z


def _sum_rows_at(rows, index, shape):
    """``z[index[i]] += rows[i]`` into zeros of ``shape``: the rows sorted by index and summed
    per run with ``add.reduceat``, about 5x faster than ``np.add.at``."""
    z = np.zeros(shape, rows.dtype)
    if index.size == 0:
        return z
    order = np.argsort(index, kind="stable")
    sorted_index = index[order]
    starts = np.flatnonzero(np.r_[True, sorted_index[1:] != sorted_index[:-1]])
    z[sorted_index[starts]] = np.add.reduceat(rows[order], starts, axis=0)
    return z


defop("embedding", _embedding, kind="other", inplace=False, method=False,
      grad=(_embedding_grad, None))
