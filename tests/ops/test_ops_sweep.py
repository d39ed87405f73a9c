"""Property sweeps over random shapes: broadcasting binary ops and reductions against NumPy.

A bounded sample runs by default; set MUTOGRAD_SWEEP_EXAMPLES to sweep longer.
"""
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import mutograd as mg

EXAMPLES = int(os.environ.get("MUTOGRAD_SWEEP_EXAMPLES", "25"))
BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "maximum": np.maximum,
          "div": np.divide, "atan2": np.arctan2}


def _unbroadcast(g, shape):
    while g.ndim > len(shape):
        g = g.sum(0)
    for i, n in enumerate(shape):
        if n == 1 and g.shape[i] != 1:
            g = g.sum(i, keepdims=True)
    return g


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3,
                                                 max_side=4),
       name=st.sampled_from(sorted(BINARY)), seed=st.integers(0, 2 ** 16))
def test_binary_ops_broadcast_like_numpy_with_gradients(shapes, name, seed):
    rng = np.random.default_rng(seed)
    a, b = (rng.uniform(0.5, 2.0, s) * rng.choice([-1, 1], s) for s in shapes.input_shapes)
    x, y = mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True)
    out = getattr(mg, name)(x, y)
    np.testing.assert_allclose(out.numpy(), BINARY[name](a, b), rtol=1e-12)
    assert out.shape == list(shapes.result_shape)
    out.sum().backward()
    assert x.grad.shape == list(a.shape) and y.grad.shape == list(b.shape)
    if name in ("add", "sub", "mul"):
        ga = {"add": np.ones_like(out.numpy()), "sub": np.ones_like(out.numpy()),
              "mul": np.broadcast_to(b, out.shape)}[name]
        np.testing.assert_allclose(x.grad.numpy(), _unbroadcast(ga, a.shape), rtol=1e-12)


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None)
@given(a=hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
                    elements=st.floats(-3, 3)),
       name=st.sampled_from(["sum", "mean", "amax", "amin", "prod"]),
       keepdim=st.booleans(), data=st.data())
def test_reductions_over_any_axes_match_numpy(a, name, keepdim, data):
    axes = data.draw(st.lists(st.integers(0, a.ndim - 1), unique=True, max_size=a.ndim))
    axis = None if not axes else (axes[0] if name == "prod" else tuple(axes))
    ref = {"sum": np.sum, "mean": np.mean, "amax": np.amax, "amin": np.amin,
           "prod": np.prod}[name](a, axis=axis, keepdims=keepdim)
    got = getattr(mg, name)(mg.tensor(a), axis=axis, keepdim=keepdim)
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-12, atol=1e-12)


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None)
@given(shape=hnp.array_shapes(min_dims=1, max_dims=4, max_side=3), data=st.data())
def test_in_place_metadata_ops_equal_their_view_ops(shape, data):
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    perm = data.draw(st.permutations(range(len(shape))))
    x = mg.tensor(a)
    assert x.transpose_(perm=perm) is x
    np.testing.assert_array_equal(x.numpy(), np.transpose(a, perm))
    x.unsqueeze_(0).squeeze_(0)
    np.testing.assert_array_equal(x.numpy(), np.transpose(a, perm))
    y = mg.tensor(a)
    before = y.numpy()
    assert y.flatten_() is y
    assert y.shape == [a.size] and np.shares_memory(y.numpy(), before) and y._version == 1
