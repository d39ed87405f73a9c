"""Activation checkpointing (``torch.utils.checkpoint``): run a segment of the forward without
keeping what its backward needs, and run it again, with gradients, when backward reaches it.
Memory for time: a segment's intermediate activations never coexist with the rest of the
graph's.

    >>> import mutograd as mg
    >>> from mutograd.autograd.recompute import checkpoint
    >>> w = mg.tensor([2.0], requires_grad=True)
    >>> x = mg.tensor([3.0], requires_grad=True)
    >>> y = checkpoint(lambda t: (t * w).exp() * t, x)
    >>> y.backward()
    >>> round(x.grad.item() / (mg.tensor([6.0]).exp().item() * 7), 6), w.grad.item() > 0
    (1.0, True)

As PyTorch's reentrant form, the segment's backward is a backward of its own, run from the
outer one: its parameters get their gradients there, which needs at least one input that
requires grad (else nothing calls it back; a warning says so). Random ops draw the same values
both times (the generator's state is kept and restored, ``preserve_rng_state=True``).
"""
import warnings

from .. import random
from .function import Function
from .grad_mode import enable_grad


class _Checkpoint(Function):
    @staticmethod
    def forward(ctx, fn, rng_state, *args):
        ctx.fn, ctx.rng_state = fn, rng_state
        ctx.save_for_backward(*args)
        return fn(*args)

    @staticmethod
    def backward(ctx, *grads):
        from ..tensor import Tensor
        from .engine import backward
        needs = ctx.needs_input_grad[2:]
        inputs = [a.detach().requires_grad_(need) if isinstance(a, Tensor) else a
                  for a, need in zip(ctx.saved_tensors, needs)]
        now = random.get_state() if ctx.rng_state is not None else None
        if ctx.rng_state is not None:
            random.set_state(ctx.rng_state)
        try:
            with enable_grad():
                outs = ctx.fn(*inputs)
        finally:
            if now is not None:
                random.set_state(now)
        outs = outs if isinstance(outs, (tuple, list)) else (outs,)
        pairs = [(o, g) for o, g in zip(outs, grads)
                 if isinstance(o, Tensor) and o.requires_grad and g is not None]
        if pairs:
            backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(
            i.grad if isinstance(i, Tensor) and i.requires_grad else None for i in inputs)


def checkpoint(function, *args, use_reentrant=None, preserve_rng_state=True, **kwargs):
    """``function(*args, **kwargs)``, keeping only ``args`` for backward, where the call is run
    again with gradients (see the module docstring)."""
    from ..tensor import Tensor
    fn = (lambda *a: function(*a, **kwargs)) if kwargs else function
    if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
        warnings.warn("checkpoint: none of the inputs has requires_grad=True; gradients will "
                      "not reach the parameters inside the checkpointed function",
                      stacklevel=2)
    state = random.get_state() if preserve_rng_state else None
    return _Checkpoint.apply(fn, state, *args)


def checkpoint_sequential(functions, segments, input, use_reentrant=None,
                          preserve_rng_state=True):
    """Run ``functions`` (a list or a Sequential) in ``segments`` checkpointed chunks; the
    last chunk runs normally, as PyTorch."""
    functions = list(functions.children()) if hasattr(functions, "children") else list(functions)
    size = max(1, len(functions) // segments)

    def run(start, end):
        def chunk(x):
            for f in functions[start:end]:
                x = f(x)
            return x
        return chunk
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end + 1), input, preserve_rng_state=preserve_rng_state)
    return run(end + 1, len(functions))(input)
