"""``python -m mutograd check [--as torch|paddle] SCRIPT [ARGS...]``: run a script under strict
and anomaly mode (a PyTorch or Paddle script on mutograd's namespace for it with ``--as``).

On an in-place, version, leaf or overlap error (or a write into an array that strict mode made
read-only) it prints a short report - the failing line, the write that caused it, the fix - and
exits with status 1. On success it says the script ran clean and how many in-place writes it saw.
Either way it lists each copy that a write into a saved tensor forced under
``allow_mutation_on_saved_tensors``, with the line of the write (autograd/saved.py).
"""
import argparse
import os
import runpy
import sys
import traceback

from ..autograd import sites
from ..autograd.anomaly import set_detect_anomaly
from ..autograd.explain import spell
from ..autograd.saved import logging_copies
from ..autograd.node import VersionCounter
from ..errors import DTypeError, InplaceError, MutogradError, OverlapError, ShapeError
from ..strict import set_strict

FRAMEWORKS = ("torch", "paddle")
STRICT_FIX = ("write through the tensor (t[...] = v, t.copy_(...)) so that autograd sees the "
              "write, or write into a copy (t.numpy().copy())")
_NOT_WRITES = ("grad accumulation",)   # the engine's own bumps of .grad, not the script's writes
_WRITE_ERRORS = (InplaceError, OverlapError, ShapeError, DTypeError)   # raised at the write


class count_writes:
    """Count version-counter bumps (by op) while active.

    The hook replaces ``VersionCounter.bump`` only inside the block, so ops outside a check pay
    nothing for it. The writes a create_graph backward records for its gradient formulas (Note
    [Differentiable gradient formulas]) are the engine's, not the script's: not counted.
    """

    def __enter__(self):
        self.by_op = {}
        orig = self._orig = VersionCounter.bump
        by_op = self.by_op

        def bump(counter, op_name="write"):
            if sites.running.node is None:
                by_op[op_name] = by_op.get(op_name, 0) + 1
            orig(counter, op_name)
        VersionCounter.bump = bump
        return self

    def __exit__(self, *exc):
        VersionCounter.bump = self._orig
        return False

    @property
    def count(self):
        return sum(n for op, n in self.by_op.items() if op not in _NOT_WRITES)


def framework_imported(path):
    """``'torch'`` or ``'paddle'`` when the script imports that framework itself (``import
    torch``, ``from paddle.nn import Linear``), else None."""
    import ast
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return None   # the run itself reports it
    for node in ast.walk(tree):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and node.module and \
            not node.level else []
        for name in names:
            if name.split(".")[0] in FRAMEWORKS:
                return name.split(".")[0]
    return None


def parser():
    """The options of ``python -m mutograd check``."""
    p = argparse.ArgumentParser(
        prog="python -m mutograd check",
        usage="%(prog)s [-h] [--as {torch,paddle}] SCRIPT [ARGS...]",
        description="Run a script under strict and anomaly mode. On an in-place, version, leaf\n"
                    "or overlap error (or a write into a NumPy array that aliases a tensor),\n"
                    "print a short report - the failing line, the write that caused it, the\n"
                    "fix - and exit with status 1; else say that it ran clean and how many\n"
                    "in-place writes it saw. Either way, list each copy that a write into a\n"
                    "saved tensor forced under allow_mutation_on_saved_tensors.",
        epilog="examples:\n"
               "  python -m mutograd check train.py --epochs 1\n"
               "  python -m mutograd check --as torch train_torch.py\n"
               "  python -m mutograd check --as paddle train_paddle.py",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--as", dest="framework", choices=FRAMEWORKS, default=None,
                   help="run a PyTorch or Paddle script unmodified: `import torch` (or "
                        "`paddle`) gives mutograd's namespace for it, as `python -m mutograd "
                        "run --as` does")
    p.add_argument("script", metavar="SCRIPT", help="path of the script")
    p.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS",
                   help="the script's own arguments")
    return p


