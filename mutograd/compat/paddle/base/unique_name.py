"""``paddle.base.unique_name``: ``generate(key)`` gives ``key_0``, ``key_1``, ... within the
current ``guard()``."""
import contextlib
import itertools

__all__ = ["generate", "guard", "switch"]


class _Generator:
    def __init__(self, prefix=""):
        self.prefix, self.counts = prefix, {}

    def __call__(self, key):
        n = self.counts.setdefault(key, itertools.count())
        return f"{self.prefix}{key}_{next(n)}"


_generator = _Generator()


def generate(key):
    """A name ``key_N`` not given out before in this generator."""
    return _generator(key)


def switch(new_generator=None):
    """Use ``new_generator`` (a fresh one when None); returns the one used before."""
    global _generator
    old, _generator = _generator, new_generator or _Generator()
    return old


@contextlib.contextmanager
def guard(new_generator=None):
    """Names generated inside start over (or continue ``new_generator``; a string is a
    prefix)."""
    if isinstance(new_generator, str):
        new_generator = _Generator(new_generator)
    old = switch(new_generator)
    try:
        yield
    finally:
        switch(old)
