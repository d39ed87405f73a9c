"""Paddle's layer names and arguments over ``mutograd.nn``.

Differences from the PyTorch-named layers that matter: ``Linear`` stores its weight as
``[in_features, out_features]`` (Paddle's layout, ``y = x @ W + b``); BatchNorm's ``momentum`` is
the weight of the old running statistic (0.9 means 0.1 of the new batch); ``AvgPool2D`` excludes
padding from the mean by default (``exclusive=True``); ``SmoothL1Loss`` is Paddle's Huber form
(``delta * smooth_l1(beta=delta)``); ``Layer.parameters()`` returns a list.
"""
import math

import mutograd as _mg

from .... import nn as _nn
from ....nn import functional as _F
from . import functional as F
from . import initializer as I
from .naming import NamedLayers, parameter_name
from ..tensor import Parameter


class Layer(_nn.Module, metaclass=NamedLayers):
    """``paddle.nn.Layer``: a Module whose ``parameters()`` is a list, with Paddle's
    ``create_parameter``, ``add_sublayer``, ``sublayers`` and ``set_state_dict``, and Paddle's
    automatic names (``full_name()``, ``linear_0.w_0``: ``naming.py``)."""

    _parameter_class = Parameter   # its parameters and buffers are paddle tensors

    def full_name(self):
        """This layer's unique name, ``linear_0`` (Paddle's ``Layer.full_name()``)."""
        return self.__dict__.get("_full_name") or type(self).__name__.lower()

    def parameters(self, include_sublayers=True):
        return list(super().parameters(recurse=include_sublayers))

    def add_sublayer(self, name, sublayer):
        """Register ``sublayer`` under ``name``; returns it."""
        self.add_module(name, sublayer)
        return sublayer

    def sublayers(self, include_self=False):
        return [m for m in self.modules() if include_self or m is not self]

    def create_parameter(self, shape, attr=None, dtype=None, is_bias=False,
                         default_initializer=None, device=None):
        """A new Parameter of ``shape`` set up by ``attr`` (a ParamAttr, an initializer, a name;
        False: no parameter, None is returned); without an initializer there, the global one
        (``set_global_initializer``), else ``default_initializer``, else zeros for a bias and
        Xavier-uniform for a weight (Paddle's defaults)."""
        from ....ops.creation import zeros
        attr = I.to_attr(attr)
        if attr is False:
            return None
        p = Parameter(zeros(list(shape), dtype=dtype))
        if attr.name is None:
            p.name = parameter_name(self, is_bias)
        default = default_initializer or (I.Constant(0.0) if is_bias else I.XavierUniform())
        return I.apply(p, attr, default, is_bias)

    def _paddle_param(self, name, attr, default, is_bias=False):
        """Set up the parameter ``name`` that the shared layer made: Paddle's initializer
        (``attr``'s, the global one or ``default``), or no parameter for ``attr=False``."""
        attr = I.to_attr(attr)
        if attr is False:
            self.register_parameter(name, None)
        elif getattr(self, name, None) is not None:
            I.apply(getattr(self, name), attr, default, is_bias)

    def _paddle_weight_bias(self, weight_attr, bias_attr, weight_default):
        """Paddle's initializers for the shared layer's ``weight`` (``weight_default``) and
        ``bias`` (zeros)."""
        self._paddle_param("weight", weight_attr, weight_default)
        self._paddle_param("bias", bias_attr, I.Constant(0.0), is_bias=True)

    def _create_bias(self, shape, bias_attr):
        """A new ``bias`` of ``shape`` (none registered for ``bias_attr=False``)."""
        self.register_parameter("bias", self.create_parameter(shape, bias_attr, is_bias=True))

    def state_dict(self, destination=None, prefix="", keep_vars=False):
        """Parameters and persistent buffers by dotted name (detached aliases), each with its
        tensor's Paddle name (``linear_0.w_0``), which ``paddle.save`` writes in its table."""
        out = super().state_dict(destination, prefix, keep_vars)
        if not keep_vars:
            for k, t in super().state_dict(None, prefix, True).items():
                if t.__dict__.get("name") is not None:
                    out[k].name = t.name
        return out

    def set_state_dict(self, state_dict, use_structured_name=True):
        """Copy the matching entries of ``state_dict`` (Tensors or arrays) into this layer's
        tensors in place; returns ``(missing_keys, unexpected_keys)``, as Paddle (no error
        for either; a shape mismatch still raises before anything is written)."""
        return self.load_state_dict(state_dict, strict=False)

    set_dict = load_dict = set_state_dict

    def __repr__(self):
        # Paddle's layout: a one-line extra_repr stays on the first line, several lines are
        # indented; then each sublayer on its own indented line
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        text = type(self).__name__ + "("
        if len(lines) > 1:
            text += "\n  " + "\n  ".join(lines) + "\n"
        elif lines:
            text += lines[0]
        if self._modules:
            text += "\n  " + "\n  ".join(f"({name}): " + repr(m).replace("\n", "\n  ")
                                         for name, m in self._modules.items()) + "\n"
        return text + ")"


