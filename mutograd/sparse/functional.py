"""Functions of sparse tensors: products with a dense matrix (``mm``, ``addmm``), ``sum`` and the
softmax over the stored entries, each written with the ``sparse_mm`` op (matmul.py) or dense ops
on the values, so every one is differentiable.

    >>> import mutograd as mg
    >>> import mutograd.sparse as sparse
    >>> a = sparse.sparse_coo_tensor([[0, 0, 1], [0, 1, 1]], [1.0, 3.0, 2.0], (2, 2))
    >>> sparse.sum(a).item(), sparse.softmax(a, 1).to_dense().tolist()[1]
    (6.0, [0.0, 1.0])
"""
import numbers

from ..autograd.graph_arrays import constant
from ..errors import DTypeError, ShapeError
from ..tensor import Tensor
from .matmul import SPARSE_MM
from .tensor import SparseTensor


def mm(sparse, dense):
    """The product of a 2-D sparse tensor (COO or CSR) and a dense matrix (or vector): a dense
    tensor. The dense operand gets a dense gradient, the sparse one a gradient at its stored
    entries.

        >>> import mutograd as mg
        >>> import mutograd.sparse as sparse
        >>> s = sparse.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], (2, 2))
        >>> mm(s, mg.eye(2)).tolist()
        [[0.0, 2.0], [3.0, 0.0]]
    """
    if not isinstance(sparse, SparseTensor):
        raise TypeError(f"sparse.mm(): the first operand must be a sparse tensor, got "
                        f"{type(sparse).__name__}")
    if isinstance(dense, SparseTensor):
        raise TypeError("sparse.mm(): a sparse second operand is not supported; use "
                        "mm(a, b.to_dense())")
    if sparse.ndim != 2 or sparse.dense_dim():
        raise ShapeError(f"sparse.mm(): needs a 2-D sparse matrix without dense dimensions, got "
                         f"shape {list(sparse.shape)} with dense_dim={sparse.dense_dim()}")
    return SPARSE_MM.function(sparse._vals, dense, pattern=sparse.pattern())


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)`` for a sparse ``mat1`` and dense ``mat2``.

        >>> import mutograd as mg
        >>> import mutograd.sparse as sparse
        >>> s = sparse.sparse_coo_tensor([[0], [1]], [2.0], (2, 2))
        >>> addmm(mg.ones([2, 1]), s, mg.ones([2, 1]), alpha=3).tolist()
        [[7.0], [1.0]]
    """
    product = mm(mat1, mat2)
    if alpha != 1:
        product = product * alpha
    if beta == 0:   # as PyTorch: input is ignored (its NaNs too)
        return product
    return (input if beta == 1 else input * beta) + product


def sum(input, dim=None, dtype=None):
    """The sum of the stored values: a dense scalar without ``dim``; over the sparse dimensions
    ``dim``, a sparse tensor of the rest (dense when no sparse dimension is left).

        >>> import mutograd.sparse as sparse
        >>> s = sparse.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [1.0, 2.0, 3.0], (2, 3))
        >>> sum(s, 0).to_dense().tolist()
        [2.0, 0.0, 4.0]
    """
    s = input.to_sparse_coo()
    values = s._vals if dtype is None else s._vals.to(dtype)
    if dim is None:
        return values.sum()
    dims = {d % s.ndim for d in ((dim,) if isinstance(dim, numbers.Integral) else dim)}
    k = s.sparse_dim()
    dense_dims = sorted(d - k + 1 for d in dims if d >= k)
    if dense_dims:
        values = values.sum(tuple(dense_dims))
    keep = [d for d in range(k) if d not in dims]
    if not keep:
        return values.sum(0)
    shape = [s._shape[d] for d in range(s.ndim) if d not in dims]
    idx = s._index_tensor(s._idx._data[keep], values)
    return type(s)("sparse_coo", shape, values, idx, coalesced=False).coalesce()


def _grouped(input, dim):
    """The coalesced COO form, its values, and for each entry the id of the slice along ``dim``
    it belongs to (entries that differ only in ``dim``'s index share one), with the count."""
    s = input.to_sparse_coo().coalesce()
    k = s.sparse_dim()
    d = dim % s.ndim
    if d >= k or s.dense_dim():
        raise ShapeError(f"sparse softmax: dim must be a sparse dimension of a tensor without "
                         f"dense dimensions, got dim={dim} (sparse_dim={k})")
    xp = s._place_xp()
    others = [i for i in range(k) if i != d]
    idx = s._idx._data
    if others:
        flat = xp.ravel_multi_index(tuple(idx[others]), tuple(s._shape[i] for i in others))
        groups, group = xp.unique(flat, return_inverse=True)
        count = len(groups)
    else:
        group, count = xp.zeros(idx.shape[1], idx.dtype), 1
    return s, group.reshape(-1), count


def _shifted_exp(s, group, count):
    """``v - max`` per slice (the max a constant: softmax does not depend on it) and the sum
    of ``exp`` of it per slice, read back at each entry."""
    v = s._vals
    xp = s._place_xp()
    top = xp.full(count, -xp.inf, v._data.dtype)
    xp.maximum.at(top, group, v._data)
    shifted = v - constant(top[group], v)
    g = constant(group, v)
    total = Tensor.index_add(v.new_zeros((count,)), 0, g, shifted.exp())   # main arg order
    return shifted, total[g]


def softmax(input, dim, *, dtype=None):
    """The softmax along ``dim`` over the stored entries only (absent ones count as minus
    infinity, not zero): a sparse tensor of the input's pattern, coalesced.

        >>> import mutograd.sparse as sparse
        >>> s = sparse.sparse_coo_tensor([[0, 0], [0, 2]], [0.0, 0.0], (1, 3))
        >>> softmax(s, 1).to_dense().tolist()
        [[0.5, 0.0, 0.5]]
    """
    s, group, count = _grouped(input if dtype is None else input.to(dtype), dim)
    shifted, total = _shifted_exp(s, group, count)
    return s._with_values(shifted.exp() / total)


def log_softmax(input, dim, *, dtype=None):
    """``log(softmax(input, dim))`` over the stored entries, computed without the log of a
    quotient.

        >>> import mutograd.sparse as sparse
        >>> s = sparse.sparse_coo_tensor([[0, 0], [0, 2]], [1.0, 1.0], (1, 3))
        >>> round(log_softmax(s, 1).values()[0].item(), 4)
        -0.6931
    """
    s, group, count = _grouped(input if dtype is None else input.to(dtype), dim)
    shifted, total = _shifted_exp(s, group, count)
    return s._with_values(shifted - total.log())


def to_sparse(x, sparse_dim=None, *, layout=None):
    """The sparse form of a dense tensor: its nonzero entries (COO, coalesced, or CSR with
    ``layout='sparse_csr'``); the values are read by indexing, so ``x``'s gradient flows.

        >>> import mutograd as mg
        >>> to_sparse(mg.tensor([[0.0, 2.0], [3.0, 0.0]])).indices().tolist()
        [[0, 1], [1, 0]]
    """
    if isinstance(x, SparseTensor):
        return x.to_sparse(layout=layout)
    if not isinstance(x, Tensor):
        raise TypeError(f"to_sparse(): expected a tensor, got {type(x).__name__}")
    return SparseTensor.from_dense(x, sparse_dim, layout=layout)


def sampled_addmm(input, mat1, mat2, *, beta=1.0, alpha=1.0):
    """``beta * input + alpha * (mat1 @ mat2)`` computed only at ``input``'s stored entries: a
    sparse tensor of ``input``'s pattern (a 2-D CSR tensor) whose value at ``(i, j)`` is
    ``beta * input[i, j] + alpha * mat1[i] . mat2[:, j]``. Differentiable in ``input``'s
    values, ``mat1`` and ``mat2``; no product outside the pattern is formed.

        >>> import mutograd as mg
        >>> import mutograd.sparse as sparse
        >>> s = sparse.sparse_csr_tensor([0, 1, 2], [1, 0], [1.0, 1.0], (2, 2))
        >>> m = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> sampled_addmm(s, m, m, beta=0.5).to_dense().tolist()
        [[0.0, 10.5], [15.5, 0.0]]
    """
    if not isinstance(input, SparseTensor) or input._layout != "sparse_csr":
        raise RuntimeError(f"sampled_addmm: Expected input to be a sparse CSR tensor, got "
                           f"{getattr(input, 'layout', type(input).__name__)}")
    for name, m in (("mat1", mat1), ("mat2", mat2)):
        if not isinstance(m, Tensor) or m.ndim != 2:
            raise RuntimeError(f"sampled_addmm: Expected {name} to be a 2-D dense tensor")
    (n, k), (k2, m) = mat1.shape, mat2.shape
    if k != k2 or tuple(input.shape) != (n, m):
        raise ShapeError(f"sampled_addmm: cannot multiply {list(mat1.shape)} by "
                         f"{list(mat2.shape)} at the entries of a sparse matrix of shape "
                         f"{list(input.shape)}")
    if not (mat1.dtype == mat2.dtype == input.dtype):
        raise DTypeError(f"sampled_addmm: Expected mat1, mat2 and input to have the same "
                         f"dtype, got {mat1.dtype}, {mat2.dtype} and {input.dtype}")
    p = input.pattern()
    rows, cols = constant(p.rows, mat1), constant(p.cols, mat1)
    values = (mat1[rows] * mat2.mT[cols]).sum(-1)
    if alpha != 1:
        values = values * alpha
    # unlike addmm, beta=0 still multiplies (a NaN stays NaN), as PyTorch's sampled_addmm
    values = values + (input._vals if beta == 1 else input._vals * beta)
    return input._with_values(values)


def spdiags(diagonals, offsets, shape, layout=None):
    """The 2-D sparse tensor of ``shape`` with row ``d`` of ``diagonals`` on the diagonal
    ``offsets[d]`` (0 the main one, above it positive, below negative): the entry at
    ``(i, i + offsets[d])`` is ``diagonals[d, i + offsets[d]]`` (indexed by column, as
    SciPy's ``spdiags``), where that lies inside both. COO (the entries diagonal by diagonal)
    or CSR with ``layout``; the values are read from ``diagonals`` by indexing, so its
    gradient flows.

        >>> import mutograd as mg
        >>> import mutograd.sparse as sparse
        >>> d = mg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        >>> spdiags(d, mg.tensor([0, -1]), (3, 3)).to_dense().tolist()
        [[1.0, 0.0, 0.0], [4.0, 2.0, 0.0], [0.0, 5.0, 3.0]]
    """
    return diagonal_tensor(SparseTensor, diagonals, offsets, shape, layout)


def diagonal_tensor(cls, diagonals, offsets, shape, layout=None):
    """:func:`spdiags` as a sparse tensor of the class ``cls`` (a dialect's)."""
    import numpy as np
    name = getattr(layout, "name", layout) or "sparse_coo"
    if name not in ("sparse_coo", "sparse_csr"):
        raise RuntimeError(f"spdiags: the output layout must be sparse_coo or sparse_csr (CSC "
                           f"is not supported here), got {name}")
    if len(tuple(shape)) != 2:
        raise RuntimeError("Output shape must be 2d")
    rows, cols = (int(s) for s in shape)
    offs = offsets._data if isinstance(offsets, Tensor) else np.asarray(offsets)
    if offs.ndim > 1:
        raise RuntimeError("Offsets must be scalar or vector")
    if offs.dtype != np.int64:
        raise DTypeError(f"Offset Tensor must have dtype Long but got {offsets.dtype}")
    offs = [int(o) for o in offs.reshape(-1).tolist()]
    diags = diagonals if diagonals.ndim == 2 else diagonals.reshape(1, -1)
    if diagonals.ndim > 2:
        raise RuntimeError("Diagonals must be vector or matrix")
    if diags.shape[0] != len(offs):
        raise RuntimeError(f"Number of diagonals ({diags.shape[0]}) does not match the number "
                           f"of offsets ({len(offs)})")
    if len(set(offs)) != len(offs):
        raise RuntimeError("Offset tensor contains duplicate values")
    xp = diags._place.xp
    r, c, d = [], [], []
    for k, off in enumerate(offs):
        # columns j with 0 <= j - off < rows, j < cols and j within the row of diagonals
        j = xp.arange(max(off, 0), min(rows + off, cols, diags.shape[1]), dtype=np.int64)
        r.append(j - off)
        c.append(j)
        d.append(xp.full(len(j), k, dtype=np.int64))
    r, c, d = (xp.concatenate(a) if a else xp.zeros(0, np.int64) for a in (r, c, d))
    values = diags[constant(d, diags), constant(c, diags)]
    s = cls.from_coo(xp.stack([r, c]), values, (rows, cols))
    return s.to_sparse_csr() if name == "sparse_csr" else s
