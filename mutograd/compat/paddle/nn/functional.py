"""``paddle.nn.functional``: activations (with their ``_`` in-place forms), softmax with ``axis``.

    >>> import mutograd.compat.paddle as paddle
    >>> import mutograd.compat.paddle.nn.functional as F
    >>> x = paddle.to_tensor([-1., 2.])
    >>> F.relu_(x) is x
    True
"""
import mutograd as _mg

from ....nn import functional as _F
from ....ops.registry import OPS as _OPS
from ....ops.registry import call as _call

relu, relu_, relu6 = _mg.relu, _mg.relu_, _mg.relu6
sigmoid, tanh, tanh_, silu = _mg.sigmoid, _mg.tanh, _mg.tanh_, _mg.silu


def leaky_relu(x, negative_slope=0.01, name=None):
    """max(x, 0) + negative_slope * min(x, 0)."""
    return _mg.leaky_relu(x, negative_slope)


def leaky_relu_(x, negative_slope=0.01, name=None):
    """:func:`leaky_relu` written into ``x``; returns ``x``."""
    return _mg.leaky_relu_(x, negative_slope)


def elu(x, alpha=1.0, name=None):
    """ELU with ``alpha``."""
    return _mg.elu(x, alpha)


def elu_(x, alpha=1.0, name=None):
    """:func:`elu` written into ``x``; returns ``x``."""
    return _mg.elu_(x, alpha)


# ---- the rest of Paddle's functional in-place APIs (docs/inplace_api.md) -------------------
def hardtanh(x, min=-1.0, max=1.0, name=None):
    """``clip(x, min, max)`` as an activation."""
    return _mg.hardtanh(x, min, max)


def hardtanh_(x, min=-1.0, max=1.0, name=None):
    """:func:`hardtanh` written into ``x``; returns ``x``."""
    return _mg.hardtanh_(x, min, max)


def thresholded_relu(x, threshold=1.0, value=0.0, name=None):
    """``x`` where ``x > threshold``, else ``value``."""
    return _mg.thresholded_relu(x, threshold, value)


def thresholded_relu_(x, threshold=1.0, value=0.0, name=None):
    """:func:`thresholded_relu` written into ``x``; returns ``x``."""
    return _mg.thresholded_relu_(x, threshold, value)


def softmax_(x, axis=-1, dtype=None, name=None):
    """:func:`softmax` written into ``x`` (cast to ``dtype`` first); returns ``x``."""
    if dtype is not None:
        _mg.cast_(x, dtype)
    return _mg.softmax_(x, axis=axis)


def embedding_renorm_(x, weight, max_norm, norm_type=2.0):
    """Scale the rows of ``weight`` that the indices ``x`` name to norm ``max_norm``; returns
    ``weight``."""
    return _mg.embedding_renorm_(weight, x, max_norm, norm_type)


celu, selu, mish, hardsigmoid, hardswish = (_mg.celu, _mg.selu, _mg.mish, _mg.hardsigmoid,
                                             _mg.hardswish)


def rrelu(x, lower=1.0 / 8.0, upper=1.0 / 3.0, training=True, name=None):
    """Leaky ReLU with a random slope in ``[lower, upper]`` while training (Paddle's default)."""
    return _mg.rrelu(x, lower, upper, training)


def gelu(x, approximate=False, name=None):
    """GELU; ``approximate=True`` uses the tanh approximation."""
    return _mg.gelu(x, approximate="tanh" if approximate else "none")


def softplus(x, beta=1, threshold=20, name=None):
    """log(1 + exp(beta * x)) / beta, linear above ``threshold``."""
    return _mg.softplus(x, beta=beta, threshold=threshold)


def softmax(x, axis=-1, dtype=None, name=None):
    """Softmax along ``axis``."""
    return _mg.softmax(x, axis=axis, dtype=dtype)


def log_softmax(x, axis=-1, dtype=None, name=None):
    """Log-softmax along ``axis``."""
    return _mg.log_softmax(x, axis=axis, dtype=dtype)


# ---- layers and losses with Paddle's signatures --------------------------------------------

binary_cross_entropy = _F.binary_cross_entropy
binary_cross_entropy_with_logits = _F.binary_cross_entropy_with_logits
adaptive_avg_pool2d = _F.adaptive_avg_pool2d
mse_loss, l1_loss = _F.mse_loss, _F.l1_loss


def linear(x, weight, bias=None, name=None):
    """``x @ weight + bias`` with ``weight`` of shape [in_features, out_features] (Paddle)."""
    out = _mg.matmul(x, weight)
    if bias is not None:
        out.add_(bias)      # the product is ours: add the bias without a new buffer
    return out


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCHW", name=None):
    """2-D convolution of NCHW input with [out, in/groups, kh, kw] weights."""
    if data_format != "NCHW":
        raise ValueError("conv2d: only data_format='NCHW' is supported")
    return _F.conv2d(x, weight, bias, stride, padding, dilation, groups)


def max_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, return_mask=False,
               data_format="NCHW", name=None):
    """Maximum over windows."""
    return _F.max_pool2d(x, kernel_size, stride, padding, 1, ceil_mode, return_mask)


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCHW", name=None):
    """Mean over windows; ``exclusive=True`` (the default) leaves padding out of the mean."""
    return _F.avg_pool2d(x, kernel_size, stride, padding, ceil_mode, not exclusive,
                         divisor_override)


def dropout(x, p=0.5, axis=None, training=True, mode="upscale_in_train", name=None):
    """Zero elements with probability ``p`` and scale the rest (``upscale_in_train``)."""
    if axis is not None or mode != "upscale_in_train":
        raise ValueError("dropout: only axis=None and mode='upscale_in_train' are supported")
    return _F.dropout(x, p, training)


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
    variance takes the biased batch variance (Paddle)."""
    return _F.batch_norm(x, running_mean, running_var, weight, bias, training, 1 - momentum,
                         epsilon, var_ddof=0)


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
    return _F.cross_entropy(x, label, weight, ignore_index, reduction, label_smoothing)


def nll_loss(input, label, weight=None, ignore_index=-100, reduction="mean", name=None):
    """Negative log-likelihood of log-probabilities ``input`` (N, C, ...)."""
    return _F.nll_loss(input, _label(input, label, 1), weight, ignore_index, reduction)


def smooth_l1_loss(input, label, reduction="mean", delta=1.0, name=None):
    """Paddle's smooth L1 (Huber): ``0.5 d^2`` where ``|d| < delta``, else
    ``delta * |d| - 0.5 delta^2``."""
    loss = _F.smooth_l1_loss(input, label, "none", beta=delta) * delta
    return _F._reduce(loss, reduction)
