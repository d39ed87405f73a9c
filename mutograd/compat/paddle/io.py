"""``paddle.io``: datasets and the DataLoader (``mutograd.data``)."""
from ...data import ConcatDataset, DataLoader, Dataset, Subset, default_collate, random_split  # noqa: F401
from ...data import TensorDataset as _TensorDataset
from .distributed import DistributedBatchSampler  # noqa: F401


class TensorDataset(_TensorDataset):
    """Paddle's form takes one list of tensors: ``TensorDataset([x, y])``."""

    def __init__(self, tensors):
        super().__init__(*tensors)
