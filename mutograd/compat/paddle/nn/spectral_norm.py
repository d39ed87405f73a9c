"""Spectral normalisation with Paddle's names: the ``SpectralNorm`` layer (a weight in, the
weight divided by its largest singular value out) and ``spectral_norm`` (a hook that does that
to a layer's parameter before each forward).

Both estimate the singular value by power iteration on the weight seen as a matrix (the ``dim``
axis first, the rest flattened) from the vectors ``u`` and ``v``; the gradient is that of
``weight / (u @ W @ v)`` with the iterated ``u`` and ``v`` held constant (the original method's,
and Paddle's hook's; Paddle 3.3.1's ``SpectralNorm`` layer returns ``dOut * (1 - u v' * W) /
sigma`` instead, which is not the derivative of its output, so ours differs there).

    >>> import mutograd.compat.paddle as paddle
    >>> sn = paddle.nn.SpectralNorm([2, 2], power_iters=5)
    >>> w = paddle.to_tensor([[3., 0.], [0., 1.]])
    >>> round(float(sn(w).abs().max()), 4)
    1.0
"""
import math

import mutograd as _mg

from ....autograd.grad_mode import no_grad
from . import initializer as I
from .layers import Conv1DTranspose, Conv2DTranspose, Layer, Linear


def _as_matrix(weight, dim):
    """``weight`` with axis ``dim`` first and the others flattened: (h, w)."""
    if dim != 0:
        weight = _mg.movedim(weight, dim, 0)
    return weight.reshape([weight.shape[0], -1])


def _normalized(x, eps):
    return x / (_mg.linalg.norm(x) + eps)


def _power_iteration(matrix, u, v, iterations, eps):
    """``u`` and ``v`` after ``iterations`` steps, written into them (no gradient)."""
    with no_grad():
        m = matrix.detach()
        for _ in range(iterations):
            _mg.Tensor.copy_(v, _normalized(_mg.matmul(m.T, u), eps))
            _mg.Tensor.copy_(u, _normalized(_mg.matmul(m, v), eps))


def _divided_by_sigma(weight, matrix, u, v):
    sigma = _mg.dot(u.detach(), _mg.matmul(matrix, v.detach()))
    return weight / sigma


class SpectralNorm(Layer):
    """``paddle.nn.SpectralNorm``: ``forward(weight)`` is ``weight / sigma`` with ``sigma``
    from ``power_iters`` steps started at the parameters ``weight_u`` [h] and ``weight_v``
    [w] (N(0, 1), not trained), which, as in Paddle, keep their values; ``dim`` is 0 or 1."""

    def __init__(self, weight_shape, dim=0, power_iters=1, eps=1e-12, dtype="float32"):
        super().__init__()
        self._weight_shape, self._dim = list(weight_shape), dim
        self._power_iters, self._eps, self._dtype = power_iters, eps, dtype
        h = self._weight_shape[dim]
        w = math.prod(self._weight_shape) // h
        self.weight_u = self.create_parameter([h], dtype=dtype,
                                              default_initializer=I.Normal(0.0, 1.0))
        self.weight_v = self.create_parameter([w], dtype=dtype,
                                              default_initializer=I.Normal(0.0, 1.0))
        self.weight_u.stop_gradient = self.weight_v.stop_gradient = True

    def forward(self, x):
        if self._dim not in (0, 1):
            raise ValueError(f"(InvalidArgument) Attr(dim) can only be 0 or 1, but received "
                             f"{self._dim}")
        matrix = _as_matrix(x, self._dim)
        u, v = self.weight_u.detach().clone(), self.weight_v.detach().clone()
        _power_iteration(matrix, u, v, self._power_iters, self._eps)
        return _divided_by_sigma(x, matrix, u, v)


class _SpectralNormHook:
    """The forward pre-hook of :func:`spectral_norm`: ``layer.<name>`` from
    ``<name>_orig``, iterating (and updating) ``<name>_u`` and ``<name>_v`` while training."""

    def __init__(self, name, n_power_iterations, dim, eps):
        self.name, self.n_power_iterations, self.dim, self.eps = (name, n_power_iterations,
                                                                  dim, eps)

    def compute_weight(self, layer, do_power_iteration):
        weight = getattr(layer, self.name + "_orig")
        u, v = getattr(layer, self.name + "_u"), getattr(layer, self.name + "_v")
        matrix = _as_matrix(weight, self.dim)
        if do_power_iteration:
            _power_iteration(matrix, u, v, self.n_power_iterations, self.eps)
            u, v = u.clone(), v.clone()     # the next iteration writes into the buffers
        return _divided_by_sigma(weight, matrix, u, v)

    def __call__(self, layer, inputs):
        object.__setattr__(layer, self.name, self.compute_weight(layer, layer.training))


def spectral_norm(layer, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Normalise ``layer``'s parameter ``name`` by its spectral norm before every forward:
    the parameter becomes ``<name>_orig``, the buffers ``<name>_u`` and ``<name>_v`` hold the
    power iteration's vectors (random unit vectors at first); ``dim`` (the axis of the output
    features) is 1 for Linear and transposed convolutions, else 0 (Paddle). Returns ``layer``.

        >>> import mutograd.compat.paddle as paddle
        >>> lin = paddle.nn.spectral_norm(paddle.nn.Linear(3, 4))
        >>> sorted(lin.state_dict())
        ['bias', 'weight_orig', 'weight_u', 'weight_v']
    """
    if n_power_iterations <= 0:
        raise ValueError(f"Expected n_power_iterations to be positive, but got "
                         f"n_power_iterations={n_power_iterations}")
    if any(isinstance(h, _SpectralNormHook) and h.name == name
           for h in layer._forward_pre_hooks.values()):
        raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter "
                           f"{name}")
    if dim is None:
        dim = 1 if isinstance(layer, (Conv1DTranspose, Conv2DTranspose, Linear)) else 0
    hook = _SpectralNormHook(name, n_power_iterations, dim, eps)
    weight = layer._parameters.pop(name)
    h, w = _as_matrix(weight, dim).shape
    with no_grad():
        u = _normalized(_mg.randn([h], dtype=weight.dtype), eps)
        v = _normalized(_mg.randn([w], dtype=weight.dtype), eps)
    layer.register_parameter(name + "_orig", weight)
    object.__setattr__(layer, name, weight.detach() * 1.0)
    layer.register_buffer(name + "_u", u)
    layer.register_buffer(name + "_v", v)
    layer.register_forward_pre_hook(hook)
    return layer
