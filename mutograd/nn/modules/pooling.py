"""Pooling layers: max, average, power-average, adaptive and fractional poolings over 1, 2 or 3
dimensions and max unpooling, with PyTorch's constructor signatures.

    >>> import mutograd as mg
    >>> mg.nn.MaxPool1d(2)(mg.tensor([[[1.0, 3.0, 2.0, 5.0]]])).tolist()
    [[[3.0, 5.0]]]
"""

import inspect

from .. import functional as F
from ..module import Module


# ---- poolings ------------------------------------------------------------------------------
def _ntuple(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


class _Window(Module):
    """A pooling module: its constructor's arguments (``_args``, with ``_defaults``) kept as
    attributes under PyTorch's names and passed to ``_fn`` by name after the input; the repr
    shows those of ``_shown``. Each subclass gets a real ``__init__`` signature."""

    _fn = None
    _args = ()
    _defaults = {}
    _shown = ()

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if "_args" in vars(cls) or "_defaults" in vars(cls):
            params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
            params += [inspect.Parameter(k, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                         default=cls._defaults.get(k, inspect.Parameter.empty))
                       for k in cls._args]
            signature = inspect.Signature(params)

            def __init__(self, *args, **kwargs):
                bound = signature.bind(self, *args, **kwargs)
                bound.apply_defaults()
                _Window._store(self, {k: bound.arguments[k] for k in cls._args})
            __init__.__signature__ = signature
            __init__.__qualname__ = f"{cls.__qualname__}.__init__"
            cls.__init__ = __init__

    def _store(self, values):
        Module.__init__(self)
        for k, v in self._settle(values).items():
            if k == "_random_samples":   # a buffer, as PyTorch's (in the state dict when set)
                self.register_buffer(k, v)
            else:
                setattr(self, k, v)

    def _settle(self, values):
        """The values as stored (PyTorch's: a missing stride is the kernel size)."""
        return values

    def forward(self, input):
        return type(self)._fn(input, **{k: getattr(self, k) for k in self._args})

    def extra_repr(self):
        return ", ".join(f"{k}={getattr(self, k)}" for k in self._shown)


def _strided(values):
    if values.get("stride") is None:
        values["stride"] = values["kernel_size"]
    return values


class _MaxPoolNd(_Window):
    _args = ("kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode")
    _defaults = {"stride": None, "padding": 0, "dilation": 1, "return_indices": False,
                 "ceil_mode": False}
    _shown = ("kernel_size", "stride", "padding", "dilation", "ceil_mode")
    _settle = staticmethod(_strided)


class _AvgPoolNd(_Window):
    _args = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
             "divisor_override")
    _defaults = {"stride": None, "padding": 0, "ceil_mode": False, "count_include_pad": True,
                 "divisor_override": None}
    _shown = ("kernel_size", "stride", "padding")
    _settle = staticmethod(_strided)


class _LPPoolNd(_Window):
    _args = ("norm_type", "kernel_size", "stride", "ceil_mode")
    _defaults = {"stride": None, "ceil_mode": False}
    _shown = _args


class _AdaptiveMaxPoolNd(_Window):
    _args, _defaults, _shown = ("output_size", "return_indices"), {"return_indices": False}, \
        ("output_size",)


class _AdaptiveAvgPoolNd(_Window):
    _args, _shown = ("output_size",), ("output_size",)


def _pool_class(name, base, fn, doc, **attrs):
    return type(name, (base,), {"_fn": staticmethod(fn), "__doc__": doc,
                                "__module__": __name__, **attrs})


MaxPool1d = _pool_class("MaxPool1d", _MaxPoolNd, F.max_pool1d,
                        "Maximum over windows of (N, C, L); ``return_indices``: also positions.")
MaxPool2d = _pool_class("MaxPool2d", _MaxPoolNd, F.max_pool2d,
                        "Maximum over ``kernel_size`` windows of (N, C, H, W) (stride defaults "
                        "to the kernel size).")
MaxPool3d = _pool_class("MaxPool3d", _MaxPoolNd, F.max_pool3d,
                        "Maximum over windows of (N, C, D, H, W).")
