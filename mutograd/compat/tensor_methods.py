"""The Tensor methods whose meaning depends on the dialect (``dialect_scope.py``), and the
Tensor methods only Paddle has.

Tensor is one class for every namespace. The methods here keep the main namespace's meaning and
depart from it only while the dialect of the calling code, read at call time, asks for it.

**Both dialects** (installed when ``mutograd.compat`` is imported): ``split``, ``max``/``min``
with an axis, ``uniform_``, ``backward``, ``type``, and the printing of shapes and dtypes; the
table is in ``dialect_scope.py``'s docstring and docs/compat.md.

**Paddle only**: ``x.set_value(v)`` and ``x.gradient()`` (installed with the module). A
``set_value`` is a write like any other (DESIGN.md rule 9): it bumps ``x``'s version, is refused
on a leaf that requires grad while grad mode is on (rule 4; write it under ``no_grad()``, as
optimizers and checkpoint loaders do), and on a non-leaf it rebases the history: the old values
get a zero gradient and ``v`` (when it requires grad) receives the incoming gradient.

The methods below follow Paddle in the ``'paddle'`` dialect; :func:`install_paddle_methods`
installs them when ``mutograd.compat.paddle`` is imported:

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

Note [dialect methods live outside the dialect packages]: ``get_dialect()`` answers for the
first frame outside mutograd's internal modules, and a frame inside ``mutograd.compat.paddle``
(or ``.torch``) always answers that namespace. A method defined there would therefore always
follow it, whoever called; so these methods, Paddle's included, sit in this module, outside both
namespace packages, and ask the caller's dialect like every other clashing method.
"""
from .. import dtypes, printing
from ..autograd import explain as _explain
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..errors import BackwardError, ShapeError
from ..ops import views
from ..ops.registry import OPS, call_inplace, defop
from ..tensor import Size, Tensor
from .dialect_scope import get_dialect

# ---- the clashing methods -------------------------------------------------------------------
# Each keeps the main namespace's implementation and departs from it only for its dialect.

_split, _max, _min = Tensor.split, Tensor.max, Tensor.min
_uniform_, _backward, _type = Tensor.uniform_, Tensor.backward, Tensor.type
_TORCH_TYPES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
                "int64": "LongTensor", "int32": "IntTensor", "int16": "ShortTensor",
                "int8": "CharTensor", "uint8": "ByteTensor", "bool": "BoolTensor",
                "complex64": "ComplexFloatTensor", "complex128": "ComplexDoubleTensor"}
_BY_TORCH_TYPE = {v: k for k, v in _TORCH_TYPES.items()}


def split(self, split_size_or_sections, axis=0, dim=None, name=None):
    """Paddle: an int is the number of equal pieces (a list); otherwise the size of each piece."""
    if get_dialect() == "paddle":
        return views.split_sections(self, split_size_or_sections, axis if dim is None else dim)
    return _split(self, split_size_or_sections, axis, dim)


def _paddle_extreme(reduce, main):
    def method(self, axis=None, keepdim=False, name=None, dim=None, other=None, keepdims=None):
        keepdim = keepdim if keepdims is None else keepdims
        # the cheap tests first: x.max(y) means the same in every dialect
        if other is None and not isinstance(axis, Tensor) and get_dialect() == "paddle":
            return reduce(self, axis if dim is None else dim, keepdim)
        return main(self, axis, keepdim, dim=dim, other=other)
    method.__name__ = main.__name__
    method.__doc__ = (f"``{main.__name__}``; with an int axis, ``(values, indices)`` (torch) or "
                      f"the values (paddle).")
    return method


def uniform_(self, *args, **kw):
    """Fill in place from a uniform distribution: [0, 1) by default, [-1, 1) in Paddle."""
    if get_dialect() == "paddle":
        low, high = (list(args) + [None, None])[:2]
        low = kw.pop("min", -1.0 if low is None else low)
        high = kw.pop("max", 1.0 if high is None else high)
        kw.pop("seed", None)
        kw.pop("name", None)
        return _uniform_(self, low, high, **kw)
    return _uniform_(self, *args, **kw)


def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None,
             grad_tensor=None):
    """Accumulate gradients into the leaves. A non-scalar output without ``gradient`` gets ones,
    except in the torch dialect, which requires a scalar output (as PyTorch)."""
    if gradient is None:
        gradient = grad_tensor          # Paddle's name
    if gradient is None and self._data.size != 1 and get_dialect() == "torch":
        raise BackwardError(f"grad can be implicitly created only for scalar outputs; got "
                            f"shape {list(self.shape)}")
    return _backward(self, gradient, retain_graph, create_graph, inputs)


def type_(self, dtype=None, non_blocking=False):
    """PyTorch: ``x.type()`` is ``'torch.FloatTensor'``; ``x.type(torch.DoubleTensor)`` casts."""
    if get_dialect() != "torch":
        return _type(self, dtype, non_blocking)
    if dtype is None:
        return "torch." + _TORCH_TYPES[self.dtype.name]
    name = getattr(dtype, "__name__", dtype) if not isinstance(dtype, dtypes.DType) else dtype
    if isinstance(name, str) and name.rsplit(".", 1)[-1] in _BY_TORCH_TYPE:
        dtype = _BY_TORCH_TYPE[name.rsplit(".", 1)[-1]]
    return _type(self, dtype, non_blocking)


def _size_repr(self):
    dims = ", ".join(map(str, self))
    return f"torch.Size([{dims}])" if get_dialect() == "torch" else f"[{dims}]"


def _dtype_repr(self):
    current = get_dialect()
    return f"{current}.{self.name}" if current is not None else self.name


Tensor.split = split
Tensor.max = _paddle_extreme(lambda x, a, k: x.amax(a, k), _max)
Tensor.min = _paddle_extreme(lambda x, a, k: x.amin(a, k), _min)
Tensor.uniform_ = uniform_
Tensor.backward = backward
Tensor.type = type_
Size.__repr__ = _size_repr
dtypes.DType.__repr__ = _dtype_repr
printing.dialect_of_caller = get_dialect


# ---- Paddle's methods -----------------------------------------------------------------------
def _set_value_forward(xp, x, value, out=None):
    if getattr(value, "shape", ()) != x.shape and not isinstance(value, (int, float, bool)):
        raise ShapeError(f"set_value(): the value has shape {list(getattr(value, 'shape', ()))} "
                         f"but the tensor has shape {list(x.shape)}; they must be equal")
    if out is None:
        out = xp.empty_like(x)
    out[...] = value
    return out


defop("set_value", _set_value_forward, result="same", method=False,
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


def _paddle_set_value(self, value):
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
            return set_value(self, value)
    return set_value(self, value)


_paddle_set_value.__name__ = _paddle_set_value.__qualname__ = "set_value"


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
        OPS["flatten"].inplace_function(self)
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


def install_paddle_methods():
    """Install Paddle's methods above on Tensor (once; idempotent); ``mutograd.compat.paddle``
    calls it."""
    if getattr(Tensor, "_paddle_methods", False):
        return
    for name in ("expand", "broadcast_to", "expand_as"):
        setattr(Tensor, name, _copying(getattr(Tensor, name)))
    Tensor.set_value = _paddle_set_value
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

