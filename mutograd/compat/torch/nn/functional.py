"""``torch.nn.functional``: activations with PyTorch's ``inplace=`` flag, softmax with ``dim``.

    >>> import mutograd.compat.torch as torch
    >>> import mutograd.compat.torch.nn.functional as F
    >>> x = torch.tensor([-1., 2.])
    >>> F.relu(x, inplace=True) is x
    True
"""
import mutograd as _mg

# layers and losses: mutograd.nn.functional's signatures are PyTorch's
from ....nn.functional import (  # noqa: F401
    adaptive_avg_pool2d,
    avg_pool2d,
    batch_norm,
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    conv1d,
    conv2d,
    conv_transpose2d,
    cosine_similarity,
    cross_entropy,
    dropout,
    embedding,
    glu,
    group_norm,
    interpolate,
    kl_div,
    l1_loss,
    layer_norm,
    linear,
    max_pool2d,
    mse_loss,
    nll_loss,
    one_hot,
    pad,
    rms_norm,
    smooth_l1_loss,
)
from ..._common import activation as _act
from ....nn import functional as _nf
from ....nn.attention import scaled_dot_product_attention  # noqa: F401

# the rest of mutograd.nn.functional (its signatures are PyTorch's); the names below override
globals().update({k: v for k, v in vars(_nf).items()
                  if not k.startswith("_") and callable(v) and getattr(v, "__module__", "")
                  .startswith("mutograd.") and k not in globals()})

relu = _act("relu", "max(x, 0); ``inplace=True`` writes into ``input`` and returns it.")
relu6 = _act("relu6", "min(max(x, 0), 6); ``inplace=True`` writes into ``input``.")
elu = _act("elu", "ELU with ``alpha``; ``inplace=True`` writes into ``input``.")
silu = _act("silu", "x * sigmoid(x); ``inplace=True`` writes into ``input``.")
relu_, relu6_, elu_ = _mg.relu_, _mg.relu6_, _mg.elu_
leaky_relu_ = _mg.leaky_relu_
sigmoid, tanh, gelu = _mg.sigmoid, _mg.tanh, _mg.gelu


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """max(x, 0) + negative_slope * min(x, 0); ``inplace=True`` writes into ``input``."""
    return (_mg.leaky_relu_ if inplace else _mg.leaky_relu)(input, negative_slope)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Clamp to ``[min_val, max_val]``; ``inplace=True`` writes into ``input``."""
    return (_mg.clamp_ if inplace else _mg.clamp)(input, min_val, max_val)


# ---- the rest of PyTorch's ``inplace=`` activations and dropouts (docs/inplace_api.md) ------
from ....ops import functional_inplace as _fi  # noqa: E402 (here, apart from the imports above)

celu, selu, mish, hardsigmoid, threshold, rrelu = (_fi.celu, _fi.selu, _fi.mish,
                                                   _fi.hardsigmoid, _fi.threshold, _fi.rrelu)
# dropout itself comes from mutograd.nn.functional (imported above), with the same signature
dropout1d, dropout2d, dropout3d = _fi.dropout1d, _fi.dropout2d, _fi.dropout3d
alpha_dropout, feature_alpha_dropout = _fi.alpha_dropout, _fi.feature_alpha_dropout
hardswish = _act("hardswish", "x * relu6(x + 3) / 6; ``inplace=True`` writes into ``input``.")


def celu_(input, alpha=1.0):
    """In-place :func:`celu`; returns ``input``."""
    return _fi.celu(input, alpha, inplace=True)


def selu_(input):
    """In-place :func:`selu`; returns ``input``."""
    return _fi.selu(input, inplace=True)


def threshold_(input, threshold, value):
    """In-place :func:`threshold`; returns ``input``."""
    return _fi.threshold(input, threshold, value, inplace=True)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place :func:`hardtanh`; returns ``input``."""
    return _fi.hardtanh(input, min_val, max_val, inplace=True)


rrelu_ = _fi.rrelu_


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta * x)) / beta, linear above ``threshold``."""
    return _mg.softplus(input, beta=beta, threshold=threshold)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Softmax along ``dim``."""
    return _mg.softmax(input, dim=-1 if dim is None else dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Log-softmax along ``dim``."""
    return _mg.log_softmax(input, dim=-1 if dim is None else dim, dtype=dtype)



def normalize(input, p=2.0, dim=1, eps=1e-12):
    """``input / max(||input||_p along dim, eps)``."""
    n = _mg.norm(input, p, dim, keepdim=True)
    return input / _mg.clamp_min(n, eps)


# vision ops, normalisations, bags, bilinear and more activations of mutograd.nn.functional
from ....nn.functional import (  # noqa: E402, F401
    affine_grid, bilinear, channel_shuffle, embedding_bag, fold, grid_sample, gumbel_softmax,
    hardshrink, huber_loss, instance_norm, linear_cross_entropy, local_response_norm, logsigmoid,
    native_channel_shuffle, pixel_shuffle, pixel_unshuffle, prelu, softmin, softshrink, softsign,
    tanhshrink, unfold, upsample, upsample_bilinear, upsample_nearest)
