"""Padding layers: constant, zero, reflection, replication and circular padding of the last one,
two or three axes (PyTorch's ``nn.ConstantPad2d`` ...), all through ``F.pad``.

    >>> import mutograd as mg
    >>> mg.nn.ReflectionPad1d((2, 1))(mg.tensor([[[1., 2., 3.]]])).tolist()
    [[[3.0, 2.0, 1.0, 2.0, 3.0, 2.0]]]
"""
from .. import functional as F
from ..module import Module

__all__ = []


class _Pad(Module):
    """Padding of the last ``n`` axes by ``mode``; ``padding`` an int or ``2 * n`` ints."""

    mode, n, value = "constant", 1, 0.0

    def __init__(self, padding):
        super().__init__()
        if isinstance(padding, int):
            padding = (padding,) * (2 * self.n)
        padding = tuple(int(p) for p in padding)
        if len(padding) != 2 * self.n:
            raise ValueError(f"{type(self).__name__}: padding must be an int or "
                             f"{2 * self.n} ints, got {padding}")
        self.padding = padding

    def forward(self, input):
        # PyTorch's padding modules accept the unbatched form, one dimension fewer
        if input.ndim not in (self.n + 1, self.n + 2):
            raise ValueError(f"{type(self).__name__}: expected {self.n + 1}D or {self.n + 2}D "
                             f"input, got {input.ndim}D")
        if self.mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_Pad):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class _ReflectionPadNd(_Pad):
    mode = "reflect"


class _ReplicationPadNd(_Pad):
    mode = "replicate"


class _CircularPadNd(_Pad):
    mode = "circular"


def _make(prefix, base, n, doc):
    name = f"{prefix}{n}d"
    cls = type(name, (base,), {"n": n, "__doc__": doc.format(n=n), "__module__": __name__})
    globals()[name] = cls
    __all__.append(name)


for _n in (1, 2, 3):
    _make("ConstantPad", _ConstantPadNd, _n, "Pad the last {n} axes with ``value``.")
    _make("ZeroPad", _ZeroPadNd, _n, "Pad the last {n} axes with zeros.")
    _make("ReflectionPad", _ReflectionPadNd, _n, "Pad the last {n} axes with their mirror "
          "image (the edge not repeated).")
    _make("ReplicationPad", _ReplicationPadNd, _n, "Pad the last {n} axes by repeating the "
          "edge.")
    _make("CircularPad", _CircularPadNd, _n, "Pad the last {n} axes by wrapping around.")
