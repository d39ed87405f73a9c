"""``copy_`` and the writes built on it: ``apply_`` and ``map_`` compute the new values outside
the graph and copy them in; they have no gradient, so they refuse a tensor that requires grad
while grad mode is on.
"""
import numpy as np

from ..autograd.grad_mode import no_grad
from ..autograd.inplace import check_no_grad
from ..tensor import Tensor
from .registry import OPS, call_inplace, defop


def _copy(xp, x, src, non_blocking=False, blocking=True, out=None):
    if out is None:
        return xp.array(xp.broadcast_to(src, x.shape), dtype=x.dtype)
    out[...] = src
    return out


# copy_ writes every element: the old values get a zero gradient, ``src`` gets ``g`` (summed
# over broadcast dimensions and cast back to its dtype by the registry).
defop("copy", _copy, result="same", method="inplace",
      grad=(lambda g, xp: xp.zeros_like(g), lambda g: g))


def _apply_elementwise(fn, arr, xp):
    out = xp.empty_like(arr)
    flat_in, flat_out = arr.reshape(-1), out.reshape(-1)
    for i in range(flat_in.size):
        flat_out[i] = fn(flat_in[i].item())
    return out


def apply_(x, func):
    """Replace ``x``'s values by ``func``'s result, in place; returns ``x``.

    ``func`` takes the tensor (Paddle) and returns a tensor or array of the same shape; a
    function of one number (PyTorch) is applied to every element. It has no gradient, so a
    tensor that requires grad is refused while grad mode is on.
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"apply_() writes into its first argument, which must be a Tensor, not "
                        f"{type(x).__name__}")
    if not callable(func):
        raise TypeError(f"apply_() expects a callable, got {type(func).__name__}")
    check_no_grad(x, "apply_")
    with no_grad():
        try:
            r = func(x.detach().clone())
            r = r._data if isinstance(r, Tensor) else x._place.xp.asarray(r)
            if r.shape != x._data.shape:
                raise ValueError
        except (TypeError, ValueError):
            r = _apply_elementwise(func, x._data, x._place.xp)
        call_inplace(OPS["copy"], [x, r], {})
    return x


def map_(x, other, func):
    """PyTorch's ``x.map_(other, func)``: ``x[i] = func(x[i], other[i])`` (``other`` broadcast
    to ``x``), in place; no gradient, so a tensor that requires grad is refused."""
    if not callable(func):
        raise TypeError(f"map_() expects a callable, got {type(func).__name__}")
    check_no_grad(x, "map_")
    xp = x._place.xp
    b = xp.broadcast_to(other._data if isinstance(other, Tensor) else xp.asarray(other),
                        x._data.shape)
    r = xp.empty_like(x._data)
    for i in np.ndindex(x._data.shape):
        r[i] = func(x._data[i].item(), b[i].item())
    with no_grad():
        return call_inplace(OPS["copy"], [x, r], {})


FUNCTIONS = {"apply_": apply_, "map_": map_}