def _conv_default(in_channels, kernel_size, dims=2):
    """Paddle's convolution weights: N(0, 2 / n), n = in_channels * kernel elements (Paddle
    does not divide by the groups)."""
    k = [kernel_size] * dims if isinstance(kernel_size, int) else list(kernel_size)
    return I.Normal(0.0, math.sqrt(2.0 / (in_channels * math.prod(k))))


class Linear(Layer):
    """``y = x @ weight + bias`` with ``weight`` of shape [in_features, out_features];
    Xavier-uniform weight and zero bias by default (Paddle)."""

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = self.create_parameter([in_features, out_features], weight_attr)
        self._create_bias([out_features], bias_attr)

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self):
        dtype = "float32" if self.weight is None else self.weight.dtype.name
        return f"in_features={self.in_features}, out_features={self.out_features}, dtype={dtype}"


def _no_bias(bias_attr):
    return bias_attr is False


def _as_list(v, n):
    return [v] * n if isinstance(v, int) else list(v)


class _PaddleConv:
    """What Paddle's convolutions add to the shared ones: ``data_format`` (channels last
    too), ``padding='same'`` with strides (TensorFlow's split: the odd element at the end),
    and Paddle's repr (settings at their default left out, ``data_format`` always shown)."""

    def _paddle_conv(self, in_channels, out_channels, kernel_size, stride, padding,
                     output_padding, dilation, groups, padding_mode, data_format):
        n = len(data_format) - 2
        self._conv_repr = dict(in_channels=in_channels, out_channels=out_channels,
                               kernel_size=_as_list(kernel_size, n), stride=_as_list(stride, n),
                               padding=padding, output_padding=output_padding,
                               dilation=_as_list(dilation, n), groups=groups,
                               padding_mode=padding_mode)
        self.data_format = data_format
        # padding per side, or 'SAME' with strides: padded here, the shared layer pads nothing
        self._pads_input = _needs_explicit_padding(padding, stride)

    def forward(self, x, output_size=None):
        return F._channels_first(self._channels_first_forward, x, self.data_format, output_size)

    def _channels_first_forward(self, x, output_size=None):
        r = self._conv_repr
        if self._pads_input:
            pads = F._explicit_padding(r["padding"], x.shape[2:], r["kernel_size"], r["stride"],
                                      r["dilation"])
            return type(self)._fn(_F.pad(x, pads), self.weight, self.bias, self.stride, 0,
                                  self.dilation, self.groups)
        if output_size is not None:         # a transposed convolution's output size
            return super().forward(x, output_size)
        return super().forward(x)

    def extra_repr(self):
        r = self._conv_repr
        s = f"{r['in_channels']}, {r['out_channels']}, kernel_size={r['kernel_size']}"
        if any(v != 1 for v in r["stride"]):
            s += f", stride={r['stride']}"
        if r["padding"] != 0:
            s += f", padding={r['padding']}"
        if r["padding_mode"] != "zeros":
            s += f", padding_mode={r['padding_mode']}"
        if r["output_padding"] != 0:
            s += f", output_padding={r['output_padding']}"
        if any(v != 1 for v in r["dilation"]):
            s += f", dilation={r['dilation']}"
        if r["groups"] != 1:
            s += f", groups={r['groups']}"
        return s + f", data_format={self.data_format}"


