"""Layers, activations, losses and containers as Modules (each a thin shell over functional)."""
import inspect
import math
from collections import OrderedDict

from .. import ops
from ..autograd.grad_mode import no_grad
from ..errors import ShapeError
from ..ops.creation import empty, ones, zeros
from . import functional as F
from . import init
from .module import Module, Parameter
from .pooling import check_padding_mode, output_padding_for, pad_by_mode


# ---- containers ----------------------------------------------------------------------------
class Sequential(Module):
    """Modules called one after the other; ``Sequential(a, b)`` or ``Sequential(OrderedDict)``."""

    def __init__(self, *mods):
        super().__init__()
        if len(mods) == 1 and isinstance(mods[0], (dict, OrderedDict)):
            for name, m in mods[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(mods):
                self.add_module(str(i), m)

    def forward(self, x):
        for m in self._modules.values():
            x = m(x)
        return x

    def __getitem__(self, i):
        if isinstance(i, slice):
            return Sequential(OrderedDict(list(self._modules.items())[i]))
        return list(self._modules.values())[i]

    def __setitem__(self, i, m):
        """Replace the ``i``-th module; it keeps its place (and its name)."""
        setattr(self, list(self._modules)[i], m)

    def __delitem__(self, i):
        """Remove the ``i``-th module(s); the rest are numbered again from 0, as PyTorch."""
        keys = list(self._modules)
        for k in (keys[i] if isinstance(i, slice) else [keys[i]]):
            del self._modules[k]
        items = list(self._modules.values())
        self._modules.clear()
        for n, m in enumerate(items):
            self._modules[str(n)] = m

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, m):
        self.add_module(str(len(self)), m)
        return self


class _List(Module):
    """A list whose items are registered in ``table`` under ``'0'``, ``'1'``, ..."""

    table = None   # and ``_put(key, item)``, which registers an item: set by each subclass

    def __init__(self, items=None):
        super().__init__()
        for m in items or ():
            self.append(m)

    def append(self, item):
        self._put(str(len(self)), item)
        return self

    def extend(self, items):
        for m in items:
            self.append(m)
        return self

    def _items(self):
        return getattr(self, self.table)

    def __getitem__(self, i):
        vals = list(self._items().values())
        return type(self)(vals[i]) if isinstance(i, slice) else vals[i]

    def __setitem__(self, i, item):
        self._put(str(range(len(self))[i]), item)

    def __len__(self):
        return len(self._items())

    def __iter__(self):
        return iter(self._items().values())


class ModuleList(_List):
    """A list of sub-modules, registered under ``'0'``, ``'1'``, ..."""

    table = "_modules"

    def _put(self, key, m):
        self.add_module(key, m)


class ModuleDict(Module):
    """A dict of sub-modules by name."""

    def __init__(self, mods=None):
        super().__init__()
        for k, m in (mods or {}).items():
            self.add_module(k, m)

    def __getitem__(self, k):
        return self._modules[k]

    def __setitem__(self, k, m):
        self.add_module(k, m)

    def __delitem__(self, k):
        del self._modules[k]

    def __contains__(self, k):
        return k in self._modules

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()


class ParameterList(_List):
    """A list of Parameters, registered under ``'0'``, ``'1'``, ... (tensors become
    Parameters)."""

    table = "_parameters"

    def _put(self, key, value):
        self.register_parameter(key, value if isinstance(value, Parameter) else Parameter(value))


# ---- layers with parameters ----------------------------------------------------------------
def _uniform_bias(bias, fan_in):
    if bias is not None:
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        init.uniform_(bias, -bound, bound)


