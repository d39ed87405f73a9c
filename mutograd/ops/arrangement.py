"""Rearranging and combining tensors, composed from declared ops (views where PyTorch gives
views; every result has the gradient of the ops it is made of): movedim, diff, rot90,
atleast_1d/2d/3d, broadcast_tensors, take, take_along_dim, positive, trace, diag, kron, cross,
tensordot, inner, cdist, dist.

    >>> import mutograd as mg
    >>> mg.diff(mg.tensor([1.0, 4.0, 9.0])).tolist()
    [3.0, 5.0]
    >>> mg.kron(mg.eye(2), mg.ones([1, 2])).tolist()
    [[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]]
"""
import numpy as np

from ..errors import ShapeError
from ..tensor import Tensor, _wrap
from .composite import einsum
from .registry import OPS, call, defop


def _dims(v):
    return [v] if isinstance(v, int) else list(v)


def movedim(x, source, destination):
    """``x`` with dimensions ``source`` moved to ``destination`` (a view)."""
    src = [s % x.ndim for s in _dims(source)]
    dst = [d % x.ndim for d in _dims(destination)]
    if len(src) != len(dst):
        raise ValueError(f"movedim: source and destination differ in length ({len(src)} vs "
                         f"{len(dst)})")
    rest = [i for i in range(x.ndim) if i not in src]
    order = [None] * x.ndim
    for s, d in zip(src, dst):
        order[d] = s
    it = iter(rest)
    order = [o if o is not None else next(it) for o in order]
    return x.permute(*order)


moveaxis = movedim


def diff(x, n=1, dim=-1, prepend=None, append=None, axis=None):
    """The ``n``-th forward difference along ``dim``, after joining ``prepend``/``append``."""
    axis = (dim if axis is None else axis) % x.ndim
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        x = _cat(parts, axis)
    for _ in range(n):
        m = x.shape[axis]
        x = x.narrow(axis, 1, m - 1) - x.narrow(axis, 0, m - 1) if m else x
    return x


def _cat(parts, axis):
    from .shaping import cat
    return cat([p if isinstance(p, Tensor) else _wrap(np.asarray(p)) for p in parts], axis)


def rot90(x, k=1, dims=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane of ``dims``, from the first towards the
    second axis."""
    a, b = (d % x.ndim for d in dims)
    if a == b:
        raise ValueError(f"rot90: the two dims must differ, got {list(dims)}")
    k %= 4
    if k == 0:
        return x * 1
    if k == 2:
        return x.flip(a, b)
    perm = list(range(x.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return x.flip(b).permute(*perm) if k == 1 else x.permute(*perm).flip(b)


def _atleast(n, tensors):
    out = []
    for t in tensors:
        while t.ndim < n:
            t = t.unsqueeze(0)
        out.append(t)
    return out[0] if len(out) == 1 else tuple(out)


def atleast_1d(*tensors):
    """Each tensor with at least one dimension (a 0-d one as shape [1])."""
    return _atleast(1, _flat(tensors))


def atleast_2d(*tensors):
    """Each tensor with at least two dimensions (leading ones added)."""
    return _atleast(2, _flat(tensors))


def atleast_3d(*tensors):
    """At least three dimensions: a vector (n,) becomes (1, n, 1), a matrix (m, n) (m, n, 1)."""
    out = []
    for t in _flat(tensors):
        if t.ndim == 0:
            t = t.reshape(1, 1, 1)
        elif t.ndim == 1:
            t = t.reshape(1, -1, 1)
        elif t.ndim == 2:
            t = t.unsqueeze(-1)
        out.append(t)
    return out[0] if len(out) == 1 else tuple(out)


def _flat(tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return list(tensors[0])
    return list(tensors)


def broadcast_tensors(*tensors):
    """The tensors expanded (as views) to their common broadcast shape."""
    ts = _flat(tensors)
    shape = np.broadcast_shapes(*(tuple(t.shape) for t in ts))
    return tuple(t.expand(*shape) for t in ts)


def take(x, index):
    """Elements of ``x`` at ``index`` into its flattened form, in ``index``'s shape."""
    return x.reshape(-1)[index]


def take_along_dim(x, indices, dim=None):
    """``take_along_axis``; without ``dim``, over the flattened ``x``."""
    from .argument_orders import take_along_axis
    if dim is None:
        return take_along_axis(x.reshape(-1), indices.reshape(-1), 0)
    return take_along_axis(x, indices, dim)


def positive(x):
    """``x`` itself (``+x``)."""
    return x


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
    return call(OPS["diag_embed"], [x], {"offset": diagonal})


def _diag_embed(xp, x, *, offset):
    n = x.shape[-1] + abs(offset)
    out = xp.zeros(x.shape[:-1] + (n, n), x.dtype)
    r = np.arange(x.shape[-1])
    rows, cols = (r, r + offset) if offset >= 0 else (r - offset, r)
    out[..., rows, cols] = x
    return out


def _diag_embed_grad(g, offset, xp):
    m = g.shape[-1] - abs(offset)
    r = np.arange(m)
    rows, cols = (r, r + offset) if offset >= 0 else (r - offset, r)
    return g[..., rows, cols]


defop("diag_embed", _diag_embed, kind="other", inplace=False, method=False,
      grad=_diag_embed_grad)


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


def cdist(x1, x2, p=2.0):
    """The ``p``-norm distance between each row of ``x1`` (..., P, M) and of ``x2`` (..., R,
    M): shape (..., P, R)."""
    return (x1.unsqueeze(-2) - x2.unsqueeze(-3)).norm(p, dim=-1)


def dist(a, b, p=2):
    """The ``p``-norm of ``a - b``."""
    return (a - b).norm(p)


FUNCTIONS = {f.__name__: f for f in (movedim, diff, rot90, atleast_1d, atleast_2d, atleast_3d,
                                     broadcast_tensors, take, take_along_dim, positive, trace,
                                     diag, kron, cross, tensordot, inner, cdist, dist)}
FUNCTIONS["moveaxis"] = movedim
