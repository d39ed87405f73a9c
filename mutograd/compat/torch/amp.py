"""``torch.amp``: ``GradScaler`` (dynamic loss scaling, every update in place) and ``autocast``.

mutograd has no bfloat16, and float16 matrix products in NumPy are slow, so ``autocast``
changes no dtype: disabled (``enabled=False``) or for a device that is not available (a warning,
as PyTorch gives) it does nothing, and asked to compute in lower precision it refuses, naming
the fix. ``GradScaler`` works for any dtype:

    >>> import mutograd.compat.torch as torch
    >>> w = torch.ones(2, requires_grad=True)
    >>> opt = torch.optim.SGD([w], lr=0.1)
    >>> scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
    >>> scaler.scale((w * w).sum()).backward()      # gradients 1024 * 2
    >>> scaler.step(opt)                            # unscaled, then the step
    >>> scaler.update()
    >>> w.tolist()
    [0.800000011920929, 0.800000011920929]
"""
import math
import warnings

import mutograd as _mg

from ... import dtypes as _dtypes
from ...autograd.grad_mode import no_grad as _no_grad

__all__ = ["GradScaler", "autocast"]


def _usable(device):
    kind = str(device).split(":")[0]
    return kind == "cpu" or (kind in ("cuda", "gpu") and _mg.cuda.is_available())


class GradScaler:
    """Multiply the loss by ``scale`` before backward; before the optimizer's step divide the
    gradients by it in place and skip the step when one is inf or NaN; then grow the scale after
    ``growth_interval`` clean steps or shrink it at once after a skipped one."""

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        if enabled and not _usable(device):
            warnings.warn(f"GradScaler is enabled for device '{device}', which is not "
                          f"available. Disabling.", stacklevel=2)
            enabled = False
        if growth_factor <= 1.0 or not 0.0 < backoff_factor < 1.0:
            raise ValueError("GradScaler: growth_factor must be > 1 and backoff_factor in (0, 1)")
        self._enabled = enabled
        self._scale = float(init_scale)
        self._growth_factor, self._backoff_factor = float(growth_factor), float(backoff_factor)
        self._growth_interval, self._growth_tracker = int(growth_interval), 0
        self._found_inf = {}      # id(optimizer) -> whether its unscaled gradients had inf/NaN

    def is_enabled(self):
        return self._enabled

    def get_scale(self):
        return self._scale if self._enabled else 1.0

    def scale(self, outputs):
        """``outputs`` (a tensor, or a list/tuple of them) times the current scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        return outputs * self._scale

    def unscale_(self, optimizer):
        """Divide ``optimizer``'s gradients by the scale in place (once per step), noting whether
        any is inf or NaN; call it before clipping gradients."""
        if not self._enabled:
            return
        if id(optimizer) in self._found_inf:
            raise RuntimeError("unscale_() has already been called on this optimizer since the "
                               "last update().")
        inv = 1.0 / self._scale
        found = False
        with _no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    g = p.grad
                    if g is None:
                        continue
                    g.mul_(inv)
                    found = found or not bool(p._place.xp.isfinite(g._data).all())
        self._found_inf[id(optimizer)] = found

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step()`` on unscaled gradients, unless one of them is inf or NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if id(optimizer) not in self._found_inf:
            self.unscale_(optimizer)
        if self._found_inf[id(optimizer)]:
            return None
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None):
        """Set the scale for the next iteration (``new_scale``, or grown or backed off)."""
        if not self._enabled:
            return
        if new_scale is not None:
            self._scale = float(new_scale.item() if hasattr(new_scale, "item") else new_scale)
        elif any(self._found_inf.values()):
            self._scale *= self._backoff_factor
            self._growth_tracker = 0
        else:
            self._growth_tracker += 1
            if self._growth_tracker == self._growth_interval:
                grown = self._scale * self._growth_factor
                self._scale = grown if math.isfinite(grown) else self._scale
                self._growth_tracker = 0
        self._found_inf.clear()

    def state_dict(self):
        if not self._enabled:
            return {}
        return {"scale": self._scale, "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval, "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state):
        if not self._enabled:
            return
        if not state:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._scale = float(state["scale"])
        self._growth_factor = float(state["growth_factor"])
        self._backoff_factor = float(state["backoff_factor"])
        self._growth_interval = int(state["growth_interval"])
        self._growth_tracker = int(state["_growth_tracker"])


class autocast:
    """``with autocast(device_type, dtype=None, enabled=True):`` see the module docstring."""

    def __init__(self, device_type="cuda", dtype=None, enabled=True, cache_enabled=None):
        if enabled and not _usable(device_type):
            warnings.warn(f"User provided device_type of '{device_type}', but it is not "
                          f"available. Disabling autocast.", stacklevel=2)
            enabled = False
        if enabled and _dtypes.to_numpy(dtype) is not None and dtype != _mg.float32:
            raise TypeError(f"autocast(dtype={dtype}): mutograd computes in the tensors' own "
                            f"dtypes; run with enabled=False, or cast the model and inputs "
                            f"with .to({dtype}) yourself")
        if enabled and dtype is None:
            raise TypeError("autocast(): mutograd has no bfloat16 (the default lower precision); "
                            "run with enabled=False")
        self.enabled = enabled

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapper
