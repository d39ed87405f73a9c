"""``paddle.distribution.transform``: the transforms with Paddle's names and methods
(``forward``, ``inverse``, ``forward_log_det_jacobian``, ``inverse_log_det_jacobian``,
``ChainTransform``, ``PowerTransform(power)``, ``IndependentTransform(base,
reinterpreted_batch_rank)``, ``ReshapeTransform(in_event_shape, out_event_shape)``,
``StackTransform(transforms, axis)``).

    >>> import mutograd.compat.paddle as paddle
    >>> t = paddle.distribution.ExpTransform()
    >>> float(t.forward(paddle.to_tensor(0.0)))
    1.0
"""
from ....distributions import transforms as _t

__all__ = ["AbsTransform", "AffineTransform", "ChainTransform", "ExpTransform",
           "IndependentTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
           "SoftmaxTransform", "SoftplusTransform", "StackTransform", "StickBreakingTransform",
           "TanhTransform", "Transform"]


class _Paddle:
    def forward(self, x):
        """``y = t(x)``."""
        return self(x)

    def inverse(self, y):
        """``x`` with ``t(x) = y``."""
        return self.inv(y)

    def forward_log_det_jacobian(self, x):
        """log |det dy/dx| at ``x``."""
        return self.log_abs_det_jacobian(x, self(x))

    def inverse_log_det_jacobian(self, y):
        """log |det dx/dy| at ``y``."""
        return -self.log_abs_det_jacobian(self.inv(y), y)


def _make(base, name=None):
    return type(name or base.__name__, (_Paddle, base), {"__module__": __name__,
                                                          "__doc__": base.__doc__})


Transform = _make(_t.Transform)
AbsTransform = _make(_t.AbsTransform)
ExpTransform = _make(_t.ExpTransform)
SigmoidTransform = _make(_t.SigmoidTransform)
SoftmaxTransform = _make(_t.SoftmaxTransform)
StickBreakingTransform = _make(_t.StickBreakingTransform)
TanhTransform = _make(_t.TanhTransform)
SoftplusTransform = _make(_t.SoftplusTransform)
AffineTransform = _make(_t.AffineTransform)


class ChainTransform(_Paddle, _t.ComposeTransform):
    """The transforms ``transforms`` applied in order (``paddle``'s ComposeTransform)."""

    def __init__(self, transforms):
        super().__init__(list(transforms))


class PowerTransform(_Paddle, _t.PowerTransform):
    """``y = x ** power`` on positive numbers."""

    def __init__(self, power):
        super().__init__(power)

    @property
    def power(self):
        return self.exponent


class IndependentTransform(_Paddle, _t.IndependentTransform):
    """``base`` with ``reinterpreted_batch_rank`` more trailing dimensions taken as one
    point."""

    def __init__(self, base, reinterpreted_batch_rank):
        super().__init__(base, reinterpreted_batch_rank)


class ReshapeTransform(_Paddle, _t.ReshapeTransform):
    """The trailing ``in_event_shape`` reshaped to ``out_event_shape``."""

    def __init__(self, in_event_shape, out_event_shape):
        super().__init__(in_event_shape, out_event_shape)

    @property
    def in_event_shape(self):
        return self.in_shape

    @property
    def out_event_shape(self):
        return self.out_shape


class StackTransform(_Paddle, _t.StackTransform):
    """Each of ``transforms`` applied to its slice of ``axis``."""

    def __init__(self, transforms, axis=0):
        super().__init__(transforms, axis)

    @property
    def axis(self):
        return self.dim
