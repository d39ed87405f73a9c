"""``paddle.Tensor``, its Parameter and Paddle's dtype objects.

A ``paddle.Tensor`` is a :class:`mutograd.Tensor` whose methods mean what Paddle's mean where the
two frameworks clash:

- ``x.split(n)``: ``n`` equal pieces, as a list (the main Tensor: pieces of size ``n``);
- ``x.max(axis)`` / ``x.min(axis)``: the values only (the main Tensor: values and indices);
- ``x.uniform_()``: samples in [-1, 1) (the main Tensor: [0, 1));
- ``x.expand(shape)``, ``x.broadcast_to(shape)``, ``x.expand_as(y)``: a **copy**, not a view, so
  ``y = x.expand([3, 4]); y.add_(1)`` works and a later write into ``x`` leaves ``y`` alone;
- ``x.size`` is the element count; ``x.dtype`` is ``paddle.float32`` (equal to
  ``mutograd.float32``); ``repr(x)`` is ``Tensor(shape=..., place=...)``;
- ``w.set_value(v)`` on a leaf that requires grad is a data write (Paddle's way to load
  weights): the version still moves on, so a value saved before it still raises at backward;
- ``cond.where_(x, y)`` writes into ``x`` (Paddle binds ``where_`` with the condition as self);
- Paddle's argument orders (the mixin ``PaddleOrders``, from orders.py): ``x.gather(index,
  axis)`` and ``x.index_select(index, axis)`` (whole slices), ``x.scatter(index, updates,
  overwrite)``, ``x.index_add(index, axis, value)``, ``x.index_fill(index, axis, value)``,
  ``x.transpose(perm)``, ``x.fill_diagonal_(value, offset, wrap)``, ``x.set_(source, shape,
  stride, offset)`` (the main Tensor takes PyTorch's orders and refuses these);
- ``x.cumsum_()`` without an axis flattens ``x`` in place, then sums along it;
- ``x.stop_gradient = False`` on an integer tensor is accepted (it reads back False); integer
  tensors take no gradient here, so ``x.grad`` stays None where Paddle would give integer ones;
- a saved tensor written before ``backward()`` raises the VersionError with Paddle's sentence
  (``received tensor_version:1 != wrapper_version_snapshot:0``) besides mutograd's explanation;
- Paddle's own methods: ``set_value``, ``gradient()``, ``x.float32()``, ``gather_nd``, ... .

Every op on a ``paddle.Tensor`` gives a ``paddle.Tensor`` (Note [Tensor types of the dialects]
in mutograd/tensor.py).

A ``set_value`` is a write like any other (design.md rule 9): it bumps ``x``'s version, is
refused on a non-Paddle leaf that requires grad while grad mode is on (rule 4), and on a
non-leaf it rebases the history: the old values get a zero gradient and ``v`` (when it requires
grad) receives the incoming gradient.

    >>> import mutograd.compat.paddle as paddle
    >>> x = paddle.arange(6)
    >>> [p.tolist() for p in x.split(3)], str(x.dtype), x.size
    ([[0, 1], [2, 3], [4, 5]], 'paddle.int64', 6)
"""
from ... import dtypes as _dtypes
from ... import nn as _nn
from ...autograd.grad_mode import is_grad_enabled, no_grad
from ...errors import ShapeError, VersionError
from ...ops import views as _views
from ...ops.elementwise import where_ as _where
from ...ops.registry import OPS, call_inplace, defop
from ...tensor import Tensor as _Tensor
from ..dialect_tensor import DialectTensor
from . import functions as _functions
from . import orders as _orders
from . import tensor_ops as _tensor_ops
from . import _statistics
from . import linalg as _linalg
from . import promotion as _promotion
from . import signal as _signal

DTYPES = _dtypes.family("paddle.")      # numpy dtype -> paddle.float32, ...


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


def _copying(name):
    view = getattr(_Tensor, name)

    def method(self, *args, **kw):
        return view(self, *args, **kw).clone()
    method.__name__ = name
    method.__doc__ = (f"{view.__doc__ or name}\n\nA copy, as in Paddle (the main Tensor's is a "
                      f"view).")
    return method


def _cast(dtype):
    def cast(self):
        return self.astype(dtype)
    cast.__name__ = dtype
    cast.__doc__ = f"A copy of the tensor as {dtype} (Paddle's ``x.{dtype}()``)."
    return cast


