"""``mutograd.data``: datasets, the DataLoader, the shipped digits and an MNIST IDX reader.

    >>> import mutograd as mg
    >>> train, test = mg.data.digits_split()
    >>> xb, yb = next(iter(mg.data.DataLoader(train, batch_size=32, shuffle=True, seed=0)))
    >>> xb.shape
    [32, 1, 8, 8]
"""
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset,
                      Subset, TensorDataset, random_split)
from .datasets import DataFormatError, digits_split, load_digits, load_mnist, read_idx
from .loader import DataLoader, default_collate, default_convert, get_worker_info
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                      SubsetRandomSampler, WeightedRandomSampler)

__all__ = [
           "BatchSampler",
           "ChainDataset",
           "IterableDataset",
           "StackDataset",
           "WeightedRandomSampler",
           "default_convert",
           "get_worker_info",
           "ConcatDataset",
           "DataFormatError",
           "DataLoader",
           "Dataset",
           "Subset",
           "TensorDataset",
           "default_collate",
           "digits_split",
           "load_digits",
           "load_mnist",
           "random_split",
           "RandomSampler",
           "Sampler",
           "SequentialSampler",
           "SubsetRandomSampler",
           "read_idx",
]
