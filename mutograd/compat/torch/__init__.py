"""PyTorch's names and signatures over mutograd: ``import mutograd.compat.torch as torch``.

Its functions give ``torch.Tensor`` objects (``tensor.py``), which print as ``tensor([...])``,
report ``torch.float32`` and ``torch.Size([2])``, and need a scalar output for ``backward()``,
wherever they are used; the main namespace's tensors are not affected.

    >>> import mutograd.compat.torch as torch
    >>> w = torch.FloatTensor([[2.], [1.]]).requires_grad_()
    >>> f = torch.matmul(torch.tensor([[1., 2.]]), w).sum()
    >>> f.backward()
    >>> w.grad
    tensor([[1.],
            [2.]])
"""
import builtins as _builtins
import sys as _sys

import numpy as _np

import mutograd as _mg

from ...ops import views as _views
from ...ops.creation import shape_args as _shape_args
from ...tensor import Tensor as _Tensor
from ..namespace import public_names as _public_names
from .tensor import DTYPES as _DTYPES
from .tensor import Tensor

globals().update(_public_names())
from .tensor import Size  # noqa: E402  (over the main namespace's)

# ---- dtypes: PyTorch's objects and aliases (torch.int is int32, unlike numpy's default int) -----
float = float32 = _DTYPES[_np.dtype("float32")]
double = float64 = _DTYPES[_np.dtype("float64")]
half = float16 = _DTYPES[_np.dtype("float16")]
int = int32 = _DTYPES[_np.dtype("int32")]
long = int64 = _DTYPES[_np.dtype("int64")]
short = int16 = _DTYPES[_np.dtype("int16")]
int8, uint8 = _DTYPES[_np.dtype("int8")], _DTYPES[_np.dtype("uint8")]
bool = _DTYPES[_np.dtype("bool")]
cfloat = complex64 = _DTYPES[_np.dtype("complex64")]
cdouble = complex128 = _DTYPES[_np.dtype("complex128")]
dtype = _mg.dtypes.DType


class device:
    """``torch.device('cuda:0')`` / ``torch.device('cuda', 0)``: a device name, checked when a
    tensor is put there (so it can be made on a machine without a GPU, as in PyTorch)."""

    __slots__ = ("index", "type")

    def __init__(self, type="cpu", index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, _mg.Place):
            type, index = type.type, None if type.kind == "cpu" else type.index
        elif isinstance(type, _builtins.int):   # this namespace's ``int`` is a dtype
            type, index = "cuda", type
        kind, idx = _mg.places._parse(_builtins.str(type))
        self.type = "cpu" if kind == "cpu" else "cuda"
        self.index = idx if idx is not None else index

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        extra = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{extra})"

    def __eq__(self, other):
        if isinstance(other, (device, _builtins.str, _mg.Place)):
            try:
                return _builtins.str(self) == _builtins.str(device(other))
            except _mg.PlaceError:
                return False
        return NotImplemented

    def __hash__(self):
        return hash(_builtins.str(self))


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of ``data``; ``requires_grad`` makes it a leaf with grad."""
    return _mg.tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)


def is_tensor(obj):
    """Whether ``obj`` is a tensor (dense or sparse)."""
    return isinstance(obj, (_Tensor, sparse.SparseTensor))


def manual_seed(seed):
    """Seed the random generator (every place); returns ``default_generator``, as PyTorch."""
    return default_generator.manual_seed(seed)


default_generator = _mg.random.default_generator
# threads of large element-wise ops (mutograd.parallel); matrix products use BLAS's own
set_num_threads = _mg.set_num_threads
get_num_threads = _mg.get_num_threads


def initial_seed():
    """The seed of ``default_generator``."""
    return default_generator.initial_seed()


def seed():
    """Reseed ``default_generator`` from fresh entropy; returns the new seed."""
    return default_generator.seed()


def finfo(type=None):
    """The limits of a floating dtype (``bits``, ``eps``, ``max``, ``min``, ``tiny``, ...);
    the default dtype when none is given."""
    return _np.finfo(_mg.dtypes.to_numpy(type) or _mg.get_default_dtype().np)


def iinfo(type):
    """The limits of an integer dtype (``bits``, ``max``, ``min``)."""
    return _np.iinfo(_mg.dtypes.to_numpy(type))


inf, nan, pi, e = _np.inf, _np.nan, _np.pi, _np.e
_MATMUL_PRECISIONS = ("highest", "high", "medium")
_matmul_precision = "highest"


def compile(model=None, **options):
    """``torch.compile``: mutograd runs eagerly, so the model (or function) is returned as is;
    usable as ``compile(m)``, ``@compile`` and ``@compile(mode=...)``."""
    if model is None:
        return lambda m: m
    return model


def set_float32_matmul_precision(precision):
    """Accepted for scripts that set it; float32 products are always computed in float32."""
    global _matmul_precision
    if precision not in _MATMUL_PRECISIONS:
        raise ValueError(f"set_float32_matmul_precision(): precision must be one of "
                         f"{_MATMUL_PRECISIONS}, got {precision!r}")
    _matmul_precision = precision


def get_float32_matmul_precision():
    """The value last set by :func:`set_float32_matmul_precision` (``'highest'``)."""
    return _matmul_precision


def transpose(input, dim0, dim1):
    """Swap dimensions ``dim0`` and ``dim1`` (a view)."""
    return _views.transpose(input, dim0, dim1)


def split(tensor, split_size_or_sections, dim=0):
    """Views of pieces of size ``split_size_or_sections`` (an int) or of the listed sizes."""
    return _views.split(tensor, split_size_or_sections, dim)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether all elements are close, as a Python bool (PyTorch's convention)."""
    return _builtins.bool(input._place.xp.allclose(input._data, other._data, rtol, atol,
                                                   equal_nan))


