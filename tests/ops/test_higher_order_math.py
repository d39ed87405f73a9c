"""Gradients of gradients of the math ops, beyond the op table's second-order check
(test_ops_second_order.py): the special functions to the third order (each derivative is
another special function, itself differentiable), cumprod at exact zeros, and the scans composed
from declared ops (logcumsumexp, cummax, cummin), against PyTorch and finite differences."""
import numpy as np
import pytest
from tests.helpers import numeric_grad

import mutograd as mg

X = np.array([0.7, 1.3, 2.2, 0.45])


def _derivatives(T, f, x0, w, order):
    """The first ``order`` derivatives of ``sum(f(x) * w)``, each the gradient of the previous
    one's sum (elementwise functions: the diagonal of each derivative)."""
    grad = T.autograd.grad
    x = T.tensor(x0, requires_grad=True)
    y = (f(T, x) * T.tensor(w)).sum()
    out = []
    for k in range(order):
        g, = grad(y, [x], create_graph=k + 1 < order)
        out.append(g.detach().numpy().copy())
        y = g.sum()
    return out


def _special(T, name):
    """PyTorch's ``torch.special.<name>`` or mutograd's ``<name>`` (both dialects name it so)."""
    return getattr(T.special, name) if T.__name__ == "torch" else getattr(T, name)


SPECIAL = [
    ("digamma", lambda T, x: T.digamma(x)),
    ("lgamma", lambda T, x: T.lgamma(x)),
    ("polygamma-2", lambda T, x: T.polygamma(2, x)),
    ("multigammaln", lambda T, x: T.mvlgamma(x + 1, 3)),
    ("i0", lambda T, x: T.i0(x)),
    ("i0e", lambda T, x: _special(T, "i0e")(x - 1)),
    ("i1", lambda T, x: _special(T, "i1")(x - 1)),
    ("i1e", lambda T, x: _special(T, "i1e")(x - 1)),
    ("xlogy", lambda T, x: T.xlogy(x - 0.5, x + 1)),
    ("erfinv", lambda T, x: T.erfinv(x / 3)),
    ("gammainc", lambda T, x: _special(T, "gammainc")(T.tensor([1.5, 2.0, 0.8, 3.0]), x)),
]


@pytest.mark.torch
@pytest.mark.parametrize("name,f", SPECIAL, ids=[s[0] for s in SPECIAL])
def test_special_functions_differentiate_to_the_third_order_as_pytorch(name, f):
    torch = pytest.importorskip("torch")
    import mutograd.compat.torch as mt
    w = np.random.default_rng(0).standard_normal(X.shape)
    for got, want in zip(_derivatives(mt, f, X, w, 3), _derivatives(torch, f, X, w, 3)):
        np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-10, err_msg=name)


def test_bessel_slope_at_zero_is_one_half_and_its_own_slope_is_finite():
    x = mg.tensor([0.0, -0.0, 1e-20], requires_grad=True)
    g, = mg.grad(mg.i1(x).sum(), [x], create_graph=True)
    np.testing.assert_array_equal(g.numpy(), [0.5, 0.5, 0.5])
    h, = mg.grad(g.sum(), [x])
    assert np.isfinite(h.numpy()).all()


def _second(f, x0, w, u):
    x = mg.tensor(x0, requires_grad=True)
    g, = mg.grad((f(x) * mg.tensor(w)).sum(), [x], create_graph=True)
    h, = mg.grad((g * mg.tensor(u)).sum(), [x])
    return h.numpy()


def _first_dot_u(f, w, u):
    def first(x0):
        x = mg.tensor(x0, requires_grad=True)
        g, = mg.grad((f(x) * mg.tensor(w)).sum(), [x])
        return float((g.numpy() * u).sum())
    return first


SCANS = [
    ("cumprod-zeros", lambda x: mg.cumprod(x, 1)),
    ("cumprod-zeros-axis0", lambda x: mg.cumprod(x, 0)),
    ("cumprod-flat", lambda x: mg.cumprod(x)),
    ("logcumsumexp", lambda x: mg.logcumsumexp(x, 1)),
    ("cummax", lambda x: mg.cummax(x, 1)[0] ** 2),
    ("cummin", lambda x: mg.cummin(x, 0)[0] ** 2),
]


@pytest.mark.parametrize("name,f", SCANS, ids=[s[0] for s in SCANS])
def test_scans_second_order_matches_finite_differences(name, f):
    """cumprod with exact zeros in a row (one, and two in a row) keeps the derivative of its
    gradient with respect to the zero factors (a zero decides only against inf or NaN)."""
    rng = np.random.default_rng(1)
    x = rng.uniform(-2, 2, (3, 4))
    if name.startswith("cumprod"):   # the running extremes are left without ties
        x[0, 1] = x[1, 2] = x[1, 3] = 0.0
    w = rng.standard_normal(f(mg.tensor(x)).shape)
    u = rng.standard_normal(x.shape)
    expected, = numeric_grad(_first_dot_u(f, w, u), [x.copy()])
    np.testing.assert_allclose(_second(f, x, w, u), expected, rtol=1e-5, atol=1e-6,
                               err_msg=name)


def test_einsum_ellipsis_broadcasts():
    a, b = mg.ones([2, 1, 4, 3]), mg.ones([5, 3, 2])
    assert list(mg.einsum("...ij,...jk->...ik", a, b).shape) == [2, 5, 4, 2]
    assert list(mg.einsum("...ij", a).shape) == [2, 1, 4, 3]
    assert list(mg.einsum("i...->...", a).shape) == [1, 4, 3]
