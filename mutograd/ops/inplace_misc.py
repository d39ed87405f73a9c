"""In-place APIs that are not one element-wise formula: ``copy_``, ``cast_``, ``set_``,
``resize_``/``resize_as_``, ``reconstruct_from_``, ``apply_``, ``map_``, and the
function forms of ``detach_`` and ``requires_grad_``.

``cast_``, ``set_`` and ``resize_``/``resize_as_`` are storage swaps (``kind="storage"``), run
by the runner: Note [Storage-changing writes] in autograd/dispatch.py. ``reconstruct_from_``
gives the tensor a new buffer the same way; ``apply_`` and ``map_`` have no gradient and refuse
a tensor that requires grad while grad mode is on, as ``set_`` and ``resize_`` do.
"""
import numpy as np

from .. import dtypes
from ..autograd.dispatch import give_buffer
from ..autograd.grad_mode import _state, no_grad
from ..autograd.inplace import check_no_grad
from ..errors import InplaceError, ShapeError
from ..tensor import Tensor
from ..transfer import on_place
from .creation import shape_args
from .registry import OPS, call_inplace, check_leaf, defop


def _copy(xp, x, src, non_blocking=False, blocking=True, out=None):
    if out is None:
        return xp.array(xp.broadcast_to(src, x.shape), dtype=x.dtype)
    out[...] = src
    return out


# copy_ writes every element: the old values get a zero gradient, ``src`` gets ``g`` (summed
# over broadcast dimensions and cast back to its dtype by the registry).
defop("copy", _copy, result="same", method="inplace",
      grad=(lambda g, xp: xp.zeros_like(g), lambda g: g))


# ---- storage swaps (Note [Storage-changing writes] in autograd/dispatch.py) -----------------
def _cast(xp, x, *, dtype):
    npd = dtypes.to_numpy(dtype)
    if x._data.dtype == npd:
        return x._data, x   # a write like any other (DESIGN.md rule 9): the version goes up
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


# published through set_ (ops/argument_orders.py), which reads both frameworks' positional orders
defop("set", _set, kind="storage", inplace="internal", method="inplace")


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


def _apply_elementwise(fn, arr, xp):
    out = xp.empty_like(arr)
    flat_in, flat_out = arr.reshape(-1), out.reshape(-1)
    for i in range(flat_in.size):
        flat_out[i] = fn(flat_in[i].item())
    return out


def apply_(x, func):
    """Replace ``x``'s values by ``func``'s result, in place; returns ``x``.

    ``func`` takes the tensor (Paddle) and returns a tensor or array of the same shape; a
    function of one number (PyTorch) is applied to every element. It has no gradient, so a
    tensor that requires grad is refused while grad mode is on.
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"apply_() writes into its first argument, which must be a Tensor, not "
                        f"{type(x).__name__}")
    if not callable(func):
        raise TypeError(f"apply_() expects a callable, got {type(func).__name__}")
    check_no_grad(x, "apply_")
    with no_grad():
        try:
            r = func(x.detach().clone())
            r = r._data if isinstance(r, Tensor) else x._place.xp.asarray(r)
            if r.shape != x._data.shape:
                raise ValueError
        except (TypeError, ValueError):
            r = _apply_elementwise(func, x._data, x._place.xp)
        call_inplace(OPS["copy"], [x, r], {})
    return x


def map_(x, other, func):
    """PyTorch's ``x.map_(other, func)``: ``x[i] = func(x[i], other[i])`` (``other`` broadcast
    to ``x``), in place; no gradient, so a tensor that requires grad is refused."""
    if not callable(func):
        raise TypeError(f"map_() expects a callable, got {type(func).__name__}")
    check_no_grad(x, "map_")
    xp = x._place.xp
    b = xp.broadcast_to(other._data if isinstance(other, Tensor) else xp.asarray(other),
                        x._data.shape)
    r = xp.empty_like(x._data)
    for i in np.ndindex(x._data.shape):
        r[i] = func(x._data[i].item(), b[i].item())
    with no_grad():
        return call_inplace(OPS["copy"], [x, r], {})


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


def detach_(x):
    """Function form of ``Tensor.detach_``: ``x`` leaves the graph in place; returns ``x``."""
    return x.detach_()


def requires_grad_(x, requires_grad=True):
    """Function form of ``Tensor.requires_grad_``; returns ``x``."""
    return x.requires_grad_(requires_grad)


FUNCTIONS = {
    "apply_": apply_, "detach_": detach_,
    "requires_grad_": requires_grad_, "map_": map_, "reconstruct_from_": reconstruct_from_,
}
