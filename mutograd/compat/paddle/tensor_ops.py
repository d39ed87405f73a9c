"""Paddle's functions that are compositions of mutograd ops (so their gradients come from the
ops): ``gather_nd``, ``scatter_nd_add``, ``index_sample``, ``slice``, ``strided_slice``,
``crop``, ``stanh``, ``multiplex``, ``reduce_as``, ... Those Paddle also binds as Tensor methods
are added to Tensor where no method of that name exists yet.

    >>> import mutograd.compat.paddle as paddle
    >>> x = paddle.to_tensor([[1., 2.], [3., 4.]])
    >>> paddle.gather_nd(x, paddle.to_tensor([[0, 1], [1, 0]])).tolist()
    [2.0, 3.0]
"""
import builtins
import math

import mutograd as _mg

from ...tensor import Tensor


def _index_tuple(index):
    k = index.shape[-1]
    return tuple(index[..., i] for i in range(k))


def gather_nd(x, index, name=None):
    """``out[i] = x[index[i]]``: the last axis of ``index`` indexes the first axes of ``x``."""
    return x[_index_tuple(index)]


def scatter_nd_add(x, index, updates, name=None):
    """A copy of ``x`` with ``updates`` added at ``index`` (repeated indices accumulate)."""
    return _mg.index_put(x, _index_tuple(index), updates, True)


def scatter_nd(index, updates, shape, name=None):
    """``updates`` added into zeros of ``shape`` at ``index``."""
    return scatter_nd_add(_mg.zeros(list(shape), dtype=updates.dtype), index, updates)


def index_sample(x, index, name=None):
    """``out[i, j] = x[i, index[i, j]]``."""
    return _mg.take_along_axis(x, index, 1)


def unstack(x, axis=0, num=None, name=None):
    """The slices of ``x`` along ``axis``, as a list."""
    return list(_mg.unbind(x, axis))


def reverse(x, axis, name=None):
    """``x`` reversed along ``axis`` (an int or a list)."""
    return _mg.flip(x, [axis] if isinstance(axis, int) else list(axis))


def slice(input, axes, starts, ends):
    """``input[starts[i]:ends[i]]`` along each of ``axes`` (a view)."""
    return strided_slice(input, axes, starts, ends, [1] * len(axes))


def strided_slice(x, axes, starts, ends, strides, name=None):
    """``x[starts[i]:ends[i]:strides[i]]`` along each of ``axes`` (a view)."""
    key = [builtins.slice(None)] * x.ndim
    for a, s, e, st in zip(axes, starts, ends, strides):
        key[a] = builtins.slice(int(s), int(e), int(st))
    return x[tuple(key)]


def crop(x, shape=None, offsets=None, name=None):
    """The ``shape`` region of ``x`` starting at ``offsets`` (-1 in ``shape``: to the end)."""
    shape = list(x.shape) if shape is None else [int(s) for s in shape]
    offsets = [0] * x.ndim if offsets is None else [int(o) for o in offsets]
    key = tuple(builtins.slice(o, x.shape[i] if s == -1 else o + s)
                for i, (o, s) in enumerate(zip(offsets, shape)))
    return x[key]


def stanh(x, scale_a=0.67, scale_b=1.7159, name=None):
    """``scale_b * tanh(scale_a * x)``."""
    return (x * scale_a).tanh() * scale_b


def multiplex(inputs, index, name=None):
    """Row ``i`` of ``inputs[index[i]]`` for each row ``i``."""
    stacked = _mg.stack(list(inputs), 0)
    rows = _mg.arange(stacked.shape[1])
    return stacked[(index.reshape([-1]), rows)]


def reduce_as(x, target, name=None):
    """``x`` summed over the axes that broadcasting ``target`` to it would add or expand."""
    lead = x.ndim - target.ndim
    out = x.sum(axis=list(range(lead))) if lead else x
    axes = [i for i, (a, b) in enumerate(zip(out.shape, target.shape)) if b == 1 and a != 1]
    return out.sum(axis=axes, keepdim=True) if axes else out


def matrix_transpose(x, name=None):
    """``x`` with its last two axes swapped (a view)."""
    return x.mT


def equal_all(x, y, name=None):
    """Whether ``x`` and ``y`` have the same shape and elements, as a bool 0-d tensor."""
    same = list(x.shape) == list(y.shape) and bool((x == y).all())
    return _mg.tensor(same)


def broadcast_shape(x_shape, y_shape):
    """The broadcast of two shapes, as a list."""
    return broadcast_shapes(x_shape, y_shape)


def broadcast_shapes(*shapes):
    """The broadcast of several shapes, as a list."""
    out = []
    for dims in zip(*[[1] * (max(map(len, shapes)) - len(s)) + list(s) for s in shapes]):
        big = {d for d in dims if d != 1}
        if len(big) > 1:
            raise ValueError(f"shapes {[list(s) for s in shapes]} do not broadcast")
        out.append(big.pop() if big else 1)
    return out


def rank(input):
    """The number of dimensions, as an int32 0-d tensor."""
    return _mg.tensor(input.ndim, dtype="int32")


def is_empty(x, name=None):
    """Whether ``x`` has no elements, as a bool 0-d tensor."""
    return _mg.tensor(x.numel() == 0)


def is_floating_point(x):
    return x.dtype.name.startswith(("float", "bfloat"))


def is_integer(x):
    return x._data.dtype.kind in "iu"


def is_complex(x):
    return x._data.dtype.kind == "c"


def tolist(x):
    """The elements as (nested) Python lists."""
    return x.tolist()


def range(start=0, end=None, step=1, dtype=None, name=None):
    """Paddle's older name for :func:`arange`."""
    return _mg.arange(start, end, step, dtype=dtype)


# Tensor methods Paddle has with these names (added where Tensor has none yet)
METHODS = {"gather_nd": gather_nd, "scatter_nd_add": scatter_nd_add,
           "index_sample": index_sample, "unstack": unstack, "reverse": reverse,
           "slice": slice, "strided_slice": strided_slice, "stanh": stanh,
           "reduce_as": reduce_as, "matrix_transpose": matrix_transpose, "equal_all": equal_all,
           "rank": rank, "is_empty": is_empty, "is_integer": is_integer,
           "is_complex": is_complex, "is_floating_point": is_floating_point}

pi, e, inf, nan = math.pi, math.e, math.inf, math.nan
newaxis = None


def install():
    for name, fn in METHODS.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
