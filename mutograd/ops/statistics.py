"""Statistics, composed from declared ops (their gradients come from those): spread (var, std,
var_mean, std_mean), order statistics (kthvalue, median, quantile), NaN-aware reductions
(nansum, nanmean) and the relations between variables (cov, corrcoef).

    >>> import mutograd as mg
    >>> mg.median(mg.tensor([3.0, 1.0, 2.0, 4.0])).item()     # the lower of the middle two
    2.0
    >>> mg.quantile(mg.tensor([0.0, 10.0]), 0.25).item()
    2.5
    >>> mg.var(mg.tensor([1.0, 2.0, 3.0])).item()     # unbiased
    1.0
"""
import numpy as np

from .. import dtypes
from ..tensor import Tensor
from .axes import keepdim_arg
from .complex_views import conj
from .reduction import ValuesIndices
from .registry import OPS, call
from .sorting import sort


# ---- spread: var and std (ops declared in reduction.py) -------------------------------------
def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased in (None, True) else 0


def _spread(name, x, axis, unbiased, keepdim, dim, correction, keepdims):
    if isinstance(axis, bool):   # PyTorch's ``var(x, unbiased)`` overload: no axis
        axis, unbiased = None, axis
    return call(OPS[name], [x], {"axis": axis if dim is None else dim,
                                 "keepdim": keepdim_arg(keepdim, keepdims),
                                 "correction": _correction(unbiased, correction)})


def var(x, axis=None, unbiased=None, keepdim=False, dim=None, correction=None, keepdims=None,
        name=None):
    """Variance (unbiased by default, as both frameworks); ``var(x, unbiased)`` (PyTorch: a bool
    in the axis position) reduces over every axis.

    Example::

        >>> import mutograd as mg
        >>> x = mg.tensor([1.0, 2.0, 3.0])
        >>> mg.var(x).item(), mg.var(x, False).item() == mg.var(x, correction=0).item()
        (1.0, True)
    """
    return _spread("var", x, axis, unbiased, keepdim, dim, correction, keepdims)


def std(x, axis=None, unbiased=None, keepdim=False, dim=None, correction=None, keepdims=None,
        name=None):
    """Standard deviation (unbiased by default; ``std(x, unbiased)`` as for :func:`var`)."""
    return _spread("std", x, axis, unbiased, keepdim, dim, correction, keepdims)


def _kth_indices(x, k, axis):
    """The (keepdim) indices of the k-th smallest (1-based) along ``axis``."""
    xp = x._place.xp
    order = xp.argsort(x._data, axis=axis, kind="stable")
    return xp.take(order, [k - 1], axis=axis)


def kthvalue(x, k, dim=-1, keepdim=False, axis=None):
    """The ``k``-th smallest values along ``dim`` and their indices."""
    axis = dim if axis is None else axis
    n = x.shape[axis] if x.ndim else 1
    if not 1 <= k <= n:
        raise IndexError(f"kthvalue(): k ({k}) out of range for a dimension of size {n}")
    if x.ndim == 0:
        return ValuesIndices(x * 1, _idx(x, np.zeros((), np.int64)))
    idx = _kth_indices(x, k, axis)
    idx = _idx(x, idx if keepdim else idx.squeeze(axis))
    return ValuesIndices(call(OPS["values_at"], [x, idx], {"axis": axis, "keepdim": keepdim}),
                          idx)


def _idx(x, arr):
    from ..tensor import _wrap
    return _wrap(arr.astype(np.int64), x)


