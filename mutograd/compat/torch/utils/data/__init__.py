"""``torch.utils.data``: datasets, samplers and the DataLoader (``mutograd.data``)."""
from .....data import (  # noqa: F401
                       BatchSampler,
                       ConcatDataset,
                       DataLoader,
                       Dataset,
                       RandomSampler,
                       Sampler,
                       SequentialSampler,
                       Subset,
                       SubsetRandomSampler,
                       TensorDataset,
                       default_collate,
                       random_split,
)
from . import dataloader, dataset, sampler  # noqa: F401,E402
