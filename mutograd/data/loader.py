"""DataLoader: batches of a dataset, optionally shuffled with a seed, collated into tensors."""
import numpy as np

from ..tensor import Tensor, _wrap


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


def get_worker_info():
    """Information about the loading worker process: None, since a mutograd DataLoader loads
    in the calling process (``num_workers`` is accepted and changes nothing)."""
    return None


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

        >>> import mutograd as mg
        >>> ds = mg.data.TensorDataset(mg.arange(10))
        >>> [b[0].tolist() for b in mg.data.DataLoader(ds, batch_size=4, drop_last=True)]
        [[0, 1, 2, 3], [4, 5, 6, 7]]
    """

    def __init__(self, dataset, batch_size=1, shuffle=False, drop_last=False, collate_fn=None,
                 seed=None, num_workers=0, generator=None, sampler=None, batch_sampler=None,
                 pin_memory=False, **kw):
        if batch_size is not None and (not isinstance(batch_size, int) or batch_size <= 0):
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None and (batch_size != 1 or shuffle or sampler is not None
                                          or drop_last):
            raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                             "shuffle, sampler, and drop_last")
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
        # pin_memory and num_workers are accepted (one process, host memory: nothing to do)
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

    def _stream(self):
        """An iterable dataset's samples in batches of ``batch_size``, as they come."""
        if self.batch_size is None:
            for sample in self.dataset:
                yield self.collate_fn(sample)
            return
        batch = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __iter__(self):
        if self._iterable:
            yield from self._stream()
            return
        batches = self.batch_sampler
        if batches is None and self.sampler is not None:
            if self.batch_size is None:
                for i in self.sampler:
                    yield self.collate_fn(self.dataset[int(i)])
                return
            # batch by batch, never the whole order at once: a RandomSampler with a huge
            # num_samples is endless in effect
            from .sampler import BatchSampler
            batches = BatchSampler(self.sampler, self.batch_size, self.drop_last)
        if batches is not None:
            fast = _tensor_rows(self.dataset)
            for idx in batches:
                idx = np.asarray(idx, dtype=np.int64)
                if fast is not None and self.collate_fn is default_collate:
                    yield tuple(_wrap(t._data[idx], t) for t in fast)
                else:
                    yield self.collate_fn([self.dataset[int(i)] for i in idx])
            return
        order = self._order()
        bs = self.batch_size
        if bs is None:
            for i in order:
                yield self.collate_fn(self.dataset[int(i)])
            return
        fast = _tensor_rows(self.dataset)
        for start in range(0, len(order), bs):
            idx = order[start:start + bs]
            if len(idx) < bs and self.drop_last:
                return
            if fast is not None and self.collate_fn is default_collate:
                # a TensorDataset: one gather per tensor instead of a Python loop over samples
                yield tuple(_wrap(t._data[idx], t) for t in fast)
            else:
                yield self.collate_fn([self.dataset[int(i)] for i in idx])

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


def _tensor_rows(ds):
    from .dataset import TensorDataset
    return ds.tensors if type(ds) is TensorDataset else None
