"""Data-parallel step time on two ranks against one, and how much communication backward hides.

    python benchmarks/distributed.py              # launches mpiexec -n 1 and -n 2 itself
    mpiexec -n 2 python benchmarks/distributed.py --worker

The model is an MLP on synthetic data (float32); the global batch is the same for both runs, so
two ranks each compute half of it. "hidden" is the share of the gradient all-reduce time that
overlapped backward: 1 - (time backward's end waited for reductions) / (time the same
reductions take when run blocking after backward). One BLAS thread per rank.
"""
import argparse
import itertools
import json
import os
import subprocess
import sys
import time

import numpy as np


def worker(args):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import mutograd as mg
    import mutograd.distributed as dist

    dist.init()
    r, n = dist.rank(), dist.world_size()
    rng = np.random.default_rng(0)
    local = args.batch // n
    if args.model == "demo":       # the CNN of ``python -m mutograd demo`` on 8x8 images
        from mutograd.cli.demo import build_model
        mg.seed(0)
        net = build_model(True)
        ws = list(net.parameters())
        data = rng.standard_normal((args.batch, 1, 8, 8))
    else:
        sizes = [args.width] * (args.depth + 1) + [10]
        ws = [mg.tensor(rng.standard_normal((a, b)).astype(np.float32) / np.sqrt(a),
                        requires_grad=True) for a, b in itertools.pairwise(sizes)]

        def net(x):
            for w in ws[:-1]:
                x = mg.tanh(x @ w)
            return x @ ws[-1]
        data = rng.standard_normal((args.batch, args.width))

    class Model:
        def parameters(self):
            return ws

        def __call__(self, x):
            return net(x)

    model = dist.DistributedDataParallel(Model(), bucket_cap_mb=args.bucket_mb,
                                         progress_thread=args.progress_thread)
    x = mg.tensor(data.astype(np.float32)[r::n][:local])
    times, waits = [], []
    for step in range(args.warmup + args.steps):
        dist.barrier()
        t0 = time.perf_counter()
        out = model(x)
        (out * out).mean().backward()
        with mg.no_grad():
            for w in ws:
                w.sub_(w.grad * 1e-3)
        t = time.perf_counter() - t0
        if step >= args.warmup:
            times.append(t)
            waits.append(model.exposed_wait_s)
    blocking = []
    with mg.no_grad():
        for _ in range(args.steps):
            dist.barrier()
            t0 = time.perf_counter()
            for b in model.buckets:
                dist.all_reduce_(b.flat, "mean")
            blocking.append(time.perf_counter() - t0)
    # a rank that finished backward early also waits for the others: the last one to finish
    # (the smallest wait) waits only for the communication that backward did not hide
    waits = mg.tensor(np.array(waits))
    with mg.no_grad():
        dist.all_reduce_(waits, "min")
    step_s = float(np.median(times))
    wait_s = float(np.median(waits.numpy()))
    comm_s = float(np.median(blocking))
    if r == 0:
        print(json.dumps({"ranks": n, "step_ms": 1e3 * step_s, "exposed_wait_ms": 1e3 * wait_s,
                          "allreduce_ms": 1e3 * comm_s, "buckets": len(model.buckets),
                          "grad_mb": sum(b.flat.nbytes for b in model.buckets) / 2 ** 20}))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--model", choices=("demo", "mlp"), default=None,
                    help="the demo's CNN (default when mutograd.cli.demo exists) or an MLP")
    ap.add_argument("--width", type=int, default=512)
    ap.add_argument("--depth", type=int, default=4)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--bucket-mb", type=float, default=None,
                    help="bucket size (default 1 MiB for the MLP, 20 KiB for the demo CNN, "
                         "whose gradients take 0.1 MiB, so that buckets can overlap backward)")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--progress-thread", action="store_true",
                    help="DistributedDataParallel(progress_thread=True): a thread advances the "
                         "reductions while backward computes")
    ap.add_argument("--async-progress", action="store_true",
                    help="MPICH progress thread (MPIR_CVAR_ASYNC_PROGRESS=1): reductions advance "
                         "without being polled, at the cost of a busy core per rank")
    args = ap.parse_args()
    if args.model is None:
        import importlib.util
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        args.model = "demo" if importlib.util.find_spec("mutograd.cli.demo") else "mlp"
    if args.bucket_mb is None:
        args.bucket_mb = 1.0 if args.model == "mlp" else 0.02
    if args.worker:
        return worker(args)
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    if args.async_progress:
        env["MPIR_CVAR_ASYNC_PROGRESS"] = "1"
    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if not os.path.exists(mpiexec):
        mpiexec = "mpiexec"
    res = {}
    for n in (1, 2):
        cmd = [mpiexec, "-n", str(n), sys.executable, os.path.abspath(__file__), "--worker"]
        cmd += [a for a in sys.argv[1:] if a not in ("--worker", "--async-progress")]
        cmd += ["--model", args.model, "--bucket-mb", str(args.bucket_mb)]
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout
        res[n] = json.loads(out.strip().splitlines()[-1])
    one, two = res[1], res[2]
    hidden = 1 - two["exposed_wait_ms"] / two["allreduce_ms"] if two["allreduce_ms"] else 0.0
    what = ("the demo CNN" if args.model == "demo" else
            f"MLP width {args.width} depth {args.depth}")
    print(f"{what}, global batch {args.batch}, "
          f"{two['grad_mb']:.1f} MiB of gradients in {two['buckets']} buckets")
    print(f"1 rank : {one['step_ms']:8.2f} ms/step")
    print(f"2 ranks: {two['step_ms']:8.2f} ms/step  "
          f"(speed-up {one['step_ms'] / two['step_ms']:.2f}x)")
    print(f"all-reduce of all buckets, blocking: {two['allreduce_ms']:.2f} ms; waited at the end "
          f"of backward: {two['exposed_wait_ms']:.2f} ms; hidden behind backward: "
          f"{100 * max(0.0, min(1.0, hidden)):.0f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
