"""The worker processes of a DataLoader with ``num_workers > 0``, run as PyTorch runs them.

Each worker is a process of the loader's multiprocessing context (the platform's default start
method, or ``multiprocessing_context``: ``'spawn'`` needs a picklable dataset, collate_fn and
worker_init_fn). It gets tasks (a batch's indices, or "your next batch" for an iterable
dataset) on its own queue and puts ``(epoch, task, result)`` on a queue shared by all; the
loader keeps ``prefetch_factor`` tasks per worker in flight, hands them out in turn, and yields
the results in task order, so the batches of a map-style dataset are those of
``num_workers=0``, in the same order. An iterable dataset runs whole in every worker (shard it
with :func:`get_worker_info`, as in PyTorch); its batches come from the workers in turn, a
worker whose stream ended being skipped.

Seeds (PyTorch's rule): each epoch the loader draws ``base_seed`` from its generator; worker
``i`` seeds Python's ``random`` and mutograd's generator with ``base_seed + i``, and NumPy's
global generator with the state ``SeedSequence([i, base_seed % 2**32, base_seed // 2**32, 0])``
gives (what PyTorch 2.13 seeds NumPy with). An exception in a worker comes back to the main
process as an exception of its type whose message says which worker, what it was loading and
the original traceback. Workers end with the epoch (or with the loader, for
``persistent_workers``), on ``break`` and at interpreter exit.
"""
import atexit
import itertools
import multiprocessing
import os
import pickle
import queue
import random
import sys
import traceback
import weakref

import numpy as np

_POLL = 1.0          # seconds between checks that the other side is still there
_JOIN = 5.0          # seconds a worker gets to finish before it is terminated
_info = None         # this process's WorkerInfo, in a worker
_pools = weakref.WeakSet()   # the live pools, shut down at exit


class WorkerInfo:
    """What :func:`get_worker_info` gives inside a worker: ``id``, ``num_workers``, ``seed``
    and ``dataset`` (this worker's copy)."""

    __slots__ = ("dataset", "id", "num_workers", "seed")

    def __init__(self, id, num_workers, seed, dataset):
        self.id, self.num_workers, self.seed, self.dataset = id, num_workers, seed, dataset

    def __repr__(self):
        return (f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed}, "
                f"dataset={type(self.dataset).__name__})")


def get_worker_info():
    """Inside a DataLoader worker, its :class:`WorkerInfo`; None in the main process.

    An :class:`~mutograd.data.IterableDataset` uses it to give each worker its share:

        >>> import mutograd as mg
        >>> class Range(mg.data.IterableDataset):
        ...     def __iter__(self):
        ...         info = mg.data.get_worker_info()
        ...         start, step = (0, 1) if info is None else (info.id, info.num_workers)
        ...         return iter(range(start, 6, step))
        >>> [b.tolist() for b in mg.data.DataLoader(Range(), batch_size=2, num_workers=2)]
        [[0, 2], [1, 3], [4], [5]]
    """
    return _info


def numpy_seed(base_seed, worker_id):
    """The state NumPy's global generator gets in worker ``worker_id`` (PyTorch's rule)."""
    words = [worker_id, base_seed & 0xFFFFFFFF, base_seed >> 32, 0]
    return np.random.SeedSequence(words).generate_state(4)


class _Exhausted:
    """A worker's answer when its iterable dataset has no more batches this epoch."""


class WorkerError:
    """An exception raised in a worker, carried to the main process and raised there again."""

    def __init__(self, worker_id, what):
        exc_type, exc, tb = sys.exc_info()
        try:
            pickle.dumps(exc_type)
        except Exception:  # noqa: BLE001  (a class defined in a function: not importable)
            exc_type = RuntimeError
        self.exc_type = exc_type
        self.message = (f"Caught {type(exc).__name__} in DataLoader worker process "
                        f"{worker_id}.\nIt was raised {what}.\nOriginal "
                        f"{''.join(traceback.format_exception(type(exc), exc, tb))}")

    def reraise(self):
        msg = _KeyErrorMessage(self.message) if self.exc_type is KeyError else self.message
        try:
            exc = self.exc_type(msg)
        except Exception:  # noqa: BLE001  (an exception type that takes other arguments)
            exc = RuntimeError(msg)
        raise exc


class _KeyErrorMessage(str):
    """A KeyError shows its message with repr(); this one shows it as written."""

    def __repr__(self):
        return self


def _worker_loop(*args):
    """The body of worker process: :func:`_serve`; Ctrl-C is the main process's to handle."""
    try:
        _serve(*args)
    except KeyboardInterrupt:
        pass


