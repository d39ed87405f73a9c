"""Sparse tensors' autograd and in-place rules against PyTorch 2.13 and float64 finite
differences: leaf and non-leaf gradients, second order through ``sparse.mm``, in-place writes
of the values (version counter, the saved-tensor error of design.md rule 2, the leaf error of
rule 4), the attributes, the errors of bad constructions, and a 2-layer GCN."""
import numpy as np
import pytest
from tests.helpers import numeric_grad

import mutograd as mg
import mutograd.compat.torch as mt
from mutograd.errors import InplaceError, ShapeError, SparseIndexError, VersionError

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

R = np.random.default_rng(3)
IJ = [[0, 0, 1, 2], [0, 2, 1, 3]]
I_DUP = [[2, 0, 1, 1, 0], [3, 1, 2, 2, 0]]
V4, V5 = R.standard_normal(4), R.standard_normal(5)
D = R.standard_normal((4, 3))


def coo(T, v, i=IJ, **kw):
    return T.sparse_coo_tensor(T.tensor(i), T.tensor(v), (3, 4), **kw)


def _np(t):
    return (t.to_dense() if t.layout != type(t.layout)("strided") and hasattr(t, "to_dense")
            and getattr(t, "is_sparse", False) else t).detach().numpy()


# (id, f(T) -> the value of an attribute), compared between the frameworks
ATTRIBUTES = [
    ("layout", lambda T: str(coo(T, V4).layout)),
    ("csr_layout", lambda T: str(coo(T, V4).to_sparse_csr().layout)),
    ("is_sparse", lambda T: (coo(T, V4).is_sparse, coo(T, V4).is_sparse_csr)),
    ("csr_flags", lambda T: (coo(T, V4).to_sparse_csr().is_sparse,
                             coo(T, V4).to_sparse_csr().is_sparse_csr)),
    ("shape", lambda T: (tuple(coo(T, V4).shape), coo(T, V4).size(1), coo(T, V4).dim())),
    ("dtype", lambda T: str(coo(T, V4).dtype)),
    ("nnz", lambda T: (coo(T, V5, I_DUP)._nnz(), coo(T, V5, I_DUP).coalesce()._nnz())),
    ("dims", lambda T: (coo(T, V4).sparse_dim(), coo(T, V4).dense_dim())),
    ("is_coalesced", lambda T: (coo(T, V4).is_coalesced(), coo(T, V4).coalesce().is_coalesced(),
                                coo(T, V4, is_coalesced=True).is_coalesced())),
    ("one_entry_coalesced", lambda T: T.sparse_coo_tensor([[1], [2]], [1.0], (3, 4))
     .is_coalesced()),
    ("requires_grad", lambda T: (coo(T, V4).requires_grad,
                                 coo(T, V4, requires_grad=True).requires_grad,
                                 coo(T, V4, requires_grad=True).is_leaf)),
    ("from_grad_values", lambda T: (lambda v: (T.sparse_coo_tensor(T.tensor(IJ), v).is_leaf,
                                               T.sparse_coo_tensor(T.tensor(IJ), v)
                                               .requires_grad))(
        T.tensor(V4, requires_grad=True))),
    ("crow", lambda T: coo(T, V4).to_sparse_csr().crow_indices().tolist()),
    ("coalesced_indices", lambda T: coo(T, V5, I_DUP).coalesce().indices().tolist()),
    ("is_tensor", lambda T: T.is_tensor(coo(T, V4))),
    ("version_after_writes", lambda T: (lambda s: (s._version, s.mul_(2)._version,
                                                   s.div_(4)._version, s.zero_()._version))(
        coo(T, V4))),
]


@pytest.mark.parametrize("f", [pytest.param(f, id=n) for n, f in ATTRIBUTES])
def test_attributes_match_pytorch(f):
    assert f(mt) == f(torch)


@pytest.mark.parametrize("indices", [IJ, I_DUP], ids=["coalesced", "duplicates"])
@pytest.mark.parametrize("use", ["sparse_mm", "to_dense"])
def test_leaf_sparse_gradient_matches_pytorch(indices, use):
    def run(T):
        v = V4 if indices is IJ else V5
        s = coo(T, v, indices, requires_grad=True)
        w = T.tensor(np.linspace(-1, 1, 9).reshape(3, 3))
        out = T.sparse.mm(s, T.tensor(D[:, :3])) if use == "sparse_mm" else s.to_dense()[:, :3]
        (out * w).sum().backward()
        return s.grad
    ours, ref = run(mt), run(torch)
    assert ours.is_sparse   # one entry per position (PyTorch's flag says uncoalesced; it is not)
    np.testing.assert_array_equal(ours._indices().numpy(), ref.coalesce()._indices().numpy())
    np.testing.assert_allclose(ours._values().numpy(), ref.coalesce()._values().numpy(),
                               rtol=1e-12)


