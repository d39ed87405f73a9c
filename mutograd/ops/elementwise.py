"""Element-wise ops: one declaration each (forward writing into ``out``, gradient, what is saved).

Gradients that use only ``out`` keep no extra memory when run in place (exp, sigmoid, tanh, relu,
sqrt, ...); those that use the overwritten ``x`` keep a copy of it when run in place (sin, log,
pow, ...). See Note [In-place saving] in registry.py.

The public ``where``/``where_`` and ``clamp``/``clamp_`` (at the end) read the arguments these
ops' declarations cannot: a condition alone, Python scalars' dtypes, bounds that may be missing.
"""
import math

import numpy as np

from .. import dtypes, memory
from ..backends.special import BLOCK, blockwise, erf, normal_cdf_block
from ..errors import DTypeError, IntegerDivisionError
from ..parallel import ufunc   # large arrays on all cores (Note [Splitting a ufunc ...])
from ..autograd.graph_arrays import graph_mode
from ..autograd.promotion import _promote
from ..tensor import Tensor
from .gradients import masked, power_grad_exponent, zero_gradient
from .registry import OPS, call, call_inplace, defop


def sign(xp, x, out=None):
    """-1, 0 or 1 in ``x``'s dtype, and 0 for NaN (PyTorch's sign; NumPy's gives NaN): what the
    gradients at a kink use (abs'(x) = sign(x), 0 at 0 and at NaN)."""
    if x.dtype.kind == "b":
        return _put_into(out, x.copy())
    r = (x > 0).astype(x.dtype)
    r -= x < 0
    return _put_into(out, r)


def _put_into(out, r):
    if out is None:
        return r
    out[...] = r
    return out


def _scalar_mul(xp, x, c, out):
    return ufunc(xp.multiply, x, c, out=out)


def _negative(xp, x, out=None):
    # NumPy 2.4's negative writes wrong values in place on some strided views (a stride of 64
    # bytes for 8-byte types, 16 for 4-byte ones: x[:, 0].neg_() on an (n, 8) float64 matrix),
    # so an input that shares memory with a strided output is negated from a copy
    if out is not None and not out.flags.c_contiguous and xp.may_share_memory(x, out):
        x = x.copy()
    return ufunc(xp.negative, x, out=out)


# ---- unary ---------------------------------------------------------------------------------
defop("neg", _negative, grad=lambda g: -g)
def _abs_grad(g, x, xp):
    if x.dtype.kind == "c":   # PyTorch's sgn: x / |x|, 0 at 0 (Note [Complex gradients])
        m = xp.abs(x)
        return g * xp.where(m == 0, 0, x / xp.where(m == 0, 1, m))
    return g * sign(xp, x)


defop("abs", lambda xp, x, out=None: ufunc(xp.absolute, x, out=out), grad=_abs_grad,
      ufunc=np.absolute, kink=True)
defop("sign", sign, grad=zero_gradient)
defop("exp", lambda xp, x, out=None: ufunc(xp.exp, x, out=out),
      grad=lambda g, out, into, xp: ufunc(xp.multiply, g, conj(out), out=into), result="float",
      ufunc=np.exp)
defop("exp2", lambda xp, x, out=None: ufunc(xp.exp2, x, out=out),
      grad=lambda g, out: g * out * math.log(2), result="float")
defop("expm1", lambda xp, x, out=None: ufunc(xp.expm1, x, out=out),
      grad=lambda g, out: g * (out + 1), result="float")
defop("log", lambda xp, x, out=None: ufunc(xp.log, x, out=out), grad=lambda g, x: g / x,
      result="float", ufunc=np.log)
defop("log1p", lambda xp, x, out=None: ufunc(xp.log1p, x, out=out), grad=lambda g, x: g / (x + 1),
      result="float")
defop("log2", lambda xp, x, out=None: ufunc(xp.log2, x, out=out),
      grad=lambda g, x: g / (x * math.log(2)), result="float")
defop("log10", lambda xp, x, out=None: ufunc(xp.log10, x, out=out),
      grad=lambda g, x: g / (x * math.log(10)), result="float")
defop("sqrt", lambda xp, x, out=None: ufunc(xp.sqrt, x, out=out), grad=lambda g, out: g / (2 * out),
      result="float", ufunc=np.sqrt)
defop("rsqrt", lambda xp, x, out=None: xp.divide(1, xp.sqrt(x), out=out),
      grad=lambda g, out: g * (-0.5) * out ** 3, result="float")
defop("square", lambda xp, x, out=None: xp.square(x.astype(np.int64) if x.dtype.kind == "b"
                                                   else x, out=out),
      grad=lambda g, x: g * 2 * x)   # a bool squares as int64, as in PyTorch (NumPy: int8)
