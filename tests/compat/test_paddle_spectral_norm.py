"""Gradients of Paddle-named spectral normalisation against float64 central differences
(Paddle 3.3.1's SpectralNorm layer returns a gradient that is not its output's derivative, so
the recorded reference (tests/references/paddle_api_cases.py) holds its values only)."""
import numpy as np
import pytest

import mutograd as mg
import mutograd.compat.paddle as paddle


def _numeric(f, x, eps=1e-6):
    num = np.zeros_like(x)
    for i in range(x.size):
        d = np.zeros_like(x)
        d.flat[i] = eps
        num.flat[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return num


@pytest.mark.parametrize("shape, dim, iters", [([3, 4], 0, 1), ([3, 2, 4], 1, 3),
                                               ([2, 3, 2], 1, 2)])
def test_spectral_norm_layer_gradient_is_the_derivative(shape, dim, iters):
    mg.set_default_dtype("float64")
    try:
        layer = paddle.nn.SpectralNorm(shape, dim=dim, power_iters=iters, dtype="float64")
        rng = np.random.default_rng(len(shape) + dim)
        x = rng.uniform(-2, 2, shape)
        w = rng.standard_normal(shape)

        def f(a):
            # u and v are held constant: the power iteration starts from the same vectors
            # and, as Paddle's layer, does not write them back
            return float((layer(paddle.to_tensor(a)) * paddle.to_tensor(w)).sum())

        t = paddle.to_tensor(x, stop_gradient=False)
        (layer(t) * paddle.to_tensor(w)).sum().backward()
        # the derivative with u and v fixed at their iterated values
        u, v = layer.weight_u.numpy().copy(), layer.weight_v.numpy().copy()
        m = np.moveaxis(x, dim, 0).reshape(shape[dim], -1)
        for _ in range(iters):
            v = m.T @ u / (np.linalg.norm(m.T @ u) + 1e-12)
            u = m @ v / (np.linalg.norm(m @ v) + 1e-12)

        def fixed(a):
            ma = np.moveaxis(a, dim, 0).reshape(shape[dim], -1)
            return float((a / (u @ ma @ v) * w).sum())
        np.testing.assert_allclose(t.grad.numpy(), _numeric(fixed, x), rtol=1e-5, atol=1e-7)
        assert abs(f(x) - fixed(x)) < 1e-9
    finally:
        mg.set_default_dtype("float32")


def test_spectral_norm_hook_twice_is_refused():
    lin = paddle.nn.spectral_norm(paddle.nn.Linear(3, 4))
    with pytest.raises(RuntimeError):
        paddle.nn.spectral_norm(lin)
    with pytest.raises(ValueError):
        paddle.nn.spectral_norm(paddle.nn.Linear(3, 4), n_power_iterations=0)


def test_fractional_max_pool2d_draws_random_u_and_checks_it():
    x = paddle.rand([1, 2, 7, 7])
    assert list(paddle.nn.functional.fractional_max_pool2d(x, 3).shape) == [1, 2, 3, 3]
    with pytest.raises(ValueError):
        paddle.nn.functional.fractional_max_pool2d(x, 3, random_u=1.0)
