"""``paddle.autograd``: ``PyLayer``, ``backward``, ``grad``, the lazy ``jacobian`` and
``hessian``, the grad-mode switches and ``saved_tensors_hooks``."""
from ...autograd import engine as _engine
from ...autograd.function import Function as PyLayer
from ...autograd.function import FunctionCtx as PyLayerContext
from ...autograd.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from ...autograd.saved import saved_tensors_hooks
from ...errors import VersionError
from .tensor import with_paddle_wording

__all__ = ["Function", "Hessian", "Jacobian", "PyLayer", "PyLayerContext", "backward",
           "enable_grad", "grad", "hessian", "is_grad_enabled", "jacobian", "no_grad",
           "saved_tensors_hooks", "set_grad_enabled"]


def backward(tensors, grad_tensors=None, retain_graph=False):
    """Accumulate gradients of ``tensors`` into the leaves (ones for outputs without one)."""
    _engine.backward(tensors, grad_tensors, retain_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None):
    """The gradients of ``outputs`` with respect to ``inputs`` (a list), leaving ``.grad``
    alone. As in Paddle, which runs a copy of the backward graph, the graph is left as it was
    whatever ``retain_graph`` says: another ``grad`` or a ``backward`` through it still works.

        >>> import mutograd.compat.paddle as paddle
        >>> x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> y = (x ** 3).sum()
        >>> (g,) = paddle.grad(y, x, create_graph=True)
        >>> g.tolist(), paddle.grad(g.sum(), x)[0].tolist(), paddle.grad(y, x)[0].tolist()
        ([3.0, 12.0], [6.0, 12.0], [3.0, 12.0])
    """
    try:
        return list(_engine.grad(outputs, inputs, grad_outputs, True, create_graph,
                                 allow_unused=allow_unused, no_grad_vars=no_grad_vars))
    except VersionError as error:
        raise with_paddle_wording(error)


Function = PyLayer


class Jacobian:
    """A Jacobian computed when indexed, a row at a time, each row once (Paddle's lazy
    ``Jacobian``): ``J[:]`` is the whole matrix, ``J[i]`` or ``J[:, i]`` (batched) one row,
    ``J[a:b]`` some rows; other indexes slice within the rows. ``shape`` is the matrix's shape
    without the axes of 0-D tensors. Anything else (``J.numpy()``, ``J + 1``, ``J.shape``...)
    acts on the whole matrix.

    The rows are gradients taken with ``create_graph=True``, so a Jacobian can be
    differentiated again (:func:`hessian` is the Jacobian of a Jacobian).
    """

    def __init__(self, row, inner_shape, hidden=(), lazy_axis=0):
        self._row, self._inner = row, list(inner_shape)
        self._hidden, self._axis = tuple(hidden), lazy_axis
        self._rows = {}
        self.shape = [n for k, n in enumerate(self._inner) if k not in self._hidden]

    def _cached(self, k):
        r = self._rows.get(k)
        if r is None:
            r = self._rows[k] = self._row(k)
        return r

    def _inner_index(self, index):
        if isinstance(index, tuple) and len(self.shape) == 1 and self._hidden:
            # Paddle indexes a Jacobian with one axis left (the others those of 0-D tensors, or
            # of 1-D ones with batch_axis=0) by an int or a slice, never a tuple
            raise TypeError(f"Not supported index type {index}.")
        index = index if isinstance(index, tuple) else (index,)
        if any(i is Ellipsis for i in index):
            raise IndexError("Ellipsis index currently is not supported.")
        if len(self.shape) == 0:
            raise IndexError("0-D tensor can not be indexed.")
        if len(index) > len(self.shape):
            raise IndexError(f"too many indices ({len(index)}) for a Jacobian of shape "
                             f"{self.shape}")
        index = index + (slice(None),) * (len(self.shape) - len(index))
        it = iter(index)
        full = []
        for k, n in enumerate(self._inner):
            i = 0 if k in self._hidden else next(it)
            if isinstance(i, bool) or not isinstance(i, (int, slice)):
                raise TypeError(f"Not supported index type {i}.")
            if isinstance(i, int):
                if not -n <= i < n:
                    raise IndexError(f"index {i} is out of bounds for axis {k} with size {n}")
                i %= n
            full.append(i)
        return full

    def __getitem__(self, index):
        from ...ops.shaping import stack
        full = self._inner_index(index)
        lazy = full[self._axis]
        rest = tuple(full[:self._axis] + full[self._axis + 1:])
        if isinstance(lazy, int):
            return self._cached(lazy)[rest]
        part = stack([self._cached(k) for k in range(*lazy.indices(self._inner[self._axis]))],
                     self._axis)
        return part[tuple(full[:self._axis]) + (slice(None),) + tuple(full[self._axis + 1:])]

    def _evaluate_all(self):
        if not self.shape:
            return self._cached(0).reshape([])
        return self[:]

    def __getattr__(self, name):
        if name.startswith("__") or name in ("_row", "_inner", "_hidden", "_axis", "_rows"):
            raise AttributeError(name)
        return getattr(self._evaluate_all(), name)

    def __repr__(self):
        return repr(self._evaluate_all())


def _whole(x):
    return x._evaluate_all() if isinstance(x, Jacobian) else x