defop("reciprocal", lambda xp, x, out=None: ufunc(xp.reciprocal, x, out=out), result="float",
      grad=lambda g, out: -g * out * out)
defop("sin", lambda xp, x, out=None: ufunc(xp.sin, x, out=out), grad=lambda g, x, xp: g * xp.cos(x),
      result="float", ufunc=np.sin)
defop("cos", lambda xp, x, out=None: ufunc(xp.cos, x, out=out),
      grad=lambda g, x, xp: -g * xp.sin(x), result="float", ufunc=np.cos)
defop("tan", lambda xp, x, out=None: ufunc(xp.tan, x, out=out),
      grad=lambda g, out: g * (1 + out * out), result="float",
      copy_out=True)   # Note [Outputs copied on write] in autograd/saved.py
def _tanh_grad(g, out, into, xp):
    if graph_mode(xp):   # one node (Note [Fused gradients] in registry.py)
        return xp.recorded("tanh_backward", g, out)
    return ufunc(xp.multiply, g, 1 - out * out, out=into)


defop("tanh", lambda xp, x, out=None: ufunc(xp.tanh, x, out=out), grad=_tanh_grad, result="float",
      ufunc=np.tanh)
defop("tanh_backward", lambda xp, grad, y: _tanh_grad(grad, y, None, xp), kind="other",
      inplace=False, method=False, node_name="TanhBackwardBackward",
      grad=(lambda g, y, xp: _tanh_grad(g, y, None, xp), lambda g, grad, y: -2 * g * grad * y),
      doc="tanh's gradient ``grad * (1 - y * y)`` of its output ``y``, as one op (Note [Fused "
          "gradients] in ops/registry.py).")


def _sigmoid(xp, x, out=None):
    # 1 / (1 + exp(-x)) in one buffer: safe for large |x| (exp overflows to inf, 1/inf = 0)
    out = xp.asarray(_negative(xp, x, out=out))   # a 0-d input gives a NumPy scalar
    ufunc(xp.exp, out, out=out)
    out += 1
    return ufunc(xp.reciprocal, out, out=out)


def _sigmoid_grad(g, out, into, xp):
    if graph_mode(xp):   # one node (Note [Fused gradients] in registry.py)
        return xp.recorded("sigmoid_backward", g, out)
    return ufunc(xp.multiply, g, out * (1 - out), out=into)


# ``into``: the incoming gradient's buffer when it may be overwritten (Note [Reusing the
# incoming gradient] in registry.py), so these backward steps allocate at most one temporary
defop("sigmoid", _sigmoid, grad=_sigmoid_grad, result="float")
defop("sigmoid_backward", lambda xp, grad, y: _sigmoid_grad(grad, y, None, xp), kind="other",
      inplace=False, method=False, node_name="SigmoidBackwardBackward",
      grad=(lambda g, y, xp: _sigmoid_grad(g, y, None, xp),
            lambda g, grad, y: g * grad * (1 - 2 * y)),
      doc="sigmoid's gradient ``grad * y * (1 - y)`` of its output ``y``, as one op (Note "
          "[Fused gradients] in ops/registry.py).")
# Note [Gradients at a kink]
#     At a kink the gradient takes PyTorch's one-sided value: relu'(0) = 0, abs'(0) = 0 (and 0
#     at NaN: ``sign`` above), sign' = 0, hardtanh's 0 at both bounds, clamp's 1 at a bound, a
#     tensor bound's share only where it binds (min < max), half to each side of a max/min tie
#     and all of it to both sides at a NaN. At a NaN, relu, elu, celu and selu take their x > 0
#     side (PyTorch tests x <= 0 for the other one): hence ``~(out <= 0)``, not ``out > 0``.
# relu(-0.0) is -0.0 (PyTorch's x < 0 ? 0 : x): NumPy's maximum returns its second argument on
# a tie, so the 0 goes first (maximum(x, 0) gives +0.0; tests/ops/test_extremal.py checks the sign)
def _relu(xp, x, out=None):
    # NumPy's maximum against a scalar runs about 4x slower than against an array (no SIMD
    # loop for a broadcast operand), so a large float array is taken block by block against a
    # block of zeros that stays in cache: the same values, at the speed of memory
    if type(x) is not np.ndarray or x.size < _RELU_BLOCKS:
        return xp.maximum(0, x, out=out)   # (small: the plain call, without a check more)
    if x.dtype.kind == "f" and x.flags.c_contiguous and (out is None or out is x or (
            type(out) is np.ndarray and out.dtype == x.dtype and out.shape == x.shape
            and out.flags.c_contiguous and not np.may_share_memory(x, out))):
        if out is None:
            out = memory.empty_like(np, x)
        zeros = _zero_block(x.dtype)
        blockwise(lambda xb, outs, tmp: np.maximum(zeros[:xb.size], xb, out=outs[0]), x, [out],
                  scratch=0)
        return out
    return ufunc(xp.maximum, 0, x, out=out)


