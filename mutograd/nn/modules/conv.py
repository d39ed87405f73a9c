"""Convolution layers over 1, 2 or 3 spatial dimensions and their transposes, with PyTorch's
constructor signatures, parameter shapes, initialisation and padding modes.

    >>> import mutograd as mg
    >>> conv = mg.nn.Conv2d(1, 4, 3, padding=1, padding_mode="reflect")
    >>> conv.weight.shape, conv(mg.randn([2, 1, 5, 5])).shape
    ([4, 1, 3, 3], [2, 4, 5, 5])
"""
import math

from .. import functional as F
from .. import init
from ..functional.arguments import _single
from ..functional.conv import check_padding_mode, output_padding_for, pad_by_mode
from ..module import Module, Parameter
from .linear import _uniform_bias, weight_and_bias


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


class Conv2d(Module):
    """2-D convolution over (N, C, H, W) with stride, padding, dilation and groups."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", dtype=None):
        super().__init__()
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"in_channels ({in_channels}) and out_channels ({out_channels}) "
                             f"must be divisible by groups ({groups})")
        self.padding_mode = check_padding_mode(padding_mode)
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _pair(kernel_size)
        self.stride, self.dilation = _pair(stride), _pair(dilation)
        self.padding = padding if isinstance(padding, str) else _pair(padding)
        self.groups = groups
        weight_and_bias(self, [out_channels, in_channels // groups, *self.kernel_size], bias,
                        out_channels, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        fan_in = self.in_channels // self.groups * self.kernel_size[0] * self.kernel_size[1]
        _uniform_bias(self.bias, fan_in)

    def forward(self, x):
        if self.padding_mode != "zeros":
            x = pad_by_mode(x, self.padding, self.padding_mode, self.kernel_size, self.dilation)
            return F.conv2d(x, self.weight, self.bias, self.stride, 0, self.dilation,
                            self.groups)
        return F.conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups)

    def extra_repr(self):
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding not in ((0, 0), "valid"):
            s += f", padding={self.padding}"
        if self.dilation != (1, 1):
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        return s + ("" if self.bias is not None else ", bias=False")


class ConvTranspose2d(Module):
    """The transposed 2-D convolution; weight (in, out / groups, kh, kw), as PyTorch."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 dtype=None):
        super().__init__()
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"in_channels ({in_channels}) and out_channels ({out_channels}) "
                             f"must be divisible by groups ({groups})")
        if padding_mode != "zeros":
            raise ValueError(f"padding_mode {padding_mode!r} is not supported; use 'zeros'")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride = _pair(kernel_size), _pair(stride)
        self.padding, self.output_padding = _pair(padding), _pair(output_padding)
        self.dilation, self.groups = _pair(dilation), groups
        weight_and_bias(self, [in_channels, out_channels // groups, *self.kernel_size], bias,
                        out_channels, dtype)
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        # PyTorch's fan_in of this weight: dimension 1 times the kernel
        _uniform_bias(self.bias, out_channels // groups * self.kernel_size[0]
                      * self.kernel_size[1])

    def forward(self, x, output_size=None):
        output_padding = output_padding_for(x, output_size, self.output_padding, self.stride,
                                            self.padding, self.dilation, self.kernel_size)
        return F.conv_transpose2d(x, self.weight, self.bias, self.stride, self.padding,
                                  output_padding, self.groups, self.dilation)

    def extra_repr(self):
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}")


class Conv1d(Conv2d):
    """1-D convolution over (N, C, L) (or (C, L)) with stride, padding, dilation and groups."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", dtype=None):
        one = _single
        super().__init__(in_channels, out_channels, (1, one(kernel_size)), (1, one(stride)),
                         padding if isinstance(padding, str) else (0, one(padding)),
                         (1, one(dilation)), groups, bias, padding_mode, dtype)
        # the weight of a 1-D convolution: (out, in/groups, k), as PyTorch's
        self.weight = Parameter(self.weight.detach().reshape(
            out_channels, in_channels // groups, self.kernel_size[1]))
        self._parameters.move_to_end("weight", last=False)   # weight, then bias
        self.kernel_size, self.stride = self.kernel_size[1:], self.stride[1:]
        self.dilation = self.dilation[1:]
        self.padding = self.padding if isinstance(self.padding, str) else self.padding[1:]

    def forward(self, x):
        if self.padding_mode != "zeros":
            x = pad_by_mode(x, self.padding, self.padding_mode, self.kernel_size, self.dilation)
            return F.conv1d(x, self.weight, self.bias, self.stride[0], 0, self.dilation[0],
                            self.groups)
        return F.conv1d(x, self.weight, self.bias, self.stride[0],
                        self.padding if isinstance(self.padding, str) else self.padding[0],
                        self.dilation[0], self.groups)


def _tuple(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


# ---- convolutions --------------------------------------------------------------------------
class _ConvNd(Module):
    """Parameters of an n-D convolution (``transposed``: weight (in, out/groups, *kernel))."""

    _n = 3
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 groups, bias, padding_mode, dtype, output_padding=0):
        super().__init__()
        n = self._n
        if groups < 1 or in_channels % groups or out_channels % groups:
            raise ValueError(f"in_channels ({in_channels}) and out_channels ({out_channels}) "
                             f"must be divisible by groups ({groups})")
        if self._transposed and padding_mode != "zeros":     # as PyTorch
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f'{type(self).__name__}')
        check_padding_mode(padding_mode)
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride = _tuple(kernel_size, n), _tuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _tuple(padding, n)
        self.dilation, self.groups = _tuple(dilation, n), groups
        self.output_padding = _tuple(output_padding, n)
        self.padding_mode = padding_mode
        if self._transposed:
            shape = [in_channels, out_channels // groups, *self.kernel_size]
        else:
            shape = [out_channels, in_channels // groups, *self.kernel_size]
        weight_and_bias(self, shape, bias, out_channels, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        # PyTorch's fan_in: the weight's dimension 1 times the kernel
        _uniform_bias(self.bias, self.weight.shape[1] * math.prod(self.kernel_size))

    def extra_repr(self):
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * self._n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * self._n:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * self._n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        return s + ("" if self.bias is not None else ", bias=False")


class Conv3d(_ConvNd):
    """3-D convolution over (N, C, D, H, W) with stride, padding, dilation and groups."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, dtype)

    def forward(self, x):
        if self.padding_mode != "zeros":
            x = pad_by_mode(x, self.padding, self.padding_mode, self.kernel_size,
                              self.dilation)
            return F.conv3d(x, self.weight, self.bias, self.stride, 0, self.dilation,
                            self.groups)
        return F.conv3d(x, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups)


class _ConvTransposeNd(_ConvNd):
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, dtype, output_padding)

    def forward(self, x, output_size=None):
        padding = output_padding_for(x, output_size, self.output_padding, self.stride,
                                     self.padding, self.dilation, self.kernel_size)
        return self._fn(x, self.weight, self.bias, self.stride, self.padding, padding,
                        self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """The transposed 1-D convolution; weight (in, out / groups, k), as PyTorch."""

    _n = 1
    _fn = staticmethod(F.conv_transpose1d)


class ConvTranspose3d(_ConvTransposeNd):
    """The transposed 3-D convolution; weight (in, out / groups, kd, kh, kw), as PyTorch."""

    _n = 3
    _fn = staticmethod(F.conv_transpose3d)
