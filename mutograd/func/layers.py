"""The vmap levels running in each thread, and what the framework sees while any runs.

Note [While vmap runs]
    Two process-wide hooks are installed while some thread is inside a vmap level and removed
    when none is; a thread that is not inside one sees their results unchanged:

    - every place's ``xp`` is a :class:`BatchedNamespace` over its backend module: the names
      of the module itself, except that ``asarray`` and its kin return batched arrays as they
      are (the runner wraps every result through ``place.xp.asarray``), and ``zeros``,
      ``ones``, ``empty`` and ``full`` give arrays batched at the thread's levels, so that a
      buffer an op or a gradient formula makes and then writes a batched value into has room
      for every sample. ``xp is numpy`` is then false, so the runner takes its generic path
      (no ufunc fast path, no buffer cache) inside vmap;
    - ``mutograd.random.generator`` hands out a generator that applies the levels'
      ``randomness``: ``'error'`` refuses a draw, ``'same'`` draws one sample's worth for the
      whole batch, ``'different'`` draws one per sample;
    - every declared op's forward and gradient formulas fall back to one sample at a time when
      they cannot run batched (Note [Per-op fallback] in func/op_fallback.py).
"""
import contextlib
import itertools
import threading

from . import op_fallback
from .batched_array import BatchedArray, VmapError


class Level:
    """One running vmap: its number, its batch size and its randomness."""

    __slots__ = ("ident", "randomness", "size")

    def __init__(self, ident, size, randomness):
        self.ident, self.size, self.randomness = ident, size, randomness


_idents = itertools.count(1)


class _Thread(threading.local):
    levels = ()   # outermost first


_thread = _Thread()
_lock = threading.Lock()
_users = 0
_saved = {}


def levels():
    """The vmap levels this thread is inside, outermost first."""
    return _thread.levels


@contextlib.contextmanager
def running(size=None, randomness="error", level=None):
    """Run inside a vmap level: a new one of batch ``size``, or ``level`` again (a backward
    through what it recorded). Yields the Level."""
    if level is None:
        level = Level(next(_idents), size, randomness)
    _install()
    prev = _thread.levels
    _thread.levels = prev + (level,)
    try:
        yield level
    finally:
        _thread.levels = prev
        _uninstall()


def _install():
    global _users
    with _lock:
        _users += 1
        if _users > 1:
            return
        from .. import places, random
        for place in list(places._places.values()):
            ns = BatchedNamespace(place.xp)
            _saved[place] = place.xp
            place.xp = ns
            places._by_xp[id(ns)] = places._by_xp.get(id(ns.base))
        _saved["generator"] = random.generator
        random.generator = _generator(random.generator)
        from ..ops.registry import OPS
        op_fallback.install(OPS.values())


def _uninstall():
    global _users
    with _lock:
        _users -= 1
        if _users:
            return
        from .. import places, random
        op_fallback.uninstall()
        random.generator = _saved.pop("generator")
        for place, xp in list(_saved.items()):
            places._by_xp.pop(id(place.xp), None)
            place.xp = xp
        _saved.clear()


def batched_new(make, shape, *args, **kwargs):
    """``make(shape, ...)`` batched at every level of this thread (Note [While vmap runs])."""
    lv = _thread.levels
    if not lv:
        return make(shape, *args, **kwargs)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    a = make(tuple(level.size for level in lv) + shape, *args, **kwargs)
    for level in lv:
        a = BatchedArray(a, level.ident)
    return a


