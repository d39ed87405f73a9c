"""How and where a tensor is stored, as PyTorch's Tensor methods ask it: ``x.dim_order()``,
``x.get_device()``, ``x.is_cpu``, and the methods for layouts and memory kinds mutograd has only
one of: dense, strided, unquantized host or device memory (``x.is_sparse`` is False,
``x.pin_memory()`` and ``x.share_memory_()`` return ``x``, ``x.to_dense()`` is ``x``).

    >>> import mutograd as mg
    >>> x = mg.zeros([2, 3]).t()
    >>> x.dim_order(), x.get_device(), x.is_cpu, x.is_sparse
    ((1, 0), -1, True, False)
"""


def dim_order(self):
    """The dimensions from the outermost to the innermost in memory (by decreasing stride)."""
    st = self.stride()
    return tuple(sorted(range(self.ndim), key=lambda i: -st[i]))


TENSOR_METHODS = {
    "dim_order": dim_order,
    "get_device": lambda self: -1 if self._place.kind == "cpu" else self._place.index,
    "is_cpu": property(lambda self: self._place.kind == "cpu"),
    **dict.fromkeys(("is_distributed", "is_pinned", "is_shared"), lambda self, *a: False),
    "pin_memory": lambda self, device=None: self,    # host memory is what NumPy has
    "share_memory_": lambda self: self,
    "to_dense": lambda self, dtype=None, **kw: self if dtype is None else self.type(dtype),
}
for _flag in ("is_nested", "is_quantized", "is_sparse", "is_sparse_csr"):
    TENSOR_METHODS[_flag] = property(lambda self: False, doc="False: mutograd tensors are "
                                                            "dense, strided and unquantized.")
for _flag in ("is_meta", "is_mkldnn", "is_mps", "is_xpu", "is_ipu", "is_mtia", "is_maia",
              "is_vulkan", "is_xla", "is_hpu"):
    TENSOR_METHODS[_flag] = property(lambda self: False, doc="False: a tensor is on the CPU or "
                                                            "on a CUDA GPU here.")
