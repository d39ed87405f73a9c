"""Making tensors: from data, filled, ranges, and random (the in-place fills are in fills.py),
and PyTorch's own creation functions: ``scalar_tensor``, the deprecated inclusive ``range``
(``range_`` here, ``torch.range`` in the PyTorch namespace), and the legacy constructors
``x.new(...)`` and ``x.new_empty_strided(...)``.

    >>> import mutograd as mg
    >>> from mutograd.ops.creation import range_
    >>> range_(1, 3).tolist(), mg.scalar_tensor(2).item()
    ([1.0, 2.0, 3.0], 2.0)
"""
import contextlib
import math

import numpy as np

from .. import dtypes, memory, random
from ..errors import ArgumentError, DTypeError
from ..places import Place
from ..places import get as get_place
from ..tensor import Size, Tensor, _wrap, of_type_of
from ..transfer import on_place, to_place


def _array_from(data, dtype=None, copy=True):
    """A NumPy array from Python data, arrays or tensors; Python floats become float32."""
    npd = dtypes.to_numpy(dtype)
    if isinstance(data, Tensor):
        arr = data._data
        return arr.astype(npd) if npd is not None and npd != arr.dtype else (
            arr.copy() if copy else arr)
    if isinstance(data, np.ndarray) or hasattr(data, "__array_interface__"):
        return _numeric(np.array(data, dtype=npd, copy=copy), data)
    if isinstance(data, (list, tuple)):
        if any(isinstance(d, Tensor) for d in _flat(data)):
            data = _unwrap(data)
        if npd is not None:   # NumPy would parse "1.5" and turn None into nan for a dtype
            bad = [t for t in _leaf_types(data) if issubclass(t, (str, bytes, type(None)))]
            if bad:
                _refuse(data, bad[0])
    elif data is None or isinstance(data, (str, bytes)):
        _refuse(data)
    arr = _numeric(np.array(data, dtype=npd), data)
    if npd is None and arr.dtype == np.float64 and not _has_numpy_float64(data):
        arr = arr.astype(dtypes.default_float.np)
    if npd is None and arr.dtype == np.complex128:
        arr = arr.astype(np.complex64) if dtypes.default_float.np == np.float32 else arr
    return arr


def _numeric(arr, data):
    """``arr``, refused unless it holds numbers: strings, bytes and Python objects (None, a dict)
    make NumPy arrays, not tensors."""
    if arr.dtype.kind in "OSUVMm":
        inner = None
        if isinstance(data, (list, tuple)):
            inner = next((t for t in _leaf_types(data) if not issubclass(t, (int, float, complex))
                          and not hasattr(t, "dtype")), None)
        _refuse(data, inner, arr.dtype)
    return arr


def _leaf_types(data):
    """The types of the non-list items of nested lists and tuples, in order of first sight (a
    set of types per list: C speed, where a generator over every item doubled the cost of
    ``mg.tensor(list, dtype=...)``)."""
    types = dict.fromkeys(map(type, data))
    if list in types or tuple in types:
        types.pop(list, None)
        types.pop(tuple, None)
        for d in data:
            if type(d) is list or type(d) is tuple:
                types.update(dict.fromkeys(_leaf_types(d)))
    return list(types)


def _refuse(data, inner=None, dtype=None):
    what = type(data).__name__
    if inner is not None:
        what += f" holding {inner.__name__}"
    elif dtype is not None and isinstance(data, np.ndarray):
        what += f" of dtype {dtype}"
    elif isinstance(data, (str, bytes)):
        what += f" {data[:20]!r}"
    raise DTypeError(f"a tensor holds numbers (a number, nested lists of numbers, an array or a "
                     f"tensor), not {what}")


def _flat(data):
    for d in data:
        if isinstance(d, (list, tuple)):
            yield from _flat(d)
        else:
            yield d


def _unwrap(data):
    return [_unwrap(d) if isinstance(d, (list, tuple)) else
            (d._data if isinstance(d, Tensor) else d) for d in data]


def _has_numpy_float64(data):
    return isinstance(data, np.float64)


