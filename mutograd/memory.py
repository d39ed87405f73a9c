"""Memory accounting and the caching allocator: every tensor storage is counted here.

A :class:`Storage` is created for each new buffer a tensor owns (views and in-place results
share their input's storage and create none), so ``allocated()`` is exact: tests assert that an
in-place op allocates 0 bytes. Counting is per place (a string key such as ``"cpu"``).

Example::

    >>> import mutograd as mg
    >>> before = mg.memory.allocated()
    >>> x = mg.zeros(1024)                     # 4096 bytes of float32
    >>> mg.memory.allocated() - before
    4096

Note [The buffer cache]
    A fresh large NumPy array costs page faults on first touch (a new 128 MiB array costs about
    twice the element-wise op written into it). Out-of-place element-wise ops whose result is at
    least ``threshold`` bytes therefore take their result buffer from a cache of raw buffers
    (``take``), grouped by size class. When the result tensor's storage dies, its raw buffer goes
    back to the cache (``Storage.__del__``). A raw buffer is handed out again only when nothing
    but the cache refers to it, checked with its reference count: every NumPy array that looks
    into it (the tensor's own data, an array the user got from ``numpy()``/``__array__``, a DLPack
    capsule, a saved value in a backward node) holds a reference to it as its ``base``, so memory
    that escaped is never reused while anyone can still see it. Buffers beyond ``cap`` bytes are
    dropped instead of cached; :func:`empty_cache` drops them all.

    Forwards and gradient formulas take their large results, temporaries and values kept for
    backward from the cache too, through :func:`empty`: its buffer goes back when the array it
    returned dies (and is again handed out only once no view of it is left). On a shared virtual
    machine a page fault costs about 2 us, so a transformer step that allocated its activations
    afresh spent a tenth of its time faulting.
"""
import os
import sys
import weakref

import numpy as np


class _Counters:
    """The counters of one place; a Storage points at its place's record."""

    __slots__ = ("copied", "copies", "count", "freed", "live", "name", "peak", "total")

    def __init__(self, name):
        self.name = name
        self.live = self.peak = self.count = self.total = self.freed = 0
        self.copied = self.copies = 0


_places = {}                  # place name -> _Counters
_recorder = None              # the active Timeline, if any (a check per allocation when off)


def _counters(place):
    c = _places.get(place)
    if c is None:
        c = _places[place] = _Counters(place)
    return c


class Storage:
    """Accounting record of one buffer; the buffer's bytes are freed from the counters with it.

    ``buf`` is the raw cached buffer behind the data when it came from the cache
    (Note [The buffer cache]); it goes back to the cache when the storage dies.
    """

    __slots__ = ("__weakref__", "buf", "counters", "nbytes")

    def __init__(self, nbytes, place="cpu"):
        self.nbytes = nbytes
        self.buf = None
        c = _places.get(place) or _counters(place)
        self.counters = c
        live = c.live + nbytes
        c.live = live
        c.count += 1
        c.total += nbytes
        if live > c.peak:   # noqa: PLR1730 (a compare is cheaper than max() on every op)
            c.peak = live
        if _recorder is not None:
            _recorder._event(self, nbytes)

    @property
    def place(self):
        return self.counters.name

    def __del__(self):
        c = self.counters
        c.live -= self.nbytes
        c.freed += 1
        if self.buf is not None:
            _give_back(self.buf)
        if _recorder is not None:
            _recorder._event(self, -self.nbytes)


def _key(place):
    if place is None:
        return "cpu"
    from .places import get_name   # 'cuda:1' and 'gpu:1' are one place
    return get_name(place)


def allocated(place=None):
    """Bytes held by live tensor storages on ``place`` (default: the CPU)."""
    return _counters(_key(place)).live


def max_allocated(place=None):
    """The largest value of :func:`allocated` since the start or the last :func:`reset_peak`."""
    return _counters(_key(place)).peak


def reset_peak(place=None):
    """Start measuring the peak afresh from the current allocation."""
    c = _counters(_key(place))
    c.peak = c.live


def num_allocations(place=None):
    """How many storages have been created on ``place`` since the start."""
    return _counters(_key(place)).count


def count_copy(place, nbytes):
    """Count a copy of saved values forced by a write under ``allow_mutation_on_saved_tensors``
    (Note [Mutation of saved tensors] in autograd/saved.py); its storage is counted as usual."""
    c = _counters(place)
    c.copied += nbytes
    c.copies += 1


