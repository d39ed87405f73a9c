"""``inplace=True`` in the functional activations and dropouts, and the top-level in-place
dropouts and rrelu (mutograd/nn/functional/activation.py and dropouts.py, as the torch dialect
exports them)."""
import math

import numpy as np
import pytest
import scipy.stats
from tests.helpers import counting

import mutograd as mg
import mutograd.compat.torch.nn.functional as F

A = np.array([[-2.0, -0.5, 0.0, 0.3], [1.2, -1.1, 2.5, -0.05]])
ACTS = [("celu", {"alpha": 1.5}), ("selu", {}), ("mish", {}), ("hardsigmoid", {}),
        ("threshold", {"threshold": 0.2, "value": -3.0}),
        ("hardtanh", {"min_val": -0.4, "max_val": 0.4}), ("rrelu", {})]


@pytest.mark.parametrize("name,kw", ACTS, ids=[a[0] for a in ACTS])
def test_inplace_flag_writes_the_input_and_equals_the_out_of_place_result(name, kw):
    f = getattr(F, name)
    out = f(mg.tensor(A), **kw)
    x = mg.tensor(A)
    y = f(x, inplace=True, **kw)
    assert y is x and x._version == 1 and out is not x
    np.testing.assert_array_equal(x.numpy(), out.numpy())
    leaf = mg.tensor(A, requires_grad=True)
    with pytest.raises(mg.InplaceError, match="leaf Variable"):
        f(leaf, inplace=True, **kw)
    np.testing.assert_array_equal(leaf.numpy(), A)


@pytest.mark.torch
@pytest.mark.parametrize("name,kw", ACTS, ids=[a[0] for a in ACTS])
def test_inplace_flag_values_and_gradients_match_pytorch(name, kw):
    torch = pytest.importorskip("torch")
    w = np.arange(8.0).reshape(2, 4) - 3
    t = torch.tensor(A, requires_grad=True)
    tout = getattr(torch.nn.functional, name)(t * 1.0, inplace=True, **kw)
    (tout * torch.tensor(w)).sum().backward()
    leaf = mg.tensor(A, requires_grad=True)
    out = getattr(F, name)(leaf * 1.0, inplace=True, **kw)
    (out * mg.tensor(w)).sum().backward()
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(leaf.grad.numpy(), t.grad.numpy(), rtol=1e-6, atol=1e-7)


def test_rrelu_training_draws_one_slope_per_element_with_its_gradient():
    leaf = mg.tensor(np.linspace(-3, 3, 2001), requires_grad=True)
    h = leaf * 1.0
    mg.seed(4)
    assert mg.rrelu_(h, 0.1, 0.3, training=True) is h
    x, y = leaf.numpy(), h.numpy()
    neg = x < 0
    slope = y[neg] / x[neg]
    assert slope.min() >= 0.1 and slope.max() <= 0.3
    assert scipy.stats.kstest(slope, scipy.stats.uniform(0.1, 0.2).cdf).pvalue > 1e-3
    np.testing.assert_array_equal(y[~neg], x[~neg])
    h.sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy()[neg], slope, rtol=1e-12)
    np.testing.assert_array_equal(leaf.grad.numpy()[~neg], 1.0)
    mg.seed(4)
    again = mg.rrelu(mg.tensor(x), 0.1, 0.3, training=True)
    np.testing.assert_array_equal(again.numpy(), y)
    with pytest.raises(ValueError, match="lower <= upper"):
        mg.rrelu(mg.tensor(x), 0.5, 0.2)


@pytest.mark.parametrize("name,shape,unit", [
    ("dropout", (40, 50), None), ("dropout1d", (8, 30, 5), (8, 30, 1)),
    ("dropout2d", (8, 30, 3, 3), (8, 30, 1, 1)), ("dropout3d", (6, 40, 2, 2, 2), (6, 40, 1, 1, 1)),
    ("dropout2d", (30, 3, 3), (30, 1, 1))])
def test_dropouts_zero_with_probability_p_and_scale_the_rest(name, shape, unit):
    p = 0.3
    a = np.random.default_rng(0).uniform(0.5, 1.5, shape)
    leaf = mg.tensor(a, requires_grad=True)
    h = leaf * 1.0
    mg.seed(9)
    assert getattr(F, name)(h, p, inplace=True) is h
    y = h.numpy()
    kept = y != 0
    np.testing.assert_allclose(y[kept], a[kept] / (1 - p), rtol=1e-12)
    if unit is not None:     # whole channels: every element of a channel shares its fate
        groups = kept.reshape(int(np.prod([s for s, u in zip(shape, unit) if u != 1])), -1)
        assert np.all(groups.all(-1) | ~groups.any(-1))
        n, drops = groups.shape[0], (~groups.any(-1)).sum()
    else:
        n, drops = kept.size, (~kept).sum()
    assert scipy.stats.binomtest(int(drops), int(n), p).pvalue > 1e-3
    h.sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), kept / (1 - p), rtol=1e-12)


def test_dropout_outside_training_returns_the_input_and_bad_p_is_refused():
    x = mg.ones(4)
    assert F.dropout(x, 0.5, training=False, inplace=True) is x and x._version == 0
    assert F.alpha_dropout(x, 0.5) is x
    for f in (F.dropout, F.dropout2d, F.alpha_dropout):
        with pytest.raises(ValueError, match="between 0 and 1, but got 1.5"):
            f(mg.ones([2, 2, 2, 2]), 1.5, True, True)
    with pytest.raises(ValueError, match="expected a 3-D or 4-D input"):
        F.dropout2d(mg.ones(3), 0.5)
    assert mg.dropout_(x, 0.5, False) is x and x._version == 0


def test_alpha_dropout_keeps_zero_mean_and_unit_variance():
    x = mg.tensor(np.random.default_rng(1).standard_normal(200_000))
    mg.seed(2)
    assert mg.alpha_dropout_(x, 0.2, True) is x
    y = x.numpy()
    assert abs(y.mean()) < 0.01 and abs(y.std() - 1) < 0.01
    dropped = np.unique(np.round(y, 12), return_counts=True)
    value = dropped[0][dropped[1].argmax()]
    a = 1 / math.sqrt(0.8 * (1 + 0.2 * 1.7580993408473766 ** 2))
    assert value == pytest.approx(a * -1.7580993408473766 + a * 1.7580993408473766 * 0.2)


def test_feature_alpha_dropout_drops_whole_channels():
    x = mg.ones([4, 50, 3, 3], dtype="float64")
    mg.seed(5)
    F.feature_alpha_dropout(x, 0.5, True, inplace=True)
    per = x.numpy().reshape(4, 50, -1)
    assert np.all(per.max(-1) == per.min(-1)) and len(np.unique(per)) == 2


def test_rrelu_in_place_allocates_only_its_slopes_and_copies_nothing():
    h = mg.ones([4, 8], requires_grad=True) * -1.0
    mg.memory.reset_peak()
    base = mg.memory.allocated()
    with counting() as c:
        y = F.rrelu(h, training=True, inplace=True)
    # one buffer for the slopes (the node keeps their array), no copy of h
    assert y is h and c["allocations"] == 1 and mg.memory.max_allocated() == base + h.nbytes
    with counting() as c:
        F.rrelu(h, training=False, inplace=True)
    assert c["bytes"] == 0 and c["allocations"] == 0
