"""MAML (Finn, Abbeel and Levine, 2017) on sine-wave regression: for each task an inner SGD step
on its support points, kept differentiable (``torch.autograd.grad(create_graph=True)``), then the
query loss of the adapted weights is differentiated through that step (second order) to update
the initial weights with Adam.

Runs unmodified on mutograd:

    python -m mutograd run --as torch examples/maml.py --steps 20
    python examples/maml.py --steps 20       # the same file on PyTorch itself
"""
import argparse
import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call


class Net(nn.Module):
    """The regressor whose initial weights MAML learns."""

    def __init__(self, hidden=40):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(1, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                                 nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x)


def sample_tasks(rng, n_tasks, k_shot=10, k_query=10):
    """Sine waves ``a sin(x - p)`` with amplitude in [0.1, 5] and phase in [0, pi]: for each,
    ``(x_support, y_support, x_query, y_query)`` as float32 NumPy arrays of shape (k, 1)."""
    tasks = []
    for _ in range(n_tasks):
        a, p = rng.uniform(0.1, 5.0), rng.uniform(0, math.pi)
        xs = rng.uniform(-5, 5, (k_shot + k_query, 1))
        ys = a * np.sin(xs - p)
        tasks.append(tuple(v.astype(np.float32) for v in (xs[:k_shot], ys[:k_shot],
                                                          xs[k_shot:], ys[k_shot:])))
    return tasks


def adapt(model, params, x, y, inner_lr, steps=1, first_order=False):
    """The weights after ``steps`` SGD steps on ``(x, y)``, as a function of ``params`` (unless
    ``first_order``, which treats the inner gradients as constants)."""
    for _ in range(steps):
        loss = F.mse_loss(functional_call(model, params, (x,)), y)
        grads = torch.autograd.grad(loss, list(params.values()), create_graph=not first_order)
        params = {k: p - inner_lr * g for (k, p), g in zip(params.items(), grads)}
    return params


def meta_loss(model, tasks, inner_lr, first_order=False):
    """The mean query loss over ``tasks`` after adapting to each task's support points."""
    total = 0.0
    for xs, ys, xq, yq in tasks:
        fast = adapt(model, dict(model.named_parameters()), torch.tensor(xs), torch.tensor(ys),
                     inner_lr, first_order=first_order)
        total = total + F.mse_loss(functional_call(model, fast, (torch.tensor(xq),)),
                                   torch.tensor(yq))
    return total / len(tasks)


def meta_step(model, opt, tasks, inner_lr, first_order=False):
    opt.zero_grad()
    loss = meta_loss(model, tasks, inner_lr, first_order)
    loss.backward()
    opt.step()
    return loss.item()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--tasks", type=int, default=5)
    parser.add_argument("--inner-lr", type=float, default=0.01)
    parser.add_argument("--meta-lr", type=float, default=1e-3)
    parser.add_argument("--first-order", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=args.meta_lr)
    t0 = time.time()
    for step in range(args.steps):
        loss = meta_step(model, opt, sample_tasks(rng, args.tasks), args.inner_lr,
                         args.first_order)
        if step % 10 == 0 or step == args.steps - 1:
            print(f"step {step}: meta loss {loss:.4f}")
    print(f"{args.steps} meta steps in {time.time() - t0:.2f}s")
    test = sample_tasks(np.random.default_rng(args.seed + 1), 20)
    with torch.no_grad():
        before = np.mean([float(F.mse_loss(model(torch.tensor(xq)), torch.tensor(yq)))
                          for _, _, xq, yq in test])
    after = meta_loss(model, test, args.inner_lr).item()
    print(f"query loss on new tasks: {before:.3f} before adapting, {after:.3f} after one step")


if __name__ == "__main__":
    main()
