"""``torch.optim.swa_utils``: weight averaging (``mutograd.optim.swa_utils``), with
``AveragedModel`` a ``torch.nn.Module``.

    >>> import mutograd.compat.torch as torch
    >>> swa_utils = torch.optim.swa_utils
    >>> net = torch.nn.Linear(2, 1)
    >>> ema = swa_utils.AveragedModel(net, multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.9))
    >>> isinstance(ema, torch.nn.Module), type(ema.module.weight).__module__
    (True, 'mutograd.compat.torch.tensor')
"""
from ....optim import swa_utils as _swa
from ....optim.swa_utils import (  # noqa: F401
    SWALR,
    get_ema_avg_fn,
    get_ema_multi_avg_fn,
    get_swa_avg_fn,
    get_swa_multi_avg_fn,
    update_bn,
)
from ..nn import _torch_class

AveragedModel = _torch_class(_swa.AveragedModel)
AveragedModel.__module__ = __name__
