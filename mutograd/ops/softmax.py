"""Softmax: the ``softmax`` and ``log_softmax`` ops along an axis (with Note [Softmax shift])
and ``attention_softmax``, the weights of attention from raw scores.

    >>> import mutograd as mg
    >>> mg.softmax(mg.tensor([0.0, 0.0]), -1).tolist()
    [0.5, 0.5]
    >>> round(mg.log_softmax(mg.tensor([1.0, 1.0]), dim=0)[0].item(), 4)
    -0.6931
"""
import math

import numpy as np

from .. import dtypes, memory
from .registry import defop


# Note [Softmax shift]
#     softmax subtracts a shift c before exp, so that no exp overflows; any c gives the same
#     result up to rounding. Each slice's max is the usual c, but a max over short rows
#     (attention's 64) is a slow NumPy reduction: 0.4 ms of a 1 ms softmax. When the finite
#     values of the whole tensor span at most 16 (and 70% of the dtype's exponent range: 6.8 in
#     float16), the tensor's max is a shift as good: every exp then lies in [e^-16, 1], a normal
#     number, and a row below the max loses at most 16 units in the last place of its exponents,
#     about 2e-6 relative in float32. Otherwise (a wide spread, an inf, a NaN) each slice's max
#     is used. log_softmax always uses each slice's max: it returns x - c - log(sum) itself,
#     whose absolute error a larger shift would raise.


def _shift(xp, x, axis, bounds=None):
    """The value to subtract before exp (Note [Softmax shift]); ``bounds``: known (min, max) of
    the finite values, else they are computed."""
    if x.size and x.dtype.kind == "f":
        lo, hi = (x.min(), x.max()) if bounds is None else bounds
        if hi - lo <= _span(x.dtype):
            return hi
    return _slice_max(xp, x, axis)


def _slice_max(xp, x, axis):
    """Each slice's max along ``axis`` (kept); an empty tensor's is -inf, not an error."""
    if x.size:   # (a NumPy array's own method: np.amax's wrapper costs ~1.4 us a call)
        return x.max(axis=axis, keepdims=True) if type(x) is np.ndarray else \
            xp.amax(x, axis=axis, keepdims=True)
    return xp.amax(x, axis=axis, keepdims=True, initial=-math.inf)


def _span(dtype):
    return min(16.0, -0.7 * math.log(np.finfo(dtype).tiny))


def _slice_sum(xp, x, axis):
    """``x.sum(axis, keepdims=True)``; over the last axis of float32/float64 by einsum, which
    is several times faster than NumPy's reduction over short rows."""
    if x.ndim and axis in (-1, x.ndim - 1) and x.dtype.char in "fd":
        return xp.einsum("...i->...", x)[..., None]
    return x.sum(axis=axis, keepdims=True)


def _softmax(xp, x, axis=-1, dtype=None, out=None):
    return softmax_into(xp, _cast(x, dtype), axis, out)


def _cast(x, dtype):
    """``x`` in ``dtype`` when one is given (both frameworks' ``dtype=``: cast, then softmax);
    the gradient comes back in the input's dtype (the node fits it to the input)."""
    return x if dtype is None else x.astype(dtypes.to_numpy(dtype), copy=False)


def softmax_into(xp, x, axis, out, bounds=None):
    """softmax along ``axis``, into ``out`` (may be ``x``) or a new buffer; ``bounds`` as for
    :func:`_shift`."""
    m = _shift(xp, x, axis, bounds)
    if out is None and x.dtype.kind == "f":
        out = memory.empty_like(xp, x)
    e = xp.subtract(x, m, out=out)
    xp.exp(e, out=e)
    e /= _slice_sum(xp, e, axis)
    return e


def _log_softmax(xp, x, axis=-1, dtype=None, out=None):
    x = _cast(x, dtype)
    m = _slice_max(xp, x, axis)
    s = xp.subtract(x, m, out=out)
    s -= xp.log(_slice_sum(xp, xp.exp(s), axis))
    return s


softmax = defop("softmax", _softmax, kind="scan", result="float",
                doc="``exp(x) / sum(exp(x))`` along ``axis`` (default the last), in ``dtype`` "
                    "when given.",
                grad=lambda g, out, axis, xp: out * (g - _slice_sum(xp, g * out, axis))).function
log_softmax = defop("log_softmax", _log_softmax, kind="scan", result="float", layout="C",
                    doc="``log(softmax(x))`` along ``axis``, computed stably, in ``dtype`` when "
                        "given.",
                    grad=lambda g, out, axis, xp: g - xp.exp(out) * _slice_sum(xp, g, axis)
                    ).function


def _attention_softmax(xp, scores, bias, *, scale):
    """``softmax(scores * scale + bias)`` over the last axis: attention weights from raw scores in
    one buffer; ``bias`` is an additive mask (0 or -inf from a boolean mask) or a scalar. The
    bounds of the scores, shifted by the mask's, let softmax skip the max over each row (Note
    [Softmax shift])."""
    w = xp.multiply(scores, scale, out=memory.empty_like(xp, scores, xp.result_type(scores,
                                                                                     scale)))
    bounds = (w.min(), w.max()) if w.size else None
    if getattr(bias, "ndim", 0):
        finite = bias[xp.isfinite(bias)]
        bounds = (bounds[0] + finite.min(), bounds[1] + bias.max()) if finite.size and \
            bounds else None
        if np.broadcast_shapes(w.shape, bias.shape) == w.shape:
            w += bias
        else:            # a mask with more leading dimensions than the scores
            w = w + bias
    elif bias:
        w += bias
        bounds = (bounds[0] + bias, bounds[1] + bias) if bounds else None
    return softmax_into(xp, w, -1, w, bounds)


def _softmax_grad(g, out, xp, into=None):
    """The gradient of softmax's input over the last axis: ``out * (g - sum(g * out))``."""
    s = xp.einsum("...i,...i->...", g, out)[..., None]
    r = xp.subtract(g, s, out=memory.empty_like(xp, g) if into is None else into)
    r *= out
    return r


def _attention_softmax_grad(g, out, scale, into, xp):
    r = _softmax_grad(g, out, xp, into)
    r *= scale
    return r


defop("attention_softmax", _attention_softmax, kind="other", inplace=False, method=False,
      grad=(_attention_softmax_grad, lambda g, out, xp: _softmax_grad(g, out, xp)))

FUNCTIONS = {}