def _needs_explicit_padding(padding, stride):
    """Whether Paddle's ``padding`` is one the shared convolutions do not take: 'SAME' with
    strides, or sizes per side."""
    if isinstance(padding, str):
        return padding.lower() == "same" and any(s != 1 for s in _as_list(stride, 1))
    return isinstance(padding, (list, tuple)) and len(padding) > 2


def _shared_padding(padding, stride):
    """Paddle's padding for the shared layers: 'SAME'/'VALID' in lower case; 0 where
    ``_PaddleConv`` pads the input itself."""
    if _needs_explicit_padding(padding, stride):
        return 0
    return padding.lower() if isinstance(padding, str) else padding


class Conv2D(_PaddleConv, _nn.Conv2d, Layer):
    """2-D convolution; weights N(0, 2 / (in_channels * kh * kw)) and zero bias by default
    (Paddle)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NCHW"):
        super().__init__(in_channels, out_channels, kernel_size, stride,
                         _shared_padding(padding, stride), dilation,
                         groups, bias=not _no_bias(bias_attr), padding_mode=padding_mode)
        self._paddle_conv(in_channels, out_channels, kernel_size, stride, padding, 0, dilation,
                          groups, padding_mode, data_format)
        self._paddle_weight_bias(weight_attr, bias_attr, _conv_default(in_channels, kernel_size))


class Conv3D(_PaddleConv, _nn.Conv3d, Layer):
    """3-D convolution over NCDHW (or NDHWC); weights N(0, 2 / (in_channels * kd * kh * kw))
    and zero bias by default (Paddle); ``bias=False`` or ``bias_attr=False``: no bias.

        >>> import mutograd.compat.paddle as paddle
        >>> conv = paddle.nn.Conv3D(2, 4, 3, padding=1)
        >>> list(conv(paddle.ones([1, 2, 4, 4, 4])).shape)
        [1, 4, 4, 4, 4]
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, *, bias=True, padding_mode="zeros", device=None, dtype=None,
                 weight_attr=None, bias_attr=None, data_format="NCDHW"):
        super().__init__(in_channels, out_channels, kernel_size, stride,
                         _shared_padding(padding, stride), dilation, groups,
                         bias=bias and not _no_bias(bias_attr), padding_mode=padding_mode)
        self._paddle_conv(in_channels, out_channels, kernel_size, stride, padding, 0, dilation,
                          groups, padding_mode, data_format)
        self._paddle_weight_bias(weight_attr, bias_attr if bias else False,
                                 _conv_default(in_channels, kernel_size, 3))
        if dtype is not None:
            self.to(dtype=dtype)


class Conv1D(_PaddleConv, _nn.Conv1d, Layer):
    """1-D convolution over (N, C, L) or (N, L, C); weights N(0, 2 / fan_in) and zero bias by
    default."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NCL"):
        super().__init__(in_channels, out_channels, kernel_size, stride,
                         _shared_padding(padding, stride), dilation,
                         groups, bias=not _no_bias(bias_attr), padding_mode=padding_mode)
        self._paddle_conv(in_channels, out_channels, kernel_size, stride, padding, 0, dilation,
                          groups, padding_mode, data_format)
        k = kernel_size if isinstance(kernel_size, int) else kernel_size[0]
        self._paddle_weight_bias(weight_attr, bias_attr, _conv_default(in_channels, [k]))


class Conv2DTranspose(_PaddleConv, _nn.ConvTranspose2d, Layer):
    """Transposed 2-D convolution (weight [in, out/groups, kh, kw]); Xavier-uniform weights
    (Paddle's fans of that layout) and zero bias by default."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, dilation=1, weight_attr=None, bias_attr=None,
                 data_format="NCHW"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, output_padding,
                         groups, bias=not _no_bias(bias_attr), dilation=dilation)
        self._paddle_conv(in_channels, out_channels, kernel_size, stride, padding,
                          output_padding, dilation, groups, "zeros", data_format)
        self._paddle_weight_bias(weight_attr, bias_attr, I.XavierUniform())


