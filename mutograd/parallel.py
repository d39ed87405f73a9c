"""Large element-wise work on all cores: a small thread pool of mutograd's own.

NumPy's ufuncs release the GIL while they loop, so a large element-wise op split into
contiguous blocks runs on several cores at once from plain Python threads. :func:`ufunc` runs
one ufunc that way when its output has at least ``MIN_BYTES`` and more than one thread is set,
and is the plain call otherwise; :func:`run_blocks` runs any function over block indices on the
same pool (GELU's cache-sized block kernels use it).

    >>> import mutograd as mg
    >>> mg.set_num_threads(2)
    >>> mg.get_num_threads()
    2

Note [Splitting a ufunc into blocks]
    A block is a contiguous slice of the C-ordered output and the matching slices of the
    inputs, so each output element is computed by the same inner loop on the same operands as in
    the single call: the results are bitwise identical. Two layouts split: every input of the
    output's shape C-contiguous too (or a scalar, 0-d or one-element array), split along the
    flattened output; or inputs that broadcast, split along the first axis (an input whose first
    axis has length 1 is passed whole to every block). Anything else (an output that is not
    C-contiguous, an input that overlaps the output other than exactly, object dtypes, a device
    array) is the plain call. Blocks have at least ``BLOCK_BYTES`` of output, to amortise
    handing them to a thread; each is taken by whichever thread is free, and they shrink towards
    the end (``_cuts``), so that a thread another program holds up delays the op by a short
    block at most.

Note [Floating-point errors across threads]
    ``np.errstate`` is a context variable in NumPy 2, thread-local like grad mode: a worker
    thread does not see the caller's settings by itself. Each participating thread runs its
    blocks in a copy of the caller's context (so ``np.setbufsize`` and every other context
    variable carry over), in the caller's grad and inference modes, with the error modes the
    caller has replaced by ``'call'`` into a recorder, except ``'ignore'``. After the last
    block the caller replays what was recorded in NumPy's order (divide by zero, overflow,
    underflow, invalid value) with its own modes: the same warning (attributed to the caller's
    line), the same ``FloatingPointError`` message, the same callback, once per kind, as the
    single call gives. The output is complete when the error is raised, as it is after the
    single call.
"""
import contextvars
import itertools
import os
import queue
import threading
import warnings

import numpy as np

from .autograd.grad_mode import set_thread_state, thread_state

MIN_BYTES = 1 << 20     # outputs below this run as one call
BLOCK_BYTES = 1 << 18   # the least output a block computes
_PER_THREAD = 4         # parts per thread of a block kernel (backends/special.py: blockwise)

_KINDS = (("divide", "divide by zero", 1), ("over", "overflow", 2),
          ("under", "underflow", 4), ("invalid", "invalid value", 8))

_n = 0          # threads to use, the caller's included; 0: not chosen yet (the default)
_pool = None    # the worker threads (started on first use)
_lock = threading.Lock()


def _default_threads():
    """OMP_NUM_THREADS when set to a positive number, else the cores this process may use."""
    env = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:   # (no affinity on this platform)
        return os.cpu_count() or 1


def set_num_threads(n):
    """Set how many threads large element-wise ops use (the calling thread included).

    ``1`` runs every op on the calling thread. The default is ``OMP_NUM_THREADS`` when set,
    else the number of cores this process may run on. Matrix products use the BLAS library's
    own threads, which ``OMP_NUM_THREADS``/``OPENBLAS_NUM_THREADS`` set before start-up.

        >>> import mutograd as mg
        >>> mg.set_num_threads(1)    # no worker threads
        >>> mg.get_num_threads()
        1
    """
    global _n
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"set_num_threads(): expected a positive int, got {n!r}")
    _n = n


def get_num_threads():
    """How many threads large element-wise ops use (see :func:`set_num_threads`).

        >>> import mutograd as mg
        >>> mg.get_num_threads() >= 1
        True
    """
    global _n
    if not _n:
        _n = _default_threads()
    return _n


# ---- the pool -------------------------------------------------------------------------------


class _Pool:
    """Daemon worker threads taking jobs from one queue; more are started when needed."""

    def __init__(self):
        self.jobs = queue.SimpleQueue()
        self.threads = []

    def grow(self, n):
        with _lock:
            while len(self.threads) < n:
                t = threading.Thread(target=self._work, daemon=True,
                                     name=f"mutograd-worker-{len(self.threads)}")
                t.start()
                self.threads.append(t)

    def _work(self):
        while True:
            job, ctx = self.jobs.get()
            set_thread_state(job.grad_modes)   # grad mode is thread-local, not a contextvar
            ctx.run(job.take_part)
            # an idle worker must not keep the last job's arrays alive: the buffer cache reuses
            # a buffer only once nothing else refers to it (Note [The buffer cache])
            del job, ctx


