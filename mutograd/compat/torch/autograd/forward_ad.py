"""``torch.autograd.forward_ad``: dual tensors, whose tangents come from the double-VJP
construction (Note [Forward mode by double VJP] in mutograd/autograd/forward_ad.py).

    >>> import mutograd.compat.torch as torch
    >>> import mutograd.compat.torch.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     x = fwAD.make_dual(torch.tensor([1., 2.]), torch.tensor([1., 1.]))
    ...     fwAD.unpack_dual(x.sin() * 2).tangent
    tensor([ 1.0806, -0.8323])
"""
from ....autograd.forward_ad import (
    UnpackedDualTensor,
    dual_level,
    enter_dual_level,
    exit_dual_level,
    make_dual,
    unpack_dual,
)

__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level",
           "make_dual", "unpack_dual"]
