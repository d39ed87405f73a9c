"""Activation layers: ReLU and its relatives (with PyTorch's ``inplace=`` flag), sigmoid,
tanh, softmax and log-softmax, softplus, the shrinks, PReLU, GLU, RReLU, Threshold, Softmin and
Softmax2d; each a thin shell over ``nn.functional``.

    >>> import mutograd as mg
    >>> x = mg.tensor([-1.0, 2.0])
    >>> mg.nn.ReLU(inplace=True)(x) is x, mg.nn.Softmin(dim=0)(mg.tensor([0., 0.])).tolist()
    (True, [0.5, 0.5])
"""
import inspect

from ...ops.creation import ones
from .. import functional as F
from ..functional import dropouts as _dropouts
from ..module import Module, Parameter
from .shell import FunctionShell


# ---- activations ---------------------------------------------------------------------------
class _Activation(Module):
    """A module over an ``inplace=`` activation ``fn(x, *settings, inplace=...)`` of
    nn.functional: ``settings`` names the attributes passed before ``inplace``."""
    fn = None
    settings = ()

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return type(self).fn(input, *[getattr(self, s) for s in self.settings],
                             inplace=self.inplace)

    def extra_repr(self):
        # PyTorch's text: each setting by name, then ``inplace=True`` only when set
        shown = [f"{s}={getattr(self, s)}" for s in self.settings]
        return ", ".join(shown + (["inplace=True"] if self.inplace else []))


class ReLU(_Activation):
    """``max(x, 0)``; ``inplace=True`` writes into the input (ReLU saves its output, so the
    in-place form keeps no extra memory)."""
    fn = staticmethod(F.relu)


class ReLU6(_Activation):
    """``min(max(x, 0), 6)``."""
    fn = staticmethod(F.relu6)


class SiLU(_Activation):
    """``x * sigmoid(x)`` (in place it keeps a copy of the input for backward)."""
    fn = staticmethod(F.silu)


class LeakyReLU(_Activation):
    fn, settings = staticmethod(F.leaky_relu), ("negative_slope",)

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__(inplace)
        self.negative_slope = negative_slope


class ELU(_Activation):
    fn, settings = staticmethod(F.elu), ("alpha",)

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__(inplace)
        self.alpha = alpha


class GELU(Module):
    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Sigmoid(Module):
    def forward(self, input):
        return F.sigmoid(input)


class Tanh(Module):
    def forward(self, input):
        return F.tanh(input)


class Softmax(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    def forward(self, input):
        return F.log_softmax(input, self.dim)


# ---- losses --------------------------------------------------------------------------------
class Softplus(Module):
    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(_Activation):
    fn, settings = staticmethod(F.hardtanh), ("min_val", "max_val")

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None,
                 max_value=None):
        super().__init__(inplace)
        # ``min_value``/``max_value``: PyTorch's deprecated names, which win when given
        self.min_val = min_val if min_value is None else min_value
        self.max_val = max_val if max_value is None else max_value


class CELU(_Activation):
    fn, settings = staticmethod(F.celu), ("alpha",)

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__(inplace)
        self.alpha = alpha


class _Shrink(Module):
    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def extra_repr(self):
        return f"{self.lambd}"


class Softshrink(_Shrink):
    def forward(self, input):
        return F.softshrink(input, self.lambd)


class Hardshrink(_Shrink):
    def forward(self, input):
        return F.hardshrink(input, self.lambd)


def _simple(name, fn, doc, inplace="shown"):
    """A parameterless activation module over ``fn``: an ``inplace=`` activation is an
    :class:`_Activation`. Else, as PyTorch's module: ``inplace`` ``"shown"`` (an
    ``inplace=`` argument the repr shows), ``"hidden"`` (taken, not shown) or None (none)."""
    if "inplace" in inspect.signature(fn).parameters:
        attrs = {"fn": staticmethod(fn), "__doc__": doc}
        if inplace == "hidden":
            attrs["extra_repr"] = Module.extra_repr
        return type(name, (_Activation,), attrs)

    def forward(self, input):
        return fn(input)
    attrs = {"forward": forward, "__doc__": doc}
    if inplace is not None:
        def __init__(self, inplace=False):
            Module.__init__(self)
            self.inplace = inplace
        attrs["__init__"] = __init__
    if inplace == "shown":
        attrs["extra_repr"] = lambda self: "inplace=True" if self.inplace else ""
    return type(name, (Module,), attrs)


Mish = _simple("Mish", F.mish, "``x * tanh(softplus(x))``.")


Hardswish = _simple("Hardswish", F.hardswish, "``x * relu6(x + 3) / 6``.", "hidden")


Hardsigmoid = _simple("Hardsigmoid", F.hardsigmoid, "``relu6(x + 3) / 6``.", "hidden")


SELU = _simple("SELU", F.selu, "Scaled ELU.")


Softsign = _simple("Softsign", F.softsign, "``x / (1 + |x|)``.", None)


Tanhshrink = _simple("Tanhshrink", F.tanhshrink, "``x - tanh(x)``.", None)


LogSigmoid = _simple("LogSigmoid", F.logsigmoid, "``log(sigmoid(x))``.", None)


class PReLU(Module):
    """``x`` where positive, else a learned slope times ``x`` (one, or one per channel)."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.weight = Parameter(ones([num_parameters], dtype=dtype, device=device) * init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class Softmin(FunctionShell):
    """``softmax(-x)`` along ``dim``."""
    fn, settings = staticmethod(F.softmin), ("dim",)

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim


class Softmax2d(Module):
    """Softmax over the channels of (N, C, H, W) or (C, H, W)."""

    def forward(self, input):
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input of 3 or 4 dimensions, got {input.ndim}")
        return F.softmax(input, -3)


class Threshold(_Activation):
    """``x`` where ``x > threshold``, else ``value``."""
    fn, settings = staticmethod(F.threshold), ("threshold", "value")

    def __init__(self, threshold, value, inplace=False):
        super().__init__(inplace)
        self.threshold, self.value = threshold, value

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}" + (
            ", inplace=True" if self.inplace else "")


class GLU(FunctionShell):
    """The gated linear unit along ``dim``: ``a * sigmoid(b)`` of the two halves."""
    fn, settings = staticmethod(F.glu), ("dim",)

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim


class RReLU(_Activation):
    """Leaky ReLU with a slope drawn from U(lower, upper) in training, their mean in eval."""
    fn, settings = staticmethod(_dropouts.rrelu), ("lower", "upper", "training")

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__(inplace)
        self.lower, self.upper = lower, upper

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}" + (
            ", inplace=True" if self.inplace else "")
