"""``beta * x + alpha * (product)`` updates (addmm, addmv, addr, baddbmm, addbmm) and renorm.

In place, the product is computed into a workspace before ``x`` is written, so a shape that
does not fit is refused with ``x`` unchanged. The gradients need the two factors only (never
``x``), so the in-place forms keep no copy: they save references to the factors.
"""
from .. import memory
from ..places import key_for
from ..errors import ShapeError
from .axes import canon_dim
from .registry import OPS, call_inplace, defop


def _swap(a):
    return a.swapaxes(-1, -2)


def _check(name, a, nd, what):
    if a.ndim != nd:
        raise ShapeError(f"{name}(): {what} must be a {nd}-D tensor, got {a.ndim}-D")


def _update(name, xp, x, prod, beta, alpha, out):
    """``beta * x + alpha * prod`` into ``out`` (checked before anything is written)."""
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


def _addmm(xp, x, mat1, mat2, beta=1, alpha=1, out=None):
    _check("addmm", mat1, 2, "mat1")
    _check("addmm", mat2, 2, "mat2")
    return _update("addmm", xp, x, mat1 @ mat2, beta, alpha, out)


def _addmv(xp, x, mat, vec, beta=1, alpha=1, out=None):
    _check("addmv", mat, 2, "mat")
    _check("addmv", vec, 1, "vec")
    return _update("addmv", xp, x, mat @ vec, beta, alpha, out)


def _addr(xp, x, vec1, vec2, beta=1, alpha=1, out=None):
    _check("addr", vec1, 1, "vec1")
    _check("addr", vec2, 1, "vec2")
    return _update("addr", xp, x, xp.outer(vec1, vec2), beta, alpha, out)


def _baddbmm(xp, x, batch1, batch2, beta=1, alpha=1, out=None):
    _check("baddbmm", batch1, 3, "batch1")
    _check("baddbmm", batch2, 3, "batch2")
    return _update("baddbmm", xp, x, batch1 @ batch2, beta, alpha, out)


def _addbmm(xp, x, batch1, batch2, beta=1, alpha=1, out=None):
    _check("addbmm", batch1, 3, "batch1")
    _check("addbmm", batch2, 3, "batch2")
    return _update("addbmm", xp, x, (batch1 @ batch2).sum(0), beta, alpha, out)


def _beta(g, beta):
    return g * beta


defop("addmm", _addmm, kind="matmul",
      grad=(_beta, lambda g, mat2, alpha: alpha * (g @ mat2.T),
            lambda g, mat1, alpha: alpha * (mat1.T @ g)))
defop("addmv", _addmv, kind="matmul",
      grad=(_beta, lambda g, vec, alpha, xp: alpha * xp.outer(g, vec),
            lambda g, mat, alpha: alpha * (mat.T @ g)))
defop("addr", _addr, kind="matmul",
      grad=(_beta, lambda g, vec2, alpha: alpha * (g @ vec2),
            lambda g, vec1, alpha: alpha * (g.T @ vec1)))
defop("baddbmm", _baddbmm, kind="matmul",
      grad=(_beta, lambda g, batch2, alpha: alpha * (g @ _swap(batch2)),
            lambda g, batch1, alpha: alpha * (_swap(batch1) @ g)))
defop("addbmm", _addbmm, kind="matmul",
      grad=(_beta, lambda g, batch2, alpha: alpha * (g[None] @ _swap(batch2)),
            lambda g, batch1, alpha: alpha * (_swap(batch1) @ g[None])))


# ---- renorm ------------------------------------------------------------------------------------
_EPS = 1e-7   # both frameworks scale by max_norm / (norm + 1e-7)


def _factor(xp, x, p, axis, max_norm, chosen=None):
    """Norm of each sub-tensor ``x.select(axis, i)`` (keepdims), which ones are over the limit
    (and ``chosen``, when given), and the factor each is scaled by."""
    a = axis % x.ndim
    others = tuple(i for i in range(x.ndim) if i != a)
    if p == float("inf"):
        n = xp.abs(x).max(axis=others, keepdims=True) if x.size else xp.zeros_like(x)
    else:
        n = (xp.abs(x) ** p).sum(axis=others, keepdims=True) ** (1.0 / p)
    over = n > max_norm
    if chosen is not None:
        over = over & chosen
    return n, over, xp.where(over, max_norm / (n + _EPS), 1.0)


