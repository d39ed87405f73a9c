"""A small data-parallel training run on synthetic data.

    mpirun -n 2 python -m mutograd.cli.distributed_example --epochs 4 --checkpoint /tmp/ckpt.npz
    mpirun -n 2 python -m mutograd.cli.distributed_example --epochs 8 --checkpoint /tmp/ckpt.npz \
        --resume

Each rank trains the same three-class MLP on its share of every batch (DistributedSampler),
gradients are averaged in place during backward (DistributedDataParallel), rank 0 alone writes
the checkpoint (atomically: a temporary file, then a rename) and every rank can resume from it.
Runs on one process too (``python -m mutograd.cli.distributed_example``).
"""
import argparse
import os
import sys

import numpy as np

import mutograd as mg

from ..distributed import (DistributedDataParallel, DistributedSampler, barrier, init, rank,
                           world_size)


class MLP:
    """Two layers with a tanh between them, written without mutograd.nn."""

    def __init__(self, n_in, hidden, n_out, seed):
        rng = np.random.default_rng(seed)
        self.params = {
            "w1": rng.standard_normal((n_in, hidden)) / np.sqrt(n_in),
            "b1": np.zeros(hidden),
            "w2": rng.standard_normal((hidden, n_out)) / np.sqrt(hidden),
            "b2": np.zeros(n_out)}
        self.params = {k: mg.tensor(v, dtype="float32", requires_grad=True)
                       for k, v in self.params.items()}

    def named_parameters(self):
        return list(self.params.items())

    def parameters(self):
        return list(self.params.values())

    def __call__(self, x):
        p = self.params
        return mg.tanh(x @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"]


def make_data(n, seed=0):
    """Three noisy interleaved spirals in the plane: ``(x [n, 2] float32, labels [n] int64)``."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    t = rng.uniform(0.2, 1.0, n)
    angle = 2 * np.pi * (y / 3 + 0.6 * t)
    x = np.stack([t * np.cos(angle), t * np.sin(angle)], 1) + 0.04 * rng.standard_normal((n, 2))
    return x.astype(np.float32), y.astype(np.int64)


def cross_entropy(logits, labels):
    logp = mg.log_softmax(logits, axis=1)
    onehot = np.eye(logits.shape[1], dtype=np.float32)[labels]
    return -(logp * mg.tensor(onehot)).sum(axis=1).mean()


def save_checkpoint(path, model, epoch):
    """Rank 0 writes ``path`` atomically (no reader ever sees half a file); others wait."""
    if rank() == 0:
        tmp = f"{path}.tmp{os.getpid()}.npz"
        arrays = {k: p.numpy() for k, p in model.named_parameters()}
        np.savez(tmp, epoch=np.array(epoch), **arrays)
        os.replace(tmp, path)
    barrier()


def load_checkpoint(path, model):
    """Every rank reads the same file; returns the epoch to start from."""
    with np.load(path, allow_pickle=False) as f:
        with mg.no_grad():
            for k, p in model.named_parameters():
                p[...] = mg.tensor(f[k])
        return int(f["epoch"]) + 1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--batch-size", type=int, default=64, help="global batch (all ranks)")
    ap.add_argument("--samples", type=int, default=1536)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1.0)
    ap.add_argument("--checkpoint", help="npz path written by rank 0 after each epoch")
    ap.add_argument("--resume", action="store_true", help="start from --checkpoint if present")
    args = ap.parse_args(argv)
    init()
    r, n = rank(), world_size()
    if args.batch_size % n:
        raise SystemExit(f"--batch-size {args.batch_size} must be divisible by {n} ranks")
    x, y = make_data(args.samples)
    model = MLP(2, args.hidden, 3, seed=r)      # rank 0's weights are broadcast by DDP
    ddp = DistributedDataParallel(model)
    start = 0
    if args.resume and args.checkpoint and os.path.exists(args.checkpoint):
        start = load_checkpoint(args.checkpoint, model)
    sampler = DistributedSampler(range(len(x)), seed=1, drop_last=True)
    local = args.batch_size // n
    for epoch in range(start, args.epochs):
        sampler.set_epoch(epoch)
        idx = np.array(list(sampler))
        total = 0.0
        for i in range(0, len(idx) - local + 1, local):
            b = idx[i:i + local]
            loss = cross_entropy(ddp(mg.tensor(x[b])), y[b])
            loss.backward()
            with mg.no_grad():
                for p in model.parameters():
                    p.sub_(p.grad * args.lr)
                    p.grad.zero_()
            total += loss.item()
        with mg.no_grad():
            acc = float((model(mg.tensor(x)).argmax(1).numpy() == y).mean())
        if r == 0:
            print(f"epoch {epoch}: loss {total / (len(idx) // local):.4f}  "
                  f"accuracy {acc:.3f}  ({n} ranks)", flush=True)
        if args.checkpoint:
            save_checkpoint(args.checkpoint, model, epoch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
