"""``torch.func``: mutograd's function transforms (mutograd/func/) under PyTorch's names.

    >>> import mutograd.compat.torch as torch
    >>> torch.func.vmap(torch.func.grad(lambda x: (x ** 3).sum()))(torch.tensor([[1.], [2.]]))
    tensor([[ 3.],
            [12.]])
"""
from ...func import (
    functional_call,
    grad,
    grad_and_value,
    hessian,
    jacfwd,
    jacrev,
    jvp,
    vjp,
    vmap,
)

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
           "vjp", "vmap"]
