"""Gradients of gradients: a WGAN-GP critic step (a gradient penalty, double backward through an
MLP) and a Hessian-vector product of an MLP's loss with respect to its parameters.

The same code runs on ``mutograd.compat.torch`` and on PyTorch (the module is passed in), with
the same initial weights. NumPy has no contestant: a hand-written double backward is not a floor
anyone writes.
"""
import numpy as np

from .workloads import frozen, workload


def _mlp(torch, dims, act):
    layers = []
    for i in range(len(dims) - 1):
        layers.append(torch.nn.Linear(dims[i], dims[i + 1]))
        if i < len(dims) - 2:
            layers.append(act(torch))
    return torch.nn.Sequential(*layers)


def _same_weights(torch, model, seed):
    """Deterministic weights from NumPy, so both frameworks start from the same model."""
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy((rng.standard_normal(tuple(p.shape)) * 0.1)
                                     .astype(np.float32)))


def _gradient_penalty_step(torch, size):
    rng = np.random.default_rng(0)
    real = torch.from_numpy(rng.standard_normal((size["batch"], size["dim"]), dtype=np.float32))
    fake = torch.from_numpy(rng.standard_normal((size["batch"], size["dim"]), dtype=np.float32))
    alpha = torch.from_numpy(rng.random((size["batch"], 1), dtype=np.float32))
    critic = _mlp(torch, [size["dim"], size["width"], size["width"], 1],
                  lambda t: t.nn.LeakyReLU(0.2))
    _same_weights(torch, critic, 1)
    opt = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.5, 0.9))

    def step():
        x_hat = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
        (g,) = torch.autograd.grad(critic(x_hat).sum(), x_hat, create_graph=True)
        penalty = ((g.norm(2, dim=1) - 1) ** 2).mean()
        loss = critic(fake).mean() - critic(real).mean() + 10 * penalty
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss
    return step


def _hvp(torch, size):
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.standard_normal((size["batch"], size["dims"][0]), dtype=np.float32))
    y = torch.from_numpy(rng.integers(0, size["dims"][-1], size["batch"]))
    model = _mlp(torch, size["dims"], lambda t: t.nn.Tanh())
    _same_weights(torch, model, 2)
    params = list(model.parameters())
    vs = [torch.from_numpy(rng.standard_normal(tuple(p.shape), dtype=np.float32)) for p in params]

    def unit():
        loss = torch.nn.functional.cross_entropy(model(x), y)
        grads = torch.autograd.grad(loss, params, create_graph=True)
        dot = sum((g * v).sum() for g, v in zip(grads, vs))
        return torch.autograd.grad(dot, params)
    return unit


@workload
class GradientPenaltyStep:
    name = "gradient_penalty_step"
    group = "gradients of gradients (create_graph)"
    desc = "WGAN-GP critic step: MLP 32-256-256-1, batch 256, gradient penalty, Adam"
    unit = "ms"
    full = frozen({"batch": 256, "dim": 32, "width": 256})
    tiny = frozen({"batch": 4, "dim": 3, "width": 5})

    def mutograd(size):
        import mutograd.compat.torch as torch
        return _gradient_penalty_step(torch, size)

    def torch(size):
        import torch
        return _gradient_penalty_step(torch, size)


@workload
class HessianVectorProduct:
    name = "hvp_mlp"
    group = "gradients of gradients (create_graph)"
    desc = "Hessian-vector product of an MLP's loss (64-128-128-10, tanh, batch 64) in its weights"
    unit = "ms"
    full = frozen({"batch": 64, "dims": (64, 128, 128, 10)})
    tiny = frozen({"batch": 3, "dims": (4, 5, 5, 3)})

    def mutograd(size):
        import mutograd.compat.torch as torch
        return _hvp(torch, size)

    def torch(size):
        import torch
        return _hvp(torch, size)