_RELU_BLOCKS = 1 << 14   # elements from which the blocks pay for their loop
_ZERO_BLOCKS = {}


def _zero_block(dtype):
    z = _ZERO_BLOCKS.get(dtype)
    if z is None:
        z = _ZERO_BLOCKS[dtype] = np.zeros(BLOCK, dtype)
        z.flags.writeable = False
    return z


defop("relu", _relu,
      grad=lambda g, out, into, xp: masked(g, ~(out <= 0), xp, into), kink=True)
defop("relu6", lambda xp, x, out=None: xp.clip(x, 0, 6, out=out),
      grad=lambda g, out, xp: masked(g, (out > 0) & (out < 6), xp), copy_out=True, kink=True)


def _into(out, r, x):
    """Return ``r`` as the result (in ``x``'s dtype), or write it into ``out``."""
    if out is None:
        return r.astype(x.dtype, copy=False) if x.dtype.kind == "f" else r
    out[...] = r
    return out


def _leaky_relu(xp, x, out=None, negative_slope=0.01, keep=None):
    if keep is not None:   # Note [Values kept from the forward]: read before x is written
        keep["positive"] = x > 0 if negative_slope < 0 else None
    if x.dtype.kind == "f" and 0 < abs(negative_slope) < math.inf:   # (inf * 0 is NaN)
        # x where x > 0, x * slope elsewhere, as the larger of the two (the smaller for a slope
        # above 1): NumPy's where on a random mask runs ten times slower. NaN stays NaN, and a
        # tie returns the second operand, so -0.0 and +0.0 come out as PyTorch's x * slope
        pick = xp.maximum if negative_slope <= 1 else xp.minimum
        return ufunc(pick, x, x * negative_slope, out=out)
    return _into(out, xp.where(x > 0, x, x * negative_slope), x)


def _leaky_relu_grad(g, out, positive, negative_slope, xp):
    # g where x > 0, g * slope elsewhere (at a NaN too, as PyTorch's), by arithmetic on the
    # mask: several times faster than NumPy's where on a random one. x > 0 where out > 0, but
    # for a negative slope: then the forward keeps where x > 0 (a byte per element)
    f = (out > 0 if positive is None else positive).astype(g.dtype)
    f *= 1 - negative_slope
    f += negative_slope
    return g * f


defop("leaky_relu", _leaky_relu, grad=_leaky_relu_grad, copy_out=True, keeps=("positive",),
      kink=True)


def nonpositive(xp, x):
    """``min(x, 0)`` that keeps -0.0 and NaN: the argument of the exponential branch of elu,
    celu and selu, bounded so that exp cannot overflow (elu(-0.0) is -0.0, as in PyTorch)."""
    return xp.where(x > 0, 0, x)


def _elu(xp, x, out=None, alpha=1.0):
    return _into(out, xp.where(x > 0, x, alpha * xp.expm1(nonpositive(xp, x))), x)


# for alpha > 0, out > 0 exactly where x > 0, and out + alpha = alpha * exp(x) there
defop("elu", _elu, grad=lambda g, out, alpha, xp: g * xp.where(out <= 0, out + alpha, 1.0),
      result="float")


_RSQRT2 = 1 / math.sqrt(2)
_RSQRT2PI = 1 / math.sqrt(2 * math.pi)
_TANH_K = math.sqrt(2 / math.pi)


def _gelu(xp, x, out=None, approximate="none"):
    """``x * Phi(x)``."""
    x = xp.asarray(x)   # a Python number too
    if approximate == "tanh":
        cdf = 0.5 * (1 + xp.tanh(_TANH_K * (x + 0.044715 * x ** 3)))
    elif xp is np and x.dtype == np.float32:   # Note [float32 normal CDF on the CPU]
        return _gelu_float32(x, out)
    else:
        cdf = erf(xp, x * _RSQRT2)   # a new float array: updated in place below
        cdf *= 0.5
        cdf += 0.5
    if out is not None and out.dtype == cdf.dtype:
        return ufunc(xp.multiply, x, cdf, out=out)
    return _into(out, x * cdf, x)


