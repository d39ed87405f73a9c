"""Custom differentiable functions: ``torch.autograd.Function`` / ``paddle.autograd.PyLayer``.

    >>> import mutograd as mg
    >>> class Cube(mg.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x * x
    ...     @staticmethod
    ...     def backward(ctx, g):
    ...         (x,) = ctx.saved_tensors
    ...         return g * 3 * x * x
    >>> x = mg.tensor([2.0], requires_grad=True)
    >>> Cube.apply(x).backward()
    >>> x.grad.tolist()
    [12.0]

Saved tensors are version-checked like every other saved value (Note [Saved versions]).
"""
from . import sites
from .grad_mode import _state, no_grad
from .node import (_FREED, AccumulateGrad, DeadEnd, Node, Packed, accumulator, edge_of,
                   freed_error, late_history, save, saved_tensor)
from .saved import before_write
from .view_write import rebase


class FunctionCtx:
    def __init__(self):
        self._saved = ()
        self._dirty = ()
        self._non_differentiable = ()
        self.needs_input_grad = ()
        self.materialize_grads = True
        self._node = None

    def save_for_backward(self, *tensors):
        from ..tensor import Tensor
        self._saved = tuple(save(t) if isinstance(t, Tensor) else t for t in tensors)
        self._saved_objects = tensors   # until apply() maps them to histories, then dropped

    save_for_forward = save_for_backward

    @property
    def saved_tensors(self):
        """The saved tensors, version-checked; while a backward with create_graph runs, with
        the history of the input or output each one is, so ``backward`` is differentiable."""
        node = self._node
        graph = _state.enabled and node is not None and node.saved_edges is not None
        res = []
        for i, rec in enumerate(self._saved):
            if rec is _FREED:
                raise freed_error(node)
            if type(rec) is tuple or type(rec) is Packed:
                t = saved_tensor(node, rec, i)
                edge = node.saved_edges[i] if graph else None
                if graph and edge is None and t._counter is not None:
                    edge = late_history(t._counter, t._data)   # Note [Leaves made after they
                    # were saved] in node.py
                if edge is not None:
                    t = _with_history(t, edge)
                res.append(t)
            else:
                res.append(rec)
        return tuple(res)

    def saved_tensor(self):
        return self.saved_tensors

    def mark_dirty(self, *tensors):
        """Declare the inputs that ``forward`` wrote in place (they must be returned)."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        """Declare outputs that get no gradient (they do not require grad)."""
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        self.materialize_grads = value


def _node_class(cls, base=None):
    """The node class of a Function subclass, named after it (``MyFnBackward``, as PyTorch's
    ``type(y.grad_fn).__name__``); made once per Function. ``base=OutputSlot``: the class of
    its outputs' slots (Note [Several outputs]), of the same name."""
    key = "_node_cls" if base is None else "_slot_cls"
    node_cls = cls.__dict__.get(key)
    if node_cls is None:
        node_cls = type(cls.__name__ + "Backward", (base or FunctionNode,), {"__slots__": ()})
        type.__setattr__(cls, key, node_cls)
    return node_cls


def _with_history(t, edge):
    """``t`` (a saved tensor) with ``edge`` as its history: a node, or a leaf (or its
    AccumulateGrad), which is ``t`` itself when ``t`` is the leaf's array, else aliased."""
    from .node import _Alias
    if not isinstance(edge, Node):   # the leaf a saved constant became (late_history)
        edge = accumulator(edge)
    if type(edge) is AccumulateGrad:
        if edge.variable._data is t._data:
            return edge.variable
        edge = _Alias((edge,))
    t.grad_fn, t._rg = edge, True
    return t


