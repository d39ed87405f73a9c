"""Gradients of gradients (design.md rule 13): create_graph in every entry point, what the
gradient graph saves and how in-place writes meet it."""
import numpy as np
import pytest

import mutograd as mg
import mutograd.compat.paddle as paddle
import mutograd.compat.torch as torch


def test_second_derivative_in_every_namespace():
    for ns in (mg, torch):
        x = ns.tensor([1.0, 2.0], requires_grad=True)
        (g,) = ns.autograd.grad((x ** 3).sum(), x, create_graph=True)
        assert g.requires_grad and g.grad_fn is not None
        (h,) = ns.autograd.grad(g.sum(), x)
        assert g.tolist() == [3.0, 12.0] and h.tolist() == [6.0, 12.0]
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    (g,) = paddle.grad((x ** 3).sum(), x, create_graph=True)
    assert not g.stop_gradient
    (h,) = paddle.grad(g.sum(), x)
    assert h.tolist() == [6.0, 12.0]


def test_backward_with_create_graph_keeps_the_history_of_grad():
    x = mg.tensor([0.5, -1.0], dtype=mg.float64, requires_grad=True)
    (x.sin() * x).sum().backward(create_graph=True)
    g = x.grad
    assert g.grad_fn is not None
    want = np.sin([0.5, -1.0]) + np.array([0.5, -1.0]) * np.cos([0.5, -1.0])
    np.testing.assert_allclose(g.numpy(), want)
    (h,) = mg.grad(g.sum(), x)
    xs = np.array([0.5, -1.0])
    np.testing.assert_allclose(h.numpy(), 2 * np.cos(xs) - xs * np.sin(xs))
    # a second backward adds out of place, keeping both graphs
    (x * x).sum().backward(create_graph=True)
    assert x.grad is not g and x.grad.grad_fn is not None
    np.testing.assert_allclose(x.grad.numpy(), want + 2 * xs)


def test_gradients_are_differentiable_with_respect_to_grad_outputs():
    # the double-VJP: d/dv <J^T v, u> = J u, a forward-mode derivative
    x = mg.tensor([0.3, 0.7], dtype=mg.float64, requires_grad=True)
    v = mg.zeros(2, dtype=mg.float64, requires_grad=True)
    y = x.exp() * 3
    (gx,) = mg.grad(y, x, grad_outputs=v, create_graph=True)
    u = mg.tensor([1.0, -2.0], dtype=mg.float64)
    (jvp,) = mg.grad((gx * u).sum(), v)
    np.testing.assert_allclose(jvp.numpy(), 3 * np.exp([0.3, 0.7]) * [1.0, -2.0])


def test_a_write_to_a_tensor_the_gradient_graph_saved_is_the_version_error():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    (g,) = mg.grad((x ** 3).sum(), x, create_graph=True)
    with mg.no_grad():
        x.mul_(2)
    with pytest.raises(mg.VersionError, match=r"mul_ at .*test_higher_order.py"):
        mg.grad(g.sum(), x)


def test_in_place_writes_inside_the_function_and_into_the_gradient():
    xs = np.array([0.2, -0.4, 0.9])
    x = mg.tensor(xs, requires_grad=True)
    h = x * 2
    h.tanh_()                     # in place inside the function differentiated twice
    (g,) = mg.grad(h.sum(), x, create_graph=True)
    g.mul_(3)                     # a write into the first-order gradient
    g[0:1] += 1                   # and through a view of it
    (hh,) = mg.grad(g.sum(), x)
    t = np.tanh(2 * xs)
    np.testing.assert_allclose(hh.numpy(), 3 * 2 * (-2 * t) * (1 - t * t) * 2)


def test_third_order():
    x = mg.tensor([0.5, 1.5], dtype=mg.float64, requires_grad=True)
    y = (x.sin() * x.exp()).sum()
    (g1,) = mg.grad(y, x, create_graph=True)
    (g2,) = mg.grad(g1.sum(), x, create_graph=True)
    (g3,) = mg.grad(g2.sum(), x)
    xs = np.array([0.5, 1.5])
    # (sin e^x)''' = 2e^x(cos x - sin x)
    np.testing.assert_allclose(g3.numpy(), 2 * np.exp(xs) * (np.cos(xs) - np.sin(xs)))


