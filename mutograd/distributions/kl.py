"""The Kullback-Leibler divergence ``KL(p || q)`` between two distributions, by a registry of
closed forms keyed by the pair of classes: ``register_kl(P, Q)`` adds one, and a pair of
subclasses uses the most specific registered match (the nearest classes in each argument's
method resolution order; a tie between two different functions warns and takes the one nearest
in ``p``). An unregistered pair raises NotImplementedError.

    >>> import mutograd as mg
    >>> from mutograd.distributions import Normal, kl_divergence
    >>> kl_divergence(Normal(0.0, 1.0), Normal(0.0, 1.0)).item()
    0.0
"""
import math
import warnings

import mutograd as mg

from .composite import _EULER_GAMMA, Gumbel, HalfNormal, Independent, TransformedDistribution
from .continuous import Cauchy, Exponential, Laplace, Normal, Uniform
from .discrete import Bernoulli, Binomial, Categorical, Geometric, OneHotCategorical, Poisson
from .distribution import ExponentialFamily
from .gamma import Beta, Dirichlet, Gamma
from .multivariate_normal import LowRankMultivariateNormal, MultivariateNormal
from .special_continuous import ContinuousBernoulli
from .transformed import Pareto
from .transforms import _sum_rightmost

__all__ = ["kl_divergence", "register_kl"]

_KL_REGISTRY = {}   # (type_p, type_q) -> function
_KL_MEMOIZE = {}    # (type(p), type(q)) -> the chosen function, cleared on registration


def register_kl(type_p, type_q):
    """A decorator registering ``fn(p, q)`` as ``KL(p || q)`` for ``p`` a ``type_p`` and ``q``
    a ``type_q`` (or subclasses of them).

        >>> from mutograd.distributions import Normal, register_kl
        >>> class MyNormal(Normal):
        ...     pass
        >>> @register_kl(MyNormal, MyNormal)
        ... def _kl_mine(p, q):
        ...     return (p.loc - q.loc).abs()
    """
    if not isinstance(type_p, type):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fn):
        _KL_REGISTRY[type_p, type_q] = fn
        _KL_MEMOIZE.clear()
        return fn
    return decorator


def _dispatch_kl(type_p, type_q):
    matches = [(p, q) for p, q in _KL_REGISTRY if issubclass(type_p, p) and issubclass(type_q, q)]
    if not matches:
        return NotImplemented
    mro_p, mro_q = type_p.__mro__, type_q.__mro__
    left = min(matches, key=lambda m: (mro_p.index(m[0]), mro_q.index(m[1])))
    right = min(matches, key=lambda m: (mro_q.index(m[1]), mro_p.index(m[0])))
    if _KL_REGISTRY[left] is not _KL_REGISTRY[right]:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). Please "
                      f"register_kl({left[0].__name__}, {right[1].__name__})", RuntimeWarning)
    return _KL_REGISTRY[left]


def kl_divergence(p, q):
    """``KL(p || q)``, one value per batch element of the two distributions.

        >>> from mutograd.distributions import Bernoulli, kl_divergence
        >>> round(kl_divergence(Bernoulli(0.5), Bernoulli(0.25)).item(), 4)
        0.1438
    """
    key = (type(p), type(q))
    fn = _KL_MEMOIZE.get(key)
    if fn is None:
        fn = _KL_MEMOIZE[key] = _dispatch_kl(*key)
    if fn is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p = {type(p).__name__} "
                                  f"and q = {type(q).__name__}")
    return fn(p, q)


def _inf_where(mask, value):
    return mg.where(mask, mg.full_like(value, math.inf), value)


