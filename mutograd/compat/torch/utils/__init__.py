"""``torch.utils``: ``data``."""
from . import data  # noqa: F401
