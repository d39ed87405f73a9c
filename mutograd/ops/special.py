"""Special functions backed by ``scipy.special`` (``cupyx.scipy.special`` on a GPU, through
``backends.special.module``): one declaration each, never hand-written.

Saving follows the gradient's parameter names (Note [In-place saving] in registry.py): ``erfinv``
differentiates through its output and so runs in place without a copy; the others need the value
they overwrite and keep a copy of it when a gradient will be needed.

The public ``polygamma(n, x)`` takes PyTorch's order (the method ``x.polygamma(n)`` and
``polygamma_(x, n)`` take ``x`` first, as in both frameworks); Paddle's ``polygamma(x, n)`` is
``mutograd.compat.paddle.polygamma``.
"""
import math

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


def _xlogy_grad_x(g, x, y, xp):
    # x * log(y) is defined as 0 where x == 0, so the gradient there is 0 as well (PyTorch's
    # formula: xlogy of the mask)
    return g * _sp(xp).xlogy(x != 0, y)


defop("xlogy", lambda xp, x, y, out=None: _put(out, _sp(xp).xlogy(x, y), x), result="float",
      grad=(_xlogy_grad_x, lambda g, x, y: g * x / y))


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

# Public names that are aliases of the declarations above (both frameworks' spellings)
ALIASES = {"gammaln": "lgamma", "igamma": "gammainc", "igammac": "gammaincc",
           "mvlgamma": "multigammaln"}
FUNCTIONS = {"polygamma": polygamma}
# the method takes x as self, as in both frameworks: x.polygamma(n)
TENSOR_METHODS = {"polygamma": method(OPS["polygamma"].function)}
