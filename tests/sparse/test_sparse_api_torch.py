"""The rest of torch.sparse against PyTorch 2.13: sampled_addmm, spdiags, spsolve (PyTorch's
CPU build has no kernel for it: NumPy's dense solve and float64 finite differences are the
oracle), check_sparse_tensor_invariants, as_sparse_gradcheck, the legacy constructors
(``torch.sparse.FloatTensor(indices, values, size)``) and the refused semi-structured names."""
import numpy as np
import pytest

import mutograd.compat.torch as mt
from mutograd.errors import SparseIndexError

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.torch,
              pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta"),
              pytest.mark.filterwarnings("ignore:Sparse invariant checks are implicitly"),
              pytest.mark.filterwarnings("ignore:torch.sparse.SparseTensor")]
R = np.random.default_rng(11)
CROW, COL = [0, 2, 3, 4], [0, 2, 1, 3]
V4 = R.standard_normal(4)
A32, B24 = R.standard_normal((3, 2)), R.standard_normal((2, 4))
DIAGS = R.standard_normal((3, 5))


def _csr(T, v):
    return T.sparse_csr_tensor(T.tensor(CROW), T.tensor(COL), v, (3, 4))


# (id, float inputs (each gets a gradient), f(T, *inputs))
CASES = [
    ("sampled_addmm", [V4, A32, B24], lambda T, v, a, b: T.sparse.sampled_addmm(_csr(T, v), a, b)),
    ("sampled_addmm_scaled", [V4, A32, B24], lambda T, v, a, b: T.sparse.sampled_addmm(
        _csr(T, v), a, b, beta=0.5, alpha=-2.0)),
    ("sampled_addmm_beta0", [V4, A32, B24], lambda T, v, a, b: T.sparse.sampled_addmm(
        _csr(T, v), a, b, beta=0.0)),
]


def _run(T, inputs, f):
    ts = [T.tensor(a, requires_grad=True) for a in inputs]
    out = f(T, *ts)
    dense = out.to_dense()
    weights = T.tensor(np.linspace(-1.0, 2.0, int(np.prod(dense.shape))).reshape(dense.shape))
    (dense * weights).sum().backward()
    return out, dense, ts


@pytest.mark.parametrize("case", [pytest.param(c, id=c[0]) for c in CASES])
def test_values_pattern_and_gradients_match_pytorch(case):
    _, inputs, f = case
    ours, ours_dense, ours_in = _run(mt, inputs, f)
    ref, ref_dense, ref_in = _run(torch, inputs, f)
    assert ours.layout is mt.sparse_csr and ref.layout == torch.sparse_csr
    np.testing.assert_array_equal(ours.crow_indices().numpy(), ref.crow_indices().numpy())
    np.testing.assert_array_equal(ours.col_indices().numpy(), ref.col_indices().numpy())
    np.testing.assert_allclose(ours_dense.detach().numpy(), ref_dense.detach().numpy(),
                               rtol=1e-10, atol=1e-12)
    for a, b in zip(ours_in, ref_in):
        gb = b.grad.to_dense() if b.grad.layout != torch.strided else b.grad
        np.testing.assert_allclose(a.grad.numpy(), gb.numpy(), rtol=1e-10, atol=1e-12)


def test_sampled_addmm_refusals_match_pytorch():
    for T in (mt, torch):
        s = _csr(T, T.tensor(V4))
        a, b = T.tensor(A32), T.tensor(B24)
        with pytest.raises(RuntimeError):           # COO input: PyTorch has no kernel
            T.sparse.sampled_addmm(s.to_sparse_coo(), a, b)
        with pytest.raises(RuntimeError):
            T.sparse.sampled_addmm(s, a, b.float())


# spdiags: (diagonals shape, offsets, shape); PyTorch gives no gradient (no derivative)
SPDIAGS = [((3, 3), [0, -1, -2], (3, 3)), ((2, 5), [1, -1], (3, 4)), ((1, 3), [0], (5, 5)),
           ((3, 5), [2, 0, -3], (4, 6)), ((2, 2), [0, 1], (4, 3))]


