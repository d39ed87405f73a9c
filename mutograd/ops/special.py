"""Special functions backed by ``scipy.special`` (``cupyx.scipy.special`` on a GPU, through
``backends.special.module``): one declaration each, never hand-written.

Saving follows the gradient's parameter names (Note [In-place saving] in registry.py): ``erfinv``
differentiates through its output and so runs in place without a copy; the others need the value
they overwrite and keep a copy of it when a gradient will be needed.

The public ``polygamma(n, x)`` takes PyTorch's order (the method ``x.polygamma(n)`` and
``polygamma_(x, n)`` take ``x`` first, as in both frameworks); Paddle's ``polygamma(x, n)`` is
``mutograd.compat.paddle.polygamma``.
"""
import contextlib
import math

import numpy as np

from ..backends.special import module as _sp
from ..errors import BackwardError
from ..tensor import Tensor
from .axes import paddle_order
from .registry import OPS, defop
from .signatures import method

_SQRT_PI = math.sqrt(math.pi)


def _ufunc(name):
    """A forward ``(xp, x, out=None)`` from a special-function ufunc of the backend (computed,
    then written into ``out``)."""
    def fwd(xp, x, out=None):
        return _put(out, getattr(_sp(xp), name)(x), x)
    return fwd


def _put(out, r, x):
    """``r`` as the result (float inputs keep their dtype), or written into ``out``."""
    if out is None:
        return r.astype(x.dtype, copy=False) if getattr(x, "dtype", None) is not None and \
            x.dtype.kind == "f" else r
    out[...] = r
    return out


def _polygamma_of(xp, n, x):
    """psi^(n)(x) with the order as an array: CuPy's polygamma compares ``n == 0`` and passes the
    result to ``cupy.where``, which refuses the Python bool a Python int gives (SciPy turns the
    order into an array itself, so the CPU result is the same)."""
    return _sp(xp).polygamma(xp.asarray(n), x)


defop("digamma", _ufunc("digamma"), grad=lambda g, x, xp: g * _polygamma_of(xp, 1, x),
      result="float")
def _lgamma(xp, x, out=None):
    r = _sp(xp).gammaln(x)
    # log|Gamma(-inf)| is +inf (PyTorch; SciPy's gammaln gives -inf there)
    return _put(out, xp.where(x == -math.inf, math.inf, r), x)


defop("lgamma", _lgamma, grad=lambda g, x, xp: g * _sp(xp).digamma(x), result="float")
defop("erf", _ufunc("erf"), result="float",
      grad=lambda g, x, xp: g * (2 / _SQRT_PI) * xp.exp(-x * x))
defop("erfc", _ufunc("erfc"), result="float",
      grad=lambda g, x, xp: g * (-2 / _SQRT_PI) * xp.exp(-x * x))
# d erfinv(x)/dx = sqrt(pi)/2 * exp(erfinv(x)^2): the output is enough, no copy in place
def _erfinv(xp, x, out=None):
    # erfinv is odd: the result takes x's sign, so erfinv(-0.0) is -0.0 (SciPy's gives +0.0)
    return _put(out, xp.copysign(_sp(xp).erfinv(x), x), x)


defop("erfinv", _erfinv, result="float",
      grad=lambda g, out, xp: g * (_SQRT_PI / 2) * xp.exp(out * out), copy_out=True)
# The modified Bessel functions of the first kind, and their exponentially scaled forms
# (i0e(x) = exp(-|x|) i0(x)): each derivative is made of the others, so every order has one.
defop("i0", _ufunc("i0"), grad=lambda g, x, xp: g * _sp(xp).i1(x), result="float")
defop("i0e", _ufunc("i0e"), inplace=False, result="float",
      doc="The exponentially scaled modified Bessel function of order 0, "
          "``exp(-|x|) * i0(x)``, of each element of ``x``.",
      grad=lambda g, x, xp: g * (_sp(xp).i1e(x) - xp.sign(x) * _sp(xp).i0e(x)))


