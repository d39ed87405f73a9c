"""``mutograd.nn.init``: fill tensors in place under ``no_grad`` (the same object, no new storage).

Every function returns its argument, bumped by one version, so it works on a Parameter that
requires grad (design.md rule 4 allows writes to leaves under ``no_grad``).

    >>> import mutograd as mg
    >>> from mutograd import nn
    >>> w = nn.Parameter(mg.empty([64, 32]))
    >>> nn.init.kaiming_uniform_(w, nonlinearity="relu") is w
    True
"""
import math

from .. import random
from ..autograd.grad_mode import no_grad
from ..ops import OPS, call_inplace
from ..ops.fills import normal_ as _normal_
from ..ops.fills import uniform_ as _uniform_


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for an activation (as in PyTorch's table)."""
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        if isinstance(slope, bool) or not isinstance(slope, (int, float)):
            raise ValueError(f"negative_slope {slope} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _fans(t):
    if t.ndim < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    field = 1
    for d in t.shape[2:]:
        field *= d
    return t.shape[1] * field, t.shape[0] * field


def _fan(t, mode):
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _fans(t)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(t, a=0.0, b=1.0, generator=None):
    """Fill with samples from U(a, b)."""
    with no_grad():
        return _uniform_(t, a, b, generator=generator)


def normal_(t, mean=0.0, std=1.0, generator=None):
    """Fill with samples from N(mean, std^2)."""
    with no_grad():
        return _normal_(t, mean, std, generator)


def trunc_normal_(t, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill with N(mean, std^2) samples truncated to ``[a, b]`` (bounds in values, not in
    standard deviations), by the inverse CDF of uniform samples."""
    if not a < b:
        raise ValueError(f"trunc_normal_: expected a < b, got a={a}, b={b}")
    from ..backends.special import module
    xp = t._place.xp
    sp = module(xp)
    lo, hi = (float(sp.ndtr((v - mean) / std)) for v in (a, b))
    u = random.generator(t._place, generator).uniform(lo, hi, tuple(t.shape))
    x = mean + std * math.sqrt(2.0) * sp.erfinv(2 * xp.asarray(u) - 1)
    with no_grad():
        t[...] = xp.clip(x, a, b).astype(t.dtype.np)
    return t


def constant_(t, val):
    """Fill with ``val``."""
    with no_grad():
        return call_inplace(OPS["fill"], [t, val], {})


def zeros_(t):
    return constant_(t, 0.0)


def ones_(t):
    return constant_(t, 1.0)


def xavier_uniform_(t, gain=1.0, generator=None):
    """U(-a, a) with ``a = gain * sqrt(6 / (fan_in + fan_out))`` (Glorot)."""
    fan_in, fan_out = _fans(t)
    a = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(t, -a, a, generator)


def xavier_normal_(t, gain=1.0, generator=None):
    """N(0, std^2) with ``std = gain * sqrt(2 / (fan_in + fan_out))`` (Glorot)."""
    fan_in, fan_out = _fans(t)
    return normal_(t, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)), generator)


def kaiming_uniform_(t, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """U(-b, b) with ``b = gain * sqrt(3 / fan)`` (He)."""
    if t.numel() == 0:      # PyTorch: initialising a zero-element tensor is a no-op
        return t
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(t, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(t, -bound, bound, generator)


def kaiming_normal_(t, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """N(0, std^2) with ``std = gain / sqrt(fan)`` (He)."""
    if t.numel() == 0:      # PyTorch: initialising a zero-element tensor is a no-op
        return t
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(t, mode))
    return normal_(t, 0.0, std, generator)


def orthogonal_(t, gain=1.0, generator=None):
    """A (semi-)orthogonal matrix over the first axis and the flattened rest, times ``gain``."""
    if t.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    rows = t.shape[0]
    cols = t.numel() // rows
    xp = t._place.xp
    flat = xp.asarray(random.generator(t._place, generator).standard_normal((rows, cols)))
    if rows < cols:
        flat = flat.T
    q, r = xp.linalg.qr(flat)
    q *= xp.sign(xp.diagonal(r))     # a unique, uniformly distributed Q
    if rows < cols:
        q = q.T
    with no_grad():
        t[...] = (gain * q).reshape(tuple(t.shape))
    return t

