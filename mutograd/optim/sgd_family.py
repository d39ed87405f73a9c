"""Gradient descent without second moments: ASGD (averaged SGD with a decaying step) and Rprop
(per-element step sizes driven by the gradient's sign). In place with the optimizer's workspace
(Note [In-place optimizer steps] in optimizer.py); same arithmetic as PyTorch's single-tensor
implementations (tests/optim/test_optim.py)."""
from .adam_family import _as_float32
from .algorithms import _grad
from .optimizer import Optimizer


class ASGD(Optimizer):
    """Averaged SGD: ``p`` shrinks by ``lambd * eta`` and steps by ``eta``, with
    ``eta = lr / (1 + lambd * lr * step) ** alpha``; ``state['ax']`` holds the running average
    of the parameter from step ``t0`` on."""

    n_workspace = 2

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0,
                 maximize=False, inplace=True):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                                  "weight_decay": weight_decay, "maximize": maximize}, inplace)

    def _init_state(self, p, state, group):
        state["step"] = 0
        state["eta"] = _as_float32(group["lr"])
        state["mu"] = 1.0
        state["ax"] = self._buffer(p)

    def _update(self, p, g, state, group, ws, xp):
        state["step"] += 1
        d = _grad(p, g, group, ws[0])
        eta = state["eta"]
        p *= 1 - group["lambd"] * eta
        xp.multiply(d, -eta, out=ws[1])
        p += ws[1]
        ax = state["ax"]._data
        if state["mu"] != 1:
            xp.subtract(p, ax, out=ws[1])
            ws[1] *= state["mu"]
            ax += ws[1]
        else:
            ax[...] = p
        lr, step = group["lr"], state["step"]
        state["eta"] = _as_float32(lr / ((1 + group["lambd"] * lr * step) ** group["alpha"]))
        state["mu"] = _as_float32(1 / max(1, step - group["t0"]))


class Rprop(Optimizer):
    """Resilient back-propagation: each element's step size grows by ``etas[1]`` while its
    gradient keeps its sign and shrinks by ``etas[0]`` when it flips (that step is skipped),
    within ``step_sizes``; the parameter moves by the step size against the gradient's sign."""

    n_workspace = 3

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), maximize=False,
                 inplace=True):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, {"lr": lr, "etas": tuple(etas),
                                  "step_sizes": tuple(step_sizes), "maximize": maximize}, inplace)

    def _init_state(self, p, state, group):
        state["step"] = 0
        state["prev"] = self._buffer(p)
        state["step_size"] = self._buffer(p, group["lr"])

    def _update(self, p, g, state, group, ws, xp):
        state["step"] += 1
        (eta_minus, eta_plus), (lo, hi) = group["etas"], group["step_sizes"]
        d = _grad(p, g, group, ws[0])
        prev, size = state["prev"]._data, state["step_size"]._data
        factor = xp.multiply(d, prev, out=ws[1])
        xp.sign(factor, out=factor)
        flipped = factor < 0
        factor[factor > 0] = eta_plus
        factor[flipped] = eta_minus
        factor[factor == 0] = 1
        size *= factor
        xp.clip(size, lo, hi, out=size)
        prev[...] = d
        prev[factor == eta_minus] = 0
        direction = xp.sign(prev, out=ws[2])
        direction *= size
        p -= direction
