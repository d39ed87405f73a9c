"""Learning-rate schedulers with PyTorch's semantics: ``step()`` moves each group's current rate
by the scheduler's rule (so schedulers chain: two on one optimizer multiply their effects), and
``step(epoch)`` jumps to the closed form where one exists. ``state_dict`` holds every attribute
but the optimizer (functions are left out; callable objects keep their ``__dict__``).

    >>> import mutograd as mg
    >>> opt = mg.optim.SGD([mg.nn.Parameter(mg.ones([1]))], lr=1.0)
    >>> sched = mg.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    >>> for _ in range(4):
    ...     opt.step(); sched.step()
    >>> sched.get_last_lr()
    [0.25]

Note [Chainable schedulers]
    A scheduler's ``get_lr`` reads ``group["lr"]`` as the rate the previous step left (by this
    scheduler or another one on the same optimizer) and returns the next one; the closed form
    (``_get_closed_form_lr``, used by ``step(epoch)``) reads only ``base_lrs`` and
    ``last_epoch``. During construction (``_is_initial``) the first step leaves the rates as
    they are, except where epoch 0 itself scales them (ConstantLR, LinearLR). SequentialLR and
    ChainedScheduler rely on this: they drive the inner schedulers' ``step``.
"""
import bisect
import math
import types
import warnings
from collections import Counter

from .optimizer import Optimizer

__all__ = ["LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR",
           "LinearLR", "ExponentialLR", "SequentialLR", "PolynomialLR", "CosineAnnealingLR",
           "ChainedScheduler", "ReduceLROnPlateau", "CyclicLR", "CosineAnnealingWarmRestarts",
           "OneCycleLR", "LinearWarmup"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose.")

_ORDER_WARNING = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
    "In PyTorch 1.1.0 and later, you should call them in the opposite order: "
    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
    "will result in PyTorch skipping the first value of the learning rate schedule. "
    "See more details at https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate")


def _per_group(name, optimizer, value):
    """``value`` as one entry per parameter group (a scalar is repeated; a list must fit)."""
    n = len(optimizer.param_groups)
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(value)} values, param_groups has {n}.")
        return list(value)
    return [value] * n


def _check_optimizer(optimizer):
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _functions(fns, optimizer):
    """``lr_lambda`` of LambdaLR / MultiplicativeLR: one function, or one per group."""
    n = len(optimizer.param_groups)
    if not isinstance(fns, (list, tuple)):
        return [fns] * n
    if len(fns) != n:
        raise ValueError(f"Expected {n} lr_lambdas, but got {len(fns)}")
    return list(fns)


def _saved_callable(fn):
    """What a state dict keeps of a user function: nothing for a plain function or lambda, the
    attributes of a callable object."""
    return None if fn is None or isinstance(fn, types.FunctionType) else fn.__dict__.copy()


