"""``mutograd.nn``: modules, layers, losses, ``functional`` and ``init``.

    >>> import mutograd as mg
    >>> from mutograd import nn
    >>> net = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(inplace=True),
    ...                     nn.MaxPool2d(2), nn.Flatten(), nn.Linear(8 * 4 * 4, 10))
    >>> net(mg.randn([2, 1, 8, 8])).shape
    [2, 10]
"""
from . import functional, init
from .layers import (ELU, GELU, AdaptiveAvgPool2d, AvgPool2d, BatchNorm1d, BatchNorm2d, BCELoss,
                     BCEWithLogitsLoss, Conv2d, CrossEntropyLoss, Dropout, Embedding, Flatten,
                     Identity, L1Loss, LayerNorm, LeakyReLU, Linear, LogSoftmax, MaxPool2d,
                     ModuleDict, ModuleList, MSELoss, NLLLoss, ReLU, ReLU6, Sequential, Sigmoid,
                     SiLU, SmoothL1Loss, Softmax, Tanh)
from .module import Module, Parameter, StateDictError
from .utils import clip_grad_norm_, clip_grad_value_

__all__ = [
    "functional", "init", "Module", "Parameter", "StateDictError", "Sequential", "ModuleList",
    "ModuleDict", "Linear", "Conv2d", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d",
    "BatchNorm1d", "BatchNorm2d", "LayerNorm", "Dropout", "Embedding", "Flatten", "Identity",
    "ReLU", "ReLU6", "LeakyReLU", "ELU", "GELU", "SiLU", "Sigmoid", "Tanh", "Softmax",
    "LogSoftmax", "CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "SmoothL1Loss", "BCELoss",
    "BCEWithLogitsLoss", "clip_grad_norm_", "clip_grad_value_",
]
