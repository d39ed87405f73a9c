"""A physics-informed neural network (Raissi, Perdikaris and Karniadakis, 2019) in Paddle's API:
it solves u''(x) = -pi^2 sin(pi x) on [0, 1] with u(0) = u(1) = 0, whose solution is
sin(pi x). The residual needs the network's second derivative with respect to its input:
``paddle.grad`` twice, with ``create_graph=True``, so that the loss built from it can be
differentiated with respect to the weights.

Runs unmodified on mutograd:

    python -m mutograd run --as paddle examples/pinn_paddle.py --steps 300
    python examples/pinn_paddle.py --steps 300       # the same file on Paddle itself
"""
import argparse
import math
import time

import numpy as np
import paddle
import paddle.nn as nn


class PINN(nn.Layer):
    """u(x): a small tanh network (smooth, so its second derivative is too)."""

    def __init__(self, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(1, hidden), nn.Tanh(), nn.Linear(hidden, hidden),
                                 nn.Tanh(), nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x)


def source(x):
    return -math.pi ** 2 * paddle.sin(math.pi * x)


def residual(net, x):
    """u''(x) - f(x) at the collocation points ``x`` (shape [N, 1])."""
    x = x.detach()
    x.stop_gradient = False
    u = net(x)
    (u_x,) = paddle.grad(u, x, create_graph=True)
    (u_xx,) = paddle.grad(u_x, x, create_graph=True)
    return u_xx - source(x)


def pinn_loss(net, x_col, x_bc):
    """The mean squared residual plus the mean squared boundary values."""
    return (residual(net, x_col) ** 2).mean() + (net(x_bc) ** 2).mean()


def train_step(net, opt, x_col, x_bc):
    loss = pinn_loss(net, x_col, x_bc)
    loss.backward()
    opt.step()
    opt.clear_grad()
    return float(loss)


def collocation(rng, n):
    return rng.uniform(0, 1, (n, 1)).astype(np.float32)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--points", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    paddle.seed(args.seed)
    rng = np.random.default_rng(args.seed)
    net = PINN()
    opt = paddle.optimizer.Adam(learning_rate=args.lr, parameters=net.parameters())
    x_bc = paddle.to_tensor([[0.0], [1.0]])
    t0 = time.time()
    for step in range(args.steps):
        loss = train_step(net, opt, paddle.to_tensor(collocation(rng, args.points)), x_bc)
        if step % 50 == 0 or step == args.steps - 1:
            print(f"step {step}: loss {loss:.5f}")
    print(f"{args.steps} steps in {time.time() - t0:.2f}s")
    x = np.linspace(0, 1, 101, dtype=np.float32)[:, None]
    with paddle.no_grad():
        u = net(paddle.to_tensor(x)).numpy()
    err = np.sqrt(np.mean((u - np.sin(np.pi * x)) ** 2))
    print(f"RMS error against sin(pi x): {err:.4f}")


if __name__ == "__main__":
    main()
