"""Paddle's top-level functions whose names, keywords or results differ from the main namespace.

``paddle.expand`` / ``broadcast_to`` / ``expand_as`` copy (Paddle's semantics; mutograd's are
views), ``assign(x, output=)`` writes into ``output``, ``concat(x=[...])`` and the other renamed
keywords (:data:`RENAMED`) are accepted, and the shifts take ``is_arithmetic``.

    >>> import mutograd.compat.paddle as paddle
    >>> x = paddle.ones([1, 3])
    >>> y = paddle.expand(x, [2, 3])          # a copy: writing into it is fine
    >>> y.add_(paddle.ones([2, 3])).tolist()
    [[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]
"""
import functools
import inspect

import mutograd as _mg

from ...autograd.grad_mode import no_grad
from ...errors import DTypeError
from ...ops import views as _views
from ... import dtypes as _dtypes
from ...tensor import Tensor, _wrap

# Paddle's keyword -> the main namespace's, for functions that differ only in keyword names.
RENAMED = {
    "argwhere": {"input": "x"}, "broadcast_tensors": {"input": "tensors"},
    "bucketize": {"x": "input", "sorted_sequence": "boundaries"},
    "cat": {"x": "tensors"}, "concat": {"x": "tensors"}, "stack": {"x": "tensors"},
    "cdist": {"x": "x1", "y": "x2"}, "cross": {"x": "a", "y": "b", "axis": "dim"},
    "dist": {"x": "a", "y": "b"}, "inner": {"x": "a", "y": "b"}, "kron": {"x": "a", "y": "b"},
    "isclose": {"x": "a", "y": "b"}, "isin": {"x": "elements", "test_x": "test_elements"},
    "from_numpy": {"ndarray": "array"}, "manual_seed": {"seed": "n"},
    "rand_like": {"input": "x"}, "scatter_reduce": {"input": "x"}, "seed": {"seed": "value"},
    "set_default_dtype": {"d": "dtype"}, "softmax": {"input": "x"}, "t_": {"input": "x"},
    "take_along_dim": {"arr": "x", "axis": "dim"}, "tensordot": {"x": "a", "y": "b",
                                                                "axes": "dims"},
    "to_dlpack": {"x": "t"}, "unbind": {"input": "x"}, "rot90": {"axes": "dims"},
    "diag": {"offset": "diagonal"}, "from_dlpack": {"dlpack": "obj"}, "pdist": {"x": "input"},
}
# keywords Paddle accepts that change nothing here (memory pinning, the output place)
_IGNORED = ("name", "pin_memory")


def with_name(table):
    """Paddle's pass-throughs as functions: for each ``{paddle_name: main_function}`` of
    ``table``, a function named ``paddle_name`` that calls ``main_function`` with the same
    arguments and accepts (and drops) Paddle's ``name=``. ``inspect.signature`` and ``help()``
    show the main function's signature with ``name=None`` (keyword-only) added. Only for true
    pass-throughs: a function whose arguments Paddle orders, names or defaults differently
    stays a function of its own."""
    return {paddle_name: _with_name(paddle_name, fn) for paddle_name, fn in table.items()}


def _with_name(paddle_name, fn):
    sig = inspect.signature(fn)
    if "name" in sig.parameters:        # the main function takes (and ignores) name= already
        @functools.wraps(fn)
        def passed(*args, **kw):
            return fn(*args, **kw)
    else:
        @functools.wraps(fn)
        def passed(*args, name=None, **kw):
            return fn(*args, **kw)
        params = list(sig.parameters.values())
        at = len(params) - (1 if params and params[-1].kind is params[-1].VAR_KEYWORD else 0)
        params.insert(at, inspect.Parameter("name", inspect.Parameter.KEYWORD_ONLY,
                                            default=None))
        sig = sig.replace(parameters=params)
    passed.__signature__ = sig
    passed.__name__ = passed.__qualname__ = paddle_name
    return passed


# Paddle's top-level functions that are main ones under another name, or with name= added
PASS_THROUGH = {"ger": _mg.outer, "range": _mg.arange, "split": _views.split_sections,
                "pdist": _mg.nn.functional.pdist}


def renamed(fn, names):
    """``fn`` taking Paddle's keyword names ``names`` (Paddle's -> ours) besides its own."""
    @functools.wraps(fn)
    def wrapper(*args, **kw):
        for k in _IGNORED:
            if k not in inspect.signature(fn).parameters:
                kw.pop(k, None)
        return fn(*args, **{names.get(k, k): v for k, v in kw.items()})
    return wrapper


