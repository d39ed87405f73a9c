"""Activations beyond elementwise.py's (relu, gelu, silu, ...): hardtanh, celu, selu, mish,
hardsigmoid, hardswish, threshold and thresholded_relu. One declaration each, as in
elementwise.py. The methods ``x.hardshrink()`` and ``x.prelu(w)`` run the ``nn.functional``
activations.

Where the math allows, gradients are written in terms of the output (``selu``, ``celu``,
``hardtanh``, ...), so the in-place form keeps no copy.
"""
from .elementwise import _into, nonpositive
from .gradients import masked
from .registry import defop


def _hardtanh(xp, x, min=-1.0, max=1.0, out=None):
    return xp.clip(x, min, max, out=out)


defop("hardtanh", _hardtanh,
      grad=lambda g, out, min, max, xp: masked(g, (out > min) & (out < max), xp),
      copy_out=True, keywords={"min_val": "min", "max_val": "max", "inplace": None}, kink=True)


def _celu(xp, x, alpha=1.0, out=None):
    return _into(out, xp.where(x > 0, x, alpha * xp.expm1(nonpositive(xp, x) / alpha)), x)


# out > 0 exactly where x > 0; below, out / alpha + 1 = exp(x / alpha)
defop("celu", _celu, grad=lambda g, out, alpha, xp: g * xp.where(out <= 0, out / alpha + 1, 1.0),
      result="float")

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _selu(xp, x, scale=_SELU_SCALE, alpha=_SELU_ALPHA, out=None):
    return _into(out, scale * xp.where(x > 0, x, alpha * xp.expm1(nonpositive(xp, x))), x)


defop("selu", _selu, result="float",
      grad=lambda g, out, scale, alpha, xp: g * xp.where(out <= 0, out + scale * alpha, scale))


def _mish(xp, x, out=None):
    return _into(out, x * xp.tanh(xp.logaddexp(0, x)), x)


def _mish_grad(g, x, xp):
    t = xp.tanh(xp.logaddexp(0, x))
    s = 1 / (1 + xp.exp(-x))
    return g * (t + x * (1 - t * t) * s)


defop("mish", _mish, grad=_mish_grad, result="float")


def _hardsigmoid(xp, x, slope=1 / 6, offset=0.5, out=None):
    return _into(out, xp.clip(x * slope + offset, 0, 1), x)


defop("hardsigmoid", _hardsigmoid, result="float",
      grad=lambda g, out, slope, xp: masked(g * slope, (out > 0) & (out < 1), xp), copy_out=True,
      kink=True)


def _hardswish(xp, x, out=None):
    return _into(out, x * xp.clip(x + 3, 0, 6) / 6, x)


defop("hardswish", _hardswish, result="float",
      grad=lambda g, x, xp: g * xp.where(x < -3, 0.0, xp.where(x > 3, 1.0, (2 * x + 3) / 6)))


# PyTorch's threshold is x <= threshold ? value : x, so a NaN passes through, with its gradient
def _threshold(xp, x, *, threshold, value, out=None):
    return _into(out, xp.where(x <= threshold, value, x), x)


defop("threshold", _threshold,
      grad=lambda g, x, threshold, xp: masked(g, ~(x <= threshold), xp), kink=True)


def _thresholded_relu(xp, x, threshold=1.0, value=0.0, out=None):
    return _into(out, xp.where(x <= threshold, value, x), x)


defop("thresholded_relu", _thresholded_relu,
      grad=lambda g, x, threshold, xp: masked(g, ~(x <= threshold), xp), kink=True)


# rrelu(training=True): the slope of negative inputs drawn per element (the noise input;
# mutograd/nn/functional/dropouts.py draws it on the input's place)
def _rrelu(xp, x, noise, out=None):
    return xp.multiply(x, xp.where(x >= 0, 1.0, noise).astype(x.dtype, copy=False), out=out)


# the slope is positive, so out >= 0 exactly where x >= 0: the output and the noise suffice
defop("rrelu_with_noise", _rrelu, method=False,
      grad=(lambda g, out, noise, xp: g * xp.where(out >= 0, 1.0, noise), None), kink=True)


TENSOR_METHODS = {
    "hardshrink": lambda self, lambd=0.5: __import__(
        "mutograd.nn.functional", fromlist=["hardshrink"]).hardshrink(self, lambd),
    "prelu": lambda self, weight: __import__(
        "mutograd.nn.functional", fromlist=["prelu"]).prelu(self, weight),
}
