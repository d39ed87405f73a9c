"""``torch.distributions.constraints`` (``mutograd.distributions.constraints``)."""
from ....distributions.constraints import *  # noqa: F401, F403
from ....distributions.constraints import __all__  # noqa: F401
