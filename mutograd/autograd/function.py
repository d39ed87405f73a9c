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
from .node import Node, Packed, save, saved_tensor


class FunctionCtx:
    def __init__(self):
        self._saved = ()
        self.needs_input_grad = ()
        self.materialize_grads = True
        self._node = None

    def save_for_backward(self, *tensors):
        from ..tensor import Tensor
        self._saved = tuple(save(t) if isinstance(t, Tensor) else t for t in tensors)

    save_for_forward = save_for_backward

    @property
    def saved_tensors(self):
        return tuple(saved_tensor(self._node, rec, i) if type(rec) is tuple or type(rec) is Packed
                     else rec for i, rec in enumerate(self._saved))

    def saved_tensor(self):
        return self.saved_tensors

    def mark_dirty(self, *tensors):
        pass

    def mark_non_differentiable(self, *tensors):
        pass

    def set_materialize_grads(self, value):
        self.materialize_grads = value


class FunctionNode(Node):
    __slots__ = ("ctx", "fn", "outputs", "shapes", "xp")

    def name(self):
        return self.fn.__name__ + "Backward"

    def apply(self, g):
        from ..tensor import Tensor
        from ..transfer import wrap_for_xp as _wrap  # the gradient on its own place
        xp = self.xp
        if self.outputs is None:
            grads = self.fn.backward(self.ctx, _wrap(g, xp))
        else:   # Note [Several outputs]: g is every output's gradient, packed
            grads = self.fn.backward(self.ctx, *[_wrap(p, xp) for p in _unpack(g, self.outputs)])
        if not isinstance(grads, tuple):
            grads = (grads,)
        res = []
        for e, gi, shape in zip(self.next, grads, self.shapes):
            if e is None or gi is None:
                res.append(None)
            else:
                arr = gi._data if isinstance(gi, Tensor) else self.xp.asarray(gi)
                from ..ops.registry import unbroadcast
                res.append(unbroadcast(self.xp, arr, shape) if arr.shape != shape else arr)
        return res

    def release(self):
        pass


class Function:
    """Subclass with static ``forward(ctx, *args)`` and ``backward(ctx, *grads)``."""

    @classmethod
    def apply(cls, *args, **kwargs):
        from ..tensor import Tensor
        ctx = FunctionCtx()
        tensors = [a for a in args if isinstance(a, Tensor)]
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        with no_grad():
            out = cls.forward(ctx, *args, **kwargs)
        if _state.enabled and any(t._rg for t in tensors):
            several = isinstance(out, (tuple, list)) and any(isinstance(o, Tensor) for o in out)
            if not several and not isinstance(out, Tensor):
                raise TypeError(f"{cls.__name__}.forward must return a Tensor or a tuple of "
                                f"Tensors")
            edges = tuple((a.grad_fn or a) if isinstance(a, Tensor) and a._rg else None
                          for a in args)
            node = FunctionNode(edges, None)
            node.fn = cls
            node.ctx = ctx
            node.shapes = tuple(a.shape if isinstance(a, Tensor) else () for a in args)
            node.xp = tensors[0]._place.xp
            ctx._node = node
            if ctx._saved:   # where the node was made, for a stale-value error
                node.created_at = sites.here(2)
            node.outputs = None
            if several:
                _attach_outputs(node, [o for o in out if isinstance(o, Tensor)])
            else:
                out.grad_fn = node
                out._rg = True
        return out


# Note [Several outputs]
#     The engine hands each node one gradient array. A function with several outputs gives each
#     output its own small node (OutputSlot) whose gradient is the output's gradient written into
#     its segment of one flat zero buffer; the engine sums the buffers arriving at the function's
#     node, which makes the concatenation of every output's gradient (zeros for unused outputs,
#     as PyTorch's materialize_grads). The function's node splits it back.


class OutputSlot(Node):
    """Backward node of output ``index`` of a function with several outputs."""

    __slots__ = ("index", "layout")

    def name(self):
        return f"{self.next[0].name()}[{self.index}]"

    def apply(self, g):
        size, dtype, segments = self.layout
        packed = self.next[0].xp.zeros(size, dtype)
        start, _ = segments[self.index]
        packed[start:start + g.size] = g.reshape(-1)
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
    for i, o in enumerate(outs):
        slot = OutputSlot((node,), None)
        slot.index, slot.layout = i, node.outputs
        o.grad_fn = slot
        o._rg = True


def _unpack(packed, layout):
    return [packed[start:start + _numel(shape)].reshape(shape) for start, shape in layout[2]]


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


PyLayer = Function
