"""Training steps written with ``mutograd.nn`` / ``torch.nn``: the MLP of workloads_mlp.py as
layers, and the demo's CNN (``mutograd.cli.demo.build_model``) on 8x8 digit-sized inputs with Adam.

NumPy has no contestant here (no hand-written convolution backward); the raw-op MLP is the
NumPy floor. Both models get the same initial weights, copied from mutograd's into PyTorch's.
"""
from itertools import pairwise

import numpy as np

from .workloads import frozen, train_step, workload
from .workloads_mlp import LR, MLP_FULL, MLP_TINY, mlp_data


def _copy_into_torch(mg_model, torch_model):
    import torch
    with torch.no_grad():
        for p, q in zip(mg_model.parameters(), torch_model.parameters()):
            q.copy_(torch.from_numpy(np.ascontiguousarray(p.detach().numpy())))


class _NnMlp:
    group = "MLP training step with nn layers"
    unit = "ms"
    full, tiny = MLP_FULL, MLP_TINY
    inplace = False

    @classmethod
    def layers(cls, nn, dims):
        mods = []
        for i, (a, b) in enumerate(pairwise(dims)):
            mods.append(nn.Linear(a, b))
            if i < len(dims) - 2:
                mods.append(nn.ReLU(inplace=cls.inplace))
        return nn.Sequential(*mods)

    @classmethod
    def mutograd(cls, size):
        import mutograd as mg
        from mutograd import nn
        x, onehot, _, _ = mlp_data(size)
        labels = mg.from_numpy(onehot.argmax(axis=1))
        X = mg.from_numpy(x)
        mg.seed(0)
        model = cls.layers(nn, size["dims"])
        opt = mg.optim.SGD(model.parameters(), lr=LR)

        return train_step(model, opt, nn.functional.cross_entropy, X, labels)

    @classmethod
    def torch(cls, size):
        import torch

        import mutograd as mg
        from mutograd import nn as mnn
        x, onehot, _, _ = mlp_data(size)
        labels = torch.from_numpy(onehot.argmax(axis=1))
        X = torch.from_numpy(x)
        model = cls.layers(torch.nn, size["dims"])
        mg.seed(0)
        _copy_into_torch(cls.layers(mnn, size["dims"]), model)
        opt = torch.optim.SGD(model.parameters(), lr=LR)

        return train_step(model, opt, torch.nn.functional.cross_entropy, X, labels)


@workload
class NnMlpStep(_NnMlp):
    name = "nn_mlp_step"
    desc = "MLP step with nn.Linear/ReLU, cross_entropy, optim.SGD"


@workload
class NnMlpStepInplace(_NnMlp):
    name = "nn_mlp_step_inplace"
    desc = "the same with ReLU(inplace=True)"
    inplace = True


def _torch_cnn(inplace):
    from torch import nn
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(inplace=inplace),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(inplace=inplace),
        nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(32 * 4 * 4, 64), nn.ReLU(inplace=inplace),
        nn.Linear(64, 10))


def _digits(size):
    r = np.random.default_rng(0)
    x = r.random((size["batch"], 1, 8, 8), dtype=np.float32)
    y = r.integers(0, 10, size["batch"])
    return x, y


@workload
class CnnStep:
    name = "cnn_step"
    group = "the demo's CNN training step (python -m mutograd demo)"
    desc = "demo CNN step (2 conv, max-pool, 2 linear; Adam), in place"
    unit = "ms"
    full = frozen({"batch": 32})
    tiny = frozen({"batch": 2})

    def mutograd(size):
        import mutograd as mg
        from mutograd.cli.demo import build_model
        from mutograd.nn import functional as F
        x, y = _digits(size)
        X, Y = mg.from_numpy(x), mg.from_numpy(y)
        mg.seed(0)
        model = build_model(True)
        opt = mg.optim.Adam(model.parameters(), lr=5e-3, inplace=True)

        return train_step(model, opt, F.cross_entropy, X, Y)

    def torch(size):
        import torch

        import mutograd as mg
        from mutograd.cli.demo import build_model
        x, y = _digits(size)
        X, Y = torch.from_numpy(x), torch.from_numpy(y)
        model = _torch_cnn(True)
        mg.seed(0)
        _copy_into_torch(build_model(True), model)
        opt = torch.optim.Adam(model.parameters(), lr=5e-3)

        return train_step(model, opt, torch.nn.functional.cross_entropy, X, Y)
