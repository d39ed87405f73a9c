"""Modules over the convolutions and poolings of ``nn/pooling.py`` (1-D and 3-D, and the max
poolings PyTorch has in every dimension), with PyTorch's constructor signatures and parameter
names and shapes."""
import math

from ..ops.creation import empty
from . import init
from . import pooling as P
from .layers import _uniform_bias
from .module import Module, Parameter


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
        P.check_padding_mode(padding_mode)
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
        self.weight = Parameter(empty(shape, dtype=dtype))
        if bias:
            self.bias = Parameter(empty([out_channels], dtype=dtype))
        else:
            self.register_parameter("bias", None)
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
            x = P.pad_by_mode(x, self.padding, self.padding_mode, self.kernel_size,
                              self.dilation)
            return P.conv3d(x, self.weight, self.bias, self.stride, 0, self.dilation,
                            self.groups)
        return P.conv3d(x, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups)


class _ConvTransposeNd(_ConvNd):
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, dtype, output_padding)

    def _output_padding(self, x, output_size):
        return P.output_padding_for(x, output_size, self.output_padding, self.stride,
                                    self.padding, self.dilation, self.kernel_size)


class ConvTranspose1d(_ConvTransposeNd):
    """The transposed 1-D convolution; weight (in, out / groups, k), as PyTorch."""

    _n = 1

    def forward(self, x, output_size=None):
        return P.conv_transpose1d(x, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(x, output_size), self.groups,
                                  self.dilation)


class ConvTranspose3d(_ConvTransposeNd):
    """The transposed 3-D convolution; weight (in, out / groups, kd, kh, kw), as PyTorch."""

    _n = 3

    def forward(self, x, output_size=None):
        return P.conv_transpose3d(x, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(x, output_size), self.groups,
                                  self.dilation)


# ---- poolings ------------------------------------------------------------------------------
class _Window(Module):
    """A pooling module: its constructor's arguments, kept as attributes under PyTorch's names,
    passed to ``_fn`` by name after the input."""

    _fn = None
    _args = ()
    _defaults = {}

    def __init__(self, *args, **kw):
        super().__init__()
        names = self._args
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__} takes at most {len(names)} arguments")
        values = dict(zip(names, args))
        for k, v in kw.items():
            if k not in names or k in values:
                raise TypeError(f"{type(self).__name__} got an unexpected or repeated argument "
                                f"{k!r}")
            values[k] = v
        missing = [k for k in names if k not in values and k not in self._defaults]
        if missing:
            raise TypeError(f"{type(self).__name__} missing the argument {missing[0]!r}")
        for k in names:
            if k == "_random_samples":   # a buffer, as PyTorch's (in the state dict when set)
                self.register_buffer(k, values.get(k))
            else:
                setattr(self, k, values.get(k, self._defaults.get(k)))

    def forward(self, x):
        return type(self)._fn(x, **{k: getattr(self, k) for k in self._args})

    def extra_repr(self):
        return ", ".join(f"{k}={getattr(self, k)}" for k in self._args)


def _pool_class(name, fn, args, defaults, doc):
    return type(name, (_Window,), {"_fn": staticmethod(fn), "_args": args,
                                   "_defaults": defaults, "__doc__": doc,
                                   "__module__": __name__})


_MAX_DEFAULTS = {"stride": None, "padding": 0, "dilation": 1, "return_indices": False,
                 "ceil_mode": False}
MaxPool1d = _pool_class("MaxPool1d", P.max_pool1d,
                        ("kernel_size", "stride", "padding", "dilation", "return_indices",
                         "ceil_mode"), _MAX_DEFAULTS,
                        "Maximum over windows of (N, C, L); ``return_indices``: also positions.")
MaxPool3d = _pool_class("MaxPool3d", P.max_pool3d,
                        ("kernel_size", "stride", "padding", "dilation", "return_indices",
                         "ceil_mode"), _MAX_DEFAULTS,
                        "Maximum over windows of (N, C, D, H, W).")

AvgPool1d = _pool_class("AvgPool1d", P.avg_pool1d,
                        ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"),
                        {"stride": None, "padding": 0, "ceil_mode": False,
                         "count_include_pad": True},
                        "Mean over windows of (N, C, L).")
