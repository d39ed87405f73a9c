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
    mode, n = "constant", 1

    def __init__(self, padding, value=0.0):
        super().__init__()
        if isinstance(padding, int):
            padding = (padding,) * (2 * self.n)
        padding = tuple(int(p) for p in padding)
        if len(padding) != 2 * self.n:
            raise ValueError(f"{type(self).__name__}: padding must be an int or "
                             f"{2 * self.n} ints, got {padding}")
        self.padding, self.value = padding, value

    def forward(self, x):
        # PyTorch's padding modules accept the unbatched form, one dimension fewer
        if x.ndim not in (self.n + 1, self.n + 2):
            raise ValueError(f"{type(self).__name__}: expected {self.n + 1}D or {self.n + 2}D "
                             f"input, got {x.ndim}D")
        if self.mode == "constant":
            return F.pad(x, self.padding, "constant", self.value)
        return F.pad(x, self.padding, self.mode)

    def extra_repr(self):
        return f"{self.padding}" + (f", value={self.value}" if self.mode == "constant" else "")


def _make(prefix, mode, n, doc, value=None):
    name = f"{prefix}{n}d"
    attrs = {"mode": mode, "n": n, "__doc__": doc.format(n=n)}
    if value is not None:       # ZeroPad: no ``value`` argument
        def __init__(self, padding):
            _Pad.__init__(self, padding, 0.0)
        attrs["__init__"] = __init__
    cls = type(name, (_Pad,), attrs)
    cls.__module__ = __name__
    globals()[name] = cls
    __all__.append(name)


for _n in (1, 2, 3):
    _make("ConstantPad", "constant", _n, "Pad the last {n} axes with ``value``.")
    _make("ZeroPad", "constant", _n, "Pad the last {n} axes with zeros.", value=0.0)
    _make("ReflectionPad", "reflect", _n, "Pad the last {n} axes with their mirror image "
          "(the edge not repeated).")
    _make("ReplicationPad", "replicate", _n, "Pad the last {n} axes by repeating the edge.")
    _make("CircularPad", "circular", _n, "Pad the last {n} axes by wrapping around.")
