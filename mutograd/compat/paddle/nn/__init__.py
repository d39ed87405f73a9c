"""``paddle.nn``: layers and losses with Paddle's names and arguments, ``functional``.

    >>> import mutograd.compat.paddle as paddle
    >>> net = paddle.nn.Sequential(paddle.nn.Linear(4, 3), paddle.nn.ReLU())
    >>> [list(p.shape) for p in net.parameters()]
    [[4, 3], [3]]
"""
from ....nn import Parameter  # noqa: F401
from ....nn.utils import clip_grad_norm_  # noqa: F401
from . import functional, initializer  # noqa: F401
from .clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue  # noqa: F401
from .rnn import GRU, LSTM, GRUCell, LSTMCell, SimpleRNN, SimpleRNNCell  # noqa: F401
from .layers import (  # noqa: F401
                     ELU,
                     GELU,
                     GroupNorm,
                     AdaptiveAvgPool2D,
                     AvgPool2D,
                     BatchNorm1D,
                     BatchNorm2D,
                     BCELoss,
                     BCEWithLogitsLoss,
                     Conv1D,
                     Conv2D,
                     Conv2DTranspose,
                     CrossEntropyLoss,
                     Dropout,
                     Embedding,
                     Flatten,
                     Identity,
                     L1Loss,
                     Layer,
                     LayerDict,
                     LayerList,
                     LayerNorm,
                     LeakyReLU,
                     Linear,
                     MaxPool2D,
                     MSELoss,
                     NLLLoss,
                     ReLU,
                     ReLU6,
                     Sequential,
                     Sigmoid,
                     Silu,
                     SmoothL1Loss,
                     Softmax,
                     Tanh,
)