def _operator(name):
    def op(self, other):
        return getattr(self._evaluate_all(), name)(_whole(other))
    op.__name__ = name
    return op


for _name in ("add", "sub", "mul", "truediv", "pow", "mod", "floordiv", "matmul", "eq", "ne",
              "lt", "le", "gt", "ge", "radd", "rsub", "rmul", "rtruediv"):
    setattr(Jacobian, f"__{_name}__", _operator(f"__{_name}__"))
Jacobian.__hash__ = object.__hash__


class Hessian(Jacobian):
    """A lazily computed Hessian: the :class:`Jacobian` of a gradient."""


def _row_grad(y, xs):
    """The gradient of ``y`` (one element, or a batch of them summed) with respect to each of
    ``xs``, kept differentiable; zeros where it does not depend on one."""
    from ...ops.creation import zeros_like
    ys = y.sum() if y.ndim else y
    gs = _engine.grad([ys], list(xs), create_graph=True, allow_unused=True)
    return [zeros_like(x) if g is None else g for g, x in zip(gs, xs)]


def _jacobian_of(ys, x, batched):
    """The lazy Jacobian of tensor ``ys`` with respect to tensor ``x`` (Paddle's layout)."""
    ys = _whole(ys)
    if not batched:
        for name, t in (("xs", x), ("ys", ys)):
            if not 0 <= len(t.shape) <= 1:
                raise ValueError(f"{name}.ndim should be 0 or 1 when is_batched=False but got "
                                 f"{len(t.shape)}")
        flat = ys.reshape([-1])
        hidden = [k for k, t in enumerate((ys, x)) if len(t.shape) == 0]
        return Jacobian(lambda k: _row_grad(flat[k], [x])[0].reshape([-1]),
                        [flat.shape[0], max(x.numel(), 1)], hidden, 0)
    for name, t in (("ys", ys), ("xs", x)):
        if not 1 <= len(t.shape) <= 2:
            raise ValueError(f"{name}.ndim should be 1 or 2 when is_batched=True but got "
                             f"{len(t.shape)}")
    b = x.shape[0]
    flat = ys.reshape([b, -1])
    hidden = [k + 1 for k, t in enumerate((ys, x)) if len(t.shape) == 1]
    return Jacobian(lambda k: _row_grad(flat[:, k], [x])[0].reshape([b, -1]),
                    [b, flat.shape[1], x.reshape([b, -1]).shape[1]], hidden, 1)


def jacobian(ys, xs, batch_axis=None):
    """The Jacobian of ``ys`` with respect to ``xs`` as lazy :class:`Jacobian` objects (a
    tuple of them, nested, when ``ys`` or ``xs`` is a tuple). Without ``batch_axis`` the
    tensors are 0-D or 1-D and J is [M, N]; with ``batch_axis=0`` they are [B] or [B, n] and J
    is [B, M, N].

        >>> import mutograd.compat.paddle as paddle
        >>> x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> J = paddle.autograd.jacobian(x * x, x)
        >>> J.shape, J[:].tolist(), J[1].tolist()
        ([2, 2], [[2.0, 0.0], [0.0, 4.0]], [0.0, 4.0])
    """
    if batch_axis is not None and batch_axis != 0:
        raise ValueError(f"batch_axis should be None or 0, but got {batch_axis}.")
    batched = batch_axis is not None
    many_y, many_x = isinstance(ys, (tuple, list)), isinstance(xs, (tuple, list))
    if many_y and many_x:
        return tuple(tuple(_jacobian_of(y, x, batched) for x in xs) for y in ys)
    if many_y:
        return tuple(_jacobian_of(y, xs, batched) for y in ys)
    if many_x:
        return tuple(_jacobian_of(ys, x, batched) for x in xs)
    return _jacobian_of(ys, xs, batched)


def hessian(ys, xs, batch_axis=None):
    """The Hessian of ``ys`` (one element, or one per sample with ``batch_axis=0``) with
    respect to ``xs``, as lazy :class:`Hessian` objects: the Jacobian of its Jacobian.

        >>> import mutograd.compat.paddle as paddle
        >>> x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> H = paddle.autograd.hessian((x ** 3).sum(), x)
        >>> H[:].tolist()
        [[6.0, 0.0], [0.0, 12.0]]
    """
    if batch_axis is None:
        if ys.numel() > 1:
            raise ValueError(f"Only support ys.numel()({ys.numel()})==1 when batch_axis is None.")
        ys = ys.reshape([])
    elif isinstance(batch_axis, int):
        if ys[0].numel() > 1:
            raise ValueError(f"Only support ys[0].numel()({ys.numel()})==1 when batch_axis is "
                             f"int")
        if batch_axis != 0:
            raise ValueError("Only support batch_axis=0 yet.")
        ys = ys.reshape([-1])
    else:
        raise ValueError(f"batch_axis should be None or int, but got {type(batch_axis)}.")
    first = jacobian(ys, xs, batch_axis)
    if isinstance(xs, (tuple, list)):
        out = tuple(jacobian(j, xs, batch_axis) for j in first)
        for row in out:
            for h in row:
                h.__class__ = Hessian
        return out
    out = jacobian(first, xs, batch_axis)
    out.__class__ = Hessian
    return out
