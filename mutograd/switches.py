"""Process-wide debugging switches (anomaly mode, strict mode) as context managers.

A switch class names where its value lives with ``_read()`` and ``_write(value)``.
:class:`ScopedSwitch` sets it for a block (and, used as a decorator, for each call of a
function); :class:`ImmediateSwitch` sets it when made and, used as a context manager, restores
the old value after the block.

    >>> class Verbose(ScopedSwitch):
    ...     on = False
    ...     def __init__(self, value=True):
    ...         self.value = value
    ...     def _read(self):
    ...         return Verbose.on
    ...     def _write(self, value):
    ...         Verbose.on = value
    >>> with Verbose():
    ...     print(Verbose.on)
    True
    >>> Verbose.on
    False
"""
import copy
import functools


class _Switch:
    def _read(self):
        raise NotImplementedError

    def _write(self, value):
        raise NotImplementedError

    def _swap(self, value):
        self._prev = self._read()
        self._write(value)

    def __exit__(self, *exc):
        self._write(self._prev)
        return False


class ScopedSwitch(_Switch):
    """Set the switch to ``self.value`` inside a ``with`` block or each call of a decorated
    function."""

    def __enter__(self):
        self._swap(self.value)
        return self

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with copy.copy(self):      # a copy per call keeps nested and threaded calls apart
                return func(*args, **kwargs)
        return wrapper


class ImmediateSwitch(_Switch):
    """Set the switch when made (subclasses call ``_swap``); a ``with`` block restores it."""

    def __enter__(self):
        return self
