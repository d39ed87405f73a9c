"""The Gamma family and the distributions drawn from Gamma samples: Gamma, Chi2, Beta,
Dirichlet, StudentT, FisherSnedecor. Their ``rsample`` goes through ``standard_gamma``, whose
gradient to the concentration is the implicit reparameterisation one (Note [Implicit
reparameterisation of Gamma samples] in mutograd/ops/standard_gamma.py); a Beta or Dirichlet
sample is a normalised vector of Gamma samples, so its gradient is that of the normalisation.

    >>> import mutograd as mg
    >>> from mutograd.distributions import Gamma
    >>> Gamma(mg.tensor(2.0), mg.tensor(4.0)).mean.item()
    0.5
"""
import math
import numbers

import mutograd as mg

from ..ops import OPS
from . import constraints
from .distribution import Distribution, ExponentialFamily
from .continuous import Normal
from .utils import tiny

__all__ = ["Beta", "Chi2", "Dirichlet", "FisherSnedecor", "Gamma", "StudentT"]


def standard_gamma(concentration):
    """Gamma(concentration, 1) samples with the implicit reparameterisation gradient."""
    return OPS["standard_gamma"].function(concentration)


class Gamma(ExponentialFamily):
    """The Gamma distribution of shape ``concentration`` and inverse scale ``rate``."""
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = self._params(concentration, rate)
        scalar = isinstance(concentration, numbers.Number) and isinstance(rate, numbers.Number)
        super().__init__(() if scalar else self.concentration.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=()):
        shape = list(self._extended_shape(sample_shape))
        value = standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        return value.clamp(min=tiny(value))   # a zero draw would have log-density -inf

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        c, r = self.concentration, self.rate
        return mg.xlogy(c, r) + mg.xlogy(c - 1, value) - r * value - mg.lgamma(c)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return mg.gammainc(self.concentration, self.rate * value)

    def entropy(self):
        c = self.concentration
        return c - self.rate.log() + mg.lgamma(c) + (1.0 - c) * mg.digamma(c)

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return mg.lgamma(x + 1) + (x + 1) * mg.log(-y.reciprocal())


