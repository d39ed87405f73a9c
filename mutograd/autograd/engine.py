"""The backward pass: run the nodes reachable from the outputs in dependency order.

Gradients travel as backend arrays. The engine writes into a gradient array (accumulates another
gradient into it, lets a formula write its result there, makes it a leaf's ``.grad`` without a
copy) only when it owns the array (Note [Gradient ownership]).

Note [Gradient ownership]
    A gradient array has at most one owner, and the engine owns an array only when nothing else
    can read it later. For the gradients a node returns, one per input edge, :func:`_claims`
    decides, and nothing else does:

    - never owned: an array that shares memory with another of the node's gradients (``x + x``,
      ``x + x[:]``: one array handed to two edges), a view of the incoming gradient when that
      was not owned, a read-only array (a broadcast), a 0-d array, and anything that user code
      returned (a custom Function's backward, a hook: it may keep a reference);
    - owned: a new array (it owns its memory, or the buffer cache just handed it out), or the
      incoming gradient itself (or a view of all of it) when that was owned and no other edge
      gets it. Formulas never return an array their node holds (``OpNode.apply`` copies one).

    A node gets the incoming gradient as ``into`` only when it is owned, and user code (hooks, a
    custom Function's backward) gets a copy of a gradient the engine does not own, so that an
    in-place change there cannot reach another edge. An array that is not owned is copied before
    anything is added into it.

Note [Region gradients]
    The backward of a view that picks a region of its input (narrow, select, a basic slice, a
    diagonal) is zero outside that region. Its formula returns a :class:`RegionGrad` instead of
    a zero-filled array: the engine adds it into the input's accumulated gradient in place,
    region only, and makes the full array only when it arrives first. ``q, k, v = x.split(n)``
    then costs one zero fill and three region writes in backward, where whole arrays cost three
    fills, three writes and two full additions. A RegionGrad is consumed as it arrives, so it
    never needs an owner.

Note [Node hooks]
    A node runs, in this order, PyTorch's three kinds of hook: the hooks of the tensor whose
    history it is (``Tensor.register_hook``, ``hook(grad)``), then ``retain_grad``, then its own
    pre-hooks (``grad_fn.register_prehook``, ``hook(grad_outputs)``); after its formulas, its
    post-hooks (``grad_fn.register_hook``, ``hook(grad_inputs, grad_outputs)``). A pre-hook's
    tuple replaces the gradients of the node's outputs, a post-hook's those of its inputs, each
    checked for count, shape and dtype. A leaf's node is its AccumulateGrad: the leaf's tensor
    hooks, the node's pre-hooks, the accumulation into ``.grad`` and its post-accumulate hooks,
    the node's post-hooks. With create_graph the hooks see and return tensors with history.

    ``grad(outputs, inputs)`` takes the gradient of a non-leaf input where it arrives, at the
    input's node. When that node must run for another input, the gradient is taken before any of
    its hooks; otherwise its tensor hooks (and ``retain_grad``) run first and the node does not
    run, as PyTorch 2 does. ``backward(inputs=...)`` runs the inputs' nodes (each input retains
    its gradient, as in PyTorch) and accumulates into the leaves among them only.

Note [Graph tasks]
    The backward running in a thread is its task (:func:`current_task_id`): code called from its
    hooks asks which nodes it will run (:func:`will_execute`, for
    ``register_multi_grad_hook``), queues work for its end (:func:`queue_callback`), or learns
    whether it computes every leaf's gradient (:func:`is_checkpoint_valid`, for reentrant
    checkpointing). A backward run from a hook is a task of its own.
"""
import collections
import itertools
import threading

import numpy as np

from .. import memory
from ..errors import BackwardError, ShapeError
from ..memory import fresh
from ..places import writeable
from . import anomaly, sites
from . import node as _node
from .grad_mode import _state
from .node import AccumulateGrad, edge_of
from .saved import before_write
from .sites import Flags

class RegionGrad:
    """A gradient of ``shape`` and ``dtype`` that is ``values`` on ``view(full)`` and zero
    elsewhere (Note [Region gradients])."""

    __slots__ = ("dtype", "shape", "values", "view", "xp")

    def __init__(self, xp, shape, dtype, view, values):
        self.xp, self.shape, self.dtype, self.view, self.values = xp, shape, dtype, view, values

    def materialize(self):
        z = memory.zeros(self.xp, self.shape, self.dtype)
        self.view(z)[...] = self.values
        return z

    def add_into(self, acc):
        r = self.view(acc)
        r += self.values


