"""``paddle.base``: the names Paddle's own tests and older Paddle code import from it - the
dygraph switches (mutograd always runs eagerly, so ``guard()`` changes nothing and
``in_dygraph_mode()`` is True), ``core``, ``framework``, ``wrapped_decorator``,
``unique_name``, places and flags.

    >>> import numpy as np, mutograd.compat.paddle as paddle
    >>> from mutograd.compat.paddle.base import core
    >>> with paddle.base.dygraph.guard():
    ...     x = paddle.base.dygraph.to_variable(np.ones(2, "float32"))
    >>> paddle.base.in_dygraph_mode(), x.tolist(), x.dtype == core.VarDesc.VarType.FP32
    (True, [1.0, 1.0], True)
"""
from ..framework import get_flags, set_flags
from ..nn.initializer import ParamAttr
from . import core, dygraph, framework, unique_name, wrapped_decorator
from .core import CPUPlace, CUDAPinnedPlace, CUDAPlace
from .dygraph.base import disable_dygraph, enable_dygraph
from .framework import (
    in_dygraph_mode,
    in_dynamic_or_pir_mode,
    in_pir_mode,
    is_compiled_with_cinn,
    is_compiled_with_cuda,
    is_compiled_with_rocm,
    is_compiled_with_xpu,
)

Tensor = core.eager.Tensor
enable_imperative, disable_imperative = enable_dygraph, disable_dygraph

__all__ = ["CPUPlace", "CUDAPinnedPlace", "CUDAPlace", "ParamAttr", "Tensor", "core",
           "disable_dygraph", "disable_imperative", "dygraph", "enable_dygraph",
           "enable_imperative", "framework", "get_flags", "in_dygraph_mode",
           "in_dynamic_or_pir_mode", "in_pir_mode", "is_compiled_with_cinn",
           "is_compiled_with_cuda", "is_compiled_with_rocm", "is_compiled_with_xpu", "set_flags",
           "unique_name", "wrapped_decorator"]
