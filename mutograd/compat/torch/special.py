"""``torch.special``: PyTorch's special functions with its signatures, over the main namespace's
ops (``mutograd/ops/special.py``: SciPy's forwards, and a gradient wherever PyTorch has one).

``out=`` is taken by the namespace (Note [Writing into out=] in
mutograd/autograd/out_arguments.py); the functions here only name it in their signatures.

    >>> import mutograd.compat.torch as torch
    >>> torch.special.expit(torch.tensor([0.0]))
    tensor([0.5000])
    >>> torch.special.xlog1py(torch.tensor([0.0, 2.0]), torch.tensor([5.0, 0.0]))
    tensor([0., 0.])
    >>> torch.special.chebyshev_polynomial_t(torch.tensor([0.5]), 3)
    tensor([-1.])
    >>> torch.special.zeta(torch.tensor([2.0]), 1).item() - torch.pi ** 2 / 6 < 1e-6
    True
"""
import mutograd as _mg

from .tensor import Tensor  # noqa: F401  (torch.special.Tensor is torch.Tensor)

__all__ = []


def _unary(name, fn, summary):
    """The function ``name(input, *, out=None)``: ``fn`` of each element of ``input``."""
    def special(input, *, out=None):
        return fn(input)
    special.__name__ = special.__qualname__ = name
    special.__doc__ = summary
    __all__.append(name)
    return special


def _binary(name, fn, summary, second="other"):
    """The function ``name(input, <second>, *, out=None)``: ``fn`` element-wise."""
    if second == "other":
        def special(input, other, *, out=None):
            return fn(input, other)
    else:   # a polynomial's integer degree
        def special(input, n, *, out=None):
            return fn(input, n)
    special.__name__ = special.__qualname__ = name
    special.__doc__ = summary
    __all__.append(name)
    return special