def _gelu_float32(x, out):
    """GELU of a float32 array on the CPU, block by block in cache: Phi lives in scratch
    blocks; only the result is a whole array."""
    x = np.asarray(x, order="C")
    r = out
    if out is None or not out.flags.c_contiguous or out.dtype != x.dtype:
        r = memory.empty_like(np, x)
    with np.errstate(over="ignore", invalid="ignore"):   # exp(inf) far left; -inf * 0
        blockwise(_gelu_block, x, [r], scratch=2)
    if out is not None and r is not out:
        out[...] = r
        return out
    return r


def _gelu_block(x, outs, tmp):
    """GELU of a float32 block into ``outs[0]`` (which may be ``x``: written last)."""
    z, cdf = tmp
    np.multiply(x, x, out=z)
    normal_cdf_block(x, z, cdf)
    np.multiply(x, cdf, out=outs[0])


# Note [GELU's slope from its result]
#     GELU's gradient is g * (Phi(x) + x phi(x)). Phi costs most of the forward (erf, or the
#     float32 logistic form), and it is out / x: with the input and the result saved (the
#     result is usually saved anyway, by the matrix product that reads it), the backward needs
#     only phi, one exp. Where x * x underflows to 0, out = x Phi(x) has lost its precision (or
#     out / x is 0 / 0) and Phi's tangent 0.5 + x phi(0) takes its place: exact there, with the
#     right derivative in graph mode. Saving the input (as PyTorch does) instead of keeping the
#     slope lets create_graph differentiate the gradient again; the result is saved with copy
#     on write (Note [Outputs copied on write]), so a later write into it raises nothing. The
#     tanh form's slope is computed from x.
def _gelu_grad(g, x, out, approximate, into, xp):
    if approximate == "tanh":
        slope = _gelu_tanh_slope(xp, x)
    elif xp is np and x.dtype == g.dtype == out.dtype == np.float32:
        return _gelu_grad_float32(g, x, out, into)
    else:
        slope = _gelu_slope(xp, x, out, memory.empty_like(xp, x), memory.empty_like(xp, x))
    return ufunc(xp.multiply, g, slope, out=memory.empty_like(xp, g) if into is None else into)


def _gelu_slope(xp, x, out, s, q):
    """Phi(x) + x phi(x) from GELU's input and result (Note [GELU's slope from its result]),
    into ``s``, with ``q`` a second buffer of x's size."""
    xp.multiply(x, x, out=s)
    small = None if s.all() else s == 0
    s *= -0.5
    xp.exp(s, out=s)
    s *= _RSQRT2PI
    s *= x
    if small is None:
        s += xp.divide(out, x, out=q)
    else:
        s += xp.where(small, 0.5 + x * _RSQRT2PI, xp.divide(out, xp.where(small, 1, x), out=q))
    return s


def _gelu_grad_float32(g, x, out, into):
    """The float32 gradient on the CPU block by block in cache, as the forward (its passes
    over whole arrays would each go to memory)."""
    r = into if into is not None and into.flags.c_contiguous else memory.empty_like(np, g)
    # the result and ``g`` ride along as outputs, only read: each block of ``r`` (which may be
    # ``g`` itself) is written after its block of ``g`` is read
    with np.errstate(invalid="ignore"):   # inf * 0 at x = +-inf
        blockwise(_gelu_grad_block, np.asarray(x, order="C"),
                  [r, np.ascontiguousarray(out), np.ascontiguousarray(g)], scratch=2)
    return r


def _gelu_grad_block(x, outs, tmp):
    r, out, g = outs
    np.multiply(_gelu_slope(np, x, out, *tmp), g, out=r)


def _gelu_tanh_slope(xp, x):
    t = xp.tanh(_TANH_K * (x + 0.044715 * x ** 3))
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _TANH_K * (1 + 3 * 0.044715 * x * x)


defop("gelu", _gelu, grad=_gelu_grad, result="float", copy_out=True)


def _silu(xp, x, out=None):
    s = _sigmoid(xp, x)
    return ufunc(xp.multiply, x, s, out=out)


def _silu_grad(g, x, xp):
    s = _sigmoid(xp, x)
    return g * s * (1 + x * (1 - s))


defop("silu", _silu, grad=_silu_grad, result="float")


def _softplus(xp, x, out=None, beta=1.0, threshold=20.0):
    bx = x * beta
    return _into(out, xp.where(bx > threshold, x, xp.logaddexp(0, bx) / beta), x)


defop("softplus", _softplus, result="float",
      grad=lambda g, x, beta, threshold, xp: g * xp.where(
          x * beta > threshold, 1.0, _sigmoid(xp, x * beta)))


