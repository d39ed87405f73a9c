"""Adam's relatives: Adamax (infinity norm), NAdam (Nesterov momentum), RAdam (rectified
variance), Lamb (layer-wise trust ratio, Paddle's). Updates are in place with the optimizer's
workspace (Note [In-place optimizer steps] in optimizer.py); the arithmetic follows the reference
implementations' order so that steps match them up to rounding (tests/optim/test_optim.py)."""
import math

import numpy as np

from .algorithms import _add_square, _grad, _lerp
from .optimizer import Optimizer


def _check_adam_args(lr, betas, eps, weight_decay):
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    for i, b in enumerate(betas):
        if not 0.0 <= b < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {b}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def _as_float32(v):
    """PyTorch keeps these scalars (NAdam's momentum product, ASGD's step size) in float32
    tensors; rounding them the same way keeps the steps equal."""
    return float(np.float32(v))


class _TwoMoments(Optimizer):
    """Shared state: the step count and the two moment buffers."""

    n_workspace = 3

    def _init_state(self, p, state, group):
        self._new_state(p, state, "exp_avg", "exp_avg_sq")

    def _decay(self, p, g, group, w):
        """The gradient after ``maximize`` and weight decay: coupled (added to the gradient) or
        decoupled (the parameter shrunk first)."""
        if group.get("decoupled_weight_decay") and group["weight_decay"]:
            p *= 1 - group["lr"] * group["weight_decay"]
            return _grad(p, g, group, w, coupled=False)
        return _grad(p, g, group, w)


class Adamax(Optimizer):
    """Adam with the infinity norm: ``exp_inf = max(beta2 * exp_inf, |g| + eps)``.

        >>> import mutograd as mg
        >>> w = mg.nn.Parameter(mg.ones([2]))
        >>> opt = mg.optim.Adamax([w], lr=0.1)
        >>> (w * w).sum().backward(); opt.step()
        >>> [round(v, 4) for v in w.tolist()]
        [0.9, 0.9]
    """

    n_workspace = 2

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 maximize=False, inplace=True):
        _check_adam_args(lr, betas, eps, weight_decay)
        super().__init__(params, {"lr": lr, "betas": tuple(betas), "eps": eps,
                                  "weight_decay": weight_decay, "maximize": maximize}, inplace)

    def _init_state(self, p, state, group):
        self._new_state(p, state, "exp_avg", "exp_inf")

    def _update(self, p, g, state, group, ws, xp):
        (b1, b2), eps = group["betas"], group["eps"]
        state["step"] += 1
        d = _grad(p, g, group, ws[0])
        m, u = state["exp_avg"]._data, state["exp_inf"]._data
        _lerp(xp, m, d, 1 - b1, ws[1])
        u *= b2
        xp.abs(d, out=ws[1])
        ws[1] += eps
        xp.maximum(u, ws[1], out=u)
        clr = group["lr"] / (1 - b1 ** state["step"])
        xp.divide(m, u, out=ws[1])
        ws[1] *= -clr
        p += ws[1]


