"""``paddle.static``: ``InputSpec``, the declaration of an input's shape, dtype and name that
``paddle.Model(network, inputs, labels)`` and ``paddle.summary`` take. mutograd runs eagerly, so
there are no programs here; a spec only describes what a batch looks like (``None`` or -1 for
a size that varies, the batch size).

    >>> import mutograd.compat.paddle as paddle
    >>> paddle.static.InputSpec([None, 784], "float32", "image")
    InputSpec(shape=(-1, 784), dtype=paddle.float32, name=image, stop_gradient=False)
"""
from ...dtypes import to_numpy
from .tensor import DTYPES


class InputSpec:
    """The shape (``None`` is stored as -1), dtype and name of one input."""

    def __init__(self, shape, dtype="float32", name=None, stop_gradient=False):
        if isinstance(shape, int):
            shape = [shape]
        if not isinstance(shape, (list, tuple)):
            raise TypeError(f"InputSpec: shape should be a list or tuple, got "
                            f"{type(shape).__name__}")
        self.shape = tuple(-1 if d is None else int(d) for d in shape)
        self.dtype = DTYPES[to_numpy(dtype)]
        self.name = name
        self.stop_gradient = stop_gradient

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of ``tensor`` (its shape and dtype)."""
        return cls(list(tensor.shape), tensor.dtype, name)

    @classmethod
    def from_numpy(cls, ndarray, name=None):
        """The spec of a NumPy array."""
        return cls(list(ndarray.shape), str(ndarray.dtype), name)

    def batch(self, batch_size):
        """Put ``batch_size`` in front of the shape (in place, as Paddle; returns the spec)."""
        self.shape = (int(batch_size),) + self.shape
        return self

    def unbatch(self):
        """Drop the first dimension (in place; returns the spec)."""
        if not self.shape:
            raise ValueError("Not support to unbatch a InputSpec when len(shape) == 0.")
        self.shape = self.shape[1:]
        return self

    def __repr__(self):
        return (f"InputSpec(shape={self.shape}, dtype={self.dtype!r}, name={self.name}, "
                f"stop_gradient={self.stop_gradient})")

    def __eq__(self, other):
        return (type(other) is type(self) and self.shape == other.shape
                and self.dtype == other.dtype and self.name == other.name
                and self.stop_gradient == other.stop_gradient)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.name, self.stop_gradient))


__all__ = ["InputSpec"]
