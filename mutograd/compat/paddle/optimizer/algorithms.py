"""Update rules of the Paddle optimizers whose arithmetic differs from mutograd.optim's
(PyTorch's), as Paddle 3.3.1 computes them: ``Adamax`` (where epsilon enters). Each writes the
parameter and its state in place (``p`` is the parameter's array, ``g`` its gradient's)."""

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
