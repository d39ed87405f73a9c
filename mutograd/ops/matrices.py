"""Matrices built from tensors or read from them, composed from declared ops (their gradients
come from those): the diagonal (trace, diag, diag_embed, diagflat), block_diag and vander. The
linear-algebra ops proper (det, logdet, inv, solve, ...) are in linalg.py.

    >>> import mutograd as mg
    >>> mg.diag(mg.tensor([1.0, 2.0])).tolist()
    [[1.0, 0.0], [0.0, 2.0]]
    >>> mg.trace(mg.tensor([[1.0, 2.0], [3.0, 4.0]])).item()
    5.0
    >>> mg.block_diag(mg.ones([1, 1]), mg.tensor([[2.0]])).tolist()
    [[1.0, 0.0], [0.0, 2.0]]
"""
import numpy as np

from ..errors import ShapeError
from . import shaping
from .registry import OPS, defop


def trace(x):
    """The sum of the main diagonal of a matrix."""
    if x.ndim != 2:
        raise ShapeError(f"trace: expected a matrix, got shape {list(x.shape)}")
    return x.diagonal().sum()


def diag(x, diagonal=0):
    """A vector's square diagonal matrix (the vector on diagonal ``diagonal``), or a matrix's
    diagonal as a new vector."""
    if x.ndim == 2:
        return x.diagonal(diagonal) * 1
    if x.ndim != 1:
        raise ShapeError(f"diag: expected a vector or a matrix, got shape {list(x.shape)}")
    return OPS["diag_embed"].function(x, diagonal)


def _diag_embed(xp, x, offset=0, axis1=-2, axis2=-1):
    n = x.shape[-1] + abs(offset)
    out = xp.zeros(x.shape[:-1] + (n, n), x.dtype)
    r = np.arange(x.shape[-1])
    rows, cols = (r, r + offset) if offset >= 0 else (r - offset, r)
    out[..., rows, cols] = x
    return _moved(xp, out, (-2, -1), (axis1, axis2))


def _moved(xp, a, source, dest):
    """``a`` with its axes ``source`` moved to ``dest`` (``a`` itself when they are there)."""
    nd = a.ndim
    source = tuple(d % nd for d in source)
    dest = tuple(d % nd for d in dest)
    return a if source == dest else xp.moveaxis(a, source, dest)


def _diag_embed_grad(g, offset, axis1, axis2, xp):
    g = _moved(xp, g, (axis1, axis2), (-2, -1))
    m = g.shape[-1] - abs(offset)
    r = np.arange(m)
    rows, cols = (r, r + offset) if offset >= 0 else (r - offset, r)
    return g[..., rows, cols]


# the vectors on one diagonal of two dimensions (dim1/dim2 are the global spellings of
# axis1/axis2)
defop("diag_embed", _diag_embed, kind="other", inplace=False, grad=_diag_embed_grad,
      doc="Matrices with the last dimension of ``x`` on their ``offset`` diagonal, in the "
          "dimensions ``axis1``, ``axis2`` of the result.")


def diagflat(input, offset=0):
    """A matrix with ``input`` flattened on its ``offset`` diagonal."""
    return input.reshape(-1).diag(offset)


def block_diag(*tensors):
    """A block-diagonal matrix of the (at most 2-D) tensors."""
    ts = [t.reshape(1, -1) if t.ndim == 1 else t.reshape(1, 1) if t.ndim == 0 else t
          for t in tensors]
    cols = sum(t.shape[1] for t in ts)
    rows, left = [], 0
    from ..nn import functional as F
    for t in ts:
        rows.append(F.pad(t, [left, cols - left - t.shape[1]]))
        left += t.shape[1]
    return shaping.cat(rows, 0)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of ``x``: columns ``x^(N-1) .. x^0`` (reversed if
    ``increasing``)."""
    n = x.shape[0] if N is None else N
    powers = range(n) if increasing else range(n - 1, -1, -1)
    return shaping.stack([x ** p if p else x * 0 + 1 for p in powers], 1)


FUNCTIONS = {f.__name__: f for f in (trace, diag, diagflat, block_diag, vander)}
