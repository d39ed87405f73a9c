"""Run a program through mutograd.compat.torch and PyTorch, compare, classify.

Each statement runs by ``exec`` in one globals dict whose ``torch`` is the framework. After each
statement every live tensor (and tuple of tensors) is recorded: shape, dtype, values, ``_version``,
``requires_grad``, ``is_leaf``, ``.grad``, and which names are bound to the same object. An error
stops the run and records the statement, its phase (forward, or backward for statements that run
a backward pass) and the exception.

Classes (docs/fuzzing.md):

- ``ok``: both agree (both raised the same kind of error at the same statement included);
- ``wrong``: a value, gradient, version, flag or identity differs — never acceptable;
- ``refused``: mutograd raises one of its errors where PyTorch computes (or raises another class);
- ``accepted``: mutograd computes where PyTorch raises; its results are then compared with
  PyTorch running the program inside ``allow_mutation_on_saved_tensors()`` (a difference there is
  ``wrong``; no reference there makes the category ``unverified``);
- ``crashed``: mutograd raises an exception that is not its own (from inside NumPy, an
  AttributeError, ...);
- ``no-oracle``: PyTorch's run killed its process (a segfault inside PyTorch) or hung, so there
  is nothing to compare with; only a run with :data:`ISOLATE` set can tell.
"""
import contextlib
import functools
import linecache
import os
import pickle
import re
import select
import subprocess
import sys
import warnings
from dataclasses import dataclass, field

import numpy as np

import mutograd
import mutograd.compat.torch as mtorch
from mutograd.errors import MutogradError

try:
    import torch
except ImportError:          # the fuzzer needs PyTorch; the tests skip without it
    torch = None

MUTOGRAD_DIR = os.path.dirname(mutograd.__file__)
FRAMEWORKS = ("mutograd", "torch")
TOL = {"float64": (1e-7, 1e-9), "float32": (2e-4, 1e-5)}


@dataclass
class Failure:
    index: int                    # the statement that raised
    phase: str                    # "forward" or "backward"
    exc: BaseException
    deliberate: bool              # mutograd's own error (always True for PyTorch)

    @property
    def cls(self):
        return type(self.exc).__name__

    def describe(self):
        return f"{self.cls}: {str(self.exc).splitlines()[0][:200] if str(self.exc) else ''}"


@dataclass
class Trace:
    snaps: list = field(default_factory=list)   # one per completed statement
    error: Failure = None


@dataclass
class Outcome:
    cls: str                      # ok, wrong, refused, accepted, crashed
    category: str = ""
    detail: str = ""
    index: int = None             # the statement where the disagreement shows

    @property
    def key(self):
        return (self.cls, self.category)


_DTYPE_NAMES = {}


def _dtype(t):
    d = t.dtype
    name = _DTYPE_NAMES.get(d)
    if name is None:   # (mutograd's str of a dtype asks the dialect: slow, and asked often)
        name = _DTYPE_NAMES[d] = str(d).replace("torch.", "")
    return name


def _array(t):
    if isinstance(t, mutograd.Tensor):
        return np.array(t.detach().numpy(), copy=True)
    return np.array(t.numpy(force=True), copy=True)   # (force: also a ZeroTensor of PyTorch's)


def _info(t):
    g = t.grad
    return {"shape": tuple(t.shape), "dtype": _dtype(t), "value": _array(t),
            "version": t._version, "requires_grad": t.requires_grad, "is_leaf": t.is_leaf,
            "grad": None if g is None else _array(g),
            "grad_requires_grad": None if g is None else g.requires_grad}


def snapshot(env, tensor_type, born):
    """Every tensor (and tuple of tensors) bound in ``env``. A version is counted from the
    statement that bound the name (``born`` keeps that version): how an op bumps the counter of
    the result it makes is not a behaviour, what later writes do is."""
    out, first = {}, {}
    for name, val in env.items():
        if name.startswith("__") or name == "torch":
            continue
        if isinstance(val, tensor_type):
            out[name] = _info(val)
            out[name]["same_as"] = first.setdefault(id(val), name)
            out[name]["version"] -= born.setdefault(name, val._version)
        elif isinstance(val, (tuple, list)) and val and all(
                v is None or isinstance(v, tensor_type) for v in val):
            out[name] = tuple(None if v is None else _info(v) for v in val)
            for k, v in enumerate(out[name]):
                if v is not None:
                    v["version"] -= born.setdefault(f"{name}[{k}]", v["version"])
    return out


