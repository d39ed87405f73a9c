"""``paddle.base.framework``: the mode queries (always dygraph here), flags and places."""
import numpy as _np

from ..device import is_compiled_with_cuda
from ..framework import get_flags, set_flags
from ..functions import is_compiled_with_cinn, is_compiled_with_rocm, is_compiled_with_xpu
from .core import CPUPlace

__all__ = ["convert_np_dtype_to_dtype_", "get_flags", "in_dygraph_mode",
           "in_dynamic_or_pir_mode", "in_pir_mode", "is_compiled_with_cinn",
           "is_compiled_with_cuda", "is_compiled_with_rocm", "is_compiled_with_xpu", "set_flags",
           "use_pir_api"]


def in_dygraph_mode():
    """True: mutograd always runs eagerly."""
    return True


in_dynamic_or_pir_mode = in_dygraph_mode


def in_pir_mode():
    """False: there are no static programs here."""
    return False


def use_pir_api():
    """False: no static-graph IR is used."""
    return False


def _current_expected_place():
    return CPUPlace()


def convert_np_dtype_to_dtype_(np_dtype):
    """The dtype of a NumPy dtype (or its name)."""
    import mutograd as mg
    return getattr(mg, _np.dtype(np_dtype).name)
