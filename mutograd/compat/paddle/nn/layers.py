"""Paddle's layer names and arguments over ``mutograd.nn``.

Differences from the PyTorch-named layers that matter: ``Linear`` stores its weight as
``[in_features, out_features]`` (Paddle's layout, ``y = x @ W + b``); BatchNorm's ``momentum`` is
the weight of the old running statistic (0.9 means 0.1 of the new batch); ``AvgPool2D`` excludes
padding from the mean by default (``exclusive=True``); ``SmoothL1Loss`` is Paddle's Huber form
(``delta * smooth_l1(beta=delta)``); ``Layer.parameters()`` returns a list.
"""
import math

from .... import nn as _nn
from ....nn import functional as _F
from . import functional as F
from . import initializer as I
from ..tensor import Parameter


class Layer(_nn.Module):
    """``paddle.nn.Layer``: a Module whose ``parameters()`` is a list, with Paddle's
    ``create_parameter``, ``add_sublayer``, ``sublayers`` and ``set_state_dict``."""

    _parameter_class = Parameter   # its parameters and buffers are paddle tensors

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

    def set_state_dict(self, state_dict, use_structured_name=True):
        """Copy the matching entries of ``state_dict`` (Tensors or arrays) into this layer's
        tensors in place; returns ``(missing_keys, unexpected_keys)``, as Paddle (no error
        for either; a shape mismatch still raises before anything is written)."""
        return self.load_state_dict(state_dict, strict=False)

    set_dict = load_dict = set_state_dict


def _conv_default(in_channels, kernel_size):
    """Paddle's convolution weights: N(0, 2 / n), n = in_channels * kernel elements (Paddle
    does not divide by the groups)."""
    k = [kernel_size] * 2 if isinstance(kernel_size, int) else list(kernel_size)
    return I.Normal(0.0, math.sqrt(2.0 / (in_channels * math.prod(k))))


class Linear(Layer):
    """``y = x @ weight + bias`` with ``weight`` of shape [in_features, out_features];
    Xavier-uniform weight and zero bias by default (Paddle)."""

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        self.weight = self.create_parameter([in_features, out_features], weight_attr)
        self._create_bias([out_features], bias_attr)

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)


def _require_format(data_format, supported):
    if data_format != supported:
        raise ValueError(f"only data_format='{supported}' is supported")


def _no_bias(bias_attr):
    return bias_attr is False


class Conv2D(_nn.Conv2d, Layer):
    """2-D convolution; weights N(0, 2 / (in_channels * kh * kw)) and zero bias by default
    (Paddle)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NCHW"):
        _require_format(data_format, "NCHW")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias=not _no_bias(bias_attr), padding_mode=padding_mode)
        self._paddle_weight_bias(weight_attr, bias_attr, _conv_default(in_channels, kernel_size))


class Conv1D(_nn.Conv1d, Layer):
    """1-D convolution over (N, C, L); weights N(0, 2 / fan_in) and zero bias by default."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NCL"):
        _require_format(data_format, "NCL")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias=not _no_bias(bias_attr), padding_mode=padding_mode)
        k = kernel_size if isinstance(kernel_size, int) else kernel_size[0]
        self._paddle_weight_bias(weight_attr, bias_attr, _conv_default(in_channels, [k]))


