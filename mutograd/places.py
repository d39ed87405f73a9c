"""Places (where a tensor's memory lives) and the backend namespace ``xp`` of each.

All array math goes through ``place.xp``: NumPy for the CPU, CuPy for a GPU. A backend plugs in
with :func:`register_backend`; nothing else in the framework names a backend module. The GPU
backend (``mutograd/backends/cupy_backend.py``) is registered lazily, the first time a GPU place
is asked for, so ``import mutograd`` never imports CuPy.

Example::

    >>> import mutograd as mg
    >>> mg.places.get("cpu")
    Place(cpu)
"""
import numpy as np

from .errors import PlaceError


class Place:
    __slots__ = ("index", "kind", "xp")

    def __init__(self, kind, index=0, xp=np):
        self.kind = kind
        self.index = index
        self.xp = xp

    def __repr__(self):
        return "Place(cpu)" if self.kind == "cpu" else f"Place({self.kind}:{self.index})"

    def __str__(self):
        return "cpu" if self.kind == "cpu" else f"{self.kind}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, Place):
            return (self.kind, self.index) == (other.kind, other.index)
        if isinstance(other, str) or hasattr(other, "type"):   # 'cuda:0', torch.device(...)
            try:
                return get_name(other) == str(self)
            except PlaceError:
                return False
        return False

    def __hash__(self):
        return hash((self.kind, self.index))

    @property
    def type(self):
        """PyTorch's ``device.type``: ``'cpu'`` or ``'cuda'``."""
        return "cuda" if self.kind == "gpu" else self.kind

    def is_cpu_place(self):
        return self.kind == "cpu"

    def is_gpu_place(self):
        return self.kind == "gpu"

    def get_device_id(self):
        return self.index


CPU = Place("cpu")


class Backend:
    """What a non-CPU place kind provides (see :func:`register_backend`)."""

    def __init__(self, kind, xp, device_count, to_device, to_host, special=None,
                 synchronize=None, make_generator=None, memory=None, use_device=None):
        self.kind, self.xp = kind, xp
        self.device_count = device_count
        self.to_device, self.to_host = to_device, to_host
        self.special = special
        self.synchronize = synchronize or (lambda index=None: None)
        self.make_generator = make_generator or (lambda seed: xp.random.default_rng(seed))
        self.memory = memory
        self.use_device = use_device


_backends = {}          # kind -> Backend
_by_xp = {id(np): None}  # id(xp) -> Backend (None: the CPU)
_places = {("cpu", 0): CPU}
_default = [CPU]


def register_backend(kind, xp, *, device_count, to_device, to_host, special=None,
                     synchronize=None, make_generator=None, memory=None, use_device=None):
    """Make places of ``kind`` (``'gpu'``) run their array math on ``xp``.

    ``device_count()`` says how many devices are visible; ``to_device(array, index)`` returns a
    copy of a host or device array on device ``index``; ``to_host(array)`` a NumPy copy.
    ``special`` is a module with the special functions (``erf``, ...) for ``xp`` arrays;
    ``make_generator(seed)`` a random generator on the device; ``memory(index)`` a dict of the
    device pool's own counters; ``use_device(index)`` a context manager making ``index`` current.
    Registering again replaces the backend (tests register a NumPy-backed fake GPU this way).
    """
    b = Backend(kind, xp, device_count, to_device, to_host, special, synchronize,
                make_generator, memory, use_device)
    old = _backends.get(kind)
    if old is not None:
        _by_xp.pop(id(old.xp), None)
        for key in [k for k in _places if k[0] == kind]:
            del _places[key]
        if _default[0].kind == kind:
            _default[0] = CPU
    _backends[kind] = b
    _by_xp[id(xp)] = b
    from . import random
    random.forget(kind)
    return b


def unregister_backend(kind):
    """Remove the backend of ``kind`` (the next GPU request loads CuPy again)."""
    b = _backends.pop(kind, None)
    if b is not None:
        _by_xp.pop(id(b.xp), None)
        for key in [k for k in _places if k[0] == kind]:
            del _places[key]
        if _default[0].kind == kind:
            _default[0] = CPU


def backend(kind="gpu", load=True):
    """The Backend of ``kind``, loading CuPy for ``'gpu'`` on first use; PlaceError if none."""
    b = _backends.get(kind)
    if b is None and load and kind == "gpu":
        from .backends import cupy_backend
        b = cupy_backend.register()
    if b is None:
        raise PlaceError(f"no backend for places of kind {kind!r}")
    return b


def backend_of(xp):
    """The Backend whose namespace is ``xp`` (None for NumPy, the CPU)."""
    return _by_xp.get(id(xp))