# clamp: the bounds are inputs, each a tensor (whose gradient is where it binds), a scalar or
# None (named min, max: the gradients' parameter names are the save contract).
def _clamp(xp, x, min, max, out=None):
    if out is None:   # Note [Type promotion] (autograd/promotion.py), bounds absent as None
        x, min, max = _promote([x, min, max])
    if min is None:
        return ufunc(xp.minimum, x, max, out=out)
    if max is None:
        return ufunc(xp.maximum, x, min, out=out)
    return xp.clip(x, min, max, out=out)


def _clamp_grad(g, x, min, max, xp):
    keep = True
    if min is not None:
        keep = keep & (x >= min)
    if max is not None:
        keep = keep & (x <= max)
    return g if keep is True else masked(g, keep, xp)


def _clamp_min_grad(g, x, min, max, xp):
    hit = x < min
    if max is not None:
        hit = hit & (min < max)   # min >= max: the result is max, whose gradient it is (PyTorch)
    return masked(g, hit, xp)


def _clamp_max_grad(g, x, min, max, xp):
    # the result is max where x is above it, and everywhere when the bounds cross (min > max)
    hit = x > max
    if min is not None:
        hit = hit | (min > max)
    return masked(g, hit, xp)


defop("clamp", _clamp, grad=(_clamp_grad, _clamp_min_grad, _clamp_max_grad), promotes=False)
defop("floor", lambda xp, x, out=None: ufunc(xp.floor, x, out=out), grad=zero_gradient)
defop("ceil", lambda xp, x, out=None: ufunc(xp.ceil, x, out=out), grad=zero_gradient)
defop("trunc", lambda xp, x, out=None: ufunc(xp.trunc, x, out=out), grad=zero_gradient)


def _round(xp, x, out=None, decimals=0):
    return xp.round(x, decimals, out=out)


defop("round", _round, grad=zero_gradient)


def _scale(xp, x, out=None, scale=1.0, bias=0.0, bias_after_scale=True):
    # xp.asarray: on a 0-d input NumPy returns a scalar, which cannot be written into
    if bias_after_scale:
        r = xp.asarray(ufunc(xp.multiply, x, scale, out=out))
        return xp.add(r, bias, out=r) if bias else r
    r = xp.asarray(ufunc(xp.add, x, bias, out=out))
    return xp.multiply(r, scale, out=r)


defop("scale", _scale, grad=lambda g, scale: g * scale)


# ---- binary --------------------------------------------------------------------------------
def _add(xp, x, y, out=None, alpha=1):
    if alpha == 1:
        return ufunc(xp.add, x, y, out=out)
    if out is x and _axpy(xp, x, y, alpha):
        return out
    return xp.add(x, _times(xp, y, alpha), out=out)


def _sub(xp, x, y, out=None, alpha=1):
    if alpha == 1:
        return ufunc(xp.subtract, x, y, out=out)
    if out is x and _axpy(xp, x, y, -alpha):
        return out
    return xp.subtract(x, _times(xp, y, alpha), out=out)


def _times(xp, y, alpha):
    """``y * alpha``; a Python number stays one, so it stays weak in promotion (NEP 50)."""
    return y * alpha if type(y) in (int, float, bool) else xp.multiply(y, alpha)


_AXPY_MIN = 1 << 14   # elements; below this NumPy's two passes cost less than the BLAS call


def _axpy(xp, x, y, alpha):
    """``x += alpha * y`` in one BLAS pass without a temporary (``p.add_(g, alpha=-lr)``, the
    SGD step), when both are C-contiguous float32/float64 CPU arrays of one shape that do not
    overlap. Returns whether it did it."""
    if (type(x) is not np.ndarray or type(y) is not np.ndarray or x.size < _AXPY_MIN
            or x.dtype != y.dtype or x.shape != y.shape or x.dtype.char not in "fd"
            or not (x.flags.c_contiguous and y.flags.c_contiguous)
            or type(alpha) not in (int, float) or np.may_share_memory(x, y)):
        return False
    from scipy.linalg import blas
    f = blas.saxpy if x.dtype.char == "f" else blas.daxpy
    f(y.reshape(-1), x.reshape(-1), a=alpha)   # writes into x's buffer (a contiguous view)
    return True


defop("add", _add, grad=(lambda g: g, lambda g, alpha: g if alpha == 1 else g * alpha),
      ufunc=np.add)
defop("sub", _sub, grad=(lambda g: g, lambda g, alpha: -g if alpha == 1 else g * -alpha),
      ufunc=np.subtract)
