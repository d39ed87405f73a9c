"""Run the benchmark workloads side by side and print a markdown table.

    python -m benchmarks                      # everything, full size, 2 threads
    python -m benchmarks --only mlp_step --repeat 5
    python -m benchmarks --tiny --repeat 1    # a smoke run (what the CI test does)
    python -m benchmarks --plot ratios.png    # also a plot of the ratios, with their spread
    python -m benchmarks --threads 1,all      # one thread and all cores, side by side

Each contestant runs in a worker process of its own that imports only its framework (two
frameworks in one process change each other's timings: their allocations change how the C
library's malloc reuses freed memory, and their thread pools compete). The rounds alternate
between the workers, one unit each in turn, the order reversed every other round, so that load
from other programs on the machine spreads over all of them; median, min and max over the
rounds, and per round the ratio of mutograd's time to each other contestant's. Memory figures
each come from a fresh subprocess that runs only one contestant: the peak resident set size over
the workload (above what the process held after building its data), and for mutograd its own
counters (peak tensor bytes, bytes allocated per unit). A contestant that is not installed or
cannot start is listed as skipped, with the reason. Results go to ``benchmarks/results/`` as
JSON. With several thread counts the whole run repeats once per count (fresh workers each
time), and the table has a column group per count.
"""
import argparse
import gc
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
               "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")


def _set_threads(n):
    # before NumPy or PyTorch start their thread pools
    for var in THREAD_VARS:
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


def _median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def worker(contestant, threads, clock):
    """The loop of a contestant's worker process: one JSON request per line on stdin, one JSON
    answer per line on the original stdout (the workloads' own prints go to stderr).

    Requests: ``{"build": NAME, "tiny": BOOL, "warmup": N}`` makes the workload's unit and runs
    it ``N`` times untimed; ``{"round": true}`` times one unit (``{"seconds": ...}``);
    ``{"free": true}`` drops the unit. A failure answers ``{"error": "Type: message"}``.
    """
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        _import(contestant, threads)
        from .workloads import discover
        workloads = discover()
    except Exception as e:   # noqa: BLE001 - the parent lists the contestant as skipped
        answers.write(json.dumps({"error": f"{type(e).__name__}: {e}"}) + "\n")
        return 1
    version = None if contestant in ("numpy", "mutograd") else __import__(contestant).__version__
    answers.write(json.dumps({"version": version}) + "\n")
    now, fn = CLOCKS[clock], None
    for line in sys.stdin:
        req = json.loads(line)
        try:
            if "build" in req:
                fn = None
                w = workloads[req["build"]]
                fn = getattr(w, contestant)(w.tiny if req["tiny"] else w.full)
                for _ in range(req["warmup"]):
                    fn()
                answer = {"ok": True}
            elif "round" in req:
                t = now()
                fn()
                answer = {"seconds": now() - t}
            else:
                fn = None
                gc.collect()
                answer = {"ok": True}
        except Exception as e:   # noqa: BLE001 - reported with the workload, the run goes on
            fn = None
            answer = {"error": f"{type(e).__name__}: {e}"}
        answers.write(json.dumps(answer) + "\n")
    return 0


class WorkerError(RuntimeError):
    """A worker could not start, or died: ``str()`` is the reason (its last line of stderr)."""


class WorkloadError(RuntimeError):
    """A workload failed in a worker that is still alive."""


