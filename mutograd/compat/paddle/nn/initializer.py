"""``paddle.nn.initializer`` and ``paddle.ParamAttr``: how a layer's parameters start out.

An initializer is an object called on a parameter; it fills it in place under ``no_grad`` and
returns it. Fans follow Paddle, not PyTorch: a 2-D weight ``[in, out]`` (Paddle's ``Linear``
layout) has ``fan_in = shape[0]``; a convolution weight ``[out, in, kh, kw]`` has ``fan_in = in *
kh * kw``.

    >>> import mutograd.compat.paddle as paddle
    >>> init = paddle.nn.initializer
    >>> lin = paddle.nn.Linear(2, 3, weight_attr=paddle.ParamAttr(initializer=init.Constant(0.5)),
    ...                        bias_attr=False)
    >>> lin.weight.tolist(), lin.bias
    ([[0.5, 0.5, 0.5], [0.5, 0.5, 0.5]], None)
"""
import math

from ....autograd.grad_mode import no_grad
from ....nn import init as _init
from ....tensor import Tensor


def _compute_fans(shape):
    """Paddle's fans: ``[in, out]`` for 2-D, ``[out, in, *kernel]`` beyond."""
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    field = math.prod(shape[2:])
    return shape[1] * field, shape[0] * field


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for an activation (Paddle's table: also 'conv3d', 'selu' ...)."""
    return _init.calculate_gain(nonlinearity, param)


class Initializer:
    """Base class: ``init(param)`` fills ``param`` in place and returns it."""

    def __call__(self, param, block=None):
        with no_grad():
            self._fill(param)
        return param

    def _fill(self, param):
        raise TypeError(f"{type(self).__name__} is an abstract initializer; use Constant, "
                        f"Normal, Uniform, XavierUniform, ...")


class Constant(Initializer):
    """Every element ``value``."""

    def __init__(self, value=0.0):
        self.value = value

    def _fill(self, p):
        p.fill_(self.value)


class Normal(Initializer):
    """Samples from N(mean, std^2)."""

    def __init__(self, mean=0.0, std=1.0, name=None):
        self.mean, self.std = mean, std

    def _fill(self, p):
        _init.normal_(p, self.mean, self.std)


class TruncatedNormal(Initializer):
    """N(mean, std^2) redrawn outside ``[a, b]``."""

    def __init__(self, mean=0.0, std=1.0, a=-2.0, b=2.0, name=None):
        self.mean, self.std, self.a, self.b = mean, std, a, b

    def _fill(self, p):
        _init.trunc_normal_(p, self.mean, self.std, self.a, self.b)


class Uniform(Initializer):
    """Samples from U(low, high)."""

    def __init__(self, low=-1.0, high=1.0, name=None):
        self.low, self.high = low, high

    def _fill(self, p):
        _init.uniform_(p, self.low, self.high)


class _Fans(Initializer):
    def __init__(self, fan_in=None, fan_out=None):
        self.fan_in, self.fan_out = fan_in, fan_out

    def _fans(self, p):
        fi, fo = _compute_fans(list(p.shape))
        return (fi if self.fan_in is None else self.fan_in,
                fo if self.fan_out is None else self.fan_out)


class _Xavier(_Fans):
    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        super().__init__(fan_in, fan_out)
        self.gain = gain

    def _scale(self, p, k):
        """``gain * sqrt(k / (fan_in + fan_out))``."""
        fi, fo = self._fans(p)
        return self.gain * math.sqrt(k / (fi + fo))


class XavierNormal(_Xavier):
    """N(0, std^2) with ``std = gain * sqrt(2 / (fan_in + fan_out))`` (``Embedding``'s default)."""

    def _fill(self, p):
        _init.normal_(p, 0.0, self._scale(p, 2.0))


class XavierUniform(_Xavier):
    """U(-a, a) with ``a = gain * sqrt(6 / (fan_in + fan_out))`` (``Linear``'s default)."""

    def _fill(self, p):
        a = self._scale(p, 6.0)
        _init.uniform_(p, -a, a)


class KaimingNormal(_Fans):
    """N(0, std^2) with ``std = gain / sqrt(fan)`` (He)."""

    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu", mode="fan_in"):
        super().__init__(fan_in, fan_in)
        self.slope, self.nonlinearity, self.mode = negative_slope, nonlinearity, mode

    def _std(self, p):
        fi, fo = _compute_fans(list(p.shape))
        fan = (fi if self.mode == "fan_in" else fo) if self.fan_in is None else self.fan_in
        return calculate_gain(self.nonlinearity, self.slope) / math.sqrt(fan)

    def _fill(self, p):
        _init.normal_(p, 0.0, self._std(p))


class KaimingUniform(KaimingNormal):
    """U(-b, b) with ``b = gain * sqrt(3 / fan)`` (He)."""

    def _fill(self, p):
        b = math.sqrt(3.0) * self._std(p)
        _init.uniform_(p, -b, b)


class Assign(Initializer):
    """The given values (an array, a list or a Tensor of the parameter's shape)."""

    def __init__(self, value, name=None):
        self.value = value

    def _fill(self, p):
        v = self.value
        p.copy_(v if isinstance(v, Tensor) else _tensor(v, p))


def _tensor(v, like):
    from ....ops.creation import tensor
    return tensor(v, dtype=like.dtype)


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix over the first axis and the flattened rest, times ``gain``."""

    def __init__(self, gain=1.0, name=None):
        self.gain = gain

    def _fill(self, p):
        _init.orthogonal_(p, self.gain)


class Dirac(Initializer):
    """The identity for a convolution weight ``[out, in, *kernel]`` in ``groups`` groups: the
    centre tap of channel ``i`` of each group set to 1."""

    def __init__(self, groups=1, name=None):
        self.groups = groups

    def _fill(self, p):
        shape = list(p.shape)
        if len(shape) < 3:
            raise ValueError("Dirac initializer needs a convolution weight (3-D to 5-D)")
        out_per_group = shape[0] // self.groups
        p.zero_()
        centre = tuple(k // 2 for k in shape[2:])
        for g in range(self.groups):
            for i in range(min(out_per_group, shape[1])):
                p[(g * out_per_group + i, i) + centre] = 1.0


class Bilinear(Initializer):
    """Bilinear up-sampling kernels for a transposed convolution weight ``[C, 1, k, k]``."""

    def _fill(self, p):
        shape = list(p.shape)
        if len(shape) != 4 or shape[2] != shape[3]:
            raise ValueError("Bilinear initializer needs a 4-D weight with square kernels")
        k = shape[3]
        f = math.ceil(k / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        xp = p._place.xp
        idx = xp.arange(k)
        w1 = 1 - xp.abs(idx / f - c)
        kernel = w1[:, None] * w1[None, :]
        p[...] = _tensor(xp.broadcast_to(kernel, shape).copy(), p)


_GLOBAL = {"weight": None, "bias": None}


def set_global_initializer(weight_init, bias_init=None):
    """Initializers that layers built afterwards use instead of their defaults (``None`` resets);
    a ``ParamAttr`` with an initializer still wins."""
    _GLOBAL["weight"], _GLOBAL["bias"] = weight_init, bias_init


class ParamAttr:
    """How a layer creates one parameter: its ``name``, ``initializer``, ``learning_rate`` (a
    multiplier of the optimizer's rate), ``regularizer`` (its own weight decay), ``trainable``
    and ``need_clip`` (whether gradient clipping applies to it)."""

    def __init__(self, name=None, initializer=None, learning_rate=1.0, regularizer=None,
                 trainable=True, do_model_average=True, need_clip=True):
        self.name, self.initializer, self.learning_rate = name, initializer, learning_rate
        self.regularizer, self.trainable, self.need_clip = regularizer, trainable, need_clip
        self.do_model_average = do_model_average

    def __repr__(self):
        init = type(self.initializer).__name__ if self.initializer else None
        return (f"ParamAttr(name={self.name!r}, initializer={init}, "
                f"learning_rate={self.learning_rate}, trainable={self.trainable})")


def to_attr(attr):
    """Paddle's accepted forms of ``weight_attr=``/``bias_attr=``: None, False (no parameter), a
    ParamAttr, an initializer, or a name. Returns a ParamAttr or False."""
    if attr is None or attr is True:
        return ParamAttr()
    if attr is False:
        return False
    if isinstance(attr, ParamAttr):
        return attr
    if isinstance(attr, Initializer):
        return ParamAttr(initializer=attr)
    if isinstance(attr, str):
        return ParamAttr(name=attr)
    raise TypeError(f"a parameter attribute must be None, False, a ParamAttr, an initializer or "
                    f"a name, got {type(attr).__name__}")


def apply(param, attr, default, is_bias=False):
    """Initialise ``param`` from ``attr`` (a ``to_attr`` result): its initializer, else the
    global one, else ``default``; then set its name, trainability and optimizer attributes."""
    init = attr.initializer or _GLOBAL["bias" if is_bias else "weight"] or default
    if init is not None:
        init(param)
    if attr.name is not None:
        param.name = attr.name
    if not attr.trainable:
        param.stop_gradient = True
    param.optimize_attr = {"learning_rate": attr.learning_rate}
    param.regularizer = attr.regularizer
    param.need_clip = attr.need_clip
    return param
