"""Paddle's argument orders where they clash with PyTorch's, as functions and ``paddle.Tensor``
methods (:data:`METHODS`).

The main namespace takes PyTorch's order only (``gather(x, dim, index)``, ``transpose(x, dim0,
dim1)``, ``polygamma(n, x)``, ...) and refuses Paddle's with a TypeError. Here are Paddle's:
``gather(x, index, axis=None)`` and ``index_select(x, index, axis=0)`` (whole slices),
``scatter(x, index, updates, overwrite=True)``, ``index_add(x, index, axis, value)``,
``index_fill(x, index, axis, value)``, ``polygamma(x, n)``, ``transpose(x, perm)``,
``fill_diagonal_(x, value, offset=0, wrap=False)`` and ``set_(x, source, shape, stride,
offset)``. Each calls the main function in PyTorch's order or the declared op itself, so
values, gradients and errors are those of the op.

    >>> import mutograd.compat.paddle as paddle
    >>> x = paddle.to_tensor([[1., 2.], [3., 4.]])
    >>> paddle.gather(x, paddle.to_tensor([1])).tolist()
    [[3.0, 4.0]]
    >>> x.index_add(paddle.to_tensor([0]), 1, paddle.to_tensor([[10.], [20.]])).tolist()
    [[11.0, 2.0], [23.0, 4.0]]
"""
import mutograd as _mg

from ...ops.indexing import _int_index
from ...ops.registry import OPS, call, call_inplace
from ...ops.scatter_reduce import _index_array
from ...tensor import Tensor


def _axis(axis):
    """Paddle's axis: an int, or an integer tensor holding one."""
    return int(axis.item()) if isinstance(axis, Tensor) else axis


def gather(x, index, axis=None, name=None):
    """The slices of ``x`` at the 1-D (or 0-D) integer ``index`` along ``axis`` (0 when None):
    Paddle's ``gather``, PyTorch's ``index_select`` (``mutograd.gather(x, dim, index)`` is
    PyTorch's ``gather``)."""
    return _mg.index_select(x, 0 if axis is None else _axis(axis), _int_index(index, "gather"))


def index_select(x, index, axis=0, name=None):
    """The slices of ``x`` at the 1-D integer ``index`` along ``axis``."""
    return _mg.index_select(x, _axis(axis), index)


def _scatter(write, x, index, updates, overwrite):
    """Paddle's ``scatter`` along axis 0: the rows ``index`` names set to ``updates``; without
    ``overwrite`` they are first zeroed, then every update is added (repeated rows sum)."""
    index = _index_array(index)
    if overwrite:
        return write(OPS["index_copy"], [x, index, updates], {"axis": 0})
    x = write(OPS["index_fill"], [x, index, 0.0], {"axis": 0})
    return write(OPS["index_add"], [x, index, updates], {"axis": 0, "alpha": 1})


def scatter(x, index, updates, overwrite=True, name=None):
    """A copy of ``x`` with the rows (axis 0) at ``index`` replaced by ``updates``, or, with
    ``overwrite=False``, by the sum of the updates each receives."""
    return _scatter(call, x, index, updates, overwrite)


def scatter_(x, index, updates, overwrite=True, name=None):
    """:func:`scatter` written into ``x``; returns ``x``."""
    return _scatter(call_inplace, x, index, updates, overwrite)


def index_add(x, index, axis, value, name=None):
    """A copy of ``x`` with the slices of ``value`` added at ``index`` along ``axis``."""
    return _mg.index_add(x, _axis(axis), index, value)


def index_add_(x, index, axis, value, name=None):
    """:func:`index_add` written into ``x``; returns ``x``."""
    return _mg.index_add_(x, _axis(axis), index, value)


def index_fill(x, index, axis, value, name=None):
    """A copy of ``x`` with the slices at ``index`` along ``axis`` set to ``value``."""
    return _mg.index_fill(x, _axis(axis), index, value)


def index_fill_(x, index, axis, value, name=None):
    """:func:`index_fill` written into ``x``; returns ``x``."""
    return _mg.index_fill_(x, _axis(axis), index, value)


def polygamma(x, n, name=None):
    """The ``n``-th derivative of digamma at ``x``."""
    return _mg.polygamma(n, x)


def transpose(x, perm, name=None):
    """Permute the dimensions of ``x`` by ``perm`` (a view)."""
    if not isinstance(perm, (list, tuple)):
        raise TypeError(f"paddle.transpose(x, perm): perm must list every dimension, such as "
                        f"[1, 0], got {perm!r}")
    return call(OPS["permute"], [x], {"perm": tuple(perm)})


def transpose_(x, perm, name=None):
    """:func:`transpose` in place: ``x`` takes the permuted geometry; returns ``x``."""
    return _mg.transpose_(x, perm=perm)


def fill_diagonal_(x, value, offset=0, wrap=False, name=None):
    """Fill diagonal ``offset`` of ``x`` with ``value`` in place (``wrap``: restart below every
    ``columns + 1`` rows of a tall matrix); returns ``x``."""
    return _mg.fill_diagonal_(x, value, wrap, offset=offset)


def set_(x, source=None, shape=None, stride=None, offset=0, name=None):
    """Make ``x`` look into ``source``'s storage with ``shape``, ``stride`` (elements) and
    ``offset`` (bytes); returns ``x``."""
    return _mg.set_(x, source, size=shape, stride=stride, offset=offset)


# the paddle.Tensor methods of the same order (self is x), in a mixin over the main Tensor's
METHODS = {f.__name__: f for f in (gather, index_select, scatter, scatter_, index_add,
                                   index_add_, index_fill, index_fill_, polygamma, transpose,
                                   transpose_, fill_diagonal_, set_)}
