"""SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta: every update is written into the parameter, its
state and the optimizer's workspace (Note [In-place optimizer steps] in optimizer.py).

``p``, ``g`` and ``ws[i]`` below are backend arrays; in-place operators (``*=``, ``+=``) and
``out=`` keep every intermediate in the workspace. The arithmetic follows PyTorch's single-tensor
implementations, so parameters match ``torch.optim`` step for step up to rounding
(tests/optim/test_optim.py).
"""
import math

from ..transfer import wrap_for_xp
from .optimizer import Optimizer


def _check_args(**checks):
    """PyTorch's ``Invalid <name> value: <value>`` for the first ``name=(value, valid)`` that
    is not valid."""
    for name, (value, valid) in checks.items():
        if not valid:
            raise ValueError(f"Invalid {name} value: {value}")


def _grad(p, g, group, w, coupled=True):
    """``g`` after ``maximize`` and coupled ``weight_decay``: ``g`` itself or ``w``."""
    maximize = group.get("maximize", False)
    wd = group.get("weight_decay", 0) if coupled else 0
    if not maximize and not wd:
        return g
    if wd:
        w[...] = p
        w *= wd
        if maximize:
            w -= g
        else:
            w += g
    else:
        w[...] = g
        w *= -1
    return w


def _add_scaled(x, y, a, tmp):
    """``x += a * y`` with ``tmp`` as scratch."""
    tmp[...] = y
    tmp *= a
    x += tmp


def _lerp(xp, x, y, weight, tmp):
    """``x`` moved ``weight`` of the way to ``y``, in place, rounded as PyTorch's ``lerp_``:
    ``x + weight * (y - x)`` below one half, ``y - (y - x) * (1 - weight)`` from there."""
    xp.subtract(y, x, out=tmp)
    if weight < 0.5:
        tmp *= weight
        x += tmp
    else:
        tmp *= 1 - weight
        xp.subtract(y, tmp, out=x)


def _add_square(xp, x, y, a, tmp):
    """``x += a * y * y``."""
    xp.multiply(y, y, out=tmp)
    tmp *= a
    x += tmp


class SGD(Optimizer):
    """Stochastic gradient descent with momentum, dampening, Nesterov and weight decay.

        >>> import mutograd as mg
        >>> w = mg.nn.Parameter(mg.ones([2]))
        >>> opt = mg.optim.SGD([w], lr=0.25)
        >>> (w * w).sum().backward()          # grad 2
        >>> opt.step()
        >>> w.tolist()
        [0.5, 0.5]
    """

    n_workspace = 3

    def __init__(self, params, lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False, maximize=False, inplace=True):
        _check_args(momentum=(momentum, not momentum < 0),
                    weight_decay=(weight_decay, not weight_decay < 0))
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov,
                                  "maximize": maximize}, inplace)

    def _init_state(self, p, state, group):
        pass   # the momentum buffer is the first step's direction (made in _update)

    def _update(self, p, g, state, group, ws, xp):
        d = _grad(p, g, group, ws[0])
        m = group["momentum"]
        if m:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = wrap_for_xp(d.copy(), xp)
            else:
                b = buf._data
                b *= m
                if group["dampening"]:
                    _add_scaled(b, d, 1 - group["dampening"], ws[1])
                else:
                    b += d
            if group["nesterov"]:
                _add_scaled(ws[0] if d is ws[0] else _copy_into(ws[0], d), buf._data, m, ws[1])
                d = ws[0]
            else:
                d = buf._data
        _add_scaled(p, d, -group["lr"], ws[2])


def _copy_into(w, a):
    w[...] = a
    return w


class Adam(Optimizer):
    """Adam (``amsgrad`` optional); ``weight_decay`` is added to the gradient (L2)."""

    n_workspace = 3
    decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 amsgrad=False, maximize=False, inplace=True):
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for i, b in enumerate(betas):
            if not 0.0 <= b < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {b}")
        if weight_decay < 0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, {"lr": lr, "betas": tuple(betas), "eps": eps,
                                  "weight_decay": weight_decay, "amsgrad": amsgrad,
                                  "maximize": maximize}, inplace)

    def _init_state(self, p, state, group):
        self._new_state(p, state, "exp_avg", "exp_avg_sq")
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = self._buffer(p)

    def _update(self, p, g, state, group, ws, xp):
        lr, (b1, b2), eps = group["lr"], group["betas"], group["eps"]
        if self.decoupled and group["weight_decay"]:
            p *= 1 - lr * group["weight_decay"]
        d = _grad(p, g, group, ws[0], coupled=not self.decoupled)
        m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
        _lerp(xp, m, d, 1 - b1, ws[1])
        v *= b2
        _add_square(xp, v, d, 1 - b2, ws[1])
        state["step"] += 1
        step = state["step"]
        step_size = lr / (1 - b1 ** step)
        bc2_sqrt = math.sqrt(1 - b2 ** step)
        src = v
        if group["amsgrad"]:
            src = state["max_exp_avg_sq"]._data
            xp.maximum(src, v, out=src)
        denom = xp.sqrt(src, out=ws[1])
        denom /= bc2_sqrt
        denom += eps
        step_dir = xp.divide(m, denom, out=ws[2])
        step_dir *= -step_size
        p += step_dir


