"""Per-sample gradients with ``torch.func``: ``vmap(grad(...))`` over a batch gives every
example's own gradient in one batched pass. The program checks them against a loop of ordinary
backward passes, then trains a small classifier with them the way DP-SGD does (each example's
gradient clipped to a norm, the clipped gradients averaged, Gaussian noise added).

Runs unmodified on mutograd:

    python -m mutograd run --as torch examples/per_sample_grads.py --steps 30
    python examples/per_sample_grads.py --steps 30       # the same file on PyTorch itself
"""
import argparse
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, vmap


class Net(nn.Module):
    """A two-layer classifier."""

    def __init__(self, n_in=8, hidden=32, n_out=3):
        super().__init__()
        self.fc1 = nn.Linear(n_in, hidden)
        self.fc2 = nn.Linear(hidden, n_out)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


def blobs(n, seed=0, n_in=8, n_out=3):
    """Three Gaussian clusters (NumPy, so every framework sees the same numbers)."""
    rng = np.random.default_rng(seed)
    centers = np.random.default_rng(1234).standard_normal((n_out, n_in)) * 1.5
    y = rng.integers(0, n_out, n)
    x = centers[y] + rng.standard_normal((n, n_in))
    return x.astype(np.float32), y.astype(np.int64)


def per_sample_grads(model, x, y):
    """``{name: gradient of each example's loss}``, each of shape ``(batch, *param.shape)``."""
    params = {k: v.detach() for k, v in model.named_parameters()}

    def sample_loss(p, xi, yi):
        return F.cross_entropy(functional_call(model, p, (xi.unsqueeze(0),)), yi.unsqueeze(0))
    return vmap(grad(sample_loss), in_dims=(None, 0, 0))(params, x, y)


def loop_grads(model, x, y):
    """The same gradients, one backward pass per example."""
    out = {k: [] for k, _ in model.named_parameters()}
    for i in range(len(x)):
        model.zero_grad()
        F.cross_entropy(model(x[i:i + 1]), y[i:i + 1]).backward()
        for k, p in model.named_parameters():
            out[k].append(p.grad.detach().clone())
    model.zero_grad()
    return {k: torch.stack(v) for k, v in out.items()}


def clipped_mean(grads, clip):
    """Each example's gradient scaled to a norm of at most ``clip`` (over all parameters), then
    averaged; also returns the norms before clipping."""
    n = next(iter(grads.values())).shape[0]
    norms = torch.sqrt(sum((g.reshape(n, -1) ** 2).sum(1) for g in grads.values()))
    factor = (clip / (norms + 1e-6)).clamp(max=1.0)
    mean = {k: (g * factor.reshape((n,) + (1,) * (g.dim() - 1))).mean(0)
            for k, g in grads.items()}
    return mean, norms


def dp_sgd_step(model, x, y, lr=0.5, clip=1.0, noise=0.0, rng=None):
    """One step of SGD on clipped per-example gradients (plus noise of ``noise * clip`` / batch);
    returns the batch's loss before the step."""
    with torch.no_grad():
        loss = F.cross_entropy(model(x), y)
    mean, _ = clipped_mean(per_sample_grads(model, x, y), clip)
    with torch.no_grad():
        for k, p in model.named_parameters():
            g = mean[k]
            if noise:
                g = g + torch.tensor(rng.standard_normal(tuple(g.shape)) * noise * clip / len(x),
                                     dtype=g.dtype)
            p.sub_(lr * g)
    return float(loss)


@torch.no_grad()
def accuracy(model, x, y):
    return float((model(x).argmax(1) == y).float().mean())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.5)
    parser.add_argument("--clip", type=float, default=1.0)
    parser.add_argument("--noise", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    model = Net()
    xs, ys = blobs(args.batch * max(args.steps, 1), seed=args.seed)
    x, y = torch.tensor(xs[:args.batch]), torch.tensor(ys[:args.batch])

    t0 = time.time()
    fast = per_sample_grads(model, x, y)
    t1 = time.time()
    slow = loop_grads(model, x, y)
    t2 = time.time()
    diff = max(float((fast[k] - slow[k]).abs().max()) for k in fast)
    print(f"per-sample gradients of {args.batch} examples: vmap(grad) {1e3 * (t1 - t0):.1f} ms, "
          f"a loop {1e3 * (t2 - t1):.1f} ms, largest difference {diff:.2e}")

    for step in range(args.steps):
        b = slice(step * args.batch, (step + 1) * args.batch)
        loss = dp_sgd_step(model, torch.tensor(xs[b]), torch.tensor(ys[b]), args.lr, args.clip,
                           args.noise, rng)
        if step % 10 == 0 or step == args.steps - 1:
            print(f"step {step}: loss {loss:.4f}")
    xt, yt = blobs(500, seed=args.seed + 1)
    print(f"test accuracy {accuracy(model, torch.tensor(xt), torch.tensor(yt)):.3f}")


if __name__ == "__main__":
    main()
