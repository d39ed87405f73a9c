"""The sweep: hostile files and bit flips of genuine files, each loaded in a memory-limited
child process, with the counts issue 26 asks to be zero::

    python -m tests.serialization.hostile --files 1000 --flips 10000   # about 5 minutes, 2 cores

``--files`` hostile files: the hand-written ones (:func:`corpus.named`; the PyTorch and pickle
ones also through ``mutograd.compat.torch.load(weights_only=True)``), then seeded random
variants. ``--flips`` single-bit flips at seeded positions, shared among the genuine files of
:func:`corpus.real_checkpoints`: a flipped mutograd checkpoint must be refused; a flipped
PyTorch or Paddle file must be refused or loaded within its budget (Paddle's files have no
checksum, so a flip in an array's bytes loads; the sweep says how often).
"""
import random
from collections import Counter

from . import corpus, isolated


def named_files():
    """The hand-written hostile files as :func:`isolated.run` takes them, with what each must
    do; the PyTorch and pickle ones twice, the second time through compat.torch.load."""
    files = []
    for h in corpus.named():
        ask = {"data": h.data, "pattern": corpus.PATTERN, "max_bytes": h.max_bytes}
        files.append((h.name, h.expect, ask))
        if h.name.startswith((".pt", "pickle")) and h.max_bytes is None:
            files.append((h.name + " (compat.torch.load)", h.expect,
                          {**ask, "via": "compat.torch"}))
    return files


def random_files(n, seed=0):
    """``n`` seeded random hostile files, as :func:`named_files` gives them."""
    return [(h.name, h.expect, {"data": h.data, "pattern": corpus.PATTERN})
            for h in corpus.variants(n, seed)]


def flipped_files(n, seed=0):
    """``n`` single-bit flips of the genuine files, spread evenly, at seeded positions."""
    rng = random.Random(seed)
    real = corpus.real_checkpoints()
    files = []
    for i, (name, data) in enumerate(real.items()):
        for _ in range(n // len(real) + (i < n % len(real))):
            pos, bit = rng.randrange(len(data)), rng.randrange(8)
            flipped = bytearray(data)
            flipped[pos] ^= 1 << bit
            expect = "different" if name.startswith("mutograd") else "foreign"
            files.append((f"{name}, bit {bit} of byte {pos}", expect,
                          {"data": bytes(flipped), "original": name}))
    return files, real


def sweep(n_random, n_flips, seed=0, workers=2, named=True):
    """Load the hand-written hostile files (``named``), ``n_random`` random ones and
    ``n_flips`` flipped genuine files: ``(counts, failures, outcomes)``, the counts of
    :data:`isolated.COUNTS` (and :data:`isolated.FOREIGN_CHANGED`), the files behind each
    nonzero one, and how the loads ended."""
    files = (named_files() if named else []) + random_files(n_random, seed)
    flips, real = flipped_files(n_flips, seed)
    originals = dict(zip(real, (r.get("fingerprint") for r in isolated.run(
        [{"data": d} for d in real.values()], workers))))
    asked = files + flips
    results = isolated.run([{k: v for k, v in ask.items() if k != "original"}
                            for _, _, ask in asked], workers)
    counts = Counter({k: 0 for k in isolated.COUNTS})
    failures, outcomes = {}, Counter()
    for (name, expect, ask), result in zip(asked, results):
        outcomes[result["outcome"]] += 1
        for verdict in isolated.verdicts(result, expect, originals.get(ask.get("original"))):
            counts[verdict] += 1
            failures.setdefault(verdict, []).append(f"{name}: {result.get('message', '')}")
    outcomes["hostile files"], outcomes["bit flips"] = len(files), len(flips)
    return counts, failures, outcomes


def report(counts, failures, outcomes):
    """The sweep's counts as text (a few files named for each nonzero one)."""
    lines = [f"{outcomes['hostile files']} hostile files and {outcomes['bit flips']} bit flips: "
             + ", ".join(f"{outcomes[k]} {k}" for k in ("refused", "loaded", "other", "crash",
                                                         "hang") if outcomes[k])]
    for k in isolated.COUNTS + [isolated.FOREIGN_CHANGED]:
        lines.append(f"{counts[k]:>7}  {k}")
        lines += [f"           {f}" for f in failures.get(k, [])[:5]]
    return "\n".join(lines)
