"""Margin, embedding, ranking, count, Gaussian and CTC losses, and pairwise distances: functions
and their modules, with PyTorch's signatures and formulas. Each is composed of differentiable
ops, so its gradient is autograd's (checked against PyTorch in tests/test_nn_losses.py).

    >>> import mutograd as mg
    >>> from mutograd import nn
    >>> nn.MarginRankingLoss(margin=0.5)(mg.tensor([1.0, 2.0]), mg.tensor([2.0, 0.0]),
    ...                                  mg.tensor([1.0, 1.0])).item()
    0.75
"""
import math

import numpy as np

from ..errors import ShapeError
from ..tensor import Tensor, _wrap
from .functional import _reduce, logsigmoid
from .layers import _Loss
from .module import Module

FUNCTIONS = ("margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss",
             "soft_margin_loss", "multilabel_soft_margin_loss", "multi_margin_loss",
             "multilabel_margin_loss", "pairwise_distance", "pdist", "triplet_margin_loss",
             "triplet_margin_with_distance_loss", "poisson_nll_loss", "gaussian_nll_loss",
             "ctc_loss")
MODULES = ("MarginRankingLoss", "HingeEmbeddingLoss", "CosineEmbeddingLoss", "SoftMarginLoss",
           "MultiLabelSoftMarginLoss", "MultiMarginLoss", "MultiLabelMarginLoss",
           "PairwiseDistance", "TripletMarginLoss", "TripletMarginWithDistanceLoss",
           "PoissonNLLLoss", "GaussianNLLLoss", "CTCLoss")
__all__ = ["margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss",
           "soft_margin_loss", "multilabel_soft_margin_loss", "multi_margin_loss",
           "multilabel_margin_loss", "pairwise_distance", "pdist", "triplet_margin_loss",
           "triplet_margin_with_distance_loss", "poisson_nll_loss", "gaussian_nll_loss",
           "ctc_loss", "MarginRankingLoss", "HingeEmbeddingLoss", "CosineEmbeddingLoss",
           "SoftMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss",
           "MultiLabelMarginLoss", "PairwiseDistance", "TripletMarginLoss",
           "TripletMarginWithDistanceLoss", "PoissonNLLLoss", "GaussianNLLLoss", "CTCLoss"]


def _legacy(size_average, reduce, reduction):
    """PyTorch's deprecated ``size_average``/``reduce`` arguments as a ``reduction``: either
    given decides (``reduce=False``: none; else ``size_average=False``: sum; else mean)."""
    if size_average is None and reduce is None:
        return reduction
    if reduce is False:
        return "none"
    return "sum" if size_average is False else "mean"


def _zeros_like(x):
    return x * 0


def _full_like(t, value):
    """A constant of ``t``'s shape and dtype (``t * 0 + value`` would turn infinities into
    NaN)."""
    return _wrap(t._place.xp.full(tuple(t.shape), value, t._data.dtype), t)


