"""Discrete distributions: Bernoulli, Binomial, Geometric, NegativeBinomial (each given
``probs`` or ``logits``), Categorical, OneHotCategorical(StraightThrough) and Multinomial
(weights over the last dimension), Poisson. Draws take no gradient; ``log_prob`` and
``entropy`` are differentiable in the parameters.

    >>> import mutograd as mg
    >>> from mutograd.distributions import Categorical
    >>> d = Categorical(probs=mg.tensor([0.25, 0.75]))
    >>> round(d.log_prob(mg.tensor(1)).exp().item(), 2)
    0.75
"""
import math
import numbers

import mutograd as mg

from ..ops.sampling import bernoulli
from . import constraints
from .distribution import Distribution, ExponentialFamily
from .utils import lazy_property, logits_to_probs, noise, probs_to_logits, tiny

__all__ = ["Bernoulli", "Binomial", "Categorical", "Geometric", "Multinomial", "NegativeBinomial",
           "OneHotCategorical", "OneHotCategoricalStraightThrough", "Poisson"]


def _one_of(probs, logits):
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


def _softplus(x):
    """log(1 + exp(x)) without overflow, differentiable everywhere."""
    return x.clamp(min=0) + mg.log1p(mg.exp(-x.abs()))


class _Binary(Distribution):
    """A distribution given one success probability (``probs`` or ``logits``) per batch
    element; the other is derived on first use."""

    def _set_binary(self, probs, logits):
        """Keep the one given parameter; returns the batch shape."""
        _one_of(probs, logits)
        given = probs if logits is None else logits
        (self.__dict__["probs" if logits is None else "logits"],) = self._params(given)
        return () if isinstance(given, numbers.Number) else self._param.shape

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.shape

    @property
    def _param(self):
        return self.__dict__.get("probs", self.__dict__.get("logits"))


class Bernoulli(_Binary, ExponentialFamily):
    """The Bernoulli distribution: 1 with probability ``probs`` (or ``sigmoid(logits)``)."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        batch = self._set_binary(probs, logits)
        super().__init__(batch, validate_args=validate_args)

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).astype(self.probs.dtype)
        return mg.where(self.probs == 0.5, mg.full_like(mode, math.nan), mode)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = list(self._extended_shape(sample_shape))
        with mg.no_grad():
            return bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = mg.broadcast_tensors(self.logits, value.astype(self.logits.dtype))
        return value * logits - _softplus(logits)

    def entropy(self):
        return _softplus(self.logits) - self.probs * self.logits

    def enumerate_support(self, expand=True):
        values = mg.arange(2, dtype=self._param.dtype)
        values = values.reshape([-1] + [1] * len(self._batch_shape))
        return values.expand([-1] + list(self._batch_shape)) if expand else values

    @property
    def _natural_params(self):
        return (mg.log(self.probs / (1 - self.probs)),)

    def _log_normalizer(self, x):
        return mg.log1p(mg.exp(x))


class Geometric(_Binary):
    """The number of failures before the first success of Bernoulli trials of ``probs``."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        batch = self._set_binary(probs, logits)
        super().__init__(batch, validate_args=validate_args)
        if self._validate_args and probs is not None and not bool((self.probs > 0).all()):
            raise ValueError(f"Expected parameter probs ({type(self.probs).__name__} of shape "
                             f"{tuple(self.probs.shape)}) of distribution {self!r} to satisfy "
                             f"the constraint HalfOpenInterval(lower_bound=0.0, upper_bound=1.0)"
                             f", but found invalid values:\n{self.probs}")

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return mg.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with mg.no_grad():
            u = noise("uniform", shape, self.probs, tiny(self.probs), 1.0)
            return (mg.log(u) / mg.log1p(-self.probs)).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = mg.broadcast_tensors(value.astype(self.probs.dtype), self.probs)
        # probs == 1 and value == 0: 0 * log(0) counts as 0
        q = mg.where((probs == 1) & (value == 0), mg.zeros_like(probs), probs)
        return value * mg.log1p(-q) + self.probs.log()

    def entropy(self):
        return (_softplus(self.logits) - self.probs * self.logits) / self.probs


