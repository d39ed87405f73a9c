"""Activation checkpointing: the same values and gradients as the plain run (random ops
included), less memory kept between forward and backward, PyTorch's import path."""
import warnings

import numpy as np
import pytest

import mutograd as mg
from mutograd import nn
from mutograd.autograd import checkpoint, checkpoint_sequential


def _net():
    mg.seed(0)
    return nn.Sequential(nn.Linear(16, 64), nn.GELU(), nn.Dropout(0.3), nn.Linear(64, 64),
                         nn.Tanh(), nn.LayerNorm(64), nn.Linear(64, 4))


def _grads(run):
    net = _net()
    x = mg.tensor(np.random.default_rng(0).standard_normal((8, 16)), requires_grad=True)
    mg.seed(5)                     # the same dropout masks in every variant
    y = run(net, x)
    (y * mg.tensor(np.arange(y.numel(), dtype=np.float64).reshape(y.shape))).sum().backward()
    return y.numpy(), x.grad.numpy(), [p.grad.numpy() for p in net.parameters()]


@pytest.mark.parametrize("how", ["checkpoint", "kwargs", "sequential"])
def test_checkpointed_values_and_gradients_equal_the_plain_run(how):
    runs = {"checkpoint": lambda net, x: checkpoint(net, x),
            "kwargs": lambda net, x: checkpoint(lambda t, scale: net(t) * scale, x, scale=2.0) / 2,
            "sequential": lambda net, x: checkpoint_sequential(net, 3, x)}
    want = _grads(lambda net, x: net(x))
    got = _grads(runs[how])
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-7)
    for a, b in zip(got[2], want[2]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


def test_checkpointing_keeps_less_memory_until_backward():
    import gc
    gc.collect()              # no other test's garbage freed in the middle of the counts
    gc.disable()
    try:
        _compare_kept_memory()
    finally:
        gc.enable()


def _compare_kept_memory():
    w = [nn.Parameter(mg.randn([256, 256]) * 0.05) for _ in range(6)]

    def block(x):
        for m in w:
            x = (x @ m).tanh()
        return x
    x = mg.randn([512, 256], requires_grad=True)
    kept = []
    for run in (block, lambda t: checkpoint(block, t)):
        before = mg.memory.allocated()
        y = run(x)
        kept.append(mg.memory.allocated() - before)
        y.sum().backward()
        del y
    # plain: six saved tanh outputs of 512x256 float32 (0.5 MiB each) and the result; checkpointed:
    # the result only
    assert kept[0] >= 6 * 512 * 256 * 4 and kept[1] <= 2 * 512 * 256 * 4


def test_checkpoint_warns_without_an_input_that_requires_grad():
    w = nn.Parameter(mg.ones([2]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = checkpoint(lambda t: t * w, mg.ones([2]))
    assert "None of the inputs have requires_grad=True" in str(caught[0].message)
    assert not y.requires_grad


def test_pytorch_import_path():
    import mutograd.compat as compat
    with compat.importing_as("torch"):
        from torch.utils.checkpoint import checkpoint as torch_checkpoint
    x = mg.ones([3], requires_grad=True)
    torch_checkpoint(lambda t: (t * t).sum(), x, use_reentrant=False).backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
