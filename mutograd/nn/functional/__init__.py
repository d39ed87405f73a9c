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

One module per concern: ``activation``, ``dropouts``, ``dense`` (linear, bilinear), ``conv``,
``pooling``, ``normalization``, ``sparse`` (embeddings), ``padding``, ``interpolation``,
``vision``, ``attention``, ``distance``, ``loss``, ``margin_loss``, ``ctc``; shared argument
forms in ``arguments``. This file only gathers their public names.
"""
# names this namespace has always shown (the torch dialect copies its public callables)
from ...autograd.grad_mode import no_grad  # noqa: F401
from ...errors import ShapeError  # noqa: F401
from ...ops import OPS, call, call_inplace  # noqa: F401
from ...tensor import Tensor  # noqa: F401
# activations (``inplace=`` through one runner), softmin, gumbel_softmax, glu, prelu
from .activation import (  # noqa: F401
    celu, elu, elu_, gelu, glu, gumbel_softmax, hardshrink, hardsigmoid, hardswish, hardtanh,
    leaky_relu, leaky_relu_, log_softmax, logsigmoid, mish, prelu, relu, relu6, relu_, selu,
    sigmoid, silu, softmax, softmin, softplus, softshrink, softsign, tanh, tanhshrink, threshold)
# dropouts (the mask drawn on the input's place)
from .dropouts import dropout, dropout1d, dropout2d, dropout3d  # noqa: F401
# linear and bilinear maps
from .dense import bilinear, linear  # noqa: F401
# convolutions over 1, 2 or 3 dimensions and their transposes
from .conv import (  # noqa: F401
    conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d, conv_transpose3d)
# max, average, power-average, adaptive and fractional poolings; max unpooling
from .pooling import (  # noqa: F401
    adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d, adaptive_max_pool1d,
    adaptive_max_pool1d_with_indices, adaptive_max_pool2d, adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d, adaptive_max_pool3d_with_indices, avg_pool1d, avg_pool2d, avg_pool3d,
    fractional_max_pool2d, fractional_max_pool2d_with_indices, fractional_max_pool3d,
    fractional_max_pool3d_with_indices, lp_pool1d, lp_pool2d, lp_pool3d, max_pool1d,
    max_pool1d_with_indices, max_pool2d, max_pool2d_with_indices, max_pool3d,
    max_pool3d_with_indices, max_unpool1d, max_unpool2d, max_unpool3d)
# batch, layer, group, RMS, instance and local response normalisation
from .normalization import (  # noqa: F401
    batch_norm, group_norm, instance_norm, layer_norm, local_response_norm, rms_norm)
# embeddings and one-hot
from .sparse import embedding, embedding_bag, one_hot  # noqa: F401
# padding
from .padding import pad  # noqa: F401
# resizing
from .interpolation import interpolate, upsample, upsample_bilinear, upsample_nearest  # noqa: F401
# pixel and channel shuffles, fold/unfold, affine grids, grid sampling
from .vision import (  # noqa: F401
    affine_grid, channel_shuffle, fold, grid_sample, native_channel_shuffle, pixel_shuffle,
    pixel_unshuffle, unfold)
# distances
from .distance import cosine_similarity, pairwise_distance, pdist  # noqa: F401
# classification and regression losses
from .loss import (  # noqa: F401
    _reduce, binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy,
    gaussian_nll_loss, huber_loss, kl_div, l1_loss, linear_cross_entropy, mse_loss, nll_loss,
    poisson_nll_loss, smooth_l1_loss)
# margin, ranking and embedding losses
from .margin_loss import (  # noqa: F401
    cosine_embedding_loss, hinge_embedding_loss, margin_ranking_loss, multi_margin_loss,
    multilabel_margin_loss, multilabel_soft_margin_loss, soft_margin_loss, triplet_margin_loss,
    triplet_margin_with_distance_loss)
# the CTC loss
from .ctc import ctc_loss  # noqa: F401
# scaled dot-product and multi-head attention
from .attention import multi_head_attention_forward, scaled_dot_product_attention  # noqa: F401

__all__ = [
    "celu", "dropout1d", "dropout2d", "dropout3d", "hardshrink", "hardsigmoid", "hardswish",
    "hardtanh", "huber_loss", "interpolate", "logsigmoid", "mish", "prelu", "selu", "softplus",
    "softshrink", "softsign", "tanhshrink", "threshold", "adaptive_avg_pool2d", "avg_pool2d",
    "batch_norm", "binary_cross_entropy", "binary_cross_entropy_with_logits", "conv1d", "conv2d",
    "conv_transpose2d", "cosine_similarity", "cross_entropy", "dropout", "elu", "elu_", "embedding",
    "gelu", "glu", "group_norm", "kl_div", "l1_loss", "layer_norm", "leaky_relu", "leaky_relu_",
    "linear", "log_softmax", "max_pool2d", "mse_loss", "nll_loss", "one_hot", "pad", "relu",
    "relu6", "relu_", "rms_norm", "sigmoid", "silu", "smooth_l1_loss", "softmax", "tanh",
    "adaptive_avg_pool1d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d", "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "avg_pool1d", "avg_pool3d", "conv3d",
    "conv_transpose1d", "conv_transpose3d", "fractional_max_pool2d",
    "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices", "lp_pool1d", "lp_pool2d", "lp_pool3d", "max_pool1d",
    "max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d", "max_pool3d_with_indices",
    "max_unpool1d", "max_unpool2d", "max_unpool3d",
]
