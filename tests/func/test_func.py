"""mutograd.func (torch.func): grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian and
functional_call, against finite differences and PyTorch; how they compose (per-sample
gradients, second derivatives, gradients through a transform)."""
import numpy as np
import pytest

import mutograd as mg
import mutograd.compat.torch as mt
from mutograd.func import (functional_call, grad, grad_and_value, hessian, jacfwd, jacrev, jvp,
                           vjp)

RNG = np.random.default_rng(1)
X = RNG.standard_normal((5, 3))
W = RNG.standard_normal((3, 4))
B = RNG.standard_normal(4)
Y = RNG.standard_normal((5, 4))


def loss(w, b, x, y):
    """An MLP layer's mean squared error (x one sample or a batch)."""
    return (((x @ w + b).tanh() - y) ** 2).mean()


def _fd_grad(f, arrays, k, eps=1e-6):
    """Central differences of scalar f with respect to argument k."""
    a = arrays[k]
    g = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        old = a[idx]
        a[idx] = old + eps
        hi = float(f(*[mg.tensor(v) for v in arrays]))
        a[idx] = old - eps
        lo = float(f(*[mg.tensor(v) for v in arrays]))
        a[idx] = old
        g[idx] = (hi - lo) / (2 * eps)
    return g


def _np(t):
    return t.detach().numpy()