def stats(place=None):
    """Counters as a dict in the spirit of ``torch.cuda.memory_stats``.

    ``allocated_bytes.*`` count live tensor storages (exact tensor bytes); ``reserved_bytes``
    is every raw buffer of the cache (behind live tensors, or returned), ``cached_bytes`` the
    returned ones that nothing looks into any more (free for reuse). A returned buffer that some
    array still looks into is in neither live nor cached bytes until that array dies.
    ``saved_mutation.copied_bytes`` and ``saved_mutation.copies`` count, since the start, the old
    values that writes into saved tensors copied under ``allow_mutation_on_saved_tensors`` (only
    the elements each write overwrote). Example::

        >>> import mutograd as mg
        >>> s = mg.memory.stats()
        >>> s["allocated_bytes.all.current"] == mg.memory.allocated()
        True
    """
    key = _key(place)
    c = _counters(key)
    cpu = key == "cpu"
    cached, reserved = _cache_bytes() if cpu else (0, 0)
    return {
        "allocated_bytes.all.current": c.live,
        "allocated_bytes.all.peak": c.peak,
        "allocated_bytes.all.allocated": c.total,
        "allocated_bytes.all.freed": c.total - c.live,
        "allocation.all.current": c.count - c.freed,
        "allocation.all.allocated": c.count,
        "allocation.all.freed": c.freed,
        "reserved_bytes.all.current": reserved,
        "cached_bytes.all.current": cached,
        "cache.hits": _cache.hits if cpu else 0,
        "cache.misses": _cache.misses if cpu else 0,
        "cache.dropped": _cache.dropped if cpu else 0,
        "cache.threshold": _cache.threshold if cpu else 0,
        "cache.cap": _cache.cap if cpu else 0,
        "saved_mutation.copied_bytes": c.copied,
        "saved_mutation.copies": c.copies,
        # the names of the first version, kept for callers that used them
        "allocated_bytes.current": c.live,
        "allocated_bytes.peak": c.peak,
        "num_allocations": c.count,
        **_device_pool(key),
    }


def _device_pool(key):
    """A GPU's memory-pool counters (CuPy's pool), from its backend; nothing for the CPU."""
    if key == "cpu":
        return {}
    from . import places
    kind, _, index = key.partition(":")
    b = places._backends.get(kind)
    return b.memory(int(index)) if b is not None and b.memory is not None else {}


# --------------------------------------------------------------------------------------------
# The buffer cache (Note [The buffer cache]); CPU only


class _Cache:
    def __init__(self):
        self.enabled = True
        self.threshold = 1 << 17      # bytes: smaller results stay plain NumPy allocations
        self.cap = 2 << 30            # bytes the free lists may hold
        self.held = 0                 # bytes of the raw buffers in ``free`` lists
        self.in_use = 0               # bytes of raw buffers behind live storages
        self.free = {}                # size class -> raw buffers returned to the cache
        self.hits = self.misses = self.dropped = 0
        self.min_bytes = self.small_bytes = 0
        # Note [Dead temporaries] in autograd/temporaries.py: results written into dead temporaries
        self.reuse = os.environ.get("MUTOGRAD_REUSE_TEMPORARIES", "1").strip().lower() not in (
            "0", "false", "no", "off")
        self.settled()

    def settled(self):
        """Recompute the limits the per-op path reads as plain attributes after a change:
        ``min_bytes``, the smallest result taken from the cache (none when it is off), and
        ``small_bytes``, below which inputs take the operator path (Note [The operator path] in
        autograd/dispatch.py): below the cache and ``_SMALL`` both."""
        self.min_bytes = self.threshold if self.enabled else _NEVER
        self.small_bytes = min(self.min_bytes, _SMALL)


_NEVER = float("inf")
_SMALL = 1 << 17
_cache = _Cache()
_lent = {}   # id -> _Lent of each array from empty() while it lives (Note [The buffer cache])


class _Lent(weakref.ref):
    """A weak reference to an array :func:`empty` returned, which gives its raw buffer back to
    the cache when the array dies (cheaper per array than ``weakref.finalize``)."""

    __slots__ = ("key", "raw")


def _returned(ref):
    del _lent[ref.key]
    _give_back(ref.raw)
# getrefcount(buf) for a raw buffer referred to only by a cache list, a loop variable and the
# getrefcount argument itself: the proof that no array looks into it any more.
_UNSEEN = 3


