"""``paddle.sparse.nn``: the layers of sparse tensors that act on the stored values (``ReLU``,
``ReLU6``, ``LeakyReLU``, ``Softmax``).

    >>> import mutograd.compat.paddle as paddle
    >>> s = paddle.sparse.sparse_coo_tensor([[0, 0], [0, 1]], [-1.0, 2.0], [1, 2])
    >>> paddle.sparse.nn.ReLU()(s).values().tolist()
    [0.0, 2.0]
"""
from ...nn.layers import Layer
from . import functional

__all__ = ["LeakyReLU", "ReLU", "ReLU6", "Softmax", "functional"]


class ReLU(Layer):
    """``max(v, 0)`` of each stored value."""

    def __init__(self, name=None):
        super().__init__()

    def forward(self, x):
        return functional.relu(x)


class ReLU6(Layer):
    """``min(max(v, 0), 6)`` of each stored value."""

    def __init__(self, name=None):
        super().__init__()

    def forward(self, x):
        return functional.relu6(x)


class LeakyReLU(Layer):
    """``v`` or ``negative_slope * v`` of each stored value."""

    def __init__(self, negative_slope=0.01, name=None):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x):
        return functional.leaky_relu(x, self.negative_slope)


class Softmax(Layer):
    """The softmax over the stored entries along ``axis`` (the last)."""

    def __init__(self, axis=-1, name=None):
        super().__init__()
        self.axis = axis

    def forward(self, x):
        return functional.softmax(x, self.axis)
