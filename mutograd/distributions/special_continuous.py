"""Continuous distributions whose normaliser or support needs care: ContinuousBernoulli (a
normaliser with a removable singularity at 1/2), VonMises (angles; a Bessel function normaliser)
and GeneralizedPareto (a support that depends on the sign of its shape).

    >>> import mutograd as mg
    >>> from mutograd.distributions import ContinuousBernoulli
    >>> ContinuousBernoulli(mg.tensor(0.5)).log_prob(mg.tensor(0.3)).item()
    0.0
"""
import math
import numbers

import mutograd as mg

from . import constraints
from .distribution import Distribution, ExponentialFamily
from .utils import clamp_probs, lazy_property, logits_to_probs, noise, probs_to_logits

__all__ = ["ContinuousBernoulli", "GeneralizedPareto", "VonMises"]


class ContinuousBernoulli(ExponentialFamily):
    """The continuous Bernoulli distribution on [0, 1] of ``probs`` (or ``logits``): density
    ``C(p) p^x (1 - p)^(1 - x)``. Inside ``lims`` around p = 1/2, where the closed forms
    divide by ~0, the normaliser and the moments use their Taylor expansions at 1/2."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        given = probs if logits is None else logits
        (value,) = self._params(given)
        self.__dict__["probs" if logits is None else "logits"] = value
        self._lims = lims
        super().__init__(() if isinstance(given, numbers.Number) else value.shape,
                         validate_args=validate_args)
        if logits is None:   # checked as given, then kept off 0 and 1 so its logs stay finite
            self.probs = clamp_probs(value)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def _param(self):
        return self.__dict__.get("probs", self.__dict__.get("logits"))

    @property
    def param_shape(self):
        return self._param.shape

    def _stable(self):
        """Where the closed forms are used: probs outside ``lims``."""
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        """``probs`` where stable, a stable stand-in elsewhere (so both branches of a
        ``where`` stay finite, and so do their gradients)."""
        return mg.where(self._stable(), self.probs, mg.full_like(self.probs, self._lims[0]))

    def _log_normalizer_of_probs(self):
        p = self._cut_probs()
        # C(p) = 2 atanh(1 - 2p) / (1 - 2p), written with logs of p and 1 - p
        below = mg.where(p <= 0.5, p, mg.zeros_like(p))
        above = mg.where(p >= 0.5, p, mg.ones_like(p))
        exact = mg.log((mg.log1p(-p) - p.log()).abs()) - mg.where(
            p <= 0.5, mg.log1p(-2.0 * below), mg.log(2.0 * above - 1.0))
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return mg.where(self._stable(), exact, taylor)

    @property
    def mean(self):
        p = self._cut_probs()
        exact = p / (2.0 * p - 1.0) + 1.0 / (mg.log1p(-p) - p.log())
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return mg.where(self._stable(), exact, taylor)

    @property
    def stddev(self):
        return self.variance.sqrt()

    @property
    def variance(self):
        p = self._cut_probs()
        exact = p * (p - 1.0) / (1.0 - 2.0 * p).pow(2) + \
            1.0 / (mg.log1p(-p) - p.log()).pow(2)
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return mg.where(self._stable(), exact, taylor)

    def rsample(self, sample_shape=()):
        u = noise("random", self._extended_shape(sample_shape), self.probs)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = self.logits, value.astype(self.logits.dtype)
        return value * logits - mg.softplus(logits) + self._log_normalizer_of_probs()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        p = self._cut_probs()
        exact = (p.pow(value) * (1.0 - p).pow(1.0 - value) + p - 1.0) / (2.0 * p - 1.0)
        inside = mg.where(self._stable(), exact, value)
        return mg.where(value <= 0.0, mg.zeros_like(inside),
                        mg.where(value >= 1.0, mg.ones_like(inside), inside))

    def icdf(self, value):
        p = self._cut_probs()
        exact = (mg.log1p(-p + value * (2.0 * p - 1.0)) - mg.log1p(-p)) / \
            (p.log() - mg.log1p(-p))
        return mg.where(self._stable(), exact, value)

    def entropy(self):
        log_q, log_p = mg.log1p(-self.probs), self.probs.log()
        return self.mean * (log_q - log_p) - self._log_normalizer_of_probs() - log_q

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        # log of (e^x - 1) / x, by its Taylor expansion near 0
        stable = (x.abs() > 1e-2)
        xs = mg.where(stable, x, mg.ones_like(x))
        exact = mg.log((mg.expm1(xs) / xs).abs())
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return mg.where(stable, exact, taylor)


class VonMises(Distribution):
    """The von Mises distribution of angles, centred at ``loc`` with ``concentration``:
    density ``exp(concentration cos(x - loc)) / (2 pi I0(concentration))``. Draws come from
    the generator's von Mises sampler; there is no ``rsample`` and no entropy (as in
    PyTorch)."""
    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = self._params(loc, concentration)
        scalar = isinstance(loc, numbers.Number) and isinstance(concentration, numbers.Number)
        super().__init__(() if scalar else self.loc.shape, validate_args=validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        k = self.concentration
        # log I0(k) = log i0e(k) + k, so subtract k inside the cosine term
        return k * (mg.cos(value - self.loc) - 1) - math.log(2 * math.pi) - mg.i0e(k).log()

    def sample(self, sample_shape=()):
        shape = list(self._extended_shape(sample_shape))
        with mg.no_grad():
            return noise("vonmises", shape, self.loc, self.loc.expand(shape),
                         self.concentration.expand(shape))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        """The circular variance ``1 - I1(k) / I0(k)``."""
        k = self.concentration
        return 1 - mg.i1e(k) / mg.i0e(k)


class GeneralizedPareto(Distribution):
    """The generalized Pareto distribution of ``loc``, ``scale`` and shape ``concentration``
    (xi): ``cdf = 1 - (1 + xi z)^(-1/xi)`` for ``z = (x - loc) / scale`` (``1 - exp(-z)`` at
    xi = 0). Its support is ``[loc, inf)`` for xi >= 0 and ``[loc, loc - scale / xi]`` for
    xi < 0; its mean exists for xi < 1 and its variance for xi < 1/2 (NaN otherwise)."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = self._params(loc, scale, concentration)
        scalar = all(isinstance(v, numbers.Number) for v in (loc, scale, concentration))
        super().__init__(() if scalar else self.loc.shape, validate_args=validate_args)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        xi = self.concentration
        upper = mg.where(xi < 0, self.loc - self.scale / xi.clamp(max=-1e-300),
                         mg.full_like(self.loc, math.inf))
        return constraints.interval(self.loc, upper)

    def _nonzero_xi(self):
        """(where xi is taken as 0, xi with 1 there): near 0 the xi = 0 forms are used, as in
        PyTorch (``isclose`` to 0)."""
        xi = self.concentration
        zero = mg.isclose(xi, mg.zeros_like(xi))
        return zero, mg.where(zero, mg.ones_like(xi), xi)

    def rsample(self, sample_shape=()):
        u = noise("random", self._extended_shape(sample_shape), self.loc)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        zero, xi = self._nonzero_xi()
        general = -(1 / xi + 1) * mg.log1p(xi * z)
        return mg.where(zero, -z, general) - self.scale.log()

    def log_survival_function(self, value):
        z = (value - self.loc) / self.scale
        zero, xi = self._nonzero_xi()
        return mg.where(zero, -z, -mg.log1p(xi * z) / xi)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -mg.expm1(self.log_survival_function(value))

    def icdf(self, value):
        zero, xi = self._nonzero_xi()
        log_survival = mg.log1p(-value)
        z = mg.where(zero, -log_survival, mg.expm1(-xi * log_survival) / xi)
        return self.loc + self.scale * z

    @property
    def mean(self):
        xi = self.concentration
        m = self.loc + self.scale / (1 - xi)
        return mg.where(xi < 1, m, mg.full_like(m, math.nan))

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        xi = self.concentration
        v = self.scale.pow(2) / ((1 - xi).pow(2) * (1 - 2 * xi))
        return mg.where(xi < 0.5, v, mg.full_like(v, math.nan))

    def entropy(self):
        return self.scale.log() + self.concentration + 1
