"""``mutograd.nn.functional``: layers, activations and losses as functions.

Everything here is built from declared ops (``mutograd.ops``: convolution, pooling,
normalization, embedding, ...), so gradients, version checks and memory accounting come from the
op table. ``inplace=True`` uses the op's in-place form (``relu_``, ...): the result is the
input object, no new storage.

    >>> import mutograd as mg
    >>> import mutograd.nn.functional as F
    >>> x = mg.randn([2, 3])
    >>> F.relu(x, inplace=True) is x
    True
"""
import math

import numpy as np

from ...autograd.grad_mode import no_grad
from ...errors import ShapeError
from ...ops import OPS, call, call_inplace
from ...ops.softmax import log_softmax as _log_softmax
from ...tensor import Tensor, _wrap
from .activation import (  # noqa: F401
    celu, elu, elu_, gelu, hardshrink, hardsigmoid, hardswish, hardtanh, leaky_relu, leaky_relu_,
    log_softmax, logsigmoid, mish, relu, relu6, relu_, selu, sigmoid, silu, softmax, softplus,
    softshrink, softsign, tanh, tanhshrink, threshold)
from .dropouts import dropout, dropout1d, dropout2d, dropout3d  # noqa: F401

__all__ = [
    "celu",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "huber_loss",
    "interpolate",
    "logsigmoid",
    "mish",
    "prelu",
    "selu",
    "softplus",
    "softshrink",
    "softsign",
    "tanhshrink",
    "threshold",
    "adaptive_avg_pool2d",
    "avg_pool2d",
    "batch_norm",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "conv1d",
    "conv2d",
    "conv_transpose2d",
    "cosine_similarity",
    "cross_entropy",
    "dropout",
    "elu",
    "elu_",
    "embedding",
    "gelu",
    "glu",
    "group_norm",
    "kl_div",
    "l1_loss",
    "layer_norm",
    "leaky_relu",
    "leaky_relu_",
    "linear",
    "log_softmax",
    "max_pool2d",
    "mse_loss",
    "nll_loss",
    "one_hot",
    "pad",
    "relu",
    "relu6",
    "relu_",
    "rms_norm",
    "sigmoid",
    "silu",
    "smooth_l1_loss",
    "softmax",
    "tanh",
]


def _pair(v, name):
    if isinstance(v, int):
        return (v, v)
    v = tuple(int(a) for a in v)
    if len(v) != 2:
        raise ValueError(f"{name} must be an int or a pair of ints, got {v}")
    return v


def _batched(x, name):
    """A 3-D (C, H, W) input as a batch of one, and a function that undoes it."""
    if x.ndim == 4:
        return x, lambda y: y
    if x.ndim == 3:
        return call(OPS["unsqueeze"], [x], {"axis": 0}), lambda y: call(
            OPS["squeeze"], [y], {"axis": 0})
    raise ShapeError(f"{name}: expected a 3-D (C, H, W) or 4-D (N, C, H, W) input, got shape "
                     f"{list(x.shape)}")


def _add_channel_bias_(out, bias):
    """Add a per-channel bias into a fresh result in place (the result is ours: no new buffer)."""
    shape = [1] * out.ndim
    shape[1 if out.ndim > 1 else 0] = -1
    return call_inplace(OPS["add"], [out, call(OPS["reshape"], [bias], {"shape": tuple(shape)})],
                        OPS["add"].defaults)


