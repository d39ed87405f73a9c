"""``paddle.optimizer.lr``: schedulers that stand alone (Paddle's design): pass one as an
optimizer's ``learning_rate`` and call its ``step()`` once per epoch (or step).

    >>> import mutograd.compat.paddle as paddle
    >>> s = paddle.optimizer.lr.StepDecay(learning_rate=1.0, step_size=2, gamma=0.5)
    >>> lrs = []
    >>> for epoch in range(5):
    ...     lrs.append(s())
    ...     s.step()
    >>> lrs
    [1.0, 1.0, 0.5, 0.5, 0.25]
"""
import bisect
import math


class LRScheduler:
    """Base class: ``last_epoch`` counts ``step()`` calls; ``__call__`` gives the current rate."""

    def __init__(self, learning_rate=0.1, last_epoch=-1, verbose=False):
        self.base_lr = float(learning_rate)
        self.last_epoch = last_epoch
        self.step()

    def __call__(self):
        return self.last_lr

    def get_lr(self):
        raise NotImplementedError

    def step(self, epoch=None):
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        self.last_lr = self.get_lr()

    def state_dict(self):
        return {"last_epoch": self.last_epoch, "last_lr": self.last_lr}

    def set_state_dict(self, state):
        self.last_epoch, self.last_lr = state["last_epoch"], state["last_lr"]

    set_dict = set_state_dict


