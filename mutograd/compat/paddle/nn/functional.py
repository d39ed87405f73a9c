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
