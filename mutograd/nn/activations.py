"""Activation and dropout layers that complete PyTorch's set (Softmin, Softmax2d, Threshold,
GLU, RReLU, the alpha and 1-D/3-D dropouts) and ``softmin`` / ``gumbel_softmax``.

    >>> import mutograd as mg
    >>> mg.nn.Softmin(dim=0)(mg.tensor([0., 0.])).tolist()
    [0.5, 0.5]
"""
import numpy as np

from .. import random
from ..tensor import _wrap
from . import functional as F
from .functional import dropouts as _dropouts
from .layers import Dropout, _Activation
from .module import Module

__all__ = ["AlphaDropout", "Dropout1d", "Dropout3d", "FeatureAlphaDropout", "GLU", "RReLU",
           "Softmax2d", "Softmin", "Threshold"]


def _implicit_dim(ndim):
    # PyTorch's rule for a softmax called without ``dim`` (kept for old scripts)
    return 0 if ndim in (0, 1, 3) else 1


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-input)`` along ``dim``.

        >>> import mutograd as mg
        >>> softmin(mg.tensor([1., 1.]), dim=0).tolist()
        [0.5, 0.5]
    """
    return F.softmax(-input, _implicit_dim(input.ndim) if dim is None else dim, dtype=dtype)


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """A sample of the Gumbel-softmax distribution: ``softmax((logits + g) / tau)`` with
    Gumbel noise ``g`` from mutograd's generator; ``hard=True`` returns the one-hot of its
    maximum in the forward pass and the soft sample's gradient (straight-through).

        >>> import mutograd as mg
        >>> y = gumbel_softmax(mg.zeros([2, 3]), hard=True)
        >>> y.sum(-1).tolist()
        [1.0, 1.0]
    """
    noise = -np.log(random.generator().exponential(size=tuple(logits.shape)))
    xp = logits._place.xp       # the noise lives where the logits do
    y_soft = F.softmax((logits + _wrap(xp.asarray(noise.astype(logits.dtype.np)), logits)) / tau,
                       dim)
    if not hard:
        return y_soft
    axis = dim % logits.ndim
    idx = np.expand_dims(np.asarray(y_soft.numpy()).argmax(axis=axis), axis)
    onehot = np.zeros(tuple(logits.shape), logits.dtype.np)
    np.put_along_axis(onehot, idx, 1.0, axis=axis)
    return _wrap(xp.asarray(onehot), logits) - y_soft.detach() + y_soft


class Softmin(Module):
    """``softmax(-x)`` along ``dim``."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return softmin(x, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax2d(Module):
    """Softmax over the channels of (N, C, H, W) or (C, H, W)."""

    def forward(self, x):
        if x.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input of 3 or 4 dimensions, got {x.ndim}")
        return F.softmax(x, -3)


class Threshold(_Activation):
    """``x`` where ``x > threshold``, else ``value``."""
    fn, settings = staticmethod(F.threshold), ("threshold", "value")

    def __init__(self, threshold, value, inplace=False):
        super().__init__(inplace)
        self.threshold, self.value = threshold, value

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}" + (
            ", inplace=True" if self.inplace else "")


class GLU(Module):
    """The gated linear unit along ``dim``: ``a * sigmoid(b)`` of the two halves."""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return F.glu(x, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class RReLU(_Activation):
    """Leaky ReLU with a slope drawn from U(lower, upper) in training, their mean in eval."""
    fn, settings = staticmethod(_dropouts.rrelu), ("lower", "upper", "training")

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__(inplace)
        self.lower, self.upper = lower, upper

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}" + (
            ", inplace=True" if self.inplace else "")


def _dropout(name, fn, doc):
    cls = type(name, (Dropout,), {"__doc__": doc, "fn": staticmethod(fn)})
    cls.__module__ = __name__
    return cls



Dropout1d = _dropout("Dropout1d", F.dropout1d, "Zero whole channels of (N, C, L) in training.")
Dropout3d = _dropout("Dropout3d", F.dropout3d,
                     "Zero whole channels of (N, C, D, H, W) in training.")
AlphaDropout = _dropout("AlphaDropout", _dropouts.alpha_dropout,
                        "Dropout that keeps SELU's zero mean and unit variance.")
FeatureAlphaDropout = _dropout("FeatureAlphaDropout", _dropouts.feature_alpha_dropout,
                               "Alpha dropout of whole channels.")