def backward(tensors, grad_tensors=None, retain_graph=None, inputs=None, scalar_only=False,
             create_graph=False):
    """Accumulate gradients of ``tensors`` into the ``.grad`` of the leaves (or of ``inputs``)."""
    from ..tensor import Tensor
    tensors = list(tensors) if isinstance(tensors, (list, tuple)) else [tensors]
    if retain_graph is None:
        retain_graph = create_graph   # as in PyTorch
    roots = _roots(tensors, grad_tensors, scalar_only, create_graph)
    only = None
    if inputs is not None:
        only = [inputs] if isinstance(inputs, Tensor) or is_edge(inputs) else list(inputs)
        if not only:
            raise BackwardError("`inputs` argument to `backward()` cannot be empty.")
        for t in only:   # Note [Node hooks]: an input's gradient is kept, leaf or not
            if isinstance(t, Tensor):
                t.retain_grad()
    _run(roots, bool(retain_graph), only, accumulate=True, graph=create_graph)


class _Tasks(threading.local):
    current = None   # the _Task of the backward running in this thread (Note [Graph tasks])


_tasks = _Tasks()
_task_ids = itertools.count()


class _Task:
    __slots__ = ("callbacks", "id", "needed", "nodes", "targets")


def current_task_id():
    """An id of the backward running in this thread, -1 outside backward (Note [Graph
    tasks])."""
    task = _tasks.current
    return -1 if task is None else task.id


def will_execute(node):
    """Whether the backward running now runs ``node`` (an AccumulateGrad: accumulates into its
    leaf, or takes its gradient for ``grad()``). PyTorch's ``_will_engine_execute_node``."""
    task = _tasks.current
    if task is None:
        raise BackwardError("will_engine_execute_node should only be called during the "
                            "backward pass")
    return node in task.nodes and (task.needed is None or node in task.needed
                                   or node in task.targets)


def is_checkpoint_valid():
    """False while a backward that computes only some gradients runs (``grad()``,
    ``backward(inputs=...)``): reentrant checkpointing cannot serve it (Note [Graph tasks])."""
    task = _tasks.current
    return task is None or task.targets is None


_after_next = []


def after_next_backward(fn):
    """Call ``fn()`` once, when the next backward (in any thread) has finished: Paddle's
    ``core.eager._add_backward_final_hook``."""
    _after_next.append(fn)


def queue_callback(fn):
    """Run ``fn()`` once the backward now running has accumulated every gradient.

    For code that acts on several final gradients together (distributed gradient reduction
    waits for its in-flight reductions here); call it from a hook during backward.
    """
    task = _tasks.current
    if task is None:
        raise BackwardError("queue_callback() can only be called during backward (from a hook)")
    task.callbacks.append(fn)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=None, only_inputs=True, allow_unused_default=False, no_grad_vars=None):
    """The gradients of ``outputs`` with respect to ``inputs``, without touching ``.grad``: a
    tuple, as PyTorch's (``mutograd.compat.paddle.grad`` gives Paddle's list).
    ``no_grad_vars`` (Paddle's): tensors through which no gradient flows, as if they were
    constants.

    Example::

        >>> import mutograd as mg
        >>> x = mg.tensor([1., 2.], requires_grad=True)
        >>> (gx,) = mg.grad((x * x).sum(), [x])
        >>> gx.tolist()
        [2.0, 4.0]
    """
    from ..tensor import Tensor, _wrap, of_type_of
    inputs = [inputs] if isinstance(inputs, Tensor) or is_edge(inputs) else list(inputs)
    outputs = list(outputs) if isinstance(outputs, (list, tuple)) and not is_edge(outputs) \
        else [outputs]
    if retain_graph is None:
        retain_graph = create_graph
    roots = _roots(outputs, grad_outputs, False, create_graph)
    cut = None
    if no_grad_vars is not None:
        cut = {_target_key(t) for t in ([no_grad_vars] if isinstance(no_grad_vars, Tensor)
                                        else no_grad_vars)}
    found = _run(roots, bool(retain_graph), inputs, accumulate=False, graph=create_graph,
                 cut=cut)
    allow = allow_unused_default if allow_unused is None else allow_unused
    res = []
    for t in inputs:
        g = found.get(t)
        if g is None:
            if not allow:
                raise BackwardError("One of the differentiated Tensors appears to not have been "
                                    "used in the graph. Set allow_unused=True if this is the "
                                    "desired behavior.")
            res.append(None)
        else:
            like = t if isinstance(t, Tensor) else None   # a GradientEdge: its place is g's
            if not create_graph:
                res.append(_wrap(g[0] if g[1] else g[0].copy(), like))
                continue
            # a tensor with history: of the input's type, as a first-order gradient
            res.append(g[0] if like is None else of_type_of(g[0], like))
    return tuple(res)


