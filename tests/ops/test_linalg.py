"""``mutograd.linalg`` (``torch.linalg``'s names): one table of cases drives the checks: values
against PyTorch (NumPy/SciPy without it), gradients against float64 finite differences and against
PyTorch. Decompositions are checked through functions their gauge (signs, phases) does not
change, as PyTorch documents their gradients."""
import numpy as np
import pytest
from tests.helpers import numeric_grad

import mutograd as mg

R = np.random.default_rng(0)
A43, A34 = R.standard_normal((4, 3)), R.standard_normal((3, 4))
SQ = R.standard_normal((3, 3)) + 3 * np.eye(3)
SQ2 = R.standard_normal((2, 3, 3)) + 3 * np.eye(3)
SPD = SQ @ SQ.T + np.eye(3)
SYM = SQ + SQ.T
B32 = R.standard_normal((3, 2))
W = R.standard_normal((3, 3))


def _sym(a):
    """Symmetric input for the routines that read one triangle: finite differences of single
    elements then perturb both triangles alike."""
    return (a + a.T) / 2


def _sandwich(L, U, S, f):
    """``U diag(f(S)) Vh``-style products: unchanged by the decomposition's gauge."""
    return (L * f(S)[..., None, :]) @ U


# name, mutograd f(mg, *tensors), torch f(torch, *tensors) (None: values from `ref` only), inputs
CASES = [
    ("cholesky", lambda m, a: m.linalg.cholesky(_sym(a)), None, [SPD]),
    ("cholesky-upper", lambda m, a: m.linalg.cholesky(_sym(a), upper=True), None, [SPD]),
    ("eigh", lambda m, a: (lambda r: r[0] * 2 + (r[1] @ m.diag(r[0] ** 2) @ r[1].T)[0])(
        m.linalg.eigh(_sym(a))), None, [SYM]),
    ("eigh-U", lambda m, a: (lambda r: (r[1] @ m.diag(r[0]) @ r[1].T).sum(0))(
        m.linalg.eigh(_sym(a), UPLO="U")), None, [SYM]),
    ("eigvalsh", lambda m, a: m.linalg.eigvalsh(_sym(a)), None, [SYM]),
    ("svd-tall", lambda m, a: (lambda r: _sandwich(r[0], r[2], r[1], lambda s: s * s + s))(
        m.linalg.svd(a, full_matrices=False)), None, [A43]),
    ("svd-wide", lambda m, a: (lambda r: _sandwich(r[0], r[2], r[1], lambda s: s.exp()))(
        m.linalg.svd(a, full_matrices=False)), None, [A34]),
    ("svd-batch", lambda m, a: (lambda r: _sandwich(r[0], r[2], r[1], lambda s: s))(
        m.linalg.svd(a, full_matrices=False)), None, [SQ2]),
    ("svdvals", lambda m, a: m.linalg.svdvals(a), None, [A43]),
    ("qr-tall", lambda m, a: (lambda r: r[0] * 2 + r[0] @ r[1][:, :1])(m.linalg.qr(a)), None,
     [A43]),
    ("qr-wide", lambda m, a: (lambda r: r[1] * 3 + r[0] @ r[1])(m.linalg.qr(a)), None, [A34]),
    ("qr-complete-square", lambda m, a: (lambda r: r[0] + r[1].exp())(
        m.linalg.qr(a, mode="complete")), None, [SQ]),
    ("lu-square", lambda m, a: (lambda r: r[1] * 2 + r[2] ** 2)(m.linalg.lu(a)), None, [SQ]),
    ("lu-tall", lambda m, a: (lambda r: r[1].sum(1) + r[2].sum())(m.linalg.lu(a)), None, [A43]),
    ("lu-wide", lambda m, a: (lambda r: r[1].sum() + r[2] ** 2)(m.linalg.lu(a)), None, [A34]),
    ("lu_factor", lambda m, a: m.linalg.lu_factor(a)[0], None, [SQ]),
    ("lu_solve", lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b), None, [SQ, B32]),
    ("lu_solve-adjoint", lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b,
                                                           adjoint=True), None, [SQ, B32]),
    ("lu_solve-right", lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b.T,
                                                         left=False), None, [SQ, B32]),
    ("solve_triangular-upper", lambda m, a, b: m.linalg.solve_triangular(a, b, upper=True),
     None, [SQ, B32]),
    ("solve_triangular-lower-unit", lambda m, a, b: m.linalg.solve_triangular(
        a, b, upper=False, unitriangular=True), None, [SQ, B32]),
    ("solve_triangular-right", lambda m, a, b: m.linalg.solve_triangular(
        a, b.T, upper=True, left=False), None, [SQ, B32]),
    ("solve-right", lambda m, a, b: m.linalg.solve(a, b.T, left=False), None, [SQ, B32]),
    ("pinv-tall", lambda m, a: m.linalg.pinv(a), None, [A43]),
    ("pinv-wide", lambda m, a: m.linalg.pinv(a), None, [A34]),
    ("matrix_exp", lambda m, a: m.linalg.matrix_exp(a * 0.3), None, [SQ]),
    ("matrix_exp-batch", lambda m, a: m.linalg.matrix_exp(a * 0.3), None, [SQ2]),
    ("lstsq", lambda m, a, b: m.linalg.lstsq(a, b).solution,
     lambda t, a, b: t.linalg.lstsq(a, b, driver="gelsd").solution, [A43, R.standard_normal(
         (4, 2))]),
    ("householder_product", lambda m, a, tau: m.linalg.householder_product(a, tau), None,
     [A43, R.standard_normal(2)]),
    ("multi_dot", lambda m, a, b, c: m.linalg.multi_dot([a, b, c]), None, [A43, SQ, B32]),
    ("tensorinv", lambda m, a: m.linalg.tensorinv(a.reshape(9, 3, 3), ind=1), None,
     [R.standard_normal((9, 9)) + 4 * np.eye(9)]),
    ("tensorsolve", lambda m, a, b: m.linalg.tensorsolve(a.reshape(2, 3, 6), b),
     None, [R.standard_normal((6, 6)) + 4 * np.eye(6), R.standard_normal((2, 3))]),
    ("vander", lambda m, x: m.linalg.vander(x, N=4), None, [R.standard_normal(3)]),
    ("cond", lambda m, a: m.linalg.cond(a), None, [SQ]),
    # (PyTorch's own cond(p='fro') fails in backward: its reference is the product of norms)
    ("cond-fro", lambda m, a: m.linalg.cond(a, "fro"),
     lambda t, a: t.linalg.matrix_norm(a) * t.linalg.matrix_norm(t.linalg.inv(a)), [SQ]),
    ("inv_ex", lambda m, a: m.linalg.inv_ex(a).inverse, None, [SQ]),
    ("diagonal", lambda m, a: m.linalg.diagonal(a, offset=1), None, [A34]),
]