def conj(a):
    """``a`` conjugated when complex. Note [Complex gradients]: as PyTorch, the gradient of a
    real loss with respect to a complex ``z`` is ``dL/d(conj z)``, so a holomorphic op's
    gradient multiplies by the conjugate of its derivative (``mul``: ``g * conj(y)``)."""
    if getattr(a, "dtype", None) is not None:
        return a.conj() if a.dtype.kind == "c" else a
    return a.conjugate() if type(a) is complex else a   # a Python scalar operand (x * 1j)


defop("mul", lambda xp, x, y, out=None: ufunc(xp.multiply, x, y, out=out),
      grad=(lambda g, y: g * conj(y), lambda g, x: g * conj(x)), ufunc=np.multiply)
# The divisor's gradient uses the inputs, as PyTorch's (DivBackward0 saves self and other): a
# later write into the quotient (t = x / y; t.relu_()) is then free of consequences in both,
# and div_ copies the x it overwrites only when y requires grad. Saving the quotient instead
# costs a guard per recorded x / y (Note [Outputs copied on write]), on the per-op path.
defop("div", lambda xp, x, y, out=None: ufunc(xp.true_divide, x, y, out=out), result="float",
      grad=(lambda g, y: g / conj(y), lambda g, x, y: -g * conj(x / y / y)),
      ufunc=np.true_divide)
def nonzero_divisor(xp, x, y, name):
    """Integers divided by zero are an error, as in PyTorch and Paddle (NumPy gives 0)."""
    if xp.result_type(x, y).kind in "iub" and not xp.all(xp.asarray(y) != 0):
        raise IntegerDivisionError(f"ZeroDivisionError: integer division or modulo by zero in "
                                   f"{name}()")


def _floor_divide(xp, x, y, out=None):
    nonzero_divisor(xp, x, y, "floor_divide")
    return ufunc(xp.floor_divide, x, y, out=out)


defop("floor_divide", _floor_divide, grad=(zero_gradient, zero_gradient))


def _remainder(xp, x, y, out=None):
    if xp.result_type(x, y).kind != "f":
        nonzero_divisor(xp, x, y, "remainder")
        return xp.remainder(x, y, out=out)
    # PyTorch's: fmod, moved to the divisor's side when the signs differ. A zero remainder
    # keeps the dividend's sign (NumPy's remainder gives it the divisor's)
    m = xp.asarray(ufunc(xp.fmod, x, y, out=out))   # (a 0-d result would be a NumPy scalar)
    m[...] = xp.where((m != 0) & ((m < 0) != (xp.asarray(y) < 0)), m + y, m)
    return m


defop("remainder", _remainder,
      grad=(lambda g: g, lambda g, x, y, xp: -g * xp.floor_divide(x, y)))
def _fmod(xp, x, y, out=None):
    nonzero_divisor(xp, x, y, "fmod")
    return ufunc(xp.fmod, x, y, out=out)


defop("fmod", _fmod,
      grad=(lambda g: g, lambda g, x, y, xp: -g * xp.trunc(x / y)))


def _pow(xp, x, y, out=None):
    dt = getattr(x, "dtype", None)
    if dt is not None and dt.kind in "iu":
        yk = getattr(y, "dtype", None)
        neg = (y < 0) if isinstance(y, int) else (
            yk is not None and yk.kind == "i" and bool((y < 0).any()))
        if neg:
            raise DTypeError("pow(): integers to negative integer powers are not allowed; "
                             "use a floating tensor")
    elif (type(y) is int or type(y) is float) and y in _POWERS and dt is not None and (
            dt.char in "fd" or (dt.char in "FD" and y in (0.5, -0.5))):
        return _POWERS[y](xp, x, out)
    return ufunc(xp.power, x, y, out=out)


# PyTorch's CPU pow of a float32/float64 tensor by these exponents is not pow() but products, a
# square root or a reciprocal (for a complex one, the square roots): the same roundings here,
# and sqrt's values at -0.0 and -inf
_POWERS = {
    3: lambda xp, x, out: ufunc(xp.multiply, x * x, x, out=out),
    -2: lambda xp, x, out: ufunc(xp.reciprocal, x * x, out=out),
    0.5: lambda xp, x, out: ufunc(xp.sqrt, x, out=out),
    -0.5: lambda xp, x, out: ufunc(xp.reciprocal, xp.sqrt(x), out=out),
    -1: lambda xp, x, out: ufunc(xp.reciprocal, x, out=out),
}