def _where(place, device):
    """The Place a factory makes its tensor on (the default place when neither is given)."""
    return get_place(place if place is not None else device)


def _finish(t, requires_grad=False, stop_gradient=None, place=None, device=None):
    place = place if isinstance(place, Place) else _where(place, device)
    if place is not t._place:
        t = to_place(t, place)
    if stop_gradient is not None:
        requires_grad = not stop_gradient
    if requires_grad:
        t.requires_grad = True
    return t


def tensor(data, dtype=None, place=None, device=None, requires_grad=False, stop_gradient=None,
           pin_memory=False):
    """A new tensor holding a copy of ``data`` (Python numbers, nested lists, arrays, tensors).

    Example::

        >>> import mutograd as mg
        >>> mg.tensor([[1., 2.], [3., 4.]]).shape
        [2, 2]
    """
    if hasattr(data, "__cuda_array_interface__") and not isinstance(data, Tensor):
        from ..transfer import from_dlpack   # a CuPy array or a CUDA tensor: copied on its GPU
        data = from_dlpack(data)
    src = data._place if isinstance(data, Tensor) else get_place("cpu")
    return _finish(on_place(_array_from(data, dtype, copy=True), src), requires_grad,
                   stop_gradient, place, device)


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    """Paddle's name for :func:`tensor`; ``stop_gradient=True`` by default."""
    return tensor(data, dtype=dtype, place=place, stop_gradient=stop_gradient)


def as_tensor(data, dtype=None, device=None):
    """A tensor sharing memory with a NumPy array when dtype allows, else a copy."""
    if isinstance(data, Tensor) and dtype is None:
        return data
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype)
    if isinstance(data, np.ndarray) and _where(None, device).kind == "cpu":
        return _wrap(_array_from(data, dtype, copy=False))
    return tensor(data, dtype=dtype, device=device)


