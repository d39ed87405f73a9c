"""Normalisation: ``normalize`` (the core of batch and instance norm: ``(x - mean) /
sqrt(var + eps)`` over given axes) and ``layer_norm`` (with its scale and shift), each one
``defop`` declaration that keeps the statistics its backward needs (Note [Values kept from the
forward]); the public wrappers live in ``mutograd.nn.functional``. Then the norm limits:
``renorm`` (each sub-tensor along an axis scaled down to a largest norm) and
``embedding_renorm_`` (the same for the rows of an embedding that an index names).

    >>> import mutograd as mg
    >>> from mutograd.ops.registry import OPS, call
    >>> call(OPS["normalize"], [mg.tensor([[1.0, 3.0]])], {"axis": (1,), "eps": 0.0}).tolist()
    [[-1.0, 1.0]]
"""
from .. import memory
from ..errors import ShapeError
from .axes import canon_dim
from .registry import defop


def _normalize(xp, x, *, axis, eps, keep=None):
    """``(x - mean) / sqrt(var + eps)`` over ``axis`` (biased variance), batch/layer norm's core;
    keeps the mean and the inverse deviation for backward (Note [Values kept from the forward])."""
    mean = x.mean(axis=axis, keepdims=True)
    out = xp.subtract(x, mean, out=memory.empty_like(xp, x, mean.dtype))
    var = xp.square(out, out=memory.empty_like(xp, out)).mean(axis=axis, keepdims=True)
    var += eps
    inv = xp.sqrt(var, out=var)
    xp.divide(1, inv, out=inv)
    out *= inv
    if keep is not None:
        keep["mean"], keep["inv"] = mean, inv
    return out


def _normalize_grad(g, x, mean, inv, axis, xp):
    xhat = xp.subtract(x, mean, out=memory.empty_like(xp, x, mean.dtype))
    xhat *= inv
    r = xp.subtract(g, g.mean(axis=axis, keepdims=True), out=memory.empty_like(xp, g))
    xhat *= xp.multiply(g, xhat, out=memory.empty_like(xp, g)).mean(axis=axis, keepdims=True)
    r -= xhat
    r *= inv
    return r


defop("normalize", _normalize, kind="other", inplace=False, method=False, grad=_normalize_grad,
      keeps=("mean", "inv"))


def _rows(x, axis):
    """``x`` as a (rows, D) matrix over its trailing ``axis`` (layer norm's), and D."""
    d = 1
    for a in axis:
        d *= x.shape[a]
    return x.reshape(-1, d), d


def _layer_norm(xp, x, weight, bias, *, axis, eps, keep=None):
    """Layer norm as row operations on (rows, D): row sums by einsum (no temporaries), then
    scale and shift by ``weight`` and ``bias`` (or None). Keeps the normalised rows and each
    row's inverse deviation instead of saving ``x`` (Note [Values kept from the forward]): the
    same memory, and the backward needs no recomputation."""
    x2, d = _rows(x, axis)
    acc = xp.result_type(x.dtype, xp.float32)   # statistics of float16 rows in float32
    dtype = x.dtype if x.dtype.kind == "f" else acc
    xhat = memory.empty(xp, x.shape, dtype)
    h2 = xhat.reshape(x2.shape)
    mean = xp.einsum("ij->i", x2, dtype=acc)[:, None]
    mean /= d
    xp.subtract(x2, mean, out=h2)
    inv = xp.einsum("ij,ij->i", h2, h2, dtype=acc)[:, None]
    inv /= d
    inv += eps
    xp.sqrt(inv, out=inv)
    xp.divide(1, inv, out=inv)
    h2 *= inv
    if keep is not None:
        keep["xhat"], keep["inv"] = xhat, inv
    if weight is not None:
        out = xp.multiply(xhat, weight, out=memory.empty(xp, x.shape, dtype))
    elif bias is not None or keep is not None:
        out = xhat.copy()       # the result is the caller's to write; the kept rows are not
    else:
        return xhat
    if bias is not None:
        out += bias
    return out


def _layer_norm_grad_x(g, weight, xhat, inv, axis, xp):
    # dx = inv * (gw - mean(gw) - xhat * mean(gw * xhat)) over each row, gw = g * weight
    if weight is not None:
        g = xp.multiply(g, weight, out=memory.empty_like(xp, g))
    g2, d = _rows(g, axis)
    h2 = _rows(xhat, axis)[0]
    a = xp.einsum("ij->i", g2)[:, None]
    a /= d
    b = xp.einsum("ij,ij->i", g2, h2)[:, None]
    b /= d
    r = memory.empty(xp, xhat.shape, xhat.dtype)
    r2 = r.reshape(h2.shape)
    xp.multiply(h2, b, out=r2)
    xp.subtract(g2, r2, out=r2)
    r2 -= a
    r2 *= inv
    return r


def _layer_norm_grad_weight(g, xhat, axis, weight_shape, xp):
    return xp.einsum("ij,ij->j", _rows(g, axis)[0], _rows(xhat, axis)[0]).reshape(weight_shape)


defop("layer_norm", _layer_norm, kind="other", inplace=False, method=False,
      grad=(_layer_norm_grad_x, _layer_norm_grad_weight, lambda g: g), keeps=("xhat", "inv"))


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