def key_for(xp, arr=None):
    """The memory-accounting name of the place an array of namespace ``xp`` lives on."""
    b = _by_xp.get(id(xp))
    if b is None:
        return "cpu"
    device = getattr(arr, "device", None)
    return f"{b.kind}:{getattr(device, 'id', _current[0])}"


def _parse(name):
    name = name.strip().lower()
    kind, _, idx = name.partition(":")
    if kind in ("cuda", "gpu", "gpu_pinned", "cuda_pinned"):
        kind = "gpu"
    elif kind != "cpu":
        raise PlaceError(f"unknown place {name!r}; expected 'cpu', 'gpu', 'gpu:N', 'cuda' or "
                         f"'cuda:N'")
    if idx and not idx.isdigit():
        raise PlaceError(f"bad device index in place {name!r}; expected a number, as in 'gpu:0'")
    return kind, int(idx) if idx else None


def get(place):
    """The Place for ``None`` (the default place), a Place, a device object or a name:
    ``'cpu'``, ``'gpu'``, ``'gpu:1'``, ``'cuda'``, ``'cuda:0'`` (``'gpu'`` is the current one).

    Asking for a GPU raises PlaceError when CuPy is missing or no device is visible.
    """
    if place is None:
        return _default[0]
    if place is CPU:
        return CPU
    if isinstance(place, Place):
        return _places.get((place.kind, place.index)) or _make(place.kind, place.index)
    if isinstance(place, int) and not isinstance(place, bool):
        return _make("gpu", place)         # torch: ``device=0`` is cuda:0
    index = getattr(place, "index", None)
    kind, idx = _parse(str(getattr(place, "type", place)))
    if idx is None:
        idx = index if isinstance(index, int) else None
    if kind == "cpu":
        return CPU
    if idx is None:
        idx = _current[0]
    p = _places.get((kind, idx))
    return p if p is not None else _make(kind, idx)


_current = [0]   # the current GPU index: what 'gpu' / 'cuda' without an index means


def get_name(place):
    """The canonical name (``'cpu'``, ``'gpu:0'``) of a place, without loading any backend."""
    if place is None:
        return "cpu"
    if isinstance(place, Place):
        return str(place)
    kind, index = _parse(str(getattr(place, "type", place)))
    if kind == "cpu":
        return "cpu"
    if index is None:
        index = getattr(place, "index", None)
    return f"{kind}:{_current[0] if index is None else index}"


def _make(kind, index):
    if kind == "cpu":
        return CPU
    b = backend(kind)
    n = b.device_count()
    if n == 0:
        raise PlaceError(f"{kind}:{index} was requested but no CUDA device is visible (CuPy is "
                         f"installed; check the NVIDIA driver with `nvidia-smi` and the "
                         f"CUDA_VISIBLE_DEVICES variable), or use place='cpu'")
    if not 0 <= index < n:
        raise PlaceError(f"{kind}:{index} was requested but only {n} device(s) are visible "
                         f"({kind}:0 .. {kind}:{n - 1})")
    p = _places[(kind, index)] = Place(kind, index, b.xp)
    return p


def set_default(place):
    """Make new tensors go to ``place`` unless told otherwise; returns the Place."""
    p = get(place) if place is not None else CPU
    _default[0] = p
    if p.kind != "cpu":
        _current[0] = p.index
    return p


def default():
    """The place new tensors go to (the CPU unless :func:`set_default` said otherwise)."""
    return _default[0]


def gpu_available():
    """Whether a GPU place can be made (CuPy importable and at least one device visible)."""
    try:
        return backend("gpu").device_count() > 0
    except PlaceError:
        return False


def gpu_count():
    try:
        return backend("gpu").device_count()
    except PlaceError:
        return 0


def check_same(op_name, place, other):
    """The error for an op mixing two places (raised before anything is written)."""
    return PlaceError(f"{op_name}(): expected all tensors to be on the same place, but found "
                      f"at least two places, {place} and {other}; move one with .to("
                      f"'{place}') or .to('{other}')")


__all__ = ["CPU", "Place", "PlaceError", "backend", "default", "get", "register_backend",
           "set_default", "unregister_backend"]


def writeable(a):
    """Whether writing array ``a`` element by element is safe: NumPy's read-only flag (set on
    broadcasts and on arrays handed out in strict mode); CuPy has no such flag, so there an
    array is writeable unless one of its elements repeats (a stride of 0 over a length > 1)."""
    flag = getattr(a.flags, "writeable", None)
    if flag is not None:
        return flag
    return all(s or n == 1 for s, n in zip(a.strides, a.shape))
