"""Loading files in child processes with an address-space limit, and judging what happened.

A worker (``python -m tests.serialization.hostile.isolated``) imports mutograd, loads one genuine
file of each format (so that no import happens while it measures), limits its address space, then
answers one JSON line per file it is sent: how ``mutograd.load`` ended, the peak of memory traced
while it ran (NumPy's buffers included) against the load's budget, a fingerprint of what it loaded,
whether every loaded value is made of the file's pattern byte, and whether the ``safetensors``
library accepts the file. A worker that dies or hangs is a crash or a hang of the file it was
loading; the next file gets a new worker. :func:`run` drives the workers; :func:`verdicts` turns a
result into the counts the sweep reports.
"""
import hashlib
import json
import os
import select
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))   # the repository
HEADROOM = 1 << 30      # address space a worker may add after its warm-up
SLACK = 1 << 20         # what Python itself may allocate around a load
TIMEOUT = 60


# ---- the worker ----------------------------------------------------------------------------
def _allowed_values(pattern):
    """dtype -> the values an array built only from ``pattern`` bytes can hold."""
    import numpy as np

    from mutograd.serialization.arrays import STORED, build
    from mutograd.serialization.budget import Budget
    allowed = {}
    for name in STORED:
        for widen in (True, False):
            v = build(bytes([pattern]) * 16, name, (), budget=Budget("pattern", 16),
                      what="pattern", widen=widen)
            v = v[()]
            allowed.setdefault(v.dtype, set()).update(
                {v} if v.dtype == bool else {v, -v, np.conj(v)})
    return allowed


def _arrays(x, seen=None):
    """Every array in a loaded object (tensors, NumPy arrays and scalars)."""
    import numpy as np

    import mutograd as mg
    seen = set() if seen is None else seen
    if id(x) in seen:
        return
    seen.add(id(x))
    if isinstance(x, mg.Tensor):
        yield x.numpy()
    elif isinstance(x, (np.ndarray, np.generic)):
        yield np.asarray(x)
    elif isinstance(x, dict):
        for v in x.values():
            yield from _arrays(v, seen)
    elif isinstance(x, (list, tuple)):
        for v in x:
            yield from _arrays(v, seen)


def _fingerprint(x):
    """A digest of what was loaded: structure, keys, dtypes, shapes, places, flags, bytes."""
    import numpy as np

    import mutograd as mg
    h, seen = hashlib.sha256(), {}

    def walk(x):
        if id(x) in seen:   # a shared part, once (a file may share one list 10**39 times)
            h.update(f"R{seen[id(x)]}".encode())
            return
        seen[id(x)] = len(seen)
        if isinstance(x, mg.Tensor):
            h.update(f"T{x.dtype}{x.shape}{x.place}{x.requires_grad}{type(x).__name__}".encode())
            h.update(np.ascontiguousarray(x.numpy()).tobytes())
        elif isinstance(x, (np.ndarray, np.generic)):
            h.update(f"A{x.dtype}{np.shape(x)}".encode())
            h.update(np.ascontiguousarray(x).tobytes())
        elif isinstance(x, dict):
            h.update(f"D{type(x).__name__}{len(x)}".encode())
            for k, v in x.items():
                h.update(repr(k).encode())
                walk(v)
        elif isinstance(x, (list, tuple)):
            h.update(f"L{type(x).__name__}{len(x)}".encode())
            for v in x:
                walk(v)
        else:
            h.update(f"V{type(x).__name__}{x!r}".encode())
    walk(x)
    return h.hexdigest()


def _check(req, allowed):
    import gc
    import tracemalloc
    import warnings

    import numpy as np

    import mutograd as mg
    from mutograd.errors import CheckpointError
    from mutograd.serialization.budget import Budget
    path = req["path"]
    with open(path, "rb") as f:
        data = f.read()
    out = {"size": len(data), "limit": Budget(path, len(data), req.get("max_bytes")).limit}
    if data[8:9] == b"{":
        import safetensors
        try:
            safetensors.deserialize(data)
            out["library"] = "accepts"
        except Exception:  # noqa: BLE001  (the library's refusal, whatever its type)
            out["library"] = "refuses"
    del data
    gc.collect()
    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    start = time.perf_counter()
    loaded = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if req.get("via") == "compat.torch":
                import mutograd.compat.torch as torch
                loaded = torch.load(path, weights_only=True, max_bytes=req.get("max_bytes"))
            else:
                loaded = mg.load(path, max_bytes=req.get("max_bytes"))
        out["outcome"] = "loaded"
    except CheckpointError as e:
        out["outcome"] = "refused"
        out["message"] = str(e)[:300]
        cause = e
        while cause is not None:
            if isinstance(cause, MemoryError) and not isinstance(cause, CheckpointError):
                out["memory_error"] = True
            cause = cause.__cause__
    except BaseException as e:  # noqa: BLE001  (what the sweep counts)
        out["outcome"] = "other"
        out["message"] = f"{type(e).__name__}: {str(e)[:300]}"
        out["memory_error"] = isinstance(e, MemoryError)
    out["seconds"] = time.perf_counter() - start
    out["peak"] = tracemalloc.get_traced_memory()[1] - before - out["size"]
    if loaded is not None:
        out["fingerprint"] = _fingerprint(loaded)
        if req.get("pattern") is not None:
            bad = [a for a in _arrays(loaded) if a.size and not np.isin(
                a, list(allowed.get(a.dtype, ()))).all()]
            out["foreign_values"] = bool(bad)
            out["zero_values"] = any((a == 0).any() for a in bad)
    del loaded
    gc.collect()   # an array the file made unsafely crashes when it is freed: here, not later
    return out


