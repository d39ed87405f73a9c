"""Backward nodes of declared ops, and fitting a gradient to its input's shape and dtype.

An op declared with ``defop`` (ops/registry.py) gets a subclass of :class:`OpNode` named
``<Op>Backward``; its gradient formulas receive what the declaration's parameter names ask for
(Note [Reusing the incoming gradient] in ops/registry.py).
"""
import math
import weakref

from .. import memory
from ..tensor import Tensor
from .engine import RegionGrad
from .graph_arrays import GraphArray, _lib, constant, graph_namespace, with_kink_edge
from .node import DeadEnd, Node


# Note [Gradients of replayed views]
#     A view used after its base was written gets its history again by replaying its view ops on
#     the base (Tensor._refresh_view). PyTorch regenerates it as one as_strided node instead,
#     whose gradient is always a view of a new flat storage laid out as the base
#     (as_strided_backward builds it in the base's geometry); the replayed node that leads to the
#     base is marked (kept in ``REPLAYED``, with the base's strides), and under create_graph its
#     gradient is such a view too, written by a recorded copy, so that a later write into the
#     returned gradient or into a view of it, a hook on it (dropped when a write regenerates the
#     view's history) and ``requires_grad_()`` on it act on the same tensors as in PyTorch.
#     For an empty view it is zeros with no history, as as_strided_backward gives for an empty
#     output, however large the views in between.

REPLAYED = weakref.WeakKeyDictionary()   # node -> (the base's strides, whether the view is empty)


