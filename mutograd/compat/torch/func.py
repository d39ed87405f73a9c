"""``torch.func``: mutograd's function transforms (mutograd/func/) under PyTorch's names.

    >>> import mutograd.compat.torch as torch
    >>> torch.func.vmap(torch.func.grad(lambda x: (x ** 3).sum()))(torch.tensor([[1.], [2.]]))
    tensor([[ 3.],
            [12.]])
"""
from ...func import (
    debug_unwrap,
    functional_call,
    functionalize,
    grad,
    grad_and_value,
    hessian,
    jacfwd,
    jacrev,
    jvp,
    linearize,
    rearrange,
    replace_all_batch_norm_modules_,
    stack_module_state,
    vjp,
    vmap,
)

__all__ = ["debug_unwrap", "functional_call", "functionalize", "grad", "grad_and_value",
           "hessian", "jacfwd", "jacrev", "jvp", "linearize", "rearrange",
           "replace_all_batch_norm_modules_", "stack_module_state", "vjp", "vmap"]
