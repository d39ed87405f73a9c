"""Element-wise functions of two tensors beyond elementwise.py's: one-sided clamps, copysign,
hypot, ldexp, float_power, heaviside, nextafter, and the integer ones (gcd, lcm, bit shifts).
One declaration each, as in elementwise.py.
"""
import math

from .elementwise import _into, sign
from .gradients import power_grad_exponent, zero_gradient
from .registry import defop


def _clamp_min(xp, x, min, out=None):
    return xp.maximum(x, min, out=out)


def _clamp_max(xp, x, max, out=None):
    return xp.minimum(x, max, out=out)


# the bound is an input (a number or a tensor, which then gets its share of the gradient)
defop("clamp_min", _clamp_min, grad=(lambda g, x, min: g * (x >= min),
                                     lambda g, x, min: g * (x < min)))
defop("clamp_max", _clamp_max, grad=(lambda g, x, max: g * (x <= max),
                                     lambda g, x, max: g * (x > max)))

defop("copysign", lambda xp, x, y, out=None: xp.copysign(x, y, out=out), result="float",
      grad=(lambda g, x, y, xp: g * xp.where(x == 0, 0, sign(xp, x) * xp.where(
          xp.signbit(y), -1, 1)), zero_gradient))
defop("hypot", lambda xp, x, y, out=None: xp.hypot(x, y, out=out), result="float",
      grad=(lambda g, x, out: g * x / out, lambda g, y, out: g * y / out))
defop("ldexp", lambda xp, x, y, out=None: xp.multiply(x, xp.exp2(y), out=out), result="float",
      grad=(lambda g, y, xp: g * xp.exp2(y), lambda g, out: g * out * math.log(2)),
      copy_out=True)


def _float_power(xp, x, y, out=None):
    r = xp.power(xp.asarray(x, dtype="complex128" if xp.iscomplexobj(x) else "float64"), y)
    return r if out is None else _into(out, r, x)


defop("float_power", _float_power, result="float",
      grad=(lambda g, x, y: g * y * x ** (y - 1), power_grad_exponent))


defop("heaviside", lambda xp, x, y, out=None: xp.heaviside(x, y, out=out),
      grad=(zero_gradient, lambda g, x: g * (x == 0)))
# nextafter(x, y) differs from x by one unit in the last place: its derivative in x is 1
defop("nextafter", lambda xp, x, y, out=None: xp.nextafter(x, y, out=out),
      grad=(lambda g: g, zero_gradient))

# ---- integers: no gradient (integer tensors cannot require grad) -------------------------------
defop("gcd", lambda xp, x, y, out=None: xp.gcd(x, y, out=out))
defop("lcm", lambda xp, x, y, out=None: xp.lcm(x, y, out=out))
defop("bitwise_left_shift", lambda xp, x, y, out=None: xp.left_shift(x, y, out=out))
defop("bitwise_right_shift", lambda xp, x, y, out=None: xp.right_shift(x, y, out=out))
