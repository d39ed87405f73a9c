"""``python -m mutograd demo``: train a small CNN on the shipped digits twice and measure what
in-place operations save.

The two runs start from the same seed and see the same batches; they differ only in the in-place
switches: ``ReLU(inplace=True)`` and the optimizer's in-place updates, versus out-of-place
activations and an optimizer that writes fresh arrays each step. Same numbers, less memory: the
table shows test accuracy, time per epoch, peak tensor memory, allocations and bytes allocated
per epoch, and the saving. Then the in-place model is saved, reloaded and re-checked, and a plot of
live tensor memory over one training step of each run is written.
"""
import argparse
import contextlib
import json
import os
import time

import mutograd as mg
from mutograd import memory, nn, progress
from mutograd.memtrace import plot_curves
from mutograd.nn import functional as F


def build_model(inplace):
    """Two 3x3 convolutions, a 2x2 max-pool and two linear layers (about 40k parameters)."""
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(inplace=inplace),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(inplace=inplace),
        nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(32 * 4 * 4, 64), nn.ReLU(inplace=inplace),
        nn.Linear(64, 10))


class _measure:
    """Measure a ``with`` block: the tensor bytes it allocated (``allocated_bytes``)."""

    def __enter__(self):
        self._start = memory.stats()["allocated_bytes.all.allocated"]
        self.allocated_bytes = 0
        return self

    def __exit__(self, *exc):
        self.allocated_bytes = memory.stats()["allocated_bytes.all.allocated"] - self._start


def _progress(iterable, total, desc):
    """A bar over one epoch's batches on a terminal; nothing in a log (mutograd/progress.py)."""
    return progress.bar(iterable, total=total, desc=desc, unit="batch")


def blas_threads(n):
    """Set the number of OpenBLAS threads at run time (NumPy is loaded already, so the
    environment variable would come too late); returns the previous number, or None where the
    library cannot be found (not OpenBLAS, not Linux): then nothing changes.

    The demo's matrices are small: a second BLAS thread mostly waits for the first, and on a
    busy two-core machine it makes every product wait for a free core.
    """
    import ctypes
    try:
        with open("/proc/self/maps") as f:
            libs = {line.split()[-1] for line in f if "openblas" in line.lower()}
    except OSError:
        return None
    for path in sorted(libs):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix, suffix in (("scipy_openblas_", "64_"), ("openblas_", ""), ("scipy_openblas_",
                                                                            "")):
            get = getattr(lib, f"{prefix}get_num_threads{suffix}", None)
            put = getattr(lib, f"{prefix}set_num_threads{suffix}", None)
            if get is not None and put is not None:
                old = get()
                put(ctypes.c_int(n))
                return old
    return None


def _warm_up(train_set, place="cpu"):
    """One untimed step, so that neither run pays for first-call costs (imports, BLAS setup)."""
    x, y = train_set.tensors
    model = build_model(False).to(place)
    F.cross_entropy(model(x[:32]), y[:32]).backward()


def accuracy(model, dataset):
    """Fraction of ``dataset`` classified correctly (evaluation mode, no graph)."""
    model.eval()
    x, y = dataset.tensors
    with mg.no_grad():
        pred = model(x).argmax(axis=1)
    model.train()
    return float((pred == y).float().mean().item())


