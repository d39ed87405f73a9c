"""Backward nodes, saved values and the version counter.

Note [Saved versions]
    A node keeps each saved value as ``(array, counter, version, name)``: the raw backend array,
    the version counter it shares with its base and views, and the counter's value when it was
    saved. An in-place op that saves its own output saves it *after* bumping the counter, so the
    saved version is the written one. At backward, a saved value whose counter moved on is stale:
    :func:`stale_error` names the tensor, the node, both versions and the writes since.
    A node never keeps a Tensor: that would make reference cycles (tensor -> grad_fn -> tensor)
    and delay freeing memory until the garbage collector runs.

    While a saved-tensor policy is active in some thread (``Policies.active``, autograd/saved.py),
    saving takes a slower path: under ``saved_tensors_hooks`` the record is a :class:`Packed`
    (what the pack hook returned), under ``allow_mutation_on_saved_tensors`` the tuple gets a
    sixth item, the guard that keeps the old values of what later writes overwrite (Note
    [Mutation of saved tensors]). Outside them the per-op path pays one attribute check.
"""
import weakref

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
    guards = None   # the live guards of saved values (Note [Mutation of saved tensors])

    inference = False   # made inside inference_mode() (Note [Inference tensors])

    def bump(self, op_name="write"):
        self.value += 1
        if self.watched:
            self.record(op_name)

    def record(self, op_name):
        if self.writes is None:
            self.writes = []
        self.writes.append((self.value, op_name, here(3)))
        del self.writes[:-_MAX_WRITES]


class InferenceCounter(VersionCounter):
    """The counter new tensors get while some thread is in inference mode: it marks the tensor
    as an inference tensor when made in such a thread (Note [Inference tensors])."""

    def __init__(self):
        from .grad_mode import _state
        if _state.inference:
            self.inference = True


class Policies:
    """How many saved-tensor policies are active, in all threads (autograd/saved.py)."""

    active = 0


def save(tensor):
    """The saved record of a tensor: array, counter and current version (Note [Saved versions])."""
    if Policies.active:
        from .saved import save_with_policy
        return save_with_policy(tensor)
    counter = tensor._counter
    counter.watched = True
    # the storage rides along so the bytes stay counted while only a node keeps the array
    return (tensor._data, counter, counter.value, tensor.__dict__.get("name"), tensor._storage)


def save_copy(array, storage, name=None):
    """A private copy kept for backward (with its counted storage); nobody else can write it."""
    if Policies.active:
        from .saved import save_copy_with_policy
        return save_copy_with_policy(array, storage, name)
    return (array, None, None, name, storage)


_FREED = object()

def move_retained(old, new, t=None):
    """``retain_grad()`` keeps the gradient of the tensor's latest value, so when a write gives
    it a new history ``new`` the request moves there from ``old``, as PyTorch moves it. ``t``:
    the tensor whose own request it is (a view whose history was regenerated from its base);
    without it, whatever ``old`` retained moves."""
    ref = old.retained if old is not None else None
    if ref is not None and (t is None or ref() is t):
        old.retained = None
    elif t is not None:
        ref = weakref.ref(t)
    if ref is not None:
        new.retained = ref


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
        """The node's name: ``MulBackward``; ``MulBackward0`` in the torch dialect, as PyTorch
        prints it (its overloads are numbered; ours are not, so it is always 0)."""
        n = type(self).__name__
        if n.endswith("Backward") and self.op_named:
            from ..compat import get_dialect
            if get_dialect() == "torch":
                return n + "0"
        return n

    op_named = True   # False for nodes PyTorch names without a number (custom Functions)

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
            return rec.tensor(self, key)._data if type(rec) is Packed else rec
        counter = rec[1]
        if counter is not None and counter.value != rec[2]:
            return _written_since(self, rec, key)
        return rec[0]

    def release(self):
        # Only saved tensors are freed; constants (a Python scalar operand, an array that is not
        # a tensor) stay, so a graph that saves no tensor can be run backward again, as in
        # PyTorch: ``y = (x * 2).sum(); y.backward(); y.backward()`` works.
        saved = self.saved
        if saved:
            self.saved = {k: _FREED if type(v) is tuple or type(v) is Packed else v
                          for k, v in saved.items()}

    def apply_graph(self, g, out=None):
        """``apply`` with create_graph: ``g`` and the gradients returned are tensors whose
        history is recorded (Note [Differentiable gradient formulas] in
        autograd/graph_arrays.py)."""
        raise BackwardError(f"{self.name()} cannot be differentiated twice: create_graph=True "
                            f"needs a differentiable backward for every node")

    def history(self, key):
        """The history edge of saved value ``key``: the node itself for its output, else the
        edge of the input it is (None for a value private to the node)."""
        return None

    def saved_with_history(self, key):
        """Saved value ``key`` as a tensor carrying its forward history and version counter, so
        that a gradient computed from it can be differentiated again and a write to it before
        that backward is the version error (DESIGN.md rule 13). Non-tensor constants (a Python
        scalar operand) come back as they were saved."""
        rec = self.saved[key]
        if type(rec) is not tuple and type(rec) is not Packed:
            if rec is _FREED:
                self.unpack(key)   # raises: freed by an earlier backward
            return rec
        if type(rec) is Packed:   # what the unpack hook gives, with that tensor's counter
            unpacked = rec.tensor(self, key)
            arr, counter = unpacked._data, unpacked._counter
        else:   # a private copy (saved before a write, or restored by a guard) gets its own
            arr = self.unpack(key)
            counter = rec[1] if arr is rec[0] else None
        edge = self.history(key)
        if edge is not None and not isinstance(edge, Node):   # a leaf tensor
            if edge._data is arr:
                return edge
            edge = _Alias((edge,))
        from ..tensor import _borrow
        t = _borrow(arr, counter)
        if edge is not None:
            t.grad_fn, t._rg = edge, True
        return t

    def register_prehook(self, hook):
        if self.pre_hooks is None:
            self.pre_hooks = []
        self.pre_hooks.append(hook)


