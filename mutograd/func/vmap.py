"""``vmap``: a function of one sample run on a batch of them at once.

Inside, each batched input is a tensor over a ``BatchedArray`` (Note [Batched arrays] in
func/batched_array.py); the function's ops run once on the whole batch through the batching
rules (Note [Batching rules]). Outputs come back with the batch at ``out_dims``.

Note [Differentiating through vmap]
    Gradients *inside* vmap (``vmap(grad(f))``: per-sample gradients) are gradients of one
    sample's function, computed on batched arrays. Gradients *through* vmap (a loss of vmap's
    outputs, differentiated outside) are different: a tensor the function did not get batched
    (a parameter it closes over, an input with ``in_dims=None``) gets the sum over the batch of
    what each sample contributes. So the graph recorded inside stays inside: each output leaves
    vmap with one node, ``VmapBackward``, whose backward runs a backward of that graph again
    inside the vmap level, from the batched inputs' stand-ins (leaves made at entry) and the
    tensors from outside it reaches, then moves each input's gradient back to its batch axis
    and sums the others' over the batch. The graph is cut where it leaves vmap's work: at a
    node that depends on no batched input and saved nothing batched, the gradient is summed
    there and handed to that node, so the graph outside runs once, unbatched. With
    create_graph the gradients are themselves batched graphs, wrapped the same way, so a
    batched graph never escapes its level.
"""
import functools

import numpy as np

from ..autograd import engine
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.node import AccumulateGrad, Node, edge_of
from ..errors import BackwardError
from ..tensor import Tensor, _alias, _wrap
from . import layers
from .batched_array import BatchedArray
from .pytree import broadcast_prefix, tree_flatten, tree_unflatten

