"""Function transforms: ``vmap`` (batching), ``grad``, ``grad_and_value``, ``vjp``, ``jvp``,
``linearize``, ``jacrev``, ``jacfwd``, ``hessian``, ``functionalize`` and ``functional_call``,
with model ensembling (``stack_module_state``, ``replace_all_batch_norm_modules_``),
``rearrange`` and ``debug_unwrap`` (PyTorch's ``torch.func``, which ``mutograd.compat.torch``
exposes under that name).

The derivative transforms run mutograd's autograd, recording the graph of a result only when it
must stay differentiable (Note [Transforms on one tape] in func/transforms.py); forward mode is
the double-VJP construction (Note [Forward mode by double VJP] in autograd/forward_ad.py);
vmap runs a function of one sample on a batch through batching rules (Note [Batching rules]).
docs/higher_order.md describes them together.

    >>> import mutograd as mg
    >>> from mutograd.func import grad, vmap
    >>> w = mg.tensor([1.0, -1.0])
    >>> xs = mg.tensor([[1.0, 2.0], [3.0, 5.0]])
    >>> vmap(grad(lambda w, x: ((w * x).sum()) ** 2), in_dims=(None, 0))(w, xs).tolist()
    [[-2.0, -4.0], [-12.0, -20.0]]
"""
from .ensembling import replace_all_batch_norm_modules_, stack_module_state
from .functional_call import functional_call
from .functionalize import functionalize
from .rearrange import rearrange
from .transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp
from .vmap import debug_unwrap, vmap

__all__ = ["debug_unwrap", "functional_call", "functionalize", "grad", "grad_and_value",
           "hessian", "jacfwd", "jacrev", "jvp", "linearize", "rearrange",
           "replace_all_batch_norm_modules_", "stack_module_state", "vjp", "vmap"]
