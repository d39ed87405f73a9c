"""Classification and regression losses: negative log-likelihood, cross-entropy (also of a
linear layer's logits), binary cross-entropy, L1, MSE, smooth L1, Huber, KL divergence, Poisson
and Gaussian negative log-likelihood, with PyTorch's ``reduction=`` (and its legacy
``size_average``/``reduce``).

    >>> import mutograd as mg
    >>> import mutograd.nn.functional as F
    >>> F.mse_loss(mg.tensor([1.0, 3.0]), mg.tensor([1.0, 1.0])).item()
    2.0
"""
import math
import warnings

from ...dtypes import SCALAR_TYPE_NAMES
from ...errors import ArgumentError, DTypeError, ShapeError
from ...ops import OPS, call
from ...ops.softmax import log_softmax as _log_softmax
from ...tensor import Tensor, _wrap
from .dense import linear


def kl_div(input, target, reduction="mean", log_target=False):
    """KL divergence with ``input`` as log-probabilities: ``target * (log target - input)``
    pointwise (0 where target is 0), or with ``log_target=True`` ``exp(target) * (target -
    input)``; reduced by 'mean' (over elements), 'batchmean' (sum / batch size), 'sum' or
    'none'."""
    if reduction not in ("mean", "batchmean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_target:
        pointwise = target.exp() * (target - input)
    else:
        logt = call(OPS["where"], [target > 0, target.clamp(min=1e-300).log(), 0.0], {})
        pointwise = target * (logt - input)
    if reduction == "none":
        return pointwise
    if reduction == "batchmean":
        return pointwise.sum() / (input.shape[0] if input.ndim else 1)
    return pointwise.sum() if reduction == "sum" else pointwise.mean()


def huber_loss(input, target, reduction="mean", delta=1.0):
    """``0.5 d^2`` where ``|d| <= delta``, else ``delta (|d| - 0.5 delta)``."""
    _warn_if_broadcast(input, target)
    if delta <= 0:
        raise ValueError(f"huber_loss: delta must be positive, got {delta}")
    d = input - target
    a = call(OPS["abs"], [d], {})
    return _reduce(_two_branches(a <= delta, d * d * 0.5, (a - 0.5 * delta) * delta), reduction)


def _two_branches(near, quadratic, linear):
    """``quadratic`` where ``near``, else ``linear``: selected, so that each branch's gradient
    reaches only its own elements (an infinite incoming gradient stays infinite, where a sum of
    the two branches would subtract it from itself, as PyTorch's formulas never do)."""
    return call(OPS["where"], [near, quadratic, linear], {})


# ---- losses --------------------------------------------------------------------------------
_REDUCTIONS = ("mean", "sum", "none")


def _reduce(loss, reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction!r} is not a valid value for reduction; use one of "
                         f"{', '.join(_REDUCTIONS)}")
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


def _warn_if_broadcast(x, target):
    """PyTorch's warning when a regression loss broadcasts its target against its input; the
    loss is still computed on the broadcast pair, as in PyTorch and Paddle (which does not
    warn: neither do its tensors)."""
    if tuple(x.shape) != tuple(target.shape) and x._namespace_name != "paddle":
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input "
                      f"size ({x.shape}). This will likely lead to incorrect results due to "
                      f"broadcasting. Please ensure they have the same size.", stacklevel=3)


def _check_same_shape(x, target, name):
    if tuple(x.shape) != tuple(target.shape):
        raise ShapeError(f"{name}: target size {list(target.shape)} is different from the "
                         f"input size {list(x.shape)}")


def _classes_last(x):
    """(N, C, d1, ...) as (N*d1*..., C), and the batch shape (N, d1, ...)."""
    if x.ndim == 1:
        return call(OPS["unsqueeze"], [x], {"axis": 0}), ()
    if x.ndim == 2:
        return x, (x.shape[0],)
    perm = (0,) + tuple(range(2, x.ndim)) + (1,)
    moved = call(OPS["permute"], [x], {"perm": perm})
    batch = (x.shape[0],) + tuple(x.shape[2:])
    return call(OPS["reshape"], [moved], {"shape": (-1, x.shape[1])}), batch


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    """Negative log-likelihood of class indices ``target`` under log-probabilities ``input``
    (N, C, ...); ``weight`` per class; targets equal to ``ignore_index`` count for nothing."""
    return _nll(input, target, weight, ignore_index, reduction, 0.0)