class BatchedNamespace:
    """A backend module (``numpy``, ``cupy``) as a place's ``xp`` while vmap runs (Note [While
    vmap runs])."""

    def __init__(self, base):
        self.base = base
        self.lib = _Forward(base.lib, stride_tricks=_StrideTricks(base.lib.stride_tricks))

    def __getattr__(self, name):
        value = getattr(self.base, name)
        setattr(self, name, value)   # looked up once
        return value

    def asarray(self, a, dtype=None, *args, **kwargs):
        if isinstance(a, BatchedArray):
            return a if dtype is None or a.dtype == dtype else a.astype(dtype)
        return self.base.asarray(a, dtype, *args, **kwargs)

    asanyarray = asarray

    def array(self, a, dtype=None, *args, copy=True, **kwargs):
        if isinstance(a, BatchedArray):
            return a.astype(a.dtype if dtype is None else dtype, copy=copy)
        return self.base.array(a, dtype, *args, copy=copy, **kwargs)

    def ascontiguousarray(self, a, dtype=None, **kwargs):
        if isinstance(a, BatchedArray):
            return a.astype(a.dtype if dtype is None else dtype,
                            copy=not a.flags.c_contiguous or dtype not in (None, a.dtype))
        return self.base.ascontiguousarray(a, dtype, **kwargs)

    def zeros(self, shape, *args, **kwargs):
        return batched_new(self.base.zeros, shape, *args, **kwargs)

    def ones(self, shape, *args, **kwargs):
        return batched_new(self.base.ones, shape, *args, **kwargs)

    def empty(self, shape, *args, **kwargs):
        return batched_new(self.base.empty, shape, *args, **kwargs)

    def full(self, shape, fill_value, *args, **kwargs):
        if isinstance(fill_value, BatchedArray):
            out = batched_new(self.base.empty, shape, *args, dtype=fill_value.dtype, **kwargs)
            out[...] = fill_value
            return out
        return batched_new(self.base.full, shape, fill_value, *args, **kwargs)


class _Forward:
    """A module's names, some replaced."""

    def __init__(self, base, **replaced):
        self.base = base
        self.__dict__.update(replaced)

    def __getattr__(self, name):
        return getattr(self.base, name)


class _StrideTricks(_Forward):
    """``lib.stride_tricks`` whose ``as_strided`` takes a batched array: the strides given
    are a sample's, and each sample's view starts where the sample does."""

    def as_strided(self, x, shape=None, strides=None, subok=False, writeable=True):
        if not isinstance(x, BatchedArray):
            return self.base.as_strided(x, shape, strides, subok=subok, writeable=writeable)
        shape = x.shape if shape is None else tuple(shape)
        strides = x.strides if strides is None else tuple(strides)
        v = x.value
        return BatchedArray(self.as_strided(v, v.shape[:1] + shape, v.strides[:1] + strides,
                                            subok, writeable), x.level)


# ---- random draws -------------------------------------------------------------------------
_SIZE_AT = {"random": 0, "standard_normal": 0, "standard_cauchy": 0, "standard_exponential": 0,
            "normal": 2, "uniform": 2, "integers": 2, "lognormal": 2, "binomial": 2,
            "gamma": 2, "beta": 2, "exponential": 1, "geometric": 1, "poisson": 1,
            "standard_gamma": 1, "choice": 1}
_ERROR = ("vmap: called random operation while in randomness error mode. Please either use "
          "the 'same' or 'different' randomness flags on vmap or perform the randomness "
          "operation out of vmap")


def _generator(original):
    def generator(place=None, given=None):
        g = original(place, given)
        return _Draws(g, _thread.levels) if _thread.levels else g
    generator.__doc__ = original.__doc__
    return generator


class _Draws:
    """A generator seen from inside vmap: each draw follows the levels' randomness."""

    def __init__(self, rng, lv):
        self._rng, self._levels = rng, lv

    def __getattr__(self, name):
        attr = getattr(self._rng, name)
        if not callable(attr) or name.startswith("_") or name in ("bit_generator", "spawn"):
            return attr
        if any(level.randomness == "error" for level in self._levels):
            raise VmapError(_ERROR)
        different = [level for level in self._levels if level.randomness == "different"]
        if not different:
            return attr
        if name not in _SIZE_AT:
            raise VmapError(f"vmap: randomness='different' does not support the generator's "
                            f"{name}(); draw outside vmap, or use randomness='same'")
        return lambda *args, **kwargs: _draw(attr, _SIZE_AT[name], different, args, kwargs)


def _draw(method, at, different, args, kwargs):
    """``method`` with its size grown by the batch sizes of the ``different`` levels."""
    args = list(args)
    if "size" in kwargs:
        size = kwargs["size"]
    elif len(args) > at:
        size = args[at]
    else:
        size = None
    size = () if size is None else (size,) if isinstance(size, int) else tuple(size)
    size = tuple(level.size for level in different) + size
    if "size" in kwargs or len(args) <= at:
        kwargs["size"] = size
    else:
        args[at] = size
    a = method(*args, **kwargs)
    for level in different:
        a = BatchedArray(a, level.ident)
    return a
