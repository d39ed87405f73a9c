"""``torch.utils.data.dataloader``: the DataLoader with PyTorch's default collation.

PyTorch's ``default_collate`` differs from mutograd's (Paddle's) in two ways a program can see:
a sample that is a tuple gives a *list* of batched fields, and Python floats give float64.

    >>> import mutograd as mg
    >>> from mutograd.compat.torch.utils.data import default_collate
    >>> x, y = default_collate([(mg.zeros([2]), 1.5), (mg.ones([2]), 2.0)])
    >>> type(default_collate([(1, 2)])).__name__, str(y.dtype)
    ('list', 'torch.float64')
"""
import collections.abc

import numpy as np

from .....data import DataLoader as _DataLoader
from .....data import default_collate as _collate
from .....tensor import Tensor, _wrap


def default_collate(batch):
    """Stack a list of samples as PyTorch does: tensors, arrays and numbers into tensors (a float
    as float64), dicts key by key, namedtuples field by field, other sequences into a list."""
    first = batch[0]
    if isinstance(first, float):
        return _wrap(np.asarray(batch, dtype=np.float64))
    if isinstance(first, (Tensor, np.ndarray, bool, int, np.number, str, bytes)):
        return _collate(batch)
    if isinstance(first, collections.abc.Mapping):
        return type(first)({k: default_collate([b[k] for b in batch]) for k in first}) \
            if type(first) is not dict else {k: default_collate([b[k] for b in batch])
                                            for k in first}
    if isinstance(first, tuple) and hasattr(first, "_fields"):
        return type(first)(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(first, collections.abc.Sequence):
        if any(len(b) != len(first) for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(list(s)) for s in zip(*batch)]
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts "
                    f"or lists; found {type(first)}")


class DataLoader(_DataLoader):
    """mutograd's DataLoader with PyTorch's :func:`default_collate` unless ``collate_fn`` is
    given; ``num_workers`` and the other worker options as in :class:`mutograd.data.DataLoader`
    (worker processes, as PyTorch runs them)."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device=""):
        super().__init__(dataset, batch_size=batch_size, shuffle=bool(shuffle),
                         sampler=sampler, batch_sampler=batch_sampler, num_workers=num_workers,
                         collate_fn=collate_fn or (default_collate if batch_size is not None
                                                   else None), pin_memory=pin_memory,
                         drop_last=drop_last, generator=generator, timeout=timeout,
                         worker_init_fn=worker_init_fn,
                         multiprocessing_context=multiprocessing_context,
                         prefetch_factor=prefetch_factor, persistent_workers=persistent_workers)
