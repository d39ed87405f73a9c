"""``torch.utils.data``: datasets, samplers and the DataLoader (``mutograd.data``)."""
from .....data import (  # noqa: F401
                       BatchSampler,
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
from .dataloader import (  # noqa: F401,E402
    DataLoader, default_collate, default_convert, get_worker_info)
from .dataset import ChainDataset, IterableDataset, StackDataset  # noqa: F401,E402
from .sampler import WeightedRandomSampler  # noqa: F401,E402