def main(argv):
    """Run ``SCRIPT`` with ``sys.argv = [SCRIPT, *ARGS]`` under strict and anomaly mode (and the
    PyTorch or Paddle namespace with ``--as``); returns the exit status (2: a usage error)."""
    p = parser()
    if not argv:
        p.error("the script to check is missing")
    ns = p.parse_args(list(argv))
    script = ns.script
    if not os.path.isfile(script):
        p.error(f"no such script: {script}")
    path = os.path.abspath(script)
    imported = None if ns.framework else framework_imported(path)
    if imported:
        print(f"mutograd check: {script} imports {imported}; check it on mutograd's {imported} "
              f"namespace with:\n  python -m mutograd check --as {imported} {script}",
              file=sys.stderr)
        return 2
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [script, *ns.args]
    sys.path.insert(0, os.path.dirname(path))
    copies = []
    try:
        with set_strict(True), set_detect_anomaly(True), count_writes() as writes, \
                logging_copies() as copies:
            if ns.framework:
                from ..compat import run_script
                run_script(script, ns.framework, ns.args)
            else:
                runpy.run_path(path, run_name="__main__")
    except SystemExit as e:
        if e.code not in (None, 0):
            print(f"mutograd check: {script} exited with status {e.code}", file=sys.stderr)
            return e.code if isinstance(e.code, int) else 1
    except Exception as e:   # noqa: BLE001 - every failure of the script is reported
        if isinstance(e, MutogradError) or _read_only(e):
            print(report(e), file=sys.stderr)
        else:
            traceback.print_exc()
            print(f"mutograd check: {script} failed with {type(e).__name__}", file=sys.stderr)
        return 1
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
        if copies:
            print(copies_report(copies), file=sys.stderr)
    ops = ", ".join(f"{op}: {n}" for op, n in sorted(writes.by_op.items(), key=lambda i: -i[1])
                    if op not in _NOT_WRITES)
    print(f"mutograd check: {script} ran clean under strict and anomaly mode; "
          f"{writes.count} in-place writes seen{f' ({ops})' if ops else ''}", file=sys.stderr)
    return 0


def copies_report(copies):
    """The lines listing the copies writes into saved tensors forced (autograd/saved.py)."""
    total = sum(c.nbytes for c in copies)
    lines = [f"mutograd check: {len(copies)} write(s) into saved tensors copied {total} bytes "
             f"(allow_mutation_on_saved_tensors):"]
    for c in copies:
        lines.append(f"  copy: {spell(c.what)} at {sites.fmt(c.site)} copied {c.nbytes} bytes "
                     f"of a tensor of shape {list(c.shape)} and dtype {c.dtype} saved at "
                     f"{sites.fmt(c.saved_at)}")
        code = sites.source(c.site)
        if code:
            lines.append(f"      {code}")
    return "\n".join(lines)


def _read_only(e):
    return isinstance(e, ValueError) and "read-only" in str(e)


def failing_frame(e):
    """The innermost frame of ``e``'s traceback in the user's code: ``(file, line, source)``."""
    frames = traceback.extract_tb(e.__traceback__)
    for fr in reversed(frames):
        if sites.kind(fr.filename) == sites.USER:
            return fr.filename, fr.lineno, (fr.line or "").strip()
    fr = frames[-1] if frames else None
    return (fr.filename, fr.lineno, (fr.line or "").strip()) if fr else ("<unknown>", 0, "")


def report(e):
    """The short report for a diagnosed failure (see the module docstring)."""
    filename, lineno, code = failing_frame(e)
    msg = str(e)
    lines = [f"mutograd check: FAILED with {type(e).__name__}",
             f"  failing line: {filename}:{lineno}"]
    if code:
        lines.append(f"      {code}")
    lines.append(f"  cause: {msg.splitlines()[0] if msg else type(e).__name__}")
    writes = getattr(e, "writes", None)
    if writes:
        for v, op, where, src in writes:
            lines.append(f"  write: {op} at {where} (version {v})")
            if src:
                lines.append(f"      {src}")
    elif isinstance(e, _WRITE_ERRORS) or _read_only(e):
        lines.append("  write: the failing line itself")
    else:   # e.g. a NaN found by anomaly mode: the rest of the message names the node's stack
        lines += [f"  {ln}" for ln in msg.splitlines()[1:]]
    fix = getattr(e, "fix", None)
    if fix is None and _read_only(e):
        fix = ("a NumPy array that aliases a tensor was written while strict mode was on; "
               + STRICT_FIX)
    if fix is None:
        fix = next((ln[5:] for ln in msg.splitlines() if ln.startswith("Fix: ")), None)
    if fix is None and "clone()" in msg:
        fix = "clone() the tensor before the write"
    if fix:
        lines.append(f"  fix: {fix.rstrip('.')}.")
    return "\n".join(lines)
