"""Products of tensors and the distances built on them, composed from declared ops (their
gradients come from those): einsum, tensordot, inner, vdot, kron, cross, ger, mv, cdist, dist.
The declared ops they call (``einsum``, ``matmul``, ``outer``) are in matmul.py.

    >>> import mutograd as mg
    >>> mg.einsum("ij,j->i", mg.eye(2), mg.tensor([3.0, 4.0])).tolist()
    [3.0, 4.0]
    >>> mg.kron(mg.eye(2), mg.ones([1, 2])).tolist()
    [[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]]
    >>> mg.cross(mg.tensor([1.0, 0.0, 0.0]), mg.tensor([0.0, 1.0, 0.0])).tolist()
    [0.0, 0.0, 1.0]
"""
import numpy as np

from ..errors import ShapeError
from ..tensor import _wrap
from .complex_views import conj
from .registry import OPS, call

einsum = OPS["einsum"].function   # declared in matmul.py


def _dims(v):
    return [v] if isinstance(v, int) else list(v)


def tensordot(a, b, dims=2):
    """Sum over the last ``dims`` axes of ``a`` and the first of ``b`` (or the listed pairs)."""
    if isinstance(dims, int):
        da, db = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        da, db = (_dims(d) for d in dims)
    da, db = [d % a.ndim for d in da], [d % b.ndim for d in db]
    letters = "abcdefghijklmnopqrstuvwxyz"
    sa = list(letters[:a.ndim])
    sb = list(letters[a.ndim:a.ndim + b.ndim])
    for i, j in zip(da, db):
        sb[j] = sa[i]
    out = [c for i, c in enumerate(sa) if i not in da] + [c for j, c in enumerate(sb)
                                                          if j not in db]
    return einsum(f"{''.join(sa)},{''.join(sb)}->{''.join(out)}", a, b)


def inner(a, b):
    """The sum over the last axes: ``tensordot(a, b, ([-1], [-1]))``."""
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return tensordot(a, b, ([-1], [-1]))


def vdot(input, other):
    """``sum(conj(input) * other)`` of two 1-D tensors."""
    return (conj(input) * other).sum()


def kron(a, b):
    """The Kronecker product: every element of ``a`` times the whole of ``b``."""
    n = max(a.ndim, b.ndim)
    a = a.reshape([1] * (n - a.ndim) + list(a.shape))
    b = b.reshape([1] * (n - b.ndim) + list(b.shape))
    sa, sb = [], []
    for i in range(n):
        sa += [a.shape[i], 1]
        sb += [1, b.shape[i]]
    prod = a.reshape(sa) * b.reshape(sb)
    return prod.reshape([a.shape[i] * b.shape[i] for i in range(n)])


def cross(a, b, dim=None):
    """The cross product of 3-vectors along ``dim`` (the first of size 3 when None)."""
    if dim is None:
        dim = next((i for i, n in enumerate(a.shape) if n == 3), None)
        if dim is None:
            raise ShapeError(f"cross: no dimension of size 3 in shape {list(a.shape)}")
    if a.shape[dim] != 3 or b.shape[dim] != 3:
        raise ShapeError(f"cross: dimension {dim} must have size 3, got shapes "
                         f"{list(a.shape)} and {list(b.shape)}")

    def pick(t, order):
        return call(OPS["index_select"], [t, _wrap(np.array(order))], {"axis": dim})
    return pick(a, [1, 2, 0]) * pick(b, [2, 0, 1]) - pick(a, [2, 0, 1]) * pick(b, [1, 2, 0])


def cdist(x1, x2, p=2.0):
    """The ``p``-norm distance between each row of ``x1`` (..., P, M) and of ``x2`` (..., R,
    M): shape (..., P, R)."""
    return (x1.unsqueeze(-2) - x2.unsqueeze(-3)).norm(p, dim=-1)


def dist(a, b, p=2):
    """The ``p``-norm of ``a - b``."""
    return (a - b).norm(p)


FUNCTIONS = {f.__name__: f for f in (tensordot, inner, vdot, kron, cross, cdist, dist)}
FUNCTIONS.update({"ger": lambda input, vec2: OPS["outer"].function(input, vec2),
                  "mv": lambda input, vec: OPS["matmul"].function(input, vec)})
