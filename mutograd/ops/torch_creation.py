"""PyTorch's creation functions beyond the shared ones of creation.py: ``scalar_tensor``, the
deprecated inclusive ``range`` (``range_`` here, ``torch.range`` in the PyTorch namespace), and
the legacy constructors ``x.new(...)`` and ``x.new_empty_strided(...)``.

    >>> import mutograd as mg
    >>> from mutograd.ops.torch_creation import range_
    >>> range_(1, 3).tolist(), mg.scalar_tensor(2).item()
    ([1.0, 2.0, 3.0], 2.0)
"""
import math

import numpy as np

from .. import dtypes
from ..tensor import Size, Tensor
from . import creation


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False, layout=None,
                  pin_memory=False):
    """A 0-d tensor of ``s`` (of the default float dtype unless told otherwise)."""
    return creation.tensor(float(s) if dtype is None else s,
                           dtype=dtype or dtypes.default_float, device=device,
                           requires_grad=requires_grad)


def range_(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False,
           layout=None, out=None):
    """PyTorch's deprecated ``range``: ``start .. end`` *inclusive*, floats by default."""
    if end is None:
        start, end = 0, start
    n = int(math.floor((end - start) / step)) + 1
    return creation.tensor(start + step * np.arange(n), dtype=dtype or dtypes.default_float,
                           device=device, requires_grad=requires_grad)


def _legacy_new(self, *args, **kw):
    """PyTorch's legacy ``x.new(...)``: ``Tensor(...)`` with ``x``'s dtype."""
    if not args:
        return creation.empty(0, dtype=self.dtype)
    if all(isinstance(a, int) for a in args) or isinstance(args[0], Size):
        return creation.empty(*args, dtype=self.dtype)
    return creation.tensor(args[0], dtype=self.dtype)


Tensor.new = _legacy_new
Tensor.new_empty_strided = lambda self, size, stride, **kw: self.new_empty(*size, **kw)
FUNCTIONS = {"scalar_tensor": scalar_tensor}
