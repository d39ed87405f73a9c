"""The memory timeline: every allocation and free while recording, with the op that caused it.

``mutograd.memory.timeline()`` returns a :class:`Timeline`. While it records, each new storage and
each storage freed appends an :class:`Event`; when it does not, the allocator pays one ``is None``
check. Finding the op and the user's line walks the Python stack, so it is only done while
recording.

Example::

    >>> import mutograd as mg
    >>> with mg.memory.timeline() as tl:
    ...     x = mg.ones(1024)
    ...     y = x.exp()
    ...     del y
    >>> [(e.op, e.nbytes) for e in tl.events]
    [('ones', 4096), ('exp', 4096), ('exp', -4096)]
    >>> tl.peak
    8192
"""
import os
import sys
import time
from collections import namedtuple

from . import memory

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))

Event = namedtuple("Event", "index nbytes live op where place time")
Event.__doc__ = """One allocation (``nbytes > 0``) or free (``nbytes < 0``).

``live`` is the place's allocated bytes after the event, ``op`` the op that allocated the
storage (for a free too), ``where`` the user's ``file:line``, ``time`` the seconds since the
recording started."""


class Timeline:
    """Records allocations and frees between ``__enter__`` and ``__exit__`` (one at a time)."""

    def __init__(self, place=None):
        self.place = memory._key(place)
        self.events = []
        self.phases = []     # (name, seconds since the start), from mark()
        self._ops = {}       # id(storage) -> (op, where) of a storage allocated while recording
        self.start = 0
        self.duration = 0.0

    def __enter__(self):
        if memory._recorder is not None:
            raise RuntimeError("a memory timeline is already recording")
        self.start = memory.allocated(self.place)
        self._t0 = time.perf_counter()
        memory._recorder = self
        return self

    def __exit__(self, *exc):
        memory._recorder = None
        self.duration = time.perf_counter() - self._t0
        self._ops.clear()
        return False

    def mark(self, name):
        """Start a named phase here (``"forward"``, ``"backward"``, ``"optimizer"``): plots
        shade and label each phase."""
        self.phases.append((name, time.perf_counter() - self._t0))

    def _event(self, storage, nbytes):
        if storage.counters.name != self.place:
            return
        if nbytes >= 0:
            op, where = _caller()
            self._ops[id(storage)] = (op, where)
        else:
            op, where = self._ops.pop(id(storage), None) or ("(before recording)", "")
        live = storage.counters.live
        self.events.append(Event(len(self.events), nbytes, live, op, where, self.place,
                                 time.perf_counter() - self._t0))

    # ---- views of the record ----------------------------------------------------------------

    @property
    def peak(self):
        """The highest live byte count seen while recording."""
        return max([self.start] + [e.live for e in self.events])

    def by_op(self):
        """``{op: [allocations, bytes allocated, frees, bytes freed]}``."""
        out = {}
        for e in self.events:
            row = out.setdefault(e.op, [0, 0, 0, 0])
            if e.nbytes >= 0:
                row[0] += 1
                row[1] += e.nbytes
            else:
                row[2] += 1
                row[3] -= e.nbytes
        return out

    def summary(self):
        """A text table: per op the allocations and frees, then the peak and where it happened."""
        end = self.events[-1].live if self.events else self.start
        head = (f"memory timeline ({self.place}): {len(self.events)} events, "
                f"start {_fmt(self.start)}, peak {_fmt(self.peak)}, end {_fmt(end)}")
        lines = [head,
                 f"{'op':<24}{'allocs':>8}{'allocated':>14}{'frees':>8}{'freed':>14}"]
        rows = sorted(self.by_op().items(), key=lambda kv: -kv[1][1])
        for op, (na, ba, nf, bf) in rows:
            lines.append(f"{op[:23]:<24}{na:>8}{_fmt(ba):>14}{nf:>8}{_fmt(bf):>14}")
        if self.events:
            top = max(self.events, key=lambda e: e.live)
            lines.append(f"peak reached at event {top.index} ({top.op}"
                         f"{' at ' + top.where if top.where else ''})")
        return "\n".join(lines)

    def curve(self):
        """``{"time_ms", "live_bytes", "phases"}``: live bytes above the start over time, as
        steps (the start, then one point per event), and the marked phases (JSON-ready)."""
        return {"time_ms": [0.0] + [e.time * 1e3 for e in self.events],
                "live_bytes": [0] + [e.live - self.start for e in self.events],
                "phases": [[name, t * 1e3] for name, t in self.phases],
                "end_ms": self.duration * 1e3}

    def plot(self, path, annotate=8):
        """Save a PNG of live bytes over time, phases shaded and the ``annotate`` largest
        allocations labelled by op. Needs matplotlib (the ``plot`` extra)."""
        ax, save = _axes(figsize=(10, 4))
        curve = self.curve()
        scale, unit = _unit(max(curve["live_bytes"], default=0))
        ax.step(curve["time_ms"], [b / scale for b in curve["live_bytes"]], where="post")
        big = sorted((e for e in self.events if e.nbytes > 0), key=lambda e: -e.nbytes)
        for e in big[:annotate]:
            ax.annotate(e.op, (e.time * 1e3, (e.live - self.start) / scale), fontsize=7,
                        rotation=45, xytext=(3, 6), textcoords="offset points")
        _shade(ax, curve)
        ax.set_xlabel("time since the recording started (ms)")
        ax.set_ylabel(f"live tensor memory on {self.place} above the start ({unit})")
        ax.set_title(f"peak {_fmt(self.peak)}")
        return save(path)


