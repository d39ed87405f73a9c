"""Mixtures of one family: each batch element of MixtureSameFamily picks one of K components
of a batched distribution by a Categorical and draws from it.

    >>> import mutograd as mg
    >>> from mutograd.distributions import Categorical, MixtureSameFamily, Normal
    >>> mix = MixtureSameFamily(Categorical(mg.ones([2])), Normal(mg.tensor([-1.0, 1.0]), 1.0))
    >>> mix.mean.item(), list(mix.sample([5]).shape)
    (0.0, [5])
"""
import mutograd as mg

from . import constraints
from .discrete import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """The mixture whose K components are the last batch dimension of
    ``component_distribution`` and whose weights are ``mixture_distribution`` (a Categorical
    over K). ``log_prob`` is the log-sum-exp of the weighted component densities; no
    ``rsample`` and no entropy (as in PyTorch)."""
    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError("The mixture distribution must be a Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The component distribution must be a Distribution")
        mix_batch = tuple(mixture_distribution.batch_shape)
        comp_batch = tuple(component_distribution.batch_shape[:-1])
        for a, b in zip(reversed(mix_batch), reversed(comp_batch)):
            if a != 1 and b != 1 and a != b:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mix_batch}) is not "
                                 f"compatible with `component_distribution.batch_shape`"
                                 f"({comp_batch})")
        k = mixture_distribution.logits.shape[-1]
        if component_distribution.batch_shape[-1] != k:
            raise ValueError(f"`mixture_distribution component` ({k}) does not equal "
                             f"`component_distribution.batch_shape[-1]` "
                             f"({component_distribution.batch_shape[-1]})")
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        self._num_component = k
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(comp_batch, component_distribution.event_shape,
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = tuple(batch_shape)
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._component_distribution = self._component_distribution.expand(
            batch_shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._batch_shape = self._size_class(batch_shape)
        return new

    @constraints.dependent_property
    def support(self):
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    def _weights(self):
        """The mixture weights shaped to broadcast against a component quantity whose
        component dimension sits before the event dimensions."""
        probs = self._mixture_distribution.probs
        return probs.reshape(list(probs.shape) + [1] * self._event_ndims)

    @property
    def mean(self):
        return (self._weights() * self._component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self):
        w, dim = self._weights(), -1 - self._event_ndims
        comp = self._component_distribution
        mean = (w * comp.mean).sum(dim, keepdim=True)
        within = (w * comp.variance).sum(dim)
        between = (w * (comp.mean - mean).pow(2)).sum(dim)
        return within + between

    def _pad(self, x):
        """``x`` with a component dimension before its event dimensions."""
        return x.unsqueeze(-1 - self._event_ndims)

    def cdf(self, x):
        return (self._component_distribution.cdf(self._pad(x)) *
                self._mixture_distribution.probs).sum(-1)

    def log_prob(self, x):
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self._component_distribution.log_prob(self._pad(x))
        log_mix = mg.log_softmax(self._mixture_distribution.logits, -1)
        return (log_prob_x + log_mix).logsumexp(-1)

    def sample(self, sample_shape=()):
        with mg.no_grad():
            n = len(tuple(sample_shape))
            index = self._mixture_distribution.sample(sample_shape)   # sample + batch
            draws = self._component_distribution.sample(sample_shape)  # + (K,) + event
            event = list(self._event_shape)
            index = index.reshape(list(index.shape) + [1] + [1] * len(event))
            index = index.expand(list(draws.shape[:n]) + list(self._batch_shape) + [1] + event)
            chosen = mg.take_along_dim(draws, index, n + len(self._batch_shape))
            return chosen.squeeze(n + len(self._batch_shape))

    def __repr__(self):
        return (f"MixtureSameFamily(\n  {self._mixture_distribution!r},\n  "
                f"{self._component_distribution!r})")