class Binomial(_Binary):
    """The number of successes in ``total_count`` Bernoulli trials of ``probs``."""
    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        _one_of(probs, logits)
        given = probs if logits is None else logits
        count, param = self._params(total_count, given)
        self.total_count = count.astype(param.dtype)
        self.__dict__["probs" if logits is None else "logits"] = param
        scalar = isinstance(total_count, numbers.Number) and isinstance(given, numbers.Number)
        super().__init__(() if scalar else param.shape, validate_args=validate_args)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = list(self._extended_shape(sample_shape))
        with mg.no_grad():
            n = self.total_count.expand(shape).astype(mg.int64)
            return noise("binomial", shape, self.probs, n, self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n, logits = self.total_count, self.logits
        normalize = n * _softplus(logits) - mg.lgamma(n + 1)
        return value * logits - mg.lgamma(value + 1) - mg.lgamma(n - value + 1) - normalize

    def enumerate_support(self, expand=True):
        n = int(self.total_count.max().item())
        if not bool((self.total_count == n).all()):
            raise NotImplementedError("Inhomogeneous total count not supported by "
                                      "`enumerate_support`.")
        values = mg.arange(1 + n, dtype=self._param.dtype)
        values = values.reshape([-1] + [1] * len(self._batch_shape))
        return values.expand([-1] + list(self._batch_shape)) if expand else values

    def entropy(self):
        support = self.enumerate_support(False)
        log_prob = self.log_prob(support)
        return -(mg.exp(log_prob) * log_prob).sum(0)


class Categorical(Distribution):
    """A category index in ``[0, K)`` drawn with the weights ``probs`` (normalised over the
    last dimension) or ``logits`` (their unnormalised logs)."""
    arg_constraints = {"probs": constraints.simplex,
                       "logits": constraints.independent(constraints.real, 1)}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        _one_of(probs, logits)
        given = probs if logits is None else logits
        if given.ndim < 1:
            raise ValueError(f"`{'probs' if logits is None else 'logits'}` parameter must be at "
                             f"least one-dimensional.")
        if logits is None:
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            self.logits = logits - logits.logsumexp(-1, keepdim=True)
        self._num_events = given.shape[-1]
        super().__init__(given.shape[:-1], validate_args=validate_args)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def _param(self):
        return self.__dict__.get("probs", self.__dict__.get("logits"))

    @property
    def param_shape(self):
        return self._param.shape

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def mean(self):
        return mg.full(list(self._extended_shape()), math.nan, dtype=self._param.dtype)

    @property
    def mode(self):
        return self.probs.argmax(-1)

    @property
    def variance(self):
        return mg.full(list(self._extended_shape()), math.nan, dtype=self._param.dtype)

    def sample(self, sample_shape=()):
        sample_shape = list(sample_shape)
        count = math.prod(sample_shape)
        with mg.no_grad():
            rows = self.probs.reshape([-1, self._num_events])
            drawn = mg.multinomial(rows, count, replacement=True).T
            return drawn.reshape(sample_shape + list(self._batch_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.astype(mg.int64).unsqueeze(-1)
        value, log_pmf = mg.broadcast_tensors(value, self.logits)
        return mg.take_along_dim(log_pmf, value[..., :1], -1).squeeze(-1)

    def entropy(self):
        lowest = float(-3.4028234663852886e38) if self.logits.dtype == mg.float32 else \
            -1.7976931348623157e308
        return -(self.logits.clamp(min=lowest) * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        values = mg.arange(self._num_events, dtype=mg.int64)
        values = values.reshape([-1] + [1] * len(self._batch_shape))
        return values.expand([-1] + list(self._batch_shape)) if expand else values


class OneHotCategorical(Distribution):
    """A one-hot vector of length K whose hot index is Categorical(``probs`` / ``logits``)."""
    arg_constraints = {"probs": constraints.simplex,
                       "logits": constraints.independent(constraints.real, 1)}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        param = self._categorical._param
        super().__init__(param.shape[:-1], param.shape[-1:], validate_args=validate_args)

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def _param(self):
        return self._categorical._param

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        return mg.nn.functional.one_hot(self.probs.argmax(-1), self._event_shape[-1]) \
            .astype(self.probs.dtype)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        index = self._categorical.sample(sample_shape)
        return mg.nn.functional.one_hot(index, self._event_shape[-1]).astype(self.probs.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.argmax(-1))

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        n = self._event_shape[0]
        values = mg.eye(n, dtype=self._param.dtype).reshape([n] + [1] * len(self._batch_shape)
                                                            + [n])
        return values.expand([n] + list(self._batch_shape) + [n]) if expand else values


class Poisson(ExponentialFamily):
    """The Poisson distribution of mean ``rate`` (no closed-form entropy: NotImplementedError,
    as in PyTorch)."""
    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = self._params(rate)
        batch = () if isinstance(rate, numbers.Number) else self.rate.shape
        super().__init__(batch, validate_args=validate_args)

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=()):
        shape = list(self._extended_shape(sample_shape))
        with mg.no_grad():
            return noise("poisson", shape, self.rate, self.rate.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = mg.broadcast_tensors(self.rate, value.astype(self.rate.dtype))
        return mg.xlogy(value, rate) - rate - mg.lgamma(value + 1)

    @property
    def _natural_params(self):
        return (self.rate.log(),)

    def _log_normalizer(self, x):
        return mg.exp(x)



class Multinomial(Distribution):
    """Counts of ``total_count`` draws among K categories of weights ``probs`` (or
    ``logits``) over the last dimension. ``log_prob`` takes any count vectors adding up to
    ``total_count``; ``sample`` needs one ``total_count`` for the whole batch (an int)."""
    arg_constraints = {"probs": constraints.simplex,
                       "logits": constraints.independent(constraints.real, 1)}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, numbers.Integral):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        param = self._categorical._param
        super().__init__(param.shape[:-1], param.shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._categorical = self._categorical.expand(batch_shape)
        new._batch_shape = self._size_class(batch_shape)
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = list(sample_shape) + list(self._batch_shape)
        k = self._event_shape[0]
        with mg.no_grad():
            probs = self.probs.expand(shape + [k])
            # each row of counts is a multinomial draw of total_count among its K weights
            return noise("multinomial", shape, probs, self.total_count, probs)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = mg.broadcast_tensors(self.logits, value.astype(self.logits.dtype))
        # a count of 0 where the weight is 0 adds nothing (0 * -inf would be NaN)
        logits = mg.where((value == 0) & (logits == -math.inf), mg.zeros_like(logits), logits)
        return mg.lgamma(value.sum(-1) + 1) - mg.lgamma(value + 1).sum(-1) + \
            (value * logits).sum(-1)

    def entropy(self):
        n = self.total_count
        # H = -log n! - n sum p log p + sum_i E[log x_i!], x_i ~ Binomial(n, p_i)
        counts = mg.arange(n + 1, dtype=self.probs.dtype)
        counts = counts.reshape([-1] + [1] * self.probs.ndim)
        marginal = Binomial(n, self.probs, validate_args=False)
        log_pmf = marginal.log_prob(counts)
        expected_log_factorial = (log_pmf.exp() * mg.lgamma(counts + 1)).sum([0, -1])
        return -math.lgamma(n + 1) - n * (self.probs * self.logits).sum(-1) + \
            expected_log_factorial


class NegativeBinomial(_Binary):
    """The number of successes (each of probability ``probs``, or ``sigmoid(logits)``) before
    ``total_count`` failures. No entropy (as in PyTorch)."""
    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        _one_of(probs, logits)
        given = probs if logits is None else logits
        count, param = self._params(total_count, given)
        self.total_count = count.astype(param.dtype)
        self.__dict__["probs" if logits is None else "logits"] = param
        scalar = isinstance(total_count, numbers.Number) and isinstance(given, numbers.Number)
        super().__init__(() if scalar else param.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.total_count * self.logits.exp()

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / mg.sigmoid(-self.logits)

    def sample(self, sample_shape=()):
        shape = list(self._extended_shape(sample_shape))
        with mg.no_grad():
            # the generator counts failures before n successes of probability p: swap them
            return noise("negative_binomial", shape, self.probs, self.total_count.expand(shape),
                         (1 - self.probs).expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        r, logits = self.total_count, self.logits
        log_unnormalized = r * -_softplus(logits) + value * -_softplus(-logits)
        log_normalization = -mg.lgamma(r + value) + mg.lgamma(1.0 + value) + mg.lgamma(r)
        # r + value == 0: the only outcome, probability 1
        log_normalization = mg.where(r + value == 0, mg.zeros_like(log_normalization),
                                     log_normalization)
        return log_unnormalized - log_normalization


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """OneHotCategorical with a straight-through ``rsample``: the one-hot draw in the forward
    pass, the gradient of ``probs`` in the backward pass."""
    has_rsample = True

    def rsample(self, sample_shape=()):
        sample = self.sample(sample_shape)
        probs = self.probs
        return sample + (probs - probs.detach())
