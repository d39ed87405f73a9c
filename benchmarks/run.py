"""Run the benchmark workloads side by side and print a markdown table.

    python -m benchmarks                      # everything, full size, 2 threads
    python -m benchmarks --only mlp_step --repeat 5
    python -m benchmarks --tiny --repeat 1    # a smoke run (what the CI test does)

Times are taken in this process, contestants interleaved in each round so that load from other
programs on the machine spreads over all of them; median, min and max over the rounds. Memory
figures each come from a fresh subprocess that runs only one contestant: the peak resident set
size over the workload (above what the process held after building its data), and for mutograd
its own counters (peak tensor bytes, bytes allocated per unit). Results go to
``benchmarks/results/`` as JSON.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import time


def _set_threads(n):
    # before NumPy or PyTorch start their thread pools
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS"):
        os.environ[var] = str(n)


def _available(name):
    import importlib.util
    if name == "numpy" or name == "mutograd":
        return True
    return importlib.util.find_spec(name) is not None


def _import(name, threads):
    if name == "torch":
        import torch
        torch.set_num_threads(threads)
    elif name == "paddle":
        import paddle
        paddle.set_device("cpu")
        if hasattr(paddle, "set_num_threads"):
            paddle.set_num_threads(threads)


def _rss():
    """(current, peak) resident set size in bytes, from /proc (Linux)."""
    cur = peak = 0
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                cur = int(line.split()[1]) * 1024
            elif line.startswith("VmHWM:"):
                peak = int(line.split()[1]) * 1024
    return cur, peak


def _reset_peak_rss():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")   # resets VmHWM to the current RSS
        return True
    except OSError:
        return False


def child(name, contestant, tiny, threads, units):
    """Run in a fresh process: the memory figures of one contestant on one workload."""
    from .workloads import discover
    _import(contestant, threads)
    w = discover()[name]
    size = w.tiny if tiny else w.full
    mg = None
    if contestant == "mutograd":
        import mutograd as mg
    fn = getattr(w, contestant)(size)
    if mg is not None:
        mg.memory.reset_peak()
        base = mg.memory.allocated()
    reset_ok = _reset_peak_rss()
    rss0, _ = _rss()
    fn()                                   # the first unit (caches fill, gradients appear)
    if mg is not None:
        total1 = mg.memory.stats()["allocated_bytes.all.allocated"]
    for _ in range(units):
        fn()
    rss1, hwm = _rss()
    res = {"rss_peak": hwm - rss0 if reset_ok else None, "rss_end": rss1 - rss0}
    if mg is not None:
        s = mg.memory.stats()
        res["mg_peak"] = s["allocated_bytes.all.peak"] - base
        res["mg_bytes_per_unit"] = (s["allocated_bytes.all.allocated"] - total1) // max(units, 1)
        res["mg_reserved"] = s["reserved_bytes.all.current"]
    print(json.dumps(res))


CLOCKS = {"wall": time.perf_counter, "thread": time.thread_time}


def _time(fns, repeat, warmup, clock="wall"):
    """Interleaved rounds: returns name -> list of seconds per unit."""
    now = CLOCKS[clock]
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    times = {c: [] for c in fns}
    for _ in range(repeat):
        for c, fn in fns.items():
            t = now()
            fn()
            times[c].append(now() - t)
    return times


def _median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def run(names=None, contestants=None, tiny=False, repeat=7, threads=2, memory=True,
        out_dir=None, quiet=False, clock="wall"):
    """Run the workloads; returns the result dict (also written as JSON unless ``out_dir`` is
    False). ``clock="thread"`` times the calling thread's CPU time instead of wall time: immune
    to other programs on a busy machine, and meaningful only with ``threads=1`` (all work on the
    calling thread)."""
    if clock == "thread" and threads != 1:
        raise ValueError("the thread clock only measures the calling thread: use threads=1")
    from .workloads import CONTESTANTS, discover
    contestants = [c for c in (contestants or CONTESTANTS) if _available(c)]
    for c in contestants:
        _import(c, threads)
    workloads = discover()
    names = names or list(workloads)
    results = {"meta": _meta(threads, tiny, repeat, contestants), "workloads": {}}
    results["meta"]["clock"] = clock
    for name in names:
        w = workloads[name]
        size = w.tiny if tiny else w.full
        per = size.get("k", 1)
        here = [c for c in contestants if hasattr(w, c)]
        fns = {c: getattr(w, c)(size) for c in here}
        times = _time(fns, repeat, 1 if tiny else 2, clock)
        row = {"group": w.group, "desc": w.desc, "unit": w.unit, "contestants": {}}
        scale = 1e6 if w.unit == "us/op" else 1e3
        for c in here:
            ts = [t / per * scale for t in times[c]]
            row["contestants"][c] = {"median": _median(ts), "min": min(ts), "max": max(ts)}
        del fns
        if memory:
            for c in here:
                row["contestants"][c].update(_memory(name, c, tiny, threads))
        results["workloads"][name] = row
        if not quiet:
            print(f"  {name}: " + ", ".join(
                f"{c} {v['median']:.3g}" for c, v in row["contestants"].items()), file=sys.stderr)
    if out_dir is not False:
        out_dir = out_dir or os.path.join(os.path.dirname(__file__), "results")
        os.makedirs(out_dir, exist_ok=True)
        tag = "tiny" if tiny else f"{clock}-{threads}t"
        path = os.path.join(out_dir, f"latest-{tag}.json")
        with open(path, "w") as f:
            json.dump(results, f, indent=1)
        results["path"] = path
    return results


def _memory(name, contestant, tiny, threads):
    cmd = [sys.executable, "-m", "benchmarks.run", "--child", name, contestant,
           "--threads", str(threads)] + (["--tiny"] if tiny else [])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=root, env=env, timeout=600,
                       check=False)
    if p.returncode != 0:
        return {"memory_error": p.stderr.strip().splitlines()[-1] if p.stderr else "failed"}
    return json.loads(p.stdout.strip().splitlines()[-1])


def _meta(threads, tiny, repeat, contestants):
    import numpy
    meta = {"machine": platform.machine(), "cpu": _cpu_name(), "cores": os.cpu_count(),
            "python": platform.python_version(), "numpy": numpy.__version__,
            "threads": threads, "tiny": tiny, "repeat": repeat,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    for c in contestants:
        if c in ("torch", "paddle"):
            meta[c] = __import__(c).__version__
    return meta


def _cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def _mib(n):
    return "-" if n is None else f"{n / 2**20:.1f}"


def table(results):
    """The markdown tables: times with ratios to mutograd, then memory."""
    from .workloads import CONTESTANTS
    rows = results["workloads"]
    cs = [c for c in CONTESTANTS if any(c in r["contestants"] for r in rows.values())]
    others = [c for c in cs if c != "mutograd"]
    out = ["| workload | unit | " + " | ".join(f"{c} median (min-max)" for c in cs) + " | "
           + " | ".join(f"mutograd / {c}" for c in others) + " |",
           "|---" * (2 + len(cs) + len(others)) + "|"]
    for r in rows.values():
        v = r["contestants"]
        cells = [f"{v[c]['median']:.3g} ({v[c]['min']:.3g}-{v[c]['max']:.3g})" if c in v
                 else "-" for c in cs]
        mg = v.get("mutograd", {}).get("median")
        ratios = [f"{mg / v[c]['median']:.2f}x" if mg and c in v else "-" for c in others]
        out.append(f"| {r['desc']} | {r['unit']} | " + " | ".join(cells + ratios) + " |")
    if any("rss_peak" in v for r in rows.values() for v in r["contestants"].values()):
        out += ["", "| workload | " + " | ".join(f"{c} peak RSS MiB" for c in cs)
                + " | mutograd peak tensor MiB | mutograd MiB allocated per unit |",
                "|---" * (3 + len(cs)) + "|"]
        for r in rows.values():
            v = r["contestants"]
            cells = [_mib(v[c].get("rss_peak")) if c in v else "-" for c in cs]
            m = v.get("mutograd", {})
            out.append(f"| {r['desc']} | " + " | ".join(cells) + f" | {_mib(m.get('mg_peak'))}"
                       f" | {_mib(m.get('mg_bytes_per_unit'))} |")
    meta = results["meta"]
    out.append("")
    out.append(f"{meta['cpu']}, {meta['cores']} cores, {meta['threads']} threads; Python "
               f"{meta['python']}, NumPy {meta['numpy']}"
               + "".join(f", {c} {meta[c]}" for c in ("torch", "paddle") if c in meta)
               + f"; {meta['repeat']} rounds, {meta.get('clock', 'wall')} clock; {meta['date']}")
    return "\n".join(out)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n")[0])
    p.add_argument("--only", nargs="*", help="workload names (default: all)")
    p.add_argument("--contestants", nargs="*", help="default: mutograd torch paddle numpy")
    p.add_argument("--repeat", type=int, default=7, help="timed rounds (default 7)")
    p.add_argument("--threads", type=int, default=2, help="threads for every contestant")
    p.add_argument("--tiny", action="store_true", help="tiny sizes (a smoke run)")
    p.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                   help="wall time, or the thread's CPU time (needs --threads 1; robust on a "
                        "busy machine)")
    p.add_argument("--no-memory", action="store_true", help="skip the memory subprocesses")
    p.add_argument("--list", action="store_true", help="list the workloads")
    p.add_argument("--child", nargs=2, metavar=("WORKLOAD", "CONTESTANT"), help=argparse.SUPPRESS)
    p.add_argument("--units", type=int, default=3, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    _set_threads(a.threads)
    if a.child:
        return child(a.child[0], a.child[1], a.tiny, a.threads, a.units)
    if a.list:
        from .workloads import discover
        for name, w in discover().items():
            print(f"{name:20} {w.desc}")
        return None
    res = run(a.only, a.contestants, a.tiny, a.repeat, a.threads, not a.no_memory,
              clock=a.clock)
    print(table(res))
    print(f"\nresults: {res['path']}", file=sys.stderr)
    return res


if __name__ == "__main__":
    main()