class Linear(Module):
    """``y = x W^T + b`` with W of shape (out_features, in_features)."""

    def __init__(self, in_features, out_features, bias=True, dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(empty([out_features, in_features], dtype=dtype))
        if bias:
            self.bias = Parameter(empty([out_features], dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """PyTorch's default: kaiming_uniform_(a=sqrt(5)) weights, U(+-1/sqrt(fan_in)) bias."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        _uniform_bias(self.bias, self.in_features)

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


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
        self.weight = Parameter(empty([out_channels, in_channels // groups, *self.kernel_size],
                                      dtype=dtype))
        if bias:
            self.bias = Parameter(empty([out_channels], dtype=dtype))
        else:
            self.register_parameter("bias", None)
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
        self.weight = Parameter(empty([in_channels, out_channels // groups, *self.kernel_size],
                                      dtype=dtype))
        if bias:
            self.bias = Parameter(empty([out_channels], dtype=dtype))
        else:
            self.register_parameter("bias", None)
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
        one = F._single
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


class _BatchNorm(Module):
    _dims = ()
    _var_ddof = 1       # the running variance is unbiased (Paddle's layers: 0, biased)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, dtype=None):
        super().__init__()
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
            self.register_buffer("num_batches_tracked", zeros([], dtype="int64"))
        else:
            self.running_mean = self.running_var = self.num_batches_tracked = None

    def reset_running_stats(self):
        if self.track_running_stats:
            init.zeros_(self.running_mean)
            init.ones_(self.running_var)
            with no_grad():
                self.num_batches_tracked.zero_()

    def forward(self, x):
        if x.ndim not in self._dims:
            raise ValueError(f"expected {' or '.join(f'{d}D' for d in self._dims)} input "
                             f"(got {x.ndim}D input)")
        if x.shape[1] != self.num_features:
            raise ValueError(f"{type(self).__name__}: expected {self.num_features} channels, "
                             f"got input of shape {list(x.shape)}")
        use_batch = self.training or not self.track_running_stats
        if self.training and self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
        return F.batch_norm(x, self.running_mean if self.track_running_stats else None,
                            self.running_var if self.track_running_stats else None,
                            self.weight, self.bias, use_batch, self.momentum, self.eps,
                            var_ddof=self._var_ddof)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L) inputs over the batch (and length)."""
    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W) inputs per channel."""
    _dims = (4,)


def _scale_shift(module, shape, weight, bias, dtype):
    """Register a normalisation's ``weight`` (ones) and ``bias`` (zeros), or None for each that
    is off; ``bias=None`` registers no bias at all."""
    module.register_parameter("weight", Parameter(ones(list(shape), dtype=dtype)) if weight
                              else None)
    if bias is not None:
        module.register_parameter("bias", Parameter(zeros(list(shape), dtype=dtype)) if bias
                                  else None)


def _shape(normalized_shape):
    return (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)


class LayerNorm(Module):
    """Normalise over the trailing ``normalized_shape`` axes, with an element-wise affine."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 dtype=None):
        super().__init__()
        shape = _shape(normalized_shape)
        self.normalized_shape, self.eps = shape, eps
        _scale_shift(self, shape, elementwise_affine, elementwise_affine and bias, dtype)

    def forward(self, x):
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}"


class GroupNorm(Module):
    """Normalise each of ``num_groups`` groups of channels (with the spatial axes), then a
    per-channel affine."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, dtype=None):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps = num_groups, num_channels, eps
        _scale_shift(self, (num_channels,), affine, affine, dtype)

    def forward(self, x):
        return F.group_norm(x, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}"


class RMSNorm(Module):
    """Root-mean-square normalisation over the trailing ``normalized_shape`` axes, with an
    element-wise scale."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, dtype=None):
        super().__init__()
        self.normalized_shape, self.eps = _shape(normalized_shape), eps
        _scale_shift(self, self.normalized_shape, elementwise_affine, None, dtype)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}"


