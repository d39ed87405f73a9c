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
from . import grad_mode as _grad_mode
from . import sites
from .explain import stale_error
from .sites import Flags as _flags
from .sites import here

_MAX_WRITES = 8


def user_location(depth=2):
    """``file:line`` of the user's line that called the op (Note [Recording source sites])."""
    return sites.fmt(sites.here(depth + 1))


# Note [Leaves made after they were saved]
#     ``c.requires_grad_()`` on a constant that a node saved already: PyTorch's saved value is
#     the tensor itself, so a gradient computed from it under create_graph requires grad and
#     reaches ``c`` (``c`` itself: not an alias of it by ``detach()`` or ``.data``, whose
#     ``requires_grad_()`` leaves the saved value a constant). A saved constant is marked
#     (``_saved``), its counter remembers it once it is made a leaf (``late_leaf``), and
#     ``Node.saved_with_history`` returns it for a saved array that is the leaf's own. Likewise
#     a view made under no_grad of a tensor that requires grad (Note [Views without history]
#     in tensor.py) has no edge, yet as PyTorch's saved value it requires grad: the counter
#     remembers such views (``nograd_views``), and a saved array that is one of theirs comes
#     back with a history that leads nowhere.


# Note [Nodes wrapped by CopySlices]
#     A write through a view wraps the write's node in a CopySlices node (view_write.py), which
#     runs it inside its own backward and frees its saved values with its own. Under
#     create_graph the wrapped node can also be reached by itself (the history of a saved
#     output: a custom Function that saves the view it marked dirty). Both are in
#     ``FREED_LAST``: a backward that does not retain the graph frees them after its last node
#     ran, whichever of the two runs first.
FREED_LAST = weakref.WeakSet()
wrapped_any = False   # whether FREED_LAST was ever used: the engine's check is free till then


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
    late_leaf = None    # Note [Leaves made after they were saved]
    nograd_views = None  # the same Note: a WeakSet

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
    as an inference tensor when made in such a thread (Note [Inference tensors]).

    PyTorch's rules for an inference tensor outside inference mode are kept by the two flags
    every saver and writer reads anyway, so that other tensors pay nothing for them: setting
    ``watched`` (a node saves the tensor) raises, and ``guards`` answers truthy, which makes a
    writer call ``before_write`` (autograd/saved.py), which refuses the write before any data
    changes.
    """

    def __init__(self):
        if _grad_mode._state.inference:
            self.inference = True

    def _outside(self):
        return self.inference and not _grad_mode._state.inference

    @property
    def watched(self):
        return self.__dict__.get("_watched", False)

    @watched.setter
    def watched(self, value):
        if value and self._outside():
            raise BackwardError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors "
                "created in inference mode in computation tracked by autograd. To work around "
                "this, you can make a clone to get a normal tensor and use it in autograd, or "
                "use `torch.no_grad()` instead of `torch.inference_mode()`.")
        self.__dict__["_watched"] = value

    @property
    def guards(self):
        guards = self.__dict__.get("_guards")
        return _WRITE_REFUSED if guards is None and self._outside() else guards

    @guards.setter
    def guards(self, value):
        self.__dict__["_guards"] = value


_WRITE_REFUSED = (None,)   # truthy: writers call before_write, which refuses


def refuse_inference_write(counter):
    """``before_write``'s first check: an inference tensor is written only in inference mode."""
    if counter.inference and not _grad_mode._state.inference:
        from ..errors import InplaceError
        raise InplaceError(
            "Inplace update to inference tensor outside InferenceMode is not allowed.You can make "
            "a clone to get a normal tensor before doing inplace update.See "
            "https://github.com/pytorch/rfcs/pull/17 for more details.")


class Policies:
    """How many saved-tensor policies are active, in all threads (autograd/saved.py)."""

    active = 0


