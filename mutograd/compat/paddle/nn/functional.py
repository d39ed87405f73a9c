"""``paddle.nn.functional``: activations (with their ``_`` in-place forms), softmax with ``axis``.

    >>> import mutograd.compat.paddle as paddle
    >>> import mutograd.compat.paddle.nn.functional as F
    >>> x = paddle.to_tensor([-1., 2.])
    >>> F.relu_(x) is x
    True
"""
import contextlib as _contextlib
import math

import numpy as np

import mutograd as _mg

from ....nn import functional as _F
from ....nn.functional import dropouts as _dropouts
from ....ops.registry import OPS as _OPS
from ....ops.registry import call as _call
from ..functions import with_name as _with_name

# Paddle's activations that are the main namespace's functions (the same arguments, in the same
# order, with the same defaults) but for Paddle's name=, which the table's functions accept
PASS_THROUGH = {
    "relu": _mg.relu, "relu_": _mg.relu_, "relu6": _mg.relu6, "sigmoid": _mg.sigmoid,
    "tanh": _mg.tanh, "tanh_": _mg.tanh_, "silu": _mg.silu, "swish": _mg.silu,
    "mish": _mg.mish, "hardswish": _mg.hardswish, "hardsigmoid": _mg.hardsigmoid,
    "celu": _mg.celu, "selu": _mg.selu, "leaky_relu": _mg.leaky_relu,
    "leaky_relu_": _mg.leaky_relu_, "elu": _mg.elu, "elu_": _mg.elu_,
    "hardtanh": _mg.hardtanh, "hardtanh_": _mg.hardtanh_,
    "thresholded_relu": _mg.thresholded_relu, "thresholded_relu_": _mg.thresholded_relu_,
    "softplus": _mg.softplus, "softmax": _mg.softmax, "log_softmax": _mg.log_softmax,
    "log_sigmoid": _F.logsigmoid, "logsigmoid": _F.logsigmoid, "softsign": _F.softsign,
    "tanhshrink": _F.tanhshrink,
}
globals().update(_with_name(PASS_THROUGH))


# ---- the rest of Paddle's functional in-place APIs (docs/inplace_api.md) -------------------

def softmax_(x, axis=-1, dtype=None, name=None):
    """:func:`softmax` written into ``x`` (cast to ``dtype`` first); returns ``x``."""
    if dtype is not None:
        _mg.cast_(x, dtype)
    return _mg.softmax_(x, axis=axis)


def embedding_renorm_(x, weight, max_norm, norm_type=2.0):
    """Scale the rows of ``weight`` that the indices ``x`` name to norm ``max_norm``; returns
    ``weight``. As in Paddle, a write with grad mode off: a leaf parameter may take it (its
    version moves on), and a tensor with history keeps that history (its gradient passes the
    rescaling as if it were not there)."""
    with _mg.no_grad():
        return _mg.embedding_renorm_(weight, x, max_norm, norm_type)


def rrelu(x, lower=1.0 / 8.0, upper=1.0 / 3.0, training=True, name=None):
    """Leaky ReLU with a random slope in ``[lower, upper]`` while training (Paddle's default)."""
    return _mg.rrelu(x, lower, upper, training)


def gelu(x, approximate=False, name=None):
    """GELU; ``approximate=True`` uses the tanh approximation."""
    return _mg.gelu(x, approximate="tanh" if approximate else "none")


# ---- layers and losses with Paddle's signatures --------------------------------------------

def _channels_last(data_format):
    """Whether Paddle's ``data_format`` puts the channels last ('NHWC', 'NLC', 'NWC', ...)."""
    return data_format is not None and len(data_format) > 2 and data_format[-1] == "C"


def _channels_first(fn, x, data_format, *args, **kwargs):
    """``fn(x, *args, **kwargs)`` on channels-first data: with a channels-last ``data_format``
    the channels of ``x`` move to axis 1 first and those of each result back to the end.

        >>> import mutograd.compat.paddle as paddle
        >>> x = paddle.ones([1, 4, 4, 3])
        >>> F = paddle.nn.functional
        >>> list(F._channels_first(F.max_pool2d, x, "NHWC", 2).shape)
        [1, 2, 2, 3]
    """
    if not _channels_last(data_format):
        return fn(x, *args, **kwargs)
    out = fn(_mg.movedim(x, -1, 1), *args, **kwargs)
    if isinstance(out, tuple):
        return tuple(_mg.movedim(o, 1, -1) for o in out)
    return _mg.movedim(out, 1, -1)


def _mask(out, return_mask):
    """Paddle's pooling masks are int32."""
    return (out[0], out[1].astype("int32")) if return_mask else out


binary_cross_entropy = _F.binary_cross_entropy
binary_cross_entropy_with_logits = _F.binary_cross_entropy_with_logits
adaptive_avg_pool2d = _F.adaptive_avg_pool2d
mse_loss, l1_loss = _F.mse_loss, _F.l1_loss


def linear(x, weight, bias=None, name=None):
    """``x @ weight + bias`` with ``weight`` of shape [in_features, out_features] (Paddle):
    one op for a matrix weight and a vector bias."""
    if weight.ndim == 2 and (bias is None or tuple(bias.shape) == tuple(weight.shape[1:])):
        return _call(_OPS["linear"], [x, weight, bias], {"in_out": True})
    out = _mg.matmul(x, weight)
    if bias is not None:
        out.add_(bias)      # the product is ours: add the bias without a new buffer
    return out


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCHW", name=None):
    """2-D convolution of NCHW (or NHWC) input with [out, in/groups, kh, kw] weights."""
    return _conv(_F.conv2d, x, weight, bias, stride, padding, dilation, groups, data_format)


def _conv(conv_fn, x, weight, bias, stride, padding, dilation, groups, data_format):
    """Paddle's convolution by the shared ``conv_fn`` (of any rank): its layouts and padding
    forms ('SAME'/'VALID' in any case, sizes per side)."""
    def conv(x):
        pads = _explicit_padding(padding, x.shape[2:], weight.shape[2:], stride, dilation)
        if pads is not None:
            return conv_fn(_F.pad(x, pads), weight, bias, stride, 0, dilation, groups)
        given = padding.lower() if isinstance(padding, str) else padding
        return conv_fn(x, weight, bias, stride, given, dilation, groups)
    return _channels_first(conv, x, data_format)


