"""``paddle.io``: datasets, samplers and Paddle's ``DataLoader`` over ``mutograd.data``.

Paddle's loader yields **lists** (``[images, labels]``), is also callable (``loader()`` starts an
epoch), and takes an ``IterableDataset`` (no ``len``) as well as a map-style one.

    >>> import numpy as np, mutograd.compat.paddle as paddle
    >>> class Squares(paddle.io.IterableDataset):
    ...     def __iter__(self):
    ...         for i in range(5):
    ...             yield np.float32(i * i), i
    >>> [[t.tolist() for t in b] for b in paddle.io.DataLoader(Squares(), batch_size=2)]
    [[[0.0, 1.0], [0, 1]], [[4.0, 9.0], [2, 3]], [[16.0], [4]]]
"""

from ...data import (ChainDataset, ConcatDataset, Dataset, IterableDataset,  # noqa: F401
                     Subset, SubsetRandomSampler, WeightedRandomSampler, random_split)
from ...data import DataLoader as _DataLoader
from ...tensor import adopt
from .tensor import Tensor as _PaddleTensor
from ...data import Sampler as _Sampler
from ...data import TensorDataset as _TensorDataset
from ...data import default_collate, get_worker_info  # noqa: F401
from ...data.sampler import BatchSampler as _BatchSampler
from ...data.sampler import RandomSampler, SequentialSampler  # noqa: F401
from .distributed import DistributedBatchSampler  # noqa: F401

SequenceSampler = SequentialSampler


class Sampler(_Sampler):
    """Base class of the samplers: ``__iter__`` yields dataset indices."""


class TensorDataset(_TensorDataset):
    """Paddle's form takes one list of tensors: ``TensorDataset([x, y])``."""

    def __init__(self, tensors):
        super().__init__(*tensors)


class ComposeDataset(Dataset):
    """Sample ``i`` of every dataset (all of one length), joined into one tuple of fields."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if len({len(d) for d in self.datasets}) > 1:
            raise ValueError("ComposeDataset: the datasets must have the same length")

    def __len__(self):
        return len(self.datasets[0])

    def __getitem__(self, i):
        out = []
        for d in self.datasets:
            s = d[i]
            out.extend(s if isinstance(s, (tuple, list)) else [s])
        return tuple(out)


class BatchSampler(_BatchSampler):
    """Batches of indices, from ``dataset`` (in order, or shuffled) or from ``sampler``."""

    def __init__(self, dataset=None, sampler=None, shuffle=False, batch_size=1, drop_last=False):
        if (dataset is None) == (sampler is None):
            raise ValueError("BatchSampler: give either dataset or sampler")
        if sampler is None:
            sampler = RandomSampler(dataset) if shuffle else SequentialSampler(dataset)
        super().__init__(sampler, batch_size, drop_last)


def _as_list(batch):
    return list(batch) if isinstance(batch, tuple) else batch


class DataLoader(_DataLoader):
    """Paddle's DataLoader over mutograd's: batches as lists (``return_list=True``), callable,
    and ``len()`` of one over an :class:`IterableDataset` a ValueError (so ``list(loader)``
    raises, as in Paddle). ``num_workers``, ``worker_init_fn``, ``prefetch_factor``,
    ``timeout`` and ``persistent_workers`` run worker processes as
    :class:`mutograd.data.DataLoader` does; ``places``, ``use_shared_memory`` and the buffer
    settings are accepted (host memory: nothing to do)."""

    def __init__(self, dataset, feed_list=None, places=None, return_list=True, batch_sampler=None,
                 batch_size=1, shuffle=False, drop_last=False, collate_fn=None, num_workers=0,
                 use_buffer_reader=True, reader_buffer_size=2, prefetch_factor=2,
                 use_shared_memory=True, timeout=0, worker_init_fn=None,
                 persistent_workers=False):
        if isinstance(dataset, IterableDataset) and (shuffle or batch_sampler is not None):
            raise ValueError("IterableDataset not support shuffle or batch_sampler")
        workers = dict(num_workers=num_workers, timeout=timeout, worker_init_fn=worker_init_fn,
                       prefetch_factor=prefetch_factor if num_workers else None,
                       persistent_workers=persistent_workers and num_workers > 0)
        if batch_sampler is not None:
            super().__init__(dataset, batch_size=1, collate_fn=collate_fn,
                             batch_sampler=batch_sampler, **workers)
        else:
            super().__init__(dataset, batch_size=batch_size, shuffle=shuffle,
                             drop_last=drop_last, collate_fn=collate_fn, **workers)

    def __call__(self):
        return iter(self)

    def __iter__(self):
        for b in super().__iter__():
            yield adopt(_as_list(b), _PaddleTensor)   # Note [Tensor types of the dialects]

    def __len__(self):
        if self._iterable:
            raise ValueError("length of IterableDataset not supported")
        return super().__len__()


__all__ = ["BatchSampler", "ChainDataset", "ComposeDataset", "ConcatDataset", "DataLoader",
           "Dataset", "DistributedBatchSampler", "IterableDataset", "RandomSampler", "Sampler",
           "SequenceSampler", "Subset", "SubsetRandomSampler", "TensorDataset",
           "WeightedRandomSampler", "default_collate", "get_worker_info", "random_split"]
