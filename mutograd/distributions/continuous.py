"""Location-scale and simple continuous distributions: Normal, Laplace, Cauchy, Uniform,
Exponential. Each ``rsample`` moves parameter-free noise by the parameters, so gradients flow
to them.

    >>> import mutograd as mg
    >>> from mutograd.distributions import Normal
    >>> loc = mg.tensor(0.0, requires_grad=True)
    >>> Normal(loc, 2.0).log_prob(mg.tensor(1.0)).backward()
    >>> round(loc.grad.item(), 4)
    0.25
"""
import math
import numbers

import mutograd as mg

from . import constraints
from .distribution import Distribution, ExponentialFamily
from .utils import eps, noise

__all__ = ["Cauchy", "Exponential", "Laplace", "Normal", "Uniform"]

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


class _LocScale(Distribution):
    """A distribution of ``loc + scale * z`` for a standard variable ``z``."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = self._params(loc, scale)
        scalar = isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number)
        super().__init__(() if scalar else self.loc.shape, validate_args=validate_args)

    def _check(self, value):
        if self._validate_args:
            self._validate_sample(value)

    def rsample(self, sample_shape=()):
        return self.loc + self.scale * self._standard(self._extended_shape(sample_shape))


class Normal(_LocScale, ExponentialFamily):
    """The normal distribution of mean ``loc`` and standard deviation ``scale``.

        >>> import mutograd as mg
        >>> from mutograd.distributions import Normal
        >>> round(Normal(0.0, 1.0).cdf(mg.tensor(0.0)).item(), 3)
        0.5
    """

    def _standard(self, shape):
        return noise("standard_normal", shape, self.loc)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.scale.pow(2)

    def log_prob(self, value):
        self._check(value)
        return -((value - self.loc) ** 2) / (2 * self.scale ** 2) - self.scale.log() - \
            _LOG_SQRT_2PI

    def cdf(self, value):
        self._check(value)
        return 0.5 * (1 + mg.erf((value - self.loc) / (self.scale * math.sqrt(2))))

    def icdf(self, value):
        return self.loc + self.scale * mg.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + _LOG_SQRT_2PI + self.scale.log()

    @property
    def _natural_params(self):
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * mg.log(-math.pi / y)

    @property
    def _mean_carrier_measure(self):
        return 0


class Laplace(_LocScale):
    """The Laplace distribution: density ``exp(-|x - loc| / scale) / (2 scale)``."""

    def _standard(self, shape):
        # u uniform on (-1, 1) without its ends: z = -sign(u) log(1 - |u|)
        u = noise("uniform", shape, self.loc, -1.0 + eps(self.loc), 1.0)
        return -u.sign() * mg.log1p(-u.abs())

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return math.sqrt(2) * self.scale

    def log_prob(self, value):
        self._check(value)
        return -mg.log(2 * self.scale) - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        self._check(value)
        z = (value - self.loc) / self.scale
        return 0.5 - 0.5 * z.sign() * mg.expm1(-z.abs())

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * mg.log1p(-2 * term.abs())

    def entropy(self):
        return 1 + mg.log(2 * self.scale)


class Cauchy(_LocScale):
    """The Cauchy distribution of median ``loc`` and half width ``scale``: no mean nor
    variance (NaN and inf, as in PyTorch)."""

    def _standard(self, shape):
        u = noise("random", shape, self.loc)
        return mg.tan(math.pi * (u - 0.5))

    @property
    def mean(self):
        return mg.full_like(self.loc, math.nan)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return mg.full_like(self.loc, math.inf)

    def log_prob(self, value):
        self._check(value)
        return -math.log(math.pi) - self.scale.log() - \
            mg.log1p(((value - self.loc) / self.scale) ** 2)

    def cdf(self, value):
        self._check(value)
        return mg.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return mg.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()


class Uniform(Distribution):
    """The uniform distribution on ``[low, high)``.

        >>> from mutograd.distributions import Uniform
        >>> Uniform(0.0, 4.0).variance.item()
        1.3333333730697632
    """
    arg_constraints = {"low": constraints.dependent(is_discrete=False, event_dim=0),
                       "high": constraints.dependent(is_discrete=False, event_dim=0)}
    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = self._params(low, high)
        scalar = isinstance(low, numbers.Number) and isinstance(high, numbers.Number)
        super().__init__(() if scalar else self.low.shape, validate_args=validate_args)
        if self._validate_args and not bool((self.low < self.high).all()):
            raise ValueError("Uniform is not defined when low>= high")

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return mg.full_like(self.high, math.nan)

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=()):
        u = noise("random", self._extended_shape(sample_shape), self.low)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        inside = ((self.low <= value) & (value < self.high)).astype(self.low.dtype)
        return mg.log(inside) - mg.log(self.high - self.low)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return mg.log(self.high - self.low)


class Exponential(ExponentialFamily):
    """The exponential distribution of ``rate``: density ``rate * exp(-rate x)`` on x >= 0."""
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args=None):
        (self.rate,) = self._params(rate)
        batch = () if isinstance(rate, numbers.Number) else self.rate.shape
        super().__init__(batch, validate_args=validate_args)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return mg.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=()):
        u = noise("random", self._extended_shape(sample_shape), self.rate)
        # -log(1 - u) with u in [0, 1): a standard exponential, never inf
        return -mg.log1p(-u) / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - mg.exp(-self.rate * value)

    def icdf(self, value):
        return -mg.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - self.rate.log()

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -mg.log(-x)
