"""``torch.nn``: mutograd's modules, layers and losses under PyTorch's names.

    >>> import mutograd.compat.torch as torch
    >>> net = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(inplace=True))
    >>> [n for n, _ in net.named_parameters()]
    ['0.weight', '0.bias']
"""
from .... import nn as _nn
from . import functional, init, parallel, utils  # noqa: F401

# every module, layer and loss class of mutograd.nn (its functions are in torch.nn.utils and
# its submodules have PyTorch-dialect counterparts here)
globals().update({name: getattr(_nn, name) for name in _nn.__all__
                  if isinstance(getattr(_nn, name), type) and name != "StateDictError"})

from ....nn import layers as _layers  # noqa: E402
from ....nn import recurrent as _recurrent  # noqa: E402
from ....nn.module import Module as _Module  # noqa: E402
from ....nn.module import Parameter as _Parameter  # noqa: E402

NLLLoss2d = _nn.NLLLoss                      # PyTorch's deprecated name for NLLLoss
RNNBase, RNNCellBase = _recurrent._RNNBase, _recurrent._Cell


class SyncBatchNorm(_layers._BatchNorm):
    """Batch normalisation over (N, C, *) inputs with statistics over the whole batch. In one
    process the batch is all there is, so it computes what ``BatchNorm*d`` computes; with
    ``torch.distributed`` each process normalises its own part (use it with
    ``DistributedDataParallel`` as usual)."""

    _dims = (2, 3, 4, 5)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, dtype)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every ``BatchNorm*d`` replaced by a SyncBatchNorm holding the same
        parameters and buffers."""
        if isinstance(module, _layers._BatchNorm) and not isinstance(module, cls):
            new = cls(module.num_features, module.eps, module.momentum, module.affine,
                      module.track_running_stats)
            for name in ("weight", "bias"):
                if getattr(module, name) is not None:
                    setattr(new, name, getattr(module, name))
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                if getattr(module, name, None) is not None:
                    new.register_buffer(name, getattr(module, name))
            new.train(module.training)
            return new
        for name, child in list(module._modules.items()):
            if child is not None:
                module._modules[name] = cls.convert_sync_batchnorm(child, process_group)
        return module


class DataParallel(_Module):
    """Runs ``module`` on the one device there is (PyTorch splits the batch over GPUs; the
    result is the same); the wrapped model is ``.module``, as in PyTorch."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module, self.dim = module, dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


class Container(_Module):
    """PyTorch's deprecated container: the keyword arguments become submodules."""

    def __init__(self, **kwargs):
        super().__init__()
        for name, m in kwargs.items():
            self.add_module(name, m)


def factory_kwargs(kwargs):
    """The ``device``/``dtype``/``memory_format`` entries of ``kwargs`` (a dict or None), as
    the keyword arguments a factory function takes."""
    if kwargs is None:
        return {}
    unknown = set(kwargs) - {"device", "dtype", "memory_format", "factory_kwargs"}
    if unknown:
        raise TypeError(f"unexpected kwargs {sorted(unknown)}")
    out = {k: kwargs[k] for k in ("device", "dtype", "memory_format") if k in kwargs}
    out.update(kwargs.get("factory_kwargs") or {})
    return out


class UninitializedParameter(_Parameter):
    """A parameter whose shape is not known yet (a lazy module's, until its first call)."""

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from .... import ops
        return super().__new__(cls, ops.creation.empty(0, dtype=dtype), requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass


class UninitializedBuffer:
    """A buffer whose shape is not known yet (the type lazy modules would use; no module here
    makes one)."""


class LazyLinear(_Module):
    """``Linear`` whose ``in_features`` is taken from its first input; the parameters are made
    (and initialised as ``Linear``'s) then."""

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features, self._dtype = 0, out_features, dtype
        self.weight = UninitializedParameter(dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)
        else:
            self.register_parameter("bias", None)

    def forward(self, x):
        if isinstance(self.weight, UninitializedParameter):
            lin = _nn.Linear(x.shape[-1], self.out_features, self.bias is not None,
                             dtype=self._dtype)
            self.in_features = x.shape[-1]
            self.weight = lin.weight
            if self.bias is not None:
                self.bias = lin.bias
        from .... import nn
        return nn.functional.linear(x, self.weight, self.bias)
