"""Dropouts and the randomized leaky ReLU: the functions that draw a random mask.

One implementation for all of them: the mask is drawn on the input's place by that place's
generator (:func:`mutograd.random.generator`), so a seed gives the same mask wherever the
tensor lives and no host array meets device data. With ``inplace=True`` a dropout is ``mul_``
by the scaled mask (``alpha_dropout``: ``mul_`` then ``add_``), so the guarantees of every
in-place op hold: ``y is x``, a version bump, the leaf error before any write, gradients
through the masks.

    >>> import mutograd as mg
    >>> import mutograd.nn.functional as F
    >>> x = mg.ones([2, 3, 1, 1])
    >>> F.dropout2d(x * 1.0, 0.5).shape
    [2, 3, 1, 1]
"""
import math
import warnings

from ... import random
from ...ops import OPS, call, call_inplace
from ...ops.activations import _SELU_ALPHA, _SELU_SCALE
from ...tensor import _wrap
from .activation import run_activation


# ---- rrelu: a random negative slope per element while training ------------------------------
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Leaky ReLU with slope ``U(lower, upper)`` per element (training) or their mean."""
    if not 0 <= lower <= upper:
        raise ValueError(f"rrelu: expected 0 <= lower <= upper, got lower={lower}, "
                         f"upper={upper}")
    if not training:
        slope = (lower + upper) / 2
        return run_activation("leaky_relu", input, inplace, negative_slope=slope)
    # the slopes are a counted buffer: the backward node keeps them while training
    noise = _wrap(random.generator(input._place).uniform(lower, upper, tuple(input.shape))
                  .astype(input._data.dtype), input)
    op = OPS["rrelu_with_noise"]      # declared in ops/activations.py
    return call_inplace(op, [input, noise], {}) if inplace else call(op, [input, noise], {})


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """In-place :func:`rrelu`; returns ``input``."""
    return rrelu(input, lower, upper, training, inplace=True)


# ---- dropouts -------------------------------------------------------------------------------
def _check_p(p, what=None):
    if not 0 <= p <= 1:
        raise ValueError(f"{what + ': ' if what else ''}dropout probability has to be between "
                         f"0 and 1, but got {p}")


def _keep(x, p, shape):
    """Which elements of a mask of ``shape`` are kept: drawn on ``x``'s place, by that place's
    generator (so a seed gives the same mask on the CPU, and no host array meets device data)."""
    return random.generator(x._place).random(shape) >= p


def _keep_mask(x, p, shape):
    """A float mask of ``shape`` (broadcasting against ``x``) on ``x``'s place: 1/(1-p) kept,
    0 dropped."""
    scale = _keep(x, p, shape).astype(x._data.dtype)
    if p < 1:
        scale /= 1 - p
    return _wrap(scale, x)


def _channel_shape(x, batched_ndim, what):
    nd = x.ndim
    if nd not in (batched_ndim, batched_ndim - 1):
        raise ValueError(f"{what}: expected a {batched_ndim - 1}-D or {batched_ndim}-D input, "
                         f"got {nd}-D")
    lead = 2 if nd == batched_ndim else 1
    return tuple(x.shape[:lead]) + (1,) * (nd - lead)


def _mul(x, mask, inplace):
    return (call_inplace if inplace else call)(OPS["mul"], [x, mask], {})


def dropout(x, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by ``1/(1-p)``."""
    _check_p(p)
    if not training or p == 0:
        return x
    return _mul(x, _keep_mask(x, p, tuple(x.shape)), inplace)


def _feature_dropout(batched_ndim, what):
    def f(input, p=0.5, training=True, inplace=False):
        _check_p(p, what)
        if not training or p == 0:
            return input
        if what == "dropout2d" and input.ndim == 2:
            # PyTorch warns and drops element-wise (no channel dimension to drop)
            warnings.warn("dropout2d: Received a 2-D input to dropout2d, which is deprecated and "
                          "will result in an error in a future release. To retain the behavior "
                          "and silence this warning, please use dropout instead.", UserWarning,
                          stacklevel=2)
            shape = tuple(input.shape)
        else:
            shape = _channel_shape(input, batched_ndim, what)
        return _mul(input, _keep_mask(input, p, shape), inplace)
    f.__name__ = what
    f.__doc__ = f"Zero whole channels with probability ``p`` ({what}); the rest scaled."
    return f


dropout1d = _feature_dropout(3, "dropout1d")
dropout2d = _feature_dropout(4, "dropout2d")
dropout3d = _feature_dropout(5, "dropout3d")

_ALPHA_P = -_SELU_SCALE * _SELU_ALPHA     # SELU's negative saturation value


def _alpha(input, p, training, inplace, shape, what):
    _check_p(p, what)
    if not training or p == 0:
        return input
    keep = _keep(input, p, shape)
    a = 1.0 / math.sqrt((1 - p) * (1 + p * _ALPHA_P ** 2)) if p < 1 else 0.0
    b = -a * _ALPHA_P * p if p < 1 else _ALPHA_P * 0
    dt = input._data.dtype
    # out = a * (x * keep + alpha' * (1 - keep)) + b = x * (a keep) + (a alpha' (1 - keep) + b)
    mul = _wrap((keep * a).astype(dt), input)
    add = _wrap((a * _ALPHA_P * (~keep) + b).astype(dt), input)
    out = _mul(input, mul, inplace)
    run = call_inplace if inplace else call
    return run(OPS["add"], [out, add], OPS["add"].defaults)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps SELU's self-normalizing mean and variance."""
    return _alpha(input, p, training, inplace, tuple(input.shape), "alpha_dropout")


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """:func:`alpha_dropout` of whole channels."""
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    return _alpha(input, p, training, inplace, shape, "feature_alpha_dropout")


# PyTorch's top-level in-place spellings: torch.dropout_(input, p, train)
def dropout_(input, p=0.5, train=True):
    """In-place :func:`dropout`; returns ``input``."""
    return dropout(input, p, train, inplace=True)


def feature_dropout_(input, p=0.5, train=True):
    """In-place channel dropout of a batched input; returns ``input``."""
    return _feature_dropout(input.ndim, "feature_dropout_")(input, p, train, inplace=True)


def alpha_dropout_(input, p=0.5, train=False):
    """In-place :func:`alpha_dropout`; returns ``input``."""
    return alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout_(input, p=0.5, train=False):
    """In-place :func:`feature_alpha_dropout`; returns ``input``."""
    return feature_alpha_dropout(input, p, train, inplace=True)


# top-level functions of the main namespace (``mg.rrelu``, ``mg.dropout_``, ...)
TOPLEVEL = {f.__name__: f for f in (rrelu, rrelu_, dropout_, feature_dropout_, alpha_dropout_,
                                    feature_alpha_dropout_)}
