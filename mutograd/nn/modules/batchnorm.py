"""Batch and instance normalisation: ``BatchNorm1d/2d/3d``, ``SyncBatchNorm`` (one process:
batch normalisation) and ``InstanceNorm1d/2d/3d``, with running statistics as buffers.

    >>> import mutograd as mg
    >>> y = mg.nn.InstanceNorm1d(2)(mg.randn([3, 2, 8]))
    >>> [round(v, 6) + 0.0 for v in y.mean(-1).reshape(-1).tolist()]
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
"""


from ...autograd.grad_mode import no_grad
from ...ops.creation import ones, zeros
from .. import functional as F
from .. import init
from ..module import Module, Parameter


class _BatchNorm(Module):
    _dims = ()
    _var_ddof = 1       # the running variance is unbiased (Paddle's layers: 0, biased)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = Parameter(ones([num_features], dtype=dtype, device=device))
        else:
            self.register_parameter("weight", None)
        if affine and bias:
            self.bias = Parameter(zeros([num_features], dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros([num_features], dtype=dtype,
                                                       device=device))
            self.register_buffer("running_var", ones([num_features], dtype=dtype, device=device))
            self.register_buffer("num_batches_tracked", zeros([], dtype="int64", device=device))
        else:
            self.running_mean = self.running_var = self.num_batches_tracked = None

    def reset_running_stats(self):
        if self.track_running_stats:
            init.zeros_(self.running_mean)
            init.ones_(self.running_var)
            with no_grad():
                self.num_batches_tracked.zero_()

    def forward(self, input):
        if input.ndim not in self._dims:
            raise ValueError(f"expected {' or '.join(f'{d}D' for d in self._dims)} input "
                             f"(got {input.ndim}D input)")
        if input.shape[1] != self.num_features:
            raise ValueError(f"{type(self).__name__}: expected {self.num_features} channels, "
                             f"got input of shape {list(input.shape)}")
        use_batch = self.training or not self.track_running_stats
        momentum = self.momentum
        if self.training and self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if momentum is None:    # a cumulative average of the batches' statistics
                momentum = 1.0 / int(self.num_batches_tracked.item())
        return F.batch_norm(input, self.running_mean if self.track_running_stats else None,
                            self.running_var if self.track_running_stats else None,
                            self.weight, self.bias, use_batch, momentum, self.eps,
                            var_ddof=self._var_ddof)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L) inputs over the batch (and length)."""
    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W) inputs per channel."""
    _dims = (4,)


class _InstanceNorm(_BatchNorm):
    """PyTorch's InstanceNorm: BatchNorm's parameters and buffers, per-instance statistics;
    the defaults are ``affine=False, track_running_stats=False``."""
    _spatial = 1

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def forward(self, input):
        nd = self._spatial + 2
        if input.ndim not in (nd - 1, nd):
            raise ValueError(f"expected {nd - 1}D or {nd}D input (got {input.ndim}D input)")
        unbatched = input.ndim == nd - 1
        if unbatched:
            input = input.unsqueeze(0)
        if input.shape[1] != self.num_features and self.affine:
            raise ValueError(f"expected input's size at dim=1 to match num_features "
                             f"({self.num_features}), but got: {input.shape[1]}.")
        use_input_stats = self.training or not self.track_running_stats
        out = F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
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
                 track_running_stats=True, process_group=None, device=None, dtype=None, *,
                 bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)
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
