"""Margin, embedding and likelihood losses and distances, composed from differentiable ops (so
their gradients come from the ops'), with PyTorch's signatures and formulas; and their modules.

    >>> import mutograd as mg
    >>> from mutograd.nn import losses
    >>> x = mg.tensor([0.5, -1.0, 2.0])
    >>> round(losses.soft_margin_loss(x, mg.tensor([1., -1., 1.])).item(), 4)
    0.3048
"""
import math

import numpy as np

from ..autograd.grad_mode import no_grad
from ..ops.creation import tensor
from ..ops.registry import OPS, call
from . import functional as F
from .module import Module

_EPS = 1e-12


def _where(cond, a, b):
    return call(OPS["where"], [cond, a, b], {})


def _reduce(loss, reduction):
    return F._reduce(loss, reduction)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``||x1 - x2 + eps||_p`` along the last dimension."""
    return (x1 - x2 + eps).norm(p, dim=-1, keepdim=keepdim)


def pdist(input, p=2):
    """The ``p``-norm distances between the rows of ``input`` (N, M): the upper triangle,
    ``N * (N - 1) / 2`` values, in row order."""
    i, j = np.triu_indices(input.shape[0], 1)
    return (input[tensor(i)] - input[tensor(j)]).norm(p, dim=1)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``."""
    return _reduce((-target * (input1 - input2) + margin).clamp(min=0), reduction)


def soft_margin_loss(input, target, reduction="mean"):
    """``log(1 + exp(-target * input))``."""
    return _reduce((-target * input).exp().log1p(), reduction)


def hinge_embedding_loss(input, target, margin=1.0, reduction="mean"):
    """``input`` where ``target`` is 1, ``max(0, margin - input)`` where it is -1."""
    clamped = (margin - input).clamp(min=0)
    loss = _where(target != 1, clamped, 0.0) + _where(target != -1, input, 0.0)
    return _reduce(loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """``1 - cos(x1, x2)`` where ``target`` is 1, ``max(0, cos(x1, x2) - margin)`` where -1."""
    dim = input1.ndim - 1
    prod = (input1 * input2).sum(dim)
    mag = ((input1 * input1).sum(dim) + _EPS) * ((input2 * input2).sum(dim) + _EPS)
    cos = prod / mag.sqrt()
    loss = _where(target == 1, 1 - cos, 0.0) + _where(target == -1, (cos - margin).clamp(min=0),
                                                      0.0)
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, reduction="mean"):
    """The mean over classes of the binary cross-entropy of ``sigmoid(input)``."""
    loss = -(target * F.logsigmoid(input) + (1 - target) * F.logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss.sum(-1) / input.shape[-1], reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, reduction="mean"):
    """``sum_{j != y} max(0, margin - x[y] + x[j])^p / C`` per sample (times ``weight[y]``)."""
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    x = input if input.ndim == 2 else input.unsqueeze(0)
    y = (target if target.ndim else target.unsqueeze(0)).reshape(-1, 1)
    c = x.shape[1]
    loss = (margin - x.gather(1, y) + x).clamp(min=0)
    if p == 2:
        loss = loss * loss
    if weight is not None:
        loss = loss * weight[y.reshape(-1)].unsqueeze(1)
    other = tensor(np.arange(c)[None, :] != y.numpy())
    loss = (loss * other).sum(1) / c
    return _reduce(loss if input.ndim == 2 else loss[0], reduction)


