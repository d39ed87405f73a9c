"""``paddle.sparse`` and the Paddle dialect's sparse tensor (``mutograd.sparse``, Note [Sparse
tensors]): COO and CSR tensors whose indices and values are ``paddle.Tensor`` objects, made with
``stop_gradient`` as Paddle's, and the functions of ``paddle.sparse`` over them.

    >>> import mutograd.compat.paddle as paddle
    >>> adj = paddle.sparse.sparse_coo_tensor([[0, 1, 1], [1, 0, 1]], [1.0, 1.0, 2.0], [2, 2])
    >>> x = paddle.to_tensor([[1.0], [2.0]], stop_gradient=False)
    >>> y = paddle.sparse.matmul(adj, x)
    >>> y.tolist()
    [[2.0], [5.0]]
    >>> y.sum().backward(); x.grad.tolist()
    [[1.0], [3.0]]

Paddle's CPU build has no kernel for the products (``matmul``, ``masked_matmul``, ``mv``,
``addmm`` run on a GPU only there); here they run everywhere, through ``mutograd.sparse``.
"""
import math as _math
import numbers as _numbers

import numpy as _np

from .... import sparse as _sparse
from ....autograd.graph_arrays import constant as _constant
from ....errors import ShapeError as _ShapeError
from ....sparse import SparseTensor as _SparseTensor
from ..tensor import Tensor

__all__ = ["abs", "add", "addmm", "asin", "asinh", "atan", "atanh", "cast", "coalesce",
           "deg2rad", "divide", "expm1", "is_same_shape", "isnan", "log1p", "mask_as",
           "masked_matmul", "matmul", "multiply", "mv", "neg", "nn", "pow", "rad2deg", "reshape",
           "sin", "sinh", "sparse_coo_tensor", "sparse_csr_tensor", "sqrt", "square",
           "subtract", "sum", "tan", "tanh", "transpose"]


class SparseTensor(_SparseTensor):
    """A sparse tensor of the Paddle dialect (Note [Sparse tensors] in mutograd/sparse): Paddle's
    methods (``is_sparse()``, ``crows()``, ``cols()``, ``stop_gradient``, ...), and
    ``indices()`` / ``values()`` as stored, coalesced or not, as Paddle's."""

    __slots__ = ()
    _dense_class = Tensor
    _repr_name = "Tensor"

    def _layout_repr(self):
        return "paddle." + self._layout

    # Paddle asks with methods where PyTorch has properties
    def is_sparse(self):
        """True: a COO or CSR tensor."""
        return True

    def is_sparse_coo(self):
        return self._layout == "sparse_coo"

    def is_sparse_csr(self):
        return self._layout == "sparse_csr"

    def is_dense(self):
        return False

    def indices(self):
        """The ``[sparse_dim, nnz]`` indices of a COO tensor, as stored."""
        return self._indices()

    def values(self):
        """The stored values (the dense tensor that carries the history)."""
        return self._vals

    def crows(self):
        """A CSR tensor's row pointers."""
        return self.crow_indices()

    def cols(self):
        """A CSR tensor's column of each stored value."""
        return self.col_indices()

    @property
    def stop_gradient(self):
        return not self.requires_grad

    @stop_gradient.setter
    def stop_gradient(self, flag):
        self.requires_grad_(not flag)

    def to_sparse_coo(self, sparse_dim=None):
        """The COO form (the CSR values are shared)."""
        return _SparseTensor.to_sparse_coo(self)

    def astype(self, dtype):
        return self._with_values(self._vals.astype(dtype))

    def numpy(self):
        """The dense form as a NumPy array."""
        return self.to_dense().numpy()

    def is_same_shape(self, y):
        return is_same_shape(self, y)


def _stop(stop_gradient, values):
    # values that need a gradient already: the tensor is their alias and they get it (Paddle)
    return not stop_gradient and not getattr(values, "requires_grad", False)


def sparse_coo_tensor(indices, values, shape=None, dtype=None, place=None, stop_gradient=True):
    """A COO tensor with ``values[k]`` at ``indices[:, k]``; ``shape`` inferred when None.

        >>> import mutograd.compat.paddle as paddle
        >>> s = paddle.sparse.sparse_coo_tensor([[0, 1], [2, 0]], [3.0, 4.0], [2, 3])
        >>> s.to_dense().tolist()
        [[0.0, 0.0, 3.0], [4.0, 0.0, 0.0]]
    """
    return SparseTensor.from_coo(indices, values, shape, dtype=dtype, device=place,
                                 requires_grad=_stop(stop_gradient, values))


