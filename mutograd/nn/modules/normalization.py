"""Normalisation over features: ``LayerNorm``, ``GroupNorm``, ``RMSNorm``, ``LocalResponseNorm``
and its legacy cross-map form ``CrossMapLRN2d``.

    >>> import mutograd as mg
    >>> y = mg.nn.LayerNorm(8)(mg.randn([2, 8]))
    >>> [round(v, 6) + 0.0 for v in y.mean(-1).tolist()]
    [0.0, 0.0]
"""

import numpy as np

from ...ops.creation import ones, zeros
from .. import functional as F
from ..functional.normalization import _window_sum
from ..module import Module, Parameter


class LocalResponseNorm(Module):
    """:func:`local_response_norm` as a layer."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


def _cross_map_windows(c, size):
    """The legacy (Lua Torch) cross-map window of each channel, built the way its running sum
    is: the first window is channels 0 .. pre_pad-1; each next one adds channel
    c + pre_pad - 1 and, once c > pre_pad, drops channel c - pre_pad."""
    pre_pad = int((size - 1) / 2 + 1)
    matrix = np.zeros((c, c))
    matrix[:min(pre_pad, c), 0] = 1
    for j in range(1, c):
        matrix[:, j] = matrix[:, j - 1]
        if j < c - pre_pad + 1:
            matrix[j + pre_pad - 1, j] += 1
        if j > pre_pad:
            matrix[j - pre_pad, j] -= 1
    return matrix


class CrossMapLRN2d(Module):
    """PyTorch's legacy cross-channel LRN of 4-D input:
    ``x * (k + alpha / size * window_sum(x^2)) ** -beta``."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        if input.ndim != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.ndim}D instead.")
        scale = _window_sum(input * input, _cross_map_windows(input.shape[1], self.size))
        return input * (scale * (self.alpha / self.size) + self.k) ** (-self.beta)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


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
                 device=None, dtype=None):
        super().__init__()
        shape = _shape(normalized_shape)
        self.normalized_shape, self.eps = shape, eps
        self.elementwise_affine = elementwise_affine
        _scale_shift(self, shape, elementwise_affine, elementwise_affine and bias, dtype)
        _place(self, device)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


def _place(module, device):
    """Move a layer made on the CPU to ``device`` (its constructor's ``device=``)."""
    if device is not None:
        module.to(device)


class GroupNorm(Module):
    """Normalise each of ``num_groups`` groups of channels (with the spatial axes), then a
    per-channel affine."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps = num_groups, num_channels, eps
        self.affine = affine
        _scale_shift(self, (num_channels,), affine, affine and bias, dtype)
        _place(self, device)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")


class RMSNorm(Module):
    """Root-mean-square normalisation over the trailing ``normalized_shape`` axes, with an
    element-wise scale."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        self.normalized_shape, self.eps = _shape(normalized_shape), eps
        self.elementwise_affine = elementwise_affine
        _scale_shift(self, self.normalized_shape, elementwise_affine, None, dtype)
        _place(self, device)

    def forward(self, x):     # (PyTorch names this one's input ``x``)
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")
