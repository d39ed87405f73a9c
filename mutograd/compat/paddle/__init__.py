"""Paddle's names and signatures over mutograd: ``import mutograd.compat.paddle as paddle``.

Its functions give ``paddle.Tensor`` objects (``tensor.py``), on which ``x.split(2)`` makes two
pieces, ``x.max(1)`` gives the values and ``x.uniform_()`` samples [-1, 1), wherever they are
used; the main namespace's tensors are not affected.

    >>> import mutograd.compat.paddle as paddle
    >>> a = paddle.randn([3, 4])
    >>> a.stop_gradient = False
    >>> x = a.scale(2.0)
    >>> y = x.scale_(2.0)              # in place: y is x
    >>> y.backward()
    >>> a.grad.mean().item()
    4.0
"""
import builtins as _builtins
import sys as _sys

import mutograd as _mg

from ...ops.creation import shape_args as _shape_args
from ...ops.registry import OPS as _OPS
from ...ops.registry import call as _call
from ...ops.registry import call_inplace as _call_inplace
from ...tensor import Tensor as _Tensor
from ..namespace import public_names as _public_names
from .tensor import DTYPES as _DTYPES
from .tensor import Tensor

globals().update(_public_names())
globals().update({_d.name: _d for _d in _DTYPES.values()})   # paddle.float32, ...
float, int, short = float32, int32, int16   # noqa: F821  (Paddle 3's aliases, as PyTorch's)
dtype = _mg.dtypes.DType
# the Paddle release whose API this namespace follows (programs compare it before using an API)
__version__ = "3.3.1"


def _shape(shape, dtype, fn):
    """Paddle takes the shape as one list (or int, or Tensor); ``randn(3, 4)`` is a mistake."""
    if dtype is not None and not isinstance(dtype, (str, _mg.dtypes.DType)) and not (
            isinstance(dtype, type)):
        raise TypeError(f"paddle.{fn}(shape, dtype): dtype got {dtype!r}; pass the shape as "
                        f"one list, e.g. paddle.{fn}([3, 4])")
    if isinstance(shape, _Tensor) and shape.ndim == 0:
        shape = [_builtins.int(shape)]
    return _shape_args((shape,) if not isinstance(shape, _builtins.int) else ([shape],))


def _creator(name):
    make = getattr(_mg, name)

    def create(shape, dtype=None, name=None):
        return make(_shape(shape, dtype, make.__name__), dtype=dtype)
    create.__name__ = name
    create.__doc__ = f"A tensor of ``shape`` (a list) from ``{name}``; ``dtype`` float32 default."
    return create


randn, rand, zeros, ones, empty = (_creator(n) for n in ("randn", "rand", "zeros", "ones",
                                                         "empty"))
standard_normal = randn


def full(shape, fill_value, dtype=None, name=None):
    """A tensor of ``shape`` filled with ``fill_value``."""
    return _mg.full(_shape(shape, dtype, "full"), fill_value, dtype=dtype)


def randint(low=0, high=None, shape=(1,), dtype=None, name=None):
    """Integers in ``[low, high)`` (``[0, low)`` when ``high`` is None)."""
    return _mg.randint(low, high, _shape(shape, dtype, "randint"), dtype=dtype)


def uniform(shape, dtype=None, min=-1.0, max=1.0, seed=0, name=None):
    """Uniform samples in ``[min, max)``."""
    return _mg.uniform(_shape(shape, dtype, "uniform"), dtype=dtype, min=min, max=max)


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    """A new tensor holding a copy of ``data``; ``stop_gradient=False`` makes it need a grad
    (accepted on integers, as in Paddle: they take no gradient here)."""
    t = _mg.to_tensor(data, dtype=dtype, place=place)
    if not stop_gradient:
        if t._data.dtype.kind in "fc":
            t.stop_gradient = False
        else:
            t.__dict__["_int_stop_gradient"] = False   # tensor.py: reads back False
    return t


# Paddle's argument orders where they clash with PyTorch's (which the main namespace takes)
from .orders import (  # noqa: E402
    fill_diagonal_, gather, index_add, index_add_, index_fill, index_fill_, index_select,
    polygamma, scatter, scatter_, set_, transpose, transpose_)


def max(x, axis=None, keepdim=False, name=None):
    """The largest values along ``axis`` (all axes when None)."""
    return _call(_OPS["amax"], [x], {"axis": axis, "keepdim": keepdim})


def min(x, axis=None, keepdim=False, name=None):
    """The smallest values along ``axis`` (all axes when None)."""
    return _call(_OPS["amin"], [x], {"axis": axis, "keepdim": keepdim})


def sum(x, axis=None, dtype=None, keepdim=False, name=None):
    """Sum along ``axis`` (Paddle's argument order: ``dtype`` before ``keepdim``)."""
    return _mg.sum(x, axis=axis, keepdim=keepdim, dtype=dtype)


def _matmul_args(x, y, transpose_x, transpose_y):
    if transpose_x:
        x = x.mT if x.ndim > 1 else x
    if transpose_y:
        y = y.mT if y.ndim > 1 else y
    return x, y


def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    """Matrix product, optionally of the transposes of ``x`` and ``y``."""
    return _mg.matmul(*_matmul_args(x, y, transpose_x, transpose_y))


