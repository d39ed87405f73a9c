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
from ..functional.conv import check_padding_mode, output_padding_for, pad_by_mode
from ..module import Module
from .linear import _uniform_bias, weight_and_bias


def _tuple(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


class _ConvNd(Module):
    """Parameters of an n-D convolution (``transposed``: weight (in, out/groups, *kernel));
    each subclass sets ``_n`` and the functional ``_fn``."""

    _n = 3
    _transposed = False
    _fn = None

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 groups, bias, padding_mode, device=None, dtype=None, output_padding=0):
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
        weight_and_bias(self, shape, bias, out_channels, dtype, device)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        # PyTorch's fan_in: the weight's dimension 1 times the kernel
        _uniform_bias(self.bias, self.weight.shape[1] * math.prod(self.kernel_size))

    def forward(self, input):
        fn = type(self)._fn
        if self.padding_mode != "zeros":
            input = pad_by_mode(input, self.padding, self.padding_mode, self.kernel_size,
                                self.dilation)
            return fn(input, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return fn(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                  self.groups)

    def extra_repr(self):
        # PyTorch's text: settings at their default are left out
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
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class _Conv(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)


class Conv1d(_Conv):
    """1-D convolution over (N, C, L) (or (C, L)) with stride, padding, dilation and groups."""

    _n, _fn = 1, staticmethod(F.conv1d)


class Conv2d(_Conv):
    """2-D convolution over (N, C, H, W) with stride, padding, dilation and groups."""

    _n, _fn = 2, staticmethod(F.conv2d)


class Conv3d(_Conv):
    """3-D convolution over (N, C, D, H, W) with stride, padding, dilation and groups."""

    _n, _fn = 3, staticmethod(F.conv3d)


class _ConvTransposeNd(_ConvNd):
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype, output_padding)

    def forward(self, input, output_size=None):
        padding = output_padding_for(input, output_size, self.output_padding, self.stride,
                                     self.padding, self.dilation, self.kernel_size)
        return type(self)._fn(input, self.weight, self.bias, self.stride, self.padding, padding,
                              self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """The transposed 1-D convolution; weight (in, out / groups, k), as PyTorch."""

    _n, _fn = 1, staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """The transposed 2-D convolution; weight (in, out / groups, kh, kw), as PyTorch."""

    _n, _fn = 2, staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    """The transposed 3-D convolution; weight (in, out / groups, kd, kh, kw), as PyTorch."""

    _n, _fn = 3, staticmethod(F.conv_transpose3d)