class FunctionNode(Node):
    """The node of a custom Function; as in PyTorch, what ``forward`` set on ``ctx`` reads on
    the node too (``y.grad_fn.saved_tensors``, ``y.grad_fn.needs_input_grad``)."""

    __slots__ = ("arrived", "ctx", "fn", "outputs", "saved_edges", "shapes", "xp")
    user_code = True   # Note [Gradient ownership]: backward may keep what it returns
    op_named = False   # PyTorch names it MyFnBackward, without a number

    def name(self):
        return self.fn.__name__ + "Backward"

    def __getattr__(self, name):
        if name != "ctx" and name not in FunctionNode.__slots__:
            try:
                return getattr(self.ctx, name)
            except AttributeError:
                pass
        return Node.__getattr__(self, name)

    @property
    def _raw_saved_tensors(self):
        from .node import SavedTensor
        return tuple(SavedTensor(self, i) for i, rec in enumerate(self.ctx._saved)
                     if type(rec) is tuple or type(rec) is Packed)

    def saved_record(self, key):
        return self.ctx._saved[key]

    def replace_saved(self, key, rec):
        saved = list(self.ctx._saved)
        saved[key] = rec
        self.ctx._saved = tuple(saved)

    def saved_with_history(self, key):
        return saved_tensor(self, self.ctx._saved[key], key)

    def split_grad(self, g):
        """One gradient per output; None for an output no gradient reached (Note [Several
        outputs])."""
        if self.outputs is None:
            return (g,)
        from .engine import current_task_id
        arrived = self.arrived
        got = arrived[1] if arrived is not None and arrived[0] == current_task_id() else ()
        return tuple(p if i in got else None for i, p in enumerate(_unpack(g, self.outputs)))

    def join_grad(self, parts, g):
        if self.outputs is None:
            return parts[0]
        from .engine import current_task_id
        self.arrived = (current_task_id(), {i for i, p in enumerate(parts) if p is not None})
        return _pack(parts, self.outputs, g, self.xp)

    def arrive(self, index):
        """Output ``index`` got a gradient in the backward now running (Note [Several
        outputs])."""
        from .engine import current_task_id
        task, arrived = current_task_id(), self.arrived
        if arrived is None or arrived[0] != task:
            arrived = self.arrived = (task, set())
        arrived[1].add(index)

    def _grads_for_backward(self, g):
        """The gradients ``backward`` receives: zeros for outputs that got none, unless ctx
        asked for None (``set_materialize_grads(False)``)."""
        if self.outputs is None:
            return (g,)
        if self.ctx.materialize_grads:
            return tuple(_unpack(g, self.outputs))
        return self.split_grad(g)

    def apply(self, g, into=None):
        from ..tensor import Tensor
        from ..transfer import wrap_for_xp as _wrap  # the gradient on its own place
        from .op_node import unbroadcast
        xp = self.xp
        if into is None:   # backward may write into its argument: never into a shared array
            g = g.copy()
        grads = self.fn.backward(self.ctx, *[None if p is None else _wrap(p, xp)
                                             for p in self._grads_for_backward(g)])

        def fit(gi, shape):
            arr = gi._data if isinstance(gi, Tensor) else xp.asarray(gi)
            return unbroadcast(xp, arr, shape) if arr.shape != shape else arr
        return self._fitted(grads, fit)

    def apply_graph(self, g, out=None):
        """``backward`` run with grad mode on, on tensors: a backward written with mutograd
        ops is then differentiable (Note [Differentiable gradient formulas])."""
        from ..tensor import Tensor
        from .op_node import fit_graph
        grads = self.fn.backward(self.ctx, *self._grads_for_backward(g))

        def fit(gi, shape):
            dtype = gi._data.dtype if isinstance(gi, Tensor) else g._data.dtype
            return fit_graph(gi, tuple(shape), dtype, g)
        return self._fitted(grads, fit)

    def _fitted(self, grads, fit):
        """What ``backward`` returned, one gradient per edge, each fitted to its input's shape
        (None where the edge or the gradient is absent)."""
        if not isinstance(grads, tuple):
            grads = (grads,)
        return [None if e is None or gi is None else fit(gi, shape)
                for e, gi, shape in zip(self.next, grads, self.shapes)]

    def release(self):
        # saved tensors are freed as an op's are (PyTorch: ctx.saved_tensors then raises);
        # what forward set on ctx stays
        ctx = self.ctx
        if any(type(r) is tuple or type(r) is Packed for r in ctx._saved):
            ctx._saved = tuple(_FREED if type(r) is tuple or type(r) is Packed else r
                               for r in ctx._saved)


