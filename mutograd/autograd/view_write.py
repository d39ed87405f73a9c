"""In-place writes through views (design.md rule 6).

Note [Writing through a view]
    ``v.op_(...)`` where ``v`` views ``base`` changes ``base``'s values, so it must change
    ``base``'s history. ``base.grad_fn`` becomes a :class:`CopySlices` node whose inputs are
    ``base``'s previous history and the op's other inputs. Its backward takes the gradient of the
    whole base, replays the view's chain of view ops on it to find the view's region, runs the
    op's own backward on that region, writes the gradient for the old values back into the region
    and passes the rest of the base's gradient through unchanged. The node keeps the chain (view
    geometry) and the op's own saved values, never a copy of the base. The view itself gets a new
    ``grad_fn`` from the base the next time it is used (Note [Views and their history]).
"""
import weakref

import numpy as np

from ..errors import InplaceError
from . import node as _node
from .node import Node, move_retained


# Note [Writes through overlapping views]
#     A view whose elements share locations (an expand; unfold's windows) can be written in
#     place only by a fill (design.md rule 10). The incoming gradient is the base's, one per
#     location: the written view's elements get it once per location (the first element that
#     addresses it), the fill's own gradient maps that to the old view's elements, and a
#     location's old value gets the sum over the elements that address it.


class CopySlices(Node):
    """Backward of an in-place op applied through a view of a base tensor."""

    __slots__ = ("base_dtype", "base_order", "base_shape", "chain", "inner", "view", "written",
                 "xp")

    def name(self):
        return f"CopySlices({self.inner.name()})"

    def apply(self, g, into=None):
        xp = self.xp
        # the base's layout, so that the chain's reshapes replay as views
        gb = xp.empty(self.base_shape, self.base_dtype, order=self.base_order)
        gb[...] = g
        region = replay(self.chain, gb, xp)
        g_in = region.copy()
        if internal_overlap(region):    # a fill through an expand: count each location once
            g_in *= self._first_visits(xp, region.shape)
        inner_grads = list(self.inner.apply(g_in, g_in))   # g_in is this node's own copy
        gx = inner_grads.pop(self.written)
        if self.next[0] is None:
            return [None] + inner_grads
        if gx is not None and internal_overlap(region):
            # Note [Writes through overlapping views]: a location's gradient is the sum over
            # the elements that address it
            pos = self._positions(xp)
            flat = gb.ravel()   # (logical order: a copy when gb is F-ordered)
            flat[pos] = 0
            xp.add.at(flat, pos, gx.ravel())
            gb[...] = flat.reshape(gb.shape)
        else:
            region[...] = 0 if gx is None else gx
        return [gb] + inner_grads

    def apply_graph(self, g, out=None):
        """``apply`` on tensors (Note [Differentiable gradient formulas]): the same steps as
        recorded ops, the region written into a recorded copy of ``g``."""
        # a recorded copy of g, in the base's layout as ``apply``'s buffer: the chain's
        # as_strided and reshapes replay on it as they did on the base
        c_order = self.base_order == "C" and not g._data.flags.c_contiguous
        gb = g.contiguous() if c_order else g.clone()
        g_in = replay_tensor(self.chain, gb).clone()
        region = replay(self.chain, gb._data, self.xp)
        if internal_overlap(region):
            from .graph_arrays import constant
            g_in = g_in * constant(self._first_visits(self.xp, region.shape), g)
        inner_grads = list(self.inner.apply_graph(g_in, out=self._written_value()))
        gx = inner_grads.pop(self.written)
        if self.next[0] is None:
            return [None] + inner_grads
        view = replay_tensor(self.chain, gb)
        if gx is None:
            view.zero_()
        elif internal_overlap(region):   # Note [Writes through overlapping views], by
            # recorded index writes (copy_ into overlapping memory is refused: DESIGN rule 10)
            from .. import index_put_
            from .graph_arrays import constant
            pos = constant(self._positions(self.xp), g)
            flat = gb.reshape(-1)
            flat[pos] = 0.0
            index_put_(flat, (pos,), gx.reshape(-1), accumulate=True)
            gb = flat.reshape(self.base_shape)
        else:
            view.copy_(gx)
        return [gb] + inner_grads

    def _written_value(self):
        """The written view's value after the write, as a view of a tensor whose history is
        this node (what the inner op's gradient calls ``out``), with the saved version checks;
        None when the inner op did not save its output."""
        saved = self.inner.saved
        if not saved or "out" not in saved:
            return None
        from ..tensor import _borrow
        arr = self.inner.unpack("out")
        rec = saved["out"]
        view = self.view()
        if view is not None and type(rec) is tuple and view._counter is rec[1] and \
                view._data is arr and view.requires_grad:   # (requires_grad refreshes its
            # history) the written view itself, as PyTorch saves it: its retain_grad and hooks
            # see this gradient too
            t = _borrow(arr, rec[1])
            t.grad_fn, t._rg = view.grad_fn, True
            return t
        base = _borrow(self.xp.zeros(self.base_shape, self.base_dtype, order=self.base_order),
                       rec[1] if type(rec) is tuple else None)
        replay(self.chain, base._data, self.xp)[...] = arr
        base.grad_fn, base._rg = self, True
        return replay_tensor(self.chain, base)

    def history(self, key):
        return self.inner.history(key)

    def _positions(self, xp):
        """The flat (C-order) position in the base of each element of the region."""
        ids = xp.empty(self.base_shape, xp.int64, order=self.base_order)
        ids[...] = xp.arange(ids.size).reshape(self.base_shape)
        return replay(self.chain, ids, xp).ravel()

    def _first_visits(self, xp, shape):
        """1 where an element of the region is the first to address its memory location."""
        pos = self._positions(xp)
        first = xp.zeros(pos.size, bool)
        first[xp.unique(pos, return_index=True)[1]] = True
        return first.reshape(shape)

    def release(self):
        self.inner.release()

    @property
    def saved(self):
        return self.inner.saved

    @saved.setter
    def saved(self, value):
        pass


