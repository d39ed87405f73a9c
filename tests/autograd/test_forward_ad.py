"""torch.autograd.forward_ad (mutograd/autograd/forward_ad.py): dual tensors whose tangents come
from the double-VJP construction, against finite differences and PyTorch's forward AD."""
import numpy as np
import pytest

import mutograd as mg
import mutograd.autograd.forward_ad as fwAD
import mutograd.compat.torch as mt

RNG = np.random.default_rng(4)
X = RNG.standard_normal((3, 4))
T = RNG.standard_normal((3, 4))
W = RNG.standard_normal((4, 2))

FUNCS = {
    "elementwise": lambda x, w: (x.sin() * x.exp()).tanh(),
    "matmul": lambda x, w: (x @ w).relu() + x.sum(),
    "reduction": lambda x, w: (x ** 2).mean(0) / x.abs().max(),
    "softmax": lambda x, w: (x @ w).softmax(-1).log(),
    "views": lambda x, w: x.T.reshape(-1)[::2].cumsum(0),
    "in-place": lambda x, w: (x * 1).mul_(x).add_(2).sqrt_(),
}


def _tangent(f, x, t, w):
    with fwAD.dual_level():
        out = f(fwAD.make_dual(x, t), w)
        return fwAD.unpack_dual(out)


@pytest.mark.parametrize("name", list(FUNCS))
def test_tangents_match_finite_differences(name):
    f = FUNCS[name]
    w = mg.tensor(W)
    primal, tangent = _tangent(f, mg.tensor(X), mg.tensor(T), w)
    eps = 1e-6
    fd = (f(mg.tensor(X + eps * T), w).numpy() - f(mg.tensor(X - eps * T), w).numpy()) / (2 * eps)
    np.testing.assert_allclose(tangent.numpy(), fd, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(primal.numpy(), f(mg.tensor(X), w).numpy())
    assert not primal.requires_grad


def test_levels_and_what_is_dual():
    x, t = mg.tensor(X), mg.tensor(T)
    with pytest.raises(RuntimeError, match="enter_dual_level"):
        fwAD.make_dual(x, t)
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match="Nested forward mode AD"):
            fwAD.enter_dual_level()
        d = fwAD.make_dual(x, t)
        assert fwAD.unpack_dual(d).tangent is t
        assert fwAD.unpack_dual(x).tangent is None           # not a dual tensor
        assert fwAD.unpack_dual(x * 2).tangent is None
        with pytest.raises(RuntimeError, match="different size"):
            fwAD.make_dual(x, mg.ones(2))
        with pytest.raises(ValueError, match="floating point"):
            fwAD.make_dual(mg.tensor([1, 2]), mg.tensor([1, 2]))
        y = d * 3
    assert fwAD.unpack_dual(y).tangent is None                # the level is gone
    level = fwAD.enter_dual_level()
    fwAD.exit_dual_level(level=level)


def test_reverse_over_forward():
    """A tangent is differentiable with respect to an input that requires grad."""
    x = mg.tensor(X, requires_grad=True)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, mg.tensor(T))
        primal, tangent = fwAD.unpack_dual((d ** 3).sum(1))
    assert primal.requires_grad and tangent.requires_grad
    (g,) = mg.grad(tangent.sum(), x)
    np.testing.assert_allclose(g.numpy(), 6 * X * T, rtol=1e-10)


@pytest.mark.torch
@pytest.mark.parametrize("name", list(FUNCS))
def test_tangents_match_pytorch(name):
    torch = pytest.importorskip("torch")
    f = FUNCS[name]

    def run(ns):
        fw = ns.autograd.forward_ad
        with fw.dual_level():
            out = f(fw.make_dual(ns.tensor(X), ns.tensor(T)), ns.tensor(W))
            p, t = fw.unpack_dual(out)
            return p.detach().numpy(), t.detach().numpy()
    for a, b in zip(run(mt), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-9)


@pytest.mark.torch
def test_reverse_over_forward_matches_pytorch():
    torch = pytest.importorskip("torch")

    def run(ns):
        fw = ns.autograd.forward_ad
        x = ns.tensor(X, requires_grad=True)
        w = ns.tensor(W, requires_grad=True)
        with fw.dual_level():
            d = fw.make_dual(x, ns.tensor(T))
            _, t = fw.unpack_dual((d @ w).tanh())
        return [g.detach().numpy() for g in ns.autograd.grad((t ** 2).sum(), (x, w))]
    for a, b in zip(run(mt), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-9)
