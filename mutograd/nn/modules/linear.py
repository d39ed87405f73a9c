"""Dense layers: ``Identity``, ``Linear`` (``x W^T + b``) and ``Bilinear`` (``x1^T A x2 + b``),
with PyTorch's parameter shapes and initialisation.

    >>> import mutograd as mg
    >>> lin = mg.nn.Linear(3, 2)
    >>> lin.weight.shape, lin(mg.randn([4, 3])).shape
    ([2, 3], [4, 2])
"""
import math

from ...ops.creation import empty
from .. import functional as F
from .. import init
from ..module import Module, Parameter


# ---- layers with parameters ----------------------------------------------------------------
def _uniform_bias(bias, fan_in):
    if bias is not None:
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        init.uniform_(bias, -bound, bound)


def weight_and_bias(module, weight_shape, bias, out_features, dtype, device=None):
    """Give ``module`` an uninitialised ``weight`` of ``weight_shape`` and, when ``bias``, a
    ``bias`` of ``out_features`` (else ``bias`` is None), in that order."""
    module.weight = Parameter(empty(list(weight_shape), dtype=dtype, device=device))
    if bias:
        module.bias = Parameter(empty([out_features], dtype=dtype, device=device))
    else:
        module.register_parameter("bias", None)


class Linear(Module):
    """``y = x W^T + b`` with W of shape (out_features, in_features)."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        weight_and_bias(self, [out_features, in_features], bias, out_features, dtype, device)
        self.reset_parameters()

    def reset_parameters(self):
        """PyTorch's default: kaiming_uniform_(a=sqrt(5)) weights, U(+-1/sqrt(fan_in)) bias."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        _uniform_bias(self.bias, self.in_features)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class NonDynamicallyQuantizableLinear(Linear):
    """The ``out_proj`` of :class:`MultiheadAttention`: a Linear under PyTorch's name for it
    (which ``print(model)`` shows)."""


class Identity(Module):
    """Returns its input (the same object)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Bilinear(Module):
    """``y = x1^T A x2 + b``: weight (out_features, in1_features, in2_features), bias
    (out_features), both U(-1/sqrt(in1_features), 1/sqrt(in1_features)) as PyTorch."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        weight_and_bias(self, [out_features, in1_features, in2_features], bias, out_features,
                        dtype, device)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