def _i1_slope(xp, x, out, scaled):
    """d i1/dx = i0(x) - i1(x)/x; d i1e/dx = i0e(x) - i1e(x) (sign(x) + 1/x); 1/2 where |x| is
    not above the dtype's epsilon (the limit at 0; NaN included, as in PyTorch)."""
    sp = _sp(xp)
    eps = xp.finfo(x.dtype).eps
    tiny = ~(xp.abs(x) > eps)
    safe = xp.where(tiny, 1, x)   # no 1/0 in the branch not taken, nor in its gradient
    if scaled:
        d = sp.i0e(safe) - out * (xp.sign(safe) + 1 / safe)
    else:
        d = sp.i0(safe) - out / safe
    return xp.where(tiny, 0.5, d)


defop("i1", _ufunc("i1"), inplace=False, result="float",
      doc="The modified Bessel function of the first kind of order 1 of each element of ``x``.",
      grad=lambda g, x, out, xp: g * _i1_slope(xp, x, out, False))
defop("i1e", _ufunc("i1e"), inplace=False, result="float",
      doc="The exponentially scaled modified Bessel function of order 1, "
          "``exp(-|x|) * i1(x)``, of each element of ``x``.",
      grad=lambda g, x, out, xp: g * _i1_slope(xp, x, out, True))


def _sinc_grad(g, x, xp):
    # d/dx sin(pi x)/(pi x) = (cos(pi x) - sinc(x)) / x, which tends to 0 at x = 0
    safe = xp.where(x == 0, 1, x)
    return g * xp.where(x == 0, 0, (xp.cos(math.pi * x) - xp.sinc(x)) / safe)


defop("sinc", lambda xp, x, out=None: _put(out, xp.sinc(x), x), grad=_sinc_grad,
      result="float")


def _polygamma(xp, x, *, n, out=None):
    if int(n) != n or n < 0:
        raise ValueError(f"polygamma: the order n must be a non-negative integer, got {n}")
    return _put(out, _polygamma_of(xp, int(n), x), x)


defop("polygamma", _polygamma, grad=lambda g, x, n, xp: g * _polygamma_of(xp, int(n) + 1, x),
      result="float")


def polygamma(n, x=None, *, input=None, out=None, name=None):
    """The ``n``-th derivative of digamma at ``x`` (PyTorch's ``polygamma(n, x)``). A tensor in
    first place is Paddle's ``polygamma(x, n)``, refused here: that order is
    ``mutograd.compat.paddle.polygamma``, and the method ``x.polygamma(n)``.

    Example::

        >>> import mutograd as mg
        >>> round(mg.polygamma(1, mg.tensor([1.0])).item(), 4)      # pi ** 2 / 6
        1.6449
    """
    if isinstance(n, Tensor):
        raise paddle_order("polygamma(x, n)", "polygamma(n, x), or x.polygamma(n)",
                           "polygamma(x, n)")
    x = input if x is None else x
    if x is None:
        raise TypeError("polygamma() missing required argument 'x': polygamma(n, x)")
    return OPS["polygamma"].function(x, n, out=out)


def _multigammaln(xp, x, *, p, out=None):
    if int(p) != p or p < 1:
        raise ValueError(f"multigammaln: p must be a positive integer, got {p}")
    lim = (p - 1) / 2
    if (x <= lim).any():
        raise ValueError(f"multigammaln: all elements must be greater than (p-1)/2 = {lim}")
    return _put(out, _vec_multigammaln(xp, x, int(p)), x)


def _vec_multigammaln(xp, x, p):
    # sum_{i<p} lgamma(x - i/2) + p(p-1)/4 log(pi), the definition of scipy's multigammaln
    # (which takes one number at a time)
    r = p * (p - 1) / 4 * math.log(math.pi)
    for i in range(p):
        r = r + _sp(xp).gammaln(x - i / 2)
    return xp.asarray(r)


defop("multigammaln", _multigammaln, result="float",
      grad=lambda g, x, p, xp: g * sum(_sp(xp).digamma(x - i / 2) for i in range(int(p))))


def _logit(xp, x, eps=None, out=None):
    z = x if eps is None else xp.clip(x, eps, 1 - eps)
    return _put(out, _sp(xp).logit(z), x)


def _logit_grad(g, x, eps, xp):
    d = g / (x * (1 - x))
    if eps is None:
        return d
    return xp.where((x < eps) | (x > 1 - eps), 0, d)


