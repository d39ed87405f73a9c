"""Update rules of the Paddle optimizers mutograd.optim has no counterpart for: ``Adamax``,
``Lamb``, ``NAdam``, ``RAdam`` and ``Rprop``, as Paddle 3.3.1 computes them. Each writes the
parameter and its state in place (``p`` is the parameter's array, ``g`` its gradient's)."""
import math

from ....optim.algorithms import _grad


def adamax(p, g, state, group, xp):
    """``m = b1 m + (1 - b1) g``; ``u = max(b2 u + eps, |g|)``; ``p -= lr / (1 - b1^t) m / u``."""
    b1, b2, eps = group["beta1"], group["beta2"], group["epsilon"]
    d = _grad(p, g, group, xp.empty_like(p))
    state["step"] += 1
    m, u = state["moment"]._data, state["inf_norm"]._data
    m *= b1
    m += (1 - b1) * d
    u *= b2
    u += eps
    xp.maximum(u, xp.abs(d), out=u)
    p -= group["lr"] / (1 - b1 ** state["step"]) * m / u


def lamb(p, g, state, group, xp):
    """Adam's direction plus weight decay, scaled by the trust ratio ``|p| / |direction|``
    (1 for a parameter without weight decay, unless ``always_adapt``)."""
    b1, b2, eps = group["beta1"], group["beta2"], group["epsilon"]
    state["step"] += 1
    t = state["step"]
    m, v = state["moment1"]._data, state["moment2"]._data
    m *= b1
    m += (1 - b1) * g
    v *= b2
    v += (1 - b2) * g * g
    r = (m / (1 - b1 ** t)) / (xp.sqrt(v / (1 - b2 ** t)) + eps)
    wd = 0.0 if state["exclude"] else group["lamb_weight_decay"]
    if wd:
        r += wd * p
    ratio = 1.0
    if wd or group["always_adapt"]:
        w_norm, r_norm = float(xp.sqrt((p * p).sum())), float(xp.sqrt((r * r).sum()))
        ratio = w_norm / r_norm if w_norm > 0 and r_norm > 0 else 1.0
    p -= group["lr"] * ratio * r


def nadam(p, g, state, group, xp):
    """Adam with Nesterov momentum and the ``momentum_decay`` schedule of the momentum."""
    b1, b2, eps, psi = group["beta1"], group["beta2"], group["epsilon"], group["momentum_decay"]
    d = _grad(p, g, group, xp.empty_like(p))
    state["step"] += 1
    t = state["step"]
    mu = b1 * (1 - 0.5 * 0.96 ** (t * psi))
    mu_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * psi))
    state["mu_product"] *= mu
    prod = state["mu_product"]
    m, v = state["moment1"]._data, state["moment2"]._data
    m *= b1
    m += (1 - b1) * d
    v *= b2
    v += (1 - b2) * d * d
    denom = xp.sqrt(v / (1 - b2 ** t)) + eps
    lr = group["lr"]
    p -= lr * (1 - mu) / (1 - prod) * d / denom
    p -= lr * mu_next / (1 - prod * mu_next) * m / denom


def radam(p, g, state, group, xp):
    """Adam whose adaptive step starts once the variance estimate is reliable (rho_t > 5)."""
    b1, b2, eps = group["beta1"], group["beta2"], group["epsilon"]
    d = _grad(p, g, group, xp.empty_like(p))
    state["step"] += 1
    t = state["step"]
    m, v = state["moment1"]._data, state["moment2"]._data
    m *= b1
    m += (1 - b1) * d
    v *= b2
    v += (1 - b2) * d * d
    m_hat = m / (1 - b1 ** t)
    rho_inf = 2 / (1 - b2) - 1
    rho = rho_inf - 2 * t * b2 ** t / (1 - b2 ** t)
    if rho > 5:
        rect = math.sqrt((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho))
        p -= group["lr"] * rect * math.sqrt(1 - b2 ** t) * m_hat / (xp.sqrt(v) + eps)
    else:
        p -= group["lr"] * m_hat


def rprop(p, g, state, group, xp):
    """Per-element steps grown by ``etas[1]`` while the gradient keeps its sign and cut by
    ``etas[0]`` when it flips (that step is skipped), within ``learning_rate_range``."""
    lo, hi = group["learning_rate_range"]
    minus, plus = group["etas"]
    prev, step = state["prev"]._data, state["step_size"]._data
    sign = xp.sign(g * prev)
    step *= xp.where(sign > 0, plus, xp.where(sign < 0, minus, 1.0))
    xp.clip(step, lo, hi, out=step)
    d = xp.where(sign < 0, 0.0, g)
    p -= xp.sign(d) * step
    prev[...] = d