class LRScheduler:
    """Base class: subclasses define ``get_lr()`` (the next rates, Note [Chainable
    schedulers]) and optionally ``_get_closed_form_lr()``.

        >>> import mutograd as mg
        >>> class Halving(mg.optim.lr_scheduler.LRScheduler):
        ...     def get_lr(self):
        ...         return [b / 2 ** self.last_epoch for b in self.base_lrs]
        >>> opt = mg.optim.SGD([mg.nn.Parameter(mg.ones([1]))], lr=1.0)
        >>> s = Halving(opt)
        >>> opt.step(); s.step(); s.get_last_lr()
        [0.5]
    """

    _in_step = False
    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        for i, g in enumerate(optimizer.param_groups):
            if last_epoch == -1:
                g.setdefault("initial_lr", g["lr"])
            elif "initial_lr" not in g:
                raise KeyError(
                    f"param 'initial_lr' is not specified in param_groups[{i}] when resuming "
                    "scheduler with last_epoch >= 0.\nThis typically happens when:\n1. You're "
                    "trying to resume training from a checkpoint but haven't properly loaded the "
                    "optimizer state\n2. You're using last_epoch >= 0 for a fresh training run "
                    "(not recommended)")
        self.base_lrs = [g["initial_lr"] for g in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self):
        """The step a scheduler takes when it is made (Note [Chainable schedulers])."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def _current_lrs(self):
        return [g["lr"] for g in self.optimizer.param_groups]

    def get_lr(self):
        """The next rate of each group (called by :meth:`step`; use :meth:`get_last_lr` to
        read the current ones)."""
        raise NotImplementedError

    def _warn_if_outside_step(self):
        if not self._in_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=3)

    def step(self, epoch=None):
        """Advance one epoch (or, deprecated, jump to ``epoch``) and write the new rates into
        the parameter groups. Call it after ``optimizer.step()``."""
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn(_ORDER_WARNING, UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        self._in_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                lrs = self.get_lr()
            else:
                self.last_epoch = epoch
                closed = getattr(self, "_get_closed_form_lr", None)
                lrs = closed() if closed is not None else self.get_lr()
        finally:
            self._in_step = False
        for g, lr in zip(self.optimizer.param_groups, lrs):
            g["lr"] = lr
        self._last_lr = self._current_lrs()

    def get_last_lr(self):
        """The rates the last step wrote, one per parameter group."""
        return list(self._last_lr)

    def state_dict(self):
        """Every attribute but the optimizer."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        """Restore a :meth:`state_dict` (into a scheduler built on the same optimizer)."""
        self.__dict__.update(state_dict)


_LRScheduler = LRScheduler


class _WithFunctions(LRScheduler):
    """LambdaLR and MultiplicativeLR: ``lr_lambdas`` are saved as their attributes only."""

    def state_dict(self):
        s = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        s["lr_lambdas"] = [_saved_callable(f) for f in self.lr_lambdas]
        return s

    def load_state_dict(self, state_dict):
        state = dict(state_dict)
        saved = state.pop("lr_lambdas", None) or ()
        self.__dict__.update(state)
        for fn, attrs in zip(self.lr_lambdas, saved):
            if attrs is not None:
                fn.__dict__.update(attrs)


class LambdaLR(_WithFunctions):
    """``base_lr * lr_lambda(epoch)``, one function or one per parameter group.

        >>> import mutograd as mg
        >>> opt = mg.optim.SGD([mg.nn.Parameter(mg.ones([1]))], lr=1.0)
        >>> s = mg.optim.lr_scheduler.LambdaLR(opt, lambda e: 0.5 ** e)
        >>> opt.step(); s.step(); s.get_last_lr()
        [0.5]
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _functions(lr_lambda, optimizer)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        return [b * f(self.last_epoch) for f, b in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_WithFunctions):
    """Multiply each group's current rate by ``lr_lambda(epoch)`` at every step.

        >>> import mutograd as mg
        >>> opt = mg.optim.SGD([mg.nn.Parameter(mg.ones([1]))], lr=1.0)
        >>> s = mg.optim.lr_scheduler.MultiplicativeLR(opt, lambda e: 0.5)
        >>> opt.step(); s.step(); s.step(); s.get_last_lr()
        [0.25]
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _functions(lr_lambda, optimizer)
        for f in self.lr_lambdas:
            if not callable(f):
                raise TypeError(f"lr_lambda should be a function, but got {type(f).__name__}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        if self._is_initial:
            return self._current_lrs()
        return [g["lr"] * f(self.last_epoch)
                for f, g in zip(self.lr_lambdas, self.optimizer.param_groups)]


class StepLR(LRScheduler):
    """Multiply the rate by ``gamma`` every ``step_size`` epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size:
            return self._current_lrs()
        return [lr * self.gamma for lr in self._current_lrs()]

    def _get_closed_form_lr(self):
        return [b * self.gamma ** (self.last_epoch // self.step_size) for b in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the rate by ``gamma`` at each epoch in ``milestones`` (a milestone listed
    twice applies ``gamma`` twice)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones, self.gamma = Counter(milestones), gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        times = self.milestones.get(self.last_epoch, 0)
        if not times:
            return self._current_lrs()
        return [lr * self.gamma ** times for lr in self._current_lrs()]

    def _get_closed_form_lr(self):
        passed = bisect.bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [b * self.gamma ** passed for b in self.base_lrs]


class ConstantLR(LRScheduler):
    """Scale the rate by ``factor`` for the first ``total_iters`` epochs, then restore it."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if not 0 <= factor <= 1.0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._current_lrs()]
        if self.last_epoch != self.total_iters:
            return self._current_lrs()
        return [lr * (1.0 / self.factor) for lr in self._current_lrs()]

    def _get_closed_form_lr(self):
        done = self.last_epoch >= self.total_iters
        return [b * (self.factor + done * (1 - self.factor)) for b in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale the rate linearly from ``start_factor`` to ``end_factor`` over ``total_iters``."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        if not 0 < start_factor <= 1.0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and "
                             "less or equal to 1.")
        if not 0 <= end_factor <= 1.0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor, self.end_factor = start_factor, end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        e, d = self.last_epoch, self.end_factor - self.start_factor
        if e == 0:
            return [lr * self.start_factor for lr in self._current_lrs()]
        if self._is_initial or e > self.total_iters:
            return self._current_lrs()
        # the ratio of the factor at e to the factor at e - 1
        ratio = 1.0 + d / (self.total_iters * self.start_factor + (e - 1) * d)
        return [lr * ratio for lr in self._current_lrs()]

    def _get_closed_form_lr(self):
        t = min(self.total_iters, self.last_epoch)
        return [b * (self.start_factor + (self.end_factor - self.start_factor) * t
                     / self.total_iters) for b in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the rate by ``gamma`` every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        if self._is_initial:
            return self._current_lrs()
        return [lr * self.gamma for lr in self._current_lrs()]

    def _get_closed_form_lr(self):
        return [b * self.gamma ** self.last_epoch for b in self.base_lrs]


class PolynomialLR(LRScheduler):
    """``base_lr * (1 - epoch / total_iters) ** power``, then constant after ``total_iters``."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        e, n = self.last_epoch, self.total_iters
        if self._is_initial or e > n:
            return self._current_lrs()
        ratio = ((1.0 - e / n) / (1.0 - (e - 1) / n)) ** self.power
        return [lr * ratio for lr in self._current_lrs()]

    def _get_closed_form_lr(self):
        t = min(self.total_iters, self.last_epoch)
        return [b * (1.0 - t / self.total_iters) ** self.power for b in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """``eta_min + (base - eta_min) * (1 + cos(pi * epoch / T_max)) / 2``, as a recurrence
    on the current rate (past ``T_max`` it rises again: a cosine of period ``2 * T_max``)."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        e, T, low = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return self._current_lrs()
        if self._step_count == 1 and e > 0:    # resumed with last_epoch: start from the closed form
            return self._get_closed_form_lr()
        if (e - 1 - T) % (2 * T) == 0:         # leaving the minimum: the ratio below would be 0/0
            return [lr + (b - low) * (1 - math.cos(math.pi / T)) / 2
                    for lr, b in zip(self._current_lrs(), self.base_lrs)]
        ratio = (1 + math.cos(math.pi * e / T)) / (1 + math.cos(math.pi * (e - 1) / T))
        return [ratio * (lr - low) + low for lr in self._current_lrs()]

    def _get_closed_form_lr(self):
        c = (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
        return [self.eta_min + (b - self.eta_min) * c for b in self.base_lrs]


def _check_children(owner, optimizer, schedulers):
    """SequentialLR / ChainedScheduler: at least one scheduler, all on ``optimizer``, none a
    ReduceLROnPlateau (its step needs a metric)."""
    name = type(owner).__name__
    if len(schedulers) < 1:
        raise ValueError(f"{name} expects at least one scheduler, but got no scheduler.")
    for i, s in enumerate(schedulers):
        if not hasattr(s, "optimizer"):
            raise TypeError(f"{name} at index {i} should have `optimizer` as its attribute.")
        if isinstance(s, ReduceLROnPlateau):
            raise ValueError(f"{name} does not support `ReduceLROnPlateau` scheduler as it "
                             f"requires additional kwargs to be specified when calling `step`, "
                             f"but got one at index {i} in the given schedulers sequence.")
        if s.optimizer is not optimizer:
            raise ValueError(f"{name} expects all schedulers to belong to the same optimizer, "
                             f"but got scheduler {type(s).__name__} at index {i} has "
                             f"{s.optimizer}, which is different from "
                             f"{type(optimizer).__name__}.")


class _Composite(LRScheduler):
    """SequentialLR and ChainedScheduler: the inner schedulers are saved by their state
    dicts."""

    def state_dict(self):
        s = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        s["_schedulers"] = [c.state_dict() for c in self._schedulers]
        return s

    def load_state_dict(self, state_dict):
        state = dict(state_dict)
        inner = state.pop("_schedulers")
        self.__dict__.update(state)
        for c, s in zip(self._schedulers, inner):
            c.load_state_dict(s)


class SequentialLR(_Composite):
    """Run ``schedulers[i]`` from ``milestones[i - 1]`` on; at a milestone the next scheduler
    restarts from its epoch 0.

        >>> import mutograd as mg
        >>> from mutograd.optim import lr_scheduler as S
        >>> opt = mg.optim.SGD([mg.nn.Parameter(mg.ones([1]))], lr=1.0)
        >>> s = S.SequentialLR(opt, [S.ConstantLR(opt, 0.5, total_iters=2),
        ...                          S.ExponentialLR(opt, 0.5)], milestones=[2])
        >>> lrs = []
        >>> for _ in range(4):
        ...     lrs.append(s.get_last_lr()[0]); opt.step(); s.step()
        >>> lrs
        [0.5, 0.5, 1.0, 0.5]
    """

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        _check_children(self, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more than "
                f"the number of milestone points, but got number of schedulers {len(schedulers)} "
                f"and the number of milestones to be equal to {len(milestones)}")
        self._schedulers, self._milestones = schedulers, milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # Building the inner schedulers stepped each once: undo that, then start the first.
        for g in optimizer.param_groups:
            g["lr"] = g["initial_lr"]
        self._undo_construction_step(self)
        first = self._schedulers[bisect.bisect_right(milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    @classmethod
    def _undo_construction_step(cls, sched):
        if hasattr(sched, "_schedulers"):
            for s in sched._schedulers:
                cls._undo_construction_step(s)
        elif hasattr(sched, "last_epoch"):
            sched.last_epoch -= 1

    def recursive_undo(self, sched=None):
        """Step back the epoch counters of ``sched`` (default: the inner schedulers)."""
        self._undo_construction_step(self if sched is None else sched)

    def step(self):
        self.last_epoch += 1
        i = bisect.bisect_right(self._milestones, self.last_epoch)
        current = self._schedulers[i]
        if i > 0 and self._milestones[i - 1] == self.last_epoch:
            current._update_lr(0)
        else:
            current.step()
        self._last_lr = current.get_last_lr()


class ChainedScheduler(_Composite):
    """Step several schedulers of one optimizer together; their effects multiply.

        >>> import mutograd as mg
        >>> from mutograd.optim import lr_scheduler as S
        >>> opt = mg.optim.SGD([mg.nn.Parameter(mg.ones([1]))], lr=1.0)
        >>> s = S.ChainedScheduler([S.ConstantLR(opt, 0.5, total_iters=9),
        ...                         S.ExponentialLR(opt, 0.5)])
        >>> opt.step(); s.step(); s.get_last_lr()
        [0.25]
    """

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError("ChainedScheduler expects at least one scheduler to be chained, "
                             "but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_children(self, optimizer, schedulers)
        self._schedulers, self.optimizer = schedulers, optimizer
        self._last_lr = self._current_lrs()

    def step(self):
        for s in self._schedulers:
            s.step()
        self._last_lr = self._current_lrs()


class ReduceLROnPlateau(LRScheduler):
    """Multiply each group's rate by ``factor`` (not below ``min_lr``) once a metric passed to
    ``step(metric)`` has not improved for ``patience`` epochs, then wait ``cooldown`` epochs.
    Improvement is by ``threshold``, relative (``'rel'``) or absolute (``'abs'``), downwards in
    ``mode='min'`` and upwards in ``'max'``.

        >>> import mutograd as mg
        >>> opt = mg.optim.SGD([mg.nn.Parameter(mg.ones([1]))], lr=1.0)
        >>> s = mg.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5)
        >>> for loss in [1.0, 1.0, 1.0]:
        ...     s.step(loss)
        >>> s.get_last_lr()
        [0.5]
    """

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        _check_optimizer(optimizer)
        self.factor, self.optimizer = factor, optimizer
        self.default_min_lr = None if isinstance(min_lr, (list, tuple)) else min_lr
        if isinstance(min_lr, (list, tuple)) and len(min_lr) != len(optimizer.param_groups):
            raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got "
                             f"{len(min_lr)}")
        self.min_lrs = _per_group("min_lr", optimizer, min_lr)
        self.patience, self.cooldown, self.eps = patience, cooldown, eps
        self.last_epoch = 0
        self._last_lr = self._current_lrs()
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = self.num_bad_epochs = 0

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in ("min", "max"):
            raise ValueError(f"mode {mode} is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"threshold mode {threshold_mode} is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == "min":
            return a < (best * (1.0 - self.threshold) if self.threshold_mode == "rel"
                        else best - self.threshold)
        return a > (best * (self.threshold + 1.0) if self.threshold_mode == "rel"
                    else best + self.threshold)

    def step(self, metrics, epoch=None):
        """Record the epoch's ``metrics`` and reduce the rates on a plateau."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
        self._last_lr = self._current_lrs()

    def _reduce_lr(self):
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):    # a group was added since construction
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({len(groups)}) differs "
                    f"from when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), "
                    "usually due to a new param group being added to the optimizer. Please "
                    "modify the `min_lrs` field to match the length of the `optimizer` param "
                    "groups.")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for g, low in zip(groups, self.min_lrs):
            old = float(g["lr"])
            new = max(old * self.factor, low)
            if old - new > self.eps:
                g["lr"] = new

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)


