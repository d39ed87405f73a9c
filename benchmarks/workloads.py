"""The workloads: each written once per contestant, on the same data and sizes.

A workload is a class registered with :func:`workload`; for each contestant it has a static
method of that contestant's name (``mutograd``, ``torch``, ``paddle``, ``numpy``) that takes the
size dict and returns a callable running one timed unit (one op loop, one training step, ...).
A contestant without a method does not run that workload. More workloads (the ``nn``-based MLP,
the demo's CNN step) are added the same way from any module named ``benchmarks/workloads_*.py``,
which :func:`discover` imports.
"""
import importlib
import pkgutil
from types import MappingProxyType as frozen

import numpy as np

WORKLOADS = {}
CONTESTANTS = ("mutograd", "torch", "paddle", "numpy")


def workload(cls):
    """Register a workload class (see the module docstring)."""
    WORKLOADS[cls.name] = cls
    return cls


def discover():
    """Import every ``benchmarks/workloads_*.py`` so that their workloads register."""
    from . import __path__ as here
    for m in pkgutil.iter_modules(here):
        if m.name.startswith("workloads_"):
            importlib.import_module(f"{__package__}.{m.name}")
    return WORKLOADS


def _rng():
    return np.random.default_rng(0)


def train_step(model, opt, loss_fn, x, y):
    """One timed unit of a training workload, for any framework with PyTorch's API: the loss
    ``loss_fn(model(x), y)``, ``zero_grad``, backward, the optimizer's step; returns the loss."""
    def step():
        loss = loss_fn(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss
    return step


# ---- per-op overhead on 16 elements --------------------------------------------------------
# One timed unit runs ``k`` ops; the table reports time per op.


class _PerOp:
    group = "per-op overhead (16 elements)"
    unit = "us/op"
    full = frozen({"n": 16, "k": 2000})
    tiny = frozen({"n": 16, "k": 2})

    @staticmethod
    def data(size):
        r = _rng()
        return (r.standard_normal(size["n"]).astype(np.float32),
                r.standard_normal(size["n"]).astype(np.float32))


def _inputs(size, contestant, grad):
    """``a`` and ``b`` as the contestant's tensors (leaves that require grad if ``grad``)."""
    a, b = _PerOp.data(size)
    if contestant == "mutograd":
        import mutograd as mg
        return mg.tensor(a, requires_grad=grad), mg.tensor(b, requires_grad=grad)
    if contestant == "torch":
        import torch
        return torch.tensor(a, requires_grad=grad), torch.tensor(b, requires_grad=grad)
    if contestant == "paddle":
        import paddle
        return (paddle.to_tensor(a, stop_gradient=not grad),
                paddle.to_tensor(b, stop_gradient=not grad))
    return a, b


# The timed loops: the same source for every contestant, so none pays for an extra call per op.
def _add(a, b, k):
    def run():
        for _ in range(k):
            a + b
    return run


def _mul(a, b, k):
    def run():
        for _ in range(k):
            a * b
    return run


def _add_(a, b, k):
    def run():
        for _ in range(k):
            a.add_(b)
    return run


def _numpy_add_(a, b, k):
    def run():
        for _ in range(k):
            np.add(a, b, out=a)
    return run


def _add_nonleaf(a, b, k):
    def run():
        h = a * 1.0          # a fresh non-leaf per unit keeps the history k ops long
        for _ in range(k):
            h.add_(b)
    return run


def _per_op(loop, contestant, grad=False):
    """A contestant's method: its inputs, then ``loop`` over them ``k`` times."""
    return lambda size: loop(*_inputs(size, contestant, grad), size["k"])


@workload
class AddNoGrad(_PerOp):
    name = "add_nograd"
    desc = "a + b, no grad"
    mutograd, torch, paddle, numpy = (_per_op(_add, c) for c in CONTESTANTS)


@workload
class MulGrad(_PerOp):
    name = "mul_grad"
    desc = "a * b, both require grad (records a node)"
    mutograd, torch, paddle, numpy = (_per_op(_mul, c, grad=True) for c in CONTESTANTS)


@workload
class AddInplaceNoGrad(_PerOp):
    name = "add__nograd"
    desc = "a.add_(b), no grad"
    mutograd, torch, paddle = (_per_op(_add_, c) for c in CONTESTANTS[:3])
    numpy = _per_op(_numpy_add_, "numpy")


@workload
class AddInplaceNonLeafGrad(_PerOp):
    name = "add__nonleaf_grad"
    desc = "h.add_(b) on a non-leaf h, b requires grad (rebases h's history)"
    mutograd, torch, paddle = (_per_op(_add_nonleaf, c, grad=True) for c in CONTESTANTS[:3])


# ---- large element-wise (32M float32) -------------------------------------------------------


class _Large:
    group = "large element-wise (32M float32)"
    unit = "ms"
    full = frozen({"n": 32 * 2**20})
    tiny = frozen({"n": 1024})

    @staticmethod
    def data(size):
        return _rng().standard_normal(size["n"], dtype=np.float32)

    @staticmethod
    def input(contestant, size):
        """The data as the contestant's tensor: a copy for mutograd and Paddle, shared memory
        for PyTorch (``from_numpy``), the array itself for NumPy."""
        x = _Large.data(size)
        if contestant == "mutograd":
            import mutograd as mg
            return mg.tensor(x)
        if contestant == "torch":
            import torch
            return torch.from_numpy(x)
        if contestant == "paddle":
            import paddle
            return paddle.to_tensor(x)
        return x


@workload
class ReluOut(_Large):
    name = "relu_out"
    desc = "y = relu(x), out of place"

    def mutograd(size):
        x = _Large.input("mutograd", size)
        return lambda: x.relu()

    def torch(size):
        import torch
        x = _Large.input("torch", size)
        return lambda: torch.relu(x)

    def paddle(size):
        import paddle
        x = _Large.input("paddle", size)
        return lambda: paddle.nn.functional.relu(x)

    def numpy(size):
        x = _Large.data(size)
        return lambda: np.maximum(x, 0)


@workload
class ReluInplace(_Large):
    name = "relu_inplace"
    desc = "x.relu_(), in place"

    def mutograd(size):
        x = _Large.input("mutograd", size)
        return lambda: x.relu_()

    def torch(size):
        x = _Large.input("torch", size)
        return lambda: x.relu_()

    def paddle(size):
        import paddle
        x = _Large.input("paddle", size)
        return lambda: paddle.nn.functional.relu_(x)

    def numpy(size):
        x = _Large.data(size)
        return lambda: np.maximum(x, 0, out=x)


@workload
class ChainOut(_Large):
    name = "chain_out"
    desc = "((x*2+1).exp()).tanh(), out of place"

    def mutograd(size):
        x = _Large.input("mutograd", size)
        return lambda: ((x * 2 + 1).exp()).tanh()

    def torch(size):
        x = _Large.input("torch", size)
        return lambda: ((x * 2 + 1).exp()).tanh()

    def paddle(size):
        import paddle
        x = _Large.input("paddle", size)
        return lambda: paddle.tanh(paddle.exp(x * 2 + 1))

    def numpy(size):
        x = _Large.data(size)
        return lambda: np.tanh(np.exp(x * 2 + 1))


@workload
class ChainInplace(_Large):
    name = "chain_inplace"
    desc = "x.mul_(2).add_(1).exp_().tanh_(), all in place (values stay in (-1, 1))"

    def mutograd(size):
        x = _Large.input("mutograd", size)
        return lambda: x.mul_(2).add_(1).exp_().tanh_()

    def torch(size):
        x = _Large.input("torch", size)
        return lambda: x.mul_(2).add_(1).exp_().tanh_()

    def paddle(size):
        import paddle
        x = _Large.input("paddle", size)
        return lambda: paddle.tanh_(paddle.exp_(x.scale_(2.0, 1.0)))

    def numpy(size):
        x = _Large.data(size)

        def run():
            np.multiply(x, 2, out=x)
            np.add(x, 1, out=x)
            np.exp(x, out=x)
            np.tanh(x, out=x)
        return run
