"""torch.autograd.functional (mutograd/autograd/functional.py): vjp, jvp, jacobian, hessian, vhp
and hvp with create_graph, strict, vectorize and strategy, against finite differences and
against PyTorch; gradcheck and gradgradcheck with their options."""
import numpy as np
import pytest

import mutograd as mg
import mutograd.compat.torch as mt
from mutograd.autograd import functional as F

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4))
W = RNG.standard_normal((4, 2))
B = RNG.standard_normal(2)
V = RNG.standard_normal(4)


def elementwise(x):
    return (x.sin() * x.exp()).tanh()


def reduction(x):
    return (x ** 3).sum(1) / (x * x).mean()


def matmul(x, w):
    return (x @ w).tanh()


def mlp(x, w, b):
    return ((x @ w + b).tanh() ** 2).sum()


def two_outputs(x, w):
    return x @ w, (x.exp() * 2).sum(0)


CASES = [   # (name, function, input arrays)
    ("elementwise", elementwise, (V,)),
    ("reduction", reduction, (X,)),
    ("matmul", matmul, (X, W)),
    ("mlp", mlp, (X, W, B)),
    ("two-outputs", two_outputs, (X, W)),
]
SCALAR = [c for c in CASES if c[0] == "mlp"] + [
    ("sum-of-powers", lambda x, y: (x ** 3 * y.sin().sum()).sum(), (V, V[:3])),
    ("tanh-norm", lambda x: (x @ x.T).tanh().sum(), (X,)),
]


def _inputs(ns, arrays, **kw):
    return tuple(ns.tensor(a, **kw) for a in arrays)


def _np(x):
    if isinstance(x, (tuple, list)):
        return [_np(e) for e in x]
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def _close(got, want, rtol=1e-6, atol=1e-9):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w, rtol, atol)
        return
    np.testing.assert_allclose(_np(got), _np(want), rtol=rtol, atol=atol)


def _numeric_jacobian(f, arrays, eps=1e-6):
    """Central differences: for each output and input, shape out.shape + in.shape."""
    def values():
        out = f(*[mg.tensor(a) for a in arrays])
        return [o.numpy() for o in (out if isinstance(out, tuple) else (out,))]
    outs = values()
    jac = [[np.zeros(o.shape + a.shape) for a in arrays] for o in outs]
    for i, a in enumerate(arrays):
        for idx in np.ndindex(a.shape):
            old = a[idx]
            a[idx] = old + eps
            hi = values()
            a[idx] = old - eps
            lo = values()
            a[idx] = old
            for k in range(len(outs)):
                jac[k][i][(Ellipsis,) + idx] = (hi[k] - lo[k]) / (2 * eps)
    return jac


