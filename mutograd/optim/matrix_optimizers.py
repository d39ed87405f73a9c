"""Optimizers that treat a weight as a matrix: Adafactor (a second moment factored into row and
column averages, so its state is O(rows + columns)) and Muon (momentum orthogonalised by a
Newton-Schulz iteration). In place with the optimizer's workspace where the update has the
parameter's shape (Note [In-place optimizer steps] in optimizer.py)."""
import math

from ..tensor import _wrap
from .algorithms import _lerp
from .optimizer import Optimizer


def _matrix_norm(xp, a):
    return float(xp.sqrt(xp.vdot(a.ravel(), a.ravel()).real))


class Adafactor(Optimizer):
    """Adafactor as PyTorch has it: the step size is relative to the parameter's RMS (at least
    ``eps[1]``) times ``min(lr, 1/sqrt(step))``; the second moment of a matrix (or of the last two
    axes of a batch of matrices) is kept as row and column averages, of a vector in full, and
    decays as ``step ** beta2_decay``; ``d`` clips the update's RMS."""

    n_workspace = 3

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, maximize=False, inplace=True):
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        super().__init__(params, {"lr": lr, "beta2_decay": beta2_decay, "eps": tuple(eps),
                                  "d": d, "weight_decay": weight_decay, "maximize": maximize},
                         inplace)

    def _init_state(self, p, state, group):
        state["step"] = 0
        xp, shape = p._place.xp, p._data.shape
        if p.ndim > 1:
            state["row_var"] = _wrap(xp.zeros(shape[:-1] + (1,), p._data.dtype), p)
            state["col_var"] = _wrap(xp.zeros(shape[:-2] + (1,) + shape[-1:], p._data.dtype), p)
        else:
            state["variance"] = self._buffer(p)

    def _state_shape(self, key, p):
        if key == "row_var":
            return list(p.shape[:-1]) + [1]
        if key == "col_var":
            return list(p.shape[:-2]) + [1, p.shape[-1]]
        return super()._state_shape(key, p)

    def _update(self, p, g, state, group, ws, xp):
        lr, (eps1, eps2) = group["lr"], group["eps"]
        if eps1 is None:
            eps1 = float(xp.finfo(p.dtype).eps)
        if group["maximize"]:
            g = xp.negative(g, out=ws[0])
        state["step"] += 1
        step = float(state["step"])
        one_minus_beta2 = step ** group["beta2_decay"]
        rho = min(lr, 1 / step ** 0.5)
        alpha = max(eps2, _matrix_norm(xp, p) / math.sqrt(p.size)) * rho
        if group["weight_decay"]:
            p *= 1 - lr * group["weight_decay"]
        est = ws[1]
        if p.ndim > 1:
            row, col = state["row_var"]._data, state["col_var"]._data
            sq = xp.multiply(g, g, out=est)
            row_mean = sq.sum(axis=-1, keepdims=True)
            row_mean /= g.shape[-1]
            _lerp(xp, row, row_mean, one_minus_beta2, row_mean.copy())
            col_mean = sq.sum(axis=-2, keepdims=True)
            col_mean /= g.shape[-2]
            _lerp(xp, col, col_mean, one_minus_beta2, col_mean.copy())
            xp.matmul(row, col, out=est)
            scale = row.mean(axis=-2, keepdims=True)
            xp.maximum(scale, eps1, out=scale)
            est /= scale
        else:
            v = state["variance"]._data
            sq = xp.multiply(g, g, out=est)
            _lerp(xp, v, sq, one_minus_beta2, ws[2])
            est[...] = v
        xp.maximum(est, eps1 * eps1, out=est)
        xp.sqrt(est, out=est)
        xp.divide(1, est, out=est)
        est *= g
        denom = max(1.0, _matrix_norm(xp, est) / (math.sqrt(est.size) * group["d"]))
        est *= -alpha / denom
        p += est


def _orthogonalise(xp, m, coefficients, steps, eps):
    """A quintic Newton-Schulz iteration that pushes the singular values of ``m`` towards one:
    roughly ``U V^T`` of its SVD, as Muon uses it."""
    a, b, c = coefficients
    x = m.T if m.shape[0] > m.shape[1] else m
    x = x / max(_matrix_norm(xp, x), eps)
    for _ in range(steps):
        gram = x @ x.T
        update = b * gram + c * (gram @ gram)
        x = a * x + update @ x
    return x.T if m.shape[0] > m.shape[1] else x


class Muon(Optimizer):
    """Momentum (Nesterov by default) whose update is orthogonalised by a Newton-Schulz
    iteration, for 2-D weights; decoupled weight decay. PyTorch runs the iteration in
    bfloat16; mutograd runs it in the parameter's dtype (closer to the exact orthogonalisation,
    so steps agree with PyTorch to bfloat16's precision, not bit for bit)."""

    n_workspace = 1

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(3.4445, -4.7750, 2.0315), eps=1e-7, ns_steps=5,
                 adjust_lr_fn=None, inplace=True):
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn not in (None, "original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        if ns_steps >= 100:
            raise ValueError("Number of steps must be less than 100 for computational efficiency")
        if len(ns_coefficients) != 3:
            raise ValueError("Coefficients must be a tuple of exactly 3 values")
        super().__init__(params, {"lr": lr, "weight_decay": weight_decay, "momentum": momentum,
                                  "nesterov": nesterov, "ns_coefficients": tuple(ns_coefficients),
                                  "eps": eps, "ns_steps": ns_steps, "adjust_lr_fn": adjust_lr_fn},
                         inplace)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {list(p.shape)}")

    def _init_state(self, p, state, group):
        state["momentum_buffer"] = self._buffer(p)

    def _update(self, p, g, state, group, ws, xp):
        lr, mom = group["lr"], group["momentum"]
        buf = state["momentum_buffer"]._data
        _lerp(xp, buf, g, 1 - mom, ws[0])
        if group["nesterov"]:
            update = g.copy()
            _lerp(xp, update, buf, mom, ws[0])
        else:
            update = buf
        update = _orthogonalise(xp, update, group["ns_coefficients"], group["ns_steps"],
                                group["eps"])
        rows, cols = p.shape[:2]
        ratio = {None: math.sqrt(max(1, rows / cols)), "original": math.sqrt(max(1, rows / cols)),
                 "match_rms_adamw": 0.2 * math.sqrt(max(rows, cols))}[group["adjust_lr_fn"]]
        p *= 1 - lr * group["weight_decay"]
        update *= -lr * ratio
        p += update
