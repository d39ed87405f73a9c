"""``torch.utils.data``: datasets and the DataLoader (``mutograd.data``)."""
from ....data import (  # noqa: F401
                      ConcatDataset,
                      DataLoader,
                      Dataset,
                      Subset,
                      TensorDataset,
                      default_collate,
                      random_split,
)
from ....distributed import DistributedSampler  # noqa: F401
