"""``mutograd.autograd.graph``: reading a backward graph, and the saved-tensor policies.

The module is callable: ``mg.autograd.graph(y)`` is :func:`graph` (a text tree and Graphviz dot
text, no graphviz needed), and it holds PyTorch's ``torch.autograd.graph`` names for what
backward nodes keep (autograd/saved.py): ``saved_tensors_hooks``, ``save_on_cpu``,
``disable_saved_tensors_hooks``, ``allow_mutation_on_saved_tensors`` and ``increment_version``.

    >>> import mutograd as mg
    >>> a = mg.ones([2], requires_grad=True)
    >>> h = a * 2
    >>> y = h.exp_()
    >>> print(mg.autograd.graph(y))                     # doctest: +ELLIPSIS
    tensor [2] float32, version 1
    #1 ExpBackward0 [in-place] saves out v1 ...
    └── #2 MulBackward0 ...
        └── #3 AccumulateGrad: leaf tensor [2] float32 ...

It also holds PyTorch's names for the graph's structure: :class:`Node` (``isinstance(y.grad_fn,
Node)``), :class:`GradientEdge` and :func:`get_gradient_edge` (an input of ``grad()`` given by
where its gradient arrives), and :func:`register_multi_grad_hook`.

Nodes created by an in-place op that rewrote a tensor's history (design.md rules 5 and 6) are
marked ``[in-place]``; each saved value shows the version it was saved at and ``STALE`` when its
tensor was written since (backward through that node would raise).
"""
import abc
import functools
import sys
import threading
import types

from . import node as _node
from . import sites
from .engine import GradientEdge, current_task_id, will_execute
from .node import _FREED, AccumulateGrad, Packed, accumulator, edge_of
from .saved import (
    allow_mutation_on_saved_tensors,
    disable_saved_tensors_hooks,
    increment_version,
    save_on_cpu,
    saved_tensors_hooks,
)

__all__ = ["GradientEdge", "Node", "allow_mutation_on_saved_tensors",
           "disable_saved_tensors_hooks", "get_gradient_edge", "graph", "increment_version",
           "register_multi_grad_hook", "save_on_cpu", "saved_tensors_hooks"]


class Node(abc.ABC):
    """What every backward node is an instance of, AccumulateGrad included (PyTorch's
    ``torch.autograd.graph.Node``): ``name()``, ``next_functions``, ``metadata``,
    ``register_hook`` and ``register_prehook``."""

    @classmethod
    def __subclasshook__(cls, sub):
        if cls is Node and issubclass(sub, _node.Node):
            return True
        return NotImplemented