def _explicit_padding(padding, sizes, kernel, stride, dilation=1):
    """Paddle's window padding forms that PyTorch's functions do not take, as ``_F.pad``'s list
    (last axis first): 'SAME' (TensorFlow's: ``ceil(size / stride)`` outputs, the odd element
    at the end), ``2 * n`` sizes (before, after per axis) or ``n + 2`` pairs (N, C and the
    spatial axes); None for 'VALID' and the forms they take (an int, one per axis)."""
    n = len(sizes)
    if isinstance(padding, str):
        if padding.lower() == "valid":
            return None
        k, s, d = (_as_tuple(v, n) for v in (kernel, stride, dilation))
        pairs = []
        for size, ki, si, di in zip(sizes, k, s, d):
            total = max((-(-size // si) - 1) * si + (ki - 1) * di + 1 - size, 0)
            pairs.append((total // 2, total - total // 2))
    elif isinstance(padding, (list, tuple)) and len(padding) == 2 * n and n > 1:
        pairs = [tuple(padding[2 * i:2 * i + 2]) for i in range(n)]
    elif isinstance(padding, (list, tuple)) and len(padding) == n + 2:
        pairs = [tuple(p) for p in padding[2:]]
    else:
        return None
    return [p for pair in reversed(pairs) for p in pair]


def _as_tuple(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


def _pool_padding(padding):
    return 0 if isinstance(padding, str) else padding


def max_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, return_mask=False,
               data_format="NCHW", name=None):
    """Maximum over windows; ``padding`` also 'SAME', 'VALID' or per side; ``return_mask``:
    also each maximum's flat position (int32)."""
    return _max_pool(_F.max_pool2d, x, kernel_size, stride, padding, ceil_mode, return_mask,
                     data_format)


def max_pool3d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               data_format="NCDHW", name=None):
    """Maximum over 3-D windows (NCDHW or NDHWC); ``padding`` also 'SAME', 'VALID' or per
    side; ``return_mask``: also each maximum's flat D*H*W position (int32).

        >>> import mutograd.compat.paddle as paddle
        >>> x = paddle.arange(8, dtype="float32").reshape([1, 1, 2, 2, 2])
        >>> paddle.nn.functional.max_pool3d(x, 2).flatten().tolist()
        [7.0]
    """
    return _max_pool(_F.max_pool3d, x, kernel_size, stride, padding, ceil_mode, return_mask,
                     data_format)


def _max_pool(pool_fn, x, kernel_size, stride, padding, ceil_mode, return_mask, data_format):
    """Paddle's max pooling by the shared ``pool_fn`` (of any rank): its padding forms, layouts
    and int32 masks."""
    def pool(x):
        stride_ = kernel_size if stride is None else stride
        pads = _explicit_padding(padding, x.shape[2:], kernel_size, stride_)
        if pads is None:
            return pool_fn(x, kernel_size, stride, _pool_padding(padding), 1, ceil_mode,
                           return_mask)
        return pool_fn(_F.pad(x, pads, value=float("-inf")), kernel_size, stride_, 0, 1,
                       ceil_mode, return_mask)
    return _mask(_channels_first(pool, x, data_format), return_mask)


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCHW", name=None):
    """Mean over windows; ``exclusive=True`` (the default) leaves padding out of the mean;
    ``padding`` also 'SAME', 'VALID' or per side."""
    return _avg_pool(_F.avg_pool2d, x, kernel_size, stride, padding, ceil_mode, exclusive,
                     divisor_override, data_format)


def avg_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCDHW", name=None):
    """Mean over 3-D windows (NCDHW or NDHWC); ``exclusive=True`` (the default) leaves padding
    out of the mean; ``padding`` also 'SAME', 'VALID' or per side.

        >>> import mutograd.compat.paddle as paddle
        >>> x = paddle.arange(8, dtype="float32").reshape([1, 1, 2, 2, 2])
        >>> paddle.nn.functional.avg_pool3d(x, 2).flatten().tolist()
        [3.5]
    """
    return _avg_pool(_F.avg_pool3d, x, kernel_size, stride, padding, ceil_mode, exclusive,
                     divisor_override, data_format)


def _avg_pool(pool_fn, x, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
              data_format):
    """Paddle's average pooling by the shared ``pool_fn`` (of any rank): its padding forms and
    layouts, ``exclusive`` the inverse of PyTorch's ``count_include_pad``."""
    def pool(x):
        n = x.ndim - 2
        stride_ = kernel_size if stride is None else stride
        pads = _explicit_padding(padding, x.shape[2:], kernel_size, stride_)
        if pads is None:
            return pool_fn(x, kernel_size, stride, _pool_padding(padding), ceil_mode,
                           not exclusive, divisor_override)
        sums = pool_fn(_F.pad(x, pads), kernel_size, stride_, 0, ceil_mode, True, 1)
        if divisor_override:
            return sums / divisor_override
        if not exclusive:
            return sums / math.prod(_as_tuple(kernel_size, n))
        ones = _mg.ones([1, 1] + list(x.shape[2:]), dtype=x.dtype)
        counts = pool_fn(_F.pad(ones, pads), kernel_size, stride_, 0, ceil_mode, True, 1)
        return sums / counts
    return _channels_first(pool, x, data_format)


def dropout(x, p=0.5, axis=None, training=True, mode="upscale_in_train", name=None):
    """Zero elements with probability ``p``: whole slices along the axes not in ``axis`` when
    it is given; ``mode='upscale_in_train'`` scales the kept ones by ``1 / (1 - p)`` while
    training, ``'downscale_in_infer'`` scales by ``1 - p`` in eval instead."""
    if mode not in ("upscale_in_train", "downscale_in_infer"):
        raise ValueError(f"mode argument should be 'downscale_in_infer' or "
                         f"'upscale_in_train', got {mode!r}")
    if not training:
        return x * (1.0 - p) if mode == "downscale_in_infer" else x
    if axis is None and mode == "upscale_in_train":
        return _F.dropout(x, p, training)
    axes = range(x.ndim) if axis is None else \
        [a % x.ndim for a in ([axis] if isinstance(axis, int) else axis)]
    shape = [x.shape[i] if i in axes else 1 for i in range(x.ndim)]
    keep = (_mg.rand(shape) >= p).astype(x.dtype)
    if mode == "upscale_in_train":
        keep = keep / (1.0 - p) if p < 1 else keep
    return x * keep


def embedding(x, weight, padding_idx=None, sparse=False, name=None):
    """Rows of ``weight`` at the indices ``x``."""
    return _F.embedding(x, weight, padding_idx)


def one_hot(x, num_classes, name=None):
    """One-hot float32 rows (Paddle returns float)."""
    return _F.one_hot(x, num_classes).astype("float32")


def pad(x, pad, mode="constant", value=0.0, data_format="NCHW", name=None):
    """Paddle's ``pad``: with ``2 * x.ndim`` sizes in 'constant' mode, (before, after) for each
    axis from the first; otherwise (left, right) for the last spatial axis, then the one before,
    ... of ``data_format`` (channels first, or last as in 'NHWC')."""
    pad = pad.tolist() if isinstance(pad, _mg.Tensor) else [int(p) for p in pad]
    if mode == "constant" and len(pad) == 2 * x.ndim:
        pairs = [pad[2 * i:2 * i + 2] for i in range(x.ndim)]
        return _F.pad(x, [p for pair in pairs[::-1] for p in pair], "constant", value)
    if data_format[-1] != "C":
        return _F.pad(x, pad, mode, value if mode == "constant" else None)
    # channels last: move them to axis 1, pad the trailing spatial axes, move them back
    n = x.ndim
    first = x.permute(0, n - 1, *range(1, n - 1))
    out = _F.pad(first, pad, mode, value if mode == "constant" else None)
    return out.permute(0, *range(2, n), 1)


def layer_norm(x, normalized_shape, weight=None, bias=None, epsilon=1e-5, name=None):
    return _F.layer_norm(x, normalized_shape, weight, bias, epsilon)


def batch_norm(x, running_mean, running_var, weight, bias, training=False, momentum=0.9,
               epsilon=1e-5, data_format="NCHW", use_global_stats=None, name=None):
    """Batch normalisation; ``momentum`` weighs the old running statistic and the running
    variance takes the biased batch variance (Paddle). ``use_global_stats=True`` normalises
    with the running statistics, also while training."""
    if use_global_stats:
        training = False
    return _channels_first(_F.batch_norm, x, data_format, running_mean, running_var, weight,
                          bias, training, 1 - momentum, epsilon, var_ddof=0)


def _label(input, label, axis):
    """Paddle's labels: class indices of shape [N] or [N, 1] (class axis ``axis``)."""
    if label.ndim == input.ndim and label._data.dtype.kind in "iu" and label.shape[axis] == 1:
        label = _call(_OPS["squeeze"], [label], {"axis": axis})
    return label


def _classes_to_axis_1(x, axis):
    axis %= x.ndim
    if x.ndim <= 2 or axis == 1:
        return x
    return _mg.moveaxis(x, axis, 1) if hasattr(_mg, "moveaxis") else _call(
        _OPS["permute"], [x], {"perm": (0, axis) + tuple(
            i for i in range(1, x.ndim) if i != axis)})


def cross_entropy(input, label, weight=None, ignore_index=-100, reduction="mean",
                  soft_label=False, axis=-1, use_softmax=True, label_smoothing=0.0, name=None):
    """Softmax cross-entropy along ``axis`` (the last by default) against class indices
    ([N] or [N, 1]) or, with ``soft_label=True``, class probabilities."""
    if not use_softmax:
        raise ValueError("cross_entropy: use_softmax=False is not supported; use nll_loss on "
                         "log-probabilities")
    if not soft_label:
        label = _label(input, label, axis)
    x = _classes_to_axis_1(input, axis)
    if soft_label:
        label = _classes_to_axis_1(label, axis)
        ignore_index = -100     # Paddle ignores it for soft labels; PyTorch's rule would raise
    if (reduction == "mean" and not soft_label and weight is None and ignore_index < 0
            and not label_smoothing):
        # Paddle 3.3.1's mean with a negative ignore_index and no class weights divides by every
        # label, the ignored ones included (a non-negative ignore_index divides by those kept)
        total = _F.cross_entropy(x, label, None, ignore_index, "sum")
        return total / max(label.numel(), 1)
    loss = _F.cross_entropy(x, label, weight, ignore_index, reduction, label_smoothing)
    if reduction == "none" and (soft_label or label_smoothing > 0):
        # against probabilities Paddle keeps the class axis, of size 1
        loss = loss.unsqueeze(axis % input.ndim)
    return loss


def nll_loss(input, label, weight=None, ignore_index=-100, reduction="mean", name=None):
    """Negative log-likelihood of log-probabilities ``input`` (N, C, ...)."""
    return _F.nll_loss(input, _label(input, label, 1), weight, ignore_index, reduction)


def smooth_l1_loss(input, label, reduction="mean", delta=1.0, is_huber=True, name=None):
    """Paddle's smooth L1 (Huber): ``0.5 d^2`` where ``|d| < delta``, else
    ``delta * |d| - 0.5 delta^2``; ``is_huber=False``: that divided by ``delta`` (PyTorch's
    smooth L1 with ``beta=delta``)."""
    loss = _F.smooth_l1_loss(input, label, "none", beta=delta)
    return _F._reduce(loss * delta if is_huber else loss, reduction)


# ---- the rest of Paddle's functional API, over mutograd's ops -------------------------------
from ....nn.functional.attention import scaled_dot_product_attention as _sdpa  # noqa: E402

def hardshrink(x, threshold=0.5, name=None):
    """``x`` where ``|x| > threshold``, else 0."""
    return _F.hardshrink(x, threshold)


def softshrink(x, threshold=0.5, name=None):
    """``x - threshold`` above it, ``x + threshold`` below ``-threshold``, else 0."""
    return _F.softshrink(x, threshold)


def glu(x, axis=-1, name=None):
    """The first half of ``x`` along ``axis`` times the sigmoid of the second."""
    return _F.glu(x, axis)


def swiglu(x, y=None, name=None):
    """``silu(x) * y``; without ``y``, the two halves of ``x``'s last axis."""
    if y is None:
        x, y = x.chunk(2, -1)
    return _mg.silu(x) * y


def prelu(x, weight, data_format="NCHW", name=None):
    """``max(0, x) + weight * min(0, x)``, ``weight`` per channel (axis 1) or shared."""
    if data_format[-1] == "C" and weight.size > 1:
        return _mg.where(x > 0, x, x * weight)
    return _F.prelu(x, weight)


def maxout(x, groups, axis=1, name=None):
    """The maximum over each of the ``C / groups`` groups of ``groups`` channels."""
    axis %= x.ndim
    c = x.shape[axis]
    shape = list(x.shape[:axis]) + [c // groups, groups] + list(x.shape[axis + 1:])
    return x.reshape(shape).amax(axis + 1)


def normalize(x, p=2, axis=1, epsilon=1e-12, name=None):
    """``x`` divided by its ``p``-norm along ``axis`` (at least ``epsilon``)."""
    n = _mg.norm(x, p=p, axis=axis, keepdim=True) if p != 2 else (
        (x * x).sum(axis=axis, keepdim=True).sqrt())
    return x / n.clip(min=epsilon)


def cosine_similarity(x1, x2, axis=1, eps=1e-8):
    """The cosine of the angle between ``x1`` and ``x2`` along ``axis``."""
    return _F.cosine_similarity(x1, x2, axis, eps)


def pairwise_distance(x, y, p=2.0, epsilon=1e-6, keepdim=False, name=None):
    """The ``p``-norm of ``x - y + epsilon`` along the last axis."""
    d = x - y + epsilon
    if p == float("inf"):
        return d.abs().amax(-1, keepdim=keepdim)
    return (d.abs() ** p).sum(-1, keepdim=keepdim) ** (1.0 / p)


def dropout1d(input, p=0.5, training=True, inplace=False):
    return _F.dropout1d(input, p, training, inplace)


def dropout2d(x, p=0.5, training=True, data_format="NCHW", name=None):
    """Zero whole channels with probability ``p`` (NCHW or NHWC)."""
    return _channels_first(_F.dropout2d, x, data_format, p, training)


def dropout3d(x, p=0.5, training=True, data_format="NCDHW", name=None):
    """Zero whole channels with probability ``p`` (NCDHW or NDHWC)."""
    return _channels_first(_F.dropout3d, x, data_format, p, training)


def group_norm(x, num_groups, epsilon=1e-5, weight=None, bias=None, data_format="NCHW",
               name=None):
    """Normalise each of ``num_groups`` groups of channels."""
    return _channels_first(_F.group_norm, x, data_format, num_groups, weight, bias, epsilon)


def instance_norm(x, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.9, eps=1e-5, data_format="NCHW", name=None):
    """Normalise each channel of each sample over its spatial axes (the batch statistics;
    ``use_input_stats=False`` normalises with ``running_mean``/``running_var`` instead)."""
    if not use_input_stats:
        shape = [1, -1] + [1] * (x.ndim - 2)
        out = (x - running_mean.reshape(shape)) / (running_var.reshape(shape) + eps).sqrt()
        return _affine(out, weight, bias)
    return _F.group_norm(x, x.shape[1], weight, bias, eps)


def _affine(out, weight, bias):
    shape = [1, -1] + [1] * (out.ndim - 2)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def rms_norm(input, normalized_shape, weight=None, eps=1e-5, name=None):
    return _F.rms_norm(input, normalized_shape, weight, eps)


def kl_div(input, label, reduction="mean", log_target=False, name=None):
    """KL divergence of ``label`` from the log-probabilities ``input``."""
    return _F.kl_div(input, label, reduction, log_target)


def interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=False,
                align_mode=0, data_format=None, recompute_scale_factor=None, antialias=False,
                name=None):
    """Resize the spatial axes by ``size`` or ``scale_factor``; ``align_mode=1`` (without
    ``align_corners``) samples the linear modes at ``out_index * in / out`` (Paddle's)."""
    if mode in ("nearest", "area"):
        align_corners = None
    if align_mode == 1 and not align_corners and mode in ("linear", "bilinear", "trilinear"):
        return _channels_first(_resize_align_mode_1, x, data_format, size, scale_factor)
    return _channels_first(_F.interpolate, x, data_format, size, scale_factor, mode,
                          align_corners, recompute_scale_factor, antialias)


def _resize_align_mode_1(x, size, scale_factor):
    """Linear resizing of each spatial axis, output ``i`` sampled at input ``i * in / out``
    (clamped at the last one): a product with an interpolation matrix per axis."""
    import numpy as np
    n = x.ndim - 2
    if size is None:
        scales = [scale_factor] * n if not isinstance(scale_factor, (list, tuple)) \
            else list(scale_factor)
        size = [int(x.shape[2 + i] * scales[i]) for i in range(n)]
    size = [size] * n if isinstance(size, int) else list(size)
    out = x
    for i, m in enumerate(size):
        k = x.shape[2 + i]
        pos = np.minimum(np.arange(m) * (k / m), k - 1)
        lo = np.floor(pos).astype(int)
        hi = np.minimum(lo + 1, k - 1)
        w = np.zeros((m, k), dtype=x._data.dtype)
        np.add.at(w, (np.arange(m), lo), 1 - (pos - lo))
        np.add.at(w, (np.arange(m), hi), pos - lo)
        moved = _mg.movedim(out, 2 + i, -1)
        out = _mg.movedim(_mg.matmul(moved, _mg.tensor(w.T)), -1, 2 + i)
    return out


upsample = interpolate


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCDHW", name=None):
    """3-D convolution of NCDHW (or NDHWC) input with [out, in/groups, kd, kh, kw] weights.

        >>> import mutograd.compat.paddle as paddle
        >>> x, w = paddle.ones([1, 1, 2, 2, 2]), paddle.ones([1, 1, 2, 2, 2])
        >>> paddle.nn.functional.conv3d(x, w).flatten().tolist()
        [8.0]
    """
    return _conv(_F.conv3d, x, weight, bias, stride, padding, dilation, groups, data_format)


def conv3d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, output_size=None, data_format="NCDHW", name=None):
    """Transposed 3-D convolution with [in, out/groups, kd, kh, kw] weights (NCDHW or NDHWC).

        >>> import mutograd.compat.paddle as paddle
        >>> x, w = paddle.ones([1, 1, 1, 1, 1]), paddle.ones([1, 1, 2, 2, 2])
        >>> list(paddle.nn.functional.conv3d_transpose(x, w).shape)
        [1, 1, 2, 2, 2]
    """
    if output_size is not None:
        raise ValueError("conv3d_transpose: output_size is not supported (give "
                         "output_padding instead)")
    return _channels_first(_F.conv_transpose3d, x, data_format, weight, bias, stride, padding,
                          output_padding, groups, dilation)


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCL",
           name=None):
    """1-D convolution of NCL (or NLC) input with [out, in/groups, k] weights."""
    return _channels_first(_F.conv1d, x, data_format, weight, bias, stride, padding, dilation,
                          groups)


def conv2d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, dilation=1,
                     groups=1, output_size=None, data_format="NCHW", name=None):
    """Transposed 2-D convolution with [in, out/groups, kh, kw] weights (NCHW or NHWC)."""
    if output_size is not None:
        raise ValueError("conv2d_transpose: output_size is not supported (give "
                         "output_padding instead)")
    return _channels_first(_F.conv_transpose2d, x, data_format, weight, bias, stride, padding,
                          output_padding, groups, dilation)


def _one(v):
    return v if isinstance(v, int) else v[0]


def max_pool1d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               name=None):
    """Maximum over windows of the last axis (NCL)."""
    stride = kernel_size if stride is None else stride
    out = _F.max_pool2d(x.unsqueeze(2), (1, _one(kernel_size)), (1, _one(stride)),
                        (0, _one(padding)), 1, ceil_mode, return_mask)
    if return_mask:
        return out[0].squeeze(2), out[1].squeeze(2).astype("int32")
    return out.squeeze(2)