def is_edge(obj):
    """Whether ``obj`` is a GradientEdge (``torch.autograd.graph``): a node and an output
    number, which ``grad()`` and ``backward()`` take where they take a tensor."""
    return type(obj) is GradientEdge


class GradientEdge(collections.namedtuple("GradientEdge", ["node", "output_nr",
                                                            "ownership_token"],
                                          defaults=(None,))):
    """Where a gradient enters the graph, PyTorch's ``torch.autograd.graph.GradientEdge``: a
    node (a leaf's is its AccumulateGrad) and which of its outputs (``ownership_token`` is
    PyTorch's way to keep a Python node alive: here the node itself does)."""

    __slots__ = ()


def _target_key(t):
    """The node (or leaf) where the gradient of ``t`` (a tensor or a GradientEdge) arrives."""
    from ..tensor import Tensor
    if isinstance(t, Tensor):
        if t._base is not None and t._view_version != t._counter.value:
            t._refresh_view()   # a view's history comes from its base's latest write
        return edge_of(t)
    if not is_edge(t):
        raise TypeError(f"inputs must be tensors or GradientEdges, not {type(t).__name__}")
    return t.node


def _roots(tensors, grads, scalar_only, graph=False):
    """Each output's node (or leaf) with its starting gradient: a backend array, or with
    ``graph`` a tensor (the given one itself, so that gradients are differentiable with respect
    to it too, as double-VJP forward mode needs)."""
    from ..tensor import Tensor
    if grads is not None and not isinstance(grads, (list, tuple)):
        grads = [grads]
    roots = []
    for i, t in enumerate(tensors):
        if is_edge(t):
            roots.append(_edge_root(t, None if grads is None else grads[i], graph))
            continue
        if not isinstance(t, Tensor):
            raise TypeError(f"the outputs to differentiate must be tensors, got "
                            f"{type(t).__name__}")
        if not t.requires_grad:
            raise BackwardError("element 0 of tensors does not require grad and does not have a "
                                "grad_fn")
        g = None if grads is None else grads[i]
        xp = t._place.xp
        if g is None:
            if scalar_only and t._data.size != 1:
                raise BackwardError(f"grad can be implicitly created only for scalar outputs; "
                                    f"got shape {list(t.shape)}")
            arr = xp.ones_like(t._data)
        elif graph and isinstance(g, Tensor):
            _check_root_shape(g._data, t)
            arr = g if g._data.dtype == t._data.dtype else g.to(t.dtype)
        else:
            arr = g._data if isinstance(g, Tensor) else xp.asarray(g, dtype=t._data.dtype)
            _check_root_shape(arr, t)
            arr = arr.astype(t._data.dtype, copy=True)
        if graph and not isinstance(arr, Tensor):
            from .graph_arrays import constant
            arr = constant(arr, t)
        roots.append((edge_of(t), arr))
    return roots


def _edge_root(edge, g, graph):
    """A root given as a GradientEdge, with its gradient (required: an edge has no shape)."""
    from ..tensor import Tensor
    if not isinstance(g, Tensor):
        raise BackwardError("grad_outputs must be given, as tensors, for outputs that are "
                            "GradientEdges")
    if graph:
        return _target_key(edge), g
    return _target_key(edge), g._data.copy()


def _check_root_shape(arr, t):
    if arr.shape != t._data.shape:
        raise BackwardError(f"Mismatch in shape: grad_output has a shape of {list(arr.shape)} "
                            f"and output has a shape of {list(t.shape)}")


def _dependencies(roots):
    """How many edges point at each node reachable from the roots, and those nodes."""
    deps = {}
    stack = [n for n, _ in roots]
    seen = set(stack)
    while stack:
        node = stack.pop()
        for e in node.next:
            if e is None:
                continue
            deps[e] = deps.get(e, 0) + 1
            if e not in seen:
                seen.add(e)
                stack.append(e)
    return deps, seen


