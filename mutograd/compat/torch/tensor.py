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
import math
import warnings

from ... import dtypes as _dtypes
from ... import nn as _nn
from ...errors import BackwardError
from ...tensor import Size as _Size
from ...tensor import Tensor as _Tensor
from ..dialect_tensor import DialectTensor
from . import _legacy_linalg, _statistics, _stft, _toplevel
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
    _same_dtype_operands = True     # float32 @ float64 is an error, not a promotion
    _namespace_name = "torch"
    _leaf_note = None

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

    def numpy(self, *, force=False):
        """The data as a NumPy array sharing memory; as in PyTorch, a tensor that requires grad
        must be detached first (``force=True`` gives a detached copy, from any place)."""
        if force:
            return self.detach().cpu()._data.copy()
        if self._rg:
            raise BackwardError("Can't call numpy() on Tensor that requires grad. Use "
                                "tensor.detach().numpy() instead.")
        return _Tensor.numpy(self)


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

    def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
        """The sparse COO form of this tensor's nonzero entries (or ``layout``'s form)."""
        from .sparse import to_sparse
        return to_sparse(self, sparse_dim, layout=layout)

    def to_sparse_coo(self):
        """The sparse COO form (``to_sparse()``)."""
        return self.to_sparse()

    def to_sparse_csr(self, dense_dim=None):
        """The sparse CSR form of this 2-D tensor's nonzero entries."""
        from .sparse import sparse_csr
        return self.to_sparse(layout=sparse_csr)
    # the methods of PyTorch's legacy linear algebra, statistics and stft (their torch.* forms)
    svd, symeig = _legacy_linalg.svd, _legacy_linalg.symeig
    geqrf, orgqr, ormqr = _legacy_linalg.geqrf, _legacy_linalg.orgqr, _legacy_linalg.ormqr
    mode, nanmedian = _statistics.mode, _statistics.nanmedian
    nanquantile, nonzero_static = _statistics.nanquantile, _statistics.nonzero_static
    as_strided_scatter = _statistics.as_strided_scatter
    stft, istft = _stft.stft, _stft.istft

    def resize(self, *sizes):
        """Deprecated by PyTorch: this tensor's elements in the shape ``sizes`` (their count must
        stay the same), a new tensor with a gradient."""
        warnings.warn("non-inplace resize is deprecated", DeprecationWarning, stacklevel=2)
        shape = tuple(sizes[0]) if len(sizes) == 1 and not isinstance(sizes[0], int) else sizes
        if math.prod(shape) != self._data.size:
            raise RuntimeError(f"requested resize to {list(shape)} ({math.prod(shape)} elements "
                               f"in total), but the given tensor has a size of "
                               f"{self._data.size} elements; autograd's resize can only change "
                               f"the shape, keeping the number of elements")
        return self.reshape(shape).clone()

    def resize_as(self, the_template):
        """Deprecated by PyTorch: :meth:`resize` to ``the_template``'s shape."""
        return self.resize(tuple(the_template.shape))

    def index(self, indices):
        """``self[indices]`` with ``indices`` a list of index tensors, None for a whole
        dimension (ATen's ``index``)."""
        return self[tuple(slice(None) if i is None else i for i in indices)]

    def as_subclass(self, cls):
        """This tensor's elements, sharing its memory and its place in the graph, as an
        instance of ``cls`` (a subclass of ``torch.Tensor``)."""
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError(f"as_subclass: cls must be a subclass of torch.Tensor, got {cls!r}")
        out = self.view(self.shape)
        out.__class__ = cls
        return out

    def is_set_to(self, tensor):
        """Whether both tensors use the same memory with the same shape and strides."""
        a, b = self._data, tensor._data
        return (a.dtype == b.dtype and a.shape == b.shape and a.strides == b.strides
                and a.__array_interface__["data"][0] == b.__array_interface__["data"][0])



class Parameter(_nn.Parameter, Tensor):
    """``torch.nn.Parameter``: a ``torch.Tensor`` that is a module's trainable state."""

    __slots__ = ()
    _result_class = Tensor
