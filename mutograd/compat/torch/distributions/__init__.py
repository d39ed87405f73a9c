"""``torch.distributions`` (``mutograd.distributions``): the same classes made for the torch
dialect, so number parameters and results are ``torch.Tensor`` and shapes ``torch.Size``.

    >>> import mutograd.compat.torch as torch
    >>> d = torch.distributions.Normal(torch.zeros(2), 1.0)
    >>> type(d.sample()).__name__, type(d.batch_shape).__name__
    ('Tensor', 'Size')
"""
from ....distributions import dialect_classes as _dialect_classes
from ..tensor import Size as _Size
from ..tensor import Tensor as _Tensor
from . import constraint_registry, constraints, kl, transforms  # noqa: F401
from .constraint_registry import biject_to, transform_to  # noqa: F401
from .kl import kl_divergence, register_kl  # noqa: F401
from .transforms import *  # noqa: F401, F403

globals().update(_dialect_classes(_Tensor, _Size, __name__))
