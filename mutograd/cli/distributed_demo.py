"""``mpirun -n 2 python -m mutograd demo --distributed``: the demo's CNN trained data-parallel.

Also ``mpirun -n 2 python -m mutograd.cli.distributed_demo [--quick] [--epochs N] [--resume]``.

Every rank builds the same model (rank 0's weights are broadcast), takes its share of each
global batch of ``--batch-size`` images (DistributedSampler, reshuffled per epoch), and the
gradients are averaged in place during backward (DistributedDataParallel), so the run computes
what one process would on the whole batch. Rank 0 alone prints and writes the checkpoint after
every epoch (atomically: ``mutograd.save`` writes a temporary file and renames it); with
``--resume`` every rank loads it and goes on from the next epoch.
"""
import os
import sys
import time

import numpy as np

import mutograd as mg
from mutograd.nn import functional as F

from ..distributed import (DistributedDataParallel, DistributedSampler, all_reduce_, barrier,
                           init, rank, world_size)
from .demo import accuracy, build_model
from .demo import main as demo_main


def run(args, train_set, test_set, epochs, batch_size=32, lr=3e-3):
    """Train on every rank; returns the exit status."""
    init()
    r, n = rank(), world_size()
    if batch_size % n:
        raise SystemExit(f"mutograd demo --distributed: the batch of {batch_size} does not "
                         f"split over {n} ranks")
    mg.seed(args.seed + r)          # different on purpose: construction broadcasts rank 0's
    model = build_model(True)
    ddp = DistributedDataParallel(model)
    opt = mg.optim.Adam(model.parameters(), lr=lr, inplace=True)
    ckpt = os.path.join(args.out, "digits_cnn_distributed.ckpt")
    start = 0
    if args.resume and os.path.exists(ckpt):
        state = mg.load(ckpt)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        start = int(state["epoch"]) + 1
        _say(r, f"resumed from {ckpt} at epoch {start + 1}")
    x, y = train_set.tensors
    sampler = DistributedSampler(train_set, n, r, shuffle=True, seed=args.seed, drop_last=True)
    local = batch_size // n
    _say(r, f"mutograd demo --distributed: {n} ranks, global batch {batch_size} "
            f"({local} per rank), {len(train_set)} train / {len(test_set)} test images")
    for epoch in range(start, epochs):
        sampler.set_epoch(epoch)
        order = np.array(list(sampler))
        t0 = time.perf_counter()
        total, steps = 0.0, 0
        for i in range(0, len(order) - local + 1, local):
            idx = order[i:i + local].tolist()
            loss = F.cross_entropy(ddp(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
            steps += 1
        seconds = time.perf_counter() - t0
        mean = all_reduce_(mg.tensor([total / max(steps, 1)], dtype="float64"), "mean").item()
        acc = accuracy(model, test_set)
        _say(r, f"epoch {epoch + 1}/{epochs}: loss {mean:.4f}  test accuracy "
                f"{acc:.2%}  {seconds:.2f} s")
        if r == 0:
            mg.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                     "epoch": epoch}, ckpt)
        barrier()                   # nobody resumes from a checkpoint still being written
    _say(r, f"checkpoint: {ckpt}")
    return 0


def _say(r, text):
    if r == 0:
        print(text, flush=True)


def main(argv=None):
    """``python -m mutograd.cli.distributed_demo [options]``: ``mutograd demo --distributed``."""
    argv = sys.argv[1:] if argv is None else list(argv)
    return demo_main(argv + ["--distributed"])


if __name__ == "__main__":
    sys.exit(main())