def _sparse():
    # paddle.sparse imports this module for its dense class
    from . import sparse
    return sparse


def _stack_method(self, axis=0, name=None):
    """``paddle.stack`` as a method, which its Tensor receiver cannot satisfy (as in Paddle)."""
    raise ValueError("stack(): argument 'x' must be a list of Tensors, but got a Tensor; call "
                     "paddle.stack([a, b, ...], axis)")


def _same(self, *args, **kw):
    """The tensor itself: a dense tensor in host memory already is what this asks for."""
    return self


def _paddle_version_line(error):
    """Paddle's wording of the stale-saved-tensor error, for code that matches it."""
    found, saved = error.version, error.saved_version
    return (f"(PermissionDenied) Tensor used in gradient computation has been modified by an "
            f"inplace operation. Its version is {found} but the expected version is {saved}. "
            f"[Hint: Expected tensor_version == wrapper_version_snapshot, but received "
            f"tensor_version:{found} != wrapper_version_snapshot:{saved}.]")


def with_paddle_wording(error):
    """``error`` (a VersionError from backward) with Paddle's sentence as its second line."""
    if getattr(error, "saved_version", None) is not None:
        head, _, rest = str(error).partition("\n")
        error.args = (head + "\n" + _paddle_version_line(error) + ("\n" + rest if rest else ""),)
    return error


# Paddle's methods with no clash: those the main Tensor lacks (the table of tensor_ops.py and
# the casts), in a mixin under the class's own methods
_EXTRA = {
    **{d: _cast(d) for d in ("float16", "float32", "float64", "int8", "int16", "int32", "int64",
                              "uint8", "complex64", "complex128")},
    "cfloat": _cast("complex64"), "cdouble": _cast("complex128"),
    "pin_memory": _same, "value": _same, "get_tensor": _same, "to_dense": _same,
    "is_dense": lambda self: True, "is_sparse": lambda self: False,
    "is_sparse_coo": lambda self: False, "is_sparse_csr": lambda self: False,
    "is_selected_rows": lambda self: False, "is_dist": lambda self: False,
    "is_same_shape": lambda self, y: list(self.shape) == list(y.shape),
    "to_sparse_coo": lambda self, sparse_dim=None: _sparse().to_sparse_coo(self, sparse_dim),
    "to_sparse_csr": lambda self: _sparse().to_sparse_csr(self),
    "get_strides": lambda self: list(self.stride()),
    "offset": property(lambda self: self.storage_offset() * self.element_size()),
    "persistable": False,
    "increment": lambda self, value=1.0: self.add_(value),
    "is_tensor": lambda self: True,
    "layout": property(lambda self: "NCHW", doc="Paddle's (nominal) data layout of a dense "
                       "tensor: always 'NCHW'."),
    "stack": _stack_method,
    **_tensor_ops.METHODS,
    **{n: getattr(_tensor_ops, n) for n in _tensor_ops.COMPOSED_METHODS},
}
PaddleMethods = type("PaddleMethods", (), dict(
    {k: v for k, v in _EXTRA.items() if not hasattr(_Tensor, k)}, __slots__=(),
    __module__=__name__, __doc__="Paddle's Tensor methods that the main Tensor has no name for."))
# Paddle's argument orders where they clash with the main Tensor's (PyTorch's): over its methods
PaddleOrders = type("PaddleOrders", (), dict(
    _orders.METHODS, **_linalg.METHODS, **_statistics.METHODS, **_signal.METHODS, __slots__=(),
    __module__=__name__,
    __doc__="Paddle's argument orders of methods the main Tensor has in PyTorch's order."))