# Note [The order of a gradient's products]
#     With create_graph, a formula's products record nodes that save their operands, so the
#     order in which a formula multiplies decides which tensors a second backward needs, and
#     so which later writes are version errors. The formulas here multiply g by a factor made
#     first, as PyTorch's derivatives do (pow: grad * (exponent * self.pow(exponent - 1))):
#     the second backward keeps g and that factor, as PyTorch's does, and not an input the
#     program may write since. It costs the same number of array passes at first order.
def _pow_grad_x(g, x, y, xp):
    # where the exponent is 0 the result is 1 whatever x is: gradient 0, also at x = 0 where
    # y * x ** (y - 1) is 0 * inf (PyTorch's convention; Note [Gradients at a kink])
    # (the factor is made first, then g times it: Note [The order of a gradient's products])
    if isinstance(y, (int, float, complex)):
        return g * 0 if y == 0 else g * conj(y * x ** (y - 1))
    return g * conj(xp.where(y == 0, 0, y * x ** (y - 1)))


defop("pow", _pow, grad=(_pow_grad_x, power_grad_exponent))


def _share(g, xp, x, y, loses):
    """The share of a max/min's gradient ``g`` for the side that ``loses`` where it does: half
    at a tie, all of it at a NaN (Note [Gradients at a kink])."""
    return masked(xp.where(x == y, g * 0.5, g), ~loses, xp)   # in g's dtype


defop("maximum", lambda xp, x, y, out=None: ufunc(xp.maximum, x, y, out=out),
      grad=(lambda g, x, y, xp: _share(g, xp, x, y, x < y),
            lambda g, x, y, xp: _share(g, xp, x, y, y < x)), ufunc=np.maximum)
defop("minimum", lambda xp, x, y, out=None: ufunc(xp.minimum, x, y, out=out),
      grad=(lambda g, x, y, xp: _share(g, xp, x, y, x > y),
            lambda g, x, y, xp: _share(g, xp, x, y, y > x)), ufunc=np.minimum)
defop("atan2", lambda xp, x, y, out=None: ufunc(xp.arctan2, x, y, out=out), result="float",
      grad=(lambda g, x, y: g * y / (x * x + y * y), lambda g, x, y: -g * x / (x * x + y * y)))


def _where(xp, cond, x, y, out=None):
    r = xp.where(cond, x, y)
    if out is None:
        return r
    out[...] = r
    return out


# x.where(cond, y) and x.where_(cond, y) (Paddle: where_(cond, x, y)) take x first; a condition
# of another dtype than bool holds where it is not zero
defop("where", _where, writes="x", operands=("x", "y"),
      grad=(None, lambda g, cond, xp: masked(g, cond != 0, xp),
            lambda g, cond, xp: masked(g, cond == 0, xp)))


def _lerp(xp, x, y, weight, out=None):
    # PyTorch's form: from x for weight < 0.5, from y above, so lerp(x, y, 1) is y exactly
    # (and inf - inf does not appear where the weight does not reach it)
    d = xp.subtract(y, x)
    near_x = xp.abs(weight) < 0.5
    r = xp.where(near_x, x + weight * d, y - d * (1 - xp.asarray(weight)))
    if out is None:
        return r.astype(xp.result_type(x, y, weight), copy=False)
    out[...] = r
    return out


defop("lerp", _lerp, grad=(lambda g, weight: g * (1 - weight), lambda g, weight: g * weight,
                           lambda g, x, y: g * (y - x)))


def _masked_fill(xp, x, mask, value, out=None):
    if out is None:
        return xp.where(mask, value, x).astype(x.dtype, copy=False)
    xp.copyto(out, value, where=xp.broadcast_to(mask, out.shape), casting="unsafe")
    return out


defop("masked_fill", _masked_fill, result="same", layout="C",
      grad=(lambda g, mask, xp: masked(g, ~mask, xp), None,
            lambda g, mask, xp: masked(g, mask, xp).sum()))


def _addcmul(xp, x, t1, t2, out=None, value=1):
    p = xp.multiply(t1, t2)
    if value != 1:
        if p.dtype.kind in "biu" and isinstance(value, float):
            if not value.is_integer():   # PyTorch truncates it (1.7 acts as 1): refused here
                raise DTypeError(f"addcmul(): value={value} is not an integer, and the "
                                 f"product of integer tensors is integer")
            value = int(value)
        if p.dtype.kind == "b":
            p = p * value   # (a bool product times an int is an int)
        else:
            p *= value
    return ufunc(xp.add, x, p, out=out)


def _addcdiv(xp, x, t1, t2, out=None, value=1):
    p = xp.true_divide(t1, t2)
    if value != 1:
        p *= value
    return ufunc(xp.add, x, p, out=out)


# Note [The order of a gradient's products]
defop("addcmul", _addcmul, grad=(lambda g: g, lambda g, t2, value: g * (t2 * value),
                                 lambda g, t1, value: g * (t1 * value)))
