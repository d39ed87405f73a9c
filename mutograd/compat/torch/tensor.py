"""``torch.Tensor``, ``torch.Size``, ``torch.nn.Parameter`` and PyTorch's dtype objects.

A ``torch.Tensor`` is a :class:`mutograd.Tensor` whose methods mean what PyTorch's mean where the
two frameworks clash; the main Tensor already follows PyTorch for ``split``, ``max``/``min`` with
a dim and ``uniform_``, so what differs here is:

- ``repr(x)`` is ``tensor([...])``; ``x.shape`` and ``x.size()`` are a ``torch.Size``; ``x.dtype``
  is ``torch.float32`` (equal to ``mutograd.float32``);
- ``x.backward()`` needs a scalar output (or ``gradient``);
- ``x.type()`` is ``'torch.FloatTensor'``; ``x.div(y, rounding_mode=...)``; ``x.layout``;
- ``torch.Tensor(2, 3)`` is a 2x3 tensor of zeros (PyTorch's legacy constructor);
- ``x.grad`` and the gradient a hook receives are ``torch.Tensor`` too.

Every op on a ``torch.Tensor`` gives a ``torch.Tensor`` (Note [Tensor types of the dialects] in
mutograd/tensor.py).

    >>> import mutograd.compat.torch as torch
    >>> x = torch.zeros(2, dtype=torch.int64)
    >>> str(x.dtype), x.shape, (x + 1).max(0).values
    ('torch.int64', torch.Size([2]), tensor(1))
"""
from ... import dtypes as _dtypes
from ... import nn as _nn
from ...errors import BackwardError
from ...tensor import Size as _Size
from ...tensor import Tensor as _Tensor
from ..dialect_tensor import DialectTensor
from . import _toplevel
from ._refusals import TensorRefusals

DTYPES = _dtypes.family("torch.")       # numpy dtype -> torch.float32, ...
_TYPE_NAMES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
               "int64": "LongTensor", "int32": "IntTensor", "int16": "ShortTensor",
               "int8": "CharTensor", "uint8": "ByteTensor", "bool": "BoolTensor",
               "complex64": "ComplexFloatTensor", "complex128": "ComplexDoubleTensor"}
_BY_TYPE_NAME = {v: k for k, v in _TYPE_NAMES.items()}


class Size(_Size):
    """``torch.Size``: a shape, printed as PyTorch prints it."""

    def __repr__(self):
        return f"torch.Size([{', '.join(map(str, self))}])"


def _divide(name, inplace):
    def method(self, other, *, rounding_mode=None):
        if rounding_mode is None:
            return getattr(_Tensor, name)(self, other)
        r = _toplevel.div(self, other, rounding_mode=rounding_mode)
        return self.copy_(r) if inplace else r
    method.__name__ = name
    method.__doc__ = f"``{name}(other, rounding_mode=None)``: see ``torch.div``."
    return method


class Tensor(DialectTensor, TensorRefusals, dialect=True):
    """A tensor of the torch namespace (see the module docstring)."""

    __slots__ = ()
    _print_style = "torch"
    _int_is_size = True

    @property
    def shape(self):
        return Size(self._data.shape)

    @property
    def dtype(self):
        return DTYPES[self._data.dtype]

    def size(self, dim=None):
        """The shape (a ``torch.Size``), or the size of dimension ``dim``."""
        return Size(self._data.shape) if dim is None else self._data.shape[dim]

    layout = property(lambda self: _toplevel.strided, doc="``torch.strided``: tensors are dense.")


    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate gradients into the leaves; without ``gradient`` the tensor must hold one
        element (as in PyTorch)."""
        if gradient is None and self._data.size != 1:
            raise BackwardError(f"grad can be implicitly created only for scalar outputs; got "
                                f"shape {list(self._data.shape)}")
        return _Tensor.backward(self, gradient, retain_graph, create_graph, inputs)

    def type(self, dtype=None, non_blocking=False):
        """``x.type()`` is ``'torch.FloatTensor'``; ``x.type(torch.DoubleTensor)`` (or a dtype or
        its name) casts."""
        if dtype is None:
            return "torch." + _TYPE_NAMES[self._data.dtype.name]
        name = dtype if isinstance(dtype, (str, _dtypes.DType)) else getattr(
            dtype, "__name__", dtype)
        if isinstance(name, str) and name.rsplit(".", 1)[-1] in _BY_TYPE_NAME:
            dtype = _BY_TYPE_NAME[name.rsplit(".", 1)[-1]]
        return _Tensor.type(self, dtype, non_blocking)

    div = divide = true_divide = _divide("div", False)
    div_ = divide_ = true_divide_ = _divide("div_", True)
    unique_consecutive = _toplevel.unique_consecutive
    histogram = _toplevel.histogram



class Parameter(_nn.Parameter, Tensor):
    """``torch.nn.Parameter``: a ``torch.Tensor`` that is a module's trainable state."""

    __slots__ = ()
    _result_class = Tensor
