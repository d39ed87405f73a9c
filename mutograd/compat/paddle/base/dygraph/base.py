"""``paddle.base.dygraph.base``: the dygraph switches. mutograd always runs eagerly, so
``guard()`` changes nothing."""
import contextlib

from .....autograd.grad_mode import no_grad
from .....ops.creation import to_tensor

__all__ = ["disable_dygraph", "enable_dygraph", "enabled", "guard", "in_dygraph_mode",
           "no_grad", "no_grad_", "to_variable"]

no_grad_ = no_grad


@contextlib.contextmanager
def guard(place=None):
    """A block run in dygraph mode: every block here is."""
    yield


def to_variable(value, name=None, zero_copy=None, dtype=None):
    """A tensor holding ``value`` (an array or a Tensor); the old name of ``to_tensor``."""
    return to_tensor(value, dtype=dtype)


def in_dygraph_mode():
    """True: mutograd always runs eagerly."""
    return True


def enabled():
    """True: dygraph mode is always on."""
    return True


def enable_dygraph(place=None):
    """Dygraph mode is always on; nothing to switch."""


def disable_dygraph():
    raise RuntimeError("mutograd runs eagerly only; Paddle's static graph mode is not part of "
                       "it (remove the disable_dygraph() call)")
