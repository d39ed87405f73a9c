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