def _deliberate(exc):
    """Whether mutograd raised ``exc`` on purpose: one of its error classes, or a ``raise``
    statement in its own source (a TypeError for bad arguments); not an exception from inside
    NumPy, Python or the program's own text."""
    if isinstance(exc, MutogradError):
        return True
    tb, last = exc.__traceback__, None
    while tb is not None:
        last, tb = tb, tb.tb_next
    if last is None:
        return False
    fname = last.tb_frame.f_code.co_filename
    if not fname.startswith(MUTOGRAD_DIR):
        return False
    return linecache.getline(fname, last.tb_lineno).strip().startswith("raise")


def _raised_by_program(exc):
    """Whether ``exc`` was raised by the program's own statement, not inside a framework (for
    one sent by the reference server, which loses its traceback, as the server found)."""
    sent = getattr(exc, "raised_by_program", None)
    if sent is not None:
        return sent
    tb, last = exc.__traceback__, None
    while tb is not None:
        last, tb = tb, tb.tb_next
    return last is not None and last.tb_frame.f_code.co_filename.startswith("<fuzz")


@functools.lru_cache(maxsize=4096)
def _compiled(text, i):
    return compile(text, f"<fuzz {i}>", "exec")


def execute(program, framework, allow_mutation=False):
    """Run ``program`` with ``torch`` bound to ``framework``; the :class:`Trace`.
    ``allow_mutation``: PyTorch keeps the value each saved tensor had when it was saved,
    through ``allow_mutation_on_saved_tensors``, or with ``"snapshot"`` through hooks that save
    a copy of every saved tensor (which, unlike the former, also covers a write through another
    view of the saved tensor's memory)."""
    ns = mtorch if framework == "mutograd" else torch
    tensor_type = mutograd.Tensor if framework == "mutograd" else torch.Tensor
    env = {"torch": ns, "__name__": "fuzz_program"}
    trace, born = Trace(), {}
    if allow_mutation == "snapshot":
        mut = torch.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t)
    elif allow_mutation:
        mut = torch.autograd.graph.allow_mutation_on_saved_tensors()
    else:
        mut = contextlib.nullcontext()
    with mut, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grad_mode = ns.is_grad_enabled()
        for i, stmt in enumerate(program.stmts):
            try:
                exec(_compiled(stmt.text(framework), i), env)
                trace.snaps.append(snapshot(env, tensor_type, born))
            except Exception as e:      # noqa: BLE001 - every error is data here
                trace.error = Failure(i, "backward" if stmt.backward else "forward", e,
                                      framework == "torch" or _deliberate(e))
                break
            finally:
                ns.set_grad_enabled(grad_mode)
    return trace


class ReferenceCrashed(Exception):
    """The reference run killed its process, or hung (PyTorch's allow_mutation_on_saved_tensors
    can dereference a null pointer on a program that writes a saved tensor)."""


REFERENCE_TIMEOUT = 120   # seconds a reference run may take before it counts as hung


