"""Sparse tensors (mutograd.sparse through mutograd.compat.torch) against PyTorch 2.13: one table
of cases, each run in both frameworks from the same float64 inputs, comparing the result (dense,
or a sparse one through ``to_dense()`` and its indices) and the gradient of every input."""
import numpy as np
import pytest

import mutograd.compat.torch as mt

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

R = np.random.default_rng(7)
# a 3x4 pattern with a repeated index (1, 2) and entries out of row-major order
I_DUP = [[2, 0, 1, 1, 0], [3, 1, 2, 2, 0]]
IJ = [[0, 0, 1, 2], [0, 2, 1, 3]]           # coalesced
V5, V4 = R.standard_normal(5), R.standard_normal(4)
D = R.standard_normal((4, 3))
M = R.standard_normal((3, 3))
X = np.array([[0.0, 1.5, 0.0, -2.0], [0.0, 0.0, 0.0, 0.0], [3.0, 0.0, 0.5, 0.0]])
CROW, COL = [0, 2, 3, 4], [0, 2, 1, 3]
V2 = R.standard_normal((4, 2))


def coo(T, v, i=IJ, size=(3, 4)):
    return T.sparse_coo_tensor(T.tensor(i), v, size)


def csr(T, v):
    return T.sparse_csr_tensor(T.tensor(CROW), T.tensor(COL), v, (3, 4))


# (id, float inputs (each gets a gradient), f(T, *inputs))
CASES = [
    ("coo_to_dense", [V4], lambda T, v: coo(T, v).to_dense()),
    ("coo_dup_to_dense", [V5], lambda T, v: coo(T, v, I_DUP).to_dense()),
    ("coo_inferred_size", [V4], lambda T, v: T.sparse_coo_tensor(T.tensor(IJ), v).to_dense()),
    ("coalesce", [V5], lambda T, v: coo(T, v, I_DUP).coalesce()),
    ("coalesce_values", [V5], lambda T, v: coo(T, v, I_DUP).coalesce().values() * 2),
    ("hybrid_to_dense", [V2], lambda T, v: coo(T, v, size=(3, 4, 2)).to_dense()),
    ("hybrid_coalesce", [V2], lambda T, v: T.sparse_coo_tensor(
        T.tensor([[1, 0, 1, 1]]), v, (2, 2)).coalesce()),
    ("sparse_dim_3", [V4], lambda T, v: T.sparse_coo_tensor(
        T.tensor([[0, 1, 1, 0], [2, 0, 2, 1], [1, 1, 0, 0]]), v, (2, 3, 2)).to_dense()),
    ("sparse_mm", [V4, D], lambda T, v, d: T.sparse.mm(coo(T, v), d)),
    ("sparse_mm_dup", [V5, D], lambda T, v, d: T.sparse.mm(coo(T, v, I_DUP), d)),
    ("spmm", [V4, D], lambda T, v, d: T.spmm(coo(T, v), d)),
    ("torch_mm", [V4, D], lambda T, v, d: T.mm(coo(T, v), d)),
    ("matmul", [V4, D], lambda T, v, d: T.matmul(coo(T, v), d)),
    ("operator_matmul", [V4, D], lambda T, v, d: coo(T, v) @ d),
    ("sparse_addmm", [M, V4, D], lambda T, m, v, d: T.sparse.addmm(m, coo(T, v), d, beta=0.5,
                                                                    alpha=2.0)),
    ("addmm", [M, V4, D], lambda T, m, v, d: T.addmm(m, coo(T, v), d)),
    ("csr_to_dense", [V4], lambda T, v: csr(T, v).to_dense()),
    ("csr_mm", [V4, D], lambda T, v, d: T.sparse.mm(csr(T, v), d)),
    ("csr_matmul", [V4, D], lambda T, v, d: csr(T, v) @ d),
    ("to_sparse_round_trip", [X], lambda T, x: x.to_sparse().to_dense()),
    ("to_sparse_values", [X], lambda T, x: x.to_sparse().values()),
    ("to_sparse_hybrid", [X], lambda T, x: x.to_sparse(1).to_dense()),
    ("to_sparse_coo", [X], lambda T, x: x.to_sparse_coo()),
    ("to_sparse_csr", [X], lambda T, x: x.to_sparse_csr().to_dense()),
    ("coo_to_csr", [V4], lambda T, v: coo(T, v).to_sparse_csr().to_dense()),
    ("csr_to_coo", [V4], lambda T, v: csr(T, v).to_sparse_coo()),
    ("mul_scalar", [V4], lambda T, v: coo(T, v) * 3.0),
    ("rmul_scalar", [V4], lambda T, v: 3.0 * coo(T, v, IJ)),
    ("div_scalar", [V4], lambda T, v: coo(T, v) / 4.0),
    ("neg", [V4], lambda T, v: -coo(T, v)),
    ("add_sparse", [V4, V5], lambda T, a, b: coo(T, a).coalesce() + coo(T, b, I_DUP).coalesce()),
    ("sub_sparse", [V4, V5], lambda T, a, b: coo(T, a).coalesce() - coo(T, b, I_DUP).coalesce()),
    # uncoalesced sums: the entries differ (PyTorch merges some), the tensor they stand for not
    ("add_uncoalesced", [V4, V5], lambda T, a, b: (coo(T, a) + coo(T, b, I_DUP)).coalesce()),
    ("t", [V4], lambda T, v: coo(T, v).t()),
    ("transpose", [V5], lambda T, v: coo(T, v, I_DUP).transpose(0, 1).to_dense()),
    ("sum_all", [V5], lambda T, v: T.sparse.sum(coo(T, v, I_DUP))),
    ("sum_dim0", [V5], lambda T, v: T.sparse.sum(coo(T, v, I_DUP), 0)),
    ("sum_dim1", [V5], lambda T, v: T.sparse.sum(coo(T, v, I_DUP), dim=1)),
    ("sum_both", [V5], lambda T, v: T.sparse.sum(coo(T, v, I_DUP), (0, 1))),
    ("softmax", [V4], lambda T, v: T.sparse.softmax(coo(T, v), 1)),
    ("softmax_dim0", [V5], lambda T, v: T.sparse.softmax(coo(T, v, I_DUP), 0)),
    ("log_softmax", [V4], lambda T, v: T.sparse.log_softmax(coo(T, v), 1)),
]