def sparse_csr_tensor(crows, cols, values, shape, dtype=None, place=None, stop_gradient=True):
    """A 2-D CSR tensor from row pointers, column indices and values.

        >>> import mutograd.compat.paddle as paddle
        >>> s = paddle.sparse.sparse_csr_tensor([0, 1, 2], [1, 0], [5.0, 6.0], [2, 2])
        >>> s.to_dense().tolist()
        [[0.0, 5.0], [6.0, 0.0]]
    """
    return SparseTensor.from_csr(crows, cols, values, shape, dtype=dtype, device=place,
                                 requires_grad=_stop(stop_gradient, values))


def to_sparse_coo(x, sparse_dim=None):
    """``x.to_sparse_coo(sparse_dim)`` of a dense tensor: its nonzero entries (its slices past
    ``sparse_dim``)."""
    if isinstance(x, _SparseTensor):
        return x.to_sparse_coo()
    return SparseTensor.from_dense(x, sparse_dim)


def to_sparse_csr(x):
    """``x.to_sparse_csr()`` of a dense 2-D tensor."""
    if isinstance(x, _SparseTensor):
        return x.to_sparse_csr()
    return SparseTensor.from_dense(x, layout="sparse_csr")


def _need_sparse(x, fn):
    if not isinstance(x, _SparseTensor):
        raise TypeError(f"paddle.sparse.{fn}() takes a sparse tensor, got "
                        f"{type(x).__name__}; make one with x.to_sparse_coo(sparse_dim)")


# ---- products ------------------------------------------------------------------------------
def matmul(x, y, name=None):
    """The product of a 2-D sparse ``x`` (COO or CSR) and a dense ``y``: a dense tensor; ``x``'s
    values get the gradient at their entries, ``y`` the dense one.

        >>> import mutograd.compat.paddle as paddle
        >>> a = paddle.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2])
        >>> paddle.sparse.matmul(a, paddle.eye(2)).tolist()
        [[0.0, 2.0], [3.0, 0.0]]
    """
    _need_sparse(x, "matmul")
    if isinstance(y, _SparseTensor):
        raise TypeError("paddle.sparse.matmul(): the product of two sparse tensors is not "
                        "supported (a sparse-sparse product); use y.to_dense()")
    return _sparse.mm(x, y)


def mv(x, vec, name=None):
    """The product of a 2-D sparse matrix and a dense vector."""
    _need_sparse(x, "mv")
    if vec.ndim != 1:
        raise _ShapeError(f"paddle.sparse.mv(): vec must be 1-D, got shape {list(vec.shape)}")
    return _sparse.mm(x, vec)


def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):
    """``beta * input + alpha * (x @ y)`` for a dense ``input``, a sparse ``x`` and dense ``y``."""
    _need_sparse(x, "addmm")
    if isinstance(input, _SparseTensor) or isinstance(y, _SparseTensor):
        raise TypeError("paddle.sparse.addmm(): only a dense input, a sparse x and a dense y are "
                        "supported; use .to_dense() on the others")
    return _sparse.addmm(input, x, y, beta=beta, alpha=alpha)


def masked_matmul(x, y, mask, name=None):
    """``x @ y`` of two dense matrices computed only at ``mask``'s stored entries: a sparse
    tensor of ``mask``'s pattern and layout (``mask``'s values are not used)."""
    _need_sparse(mask, "masked_matmul")
    rows, cols = (_constant(a, x) for a in mask._coo_index_array())
    values = (x[rows] * y.mT[cols]).sum(-1)
    return mask.detach()._with_values(values)


# ---- element-wise of two sparse tensors --------------------------------------------------
def _on_union(x, y):
    """``x`` and ``y`` coalesced on the union of their patterns (their values there, zero where
    one has no entry): two tensors of one pattern."""
    a, b = x.to_sparse_coo().coalesce(), y.to_sparse_coo().coalesce()
    if a._same_pattern(b):
        return a, b
    return a._add_sparse(b * 0, 1), (a * 0)._add_sparse(b, 1)


