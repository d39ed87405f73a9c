"""Cost of recording source sites (Note [Recording source sites]).

    python benchmarks/diagnostics_overhead.py            # this checkout, recording on and off

Measures (best of several repeats):
  * one ``x * y`` with grad on 16 float32 elements (the node saves both inputs, so it records
    the forward line);
  * one training step of a 784-2048-2048-10 MLP written with raw ops (batch 512, float32):
    forward, cross-entropy, backward, SGD update under no_grad.
"Off" replaces the site lookup with a constant, i.e. the cost of everything else.
"""
import itertools
import sys
import time
import timeit

import numpy as np

import mutograd as mg


def per_op(n=20000, repeat=5):
    x = mg.randn([16], requires_grad=True)
    y = mg.randn([16], requires_grad=True)
    # thread CPU time: other processes on a shared machine inflate wall time, not this
    t = timeit.Timer(lambda: x * y, timer=time.thread_time).repeat(number=n, repeat=repeat)
    return min(t) / n * 1e6   # microseconds


def mlp_step_time(steps=3, repeat=3):
    rng = np.random.default_rng(0)
    sizes = [784, 2048, 2048, 10]
    params = []
    for i, o in itertools.pairwise(sizes):
        w = mg.tensor((rng.standard_normal((i, o)) / np.sqrt(i)).astype("float32"),
                      requires_grad=True)
        b = mg.zeros([o], requires_grad=True)
        params += [w, b]
    x = mg.tensor(rng.standard_normal((512, 784)).astype("float32"))
    labels = rng.integers(0, 10, 512)
    onehot = mg.tensor(np.eye(10, dtype="float32")[labels])

    def step():
        h = x
        for k in range(0, len(params), 2):
            h = h @ params[k] + params[k + 1]
            if k < len(params) - 2:
                h = h.relu()
        loss = -(mg.log_softmax(h, 1) * onehot).sum() / 512
        loss.backward()
        with mg.no_grad():
            for p in params:
                p.sub_(0.01 * p.grad)
                p.grad = None
        return loss

    step()
    t = timeit.Timer(step, timer=time.process_time).repeat(number=steps, repeat=repeat)
    return min(t) / steps * 1e3   # ms (process CPU time: NumPy's threads count too)


def main():
    from mutograd.autograd import node, sites
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    results = {}
    real = node.here
    for _ in range(rounds):   # alternate, keep the best of each, so drift hits both alike
        for label, fn in (("on", real), ("off", lambda depth=1: None)):
            node.here = sites.here = fn
            op, step = per_op(), mlp_step_time()
            best = results.get(label, (op, step))
            results[label] = (min(op, best[0]), min(step, best[1]))
    node.here = sites.here = real
    for label, (op, step) in results.items():
        print(f"site recording {label:3}: mul 16 elems with grad {op:6.2f} us/op, "
              f"MLP step {step:7.1f} ms")
    (op_on, st_on), (op_off, st_off) = results["on"], results["off"]
    print(f"overhead: per-op {100 * (op_on / op_off - 1):+.1f}%, "
          f"MLP step {100 * (st_on / st_off - 1):+.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