def avg_pool1d(x, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False,
               name=None):
    """Mean over windows of the last axis (NCL)."""
    stride = kernel_size if stride is None else stride
    return _F.avg_pool2d(x.unsqueeze(2), (1, _one(kernel_size)), (1, _one(stride)),
                         (0, _one(padding)), ceil_mode, not exclusive).squeeze(2)


def adaptive_avg_pool1d(x, output_size, name=None):
    """Mean over ``output_size`` near-equal windows of the last axis (NCL)."""
    return _F.adaptive_avg_pool2d(x.unsqueeze(2), (1, output_size)).squeeze(2)


def pixel_shuffle(x, upscale_factor, data_format="NCHW", name=None):
    """[N, C*r*r, H, W] -> [N, C, H*r, W*r] (or the NHWC layouts)."""
    return _channels_first(_F.pixel_shuffle, x, data_format, upscale_factor)


def pixel_unshuffle(x, downscale_factor, data_format="NCHW", name=None):
    """[N, C, H*r, W*r] -> [N, C*r*r, H, W] (or the NHWC layouts)."""
    return _channels_first(_F.pixel_unshuffle, x, data_format, downscale_factor)


def channel_shuffle(x, groups, data_format="NCHW", name=None):
    """Interleave the channels of ``groups`` groups."""
    return _channels_first(_F.channel_shuffle, x, data_format, groups)