def _needed(nodes, targets, accumulate):
    """The nodes backward runs when it computes the gradients of ``targets`` only: those from
    which some target can be reached through an edge (the targets' ancestors, found by walking
    the edges backwards once), and with ``accumulate`` (``backward(inputs=...)``) the targets'
    own nodes, which PyTorch runs too (Note [Node hooks])."""
    parents = {}
    for n in nodes:
        for e in n.next:
            if e is not None:
                parents.setdefault(e, []).append(n)
    found = set()
    stack = list(targets)
    while stack:
        for p in parents.get(stack.pop(), ()):
            if p not in found:
                found.add(p)
                stack.append(p)
    if accumulate:
        found |= nodes & targets.keys()
    return found


def _run(roots, retain_graph, only, accumulate, graph=False, cut=None):
    """Run backward from ``roots``. ``graph`` (create_graph): gradients are tensors and every
    node runs its formulas as recorded ops (Note [Differentiable gradient formulas] in
    autograd/graph_arrays.py), with grad mode on; nothing is written in place, so no array has
    an owner. ``only``: the tensors (or GradientEdges) whose gradients are wanted; the others'
    are not computed (Note [Node hooks]). ``cut``: nodes no gradient is sent
    to."""
    deps, nodes = _dependencies(roots)
    buf = {}
    add = _add_graph if graph else _add
    for node, g in roots:
        add(buf, node, g, not graph)
    targets = needed = None
    if only is not None:
        targets = {_target_key(t): t for t in only}
        needed = _needed(nodes, targets, accumulate)
    capturing = targets is not None and not accumulate
    task = _Task()
    task.id, task.nodes = next(_task_ids), nodes
    task.targets, task.needed, task.callbacks = targets, needed, []
    found = {}
    waiting = []   # leaves whose .grad a node may have saved: accumulated after the pass
    sole_root = roots[0][0] if len(roots) == 1 else None
    ready = [n for n, _ in roots if deps.get(n, 0) == 0]
    ready = list(dict.fromkeys(ready))
    prev, outer = _state.enabled, _tasks.current
    _state.enabled = graph
    _tasks.current = task
    checked = Flags.anomaly
    running = sites.running.node   # a backward run from a hook inside a create_graph one
    if graph:
        _graph_backwards(1)
    freed_last = []   # Note [Nodes wrapped by CopySlices] in node.py
    try:
        while ready:
            node = ready.pop()
            entry = buf.pop(node, None)
            if type(node) is AccumulateGrad:
                if entry is None:
                    continue
                if capturing:
                    if node in targets:   # its leaf's hooks run; the accumulation does not
                        g, owned = entry
                        hooks = node.variable.__dict__.get("_hooks")
                        if hooks:
                            g, owned = _run_hooks(hooks, g, owned, graph)
                        found[targets[node]] = (g, owned)
                elif accumulate and (targets is None or node in targets):
                    if graph or not _grad_is_saved(node.variable):
                        _finish_leaf(node, *entry, graph)
                    else:
                        waiting.append((node, entry))
                continue
            runs = needed is None or node in needed
            capture = capturing and node in targets
            if entry is None or not (runs or capture):
                # no gradient reached it (or none is wanted through it): its inputs must not
                # wait for it. The one root of a backward still runs its tensor's hooks and
                # keeps a retained gradient, as in PyTorch (whose engine starts from that node
                # itself; from several roots it starts from a node that feeds only those needed)
                if entry is not None and node is sole_root:
                    _tensor_hooks(node, *entry, graph)
                if runs and not retain_graph:
                    _release(node, freed_last)
                _release_edges(node, deps, ready)
                continue
            g, owned = entry
            if capture and runs:   # Note [Node hooks]: taken before the node's hooks
                found[targets[node]] = (g, owned)
                owned = False
            hooks = node.hooks
            g, owned = _tensor_hooks(node, g, owned, graph)
            if not runs:   # an input of grad() that no other input needs: taken after them
                found[targets[node]] = (g, owned)
                _release_edges(node, deps, ready)
                continue
            if hooks is not None and hooks.pre:
                g, owned = _run_pre_hooks(node, hooks.pre, g, owned, graph)
            if graph:
                sites.running.node = node   # Note [Nodes made by a backward]
                try:
                    grads = node.apply_graph(g) if not checked else \
                        anomaly.checked_apply(node, g, graph=True)
                finally:
                    sites.running.node = None
                claims = [False] * len(grads)
            else:
                into = g if owned else None   # Note [Gradient ownership]
                grads = node.apply(g, into) if not checked else \
                    anomaly.checked_apply(node, g, into)
                claims = _claims(node, g, owned, grads)
            if hooks is not None and hooks.post:
                grads = _run_post_hooks(node, hooks.post, grads, g, graph)
                claims = [False] * len(grads)
            for e, gi, mine in zip(node.next, grads, claims):
                if e is None or gi is None:
                    continue
                if needed is not None and e not in needed and e not in targets:
                    continue
                if cut is not None and e in cut:
                    continue
                add(buf, e, gi, mine)
            if not retain_graph:
                _release(node, freed_last)
            _release_edges(node, deps, ready)
        for node in freed_last:
            node.release()
        for node, entry in waiting:
            _finish_leaf(node, *entry, graph)
        callbacks = task.callbacks
        if outer is None:   # the outermost backward: Paddle's final hooks too
            callbacks += _after_next
            _after_next.clear()
        while callbacks:
            callbacks.pop(0)()
    finally:
        _state.enabled = prev
        _tasks.current = outer
        sites.running.node = running
        if graph:
            _graph_backwards(-1)
    return found