def from_numpy(array):
    """A tensor sharing memory with ``array`` (writes through either are seen by the other)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy expects a numpy.ndarray, got {type(array).__name__}")
    dtypes.from_numpy(array.dtype)
    return _wrap(array)


def shape_args(args, kw=None, key="shape"):
    """A shape from varargs (``zeros(2, 3)``), a list or tuple (``zeros([2, 3])``) or a keyword."""
    if kw is not None:
        for k in (key, "size", "shape"):
            if k in kw:
                args = (kw.pop(k),)
                break
    if len(args) == 1 and isinstance(args[0], (list, tuple, Size)):
        args = tuple(args[0])
    elif len(args) == 1 and isinstance(args[0], Tensor):
        args = tuple(args[0].tolist()) if args[0].ndim else (int(args[0]),)
    shape = tuple(int(a) for a in args)
    if any(a < 0 for a in shape):
        raise ArgumentError(f"Trying to create tensor with negative dimension "
                            f"{min(shape)}: {list(shape)}")
    return shape


@contextlib.contextmanager
def _naming_oom(shape, npd, place):
    """A MemoryError inside names the tensor being made and what is live (memory.py), not the
    flat buffer NumPy tried to get."""
    try:
        yield
    except MemoryError as e:
        raise memory.out_of_memory(shape, npd, place) from e


def _factory(fill):
    def make(*shape, dtype=None, place=None, device=None, requires_grad=False,
             stop_gradient=None, name=None, **kw):
        shape = shape_args(shape, kw)
        _no_extra(kw, fill.__name__)
        npd = dtypes.to_numpy(dtype) or dtypes.default_float.np
        p = _where(place, device)
        with _naming_oom(shape, npd, p):
            arr = fill(p.xp, shape, npd)
        return _finish(on_place(arr, p), requires_grad, stop_gradient, p)
    make.__name__ = fill.__name__
    return make


def _no_extra(kw, name):
    kw.pop("out", None)
    kw.pop("layout", None)
    kw.pop("pin_memory", None)
    if kw:
        raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kw))}'")


def zeros(xp, shape, npd):
    return xp.zeros(shape, npd)


def ones(xp, shape, npd):
    return xp.ones(shape, npd)


def empty(xp, shape, npd):
    return xp.empty(shape, npd)


zeros, ones, empty = _factory(zeros), _factory(ones), _factory(empty)


def full(shape, fill_value, dtype=None, place=None, device=None, requires_grad=False,
         stop_gradient=None, name=None):
    """A tensor of ``shape`` filled with ``fill_value`` (dtype inferred from the value)."""
    shape = shape_args((shape,))
    if dtype is None:
        dtype = (dtypes.default_float.np if isinstance(fill_value, float) else
                 np.bool_ if isinstance(fill_value, bool) else
                 np.int64 if isinstance(fill_value, int) else None)
    fv = fill_value._data if isinstance(fill_value, Tensor) else fill_value
    p = _where(place, device)
    if isinstance(fill_value, Tensor) and fill_value._place is not p:
        fv = fill_value.to(p)._data
    npd = dtypes.to_numpy(dtype)
    with _naming_oom(shape, npd or np.asarray(fv).dtype, p):
        arr = p.xp.full(shape, fv, npd)
    return _finish(on_place(arr, p), requires_grad, stop_gradient, p)


def in_layout_of(t, x, memory_format=None):
    """``t``, a new tensor of ``x``'s shape, made of ``x``'s result type and laid out in memory
    as ``x`` is: PyTorch's ``memory_format=torch.preserve_format``, the default of every
    ``*_like`` factory (a transposed input gives a transposed result). ``contiguous_format``
    keeps ``t`` row-major."""
    of_type_of(t, x)
    a = x._data
    flags = getattr(a, "flags", None)   # (a batched array inside vmap has none)
    if a.ndim < 2 or flags is None or flags.c_contiguous or str(memory_format).endswith(
            ("contiguous_format", "contiguous")) or t._place is not x._place:
        return t
    r = memory.empty_preserving(t._place.xp, a, t._data.dtype)   # a's order of strides
    r[...] = t._data
    t._data = r
    return t


def _like(make):
    def like(x, dtype=None, place=None, device=None, requires_grad=False, stop_gradient=None,
             name=None, memory_format=None, **kw):
        _no_extra(kw, make.__name__ + "_like")
        t = make(tuple(x.shape), dtype=dtype or x.dtype, place=place or device or x.place,
                 requires_grad=requires_grad, stop_gradient=stop_gradient)
        return in_layout_of(t, x, memory_format)
    like.__name__ = make.__name__ + "_like"
    return like


zeros_like, ones_like, empty_like = _like(zeros), _like(ones), _like(empty)


def full_like(x, fill_value, dtype=None, place=None, device=None, requires_grad=False,
              stop_gradient=None, name=None, memory_format=None):
    return in_layout_of(full(tuple(x.shape), fill_value, dtype=dtype or x.dtype,
                             place=place or device or x.place, requires_grad=requires_grad,
                             stop_gradient=stop_gradient), x, memory_format)


def arange(start=0, end=None, step=1, dtype=None, place=None, device=None,
           requires_grad=False, stop_gradient=None, name=None):
    """Values from ``start`` to ``end`` (exclusive) by ``step``; int64 for int arguments."""
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if vals[2] == 0:
        raise ArgumentError("arange(): step must be nonzero")
    if dtype is None:
        dtype = np.int64 if all(isinstance(v, int) for v in vals) else dtypes.default_float.np
    p = _where(place, device)
    arr = p.xp.arange(*vals, dtype=dtypes.to_numpy(dtype))
    return _finish(on_place(arr, p), requires_grad, stop_gradient, p)


def linspace(start, stop, num, dtype=None, place=None, device=None, requires_grad=False,
             stop_gradient=None, name=None):
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive."""
    p = _where(place, device)
    npd = dtypes.to_numpy(dtype) or dtypes.default_float.np
    with _naming_oom((int(num),), npd, p):
        arr = _linspace(p.xp, start, stop, int(num), npd)
    return _finish(on_place(arr, p), requires_grad, stop_gradient, p)


