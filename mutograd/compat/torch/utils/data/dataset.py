"""``torch.utils.data.dataset``."""
from .....data import ConcatDataset, Dataset, Subset, TensorDataset, random_split  # noqa: F401
