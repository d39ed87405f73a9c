"""Distributions built from others: Independent (batch dimensions read as event dimensions),
TransformedDistribution (a base pushed through transforms), and the ones defined that way:
LogNormal, RelaxedBernoulli.

    >>> import mutograd as mg
    >>> from mutograd.distributions import Independent, Normal
    >>> d = Independent(Normal(mg.zeros([3, 2]), 1.0), 1)
    >>> list(d.batch_shape), list(d.event_shape), list(d.log_prob(mg.zeros([3, 2])).shape)
    ([3], [2], [3])
"""
import math
import numbers

import mutograd as mg

from . import constraints
from .continuous import Cauchy, Normal, Uniform
from .distribution import Distribution
from .transforms import AbsTransform, AffineTransform, ComposeTransform, ExpTransform, \
    SigmoidTransform, Transform, _sum_rightmost
from .utils import clamp_probs, eps, lazy_property, logits_to_probs, noise, probs_to_logits, tiny

__all__ = ["Gumbel", "HalfCauchy", "HalfNormal", "Independent", "LogNormal",
           "LogitRelaxedBernoulli", "RelaxedBernoulli", "TransformedDistribution"]


class Independent(Distribution):
    """``base_distribution`` with its rightmost ``reinterpreted_batch_ndims`` batch dimensions
    taken as event dimensions: ``log_prob`` sums over them."""
    arg_constraints = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        n = int(reinterpreted_batch_ndims)
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        event_dim = n + len(base_distribution.event_shape)
        if n > len(base_distribution.batch_shape):
            raise ValueError(f"Expected reinterpreted_batch_ndims <= "
                             f"len(base_distribution.batch_shape), actual {n} vs "
                             f"{len(base_distribution.batch_shape)}")
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = n
        cut = len(shape) - event_dim
        super().__init__(shape[:cut], shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        n = self.reinterpreted_batch_ndims
        base_batch = tuple(self.base_dist.batch_shape)
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.base_dist = self.base_dist.expand(tuple(batch_shape) + base_batch[len(base_batch) -
                                                                               n:])
        new._batch_shape = self._size_class(batch_shape)
        return new

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self):
        return False if self.reinterpreted_batch_ndims else self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self):
        s = self.base_dist.support
        return constraints.independent(s, self.reinterpreted_batch_ndims) \
            if self.reinterpreted_batch_ndims else s

    @property
    def mean(self):
        return self.base_dist.mean

    @property
    def mode(self):
        return self.base_dist.mode

    @property
    def variance(self):
        return self.base_dist.variance

    def sample(self, sample_shape=()):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"Independent({self.base_dist!r}, {self.reinterpreted_batch_ndims})"


class TransformedDistribution(Distribution):
    """The distribution of ``t_n(... t_1(x))`` for ``x`` from ``base_distribution`` and the
    ``transforms`` t_1 ... t_n; ``log_prob`` adds the log Jacobian of each inverse step."""
    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            transforms = [transforms]
        elif not (isinstance(transforms, list) and all(isinstance(t, Transform)
                                                       for t in transforms)):
            raise ValueError(f"transforms must be a Transform or a list of Transforms, but was "
                             f"{transforms}")
        self.transforms = transforms
        chain = ComposeTransform(transforms)
        base_shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        base_event = len(base_distribution.event_shape)
        if len(base_shape) < chain.domain.event_dim:
            raise ValueError(f"base_distribution needs to have shape with size at least "
                             f"{chain.domain.event_dim}, but got {base_shape}.")
        forward_shape = tuple(chain.forward_shape(base_shape))
        expanded = tuple(chain.inverse_shape(forward_shape))
        if expanded != base_shape:
            base_distribution = base_distribution.expand(expanded[:len(expanded) - base_event])
        extra = chain.domain.event_dim - base_event
        if extra > 0:
            base_distribution = Independent(base_distribution, extra)
        self.base_dist = base_distribution
        event_dim = chain.codomain.event_dim + max(base_event - chain.domain.event_dim, 0)
        cut = len(forward_shape) - event_dim
        super().__init__(forward_shape[:cut], forward_shape[cut:], validate_args=validate_args)

    @constraints.dependent_property(is_discrete=False)
    def support(self):
        if not self.transforms:
            return self.base_dist.support
        s = self.transforms[-1].codomain
        if len(self._event_shape) > s.event_dim:
            s = constraints.independent(s, len(self._event_shape) - s.event_dim)
        return s

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    def sample(self, sample_shape=()):
        with mg.no_grad():
            return self.rsample(sample_shape, _draw=self.base_dist.sample)

    def rsample(self, sample_shape=(), _draw=None):
        x = (_draw or self.base_dist.rsample)(sample_shape)
        for t in self.transforms:
            x = t(x)
        return x

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self._event_shape)
        log_prob, y = 0.0, value
        for t in reversed(self.transforms):
            x = t.inv(y)
            event_dim += t.domain.event_dim - t.codomain.event_dim
            log_prob = log_prob - _sum_rightmost(t.log_abs_det_jacobian(x, y),
                                                 event_dim - t.domain.event_dim)
            y = x
        return log_prob + _sum_rightmost(self.base_dist.log_prob(y),
                                         event_dim - len(self.base_dist.event_shape))

    def _monotone_sign(self):
        sign = 1
        for t in self.transforms:
            sign = sign * t.sign
        if not isinstance(sign, numbers.Number):   # a tensor of signs: one for all elements
            sign = 1 if bool((sign == 1).all()) else -1 if bool((sign == -1).all()) else None
        if sign not in (1, -1):
            raise NotImplementedError("cdf is defined only for monotone transforms")
        return sign

    def cdf(self, value):
        sign = self._monotone_sign()
        for t in reversed(self.transforms):
            value = t.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        value = self.base_dist.cdf(value)
        return value if sign == 1 else 1 - value

    def icdf(self, value):
        value = value if self._monotone_sign() == 1 else 1 - value
        value = self.base_dist.icdf(value)
        for t in self.transforms:
            value = t(value)
        return value