class _ReferenceServer:
    """A separate Python process that runs PyTorch's reference runs of ``execute``, so that a
    crash of PyTorch ends in a :class:`Trace` whose error is :class:`ReferenceCrashed` instead of
    taking the fuzzer with it. Started on first use and again after a crash; a forked child
    would be cheaper but can deadlock on a lock another thread held at the fork."""

    proc = None

    def run(self, program, allow_mutation):
        if self.proc is None or self.proc.poll() is not None:
            # the same module path as here (tests.fuzz.run, under pytest and from the command
            # line), so that the programs it is sent unpickle there
            env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
            self.proc = subprocess.Popen(
                [sys.executable, "-c", f"from {__name__} import serve; serve()"], env=env,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        why = "hung"
        try:
            pickle.dump((program, allow_mutation), self.proc.stdin)
            self.proc.stdin.flush()
            ready, _, _ = select.select([self.proc.stdout], [], [], REFERENCE_TIMEOUT)
            if ready:
                return pickle.load(self.proc.stdout)
        except (EOFError, BrokenPipeError, pickle.UnpicklingError):   # it died
            try:
                why = f"exit status {self.proc.wait(REFERENCE_TIMEOUT)}"
            except subprocess.TimeoutExpired:
                pass
        self.proc.kill()
        self.proc.wait()
        self.proc = None
        return Trace(error=Failure(0, "forward", ReferenceCrashed(f"PyTorch {why}"), True))


_reference = _ReferenceServer()


def execute_isolated(program, allow_mutation):
    """:func:`execute` of PyTorch in the reference server (:class:`_ReferenceServer`)."""
    return _reference.run(program, allow_mutation)


def serve():
    """The reference server's loop: (program, allow_mutation) in, a pickled Trace out."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr   # nothing else may write into the pipe
    while True:
        try:
            program, allow_mutation = pickle.load(stdin)
        except EOFError:
            return
        trace = execute(program, "torch", allow_mutation)
        if trace.error is not None:   # an exception's own state may not pickle
            e = trace.error.exc
            sent = type(e)(str(e)) if _picklable(e) else RuntimeError(str(e))
            sent.raised_by_program = _raised_by_program(e)   # its traceback stays here
            trace.error.exc = sent
        pickle.dump(trace, stdout)
        stdout.flush()


def _picklable(exc):
    try:
        pickle.loads(pickle.dumps(type(exc)(str(exc))))
        return True
    except Exception:   # noqa: BLE001 - any failure means "send a RuntimeError instead"
        return False


# ---- comparison -------------------------------------------------------------------------------
def _close(a, b, tol):
    if a.shape != b.shape:
        return False
    if a.dtype == b.dtype and a.tobytes() == b.tobytes():   # the common case: the same bits
        return True
    if a.dtype.kind == "b" or b.dtype.kind == "b":
        return np.array_equal(a, b)
    if np.array_equal(a, b, equal_nan=True):       # the common case, and cheap
        return True
    rtol, atol = tol
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.abs(a - b) <= atol + rtol * np.abs(b)
    same = close | (np.isnan(a) & np.isnan(b)) | (a == b)     # nan == nan, inf == inf
    return bool(same.all())


def _diff_info(name, a, b, tol):
    """The first field in which two recorded tensors differ: (field, text) or None."""
    for f in ("shape", "dtype"):
        if a[f] != b[f]:
            return f, f"{name}.{f}: mutograd {a[f]}, PyTorch {b[f]}"
    if not _close(a["value"], b["value"], tol):
        return "value", f"{name}: mutograd {_short(a['value'])}, PyTorch {_short(b['value'])}"
    for f in ("requires_grad", "is_leaf", "version", "same_as"):
        if a.get(f) != b.get(f):
            label = {"version": "_version", "same_as": "is (identity)"}.get(f, f)
            return f, f"{name}.{label}: mutograd {a[f]}, PyTorch {b[f]}"
    ga, gb = a["grad"], b["grad"]
    what = "grad" if b["is_leaf"] else "retained grad"
    if (ga is None) != (gb is None):
        return what + _none_for_zeros(ga, gb), f"{name}.grad: mutograd {_short(ga)}, " \
                                               f"PyTorch {_short(gb)}"
    if ga is not None and not _close(ga, gb, tol):
        return what, f"{name}.grad: mutograd {_short(ga)}, PyTorch {_short(gb)}"
    if a["grad_requires_grad"] != b["grad_requires_grad"]:   # kept a history: create_graph
        return "grad.requires_grad", (f"{name}.grad.requires_grad: mutograd "
                                      f"{a['grad_requires_grad']}, PyTorch "
                                      f"{b['grad_requires_grad']}")
    return None


def _none_for_zeros(a, b):
    """`` None for zeros`` when one side has no gradient where the other has zeros (a zero
    derivative that one framework records and the other does not), else nothing."""
    other = b if a is None else a
    if other is not None and not np.asarray(other).any():
        return " None for zeros" if a is None else " zeros for None"
    return ""


def _short(a):
    if a is None:
        return "None"
    with np.printoptions(precision=4, suppress=True, threshold=30):
        return np.array2string(np.asarray(a), separator=", ").replace("\n", "")


def diff_snap(m, t, tol):
    for name in t:
        if name not in m:
            return "missing", f"{name} is not defined in mutograd"
        a, b = m[name], t[name]
        if isinstance(b, tuple) != isinstance(a, tuple):
            return "type", f"{name}: mutograd {type(a).__name__}, PyTorch {type(b).__name__}"
        if isinstance(b, tuple):
            if len(a) != len(b):
                return "length", f"{name}: {len(a)} items in mutograd, {len(b)} in PyTorch"
            for k, (x, y) in enumerate(zip(a, b)):
                if (x is None) != (y is None):
                    return "grad" + _none_for_zeros(x and x["value"], y and y["value"]), \
                        f"{name}[{k}]: mutograd {x and 'a tensor'}, PyTorch {y and 'a tensor'}"
                d = x is not None and _diff_info(f"{name}[{k}]", x, y, tol)
                if d:
                    return d
            continue
        d = _diff_info(name, a, b, tol)
        if d:
            return d
    return None


ULPS = 16   # rounding errors a chain of ops may accumulate in a value, in units of its last place


def _ill_conditioned(snaps, mine):
    """Whether the values of statement ``len(snaps) - 1`` differ by no more than the rounding
    error (ULPS units in the last place) of the largest finite value PyTorch's run made so far,
    or than two earlier values already differed by (within the tolerance, a large value can
    differ by much in absolute terms): two correct libraries may then differ by that much after
    ``sin`` or ``x - y`` (``cos`` of ``exp(8.6)`` in float32), so such a difference says
    nothing of either. ``mine``: mutograd's snapshots of the same statements."""
    bound = 0.0
    for snap in snaps:
        for v in _float_arrays(snap):
            a = np.abs(v[np.isfinite(v)])
            if a.size:
                bound = max(bound, float(a.max()) * float(np.finfo(v.dtype).eps) * ULPS)
    for m, t in zip(mine[:-1], snaps[:-1]):
        bound = max(bound, _largest_difference(m, t))
    largest = _largest_difference(mine[-1], snaps[-1])
    return 0 < largest <= bound


def _largest_difference(m, t):
    largest = 0.0
    for a, b in zip(_float_arrays(m), _float_arrays(t)):
        if a.shape == b.shape:
            with np.errstate(invalid="ignore", over="ignore"):
                d = np.abs(a.astype(np.float64) - b.astype(np.float64))
            largest = max(largest, float(np.nanmax(np.where(np.isfinite(d), d, 0.0),
                                                   initial=0.0)))
    return largest


def _float_arrays(snap):
    """The floating-point values and gradients of a snapshot, in a fixed order."""
    for name in sorted(snap):
        rec = snap[name]
        for r in (rec if isinstance(rec, tuple) else (rec,)):
            for v in (() if r is None else (r["value"], r["grad"])):
                if v is not None and v.dtype.kind in "fc":
                    yield v


def first_difference(tm, tt, tol, start=0):
    """(statement index, field, text) of the first recorded difference from statement
    ``start`` on, or None."""
    for i, (m, t) in enumerate(zip(tm.snaps, tt.snaps)):
        d = diff_snap(m, t, tol) if i >= start else None
        if d:
            return (i,) + d
    return None


MESSAGE_TAGS = [  # (pattern in an error message, short tag)
    ("modified by an inplace operation", "saved tensor modified"),
    ("leaf variable", "in-place on a leaf"), ("leaf var", "in-place on a leaf"),
    ("view of a leaf", "in-place on a leaf"),
    ("created in no_grad mode", "view made under no_grad written"),
    ("inside a custom function", "view from a custom Function written"),
    ("multiple outputs", "output of a multi-output view written"),
    ("single memory location", "overlapping memory"), ("share one memory", "overlapping memory"),
    ("backward through the graph a second time", "graph freed"),
    ("does not require grad", "no grad"), ("does not have a grad_fn", "no grad"),
    ("implicitly created only for scalar", "non-scalar backward"),
    ("one of the differentiated tensors appears to not have been used", "unused input"),
    ("not broadcastable", "shape"), ("doesn't match the broadcast shape", "shape"),
    ("scalar type", "dtype"), ("dtype", "dtype"), ("must match the size", "shape"),
    ("shape", "shape"), ("size", "shape"), ("result type", "dtype"), ("out of range", "index"),
    ("out of bounds", "index"), ("index", "index"), ("stride", "strides"),
    ("mark_dirty", "mark_dirty"), ("dirty", "mark_dirty"), ("hook", "hook"),
    ("internal assert failed", "internal assert"),
]


def message_tag(exc):
    msg = str(exc).lower()
    for pattern, tag in MESSAGE_TAGS:
        if pattern in msg:
            return tag
    return re.sub(r"[\d\[\](),]+", "#", msg.splitlines()[0] if msg else type(exc).__name__)[:60]


def family(kind):
    """The statement's family for a category: ``inplace.exp_`` -> ``inplace``; the prefixes
    ``nograd.`` (under no_grad()) and ``grad.`` (a write into a gradient made with
    create_graph) stay: ``nograd.grad.setitem.basic`` -> ``nograd.grad.setitem``."""
    parts = kind.split(".")
    n = 0
    while parts[n] in ("nograd", "grad") and n + 1 < len(parts):
        n += 1
    return ".".join(parts[:n + 1])


ISOLATE = False   # True: PyTorch's plain run goes to the reference server too (the sweep's)


def classify(program, traces=None):
    """The :class:`Outcome` of ``program``; ``traces`` lets a caller pass runs it already has."""
    if traces is None:
        tm = execute(program, "mutograd")
        tt = execute_isolated(program, False) if ISOLATE else execute(program, "torch")
    else:
        tm, tt = traces
    em, et = tm.error, tt.error
    if et is not None and isinstance(et.exc, ReferenceCrashed):
        return Outcome("no-oracle", "PyTorch crashed", str(et.exc))
    # float32 anywhere (a mixed sum promotes a float32 partial result) loosens every comparison
    tol = TOL["float32" if "float32" in program.source() else "float64"]
    d = first_difference(tm, tt, tol)
    if d:
        i, fld, text = d
        if fld in ("value", "grad") and _ill_conditioned(tt.snaps[:i + 1], tm.snaps[:i + 1]):
            return Outcome("ok", "ill-conditioned values", text, i)
        return Outcome("wrong", f"{fld} after {family(program.stmts[i].kind)}", text, i)
    if em is None and et is None:
        return Outcome("ok")
    if em is not None and "values to unpack" in str(em.exc):
        # the program's own tuple unpacking failed: the generator's shape bookkeeping lost
        # track (a shape-only in-place op through an alias), not an error of mutograd's
        return Outcome("ok", "program unpacking")
    if em is not None and et is not None and em.index == et.index and \
            _raised_by_program(em.exc) and _raised_by_program(et.exc):
        # the program's own text failed in both (``g = x.grad`` was None in both, and the next
        # statement used it, each rendering in its own way): nothing of either framework's
        return Outcome("ok", "program error")
    after_refusal = et is not None and em is not None and et.index < em.index and \
        _raised_by_program(em.exc)   # (``g = x.grad`` used after PyTorch's refusal: checked
    # against PyTorch's run with saved tensors kept, below)
    if em is not None and not em.deliberate and not after_refusal:
        kind = program.stmts[em.index].kind
        where = "" if et is None or et.index != em.index else f" (PyTorch: {et.describe()})"
        return Outcome("crashed", f"{em.cls} in {family(kind)}", em.describe() + where,
                       em.index)
    if em is not None and et is not None and em.index == et.index:
        if isinstance(em.exc, type(et.exc)):
            return Outcome("ok", "both raise")
        return Outcome("refused", f"error class {et.cls} -> {em.cls}",
                       f"mutograd {em.describe()}; PyTorch {et.describe()}", em.index)
    if em is not None and (et is None or em.index < et.index):
        kind = program.stmts[em.index].kind
        return Outcome("refused", f"{family(kind)}: {message_tag(em.exc)}", em.describe(),
                       em.index)
    # PyTorch raised first: mutograd's results must equal PyTorch's with saved tensors kept
    kind = program.stmts[et.index].kind
    category = f"{family(kind)}: {message_tag(et.exc)}"
    ta = execute_isolated(program, allow_mutation=True)
    if ta.error is not None and isinstance(ta.error.exc, ReferenceCrashed):
        ta = execute_isolated(program, allow_mutation="snapshot")
    if ta.error is not None and ta.error.index <= et.index:
        return Outcome("accepted", "unverified " + category,
                       f"PyTorch {et.describe()}; with allow_mutation_on_saved_tensors: "
                       f"{ta.error.describe()}", et.index)
    # the statements before PyTorch's refusal agreed with its plain run already; the reference
    # runs copy saved tensors, which changes what a saved constant made a leaf later gives there
    d = first_difference(tm, ta, tol, et.index)
    if d:   # allow_mutation_on_saved_tensors misses a write through another view of the saved
        ts = execute_isolated(program, allow_mutation="snapshot")   # tensor: copies do not
        same_end = (ts.error and ts.error.index) == (ta.error and ta.error.index)
        if same_end and not first_difference(tm, ts, tol, et.index):
            d = None
    if d and d[1] in ("requires_grad", "grad.requires_grad", "is_leaf"):
        # the references copy every saved tensor, so a saved constant made a leaf afterwards
        # (Note [Leaves made after they were saved]) gives them a gradient without history:
        # their flags say nothing here
        return Outcome("accepted", "unverified " + category,
                       f"{d[2]}: the references' copies of saved tensors change the flags",
                       et.index)
    if d:
        i, fld, text = d
        return Outcome("wrong", f"{fld} after {family(program.stmts[i].kind)} (accepted)",
                       text + f" (PyTorch refused at statement {et.index + 1}: "
                              f"{et.describe()})", i)
    if (em is None) != (ta.error is None) or (em and em.index != ta.error.index):
        return Outcome("accepted", "unverified " + category,
                       f"mutograd {em and em.describe()}; PyTorch with saved tensors kept: "
                       f"{ta.error and ta.error.describe()}", et.index)
    return Outcome("accepted", category, f"PyTorch {et.describe()}", et.index)