class Tensor(PaddleOrders, DialectTensor, PaddleMethods, dialect=True):
    """A tensor of the paddle namespace (see the module docstring)."""

    __slots__ = ()
    _print_style = "paddle"
    _namespace_name = "paddle"
    _leaf_head = "Leaf Var that doesn't stop gradient can't use inplace strategy."
    _leaf_note = None
    _operand_rule = staticmethod(_promotion.operand_rule)   # int + float is a TypeError

    @property
    def dtype(self):
        return DTYPES[self._data.dtype]

    @property
    def size(self):
        """The number of elements (an int, as in Paddle)."""
        return int(self._data.size)


    @property
    def stop_gradient(self):
        if self.__dict__.get("_int_stop_gradient") is False and not self.requires_grad:
            return False
        return not self.requires_grad

    @stop_gradient.setter
    def stop_gradient(self, flag):
        if not flag and self._data.dtype.kind not in "fc":
            self.__dict__["_int_stop_gradient"] = False    # Paddle accepts; no gradient flows
            return
        self.__dict__.pop("_int_stop_gradient", None)
        _Tensor.stop_gradient.fset(self, flag)

    def backward(self, grad_tensor=None, retain_graph=False, create_graph=False, inputs=None,
                 gradient=None):
        """Accumulate gradients into the leaves; a non-scalar output gets ones. A tensor that
        needs no gradient (``stop_gradient`` and no history) has nothing to pass back: as in
        Paddle, nothing happens."""
        if not self._rg and self.grad_fn is None:
            return
        try:
            _Tensor.backward(self, grad_tensor if gradient is None else gradient, retain_graph,
                             create_graph, inputs)
        except VersionError as e:
            raise with_paddle_wording(e)

    unique = _functions.unique

    def numpy(self):
        """A copy of the data as a NumPy array, as Paddle's: later writes into the tensor (a
        ``clear_grad()``, an optimizer step) leave it unchanged."""
        return self.cpu()._data.copy()

    def split(self, num_or_sections, axis=0, name=None, dim=None):
        """``num_or_sections`` equal pieces (an int) or pieces of the listed sizes, as a list."""
        return _views.split_sections(self, num_or_sections, axis if dim is None else dim)

    def max(self, axis=None, keepdim=False, name=None):
        """The largest values along ``axis`` (all axes when None); ``x.max(y)`` with a tensor
        ``y`` is the element-wise maximum."""
        if isinstance(axis, _Tensor):
            return _Tensor.max(self, axis)
        return self.amax(axis, keepdim)

    def min(self, axis=None, keepdim=False, name=None):
        """The smallest values along ``axis`` (all axes when None); ``x.min(y)`` with a tensor
        ``y`` is the element-wise minimum."""
        if isinstance(axis, _Tensor):
            return _Tensor.min(self, axis)
        return self.amin(axis, keepdim)

    def uniform_(self, min=-1.0, max=1.0, seed=0, name=None):
        """Fill in place with samples of [min, max) (by default [-1, 1), as in Paddle)."""
        return _Tensor.uniform_(self, min, max)

    expand = _copying("expand")
    broadcast_to = _copying("broadcast_to")
    expand_as = _copying("expand_as")

    def set_value(self, value):
        """Overwrite every element with ``value`` (same shape; a Tensor, array or list); returns
        ``self``. On a leaf that requires grad it is a data write (loading weights), whose
        version bump still invalidates values saved before it.

        Example::

            >>> import numpy as np, mutograd.compat.paddle as paddle
            >>> lin = paddle.nn.Linear(2, 3)
            >>> v = lin.weight.inplace_version
            >>> lin.weight.set_value(np.ones((2, 3), "float32")).inplace_version - v
            1
        """
        if self.is_leaf and self.requires_grad and is_grad_enabled():
            with no_grad():
                return call_inplace(OPS["set_value"], [self, value], {})
        return call_inplace(OPS["set_value"], [self, value], {})

    def gradient(self):
        """The gradient as a NumPy array, or None (Paddle's ``Tensor.gradient()``)."""
        return None if self._grad is None else self._grad.numpy()

    def where_(self, x, y, name=None):
        """``condition.where_(x, y)`` writes ``where(condition, x, y)`` into ``x`` and returns
        it (Paddle's binding)."""
        return _where(self, x, y)

    def cumsum_(self, axis=None, dtype=None, name=None):
        """Cumulative sum in place along ``axis``; without one ``x`` is flattened in place
        first (as in Paddle). Returns ``x``."""
        if axis is None:
            OPS["flatten"].inplace_function(self)
            axis = 0
        kw = {} if dtype is None else {"dtype": dtype}
        return _Tensor.cumsum_(self, axis, **kw)


class Parameter(_nn.Parameter, Tensor):
    """A Paddle layer's trainable state: a ``paddle.Tensor``."""

    __slots__ = ()
    _result_class = Tensor

    @property
    def trainable(self):
        """Whether the optimizer updates it (Paddle's ``Parameter.trainable``)."""
        return self.requires_grad

    @trainable.setter
    def trainable(self, flag):
        self.stop_gradient = not flag