def _tensor_hooks(node, g, owned, graph):
    """Run the hooks of the tensor whose history ``node`` is on the gradient ``g`` reaching it,
    and keep it as that tensor's retained ``.grad``; returns the gradient and its ownership."""
    hooks = node.hooks
    if hooks is not None and hooks.tensor:
        g, owned = _run_hooks(hooks.tensor, g, owned, graph)
    if node.retained is not None:
        t = node.retained()
        if t is not None:
            _keep_grad(t, g, owned)
            owned = False
    return g, owned


def _release(node, freed_last):
    """Free what ``node`` saved, now or, for a CopySlices and the node it wraps, after the pass
    (Note [Nodes wrapped by CopySlices] in node.py)."""
    if _node.wrapped_any and node in _node.FREED_LAST:
        freed_last.append(node)
    else:
        node.release()


_graph_lock = threading.Lock()
_graph_count = 0   # create_graph backwards running, in all threads


def _graph_backwards(n):
    """Count the create_graph backwards running; while any runs, nodes record which backward
    made them (Note [Nodes made by a backward] in autograd/sites.py)."""
    global _graph_count
    with _graph_lock:
        _graph_count += n
        _node.here = sites.here_in_backward if _graph_count else sites.here


def _root(a):
    """The array that owns the memory ``a`` looks into (``a`` itself when it owns it)."""
    b = a.base
    while b is not None:
        a, b = b, getattr(b, "base", None)
    return a


def _claims(node, g, owned, grads):
    """Which of a node's gradients the engine owns (Note [Gradient ownership])."""
    if node.user_code:
        return [False] * len(grads)
    if len(grads) == 1:   # the common case: nothing to share with
        gi = grads[0]
        return (gi is None or type(gi) is RegionGrad or _claim(gi, _root(gi), g, owned),)
    first = None   # the next most common: one array among them (x * w, w needing none)
    for gi in grads:
        if gi is not None and type(gi) is not RegionGrad:
            if first is not None:
                break
            first = gi
    else:
        if first is None:
            return [True] * len(grads)
        return [gi is not first or _claim(gi, _root(gi), g, owned) for gi in grads]
    roots = []
    counts = {}
    for gi in grads:
        r = None
        if gi is not None and type(gi) is not RegionGrad:
            r = _root(gi)
            counts[id(r)] = counts.get(id(r), 0) + 1
        roots.append(r)
    return [r is None or (counts[id(r)] == 1 and _claim(gi, r, g, owned))
            for gi, r in zip(grads, roots)]


def _claim(gi, root, g, owned):
    """Whether the engine owns ``gi`` (with memory owner ``root``), which no other gradient of
    its node shares."""
    if not gi.ndim or not writeable(gi):
        return False
    if root is _root(g):   # the incoming gradient, or a reshaped/transposed view of all of it
        return owned and gi.size == g.size
    return gi.base is None or fresh(gi)


