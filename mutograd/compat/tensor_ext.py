"""Tensor methods that only one framework has: Paddle's ``set_value`` and ``gradient``.

``x.set_value(v)`` is a write like any other (DESIGN.md rule 9): it bumps ``x``'s version, is
refused on a leaf that requires grad while grad mode is on (rule 4; write it under ``no_grad()``,
as optimizers and checkpoint loaders do), and on a non-leaf it rebases the history: the old
values get a zero gradient and ``v`` (when it requires grad) receives the incoming gradient.
"""
from ..errors import ShapeError
from ..ops.registry import OPS, call_inplace, defop
from ..tensor import Tensor


def _set_value(xp, x, value, out=None):
    if getattr(value, "shape", ()) != x.shape and not isinstance(value, (int, float, bool)):
        raise ShapeError(f"set_value(): the value has shape {list(getattr(value, 'shape', ()))} "
                         f"but the tensor has shape {list(x.shape)}; they must be equal")
    if out is None:
        out = xp.empty_like(x)
    out[...] = value
    return out


defop("set_value", _set_value, result="same", method=False,
      grad=(lambda g, xp: xp.zeros_like(g), lambda g: g))


def set_value(self, value):
    """Overwrite every element with ``value`` (same shape; a Tensor, array or list); returns self.

    Example::

        >>> import mutograd as mg, mutograd.compat.paddle as paddle
        >>> w = paddle.zeros([2])
        >>> w.set_value([1., 2.]).inplace_version
        1
    """
    return call_inplace(OPS["set_value"], [self, value], {})


def gradient(self):
    """The gradient as a NumPy array, or None (Paddle's ``Tensor.gradient()``)."""
    return None if self._grad is None else self._grad.numpy()


Tensor.set_value = set_value
Tensor.gradient = gradient
