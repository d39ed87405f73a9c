"""Gradients through complex values (Note [Complex gradients] in ops/elementwise.py): a real
loss of complex intermediates, against PyTorch's (the conjugate-Wirtinger convention)."""
import numpy as np
import pytest

pytestmark = pytest.mark.torch

R = np.random.default_rng(0)
A = R.standard_normal((3, 2))
B = R.standard_normal((3, 2))
W = np.array([1 + 2j, 3 - 1j, -0.5 + 0.25j])

CASES = [
    ("mul", lambda T, z, u: z * u),
    ("mul-constant", lambda T, z, u: z * T.tensor(W)),
    ("div", lambda T, z, u: z / (u + 2)),
    ("div-constant", lambda T, z, u: T.tensor(W) / (z + 3)),
    ("exp", lambda T, z, u: (z * 0.5).exp()),
    ("matmul", lambda T, z, u: z.reshape(1, 3) @ u.reshape(3, 1)),
    ("abs", lambda T, z, u: (z * u).abs() * T.tensor(W)),
    ("pow-int", lambda T, z, u: (z * u) ** 2),
    ("pow-complex", lambda T, z, u: (z + 2) ** (u * 0.5 + 1j)),
    ("rotary", lambda T, z, u: T.view_as_complex(T.view_as_real(z * u).flatten(0).reshape(3, 2)
                                                 .contiguous())),
]


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_complex_gradients_match_pytorch(name, fn):
    torch = pytest.importorskip("torch")
    import mutograd.compat.torch as mt
    grads = []
    for T in (mt, torch):
        a, b = T.tensor(A, requires_grad=True), T.tensor(B, requires_grad=True)
        out = fn(T, T.view_as_complex(a), T.view_as_complex(b))
        w = T.tensor(np.linspace(-1, 2, 2 * out.numel()).reshape(tuple(out.shape) + (2,)))
        (T.view_as_real(out) * w).sum().backward()
        grads.append([a.grad.numpy(), b.grad.numpy() if b.grad is not None else None])
    for g, h in zip(*grads):
        if h is None:
            assert g is None
        else:
            np.testing.assert_allclose(g, h, rtol=1e-10, atol=1e-12, err_msg=name)
