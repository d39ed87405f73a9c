"""Normalisation: ``normalize`` (the core of batch and instance norm: ``(x - mean) /
sqrt(var + eps)`` over given axes) and ``layer_norm`` (with its scale and shift), each one
``defop`` declaration that keeps the statistics its backward needs (Note [Values kept from the
forward]); the public wrappers live in ``mutograd.nn.functional``. Then the norm limits:
``renorm`` (each sub-tensor along an axis scaled down to a largest norm) and
``embedding_renorm_`` (the same for the rows of an embedding that an index names; its public
function takes PyTorch's ``(weight, index)``, Paddle's ``(x, weight)`` is
``mutograd.compat.paddle.nn.functional``'s).

    >>> import mutograd as mg
    >>> from mutograd.ops.registry import OPS, call
    >>> call(OPS["normalize"], [mg.tensor([[1.0, 3.0]])], {"axis": (1,), "eps": 0.0}).tolist()
    [[-1.0, 1.0]]
"""
from .. import memory
from ..autograd.graph_arrays import graph_mode
from ..errors import ShapeError
from .axes import canon_dim
from .axes import paddle_order
from .registry import OPS, call_inplace, defop


# Note [Normalisation statistics in graph mode]
#     normalize and layer_norm keep each group's mean and inverse deviation from the forward
#     and save their input: the backward recomputes only ``x - mean`` from them. Kept values
#     are constants in graph mode (create_graph=True), where the gradient must also carry how
#     the statistics depend on ``x``; there the same helper the forward used (``_moments``,
#     ``_row_moments``) computes them again from the saved input, as recorded ops. The formulas
#     write in place only into buffers of their own that no recorded op has saved.
def _moments(xp, x, axis, eps):
    """The mean over ``axis`` (keepdims), ``x - mean`` and the inverse deviation
    ``1 / sqrt(var + eps)`` (biased variance): batch and instance norm's statistics."""
    mean = x.mean(axis=axis, keepdims=True)
    c = xp.subtract(x, mean, out=memory.empty_like(xp, x, mean.dtype))
    var = xp.square(c, out=memory.empty_like(xp, c)).mean(axis=axis, keepdims=True)
    return mean, c, 1 / xp.sqrt(var + eps)


def _normalize(xp, x, *, axis, eps, keep=None):
    """``(x - mean) / sqrt(var + eps)`` over ``axis``, batch/layer norm's core; keeps the mean
    and the inverse deviation for backward (Note [Values kept from the forward])."""
    mean, out, inv = _moments(xp, x, axis, eps)
    out *= inv
    if keep is not None:
        keep["mean"], keep["inv"] = mean, inv
    return out


def _normalize_grad(g, x, mean, inv, axis, eps, xp):
    # dx = inv * (g - mean(g) - xhat * mean(g * xhat)), xhat = c * inv, c = x - mean:
    # the last term is c * (inv * inv * mean(g * c))
    if graph_mode(xp):   # Note [Normalisation statistics in graph mode]
        mean, _, inv = _moments(xp, x, axis, eps)
    c = xp.subtract(x, mean, out=memory.empty_like(xp, x, mean.dtype))
    t = xp.multiply(g, c, out=memory.empty_like(xp, g))
    k = inv * inv * t.mean(axis=axis, keepdims=True)
    r = xp.subtract(g, g.mean(axis=axis, keepdims=True), out=memory.empty_like(xp, g))
    r -= xp.multiply(c, k, out=t)
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


def _row_moments(xp, x2, d, eps, centered=None):
    """Each row's mean, ``x2 - mean`` (into ``centered`` when given) and inverse deviation, of
    the (rows, D) matrix ``x2``; the statistics as (rows, 1) columns, accumulated in float32 for
    float16 rows, the row sums by einsum (no temporaries)."""
    acc = xp.result_type(x2.dtype, xp.float32)
    mean = xp.einsum("ij->i", x2, dtype=acc)[:, None] / d
    c = xp.subtract(x2, mean, out=centered)
    return mean, c, 1 / xp.sqrt(xp.einsum("ij,ij->i", c, c, dtype=acc)[:, None] / d + eps)


