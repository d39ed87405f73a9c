"""Element-wise functions of two tensors beyond elementwise.py's: one-sided clamps, copysign,
hypot, ldexp, float_power, heaviside, nextafter, and the integer ones (gcd, lcm, bit shifts),
one declaration each, as in elementwise.py; then those composed from declared ops (their
gradients come from those): logaddexp, logaddexp2, and fmax and fmin (NaN-ignoring).

    >>> import mutograd as mg
    >>> round(mg.logaddexp(mg.tensor(0.0), mg.tensor(0.0)).item(), 4)     # log(2)
    0.6931
    >>> mg.fmax(mg.tensor([1.0, float("nan")]), mg.tensor([float("nan"), 2.0])).tolist()
    [1.0, 2.0]
"""
import math

from .elementwise import _into, sign
from .gradients import masked, power_grad_exponent, zero_gradient
from .registry import OPS, defop


def _clamp_min(xp, x, min, out=None):
    return xp.maximum(x, min, out=out)


def _clamp_max(xp, x, max, out=None):
    return xp.minimum(x, max, out=out)


# the bound is an input (a number or a tensor, which then gets its share of the gradient)
defop("clamp_min", _clamp_min, grad=(lambda g, x, min, xp: masked(g, x >= min, xp),
                                     lambda g, x, min, xp: masked(g, x < min, xp)))
defop("clamp_max", _clamp_max, grad=(lambda g, x, max, xp: masked(g, x <= max, xp),
                                     lambda g, x, max, xp: masked(g, x > max, xp)))

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


# ---- composed from declared ops -----------------------------------------------------------------
def logaddexp(input, other):
    """``log(exp(input) + exp(other))`` without overflow."""
    m = OPS["maximum"].function(input, other)
    return m + (-(input - other).abs()).exp().log1p()


def logaddexp2(input, other):
    """``log2(2^input + 2^other)``."""
    ln2 = math.log(2)
    return logaddexp(input * ln2, other * ln2) / ln2


def fmax(input, other):
    """Element-wise maximum ignoring NaN (NaN only where both are)."""
    where = OPS["where"].function
    return where(other.isnan(), input, where(input.isnan(), other,
                                             OPS["maximum"].function(input, other)))


def fmin(input, other):
    """Element-wise minimum ignoring NaN (NaN only where both are)."""
    where = OPS["where"].function
    return where(other.isnan(), input, where(input.isnan(), other,
                                             OPS["minimum"].function(input, other)))


FUNCTIONS = {f.__name__: f for f in (logaddexp, logaddexp2, fmax, fmin)}
