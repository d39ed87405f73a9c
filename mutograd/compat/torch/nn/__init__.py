"""``torch.nn``: mutograd's modules, layers and losses under PyTorch's names.

    >>> import mutograd.compat.torch as torch
    >>> net = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(inplace=True))
    >>> [n for n, _ in net.named_parameters()]
    ['0.weight', '0.bias']
"""
from ....nn import (  # noqa: F401
                    ELU,
                    GELU,
                    AdaptiveAvgPool2d,
                    AvgPool2d,
                    BatchNorm1d,
                    BatchNorm2d,
                    BCELoss,
                    BCEWithLogitsLoss,
                    Conv1d,
                    Conv2d,
                    CrossEntropyLoss,
                    Dropout,
                    Embedding,
                    Flatten,
                    GroupNorm,
                    Identity,
                    L1Loss,
                    LayerNorm,
                    LeakyReLU,
                    Linear,
                    LogSoftmax,
                    MaxPool2d,
                    Module,
                    ModuleDict,
                    ModuleList,
                    MultiheadAttention,
                    MSELoss,
                    NLLLoss,
                    Parameter,
                    ParameterList,
                    ReLU,
                    ReLU6,
                    RMSNorm,
                    Sequential,
                    Sigmoid,
                    SiLU,
                    SmoothL1Loss,
                    Softmax,
                    Tanh,
                    TransformerEncoder,
                    TransformerEncoderLayer,
)
from . import functional, init, parallel, utils  # noqa: F401