# ---- layers --------------------------------------------------------------------------------
def linear(x, weight, bias=None):
    """``x @ weight.T + bias`` (PyTorch's weight layout: out_features x in_features)."""
    out = call(OPS["matmul"], [x, call(OPS["t"], [weight], {})], {})
    if bias is not None:
        call_inplace(OPS["add"], [out, bias], OPS["add"].defaults)
    return out


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution (cross-correlation) of (N, C, H, W) with (O, C/groups, kh, kw) weights.

    ``padding`` may be an int, a pair, ``'valid'`` or ``'same'`` (stride 1).
    """
    x, undo = _batched(x, "conv2d")
    stride, dilation = _pair(stride, "stride"), _pair(dilation, "dilation")
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0, 0)
        elif padding == "same":
            if stride != (1, 1):
                raise ValueError("padding='same' is not supported for strided convolutions")
            kh, kw = weight.shape[2:]
            total = (dilation[0] * (kh - 1), dilation[1] * (kw - 1))
            if total[0] % 2 or total[1] % 2:
                raise ValueError("padding='same' needs an odd (dilated) kernel size here")
            padding = (total[0] // 2, total[1] // 2)
        else:
            raise ValueError(f"padding must be an int, a pair, 'valid' or 'same', got {padding!r}")
    if weight.ndim != 4:
        raise ShapeError(f"conv2d: weight must be 4-D (out, in/groups, kh, kw), got shape "
                         f"{list(weight.shape)}")
    if groups < 1 or weight.shape[0] % groups:
        raise ValueError(f"conv2d: out_channels {weight.shape[0]} must be divisible by "
                         f"groups={groups}")
    out = call(OPS["conv2d"], [x, weight], {"stride": stride, "padding": _pair(padding, "padding"),
                                            "dilation": dilation, "groups": groups})
    if bias is not None:
        _add_channel_bias_(out, bias)
    return undo(out)


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution of (N, C, L) with (O, C/groups, k) weights: a 2-D one of height 1."""
    if weight.ndim != 3:
        raise ShapeError(f"conv1d: weight must be 3-D (out, in/groups, k), got shape "
                         f"{list(weight.shape)}")
    if x.ndim not in (2, 3):
        raise ShapeError(f"conv1d: expected a 2-D (C, L) or 3-D (N, C, L) input, got shape "
                         f"{list(x.shape)}")
    pad = padding if isinstance(padding, str) else (0, _single(padding))
    out = conv2d(x.unsqueeze(-2), weight.unsqueeze(-2), bias, (1, _single(stride)), pad,
                 (1, _single(dilation)), groups)
    return out.squeeze(-2)