def _linspace(xp, start, stop, num, dtype):
    """PyTorch's and Paddle's values: the first half counted up from ``start``, the second half
    down from ``stop``, in the dtype's own arithmetic (for an integer dtype: integer ends, a
    double step, values cut toward zero). They are symmetric where NumPy's ``start + i * step``
    is not: ``linspace(-1, 1, 6).sum()`` is 0 there, 2.2e-16 in NumPy."""
    if num < 0:
        raise ValueError(f"linspace: number of steps must be non-negative, got {num}")
    work = np.dtype(dtype) if np.dtype(dtype).kind in "fc" else np.dtype(np.float64)
    if work != np.dtype(dtype):   # the ends in the integer dtype first, as PyTorch casts them
        start, stop = np.dtype(dtype).type(int(start)), np.dtype(dtype).type(int(stop))
    a, b = work.type(start), work.type(stop)
    if num <= 1:
        return xp.full(num, a, dtype=work).astype(dtype, copy=False)
    step = (b - a) / work.type(num - 1)
    i = xp.arange(num, dtype=work)
    half = num // 2
    out = xp.empty(num, dtype=work)
    out[:half] = a + step * i[:half]
    out[half:] = b - step * (work.type(num - 1) - i[half:])
    return out.astype(dtype, copy=False)


def eye(n, m=None, dtype=None, place=None, device=None, requires_grad=False,
        stop_gradient=None, name=None, num_columns=None):
    """The identity matrix (``n`` x ``m``)."""
    m = m if m is not None else num_columns
    p = _where(place, device)
    npd = dtypes.to_numpy(dtype) or dtypes.default_float.np
    with _naming_oom((n, n if m is None else m), npd, p):
        arr = p.xp.eye(n, m, dtype=npd)
    return _finish(on_place(arr, p), requires_grad, stop_gradient, p)


# ---- random -------------------------------------------------------------------------------
def _float(dtype):
    return dtypes.to_numpy(dtype) or dtypes.default_float.np


def _random(sample):
    def make(*shape, dtype=None, place=None, device=None, requires_grad=False,
             stop_gradient=None, name=None, generator=None, **kw):
        shape = shape_args(shape, kw)
        _no_extra(kw, sample.__name__)
        p = _where(place, device)
        with _naming_oom(shape, _float(dtype), p):
            arr = sample(random.generator(p, generator), shape, _float(dtype))
        return _finish(on_place(arr, p), requires_grad, stop_gradient, p)
    make.__name__ = sample.__name__
    return make


def rand(gen, shape, npd):
    return _sample(gen.random, shape, npd)


def randn(gen, shape, npd):
    return _sample(gen.standard_normal, shape, npd)


def _sample(fn, shape, npd):
    if npd in (np.float32, np.float64):
        return fn(shape, dtype=npd)
    return fn(shape).astype(npd)


rand, randn = _random(rand), _random(randn)


def randint(low=0, high=None, shape=None, dtype=None, size=None, place=None, device=None,
            requires_grad=False, name=None, generator=None):
    """Integers in ``[low, high)``; ``randint(high, shape)`` draws from ``[0, high)``."""
    if isinstance(high, (list, tuple, Size)) and shape is None and size is None:
        low, high, shape = 0, low, high          # PyTorch's randint(high, size)
    if high is None:
        low, high = 0, low
    shape = shape_args((shape if shape is not None else size if size is not None else [1],))
    p = _where(place, device)
    arr = random.generator(p, generator).integers(low, high, shape).astype(
        dtypes.to_numpy(dtype) or np.int64)
    return _finish(on_place(arr, p), requires_grad, None, p)


def randint_like(x, low=0, high=None, dtype=None, device=None, memory_format=None):
    return in_layout_of(randint(low, high, tuple(x.shape), dtype=dtype or x.dtype,
                                place=device or x.place), x, memory_format)


def rand_like(x, dtype=None, device=None, memory_format=None):
    return in_layout_of(rand(tuple(x.shape), dtype=dtype or x.dtype, place=device or x.place),
                        x, memory_format)


def randn_like(x, dtype=None, device=None, memory_format=None):
    return in_layout_of(randn(tuple(x.shape), dtype=dtype or x.dtype, place=device or x.place),
                        x, memory_format)


