"""``mutograd.cuda``: asking about and using GPUs (CuPy is imported on first use only).

    >>> import mutograd as mg
    >>> device = "cuda" if mg.cuda.is_available() else "cpu"
"""
from . import memory as _memory
from . import places, random


def is_available():
    """Whether a GPU can be used: CuPy importable and at least one device visible."""
    return places.gpu_available()


def device_count():
    """How many GPUs are visible (0 without CuPy or without a device)."""
    return places.gpu_count()


def current_device():
    """The index of the current GPU (what ``'gpu'`` without an index means)."""
    return places._current[0]


def set_device(device):
    """Make GPU ``device`` (an index or ``'gpu:N'``) the current one."""
    p = places.get(f"gpu:{device}" if isinstance(device, int) else device)
    places._current[0] = p.index
    b = places.backend(p.kind)
    if b.use_device is not None:
        b.use_device(p.index).use()
    return p


def synchronize(device=None):
    """Wait for the work queued on the GPU (a no-op without one)."""
    if places.gpu_available():
        index = None if device is None else places.get(
            f"gpu:{device}" if isinstance(device, int) else device).index
        places.backend("gpu").synchronize(index)


def _place(device):
    if device is None:
        return places.get(f"gpu:{current_device()}")
    return places.get(f"gpu:{device}" if isinstance(device, int) else device)


def memory_allocated(device=None):
    """Bytes held by live tensors on GPU ``device`` (counted by ``mutograd.memory``)."""
    return _memory.allocated(_place(device)) if is_available() else 0


def max_memory_allocated(device=None):
    return _memory.max_allocated(_place(device)) if is_available() else 0


def reset_peak_memory_stats(device=None):
    if is_available():
        _memory.reset_peak(_place(device))


reset_max_memory_allocated = reset_peak_memory_stats


def memory_reserved(device=None):
    """Bytes the backend's memory pool holds from the driver (0 without a GPU)."""
    if not is_available():
        return 0
    b = places.backend("gpu")
    info = b.memory(_place(device).index) if b.memory else {}
    return info.get("pool_total_bytes", _memory.allocated(_place(device)))


max_memory_reserved = memory_reserved


def empty_cache():
    """Give the GPU memory pool's free blocks back to the driver (a no-op without a GPU)."""
    if is_available():
        fn = getattr(places.backend("gpu"), "empty_cache", None)
        if fn is not None:
            fn()


def memory_stats(device=None):
    """The counters of ``mutograd.memory.stats`` for the GPU, plus the pool's own."""
    if not is_available():
        return {}
    p = _place(device)
    out = _memory.stats(p)
    b = places.backend("gpu")
    if b.memory:
        out.update(b.memory(p.index))
    return out


def manual_seed(seed):
    """Seed every generator (GPU ones included), as ``mutograd.seed`` does."""
    return random.seed(seed)


manual_seed_all = manual_seed
seed = manual_seed