def save(tensor):
    """The saved record of a tensor: array, counter and current version (Note [Saved versions])."""
    if not tensor._rg:   # a constant that requires_grad_() may make a leaf later: Note [Leaves
        tensor.__dict__["_saved"] = True   # made after they were saved]
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
    """A backward node. ``next`` holds one edge per input: a Node (a leaf's is its
    :class:`AccumulateGrad`), or None.

    ``apply(g, into)`` returns one gradient per edge; ``into`` is ``g`` when the engine owns it
    (the node may write there), else None (Note [Gradient ownership] in engine.py).
    """

    user_code = False   # True: gradients come from user code, which may keep references

    __slots__ = ("__weakref__", "created_at", "hooks", "next", "rebased", "retained", "saved",
                 "stack")

    def __init__(self, next_edges, saved=None):
        self.next = next_edges
        self.saved = saved
        self.hooks = None
        self.retained = None
        # Only a node that saves something can raise a stale-value error, so only it pays for
        # finding the forward line (Note [Recording source sites]); anomaly mode keeps the stack.
        # The caller of Node() is op machinery (_record, Function.apply, ...): start above it.
        self.created_at = here(3) if saved else None
        if _flags.anomaly:
            self.stack = sites.stack(2)

    def name(self):
        """The node's name as PyTorch gives it: ``MulBackward0`` (PyTorch numbers the overloads
        of an op; ours are not, so it is always 0); a custom Function's node is ``MyFnBackward``."""
        n = type(self).__name__
        if n.endswith("Backward") and self.op_named:
            return n + "0"
        return n

    op_named = True   # False for nodes PyTorch names without a number (custom Functions)
    output_nr = 0     # which output of its function the node's tensor is (OutputSlot: index)

    def __repr__(self):
        return f"<{self.name()}>"

    @property
    def next_functions(self):
        """``(node, output_nr)`` for each input, as PyTorch gives them: a leaf's node is its
        :class:`AccumulateGrad` (the same object each time), an input that needs no gradient
        ``(None, 0)``."""
        return tuple(gradient_edge(e) for e in self.next)

    @property
    def metadata(self):
        """A dict kept with the node for the user's own notes (PyTorch's ``Node.metadata``)."""
        return self._hook_lists().metadata

    def _hook_lists(self):
        h = self.hooks
        if h is None:
            h = self.hooks = NodeHooks()
        return h

    def register_hook(self, hook):
        """Call ``hook(grad_inputs, grad_outputs)`` each time this node has computed the
        gradients of its inputs; a tuple it returns replaces ``grad_inputs`` (Note [Node
        hooks])."""
        return HookHandle(self._hook_lists().post, hook)

    def register_prehook(self, hook):
        """Call ``hook(grad_outputs)`` each time before this node runs; a tuple it returns
        replaces ``grad_outputs`` (Note [Node hooks])."""
        return HookHandle(self._hook_lists().pre, hook)

    def register_tensor_hook(self, hook):
        """``Tensor.register_hook`` of the tensor whose history this node is: ``hook(grad)``
        runs first, before the node's own pre-hooks (Note [Node hooks])."""
        return HookHandle(self._hook_lists().tensor, hook)

    def saved_record(self, key):
        """The record of saved value ``key`` (Note [Saved versions])."""
        return self.saved[key]

    def replace_saved(self, key, rec):
        self.saved[key] = rec

    def split_grad(self, g):
        """The gradients of this node's outputs, as hooks see them (one output: ``(g,)``)."""
        return (g,)

    def join_grad(self, parts, g):
        """The incoming gradient made from what a pre-hook returned for :meth:`split_grad`."""
        return parts[0]

    def __getattr__(self, name):
        # reached only for a name the node does not have: PyTorch's saved-value attributes
        if name.startswith("_saved_"):
            return saved_attribute(self, name[7:], raw=False)
        if name.startswith("_raw_saved_"):
            return saved_attribute(self, name[11:], raw=True)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def unpack(self, key):
        """The array saved under ``key``, after checking its version (Note [Saved versions])."""
        rec = self.saved[key]
        if rec is _FREED:
            raise freed_error(self)
        if type(rec) is not tuple:
            return rec.tensor(self, key)._data if type(rec) is Packed else rec
        counter = rec[1]
        if counter is not None and counter.value != rec[2]:
            return _written_since(self, rec, key)
        return rec[0]

    def release(self):
        # Everything saved is freed, constants too: PyTorch saves a Python scalar operand as a
        # tensor, so ``y = (x * 2).sum(); y.backward(); y.backward()`` raises there as here. A
        # node that saves nothing can be run again.
        saved = self.saved
        if saved:
            self.saved = dict.fromkeys(saved, _FREED)

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
        that backward is the version error (design.md rule 13). Non-tensor constants (a Python
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
        if edge is None and counter is not None:
            edge = late_history(counter, arr)
            if edge is not None and not isinstance(edge, Node):
                return edge   # the leaf the saved constant became
        if type(edge) is AccumulateGrad:
            if edge.variable._data is arr:
                return edge.variable
            edge = _Alias((edge,))
        from ..tensor import _borrow
        t = _borrow(arr, counter)
        if edge is not None:
            t.grad_fn, t._rg = edge, True
        return t


def _written_since(node, rec, key):
    """A saved value whose tensor was written since it was saved: its old value when a guard
    kept what every write overwrote (Note [Mutation of saved tensors]), else the VersionError."""
    guard = rec[5] if len(rec) > 5 else None
    if guard is not None and guard.covers(rec[1].value):
        return guard.restore()
    raise stale_error(node, rec, key)


def late_history(counter, arr):
    """The history a saved array without one has gained since it was saved (Note [Leaves made
    after they were saved]): the leaf it became, a DeadEnd for a view made under no_grad of a
    tensor that requires grad, or None."""
    leaf = counter.late_leaf and counter.late_leaf()
    if leaf is not None and leaf._rg and leaf.grad_fn is None and leaf._data is arr:
        return leaf
    if counter.nograd_views is not None and any(
            v._data is arr and v._base._rg for v in counter.nograd_views):
        return DeadEnd(())
    return None


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
    ``detach()``), a write since the save is the VersionError of design.md rule 2. PyTorch skips
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
    """A history that sends its gradient nowhere (Tensor._refresh_view). Formulas skip an
    edge to a DeadEnd itself (``type(edge) is DeadEnd``, op_node.py): no gradient is computed
    for it, nor the saved values that would make it."""

    __slots__ = ()

    def name(self):
        return "DeadEndBackward"

    def apply(self, g, into=None):
        return [None] * len(self.next)

    def apply_graph(self, g, out=None):
        return [None] * len(self.next)


