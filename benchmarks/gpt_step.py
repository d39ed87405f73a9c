"""The GPT-style training step of examples/gpt.py, mutograd and PyTorch side by side.

    python benchmarks/gpt_step.py                     # n_layer 4, n_embd 128, block 64, batch 16
    python benchmarks/gpt_step.py --profile 5         # + where mutograd's time goes
    python benchmarks/gpt_step.py --tiny --repeat 1   # a smoke run (what the CI test does)

One step is forward, loss, backward, gradient clipping and an AdamW update, the program's own
``train_step``. Both frameworks run the same file (``import torch`` gives mutograd's namespace
for one of them) on the same weights, handed over as NumPy arrays, and the same batches. Rounds
interleave the contestants so that load from other programs spreads over both; median, min and
max seconds per step, and the ratio mutograd / PyTorch.
"""
import argparse
import json
import os
import platform
import runpy
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "gpt.py")
FULL = dict(n_layer=4, n_head=4, n_embd=128, block_size=64, vocab_size=65, dropout=0.0)
TINY = dict(n_layer=1, n_head=2, n_embd=16, block_size=8, vocab_size=11, dropout=0.0)
CLOCKS = {"wall": time.perf_counter, "cpu": time.thread_time}


def _set_threads(n):
    # before NumPy or PyTorch start their thread pools
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(n)


def _median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def build(cfg, batch, threads):
    """``{contestant: step function}`` on identical weights and batches."""
    import numpy as np
    sys.path.insert(0, ROOT)
    import mutograd as mg
    import mutograd.compat as compat
    rng = np.random.default_rng(0)
    x = rng.integers(0, cfg["vocab_size"], (batch, cfg["block_size"]))
    y = np.roll(x, -1, axis=1)
    steps = {}
    try:
        import torch
        torch.set_num_threads(threads)
        nt = runpy.run_path(EXAMPLE, run_name="gpt_bench")
        torch.manual_seed(0)
        tmodel = nt["GPT"](nt["GPTConfig"](**cfg))
        state = {k: v.detach().numpy().copy() for k, v in tmodel.state_dict().items()}
        topt = tmodel.configure_optimizers(0.1, 6e-4, (0.9, 0.95))
        tb = [(torch.tensor(x), torch.tensor(y))]
        steps["torch"] = lambda: nt["train_step"](tmodel, topt, tb, 6e-4, 1.0)
    except ImportError:
        state = None
    with compat.importing_as("torch"):
        nm = runpy.run_path(EXAMPLE, run_name="gpt_bench")
    mtorch = nm["torch"]
    with compat.dialect("torch"):
        mmodel = nm["GPT"](nm["GPTConfig"](**cfg))
        if state is not None:
            mmodel.load_state_dict({k: mg.tensor(v) for k, v in state.items()})
        mopt = mmodel.configure_optimizers(0.1, 6e-4, (0.9, 0.95))
    mb = [(mtorch.tensor(x), mtorch.tensor(y))]

    def mstep():
        with compat.dialect("torch"):
            return nm["train_step"](mmodel, mopt, mb, 6e-4, 1.0)
    steps["mutograd"] = mstep
    return steps


def run(tiny=False, repeat=7, warmup=2, threads=1, batch=16, clock="wall"):
    """Time the steps; returns ``{contestant: {median, min, max}}`` plus ``ratio`` and meta."""
    cfg = TINY if tiny else FULL
    steps = build(cfg, 2 if tiny else batch, threads)
    first = {c: fn()[0] for c, fn in steps.items()}       # also the first warm-up round
    for _ in range(warmup - 1):
        for fn in steps.values():
            fn()
    now = CLOCKS[clock]
    times = {c: [] for c in steps}
    for _ in range(repeat):
        for c, fn in steps.items():
            t = now()
            fn()
            times[c].append(now() - t)
    res = {c: {"median": _median(ts), "min": min(ts), "max": max(ts)} for c, ts in times.items()}
    out = {"config": dict(cfg, batch=2 if tiny else batch), "times": res, "first_loss": first,
           "meta": _meta(threads, repeat, clock)}
    if "torch" in res:
        out["ratio"] = res["mutograd"]["median"] / res["torch"]["median"]
    return out


def profile(n, tiny=False, threads=1, batch=16, top=25):
    """cProfile of ``n`` mutograd steps: the functions with the most own time."""
    import cProfile
    import io
    import pstats
    cfg = TINY if tiny else FULL
    step = build(cfg, 2 if tiny else batch, threads)["mutograd"]
    step()
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(n):
        step()
    pr.disable()
    s = io.StringIO()
    pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(top)
    return s.getvalue()


def _meta(threads, repeat, clock):
    import numpy as np
    meta = {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
            "threads": threads, "python": platform.python_version(), "numpy": np.__version__,
            "repeat": repeat, "clock": clock, "date": time.strftime("%Y-%m-%d %H:%M")}
    try:
        import torch
        meta["torch"] = torch.__version__
    except ImportError:
        pass
    return meta


def table(out):
    """A markdown table in the style of benchmarks/run.py."""
    r, cfg = out["times"], out["config"]
    cs = [c for c in ("mutograd", "torch") if c in r]
    unit = (f"GPT step (n_layer {cfg['n_layer']}, n_embd {cfg['n_embd']}, block "
            f"{cfg['block_size']}, batch {cfg['batch']})")
    lines = ["| workload | unit | " + " | ".join(f"{c} median (min-max)" for c in cs)
             + (" | mutograd / torch |" if "ratio" in out else " |"),
             "|---" * (2 + len(cs) + ("ratio" in out)) + "|",
             f"| {unit} | s/step | " + " | ".join(
                 f"{r[c]['median']:.3g} ({r[c]['min']:.3g}-{r[c]['max']:.3g})" for c in cs)
             + (f" | {out['ratio']:.2f}x |" if "ratio" in out else " |")]
    m = out["meta"]
    lines.append("")
    lines.append(f"{m['cpu']}, {m['cores']} cores, {m['threads']} threads; Python {m['python']}, "
                 f"NumPy {m['numpy']}" + (f", torch {m['torch']}" if "torch" in m else "")
                 + f"; {m['repeat']} rounds, {m['clock']} clock; {m['date']}")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repeat", type=int, default=7, help="timed rounds (default 7)")
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--threads", type=int, default=1, help="BLAS/PyTorch threads (default 1)")
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--clock", choices=sorted(CLOCKS), default="wall")
    p.add_argument("--tiny", action="store_true", help="tiny sizes (a smoke run)")
    p.add_argument("--json", help="also write the result here")
    p.add_argument("--profile", type=int, default=0, metavar="N",
                   help="then profile N mutograd steps (own time per function)")
    a = p.parse_args(argv)
    _set_threads(a.threads)
    out = run(a.tiny, a.repeat, a.warmup, a.threads, a.batch, a.clock)
    print(table(out))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    if a.profile:
        print()
        print(profile(a.profile, a.tiny, a.threads, a.batch))
    return out


if __name__ == "__main__":
    main()
