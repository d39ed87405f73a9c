"""Strict mode (design.md rule 7): arrays handed to NumPy are read-only while it is on.

Autograd sees every write made through a tensor, a view, ``detach()`` or ``.data`` (they share
the version counter). It cannot see a write made through a NumPy array that aliases a tensor's
memory. Strict mode closes the usual doors: ``Tensor.numpy()``, ``np.asarray(t)``
(``__array__``) and DLPack export hand out read-only views, so such a write fails at the line
that made it with NumPy's own ``ValueError: assignment destination is read-only``.

It cannot see memory obtained before it was turned on, the NumPy array a tensor was made from by
``from_numpy`` (the caller still holds it, writable), raw pointers (``data_ptr()``, ctypes,
``__array_interface__``), or code that flips the ``writeable`` flag back. See docs/inplace.md.

    >>> import mutograd as mg
    >>> t = mg.ones([2])
    >>> with mg.strict():
    ...     a = t.numpy()
    >>> a.flags.writeable
    False
"""
import os

import numpy as np

from .switches import ImmediateSwitch, ScopedSwitch


class _State:
    on = os.environ.get("MUTOGRAD_STRICT", "").strip().lower() in ("1", "true", "yes", "on")


_state = _State()


def is_strict():
    """Whether strict mode is on."""
    return _state.on


class _StrictFlag:
    """The switch: strict mode."""

    def _read(self):
        return _state.on

    def _write(self, on):
        _state.on = on


class set_strict(_StrictFlag, ImmediateSwitch):
    """Turn strict mode on or off now; as a context manager, restore the old mode after."""

    def __init__(self, mode=True):
        self._swap(bool(mode))


class strict(_StrictFlag, ScopedSwitch):
    """Context manager (and decorator): strict mode for a block.

    Example::

        with mutograd.strict():
            a = t.numpy()
            a[0] = 1.0        # ValueError: assignment destination is read-only
    """

    def __init__(self, mode=True):
        self.mode = self.value = bool(mode)


def export(arr):
    """``arr`` as handed to NumPy: itself, or a read-only view of it in strict mode."""
    if not _state.on or type(arr) is not np.ndarray:   # CuPy arrays have no writeable flag
        return arr
    view = arr.view()
    view.flags.writeable = False
    return view
