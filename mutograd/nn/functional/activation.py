"""Activations as functions, with PyTorch's ``inplace=`` flag where PyTorch has one.

Every ``inplace=`` activation goes through :func:`run_activation`: ``inplace=True`` is the
registry's in-place op (``relu_``, ``celu_``, ...), so ``y is x``, the version bump, the leaf
error before any write and the saving rules of every in-place op hold.

    >>> import mutograd as mg
    >>> import mutograd.nn.functional as F
    >>> x = mg.tensor([-1.0, 2.0])
    >>> F.celu(x, inplace=True) is x
    True
"""

from ... import random
from ...errors import ShapeError
from ...ops import OPS, call, call_inplace
from ...ops.softmax import log_softmax as _log_softmax
from ...ops.softmax import softmax as _softmax
from ...tensor import _wrap


def run_activation(name, input, inplace=False, **attrs):
    """Run the declared op ``name`` on ``input`` with ``attrs`` (over the op's defaults): a new
    tensor, or with ``inplace=True`` the op's in-place form, which writes ``input`` and returns
    it. The one implementation behind every ``inplace=`` activation (functions, modules and
    both dialects).

        >>> import mutograd as mg
        >>> x = mg.tensor([-1.0, 2.0])
        >>> run_activation("leaky_relu", x, True, negative_slope=0.5) is x, x.tolist()
        (True, [-0.5, 2.0])
    """
    op = OPS[name]
    a = {**op.defaults, **attrs} if attrs else op.defaults   # the defaults themselves: the
    # runner's ufunc path takes them (Note [Ufunc fast path] in ops/registry.py)
    return call_inplace(op, [input], a) if inplace else call(op, [input], a)


# ---- the ``inplace=`` activations (PyTorch's signatures) ------------------------------------
def relu(input, inplace=False):
    """``max(x, 0)``; ``inplace=True`` writes into ``input`` (ReLU saves its output: no copy)."""
    return run_activation("relu", input, inplace)


def relu6(input, inplace=False):
    """``min(max(x, 0), 6)``."""
    return run_activation("relu6", input, inplace)


def elu(input, alpha=1.0, inplace=False):
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere."""
    return run_activation("elu", input, inplace, alpha=alpha)


def silu(input, inplace=False):
    """``x * sigmoid(x)`` (in place it keeps a copy of the input for backward)."""
    return run_activation("silu", input, inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``x`` where positive, ``negative_slope * x`` elsewhere."""
    return run_activation("leaky_relu", input, inplace, negative_slope=negative_slope)


def celu(input, alpha=1.0, inplace=False):
    """CELU: ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    return run_activation("celu", input, inplace, alpha=alpha)


def selu(input, inplace=False):
    """SELU with the fixed ``scale`` and ``alpha`` of self-normalizing networks."""
    return run_activation("selu", input, inplace)


def mish(input, inplace=False):
    """``x * tanh(softplus(x))``."""
    return run_activation("mish", input, inplace)


def hardsigmoid(input, inplace=False):
    """``relu6(x + 3) / 6``."""
    return run_activation("hardsigmoid", input, inplace)


def hardswish(input, inplace=False):
    """``x * relu6(x + 3) / 6``."""
    return run_activation("hardswish", input, inplace)


def threshold(input, threshold, value, inplace=False):
    """``x`` where ``x > threshold``, else ``value``."""
    return run_activation("threshold", input, inplace, threshold=threshold, value=value)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """``clip(x, min_val, max_val)``."""
    return run_activation("hardtanh", input, inplace, min=min_val, max=max_val)


# PyTorch's ``torch.nn.functional.X_`` spellings: in place, return ``input``
def relu_(input):
    return relu(input, inplace=True)


def elu_(input, alpha=1.0):
    return elu(input, alpha, inplace=True)


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, inplace=True)


def celu_(input, alpha=1.0):
    """In-place :func:`celu`; returns ``input``."""
    return celu(input, alpha, inplace=True)


def selu_(input):
    """In-place :func:`selu`; returns ``input``."""
    return selu(input, inplace=True)


def threshold_(input, threshold, value):
    """In-place :func:`threshold`; returns ``input``."""
    return run_activation("threshold", input, True, threshold=threshold, value=value)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place :func:`hardtanh`; returns ``input``."""
    return hardtanh(input, min_val, max_val, inplace=True)


