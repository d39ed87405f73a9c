"""``paddle.base.core``: what Python code reads from Paddle's C++ core - what the build has
(``is_compiled_with_*``), places, the dtype enums (``VarDesc.VarType``, ``DataType``) and
``eager`` (the Tensor class, ``_add_backward_final_hook``)."""
import types

import mutograd as _mg

from ....autograd.engine import after_next_backward
from ....tensor import Tensor
from .. import CPUPlace, CUDAPlace
from ..device import is_compiled_with_cuda
from ..functions import (
    is_compiled_with_cinn,
    is_compiled_with_custom_device,
    is_compiled_with_distribute,
    is_compiled_with_rocm,
    is_compiled_with_xpu,
)

__all__ = ["CPUPlace", "CUDAPinnedPlace", "CUDAPlace", "DataType", "VarDesc", "eager",
           "is_compiled_with_cinn", "is_compiled_with_cuda", "is_compiled_with_custom_device",
           "is_compiled_with_distribute", "is_compiled_with_ipu", "is_compiled_with_rocm",
           "is_compiled_with_xpu"]


def CUDAPinnedPlace():   # noqa: N802 - Paddle's name
    """Pinned host memory: NumPy memory is the CPU place here."""
    return CPUPlace()


def is_compiled_with_ipu():
    return False


_DTYPES = {"BOOL": "bool", "UINT8": "uint8", "INT8": "int8", "INT16": "int16",
           "INT32": "int32", "INT64": "int64", "FP16": "float16", "FP32": "float32",
           "FP64": "float64", "COMPLEX64": "complex64", "COMPLEX128": "complex128"}
_LONG = {"FP16": "FLOAT16", "FP32": "FLOAT32", "FP64": "FLOAT64"}


class VarDesc:
    """The legacy dtype enum: ``VarDesc.VarType.FP32`` is ``paddle.float32``."""

    VarType = types.SimpleNamespace(**{k: getattr(_mg, v) for k, v in _DTYPES.items()})


DataType = types.SimpleNamespace(**{_LONG.get(k, k): getattr(_mg, v)
                                    for k, v in _DTYPES.items()})   # the PIR dtype enum

eager = types.SimpleNamespace(
    Tensor=Tensor,
    _add_backward_final_hook=after_next_backward,
)
