"""Data-parallel training: every rank runs the same model on its share of the batch, and the
gradients are averaged over the ranks during backward.

Note [Gradient buckets]
    The parameters' gradients live in a few flat buffers (buckets of about ``bucket_cap_mb``),
    and each parameter's ``.grad`` is a view into its bucket. Backward accumulates into an
    existing ``.grad`` in place, so the gradients land directly in the buckets and the reduction
    is one in-place ``Iallreduce`` per bucket: no gradient is ever copied. Buckets are filled in
    the reverse order of ``parameters()`` (roughly the order backward produces gradients) and a
    bucket's reduction starts as soon as the last of its gradients is final (a post-accumulate
    hook; the engine accumulates a leaf as soon as every edge into it has run, Note [Early leaf
    accumulation]), so communication overlaps the rest of backward. Reductions start in bucket
    order on every rank, as MPI requires collectives to be issued in the same order everywhere.
    At the end of backward (``queue_callback``) buckets not started yet (parameters that got no
    gradient) are started, and all of them are waited for.
"""
import contextlib
import json
import threading
import time

import numpy as np

from ..autograd.engine import queue_callback
from ..autograd.grad_mode import _state, no_grad
from ..autograd.saved import before_write
from ..errors import DistributedError
from ..tensor import Tensor, _wrap
from . import comm


class _Bucket:
    __slots__ = ("flat", "params", "ready", "views", "work")

    def __init__(self, flat, params, views):
        self.flat, self.params, self.views = flat, params, views
        self.ready = set()
        self.work = None


class DistributedDataParallel:
    """Wrap ``module`` for data-parallel training over the ranks of :func:`init`.

    ``module`` is anything callable with ``parameters()`` (or ``named_parameters()``) returning
    leaf tensors. At construction, rank 0's parameters are broadcast to every rank (after
    checking that every rank has the same names, shapes and dtypes); with ``broadcast_buffers``
    the module's ``buffers()`` are broadcast again before every forward, as running statistics
    change on each rank. During backward, gradients are averaged over the ranks in place (Note
    [Gradient buckets]). ``progress_thread=True``
    adds a thread that advances the reductions in flight while backward computes (Note
    [Progress thread]); worth it when each rank has a spare core.

    Example::

        dist.init()
        model = DistributedDataParallel(MyModel())
        loss = loss_fn(model(x_shard), y_shard)
        loss.backward()              # p.grad is now the mean over ranks
        with model.no_sync():        # gradient accumulation: reduce only on the last micro-batch
            loss_fn(model(x1), y1).backward()
    """

    def __init__(self, module, bucket_cap_mb=25, broadcast_parameters=True,
                 broadcast_buffers=True, progress_thread=False):
        _, self._comm = comm._comm()
        self.module = module
        named = _named_parameters(module)
        self._check_same_layout(named)
        params = list({id(p): p for _, p in named if p._rg}.values())   # shared ones once
        if broadcast_parameters:
            with no_grad():
                for _, p in named:
                    comm.broadcast_(p, 0)
                for b in _buffers(module):
                    comm.broadcast_(b, 0)
        self._sync = True
        self._broadcast_buffers = broadcast_buffers
        self._progress = progress_thread
        self._poller = None
        self._queued = False
        self._next = 0
        self.buckets = _make_buckets(params, int(bucket_cap_mb * 2 ** 20))
        self._where = {}
        self.exposed_wait_s = 0.0   # time backward's end spent waiting for reductions
        self.copied_grads = 0       # gradients that had to be copied into a bucket (ideally 0)
        for b in self.buckets:
            for p, v in zip(b.params, b.views):
                self._where[id(p)] = (b, v)
                p.__dict__.setdefault("_pre_acc_hooks", []).append(self._pre_accumulate)
                p.register_post_accumulate_grad_hook(self._on_grad)

    def __getattr__(self, name):
        if name == "module":
            raise AttributeError(name)
        return getattr(self.module, name)

    def __call__(self, *args, **kwargs):
        """Run the wrapped module; first point every ``.grad`` into its bucket and, with
        ``broadcast_buffers``, give every rank rank 0's buffers (running statistics)."""
        if _state.enabled:          # an evaluation under no_grad() leaves .grad alone
            self._install_grads()
        if self._broadcast_buffers:
            with no_grad():
                for b in _buffers(self.module):
                    comm.broadcast_(b, 0)
        return self.module(*args, **kwargs)

    forward = __call__

    def parameters(self):
        return self.module.parameters()

    @contextlib.contextmanager
    def no_sync(self):
        """Inside this block backward only accumulates locally; the next backward outside it
        reduces the accumulated gradients."""
        old, self._sync = self._sync, False
        try:
            yield
        finally:
            self._sync = old

    # ---- the reduction ----------------------------------------------------------------------

    def _install_grads(self):
        """Make each parameter's ``.grad`` its bucket view (zeros where the grad was None)."""
        with no_grad():
            for b in self.buckets:
                for p, v in zip(b.params, b.views):
                    if p.grad is not v:
                        self._install(p, v)

    def _pre_accumulate(self, p):
        """Point ``p.grad`` back into its bucket just before backward accumulates into it, so
        ``zero_grad(set_to_none=True)`` between forward and backward costs no copy."""
        v = self._where[id(p)][1]
        if p.grad is not v:
            self._install(p, v)

    def _install(self, p, v):
        g = p.grad
        if v._counter.guards:   # Note [Mutation of saved tensors] in autograd/saved.py
            before_write(v, None, "DistributedDataParallel grad")
        if g is None:
            v._data[...] = 0
        else:
            v._data[...] = g._data
            self.copied_grads += 1
        v._counter.bump("DistributedDataParallel grad")
        p.grad = v

    def _on_grad(self, p):
        if not self._sync:
            return
        if not self._queued:
            self._queued = True
            queue_callback(self._finish)
        b, v = self._where[id(p)]
        if p.grad is not v:    # .grad replaced by a hook of the user's: move it in
            self._install(p, v)
        b.ready.add(id(p))
        while self._next < len(self.buckets):
            nb = self.buckets[self._next]
            if len(nb.ready) < len(nb.params):
                break
            nb.work = comm.all_reduce_(nb.flat, "mean", async_op=True)
            self._next += 1
            if self._progress and self._poller is None:
                self._poller = _Poller(self.buckets)
        if self._poller is None:
            # let MPI progress the reductions already started while backward goes on
            for nb in self.buckets[:self._next]:
                if nb.work is not None:
                    nb.work.is_completed()

    def _finish(self):
        try:
            if self._poller is not None:
                self._poller.stop()
                self._poller = None
            self._install_grads()      # parameters that got no gradient this time
            while self._next < len(self.buckets):
                b = self.buckets[self._next]
                b.work = comm.all_reduce_(b.flat, "mean", async_op=True)
                self._next += 1
            t0 = time.perf_counter()
            for b in self.buckets:
                b.work.wait()
            self.exposed_wait_s = time.perf_counter() - t0
        finally:
            for b in self.buckets:
                b.ready.clear()
                b.work = None
            self._next = 0
            self._queued = False

    def _check_same_layout(self, named):
        """Every rank must hold the same parameters; say which one differs, on every rank."""
        desc = [[n, list(p.shape), str(p._data.dtype)] for n, p in named]
        mine = np.frombuffer(json.dumps(desc).encode(), np.uint8)
        size = self._comm.Get_size()
        lengths = np.empty(size, np.int64)
        self._comm.Allgather(np.array([mine.size], np.int64), lengths)
        everyone = np.empty(int(lengths.sum()), np.uint8)
        self._comm.Allgatherv(mine, (everyone, lengths))
        offsets = np.concatenate([[0], np.cumsum(lengths)])
        layouts = [json.loads(everyone[offsets[r]:offsets[r + 1]].tobytes())
                   for r in range(size)]
        ref = layouts[0]
        for r, other in enumerate(layouts[1:], 1):
            if other == ref:
                continue
            if len(other) != len(ref):
                raise DistributedError(
                    f"DistributedDataParallel: rank 0 has {len(ref)} parameters but rank {r} "
                    f"has {len(other)}; every rank must build the same model")
            for (n0, s0, d0), (n1, s1, d1) in zip(ref, other):
                if (n0, s0, d0) != (n1, s1, d1):
                    raise DistributedError(
                        f"DistributedDataParallel: parameter '{n0}' has shape {s0} and dtype "
                        f"{d0} on rank 0 but '{n1}' has shape {s1} and dtype {d1} on rank {r}; "
                        f"every rank must build the same model")


