"""Module backward hooks: ``register_full_backward_hook`` and
``register_full_backward_pre_hook`` (PyTorch's ``torch.utils.hooks.BackwardHook``).

Note [Module backward hooks]
    A module has no node of its own, so a call with backward hooks gives it two: the tensors it
    is called with, and the tensors it returns, each pass through an identity Function
    (``BackwardHookFunction``, one node for all of them: Note [Several outputs] in
    autograd/function.py). The outputs' node gets the gradients of the module's outputs
    (``grad_output``, None for an output no gradient reached): its post-hook runs the pre-hooks,
    which may replace them, and keeps them. The inputs' node gets the gradients of the module's
    inputs (``grad_input``): its post-hook calls the hooks with both, and what a hook returns
    replaces ``grad_input``. ``forward`` therefore sees a view of each tensor argument and the
    caller a view of each tensor result, as in PyTorch. When no input requires grad the hooks
    run with ``grad_input`` all None from the outputs' node (PyTorch warns, and so do we); when no
    output requires grad they do not run.
"""
import warnings

from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from ..ops.creation import zeros
from ..tensor import Tensor, adopt


class BackwardHookFunction(Function):
    """The identity, as one node over all its arguments (PyTorch's name)."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *grads):
        return grads


class BackwardHook:
    """The backward hooks of one call of ``module`` (Note [Module backward hooks])."""

    def __init__(self, module, hooks, pre_hooks):
        self.module, self.hooks, self.pre_hooks = module, hooks, pre_hooks
        self.grad_outputs = None
        self.n_inputs = self.n_outputs = -1
        self.input_index = self.output_index = None

    def setup_input_hook(self, args):
        """The arguments ``forward`` gets."""
        tensors = [a for a in args if isinstance(a, Tensor)]
        # what the hooks are given: gradients of the arguments' dialect type, and zeros (as
        # PyTorch's materialized gradients) for a tensor argument no gradient reached
        self.grad_class = next((t._result_class for t in tensors if t._result_class), None)
        self.input_meta = [(list(t.shape), t.dtype, t._place) for t in tensors]
        res, self.input_index = _through_identity(args, self._on_inputs)
        self.n_inputs = len(args)
        return res

    def _typed(self, grads):
        return grads if self.grad_class is None else adopt(grads, self.grad_class)

    def setup_output_hook(self, result):
        """The result the caller gets."""
        single = not isinstance(result, tuple)
        res, self.output_index = _through_identity((result,) if single else result,
                                                   self._on_outputs)
        self.n_outputs = 1 if single else len(result)
        return res[0] if single else res

    def _on_inputs(self, node):
        def hook(grad_inputs, _):
            if self.grad_outputs is None:
                # the gradient reached the inputs without passing the outputs (double backward)
                return None
            absent = [g is None for g in grad_inputs]
            grad_inputs = [zeros(*shape, dtype=dtype, place=place) if g is None else g
                           for g, (shape, dtype, place) in zip(grad_inputs, self.input_meta)]
            res = self._typed(_spread(self.input_index, grad_inputs, self.n_inputs))
            for user_hook in self.hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError(f"Backward hook returned an invalid number of "
                                       f"grad_input, got {len(out)}, but expected {len(res)}")
                res = out
            self.grad_outputs = None
            # no gradient goes to an argument that does not need one, whatever the hooks say
            return tuple(None if gone else res[i] for i, gone in zip(self.input_index, absent))
        node.register_hook(hook)

    def _on_outputs(self, node):
        def hook(_, grad_outputs):
            self.grad_outputs = self._typed(
                _spread(self.output_index, grad_outputs, self.n_outputs))
            for pre_hook in self.pre_hooks:
                out = pre_hook(self.module, self.grad_outputs)
                if out is None:
                    continue
                if not isinstance(out, tuple):
                    out = (out,)
                if len(out) != len(self.grad_outputs):
                    raise RuntimeError(f"Backward pre hook returned an invalid number of "
                                       f"grad_output, got {len(out)}, but expected "
                                       f"{len(self.grad_outputs)}")
                self.grad_outputs = out
            grads = self.grad_outputs
            if self.input_index is None:   # no input requires grad: the hooks run here
                warnings.warn("Full backward hook is firing when gradients are computed with "
                              "respect to module outputs since no inputs require gradients. See "
                              "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                              "#torch.nn.Module.register_full_backward_hook for more details.",
                              stacklevel=2)
                none = (None,) * self.n_inputs
                for user_hook in self.hooks:
                    res = user_hook(self.module, none, grads)
                    if res is not None and not all(r is None for r in res):
                        raise RuntimeError("Backward hook for Modules where no input requires "
                                           "gradient should always return None or None for "
                                           "all gradients.")
                self.grad_outputs = None
            return tuple(grads[i] for i in self.output_index)
        node.register_hook(hook)


def _through_identity(args, on_node):
    """``args`` with each tensor passed through one BackwardHookFunction, whose node goes to
    ``on_node``; also the positions of the tensors (None when none requires grad or grad mode
    is off: nothing is set up)."""
    index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    if not (is_grad_enabled() and any(args[i].requires_grad for i in index)):
        return args, None
    new = BackwardHookFunction.apply(*[args[i] for i in index])
    on_node(next(t.grad_fn for t in new if t.grad_fn is not None))
    res = list(args)
    for i, t in zip(index, new):
        res[i] = t
    return (tuple(res) if type(args) is tuple else type(args)(*res)), index


def _spread(index, values, size):
    """``values`` at positions ``index`` of a tuple of ``size``, None elsewhere."""
    res = [None] * size
    for i, v in zip(index, values):
        res[i] = v
    return tuple(res)


def call_with_hooks(module, args, kwargs):
    """``module(*args, **kwargs)`` when it has backward hooks: the forward hooks as in
    ``Module.__call__`` and the backward hooks around ``forward`` (Note [Module backward
    hooks])."""
    hooks = list(module._backward_hooks.values())
    full = module.__dict__.get("_is_full_backward_hook")
    pre = list(module._backward_pre_hooks.values())
    bw = None
    if (full and hooks) or pre:
        bw = BackwardHook(module, hooks if full else [], pre)
        args = bw.setup_input_hook(args)
    out = module.forward(*args, **kwargs)
    out = module._run_forward_hooks(args, out)
    if bw is not None:
        if not isinstance(out, (Tensor, tuple)):
            warnings.warn(f"For backward hooks to be called, module output should be a Tensor "
                          f"or a tuple of Tensors but received {type(out)}", stacklevel=3)
        else:
            out = bw.setup_output_hook(out)
    if hooks and not full:   # register_backward_hook: on the node of the first output tensor
        first = out
        while not isinstance(first, Tensor):
            first = next(iter(first.values())) if isinstance(first, dict) else first[0]
        if first.grad_fn is not None:
            for hook in hooks:
                first.grad_fn.register_hook(
                    lambda gi, go, hook=hook: hook(module, gi, go))
    return out