def _zero_where(mask, value):
    return mg.where(mask, mg.zeros_like(value), value)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    t1 = p.probs * (mg.softplus(-q.logits) - mg.softplus(-p.logits))
    t1 = _zero_where(p.probs == 0, _inf_where(q.probs == 0, t1))
    t2 = (1 - p.probs) * (mg.softplus(q.logits) - mg.softplus(p.logits))
    t2 = _zero_where(p.probs == 1, _inf_where(q.probs == 1, t2))
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = _inf_where((q.probs == 0).expand(list(t.shape)), t)
    t = _zero_where((p.probs == 0).expand(list(t.shape)), t)
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    p1, p0, q1, q0 = p.concentration1, p.concentration0, q.concentration1, q.concentration0
    sum_p, sum_q = p1 + p0, q1 + q0
    t1 = mg.lgamma(q1) + mg.lgamma(q0) + mg.lgamma(sum_p)
    t2 = mg.lgamma(p1) + mg.lgamma(p0) + mg.lgamma(sum_q)
    t3 = (p1 - q1) * mg.digamma(p1)
    t4 = (p0 - q0) * mg.digamma(p0)
    t5 = (sum_q - sum_p) * mg.digamma(sum_p)
    return t1 - t2 + t3 + t4 + t5


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    t1 = q.concentration * mg.log(p.rate / q.rate)
    t2 = mg.lgamma(q.concentration) - mg.lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * mg.digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    sum_p, sum_q = p.concentration.sum(-1), q.concentration.sum(-1)
    t1 = mg.lgamma(sum_p) - mg.lgamma(sum_q)
    t2 = (mg.lgamma(p.concentration) - mg.lgamma(q.concentration)).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = mg.digamma(p.concentration) - mg.digamma(sum_p).unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    ratio = q.rate / p.rate
    return ratio - 1 - ratio.log()


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    distance = (p.loc - q.loc).abs()
    return -scale_ratio.log() + distance / q.scale + \
        scale_ratio * mg.exp(-distance / p.scale) - 1


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = mg.log((q.high - q.low) / (p.high - p.low))
    return _inf_where((q.low > p.low) | (q.high < p.high), result)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event "
                         "shapes cannot be computed")
    n = p.event_shape[0]
    Lp, Lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = Lq.diagonal(dim1=-2, dim2=-1).log().sum(-1) - \
        Lp.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    batch = list(mg.broadcast_shapes(tuple(p.batch_shape), tuple(q.batch_shape)))
    Lq_b, Lp_b = Lq.expand(batch + [n, n]), Lp.expand(batch + [n, n])
    term2 = mg.linalg.solve_triangular(Lq_b, Lp_b, upper=False).pow(2).sum([-2, -1])
    diff = (q.loc - p.loc).expand(batch + [n]).unsqueeze(-1)
    term3 = mg.linalg.solve_triangular(Lq_b, diff, upper=False).pow(2).sum([-2, -1])
    return half_term1 + 0.5 * (term2 + term3 - n)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    extra = len(p.event_shape) - len(p.base_dist.event_shape)
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), extra)


# ---- more families and pairs across families ------------------------------------------------
# A pair across families is KL(p || q) = -H(p) + CE(p, q), the cross entropy
# CE(p, q) = -E_p[log q(x)] written with the moments of p that the density of q needs. Where
# p's support is not inside q's, KL is infinite.

def _inf_like(p):
    """inf for each batch element of ``p``, in the dtype of its parameters."""
    like = next((v for v in vars(p).values() if isinstance(v, mg.Tensor)), None)
    return mg.full(list(p.batch_shape), math.inf,
                   dtype=like.dtype if like is not None else mg.get_default_dtype())


def _kl_infinite(p, q):
    return _inf_like(p)


def _ce_normal(mean, variance, q):
    """-E[log Normal(q.loc, q.scale)] for x of this ``mean`` and ``variance``."""
    return q.scale.log() + 0.5 * math.log(2 * math.pi) + \
        (variance + (mean - q.loc).pow(2)) / (2 * q.scale.pow(2))


def _ce_exponential(mean, q):
    return -q.rate.log() + q.rate * mean


def _ce_gamma(mean, mean_log, q):
    c, r = q.concentration, q.rate
    return -c * r.log() + mg.lgamma(c) - (c - 1) * mean_log + r * mean


def _ce_gumbel(mean, mean_exp_neg, q):
    """``mean_exp_neg``: E[exp(-x / q.scale)]."""
    return q.scale.log() + (mean - q.loc) / q.scale + (q.loc / q.scale).exp() * mean_exp_neg


def _ce_beta(mean_log, mean_log1m, q):
    a, b = q.concentration1, q.concentration0
    return mg.lgamma(a) + mg.lgamma(b) - mg.lgamma(a + b) - (a - 1) * mean_log - \
        (b - 1) * mean_log1m


def _ce_continuous_bernoulli(mean, q):
    return -mean * q.probs.log() - (1 - mean) * mg.log1p(-q.probs) - \
        q._log_normalizer_of_probs()


def _ce_pareto(mean_log, q):
    return -q.alpha.log() - q.alpha * q.scale.log() + (q.alpha + 1) * mean_log


def _uniform_mean_log(low, high):
    """E[log x] for x uniform on [low, high], 0 <= low."""
    return (mg.xlogy(high, high) - mg.xlogy(low, low)) / (high - low) - 1


def _kl_via(cross_entropy, inf_mask=None):
    """The KL function ``-H(p) + cross_entropy(p, q)``, infinite where ``inf_mask(p, q)``."""
    def kl(p, q):
        result = -p.entropy() + cross_entropy(p, q)
        return result if inf_mask is None else _inf_where(inf_mask(p, q), result)
    return kl


