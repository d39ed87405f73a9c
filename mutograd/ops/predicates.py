"""Questions about values and dtypes answered with booleans (no gradient): the element-wise
``isposinf``, ``isneginf``, ``isreal``, ``isclose``, ``signbit``, and the whole-tensor
``is_nonzero``, ``is_same_size``, ``is_floating_point``, ``is_signed``, ``x.allclose(y)``.
(``isnan``, ``isinf``, ``isfinite`` are declared with the element-wise ops.)

    >>> import mutograd as mg
    >>> mg.isposinf(mg.tensor([1.0, float("inf"), -float("inf")])).tolist()
    [False, True, False]
    >>> mg.is_floating_point(mg.tensor([1])), mg.tensor([1.0]).allclose(mg.tensor([1.0]))
    (False, True)
"""
import numpy as np

from ..tensor import Tensor, _wrap
from . import creation
from .searching import array_of, backend_of


def isposinf(input):
    return input.isinf() & (input > 0)


def isneginf(input):
    return input.isinf() & (input < 0)


def isreal(input):
    """True where the imaginary part is 0 (everywhere for a real tensor)."""
    if input.is_complex():
        return input.imag == 0
    return creation.ones(*input.shape, dtype="bool", device=input.place)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|a - b| <= atol + rtol * |b|`` element-wise, as a bool tensor."""
    xp = backend_of(a) if isinstance(a, Tensor) else backend_of(b)
    return _wrap(xp.isclose(array_of(a), array_of(b), rtol=rtol, atol=atol, equal_nan=equal_nan),
                 a if isinstance(a, Tensor) else b)


def signbit(x):
    """Whether each element's sign bit is set (true for -0.0 too)."""
    return _wrap(backend_of(x).signbit(array_of(x)), x)


def is_nonzero(input):
    """Whether the single element of ``input`` is nonzero."""
    if input.numel() != 1:
        what = "no" if not input.numel() else "more than one"
        raise RuntimeError(f"Boolean value of Tensor with {what} values is ambiguous")
    return bool(input.item())


def is_same_size(input, other):
    return tuple(input.shape) == tuple(other.shape)


def is_floating_point(input):
    return input.dtype.is_floating_point


def is_signed(input):
    return input.dtype.is_signed


TENSOR_METHODS = {
    "allclose": lambda self, other, rtol=1e-05, atol=1e-08, equal_nan=False: bool(
        np.allclose(self.numpy(), other.numpy(), rtol, atol, equal_nan)),
}
FUNCTIONS = {f.__name__: f for f in (isposinf, isneginf, isreal, isclose, signbit, is_nonzero,
                                     is_same_size, is_floating_point, is_signed)}
