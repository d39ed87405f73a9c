"""mutograd: eager tensors, autograd, nn and optim on NumPy, where in-place and view operations
are correct, cheap, measurable and easy to debug.

    >>> import mutograd as mg
    >>> a = mg.randn([3, 4], requires_grad=True)
    >>> x = a * 2            # ordinary op: new storage
    >>> y = x.mul_(2)        # in-place op: same object, same storage
    >>> y is x
    True
    >>> v = x[1:, ::2]       # view: shares x's storage and version counter
"""
from . import dtypes, errors, memory, places
from .autograd import (Function, backward, enable_grad, grad, inference_mode, is_grad_enabled,
                       no_grad, set_grad_enabled)
from .autograd.anomaly import (detect_anomaly, is_anomaly_enabled,  # noqa: F401
                               set_detect_anomaly)
from .dtypes import (bool, complex64, complex128, float16, float32, float64, get_default_dtype,
                     int8, int16, int32, int64, set_default_dtype, uint8)
from .errors import (BackwardError, DTypeError, GatherIndexError, IndexRangeError, InplaceError,
                     MutogradError, OverlapError, PlaceError, ShapeError, VersionError)
from .places import CPU, Place
from .parallel import get_num_threads, set_num_threads  # noqa: F401
from .printing import set_printoptions
from .random import Generator, seed
from .strict import is_strict, set_strict, strict  # noqa: F401
from .tensor import Size, Tensor
from . import ops as _ops   # (declares every op and attaches Tensor's methods)
from .ops.creation import (arange, as_tensor, empty, empty_like, eye, from_numpy, full,
                           full_like, linspace, normal, ones, ones_like, rand, rand_like, randint,
                           randint_like, randn, randn_like, randperm, tensor, to_tensor, uniform,
                           zeros, zeros_like)

globals().update(_ops.PUBLIC)
manual_seed = seed
float_ = float32
double = float64
half = float16
long = int64

__version__ = "0.1.0"


def numel(x):
    return x.numel()


def is_tensor(obj):
    return isinstance(obj, Tensor)


def set_device(device):
    """Choose where new tensors go: ``'cpu'``, ``'gpu'``, ``'gpu:N'``, ``'cuda:N'`` (a GPU
    without CuPy or without a visible device is a PlaceError saying which)."""
    return places.set_default(device)


set_default_device = set_device


def get_device():
    """Where new tensors go, as Paddle names it: ``'cpu'`` or ``'gpu:0'``."""
    return str(places.default())


def get_default_device():
    return places.default()


# after the ops: nn, optim and data are built on them
from . import (  # noqa: E402, F401
    cuda, data, distributions, fft, func, linalg, nn, optim, sparse, transfer)
from .serialization.checkpoint import load, save  # noqa: E402, F401
from .transfer import from_dlpack, to_dlpack  # noqa: E402, F401
