"""``torch.utils.data.dataloader``."""
from .....data import DataLoader, default_collate  # noqa: F401