def _written_since(node, rec, key):
    """A saved value whose tensor was written since it was saved: its old value when a guard
    kept what every write overwrote (Note [Mutation of saved tensors]), else the VersionError."""
    guard = rec[5] if len(rec) > 5 else None
    if guard is not None and guard.covers(rec[1].value):
        return guard.restore()
    raise stale_error(node, rec, key)


def saved_tensor(node, rec, key):
    """A saved record as a Tensor (a custom Function's ``ctx.saved_tensors``)."""
    from ..tensor import _borrow
    if type(rec) is Packed:
        return rec.tensor(node, key)
    counter = rec[1]
    if counter is not None and counter.value != rec[2]:
        return _borrow(_written_since(node, rec, key), None)   # a private copy: its own counter
    return _borrow(rec[0], counter)


class Packed:
    """A saved value that went through a pack hook (``saved_tensors_hooks``, autograd/saved.py).

    Keeps what the pack hook returned, the unpack hook, and the saved tensor's counter, version,
    shape and dtype: the unpacked tensor must have the saved shape and dtype, and when it shares
    the saved tensor's counter (the hooks kept the tensor itself or an alias such as
    ``detach()``), a write since the save is the VersionError of DESIGN.md rule 2. PyTorch skips
    that check and computes with the new values.
    """

    __slots__ = ("counter", "dtype", "name", "packed", "shape", "unpack_hook", "version")

    def tensor(self, node, key):
        from ..tensor import Tensor
        from .grad_mode import no_grad
        with no_grad():   # as PyTorch runs it: the hook's own ops record nothing
            t = self.unpack_hook(self.packed)
        if not isinstance(t, Tensor):
            raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but got "
                            f"result of type {type(t).__name__}")
        arr = t._data
        if tuple(arr.shape) != self.shape or arr.dtype != self.dtype:
            raise BackwardError(
                f"saved tensor unpack_hook returned a tensor of shape {list(arr.shape)} and "
                f"dtype {arr.dtype} for a tensor of shape {list(self.shape)} and dtype "
                f"{self.dtype} saved by {node.name() if node is not None else 'a Function'}; "
                f"unpack_hook(pack_hook(t)) must give t's values, shape and dtype")
        counter = self.counter
        if t._counter is counter and counter.value != self.version:
            raise stale_error(node, (arr, counter, self.version, self.name), key)
        return t


class DeadEnd(Node):
    """A history that sends its gradient nowhere (Tensor._refresh_view)."""

    __slots__ = ()

    def name(self):
        return "DeadEndBackward"

    def apply(self, g, into=None):
        return []

    def apply_graph(self, g, out=None):
        return []


class _Alias(Node):
    """The history of a saved value that is a leaf's array under another name: the gradient
    passes to the leaf unchanged."""

    __slots__ = ()

    def name(self):
        return "AliasBackward0"

    def apply(self, g, into=None):
        return [g]

    def apply_graph(self, g, out=None):
        return [g]


class AccumulateGrad:
    """What ``next_functions`` shows for a leaf edge, as in PyTorch."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        self.variable = variable

    def name(self):
        return "AccumulateGrad"

    def __repr__(self):
        return "<AccumulateGrad>"