defop("logit", _logit, grad=_logit_grad, result="float")


# x * log(y) is 0 where x == 0, but its x-gradient there is log(y), as PyTorch 2.13's is
defop("xlogy", lambda xp, x, y, out=None: _put(out, _sp(xp).xlogy(x, y), x), result="float",
      grad=(lambda g, y, xp: g * xp.log(y), lambda g, x, y: g * x / y))


def _no_shape_grad(name):
    def grad(g):
        raise BackwardError(
            f"the derivative of {name} with respect to its first argument (the shape parameter) "
            f"is not implemented; only the second argument can require grad")
    return grad


def _gammainc_grad_y(g, x, y, xp):
    # d P(a, y)/dy = y^(a-1) e^(-y) / Gamma(a), computed in log space
    return g * xp.exp((x - 1) * xp.log(y) - y - _sp(xp).gammaln(x))


defop("gammainc", lambda xp, x, y, out=None: _put(out, _sp(xp).gammainc(x, y), x),
      result="float", grad=(_no_shape_grad("gammainc"), _gammainc_grad_y))
defop("gammaincc", lambda xp, x, y, out=None: _put(out, _sp(xp).gammaincc(x, y), x),
      result="float",
      grad=(_no_shape_grad("gammaincc"), lambda g, x, y, xp: -_gammainc_grad_y(g, x, y, xp)))


# ---- PyTorch's torch.special functions beyond the above (scipy.special forwards) -------------
def _put_common(out, r, xp, *inputs):
    """``r`` in the dtype NumPy gives ``inputs`` (Python scalars weak), or written into ``out``:
    a float32 tensor and a float64 one give float64, a float32 tensor and a number float32."""
    if out is None:
        return r.astype(xp.result_type(*inputs), copy=False)
    out[...] = r
    return out


def _float_of(xp, *inputs):
    """The float dtype of the float arrays among ``inputs`` (an integer degree does not widen
    it: ``T_n(x)`` of a float32 ``x`` is float32, as in PyTorch)."""
    floats = [a.dtype for a in inputs if getattr(a, "dtype", None) is not None
              and a.dtype.kind == "f"]
    return xp.result_type(*floats)


def _airy_ai(xp, x, out=None):
    # Ai(x) < 1e-300 beyond x = 103.892: 0 there, where SciPy's gives NaN (PyTorch gives 0; NaN
    # at +inf, as both)
    return _put(out, xp.where(xp.isfinite(x) & (x > 103.892), 0, _sp(xp).airy(x)[0]), x)


def _spherical_bessel_j0(xp, x, out=None):
    # sin(x)/x, 1 at 0 and 0 at +-inf (where sin(x)/x is NaN)
    edge = (x == 0) | xp.isinf(x)
    safe = xp.where(edge, 1, x)
    r = xp.where(x == 0, 1, xp.where(edge, 0, xp.sin(safe) / safe))
    return _put(out, r, x)


# Bessel functions with no derivative in PyTorch: their results take no gradient (no node is
# recorded, so backward through them is PyTorch's "does not require grad" error)
for _name, _scipy_name, _doc in (
        ("airy_ai", None, "The Airy function Ai"),
        ("bessel_j0", "j0", "The Bessel function of the first kind of order 0"),
        ("bessel_j1", "j1", "The Bessel function of the first kind of order 1"),
        ("bessel_y0", "y0", "The Bessel function of the second kind of order 0"),
        ("bessel_y1", "y1", "The Bessel function of the second kind of order 1"),
        ("modified_bessel_k0", "k0", "The modified Bessel function of the second kind of "
                                     "order 0"),
        ("modified_bessel_k1", "k1", "The modified Bessel function of the second kind of "
                                     "order 1"),
        ("scaled_modified_bessel_k0", "k0e", "The exponentially scaled modified Bessel function "
                                             "of the second kind of order 0, ``exp(x) * k0(x)``"),
        ("scaled_modified_bessel_k1", "k1e", "The exponentially scaled modified Bessel function "
                                             "of the second kind of order 1, ``exp(x) * k1(x)``"),
        ("spherical_bessel_j0", None, "The spherical Bessel function of the first kind of "
                                      "order 0, ``sin(x) / x``")):
    _fwd = {"airy_ai": _airy_ai, "spherical_bessel_j0": _spherical_bessel_j0}.get(_name)
    defop(_name, _fwd or _ufunc(_scipy_name), inplace=False, result="float",
          doc=_doc + " of each element of ``x`` (no gradient, as in PyTorch).")

