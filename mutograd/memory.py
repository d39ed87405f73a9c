"""Memory accounting: every tensor storage is counted here.

A :class:`Storage` is created for each new buffer a tensor owns (views and in-place results
share their input's storage and create none), so ``allocated()`` is exact: tests assert that an
in-place op allocates 0 bytes. Counting is per place.

Example::

    >>> import mutograd as mg
    >>> before = mg.memory.allocated()
    >>> x = mg.zeros(1024)                     # 4096 bytes of float32
    >>> mg.memory.allocated() - before
    4096
"""
from collections import defaultdict

_live = defaultdict(int)      # place name -> bytes held by live storages
_peak = defaultdict(int)
_count = defaultdict(int)     # number of storages ever created per place


class Storage:
    """Accounting record of one buffer; the buffer's bytes are freed from the counters with it."""

    __slots__ = ("nbytes", "place", "__weakref__")

    def __init__(self, nbytes, place="cpu"):
        self.nbytes = nbytes
        self.place = place
        live = _live[place] + nbytes
        _live[place] = live
        _count[place] += 1
        if live > _peak[place]:
            _peak[place] = live

    def __del__(self):
        _live[self.place] -= self.nbytes


def _key(place):
    if place is None:
        return "cpu"
    from .places import get_name   # 'cuda:1' and 'gpu:1' are one place
    return get_name(place)


def allocated(place=None):
    """Bytes held by live tensor storages on ``place`` (default: the CPU)."""
    return _live[_key(place)]


def max_allocated(place=None):
    """The largest value of :func:`allocated` since the start or the last :func:`reset_peak`."""
    return _peak[_key(place)]


def reset_peak(place=None):
    """Start measuring the peak afresh from the current allocation."""
    key = _key(place)
    _peak[key] = _live[key]


def num_allocations(place=None):
    """How many storages have been created on ``place`` since the start."""
    return _count[_key(place)]


def stats(place=None):
    """A dict of the counters above, in the spirit of ``torch.cuda.memory_stats``."""
    key = _key(place)
    out = {"allocated_bytes.current": _live[key], "allocated_bytes.peak": _peak[key],
           "num_allocations": _count[key]}
    if key != "cpu":   # a GPU: its memory pool's own counters too (CuPy's pool)
        from . import places
        b = places._backends.get(key.partition(":")[0])
        if b is not None and b.memory is not None:
            out.update(b.memory(int(key.partition(":")[2])))
    return out