class StepDecay(LRScheduler):
    def __init__(self, learning_rate, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(learning_rate, last_epoch)

    def get_lr(self):
        return self.base_lr * self.gamma ** (self.last_epoch // self.step_size)


class MultiStepDecay(LRScheduler):
    def __init__(self, learning_rate, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        self.milestones, self.gamma = sorted(milestones), gamma
        super().__init__(learning_rate, last_epoch)

    def get_lr(self):
        return self.base_lr * self.gamma ** bisect.bisect_right(self.milestones,
                                                                self.last_epoch)


class CosineAnnealingDecay(LRScheduler):
    def __init__(self, learning_rate, T_max, eta_min=0, last_epoch=-1, verbose=False):
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(learning_rate, last_epoch)

    def get_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * (
            1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2


class LambdaDecay(LRScheduler):
    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch)

    def get_lr(self):
        return self.base_lr * self.lr_lambda(self.last_epoch)


class LinearWarmup(LRScheduler):
    """From ``start_lr`` to ``end_lr`` over ``warmup_steps``, then ``learning_rate`` (a number
    or another scheduler, stepped from then on)."""

    def __init__(self, learning_rate, warmup_steps, start_lr, end_lr, last_epoch=-1,
                 verbose=False):
        self.after = learning_rate if isinstance(learning_rate, LRScheduler) else None
        self.warmup_steps, self.start_lr, self.end_lr = warmup_steps, start_lr, end_lr
        super().__init__(0.0 if self.after else learning_rate, last_epoch)

    def get_lr(self):
        e = self.last_epoch
        if e < self.warmup_steps:
            return self.start_lr + (self.end_lr - self.start_lr) * e / self.warmup_steps
        if self.after is None:
            return self.base_lr
        self.after.step(e - self.warmup_steps)
        return self.after()


class ExponentialDecay(LRScheduler):
    """``learning_rate * gamma ** epoch``."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch)

    def get_lr(self):
        return self.base_lr * self.gamma ** self.last_epoch


class NaturalExpDecay(LRScheduler):
    """``learning_rate * exp(-gamma * epoch)``."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch)

    def get_lr(self):
        return self.base_lr * math.exp(-self.gamma * self.last_epoch)


class InverseTimeDecay(LRScheduler):
    """``learning_rate / (1 + gamma * epoch)``."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch)

    def get_lr(self):
        return self.base_lr / (1 + self.gamma * self.last_epoch)


class PolynomialDecay(LRScheduler):
    """From ``learning_rate`` to ``end_lr`` over ``decay_steps`` along ``(1 - t)^power``;
    ``cycle=True`` restarts with a longer period each time."""

    def __init__(self, learning_rate, decay_steps, end_lr=0.0001, power=1.0, cycle=False,
                 last_epoch=-1, verbose=False):
        self.decay_steps, self.end_lr, self.power, self.cycle = decay_steps, end_lr, power, cycle
        super().__init__(learning_rate, last_epoch)

    def get_lr(self):
        epoch, steps = self.last_epoch, self.decay_steps
        if self.cycle:
            div = math.ceil(epoch / float(steps)) if epoch else 1
            steps *= div
        else:
            epoch = min(epoch, steps)
        return (self.base_lr - self.end_lr) * (1 - float(epoch) / steps) ** self.power + \
            self.end_lr


class PiecewiseDecay(LRScheduler):
    """``values[i]`` while the epoch is below ``boundaries[i]`` (the last value after)."""

    def __init__(self, boundaries, values, last_epoch=-1, verbose=False):
        self.boundaries, self.values = list(boundaries), list(values)
        super().__init__(last_epoch=last_epoch)

    def get_lr(self):
        return self.values[bisect.bisect_right(self.boundaries, self.last_epoch)]


class NoamDecay(LRScheduler):
    """The Transformer schedule: ``lr * d_model^-0.5 * min(epoch^-0.5, epoch *
    warmup_steps^-1.5)``."""

    def __init__(self, d_model, warmup_steps, learning_rate=1.0, last_epoch=-1, verbose=False):
        self.d_model, self.warmup_steps = d_model, warmup_steps
        super().__init__(learning_rate, last_epoch)

    def get_lr(self):
        a = 1 if self.last_epoch == 0 else self.last_epoch ** -0.5
        b = self.warmup_steps ** -1.5 * self.last_epoch
        return self.base_lr * self.d_model ** -0.5 * min(a, b)


class LinearLR(LRScheduler):
    """The rate scaled from ``start_factor`` to ``end_factor`` over ``total_steps``."""

    def __init__(self, learning_rate, total_steps, start_factor=1.0 / 3, end_factor=1.0,
                 last_epoch=-1, verbose=False):
        self.total_steps, self.start_factor, self.end_factor = (total_steps, start_factor,
                                                                end_factor)
        super().__init__(learning_rate, last_epoch)

    def get_lr(self):
        t = min(self.last_epoch, self.total_steps) / self.total_steps
        return self.base_lr * (self.start_factor + (self.end_factor - self.start_factor) * t)


class MultiplicativeDecay(LRScheduler):
    """The previous rate times ``lr_lambda(epoch)`` at every step."""

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch)

    def get_lr(self):
        if self.last_epoch <= 0:
            return self.base_lr
        return self.last_lr * self.lr_lambda(self.last_epoch)


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from ``learning_rate`` to ``eta_min`` over ``T_0`` epochs, restarting
    with a period ``T_mult`` times longer each time."""

    def __init__(self, learning_rate, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False):
        self.T_0, self.T_mult, self.eta_min = T_0, T_mult, eta_min
        super().__init__(learning_rate, last_epoch)

    def get_lr(self):
        e, t_i = self.last_epoch, self.T_0
        if self.T_mult == 1:
            e %= t_i
        else:
            while e >= t_i:
                e -= t_i
                t_i *= self.T_mult
        return self.eta_min + (self.base_lr - self.eta_min) * (
            1 + math.cos(math.pi * e / t_i)) / 2


class OneCycleLR(LRScheduler):
    """Warm up to ``max_learning_rate`` over ``phase_pct`` of ``total_steps``, then anneal to
    ``end_learning_rate`` (``'cos'`` or ``'linear'``; ``three_phase`` goes back down to the
    start before the final anneal)."""

    def __init__(self, max_learning_rate, total_steps, divide_factor=25.0,
                 end_learning_rate=0.0001, phase_pct=0.3, anneal_strategy="cos",
                 three_phase=False, last_epoch=-1, verbose=False):
        initial = max_learning_rate / divide_factor
        if three_phase:
            ends = [phase_pct * total_steps - 1, 2 * phase_pct * total_steps - 2,
                    total_steps - 1]
            lrs = [(initial, max_learning_rate), (max_learning_rate, initial),
                   (initial, end_learning_rate)]
        else:
            ends = [phase_pct * total_steps - 1, total_steps - 1]
            lrs = [(initial, max_learning_rate), (max_learning_rate, end_learning_rate)]
        self._ends, self._lrs, self.total_steps = ends, lrs, total_steps
        self._anneal = anneal_strategy
        super().__init__(initial, last_epoch)

    def _f(self, start, end, pct):
        if self._anneal == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. However the number of total steps is "
                             f"{self.total_steps}")
        begin = 0
        for i, (end, (lo, hi)) in enumerate(zip(self._ends, self._lrs)):
            if step <= end or i == len(self._ends) - 1:
                return self._f(lo, hi, (step - begin) / (end - begin))
            begin = end


class CyclicLR(LRScheduler):
    """Cycle between ``base_learning_rate`` and ``max_learning_rate`` (``'triangular'``,
    ``'triangular2'``, ``'exp_range'`` or a ``scale_fn``)."""

    def __init__(self, base_learning_rate, max_learning_rate, step_size_up, step_size_down=None,
                 mode="triangular", exp_gamma=1.0, scale_fn=None, scale_mode="cycle",
                 last_epoch=-1, verbose=False):
        down = step_size_up if step_size_down is None else step_size_down
        self.cycle_size = step_size_up + down
        self.step_up_pct = step_size_up / self.cycle_size
        self.max_lr, self.mode, self.exp_gamma = max_learning_rate, mode, exp_gamma
        if scale_fn is None:
            scale_fn = {"triangular": lambda x: 1.0, "triangular2": lambda x: 1 / 2.0 ** (x - 1),
                        "exp_range": lambda x: exp_gamma ** x}[mode]
            scale_mode = "iterations" if mode == "exp_range" else "cycle"
        self.scale_fn, self.scale_mode = scale_fn, scale_mode
        super().__init__(base_learning_rate, last_epoch)

    def get_lr(self):
        it = self.last_epoch
        cycle = 1 + it // self.cycle_size
        pct = 1.0 + it / self.cycle_size - cycle
        scale = pct / self.step_up_pct if pct <= self.step_up_pct else (1 - pct) / (
            1 - self.step_up_pct)
        amp = (self.max_lr - self.base_lr) * scale
        return self.base_lr + amp * self.scale_fn(cycle if self.scale_mode == "cycle" else it)


class ReduceOnPlateau(LRScheduler):
    """Multiply the rate by ``factor`` when ``step(metrics)`` has not improved for ``patience``
    calls (``mode`` 'min' or 'max', ``threshold`` relative or absolute), then wait
    ``cooldown`` calls; never below ``min_lr``."""

    def __init__(self, learning_rate, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, epsilon=1e-8, verbose=False):
        if factor >= 1.0:
            raise ValueError("new_lr = origin_lr * gamma and gamma should be < 1.0.")
        self.mode, self.factor, self.patience = mode, factor, patience
        self.threshold, self.threshold_mode = threshold, threshold_mode
        self.cooldown, self.min_lr, self.epsilon = cooldown, min_lr, epsilon
        self.best, self.num_bad_epochs, self.cooldown_counter = None, 0, 0
        self.base_lr = self.last_lr = float(learning_rate)
        self.last_epoch = 0

    def _better(self, current, best):
        if self.mode == "min":
            bound = best * (1 - self.threshold) if self.threshold_mode == "rel" else \
                best - self.threshold
            return current < bound
        bound = best * (1 + self.threshold) if self.threshold_mode == "rel" else \
            best + self.threshold
        return current > bound

    def step(self, metrics, epoch=None):
        current = float(metrics)
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
        elif self.best is None or self._better(current, self.best):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
            if self.num_bad_epochs > self.patience:
                self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
                new = max(self.last_lr * self.factor, self.min_lr)
                if self.last_lr - new > self.epsilon:
                    self.last_lr = new
