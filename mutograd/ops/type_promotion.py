"""Type promotion: which dtype an op on given tensors or dtypes gives (``result_type``,
``promote_types``) and whether a cast is allowed (``can_cast``), by PyTorch's rules.

    >>> import mutograd as mg
    >>> mg.promote_types(mg.int64, mg.float32), mg.can_cast(mg.float32, mg.int64)
    (float32, False)
"""
import numpy as np

from .. import dtypes
from ..autograd.promotion import promote_pair, result_dtype
from ..tensor import Tensor


def result_type(tensor1, tensor2):
    """The dtype an element-wise op on the two gives (Note [Type promotion] in
    autograd/promotion.py: a 0-d tensor or a Python number decides only where it is of a higher
    kind than the tensors with dimensions)."""
    arrays = [a._data if isinstance(a, Tensor) else a for a in (tensor1, tensor2)]
    return dtypes.from_numpy(result_dtype(arrays))


def promote_types(type1, type2):
    """The smallest dtype both cast to; an integer and a floating dtype give the floating one,
    as PyTorch (NumPy would widen it)."""
    return dtypes.from_numpy(promote_pair(dtypes.to_numpy(type1), dtypes.to_numpy(type2)))


def can_cast(from_, to):
    """Whether a value of dtype ``from_`` may be cast to ``to`` (PyTorch's same-kind rule)."""
    return bool(np.can_cast(dtypes.to_numpy(from_), dtypes.to_numpy(to), "same_kind"))


FUNCTIONS = {f.__name__: f for f in (result_type, promote_types, can_cast)}