def zeropad2d(x, padding, data_format="NCHW", name=None):
    """Zero padding (left, right, top, bottom) of the spatial axes."""
    return pad(x, padding, "constant", 0.0, data_format)


def label_smooth(label, prior_dist=None, epsilon=0.1, name=None):
    """``(1 - epsilon) * label + epsilon * prior`` (uniform prior by default)."""
    prior = 1.0 / label.shape[-1] if prior_dist is None else prior_dist
    return label * (1 - epsilon) + prior * epsilon


def sequence_mask(x, maxlen=None, dtype="int64", name=None):
    """``mask[..., j] = j < x[...]``, ``maxlen`` columns (``max(x)`` by default)."""
    maxlen = int(x.max()) if maxlen is None else int(maxlen)
    return (_mg.arange(maxlen) < x.unsqueeze(-1)).astype(dtype)


def gumbel_softmax(x, temperature=1.0, hard=False, axis=-1, name=None):
    """Softmax of ``(x + Gumbel noise) / temperature``; ``hard=True``: one-hot forward with the
    soft gradient."""
    u = _mg.rand(list(x.shape), dtype=x.dtype, device=x.place).clip(min=1e-10, max=1 - 1e-7)
    y = _mg.softmax((x - (-u.log()).log()) / temperature, axis=axis)
    if not hard:
        return y
    idx = y.argmax(axis=axis, keepdim=True)
    one = _mg.zeros_like(y).put_along_axis(idx, 1.0, axis)
    return one - y.detach() + y


