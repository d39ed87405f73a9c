"""``paddle.base``: the dygraph switches of older Paddle code. mutograd always runs eagerly, so
``guard()`` changes nothing and ``in_dygraph_mode()`` is True.

    >>> import numpy as np, mutograd.compat.paddle as paddle
    >>> with paddle.base.dygraph.guard():
    ...     x = paddle.base.dygraph.to_variable(np.ones(2, "float32"))
    >>> paddle.base.in_dygraph_mode(), x.tolist()
    (True, [1.0, 1.0])
"""
import contextlib
import sys
import types

from ...autograd.grad_mode import no_grad
from ...ops.creation import to_tensor


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
    raise RuntimeError("mutograd runs eagerly only; Paddle's static graph mode is not "
                              "part of it (remove the disable_dygraph() call)")


def _grad(*args, **kw):
    from . import grad
    return grad(*args, **kw)


dygraph = types.ModuleType("paddle.base.dygraph", "The dygraph helpers of ``paddle.base``.")
for _f in (guard, to_variable, enabled, enable_dygraph, disable_dygraph):
    setattr(dygraph, _f.__name__, _f)
dygraph.no_grad = dygraph.no_grad_ = no_grad
dygraph.grad = _grad
dygraph.in_dygraph_mode = in_dygraph_mode
in_dynamic_or_pir_mode = in_dygraph_mode
sys.modules[__name__ + ".dygraph"] = dygraph     # importable: import paddle.base.dygraph
enable_imperative, disable_imperative = enable_dygraph, disable_dygraph
