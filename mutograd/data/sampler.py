"""Samplers: the order in which a DataLoader visits a dataset (PyTorch's ``torch.utils.data``).

Every sampler is lazy: it yields indices one at a time, so
``RandomSampler(ds, replacement=True, num_samples=10**12)`` costs nothing until iterated.

    >>> import mutograd as mg
    >>> from mutograd.data.sampler import BatchSampler, SequentialSampler
    >>> list(BatchSampler(SequentialSampler(range(5)), batch_size=2, drop_last=False))
    [[0, 1], [2, 3], [4]]
"""
import numpy as np

from .. import random

# indices drawn from the generator per call: bounded memory whatever num_samples is
_CHUNK = 1024


def _rng(generator):
    """The generator to draw from: the one given (a :class:`mutograd.Generator` or a
    ``numpy.random.Generator``) or mutograd's seeded one (``manual_seed`` / ``mutograd.seed``)."""
    return random.generator(None, generator)


class Sampler:
    """Base class: iterate over dataset indices; ``__len__`` where the count is known."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise TypeError(f"{type(self).__name__} must define __iter__")


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation of the indices, or ``num_samples`` draws with ``replacement=True``
    (drawn in chunks as iterated: never materialised)."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got "
                            f"replacement={replacement}")
        if num_samples is not None and (not isinstance(num_samples, (int, np.integer))
                                        or num_samples <= 0):
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        self.data_source, self.replacement = data_source, replacement
        self._num_samples, self.generator = num_samples, generator

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else int(self._num_samples)

    def __iter__(self):
        n, rng = len(self.data_source), _rng(self.generator)
        left = self.num_samples
        if self.replacement:
            while left > 0:
                k = min(left, _CHUNK)
                yield from rng.integers(0, n, k).tolist()
                left -= k
            return
        while left > 0:                       # whole permutations, then part of one
            k = min(left, n)
            yield from rng.permutation(n)[:k].tolist()
            left -= k

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order."""

    def __init__(self, indices, generator=None):
        self.indices, self.generator = indices, generator

    def __iter__(self):
        for i in _rng(self.generator).permutation(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler`` (the last one shorter unless
    ``drop_last``)."""

    def __init__(self, sampler, batch_size, drop_last):
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for i in self.sampler:
            batch.append(i)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


class _SamplingError(RuntimeError, ValueError):
    """Weights that cannot give the samples asked for (PyTorch raises a RuntimeError)."""


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights`` (with
    ``replacement``, or each index at most once)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if isinstance(num_samples, bool) or not isinstance(num_samples, int) or \
                num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        w = np.asarray(weights.tolist() if hasattr(weights, "tolist") else weights, np.float64)
        if w.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape "
                             f"{tuple(w.shape)}")
        if (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
            raise ValueError("weights must be finite, non-negative and not all zero")
        if not replacement and num_samples > (w > 0).sum():
            raise _SamplingError("cannot draw more samples than there are non-zero weights "
                             "without replacement")
        self.weights, self.num_samples = w, num_samples
        self.replacement, self.generator = replacement, generator

    def __iter__(self):
        p = self.weights / self.weights.sum()
        rng = _rng(self.generator)
        yield from (int(i) for i in rng.choice(len(p), self.num_samples, self.replacement, p))

    def __len__(self):
        return self.num_samples
