"""Pooling layers: max, average, power-average, adaptive and fractional poolings over 1, 2 or 3
dimensions and max unpooling, with PyTorch's constructor signatures.

    >>> import mutograd as mg
    >>> mg.nn.MaxPool1d(2)(mg.tensor([[[1.0, 3.0, 2.0, 5.0]]])).tolist()
    [[[3.0, 5.0]]]
"""


from .. import functional as F
from ..module import Module
from .shell import FunctionShell


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
MaxPool1d = _pool_class("MaxPool1d", F.max_pool1d,
                        ("kernel_size", "stride", "padding", "dilation", "return_indices",
                         "ceil_mode"), _MAX_DEFAULTS,
                        "Maximum over windows of (N, C, L); ``return_indices``: also positions.")
MaxPool3d = _pool_class("MaxPool3d", F.max_pool3d,
                        ("kernel_size", "stride", "padding", "dilation", "return_indices",
                         "ceil_mode"), _MAX_DEFAULTS,
                        "Maximum over windows of (N, C, D, H, W).")

AvgPool1d = _pool_class("AvgPool1d", F.avg_pool1d,
                        ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"),
                        {"stride": None, "padding": 0, "ceil_mode": False,
                         "count_include_pad": True},
                        "Mean over windows of (N, C, L).")
AvgPool3d = _pool_class("AvgPool3d", F.avg_pool3d,
                        ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                         "divisor_override"),
                        {"stride": None, "padding": 0, "ceil_mode": False,
                         "count_include_pad": True, "divisor_override": None},
                        "Mean over windows of (N, C, D, H, W).")
AdaptiveAvgPool1d = _pool_class("AdaptiveAvgPool1d", F.adaptive_avg_pool1d, ("output_size",),
                                {}, "Mean over the bins that divide L into ``output_size``.")
AdaptiveAvgPool3d = _pool_class("AdaptiveAvgPool3d", F.adaptive_avg_pool3d, ("output_size",),
                                {}, "Mean over the bins that divide D, H and W.")
AdaptiveMaxPool1d = _pool_class("AdaptiveMaxPool1d", F.adaptive_max_pool1d,
                                ("output_size", "return_indices"), {"return_indices": False},
                                "Maximum over the bins that divide L into ``output_size``.")
AdaptiveMaxPool2d = _pool_class("AdaptiveMaxPool2d", F.adaptive_max_pool2d,
                                ("output_size", "return_indices"), {"return_indices": False},
                                "Maximum over the bins that divide H and W.")
AdaptiveMaxPool3d = _pool_class("AdaptiveMaxPool3d", F.adaptive_max_pool3d,
                                ("output_size", "return_indices"), {"return_indices": False},
                                "Maximum over the bins that divide D, H and W.")
_LP = ("norm_type", "kernel_size", "stride", "ceil_mode")
_LP_DEFAULTS = {"stride": None, "ceil_mode": False}
LPPool1d = _pool_class("LPPool1d", F.lp_pool1d, _LP, _LP_DEFAULTS,
                       "Power-average pooling over (N, C, L).")
LPPool2d = _pool_class("LPPool2d", F.lp_pool2d, _LP, _LP_DEFAULTS,
                       "Power-average pooling over (N, C, H, W).")
LPPool3d = _pool_class("LPPool3d", F.lp_pool3d, _LP, _LP_DEFAULTS,
                       "Power-average pooling over (N, C, D, H, W).")
_FRACTIONAL = ("kernel_size", "output_size", "output_ratio", "return_indices",
               "_random_samples")
_FRACTIONAL_DEFAULTS = {"output_size": None, "output_ratio": None, "return_indices": False,
                        "_random_samples": None}
FractionalMaxPool2d = _pool_class(
    "FractionalMaxPool2d", F.fractional_max_pool2d, _FRACTIONAL, _FRACTIONAL_DEFAULTS,
    "Fractional max pooling over (N, C, H, W) (windows at pseudo-random starts).")
FractionalMaxPool3d = _pool_class(
    "FractionalMaxPool3d", F.fractional_max_pool3d, _FRACTIONAL, _FRACTIONAL_DEFAULTS,
    "Fractional max pooling over (N, C, D, H, W).")


class _MaxUnpool(_Window):
    _args = ("kernel_size", "stride", "padding")
    _defaults = {"stride": None, "padding": 0}

    def forward(self, x, indices, output_size=None):
        return type(self)._fn(x, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


MaxUnpool1d = type("MaxUnpool1d", (_MaxUnpool,), {
    "_fn": staticmethod(F.max_unpool1d), "__module__": __name__,
    "__doc__": "The inverse of MaxPool1d: values at their indices, zeros elsewhere."})
MaxUnpool2d = type("MaxUnpool2d", (_MaxUnpool,), {
    "_fn": staticmethod(F.max_unpool2d), "__module__": __name__,
    "__doc__": "The inverse of MaxPool2d: values at their indices, zeros elsewhere."})
MaxUnpool3d = type("MaxUnpool3d", (_MaxUnpool,), {
    "_fn": staticmethod(F.max_unpool3d), "__module__": __name__,
    "__doc__": "The inverse of MaxPool3d: values at their indices, zeros elsewhere."})


# ---- layers without parameters -------------------------------------------------------------
class _Pool(Module):
    def __init__(self, kernel_size, stride=None, padding=0, **kw):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.kw = kw

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride or self.kernel_size}, " \
               f"padding={self.padding}"


class MaxPool2d(_Pool):
    """Maximum over ``kernel_size`` windows (stride defaults to the kernel size)."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__(kernel_size, stride, padding, dilation=dilation, ceil_mode=ceil_mode,
                         return_indices=return_indices)

    def forward(self, x):
        return F.max_pool2d(x, self.kernel_size, self.stride, self.padding, **self.kw)


class AvgPool2d(_Pool):
    """Mean over ``kernel_size`` windows."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__(kernel_size, stride, padding, ceil_mode=ceil_mode,
                         count_include_pad=count_include_pad, divisor_override=divisor_override)

    def forward(self, x):
        return F.avg_pool2d(x, self.kernel_size, self.stride, self.padding, **self.kw)


class AdaptiveAvgPool2d(FunctionShell):
    """Mean over bins that give an output of ``output_size``."""
    fn, settings = staticmethod(F.adaptive_avg_pool2d), ("output_size",)

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size