def plot_curves(curves, path, title):
    """A PNG of several labelled ``Timeline.curve()`` results on one time axis (the phases of
    the first shaded); False without matplotlib."""
    try:
        ax, save = _axes(figsize=(8, 4.5))
    except ImportError:
        return False
    scale, unit = _unit(max((max(c["live_bytes"], default=0) for c in curves.values()),
                            default=0))
    for label, c in curves.items():
        ax.step(c["time_ms"], [b / scale for b in c["live_bytes"]], where="post", label=label)
    if curves:
        _shade(ax, next(iter(curves.values())))
    ax.set_xlabel("time in the step (ms)")
    ax.set_ylabel(f"live tensor memory above the step's start ({unit})")
    ax.set_title(title)
    ax.legend(loc="center right")
    save(path)
    return True


def _axes(figsize):
    """A new figure's axes and a function that saves and closes it; ImportError without
    matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError("plotting needs matplotlib: pip install 'mutograd[plot]'") from e
    fig, ax = plt.subplots(figsize=figsize)

    def save(path):
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        return path
    return ax, save


def _shade(ax, curve):
    """Shade every other phase and write its name at the top of the axes."""
    phases = curve["phases"]
    for k, (name, start) in enumerate(phases):
        end = phases[k + 1][1] if k + 1 < len(phases) else curve["end_ms"]
        if k % 2 == 0:
            ax.axvspan(start, end, color="0.92", zorder=0)
        ax.text((start + end) / 2, 0.98, name, transform=ax.get_xaxis_transform(),
                ha="center", va="top", fontsize=8)


def _unit(n):
    """The byte unit that reads best for values up to ``n``: (divisor, name)."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(n) >= 2 * size:
            return size, unit
    return 1, "bytes"


def _caller():
    """(op name, user file:line) for an allocation happening now.

    The op is the innermost ``op`` local of a mutograd frame that is an op declaration (the
    dispatch functions hold it), else the outermost mutograd function's name (``zeros``, ...).
    """
    f = sys._getframe(3)
    op = None
    outer = None
    while f is not None and f.f_code.co_filename.startswith(_PKG_DIR):
        if op is None:
            cand = f.f_locals.get("op")
            name = getattr(cand, "name", None)
            if isinstance(name, str) and hasattr(cand, "node_cls"):
                op = name
        outer = f.f_code.co_name
        if outer == "make" and "fill" in f.f_locals:   # creation.py's factories (zeros, ...)
            outer = f.f_locals["fill"].__name__
        f = f.f_back
    where = f"{f.f_code.co_filename}:{f.f_lineno}" if f is not None else ""
    return op or outer or "(user)", where


def _fmt(n):
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(n) >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"
