"""``paddle.distribution`` (``mutograd.distributions`` with Paddle 3's names and signatures).

Differences from the torch spellings: constructors take Paddle's argument names
(``Beta(alpha, beta)``, ``Independent(base, reinterpreted_batch_rank)``, ``Binomial(total_count,
probs)``, ``Multinomial(total_count, probs)``, ``ContinuousBernoulli(probs, lims)``,
``LKJCholesky(dim=2, concentration=1.0)``) and a trailing ``name``; ``sample(shape,
seed=0)``; every distribution has ``prob(value)`` and ``kl_divergence(other)``, and Normal,
Uniform and Categorical also ``probs(value)``. ``Categorical(logits)`` takes its weights
positionally and, as Paddle does, reads them two ways: ``probs``/``log_prob`` normalise them by
their sum (``logits / logits.sum(-1)``), while ``sample``, ``entropy`` and ``kl_divergence``
treat them as logits (their softmax).

    >>> import mutograd.compat.paddle as paddle
    >>> d = paddle.distribution.Normal(0.0, 1.0)
    >>> round(float(d.probs(paddle.to_tensor(0.0))), 4)
    0.3989
"""
import numbers

import numpy as np

from .... import broadcast_tensors, take_along_dim
from .... import distributions as _d
from ....tensor import Size as _Size
from ..tensor import Tensor as _Tensor
from . import transform  # noqa: F401
from .transform import *  # noqa: F401, F403
from .transform import __all__ as _transform_names

_dialect = _d.dialect_classes(_Tensor, _Size, __name__)


def _param(value):
    """A list, tuple or NumPy array as a float32 tensor (Paddle takes them as parameters)."""
    if not isinstance(value, (list, tuple, np.ndarray)) or (
            not isinstance(value, np.ndarray) and
            not all(isinstance(v, (numbers.Number, list, tuple)) for v in value)):
        return value   # a tensor, a number, a distribution, a list of transforms
    from .. import to_tensor
    return to_tensor(value, dtype="float32")


class _Paddle:
    """Paddle's extra methods and ``sample(shape, seed)`` spelling."""

    def sample(self, shape=(), seed=0):
        return super().sample(tuple(shape))

    def rsample(self, shape=()):
        return super().rsample(tuple(shape))

    def prob(self, value):
        """The density (or mass) at ``value``: ``exp(log_prob(value))``."""
        return self.log_prob(value).exp()

    def kl_divergence(self, other):
        """``KL(self || other)``."""
        return kl_divergence(self, other)


def _make(name, names=(), torch_names=None, extra=None):
    """The dialect's ``name`` with Paddle's extra methods and, when ``names`` are given, a
    constructor taking them (Paddle's argument names, in order) for the torch ``torch_names``."""
    ns = dict(extra or {}, __module__=__name__, __doc__=_dialect[name].__doc__)
    cls = type(name, (_Paddle, _dialect[name]), ns)
    if names:
        spelled = tuple(zip(names, torch_names or names))

        def __init__(self, *args, name=None, **kwargs):
            values = dict(zip(names, args), **kwargs)
            super(cls, self).__init__(**{t: _param(values[n]) for n, t in spelled
                                         if n in values})
        cls.__init__ = __init__
    return cls


def _probs_method(self, value):
    """The density at ``value`` (Paddle's ``probs(value)``)."""
    return self.prob(value)


Distribution = _make("Distribution")
ExponentialFamily = _make("ExponentialFamily")
Normal = _make("Normal", ("loc", "scale"), extra={"probs": _probs_method})
Uniform = _make("Uniform", ("low", "high"), extra={"probs": _probs_method})
Cauchy = _make("Cauchy", ("loc", "scale"))
Laplace = _make("Laplace", ("loc", "scale"))
Gumbel = _make("Gumbel", ("loc", "scale"))
LogNormal = _make("LogNormal", ("loc", "scale"))
Exponential = _make("Exponential", ("rate",))
Gamma = _make("Gamma", ("concentration", "rate"))
Chi2 = _make("Chi2", ("df",))
Poisson = _make("Poisson", ("rate",))
StudentT = _make("StudentT", ("df", "loc", "scale"))
Dirichlet = _make("Dirichlet", ("concentration",))
Bernoulli = _make("Bernoulli", ("probs",))
Geometric = _make("Geometric", ("probs",))
Binomial = _make("Binomial", ("total_count", "probs"))
MultivariateNormal = _make("MultivariateNormal",
                           ("loc", "covariance_matrix", "precision_matrix", "scale_tril"))
Beta = _make("Beta", ("alpha", "beta"), ("concentration1", "concentration0"),
             {"alpha": property(lambda self: self.concentration1),
              "beta": property(lambda self: self.concentration0)})
ContinuousBernoulli = _make("ContinuousBernoulli", ("probs", "lims"))
Multinomial = _make("Multinomial", ("total_count", "probs"))


class LKJCholesky(_Paddle, _dialect["LKJCholesky"]):
    """The LKJ distribution of Cholesky factors of ``dim`` x ``dim`` correlation matrices
    (Paddle's defaults: ``dim=2``, ``concentration=1.0``)."""

    def __init__(self, dim=2, concentration=1.0, sample_method="onion", name=None):
        super().__init__(dim, _param(concentration), sample_method)


Independent = _make("Independent", ("base", "reinterpreted_batch_rank"),
                    ("base_distribution", "reinterpreted_batch_ndims"))
TransformedDistribution = _make("TransformedDistribution", ("base", "transforms"),
                                ("base_distribution", "transforms"))


class Categorical(_Paddle, _dialect["Distribution"]):
    """A category index drawn with weights ``logits`` (Paddle's reading: see the module
    docstring). It holds a ``Categorical(logits=logits)`` for the draws, the entropy and the
    KL divergence, since ``probs`` is a method here."""

    def __init__(self, logits, name=None):
        self.logits = _param(logits)
        self._categorical = _dialect["Categorical"](logits=self.logits)
        super().__init__(self._categorical.batch_shape)

    def sample(self, shape=(), seed=0):
        return self._categorical.sample(tuple(shape))

    def entropy(self):
        return self._categorical.entropy()

    def probs(self, value):
        """The normalised weight ``logits[value] / logits.sum(-1)`` of each index."""
        p = self.logits / self.logits.sum(-1, keepdim=True)
        index, p = _broadcast(value.astype("int64").unsqueeze(-1), p)
        return take_along_dim(p, index[..., :1], -1).squeeze(-1)

    def log_prob(self, value):
        return self.probs(value).log()


def _broadcast(index, p):
    return broadcast_tensors(index, p)


def kl_divergence(p, q):
    """``KL(p || q)`` (``paddle.distribution.kl_divergence``)."""
    return _d.kl_divergence(p, q)


@_d.register_kl(Categorical, Categorical)
def _kl_categorical(p, q):
    return _d.kl_divergence(p._categorical, q._categorical)


def register_kl(cls_p, cls_q):
    """Register ``fn(p, q)`` as ``KL(p || q)`` for the pair of classes (a decorator)."""
    return _d.register_kl(cls_p, cls_q)


__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2",
           "ContinuousBernoulli", "Dirichlet", "Distribution", "Exponential",
           "ExponentialFamily", "Gamma", "Geometric", "Gumbel", "Independent", "LKJCholesky",
           "Laplace", "LogNormal", "Multinomial", "MultivariateNormal", "Normal", "Poisson",
           "StudentT", "TransformedDistribution", "Uniform", "kl_divergence", "register_kl",
           *_transform_names]
