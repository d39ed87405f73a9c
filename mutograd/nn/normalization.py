"""Instance normalisation, local response normalisation (and its legacy cross-map form),
BatchNorm3d and SyncBatchNorm (one process: batch normalisation).

    >>> import mutograd as mg
    >>> y = mg.nn.InstanceNorm1d(2)(mg.randn([3, 2, 8]))
    >>> [round(v, 6) + 0.0 for v in y.mean(-1).reshape(-1).tolist()]
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
"""
import numpy as np

from ..autograd.grad_mode import no_grad
from ..errors import ShapeError
from ..ops import OPS, call
from ..tensor import _wrap
from . import functional as F
from .layers import _BatchNorm
from .module import Module

__all__ = ["BatchNorm3d", "CrossMapLRN2d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
           "LocalResponseNorm", "SyncBatchNorm"]


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalise each (sample, channel) of (N, C, ...) over its spatial axes, then scale and
    shift per channel. With ``use_input_stats`` the running statistics (when given) move towards
    the batch's mean of the instances' means and unbiased variances, as PyTorch's.

        >>> import mutograd as mg
        >>> [round(v, 4) for v in instance_norm(mg.tensor([[[1., 3.]]])).reshape(-1).tolist()]
        [-1.0, 1.0]
    """
    if input.ndim < 3:
        raise ShapeError(f"instance_norm: expected (N, C, ...) input with at least one spatial "
                         f"axis, got shape {list(input.shape)}")
    axes = tuple(range(2, input.ndim))
    shape = (1, -1) + (1,) * (input.ndim - 2)
    if use_input_stats:
        if int(np.prod(input.shape[2:])) <= 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input "
                             f"size {list(input.shape)}")
        out = call(OPS["normalize"], [input], {"axis": axes, "eps": eps})
        if running_mean is not None:
            with no_grad():
                xd = input._data
                running_mean.mul_(1 - momentum).add_(
                    _wrap(xd.mean(axis=axes).mean(axis=0)), alpha=momentum)
                running_var.mul_(1 - momentum).add_(
                    _wrap(xd.var(axis=axes, ddof=1).mean(axis=0)), alpha=momentum)
    else:
        if running_mean is None:
            raise ValueError("instance_norm: use_input_stats=False needs running_mean and "
                             "running_var")
        mean = running_mean.reshape(shape)
        out = (input - mean) * (running_var.reshape(shape) + eps).rsqrt()
    return F._affine(out, weight, bias, shape)


class _InstanceNorm(_BatchNorm):
    """PyTorch's InstanceNorm: BatchNorm's parameters and buffers, per-instance statistics;
    the defaults are ``affine=False, track_running_stats=False``."""
    _spatial = 1

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, dtype=dtype)

    def forward(self, x):
        nd = self._spatial + 2
        if x.ndim not in (nd - 1, nd):
            raise ValueError(f"expected {nd - 1}D or {nd}D input (got {x.ndim}D input)")
        unbatched = x.ndim == nd - 1
        if unbatched:
            x = x.unsqueeze(0)
        if x.shape[1] != self.num_features and self.affine:
            raise ValueError(f"expected input's size at dim=1 to match num_features "
                             f"({self.num_features}), but got: {x.shape[1]}.")
        use_input_stats = self.training or not self.track_running_stats
        out = instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                            use_input_stats, self.momentum, self.eps)
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of (N, C, L) or (C, L)."""
    _spatial = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of (N, C, H, W) or (C, H, W)."""
    _spatial = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of (N, C, D, H, W) or (C, D, H, W)."""
    _spatial = 3


class BatchNorm3d(_BatchNorm):
    """Batch normalisation of (N, C, D, H, W) inputs per channel."""
    _dims = (5,)


class SyncBatchNorm(_BatchNorm):
    """Batch normalisation of (N, C, ...) inputs; in one process the batch is the whole batch,
    so this is BatchNorm (``process_group`` is accepted and unused)."""
    _dims = (2, 3, 4, 5)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, dtype=dtype)
        self.process_group = process_group

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every BatchNorm layer (recursively) replaced by a SyncBatchNorm that
        shares its parameters and buffers.

            >>> import mutograd as mg
            >>> net = mg.nn.Sequential(mg.nn.Linear(2, 3), mg.nn.BatchNorm1d(3))
            >>> type(SyncBatchNorm.convert_sync_batchnorm(net)[1]).__name__
            'SyncBatchNorm'
        """
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, _InstanceNorm):
            out = cls(module.num_features, module.eps, module.momentum, module.affine,
                      module.track_running_stats, process_group)
            out._parameters.update(module._parameters)
            out._buffers.update(module._buffers)
            out.training = module.training
        for name, child in module._modules.items():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out


def _window_sum(sq, matrix):
    """Sums of ``sq`` over windows of channels (axis 1): ``matrix[i, c]`` is 1 when channel i
    is in the window of channel c."""
    moved = sq.movedim(1, -1)
    return (moved @ _wrap(matrix.astype(sq.dtype.np))).movedim(-1, 1)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """``x / (k + alpha * mean(x^2 over size neighbouring channels)) ** beta`` (the window
    of channel c is c - size//2 .. c + (size-1)//2, zero beyond the edges, as PyTorch's).

        >>> import mutograd as mg
        >>> local_response_norm(mg.ones([1, 1, 2]), 1, alpha=1.0, beta=1.0, k=1.0).tolist()
        [[[0.5, 0.5]]]
    """
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.ndim} "
                         f"dimensions)")
    c = input.shape[1]
    i, j = np.arange(c)[:, None], np.arange(c)[None, :]
    matrix = ((i >= j - size // 2) & (i <= j + (size - 1) // 2)).astype(np.float64)
    div = (_window_sum(input * input, matrix) * (alpha / size) + k) ** beta
    return input / div


class LocalResponseNorm(Module):
    """:func:`local_response_norm` as a layer."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, x):
        return local_response_norm(x, self.size, self.alpha, self.beta, self.k)

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

    def forward(self, x):
        if x.ndim != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {x.ndim}D instead.")
        scale = _window_sum(x * x, _cross_map_windows(x.shape[1], self.size))
        return x * (scale * (self.alpha / self.size) + self.k) ** (-self.beta)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