def _release_edges(node, deps, ready):
    """``node`` is done: each input node waits for one edge less and is ready when none is
    left. A leaf's AccumulateGrad runs as soon as it is ready, before any other node, as in
    PyTorch: once every edge into a leaf is done its gradient is final, and accumulating it
    then (not after the whole graph) lets post-accumulate hooks start work, such as a
    distributed reduction, while the rest of backward runs."""
    leaves = None
    for e in node.next:
        if e is None:
            continue
        left = deps[e] - 1
        deps[e] = left
        if left == 0:
            if type(e) is AccumulateGrad:
                if leaves is None:
                    leaves = []
                leaves.append(e)
            else:
                ready.append(e)
    if leaves is not None:
        ready += reversed(leaves)   # popped next, in the order of the edges


def _grad_is_saved(leaf):
    """Whether some node may have saved ``leaf.grad`` (a ``.grad`` made with create_graph and
    used since): accumulating into it in place before that node runs would be the version
    error, so it waits for the end of the pass (PyTorch's order runs that node first too)."""
    cur = leaf.__dict__.get("_grad")
    return cur is not None and cur._counter.watched


def _finish_leaf(acc, g, owned, graph=False):
    """Run AccumulateGrad ``acc``: its leaf's gradient hooks, the accumulation into ``.grad``,
    then its post-accumulate hooks (Note [Node hooks]).

    ``_pre_acc_hooks`` (internal: ``hook(leaf)``, no gradient wrapped) may point ``.grad`` at
    the buffer to accumulate into, as data-parallel gradient buckets do.
    """
    leaf = acc.variable
    if leaf.grad_fn is not None:
        # a view made a leaf by requires_grad_(), whose base was written with grad since: its
        # history now comes from the base (as in PyTorch, an error rather than a lost gradient)
        raise BackwardError(
            f"leaf variable has been moved into the graph interior: a view of shape "
            f"{list(leaf.shape)} was made a leaf with requires_grad_(), then its base was "
            f"written in place with grad mode on. Call requires_grad_() on the base, or on a "
            f"clone() of the view.")
    d = leaf.__dict__
    hooks = d.get("_hooks")
    if hooks:
        g, owned = _run_hooks(hooks, g, owned, graph)
    acc_hooks = acc.hooks
    if acc_hooks is not None and acc_hooks.pre:
        g, owned = _run_pre_hooks(acc, acc_hooks.pre, g, owned, graph)
    for hook in d.get("_pre_acc_hooks", ()):
        hook(leaf)
    if graph:
        _accumulate_graph(leaf, g)
    else:
        _accumulate(leaf, g, owned)
    for hook in list(d.get("_post_acc_hooks", ())):
        hook(leaf)
    if acc_hooks is not None and acc_hooks.post:
        _run_post_hooks(acc, acc_hooks.post, [], g, graph)


def _add(buf, key, g, owned):
    entry = buf.get(key)
    if type(g) is RegionGrad:
        if entry is not None and entry[1] and entry[0].shape == g.shape and \
                entry[0].dtype == g.dtype:
            g.add_into(entry[0])
            return
        g, owned = g.materialize(), True
    if entry is None:
        buf[key] = (g, owned)
    elif entry[1] and entry[0].shape == g.shape and entry[0].dtype == g.dtype:
        acc = entry[0]
        acc += g
    else:
        total = entry[0] + g
        if isinstance(total, np.generic):   # NumPy gives a scalar for two 0-d arrays
            total = np.asarray(total)
        buf[key] = (total, total.ndim > 0)


def _add_graph(buf, key, g, owned):
    """:func:`_add` in graph mode: gradients are tensors, summed out of place (recorded). A sum
    takes its first term's layout (Note [Result layouts] in ops/registry.py), and which term
    PyTorch's engine has first depends on the order it runs nodes in, which is not ours: a term
    in C order goes first, so that the sum's layout does not depend on that order."""
    entry = buf.get(key)
    if entry is None:
        buf[key] = (g, False)
        return
    a = entry[0]
    fa, fg = getattr(a._data, "flags", None), getattr(g._data, "flags", None)
    if fa is not None and fg is not None and fg.c_contiguous and not fa.c_contiguous:
        a, g = g, a
    buf[key] = (a + g, False)