_UNARY = {   # torch.special name: (main-namespace function, summary)
    "airy_ai": (_mg.airy_ai, "The Airy function Ai of each element (no gradient)."),
    "bessel_j0": (_mg.bessel_j0, "The Bessel function J0 of each element (no gradient)."),
    "bessel_j1": (_mg.bessel_j1, "The Bessel function J1 of each element (no gradient)."),
    "bessel_y0": (_mg.bessel_y0, "The Bessel function Y0 of each element (no gradient)."),
    "bessel_y1": (_mg.bessel_y1, "The Bessel function Y1 of each element (no gradient)."),
    "digamma": (_mg.digamma, "The logarithmic derivative of the gamma function."),
    "psi": (_mg.digamma, "The logarithmic derivative of the gamma function (digamma)."),
    "entr": (_mg.entr, "``-x * log(x)`` of each element (0 at 0, -inf below 0)."),
    "erf": (_mg.erf, "The error function of each element."),
    "erfc": (_mg.erfc, "The complementary error function ``1 - erf(x)``."),
    "erfcx": (_mg.erfcx, "The scaled complementary error function ``exp(x**2) * erfc(x)``."),
    "erfinv": (_mg.erfinv, "The inverse of the error function."),
    "exp2": (_mg.exp2, "``2 ** x`` of each element."),
    "expit": (_mg.sigmoid, "The logistic sigmoid ``1 / (1 + exp(-x))`` of each element."),
    "expm1": (_mg.expm1, "``exp(x) - 1``, accurate for small ``x``."),
    "gammaln": (_mg.lgamma, "The log of the absolute value of the gamma function."),
    "i0": (_mg.i0, "The modified Bessel function of the first kind of order 0."),
    "i0e": (_mg.i0e, "The exponentially scaled modified Bessel function ``exp(-|x|) i0(x)``."),
    "i1": (_mg.i1, "The modified Bessel function of the first kind of order 1."),
    "i1e": (_mg.i1e, "The exponentially scaled modified Bessel function ``exp(-|x|) i1(x)``."),
    # the same functions as i0 and i1; here with their gradient, which PyTorch's lack
    "modified_bessel_i0": (_mg.i0, "The modified Bessel function I0 (``i0``)."),
    "modified_bessel_i1": (_mg.i1, "The modified Bessel function I1 (``i1``)."),
    "modified_bessel_k0": (_mg.modified_bessel_k0,
                           "The modified Bessel function K0 of each element (no gradient)."),
    "modified_bessel_k1": (_mg.modified_bessel_k1,
                           "The modified Bessel function K1 of each element (no gradient)."),
    "scaled_modified_bessel_k0": (_mg.scaled_modified_bessel_k0,
                                  "``exp(x) * K0(x)`` of each element (no gradient)."),
    "scaled_modified_bessel_k1": (_mg.scaled_modified_bessel_k1,
                                  "``exp(x) * K1(x)`` of each element (no gradient)."),
    "spherical_bessel_j0": (_mg.spherical_bessel_j0,
                            "The spherical Bessel function j0, ``sin(x) / x`` (no gradient)."),
    "log1p": (_mg.log1p, "``log(1 + x)``, accurate for small ``x``."),
    "log_ndtr": (_mg.log_ndtr, "The log of the standard normal distribution function."),
    "ndtr": (_mg.ndtr, "The standard normal distribution function."),
    "ndtri": (_mg.ndtri, "The inverse of the standard normal distribution function."),
    "sinc": (_mg.sinc, "The normalized sinc ``sin(pi x) / (pi x)``, 1 at 0."),
}
_BINARY = {
    "gammainc": (_mg.gammainc, "The regularized lower incomplete gamma function P(input, "
                               "other); no gradient with respect to ``input``."),
    "gammaincc": (_mg.gammaincc, "The regularized upper incomplete gamma function Q(input, "
                                 "other); no gradient with respect to ``input``."),
    "xlog1py": (_mg.xlog1py, "``input * log1p(other)``, 0 where ``input`` is 0."),
    "xlogy": (_mg.xlogy, "``input * log(other)``, 0 where ``input`` is 0."),
    "zeta": (_mg.zeta, "The Hurwitz zeta function of exponent ``input`` at ``other``; no "
                       "gradient with respect to ``input``."),
}
_POLYNOMIALS = (   # (input, n): Note [Orthogonal polynomials of an integer degree]
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
    "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
    "laguerre_polynomial_l", "legendre_polynomial_p")

globals().update({n: _unary(n, f, doc) for n, (f, doc) in _UNARY.items()})
globals().update({n: _binary(n, f, doc) for n, (f, doc) in _BINARY.items()})
globals().update({n: _binary(n, getattr(_mg, n), getattr(_mg, n).__doc__.split("\n")[0],
                             second="n") for n in _POLYNOMIALS})


def round(input, *, decimals=0, out=None):  # noqa: A001 (PyTorch's name)
    """Each element rounded half to even, to ``decimals`` decimal places."""
    return _mg.round(input, decimals)


def logit(input, eps=None, *, out=None):
    """``log(p / (1 - p))``, with ``input`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given."""
    return _mg.logit(input, eps)


def logsumexp(input, dim, keepdim=False, *, out=None):
    """``log(sum(exp(input)))`` over ``dim``, computed without overflow."""
    return _mg.logsumexp(input, dim, keepdim)


def multigammaln(input, p, *, out=None):
    """The log of the multivariate gamma function of dimension ``p``."""
    return _mg.multigammaln(input, p)


def polygamma(n, input, *, out=None):
    """The ``n``-th derivative of digamma at ``input``."""
    return _mg.polygamma(n, input)


def softmax(input, dim, *, dtype=None):
    """``exp(input)`` normalized to sum to 1 over ``dim`` (computed in ``dtype`` if given)."""
    return _mg.softmax(input, dim, dtype)


def log_softmax(input, dim, *, dtype=None):
    """The log of ``softmax(input, dim)``, computed without overflow."""
    return _mg.log_softmax(input, dim, dtype)


__all__ += ["round", "logit", "logsumexp", "multigammaln", "polygamma", "softmax",
            "log_softmax"]
