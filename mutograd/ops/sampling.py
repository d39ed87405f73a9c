"""Random samples whose probabilities are given as a tensor: ``multinomial`` (category indices
drawn from weights) and ``bernoulli`` (0/1 draws), drawn on the probabilities' place by that
place's generator (:func:`mutograd.random.generator`). No gradient flows through a draw. The fills
that sample into an existing tensor (``bernoulli_``, ``uniform_``, ...) are in fills.py and
creation.py.

    >>> import mutograd as mg
    >>> _ = mg.seed(0)
    >>> mg.tensor([0.0, 1.0, 1.0]).bernoulli().tolist()
    [0.0, 1.0, 1.0]
"""

from ..errors import ShapeError
from ..tensor import Tensor, _wrap
from . import creation


def multinomial(x, num_samples, replacement=False, generator=None, name=None):
    """Draw ``num_samples`` category indices per row of the non-negative weights ``x`` (1-D or
    2-D), with or without replacement; draws from ``generator`` or mutograd's seeded one.

        >>> import mutograd as mg
        >>> _ = mg.seed(0)
        >>> mg.multinomial(mg.tensor([0., 1., 0.]), 2, replacement=True).tolist()
        [1, 1]
    """
    from .. import random
    if not isinstance(x, Tensor):
        raise TypeError(f"multinomial(): weights must be a Tensor, got {type(x).__name__}")
    if x.ndim not in (1, 2):
        raise ShapeError(f"multinomial(): prob_dist must be 1 or 2 dim, got {x.ndim} dims")
    xp = x._place.xp
    w = x._data.astype(xp.float64)
    rows = w.reshape(-1, w.shape[-1])
    n = rows.shape[1]
    num_samples = int(num_samples)
    if num_samples <= 0:
        raise ValueError(f"multinomial(): cannot sample num_samples={num_samples} <= 0 samples")
    if not replacement and num_samples > n:
        raise ValueError(f"multinomial(): cannot sample n_sample > prob_dist.size(-1) samples "
                         f"without replacement ({num_samples} > {n})")
    if not bool(xp.all(xp.isfinite(rows))) or bool((rows < 0).any()):
        raise ValueError("multinomial(): probability tensor contains either inf, nan or "
                         "element < 0")
    sums = rows.sum(axis=1)
    if bool((sums <= 0).any()):
        raise ValueError("multinomial(): invalid multinomial distribution (sum of "
                         "probabilities <= 0)")
    if not replacement and bool((xp.count_nonzero(rows, axis=1) < num_samples).any()):
        raise ValueError("multinomial(): invalid multinomial distribution (with replacement="
                         "False, not enough non-negative category to sample)")
    rng = random.generator(x._place, generator)
    choose = (lambda p: rng.choice(n, size=num_samples, replace=replacement, p=p)) \
        if x._place.kind == "cpu" else \
        (lambda p: _choice(xp, rng, p, num_samples, replacement))
    out = xp.stack([choose(r / s) for r, s in zip(rows, sums)])
    return _wrap(out.reshape(w.shape[:-1] + (num_samples,)).astype(xp.int64), x)


def _choice(xp, rng, p, size, replace):
    """``numpy.random.Generator.choice(len(p), size, replace, p)`` in the array namespace
    ``xp``, for a generator with no ``choice`` (CuPy's): the same inverse-CDF search over the
    same uniform draws, so a generator seeded alike picks the same categories as on the CPU."""
    if replace:
        cdf = xp.cumsum(p)
        return xp.searchsorted(cdf / cdf[-1], rng.random((size,)), side="right")
    p, found, n_found = p.copy(), xp.zeros(size, xp.int64), 0
    while n_found < size:            # redraw the places a repeated category took
        u = rng.random((size - n_found,))
        p[found[:n_found]] = 0
        cdf = xp.cumsum(p)
        new = xp.searchsorted(cdf / cdf[-1], u, side="right")
        first = xp.sort(xp.unique(new, return_index=True)[1])
        found[n_found:n_found + first.size] = new[first]
        n_found += int(first.size)
    return found


def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples, 1 with the probability in ``input`` (or ``p``); a new tensor."""
    out = creation.zeros(*input.shape, dtype=input.dtype, device=input.place)
    return out.bernoulli_(input if p is None else p, generator=generator)


TENSOR_METHODS = {"bernoulli": bernoulli}
FUNCTIONS = {"multinomial": multinomial}