class NAdam(_TwoMoments):
    """Adam with Nesterov momentum and a momentum schedule (``momentum_decay``)."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, maximize=False,
                 inplace=True):
        _check_adam_args(lr, betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        super().__init__(params, {"lr": lr, "betas": tuple(betas), "eps": eps,
                                  "weight_decay": weight_decay, "momentum_decay": momentum_decay,
                                  "decoupled_weight_decay": decoupled_weight_decay,
                                  "maximize": maximize}, inplace)

    def _init_state(self, p, state, group):
        super()._init_state(p, state, group)
        state["mu_product"] = 1.0

    def _update(self, p, g, state, group, ws, xp):
        lr, (b1, b2), eps = group["lr"], group["betas"], group["eps"]
        state["step"] += 1
        step = state["step"]
        d = self._decay(p, g, group, ws[0])
        mu = b1 * (1.0 - 0.5 * 0.96 ** (step * group["momentum_decay"]))
        mu_next = b1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * group["momentum_decay"]))
        mu_product = float(np.float32(state["mu_product"]) * np.float32(mu))
        state["mu_product"] = mu_product
        m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
        _lerp(xp, m, d, 1 - b1, ws[1])
        v *= b2
        _add_square(xp, v, d, 1 - b2, ws[1])
        denom = xp.divide(v, 1 - b2 ** step, out=ws[1])
        xp.sqrt(denom, out=denom)
        denom += eps
        step_dir = xp.multiply(d, -lr * (1.0 - mu) / (1.0 - mu_product), out=ws[2])
        step_dir /= denom
        p += step_dir
        step_dir = xp.multiply(m, -lr * mu_next / (1.0 - mu_product * mu_next), out=ws[2])
        step_dir /= denom
        p += step_dir


class RAdam(_TwoMoments):
    """Adam whose adaptive step is switched on (and rectified) once the variance of its
    estimate is bounded: plain momentum SGD for the first few steps."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 decoupled_weight_decay=False, maximize=False, inplace=True):
        _check_adam_args(lr, betas, eps, weight_decay)
        super().__init__(params, {"lr": lr, "betas": tuple(betas), "eps": eps,
                                  "weight_decay": weight_decay,
                                  "decoupled_weight_decay": decoupled_weight_decay,
                                  "maximize": maximize}, inplace)

    def _update(self, p, g, state, group, ws, xp):
        lr, (b1, b2), eps = group["lr"], group["betas"], group["eps"]
        state["step"] += 1
        step = state["step"]
        d = self._decay(p, g, group, ws[0])
        m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
        _lerp(xp, m, d, 1 - b1, ws[1])
        v *= b2
        _add_square(xp, v, d, 1 - b2, ws[1])
        bc2 = 1 - b2 ** step
        rho_inf = 2 / (1 - b2) - 1
        rho_t = rho_inf - 2 * step * (b2 ** step) / bc2
        step_dir = xp.divide(m, 1 - b1 ** step, out=ws[2])
        step_dir *= lr
        if rho_t > 5.0:
            adaptive = xp.sqrt(v, out=ws[1])
            adaptive += eps
            xp.divide(bc2 ** 0.5, adaptive, out=adaptive)
            step_dir *= adaptive
            step_dir *= math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                                  / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
        p -= step_dir


class Lamb(_TwoMoments):
    """Adam's direction plus decoupled weight decay, scaled per parameter by the trust ratio
    ``||p|| / ||direction||`` (Paddle's ``Lamb``; ``always_adapt`` applies the ratio also where
    a parameter has no weight decay). Paddle keeps ``betas``, ``eps`` and ``weight_decay`` as
    float32 attributes and the bias corrections as running powers that start at the exact
    betas: the same roundings here give Paddle's steps exactly."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.01,
                 always_adapt=False, exclude_from_weight_decay_fn=None, inplace=True):
        _check_adam_args(lr, betas, eps, weight_decay)
        super().__init__(params, {"lr": lr, "betas": tuple(betas), "eps": eps,
                                  "weight_decay": weight_decay, "always_adapt": always_adapt,
                                  "exclude_from_weight_decay_fn": exclude_from_weight_decay_fn},
                         inplace)

    def _init_state(self, p, state, group):
        super()._init_state(p, state, group)
        state["beta1_pow"], state["beta2_pow"] = group["betas"]
        excluded = group["exclude_from_weight_decay_fn"]
        state["decays"] = excluded is None or not excluded(p)

    def _update(self, p, g, state, group, ws, xp):
        lr, (b1, b2) = group["lr"], (_as_float32(b) for b in group["betas"])
        m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
        m *= b1
        xp.multiply(g, 1 - b1, out=ws[0])
        m += ws[0]
        v *= b2
        _add_square(xp, v, g, 1 - b2, ws[0])
        denom = xp.divide(v, 1 - state["beta2_pow"], out=ws[0])
        xp.sqrt(denom, out=denom)
        denom += _as_float32(group["eps"])
        r = xp.divide(m, 1 - state["beta1_pow"], out=ws[1])
        r /= denom
        state["beta1_pow"] *= b1
        state["beta2_pow"] *= b2
        wd = _as_float32(group["weight_decay"]) if state["decays"] else 0.0
        if wd:
            xp.multiply(p, wd, out=ws[0])
            r += ws[0]
        ratio = 1.0
        if wd or group["always_adapt"]:
            p_norm, r_norm = float(xp.linalg.norm(p.ravel())), float(xp.linalg.norm(r.ravel()))
            if p_norm > 0 and r_norm > 0:
                ratio = p_norm / r_norm
        r *= -lr * ratio
        p += r
