"""``functionalize``: PyTorch's transform that removes mutation and aliasing from a program,
here a wrapper that gives the same results, since eager mutograd's in-place ops are exact.

Note [functionalize in eager mode]
    PyTorch's ``functionalize`` exists for graph capture: a tracer that records ``y.add_(1)``
    on a view must know which base tensors the write reaches, so the transform rewrites each
    in-place op as its out-of-place twin (and, with ``remove='mutations_and_views'``, each view
    as a copy), copying any input mutation back into the input at the end. Run eagerly, the
    rewritten program computes exactly what the original one does. In mutograd every program
    runs eagerly and in-place ops keep their meaning everywhere: a write through a view
    reaches its base and every other view of it, the version counter guards what backward
    saved (design.md rules 2 and 5), and gradients of in-place ops are those of the
    out-of-place ones. So the function itself is already its functional form; the wrapper
    calls it and keeps the one observable difference, that a functionalized function's outputs
    are not views of its inputs (such an output is returned as a copy; an output that is an
    input itself is returned as it is, as PyTorch does). Input mutations happen as they would
    without the wrapper, as PyTorch copies them back.
"""
import functools

from ..tensor import Tensor
from .pytree import tree_flatten, tree_unflatten

__all__ = ["functionalize"]

_REMOVE = ("mutations", "mutations_and_views")


def functionalize(func, *, remove="mutations"):
    """``func`` as PyTorch's functionalized program computes it: the same values and gradients,
    inputs mutated as ``func`` mutates them, and outputs that are not views of the inputs
    (Note [functionalize in eager mode]). ``remove`` is ``'mutations'`` or
    ``'mutations_and_views'``; both give the same results here.

        >>> import mutograd as mg
        >>> from mutograd.func import functionalize
        >>> def f(x):
        ...     y = x.view(-1)
        ...     y.add_(1.0)
        ...     return x.view(2, 2)
        >>> x = mg.zeros(4)
        >>> out = functionalize(f)(x)
        >>> out.tolist(), x.tolist(), out._storage is x._storage
        ([[1.0, 1.0], [1.0, 1.0]], [1.0, 1.0, 1.0, 1.0], False)
    """
    if remove not in _REMOVE:
        raise RuntimeError(f"functionalize(f, remove='mutations'): received invalid argument "
                           f"for remove={remove}. Valid options are 'mutations' (in-place and "
                           f"out= operators replaced by their out-of-place equivalents) and "
                           f"'mutations_and_views' (views replaced by copies as well).")

    @functools.wraps(func)
    def functionalized(*args, **kwargs):
        inputs = [t for t in tree_flatten((args, kwargs))[0] if isinstance(t, Tensor)]
        storages = {id(t._storage) for t in inputs}
        out = func(*args, **kwargs)
        leaves, spec = tree_flatten(out)
        leaves = [t.clone() if isinstance(t, Tensor) and id(t._storage) in storages
                  and not any(t is x for x in inputs) else t for t in leaves]
        return tree_unflatten(leaves, spec)
    return functionalized