def test_csr_leaf_gradient_and_sparse_backward_match_pytorch():
    def run(T):
        c = T.sparse_csr_tensor(T.tensor([0, 2, 3, 4]), T.tensor([0, 2, 1, 3]), T.tensor(V4),
                                (3, 4), requires_grad=True)
        T.sparse.mm(c, T.tensor(D)).pow(2).sum().backward()
        v = T.tensor(V4, requires_grad=True)
        s = T.sparse_coo_tensor(T.tensor(IJ), v, (3, 4)) * 2
        s.backward(T.sparse_coo_tensor(T.tensor(IJ), T.tensor([1.0, 10.0, 100.0, 1e3]), (3, 4)))
        return str(c.grad.layout), c.grad.crow_indices().tolist(), c.grad.values().numpy(), \
            v.grad.numpy()
    ours, ref = run(mt), run(torch)
    assert ours[:2] == ref[:2]
    for a, b in zip(ours[2:], ref[2:]):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def _first_order(T, v, d, create_graph):
    s = T.sparse_coo_tensor(T.tensor(IJ), v, (3, 4))
    y = T.sparse.mm(s, d)
    return T.autograd.grad((y ** 2).sum(), [d, v], create_graph=create_graph)


def test_second_order_through_the_dense_operand_matches_pytorch():
    def run(T):
        v, d = T.tensor(V4, requires_grad=True), T.tensor(D, requires_grad=True)
        g_d, _ = _first_order(T, v, d, True)
        return T.autograd.grad((g_d ** 2).sum(), [d, v])
    for a, b in zip(run(mt), run(torch)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10)


def test_second_order_through_the_values_matches_finite_differences():
    v, d = mg.tensor(V4, requires_grad=True), mg.tensor(D, requires_grad=True)
    _, g_v = _first_order(mt, v, d, True)
    ours = mg.grad((g_v ** 2).sum(), [d, v])

    def f(vv, dd):
        _, gv = _first_order(mt, mg.tensor(vv, requires_grad=True),
                             mg.tensor(dd, requires_grad=True), False)
        return float((gv.numpy() ** 2).sum())
    num_v, num_d = numeric_grad(f, [V4.copy(), D.copy()])
    np.testing.assert_allclose(ours[1].numpy(), num_v, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours[0].numpy(), num_d, rtol=1e-5, atol=1e-6)


# in-place writes of the values: (id, write(T, s) -> result)
WRITES = [
    ("mul_", lambda T, s: s.mul_(2.5)),
    ("div_", lambda T, s: s.div_(4)),
    ("imul", lambda T, s: s.__imul__(3)),
    ("zero_", lambda T, s: s.zero_()),
    ("add_", lambda T, s: s.add_(coo(T, V4[::-1].copy()))),
    ("add_alpha", lambda T, s: s.add_(coo(T, V4[::-1].copy()), alpha=2)),
]


@pytest.mark.parametrize("write", [pytest.param(w, id=n) for n, w in WRITES])
def test_in_place_writes_values_and_bumps_the_version(write):
    for T in (mt, torch):
        s = coo(T, V4)
        v0 = s._version
        assert write(T, s) is s
        assert s._version == v0 + 1
    ours, ref = coo(mt, V4), coo(torch, V4)
    write(mt, ours), write(torch, ref)
    np.testing.assert_allclose(ours.to_dense().numpy(), ref.to_dense().numpy(), rtol=1e-12)


def test_add_of_another_pattern_in_place_is_refused():
    s = coo(mt, V4)
    with pytest.raises(ShapeError, match="same layout, shape and indices"):
        s.add_(coo(mt, V5, I_DUP))
    np.testing.assert_array_equal(s._values().numpy(), V4)


def test_write_into_saved_values_is_the_version_error():
    for T, error in ((mt, VersionError), (torch, RuntimeError)):
        s = coo(T, V4)
        d = T.tensor(D, requires_grad=True)
        out = T.sparse.mm(s, d)
        s.mul_(2)
        with pytest.raises(error, match="modified by an inplace operation"):
            out.sum().backward()


def test_values_saved_only_when_needed():
    # only the values need a gradient: the dense operand is saved, the values are not
    v = mt.tensor(V4, requires_grad=True)
    s = mt.sparse_coo_tensor(mt.tensor(IJ), v * 1, (3, 4))
    out = mt.sparse.mm(s, mt.tensor(D))
    s._values().mul_(2)
    out.sum().backward()
    assert v.grad is not None


def test_in_place_on_a_leaf_sparse_tensor_is_the_leaf_error():
    for T, error in ((mt, InplaceError), (torch, RuntimeError)):
        s = coo(T, V4, requires_grad=True)
        with pytest.raises(error, match="leaf Variable that requires grad"):
            s.mul_(2)
        with T.no_grad():
            s.mul_(2)
        np.testing.assert_allclose(s._values().detach().numpy(), 2 * V4)