def matmul_(x, y, transpose_x=False, transpose_y=False, name=None):
    """Matrix product written into ``x`` (which must have the product's shape); returns ``x``."""
    if transpose_x:
        raise ValueError("paddle.matmul_(x, y, transpose_x=True): x is the output and cannot be "
                         "transposed; transpose y or use matmul()")
    return _call_inplace(_OPS["matmul"], [x, _matmul_args(x, y, False, transpose_y)[1]], {})


from .autograd import grad  # noqa: E402, F401  (paddle.grad is paddle.autograd.grad)


def allclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """Whether all elements are close, as a bool Tensor (Paddle's convention)."""
    xp = x._place.xp
    close = xp.allclose(x._data, _mg.tensor(y)._data, rtol, atol, equal_nan)
    return _mg.tensor(_builtins.bool(close))


def disable_static(place=None):
    """mutograd always runs eagerly (dynamic graph mode); nothing to switch."""


def enable_static():
    raise NotImplementedError("mutograd runs eagerly only; Paddle's static graph mode is not "
                              "part of it")


def CPUPlace():
    """The CPU place."""
    return _mg.places.CPU


def CUDAPlace(id=0):
    """GPU ``id`` (PlaceError when CuPy or the device is missing, saying which)."""
    return _mg.places.get(f"gpu:{_builtins.int(id)}")


def seed(value):
    """Seed the random generator of every place; returns the seed."""
    return _mg.seed(value)


def is_tensor(x):
    return isinstance(x, _Tensor)


def in_dynamic_mode():
    """mutograd always runs eagerly."""
    return True


from . import functions as _functions  # noqa: E402
from .functions import (  # noqa: E402, F401
    add_n, addmm, addmm_, assign, bernoulli, bitwise_left_shift, bitwise_left_shift_,
    bitwise_right_shift, bitwise_right_shift_, broadcast_to, count_nonzero, cumsum_, expand,
    expand_as, increment, is_compiled_with_cinn, is_compiled_with_custom_device,
    is_compiled_with_distribute, is_compiled_with_rocm, is_compiled_with_xpu, tile, trace,
    unique)

globals()["shape"] = _functions.shape     # paddle.shape(x); a parameter name above
globals().update(_functions.with_name(_functions.PASS_THROUGH))   # ger, range, split

for _n, _names in _functions.RENAMED.items():
    if _n in globals():
        globals()[_n] = _functions.renamed(globals()[_n], _names)
concat = _functions.one_dtype(concat, "concat")  # noqa: F821
stack = _functions.one_dtype(stack, "stack")  # noqa: F821
randn, rand, zeros, ones, empty, full, standard_normal, uniform = (
    _functions._creation(f) for f in (randn, rand, zeros, ones, empty, full, standard_normal,
                                      uniform))

from . import (  # noqa: E402, F401
    autograd, base, device, distribution, fft, incubate, io, linalg, metric, nn, optimizer,
    signal, sparse, vision)
from .linalg import cholesky, eigvalsh, norm, vecdot  # noqa: E402, F401  (also at the top)
from ._statistics import histogramdd, mean, nanmedian, nanquantile  # noqa: E402, F401
from . import tensor_ops as _tensor_ops  # noqa: E402
from .tensor_ops import (  # noqa: E402, F401
    broadcast_shape, broadcast_shapes, crop, e, equal_all, gather_nd, index_sample, inf,
    is_complex, is_empty, is_floating_point, is_integer, matrix_transpose, multiplex, nan, newaxis,
    pi, rank, reduce_as, reverse, scatter_nd, scatter_nd_add, stanh, strided_slice, tolist,
    unstack)

globals()["slice"] = _tensor_ops.slice
_tensor_ops.install(globals())
from .framework import (  # noqa: E402, F401
    BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor, IntTensor,
    LazyGuard, LongTensor, ShortTensor, asarray, batch, cdouble, cfloat, check_shape,
    create_parameter, disable_signal_handler, finfo, get_cuda_rng_state, get_flags,
    get_rng_state, iinfo, set_cuda_rng_state, set_flags, set_rng_state)
from .nn.functional import (  # noqa: E402, F401  (Paddle 3 exposes these at the top too)
    adaptive_avg_pool1d, conv1d, conv2d, conv3d, group_norm, layer_norm)

concatenate = concat  # noqa: F821  (from the main namespace)
from .nn.initializer import ParamAttr  # noqa: E402, F401

from .device import get_device, is_compiled_with_cuda, set_device  # noqa: E402, F401
from .checkpoints import load, save  # noqa: E402, F401  (Paddle's file format)

from ..namespace import refuse_missing as _refuse_missing  # noqa: E402

from . import distributed  # noqa: E402, F401  (paddle.distributed, over MPI)
from . import callbacks, hapi, static  # noqa: E402, F401  (paddle.Model's API)
from .hapi import Model, summary  # noqa: E402, F401
from .distributed import DataParallel  # noqa: E402, F401

_refuse_missing(_sys.modules[__name__])
from ._refusals import install as _install_refusals  # noqa: E402

_install_refusals(_sys.modules[__name__])
from ..namespace import typed_functions as _typed_functions  # noqa: E402

_typed_functions(_sys.modules[__name__], Tensor, _DTYPES)

from ..import_alias import hint_on_missing_import as _hint  # noqa: E402

_hint("paddle")   # an uncaught "No module named 'paddle'" says how to alias it
