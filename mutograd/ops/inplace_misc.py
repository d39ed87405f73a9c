"""In-place APIs that are not one element-wise formula: ``copy_``, ``cast_``, ``set_``,
``resize_``/``resize_as_``, ``reconstruct_from_``, ``apply_``, ``map_``, and the
function forms of ``detach_`` and ``requires_grad_``; plus the keyword spellings that differ
between the two frameworks (``hardtanh(min_val=)``, ``polygamma(n, x)``).

Note [Storage-changing writes]
    ``cast_``, ``set_``, ``reconstruct_from_`` and a growing ``resize_`` give the tensor a
    different buffer, so no node that saved its old buffer can see a wrong value: the old buffer
    is left as it was. The tensor keeps its identity and its version goes up; after ``set_`` it
    shares ``source``'s counter (a write through either is seen by autograd, DESIGN.md rule 7),
    after the others it has a fresh counter that continues from its old version (views made
    before keep the old buffer). None of them has a gradient other than ``cast_`` (a cast back),
    so ``set_``, ``resize_``, ``apply_`` and ``map_`` refuse a tensor that requires grad while
    grad mode is on, instead of giving a fake gradient.
"""
import numpy as np

from .. import dtypes, memory
from ..autograd.grad_mode import _state, no_grad
from ..autograd.node import VersionCounter
from ..autograd.saved import before_write
from ..errors import InplaceError, ShapeError
from ..tensor import Tensor, _alias
from ..transfer import on_place
from .creation import shape_args
from .registry import OPS, _record, call, call_inplace, check_leaf, defop


def _copy(xp, x, src, non_blocking=False, blocking=True, out=None):
    if out is None:
        return xp.array(xp.broadcast_to(src, x.shape), dtype=x.dtype)
    out[...] = src
    return out


# copy_ writes every element: the old values get a zero gradient, ``src`` gets ``g`` (summed
# over broadcast dimensions and cast back to its dtype by the registry).
defop("copy", _copy, result="same", method="inplace",
      grad=(lambda g, xp: xp.zeros_like(g), lambda g: g))


def _require_no_grad(x, what):
    if _state.enabled and x._rg:
        raise InplaceError(
            f"{what}() has no gradient, and the tensor it writes (shape {list(x.shape)}) "
            f"requires grad; call it under no_grad() or on a tensor that does not require grad")


def _new_buffer(x, arr, what):
    """Give ``x`` the buffer ``arr`` (Note [Storage-changing writes])."""
    v = x._counter.value
    x._data = arr
    x._storage = memory.Storage(arr.nbytes, str(x._place))
    x._counter = VersionCounter()
    x._counter.value = v
    x._counter.bump(what)


def cast_(x, dtype):
    """Paddle's ``cast_``: ``x`` converted to ``dtype`` in place (a new buffer; ``y is x``).

    The gradient casts back to the old dtype; a cast to a non-float dtype leaves the graph.
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"cast_() writes into its first argument, which must be a Tensor, not "
                        f"{type(x).__name__}")
    npd = dtypes.to_numpy(dtype)
    if x._data.dtype == npd:
        if _state.enabled:
            check_leaf(x, "cast_")
        x._counter.bump("cast_")   # a write like any other (DESIGN.md rule 9)
        return x
    if x._base is not None:
        raise InplaceError(f"cast_(): cannot change the dtype of a view in place (shape "
                           f"{list(x.shape)}); the storage it views has dtype {x.dtype}")
    if _state.enabled:
        check_leaf(x, "cast_")
    old = x._data
    prev = _alias(x, old)              # x as it was: its history is the cast's input edge
    prev.grad_fn, prev._rg = x.grad_fn, x._rg
    _new_buffer(x, old.astype(npd), "cast_")
    if _state.enabled and x._rg:
        if npd.kind in "fc":
            x.grad_fn = _record(OPS["astype"], [prev], [old], x, {"dtype": dtype},
                                x._place.xp, None)
        else:
            x.grad_fn, x._rg = None, False
    return x


def set_(x, source=None, *args, shape=None, stride=None, offset=None, storage_offset=None,
         size=None, name=None):
    """Make ``x`` look into ``source``'s storage (shape, stride, offset); returns ``x``.

    ``offset`` is in bytes (Paddle), ``storage_offset`` in elements (PyTorch); a second
    positional argument that is an int is PyTorch's ``storage_offset``, a list Paddle's shape.
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"set_() writes into its first argument, which must be a Tensor, not "
                        f"{type(x).__name__}")
    if len(args) > 3:
        raise TypeError(f"set_() takes at most 5 arguments ({len(args) + 2} given)")
    given = dict(enumerate(args))
    if args and isinstance(args[0], int):       # PyTorch: storage_offset, size, stride
        storage_offset, size, stride = given[0], given.get(1, size), given.get(2, stride)
    elif args:                                  # Paddle: shape, stride, offset
        shape, stride, offset = given[0], given.get(1, stride), given.get(2, offset)
    shape = size if shape is None else shape
    _require_no_grad(x, "set_")
    if _state.enabled:
        check_leaf(x, "set_")
    if source is None:
        src = on_place(x._place.xp.empty(0, x._data.dtype), x._place)
    else:
        src = source
        if src._data.dtype != x._data.dtype:
            raise InplaceError(f"set_(): source has dtype {src.dtype} but the tensor set has "
                               f"dtype {x.dtype}; cast one of them first")
        if _state.enabled and src._rg:
            raise InplaceError("set_(): source requires grad and set_ has no gradient; call it "
                               "under no_grad() or pass source.detach()")
    arr = src._data
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
    if x._counter.guards:   # no saved value changes (Note [Mutation of saved tensors])
        before_write(x, None, "set_", data=False)
    x._counter.bump("set_")          # x's old aliases see x change
    # from now on x is an alias of source's storage outside the graph, like source.detach()
    x._data = arr
    x._storage = src._storage
    x._counter = src._counter
    x._base = None
    if x.grad_fn is not None:   # set_ has no gradient: the old history ends here
        x.grad_fn, x._rg = None, False
    return x


