"""Solving a sparse linear system: one op, ``sparse_solve(values, b, pattern=)``, the solution
``x`` of ``A x = b`` for the square sparse matrix ``A`` of those values and that pattern.

The forward is the backend's sparse direct solver (SciPy's ``spsolve``, SuperLU, on the CPU;
``cupyx.scipy.sparse.linalg.spsolve`` on a GPU). With ``G`` the incoming gradient and
``H = A^-T G`` (the same op on the transposed pattern, so differentiable again, design.md
rule 13):

- the right-hand side's gradient is ``H``;
- the gradient of the value stored at ``(i, j)`` is ``-H[i] . x[j]``, the dense gradient
  ``-H x^T`` read only where ``A`` has entries, as ``sparse.mm`` gives its values' gradient.

    >>> import mutograd as mg
    >>> import mutograd.sparse as sparse
    >>> a = sparse.sparse_csr_tensor([0, 1, 2], [0, 1], [2.0, 4.0], (2, 2))
    >>> sparse.spsolve(a, mg.tensor([1.0, 2.0])).tolist()
    [0.5, 0.5]
"""
import importlib

from ..autograd.graph_arrays import box, graph_mode, tensor_of
from ..errors import ShapeError
from ..ops.registry import defop
from .pattern import backend_module


def _solve_arrays(xp, values, b, pattern):
    linalg = importlib.import_module(backend_module(xp).__name__ + ".linalg")
    a = pattern.matrix(xp, values).tocsr()
    x = linalg.spsolve(a, b)
    return xp.asarray(x).reshape(b.shape).astype(xp.result_type(values, b), copy=False)


def _sparse_solve(xp, values, b, *, pattern=None):
    n, m = pattern.shape
    if n != m:
        raise ShapeError(f"sparse.spsolve(): the matrix must be square, got shape "
                         f"{list(pattern.shape)}")
    if b.ndim not in (1, 2) or b.shape[0] != n:
        raise ShapeError(f"sparse.spsolve(): a matrix of shape {list(pattern.shape)} cannot "
                         f"solve for a right-hand side of shape {list(b.shape)}")
    return _solve_arrays(xp, values, b, pattern)


def _solve(xp, values, b, pattern):
    """The op's value on arrays, or the recorded op on a gradient's graph arrays."""
    if graph_mode(xp):
        v = tensor_of(values)
        return box(SPARSE_SOLVE.function(v, tensor_of(b, v), pattern=pattern))
    return _solve_arrays(xp, values, b, pattern)


def _grad_values(g, values, out, pattern, xp):
    h = _solve(xp, values, g, pattern.t())
    products = h[pattern.rows] * out[pattern.cols]
    return -(products.sum(axis=-1) if out.ndim == 2 else products)


def _grad_b(g, values, pattern, xp):
    return _solve(xp, values, g, pattern.t())


SPARSE_SOLVE = defop("sparse_solve", _sparse_solve, kind="other", inplace=False, method=False,
                     grad=(_grad_values, _grad_b),
                     doc="The solution of A x = b for a square sparse A (its values and "
                         "pattern).",
                     example=">>> import mutograd as mg\n"
                             ">>> from mutograd.sparse import sparse_coo_tensor, solve\n"
                             ">>> a = sparse_coo_tensor([[0, 1], [0, 1]], [2.0, 4.0])\n"
                             ">>> solve.SPARSE_SOLVE.function(a._values(), mg.ones(2), "
                             "pattern=a.pattern()).tolist()\n"
                             "[0.5, 0.25]")


def spsolve(input, other, *, left=True):
    """The solution ``x`` of ``input @ x = other`` (``x @ input = other`` with ``left=False``)
    for a square 2-D sparse ``input`` (CSR or COO) and a dense ``other`` (a vector or a
    matrix of right-hand sides). Differentiable in ``other`` and in ``input``'s values (a
    gradient at its stored entries).

        >>> import mutograd as mg
        >>> import mutograd.sparse as sparse
        >>> a = sparse.sparse_coo_tensor([[0, 0, 1], [0, 1, 1]], [2.0, 1.0, 4.0], (2, 2))
        >>> sparse.spsolve(a, mg.tensor([3.0, 4.0])).tolist()
        [1.0, 1.0]
    """
    from .tensor import SparseTensor
    if not isinstance(input, SparseTensor):
        raise TypeError(f"sparse.spsolve(): input must be a sparse tensor, got "
                        f"{type(input).__name__}")
    if input.ndim != 2 or input.dense_dim():
        raise ShapeError(f"sparse.spsolve(): needs a 2-D sparse matrix without dense "
                         f"dimensions, got shape {list(input.shape)}")
    pattern = input.pattern()
    if left:
        return SPARSE_SOLVE.function(input._vals, other, pattern=pattern)
    # x A = B  <=>  A^T x^T = B^T
    rhs = other if other.ndim == 1 else other.mT
    x = SPARSE_SOLVE.function(input._vals, rhs, pattern=pattern.t())
    return x if other.ndim == 1 else x.mT