def _reduce(loss, reduction):
    return _F._reduce(loss, reduction)


def square_error_cost(input, label):
    """``(input - label) ** 2`` element-wise."""
    return (input - label) ** 2


def log_loss(input, label, epsilon=1e-4, name=None):
    """Binary log loss of probabilities, element-wise."""
    return -label * (input + epsilon).log() - (1 - label) * (1 - input + epsilon).log()


def margin_ranking_loss(input, other, label, margin=0.0, reduction="mean", name=None):
    """``max(0, -label * (input - other) + margin)``."""
    return _reduce((-label * (input - other) + margin).relu(), reduction)


def hinge_embedding_loss(input, label, margin=1.0, reduction="mean", name=None):
    """``input`` where ``label`` is 1, ``max(0, margin - input)`` where it is -1."""
    loss = _mg.where(label == 1, input, _mg.zeros_like(input)) + _mg.where(
        label == -1, (margin - input).relu(), _mg.zeros_like(input))
    return _reduce(loss, reduction)


def soft_margin_loss(input, label, reduction="mean", name=None):
    """``log(1 + exp(-label * input))``."""
    return _reduce((-label * input).exp().log1p(), reduction)


def multi_label_soft_margin_loss(input, label, weight=None, reduction="mean", name=None):
    """The mean over classes of the binary cross-entropy with logits."""
    loss = -(label * _F.logsigmoid(input) + (1 - label) * _F.logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss.mean(-1), reduction)


def cosine_embedding_loss(input1, input2, label, margin=0, reduction="mean", name=None):
    """``1 - cos`` for pairs labelled 1, ``max(0, cos - margin)`` for pairs labelled -1."""
    cos = _F.cosine_similarity(input1, input2, -1)
    loss = _mg.where(label == 1, 1 - cos, (cos - margin).relu())
    return _reduce(loss, reduction)


def triplet_margin_loss(input, positive, negative, margin=1.0, p=2, epsilon=1e-6, swap=False,
                        reduction="mean", name=None):
    """``max(0, d(a, p) - d(a, n) + margin)`` with the pairwise ``p``-distance."""
    dp = pairwise_distance(input, positive, p, epsilon)
    dn = pairwise_distance(input, negative, p, epsilon)
    if swap:
        dn = _mg.minimum(dn, pairwise_distance(positive, negative, p, epsilon))
    return _reduce((dp - dn + margin).relu(), reduction)


def poisson_nll_loss(input, label, log_input=True, full=False, epsilon=1e-8, reduction="mean",
                     name=None):
    """Poisson negative log-likelihood (``input`` the log-rate when ``log_input``)."""
    loss = input.exp() - label * input if log_input else input - label * (input + epsilon).log()
    if full:
        stirling = label * label.log() - label + 0.5 * (2 * 3.141592653589793 * label).log()
        loss = loss + _mg.where(label > 1, stirling, _mg.zeros_like(stirling))
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, label, variance, full=False, epsilon=1e-6, reduction="mean",
                      name=None):
    """Gaussian negative log-likelihood with a predicted ``variance``."""
    var = variance.clip(min=epsilon)
    loss = 0.5 * (var.log() + (input - label) ** 2 / var)
    if full:
        loss = loss + 0.5 * 1.8378770664093453      # log(2 pi)
    return _reduce(loss, reduction)


def sigmoid_focal_loss(logit, label, normalizer=None, alpha=0.25, gamma=2.0, reduction="sum",
                       name=None):
    """Focal loss on logits: ``alpha_t (1 - p_t)^gamma`` times the binary cross-entropy."""
    p = logit.sigmoid()
    ce = _F.binary_cross_entropy_with_logits(logit, label, reduction="none")
    p_t = p * label + (1 - p) * (1 - label)
    loss = ce * (1 - p_t) ** gamma
    if alpha >= 0:
        loss = loss * (alpha * label + (1 - alpha) * (1 - label))
    if normalizer is not None:
        loss = loss / normalizer
    return _reduce(loss, reduction)


def dice_loss(input, label, epsilon=1e-5, name=None):
    """1 - Dice coefficient of the class probabilities ``input`` and the labels [N, ..., 1]."""
    one = one_hot(label.squeeze(-1), input.shape[-1])
    axes = list(range(1, input.ndim))
    inter = (input * one).sum(axis=axes)
    union = input.sum(axis=axes) + one.sum(axis=axes)
    return (1 - 2 * inter / (union + epsilon)).mean()


def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100,
                               numeric_stable_mode=True, return_softmax=False, axis=-1):
    """The cross-entropy of each row (kept as an axis of size 1), optionally with the softmax."""
    loss = cross_entropy(logits, label, ignore_index=ignore_index, reduction="none",
                         soft_label=soft_label, axis=axis).unsqueeze(axis)
    return (loss, _mg.softmax(logits, axis)) if return_softmax else loss


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, training=True, backend=None, scale=None,
                                 enable_gqa=True, name=None):
    """Attention over Paddle's layout [batch, seq_len, num_heads, head_dim]."""
    q, k, v = (t.permute([0, 2, 1, 3]) for t in (query, key, value))
    out = _sdpa(q, k, v, attn_mask, dropout_p if training else 0.0, is_causal, scale)
    return out.permute([0, 2, 1, 3])


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def lp_pool2d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
              data_format="NCHW", name=None):
    """``(sum over each window of x^p)^(1/p)`` (NCHW or NHWC)."""
    # each window's sum (divisor 1): a window that ceil_mode clips sums what it holds
    out = _channels_first(_F.avg_pool2d, x ** norm_type, data_format, _pair(kernel_size), stride,
                         padding, ceil_mode, True, 1)
    return (out.sign() * out.abs().relu()) ** (1.0 / norm_type)


def lp_pool1d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
              data_format="NCL", name=None):
    """``(sum over each window of x^p)^(1/p)`` along the last axis (NCL)."""
    k = _one(kernel_size)
    stride = k if stride is None else _one(stride)
    return _channels_first(lambda x: lp_pool2d(x.unsqueeze(2), norm_type, (1, k), (1, stride),
                                              (0, _one(padding)), ceil_mode).squeeze(2),
                          x, data_format)


