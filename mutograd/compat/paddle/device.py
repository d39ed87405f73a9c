"""``paddle.device``: choosing the device, and ``paddle.device.cuda`` memory counters."""
import types

import mutograd as _mg
from mutograd import cuda as _cuda


def set_device(device):
    """``'cpu'``, ``'gpu'``, ``'gpu:N'``: where new tensors go (PlaceError without a GPU,
    saying whether CuPy or a visible device is missing); returns the Place."""
    return _mg.set_device(device)


def get_device():
    """``'cpu'`` or ``'gpu:N'``: where new tensors go."""
    return _mg.get_device()


def is_compiled_with_cuda():
    """Whether GPUs can be used here (CuPy installed and a device visible)."""
    return _cuda.is_available()


cuda = types.ModuleType("paddle.device.cuda", "GPU counters, as ``paddle.device.cuda``.")
for _n in ("device_count", "empty_cache", "max_memory_allocated", "max_memory_reserved",
           "memory_allocated", "memory_reserved", "synchronize"):
    setattr(cuda, _n, getattr(_cuda, _n))