class LogNormal(TransformedDistribution):
    """The distribution of ``exp(x)`` for ``x`` normal of ``loc`` and ``scale``."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(),
                         validate_args=validate_args)

    @property
    def loc(self):
        return self.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        return (self.loc - self.scale.pow(2)).exp()

    @property
    def variance(self):
        s2 = self.scale.pow(2)
        return mg.expm1(s2) * (2 * self.loc + s2).exp()

    def entropy(self):
        return self.base_dist.entropy() + self.loc


class LogitRelaxedBernoulli(Distribution):
    """The logit of a relaxed Bernoulli sample: ``(logits + logistic noise) / temperature``."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        given = probs if logits is None else logits
        self.temperature = temperature
        (value,) = self._params(given)
        self.__dict__["probs" if logits is None else "logits"] = value
        scalar = isinstance(given, numbers.Number)
        super().__init__(() if scalar else value.shape, validate_args=validate_args)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    def rsample(self, sample_shape=()):
        logits = self.logits.expand(list(self._extended_shape(sample_shape)))
        u = clamp_probs(noise("random", logits.shape, logits))
        return (logits + u.log() - mg.log1p(-u)) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = self.logits - value * self.temperature
        return mg.log(mg.as_tensor(self.temperature, dtype=diff.dtype)) + diff - \
            2 * mg.softplus(diff)


class Relaxation(TransformedDistribution):
    """A relaxation of a discrete distribution at ``temperature``: a :attr:`transform` of a
    sample of the :attr:`relaxed` distribution, whose parameters it keeps."""
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = self.relaxed(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, self.transform(), validate_args=validate_args)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs


class RelaxedBernoulli(Relaxation):
    """A continuous relaxation on (0, 1) of the Bernoulli distribution at ``temperature``: the
    sigmoid of a :class:`LogitRelaxedBernoulli` sample."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    relaxed = LogitRelaxedBernoulli
    transform = SigmoidTransform



class _Folded(TransformedDistribution):
    """The absolute value of a symmetric distribution about 0 (``base``): the density doubles
    on x >= 0."""
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, base, validate_args=None):
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mode(self):
        return mg.zeros_like(self.scale)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        lp = self.base_dist.log_prob(value) + math.log(2)
        return mg.where(value >= 0, lp, mg.full_like(lp, -math.inf))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class HalfNormal(_Folded):
    """``|x|`` for ``x`` normal of mean 0 and standard deviation ``scale``."""

    def __init__(self, scale, validate_args=None):
        super().__init__(Normal(0.0, scale, validate_args=False), validate_args=validate_args)
        self.base_dist.loc = mg.zeros_like(self.base_dist.scale)

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)


class HalfCauchy(_Folded):
    """``|x|`` for ``x`` Cauchy of median 0 and half width ``scale``: no finite moments."""

    def __init__(self, scale, validate_args=None):
        super().__init__(Cauchy(0.0, scale, validate_args=False), validate_args=validate_args)
        self.base_dist.loc = mg.zeros_like(self.base_dist.scale)

    @property
    def mean(self):
        return mg.full_like(self.scale, math.inf)

    @property
    def variance(self):
        return mg.full_like(self.scale, math.inf)


class Gumbel(TransformedDistribution):
    """The Gumbel (extreme value) distribution of ``loc`` and ``scale``:
    ``loc - scale * log(-log u)`` for ``u`` uniform."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        loc, scale = self._params(loc, scale)
        self.loc, self.scale = loc, scale
        base = Uniform(mg.full_like(loc, tiny(loc)), mg.full_like(loc, 1 - eps(loc)),
                       validate_args=validate_args)
        steps = [ExpTransform().inv, AffineTransform(0, -mg.ones_like(loc)), ExpTransform().inv,
                 AffineTransform(loc, -scale)]
        super().__init__(base, steps, validate_args=validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -(self.scale.log() + z + mg.exp(-z))

    @property
    def mean(self):
        return self.loc + self.scale * _EULER_GAMMA

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return math.pi / math.sqrt(6) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + _EULER_GAMMA)


_EULER_GAMMA = 0.57721566490153286060