_SQRT_2PI = math.sqrt(2 * math.pi)


def _entr(xp, x, out=None):
    # -x log x, 0 at 0, -inf below 0 (SciPy's and PyTorch's definition)
    return _put(out, _sp(xp).entr(x), x)


defop("entr", _entr, inplace=False, result="float",
      doc="The entropy term ``-x * log(x)`` of each element of ``x`` (0 at 0, -inf below).",
      grad=lambda g, x, xp: -g * (1 + xp.log(x)))
# erfcx(x) = exp(x^2) erfc(x), so erfcx'(x) = 2 x erfcx(x) - 2 / sqrt(pi)
defop("erfcx", _ufunc("erfcx"), inplace=False, result="float",
      doc="The scaled complementary error function ``exp(x**2) * erfc(x)`` of each element.",
      grad=lambda g, x, out: g * (2 * x * out - 2 / _SQRT_PI))
defop("ndtr", _ufunc("ndtr"), inplace=False, result="float",
      doc="The standard normal distribution function of each element of ``x``.",
      grad=lambda g, x, xp: g * xp.exp(-0.5 * x * x) / _SQRT_2PI)
# d log Phi(x)/dx = phi(x) / Phi(x), taken as exp(-x^2/2 - log Phi(x)) so that the far left
# tail, where phi and Phi both underflow, stays finite
defop("log_ndtr", _ufunc("log_ndtr"), inplace=False, result="float",
      doc="The log of the standard normal distribution function of each element of ``x``.",
      grad=lambda g, x, out, xp: g * xp.exp(-0.5 * x * x - out) / _SQRT_2PI)
# the inverse's slope is 1 / phi(ndtri(x)): the output is enough
defop("ndtri", _ufunc("ndtri"), inplace=False, result="float",
      doc="The inverse of the standard normal distribution function of each element.",
      grad=lambda g, out, xp: g * _SQRT_2PI * xp.exp(0.5 * out * out))


defop("xlog1py", lambda xp, x, y, out=None: _put_common(out, _sp(xp).xlog1py(x, y), xp, x, y),
      inplace=False, result="float",
      doc="``x * log1p(y)``, 0 where ``x`` is 0 (unless ``y`` is NaN).",
      # log1p(y) also where x == 0, as xlogy's and PyTorch's
      grad=(lambda g, y, xp: g * xp.log1p(y), lambda g, x, y: g * x / (y + 1)))


def _no_exponent_grad(g):
    raise BackwardError("the derivative of zeta with respect to its first argument (the "
                        "exponent) is not implemented; only the second argument can require "
                        "grad")


defop("zeta", lambda xp, x, y, out=None: _put_common(out, _sp(xp).zeta(x, y), xp, x, y),
      inplace=False, result="float",
      doc="The Hurwitz zeta function ``sum over k >= 0 of (k + y) ** -x``, element-wise.",
      # d/dy sum (k + y)^-x = -x sum (k + y)^-(x+1)
      grad=(_no_exponent_grad, lambda g, x, y, xp: -g * x * _sp(xp).zeta(x + 1, y)))