class Conv2DTranspose(_nn.ConvTranspose2d, Layer):
    """Transposed 2-D convolution (weight [in, out/groups, kh, kw]); Xavier-uniform weights
    (Paddle's fans of that layout) and zero bias by default."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, dilation=1, weight_attr=None, bias_attr=None,
                 data_format="NCHW"):
        _require_format(data_format, "NCHW")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, output_padding,
                         groups, bias=not _no_bias(bias_attr), dilation=dilation)
        self._paddle_weight_bias(weight_attr, bias_attr, I.XavierUniform())

    def forward(self, x, output_size=None):
        return super().forward(x)


class Conv1DTranspose(Layer):
    """Transposed 1-D convolution (weight [in, out/groups, k]); Xavier-uniform weights and zero
    bias by default."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, dilation=1, weight_attr=None, bias_attr=None,
                 data_format="NCL"):
        super().__init__()
        k = kernel_size if isinstance(kernel_size, int) else kernel_size[0]
        self._args = dict(stride=stride, padding=padding, output_padding=output_padding,
                          groups=groups, dilation=dilation, data_format=data_format)
        self.weight = self.create_parameter([in_channels, out_channels // groups, k],
                                            weight_attr)
        self._create_bias([out_channels], bias_attr)

    def forward(self, x, output_size=None):
        return F.conv1d_transpose(x, self.weight, self.bias, output_size=output_size,
                                  **self._args)


class _BatchNorm:
    """Paddle's arguments; ``momentum`` is the weight of the old statistic (PyTorch: 1 - it).
    The running statistics are Paddle's ``_mean`` and ``_variance`` in ``state_dict`` (so a
    Paddle checkpoint loads), the batch count is not saved, and the running variance is updated
    with the biased batch variance, as Paddle does."""

    _var_ddof = 0

    def __init__(self, num_features, momentum=0.9, epsilon=1e-5, weight_attr=None,
                 bias_attr=None, data_format=None, use_global_stats=None, name=None):
        super().__init__(num_features, eps=epsilon, momentum=1 - momentum)
        b = self._buffers
        self.register_buffer("_mean", b.pop("running_mean"))
        self.register_buffer("_variance", b.pop("running_var"))
        self.register_buffer("num_batches_tracked", b.pop("num_batches_tracked"),
                             persistent=False)
        self._paddle_weight_bias(weight_attr, bias_attr, I.Constant(1.0))

    # the shared BatchNorm code reads the statistics under PyTorch's names
    running_mean = property(lambda self: self._buffers["_mean"])
    running_var = property(lambda self: self._buffers["_variance"])


class BatchNorm1D(_BatchNorm, _nn.BatchNorm1d, Layer):
    pass


class BatchNorm2D(_BatchNorm, _nn.BatchNorm2d, Layer):
    pass


class LayerNorm(_nn.LayerNorm, Layer):
    def __init__(self, normalized_shape, epsilon=1e-5, weight_attr=None, bias_attr=None,
                 name=None):
        super().__init__(normalized_shape, eps=epsilon)
        self._paddle_weight_bias(weight_attr, bias_attr, I.Constant(1.0))


class GroupNorm(_nn.GroupNorm, Layer):
    def __init__(self, num_groups, num_channels, epsilon=1e-5, weight_attr=None, bias_attr=None,
                 data_format="NCHW", name=None):
        super().__init__(num_groups, num_channels, eps=epsilon)
        self._paddle_weight_bias(weight_attr, bias_attr, I.Constant(1.0))


class Embedding(_nn.Embedding, Layer):
    """A lookup table; Xavier-uniform weights by default (Paddle 3.3.1's, measured: std
    ``sqrt(2 / (num + dim))``, bounded by ``sqrt(6 / (num + dim))``), the ``padding_idx`` row 0."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, sparse=False,
                 weight_attr=None, name=None):
        super().__init__(num_embeddings, embedding_dim, padding_idx)
        self._paddle_param("weight", weight_attr, I.XavierUniform())
        if self.padding_idx is not None:
            from ....autograd.grad_mode import no_grad
            with no_grad():
                self.weight[self.padding_idx] = 0.0


class Dropout(_nn.Dropout, Layer):
    def __init__(self, p=0.5, axis=None, mode="upscale_in_train", name=None):
        if axis is not None or mode != "upscale_in_train":
            raise ValueError("Dropout: only axis=None and mode='upscale_in_train' are supported")
        super().__init__(p)


class Flatten(_nn.Flatten, Layer):
    def __init__(self, start_axis=1, stop_axis=-1):
        super().__init__(start_axis, stop_axis)


class MaxPool2D(_nn.MaxPool2d, Layer):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 return_mask=False, data_format="NCHW", name=None):
        super().__init__(kernel_size, stride, padding)


class AvgPool2D(_nn.AvgPool2d, Layer):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCHW", name=None):
        super().__init__(kernel_size, stride, padding, count_include_pad=not exclusive,
                         divisor_override=divisor_override)


class AdaptiveAvgPool2D(_nn.AdaptiveAvgPool2d, Layer):
    def __init__(self, output_size, data_format="NCHW", name=None):
        super().__init__(output_size)


class ReLU(_nn.ReLU, Layer):
    def __init__(self, name=None):
        super().__init__()


class ReLU6(_nn.ReLU6, Layer):
    def __init__(self, name=None):
        super().__init__()


class Silu(_nn.SiLU, Layer):
    def __init__(self, name=None):
        super().__init__()


class LeakyReLU(_nn.LeakyReLU, Layer):
    def __init__(self, negative_slope=0.01, name=None):
        super().__init__(negative_slope)


class ELU(_nn.ELU, Layer):
    def __init__(self, alpha=1.0, name=None):
        super().__init__(alpha)


class GELU(_nn.GELU, Layer):
    def __init__(self, approximate=False, name=None):
        super().__init__("tanh" if approximate else "none")


class Sigmoid(_nn.Sigmoid, Layer):
    pass


class Tanh(_nn.Tanh, Layer):
    pass


class Softmax(_nn.Softmax, Layer):
    def __init__(self, axis=-1, name=None):
        super().__init__(axis)


class Identity(_nn.Identity, Layer):
    pass


class Sequential(_nn.Sequential, Layer):
    pass


class LayerList(_nn.ModuleList, Layer):
    pass


class LayerDict(_nn.ModuleDict, Layer):
    pass


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

