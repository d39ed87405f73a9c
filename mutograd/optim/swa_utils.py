"""Weight averaging (SWA and EMA): :class:`AveragedModel` keeps a running average of a model's
parameters, :class:`SWALR` anneals the rate to a constant SWA rate, :func:`update_bn` recomputes
batch-norm statistics for the averaged weights.

    >>> import mutograd as mg
    >>> from mutograd.optim import swa_utils
    >>> net = mg.nn.Linear(1, 1, bias=False)
    >>> avg = swa_utils.AveragedModel(net)
    >>> for w in [1.0, 2.0, 6.0]:
    ...     _ = net.weight.data.fill_(w); avg.update_parameters(net)
    >>> avg.module.weight.item(), avg.n_averaged.item()
    (3.0, 3)
"""
import copy
import itertools
import math

from ..autograd.grad_mode import no_grad
from ..nn import Module
from ..nn.modules.batchnorm import _BatchNorm
from ..ops.creation import tensor
from .lr_scheduler import LRScheduler, _per_group

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


def _check_decay(decay):
    if not 0.0 <= decay <= 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         f"[0,1] range.")


def get_ema_avg_fn(decay=0.999):
    """``avg_fn`` of an exponential moving average: ``decay * avg + (1 - decay) * new``.

        >>> import mutograd as mg
        >>> from mutograd.optim import swa_utils
        >>> swa_utils.get_ema_avg_fn(0.5)(mg.zeros([1]), mg.ones([1]), 3).item()
        0.5
    """
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """``avg_fn`` of the equal-weight average: ``avg + (new - avg) / (n + 1)``."""
    def swa_update(averaged_param, current_param, num_averaged):
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


def get_ema_multi_avg_fn(decay=0.999):
    """``multi_avg_fn`` of an exponential moving average: updates the averages in place."""
    _check_decay(decay)

    def ema_update(ema_param_list, current_param_list, _):
        with no_grad():
            for avg, new in zip(ema_param_list, current_param_list):
                if avg.is_floating_point() or avg.is_complex():
                    avg.lerp_(new, 1 - decay)
                else:
                    avg.copy_(avg * decay + new * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """``multi_avg_fn`` of the equal-weight average: updates the averages in place."""
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        with no_grad():
            n = float(num_averaged)
            for avg, new in zip(averaged_param_list, current_param_list):
                if avg.is_floating_point() or avg.is_complex():
                    avg.lerp_(new, 1 / (n + 1))
                else:
                    avg.copy_(avg + (new - avg) / (n + 1))
    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose parameters (and buffers with ``use_buffers``) are averaged by
    :meth:`update_parameters`: equally (SWA) by default, or by ``avg_fn(avg, new, n)`` /
    in place by ``multi_avg_fn(avgs, news, n)``; calling it runs the copy."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype="int64"))
        self.avg_fn, self.multi_avg_fn, self.use_buffers = avg_fn, multi_avg_fn, use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def _averaged(self, model):
        if self.use_buffers:
            return itertools.chain(model.parameters(), model.buffers())
        return model.parameters()

    def update_parameters(self, model):
        """Fold ``model``'s current parameters into the average (the first call copies
        them); buffers are copied unless ``use_buffers``."""
        n = int(self.n_averaged.item())
        pairs = [(a.detach(), p.detach().to(a.device))
                 for a, p in zip(self._averaged(self.module), self._averaged(model))]
        with no_grad():
            if n == 0:
                for a, p in pairs:
                    a.copy_(p)
            elif self.avg_fn is not None:
                for a, p in pairs:
                    a.copy_(self.avg_fn(a, p, self.n_averaged))
            else:
                fn = self.multi_avg_fn or get_swa_multi_avg_fn()
                fn([a for a, _ in pairs], [p for _, p in pairs], self.n_averaged)
            if not self.use_buffers:
                for mine, theirs in zip(self.module.buffers(), model.buffers()):
                    mine.detach().copy_(theirs.detach().to(mine.device))
            self.n_averaged.add_(1)


def update_bn(loader, model, device=None):
    """Recompute the running statistics of ``model``'s batch-norm layers with one pass over
    ``loader`` (each batch, or its first element, is the input), as a cumulative average.

        >>> import mutograd as mg
        >>> from mutograd.optim import swa_utils
        >>> net = mg.nn.BatchNorm1d(1)
        >>> swa_utils.update_bn([mg.full([4, 1], 3.0)], net)
        >>> net.running_mean.item()
        3.0
    """
    momenta = {}
    for m in model.modules():
        if isinstance(m, _BatchNorm) and m.track_running_stats:
            m.reset_running_stats()
            momenta[m] = m.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for m in momenta:
        m.momentum = None
    with no_grad():
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
    for m, momentum in momenta.items():
        m.momentum = momentum
    model.train(was_training)


def _anneal_factor(strategy, t):
    return (1 - math.cos(math.pi * t)) / 2 if strategy == "cos" else t


class SWALR(LRScheduler):
    """Anneal each group's rate to ``swa_lr`` over ``anneal_epochs`` (``'cos'`` or
    ``'linear'``), then keep it there.

        >>> import mutograd as mg
        >>> from mutograd.optim import swa_utils
        >>> opt = mg.optim.SGD([mg.nn.Parameter(mg.ones([1]))], lr=1.0)
        >>> s = swa_utils.SWALR(opt, swa_lr=0.5, anneal_epochs=2, anneal_strategy="linear")
        >>> lrs = []
        >>> for _ in range(4):
        ...     lrs.append(s.get_last_lr()[0]); opt.step(); s.step()
        >>> lrs
        [1.0, 0.75, 0.5, 0.5]
    """

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1):
        for lr, g in zip(_per_group("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            g["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_strategy = anneal_strategy
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    def anneal_func(self, t):
        """The share of the way to ``swa_lr`` at fraction ``t`` of the annealing."""
        return _anneal_factor(self._anneal_strategy, t)

    def get_lr(self):
        self._warn_if_outside_step()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        span = max(1, self.anneal_epochs)
        prev = self.anneal_func(max(0, min(1, (step - 1) / span)))
        alpha = self.anneal_func(max(0, min(1, step / span)))
        lrs = []
        for g in self.optimizer.param_groups:
            # the rate this annealing started from, recovered from the current one
            start = g["swa_lr"] if prev == 1 else (g["lr"] - prev * g["swa_lr"]) / (1 - prev)
            lrs.append(g["swa_lr"] * alpha + start * (1 - alpha))
        return lrs