def _scalar_type(dtype):
    """A NumPy dtype by PyTorch's scalar-type name (``Double``), as its messages spell it."""
    return SCALAR_TYPE_NAMES.get(dtype.name, dtype.name)


def _check_class_weight(weight, x, c, same_dtype=True):
    """A class ``weight`` must be 1-D with one entry per class (and of ``x``'s dtype)."""
    if weight is None:
        return
    if weight.ndim != 1 or weight.shape[0] != c:
        raise ShapeError(f"weight tensor should be defined either for all {c} classes or no "
                         f"classes but got weight tensor of shape: {list(weight.shape)}")
    if same_dtype and weight._data.dtype != x._data.dtype:
        raise DTypeError(f"expected scalar type {_scalar_type(x._data.dtype)} but found "
                         f"{_scalar_type(weight._data.dtype)}")


def _class_indices(x, m, c, target, weight, ignore_index):
    """The checked class indices of ``m`` rows of ``c`` classes (flat), each row's class (0 for
    an ignored one), whether it counts, and its weight (0 when ignored)."""
    _check_class_weight(weight, x, c)
    xp = x._place.xp
    t = (target._data if isinstance(target, Tensor) else xp.asarray(target)).reshape(-1)
    if t.dtype.kind not in "iu":
        raise TypeError(f"expected target of integer class indices, got dtype {t.dtype}")
    if t.shape[0] != m:
        raise ShapeError(f"Expected input batch_size ({m}) to match target batch_size "
                         f"({t.shape[0]})")
    valid = t != ignore_index
    safe = xp.where(valid, t, 0)
    if safe.size and (safe.min() < 0 or safe.max() >= c):
        raise IndexError(f"Target {int(t[valid & ((t < 0) | (t >= c))][0])} is out of bounds "
                         f"for {c} classes")
    wt = (valid.astype(x._data.dtype) if weight is None else weight._data[safe] * valid)
    return t, safe, valid, wt


def _fused_cross_entropy(x, target, weight, ignore_index, reduction):
    """``cross_entropy`` of logits (N, C) and class indices as one op (ops/losses.py), or None
    where the composed form is needed (a weight that requires grad)."""
    if weight is not None and weight.requires_grad or reduction not in ("mean", "sum", "none"):
        return None
    _class_indices(x, x.shape[0], x.shape[1], target, weight, ignore_index)
    return call(OPS["cross_entropy_indices"], [x, target, weight],
                {"ignore_index": ignore_index, "reduction": reduction})