def _is_sparse(t):
    return t.layout != (mt.strided if isinstance(t.layout, type(mt.strided)) else torch.strided)


def _run(T, inputs, f):
    ts = [T.tensor(a, requires_grad=True) for a in inputs]
    out = f(T, *ts)
    dense = out.to_dense() if _is_sparse(out) else out
    weights = T.tensor(np.linspace(-1.0, 2.0, int(np.prod(dense.shape))).reshape(dense.shape))
    (dense * weights).sum().backward()
    return out, dense, ts


@pytest.mark.parametrize("case", [pytest.param(c, id=c[0]) for c in CASES])
def test_values_and_gradients_match_pytorch(case):
    _, inputs, f = case
    ours, ours_dense, ours_in = _run(mt, inputs, f)
    ref, ref_dense, ref_in = _run(torch, inputs, f)
    assert _is_sparse(ours) == _is_sparse(ref)
    assert tuple(ours.shape) == tuple(ref.shape)
    np.testing.assert_allclose(ours_dense.detach().numpy(), ref_dense.detach().numpy(),
                               rtol=1e-10, atol=1e-12)
    if _is_sparse(ref):
        assert ours.layout is getattr(mt, str(ref.layout).split(".")[1])
        assert ours._nnz() == ref._nnz()
        if ref.layout == torch.sparse_coo:
            assert ours.is_coalesced() == ref.is_coalesced()
            np.testing.assert_array_equal(ours._indices().numpy(), ref._indices().numpy())
            np.testing.assert_allclose(ours._values().detach().numpy(),
                                       ref._values().detach().numpy(), rtol=1e-10)
        else:
            np.testing.assert_array_equal(ours.crow_indices().numpy(),
                                          ref.crow_indices().numpy())
            np.testing.assert_array_equal(ours.col_indices().numpy(), ref.col_indices().numpy())
    for a, b in zip(ours_in, ref_in):
        assert (a.grad is None) == (b.grad is None)
        if b.grad is not None:
            gb = b.grad.to_dense() if b.grad.layout != torch.strided else b.grad
            np.testing.assert_allclose(a.grad.numpy(), gb.numpy(), rtol=1e-10, atol=1e-12)
