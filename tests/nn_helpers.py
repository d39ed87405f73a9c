"""Helpers of the nn/optim tests."""
import contextlib
import gc

from tests.helpers import counting


@contextlib.contextmanager
def exact_counting():
    """``counting()`` with the garbage collector paused: no garbage made before the block can be
    freed inside it, so a byte count of 0 means exactly nothing was allocated."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        with counting() as c:
            yield c
    finally:
        if enabled:
            gc.enable()