class _Poller:
    """Note [Progress thread]: MPICH advances a non-blocking reduction only inside MPI calls.
    While backward computes (NumPy's kernels release the GIL), this thread calls ``Test`` on the
    reductions in flight every ``interval`` seconds, so they progress in the background instead
    of at the final wait. It is the only caller of ``Test`` while it runs (two threads must not
    test one request) and is stopped before the main thread waits."""

    def __init__(self, buckets, interval=2e-3):
        self._buckets = buckets
        self._interval = interval
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name="mutograd-ddp-progress")
        self._thread.start()

    def _run(self):
        while not self._done.wait(self._interval):
            for b in self._buckets:
                w = b.work
                if w is not None:
                    w.is_completed()

    def stop(self):
        self._done.set()
        self._thread.join()


def _named_parameters(module):
    if hasattr(module, "named_parameters"):
        named = list(module.named_parameters())
    elif hasattr(module, "parameters"):
        named = [(f"param{i}", p) for i, p in enumerate(module.parameters())]
    else:
        raise TypeError(f"DistributedDataParallel needs a module with parameters(), got "
                        f"{type(module).__name__}")
    for n, p in named:
        if not isinstance(p, Tensor) or p.grad_fn is not None:
            raise DistributedError(f"DistributedDataParallel: parameter '{n}' must be a leaf "
                                   f"Tensor, got {type(p).__name__}"
                                   + (" with a grad_fn" if isinstance(p, Tensor) else ""))
        if not p._data.flags.c_contiguous:
            raise DistributedError(f"DistributedDataParallel: parameter '{n}' is not contiguous")
    return named


def _buffers(module):
    fn = getattr(module, "buffers", None)
    return [b for b in fn() if isinstance(b, Tensor)] if callable(fn) else []


def _make_buckets(params, cap):
    """Group parameters (reverse order, one dtype per bucket) into flat gradient buffers."""
    groups = []
    open_by_dtype = {}
    for p in reversed(params):
        dt = p._data.dtype
        g = open_by_dtype.get(dt)
        if g is not None and g[1] + p._data.nbytes > cap:
            g = None
        if g is None:
            g = open_by_dtype[dt] = [[], 0]
            groups.append(g)
        g[0].append(p)
        g[1] += p._data.nbytes
    buckets = []
    for ps, _ in groups:
        total = sum(p._data.size for p in ps)
        flat = _wrap(np.zeros(total, ps[0]._data.dtype), ps[0])
        views, off = [], 0
        with no_grad():
            for p in ps:
                n = p._data.size
                views.append(flat[off:off + n].reshape(list(p.shape)))
                off += n
        buckets.append(_Bucket(flat, ps, views))
    return buckets
