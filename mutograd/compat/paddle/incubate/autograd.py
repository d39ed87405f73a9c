"""``paddle.incubate.autograd``: ``vjp``, ``jvp`` and the lazy ``Jacobian`` and ``Hessian`` of a
function, over mutograd's autograd (forward mode by the double-VJP construction, as Paddle's
dynamic mode computes it too).

Each input (and ``v``) is first made a tensor of its own, as Paddle does, so that the function's
other uses of it do not count; results are computed with ``create_graph=True``
(``stop_gradient=False``).

    >>> import mutograd.compat.paddle as paddle
    >>> x = paddle.ones([2, 2])
    >>> _, g = paddle.incubate.autograd.vjp(lambda x: paddle.matmul(x, x), x)
    >>> g.tolist()
    [[4.0, 4.0], [4.0, 4.0]]
    >>> J = paddle.incubate.autograd.Jacobian(lambda x: x * x, paddle.to_tensor([1.0, 3.0]))
    >>> J[:].tolist()
    [[2.0, 0.0], [0.0, 6.0]]
"""
from ....autograd import engine as _engine
from ....autograd.forward_ad import jvp_of
from ....autograd.grad_mode import enable_grad
from ..autograd import Hessian as _LazyHessian
from ..autograd import Jacobian as _LazyJacobian

__all__ = ["Hessian", "Jacobian", "jvp", "vjp"]


def _many(x):
    return isinstance(x, (tuple, list))


def _separate(xs):
    """Each input as a tensor of its own (Paddle's ``_separate``): a recorded copy of one that
    requires grad (so derivatives still reach what it came from, as a Hessian needs), else a
    detached alias that requires grad."""
    if xs is None:
        return None
    if _many(xs):
        return tuple(_separate(x) for x in xs)
    with enable_grad():
        return xs.clone() if xs.requires_grad else xs.detach().requires_grad_()


def _call(func, xs):
    with enable_grad():
        return func(*xs) if _many(xs) else func(xs)


def _ones_for(ts):
    from ....ops.creation import ones_like
    return tuple(ones_like(t) for t in ts)


def _check_inputs(func, xs, v):
    """Paddle's refusals of what vjp and jvp cannot take, before anything runs."""
    from ....tensor import Tensor
    if not callable(func):
        raise TypeError(f"Expected 'fun' is Callable, but got {type(func)}.")
    for name, ts in (("xs", xs), ("v", v)):
        if ts is None and name == "v":
            continue
        if not isinstance(ts, (Tensor, tuple, list)):
            raise TypeError(f"Expected '{name}' is a Tensor|Sequence[Tensor], but got "
                            f"{type(ts)}.")
        if _many(ts) and not all(isinstance(t, Tensor) for t in ts):
            raise TypeError(f"All elements of '{name}' should be Tensor.")


def _check_v(v, like):
    if len(v) != len(like):
        raise RuntimeError(f"The argument v is a tuple of invalid length:should be {len(like)} "
                           f"but got {len(v)}.")
    for k, (a, b) in enumerate(zip(v, like)):
        if list(a.shape) != list(b.shape):
            raise RuntimeError(f"The v[{k}] has invalid shape: should be {list(b.shape)} but "
                               f"got {list(a.shape)}.")


def _as_given(res, like):
    return tuple(res) if _many(like) else res[0]


def _prepared(func, xs, v, v_like_outputs):
    """``(xs, ys, inputs, outputs, v)`` for vjp and jvp: the inputs separated, the function's
    outputs, both as lists, and ``v`` as a list (ones when None) checked against the outputs
    (``v_like_outputs``) or the inputs."""
    _check_inputs(func, xs, v)
    xs, v = _separate(xs), _separate(v)
    ys = _call(func, xs)
    y_list = list(ys) if _many(ys) else [ys]
    x_list = list(xs) if _many(xs) else [xs]
    like = y_list if v_like_outputs else x_list
    v_list = _ones_for(like) if v is None else (list(v) if _many(v) else [v])
    _check_v(v_list, like)
    return xs, ys, x_list, y_list, v_list


def vjp(func, xs, v=None):
    """``(func(xs), v^T J)``: the vector-Jacobian product; ``v`` (shaped like the output)
    defaults to ones."""
    from ....ops.creation import zeros_like
    xs, ys, x_list, y_list, v_list = _prepared(func, xs, v, True)
    with enable_grad():
        gs = _engine.grad(y_list, x_list, v_list, create_graph=True, allow_unused=True)
    return ys, _as_given([zeros_like(x) if g is None else g for g, x in zip(gs, x_list)], xs)


def jvp(func, xs, v=None):
    """``(func(xs), J v)``: the Jacobian-vector product; ``v`` (shaped like ``xs``) defaults
    to ones."""
    from ....ops.creation import zeros_like
    xs, ys, x_list, y_list, v_list = _prepared(func, xs, v, False)
    with enable_grad():
        res = jvp_of(y_list, x_list, v_list, create_graph=True)
    return ys, _as_given([zeros_like(y) if r is None else r for r, y in zip(res, y_list)], ys)


def _flat(ts, batched):
    from ....ops.shaping import cat
    parts = [t.reshape([t.shape[0], -1]) if batched else t.reshape([-1]) for t in ts]
    return parts[0] if len(parts) == 1 else cat(parts, 1 if batched else 0)


def _lazy(func_of_xs, xs, is_batched):
    """The rows and shape of the Jacobian of ``func_of_xs`` at the (separated) ``xs``, inputs
    and outputs flattened and concatenated (the batch axis kept)."""
    from ....ops.creation import zeros_like
    x_list = list(xs) if _many(xs) else [xs]
    ys = _call(func_of_xs, xs)
    flat_y = _flat(list(ys) if _many(ys) else [ys], is_batched)
    n_in = _flat(x_list, is_batched).shape[-1]

    def row(k):
        y = flat_y[:, k].sum() if is_batched else flat_y[k]
        with enable_grad():
            gs = _engine.grad([y], x_list, create_graph=True, allow_unused=True)
        return _flat([zeros_like(x) if g is None else g for g, x in zip(gs, x_list)],
                     is_batched)
    if is_batched:
        return row, [flat_y.shape[0], flat_y.shape[1], n_in], 1
    return row, [flat_y.shape[0], n_in], 0


class Jacobian(_LazyJacobian):
    """The lazy Jacobian of ``func`` at ``xs``: every input and output flattened and
    concatenated, so J is [M, N] (or [B, M, N] with ``is_batched=True``, the batch first)."""

    def __init__(self, func, xs, is_batched=False):
        row, shape, axis = _lazy(func, _separate(xs), is_batched)
        super().__init__(row, shape, (), axis)


class Hessian(_LazyHessian):
    """The lazy Hessian of ``func`` (one element out, or one per sample with
    ``is_batched=True``) at ``xs``: the Jacobian of its gradient."""

    def __init__(self, func, xs, is_batched=False):
        def gradient(*args):
            jac = Jacobian(func, args if _many(xs) else args[0], is_batched)
            if jac.shape[1 if is_batched else 0] != 1:
                raise RuntimeError("The function given to Hessian shoud return as single "
                                   "element Tensor or batched single element Tensor.")
            return jac[:, 0, :] if is_batched else jac[0, :]
        row, shape, axis = _lazy(lambda *a: gradient(*a) if _many(xs) else gradient(a[0]),
                                 _separate(xs), is_batched)
        super().__init__(row, shape, (), axis)