class Regenerated(DeadEnd):
    """The history of a view that entered a graph (``requires_grad_()`` on it or on a view it
    comes from) after its base was written without grad: PyTorch regenerates it from the base as
    an ``AsStridedBackward0`` whose one input needs no gradient. Unlike a DeadEnd's, an edge to
    it gets its gradient computed, so ``grad()`` of the view gives one; it goes no further."""

    __slots__ = ()

    def name(self):
        return "AsStridedBackward0"


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


class NodeHooks:
    """What a node keeps once a hook or metadata is set on it (Note [Node hooks]); nodes without
    any keep None, so the per-op path pays nothing."""

    __slots__ = ("metadata", "post", "pre", "tensor")

    def __init__(self):
        self.tensor, self.pre, self.post, self.metadata = [], [], [], {}

    def __bool__(self):
        return bool(self.tensor or self.pre or self.post)


class HookHandle:
    """What ``register_hook`` and its kin return: ``remove()`` takes the hook out again (True
    the first time, False after, as Paddle's handle answers)."""

    __slots__ = ("_hook", "_hooks")

    def __init__(self, hooks, hook):
        hooks.append(hook)
        self._hooks, self._hook = hooks, hook

    def remove(self):
        hooks = self._hooks
        for i, h in enumerate(hooks):
            if h is self._hook:
                del hooks[i]
                return True
        return False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class AccumulateGrad(Node):
    """A leaf's node, as in PyTorch: the edge through which a gradient reaches the leaf
    (``next_functions``, ``get_gradient_edge`` and every node's ``next`` show it). The graph
    keeps it, and it keeps its leaf (``variable``); the leaf finds it again by a weak reference,
    so leaf and node make no cycle, and a leaf in no graph has none alive. Its hooks run around
    the accumulation into ``.grad`` (Note [Node hooks] in engine.py): ``register_prehook(
    hook(grad_outputs))`` before, ``register_hook(hook((), grad_outputs))`` after."""

    __slots__ = ("variable",)
    # a node with no inputs, nothing saved and no site: class attributes over Node's slots, so
    # that making one (once per leaf per graph) sets two
    next = ()
    saved = retained = created_at = None

    def __init__(self, variable):
        self.variable = variable
        self.hooks = None

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def __repr__(self):
        return "<AccumulateGrad>"


def accumulator(leaf):
    """The leaf's :class:`AccumulateGrad`: the one alive (some graph or the user holds it), or a
    new one."""
    d = leaf.__dict__
    ref = d.get("_accumulator")
    if ref is not None:
        acc = ref()
        if acc is not None:
            return acc
    acc = AccumulateGrad(leaf)
    d["_accumulator"] = weakref.ref(acc)
    return acc


def edge_of(t):
    """The edge of a tensor that requires grad: its history, or its AccumulateGrad for a
    leaf."""
    fn = t.grad_fn
    return fn if fn is not None else accumulator(t)


def gradient_edge(e):
    """``(node, output_nr)`` of an edge of ``Node.next`` (a node or None)."""
    return (None, 0) if e is None else (e, e.output_nr)