class DataTypeMismatch(DTypeError, ValueError):
    """Tensors of different dtypes where Paddle needs one (``concat``, ``stack``): Paddle's
    ``ValueError`` and mutograd's ``DTypeError``."""


def one_dtype(fn, name):
    """``fn`` (Paddle's ``name``: ``concat``, ``stack``) refusing a list of tensors of different
    dtypes, as Paddle does instead of promoting them."""
    @functools.wraps(fn)
    def checked(x, *args, **kw):
        tensors = [t for t in (x if isinstance(x, (list, tuple)) else ()) if isinstance(t, Tensor)]
        for i, t in enumerate(tensors[1:], 1):
            if t.dtype != tensors[0].dtype:
                raise DataTypeMismatch(
                    f"{name}(): (InvalidArgument) The data_type of input tensor in list isn't "
                    f"consistent, the first tensor is {tensors[0]._data.dtype}, but {i}th tensor "
                    f"is {t._data.dtype}; cast them to one dtype first (.astype(dtype))")
        return fn(x, *args, **kw)
    return checked


def _creation(fn):
    """Paddle 3's keywords of the creation functions: ``device``, ``requires_grad``, ``out``,
    and ``pin_memory`` (which changes nothing here)."""
    @functools.wraps(fn)
    def create(*args, device=None, requires_grad=False, pin_memory=False, out=None, **kw):
        t = fn(*args, **kw)
        if device is not None:
            t = t.to(device)
        if requires_grad:
            t.stop_gradient = False
        return assign(t, out) if out is not None else t
    return create


def expand(x, shape, name=None):
    """``x`` broadcast to ``shape`` (-1 keeps a size), as a new tensor (Paddle copies)."""
    return _mg.expand(x, shape).clone()


def broadcast_to(x, shape, name=None):
    """``x`` broadcast to ``shape``, as a new tensor (Paddle copies)."""
    return _mg.broadcast_to(x, shape).clone()


def expand_as(x, y, name=None):
    """``x`` broadcast to the shape of ``y``, as a new tensor (Paddle copies)."""
    return _mg.expand_as(x, y).clone()


def assign(x, output=None):
    """A copy of ``x`` (a Tensor, array, list or number), or, with ``output``, ``x`` written into
    ``output`` in place (its version moves on; a different shape resizes it, as Paddle does);
    returns the result.

    Example::

        >>> import mutograd.compat.paddle as paddle
        >>> out = paddle.zeros([2])
        >>> paddle.assign(paddle.to_tensor([5., 6.]), output=out) is out, out.tolist()
        (True, [5.0, 6.0])
    """
    if not isinstance(x, Tensor):
        import numpy as np      # a list or number becomes an array first, with NumPy's dtype
        x = _mg.tensor(np.asarray(x))
    if output is None:
        return x.clone()
    if list(output.shape) != list(x.shape):
        with no_grad():
            output.resize_(list(x.shape))
    return output.copy_(x)


def bernoulli(x, p=None, name=None):
    """0/1 samples, each 1 with probability ``x`` (or ``p`` everywhere when given), in the dtype
    of ``x``."""
    with no_grad():
        prob = x if p is None else _mg.full_like(x, p)
        return (_mg.rand(list(x.shape), dtype=x.dtype, device=x.place) < prob).astype(x.dtype)


def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):
    """``beta * input + alpha * (x @ y)``."""
    return _mg.addmm(input, x, y, beta=beta, alpha=alpha)


def addmm_(input, x, y, beta=1.0, alpha=1.0, name=None):
    """:func:`addmm` written into ``input``; returns it."""
    return _mg.addmm_(input, x, y, beta=beta, alpha=alpha)


def _logical_mask(x, y):
    """Ones in the bits an unsigned shift by ``y`` keeps: ``(1 << (width - y)) - 1`` (all ones
    when ``y`` is 0, since a shift by the full width gives 0 here)."""
    width = x._data.dtype.itemsize * 8
    one = _mg.ones([], dtype=x.dtype)
    return _mg.bitwise_left_shift(one, width - _mg.tensor(y, dtype=x.dtype) if not isinstance(
        y, Tensor) else width - y) - 1


def _unsigned(x):
    return x._data.dtype.kind == "u"


def bitwise_left_shift(x, y, is_arithmetic=True, out=None, name=None):
    """``x << y`` (the same for the arithmetic and the logical shift)."""
    return _mg.bitwise_left_shift(x, y, out=out) if out is not None else \
        _mg.bitwise_left_shift(x, y)


