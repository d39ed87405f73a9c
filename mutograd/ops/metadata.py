"""In-place view ops: ``reshape_``, ``squeeze_``, ``unsqueeze_``, ``t_``, ``transpose_``,
``flatten_``, ``as_strided_``.

They change the tensor's own shape and strides and return the same object (``y is x``); the data
and the storage stay where they are. They reuse the view ops' declarations (views.py) for the
geometry and for the gradient.

Note [Metadata in place]
    No value changes, but the version counter is bumped as for every write (DESIGN.md rule 9, as
    PyTorch and Paddle do): a node that saved the tensor refuses to run after its geometry
    changed. What changes is the shape the tensor's gradient has, so when the tensor is part of
    a graph its ``grad_fn`` is rebased onto the view op's node (``TBackward``,
    ``ReshapeBackward``, ...) whose edge is the old ``grad_fn``; this is done even under
    ``no_grad()``, because the existing history must keep matching the tensor's shape. A view's
    ``_view_chain`` grows by the op. A base keeps a log of the inverse geometry steps
    (``_geom_log``), so that views made *before* the change still replay from the base's current
    geometry (see ``Tensor._view_chain``). The leaf rule applies as for every in-place op
    (PyTorch and Paddle refuse ``t_()``/``reshape_()`` on a leaf that requires grad), and a
    reshape that would need a copy is refused: an in-place reshape keeps the storage.
"""
from ..autograd.grad_mode import _state
from ..autograd.saved import before_write
from ..errors import ShapeError
from ..tensor import Tensor
from .registry import OPS, _record, _refresh, check_leaf
from .views import _inverse


def _apply(x, name, attrs, what, inverse):
    """Give ``x`` the geometry of view op ``name`` applied to it, in place."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}() changes its first argument, which must be a Tensor, not "
                        f"{type(x).__name__}")
    if x._base is not None:
        _refresh(x)
    if _state.enabled:
        check_leaf(x, what)
    op = OPS[name]
    xp = x._place.xp
    old = x._data
    arr = op.fwd(xp, old, **attrs)
    if arr.size and not xp.may_share_memory(arr, old):
        raise ShapeError(
            f"{what}(): the shape {list(arr.shape)} is not compatible with the tensor's strides "
            f"{list(x.stride())} (shape {list(old.shape)}); an in-place reshape keeps the storage. "
            f"Use reshape() (which copies) or call contiguous() first.")
    if x._counter.guards:   # no saved value changes (Note [Mutation of saved tensors])
        before_write(x, None, what, data=False)
    # Note [Metadata in place]: record when the tensor has a history to keep consistent
    node = None
    if x._rg and x.grad_fn is not None:
        node = _record(op, [x], [old], x, attrs, xp, None)
    x._data = arr
    if node is not None:   # retain_grad() stays with the old node, as in PyTorch: .grad keeps
        x.grad_fn = node     # the shape the tensor had when it was retained
    if x._base is not None:
        x._view_chain = x._view_chain + ((op, attrs),)
    else:
        x.__dict__.setdefault("_geom_log", []).append(inverse(old))
    x._counter.bump(what)
    if node is not None and x._base is not None:
        x._view_version = x._counter.value   # its history is the node above (hooks stay on)
    return x


def _reshape_back(old):
    return OPS["view"], {"shape": old.shape}


def _shape(args, kw):
    shape = kw.pop("shape", None)
    if shape is None:
        shape = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
    if kw:
        raise TypeError(f"reshape_() got an unexpected keyword argument '{next(iter(kw))}'")
    return tuple(int(s) for s in shape)


def reshape_(x, *shape, **kw):
    """Give ``x`` a new shape in place (a view of the same storage); returns ``x``.

    Example::

        >>> import mutograd as mg
        >>> x = mg.arange(6)
        >>> x.reshape_(2, 3) is x, x.shape
        (True, [2, 3])
    """
    return _apply(x, "reshape", {"shape": _shape(shape, kw)}, "reshape_", _reshape_back)


def flatten_(x, start_axis=0, stop_axis=-1, start_dim=None, end_dim=None):
    """Merge the axes ``start_axis..stop_axis`` of ``x`` in place; returns ``x``."""
    attrs = {"start_axis": start_axis if start_dim is None else start_dim,
             "stop_axis": stop_axis if end_dim is None else end_dim}
    return _apply(x, "flatten", attrs, "flatten_", _reshape_back)


def squeeze_(x, axis=None, dim=None):
    """Drop size-1 axes of ``x`` in place (all of them, or those in ``axis``); returns ``x``."""
    return _apply(x, "squeeze", {"axis": axis if dim is None else dim}, "squeeze_",
                  _reshape_back)


def unsqueeze_(x, axis=None, dim=None):
    """Insert a size-1 axis into ``x`` at ``axis`` in place; returns ``x``."""
    axis = axis if dim is None else dim
    if axis is None:
        raise TypeError("unsqueeze_() missing required argument 'axis' (or 'dim')")
    return _apply(x, "unsqueeze", {"axis": axis}, "unsqueeze_", _reshape_back)


def t_(x):
    """Transpose a tensor of at most 2 dimensions in place; returns ``x``."""
    return _apply(x, "t", {}, "t_", lambda old: (OPS["t"], {}))


def transpose_(x, *args, **kw):
    """``transpose_(x, perm)`` (Paddle) or ``transpose_(x, dim0, dim1)`` (PyTorch), in place."""
    perm = kw.pop("perm", None)
    if perm is None and len(args) == 1:
        perm = args[0]
    if perm is not None:
        perm = tuple(perm)
        if sorted(p % x.ndim for p in perm) != list(range(x.ndim)):
            raise ShapeError(f"transpose_(): perm {list(perm)} is not a permutation of the "
                             f"{x.ndim} axes")
        return _apply(x, "permute", {"perm": perm}, "transpose_",
                      lambda old: (OPS["permute"], {"perm": tuple(_inverse(perm, old.ndim))}))
    if len(args) == 2:
        d0, d1 = args
    else:
        d0, d1 = kw.pop("dim0", kw.pop("axis0", None)), kw.pop("dim1", kw.pop("axis1", None))
    if d0 is None or d1 is None or kw:
        raise TypeError("transpose_() takes a permutation or two axes (dim0, dim1)")
    attrs = {"axis0": d0, "axis1": d1}
    return _apply(x, "swapaxes", attrs, "transpose_", lambda old: (OPS["swapaxes"], attrs))


def as_strided_(x, size, stride, storage_offset=0):
    """``x`` given the geometry ``as_strided`` would give its view (sizes, strides and offset in
    elements of the contiguous ``x``), in place; returns ``x``."""
    def back(old):   # views made before replay from the old, contiguous geometry
        strides = [s // old.itemsize for s in old.strides]
        return OPS["as_strided"], {"size": tuple(old.shape), "stride": tuple(strides),
                                   "storage_offset": 0}
    attrs = {"size": tuple(size), "stride": tuple(stride),
             "storage_offset": 0 if storage_offset is None else int(storage_offset)}
    return _apply(x, "as_strided", attrs, "as_strided_", back)


FUNCTIONS = {"reshape_": reshape_, "flatten_": flatten_, "squeeze_": squeeze_,
             "unsqueeze_": unsqueeze_, "t_": t_, "transpose_": transpose_,
             "as_strided_": as_strided_}
