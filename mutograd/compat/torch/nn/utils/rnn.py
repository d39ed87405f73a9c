"""``torch.nn.utils.rnn``: packed and padded batches of sequences (``mutograd.nn.utils.rnn``)."""
from .....nn.utils.rnn import *  # noqa: F401, F403
from .....nn.utils.rnn import __all__  # noqa: F401