# (id, f(T)) that both frameworks refuse; mutograd's error class
ERRORS = [
    ("index_out_of_range", lambda T: T.sparse_coo_tensor(T.tensor([[0, 5], [0, 1]]),
                                                         T.tensor([1.0, 2.0]), (2, 3),
                                                         check_invariants=True),
     SparseIndexError),
    ("negative_index", lambda T: T.sparse_coo_tensor(T.tensor([[0, -1], [0, 1]]),
                                                     T.tensor([1.0, 2.0]), (2, 3),
                                                     check_invariants=True), SparseIndexError),
    ("nnz_mismatch", lambda T: T.sparse_coo_tensor(T.tensor([[0, 1], [0, 1]]),
                                                   T.tensor([1.0, 2.0, 3.0]), (2, 3)),
     ShapeError),
    ("indices_1d", lambda T: T.sparse_coo_tensor(T.tensor([0, 1]), T.tensor([1.0, 2.0]),
                                                 (2, 3)), ShapeError),
    ("csr_col_out_of_range", lambda T: T.sparse_csr_tensor(
        T.tensor([0, 1, 3]), T.tensor([0, 1, 7]), T.tensor([1.0, 2.0, 3.0]), (2, 3),
        check_invariants=True), SparseIndexError),
    ("csr_bad_crow", lambda T: T.sparse_csr_tensor(
        T.tensor([0, 2, 1]), T.tensor([0, 1, 2]), T.tensor([1.0, 2.0, 3.0]), (2, 3),
        check_invariants=True), SparseIndexError),
    ("indices_of_uncoalesced", lambda T: coo(T, V5, I_DUP).indices(), SparseIndexError),
    ("values_of_uncoalesced", lambda T: coo(T, V5, I_DUP).values(), SparseIndexError),
    ("mm_shape", lambda T: T.sparse.mm(coo(T, V4), T.tensor(np.ones((3, 2)))), ShapeError),
]


@pytest.mark.parametrize("f,error", [pytest.param(f, e, id=n) for n, f, e in ERRORS])
def test_bad_constructions_raise_what_pytorch_raises(f, error):
    with pytest.raises(RuntimeError):
        f(torch)
    with pytest.raises(error) as e:
        f(mt)
    assert isinstance(e.value, RuntimeError)


def test_unimplemented_names_are_refused_with_the_reason():
    for name in ("smm", "hspmm", "sparse_bsr_tensor", "sparse_csc_tensor"):
        with pytest.raises(AttributeError, match="not supported in mutograd.*COO and CSR"):
            getattr(mt, name)
    with pytest.raises(AttributeError, match="dense.*to_sparse"):
        mt.ones(2).indices()


def test_a_dense_op_refuses_a_sparse_operand():
    s = coo(mt, V4)
    for f in (lambda: mt.relu(s), lambda: mt.sum(s), lambda: mt.ones(3, 4) + s,
              lambda: mt.ones(2, 3) @ s):
        with pytest.raises(TypeError, match="sparse tensor is no operand of a dense op"):
            f()


def _normalized_adjacency(n, edges):
    """D^-1/2 (A + IJ) D^-1/2 as COO indices and values (float64)."""
    a = np.eye(n)
    for i, j in edges:
        a[i, j] = a[j, i] = 1.0
    deg = a.sum(1)
    norm = a / np.sqrt(deg[:, None] * deg[None, :])
    rows, cols = np.nonzero(norm)
    return np.stack([rows, cols]), norm[rows, cols]


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_two_layer_gcn_matches_pytorch(layout):
    n, f_in, hidden, classes = 7, 5, 4, 3
    idx, vals = _normalized_adjacency(n, [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (2, 6)])
    x, w1, w2 = (R.standard_normal(s) for s in ((n, f_in), (f_in, hidden), (hidden, classes)))
    labels = np.array([0, 1, 2, 0, 1, 2, 0])

    def run(T):
        a = T.sparse_coo_tensor(T.tensor(idx), T.tensor(vals), (n, n))
        if layout == "csr":
            a = a.to_sparse_csr()
        p1, p2 = T.tensor(w1, requires_grad=True), T.tensor(w2, requires_grad=True)
        h = T.nn.functional.relu(T.sparse.mm(a, T.tensor(x) @ p1))
        out = a @ (h @ p2)
        loss = T.nn.functional.cross_entropy(out, T.tensor(labels))
        loss.backward()
        return loss.item(), p1.grad.numpy(), p2.grad.numpy()
    ours, ref = run(mt), run(torch)
    assert ours[0] == pytest.approx(ref[0], rel=1e-12)
    for a, b in zip(ours[1:], ref[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