def _run_hooks(hooks, g, owned, graph=False):
    from ..tensor import Tensor, _wrap
    from ..transfer import on_place, place_of_array
    if graph:   # the gradient is a tensor with history: hooks see it and may replace it
        for hook in list(hooks):
            r = hook(g)
            if r is not None:
                _hook_result(hook, r._data if isinstance(r, Tensor) else r, g._data)
                g = r
        return g, False
    if not owned:   # a hook may write into its argument: never into an array shared elsewhere
        g = g.copy()
    where = place_of_array(g)   # a hook on a CuPy array's tensor sees its gradient on the GPU
    for hook in list(hooks):
        r = hook(_wrap(g) if where is None else on_place(g, where))
        if r is not None:
            g = _hook_result(hook, r._data if isinstance(r, Tensor) else r, g)
    # a hook may keep the tensor it was given: the array is no longer ours to write into
    return g, False


def _as_tensors(arrays, graph):
    """Gradients as hooks see them: tensors (on the arrays' place), None kept."""
    if graph:
        return tuple(arrays)
    from ..tensor import _wrap
    from ..transfer import on_place, place_of_array
    res = []
    for a in arrays:
        if type(a) is RegionGrad:
            a = a.materialize()
        where = None if a is None else place_of_array(a)
        res.append(None if a is None else _wrap(a) if where is None else on_place(a, where))
    return tuple(res)


def _run_pre_hooks(node, hooks, g, owned, graph):
    """A node's pre-hooks, ``hook(grad_outputs)`` (Note [Node hooks])."""
    if not graph and not owned:   # a hook may write into its argument: never a shared array
        g = g.copy()
    grads = _as_tensors(node.split_grad(g), graph)
    changed = False
    for hook in list(hooks):
        r = hook(grads)
        if r is not None:
            grads, changed = _hook_tuple(hook, r, grads), True
    if not changed:
        return g, False
    return node.join_grad([t if graph or t is None else t._data for t in grads], g), False


def _run_post_hooks(node, hooks, grads, g, graph):
    """A node's post-hooks, ``hook(grad_inputs, grad_outputs)``; returns the gradients for its
    inputs (Note [Node hooks])."""
    grad_inputs = _as_tensors(grads, graph)
    grad_outputs = _as_tensors(node.split_grad(g), graph)
    for hook in list(hooks):
        r = hook(grad_inputs, grad_outputs)
        if r is not None:
            grad_inputs = _hook_tuple(hook, r, grad_inputs)
    return [t if graph or t is None else t._data for t in grad_inputs]


def _hook_tuple(hook, r, before):
    """What a node hook returned in place of the gradients ``before``, checked as PyTorch
    checks it."""
    from ..tensor import Tensor
    if not isinstance(r, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(r).__name__}'")
    if len(r) != len(before):
        raise BackwardError(f"hook '{_hook_name(hook)}' has returned an incorrect number of "
                            f"values (got {len(r)}, but expected {len(before)})")
    for new, old in zip(r, before):
        if new is not None and old is not None:
            if not isinstance(new, Tensor):
                raise TypeError(f"hook '{_hook_name(hook)}' returned a "
                                f"{type(new).__name__}: a node hook returns tensors or None")
            _hook_result(hook, new._data, old._data)
    return r


def _hook_name(hook):
    return getattr(hook, "__qualname__", None) or type(hook).__qualname__


def _hook_result(hook, r, g):
    """What a gradient hook returned, refused unless it has the gradient's shape and dtype:
    PyTorch refuses both ("hook 'name' has changed the size of value"); without the check a
    wrong shape surfaces later as NumPy's "cannot reshape", far from the hook."""
    shape, dtype = getattr(r, "shape", None), getattr(r, "dtype", None)
    if shape == g.shape and dtype == g.dtype:
        return r
    name = _hook_name(hook)
    if shape is None or dtype is None:
        raise BackwardError(f"hook '{name}' returned a {type(r).__name__}: a gradient hook "
                            f"returns a tensor of the gradient's shape and dtype, or None")
    if shape != g.shape:
        raise BackwardError(f"hook '{name}' has changed the size of value: it changed the "
                            f"gradient's shape from {list(g.shape)} to {list(shape)}")
    raise BackwardError(f"hook '{name}' has changed the type of value: it changed the "
                        f"gradient's dtype from {g.dtype} to {dtype}")


