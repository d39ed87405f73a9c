"""The main namespace's random functions of a tensor draw on its place: ``bernoulli``,
``multinomial`` and ``gumbel_softmax`` on a (fake) device tensor run, keep their result on that
place, and result and gradient equal the CPU's for the same seed (a device generator seeded
alike draws the same stream). tests/core/test_dropout_on_device.py does the same for the dropouts,
tests/compat/test_compat_random_on_device.py for the dialects' own random functions."""
import numpy as np
import pytest
from tests.helpers import seeded_draw

import mutograd as mg
import mutograd.compat.torch as torch
import mutograd.compat.torch.nn.functional as TF
import mutograd.nn.functional as F

SHAPE = (3, 5)


def _prob(x):
    return (x.abs() / 2).detach()      # in [0, 0.75]: a probability


def _weights(x):
    return (x.abs() + 0.01).detach()   # positive weights


# name: (function, differentiable)
CASES = {
    "Tensor.bernoulli": (lambda x: _prob(x).bernoulli(), False),
    "Tensor.bernoulli p": (lambda x: _prob(x).bernoulli(0.3), False),
    "torch.bernoulli": (lambda x: torch.bernoulli(_prob(x)), False),
    "torch.bernoulli generator": (
        lambda x: torch.bernoulli(_prob(x), generator=mg.Generator(x.place).manual_seed(3)),
        False),
    "multinomial replacement": (lambda x: mg.multinomial(_weights(x), 7, replacement=True),
                                False),
    "multinomial": (lambda x: mg.multinomial(_weights(x), 4), False),
    "multinomial 1-D": (lambda x: mg.multinomial(_weights(x)[0], 3), False),
    "multinomial generator": (
        lambda x: mg.multinomial(_weights(x), 4, generator=mg.Generator(x.place).manual_seed(3)),
        False),
    "Tensor.multinomial sparse": (
        lambda x: (_weights(x) * (x > 0)).multinomial(1), False),
    "torch.multinomial": (lambda x: torch.multinomial(_weights(x), 5, replacement=True), False),
    "F.gumbel_softmax": (lambda x: F.gumbel_softmax(x, tau=0.7), True),
    "F.gumbel_softmax hard": (lambda x: F.gumbel_softmax(x, hard=True, dim=0), True),
    "torch F.gumbel_softmax hard": (lambda x: TF.gumbel_softmax(x, hard=True), True),
}


@pytest.mark.parametrize("name", list(CASES))
def test_random_functions_run_on_a_device_and_equal_the_cpus(name, fake_gpu):
    f, differentiable = CASES[name]
    a = np.random.default_rng(1).uniform(-1.5, 1.5, SHAPE)
    (cpu_out, cpu_grad), (dev_out, dev_grad) = (seeded_draw(f, a, where, differentiable)
                                                for where in ("cpu", "gpu:0"))
    np.testing.assert_array_equal(cpu_out, dev_out)
    np.testing.assert_array_equal(cpu_grad, dev_grad)


@pytest.mark.parametrize("name", list(CASES))
def test_a_draw_on_a_device_leaves_the_host_generator_alone(name, fake_gpu):
    """The device's generator draws: the CPU's stream is where the seed left it."""
    f, _ = CASES[name]
    x = mg.tensor(np.random.default_rng(1).uniform(-1.5, 1.5, SHAPE), device="gpu:0")
    mg.seed(5)
    seeded = mg.random.get_state()
    f(x)
    assert mg.random.get_state() == seeded


def test_multinomial_without_replacement_on_a_device_draws_distinct_categories(fake_gpu):
    w = mg.tensor(np.random.default_rng(2).uniform(0.1, 1.0, (50, 6)), device="gpu:0")
    mg.seed(0)
    out = mg.multinomial(w, 6).cpu().numpy()
    assert (np.sort(out, axis=1) == np.arange(6)).all()


def test_multinomial_zero_weights_are_never_drawn_on_a_device(fake_gpu):
    w = mg.tensor([[0.0, 1.0, 0.0, 2.0]] * 20, device="gpu:0")
    mg.seed(0)
    out = mg.multinomial(w, 50, replacement=True).cpu().numpy()
    assert set(np.unique(out)) == {1, 3}
    assert set(np.unique(mg.multinomial(w, 2).cpu().numpy())) == {1, 3}


@pytest.mark.parametrize("bad, message", [
    ([[1.0, -1.0]], "element < 0"), ([[0.0, 0.0]], "sum of probabilities"),
    ([[1.0, float("nan")]], "inf, nan")])
def test_multinomial_checks_its_weights_on_a_device(bad, message, fake_gpu):
    with pytest.raises(ValueError, match=message):
        mg.multinomial(mg.tensor(bad, device="gpu:0"), 1)


def test_gumbel_softmax_gradient_on_a_device_is_the_soft_samples(fake_gpu):
    """hard=True is straight-through: the gradient is the soft sample's, the forward one-hot."""
    a = np.random.default_rng(3).normal(size=SHAPE)
    x = mg.tensor(a, device="gpu:0", requires_grad=True)
    mg.seed(1)
    hard = F.gumbel_softmax(x, hard=True)
    hard.sum().backward()
    assert set(np.unique(hard.detach().cpu().numpy())) == {0.0, 1.0}
    np.testing.assert_array_equal(hard.detach().cpu().numpy().sum(-1), np.ones(SHAPE[0]))
    np.testing.assert_allclose(x.grad.cpu().numpy(), 0.0, atol=1e-12)   # rows of a softmax
