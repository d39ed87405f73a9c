"""``torch.autograd.functional``: mutograd's own (mutograd/autograd/functional.py) under
PyTorch's name.

    >>> import mutograd.compat.torch as torch
    >>> torch.autograd.functional.jacobian(lambda x: x ** 2, torch.tensor([1., 2.]))
    tensor([[2., 0.],
            [0., 4.]])
"""
from ....autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]