class Conv3DTranspose(_PaddleConv, _nn.ConvTranspose3d, Layer):
    """Transposed 3-D convolution (weight [in, out/groups, kd, kh, kw]); Xavier-uniform weights
    and zero bias by default.

        >>> import mutograd.compat.paddle as paddle
        >>> conv = paddle.nn.Conv3DTranspose(2, 4, 2, stride=2)
        >>> list(conv(paddle.ones([1, 2, 2, 2, 2])).shape)
        [1, 4, 4, 4, 4]
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, dilation=1, groups=1, weight_attr=None, bias_attr=None,
                 data_format="NCDHW"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, output_padding,
                         groups, bias=not _no_bias(bias_attr), dilation=dilation)
        self._paddle_conv(in_channels, out_channels, kernel_size, stride, padding,
                          output_padding, dilation, groups, "zeros", data_format)
        self._paddle_weight_bias(weight_attr, bias_attr, I.XavierUniform())


class Conv1DTranspose(_PaddleConv, Layer):
    """Transposed 1-D convolution (weight [in, out/groups, k]); Xavier-uniform weights and zero
    bias by default."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, dilation=1, weight_attr=None, bias_attr=None,
                 data_format="NCL"):
        super().__init__()
        k = kernel_size if isinstance(kernel_size, int) else kernel_size[0]
        self._args = dict(stride=stride, padding=padding, output_padding=output_padding,
                          groups=groups, dilation=dilation)
        self._paddle_conv(in_channels, out_channels, k, stride, padding, output_padding,
                          dilation, groups, "zeros", data_format)
        self.weight = self.create_parameter([in_channels, out_channels // groups, k],
                                            weight_attr)
        self._create_bias([out_channels], bias_attr)

    def forward(self, x, output_size=None):
        return F.conv1d_transpose(x, self.weight, self.bias, output_size=output_size,
                                  data_format=self.data_format, **self._args)


class _BatchNorm:
    """Paddle's arguments; ``momentum`` is the weight of the old statistic (PyTorch: 1 - it).
    The running statistics are Paddle's ``_mean`` and ``_variance``: parameters that take no
    gradient (so ``parameters()`` lists them and a Paddle checkpoint loads), the batch count is
    not saved, and the running variance is updated with the biased batch variance, as Paddle
    does."""

    _var_ddof = 0

    def __init__(self, num_features, momentum=0.9, epsilon=1e-5, weight_attr=None,
                 bias_attr=None, data_format="NCHW", use_global_stats=None, name=None):
        super().__init__(num_features, eps=epsilon, momentum=1 - momentum)
        self._paddle_momentum, self.data_format = momentum, data_format
        self.use_global_stats = use_global_stats
        b = self._buffers
        for name, running in (("_mean", "running_mean"), ("_variance", "running_var")):
            stat = Parameter(b.pop(running))
            stat.stop_gradient = True
            self.register_parameter(name, stat)
        self.register_buffer("num_batches_tracked", b.pop("num_batches_tracked"),
                             persistent=False)
        self._paddle_weight_bias(weight_attr, bias_attr, I.Constant(1.0))

    def forward(self, x):
        if self.use_global_stats:       # the running statistics, also while training
            return F.batch_norm(x, self._mean, self._variance, self.weight, self.bias,
                                False, epsilon=self.eps, data_format=self.data_format)
        return F._channels_first(super().forward, x, self.data_format)

    def extra_repr(self):
        s = (f"num_features={self.num_features}, momentum={self._paddle_momentum}, "
             f"epsilon={self.eps}")
        if self.data_format != "NCHW":
            s += f", data_format={self.data_format}"
        return s

    # the shared BatchNorm code reads the statistics under PyTorch's names
    running_mean = property(lambda self: self._parameters["_mean"])
    running_var = property(lambda self: self._parameters["_variance"])


class BatchNorm1D(_BatchNorm, _nn.BatchNorm1d, Layer):
    def __init__(self, num_features, momentum=0.9, epsilon=1e-5, weight_attr=None,
                 bias_attr=None, data_format="NCL", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)


class BatchNorm2D(_BatchNorm, _nn.BatchNorm2d, Layer):
    pass


class BatchNorm3D(_BatchNorm, _nn.BatchNorm3d, Layer):
    """Batch normalisation of NCDHW (or NDHWC) input, with Paddle's arguments.

        >>> import mutograd.compat.paddle as paddle
        >>> list(paddle.nn.BatchNorm3D(2)(paddle.ones([2, 2, 1, 1, 1])).shape)
        [2, 2, 1, 1, 1]
    """

    def __init__(self, num_features, momentum=0.9, epsilon=1e-5, weight_attr=None,
                 bias_attr=None, data_format="NCDHW", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)


class BatchNorm(BatchNorm2D):
    """Paddle's older batch normalisation: the channel count, any layout N, C, ...; ``act``
    (an activation's name) applied to the result; ``use_global_stats`` as BatchNorm2D's."""

    def __init__(self, num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-5,
                 param_attr=None, bias_attr=None, dtype="float32", data_layout="NCHW",
                 in_place=False, moving_mean_name=None, moving_variance_name=None,
                 do_model_average_for_mean_and_var=True, use_global_stats=False,
                 trainable_statistics=False):
        super().__init__(num_channels, momentum, epsilon, param_attr, bias_attr, data_layout,
                         use_global_stats or is_test)
        self.act = act

    def forward(self, x):
        # any rank N, C, ... (BatchNorm2D's check of a 4-D input does not apply)
        out = F.batch_norm(x, self._mean, self._variance, self.weight, self.bias,
                           self.training and not self.use_global_stats, self._paddle_momentum,
                           self.eps, self.data_format)
        return out if self.act is None else getattr(F, self.act)(out)

    def extra_repr(self):
        return ""


class LayerNorm(_nn.LayerNorm, Layer):
    """Layer normalisation over the trailing ``normalized_shape``; the weight and bias are
    flat (``[prod(normalized_shape)]``, Paddle's layout)."""

    def __init__(self, normalized_shape, epsilon=1e-5, weight_attr=None, bias_attr=None,
                 name=None):
        super().__init__(normalized_shape, eps=epsilon)
        for k in ("weight", "bias"):
            if getattr(self, k, None) is not None:
                flat = Parameter(getattr(self, k).detach().reshape([-1]))
                self.register_parameter(k, flat)
        self._paddle_weight_bias(weight_attr, bias_attr, I.Constant(1.0))

    def forward(self, x):
        shape = list(self.normalized_shape)
        w = None if self.weight is None else self.weight.reshape(shape)
        b = None if self.bias is None else self.bias.reshape(shape)
        return _F.layer_norm(x, self.normalized_shape, w, b, self.eps)

    def extra_repr(self):
        return f"normalized_shape={list(self.normalized_shape)}, epsilon={self.eps}"


class GroupNorm(_nn.GroupNorm, Layer):
    def __init__(self, num_groups, num_channels, epsilon=1e-5, weight_attr=None, bias_attr=None,
                 data_format="NCHW", name=None):
        super().__init__(num_groups, num_channels, eps=epsilon)
        self.data_format = data_format
        self._paddle_weight_bias(weight_attr, bias_attr, I.Constant(1.0))

    def forward(self, x):
        return F._channels_first(super().forward, x, self.data_format)

    def extra_repr(self):
        return (f"num_groups={self.num_groups}, num_channels={self.num_channels}, "
                f"epsilon={self.eps}")


class Embedding(_nn.Embedding, Layer):
    """A lookup table; Xavier-uniform weights by default (Paddle 3.3.1's, measured: std
    ``sqrt(2 / (num + dim))``, bounded by ``sqrt(6 / (num + dim))``), the ``padding_idx`` row 0."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, *, scale_grad_by_freq=False, sparse=False, weight_attr=None,
                 name=None):
        super().__init__(num_embeddings, embedding_dim, padding_idx, max_norm, norm_type,
                         scale_grad_by_freq, sparse)
        self._paddle_param("weight", weight_attr, I.XavierUniform())
        if self.padding_idx is not None:
            from ....autograd.grad_mode import no_grad
            with no_grad():
                self.weight[self.padding_idx] = 0.0

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s + f", sparse={self.sparse}, scale_grad_by_freq={self.scale_grad_by_freq}"


class Dropout(_nn.Dropout, Layer):
    """Paddle's dropout: ``axis`` (drop whole slices along the other axes) and ``mode``
    (``'downscale_in_infer'``: no scaling while training, ``1 - p`` in eval)."""

    def __init__(self, p=0.5, inplace=False, axis=None, mode="upscale_in_train", name=None):
        super().__init__(p, inplace)
        self.axis, self.mode = axis, mode

    def forward(self, x):
        return F.dropout(x, self.p, self.axis, self.training, self.mode)

    def extra_repr(self):
        return f"p={self.p}, axis={self.axis}, mode={self.mode}, inplace={self.inplace}"


class Flatten(_nn.Flatten, Layer):
    def __init__(self, start_axis=1, stop_axis=-1):
        super().__init__(start_axis, stop_axis)

    def extra_repr(self):
        return ""


class _PaddlePool:
    """Paddle's pools over the shared ones: computed by Paddle's functions (``data_format``,
    'SAME' padding, int32 masks); Paddle's repr (the stride as given)."""

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self._given_stride}, " \
               f"padding={self.padding}"


