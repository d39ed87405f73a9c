"""A test-only GPU backend: places ``gpu:0`` and ``gpu:1`` whose array namespace is a thin
wrapper over NumPy, so the GPU code paths (places, transfers, per-place memory and random
generators, place checks) run on a machine without a GPU. Arrays are NumPy arrays; what is
tested is that everything a GPU tensor touches goes through its place's ``xp``.

Use the ``fake_gpu`` fixture (tests/conftest.py): it registers the backend for one test and
removes it afterwards.
"""
import types

import numpy as np
import scipy.special

from mutograd import places

transfers = []   # (direction, nbytes) of every copy between places, for tests to inspect


class FakeXP(types.ModuleType):
    """NumPy under another name: a distinct ``xp`` object, so a place check that confused it with
    NumPy's would be seen."""

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def asnumpy(a):
        return np.array(a, copy=True)


xp = FakeXP("fake_gpu_xp")


def _to_device(arr, index):
    transfers.append(("to_device", index, arr.nbytes))
    return np.array(arr, copy=True)


def _to_host(arr):
    transfers.append(("to_host", None, arr.nbytes))
    return np.array(arr, copy=True)


def register(count=2):
    """Register the fake backend as ``'gpu'`` with ``count`` visible devices."""
    transfers.clear()
    return places.register_backend(
        "gpu", xp, device_count=lambda: count, to_device=_to_device, to_host=_to_host,
        special=scipy.special, memory=lambda index: {"pool_used_bytes": 0})


def unregister():
    places.unregister_backend("gpu")
