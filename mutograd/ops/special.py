"""Special functions backed by ``scipy.special``: one declaration each, never hand-written.

Saving follows the gradient's parameter names (Note [In-place saving] in registry.py): ``erfinv``
differentiates through its output and so runs in place without a copy; the others need the value
they overwrite and keep a copy of it when a gradient will be needed.
"""
import math

import scipy.special as sc

from ..errors import BackwardError
from .registry import defop

_SQRT_PI = math.sqrt(math.pi)


def _ufunc(f):
    """A forward ``(xp, x, out=None)`` from a SciPy ufunc (computed, then written into ``out``)."""
    def fwd(xp, x, out=None):
        return _put(out, f(x), x)
    return fwd


def _put(out, r, x):
    """``r`` as the result (float inputs keep their dtype), or written into ``out``."""
    if out is None:
        return r.astype(x.dtype, copy=False) if getattr(x, "dtype", None) is not None and \
            x.dtype.kind == "f" else r
    out[...] = r
    return out


defop("digamma", _ufunc(sc.digamma), grad=lambda g, x: g * sc.polygamma(1, x), result="float")
defop("lgamma", _ufunc(sc.gammaln), grad=lambda g, x: g * sc.digamma(x), result="float")
defop("erf", _ufunc(sc.erf), result="float",
      grad=lambda g, x, xp: g * (2 / _SQRT_PI) * xp.exp(-x * x))
defop("erfc", _ufunc(sc.erfc), result="float",
      grad=lambda g, x, xp: g * (-2 / _SQRT_PI) * xp.exp(-x * x))
# d erfinv(x)/dx = sqrt(pi)/2 * exp(erfinv(x)^2): the output is enough, no copy in place
defop("erfinv", _ufunc(sc.erfinv), result="float",
      grad=lambda g, out, xp: g * (_SQRT_PI / 2) * xp.exp(out * out))
defop("i0", _ufunc(sc.i0), grad=lambda g, x: g * sc.i1(x), result="float")


def _sinc_grad(g, x, xp):
    # d/dx sin(pi x)/(pi x) = (cos(pi x) - sinc(x)) / x, which tends to 0 at x = 0
    safe = xp.where(x == 0, 1, x)
    return g * xp.where(x == 0, 0, (xp.cos(math.pi * x) - xp.sinc(x)) / safe)


defop("sinc", lambda xp, x, out=None: _put(out, xp.sinc(x), x), grad=_sinc_grad,
      result="float")


def _polygamma(xp, x, *, n, out=None):
    if int(n) != n or n < 0:
        raise ValueError(f"polygamma: the order n must be a non-negative integer, got {n}")
    return _put(out, sc.polygamma(int(n), x), x)


defop("polygamma", _polygamma, grad=lambda g, x, n: g * sc.polygamma(int(n) + 1, x),
      result="float")


def _multigammaln(xp, x, *, p, out=None):
    if int(p) != p or p < 1:
        raise ValueError(f"multigammaln: p must be a positive integer, got {p}")
    lim = (p - 1) / 2
    if (x <= lim).any():
        raise ValueError(f"multigammaln: all elements must be greater than (p-1)/2 = {lim}")
    return _put(out, sc.multigammaln(x, int(p)) if x.ndim == 0 else
                _vec_multigammaln(xp, x, int(p)), x)


def _vec_multigammaln(xp, x, p):
    # sum_{i<p} lgamma(x - i/2) + p(p-1)/4 log(pi); scipy's multigammaln takes scalars only
    r = p * (p - 1) / 4 * math.log(math.pi)
    for i in range(p):
        r = r + sc.gammaln(x - i / 2)
    return xp.asarray(r)


defop("multigammaln", _multigammaln, result="float",
      grad=lambda g, x, p: g * sum(sc.digamma(x - i / 2) for i in range(int(p))))


def _logit(xp, x, eps=None, out=None):
    z = x if eps is None else xp.clip(x, eps, 1 - eps)
    return _put(out, sc.logit(z), x)


def _logit_grad(g, x, eps, xp):
    d = g / (x * (1 - x))
    if eps is None:
        return d
    return xp.where((x < eps) | (x > 1 - eps), 0, d)


defop("logit", _logit, grad=_logit_grad, result="float")


def _xlogy_grad_x(g, x, y, xp):
    # x * log(y) is defined as 0 where x == 0, so the gradient there is 0 as well
    return g * xp.where(x == 0, 0, sc.xlogy(1, y))


defop("xlogy", lambda xp, x, y, out=None: _put(out, sc.xlogy(x, y), x), result="float",
      grad=(_xlogy_grad_x, lambda g, x, y: g * x / y))


def _no_shape_grad(name):
    def grad(g):
        raise BackwardError(
            f"the derivative of {name} with respect to its first argument (the shape parameter) "
            f"is not implemented; only the second argument can require grad")
    return grad


def _gammainc_grad_y(g, x, y, xp):
    # d P(a, y)/dy = y^(a-1) e^(-y) / Gamma(a), computed in log space
    return g * xp.exp((x - 1) * xp.log(y) - y - sc.gammaln(x))


defop("gammainc", lambda xp, x, y, out=None: _put(out, sc.gammainc(x, y), x), result="float",
      grad=(_no_shape_grad("gammainc"), _gammainc_grad_y))
defop("gammaincc", lambda xp, x, y, out=None: _put(out, sc.gammaincc(x, y), x),
      result="float",
      grad=(_no_shape_grad("gammaincc"), lambda g, x, y, xp: -_gammainc_grad_y(g, x, y, xp)))

# Public names that are aliases of the declarations above (both frameworks' spellings)
ALIASES = {"gammaln": "lgamma", "igamma": "gammainc", "igammac": "gammaincc",
           "mvlgamma": "multigammaln"}