def _after_fork():
    # the child has only the thread that forked: the workers are gone with their queue
    global _pool, _lock
    _pool = None
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def _get_pool(workers):
    global _pool
    pool = _pool
    if pool is None:
        with _lock:
            if _pool is None:
                _pool = _Pool()
            pool = _pool
    if len(pool.threads) < workers:
        pool.grow(workers)
    return pool


class _Job:
    """``fn(i)`` for ``i < n``: each participating thread takes the next index until none is
    left; the caller waits until every taken block has finished."""

    def __init__(self, fn, n, modes):
        self.fn = fn
        self.n = n
        self.next = itertools.count().__next__   # atomic under the GIL
        self.left = n
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.errors = {}
        self.flags = []
        self.modes = modes   # Note [Floating-point errors across threads]
        self.grad_modes = thread_state()

    def take_part(self):
        ran = 0
        if self.modes is None:
            ran = self._blocks()
        else:
            with np.errstate(call=self._record, **self.modes):
                ran = self._blocks()
        if ran:
            with self.lock:
                self.left -= ran
                if not self.left:
                    self.done.set()

    def _record(self, kind, flags):
        self.flags.append((kind, flags))

    def _blocks(self):
        ran = 0
        fn = self.fn
        while True:
            i = self.next()
            if i >= self.n:
                return ran
            try:
                fn(i)
            except BaseException as e:   # handed to the caller, raised there
                self.errors[i] = e
            ran += 1


def parts(nbytes):
    """How many parts to cut work on ``nbytes`` of output into: 1 below ``MIN_BYTES`` or with
    one thread, else a few per thread.

        >>> from mutograd import parallel
        >>> parallel.parts(1000)
        1
    """
    if nbytes < MIN_BYTES or _n == 1:
        return 1
    n = get_num_threads()
    return 1 if n == 1 else n * _PER_THREAD


def run_blocks(fn, n):
    """Run ``fn(i)`` for every ``i`` in ``range(n)`` on the pool and the calling thread.

    Returns when all have finished; the exception of the lowest failing ``i`` is raised. Each
    thread runs in a copy of the caller's context, so ``np.errstate`` and grad mode carry over.

        >>> from mutograd import parallel
        >>> out = [0] * 8
        >>> parallel.run_blocks(lambda i: out.__setitem__(i, i * i), 8)
        >>> out
        [0, 1, 4, 9, 16, 25, 36, 49]
    """
    _run(fn, n, None)


def _run(fn, n, modes):
    """``run_blocks`` with the error modes ``modes`` (None: the caller's) set in every thread;
    returns the floating-point errors recorded (Note [Floating-point errors across threads])."""
    threads = min(get_num_threads(), n)
    if threads <= 1:
        job = _Job(fn, n, modes)
        job.take_part()
    else:
        job = _Job(fn, n, modes)
        pool = _get_pool(threads - 1)
        for _ in range(threads - 1):
            pool.jobs.put((job, contextvars.copy_context()))
        job.take_part()
        job.done.wait()
    if job.errors:
        raise job.errors[min(job.errors)]
    return job.flags


def _replay(found, caller, name):
    """Report the floating-point errors ``found`` (``(kind, flags)`` pairs) with the caller's
    modes ``caller``, as NumPy reports them after a call of the ufunc ``name``."""
    flags, seen = 0, set()
    for kind, code in found:
        seen.add(kind)
        flags |= code
    for key, kind, _ in _KINDS:
        if kind not in seen:
            continue
        mode = caller[key]
        msg = f"{kind} encountered in {name}"
        if mode == "raise":
            raise FloatingPointError(msg)
        if mode == "warn":
            warnings.warn(msg, RuntimeWarning, stacklevel=3)   # the line that ran the op
        elif mode == "call":
            np.geterrcall()(kind, flags)
        elif mode == "print":
            print(f"Warning: {msg}", file=__import__("sys").stderr)
        elif mode == "log":
            np.geterrcall().write(f"Warning: {msg}\n")


# ---- one ufunc over blocks -------------------------------------------------------------------