@pytest.mark.parametrize("name,fn,tfn,inputs", CASES, ids=[c[0] for c in CASES])
def test_gradients_match_finite_differences(name, fn, tfn, inputs):
    ts = [mg.tensor(a, requires_grad=True) for a in inputs]
    out = fn(mg, *ts)
    w = np.random.default_rng(1).standard_normal(out.shape)
    (out * mg.tensor(w)).sum().backward()
    expected = numeric_grad(
        lambda *a: float((fn(mg, *(mg.tensor(x) for x in a)).numpy() * w).sum()),
        [a.copy() for a in inputs])
    for t, e in zip(ts, expected):
        np.testing.assert_allclose(t.grad.numpy(), e, rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.torch
@pytest.mark.parametrize("name,fn,tfn,inputs", CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients_match_pytorch(name, fn, tfn, inputs):
    torch = pytest.importorskip("torch")
    tfn = tfn or fn
    ts = [mg.tensor(a, requires_grad=True) for a in inputs]
    qs = [torch.tensor(a, requires_grad=True) for a in inputs]
    out, ref = fn(mg, *ts), tfn(torch, *qs)
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-8, atol=1e-10)
    w = np.random.default_rng(1).standard_normal(out.shape)
    (out * mg.tensor(w)).sum().backward()
    (ref * torch.tensor(w)).sum().backward()
    for t, q in zip(ts, qs):
        np.testing.assert_allclose(t.grad.numpy(), q.grad.numpy(), rtol=1e-7, atol=1e-9)


def _first_dot_u(T, fn, xs, w, us):
    """``<d sum(fn(xs) * w) / d xs, us>``, its first gradient kept differentiable."""
    grad = mg.grad if T is mg else T.autograd.grad
    out = fn(T, *xs)
    gs = grad((out * T.tensor(w)).sum(), xs, create_graph=True, allow_unused=True)
    terms = [(g * T.tensor(u)).sum() for g, u in zip(gs, us)
             if g is not None and g.requires_grad]
    return sum(terms) if terms else None


def _second_order(T, fn, inputs, w, us):
    xs = [T.tensor(a, requires_grad=True) for a in inputs]
    total = _first_dot_u(T, fn, xs, w, us)
    if total is None:
        return [np.zeros(a.shape) for a in inputs]
    grad = mg.grad if T is mg else T.autograd.grad
    return [np.zeros(a.shape) if h is None else h.detach().numpy()
            for h, a in zip(grad(total, xs, allow_unused=True), inputs)]


@pytest.mark.parametrize("name,fn,tfn,inputs", CASES, ids=[c[0] for c in CASES])
def test_second_order_gradients_match_finite_differences(name, fn, tfn, inputs):
    """The gradient of ``<first gradient, u>`` (a Hessian-vector product) against finite
    differences of the first gradient, which runs without a graph."""
    rng = np.random.default_rng(2)
    w = rng.standard_normal(fn(mg, *(mg.tensor(a) for a in inputs)).shape)
    us = [rng.standard_normal(a.shape) for a in inputs]

    def first(*arrays):
        xs = [mg.tensor(a, requires_grad=True) for a in arrays]
        gs = mg.grad((fn(mg, *xs) * mg.tensor(w)).sum(), xs, allow_unused=True)
        return float(sum((g.numpy() * u).sum() for g, u in zip(gs, us) if g is not None))

    expected = numeric_grad(first, [a.copy() for a in inputs])
    for got, e in zip(_second_order(mg, fn, inputs, w, us), expected):
        np.testing.assert_allclose(got, e, rtol=1e-4, atol=1e-5, err_msg=name)


@pytest.mark.torch
@pytest.mark.parametrize("name,fn,tfn,inputs", CASES, ids=[c[0] for c in CASES])
def test_second_order_gradients_match_pytorch(name, fn, tfn, inputs):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    w = rng.standard_normal(fn(mg, *(mg.tensor(a) for a in inputs)).shape)
    us = [rng.standard_normal(a.shape) for a in inputs]
    want = _second_order(torch, tfn or fn, inputs, w, us)
    for got, e in zip(_second_order(mg, fn, inputs, w, us), want):
        np.testing.assert_allclose(got, e, rtol=1e-6, atol=1e-8, err_msg=name)


C = R.standard_normal((3, 3)) + 1j * R.standard_normal((3, 3)) + 3 * np.eye(3)
C2 = R.standard_normal((3, 2)) + 1j * R.standard_normal((3, 2))
HPD = C @ C.conj().T + np.eye(3)


def _abs2(z):
    return (z * z.conj()).real


# complex inputs, through functions of their outputs that no phase of a decomposition changes
COMPLEX_CASES = [
    ("inv", lambda m, a: m.linalg.inv(a), [C]),
    ("det", lambda m, a: m.linalg.det(a), [C]),
    ("slogdet", lambda m, a: m.linalg.slogdet(a)[1], [C]),
    ("solve", lambda m, a, b: m.linalg.solve(a, b), [C, C2]),
    ("solve-vector", lambda m, a, b: m.linalg.solve(a, b), [C, C2[:, 0]]),
    ("solve-right", lambda m, a, b: m.linalg.solve(a, b.mT, left=False), [C, C2]),
    ("cholesky", lambda m, a: m.linalg.cholesky(a), [HPD]),
    ("eigh", lambda m, a: _abs2(m.linalg.eigh(a)[1]) * m.linalg.eigh(a)[0], [HPD]),
    ("svd", lambda m, a: (lambda r: _abs2(r[0]) @ m.diag(r[1]) @ _abs2(r[2]))(
        m.linalg.svd(a, full_matrices=False)), [C2]),
    ("svdvals", lambda m, a: m.linalg.svdvals(a), [C2]),
    ("eig", lambda m, a: (lambda r: _abs2(r[0])[:, None] * _abs2(r[1]))(m.linalg.eig(a)), [C]),
    ("addmm", lambda m, x, a, b: m.addmm(x, a, b, beta=0.5, alpha=2.0), [C2, C, C2[:, :2]]),
    ("addmv", lambda m, x, a, b: m.addmv(x, a, b), [C2[:, 0], C, C2[:, 1]]),
    ("addr", lambda m, x, a, b: m.addr(x, a, b), [C, C2[:, 0], C2[:, 1] + C2[:, 0]]),
    ("outer", lambda m, a, b: m.outer(a, b), [C2[:, 0], C2[:, 1]]),
    ("dot", lambda m, a, b: m.dot(a, b), [C2[:, 0], C2[:, 1]]),
    ("einsum", lambda m, a, b: m.einsum("...ij,j->...i", a, b), [C, C2[:, 0]]),
    ("cumprod", lambda m, a: m.cumprod(a, 0), [C2]),
    ("mul-python-complex", lambda m, a: (a * (1 + 2j)) / (2 - 1j), [C2]),
]


@pytest.mark.torch
@pytest.mark.parametrize("name,fn,inputs", COMPLEX_CASES, ids=[c[0] for c in COMPLEX_CASES])
def test_complex_first_and_second_order_gradients_match_pytorch(name, fn, inputs):
    """A real loss of complex values: its gradient (the conjugate-Wirtinger convention, Note
    [Complex gradients] in ops/elementwise.py) and that gradient's own, against PyTorch."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    shape = tuple(fn(mg, *(mg.tensor(a) for a in inputs)).shape)
    w = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    us = [rng.standard_normal(a.shape) + 1j * rng.standard_normal(a.shape) for a in inputs]
    results = []
    for T in (mg, torch):
        grad = mg.grad if T is mg else T.autograd.grad
        xs = [T.tensor(a, requires_grad=True) for a in inputs]
        out = fn(T, *xs)
        gs = grad((out * T.tensor(w)).real.sum(), xs, create_graph=True)
        total = sum((g * T.tensor(u)).real.sum() for g, u in zip(gs, us) if g.requires_grad)
        hs = [None] * len(xs) if isinstance(total, int) else grad(total, xs, allow_unused=True)
        results.append([t.detach().resolve_conj().numpy() for t in gs] +
                       [np.zeros(a.shape) if t is None else t.resolve_conj().numpy()
                        for t, a in zip(hs, inputs)])
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9, err_msg=name)


@pytest.mark.torch
def test_matrix_norms_of_singular_values_match_pytorch():
    torch = pytest.importorskip("torch")
    a = R.standard_normal((2, 3, 4))
    for ord in (2, -2, "nuc"):
        for dim in ((-2, -1), (2, 0)):
            for keepdim in (False, True):
                x, q = mg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
                out = mg.linalg.matrix_norm(x, ord, dim=dim, keepdim=keepdim)
                ref = torch.linalg.matrix_norm(q, ord, dim=dim, keepdim=keepdim)
                assert list(out.shape) == list(ref.shape)
                np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-12)
                out.sum().backward()
                ref.sum().backward()
                np.testing.assert_allclose(x.grad.numpy(), q.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(mg.linalg.norm(mg.tensor(a[0]), "nuc").item(),
                               torch.linalg.norm(torch.tensor(a[0]), "nuc").item())


@pytest.mark.torch
def test_integer_and_complex_results_match_pytorch():
    torch = pytest.importorskip("torch")
    t = torch.tensor
    LU, piv = mg.linalg.lu_factor(mg.tensor(A43))
    tLU, tpiv = torch.linalg.lu_factor(t(A43))
    np.testing.assert_allclose(LU.numpy(), tLU.numpy(), rtol=1e-12)
    assert piv.tolist() == tpiv.tolist() and str(piv.dtype).endswith("int32")
    P, L, U = mg.linalg.lu(mg.tensor(A34))
    for a, b in zip((P, L, U), torch.linalg.lu(t(A34))):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-14)
    LD, lpiv = mg.linalg.ldl_factor(mg.tensor(SYM))
    tLD, tlpiv = torch.linalg.ldl_factor(t(SYM))
    np.testing.assert_allclose(LD.numpy(), tLD.numpy(), rtol=1e-12, atol=1e-14)
    assert lpiv.tolist() == tlpiv.tolist()
    x = mg.linalg.ldl_solve(LD, lpiv, mg.tensor(B32))
    np.testing.assert_allclose(x.numpy(), torch.linalg.ldl_solve(tLD, tlpiv, t(B32)).numpy(),
                               rtol=1e-10)
    rank_input = A43 @ A34[:, :3]
    assert mg.linalg.matrix_rank(mg.tensor(rank_input)).item() == \
        torch.linalg.matrix_rank(t(rank_input)).item() == 3
    assert mg.linalg.matrix_rank(mg.tensor(np.outer(A43[:, 0], A34[0]))).item() == 1
    res = mg.linalg.lstsq(mg.tensor(A43), mg.tensor(A43 @ B32[:, :1] + 0.1))
    tres = torch.linalg.lstsq(t(A43), t(A43 @ B32[:, :1] + 0.1), driver="gelsd")
    np.testing.assert_allclose(res.residuals.numpy(), tres.residuals.numpy(), rtol=1e-8)
    assert res.rank.item() == tres.rank.item()
    np.testing.assert_allclose(res.singular_values.numpy(), tres.singular_values.numpy(),
                               rtol=1e-10)
    w = mg.linalg.eigvals(mg.tensor(SQ)).numpy()
    tw = torch.linalg.eigvals(t(SQ)).numpy()
    np.testing.assert_allclose(np.sort_complex(w), np.sort_complex(tw), rtol=1e-10)


@pytest.mark.torch
def test_eig_gradient_matches_pytorch_through_gauge_free_gradients():
    """A gradient given to the eigenvalues, and one to the eigenvectors that a phase change of
    each vector leaves alone: the real input's gradient agrees with PyTorch's."""
    torch = pytest.importorskip("torch")
    gw = R.standard_normal(3) + 1j * R.standard_normal(3)
    for which in ("values", "vectors"):
        a, q = mg.tensor(SQ, requires_grad=True), torch.tensor(SQ, requires_grad=True)
        w, v = mg.linalg.eig(a)
        tw, tv = torch.linalg.eig(q)
        if which == "values":
            w.backward(mg.tensor(gw))
            tw.backward(torch.tensor(gw))
        else:      # the gradient of sum |V_ij|^2 c_ij is 2 c V
            c = R.standard_normal((3, 3))
            v.backward(mg.tensor(2 * c * v.detach().numpy()))
            tv.backward(torch.tensor(2 * c * tv.detach().numpy()))
        np.testing.assert_allclose(a.grad.numpy(), q.grad.numpy(), rtol=1e-8, atol=1e-10)


@pytest.mark.torch
def test_slogdet_sign_is_recorded_with_a_zero_gradient_as_pytorchs():
    torch = pytest.importorskip("torch")
    a, q = mg.tensor(SQ2, requires_grad=True), torch.tensor(SQ2, requires_grad=True)
    (sign, logabs), (tsign, tlogabs) = mg.linalg.slogdet(a), torch.linalg.slogdet(q)
    assert sign.requires_grad == tsign.requires_grad is True
    assert sign.grad_fn is not None and tsign.grad_fn is not None
    (sign * 3 + logabs).sum().backward()
    (tsign * 3 + tlogabs).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), q.grad.numpy(), rtol=1e-10)
    a.grad = None
    sign.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.zeros(SQ2.shape))
    with mg.no_grad():
        sign, _ = mg.linalg.slogdet(a)
    assert not sign.requires_grad and sign.grad_fn is None


def test_errors_name_the_problem():
    with pytest.raises(mg.linalg.LinAlgError, match="not positive-definite.*order 2"):
        mg.linalg.cholesky(mg.tensor([[1.0, 2.0], [2.0, 1.0]]))
    L, info = mg.linalg.cholesky_ex(mg.tensor([[1.0, 2.0], [2.0, 1.0]]))
    assert info.item() == 2 and np.isnan(L.numpy()).all()
    assert mg.linalg.cholesky_ex(mg.tensor(SPD)).info.item() == 0
    with pytest.raises(mg.linalg.LinAlgError, match="inv"):
        mg.linalg.inv(mg.zeros([2, 2]))
    inverse, info = mg.linalg.inv_ex(mg.zeros([2, 2]))
    assert info.item() == 1 and np.isnan(inverse.numpy()).all()
    assert isinstance(mg.linalg.LinAlgError("x"), RuntimeError)
    with pytest.raises(mg.ShapeError, match="square matrices"):
        mg.linalg.eigh(mg.ones([2, 3]))
    with pytest.raises(ValueError, match="unrecognized mode 'full'"):
        mg.linalg.qr(mg.ones([2, 3]), mode="full")
    a = mg.tensor(A43, requires_grad=True)
    U, S, Vh = mg.linalg.svd(a)               # full_matrices=True, as PyTorch's default
    with pytest.raises(mg.MutogradError, match="full_matrices=False"):
        U.sum().backward()
    with pytest.raises(mg.linalg.LinAlgError, match="ldl_factor.*derivative"):
        mg.linalg.ldl_factor(mg.tensor(SYM, requires_grad=True))
    with pytest.raises(mg.MutogradError, match="mode='r'"):
        mg.linalg.qr(mg.tensor(A43, requires_grad=True), mode="r")[1].sum().backward()


def test_compat_torch_linalg_has_every_name():
    import mutograd.compat.torch as torch
    for name in mg.linalg.__all__:
        fn = getattr(torch.linalg, name)
        assert getattr(fn, "__wrapped__", fn) is getattr(mg.linalg, name), name
    det = torch.linalg.det(mg.tensor([[1.0, 2.0], [3.0, 4.0]]))
    assert type(det) is torch.Tensor and np.allclose(det.numpy(), -2.0)