def _nll(logp, target, weight, ignore_index, reduction, smoothing):
    flat, batch = _classes_last(logp)
    m, c = flat.shape
    xp = logp._place.xp
    _, safe, valid, wt = _class_indices(logp, m, c, target, weight, ignore_index)
    wc = xp.ones(c, flat._data.dtype) if weight is None else weight._data
    picked = call(OPS["index"], [flat], {"index": (xp.arange(m), safe)})
    loss = picked * _wrap(-wt, flat)
    if smoothing:
        smooth = call(OPS["sum"], [flat * _wrap(wc, flat)], {"axis": -1, "keepdim": False})
        smooth = smooth * _wrap(-valid.astype(wt.dtype), flat)
        loss = loss * (1 - smoothing) + smooth * (smoothing / c)
    if reduction == "none":
        return call(OPS["reshape"], [loss], {"shape": batch})
    total = loss.sum()
    if reduction == "sum":
        return total
    if reduction != "mean":
        _reduce(loss, reduction)
    total_weight = float(wt.sum())
    if total_weight == 0:
        # every target ignored (or weighted 0): the mean is 0/0, NaN, and its gradient 0, as
        # PyTorch's; computed so, not by a division that warns
        return total * 0.0 + _full_like(total, math.nan)
    return total / total_weight


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
    """Cross-entropy of logits ``input`` (N, C, ...) against class indices, or against class
    probabilities of ``input``'s shape; with ``label_smoothing`` in [0, 1]."""
    x = input
    if label_smoothing > 1.0:
        raise ArgumentError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                            f"{label_smoothing}")
    label_smoothing = max(label_smoothing, 0.0)     # a negative one smooths nothing, as PyTorch
    if (x.ndim == 2 and not label_smoothing and x._data.dtype.kind == "f"
            and isinstance(target, Tensor) and target.ndim == 1
            and target._data.dtype.kind in "iu"):
        fused = _fused_cross_entropy(x, target, weight, ignore_index, reduction)
        if fused is not None:
            return fused
    logp = _log_softmax(x, axis=1 if x.ndim > 1 else 0)
    if isinstance(target, Tensor) and target._data.dtype.kind == "f":
        indices_shape = tuple(x.shape[:1]) + tuple(x.shape[2:]) if x.ndim > 1 else ()
        if tuple(target.shape) == indices_shape:   # class indices given as floats
            name = _scalar_type(target._data.dtype)
            raise DTypeError(f"cross_entropy: expected target dtype to be Long or Byte, but got "
                             f"{name}: a target of shape {list(target.shape)} holds class "
                             f"indices (pass target.long()); a float target holds class "
                             f"probabilities and has the input's shape {list(x.shape)}")
        _check_same_shape(x, target, "cross_entropy")
        c = x.shape[1] if x.ndim > 1 else x.shape[0]
        _check_class_weight(weight, x, c, same_dtype=False)   # promoted, as PyTorch's
        if ignore_index >= 0:
            raise ArgumentError("ignore_index is not supported for floating point target")
        prob = target
        if label_smoothing:
            prob = target * (1 - label_smoothing) + label_smoothing / c
        if weight is not None:
            shape = (1, -1) + (1,) * (x.ndim - 2) if x.ndim > 1 else (-1,)
            prob = prob * call(OPS["reshape"], [weight], {"shape": shape})
        loss = -call(OPS["sum"], [logp * prob], {"axis": 1 if x.ndim > 1 else 0,
                                                  "keepdim": False})
        return _reduce(loss, reduction)
    return _nll(logp, target, weight, ignore_index, reduction, label_smoothing)


def mse_loss(input, target, reduction="mean"):
    """Mean squared error."""
    _warn_if_broadcast(input, target)
    d = input - target
    return _reduce(d * d, reduction)


def l1_loss(input, target, reduction="mean"):
    """Mean absolute error."""
    _warn_if_broadcast(input, target)
    return _reduce(call(OPS["abs"], [input - target], {}), reduction)


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    """Huber-like loss: ``0.5 d^2 / beta`` where ``|d| < beta``, ``|d| - 0.5 beta`` elsewhere."""
    _warn_if_broadcast(input, target)
    if beta < 0:
        raise ValueError(f"smooth_l1_loss: beta must be non-negative, got {beta}")
    d = input - target
    a = call(OPS["abs"], [d], {})
    if beta == 0:
        return _reduce(a, reduction)
    return _reduce(_two_branches(a < beta, d * d * (0.5 / beta), a - 0.5 * beta), reduction)


