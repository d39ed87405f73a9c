"""Softmax: the public ``softmax``/``log_softmax`` (the ops they call are declared in
reduction.py, with Note [Softmax shift]) and ``attention_softmax``, the weights of attention
from raw scores, declared here.

    >>> import mutograd as mg
    >>> mg.softmax(mg.tensor([0.0, 0.0]), -1).tolist()
    [0.5, 0.5]
    >>> round(mg.log_softmax(mg.tensor([1.0, 1.0]), dim=0)[0].item(), 4)
    -0.6931
"""
import numpy as np

from .. import memory
from .reduction import softmax_into
from .registry import OPS, call, defop


def softmax(x, axis=-1, dtype=None, dim=None):
    """``exp(x) / sum(exp(x))`` along ``axis`` (default the last)."""
    if dtype is not None:
        x = call(OPS["astype"], [x], {"dtype": dtype})
    return call(OPS["softmax"], [x], {"axis": axis if dim is None else dim})


def log_softmax(x, axis=-1, dtype=None, dim=None):
    """``log(softmax(x))`` computed stably."""
    if dtype is not None:
        x = call(OPS["astype"], [x], {"dtype": dtype})
    return call(OPS["log_softmax"], [x], {"axis": axis if dim is None else dim})


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

FUNCTIONS = {"softmax": softmax, "log_softmax": log_softmax}
