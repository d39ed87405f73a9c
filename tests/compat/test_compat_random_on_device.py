"""The dialects' random functions draw on the input's place: on a (fake) device tensor they run,
their result stays on that place, and result and gradient equal the CPU's for the same seed (a
device generator seeded alike draws the same stream). tests/core/test_dropout_on_device.py does the
same for the main namespace's dropouts and the torch dialect's."""
import numpy as np
import pytest
from tests.helpers import seeded_draw

import mutograd.compat.paddle as paddle
import mutograd.compat.paddle.nn.functional as PF
import mutograd.compat.torch as torch

SHAPE = (2, 3, 4, 2)      # each case takes the leading dimensions it needs


def _prob(x):
    return (x.abs() / 2).detach()      # in [0, 0.75]: a probability


def _rate(x):
    return (x.abs() * 3).detach()


# name: (ndim, function, differentiable)
CASES = {
    "paddle F.alpha_dropout": (2, lambda x: PF.alpha_dropout(x, 0.3), True),
    "paddle F.feature_alpha_dropout": (4, lambda x: PF.feature_alpha_dropout(x, 0.3), True),
    "paddle nn.AlphaDropout": (2, lambda x: paddle.nn.AlphaDropout(0.3)(x), True),
    "paddle nn.FeatureAlphaDropout": (4, lambda x: paddle.nn.FeatureAlphaDropout(0.3)(x), True),
    "paddle F.dropout": (2, lambda x: PF.dropout(x, 0.3), True),
    "paddle F.dropout2d": (4, lambda x: PF.dropout2d(x, 0.3), True),
    "paddle F.gumbel_softmax": (2, lambda x: PF.gumbel_softmax(x), True),
    "paddle F.gumbel_softmax hard": (2, lambda x: PF.gumbel_softmax(x, hard=True), True),
    "paddle.bernoulli": (2, lambda x: paddle.bernoulli(_prob(x)), False),
    "paddle.poisson": (2, lambda x: paddle.poisson(_rate(x)), False),
    "paddle.standard_gamma": (2, lambda x: paddle.standard_gamma(_rate(x) + 0.5), False),
    "paddle.binomial": (2, lambda x: paddle.binomial((_rate(x) * 3).astype("int64"), _prob(x)),
                        False),
    "torch.poisson": (2, lambda x: torch.poisson(_rate(x)), False),
    "torch.binomial": (2, lambda x: torch.binomial((_rate(x) * 3).round(), _prob(x)), False),
}


@pytest.mark.parametrize("name", list(CASES))
def test_dialect_random_functions_run_on_a_device_and_equal_the_cpus(name, fake_gpu):
    ndim, f, differentiable = CASES[name]
    a = np.random.default_rng(1).uniform(-1.5, 1.5, SHAPE[:ndim])
    (cpu_out, cpu_grad), (dev_out, dev_grad) = (seeded_draw(f, a, where, differentiable)
                                                for where in ("cpu", "gpu:0"))
    np.testing.assert_array_equal(cpu_out, dev_out)
    np.testing.assert_array_equal(cpu_grad, dev_grad)
