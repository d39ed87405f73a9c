"""Paddle's gradient clipping objects (``grad_clip=`` of an optimizer); each writes ``.grad`` in
place under ``no_grad``."""
import math

from ....autograd.grad_mode import no_grad


def _sq_norm(g):
    d = g._data
    return float((d * d).sum())


class ClipGradByGlobalNorm:
    """Scale every gradient by ``clip_norm / max(global_norm, clip_norm)``."""

    def __init__(self, clip_norm, group_name="default_group", auto_skip_clip=False):
        self.clip_norm = float(clip_norm)

    def _clip(self, params):
        norm = math.sqrt(sum(_sq_norm(p.grad) for p in params))
        if norm > self.clip_norm:
            with no_grad():
                for p in params:
                    p.grad.mul_(self.clip_norm / norm)


class ClipGradByNorm:
    """Scale each gradient on its own to an L2 norm of at most ``clip_norm``."""

    def __init__(self, clip_norm):
        self.clip_norm = float(clip_norm)

    def _clip(self, params):
        with no_grad():
            for p in params:
                norm = math.sqrt(_sq_norm(p.grad))
                if norm > self.clip_norm:
                    p.grad.mul_(self.clip_norm / norm)


class ClipGradByValue:
    """Clamp every gradient element into ``[min, max]`` (``min`` defaults to ``-max``)."""

    def __init__(self, max, min=None):
        self.max = float(max)
        self.min = -self.max if min is None else float(min)

    def _clip(self, params):
        with no_grad():
            for p in params:
                p.grad.clamp_(min=self.min, max=self.max)
