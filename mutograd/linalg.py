"""``mutograd.linalg``: norms, inverse, determinants, solving and powers of matrices, with
gradients (``torch.linalg``'s names).

    >>> import mutograd as mg
    >>> a = mg.tensor([[2.0, 0.0], [0.0, 4.0]])
    >>> mg.linalg.det(a).item(), mg.linalg.solve(a, mg.tensor([2.0, 2.0])).tolist()
    (8.0, [1.0, 0.5])
    >>> mg.linalg.norm(mg.tensor([3.0, 4.0])).item()
    5.0
"""
import math

from .ops import FUNCTIONS as _F
from .ops import OPS as _OPS
from .ops import call as _call

__all__ = ["cross", "det", "inv", "matrix_norm", "matrix_power", "norm", "slogdet", "solve",
           "vecdot", "vector_norm"]


def vector_norm(x, ord=2, dim=None, keepdim=False, dtype=None):
    """The ``ord``-norm over ``dim`` (all elements when None), as vectors."""
    if dtype is not None:
        x = x.astype(dtype)
    if dim is None:
        r = _call(_OPS["norm"], [x.reshape(-1)], {"p": ord, "axis": 0, "keepdim": False})
        return r.reshape([1] * x.ndim) if keepdim else r
    return _call(_OPS["norm"], [x], {"p": ord, "axis": dim, "keepdim": keepdim})


def matrix_norm(x, ord="fro", dim=(-2, -1), keepdim=False):
    """The Frobenius norm, or the largest (``ord=1``/``inf``) or smallest (``-1``/``-inf``)
    absolute column/row sum, over the two dimensions ``dim``."""
    r, c = (d % x.ndim for d in dim)
    if ord == "fro":
        out = (x * x).sum(axis=(r, c), keepdim=True).sqrt()
    elif ord in (1, -1, math.inf, -math.inf):
        sums = x.abs().sum(axis=r if abs(ord) == 1 else c, keepdim=True)
        pick = "amax" if ord > 0 else "amin"
        out = _call(_OPS[pick], [sums], {"axis": c if abs(ord) == 1 else r, "keepdim": True})
    else:
        raise ValueError(f"matrix_norm: ord must be 'fro', 1, -1, inf or -inf, got {ord!r}")
    return out if keepdim else out.squeeze((r, c) if r < c else (c, r))


def norm(x, ord=None, dim=None, keepdim=False, dtype=None):
    """``vector_norm`` for one dimension (or all, flattened, when ``ord`` is None),
    ``matrix_norm`` for two."""
    if isinstance(dim, (tuple, list)) and len(dim) == 2:
        return matrix_norm(x, "fro" if ord is None else ord, dim, keepdim)
    if dim is None and ord is not None and x.ndim == 2:
        return matrix_norm(x, ord, (-2, -1), keepdim)
    return vector_norm(x, 2 if ord is None else ord, dim, keepdim, dtype)


def inv(x):
    """The inverse of square matrices."""
    return _call(_OPS["inverse"], [x], {})


def det(x):
    """The determinant of square matrices."""
    return _call(_OPS["det"], [x], {})


def slogdet(x):
    """``(sign, log|det|)``."""
    return _F["slogdet"](x)


def solve(a, b):
    """``X`` with ``a @ X = b`` (``b`` a matrix, or a vector per matrix of ``a``)."""
    return _call(_OPS["solve"], [a, b], {})


def matrix_power(x, n):
    """``x`` to the integer power ``n``."""
    return _F["matrix_power"](x, n)


def cross(a, b, dim=-1):
    """The cross product of 3-vectors along ``dim``."""
    return _F["cross"](a, b, dim)


def vecdot(a, b, dim=-1):
    """The dot product of vectors along ``dim`` (conjugating ``a`` for complex ones)."""
    return (a.conj() * b).sum(axis=dim) if a.dtype.np.kind == "c" else (a * b).sum(axis=dim)