def _binary(x, y, fn, what):
    _need_sparse(x, what)
    if isinstance(y, (_numbers.Number, Tensor)) and not isinstance(y, _SparseTensor):
        if isinstance(y, Tensor) and y.ndim:
            raise TypeError(f"paddle.sparse.{what}(): the second operand must be sparse (or a "
                            f"number); got a dense tensor of shape {list(y.shape)}")
        return x._with_values(fn(x._vals, y))
    if list(x.shape) != list(y.shape):
        raise _ShapeError(f"paddle.sparse.{what}(): shapes {list(x.shape)} and "
                          f"{list(y.shape)} differ")
    if x._same_pattern(y):
        return x._with_values(fn(x._vals, y._vals))
    a, b = _on_union(x, y)
    out = a._with_values(fn(a._vals, b._vals))
    return out.to_sparse_csr() if x._layout == "sparse_csr" else out


def add(x, y, name=None):
    """``x + y`` of two sparse tensors of one shape (every entry of both, summed where they
    meet); a dense ``y`` gives the dense sum."""
    _need_sparse(x, "add")
    if isinstance(y, _SparseTensor):
        return x.add(y)
    return x.to_dense() + y


def subtract(x, y, name=None):
    """``x - y`` of two sparse tensors of one shape."""
    _need_sparse(x, "subtract")
    if isinstance(y, _SparseTensor):
        return x.sub(y)
    return x.to_dense() - y


def multiply(x, y, name=None):
    """``x * y``: element-wise of two sparse tensors of one shape (on the union of their
    patterns), or the values times a number."""
    return _binary(x, y, lambda a, b: a * b, "multiply")


def divide(x, y, name=None):
    """``x / y`` of two sparse tensors of the same pattern, or the values divided by a number.
    (Paddle divides every position, unstored ones too, giving NaN and inf there; other patterns
    are refused here.)"""
    if isinstance(y, _SparseTensor) and not x._same_pattern(y):
        raise _ShapeError("paddle.sparse.divide(): x and y must have the same indices; an entry "
                          "that y does not store is a division by zero")
    return _binary(x, y, lambda a, b: a / b, "divide")


def is_same_shape(x, y):
    """Whether ``x`` and ``y`` (sparse or dense) have one shape."""
    return list(x.shape) == list(y.shape)


# ---- shape -----------------------------------------------------------------------------
def _no_dense_dims(x, what):
    if x.dense_dim():
        raise _ShapeError(f"paddle.sparse.{what}(): tensors with dense dimensions (values of "
                          f"shape {list(x._vals.shape)}) are not supported")


def _keep_layout(x, out):
    return out.to_sparse_csr() if x._layout == "sparse_csr" else out


def transpose(x, perm, name=None):
    """The dimensions of a sparse tensor in the order ``perm`` (its values shared).

        >>> import mutograd.compat.paddle as paddle
        >>> s = paddle.sparse.sparse_coo_tensor([[0], [2]], [1.0], [2, 3])
        >>> paddle.sparse.transpose(s, [1, 0]).indices().tolist()
        [[2], [0]]
    """
    _need_sparse(x, "transpose")
    _no_dense_dims(x, "transpose")
    perm = [int(p) % x.ndim for p in perm]
    if sorted(perm) != list(range(x.ndim)):
        raise _ShapeError(f"paddle.sparse.transpose(): perm {perm} is not a permutation of "
                          f"{x.ndim} dimensions")
    coo = x.to_sparse_coo()
    out = SparseTensor("sparse_coo", [x.shape[p] for p in perm], coo._vals,
                       coo._index_tensor(coo._coo_index_array()[perm], coo._vals),
                       coalesced=perm == sorted(perm) and coo._coalesced)
    return _keep_layout(x, out)