# ---- activations without ``inplace=`` -------------------------------------------------------
def gelu(x, approximate="none"):
    """Gaussian error linear unit (``approximate='tanh'`` for the tanh form)."""
    return call(OPS["gelu"], [x], {"approximate": approximate})


def sigmoid(x):
    return call(OPS["sigmoid"], [x], {})


def tanh(x):
    return call(OPS["tanh"], [x], {})


def softmax(x, dim=None, dtype=None, axis=-1):
    return _softmax(x, axis=axis if dim is None else dim, dtype=dtype)


def log_softmax(x, dim=None, dtype=None, axis=-1):
    return _log_softmax(x, axis=axis if dim is None else dim, dtype=dtype)


def softplus(x, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta * x)) / beta``, linear above ``threshold``."""
    return call(OPS["softplus"], [x], {"beta": beta, "threshold": threshold})


def logsigmoid(x):
    """``log(sigmoid(x)) = -softplus(-x)``, stable for large ``|x|``."""
    return -softplus(-x)


def softsign(x):
    """``x / (1 + |x|)``."""
    return x / (x.abs() + 1)


def tanhshrink(x):
    """``x - tanh(x)``."""
    return x - x.tanh()


def softshrink(x, lambd=0.5):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, 0 between."""
    return call(OPS["where"], [x.abs() > lambd, x - x.sign() * lambd, 0.0], {})


def hardshrink(x, lambd=0.5):
    """``x`` where ``|x| > lambd``, else 0."""
    return call(OPS["where"], [x.abs() > lambd, x, 0.0], {})


def glu(x, dim=-1):
    """The gated linear unit: ``a * sigmoid(b)`` with ``a, b`` the halves of ``x`` along ``dim``."""
    if x.shape[dim] % 2:
        raise ValueError(f"glu: halving dimension {dim} of size {x.shape[dim]}, which is odd")
    a, b = x.chunk(2, dim)
    return a * b.sigmoid()


def prelu(x, weight):
    """``x`` where positive, else ``weight * x``; ``weight`` has one value or one per channel
    (dimension 1)."""
    if weight.numel() == 1:     # one slope: the result has x's shape (a 0-d x gives 0-d)
        weight = weight.reshape([])
    else:
        if x.ndim < 2 or x.shape[1] != weight.numel():
            raise ShapeError(f"prelu: {weight.numel()} weights for input of shape "
                             f"{list(x.shape)}; expected 1 or one per channel")
        weight = weight.reshape([1, -1] + [1] * (x.ndim - 2))
    return call(OPS["where"], [x > 0, x, weight * x], {})


def _implicit_dim(ndim):
    # PyTorch's rule for a softmax called without ``dim`` (kept for old scripts)
    return 0 if ndim in (0, 1, 3) else 1


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-input)`` along ``dim``.

        >>> import mutograd as mg
        >>> softmin(mg.tensor([1., 1.]), dim=0).tolist()
        [0.5, 0.5]
    """
    return softmax(-input, _implicit_dim(input.ndim) if dim is None else dim, dtype=dtype)


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """A sample of the Gumbel-softmax distribution: ``softmax((logits + g) / tau)`` with
    Gumbel noise ``g`` from mutograd's generator; ``hard=True`` returns the one-hot of its
    maximum in the forward pass and the soft sample's gradient (straight-through).

        >>> import mutograd as mg
        >>> y = gumbel_softmax(mg.zeros([2, 3]), hard=True)
        >>> y.sum(-1).tolist()
        [1.0, 1.0]
    """
    xp = logits._place.xp       # the noise is drawn where the logits live
    noise = -xp.log(random.generator(logits._place).exponential(size=tuple(logits.shape)))
    y_soft = softmax((logits + _wrap(noise.astype(logits.dtype.np), logits)) / tau, dim)
    if not hard:
        return y_soft
    axis = dim % logits.ndim
    idx = xp.expand_dims(y_soft._data.argmax(axis=axis), axis)
    categories = xp.arange(logits.shape[axis]).reshape(
        [-1 if a == axis else 1 for a in range(logits.ndim)])
    onehot = (idx == categories).astype(logits.dtype.np)
    return _wrap(onehot, logits) - y_soft.detach() + y_soft