class Run:
    """One of the two training runs, trained an epoch at a time and measured per epoch.

    The two runs alternate epoch by epoch, so a change in the machine's load (other processes on
    a shared machine) affects both alike and the time comparison stays fair.
    """

    def __init__(self, label, inplace, train_set, test_set, epochs, seed, batch_size=32,
                 lr=5e-3, place="cpu"):
        self.label, self.epochs, self.test_set = label, epochs, test_set
        self.place = place
        mg.seed(seed)
        self.model = build_model(inplace).to(place)
        self.opt = mg.optim.Adam(self.model.parameters(), lr=lr, inplace=inplace)
        self.sched = mg.optim.lr_scheduler.CosineAnnealingLR(self.opt, T_max=epochs)
        self.loader = mg.data.DataLoader(train_set, batch_size=batch_size, shuffle=True,
                                         seed=seed)
        self.times, self.peak, self.allocations, self.bytes = [], 0, 0, 0
        self.trace = None

    def epoch(self, k):
        """Train epoch ``k``; the second step of the first epoch has its memory traced (the
        first step creates the optimizer's state)."""
        bar = _progress(self.loader, len(self.loader), f"{self.label:>12} epoch "
                                                         f"{k + 1}/{self.epochs}")
        where = self.place          # memory is counted on the place the run trains on
        base = memory.allocated(where)
        memory.reset_peak(where)
        n0 = memory.num_allocations(where)
        with _measure() as rec:
            t0 = time.perf_counter()
            for i, (xb, yb) in enumerate(bar):
                traced = memory.timeline(where) if k == 0 and i == 1 else None
                with traced or contextlib.nullcontext():
                    _phase(traced, "forward")
                    loss = F.cross_entropy(self.model(xb), yb)
                    self.opt.zero_grad()
                    _phase(traced, "backward")
                    loss.backward()
                    _phase(traced, "optimizer")
                    self.opt.step()
                    if i % 10 == 0:
                        bar.set_postfix_str(f"loss {loss.item():.3f}")
                    del loss
                if traced is not None:
                    self.trace = traced.curve()
            self.times.append(time.perf_counter() - t0)
        self.sched.step()
        self.peak = max(self.peak, memory.max_allocated(where) - base)
        self.allocations += memory.num_allocations(where) - n0
        self.bytes += rec.allocated_bytes
        bar.set_postfix_str(f"test accuracy {accuracy(self.model, self.test_set):.2%}")
        bar.close()

    def row(self):
        return {"run": self.label, "test_accuracy": accuracy(self.model, self.test_set),
                "seconds_per_epoch": sum(self.times) / len(self.times),
                "peak_bytes": self.peak,
                "allocations_per_epoch": self.allocations / len(self.times),
                "bytes_allocated_per_epoch": self.bytes / len(self.times)}


def _fmt_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1024


COLUMNS = ("run", "test accuracy", "time / epoch", "peak tensor memory", "allocations / epoch",
           "bytes allocated / epoch")


def table(rows):
    """The results as a text table: one line per run, then the saving of in-place."""
    a, b = rows
    lines = [[r["run"], f"{r['test_accuracy']:.2%}", f"{r['seconds_per_epoch']:.2f} s",
              _fmt_bytes(r["peak_bytes"]), f"{r['allocations_per_epoch']:,.0f}",
              _fmt_bytes(r["bytes_allocated_per_epoch"])] for r in rows]

    def saving(key):
        return f"{1 - a[key] / b[key]:.0%}" if b[key] else "-"
    lines.append(["saving", f"{a['test_accuracy'] - b['test_accuracy']:+.2%}",
                  saving("seconds_per_epoch"), saving("peak_bytes"),
                  saving("allocations_per_epoch"), saving("bytes_allocated_per_epoch")])
    widths = [max(len(c), *(len(r[i]) for r in lines)) for i, c in enumerate(COLUMNS)]
    fmt = " | ".join(f"{{:{'<' if i == 0 else '>'}{w}}}" for i, w in enumerate(widths))
    out = [fmt.format(*COLUMNS), "-+-".join("-" * w for w in widths)]
    out += [fmt.format(*r) for r in lines]
    return "\n".join(out)


def _phase(timeline, name):
    if timeline is not None:
        timeline.mark(name)


def plot(traces, path):
    """A PNG of live tensor memory over time in one training step of each run, its forward,
    backward and optimizer phases marked; False without matplotlib."""
    return plot_curves({label: t for label, t in traces.items() if t}, path,
                       "mutograd: live tensor memory over one training step")


def _positive(text):
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {n}")
    return n