class Worker:
    """A contestant's worker process (:func:`worker`), driven one request at a time."""

    def __init__(self, contestant, threads, clock):
        self.contestant = contestant
        self._err = tempfile.TemporaryFile("w+")
        cmd = [sys.executable, "-m", "benchmarks.run", "--worker", contestant,
               "--threads", str(threads), "--clock", clock]
        self._p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=self._err, text=True, cwd=ROOT, env=_env(threads))
        self.version = None

    def start(self):
        """Wait for the worker's greeting; its framework's version (None for NumPy, mutograd)."""
        self.version = self._read()["version"]
        return self.version

    def ask(self, **request):
        """Send one request; its answer (raises WorkloadError or WorkerError)."""
        try:
            self._p.stdin.write(json.dumps(request) + "\n")
            self._p.stdin.flush()
        except OSError:
            pass   # it died: _read says why
        return self._read()

    def _read(self):
        line = self._p.stdout.readline()
        if not line:
            rc = self._p.wait()
            self._err.seek(0)
            lines = [ln for ln in self._err.read().splitlines() if ln.strip()]
            raise WorkerError(lines[-1].strip() if lines else f"exited with status {rc}")
        answer = json.loads(line)
        if "error" in answer:
            raise WorkloadError(answer["error"])
        return answer

    def close(self):
        try:
            self._p.stdin.close()
            self._p.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self._p.kill()
            self._p.wait()
        self._err.close()


def _env(threads):
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    for var in THREAD_VARS:
        env[var] = str(threads)
    return env


def _start(contestants, threads, clock, skipped):
    """The workers of the installed contestants, started together; the others go to
    ``skipped`` with the reason."""
    workers = {}
    for c in contestants:
        if not _available(c):
            skipped[c] = "not installed"
        else:
            workers[c] = Worker(c, threads, clock)
    for c, w in list(workers.items()):
        try:
            w.start()
        except (WorkerError, WorkloadError) as e:
            skipped[c] = f"cannot start: {e}"
            w.close()
            del workers[c]
    return workers


def run(names=None, contestants=None, tiny=False, repeat=7, threads=2, memory=True,
        out_dir=None, quiet=False, clock="wall"):
    """Run the workloads; returns the result dict (also written as JSON unless ``out_dir`` is
    False). ``clock="thread"`` times the worker thread's CPU time instead of wall time: immune
    to other programs on a busy machine, and meaningful only with ``threads=1`` (all work on the
    calling thread)."""
    if clock == "thread" and threads != 1:
        raise ValueError("the thread clock only measures the calling thread: use threads=1")
    from .workloads import CONTESTANTS, discover
    workloads = discover()
    names = list(names or workloads)
    unknown = [n for n in names if n not in workloads]
    if unknown:
        raise ValueError(f"unknown workload(s) {', '.join(unknown)}; --list shows them")
    wanted = list(dict.fromkeys(contestants or CONTESTANTS))
    bad = [c for c in wanted if c not in CONTESTANTS]
    if bad:
        raise ValueError(f"unknown contestant(s) {', '.join(bad)}; choose from "
                         f"{', '.join(CONTESTANTS)}")
    skipped, failed = {}, {}
    workers = _start(wanted, threads, clock, skipped)
    versions = {c: w.version for c, w in workers.items() if w.version}
    results = {"meta": _meta(threads, tiny, repeat, list(workers), versions), "skipped": skipped,
               "failed": failed, "workloads": {}}
    results["meta"]["clock"] = clock
    from mutograd import progress   # here: a worker imports only its own framework
    bar = progress.bar(names, total=len(names), desc="benchmarks", unit="workload")
    try:
        for name in bar:
            bar.set_description(name)
            row = _workload(name, workloads[name], workers, tiny, repeat, skipped, failed)
            if memory:
                for c in row["contestants"]:
                    row["contestants"][c].update(_memory(name, c, tiny, threads))
            results["workloads"][name] = row
            if not quiet:
                bar.write(f"  {name}: " + ", ".join(
                    f"{c} {v['median']:.3g}" for c, v in row["contestants"].items()),
                    file=sys.stderr)
    finally:
        bar.close()
        for w in workers.values():
            w.close()
    if out_dir is not False:
        out_dir = out_dir or os.path.join(os.path.dirname(__file__), "results")
        os.makedirs(out_dir, exist_ok=True)
        tag = "tiny" if tiny else f"{clock}-{threads}t"
        path = os.path.join(out_dir, f"latest-{tag}.json")
        with open(path, "w") as f:
            json.dump(results, f, indent=1)
        results["path"] = path
    return results