class MaxPool2D(_PaddlePool, _nn.MaxPool2d, Layer):
    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False,
                 ceil_mode=False, data_format="NCHW", name=None):
        super().__init__(kernel_size, stride, padding, return_indices=return_mask,
                         ceil_mode=ceil_mode)
        self._given_stride, self.data_format = stride, data_format

    def forward(self, x):
        return F.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.return_indices, self.data_format)


class AvgPool2D(_PaddlePool, _nn.AvgPool2d, Layer):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode=ceil_mode,
                         count_include_pad=not exclusive, divisor_override=divisor_override)
        self._given_stride, self.data_format = stride, data_format

    def forward(self, x):
        return F.avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            not self.count_include_pad, self.divisor_override, self.data_format)


class AdaptiveAvgPool2D(_nn.AdaptiveAvgPool2d, Layer):
    def __init__(self, output_size, data_format="NCHW", name=None):
        super().__init__(output_size)
        self.data_format = data_format

    def forward(self, x):
        return F._channels_first(super().forward, x, self.data_format)


class MaxPool3D(_PaddlePool, _nn.MaxPool3d, Layer):
    """Maximum over 3-D windows (NCDHW or NDHWC), with Paddle's padding forms and int32 masks.

        >>> import mutograd.compat.paddle as paddle
        >>> list(paddle.nn.MaxPool3D(2)(paddle.ones([1, 1, 4, 4, 4])).shape)
        [1, 1, 2, 2, 2]
    """

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format="NCDHW", name=None):
        super().__init__(kernel_size, stride, padding, return_indices=return_mask,
                         ceil_mode=ceil_mode)
        self._given_stride, self.data_format = stride, data_format

    def forward(self, x):
        return F.max_pool3d(x, self.kernel_size, self.stride, self.padding, self.return_indices,
                            self.ceil_mode, self.data_format)