class Function:
    """Subclass with static ``forward(ctx, *args)`` and ``backward(ctx, *grads)``.

    Note [Custom functions in place]
        A ``forward`` that writes an input in place declares it with ``ctx.mark_dirty(x)`` and
        returns it. The write is an in-place op like any other (design.md rules 4-6): on a leaf
        that requires grad (or a view of one) it is the leaf error; on a non-leaf the function's
        node becomes ``x``'s history; through a view it becomes the base's history inside a
        CopySlices node, so the base's gradient passes through the function's backward for the
        view's region. An input returned unchanged without ``mark_dirty`` comes back as a new
        view of it, so the input keeps its own history.
    """

    @staticmethod
    def setup_context(ctx, inputs, output):
        """For a ``forward(*args)`` written without ctx (PyTorch 2's style): save on ``ctx``
        what ``backward`` needs, from the call's ``inputs`` and ``forward``'s ``output``. A
        class that defines it has a ``forward`` without ctx."""
        raise TypeError("setup_context is defined by Function subclasses whose forward takes "
                        "no ctx")

    @classmethod
    def apply(cls, *args, **kwargs):
        from ..tensor import Tensor
        ctx = FunctionCtx()
        tensors = [a for a in args if isinstance(a, Tensor)]
        for t in tensors:   # a view's history up to date before it becomes an edge
            if t._base is not None and t._view_version != t._counter.value:
                t._refresh_view()
        # a view without history requires grad, though no gradient flows through it (Note
        # [Views without history] in tensor.py): the edge is empty, the output still records
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        record = _state.enabled and any(ctx.needs_input_grad)
        edges = tuple(edge_of(a) if isinstance(a, Tensor) and a._rg else None for a in args)
        with no_grad():
            if _takes_ctx(cls):
                out = cls.forward(ctx, *args, **kwargs)
            else:   # the setup_context style: forward(*args), then setup_context(ctx, ...)
                out = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, out)
        several = isinstance(out, (tuple, list)) and any(isinstance(o, Tensor) for o in out)
        outs = [o for o in out if isinstance(o, Tensor)] if several else [out]
        written = _written(cls, args, outs, ctx._dirty, record)
        if written:
            _bump_dirty(cls, ctx, outs, written)
        if not record:
            return out
        if not several and not isinstance(out, Tensor):
            raise TypeError(f"{cls.__name__}.forward must return a Tensor or a tuple of "
                            f"Tensors")
        node = _node_class(cls)(edges, None)
        node.fn = cls
        node.ctx = ctx
        node.shapes = tuple(a.shape if isinstance(a, Tensor) else () for a in args)
        node.xp = tensors[0]._place.xp
        ctx._node = node
        if ctx._saved:   # where the node was made, for a stale-value error
            node.created_at = sites.here(2)
        node.outputs = None
        inputs = {id(a) for a in tensors}
        returned = outs
        outs = [o if id(o) in written or id(o) not in inputs else _alias_view(o, cls, i)
                for i, o in enumerate(outs)]
        slots = _attach_outputs(node, outs) if several else [node]
        node.saved_edges = _saved_edges(ctx, args, edges, returned, slots)
        for o, r, slot in zip(outs, returned, slots):
            if id(o) in written:
                o.__dict__.pop("_grad", None)   # a retained gradient is of the old value (PyTorch)
                rebase(o, slot, written[id(o)])
                if o._base is not None:
                    o._refresh_view()   # its history now comes from the base's CopySlices
            elif not any(r is n for n in ctx._non_differentiable):   # as returned, not aliased
                o.grad_fn, o._rg = slot, True
        if several:
            it = iter(outs)
            return type(out)(next(it) if isinstance(o, Tensor) else o for o in out)
        return outs[0]


def _takes_ctx(cls):
    """Whether ``forward`` takes ctx first: it does unless the class defines setup_context."""
    return cls.setup_context is Function.setup_context