def conv_transpose2d(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The transposed 2-D convolution of (N, C_in, H, W) with (C_in, C_out/groups, kh, kw)
    weights (the gradient of ``conv2d`` with respect to its input)."""
    x, undo = _batched(x, "conv_transpose2d")
    if weight.ndim != 4:
        raise ShapeError(f"conv_transpose2d: weight must be 4-D (in, out/groups, kh, kw), got "
                         f"shape {list(weight.shape)}")
    stride, padding = _pair(stride, "stride"), _pair(padding, "padding")
    output_padding, dilation = _pair(output_padding, "output_padding"), _pair(dilation,
                                                                             "dilation")
    if any(op >= max(s, d) for op, s, d in zip(output_padding, stride, dilation)):
        raise ValueError(f"conv_transpose2d: output_padding {output_padding} must be smaller "
                         f"than stride {stride} or dilation {dilation}")
    out = call(OPS["conv_transpose2d"], [x, weight],
               {"stride": stride, "padding": padding, "output_padding": output_padding,
                "dilation": dilation, "groups": groups})
    if bias is not None:
        _add_channel_bias_(out, bias)
    return undo(out)


def _single(v):
    """A 1-D size given as an int or a one-element sequence."""
    return v if isinstance(v, int) else v[0]


def adaptive_avg_pool2d(x, output_size):
    """Mean over the bins that divide H and W into ``output_size`` (None keeps a size)."""
    x, undo = _batched(x, "adaptive_avg_pool2d")
    if isinstance(output_size, int):
        output_size = (output_size, output_size)
    size = tuple(x.shape[2 + i] if s is None else int(s) for i, s in enumerate(output_size))
    return undo(call(OPS["adaptive_avg_pool2d"], [x], {"output_size": size}))


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
    if training or running_mean is None:
        n = x.numel() // x.shape[1]
        if n <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {list(x.shape)}")
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


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``sum(x1 * x2) / sqrt(max(sum(x1^2) * sum(x2^2), eps^2))`` along ``dim``."""
    dot = (x1 * x2).sum(axis=dim)
    norms = ((x1 * x1).sum(axis=dim) * (x2 * x2).sum(axis=dim)).clamp(min=eps * eps)
    return dot / norms.sqrt()


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


def glu(x, dim=-1):
    """The gated linear unit: ``a * sigmoid(b)`` with ``a, b`` the halves of ``x`` along ``dim``."""
    if x.shape[dim] % 2:
        raise ValueError(f"glu: halving dimension {dim} of size {x.shape[dim]}, which is odd")
    a, b = x.chunk(2, dim)
    return a * b.sigmoid()


def prelu(x, weight):
    """``x`` where positive, else ``weight * x``; ``weight`` has one value or one per channel
    (dimension 1)."""
    if weight.numel() != 1:
        if x.ndim < 2 or x.shape[1] != weight.numel():
            raise ShapeError(f"prelu: {weight.numel()} weights for input of shape "
                             f"{list(x.shape)}; expected 1 or one per channel")
        weight = weight.reshape([1, -1] + [1] * (x.ndim - 2))
    return call(OPS["where"], [x > 0, x, weight * x], {})


def huber_loss(x, target, reduction="mean", delta=1.0):
    """``0.5 d^2`` where ``|d| <= delta``, else ``delta (|d| - 0.5 delta)``."""
    _check_same_shape(x, target, "huber_loss")
    if delta <= 0:
        raise ValueError(f"huber_loss: delta must be positive, got {delta}")
    a = call(OPS["abs"], [x - target], {})
    quad = call(OPS["clamp"], [a, None, delta], {})
    return _reduce(quad * quad * 0.5 + (a - quad) * delta, reduction)


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
        raise TypeError(f"embedding: indices must be integers, got {idx.dtype}")
    n = weight.shape[0]
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError(f"embedding: index out of range for a table of {n} rows "
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


_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def pad(x, pad, mode="constant", value=None):
    """Pad (or, with negative sizes, crop) the last axes: ``pad`` is (left, right) for the last
    axis, then for the one before, ... as in PyTorch; ``mode`` is 'constant' (``value``, default
    0), 'reflect', 'replicate' or 'circular'."""
    pad = [int(p) for p in pad]
    if len(pad) % 2 or len(pad) // 2 > x.ndim:
        raise ValueError(f"pad: expected an even number of sizes, at most 2 per dimension of "
                         f"the {x.ndim}-D input, got {len(pad)}")
    if mode not in _PAD_MODES:
        raise ValueError(f"pad: mode must be one of {', '.join(_PAD_MODES)}, got {mode!r}")
    k = len(pad) // 2
    pads = [(0, 0)] * (x.ndim - k) + [(pad[2 * i], pad[2 * i + 1]) for i in range(k)][::-1]
    for a, (left, right) in enumerate(pads):
        n = x.shape[a]
        if mode != "constant" and (left or right):
            if min(left, right) < 0:
                raise ValueError(f"pad: negative padding needs mode='constant', got {mode!r}")
            if mode == "reflect" and max(left, right) >= n:
                raise ValueError(f"pad: reflect padding of {max(left, right)} must be smaller "
                                 f"than the dimension it pads ({n}, dimension {a})")
            if n == 0:
                raise ValueError(f"pad: {mode} padding of an empty dimension {a}")
        if n + left + right < 0:
            raise ValueError(f"pad: the padded size of dimension {a} would be "
                             f"{n + left + right}")
    if mode != "constant" and value:
        raise ValueError(f"pad: value is only for mode='constant', got mode={mode!r}")
    return call(OPS["pad"], [x], {"pads": tuple(pads), "mode": mode,
                                  "value": 0.0 if value is None else value})


_INTERP_MODES = ("nearest", "nearest-exact", "linear", "bilinear", "trilinear", "area")


def interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dimensions of (N, C, ...) to ``size`` or by ``scale_factor``:
    'nearest' (and 'nearest-exact'), 'linear'/'bilinear'/'trilinear' (one axis after another,
    ``align_corners`` as PyTorch), or 'area' (averages over the covered input cells). Each
    result is made of index selections, weights and sums, so it has their gradients."""
    if mode not in _INTERP_MODES:
        raise ValueError(f"interpolate: mode must be one of {', '.join(_INTERP_MODES)}, got "
                         f"{mode!r}")
    if antialias:
        raise ValueError("interpolate: antialias=True is not supported")
    spatial = x.ndim - 2
    if spatial < 1:
        raise ShapeError(f"interpolate: expected (N, C, ...) input, got shape {list(x.shape)}")
    want = {"linear": 1, "bilinear": 2, "trilinear": 3}.get(mode)
    if want is not None and spatial != want:
        raise ValueError(f"interpolate: mode {mode!r} needs {want} spatial dimension(s), got "
                         f"input of shape {list(x.shape)}")
    if align_corners is not None and want is None:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: give exactly one of size and scale_factor")
    in_sizes = list(x.shape[2:])
    if size is not None:
        sizes = [size] * spatial if isinstance(size, int) else list(size)
        scales = [i / o for i, o in zip(in_sizes, sizes)]
    else:
        factors = [scale_factor] * spatial if isinstance(scale_factor, (int, float)) else list(
            scale_factor)
        sizes = [int(math.floor(i * f)) for i, f in zip(in_sizes, factors)]
        scales = ([i / o for i, o in zip(in_sizes, sizes)] if recompute_scale_factor
                  else [1.0 / f for f in factors])
    if len(sizes) != spatial:
        raise ValueError(f"interpolate: expected {spatial} sizes, got {sizes}")
    for a, (n_in, n_out, scale) in enumerate(zip(in_sizes, sizes, scales)):
        axis = a + 2
        if mode == "area":
            x = _area_axis(x, axis, n_in, n_out)
        elif want is None:
            x = _pick_rows(x, axis, _nearest_index(n_in, n_out, scale, mode == "nearest-exact"))
        else:
            x = _linear_axis(x, axis, n_in, n_out, scale, bool(align_corners))
    return x


def _pick_rows(x, axis, idx):
    return call(OPS["index_select"], [x, _wrap(idx.astype(np.int64))], {"axis": axis})


def _nearest_index(n_in, n_out, scale, exact):
    dst = np.arange(n_out, dtype=np.float64)
    src = np.floor((dst + 0.5) * scale) if exact else np.floor(dst * scale)
    return np.minimum(src, n_in - 1)


def _linear_axis(x, axis, n_in, n_out, scale, align_corners):
    dst = np.arange(n_out, dtype=np.float64)
    if align_corners:
        src = dst * ((n_in - 1) / (n_out - 1)) if n_out > 1 else dst * 0
    else:
        src = np.maximum((dst + 0.5) * scale - 0.5, 0.0)
    lo = np.minimum(np.floor(src), n_in - 1)
    hi = np.minimum(lo + 1, n_in - 1)
    w = (src - lo).astype(x.dtype.np)
    shape = [1] * x.ndim
    shape[axis] = n_out
    w = _wrap(w.reshape(shape))
    a, b = _pick_rows(x, axis, lo), _pick_rows(x, axis, hi)
    return a + (b - a) * w


def _area_axis(x, axis, n_in, n_out):
    """Each output cell the mean of input cells ``floor(i * n_in / n_out)`` to
    ``ceil((i + 1) * n_in / n_out)`` (adaptive average pooling), as one matrix product."""
    m = np.zeros((n_in, n_out), x.dtype.np)
    for i in range(n_out):
        lo, hi = (i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)
        m[lo:hi, i] = 1.0 / (hi - lo)
    moved = x.movedim(axis, -1)
    return (moved @ _wrap(m)).movedim(-1, axis)


def one_hot(x, num_classes=-1):
    """Integer class indices as a one-hot int64 tensor with a trailing class axis."""
    idx = x._data
    n = int(idx.max()) + 1 if num_classes < 0 else num_classes
    xp = x._place.xp
    return _wrap((idx[..., None] == xp.arange(n)).astype(xp.int64), x)


# ---- losses --------------------------------------------------------------------------------
_REDUCTIONS = ("mean", "sum", "none")


def _reduce(loss, reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction!r} is not a valid value for reduction; use one of "
                         f"{', '.join(_REDUCTIONS)}")
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


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


def nll_loss(logp, target, weight=None, ignore_index=-100, reduction="mean"):
    """Negative log-likelihood of class indices ``target`` under log-probabilities ``logp``
    (N, C, ...); ``weight`` per class; targets equal to ``ignore_index`` count for nothing."""
    return _nll(logp, target, weight, ignore_index, reduction, 0.0)


def _nll(logp, target, weight, ignore_index, reduction, smoothing):
    flat, batch = _classes_last(logp)
    m, c = flat.shape
    xp = logp._place.xp
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
    wc = xp.ones(c, flat._data.dtype) if weight is None else weight._data.astype(
        flat._data.dtype)
    wt = wc[safe] * valid               # the weight of each sample's target (0 when ignored)
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
    return total / float(wt.sum())


def cross_entropy(x, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
    """Cross-entropy of logits ``x`` (N, C, ...) against class indices, or against class
    probabilities of ``x``'s shape; with ``label_smoothing`` in [0, 1]."""
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0, got {label_smoothing}")
    logp = _log_softmax(x, axis=1 if x.ndim > 1 else 0)
    if isinstance(target, Tensor) and target._data.dtype.kind == "f":
        _check_same_shape(x, target, "cross_entropy")
        c = x.shape[1] if x.ndim > 1 else x.shape[0]
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


def mse_loss(x, target, reduction="mean"):
    """Mean squared error."""
    _check_same_shape(x, target, "mse_loss")
    d = x - target
    return _reduce(d * d, reduction)


def l1_loss(x, target, reduction="mean"):
    """Mean absolute error."""
    _check_same_shape(x, target, "l1_loss")
    return _reduce(call(OPS["abs"], [x - target], {}), reduction)


def smooth_l1_loss(x, target, reduction="mean", beta=1.0):
    """Huber-like loss: ``0.5 d^2 / beta`` where ``|d| < beta``, ``|d| - 0.5 beta`` elsewhere."""
    _check_same_shape(x, target, "smooth_l1_loss")
    if beta < 0:
        raise ValueError(f"smooth_l1_loss: beta must be non-negative, got {beta}")
    a = call(OPS["abs"], [x - target], {})
    if beta == 0:
        return _reduce(a, reduction)
    # with q = min(|d|, beta) both branches are 0.5 q^2 / beta + (|d| - q)
    quad = call(OPS["clamp"], [a, None, beta], {})
    return _reduce(quad * quad * (0.5 / beta) + (a - quad), reduction)


def binary_cross_entropy(p, target, weight=None, reduction="mean"):
    """Binary cross-entropy of probabilities ``p`` (logs clamped at -100, as PyTorch)."""
    _check_same_shape(p, target, "binary_cross_entropy")
    pd = p._data
    if pd.size and (pd.min() < 0 or pd.max() > 1):
        raise ValueError("binary_cross_entropy: all elements of input should be between 0 "
                         "and 1")
    log_p = call(OPS["clamp"], [call(OPS["log"], [p], {}), -100.0, None], {})
    log_q = call(OPS["clamp"], [call(OPS["log"], [1 - p], {}), -100.0, None], {})
    loss = -(target * log_p + (1 - target) * log_q)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(x, target, weight=None, reduction="mean", pos_weight=None):
    """Sigmoid + binary cross-entropy in one stable formula:
    ``(1 - t) x + (1 + (pw - 1) t) * (log1p(exp(-|x|)) + relu(-x))``."""
    _check_same_shape(x, target, "binary_cross_entropy_with_logits")
    sp = call(OPS["log1p"], [call(OPS["exp"], [-call(OPS["abs"], [x], {})], {})], {}) + call(
        OPS["relu"], [-x], {})     # softplus(-x) = -log(sigmoid(x))
    if pos_weight is None:
        loss = (1 - target) * x + sp
    else:
        loss = (1 - target) * x + (1 + (pos_weight - 1) * target) * sp
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)



# margin, embedding, ranking, count, Gaussian and CTC losses; distances (nn/losses.py)
from ..losses import (  # noqa: E402, F401
    cosine_embedding_loss, ctc_loss, gaussian_nll_loss, hinge_embedding_loss,
    margin_ranking_loss, multi_margin_loss, multilabel_margin_loss, multilabel_soft_margin_loss,
    pairwise_distance, pdist, poisson_nll_loss, soft_margin_loss, triplet_margin_loss,
    triplet_margin_with_distance_loss)

# convolutions and poolings over 1, 2 or 3 spatial dimensions (nn/pooling.py); max_pool2d and
# avg_pool2d with return_indices and ceil_mode live there too
from ..pooling import *  # noqa: E402, F401, F403
from ..pooling import __all__ as _pooling_all  # noqa: E402
from ..pooling import avg_pool2d, max_pool2d  # noqa: E402, F401

__all__ += [name for name in _pooling_all if name not in __all__]
# vision ops, normalisations, bags, bilinear, linear cross-entropy, softmin, gumbel_softmax
# (nn/vision.py, nn/normalization.py, nn/sparse.py, nn/activations.py)
from ..activations import gumbel_softmax, softmin  # noqa: E402, F401
from ..linear_cross_entropy import linear_cross_entropy  # noqa: E402, F401
from ..normalization import instance_norm, local_response_norm  # noqa: E402, F401
from ..sparse import bilinear, embedding_bag  # noqa: E402, F401
from ..vision import (  # noqa: E402, F401
    affine_grid, channel_shuffle, fold, grid_sample, native_channel_shuffle, pixel_shuffle,
    pixel_unshuffle, unfold, upsample, upsample_bilinear, upsample_nearest)
