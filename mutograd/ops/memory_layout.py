"""How and where a tensor is stored, as PyTorch's Tensor methods ask it: ``x.dim_order()``,
``x.get_device()``, ``x.is_cpu``, and the methods for layouts and memory kinds mutograd has only
one of: dense, strided, unquantized host or device memory (``x.is_sparse`` is False,
``x.pin_memory()`` and ``x.share_memory_()`` return ``x``, ``x.to_dense()`` is ``x``).

    >>> import mutograd as mg
    >>> x = mg.zeros([2, 3]).t()
    >>> x.dim_order(), x.get_device(), x.is_cpu, x.is_sparse
    ((1, 0), -1, True, False)
"""
from ..tensor import Tensor


def dim_order(self):
    """The dimensions from the outermost to the innermost in memory (by decreasing stride)."""
    st = self.stride()
    return tuple(sorted(range(self.ndim), key=lambda i: -st[i]))


Tensor.dim_order = dim_order
Tensor.get_device = lambda self: -1 if self._place.kind == "cpu" else self._place.index
Tensor.is_cpu = property(lambda self: self._place.kind == "cpu")
for _flag in ("is_nested", "is_quantized", "is_sparse", "is_sparse_csr"):
    setattr(Tensor, _flag, property(lambda self: False, doc="False: mutograd tensors are "
                                                            "dense, strided and unquantized."))
Tensor.is_distributed = Tensor.is_pinned = Tensor.is_shared = lambda self, *a: False
Tensor.pin_memory = lambda self, device=None: self    # host memory is what NumPy has
Tensor.share_memory_ = lambda self: self
Tensor.to_dense = lambda self, dtype=None, **kw: self if dtype is None else self.type(dtype)