def median(x, dim=None, keepdim=False, axis=None):
    """The lower median (of an even count, the smaller middle value), as PyTorch: over
    everything (a value), or along ``dim`` (values and indices)."""
    axis = dim if axis is None else axis
    if axis is None:
        flat = x.reshape(-1)
        return kthvalue(flat, (flat.shape[0] + 1) // 2, 0).values
    return kthvalue(x, (x.shape[axis] + 1) // 2, axis, keepdim)


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def quantile(x, q, dim=None, keepdim=False, interpolation="linear", axis=None):
    """The ``q``-quantiles (a number, or a 1-D tensor of them in [0, 1], which then becomes the
    first dimension of the result) over everything or along ``dim``."""
    axis = dim if axis is None else axis
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"quantile() interpolation must be one of {', '.join(_INTERPOLATIONS)}"
                         f", got '{interpolation}'")
    qs = np.atleast_1d(q._data if isinstance(q, Tensor) else np.asarray(q)).astype(np.float64)
    if qs.ndim > 1 or (qs.size and (qs.min() < 0 or qs.max() > 1)):
        raise ValueError("quantile() q must be a scalar or 1-D tensor with values in [0, 1]")
    scalar = not isinstance(q, Tensor) and np.ndim(q) == 0 or (isinstance(q, Tensor)
                                                                and q.ndim == 0)
    ndim = x.ndim
    flat = axis is None
    if flat:
        x, axis = x.reshape(-1), 0
    else:
        axis = axis % x.ndim
    values = sort(x, axis)[0]
    pos = qs * (x.shape[axis] - 1)
    lo, hi = np.floor(pos).astype(np.int64), np.ceil(pos).astype(np.int64)
    frac = pos - lo
    if interpolation == "lower":
        hi, frac = lo, frac * 0
    elif interpolation == "higher":
        lo, frac = hi, frac * 0
    elif interpolation == "nearest":
        lo = hi = np.round(pos).astype(np.int64)
        frac = frac * 0
    elif interpolation == "midpoint":
        frac = np.where(hi > lo, 0.5, 0.0)
    a = _pick(values, lo, axis)
    b = _pick(values, hi, axis)
    out = (a + (b - a) * _frac(frac, a.ndim, axis, x)).movedim(axis, 0)   # q first
    if keepdim:   # the reduced dimensions stay, of size 1, after q's
        out = out.reshape([len(qs)] + [1] * ndim) if flat else out.unsqueeze(axis + 1)
    return out[0] if scalar else out


def _pick(values, positions, axis):
    from ..tensor import _wrap
    return call(OPS["index_select"], [values, _wrap(positions)], {"axis": axis})


def _frac(frac, ndim, axis, like):
    from ..tensor import _wrap
    shape = [1] * ndim
    shape[axis] = -1
    return _wrap(frac.reshape(shape).astype(like.dtype.np), like)


def nansum(x, dim=None, keepdim=False, dtype=None, axis=None):
    """The sum with NaNs counted as zero."""
    clean = call(OPS["where"], [x.isnan(), 0.0, x], {})
    return clean.sum(axis=dim if axis is None else axis, keepdim=keepdim, dtype=dtype)


def nanmean(x, dim=None, keepdim=False, dtype=None, axis=None):
    """The mean of the values that are not NaN."""
    axis = dim if axis is None else axis
    count = (~x.isnan()).sum(axis=axis, keepdim=keepdim)
    return nansum(x, axis, keepdim, dtype) / count


def var_mean(x, dim=None, unbiased=None, keepdim=False, correction=None, axis=None):
    """``(var(x), mean(x))`` over ``dim``."""
    axis = dim if axis is None else axis
    return (var(x, axis, unbiased, keepdim, correction=correction),
            x.mean(axis=axis, keepdim=keepdim))


def std_mean(x, dim=None, unbiased=None, keepdim=False, correction=None, axis=None):
    """``(std(x), mean(x))`` over ``dim``."""
    axis = dim if axis is None else axis
    return (std(x, axis, unbiased, keepdim, correction=correction),
            x.mean(axis=axis, keepdim=keepdim))


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance of the variables in the rows of ``input`` (observations in columns), each
    observation counted ``fweights`` times (integers) and weighted by ``aweights``."""
    x = input if input.ndim == 2 else input.reshape(1, -1)
    if not (x.is_floating_point() or x.is_complex()):   # integer data: a float covariance
        x = x.astype(dtypes.default_float)
    if fweights is None and aweights is None:
        xm = x - x.mean(1, keepdim=True)
        c = (xm @ conj(xm).t()) / max(x.shape[1] - correction, 0)
    else:
        fweights, aweights = (None if w is None else w.astype(x.dtype)
                              for w in (fweights, aweights))
        w = fweights if aweights is None else aweights if fweights is None else fweights * aweights
        total = w.sum()
        xm = x - (x * w).sum(1, keepdim=True) / total
        # the normalisation that makes the estimate unbiased under both kinds of weight
        fact = total if correction == 0 else total - correction if aweights is None else (
            total - correction * (w * aweights).sum() / total)
        c = ((xm * w) @ conj(xm).t()) / fact.clamp(min=0)
    return c if input.ndim == 2 else c.reshape(())


def corrcoef(input):
    """Pearson correlation coefficients of the rows of ``input``."""
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = c.diagonal().sqrt()
    return (c / d.unsqueeze(1) / d.unsqueeze(0)).clamp(-1, 1)


FUNCTIONS = {f.__name__: f for f in (var, std, kthvalue, median, quantile, nansum, nanmean,
                                     var_mean, std_mean, cov, corrcoef)}
