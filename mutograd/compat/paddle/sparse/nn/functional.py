"""``paddle.sparse.nn.functional``: activations of the stored values of a sparse tensor (each
maps 0 to 0, so the pattern is kept) and the softmax over the stored entries.

    >>> import mutograd.compat.paddle as paddle
    >>> s = paddle.sparse.sparse_coo_tensor([[0, 0], [0, 1]], [1.0, 1.0], [1, 2])
    >>> paddle.sparse.nn.functional.softmax(s).values().tolist()
    [0.5, 0.5]
"""
from ..... import sparse as _sparse
from .....nn import functional as _F
from .....sparse import SparseTensor as _SparseTensor

__all__ = ["leaky_relu", "relu", "relu6", "softmax"]


def _values_map(x, fn, what):
    if not isinstance(x, _SparseTensor):
        raise TypeError(f"paddle.sparse.nn.functional.{what}() takes a sparse tensor, got "
                        f"{type(x).__name__}")
    return x._with_values(fn(x._vals))


def relu(x, name=None):
    """``max(v, 0)`` of each stored value."""
    return _values_map(x, _F.relu, "relu")


def relu6(x, name=None):
    """``min(max(v, 0), 6)`` of each stored value."""
    return _values_map(x, _F.relu6, "relu6")


def leaky_relu(x, negative_slope=0.01, name=None):
    """``v`` where positive, else ``negative_slope * v``, of each stored value."""
    return _values_map(x, lambda v: _F.leaky_relu(v, negative_slope), "leaky_relu")


def softmax(x, axis=-1, name=None):
    """The softmax along ``axis`` over the stored entries only (absent ones count as minus
    infinity), of a COO or CSR tensor; the result has ``x``'s layout."""
    if not isinstance(x, _SparseTensor):
        raise TypeError(f"paddle.sparse.nn.functional.softmax() takes a sparse tensor, got "
                        f"{type(x).__name__}")
    out = _sparse.softmax(x, axis)
    return out.to_sparse_csr() if x.layout == "sparse_csr" else out