def get_gradient_edge(tensor):
    """The :class:`GradientEdge` where the gradient of ``tensor`` arrives: ``grad(out,
    get_gradient_edge(t))`` is ``grad(out, t)``, and still works after ``t`` itself is gone.

        >>> import mutograd as mg
        >>> x = mg.ones([2], requires_grad=True)
        >>> y = x * 2
        >>> edge = mg.autograd.graph.get_gradient_edge(y)
        >>> mg.grad((y * y).sum(), edge)[0].tolist()
        [4.0, 4.0]
    """
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does "
                           "not require gradients")
    if tensor._base is not None and tensor._view_version != tensor._counter.value:
        tensor._refresh_view()
    fn = tensor.grad_fn
    if fn is None:
        return GradientEdge(accumulator(tensor), 0)
    return GradientEdge(fn, fn.output_nr)


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Call ``fn`` once the gradients of ``tensors`` are computed in a backward: ``mode="all"``
    calls ``fn(grads)`` when every one that this backward computes is known (None for the
    others); ``mode="any"`` calls ``fn(grad)`` with the first. PyTorch's
    ``torch.autograd.graph.register_multi_grad_hook``; ``fn`` must not change its arguments.

        >>> import mutograd as mg
        >>> a, b = mg.ones([2], requires_grad=True), mg.ones([2], requires_grad=True)
        >>> seen = []
        >>> h = mg.autograd.graph.register_multi_grad_hook(
        ...     (a, b), lambda gs: seen.append([g is not None for g in gs]))
        >>> (a * 2).sum().backward()
        >>> seen
        [[True, False]]
    """
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    lock = threading.Lock()
    if mode == "any":
        ran = set()

        @functools.wraps(fn)
        def first(grad):
            with lock:
                task = current_task_id()
                if task in ran:
                    return
                ran.add(task)
            fn(grad)
        return _MultiHandle([t.register_hook(first) for t in tensors])
    nodes = [edge_of(t) for t in tensors]
    waiting = {}   # task id -> [calls still expected, the gradients so far]

    def inner(i):
        def hook(grad):
            with lock:
                task = current_task_id()
                state = waiting.get(task)
                if state is None:
                    state = waiting[task] = [sum(map(will_execute, nodes)), [None] * len(nodes)]
                state[1][i] = grad
                state[0] -= 1
                done = state[0] == 0
                if done:
                    del waiting[task]
            if done:
                fn(state[1])
        return hook
    return _MultiHandle([t.register_hook(inner(i)) for i, t in enumerate(tensors)])


class _MultiHandle:
    """The handle of a multi-grad hook: ``remove()`` takes out the hook of every tensor."""

    def __init__(self, handles):
        self.handles = tuple(handles)

    def remove(self):
        for h in self.handles:
            h.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class GraphText(str):
    """The text tree of a graph (a ``str``); ``.dot()`` gives the same graph as Graphviz dot."""

    def dot(self):
        return _dot(self._root)


def graph(tensor, format="text"):
    """The backward graph of ``tensor``: a text tree (``format="text"``) or dot text ("dot").

    Example::

        print(mutograd.autograd.graph(loss))
        open("loss.dot", "w").write(mutograd.autograd.graph(loss, format="dot"))
    """
    if format == "dot":
        return _dot(tensor)
    if format != "text":
        raise ValueError(f"graph(): format must be 'text' or 'dot', not {format!r}")
    text = GraphText(_text(tensor))
    text._root = tensor
    return text


def _walk(tensor):
    """Nodes reachable from ``tensor``, numbered in depth-first order."""
    root = edge_of(tensor)
    ids = {}
    order = []
    stack = [root]
    while stack:
        n = stack.pop()
        if id(n) in ids:
            continue
        ids[id(n)] = len(order) + 1
        order.append(n)
        stack.extend(reversed([e for e in _edges(n)]))
    return root, ids, order


def _edges(n):
    return [e for e in n.next if e is not None]


def _label(n):
    if type(n) is AccumulateGrad:
        n = n.variable
        site = n.__dict__.get("_site")
        where = f" @ {sites.fmt(site)}" if site is not None else ""
        name = n.__dict__.get("name")
        what = f"'{name}' " if name else ""
        return f"AccumulateGrad: leaf tensor {what}{list(n.shape)} {n._data.dtype}{where}"
    parts = [n.name()]
    if getattr(n, "rebased", False):
        parts.append("[in-place]")
    saved = _saved(n)
    if saved:
        parts.append("saves " + ", ".join(saved))
    site = getattr(n, "created_at", None)
    if site is None and hasattr(n, "inner"):   # a view write: the line of its op
        site = getattr(n.inner, "created_at", None)
    if site is not None:
        parts.append(f"@ {sites.fmt(site)}")
    return " ".join(parts)


def _saved(n):
    """``name vN`` for each version-checked saved value (``STALE`` when written since)."""
    saved = getattr(n, "saved", None)
    if saved is None and hasattr(n, "ctx"):   # a custom Function keeps them on its ctx
        saved = dict(enumerate(n.ctx._saved))
    if saved is _FREED:
        return ["(freed by backward)"]
    if not saved:
        return []
    out = []
    for key, rec in saved.items():
        if rec is _FREED:         # Node.release frees saved tensors and keeps constants
            out.append(f"{key} (freed by backward)")
            continue
        if type(rec) is Packed:
            out.append(f"{key} (packed by a saved_tensors_hooks pack hook)")
            continue
        if type(rec) is not tuple:
            continue
        counter, version = rec[1], rec[2]
        guard = rec[5] if len(rec) > 5 else None
        if counter is None:
            out.append(f"{key} (copy)")
        elif counter.value != version and guard is not None and guard.covers(counter.value):
            out.append(f"{key} v{version} written since (now v{counter.value}); "
                       f"{guard.nbytes} bytes kept to restore it")
        elif counter.value != version:
            out.append(f"{key} v{version} STALE (now v{counter.value})")
        else:
            out.append(f"{key} v{version}")
    return out


def _text(tensor):
    name = tensor.__dict__.get("name")
    head = (f"tensor {f'{name!r} ' if name else ''}{list(tensor.shape)} {tensor._data.dtype}, "
            f"version {tensor._counter.value}")
    if tensor.grad_fn is None and not tensor._rg:
        return head + "\n(no graph: the tensor does not require grad)"
    root, ids, _ = _walk(tensor)
    lines = [head]
    shown = set()
    stack = [(root, "", "", True)]   # node, prefix of its line, prefix of its children, is root
    while stack:
        n, lead, child_lead, _ = stack.pop()
        i = ids[id(n)]
        if i in shown:
            lines.append(f"{lead}#{i} {_short(n)} (shown above)")
            continue
        shown.add(i)
        lines.append(f"{lead}#{i} {_label(n)}")
        kids = _edges(n)
        for k, e in reversed(list(enumerate(kids))):
            last = k == len(kids) - 1
            stack.append((e, child_lead + ("└── " if last else "├── "),
                          child_lead + ("    " if last else "│   "), False))
    return "\n".join(lines)


def _short(n):
    return "AccumulateGrad" if type(n) is AccumulateGrad else n.name()


def _dot(tensor):
    """Graphviz dot text; edges run from an input's node to the node that consumes it."""
    lines = ["digraph mutograd {", '  node [shape=box, fontname="monospace"];']
    if tensor.grad_fn is None and not tensor._rg:
        lines.append('  n0 [label="no graph: the tensor does not require grad"];')
        return "\n".join(lines + ["}"]) + "\n"
    root, ids, order = _walk(tensor)
    for n in order:
        attrs = [f'label="{_escape(_label(n))}"']
        if type(n) is AccumulateGrad:
            attrs += ["shape=ellipse", "style=filled", 'fillcolor="lightblue"']
        elif getattr(n, "rebased", False):
            attrs += ["style=filled", 'fillcolor="orange"']
        if n is root:
            attrs.append("penwidth=2")
        lines.append(f"  n{ids[id(n)]} [{', '.join(attrs)}];")
    for n in order:
        for e in _edges(n):
            lines.append(f"  n{ids[id(e)]} -> n{ids[id(n)]};")
    return "\n".join(lines + ["}"]) + "\n"


def _escape(text):
    return text.replace("\\", "\\\\").replace('"', '\\"')


class _CallableModule(types.ModuleType):
    """This module's class: calling the module is calling :func:`graph`.

    ``mg.autograd.graph(y)`` predates the saved-tensor policies, which PyTorch keeps in a module
    of the same name (``torch.autograd.graph``). A module whose class defines ``__call__`` lets
    one name be both, so ``from mutograd.autograd.graph import saved_tensors_hooks`` and
    ``mg.autograd.graph.saved_tensors_hooks`` work and the old call keeps working, without a
    second spelling of either.
    """

    def __call__(self, tensor, format="text"):
        return graph(tensor, format)


sys.modules[__name__].__class__ = _CallableModule