# ---- against finite differences -------------------------------------------------------------
def test_grad_with_argnums_and_has_aux():
    arrays = [W.copy(), B.copy(), X.copy(), Y.copy()]
    gw, gb = grad(loss, argnums=(0, 1))(*[mg.tensor(a) for a in arrays])
    np.testing.assert_allclose(_np(gw), _fd_grad(loss, arrays, 0), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(_np(gb), _fd_grad(loss, arrays, 1), rtol=1e-6, atol=1e-9)
    gx = grad(loss, argnums=-2)(*[mg.tensor(a) for a in arrays])
    np.testing.assert_allclose(_np(gx), _fd_grad(loss, arrays, 2), rtol=1e-6, atol=1e-9)

    def with_aux(w):
        v = loss(w, mg.tensor(B), mg.tensor(X), mg.tensor(Y))
        return v, {"twice": v * 2}
    g, aux = grad(with_aux, has_aux=True)(mg.tensor(W))
    np.testing.assert_allclose(_np(g), _fd_grad(loss, arrays, 0), rtol=1e-6, atol=1e-9)
    (g2, (value, aux2)) = grad_and_value(with_aux, has_aux=True)(mg.tensor(W))
    assert float(aux["twice"]) == float(aux2["twice"]) == 2 * float(value)
    assert not g.requires_grad and not value.requires_grad


def test_grad_of_a_dict_of_parameters_and_functional_call():
    net = mg.nn.Sequential(mg.nn.Linear(3, 4), mg.nn.Tanh(), mg.nn.Linear(4, 2))
    params = {k: v.detach() for k, v in net.named_parameters()}
    x, y = mg.tensor(X), mg.tensor(RNG.standard_normal((5, 2)))

    def f(p):
        return ((functional_call(net, p, (x,)) - y) ** 2).sum()
    g = grad(f)(params)
    assert list(g) == list(params)
    net.zero_grad()
    ((net(x) - y) ** 2).sum().backward()
    for k, p in net.named_parameters():
        np.testing.assert_allclose(_np(g[k]), _np(p.grad), rtol=1e-5)
    # the module's own parameters are back
    assert all(p is q for p, q in zip(net.parameters(), dict(net.named_parameters()).values()))
    assert net[0].weight is dict(net.named_parameters())["0.weight"]


def test_functional_call_ties_weights_and_checks_keys():
    l1, l2 = mg.nn.Linear(2, 2), mg.nn.Linear(2, 2)
    l2.weight = l1.weight                                    # one parameter, two modules
    net = mg.nn.Sequential(l1, mg.nn.Tanh(), l2)
    w = mg.zeros(2, 2)
    x = mg.ones(1, 2)
    with mg.no_grad():
        tied = functional_call(net, {"0.weight": w}, (x,))
        untied = functional_call(net, {"0.weight": w}, (x,), tie_weights=False)
        want = l2(l1.bias.tanh()[None])
    np.testing.assert_allclose(_np(tied), _np(l2.bias[None]))    # both uses see w = 0
    np.testing.assert_allclose(_np(untied), _np(want))           # only l1's does
    with pytest.raises(ValueError, match="tied"):
        functional_call(net, {"0.weight": w, "2.weight": mg.ones(2, 2)}, (x,))
    with pytest.raises(RuntimeError, match="Missing key"):
        functional_call(net, {"0.weight": w}, (x,), strict=True)
    with pytest.raises(ValueError, match="multiple dictionaries"):
        functional_call(net, ({"0.weight": w}, {"0.weight": w}), (x,))
    assert l1.weight is l2.weight and l1.weight.requires_grad


def test_jacrev_jacfwd_hessian_match_finite_differences():
    def f(x, w):
        return (x @ w).sin() * x.sum()
    arrays = [X[0].copy(), W.copy()]
    for jac in (jacrev, jacfwd):
        jx, jw = jac(f, argnums=(0, 1))(*[mg.tensor(a) for a in arrays])
        for k, j in ((0, jx), (1, jw)):
            want = np.stack([_fd_grad(lambda *a: f(*a)[i], arrays, k) for i in range(4)])
            np.testing.assert_allclose(_np(j), want, rtol=1e-5, atol=1e-8)
    h = hessian(lambda x: (x.sin() * x.exp()).sum() ** 2)(mg.tensor(X[0]))
    g = grad(lambda x: (x.sin() * x.exp()).sum() ** 2)
    want = np.stack([_fd_grad(lambda x: g(x)[i], [X[0].copy()], 0) for i in range(3)])
    np.testing.assert_allclose(_np(h), want, rtol=1e-5, atol=1e-7)


def test_jvp_and_vjp():
    x, t = mg.tensor(X), mg.tensor(RNG.standard_normal(X.shape))
    out, jt = jvp(lambda a: (a ** 2).cumsum(1), (x,), (t,))
    np.testing.assert_allclose(_np(jt), np.cumsum(2 * X * t.numpy(), 1), rtol=1e-10)
    out, fn = vjp(lambda a, b: (a @ b, a.sum()), x, mg.tensor(W))
    ga, gb = fn((mg.ones(5, 4), mg.tensor(2.0)))
    np.testing.assert_allclose(_np(ga), np.ones((5, 4)) @ W.T + 2, rtol=1e-10)
    np.testing.assert_allclose(_np(gb), X.T @ np.ones((5, 4)), rtol=1e-10)
    with pytest.raises(RuntimeError, match="same as pytree structure"):
        fn(mg.ones(5, 4))
    with pytest.raises(RuntimeError, match="Expected primals to be a tuple"):
        jvp(lambda a: a, x, (t,))


def test_transforms_compose_and_do_not_confuse_their_inputs():
    x = mg.tensor(1.5)
    # d/dx [x * d/dy (x * y)] = d/dx x^2 = 2x: the inner derivative is with respect to y only
    assert grad(lambda x: x * grad(lambda y: x * y)(x))(x).item() == pytest.approx(3.0)
    assert grad(grad(grad(lambda x: x ** 4)))(x).item() == pytest.approx(24 * 1.5)
    assert jacfwd(jacrev(lambda x: x ** 3))(mg.tensor([2.0])).tolist() == [[[12.0]]]
    # a gradient taken inside a loss stays differentiable for an outer backward (MAML-style)
    w = mg.tensor(W, requires_grad=True)
    fast = w - 0.1 * grad(loss)(w, mg.tensor(B), mg.tensor(X), mg.tensor(Y))
    assert fast.requires_grad
    loss(fast, mg.tensor(B), mg.tensor(X), mg.tensor(Y)).backward()
    g_out = _np(w.grad)

    def outer(w):
        inner = grad(loss)(w, mg.tensor(B), mg.tensor(X), mg.tensor(Y))
        return loss(w - 0.1 * inner, mg.tensor(B), mg.tensor(X), mg.tensor(Y))
    np.testing.assert_allclose(g_out, _np(grad(outer)(mg.tensor(W))), rtol=1e-10)


def test_argument_errors():
    with pytest.raises(RuntimeError, match="scalar Tensor"):
        grad(lambda x: x * 2)(mg.ones(2))
    with pytest.raises(RuntimeError, match="to return a Tensor"):
        grad(lambda x: 1.0)(mg.ones(2))
    with pytest.raises(RuntimeError, match=r"\(output, aux\)"):
        grad(lambda x: x.sum(), has_aux=True)(mg.ones(2))
    with pytest.raises(RuntimeError, match="argnums"):
        grad(lambda x: x.sum(), argnums=3)(mg.ones(2))
    assert grad(lambda x, y: x.sum())(mg.ones(2), mg.ones(3)).tolist() == [1.0, 1.0]
    assert grad(lambda x, y: x.sum(), argnums=1)(mg.ones(2), mg.ones(3)).tolist() == [0.0] * 3


# ---- against PyTorch ------------------------------------------------------------------------
def _same(got, want, rtol=1e-6, atol=1e-9):
    if isinstance(want, dict):
        assert list(got) == list(want)
        for k in want:
            _same(got[k], want[k], rtol, atol)
    elif isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w, rtol, atol)
    else:
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=rtol,
                                   atol=atol)


