"""More element-wise ops: inverse trig and hyperbolic functions, activations, number theory,
bit shifts and one-sided clamps. One declaration each, as in elementwise.py.

Where the math allows, gradients are written in terms of the output (``asin``, ``atan``,
``sinh``, ``selu``, ``celu``, ``hardtanh``, ...), so the in-place form keeps no copy.
"""
import math

from .elementwise import _into, nonpositive, sign
from .registry import defop


def _zero(g, xp):
    return xp.zeros_like(g)


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


defop("sgn", _sgn, grad=_zero)


defop("conj_physical", lambda xp, x, out=None: xp.conjugate(x, out=out),
      grad=lambda g, xp: xp.conjugate(g))


def _nan_to_num(xp, x, nan=0.0, posinf=None, neginf=None, out=None):
    return _into(out, xp.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf), x)


defop("nan_to_num", _nan_to_num, grad=lambda g, x, xp: g * xp.isfinite(x))


# ---- activations -------------------------------------------------------------------------------
def _hardtanh(xp, x, min=-1.0, max=1.0, out=None):
    return xp.clip(x, min, max, out=out)


defop("hardtanh", _hardtanh, grad=lambda g, out, min, max: g * ((out > min) & (out < max)),
      copy_out=True, keywords={"min_val": "min", "max_val": "max", "inplace": None})


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
      grad=lambda g, out, slope: g * slope * ((out > 0) & (out < 1)), copy_out=True)


def _hardswish(xp, x, out=None):
    return _into(out, x * xp.clip(x + 3, 0, 6) / 6, x)


defop("hardswish", _hardswish, result="float",
      grad=lambda g, x, xp: g * xp.where(x < -3, 0.0, xp.where(x > 3, 1.0, (2 * x + 3) / 6)))


# PyTorch's threshold is x <= threshold ? value : x, so a NaN passes through, with its gradient
def _threshold(xp, x, *, threshold, value, out=None):
    return _into(out, xp.where(x <= threshold, value, x), x)


defop("threshold", _threshold, grad=lambda g, x, threshold: g * ~(x <= threshold))


def _thresholded_relu(xp, x, threshold=1.0, value=0.0, out=None):
    return _into(out, xp.where(x <= threshold, value, x), x)


defop("thresholded_relu", _thresholded_relu,
      grad=lambda g, x, threshold: g * ~(x <= threshold))


def _clamp_min(xp, x, min, out=None):
    return xp.maximum(x, min, out=out)


def _clamp_max(xp, x, max, out=None):
    return xp.minimum(x, max, out=out)


# the bound is an input (a number or a tensor, which then gets its share of the gradient)
defop("clamp_min", _clamp_min, grad=(lambda g, x, min: g * (x >= min),
                                     lambda g, x, min: g * (x < min)))
defop("clamp_max", _clamp_max, grad=(lambda g, x, max: g * (x <= max),
                                     lambda g, x, max: g * (x > max)))

# ---- binary ------------------------------------------------------------------------------------
defop("copysign", lambda xp, x, y, out=None: xp.copysign(x, y, out=out), result="float",
      grad=(lambda g, x, y, xp: g * xp.where(x == 0, 0, sign(xp, x) * xp.where(
          xp.signbit(y), -1, 1)), _zero))
defop("hypot", lambda xp, x, y, out=None: xp.hypot(x, y, out=out), result="float",
      grad=(lambda g, x, out: g * x / out, lambda g, y, out: g * y / out))
defop("ldexp", lambda xp, x, y, out=None: xp.multiply(x, xp.exp2(y), out=out), result="float",
      grad=(lambda g, y, xp: g * xp.exp2(y), lambda g, out: g * out * math.log(2)),
      copy_out=True)


def _float_power(xp, x, y, out=None):
    r = xp.power(xp.asarray(x, dtype="complex128" if xp.iscomplexobj(x) else "float64"), y)
    return r if out is None else _into(out, r, x)


def _float_power_grad_y(g, x, out, xp):
    safe = xp.where(x > 0, x, 1)
    return g * out * xp.log(safe) * (x > 0)


defop("float_power", _float_power, result="float",
      grad=(lambda g, x, y: g * y * x ** (y - 1), _float_power_grad_y))


defop("heaviside", lambda xp, x, y, out=None: xp.heaviside(x, y, out=out),
      grad=(_zero, lambda g, x: g * (x == 0)))
# nextafter(x, y) differs from x by one unit in the last place: its derivative in x is 1
defop("nextafter", lambda xp, x, y, out=None: xp.nextafter(x, y, out=out),
      grad=(lambda g: g, _zero))

# ---- integers: no gradient (integer tensors cannot require grad) -------------------------------
defop("gcd", lambda xp, x, y, out=None: xp.gcd(x, y, out=out))
defop("lcm", lambda xp, x, y, out=None: xp.lcm(x, y, out=out))
defop("bitwise_left_shift", lambda xp, x, y, out=None: xp.left_shift(x, y, out=out))
defop("bitwise_right_shift", lambda xp, x, y, out=None: xp.right_shift(x, y, out=out))

ALIASES = {"bitwise_invert": "bitwise_not", "arcsin": "asin", "arccos": "acos",
           "arctan": "atan", "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh"}
