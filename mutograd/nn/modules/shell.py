"""The base of the layers that are a thin shell over one ``nn.functional`` function.

    >>> import mutograd as mg
    >>> mg.nn.GLU(dim=0)
    GLU(dim=0)
"""
from ..module import Module


class FunctionShell(Module):
    """A layer whose ``forward(input)`` is ``fn(input, *settings)``: ``settings`` names the
    attributes the constructor stores, passed in that order and shown by the repr
    (``name=value``)."""
    fn = None
    settings = ()

    def forward(self, input):
        return type(self).fn(input, *[getattr(self, s) for s in self.settings])

    def extra_repr(self):
        return ", ".join(f"{s}={getattr(self, s)}" for s in self.settings)
