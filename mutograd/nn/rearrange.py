"""Layers that rearrange, pad, resize or gate their input, composed from differentiable views and
ops, with PyTorch's names and signatures: pixel and channel shuffles, ``Unflatten``, the padding
modules, the upsampling modules, ``Softmin``/``Softmax2d``/``Threshold``/``GLU``/``RReLU``, the
dropout variants, ``Bilinear``, instance and local response normalisation.

    >>> import mutograd as mg
    >>> from mutograd import nn
    >>> nn.PixelShuffle(2)(mg.ones([1, 8, 3, 3])).shape
    [1, 2, 6, 6]
    >>> nn.ZeroPad2d((1, 1, 2, 0))(mg.ones([1, 1, 2, 2])).shape
    [1, 1, 4, 4]
"""
import math

from ..autograd.grad_mode import no_grad
from ..ops.creation import empty
from ..ops.functional_inplace import alpha_dropout, dropout1d, dropout3d, feature_alpha_dropout
from ..ops.functional_inplace import rrelu, threshold
from ..ops.registry import OPS, call
from . import functional as F
from . import init
from .module import Module, Parameter


# ---- functions -----------------------------------------------------------------------------
def pixel_shuffle(input, upscale_factor):
    """(*, C * r^2, H, W) -> (*, C, H * r, W * r)."""
    r = upscale_factor
    *b, c, h, w = input.shape
    x = input.reshape(*b, c // (r * r), r, r, h, w)
    n = len(b)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*b, c // (r * r), h * r, w * r)


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H * r, W * r) -> (*, C * r^2, H, W)."""
    r = downscale_factor
    *b, c, h, w = input.shape
    x = input.reshape(*b, c, h // r, r, w // r, r)
    n = len(b)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*b, c * r * r, h // r, w // r)


def channel_shuffle(input, groups):
    """(N, g * k, *) -> channels reordered as (N, k, g, *) flattened back."""
    n, c, *rest = input.shape
    return input.reshape(n, groups, c // groups, *rest).transpose(1, 2).reshape(n, c, *rest)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-input)`` along ``dim``."""
    return F.softmax(-input, dim=-1 if dim is None else dim, dtype=dtype)


def bilinear(input1, input2, weight, bias=None):
    """``x1^T A x2 + b`` for each output feature: weight (out, in1, in2)."""
    out = call(OPS["matmul"], [input1.unsqueeze(-2).unsqueeze(-3), weight], {})  # (.., O, 1, in2)
    out = (out.squeeze(-2) * input2.unsqueeze(-2)).sum(-1)
    return out if bias is None else out + bias


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalise each channel of each sample over its spatial axes (N, C, *)."""
    axes = tuple(range(2, input.ndim))
    if use_input_stats:
        mean = input.mean(axes, keepdim=True)
        var = input.var(axes, unbiased=False, keepdim=True)
        if running_mean is not None or running_var is not None:
            n = math.prod(input.shape[2:])
            with no_grad():
                if running_mean is not None:
                    running_mean.mul_(1 - momentum).add_(
                        momentum * mean.detach().reshape(input.shape[:2]).mean(0))
                if running_var is not None:
                    unbiased = var.detach().reshape(input.shape[:2]) * (n / max(n - 1, 1))
                    running_var.mul_(1 - momentum).add_(momentum * unbiased.mean(0))
    else:
        shape = (1, -1) + (1,) * len(axes)
        mean, var = running_mean.reshape(shape), running_var.reshape(shape)
    out = (input - mean) / (var + eps).sqrt()
    shape = (1, -1) + (1,) * len(axes)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """``input / (k + alpha * mean of squares over size neighbouring channels) ** beta``."""
    sq = input * input
    c = input.shape[1]
    pad = [0, 0] * (input.ndim - 2) + [size // 2, (size - 1) // 2]
    sq = F.pad(sq, pad)
    window = sum(sq[:, i:i + c] for i in range(size)) / size
    return input / (window * alpha + k) ** beta


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """:func:`interpolate` (PyTorch's older name)."""
    return F.interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    return F.interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    return F.interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ---- modules -------------------------------------------------------------------------------
class _Call(Module):
    """A module that calls ``fn(x, *self.args)``."""

    fn = None
    names = ()

    def __init__(self, *args):
        super().__init__()
        for n, a in zip(self.names, args):
            setattr(self, n, a)

    def forward(self, x):
        return type(self).fn(x, *(getattr(self, n) for n in self.names))

    def extra_repr(self):
        return ", ".join(f"{n}={getattr(self, n)}" for n in self.names)


def _module(name, fn, names, doc):
    return type(name, (_Call,), {"fn": staticmethod(fn), "names": names, "__doc__": doc,
                                 "__module__": __name__})


PixelShuffle = _module("PixelShuffle", pixel_shuffle, ("upscale_factor",),
                       "(*, C * r^2, H, W) -> (*, C, H * r, W * r).")
PixelUnshuffle = _module("PixelUnshuffle", pixel_unshuffle, ("downscale_factor",),
                         "(*, C, H * r, W * r) -> (*, C * r^2, H, W).")
ChannelShuffle = _module("ChannelShuffle", channel_shuffle, ("groups",),
                         "Interleave the channels of ``groups`` groups.")
Softmin = _module("Softmin", lambda x, dim: softmin(x, dim), ("dim",), "softmax(-x) along dim.")
GLU = _module("GLU", lambda x, dim=-1: F.glu(x, dim), ("dim",), "The gated linear unit.")
LocalResponseNorm = _module("LocalResponseNorm", local_response_norm,
                            ("size", "alpha", "beta", "k"),
                            "Local response normalisation over neighbouring channels.")


def _init_defaults(cls, **defaults):
    base_init = cls.__init__

    def __init__(self, *args, **kw):
        vals = dict(defaults)
        vals.update(zip(cls.names, args))
        vals.update(kw)
        base_init(self, *(vals[n] for n in cls.names))
    cls.__init__ = __init__
    return cls


Softmin = _init_defaults(Softmin, dim=None)
GLU = _init_defaults(GLU, dim=-1)
LocalResponseNorm = _init_defaults(LocalResponseNorm, alpha=1e-4, beta=0.75, k=1.0)


class Softmax2d(Module):
    """Softmax over the channels of (N, C, H, W) or (C, H, W)."""

    def forward(self, x):
        return F.softmax(x, dim=-3)


class Threshold(Module):
    """``x`` where ``x > threshold``, else ``value``."""

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, x):
        return threshold(x, self.threshold, self.value, self.inplace)


