"""``torch.nn.utils``: gradient clipping in place; ``rnn``, packed sequences."""
from .....nn.utils import clip_grad_norm_, clip_grad_value_  # noqa: F401
from . import rnn  # noqa: F401
