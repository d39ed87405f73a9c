"""The random generators behind every random op, one per place kind; ``mutograd.seed(n)`` seeds
them all (a GPU generator is made, seeded, the first time it is used).

A :class:`Generator` (``torch.Generator``) is a stream of its own: random ops given
``generator=`` draw from it and leave the global ones alone.

    >>> import mutograd as mg
    >>> g = mg.Generator().manual_seed(42)
    >>> a = mg.randn([3], generator=g)
    >>> b = mg.randn([3], generator=mg.Generator().manual_seed(42))
    >>> bool((a == b).all())
    True
"""
import numpy as np

_generator = np.random.default_rng()
_seed = None
_device = {}      # backend kind -> its generator (cuRAND-backed for CuPy)


def seed(n):
    """Seed the generator of every place; returns the seed, as ``paddle.seed`` does."""
    global _generator, _seed
    _seed = int(n)
    _generator = np.random.default_rng(_seed)
    _device.clear()
    return _seed


def forget(kind):
    """Drop the generator of ``kind`` (its backend was replaced)."""
    _device.pop(kind, None)


class Generator:
    """An independent random stream for one device (``torch.Generator``); ``manual_seed``
    returns the generator itself, so ``Generator().manual_seed(0)`` can be passed on."""

    def __init__(self, device="cpu"):
        from . import places
        self.device = places.get(device) if isinstance(device, str) else device
        self.manual_seed(int(np.random.SeedSequence().entropy) % (1 << 63))

    def manual_seed(self, seed):
        self._seed = int(seed)
        self._rng = _make(self.device, self._seed)
        return self

    def seed(self):
        """Reseed from fresh entropy; returns the new seed."""
        self.manual_seed(int(np.random.SeedSequence().entropy) % (1 << 63))
        return self._seed

    def initial_seed(self):
        return self._seed

    def get_state(self):
        return self._rng.bit_generator.state

    def set_state(self, state):
        self._rng.bit_generator.state = state
        return self

    def __repr__(self):
        return f"Generator(device={self.device}, initial_seed={self.initial_seed()})"


class _Global(Generator):
    """The stream ops draw from when given no ``generator=`` (``torch.default_generator``):
    seeding it seeds every place, as :func:`seed` does."""

    def __init__(self):
        from . import places
        self.device = places.CPU

    @property
    def _rng(self):
        return _generator

    def manual_seed(self, n):
        seed(n)
        return self

    def seed(self):
        return seed(int(np.random.SeedSequence().entropy) % (1 << 63))

    def initial_seed(self):
        return _seed


def _make(place, seed):
    if place.kind == "cpu":
        return np.random.default_rng(seed)
    from . import places
    return places.backend(place.kind).make_generator(seed)


def generator(place=None, given=None):
    """The generator for ``place`` (a Place, or an array namespace ``xp``): ``given`` when one
    is (a :class:`Generator` of that place's kind, or a ``numpy.random.Generator`` on the CPU),
    else the global one: a ``numpy.random.Generator`` on the CPU, the backend's own elsewhere."""
    from . import places
    if given is not None:
        return _given(given, place)
    if place is None:
        return _generator
    b = places.backend_of(place) if not isinstance(place, places.Place) else (
        None if place.kind == "cpu" else places.backend(place.kind))
    if b is None:
        return _generator
    g = _device.get(b.kind)
    if g is None:
        g = _device[b.kind] = b.make_generator(_seed)
    return g


def initial_seed():
    return _seed


def get_state():
    return _generator.bit_generator.state


def set_state(state):
    _generator.bit_generator.state = state


default_generator = _Global()


def _given(given, place):
    from . import places
    kind = "cpu"
    if place is not None:
        kind = place.kind if isinstance(place, places.Place) else (
            getattr(places.backend_of(place), "kind", None) or "cpu")
    if isinstance(given, Generator):
        if given.device.kind != kind:
            raise RuntimeError(f"Expected a '{kind}' device type for generator but found "
                               f"'{given.device.kind}'")
        return given._rng
    if isinstance(given, np.random.Generator) and kind == "cpu":
        return given
    also = " or a numpy.random.Generator" if kind == "cpu" else ""
    raise TypeError(f"generator must be a mutograd Generator (torch.Generator) for the "
                    f"'{kind}' device{also}, got {type(given).__name__}")
