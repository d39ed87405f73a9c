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
from ....nn import functional as _nf
from ....nn.functional.attention import scaled_dot_product_attention  # noqa: F401

# the rest of mutograd.nn.functional (its signatures are PyTorch's); the names below override
globals().update({k: v for k, v in vars(_nf).items()
                  if not k.startswith("_") and callable(v) and getattr(v, "__module__", "")
                  .startswith("mutograd.") and k not in globals()})

relu_, relu6_, elu_ = _mg.relu_, _mg.relu6_, _mg.elu_
leaky_relu_ = _mg.leaky_relu_
sigmoid, tanh, gelu = _mg.sigmoid, _mg.tanh, _mg.gelu


# PyTorch's ``inplace=`` activations and dropouts (relu, celu, hardtanh, dropout2d, ... come
# with the rest of mutograd.nn.functional above), their ``X_`` forms (docs/inplace_api.md)
from ....nn.functional.activation import celu_, hardtanh_, selu_, threshold_  # noqa: E402, F401
from ....nn.functional.dropouts import (  # noqa: E402, F401
    alpha_dropout, feature_alpha_dropout, rrelu, rrelu_)


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
