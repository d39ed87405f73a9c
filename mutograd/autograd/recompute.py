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

Two forms, as PyTorch's:

- ``use_reentrant=True`` (the default here; ``torch.utils.checkpoint`` warns when it is not
  given, as PyTorch 2.13 does): the segment runs without grad, and its backward is a backward
  of its own, run from the outer one. Its parameters get their gradients there, which needs at
  least one input that requires grad (else nothing calls it back; a warning says so), and it
  cannot serve ``grad()`` or ``backward(inputs=...)``, which need only some gradients.
- ``use_reentrant=False``: Note [Checkpointing without reentrance].

Random ops draw the same values both times (the generator's state is kept and restored,
``preserve_rng_state=True``).

Note [Checkpointing without reentrance]
    The segment runs with grad, under saved-tensor hooks (autograd/saved.py) whose pack hook
    keeps, instead of each tensor a node saves, an empty handle. The first unpack of a handle
    in a backward runs the segment again, with grad, under hooks that collect what its nodes
    save, in the same order, and puts each value into its handle; the recomputed graph itself
    is never run. The segment's nodes are the ones backward runs, so hooks registered in the
    forward fire once, ``grad()`` works through it, and gradients reach the parameters in the
    outer backward. A tensor argument written in place since the forward would make the
    recomputed values wrong: that is the VersionError, naming the write.
"""
import warnings
import weakref

from .. import random
from ..errors import MutogradError
from .engine import current_task_id, is_checkpoint_valid
from .explain import stale_error
from .function import Function
from .grad_mode import enable_grad
from .saved import saved_tensors_hooks
from .sites import here

NO_INPUT_WARNING = "None of the inputs have requires_grad=True. Gradients will be None"


class CheckpointError(MutogradError, RuntimeError):
    """The recomputed segment saved other tensors than its forward did."""


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
        if not is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() "
                "or passing an `inputs` parameter to .backward(). To resolve this error, you "
                "can either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument.")
        needs = ctx.needs_input_grad[2:]
        inputs = [a.detach().requires_grad_(need) if isinstance(a, Tensor) else a
                  for a, need in zip(ctx.saved_tensors, needs)]
        with _rng(ctx.rng_state), enable_grad():
            outs = ctx.fn(*inputs)
        outs = outs if isinstance(outs, (tuple, list)) else (outs,)
        pairs = [(o, g) for o, g in zip(outs, grads)
                 if isinstance(o, Tensor) and o.requires_grad and g is not None]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not "
                               "necessary")
        backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(
            i.grad if isinstance(i, Tensor) and i.requires_grad else None for i in inputs)


class _rng:
    """Inside: the generator state ``state`` (None: leave it); after: the state before."""

    def __init__(self, state):
        self.state = state

    def __enter__(self):
        self.now = random.get_state() if self.state is not None else None
        if self.state is not None:
            random.set_state(self.state)

    def __exit__(self, *exc):
        if self.now is not None:
            random.set_state(self.now)
        return False


class _Handle:
    """What a node keeps for one saved tensor of a segment (Note [Checkpointing without
    reentrance]): the recomputed value, and the backward it was recomputed for."""

    __slots__ = ("__weakref__", "task", "value")

    def __init__(self):
        self.task = self.value = None


class _Segment:
    """One call of a function checkpointed without reentrance."""

    def __init__(self, fn, args, kwargs, rng_state):
        from ..tensor import Tensor
        self.fn, self.args, self.kwargs, self.rng_state = fn, args, kwargs, rng_state
        self.handles = []
        self.site = here(3)
        self.versions = []
        for i, a in enumerate(args):
            if isinstance(a, Tensor):
                a._counter.watched = True   # a later write records its line for the error
                self.versions.append((i, a, a._counter.value))

    def pack(self, t):
        h = _Handle()
        self.handles.append(weakref.ref(h))
        return h

    def unpack(self, h):
        task = current_task_id()
        if h.value is None or h.task != task:
            self.recompute(task)
        return h.value

    def recompute(self, task):
        for i, a, version in self.versions:
            if a._counter.value != version:
                raise stale_error(None, (a._data, a._counter, version, a.__dict__.get("name")),
                                  i, saver=f"torch.utils.checkpoint (called at "
                                           f"{_fmt(self.site)})")
        values = []

        def keep(t):
            values.append(t.detach())   # the value only: the recomputed graph is not run
            return None
        with _rng(self.rng_state), enable_grad(), saved_tensors_hooks(keep, _never):
            self.fn(*self.args, **self.kwargs)
        if len(values) != len(self.handles):
            raise CheckpointError(
                f"torch.utils.checkpoint: A different number of tensors was saved during the "
                f"original forward and recomputation.\nNumber of tensors saved during forward: "
                f"{len(self.handles)}\nNumber of tensors saved during recomputation: "
                f"{len(values)}")
        for ref, v in zip(self.handles, values):
            h = ref()
            if h is not None:
                h.task, h.value = task, v


def _never(packed):
    raise CheckpointError("torch.utils.checkpoint: the recomputed segment's own graph was run "
                          "backward; only the original forward's graph can be")


def _fmt(site):
    from .sites import fmt
    return fmt(site)


def checkpoint(function, *args, use_reentrant=None, preserve_rng_state=True, **kwargs):
    """``function(*args, **kwargs)``, keeping only its inputs for backward, where the call is
    run again with gradients (see the module docstring for the two forms)."""
    from ..tensor import Tensor
    state = random.get_state() if preserve_rng_state else None
    if use_reentrant is False:
        seg = _Segment(function, args, kwargs, state)
        with saved_tensors_hooks(seg.pack, seg.unpack):
            return function(*args, **kwargs)
    fn = (lambda *a: function(*a, **kwargs)) if kwargs else function
    if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
        warnings.warn(NO_INPUT_WARNING, stacklevel=2)
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
        input = checkpoint(run(start, end + 1), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve_rng_state)
    return run(end + 1, len(functions))(input)