def multilabel_margin_loss(input, target, reduction="mean"):
    """``sum_{j in targets} sum_{i not in targets} max(0, 1 - (x[j] - x[i])) / C``; each row
    of ``target`` lists class indices, ended by the first -1."""
    x = input if input.ndim == 2 else input.unsqueeze(0)
    t = target.numpy().reshape(x.shape[0], -1)
    c = x.shape[1]
    is_target = np.zeros((x.shape[0], c), bool)
    for n, row in enumerate(t):
        for k in row:
            if k < 0:
                break
            is_target[n, k] = True
    mask = tensor(is_target[:, :, None] & ~is_target[:, None, :])
    diff = (1 - (x.unsqueeze(2) - x.unsqueeze(1))).clamp(min=0)
    loss = (diff * mask).sum((1, 2)) / c
    return _reduce(loss if input.ndim == 2 else loss[0], reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        reduction="mean"):
    """``max(0, margin + d(a, p) - d(a, n))`` with ``d`` the pairwise ``p``-distance."""
    def dist(a, b):
        return pairwise_distance(a, b, p, eps)
    return triplet_margin_with_distance_loss(anchor, positive, negative,
                                             distance_function=dist, margin=margin, swap=swap,
                                             reduction=reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """:func:`triplet_margin_loss` with any distance (pairwise 2-norm by default)."""
    dist = distance_function or pairwise_distance
    d_pos, d_neg = dist(anchor, positive), dist(anchor, negative)
    if swap:
        d_swap = dist(positive, negative)
        d_neg = call(OPS["minimum"], [d_neg, d_swap], {})
    return _reduce((margin + d_pos - d_neg).clamp(min=0), reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """``0.5 * (log(var) + (input - target)^2 / var)`` (+ ``0.5 * log(2 pi)`` with ``full``);
    ``var`` is clamped to ``eps`` without stopping its gradient, as PyTorch."""
    if isinstance(var, (int, float)):
        var = input.new_full(tuple(input.shape), float(var))
    elif tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1):
            raise ValueError("var is of incorrect size")
    if (var.detach() < 0).any().item():
        raise ValueError("var has negative entry/entries")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """``exp(input) - target * input`` (``log_input``) or ``input - target * log(input + eps)``;
    ``full`` adds Stirling's term where ``target > 1``."""
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        t = target.detach()
        safe = _where(t > 1, t, 2.0)
        stirling = safe * safe.log() - safe + 0.5 * (2 * math.pi * safe).log()
        loss = loss + _where(t > 1, stirling, 0.0)
    return _reduce(loss, reduction)


# ---- modules -------------------------------------------------------------------------------
class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if reduction not in F._REDUCTIONS:
            raise ValueError(f"{reduction!r} is not a valid value for reduction")
        self.reduction = reduction


class MarginRankingLoss(_Loss):
    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(reduction=reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return margin_ranking_loss(input1, input2, target, self.margin, self.reduction)


class SoftMarginLoss(_Loss):
    def forward(self, input, target):
        return soft_margin_loss(input, target, self.reduction)


class HingeEmbeddingLoss(_Loss):
    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(reduction=reduction)
        self.margin = margin

    def forward(self, input, target):
        return hinge_embedding_loss(input, target, self.margin, self.reduction)


class CosineEmbeddingLoss(_Loss):
    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(reduction=reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return cosine_embedding_loss(input1, input2, target, self.margin, self.reduction)


class MultiLabelSoftMarginLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(reduction=reduction)
        self.weight = weight

    def forward(self, input, target):
        return multilabel_soft_margin_loss(input, target, self.weight, self.reduction)


class MultiMarginLoss(_Loss):
    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                 reduction="mean"):
        super().__init__(reduction=reduction)
        self.p, self.margin, self.weight = p, margin, weight

    def forward(self, input, target):
        return multi_margin_loss(input, target, self.p, self.margin, self.weight,
                                 self.reduction)


class MultiLabelMarginLoss(_Loss):
    def forward(self, input, target):
        return multilabel_margin_loss(input, target, self.reduction)


class TripletMarginLoss(_Loss):
    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None,
                 reduction="mean"):
        super().__init__(reduction=reduction)
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor, positive, negative):
        return triplet_margin_loss(anchor, positive, negative, self.margin, self.p, self.eps,
                                   self.swap, self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(reduction=reduction)
        self.distance_function, self.margin, self.swap = distance_function, margin, swap

    def forward(self, anchor, positive, negative):
        return triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(reduction=reduction)
        self.full, self.eps = full, eps

    def forward(self, input, target, var):
        return gaussian_nll_loss(input, target, var, self.full, self.eps, self.reduction)


class PoissonNLLLoss(_Loss):
    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                 reduction="mean"):
        super().__init__(reduction=reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input, target):
        return poisson_nll_loss(log_input, target, self.log_input, self.full, eps=self.eps,
                                reduction=self.reduction)


class PairwiseDistance(Module):
    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        return pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


FUNCTIONS = ("pairwise_distance", "pdist", "margin_ranking_loss", "soft_margin_loss",
             "hinge_embedding_loss", "cosine_embedding_loss", "multilabel_soft_margin_loss",
             "multi_margin_loss", "multilabel_margin_loss", "triplet_margin_loss",
             "triplet_margin_with_distance_loss", "gaussian_nll_loss", "poisson_nll_loss")
MODULES = ("MarginRankingLoss", "SoftMarginLoss", "HingeEmbeddingLoss", "CosineEmbeddingLoss",
           "MultiLabelSoftMarginLoss", "MultiMarginLoss", "MultiLabelMarginLoss",
           "TripletMarginLoss", "TripletMarginWithDistanceLoss", "GaussianNLLLoss",
           "PoissonNLLLoss", "PairwiseDistance")