def _check_renorm(p, max_norm, what):
    if p <= 0:
        raise ValueError(f"{what}: p must be positive, got {p}")
    if max_norm < 0:
        raise ValueError(f"{what}: max_norm must be non-negative, got {max_norm}")


def _renorm(xp, x, *, p, axis, max_norm, out=None):
    _check_renorm(p, max_norm, "renorm")
    if x.ndim < 2:
        raise ShapeError(f"renorm: the tensor needs at least 2 dimensions, got {x.ndim}")
    canon_dim(axis, x.ndim, "renorm")
    _, _, f = _factor(xp, x, p, axis, max_norm)
    return xp.multiply(x, f.astype(x.dtype, copy=False), out=out)


def _renorm_grad(g, x, p, axis, max_norm, xp):
    return _renorm_rows_grad(g, x, p, axis, max_norm, xp, None)


def _renorm_rows_grad(g, x, p, axis, max_norm, xp, chosen):
    """out = f(n) x on each sub-tensor over the limit: dx = f g + f'(n) <g, x> dn/dx."""
    n, over, f = _factor(xp, x, p, axis, max_norm, chosen)
    a = axis % x.ndim
    others = tuple(i for i in range(x.ndim) if i != a)
    dfdn = xp.where(over, -max_norm / (n + _EPS) ** 2, 0.0)
    safe = xp.where(n == 0, 1, n)
    if p == float("inf"):
        dndx = xp.sign(x) * (xp.abs(x) == n)
    else:
        dndx = xp.sign(x) * xp.abs(x) ** (p - 1) / safe ** (p - 1)
    gx = (g * x).sum(axis=others, keepdims=True)
    return f * g + dfdn * gx * dndx


defop("renorm", _renorm, kind="other", grad=_renorm_grad)


def _chosen(xp, x, index):
    """Rows of ``x`` that ``index`` names, as a mask shaped to broadcast against ``x``."""
    if index.dtype.kind not in "iu":
        raise TypeError(f"embedding_renorm_: the index must be an integer tensor, got "
                        f"{index.dtype}")
    n = x.shape[0]
    if index.size and (index.min() < 0 or index.max() >= n):
        raise IndexError(f"embedding_renorm_: an index is out of range for a weight with {n} "
                         f"rows")
    rows = xp.zeros(n, bool)
    rows[index.reshape(-1)] = True
    return rows.reshape((n,) + (1,) * (x.ndim - 1))


def _embedding_renorm(xp, x, index, *, max_norm, norm_type=2.0, out=None):
    """The rows of ``x`` named by ``index`` whose norm exceeds ``max_norm`` scaled down to it."""
    _check_renorm(norm_type, max_norm, "embedding_renorm_")
    if x.ndim != 2:
        raise ShapeError(f"embedding_renorm_: the weight must be 2-D, got {x.ndim}-D")
    _, _, f = _factor(xp, x, norm_type, 0, max_norm, _chosen(xp, x, index))
    return xp.multiply(x, f.astype(x.dtype, copy=False), out=out)


defop("embedding_renorm", _embedding_renorm, kind="other",
      grad=(lambda g, x, index, max_norm, norm_type, xp: _renorm_rows_grad(
          g, x, norm_type, 0, max_norm, xp, _chosen(xp, x, index)), None))


def embedding_renorm_(weight, index, max_norm, norm_type=2.0):
    """Scale the rows of ``weight`` that ``index`` names down to norm ``max_norm``; returns
    ``weight``. PyTorch passes ``(weight, input)``, Paddle's functional form ``(x, weight)``:
    the integer tensor is the index, so either order works."""
    if _is_int(weight) and not _is_int(index):
        weight, index = index, weight
    return call_inplace(OPS["embedding_renorm"], [weight, index],
                        {"max_norm": max_norm, "norm_type": norm_type})


def _is_int(t):
    dt = getattr(getattr(t, "_data", t), "dtype", None)
    return dt is not None and dt.kind in "iu"
