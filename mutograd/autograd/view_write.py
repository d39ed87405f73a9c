"""In-place writes through views (DESIGN.md rule 6).

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
from .node import Node


class CopySlices(Node):
    """Backward of an in-place op applied through a view of a base tensor."""

    __slots__ = ("inner", "chain", "xp", "base_shape", "base_dtype", "base_order")

    def name(self):
        return f"CopySlices({self.inner.name()})"

    def apply(self, g):
        xp = self.xp
        # the base's layout, so that the chain's reshapes replay as views
        gb = xp.empty(self.base_shape, self.base_dtype, order=self.base_order)
        gb[...] = g
        region = replay(self.chain, gb, xp)
        inner_grads = self.inner.apply(region.copy())
        if self.next[0] is None:
            return [None] + inner_grads[1:]
        gx = inner_grads[0]
        region[...] = 0 if gx is None else gx
        return [gb] + inner_grads[1:]

    def release(self):
        self.inner.release()

    @property
    def saved(self):
        return self.inner.saved

    @saved.setter
    def saved(self, value):
        pass


def replay(chain, arr, xp):
    """Apply a view's chain of view ops to ``arr`` (the base, or an array shaped like it)."""
    for op, attrs in chain:
        arr = op.fwd(xp, arr, **attrs)
    return arr


def rebase_view(x, op, inputs, arrays, attrs, xp, x_copy):
    """Make ``x._base``'s history a CopySlices node for ``op`` written through view ``x``."""
    from ..ops.registry import _record
    base = x._base
    inner = _record(op, inputs, arrays, x, attrs, xp, x_copy)
    old = base.grad_fn
    node = CopySlices((old,) + inner.next[1:])
    node.inner = inner
    node.chain = x._view_chain
    node.xp = xp
    b = base._data
    node.base_shape, node.base_dtype = b.shape, b.dtype
    node.base_order = "F" if b.flags.f_contiguous and not b.flags.c_contiguous else "C"
    if old is not None and old.retained is not None:
        node.retained, old.retained = old.retained, None
    node.rebased = True   # for graph(): history rewritten by an in-place op
    base.grad_fn = node
    base._rg = True
    return node

