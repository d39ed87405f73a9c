"""``paddle.nn.functional``: activations (with their ``_`` in-place forms), softmax with ``axis``.

    >>> import mutograd.compat.paddle as paddle
    >>> import mutograd.compat.paddle.nn.functional as F
    >>> x = paddle.to_tensor([-1., 2.])
    >>> F.relu_(x) is x
    True
"""
import mutograd as _mg

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
