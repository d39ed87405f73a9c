"""Every dropout and ``rrelu(training=True)`` draws its mask on the tensor's place: on a (fake)
device tensor it runs, its result stays on that place, and result and gradient equal the CPU's
for the same seed (a device generator seeded alike draws the same stream)."""
import numpy as np
import pytest

import mutograd as mg
import mutograd.compat.torch.nn.functional as TF
import mutograd.nn.functional as F

SHAPE = (2, 3, 4, 2, 2)   # 5-D; each case takes the leading dimensions it needs


def _inplace(f):
    # the ``_`` forms write their input: give them a non-leaf
    return lambda x: f(x * 1.0)


# the functions of the torch dialect: mutograd.nn.functional has no alpha dropouts or rrelu
CASES = {
    "dropout": (2, lambda x: F.dropout(x, 0.3)),
    "dropout-inplace": (2, _inplace(lambda x: F.dropout(x, 0.3, inplace=True))),
    "dropout1d": (3, lambda x: F.dropout1d(x, 0.4)),
    "dropout2d": (4, lambda x: F.dropout2d(x, 0.4)),
    "dropout3d": (5, lambda x: F.dropout3d(x, 0.4)),
    "alpha_dropout": (2, lambda x: TF.alpha_dropout(x, 0.3, training=True)),
    "feature_alpha_dropout": (4, lambda x: TF.feature_alpha_dropout(x, 0.3, training=True)),
    "rrelu": (2, lambda x: TF.rrelu(x, training=True)),
    "rrelu-inplace": (2, _inplace(lambda x: TF.rrelu(x, training=True, inplace=True))),
    "torch.dropout2d-inplace": (4, _inplace(lambda x: TF.dropout2d(x, 0.4, inplace=True))),
    "mg.dropout_": (2, _inplace(lambda x: mg.dropout_(x, 0.3))),
    "mg.feature_dropout_": (4, _inplace(lambda x: mg.feature_dropout_(x, 0.3))),
    "mg.alpha_dropout_": (2, _inplace(lambda x: mg.alpha_dropout_(x, 0.3, True))),
    "mg.feature_alpha_dropout_": (4, _inplace(lambda x: mg.feature_alpha_dropout_(x, 0.3,
                                                                                  True))),
    "mg.rrelu": (2, lambda x: mg.rrelu(x, training=True)),
    "mg.rrelu_": (2, _inplace(lambda x: mg.rrelu_(x, training=True))),
    "nn.Dropout": (2, lambda x: mg.nn.Dropout(0.3)(x)),
    "nn.Dropout1d": (3, lambda x: mg.nn.Dropout1d(0.3)(x)),
    "nn.Dropout2d": (4, lambda x: mg.nn.Dropout2d(0.3)(x)),
    "nn.Dropout3d": (5, lambda x: mg.nn.Dropout3d(0.3)(x)),
    "nn.AlphaDropout": (2, lambda x: mg.nn.AlphaDropout(0.3)(x)),
    "nn.FeatureAlphaDropout": (4, lambda x: mg.nn.FeatureAlphaDropout(0.3)(x)),
    "nn.RReLU": (2, lambda x: mg.nn.RReLU()(x)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_dropouts_run_on_a_device_and_equal_the_cpus(name, fake_gpu):
    ndim, f = CASES[name]
    a = np.random.default_rng(1).uniform(-1.5, 1.5, SHAPE[:ndim])
    outs, grads = [], []
    for where in ("cpu", "gpu:0"):
        x = mg.tensor(a, device=where, requires_grad=True)
        mg.seed(5)
        out = f(x)
        assert str(out.place) == where
        (out * mg.tensor(np.arange(out.numel(), dtype=np.float64).reshape(a.shape) % 7,
                         device=where)).sum().backward()
        outs.append(out.detach().cpu().numpy())
        grads.append(x.grad.cpu().numpy())
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(grads[0], grads[1])
    assert (outs[0] != a).any()       # something was dropped or scaled


def test_the_mask_is_the_gradient_of_dropout_on_a_device(fake_gpu):
    x = mg.ones([200], device="gpu:0", requires_grad=True)
    out = F.dropout2d(x.reshape(4, 50, 1, 1), 0.5)
    out.sum().backward()
    assert set(np.unique(x.grad.cpu().numpy())) == {0.0, 2.0}
    np.testing.assert_array_equal(x.grad.cpu().numpy(), out.detach().cpu().numpy().ravel())