def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    """Binary cross-entropy of probabilities ``input`` (logs clamped at -100, as PyTorch)."""
    _check_same_shape(input, target, "binary_cross_entropy")
    pd = input._data
    if pd.size and (pd.min() < 0 or pd.max() > 1):
        raise ValueError("binary_cross_entropy: all elements of input should be between 0 "
                         "and 1")
    log_p = call(OPS["clamp"], [call(OPS["log"], [input], {}), -100.0, None], {})
    log_q = call(OPS["clamp"], [call(OPS["log"], [1 - input], {}), -100.0, None], {})
    loss = -(target * log_p + (1 - target) * log_q)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean",
                                     pos_weight=None):
    """Sigmoid + binary cross-entropy in one stable formula:
    ``(1 - t) x + (1 + (pw - 1) t) * (log1p(exp(-|x|)) + relu(-x))`` of logits ``x``."""
    _check_same_shape(input, target, "binary_cross_entropy_with_logits")
    sp = call(OPS["log1p"], [call(OPS["exp"], [-call(OPS["abs"], [input], {})], {})], {}) + call(
        OPS["relu"], [-input], {})     # softplus(-input) = -log(sigmoid(input))
    if pos_weight is None:
        loss = (1 - target) * input + sp
    else:
        loss = (1 - target) * input + (1 + (pos_weight - 1) * target) * sp
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def _legacy(size_average, reduce, reduction):
    """PyTorch's deprecated ``size_average``/``reduce`` arguments as a ``reduction``: either
    given decides (``reduce=False``: none; else ``size_average=False``: sum; else mean)."""
    if size_average is None and reduce is None:
        return reduction
    if reduce is False:
        return "none"
    return "sum" if size_average is False else "mean"


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
    ``var`` (clamped to ``eps`` without changing its gradient's path) has ``input``'s shape,
    or, homoscedastic, lacks its last dimension or has size 1 in exactly one dimension.

        >>> import mutograd as mg
        >>> gaussian_nll_loss(mg.zeros([2, 3]), mg.ones([2, 3]), mg.ones([2])).item()
        0.5
    """
    if isinstance(var, (int, float)):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = _full_like(input, float(var))
    elif bool((var.detach() < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (input.ndim == var.ndim and sum(
                v for i, v in zip(input.shape, var.shape) if i != v) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(reduction + " is not valid")
    var = var.clamp(min=eps) if not var.requires_grad else var + (
        var.detach().clamp(min=eps) - var.detach())
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0,
                         options=None):
    """``cross_entropy(input @ linear_weight^T + linear_bias, target, ...)`` with the classes on
    ``linear_weight``'s first axis and any ``out_features`` after them.

        >>> import mutograd as mg
        >>> linear_cross_entropy(mg.zeros([2, 3]), mg.zeros([4, 3]), mg.tensor([0, 3])).item()
        1.3862943649291992
    """
    if input.ndim not in (1, 2):
        raise ShapeError(f"expected input with dimensionality 1 or 2, got {input.ndim}")
    if linear_weight.ndim < 2:
        raise ShapeError(f"expected linear_weight with dimensionality at least 2, got "
                         f"{linear_weight.ndim}")
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise ShapeError(f"expected equal input and linear_weight last dimensions "
                         f"(in_features), got {in_features} and {linear_weight.shape[-1]}, "
                         f"respectively")
    num_classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise ShapeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                         f"{tuple(linear_bias.shape)}")
    batch = tuple(input.shape[:-1])
    if out_features and not batch:
        raise ShapeError(f"K-dimensional loss defined by linear_weight shape "
                         f"{tuple(linear_weight.shape)} requires batched input, (N, "
                         f"{in_features}), got unbatched input with shape {tuple(input.shape)}")
    flat_w = linear_weight.reshape(-1, in_features)
    flat_b = None if linear_bias is None else linear_bias.reshape(-1)
    logits = linear(input, flat_w, flat_b).reshape(*batch, num_classes, *out_features)
    probs = isinstance(target, Tensor) and tuple(target.shape) == tuple(logits.shape)
    if probs and ignore_index is not None:
        raise ArgumentError("ignore_index cannot be specified when target contains probabilities")
    return cross_entropy(logits, target, weight, -100 if ignore_index is None else ignore_index,
                           reduction, label_smoothing)


def _zeros_like(x):
    return x * 0


def _full_like(t, value):
    """A constant of ``t``'s shape and dtype (``t * 0 + value`` would turn infinities into
    NaN)."""
    return _wrap(t._place.xp.full(tuple(t.shape), value, t._data.dtype), t)


def _where(condition, a, b):
    from ...ops import PUBLIC
    return PUBLIC["where"](condition, a, b)