class RReLU(Module):
    """Leaky ReLU with a random slope in [lower, upper] in training, their mean otherwise."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, x):
        return rrelu(x, self.lower, self.upper, self.training, self.inplace)


class Unflatten(Module):
    """Split dimension ``dim`` into ``unflattened_size``."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, x):
        d = self.dim % x.ndim
        return x.reshape(*x.shape[:d], *self.unflattened_size, *x.shape[d + 1:])


class _Dropout(Module):
    fn = None

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, x):
        return type(self).fn(x, self.p, self.training, self.inplace)


Dropout1d = type("Dropout1d", (_Dropout,), {"fn": staticmethod(dropout1d), "__module__": __name__,
                                             "__doc__": "Zero whole channels of (N, C, L)."})
Dropout3d = type("Dropout3d", (_Dropout,), {"fn": staticmethod(dropout3d), "__module__": __name__,
                                             "__doc__": "Zero whole channels of (N, C, D, H, W)."})
AlphaDropout = type("AlphaDropout", (_Dropout,), {
    "fn": staticmethod(alpha_dropout), "__module__": __name__,
    "__doc__": "Dropout that keeps SELU's mean and variance."})
FeatureAlphaDropout = type("FeatureAlphaDropout", (_Dropout,), {
    "fn": staticmethod(feature_alpha_dropout), "__module__": __name__,
    "__doc__": "Alpha dropout of whole channels."})


class _Pad(Module):
    mode, dims = "constant", 1

    def __init__(self, padding, value=0.0):
        super().__init__()
        self.padding = (padding,) * (2 * self.dims) if isinstance(padding, int) \
            else tuple(padding)
        self.value = value

    def forward(self, x):
        if self.mode == "constant":
            return F.pad(x, self.padding, "constant", self.value)
        return F.pad(x, self.padding, self.mode)

    def extra_repr(self):
        return f"{self.padding}"


def _pad_class(name, mode, dims):
    if mode == "constant" and name.startswith("Zero"):
        def __init__(self, padding):
            _Pad.__init__(self, padding, 0.0)
    elif mode == "constant":
        def __init__(self, padding, value):
            _Pad.__init__(self, padding, value)
    else:
        def __init__(self, padding):
            _Pad.__init__(self, padding)
    return type(name, (_Pad,), {"mode": mode, "dims": dims, "__init__": __init__,
                                "__module__": __name__,
                                "__doc__": f"Pad the last {dims} dimension(s) ({mode})."})


