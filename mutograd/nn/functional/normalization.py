"""Normalisations as functions: batch, layer, group, RMS, instance and local response
normalisation.

    >>> import mutograd as mg
    >>> import mutograd.nn.functional as F
    >>> y = F.layer_norm(mg.randn([2, 8]), [8])
    >>> [round(v, 6) + 0.0 for v in y.mean(-1).tolist()]
    [0.0, 0.0]
"""

import math

import numpy as np

from ...autograd.grad_mode import no_grad
from ...errors import ShapeError
from ...ops import OPS, call, call_inplace
from ...tensor import _wrap


def _affine(out, weight, bias, axis_shape):
    if weight is not None:
        w = call(OPS["reshape"], [weight], {"shape": axis_shape})
        out = call_inplace(OPS["mul"], [out, w], {}) if _owned(out) else out * w
    if bias is not None:
        b = call(OPS["reshape"], [bias], {"shape": axis_shape})
        out = call_inplace(OPS["add"], [out, b], OPS["add"].defaults)
    return out


def _owned(t):
    # normalize saves its input, not its output, so writing into its fresh result is safe
    return t._base is None


def batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5, *, var_ddof=1):
    """Normalise over every axis but the channels (axis 1); in training, update the running
    statistics in place (under ``no_grad``) with the batch mean and unbiased variance
    (``var_ddof=0``: the biased variance, as Paddle keeps)."""
    if x.ndim < 2:
        raise ShapeError(f"batch_norm: expected at least 2-D input (N, C, ...), got shape "
                         f"{list(x.shape)}")
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    batch_stats = training or running_mean is None
    if batch_stats and math.prod(x.shape[:1] + x.shape[2:]) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input "
                         f"size {list(x.shape)}")
    if batch_stats and eps <= 0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if batch_stats and x.numel() == 0:
        # an empty batch: an empty result (still connected to weight and bias, whose gradients
        # are zeros), running statistics unchanged, as PyTorch
        out = x.clone()
    elif batch_stats:
        out = call(OPS["normalize"], [x], {"axis": axes, "eps": eps})
        if training and running_mean is not None:
            with no_grad():
                xd = x._data
                running_mean.mul_(1 - momentum).add_(_wrap(xd.mean(axis=axes)), alpha=momentum)
                running_var.mul_(1 - momentum).add_(_wrap(xd.var(axis=axes, ddof=var_ddof)),
                                                    alpha=momentum)
    else:
        mean = call(OPS["reshape"], [running_mean], {"shape": shape})
        inv = call(OPS["rsqrt"], [call(OPS["reshape"], [running_var + eps], {"shape": shape})],
                   {})
        out = (x - mean) * inv
    return _affine(out, weight, bias, shape)


def _trailing(x, normalized_shape, what):
    """``normalized_shape`` as a tuple, checked to be the end of ``x``'s shape."""
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    k = len(normalized_shape)
    if tuple(x.shape[x.ndim - k:]) != tuple(normalized_shape):
        raise ShapeError(f"{what}: input of shape {list(x.shape)} does not end with "
                         f"normalized_shape {list(normalized_shape)}")
    return tuple(normalized_shape), k


def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise over the last ``len(normalized_shape)`` axes, then scale and shift."""
    normalized_shape, k = _trailing(x, normalized_shape, "layer_norm")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != tuple(normalized_shape):
            raise ShapeError(f"layer_norm: {name} of shape {list(t.shape)} does not match "
                             f"normalized_shape {list(normalized_shape)}")
    return call(OPS["layer_norm"], [x, weight, bias],
                {"axis": tuple(range(x.ndim - k, x.ndim)), "eps": eps})


def group_norm(x, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalise (N, C, ...) over each group of ``C / num_groups`` channels and the rest, then
    scale and shift per channel."""
    n, c = x.shape[0], x.shape[1]
    if c % num_groups:
        raise ValueError(f"group_norm: {c} channels are not divisible into {num_groups} groups")
    rows = x.reshape(n, num_groups, -1)
    out = call(OPS["layer_norm"], [rows, None, None], {"axis": (2,), "eps": eps})
    out = out.reshape(tuple(x.shape))
    return _affine(out, weight, bias, (c,) + (1,) * (x.ndim - 2))


def rms_norm(x, normalized_shape, weight=None, eps=None):
    """``x / sqrt(mean(x^2) + eps)`` over the trailing ``normalized_shape`` axes, times
    ``weight``; ``eps`` defaults to the dtype's machine epsilon, as PyTorch."""
    _, k = _trailing(x, normalized_shape, "rms_norm")
    if eps is None:
        eps = float(np.finfo(x.dtype.np).eps)
    axes = tuple(range(x.ndim - k, x.ndim))
    out = x * ((x * x).mean(axis=axes, keepdim=True) + eps).rsqrt()
    return out if weight is None else out * weight


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalise each (sample, channel) of (N, C, ...) over its spatial axes, then scale and
    shift per channel. With ``use_input_stats`` the running statistics (when given) move towards
    the batch's mean of the instances' means and unbiased variances, as PyTorch's.

        >>> import mutograd as mg
        >>> [round(v, 4) for v in instance_norm(mg.tensor([[[1., 3.]]])).reshape(-1).tolist()]
        [-1.0, 1.0]
    """
    if input.ndim < 3:
        raise ShapeError(f"instance_norm: expected (N, C, ...) input with at least one spatial "
                         f"axis, got shape {list(input.shape)}")
    axes = tuple(range(2, input.ndim))
    shape = (1, -1) + (1,) * (input.ndim - 2)
    if use_input_stats:
        if int(np.prod(input.shape[2:])) <= 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input "
                             f"size {list(input.shape)}")
        out = call(OPS["normalize"], [input], {"axis": axes, "eps": eps})
        if running_mean is not None:
            with no_grad():
                xd = input._data
                running_mean.mul_(1 - momentum).add_(
                    _wrap(xd.mean(axis=axes).mean(axis=0)), alpha=momentum)
                running_var.mul_(1 - momentum).add_(
                    _wrap(xd.var(axis=axes, ddof=1).mean(axis=0)), alpha=momentum)
    else:
        if running_mean is None:
            raise ValueError("instance_norm: use_input_stats=False needs running_mean and "
                             "running_var")
        mean = running_mean.reshape(shape)
        out = (input - mean) * (running_var.reshape(shape) + eps).rsqrt()
    return _affine(out, weight, bias, shape)


def _window_sum(sq, matrix):
    """Sums of ``sq`` over windows of channels (axis 1): ``matrix[i, c]`` is 1 when channel i
    is in the window of channel c."""
    moved = sq.movedim(1, -1)
    return (moved @ _wrap(matrix.astype(sq.dtype.np))).movedim(-1, 1)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """``x / (k + alpha * mean(x^2 over size neighbouring channels)) ** beta`` (the window
    of channel c is c - size//2 .. c + (size-1)//2, zero beyond the edges, as PyTorch's).

        >>> import mutograd as mg
        >>> local_response_norm(mg.ones([1, 1, 2]), 1, alpha=1.0, beta=1.0, k=1.0).tolist()
        [[[0.5, 0.5]]]
    """
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.ndim} "
                         f"dimensions)")
    c = input.shape[1]
    i, j = np.arange(c)[:, None], np.arange(c)[None, :]
    matrix = ((i >= j - size // 2) & (i <= j + (size - 1) // 2)).astype(np.float64)
    div = (_window_sum(input * input, matrix) * (alpha / size) + k) ** beta
    return input / div
