"""``torch.distributions.constraint_registry`` (``mutograd.distributions.constraint_registry``)."""
from ....distributions.constraint_registry import *  # noqa: F401, F403
from ....distributions.constraint_registry import __all__  # noqa: F401
