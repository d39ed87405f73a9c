"""Grids and combinations of the elements of 1-D tensors: meshgrid (views), cartesian_prod,
combinations. Gradients come from the views and indexing they are made of.

    >>> import mutograd as mg
    >>> gx, gy = mg.meshgrid(mg.tensor([1, 2]), mg.tensor([3, 4, 5]))
    >>> gx.shape, gy.tolist()[0]
    ([2, 3], [3, 4, 5])
    >>> mg.combinations(mg.tensor([1, 2, 3])).tolist()
    [[1, 2], [1, 3], [2, 3]]
"""
import itertools

import numpy as np

from . import creation, shaping


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


def cartesian_prod(*tensors):
    """All combinations of one element of each 1-D tensor, as rows."""
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return shaping.stack([g.reshape(-1) for g in grids], 1)


def combinations(input, r=2, with_replacement=False):
    """The length-``r`` combinations of the elements of a 1-D tensor, as rows."""
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    idx = np.array(list(pick(range(input.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    if not idx.size:
        return input.new_empty(0, r) if r else input.new_empty(0)
    return input[creation.tensor(idx)]


FUNCTIONS = {f.__name__: f for f in (meshgrid, cartesian_prod, combinations)}