def parse(argv):
    p = argparse.ArgumentParser(prog="python -m mutograd demo",
                                description=__doc__.split("\n\n")[0].split(": ", 1)[1])
    p.add_argument("--epochs", type=_positive, default=None, help="epochs per run (default 8; 2 "
                   "with --quick)")
    p.add_argument("--out", default="mutograd-demo", help="folder for the checkpoint, the "
                   "plot and results.json (default ./mutograd-demo)")
    p.add_argument("--quick", action="store_true", help="a few seconds: a subset of the data, "
                   "2 epochs (used by the tests)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="cpu", help="where to train: cpu (default), gpu, "
                   "gpu:N, cuda, cuda:N (a GPU needs CuPy: pip install 'mutograd[gpu]')")
    p.add_argument("--blas-threads", type=int, default=1, help="OpenBLAS threads (default 1: "
                   "the matrices are small; 0 leaves the library's setting)")
    p.add_argument("--distributed", action="store_true", help="train data-parallel on the "
                   "ranks of mpirun -n N (needs the mpi extra; docs/distributed.md)")
    p.add_argument("--resume", action="store_true", help="with --distributed: go on from the "
                   "checkpoint in --out")
    return p.parse_args(argv)


def main(argv=()):
    """Entry point of ``python -m mutograd demo``; returns the exit status."""
    args = parse(list(argv))
    epochs = args.epochs if args.epochs is not None else 2 if args.quick else 8
    os.makedirs(args.out, exist_ok=True)
    old_threads = blas_threads(args.blas_threads) if args.blas_threads > 0 else None
    try:
        return _run(args, epochs)
    finally:
        if old_threads is not None:
            blas_threads(old_threads)


def _run(args, epochs):
    train_set, test_set = mg.data.digits_split(test_fraction=0.2, seed=args.seed)
    place = mg.places.get(args.device)   # PlaceError (how to get a GPU) before any work
    if args.quick:
        x, y = train_set.tensors
        train_set = mg.data.TensorDataset(x[:384], y[:384])
    if args.distributed:
        from .distributed_demo import run as run_distributed
        return run_distributed(args, train_set, test_set, epochs)
    train_set, test_set = (mg.data.TensorDataset(*(t.to(place) for t in d.tensors))
                           for d in (train_set, test_set))
    print(f"mutograd demo: a small CNN on the UCI digits (8x8, {len(train_set)} train / "
          f"{len(test_set)} test images), {epochs} epochs per run, trained twice from seed "
          f"{args.seed}{'' if place.kind == 'cpu' else f' on {place}'}\n")
    _warm_up(train_set, place)
    runs = [Run(label, inplace, train_set, test_set, epochs, args.seed, place=place)
            for label, inplace in (("in-place", True), ("out-of-place", False))]
    for k in range(epochs):
        for r in runs:
            r.epoch(k)
    rows = [r.row() for r in runs]
    traces = {r.label: r.trace for r in runs}
    for row in rows:
        print(f"{row['run']:>12}: test accuracy {row['test_accuracy']:.2%}")
    print()
    print(table(rows))

    ckpt = os.path.join(args.out, "digits_cnn.ckpt")
    mg.save({"model": runs[0].model.state_dict(), "epochs": epochs, "seed": args.seed},
            ckpt)
    fresh = build_model(True).to(place)
    fresh.load_state_dict(mg.load(ckpt)["model"])
    again = accuracy(fresh, test_set)
    same = again == rows[0]["test_accuracy"]
    print(f"\ncheckpoint: {ckpt} ({os.path.getsize(ckpt):,} bytes); reloaded into a new model: "
          f"test accuracy {again:.2%} ({'the same' if same else 'DIFFERENT'})")

    png = os.path.join(args.out, "memory_timeline.png")
    if plot(traces, png):
        print(f"plot: {png} (live tensor memory over one training step, both runs)")
    else:
        print("plot: skipped, matplotlib is not installed; pip install 'mutograd[plot]' (or "
              "'mutograd[demo]') and run the demo again to get memory_timeline.png")
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({"epochs": epochs, "rows": rows, "reloaded_accuracy": again,
                   "traces": traces}, f)
    return 0 if same else 1