def test_retain_graph_defaults_to_create_graph():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() * x).sum()
    mg.grad(y, x, create_graph=True)
    mg.grad(y, x)                 # the graph was kept
    with pytest.raises(mg.BackwardError, match="backward through the graph a second time"):
        mg.grad(y, x)


def _write_through_views(lib, make):
    x = make([0.3, -0.2, 0.5, 0.9], requires_grad=True)
    h = x * 1.5
    h[1:3].mul_(x[0:2].exp())     # writes through views inside the function
    h[2:].sin_()
    (g,) = lib.autograd.grad((h * h).sum(), x, create_graph=True)
    (hh,) = lib.autograd.grad((g * g).sum(), x)
    return g.detach().numpy(), hh.numpy()


@pytest.mark.torch
def test_writes_through_views_differentiated_twice_match_pytorch():
    torch_ = pytest.importorskip("torch")
    got = _write_through_views(mg, lambda d, **k: mg.tensor(np.array(d), **k))
    want = _write_through_views(torch_, lambda d, **k: torch_.tensor(np.array(d), **k))
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12)


class _Cube(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x * x


def test_a_custom_function_whose_backward_uses_mutograd_ops_differentiates_twice():
    x = mg.tensor([2.0, -1.0], requires_grad=True)
    (g,) = mg.grad(_Cube.apply(x).sum(), x, create_graph=True)
    (h,) = mg.grad(g.sum(), x)
    assert g.tolist() == [12.0, 3.0] and h.tolist() == [12.0, -6.0]


class _Exp(mg.autograd.Function):
    @staticmethod
    def forward(x):                       # the setup_context style: forward without ctx
        return x.exp()

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)

    @staticmethod
    @mg.autograd.once_differentiable
    def backward(ctx, g):
        (r,) = ctx.saved_tensors
        return g * r


def test_setup_context_style_and_once_differentiable():
    x = mg.tensor([0.0, 1.0], requires_grad=True)
    y = _Exp.apply(x)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.0, 1.0]), rtol=1e-6)
    v = mg.ones(2, requires_grad=True)
    (g,) = mg.grad(_Exp.apply(x), x, grad_outputs=v, create_graph=True)
    assert type(g.grad_fn).__name__ == "_OnceDifferentiable"
    with pytest.raises(mg.BackwardError, match="once_differentiable"):
        mg.grad(g.sum(), v)


def test_inplace_function_carries_its_flag():
    assert mg.autograd.InplaceFunction(inplace=True).inplace is True


def _under_hooks(lib, make):
    x = make([0.3, -0.7, 1.1], requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
        h = x * 2
        (g,) = lib.autograd.grad((h.sin() * h).sum(), x, create_graph=True)
        z = (g * g).sum()
    (hh,) = lib.autograd.grad(z, x)
    return g.detach().numpy(), hh.numpy()


def _mutation_allowed(lib, make):
    x = make([0.3, -0.7, 1.1], requires_grad=True)
    with lib.autograd.graph.allow_mutation_on_saved_tensors():
        h = x * 2
        (g,) = lib.autograd.grad((h.sin() * h).sum(), x, create_graph=True)
        z = (g * g).sum()
        with lib.no_grad():
            h.mul_(3)   # saved by both graphs: the old value is kept for both
        (hh,) = lib.autograd.grad(z, x)
    return g.detach().numpy(), hh.numpy()


@pytest.mark.torch
@pytest.mark.parametrize("program", [_under_hooks, _mutation_allowed])
def test_saved_tensor_policies_hold_for_second_order_graphs(program):
    torch_ = pytest.importorskip("torch")
    got = program(torch, lambda d, **k: torch.tensor(np.array(d), **k))
    want = program(torch_, lambda d, **k: torch_.tensor(np.array(d), **k))
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12)
