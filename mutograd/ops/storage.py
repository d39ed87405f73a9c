"""Storage swaps: ``cast_``, ``set_``, ``resize_``/``resize_as_`` and ``reconstruct_from_``.

They give a tensor another buffer, or another view of its buffer, and keep its identity. The
first four are declared ``kind="storage"`` and run by the runner (Note [Storage-changing writes]
in autograd/dispatch.py). The public ``set_`` takes PyTorch's positional order
``(source, storage_offset, size, stride)``; Paddle's ``(source, shape, stride, offset)`` is
``mutograd.compat.paddle``'s (here its keywords ``shape=`` and ``offset=`` are accepted).
"""
import numpy as np

from .. import dtypes
from ..autograd.dispatch import give_buffer
from ..autograd.grad_mode import _state
from ..errors import InplaceError, ShapeError
from ..tensor import Tensor
from ..transfer import on_place
from .axes import is_axis, paddle_order
from .creation import shape_args
from .registry import OPS, call_inplace, check_leaf, defop


def _cast(xp, x, *, dtype):
    npd = dtypes.to_numpy(dtype)
    if x._data.dtype == npd:
        return x._data, x   # a write like any other (design.md rule 9): the version goes up
    if x._base is not None:
        raise InplaceError(f"cast_(): cannot change the dtype of a view in place (shape "
                           f"{list(x.shape)}); the storage it views has dtype {x.dtype}")
    return x._data.astype(npd), None


defop("cast", _cast, kind="storage", method="inplace", node_name="AstypeBackward",
      grad=lambda g, x_dtype: g.astype(x_dtype),
      doc="Paddle's ``cast_``: ``x`` converted to ``dtype`` in place (a new buffer; ``y is x``); "
          "the gradient casts back, a cast to a non-float dtype leaves the graph.",
      example="mg.cast_(mg.tensor([1.7, 2.2]), 'int64').tolist()")


def _set(xp, x, *, source=None, shape=None, stride=None, offset=None, storage_offset=None):
    if source is None:
        source = on_place(xp.empty(0, x._data.dtype), x._place)
    else:
        if source._data.dtype != x._data.dtype:
            raise InplaceError(f"set_(): source has dtype {source.dtype} but the tensor set has "
                               f"dtype {x.dtype}; cast one of them first")
        if _state.enabled and source._rg:
            raise InplaceError("set_(): source requires grad and set_ has no gradient; call it "
                               "under no_grad() or pass source.detach()")
    arr = source._data
    if offset is not None:
        if offset % arr.itemsize:
            raise ShapeError(f"set_(): offset {offset} is not a multiple of the element size "
                             f"{arr.itemsize}")
        storage_offset = offset // arr.itemsize
    if shape is not None or stride is not None or storage_offset:
        shape = tuple(arr.shape) if shape is None else shape_args((shape,))
        if stride is None:
            stride = [int(np.prod(shape[i + 1:])) for i in range(len(shape))]
        arr = OPS["as_strided"].fwd(np, arr, size=shape, stride=tuple(stride),
                                    storage_offset=storage_offset or 0)
    return arr, source


# published through set_ below
defop("set", _set, kind="storage", inplace="internal", method="inplace")


def set_(x, source=None, storage_offset=None, size=None, stride=None, *, shape=None, offset=None,
         name=None):
    """Make ``x`` look into ``source``'s storage (PyTorch's ``set_(source, storage_offset, size,
    stride)``); returns ``x``. ``storage_offset`` counts elements, the keyword ``offset``
    (Paddle's) bytes; ``shape=`` is ``size=``. A shape in second place is Paddle's order
    (``mutograd.compat.paddle``'s ``set_``), refused here.

    Example::

        >>> import mutograd as mg
        >>> src = mg.tensor([1.0, 2.0, 3.0, 4.0])
        >>> mg.zeros(1).set_(src, 1, [2], [1]).tolist()
        [2.0, 3.0]
    """
    if storage_offset is not None and not is_axis(storage_offset):
        raise paddle_order("set_(source, shape, ...)", "set_(source, storage_offset, size, "
                           "stride)", "set_(x, source, shape, stride, offset)",
                           "set_(source, shape, stride, offset)")
    return call_inplace(OPS["set"], [x], {
        "source": source, "shape": size if shape is None else shape, "stride": stride,
        "offset": offset, "storage_offset": storage_offset})


def _resize(xp, x, *, shape, fill_zero=False, memory_format=None):
    shape = shape_args((shape,))
    if any(s < 0 for s in shape):
        raise ShapeError(f"resize_(): the shape {list(shape)} has a negative dimension")
    if x._base is not None:
        raise InplaceError("resize_(): cannot resize a view in place; resize the tensor it "
                           "views, or a clone()")
    n = int(np.prod(shape))
    old = x._data
    if n <= old.size and old.flags.c_contiguous:
        return old.reshape(-1)[:n].reshape(shape), x
    arr = xp.zeros(shape, old.dtype)
    k = min(n, old.size)
    arr.reshape(-1)[:k] = old.reshape(-1)[:k]
    return arr, None


defop("resize", _resize, kind="storage", method="inplace", varargs="shape",
      keywords={"size": "shape"},
      doc="Give ``x`` a new shape with the same dtype, keeping its first elements (``y is x``): "
          "a shape with no more elements than ``x`` holds is a view of them (no allocation), a "
          "larger one moves ``x`` to a new buffer whose extra elements are zeros.",
      example="mg.tensor([[1., 2.], [3., 4.]]).resize_(3).tolist()")
defop("resize_as", lambda xp, x, other, memory_format=None: _resize(xp, x, shape=other.shape),
      kind="storage", method="inplace", doc=":func:`resize_` to ``other``'s shape.",
      example="mg.zeros([2, 2]).resize_as_(mg.zeros([3])).shape")


def reconstruct_from_(x, other):
    """Paddle's ``x.reconstruct_from_(other)``: ``x`` becomes a copy of ``other`` (values, shape,
    dtype and ``stop_gradient``), as a new leaf; returns ``x``.

    Unlike Paddle, a leaf that requires grad is refused while grad mode is on (a graph that used
    it would send its gradient to a tensor that is no longer the one it used).
    """
    if not isinstance(other, Tensor):
        raise TypeError(f"reconstruct_from_() expects a Tensor, got {type(other).__name__}")
    if x._base is not None:
        raise InplaceError("reconstruct_from_(): cannot replace the storage of a view in place")
    if _state.enabled:
        check_leaf(x, "reconstruct_from_")
    give_buffer(x, other._data.copy(), "reconstruct_from_")
    x.grad_fn = None
    x._rg = other._rg
    return x


FUNCTIONS = {"reconstruct_from_": reconstruct_from_, "set_": set_}