def freed_error(node):
    """PyTorch's error for saved values used after backward freed them."""
    return BackwardError(
        f"Trying to backward through the graph a second time (or directly access saved tensors "
        f"after they have already been freed). Saved intermediate values of the graph are freed "
        f"when you call .backward() or autograd.grad(). Specify retain_graph=True if you need "
        f"to backward through the graph a second time or if you need to access saved tensors "
        f"after calling backward. ({node.name()} freed its saved values after the first "
        f"backward.)")


# ---- PyTorch's saved-value attributes (grad_fn._saved_self, _raw_saved_self) ----------------

# Note [Saved-value attributes]
#     PyTorch names what a node saved after the op's arguments: ``_saved_self``,
#     ``_saved_other``, ``_saved_result``, ``_saved_exponent``, ``_saved_dim``,
#     ``_saved_self_sym_sizes``; ``_raw_saved_<name>`` is the saved record itself, on which
#     ``register_hooks(pack, unpack)`` packs it from then on. A formula's parameter names are
#     ours (x, y, out, ...): x is ``self``, y ``other``, out ``result``, a shape ``x_shape`` is
#     ``self_sym_sizes``, and _TORCH_NAMES holds the ops whose arguments PyTorch names otherwise.
#     A value the op saves only for a gradient that this call did not need is None, as in
#     PyTorch (``(x * 2).grad_fn._saved_self``).

_ROLE_NAMES = {"x": "self", "y": "other", "out": "result"}
_TORCH_NAMES = {
    "pow": {"y": "exponent"}, "matmul": {"y": "mat2"}, "mm": {"y": "mat2"},
    "bmm": {"y": "mat2"}, "where": {"cond": "condition"}, "lerp": {"y": "end"},
    "conv2d": {"x": "input"}, "conv_transpose2d": {"x": "input"}, "layer_norm": {"x": "input"},
}


def _find_saved(node, torch_name):
    """``(kind, our name)`` of the saved value PyTorch calls ``torch_name``, or None."""
    op = getattr(type(node), "op", None)
    sources = getattr(op, "sources", None)
    if not sources:
        return None
    renamed = _TORCH_NAMES.get(op.name, {})

    def torch_of(own):
        return renamed.get(own) or _ROLE_NAMES.get(own, own)
    for own, kind in sources.items():
        if kind in ("saved", "attr") and torch_of(own) == torch_name:
            return kind, own
        if kind == "shape" and f"{torch_of(own[:-6])}_sym_sizes" == torch_name:
            return kind, own
    return None


def saved_attribute(node, torch_name, raw):
    """``node._saved_<torch_name>`` (``raw``: ``_raw_saved_<torch_name>``), Note [Saved-value
    attributes]."""
    inner = getattr(node, "inner", None)   # a write through a view: the op's own node
    found = _find_saved(node if inner is None else inner, torch_name)
    if found is None:
        prefix = "_raw_saved_" if raw else "_saved_"
        raise AttributeError(f"'{node.name()}' object has no attribute '{prefix}{torch_name}'")
    owner = node if inner is None else inner
    kind, own = found
    if kind != "saved":
        value = owner.arg(own)
        return tuple(value) if kind == "shape" else value
    saved = owner.saved
    if saved is None or own not in saved:
        return None
    if raw:
        return SavedTensor(owner, own)
    value = owner.saved_with_history(own)
    if not hasattr(value, "_data") and value is not None:   # a Python scalar operand
        from ..tensor import _wrap
        return _wrap(value)   # as PyTorch shows it: a 0-d tensor
    return value


class SavedTensor:
    """``grad_fn._raw_saved_<name>``: one saved value of a node; ``register_hooks(pack,
    unpack)`` packs it now and unpacks it each time backward needs it (PyTorch's
    ``torch._C._autograd.SavedTensor``)."""

    __slots__ = ("key", "node")

    def __init__(self, node, key):
        self.node, self.key = node, key

    def register_hooks(self, pack_hook, unpack_hook):
        node, key = self.node, self.key
        rec = node.saved_record(key)
        if rec is _FREED:
            raise freed_error(node)
        if type(rec) is Packed:
            raise BackwardError("Calling register_hooks on a saved tensor whose hooks have "
                                "already been set. Hint: only one pair of hooks is allowed at "
                                "a time.")
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("register_hooks expects two callables: pack_hook and unpack_hook")
        from .saved import pack_record
        t = node.saved_with_history(key)
        if not hasattr(t, "_data"):   # a Python scalar operand: packed as PyTorch's 0-d tensor
            from ..tensor import _wrap
            t = _wrap(t)
        node.replace_saved(key, pack_record(t, rec[3] if type(rec) is tuple else None,
                                            pack_hook, unpack_hook))

    def __repr__(self):
        return f"<SavedTensor {self.key!r} of {self.node.name()}>"