def ufunc(uf, *args, out=None):
    """``uf(*args, out=out)``, on several threads when the output is large.

    Note [Splitting a ufunc into blocks] says when it splits; the result is bitwise the one of
    the single call, and floating-point errors are reported as that call reports them.

        >>> import numpy as np
        >>> from mutograd import parallel
        >>> x = np.arange(1 << 20, dtype=np.float32)
        >>> y = parallel.ufunc(np.multiply, x, 2.0)
        >>> bool((y == x * 2).all())
        True
    """
    if out is not None:
        if type(out) is not np.ndarray or out.nbytes < MIN_BYTES or _n == 1:
            return uf(*args, out=out)
    elif _n == 1:
        return uf(*args)
    else:
        big = False
        for a in args:
            if type(a) is np.ndarray and a.nbytes >= MIN_BYTES:
                big = True
        if not big:
            return uf(*args)
        out = _new_output(uf, args)
        if out is None:
            return uf(*args)
    blocks = _split(args, out)
    if blocks is None or get_num_threads() <= 1:
        return uf(*args, out=out)
    n, slicer = blocks

    def block(i):
        ins, o = slicer(i)
        uf(*ins, out=o)

    caller = np.geterr()
    modes = {k: ("ignore" if m == "ignore" else "call") for k, m in caller.items()}
    found = _run(block, n, modes)
    if found:
        _replay(found, caller, uf.__name__)
    return out


def _new_output(uf, args):
    """An empty output for ``uf(*args)`` (None when its shape or dtype is not plain)."""
    if uf.nout != 1 or uf.nin != len(args):
        return None
    shapes, dts = [], []
    for a in args:
        if type(a) is np.ndarray:
            shapes.append(a.shape)
            dts.append(a.dtype)
        elif type(a) in (int, float, complex, bool):
            dts.append(type(a))   # weak: as NumPy treats a Python number (NEP 50)
        elif isinstance(a, np.generic):
            dts.append(a.dtype)
        else:
            return None
    try:
        dt = uf.resolve_dtypes(tuple(dts) + (None,))[-1]
        shape = np.broadcast_shapes(*shapes)
    except (TypeError, ValueError, np.exceptions.DTypePromotionError):
        return None   # the plain call raises its own error
    if dt.hasobject:
        return None
    return np.empty(shape, dt)


def _split(args, out):
    """``(n, slicer)``: the number of blocks and a function giving block ``i``'s inputs and
    output, or None when the call must not be split (Note [Splitting a ufunc into blocks])."""
    if not out.flags.c_contiguous or out.dtype.hasobject or out.ndim == 0:
        return None
    shape = out.shape
    flat = True
    for a in args:
        if type(a) is np.ndarray:
            if a.dtype.hasobject or a.ndim > out.ndim:
                return None   # (the plain call raises what NumPy raises)
            if a.size == 1:
                continue
            if a.shape != shape:
                flat = False
                if np.broadcast_shapes(a.shape, shape) != shape:
                    return None
            elif not a.flags.c_contiguous:
                flat = False
            if np.may_share_memory(a, out) and not (
                    a.shape == shape and a.strides == out.strides
                    and a.__array_interface__["data"][0] == out.__array_interface__["data"][0]):
                return None   # a partial overlap: NumPy's single call orders it right
        elif not isinstance(a, (int, float, complex, np.generic)):
            return None
    threads = get_num_threads()
    if flat:
        size = out.size
        cuts = _cuts(size, max(1, BLOCK_BYTES // out.itemsize), threads)
        n = len(cuts) - 1
        if n < 2:
            return None
        fo = out.reshape(-1)
        # a one-element array becomes 0-d: it broadcasts against a 1-d block, as it did against
        # the whole output (and keeps its dtype's strength in promotion)
        fargs = [(a.reshape(-1) if a.size != 1 else a.reshape(()), a.size != 1)
                 if type(a) is np.ndarray else (a, False) for a in args]

        def flat_block(i):
            s = slice(cuts[i], cuts[i + 1])
            return [a[s] if split else a for a, split in fargs], fo[s]
        return n, flat_block
    rows = shape[0]
    if not rows or not out.size:
        return None
    cuts = _cuts(rows, -(-BLOCK_BYTES // (out.nbytes // rows)), threads)
    n = len(cuts) - 1
    if n < 2:
        return None
    sargs = []
    for a in args:
        if type(a) is np.ndarray and a.ndim == out.ndim and a.shape[0] != 1:
            sargs.append((a, True))
        else:   # a scalar, or an array broadcast along the first axis: whole to every block
            sargs.append((a, False))

    def row_block(i):
        s = slice(cuts[i], cuts[i + 1])
        return [a[s] if split else a for a, split in sargs], out[s]
    return n, row_block


def _cuts(total, least, threads):
    """Block boundaries over ``range(total)``: each block a ``2 * threads``-th of what is left,
    at least ``least``. Blocks shrink towards the end (guided scheduling), so a thread that
    starts late, or that another program's process holds up, keeps the others waiting for a
    short block only.

        >>> _cuts(100, 10, 2)
        [0, 25, 44, 58, 69, 79, 89, 100]
    """
    cuts = [0]
    at = 0
    while at < total:
        at += max(least, -(-(total - at) // (2 * threads)))
        if total - at < least:   # no tail shorter than a block
            at = total
        cuts.append(at)
    return cuts
