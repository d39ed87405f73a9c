"""``out=``: a function's result written into tensors the caller supplies.

Note [Writing into out=]
    ``f(..., out=t)`` is a write like any in-place op (design.md rule 9), with PyTorch's rules:

    - nothing is written when an argument, ``out`` included, requires grad while grad mode is
      on (the write could not be differentiated), or when ``out`` partly overlaps an input
      (an input read after part of it was overwritten); ``out`` may be an input itself;
    - the result is computed first, then checked against ``out``: the place must match, the
      dtype must be castable ("same kind"; an index result, integer from a non-integer input,
      needs int64 exactly), and a shape that differs resizes ``out`` in place, with PyTorch's
      deprecation warning unless ``out`` was empty;
    - each ``out`` is written once (its version bumped) and returned, the very object passed;
      a function with several results (``sort``, ``topk``, ``max(dim)``) takes a tuple or list
      of tensors and returns them in the result's own tuple type.

    Every check runs before the first write, so nothing is half-written.
"""
import warnings

import numpy as np

from ..dtypes import SCALAR_TYPE_NAMES
from ..errors import DTypeError, InplaceError
from ..tensor import Tensor
from .grad_mode import _state, no_grad

_RESIZED = ("An output with one or more elements was resized since it had shape {old}, which "
            "does not match the required output shape {new}. This behavior is deprecated, and "
            "in a future PyTorch release outputs will not be resized unless they have zero "
            "elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero "
            "elements with t.resize_(0).")


def _tensors(values):
    for v in values:
        if isinstance(v, Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from (t for t in v if isinstance(t, Tensor))


def _outs(name, out):
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    for o in outs:
        if not isinstance(o, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(o).__name__}")
    return outs


def _partly_overlaps(xp, a, b):
    """Whether two arrays share memory without being the same elements in the same order."""
    if a is b or not xp.may_share_memory(a, b):
        return False
    return not (a.shape == b.shape and a.strides == b.strides and _address(a) == _address(b))


def _address(a):
    return a.ctypes.data if isinstance(a, np.ndarray) else a.data.ptr


def write_results(name, compute, inputs, out):
    """Run ``compute()`` and write its result into ``out`` (Note [Writing into out=]);
    ``inputs``: the call's arguments (tensors, lists of them, anything else ignored)."""
    outs = _outs(name, out)
    ins = list(_tensors(inputs))
    if _state.enabled and any(t._rg for t in ins + list(outs)):
        raise InplaceError(f"{name}(): functions with out=... arguments don't support automatic "
                           f"differentiation, but one of the arguments requires grad.")
    for o in outs:
        if any(t._place is o._place and _partly_overlaps(o._place.xp, o._data, t._data)
               for t in ins):
            raise InplaceError("unsupported operation: some elements of the input tensor and "
                               "the written-to tensor refer to a single memory location. Please "
                               "clone() the tensor before performing the operation.")
    result = compute()
    results = tuple(result) if isinstance(result, (tuple, list)) else (result,)
    if len(results) != len(outs):
        raise TypeError(f"{name}(): expected tuple of {len(results)} elements but got "
                        f"{len(outs)}")
    floating = any(t._data.dtype.kind in "fc" for t in ins)
    for o, r in zip(outs, results):
        _check(name, o, r, index=floating and r._data.dtype.kind in "iu")
    with no_grad():
        for o, r in zip(outs, results):
            if tuple(o.shape) != tuple(r.shape):
                if o._data.size:
                    warnings.warn(_RESIZED.format(old=list(o.shape), new=list(r.shape)),
                                  UserWarning, stacklevel=3)
                o.resize_(*r.shape)
            o.copy_(r)
    if isinstance(out, Tensor):
        return out
    return type(result)(*outs) if hasattr(result, "_fields") else outs


def _check(name, o, r, index):
    if r._place is not o._place:
        from ..places import check_same
        raise check_same(name, r._place, o._place)
    rt, ot = r._data.dtype, o._data.dtype
    if index and ot != rt:
        raise DTypeError(f"Expected out tensor to have dtype {_c_name(rt)}, but got "
                         f"{_c_name(ot)} instead")
    if rt != ot and not np.can_cast(rt, ot, "same_kind"):
        raise DTypeError(f"result type {_short(rt)} can't be cast to the desired output type "
                         f"{_short(ot)}")


_C = {"int64": "long int", "int32": "int", "float32": "float", "float64": "double"}


def _short(dt):
    return SCALAR_TYPE_NAMES.get(dt.name, dt.name)


def _c_name(dt):
    return _C.get(dt.name, dt.name)
