"""The product of a sparse matrix and a dense one: one op, ``sparse_mm(values, y, pattern=)``.

Its inputs are the sparse matrix's values (one per stored entry) and the dense operand; the
indices come as the attribute ``pattern`` (pattern.py), fixed, so nothing about them is saved.
The forward is the backend's sparse product (SciPy, or ``cupyx.scipy.sparse`` on a GPU). With
``S`` the matrix, ``G`` the incoming gradient:

- the dense operand's gradient is ``S^T @ G``: the same op on the transposed pattern, so it is
  differentiable again, in the values and in ``G`` (design.md rule 13);
- the gradient of the value stored at ``(i, j)`` is ``G[i] . y[j]``, the dense gradient
  ``G @ y^T`` read only where ``S`` has entries (what PyTorch's sparse.mm gives), written as
  indexing, a product and a sum, which are differentiable.

The values and ``y`` are saved only for the gradient that needs them (the registry's save
contract), so a later write into ``S``'s values is the version error only when ``y`` needs a
gradient (design.md rule 2).

    >>> import mutograd as mg
    >>> import mutograd.sparse as sparse
    >>> s = sparse.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], (2, 2))
    >>> sparse.mm(s, mg.tensor([[1.0], [10.0]])).tolist()
    [[20.0], [3.0]]
"""
from ..autograd.graph_arrays import box, graph_mode, tensor_of
from ..errors import ShapeError
from ..ops.registry import defop


def _sparse_mm(xp, values, y, *, pattern=None):
    if y.ndim not in (1, 2) or y.shape[0] != pattern.shape[1]:
        raise ShapeError(f"sparse.mm(): a sparse matrix of shape {list(pattern.shape)} cannot "
                         f"multiply a dense operand of shape {list(y.shape)}")
    return xp.asarray(pattern.matrix(xp, values) @ y)


def _product(xp, values, y, pattern):
    """The op's value on arrays, or the recorded op on a gradient's graph arrays."""
    if graph_mode(xp):
        v = tensor_of(values)
        return box(SPARSE_MM.function(v, tensor_of(y, v), pattern=pattern))
    return xp.asarray(pattern.matrix(xp, values) @ y)


def _grad_values(g, y, pattern, xp):
    products = g[pattern.rows] * y[pattern.cols]
    return products.sum(axis=-1) if y.ndim == 2 else products


def _grad_y(g, values, pattern, xp):
    return _product(xp, values, g, pattern.t())


SPARSE_MM = defop("sparse_mm", _sparse_mm, kind="other", inplace=False, method=False,
                  grad=(_grad_values, _grad_y),
                  doc="The product of a sparse matrix (its values and pattern) and a dense one.",
                  example=">>> import mutograd as mg\n"
                          ">>> from mutograd.sparse import sparse_coo_tensor, matmul\n"
                          ">>> s = sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0])\n"
                          ">>> matmul.SPARSE_MM.function(s._values(), mg.eye(2), "
                          "pattern=s.pattern()).tolist()\n"
                          "[[0.0, 2.0], [3.0, 0.0]]")
