"""Datasets: map-style (``__len__`` and ``__getitem__``: TensorDataset, Subset, ConcatDataset,
StackDataset) and iterable (``__iter__``: IterableDataset, ChainDataset)."""
from ..tensor import Tensor


class Dataset:
    """Base class of map-style datasets: define ``__getitem__(i)`` and ``__len__()``."""

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __len__(self):
        # a TypeError, as for an object without __len__: list() and friends take it as
        # "length unknown" (an IterableDataset usually has none)
        raise TypeError(f"{type(self).__name__} has no __len__")

    def __add__(self, other):
        return ConcatDataset([self, other])


class TensorDataset(Dataset):
    """Samples are the i-th rows of tensors that share their first dimension.

        >>> import mutograd as mg
        >>> ds = mg.data.TensorDataset(mg.zeros([5, 3]), mg.arange(5))
        >>> len(ds), ds[2][1].item()
        (5, 2)
    """

    def __init__(self, *tensors):
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        n = tensors[0].shape[0]
        for t in tensors:
            if not isinstance(t, Tensor):
                raise TypeError(f"TensorDataset takes tensors, got {type(t).__name__}")
            if t.shape[0] != n:
                raise ValueError(f"Size mismatch between tensors: {n} vs {t.shape[0]} rows")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``."""

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, list(indices)

    def __getitem__(self, i):
        return self.dataset[self.indices[i]]

    def __len__(self):
        return len(self.indices)


class ConcatDataset(Dataset):
    """Datasets one after the other."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        self.ends = []
        n = 0
        for d in self.datasets:
            n += len(d)
            self.ends.append(n)

    def __len__(self):
        return self.ends[-1] if self.ends else 0

    def __getitem__(self, i):
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(f"index {i} out of range for a dataset of {len(self)} samples")
        import bisect
        k = bisect.bisect_right(self.ends, i)
        return self.datasets[k][i - (self.ends[k - 1] if k else 0)]


class StackDataset(Dataset):
    """Samples of several datasets of one length side by side: a tuple (datasets given by
    position) or a dict (by keyword).

        >>> import mutograd as mg
        >>> ds = mg.data.StackDataset(image=[10, 11], label=[0, 1])
        >>> ds[1]
        {'image': 11, 'label': 1}
    """

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via "
                             "``kwargs``) like input/output, but both types are given.")
        parts = list(args) or list(kwargs.values())
        if not parts:
            raise ValueError("At least one dataset should be passed")
        self._length = len(parts[0])
        if any(len(d) != self._length for d in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self):
        return self._length


class IterableDataset(Dataset):
    """Base class of datasets read by iterating (a stream, a generator, a file read line by
    line): define ``__iter__``. A DataLoader batches what it yields, in order; ``len`` only if
    the subclass defines it.

        >>> import mutograd as mg
        >>> class Squares(mg.data.IterableDataset):
        ...     def __iter__(self):
        ...         return (i * i for i in range(5))
        >>> [b.tolist() for b in mg.data.DataLoader(Squares(), batch_size=2)]
        [[0, 1], [4, 9], [16]]
    """

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")

    def __getitem__(self, index):
        raise TypeError(f"{type(self).__name__} is an IterableDataset: it is read by "
                        f"iterating, not by index")

    def __add__(self, other):
        return ChainDataset([self, other])


class ChainDataset(IterableDataset):
    """Iterable datasets one after the other."""

    def __init__(self, datasets):
        self.datasets = list(datasets)

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise TypeError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        return sum(len(d) for d in self.datasets)


def random_split(dataset, lengths, generator=None, seed=None):
    """Split ``dataset`` into non-overlapping Subsets of the given lengths (or fractions), in an
    order drawn from ``generator`` (a :class:`mutograd.Generator`), a generator seeded with
    ``seed``, or else the one ``mutograd.seed`` seeds."""
    import numpy as np

    from .. import random
    n = len(dataset)
    if all(0 <= x <= 1 for x in lengths) and abs(sum(lengths) - 1) < 1e-9 and sum(lengths) != n:
        sizes = [int(x * n) for x in lengths]
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
    else:
        sizes = list(lengths)
    if sum(sizes) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    rng = random.generator(None, generator) if generator is not None or seed is None else \
        np.random.default_rng(seed)
    perm = rng.permutation(n)
    out, start = [], 0
    for s in sizes:
        out.append(Subset(dataset, perm[start:start + s].tolist()))
        start += s
    return out
