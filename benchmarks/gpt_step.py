"""The GPT-style training step of examples/gpt.py, mutograd and PyTorch side by side.

    python benchmarks/gpt_step.py                     # n_layer 4, n_embd 128, block 64, batch 16
    python benchmarks/gpt_step.py --profile 5         # + where mutograd's time goes
    python benchmarks/gpt_step.py --tiny --repeat 1   # a smoke run (what the CI test does)

One step is forward, loss, backward, gradient clipping and an AdamW update, the program's own
``train_step``. Both frameworks run the same file (``import torch`` gives mutograd's namespace
for one of them) on the same weights, handed over as NumPy arrays, and the same batches.

Each round runs each contestant in a fresh process of its own (a few steps, timed after
warm-up), alternating, so that load from other programs spreads over both. Separate processes
matter: in one process the two frameworks' allocations change how the C library's malloc
reuses freed memory, and one of them then pays page faults the other caused (PyTorch's step
varied from 62 to 80 ms that way). Median, min and max over rounds of each round's median step,
and the ratio mutograd / PyTorch of the medians (and of the minima, the round least disturbed
by other programs).
"""
import argparse
import json
import os
import platform
import runpy
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "gpt.py")
FULL = dict(n_layer=4, n_head=4, n_embd=128, block_size=64, vocab_size=65, dropout=0.0)
TINY = dict(n_layer=1, n_head=2, n_embd=16, block_size=8, vocab_size=11, dropout=0.0)
CLOCKS = {"wall": time.perf_counter, "cpu": time.thread_time}
CONTESTANTS = ("mutograd", "torch")


def _set_threads(n):
    # before NumPy or PyTorch start their thread pools
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(n)


def _median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def _batch(cfg, batch):
    import numpy as np
    rng = np.random.default_rng(0)
    x = rng.integers(0, cfg["vocab_size"], (batch, cfg["block_size"]))
    return x, np.roll(x, -1, axis=1)


def build_torch(cfg, batch, threads, state_path=None):
    """PyTorch's step function; its initial weights are saved to ``state_path`` (npz)."""
    import numpy as np
    import torch
    torch.set_num_threads(threads)
    nt = runpy.run_path(EXAMPLE, run_name="gpt_bench")
    torch.manual_seed(0)
    model = nt["GPT"](nt["GPTConfig"](**cfg))
    if state_path:
        np.savez(state_path, **{k: v.detach().numpy() for k, v in model.state_dict().items()})
    opt = model.configure_optimizers(0.1, 6e-4, (0.9, 0.95))
    x, y = _batch(cfg, batch)
    b = [(torch.tensor(x), torch.tensor(y))]
    return lambda: nt["train_step"](model, opt, b, 6e-4, 1.0)


def build_mutograd(cfg, batch, state_path=None):
    """mutograd's step function, on the weights saved in ``state_path`` when given."""
    import numpy as np
    sys.path.insert(0, ROOT)
    import mutograd as mg
    import mutograd.compat as compat
    with compat.importing_as("torch"):
        nm = runpy.run_path(EXAMPLE, run_name="gpt_bench")
    mtorch = nm["torch"]
    model = nm["GPT"](nm["GPTConfig"](**cfg))
    if state_path:
        with np.load(state_path) as f:
            model.load_state_dict({k: mg.tensor(f[k]) for k in f.files})
    opt = model.configure_optimizers(0.1, 6e-4, (0.9, 0.95))
    x, y = _batch(cfg, batch)
    b = [(mtorch.tensor(x), mtorch.tensor(y))]

    def step():
        return nm["train_step"](model, opt, b, 6e-4, 1.0)
    return step


def _worker(contestant, tiny, batch, threads, steps, warmup, clock, state_path):
    """One round in this process: ``{"times": [...], "first_loss": ...}`` as JSON on stdout."""
    cfg = TINY if tiny else FULL
    if contestant == "torch":
        step = build_torch(cfg, batch, threads, state_path)
    else:
        step = build_mutograd(cfg, batch, state_path)
    first = step()[0]                # also the first warm-up step
    for _ in range(warmup - 1):
        step()
    now = CLOCKS[clock]
    times = []
    for _ in range(steps):
        t = now()
        step()
        times.append(now() - t)
    print(json.dumps({"times": times, "first_loss": first}))


def _round(contestant, tiny, batch, threads, steps, warmup, clock, state_path):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", contestant,
           "--batch", str(batch), "--threads", str(threads), "--steps", str(steps),
           "--warmup", str(warmup), "--clock", clock, "--state", state_path]
    if tiny:
        cmd.append("--tiny")
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(threads)
    # this checkout's mutograd, not whichever one is installed
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if r.returncode:
        raise RuntimeError(f"the {contestant} round failed:\n{r.stderr}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def _have_torch():
    try:
        import importlib.util
        return importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):
        return False