class Chi2(Gamma):
    """The chi-squared distribution of ``df`` degrees of freedom: Gamma(df / 2, 1 / 2)."""
    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        (df,) = self._params(df)
        super().__init__(0.5 * df, mg.full_like(df, 0.5), validate_args=validate_args)

    @property
    def df(self):
        return self.concentration * 2


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution over the simplex of the last dimension of
    ``concentration``."""
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, validate_args=None):
        if concentration.ndim < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:],
                         validate_args=validate_args)

    def rsample(self, sample_shape=()):
        shape = list(self._extended_shape(sample_shape))
        g = standard_gamma(self.concentration.expand(shape))
        return (g / g.sum(-1, keepdim=True)).clamp(min=tiny(g))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return mg.xlogy(c - 1.0, value).sum(-1) + mg.lgamma(c.sum(-1)) - mg.lgamma(c).sum(-1)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self):
        above = (self.concentration - 1).clamp(min=0)
        mode = above / above.sum(-1, keepdim=True)
        # every concentration below 1: PyTorch puts the mode at the first vertex
        all_below = (self.concentration < 1).all(-1, keepdim=True)
        first = mg.zeros_like(mode)
        first[..., 0] = 1
        return mg.where(all_below, first, mode)

    @property
    def variance(self):
        c0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (c0 - self.concentration) / (c0.pow(2) * (c0 + 1))

    def entropy(self):
        c = self.concentration
        k = c.shape[-1]
        a0 = c.sum(-1)
        return mg.lgamma(c).sum(-1) - mg.lgamma(a0) - (k - a0) * mg.digamma(a0) - \
            ((c - 1.0) * mg.digamma(c)).sum(-1)

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return mg.lgamma(x).sum(-1) - mg.lgamma(x.sum(-1))


class Beta(ExponentialFamily):
    """The Beta distribution on [0, 1] of ``concentration1`` (alpha) and ``concentration0``
    (beta): the first coordinate of a two-coordinate Dirichlet."""
    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration1, concentration0, validate_args=None):
        c1, c0 = self._params(concentration1, concentration0)
        self._dirichlet = Dirichlet(mg.stack([c1, c0], -1), validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    @property
    def concentration1(self):
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape)[..., 0]

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._dirichlet.log_prob(mg.stack([value, 1.0 - value], -1))

    def entropy(self):
        return self._dirichlet.entropy()

    @property
    def _natural_params(self):
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x, y):
        return mg.lgamma(x) + mg.lgamma(y) - mg.lgamma(x + y)


class StudentT(Distribution):
    """Student's t distribution of ``df`` degrees of freedom, moved by ``loc`` and scaled by
    ``scale``."""
    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = self._params(df, loc, scale)
        self._chi2 = Chi2(self.df, validate_args=False)
        scalar = all(isinstance(v, numbers.Number) for v in (df, loc, scale))
        super().__init__(() if scalar else self.df.shape, validate_args=validate_args)

    @property
    def mean(self):
        return mg.where(self.df > 1, self.loc, mg.full_like(self.loc, math.nan))

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        df = self.df
        finite = self.scale.pow(2) * df / (df - 2).clamp(min=1e-30)
        return mg.where(df > 2, finite, mg.where(df > 1, mg.full_like(df, math.inf),
                                                 mg.full_like(df, math.nan)))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        x = Normal(mg.zeros_like(self.loc), mg.ones_like(self.scale)).rsample(sample_shape)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * x * mg.rsqrt(z / self.df).reshape(list(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        z = self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi) + \
            mg.lgamma(0.5 * self.df) - mg.lgamma(0.5 * (self.df + 1.0))
        return -0.5 * (self.df + 1.0) * mg.log1p(y.pow(2) / self.df) - z

    def entropy(self):
        df = self.df
        lbeta = mg.lgamma(0.5 * df) + math.lgamma(0.5) - mg.lgamma(0.5 * (df + 1))
        return self.scale.log() + 0.5 * (df + 1) * (mg.digamma(0.5 * (df + 1)) -
                                                     mg.digamma(0.5 * df)) + \
            0.5 * df.log() + lbeta


class FisherSnedecor(Distribution):
    """The F distribution of ``df1`` and ``df2`` degrees of freedom: the ratio of two
    independent chi-squared variables each divided by its degrees of freedom. Its mean exists
    for df2 > 2, its mode for df1 > 2 and its variance for df2 > 4 (NaN otherwise); no
    entropy (as in PyTorch)."""
    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = self._params(df1, df2)
        # Gamma(d / 2, rate d / 2) is chi-squared(d) / d
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1 * 0.5, validate_args=False)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2 * 0.5, validate_args=False)
        scalar = isinstance(df1, numbers.Number) and isinstance(df2, numbers.Number)
        super().__init__(() if scalar else self.df1.shape, validate_args=validate_args)

    @property
    def mean(self):
        d2 = self.df2
        return mg.where(d2 > 2, d2 / (d2 - 2).clamp(min=1e-30), mg.full_like(d2, math.nan))

    @property
    def mode(self):
        d1, d2 = self.df1, self.df2
        m = (d1 - 2) / d1 * d2 / (d2 + 2)
        return mg.where(d1 > 2, m, mg.full_like(m, math.nan))

    @property
    def variance(self):
        d1, d2 = self.df1, self.df2
        v = 2 * d2.pow(2) * (d1 + d2 - 2) / (d1 * (d2 - 2).pow(2) * (d2 - 4).clamp(min=1e-30))
        return mg.where(d2 > 4, v, mg.full_like(v, math.nan))

    def rsample(self, sample_shape=()):
        ratio = self._gamma1.rsample(sample_shape) / self._gamma2.rsample(sample_shape)
        return ratio.clamp(min=tiny(ratio))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        h1, h2 = self.df1 * 0.5, self.df2 * 0.5
        ratio = self.df1 / self.df2
        return mg.lgamma(h1 + h2) - mg.lgamma(h1) - mg.lgamma(h2) + h1 * ratio.log() + \
            (h1 - 1) * value.log() - (h1 + h2) * mg.log1p(ratio * value)
