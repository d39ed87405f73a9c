"""``torch.accelerator``: the device-generic questions, answered for mutograd's one accelerator
kind (CUDA through CuPy); on a machine without a GPU there is none.

    >>> import mutograd.compat.torch as torch
    >>> torch.accelerator.is_available() == torch.cuda.is_available()
    True
"""
from mutograd import cuda as _cuda
from mutograd.cuda import (  # noqa: F401
                           device_count,
                           empty_cache,
                           max_memory_allocated,
                           max_memory_reserved,
                           memory_allocated,
                           memory_reserved,
                           memory_stats,
                           reset_peak_memory_stats,
                           synchronize,
)


def is_available():
    """Whether a GPU can be used (False on a machine without one, or without CuPy)."""
    return _cuda.is_available()


def current_accelerator(check_available=False):
    """``torch.device('cuda')`` when a GPU is there, else None."""
    from . import device
    return device("cuda") if is_available() else None


def current_device_index():
    """The index of the current GPU (-1 when there is none)."""
    return _cuda.current_device() if is_available() else -1


def set_device_index(device):
    """Make GPU ``device`` the current one."""
    _cuda.set_device(device)


current_device_idx, set_device_idx = current_device_index, set_device_index