class AvgPool3D(_PaddlePool, _nn.AvgPool3d, Layer):
    """Mean over 3-D windows (NCDHW or NDHWC); ``exclusive=True`` leaves padding out.

        >>> import mutograd.compat.paddle as paddle
        >>> list(paddle.nn.AvgPool3D(2)(paddle.ones([1, 1, 4, 4, 4])).shape)
        [1, 1, 2, 2, 2]
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCDHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode=ceil_mode,
                         count_include_pad=not exclusive, divisor_override=divisor_override)
        self._given_stride, self.data_format = stride, data_format

    def forward(self, x):
        return F.avg_pool3d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            not self.count_include_pad, self.divisor_override, self.data_format)


class AdaptiveAvgPool3D(_nn.AdaptiveAvgPool3d, Layer):
    """Mean over ``output_size`` near-equal 3-D windows (NCDHW or NDHWC).

        >>> import mutograd.compat.paddle as paddle
        >>> list(paddle.nn.AdaptiveAvgPool3D(1)(paddle.ones([1, 2, 4, 4, 4])).shape)
        [1, 2, 1, 1, 1]
    """

    def __init__(self, output_size, data_format="NCDHW", name=None):
        super().__init__(output_size)
        self.data_format = data_format

    def forward(self, x):
        return F.adaptive_avg_pool3d(x, self.output_size, self.data_format)


class ReLU(_nn.ReLU, Layer):
    def __init__(self, name=None):
        super().__init__()


class ReLU6(_nn.ReLU6, Layer):
    def __init__(self, name=None):
        super().__init__()


class Silu(_nn.SiLU, Layer):
    def __init__(self, inplace=False, name=None):
        super().__init__(inplace)

    def extra_repr(self):
        return f"inplace={self.inplace}"


class LeakyReLU(_nn.LeakyReLU, Layer):
    def __init__(self, negative_slope=0.01, name=None):
        super().__init__(negative_slope)


class ELU(_nn.ELU, Layer):
    def __init__(self, alpha=1.0, name=None):
        super().__init__(alpha)


class GELU(_nn.GELU, Layer):
    def __init__(self, approximate=False, name=None):
        super().__init__("tanh" if approximate in (True, "tanh") else "none")
        self._given_approximate = approximate

    def extra_repr(self):
        return f"approximate={self._given_approximate}"


class Sigmoid(_nn.Sigmoid, Layer):
    pass


class Tanh(_nn.Tanh, Layer):
    pass


class Softmax(_nn.Softmax, Layer):
    def __init__(self, axis=-1, name=None):
        super().__init__(axis)

    def extra_repr(self):
        return f"axis={self.dim}"


class Identity(_nn.Identity, Layer):
    pass


class Sequential(_nn.Sequential, Layer):
    """Layers called in order; given as layers, or as ``(name, layer)`` pairs (Paddle)."""

    def __init__(self, *layers):
        if layers and all(isinstance(item, (tuple, list)) for item in layers):
            from collections import OrderedDict
            layers = (OrderedDict(layers),)
        super().__init__(*layers)

    __repr__ = Layer.__repr__     # every sublayer on its line (no "(0-1): 2 x ..." runs)


class LayerList(_nn.ModuleList, Layer):
    __repr__ = Layer.__repr__


class LayerDict(_nn.ModuleDict, Layer):
    __repr__ = Layer.__repr__


class ParameterList(_nn.ParameterList, Layer):
    """``mutograd.nn.ParameterList`` whose repr lists no entries (Paddle's)."""

    __repr__ = Layer.__repr__

    def extra_repr(self):
        return ""


# ---- losses --------------------------------------------------------------------------------
class CrossEntropyLoss(Layer):
    def __init__(self, weight=None, ignore_index=-100, reduction="mean", soft_label=False,
                 axis=-1, use_softmax=True, label_smoothing=0.0, name=None):
        super().__init__()
        self.kw = {"weight": weight, "ignore_index": ignore_index, "reduction": reduction,
                   "soft_label": soft_label, "axis": axis, "use_softmax": use_softmax,
                   "label_smoothing": label_smoothing}

    def forward(self, input, label):
        return F.cross_entropy(input, label, **self.kw)


class _Loss(Layer):
    fn = None

    def __init__(self, reduction="mean", name=None):
        super().__init__()
        self.reduction = reduction

    def forward(self, input, label):
        return type(self).fn(input, label, reduction=self.reduction)


class MSELoss(_Loss):
    fn = staticmethod(_F.mse_loss)


class L1Loss(_Loss):
    fn = staticmethod(_F.l1_loss)


class SmoothL1Loss(Layer):
    def __init__(self, reduction="mean", delta=1.0, is_huber=True, name=None):
        super().__init__()
        self.reduction, self.delta, self.is_huber = reduction, delta, is_huber

    def forward(self, input, label):
        return F.smooth_l1_loss(input, label, self.reduction, self.delta, self.is_huber)


HuberLoss = SmoothL1Loss


class NLLLoss(Layer):
    def __init__(self, weight=None, ignore_index=-100, reduction="mean", name=None):
        super().__init__()
        self.weight, self.ignore_index, self.reduction = weight, ignore_index, reduction

    def forward(self, input, label):
        return F.nll_loss(input, label, self.weight, self.ignore_index, self.reduction)


class BCELoss(Layer):
    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__()
        self.weight, self.reduction = weight, reduction

    def forward(self, input, label):
        return _F.binary_cross_entropy(input, label, self.weight, self.reduction)


class BCEWithLogitsLoss(Layer):
    def __init__(self, weight=None, reduction="mean", pos_weight=None, name=None):
        super().__init__()
        self.weight, self.reduction, self.pos_weight = weight, reduction, pos_weight

    def forward(self, logit, label):
        return _F.binary_cross_entropy_with_logits(logit, label, self.weight, self.reduction,
                                                   self.pos_weight)



class AdaptiveLogSoftmaxWithLoss(Layer):
    """The adaptive softmax (:func:`F.adaptive_log_softmax_with_loss`): ``head_weight``
    [in_features, shortlist + clusters] (and ``head_bias`` with ``head_bias=True``); cluster i
    projects to ``in_features // div_value**(i+1)`` features. As in Paddle 3.3.1 the
    ``tail_weights`` are a plain list of [in, hidden] and [hidden, size] pairs, which
    ``parameters()`` and ``state_dict()`` do not list."""

    def __init__(self, in_features, n_classes, cutoffs, weight_attr=None, bias_attr=None,
                 div_value=4.0, head_bias=False, name=None):
        super().__init__()
        from ....nn.modules.adaptive import set_cutoffs
        set_cutoffs(self, in_features, n_classes, cutoffs)
        self.div_value, self.is_head_bias = div_value, head_bias
        self.head_weight = self.create_parameter([in_features, self.head_size], weight_attr)
        self.head_bias = self.create_parameter([self.head_size], bias_attr, is_bias=True) \
            if head_bias else None
        self.tail_weights = []
        for i in range(self.n_clusters):
            hsz = int(in_features // (div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail_weights.append([self.create_parameter([in_features, hsz], weight_attr),
                                      self.create_parameter([hsz, osz], weight_attr)])

    def forward(self, input, label):
        return F.adaptive_log_softmax_with_loss(input, label, self.head_weight,
                                                self.tail_weights, self.cutoffs, self.head_bias)

    def log_prob(self, input):
        """Log-probabilities of all ``n_classes`` classes, (N, n_classes)."""
        head = _F.log_softmax(F.linear(input, self.head_weight, self.head_bias), 1)
        parts = [head[:, :self.shortlist_size]]
        for i, (w_in, w_out) in enumerate(self.tail_weights):
            cluster = _F.log_softmax(input.matmul(w_in).matmul(w_out), 1)
            parts.append(cluster + head[:, self.shortlist_size + i:self.shortlist_size + i + 1])
        return _mg.cat(parts, 1)

    def predict(self, input):
        """The most probable class of each row: as Paddle 3.3.1, float32 unless no row's
        head choice is in the shortlist (then int64)."""
        head_choice = F.linear(input, self.head_weight, self.head_bias).argmax(1)
        in_shortlist = head_choice < self.shortlist_size
        if bool(in_shortlist.all()):
            return head_choice.astype("float32")
        full = self.log_prob(input).argmax(1)
        if not bool(in_shortlist.any()):
            return full
        return _mg.where(in_shortlist, head_choice, full).astype("float32")
