"""The adaptive softmax (Grave et al., "Efficient softmax approximation for GPUs"): frequent
classes in a head, the rest in clusters reached through the head, each cluster a smaller
projection; PyTorch's parameters, outputs and ``log_prob`` / ``predict``.

    >>> import mutograd as mg
    >>> asm = mg.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[4, 7])
    >>> out = asm(mg.randn([5, 8]), mg.tensor([0, 3, 5, 8, 9]))
    >>> out.output.shape, out.loss.shape
    ([5], [])
"""
from collections import namedtuple

import numpy as np

from ...errors import ShapeError
from ...ops.creation import zeros
from ...ops.indexing import gather, index_select
from ...ops.shaping import cat
from ...tensor import Tensor, _wrap
from .. import functional as F
from ..module import Module
from .containers import ModuleList, Sequential
from .linear import Linear

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


def set_cutoffs(layer, in_features, n_classes, cutoffs):
    """Check an adaptive softmax's ``cutoffs`` (PyTorch's and Paddle's rule and words) and set
    the sizes both frameworks' layers keep: ``cutoffs`` (ending with ``n_classes``),
    ``shortlist_size``, ``n_clusters``, ``head_size``."""
    cutoffs = list(cutoffs)
    if len(cutoffs) == 0:
        raise ValueError("cutoffs should be a sequence of length larger than 0")
    if cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1 \
            or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs):
        raise ValueError("cutoffs should be a sequence of unique, positive integers sorted "
                         "in an increasing order, where each value is between 1 and "
                         "n_classes-1")
    layer.in_features, layer.n_classes = in_features, n_classes
    layer.cutoffs = cutoffs + [n_classes]
    layer.shortlist_size = layer.cutoffs[0]
    layer.n_clusters = len(layer.cutoffs) - 1
    layer.head_size = layer.shortlist_size + layer.n_clusters


class AdaptiveLogSoftmaxWithLoss(Module):
    """Log-probabilities of the targets under the adaptive softmax (``output``) and their
    negated mean (``loss``). ``cutoffs`` split the ``n_classes`` classes into the head's
    shortlist and the clusters; cluster i projects to ``in_features // div_value**(i+1)``."""

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False,
                 device=None, dtype=None):
        super().__init__()
        set_cutoffs(self, in_features, n_classes, cutoffs)
        self.div_value, self.head_bias = div_value, head_bias
        self.head = Linear(in_features, self.head_size, bias=head_bias, dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hsz = int(in_features // (div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hsz, bias=False, dtype=dtype),
                                        Linear(hsz, osz, bias=False, dtype=dtype)))

    def reset_parameters(self):
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_, target_):
        # PyTorch's parameter names (``input_``, ``target_``), so keyword calls bind alike
        input, target = input_, target_
        tgt = target._data if isinstance(target, Tensor) else np.asarray(target)
        if tgt.ndim == 1:
            if input.ndim != 2 or input.shape[0] != tgt.shape[0]:
                raise ShapeError(f"1D target tensor expects 2D input tensors of the same batch "
                                 f"size, but found inputs with size {list(input.shape)} and "
                                 f"target with size {list(tgt.shape)}")
        elif tgt.ndim == 0:
            if input.ndim != 1:
                raise ShapeError(f"0D target tensor expects 1D input tensors, but found inputs "
                                 f"with size {list(input.shape)}")
        else:
            raise ShapeError("0D or 1D target tensor expected, multi-target not supported")
        batched = tgt.ndim == 1
        x = input if batched else input.unsqueeze(0)
        tgt = tgt.reshape(-1).astype(np.int64)
        if tgt.size and (tgt.min() < 0 or tgt.max() >= self.n_classes):
            raise ValueError(f"Target values should be in [0, {self.n_classes - 1}], but values "
                             f"in range [{tgt.min()}, {tgt.max()}] were found. ")
        # the head's column of each row: its class in the shortlist, else its cluster
        cluster = np.searchsorted(np.asarray(self.cutoffs), tgt, side="right")
        column = np.where(cluster == 0, tgt, self.shortlist_size + cluster - 1)
        head_logprob = F.log_softmax(self.head(x), dim=1)
        output = gather(head_logprob, 1, _wrap(column[:, None])).squeeze(1)
        for i in range(1, self.n_clusters + 1):
            rows = np.flatnonzero(cluster == i)
            if rows.size == 0:
                continue
            logprob = F.log_softmax(self.tail[i - 1](index_select(x, 0, _wrap(rows))), dim=1)
            local = gather(logprob, 1, _wrap((tgt[rows] - self.cutoffs[i - 1])[:, None]))
            placed = zeros([tgt.size], dtype=x.dtype).index_add(0, _wrap(rows), local.squeeze(1))
            output = output + placed
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def log_prob(self, input):
        """Log-probabilities of all ``n_classes`` classes, (N, n_classes)."""
        head_logprob = F.log_softmax(self.head(input), dim=1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            column = head_logprob[:, self.shortlist_size + i:self.shortlist_size + i + 1]
            parts.append(F.log_softmax(self.tail[i](input), dim=1) + column)
        return cat(parts, axis=1)

    def predict(self, input):
        """The most probable class of each row."""
        return self.log_prob(input).argmax(1)