AvgPool1d = _pool_class(
    "AvgPool1d", _AvgPoolNd, F.avg_pool1d, "Mean over windows of (N, C, L).",
    _args=_AvgPoolNd._args[:-1],
    # PyTorch keeps the 1-D sizes as 1-tuples
    _settle=staticmethod(lambda v: {**_strided(v), **{k: _ntuple(v[k], 1) for k in
                                                      ("kernel_size", "stride", "padding")}}))
AvgPool2d = _pool_class("AvgPool2d", _AvgPoolNd, F.avg_pool2d,
                        "Mean over ``kernel_size`` windows of (N, C, H, W).")
AvgPool3d = _pool_class("AvgPool3d", _AvgPoolNd, F.avg_pool3d,
                        "Mean over windows of (N, C, D, H, W).")
AdaptiveAvgPool1d = _pool_class("AdaptiveAvgPool1d", _AdaptiveAvgPoolNd, F.adaptive_avg_pool1d,
                                "Mean over the bins that divide L into ``output_size``.")
AdaptiveAvgPool2d = _pool_class("AdaptiveAvgPool2d", _AdaptiveAvgPoolNd, F.adaptive_avg_pool2d,
                                "Mean over bins that give an output of ``output_size``.")
AdaptiveAvgPool3d = _pool_class("AdaptiveAvgPool3d", _AdaptiveAvgPoolNd, F.adaptive_avg_pool3d,
                                "Mean over the bins that divide D, H and W.")
AdaptiveMaxPool1d = _pool_class("AdaptiveMaxPool1d", _AdaptiveMaxPoolNd, F.adaptive_max_pool1d,
                                "Maximum over the bins that divide L into ``output_size``.")
AdaptiveMaxPool2d = _pool_class("AdaptiveMaxPool2d", _AdaptiveMaxPoolNd, F.adaptive_max_pool2d,
                                "Maximum over the bins that divide H and W.")
AdaptiveMaxPool3d = _pool_class("AdaptiveMaxPool3d", _AdaptiveMaxPoolNd, F.adaptive_max_pool3d,
                                "Maximum over the bins that divide D, H and W.")
LPPool1d = _pool_class("LPPool1d", _LPPoolNd, F.lp_pool1d,
                       "Power-average pooling over (N, C, L).")
LPPool2d = _pool_class("LPPool2d", _LPPoolNd, F.lp_pool2d,
                       "Power-average pooling over (N, C, H, W).")
LPPool3d = _pool_class("LPPool3d", _LPPoolNd, F.lp_pool3d,
                       "Power-average pooling over (N, C, D, H, W).")
_FRACTIONAL = {"_args": ("kernel_size", "output_size", "output_ratio", "return_indices",
                         "_random_samples"),
               "_defaults": {"output_size": None, "output_ratio": None, "return_indices": False,
                             "_random_samples": None}}
FractionalMaxPool2d = _pool_class(
    "FractionalMaxPool2d", _Window, F.fractional_max_pool2d,
    "Fractional max pooling over (N, C, H, W) (windows at pseudo-random starts).",
    **_FRACTIONAL)
FractionalMaxPool3d = _pool_class(
    "FractionalMaxPool3d", _Window, F.fractional_max_pool3d,
    "Fractional max pooling over (N, C, D, H, W).", **_FRACTIONAL)


class _MaxUnpoolNd(_Window):
    _args = _shown = ("kernel_size", "stride", "padding")
    _defaults = {"stride": None, "padding": 0}
    _n = 1

    def _settle(self, values):     # PyTorch keeps the sizes as n-tuples
        return {k: _ntuple(v, self._n) for k, v in _strided(values).items()}

    def forward(self, input, indices, output_size=None):
        return type(self)._fn(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


MaxUnpool1d = _pool_class("MaxUnpool1d", _MaxUnpoolNd, F.max_unpool1d,
                          "The inverse of MaxPool1d: values at their indices, zeros elsewhere.")
MaxUnpool2d = _pool_class("MaxUnpool2d", _MaxUnpoolNd, F.max_unpool2d,
                          "The inverse of MaxPool2d: values at their indices, zeros elsewhere.",
                          _n=2)
MaxUnpool3d = _pool_class("MaxUnpool3d", _MaxUnpoolNd, F.max_unpool3d,
                          "The inverse of MaxPool3d: values at their indices, zeros elsewhere.",
                          _n=3)