def _set_momentum(group, use_beta1, value):
    """Write a cycled momentum: ``betas[0]`` for the Adam family, ``momentum`` otherwise."""
    if use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


def _momentum_key(optimizer):
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` "
                         "option enabled")
    return "betas" in optimizer.defaults


class CyclicLR(LRScheduler):
    """Cycle each rate between ``base_lr`` and ``max_lr`` (``step_size_up`` steps up,
    ``step_size_down`` down) with the amplitude scaled per cycle (``'triangular'``: 1,
    ``'triangular2'``: halved each cycle) or per step (``'exp_range'``: ``gamma ** step``), or
    by ``scale_fn``; momentum (``betas[0]``) cycles the opposite way between ``max_momentum``
    and ``base_momentum``. Step it after every batch.

        >>> import mutograd as mg
        >>> opt = mg.optim.SGD([mg.nn.Parameter(mg.ones([1]))], lr=1.0, momentum=0.9)
        >>> s = mg.optim.lr_scheduler.CyclicLR(opt, 0.1, 0.5, step_size_up=2)
        >>> lrs = []
        >>> for _ in range(5):
        ...     lrs.append(round(s.get_last_lr()[0], 6)); opt.step(); s.step()
        >>> lrs
        [0.1, 0.3, 0.5, 0.3, 0.1]
    """

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode="triangular", gamma=1.0, scale_fn=None, scale_mode="cycle",
                 cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, g in zip(base_lrs, optimizer.param_groups):
                g["lr"] = lr
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma = mode, gamma
        self._scale_fn_custom, self.scale_mode = scale_fn, scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _momentum_key(optimizer)
            self.base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = _per_group("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for top, low, g in zip(self.max_momentums, self.base_momentums,
                                       optimizer.param_groups):
                    _set_momentum(g, self.use_beta1, top)
                    g["max_momentum"], g["base_momentum"] = top, low
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self):
        # the built-in modes fix what the scale is a function of
        if self._scale_fn_custom is None:
            self.scale_mode = "iterations" if self.mode == "exp_range" else "cycle"

    def scale_fn(self, x):
        """The amplitude factor at cycle (or iteration) ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma ** x

    def get_lr(self):
        self._warn_if_outside_step()
        e = self.last_epoch
        cycle = math.floor(1 + e / self.total_size)
        x = 1.0 + e / self.total_size - cycle      # position within the cycle, in [0, 1)
        height = x / self.step_ratio if x <= self.step_ratio else \
            (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else e)
        lrs = [b + (top - b) * height * scale for b, top in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for g, low, top in zip(self.optimizer.param_groups, self.base_momentums,
                                   self.max_momentums):
                _set_momentum(g, self.use_beta1, top - (top - low) * height * scale)
        return lrs

    def state_dict(self):
        s = super().state_dict()
        s["_scale_fn_custom"] = _saved_callable(self._scale_fn_custom)
        return s

    def load_state_dict(self, state_dict):
        state = dict(state_dict)
        attrs = state.pop("_scale_fn_custom", None)
        super().load_state_dict(state)
        if attrs is not None:
            self._scale_fn_custom.__dict__.update(attrs)
        self._init_scale_fn()


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from the base rate to ``eta_min`` over ``T_0`` epochs, restarting
    each time with a period ``T_mult`` times longer. ``step(epoch)`` accepts a fractional
    epoch (``epoch + i / iters`` inside an epoch).

        >>> import mutograd as mg
        >>> opt = mg.optim.SGD([mg.nn.Parameter(mg.ones([1]))], lr=1.0)
        >>> s = mg.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2)
        >>> lrs = []
        >>> for _ in range(4):
        ...     lrs.append(round(s.get_last_lr()[0], 6)); opt.step(); s.step()
        >>> lrs
        [1.0, 0.5, 1.0, 0.5]
    """

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type "
                             f"{type(eta_min)}")
        self.T_0 = self.T_i = T_0
        self.T_mult, self.eta_min = T_mult, eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        c = (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
        return [self.eta_min + (b - self.eta_min) * c for b in self.base_lrs]

    def step(self, epoch=None):
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        elif epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        elif epoch < self.T_0:
            self.T_i, self.T_cur = self.T_0, epoch
        elif self.T_mult == 1:
            self.T_cur = epoch % self.T_0
        else:
            # restarts so far: the n with T_0 * (T_mult**n - 1) / (T_mult - 1) <= epoch
            n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
            self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
            self.T_i = self.T_0 * self.T_mult ** n
        self.last_epoch = math.floor(epoch)
        self._in_step = True
        try:
            lrs = self.get_lr()
        finally:
            self._in_step = False
        for g, lr in zip(self.optimizer.param_groups, lrs):
            g["lr"] = lr
        self._last_lr = self._current_lrs()


def _anneal(strategy, start, end, pct):
    """The value ``pct`` of the way from ``start`` to ``end``: along half a cosine or a line."""
    if strategy == "cos":
        return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
    return (end - start) * pct + start


class OneCycleLR(LRScheduler):
    """The 1cycle policy: the rate rises from ``max_lr / div_factor`` to ``max_lr`` over
    ``pct_start`` of ``total_steps`` (or ``epochs * steps_per_epoch``), then anneals
    (``'cos'`` or ``'linear'``) to ``initial_lr / final_div_factor``; ``three_phase`` comes
    back to the initial rate symmetrically before the final anneal. Momentum (``betas[0]``)
    moves the opposite way between ``max_momentum`` and ``base_momentum``. Step it after every
    batch.

        >>> import mutograd as mg
        >>> opt = mg.optim.SGD([mg.nn.Parameter(mg.ones([1]))], lr=1.0, momentum=0.9)
        >>> s = mg.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10)
        >>> round(s.get_last_lr()[0], 6), opt.param_groups[0]["momentum"]
        (0.04, 0.95)
    """

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85,
                 max_momentum=0.95, div_factor=25.0, final_div_factor=1e4, three_phase=False,
                 last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if total_steps is not None:
            if not isinstance(total_steps, int) or total_steps <= 0:
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(f"Expected positive integer steps_per_epoch, but got "
                                 f"{steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND "
                             "steps_per_epoch)")
        if not isinstance(pct_start, float) or not 0 <= pct_start <= 1:
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        # phases: (last step, lr from, lr to, momentum from, momentum to), keys of the group
        rise = pct_start * self.total_steps
        last = self.total_steps - 1
        if three_phase:
            self._schedule_phases = [
                (float(rise) - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                (float(2 * rise) - 2, "max_lr", "initial_lr", "base_momentum", "max_momentum"),
                (last, "initial_lr", "min_lr", "max_momentum", "max_momentum")]
        else:
            self._schedule_phases = [
                (float(rise) - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                (last, "max_lr", "min_lr", "base_momentum", "max_momentum")]
        max_lrs = _per_group("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for top, g in zip(max_lrs, optimizer.param_groups):
                g["initial_lr"] = top / div_factor
                g["max_lr"] = top
                g["min_lr"] = g["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _momentum_key(optimizer)
            tops = _per_group("max_momentum", optimizer, max_momentum)
            lows = _per_group("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for top, low, g in zip(tops, lows, optimizer.param_groups):
                    _set_momentum(g, self.use_beta1, top)
                    g["max_momentum"], g["base_momentum"] = top, low
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        e = self.last_epoch
        if e > self.total_steps:
            raise ValueError(f"Tried to step {e} times. The specified number of total steps is "
                             f"{self.total_steps}")
        lrs = []
        for g in self.optimizer.param_groups:
            start = 0.0
            for i, (end, lr0, lr1, m0, m1) in enumerate(self._schedule_phases):
                if e <= end or i == len(self._schedule_phases) - 1:
                    pct = (e - start) / (end - start)
                    break
                start = end
            lrs.append(_anneal(self._anneal_func_type, g[lr0], g[lr1], pct))
            if self.cycle_momentum:
                _set_momentum(g, self.use_beta1,
                              _anneal(self._anneal_func_type, g[m0], g[m1], pct))
        return lrs


class LinearWarmup(LRScheduler):
    """Rise linearly from ``start_lr`` to the base rate over ``warmup_steps``, then follow
    ``after`` (another scheduler on the same optimizer, counted from the end of warm-up, in
    its closed form) or stay at the base rate.

        >>> import mutograd as mg
        >>> from mutograd.optim import lr_scheduler as S
        >>> opt = mg.optim.SGD([mg.nn.Parameter(mg.ones([1]))], lr=1.0)
        >>> s = S.LinearWarmup(opt, 2, after=S.ExponentialLR(opt, 0.5))
        >>> lrs = []
        >>> for _ in range(4):
        ...     lrs.append(s.get_last_lr()[0]); opt.step(); s.step()
        >>> lrs
        [0.0, 0.5, 1.0, 0.5]
    """

    def __init__(self, optimizer, warmup_steps, start_lr=0.0, after=None, last_epoch=-1):
        if warmup_steps <= 0:
            raise ValueError(f"warmup_steps must be positive, got {warmup_steps}")
        self.warmup_steps, self.start_lr, self.after = warmup_steps, start_lr, after
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        e = self.last_epoch
        if e < self.warmup_steps:
            return [self.start_lr + (b - self.start_lr) * e / self.warmup_steps
                    for b in self.base_lrs]
        if self.after is None:
            return list(self.base_lrs)
        self.after.last_epoch = e - self.warmup_steps
        closed = getattr(self.after, "_get_closed_form_lr", None)
        if closed is not None:
            return closed()
        self.after._in_step = True
        try:
            return self.after.get_lr()
        finally:
            self.after._in_step = False

    _get_closed_form_lr = get_lr

    def state_dict(self):
        s = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "after")}
        s["after"] = None if self.after is None else self.after.state_dict()
        return s

    def load_state_dict(self, state_dict):
        state = dict(state_dict)
        after = state.pop("after", None)
        self.__dict__.update(state)
        if after is not None and self.after is not None:
            self.after.load_state_dict(after)