# ---- against finite differences (no PyTorch) ------------------------------------------------
@pytest.mark.parametrize("name,f,arrays", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("mode", ["reverse", "reverse-vectorized", "forward-vectorized"])
def test_jacobian_matches_finite_differences(name, f, arrays, mode):
    arrays = [a.copy() for a in arrays]
    want = _numeric_jacobian(f, arrays)
    kw = {"reverse": {}, "reverse-vectorized": {"vectorize": True},
          "forward-vectorized": {"vectorize": True, "strategy": "forward-mode"}}[mode]
    got = F.jacobian(f, tuple(mg.tensor(a) for a in arrays), **kw)
    got = got if isinstance(got[0], tuple) else (got,)
    _close(got, want, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name,f,arrays", SCALAR, ids=[c[0] for c in SCALAR])
def test_hessian_vhp_hvp_match_finite_differences_of_the_gradient(name, f, arrays):
    arrays = [a.copy() for a in arrays]

    def gradient(*xs):
        return F.vjp(f, xs)[1]
    want = _numeric_jacobian(gradient, arrays)          # want[i][j] = d grad_i / d x_j
    xs = tuple(mg.tensor(a) for a in arrays)
    h = F.hessian(f, xs)
    _close(h, want, rtol=1e-5, atol=1e-6)
    vs = tuple(mg.tensor(RNG.standard_normal(a.shape)) for a in arrays)
    hv = [sum(np.tensordot(want[i][j], vs[j].numpy(), vs[j].ndim) for j in range(len(xs)))
          for i in range(len(xs))]
    _close(F.hvp(f, xs, vs)[1], hv, rtol=1e-5, atol=1e-6)
    _close(F.vhp(f, xs, vs)[1], hv, rtol=1e-5, atol=1e-6)   # the Hessian is symmetric


def test_jvp_and_vjp_match_finite_differences():
    x = X.copy()
    jac = _numeric_jacobian(reduction, [x])[0][0]        # (3, 3, 4)
    t = RNG.standard_normal(x.shape)
    out, jv = F.jvp(reduction, mg.tensor(x), mg.tensor(t))
    np.testing.assert_allclose(jv.numpy(), np.tensordot(jac, t, 2), rtol=1e-5, atol=1e-7)
    u = RNG.standard_normal(3)
    out, vj = F.vjp(reduction, mg.tensor(x), mg.tensor(u))
    np.testing.assert_allclose(vj.numpy(), np.tensordot(u, jac, 1), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(out.numpy(), reduction(mg.tensor(x)).numpy())


def test_create_graph_results_differentiate_again():
    """The Hessian with create_graph=True is itself differentiable: its derivative (third
    order) matches finite differences of the Hessian."""
    def f(x):
        return (x.sin() * x.exp()).sum()
    x0 = V.copy()

    def hess_sum(a):
        return float(F.hessian(f, mg.tensor(a)).sum())
    want = np.zeros_like(x0)
    for i in range(x0.size):
        d = np.zeros_like(x0)
        d[i] = 1e-5
        want[i] = (hess_sum(x0 + d) - hess_sum(x0 - d)) / 2e-5
    x = mg.tensor(x0, requires_grad=True)
    h = F.hessian(f, x, create_graph=True)
    assert h.requires_grad
    (g,) = mg.grad(h.sum(), x)
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-5, atol=1e-6)
    # an input that requires grad keeps its history; the function's own use of x counts too
    _, (vj,) = F.vjp(lambda a: a.exp() * x, (x * 1,), (mg.ones(4),), create_graph=True)
    (gg,) = mg.grad(vj.sum(), x)
    np.testing.assert_allclose(gg.numpy(), np.exp(x0) * (x0 + 1), rtol=1e-10)


def test_results_without_create_graph_are_detached_and_inputs_untouched():
    x = mg.tensor(V, requires_grad=True)
    out, vj = F.vjp(lambda a: a ** 2, x, mg.ones(4))
    assert not out.requires_grad and not vj.requires_grad and x.grad is None
    out, vj = F.vjp(lambda a: a ** 2, x, mg.ones(4), create_graph=True)
    assert out.requires_grad and vj.requires_grad


def test_strict_mode_names_the_independent_input():
    def f(x, y):
        return x * 2
    xs = (mg.ones(2), mg.ones(2))
    with pytest.raises(RuntimeError, match="independent of input 1"):
        F.vjp(f, xs, mg.ones(2), strict=True)
    _, (gx, gy) = F.vjp(f, xs, mg.ones(2))
    assert gy.tolist() == [0.0, 0.0]
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function is "
                                           "independent of input 1"):
        F.jacobian(f, xs, strict=True)
    with pytest.raises(RuntimeError, match="does not require gradients"):
        F.vjp(lambda x: mg.ones(2), mg.ones(2), mg.ones(2), strict=True)
    with pytest.raises(RuntimeError, match="jacobian of the user-provided function with "
                                           "respect to input 0 is independent"):
        F.hessian(lambda x: x.sum(), mg.ones(2), strict=True)


def test_argument_errors_are_pytorchs():
    with pytest.raises(TypeError, match="must be either a Tensor or a tuple of Tensors"):
        F.vjp(lambda x: x, [1.0])
    with pytest.raises(RuntimeError, match="v can only be None if the user-provided function "
                                           "returns a single Tensor with a single element"):
        F.vjp(lambda x: x, mg.ones(2))
    with pytest.raises(RuntimeError, match="v has invalid size: should be"):
        F.vjp(lambda x: x, mg.ones(2), mg.ones(3))
    with pytest.raises(RuntimeError, match="should return a single Tensor"):
        F.hessian(lambda x: (x.sum(), x.sum()), mg.ones(2))
    with pytest.raises(RuntimeError, match="should contain a single element"):
        F.vhp(lambda x: x, mg.ones(2), mg.ones(2))
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        F.jacobian(lambda x: x, mg.ones(2), strategy="forward-mode")
    with pytest.raises(NotImplementedError, match="create_graph=True"):
        F.jacobian(lambda x: x, mg.ones(2), create_graph=True, strategy="forward-mode",
                   vectorize=True)
    with pytest.raises(RuntimeError, match="`strict=True` and `vectorized=True`"):
        F.jacobian(lambda x: x, mg.ones(2), strict=True, vectorize=True)
    with pytest.raises(ValueError, match="Expected strategy to be either"):
        F.jacobian(lambda x: x, mg.ones(2), strategy="sideways")


def test_shapes_follow_the_inputs_and_outputs():
    x, y = mg.ones(2, 3), mg.ones(4)
    j = F.jacobian(lambda a: a.sum(1), x)
    assert j.shape == [2, 2, 3]
    j = F.jacobian(lambda a, b: (a.sum(), b * 2), (x, y))
    assert [[list(t.shape) for t in row] for row in j] == [[[2, 3], [4]], [[4, 2, 3], [4, 4]]]
    h = F.hessian(lambda a, b: (a.sum() * b).sum(), (x, y))
    assert [[list(t.shape) for t in row] for row in h] == [[[2, 3, 2, 3], [2, 3, 4]],
                                                          [[4, 2, 3], [4, 4]]]
    assert F.jacobian(lambda a: a[:0], y).shape == [0, 4]


# ---- against PyTorch ------------------------------------------------------------------------
def _both(f, arrays, call):
    import torch
    got = call(mt, f, _inputs(mt, arrays))
    want = call(torch, f, _inputs(torch, arrays))
    return got, want


@pytest.mark.torch
@pytest.mark.parametrize("name,f,arrays", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("kw", [{}, {"vectorize": True},
                                {"vectorize": True, "strategy": "forward-mode"}],
                         ids=["rows", "vectorized", "forward"])
def test_jacobian_matches_pytorch(name, f, arrays, kw):
    pytest.importorskip("torch")
    got, want = _both(f, arrays, lambda ns, f, xs: ns.autograd.functional.jacobian(f, xs, **kw))
    _close(got, want)


@pytest.mark.torch
@pytest.mark.parametrize("name,f,arrays", CASES, ids=[c[0] for c in CASES])
def test_vjp_and_jvp_match_pytorch(name, f, arrays):
    torch = pytest.importorskip("torch")
    outs = f(*_inputs(torch, arrays))
    outs = outs if isinstance(outs, tuple) else (outs,)
    us = [RNG.standard_normal(tuple(o.shape)) for o in outs]
    ts = [RNG.standard_normal(a.shape) for a in arrays]
    for fn, vs in (("vjp", us), ("jvp", ts)):
        def call(ns, f, xs):
            v = _inputs(ns, vs)
            v = v if len(v) > 1 else v[0]
            return getattr(ns.autograd.functional, fn)(f, xs, v)
        got, want = _both(f, arrays, call)
        _close(got, want)


@pytest.mark.torch
@pytest.mark.parametrize("name,f,arrays", SCALAR, ids=[c[0] for c in SCALAR])
def test_second_order_functionals_match_pytorch(name, f, arrays):
    pytest.importorskip("torch")
    vs = [RNG.standard_normal(a.shape) for a in arrays]
    for fn in ("hvp", "vhp"):
        got, want = _both(f, arrays, lambda ns, f, xs: getattr(ns.autograd.functional, fn)(
            f, xs, _inputs(ns, vs)))
        _close(got, want)
    for kw in ({}, {"vectorize": True}, {"vectorize": True,
                                         "outer_jacobian_strategy": "forward-mode"}):
        got, want = _both(f, arrays, lambda ns, f, xs: ns.autograd.functional.hessian(
            f, xs, **kw))
        _close(got, want)


@pytest.mark.torch
def test_create_graph_results_differentiated_again_match_pytorch():
    torch = pytest.importorskip("torch")

    def run(ns):
        x, w, b = _inputs(ns, (X, W, B), requires_grad=True)
        out = []
        _, hv = ns.autograd.functional.hvp(lambda w: mlp(x, w, b), w, ns.ones_like(w),
                                           create_graph=True)
        out += ns.autograd.grad(hv.sum(), (x, w, b))
        h = ns.autograd.functional.hessian(lambda x: mlp(x, w, b), x, create_graph=True)
        out += ns.autograd.grad((h ** 2).sum(), (x, w, b))
        _, jv = ns.autograd.functional.jvp(lambda x: matmul(x, w), x, ns.ones_like(x),
                                           create_graph=True)
        out += ns.autograd.grad((jv * jv).sum(), (x, w))
        return out
    _close(run(mt), run(torch))


# ---- gradcheck and gradgradcheck ------------------------------------------------------------
def _double(arrays):
    return tuple(mt.tensor(a, dtype=mt.float64, requires_grad=True) for a in arrays)


@pytest.mark.parametrize("name,f,arrays", CASES, ids=[c[0] for c in CASES])
def test_gradcheck_and_gradgradcheck_pass_with_every_option(name, f, arrays):
    xs = _double(arrays)
    assert mt.autograd.gradcheck(f, xs, check_forward_ad=True, check_batched_grad=True,
                                 check_batched_forward_grad=True, check_grad_dtypes=True,
                                 nondet_tol=1e-12)
    assert mt.autograd.gradcheck(f, xs, fast_mode=True, check_forward_ad=True)
    assert mt.autograd.gradgradcheck(f, xs, check_fwd_over_rev=True)
    assert mt.autograd.gradgradcheck(f, xs, fast_mode=True)


def _wrong_second(t):
    """t ** 3 whose first derivative is right and whose second is lost: a hook on an
    intermediate replaces its gradient by a detached copy."""
    y = t * 1
    y.register_hook(lambda g: g.detach())
    return y ** 3


def test_gradcheck_finds_wrong_derivatives():
    x = _double((V,))
    with pytest.raises(mt.autograd.GradcheckError, match="Jacobian mismatch for output 0 with "
                                                         "respect to input 0"):
        mt.autograd.gradcheck(lambda t: t.detach() * t, x)
    assert mt.autograd.gradcheck(lambda t: t.detach() * t, x, raise_exception=False) is False
    assert mt.autograd.gradcheck(_wrong_second, x)
    with pytest.raises(mt.autograd.GradcheckError, match="mismatch"):
        mt.autograd.gradgradcheck(_wrong_second, x)
    with pytest.raises(mt.autograd.GradcheckError, match="mismatch"):
        mt.autograd.gradcheck(lambda t: t.detach() * t, x, fast_mode=True)


def test_gradcheck_argument_checks():
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        mt.autograd.gradcheck(lambda t: t, (mt.ones(2, dtype=mt.float64),))
    with pytest.raises(ValueError, match="check_forward_ad or check_backward_ad"):
        mt.autograd.gradcheck(lambda t: t, _double((V,)), check_backward_ad=False)
    with pytest.warns(UserWarning, match="not a double precision"):
        mt.autograd.gradcheck(lambda t: t * 2, (mt.ones(2, requires_grad=True),),
                              raise_exception=False)


# ---- the engine under these transforms ------------------------------------------------------
def test_create_graph_gradient_of_a_0d_operand_that_was_broadcast():
    """A 0-d tensor broadcast against a vector (``x * v``, ``loss / n``) gets a gradient that
    op_node.fit_graph reduces and reshapes to ``()``; under create_graph it calls
    ``t.reshape(*())``, which raises. jvp and forward-mode jacobians of such functions hit it."""
    x = mg.tensor(2.0, dtype=mg.float64, requires_grad=True)
    (g,) = mg.grad((x * mg.ones(3, dtype=mg.float64)).sum(), [x], create_graph=True)
    assert g.item() == 3.0
    _, t = F.jvp(lambda a: a * mg.ones(3, dtype=mg.float64), mg.tensor(2.0, dtype=mg.float64),
                 mg.tensor(1.0, dtype=mg.float64))
    assert t.tolist() == [1.0, 1.0, 1.0]


def test_third_derivative_through_matmul():
    """A Hessian-vector product by the double-backward trick (PyTorch's hvp) differentiates a
    gradient graph again with create_graph: the graph-mode gradient of ``x @ x.T`` writes into a
    view (a CopySlices node), which has no differentiable backward yet."""
    x = mg.tensor(X, requires_grad=True)
    (g,) = mg.grad((x @ x.T).tanh().sum(), [x], create_graph=True)
    (h,) = mg.grad(g.sum(), [x], create_graph=True)
    (t,) = mg.grad(h.sum(), [x])
    assert t.shape == x.shape
