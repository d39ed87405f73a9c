"""Training workloads written with raw ops: the MLP step and the deep narrow MLP.

The nn-based MLP and the demo's CNN step register the same way from another
``benchmarks/workloads_*.py`` module once ``mutograd.nn`` exists.
"""
from itertools import pairwise

import numpy as np

from .workloads import frozen, workload

LR = 0.01
MLP_FULL = frozen({"dims": (784, 2048, 2048, 10), "batch": 512})
MLP_TINY = frozen({"dims": (8, 16, 16, 3), "batch": 4})


def mlp_data(size):
    """Inputs, one-hot targets scaled by 1/batch, and weights (the same for every contestant)."""
    r = np.random.default_rng(0)
    dims, b = size["dims"], size["batch"]
    x = r.standard_normal((b, dims[0]), dtype=np.float32)
    labels = r.integers(0, dims[-1], b)
    onehot = np.zeros((b, dims[-1]), np.float32)
    onehot[np.arange(b), labels] = 1.0 / b
    ws = [(r.standard_normal((i, o), dtype=np.float32) * np.float32(np.sqrt(2 / i)))
          for i, o in pairwise(dims)]
    bs = [np.zeros(o, np.float32) for o in dims[1:]]
    return x, onehot, ws, bs


def _leaves(lib, arrays):
    """``arrays`` as leaf tensors that require grad (mutograd or PyTorch)."""
    return [lib.tensor(a, requires_grad=True) for a in arrays]


def _mlp_step(lib, size, inplace, log_softmax):
    """The raw-op MLP step of mutograd or PyTorch (the same source for both)."""
    x, onehot, ws, bs = mlp_data(size)
    X, T = lib.from_numpy(x), lib.from_numpy(onehot)
    W, B = _leaves(lib, ws), _leaves(lib, bs)
    params = W + B
    last = len(W) - 1

    def step():
        h = X
        for i in range(len(W)):
            h = h @ W[i] + B[i]
            if i < last:
                h = h.relu_() if inplace else h.relu()
        loss = -(log_softmax(h) * T).sum()
        loss.backward()
        with lib.no_grad():
            for p in params:
                p.add_(p.grad, alpha=-LR)
                p.grad = None
        return loss
    return step


class _Mlp:
    group = "MLP training step (784-2048-2048-10, batch 512, float32, SGD)"
    unit = "ms"
    full, tiny = MLP_FULL, MLP_TINY
    inplace = False

    @classmethod
    def mutograd(cls, size):
        import mutograd as mg
        return _mlp_step(mg, size, cls.inplace, lambda h: h.log_softmax(axis=1))

    @classmethod
    def torch(cls, size):
        import torch
        return _mlp_step(torch, size, cls.inplace, lambda h: torch.log_softmax(h, 1))

    @classmethod
    def paddle(cls, size):
        import paddle
        x, onehot, ws, bs = mlp_data(size)
        X, T = paddle.to_tensor(x), paddle.to_tensor(onehot)
        W = [paddle.to_tensor(w, stop_gradient=False) for w in ws]
        B = [paddle.to_tensor(b, stop_gradient=False) for b in bs]
        params = W + B
        last = len(W) - 1
        relu = paddle.nn.functional.relu_ if cls.inplace else paddle.nn.functional.relu

        def step():
            h = X
            for i in range(len(W)):
                h = paddle.matmul(h, W[i]) + B[i]
                if i < last:
                    h = relu(h)
            loss = -(paddle.nn.functional.log_softmax(h, axis=1) * T).sum()
            loss.backward()
            with paddle.no_grad():
                for p in params:
                    p.set_value(p - LR * p.grad)
                    p.clear_grad()
            return loss
        return step

    @classmethod
    def numpy(cls, size):
        """The floor: forward and hand-derived backward with NumPy, written for speed."""
        x, onehot, ws, bs = mlp_data(size)
        last = len(ws) - 1
        inplace = cls.inplace

        def step():
            acts = [x]
            h = x
            for i in range(len(ws)):
                h = h @ ws[i]
                h += bs[i]
                if i < last:
                    h = np.maximum(h, 0, out=h if inplace else None)
                    acts.append(h)
            m = h.max(axis=1, keepdims=True)
            s = h - m
            s -= np.log(np.exp(s).sum(axis=1, keepdims=True))
            loss = -(s * onehot).sum()
            # d loss / d logits = softmax * sum(onehot) - onehot, and sum(onehot) = 1 per row
            g = np.exp(s)
            g *= onehot.sum(axis=1, keepdims=True)
            g -= onehot
            for i in range(last, -1, -1):
                a = acts[i]
                dw = a.T @ g
                db = g.sum(axis=0)
                if i:
                    g = g @ ws[i].T
                    g *= a > 0
                dw *= LR
                ws[i] -= dw
                db *= LR
                bs[i] -= db
            return loss
        return step


@workload
class MlpStep(_Mlp):
    name = "mlp_step"
    desc = "MLP step, out-of-place ReLU"


@workload
class MlpStepInplace(_Mlp):
    name = "mlp_step_inplace"
    desc = "MLP step, in-place ReLU"
    inplace = True


def _deep_step(X, W, B):
    """Forward and backward through the deep MLP (the same source for mutograd and PyTorch)."""
    def run():
        h = X
        for w, b in zip(W, B):
            h = (h @ w + b).relu()
        h.sum().backward()
        for p in W + B:
            p.grad = None
    return run


@workload
class DeepMlp:
    name = "deep_mlp"
    group = "deep narrow MLP (64 layers of 256x256, batch 64) forward + backward"
    desc = "deep narrow MLP fwd+bwd"
    unit = "ms"
    full = frozen({"dims": (256,) * 65, "batch": 64})
    tiny = frozen({"dims": (8,) * 4, "batch": 4})

    def mutograd(size):
        import mutograd as mg
        x, _, ws, bs = mlp_data(size)
        return _deep_step(mg.from_numpy(x), _leaves(mg, ws), _leaves(mg, bs))

    def torch(size):
        import torch
        x, _, ws, bs = mlp_data(size)
        return _deep_step(torch.from_numpy(x), _leaves(torch, ws), _leaves(torch, bs))

    def paddle(size):
        import paddle
        x, _, ws, bs = mlp_data(size)
        X = paddle.to_tensor(x)
        W = [paddle.to_tensor(w, stop_gradient=False) for w in ws]
        B = [paddle.to_tensor(b, stop_gradient=False) for b in bs]

        def run():
            h = X
            for w, b in zip(W, B):
                h = paddle.nn.functional.relu(paddle.matmul(h, w) + b)
            h.sum().backward()
            for p in W + B:
                p.clear_grad()
        return run

    def numpy(size):
        x, _, ws, bs = mlp_data(size)

        def run():
            acts = [x]
            h = x
            for w, b in zip(ws, bs):
                h = h @ w
                h += b
                np.maximum(h, 0, out=h)
                acts.append(h)
            g = np.ones_like(h)
            grads = []
            for i in range(len(ws) - 1, -1, -1):
                g *= acts[i + 1] > 0
                grads.append((acts[i].T @ g, g.sum(axis=0)))
                g = g @ ws[i].T
            return grads
        return run
