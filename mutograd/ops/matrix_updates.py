"""``beta * x + alpha * (product)`` updates (addmm, addmv, addr, baddbmm, addbmm).

In place, the product is computed into a workspace before ``x`` is written, so a shape that
does not fit is refused with ``x`` unchanged. The gradients need the two factors only (never
``x``), so the in-place forms keep no copy: they save references to the factors.
"""
from .. import memory
from ..places import key_for
from ..errors import ShapeError
from .linalg_shared import conj, mH
from .registry import defop


def _update(name, xp, x, factors, product, beta, alpha, out):
    """``beta * x + alpha * product(a, b)`` into ``out`` (checked before anything is written).

    ``factors`` names the two factors with the number of dimensions each must have, in the
    order they are checked: ``{"mat1": (mat1, 2), "mat2": (mat2, 2)}``.
    """
    for what, (a, nd) in factors.items():
        if a.ndim != nd:
            raise ShapeError(f"{name}(): {what} must be a {nd}-D tensor, got {a.ndim}-D")
    prod = product(xp, *(a for a, _ in factors.values()))
    if out is not None and prod.shape != out.shape:
        raise ShapeError(f"{name}_(): the result has shape {list(prod.shape)} but the tensor "
                         f"written in place has shape {list(out.shape)}")
    # the product's buffer is a real (temporary) allocation, on the device it sits on
    work = memory.Storage(prod.nbytes, key_for(xp, prod))
    if alpha != 1:
        prod *= alpha
    if beta == 0:    # as in both frameworks, beta = 0 ignores x (NaN/inf in x do not propagate)
        r = prod
    else:
        r = xp.add(prod, x if beta == 1 else x * beta)
    del work
    if out is None:
        return r.astype(x.dtype, copy=False) if x.dtype.kind == "f" else r
    out[...] = r
    return out


def _matmul(xp, a, b):
    return a @ b


def _addmm(xp, x, mat1, mat2, beta=1, alpha=1, out=None):
    return _update("addmm", xp, x, {"mat1": (mat1, 2), "mat2": (mat2, 2)}, _matmul,
                   beta, alpha, out)


def _addmv(xp, x, mat, vec, beta=1, alpha=1, out=None):
    return _update("addmv", xp, x, {"mat": (mat, 2), "vec": (vec, 1)}, _matmul,
                   beta, alpha, out)


def _addr(xp, x, vec1, vec2, beta=1, alpha=1, out=None):
    return _update("addr", xp, x, {"vec1": (vec1, 1), "vec2": (vec2, 1)},
                   lambda xp, a, b: xp.outer(a, b), beta, alpha, out)


def _baddbmm(xp, x, batch1, batch2, beta=1, alpha=1, out=None):
    return _update("baddbmm", xp, x, {"batch1": (batch1, 3), "batch2": (batch2, 3)}, _matmul,
                   beta, alpha, out)


def _addbmm(xp, x, batch1, batch2, beta=1, alpha=1, out=None):
    return _update("addbmm", xp, x, {"batch1": (batch1, 3), "batch2": (batch2, 3)},
                   lambda xp, a, b: (a @ b).sum(0), beta, alpha, out)


# the conjugates of Note [Complex gradients] (elementwise.py): the factors, alpha and beta
def _beta(g, beta):
    return g * _c(beta)


def _c(a):
    return a.conjugate() if type(a) is complex else a


defop("addmm", _addmm, kind="matmul",
      grad=(_beta, lambda g, mat2, alpha: _c(alpha) * (g @ mH(mat2)),
            lambda g, mat1, alpha: _c(alpha) * (mH(mat1) @ g)))
defop("addmv", _addmv, kind="matmul",
      grad=(_beta, lambda g, vec, alpha, xp: _c(alpha) * xp.outer(g, conj(vec)),
            lambda g, mat, alpha: _c(alpha) * (mH(mat) @ g)))
defop("addr", _addr, kind="matmul", same_dtype=False,
      grad=(_beta, lambda g, vec2, alpha: _c(alpha) * (g @ conj(vec2)),
            lambda g, vec1, alpha: _c(alpha) * (g.T @ conj(vec1))))
defop("baddbmm", _baddbmm, kind="matmul",
      grad=(_beta, lambda g, batch2, alpha: _c(alpha) * (g @ mH(batch2)),
            lambda g, batch1, alpha: _c(alpha) * (mH(batch1) @ g)))
defop("addbmm", _addbmm, kind="matmul",
      grad=(_beta, lambda g, batch2, alpha: _c(alpha) * (g[None] @ mH(batch2)),
            lambda g, batch1, alpha: _c(alpha) * (mH(batch1) @ g[None])))
