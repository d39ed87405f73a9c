"""What vmap's batching rules save over its per-sample fallback (Note [Batching rules]).

    python benchmarks/vmap_cost.py                 # batch 64; best of 5 (thread CPU time)
    python benchmarks/vmap_cost.py --batch 256

For each workload, the time of one call:

  * ``rules``: ``vmap`` as it runs, the batching rules on;
  * ``fallback``: the same ``vmap`` with every NumPy function run once per sample (the rules
    off: what an op without a rule costs);
  * ``loop``: the function called once per sample in Python and the results stacked;
  * ``torch``: ``torch.func.vmap`` on the same numbers, when PyTorch is installed.

The workloads: an MLP's forward on each sample, the per-sample gradients of its loss
(``vmap(grad(...))``), and the Jacobian of a small function (``jacrev``, a vmap over the rows).
"""
import argparse
import contextlib
import time

import numpy as np

import mutograd as mg
from mutograd.func import batching_rules


def _best(fn, repeat):
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.thread_time()
        fn()
        times.append(time.thread_time() - t0)
    return min(times)


@contextlib.contextmanager
def rules_off():
    """Every NumPy function and ufunc on batched arrays runs once per sample."""
    saved_rules, saved_elementwise = dict(batching_rules.RULES), batching_rules.elementwise
    batching_rules.RULES.clear()

    def each(level, fn, arrays, kwargs):
        return batching_rules.per_sample(fn, tuple(arrays), kwargs, level)
    batching_rules.elementwise = each
    try:
        yield
    finally:
        batching_rules.RULES.update(saved_rules)
        batching_rules.elementwise = saved_elementwise


def workloads(ns, n, rng):
    """``{name: (mapped function, its arguments, the per-sample function)}`` in namespace
    ``ns`` (mutograd or torch)."""
    w1, w2 = ns.tensor(rng.standard_normal((16, 64))), ns.tensor(rng.standard_normal((64, 4)))
    x = ns.tensor(rng.standard_normal((n, 16)))
    y = ns.tensor(rng.standard_normal((n, 4)))

    def forward(xi):
        return (xi @ w1).tanh() @ w2

    def loss(w, xi, yi):
        return ((((xi @ w).tanh() @ w2) - yi) ** 2).mean()

    func = ns.func if hasattr(ns, "func") else None
    g = func.grad(loss)
    small = ns.tensor(rng.standard_normal(8))
    return {
        "mlp forward": (func.vmap(forward), (x,), forward, (x,)),
        "per-sample gradients": (func.vmap(g, in_dims=(None, 0, 0)), (w1, x, y),
                                 lambda xi, yi: g(w1, xi, yi), (x, y)),
        "jacrev of an 8 -> 8 function": (func.jacrev(lambda v: (v.sin() * v.sum()).cumsum(0)),
                                         (small,), None, None),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    mine = workloads(mg, args.batch, rng)
    try:
        import torch
        torch.set_num_threads(1)
        theirs = workloads(torch, args.batch, np.random.default_rng(0))
    except ImportError:
        theirs = {}
    print(f"batch {args.batch}, milliseconds per call (best of {args.repeat}, thread time)")
    print(f"{'workload':32s} {'rules':>9s} {'fallback':>9s} {'loop':>9s} {'torch':>9s}")
    for name, (fn, fargs, one, loop_args) in mine.items():
        rules = _best(lambda: fn(*fargs), args.repeat)
        with rules_off():
            fallback = _best(lambda: fn(*fargs), args.repeat)
        loop = float("nan")
        if one is not None:
            n = loop_args[0].shape[0]
            loop = _best(lambda: mg.stack([one(*[a[i] for a in loop_args]) for i in range(n)]),
                         args.repeat)
        ref = float("nan")
        if name in theirs:
            tfn, targs = theirs[name][:2]
            ref = _best(lambda: tfn(*targs), args.repeat)
        print(f"{name:32s} {1e3 * rules:9.2f} {1e3 * fallback:9.2f} {1e3 * loop:9.2f} "
              f"{1e3 * ref:9.2f}")


if __name__ == "__main__":
    main()
