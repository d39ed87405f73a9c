"""The random generator behind every random op; ``mutograd.seed(n)`` makes runs reproducible."""
import numpy as np

_generator = np.random.default_rng()
_seed = None


def seed(n):
    """Seed the generator of every place; returns the seed, as ``paddle.seed`` does."""
    global _generator, _seed
    _seed = int(n)
    _generator = np.random.default_rng(_seed)
    return _seed


def generator(place=None):
    """The generator for ``place`` (a ``numpy.random.Generator`` on the CPU)."""
    return _generator


def initial_seed():
    return _seed


def get_state():
    return _generator.bit_generator.state


def set_state(state):
    _generator.bit_generator.state = state