def _serve(fetcher, tasks, results, done, worker_id, num_workers, base_seed, init_fn,
           parent_pid):
    """Seed, run ``init_fn``, then answer tasks until told to stop (None on ``tasks``,
    ``done`` set) or the parent process is gone."""
    global _info
    from .. import random as mg_random
    seed = base_seed + worker_id
    random.seed(seed)
    mg_random.seed(seed)
    np.random.seed(numpy_seed(base_seed, worker_id))
    _info = WorkerInfo(worker_id, num_workers, seed, fetcher.dataset)
    failed = None
    try:
        if init_fn is not None:
            init_fn(worker_id)
    except Exception:  # noqa: BLE001  (reported with the first task)
        failed = WorkerError(worker_id, "in worker_init_fn")
    epoch = None
    while True:
        try:
            task = tasks.get(timeout=_POLL)
        except queue.Empty:
            if done.is_set() or os.getppid() != parent_pid:
                break
            continue
        if task is None:
            break
        if done.is_set():
            continue     # shutting down: drain
        task_epoch, number, index = task
        if failed is not None:
            results.put((task_epoch, number, failed))
            continue
        try:
            if fetcher.iterable:
                if task_epoch != epoch:
                    fetcher.restart()
                    epoch = task_epoch
                data = fetcher.next_batch()
            else:
                data = fetcher(index)
        except StopIteration:
            data = _Exhausted
        except Exception:  # noqa: BLE001  (sent to the main process, raised there)
            data = WorkerError(worker_id, fetcher.where())
        results.put((task_epoch, number, data))
    results.cancel_join_thread()   # exit without waiting for a reader that may be gone


class WorkerPool:
    """``num_workers`` worker processes serving one loader (for one epoch, or for as long as
    the loader lives with ``persistent_workers``)."""

    def __init__(self, fetcher, num_workers, base_seed, *, context=None, init_fn=None,
                 prefetch_factor=2, timeout=0):
        ctx = (multiprocessing.get_context(context) if context is None or
               isinstance(context, str) else context)
        self.num_workers, self.prefetch = num_workers, max(1, prefetch_factor)
        self.timeout, self.iterable = timeout, fetcher.iterable
        self.results = ctx.Queue()
        self.done = ctx.Event()
        self.tasks, self.workers = [], []
        self.owner, self.closed, self.epoch = os.getpid(), False, 0
        for i in range(num_workers):
            q = ctx.Queue()
            q.cancel_join_thread()   # the loader never waits on what a dead worker did not read
            w = ctx.Process(target=_worker_loop, daemon=True,
                            args=(fetcher, q, self.results, self.done, i, num_workers,
                                  base_seed, init_fn, os.getpid()))
            w.start()
            self.tasks.append(q)
            self.workers.append(w)
        _pools.add(self)

    def run(self, indices):
        """The results of one epoch, in task order: of each index in ``indices`` (map-style),
        or of the workers' streams in turn (``indices`` None, an iterable dataset)."""
        self.epoch += 1
        epoch, indices = self.epoch, iter(indices) if indices is not None else None
        active = [True] * self.num_workers
        turn = itertools.cycle(range(self.num_workers))
        owner, arrived = {}, {}    # task number -> the worker doing it / its result
        sent = 0

        def send():
            nonlocal sent
            if not any(active):
                return False
            index = None
            if indices is not None:
                index = next(indices, _Exhausted)
                if index is _Exhausted:
                    return False
            w = next(turn)
            while not active[w]:
                w = next(turn)
            self.tasks[w].put((epoch, sent, index))
            owner[sent] = w
            sent += 1
            return True

        for _ in range(self.prefetch * self.num_workers):
            if not send():
                break
        want = 0
        while want < sent:
            while want not in arrived:
                got_epoch, number, data = self._get()
                if got_epoch == epoch:   # an earlier epoch's late answers are dropped
                    arrived[number] = data
            data = arrived.pop(want)
            w = owner.pop(want)
            want += 1
            if data is _Exhausted:
                active[w] = False
                send()
                continue
            if isinstance(data, WorkerError):
                data.reraise()
            send()
            yield data

    def _get(self):
        """The next result; RuntimeError when ``timeout`` passes or a worker died."""
        while True:
            try:
                return self.results.get(timeout=self.timeout if self.timeout > 0 else _POLL)
            except queue.Empty:
                dead = [str(w.pid) for w in self.workers if not w.is_alive()]
                if dead:
                    self.shutdown()
                    raise RuntimeError(f"DataLoader worker (pid(s) {', '.join(dead)}) exited "
                                       f"unexpectedly") from None
                if self.timeout > 0:
                    raise RuntimeError(f"DataLoader timed out after {self.timeout} "
                                       f"seconds") from None

    def shutdown(self):
        """Stop the workers (terminated if they do not stop within a few seconds) and wait for
        them, so no process is left behind. Only the process that started them does it."""
        if self.closed or os.getpid() != self.owner:
            return
        self.closed = True
        self.done.set()
        for q in self.tasks:
            try:
                q.put(None)
            except (OSError, ValueError):
                pass
        for w in self.workers:
            w.join(_JOIN)
            if w.is_alive():
                w.terminate()
                w.join()
        for q in (*self.tasks, self.results):
            q.cancel_join_thread()
            q.close()

    def __del__(self):
        self.shutdown()


@atexit.register
def _shutdown_all():
    for pool in list(_pools):
        pool.shutdown()
