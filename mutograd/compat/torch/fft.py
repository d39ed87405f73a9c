"""``torch.fft`` (``mutograd.fft``)."""
from ...fft import *  # noqa: F401, F403
from ...fft import __all__  # noqa: F401
from .tensor import Tensor  # noqa: E402, F401  (as PyTorch's module exports it)
