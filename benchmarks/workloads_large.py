"""Large element-wise ops, in place and out of place, on 32M float32 (128 MiB): the ops that
``mutograd.parallel`` splits over the cores (``relu_out``/``relu_inplace`` and the ``chain_*``
workloads of workloads.py are the ReLU and the chained forms).

Each in-place unit keeps its values in a range where the op's cost does not change from unit
to unit: ``add_`` adds a fixed tensor (values grow by a few units per hundred calls),
``mul_`` multiplies by a tensor of +-1, ``exp_`` is undone by ``log_`` in the same unit (exp
alone would reach inf in four calls), ``tanh_`` shrinks its values slowly towards 0.
"""
import numpy as np

from .workloads import _Large, _rng, workload


def _pair(size):
    """``x`` (standard normal) and ``y`` (+-1), float32."""
    x = _Large.data(size)
    y = np.where(_rng().random(size["n"]) < 0.5, -1.0, 1.0).astype(np.float32)
    return x, y


def _as(contestant, *arrays):
    if contestant == "mutograd":
        import mutograd as mg
        return [mg.tensor(a) for a in arrays]
    if contestant == "torch":
        import torch
        return [torch.from_numpy(a) for a in arrays]
    if contestant == "paddle":
        import paddle
        return [paddle.to_tensor(a) for a in arrays]
    return list(arrays)


def _define(name, desc, make):
    """A workload whose contestants all run ``make(contestant, size)``."""
    body = {"name": name, "desc": desc}
    for c in ("mutograd", "torch", "paddle", "numpy"):
        body[c] = staticmethod(lambda size, c=c: make(c, size))
    return workload(type(name.title().replace("_", ""), (_Large,), body))


def _add_inplace(c, size):
    x, y = _as(c, *_pair(size))
    if c == "numpy":
        return lambda: np.add(x, y, out=x)
    return lambda: x.add_(y)


def _mul_inplace(c, size):
    x, y = _as(c, *_pair(size))
    if c == "numpy":
        return lambda: np.multiply(x, y, out=x)
    if c == "paddle":
        return lambda: x.multiply_(y)
    return lambda: x.mul_(y)


def _exp_log_inplace(c, size):
    x, = _as(c, _Large.data(size))
    if c == "numpy":
        return lambda: np.log(np.exp(x, out=x), out=x)
    return lambda: x.exp_().log_()


def _tanh_inplace(c, size):
    x, = _as(c, _Large.data(size))
    if c == "numpy":
        return lambda: np.tanh(x, out=x)
    return lambda: x.tanh_()


def _add_out(c, size):
    x, y = _as(c, *_pair(size))
    return lambda: x + y


def _mul_out(c, size):
    x, y = _as(c, *_pair(size))
    return lambda: x * y


def _exp_out(c, size):
    x, = _as(c, _Large.data(size))
    if c == "numpy":
        return lambda: np.exp(x)
    return lambda: x.exp()


def _tanh_out(c, size):
    x, = _as(c, _Large.data(size))
    if c == "numpy":
        return lambda: np.tanh(x)
    return lambda: x.tanh()


_define("add_inplace", "x.add_(y), in place", _add_inplace)
_define("mul_inplace", "x.mul_(y), in place (y is +-1)", _mul_inplace)
_define("exp_log_inplace", "x.exp_().log_(), in place", _exp_log_inplace)
_define("tanh_inplace", "x.tanh_(), in place", _tanh_inplace)
_define("add_out", "x + y, out of place", _add_out)
_define("mul_out", "x * y, out of place", _mul_out)
_define("exp_out", "x.exp(), out of place", _exp_out)
_define("tanh_out", "x.tanh(), out of place", _tanh_out)
