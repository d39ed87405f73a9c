"""Element-wise functions composed from declared element-wise ops (their gradients come from
those): logaddexp, logaddexp2, fmax and fmin (NaN-ignoring), positive, frexp (no gradient), and
the methods ``x.hardshrink()`` and ``x.prelu(w)``, which run the ``nn.functional`` activations.

    >>> import mutograd as mg
    >>> round(mg.logaddexp(mg.tensor(0.0), mg.tensor(0.0)).item(), 4)     # log(2)
    0.6931
    >>> mg.fmax(mg.tensor([1.0, float("nan")]), mg.tensor([float("nan"), 2.0])).tolist()
    [1.0, 2.0]
"""
import collections
import math

import numpy as np

from ..tensor import Tensor
from . import creation
from .registry import OPS


def logaddexp(input, other):
    """``log(exp(input) + exp(other))`` without overflow."""
    m = OPS["maximum"].function(input, other)
    return m + (-(input - other).abs()).exp().log1p()


def logaddexp2(input, other):
    """``log2(2^input + 2^other)``."""
    ln2 = math.log(2)
    return logaddexp(input * ln2, other * ln2) / ln2


def fmax(input, other):
    """Element-wise maximum ignoring NaN (NaN only where both are)."""
    where = OPS["where"].function
    return where(other.isnan(), input, where(input.isnan(), other,
                                             OPS["maximum"].function(input, other)))


def fmin(input, other):
    """Element-wise minimum ignoring NaN (NaN only where both are)."""
    where = OPS["where"].function
    return where(other.isnan(), input, where(input.isnan(), other,
                                             OPS["minimum"].function(input, other)))


def positive(x):
    """``x`` itself (``+x``)."""
    return x


def frexp(input):
    """``(mantissa, exponent)`` with ``input = mantissa * 2^exponent`` (no gradient)."""
    m, e = np.frexp(input.detach().numpy())
    return collections.namedtuple("frexp", ["mantissa", "exponent"])(
        creation.tensor(m), creation.tensor(e.astype(np.int32)))


Tensor.hardshrink = lambda self, lambd=0.5: __import__(
    "mutograd.nn.functional", fromlist=["hardshrink"]).hardshrink(self, lambd)
Tensor.prelu = lambda self, weight: __import__(
    "mutograd.nn.functional", fromlist=["prelu"]).prelu(self, weight)
FUNCTIONS = {f.__name__: f for f in (logaddexp, logaddexp2, fmax, fmin, positive, frexp)}
