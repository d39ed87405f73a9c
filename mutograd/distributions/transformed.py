"""Distributions defined as a simpler one pushed through transforms: Weibull, Pareto,
Kumaraswamy, InverseGamma (a power of an Exponential, Uniform or Gamma variable), LogisticNormal
(a normal vector onto the simplex), and the relaxed categoricals (Gumbel-softmax samples).
``rsample`` goes through the transforms, so gradients flow to the parameters; the moments and
entropies are their closed forms.

    >>> import mutograd as mg
    >>> from mutograd.distributions import Weibull
    >>> d = Weibull(mg.tensor(2.0), mg.tensor(1.0))   # concentration 1: Exponential(1 / 2)
    >>> round(d.log_prob(mg.tensor(1.0)).item(), 4)
    -1.1931
"""
import math

import mutograd as mg

from . import constraints
from .composite import _EULER_GAMMA, Relaxation, TransformedDistribution
from .continuous import Exponential, Normal, Uniform
from .distribution import Distribution
from .gamma import Gamma
from .transforms import AffineTransform, ExpTransform, PowerTransform, StickBreakingTransform
from .utils import clamp_probs, lazy_property, logits_to_probs, noise, probs_to_logits

__all__ = ["ExpRelaxedCategorical", "InverseGamma", "Kumaraswamy", "LogisticNormal", "Pareto",
           "RelaxedOneHotCategorical", "Weibull"]


def _inf_unless(mask, value):
    """``value`` where ``mask`` holds, ``inf`` elsewhere (a moment that does not exist)."""
    return mg.where(mask, value, mg.full_like(value, math.inf))


class Weibull(TransformedDistribution):
    """The Weibull distribution of ``scale`` and shape ``concentration``:
    ``scale * E ** (1 / concentration)`` for ``E`` a standard exponential variable."""
    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = self._params(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base = Exponential(mg.ones_like(self.scale), validate_args=validate_args)
        super().__init__(base, [PowerTransform(self.concentration_reciprocal),
                                AffineTransform(0, self.scale)], validate_args=validate_args)

    @property
    def mean(self):
        return self.scale * mg.exp(mg.lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self):
        k = self.concentration
        return self.scale * ((k - 1) / k).pow(self.concentration_reciprocal)

    @property
    def variance(self):
        r = self.concentration_reciprocal
        return self.scale.pow(2) * (mg.exp(mg.lgamma(1 + 2 * r)) -
                                    mg.exp(2 * mg.lgamma(1 + r)))

    def entropy(self):
        return _EULER_GAMMA * (1 - self.concentration_reciprocal) + \
            mg.log(self.scale * self.concentration_reciprocal) + 1


class Pareto(TransformedDistribution):
    """The Pareto distribution of minimum ``scale`` and tail index ``alpha``:
    ``scale * exp(E)`` for ``E`` exponential of rate ``alpha``."""
    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}
    has_rsample = True

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = self._params(scale, alpha)
        base = Exponential(self.alpha, validate_args=validate_args)
        super().__init__(base, [ExpTransform(), AffineTransform(0, self.scale)],
                         validate_args=validate_args)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.greater_than_eq(self.scale)

    @property
    def mean(self):
        a = self.alpha.clamp(min=1)   # inf at alpha <= 1
        return a * self.scale / (a - 1)

    @property
    def mode(self):
        return self.scale

    @property
    def variance(self):
        a = self.alpha.clamp(min=2)   # inf at alpha <= 2
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    def entropy(self):
        return mg.log(self.scale / self.alpha) + self.alpha.reciprocal() + 1


def _kumaraswamy_moment(a, b, n):
    """E[X^n] = b * B(1 + n / a, b)."""
    t = 1 + n / a
    return mg.exp(b.log() + mg.lgamma(t) + mg.lgamma(b) - mg.lgamma(t + b))


