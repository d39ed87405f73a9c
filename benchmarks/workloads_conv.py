"""Convolution workloads: an MNIST-sized CNN training step, and a 3x3 convolution's forward and
its two gradients alone.

The CNN is conv3x3 1->16, ReLU, max-pool 2, conv3x3 16->32, ReLU, max-pool 2, Linear 1568->10
on a batch of 64 28x28 images, softmax cross-entropy, SGD; every contestant starts from the same
weights. The NumPy contestant is written by hand for speed (im2col by 9 copies + a batched
matrix product per convolution and per gradient, the input gradient as a convolution with the
flipped kernel, max-pool as maxima of strided views): the floor for a NumPy-backed framework.

The convolution alone is the CNN's second one (64x16x14x14 input, 32x16x3x3 weight, padding 1).
Its gradients are timed as the kernels themselves: PyTorch's ``torch.nn.grad`` functions and
mutograd's declared gradient formulas of ``conv2d``, each given the same output gradient.
"""
import numpy as np

from .workloads import frozen, train_step, workload

LR = 0.01


def _mnist(size):
    """Images, labels and the model's weights as float32 NumPy arrays."""
    r = np.random.default_rng(0)
    b, hw, c1, c2 = size["batch"], size["hw"], size["c1"], size["c2"]
    x = r.standard_normal((b, 1, hw, hw), dtype=np.float32)
    y = r.integers(0, 10, b)

    def init(shape, fan_in):
        return (r.uniform(-1, 1, shape) / np.sqrt(fan_in)).astype(np.float32)
    feat = c2 * (hw // 4) ** 2
    params = [init((c1, 1, 3, 3), 9), init((c1,), 9), init((c2, c1, 3, 3), 9 * c1),
              init((c2,), 9 * c1), init((10, feat), feat), init((10,), feat)]
    return x, y, params


def _cnn(nn, size):
    c1, c2 = size["c1"], size["c2"]
    return nn.Sequential(
        nn.Conv2d(1, c1, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(c1, c2, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(c2 * (size["hw"] // 4) ** 2, 10))


@workload
class MnistCnnStep:
    name = "mnist_cnn_step"
    group = "an MNIST-sized CNN training step"
    desc = "MNIST-sized CNN step (2 conv3x3, 2 max-pool, linear; batch 64, SGD)"
    unit = "ms"
    full = frozen({"batch": 64, "hw": 28, "c1": 16, "c2": 32})
    tiny = frozen({"batch": 2, "hw": 8, "c1": 2, "c2": 3})

    def mutograd(size):
        import mutograd as mg
        from mutograd import nn
        x, y, params = _mnist(size)
        X, Y = mg.from_numpy(x), mg.from_numpy(y)
        model = _cnn(nn, size)
        with mg.no_grad():
            for p, v in zip(model.parameters(), params):
                p.copy_(mg.from_numpy(v))
        opt = mg.optim.SGD(model.parameters(), lr=LR)

        return train_step(model, opt, nn.functional.cross_entropy, X, Y)

    def torch(size):
        import torch
        x, y, params = _mnist(size)
        X, Y = torch.from_numpy(x), torch.from_numpy(y)
        model = _cnn(torch.nn, size)
        with torch.no_grad():
            for p, v in zip(model.parameters(), params):
                p.copy_(torch.from_numpy(v))
        opt = torch.optim.SGD(model.parameters(), lr=LR)

        return train_step(model, opt, torch.nn.functional.cross_entropy, X, Y)

    def numpy(size):
        x, y, params = _mnist(size)
        n = x.shape[0]
        target = np.zeros((n, 10), np.float32)
        target[np.arange(n), y] = 1.0 / n

        def step():
            w1, b1, w2, b2, w3, b3 = params
            c1, h1 = _np_conv(x, w1, b1)
            r1 = np.maximum(c1, 0)
            p1 = _np_pool(r1)
            c2, h2 = _np_conv(p1, w2, b2)
            r2 = np.maximum(c2, 0)
            p2 = _np_pool(r2)
            f = p2.reshape(n, -1)
            z = f @ w3.T
            z += b3
            z -= z.max(axis=1, keepdims=True)
            e = np.exp(z)
            s = e.sum(axis=1, keepdims=True)
            loss = float(np.log(s).sum() / n - (z * target).sum())
            gz = e / s / n - target                       # softmax cross-entropy, mean
            gw3, gb3 = gz.T @ f, gz.sum(axis=0)
            gp2 = (gz @ w3).reshape(p2.shape)
            gc2 = _np_pool_grad(gp2, r2)            # and ReLU's
            gw2, gb2, gp1 = _np_conv_grad(gc2, h2, w2, p1.shape)
            gc1 = _np_pool_grad(gp1, r1)
            gw1, gb1, _ = _np_conv_grad(gc1, h1, w1, None)
            for p, g in zip(params, (gw1, gb1, gw2, gb2, gw3, gb3)):
                p -= LR * g
            return loss
        return step


def _np_cols(x):
    """im2col of a 3x3 convolution with padding 1: (N, C*9, H*W), one copy per kernel offset."""
    n, c, h, w = x.shape
    xp = np.zeros((n, c, h + 2, w + 2), x.dtype)
    xp[:, :, 1:-1, 1:-1] = x
    cols = np.empty((n, c, 3, 3, h, w), x.dtype)
    for i in range(3):
        for j in range(3):
            cols[:, :, i, j] = xp[:, :, i:i + h, j:j + w]
    return cols.reshape(n, c * 9, h * w)


def _np_conv(x, w, b):
    """A 3x3 convolution with padding 1: (result, its im2col columns)."""
    n, _, h, wd = x.shape
    cols = _np_cols(x)
    out = np.matmul(w.reshape(w.shape[0], -1), cols)                         # N O (H W)
    out += b[:, None]
    return out.reshape(n, -1, h, wd), cols


def _np_conv_grad(g, cols, w, x_shape):
    """Weight, bias and (unless ``x_shape`` is None) input gradients of :func:`_np_conv`; the
    input gradient is the convolution of ``g`` with the flipped kernel, channels swapped."""
    n, o = g.shape[:2]
    g3 = g.reshape(n, o, -1)
    gw = np.matmul(g3, cols.transpose(0, 2, 1)).sum(axis=0).reshape(w.shape)
    gb = g3.sum(axis=(0, 2))
    if x_shape is None:
        return gw, gb, None
    wf = np.ascontiguousarray(w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3))
    gx = np.matmul(wf.reshape(wf.shape[0], -1), _np_cols(g))
    return gw, gb, gx.reshape(x_shape)


def _np_pool(x):
    """2x2 max-pool: the maximum of the four strided views (no reduction over short axes)."""
    return np.maximum(np.maximum(x[:, :, ::2, ::2], x[:, :, ::2, 1::2]),
                      np.maximum(x[:, :, 1::2, ::2], x[:, :, 1::2, 1::2]))


def _np_pool_grad(g, x):
    """The gradient of max-pool after ReLU (``x >= 0``): a window's maximum gets it, unless it
    is 0 (ReLU's gradient there is 0; positive ties have probability 0)."""
    out = _np_pool(x)
    gx = np.empty_like(x)
    for i in range(2):
        for j in range(2):
            v = x[:, :, i::2, j::2]
            np.multiply(g, (v == out) & (v > 0), out=gx[:, :, i::2, j::2])
    return gx


# ---- one convolution alone -----------------------------------------------------------------
class _Conv:
    group = "a 3x3 convolution alone (64x16x14x14 input, 32 output channels, padding 1)"
    unit = "ms"
    full = frozen({"batch": 64, "c": 16, "o": 32, "hw": 14})
    tiny = frozen({"batch": 2, "c": 2, "o": 3, "hw": 5})

    @staticmethod
    def data(size):
        r = np.random.default_rng(0)
        n, c, o, hw = size["batch"], size["c"], size["o"], size["hw"]
        return (r.standard_normal((n, c, hw, hw), dtype=np.float32),
                r.standard_normal((o, c, 3, 3), dtype=np.float32),
                r.standard_normal((n, o, hw, hw), dtype=np.float32))


_GEOMETRY = {"stride": (1, 1), "padding": (1, 1), "dilation": (1, 1), "groups": 1}


@workload
class Conv2dForward(_Conv):
    name = "conv2d_fwd"
    desc = "conv2d forward, no grad"

    def mutograd(size):
        import mutograd as mg
        import mutograd.nn.functional as F
        x, w, _ = _Conv.data(size)
        X, W = mg.from_numpy(x), mg.from_numpy(w)
        return lambda: F.conv2d(X, W, padding=1)

    def torch(size):
        import torch
        x, w, _ = _Conv.data(size)
        X, W = torch.from_numpy(x), torch.from_numpy(w)
        return lambda: torch.nn.functional.conv2d(X, W, padding=1)


@workload
class Conv2dGradInput(_Conv):
    name = "conv2d_grad_input"
    desc = "conv2d input gradient alone"

    def mutograd(size):
        from mutograd.ops.convolution import _conv2d_grad_x
        x, w, g = _Conv.data(size)
        return lambda: _conv2d_grad_x(g, x.shape, w, xp=np, **_GEOMETRY)

    def torch(size):
        import torch
        x, w, g = _Conv.data(size)
        W, G = torch.from_numpy(w), torch.from_numpy(g)
        return lambda: torch.nn.grad.conv2d_input(x.shape, W, G, padding=1)


@workload
class Conv2dGradWeight(_Conv):
    name = "conv2d_grad_weight"
    desc = "conv2d weight gradient alone"

    def mutograd(size):
        from mutograd.ops.convolution import _conv2d_grad_w
        x, w, g = _Conv.data(size)
        return lambda: _conv2d_grad_w(g, x, w.shape, xp=np, **_GEOMETRY)

    def torch(size):
        import torch
        x, w, g = _Conv.data(size)
        X, G = torch.from_numpy(x), torch.from_numpy(g)
        return lambda: torch.nn.grad.conv2d_weight(X, w.shape, G, padding=1)
