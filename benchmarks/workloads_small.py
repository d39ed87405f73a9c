"""The training steps a new user writes first: a small MLP with Adam, and a small CNN on
28x28 images with SGD, momentum and a step learning-rate schedule.

Written with ``mutograd.nn`` / ``torch.nn`` and their ``optim``; both models get the same
initial weights (mutograd's, copied into PyTorch's) and the same data. NumPy has no contestant
here. Their arrays are small, so they measure the framework's per-op cost as much as the
arithmetic.
"""
from itertools import pairwise

import numpy as np

from .workloads import frozen, train_step, workload
from .workloads_nn import _copy_into_torch


def _mlp(nn, dims):
    """Linear layers of ``dims`` with ReLU between them."""
    mods = []
    for a, b in pairwise(dims):
        mods += [nn.Linear(a, b), nn.ReLU()]
    return nn.Sequential(*mods[:-1])


def _classes(size, shape):
    """Standard normal inputs of ``(batch, *shape)`` and integer labels (seeded)."""
    r = np.random.default_rng(0)
    x = r.standard_normal((size["batch"], *shape), dtype=np.float32)
    return x, r.integers(0, size["classes"], size["batch"])


def _torch_twin(build):
    """PyTorch's model ``build(torch.nn)`` with the initial weights of mutograd's
    ``build(mutograd.nn)``, seeded as the mutograd contestant seeds it."""
    import torch

    import mutograd as mg
    model = build(torch.nn)
    mg.seed(0)
    _copy_into_torch(build(mg.nn), model)
    return model


@workload
class SmallMlpAdam:
    name = "small_mlp_adam"
    group = "small models: one training step"
    desc = "small MLP step (64-128-128-10, Adam), batch 32"
    unit = "ms"
    full = frozen({"dims": (64, 128, 128, 10), "batch": 32, "classes": 10})
    tiny = frozen({"dims": (8, 16, 16, 3), "batch": 4, "classes": 3})

    def mutograd(size):
        import mutograd as mg
        x, y = _classes(size, size["dims"][:1])
        mg.seed(0)
        model = _mlp(mg.nn, size["dims"])
        opt = mg.optim.Adam(model.parameters(), lr=1e-3)
        return train_step(model, opt, mg.nn.functional.cross_entropy, mg.from_numpy(x),
                          mg.from_numpy(y))

    def torch(size):
        import torch
        x, y = _classes(size, size["dims"][:1])
        model = _torch_twin(lambda nn: _mlp(nn, size["dims"]))
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        return train_step(model, opt, torch.nn.functional.cross_entropy, torch.from_numpy(x),
                          torch.from_numpy(y))


def _cnn(nn, side):
    """Two 3x3 convolutions (8 and 16 channels), each with ReLU and a 2x2 max-pool, then one
    linear layer to 10 classes, on ``side`` x ``side`` single-channel images."""
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(16 * (side // 4) ** 2, 10))


def _scheduled(step, scheduler):
    """One unit: the training step, then the learning-rate schedule's step."""
    def unit():
        loss = step()
        scheduler.step()
        return loss
    return unit


# the schedule: lr 0.05, times 0.9 every 2 units (few enough units are timed that it stays
# far from float32's denormals)
LR, STEP_SIZE, GAMMA = 0.05, 2, 0.9


@workload
class SmallCnnSgd:
    name = "small_cnn_sgd"
    group = "small models: one training step"
    desc = "small CNN step (28x28, SGD with momentum, StepLR), batch 32"
    unit = "ms"
    full = frozen({"side": 28, "batch": 32, "classes": 10})
    tiny = frozen({"side": 8, "batch": 2, "classes": 10})

    def mutograd(size):
        import mutograd as mg
        x, y = _classes(size, (1, size["side"], size["side"]))
        mg.seed(0)
        model = _cnn(mg.nn, size["side"])
        opt = mg.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
        sched = mg.optim.lr_scheduler.StepLR(opt, step_size=STEP_SIZE, gamma=GAMMA)
        step = train_step(model, opt, mg.nn.functional.cross_entropy, mg.from_numpy(x),
                          mg.from_numpy(y))
        return _scheduled(step, sched)

    def torch(size):
        import torch
        x, y = _classes(size, (1, size["side"], size["side"]))
        model = _torch_twin(lambda nn: _cnn(nn, size["side"]))
        opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=STEP_SIZE, gamma=GAMMA)
        step = train_step(model, opt, torch.nn.functional.cross_entropy, torch.from_numpy(x),
                          torch.from_numpy(y))
        return _scheduled(step, sched)
