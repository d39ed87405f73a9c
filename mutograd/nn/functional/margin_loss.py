"""Margin, ranking and embedding losses with PyTorch's signatures and formulas: margin
ranking, hinge embedding, cosine embedding, soft margin, multi-label and multi-class margin,
triplet margin. Each is composed of differentiable ops, so its gradient is autograd's (checked
against PyTorch in tests/nn/test_nn_losses.py).

    >>> import mutograd as mg
    >>> import mutograd.nn.functional as F
    >>> F.margin_ranking_loss(mg.tensor([1.0, 2.0]), mg.tensor([2.0, 0.0]),
    ...                       mg.tensor([1.0, 1.0]), margin=0.5).item()
    0.75
"""

import numpy as np

from ...errors import ShapeError
from ...ops.indexing import gather
from ...tensor import _wrap
from .activation import logsigmoid
from .distance import pairwise_distance
from .loss import _legacy, _reduce, _where, _zeros_like


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                        reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``: ``target`` 1 says ``input1`` should
    rank higher, -1 lower."""
    return _reduce((-target * (input1 - input2) + margin).clamp(min=0),
                   _legacy(size_average, reduce, reduction))


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """``input`` where ``target`` is 1, ``max(0, margin - input)`` where it is -1 (``input``
    usually a distance)."""
    zeros = _zeros_like(input)
    loss = _where(target != 1, (margin - input).clamp(min=0), zeros) + \
        _where(target != -1, input, zeros)
    return _reduce(loss, _legacy(size_average, reduce, reduction))


def _cos_rows(x1, x2):
    """PyTorch's cosine for the embedding loss: along the last dimension, 1e-12 added to each
    squared magnitude."""
    eps = 1e-12
    dot = (x1 * x2).sum(-1)
    return dot / ((x1 * x1).sum(-1) + eps).mul((x2 * x2).sum(-1) + eps).sqrt()


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                          reduction="mean"):
    """``1 - cos(input1, input2)`` where ``target`` is 1, ``max(0, cos - margin)`` where -1."""
    if input1.ndim not in (1, 2) or input1.shape != input2.shape:
        raise ShapeError(f"cosine_embedding_loss: expected 1-D or 2-D inputs of one shape, got "
                         f"{list(input1.shape)} and {list(input2.shape)}")
    cos = _cos_rows(input1, input2)
    zeros = _zeros_like(cos)
    loss = _where(target == 1, 1 - cos, zeros) + \
        _where(target == -1, (cos - margin).clamp(min=0), zeros)
    return _reduce(loss, _legacy(size_average, reduce, reduction))


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``log(1 + exp(-target * input))`` (two-class logistic loss, ``target`` +-1)."""
    return _reduce((1 + (-target * input).exp()).log(), _legacy(size_average, reduce, reduction))


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """Binary logistic loss per class (``target`` 0/1 of ``input``'s shape), averaged over
    the classes (the last dimension)."""
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss.sum(-1) / input.shape[-1], _legacy(size_average, reduce, reduction))


def _picked(input, target):
    """``input[n, target[n]]`` as an (N, 1) tensor."""
    return gather(input, -1, target.long().unsqueeze(-1))


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """Multi-class hinge loss: ``sum_{i != y} max(0, margin - x[y] + x[i]) ** p / C`` per
    sample (``p`` 1 or 2), times ``weight[y]``."""
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    vector = input.ndim == 1
    x = input.unsqueeze(0) if vector else input
    y = target.reshape(-1)
    margins = (margin - _picked(x, y) + x).clamp(min=0)
    if p == 2:
        margins = margins * margins
    if weight is not None:
        margins = margins * weight[y.long()].unsqueeze(-1)
    own = _one_hot_mask(y, x.shape[-1])
    loss = _where(own, _zeros_like(margins), margins).sum(-1) / x.shape[-1]
    return _reduce(loss.squeeze(0) if vector else loss, _legacy(size_average, reduce, reduction))


def _one_hot_mask(y, c):
    return _wrap(np.arange(c)[None, :] == y.detach().numpy().reshape(-1, 1), y)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``sum_{j in targets} sum_{i not in targets} max(0, 1 - (x[j] - x[i])) / C``; each row
    of ``target`` lists class indices, ended by the first -1."""
    vector = input.ndim == 1
    x = input.unsqueeze(0) if vector else input
    t = target.detach().numpy().reshape(x.shape[0], -1)
    n, c = x.shape
    is_target = np.zeros((n, c), bool)
    listed = np.zeros((n, t.shape[1]), bool)
    for r in range(n):
        for k, j in enumerate(t[r]):
            if j < 0:
                break
            is_target[r, j], listed[r, k] = True, True
    idx = _wrap(np.where(listed, t, 0).astype(np.int64), x)
    picked = gather(x, 1, idx)                                    # (N, K): x[j]
    pairs = (1 - (picked.unsqueeze(-1) - x.unsqueeze(1))).clamp(min=0)   # (N, K, C)
    keep = _wrap(listed[:, :, None] & ~is_target[:, None, :], x)
    loss = _where(keep, pairs, _zeros_like(pairs)).sum((1, 2)) / c
    return _reduce(loss.squeeze(0) if vector else loss, _legacy(size_average, reduce, reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """``max(d(a, p) - d(a, n) + margin, 0)`` with ``d`` the pairwise ``p``-distance;
    ``swap``: the smaller of ``d(a, n)`` and ``d(p, n)``."""
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = d_neg.minimum(pairwise_distance(positive, negative, p, eps))
    return _reduce((d_pos - d_neg + margin).clamp(min=0), _legacy(size_average, reduce, reduction))


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """:func:`triplet_margin_loss` with any ``distance_function(x, y)`` (default the pairwise
    2-distance)."""
    d = distance_function if distance_function is not None else pairwise_distance
    d_pos, d_neg = d(anchor, positive), d(anchor, negative)
    if swap:
        d_neg = d_neg.minimum(d(positive, negative))
    return _reduce((d_pos - d_neg + margin).clamp(min=0), reduction)
