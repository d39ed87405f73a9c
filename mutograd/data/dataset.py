"""Datasets: anything with ``__len__`` and ``__getitem__``; TensorDataset and Subset."""
from ..tensor import Tensor


class Dataset:
    """Base class of map-style datasets: define ``__getitem__(i)`` and ``__len__()``."""

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __len__")

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
