"""PyTorch's other optimizers, step for step as ``torch.optim`` computes them: ``Adamax``,
``NAdam``, ``RAdam``, ``ASGD`` and ``Rprop``. Each updates the parameter and its state in place
(Note [In-place optimizer steps]); intermediate values are plain temporaries.

    >>> import mutograd as mg
    >>> w = mg.nn.Parameter(mg.ones([2]))
    >>> opt = mg.optim.Rprop([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step()
    >>> [round(v, 6) for v in w.tolist()]
    [0.9, 0.9]
"""
import math

from .optimizer import Optimizer


def _g(p, g, group, decoupled=False):
    """The gradient after ``maximize`` and (coupled) L2 ``weight_decay``."""
    if group.get("maximize"):
        g = -g
    wd = group.get("weight_decay", 0)
    if wd and not decoupled:
        g = g + wd * p
    return g


def _check(lr, eps=0.0, betas=(0.0, 0.0), weight_decay=0.0):
    if lr < 0:
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps < 0:
        raise ValueError(f"Invalid epsilon value: {eps}")
    for i, b in enumerate(betas):
        if not 0.0 <= b < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {b}")
    if weight_decay < 0:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


class Adamax(Optimizer):
    """Adam with the infinity norm: ``u = max(b2 * u, |g| + eps)``."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check(lr, eps, betas, weight_decay)
        super().__init__(params, {"lr": lr, "betas": tuple(betas), "eps": eps,
                                  "weight_decay": weight_decay, "maximize": maximize})

    def _init_state(self, p, state, group):
        state["step"] = 0
        state["exp_avg"], state["exp_inf"] = self._buffer(p), self._buffer(p)

    def _update(self, p, g, state, group, ws, xp):
        (b1, b2), eps = group["betas"], group["eps"]
        g = _g(p, g, group)
        state["step"] += 1
        m, u = state["exp_avg"]._data, state["exp_inf"]._data
        m += (1 - b1) * (g - m)
        xp.maximum(u * b2, xp.abs(g) + eps, out=u)
        p -= (group["lr"] / (1 - b1 ** state["step"])) * (m / u)


class NAdam(Optimizer):
    """Adam with Nesterov momentum and PyTorch's ``momentum_decay`` schedule."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check(lr, eps, betas, weight_decay)
        super().__init__(params, {"lr": lr, "betas": tuple(betas), "eps": eps,
                                  "weight_decay": weight_decay, "maximize": maximize,
                                  "momentum_decay": momentum_decay,
                                  "decoupled_weight_decay": decoupled_weight_decay})

    def _init_state(self, p, state, group):
        state["step"], state["mu_product"] = 0, 1.0
        state["exp_avg"], state["exp_avg_sq"] = self._buffer(p), self._buffer(p)

    def _update(self, p, g, state, group, ws, xp):
        lr, (b1, b2), eps = group["lr"], group["betas"], group["eps"]
        decoupled = group["decoupled_weight_decay"]
        if decoupled and group["weight_decay"]:
            p *= 1 - lr * group["weight_decay"]
        g = _g(p, g, group, decoupled)
        state["step"] += 1
        step, md = state["step"], group["momentum_decay"]
        mu = b1 * (1 - 0.5 * 0.96 ** (step * md))
        mu_next = b1 * (1 - 0.5 * 0.96 ** ((step + 1) * md))
        state["mu_product"] *= mu
        mu_product = state["mu_product"]
        m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
        m += (1 - b1) * (g - m)
        v *= b2
        v += (1 - b2) * g * g
        denom = xp.sqrt(v / (1 - b2 ** step)) + eps
        p -= (lr * (1 - mu) / (1 - mu_product)) * (g / denom)
        p -= (lr * mu_next / (1 - mu_product * mu_next)) * (m / denom)


class RAdam(Optimizer):
    """Adam with the variance of the adaptive rate rectified (plain momentum while it is not
    yet tractable)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        _check(lr, eps, betas, weight_decay)
        super().__init__(params, {"lr": lr, "betas": tuple(betas), "eps": eps,
                                  "weight_decay": weight_decay, "maximize": maximize,
                                  "decoupled_weight_decay": decoupled_weight_decay})

    def _init_state(self, p, state, group):
        state["step"] = 0
        state["exp_avg"], state["exp_avg_sq"] = self._buffer(p), self._buffer(p)

    def _update(self, p, g, state, group, ws, xp):
        lr, (b1, b2), eps = group["lr"], group["betas"], group["eps"]
        decoupled = group["decoupled_weight_decay"]
        if decoupled and group["weight_decay"]:
            p *= 1 - lr * group["weight_decay"]
        g = _g(p, g, group, decoupled)
        state["step"] += 1
        step = state["step"]
        m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
        m += (1 - b1) * (g - m)
        v *= b2
        v += (1 - b2) * g * g
        bc1, bc2 = 1 - b1 ** step, 1 - b2 ** step
        corrected = m / bc1
        rho_inf = 2 / (1 - b2) - 1
        rho_t = rho_inf - 2 * step * (b2 ** step) / bc2
        if rho_t > 5.0:
            rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                             / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            adaptive = math.sqrt(bc2) / (xp.sqrt(v) + eps)
            p -= corrected * lr * adaptive * rect
        else:
            p -= corrected * lr


class ASGD(Optimizer):
    """Averaged SGD: SGD with a decaying rate, and the running average ``ax`` of the
    parameter kept in the state."""

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        _check(lr, weight_decay=weight_decay)
        super().__init__(params, {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                                  "weight_decay": weight_decay, "maximize": maximize})

    def _init_state(self, p, state, group):
        state["step"], state["eta"], state["mu"] = 0, group["lr"], 1.0
        state["ax"] = self._buffer(p)

    def _update(self, p, g, state, group, ws, xp):
        g = _g(p, g, group)
        state["step"] += 1
        step, eta, lambd = state["step"], state["eta"], group["lambd"]
        p *= 1 - lambd * eta
        p -= eta * g
        ax = state["ax"]._data
        if state["mu"] != 1:
            ax += (p - ax) * state["mu"]
        else:
            ax[...] = p
        state["eta"] = group["lr"] / ((1 + lambd * group["lr"] * step) ** group["alpha"])
        state["mu"] = 1 / max(1, step - group["t0"])


class Rprop(Optimizer):
    """Resilient backpropagation: per-element step sizes grown by ``etas[1]`` while the
    gradient keeps its sign and shrunk by ``etas[0]`` when it flips; only the sign is used."""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, {"lr": lr, "etas": tuple(etas),
                                  "step_sizes": tuple(step_sizes), "maximize": maximize})

    def _init_state(self, p, state, group):
        state["step"] = 0
        state["prev"] = self._buffer(p)
        state["step_size"] = self._buffer(p, group["lr"])

    def _update(self, p, g, state, group, ws, xp):
        g = _g(p, g, group)
        state["step"] += 1
        (etaminus, etaplus), (lo, hi) = group["etas"], group["step_sizes"]
        prev, size = state["prev"]._data, state["step_size"]._data
        s = xp.sign(g * prev)
        factor = xp.where(s > 0, etaplus, xp.where(s < 0, etaminus, 1.0)).astype(p.dtype)
        size *= factor
        xp.clip(size, lo, hi, out=size)
        g = xp.where(factor == etaminus, 0, g).astype(p.dtype)
        p -= xp.sign(g) * size
        prev[...] = g
