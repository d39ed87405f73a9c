"""Sparse tensors, COO and CSR, for graph neural networks and recommendation models: products
with dense matrices (``mm``, ``addmm``, ``sampled_addmm``), ``sum``, the softmax over stored
entries, diagonal matrices (``spdiags``) and sparse linear solves (``spsolve``).

    >>> import mutograd as mg
    >>> import mutograd.sparse as sparse
    >>> adj = sparse.sparse_coo_tensor([[0, 1, 1], [1, 0, 1]], [1.0, 1.0, 2.0], (2, 2))
    >>> x = mg.tensor([[1.0], [2.0]], requires_grad=True)
    >>> y = sparse.mm(adj, x)
    >>> y.tolist()
    [[2.0], [5.0]]
    >>> y.sum().backward(); x.grad.tolist()
    [[1.0], [3.0]]

Note [Sparse tensors]
    A sparse tensor (tensor.py) is a shape, integer indices and a dense tensor of values: COO
    holds ``indices`` (int64, ``[sparse_dim, nnz]``) and ``values`` (``[nnz, *dense dims]``);
    CSR, 2-D only, holds ``crow_indices`` (``nrows + 1`` row pointers) and ``col_indices``
    with 1-D values. The indices never change after construction (an op that would change
    them, ``coalesce`` or ``a + b``, makes a new tensor), so they carry no autograd state. The
    values are an ordinary mutograd tensor, and everything autograd knows about the sparse
    tensor is theirs: ``requires_grad``, ``grad_fn``, ``is_leaf`` and ``_version`` read the
    values', an in-place op (``mul_``, ``div_``, ``zero_``, ``add_`` of the same pattern)
    is the values' in-place op, so the version counter, the error for a write into values
    saved for backward (design.md rule 2) and the leaf error (rule 4) are the dense tensor's,
    unchanged. ``grad`` is the values' gradient laid out in the same pattern.

    It is **not** a subclass of Tensor. Every dense op reads ``x._data`` as the tensor's
    elements; a subclass would either have to hold a dense ``_data`` (no longer sparse) or fail
    inside an op with an unrelated error. As its own class it goes through no dense op, and the
    core has no test for it on any path: a dense op given one refuses it as it refuses any
    object that is not an array. What users see is duck-compatible with a tensor (``shape``,
    ``dtype``, ``device``, ``layout``, ``is_sparse``, ``requires_grad``, ``grad``,
    ``backward``, operators), and ``isinstance(s, Tensor)`` is False.

    The products run in the backend's sparse library (SciPy's ``coo_array``/``csr_array`` on
    the CPU, ``cupyx.scipy.sparse`` on a GPU) through one op, ``sparse_mm`` (matmul.py), whose
    inputs are the values and the dense operand and whose attribute is the fixed pattern (a
    linear solve is one more such op, ``sparse_solve``, solve.py). The rest is composed from
    dense ops on the values: ``to_dense`` is an ``index_add`` into zeros,
    ``coalesce`` an ``index_add`` into the unique positions, ``to_sparse`` of a dense tensor an
    indexing, the softmax a few element-wise ops and ``index_add``; so gradients, second order
    included, come from those ops' own declarations.

    Differences from PyTorch, each for a simpler rule: the invariants (indices within the size,
    CSR row pointers) are always checked, as ``check_invariants=True`` does
    (``check_sparse_tensor_invariants``, checks.py, is always enabled); ``zero_()`` keeps
    the pattern with zero values (PyTorch drops every entry); ``torch.mm(s, d)`` gives ``s`` the
    gradient at its stored entries as ``torch.sparse.mm`` does (PyTorch gives a dense one); a
    tensor made from values that require grad is an alias of them with history (no leaf), and
    its gradient goes to those values.
"""
from .checks import as_sparse_gradcheck, check_sparse_tensor_invariants
from .functional import (  # noqa: A004
    addmm, log_softmax, mm, sampled_addmm, softmax, spdiags, sum, to_sparse)
from .solve import spsolve
from .tensor import SparseTensor

spmm = mm


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    """A COO sparse tensor with ``values[k]`` at ``indices[:, k]``; ``size`` is inferred from
    the indices when None. The indices are always checked (``check_invariants`` is accepted).

        >>> import mutograd.sparse as sparse
        >>> s = sparse.sparse_coo_tensor([[0, 1], [2, 0]], [3.0, 4.0], (2, 3))
        >>> s.to_dense().tolist()
        [[0.0, 0.0, 3.0], [4.0, 0.0, 0.0]]
    """
    return SparseTensor.from_coo(indices, values, size, dtype=dtype, device=device,
                                 requires_grad=requires_grad, is_coalesced=is_coalesced)


def sparse_csr_tensor(crow_indices, col_indices, values, size=None, *, dtype=None, device=None,
                      requires_grad=False, check_invariants=None):
    """A 2-D CSR sparse tensor: row ``i`` holds ``values[crow[i]:crow[i+1]]`` in the columns
    ``col_indices[crow[i]:crow[i+1]]``.

        >>> import mutograd.sparse as sparse
        >>> s = sparse.sparse_csr_tensor([0, 1, 2], [1, 0], [5.0, 6.0], (2, 2))
        >>> s.to_dense().tolist()
        [[0.0, 5.0], [6.0, 0.0]]
    """
    return SparseTensor.from_csr(crow_indices, col_indices, values, size, dtype=dtype,
                                 device=device, requires_grad=requires_grad)


__all__ = ["SparseTensor", "addmm", "as_sparse_gradcheck", "check_sparse_tensor_invariants",
           "log_softmax", "mm", "sampled_addmm", "softmax", "sparse_coo_tensor",
           "sparse_csr_tensor", "spdiags", "spmm", "spsolve", "sum", "to_sparse"]