PADS = {}
for _kind, _mode in (("Zero", "constant"), ("Constant", "constant"), ("Reflection", "reflect"),
                     ("Replication", "replicate"), ("Circular", "circular")):
    for _d in (1, 2, 3):
        PADS[f"{_kind}Pad{_d}d"] = _pad_class(f"{_kind}Pad{_d}d", _mode, _d)
globals().update(PADS)


class UpsamplingNearest2d(Module):
    """Nearest-neighbour upsampling of (N, C, H, W)."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__()
        self.size, self.scale_factor = size, scale_factor

    def forward(self, x):
        return upsample_nearest(x, self.size, self.scale_factor)


class UpsamplingBilinear2d(UpsamplingNearest2d):
    """Bilinear upsampling of (N, C, H, W) with aligned corners."""

    def forward(self, x):
        return upsample_bilinear(x, self.size, self.scale_factor)


class Bilinear(Module):
    """``y = x1^T A x2 + b``: weight (out, in1, in2) and bias (out), both uniform in
    ``[-1/sqrt(in1), 1/sqrt(in1)]``, as PyTorch."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        self.weight = Parameter(empty([out_features, in1_features, in2_features], dtype=dtype))
        bound = 1 / math.sqrt(in1_features)
        init.uniform_(self.weight, -bound, bound)
        if bias:
            self.bias = Parameter(empty([out_features], dtype=dtype))
            init.uniform_(self.bias, -bound, bound)
        else:
            self.register_parameter("bias", None)

    def forward(self, input1, input2):
        return bilinear(input1, input2, self.weight, self.bias)


class _InstanceNorm(Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None):
        super().__init__()
        from ..ops.creation import ones, zeros
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = Parameter(ones([num_features], dtype=dtype))
            self.bias = Parameter(zeros([num_features], dtype=dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros([num_features], dtype=dtype))
            self.register_buffer("running_var", ones([num_features], dtype=dtype))
        else:
            self.running_mean = self.running_var = None

    def forward(self, x):
        use_stats = self.training or not self.track_running_stats
        return instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                             use_stats, self.momentum, self.eps)


InstanceNorm1d = type("InstanceNorm1d", (_InstanceNorm,), {"__module__": __name__})
InstanceNorm2d = type("InstanceNorm2d", (_InstanceNorm,), {"__module__": __name__})
InstanceNorm3d = type("InstanceNorm3d", (_InstanceNorm,), {"__module__": __name__})

FUNCTIONS = ("pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "softmin", "bilinear",
             "instance_norm", "local_response_norm", "upsample", "upsample_nearest",
             "upsample_bilinear")
MODULES = ("PixelShuffle", "PixelUnshuffle", "ChannelShuffle", "Softmin", "GLU",
           "LocalResponseNorm", "Softmax2d", "Threshold", "RReLU", "Unflatten", "Dropout1d",
           "Dropout3d", "AlphaDropout", "FeatureAlphaDropout", "UpsamplingNearest2d",
           "UpsamplingBilinear2d", "Bilinear", "InstanceNorm1d", "InstanceNorm2d",
           "InstanceNorm3d", *PADS)


class ParameterDict(Module):
    """A dict of Parameters by name, registered as the module's parameters (tensors become
    Parameters); from a plain dict in sorted key order, from an ``OrderedDict``, another
    ParameterDict or pairs in their order, as PyTorch."""

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, k):
        return self._parameters[k]

    def __setitem__(self, k, v):
        from ..tensor import Tensor
        if isinstance(v, Tensor) and not isinstance(v, Parameter):
            v = Parameter(v)
        self.register_parameter(k, v)

    def __delitem__(self, k):
        del self._parameters[k]

    def __contains__(self, k):
        return k in self._parameters

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def keys(self):
        return self._parameters.keys()

    def values(self):
        return self._parameters.values()

    def items(self):
        return self._parameters.items()

    def update(self, parameters):
        from collections import OrderedDict
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            items = list(parameters.items())
        elif isinstance(parameters, dict):
            items = sorted(parameters.items())
        else:
            items = list(parameters)
        for k, v in items:
            self[k] = v

    def pop(self, k):
        return self._parameters.pop(k)

    def get(self, k, default=None):
        return self._parameters.get(k, default)


MODULES += ("ParameterDict",)