@pytest.mark.parametrize("layout", ["sparse_coo", "sparse_csr"])
@pytest.mark.parametrize("dshape, offsets, shape", SPDIAGS)
def test_spdiags_matches_pytorch(dshape, offsets, shape, layout):
    d = DIAGS[:dshape[0], :dshape[1]]
    ref = torch.sparse.spdiags(torch.tensor(d), torch.tensor(offsets), shape,
                               layout=getattr(torch, layout))
    x = mt.tensor(d, requires_grad=True)
    ours = mt.sparse.spdiags(x, mt.tensor(offsets), shape, layout=getattr(mt, layout))
    assert ours.layout is getattr(mt, layout) and tuple(ours.shape) == tuple(ref.shape)
    np.testing.assert_array_equal(ours.to_dense().detach().numpy(), ref.to_dense().numpy())
    if layout == "sparse_coo":
        assert ours.is_coalesced() == ref.is_coalesced()
        np.testing.assert_array_equal(ours._indices().numpy(), ref._indices().numpy())
        np.testing.assert_array_equal(ours._values().detach().numpy(), ref._values().numpy())
    else:
        np.testing.assert_array_equal(ours.crow_indices().numpy(), ref.crow_indices().numpy())
        np.testing.assert_array_equal(ours.col_indices().numpy(), ref.col_indices().numpy())
    # the gradient of sum(w * dense): w read back where each diagonal entry went
    w = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    (ours.to_dense() * mt.tensor(w)).sum().backward()
    want = np.zeros_like(d)
    for k, off in enumerate(offsets):
        for j in range(d.shape[1]):
            if 0 <= j - off < shape[0] and j < shape[1]:
                want[k, j] = w[j - off, j]
    np.testing.assert_array_equal(x.grad.numpy(), want)


@pytest.mark.parametrize("args", [
    ((3, 3), [0, 0], (3, 3)), ((3, 3), [0, 1], (3, 3)), ((3, 3), [0, 1, 2], (3,)),
    ((3, 3), [[0, 1, 2]], (3, 3))], ids=["repeated", "count", "shape", "offsets_2d"])
def test_spdiags_errors_match_pytorch(args):
    dshape, offsets, shape = args
    d = DIAGS[:dshape[0], :dshape[1]]
    with pytest.raises(RuntimeError) as ref:
        torch.sparse.spdiags(torch.tensor(d), torch.tensor(offsets), shape)
    with pytest.raises(RuntimeError) as ours:
        mt.sparse.spdiags(mt.tensor(d), mt.tensor(offsets), shape)
    assert str(ours.value) == str(ref.value)


# spsolve: PyTorch 2.13's CPU build has no kernel (NotImplementedError), so NumPy is the oracle
A_DENSE = np.array([[4.0, 1.0, 0.0, 0.0], [0.0, 3.0, 0.5, 0.0], [1.0, 0.0, 5.0, 2.0],
                    [0.0, 0.0, 1.0, 2.0]])


def _system(T, layout, values=None):
    s = T.tensor(A_DENSE).to_sparse()
    if values is not None:
        s = T.sparse_coo_tensor(s._indices(), values, s.shape)
    return s.to_sparse_csr() if layout == "sparse_csr" else s


