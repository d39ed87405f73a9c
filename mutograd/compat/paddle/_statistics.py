"""Paddle's ``mean``, ``nanmedian``, ``nanquantile`` and ``histogramdd`` (also Tensor methods),
with Paddle's signatures; the last three over the torch dialect's implementations (which pick
the answering elements on the host and take them with differentiable ops).

    >>> import mutograd.compat.paddle as paddle
    >>> x = paddle.to_tensor([[1.0, float("nan"), 3.0, 2.0], [4.0, 5.0, float("nan"), 6.0]])
    >>> paddle.nanmedian(x, axis=1).tolist()
    [2.0, 5.0]
    >>> paddle.nanmedian(x).item()      # six values: the two middle ones averaged ('avg')
    3.5
"""
import inspect as _inspect

import mutograd as _mg

from ..torch import _statistics

# the torch dialect's functions without its tensor-type wrapper (this namespace adds its own)
_lower_nanmedian, _nanquantile, _histogramdd = (
    _inspect.unwrap(getattr(_statistics, n)) for n in ("nanmedian", "nanquantile", "histogramdd"))

__all__ = ["histogramdd", "mean", "nanmedian", "nanquantile"]


def mean(x, axis=None, keepdim=False, name=None, *, dtype=None, out=None):
    """The mean over ``axis``; of an integer or bool tensor, in its own dtype (the mean truncated
    toward zero, as Paddle gives it, where PyTorch refuses)."""
    own = x._data.dtype
    if dtype is None and own.kind in "biu":
        r = _mg.mean(x.astype("float64"), axis, keepdim).astype(own)
    else:
        r = _mg.mean(x, axis, keepdim, dtype=dtype)
    if out is not None:
        out.copy_(r)
        return out
    return r


def _over(x, axis, keepdim, reduce):
    """``reduce(x, one_axis_or_None, keepdim)`` over Paddle's ``axis``: None, an int, or a list
    of axes (moved last and joined into one; ``keepdim`` then keeps each as size 1)."""
    if isinstance(axis, (list, tuple)):
        axes = sorted({a % x.ndim for a in axis})
        if len(axes) == x.ndim:
            axis = None
        elif len(axes) == 1:
            axis = axes[0]
        else:
            rest = [a for a in range(x.ndim) if a not in axes]
            joined = x.transpose(rest + axes).reshape([x.shape[a] for a in rest] + [-1])
            out = reduce(joined, -1, False)
            lead = out.ndim - len(rest)      # a leading axis of several quantiles
            for a in axes if keepdim else ():
                out = out.unsqueeze(lead + a)
            return out
    return reduce(x, axis, keepdim)


def nanmedian(x, axis=None, keepdim=False, mode="avg", name=None):
    """The median of the values that are not NaN (NaN where all are): ``mode='avg'`` averages
    the two middle values of an even count; ``'min'`` takes the lower one, and along one
    ``axis`` gives its index too (``(values, indices)``; -1 where all are NaN)."""
    if mode not in ("avg", "min"):
        raise ValueError(f"paddle.nanmedian: mode must be 'avg' or 'min', got {mode!r}")

    def lower(t, axis, keepdim):
        if axis is None:
            low = _lower_nanmedian(t)
            return low.reshape([1] * t.ndim) if keepdim else low
        return _lower_nanmedian(t, axis, keepdim).values

    def median(t, axis, keepdim):
        # the upper middle value is minus the lower one of -t
        return (lower(t, axis, keepdim) - lower(-t, axis, keepdim)) / 2

    if mode == "min" and isinstance(axis, int):
        values, indices = _lower_nanmedian(x, axis, keepdim)
        return values, _mg.where(values.isnan(), -1, indices)    # -1: no value there
    return _over(x, axis, keepdim, lower if mode == "min" else median)


def nanquantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    """The ``q`` quantile(s) of the values that are not NaN, over ``axis`` (all by default; a
    list of ``q`` adds a leading axis)."""
    return _over(x, axis, keepdim, lambda t, axis, keepdim: _nanquantile(
        t, q, axis, keepdim, interpolation=interpolation))


def histogramdd(x, bins=10, ranges=None, density=False, weights=None, name=None):
    """``(hist, edges)``: the ``D``-dimensional histogram of the points in the rows of ``x``
    (``[N, D]``), ``edges`` a list of each dimension's bin edges."""
    hist, edges = _histogramdd(x, bins, range=ranges, weight=weights, density=density)
    return hist, list(edges)


METHODS = {"mean": mean, "nanmedian": nanmedian, "nanquantile": nanquantile,
           "histogramdd": histogramdd}
