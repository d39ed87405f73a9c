"""``torch.optim.lr_scheduler``: PyTorch's schedulers (``mutograd.optim.lr_scheduler``).

    >>> import mutograd.compat.torch as torch
    >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1.0, momentum=0.9)
    >>> s = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=4)
    >>> round(s.get_last_lr()[0], 6)
    0.04
"""
from ....optim.lr_scheduler import (  # noqa: F401
    EPOCH_DEPRECATION_WARNING,
    ChainedScheduler,
    ConstantLR,
    CosineAnnealingLR,
    CosineAnnealingWarmRestarts,
    CyclicLR,
    ExponentialLR,
    LambdaLR,
    LinearLR,
    LinearWarmup,
    LRScheduler,
    MultiplicativeLR,
    MultiStepLR,
    OneCycleLR,
    PolynomialLR,
    ReduceLROnPlateau,
    SequentialLR,
    StepLR,
    _LRScheduler,
)
from ..tensor import Tensor  # noqa: F401  (PyTorch's module exports the names it annotates with)
from ....optim import Optimizer  # noqa: F401


def override(method):
    """The typing decorator PyTorch's scheduler module re-exports: marks ``method`` as
    overriding its base class's, changing nothing."""
    method.__override__ = True
    return method
