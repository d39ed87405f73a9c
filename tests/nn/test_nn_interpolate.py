"""F.interpolate and nn.Upsample against PyTorch (values and gradients) and finite differences."""
import numpy as np
import pytest
from tests.helpers import numeric_grad

import mutograd as mg
import mutograd.nn.functional as F
from mutograd import nn

CASES = [
    ("nearest-2x", (1, 2, 3, 4), {"scale_factor": 2, "mode": "nearest"}),
    ("nearest-size", (2, 1, 5, 3), {"size": (3, 7), "mode": "nearest"}),
    ("nearest-exact", (1, 1, 5, 4), {"size": (3, 6), "mode": "nearest-exact"}),
    ("nearest-1d", (2, 3, 5), {"scale_factor": 1.5, "mode": "nearest"}),
    ("linear", (2, 2, 5), {"size": 8, "mode": "linear"}),
    ("linear-corners", (2, 2, 5), {"size": 8, "mode": "linear", "align_corners": True}),
    ("bilinear", (1, 2, 3, 4), {"scale_factor": 2, "mode": "bilinear"}),
    ("bilinear-down", (1, 1, 6, 7), {"size": (4, 3), "mode": "bilinear"}),
    ("bilinear-corners", (1, 2, 3, 4), {"size": (5, 7), "mode": "bilinear",
                                         "align_corners": True}),
    ("bilinear-odd-scale", (1, 1, 4, 5), {"scale_factor": (1.7, 0.6), "mode": "bilinear"}),
    ("trilinear", (1, 1, 2, 3, 4), {"scale_factor": 2, "mode": "trilinear"}),
    ("area", (1, 2, 7, 5), {"size": (3, 2), "mode": "area"}),
]


@pytest.mark.parametrize("name,shape,kw", CASES, ids=[c[0] for c in CASES])
def test_interpolate_gradient(name, shape, kw):
    x = np.random.default_rng(0).standard_normal(shape)
    t = mg.tensor(x, requires_grad=True)
    out = F.interpolate(t, **kw)
    w = np.random.default_rng(1).standard_normal(out.shape)
    (out * mg.tensor(w)).sum().backward()
    expected = numeric_grad(lambda a: float((F.interpolate(mg.tensor(a), **kw).numpy() * w)
                                            .sum()), [x.copy()])[0]
    np.testing.assert_allclose(t.grad.numpy(), expected, rtol=1e-6, atol=1e-8)


@pytest.mark.torch
@pytest.mark.parametrize("name,shape,kw", CASES, ids=[c[0] for c in CASES])
def test_interpolate_matches_pytorch(name, shape, kw):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(0).standard_normal(shape)
    t, r = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, ref = F.interpolate(t, **kw), torch.nn.functional.interpolate(r, **kw)
    assert out.shape == list(ref.shape)
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-12)
    out.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), r.grad.numpy(), rtol=1e-10, atol=1e-12)
    up = nn.Upsample(**kw)(mg.tensor(x))
    np.testing.assert_allclose(up.numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_interpolate_errors():
    x = mg.ones([1, 1, 4, 4])
    with pytest.raises(ValueError, match="mode must be one of"):
        F.interpolate(x, scale_factor=2, mode="bicubic")
    with pytest.raises(ValueError, match="needs 1 spatial dimension"):
        F.interpolate(x, scale_factor=2, mode="linear")
    with pytest.raises(ValueError, match="exactly one of size and scale_factor"):
        F.interpolate(x)
    with pytest.raises(ValueError, match="align_corners option can only be set"):
        F.interpolate(x, scale_factor=2, align_corners=True)