def equal(input, other):
    """Whether both tensors have the same shape and elements."""
    return input.shape == other.shape and _builtins.bool((input._data == other._data).all())


fill = _mg.ops.registry.OPS["fill"].function
from ...autograd.grad_mode import is_inference_mode_enabled  # noqa: E402, F401
from . import _toplevel  # noqa: E402
from ._toplevel import div, divide, true_divide  # noqa: E402, F401 (rounding_mode=)

# the rest of PyTorch's top-level names (function forms, windows, switches, memory formats...)
globals().update({_n: getattr(_toplevel, _n) for _n in _toplevel.NAMES if _n not in globals()})
from . import _aten_nn, _legacy_linalg, _runtime_state, _statistics, _stft  # noqa: E402

# legacy linear algebra, ATen's nn spellings, statistics, stft and process-wide switches
for _m in (_legacy_linalg, _aten_nn, _statistics, _stft, _runtime_state):
    globals().update({_n: getattr(_m, _n) for _n in _m.NAMES})
from ...ops.creation import range_ as range  # noqa: E402, A001 (PyTorch's name)
from .serialization import load, save  # noqa: E402  (file objects; whole objects pickled)     # the out-of-place fill: a new tensor of ``value``s


# ---- legacy constructors: torch.Tensor(2, 3), torch.FloatTensor([[1., 2.]]) -----------------
class _LegacyType(type):
    """``FloatTensor(10)`` is 10 zeros, ``FloatTensor([[1., 2.]])`` is a copy of the data (a
    ``torch.Tensor``), and ``isinstance(x, FloatTensor)`` checks that ``x`` is a ``torch.Tensor``
    of that dtype."""

    def __call__(cls, *args, device=None, requires_grad=False):
        npd = cls._dtype.np if cls._dtype is not None else _mg.get_default_dtype().np
        if not args or _builtins.all(isinstance(a, (_builtins.int, _np.integer)) for a in args) or (
                len(args) == 1 and isinstance(args[0], _mg.Size)):
            t = _mg.zeros(_shape_args(args) if args else (0,), dtype=npd)
        elif len(args) == 1:
            t = _mg.tensor(args[0], dtype=npd)
        else:
            raise TypeError(f"{cls.__name__}() takes sizes as ints or one sequence of data, got "
                            f"{args!r}")
        t.__class__ = Tensor
        return t.requires_grad_() if requires_grad else t

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and (cls._dtype is None or obj.dtype == cls._dtype)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, Tensor)

    def __getattr__(cls, name):          # torch.FloatTensor.add_(x, y)
        return getattr(Tensor, name)


def _legacy(name, dt):
    return _LegacyType(name, (), {"_dtype": dt, "__module__": __name__,
                                  "__doc__": f"Legacy constructor of {dt or 'float'} tensors."})


FloatTensor = _legacy("FloatTensor", _mg.float32)
DoubleTensor = _legacy("DoubleTensor", _mg.float64)
HalfTensor = _legacy("HalfTensor", _mg.float16)
LongTensor = _legacy("LongTensor", _mg.int64)
IntTensor = _legacy("IntTensor", _mg.int32)
ShortTensor = _legacy("ShortTensor", _mg.int16)
CharTensor = _legacy("CharTensor", _mg.int8)
ByteTensor = _legacy("ByteTensor", _mg.uint8)
BoolTensor = _legacy("BoolTensor", _mg.bool)

from . import (  # noqa: E402, F401
    accelerator, amp, autograd, backends, cuda, distributions, fft, func, hub, linalg, nn, onnx,
    optim, special, utils)
from .func import vmap  # noqa: E402, F401  (torch.vmap is torch.func.vmap)
from .amp import GradScaler, autocast  # noqa: E402, F401

ModuleDict, ParameterDict = nn.ModuleDict, nn.ParameterDict   # (PyTorch exports them too)
from ..namespace import refuse_missing as _refuse_missing  # noqa: E402
from ..namespace import typed_functions as _typed_functions  # noqa: E402
from .out_arguments import out_functions as _out_functions  # noqa: E402

from . import distributed  # noqa: E402, F401  (torch.distributed, over MPI)
from . import sparse  # noqa: E402  (torch.sparse: mutograd.sparse's COO and CSR tensors)
from .sparse import (sparse_coo, sparse_coo_tensor, sparse_csr,  # noqa: E402, F401
                     sparse_csr_tensor, spmm)
# torch.mm(s, d), torch.matmul(s, d), torch.addmm(m, s, d) with a sparse s; else as they were
mm = sparse.sparse_first(globals()["mm"], sparse.mm)
matmul = sparse.sparse_first(globals()["matmul"], sparse.mm)
addmm = sparse.sparse_first(globals()["addmm"], sparse.addmm, position=1)

_refuse_missing(_sys.modules[__name__])
_typed_functions(_sys.modules[__name__], Tensor, _DTYPES, _out_functions())

from ..import_alias import hint_on_missing_import as _hint  # noqa: E402

_hint("torch")   # an uncaught "No module named 'torch'" says how to alias it
