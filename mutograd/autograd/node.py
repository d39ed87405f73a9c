"""Backward nodes, saved values and the version counter.

Note [Saved versions]
    A node keeps each saved value as ``(array, counter, version, name)``: the raw backend array,
    the version counter it shares with its base and views, and the counter's value when it was
    saved. An in-place op that saves its own output saves it *after* bumping the counter, so the
    saved version is the written one. At backward, a saved value whose counter moved on is stale:
    :func:`stale_error` names the tensor, the node, both versions and the writes since.
    A node never keeps a Tensor: that would make reference cycles (tensor -> grad_fn -> tensor)
    and delay freeing memory until the garbage collector runs.
"""
from ..errors import BackwardError
from . import sites
from .explain import stale_error
from .sites import Flags as _flags
from .sites import here

_MAX_WRITES = 8


def user_location(depth=2):
    """``file:line`` of the user's line that called the op (Note [Recording source sites])."""
    return sites.fmt(sites.here(depth + 1))


class VersionCounter:
    """Shared by a base, its views and its ``detach()``/``.data`` aliases; every write bumps it.

    Writers are recorded (op name and the caller's file:line) only once some node saved a tensor
    that uses this counter (``watched``), so unwatched writes cost one increment.
    """

    # Class-level defaults instead of __init__ and __slots__: every new tensor makes a counter,
    # and one without an __init__ costs a fraction of one with it (the per-op hot path).
    value = 0
    watched = False
    writes = None

    def bump(self, op_name="write"):
        self.value += 1
        if self.watched:
            self.record(op_name)

    def record(self, op_name):
        if self.writes is None:
            self.writes = []
        self.writes.append((self.value, op_name, here(3)))
        del self.writes[:-_MAX_WRITES]


def save(tensor):
    """The saved record of a tensor: array, counter and current version (Note [Saved versions])."""
    counter = tensor._counter
    counter.watched = True
    # the storage rides along so the bytes stay counted while only a node keeps the array
    return (tensor._data, counter, counter.value, tensor.__dict__.get("name"), tensor._storage)


def save_copy(array, storage, name=None):
    """A private copy kept for backward (with its counted storage); nobody else can write it."""
    return (array, None, None, name, storage)


_FREED = object()


class Node:
    """A backward node. ``next`` holds one edge per input: a Node, a leaf Tensor, or None.

    ``apply(g, into)`` returns one gradient per edge; ``into`` is ``g`` when the engine owns it
    (the node may write there), else None (Note [Gradient ownership] in engine.py).
    """

    user_code = False   # True: gradients come from user code, which may keep references

    __slots__ = ("__weakref__", "created_at", "next", "pre_hooks", "rebased", "retained", "saved",
                 "stack")

    def __init__(self, next_edges, saved=None):
        self.next = next_edges
        self.saved = saved
        self.pre_hooks = None
        self.retained = None
        # Only a node that saves something can raise a stale-value error, so only it pays for
        # finding the forward line (Note [Recording source sites]); anomaly mode keeps the stack.
        # The caller of Node() is op machinery (_record, Function.apply, ...): start above it.
        self.created_at = here(3) if saved else None
        if _flags.anomaly:
            self.stack = sites.stack(2)

    def name(self):
        return type(self).__name__

    def __repr__(self):
        return f"<{self.name()}>"

    @property
    def next_functions(self):
        from ..tensor import Tensor
        return tuple((AccumulateGrad(e) if isinstance(e, Tensor) else e, 0) for e in self.next)

    def unpack(self, key):
        """The array saved under ``key``, after checking its version (Note [Saved versions])."""
        rec = self.saved[key]
        if rec is _FREED:
            raise BackwardError(
                f"Trying to backward through the graph a second time (or directly access saved "
                f"tensors after they have already been freed): {self.name()} freed its saved "
                f"values after the first backward. Pass retain_graph=True to the first "
                f"backward() if you need to run it again.")
        if type(rec) is not tuple:
            return rec
        counter = rec[1]
        if counter is not None and counter.value != rec[2]:
            raise stale_error(self, rec, key)
        return rec[0]

    def release(self):
        # Only saved tensors are freed; constants (a Python scalar operand, an array that is not
        # a tensor) stay, so a graph that saves no tensor can be run backward again, as in
        # PyTorch: ``y = (x * 2).sum(); y.backward(); y.backward()`` works.
        saved = self.saved
        if saved:
            self.saved = {k: _FREED if type(v) is tuple else v for k, v in saved.items()}

    def register_prehook(self, hook):
        if self.pre_hooks is None:
            self.pre_hooks = []
        self.pre_hooks.append(hook)


class AccumulateGrad:
    """What ``next_functions`` shows for a leaf edge, as in PyTorch."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        self.variable = variable

    def name(self):
        return "AccumulateGrad"

    def __repr__(self):
        return "<AccumulateGrad>"
