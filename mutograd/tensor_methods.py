"""Tensor methods that are conversions rather than ops: dtype casts, places, ``clear_grad``."""
from . import dtypes
from .ops.registry import OPS, call
from .tensor import Tensor


def _cast(dtype):
    def method(self, memory_format=None):
        if self._data.dtype == dtype.np:
            return self
        return call(OPS["astype"], [self], {"dtype": dtype})
    return method


def type_(self, dtype=None, non_blocking=False):
    """The dtype's name without ``dtype``; a cast with it (PyTorch's ``Tensor.type``)."""
    if dtype is None:
        return f"mutograd.{self.dtype.name}"
    d = dtypes.get(dtype)
    return self if d == self.dtype else call(OPS["astype"], [self], {"dtype": d})


def to(self, *args, dtype=None, device=None, place=None, non_blocking=False, copy=False,
       blocking=None):
    """Cast and/or move: ``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(other)``."""
    for a in args:
        if isinstance(a, Tensor):
            dtype, device = a.dtype, a.place
        elif isinstance(a, (dtypes.DType,)) or _is_dtype(a):
            dtype = a
        else:
            device = a
    out = self
    if device is not None or place is not None:
        from .transfer import to_place
        out = to_place(self, device if device is not None else place)
    if dtype is not None and dtypes.get(dtype) != self.dtype:
        out = call(OPS["astype"], [out], {"dtype": dtype})
    if copy and out is self:
        out = call(OPS["clone"], [self], {"memory_format": None})
    return out


def _is_dtype(a):
    try:
        dtypes.get(a)
        return not isinstance(a, str) or a.rsplit(".", 1)[-1] not in ("cpu", "cuda", "gpu")
    except (TypeError, ValueError):
        return False


def cpu(self):
    return self.to("cpu")


def clear_grad(self, set_to_zero=False):
    """Drop ``.grad`` (Paddle's ``clear_grad``; ``set_to_zero`` keeps a zeroed buffer)."""
    if set_to_zero and self._grad is not None:
        self._grad.zero_()
    else:
        self.__dict__["_grad"] = None


def apply(self, func):
    """``func(self)`` as a new tensor, computed without recording (Paddle's ``Tensor.apply``);
    refused on a tensor that requires grad, as Paddle does.

    Example::

        >>> import mutograd as mg
        >>> mg.tensor([1., 2.]).apply(lambda t: t * 2).tolist()
        [2.0, 4.0]
    """
    if self.requires_grad:
        raise RuntimeError("Cannot apply function on a tensor that required gradient.")
    from .autograd.grad_mode import no_grad
    with no_grad():
        return func(self)


# name -> method, attached by the op generator (mutograd/ops/__init__.py)
TENSOR_METHODS = {
    **{name: _cast(dtype) for name, dtype in (
        ("float", dtypes.float32), ("double", dtypes.float64), ("half", dtypes.float16),
        ("int", dtypes.int32), ("long", dtypes.int64), ("short", dtypes.int16),
        ("bool", dtypes.bool), ("byte", dtypes.uint8), ("char", dtypes.int8))},
    "type": type_, "to": to, "cpu": cpu, "clear_grad": clear_grad, "clear_gradient": clear_grad,
    **dict.fromkeys(("astype", "cast"), lambda self, dtype: self if self._data.dtype ==
                    dtypes.to_numpy(dtype) else call(OPS["astype"], [self], {"dtype": dtype})),
    "apply": apply,
}
