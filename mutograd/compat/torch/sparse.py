"""``torch.sparse`` and the torch dialect's sparse tensor (``mutograd.sparse``, Note [Sparse
tensors]): ``layout`` is ``torch.sparse_coo`` / ``torch.sparse_csr``, the shape a
``torch.Size``, the indices and values ``torch.Tensor`` objects.

    >>> import mutograd.compat.torch as torch
    >>> a = torch.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], (2, 2))
    >>> a.layout, torch.sparse.mm(a, torch.eye(2))
    (torch.sparse_coo, tensor([[0., 2.],
            [3., 0.]]))
"""
import functools
import warnings

import numpy as _np

from ... import dtypes as _dtypes
from ... import sparse as _sparse
from ...sparse import SparseTensor as _SparseTensor
from ...sparse.functional import diagonal_tensor as _diagonal_tensor
from . import _toplevel
from .tensor import DTYPES as _DTYPES
from .tensor import Size, Tensor

sparse_coo = _toplevel.layout("sparse_coo")
sparse_csr = _toplevel.layout("sparse_csr")
_LAYOUTS = {"sparse_coo": sparse_coo, "sparse_csr": sparse_csr}


class SparseTensor(_SparseTensor):
    """A sparse tensor of the torch dialect (Note [Sparse tensors] in mutograd/sparse)."""

    __slots__ = ()
    _dense_class = Tensor
    _size_class = Size
    _repr_name = "tensor"
    layout = property(lambda self: _LAYOUTS[self._layout],
                      doc="``torch.sparse_coo`` or ``torch.sparse_csr``.")

    def _layout_repr(self):
        return repr(_LAYOUTS[self._layout])


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    """A COO sparse tensor with ``values[k]`` at ``indices[:, k]`` (the indices are always
    checked, as with ``check_invariants=True``)."""
    return SparseTensor.from_coo(indices, values, size, dtype=dtype, device=device,
                                 requires_grad=requires_grad, is_coalesced=is_coalesced)


def sparse_csr_tensor(crow_indices, col_indices, values, size=None, *, dtype=None, layout=None,
                      device=None, pin_memory=False, requires_grad=False,
                      check_invariants=None):
    """A 2-D CSR sparse tensor (row pointers, column indices, values)."""
    return SparseTensor.from_csr(crow_indices, col_indices, values, size, dtype=dtype,
                                 device=device, requires_grad=requires_grad)


def to_sparse(x, sparse_dim=None, *, layout=None):
    """``x.to_sparse()``: the sparse form of a dense tensor (COO, or ``layout``)."""
    if isinstance(x, _SparseTensor):
        return x.to_sparse(layout=layout)
    return SparseTensor.from_dense(x, sparse_dim, layout=layout)


mm = _sparse.mm
addmm = _sparse.addmm
sum = _sparse.sum   # noqa: A001 (torch.sparse.sum)
softmax = _sparse.softmax
log_softmax = _sparse.log_softmax
sampled_addmm = _sparse.sampled_addmm
spsolve = _sparse.spsolve
as_sparse_gradcheck = _sparse.as_sparse_gradcheck
check_sparse_tensor_invariants = _sparse.check_sparse_tensor_invariants


def spdiags(diagonals, offsets, shape, layout=None):
    """``torch.sparse.spdiags``: the sparse matrix with the rows of ``diagonals`` on the
    diagonals ``offsets`` (:func:`mutograd.sparse.spdiags`), COO or ``layout``."""
    return _diagonal_tensor(SparseTensor, diagonals, offsets, shape, layout)


class _LegacySparseType(type):
    """``torch.sparse.FloatTensor(indices, values[, size])`` is a COO tensor of those values
    (whose dtype it keeps, as PyTorch does), ``torch.sparse.FloatTensor(2, 3)`` an empty one of
    that size and the class's dtype; ``isinstance(s, torch.sparse.FloatTensor)`` checks for a
    COO tensor of that dtype."""

    def __call__(cls, *args, device=None):
        if len(args) in (2, 3) and all(isinstance(a, Tensor) for a in args[:2]):
            _deprecated(cls)
            return sparse_coo_tensor(args[0], args[1], *args[2:], device=device)
        sizes = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
        if not all(isinstance(n, (int, _np.integer)) for n in sizes):
            raise TypeError(f"{cls.__name__}() takes (indices, values), (indices, values, "
                            f"size) with tensor indices and values, or sizes as ints; got "
                            f"{args!r}")
        _deprecated(cls)
        sizes = tuple(int(n) for n in sizes) if args else (0,)
        return sparse_coo_tensor(_np.zeros((len(sizes), 0), _np.int64),
                                 _np.zeros(0, cls._dtype.np), sizes, device=device)

    def __instancecheck__(cls, obj):
        return (isinstance(obj, SparseTensor) and obj.layout is sparse_coo
                and obj.dtype == _DTYPES[cls._dtype.np])


def _deprecated(cls):
    warnings.warn(f"torch.sparse.{cls.__name__}() is deprecated: use "
                  f"torch.sparse_coo_tensor(indices, values, size, dtype=, device=)",
                  UserWarning, stacklevel=3)


def _legacy(name, dt):
    return _LegacySparseType(name, (), {"_dtype": dt, "__module__": __name__,
                                        "__doc__": f"Legacy constructor of sparse COO tensors "
                                                   f"of {dt.name}."})


FloatTensor = _legacy("FloatTensor", _dtypes.float32)
DoubleTensor = _legacy("DoubleTensor", _dtypes.float64)
HalfTensor = _legacy("HalfTensor", _dtypes.float16)
LongTensor = _legacy("LongTensor", _dtypes.int64)
IntTensor = _legacy("IntTensor", _dtypes.int32)
ShortTensor = _legacy("ShortTensor", _dtypes.int16)
CharTensor = _legacy("CharTensor", _dtypes.int8)
ByteTensor = _legacy("ByteTensor", _dtypes.uint8)


def spmm(input, mat2):
    """``torch.spmm``: the product of a sparse matrix and a dense one."""
    return _sparse.mm(input, mat2)


def sparse_first(dense_fn, sparse_fn, position=0):
    """``dense_fn`` as it is, except that a sparse tensor at argument ``position`` calls
    ``sparse_fn`` (``torch.mm(s, d)``, ``torch.addmm(m, s, d)``)."""
    @functools.wraps(dense_fn)
    def fn(*args, **kwargs):
        if len(args) > position and isinstance(args[position], _SparseTensor):
            return sparse_fn(*args, **kwargs)
        return dense_fn(*args, **kwargs)
    return fn
