"""The in-place surface in the compat namespaces: every Paddle name as ``paddle.X_``,
``Tensor.X_`` and ``paddle.nn.functional.X_``; every PyTorch name as ``torch.X_`` where PyTorch
has it, ``Tensor.X_``, ``torch.nn.functional.X_`` and ``inplace=True``."""
import numpy as np
import pytest

import mutograd as mg
from mutograd.ops import inplace_surface as surface


@pytest.fixture(scope="module")
def ns():
    import mutograd.compat.paddle.nn.functional as pf
    import mutograd.compat.torch.nn.functional as tf
    from mutograd.compat import paddle, torch
    return {"paddle": paddle, "paddle_f": pf, "torch": torch, "torch_f": tf}


@pytest.mark.parametrize("framework", ["paddle", "torch"])
def test_every_inplace_name_exists_in_the_compat_namespace_in_its_forms(ns, framework):
    names = surface.PADDLE_INPLACE if framework == "paddle" else surface.TORCH_INPLACE
    top, functional = ns[framework], ns[framework + "_f"]
    missing = []
    for n in names:
        f = surface.FORMS[n][framework]
        # a name we offer as paddle.X_ / torch.X_ even where the framework has only a method
        if not callable(getattr(top, n, None)) or not callable(getattr(mg.Tensor, n, None)) \
                or not callable(getattr(top.Tensor, n, None)):
            missing.append(n)
        if "functional" in f and not callable(getattr(functional, n, None)):
            missing.append("nn.functional." + n)
    assert missing == []


_SHAPES = {"dropout1d": (1, 2, 2), "dropout3d": (1, 1, 1, 2, 2)}
_ARGS = {"threshold": (0.1, -1.0)}


@pytest.mark.parametrize("name", surface.TORCH_FUNCTIONAL)
def test_torch_functional_inplace_flag_returns_the_input(ns, name):
    f = getattr(ns["torch_f"], name)
    a = np.array([-1.5, 0.5, 2.0, -0.25]).reshape(_SHAPES.get(name, (1, 1, 2, 2)))
    x = mg.tensor(a)
    mg.seed(1)
    y = f(x, *_ARGS.get(name, ()), inplace=True)
    assert y is x
    mg.seed(1)
    out = f(mg.tensor(a), *_ARGS.get(name, ()))
    np.testing.assert_array_equal(x.numpy(), out.numpy())
    # alpha dropouts default to training=False (nothing to write); every other one writes
    assert x._version == (0 if "alpha" in name else 1)


def test_paddle_functional_inplace_forms(ns):
    pf = ns["paddle_f"]
    x = mg.tensor([-2.0, 0.5, 3.0])
    assert pf.hardtanh_(x, -1.0, 1.0) is x and x.tolist() == [-1.0, 0.5, 1.0]
    assert pf.thresholded_relu_(x, 0.7) is x and x.tolist() == [0.0, 0.0, 1.0]
    s = mg.tensor([[1.0, 2.0], [3.0, 5.0]])
    assert pf.softmax_(s, axis=0) is s
    np.testing.assert_allclose(s.numpy().sum(0), [1.0, 1.0])
    w = mg.tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
    assert pf.embedding_renorm_(mg.tensor([0, 1]), w, 1.0) is w
    np.testing.assert_allclose(w.numpy(), [[0.6, 0.8], [0.3, 0.4], [6.0, 8.0]], rtol=1e-6)


def test_torch_argument_orders(ns):
    torch = ns["torch"]
    x = mg.zeros([5, 2])
    assert x.fill_diagonal_(1.0, True) is x       # PyTorch: (fill_value, wrap)
    assert x.tolist() == [[1, 0], [0, 1], [0, 0], [1, 0], [0, 1]]
    w = mg.tensor([[3.0, 4.0], [1.0, 0.0]])
    assert torch.embedding_renorm_(w, mg.tensor([0]), 2.5, 2.0) is w
    np.testing.assert_allclose(w.numpy()[0], [1.5, 2.0], rtol=1e-6)
    v = mg.tensor([1.5], dtype="float64")
    np.testing.assert_allclose(torch.polygamma(1, v).numpy(),
                               ns["paddle"].polygamma(v, 1).numpy())


def test_paddle_rrelu_trains_by_default(ns):
    x = mg.tensor(-np.ones(1000))
    mg.seed(3)
    y = ns["paddle_f"].rrelu(x)
    assert len(np.unique(y.numpy())) > 100 and y.numpy().max() <= -1 / 8
