"""Dropout layers: ``Dropout``, ``Dropout1d/2d/3d`` (whole channels), ``AlphaDropout`` and
``FeatureAlphaDropout``; identity in eval mode.

    >>> import mutograd as mg
    >>> drop = mg.nn.Dropout2d(0.5).eval()
    >>> x = mg.ones([2, 3, 1, 1])
    >>> drop(x) is x
    True
"""


from .. import functional as F
from ..functional import dropouts as _dropouts
from ..module import Module


class _DropoutNd(Module):
    """The base of the dropout layers: probability ``p`` and ``inplace``, as PyTorch's."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    fn = staticmethod(F.dropout)     # each dropout module: ``fn(x, p, training, inplace)``

    def forward(self, input):
        return type(self).fn(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zero elements with probability ``p`` in training (``inplace=True``: into the input)."""


class Dropout2d(Dropout):
    """Zero whole channels of (N, C, H, W) with probability ``p``."""
    fn = staticmethod(F.dropout2d)


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