def _register_all(pairs, fn):
    for type_p, type_q in pairs:
        register_kl(type_p, type_q)(fn)


# moments of p that the cross entropies need

def _mean_log(p):
    """E_p[log x]."""
    if isinstance(p, Beta):
        return mg.digamma(p.concentration1) - mg.digamma(p.concentration1 + p.concentration0)
    if isinstance(p, Exponential):
        return -_EULER_GAMMA - p.rate.log()
    if isinstance(p, Pareto):
        return p.scale.log() + p.alpha.reciprocal()
    if isinstance(p, Uniform):
        return _uniform_mean_log(p.low.clamp(min=0), p.high.clamp(min=0))
    raise NotImplementedError


def _mean_exp_neg(p, t):
    """E_p[exp(-x / t)], the moment generating function at -1/t."""
    if isinstance(p, Exponential):
        return p.rate / (p.rate + 1 / t)
    if isinstance(p, Gamma):
        return (p.rate / (p.rate + 1 / t)).pow(p.concentration)
    if isinstance(p, Gumbel):
        # x = loc + scale G, E[exp(-s G)] = Gamma(1 + s) for a standard Gumbel G
        return (-p.loc / t).exp() * mg.lgamma(1 + p.scale / t).exp()
    if isinstance(p, Normal):
        return (-p.loc / t + p.scale.pow(2) / (2 * t.pow(2))).exp()
    if isinstance(p, Uniform):
        return t * ((-p.low / t).exp() - (-p.high / t).exp()) / (p.high - p.low)
    raise NotImplementedError


def _pareto_mean(p):
    """The mean of a Pareto p where it exists (alpha > 1; a finite stand-in elsewhere, where
    callers make the KL infinite)."""
    a = mg.where(p.alpha > 1, p.alpha, mg.full_like(p.alpha, 2.0))
    return a * p.scale / (a - 1)


def _pareto_moments(p):
    """(mean, variance) of a Pareto p where they exist (alpha > 2; finite stand-ins
    elsewhere)."""
    a = mg.where(p.alpha > 2, p.alpha, mg.full_like(p.alpha, 3.0))
    mean = a * p.scale / (a - 1)
    return mean, a * p.scale.pow(2) / (a - 2) - mean.pow(2)


_UNBOUNDED = (Exponential, Gamma, Gumbel, Laplace, Normal, Pareto)

# a p on an unbounded set against a q on a bounded one, or below a q's lower bound of 0
_register_all([(P, Q) for P in _UNBOUNDED for Q in (Beta, ContinuousBernoulli, Uniform)],
              _kl_infinite)
_register_all([(P, Pareto) for P in (Beta, ContinuousBernoulli, Exponential, Gamma, Gumbel,
                                     Laplace, Normal)], _kl_infinite)
_register_all([(P, Q) for P in (Gumbel, Laplace, Normal) for Q in (Exponential, Gamma)],
              _kl_infinite)
_register_all([(Poisson, Bernoulli), (Poisson, Binomial)], _kl_infinite)

_outside_unit = lambda p, q: (q.low > 0) | (q.high < 1)   # noqa: E731

# against a Normal
for _P in (Beta, ContinuousBernoulli, Exponential, Gamma, Gumbel, Laplace, Uniform):
    register_kl(_P, Normal)(_kl_via(lambda p, q: _ce_normal(p.mean, p.variance, q)))
register_kl(Pareto, Normal)(_kl_via(lambda p, q: _ce_normal(*_pareto_moments(p), q),
                                    lambda p, q: p.alpha <= 2))

# against an Exponential
for _P in (Beta, ContinuousBernoulli, Gamma):
    register_kl(_P, Exponential)(_kl_via(lambda p, q: _ce_exponential(p.mean, q)))
register_kl(Pareto, Exponential)(_kl_via(
    lambda p, q: _ce_exponential(_pareto_mean(p), q), lambda p, q: p.alpha <= 1))
register_kl(Uniform, Exponential)(_kl_via(lambda p, q: _ce_exponential(p.mean, q),
                                          lambda p, q: p.low < 0))

# against a Gamma
for _P in (Beta, Exponential):
    register_kl(_P, Gamma)(_kl_via(lambda p, q: _ce_gamma(p.mean, _mean_log(p), q)))
register_kl(Pareto, Gamma)(_kl_via(lambda p, q: _ce_gamma(_pareto_mean(p), _mean_log(p), q),
                                   lambda p, q: p.alpha <= 1))
