"""Sharding a data set over the ranks: each rank sees a disjoint share, reshuffled every epoch."""
import math

import numpy as np


class DistributedSampler:
    """Indices of this rank's share of ``dataset`` (anything with ``len()``).

    The index list is shuffled with ``seed + epoch`` (the same on every rank, so the shares stay
    disjoint), padded by repeating its start so that it divides evenly (or cut, with
    ``drop_last``), and rank ``r`` takes every ``num_replicas``-th index from ``r``. Call
    :meth:`set_epoch` at the start of each epoch to get a new order.

    Example::

        sampler = DistributedSampler(range(10), num_replicas=2, rank=1, shuffle=False)
        list(sampler)     # [1, 3, 5, 7, 9]
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        from . import comm
        if num_replicas is None:
            num_replicas = comm.world_size()
        if rank is None:
            rank = comm.rank()
        if num_replicas < 1 or not 0 <= rank < num_replicas:
            raise ValueError(f"DistributedSampler: rank {rank} is not in [0, {num_replicas})")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.shuffle, self.seed, self.drop_last, self.epoch = shuffle, seed, drop_last, 0
        n = len(dataset)
        self.num_samples = n // num_replicas if drop_last else math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def set_epoch(self, epoch):
        """Use the order of ``epoch`` (call it on every rank with the same value)."""
        self.epoch = epoch

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            idx = np.random.default_rng(self.seed + self.epoch).permutation(n)
        else:
            idx = np.arange(n)
        if self.total_size > n:
            idx = np.resize(idx, self.total_size)      # repeats from the start
        idx = idx[:self.total_size]
        return iter(idx[self.rank::self.num_replicas].tolist())

    def __len__(self):
        return self.num_samples
