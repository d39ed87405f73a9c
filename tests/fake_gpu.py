"""A test-only GPU backend: places ``gpu:0`` and ``gpu:1`` whose array namespace is a thin
wrapper over NumPy, so the GPU code paths (places, transfers, per-place memory and random
generators, place checks) run on a machine without a GPU.

By default (``strict``) its arrays are ``DevArray``s, a NumPy subclass that, like a CuPy
array, refuses to be computed with a host array: a NumPy call or a host buffer that slipped into
the math of a GPU tensor fails the test instead of passing silently.

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


class DevArray(np.ndarray):
    """A "device" array for the strict fake backend: like a CuPy array, it refuses to be mixed
    with host (NumPy) arrays in a computation, so a NumPy call on tensor data is caught."""

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kw):
        _no_host(ufunc.__name__, inputs + (out or ()))
        args = [_host(a) for a in inputs]
        if out is not None:
            kw["out"] = tuple(_host(o) for o in out)
        return _dev(getattr(ufunc, method)(*args, **kw))

    def __array_function__(self, func, types, args, kwargs):
        _no_host(func.__name__, args + tuple(kwargs.values()))
        return _dev(func(*_host_all(args), **{k: _host_all((v,))[0] for k, v in
                                                kwargs.items()}))


def _no_host(name, items):
    for a in items:
        if isinstance(a, (list, tuple)):
            _no_host(name, a)
        elif type(a) is np.ndarray and a.ndim:
            raise TypeError(f"fake GPU: host array of shape {a.shape} given to {name}")


def _host(a):
    return a.view(np.ndarray) if isinstance(a, DevArray) else a


def _host_all(items):
    return tuple(type(i)(_host_all(i)) if isinstance(i, (list, tuple)) else _host(i)
                 for i in items)


def _dev(r):
    if isinstance(r, tuple):
        return tuple(_dev(x) for x in r)
    return r.view(DevArray) if type(r) is np.ndarray else r


class StrictXP(FakeXP):
    """The fake namespace whose results are DevArrays."""

    ndarray = DevArray

    def __getattr__(self, name):
        f = getattr(np, name)
        if not callable(f) or isinstance(f, (type, np.ufunc)):   # ufuncs dispatch themselves
            return f
        return lambda *a, **k: _dev(f(*_host_all(a), **{n: _host_all((v,))[0]
                                                         for n, v in k.items()}))

    @staticmethod
    def asarray(a, dtype=None):
        return _dev(np.asarray(_host(a), dtype=dtype))

    @staticmethod
    def asnumpy(a):
        return np.array(_host(a), copy=True)


def _as_strided(x, shape=None, strides=None):   # CuPy's signature
    return _dev(np.lib.stride_tricks.as_strided(_host(x), shape, strides))


strict_xp = StrictXP("fake_gpu_xp")
def _sliding_window_view(x, window_shape, axis=None):
    return _dev(np.lib.stride_tricks.sliding_window_view(_host(x), window_shape, axis))


strict_xp.lib = types.SimpleNamespace(stride_tricks=types.SimpleNamespace(
    as_strided=_as_strided, sliding_window_view=_sliding_window_view))


def _to_device(arr, index):
    transfers.append(("to_device", index, arr.nbytes))
    return np.array(arr, copy=True)


def _to_host(arr):
    transfers.append(("to_host", None, arr.nbytes))
    return np.array(arr, copy=True)


def register(count=2, strict=True):
    """Register the fake backend as ``'gpu'`` with ``count`` visible devices; ``strict``: its
    arrays refuse to mix with NumPy arrays, as CuPy's do."""
    transfers.clear()
    if strict:
        return places.register_backend(
            "gpu", strict_xp, device_count=lambda: count,
            to_device=lambda a, i: _dev(_to_device(_host(a), i)),
            to_host=lambda a: _to_host(_host(a)), special=scipy.special,
            make_generator=lambda seed: _StrictGen(np.random.default_rng(seed)),
            memory=lambda index: {"pool_used_bytes": 0})
    return places.register_backend(
        "gpu", xp, device_count=lambda: count, to_device=_to_device, to_host=_to_host,
        special=scipy.special, memory=lambda index: {"pool_used_bytes": 0})


class _StrictGen:
    def __init__(self, g):
        self.g = g

    def __getattr__(self, name):
        f = getattr(self.g, name)
        return lambda *a, **k: _dev(f(*a, **k))


def unregister():
    places.unregister_backend("gpu")
