"""Probability distributions (``torch.distributions``, ``paddle.distribution``): sampling with
``sample``/``rsample``, densities with ``log_prob``, moments, entropies, KL divergences, and the
constraints and transforms they are built from. Everything is made of mutograd tensor ops, so
gradients flow from ``log_prob``, ``entropy``, ``kl_divergence`` and ``rsample`` to the
parameters; draws come from mutograd's generator, so ``mutograd.seed`` makes them reproducible.
See docs/distributions.md.

    >>> import mutograd as mg
    >>> from mutograd.distributions import Normal, kl_divergence
    >>> _ = mg.seed(0)
    >>> loc = mg.tensor([0.0, 1.0], requires_grad=True)
    >>> d = Normal(loc, 1.0)
    >>> loss = -d.log_prob(d.rsample([100])).mean() + kl_divergence(d, Normal(0.0, 1.0)).sum()
    >>> loss.backward()
    >>> list(loc.grad.shape)
    [2]
"""
from . import constraint_registry, constraints, transforms
from .composite import (Gumbel, HalfCauchy, HalfNormal, Independent, LogitRelaxedBernoulli,
                        LogNormal, RelaxedBernoulli, TransformedDistribution)
from .constraint_registry import biject_to, transform_to
from .constraints import Constraint
from .continuous import Cauchy, Exponential, Laplace, Normal, Uniform
from .discrete import (Bernoulli, Binomial, Categorical, Geometric, Multinomial,
                       NegativeBinomial, OneHotCategorical, OneHotCategoricalStraightThrough,
                       Poisson)
from .distribution import Distribution, ExponentialFamily
from .gamma import Beta, Chi2, Dirichlet, FisherSnedecor, Gamma, StudentT
from .kl import kl_divergence, register_kl
from .matrix import LKJCholesky, Wishart
from .mixture import MixtureSameFamily
from .multivariate_normal import LowRankMultivariateNormal, MultivariateNormal
from .special_continuous import ContinuousBernoulli, GeneralizedPareto, VonMises
from .transformed import (ExpRelaxedCategorical, InverseGamma, Kumaraswamy, LogisticNormal,
                          Pareto, RelaxedOneHotCategorical, Weibull)
from .transforms import (AbsTransform, AffineTransform, CatTransform, ComposeTransform,
                         CorrCholeskyTransform, CumulativeDistributionTransform, ExpTransform,
                         IndependentTransform, LowerCholeskyTransform, PositiveDefiniteTransform,
                         PowerTransform, ReshapeTransform, SigmoidTransform, SoftmaxTransform,
                         SoftplusTransform, StackTransform, StickBreakingTransform,
                         TanhTransform, Transform, identity_transform)

__all__ = ["AbsTransform", "AffineTransform", "Bernoulli", "Beta", "Binomial", "CatTransform",
           "Categorical", "Cauchy", "Chi2", "ComposeTransform", "Constraint",
           "ContinuousBernoulli", "CorrCholeskyTransform", "CumulativeDistributionTransform",
           "Dirichlet", "Distribution", "ExpRelaxedCategorical", "ExpTransform", "Exponential",
           "ExponentialFamily", "FisherSnedecor", "Gamma", "GeneralizedPareto", "Geometric",
           "Gumbel", "HalfCauchy", "HalfNormal", "Independent", "IndependentTransform",
           "InverseGamma", "Kumaraswamy", "LKJCholesky", "Laplace", "LogNormal",
           "LogisticNormal", "LogitRelaxedBernoulli", "LowRankMultivariateNormal",
           "LowerCholeskyTransform", "MixtureSameFamily", "Multinomial", "MultivariateNormal",
           "NegativeBinomial", "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough",
           "Pareto", "Poisson", "PositiveDefiniteTransform", "PowerTransform",
           "RelaxedBernoulli", "RelaxedOneHotCategorical", "ReshapeTransform",
           "SigmoidTransform", "SoftmaxTransform", "SoftplusTransform", "StackTransform",
           "StickBreakingTransform", "StudentT", "TanhTransform", "Transform",
           "TransformedDistribution", "Uniform", "VonMises", "Weibull", "Wishart", "biject_to",
           "constraint_registry", "constraints", "dialect_classes", "identity_transform",
           "kl_divergence", "register_kl", "transform_to", "transforms"]


def dialect_classes(tensor_class, size_class, module):
    """Every distribution class of this package made again for a dialect: each one a subclass
    of the original (and of the dialect's version of each of its bases, so ``isinstance`` holds
    within the dialect too) whose number parameters become ``tensor_class`` tensors and whose
    shapes are ``size_class``. Returns ``{name: class}``; ``module`` is their ``__module__``."""
    made = {}

    def remake(cls):
        if cls in made:
            return made[cls]
        bases = (cls,) + tuple(remake(b) for b in cls.__bases__
                                if isinstance(b, type) and issubclass(b, Distribution))
        made[cls] = type(cls.__name__, bases, {"_tensor_class": tensor_class,
                                               "_size_class": size_class, "__module__": module,
                                               "__doc__": cls.__doc__})
        return made[cls]

    out = {}
    for name in __all__:
        obj = globals()[name]
        if isinstance(obj, type) and issubclass(obj, Distribution):
            out[name] = remake(obj)
    return out