def bitwise_left_shift_(x, y, is_arithmetic=True, out=None, name=None):
    """:func:`bitwise_left_shift` written into ``x``; returns ``x``."""
    return _mg.bitwise_left_shift_(x, y)


def bitwise_right_shift(x, y, is_arithmetic=True, out=None, name=None):
    """``x >> y``; ``is_arithmetic=False`` shifts zeros in from the left (the logical shift,
    on the bits of a signed integer as if unsigned)."""
    r = _mg.bitwise_right_shift(x, y)
    if not is_arithmetic and not _unsigned(x):
        r = _mg.bitwise_and(r, _logical_mask(x, y))
    return assign(r, out) if out is not None else r


def bitwise_right_shift_(x, y, is_arithmetic=True, out=None, name=None):
    """:func:`bitwise_right_shift` written into ``x``; returns ``x``."""
    if is_arithmetic or _unsigned(x):
        return _mg.bitwise_right_shift_(x, y)
    mask = _logical_mask(x, y)
    return _mg.bitwise_and_(_mg.bitwise_right_shift_(x, y), mask)


def cumsum_(x, axis=None, dtype=None, name=None):
    """Cumulative sum written into ``x``; without ``axis`` ``x`` is flattened in place first
    (Paddle); returns ``x``.

    Example::

        >>> import mutograd.compat.paddle as paddle
        >>> x = paddle.ones([2, 2])
        >>> paddle.cumsum_(x) is x, x.tolist()
        (True, [1.0, 2.0, 3.0, 4.0])
    """
    if axis is None:
        _mg.flatten_(x)
        axis = 0
    if dtype is not None:
        _mg.cast_(x, dtype)
    return _mg.cumsum_(x, axis)


def tile(x, repeat_times, name=None):
    """``x`` repeated ``repeat_times`` times along each axis."""
    if isinstance(repeat_times, Tensor):
        repeat_times = repeat_times.tolist()
    return _mg.tile(x, [int(r) for r in repeat_times])


def trace(x, offset=0, axis1=0, axis2=1, name=None):
    """The sum of the diagonal ``offset`` of the matrices in the plane (``axis1``, ``axis2``)."""
    return _mg.diagonal(x, offset, axis1, axis2).sum(-1)


def count_nonzero(x, axis=None, keepdim=False, name=None):
    """The number of non-zero elements along ``axis`` (all axes when None)."""
    return (x != 0).astype("int64").sum(axis=axis, keepdim=keepdim)


def is_compiled_with_custom_device(device_type):
    """No custom (plug-in) devices here: False."""
    return False


def is_compiled_with_xpu():
    return False


def is_compiled_with_rocm():
    return False


def is_compiled_with_cinn():
    return False


def is_compiled_with_distribute():
    """Collectives run over MPI (``paddle.distributed``): True when mpi4py is importable."""
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


def shape(input):
    """The shape of ``input`` as an int32 1-d tensor (Paddle's ``paddle.shape``)."""
    return _mg.tensor(list(input.shape), dtype="int32")


def increment(x, value=1.0, name=None):
    """``x += value`` in place (``x`` has one element); returns ``x``."""
    return x.add_(value)


def add_n(inputs, name=None):
    """The sum of a list of tensors of one shape."""
    if isinstance(inputs, Tensor):
        return inputs.clone()
    out = inputs[0]
    for t in inputs[1:]:
        out = out + t
    return out if len(inputs) > 1 else out.clone()



def unique(x, return_index=False, return_inverse=False, return_counts=False, axis=None,
           dtype="int64", name=None):
    """The distinct values of ``x`` (flattened) or its distinct slices along ``axis``, sorted;
    with the index of each one's first occurrence, where each element (or slice) went, and how
    often each occurs, as ``dtype`` (Paddle's order of results).

        >>> import mutograd.compat.paddle as paddle
        >>> out, index, counts = paddle.unique(paddle.to_tensor([2, 3, 3, 1]),
        ...                                    return_index=True, return_counts=True)
        >>> out.tolist(), index.tolist(), counts.tolist()
        ([1, 2, 3], [3, 0, 1], [1, 1, 2])
    """
    xp, a = x._place.xp, x._data
    values, index, inverse, counts = xp.unique(
        a.reshape(-1) if axis is None else a, return_index=True, return_inverse=True,
        return_counts=True, axis=axis)
    idx = _dtypes.to_numpy(dtype)
    out = [_wrap(values, x)]
    for wanted, arr in ((return_index, index), (return_inverse, inverse.reshape(-1)),
                        (return_counts, counts)):
        if wanted:
            out.append(_wrap(arr.astype(idx), x))
    return out[0] if len(out) == 1 else tuple(out)
