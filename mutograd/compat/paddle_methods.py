"""Tensor methods that follow Paddle in the ``'paddle'`` dialect (``mutograd.compat.dialect``).

Tensor is one class for every namespace; these methods keep the main namespace's meaning and
depart from it only while the dialect, read at call time, is ``'paddle'``:

- ``x.expand(shape)``, ``x.broadcast_to(shape)``, ``x.expand_as(y)`` return a **copy** (Paddle),
  not a view: ``y = x.expand([3, 4]); y.add_(1)`` works, and a later write into ``x`` leaves ``y``
  alone.
- ``w.set_value(v)`` on a leaf that requires grad is a data write, as Paddle's way to load
  weights: the version still moves on, so a value saved before it still raises at backward.
- ``cond.where_(x, y)``: Paddle binds ``where_`` with the condition as ``self`` and writes into
  ``x``.
- ``x.cumsum_()`` without an axis flattens ``x`` in place, then sums along it (returns ``x``).
- ``x.stop_gradient = False`` on an integer tensor is accepted (it reads back False); integer
  tensors take no gradient here, so ``x.grad`` stays None where Paddle would give integer ones.
- A saved tensor written before backward raises the VersionError with Paddle's sentence
  (``received tensor_version:1 != wrapper_version_snapshot:0``) besides mutograd's explanation.

These are installed when ``mutograd.compat.paddle`` is imported. This module sits outside the
``mutograd.compat.paddle`` package on purpose: ``get_dialect()`` answers for the first frame
outside mutograd, and a frame inside the paddle namespace would always answer 'paddle'.
"""
from ..autograd import explain as _explain
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..ops import OPS as _OPS
from ..tensor import Tensor
from .dialect import get_dialect


def _paddle():
    return get_dialect() == "paddle"


def _copying(view_method):
    def method(self, *args, **kw):
        out = view_method(self, *args, **kw)
        return out.clone() if _paddle() else out
    method.__name__ = view_method.__name__
    method.__qualname__ = "Tensor." + view_method.__name__
    method.__doc__ = (f"{view_method.__doc__ or view_method.__name__}\n\nIn the 'paddle' dialect "
                      f"the result is a copy, as in Paddle.")
    return method


_set_value = Tensor.set_value


def set_value(self, value):
    """Overwrite every element with ``value`` (same shape); returns ``self``. In the 'paddle'
    dialect a leaf that requires grad accepts it outside ``no_grad()`` (loading weights), as a
    data write whose version bump still invalidates values saved before it.

    Example::

        >>> import numpy as np, mutograd.compat.paddle as paddle
        >>> lin = paddle.nn.Linear(2, 3)
        >>> v = lin.weight.inplace_version
        >>> lin.weight.set_value(np.ones((2, 3), "float32")).inplace_version - v
        1
    """
    if _paddle() and self.is_leaf and self.requires_grad and is_grad_enabled():
        with no_grad():
            return _set_value(self, value)
    return _set_value(self, value)


_where_ = Tensor.where_


def where_(self, *args, **kw):
    """Main/torch dialect: ``x.where_(condition, y)`` writes into ``x``. Paddle dialect:
    ``condition.where_(x, y)`` writes into ``x`` and returns it (Paddle's binding)."""
    if _paddle():
        from ..ops.argument_orders import where_ as _where_fn
        kw.pop("name", None)
        return _where_fn(self, *args, **kw)
    return _where_(self, *args, **kw)


_cumsum_ = Tensor.cumsum_


def cumsum_(self, axis=None, dtype=None, name=None, **kw):
    """Cumulative sum in place along ``axis``; in the 'paddle' dialect without an axis ``x`` is
    flattened in place first (Paddle), and ``x`` is returned."""
    if _paddle() and axis is None and "dim" not in kw:
        _OPS["flatten"].inplace_function(self)
        axis = 0
    if dtype is not None:
        kw["dtype"] = dtype
    return _cumsum_(self, axis, **kw) if axis is not None else _cumsum_(self, **kw)


_stop_gradient = Tensor.stop_gradient


def _get_stop_gradient(self):
    if self.__dict__.get("_int_stop_gradient") is False and not self.requires_grad:
        return False
    return _stop_gradient.fget(self)


def _set_stop_gradient(self, flag):
    if not flag and self._data.dtype.kind not in "fc" and _paddle():
        self.__dict__["_int_stop_gradient"] = False    # Paddle accepts; no gradient flows
        return
    self.__dict__.pop("_int_stop_gradient", None)
    _stop_gradient.fset(self, flag)


def _cast_method(dtype):
    def cast(self):
        return self.astype(dtype)
    cast.__name__ = dtype
    cast.__doc__ = f"A copy of the tensor as {dtype} (Paddle's ``x.{dtype}()``)."
    return cast


def _same(self, *args, **kw):
    """The tensor itself: a dense tensor in host memory already is what this asks for."""
    return self


# Paddle Tensor methods with no counterpart clash: added where Tensor has none of that name
_EXTRA = {
    **{d: _cast_method(d) for d in ("float16", "float32", "float64", "int8", "int16", "int32",
                                    "int64", "uint8", "complex64", "complex128")},
    "cfloat": _cast_method("complex64"), "cdouble": _cast_method("complex128"),
    "pin_memory": _same, "value": _same, "get_tensor": _same, "to_dense": _same,
    "is_dense": lambda self: True, "is_sparse": lambda self: False,
    "is_sparse_coo": lambda self: False, "is_sparse_csr": lambda self: False,
    "is_selected_rows": lambda self: False, "is_dist": lambda self: False,
    "is_same_shape": lambda self, y: list(self.shape) == list(y.shape),
    "get_strides": lambda self: list(self.stride()),
    "offset": property(lambda self: self.storage_offset() * self.element_size() if hasattr(
        self, "storage_offset") else 0),
    "persistable": False,
    "increment": lambda self, value=1.0: self.add_(value),
    "is_tensor": lambda self: True,
}


def _paddle_version_line(saved, found):
    """Paddle's wording of the stale-saved-tensor error, for code that matches it."""
    if not _paddle():
        return None
    return (f"(PermissionDenied) Tensor used in gradient computation has been modified by an "
            f"inplace operation. Its version is {found} but the expected version is {saved}. "
            f"[Hint: Expected tensor_version == wrapper_version_snapshot, but received "
            f"tensor_version:{found} != wrapper_version_snapshot:{saved}.]")


def install():
    """Install the methods above on Tensor (once; idempotent)."""
    if getattr(Tensor, "_paddle_methods", False):
        return
    for name in ("expand", "broadcast_to", "expand_as"):
        setattr(Tensor, name, _copying(getattr(Tensor, name)))
    Tensor.set_value = set_value
    Tensor.where_ = where_
    Tensor.cumsum_ = cumsum_
    Tensor.stop_gradient = property(_get_stop_gradient, _set_stop_gradient,
                                    doc=_stop_gradient.__doc__)
    from .paddle.tensor_ops import SHARED_WITH_TORCH
    for name, value in _EXTRA.items():
        if not hasattr(Tensor, name) and name not in SHARED_WITH_TORCH:
            setattr(Tensor, name, value)
    from ..nn import Parameter
    if not hasattr(Parameter, "trainable"):
        Parameter.trainable = property(
            lambda self: self.requires_grad,
            lambda self, flag: setattr(self, "stop_gradient", not flag),
            doc="Whether the optimizer updates it (Paddle's ``Parameter.trainable``).")
    _explain.DIALECT_LINES.append(_paddle_version_line)
    Tensor._paddle_methods = True