def run_threads(counts, names=None, contestants=None, tiny=False, repeat=7, memory=True,
                out_dir=None, quiet=False, clock="wall"):
    """:func:`run` once per thread count in ``counts``, each with workers of its own; returns
    ``{"threads": counts, "runs": {"1": <run>, "2": <run>}}`` (each run as :func:`run` returns
    it), also written as one JSON file unless ``out_dir`` is False."""
    counts = list(dict.fromkeys(counts))
    if clock == "thread" and counts != [1]:
        raise ValueError("the thread clock only measures the calling thread: it needs "
                         f"--threads 1, not {','.join(map(str, counts))}")
    results = {"threads": counts, "runs": {}}
    for n in counts:
        if not quiet:
            print(f"{n} thread(s):", file=sys.stderr)
        results["runs"][str(n)] = run(names, contestants, tiny, repeat, n, memory, False,
                                      quiet, clock)
    if out_dir is not False:
        out_dir = out_dir or os.path.join(os.path.dirname(__file__), "results")
        os.makedirs(out_dir, exist_ok=True)
        tag = "-".join(["tiny" if tiny else clock] + [f"{n}t" for n in counts])
        path = os.path.join(out_dir, f"latest-{tag}.json")
        with open(path, "w") as f:
            json.dump(results, f, indent=1)
        results["path"] = path
    return results


def _runs(results):
    """``(prefix, run)`` per run in a result: one with no prefix for a single run's result,
    ``"Nt "`` per thread count for :func:`run_threads`'s."""
    if "runs" not in results:
        return [("", results)]
    return [(f"{n}t ", r) for n, r in results["runs"].items()]


def _threads_text(results):
    counts = [str(r["meta"]["threads"]) for _, r in _runs(results)]
    return counts[0] if len(counts) == 1 else ", ".join(counts[:-1]) + " and " + counts[-1]


def _workload(name, w, workers, tiny, repeat, skipped, failed):
    """One workload's row: ``repeat`` rounds, one unit per worker in turn, the order reversed
    every other round. A worker that dies leaves the run (``skipped``); a workload that fails in
    a worker leaves its row (``failed``)."""
    ready = []
    for c in [c for c in workers if hasattr(w, c)]:
        try:
            workers[c].ask(build=name, tiny=tiny, warmup=1 if tiny else 2)
            ready.append(c)
        except WorkloadError as e:
            failed[f"{name} / {c}"] = str(e)
        except WorkerError as e:
            skipped[c] = f"died during {name}: {e}"
            workers.pop(c).close()
    times = {c: [] for c in ready}
    for i in range(repeat):
        for c in (ready if i % 2 == 0 else ready[::-1]):
            if c not in times:
                continue
            try:
                times[c].append(workers[c].ask(round=True)["seconds"])
            except WorkloadError as e:
                failed[f"{name} / {c}"] = str(e)
                del times[c]
            except WorkerError as e:
                skipped[c] = f"died during {name}: {e}"
                workers.pop(c).close()
                del times[c]
    for c in times:
        try:
            workers[c].ask(free=True)
        except (WorkloadError, WorkerError):
            pass   # the next request says so
    row = {"group": w.group, "desc": w.desc, "unit": w.unit, "contestants": {}}
    per = (w.tiny if tiny else w.full).get("k", 1)
    scale = 1e6 if w.unit == "us/op" else 1e3
    for c, ts in times.items():
        ts = [t / per * scale for t in ts]
        row["contestants"][c] = {"median": _median(ts), "min": min(ts), "max": max(ts),
                                 "rounds": ts}
    return row


def ratios(row, other):
    """mutograd's time over ``other``'s on one workload row: ``{median, min, max}`` over the
    rounds (each round's pair ran back to back), or from the summaries when a result file has
    no rounds; None when either is missing."""
    v = row["contestants"]
    if "mutograd" not in v or other not in v:
        return None
    a, b = v["mutograd"], v[other]
    if a.get("rounds") and b.get("rounds") and len(a["rounds"]) == len(b["rounds"]):
        rs = [x / y for x, y in zip(a["rounds"], b["rounds"])]
        return {"median": _median(rs), "min": min(rs), "max": max(rs)}
    return {"median": a["median"] / b["median"], "min": a["min"] / b["max"],
            "max": a["max"] / b["min"]}


