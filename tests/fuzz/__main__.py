"""``python -m tests.fuzz --n 100000 --seed 0 --jobs 2``: a sweep, its counts per class and
category, and a shrunk reproducer of the first program of each failing category.

``--program SEED`` prints one program, both renderings and its outcome.
"""
import argparse
import collections
import multiprocessing
import sys
import time

from . import run
from .generate import generate
from .run import classify, torch
from .shrink import reproducer, shrink

CHUNK = 100
CHUNK_TIMEOUT = 300   # seconds: a chunk of programs takes a few


def program_seed(seed, i):
    """The seed of program ``i`` of the sweep ``seed``: sweeps of different seeds never meet."""
    return seed * 10_000_000 + i


def _work(args):
    seed, start, stop = args
    out = []
    for i in range(start, stop):
        ps = program_seed(seed, i)
        try:
            p = generate(ps)
            o = classify(p)
            out.append((ps, o.cls, o.category, uses_create_graph(p)))
        except Exception as e:   # noqa: BLE001 - a fuzzer bug is reported, not fatal
            out.append((ps, "fuzzer-error", f"{type(e).__name__}: {e}", False))
    return out


def uses_create_graph(program):
    return "create_graph=True" in program.source()


def sweep(n, seed=0, jobs=1, progress=None):
    """{(class, category): [program seeds]} over ``n`` programs; the seeds of the programs
    that use create_graph are under the key ``"create_graph"``."""
    tasks = [(seed, s, min(s + CHUNK, n)) for s in range(0, n, CHUNK)]
    found = collections.defaultdict(list)
    done = 0
    if jobs > 1:
        pool = multiprocessing.get_context("fork").Pool(jobs)
        results = pool.imap_unordered(_work, tasks)
    else:
        pool, results = None, map(_work, tasks)
    try:
        for _ in tasks:
            try:   # a worker that dies or hangs never answers
                chunk = next(results) if pool is None else results.next(timeout=CHUNK_TIMEOUT)
            except multiprocessing.TimeoutError:
                pool.terminate()
                raise RuntimeError(
                    f"no answer for {CHUNK_TIMEOUT} s after {done} programs: a worker died or "
                    f"hung; find the program with --jobs 1") from None
            for ps, cls, cat, higher in chunk:
                found[(cls, cat)].append(ps)
                if higher:
                    found["create_graph"].append(ps)
            done += len(chunk)
            if progress:
                progress(done)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    for k in found:
        found[k].sort()
    return found


def report(found, shrink_first=True, out=sys.stdout):
    found = dict(found)
    higher = found.pop("create_graph", [])
    by_class = collections.Counter()
    for (cls, _), seeds in found.items():
        by_class[cls] += len(seeds)
    total = sum(by_class.values())
    print("programs per class:", ", ".join(f"{c} {n}" for c, n in sorted(by_class.items())),
          file=out)
    share = 100 * len(higher) / max(total, 1)
    print(f"using create_graph: {len(higher)} of {total} ({share:.1f}%)", file=out)
    for (cls, cat), seeds in sorted(found.items(), key=lambda kv: (kv[0][0], -len(kv[1]))):
        print(f"  {cls:9} {len(seeds):7}  {cat or '-'}   (first: --program {seeds[0]})",
              file=out)
    if not shrink_first:
        return
    for (cls, cat), seeds in sorted(found.items()):
        if cls in ("ok", "fuzzer-error", "no-oracle"):
            continue
        p = generate(seeds[0])
        o = classify(p)
        small = shrink(p, o)
        print(f"\n==== {cls}: {cat}  (program {seeds[0]}, {len(seeds)} in all)", file=out)
        print(reproducer(small, classify(small)), file=out)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    ap.add_argument("--n", type=int, default=1000, help="how many programs")
    ap.add_argument("--seed", type=int, default=0, help="the sweep's seed")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--no-shrink", action="store_true", help="counts only")
    ap.add_argument("--program", type=int, help="show one program (a seed from a sweep)")
    args = ap.parse_args(argv)
    if torch is None:
        sys.exit("the fuzzer compares against PyTorch: pip install torch")
    run.ISOLATE = True   # a PyTorch crash costs its program, not the sweep
    if args.program is not None:
        p = generate(args.program)
        o = classify(p)
        print(p.source())
        if any(s.alt for s in p.stmts):
            print("\n# PyTorch's rendering:\n" + p.source("torch"))
        print(f"\n# {o.cls}: {o.category}\n# {o.detail}")
        if o.cls != "ok":
            print("\n# shrunk:\n" + reproducer(shrink(p, o), o))
        return
    t0 = time.perf_counter()
    found = sweep(args.n, args.seed, args.jobs,
                  progress=lambda d: print(f"\r{d}/{args.n}", end="", file=sys.stderr))
    print(f"\r{args.n} programs in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    report(found, not args.no_shrink)


if __name__ == "__main__":
    main()