def reshape(x, shape, name=None):
    """The same entries in another shape (one dimension may be -1; values shared)."""
    _need_sparse(x, "reshape")
    _no_dense_dims(x, "reshape")
    shape = [int(n) for n in shape]
    if shape.count(-1) == 1:
        known = _math.prod(n for n in shape if n != -1)
        shape[shape.index(-1)] = x.numel() // known if known else 0
    if _math.prod(shape) != x.numel():
        raise _ShapeError(f"paddle.sparse.reshape(): shape {shape} does not hold "
                          f"{x.numel()} elements of shape {list(x.shape)}")
    coo = x.to_sparse_coo()
    xp = coo._place_xp()
    idx = coo._coo_index_array()
    flat = xp.ravel_multi_index(tuple(idx), tuple(x.shape)) if idx.shape[1] else \
        xp.zeros(0, _np.int64)
    new = xp.stack(xp.unravel_index(flat, shape)).reshape(len(shape), -1).astype(_np.int64)
    out = SparseTensor("sparse_coo", shape, coo._vals, coo._index_tensor(new, coo._vals),
                       coalesced=coo._coalesced)
    return _keep_layout(x, out)


SparseTensor.transpose = transpose
SparseTensor.reshape = reshape


def sum(x, axis=None, dtype=None, keepdim=False, name=None):   # noqa: A001 (paddle.sparse.sum)
    """The sum of the stored values, as a sparse tensor: of shape ``[1]`` without ``axis``
    (``[1] * ndim`` with ``keepdim``), else over dimension ``axis`` (Paddle's result layout)."""
    _need_sparse(x, "sum")
    _no_dense_dims(x, "sum")
    v = x._vals if dtype is None else x._vals.astype(dtype)
    xp = x._place_xp()
    if axis is None:
        n = x.ndim if keepdim else 1
        return SparseTensor("sparse_coo", [1] * n, v.sum().reshape([1]),
                            x._index_tensor(xp.zeros((n, 1), _np.int64), v), coalesced=True)
    axis = int(axis) % x.ndim
    idx = x._coo_index_array()
    if keepdim:
        kept, shape = idx.copy(), list(x.shape)
        kept[axis], shape[axis] = 0, 1
    else:
        kept = xp.delete(idx, axis, axis=0)
        shape = [n for d, n in enumerate(x.shape) if d != axis]
    out = SparseTensor("sparse_coo", shape, v, x._index_tensor(kept, v), coalesced=False)
    return _keep_layout(x, out.coalesce()) if x.ndim == 2 and keepdim else out.coalesce()


# ---- element-wise on the stored values (each maps 0 to 0, so the unstored stay zero) -------
def _unary(name, op=None, doc=None):
    op = op or name

    def fn(x, name=None):
        _need_sparse(x, fn.__name__)
        return x._with_values(getattr(x._vals, op)())
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc or f"``{name}`` of each stored value (zero stays zero)."
    return fn


abs = _unary("abs")  # noqa: A001
sin, sinh, tan, tanh, asin, asinh, atan, atanh, sqrt, square, log1p, expm1, deg2rad, rad2deg = (
    _unary(n) for n in ("sin", "sinh", "tan", "tanh", "asin", "asinh", "atan", "atanh", "sqrt",
                        "square", "log1p", "expm1", "deg2rad", "rad2deg"))
neg = _unary("neg", "neg")


def pow(x, factor, name=None):   # noqa: A001
    """Each stored value to the power ``factor``."""
    _need_sparse(x, "pow")
    return x._with_values(x._vals ** factor)


def isnan(x, name=None):
    """Whether each stored value is NaN (a bool sparse tensor of the same pattern)."""
    _need_sparse(x, "isnan")
    return x.detach()._with_values(x._vals.isnan())


def cast(x, index_dtype=None, value_dtype=None, name=None):
    """The values cast to ``value_dtype`` (indices stay int64: ``index_dtype`` other than int64
    is refused)."""
    _need_sparse(x, "cast")
    if index_dtype is not None and str(index_dtype).replace("paddle.", "") != "int64":
        raise TypeError(f"paddle.sparse.cast(): indices are int64 here, got index_dtype="
                        f"{index_dtype}")
    return x if value_dtype is None else x.astype(value_dtype)


def coalesce(x, name=None):
    """Sorted indices, each once, the values at one index summed."""
    _need_sparse(x, "coalesce")
    return x.coalesce()


def mask_as(x, mask, name=None):
    """The dense ``x`` read at ``mask``'s stored entries: a sparse tensor of ``mask``'s pattern
    (``x`` gets the gradient at those entries)."""
    _need_sparse(mask, "mask_as")
    idx = tuple(_constant(a, x) for a in mask._coo_index_array())
    return mask.detach()._with_values(x[idx])


from . import nn  # noqa: E402, F401
