"""Samples of distributions whose parameters are tensors, for both dialects (``poisson``,
``binomial``, Paddle's ``standard_gamma``): drawn on the parameters' place by that place's
generator (:func:`mutograd.random.generator`), so a seed gives the same samples wherever the
tensors live and no host array meets device data. No gradient flows through a draw.

    >>> import mutograd as mg
    >>> from mutograd.compat.sampling import sample
    >>> _ = mg.seed(0)
    >>> sample("poisson", mg.zeros([3])).tolist()
    [0.0, 0.0, 0.0]
"""
from .. import random
from ..tensor import Tensor, _wrap


def sample(distribution, *params, dtype=None, generator=None):
    """Draw ``distribution`` (a method of the place's generator: ``'poisson'``, ``'binomial'``,
    ...) with the tensors ``params`` as its parameters, on the place of the first one; the
    result has ``dtype`` (default: the first parameter's) and comes from ``generator`` when
    given, else from mutograd's seeded one."""
    like = params[0]
    rng = random.generator(like._place, generator)
    drawn = getattr(rng, distribution)(*(p._data if isinstance(p, Tensor) else p
                                         for p in params))
    return _wrap(drawn.astype(like._data.dtype if dtype is None else dtype), like)
