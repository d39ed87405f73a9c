"""The decompositions as Tensor methods (PyTorch's and Paddle's names), against PyTorch."""
import numpy as np
import pytest

import mutograd as mg

R = np.random.default_rng(0)
SQ = R.standard_normal((3, 3)) + 3 * np.eye(3)
SPD = SQ @ SQ.T + np.eye(3)
B = R.standard_normal((3, 2))
L = np.linalg.cholesky(SPD)

CASES = [
    ("cholesky", lambda m, a, b: a.cholesky(), SPD),
    ("cholesky_solve", lambda m, a, b: b.cholesky_solve(m.tensor(L)), SPD),
    ("cholesky_solve-upper", lambda m, a, b: b.cholesky_solve(m.tensor(L.T.copy()), upper=True),
     SPD),
    ("cholesky_inverse", lambda m, a, b: m.tensor(L).cholesky_inverse(), SPD),
    ("triangular_solve", lambda m, a, b: b.triangular_solve(a, upper=False)[0], SQ),
    ("triangular_solve-transpose", lambda m, a, b: b.triangular_solve(
        a, upper=True, transpose=True, unitriangular=True)[0], SQ),
    ("qr", lambda m, a, b: a.qr()[0] + a.qr(some=False)[1], SQ),
    ("lu", lambda m, a, b: a.lu()[0], SQ),
    ("lu_solve", lambda m, a, b: b.lu_solve(*a.lu()), SQ),
    ("pinverse", lambda m, a, b: a.pinverse(), SQ),
]


@pytest.mark.torch
@pytest.mark.parametrize("name,fn,a", CASES, ids=[c[0] for c in CASES])
def test_methods_match_pytorch(name, fn, a):
    torch = pytest.importorskip("torch")
    ours = fn(mg, mg.tensor(a, requires_grad=True), mg.tensor(B))
    ref = fn(torch, torch.tensor(a, requires_grad=True), torch.tensor(B))
    np.testing.assert_allclose(ours.detach().numpy(), ref.detach().numpy(), rtol=1e-9,
                               atol=1e-12)


def test_paddle_style_methods():
    a = mg.tensor(SQ)
    np.testing.assert_allclose(a.solve(mg.tensor(B)).numpy(), np.linalg.solve(SQ, B),
                               rtol=1e-12)
    np.testing.assert_allclose(a.pinv().numpy(), np.linalg.pinv(SQ), rtol=1e-10)
    np.testing.assert_allclose(a.lstsq(mg.tensor(B))[0].numpy(), np.linalg.solve(SQ, B),
                               rtol=1e-10)
    np.testing.assert_allclose(np.sort_complex(a.eigvals().numpy()),
                               np.sort_complex(np.linalg.eigvals(SQ)), rtol=1e-10)
    assert a.cond().item() == pytest.approx(np.linalg.cond(SQ))
    assert a.eigvalsh().shape == [3]
