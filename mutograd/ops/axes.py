"""Dimension arguments: one rule for every op that takes ``axis``/``dim``.

A dimension ``d`` of a tensor with ``n`` dimensions is valid when ``-n <= d < n`` and means
``d % n``. A 0-d tensor counts as having one dimension here (PyTorch's rule): ``dim=0`` and
``dim=-1`` name its single element, anything else is out of range. Out of range is an
``IndexRangeError`` naming the op, never the ``ZeroDivisionError`` of ``d % 0`` or a backend's
own error.

    >>> canon_dim(-1, 2, "sum"), canon_dim(-1, 0, "sum"), canon_dims((1, -2), 2, "sum")
    (1, 0, (0, 1))
"""
import functools

from ..errors import IndexRangeError


def canon_dim(d, ndim, what):
    """``d`` as an index in ``range(max(ndim, 1))``, or an IndexRangeError."""
    n = max(ndim, 1)
    if not -n <= d < n:
        raise IndexRangeError(f"{what}(): dimension out of range (expected to be in range of "
                              f"[{-n}, {n - 1}], but got {d})")
    return d % n


def real_dim(d, ndim, what, error=IndexRangeError):
    """``canon_dim`` for an op that works along a dimension the tensor must really have (select,
    narrow, split, unbind, repeat_interleave with a dim): PyTorch refuses a 0-d tensor there
    whatever ``d`` is, with ``error``."""
    if ndim == 0:
        raise error(f"{what}() cannot be applied to a 0-dim tensor (dimension {d})")
    return canon_dim(d, ndim, what)


def canon_dims(axis, ndim, what):
    """``axis`` (an int or a sequence of ints) as a sorted tuple of distinct dimensions; for a
    0-d tensor the empty tuple (its one element is the whole reduction)."""
    if isinstance(axis, int):
        axis = (axis,)
    dims = [canon_dim(d, ndim, what) for d in axis]
    if len(set(dims)) != len(dims):
        raise IndexRangeError(f"{what}(): a dimension appears more than once in {tuple(axis)}")
    return tuple(sorted(dims)) if ndim else ()


def keepdim_arg(keepdim, keepdims):
    """``keepdim`` (PyTorch, Paddle) or ``keepdims`` (NumPy), whichever was given."""
    return keepdim if keepdims is None else keepdims


def lift_0d(fn):
    """``fn(x, ...)`` for a 0-d ``x`` run as on a 1-element 1-D tensor (its dims 0 and -1 then
    exist, as they do in PyTorch), with the 0-d tensors among the other arguments lifted too; a
    1-element result comes back 0-d, and an in-place form returns ``x`` itself (the write went
    through the view)."""
    from ..tensor import Tensor

    def lift(v):
        return v.reshape(1) if isinstance(v, Tensor) and v.ndim == 0 else v

    @functools.wraps(fn)
    def run(x, *args, **kw):
        if not (isinstance(x, Tensor) and x.ndim == 0):
            return fn(x, *args, **kw)
        r = fn(lift(x), *[lift(a) for a in args], **{k: lift(v) for k, v in kw.items()})
        if fn.__name__.endswith("_"):
            return x
        return r.reshape(()) if isinstance(r, Tensor) and r.numel() == 1 else r
    return run


def is_axis(v):
    """A Python or NumPy integer (an axis), not a tensor, a bool or a list (an index)."""
    from ..tensor import Tensor
    return not isinstance(v, (Tensor, bool)) and hasattr(v, "__index__") and not hasattr(
        v, "__len__")


def paddle_order(call, main, paddle=None, method=None):
    """The TypeError for a call to the main namespace whose positional arguments are only valid
    in Paddle's order: the main namespace takes PyTorch's (``main``), the paddle namespace
    Paddle's (``paddle``, and ``method`` on a ``paddle.Tensor``); nothing is reinterpreted."""
    text = (f"{call} is not PyTorch's argument order, which the main namespace takes: "
            f"{main}.")
    if paddle:
        text += f" Paddle's order is mutograd.compat.paddle.{paddle}" + (
            f" (x.{method} on a paddle.Tensor)." if method else ".")
    return TypeError(text)
