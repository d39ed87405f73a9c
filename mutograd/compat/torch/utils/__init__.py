"""``torch.utils``: ``data``, ``checkpoint``."""
from . import checkpoint, data  # noqa: F401