def _where(condition, a, b):
    from ..ops import PUBLIC
    return PUBLIC["where"](condition, a, b)


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
    return input.gather(-1, target.long().unsqueeze(-1))


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
    picked = x.gather(1, idx)                                    # (N, K): x[j]
    pairs = (1 - (picked.unsqueeze(-1) - x.unsqueeze(1))).clamp(min=0)   # (N, K, C)
    keep = _wrap(listed[:, :, None] & ~is_target[:, None, :], x)
    loss = _where(keep, pairs, _zeros_like(pairs)).sum((1, 2)) / c
    return _reduce(loss.squeeze(0) if vector else loss, _legacy(size_average, reduce, reduction))


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``||x1 - x2 + eps||_p`` along the last dimension."""
    from ..linalg import vector_norm
    return vector_norm(x1 - x2 + eps, p, -1, keepdim)


def pdist(input, p=2.0):
    """The ``p``-norm distance between each pair of rows of an (N, M) ``input``: the upper
    triangle of the distance matrix, row by row (N (N - 1) / 2 values)."""
    if input.ndim != 2:
        raise ShapeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    from ..linalg import vector_norm
    n = input.shape[0]
    i, j = np.triu_indices(n, 1)
    return vector_norm(input[i.tolist()] - input[j.tolist()], p, -1)


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


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """Negative log-likelihood of a Poisson ``target`` with rate ``exp(input)`` (``log_input``)
    or ``input``; ``full`` adds Stirling's approximation of ``log(target!)`` for targets > 1."""
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        t = target.detach()
        safe = _where(t > 1, t, t * 0 + 1)
        stirling = safe * safe.log() - safe + 0.5 * (2 * math.pi * safe).log()
        loss = loss + _where(t > 1, stirling, stirling * 0)
    return _reduce(loss, _legacy(size_average, reduce, reduction))


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """``0.5 * (log(var) + (input - target) ** 2 / var)`` (+ ``0.5 log(2 pi)`` with ``full``);
    ``var`` (clamped to ``eps`` without changing its gradient's path) may lack the last
    dimension or have size 1 there."""
    if isinstance(var, (int, float)):
        var = input.detach() * 0 + var
    if var.shape != input.shape:
        if list(input.shape[:-1]) == list(var.shape):
            var = var.unsqueeze(-1)
        elif not (list(input.shape[:-1]) == list(var.shape[:-1]) and var.shape[-1] == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(reduction + " is not valid")
    if bool((var.detach() < 0).any()):
        raise ValueError("var has negative entry/entries")
    var = var.clamp(min=eps) if not var.requires_grad else var + (
        var.detach().clamp(min=eps) - var.detach())
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def _logaddexp(*terms):
    """``log(sum(exp(terms)))`` that stays ``-inf`` (with a zero gradient) where every term is
    ``-inf``."""
    from ..ops.shaping import stack
    stacked = stack(list(terms), 0)
    top = stacked.detach().amax(0)
    dead = _wrap(np.isneginf(top.numpy()), top)
    shift = _where(dead, _full_like(top, 0.0), top)
    total = (stacked - shift).exp().sum(0)
    safe = _where(dead, _full_like(total, 1.0), total)
    return _where(dead, _full_like(total, -math.inf), safe.log() + shift)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """Connectionist temporal classification: ``-log`` of the total probability of every
    alignment of ``targets`` to ``log_probs`` (T, N, C) (or (T, C)) with ``blank`` between and
    around labels; ``targets`` padded (N, S) or concatenated (sum of ``target_lengths``).
    ``reduction='mean'`` divides each loss by its target length, then averages."""
    unbatched = log_probs.ndim == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    T, N, C = lp.shape
    in_len = np.asarray(_ints(input_lengths)).reshape(-1)
    tg_len = np.asarray(_ints(target_lengths)).reshape(-1)
    tg = np.asarray(targets.detach().numpy() if isinstance(targets, Tensor) else targets)
    if unbatched:
        tg = tg.reshape(1, -1)
    L = int(tg_len.max()) if N else 0
    labels = np.full((N, L), blank, np.int64)
    start = 0
    for n in range(N):
        k = int(tg_len[n])
        if tg.ndim == 2:
            labels[n, :k] = tg[n, :k]
        else:
            labels[n, :k] = tg[start:start + k]
            start += k
    S = 2 * L + 1
    ext = np.full((N, S), blank, np.int64)
    ext[:, 1::2] = labels
    skip = np.zeros((N, S), bool)          # s - 2 -> s allowed: a label unlike the one before
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    valid = np.arange(S)[None, :] < (2 * tg_len + 1)[:, None]
    gather = _wrap(np.broadcast_to(ext, (N, S)).copy(), lp)
    neg_inf = math.inf * -1
    first = np.full((N, S), -np.inf)
    first[:, 0] = 0.0
    first[:, 1] = np.where(tg_len > 0, 0.0, -np.inf)
    alpha = lp[0].gather(1, gather) + _wrap(first.astype(lp._data.dtype), lp)
    mask_skip = _wrap(skip, lp)
    for t in range(1, T):
        prev1 = _shift(alpha, 1, neg_inf)
        prev2 = _where(mask_skip, _shift(alpha, 2, neg_inf), _full_like(alpha, neg_inf))
        new = _logaddexp(alpha, prev1, prev2) + lp[t].gather(1, gather)
        running = _wrap((t < in_len)[:, None], lp)
        alpha = _where(running, new, alpha)
    alpha = _where(_wrap(valid, lp), alpha, _full_like(alpha, neg_inf))
    last = _wrap((2 * tg_len).reshape(-1, 1), lp)
    end = _logaddexp(alpha.gather(1, last), alpha.gather(1, (last - 1).clamp(min=0)) +
                     _wrap(np.where(tg_len > 0, 0.0, -np.inf).reshape(-1, 1).astype(
                         lp._data.dtype), lp))
    loss = -end.reshape(-1)
    if zero_infinity:
        bad = ~np.isfinite(loss.detach().numpy())
        loss = _where(_wrap(bad, loss), _full_like(loss, 0.0), loss)
    if reduction == "mean":
        per = loss / _wrap(np.maximum(tg_len, 1).astype(lp._data.dtype), lp)
        return per.mean()
    if unbatched and reduction == "none":
        return loss.reshape(())
    return _reduce(loss, reduction)


def _shift(a, k, fill):
    """``a`` moved ``k`` places right along the last axis, ``fill`` coming in."""
    from .functional import pad
    return pad(a[:, :a.shape[1] - k], (k, 0), value=fill)


def _ints(v):
    if isinstance(v, Tensor):
        return v.detach().numpy().astype(np.int64)
    return [int(x) for x in v] if isinstance(v, (list, tuple)) else int(v)


# ---- modules ---------------------------------------------------------------------------------
class MarginRankingLoss(_Loss):
    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return margin_ranking_loss(input1, input2, target, self.margin, reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(reduction)
        self.margin = margin

    def forward(self, input, target):
        return hinge_embedding_loss(input, target, self.margin, reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return cosine_embedding_loss(input1, input2, target, self.margin,
                                     reduction=self.reduction)


class SoftMarginLoss(_Loss):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__(reduction)

    def forward(self, input, target):
        return soft_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight

    def forward(self, input, target):
        return multilabel_soft_margin_loss(input, target, self.weight, reduction=self.reduction)


class MultiMarginLoss(_Loss):
    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                 reduction="mean"):
        super().__init__(reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        self.p, self.margin, self.weight = p, margin, weight

    def forward(self, input, target):
        return multi_margin_loss(input, target, self.p, self.margin, self.weight,
                                 reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__(reduction)

    def forward(self, input, target):
        return multilabel_margin_loss(input, target, reduction=self.reduction)


class PairwiseDistance(Module):
    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        return pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class TripletMarginLoss(_Loss):
    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None,
                 reduce=None, reduction="mean"):
        super().__init__(reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got "
                             f"{margin} instead")
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor, positive, negative):
        return triplet_margin_loss(anchor, positive, negative, self.margin, self.p, self.eps,
                                   self.swap, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater "
                             f"than 0, got {margin} instead")
        self.distance_function, self.margin, self.swap = distance_function, margin, swap

    def forward(self, anchor, positive, negative):
        return triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                 reduction="mean"):
        super().__init__(reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input, target):
        return poisson_nll_loss(log_input, target, self.log_input, self.full, eps=self.eps,
                                reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(reduction)
        self.full, self.eps = full, eps

    def forward(self, input, target, var):
        return gaussian_nll_loss(input, target, var, self.full, self.eps, self.reduction)


class CTCLoss(_Loss):
    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                        self.reduction, self.zero_infinity)