def _in_base_layout(gi, xp, strides):
    """Gradient ``gi`` copied, by a recorded op, into a view of a new flat storage laid out
    with the base's ``strides`` (Note [Gradients of replayed views])."""
    a = gi._data
    # as PyTorch's as_strided_backward: a view of a new flat storage, dense in the base's order
    # of strides, written by a copy
    dense = memory.preserved_strides(a.shape, strides, a.itemsize)
    flat = constant(xp.empty(a.size, a.dtype), gi)
    return flat.as_strided(a.shape, [s // a.itemsize for s in dense]).copy_(gi)


class OpNode(Node):
    """Backward node of a declared op; one subclass per op, named ``<Op>Backward``."""

    __slots__ = ("attrs", "dtypes", "layouts", "shapes", "xp")
    op = None

    def apply(self, g, into=None):
        op = self.op
        grads = []
        edges = self.next
        if into is not None and not (op.takes_into and len(edges) - edges.count(None) == 1):
            into = None   # Note [Reusing the incoming gradient]: only the one formula may
        arg = self.arg
        for i, edge in enumerate(edges):
            if edge is None or type(edge) is DeadEnd:   # (a DeadEnd needs no gradient, nor
                grads.append(None)                      # the saved values that make it)
                continue
            fn, params, all_attrs = op.grad_fns[i]
            if "into" in params:
                args = [into if p == "into" else arg(p) for p in params]
            else:   # map: no frame of a comprehension per node
                args = list(map(arg, params))
            if all_attrs:   # a gradient taking **attrs gets every attribute
                gi = fn(g, *args, **self.attrs)
            else:
                gi = fn(g, *args)
            if type(gi) is not RegionGrad:
                gi = fit(self.xp, gi, self.shapes[i], self.dtypes[i])
                if args and _held(gi, args, into):   # Note [Gradient ownership]: never a
                    # value the node holds
                    gi = gi.copy()
            grads.append(gi)
        return grads

    def apply_graph(self, g, out=None):
        """``apply`` on tensors (Note [Differentiable gradient formulas]). ``out``: the tensor
        standing for the op's result when it is not this node's (a write through a view: its
        CopySlices node gives it)."""
        op = self.op
        xp = graph_namespace(self.xp)
        gb = GraphArray(g)
        grads = []
        for i, edge in enumerate(self.next):
            if edge is None or type(edge) is DeadEnd:
                grads.append(None)
                continue
            fn, params, all_attrs = op.grad_fns[i]
            args = [None if p == "into" else GraphArray(out) if p == "out" and out is not None
                    else self.graph_arg(p, xp) for p in params]
            gi = fn(gb, *args, **self.attrs) if all_attrs else fn(gb, *args)
            gi = fit_graph(gi, self.shapes[i], self.dtypes[i], g)
            if op.kink:   # the zero edge goes where PyTorch's does: to the saved output (this
                # node, or the written view's history, with the output's hooks) or to the input
                kedge = edge if "out" not in params else self if out is None else out.grad_fn
                gi = with_kink_edge(gi, kedge, self.shapes[i], self.dtypes[i])
            elif self in REPLAYED:   # Note [Gradients of replayed views]
                strides, empty = REPLAYED[self]
                gi = _in_base_layout(gi, self.xp, strides) if not empty else \
                    constant(self.xp.zeros(self.shapes[i], self.dtypes[i]), g)
            grads.append(gi)
        return grads

    def graph_arg(self, name, xp):
        kind = self.op.sources[name]
        if kind == "saved":
            return graph_value(self.saved_with_history(name))
        if kind == "xp":
            return xp
        return self.arg(name)

    def history(self, key):
        if key == "out":
            return self
        i = self.op.index.get(key)
        return None if i is None else self.next[i]

    def arg(self, name):
        kind = self.op.sources[name]
        if kind == "saved":
            return self.unpack(name)
        if kind == "attr":
            return self.attrs[name]
        if kind == "xp":
            return self.xp
        if kind == "shape":
            return self.shapes[self.op.index[name[:-6]]]
        if kind == "transposed":
            return self.layouts[self.op.index[name[:-11]]]
        return self.dtypes[self.op.index[name[:-6]]]


class VarNode(Node):
    """Backward node of a variadic op: one gradient function returns every input's gradient."""

    __slots__ = ("attrs", "dtypes", "shapes", "xp")
    op = None

    def apply(self, g, into=None):
        op = self.op
        if op.saves_inputs:
            xs = [self.unpack(i) for i in range(len(self.next))]
        else:
            xs = self.shapes
        grads = op.grad(g, xs, xp=self.xp, **self.attrs)
        res = []
        for e, gi, s, d in zip(self.next, grads, self.shapes, self.dtypes):
            if e is None or gi is None:
                res.append(None)
                continue
            gi = fit(self.xp, gi, s, d)
            res.append(gi.copy() if op.saves_inputs and _held(gi, xs) else gi)
        return res

    def apply_graph(self, g, out=None):
        op = self.op
        xp = graph_namespace(self.xp)
        if op.saves_inputs:
            xs = [graph_value(self.saved_with_history(i)) for i in range(len(self.next))]
        else:
            xs = self.shapes
        grads = op.grad(GraphArray(g), xs, xp=xp, **self.attrs)
        return [None if e is None or gi is None else fit_graph(gi, s, d, g)
                for e, gi, s, d in zip(self.next, grads, self.shapes, self.dtypes)]

    def history(self, key):
        return self.next[key]


def _held(a, values, into=None):
    """Whether array ``a`` is one of ``values`` (other than ``into``) or looks into one."""
    b = a.base
    for v in values:
        if v is not into and (v is a or (b is not None and v is b)):
            return True
    return False


def unbroadcast(xp, g, shape):
    """Sum ``g`` down to ``shape`` (the gradient of broadcasting)."""
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        i + lead for i, n in enumerate(shape) if n == 1 and g.shape[i + lead] != 1)
    if lead and len(axes) == lead and g.size and g.dtype.char in "fd" and g.flags.c_contiguous:
        # a bias's gradient: the sum over the leading axes as one BLAS vector-matrix product,
        # for as many rows as keep its float32 rounding near NumPy's pairwise sum's
        rows = math.prod(g.shape[:lead])
        if rows <= 1 << 16:
            return (xp.ones(rows, g.dtype) @ g.reshape(rows, -1)).reshape(shape)
    g = g.sum(axis=axes, keepdims=True) if axes else g
    return g.reshape(shape)


def fit(xp, g, shape, dtype):
    """A gradient as an array of the input's shape and dtype."""
    if type(g) is not xp.ndarray:
        g = xp.asarray(g)
    if g.shape != shape:
        if g.ndim < len(shape):   # a value written with its leading size-1 axes dropped (NumPy)
            g = g.reshape((1,) * (len(shape) - g.ndim) + g.shape)
        g = unbroadcast(xp, g, shape) if g.size != 1 or len(shape) else g.reshape(shape)
        if g.shape != shape:
            g = xp.broadcast_to(g, shape)
    if g.dtype != dtype:
        if g.dtype.kind == "c" and dtype.kind != "c":   # a real input's share: the real part
            g = g.real
        g = g.astype(dtype)
    return g


def graph_value(v):
    """A saved value as a formula's argument in graph mode: a tensor behind NumPy's interface;
    a Python scalar as it is."""
    if isinstance(v, Tensor):
        return GraphArray(v)
    if hasattr(v, "shape"):
        return GraphArray(constant(v))
    return v


def fit_graph(gi, shape, dtype, like):
    """:func:`fit` in graph mode: a formula's result (a GraphArray, a RegionGrad of one, or a
    constant) as a tensor of the input's shape and dtype, by recorded ops."""
    if type(gi) is GraphArray:   # the common case: already the input's shape and dtype
        a = gi.t._data
        if a.shape == shape and a.dtype == dtype:
            return gi.t
    mg = _lib()
    if type(gi) is RegionGrad:   # its region written into zeros, through a recorded view
        z = GraphArray(constant(like._place.xp.zeros(shape, dtype), like))
        gi.view(z)[...] = gi.values
        return z.t
    if type(gi) is GraphArray:
        t = gi.t
    elif isinstance(gi, Tensor):
        t = gi
    else:
        arr = like._place.xp.asarray(gi)
        t = constant(arr if arr.dtype.kind in "fc" else arr.astype(dtype), like)
    if t._data.dtype != dtype:   # first, as PyTorch's gradient has the input's dtype all along:
        # the sum below is then the last op, and a gradient that drops leading axes is a view
        # of it, as PyTorch's sum_to gives it
        if t._data.dtype.kind == "c" and dtype.kind != "c":   # a real input's share
            t = t.real
        t = mg.cast(t, dtype) if t._data.dtype != dtype else t
    if not shape and t.ndim:   # PyTorch's sum_to: a 0-d gradient is a sum, never a view
        t = mg.sum(t)
    elif tuple(t.shape) != tuple(shape):
        if t.ndim < len(shape):
            t = t.reshape(*((1,) * (len(shape) - t.ndim) + tuple(t.shape)))
        lead = t.ndim - len(shape)
        axes = list(range(lead)) + [i + lead for i, n in enumerate(shape)
                                    if n == 1 and t.shape[i + lead] != 1]
        if axes:
            t = mg.sum(t, axis=axes, keepdim=True)
        # PyTorch's sum_to views the sum only to drop leading axes; a sum that already has the
        # input's shape is the gradient itself (as a view, a later write through it would be
        # differentiated as a write into a view)
        if tuple(t.shape) != tuple(shape):
            t = t.reshape(list(shape)) if t.numel() == math.prod(shape) else \
                mg.broadcast_to(t, *shape)   # (a list: shape may be (), a 0-d gradient)
    return t
