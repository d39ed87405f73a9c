"""``torch.utils.data.dataset``: mutograd's datasets, and PyTorch's iterable and stacked ones.

    >>> from mutograd.compat.torch.utils.data import ChainDataset, IterableDataset
    >>> class Count(IterableDataset):
    ...     def __init__(self, n):
    ...         self.n = n
    ...     def __iter__(self):
    ...         return iter(range(self.n))
    >>> list(Count(2) + Count(3))
    [0, 1, 0, 1, 2]
"""
import itertools

from .....data import ConcatDataset, Dataset, Subset, TensorDataset, random_split  # noqa: F401


class IterableDataset(Dataset):
    """A dataset that is a stream: subclasses define ``__iter__`` (no indexing); the DataLoader
    batches what it yields, in order."""

    def __iter__(self):
        raise TypeError(f"{type(self).__name__} must define __iter__ (an IterableDataset is a "
                        f"stream of samples)")

    def __getitem__(self, index):
        raise TypeError(f"{type(self).__name__} is an IterableDataset: iterate over it instead "
                        f"of indexing it")

    def __len__(self):   # a TypeError, as len() of any object without a length
        raise TypeError(f"{type(self).__name__} (an IterableDataset) does not define __len__")

    def __add__(self, other):
        return ChainDataset([self, other])


class ChainDataset(IterableDataset):
    """Iterable datasets one after the other."""

    def __init__(self, datasets):
        self.datasets = list(datasets)

    def __iter__(self):
        return itertools.chain.from_iterable(self.datasets)

    def __len__(self):
        return sum(len(d) for d in self.datasets)


class StackDataset(Dataset):
    """Datasets of equal length side by side: sample ``i`` is the tuple (or, given keywords,
    the dict) of their samples ``i``."""

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via "
                             "``kwargs``) like input/output, but both types are given.")
        self.datasets = args or kwargs
        lengths = {len(d) for d in (args or kwargs.values())}
        if len(lengths) != 1:
            raise ValueError("Size mismatch between datasets")
        self._length = lengths.pop()

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self):
        return self._length