AvgPool3d = _pool_class("AvgPool3d", P.avg_pool3d,
                        ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                         "divisor_override"),
                        {"stride": None, "padding": 0, "ceil_mode": False,
                         "count_include_pad": True, "divisor_override": None},
                        "Mean over windows of (N, C, D, H, W).")
AdaptiveAvgPool1d = _pool_class("AdaptiveAvgPool1d", P.adaptive_avg_pool1d, ("output_size",),
                                {}, "Mean over the bins that divide L into ``output_size``.")
AdaptiveAvgPool3d = _pool_class("AdaptiveAvgPool3d", P.adaptive_avg_pool3d, ("output_size",),
                                {}, "Mean over the bins that divide D, H and W.")
AdaptiveMaxPool1d = _pool_class("AdaptiveMaxPool1d", P.adaptive_max_pool1d,
                                ("output_size", "return_indices"), {"return_indices": False},
                                "Maximum over the bins that divide L into ``output_size``.")
AdaptiveMaxPool2d = _pool_class("AdaptiveMaxPool2d", P.adaptive_max_pool2d,
                                ("output_size", "return_indices"), {"return_indices": False},
                                "Maximum over the bins that divide H and W.")
AdaptiveMaxPool3d = _pool_class("AdaptiveMaxPool3d", P.adaptive_max_pool3d,
                                ("output_size", "return_indices"), {"return_indices": False},
                                "Maximum over the bins that divide D, H and W.")
_LP = ("norm_type", "kernel_size", "stride", "ceil_mode")
_LP_DEFAULTS = {"stride": None, "ceil_mode": False}
LPPool1d = _pool_class("LPPool1d", P.lp_pool1d, _LP, _LP_DEFAULTS,
                       "Power-average pooling over (N, C, L).")
LPPool2d = _pool_class("LPPool2d", P.lp_pool2d, _LP, _LP_DEFAULTS,
                       "Power-average pooling over (N, C, H, W).")
LPPool3d = _pool_class("LPPool3d", P.lp_pool3d, _LP, _LP_DEFAULTS,
                       "Power-average pooling over (N, C, D, H, W).")
_FRACTIONAL = ("kernel_size", "output_size", "output_ratio", "return_indices",
               "_random_samples")
_FRACTIONAL_DEFAULTS = {"output_size": None, "output_ratio": None, "return_indices": False,
                        "_random_samples": None}
FractionalMaxPool2d = _pool_class(
    "FractionalMaxPool2d", P.fractional_max_pool2d, _FRACTIONAL, _FRACTIONAL_DEFAULTS,
    "Fractional max pooling over (N, C, H, W) (windows at pseudo-random starts).")
FractionalMaxPool3d = _pool_class(
    "FractionalMaxPool3d", P.fractional_max_pool3d, _FRACTIONAL, _FRACTIONAL_DEFAULTS,
    "Fractional max pooling over (N, C, D, H, W).")


class _MaxUnpool(_Window):
    _args = ("kernel_size", "stride", "padding")
    _defaults = {"stride": None, "padding": 0}

    def forward(self, x, indices, output_size=None):
        return type(self)._fn(x, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


MaxUnpool1d = type("MaxUnpool1d", (_MaxUnpool,), {
    "_fn": staticmethod(P.max_unpool1d), "__module__": __name__,
    "__doc__": "The inverse of MaxPool1d: values at their indices, zeros elsewhere."})
MaxUnpool2d = type("MaxUnpool2d", (_MaxUnpool,), {
    "_fn": staticmethod(P.max_unpool2d), "__module__": __name__,
    "__doc__": "The inverse of MaxPool2d: values at their indices, zeros elsewhere."})
MaxUnpool3d = type("MaxUnpool3d", (_MaxUnpool,), {
    "_fn": staticmethod(P.max_unpool3d), "__module__": __name__,
    "__doc__": "The inverse of MaxPool3d: values at their indices, zeros elsewhere."})

__all__ = ["AdaptiveAvgPool1d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
           "AdaptiveMaxPool3d", "AvgPool1d", "AvgPool3d", "Conv3d", "ConvTranspose1d",
           "ConvTranspose3d", "FractionalMaxPool2d", "FractionalMaxPool3d", "LPPool1d",
           "LPPool2d", "LPPool3d", "MaxPool1d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d",
           "MaxUnpool3d"]