class Embedding(Module):
    """A lookup table of ``num_embeddings`` vectors of size ``embedding_dim``."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):
        super().__init__()
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError("padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.padding_idx = padding_idx
        if _weight is not None:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise ShapeError("Shape of weight does not match num_embeddings and "
                                 "embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not _freeze)
            return
        self.weight = Parameter(empty([num_embeddings, embedding_dim], dtype=dtype),
                                requires_grad=not _freeze)
        init.normal_(self.weight)
        if padding_idx is not None:
            with no_grad():
                self.weight[padding_idx] = 0.0

    def forward(self, indices):
        return F.embedding(indices, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        s += f", padding_idx={self.padding_idx}" if self.padding_idx is not None else ""
        return s + (f", max_norm={self.max_norm}" if self.max_norm is not None else "")


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


class AdaptiveAvgPool2d(Module):
    """Mean over bins that give an output of ``output_size``."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, x):
        return F.adaptive_avg_pool2d(x, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class Dropout(Module):
    """Zero elements with probability ``p`` in training (``inplace=True``: into the input)."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    fn = staticmethod(F.dropout)     # each dropout module: ``fn(x, p, training, inplace)``

    def forward(self, x):
        return type(self).fn(x, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Flatten(Module):
    """Flatten axes ``start_dim`` .. ``end_dim`` (a view when the strides allow)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x):
        return ops.call(ops.OPS["flatten"], [x], {"start_axis": self.start_dim,
                                                  "stop_axis": self.end_dim})


class Identity(Module):
    """Returns its input (the same object)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, x):
        return x


# ---- activations ---------------------------------------------------------------------------
class _Activation(Module):
    """A module over an ``inplace=`` activation ``fn(x, *settings, inplace=...)`` of
    nn.functional: ``settings`` names the attributes passed before ``inplace``."""
    fn = None
    settings = ()

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, x):
        return type(self).fn(x, *[getattr(self, s) for s in self.settings], inplace=self.inplace)


def _inplace_repr(self):
    return "inplace=True" if self.inplace else ""


class ReLU(_Activation):
    """``max(x, 0)``; ``inplace=True`` writes into the input (ReLU saves its output, so the
    in-place form keeps no extra memory)."""
    fn = staticmethod(F.relu)
    extra_repr = _inplace_repr


class ReLU6(_Activation):
    """``min(max(x, 0), 6)``."""
    fn = staticmethod(F.relu6)
    extra_repr = _inplace_repr


class SiLU(_Activation):
    """``x * sigmoid(x)`` (in place it keeps a copy of the input for backward)."""
    fn = staticmethod(F.silu)
    extra_repr = _inplace_repr


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

    def forward(self, x):
        return F.gelu(x, self.approximate)


class Sigmoid(Module):
    def forward(self, x):
        return F.sigmoid(x)


class Tanh(Module):
    def forward(self, x):
        return F.tanh(x)


class Softmax(Module):
    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return F.softmax(x, self.dim)


class LogSoftmax(Softmax):
    def forward(self, x):
        return F.log_softmax(x, self.dim)


# ---- losses --------------------------------------------------------------------------------
class Softplus(Module):
    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, x):
        return F.softplus(x, self.beta, self.threshold)


class Hardtanh(_Activation):
    fn, settings = staticmethod(F.hardtanh), ("min_val", "max_val")

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__(inplace)
        self.min_val, self.max_val = min_val, max_val


class CELU(_Activation):
    fn, settings = staticmethod(F.celu), ("alpha",)

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__(inplace)
        self.alpha = alpha


class _Shrink(Module):
    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd


class Softshrink(_Shrink):
    def forward(self, x):
        return F.softshrink(x, self.lambd)


class Hardshrink(_Shrink):
    def forward(self, x):
        return F.hardshrink(x, self.lambd)


def _simple(name, fn, doc):
    """A parameterless activation module over ``fn``: an ``inplace=`` activation is an
    :class:`_Activation`."""
    if "inplace" in inspect.signature(fn).parameters:
        return type(name, (_Activation,), {"fn": staticmethod(fn), "__doc__": doc})

    def __init__(self, inplace=False):
        Module.__init__(self)
        self.inplace = inplace

    def forward(self, x):
        return fn(x)
    return type(name, (Module,), {"__init__": __init__, "forward": forward, "__doc__": doc})


Mish = _simple("Mish", F.mish, "``x * tanh(softplus(x))``.")
Hardswish = _simple("Hardswish", F.hardswish, "``x * relu6(x + 3) / 6``.")
Hardsigmoid = _simple("Hardsigmoid", F.hardsigmoid, "``relu6(x + 3) / 6``.")
SELU = _simple("SELU", F.selu, "Scaled ELU.")
Softsign = _simple("Softsign", F.softsign, "``x / (1 + |x|)``.")
Tanhshrink = _simple("Tanhshrink", F.tanhshrink, "``x - tanh(x)``.")
LogSigmoid = _simple("LogSigmoid", F.logsigmoid, "``log(sigmoid(x))``.")


class PReLU(Module):
    """``x`` where positive, else a learned slope times ``x`` (one, or one per channel)."""

    def __init__(self, num_parameters=1, init=0.25, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.weight = Parameter(ones([num_parameters], dtype=dtype) * init)

    def forward(self, x):
        return F.prelu(x, self.weight)


class Dropout2d(Dropout):
    """Zero whole channels of (N, C, H, W) with probability ``p``."""
    fn = staticmethod(F.dropout2d)


class Upsample(Module):
    """``F.interpolate`` as a module."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners, self.recompute_scale_factor = align_corners, recompute_scale_factor

    def forward(self, x):
        return F.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                             self.recompute_scale_factor)

    def extra_repr(self):
        return f"size={self.size}, scale_factor={self.scale_factor}, mode={self.mode!r}"


