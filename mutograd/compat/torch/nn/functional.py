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


from .._aten_nn import conv_tbc  # noqa: E402, F401


def grouped_mm(mat_a, mat_b, *, offs=None, bias=None, out_dtype=None):
    """Matrix products of groups: 3-D with 3-D is a batched product; with ``offs`` (the groups'
    cumulative ends), 2-D ``mat_a`` rows times each matrix of 3-D ``mat_b``, 3-D ``mat_a``
    times column groups of 2-D ``mat_b``, or 2-D with 2-D split along the shared dimension
    (a 3-D result)."""
    if bias is not None:
        raise ValueError("grouped_mm: bias is not supported (as in PyTorch); add it after")
    if mat_a.ndim == 3 and mat_b.ndim == 3:
        out = mat_a @ mat_b
    else:
        if offs is None:
            raise ValueError("grouped_mm: offs is needed unless both inputs are 3-D")
        ends = [int(e) for e in offs.tolist()]
        bounds = list(zip([0] + ends[:-1], ends))
        if mat_a.ndim == 2 and mat_b.ndim == 3:
            out = _mg.cat([mat_a[s:e] @ mat_b[g] for g, (s, e) in enumerate(bounds)], 0)
        elif mat_a.ndim == 3 and mat_b.ndim == 2:
            out = _mg.cat([mat_a[g] @ mat_b[:, s:e] for g, (s, e) in enumerate(bounds)], 1)
        else:
            out = _mg.stack([mat_a[:, s:e] @ mat_b[s:e] for s, e in bounds], 0)
    return out if out_dtype is None else out.to(out_dtype)
