"""Helpers shared by the distributions: parameters as broadcast tensors, probabilities and
logits, noise drawn from mutograd's generator, and cached derived parameters."""
import numbers

import numpy as np

import mutograd as mg

from .. import random
from ..tensor import Tensor, _wrap

__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs", "noise",
           "probs_to_logits", "tiny", "eps"]


def as_tensor(value, like=None, cls=Tensor):
    """``value`` as a float tensor: a Tensor as it is, a number in ``like``'s dtype and place
    (or the default float dtype), made a ``cls`` (the dialect's tensor type)."""
    if isinstance(value, Tensor):
        return value
    if like is not None:
        return _wrap(like._place.xp.asarray(value, dtype=like._data.dtype), like)
    t = mg.tensor(float(value), dtype=mg.get_default_dtype())
    if cls is not Tensor:
        t.__class__ = cls
    return t


def broadcast_all(*values, cls=Tensor):
    """The tensors and numbers ``values`` as tensors of one shape: numbers take the first
    tensor's dtype and place, or the default float dtype when none is a tensor.

        >>> import mutograd as mg
        >>> a, b = broadcast_all(mg.zeros([2]), 1.0)
        >>> list(b.shape)
        [2]
    """
    if not all(isinstance(v, (Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    like = next((v for v in values if isinstance(v, Tensor)), None)
    ts = [as_tensor(v, like, cls) for v in values]
    if like is None or all(t.shape == ts[0].shape for t in ts):
        return tuple(ts)
    return tuple(mg.broadcast_tensors(*ts))


def tiny(t):
    """The smallest positive normal number of ``t``'s dtype."""
    return float(np.finfo(t._data.dtype).tiny)


def eps(t):
    """The machine epsilon of ``t``'s dtype."""
    return float(np.finfo(t._data.dtype).eps)


def clamp_probs(probs):
    """``probs`` kept inside (0, 1) by the dtype's epsilon, so logs of them stay finite."""
    e = eps(probs)
    return probs.clamp(min=e, max=1 - e)


def probs_to_logits(probs, is_binary=False):
    """Logits of probabilities: ``log p - log(1 - p)`` for binary ones, else ``log p``."""
    p = clamp_probs(probs)
    return mg.log(p) - mg.log1p(-p) if is_binary else mg.log(p)


def logits_to_probs(logits, is_binary=False):
    """Probabilities of logits: the sigmoid for binary ones, else the softmax of the last
    dimension."""
    return mg.sigmoid(logits) if is_binary else mg.softmax(logits, -1)


def noise(kind, shape, like, *args):
    """A tensor of ``shape`` drawn by the generator method ``kind`` (``'standard_normal'``,
    ``'random'``, ``'poisson'`` with the rates as ``args``, ...) of ``like``'s place, with
    ``like``'s dtype, place and tensor type; no gradient flows through it. ``mutograd.seed``
    makes it reproducible."""
    rng = random.generator(like._place)
    args = [a._data if isinstance(a, Tensor) else a for a in args]   # parameters of the draw
    arr = getattr(rng, kind)(*args, size=tuple(shape))
    return _wrap(like._place.xp.asarray(arr).astype(like._data.dtype), like)


class lazy_property:
    """A property computed on first use and then kept in the instance (a derived parameter:
    ``logits`` of a distribution given ``probs``)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = self.wrapped(instance)
        instance.__dict__[self.wrapped.__name__] = value
        return value
