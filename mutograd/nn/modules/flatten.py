"""Shape layers: ``Flatten`` (axes into one) and ``Unflatten`` (one axis into a shape).

    >>> import mutograd as mg
    >>> from mutograd import nn
    >>> nn.Unflatten(1, (2, 3))(nn.Flatten()(mg.randn([4, 2, 3]))).shape
    [4, 2, 3]
"""


from ... import ops
from ..module import Module


class Unflatten(Module):
    """Split axis ``dim`` into ``unflattened_size`` (a view when the strides allow)."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if not isinstance(dim, int):
            raise TypeError(f"invalid type for dim: {type(dim).__name__} (int expected; named "
                            f"dimensions are not available)")
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input):
        d = self.dim % input.ndim
        return input.reshape(*input.shape[:d], *self.unflattened_size, *input.shape[d + 1:])

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Flatten(Module):
    """Flatten axes ``start_dim`` .. ``end_dim`` (a view when the strides allow)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"

    def forward(self, input):
        return ops.call(ops.OPS["flatten"], [input], {"start_axis": self.start_dim,
                                                  "stop_axis": self.end_dim})
