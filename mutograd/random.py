"""The random generators behind every random op, one per place kind; ``mutograd.seed(n)`` seeds
them all (a GPU generator is made, seeded, the first time it is used)."""
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


def generator(place=None):
    """The generator for ``place`` (a Place, or an array namespace ``xp``): a
    ``numpy.random.Generator`` on the CPU, the backend's own generator elsewhere."""
    from . import places
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
