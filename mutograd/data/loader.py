"""DataLoader: batches of a dataset, optionally shuffled with a seed, collated into tensors."""
import itertools

import numpy as np

from ..tensor import Tensor, _wrap
from .workers import WorkerPool, get_worker_info  # noqa: F401  (re-exported)


def default_convert(data):
    """A sample with every NumPy array (and NumPy number) in it made a tensor, dicts and
    namedtuples kept, tuples and lists as lists: what a DataLoader with ``batch_size=None``
    gives.

        >>> import numpy as np, mutograd as mg
        >>> mg.data.default_convert({"x": np.zeros(2), "n": 3})["x"].shape
        [2]
    """
    if isinstance(data, np.ndarray) and data.dtype.kind not in "USO":
        return _wrap(data)
    if isinstance(data, np.number):
        return _wrap(np.asarray(data))
    if isinstance(data, dict):
        return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(v) for v in data))
    if isinstance(data, (tuple, list)):     # a plain tuple becomes a list, as in PyTorch
        return [default_convert(v) for v in data]
    return data


def default_collate(batch):
    """Stack a list of samples: tensors and arrays along a new first axis, numbers into a tensor,
    and tuples, lists and dicts element by element.

        >>> import mutograd as mg
        >>> x, y = mg.data.default_collate([(mg.zeros([2]), 1), (mg.ones([2]), 0)])
        >>> x.shape, y.tolist()
        ([2, 2], [1, 0])
    """
    first = batch[0]
    if isinstance(first, Tensor):
        return _wrap(first._place.xp.stack([b._data for b in batch]), first)
    if isinstance(first, np.ndarray):
        return _wrap(np.stack(batch))
    if isinstance(first, (bool, int, float, np.number)):
        arr = np.asarray(batch)
        if arr.dtype == np.float64 and not isinstance(first, np.float64):
            arr = arr.astype(np.float32)
        return _wrap(arr)
    if isinstance(first, dict):
        return {k: default_collate([b[k] for b in batch]) for k in first}
    if isinstance(first, tuple) and hasattr(first, "_fields"):
        return type(first)(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(first, (tuple, list)):
        if any(len(b) != len(first) for b in batch):
            raise ValueError("each element in the batch should be of equal size")
        return type(first)(default_collate(list(s)) for s in zip(*batch)) if isinstance(
            first, tuple) else [default_collate(list(s)) for s in zip(*batch)]
    if isinstance(first, (str, bytes)):
        return list(batch)
    raise TypeError(f"default_collate: batch must contain tensors, arrays, numbers, dicts or "
                    f"lists; found {type(first).__name__}")


class DataLoader:
    """Iterate over ``dataset`` in batches.

    ``shuffle=True`` draws a new order each epoch from ``generator`` (a
    :class:`mutograd.Generator`), or a generator seeded with ``seed``, or else the one
    ``mutograd.seed`` seeds, so runs are reproducible.

    ``num_workers=N`` loads in N worker processes, as PyTorch does (mutograd/data/workers.py):
    the same batches in the same order as ``num_workers=0`` for a map-style dataset;
    ``worker_init_fn(worker_id)`` runs first in each worker, :func:`get_worker_info` tells a
    worker who it is; ``prefetch_factor`` batches per worker are loaded ahead;
    ``persistent_workers=True`` keeps the workers from one epoch to the next; ``timeout``
    (seconds) bounds the wait for a batch; ``multiprocessing_context`` ('fork', 'spawn', ...)
    picks how the workers start. ``pin_memory`` is accepted (host memory: nothing to do).

        >>> import mutograd as mg
        >>> ds = mg.data.TensorDataset(mg.arange(10))
        >>> [b[0].tolist() for b in mg.data.DataLoader(ds, batch_size=4, drop_last=True)]
        [[0, 1, 2, 3], [4, 5, 6, 7]]
    """

    def __init__(self, dataset, batch_size=1, shuffle=False, drop_last=False, collate_fn=None,
                 seed=None, num_workers=0, generator=None, sampler=None, batch_sampler=None,
                 pin_memory=False, timeout=0, worker_init_fn=None, multiprocessing_context=None,
                 prefetch_factor=None, persistent_workers=False, **kw):
        if batch_size is not None and (not isinstance(batch_size, int) or batch_size <= 0):
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None and (batch_size != 1 or shuffle or sampler is not None
                                          or drop_last):
            raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                             "shuffle, sampler, and drop_last")
        _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers)
        from .dataset import IterableDataset
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            for name, given in (("shuffle", shuffle), ("sampler", sampler),
                                ("batch_sampler", batch_sampler)):
                if given:
                    raise ValueError(f"DataLoader with IterableDataset: expected unspecified "
                                     f"{name} option, but got {name}={given}")
        self.sampler = sampler     # e.g. a DistributedSampler: its indices, in its order
        self.batch_sampler = batch_sampler   # lists of indices, one per batch
        self.dataset, self.batch_size = dataset, batch_size
        self.shuffle, self.drop_last = shuffle, drop_last
        self.collate_fn = collate_fn or (default_convert if batch_size is None else
                                         default_collate)
        self.num_workers, self.timeout = num_workers, timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.prefetch_factor = 2 if prefetch_factor is None and num_workers else prefetch_factor
        self.persistent_workers = persistent_workers
        self.pin_memory = pin_memory     # host memory already: nothing to pin
        self._pool = None                # the persistent workers
        from .. import random
        self.generator = generator
        self._rng = (random.generator(None, generator) if generator is not None else
                     np.random.default_rng(seed) if seed is not None else None)

    def _order(self):
        n = len(self.dataset)
        if not self.shuffle:
            return np.arange(n)
        if self._rng is not None:
            return self._rng.permutation(n)
        from .. import random
        return random.generator().permutation(n)

    def _fetcher(self):
        if self._iterable:
            return _StreamFetcher(self.dataset, self.collate_fn, self.batch_size,
                                  self.drop_last)
        fast = _tensor_rows(self.dataset) if self.collate_fn is default_collate else None
        return _Fetcher(self.dataset, self.collate_fn, fast)

    def _indices(self):
        """What each batch is made of, batch by batch: an int64 array of dataset indices, or
        one index when ``batch_size`` is None."""
        batches = self.batch_sampler
        if batches is None and self.sampler is not None:
            if self.batch_size is None:
                yield from (int(i) for i in self.sampler)
                return
            # batch by batch, never the whole order at once: a RandomSampler with a huge
            # num_samples is endless in effect
            from .sampler import BatchSampler
            batches = BatchSampler(self.sampler, self.batch_size, self.drop_last)
        if batches is not None:
            yield from (np.asarray(idx, dtype=np.int64) for idx in batches)
            return
        order = self._order()
        bs = self.batch_size
        if bs is None:
            yield from (int(i) for i in order)
            return
        for start in range(0, len(order), bs):
            idx = order[start:start + bs]
            if len(idx) < bs and self.drop_last:
                return
            yield idx

    def _base_seed(self):
        """The epoch's seed of the workers, drawn from the loader's generator whether or not
        there are workers (as PyTorch does), so the orders drawn after it do not depend on
        ``num_workers``."""
        from .. import random
        rng = self._rng if self._rng is not None else random.generator()
        return int(rng.integers(0, 2 ** 63, dtype=np.int64))

    def __iter__(self):
        base_seed = self._base_seed()
        fetcher = self._fetcher()
        indices = None if self._iterable else self._indices()
        if not self.num_workers:
            if self._iterable:
                fetcher.restart()
                yield from iter(fetcher.next_batch, _END)
            else:
                yield from map(fetcher, indices)
            return
        pool = self._pool
        if pool is None or pool.closed:
            pool = WorkerPool(fetcher, self.num_workers, base_seed,
                              context=self.multiprocessing_context,
                              init_fn=self.worker_init_fn, prefetch_factor=self.prefetch_factor,
                              timeout=self.timeout)
            if self.persistent_workers:
                self._pool = pool
        try:
            yield from pool.run(indices)
        except GeneratorExit:    # a break out of the epoch: persistent workers stay
            if not self.persistent_workers:
                pool.shutdown()
            raise
        except BaseException:    # an error in a worker, a timeout, Ctrl-C
            pool.shutdown()
            self._pool = None
            raise
        if not self.persistent_workers:
            pool.shutdown()

    def __del__(self):
        if self.__dict__.get("_pool") is not None:
            self._pool.shutdown()

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)    # a TypeError when the dataset has no length, as PyTorch
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        n = len(self.dataset if self.sampler is None else self.sampler)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