register_kl(Uniform, Gamma)(_kl_via(lambda p, q: _ce_gamma(p.mean, _mean_log(p), q),
                                    lambda p, q: p.low < 0))

# against a Gumbel
for _P in (Exponential, Gamma, Gumbel, Normal, Uniform):
    register_kl(_P, Gumbel)(_kl_via(lambda p, q: _ce_gumbel(p.mean, _mean_exp_neg(p, q.scale),
                                                             q)))

# against a Laplace: E|x - loc| for a normal x is a folded normal's mean


def _kl_normal_laplace(p, q):
    d, s = p.loc - q.loc, p.scale
    mean_abs = s * math.sqrt(2 / math.pi) * (-d.pow(2) / (2 * s.pow(2))).exp() + \
        d * mg.erf(d / (s * math.sqrt(2)))
    return -p.entropy() + mg.log(2 * q.scale) + mean_abs / q.scale


register_kl(Normal, Laplace)(_kl_normal_laplace)

# against a Beta, a ContinuousBernoulli, a Uniform, a Pareto (bounded supports)
register_kl(Uniform, Beta)(_kl_via(
    lambda p, q: _ce_beta(_mean_log(p), _uniform_mean_log((1 - p.high).clamp(min=0),
                                                          (1 - p.low).clamp(min=0)), q),
    lambda p, q: (p.low < 0) | (p.high > 1)))
for _P in (Beta, ContinuousBernoulli):
    register_kl(_P, ContinuousBernoulli)(_kl_via(lambda p, q: _ce_continuous_bernoulli(
        p.mean, q)))
    register_kl(_P, Uniform)(_kl_via(lambda p, q: (q.high - q.low).log(), _outside_unit))
register_kl(Uniform, ContinuousBernoulli)(_kl_via(
    lambda p, q: _ce_continuous_bernoulli(p.mean, q), lambda p, q: (p.low < 0) | (p.high > 1)))
register_kl(Uniform, Pareto)(_kl_via(lambda p, q: _ce_pareto(_mean_log(p), q),
                                     lambda p, q: p.low < q.scale))
register_kl(Pareto, Pareto)(_kl_via(lambda p, q: _ce_pareto(_mean_log(p), q),
                                    lambda p, q: p.scale < q.scale))


# ---- pairs within the other families ------------------------------------------------------

@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    probs = p.probs
    return mg.xlogy(probs, probs) + mg.xlogy(1 - probs, 1 - probs) - probs * q.rate.log() + \
        q.rate


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count "
                                  "is not implemented")
    n = p.total_count
    kl = n * (p.probs * (p.logits - q.logits) + mg.log1p(-p.probs) - mg.log1p(-q.probs))
    return _inf_where(p.total_count > q.total_count, kl)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    return mg.log(((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)) /
                  (4 * p.scale * q.scale))


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - mg.log1p(-q.probs) / p.probs - q.logits


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli(p, q):
    return -p.entropy() + _ce_continuous_bernoulli(p.mean, q)


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    return -p.entropy() + _ce_gumbel(p.mean, _mean_exp_neg(p, q.scale), q)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """The Bregman divergence of the log normaliser F: F(tq) - F(tp) - <tq - tp, grad F(tp)>
    (natural parameters t), for two of the same family. Unlike PyTorch 2.13's, it keeps the
    gradient to p's parameters."""
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential "
                                  "families cannot be computed using Bregman divergences")
    # p's natural parameters as they are (so the result has its gradient to p's parameters),
    # made differentiable where they are constants
    p_params = [t if t.requires_grad else t.detach().requires_grad_()
                for t in p._natural_params]
    q_params = q._natural_params
    with mg.enable_grad():
        lg_p = p._log_normalizer(*p_params)
        grads = mg.autograd.grad(lg_p.sum(), p_params, create_graph=True)
    result = q._log_normalizer(*q_params) - lg_p
    for tp, tq, g in zip(p_params, q_params, grads):
        term = (tq - tp) * g
        result = result - _sum_rightmost(term, len(q.event_shape))
    return result


def _as_multivariate_normal(d):
    """A LowRankMultivariateNormal as the MultivariateNormal of its covariance."""
    if isinstance(d, MultivariateNormal):
        return d
    return MultivariateNormal(d.loc, scale_tril=d.scale_tril, validate_args=False)


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
@register_kl(LowRankMultivariateNormal, MultivariateNormal)
@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_mvn(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two (Low Rank) Multivariate Normals with "
                         "different event shapes cannot be computed")
    return _kl_mvn_mvn(_as_multivariate_normal(p), _as_multivariate_normal(q))