# Note [Orthogonal polynomials of an integer degree]
#     PyTorch's polynomials p_n(x) take the degree as a tensor (or a number) broadcast with x,
#     truncated to an integer, and are 0 for a negative degree. Each is the three-term
#     recurrence p_(k+1) = step(k, x, p_k, p_(k-1)) from p_0 = 1 and p_1, run element-wise up to
#     the largest degree present in float64 (more accurate than the trigonometric forms PyTorch
#     switches to for large degrees, equal to them within rounding) and then cast to the float
#     dtype of x. The shifted Chebyshev polynomials are the plain ones at 2x - 1. They have no
#     derivative in PyTorch, and none here.
def _polynomial(first, step, shifted=False):
    def fwd(xp, x, n, out=None):
        dtype = _float_of(xp, x, n)
        t = xp.asarray(x, dtype=xp.float64)
        if shifted:
            t = 2 * t - 1
        deg = xp.asarray(n)
        deg = xp.where(xp.isnan(deg), -1, xp.trunc(deg)) if deg.dtype.kind == "f" else deg
        t, deg = xp.broadcast_arrays(t, deg.astype(xp.int64))
        p, q = xp.ones_like(t), first(t)
        r = xp.where(deg == 0, p, xp.where(deg == 1, q, 0.0))
        top = int(deg.max()) if deg.size else 0
        with _quiet(xp):
            for k in range(1, top):
                p, q = q, step(k, t, q, p)
                r = xp.where(deg == k + 1, q, r)
        if out is None:
            return r.astype(dtype)
        out[...] = r
        return out
    return fwd


def _quiet(xp):
    """Overflow to inf in a recurrence at large |x| is the value (PyTorch's too): no warning."""
    return xp.errstate(over="ignore", invalid="ignore") if xp is np else contextlib.nullcontext()


def _two_x(k, t, q, p):
    return 2 * t * q - p


_POLYNOMIALS = {   # name: (p_1(x), p_(k+1) from k, x, p_k, p_(k-1)), Note [Orthogonal ...]
    "chebyshev_polynomial_t": (lambda t: t, _two_x),
    "chebyshev_polynomial_u": (lambda t: 2 * t, _two_x),
    "chebyshev_polynomial_v": (lambda t: 2 * t - 1, _two_x),
    "chebyshev_polynomial_w": (lambda t: 2 * t + 1, _two_x),
    "hermite_polynomial_h": (lambda t: 2 * t, lambda k, t, q, p: 2 * t * q - 2 * k * p),
    "hermite_polynomial_he": (lambda t: t, lambda k, t, q, p: t * q - k * p),
    "laguerre_polynomial_l": (lambda t: 1 - t,
                              lambda k, t, q, p: ((2 * k + 1 - t) * q - k * p) / (k + 1)),
    "legendre_polynomial_p": (lambda t: t,
                              lambda k, t, q, p: ((2 * k + 1) * t * q - k * p) / (k + 1)),
}
_KINDS = {"t": "first", "u": "second", "v": "third", "w": "fourth"}
_POLYNOMIAL_DOCS = {
    "hermite_polynomial_h": "The physicists' Hermite polynomial H_n(x)",
    "hermite_polynomial_he": "The probabilists' Hermite polynomial He_n(x)",
    "laguerre_polynomial_l": "The Laguerre polynomial L_n(x)",
    "legendre_polynomial_p": "The Legendre polynomial P_n(x)",
    **{f"chebyshev_polynomial_{c}": f"The Chebyshev polynomial of the {k} kind {c.upper()}_n(x)"
       for c, k in _KINDS.items()},
    **{f"shifted_chebyshev_polynomial_{c}": f"The shifted Chebyshev polynomial of the {k} kind "
                                            f"{c.upper()}*_n(x) = {c.upper()}_n(2x - 1)"
       for c, k in _KINDS.items()},
}
for _name, (_first, _step) in list(_POLYNOMIALS.items()):
    for _shifted in (False, True) if _name.startswith("chebyshev") else (False,):
        _public_name = "shifted_" + _name if _shifted else _name
        defop(_public_name, _polynomial(_first, _step, _shifted), inplace=False, result="float",
              doc=_POLYNOMIAL_DOCS[_public_name] + " of integer degree ``n`` (truncated; 0 for "
                  "n < 0), element-wise with broadcasting; no gradient, as in PyTorch.")

# Public names that are aliases of the declarations above (both frameworks' spellings)
ALIASES = {"gammaln": "lgamma", "igamma": "gammainc", "igammac": "gammaincc",
           "mvlgamma": "multigammaln"}
FUNCTIONS = {"polygamma": polygamma}
# the method takes x as self, as in both frameworks: x.polygamma(n)
TENSOR_METHODS = {"polygamma": method(OPS["polygamma"].function)}
