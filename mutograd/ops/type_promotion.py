"""Type promotion: which dtype an op on given tensors or dtypes gives (``result_type``,
``promote_types``) and whether a cast is allowed (``can_cast``), by PyTorch's rules.

    >>> import mutograd as mg
    >>> mg.promote_types(mg.int64, mg.float32), mg.can_cast(mg.float32, mg.int64)
    (float32, False)
"""
import numpy as np

from .. import dtypes
from ..tensor import Tensor


def result_type(tensor1, tensor2):
    """The dtype an op on the two would give (tensors: :func:`promote_types` of their dtypes;
    a Python number takes the tensor's dtype unless it is of a higher kind)."""
    if isinstance(tensor1, Tensor) and isinstance(tensor2, Tensor):
        return promote_types(tensor1.dtype, tensor2.dtype)
    t, s = (tensor1, tensor2) if isinstance(tensor1, Tensor) else (tensor2, tensor1)
    kind = "c" if isinstance(s, complex) else "f" if isinstance(s, float) else "b" if \
        isinstance(s, bool) else "i"
    order = "biufc"
    if order.index(kind) <= order.index(t.dtype.np.kind):
        return t.dtype
    return {"f": dtypes.default_float, "c": dtypes.get("complex64"),
            "i": dtypes.get("int64")}[kind]


def promote_types(type1, type2):
    """The smallest dtype both cast to; an integer and a floating dtype give the floating one,
    as PyTorch (NumPy would widen it)."""
    a, b = dtypes.to_numpy(type1), dtypes.to_numpy(type2)
    if a.kind in "biu" and b.kind in "fc":
        return dtypes.from_numpy(b)
    if b.kind in "biu" and a.kind in "fc":
        return dtypes.from_numpy(a)
    return dtypes.from_numpy(np.promote_types(a, b))


def can_cast(from_, to):
    """Whether a value of dtype ``from_`` may be cast to ``to`` (PyTorch's same-kind rule)."""
    return bool(np.can_cast(dtypes.to_numpy(from_), dtypes.to_numpy(to), "same_kind"))


FUNCTIONS = {f.__name__: f for f in (result_type, promote_types, can_cast)}