class CosineSimilarity(Module):
    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class _Loss(Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"{reduction!r} is not a valid value for reduction")
        self.reduction = reduction


class CrossEntropyLoss(_Loss):
    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(reduction)
        self.weight, self.ignore_index, self.label_smoothing = weight, ignore_index, \
            label_smoothing

    def forward(self, x, target):
        return F.cross_entropy(x, target, self.weight, self.ignore_index, self.reduction,
                               self.label_smoothing)


class NLLLoss(_Loss):
    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        self.weight, self.ignore_index = weight, ignore_index

    def forward(self, x, target):
        return F.nll_loss(x, target, self.weight, self.ignore_index, self.reduction)


class MSELoss(_Loss):
    def forward(self, x, target):
        return F.mse_loss(x, target, self.reduction)


class L1Loss(_Loss):
    def forward(self, x, target):
        return F.l1_loss(x, target, self.reduction)


class SmoothL1Loss(_Loss):
    def __init__(self, reduction="mean", beta=1.0):
        super().__init__(reduction)
        self.beta = beta

    def forward(self, x, target):
        return F.smooth_l1_loss(x, target, self.reduction, self.beta)


class BCELoss(_Loss):
    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight

    def forward(self, x, target):
        return F.binary_cross_entropy(x, target, self.weight, self.reduction)


class BCEWithLogitsLoss(_Loss):
    def __init__(self, weight=None, reduction="mean", pos_weight=None):
        super().__init__(reduction)
        self.weight, self.pos_weight = weight, pos_weight

    def forward(self, x, target):
        return F.binary_cross_entropy_with_logits(x, target, self.weight, self.reduction,
                                                  self.pos_weight)



class HuberLoss(_Loss):
    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction)
        self.delta = delta

    def forward(self, x, target):
        return F.huber_loss(x, target, self.reduction, self.delta)


class KLDivLoss(_Loss):
    def __init__(self, reduction="mean", log_target=False):
        super().__init__("mean" if reduction == "batchmean" else reduction)
        self.reduction, self.log_target = reduction, log_target

    def forward(self, x, target):
        return F.kl_div(x, target, self.reduction, self.log_target)
