"""``torch.utils.data``: datasets, samplers and the DataLoader (``mutograd.data``)."""
from .....data import (  # noqa: F401
                       BatchSampler,
                       ChainDataset,
                       IterableDataset,
                       StackDataset,
                       WeightedRandomSampler,
                       default_convert,
                       get_worker_info,
                       ConcatDataset,
                       Dataset,
                       RandomSampler,
                       Sampler,
                       SequentialSampler,
                       Subset,
                       SubsetRandomSampler,
                       TensorDataset,
                       random_split,
)
from .....distributed import DistributedSampler  # noqa: F401
from . import dataloader, dataset, sampler  # noqa: F401,E402
from .dataloader import DataLoader, default_collate  # noqa: F401,E402