_END = object()


def _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers):
    if not isinstance(num_workers, int) or num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                         "disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                         "let num_workers > 0 to enable multiprocessing, otherwise set "
                         "prefetch_factor to None.")
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")


class _Fetcher:
    """Makes one batch of a map-style dataset from its indices (an int64 array, or one index
    when not batching), in the main process or a worker; ``where()`` says what it was loading
    when that raised."""

    iterable = False

    def __init__(self, dataset, collate_fn, fast):
        self.dataset, self.collate_fn, self.fast = dataset, collate_fn, fast
        self.at = None

    def __call__(self, index):
        self.at = index
        if not isinstance(index, np.ndarray):
            return self.collate_fn(self.dataset[index])
        if self.fast is not None:
            # a TensorDataset: one gather per tensor instead of a Python loop over samples
            return tuple(_wrap(t._data[index], t) for t in self.fast)
        samples = []
        for i in index:
            self.at = int(i)
            samples.append(self.dataset[int(i)])
        self.at = index
        return self.collate_fn(samples)

    def where(self):
        if isinstance(self.at, np.ndarray):
            return f"making the batch of the indices {self.at.tolist()}"
        return f"loading the sample at index {self.at}"


class _StreamFetcher:
    """Makes the batches of an iterable dataset, ``batch_size`` samples at a time as they
    come; ``next_batch`` raises StopIteration at the end of the stream."""

    iterable = True

    def __init__(self, dataset, collate_fn, batch_size, drop_last):
        self.dataset, self.collate_fn = dataset, collate_fn
        self.batch_size, self.drop_last = batch_size, drop_last
        self.count = 0

    def restart(self):
        self._it, self.count = iter(self.dataset), 0

    def next_batch(self):
        if self.batch_size is None:
            sample = next(self._it)
        else:
            sample = list(itertools.islice(self._it, self.batch_size))
            if not sample or (len(sample) < self.batch_size and self.drop_last):
                raise StopIteration
        self.count += 1
        return self.collate_fn(sample)

    def where(self):
        return f"making batch {self.count} of its stream"


def _tensor_rows(ds):
    from .dataset import TensorDataset
    return ds.tensors if type(ds) is TensorDataset else None