def run(tiny=False, repeat=7, warmup=3, threads=1, batch=16, clock="wall", steps=10):
    """Time the steps; returns ``{contestant: {median, min, max}}`` plus ``ratio`` (of the
    medians), ``ratio_min`` (of the minima) and meta."""
    batch = 2 if tiny else batch
    cfg = TINY if tiny else FULL
    names = CONTESTANTS if _have_torch() else ("mutograd",)
    rounds = {c: [] for c in names}
    first = {}
    with tempfile.TemporaryDirectory() as tmp:
        state = os.path.join(tmp, "state.npz") if "torch" in names else ""
        for i in range(repeat):
            # PyTorch first in the first round: it writes the initial weights both use
            order = names[::-1] if i % 2 == 0 else names
            for c in order:
                r = _round(c, tiny, batch, threads, steps, warmup, clock, state)
                rounds[c].append(_median(r["times"]))
                first.setdefault(c, r["first_loss"])
    res = {c: {"median": _median(ts), "min": min(ts), "max": max(ts)} for c, ts in rounds.items()}
    out = {"config": dict(cfg, batch=batch), "times": res, "first_loss": first,
           "meta": _meta(threads, repeat, clock, steps)}
    if "torch" in res:
        out["ratio"] = res["mutograd"]["median"] / res["torch"]["median"]
        out["ratio_min"] = res["mutograd"]["min"] / res["torch"]["min"]
    return out


def profile(n, tiny=False, threads=1, batch=16, top=25):
    """cProfile of ``n`` mutograd steps: the functions with the most own time."""
    import cProfile
    import io
    import pstats
    step = build_mutograd(TINY if tiny else FULL, 2 if tiny else batch)   # its own weights
    step()
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(n):
        step()
    pr.disable()
    s = io.StringIO()
    pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(top)
    return s.getvalue()


def _meta(threads, repeat, clock, steps):
    import numpy as np
    meta = {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
            "threads": threads, "python": platform.python_version(), "numpy": np.__version__,
            "repeat": repeat, "steps": steps, "clock": clock,
            "date": time.strftime("%Y-%m-%d %H:%M")}
    if _have_torch():
        from importlib.metadata import version
        meta["torch"] = version("torch")
    return meta


def table(out):
    """A markdown table in the style of benchmarks/run.py."""
    r, cfg = out["times"], out["config"]
    cs = [c for c in ("mutograd", "torch") if c in r]
    unit = (f"GPT step (n_layer {cfg['n_layer']}, n_embd {cfg['n_embd']}, block "
            f"{cfg['block_size']}, batch {cfg['batch']})")
    lines = ["| workload | unit | " + " | ".join(f"{c} median (min-max)" for c in cs)
             + (" | mutograd / torch (of the minima) |" if "ratio" in out else " |"),
             "|---" * (2 + len(cs) + ("ratio" in out)) + "|",
             f"| {unit} | s/step | " + " | ".join(
                 f"{r[c]['median']:.3g} ({r[c]['min']:.3g}-{r[c]['max']:.3g})" for c in cs)
             + (f" | {out['ratio']:.2f}x ({out['ratio_min']:.2f}x) |" if "ratio" in out
                else " |")]
    m = out["meta"]
    lines.append("")
    lines.append(f"{m['cpu']}, {m['cores']} cores, {m['threads']} threads; Python {m['python']}, "
                 f"NumPy {m['numpy']}" + (f", torch {m['torch']}" if "torch" in m else "")
                 + f"; {m['repeat']} rounds of {m['steps']} steps, one process each, "
                 f"{m['clock']} clock; {m['date']}")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repeat", type=int, default=7, help="timed rounds (default 7)")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--threads", type=int, default=1, help="BLAS/PyTorch threads (default 1)")
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--clock", choices=sorted(CLOCKS), default="wall")
    p.add_argument("--tiny", action="store_true", help="tiny sizes (a smoke run)")
    p.add_argument("--json", help="also write the result here")
    p.add_argument("--steps", type=int, default=10, help="timed steps per round (default 10)")
    p.add_argument("--profile", type=int, default=0, metavar="N",
                   help="then profile N mutograd steps (own time per function)")
    p.add_argument("--worker", choices=CONTESTANTS, help=argparse.SUPPRESS)
    p.add_argument("--state", default="", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    _set_threads(a.threads)
    if a.worker:
        return _worker(a.worker, a.tiny, a.batch, a.threads, a.steps, a.warmup, a.clock,
                       a.state)
    out = run(a.tiny, a.repeat, a.warmup, a.threads, a.batch, a.clock, a.steps)
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
