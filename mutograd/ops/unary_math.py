"""Element-wise functions of one tensor beyond elementwise.py's: inverse trigonometric and
hyperbolic functions, angle conversions, ``frac``, ``sgn``, ``conj_physical`` and
``nan_to_num``, one declaration each, as in elementwise.py; and ``positive`` (``+x``) and
``frexp`` (mantissa and exponent, no gradient).

Where the math allows, gradients are written in terms of the output (``asin``, ``atan``,
``sinh``, ...), so the in-place form keeps no copy.

    >>> import mutograd as mg
    >>> mg.frexp(mg.tensor([8.0])).exponent.tolist()
    [4]
"""
import collections
import math

import numpy as np

from . import creation
from .elementwise import _into, sign
from .gradients import zero_gradient
from .registry import defop


def _ufunc(f):
    return lambda xp, x, out=None: getattr(xp, f)(x, out=out)


def _u(name, f, grad, **kw):
    defop(name, _ufunc(f), grad=grad, result="float", **kw)


# ---- inverse trigonometric and hyperbolic: gradients through the output ------------------------
# (copy_out: PyTorch's formulas use the input, so a chain such as b.asin_().asin_() runs there;
# here the output is copied only if it is written again: Note [Outputs copied on write])
_u("asin", "arcsin", lambda g, out, xp: g / xp.cos(out), copy_out=True)   # cos(asin x)
_u("acos", "arccos", lambda g, out, xp: -g / xp.sin(out), copy_out=True)  # sin(acos x)
_u("atan", "arctan", lambda g, out, xp: g * xp.cos(out) ** 2, copy_out=True)  # 1/(1 + x^2)
_u("asinh", "arcsinh", lambda g, out, xp: g / xp.cosh(out), copy_out=True)    # sqrt(x^2 + 1)
_u("acosh", "arccosh", lambda g, out, xp: g / xp.sinh(out), copy_out=True)    # sqrt(x^2 - 1)
_u("atanh", "arctanh", lambda g, out, xp: g * xp.cosh(out) ** 2, copy_out=True)  # 1/(1 - x^2)
_u("sinh", "sinh", lambda g, out, xp: g * xp.sqrt(1 + out * out), copy_out=True)  # cosh x
_u("cosh", "cosh", lambda g, x, xp: g * xp.sinh(x))                # sinh's sign needs x
defop("deg2rad", lambda xp, x, out=None: xp.multiply(x, math.pi / 180, out=out),
      grad=lambda g: g * (math.pi / 180), result="float")
defop("rad2deg", lambda xp, x, out=None: xp.multiply(x, 180 / math.pi, out=out),
      grad=lambda g: g * (180 / math.pi), result="float")
defop("frac", lambda xp, x, out=None: xp.subtract(x, xp.trunc(x), out=out), grad=lambda g: g)


def _sgn(xp, x, out=None):
    if x.dtype.kind != "c":
        return sign(xp, x, out=out)
    a = xp.abs(x)
    return _into(out, xp.where(a == 0, 0, x / xp.where(a == 0, 1, a)), x)


defop("sgn", _sgn, grad=zero_gradient)


defop("conj_physical", lambda xp, x, out=None: xp.conjugate(x, out=out),
      grad=lambda g, xp: xp.conjugate(g))


def _nan_to_num(xp, x, nan=0.0, posinf=None, neginf=None, out=None):
    return _into(out, xp.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf), x)


defop("nan_to_num", _nan_to_num, grad=lambda g, x, xp: g * xp.isfinite(x))



def positive(x):
    """``x`` itself (``+x``)."""
    return x


def frexp(input):
    """``(mantissa, exponent)`` with ``input = mantissa * 2^exponent`` (no gradient)."""
    m, e = np.frexp(input.detach().numpy())
    return collections.namedtuple("frexp", ["mantissa", "exponent"])(
        creation.tensor(m), creation.tensor(e.astype(np.int32)))


FUNCTIONS = {f.__name__: f for f in (positive, frexp)}
ALIASES = {"bitwise_invert": "bitwise_not", "arcsin": "asin", "arccos": "acos",
           "arctan": "atan", "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh"}