__all__ = ["debug_unwrap", "vmap"]


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` mapped over a dimension of its inputs: ``vmap(f)(x)[i] == f(x[i])``.

    ``in_dims``: the batch dimension of each input (an int for all, or a structure matching the
    inputs, None for an input that is not batched); ``out_dims``: where the batch goes in each
    output. ``randomness``: what a random op inside does, ``'error'`` (refuse), ``'same'``
    (one draw for the whole batch) or ``'different'`` (one per sample). ``chunk_size`` runs the
    batch in pieces of that many samples, to bound memory.

        >>> import mutograd as mg
        >>> from mutograd.func import vmap
        >>> x, w = mg.ones(3, 2), mg.tensor([1.0, 2.0])
        >>> vmap(lambda row: (row * w).sum())(x).tolist()
        [3.0, 3.0, 3.0]
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got "
                         f"{chunk_size})")

    @functools.wraps(func)
    def vmapped(*args, **kwargs):
        return _call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs)
    return vmapped


def debug_unwrap(tensor, *, recurse=True):
    """For debugging inside :func:`vmap`: ``tensor`` with its batch dimensions shown, the batch
    first (each enclosing vmap's, outermost first, or only the innermost one with
    ``recurse=False``), detached. A tensor that is not batched is returned as it is: the
    derivative transforms differentiate ordinary tensors, with nothing to unwrap.

        >>> import mutograd as mg
        >>> from mutograd.func import debug_unwrap, vmap
        >>> vmap(lambda x: mg.tensor(list(debug_unwrap(x).shape)))(mg.ones(3, 2)).tolist()
        [[3, 2], [3, 2], [3, 2]]
    """
    arr = tensor._data
    if not isinstance(arr, BatchedArray):
        return tensor
    arr = arr.value
    while recurse and isinstance(arr, BatchedArray):
        arr = arr.value
    return _alias(tensor, arr)


def _name(func):
    return getattr(func, "__name__", None) or repr(func)


def _call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs):
    where = f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>)"
    if not isinstance(in_dims, (int, tuple)) and in_dims is not None:
        raise ValueError(f"{where}: expected `in_dims` to be int or a (potentially nested) "
                         f"tuple matching the structure of inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to "
                         f"add inputs, or you are trying to vmap over a function with no "
                         f"inputs. The latter is unsupported.")
    if isinstance(in_dims, tuple) and len(in_dims) != len(args):
        raise ValueError(f"{where}: in_dims is not compatible with the structure of `inputs`. "
                         f"in_dims has {len(in_dims)} entries but there are {len(args)} "
                         f"inputs.")
    leaves, spec = tree_flatten(args)
    dims = broadcast_prefix(in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args),
                            args, where)
    sizes = []
    for x, d in zip(leaves, dims):
        if d is None:
            continue
        if not isinstance(d, int):
            raise ValueError(f"{where}: in_dims must be ints or None, got {type(d)}")
        if not isinstance(x, Tensor):
            raise ValueError(f"{where}: Got in_dim={d} for an input but the input is of type "
                             f"{type(x)}. We cannot vmap over non-Tensor arguments, please use "
                             f"None as the respective in_dim")
        nd = x.ndim
        if not -nd <= d < nd:
            raise ValueError(f"{where}: Got in_dim={d} for some input, but that input is a "
                             f"Tensor of dimensionality {nd} so expected in_dim to satisfy "
                             f"-{nd} <= in_dim < {nd}.")
        sizes.append(x.shape[d])
    if not sizes:
        raise ValueError(f"{where}: at least one input must be batched: every in_dim is None")
    if len(set(sizes)) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    n = sizes[0]
    if chunk_size is None or chunk_size >= n:
        return _run(func, leaves, dims, spec, n, out_dims, randomness, kwargs)
    return _chunked(func, leaves, dims, spec, n, out_dims, randomness, chunk_size, kwargs)


def _chunked(func, leaves, dims, spec, n, out_dims, randomness, chunk_size, kwargs):
    """vmap over pieces of ``chunk_size`` samples, the outputs joined along their batch
    dimension; with ``randomness='same'`` every piece draws what the first drew."""
    from .. import random
    from ..ops.shaping import cat
    state = random.get_state() if randomness == "same" else None
    pieces = []
    for start in range(0, n, chunk_size):
        size = min(chunk_size, n - start)
        part = [x.narrow(d, start, size) if d is not None else x for x, d in zip(leaves, dims)]
        if state is not None:
            random.set_state(state)
        pieces.append(_run(func, part, dims, spec, size, out_dims, randomness, kwargs))
    outs = [tree_flatten(p)[0] for p in pieces]
    out_spec = tree_flatten(pieces[0])[1]
    odims = _out_dims(out_dims, pieces[0], func)
    joined = [cat([o[k] for o in outs], d) if d is not None else outs[0][k]
              for k, d in enumerate(odims)]
    return tree_unflatten(joined, out_spec)


def _out_dims(out_dims, out, func):
    if not isinstance(out_dims, (int, tuple)) and out_dims is not None:
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): out_dims must be an "
                         f"int, None or a tuple, got {type(out_dims)}")
    if isinstance(out_dims, tuple) and not isinstance(out, tuple):
        out_dims = out_dims[0] if len(out_dims) == 1 else out_dims
    return broadcast_prefix(out_dims, out, f"vmap({_name(func)}, ..., out_dims={out_dims})")


def _run(func, leaves, dims, spec, n, out_dims, randomness, kwargs):
    with layers.running(n, randomness) as level:
        inputs = [_enter(x, d, level) if d is not None else x for x, d in zip(leaves, dims)]
        out = func(*tree_unflatten(inputs, spec), **kwargs)
        flat, out_spec = tree_flatten(out)
        odims = _out_dims(out_dims, out, func)
        res = []
        for o, d in zip(flat, odims):
            if isinstance(o, Tensor):
                o = _exit(o, d, level, func)
            elif d is not None:
                raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return "
                                 f"Tensors, got type {type(o)}. Did you mean to set out_dims= "
                                 f"to None for output?")
            res.append(o)
        return tree_unflatten(res, out_spec)


def _enter(x, dim, level):
    """``x`` batched along ``dim`` at ``level``: a tensor over the same memory and version
    counter; for an input that requires grad, a leaf standing for it (Note [Differentiating
    through vmap])."""
    t = _alias(x, BatchedArray(np.moveaxis(x._data, dim, 0), level.ident))
    if x.requires_grad and is_grad_enabled():
        t.requires_grad_()
        t.__dict__["_stands_for"] = (edge_of(x), dim)
    return t


def _exit(t, dim, level, func):
    """Output ``t`` with the batch at ``dim``; an output that does not depend on the batch is
    broadcast over it (by ordinary ops, so its gradient is their sum)."""
    d = t._data
    batched = isinstance(d, BatchedArray) and d.level == level.ident
    if dim is None:
        if batched:
            raise ValueError(f"vmap({_name(func)}, ..., out_dims=None): the output is batched; "
                             f"out_dims=None is for outputs that do not depend on the batch")
        return t
    nd = len(d.shape) + 1
    if not -nd <= dim < nd:
        raise ValueError(f"vmap({_name(func)}, ...): out_dim={dim} is out of range for an output "
                         f"of {nd - 1} dimensions")
    dim %= nd
    if not batched:
        shape = list(t.shape)
        shape.insert(dim, level.size)
        return t.unsqueeze(dim).expand(shape)
    y = _alias(t, np.moveaxis(d.value, 0, dim))
    if t.requires_grad and is_grad_enabled():
        y.grad_fn = VmapBackward.around(t, level, dim)
        y._rg = True
    return y


class VmapBackward(Node):
    """The backward of a vmap output (Note [Differentiating through vmap]): ``inner`` is the
    output inside vmap; ``targets`` the leaves its gradient is taken for, each standing for the
    edge of the same index (``modes``: the batch dimension there, or None to sum over the
    batch); ``rewire`` the inside edges pointed at the stand-ins of outside nodes while it
    runs."""

    __slots__ = ("dim", "inner", "level", "modes", "rewire", "targets")

    @classmethod
    def around(cls, inner, level, dim):
        targets, edges, modes, rewire = _boundary(inner, level.ident)
        node = cls(tuple(edges), None)
        node.inner, node.level, node.dim = inner, level, dim
        node.targets, node.modes, node.rewire = targets, modes, rewire
        return node

    def name(self):
        return "VmapBackward"

    def release(self):
        self.inner = self.rewire = None

    def _grads(self, g, graph):
        if self.inner is None:
            raise BackwardError("Trying to backward through the graph a second time: "
                                "VmapBackward freed its graph after the first backward. Pass "
                                "retain_graph=True to the first backward() if you need to run "
                                "it again.")
        level = self.level
        if self.targets is None:   # Note [Differentiating through vmap]: nothing batched
            if graph:
                return [g * level.size if self.dim is None else g.sum(self.dim)]
            return [self._batched_grad(g).value.sum(0)]
        with layers.running(level=level):
            if graph:
                gb = _batched_tensor(g, self.dim, level)
            else:
                gb = _wrap(self._batched_grad(g), self.inner)
            restore = _cut(self.rewire)
            try:
                grads = engine.grad([self.inner], self.targets, [gb], retain_graph=True,
                                    create_graph=graph, allow_unused=True)
            finally:
                for node, nxt in restore:
                    node.next = nxt
            convert = _physical_tensor if graph else _physical
            return [None if r is None else convert(r, m, level)
                    for r, m in zip(grads, self.modes)]

    def _batched_grad(self, g):
        ident = self.level.ident
        if self.dim is None:   # the gradient of a sum over the batch
            return BatchedArray(np.broadcast_to(g, (self.level.size,) + tuple(g.shape)), ident)
        return BatchedArray(np.moveaxis(g, self.dim, 0), ident)

    def apply(self, g, into=None):
        return self._grads(g, False)

    def apply_graph(self, g, out=None):
        return self._grads(g, True)


def _physical(r, mode, level):
    """A gradient tensor found inside vmap, as the array of the edge it stands for: moved
    back to the input's batch dimension, or summed over the batch."""
    d = r._data
    if isinstance(d, BatchedArray) and d.level == level.ident:
        return d.value.sum(0) if mode is None else np.moveaxis(d.value, 0, mode)
    # the same for every sample
    if mode is None:
        return d * level.size
    shape = list(d.shape)
    shape.insert(mode, level.size)
    return np.broadcast_to(np.expand_dims(d, mode), tuple(shape))


def _batched_tensor(g, dim, level):
    """The incoming gradient tensor ``g`` (create_graph) batched at ``level``: a leaf standing
    for it when it has history."""
    if dim is None:
        arr = np.broadcast_to(g._data, (level.size,) + tuple(g.shape))
    else:
        arr = np.moveaxis(g._data, dim, 0)
    t = _alias(g, BatchedArray(arr, level.ident))
    if g.requires_grad:
        t.requires_grad_()
        t.__dict__["_stands_for"] = (edge_of(g), dim)
    return t


def _physical_tensor(r, mode, level):
    """:func:`_physical` with create_graph: a tensor whose graph is wrapped in a VmapBackward
    of its own, so that no batched graph leaves the level."""
    d = r._data
    if not (isinstance(d, BatchedArray) and d.level == level.ident):
        if mode is None:
            return r * level.size
        shape = list(r.shape)
        shape.insert(mode, level.size)
        return r.unsqueeze(mode).expand(shape)
    if mode is None:
        y = _wrap(d.value.sum(0), r)
    else:
        y = _alias(r, np.moveaxis(d.value, 0, mode))
    if r.requires_grad:
        y.grad_fn = VmapBackward.around(r, level, mode)
        y._rg = True
    return y


def _cut(rewire):
    """Point inside edges at the stand-ins of the outside nodes (``rewire``: ``(node, index,
    stand-in)``); returns ``(node, old edges)`` to restore."""
    restore = {}
    for node, k, stand in rewire:
        if node not in restore:
            restore[node] = node.next
        nxt = list(node.next)
        nxt[k] = edge_of(stand)
        node.next = tuple(nxt)
    return list(restore.items())


def _saves_batched(node, ident):
    """Whether ``node`` saved a value batched at level ``ident`` (or something it cannot tell:
    a packed value, a custom function's context)."""
    if getattr(node, "ctx", None) is not None:
        return True
    saved = getattr(node, "saved", None)
    if not saved:
        return False
    for rec in saved.values() if isinstance(saved, dict) else saved:
        a = rec[0] if type(rec) is tuple else rec
        if isinstance(a, BatchedArray) and a.level >= ident or type(rec).__name__ == "Packed":
            return True
    return False


def _postorder(root):
    """The nodes reachable from ``root``, each after every node below it."""
    order, seen, stack = [], {root}, [(root, 0)]
    while stack:
        node, i = stack.pop()
        nxt = node.next
        while i < len(nxt):
            e = nxt[i]
            i += 1
            if e is not None and type(e) is not AccumulateGrad and e not in seen:
                seen.add(e)
                stack.append((node, i))
                stack.append((e, 0))
                break
        else:
            order.append(node)
    return order


def _batched_leaf(t, ident):
    d = t._data
    return isinstance(d, BatchedArray) and d.level == ident


def _boundary(inner, ident):
    """``(targets, edges, modes, rewire)`` of a VmapBackward around ``inner`` (Note
    [Differentiating through vmap]). A node is inside when it reaches a leaf batched at this
    level or saved a batched value; the leaves inside nodes reach that stand for something
    outside (a batched input, an incoming gradient, a tensor from outside that requires grad)
    are targets, and each outside node an inside node points at gets a stand-in leaf. When
    ``inner``'s own node is outside, targets is None: its gradient is the batch's sum."""
    targets, edges, modes, rewire = [], [], [], []
    seen = set()

    def target(leaf):
        if leaf in seen:
            return
        seen.add(leaf)
        stands = leaf.__dict__.get("_stands_for")
        if stands is not None:
            edge, mode = stands
        elif leaf.requires_grad and not _batched_leaf(leaf, ident):
            edge, mode = edge_of(leaf), None
        else:   # a leaf made inside the function: nothing outside sees its gradient
            return
        targets.append(leaf)
        edges.append(edge)
        modes.append(mode)

    root = inner.grad_fn
    if root is None:
        target(inner)
        return targets, edges, modes, rewire
    order = _postorder(root)
    inside = {}
    for node in order:
        inside[node] = _saves_batched(node, ident) or any(
            e is not None and (_batched_leaf(e.variable, ident) if type(e) is AccumulateGrad
                                else inside[e])
            for e in node.next)
    stands = {}
    for node in order:
        if not inside[node]:
            continue
        for k, e in enumerate(node.next):
            if e is None:
                continue
            if type(e) is AccumulateGrad:
                target(e.variable)
                continue
            if inside[e]:
                continue
            s = stands.get(e)
            if s is None:
                s = stands[e] = _stand_in(e, inner)
                target(s)
            rewire.append((node, k, s))
    if not inside[root]:   # nothing batched: the whole graph is outside
        return None, [root], [None], None
    return targets, edges, modes, rewire


def _stand_in(node, like):
    """A leaf that stands for outside node ``node`` in a backward inside vmap."""
    s = _wrap(np.empty(0, like._data.dtype), like)
    s.requires_grad_()
    s.__dict__["_stands_for"] = (node, None)
    return s
