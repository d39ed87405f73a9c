"""``torch.nn``: mutograd's modules, layers and losses under PyTorch's names.

    >>> import mutograd.compat.torch as torch
    >>> net = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(inplace=True))
    >>> [n for n, _ in net.named_parameters()]
    ['0.weight', '0.bias']
"""
from .... import nn as _nn
from . import functional, init, parallel, utils  # noqa: F401

# every module, layer and loss class of mutograd.nn (its functions are in torch.nn.utils and
# its submodules have PyTorch-dialect counterparts here)
globals().update({name: getattr(_nn, name) for name in _nn.__all__
                  if isinstance(getattr(_nn, name), type) and name != "StateDictError"})
factory_kwargs = _nn.factory_kwargs
