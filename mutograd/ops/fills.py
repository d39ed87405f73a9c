"""In-place fills: a constant (``fill_``, ``zero_``), random distributions (``normal_``,
``uniform_``, ``bernoulli_``, ``exponential_``, ``cauchy_``, ``geometric_``, ``log_normal_``,
``random_``) and diagonals (``fill_diagonal_``, ``fill_diagonal_tensor_``).

Fills are declared ops: they bump the version and obey the leaf rule. Random fills have no
gradient: a tensor that requires grad gets a zero gradient for what it held before (the new
values do not depend on it). They draw from the generator that ``mutograd.seed`` seeds, so runs
are reproducible, or from the ``generator=`` given.
"""
import numpy as np

from .. import random
from ..errors import ShapeError
from ..tensor import Tensor
from .axes import paddle_order
from .creation import _no_extra
from .gradients import zero_gradient
from .registry import OPS, call_inplace, defop
from .views import _diagonal


# ---- a constant --------------------------------------------------------------------------------
def _fill(xp, x, value, out=None):
    if out is None:
        return xp.full_like(x, value)
    out[...] = value
    return out


def _zero(xp, x, out=None):
    if out is None:
        return xp.zeros_like(x)
    out[...] = 0
    return out


defop("fill", _fill, result="same", fill=True, method="inplace",
      grad=(zero_gradient, lambda g: g.sum()))
defop("zero", _zero, result="same", fill=True, method="inplace",
      grad=zero_gradient)


# ---- random ----------------------------------------------------------------------------------
def _fill_from(out, r):
    out[...] = r
    return out


def _normal_fill(xp, x, out=None, mean=0.0, std=1.0, generator=None):
    return _fill_from(out, random.generator(xp, generator).standard_normal(x.shape) * std + mean)


def _uniform_fill(xp, x, out=None, low=0.0, high=1.0, generator=None):
    return _fill_from(out, random.generator(xp, generator).uniform(low, high, x.shape))


def _bernoulli_fill(xp, x, out=None, p=0.5, generator=None):
    pa = p._data if isinstance(p, Tensor) else p
    return _fill_from(out, random.generator(xp, generator).random(x.shape) < pa)


def _exponential_fill(xp, x, out=None, lambd=1.0, generator=None):
    return _fill_from(out, random.generator(xp, generator).exponential(1.0 / lambd, x.shape))


normal_ = defop("normal", _normal_fill, result="same", method="inplace").inplace_function
# both frameworks' spellings: PyTorch's uniform_(from, to), Paddle's uniform_(min, max), nn.init's
# uniform_(a, b); Paddle's seed= is accepted and ignored (the generator decides)
uniform_ = defop("uniform", _uniform_fill, result="same", method="inplace",
                 keywords={"from": "low", "a": "low", "min": "low", "to": "high", "b": "high",
                           "max": "high", "seed": None}).inplace_function
defop("bernoulli", _bernoulli_fill, result="same", method="inplace")
defop("exponential", _exponential_fill, result="same", method="inplace")


def _cauchy(xp, x, loc=0.0, scale=1.0, out=None, generator=None):
    return _fill_from(out, loc + scale * random.generator(xp, generator).standard_cauchy(x.shape))


def _geometric(xp, x, probs=None, out=None, generator=None):
    if probs is None:   # required, but both frameworks name it: checked here, with both names
        raise TypeError("geometric_() missing required argument 'probs' (or 'p')")
    if not 0 < probs <= 1:
        raise ValueError(f"geometric_: the success probability must be in (0, 1], got {probs}")
    # the number of Bernoulli trials up to and including the first success: 1, 2, 3, ...
    return _fill_from(out, random.generator(xp, generator).geometric(probs, x.shape))


def _log_normal(xp, x, mean=1.0, std=2.0, out=None, generator=None):
    if std <= 0:
        raise ValueError(f"log_normal_: std must be positive, got {std}")
    return _fill_from(out, random.generator(xp, generator).lognormal(mean, std, x.shape))


def _random_ints(xp, x, low=0, high=None, out=None, generator=None):
    dt = x.dtype
    if high is None:    # the whole range the dtype holds exactly
        if dt.kind == "f":
            high = 2 ** np.finfo(dt).nmant + 1
        elif dt.kind == "b":
            high = 2
        else:
            high = int(np.iinfo(dt).max) + 1
    if low >= high:
        raise ValueError(f"random_ expects 'from' to be less than 'to', but got from={low} >= "
                         f"to={high}")
    if dt.kind in "iu" and (low < np.iinfo(dt).min or high - 1 > np.iinfo(dt).max):
        raise ValueError(f"random_: the range [{low}, {high}) does not fit in {dt}")
    return _fill_from(out, random.generator(xp, generator).integers(
        low, high, x.shape, dtype=np.int64 if high <= 2 ** 63 else np.uint64))


# Paddle's loc/scale, PyTorch's median/sigma
defop("cauchy", _cauchy, result="same", method="inplace",
      keywords={"median": "loc", "sigma": "scale"})
# ``probs`` (Paddle) or ``p`` (PyTorch): the success probability, required
defop("geometric", _geometric, result="same", method="inplace", keywords={"p": "probs"})
defop("log_normal", _log_normal, result="same", method="inplace")
# random_(to) or random_(from, to): the public form is random_ below
defop("random", _random_ints, result="same", method="inplace")