@pytest.mark.parametrize("layout", ["sparse_csr", "sparse_coo"])
@pytest.mark.parametrize("rhs_shape", [(4,), (4, 3)])
@pytest.mark.parametrize("left", [True, False])
def test_spsolve_values_and_gradients(layout, rhs_shape, left):
    if not left and len(rhs_shape) == 2:
        rhs_shape = (3, 4)
    b = R.standard_normal(rhs_shape)
    vals = A_DENSE[A_DENSE != 0]
    want = (np.linalg.solve(A_DENSE, b) if left
            else np.linalg.solve(A_DENSE.T, b.T).T)
    vt = mt.tensor(vals, requires_grad=True)
    bt = mt.tensor(b, requires_grad=True)
    x = mt.sparse.spsolve(_system(mt, layout, vt), bt, left=left)
    assert type(x) is mt.Tensor
    np.testing.assert_allclose(x.detach().numpy(), want, rtol=1e-12, atol=1e-12)
    w = R.standard_normal(want.shape)
    (x * mt.tensor(w)).sum().backward()

    def f(v, rhs):
        a = np.zeros_like(A_DENSE)
        a[A_DENSE != 0] = v
        sol = np.linalg.solve(a, rhs) if left else np.linalg.solve(a.T, rhs.T).T
        return float((sol * w).sum())
    from tests.helpers import numeric_grad
    gv, gb = numeric_grad(f, [vals.copy(), b.copy()])
    np.testing.assert_allclose(vt.grad.numpy(), gv, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(bt.grad.numpy(), gb, rtol=1e-6, atol=1e-8)


def test_spsolve_second_order_by_gradgradcheck():
    vals = mt.tensor(A_DENSE[A_DENSE != 0], requires_grad=True)
    b = mt.tensor(R.standard_normal(4), requires_grad=True)
    pattern = mt.tensor(A_DENSE).to_sparse()._indices()

    def f(v, rhs):
        return mt.sparse.spsolve(mt.sparse_coo_tensor(pattern, v, (4, 4)), rhs)
    assert mt.autograd.gradcheck(f, (vals, b))
    assert mt.autograd.gradgradcheck(f, (vals, b))


def test_spsolve_pytorch_signature_and_errors():
    with pytest.raises(NotImplementedError):      # the oracle's CPU build: no kernel
        torch.sparse.spsolve(torch.tensor(A_DENSE).to_sparse_csr(), torch.ones(4,
                                                                              dtype=torch.float64))
    s = _system(mt, "sparse_csr")
    with pytest.raises(RuntimeError):
        mt.sparse.spsolve(mt.tensor(A_DENSE[:3]).to_sparse_csr(), mt.ones(3, dtype=mt.float64))
    with pytest.raises(RuntimeError):
        mt.sparse.spsolve(s, mt.ones(5, dtype=mt.float64))
    with pytest.raises(TypeError):
        mt.sparse.spsolve(mt.tensor(A_DENSE), mt.ones(4, dtype=mt.float64))


def _bad_coo(T):
    return T.sparse_coo_tensor(T.tensor([[0, 5]]), T.tensor([1.0, 2.0]), (3,))


def test_check_sparse_tensor_invariants_is_always_on():
    # PyTorch checks only when enabled; mutograd always checks (its is_enabled() is True)
    ours = mt.sparse.check_sparse_tensor_invariants
    ref = torch.sparse.check_sparse_tensor_invariants
    assert ours.is_enabled() is True and ref.is_enabled() is False
    for T, cls in ((mt, ours), (torch, ref)):
        with cls():
            assert cls.is_enabled()
            with pytest.raises(RuntimeError):
                _bad_coo(T)

        @cls()
        def decorated(x):
            return x + 1, cls.is_enabled()
        assert decorated(1) == (2, True)
    assert ref.is_enabled() is False
    ours.disable()
    with ours(enable=False):
        assert ours.is_enabled()
        with pytest.raises(SparseIndexError, match="size is inconsistent with indices"):
            _bad_coo(mt)
    ours.enable()
    assert ours.is_enabled()
    with pytest.raises(SparseIndexError):
        mt.sparse_csr_tensor([0, 1, 3], [0, 1], [1.0, 2.0], check_invariants=False)


def test_as_sparse_gradcheck_matches_pytorch():
    x = np.array([[0.0, 1.0], [2.0, 3.0]])
    functions = [lambda T, s: s.to_dense(), lambda T, s: T.sparse.mm(s, s.to_dense()),
                 lambda T, s: T.sparse.softmax(s, 1), lambda T, s: s * 3.0]
    for f in functions:
        for T in (mt, torch):
            check = T.sparse.as_sparse_gradcheck(T.autograd.gradcheck)
            s = T.tensor(x, dtype=T.float64).to_sparse().requires_grad_()
            assert check(lambda s, f=f, T=T: f(T, s), s, masked=True)
    check = mt.sparse.as_sparse_gradcheck(mt.autograd.gradcheck)
    d = mt.tensor(x, requires_grad=True)
    s = mt.tensor(x).to_sparse()
    assert check(lambda s, d: mt.sparse.mm(s, d), (s, d))     # a sparse input without grad

    class Wrong(mt.autograd.Function):
        @staticmethod
        def forward(ctx, v):
            return v * 2

        @staticmethod
        def backward(ctx, g):
            return g * 3
    s = mt.tensor(x).to_sparse().requires_grad_()
    assert not check(lambda s: s._with_values(Wrong.apply(s.values())), s,
                     raise_exception=False)


LEGACY = ["FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor",
          "ShortTensor", "CharTensor", "ByteTensor"]


@pytest.mark.parametrize("name", LEGACY)
def test_legacy_constructors_match_pytorch(name):
    def forms(T):
        i = T.tensor([[0, 1, 1], [2, 0, 2]])
        v = T.tensor([1.0, 2.0, 3.0])
        return [(i, v, (2, 3)), (i, v), (i, v, T.Size([4, 5])), (i, T.tensor([1, 2, 3]), (2, 3)),
                (2, 3), (), (T.Size([3, 4]),)]
    for ours_args, ref_args in zip(forms(mt), forms(torch)):
        with pytest.warns(UserWarning, match="deprecated"):     # as PyTorch
            ours = getattr(mt.sparse, name)(*ours_args)
        ref = getattr(torch.sparse, name)(*ref_args)
        assert ours.layout is mt.sparse_coo and ref.layout == torch.sparse_coo
        assert str(ours.dtype) == str(ref.dtype)
        assert tuple(ours.shape) == tuple(ref.shape) and ours._nnz() == ref._nnz()
        np.testing.assert_array_equal(ours.to_dense().numpy(), ref.to_dense().numpy())
        assert isinstance(ours, getattr(mt.sparse, name)) == isinstance(ref, getattr(torch.sparse,
                                                                                    name))
    for T in (mt, torch):
        assert not isinstance(T.zeros(2), getattr(T.sparse, name))
        with pytest.raises(TypeError):
            getattr(T.sparse, name)([[0, 1]], [1.0, 2.0], (2,))
        with pytest.raises(TypeError):
            getattr(T.sparse, name)(T.zeros(2, 2))


def test_legacy_constructor_device_and_tensor_alias():
    with pytest.warns(UserWarning, match="torch.sparse_coo_tensor"):
        s = mt.sparse.DoubleTensor(mt.tensor([[0]]), mt.tensor([2.0], dtype=mt.float64), (3,),
                                   device="cpu")
    assert s.device == mt.device("cpu") and s.to_dense().tolist() == [2.0, 0.0, 0.0]
    assert mt.sparse.Tensor is mt.Tensor and torch.sparse.Tensor is torch.Tensor


@pytest.mark.parametrize("name", ["SparseSemiStructuredTensor",
                                  "SparseSemiStructuredTensorCUSPARSELT",
                                  "SparseSemiStructuredTensorCUTLASS",
                                  "to_sparse_semi_structured", "BFloat16Tensor"])
def test_refused_names_say_why(name):
    assert hasattr(torch.sparse, name)
    with pytest.raises(AttributeError, match="is not supported in mutograd: .*(dense|dtype)"):
        getattr(mt.sparse, name)


def test_sampled_addmm_beta0_keeps_nan_as_pytorch():
    outs = []
    for T in (mt, torch):
        v = T.tensor([float("nan"), 1.0, 1.0, 1.0], requires_grad=True)
        o = T.sparse.sampled_addmm(_csr(T, v), T.ones(3, 2), T.ones(2, 4), beta=0.0)
        o.values().sum().backward()
        outs.append((o.values().detach().numpy(), v.grad.numpy()))
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    np.testing.assert_array_equal(outs[0][1], outs[1][1])