def _saved_edges(ctx, args, edges, outs, slots):
    """The history of each saved tensor that is an input or an output of the function (None
    for others), for ``saved_tensors`` under create_graph."""
    from ..tensor import Tensor
    objs = getattr(ctx, "_saved_objects", ())
    ctx._saved_objects = ()
    if not objs:
        return None
    found = []
    for t in objs:
        # an output first: an input marked dirty and returned is saved as the output it became
        # (its history is the function's node), as PyTorch saves it
        e = next((s for o, s in zip(outs, slots) if o is t), None)
        if e is None:
            e = next((e for a, e in zip(args, edges) if a is t), None)
        if e is None and isinstance(t, Tensor) and t.requires_grad:
            # a view without history (Note [Views without history] in tensor.py): as PyTorch's
            # saved input it requires grad, and a gradient through it goes nowhere
            e = DeadEnd(())
        found.append(e)
    return tuple(found)


def once_differentiable(backward):
    """Decorate a Function's ``backward`` that cannot be differentiated again: it runs without
    recording, and a gradient computed with create_graph through it raises when differentiated
    (PyTorch's ``torch.autograd.function.once_differentiable``)."""
    import functools

    @functools.wraps(backward)
    def wrapper(ctx, *grads):
        enabled = _state.enabled
        with no_grad():
            result = backward(ctx, *grads)
        if not enabled:
            return result
        from ..tensor import Tensor
        needs = [g for g in grads if isinstance(g, Tensor) and g.requires_grad]
        if not needs:
            return result
        single = not isinstance(result, tuple)
        res = []
        for r in ((result,) if single else result):
            if isinstance(r, Tensor):
                r = r.detach()
                r.grad_fn, r._rg = _OnceDifferentiable(tuple(map(edge_of, needs))), True
            res.append(r)
        return res[0] if single else tuple(res)
    return wrapper


class _OnceDifferentiable(Node):
    """The history of a gradient computed by a ``@once_differentiable`` backward."""

    __slots__ = ()

    def name(self):
        return "DelayedError"

    def apply(self, g, into=None):
        raise self._error()

    def apply_graph(self, g, out=None):
        raise self._error()

    @staticmethod
    def _error():
        from ..errors import BackwardError
        return BackwardError("trying to differentiate twice a function that was marked with "
                             "@once_differentiable")


def _written(cls, args, outs, dirty, record):
    """``{id(tensor): input index}`` for the inputs ``forward`` marked dirty, after the checks
    of Note [Custom functions in place]."""
    from ..errors import BackwardError, InplaceError
    from .inplace import check_leaf
    written = {}
    for d in dirty:
        i = next((i for i, a in enumerate(args) if a is d), None)
        if i is None:
            raise BackwardError(f"{cls.__name__}.forward marked as dirty a tensor that is not "
                                f"one of its inputs (shape {list(d.shape)})")
        if not any(o is d for o in outs):
            raise BackwardError(f"{cls.__name__}.forward marked input {i} as dirty but did "
                                f"not return it; an input written in place must be returned")
        if record:
            check_leaf(d, f"{cls.__name__}.forward (mark_dirty)")
        if record and d._base is not None and len(outs) > 1:
            raise InplaceError(
                f"{cls.__name__}.forward wrote input {i}, a view, in place and returns "
                f"{len(outs)} outputs; a function that writes through a view must return "
                f"that view alone. Write into the base tensor, or clone() the view first.")
        written[id(d)] = i
    return written


def _bump_dirty(cls, ctx, outs, written):
    """A dirty input's write is recorded once more, as the function's (PyTorch does the same);
    what ``forward`` saved of it is the function's output, so it is saved at the new version."""
    for o in outs:
        if id(o) in written:
            counter = o._counter
            what = f"{cls.__name__}.forward"
            if counter.guards:   # no value changes (Note [Mutation of saved tensors])
                before_write(o, None, what, data=False)
            counter.bump(what)
            saved = []
            for rec in ctx._saved:
                if type(rec) is tuple and rec[1] is counter:
                    rec = rec[:2] + (counter.value,) + rec[3:]
                elif type(rec) is Packed and rec.counter is counter:
                    rec.version = counter.value
                saved.append(rec)
            ctx._saved = tuple(saved)