def resize_(x, *shape, fill_zero=False, **kw):
    """Give ``x`` a new shape with the same dtype, keeping its first elements (``y is x``).

    A shape with no more elements than ``x`` holds is a view of them (no allocation); a larger
    one moves ``x`` to a new buffer whose extra elements are zeros.
    """
    shape = shape_args(shape, kw)
    kw.pop("memory_format", None)
    if kw:
        raise TypeError(f"resize_() got an unexpected keyword argument '{next(iter(kw))}'")
    if any(s < 0 for s in shape):
        raise ShapeError(f"resize_(): the shape {list(shape)} has a negative dimension")
    _require_no_grad(x, "resize_")
    if x._base is not None:
        raise InplaceError("resize_(): cannot resize a view in place; resize the tensor it "
                           "views, or a clone()")
    n = int(np.prod(shape))
    old = x._data
    if n <= old.size and old.flags.c_contiguous:
        if x._counter.guards:   # no saved value changes (Note [Mutation of saved tensors])
            before_write(x, None, "resize_", data=False)
        x._data = old.reshape(-1)[:n].reshape(shape)
        x._counter.bump("resize_")
        return x
    arr = x._place.xp.zeros(shape, old.dtype)
    k = min(n, old.size)
    arr.reshape(-1)[:k] = old.reshape(-1)[:k]
    _new_buffer(x, arr, "resize_")
    return x


def resize_as_(x, other, memory_format=None):
    """:func:`resize_` to ``other``'s shape."""
    return resize_(x, tuple(other.shape))


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
    _require_no_grad(x, "apply_")
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
    _require_no_grad(x, "map_")
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
    _new_buffer(x, other._data.copy(), "reconstruct_from_")
    x.grad_fn = None
    x._rg = other._rg
    return x


def detach_(x):
    """Function form of ``Tensor.detach_``: ``x`` leaves the graph in place; returns ``x``."""
    return x.detach_()


def requires_grad_(x, requires_grad=True):
    """Function form of ``Tensor.requires_grad_``; returns ``x``."""
    return x.requires_grad_(requires_grad)


def _hardtanh_attrs(args, kw):
    if "min_val" in kw:
        kw["min"] = kw.pop("min_val")
    if "max_val" in kw:
        kw["max"] = kw.pop("max_val")
    kw.pop("inplace", None)
    return args, kw


def hardtanh(x, *args, **kw):
    """``clip(x, min, max)`` as an activation (``min``/``max`` or ``min_val``/``max_val``)."""
    args, kw = _hardtanh_attrs(args, kw)
    return OPS["hardtanh"].function(x, *args, **kw)


def hardtanh_(x, *args, **kw):
    """In-place :func:`hardtanh`; returns ``x``."""
    args, kw = _hardtanh_attrs(args, kw)
    return OPS["hardtanh"].inplace_function(x, *args, **kw)


def _polygamma_args(args, kw):
    # PyTorch writes polygamma(n, x), Paddle polygamma(x, n): the int tells them apart
    if args and isinstance(args[0], int) and len(args) > 1 and isinstance(args[1], Tensor):
        args = (args[1], args[0]) + args[2:]
    return args, kw


def polygamma(*args, **kw):
    """The n-th derivative of digamma: ``polygamma(x, n)`` or ``polygamma(n, x)``."""
    args, kw = _polygamma_args(args, kw)
    return call(OPS["polygamma"], [args[0]], _attrs(OPS["polygamma"], args[1:], kw))


def polygamma_(x, n, **kw):
    """In-place :func:`polygamma` (``x.polygamma_(n)``); returns ``x``."""
    return call_inplace(OPS["polygamma"], [x], {"n": n})


def _attrs(op, extra, kw):
    _, attrs = op.bind([None] * op.n_in + list(extra), kw)
    return attrs


FUNCTIONS = {
    "cast_": cast_, "set_": set_, "resize_": resize_,
    "resize_as_": resize_as_, "apply_": apply_, "detach_": detach_,
    "requires_grad_": requires_grad_, "map_": map_, "reconstruct_from_": reconstruct_from_,
    "hardtanh": hardtanh, "hardtanh_": hardtanh_,
    "polygamma": polygamma, "polygamma_": polygamma_,
}
