"""Embedding lookups: ``embedding`` (with ``padding_idx`` and ``max_norm``), ``embedding_bag``
(sums, means or maxima of bags of rows) and ``one_hot``.

    >>> import mutograd as mg
    >>> import mutograd.nn.functional as F
    >>> F.embedding(mg.tensor([0, 2]), mg.eye(3)).tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
"""

import numpy as np

from ...autograd.grad_mode import no_grad
from ...errors import DTypeError, IndexRangeError, ShapeError
from ...ops import OPS, call
from ...ops.shaping import stack
from ...tensor import Tensor, _wrap


def embedding(indices, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` at ``indices`` (the gradient at ``padding_idx`` is zero).

    ``max_norm``: first, the looked-up rows whose ``norm_type``-norm exceeds it are scaled down
    to it in ``weight`` itself, under ``no_grad()`` (a write: it bumps ``weight``'s version), as
    PyTorch does.
    """
    if scale_grad_by_freq or sparse:
        raise ValueError("embedding: scale_grad_by_freq and sparse gradients are not supported; "
                         "leave them False (the gradient is dense)")
    idx = indices._data if isinstance(indices, Tensor) else indices
    if idx.dtype.kind not in "iu":
        raise DTypeError(f"Expected tensor for argument #1 'indices' to have one of the "
                         f"following scalar types: Long, Int; but got {idx.dtype} instead "
                         f"(while checking arguments for embedding)")
    n = weight.shape[0]
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexRangeError(f"embedding: index out of range for a table of {n} rows "
                              f"(got indices in [{int(idx.min())}, {int(idx.max())}])")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += n
    if max_norm is not None:
        _renorm_rows(weight, idx, max_norm, norm_type)
    return call(OPS["embedding"], [weight, indices], {"padding_idx": padding_idx})


def _renorm_rows(weight, idx, max_norm, norm_type):
    """Scale the rows ``idx`` of ``weight`` whose norm exceeds ``max_norm`` down to it."""
    xp = weight._place.xp
    rows = xp.unique(xp.asarray(idx).reshape(-1))
    norms = xp.linalg.norm(weight._data[rows], ord=norm_type, axis=1)
    big = norms > max_norm
    if big.any():
        rows, scale = rows[big], (max_norm / (norms[big] + 1e-7))[:, None]
        with no_grad():
            weight[_wrap(rows)] = weight[_wrap(rows)] * _wrap(scale.astype(weight._data.dtype))


def one_hot(x, num_classes=-1):
    """Integer class indices as a one-hot int64 tensor with a trailing class axis."""
    idx = x._data
    n = int(idx.max()) + 1 if num_classes < 0 else num_classes
    xp = x._place.xp
    return _wrap((idx[..., None] == xp.arange(n)).astype(xp.int64), x)


_BAG_MODES = ("sum", "mean", "max")


def _array(t):
    return t._data if isinstance(t, Tensor) else np.asarray(t)


def _bags(input, offsets, include_last_offset):
    """The flat indices and, for each, the number of its bag; and the number of bags."""
    idx = _array(input)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"embedding_bag: input must be integers, got {idx.dtype}")
    if idx.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences.")
        b, n = idx.shape
        return idx.reshape(-1), np.repeat(np.arange(b), n), b
    if idx.ndim != 1:
        raise ShapeError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{idx.ndim}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    off = _array(offsets).astype(np.int64)
    if off.ndim != 1:
        raise ShapeError(f"offsets has to be a 1D Tensor, got {off.ndim}D")
    if off.size and off[0] != 0:
        raise ValueError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                         f"has to start from position 0. However, got {off[0]}")
    if include_last_offset:
        off = off[:-1]
    bag = np.searchsorted(off, np.arange(idx.size), side="right") - 1
    return idx, bag, off.size


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """Reduce bags of embedding rows: each row of a 2-D ``input``, or the runs of a 1-D
    ``input`` that start at ``offsets``, is looked up in ``weight`` and summed, averaged or
    maximised ('sum' may weight each index by ``per_sample_weights``). Indices equal to
    ``padding_idx`` are left out; an empty bag gives zeros.

        >>> import mutograd as mg
        >>> w = mg.arange(6.).reshape(3, 2)
        >>> embedding_bag(mg.tensor([[0, 2]]), w, mode="max").tolist()
        [[4.0, 5.0]]
    """
    if mode not in _BAG_MODES:
        raise ValueError(f"mode has to be one of sum, mean or max, got {mode!r}")
    if max_norm is not None:
        raise ValueError("embedding_bag: max_norm is not supported")
    if per_sample_weights is not None and mode != "sum":
        raise ValueError(f"embedding_bag: per_sample_weights was not None. per_sample_weights "
                         f"is only supported for mode='sum' (got mode='{mode}')")
    idx, bag, nbags = _bags(input, offsets, include_last_offset)
    n = weight.shape[0]
    if padding_idx is not None and padding_idx < 0:
        padding_idx += n
    keep = np.ones(idx.size, bool) if padding_idx is None else idx != padding_idx
    rows = embedding(_wrap(idx.astype(np.int64)), weight)
    if per_sample_weights is not None:
        if tuple(per_sample_weights.shape) != tuple(_array(input).shape):
            raise ShapeError(f"embedding_bag: per_sample_weights of shape "
                             f"{list(per_sample_weights.shape)} does not match input of shape "
                             f"{list(_array(input).shape)}")
        rows = rows * per_sample_weights.reshape(-1, 1)
    if mode == "max":
        out = []
        for b in range(nbags):
            pos = np.flatnonzero((bag == b) & keep)
            # (new_zeros: weight's place and tensor type, as the other bags')
            out.append(weight.new_zeros([weight.shape[1]]) if pos.size == 0 else
                       call(OPS["index_select"], [rows, _wrap(pos)], {"axis": 0}).amax(axis=0))
        return stack(out) if out else weight.new_zeros([0, weight.shape[1]])
    matrix = np.zeros((nbags, idx.size), weight.dtype.np)
    matrix[bag[keep], np.flatnonzero(keep)] = 1.0
    if mode == "mean":
        matrix /= np.maximum(matrix.sum(axis=1, keepdims=True), 1)
    return _wrap(matrix) @ rows
