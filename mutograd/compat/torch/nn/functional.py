"""``torch.nn.functional``: activations with PyTorch's ``inplace=`` flag, softmax with ``dim``.

    >>> import mutograd.compat.torch as torch
    >>> import mutograd.compat.torch.nn.functional as F
    >>> x = torch.tensor([-1., 2.])
    >>> F.relu(x, inplace=True) is x
    True
"""
import mutograd as _mg

from ..._common import activation as _act

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


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta * x)) / beta, linear above ``threshold``."""
    return _mg.softplus(input, beta=beta, threshold=threshold)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Softmax along ``dim``."""
    return _mg.softmax(input, dim=-1 if dim is None else dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Log-softmax along ``dim``."""
    return _mg.log_softmax(input, dim=-1 if dim is None else dim, dtype=dtype)
