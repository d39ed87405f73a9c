"""Paddle's framework-level names: dtype aliases, ``finfo``/``iinfo``, the random state,
flags, ``LazyGuard``, ``create_parameter``, the legacy ``batch`` reader and the
typed tensor constructors (``paddle.FloatTensor([...])``).

    >>> import mutograd.compat.paddle as paddle
    >>> state = paddle.get_rng_state()
    >>> a = paddle.rand([2])
    >>> paddle.set_rng_state(state)
    >>> bool((paddle.rand([2]) == a).all())
    True
"""
import builtins
import contextlib

import numpy as np

import mutograd as _mg

from ... import random as _random
from ...tensor import Tensor

float = _mg.float32
cfloat, cdouble = _mg.complex64, _mg.complex128


class finfo:
    """Machine limits of a floating dtype: ``bits``, ``eps``, ``min``, ``max``, ``tiny``,
    ``smallest_normal``, ``resolution``, ``dtype``."""

    def __init__(self, dtype):
        f = np.finfo(np.dtype(str(getattr(dtype, "name", dtype))))
        self.bits, self.eps, self.min, self.max = f.bits, float_(f.eps), float_(f.min), \
            float_(f.max)
        self.tiny = self.smallest_normal = float_(f.tiny)
        self.resolution = float_(f.resolution)
        self.dtype = str(f.dtype)


class iinfo:
    """Limits of an integer dtype: ``bits``, ``min``, ``max``, ``dtype``."""

    def __init__(self, dtype):
        i = np.iinfo(np.dtype(str(getattr(dtype, "name", dtype))))
        self.bits, self.min, self.max, self.dtype = i.bits, int(i.min), int(i.max), str(i.dtype)


def float_(v):
    return builtins.float(v)     # this module's ``float`` is the dtype


def get_rng_state(device=None):
    """The random generator's state, as a list (one entry: the CPU generator)."""
    return [_random.get_state()]


def set_rng_state(state_list, device=None):
    """Restore a state from :func:`get_rng_state`."""
    _random.set_state(state_list[0] if isinstance(state_list, list) else state_list)


get_cuda_rng_state, set_cuda_rng_state = get_rng_state, set_rng_state

_FLAGS = {}


def set_flags(flags):
    """Record Paddle runtime flags (``{'FLAGS_...': value}``); none of them changes anything
    here, and :func:`get_flags` reads them back."""
    _FLAGS.update(flags)


def get_flags(flags):
    """The values :func:`set_flags` recorded (None for a flag never set)."""
    names = [flags] if isinstance(flags, str) else list(flags)
    return {n: _FLAGS.get(n) for n in names}


def disable_signal_handler():
    """Paddle installs its own signal handlers; mutograd installs none."""


@contextlib.contextmanager
def LazyGuard():
    """Paddle delays parameter initialisation inside; here parameters are made at once (the
    results are the same, only when memory is taken differs)."""
    yield


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False,
                     default_initializer=None):
    """A new Parameter of ``shape`` and ``dtype``, set up as ``Layer.create_parameter`` does."""
    from .nn.layers import Layer
    return Layer.create_parameter(Layer(), shape, attr, dtype, is_bias, default_initializer)


def check_shape(shape, op_name="", expected_shape_type=(list, tuple, Tensor),
                expected_element_type=(int, Tensor), expected_tensor_dtype=("int32", "int64")):
    """Refuse a shape that is not a list/tuple/Tensor of ints (TypeError)."""
    if not isinstance(shape, expected_shape_type):
        raise TypeError(f"{op_name}: shape must be one of {expected_shape_type}, got "
                        f"{type(shape).__name__}")
    if isinstance(shape, (list, tuple)):
        for s in shape:
            if not isinstance(s, expected_element_type):
                raise TypeError(f"{op_name}: each element of shape must be an int, got "
                                f"{type(s).__name__}")


def batch(reader, batch_size, drop_last=False):
    """A reader of lists of ``batch_size`` samples from ``reader`` (a function returning an
    iterator), the legacy ``paddle.batch``."""
    def batched():
        b = []
        for sample in reader():
            b.append(sample)
            if len(b) == batch_size:
                yield b
                b = []
        if b and not drop_last:
            yield b
    return batched


def _typed(name, dtype):
    def make(*data):
        if len(data) == 1 and not isinstance(data[0], int):
            return _mg.tensor(data[0], dtype=dtype)
        return _mg.zeros(list(data), dtype=dtype)
    make.__name__ = name
    make.__doc__ = f"``{name}([...])``: a {dtype} tensor of the data; ``{name}(2, 3)``: zeros."
    return make


FloatTensor, DoubleTensor, HalfTensor = (_typed(n, d) for n, d in (
    ("FloatTensor", "float32"), ("DoubleTensor", "float64"), ("HalfTensor", "float16")))
IntTensor, LongTensor, ShortTensor = (_typed(n, d) for n, d in (
    ("IntTensor", "int32"), ("LongTensor", "int64"), ("ShortTensor", "int16")))
CharTensor, ByteTensor, BoolTensor = (_typed(n, d) for n, d in (
    ("CharTensor", "int8"), ("ByteTensor", "uint8"), ("BoolTensor", "bool")))


def asarray(obj, dtype=None, device=None, copy=None, requires_grad=False):
    """A tensor of ``obj`` (shares a NumPy array's memory when no copy or cast is needed)."""
    t = obj if isinstance(obj, Tensor) else (
        _mg.from_numpy(obj) if isinstance(obj, np.ndarray) and dtype is None and not copy
        else _mg.tensor(obj, dtype=dtype))
    if dtype is not None and isinstance(obj, Tensor):
        t = t.astype(dtype)
    if requires_grad:
        t.stop_gradient = False
    return t

