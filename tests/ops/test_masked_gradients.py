"""Gradients that a mask cuts off are 0 even where the incoming gradient is inf or NaN, as
PyTorch's threshold_backward, where and masked_fill give them: ``relu(x).sqrt()`` at 0 sends an
inf gradient into relu, whose gradient there must be 0, not NaN."""
import numpy as np
import pytest

import mutograd as mg
import mutograd.compat.torch as mtorch
from mutograd.ops.gradients import masked

INF_INTO = {   # an op of x, written for both frameworks
    "relu": "torch.relu(x)", "relu_": "x.clone().relu_()", "relu6": "F.relu6(x)",
    "hardtanh": "F.hardtanh(x)", "leaky_relu": "F.leaky_relu(x)",
    "hardsigmoid": "F.hardsigmoid(x)", "threshold": "F.threshold(x, 0.5, 0.0)",
    "abs": "x.abs()", "clamp": "torch.clamp(x, 0.0, 1.0)", "clamp_min": "x.clamp(min=0.2)",
    "clamp_max": "x.clamp(max=0.2)", "clamp_tensor_bounds":
        "torch.clamp(x, torch.zeros(5, dtype=x.dtype), torch.ones(5, dtype=x.dtype))",
    "maximum": "torch.maximum(x, torch.zeros(5, dtype=x.dtype))",
    "minimum": "torch.minimum(x, torch.zeros(5, dtype=x.dtype))",
    "fmax": "torch.fmax(x, torch.zeros(5, dtype=x.dtype))",
    "max_pool1d": "F.max_pool1d(x.reshape(1, 1, 5), 2, 1).reshape(4)",
    "amax": "x.amax()", "max": "x.max()", "min_dim": "x.min(dim=0)[0]",
    "hardshrink": "F.hardshrink(x)", "softshrink": "F.softshrink(x)",
    "where": "torch.where(x > 0, x, 0.0)", "masked_fill": "x.masked_fill(x < 0, 0.0)",
    "prelu": "F.prelu(x, torch.tensor([0.25], dtype=x.dtype))", "elu": "F.elu(x)",
    "sort": "x.sort()[0][:2]", "index": "x[torch.tensor([0, 2])]", "narrow": "x.narrow(0, 1, 2)",
}


def _gradient(torch, expr, dtype):
    F = torch.nn.functional  # noqa: F841 - used by expr
    x = torch.tensor([-1.0, 0.0, 0.5, 2.0, 7.0], dtype=dtype, requires_grad=True)
    y = eval(expr)
    y.backward(torch.full(y.shape, float("inf"), dtype=dtype))
    return x.grad.detach().numpy()


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(INF_INTO))
def test_an_inf_gradient_into_a_mask_matches_pytorch(name, dtype):
    torch = pytest.importorskip("torch")
    with np.errstate(invalid="ignore"):
        mine = _gradient(mtorch, INF_INTO[name], getattr(mtorch, dtype))
    np.testing.assert_array_equal(mine, _gradient(torch, INF_INTO[name], getattr(torch, dtype)))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_masked_is_where_bit_for_bit(dtype):
    rng = np.random.default_rng(0)
    g = rng.standard_normal((6, 8)).astype(dtype)
    g[0, :3] = [np.inf, -np.inf, np.nan]
    g[1, 1] = -0.0
    keep = rng.random((6, 8)) < 0.5
    want = np.where(keep, g, dtype(0))
    for gi, ki, wi in ((g, keep, want), (g[:, ::2], keep[:, ::2], want[:, ::2]),
                       (g.T, keep.T, want.T)):
        got = masked(gi, ki, np)
        bits = f"u{g.itemsize}"   # -0.0 and NaN payloads too
        assert got.dtype == gi.dtype and np.array_equal(
            np.ascontiguousarray(got).view(bits), np.ascontiguousarray(wi).view(bits))
    into = g.copy()
    assert masked(into, keep, np, into=into) is into
    np.testing.assert_array_equal(into, want)


def test_relu_after_sqrt_at_zero_has_a_finite_gradient():
    x = mg.tensor([-1.0, 0.0, 4.0], requires_grad=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        mg.relu(x).sqrt().sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.25]


@pytest.mark.torch
@pytest.mark.parametrize("slope", [0.01, 0.2, 0.0, 1.0, 1.5, 3.0])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_leaky_relu_at_special_values_matches_pytorch(slope, dtype):
    # the forward is a maximum (or minimum) of x and x * slope, the gradient arithmetic on the
    # mask: signed zeros, infinities and NaN come out as PyTorch's
    torch = pytest.importorskip("torch")
    x = np.array([-2.0, -0.0, 0.0, 3.0, np.nan, np.inf, -np.inf, 1e-30], dtype=dtype)
    g = np.array([1.0, np.inf, -np.inf, 2.0, 3.0, 1.0, 1.0, np.nan], dtype=dtype)
    res = []
    for lib in (mtorch, torch):
        t = lib.tensor(x, requires_grad=True)
        with np.errstate(invalid="ignore"):
            y = lib.nn.functional.leaky_relu(t, slope)
            y.backward(lib.tensor(g))
        res.append((y.detach().numpy(), t.grad.numpy()))
    bits = f"u{x.itemsize}"
    assert np.array_equal(res[0][0].view(bits), res[1][0].view(bits))
    np.testing.assert_array_equal(res[0][1], res[1][1])