def random_(x, *args, generator=None, **kw):
    """``random_()``, ``random_(to)`` or ``random_(from, to)``: integers in ``[from, to)``;
    without ``to``, the whole range the dtype holds exactly (``2**24`` for float32)."""
    low = kw.pop("from", kw.pop("from_", None))      # PyTorch's keyword, Paddle's keyword
    high = kw.pop("to", None)
    _no_extra(kw, "random_")
    if len(args) == 1:
        high = args[0]
    elif len(args) == 2:
        low, high = args
    elif args:
        raise TypeError(f"random_() takes at most 2 positional arguments ({len(args)} given)")
    return call_inplace(OPS["random"], [x], {"low": 0 if low is None else low, "high": high,
                                             "generator": generator})


# ---- diagonals -------------------------------------------------------------------------------
def _diag_index(shape, offset, wrap):
    """Flat positions of the diagonal ``(i, i + offset)`` of a matrix, or ``(i, i, ..., i)``."""
    if len(shape) < 2:
        raise ShapeError(f"fill_diagonal_: the tensor must have at least 2 dimensions, got "
                         f"{len(shape)}")
    if len(shape) > 2:
        if len(set(shape)) != 1:
            raise ShapeError(f"fill_diagonal_: all dimensions must be equal when the tensor "
                             f"has more than 2, got {list(shape)}")
        step = sum(int(np.prod(shape[k + 1:])) for k in range(len(shape)))
        return np.arange(shape[0]) * step
    n, m = shape
    if wrap and offset == 0 and n > m:
        return np.arange(0, n * m, m + 1)     # restart below every m + 1 rows, as NumPy does
    rows = np.arange(n)
    cols = rows + offset
    keep = (cols >= 0) & (cols < m)
    return rows[keep] * m + cols[keep]


def _fill_diagonal(xp, x, value, offset=0, wrap=False, out=None):
    idx = _diag_index(x.shape, offset, wrap)
    if out is None:
        out = x.copy()
    out.reshape(-1)[idx] = value
    return out


def _zero_diagonal(g, offset, wrap, xp):
    g = g.copy()
    g.reshape(-1)[_diag_index(g.shape, offset, wrap)] = 0
    return g


# the public form is fill_diagonal_ below (PyTorch's order)
defop("fill_diagonal", _fill_diagonal, kind="other", result="same",
      grad=(_zero_diagonal, lambda g, offset, wrap: g.reshape(-1)[
          _diag_index(g.shape, offset, wrap)].sum()))


def _fill_diagonal_tensor(xp, x, y, offset=0, dim1=0, dim2=1, out=None):
    d = _diagonal(xp, x, offset, dim1, dim2)
    try:
        fits = xp.broadcast_shapes(d.shape, y.shape) == d.shape
    except ValueError:
        fits = False
    if not fits:
        raise ShapeError(f"fill_diagonal_tensor_: y of shape {list(y.shape)} does not fit the "
                         f"diagonal of shape {list(d.shape)}")
    if out is None:
        out = x.copy()
    _diagonal(xp, out, offset, dim1, dim2)[...] = y
    return out


def _diag_positions(xp, shape, offset, dim1, dim2):
    """The flat positions of a diagonal, in the diagonal's shape: an index, so the gradients
    below are reads and writes that a gradient formula on tensors records."""
    return _diagonal(xp, xp.arange(int(np.prod(shape))).reshape(shape), offset, dim1, dim2)


def _diag_zeroed(g, offset, dim1, dim2, xp):
    flat = g.reshape(-1).copy()
    flat[_diag_positions(xp, g.shape, offset, dim1, dim2)] = 0
    return flat.reshape(g.shape)


defop("fill_diagonal_tensor", _fill_diagonal_tensor, kind="other", result="same",
      grad=(_diag_zeroed, lambda g, offset, dim1, dim2, xp: g.reshape(-1)[
          _diag_positions(xp, g.shape, offset, dim1, dim2)]))


def fill_diagonal_(x, fill_value=None, wrap=False, *, offset=0, value=None, name=None):
    """Fill the diagonal of ``x`` with ``fill_value`` in place (PyTorch's
    ``fill_diagonal_(fill_value, wrap=False)``; Paddle's keywords ``value=`` and ``offset=`` are
    accepted); returns ``x``. Paddle's positional ``fill_diagonal_(value, offset, wrap)`` is
    ``mutograd.compat.paddle``'s: an offset in the place of ``wrap`` is refused here.

    Example::

        >>> import mutograd as mg
        >>> mg.zeros([2, 3]).fill_diagonal_(1.0).tolist()
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    if not isinstance(wrap, (bool, np.bool_)):
        raise paddle_order("fill_diagonal_(value, offset, ...)", "fill_diagonal_(fill_value, "
                           "wrap=False, *, offset=0)", "fill_diagonal_(x, value, offset=0, "
                           "wrap=False)", "fill_diagonal_(value, offset, wrap)")
    if value is not None and fill_value is not None:
        raise TypeError("fill_diagonal_() got both 'fill_value' and 'value' (the same argument)")
    value = fill_value if value is None else value
    if value is None:
        raise TypeError("fill_diagonal_() missing required argument 'fill_value' (or 'value')")
    return call_inplace(OPS["fill_diagonal"], [x, value], {"offset": offset, "wrap": bool(wrap)})


FUNCTIONS = {"random_": random_, "fill_diagonal_": fill_diagonal_}