def _alias_view(t, cls, index):
    """A new view of all of ``t`` (an input returned unchanged by ``forward`` as output
    ``index`` of ``cls``); writing it in place is refused as PyTorch does, naming both."""
    with no_grad():
        v = t.view(t.shape)
    v.__dict__["_function_output"] = (cls.__name__, index)
    return v


# Note [Several outputs]
#     The engine hands each node one gradient array. A function with several outputs gives each
#     output its own small node (OutputSlot) whose gradient is the output's gradient written into
#     its segment of one flat zero buffer; the engine sums the buffers arriving at the function's
#     node, which makes the concatenation of every output's gradient (zeros for unused outputs,
#     as PyTorch's materialize_grads). The function's node splits it back. Each slot notes
#     that its output got a gradient (``arrived``), so that hooks see None for the others and
#     ``set_materialize_grads(False)`` gives backward None for them, as PyTorch does.
#
#     A slot stands for its function's node where PyTorch shows one node with output_nr i: its
#     name, ``next_functions``, hooks and ctx attributes are the function node's.


class OutputSlot(Node):
    """Backward node of output ``index`` of a function with several outputs."""

    __slots__ = ("index", "layout")

    def name(self):
        return self.next[0].name()

    @property
    def output_nr(self):
        return self.index

    @property
    def next_functions(self):
        return self.next[0].next_functions

    def register_hook(self, hook):
        return self.next[0].register_hook(hook)

    def register_prehook(self, hook):
        return self.next[0].register_prehook(hook)

    @property
    def metadata(self):
        return self.next[0].metadata

    def __getattr__(self, name):
        if name in OutputSlot.__slots__ or name in Node.__slots__:
            raise AttributeError(name)
        return getattr(self.next[0], name)

    def apply(self, g, into=None):
        self.next[0].arrive(self.index)
        size, dtype, segments = self.layout
        packed = self.next[0].xp.zeros(size, dtype)
        start, _ = segments[self.index]
        packed[start:start + g.size] = g.reshape(-1)
        return [packed]

    def apply_graph(self, g, out=None):
        from .graph_arrays import constant
        self.next[0].arrive(self.index)
        size, dtype, segments = self.layout
        packed = constant(self.next[0].xp.zeros(size, dtype), g)
        start, _ = segments[self.index]
        packed[start:start + g.numel()] = g.reshape(-1)
        return [packed]


def _attach_outputs(node, outs):
    xp = node.xp
    dtype = xp.result_type(*[o._data.dtype for o in outs if o._data.dtype.kind in "fc"] or
                           [xp.float32])
    segments, start = [], 0
    for o in outs:
        segments.append((start, o._data.shape))
        start += o._data.size
    node.outputs = (start, dtype, segments)
    slots = []
    slot_cls = _node_class(node.fn, OutputSlot)
    node.arrived = None
    for i in range(len(outs)):
        slot = slot_cls((node,), None)
        slot.index, slot.layout = i, node.outputs
        slots.append(slot)
    return slots


def _unpack(packed, layout):
    return [packed[start:start + _numel(shape)].reshape(shape) for start, shape in layout[2]]


def _pack(parts, layout, like, xp):
    """The packed gradient of ``parts`` (zeros for None): an array, or with create_graph a
    tensor (``like`` is the gradient it replaces)."""
    from ..tensor import Tensor
    size, dtype, segments = layout
    if isinstance(like, Tensor):
        from ..ops.shaping import cat
        from .graph_arrays import constant
        return cat([constant(xp.zeros(_numel(shape), like._data.dtype), like) if p is None
                    else p.reshape(-1) for p, (_, shape) in zip(parts, segments)])
    packed = xp.zeros(size, dtype)
    for p, (start, shape) in zip(parts, segments):
        if p is not None:
            packed[start:start + _numel(shape)] = p.reshape(-1)
    return packed


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


class InplaceFunction(Function):
    """A Function that may write its input in place (``self.inplace``), as PyTorch's
    ``torch.autograd.function.InplaceFunction``."""

    def __init__(self, inplace=False):
        self.inplace = inplace


PyLayer = Function