defop("addcdiv", _addcdiv, grad=(lambda g: g, lambda g, t2, value: g * (value / t2),
                                 lambda g, t1, t2, value: -g * (value * t1 / (t2 * t2))))

# ---- comparisons and logic (no gradient; in place they keep the written dtype) -------------
def _ufunc2(name):
    """A binary forward calling the backend's ufunc ``name``."""
    return lambda xp, x, y, out=None: ufunc(getattr(xp, name), x, y, out=out)


for _name, _ufunc in (("eq", "equal"), ("ne", "not_equal"), ("lt", "less"),
                      ("le", "less_equal"), ("gt", "greater"), ("ge", "greater_equal")):
    defop(_name, _ufunc2(_ufunc), result="bool", ufunc=getattr(np, _ufunc))
for _name in ("logical_and", "logical_or", "logical_xor"):
    defop(_name, _ufunc2(_name), result="bool")
defop("logical_not", lambda xp, x, out=None: ufunc(xp.logical_not, x, out=out), result="bool")
defop("isnan", lambda xp, x: xp.isnan(x), inplace=False)
defop("isinf", lambda xp, x: xp.isinf(x), inplace=False)
defop("isfinite", lambda xp, x: xp.isfinite(x), inplace=False)
for _name, _ufunc in (("bitwise_and", "bitwise_and"), ("bitwise_or", "bitwise_or"),
                      ("bitwise_xor", "bitwise_xor")):
    defop(_name, _ufunc2(_ufunc))
defop("bitwise_not", lambda xp, x, out=None: ufunc(xp.invert, x, out=out))


# ---- the public where and clamp ----------------------------------------------------------------
def _scalar_dtype(v):
    if isinstance(v, bool):
        return dtypes.bool.np
    if isinstance(v, int):
        return dtypes.int64.np
    if isinstance(v, float):
        return dtypes.default_float.np
    return None


def where(condition, x=None, y=None, name=None):
    """``x`` where ``condition`` holds, else ``y`` (either may be a Python scalar).

    With only ``condition``: the indices of its non-zero elements, one tensor per dimension.

    Example::

        >>> import mutograd as mg
        >>> c = mg.tensor([True, False])
        >>> mg.where(c, 1.0, 0.0).tolist(), mg.where(c, 1.0, 0.0).dtype
        ([1.0, 0.0], float32)
    """
    if x is None and y is None:
        from .creation import _wrap
        return tuple(_wrap(i, condition) for i in condition._data.nonzero())
    if x is None or y is None:
        raise TypeError("where() takes a condition and both x and y, or the condition alone")
    if not isinstance(condition, Tensor):
        from .creation import tensor
        condition = tensor(condition)
    if condition._data.dtype.kind != "b":
        condition = call(OPS["ne"], [condition, 0], {})
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        # two Python scalars: the frameworks' default dtypes, not NumPy's float64
        kinds = {_scalar_dtype(x), _scalar_dtype(y)}
        if None not in kinds:
            dt = max(kinds, key=lambda d: "bif".index(d.kind))
            from .creation import full
            x = full([], x, dtype=dt)
    return call(OPS["where"], [condition, x, y], {})


def where_(condition, x, y, name=None):
    """In-place :func:`where` into ``x`` (Paddle's ``where_``; the method is
    ``x.where_(condition, y)``); returns ``x``.

    Example::

        >>> import mutograd as mg
        >>> x = mg.tensor([1.0, 2.0])
        >>> mg.where_(mg.tensor([True, False]), x, 0.0) is x, x.tolist()
        (True, [1.0, 0.0])
    """
    return OPS["where"].inplace_function(x, condition, y)


def _bounds(x, min, max, what):
    """clamp's inputs: the bounds are optional, but not both."""
    if min is None and max is None:
        raise ValueError(f"{what}(): at least one of 'min' and 'max' must be given")
    return [x, min, max]


def clamp(x, min=None, max=None, name=None):
    """``x`` limited to ``[min, max]``; bounds are scalars or tensors (then with gradients).

    Example::

        >>> import mutograd as mg
        >>> mg.clamp(mg.tensor([-2., 0.5, 3.]), -1, mg.tensor(1.)).tolist()
        [-1.0, 0.5, 1.0]
    """
    return call(OPS["clamp"], _bounds(x, min, max, "clamp"), {})


def clamp_(x, min=None, max=None, name=None):
    """In-place :func:`clamp`; returns ``x``."""
    return call_inplace(OPS["clamp"], _bounds(x, min, max, "clamp_"), {})


FUNCTIONS = {"where": where, "where_": where_, "clamp": clamp, "clamp_": clamp_, "clip": clamp,
             "clip_": clamp_}