def _layer_norm(xp, x, weight, bias, *, axis, eps, keep=None):
    """Layer norm as row operations on (rows, D), then scale and shift by ``weight`` and
    ``bias`` (or None), in one buffer. Keeps each row's mean and inverse deviation (Note [Values
    kept from the forward]) and saves ``x``, as PyTorch: the backward recomputes ``x - mean``."""
    x2, d = _rows(x, axis)
    dtype = x.dtype if x.dtype.kind == "f" else xp.result_type(x.dtype, xp.float32)
    out = memory.empty(xp, x.shape, dtype)
    mean, h2, inv = _row_moments(xp, x2, d, eps, out.reshape(x2.shape))
    h2 *= inv
    if keep is not None:
        keep["mean"], keep["inv"] = mean, inv
    if weight is not None:
        out *= weight
    if bias is not None:
        out += bias
    return out


def _centered_rows(xp, x, axis, eps, mean, inv):
    """``x`` as (rows, D) minus each row's mean, the rows' inverse deviation and D, for layer
    norm's gradients (Note [Normalisation statistics in graph mode])."""
    x2, d = _rows(x, axis)
    if graph_mode(xp):
        mean, _, inv = _row_moments(xp, x2, d, eps)
    c = xp.subtract(x2, mean, out=memory.empty(xp, x2.shape, xp.result_type(x2, mean)))
    return c, inv, d


def _layer_norm_grad_x(g, x, weight, mean, inv, axis, eps, xp):
    # dx = inv * (gw - mean(gw) - xhat * mean(gw * xhat)) over each row, gw = g * weight,
    # xhat = c * inv, c = x - mean: the last term is c * (inv * inv * mean(gw * c))
    c, inv, d = _centered_rows(xp, x, axis, eps, mean, inv)
    if weight is not None:
        g = xp.multiply(g, weight, out=memory.empty_like(xp, g))
    g2 = _rows(g, axis)[0]
    a = xp.einsum("ij->i", g2)[:, None] / d
    k = xp.einsum("ij,ij->i", g2, c)[:, None] * (inv * inv / d)
    r = xp.multiply(c, k, out=memory.empty(xp, c.shape, c.dtype))
    xp.subtract(g2, r, out=r)
    r -= a
    r *= inv
    return r.reshape(x.shape)


def _layer_norm_grad_weight(g, x, mean, inv, axis, eps, weight_shape, xp):
    c, inv, _ = _centered_rows(xp, x, axis, eps, mean, inv)
    c *= inv
    return xp.einsum("ij,ij->j", _rows(g, axis)[0], c).reshape(weight_shape)


defop("layer_norm", _layer_norm, kind="other", inplace=False, method=False,
      grad=(_layer_norm_grad_x, _layer_norm_grad_weight, lambda g: g), keeps=("mean", "inv"))


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


defop("renorm", _renorm, kind="other", grad=_renorm_grad, layout="C")


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
    ``weight`` (PyTorch's order). An integer tensor first and a float one second is Paddle's
    functional order ``(x, weight)``, refused here: it is
    ``mutograd.compat.paddle.nn.functional.embedding_renorm_``."""
    if _is_int_tensor(weight) and not _is_int_tensor(index):
        raise paddle_order("embedding_renorm_(x, weight, ...)", "embedding_renorm_(weight, "
                           "index, max_norm, norm_type=2.0)", "nn.functional.embedding_renorm_("
                           "x, weight, max_norm, norm_type=2.0)")
    return call_inplace(OPS["embedding_renorm"], [weight, index],
                        {"max_norm": max_norm, "norm_type": norm_type})


def _is_int_tensor(t):
    """An integer tensor or array (an index), by its dtype."""
    dt = getattr(getattr(t, "_data", t), "dtype", None)
    return dt is not None and dt.kind in "iu"


FUNCTIONS = {"embedding_renorm_": embedding_renorm_}