def _size_class(nbytes):
    """Round up to 1/8 of the power of two at or above ``nbytes`` (at most 12.5% slack)."""
    step = max(1 << max(nbytes.bit_length() - 4, 0), 4096)
    return -(-nbytes // step) * step


def take(shape, dtype):
    """A C-contiguous array of ``shape`` and ``dtype`` from the cache, and its raw buffer.

    Returns ``(array, raw)``; the caller makes a tensor of ``array`` and sets its storage's
    ``buf`` to ``raw`` so the buffer returns to the cache when the tensor dies.
    """
    dtype = np.dtype(dtype)
    n = dtype.itemsize
    for d in shape:
        n *= d
    cls = _size_class(n)
    raw = None
    lst = _cache.free.get(cls)
    if lst:
        getrc = sys.getrefcount
        for i in range(len(lst)):   # (not enumerate: its tuple would hold a reference)
            if getrc(lst[i]) == _UNSEEN - 1:
                raw = lst.pop(i)
                _cache.held -= cls
                _cache.hits += 1
                break
    if raw is None:
        try:
            raw = np.empty(cls, np.uint8)
        except MemoryError as e:
            if not _cache.held:
                raise out_of_memory(shape, dtype, "cpu") from e
            empty_cache()   # the cached buffers may be what is missing (PyTorch frees its too)
            try:
                raw = np.empty(cls, np.uint8)
            except MemoryError as e2:
                raise out_of_memory(shape, dtype, "cpu") from e2
        _cache.misses += 1
    _cache.in_use += cls
    return raw[:n].view(dtype).reshape(shape), raw


def empty(xp, shape, dtype):
    """An uninitialised C-ordered array; large CPU ones come from the cache (Note [The buffer
    cache]) and their buffer returns to it when the array is gone."""
    if xp is not np:
        try:
            return xp.empty(shape, dtype)
        except MemoryError as e:   # CuPy's OutOfMemoryError is one
            raise out_of_memory(shape, dtype, "gpu") from e
    dtype = np.dtype(dtype)
    n = dtype.itemsize
    for d in shape:
        n *= d
    if n < _cache.min_bytes:
        try:
            return np.empty(shape, dtype)
        except MemoryError as e:   # the cache is off: every size comes this way
            raise out_of_memory(shape, dtype, "cpu") from e
    arr, raw = take(shape, dtype)
    ref = _Lent(arr, _returned)
    ref.raw = raw
    ref.key = key = id(arr)
    _lent[key] = ref
    return arr


def fresh(a):
    """Whether ``a`` is an array :func:`empty` returned (not a view of one): like an array that
    owns its memory, nothing else looks into its buffer unless handed ``a`` itself."""
    ref = _lent.get(id(a))
    return ref is not None and ref() is a


def zeros(xp, shape, dtype):
    """:func:`empty` filled with zeros: for a large array, warm cached pages instead of the fresh
    zero pages ``calloc`` maps (each costs a fault on first write)."""
    r = empty(xp, shape, dtype)
    r.fill(0)
    return r


def empty_like(xp, x, dtype=None):
    """:func:`empty` of ``x``'s shape (and dtype unless given)."""
    return empty(xp, x.shape, x.dtype if dtype is None else dtype)


def empty_preserving(xp, a, dtype=None):
    """An empty array of ``a``'s shape laid out as PyTorch lays out a copy of ``a``
    (``preserve_format``; Note [Result layouts] in ops/registry.py): C order for a C-contiguous
    ``a``, else ``a``'s dimensions by decreasing stride, where a broadcast (stride 0) dimension
    keeps its place. NumPy's order "K" puts a broadcast dimension innermost instead."""
    dtype = a.dtype if dtype is None else dtype
    if a.ndim < 2 or a.flags.c_contiguous:
        return xp.empty(a.shape, dtype)
    r = xp.empty_like(a, dtype=dtype)   # order "K": right unless a stride is 0 or tied
    want = preserved_strides(a.shape, a.strides, r.itemsize)
    if r.strides == want:
        return r
    proto = xp.lib.stride_tricks.as_strided(xp.empty(1, dtype), a.shape, want)
    return xp.empty_like(proto)   # dense strides: order "K" keeps them, and owns its memory


def non_overlapping_and_dense(a):
    """Whether array ``a``'s elements fill a block of memory exactly once, in some order of its
    dimensions (PyTorch's ``is_non_overlapping_and_dense``): no stride 0, no gaps."""
    if a.flags.c_contiguous or a.flags.f_contiguous:
        return True
    step = a.itemsize
    for st, n in sorted((abs(st), n) for st, n in zip(a.strides, a.shape) if n != 1):
        if st != step:
            return False
        step *= n
    return True


def preserved_strides(shape, strides, itemsize):
    """The strides of :func:`empty_preserving`: c10's ``infer_dense_strides``, an insertion
    sort of the dimensions from the innermost, where a comparison with a stride of 0 is
    undecided and keeps the order."""
    perm = list(range(len(shape) - 1, -1, -1))   # innermost first

    def after(d0, d1):   # 1: d0 goes outside d1, -1: inside, 0: undecided
        s0, s1 = strides[d0], strides[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 != s1:
            return 1 if s0 > s1 else -1
        return 1 if shape[d0] > shape[d1] else 0
    for i in range(1, len(perm)):
        j = i
        for k in range(i - 1, -1, -1):
            c = after(perm[k], perm[j])
            if c > 0:
                perm[k], perm[j] = perm[j], perm[k]
                j = k
            elif c < 0:
                break
    out = [0] * len(shape)
    step = itemsize
    for d in perm:
        out[d] = step
        step *= max(shape[d], 1)
    return tuple(out)


def out_of_memory(shape, dtype, place="cpu"):
    """The MemoryError for a tensor that cannot be allocated: it names the tensor the user asked
    for (NumPy's own names the flat buffer behind it) and what mutograd's tensors hold already.

    Example::

        >>> import mutograd as mg
        >>> str(mg.memory.out_of_memory((1024, 1024), "float32")).split(";")[0]
        'cannot allocate a tensor of shape [1024, 1024] and dtype float32 (4.0 MiB) on cpu'
    """
    dtype = np.dtype(dtype)
    n = dtype.itemsize
    for d in shape:
        n *= int(d)
    key = _key(place)
    c = _counters(key)
    cached = f", the buffer cache {_fmt(_cache.held)} more" if key == "cpu" and _cache.held else ""
    return MemoryError(
        f"cannot allocate a tensor of shape {[int(d) for d in shape]} and dtype {dtype} "
        f"({_fmt(n)}) on {key}; live tensors hold {_fmt(c.live)} there (peak "
        f"{_fmt(c.peak)}, {c.count - c.freed} storages){cached}. Free tensors you no longer "
        f"need (del, or leave them to go out of scope), or use smaller batches")


def _fmt(n):
    """``n`` bytes for a message: ``512 B``, ``40.0 GiB``."""
    if n < 1024:
        return f"{n} B"
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        n /= 1024
        if n < 1024 or unit == "TiB":
            return f"{n:.1f} {unit}"


def _give_back(raw):
    c = _cache
    size = raw.nbytes
    c.in_use -= size
    if not c.enabled or c.held + size > c.cap:
        c.dropped += 1
        return
    c.free.setdefault(size, []).append(raw)
    c.held += size


def _cache_bytes():
    """(bytes free for reuse, bytes of every raw buffer: behind live tensors or cached)."""
    free = 0
    getrc = sys.getrefcount
    for lst in _cache.free.values():
        for b in lst:
            if getrc(b) == _UNSEEN:
                free += b.nbytes
    return free, _cache.held + _cache.in_use


def empty_cache():
    """Release every cached buffer (those some array still looks into are freed with it)."""
    _cache.free.clear()
    _cache.held = 0


def set_cache(enabled=None, threshold=None, cap=None):
    """Switch the buffer cache on or off, or change its size threshold or cap (bytes).

    Returns the previous settings as a dict, so a test can restore them::

        >>> import mutograd as mg
        >>> old = mg.memory.set_cache(threshold=0)
        >>> _ = mg.memory.set_cache(**old)
    """
    old = {"enabled": _cache.enabled, "threshold": _cache.threshold, "cap": _cache.cap}
    if enabled is not None:
        _cache.enabled = bool(enabled)
        if not enabled:
            empty_cache()
    if threshold is not None:
        _cache.threshold = int(threshold)
    if cap is not None:
        _cache.cap = int(cap)
    _cache.settled()
    return old


def set_reuse(enabled):
    """Let out-of-place element-wise ops write into dead temporaries (Note [Dead temporaries] in
    autograd/temporaries.py), or not; returns the previous setting. On by default; the environment
    variable ``MUTOGRAD_REUSE_TEMPORARIES=0`` turns it off at start."""
    old = _cache.reuse
    _cache.reuse = bool(enabled)
    return old


def reuses_temporaries():
    """Whether dead temporaries are reused: switched on, and the interpreter's reference counts
    are the ones the check relies on."""
    from .autograd import temporaries
    return _cache.reuse and temporaries.DEAD_OP > 0


def cache_threshold():
    """Results of at least this many bytes come from the cache; None when it is off."""
    return _cache.threshold if _cache.enabled else None


def timeline(place=None):
    """A context manager recording every allocation and free (see :mod:`mutograd.memtrace`).

    Example::

        >>> import mutograd as mg
        >>> with mg.memory.timeline() as tl:
        ...     y = mg.ones(256) * 2
        >>> [e.op for e in tl.events if e.nbytes > 0]
        ['ones', 'mul']
    """
    from .memtrace import Timeline
    return Timeline(place)