def _adaptive_windows(n, out):
    return [(i * n // out, -(-(i + 1) * n // out)) for i in range(out)]


def adaptive_max_pool2d(x, output_size, return_mask=False, name=None):
    """The maximum over ``output_size`` near-equal windows of the two last axes;
    ``return_mask``: also each maximum's flat position in H*W (int32)."""
    oh, ow = _pair(output_size)
    h, w = x.shape[-2], x.shape[-1]
    oh, ow = oh or h, ow or w
    rows = [_mg.stack([x[..., a:b, c:d].amax(axis=[-2, -1]) for c, d in
                       _adaptive_windows(w, ow)], -1) for a, b in _adaptive_windows(h, oh)]
    out = _mg.stack(rows, -2)
    if not return_mask:
        return out
    import numpy as np
    data = x.numpy()
    mask = np.zeros(out.shape, "int32")
    for i, (a, b) in enumerate(_adaptive_windows(h, oh)):
        for j, (c, d) in enumerate(_adaptive_windows(w, ow)):
            window = data[..., a:b, c:d].reshape(data.shape[:-2] + (-1,))
            at = window.argmax(-1)
            mask[..., i, j] = (a + at // (d - c)) * w + c + at % (d - c)
    return out, _mg.tensor(mask)


def adaptive_avg_pool3d(x, output_size, data_format="NCDHW", name=None):
    """Mean over ``output_size`` near-equal windows of the three spatial axes (NCDHW or NDHWC;
    None keeps an axis's size).

        >>> import mutograd.compat.paddle as paddle
        >>> x = paddle.arange(8, dtype="float32").reshape([1, 1, 2, 2, 2])
        >>> paddle.nn.functional.adaptive_avg_pool3d(x, 1).flatten().tolist()
        [3.5]
    """
    return _channels_first(_F.adaptive_avg_pool3d, x, data_format, output_size)


def adaptive_max_pool3d(x, output_size, return_mask=False, name=None):
    """The maximum over ``output_size`` near-equal windows of the three last axes;
    ``return_mask``: also each maximum's flat position in D*H*W (int32).

        >>> import mutograd.compat.paddle as paddle
        >>> x = paddle.arange(8, dtype="float32").reshape([1, 1, 2, 2, 2])
        >>> paddle.nn.functional.adaptive_max_pool3d(x, 1).flatten().tolist()
        [7.0]
    """
    size = [s or d for s, d in zip(_as_tuple(output_size, 3), x.shape[-3:])]
    return _mask(_F.adaptive_max_pool3d(x, size, return_mask), return_mask)


def adaptive_max_pool1d(x, output_size, return_mask=False, name=None):
    """The maximum over ``output_size`` near-equal windows of the last axis."""
    out = adaptive_max_pool2d(x.unsqueeze(-2), (1, output_size), return_mask)
    if return_mask:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def bilinear(x1, x2, weight, bias=None, name=None):
    """``out[n, o] = x1[n] @ weight[o] @ x2[n] + bias[o]``."""
    out = _mg.einsum("ni,oij,nj->no", x1, weight, x2)
    return out + bias if bias is not None else out


def alpha_dropout(x, p=0.5, training=True, name=None):
    """Dropout that keeps SELU's mean and variance: dropped units go to SELU's negative limit
    (mutograd's :func:`~mutograd.nn.functional.dropouts.alpha_dropout`, training by default)."""
    return _dropouts.alpha_dropout(x, p, training)


def feature_alpha_dropout(x, p=0.5, training=True, name=None):
    """:func:`alpha_dropout` of whole channels (axis 1)."""
    return _dropouts.feature_alpha_dropout(x, p, training)


def multi_margin_loss(input, label, p=1, margin=1.0, weight=None, reduction="mean", name=None):
    """``sum over j != y of max(0, margin - x[y] + x[j])^p / C`` per row."""
    c = input.shape[1]
    picked = _mg.take_along_axis(input, label.reshape([-1, 1]), 1)
    hinge = (margin - picked + input).relu() ** p
    if weight is not None:
        hinge = hinge * _mg.take_along_axis(weight.reshape([1, -1]).expand([input.shape[0], c]),
                                            label.reshape([-1, 1]), 1)
    others = 1.0 - one_hot(label.reshape([-1]), c)
    return _reduce((hinge * others).sum(1) / c, reduction)


def multi_label_margin_loss(input, label, reduction="mean", name=None):
    """``sum over targets j and non-targets i of max(0, 1 - (x[j] - x[i])) / C``; each row of
    ``label`` lists the target classes, ended by -1."""
    lab = label.numpy()
    n, c = input.shape
    target = _mg.zeros([n, c], dtype=input.dtype).numpy()
    for r in range(n):
        for j in lab[r]:
            if j < 0:
                break
            target[r, j] = 1.0
    t = _mg.tensor(target)
    diff = (1 - (input.unsqueeze(2) - input.unsqueeze(1))).relu()
    loss = (diff * t.unsqueeze(2) * (1 - t).unsqueeze(1)).sum(axis=[1, 2]) / c
    return _reduce(loss, reduction)


def triplet_margin_with_distance_loss(input, positive, negative, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean", name=None):
    """:func:`triplet_margin_loss` with any ``distance_function`` (pairwise L2 by default)."""
    dist = distance_function or pairwise_distance
    dp, dn = dist(input, positive), dist(input, negative)
    if swap:
        dn = _mg.minimum(dn, dist(positive, negative))
    return _reduce((dp - dn + margin).relu(), reduction)


def conv1d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, output_size=None, data_format="NCL", name=None):
    """Transposed 1-D convolution with [in, out/groups, k] weights (NCL or NLC)."""
    if output_size is not None:
        raise ValueError("conv1d_transpose: output_size is not supported (give "
                         "output_padding instead)")
    return _channels_first(lambda x: _F.conv_transpose2d(
        x.unsqueeze(2), weight.unsqueeze(2), bias, (1, _one(stride)), (0, _one(padding)),
        (0, _one(output_padding)), groups, (1, _one(dilation))).squeeze(2), x, data_format)


def local_response_norm(x, size, alpha=1e-4, beta=0.75, k=1.0, data_format="NCHW", name=None):
    """``x / (k + alpha * mean of x^2 over size neighbouring channels)^beta``."""
    if _channels_last(data_format):
        return _channels_first(local_response_norm, x, data_format, size, alpha, beta, k)
    n, c = x.shape[0], x.shape[1]
    sq = (x * x).reshape([n, 1, c, -1])
    sq = _F.pad(sq, [0, 0, size // 2, (size - 1) // 2])
    div = _F.avg_pool2d(sq, (size, 1), 1).reshape(list(x.shape))
    return x / (k + alpha * div) ** beta


def pdist(x, p=2.0, name=None):
    """The ``p``-distances between the rows of ``x`` [N, M], for each pair i < j (flattened)."""
    n = x.shape[0]
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    i = _mg.tensor([a for a, _ in pairs], dtype="int64")
    j = _mg.tensor([b for _, b in pairs], dtype="int64")
    return pairwise_distance(x[i], x[j], p, 0.0)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matrices whose diagonal ``offset`` holds the last axis of ``input`` (in the last two
    axes)."""
    if (dim1 % (input.ndim + 1), dim2 % (input.ndim + 1)) != (input.ndim - 1, input.ndim):
        raise ValueError("diag_embed: only the last two axes (dim1=-2, dim2=-1) are supported")
    n = input.shape[-1]
    out = input.unsqueeze(-1) * _mg.eye(n, dtype=input.dtype)
    if offset > 0:
        return _F.pad(out, [offset, 0, 0, offset])
    if offset < 0:
        return _F.pad(out, [0, -offset, -offset, 0])
    return out


@_contextlib.contextmanager
def sdp_kernel(enable_math=False, enable_flash=True, enable_mem_efficient=True):
    """Paddle's choice of attention kernel; mutograd has one (composed) kernel, so nothing to
    choose."""
    yield


def _four(p):
    """Paddle's paddings: an int, [h, w] or [top, left, bottom, right]."""
    if isinstance(p, int):
        return p, p, p, p
    p = list(p)
    return (p[0], p[1], p[0], p[1]) if len(p) == 2 else tuple(p)


def unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """Sliding blocks of NCHW ``x`` as columns: [N, C * kh * kw, L] (im2col)."""
    (kh, kw), (sh, sw), (dh, dw) = _pair(kernel_sizes), _pair(strides), _pair(dilations)
    top, left, bottom, right = _four(paddings)
    x = _F.pad(x, [left, right, top, bottom])
    n, c, h, w = x.shape
    oh = (h - dh * (kh - 1) - 1) // sh + 1
    ow = (w - dw * (kw - 1) - 1) // sw + 1
    blocks = [x[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw]
              for i in range(kh) for j in range(kw)]
    return _mg.stack(blocks, 2).reshape([n, c * kh * kw, oh * ow])


def fold(x, output_sizes, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """The sum of the columns of ``x`` [N, C * kh * kw, L] put back at their blocks
    (col2im, the adjoint of :func:`unfold`): [N, C, *output_sizes]."""
    (oh_full, ow_full), (kh, kw) = _pair(output_sizes), _pair(kernel_sizes)
    (sh, sw), (dh, dw) = _pair(strides), _pair(dilations)
    top, left, bottom, right = _four(paddings)
    h, w = oh_full + top + bottom, ow_full + left + right
    oh = (h - dh * (kh - 1) - 1) // sh + 1
    ow = (w - dw * (kw - 1) - 1) // sw + 1
    n, c = x.shape[0], x.shape[1] // (kh * kw)
    cols = x.reshape([n, c, kh, kw, oh, ow])
    out = _mg.zeros([n, c, h, w], dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            region = out[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                         j * dw:j * dw + sw * (ow - 1) + 1:sw]
            region.add_(cols[:, :, i, j])      # a write into a view of a fresh tensor
    return out[:, :, top:h - bottom, left:w - right]


def temporal_shift(x, seg_num, shift_ratio=0.25, name=None, data_format="NCHW"):
    """Shift the first ``shift_ratio`` of the channels one step forward in time (``out[t] =
    x[t - 1]``), the next as many one step back, zeros at the ends (``x``: [N * seg_num, C, H,
    W])."""
    if data_format != "NCHW":
        raise ValueError("temporal_shift: only data_format='NCHW' is supported")
    nt, c, h, w = x.shape
    v = x.reshape([nt // seg_num, seg_num, c, h, w])
    c1, c2 = int(c * shift_ratio), int(c * 2 * shift_ratio)
    zero = _mg.zeros([v.shape[0], 1, c, h, w], dtype=x.dtype)
    back = _mg.cat([v[:, 1:], zero], 1)        # out[t] = x[t + 1]
    fwd = _mg.cat([zero, v[:, :-1]], 1)        # out[t] = x[t - 1]
    out = _mg.cat([fwd[:, :, :c1], back[:, :, c1:c2], v[:, :, c2:]], 2)
    return out.reshape([nt, c, h, w])


def npair_loss(anchor, positive, labels, l2_reg=0.002):
    """N-pair loss: soft-label cross-entropy of ``anchor @ positive^T`` against the classes
    ``labels`` share, plus ``l2_reg / 4`` times the mean squared norms."""
    n = labels.shape[0]
    same = (labels.reshape([n, 1]) == labels.reshape([1, n])).astype(anchor.dtype)
    target = same / same.sum(axis=1, keepdim=True)
    l2 = ((anchor * anchor).sum(1).mean() + (positive * positive).sum(1).mean()) * 0.25 * l2_reg
    ce = softmax_with_cross_entropy(anchor.matmul(positive.mT), target, soft_label=True)
    return l2 + (target * ce).sum(0).mean()


# ---- unpooling, fractional pooling, sampling grids -----------------------------------------

def _unpool_format(data_format, only):
    """Paddle 3.3.1 unpools channels-first data only (its pools give no channels-last mask)."""
    if data_format != only:
        raise ValueError(f"Attr(data_format) should be '{only}'. Received Attr(data_format): "
                         f"{data_format}.")


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, data_format="NCL",
                 output_size=None, name=None):
    """The inverse of :func:`max_pool1d` (its int32 mask as ``indices``): each value at its
    index, zeros elsewhere.

        >>> import mutograd.compat.paddle as paddle
        >>> F = paddle.nn.functional
        >>> y, mask = F.max_pool1d(paddle.to_tensor([[[1., 3., 2., 5.]]]), 2, return_mask=True)
        >>> F.max_unpool1d(y, mask, 2).tolist()
        [[[0.0, 3.0, 0.0, 5.0]]]
    """
    _unpool_format(data_format, "NCL")
    return _F.max_unpool1d(x, indices.astype("int64"), kernel_size, stride, padding, output_size)


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, data_format="NCHW",
                 output_size=None, name=None):
    """The inverse of :func:`max_pool2d` (its int32 mask, flat H*W positions, as ``indices``).

        >>> import mutograd.compat.paddle as paddle
        >>> F = paddle.nn.functional
        >>> y, mask = F.max_pool2d(paddle.to_tensor([[[[1., 2.], [4., 3.]]]]), 2,
        ...                        return_mask=True)
        >>> F.max_unpool2d(y, mask, 2).tolist()
        [[[[0.0, 0.0], [4.0, 0.0]]]]
    """
    _unpool_format(data_format, "NCHW")
    return _F.max_unpool2d(x, indices.astype("int64"), kernel_size, stride, padding, output_size)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, data_format="NCDHW",
                 output_size=None, name=None):
    """The inverse of :func:`max_pool3d` (its int32 mask, flat D*H*W positions, as
    ``indices``).

        >>> import mutograd.compat.paddle as paddle
        >>> F = paddle.nn.functional
        >>> x = paddle.arange(8, dtype="float32").reshape([1, 1, 2, 2, 2])
        >>> y, mask = F.max_pool3d(x, 2, return_mask=True)
        >>> F.max_unpool3d(y, mask, 2).flatten().tolist()
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 7.0]
    """
    _unpool_format(data_format, "NCDHW")
    return _F.max_unpool3d(x, indices.astype("int64"), kernel_size, stride, padding, output_size)


def _fractional_positions(length, out, k, u):
    """(out, longest window) input positions of Paddle's fractional windows along one axis:
    ``kernel_size`` windows at pseudo-random starts, or without one (k=0) disjoint windows
    covering the axis; ``u`` in (0, 1) picks the sequence (float32 arithmetic, as Paddle).
    A shorter window repeats its last position (changing neither its maximum nor argmax)."""
    f = np.float32
    alpha = f(length - k) / f(out - (1 if k > 0 else 0)) if out > (1 if k > 0 else 0) \
        else f(0)
    if k == 0:      # u is scaled to keep the last window inside the axis
        base = length // out
        u = f(u) * min(f(base + 2) / alpha - f(1), f(length + 1 - base) / alpha - f(out - 1))
    u, i = f(u), np.arange(out, dtype=f)
    start = ((i + u) * alpha).astype(np.int64) - np.int64(u * alpha)
    end = start + k if k > 0 else ((i + 1 + u) * alpha).astype(np.int64) - np.int64(u * alpha)
    start, end = np.clip(start, 0, length - 1), np.clip(end, 1, length)
    longest = max(int((end - start).max()), 1) if out else 1
    return np.minimum(start[:, None] + np.arange(longest)[None, :], end[:, None] - 1)


def fractional_max_pool2d(x, output_size, kernel_size=None, random_u=None, return_mask=False,
                          name=None):
    """Fractional max pooling of (N, C, H, W) to ``output_size`` (Paddle's window sequence:
    one ``random_u`` in (0, 1) for both axes and all planes, drawn when None); without a
    ``kernel_size`` the windows are disjoint and cover the input.

        >>> import mutograd.compat.paddle as paddle
        >>> x = paddle.arange(16, dtype="float32").reshape([1, 1, 4, 4])
        >>> paddle.nn.functional.fractional_max_pool2d(x, 2, random_u=0.5).tolist()
        [[[[5.0, 7.0], [13.0, 15.0]]]]
    """
    return _fractional_max_pool(2, x, output_size, kernel_size, random_u, return_mask)


def fractional_max_pool3d(x, output_size, kernel_size=None, random_u=None, return_mask=False,
                          name=None):
    """Fractional max pooling of (N, C, D, H, W) to ``output_size``, as
    :func:`fractional_max_pool2d` along three axes.

        >>> import mutograd.compat.paddle as paddle
        >>> x = paddle.arange(64, dtype="float32").reshape([1, 1, 4, 4, 4])
        >>> paddle.nn.functional.fractional_max_pool3d(x, 1, random_u=0.5).flatten().tolist()
        [63.0]
    """
    return _fractional_max_pool(3, x, output_size, kernel_size, random_u, return_mask)


def _fractional_max_pool(n, x, output_size, kernel_size, random_u, return_mask):
    from ....nn.functional.pooling import _max_by_positions
    out = _as_tuple(output_size, n)
    k = (0,) * n if kernel_size is None else _as_tuple(kernel_size, n)
    if random_u is None:
        random_u = float(_mg.rand([1]).item())
    if not 0 < random_u < 1:
        raise ValueError("The param `random_u` should be a `float` in (0, 1).")
    if x.ndim != n + 2:
        raise ValueError(f"Excepted Input X is {n + 2}-D tensor, but received {x.ndim}-D")
    positions = [_fractional_positions(length, o, kk, random_u)
                 for length, o, kk in zip(x.shape[-n:], out, k)]
    values, indices = _max_by_positions(x, positions, f"fractional_max_pool{n}d")
    return _mask((values, indices), True) if return_mask else values


def grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True, name=None):
    """Sample ``x`` (N, C, H, W) at the normalised (x, y) positions of ``grid`` (N, Ho, Wo, 2);
    Paddle's default aligns the corners.

        >>> import mutograd.compat.paddle as paddle
        >>> img = paddle.to_tensor([[[[1., 2.], [3., 4.]]]])
        >>> paddle.nn.functional.grid_sample(img, paddle.zeros([1, 1, 1, 2])).item()
        2.5
    """
    return _F.grid_sample(x, grid, mode, padding_mode, align_corners)


def affine_grid(theta, out_shape, align_corners=True, name=None):
    """The sampling grid of the affine maps ``theta`` (N, 2, 3) over an output of
    ``out_shape`` [N, C, H, W] (a list or a Tensor); Paddle's default aligns the corners.

        >>> import mutograd.compat.paddle as paddle
        >>> eye = paddle.to_tensor([[[1., 0., 0.], [0., 1., 0.]]])
        >>> paddle.nn.functional.affine_grid(eye, [1, 1, 1, 2])[0, 0].tolist()
        [[-1.0, 0.0], [1.0, 0.0]]
    """
    if isinstance(out_shape, _mg.Tensor):
        out_shape = out_shape.tolist()
    return _F.affine_grid(theta, [int(v) for v in out_shape], align_corners)


def adaptive_log_softmax_with_loss(input, label, head_weight, tail_weights, cutoffs,
                                   head_bias=None, name=None):
    """The adaptive softmax's log-probability of each ``label`` and their negated mean:
    ``(output, loss)``. The head ([in, shortlist + clusters], ``head_bias``) scores the
    shortlist classes and the clusters; cluster i's classes ``cutoffs[i]..cutoffs[i+1]`` are
    scored by ``tail_weights[i]``, two [in, hidden] and [hidden, size] projections.

        >>> import mutograd.compat.paddle as paddle
        >>> x = paddle.ones([2, 4])
        >>> head, tail = paddle.zeros([4, 3]), [[paddle.zeros([4, 2]), paddle.zeros([2, 2])]]
        >>> out, loss = paddle.nn.functional.adaptive_log_softmax_with_loss(
        ...     x, paddle.to_tensor([0, 3]), head, tail, [2, 4])
        >>> [round(v, 4) for v in out.tolist()], round(loss.item(), 4)
        ([-1.0986, -1.7918], 1.4452)
    """
    lab = np.asarray(label.numpy() if isinstance(label, _mg.Tensor) else label)
    if lab.ndim == 1:
        if input.ndim != 2:
            raise ValueError(f"1D label tensor expects 2D input tensors, but found inputs with "
                             f"size {list(input.shape)}")
        if input.shape[0] != lab.shape[0]:
            raise ValueError("Input and label should have the same size in the batch "
                             "dimension.")
    elif lab.ndim == 0:
        if input.ndim != 1:
            raise ValueError(f"0D label tensor expects 1D input tensors, but found inputs with "
                             f"size {list(input.shape)}")
    else:
        raise ValueError("0D or 1D label tensor expected, multi-label not supported")
    batched = lab.ndim == 1
    x = input if batched else input.unsqueeze(0)
    lab = lab.reshape(-1).astype(np.int64)
    bounds = [0] + [int(c) for c in cutoffs]
    if lab.size and (lab.min() < 0 or lab.max() >= bounds[-1]):
        raise ValueError(f"label values should be in [0, n_classes - 1], but values in range "
                         f"[{lab.min()}, {lab.max()}] were found. ")
    # each row's head column: its class in the shortlist, else its cluster's
    cluster = np.searchsorted(np.asarray(bounds[1:]), lab, side="right")
    column = np.where(cluster == 0, lab, bounds[1] + cluster - 1)
    head = _mg.log_softmax(linear(x, head_weight, head_bias), axis=1)
    output = _mg.take_along_axis(head, _mg.to_tensor(column[:, None]), axis=1).squeeze(1)
    for i, (w_in, w_out) in enumerate(tail_weights, start=1):
        rows = np.flatnonzero(cluster == i)
        if rows.size == 0:
            continue
        rows_t = _mg.to_tensor(rows)
        logprob = _mg.log_softmax(_mg.matmul(_mg.matmul(x[rows_t], w_in), w_out), axis=1)
        local = _mg.take_along_axis(logprob, _mg.to_tensor((lab[rows] - bounds[i])[:, None]),
                                    axis=1).squeeze(1)
        output = output + _mg.zeros([lab.size], dtype=x.dtype).index_add(0, rows_t, local)
    loss = (-output).mean()
    return (output if batched else output.squeeze(0)), loss