def _memory(name, contestant, tiny, threads):
    cmd = [sys.executable, "-m", "benchmarks.run", "--child", name, contestant,
           "--threads", str(threads)] + (["--tiny"] if tiny else [])
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=_env(threads),
                       timeout=600, check=False)
    if p.returncode != 0:
        return {"memory_error": p.stderr.strip().splitlines()[-1] if p.stderr else "failed"}
    return json.loads(p.stdout.strip().splitlines()[-1])


def _meta(threads, tiny, repeat, contestants, versions=()):
    import numpy
    meta = {"machine": platform.machine(), "cpu": _cpu_name(), "cores": os.cpu_count(),
            "python": platform.python_version(), "numpy": numpy.__version__,
            "threads": threads, "tiny": tiny, "repeat": repeat, "contestants": contestants,
            "processes": "one worker per contestant, rounds alternating",
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    meta.update(versions)
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
    """The markdown tables: times with ratios to mutograd, then memory. A result of several
    thread counts (:func:`run_threads`) gets a column group per count, its headers prefixed
    ``1t``, ``2t``, ..."""
    from .workloads import CONTESTANTS
    runs = _runs(results)
    names = list(dict.fromkeys(n for _, r in runs for n in r["workloads"]))
    cs = [c for c in CONTESTANTS
          if any(c in r["contestants"] for _, run in runs for r in run["workloads"].values())]
    others = [c for c in cs if c != "mutograd"]

    def times(r):
        v = r["contestants"]
        return ([f"{v[c]['median']:.3g} ({v[c]['min']:.3g}-{v[c]['max']:.3g})" if c in v
                 else "-" for c in cs]
                + [f"{q['median']:.2f}x ({q['min']:.2f}-{q['max']:.2f})" if q else "-"
                   for q in (ratios(r, c) for c in others)])

    def memory(r):
        v = r["contestants"]
        m = v.get("mutograd", {})
        return ([_mib(v[c].get("rss_peak")) if c in v else "-" for c in cs]
                + [_mib(m.get("mg_peak")), _mib(m.get("mg_bytes_per_unit"))])

    out = _grouped(runs, names, ["unit"], times, [f"{c} median (min-max)" for c in cs]
                   + [f"mutograd / {c} (min-max)" for c in others])
    if any("rss_peak" in v for _, run in runs for r in run["workloads"].values()
           for v in r["contestants"].values()):
        out += [""] + _grouped(runs, names, [], memory, [f"{c} peak RSS MiB" for c in cs] + [
            "mutograd peak tensor MiB", "mutograd MiB allocated per unit"])
    meta = runs[0][1]["meta"]
    out.append("")
    out.append(f"{meta['cpu']}, {meta['cores']} cores, {_threads_text(results)} threads; Python "
               f"{meta['python']}, NumPy {meta['numpy']}"
               + "".join(f", {c} {meta[c]}" for c in ("torch", "paddle") if c in meta)
               + f"; {meta['repeat']} rounds, {meta.get('clock', 'wall')} clock"
               + (", one process per contestant" if "processes" in meta else "")
               + f"; {meta['date']}")
    out += _not_run(results)
    return "\n".join(out)


def _grouped(runs, names, keys, cells, heads):
    """A markdown table, one line per workload in ``names``: its description, its ``keys``,
    then ``cells(row)`` for each run under ``heads`` (prefixed with the run's thread count when
    there are several); dashes where a run lacks the workload."""
    head = [f"{pre}{h}" for pre, _ in runs for h in heads]
    out = ["| " + " | ".join(["workload"] + keys + head) + " |",
           "|---" * (1 + len(keys) + len(head)) + "|"]
    for name in names:
        rows = [run["workloads"].get(name) for _, run in runs]
        first = next(r for r in rows if r)
        line = [first["desc"]] + [first[k] for k in keys]
        for r in rows:
            line += cells(r or {"contestants": {}})
        out.append("| " + " | ".join(line) + " |")
    return out


def _not_run(results):
    """The lines naming the contestants that did not run, and the workloads that failed; with
    several thread counts, once if every count says the same, else per count."""
    per = [(pre, _not_run_once(r)) for pre, r in _runs(results)]
    if all(lines == per[0][1] for _, lines in per):
        return per[0][1]
    return [f"{pre}{line}" for pre, lines in per for line in lines]


def _not_run_once(results):
    lines = []
    skipped = results.get("skipped") or {}
    if skipped:
        lines.append("skipped: " + "; ".join(f"{c}: {why}" for c, why in skipped.items()))
    for what, why in (results.get("failed") or {}).items():
        lines.append(f"failed: {what}: {why}")
    return lines


def plot(results, path):
    """Draw mutograd's time ratio to each other contestant per workload (median over the rounds,
    min-max as error bars, a line at 1.0) into ``path`` (PNG, SVG or PDF by its suffix). With
    several thread counts, a series (colour) per contestant and count, the marker telling the
    count.

    Raises ImportError, saying how to install it, without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError as e:
        raise ImportError(PLOT_NEEDS) from e
    from .workloads import CONTESTANTS
    runs = _runs(results)
    several = len(runs) > 1
    rows = {}
    for _, run in runs:
        for n, r in run["workloads"].items():
            rows.setdefault(n, r)
    others = [c for c in CONTESTANTS if c != "mutograd"
              and any(ratios(r, c) for _, run in runs for r in run["workloads"].values())]
    # one series per contestant and thread count, each its own colour; the marker tells the count
    series = [(c, f"mutograd / {c}" + (f", {run['meta']['threads']} thread(s)" if several
                                       else ""), "os^Dv"[j % 5], run["workloads"])
              for c in others for j, (_, run) in enumerate(runs)]
    names = [n for n in rows
             if any(n in run["workloads"] and ratios(run["workloads"][n], c)
                    for c in others for _, run in runs)]
    fig, ax = plt.subplots(figsize=(9, 1.8 + 0.42 * max(len(names), 1) * (1.5 if several
                                                                               else 1)))
    step = 0.8 / max(len(series), 1)
    for k, (c, label, marker, wrows) in enumerate(series):
        ys, med, lo, hi = [], [], [], []
        for i, n in enumerate(names):
            q = ratios(wrows[n], c) if n in wrows else None
            if q:
                ys.append(i - 0.4 + step * (k + 0.5))
                med.append(q["median"])
                lo.append(q["median"] - q["min"])
                hi.append(q["max"] - q["median"])
        ax.errorbar(med, ys, xerr=[lo, hi], fmt=marker, color=f"C{k}", capsize=3, label=label)
    ax.axvline(1.0, color="0.4", linestyle="--", linewidth=1)
    ax.set_xscale("log")
    lo, hi = ax.get_xlim()
    powers = [k for k in range(-12, 13) if lo <= 2.0 ** k <= hi]
    every = -(-len(powers) // 9)   # at most 9 labels, 1x among them
    ticks = [2.0 ** k for k in powers if k % every == 0]
    ax.set_xticks(ticks, [f"{t:.3g}x" for t in ticks])
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_yticks(range(len(names)), [rows[n]["desc"] for n in names], fontsize=8)
    ax.set_ylim(len(names) - 0.5, -0.5)
    ax.set_xlabel("time ratio, mutograd / contestant: median over the rounds, bars min-max\n"
                  "(left of 1: mutograd faster)", fontsize=8)
    meta = runs[0][1]["meta"]
    ax.set_title(f"{_threads_text(results)} thread(s), {meta.get('clock', 'wall')} clock, "
                 f"{meta['repeat']} rounds; {meta['date']}", fontsize=9)
    skipped = _not_run(results)
    skipped = [line for line in skipped if "skipped: " in line]
    if skipped:
        fig.text(0.01, 0.005, "; ".join(skipped), fontsize=7)
    if others:
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def thread_counts(text):
    """``--threads``: a comma list of thread counts, ``all`` meaning every core; repeated
    counts once. ``thread_counts("1,all")`` is ``[1, 2]`` on two cores."""
    counts = []
    for part in text.split(","):
        part = part.strip()
        if part == "all":
            n = os.cpu_count() or 1
        else:
            n = int(part) if part.isdigit() else 0
        if n < 1:
            raise argparse.ArgumentTypeError(
                f"{part!r} is not a thread count: give whole numbers >= 1 or 'all', "
                "separated by commas")
        counts.append(n)
    return list(dict.fromkeys(counts))


PLOT_NEEDS = "--plot needs matplotlib: pip install 'mutograd[plot]'"


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__.split("\n")[0],
        epilog="Each contestant runs in a worker process of its own, the rounds alternating "
               "between them; the ratios' spread is over the rounds. Contestants that are not "
               "installed or cannot start are listed under the table as skipped, with the "
               "reason. See benchmarks/README.md.")
    p.add_argument("--only", nargs="*", help="workload names (default: all)")
    p.add_argument("--contestants", nargs="*", help="default: mutograd torch paddle numpy")
    p.add_argument("--repeat", type=int, default=7, help="timed rounds (default 7)")
    p.add_argument("--threads", type=thread_counts, default="2", metavar="N[,N...]",
                   help="threads for every contestant (default 2); a comma list such as 1,all "
                        "(all: every core) runs the workloads once per count and prints them "
                        "side by side")
    p.add_argument("--tiny", action="store_true", help="tiny sizes (a smoke run)")
    p.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                   help="wall time, or the thread's CPU time (needs --threads 1; robust on a "
                        "busy machine)")
    p.add_argument("--no-memory", action="store_true", help="skip the memory subprocesses")
    p.add_argument("--list", action="store_true", help="list the workloads")
    p.add_argument("--plot", metavar="PNG", help="also draw mutograd's time ratio to each "
                   "contestant per workload, with its spread (needs matplotlib)")
    p.add_argument("--from-json", metavar="JSON", help="print the table (and --plot) of an "
                   "earlier run's results file instead of running")
    p.add_argument("--child", nargs=2, metavar=("WORKLOAD", "CONTESTANT"), help=argparse.SUPPRESS)
    p.add_argument("--worker", metavar="CONTESTANT", help=argparse.SUPPRESS)
    p.add_argument("--units", type=int, default=3, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    counts, a.threads = a.threads, a.threads[0]
    _set_threads(a.threads)
    if a.child:
        return child(a.child[0], a.child[1], a.tiny, a.threads, a.units)
    if a.worker:
        return worker(a.worker, a.threads, a.clock)
    if len(counts) > 1 and a.clock == "thread":
        p.error("--clock thread measures only the calling thread and needs --threads 1, not a "
                f"list ({','.join(map(str, counts))}): use the wall clock to compare thread "
                "counts")
    if a.list:
        from .workloads import discover
        for name, w in discover().items():
            print(f"{name:20} {w.desc}")
        return None
    if a.plot:   # before a long run, not after it
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            p.error(PLOT_NEEDS)
    if a.from_json:
        with open(a.from_json) as f:
            res = json.load(f)
    else:
        try:
            if len(counts) > 1:
                res = run_threads(counts, a.only, a.contestants, a.tiny, a.repeat,
                                  not a.no_memory, clock=a.clock)
            else:
                res = run(a.only, a.contestants, a.tiny, a.repeat, a.threads, not a.no_memory,
                          clock=a.clock)
        except ValueError as e:
            p.error(str(e))
    print(table(res))
    if "path" in res:
        print(f"\nresults: {res['path']}", file=sys.stderr)
    if a.plot:
        print(f"plot: {plot(res, a.plot)}", file=sys.stderr)
    return res


if __name__ == "__main__":
    main()
