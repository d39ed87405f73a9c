"""``torch.linalg`` (``mutograd.linalg``)."""
from ...linalg import *  # noqa: F401, F403
from ...linalg import __all__  # noqa: F401