def _both(fn):
    torch = pytest.importorskip("torch")
    return fn(mt), fn(torch)


@pytest.mark.torch
def test_per_sample_gradients_match_pytorch():
    def run(ns):
        args = [ns.tensor(a) for a in (W, B, X, Y)]
        return ns.func.vmap(ns.func.grad(loss, argnums=(0, 1)), in_dims=(None, None, 0, 0))(
            *args)
    _same(*_both(run))


@pytest.mark.torch
def test_every_transform_matches_pytorch():
    def f(x, w):
        return ((x @ w).tanh() * x.sum(-1, keepdim=True)).cos()

    tangent = RNG.standard_normal(X.shape)

    def run(ns):
        x, w, t = ns.tensor(X), ns.tensor(W), ns.tensor(tangent)
        out = [ns.func.jacrev(f, argnums=(0, 1))(x[0], w),
               ns.func.jacfwd(f, argnums=(0, 1))(x[0], w),
               ns.func.jacrev(f, chunk_size=3)(x, w),
               ns.func.hessian(lambda x: f(x, w).sum())(x[0]),
               ns.func.jvp(lambda x: f(x, w), (x,), (t,)),
               ns.func.vjp(lambda x: f(x, w), x)[1](ns.ones(5, 4)),
               ns.func.grad_and_value(lambda x: f(x, w).sum())(x),
               ns.func.vmap(ns.func.jacrev(lambda x: f(x, w)))(x),
               ns.func.vmap(ns.func.hessian(lambda x: f(x, w).sum()))(x)]
        return out
    got, want = _both(run)
    for k, (g, w) in enumerate(zip(got, want)):
        _same(g, w, rtol=1e-5, atol=1e-8)


@pytest.mark.torch
def test_functional_call_per_sample_gradients_of_a_module_match_pytorch():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    net_t = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
    net_m = mt.nn.Sequential(mt.nn.Linear(3, 8), mt.nn.Tanh(), mt.nn.Linear(8, 2))
    net_m.load_state_dict({k: mt.tensor(v.detach().numpy())
                           for k, v in net_t.state_dict().items()})
    labels = RNG.integers(0, 2, 5)

    def run(ns, net):
        params = {k: v.detach() for k, v in net.named_parameters()}

        def sample_loss(p, x, y):
            out = ns.func.functional_call(net, p, (x[None],))
            return ns.nn.functional.cross_entropy(out, y[None])
        return ns.func.vmap(ns.func.grad(sample_loss), in_dims=(None, 0, 0))(
            params, ns.tensor(X).float(), ns.tensor(labels))
    _same(run(mt, net_m), run(torch, net_t), rtol=1e-4, atol=1e-6)


@pytest.mark.torch
def test_second_order_through_transforms_matches_pytorch():
    def run(ns):
        w = ns.tensor(W, requires_grad=True)
        x = ns.tensor(X)
        g = ns.func.grad(lambda w: ((x @ w).sin() ** 2).sum())(w)
        h = ns.func.vmap(ns.func.grad(lambda w, xi: ((xi @ w).tanh() ** 3).sum()),
                         in_dims=(None, 0))(w, x)
        return ns.autograd.grad((g ** 2).sum() + (h ** 2).sum(), w)
    _same(*_both(run))
