"""Gradient clipping, in place on each ``.grad`` (``nn.utils.clip_grad_norm_`` in PyTorch)."""
import math

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scale all gradients in place so that their joint ``norm_type``-norm is at most
    ``max_norm``; returns the norm before clipping (a 0-d tensor).

        >>> import mutograd as mg
        >>> p = mg.tensor([3.0, 4.0], requires_grad=True)
        >>> (p * p).sum().backward()          # grad = [6, 8], norm 10
        >>> float(mg.nn.clip_grad_norm_([p], 5.0))
        10.0
    """
    from ...ops.creation import tensor
    grads = _grads(parameters)
    if not grads:
        return tensor(0.0)
    norm_type = float(norm_type)
    xp = grads[0]._place.xp
    if math.isinf(norm_type):
        total = max(float(xp.abs(g._data).max()) for g in grads)
    elif norm_type == 2.0:   # one BLAS dot product per gradient, no temporaries
        total = math.sqrt(sum(float(xp.vdot(a, a)) for a in (g._data.ravel() for g in grads)))
    else:
        total = sum(float((xp.abs(g._data) ** norm_type).sum()) for g in grads) ** (
            1.0 / norm_type)
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from "
                           f"`parameters` is non-finite, so it cannot be clipped. To disable "
                           f"this error and scale the gradients by the non-finite norm anyway, "
                           f"set `error_if_nonfinite=False`")
    coef = float(max_norm) / (total + 1e-6)
    if coef < 1:
        with no_grad():
            for g in grads:
                g.mul_(coef)
    return tensor(total, dtype=grads[0].dtype)


def clip_grad_value_(parameters, clip_value):
    """Clamp every gradient element into ``[-clip_value, clip_value]`` in place."""
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(min=-clip_value, max=clip_value)


def factory_kwargs(kwargs):
    """The ``device``, ``dtype`` and ``memory_format`` entries of ``kwargs`` (merged with its
    ``factory_kwargs`` entry), as ``torch.nn.factory_kwargs``; any other key is an error.

        >>> factory_kwargs({"dtype": "float64", "factory_kwargs": {"device": "cpu"}})
        {'device': 'cpu', 'dtype': 'float64'}
    """
    if kwargs is None:
        return {}
    simple = ("device", "dtype", "memory_format")
    unexpected = set(kwargs) - set(simple) - {"factory_kwargs"}
    if unexpected:
        raise TypeError(f"unexpected kwargs {unexpected}")
    out = dict(kwargs.get("factory_kwargs", {}))
    for key in simple:
        if key in kwargs:
            if key in out:
                raise TypeError(f"{key} specified twice, in **kwargs and in factory_kwargs")
            out[key] = kwargs[key]
    return out
