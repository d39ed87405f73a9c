"""The sparse tensor (Note [Sparse tensors] in mutograd/sparse/__init__.py): indices, a shape,
and a dense tensor of values that carries autograd.

    >>> import mutograd.sparse as sparse
    >>> s = sparse.sparse_coo_tensor([[0, 1, 0], [2, 0, 2]], [1.0, 2.0, 3.0], (2, 3))
    >>> s.is_coalesced(), s.coalesce().values().tolist(), s.to_dense().tolist()
    (False, [4.0, 2.0], [[0.0, 0.0, 4.0], [2.0, 0.0, 0.0]])
"""
import math
import numbers

import numpy as np

from ..autograd.graph_arrays import constant
from ..autograd.grad_mode import is_grad_enabled
from ..errors import BackwardError, DTypeError, ShapeError, SparseIndexError
from ..tensor import Size, Tensor, adopt
from ..ops.registry import OPS
from .pattern import Pattern


class SparseTensor:
    """A sparse tensor in the COO or CSR layout (Note [Sparse tensors]). Made by
    :func:`mutograd.sparse.sparse_coo_tensor`, :func:`~mutograd.sparse.sparse_csr_tensor` or
    :func:`~mutograd.sparse.to_sparse`, not by calling the class."""

    __slots__ = ("_vals", "_shape", "_layout", "_idx", "_crow", "_col", "_coalesced",
                 "_pattern")
    _dense_class = Tensor    # the type of the dense tensors it makes (a dialect sets its own)
    _size_class = Size       # and of its shape

    def __array__(self, dtype=None, copy=None):
        # what a dense op does with any operand that is not a tensor: here a clear refusal
        # instead of a 0-d array of objects
        raise TypeError("a sparse tensor is no operand of a dense op: use s.to_dense(), or an "
                        "op of sparse tensors with the sparse tensor first (s @ d, s + d, "
                        "torch.sparse.mm(s, d), torch.sparse.sum(s))")

    def __init__(self, layout, shape, values, indices=None, crow=None, col=None,
                 coalesced=False):
        # unchecked: the checked ways in are the constructors below
        self._layout, self._shape, self._vals = layout, tuple(shape), values
        self._idx, self._crow, self._col = indices, crow, col
        self._coalesced = coalesced
        self._pattern = None

    # ---- construction --------------------------------------------------------------------
    @classmethod
    def from_coo(cls, indices, values, size=None, *, dtype=None, device=None,
                 requires_grad=False, is_coalesced=None):
        """A COO tensor of ``values[k]`` at ``indices[:, k]`` (checked: integer indices of shape
        ``[sparse_dim, nnz]``, each within ``size``, inferred from them when None)."""
        values = cls._values_of(values, dtype, device, requires_grad)
        xp = values._place.xp
        idx = _index_array(indices, xp, "indices")
        if idx.ndim != 2:
            raise ShapeError(f"indices must be sparse_dim x nnz, but got: {list(idx.shape)}")
        if values.ndim == 0 or idx.shape[1] != values.shape[0]:
            raise ShapeError(f"indices and values must have same nnz, but got nnz from indices: "
                             f"{idx.shape[1]}, nnz from values: "
                             f"{values.shape[0] if values.ndim else 'a 0-d tensor'}")
        k = idx.shape[0]
        if size is None:
            top = idx.max(axis=1) + 1 if idx.shape[1] else xp.zeros(k, np.int64)
            size = tuple(int(n) for n in top) + tuple(values.shape[1:])
        size = tuple(int(n) for n in size)
        if len(size) != k + values.ndim - 1 or size[k:] != tuple(values.shape[1:]):
            raise ShapeError(f"sparse_coo_tensor(): size {list(size)} does not hold {k} sparse "
                             f"dimensions and values of shape {list(values.shape)}")
        if idx.shape[1]:
            low, high = idx.min(axis=1), idx.max(axis=1)
            for d in range(k):
                if int(low[d]) < 0 or int(high[d]) >= size[d]:
                    bad = int(low[d]) if int(low[d]) < 0 else int(high[d])
                    raise SparseIndexError(f"size is inconsistent with indices: for dim {d}, "
                                           f"size is {size[d]} but found index {bad}")
        coalesced = idx.shape[1] <= 1 if is_coalesced is None else bool(is_coalesced)
        return cls("sparse_coo", size, values, indices=cls._index_tensor(idx, values),
                   coalesced=coalesced)

    @classmethod
    def from_csr(cls, crow_indices, col_indices, values, size=None, *, dtype=None, device=None,
                 requires_grad=False):
        """A 2-D CSR tensor: row ``i``'s entries are ``values[crow[i]:crow[i+1]]`` in the
        columns ``col_indices[crow[i]:crow[i+1]]`` (checked)."""
        values = cls._values_of(values, dtype, device, requires_grad)
        xp = values._place.xp
        crow = _index_array(crow_indices, xp, "crow_indices")
        col = _index_array(col_indices, xp, "col_indices")
        if crow.ndim != 1 or col.ndim != 1 or values.ndim != 1 or len(crow) < 1:
            raise ShapeError(f"sparse_csr_tensor(): crow_indices, col_indices and values must be "
                             f"1-D (batched and hybrid CSR are not supported), got shapes "
                             f"{list(crow.shape)}, {list(col.shape)}, {list(values.shape)}")
        if len(col) != values.shape[0]:
            raise ShapeError(f"col_indices and values must have the same length, got "
                             f"{len(col)} and {values.shape[0]}")
        if size is None:
            size = (len(crow) - 1, int(col.max()) + 1 if len(col) else 0)
        size = tuple(int(n) for n in size)
        if len(size) != 2 or len(crow) != size[0] + 1:
            raise ShapeError(f"sparse_csr_tensor(): size {list(size)} needs 2 dimensions and "
                             f"crow_indices of length size[0] + 1, got {len(crow)}")
        if int(crow[0]) != 0 or int(crow[-1]) != len(col) or bool((xp.diff(crow) < 0).any()):
            raise SparseIndexError(f"crow_indices must start at 0, not decrease and end at "
                                   f"nnz = {len(col)}")
        if len(col) and (int(col.min()) < 0 or int(col.max()) >= size[1]):
            raise SparseIndexError("`0 <= col_indices < ncols` is not satisfied.")
        return cls("sparse_csr", size, values, crow=cls._index_tensor(crow, values),
                   col=cls._index_tensor(col, values), coalesced=True)

    @classmethod
    def from_dense(cls, x, sparse_dim=None, *, layout=None):
        """The COO tensor of ``x``'s nonzero entries (of its slices past ``sparse_dim``, whose
        values stay dense), coalesced, or its CSR form for ``layout='sparse_csr'``; the values
        are read by indexing, so ``x``'s gradient flows from them."""
        k = x.ndim if sparse_dim is None else int(sparse_dim)
        if not 0 < k <= x.ndim:
            raise ShapeError(f"to_sparse(): sparse_dim must be in 1..{x.ndim}, got {k}")
        a = x._data
        nonzero = a != 0
        if k < x.ndim:
            nonzero = nonzero.any(axis=tuple(range(k, x.ndim)))
        idx = x._place.xp.stack(x._place.xp.nonzero(nonzero)).astype(np.int64)
        values = x[tuple(constant(i, x) for i in idx)]
        s = cls("sparse_coo", x.shape, values, indices=cls._index_tensor(idx, values),
                coalesced=True)
        return s.to_sparse_csr() if getattr(layout, "name", layout) == "sparse_csr" else s

    @classmethod
    def _values_of(cls, values, dtype, device, requires_grad):
        if not isinstance(values, Tensor):
            from ..ops.creation import tensor
            values = adopt(tensor(values, dtype=dtype, device=device), cls._dense_class)
        else:
            if dtype is not None:
                values = values.to(dtype)
            if device is not None:
                values = values.to(device)
        if requires_grad:
            return values.detach().requires_grad_()
        if values.requires_grad and is_grad_enabled():
            # an alias with history: the gradient reaches ``values``, and this tensor is no leaf
            return values.view(tuple(values.shape))
        return values

    @classmethod
    def _index_tensor(cls, arr, like):
        return adopt(constant(arr.astype(np.int64, copy=False), like), cls._dense_class)

    def _with_values(self, values, coalesced=None):
        """This pattern (shared) with other values."""
        return type(self)(self._layout, self._shape, values, self._idx, self._crow, self._col,
                          self._coalesced if coalesced is None else coalesced)

    # ---- what it is ------------------------------------------------------------------------
    layout = property(lambda self: self._layout, doc="``'sparse_coo'`` or ``'sparse_csr'``.")
    is_sparse = property(lambda self: self._layout == "sparse_coo", doc="Whether it is COO.")
    is_sparse_csr = property(lambda self: self._layout == "sparse_csr",
                             doc="Whether it is CSR.")
    shape = property(lambda self: self._size_class(self._shape))
    dtype = property(lambda self: self._vals.dtype)
    device = property(lambda self: self._vals.device)
    place = property(lambda self: self._vals.place)
    ndim = property(lambda self: len(self._shape))
    is_cuda = property(lambda self: self._vals.is_cuda)

    def size(self, dim=None):
        """The shape, or the size of dimension ``dim``."""
        return self.shape if dim is None else self._shape[dim]

    def dim(self):
        return len(self._shape)

    def numel(self):
        """The number of elements of the dense tensor it stands for."""
        return math.prod(self._shape)

    def _nnz(self):
        """The number of stored entries (duplicates counted until :meth:`coalesce`)."""
        return int(self._vals.shape[0])

    nnz = _nnz

    def sparse_dim(self):
        return 2 if self._crow is not None else int(self._idx.shape[0])

    def dense_dim(self):
        return self._vals.ndim - 1

    def is_coalesced(self):
        """Whether no index repeats and the indices are sorted (row-major)."""
        return self._coalesced

    # ---- autograd: the values' --------------------------------------------------------------
    requires_grad = property(lambda self: self._vals.requires_grad)
    grad_fn = property(lambda self: self._vals.grad_fn)
    is_leaf = property(lambda self: self._vals.is_leaf)
    _version = property(lambda self: self._vals._version)

    def requires_grad_(self, requires_grad=True):
        """Make this tensor's values (a leaf) record operations; returns ``self``."""
        self._vals.requires_grad_(requires_grad)
        return self

    @property
    def grad(self):
        """The gradient, a sparse tensor of this one's pattern, coalesced: the derivative with
        respect to each stored value (entries at one position share it, as PyTorch's)."""
        g = self._vals.grad
        if g is None or self._coalesced:
            return None if g is None else self._with_values(g)
        indices, _, first = self._coalesce_plan()
        return type(self)("sparse_coo", self._shape, g[constant(first, g)], indices,
                          coalesced=True)

    @grad.setter
    def grad(self, value):
        self._vals.grad = None if value is None else value._vals

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Backward from this tensor; ``gradient`` (dense or sparse, of its shape) is needed
        unless it holds one element."""
        if gradient is None and self.numel() != 1:
            raise BackwardError(f"grad can be implicitly created only for scalar outputs; got "
                                f"a sparse tensor of shape {list(self._shape)}")
        if isinstance(gradient, SparseTensor):
            gradient = gradient.to_dense()
        return Tensor.backward(self.to_dense(), gradient, retain_graph, create_graph, inputs)

    def detach(self):
        """The same pattern and values, without history."""
        return self._with_values(self._vals.detach())

    def clone(self):
        """A copy of the values (with history) in the same pattern."""
        return self._with_values(self._vals.clone())

    # ---- parts ---------------------------------------------------------------------------
    def _indices(self):
        """The ``[sparse_dim, nnz]`` indices as stored (COO)."""
        self._need("sparse_coo", "indices")
        return self._idx

    def _values(self):
        """The stored values as they are (also of an uncoalesced tensor)."""
        return self._vals

    def indices(self):
        """The indices of a coalesced COO tensor (call :meth:`coalesce` first)."""
        self._need("sparse_coo", "indices")
        if not self._coalesced:
            raise SparseIndexError("Cannot get indices on an uncoalesced tensor, please call "
                                   ".coalesce() first")
        return self._idx

    def values(self):
        """The stored values (a dense tensor with the history); COO must be coalesced."""
        if not self._coalesced:
            raise SparseIndexError("Cannot get values on an uncoalesced tensor, please call "
                                   ".coalesce() first")
        return self._vals

    def crow_indices(self):
        """A CSR tensor's row pointers (``nrows + 1`` of them)."""
        self._need("sparse_csr", "crow_indices")
        return self._crow

    def col_indices(self):
        """A CSR tensor's column of each stored value."""
        self._need("sparse_csr", "col_indices")
        return self._col

    def _need(self, layout, what):
        if self._layout != layout:
            raise TypeError(f"{what}() is a method of {layout} tensors; this one is "
                            f"{self._layout} (convert with to_{layout}())")

    def _coo_index_array(self):
        """The ``[sparse_dim, nnz]`` backend array of indices, whatever the layout."""
        if self._idx is not None:
            return self._idx._data
        p = self.pattern()
        return self._place_xp().stack([p.rows, p.cols])

    def _place_xp(self):
        return self._vals._place.xp

    def pattern(self):
        """The 2-D matrix pattern the products use (pattern.py), made once."""
        if self._pattern is None:
            if self.sparse_dim() != 2:
                raise ShapeError(f"a sparse matrix product needs 2 sparse dimensions, this "
                                 f"tensor has {self.sparse_dim()}")
            xp = self._place_xp()
            if self._crow is not None:
                self._pattern = Pattern(xp, self._shape, crow=self._crow._data,
                                        cols=self._col._data)
            else:
                self._pattern = Pattern(xp, self._shape[:2], rows=self._idx._data[0],
                                        cols=self._idx._data[1])
        return self._pattern

    # ---- conversions -------------------------------------------------------------------------
    def to_dense(self, dtype=None, *, masked_grad=None):
        """The dense tensor: zeros with each stored value added at its index (duplicates
        summed); differentiable in the values (an ``index_add``)."""
        values = self._vals if dtype is None else self._vals.to(dtype)
        k = self.sparse_dim()
        idx = self._coo_index_array()
        xp = self._place_xp()
        flat = xp.ravel_multi_index(tuple(idx), self._shape[:k]) if idx.shape[1] else \
            xp.zeros(0, np.int64)
        zeros = values.new_zeros((math.prod(self._shape[:k]),) + self._shape[k:])
        # the main Tensor's index_add: a dialect's values may take other argument orders
        return Tensor.index_add(zeros, 0, constant(flat.astype(np.int64), values),
                                values).reshape(self._shape)

    def _coalesce_plan(self):
        """The coalesced indices (a tensor), each entry's position among them, and the first
        entry at each position."""
        xp = self._place_xp()
        idx = self._idx._data
        k = idx.shape[0]
        if idx.shape[1] == 0:
            return self._idx, xp.zeros(0, np.int64), xp.zeros(0, np.int64)
        flat = xp.ravel_multi_index(tuple(idx), self._shape[:k])
        unique, first, inverse = xp.unique(flat, return_index=True, return_inverse=True)
        indices = xp.stack(xp.unravel_index(unique, self._shape[:k])).astype(np.int64)
        return self._index_tensor(indices, self._vals), inverse.reshape(-1), first

    def coalesce(self):
        """Sorted indices, each once, with the values at one index summed (``self`` if
        already coalesced); differentiable in the values."""
        if self._coalesced:
            return self
        indices, inverse, _ = self._coalesce_plan()
        v = self._vals
        summed = Tensor.index_add(v.new_zeros((indices.shape[1],) + tuple(v.shape[1:])),
                                  0, constant(inverse, v), v)
        return type(self)("sparse_coo", self._shape, summed, indices, coalesced=True)

    def to_sparse(self, *, layout=None, sparse_dim=None, **kw):
        """This tensor in ``layout`` (COO by default)."""
        if layout is not None and getattr(layout, "name", layout) == "sparse_csr":
            return self.to_sparse_csr()
        return self.to_sparse_coo()

    def to_sparse_coo(self):
        """The COO form (the CSR values are shared)."""
        if self._layout == "sparse_coo":
            return self
        return type(self)("sparse_coo", self._shape, self._vals,
                          indices=self._index_tensor(self._coo_index_array(), self._vals),
                          coalesced=True)

    def to_sparse_csr(self, dense_dim=None):
        """The CSR form of a 2-D tensor (coalesced first; its values are shared)."""
        if self._layout == "sparse_csr":
            return self
        if self.sparse_dim() != 2 or self.dense_dim():
            raise ShapeError(f"to_sparse_csr(): needs a 2-D sparse tensor without dense "
                             f"dimensions, got sparse_dim={self.sparse_dim()}, "
                             f"dense_dim={self.dense_dim()}")
        c = self.coalesce()
        xp = self._place_xp()
        rows, cols = c._idx._data
        crow = xp.concatenate([xp.zeros(1, np.int64),
                               xp.cumsum(xp.bincount(rows, minlength=self._shape[0]))])
        return type(self)("sparse_csr", self._shape, c._vals,
                          crow=self._index_tensor(crow, c._vals),
                          col=self._index_tensor(cols, c._vals), coalesced=True)

    def to(self, *args, **kwargs):
        """The values moved or cast by ``Tensor.to``, the indices following them."""
        values = self._vals.to(*args, **kwargs)
        if values is self._vals:
            return self
        if values._place == self._vals._place:
            return self._with_values(values)

        def move(t):
            return None if t is None else adopt(t.to(values.device), self._dense_class)
        return type(self)(self._layout, self._shape, values, move(self._idx),
                          move(self._crow), move(self._col), self._coalesced)

    def cpu(self):
        return self.to("cpu")

    def double(self):
        return self.to(np.float64)

    def float(self):
        return self.to(np.float32)

    # ---- arithmetic ------------------------------------------------------------------------
    def _scalar(self, other, what):
        if isinstance(other, numbers.Number) or (isinstance(other, Tensor) and other.ndim == 0):
            return other
        raise TypeError(f"sparse tensor {what}: only a Python number or a 0-d tensor is "
                        f"supported here, got {type(other).__name__}")

    def __mul__(self, other):
        if not isinstance(other, (numbers.Number, Tensor)):
            return NotImplemented
        return self._with_values(self._vals * self._scalar(other, "*"))

    __rmul__ = __mul__
    mul = __mul__

    def __truediv__(self, other):
        if not isinstance(other, (numbers.Number, Tensor)):
            return NotImplemented
        return self._with_values(self._vals / self._scalar(other, "/"))

    div = __truediv__

    def __neg__(self):
        return self._with_values(-self._vals)

    def __add__(self, other):
        if isinstance(other, SparseTensor):
            return self._add_sparse(other, 1)
        if isinstance(other, Tensor):
            return self.to_dense() + other
        return NotImplemented

    def __sub__(self, other):
        if isinstance(other, SparseTensor):
            return self._add_sparse(other, -1)
        if isinstance(other, Tensor):
            return self.to_dense() - other
        return NotImplemented

    def add(self, other, *, alpha=1):
        """``self + alpha * other``."""
        if isinstance(other, SparseTensor):
            return self._add_sparse(other, alpha)
        return self.to_dense() + (other if alpha == 1 else other * alpha)

    def sub(self, other, *, alpha=1):
        return self.add(other, alpha=-alpha)

    def _add_sparse(self, other, alpha):
        """Both sets of entries, coalesced when both inputs are (as PyTorch's sum)."""
        if self._shape != other._shape or self.sparse_dim() != other.sparse_dim():
            raise ShapeError(f"sparse add: shapes {list(self._shape)} and "
                             f"{list(other._shape)} (sparse_dim {self.sparse_dim()} and "
                             f"{other.sparse_dim()}) differ")
        cat = OPS["cat"].function
        a, b = self.to_sparse_coo(), other.to_sparse_coo()
        bv = b._vals if alpha == 1 else b._vals * alpha
        both = type(self)("sparse_coo", self._shape, cat([a._vals, bv], 0),
                          cat([a._idx, b._idx], 1), coalesced=False)
        if self._layout == "sparse_csr":
            return both.to_sparse_csr()
        return both.coalesce() if a._coalesced and b._coalesced else both

    def __matmul__(self, other):
        from .functional import mm
        if not isinstance(other, Tensor):
            return NotImplemented
        return mm(self, other)

    def mm(self, mat2):
        """The product with a dense matrix (``torch.sparse.mm``)."""
        from .functional import mm
        return mm(self, mat2)

    matmul = mm

    def t(self):
        """The transpose of a 2-D COO tensor (its values shared, as PyTorch's)."""
        return self.transpose(0, 1)

    def transpose(self, dim0, dim1):
        """Swap two sparse dimensions of a COO tensor (its values shared)."""
        self._need("sparse_coo", "transpose")
        k = self.sparse_dim()
        d0, d1 = dim0 % self.ndim, dim1 % self.ndim
        if d0 >= k or d1 >= k:
            raise ShapeError(f"transpose(): only sparse dimensions (0..{k - 1}) can be swapped, "
                             f"got {dim0} and {dim1}")
        order = list(range(k))
        order[d0], order[d1] = d1, d0
        shape = list(self._shape)
        shape[d0], shape[d1] = shape[d1], shape[d0]
        return type(self)("sparse_coo", shape, self._vals,
                          self._index_tensor(self._idx._data[order], self._vals),
                          coalesced=self._coalesced and d0 == d1)

    # ---- in place: writes of the values (design.md rules 2, 4, 9) --------------------------
    def mul_(self, other):
        """Multiply the values by a number in place; returns ``self``."""
        self._vals.mul_(self._scalar(other, "mul_"))
        return self

    def div_(self, other):
        """Divide the values by a number in place; returns ``self``."""
        self._vals.div_(self._scalar(other, "div_"))
        return self

    def zero_(self):
        """Set every stored value to zero in place (the pattern is kept); returns ``self``."""
        self._vals.zero_()
        return self

    def add_(self, other, *, alpha=1):
        """Add the values of a sparse tensor of the same pattern in place; returns ``self``."""
        if not (isinstance(other, SparseTensor) and self._same_pattern(other)):
            raise ShapeError("sparse add_(): the other tensor must be sparse with the same "
                             "layout, shape and indices; use a + b for other patterns")
        self._vals.add_(other._vals, alpha=alpha)
        return self

    def _same_pattern(self, other):
        if self._layout != other._layout or self._shape != other._shape or \
                self._nnz() != other._nnz():
            return False
        parts = ((self._idx, other._idx), (self._crow, other._crow), (self._col, other._col))
        return all(a is b or bool((a._data == b._data).all()) for a, b in parts
                   if a is not None)

    __imul__ = mul_
    __itruediv__ = div_
    __iadd__ = add_

    # ---- printing ---------------------------------------------------------------------------
    def __repr__(self):
        pad = " " * (len(self._repr_name) + 1)
        if self._layout == "sparse_csr":
            parts = [("crow_indices", self._crow), ("col_indices", self._col)]
        else:
            parts = [("indices", self._idx)]
        parts.append(("values", self._vals))
        lines = []
        for name, t in parts:
            text = repr(t).replace("\n", "\n" + pad + " " * (len(name) + 1))
            lines.append(f"{name}={text}")
        size = tuple(self._shape)
        lines.append(f"size={size}, nnz={self._nnz()}, layout={self._layout_repr()}")
        return f"{self._repr_name}(" + (",\n" + pad).join(lines) + ")"

    _repr_name = "SparseTensor"

    def _layout_repr(self):
        return self._layout

    __hash__ = object.__hash__


def _index_array(a, xp, what):
    """``a`` (a tensor, an array or nested lists) as a backend int64 array, checked integer."""
    if isinstance(a, Tensor):
        arr = a._data
        if arr.dtype.kind not in "iu":
            raise DTypeError(f"{what} must be an int64 tensor, got {a.dtype}")
        return arr.astype(np.int64, copy=False)
    arr = np.asarray(a)
    if arr.size and arr.dtype.kind not in "iu":
        raise DTypeError(f"{what} must be integers, got {arr.dtype}")
    arr = arr.astype(np.int64)
    return arr if xp is np else xp.asarray(arr)
