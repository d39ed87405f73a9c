"""Bags of embeddings (EmbeddingBag: sums, means or maxima of looked-up rows) and the bilinear
layer, composed of the embedding lookup, matrix products and reductions.

    >>> import mutograd as mg
    >>> bag = mg.nn.EmbeddingBag(10, 3, mode="sum")
    >>> bag(mg.tensor([1, 2, 4, 5]), mg.tensor([0, 2])).shape
    [2, 3]
"""
import math

import numpy as np

from ..autograd.grad_mode import no_grad
from ..errors import ShapeError
from ..ops import OPS, call
from ..ops.creation import empty, zeros
from ..ops.shaping import stack
from ..tensor import Tensor, _wrap
from . import functional as F
from . import init
from .module import Module, Parameter

__all__ = ["Bilinear", "EmbeddingBag"]

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
    rows = F.embedding(_wrap(idx.astype(np.int64)), weight)
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
            out.append(zeros([weight.shape[1]], dtype=weight.dtype) if pos.size == 0 else
                       call(OPS["index_select"], [rows, _wrap(pos)], {"axis": 0}).amax(axis=0))
        return stack(out) if out else zeros([0, weight.shape[1]], dtype=weight.dtype)
    matrix = np.zeros((nbags, idx.size), weight.dtype.np)
    matrix[bag[keep], np.flatnonzero(keep)] = 1.0
    if mode == "mean":
        matrix /= np.maximum(matrix.sum(axis=1, keepdims=True), 1)
    return _wrap(matrix) @ rows


class EmbeddingBag(Module):
    """A table of ``num_embeddings`` vectors whose bags are reduced by ``mode`` ('sum',
    'mean' or 'max'); ``forward(input, offsets=None, per_sample_weights=None)``."""

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, device=None, dtype=None):
        super().__init__()
        if mode not in _BAG_MODES:
            raise ValueError(f"mode has to be one of sum, mean or max, got {mode!r}")
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError("padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.mode, self.sparse = scale_grad_by_freq, mode, sparse
        self.include_last_offset, self.padding_idx = include_last_offset, padding_idx
        if _weight is None:
            self.weight = Parameter(empty([num_embeddings, embedding_dim], dtype=dtype))
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise ShapeError("Shape of weight does not match num_embeddings and "
                                 "embedding_dim")
            self.weight = Parameter(_weight)

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx] = 0.0

    def forward(self, input, offsets=None, per_sample_weights=None):
        return embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                             self.scale_grad_by_freq, self.mode, self.sparse, per_sample_weights,
                             self.include_last_offset, self.padding_idx)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}, mode={self.mode!r}"
        return s + (f", padding_idx={self.padding_idx}" if self.padding_idx is not None else "")


def bilinear(input1, input2, weight, bias=None):
    """``y_k = x1^T A_k x2 + b_k`` with ``weight`` A of shape (out, in1, in2).

        >>> import mutograd as mg
        >>> bilinear(mg.ones([1, 2]), mg.ones([1, 3]), mg.ones([4, 2, 3])).tolist()
        [[6.0, 6.0, 6.0, 6.0]]
    """
    out_f, in1, in2 = weight.shape
    if input1.shape[-1] != in1 or input2.shape[-1] != in2 or \
            tuple(input1.shape[:-1]) != tuple(input2.shape[:-1]):
        raise ShapeError(f"bilinear: inputs of shapes {list(input1.shape)} and "
                         f"{list(input2.shape)} do not fit a weight of shape "
                         f"{list(weight.shape)}")
    mixed = input1 @ weight.permute(1, 0, 2).reshape(in1, out_f * in2)
    out = (mixed.reshape(*input1.shape[:-1], out_f, in2) * input2.unsqueeze(-2)).sum(-1)
    return out if bias is None else out + bias


class Bilinear(Module):
    """``y = x1^T A x2 + b``: weight (out_features, in1_features, in2_features), bias
    (out_features), both U(-1/sqrt(in1_features), 1/sqrt(in1_features)) as PyTorch."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        self.weight = Parameter(empty([out_features, in1_features, in2_features], dtype=dtype))
        if bias:
            self.bias = Parameter(empty([out_features], dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
