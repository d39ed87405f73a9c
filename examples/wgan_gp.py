"""WGAN-GP (Gulrajani et al., 2017) on a 2-D mixture of eight Gaussians. The critic's loss holds
the gradient penalty: the gradient of the critic with respect to points between real and fake
samples, taken with ``create_graph=True`` so that the penalty itself is differentiated (double
backprop) when the critic is updated.

Runs unmodified on mutograd:

    python -m mutograd run --as torch examples/wgan_gp.py --steps 50
    python examples/wgan_gp.py --steps 50       # the same file on PyTorch itself
"""
import argparse
import math
import time

import numpy as np
import torch
import torch.nn as nn


def mlp(n_in, n_out, hidden=64):
    return nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                         nn.ReLU(), nn.Linear(hidden, n_out))


def real_samples(rng, n, std=0.05):
    """Points around eight centres on a circle of radius 2 (float32 NumPy)."""
    k = rng.integers(0, 8, n)
    centres = 2 * np.stack([np.cos(k * math.pi / 4), np.sin(k * math.pi / 4)], 1)
    return (centres + std * rng.standard_normal((n, 2))).astype(np.float32)


def noise(rng, n, dim=2):
    return rng.standard_normal((n, dim)).astype(np.float32)


def gradient_penalty(critic, real, fake, alpha):
    """``mean((|grad_x critic(x)| - 1)^2)`` at ``x = alpha real + (1 - alpha) fake``."""
    x = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    (g,) = torch.autograd.grad(critic(x).sum(), x, create_graph=True)
    return ((g.norm(2, dim=1) - 1) ** 2).mean()


def critic_loss(critic, generator, real, z, alpha, gp_weight=10.0):
    fake = generator(z).detach()
    return (critic(fake).mean() - critic(real).mean()
            + gp_weight * gradient_penalty(critic, real, fake, alpha))


def generator_loss(critic, generator, z):
    return -critic(generator(z)).mean()


def train_step(critic, generator, opt_c, opt_g, rng, batch, critic_iters):
    """``critic_iters`` critic updates, then one generator update; returns both losses."""
    for _ in range(critic_iters):
        real = torch.tensor(real_samples(rng, batch))
        z = torch.tensor(noise(rng, batch))
        alpha = torch.tensor(rng.uniform(0, 1, (batch, 1)).astype(np.float32))
        opt_c.zero_grad()
        lc = critic_loss(critic, generator, real, z, alpha)
        lc.backward()
        opt_c.step()
    opt_g.zero_grad()
    lg = generator_loss(critic, generator, torch.tensor(noise(rng, batch)))
    lg.backward()
    opt_g.step()
    return lc.item(), lg.item()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--critic-iters", type=int, default=5)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    critic, generator = mlp(2, 1), mlp(2, 2)
    opt_c = torch.optim.Adam(critic.parameters(), lr=args.lr, betas=(0.5, 0.9))
    opt_g = torch.optim.Adam(generator.parameters(), lr=args.lr, betas=(0.5, 0.9))
    t0 = time.time()
    for step in range(args.steps):
        lc, lg = train_step(critic, generator, opt_c, opt_g, rng, args.batch, args.critic_iters)
        if step % 10 == 0 or step == args.steps - 1:
            print(f"step {step}: critic loss {lc:.4f}, generator loss {lg:.4f}")
    print(f"{args.steps} steps in {time.time() - t0:.2f}s")
    with torch.no_grad():
        fake = generator(torch.tensor(noise(rng, 1000))).numpy()
    radius = np.sqrt((fake ** 2).sum(1))
    print(f"generated points: mean radius {radius.mean():.3f} (the modes lie at radius 2)")


if __name__ == "__main__":
    main()