def _serve():
    import gc
    import resource
    import tracemalloc

    import mutograd as mg
    from tests.serialization.hostile.corpus import PATTERN, real_checkpoints
    with tempfile.TemporaryDirectory() as d:   # warm up: every reader imported once
        for i, data in enumerate(real_checkpoints().values()):
            with open(os.path.join(d, str(i)), "wb") as f:
                f.write(data)
            mg.load(os.path.join(d, str(i)))
    allowed = _allowed_values(PATTERN)
    with open("/proc/self/status") as f:
        vm = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize"))
    resource.setrlimit(resource.RLIMIT_AS, (vm + HEADROOM, resource.RLIM_INFINITY))
    gc.freeze()   # what the imports made is never collected again: each collection is quick
    tracemalloc.start()
    print("ready", flush=True)
    for line in sys.stdin:
        print(json.dumps(_check(json.loads(line), allowed)), flush=True)


# ---- the parent ----------------------------------------------------------------------------
class _Worker:
    def __init__(self):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [ROOT] + os.environ.get("PYTHONPATH", "").split(os.pathsep)))
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.serialization.hostile.isolated"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, cwd=ROOT, env=env)
        if self.proc.stdout.readline().strip() != "ready":
            raise RuntimeError(f"the load worker did not start ({self.proc.wait()})")

    def ask(self, req, timeout):
        """The worker's answer, or ``{'outcome': 'crash'|'hang'}`` (and the worker gone)."""
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        line = self.proc.stdout.readline() if ready else ""
        if line:
            return json.loads(line)
        self.close()
        return {"outcome": "crash" if ready else "hang", "returncode": self.proc.returncode}

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def run(files, workers=2, timeout=TIMEOUT):
    """Load each of ``files`` (dicts: ``data``, optionally ``pattern``, ``max_bytes`` and
    ``via``) in worker processes; a result dict for each, in order."""
    results = [None] * len(files)
    with tempfile.TemporaryDirectory() as d:
        def drive(indices):
            worker = None
            for i in indices:
                path = os.path.join(d, f"{i:06d}.bin")
                with open(path, "wb") as f:
                    f.write(files[i]["data"])
                req = {"path": path, **{k: v for k, v in files[i].items() if k != "data"}}
                worker = worker if worker and worker.proc.poll() is None else _Worker()
                results[i] = worker.ask(req, timeout)
                os.unlink(path)
            if worker:
                worker.close()
        threads = [threading.Thread(target=drive, args=(range(k, len(files), workers),))
                   for k in range(workers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    return results


# ---- judging -------------------------------------------------------------------------------
COUNTS = ["crashes", "hangs", "reads outside the file", "uninitialised values",
          "loads over the budget", "silently different checkpoints",
          "flipped checkpoints accepted unchanged", "files accepted that safetensors refuses",
          "exceptions other than CheckpointError", "hostile files accepted"]
# not a fault: Paddle's files carry no checksum, so a flipped bit in their data loads
FOREIGN_CHANGED = "flipped files of other tools loaded with other values"


def verdicts(result, expect="pattern", original=None):
    """The counts (names in :data:`COUNTS`) a result adds to. ``expect``: 'refuse' (the file
    must be refused), 'pattern' (a load may hold only the pattern), 'different' (a flipped
    mutograd checkpoint: must be refused) or 'foreign' (a flipped file of another tool); a
    flipped file's content is compared with ``original``, the fingerprint of the file
    unflipped."""
    out = []
    outcome = result["outcome"]
    if outcome in ("crash", "hang"):
        return ["crashes" if outcome == "crash" else "hangs"]
    if outcome == "other":
        out.append("exceptions other than CheckpointError")
    if result.get("memory_error") or result["peak"] > result["limit"] + SLACK:
        out.append("loads over the budget")
    if outcome != "loaded":
        return out
    if result.get("library") == "refuses":
        out.append("files accepted that safetensors refuses")
    if result.get("foreign_values"):
        out.append("uninitialised values" if result["zero_values"] else "reads outside the file")
    if expect == "refuse":
        out.append("hostile files accepted")
    elif expect == "different":
        out.append("silently different checkpoints" if result["fingerprint"] != original
                   else "flipped checkpoints accepted unchanged")
    elif expect == "foreign" and result["fingerprint"] != original:
        out.append(FOREIGN_CHANGED)
    return out


if __name__ == "__main__":
    _serve()