def normal(mean=0.0, std=1.0, shape=None, size=None, dtype=None, name=None, generator=None):
    """Normal samples; ``mean``/``std`` may be tensors (element-wise parameters)."""
    m = mean._data if isinstance(mean, Tensor) else mean
    s = std._data if isinstance(std, Tensor) else std
    shape = shape if shape is not None else size
    if shape is None:
        shape = np.broadcast_shapes(np.shape(m), np.shape(s))
    shape = shape_args((shape,))
    like = mean if isinstance(mean, Tensor) else std if isinstance(std, Tensor) else None
    npd = _float(dtype or (like.dtype if like is not None else None))
    p = like.place if like is not None else _where(None, None)
    if like is not None:
        m, s = (_data_on(v, p) for v in (mean, std))
    arr = (random.generator(p, generator).standard_normal(shape) * s + m).astype(npd)
    return on_place(arr, p)


def _data_on(v, place):
    if not isinstance(v, Tensor):
        return v
    if v._place is not place:
        from ..places import check_same
        raise check_same("normal", place, v._place)
    return v._data


def uniform(*args, dtype=None, min=-1.0, max=1.0, seed=0, name=None, shape=None,
            requires_grad=False, stop_gradient=None):
    """Uniform samples in ``[min, max)``: Paddle's ``uniform(shape, dtype, min, max)``, or the
    shape as varargs (``uniform(2, 3, min=0.0)``)."""
    if shape is None:
        n = 1 if args and isinstance(args[0], (list, tuple, Size, Tensor)) else next(
            (i for i, a in enumerate(args) if not isinstance(a, int)), len(args))
        shape, args = (args[0] if n == 1 and not isinstance(args[0], int) else args[:n]), \
            args[n:]
    params = dict(zip(("dtype", "min", "max", "seed"), args))
    dtype, min, max = params.get("dtype", dtype), params.get("min", min), params.get("max", max)
    shape = shape_args((shape,))
    p = _where(None, None)
    arr = random.generator(p).uniform(min, max, shape).astype(_float(dtype))
    return _finish(on_place(arr, p), requires_grad, stop_gradient, p)


def randperm(n, dtype=None, device=None, requires_grad=False, generator=None):
    """A random permutation of ``0 .. n-1``."""
    p = _where(None, device)
    npd = dtypes.to_numpy(dtype) or np.int64
    gen = random.generator(p, generator)
    if p.kind == "cpu":
        return _wrap(gen.permutation(int(n)).astype(npd))
    return on_place(p.xp.argsort(gen.random(int(n))).astype(npd), p)


# ---- PyTorch's own: a 0-d tensor, the inclusive range, the legacy constructors --------------
def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False, layout=None,
                  pin_memory=False):
    """A 0-d tensor of ``s`` (of the default float dtype unless told otherwise)."""
    return tensor(float(s) if dtype is None else s, dtype=dtype or dtypes.default_float,
                  device=device, requires_grad=requires_grad)


def range_(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False,
           layout=None, out=None):
    """PyTorch's deprecated ``range``: ``start .. end`` *inclusive*, floats by default."""
    if end is None:
        start, end = 0, start
    n = int(math.floor((end - start) / step)) + 1
    return tensor(start + step * np.arange(n), dtype=dtype or dtypes.default_float,
                  device=device, requires_grad=requires_grad)


def _legacy_new(self, *args, **kw):
    """PyTorch's legacy ``x.new(...)``: ``Tensor(...)`` with ``x``'s dtype."""
    if not args:
        return of_type_of(empty(0, dtype=self.dtype), self)
    if all(isinstance(a, int) for a in args) or isinstance(args[0], Size):
        return of_type_of(empty(*args, dtype=self.dtype), self)
    return of_type_of(tensor(args[0], dtype=self.dtype), self)


TENSOR_METHODS = {
    "new": _legacy_new,
    "new_empty_strided": lambda self, size, stride, **kw: self.new_empty(*size, **kw),
}
FUNCTIONS = {"scalar_tensor": scalar_tensor}
