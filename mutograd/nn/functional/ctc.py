"""The connectionist temporal classification loss (``ctc_loss``): the forward recursion over
the blank-extended labels in log space, composed of differentiable ops.

    >>> import mutograd as mg
    >>> import mutograd.nn.functional as F
    >>> lp = mg.randn([6, 1, 4]).log_softmax(-1)
    >>> F.ctc_loss(lp, mg.tensor([[1, 2]]), [6], [2]).shape
    []
"""
import math

import numpy as np

from ...ops.indexing import gather as _gather
from ...tensor import Tensor, _wrap
from .loss import _full_like, _reduce, _where


def _logaddexp(*terms):
    """``log(sum(exp(terms)))`` that stays ``-inf`` (with a zero gradient) where every term is
    ``-inf``."""
    from ...ops.shaping import stack
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
    ``reduction='mean'`` divides each loss by its target length, then averages. The gradient
    is the derivative for ``log_probs`` (PyTorch's returns the one for the logits they are
    assumed to be the ``log_softmax`` of; the two agree through a ``log_softmax``)."""
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
    alpha = _gather(lp[0], 1, gather) + _wrap(first.astype(lp._data.dtype), lp)
    mask_skip = _wrap(skip, lp)
    for t in range(1, T):
        prev1 = _shift(alpha, 1, neg_inf)
        prev2 = _where(mask_skip, _shift(alpha, 2, neg_inf), _full_like(alpha, neg_inf))
        new = _logaddexp(alpha, prev1, prev2) + _gather(lp[t], 1, gather)
        running = _wrap((t < in_len)[:, None], lp)
        alpha = _where(running, new, alpha)
    alpha = _where(_wrap(valid, lp), alpha, _full_like(alpha, neg_inf))
    last = _wrap((2 * tg_len).reshape(-1, 1), lp)
    end = _logaddexp(_gather(alpha, 1, last), _gather(alpha, 1, (last - 1).clamp(min=0)) +
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
    from .padding import pad
    return pad(a[:, :a.shape[1] - k], (k, 0), value=fill)


def _ints(v):
    if isinstance(v, Tensor):
        return v.detach().numpy().astype(np.int64)
    return [int(x) for x in v] if isinstance(v, (list, tuple)) else int(v)
