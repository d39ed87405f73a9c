"""``python -m tests.serialization.hostile --files 1000 --flips 10000``: the sweep of
:mod:`tests.serialization.hostile.sweep`; exits with 1 when a count that must be zero is not."""
import argparse
import sys

from .isolated import COUNTS
from .sweep import named_files, report, sweep


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=1000, help="hostile files (at least the "
                    "hand-written ones)")
    ap.add_argument("--flips", type=int, default=10000, help="single-bit flips of genuine files")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    n_random = max(args.files - len(named_files()), 0)
    counts, failures, outcomes = sweep(n_random, args.flips, args.seed, args.workers)
    print(report(counts, failures, outcomes))
    return int(any(counts[k] for k in COUNTS))


if __name__ == "__main__":
    sys.exit(main())