def _keep_grad(t, g, owned):
    """A retained gradient accumulates over backward passes, as a leaf's does; out of place,
    since the one kept may be a gradient still flowing in this pass (a tensor retained before
    and after a shape-only in-place op is kept by two nodes)."""
    from ..tensor import Tensor, _wrap
    cur = t.__dict__.get("_grad")
    if isinstance(g, Tensor):   # graph mode: kept with its history, as a recorded copy (the
        # gradient flowing on, or returned by grad(), is another tensor, as in PyTorch)
        t.__dict__["_grad"] = g.clone() if cur is None or cur.shape != g.shape else cur + g
        return
    if cur is not None and cur._data.shape == g.shape:
        t.__dict__["_grad"] = _wrap(cur._data + g, t)
    else:
        t.__dict__["_grad"] = _wrap(g if owned else g.copy(), t)


def _accumulate(leaf, g, owned):
    """Add ``g`` into ``leaf.grad`` (in place when it exists), as PyTorch's AccumulateGrad."""
    from ..tensor import _wrap
    if g.dtype != leaf._data.dtype:
        g, owned = g.astype(leaf._data.dtype), True
    if g.shape != leaf._data.shape:
        raise BackwardError(f"gradient of shape {list(g.shape)} for a leaf of shape "
                            f"{list(leaf.shape)}")
    cur = leaf.__dict__.get("_grad")
    if cur is None:
        leaf.__dict__["_grad"] = _wrap(_in_leaf_layout(leaf, g, owned), leaf)
    else:
        _add_into_grad(cur, g)


# Note [The layout of .grad]
#     PyTorch's gradient layout contract: a leaf's first ``.grad`` is laid out in memory as the
#     leaf is (a row-major parameter gets a row-major gradient, a transposed one a transposed
#     gradient), whatever layout the gradient arrived in; a view of it (``p.grad.view(-1)``)
#     then behaves as in PyTorch. A leaf whose memory is not one dense block (an expanded or
#     strided view made a leaf) gets a row-major gradient. With create_graph it is always a
#     recorded copy.


def _in_leaf_layout(leaf, g, owned):
    """``g``, an array this accumulation may keep when ``owned``, laid out as ``leaf`` is
    (Note [The layout of .grad])."""
    la, flags = leaf._data, getattr(g, "flags", None)
    if flags is None:   # (a batched array inside vmap)
        return g if owned else g.copy()
    if la.flags.c_contiguous or g.ndim < 2 or not memory.non_overlapping_and_dense(la):
        return g if owned and flags.c_contiguous else g.copy(order="C")
    r = leaf._place.xp.empty_like(la)   # order "K": the leaf's order of strides
    if r.strides == g.strides:
        return g if owned else g.copy(order="K")
    r[...] = g
    return r


def _accumulate_graph(leaf, g):
    """:func:`_accumulate` with create_graph: ``.grad`` keeps the gradient's history, so the
    first gradient is stored as a recorded copy and later ones are added out of place, as
    PyTorch's AccumulateGrad does while grad mode is on."""
    if g._data.dtype != leaf._data.dtype:
        g = g.to(leaf.dtype)
    if g.shape != leaf.shape:
        raise BackwardError(f"gradient of shape {list(g.shape)} for a leaf of shape "
                            f"{list(leaf.shape)}")
    cur = leaf.__dict__.get("_grad")
    if cur is not None:
        leaf.__dict__["_grad"] = cur + g
    else:   # a recorded copy in the leaf's layout (Note [The layout of .grad])
        from ..ops.creation import empty_like
        dense = getattr(leaf._data, "flags", None) is None or \
            memory.non_overlapping_and_dense(leaf._data)
        leaf.__dict__["_grad"] = empty_like(
            leaf, dtype=g.dtype, memory_format=None if dense else "contiguous_format").copy_(g)


def _fits(small, big):
    """Whether an array of shape ``small`` broadcasts to exactly ``big``."""
    return len(small) <= len(big) and all(s in (1, b) for s, b in zip(small[::-1], big[::-1]))


def _add_into_grad(cur, g):
    """``cur += g`` for a ``.grad`` tensor: a write like any other (a node may have saved it)."""
    if cur._data.shape != g.shape and not _fits(g.shape, cur._data.shape):
        # .grad reshaped in place since (t_()): PyTorch's error, not NumPy's
        raise ShapeError(f"the size of the gradient, {list(g.shape)}, does not match the size "
                         f"of .grad, {list(cur.shape)}, which was changed in place: it cannot be "
                         f"accumulated; set .grad = None before this backward")
    if cur._counter.guards:   # Note [Mutation of saved tensors]
        before_write(cur, None, "grad accumulation")
    cur._data += g
    cur._counter.bump("grad accumulation")


