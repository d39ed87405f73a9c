"""``standard_gamma(alpha)``: a Gamma(alpha, 1) sample that carries a gradient to ``alpha``,
the source of every reparameterised Gamma, Beta, Dirichlet, Chi2 and StudentT sample of
``mutograd.distributions``. Not public (``mutograd.ops.OPS["standard_gamma"].function``).

Note [Implicit reparameterisation of Gamma samples]
    A Gamma sample has no closed-form transform of parameter-free noise, but with its CDF
    ``F(x; alpha) = P(alpha, x)`` (the regularised lower incomplete gamma function) held fixed
    at the drawn ``u = F(x; alpha)``, differentiating ``F(x(alpha); alpha) = u`` gives

        dx/dalpha = -(dF/dalpha)(x; alpha) / f(x; alpha),
        f(x; alpha) = x^(alpha-1) e^-x / Gamma(alpha)

    (Figurnov et al., 2018). ``dF/dalpha`` has no elementary form; it is evaluated numerically,
    by a central difference in ``alpha`` of ``log P`` below the mode region (``x < alpha``) and
    of ``log Q = log(1 - P)`` above it, each step ``1e-5 * alpha`` in float64 (relative error
    about 1e-9), and the log form keeps the ratio finite in both tails:
    ``dF/dalpha / f = exp(log P - log f) * d log P / dalpha``. The slope is computed from the
    values, on the host's SciPy or the backend's special functions, and enters the gradient as a
    constant: the gradient is right to first order; under ``create_graph`` it is still
    differentiable in the incoming gradient but its derivative in ``alpha`` (a second-order
    term of the sample) is not formed.

    >>> import mutograd as mg
    >>> from mutograd.ops import OPS
    >>> _ = mg.seed(0)
    >>> alpha = mg.tensor([2.0, 5.0], requires_grad=True)
    >>> x = OPS["standard_gamma"].function(alpha)
    >>> x.sum().backward()
    >>> bool((alpha.grad > 0).all())
    True
"""
from ..autograd.graph_arrays import GraphArray, constant, graph_mode
from ..backends.special import module as _sp
from .registry import defop


def _draw(xp, x):
    from .. import random
    rng = random.generator(xp)
    drawn = rng.standard_gamma(x.astype(xp.float64))
    # a draw that underflows to 0 would have log-density -inf: keep it at the smallest normal
    tiny = xp.finfo(x.dtype).tiny if x.dtype.kind == "f" else xp.finfo(xp.float64).tiny
    return xp.maximum(drawn, tiny).astype(x.dtype if x.dtype.kind == "f" else xp.float64)


def gamma_sample_slope(xp, alpha, x):
    """d x / d alpha of a Gamma(alpha, 1) sample ``x`` at a fixed CDF value (Note [Implicit
    reparameterisation of Gamma samples]), as an array of ``alpha``'s dtype."""
    sp = _sp(xp)
    a = alpha.astype(xp.float64)
    v = x.astype(xp.float64)
    h = 1e-5 * a
    lower = v < a
    # log of the tail that is not close to 1, at alpha +- h
    def log_tail(b):
        return xp.where(lower, xp.log(sp.gammainc(b, v)), xp.log(sp.gammaincc(b, v)))
    slope_log = (log_tail(a + h) - log_tail(a - h)) / (2 * h)
    log_density = (a - 1) * xp.log(v) - v - sp.gammaln(a)
    ratio = xp.exp(log_tail(a) - log_density) * slope_log
    # dF/dalpha = P dlogP/dalpha = -Q dlogQ/dalpha
    slope = xp.where(lower, -ratio, ratio)
    return slope.astype(alpha.dtype)


def _grad(g, x, out, xp):
    if graph_mode(xp):   # the slope as a constant: first order in alpha only (see the Note)
        t = x.t if type(x) is GraphArray else x
        o = out.t if type(out) is GraphArray else out
        return g * GraphArray(constant(gamma_sample_slope(t._place.xp, t._data, o._data), t))
    return g * gamma_sample_slope(xp, x, out)


defop("standard_gamma", _draw, grad=_grad, inplace=False, method=False, result="float",
      doc="A Gamma(alpha, 1) sample of each element of ``alpha``, with the implicit "
          "reparameterisation gradient.",
      example=">>> import mutograd as mg\n"
              ">>> from mutograd.ops import OPS\n"
              ">>> x = OPS['standard_gamma'].function(mg.tensor([0.5, 2.0]))\n"
              ">>> bool((x > 0).all()), list(x.shape)\n"
              "(True, [2])\n")

__all__ = ["gamma_sample_slope"]