def internal_overlap(a):
    """Whether two elements of array ``a`` share a memory location (expand, as_strided windows).

    Sorted by stride, a layout has no overlap when each stride steps past everything the smaller
    strides reach; only when that quick test fails are the addresses counted.
    """
    if a.size < 2 or a.flags.c_contiguous or a.flags.f_contiguous:
        return False
    dims = sorted((abs(st), n) for st, n in zip(a.strides, a.shape) if n > 1)
    reach = a.itemsize
    for st, n in dims:
        if st < reach:
            break
        reach += st * (n - 1)
    else:
        return False
    if dims[0][0] == 0 or a.size > 1 << 22:
        return True
    offsets = 0
    for st, n in dims:
        offsets = np.add.outer(offsets, np.arange(n) * st)
    return np.unique(offsets).size < a.size


def replay(chain, arr, xp):
    """Apply a view's chain of view ops to ``arr`` (the base, or an array shaped like it)."""
    for op, attrs in chain:
        arr = op.fwd(xp, arr, **attrs)
    return arr


def replay_tensor(chain, t):
    """:func:`replay` on a tensor, as recorded view ops (graph mode)."""
    from .dispatch import run
    for op, attrs in chain:
        t = run(op, [t], attrs)
    return t


def check_base_overlap(v):
    """Refuse to give ``v`` a history again when its base requires grad and has elements that
    share one memory location (``x.expand(3).detach().requires_grad_()``): after a write, which
    element of the base the view's gradient belongs to is ambiguous (PyTorch spreads it evenly
    over the elements that share the location, where its view ops give each its own)."""
    base = v._base
    if base._rg and internal_overlap(base._data):
        chain = v._view_chain
        made_by = chain[-1][0].name if chain else "a view op"
        raise InplaceError(
            f"this view (made by {made_by}) is used after a write into its base, whose elements "
            f"share one memory location (shape {list(base.shape)}, strides "
            f"{[st // base._data.itemsize for st in base._data.strides]}: an expand). Which "
            f"element the view's gradient belongs to is then ambiguous; make the base with "
            f"its own memory (.clone()) before it requires grad, or take the view again.")


def check_layout(v):
    """Refuse to replay ``v``'s chain when it no longer finds ``v``'s region in its base.

    The chain finds the view's region by repeating the view ops on the base's array. When the
    base's array was replaced since ``v`` was made (a new layout from ``t_()``/``reshape_()``, new
    data from ``x.data = t``), the chain is replayed once on the new array: if it gives exactly
    ``v``'s memory it is still good; otherwise using ``v`` with grad would send its gradient to
    the wrong place, so this is an error (Note [Views and their history] in tensor.py).
    """
    base = v._base
    old, now = v._base_arr, base._data
    if old is None or old is now:
        return
    from ..tensor import _address
    mine = v._data
    try:
        r = replay(v._view_chain, now, base._place.xp)
        same = r.shape == mine.shape and (mine.size == 0 or (_address(r) == _address(mine) and all(
            a == b for a, b, n in zip(r.strides, mine.strides, mine.shape) if n > 1)))
    except (ValueError, TypeError, IndexError):   # the chain does not apply to the new layout
        same = False
    if same:
        v._base_arr = now
        return
    chain = v._view_chain
    made_by = chain[-1][0].name if chain else "a view op"
    raise InplaceError(
        f"this view (made by {made_by}) was taken from a tensor whose layout has changed in "
        f"place since (it had shape {list(old.shape)} and strides "
        f"{[s // old.itemsize for s in old.strides]}, it has shape {list(now.shape)} and strides "
        f"{[s // now.itemsize for s in now.strides]}: t_(), reshape_(), .data = ...). Its "
        f"gradient cannot be traced back to the base; take the view again after the change.")


def rebase(x, node, written=0):
    """design.md rules 5 and 6: ``node``, the backward of an in-place write into ``x`` (its
    input ``written``), becomes the new history of ``x``, or of ``x``'s base when ``x`` is a
    view (wrapped in a CopySlices node). Returns the node that became the history."""
    base = x._base
    if base is not None:
        node = _copy_slices(x, base, node, written)
        x = base
    old = x.grad_fn
    move_retained(old, node)
    node.rebased = True   # for graph(): history rewritten by an in-place op
    x.__dict__.pop("_hook_node", None)   # later hooks go to the new history (Tensor._hook_node)
    x.grad_fn = node
    x._rg = True
    return node


def _copy_slices(x, base, inner, written):
    """A CopySlices node for ``inner`` written through view ``x`` of ``base``."""
    edges = inner.next
    node = CopySlices((base.grad_fn,) + edges[:written] + edges[written + 1:])
    node.inner = inner
    _node.FREED_LAST.add(inner)   # Note [Nodes wrapped by CopySlices] in node.py
    _node.FREED_LAST.add(node)
    _node.wrapped_any = True
    node.written = written
    node.view = weakref.ref(x)
    node.chain = x._view_chain
    node.xp = base._place.xp
    b = base._data
    node.base_shape, node.base_dtype = b.shape, b.dtype
    node.base_order = "F" if b.flags.f_contiguous and not b.flags.c_contiguous else "C"
    return node