class AdamW(Adam):
    """Adam with decoupled weight decay: ``p *= 1 - lr * weight_decay`` before the Adam step."""

    decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, maximize=False, inplace=True):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize, inplace)


class RMSprop(Optimizer):
    """RMSprop (``centered`` and ``momentum`` optional)."""

    n_workspace = 3

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0,
                 centered=False, maximize=False, inplace=True):
        _check_args(alpha=(alpha, 0.0 <= alpha), epsilon=(eps, 0.0 <= eps),
                    momentum=(momentum, not momentum < 0))
        super().__init__(params, {"lr": lr, "alpha": alpha, "eps": eps,
                                  "weight_decay": weight_decay, "momentum": momentum,
                                  "centered": centered, "maximize": maximize},
                         inplace)

    def _init_state(self, p, state, group):
        self._new_state(p, state, "square_avg")
        if group["momentum"] > 0:
            state["momentum_buffer"] = self._buffer(p)
        if group["centered"]:
            state["grad_avg"] = self._buffer(p)

    def _update(self, p, g, state, group, ws, xp):
        alpha, eps = group["alpha"], group["eps"]
        state["step"] += 1
        d = _grad(p, g, group, ws[0])
        v = state["square_avg"]._data
        v *= alpha
        _add_square(xp, v, d, 1 - alpha, ws[1])
        avg = ws[1]
        if group["centered"]:
            ga = state["grad_avg"]._data
            _lerp(xp, ga, d, 1 - alpha, ws[1])
            avg[...] = ga
            avg *= ga
            avg *= -1
            avg += v
            xp.sqrt(avg, out=avg)
        else:
            xp.sqrt(v, out=avg)
        avg += eps
        if group["momentum"] > 0:
            buf = state["momentum_buffer"]._data
            buf *= group["momentum"]
            buf += xp.divide(d, avg, out=ws[2])
            _add_scaled(p, buf, -group["lr"], ws[2])
        else:
            q = xp.divide(d, avg, out=ws[2])
            q *= -group["lr"]
            p += q


class Adagrad(Optimizer):
    """Adagrad with learning-rate decay and an initial accumulator value."""

    n_workspace = 3

    def __init__(self, params, lr=1e-2, lr_decay=0.0, weight_decay=0.0,
                 initial_accumulator_value=0.0, eps=1e-10, maximize=False, inplace=True):
        _check_args(lr_decay=(lr_decay, not lr_decay < 0),
                    initial_accumulator_value=(initial_accumulator_value,
                                               not initial_accumulator_value < 0))
        super().__init__(params, {"lr": lr, "lr_decay": lr_decay, "weight_decay": weight_decay,
                                      "initial_accumulator_value": initial_accumulator_value,
                                      "eps": eps, "maximize": maximize}, inplace)

    def _init_state(self, p, state, group):
        state["step"] = 0
        state["sum"] = self._buffer(p, group["initial_accumulator_value"])

    def _update(self, p, g, state, group, ws, xp):
        state["step"] += 1
        d = _grad(p, g, group, ws[0])
        clr = group["lr"] / (1 + (state["step"] - 1) * group["lr_decay"])
        s = state["sum"]._data
        _add_square(xp, s, d, 1, ws[1])
        std = xp.sqrt(s, out=ws[1])
        std += group["eps"]
        q = xp.divide(d, std, out=ws[2])
        q *= -clr
        p += q


class Adadelta(Optimizer):
    """Adadelta: a step of ``sqrt(acc_delta + eps) / sqrt(square_avg + eps) * g`` times ``lr``,
    both averages decaying with ``rho``."""

    n_workspace = 3

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0, maximize=False,
                 inplace=True):
        _check_args(rho=(rho, 0.0 <= rho <= 1.0), epsilon=(eps, 0.0 <= eps),
                    weight_decay=(weight_decay, not weight_decay < 0))
        super().__init__(params, {"lr": lr, "rho": rho, "eps": eps,
                                  "weight_decay": weight_decay, "maximize": maximize}, inplace)

    def _init_state(self, p, state, group):
        self._new_state(p, state, "square_avg", "acc_delta")

    def _update(self, p, g, state, group, ws, xp):
        state["step"] += 1
        rho, eps = group["rho"], group["eps"]
        d = _grad(p, g, group, ws[0])
        v, u = state["square_avg"]._data, state["acc_delta"]._data
        v *= rho
        _add_square(xp, v, d, 1 - rho, ws[1])
        std = xp.add(v, eps, out=ws[1])
        xp.sqrt(std, out=std)
        delta = xp.add(u, eps, out=ws[2])
        xp.sqrt(delta, out=delta)
        delta /= std
        delta *= d
        u *= rho
        _add_square(xp, u, delta, 1 - rho, ws[1])
        delta *= -group["lr"]
        p += delta