class Kumaraswamy(TransformedDistribution):
    """The Kumaraswamy distribution on (0, 1): density ``a b x^(a-1) (1 - x^a)^(b-1)`` for
    ``a = concentration1``, ``b = concentration0``; a sample is ``(1 - U^(1/b))^(1/a)`` for
    ``U`` uniform.

    Its ``mode`` is ``((a - 1) / (a b - 1))^(1/a)`` where ``a, b >= 1`` (NaN elsewhere).
    PyTorch 2.13 gives NaN wherever ``b > 1``, so the two differ there."""
    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = self._params(concentration1, concentration0)
        c1, c0 = self.concentration1, self.concentration0
        base = Uniform(mg.zeros_like(c0), mg.ones_like(c0), validate_args=validate_args)
        super().__init__(base, [PowerTransform(c0.reciprocal()), AffineTransform(1.0, -1.0),
                                PowerTransform(c1.reciprocal())], validate_args=validate_args)

    @property
    def mean(self):
        return _kumaraswamy_moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        a, b = self.concentration1, self.concentration0
        m = ((a - 1) / (a * b - 1)).pow(a.reciprocal())
        return mg.where((a < 1) | (b < 1) | ((a == 1) & (b == 1)), mg.full_like(m, math.nan), m)

    @property
    def variance(self):
        a, b = self.concentration1, self.concentration0
        return _kumaraswamy_moment(a, b, 2) - _kumaraswamy_moment(a, b, 1).pow(2)

    def entropy(self):
        a, b = self.concentration1, self.concentration0
        harmonic_b = mg.digamma(b + 1) + _EULER_GAMMA
        return (1 - b.reciprocal()) + (1 - a.reciprocal()) * harmonic_b - a.log() - b.log()


class InverseGamma(TransformedDistribution):
    """The distribution of ``1 / X`` for ``X`` Gamma of ``concentration`` and ``rate``."""
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base = Gamma(concentration, rate, validate_args=validate_args)
        super().__init__(base, PowerTransform(-mg.ones_like(base.rate)),
                         validate_args=validate_args)

    @property
    def concentration(self):
        return self.base_dist.concentration

    @property
    def rate(self):
        return self.base_dist.rate

    @property
    def mean(self):
        c = self.concentration
        return _inf_unless(c > 1, self.rate / (c - 1))

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        c = self.concentration
        return _inf_unless(c > 2, self.rate.pow(2) / ((c - 1).pow(2) * (c - 2)))

    def entropy(self):
        c = self.concentration
        return c + self.rate.log() + mg.lgamma(c) - (1 + c) * mg.digamma(c)


class LogisticNormal(TransformedDistribution):
    """A point of the K+1 simplex from a normal vector of length K (``loc``, ``scale``) by
    :class:`StickBreakingTransform`."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand([1])
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    @property
    def loc(self):
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.base_dist.scale


class ExpRelaxedCategorical(Distribution):
    """The logs of a relaxed one-hot sample: ``log_softmax((logits + Gumbel noise) /
    temperature)``, a point whose exponential lies on the simplex."""
    arg_constraints = {"probs": constraints.simplex,
                       "logits": constraints.independent(constraints.real, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        self.temperature = temperature
        if probs is not None:
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            self.logits = logits - logits.logsumexp(-1, keepdim=True)
        param = probs if logits is None else logits
        super().__init__(param.shape[:-1], param.shape[-1:], validate_args=validate_args)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        return self.logits.shape

    def rsample(self, sample_shape=()):
        logits = self.logits.expand(list(self._extended_shape(sample_shape)))
        u = clamp_probs(noise("random", logits.shape, logits))
        scores = (logits - mg.log(-u.log())) / self.temperature
        return scores - scores.logsumexp(-1, keepdim=True)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        k = self._event_shape[0]
        t = mg.as_tensor(self.temperature, dtype=self.logits.dtype)
        score = self.logits - value * t
        score = (score - score.logsumexp(-1, keepdim=True)).sum(-1)
        return score + math.lgamma(k) + (k - 1) * t.log()


class RelaxedOneHotCategorical(Relaxation):
    """A continuous relaxation on the simplex of OneHotCategorical at ``temperature``: the
    exponential of an :class:`ExpRelaxedCategorical` sample (Gumbel-softmax)."""
    arg_constraints = {"probs": constraints.simplex,
                       "logits": constraints.independent(constraints.real, 1)}
    support = constraints.simplex
    relaxed = ExpRelaxedCategorical
    transform = ExpTransform

